//! The sketch's arithmetic at its edges and the codec's round trips and rejections.

use super::codec::{self, ENCODING_VERSION};
use super::sketch::{check_dims, memory_for, SATURATED, STRUCT_BYTES};
use super::{dims_from_prob, CountMinSketch, Source};
use crate::error::Error;
use crate::fields::{FieldSink, Reader, Writer};

const NO_LIMIT: u64 = u64::MAX;

fn load(bytes: &[u8], limit: u64) -> crate::error::Result<CountMinSketch> {
    codec::load(&mut Reader(bytes), ENCODING_VERSION, limit)
}

fn value(width: u64, depth: u64, count: u64, counters: &[u8]) -> Vec<u8> {
    let mut w = Writer::default();
    w.put_u64(width);
    w.put_u64(depth);
    w.put_u64(count);
    w.put_bytes(counters);
    w.0
}

#[test]
fn dimensions_from_probabilities_are_redisbloom_s() {
    // Pairs recorded from RedisBloom (tests/vectors/redisbloom-cms/README.md).
    let recorded = [
        (0.001, 0.01, 2000, 7),
        (0.1, 0.5, 20, 1),
        (0.5, 0.5, 4, 1),
        (0.2, 0.25, 10, 2),
        (0.3, 0.125, 7, 3),
        (0.07, 0.0625, 29, 4),
        (0.01, 0.1, 200, 4),
        (0.01, 0.001, 200, 10),
        (0.001, 0.0001, 2000, 14),
        (0.05, 0.03125, 40, 5),
        (0.9, 0.9, 3, 1),
        (0.99999, 0.99999, 3, 1),
        (0.015625, 0.015625, 128, 6),
        (0.4, 0.000001, 5, 20),
        (0.25, 0.2, 8, 3),
        (0.0003, 0.3, 6667, 2),
        (0.33, 0.0078125, 7, 7),
    ];
    for (e, p, w, d) in recorded {
        assert_eq!(dims_from_prob(e, p), Ok((w, d)), "{e} {p}");
    }
    for bad in [0.0, 1.0, -0.1, 1.5, f64::NAN, f64::INFINITY] {
        assert_eq!(
            dims_from_prob(bad, 0.5),
            Err(Error::CmsInvalidOverestimation)
        );
        assert_eq!(dims_from_prob(0.5, bad), Err(Error::CmsInvalidProb));
    }
    // Widths past 2^63 and a probability that is 0 in single precision.
    assert_eq!(dims_from_prob(1e-300, 0.5), Err(Error::CmsInvalidInit));
    assert_eq!(dims_from_prob(0.5, 1e-300), Err(Error::CmsInvalidInit));
    assert_eq!(dims_from_prob(1e-12, 0.5), Ok((2_000_000_000_000, 1)));
    // Measured on RedisBloom 8.2.3: a probability that is 1 in single precision (depth 0),
    // widths past 2^63, a denormal probability (log10f still finite).
    assert_eq!(
        dims_from_prob(0.5, 0.9999999999),
        Err(Error::CmsInvalidInit)
    );
    assert_eq!(dims_from_prob(1e-19, 0.5), Err(Error::CmsInvalidInit));
    assert_eq!(dims_from_prob(1e-310, 0.5), Err(Error::CmsInvalidInit));
    assert_eq!(dims_from_prob(0.5, 1e-40), Ok((4, 133)));
}

#[test]
fn dimensions_are_checked_before_allocating() {
    assert_eq!(check_dims(1, 1, NO_LIMIT), Ok(STRUCT_BYTES + 4));
    assert_eq!(check_dims(0, 1, NO_LIMIT), Err(Error::CmsInvalidInit));
    assert_eq!(check_dims(1 << 62, 4, NO_LIMIT), Err(Error::CmsInvalidInit));
    assert_eq!(
        check_dims(1 << 62, 1, NO_LIMIT),
        Err(Error::CmsInsufficientMemory)
    );
    let needed = memory_for(1 << 31, 4).unwrap();
    assert_eq!(
        check_dims(1 << 31, 4, 512 << 20),
        Err(Error::TooLarge {
            needed,
            limit: 512 << 20
        })
    );
    assert_eq!(check_dims(10, 10, 432), Ok(432));
    assert!(matches!(
        check_dims(10, 10, 431),
        Err(Error::TooLarge { .. })
    ));
    assert!(matches!(
        CountMinSketch::new(1 << 40, 1, 512 << 20),
        Err(Error::TooLarge { .. })
    ));
}

#[test]
fn counters_saturate_and_the_total_wraps() {
    let mut s = CountMinSketch::new(16, 2, NO_LIMIT).unwrap();
    assert_eq!(
        s.incr_by(b"a", u32::MAX as u64 - 1),
        Ok(u32::MAX as u64 - 1)
    );
    // The exact count 2^32 - 1 is reported as an overflow.
    assert_eq!(s.incr_by(b"a", 1), Err(Error::CmsIncrByOverflow));
    assert_eq!(s.query(b"a"), SATURATED as u64);
    assert_eq!(s.incr_by(b"a", 0), Err(Error::CmsIncrByOverflow));
    // An increment of 2^32 leaves the counter unchanged in 32 bits, then saturates it.
    let mut t = CountMinSketch::new(16, 2, NO_LIMIT).unwrap();
    t.incr_by(b"b", 5).unwrap();
    assert_eq!(t.incr_by(b"b", 1 << 32), Err(Error::CmsIncrByOverflow));
    t.incr_by(b"c", i64::MAX as u64).unwrap_err();
    t.incr_by(b"c", i64::MAX as u64).unwrap_err();
    assert_eq!(
        t.count(),
        5u64.wrapping_add(1 << 32).wrapping_add(2 * i64::MAX as u64)
    );
}

#[test]
fn merges_are_weighted_sums_checked_first() {
    let mut a = CountMinSketch::new(8, 3, NO_LIMIT).unwrap();
    let mut b = CountMinSketch::new(8, 3, NO_LIMIT).unwrap();
    a.incr_by(b"x", 3).unwrap();
    b.incr_by(b"x", 5).unwrap();
    b.incr_by(b"y", 1).unwrap();
    let mut d = CountMinSketch::new(8, 3, NO_LIMIT).unwrap();
    d.incr_by(b"old", 100).unwrap();
    d.merge(&[Source::Other(&a, 2), Source::Other(&b, 3)])
        .unwrap();
    assert_eq!(d.query(b"x"), 21);
    assert_eq!(d.query(b"old"), a.query(b"old") * 2 + b.query(b"old") * 3);
    assert_eq!(d.count(), 2 * 3 + 3 * 6);
    // The destination as a source, read before it is written.
    let before = d.clone();
    d.merge(&[Source::Destination(2), Source::Other(&a, -1)])
        .unwrap();
    assert_eq!(d.query(b"x"), 39);
    assert_eq!(d.count(), 2 * before.count() - 3);
    // Negative sums and overflows refuse and change nothing.
    let kept = d.clone();
    for sources in [
        vec![Source::Destination(-1)],
        vec![Source::Destination(1 << 32)],
        vec![Source::Destination(i64::MAX)],
        vec![Source::Destination(i64::MAX), Source::Destination(i64::MAX)],
    ] {
        assert_eq!(d.merge(&sources), Err(Error::CmsMergeOverflow));
        assert_eq!(d, kept);
    }
    // Weight 0 clears; a weight of i64::MIN on an empty sketch is fine.
    d.merge(&[Source::Destination(0)]).unwrap();
    assert!(d.counters().iter().all(|&c| c == 0) && d.count() == 0);
    d.merge(&[Source::Destination(i64::MIN)]).unwrap();
    // A total past 2^63 cannot be merged even with weight 1.
    let mut big = CountMinSketch::new(8, 3, NO_LIMIT).unwrap();
    big.incr_by(b"a", i64::MAX as u64).unwrap_err();
    big.incr_by(b"b", 1).unwrap();
    let mut e = CountMinSketch::new(8, 3, NO_LIMIT).unwrap();
    assert_eq!(
        e.merge(&[Source::Other(&big, 1)]),
        Err(Error::CmsMergeOverflow)
    );
}

#[test]
fn rdb_values_round_trip() {
    let mut s = CountMinSketch::new(100, 4, NO_LIMIT).unwrap();
    for i in 0..500u32 {
        let _ = s.incr_by(&i.to_le_bytes(), (i % 7) as u64);
    }
    let mut out = Writer::default();
    codec::save(&s, &mut out);
    let back = load(&out.0, NO_LIMIT).unwrap();
    assert_eq!(back, s);
    assert!(load(&out.0, s.memory_bytes()).is_ok());
    assert!(matches!(
        load(&out.0, s.memory_bytes() - 1),
        Err(Error::TooLarge { .. })
    ));
    assert!(codec::load(&mut Reader(&out.0), 1, NO_LIMIT).is_err());
}

#[test]
fn rdb_values_are_refused_when_anything_is_off() {
    assert!(load(&value(1, 1, 12, &[12, 0, 0, 0]), NO_LIMIT).is_ok());
    for bad in [
        value(0, 1, 0, &[]),
        value(1, 0, 0, &[]),
        value(0, 0, 0, &[]),
        value(1 << 62, 1, 0, &[]),
        value(1, 1 << 62, 0, &[]),
        value(1 << 62, 1 << 62, 0, &[]),
        value(u64::MAX, 2, 0, &[]),
        value(1, 1, 0, &[0; 3]),
        value(1, 1, 0, &[0; 5]),
        value(2, 1, 0, &[0; 4]),
        value(1, 1, 0, &[0; 4])[..30].to_vec(),
    ] {
        assert!(load(&bad, 1 << 30).is_err(), "{bad:02x?} accepted");
    }
    // The limit is checked before the counters are read.
    assert!(matches!(
        load(&value(1 << 20, 1 << 10, 0, &[]), 1 << 30),
        Err(Error::TooLarge { .. })
    ));
}
