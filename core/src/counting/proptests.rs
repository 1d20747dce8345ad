//! Mutated RDB values and LOADCHUNK headers never panic; what is accepted is consistent.

use super::codec;
use super::filter::CountingFilter;
use crate::fields::Writer;
use crate::testkit::{self, counting, Mutation, Rng};

fn base() -> Vec<u8> {
    let mut f = CountingFilter::new(0.05, 60, 4, counting::LIMIT).unwrap();
    for i in 0..80u32 {
        let _ = f.add(&(i % 30).to_le_bytes());
    }
    let mut out = Writer::default();
    codec::save(&f, &mut out);
    out.0
}

const EDGES: [u64; 8] = [
    0,
    1,
    4,
    8,
    u64::MAX,
    1 << 30,
    1 << 63,
    0x3F84_7AE1_47AE_147B,
];

#[test]
fn mutated_values_never_panic() {
    let base = base();
    let mut rng = Rng::new(0xCBF);
    let how = Mutation {
        keep: 0,
        words: &EDGES,
        word_span: 64,
    };
    for _ in 0..20_000 {
        let input = testkit::mutate(&mut rng, &base, how);
        testkit::survive(&input, counting::value);
    }
}

#[test]
fn mutated_headers_never_panic() {
    let f = CountingFilter::new(0.01, 1000, 8, counting::LIMIT).unwrap();
    let header = codec::encode_header(&f.meta());
    let mut rng = Rng::new(0xCBF2);
    let how = Mutation {
        keep: 0,
        words: &EDGES,
        word_span: 64,
    };
    for _ in 0..20_000 {
        let input = testkit::mutate(&mut rng, &header, how);
        testkit::survive(&input, counting::header);
    }
}

#[test]
fn fuzz_regressions_replay() {
    // Inputs the fuzz targets once flagged, if any were kept.
    testkit::replay_regressions(&[
        ("counting_value", counting::value),
        ("counting_header", counting::header),
    ]);
}
