//! The slot arrays as one byte stream, oldest sub-filter first, addressed as RedisBloom's
//! SCANDUMP and LOADCHUNK address it.

use super::CuckooFilter;
use crate::chunk_offset;
use crate::error::{Error, Result};

impl CuckooFilter {
    /// The sub-filter holding stream byte `offset`, and the offset within it. With
    /// expansion 1 every sub-filter has the same size and it is a division (a loaded value
    /// may have 65,535 of them, and an AOF rewrite or a LOADCHUNK replay asks once a
    /// sub-filter); otherwise there are at most 57, walked.
    fn locate(&self, offset: u64) -> Option<(usize, u64)> {
        if self.expansion == 1 {
            let len = self.filters.first()?.slots().len() as u64;
            let i = usize::try_from(offset / len).ok()?;
            return (i < self.filters.len()).then_some((i, offset % len));
        }
        chunk_offset::locate(self.filters.iter().map(|f| f.slots().len() as u64), offset)
    }

    /// The chunk SCANDUMP returns for stream byte `offset`, as RedisBloom cuts it: a
    /// sub-filter of at most `max` bytes whole (wherever in it `offset` falls), a larger
    /// one in pieces of `max` bytes from `offset` exactly. `None` past the end.
    pub fn read_chunk(&self, offset: u64, max: u64) -> Option<&[u8]> {
        let (i, within) = self.locate(offset)?;
        let slots = self.filters.get(i)?.slots();
        if slots.len() as u64 <= max {
            return Some(slots);
        }
        let start = within as usize;
        let len = (slots.len() - start).min(max.max(1) as usize);
        slots.get(start..start + len)
    }

    /// Writes a LOADCHUNK chunk at stream byte `offset`; it must lie inside one sub-filter
    /// (`CfCannotLoadChunk` otherwise). Unlike RedisBloom, an offset past the end is refused
    /// rather than folded back into the last sub-filter.
    pub fn write_chunk(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        if data.is_empty() {
            return Err(Error::CfCannotLoadChunk);
        }
        let (i, within) = self.locate(offset).ok_or(Error::CfCannotLoadChunk)?;
        let slots = self
            .filters
            .get_mut(i)
            .ok_or(Error::CfCannotLoadChunk)?
            .slots_mut();
        let start = within as usize;
        let target = start
            .checked_add(data.len())
            .and_then(|end| slots.get_mut(start..end))
            .ok_or(Error::CfCannotLoadChunk)?;
        target.copy_from_slice(data);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::cuckoo::{CuckooFilter, Limits};
    use crate::error::Error;

    const NO_LIMIT: u64 = u64::MAX;

    /// Sub-filters of growing sizes (expansion 2), or all of one size (1: located by
    /// division).
    fn grown(expansion: u16) -> CuckooFilter {
        let mut f = CuckooFilter::new(16, 2, 20, expansion, NO_LIMIT).unwrap();
        for i in 0..60u32 {
            f.add(&i.to_le_bytes(), &Limits::new(NO_LIMIT)).unwrap();
        }
        assert!(f.sub_filters().len() >= 3);
        f
    }

    #[test]
    fn small_sub_filters_come_back_whole_large_ones_in_pieces() {
        for expansion in [1, 2] {
            whole_and_pieces(grown(expansion));
        }
    }

    fn whole_and_pieces(f: CuckooFilter) {
        let sizes: Vec<usize> = f.sub_filters().iter().map(|s| s.slots().len()).collect();
        // Offset 3 lies in sub-filter 0: the whole of it.
        assert_eq!(f.read_chunk(3, 1 << 24).unwrap().len(), sizes[0]);
        // With a smaller chunk size, sub-filter 1 comes in pieces from the exact offset.
        let at = sizes[0] as u64 + 5;
        assert_eq!(
            f.read_chunk(at, 8).unwrap(),
            &f.sub_filters()[1].slots()[5..13]
        );
        // Every sub-filter's last byte is found in it.
        let mut end = 0;
        for (i, &size) in sizes.iter().enumerate() {
            end += size as u64;
            let chunk = f.read_chunk(end - 1, 1).unwrap();
            assert_eq!(chunk, &f.sub_filters()[i].slots()[size - 1..]);
        }
        assert!(f.read_chunk(end, 8).is_none());
        assert!(f.read_chunk(u64::MAX, 8).is_none());
    }

    #[test]
    fn chunks_must_fit_one_sub_filter() {
        for expansion in [1, 2] {
            fit_one(grown(expansion));
        }
    }

    fn fit_one(mut f: CuckooFilter) {
        let first = f.sub_filters()[0].slots().len() as u64;
        let total = f.slot_bytes();
        assert_eq!(
            f.write_chunk(first - 1, &[1, 2]),
            Err(Error::CfCannotLoadChunk)
        );
        assert_eq!(f.write_chunk(total, &[1]), Err(Error::CfCannotLoadChunk));
        assert_eq!(f.write_chunk(0, &[]), Err(Error::CfCannotLoadChunk));
        assert_eq!(f.write_chunk(u64::MAX, &[1]), Err(Error::CfCannotLoadChunk));
        f.write_chunk(first - 1, &[7]).unwrap();
        assert_eq!(f.sub_filters()[0].slots()[first as usize - 1], 7);
    }
}
