//! A slice of 64-bit words as the little-endian byte stream the formats carry (RDB values,
//! SCANDUMP data): a view of the whole, a copy of a range, an overwrite of a range. Bloom
//! layers, counting filters and sliding windows all keep their data as such words.

use std::borrow::Cow;

use crate::error::{Error, Result};

/// All the words as little-endian bytes: their own memory where the machine is
/// little-endian (no copy of a possibly huge array), a copy elsewhere.
pub fn as_bytes(words: &[u64]) -> Cow<'_, [u8]> {
    #[cfg(target_endian = "little")]
    {
        // SAFETY: the pointer and length cover exactly the words' initialised memory, u64
        // has no padding, every byte is a valid u8, and the borrow keeps the words alive.
        let bytes =
            unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 8) };
        Cow::Borrowed(bytes)
    }
    #[cfg(not(target_endian = "little"))]
    {
        Cow::Owned(read(words, 0, words.len() as u64 * 8))
    }
}

/// Copies `len` bytes starting at byte `start`; the range must lie inside the words.
pub fn read(words: &[u64], start: u64, len: u64) -> Vec<u8> {
    let (start, end) = (start as usize, (start + len) as usize);
    let mut out = Vec::with_capacity(end - start);
    let (first, last) = (start / 8, end.div_ceil(8));
    for (i, word) in words[first..last].iter().enumerate() {
        let base = (first + i) * 8;
        let bytes = word.to_le_bytes();
        let lo = start.saturating_sub(base);
        let hi = (end - base).min(8);
        out.extend_from_slice(&bytes[lo..hi]);
    }
    out
}

/// Overwrites the bytes from `start` with `data`; the range must lie inside the words.
pub fn write(words: &mut [u64], start: u64, data: &[u8]) {
    let mut pos = start as usize;
    let mut rest = data;
    while !rest.is_empty() {
        let (w, off) = (pos / 8, pos % 8);
        let n = (8 - off).min(rest.len());
        let mut bytes = words[w].to_le_bytes();
        bytes[off..off + n].copy_from_slice(&rest[..n]);
        words[w] = u64::from_le_bytes(bytes);
        pos += n;
        rest = &rest[n..];
    }
}

/// Up to `max` bytes (at least 1) of the words' stream from byte `offset`, a SCANDUMP data
/// chunk; `None` past the end.
pub fn chunk(words: &[u64], offset: u64, max: u64) -> Option<Vec<u8>> {
    let total = words.len() as u64 * 8;
    if offset >= total {
        return None;
    }
    Some(read(words, offset, (total - offset).min(max.max(1))))
}

/// Whether a LOADCHUNK chunk of `len` bytes at `offset` lies inside a stream of `total`
/// bytes (an empty chunk may sit at its very end), with the Bloom filters' errors.
pub fn check_chunk(total: u64, offset: u64, len: u64) -> Result<()> {
    if offset >= total && !(offset == total && len == 0) {
        return Err(Error::InvalidOffset);
    }
    if len > total - offset {
        return Err(Error::ChunkTooBig);
    }
    Ok(())
}
