//! Property tests, at every cell size: random increments and decrements keep every estimate
//! at or above the true count and the total exact, refused ones change nothing; merges equal
//! the weighted sums; random or mutated RDB values (both encodings) never make the decoder
//! panic (via the [test kit](crate::testkit::cms)).

use std::collections::HashMap;

use super::codec;
use super::{CellSize, CountMinSketch, Source};
use crate::fields::Reader;
use crate::testkit::cms::{self as harness, LIMIT};
use crate::testkit::{self, replay_regressions, survive, Mutation, Rng};

const NO_LIMIT: u64 = u64::MAX;

fn random_cell(rng: &mut Rng) -> CellSize {
    CellSize::ALL[rng.index(4)]
}

fn random_sketch(rng: &mut Rng) -> CountMinSketch {
    let width = 1 + rng.below(200);
    let depth = 1 + rng.below(8);
    let cell = random_cell(rng);
    let mut s = CountMinSketch::with_cell_size(width, depth, cell, NO_LIMIT).unwrap();
    for _ in 0..rng.below(300) {
        let item = rng.below(100).to_le_bytes();
        let _ = s.incr_by(&item, rng.below(1000) as i64);
    }
    s
}

/// The item's counter in each row, found apart from the sketch's own code.
fn item_counters(s: &CountMinSketch, item: &[u8]) -> Vec<u64> {
    (0..s.depth())
        .map(|row| {
            let column = crate::hash::murmur2::murmur2(item, row as u32) as u64 % s.width();
            s.cells().get((row * s.width() + column) as usize)
        })
        .collect()
}

#[test]
fn estimates_never_fall_below_true_counts() {
    let mut rng = Rng::new(0xC0A5_0001);
    for _ in 0..300 {
        let width = 1 + rng.below(64);
        let depth = 1 + rng.below(6);
        let cell = random_cell(&mut rng);
        let max = cell.max();
        let mut s = CountMinSketch::with_cell_size(width, depth, cell, NO_LIMIT).unwrap();
        let mut truth: HashMap<Vec<u8>, u64> = HashMap::new();
        let big = rng.below(4) == 0;
        for _ in 0..rng.below(500) {
            let len = rng.index(6);
            let item = rng.bytes(len);
            let amount = if big {
                rng.below(max.min(1 << 40) / 2 + 1)
            } else {
                rng.below(50)
            };
            let t = truth.get(&item).copied().unwrap_or(0);
            // Now and then a decrement of part of what was added, which always fits.
            let value = match rng.below(3) {
                0 if t > 0 => -(rng.below(t + 1) as i64),
                _ => amount as i64,
            };
            let before = s.clone();
            match s.incr_by(&item, value) {
                Ok(est) => {
                    let t = truth.entry(item.clone()).or_default();
                    *t = t.checked_add_signed(value).unwrap();
                    assert!(est >= *t, "estimate {est} below {t}");
                    assert_eq!(est, s.query(&item));
                }
                Err(e) => {
                    assert!(value > 0, "taking back {value} of {t} refused");
                    assert_eq!(e, crate::error::Error::CmsIncrByOverflow);
                    assert_eq!(s, before, "a refused increment changed the sketch");
                    // Refused only where a counter (or the total) lacks room.
                    let fullest = item_counters(&s, &item).into_iter().max().unwrap();
                    assert!(
                        value as u64 > max - fullest || s.count() + value as u64 > i64::MAX as u64,
                        "refused {value} with room"
                    );
                }
            }
        }
        for (item, &t) in &truth {
            let est = s.query(item);
            assert!(est >= t, "query {est} below {t}");
        }
        assert_eq!(s.count(), truth.values().sum::<u64>());
        // Everything taken back leaves an empty sketch.
        for (item, &t) in &truth {
            s.incr_by(item, -(t as i64)).unwrap();
        }
        assert!(s.cells().values().iter().all(|&c| c == 0));
        assert_eq!(s.count(), 0);
    }
}

/// Any change, however large or negative: refused, it changes nothing; made, its inverse is
/// made too and gives the sketch back exactly. A decrement of more than an item's true
/// count goes through where every counter of the item holds it (collisions), as in 8.12.
#[test]
fn changes_are_all_or_nothing_and_undo_exactly() {
    let mut rng = Rng::new(0xC0A5_0005);
    let (mut made, mut refused) = (0, 0);
    for _ in 0..300 {
        let mut s = random_sketch(&mut rng);
        let max = s.cell_size().max();
        for _ in 0..200 {
            let item = rng.below(120).to_le_bytes();
            let magnitude = match rng.below(3) {
                0 => rng.below(20),
                1 => rng.below(max.min(1 << 40) + 2),
                _ => rng.next_u64() >> 1,
            };
            let value = if rng.below(2) == 0 {
                magnitude as i64
            } else {
                -(magnitude as i64)
            };
            let before = s.clone();
            let estimate = s.query(&item);
            match s.incr_by(&item, value) {
                Ok(est) => {
                    made += 1;
                    assert_eq!(est as i128, estimate as i128 + value as i128);
                    assert_eq!(s.count() as i128, before.count() as i128 + value as i128);
                    let mut undone = s.clone();
                    assert_eq!(undone.incr_by(&item, -value), Ok(estimate));
                    assert_eq!(undone, before, "{value} then {} differ", -value);
                }
                Err(_) => {
                    refused += 1;
                    assert_eq!(s, before, "a refused {value} changed the sketch");
                    let counters = item_counters(&s, &item);
                    let fits = if value >= 0 {
                        counters.iter().all(|&c| magnitude <= max - c)
                            && magnitude <= i64::MAX as u64 - s.count()
                    } else {
                        counters.iter().all(|&c| magnitude <= c) && magnitude <= s.count()
                    };
                    assert!(!fits, "{value} refused although it fits");
                }
            }
        }
    }
    assert!(
        made > 10_000 && refused > 10_000,
        "{made} made, {refused} refused"
    );
}

#[test]
fn merges_equal_weighted_sums() {
    let mut rng = Rng::new(0xC0A5_0002);
    for _ in 0..300 {
        let a = random_sketch(&mut rng);
        let (w, d) = (a.width(), a.depth());
        let mut others = Vec::new();
        for _ in 0..1 + rng.index(3) {
            let mut o = CountMinSketch::with_cell_size(w, d, a.cell_size(), NO_LIMIT).unwrap();
            for _ in 0..rng.below(200) {
                let _ = o.incr_by(&rng.below(50).to_le_bytes(), rng.below(1000) as i64);
            }
            others.push((o, rng.below(7) as i64 - 2));
        }
        let self_weight = rng.below(5) as i64 - 1;
        let mut dest = a.clone();
        let mut sources: Vec<Source> = others.iter().map(|(o, w)| Source::Other(o, *w)).collect();
        sources.push(Source::Destination(self_weight));
        let result = dest.merge(&sources);
        // The expected sums in 128 bits.
        let mut fits = true;
        let mut expect = Vec::new();
        for i in 0..a.cells().len() {
            let mut sum = a.cells().get(i) as i128 * self_weight as i128;
            for (o, w) in &others {
                sum += o.cells().get(i) as i128 * *w as i128;
            }
            fits &= (0..=a.cell_size().max() as i128).contains(&sum);
            expect.push(sum as u64);
        }
        let total: i128 = a.count() as i128 * self_weight as i128
            + others
                .iter()
                .map(|(o, w)| o.count() as i128 * *w as i128)
                .sum::<i128>();
        fits &= total >= 0;
        if fits {
            result.unwrap();
            assert_eq!(dest.cells().values(), expect);
            assert_eq!(dest.count() as i128, total);
        } else {
            assert!(result.is_err());
            assert_eq!(dest, a, "a refused merge changed the destination");
        }
    }
}

/// Values on the edges of every field's range.
const BOUNDARY: &[u64] = &[
    0,
    1,
    2,
    4,
    255,
    65536,
    1 << 20,
    1 << 31,
    1 << 32,
    1 << 62,
    u32::MAX as u64,
    i64::MAX as u64,
    u64::MAX,
];

#[test]
fn mutated_rdb_values_never_panic() {
    let mut rng = Rng::new(0xC0A5_0003);
    let mut accepted = [0u32; 2];
    let how = Mutation {
        keep: 1,
        words: BOUNDARY,
        word_span: 32,
    };
    for _ in 0..20_000 {
        let sketch = random_sketch(&mut Rng::new(rng.next_u64()));
        let version = rng.index(2) as i32;
        let input = testkit::mutate(&mut rng, &harness::encode_value(&sketch, version), how);
        survive(&input, harness::value);
        let loaded = codec::load(&mut Reader(&input[1..]), version, LIMIT).is_ok();
        accepted[version as usize] += loaded as u32;
    }
    // Flipped counter bytes stay valid, so some mutants must be accepted in each version.
    assert!(
        accepted.iter().all(|&n| n > 500),
        "only {accepted:?} mutants accepted"
    );
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng::new(0xC0A5_0004);
    for _ in 0..20_000 {
        let len = rng.index(100);
        survive(&rng.bytes(len), harness::value);
    }
}

/// Inputs the fuzzer once flagged (kept in fuzz/regressions/cms_value) stay fine.
#[test]
fn fuzz_regressions_pass() {
    replay_regressions(&[("cms_value", harness::value)]);
}

/// A batch (hashed first, prefetched or not, in chunks) answers and changes the sketch
/// exactly as the same items one at a time: random increments and decrements near the cell
/// limits (so some are refused mid-batch), depths across the eight-row groups and past the
/// 32 rows a single item keeps on the stack, and a sketch big enough to prefetch.
#[test]
fn batches_equal_items_one_at_a_time() {
    let mut rng = Rng::new(0xC0A5_BA7C);
    for round in 0..120 {
        let (width, depth) = match round % 6 {
            0 => (1 + rng.below(50), 1 + rng.below(40)),
            1 => (300_000, 1 + rng.below(4)), // over the prefetch threshold
            _ => (1 + rng.below(3000), 1 + rng.below(17)),
        };
        let cell = random_cell(&mut rng);
        let mut one = CountMinSketch::with_cell_size(width, depth, cell, NO_LIMIT).unwrap();
        let mut many = one.clone();
        let max = cell.max().min(1 << 40);
        for _ in 0..rng.below(8) {
            let items: Vec<Vec<u8>> = (0..1 + rng.below(300))
                .map(|_| {
                    let len = rng.index(20);
                    rng.bytes(len)
                })
                .collect();
            let pairs: Vec<(&[u8], i64)> = items
                .iter()
                .map(|item| {
                    let v = rng.below(max / 3 + 1) as i64;
                    (&item[..], if rng.below(4) == 0 { -v } else { v })
                })
                .collect();
            let want: Vec<_> = pairs.iter().map(|&(i, v)| one.incr_by(i, v)).collect();
            let mut got = Vec::new();
            many.incr_by_batch(&pairs, rng.below(2) == 0, |r| got.push(r));
            assert_eq!(got, want, "round {round}");
            assert_eq!(many, one, "round {round}");
            let queried: Vec<&[u8]> = items.iter().map(|i| &i[..]).collect();
            let singles: Vec<u64> = queried.iter().map(|i| one.query(i)).collect();
            for prefetch in [false, true] {
                let batch = many.query_batch(queried.iter().copied(), prefetch);
                assert_eq!(batch, singles, "round {round}");
            }
        }
    }
}
