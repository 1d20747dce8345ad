//! Hostile Top-K RESTOREs. RedisBloom (2.8.20, 8.2.3, 8.8.0) segfaults or aborts on
//! truncated and byte-flipped Top-K DUMPs (its loader `assert`s the bucket and heap string
//! lengths, trusts every heap entry's item length, and indexes by sizes it never compares);
//! here each such payload is refused with `ERR Bad data format` (the reason in the server
//! log), the server keeps serving and other keys, a Top-K one among them, are untouched.

use redis::Connection;

use super::common::client::*;
use super::common::hostile::{Guard, Rng};
use super::common::rdb::{expect_restore_refused, restore, Frame, BAD_DATA, F};
use super::common::Server;

/// The frame of this server's DUMPs (type byte, module id, RDB version), from `guard:topk`.
fn frame(con: &mut Connection) -> Frame {
    Frame::from_dump(&as_bytes(&raw(con, &["DUMP", "guard:topk"])))
}

/// A heap entry: fingerprint, item length, pointer, count.
fn entry(fp: u32, len: u32, pointer: u64, count: u32) -> Vec<u8> {
    let mut e = Vec::new();
    e.extend_from_slice(&fp.to_le_bytes());
    e.extend_from_slice(&len.to_le_bytes());
    e.extend_from_slice(&pointer.to_le_bytes());
    e.extend_from_slice(&count.to_le_bytes());
    e.extend_from_slice(&[0; 4]);
    e
}

/// A valid k = 2, width 4, depth 2 sketch holding `ab` with count 3 (fields).
fn valid() -> Vec<F> {
    let fp = rsbloom_core::topk::hash::fingerprint(b"ab");
    vec![
        F::U(2),
        F::U(4),
        F::U(2),
        F::D(0.9),
        F::S(vec![0; 4 * 2 * 8]),
        F::S([entry(0, 0, 0, 0), entry(fp, 2, 0x7f00_dead_beef, 3)].concat()),
        F::S(vec![0]),
        F::S(b"ab\0".to_vec()),
    ]
}

fn with(at: usize, f: F) -> Vec<F> {
    let mut v = valid();
    v[at] = f;
    v
}

/// A Top-K key that every attack must leave alone; its DUMP.
fn plant_topk(con: &mut Connection) -> Vec<u8> {
    expect_ok(con, &["TOPK.RESERVE", "guard:topk", "3", "50", "3", "0.9"]);
    raw(
        con,
        &["TOPK.INCRBY", "guard:topk", "a", "10", "b", "5", "c", "1"],
    );
    as_bytes(&raw(con, &["DUMP", "guard:topk"]))
}

#[test]
fn malformed_values_are_refused() {
    let mut server = Server::start();
    let mut con = server.conn();
    let guard = Guard::plant(&mut con);
    let topk = plant_topk(&mut con);
    let frame = frame(&mut con);
    assert_eq!(
        restore(&mut con, "ok", &frame.payload(&valid())),
        redis::Value::Okay,
        "the valid base"
    );
    expect_ints(&mut con, &["TOPK.COUNT", "ok", "ab"], &[0]);
    expect_int(&mut con, &["DEL", "ok"], 1);

    let fp = rsbloom_core::topk::hash::fingerprint(b"ab");
    let cases: Vec<(&str, Vec<F>)> = vec![
        ("k 0", with(0, F::U(0))),
        ("width 0", with(1, F::U(0))),
        ("depth 0", with(2, F::U(0))),
        ("k 2^32", with(0, F::U(1 << 32))),
        ("width 2^62", with(1, F::U(1 << 62))),
        ("depth 2^32 + 2", with(2, F::U((1 << 32) + 2))),
        ("decay NaN", with(3, F::D(f64::NAN))),
        ("decay 0", with(3, F::D(0.0))),
        ("decay -1", with(3, F::D(-1.0))),
        ("decay 2", with(3, F::D(2.0))),
        ("short buckets", with(4, F::S(vec![0; 63]))),
        ("long buckets", with(4, F::S(vec![0; 72]))),
        ("no buckets", with(4, F::U(64))),
        ("short heap", with(5, F::S(vec![0; 47]))),
        ("heap of k = 3", with(5, F::S(vec![0; 72]))),
        (
            "item length 2^32-1",
            with(
                5,
                F::S([entry(0, 0, 0, 0), entry(fp, u32::MAX, 0, 3)].concat()),
            ),
        ),
        (
            "item longer than its length",
            with(5, F::S([entry(0, 0, 0, 0), entry(fp, 1, 0, 3)].concat())),
        ),
        (
            "wrong fingerprint",
            with(
                5,
                F::S([entry(0, 0, 0, 0), entry(fp ^ 1, 2, 0, 3)].concat()),
            ),
        ),
        (
            "unused entry with a count",
            with(5, F::S([entry(0, 0, 0, 9), entry(fp, 2, 0, 3)].concat())),
        ),
        ("item without its NUL", with(7, F::S(b"ab".to_vec()))),
        ("empty item string", with(6, F::S(Vec::new()))),
        (
            "cut item with a NUL inside",
            with(7, F::S(b"\0\0".to_vec())),
        ),
        ("unused entry with an item", with(6, F::S(b"x\0".to_vec()))),
        ("missing item", valid()[..7].to_vec()),
        ("extra field", [valid(), vec![F::U(1)]].concat()),
        ("item as an integer", with(7, F::U(3))),
    ];
    for (what, fields) in &cases {
        expect_restore_refused(&mut con, "bad", &frame.payload(fields), what);
        server.assert_alive();
    }
    // Truncations of a real DUMP at every length.
    let body = frame.body(&valid());
    for cut in 11..body.len() {
        let v = restore(&mut con, "cut", &frame.seal(&body[..cut]));
        assert_eq!(err_of(&v).as_deref(), Some(BAD_DATA), "cut at {cut}: {v:?}");
    }
    server.assert_alive();
    guard.check(&mut con, "malformed Top-K values");
    assert_eq!(as_bytes(&raw(&mut con, &["DUMP", "guard:topk"])), topk);
    println!(
        "{} malformed values and {} truncations refused",
        cases.len(),
        body.len() - 11
    );
}

/// Seeded mutations (bytes set, flipped, planted, inserted, deleted, cut) of a real DUMP:
/// never a crash; each one refused, or loaded as a sketch that answers every command.
#[test]
fn mutated_dumps_never_crash() {
    let mut server = Server::start();
    let mut con = server.conn();
    let guard = Guard::plant(&mut con);
    let topk = plant_topk(&mut con);
    let frame = frame(&mut con);
    let base = valid();
    let mut rng = Rng::new(0x7070_4b4b);
    let (mut refused, mut loaded) = (0, 0);
    for (i, payload) in frame.mutations(&mut rng, &base, 3000).iter().enumerate() {
        let v = restore(&mut con, "m", payload);
        if v == redis::Value::Okay {
            loaded += 1;
            raw(&mut con, &["TOPK.ADD", "m", "ab", "x", ""]);
            raw(&mut con, &["TOPK.INCRBY", "m", "ab", "1000"]);
            let list = raw(&mut con, &["TOPK.LIST", "m", "WITHCOUNT"]);
            assert!(err_of(&list).is_none(), "mutation {i}: LIST {list:?}");
            raw(&mut con, &["TOPK.COUNT", "m", "ab", "x"]);
            let dump = as_bytes(&raw(&mut con, &["DUMP", "m"]));
            assert_eq!(
                restore(&mut con, "m2", &dump),
                redis::Value::Okay,
                "mutation {i}: own DUMP"
            );
            raw(&mut con, &["DEL", "m", "m2"]);
        } else {
            assert_eq!(err_of(&v).as_deref(), Some(BAD_DATA), "mutation {i}: {v:?}");
            refused += 1;
        }
        if i % 500 == 0 {
            server.assert_alive();
        }
    }
    server.assert_alive();
    guard.check(&mut con, "mutated Top-K values");
    assert_eq!(as_bytes(&raw(&mut con, &["DUMP", "guard:topk"])), topk);
    println!("3000 mutated Top-K DUMPs: {refused} refused, {loaded} loaded and usable");
    assert!(
        refused > 1000 && loaded > 10,
        "{refused} refused, {loaded} loaded"
    );
}
