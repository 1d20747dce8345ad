//! Random shapes and add sequences survive the RDB value and the SCANDUMP stream bit for
//! bit; mutated and truncated RDB values and headers never panic, and what is accepted is
//! consistent and usable (the harness in [`super::harness`]).

use super::codec;
use super::harness::{self, encode_value, rebuild, LIMIT};
use super::shape::Window;
use super::WindowFilter;
use crate::bloom::keyed::Secret;
use crate::fields::Reader;
use crate::testkit::{self, Mutation, Rng};

/// A filter of a random shape fed a random sequence: times that mostly advance, sometimes
/// jump by spans or go back, items repeated now and then.
fn random_filter(rng: &mut Rng) -> WindowFilter {
    let span_scale = [10, 1_000, 100_000][rng.index(3)];
    let window = if rng.below(2) == 0 {
        Window::Count
    } else {
        Window::Time {
            span_ms: 1 + rng.below(span_scale),
        }
    };
    let rate = 10f64.powf(-0.3 - rng.below(5_000) as f64 / 1_000.0);
    let scale = [10, 300, 3_000][rng.index(3)];
    let capacity = 1 + rng.below(scale);
    let mut f = WindowFilter::new(window, rate, capacity, LIMIT).expect("a small filter");
    // A third of them keyed.
    if rng.below(3) == 0 {
        f = f.with_secret(Secret::from_words([rng.next_u64(), rng.next_u64()]));
    }
    let mut now = rng.below(1 << 41);
    for _ in 0..rng.below(4 * capacity) {
        now = match rng.below(20) {
            0 => now.saturating_sub(rng.below(1_000)),
            1 => now + rng.below(1 << 20),
            _ => now + rng.below(3),
        };
        let item = rng.below(capacity * 2).to_le_bytes();
        if rng.below(8) == 0 {
            let hashes: Vec<_> = (0..rng.below(40))
                .map(|i| f.hash(&(i * 7).to_le_bytes()))
                .collect();
            let (_, refused) = f.add_batch(&hashes, now, rng.below(2) == 0, LIMIT);
            assert!(refused.is_none(), "a small window refused an add");
        } else {
            f.add(&item, now, LIMIT)
                .expect("a small window refused an add");
        }
    }
    f
}

#[test]
fn random_filters_survive_the_rdb_value_and_the_scandump_stream() {
    let mut rng = Rng::new(0xAB9F);
    for case in 0..300 {
        let f = random_filter(&mut rng);
        let value = encode_value(&f);
        let back = codec::load(&mut Reader(&value), codec::ENCODING_VERSION, LIMIT)
            .unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        assert_eq!(back, f, "case {case}: RDB value");
        assert_eq!(encode_value(&back), value, "case {case}: bytes");
        let chunk = 1 + rng.below(f.data_len() + 10);
        assert_eq!(rebuild(&f, chunk), f, "case {case}: SCANDUMP in {chunk}");
        // Equal filters answer alike; spot-check at a few moments anyway.
        let clock = f.meta().clock_ms;
        for now in [clock, clock + f.meta().span_ms().unwrap_or(0)] {
            for i in 0..50u64 {
                let item = i.to_le_bytes();
                assert_eq!(back.contains(&item, now), f.contains(&item, now));
            }
        }
        harness::value(&value);
        harness::header(&codec::encode_header(&f));
    }
}

/// Values that plant edge values into the parameter block's fields.
const EDGES: [u64; 10] = [
    0,
    1,
    2,
    63,
    64,
    u64::MAX,
    1 << 40,
    1 << 63,
    u32::MAX as u64 + 1,
    0x3F84_7AE1_47AE_147B,
];

fn bases() -> Vec<Vec<u8>> {
    let mut rng = Rng::new(0x11);
    let mut out = Vec::new();
    for (window, rate, capacity) in [
        (Window::Count, 0.05, 40),
        (Window::Time { span_ms: 1_000 }, 0.01, 30),
        (Window::Time { span_ms: 7 }, 0.2, 5),
    ] {
        let mut f = WindowFilter::new(window, rate, capacity, LIMIT).unwrap();
        let mut now = 1_000_000;
        for i in 0..capacity * 3 {
            now += rng.below(40);
            f.add(&i.to_le_bytes(), now, LIMIT).unwrap();
        }
        out.push(encode_value(&f));
    }
    // A burst of six capacities at one moment: a window with burst layers.
    let mut f = WindowFilter::new(Window::Time { span_ms: 10_000 }, 0.05, 20, LIMIT).unwrap();
    for i in 0..120u64 {
        f.add(&i.to_le_bytes(), 1_000_000, LIMIT).unwrap();
    }
    assert!(f.layers().len() >= 2);
    out.push(encode_value(&f));
    // The same burst into a keyed window: the secret after the reserved ring's flags.
    let secret = Secret::from_words([0x0123_4567_89ab_cdef, u64::MAX]);
    let mut f = WindowFilter::new(Window::Time { span_ms: 10_000 }, 0.05, 20, LIMIT)
        .unwrap()
        .with_secret(secret);
    for i in 0..120u64 {
        f.add(&i.to_le_bytes(), 1_000_000, LIMIT).unwrap();
    }
    assert!(f.layers().len() >= 2);
    out.push(encode_value(&f));
    out
}

#[test]
fn mutated_values_never_panic() {
    let mut rng = Rng::new(0xA9);
    for base in bases() {
        // The blocks and the generations come first (the layers' after the reserved
        // ring's): plant edges there.
        let how = Mutation {
            keep: 0,
            words: &EDGES,
            word_span: base.len().min(4 * (16 * 8 + 64 * 24)),
        };
        for _ in 0..10_000 {
            let input = testkit::mutate(&mut rng, &base, how);
            testkit::survive(&input, harness::value);
        }
    }
}

#[test]
fn mutated_headers_never_panic() {
    let mut rng = Rng::new(0xA9B);
    for base in bases() {
        let f = codec::load(&mut Reader(&base), codec::ENCODING_VERSION, LIMIT).unwrap();
        let header = codec::encode_header(&f);
        let how = Mutation {
            keep: 0,
            words: &EDGES,
            word_span: header.len(),
        };
        for _ in 0..10_000 {
            let input = testkit::mutate(&mut rng, &header, how);
            testkit::survive(&input, harness::header);
        }
    }
}

#[test]
fn truncated_values_and_headers_are_refused() {
    for base in bases() {
        for cut in 0..base.len() {
            let mut reader = Reader(&base[..cut]);
            assert!(
                codec::load(&mut reader, codec::ENCODING_VERSION, LIMIT).is_err(),
                "a value cut at {cut} of {} loaded",
                base.len()
            );
        }
        let f = codec::load(&mut Reader(&base), codec::ENCODING_VERSION, LIMIT).unwrap();
        let header = codec::encode_header(&f);
        for cut in 0..header.len() {
            assert!(codec::decode_header(&header[..cut], LIMIT).is_err());
        }
        let mut longer = header.clone();
        longer.push(0);
        assert!(codec::decode_header(&longer, LIMIT).is_err());
        // Other encoding versions, and a limit below the filter's size, are refused.
        for version in [0, 3, -1] {
            assert!(codec::load(&mut Reader(&base), version, LIMIT).is_err());
        }
        let version = codec::ENCODING_VERSION;
        assert!(codec::load(&mut Reader(&base), version, f.memory_bytes() - 1).is_err());
    }
}

#[test]
fn fuzz_regressions_replay() {
    // Inputs the fuzz target once flagged, if any were kept.
    testkit::replay_regressions(&[("window_value", harness::value)]);
}

/// A value whose `k` and `l` wrap round to a small ring (`k + l` = 10 in 32 bits): refused.
/// Accepted, its lookups indexed past the generations (a panic) and its adds wrote four
/// billion slices.
#[test]
fn shape_fields_that_wrap_are_refused() {
    use crate::fields::{FieldSink, Writer};
    for (window, span, k, l, slices) in [
        (0, 0, u32::MAX as u64 - 9, 20, 10),
        (1, 1_000, u32::MAX as u64 - 39, 20, 4),
        (0, 0, 5, u32::MAX as u64 - 1, 3),
    ] {
        let mut out = Writer::default();
        for v in [0, window, span, 100] {
            out.put_u64(v);
        }
        out.put_f64(0.01);
        // k, l, slices, generation, blocks, head, turns, clock, added, overflows
        for v in [k, l, slices, 10, 1, 0, 0, 0, 0, 0] {
            out.put_u64(v);
        }
        for _ in 0..slices * 3 {
            out.put_u64(0);
        }
        out.put_bytes(&vec![0u8; (slices as usize + 1) * 8]);
        let loaded = codec::load(&mut Reader(&out.0), codec::ENCODING_VERSION_1, LIMIT);
        assert!(loaded.is_err(), "k {k} l {l} slices {slices} loaded");
        harness::value(&out.0);
    }
}
