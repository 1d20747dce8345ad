//! Unit tests and property tests of the t-digest and its codec.

use super::codec;
use super::*;
use crate::fields::Reader;
use crate::testkit::tdigest::{encode_value, value, LIMIT};
use crate::testkit::{mutate, survive, Mutation, Rng};

fn digest(compression: i64, values: &[f64]) -> TDigest {
    let mut d = TDigest::new(compression, LIMIT).unwrap();
    d.add_values(values).unwrap();
    d
}

fn load(bytes: &[u8]) -> Result<TDigest> {
    let mut r = Reader(bytes);
    let d = codec::load(&mut r, 0, LIMIT)?;
    if !r.rest().is_empty() {
        return Err(crate::error::bad_data("trailing bytes"));
    }
    Ok(d)
}

#[test]
fn capacity_and_limits() {
    assert_eq!(capacity(100, LIMIT).unwrap(), 610);
    // RedisBloom 8.8's TDIGEST.INFO at compression 100 (8.2.3 and 2.8.2: 9768).
    assert_eq!(memory_usage(610), 9840);
    assert_eq!(capacity(1, LIMIT).unwrap(), 16);
    assert_eq!(capacity(i64::MAX, u64::MAX), Err(Error::TdAllocFailed));
    assert_eq!(capacity(1_000_000_000, u64::MAX), Err(Error::TdAllocFailed));
    assert!(matches!(
        capacity(100_000_000, LIMIT),
        Err(Error::TooLarge { .. })
    ));
}

#[test]
fn empty_and_single() {
    let mut d = digest(50, &[]);
    assert!(d.min().is_nan() && d.quantile(0.5).is_nan() && d.cdf(1.0).is_nan());
    assert_eq!(d.rank(1.0, false), -2);
    let mut d = digest(50, &[42.5]);
    assert_eq!(d.min(), 42.5);
    assert!(d.quantiles(&[0.5])[0].is_nan());
    assert_eq!(d.rank(42.5, false), 0);
    assert_eq!(d.rank(42.5, true), 0);
    assert_eq!(d.rank(40.0, false), -1);
    assert_eq!(d.rank(50.0, false), 1);
    assert_eq!(d.by_rank(0, false), 42.5);
    assert_eq!(d.by_rank(1, false), f64::INFINITY);
}

#[test]
fn single_value_survives_the_codec_and_reads_redisbloom_form() {
    let d = digest(50, &[42.5]);
    let bytes = encode_value(&d);
    // Ours: one merged node of weight 1 that RedisBloom reads with its value.
    assert_eq!(&bytes[32..40], &1u64.to_le_bytes());
    assert_eq!(&bytes[40..48], &0u64.to_le_bytes());
    let back = load(&bytes).unwrap();
    assert_eq!(back, d);
    // RedisBloom's lossy form: unmerged_nodes 1, no node; min = max = the value.
    let mut rb = bytes[..56].to_vec();
    rb[32..40].copy_from_slice(&0u64.to_le_bytes());
    rb[40..48].copy_from_slice(&1u64.to_le_bytes());
    rb.extend_from_slice(&0f64.to_le_bytes());
    rb.extend_from_slice(&1f64.to_le_bytes());
    let back = load(&rb).unwrap();
    assert_eq!(back.single_value(), Some(42.5));
    assert_eq!(back, d);
}

#[test]
fn round_trips() {
    let mut rng = Rng::new(3);
    for c in [1, 10, 100, 500] {
        for n in [0usize, 1, 2, 5, 100, 3000] {
            let values: Vec<f64> = (0..n).map(|_| rng.below(100000) as f64 / 7.0).collect();
            let mut d = digest(c, &values);
            d.compress();
            let bytes = encode_value(&d);
            let back = load(&bytes).unwrap();
            assert_eq!(back, d, "compression {c}, {n} values");
            value(&bytes);
        }
    }
}

#[test]
fn hostile_fields_are_refused() {
    let base = encode_value(&{
        let mut d = digest(1, &(0..40).map(f64::from).collect::<Vec<_>>());
        d.compress();
        d
    });
    assert!(load(&base).is_ok());
    let set = |at: usize, v: u64| {
        let mut b = base.clone();
        b[at..at + 8].copy_from_slice(&v.to_le_bytes());
        load(&b)
    };
    for bad in [-1.0f64, 0.0, f64::NAN, f64::INFINITY, 1.5, 1e15] {
        assert!(set(0, bad.to_bits()).is_err(), "compression {bad}");
    }
    assert!(set(24, 20_000).is_err(), "capacity over the nodes");
    assert!(set(40, 1_000_000).is_err(), "a million unmerged nodes");
    assert!(set(32, 17).is_err(), "merged nodes over the capacity");
    for cut in 0..base.len() {
        assert!(load(&base[..cut]).is_err());
    }
}

#[test]
fn mutated_values_never_panic() {
    let mut rng = Rng::new(23);
    let bases: Vec<Vec<u8>> = [
        digest(1, &(0..40).map(f64::from).collect::<Vec<_>>()),
        digest(20, &[1.0]),
        digest(100, &[]),
        digest(5, &(0..200).map(|i| (i % 7) as f64).collect::<Vec<_>>()),
    ]
    .iter()
    .map(encode_value)
    .collect();
    let words: Vec<u64> = [
        0.0f64,
        1.0,
        -1.0,
        f64::NAN,
        f64::INFINITY,
        1e15,
        16.0,
        f64::MAX,
    ]
    .iter()
    .map(|v| v.to_bits())
    .chain([0, 1, 16, 20_000, 1_000_000, u64::MAX])
    .collect();
    let mut accepted = 0;
    for i in 0..20_000 {
        let base = &bases[i % bases.len()];
        let input = mutate(
            &mut rng,
            base,
            Mutation {
                keep: 0,
                words: &words,
                word_span: base.len(),
            },
        );
        if load(&input).is_ok() {
            accepted += 1;
        }
        survive(&input, value);
    }
    assert!(accepted > 100, "only {accepted} mutants accepted");
}

#[test]
fn merge_overflow_is_an_error() {
    let mut d = digest(10, &[1.0, 2.0, 3.0]);
    for _ in 0..70 {
        let mut a = d.clone();
        let mut b = d.clone();
        let mut to = TDigest::new(10, LIMIT).unwrap();
        let r = to.merge_from(&mut a).and_then(|_| to.merge_from(&mut b));
        if r.is_err() {
            assert_eq!(r, Err(Error::TdOverflow));
            return;
        }
        d = to;
    }
    panic!("weights never overflowed");
}

#[test]
fn fuzz_regressions_replay() {
    let seen = crate::testkit::replay_regressions(&[("tdigest_value", value)]);
    assert!(seen < 100_000);
}

#[test]
fn weights_near_the_limit_end_in_an_overflow_error() {
    // t-digest-c's total weight is a double: near 2^63 a compression rounds the added
    // observations away, and values above the huge centroid never merge (q(1 - q) is 0
    // there), so the buffer fills up and adding fails, as in RedisBloom.
    let mut d = TDigest::new(10, LIMIT).unwrap();
    d.add(5.0, i64::MAX - 1023).unwrap();
    d.compress();
    let mut result = Ok(());
    for i in 0..10_000 {
        result = d.add(10.0 + i as f64, 1);
        if result.is_err() {
            break;
        }
    }
    assert_eq!(result, Err(Error::TdOverflow));
    assert!(d.quantile(0.5).is_finite());
}
