//! Allocations that fail with an error instead of ending the process.
//!
//! Inside a server the global allocator asks Redis for memory with `RedisModule_TryAlloc`
//! and its kin, which answer null where `RedisModule_Alloc` would abort the server; these
//! helpers turn that null (or a size past the address space) into
//! [`Error::AllocFailed`], so a value loaded without a size limit (the server's own data)
//! that the machine cannot hold is refused, not fatal.

use std::alloc::{alloc_zeroed, Layout};

use crate::error::{Error, Result};

/// Element types whose all-zero bytes are a valid value (the zeroed constructor's types).
///
/// # Safety
/// Every bit pattern of zeros must be a valid `Self`.
pub unsafe trait Zero: Copy {}

unsafe impl Zero for u8 {}
unsafe impl Zero for u32 {}
unsafe impl Zero for u64 {}

fn refused<T>(n: usize) -> Error {
    Error::AllocFailed {
        bytes: (n as u64).saturating_mul(size_of::<T>() as u64),
    }
}

/// `n` zeros, from `calloc` (untouched pages cost nothing until written).
pub fn zeroed<T: Zero>(n: usize) -> Result<Vec<T>> {
    if n == 0 || size_of::<T>() == 0 {
        return Ok(Vec::new());
    }
    let layout = Layout::array::<T>(n).map_err(|_| refused::<T>(n))?;
    // SAFETY: the layout has a non-zero size; a non-null block of it holds `n` valid
    // zero `T`s (`T: Zero`) and was allocated by the global allocator, as `Vec` requires.
    unsafe {
        let block = alloc_zeroed(layout).cast::<T>();
        if block.is_null() {
            return Err(refused::<T>(n));
        }
        Ok(Vec::from_raw_parts(block, n, n))
    }
}

/// An empty vector with room for exactly `n` elements.
pub fn with_capacity<T>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| refused::<T>(n))?;
    Ok(v)
}

/// `n` copies of `value`.
pub fn filled<T: Clone>(n: usize, value: T) -> Result<Vec<T>> {
    let mut v = with_capacity(n)?;
    v.resize(n, value);
    Ok(v)
}

/// A copy of `items`.
pub fn copied<T: Copy>(items: &[T]) -> Result<Vec<T>> {
    let mut v = with_capacity(items.len())?;
    v.extend_from_slice(items);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_sizes_are_errors() {
        assert!(matches!(
            zeroed::<u64>(usize::MAX / 4),
            Err(Error::AllocFailed { .. })
        ));
        assert!(matches!(
            with_capacity::<u64>(1 << 60),
            Err(Error::AllocFailed { .. })
        ));
        assert!(filled(1usize << 62, 0u8).is_err());
    }

    #[test]
    fn possible_sizes_are_what_was_asked() {
        let z = zeroed::<u64>(1000).unwrap();
        assert_eq!((z.len(), z.iter().sum::<u64>()), (1000, 0));
        assert_eq!(filled(3, 7u8).unwrap(), vec![7, 7, 7]);
        assert_eq!(copied(&[1u32, 2]).unwrap(), vec![1, 2]);
        assert!(zeroed::<u32>(0).unwrap().is_empty());
    }
}
