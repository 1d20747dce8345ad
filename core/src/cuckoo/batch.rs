//! Many items in one call (CF.INSERT, CF.INSERTNX, CF.MEXISTS): the items are hashed first,
//! and while one is served the buckets of the items a few places ahead are requested, so
//! their cache misses overlap. Answers and bytes are exactly those of one item at a time.

use super::{CfHash, CuckooFilter, Limits};
use crate::error::Result;
use crate::memory::limit::GrowthLimit;
use crate::memory::prefetch::with_ahead;

/// Sub-filters smaller than this stay in cache and are not prefetched.
const PREFETCH_MIN_BYTES: usize = 1 << 20;
/// How many items ahead the buckets are requested (as for Bloom batches: enough to keep
/// the core's outstanding misses busy).
const PREFETCH_DISTANCE: usize = 8;

impl CuckooFilter {
    /// Requests both of the item's buckets in every large sub-filter.
    fn prefetch(&self, h: CfHash) {
        for f in &self.filters {
            if f.slots().len() >= PREFETCH_MIN_BYTES {
                f.prefetch(h);
            }
        }
    }

    /// Inserts each item in order (`nx`: only if not (probably) present), handing each
    /// result to `each`: `Ok(true)` added, `Ok(false)` already there (NX only), or the
    /// error of [`CuckooFilter::add`]. A failed item does not stop the batch (CF.INSERT
    /// answers every item). The caller checks [`CuckooFilter::check_expansions`] once
    /// before, as RedisBloom does per command; growth stays bounded within the batch.
    pub fn add_batch<B: GrowthLimit>(
        &mut self,
        hashes: &[CfHash],
        nx: bool,
        limits: &Limits<B>,
        prefetch: bool,
        mut each: impl FnMut(Result<bool>),
    ) {
        let (first, walk) = with_ahead(hashes, PREFETCH_DISTANCE, prefetch);
        first.iter().for_each(|&w| self.prefetch(w));
        for (h, ahead) in walk {
            if let Some(w) = ahead {
                self.prefetch(w);
            }
            each(if nx {
                self.add_nx_hash(h, limits)
            } else {
                self.add_hash(h, limits).map(|()| true)
            });
        }
    }

    /// [`CuckooFilter::contains_hash`] for each item.
    pub fn exists_batch(&self, hashes: &[CfHash], prefetch: bool) -> Vec<bool> {
        let (first, walk) = with_ahead(hashes, PREFETCH_DISTANCE, prefetch);
        first.iter().for_each(|&w| self.prefetch(w));
        walk.map(|(h, ahead)| {
            if let Some(w) = ahead {
                self.prefetch(w);
            }
            self.contains_hash(h)
        })
        .collect()
    }
}

/// The hashes of many items, computed before any bucket is touched.
pub fn hash_all<'a>(items: impl IntoIterator<Item = &'a [u8]>) -> Vec<CfHash> {
    items.into_iter().map(CfHash::of).collect()
}

#[cfg(test)]
mod tests {
    use super::hash_all;
    use crate::cuckoo::{CfHash, CuckooFilter, Limits};
    use crate::error::Result;

    const NO_LIMIT: u64 = u64::MAX;

    /// Duplicates inside the batch, growth mid-batch, a filter that fills up, and one with
    /// sub-filters large enough to prefetch: batches answer exactly like single items.
    #[test]
    fn batches_answer_like_single_items() {
        let keys: Vec<Vec<u8>> = (0..6000u32)
            .map(|i| (i % 4500).to_le_bytes().to_vec())
            .collect();
        let hashes = hash_all(keys.iter().map(Vec::as_slice));
        let limits = Limits::new(NO_LIMIT);
        for (capacity, bucket_size, expansion) in [
            (1000, 2, 1),
            (300, 4, 2),
            (2000, 2, 0),
            (1 << 21, 2, 1),
            (64, 1, 4),
        ] {
            for nx in [false, true] {
                let fresh =
                    CuckooFilter::new(capacity, bucket_size, 20, expansion, NO_LIMIT).unwrap();
                let mut single = fresh.clone();
                let expected: Vec<Result<bool>> = hashes
                    .iter()
                    .map(|&h| {
                        if nx {
                            single.add_nx_hash(h, &limits)
                        } else {
                            single.add_hash(h, &limits).map(|()| true)
                        }
                    })
                    .collect();
                for prefetch in [false, true] {
                    let mut batch = fresh.clone();
                    let mut got = Vec::new();
                    for part in hashes.chunks(100) {
                        batch.add_batch(part, nx, &limits, prefetch, |r| got.push(r));
                    }
                    assert_eq!(got, expected, "capacity {capacity} nx {nx}");
                    assert_eq!(batch, single);
                    let probe: Vec<CfHash> =
                        (0..9000u32).map(|i| CfHash::of(&i.to_be_bytes())).collect();
                    let one_by_one: Vec<bool> =
                        probe.iter().map(|&h| batch.contains_hash(h)).collect();
                    assert_eq!(batch.exists_batch(&probe, prefetch), one_by_one);
                }
            }
        }
    }
}
