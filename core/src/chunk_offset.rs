//! Which array holds a SCANDUMP offset: a filter's arrays (Bloom layers, cuckoo
//! sub-filters) laid end to end as one byte stream, as SCANDUMP sends them and LOADCHUNK
//! writes them.

/// The array holding stream byte `offset`, given every array's length in order, and the
/// offset within it; `None` past the end.
pub fn locate(lens: impl IntoIterator<Item = u64>, offset: u64) -> Option<(usize, u64)> {
    let mut start = 0u64;
    for (i, len) in lens.into_iter().enumerate() {
        // `start <= offset` here: it only grows past arrays that end at or before `offset`.
        if offset - start < len {
            return Some((i, offset - start));
        }
        start += len;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::locate;

    #[test]
    fn each_byte_falls_in_its_array() {
        let lens = [3u64, 0, 5, 1];
        let want = [
            (0, 0),
            (0, 1),
            (0, 2),
            (2, 0),
            (2, 1),
            (2, 2),
            (2, 3),
            (2, 4),
            (3, 0),
        ];
        for (offset, &w) in want.iter().enumerate() {
            assert_eq!(locate(lens, offset as u64), Some(w), "offset {offset}");
        }
        assert_eq!(locate(lens, 9), None);
        assert_eq!(locate(lens, u64::MAX), None);
        assert_eq!(locate([], 0), None);
    }
}
