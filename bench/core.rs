//! Criterion benchmarks of the core: hashing, add and contains one at a time and in batches
//! of 100 (prefetching on and off), on a cache-resident filter (~1 MB) and a memory-sized
//! one (~1 GiB, half its bits set, like a filter at its designed load); the counting filter's
//! adds, lookups and deletes; the Count-Min Sketch's queries and increments; and, beside the
//! 1 GiB filter, a blocked layout (all of an item's bits in one 64-byte line) that no filter
//! uses yet: what one cache line per operation would give.

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rsbloom_core::bloom::keyed::Secret;
use rsbloom_core::bloom::{guava, Chain, ChainMeta, ItemHash, LayerMeta, Scheme};
use rsbloom_core::cms::CountMinSketch;
use rsbloom_core::counting::CountingFilter;
use rsbloom_core::memory::prefetch::prefetch_address;
use rsbloom_core::testkit::Rng;

const NO_LIMIT: u64 = u64::MAX;
const BATCH: usize = 100;

/// Random 16-byte items and their hashes, reproducibly.
trait Items {
    fn item(&mut self) -> [u8; 16];
    fn hashes(&mut self, n: usize) -> Vec<ItemHash>;
}

impl Items for Rng {
    fn item(&mut self) -> [u8; 16] {
        let mut item = [0u8; 16];
        item[..8].copy_from_slice(&self.next_u64().to_le_bytes());
        item[8..].copy_from_slice(&self.next_u64().to_le_bytes());
        item
    }
    fn hashes(&mut self, n: usize) -> Vec<ItemHash> {
        (0..n).map(|_| guava::hash(&self.item())).collect()
    }
}

/// A one-layer filter of `bytes` (k = 7, as for 1 %) with random words, so half of its bits
/// are set as at its designed load. Its capacity is unbounded so adds never fill it up.
fn filter_of(bytes: u64) -> Chain {
    let layer = LayerMeta {
        capacity: u64::MAX,
        count: 0,
        k: 7,
        error: 0.01,
        bit_size: bytes * 8,
        bpe: 0.0,
    };
    let meta = ChainMeta {
        scheme: Scheme::Guava,
        error_rate: 0.01,
        expansion: 0,
        growth: 0,
        layers: vec![layer],
        shard: None,
        variant: Default::default(),
    };
    let mut chain = Chain::from_meta(&meta, NO_LIMIT).expect("bench filter");
    let mut rng = Rng(0x0BAD_5EED);
    let chunk: Vec<u8> = (0..1 << 20).map(|_| rng.next_u64() as u8).collect();
    let mut offset = 0;
    while offset < chain.data_len() {
        let len = (chain.data_len() - offset).min(chunk.len() as u64);
        chain
            .write_chunk(offset, &chunk[..len as usize])
            .expect("in range");
        offset += len;
    }
    chain
}

fn hashing(c: &mut Criterion) {
    let mut g = c.benchmark_group("hash");
    let item = *b"user:1234567890:";
    g.throughput(Throughput::Elements(1));
    g.bench_function("murmur3_x64_128/16B", |b| {
        b.iter(|| guava::hash(black_box(&item)))
    });
    g.bench_function("murmur64a_pair/16B", |b| {
        b.iter(|| Scheme::RedisBloom.hash(black_box(&item)))
    });
    // KEYED filters' pair (SipHash-1-3 and fmix64) beside Guava's, for short items.
    let secret = Secret::from_words([0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210]);
    let long: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37)).collect();
    for len in [8usize, 16, 32, 64] {
        let item = &long[..len];
        if len != 16 {
            g.bench_function(format!("murmur3_x64_128/{len}B"), |b| {
                b.iter(|| guava::hash(black_box(item)))
            });
        }
        g.bench_function(format!("keyed_sip13/{len}B"), |b| {
            b.iter(|| secret.hash(black_box(item)))
        });
    }
    g.finish();
}

fn filter_ops(c: &mut Criterion, label: &str, bytes: u64) {
    let chain = filter_of(bytes);
    let mut g = c.benchmark_group(format!("filter/{label}"));
    let mut rng = Rng(42);

    g.throughput(Throughput::Elements(1));
    g.bench_function("contains/single", |b| {
        b.iter_batched(
            || rng.hashes(1)[0],
            |h| chain.contains_hash(h),
            BatchSize::SmallInput,
        )
    });
    let mut adder = chain.clone();
    g.bench_function("add/single", |b| {
        b.iter_batched(
            || rng.hashes(1)[0],
            |h| adder.add_hash(h, NO_LIMIT),
            BatchSize::SmallInput,
        )
    });
    drop(adder);

    g.throughput(Throughput::Elements(BATCH as u64));
    for prefetch in [false, true] {
        let tag = if prefetch { "prefetch" } else { "no-prefetch" };
        g.bench_function(format!("contains/batch{BATCH}/{tag}"), |b| {
            b.iter_batched(
                || rng.hashes(BATCH),
                |hs| chain.contains_batch(&hs, prefetch),
                BatchSize::SmallInput,
            )
        });
        g.bench_function(format!("contains/batch{BATCH}/{tag}/one-by-one"), |b| {
            b.iter_batched(
                || rng.hashes(BATCH),
                |hs| {
                    hs.iter()
                        .map(|&h| chain.contains_hash(h))
                        .collect::<Vec<_>>()
                },
                BatchSize::SmallInput,
            )
        });
    }
    let mut adder = chain.clone();
    for prefetch in [false, true] {
        let tag = if prefetch { "prefetch" } else { "no-prefetch" };
        g.bench_function(format!("add/batch{BATCH}/{tag}"), |b| {
            b.iter_batched(
                || rng.hashes(BATCH),
                |hs| {
                    adder.add_batch(&hs, NO_LIMIT, prefetch, |r| {
                        let _ = black_box(r);
                    })
                },
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

fn small(c: &mut Criterion) {
    filter_ops(c, "1MB", 1 << 20);
}

fn large(c: &mut Criterion) {
    filter_ops(c, "1GiB", 1 << 30);
}

/// A blocked Bloom filter (Putze, Sanders, Singler 2007), here only to be measured: an item
/// picks one 512-bit block (a cache line) and sets k = 7 bits inside it, so an add or a
/// lookup costs one memory miss, not k. The price is its rate: at 9.59 bits per item (1 %
/// for the plain layout) a blocked filter answers 1.16 % wrongly (0.16 % at 0.1 %, 14.38
/// bits: 1.60x), and needs 3.3 % (7.9 %) more bits to get back to the plain rate.
struct Blocked {
    words: Vec<u64>,
    blocks: u64,
}

impl Blocked {
    const K: u64 = 7;

    /// `bytes` of random words: half the bits set, as at the designed load.
    fn new(bytes: u64) -> Blocked {
        let mut rng = Rng(0x0BAD_5EED);
        let words: Vec<u64> = (0..bytes / 8).map(|_| rng.next_u64()).collect();
        Blocked {
            blocks: bytes / 64,
            words,
        }
    }

    fn line(&self, h: ItemHash) -> usize {
        (((h.h1 as u128 * self.blocks as u128) >> 64) as usize) * 8
    }

    /// The item's k bit positions in its block (double hashing on the second hash word).
    fn bits(h: ItemHash) -> impl Iterator<Item = u64> {
        let step = (h.h2 >> 32) | 1;
        (0..Self::K).map(move |i| h.h2.wrapping_add(i.wrapping_mul(step)) & 511)
    }

    fn add(&mut self, h: ItemHash) -> bool {
        let line = self.line(h);
        let block = &mut self.words[line..line + 8];
        let mut new = false;
        for b in Self::bits(h) {
            let (word, mask) = (&mut block[(b >> 6) as usize], 1u64 << (b & 63));
            new |= *word & mask == 0;
            *word |= mask;
        }
        new
    }

    fn contains(&self, h: ItemHash) -> bool {
        let line = self.line(h);
        let block = &self.words[line..line + 8];
        Self::bits(h).all(|b| block[(b >> 6) as usize] & (1u64 << (b & 63)) != 0)
    }

    fn prefetch(&self, h: ItemHash) {
        prefetch_address(self.words[self.line(h)..].as_ptr().cast());
    }
}

/// The 1 GiB filter's single and batched adds and lookups against the blocked layout's, in
/// the same process, on the same random items.
fn blocked(c: &mut Criterion) {
    const AHEAD: usize = 8;
    let mut filter = Blocked::new(1 << 30);
    let mut g = c.benchmark_group("blocked/1GiB");
    let mut rng = Rng(43);
    g.throughput(Throughput::Elements(1));
    g.bench_function("contains/single", |b| {
        b.iter_batched(
            || rng.hashes(1)[0],
            |h| filter.contains(h),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("add/single", |b| {
        b.iter_batched(
            || rng.hashes(1)[0],
            |h| filter.add(h),
            BatchSize::SmallInput,
        )
    });
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function(format!("contains/batch{BATCH}/prefetch"), |b| {
        b.iter_batched(
            || rng.hashes(BATCH),
            |hs| {
                hs.iter().take(AHEAD).for_each(|&h| filter.prefetch(h));
                (0..hs.len())
                    .map(|i| {
                        if let Some(&h) = hs.get(i + AHEAD) {
                            filter.prefetch(h);
                        }
                        filter.contains(hs[i])
                    })
                    .collect::<Vec<_>>()
            },
            BatchSize::SmallInput,
        )
    });
    g.bench_function(format!("add/batch{BATCH}/prefetch"), |b| {
        b.iter_batched(
            || rng.hashes(BATCH),
            |hs| {
                hs.iter().take(AHEAD).for_each(|&h| filter.prefetch(h));
                for i in 0..hs.len() {
                    if let Some(&h) = hs.get(i + AHEAD) {
                        filter.prefetch(h);
                    }
                    black_box(filter.add(hs[i]));
                }
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

/// The counting filter of 1,000,000 items at 0.01 (about 5 MB of 4-bit counters) at half
/// its capacity: add, lookup and delete one at a time and in prefetching batches of 100.
fn counting(c: &mut Criterion) {
    let mut filter = CountingFilter::new(0.01, 1_000_000, 4, NO_LIMIT).expect("bench filter");
    let mut rng = Rng(7);
    for h in rng.hashes(500_000) {
        filter.add_hash(h).expect("room");
    }
    let mut g = c.benchmark_group("counting/1M@0.01");
    g.throughput(Throughput::Elements(1));
    g.bench_function("contains/single", |b| {
        b.iter_batched(
            || rng.hashes(1)[0],
            |h| filter.contains_hash(h),
            BatchSize::SmallInput,
        )
    });
    // An add then a delete of the same item, so the filter stays at half its capacity.
    let mut work = filter.clone();
    g.bench_function("add+delete/single", |b| {
        b.iter_batched(
            || rng.hashes(1)[0],
            |h| {
                let _ = work.add_hash(h);
                work.delete_hash(h)
            },
            BatchSize::SmallInput,
        )
    });
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function(format!("contains/batch{BATCH}/prefetch"), |b| {
        b.iter_batched(
            || rng.hashes(BATCH),
            |hs| black_box(filter.contains_batch(&hs, true)),
            BatchSize::SmallInput,
        )
    });
    g.bench_function(format!("add+delete/batch{BATCH}/prefetch"), |b| {
        b.iter_batched(
            || rng.hashes(BATCH),
            |hs| {
                work.add_batch(&hs, true, |r| {
                    black_box(r.ok());
                });
                black_box(work.delete_batch(&hs, true))
            },
            BatchSize::SmallInput,
        )
    });
}

/// The Count-Min Sketch: queries and increments of 100 random items, one at a time and as
/// a batch (every item's counters found first; with and without prefetching), on the sketch
/// of `bench/e2e.py` (0.1 % at 99 %: 2000 x 7, 56 KB, in cache) and on one of 64 MiB.
fn sketches(c: &mut Criterion) {
    let mut rng = Rng(11);
    for (label, width, depth) in [("2000x7", 2000u64, 7u64), ("64MiB", 2_396_745, 7)] {
        let mut cms = CountMinSketch::new(width, depth, NO_LIMIT).expect("bench sketch");
        // Every page written once, so lookups do not read the kernel's shared zero page.
        for _ in 0..width * depth / 64 {
            let _ = cms.incr_by(&rng.item(), 1);
        }
        let mut g = c.benchmark_group(format!("cms/{label}"));
        g.throughput(Throughput::Elements(BATCH as u64));
        let mut batch = || (0..BATCH).map(|_| rng.item()).collect::<Vec<_>>();
        g.bench_function(format!("query/batch{BATCH}/one-by-one"), |b| {
            b.iter_batched(
                &mut batch,
                |items| items.iter().map(|i| cms.query(i)).sum::<u64>(),
                BatchSize::SmallInput,
            )
        });
        for (tag, prefetch) in [("prefetch", true), ("no-prefetch", false)] {
            g.bench_function(format!("query/batch{BATCH}/{tag}"), |b| {
                b.iter_batched(
                    &mut batch,
                    |items| black_box(cms.query_batch(items.iter().map(|i| &i[..]), prefetch)),
                    BatchSize::SmallInput,
                )
            });
        }
        g.bench_function(format!("incrby/batch{BATCH}/one-by-one"), |b| {
            b.iter_batched(
                &mut batch,
                |items| {
                    for i in &items {
                        black_box(cms.incr_by(i, 1).ok());
                    }
                },
                BatchSize::SmallInput,
            )
        });
        for (tag, prefetch) in [("prefetch", true), ("no-prefetch", false)] {
            g.bench_function(format!("incrby/batch{BATCH}/{tag}"), |b| {
                b.iter_batched(
                    &mut batch,
                    |items| {
                        let pairs: Vec<(&[u8], i64)> = items.iter().map(|i| (&i[..], 1)).collect();
                        cms.incr_by_batch(&pairs, prefetch, |r| {
                            black_box(r.ok());
                        })
                    },
                    BatchSize::SmallInput,
                )
            });
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3))
        .sample_size(30);
    targets = hashing, small, large, blocked, counting, sketches
}
criterion_main!(benches);
