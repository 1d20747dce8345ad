//! Property tests: random increments never give an estimate below the true count (unless
//! saturated), merges equal the weighted sums, and random or mutated RDB values never make
//! the decoder panic (via the [test kit](crate::testkit::cms)).

use std::collections::HashMap;

use super::codec;
use super::{CountMinSketch, Source};
use crate::fields::Reader;
use crate::testkit::cms::{self as harness, LIMIT};
use crate::testkit::{self, replay_regressions, survive, Mutation, Rng};

const NO_LIMIT: u64 = u64::MAX;

fn random_sketch(rng: &mut Rng) -> CountMinSketch {
    let width = 1 + rng.below(200);
    let depth = 1 + rng.below(8);
    let mut s = CountMinSketch::new(width, depth, NO_LIMIT).unwrap();
    for _ in 0..rng.below(300) {
        let item = rng.below(100).to_le_bytes();
        let _ = s.incr_by(&item, rng.below(1000));
    }
    s
}

#[test]
fn estimates_never_fall_below_true_counts() {
    let mut rng = Rng::new(0xC0A5_0001);
    for _ in 0..300 {
        let width = 1 + rng.below(64);
        let depth = 1 + rng.below(6);
        let mut s = CountMinSketch::new(width, depth, NO_LIMIT).unwrap();
        let mut truth: HashMap<Vec<u8>, u64> = HashMap::new();
        let big = rng.below(4) == 0;
        for _ in 0..rng.below(500) {
            let len = rng.index(6);
            let item = rng.bytes(len);
            let incr = if big {
                rng.below(1 << 31)
            } else {
                rng.below(50)
            };
            let t = truth.entry(item.clone()).or_default();
            *t += incr;
            match s.incr_by(&item, incr) {
                Ok(est) => assert!(est >= *t, "estimate {est} below {t}"),
                Err(_) => assert_eq!(s.query(&item), u32::MAX as u64),
            }
        }
        for (item, &t) in &truth {
            let est = s.query(item);
            assert!(est >= t.min(u32::MAX as u64), "query {est} below {t}");
        }
        assert_eq!(s.count(), truth.values().sum::<u64>());
    }
}

#[test]
fn merges_equal_weighted_sums() {
    let mut rng = Rng::new(0xC0A5_0002);
    for _ in 0..300 {
        let a = random_sketch(&mut rng);
        let (w, d) = (a.width(), a.depth());
        let mut others = Vec::new();
        for _ in 0..1 + rng.index(3) {
            let mut o = CountMinSketch::new(w, d, NO_LIMIT).unwrap();
            for _ in 0..rng.below(200) {
                let _ = o.incr_by(&rng.below(50).to_le_bytes(), rng.below(1000));
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
        for i in 0..a.counters().len() {
            let mut sum = a.counters()[i] as i128 * self_weight as i128;
            for (o, w) in &others {
                sum += o.counters()[i] as i128 * *w as i128;
            }
            fits &= (0..=u32::MAX as i128).contains(&sum);
            expect.push(sum as u32);
        }
        let total: i128 = a.count() as i128 * self_weight as i128
            + others
                .iter()
                .map(|(o, w)| o.count() as i128 * *w as i128)
                .sum::<i128>();
        fits &= total >= 0;
        if fits {
            result.unwrap();
            assert_eq!(dest.counters(), &expect[..]);
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
    let mut accepted = 0;
    let how = Mutation {
        keep: 0,
        words: BOUNDARY,
        word_span: 32,
    };
    for _ in 0..20_000 {
        let sketch = random_sketch(&mut Rng::new(rng.next_u64()));
        let input = testkit::mutate(&mut rng, &harness::encode_value(&sketch), how);
        survive(&input, harness::value);
        accepted += codec::load(&mut Reader(&input), codec::ENCODING_VERSION, LIMIT).is_ok() as u32;
    }
    // Flipped counter bytes stay valid, so some mutants must be accepted.
    assert!(accepted > 1000, "only {accepted} mutants accepted");
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
