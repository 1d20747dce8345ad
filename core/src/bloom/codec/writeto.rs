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

/// The parameters of an imported filter. Guava keeps only m and k, so unless given: the
/// capacity is [`guava_capacity`] (the most items Guava could have been created for with
/// these words and this k), raised to the filter's own estimate if that is more; the error
/// rate is `0.5^k`; and the count is Guava's `approximateElementCount`,
/// `round(-m ln(1 - bits_set / m) / k)` (capped at a capacity that was given, and at the
/// derived one for a filter with every bit set, whose estimate is infinite).
pub fn derive_meta(
    header: Header,
    bits_set: u64,
    capacity: Option<u64>,
    error: Option<f64>,
) -> ChainMeta {
    let (m, k) = (header.bit_size() as f64, header.k as f64);
    let fill = bits_set as f64 / m;
    let estimate = (-(-fill).ln_1p() * m / k).round();
    let capacity = match capacity {
        Some(given) => given,
        None if estimate.is_finite() => guava_capacity(header).max(estimate as u64),
        None => guava_capacity(header),
    }
    .max(1);
    let error = error.unwrap_or_else(|| 0.5f64.powi(header.k as i32));
    // `as` saturates an infinite estimate; the capacity caps it.
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
        shard: None,
        variant: Default::default(),
    }
}

/// The largest n for which Guava's `BloomFilter.create(n, p)`, for some p, gives a filter of
/// these words and this k. Guava takes `k = max(1, round(bits / n * ln 2))` with `bits` up
/// to the words' 64 each, so n reaches `words * 64 * ln 2 / (k - 0.5)`. For k = 1 any larger
/// n gives k = 1 too; the bound taken is where Guava's rounding alone would give 0 (0.5).
pub fn guava_capacity(header: Header) -> u64 {
    let bits = header.bit_size() as f64;
    let low = (header.k as f64 - 0.5).max(0.5);
    let mut n = (bits * std::f64::consts::LN_2 / low).floor() as u64;
    // Floating point can land one over the edge: step back to an n Guava maps to this k.
    while n > 1 && guava_k(header.bit_size(), n) < header.k as u32 && header.k > 1 {
        n -= 1;
    }
    n.max(1)
}

/// Guava's `optimalNumOfHashFunctions(n, bits)`.
fn guava_k(bits: u64, n: u64) -> u32 {
    ((bits as f64 / n as f64) * std::f64::consts::LN_2)
        .round()
        .max(1.0) as u32
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
    if meta.shard.is_some() {
        // Guava's bytes have no room for the place: an exported shard would route nothing.
        return Err(Error::ShardUnsupported(
            "a shard cannot be exported to Guava's format (its place would be lost)",
        ));
    }
    if meta.scheme != Scheme::Guava {
        return Err(Error::Unsupported(
            "filters in RedisBloom's format hash differently and cannot be exported to Guava"
                .into(),
        ));
    }
    if !meta.variant.is_plain() {
        return Err(Error::VariantNotExportable("Guava"));
    }
    let [layer] = meta.layers.as_slice() else {
        return Err(Error::Unsupported(
            "only single-layer filters can be exported to Guava".into(),
        ));
    };
    header_for(layer.k, layer.bit_size)
}

/// The Guava header of a filter of `k` hashes over `bit_size` bits, if Guava can hold it
/// (k <= 255, whole words, at most 2^31-1 of them): Bloom layers and counting filters alike.
pub fn header_for(k: u32, bit_size: u64) -> Result<Header> {
    let k = u8::try_from(k)
        .map_err(|_| Error::Unsupported("Guava supports at most 255 hash functions".into()))?;
    // Validated parameters hold whole words; Guava counts them in an int.
    let words = u32::try_from(bit_size / 64)
        .ok()
        .filter(|&w| w <= i32::MAX as u32 && w > 0 && bit_size.is_multiple_of(64))
        .ok_or_else(|| Error::Unsupported("filter too large for Guava".into()))?;
    Ok(Header { k, words })
}

/// Guava's `writeTo()` bytes of a filter with this header and these words (word 0 first;
/// exactly `header.words` of them are written, missing ones as 0).
pub fn write_to(header: Header, words: impl IntoIterator<Item = u64>) -> Vec<u8> {
    let mut out = Vec::with_capacity(header.total_len() as usize);
    out.extend_from_slice(&header.to_bytes());
    let mut words = words.into_iter();
    for _ in 0..header.words {
        out.extend_from_slice(&words.next().unwrap_or(0).to_be_bytes());
    }
    out
}

/// A filter as Guava's `writeTo()` bytes.
pub fn export(chain: &Chain) -> Result<Vec<u8>> {
    let header = export_header(chain)?;
    Ok(write_to(header, chain.layers()[0].words().iter().copied()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bloom::guava::Sizing;

    /// Whatever n and p a Guava filter was created with, the capacity derived from its words
    /// and k is at least n, and Guava gives that capacity the same k.
    #[test]
    fn derived_capacity_is_never_below_the_n_guava_was_given() {
        let rates = [0.5, 0.3, 0.1, 0.03, 0.02, 0.01, 1e-3, 1e-4, 1e-6, 1e-9];
        let mut checked = 0;
        for &p in &rates {
            for n in (1..3000).chain((3000..200_000).step_by(997)) {
                let s = Sizing::guava(n, p);
                let (Ok(k), Ok(words)) = (u8::try_from(s.k), u32::try_from(s.words)) else {
                    continue;
                };
                let header = Header { k, words };
                let capacity = guava_capacity(header);
                assert!(
                    capacity >= n,
                    "create({n}, {p}): {words} words, k {k} -> {capacity}"
                );
                // Some bit count Guava rounds up to these words gives this k at the capacity.
                let (lo, hi) = ((words as u64 - 1) * 64 + 1, words as u64 * 64);
                let near = (capacity as f64 * (k as f64 - 0.5) / std::f64::consts::LN_2) as u64;
                let reached = (near.saturating_sub(2).max(lo)..=(near + 3).min(hi))
                    .any(|bits| guava_k(bits, capacity) == k as u32);
                assert!(
                    k == 1 || reached,
                    "create({n}, {p}): capacity {capacity}, k {k}"
                );
                checked += 1;
            }
        }
        assert!(checked > 20_000);
        // The case found by hand: create(5000, 0.02) is 637 words and k 6.
        let header = Header { k: 6, words: 637 };
        assert!(guava_capacity(header) >= 5000);
    }

    #[test]
    fn the_count_is_guavas_estimate_and_the_capacity_holds_it() {
        let header = Header { k: 6, words: 637 };
        // 16,000 of 40,768 bits set: Guava estimates 3,396 items.
        let meta = derive_meta(header, 16_000, None, None);
        let m = header.bit_size() as f64;
        let estimate = (-(1.0 - 16_000.0 / m).ln() * m / 6.0).round() as u64;
        assert_eq!(meta.layers[0].count, estimate);
        // Overfilled: the estimate is over the derived capacity and becomes the capacity.
        let full = derive_meta(header, 40_000, None, None);
        assert!(full.layers[0].count > guava_capacity(header));
        assert_eq!(full.layers[0].count, full.layers[0].capacity);
        // Every bit set: infinite estimate, the derived capacity and a full count.
        let ones = derive_meta(header, header.bit_size(), None, None);
        assert_eq!(ones.layers[0].capacity, guava_capacity(header));
        assert_eq!(ones.layers[0].count, ones.layers[0].capacity);
        // A given capacity caps the count.
        assert_eq!(
            derive_meta(header, 16_000, Some(100), None).layers[0].count,
            100
        );
    }
}
