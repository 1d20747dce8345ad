//! The APBF commands: replies in RESP2 and RESP3, argument errors and their texts, WRONGTYPE
//! both ways, implicit creation with the `bf.apbf-*` configs, MEMORY USAGE and INFO
//! bf_apbf, keyspace events and COMMAND INFO / DOCS.

use rsbloom_test_support as common;

use std::time::Duration;

use common::*;
use redis::{Connection, Msg, Value};

use super::{apbf_field, apbf_info, apbf_text, insert_at, multi, scandump, server_ms};

const COUNT_FIELDS: [&str; 11] = [
    "Capacity",
    "Size",
    "Error rate",
    "Window",
    "Number of hash functions",
    "Generations",
    "Slices",
    "Generation size",
    "Items in window",
    "Number of items inserted",
    "Overflows",
];

fn names(info: &[(String, Value)]) -> Vec<&str> {
    info.iter().map(|(n, _)| n.as_str()).collect()
}

#[test]
fn add_exists_and_info_in_resp2() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["APBF.RESERVE", "k", "COUNT", "0.01", "1000"]);
    expect_int(&mut c, &["APBF.ADD", "k", "a"], 1);
    expect_int(&mut c, &["APBF.ADD", "k", "a"], 0);
    expect_ints(&mut c, &["APBF.MADD", "k", "b", "c", "b"], &[1, 1, 0]);
    expect_int(&mut c, &["APBF.EXISTS", "k", "a"], 1);
    expect_int(&mut c, &["APBF.EXISTS", "k", "zz"], 0);
    expect_ints(&mut c, &["APBF.MEXISTS", "k", "a", "zz", "c"], &[1, 0, 1]);
    // Binary-safe items; the empty item is an item.
    expect_int(&mut c, &[&b"APBF.ADD"[..], b"k", b"\x00\xff\r\n"], 1);
    expect_int(&mut c, &[&b"APBF.EXISTS"[..], b"k", b"\x00\xff\r\n"], 1);
    expect_int(&mut c, &[&b"APBF.EXISTS"[..], b"k", b"\x00\xff\r"], 0);
    expect_int(&mut c, &["APBF.ADD", "k", ""], 1);
    expect_int(&mut c, &["APBF.EXISTS", "k", ""], 1);
    // INSERTAT on a COUNT window adds as MADD does (time does not matter there).
    expect_ints(&mut c, &["APBF.INSERTAT", "k", "5", "d", "a"], &[1, 0]);
    expect_int(&mut c, &["APBF.EXISTS", "k", "d"], 1);

    let info = apbf_info(&mut c, "k");
    assert_eq!(names(&info), COUNT_FIELDS);
    assert_eq!(apbf_field(&mut c, "k", "Capacity"), 1000);
    assert_eq!(
        apbf_text(&mut c, "k", "Error rate").parse::<f64>(),
        Ok(0.01)
    );
    assert_eq!(apbf_text(&mut c, "k", "Window"), "count");
    // 9 adds, all in the youngest generation.
    assert_eq!(apbf_field(&mut c, "k", "Number of items inserted"), 9);
    assert_eq!(apbf_field(&mut c, "k", "Items in window"), 9);
    assert_eq!(apbf_field(&mut c, "k", "Overflows"), 0);
    let k = apbf_field(&mut c, "k", "Number of hash functions");
    let l = apbf_field(&mut c, "k", "Generations");
    let g = apbf_field(&mut c, "k", "Generation size");
    assert_eq!(
        apbf_field(&mut c, "k", "Slices"),
        k + l,
        "COUNT: k + l slices"
    );
    assert_eq!(g, (1000 + l - 1) / l, "generation size: ceil(capacity / l)");
    // About log2(1 / 0.01) functions and a few dozen generations.
    assert!((5..=14).contains(&k), "k = {k}");
    assert!(l >= 4 && k + l <= 64, "l = {l}");

    // TIME: the span after the window, in seconds; k + 2 l + 2 slices.
    expect_ok(
        &mut c,
        &["APBF.RESERVE", "t", "TIME", "0.001", "500", "2.5"],
    );
    let info = apbf_info(&mut c, "t");
    let mut want: Vec<&str> = COUNT_FIELDS.to_vec();
    want.insert(4, "Span");
    want.extend(["Burst layers", "Burst size", "Refused adds"]);
    assert_eq!(names(&info), want);
    assert_eq!(apbf_field(&mut c, "t", "Burst layers"), 0);
    assert_eq!(apbf_field(&mut c, "t", "Burst size"), 0);
    assert_eq!(apbf_field(&mut c, "t", "Refused adds"), 0);
    assert_eq!(apbf_text(&mut c, "t", "Window"), "time");
    assert_eq!(apbf_text(&mut c, "t", "Span").parse::<f64>(), Ok(2.5));
    assert_eq!(
        apbf_text(&mut c, "t", "Error rate").parse::<f64>(),
        Ok(0.001)
    );
    let (k, l) = (
        apbf_field(&mut c, "t", "Number of hash functions"),
        apbf_field(&mut c, "t", "Generations"),
    );
    assert_eq!(apbf_field(&mut c, "t", "Slices"), k + 2 * l + 2);
    assert_eq!(apbf_field(&mut c, "t", "Number of items inserted"), 0);
    expect_int(&mut c, &["APBF.ADD", "t", "x"], 1);
    expect_int(&mut c, &["APBF.EXISTS", "t", "x"], 1);
    expect_int(&mut c, &["APBF.EXISTS", "t", "y"], 0);

    // Missing keys: lookups answer 0 and create nothing; INFO, SCANDUMP, INSERTAT: not found.
    expect_int(&mut c, &["APBF.EXISTS", "nokey", "a"], 0);
    expect_ints(&mut c, &["APBF.MEXISTS", "nokey", "a", "b"], &[0, 0]);
    expect_err(&mut c, &["APBF.INFO", "nokey"], "ERR not found");
    expect_err(&mut c, &["APBF.SCANDUMP", "nokey", "0"], "ERR not found");
    expect_err(
        &mut c,
        &["APBF.INSERTAT", "nokey", "5", "a"],
        "ERR not found",
    );
    expect_err(
        &mut c,
        &["APBF.LOADCHUNK", "nokey", "5", "x"],
        "ERR not found",
    );
    assert_eq!(raw(&mut c, &["EXISTS", "nokey"]), Value::Int(0));

    // SCANDUMP: the header at 0 (then iterator 1), data chunks, the end as [0, ""].
    let steps = scandump(&mut c, "k");
    assert!(steps.len() >= 2, "{} steps", steps.len());
    assert_eq!(steps[0].0, 1);
    assert!(steps[0].1.starts_with(b"RSAP"), "header {:?}", &steps[0].1);
    let mut at = 1i64;
    for (next, data) in &steps[1..] {
        assert!(!data.is_empty());
        assert_eq!(
            *next,
            at + data.len() as i64,
            "iterators advance by the bytes"
        );
        at = *next;
    }
    // Past the end and below 0: the end.
    for iter in [at.to_string(), (at + 1000).to_string(), "-3".to_string()] {
        assert_eq!(
            raw(&mut c, &["APBF.SCANDUMP", "k", &iter]),
            Value::Array(vec![Value::Int(0), Value::BulkString(vec![])]),
            "SCANDUMP at {iter}"
        );
    }
}

#[test]
fn resp3_replies() {
    let s = Server::start();
    let mut c = s.conn_resp3();
    expect_ok(&mut c, &["APBF.RESERVE", "k", "COUNT", "0.01", "100"]);
    assert_eq!(raw(&mut c, &["APBF.ADD", "k", "a"]), Value::Boolean(true));
    assert_eq!(raw(&mut c, &["APBF.ADD", "k", "a"]), Value::Boolean(false));
    assert_eq!(
        raw(&mut c, &["APBF.MADD", "k", "a", "b"]),
        Value::Array(vec![Value::Boolean(false), Value::Boolean(true)])
    );
    assert_eq!(
        raw(&mut c, &["APBF.EXISTS", "k", "b"]),
        Value::Boolean(true)
    );
    assert_eq!(
        raw(&mut c, &["APBF.EXISTS", "k", "z"]),
        Value::Boolean(false)
    );
    assert_eq!(
        raw(&mut c, &["APBF.MEXISTS", "k", "a", "z"]),
        Value::Array(vec![Value::Boolean(true), Value::Boolean(false)])
    );
    assert_eq!(
        raw(&mut c, &["APBF.MEXISTS", "nokey", "a"]),
        Value::Array(vec![Value::Boolean(false)])
    );
    match raw(&mut c, &["APBF.INFO", "k"]) {
        Value::Map(m) => {
            let got: Vec<String> = m.iter().map(|(n, _)| as_text(n)).collect();
            assert_eq!(got, COUNT_FIELDS);
            assert_eq!(m[0].1, Value::Int(100));
            assert_eq!(m[2].1, Value::Double(0.01));
            assert_eq!(m[3].1, Value::BulkString(b"count".to_vec()));
            // Every add counts, present items too.
            assert_eq!(m[9].1, Value::Int(4));
        }
        other => panic!("APBF.INFO in RESP3 answered {other:?}"),
    }
    expect_ok(&mut c, &["APBF.RESERVE", "t", "TIME", "0.05", "100", "0.5"]);
    let now = server_ms(&mut c).to_string();
    assert_eq!(
        raw(&mut c, &["APBF.INSERTAT", "t", &now, "a", "a"]),
        Value::Array(vec![Value::Boolean(true), Value::Boolean(false)])
    );
    match raw(&mut c, &["APBF.INFO", "t"]) {
        Value::Map(m) => {
            assert_eq!(m.len(), 15);
            assert_eq!(as_text(&m[4].0), "Span");
            assert_eq!(as_text(&m[12].0), "Burst layers");
            assert_eq!(m[4].1, Value::Double(0.5));
            assert_eq!(m[2].1, Value::Double(0.05));
        }
        other => panic!("APBF.INFO in RESP3 answered {other:?}"),
    }
    match raw(&mut c, &["APBF.SCANDUMP", "k", "0"]) {
        Value::Array(a) => {
            assert_eq!(a[0], Value::Int(1));
            assert!(as_bytes(&a[1]).starts_with(b"RSAP"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn argument_errors() {
    let s = Server::start();
    let mut c = s.conn();
    let arity = |name: &str| format!("ERR wrong number of arguments for '{name}' command");
    let rate_range = "ERR error rate must be in the range (0.000000, 1.000000)";
    let cap_range = "ERR capacity must be in the range [1, 1073741824]";
    let span = "ERR span must be a number of seconds from 0.001 to 1099511627";
    let time = "ERR time must be milliseconds since the epoch (an integer from 0)";
    let window = "ERR window must be COUNT or TIME";
    let cases: Vec<(Vec<&str>, String)> = vec![
        // The window word first, as a whole word, in any case.
        (
            vec!["APBF.RESERVE", "k", "FOO", "0.01", "100"],
            window.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "COUN", "0.01", "100"],
            window.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "TIMES", "0.01", "100", "1"],
            window.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "0.01", "100", "COUNT"],
            window.into(),
        ),
        // Arity: 5 for COUNT, 6 for TIME.
        (
            vec!["APBF.RESERVE", "k", "COUNT", "0.01"],
            arity("apbf.reserve"),
        ),
        (vec!["APBF.RESERVE", "k"], arity("apbf.reserve")),
        (
            vec!["APBF.RESERVE", "k", "TIME", "0.01", "100"],
            arity("apbf.reserve"),
        ),
        (
            vec!["APBF.RESERVE", "k", "time", "x", "100"],
            arity("apbf.reserve"),
        ),
        // BF.RESERVE's checks and texts for the rate and the capacity.
        (
            vec!["APBF.RESERVE", "k", "COUNT", "abc", "100"],
            "ERR bad error rate".into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "COUNT", "0", "100"],
            rate_range.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "COUNT", "1", "100"],
            rate_range.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "COUNT", "-0.5", "100"],
            rate_range.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "TIME", "1.5", "100", "1"],
            rate_range.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "COUNT", "0.01", "abc"],
            "ERR bad capacity".into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "COUNT", "0.01", "0"],
            cap_range.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "COUNT", "0.01", "-5"],
            cap_range.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "COUNT", "0.01", "1073741825"],
            cap_range.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "TIME", "0.01", "0", "1"],
            cap_range.into(),
        ),
        // The span: seconds from 1 ms to 2^40 ms.
        (
            vec!["APBF.RESERVE", "k", "TIME", "0.01", "100", "0"],
            span.into(),
        ),
        (
            // Half a millisecond: under the smallest span, not rounded up to it.
            vec!["APBF.RESERVE", "k", "TIME", "0.01", "100", "0.0005"],
            span.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "TIME", "0.01", "100", "-1"],
            span.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "TIME", "0.01", "100", "-0.5"],
            span.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "TIME", "0.01", "100", "abc"],
            span.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "TIME", "0.01", "100", ""],
            span.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "TIME", "0.01", "100", "0.0001"],
            span.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "TIME", "0.01", "100", "1099511628"],
            span.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "TIME", "0.01", "100", "1e300"],
            span.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "TIME", "0.01", "100", "inf"],
            span.into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "TIME", "0.01", "100", "nan"],
            span.into(),
        ),
        // A rate no shape of at most 64 slices reaches.
        (
            vec!["APBF.RESERVE", "k", "COUNT", "1e-30", "100"],
            "ERR error rate too small for a sliding window (at least 1e-9)".into(),
        ),
        // Unknown words after the arguments.
        (
            vec!["APBF.RESERVE", "k", "COUNT", "0.01", "100", "extra"],
            "ERR unknown option 'extra'".into(),
        ),
        (
            vec!["APBF.RESERVE", "k", "COUNT", "0.01", "100", "1"],
            "ERR unknown option '1'".into(),
        ),
        (
            vec![
                "APBF.RESERVE",
                "k",
                "TIME",
                "0.01",
                "100",
                "1",
                "NONSCALING",
            ],
            "ERR unknown option 'NONSCALING'".into(),
        ),
        // INSERTAT's time: an integer from 0 (checked before the key).
        (vec!["APBF.INSERTAT", "k", "-1", "a"], time.into()),
        (vec!["APBF.INSERTAT", "k", "abc", "a"], time.into()),
        (vec!["APBF.INSERTAT", "k", "1.5", "a"], time.into()),
        (vec!["APBF.INSERTAT", "k", "", "a"], time.into()),
        (
            vec!["APBF.INSERTAT", "k", "18446744073709551616", "a"],
            time.into(),
        ),
        (vec!["APBF.INSERTAT", "k", "5", "a"], "ERR not found".into()),
        // Arity of every command.
        (vec!["APBF.ADD", "k"], arity("apbf.add")),
        (vec!["APBF.ADD", "k", "a", "b"], arity("apbf.add")),
        (vec!["APBF.MADD", "k"], arity("apbf.madd")),
        (vec!["APBF.INSERTAT", "k", "5"], arity("apbf.insertat")),
        (vec!["APBF.EXISTS", "k"], arity("apbf.exists")),
        (vec!["APBF.EXISTS", "k", "a", "b"], arity("apbf.exists")),
        (vec!["APBF.MEXISTS", "k"], arity("apbf.mexists")),
        (vec!["APBF.INFO"], arity("apbf.info")),
        (vec!["APBF.INFO", "k", "Capacity"], arity("apbf.info")),
        (vec!["APBF.SCANDUMP", "k"], arity("apbf.scandump")),
        (vec!["APBF.SCANDUMP", "k", "0", "1"], arity("apbf.scandump")),
        (vec!["APBF.LOADCHUNK", "k", "1"], arity("apbf.loadchunk")),
        // LOADCHUNK on a missing key: a bad header, a chunk.
        (
            vec!["APBF.LOADCHUNK", "k", "x", "y"],
            "ERR Second argument must be numeric".into(),
        ),
        (
            vec!["APBF.LOADCHUNK", "k", "1", "junk"],
            "ERR received bad data".into(),
        ),
        (
            vec!["APBF.LOADCHUNK", "k", "1", ""],
            "ERR received bad data".into(),
        ),
        (
            vec!["APBF.LOADCHUNK", "k", "5", "junk"],
            "ERR not found".into(),
        ),
    ];
    for (args, want) in &cases {
        expect_err(&mut c, args, want);
    }
    // Nothing was created by a refused command.
    assert_eq!(raw(&mut c, &["EXISTS", "k"]), Value::Int(0));
    // Words in any case; the limits themselves are accepted.
    expect_ok(&mut c, &["APBF.RESERVE", "lo", "count", "0.01", "1"]);
    expect_ok(
        &mut c,
        &["APBF.RESERVE", "t1", "tImE", "0.01", "1", "0.001"],
    );
    expect_ok(
        &mut c,
        &["APBF.RESERVE", "t2", "TIME", "0.01", "1", "1099511627"],
    );
    expect_ok(&mut c, &["APBF.RESERVE", "t3", "TIME", "0.01", "10", "1e3"]);
    assert_eq!(apbf_text(&mut c, "t3", "Span").parse::<f64>(), Ok(1000.0));
    expect_ok(&mut c, &["APBF.RESERVE", "r9", "COUNT", "1e-9", "100"]);
    expect_ok(&mut c, &["APBF.RESERVE", "r5", "COUNT", "0.5", "100"]);
    // The limit cases of INSERTAT's time.
    expect_ints(&mut c, &["APBF.INSERTAT", "lo", "0", "a"], &[1]);
    expect_ints(
        &mut c,
        &["APBF.INSERTAT", "lo", "9223372036854775807", "a"],
        &[0],
    );
    // Existing key: SCANDUMP's and LOADCHUNK's iterator texts (as BF's).
    expect_err(
        &mut c,
        &["APBF.SCANDUMP", "lo", "x"],
        "Second argument must be numeric",
    );
    expect_err(
        &mut c,
        &["APBF.LOADCHUNK", "lo", "x", "y"],
        "ERR Second argument must be numeric",
    );
    expect_err(
        &mut c,
        &["APBF.LOADCHUNK", "lo", "0", "y"],
        "ERR received bad data",
    );

    // RESERVE on an existing key, whatever its window.
    for args in [
        &["APBF.RESERVE", "lo", "COUNT", "0.01", "1"][..],
        &["APBF.RESERVE", "lo", "TIME", "0.01", "5", "1"],
        &["APBF.RESERVE", "t1", "COUNT", "0.1", "1000"],
    ] {
        expect_err(&mut c, args, "ERR item exists");
    }
    assert_eq!(apbf_text(&mut c, "lo", "Window"), "count");
    assert_eq!(apbf_field(&mut c, "lo", "Capacity"), 1);

    // Over bf.max-filter-bytes: refused before anything is allocated, both windows, and
    // no implicit creation either.
    expect_ok(&mut c, &["CONFIG", "SET", "bf.max-filter-bytes", "100000"]);
    for args in [
        &["APBF.RESERVE", "big", "COUNT", "0.01", "100000"][..],
        &["APBF.RESERVE", "big", "TIME", "0.01", "100000", "60"],
    ] {
        let e = expect_err_prefix(&mut c, args, "ERR filter would need ");
        assert!(e.ends_with("over bf.max-filter-bytes (100000)"), "{e}");
    }
    expect_ok(&mut c, &["CONFIG", "SET", "bf.apbf-capacity", "1000000"]);
    let e = expect_err_prefix(&mut c, &["APBF.ADD", "big", "a"], "ERR filter would need ");
    assert!(e.ends_with("over bf.max-filter-bytes (100000)"), "{e}");
    let e = expect_err_prefix(
        &mut c,
        &["APBF.MADD", "big", "a", "b"],
        "ERR filter would need ",
    );
    assert!(e.ends_with("over bf.max-filter-bytes (100000)"), "{e}");
    assert_eq!(raw(&mut c, &["EXISTS", "big"]), Value::Int(0));
    // The largest capacity is refused by the default limit, not by an allocation.
    expect_ok(
        &mut c,
        &["CONFIG", "SET", "bf.max-filter-bytes", "536870912"],
    );
    let e = expect_err_prefix(
        &mut c,
        &["APBF.RESERVE", "big", "COUNT", "0.0001", "1073741824"],
        "ERR filter would need ",
    );
    assert!(e.ends_with("over bf.max-filter-bytes (536870912)"), "{e}");
    assert_eq!(raw(&mut c, &["EXISTS", "big"]), Value::Int(0));
}

#[test]
fn wrongtype_both_ways() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "bf", "0.01", "100"]);
    expect_ok(&mut c, &["CBF.RESERVE", "cbf", "0.01", "100"]);
    expect_ok(&mut c, &["SET", "str", "v"]);
    let wrong = "WRONGTYPE Operation against a key holding the wrong kind of value";
    for key in ["bf", "cbf", "str"] {
        for args in [
            &["APBF.RESERVE", key, "COUNT", "0.01", "10"][..],
            &["APBF.RESERVE", key, "TIME", "0.01", "10", "1"],
            &["APBF.ADD", key, "a"],
            &["APBF.MADD", key, "a", "b"],
            &["APBF.INSERTAT", key, "5", "a"],
            &["APBF.EXISTS", key, "a"],
            &["APBF.MEXISTS", key, "a"],
            &["APBF.INFO", key],
            &["APBF.SCANDUMP", key, "0"],
            &["APBF.LOADCHUNK", key, "1", "x"],
            &["APBF.LOADCHUNK", key, "5", "x"],
        ] {
            expect_err(&mut c, args, wrong);
        }
    }
    assert_eq!(as_text(&raw(&mut c, &["GET", "str"])), "v");
    expect_ok(&mut c, &["APBF.RESERVE", "w", "COUNT", "0.01", "100"]);
    expect_ok(&mut c, &["APBF.RESERVE", "wt", "TIME", "0.01", "100", "10"]);
    for key in ["w", "wt"] {
        for args in [
            &["BF.ADD", key, "a"][..],
            &["BF.INFO", key],
            &["BF.RESERVE", key, "0.01", "10"],
            &["CF.ADD", key, "a"],
            &["CBF.ADD", key, "a"],
            &["CBF.EXISTS", key, "a"],
            &["GET", key],
            &["LPUSH", key, "a"],
        ] {
            expect_err(&mut c, args, wrong);
        }
        assert_eq!(as_text(&raw(&mut c, &["TYPE", key])), "RSbloomAP");
        assert_eq!(apbf_field(&mut c, key, "Number of items inserted"), 0);
    }
}

#[test]
fn implicit_creation_uses_the_apbf_configs() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(config_get(&mut c, "bf.apbf-error-rate"), "0.01");
    assert_eq!(config_get(&mut c, "bf.apbf-capacity"), "1000");
    // ADD creates a COUNT window of the defaults.
    expect_int(&mut c, &["APBF.ADD", "d", "a"], 1);
    assert_eq!(apbf_text(&mut c, "d", "Window"), "count");
    assert_eq!(apbf_field(&mut c, "d", "Capacity"), 1000);
    assert_eq!(
        apbf_text(&mut c, "d", "Error rate").parse::<f64>(),
        Ok(0.01)
    );
    assert_eq!(apbf_field(&mut c, "d", "Number of items inserted"), 1);
    // The same shape as an explicit reservation of the defaults.
    expect_ok(&mut c, &["APBF.RESERVE", "r", "COUNT", "0.01", "1000"]);
    for f in ["Size", "Number of hash functions", "Generations", "Slices"] {
        assert_eq!(
            apbf_field(&mut c, "d", f),
            apbf_field(&mut c, "r", f),
            "{f}"
        );
    }
    expect_ok(&mut c, &["CONFIG", "SET", "bf.apbf-error-rate", "0.001"]);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.apbf-capacity", "50"]);
    assert_eq!(config_get(&mut c, "bf.apbf-error-rate"), "0.001");
    assert_eq!(config_get(&mut c, "bf.apbf-capacity"), "50");
    for (name, bad) in [
        ("bf.apbf-error-rate", "1"),
        ("bf.apbf-error-rate", "0"),
        ("bf.apbf-error-rate", "-0.1"),
        ("bf.apbf-error-rate", "abc"),
        ("bf.apbf-capacity", "0"),
        ("bf.apbf-capacity", "-1"),
        ("bf.apbf-capacity", "1073741825"),
        ("bf.apbf-capacity", "abc"),
    ] {
        let v = raw(&mut c, &["CONFIG", "SET", name, bad]);
        assert!(err_of(&v).is_some(), "{name} {bad}: {v:?}");
    }
    assert_eq!(config_get(&mut c, "bf.apbf-error-rate"), "0.001");
    assert_eq!(config_get(&mut c, "bf.apbf-capacity"), "50");
    expect_ints(&mut c, &["APBF.MADD", "m", "a", "b", "a"], &[1, 1, 0]);
    assert_eq!(apbf_field(&mut c, "m", "Capacity"), 50);
    assert_eq!(
        apbf_text(&mut c, "m", "Error rate").parse::<f64>(),
        Ok(0.001)
    );
    assert_eq!(apbf_field(&mut c, "m", "Number of items inserted"), 3);
    // Existing keys keep their own parameters.
    expect_int(&mut c, &["APBF.ADD", "d", "b"], 1);
    assert_eq!(apbf_field(&mut c, "d", "Capacity"), 1000);
    // INSERTAT never creates.
    expect_err(&mut c, &["APBF.INSERTAT", "n", "5", "a"], "ERR not found");
    // Load arguments.
    let s2 = Server::start_with(ServerOpts::module_args(&[
        "apbf-error-rate",
        "0.05",
        "apbf-capacity",
        "7",
    ]));
    let mut c2 = s2.conn();
    assert_eq!(config_get(&mut c2, "bf.apbf-error-rate"), "0.05");
    assert_eq!(config_get(&mut c2, "bf.apbf-capacity"), "7");
    expect_int(&mut c2, &["APBF.ADD", "d", "a"], 1);
    assert_eq!(apbf_field(&mut c2, "d", "Capacity"), 7);
    assert_eq!(
        apbf_text(&mut c2, "d", "Error rate").parse::<f64>(),
        Ok(0.05)
    );
    // A bad load argument stops the server from loading the module.
    let refused = Server::try_start(ServerOpts::module_args(&["apbf-capacity", "0"]));
    assert!(refused.is_err(), "apbf-capacity 0 was accepted at load");
}

/// MEMORY USAGE reports APBF.INFO's Size (plus the key's own overhead), Size grows with the
/// capacity, and INFO bf_apbf counts keys, items and memory.
#[test]
fn memory_usage_and_info_section() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["APBF.RESERVE", "small", "COUNT", "0.01", "1000"]);
    expect_ok(
        &mut c,
        &["APBF.RESERVE", "large", "COUNT", "0.01", "100000"],
    );
    expect_ok(
        &mut c,
        &["APBF.RESERVE", "time", "TIME", "0.01", "100000", "60"],
    );
    for key in ["small", "large", "time"] {
        let size = apbf_field(&mut c, key, "Size");
        let usage = memory_usage(&mut c, key);
        assert!(
            usage >= size && usage <= size + 256,
            "{key}: MEMORY USAGE {usage}, Size {size}"
        );
    }
    let (small, large) = (
        apbf_field(&mut c, "small", "Size"),
        apbf_field(&mut c, "large", "Size"),
    );
    // The words grow with the capacity: from 1,000 to 100,000 items, about 11 times what
    // they grow from 1,000 to 10,000 (the fixed part, the same in every window, cancels).
    expect_ok(&mut c, &["APBF.RESERVE", "mid", "COUNT", "0.01", "10000"]);
    let mid = apbf_field(&mut c, "mid", "Size");
    raw(&mut c, &["DEL", "mid"]);
    let ratio = (large - small) as f64 / (mid - small) as f64;
    assert!((9.0..13.0).contains(&ratio), "{small} {mid} {large}");
    // A few bytes per item: at 1 %, between 1 and 8 bytes per window item.
    assert!(large > 100_000 && large < 800_000, "{large}");
    // A TIME window has more slices (k + 2 l + 2), so more memory for the same capacity.
    assert!(apbf_field(&mut c, "time", "Size") > large);

    multi(&mut c, "APBF.MADD", "small", &gen_items("s:", 0..300));
    let now = server_ms(&mut c);
    insert_at(&mut c, "time", now, &gen_items("t:", 0..20));
    let field = |c: &mut Connection, n: &str| {
        info_field(c, "bf_apbf", &format!("bf_apbf_{n}")).unwrap_or_else(|| panic!("no {n}"))
    };
    assert_eq!(field(&mut c, "keys"), "3");
    assert_eq!(field(&mut c, "items"), "320");
    let mem: i64 = field(&mut c, "memory_bytes").parse().unwrap();
    let sizes: i64 = ["small", "large", "time"]
        .iter()
        .map(|k| apbf_field(&mut c, k, "Size"))
        .sum();
    assert_eq!(mem, sizes);
    raw(&mut c, &["DEL", "small"]);
    assert_eq!(field(&mut c, "keys"), "2");
    assert_eq!(field(&mut c, "items"), "20");
}

fn next_event(ps: &mut redis::PubSub<'_>) -> (String, String) {
    let msg: Msg = ps.get_message().expect("a keyspace event");
    (
        msg.get_channel_name().to_string(),
        msg.get_payload().expect("text"),
    )
}

/// Every write emits one event named after its command (as RedisBloom names them, the
/// command's name in lower case); reads and refused writes emit none.
#[test]
fn keyspace_events() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["CONFIG", "SET", "notify-keyspace-events", "KEA"]);
    let mut sub = s.conn();
    let mut ps = sub.as_pubsub();
    ps.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    ps.subscribe("__keyspace@0__:k").unwrap();
    let header = {
        let mut tmp = s.conn();
        expect_ok(
            &mut tmp,
            &["APBF.RESERVE", "src", "TIME", "0.01", "10", "5"],
        );
        match raw(&mut tmp, &["APBF.SCANDUMP", "src", "0"]) {
            Value::Array(a) => as_bytes(&a[1]),
            other => panic!("{other:?}"),
        }
    };
    let steps: Vec<(Vec<&[u8]>, Option<&str>)> = vec![
        (
            vec![b"APBF.RESERVE", b"k", b"COUNT", b"0.01", b"100"],
            Some("apbf.reserve"),
        ),
        (vec![b"APBF.RESERVE", b"k", b"COUNT", b"0.01", b"100"], None),
        (vec![b"APBF.ADD", b"k", b"a"], Some("apbf.add")),
        // An add of a present item still writes (its age starts again).
        (vec![b"APBF.ADD", b"k", b"a"], Some("apbf.add")),
        (vec![b"APBF.MADD", b"k", b"a", b"b"], Some("apbf.madd")),
        (
            vec![b"APBF.INSERTAT", b"k", b"7", b"c"],
            Some("apbf.insertat"),
        ),
        (vec![b"APBF.INSERTAT", b"k", b"-7", b"c"], None),
        (vec![b"APBF.EXISTS", b"k", b"a"], None),
        (vec![b"APBF.MEXISTS", b"k", b"a", b"z"], None),
        (vec![b"APBF.INFO", b"k"], None),
        (vec![b"APBF.SCANDUMP", b"k", b"0"], None),
        (vec![b"DEL", b"k"], Some("del")),
        // Implicit creation: one event, the command's.
        (vec![b"APBF.MADD", b"k", b"x"], Some("apbf.madd")),
        (vec![b"DEL", b"k"], Some("del")),
        (vec![b"APBF.ADD", b"k", b"x"], Some("apbf.add")),
        (vec![b"DEL", b"k"], Some("del")),
        (vec![b"APBF.LOADCHUNK", b"k", b"1", b"junk"], None),
        (
            vec![b"APBF.LOADCHUNK", b"k", b"1", &header],
            Some("apbf.loadchunk"),
        ),
        // A data chunk: one byte at offset 0 (iterator 2); at iterator 1 it would start
        // before the data, refused.
        (vec![b"APBF.LOADCHUNK", b"k", b"1", b"\x00"], None),
        (
            vec![b"APBF.LOADCHUNK", b"k", b"2", b"\x00"],
            Some("apbf.loadchunk"),
        ),
    ];
    for (args, event) in steps {
        raw(&mut c, &args);
        if let Some(event) = event {
            assert_eq!(
                next_event(&mut ps),
                ("__keyspace@0__:k".to_string(), event.to_string()),
                "after {}",
                show_args(&args)
            );
        }
    }
    // Nothing was left unread: the next event is the next write's.
    raw(&mut c, &["APBF.ADD", "k", "z"]);
    assert_eq!(next_event(&mut ps).1, "apbf.add");
}

#[test]
fn command_info_and_docs() {
    let s = Server::start();
    let mut c = s.conn();
    let rows: [(&str, i64, &[&str], &str); 9] = [
        ("apbf.reserve", -5, &["write", "denyoom"], "RW"),
        ("apbf.add", 3, &["write", "denyoom"], "RW"),
        ("apbf.madd", -3, &["write", "denyoom"], "RW"),
        ("apbf.insertat", -4, &["write", "denyoom"], "RW"),
        ("apbf.exists", 3, &["readonly", "fast"], "RO"),
        ("apbf.mexists", -3, &["readonly", "fast"], "RO"),
        ("apbf.info", 2, &["readonly", "fast"], "RO"),
        ("apbf.scandump", 3, &["readonly"], "RO"),
        // A keyed window's header holds its secret: kept out of MONITOR and SLOWLOG.
        (
            "apbf.loadchunk",
            4,
            &["write", "denyoom", "skip_monitor", "skip_slowlog"],
            "RW",
        ),
    ];
    for (name, arity, flags, key) in rows {
        let reply = raw(&mut c, &["COMMAND", "INFO", name]);
        let Value::Array(entries) = &reply else {
            panic!("{reply:?}")
        };
        let Value::Array(info) = &entries[0] else {
            panic!("{name}: {reply:?}")
        };
        assert_eq!(info[1], Value::Int(arity), "{name}");
        let got: Vec<String> = match &info[2] {
            Value::Array(f) | Value::Set(f) => {
                f.iter().map(|v| redis_flag_name(as_text(v))).collect()
            }
            other => panic!("{other:?}"),
        };
        for f in flags.iter().chain(&["module"]) {
            assert!(got.contains(&f.to_string()), "{name}: flags {got:?}");
        }
        assert_eq!(got.len(), flags.len() + 1, "{name}: flags {got:?}");
        // First key 1, last key 1, step 1.
        assert_eq!(
            &info[3..6],
            &[Value::Int(1), Value::Int(1), Value::Int(1)],
            "{name}"
        );
        assert!(
            format!("{:?}", info[8]).contains(key),
            "{name}: key specs {:?}",
            info[8]
        );
        let docs = format!("{:?}", raw(&mut c, &["COMMAND", "DOCS", name]));
        assert!(
            docs.contains("summary") && docs.contains("arguments") && docs.contains("key"),
            "{name}: {docs}"
        );
    }
    let docs = format!("{:?}", raw(&mut c, &["COMMAND", "DOCS", "apbf.reserve"]));
    for word in ["window", "error_rate", "capacity", "span"] {
        assert!(docs.contains(word), "APBF.RESERVE docs lack {word}: {docs}");
    }
    let docs = format!("{:?}", raw(&mut c, &["COMMAND", "DOCS", "apbf.insertat"]));
    assert!(docs.contains("milliseconds"), "{docs}");
    assert_eq!(
        raw(&mut c, &["COMMAND", "GETKEYS", "APBF.MADD", "k", "a", "b"]),
        Value::Array(vec![Value::BulkString(b"k".to_vec())])
    );
    assert_eq!(
        raw(
            &mut c,
            &["COMMAND", "GETKEYS", "APBF.INSERTAT", "k", "5", "a"]
        ),
        Value::Array(vec![Value::BulkString(b"k".to_vec())])
    );
}
