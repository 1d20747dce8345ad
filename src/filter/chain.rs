//! The scaling chain of layers, with RedisBloom's semantics.
//!
//! Layer `i` of a scaling filter has capacity `capacity * expansion^i` and error
//! `error_rate * 0.5^(i+1)`, so the chain's false-positive rate stays below `error_rate`. A
//! non-scaling filter (expansion 0) has one layer at `error_rate` itself, exactly Guava's size.

use std::mem::size_of;

use super::hash::{ItemHash, Scheme};
use super::lanes;
use super::layer::{Layer, Sizing, MAX_HASHES};
use super::redisbloom::LinkSizing;
use crate::error::{bad_data, Error, Result};

/// Each new layer's error is the previous one's times this.
pub const TIGHTENING: f64 = 0.5;
/// Largest accepted expansion factor.
pub const MAX_EXPANSION: u32 = 32768;
/// The growth RedisBloom records with a non-scaling filter (its default expansion).
pub const REDISBLOOM_IDLE_GROWTH: u32 = 2;
/// RedisBloom's `MEMORY USAGE` / `BF.INFO Size` count its chain and link structs at these
/// sizes (64-bit builds); its filters report the same figures here.
const REDISBLOOM_CHAIN_BYTES: u64 = 32;
const REDISBLOOM_LINK_BYTES: u64 = 64;
/// Batches prefetch probes only in layers at least this big; smaller ones stay in cache.
const PREFETCH_MIN_BYTES: u64 = 2 << 20;
/// How many items ahead of the one being checked a batch prefetches: enough to keep the
/// core's outstanding misses busy, few enough not to overflow them. On the 1 GiB filter
/// (AMD EPYC VM) distances 2, 4, 6, 8 and 12 gave 110, 85, 100, 90 and 93 ns per add: flat
/// from 4 on.
const PREFETCH_DISTANCE: usize = 8;

/// A layer's parameters without its bits: what persistence formats carry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerMeta {
    pub capacity: u64,
    pub count: u64,
    pub k: u32,
    pub error: f64,
    pub bit_size: u64,
    /// Bits per entry as RedisBloom records it (0 for Guava-scheme layers).
    pub bpe: f64,
}

/// A chain's parameters without its bits. `expansion == 0` means non-scaling.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainMeta {
    pub scheme: Scheme,
    pub error_rate: f64,
    pub expansion: u32,
    /// The growth factor the format records: `expansion` when scaling; RedisBloom records
    /// one for non-scaling filters too (kept so its bytes round-trip).
    pub growth: u32,
    pub layers: Vec<LayerMeta>,
}

/// The bookkeeping bytes a chain and each of its layers count for, by scheme.
fn overhead(scheme: Scheme) -> (u64, u64) {
    match scheme {
        Scheme::Guava => (size_of::<Chain>() as u64, size_of::<Layer>() as u64),
        Scheme::RedisBloom => (REDISBLOOM_CHAIN_BYTES, REDISBLOOM_LINK_BYTES),
    }
}

/// Memory a chain of `layers` layers with `data_bytes` bytes of bits takes: the figure
/// `BF.INFO Size` and `MEMORY USAGE` report, and the one `bf.max-filter-bytes` limits.
pub fn memory_for(scheme: Scheme, layers: u64, data_bytes: u64) -> u64 {
    let (chain, layer) = overhead(scheme);
    chain
        .saturating_add(layers.saturating_mul(layer))
        .saturating_add(data_bytes)
}

/// The most layers a filter within `limit` can have: each costs its bookkeeping plus at
/// least one word. Decoders check a claimed layer count against it before reading on.
pub fn max_layers(scheme: Scheme, limit: u64) -> u64 {
    limit / (overhead(scheme).1 + 8)
}

fn check_limit(needed: u64, limit: u64) -> Result<()> {
    if needed > limit {
        return Err(Error::TooLarge { needed, limit });
    }
    Ok(())
}

fn valid_rate(p: f64) -> bool {
    p > 0.0 && p < 1.0
}

impl ChainMeta {
    /// Checks everything a persisted or received filter claims before a byte is allocated:
    /// ranges, consistency between fields, and the total size against `limit`.
    pub fn validate(&self, limit: u64) -> Result<()> {
        // RedisBloom records no chain error rate (its codec infers one from the first
        // link, which may be anything in (0, 1)); ours is the one new layers derive from.
        if self.scheme == Scheme::Guava && !valid_rate(self.error_rate) {
            return Err(bad_data("error rate out of range"));
        }
        if self.expansion > MAX_EXPANSION {
            return Err(bad_data("expansion out of range"));
        }
        if self.layers.is_empty() {
            return Err(bad_data("no layers"));
        }
        if self.expansion == 0 && self.layers.len() != 1 {
            return Err(bad_data("non-scaling filter with more than one layer"));
        }
        if self.scheme == Scheme::RedisBloom && !(1..=MAX_EXPANSION).contains(&self.growth) {
            return Err(bad_data("growth out of range"));
        }
        let mut data_bytes = 0u64;
        for (i, layer) in self.layers.iter().enumerate() {
            if layer.capacity == 0 {
                return Err(bad_data(format!("layer {i}: zero capacity")));
            }
            if layer.count > layer.capacity {
                return Err(bad_data(format!("layer {i}: count above capacity")));
            }
            if layer.k == 0 || layer.k > MAX_HASHES {
                return Err(bad_data(format!("layer {i}: bad number of hashes")));
            }
            if !valid_rate(layer.error) {
                return Err(bad_data(format!("layer {i}: error rate out of range")));
            }
            if layer.bit_size == 0 || layer.bit_size % 64 != 0 {
                return Err(bad_data(format!(
                    "layer {i}: bit size not a multiple of 64"
                )));
            }
            let bpe_ok = match self.scheme {
                Scheme::Guava => layer.bpe == 0.0,
                Scheme::RedisBloom => layer.bpe.is_finite() && layer.bpe > 0.0,
            };
            if !bpe_ok {
                return Err(bad_data(format!("layer {i}: bad bits per entry")));
            }
            data_bytes = data_bytes.saturating_add(layer.bit_size / 8);
        }
        let needed = memory_for(self.scheme, self.layers.len() as u64, data_bytes);
        check_limit(needed, limit).map_err(|_| {
            bad_data(format!(
                "filter of {needed} bytes is over bf.max-filter-bytes ({limit})"
            ))
        })
    }
}

/// A Bloom filter: one or more layers, newest last.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    scheme: Scheme,
    error_rate: f64,
    expansion: u32,
    growth: u32,
    layers: Vec<Layer>,
}

impl Chain {
    /// A new Guava-scheme filter; see [`Chain::create`].
    pub fn new(error_rate: f64, capacity: u64, expansion: u32, limit: u64) -> Result<Chain> {
        Chain::create(Scheme::Guava, error_rate, capacity, expansion, limit)
    }

    /// A new filter with one empty layer, or `TooLarge` before allocating anything.
    /// Arguments are assumed in range (the command layer checks them).
    pub fn create(
        scheme: Scheme,
        error_rate: f64,
        capacity: u64,
        expansion: u32,
        limit: u64,
    ) -> Result<Chain> {
        let first_error = if expansion == 0 {
            error_rate
        } else {
            error_rate * TIGHTENING
        };
        let growth = match (scheme, expansion) {
            (Scheme::RedisBloom, 0) => REDISBLOOM_IDLE_GROWTH,
            _ => expansion,
        };
        let mut chain = Chain {
            scheme,
            error_rate,
            expansion,
            growth,
            layers: Vec::new(),
        };
        chain.push_layer(capacity, first_error, limit)?;
        Ok(chain)
    }

    /// Rebuilds a filter from validated parameters with all bits clear; the caller fills
    /// the bits in (RDB load, LOADCHUNK).
    pub fn from_meta(meta: &ChainMeta, limit: u64) -> Result<Chain> {
        meta.validate(limit)?;
        let layers = meta
            .layers
            .iter()
            .map(|l| {
                let words = vec![0u64; (l.bit_size / 64) as usize];
                Layer::from_words(l.capacity, l.count, l.error, l.k, words).with_bpe(l.bpe)
            })
            .collect();
        Ok(Chain {
            scheme: meta.scheme,
            error_rate: meta.error_rate,
            expansion: meta.expansion,
            growth: meta.growth,
            layers,
        })
    }

    /// A filter from validated parameters and layers that already hold their bits (formats
    /// that interleave parameters and bit arrays).
    pub fn from_layers(meta: &ChainMeta, layers: Vec<Layer>) -> Result<Chain> {
        if layers.len() != meta.layers.len() {
            return Err(Error::Internal);
        }
        Ok(Chain {
            scheme: meta.scheme,
            error_rate: meta.error_rate,
            expansion: meta.expansion,
            growth: meta.growth,
            layers,
        })
    }

    /// The parameters persistence formats store.
    pub fn meta(&self) -> ChainMeta {
        ChainMeta {
            scheme: self.scheme,
            error_rate: self.error_rate,
            expansion: self.expansion,
            growth: self.growth,
            layers: self
                .layers
                .iter()
                .map(|l| LayerMeta {
                    capacity: l.capacity(),
                    count: l.count(),
                    k: l.k(),
                    error: l.error(),
                    bit_size: l.bit_size(),
                    bpe: l.bpe(),
                })
                .collect(),
        }
    }

    fn push_layer(&mut self, capacity: u64, error: f64, limit: u64) -> Result<()> {
        let (k, words, bpe) = match self.scheme {
            Scheme::Guava => {
                let s = Sizing::guava(capacity, error);
                (s.k, s.words, 0.0)
            }
            Scheme::RedisBloom => {
                let s = LinkSizing::of(capacity, error);
                (s.k, s.words, s.bpe)
            }
        };
        let data = self.data_len().saturating_add(words.saturating_mul(8));
        let needed = memory_for(self.scheme, self.layers.len() as u64 + 1, data);
        check_limit(needed, limit)?;
        if k == 0 || k > MAX_HASHES || !valid_rate(error) {
            // Only reachable after ~1000 tightenings, long after any sane limit.
            return Err(Error::TooLarge {
                needed: u64::MAX,
                limit,
            });
        }
        self.layers
            .push(Layer::new(capacity, error, k, words).with_bpe(bpe));
        Ok(())
    }

    /// Adds an item: `Ok(true)` if it was new, `Ok(false)` if it was (probably) present.
    /// A full last layer grows the chain, or fails with `Full` when it does not scale.
    pub fn add(&mut self, item: &[u8], limit: u64) -> Result<bool> {
        self.add_hash(self.hash(item), limit)
    }

    /// The item's hash under this filter's scheme (for the `_hash` and batch methods).
    #[inline]
    pub fn hash(&self, item: &[u8]) -> ItemHash {
        self.scheme.hash(item)
    }

    /// [`Chain::add`] for an already hashed item.
    pub fn add_hash(&mut self, hash: ItemHash, limit: u64) -> Result<bool> {
        let (last, older) = self.layers.split_last_mut().ok_or(Error::Internal)?;
        if older.iter().rev().any(|l| l.contains(hash)) {
            return Ok(false);
        }
        if !last.is_full() {
            // The common case: test and set in one pass over the probes.
            return Ok(last.insert_if_absent(hash));
        }
        if last.contains(hash) {
            return Ok(false);
        }
        if self.expansion == 0 {
            return Err(Error::Full);
        }
        let capacity = last.capacity().saturating_mul(self.expansion as u64);
        let error = last.error() * TIGHTENING;
        self.push_layer(capacity, error, limit)?;
        let last = self.layers.last_mut().ok_or(Error::Internal)?;
        last.insert(hash);
        Ok(true)
    }

    /// The item is (probably) in the filter: all probes of some layer are set.
    pub fn contains(&self, item: &[u8]) -> bool {
        self.contains_hash(self.hash(item))
    }

    /// [`Chain::contains`] for an already hashed item. Newest layers first: they are the
    /// largest, so most present items are found there.
    pub fn contains_hash(&self, hash: ItemHash) -> bool {
        self.layers.iter().rev().any(|l| l.contains(hash))
    }

    /// Starts loading the item's probe lines in every large layer.
    fn prefetch(&self, hash: ItemHash) {
        for layer in &self.layers {
            if layer.bytes() >= PREFETCH_MIN_BYTES {
                layer.prefetch(hash);
            }
        }
    }

    /// [`Chain::add_hash`] for each item in order, handing each result to `each` and
    /// stopping after the first error. With `prefetch`, the probe lines of the items a few
    /// places ahead are requested first so their misses overlap; the answers are the same
    /// either way.
    pub fn add_batch(
        &mut self,
        hashes: &[ItemHash],
        limit: u64,
        prefetch: bool,
        mut each: impl FnMut(Result<bool>),
    ) {
        let prefetch = prefetch && hashes.len() > 1;
        if prefetch {
            hashes
                .iter()
                .take(PREFETCH_DISTANCE)
                .for_each(|&h| self.prefetch(h));
        }
        for (i, &hash) in hashes.iter().enumerate() {
            if prefetch {
                if let Some(&ahead) = hashes.get(i + PREFETCH_DISTANCE) {
                    self.prefetch(ahead);
                }
            }
            let result = self.add_hash(hash, limit);
            let stop = result.is_err();
            each(result);
            if stop {
                break;
            }
        }
    }

    /// [`Chain::contains_hash`] for each item, layer by layer (newest first) over the items
    /// not found yet. With `prefetch`, large layers are walked with many lookups in flight
    /// (see [`lanes`](super::lanes)); otherwise one lookup after another.
    pub fn contains_batch(&self, hashes: &[ItemHash], prefetch: bool) -> Vec<bool> {
        let mut found = vec![false; hashes.len()];
        let mut pending: Vec<usize> = (0..hashes.len()).collect();
        for layer in self.layers.iter().rev() {
            if prefetch && layer.bytes() >= PREFETCH_MIN_BYTES {
                lanes::contains_each(layer, hashes, &pending, |j, f| found[j] = f);
            } else {
                for &j in &pending {
                    found[j] = layer.contains(hashes[j]);
                }
            }
            pending.retain(|&j| !found[j]);
            if pending.is_empty() {
                break;
            }
        }
        found
    }

    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }
    /// The growth factor the format records (see [`ChainMeta::growth`]).
    pub fn growth(&self) -> u32 {
        self.growth
    }
    /// The expansion factor; 0 for a non-scaling filter.
    pub fn expansion(&self) -> u32 {
        self.expansion
    }
    pub fn is_scaling(&self) -> bool {
        self.expansion != 0
    }
    /// Items added (adds that answered 1), over all layers.
    pub fn count(&self) -> u64 {
        // Saturating: loaded data may claim counts whose sum does not fit.
        self.layers
            .iter()
            .fold(0u64, |sum, l| sum.saturating_add(l.count()))
    }
    /// Sum of the layers' capacities.
    pub fn capacity(&self) -> u64 {
        self.layers
            .iter()
            .fold(0u64, |sum, l| sum.saturating_add(l.capacity()))
    }
    /// Bytes of all layers' bit arrays, end to end (the SCANDUMP data stream).
    pub fn data_len(&self) -> u64 {
        self.layers.iter().map(Layer::bytes).sum()
    }
    /// The filter's memory in bytes (`BF.INFO Size`, `MEMORY USAGE`).
    pub fn memory_bytes(&self) -> u64 {
        memory_for(self.scheme, self.layers.len() as u64, self.data_len())
    }

    /// The layer holding data byte `offset`, and that layer's first byte.
    fn locate(&self, offset: u64) -> Option<(usize, u64)> {
        let mut start = 0u64;
        for (i, layer) in self.layers.iter().enumerate() {
            if offset < start + layer.bytes() {
                return Some((i, start));
            }
            start += layer.bytes();
        }
        None
    }

    /// Up to `max` bytes of data from `offset`, never crossing a layer's end; `None` past
    /// the end of the data.
    pub fn read_chunk(&self, offset: u64, max: u64) -> Option<Vec<u8>> {
        let (i, start) = self.locate(offset)?;
        let layer = &self.layers[i];
        let within = offset - start;
        let len = (layer.bytes() - within).min(max.max(1));
        Some(layer.read_bytes(within, len))
    }

    /// Writes a chunk of data at `offset`; it must lie inside one layer.
    pub fn write_chunk(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        if data.is_empty() {
            return Err(bad_data("empty chunk"));
        }
        let (i, start) = self
            .locate(offset)
            .ok_or_else(|| bad_data("chunk offset past the end of the filter"))?;
        let layer = &mut self.layers[i];
        let within = offset - start;
        if data.len() as u64 > layer.bytes() - within {
            return Err(bad_data("chunk crosses the end of a layer"));
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
    use super::*;
    use crate::filter::ItemHash;

    const NO_LIMIT: u64 = u64::MAX;

    #[test]
    fn non_scaling_fills_up_then_refuses() {
        let mut c = Chain::new(0.01, 3, 0, NO_LIMIT).unwrap();
        assert_eq!(c.add(b"a", NO_LIMIT), Ok(true));
        assert_eq!(c.add(b"b", NO_LIMIT), Ok(true));
        assert_eq!(c.add(b"c", NO_LIMIT), Ok(true));
        assert_eq!(c.add(b"a", NO_LIMIT), Ok(false));
        assert_eq!(c.add(b"d", NO_LIMIT), Err(Error::Full));
        assert_eq!(c.count(), 3);
        assert_eq!(c.layers().len(), 1);
        assert_eq!(c.layers()[0].error(), 0.01);
    }

    #[test]
    fn scaling_grows_with_expansion_and_tightening() {
        let mut c = Chain::new(0.01, 10, 3, NO_LIMIT).unwrap();
        for i in 0..200u32 {
            c.add(&i.to_le_bytes(), NO_LIMIT).unwrap();
        }
        let caps: Vec<u64> = c.layers().iter().map(Layer::capacity).collect();
        assert_eq!(caps, vec![10, 30, 90, 270]);
        let errors: Vec<f64> = c.layers().iter().map(Layer::error).collect();
        assert_eq!(errors, vec![0.005, 0.0025, 0.00125, 0.000625]);
        assert_eq!(c.capacity(), 400);
        assert!(c.layers()[..3].iter().all(Layer::is_full));
        for i in 0..200u32 {
            assert!(c.contains(&i.to_le_bytes()));
        }
    }

    #[test]
    fn growth_stops_at_the_limit_before_allocating() {
        let limit = memory_for(Scheme::Guava, 2, 200);
        let mut c = Chain::new(0.01, 10, 2, limit).unwrap();
        let mut last = Ok(true);
        for i in 0..10_000u32 {
            last = c.add(&i.to_le_bytes(), limit);
            if last.is_err() {
                break;
            }
        }
        assert!(matches!(last, Err(Error::TooLarge { limit: l, .. }) if l == limit));
        assert!(c.memory_bytes() <= limit);
    }

    #[test]
    fn create_over_the_limit_is_refused() {
        let err = Chain::new(0.01, 1_000_000_000_000_000, 2, 1 << 29).unwrap_err();
        assert!(matches!(err, Error::TooLarge { needed, .. } if needed > 1 << 29));
        assert!(Chain::new(1e-300, u64::MAX, 2, 1 << 40).is_err());
    }

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

    /// Items with duplicates inside the batch, against a chain that grows mid-batch and one
    /// that fills up: the batch paths must answer exactly like one item at a time.
    #[test]
    fn batches_answer_like_single_items() {
        for scheme in [Scheme::Guava, Scheme::RedisBloom] {
            batches_answer_like_single_items_in(scheme);
        }
    }

    fn batches_answer_like_single_items_in(scheme: Scheme) {
        let items: Vec<ItemHash> = (0..3000u32)
            .map(|i| scheme.hash(&(i % 2200).to_le_bytes()))
            .collect();
        for (capacity, expansion) in [(1_000_000, 2), (300, 2), (1000, 0), (40_000, 1)] {
            // Layers over 2 MB take the prefetching path too.
            let fresh = Chain::create(scheme, 0.0001, capacity, expansion, NO_LIMIT).unwrap();
            let mut single = fresh.clone();
            let expected: Vec<Result<bool>> = items
                .iter()
                .map(|&h| single.add_hash(h, NO_LIMIT))
                .take_while(|r| r.is_ok())
                .collect();
            for prefetch in [false, true] {
                let mut batch = fresh.clone();
                let mut got = Vec::new();
                for part in items.chunks(100) {
                    batch.add_batch(part, NO_LIMIT, prefetch, |r| got.push(r));
                    if got.last().is_some_and(|r| r.is_err()) {
                        break;
                    }
                }
                let oks: Vec<_> = got.iter().take_while(|r| r.is_ok()).cloned().collect();
                assert_eq!(oks, expected, "capacity {capacity} expansion {expansion}");
                if expansion == 0 {
                    assert_eq!(got.last(), Some(&Err(Error::Full)));
                } else {
                    assert_eq!(batch, single);
                }
                let probe: Vec<ItemHash> = (0..5000u32)
                    .map(|i| scheme.hash(&i.to_le_bytes()))
                    .collect();
                let answers = batch.contains_batch(&probe, prefetch);
                let one_by_one: Vec<bool> = probe.iter().map(|&h| batch.contains_hash(h)).collect();
                assert_eq!(answers, one_by_one);
            }
        }
    }

    #[test]
    fn bad_chunks_are_rejected() {
        let mut c = Chain::new(0.01, 100, 2, NO_LIMIT).unwrap();
        let len = c.data_len();
        assert!(c.write_chunk(len, &[1]).is_err());
        assert!(c.write_chunk(len - 1, &[1, 2]).is_err());
        assert!(c.write_chunk(0, &[]).is_err());
        assert!(c.write_chunk(len - 1, &[1]).is_ok());
    }

    #[test]
    fn validation_rejects_inconsistent_meta() {
        let good = Chain::new(0.01, 100, 2, NO_LIMIT).unwrap().meta();
        assert!(good.validate(NO_LIMIT).is_ok());
        let cases: Vec<fn(&mut ChainMeta)> = vec![
            |m| m.error_rate = 0.0,
            |m| m.error_rate = f64::NAN,
            |m| m.expansion = MAX_EXPANSION + 1,
            |m| m.layers.clear(),
            |m| {
                m.expansion = 0;
                m.layers.push(m.layers[0]);
            },
            |m| m.layers[0].capacity = 0,
            |m| m.layers[0].count = m.layers[0].capacity + 1,
            |m| m.layers[0].k = 0,
            |m| m.layers[0].k = MAX_HASHES + 1,
            |m| m.layers[0].error = f64::INFINITY,
            |m| m.layers[0].bit_size = 65,
            |m| m.layers[0].bit_size = 0,
            |m| m.layers[0].bit_size = u64::MAX - 63,
        ];
        for (i, mutate) in cases.iter().enumerate() {
            let mut m = good.clone();
            mutate(&mut m);
            assert!(m.validate(1 << 40).is_err(), "case {i} accepted");
        }
    }
}
