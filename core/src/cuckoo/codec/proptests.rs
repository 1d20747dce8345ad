//! Property tests: tens of thousands of random and mutated inputs through the cuckoo
//! decoders, via the [test kit](crate::testkit::cuckoo). A panic anywhere is a failure;
//! rejections are fine, and some mutants must be accepted.

use super::rdb;
use crate::cuckoo::{CuckooFilter, Limits};
use crate::fields::Reader;
use crate::testkit::cuckoo::{self as harness, LIMIT};
use crate::testkit::{self, replay_regressions, survive, Mutation, Rng};

/// Values on the edges of every field's range.
const BOUNDARY: &[u64] = &[
    0,
    1,
    2,
    3,
    255,
    256,
    32768,
    65535,
    65536,
    65537,
    1 << 20,
    (1 << 56) - 1,
    1 << 56,
    u32::MAX as u64,
    i64::MAX as u64,
    u64::MAX,
];

/// A small filter with a random shape and fill.
fn random_filter(rng: &mut Rng) -> CuckooFilter {
    let bucket_size = 1 + rng.index(6) as u8;
    let capacity = 2 * bucket_size as u64 + rng.below(300);
    let expansion = [0, 1, 2, 4][rng.index(4)];
    let iterations = rng.index(30) as u16;
    let mut f = CuckooFilter::new(capacity, bucket_size, iterations, expansion, LIMIT)
        .expect("small filter");
    let limits = Limits::new(LIMIT);
    for i in 0..rng.index(900) as u64 {
        let item = (i ^ rng.next_u64()).to_le_bytes();
        if rng.index(8) == 0 {
            f.delete(&item);
        } else {
            let _ = f.add(&item, &limits);
        }
    }
    f
}

/// The test kit's mutator, planting edge values in the parameters (the first 96 bytes).
fn mutate(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let how = Mutation {
        keep: 0,
        words: BOUNDARY,
        word_span: 96,
    };
    testkit::mutate(rng, base, how)
}

#[test]
fn mutated_rdb_values_never_panic() {
    let mut rng = Rng::new(0xC0C0_0001);
    let mut accepted = 0;
    for _ in 0..30_000 {
        let filter = random_filter(&mut Rng::new(rng.next_u64()));
        let input = mutate(&mut rng, &harness::encode_value(&filter));
        survive(&input, harness::value);
        accepted += rdb::load(&mut Reader(&input), rdb::ENCODING_VERSION, LIMIT).is_ok() as u32;
    }
    // Flipped slot bytes stay valid, so some mutants must be accepted.
    assert!(accepted > 1000, "only {accepted} mutants accepted");
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng::new(0xC0C0_0002);
    for _ in 0..20_000 {
        let len = rng.index(200);
        let input = rng.bytes(len);
        survive(&input, harness::value);
        survive(&input, harness::loadchunk_session);
    }
}

#[test]
fn mutated_loadchunk_sessions_never_panic() {
    let mut rng = Rng::new(0xC0C0_0003);
    for _ in 0..20_000 {
        let filter = random_filter(&mut Rng::new(rng.next_u64()));
        let session = harness::encode_session(&filter, |_| 1 + rng.below(300));
        let input = mutate(&mut rng, &session);
        survive(&input, harness::loadchunk_session);
    }
}

/// Inputs the fuzzers once flagged (kept in fuzz/regressions/cuckoo_*) stay fine.
#[test]
fn fuzz_regressions_pass() {
    let seen = replay_regressions(&[
        ("cuckoo_value", harness::value),
        ("cuckoo_loadchunk_session", harness::loadchunk_session),
    ]);
    assert!(
        seen > 0,
        "no regression inputs found under fuzz/regressions"
    );
}
