//! Guava's `BloomFilter.writeTo()` format, in and out.
//!
//! Layout (big-endian, `DataOutputStream`): strategy ordinal (1 byte; only 1 =
//! `MURMUR128_MITZ_64` hashes like us), k (1 byte, unsigned), the word count L (i32), then L
//! words as i64, word 0 first. Bit `i` is bit `i % 64` of word `i / 64`, as in our layers.
//! Guava stores no capacity, error rate or count; [`derive_meta`] fills them in.

use crate::bloom::{Chain, ChainMeta, LayerMeta, Scheme};
use crate::error::{bad_data, Error, Result};

/// Size of the header before the words.
pub const HEADER_LEN: usize = 6;
/// Guava's ordinal of `MURMUR128_MITZ_64`, the only strategy that hashes like this module.
pub const MURMUR128_MITZ_64: u8 = 1;

/// What the 6-byte header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub k: u8,
    pub words: u32,
}

impl Header {
    pub fn bit_size(&self) -> u64 {
        self.words as u64 * 64
    }
    /// Length of the whole serialized filter.
    pub fn total_len(&self) -> u64 {
        HEADER_LEN as u64 + self.words as u64 * 8
    }
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[0] = MURMUR128_MITZ_64;
        out[1] = self.k;
        out[2..].copy_from_slice(&(self.words as i32).to_be_bytes());
        out
    }
}

/// Parses and checks the header (Guava's own checks, and only the strategy we hash like).
pub fn parse_header(bytes: &[u8]) -> Result<Header> {
    let head = bytes
        .get(..HEADER_LEN)
        .ok_or_else(|| bad_data("Guava filter is truncated"))?;
    if head[0] != MURMUR128_MITZ_64 {
        return Err(bad_data(format!(
            "Guava strategy {} is not MURMUR128_MITZ_64 (1)",
            head[0] as i8
        )));
    }
    if head[1] == 0 {
        return Err(bad_data("Guava filter with 0 hash functions"));
    }
    let words = i32::from_be_bytes([head[2], head[3], head[4], head[5]]);
    if words <= 0 {
        return Err(bad_data("Guava filter with no words"));
    }
    Ok(Header {
        k: head[1],
        words: words as u32,
    })
}

/// The parameters of an imported filter. Guava keeps only m and k, so unless given:
/// capacity `n = round(m ln 2 / k)` (the n for which k is optimal), error rate `0.5^k` (the
/// false-positive rate of such a filter at n items), and the count is Guava's
/// `approximateElementCount`, `round(-m ln(1 - bits_set / m) / k)`, capped at the capacity.
pub fn derive_meta(
    header: Header,
    bits_set: u64,
    capacity: Option<u64>,
    error: Option<f64>,
) -> ChainMeta {
    let (m, k) = (header.bit_size() as f64, header.k as f64);
    let capacity = capacity
        .unwrap_or_else(|| (m * std::f64::consts::LN_2 / k).round() as u64)
        .max(1);
    let error = error.unwrap_or_else(|| 0.5f64.powi(header.k as i32));
    let fill = bits_set as f64 / m;
    let estimate = (-(-fill).ln_1p() * m / k).round();
    // An all-ones filter estimates infinity; `as` saturates it.
    let count = (estimate as u64).min(capacity);
    ChainMeta {
        scheme: Scheme::Guava,
        error_rate: error,
        expansion: 0,
        growth: 0,
        layers: vec![LayerMeta {
            capacity,
            count,
            k: header.k as u32,
            error,
            bit_size: header.bit_size(),
            bpe: 0.0,
        }],
    }
}

/// Guava's big-endian words as our little-endian bytes, or back: both are a byte swap per
/// word (a partial word at the end is dropped).
pub fn swap_words(data: &[u8]) -> Vec<u8> {
    data.chunks_exact(8)
        .flat_map(|w| u64::from_be_bytes(w.try_into().unwrap_or_default()).to_le_bytes())
        .collect()
}

/// Counts the set bits of big-endian (or any-endian) words.
pub fn count_ones(data: &[u8]) -> u64 {
    data.chunks_exact(8)
        .map(|w| u64::from_ne_bytes(w.try_into().unwrap_or_default()).count_ones() as u64)
        .sum()
}

/// A whole Guava filter as a new non-scaling filter (validated; sized against `limit`
/// before allocating). Trailing bytes are refused (Guava ignores them; a copy should not).
pub fn import(
    bytes: &[u8],
    capacity: Option<u64>,
    error: Option<f64>,
    limit: u64,
) -> Result<Chain> {
    let header = parse_header(bytes)?;
    if bytes.len() as u64 != header.total_len() {
        return Err(bad_data(format!(
            "Guava filter of {} words needs {} bytes, got {}",
            header.words,
            header.total_len(),
            bytes.len()
        )));
    }
    let words = &bytes[HEADER_LEN..];
    let meta = derive_meta(header, count_ones(words), capacity, error);
    let mut chain = Chain::from_meta(&meta, limit)?;
    chain.set_layer_bytes(0, &swap_words(words))?;
    Ok(chain)
}

/// The Guava header of a filter Guava can read: Guava's hashing, one layer, k <= 255, at
/// most 2^31-1 words.
pub fn export_header(chain: &Chain) -> Result<Header> {
    export_header_of(&chain.meta())
}

/// [`export_header`] from the filter's parameters alone (a tool that streams the filter
/// decides from its SCANDUMP header).
pub fn export_header_of(meta: &ChainMeta) -> Result<Header> {
    if meta.scheme != Scheme::Guava {
        return Err(Error::Unsupported(
            "filters in RedisBloom's format hash differently and cannot be exported to Guava"
                .into(),
        ));
    }
    let [layer] = meta.layers.as_slice() else {
        return Err(Error::Unsupported(
            "only single-layer filters can be exported to Guava".into(),
        ));
    };
    let k = u8::try_from(layer.k)
        .map_err(|_| Error::Unsupported("Guava supports at most 255 hash functions".into()))?;
    // Validated parameters hold whole words; Guava counts them in an int.
    let words = u32::try_from(layer.bit_size / 64)
        .ok()
        .filter(|&w| w <= i32::MAX as u32 && w > 0 && layer.bit_size % 64 == 0)
        .ok_or_else(|| Error::Unsupported("filter too large for Guava".into()))?;
    Ok(Header { k, words })
}

/// A filter as Guava's `writeTo()` bytes.
pub fn export(chain: &Chain) -> Result<Vec<u8>> {
    let header = export_header(chain)?;
    let mut out = Vec::with_capacity(header.total_len() as usize);
    out.extend_from_slice(&header.to_bytes());
    for word in chain.layers()[0].words() {
        out.extend_from_slice(&word.to_be_bytes());
    }
    Ok(out)
}
