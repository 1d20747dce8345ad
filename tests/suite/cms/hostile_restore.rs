//! Hostile `RESTORE` payloads of `CMSk-TYPE` against a real server: the values that crash
//! RedisBloom (width or depth 2^62 in every version, width 0 in 8.2.3, counter strings
//! shorter than the dimensions), every truncation of a real payload, and thousands of seeded
//! mutations resealed with a right CRC. Each is refused (`ERR Bad data format`, no key) or
//! loads as a sketch that then answers every command; the server keeps serving and the
//! planted keys stay as they were.

use rsbloom_test_support as common;

use common::files::REDISBLOOM_CMS_CONFIGS as CONFIGS;
use common::hostile::{Guard, Rng};
use common::rdb::{dump_body, expect_restore_refused, restore, Frame, BAD_DATA, F};
use common::*;
use redis::{Connection, Value};

use super::recorded_dump;

/// This server's frame for `CMSk-TYPE` payloads (its RDB version), from a DUMP of its own.
fn frame(con: &mut Connection) -> Frame {
    expect_ok(con, &["CMS.INITBYDIM", "probe", "1", "1"]);
    let dump = as_bytes(&raw(con, &["DUMP", "probe"]));
    expect_int(con, &["DEL", "probe"], 1);
    Frame::from_dump(&dump)
}

/// A sketch that loaded must answer every command without harming the server.
fn exercise(con: &mut Connection, key: &str, what: &str) {
    for args in [
        &["CMS.INFO", key][..],
        &["CMS.QUERY", key, "a", "", "zzz"],
        &["CMS.INCRBY", key, "a", "1", "b", "4294967295"],
        &["CMS.MERGE", key, "2", key, key, "WEIGHTS", "1", "1"],
        &["CMS.MERGE", key, "1", key, "WEIGHTS", "-1"],
        &["DUMP", key],
        &["MEMORY", "USAGE", key],
    ] {
        let v = raw(con, args);
        assert!(
            !err_of(&v).is_some_and(|e| e.contains("internal")),
            "{what}: {args:?} answered {v:?}"
        );
    }
}

#[test]
fn crafted_values_that_crash_redisbloom_are_refused() {
    let mut server = Server::start();
    let mut con = server.conn();
    let guard = Guard::plant(&mut con);
    let frame = frame(&mut con);
    let counters = |n: usize| F::S(vec![0u8; n]);
    let cases: Vec<(&str, Vec<F>)> = vec![
        (
            "width 2^62",
            vec![F::U(1 << 62), F::U(1), F::U(0), counters(4)],
        ),
        (
            "depth 2^62",
            vec![F::U(1), F::U(1 << 62), F::U(0), counters(4)],
        ),
        (
            "both 2^62",
            vec![F::U(1 << 62), F::U(1 << 62), F::U(0), counters(4)],
        ),
        (
            "width 2^64-1",
            vec![F::U(u64::MAX), F::U(2), F::U(0), counters(8)],
        ),
        ("width 0", vec![F::U(0), F::U(4), F::U(0), counters(0)]),
        ("depth 0", vec![F::U(4), F::U(0), F::U(0), counters(0)]),
        ("no counters", vec![F::U(10), F::U(2), F::U(0), counters(0)]),
        (
            "short counters",
            vec![F::U(10), F::U(2), F::U(0), counters(79)],
        ),
        (
            "long counters",
            vec![F::U(10), F::U(2), F::U(0), counters(81)],
        ),
        (
            "over the limit",
            vec![F::U(1 << 30), F::U(4), F::U(0), counters(4)],
        ),
        ("counters missing", vec![F::U(10), F::U(2), F::U(0)]),
        (
            "a double for the width",
            vec![F::D(10.0), F::U(2), F::U(0), counters(80)],
        ),
        (
            "extra field",
            vec![F::U(1), F::U(1), F::U(0), counters(4), F::U(1)],
        ),
    ];
    for (what, fields) in &cases {
        expect_restore_refused(&mut con, "hostile", &frame.payload(fields), what);
        guard.check(&mut con, what);
    }
    // Encoding version 1 (RedisBloom refuses it too).
    let v1 = frame
        .with_encver(1)
        .payload(&[F::U(1), F::U(1), F::U(0), counters(4)]);
    expect_restore_refused(&mut con, "hostile", &v1, "encoding version 1");
    // The right value still loads.
    let good = frame.payload(&[
        F::U(2),
        F::U(1),
        F::U(7),
        F::S(vec![3, 0, 0, 0, 4, 0, 0, 0]),
    ]);
    assert_eq!(restore(&mut con, "good", &good), Value::Okay);
    assert_eq!(super::info_ints(&mut con, "good"), vec![2, 1, 7]);
    let answer = as_ints(&raw(&mut con, &["CMS.QUERY", "good", "x"]))[0];
    assert!(answer == 3 || answer == 4, "QUERY answered {answer}");
    server.assert_alive();
    guard.check_deep(&mut con, "crafted values");
}

#[test]
fn truncated_and_mutated_payloads_never_crash() {
    let mut server = Server::start();
    let mut con = server.conn();
    let guard = Guard::plant(&mut con);
    let frame = frame(&mut con);
    let mut rng = Rng::new(0xC3A5_2023);
    let (mut refused, mut loaded, mut tried) = (0, 0, 0);
    for name in ["tiny", "dim_small", "overflow", "merge", "binary", "errors"] {
        let body = dump_body(&recorded_dump(name)).to_vec();
        // Every truncation, resealed (the server reads on into the footer, so a cut near
        // the end may still give a well-formed value), then seeded mutations after the
        // module id.
        let cuts = (10..body.len()).map(|cut| body[..cut].to_vec());
        let mutations: Vec<Vec<u8>> = (0..300)
            .map(|_| common::hostile::mutate(&mut rng, &body, common::hostile::Mutation::after(10)))
            .collect();
        for bytes in cuts.chain(mutations) {
            let v = restore(&mut con, "hostile", &frame.seal(&bytes));
            tried += 1;
            if v == Value::Okay {
                loaded += 1;
                exercise(&mut con, "hostile", name);
                raw(&mut con, &["DEL", "hostile"]);
            } else {
                assert_eq!(err_of(&v).as_deref(), Some(BAD_DATA), "{name}: {v:?}");
                refused += 1;
            }
        }
        guard.check(&mut con, name);
    }
    server.assert_alive();
    guard.check_deep(&mut con, "mutations");
    println!("{tried} hostile payloads: {loaded} loaded and answered, {refused} refused");
    assert!(
        loaded > 50 && refused > 50,
        "{loaded} loaded, {refused} refused"
    );
    let _ = CONFIGS;
}
