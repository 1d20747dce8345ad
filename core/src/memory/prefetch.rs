//! Software prefetching: a safe hint to the CPU to start loading a word's cache line now
//! ([`prefetch`]), and the walk over a batch that requests the items a fixed distance ahead
//! ([`with_ahead`]), so a batch keeps many memory misses in flight instead of waiting for one
//! after another. On targets without a stable prefetch instruction the hint does nothing.

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

/// Hints that the cache line holding `address` will be read soon. Any address: a prefetch
/// never faults.
#[inline(always)]
pub fn prefetch_address(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch has no effect on program state and never faults, whatever the
    // address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(address.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// The items to request before the walk starts (the first `distance`), and the walk: each
/// item with the one `distance` places ahead, to request before working on it. With
/// `enabled` false (or one item) nothing is to be requested. The per-item cost is one
/// bounds-checked read, as in a hand-written loop.
#[inline]
pub fn with_ahead<T: Copy>(
    items: &[T],
    distance: usize,
    enabled: bool,
) -> (&[T], impl Iterator<Item = (T, Option<T>)> + '_) {
    let enabled = enabled && items.len() > 1;
    let first = if enabled {
        &items[..items.len().min(distance)]
    } else {
        &[]
    };
    let walk = items.iter().enumerate().map(move |(i, &item)| {
        let ahead = if enabled {
            items.get(i + distance).copied()
        } else {
            None
        };
        (item, ahead)
    });
    (first, walk)
}

#[cfg(test)]
mod tests {
    use super::with_ahead;

    #[test]
    fn every_item_is_requested_once_and_distance_ahead() {
        for len in 0..30 {
            let items: Vec<usize> = (0..len).collect();
            let (first, walk) = with_ahead(&items, 8, true);
            let mut requested = first.to_vec();
            for (i, ahead) in walk {
                requested.extend(ahead);
                if len > 1 {
                    // By the time item i is served it and the 8 after it were requested.
                    assert_eq!(requested.len(), len.min(i + 9), "len {len}, item {i}");
                }
            }
            let want: Vec<usize> = if len > 1 { items.clone() } else { Vec::new() };
            assert_eq!(requested, want, "len {len}");
            let (first, mut walk) = with_ahead(&items, 8, false);
            assert!(first.is_empty() && walk.all(|(_, a)| a.is_none()));
        }
    }
}
