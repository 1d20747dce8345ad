//! Unit and property tests of the sketch and its codec.

use super::codec::{load, save, ENCODING_VERSION};
use super::sketch::{Params, TopK};
use crate::fields::{Reader, Writer};
use crate::testkit::{mutate, survive, Mutation, Rng};

const LIMIT: u64 = 1 << 24;

fn params(k: u32, width: u32, depth: u32, decay: f64) -> Params {
    Params {
        k,
        width,
        depth,
        decay,
    }
}

fn encode(t: &TopK) -> Vec<u8> {
    let mut w = Writer::default();
    save(t, &mut w);
    w.0
}

fn decode(bytes: &[u8]) -> crate::error::Result<TopK> {
    load(&mut Reader(bytes), ENCODING_VERSION, LIMIT)
}

/// A sketch fed a skewed stream (item `i` about `n / (i + 1)` times), with odd items.
fn fed(seed: u64, p: Params, adds: usize) -> TopK {
    let mut t = TopK::new(p, LIMIT).unwrap();
    let mut rng = Rng::new(seed);
    for _ in 0..adds {
        let r = rng.below(1000) + 1;
        let i = 1000 / r;
        let item = match i % 17 {
            3 => format!("n\0{i}").into_bytes(),
            5 => Vec::new(),
            _ => format!("t:{i}").into_bytes(),
        };
        let inc = if rng.below(5) == 0 {
            rng.below(20) as u32
        } else {
            1
        };
        t.add(&item, inc);
    }
    t
}

#[test]
fn reserve_limits() {
    assert!(TopK::new(params(0, 1, 1, 0.5), LIMIT).is_err());
    assert!(TopK::new(params(1, 0, 1, 0.5), LIMIT).is_err());
    assert!(TopK::new(params(1, 1, 0, 0.5), LIMIT).is_err());
    for d in [0.0, -0.5, 1.000001, f64::NAN, f64::INFINITY] {
        assert!(TopK::new(params(1, 1, 1, d), LIMIT).is_err(), "{d}");
    }
    assert!(matches!(
        TopK::new(params(u32::MAX, u32::MAX, u32::MAX, 0.9), LIMIT),
        Err(crate::error::Error::TooLarge { .. })
    ));
    assert!(TopK::new(params(1, 1, 1, 1e-320), LIMIT).is_ok());
}

#[test]
fn round_trip_keeps_everything() {
    for seed in 1..20 {
        let t = fed(seed, params(5, 16, 3, 0.9), 500);
        let bytes = encode(&t);
        let back = decode(&bytes).unwrap();
        assert_eq!(back, t);
        assert_eq!(encode(&back), bytes);
    }
}

#[test]
fn decay_is_deterministic_and_bounded() {
    let p = params(5, 8, 7, 0.9);
    let a = fed(7, p, 3000);
    let b = fed(7, p, 3000);
    assert_eq!(encode(&a), encode(&b));
    assert!(a.rolls() > 0);
    // Counts never exceed the true counts (distinct fingerprints here).
    let mut t = TopK::new(p, LIMIT).unwrap();
    let mut truth = std::collections::HashMap::new();
    let mut rng = Rng::new(3);
    for _ in 0..5000 {
        let i = 200 / (rng.below(200) + 1);
        let item = format!("t:{i}");
        t.add(item.as_bytes(), 1);
        *truth.entry(item).or_insert(0u32) += 1;
    }
    for (item, &n) in &truth {
        assert!(t.count(item.as_bytes()) <= n, "{item}");
    }
    // The heaviest items are found.
    let listed: Vec<_> = t.list().iter().map(|(i, _)| i.to_vec()).collect();
    for heavy in ["t:1", "t:2", "t:3"] {
        assert!(
            listed.contains(&heavy.as_bytes().to_vec()),
            "{heavy} in {listed:?}"
        );
    }
}

#[test]
fn a_stale_bucket_decays_for_a_newcomer() {
    // One bucket: `a` holds it with 5; `b` keeps coming and must take it eventually
    // (each roll is a fresh draw, not one outcome per count).
    let mut t = TopK::new(params(1, 1, 1, 0.9), LIMIT).unwrap();
    t.add(b"a", 5);
    let mut took = false;
    for _ in 0..200 {
        t.add(b"b", 1);
        if t.query(b"b") {
            took = true;
            break;
        }
    }
    assert!(took);
}

#[test]
fn items_stay_whole() {
    let mut t = TopK::new(params(3, 64, 3, 0.9), LIMIT).unwrap();
    t.add(b"a\0b", 2);
    t.add(b"", 1);
    t.add(b"", 1);
    let back = decode(&encode(&t)).unwrap();
    assert!(back.query(b"a\0b"));
    assert!(back.query(b""));
    assert_eq!(back.count(b""), 2);
    let listed: Vec<_> = back.list().iter().map(|(i, c)| (i.to_vec(), *c)).collect();
    assert_eq!(listed, vec![(b"a\0b".to_vec(), 2), (b"".to_vec(), 2)]);
}

#[test]
fn mutated_values_never_panic() {
    let base = encode(&fed(11, params(4, 8, 2, 0.8), 300));
    let mut rng = Rng::new(0x70b);
    let words = [
        0u64,
        1,
        u32::MAX as u64,
        1 << 32,
        u64::MAX,
        0x7ff8_0000_0000_0000,
    ];
    let how = Mutation {
        keep: 0,
        words: &words,
        word_span: 40,
    };
    let mut accepted = 0;
    for _ in 0..20_000 {
        let input = mutate(&mut rng, &base, how);
        survive(&input, |bytes| {
            if let Ok(mut t) = decode(bytes) {
                t.add(b"x", 3);
                t.list();
                t.count(b"x");
            }
        });
        accepted += decode(&input).is_ok() as u32;
    }
    assert!(accepted > 0);
}

#[test]
fn mutated_values_through_the_fuzz_harness() {
    let base = encode(&fed(5, params(3, 4, 2, 0.9), 200));
    let mut rng = Rng::new(0xf022);
    for _ in 0..5000 {
        let input = mutate(&mut rng, &base, Mutation::after(0));
        survive(&input, crate::testkit::topk::value);
    }
    survive(&base, crate::testkit::topk::value);
    let seen = crate::testkit::replay_regressions(&[("topk_value", crate::testkit::topk::value)]);
    assert!(seen < 1_000_000);
}
