//! Transparent huge pages for large bit arrays. A probe lands on a random word, so with
//! 4 KiB pages nearly every probe of a big filter also misses the TLB; 2 MiB pages cut those
//! misses by 512x. The kernel here runs THP in `madvise` mode, so we ask for them.
//! (The price: after a fork, as for BGSAVE, a write copies a 2 MiB page instead of 4 KiB.)

/// Arrays smaller than this stay on normal pages; they fit the TLB's reach anyway.
pub const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// Advises the kernel to back the whole 2 MiB-aligned part of `words` (Bloom words, cuckoo
/// slots) with huge pages. A hint only: failure changes nothing.
pub fn advise_huge_pages<T>(words: &[T]) {
    let bytes = std::mem::size_of_val(words);
    if bytes < HUGE_PAGE_MIN_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = words.as_ptr() as usize;
        let first = start.next_multiple_of(HUGE);
        let end = (start + bytes) / HUGE * HUGE;
        if end > first {
            // SAFETY: the range lies inside `words`' allocation; MADV_HUGEPAGE changes only
            // how the kernel backs it, never its contents.
            unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
        }
    }
}
