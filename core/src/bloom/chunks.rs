//! Addressing a filter's data as one byte stream: the layers' bit arrays laid end to end,
//! oldest first, as SCANDUMP sends them and LOADCHUNK and RDB loads write them.

use super::Chain;
use crate::chunk_offset;
use crate::error::{bad_data, Error, Result};

impl Chain {
    /// The layer holding data byte `offset`, and the offset within it.
    fn locate(&self, offset: u64) -> Option<(usize, u64)> {
        chunk_offset::locate(self.layers.iter().map(|l| l.bytes()), offset)
    }

    /// Up to `max` bytes of data from `offset`, never crossing a layer's end; `None` past
    /// the end of the data.
    pub fn read_chunk(&self, offset: u64, max: u64) -> Option<Vec<u8>> {
        let (i, within) = self.locate(offset)?;
        let layer = &self.layers[i];
        let len = (layer.bytes() - within).min(max.max(1));
        Some(layer.read_bytes(within, len))
    }

    /// Writes a chunk of data at `offset`; it must lie inside one layer.
    pub fn write_chunk(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        let (i, within) = self.locate(offset).ok_or(Error::InvalidOffset)?;
        let layer = &mut self.layers[i];
        if data.len() as u64 > layer.bytes() - within {
            return Err(Error::ChunkTooBig);
        }
        layer.write_bytes(within, data);
        Ok(())
    }

    /// Replaces layer `i`'s bits with little-endian `data` of exactly its size (RDB load).
    pub fn set_layer_bytes(&mut self, i: usize, data: &[u8]) -> Result<()> {
        let layer = self
            .layers
            .get_mut(i)
            .ok_or_else(|| bad_data("no such layer"))?;
        if data.len() as u64 != layer.bytes() {
            return Err(bad_data(format!(
                "layer {i}: data length does not match its bit size"
            )));
        }
        layer.write_bytes(0, data);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::bloom::Chain;

    const NO_LIMIT: u64 = u64::MAX;

    #[test]
    fn chunks_never_cross_layers_and_rebuild_the_same_filter() {
        let mut c = Chain::new(0.01, 50, 2, NO_LIMIT).unwrap();
        for i in 0..400u32 {
            c.add(&i.to_be_bytes(), NO_LIMIT).unwrap();
        }
        let mut copy = Chain::from_meta(&c.meta(), NO_LIMIT).unwrap();
        let mut offset = 0;
        let mut starts = vec![];
        while let Some(chunk) = c.read_chunk(offset, 13) {
            assert!(chunk.len() <= 13 && !chunk.is_empty());
            copy.write_chunk(offset, &chunk).unwrap();
            starts.push(offset);
            offset += chunk.len() as u64;
        }
        assert_eq!(offset, c.data_len());
        assert_eq!(copy, c);
        // Every layer boundary is a chunk start.
        let mut boundary = 0;
        for layer in c.layers() {
            assert!(starts.contains(&boundary));
            boundary += layer.bytes();
        }
    }

    #[test]
    fn bad_chunks_are_rejected() {
        let mut c = Chain::new(0.01, 100, 2, NO_LIMIT).unwrap();
        let len = c.data_len();
        assert!(c.write_chunk(len, &[1]).is_err());
        assert!(c.write_chunk(len - 1, &[1, 2]).is_err());
        assert!(c.write_chunk(0, &[]).is_ok());
        assert!(c.write_chunk(len - 1, &[1]).is_ok());
    }
}
