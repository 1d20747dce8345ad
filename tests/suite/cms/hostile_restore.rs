//! Hostile `RESTORE` payloads of `CMSk-TYPE` against a real server: the values that crash
//! RedisBloom (width or depth 2^62 in every version, width 0 in 8.2.3, counter strings
//! shorter than the dimensions), RedisBloom 8.12's encoding version 1 and rsbloom's sized
//! version 0 with every field off (cell sizes 0, 3, 16, lengths that do not match, counters
//! and totals no command makes, sizes past the limit, refused before allocating), every
//! truncation of a real payload, and thousands of seeded mutations resealed with a right
//! CRC. Each is refused (`ERR Bad data format`, no key) or loads as a sketch that then
//! answers every command; the server keeps serving and the planted keys stay as they were.

use rsbloom_test_support as common;

use common::files::REDISBLOOM_CMS_CONFIGS as CONFIGS;
use common::hostile::{Guard, Rng};
use common::rdb::{dump_body, expect_restore_refused, restore, Frame, BAD_DATA, F};
use common::*;
use redis::{Connection, Value};

use super::recorded_dump;

/// The fields of a DUMP of rsbloom's (version 0, the cell size after the counters unless 4):
/// width, depth, total, the counter bytes, the cell size.
type Fields = (u64, u64, u64, Vec<u8>, u64);

fn dump_fields(dump: &[u8]) -> Fields {
    let mut c = common::rdb::Cursor::new(dump);
    let id = u64::from_be_bytes(dump[2..10].try_into().unwrap());
    c.module_head(id, 0).expect("module head");
    let (w, d, n) = (
        c.unsigned().unwrap(),
        c.unsigned().unwrap(),
        c.unsigned().unwrap(),
    );
    let bytes = c.string_bytes().expect("counters");
    let cell = bytes.len() as u64 / (w * d);
    if cell != 4 {
        assert_eq!(
            c.unsigned().unwrap(),
            cell,
            "the cell size after the counters"
        );
    }
    c.module_eof().expect("end of the value");
    (w, d, n, bytes, cell)
}

/// A sketch of `cell`-byte counters made by commands: its DUMP and its fields.
fn made(con: &mut Connection, key: &str, cell: u64) -> (Vec<u8>, Fields) {
    let n = cell.to_string();
    expect_ok(con, &["CMS.INITBYDIM", key, "40", "3", "CELL_SIZE", &n]);
    raw(
        con,
        &["CMS.INCRBY", key, "a", "7", "b", "200", "c", "1", "a", "-2"],
    );
    let dump = as_bytes(&raw(con, &["DUMP", key]));
    let fields = dump_fields(&dump);
    (dump, fields)
}

/// RedisBloom 8.12's encoding version 1 (the cell size before the counters) of every size
/// loads as the sketch rsbloom wrote in version 0; every field off is refused.
#[test]
fn version_1_and_sized_version_0_values() {
    let mut server = Server::start();
    let mut con = server.conn();
    let guard = Guard::plant(&mut con);
    let frame = frame(&mut con);
    let v1 = frame.with_encver(1);
    for cell in [1u64, 2, 4, 8] {
        let key = format!("made{cell}");
        let (dump, (w, d, n, bytes, stored)) = made(&mut con, &key, cell);
        assert_eq!(stored, cell);
        assert_eq!(bytes.len() as u64, 40 * 3 * cell);
        // The same sketch in version 1: the same answers, and DUMPed as rsbloom writes it.
        let payload = v1.payload(&[F::U(w), F::U(d), F::U(n), F::U(cell), F::S(bytes.clone())]);
        assert_eq!(
            restore(&mut con, "v1", &payload),
            Value::Okay,
            "cell {cell}"
        );
        assert_eq!(
            super::info_ints(&mut con, "v1"),
            vec![40, 3, n as i64, cell as i64]
        );
        for item in ["a", "b", "c", "z"] {
            assert_eq!(
                raw(&mut con, &["CMS.QUERY", "v1", item]),
                raw(&mut con, &["CMS.QUERY", &key, item]),
                "cell {cell}: {item}"
            );
        }
        assert_eq!(
            dump_body(&as_bytes(&raw(&mut con, &["DUMP", "v1"]))),
            dump_body(&dump)
        );
        exercise(&mut con, "v1", "version 1");
        let fields = |cell_field: u64, string: Vec<u8>| {
            vec![F::U(w), F::U(d), F::U(n), F::U(cell_field), F::S(string)]
        };
        let mut cases: Vec<(String, Vec<u8>)> = vec![
            (
                format!("v1 cell {cell}: cell size 0"),
                v1.payload(&fields(0, vec![])),
            ),
            (
                format!("v1 cell {cell}: cell size 3"),
                v1.payload(&fields(3, vec![0; 40 * 3 * 3])),
            ),
            (
                format!("v1 cell {cell}: cell size 16"),
                v1.payload(&fields(16, vec![0; 40 * 3 * 16])),
            ),
            (
                format!("v1 cell {cell}: cell size 2^64-1"),
                v1.payload(&fields(u64::MAX, bytes.clone())),
            ),
            (
                format!("v1 cell {cell}: short"),
                v1.payload(&fields(cell, bytes[1..].to_vec())),
            ),
            (
                format!("v1 cell {cell}: long"),
                v1.payload(&fields(cell, [&bytes[..], &[0]].concat())),
            ),
            (
                format!("v1 cell {cell}: a string of twice the size"),
                v1.payload(&fields(cell, vec![0; 40 * 3 * 2 * cell as usize])),
            ),
            (
                format!("v1 cell {cell}: total 2^63"),
                v1.payload(&[
                    F::U(w),
                    F::U(d),
                    F::U(1 << 63),
                    F::U(cell),
                    F::S(bytes.clone()),
                ]),
            ),
            (
                format!("v1 cell {cell}: extra field"),
                v1.payload(&[fields(cell, bytes.clone()), vec![F::U(cell)]].concat()),
            ),
            (
                format!("v1 cell {cell}: over the limit"),
                v1.payload(&[
                    F::U(1 << 27),
                    F::U(4),
                    F::U(0),
                    F::U(cell),
                    F::S(vec![0; 16]),
                ]),
            ),
            (
                format!("v1 cell {cell}: 2^62 wide"),
                v1.payload(&[
                    F::U(1 << 62),
                    F::U(1),
                    F::U(0),
                    F::U(cell),
                    F::S(vec![0; 8]),
                ]),
            ),
            (
                format!("v1 cell {cell}: width 0"),
                v1.payload(&[F::U(0), F::U(3), F::U(0), F::U(cell), F::S(vec![])]),
            ),
        ];
        if cell == 4 {
            // A sized version 0 must not say 4: that is plain version 0.
            cases.push((
                "v0 cell 4 with a size after".into(),
                frame.payload(&[F::U(w), F::U(d), F::U(n), F::S(bytes.clone()), F::U(4)]),
            ));
        } else {
            let v0 = |tail: Vec<F>, string: Vec<u8>| {
                let mut f = vec![F::U(w), F::U(d), F::U(n), F::S(string)];
                f.extend(tail);
                frame.payload(&f)
            };
            cases.extend([
                (
                    format!("v0 cell {cell}: no size after"),
                    v0(vec![], bytes.clone()),
                ),
                (
                    format!("v0 cell {cell}: size 4 after"),
                    v0(vec![F::U(4)], bytes.clone()),
                ),
                (
                    format!("v0 cell {cell}: another size after"),
                    v0(vec![F::U(if cell == 1 { 2 } else { 1 })], bytes.clone()),
                ),
                (
                    format!("v0 cell {cell}: short"),
                    v0(vec![F::U(cell)], bytes[1..].to_vec()),
                ),
                (
                    format!("v0 cell {cell}: total 2^63"),
                    frame.payload(&[
                        F::U(w),
                        F::U(d),
                        F::U(1 << 63),
                        F::S(bytes.clone()),
                        F::U(cell),
                    ]),
                ),
                (
                    format!("v0 cell {cell}: two sizes after"),
                    v0(vec![F::U(cell), F::U(cell)], bytes.clone()),
                ),
            ]);
        }
        if cell == 8 {
            let mut high = bytes.clone();
            high[7] = 0x80; // The first counter: 2^63 or more.
            cases.push((
                "v1 cell 8: counter 2^63".into(),
                v1.payload(&fields(8, high.clone())),
            ));
            cases.push((
                "v0 cell 8: counter 2^63".into(),
                frame.payload(&[F::U(w), F::U(d), F::U(n), F::S(high), F::U(8)]),
            ));
        }
        for (what, payload) in &cases {
            expect_restore_refused(&mut con, "hostile", payload, what);
        }
        // Mutations of both encodings.
        let mut rng = Rng::new(0xC3A5_0812 + cell);
        let body = frame.body(&[F::U(w), F::U(d), F::U(n), F::S(bytes.clone()), F::U(cell)]);
        let body_v1 = v1.body(&fields(cell, bytes.clone()));
        let mutants: Vec<Vec<u8>> = (0..300)
            .map(|i| {
                let body = if i % 2 == 0 { &body } else { &body_v1 };
                common::hostile::mutate(&mut rng, body, common::hostile::Mutation::after(10))
            })
            .collect();
        for bytes in mutants {
            let v = restore(&mut con, "hostile", &frame.seal(&bytes));
            if v == Value::Okay {
                exercise(&mut con, "hostile", &format!("a mutant of cell {cell}"));
                raw(&mut con, &["DEL", "hostile"]);
            } else {
                assert_eq!(err_of(&v).as_deref(), Some(BAD_DATA), "cell {cell}: {v:?}");
            }
        }
        guard.check(&mut con, &format!("cell {cell}"));
        raw(&mut con, &["DEL", "v1"]);
    }
    server.assert_alive();
    guard.check_deep(&mut con, "version 1 values");
}

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
        &[
            "CMS.INCRBY",
            key,
            "a",
            "1",
            "b",
            "4294967295",
            "a",
            "-1",
            "c",
            "-5",
        ],
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
    // Encoding version 1 without its cell size, and version 2.
    let v1 = frame
        .with_encver(1)
        .payload(&[F::U(1), F::U(1), F::U(0), counters(4)]);
    expect_restore_refused(
        &mut con,
        "hostile",
        &v1,
        "encoding version 1 without cell size",
    );
    let v2 = frame
        .with_encver(2)
        .payload(&[F::U(1), F::U(1), F::U(0), F::U(4), counters(4)]);
    expect_restore_refused(&mut con, "hostile", &v2, "encoding version 2");
    // The right value still loads.
    let good = frame.payload(&[
        F::U(2),
        F::U(1),
        F::U(7),
        F::S(vec![3, 0, 0, 0, 4, 0, 0, 0]),
    ]);
    assert_eq!(restore(&mut con, "good", &good), Value::Okay);
    assert_eq!(super::info_ints(&mut con, "good"), vec![2, 1, 7, 4]);
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
