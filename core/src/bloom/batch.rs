//! Many items in one call: adds and lookups that keep several memory misses in flight.
//! Small layers stay in cache and are walked one item after another; large ones prefetch
//! (adds) or use the [`lanes`](super::lanes) (lookups). The answers are the same either way.

use super::lanes;
use super::probe::ItemHash;
use super::{Chain, Scheme};
use crate::error::Result;
use crate::memory::limit::GrowthLimit;
use crate::memory::prefetch::with_ahead;

/// Batches prefetch probes only in layers at least this big; smaller ones stay in cache.
pub const PREFETCH_MIN_BYTES: u64 = 2 << 20;
/// How many items ahead of the one being checked a batch prefetches: enough to keep the
/// core's outstanding misses busy, few enough not to overflow them. On the 1 GiB filter
/// (AMD EPYC VM) distances 2, 4, 6, 8 and 12 gave 110, 85, 100, 90 and 93 ns per add: flat
/// from 4 on.
pub const PREFETCH_DISTANCE: usize = 8;

/// The hashes of many items under `scheme`, computed before any layer is touched (the
/// scheme is read once, not once per item).
pub fn hash_all<'a>(scheme: Scheme, items: impl IntoIterator<Item = &'a [u8]>) -> Vec<ItemHash> {
    items.into_iter().map(|item| scheme.hash(item)).collect()
}

impl Chain {
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
        limit: impl GrowthLimit,
        prefetch: bool,
        mut each: impl FnMut(Result<bool>),
    ) {
        // One item (BF.ADD) has nothing to overlap with.
        if let [hash] = hashes {
            return each(self.add_hash(*hash, limit));
        }
        let (first, walk) = with_ahead(hashes, PREFETCH_DISTANCE, prefetch);
        first.iter().for_each(|&h| self.prefetch(h));
        for (hash, ahead) in walk {
            if let Some(h) = ahead {
                self.prefetch(h);
            }
            let result = self.add_hash(hash, || limit.limit());
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
            if prefetch && layer.bytes() >= PREFETCH_MIN_BYTES && layer.is_blocked() {
                // One line per item: prefetching whole items ahead fetches only lines read.
                let (first, walk) = with_ahead(&pending, PREFETCH_DISTANCE, true);
                first.iter().for_each(|&j| layer.prefetch(hashes[j]));
                for (j, ahead) in walk {
                    if let Some(a) = ahead {
                        layer.prefetch(hashes[a]);
                    }
                    found[j] = layer.contains(hashes[j]);
                }
            } else if prefetch && layer.bytes() >= PREFETCH_MIN_BYTES {
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
}

#[cfg(test)]
mod tests {
    use crate::bloom::{Chain, ItemHash, Scheme};
    use crate::error::{Error, Result};

    const NO_LIMIT: u64 = u64::MAX;

    /// Items with duplicates inside the batch, against a chain that grows mid-batch and one
    /// that fills up: the batch paths must answer exactly like one item at a time.
    #[test]
    fn batches_answer_like_single_items() {
        for scheme in [Scheme::Guava, Scheme::RedisBloom] {
            batches_answer_like_single_items_in(scheme);
        }
    }

    /// The same for keyed and blocked filters (the blocked layout prefetches its blocks).
    #[test]
    fn keyed_and_blocked_batches_answer_like_single_items() {
        use crate::bloom::keyed::Secret;
        use crate::bloom::Variant;
        for (keyed, blocked) in [(true, false), (false, true), (true, true)] {
            let variant = Variant {
                secret: keyed.then(|| Secret::from_words([0x005E_C7E7, 2])),
                blocked,
            };
            batches_answer_like_single_items_in_variant(Scheme::Guava, variant);
        }
    }

    fn batches_answer_like_single_items_in(scheme: Scheme) {
        batches_answer_like_single_items_in_variant(scheme, Default::default())
    }

    fn batches_answer_like_single_items_in_variant(scheme: Scheme, variant: crate::bloom::Variant) {
        let hasher = Chain::create_variant(scheme, variant, 0.01, 1, 0, NO_LIMIT).unwrap();
        let items: Vec<ItemHash> = hasher.hash_all(
            (0..3000u32)
                .map(|i| (i % 2200).to_le_bytes())
                .collect::<Vec<_>>()
                .iter()
                .map(|b| &b[..]),
        );
        for (capacity, expansion) in [(1_000_000, 2), (300, 2), (1000, 0), (40_000, 1)] {
            // Layers over 2 MB take the prefetching path too.
            let fresh =
                Chain::create_variant(scheme, variant, 0.0001, capacity, expansion, NO_LIMIT)
                    .unwrap();
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
                    .map(|i| hasher.hash(&i.to_le_bytes()))
                    .collect();
                let answers = batch.contains_batch(&probe, prefetch);
                let one_by_one: Vec<bool> = probe.iter().map(|&h| batch.contains_hash(h)).collect();
                assert_eq!(answers, one_by_one);
            }
        }
    }
}
