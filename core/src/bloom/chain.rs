//! The scaling chain of layers, with RedisBloom's semantics.
//!
//! Layer `i` of a scaling filter has capacity `capacity * expansion^i` and error
//! `error_rate * 0.5^(i+1)`, its part of the rate: the parts add up to under `error_rate`.
//! Guava-scheme layers are sized to stay under their part (see `guava::Sizing::scaling`);
//! RedisBloom's are sized to it exactly, as RedisBloom does. A non-scaling filter (expansion
//! 0) has one layer at `error_rate` itself, exactly Guava's size.
//! Batches are in [`batch`](super::batch), chunk access in [`chunks`](super::chunks).

use super::blocked;
use super::footprint::{self, memory_for};
use super::layer::{Layer, MAX_HASHES};
use super::meta::{valid_rate, ChainMeta, LayerMeta, Variant};
use super::probe::ItemHash;
use super::scheme::{LayerShape, Scheme};
use crate::error::{check_limit, Error, Result};
use crate::memory::limit::GrowthLimit;
use crate::memory::relocate::{relocate_vec, Relocate};
use crate::shard::ShardPlace;

/// Each new layer's error is the previous one's times this.
pub const TIGHTENING: f64 = 0.5;

/// A Bloom filter: one or more layers, newest last.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    pub(super) scheme: Scheme,
    pub(super) error_rate: f64,
    pub(super) expansion: u32,
    pub(super) growth: u32,
    pub(super) layers: Vec<Layer>,
    /// Its place when the filter is a shard: boxed, so a plain filter pays one pointer.
    pub(super) shard: Option<Box<ShardPlace>>,
    /// Keyed hashing and the blocked layout, for every layer.
    pub(super) variant: Variant,
}

// `BF.INFO Size` counts this struct as the chain's bookkeeping (see `footprint`).
const _: () = assert!(std::mem::size_of::<Chain>() as u64 == footprint::CHAIN_BYTES);

impl Chain {
    /// Moves the chain's heap blocks (the layer list, each layer's bits) where `mover` says,
    /// for a server's active defragmentation. Contents stay as they are.
    pub fn relocate(&mut self, mover: &mut dyn Relocate) {
        relocate_vec(&mut self.layers, mover);
        for layer in &mut self.layers {
            layer.relocate(mover);
        }
    }

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
        Chain::create_variant(
            scheme,
            Variant::default(),
            error_rate,
            capacity,
            expansion,
            limit,
        )
    }

    /// [`Chain::create`] keyed and/or blocked as `variant` says; only Guava's scheme (our own
    /// format) records either.
    pub fn create_variant(
        scheme: Scheme,
        variant: Variant,
        error_rate: f64,
        capacity: u64,
        expansion: u32,
        limit: u64,
    ) -> Result<Chain> {
        if !variant.is_plain() && scheme != Scheme::Guava {
            return Err(Error::VariantUnsupported);
        }
        let first_error = if expansion == 0 {
            error_rate
        } else {
            error_rate * TIGHTENING
        };
        let mut chain = Chain {
            scheme,
            error_rate,
            expansion,
            growth: scheme.recorded_growth(expansion),
            layers: Vec::new(),
            shard: None,
            variant,
        };
        chain.push_layer(capacity, first_error, limit)?;
        Ok(chain)
    }

    /// Records `growth` as a non-scaling RedisBloom filter's idle growth factor: RedisBloom
    /// keeps the expansion in effect at creation (the option, or its default; 0 after
    /// `EXPANSION 0`) in the filter's bytes although it never grows. Scaling filters and
    /// Guava's format keep their expansion.
    pub fn with_idle_growth(mut self, growth: u32) -> Chain {
        if self.scheme == Scheme::RedisBloom && self.expansion == 0 {
            self.growth = growth;
        }
        self
    }

    /// Makes the filter a shard at `place` (its scheme must be Guava's: only our own format
    /// records a place).
    pub fn with_shard(mut self, place: ShardPlace) -> Result<Chain> {
        if self.scheme != Scheme::Guava {
            return Err(Error::ShardUnsupported(
                "a shard is a filter in rsbloom's own format",
            ));
        }
        self.shard = Some(Box::new(place));
        Ok(self)
    }

    /// Rebuilds a filter from validated parameters with all bits clear; the caller fills
    /// the bits in (RDB load, LOADCHUNK).
    pub fn from_meta(meta: &ChainMeta, limit: u64) -> Result<Chain> {
        meta.validate(limit)?;
        let layers = meta
            .layers
            .iter()
            .map(|l| {
                let words = Layer::new(l.capacity, l.error, l.k, l.bit_size / 64)?;
                Ok(words
                    .with_count(l.count)
                    .with_bpe(l.bpe)
                    .with_blocked(meta.variant.blocked))
            })
            .collect::<Result<_>>()?;
        Ok(Chain {
            scheme: meta.scheme,
            error_rate: meta.error_rate,
            expansion: meta.expansion,
            growth: meta.growth,
            layers,
            shard: meta.shard.clone(),
            variant: meta.variant,
        })
    }

    /// A filter from validated parameters and layers that already hold their bits (formats
    /// that interleave parameters and bit arrays).
    pub fn from_layers(meta: &ChainMeta, layers: Vec<Layer>) -> Result<Chain> {
        if layers.len() != meta.layers.len() || !meta.variant.is_plain() {
            return Err(Error::Internal);
        }
        Ok(Chain {
            scheme: meta.scheme,
            error_rate: meta.error_rate,
            expansion: meta.expansion,
            growth: meta.growth,
            layers,
            shard: meta.shard.clone(),
            variant: meta.variant,
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
            shard: self.shard.clone(),
            variant: self.variant,
        }
    }

    fn push_layer(&mut self, capacity: u64, error: f64, limit: u64) -> Result<()> {
        let LayerShape { k, words, bpe } = match self.variant.blocked {
            false => self.scheme.layer_shape(capacity, error, self.is_scaling()),
            true => {
                let s = match self.is_scaling() {
                    true => blocked::Sizing::blocked_scaling(capacity, error),
                    false => blocked::Sizing::blocked(capacity, error),
                };
                LayerShape {
                    k: s.k,
                    words: s.words,
                    bpe: 0.0,
                }
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
        let layer = Layer::new(capacity, error, k, words)?.with_bpe(bpe);
        self.layers.push(layer.with_blocked(self.variant.blocked));
        Ok(())
    }

    /// Adds an item: `Ok(true)` if it was new, `Ok(false)` if it was (probably) present.
    /// A full last layer grows the chain, or fails with `Full` when it does not scale.
    pub fn add(&mut self, item: &[u8], limit: impl GrowthLimit) -> Result<bool> {
        self.add_hash(self.hash(item), limit)
    }

    /// The item's hash under this filter's scheme, or its secret when keyed (for the
    /// `_hash` and batch methods).
    #[inline]
    pub fn hash(&self, item: &[u8]) -> ItemHash {
        match self.variant.secret {
            Some(secret) => secret.hash(item),
            None => self.scheme.hash(item),
        }
    }

    /// The hashes of many items, computed before any layer is touched.
    pub fn hash_all<'a>(&self, items: impl IntoIterator<Item = &'a [u8]>) -> Vec<ItemHash> {
        match self.variant.secret {
            Some(secret) => items.into_iter().map(|item| secret.hash(item)).collect(),
            None => items
                .into_iter()
                .map(|item| self.scheme.hash(item))
                .collect(),
        }
    }

    /// [`Chain::add`] for an already hashed item.
    pub fn add_hash(&mut self, hash: ItemHash, limit: impl GrowthLimit) -> Result<bool> {
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
        if self.growth == 0 {
            return Err(Error::ProblemInserting);
        }
        let capacity = last.capacity().saturating_mul(self.expansion as u64);
        let error = last.error() * TIGHTENING;
        self.push_layer(capacity, error, limit.limit())?;
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

    /// Keyed hashing and the blocked layout.
    pub fn variant(&self) -> Variant {
        self.variant
    }
    pub fn is_keyed(&self) -> bool {
        self.variant.secret.is_some()
    }
    pub fn is_blocked(&self) -> bool {
        self.variant.blocked
    }

    /// The filter's place when it is a shard.
    #[inline]
    pub fn shard(&self) -> Option<&ShardPlace> {
        self.shard.as_deref()
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
    /// BF.INFO's expansion rate of a scaling filter: the growth its format records (the
    /// expansion, but 0 for a RedisBloom filter that cannot grow, see [`Chain::add`]).
    pub fn expansion_rate(&self) -> u32 {
        match self.scheme {
            Scheme::RedisBloom => self.growth,
            Scheme::Guava => self.expansion,
        }
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn scaling_layers_are_sized_under_their_part_and_nonscaling_as_guava() {
        use crate::bloom::guava::Sizing;
        let mut c = Chain::new(0.01, 100, 2, NO_LIMIT).unwrap();
        for i in 0..1000u32 {
            c.add(&i.to_le_bytes(), NO_LIMIT).unwrap();
        }
        for (i, l) in c.layers().iter().enumerate() {
            let s = Sizing::scaling(100 << i, 0.01 * 0.5f64.powi(i as i32 + 1));
            assert_eq!((l.k(), l.bit_size()), (s.k, s.words * 64), "layer {i}");
        }
        let ns = Chain::new(0.01, 100, 0, NO_LIMIT).unwrap();
        let g = Sizing::guava(100, 0.01);
        assert_eq!(
            (ns.layers()[0].k(), ns.layers()[0].bit_size()),
            (g.k, g.words * 64)
        );
    }

    #[test]
    fn an_older_filter_keeps_its_layers_and_grows_by_the_new_sizing() {
        use crate::bloom::guava::Sizing;
        // A filter persisted when layers were sized to exactly their part.
        let old = Sizing::guava(10, 0.005);
        let mut meta = Chain::new(0.01, 10, 2, NO_LIMIT).unwrap().meta();
        meta.layers[0].k = old.k;
        meta.layers[0].bit_size = old.words * 64;
        let mut c = Chain::from_meta(&meta, NO_LIMIT).unwrap();
        for i in 0..25u32 {
            c.add(&i.to_le_bytes(), NO_LIMIT).unwrap();
        }
        assert_eq!(c.layers().len(), 2);
        assert_eq!(c.layers()[0].bit_size(), old.words * 64);
        let new = Sizing::scaling(20, 0.0025);
        assert_eq!(c.layers()[1].bit_size(), new.words * 64);
        assert!(new.words > Sizing::guava(20, 0.0025).words);
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
}
