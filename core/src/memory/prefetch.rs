//! A safe software-prefetch hint: ask the CPU to start loading a word's cache line now, so
//! a batch keeps many memory misses in flight instead of waiting for one after another.
//! On targets without a stable prefetch instruction it does nothing.

/// Hints that `items[index]` will be read soon (any element type: Bloom words, cuckoo
/// slots). Out-of-range indexes are ignored.
#[inline(always)]
pub fn prefetch<T>(items: &[T], index: usize) {
    if let Some(word) = items.get(index) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch never faults and has no effect on program state; the pointer is
        // to a live element anyway.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>((word as *const T).cast::<i8>());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = word;
    }
}
