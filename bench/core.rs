//! Criterion benchmarks of the core: hashing, add and contains one at a time and in batches
//! of 100 (prefetching on and off), on a cache-resident filter (~1 MB) and a memory-sized
//! one (~1 GiB, half its bits set, like a filter at its designed load); the counting filter's
//! adds, lookups and deletes; the Count-Min Sketch's queries and increments; and the 1 GiB
//! filter again in the blocked layout (`BLOCKED`: all of an item's bits in one 64-byte line);
//! and the keyed filters' hash (SipHash-1-3) beside Guava's murmur3 for short items.

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rsbloom_core::bloom::keyed::Secret;
use rsbloom_core::bloom::{guava, Chain, ChainMeta, ItemHash, LayerMeta, Scheme, Variant};
use rsbloom_core::cms::CountMinSketch;
use rsbloom_core::counting::CountingFilter;
use rsbloom_core::shard::ShardPlace;
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
/// are set as at its designed load. Its capacity is unbounded so adds never fill it up. A
/// label ending in `-blocked` (see `filter_ops`) makes it blocked.
fn filter_of(bytes: u64, blocked: bool) -> Chain {
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
        variant: Variant {
            secret: None,
            blocked,
        },
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
    let chain = filter_of(bytes, label.ends_with("-blocked"));
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

/// The same 1 GiB filter in the blocked layout (`BLOCKED`: all of an item's probes in one
/// 512-bit block), same k, same random items: one memory miss per add instead of k.
fn blocked(c: &mut Criterion) {
    filter_ops(c, "1GiB-blocked", 1 << 30);
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

/// A shard's routing check per item: by key slot (CRC16) and by keyed routing (HMAC-SHA256,
/// which the sha2 crate runs on SHA-NI where the CPU has it; valgrind hides it, so callgrind
/// counts the portable path).
fn routing(c: &mut Criterion) {
    let mut g = c.benchmark_group("shard-routing");
    let items: Vec<Vec<u8>> = (0..1000)
        .map(|i| format!("item:{i}").into_bytes())
        .collect();
    g.throughput(Throughput::Elements(items.len() as u64));
    let plain = ShardPlace::new(b"f", 0, 1).unwrap();
    let keyed = plain
        .clone()
        .with_secret_hex(b"00112233445566778899aabbccddeeff")
        .unwrap();
    for (tag, place) in [("slot", &plain), ("keyed", &keyed)] {
        g.bench_function(format!("check_item/{tag}"), |b| {
            b.iter(|| {
                for item in &items {
                    black_box(place.check_item(item).is_ok());
                }
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3))
        .sample_size(30);
    targets = hashing, small, large, blocked, counting, sketches, routing
}
criterion_main!(benches);
