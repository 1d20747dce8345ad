//! Property tests: tens of thousands of random and mutated inputs through the decoders,
//! via the [test kit](crate::testkit::bloom). A panic anywhere is a failure; rejections are
//! fine.

use super::{load_value, save_value};
use crate::bloom::{Chain, Scheme};
use crate::fields::{Reader, Writer};
use crate::testkit::bloom::{self as harness, LIMIT};
use crate::testkit::{self, replay_regressions, survive, Mutation, Rng};

/// Values that sit on the edges of every field's range.
const BOUNDARY_U64: &[u64] = &[
    0,
    1,
    2,
    7,
    63,
    64,
    65,
    1100,
    1101,
    32768,
    32769,
    1 << 20,
    u32::MAX as u64,
    u32::MAX as u64 + 1,
    i64::MAX as u64,
    u64::MAX - 63,
    u64::MAX,
];
const BOUNDARY_F64: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -0.5,
    0.5,
    1e-300,
    5e-324,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MIN_POSITIVE,
    0.999_999_999,
];

/// A small filter of either scheme, with a random shape and fill.
fn random_chain(rng: &mut Rng) -> Chain {
    let scheme = [Scheme::Guava, Scheme::RedisBloom][rng.index(2)];
    let expansion = rng.index(4) as u32;
    let error = 1e-6 + (rng.index(1000) as f64) / 2001.0;
    let capacity = 1 + rng.index(200) as u64;
    let mut chain = Chain::create(scheme, error, capacity, expansion, LIMIT).expect("small filter");
    for i in 0..rng.index(600) {
        if chain
            .add(&(i as u64 ^ rng.next_u64()).to_le_bytes(), LIMIT)
            .is_err()
        {
            break;
        }
    }
    chain
}

/// The test kit's mutator, planting edge values in any aligned field.
fn mutate(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let words: Vec<u64> = BOUNDARY_U64
        .iter()
        .copied()
        .chain(BOUNDARY_F64.iter().map(|f| f.to_bits()))
        .collect();
    let how = Mutation {
        keep: 0,
        words: &words,
        word_span: usize::MAX,
    };
    testkit::mutate(rng, base, how)
}

#[test]
fn mutated_rdb_values_never_panic() {
    let mut rng = Rng(0x5EED_0001);
    let mut accepted = 0;
    for _ in 0..40_000 {
        let chain = random_chain(&mut Rng(rng.next_u64() | 1));
        let mut base = Writer::default();
        save_value(&chain, &mut base);
        let input = mutate(&mut rng, &base.0);
        let scheme = chain.scheme();
        survive(&input, |data| harness::value(scheme, data));
        let loaded = load_value(chain.scheme(), &mut Reader(&input), LIMIT).is_ok();
        accepted += loaded as u32;
    }
    // Flipped bit-array bytes stay valid, so some mutants must be accepted.
    assert!(accepted > 0);
}

#[test]
fn random_bytes_as_rdb_values_never_panic() {
    let mut rng = Rng(0x5EED_0002);
    for _ in 0..20_000 {
        let input: Vec<u8> = (0..rng.index(300)).map(|_| rng.next_u64() as u8).collect();
        survive(&input, harness::rdb_value);
        survive(&input, harness::redisbloom_value);
    }
}

#[test]
fn mutated_loadchunk_sessions_never_panic() {
    let mut rng = Rng(0x5EED_0003);
    for _ in 0..20_000 {
        let chain = random_chain(&mut Rng(rng.next_u64() | 1));
        let session = harness::encode_session(&chain, |_| 1 + rng.below(200));
        let input = mutate(&mut rng, &session);
        survive(&input, harness::loadchunk_session);
    }
}

/// Inputs the fuzzers once flagged (kept in fuzz/regressions/<target>/) stay fine.
#[test]
fn fuzz_regressions_pass() {
    let seen = replay_regressions(&[
        ("rdb_value", harness::rdb_value),
        ("redisbloom_value", harness::redisbloom_value),
        ("loadchunk_session", harness::loadchunk_session),
    ]);
    assert!(
        seen > 0,
        "no regression inputs found under fuzz/regressions"
    );
}
