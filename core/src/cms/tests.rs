//! The sketch's arithmetic at its edges (every cell size) and the codec's round trips and
//! rejections in each encoding.

use super::cells::{CellSize, Cells};
use super::codec::{self, ENCODING_VERSION, ENCODING_VERSION_CELL_SIZE};
use super::sketch::{check_dims, memory_for, STRUCT_BYTES};
use super::{dims_from_prob, CountMinSketch, Source};
use crate::error::Error;
use crate::fields::{FieldSink, FieldSource, Reader, Writer};
use crate::testkit::cms::{fields, fields_v1};

const NO_LIMIT: u64 = u64::MAX;

fn load(bytes: &[u8], limit: u64) -> crate::error::Result<CountMinSketch> {
    codec::load(&mut Reader(bytes), ENCODING_VERSION, limit)
}

fn load_v1(bytes: &[u8], limit: u64) -> crate::error::Result<CountMinSketch> {
    codec::load(&mut Reader(bytes), ENCODING_VERSION_CELL_SIZE, limit)
}

fn value(width: u64, depth: u64, count: u64, counters: &[u8]) -> Vec<u8> {
    let mut w = Writer::default();
    w.put_u64(width);
    w.put_u64(depth);
    w.put_u64(count);
    w.put_bytes(counters);
    w.0
}

/// A version-1 value: the cell size before the counters.
fn value_v1(width: u64, depth: u64, count: u64, cell: u64, counters: &[u8]) -> Vec<u8> {
    let mut w = Writer::default();
    w.put_u64(width);
    w.put_u64(depth);
    w.put_u64(count);
    w.put_u64(cell);
    w.put_bytes(counters);
    w.0
}

fn sketch(width: u64, depth: u64, bytes: u64) -> CountMinSketch {
    let cell = CellSize::from_bytes(bytes).unwrap();
    CountMinSketch::with_cell_size(width, depth, cell, NO_LIMIT).unwrap()
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
    let four = CellSize::Four;
    assert_eq!(check_dims(1, 1, four, NO_LIMIT), Ok(STRUCT_BYTES + 4));
    assert_eq!(check_dims(0, 1, four, NO_LIMIT), Err(Error::CmsInvalidInit));
    assert_eq!(
        check_dims(1 << 62, 4, four, NO_LIMIT),
        Err(Error::CmsInvalidInit)
    );
    assert_eq!(
        check_dims(1 << 62, 1, four, NO_LIMIT),
        Err(Error::CmsInsufficientMemory)
    );
    // The real cell size counts: 2^62 one-byte counters are addressable, not 8-byte ones.
    assert!(matches!(
        check_dims(1 << 62, 1, CellSize::One, 1 << 30),
        Err(Error::TooLarge { .. })
    ));
    assert_eq!(
        check_dims(1 << 61, 1, CellSize::Eight, NO_LIMIT),
        Err(Error::CmsInsufficientMemory)
    );
    let needed = memory_for(1 << 31, 4, four).unwrap();
    assert_eq!(
        check_dims(1 << 31, 4, four, 512 << 20),
        Err(Error::TooLarge {
            needed,
            limit: 512 << 20
        })
    );
    assert_eq!(check_dims(10, 10, four, 432), Ok(432));
    assert!(matches!(
        check_dims(10, 10, four, 431),
        Err(Error::TooLarge { .. })
    ));
    for (cell, bytes) in [
        (CellSize::One, 132),
        (CellSize::Two, 232),
        (CellSize::Eight, 832),
    ] {
        assert_eq!(check_dims(10, 10, cell, bytes), Ok(bytes));
        assert!(check_dims(10, 10, cell, bytes - 1).is_err());
        assert_eq!(sketch(10, 10, cell.bytes()).memory_bytes(), bytes);
    }
    assert!(matches!(
        CountMinSketch::new(1 << 40, 1, 512 << 20),
        Err(Error::TooLarge { .. })
    ));
}

#[test]
fn cell_sizes_are_redisbloom_8_12_s() {
    for (bytes, max) in [
        (1, 255),
        (2, 65535),
        (4, u32::MAX as u64),
        (8, i64::MAX as u64),
    ] {
        let size = CellSize::from_bytes(bytes).unwrap();
        assert_eq!((size.bytes(), size.max()), (bytes, max));
        assert_eq!(CellSize::parse(Some(bytes as i64)), Ok(size));
    }
    for bad in [Some(0), Some(3), Some(5), Some(16), Some(-4), None] {
        assert_eq!(CellSize::parse(bad), Err(Error::CmsInvalidCellSize));
    }
    assert_eq!(CellSize::DEFAULT, CellSize::Four);
    assert_eq!(
        CountMinSketch::new(2, 2, NO_LIMIT).unwrap().cell_size(),
        CellSize::Four
    );
}

/// A 1 x 1 sketch holds one counter, so its estimate is exact: every size takes its maximum
/// and refuses one more, the sketch and the total untouched (8.12's `test_cell_size_max_value`).
#[test]
fn each_cell_size_refuses_past_its_maximum() {
    for cell in CellSize::ALL {
        let mut s = sketch(1, 1, cell.bytes());
        let max = cell.max();
        assert_eq!(s.incr_by(b"a", max as i64), Ok(max));
        let full = s.clone();
        assert_eq!(s.incr_by(b"a", 1), Err(Error::CmsIncrByOverflow));
        assert_eq!(s, full);
        assert_eq!((s.query(b"a"), s.count()), (max, max));
        // One increment larger than the cell holds is refused outright.
        let mut empty = sketch(20, 5, cell.bytes());
        if max < i64::MAX as u64 {
            assert_eq!(
                empty.incr_by(b"a", max as i64 + 1),
                Err(Error::CmsIncrByOverflow)
            );
        }
        assert_eq!((empty.query(b"a"), empty.count()), (0, 0));
        // A zero increment answers the estimate and changes nothing.
        assert_eq!(s.incr_by(b"a", 0), Ok(max));
        assert_eq!(s, full);
    }
}

/// RedisBloom 8.12's `test_overflow`, on the core: a 5 x 2 sketch of 4-byte counters, where
/// `b` and `c` share a counter. The third round's `a` is refused, the others go through,
/// and the total counts only what went through.
#[test]
fn an_overflow_refuses_that_item_alone() {
    let large = (1i64 << 31) - 1;
    let mut s = CountMinSketch::new(5, 2, NO_LIMIT).unwrap();
    let round = |s: &mut CountMinSketch| -> Vec<Result<u64, Error>> {
        [("a", large), ("b", 10), ("c", 7), ("d", 5)]
            .iter()
            .map(|(i, v)| s.incr_by(i.as_bytes(), *v))
            .collect()
    };
    let query = |s: &CountMinSketch| -> Vec<u64> {
        ["a", "b", "c", "d"].map(|i| s.query(i.as_bytes())).to_vec()
    };
    let l = large as u64;
    assert_eq!(round(&mut s), vec![Ok(l), Ok(10), Ok(17), Ok(5)]);
    assert_eq!(query(&s), vec![l, 17, 17, 5]);
    assert_eq!(round(&mut s), vec![Ok(2 * l), Ok(27), Ok(34), Ok(10)]);
    assert_eq!(query(&s), vec![2 * l, 34, 34, 10]);
    assert_eq!(
        round(&mut s),
        vec![Err(Error::CmsIncrByOverflow), Ok(44), Ok(51), Ok(15)]
    );
    assert_eq!(query(&s), vec![2 * l, 51, 51, 15]);
    assert_eq!(s.count(), 2 * (l + 22) + 22);
}

/// Decrements (8.12's `test_decrby`, `test_decrby_underflow`): allowed while every counter of
/// the item and the total hold the amount; otherwise refused, nothing changed.
#[test]
fn decrements_take_back_what_every_counter_holds() {
    for cell in CellSize::ALL {
        let mut s = sketch(1000, 5, cell.bytes());
        assert_eq!(s.incr_by(b"a", 100), Ok(100));
        assert_eq!(s.incr_by(b"a", -40), Ok(60));
        assert_eq!((s.query(b"a"), s.count()), (60, 60));
        let kept = s.clone();
        assert_eq!(s.incr_by(b"a", -61), Err(Error::CmsIncrByUnderflow));
        assert_eq!(s.incr_by(b"never", -1), Err(Error::CmsIncrByUnderflow));
        assert_eq!(s, kept);
        assert_eq!(s.incr_by(b"a", -100), Err(Error::CmsIncrByUnderflow));
        assert_eq!(s.incr_by(b"b", 3), Ok(3));
        assert_eq!(s.incr_by(b"a", -4), Ok(56));
        assert_eq!((s.query(b"a"), s.query(b"b"), s.count()), (56, 3, 59));
        assert_eq!(s.incr_by(b"a", -56), Ok(0));
        assert_eq!(s.incr_by(b"b", -3), Ok(0));
        assert!(s.cells().values().iter().all(|&c| c == 0) && s.count() == 0);
    }
}

/// A refusal in a late row undoes the rows before it (8.12's
/// `test_incrby_rejection_undoes_partial_writes`, and depths past 64).
#[test]
fn a_late_refusal_undoes_the_rows_before_it() {
    let mut s = sketch(2, 4, 1);
    assert_eq!(s.incr_by(b"filler", 200), Ok(200));
    let kept = s.clone();
    assert_eq!(s.incr_by(b"a", 100), Err(Error::CmsIncrByOverflow));
    assert_eq!(s, kept);
    assert_eq!(s.incr_by(b"filler", 1), Ok(201));
    for depth in [63, 64, 65, 130] {
        let mut s = sketch(50, depth, 4);
        assert_eq!(s.incr_by(b"a", 10), Ok(10));
        assert_eq!(s.incr_by(b"a", -6), Ok(4));
        let kept = s.clone();
        assert_eq!(s.incr_by(b"a", -5), Err(Error::CmsIncrByUnderflow));
        assert_eq!(s, kept);
        let mut small = sketch(50, depth, 1);
        assert_eq!(small.incr_by(b"b", 255), Ok(255));
        let kept = small.clone();
        assert_eq!(small.incr_by(b"b", 1), Err(Error::CmsIncrByOverflow));
        assert_eq!(small, kept);
    }
    // Every row but the last has room: the last refuses, the others are taken back.
    let last = {
        let mut probe = sketch(7, 5, 2);
        probe.incr_by(b"x", 1).unwrap();
        probe
            .cells()
            .values()
            .iter()
            .rposition(|&c| c == 1)
            .unwrap()
    };
    let mut full = vec![0u16; 35];
    full[last] = u16::MAX;
    let mut s = CountMinSketch::from_parts(7, 5, u16::MAX as u64, Cells::Two(full));
    let kept = s.clone();
    assert_eq!(s.incr_by(b"x", 1), Err(Error::CmsIncrByOverflow));
    assert_eq!(s, kept);
}

/// The total is a signed 64-bit reply: capped at 2^63 - 1 even when the item's own counters
/// have room (8.12's `test_total_count_overflow`); a decrement past the total (a crafted
/// value) is refused too, and a total that wrapped before 8.12 takes no more increments.
#[test]
fn the_total_is_capped_at_2_63_minus_1() {
    let max = i64::MAX as u64;
    let mut s = sketch(100, 1, 8);
    assert_eq!(s.incr_by(b"a", i64::MAX), Ok(max));
    let other = (0..1000)
        .map(|i| format!("x{i}"))
        .find(|i| s.query(i.as_bytes()) == 0)
        .unwrap();
    assert_eq!(
        s.incr_by(other.as_bytes(), 1),
        Err(Error::CmsIncrByOverflow)
    );
    assert_eq!((s.query(other.as_bytes()), s.count()), (0, max));
    // Counters above the total: only a crafted value has them.
    let mut crafted = CountMinSketch::from_parts(1, 1, 0, Cells::Four(vec![7]));
    assert_eq!(crafted.incr_by(b"a", -7), Err(Error::CmsIncrByUnderflow));
    assert_eq!(crafted.query(b"a"), 7);
    // RedisBloom 2.8's wrapped total (its `overflow` session ends at 2^64 - 9223371998200070141).
    let wrapped = 0u64.wrapping_sub(9_223_371_998_200_070_141);
    let mut old = CountMinSketch::from_parts(1, 1, wrapped, Cells::Four(vec![5]));
    assert_eq!(old.incr_by(b"a", 1), Err(Error::CmsIncrByOverflow));
    assert_eq!(old.incr_by(b"a", -5), Ok(0));
    assert_eq!(old.count(), wrapped - 5);
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
    assert!(d.cells().values().iter().all(|&c| c == 0) && d.count() == 0);
    d.merge(&[Source::Destination(i64::MIN)]).unwrap();
    // A total past 2^63 (RedisBloom 2.8's wrapped one) cannot be merged even with weight 1.
    let big = CountMinSketch::from_parts(8, 3, 1 << 63, Cells::Four(vec![0; 24]));
    let mut e = CountMinSketch::new(8, 3, NO_LIMIT).unwrap();
    assert_eq!(
        e.merge(&[Source::Other(&big, 1)]),
        Err(Error::CmsMergeOverflow)
    );
}

/// Merges hold every sum to the destination's cell size (8.12's `test_merge_cell_size`) and
/// refuse sources of another size.
#[test]
fn merges_respect_the_cell_size() {
    let mut a = sketch(20, 5, 2);
    let mut b = sketch(20, 5, 2);
    let mut dest = sketch(20, 5, 2);
    assert_eq!(a.incr_by(b"x", 10), Ok(10));
    assert_eq!(b.incr_by(b"x", 7), Ok(7));
    dest.merge(&[Source::Other(&a, 1), Source::Other(&b, 1)])
        .unwrap();
    assert_eq!((dest.query(b"x"), dest.count()), (17, 17));
    dest.merge(&[Source::Other(&a, 1000), Source::Other(&b, 1)])
        .unwrap();
    assert_eq!(dest.query(b"x"), 10_007);
    let kept = dest.clone();
    assert_eq!(
        dest.merge(&[Source::Other(&a, 10_000), Source::Other(&b, 1)]),
        Err(Error::CmsMergeOverflow)
    );
    assert_eq!(dest, kept);
    let four = CountMinSketch::new(20, 5, NO_LIMIT).unwrap();
    assert_eq!(
        dest.merge(&[Source::Other(&four, 1)]),
        Err(Error::CmsCellSizeMismatch)
    );
    assert_eq!(dest, kept);
    // 8-byte counters sum up to 2^63 - 1.
    let mut big = sketch(1, 1, 8);
    big.incr_by(b"a", 1 << 62).unwrap();
    let copy = big.clone();
    assert_eq!(
        big.merge(&[Source::Destination(1), Source::Other(&copy, 1)]),
        Err(Error::CmsMergeOverflow)
    );
    // Partial sums are checked too, in the sources' order.
    let three = [
        Source::Destination(1),
        Source::Other(&copy, 1),
        Source::Other(&copy, -1),
    ];
    assert_eq!(big.merge(&three), Err(Error::CmsMergeOverflow));
    big.merge(&[
        Source::Destination(1),
        Source::Other(&copy, -1),
        Source::Other(&copy, 1),
    ])
    .unwrap();
    assert_eq!(big.query(b"a"), 1 << 62);
}

#[test]
fn rdb_values_round_trip_in_every_cell_size() {
    for cell in CellSize::ALL {
        let mut s = sketch(100, 4, cell.bytes());
        for i in 0..500u32 {
            let _ = s.incr_by(&i.to_le_bytes(), (i % 7) as i64);
        }
        let v0 = fields(&s);
        let back = load(&v0, NO_LIMIT).unwrap();
        assert_eq!(back, s);
        // Version 0 as RedisBloom writes it for 4-byte counters; the size after the counters
        // for the others.
        let plain = value(100, 4, s.count(), &s.cells().le_bytes());
        if cell == CellSize::Four {
            assert_eq!(v0, plain);
        } else {
            let mut tagged = plain.clone();
            tagged.extend(cell.bytes().to_le_bytes());
            assert_eq!(v0, tagged);
        }
        assert_eq!(load_v1(&fields_v1(&s), NO_LIMIT), Ok(s.clone()));
        assert!(load(&v0, s.memory_bytes()).is_ok());
        assert!(load_v1(&fields_v1(&s), s.memory_bytes()).is_ok());
        assert!(matches!(
            load(&v0, s.memory_bytes() - 1),
            Err(Error::TooLarge { .. })
        ));
        assert!(matches!(
            load_v1(&fields_v1(&s), s.memory_bytes() - 1),
            Err(Error::TooLarge { .. })
        ));
        // Nothing is left unread.
        let mut r = Reader(&v0);
        codec::load(&mut r, ENCODING_VERSION, NO_LIMIT).unwrap();
        assert!(r.get_u64().is_err());
        assert!(codec::load(&mut Reader(&v0), 2, NO_LIMIT).is_err());
    }
}

/// The sketch RedisBloom 8.12's `test_rdb_load_encver_0` restores (20 x 5, `a` + 7, `b` + 3),
/// written as 8.12 writes version 1, loads as the same sketch as rsbloom's own.
#[test]
fn version_1_holds_the_same_sketch() {
    let mut s = CountMinSketch::new(20, 5, NO_LIMIT).unwrap();
    s.incr_by(b"a", 7).unwrap();
    s.incr_by(b"b", 3).unwrap();
    let v1 = value_v1(20, 5, 10, 4, &s.cells().le_bytes());
    let loaded = load_v1(&v1, NO_LIMIT).unwrap();
    assert_eq!(loaded, s);
    assert_eq!((loaded.query(b"a"), loaded.query(b"b")), (7, 3));
}

#[test]
fn rdb_values_are_refused_when_anything_is_off() {
    assert!(load(&value(1, 1, 12, &[12, 0, 0, 0]), NO_LIMIT).is_ok());
    let mut tagged = value(3, 1, 0, &[0; 3]);
    tagged.extend(1u64.to_le_bytes());
    assert!(load(&tagged, NO_LIMIT).is_ok());
    let with = |mut v: Vec<u8>, cell: u64| {
        v.extend(cell.to_le_bytes());
        v
    };
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
        // rsbloom's other sizes: the size must follow and match the string's length.
        value(3, 1, 0, &[0; 3]),
        with(value(3, 1, 0, &[0; 3]), 2),
        with(value(3, 1, 0, &[0; 6]), 1),
        with(value(3, 1, 0, &[0; 6]), 4),
        with(value(3, 1, 0, &[0; 5]), 1),
        // No command makes these: an 8-byte counter or a total of a non-4-byte sketch past
        // 2^63 - 1.
        with(value(1, 1, 0, &u64::MAX.to_le_bytes()), 8),
        with(value(1, 1, 1 << 63, &[0]), 1),
    ] {
        assert!(load(&bad, 1 << 30).is_err(), "{bad:02x?} accepted");
    }
    assert!(load_v1(&value_v1(2, 1, 0, 2, &[0; 4]), 1 << 30).is_ok());
    for bad in [
        value_v1(2, 1, 0, 0, &[]),
        value_v1(2, 1, 0, 3, &[0; 6]),
        value_v1(2, 1, 0, 16, &[0; 32]),
        value_v1(2, 1, 0, u64::MAX, &[0; 4]),
        value_v1(2, 1, 0, 2, &[0; 3]),
        value_v1(2, 1, 0, 2, &[0; 5]),
        value_v1(2, 1, 0, 2, &[0; 8]),
        value_v1(0, 1, 0, 2, &[]),
        value_v1(1 << 62, 4, 0, 1, &[]),
        value_v1(1 << 61, 1, 0, 8, &[]),
        value_v1(2, 1, 1 << 63, 2, &[0; 4]),
        value_v1(1, 1, 0, 8, &(1u64 << 63).to_le_bytes()),
        value_v1(2, 1, 0, 2, &[0; 4])[..40].to_vec(),
        // Version 0's layout read as version 1.
        value(2, 1, 0, &[0; 8]),
    ] {
        assert!(load_v1(&bad, 1 << 30).is_err(), "{bad:02x?} accepted");
    }
    // The limit is checked before the counters are read.
    assert!(matches!(
        load(&value(1 << 20, 1 << 10, 0, &[]), 1 << 30),
        Err(Error::TooLarge { .. })
    ));
    assert!(matches!(
        load_v1(&value_v1(1 << 20, 1 << 8, 0, 8, &[]), 1 << 30),
        Err(Error::TooLarge { .. })
    ));
}
