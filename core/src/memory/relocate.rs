//! Moving a value's heap blocks elsewhere, for a server's active defragmentation: the
//! server's allocator copies a block to a less fragmented place and frees the old one (or
//! leaves it), and the value must then point at the copy. The core knows its values' blocks;
//! the server layer supplies the mover.

/// Moves heap blocks: `relocate(block)` copies the whole block elsewhere, frees the old one
/// and returns the copy, or returns `None` and leaves the block as it was.
pub trait Relocate {
    fn relocate(&mut self, block: *mut u8) -> Option<*mut u8>;
}

/// Moves the buffer of `v`, if it has one and the mover moves it.
pub fn relocate_vec<T>(v: &mut Vec<T>, mover: &mut dyn Relocate) {
    if v.capacity() == 0 || std::mem::size_of::<T>() == 0 {
        return; // No heap block.
    }
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    let Some(moved) = mover.relocate(ptr.cast()) else {
        return;
    };
    // SAFETY: the mover copied the whole block (len initialized elements and the spare
    // capacity) into one of the same size from the same allocator, and freed the old one;
    // the old Vec must not free it again, so it is forgotten, and the copy keeps its
    // length and capacity (the allocation's alignment is the allocator's, as before).
    unsafe {
        std::mem::forget(std::mem::replace(
            v,
            Vec::from_raw_parts(moved.cast::<T>(), len, cap),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mover that copies into a new Vec's buffer and frees the old block, as the server's
    /// does, or refuses.
    struct Copying {
        moves: usize,
        refuse: bool,
    }

    impl Relocate for Copying {
        fn relocate(&mut self, block: *mut u8) -> Option<*mut u8> {
            if self.refuse {
                return None;
            }
            self.moves += 1;
            // Every block in this test is a Vec<u64> of capacity 5.
            let old = unsafe { Vec::from_raw_parts(block.cast::<u64>(), 5, 5) };
            let mut new = old.clone();
            drop(old);
            let p = new.as_mut_ptr();
            std::mem::forget(new);
            Some(p.cast())
        }
    }

    #[test]
    fn a_moved_vec_keeps_its_contents_and_a_refused_one_stays() {
        let mut v: Vec<u64> = vec![1, 2, 3, 4, 5];
        let before = v.as_ptr();
        relocate_vec(
            &mut v,
            &mut Copying {
                moves: 0,
                refuse: true,
            },
        );
        assert_eq!((v.as_ptr(), v.as_slice()), (before, &[1, 2, 3, 4, 5][..]));
        let mut mover = Copying {
            moves: 0,
            refuse: false,
        };
        relocate_vec(&mut v, &mut mover);
        assert_eq!(mover.moves, 1);
        assert_eq!(v, [1, 2, 3, 4, 5]);
        v.push(6); // Grows from the moved block: it is a live allocation.
        assert_eq!(v.len(), 6);
        let mut empty: Vec<u64> = Vec::new();
        relocate_vec(&mut empty, &mut mover);
        assert_eq!(mover.moves, 1, "an empty Vec has no block");
    }
}
