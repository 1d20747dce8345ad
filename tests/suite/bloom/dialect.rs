//! Which dialect answers, key by key, in one keyspace holding every kind of key: a filter's
//! type decides (`RSbloom--` and `MBbloom--` rsbloom's, RedisBloom's replies; `bloomfltr`
//! valkey-bloom's), whatever `bf.new-filter-format` says; a missing key or a key of another
//! type gets the dialect of the format, but BF.INSERT and BF.RESERVE keep rsbloom's grammar
//! on another type. Told apart by what differs: RESP3 booleans or integers, INFO's map or
//! array, each dialect's error texts.

use rsbloom_test_support as common;

use common::*;
use redis::{Connection, Value};

/// A bloomfltr made without `bf.new-filter-format valkey`: SEED is valkey-bloom's only.
const SEED: &str = "abcdefghijklmnopqrstuvwxyz012345";

fn key_type(c: &mut Connection, key: &str) -> String {
    as_text(&raw(c, &["TYPE", key]))
}

fn set_format(c: &mut Connection, format: &str) {
    expect_ok(c, &["CONFIG", "SET", "bf.new-filter-format", format]);
}

/// The answers that are each filter's own, whatever the format.
fn filters_answer_in_their_dialect(c: &mut Connection) {
    for key in ["r", "m"] {
        assert_eq!(
            raw(c, &["BF.EXISTS", key, "a"]),
            Value::Boolean(true),
            "{key}"
        );
        assert_eq!(
            raw(c, &["BF.MEXISTS", key, "a", "zz"]),
            Value::Array(vec![Value::Boolean(true), Value::Boolean(false)]),
            "{key}"
        );
        assert!(matches!(raw(c, &["BF.INFO", key]), Value::Map(_)), "{key}");
        expect_err(
            c,
            &["BF.INSERT", key, "FOO", "ITEMS", "a"],
            "Unknown argument received",
        );
    }
    assert_eq!(raw(c, &["BF.EXISTS", "v", "a"]), Value::Int(1));
    assert_eq!(
        raw(c, &["BF.MEXISTS", "v", "a", "zz"]),
        Value::Array(vec![Value::Int(1), Value::Int(0)])
    );
    assert!(matches!(raw(c, &["BF.INFO", "v"]), Value::Array(_)));
    expect_err(
        c,
        &["BF.INSERT", "v", "FOO", "ITEMS", "a"],
        "ERR unknown argument received",
    );
    // valkey-bloom's RESERVE refuses a fourth word it does not know with its bare ERROR.
    expect_err(c, &["BF.RESERVE", "v", "0.01", "100", "FOO"], "ERROR");
    let own = expect_err_prefix(c, &["BF.RESERVE", "r", "0.01", "100", "FOO"], "ERR");
    assert_ne!(own, "ERROR");
    assert_eq!(raw(c, &["BF.ADD", "v", "b"]), Value::Int(1));
    assert_eq!(raw(c, &["BF.ADD", "r", "b"]), Value::Boolean(true));
    expect_int(c, &["BF.CARD", "v"], 2);
    expect_int(c, &["BF.CARD", "r"], 2);
    // Another type is WRONGTYPE to every write, in either dialect.
    expect_err_prefix(c, &["BF.ADD", "s", "a"], "WRONGTYPE");
    expect_err_prefix(c, &["BF.CARD", "s"], "WRONGTYPE");
    expect_err_prefix(c, &["BF.INFO", "s"], "WRONGTYPE");
    // ... after rsbloom's grammar on BF.INSERT, whatever the format.
    expect_err(
        c,
        &["BF.INSERT", "s", "FOO", "ITEMS", "a"],
        "Unknown argument received",
    );
    expect_err_prefix(c, &["BF.INSERT", "s", "ITEMS", "a"], "WRONGTYPE");
    expect_int(c, &["DEL", "r", "v"], 2);
}

#[test]
fn each_filter_answers_in_its_types_dialect_and_other_keys_in_the_formats() {
    let mut server = Server::start();
    let mut c = server.conn_resp3();
    expect_ints(
        &mut c,
        &["BF.INSERT", "v", "SEED", SEED, "ITEMS", "a"],
        &[1],
    );
    assert_eq!(key_type(&mut c, "v"), "bloomfltr");
    assert_eq!(raw(&mut c, &["BF.ADD", "r", "a"]), Value::Boolean(true));
    assert_eq!(key_type(&mut c, "r"), "RSbloom--");
    set_format(&mut c, "redisbloom");
    assert_eq!(raw(&mut c, &["BF.ADD", "m", "a"]), Value::Boolean(true));
    assert_eq!(key_type(&mut c, "m"), "MBbloom--");
    expect_ok(&mut c, &["SET", "s", "x"]);

    for format in ["guava", "valkey"] {
        set_format(&mut c, format);
        // Fresh filters each round (the round ends deleting r and v).
        if format == "valkey" {
            expect_ints(
                &mut c,
                &["BF.INSERT", "v", "SEED", SEED, "ITEMS", "a"],
                &[1],
            );
            expect_ok(&mut c, &["BF.RESERVE", "r", "0.01", "100", "KEYED"]);
            assert_eq!(raw(&mut c, &["BF.ADD", "r", "a"]), Value::Boolean(true));
            assert_eq!(key_type(&mut c, "r"), "RSbloom--");
        }
        filters_answer_in_their_dialect(&mut c);
    }

    // The valkey format: keys without a filter get valkey-bloom's answers.
    assert_eq!(raw(&mut c, &["BF.EXISTS", "nokey", "a"]), Value::Int(0));
    assert_eq!(
        raw(&mut c, &["BF.MEXISTS", "nokey", "a"]),
        Value::Array(vec![Value::Int(0)])
    );
    expect_err_prefix(&mut c, &["BF.EXISTS", "s", "a"], "WRONGTYPE");
    expect_err_prefix(&mut c, &["BF.MEXISTS", "s", "a"], "WRONGTYPE");
    expect_int(&mut c, &["BF.CARD", "nokey"], 0);
    expect_err(&mut c, &["BF.INFO", "nokey"], "ERR not found");
    expect_err(
        &mut c,
        &["BF.RESERVE", "nokey", "0.01", "100", "FOO"],
        "ERROR",
    );
    assert_eq!(raw(&mut c, &["BF.ADD", "n", "a"]), Value::Int(1));
    assert_eq!(key_type(&mut c, "n"), "bloomfltr");
    // ... and rsbloom's options make rsbloom's filters.
    assert_eq!(
        raw(&mut c, &["BF.INSERT", "nb", "BLOCKED", "ITEMS", "a"]),
        Value::Array(vec![Value::Boolean(true)])
    );
    assert_eq!(key_type(&mut c, "nb"), "RSbloom--");

    // rsbloom's format: RedisBloom's answers.
    set_format(&mut c, "guava");
    assert_eq!(
        raw(&mut c, &["BF.EXISTS", "nokey", "a"]),
        Value::Boolean(false)
    );
    assert_eq!(raw(&mut c, &["BF.EXISTS", "s", "a"]), Value::Boolean(false));
    assert_eq!(
        raw(&mut c, &["BF.MEXISTS", "s", "a"]),
        Value::Array(vec![Value::Boolean(false)])
    );
    expect_int(&mut c, &["BF.CARD", "nokey"], 0);
    expect_err(&mut c, &["BF.INFO", "nokey"], "ERR not found");
    let own = expect_err_prefix(
        &mut c,
        &["BF.RESERVE", "nokey", "0.01", "100", "FOO"],
        "ERR",
    );
    assert_ne!(own, "ERROR");
    assert_eq!(raw(&mut c, &["BF.ADD", "o", "a"]), Value::Boolean(true));
    assert_eq!(key_type(&mut c, "o"), "RSbloom--");
    server.assert_alive();
}
