//! Reply types under RESP3: booleans for ADD/EXISTS and their arrays, maps for INFO.

use rsbloom_test_support as common;

use common::guava_model::Chain;
use common::*;
use redis::Value;

fn bools(v: &Value) -> Vec<bool> {
    match v {
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::Boolean(b) => *b,
                other => panic!("expected a boolean element, got {other:?} in {v:?}"),
            })
            .collect(),
        other => panic!("expected an array of booleans, got {other:?}"),
    }
}

/// The text of a map key (RESP3 maps may use simple or bulk strings for names).
fn key_text(v: &Value) -> String {
    match v {
        Value::SimpleString(s) => s.clone(),
        Value::BulkString(b) => String::from_utf8(b.clone()).expect("utf-8"),
        other => panic!("map key is not a string: {other:?}"),
    }
}

fn info_map(c: &mut redis::Connection, args: &[&str]) -> Vec<(String, Value)> {
    match raw(c, args) {
        Value::Map(pairs) => pairs.into_iter().map(|(k, v)| (key_text(&k), v)).collect(),
        other => panic!("`{}` answered {other:?}, expected a map", args.join(" ")),
    }
}

fn check_replies(c: &mut redis::Connection) {
    expect_ok(c, &["BF.RESERVE", "k", "0.01", "100"]);
    assert_eq!(raw(c, &["BF.ADD", "k", "a"]), Value::Boolean(true));
    assert_eq!(raw(c, &["BF.ADD", "k", "a"]), Value::Boolean(false));
    assert_eq!(raw(c, &["BF.EXISTS", "k", "a"]), Value::Boolean(true));
    let chain = {
        let mut ch = Chain::scaling(0.01, 100, 2);
        ch.add(b"a");
        ch
    };
    assert!(!chain.contains(b"b") && !chain.contains(b"c"), "test setup");
    assert_eq!(
        raw(c, &["BF.EXISTS", "k", "b"]),
        Value::Boolean(chain.contains(b"b"))
    );
    assert_eq!(
        raw(c, &["BF.EXISTS", "missing", "a"]),
        Value::Boolean(false)
    );
    assert_eq!(bools(&raw(c, &["BF.MADD", "k", "a", "b"])), [false, true]);
    assert_eq!(bools(&raw(c, &["BF.MEXISTS", "k", "a", "b"])), [true, true]);
    assert_eq!(bools(&raw(c, &["BF.MEXISTS", "missing", "a"])), [false]);
    assert_eq!(
        bools(&raw(c, &["BF.INSERT", "k", "ITEMS", "b", "c"])),
        [false, true]
    );
    assert_eq!(raw(c, &["BF.CARD", "k"]), Value::Int(3));

    let info = info_map(c, &["BF.INFO", "k"]);
    let names: Vec<&str> = info.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "Capacity",
            "Size",
            "Number of filters",
            "Number of items inserted",
            "Expansion rate"
        ]
    );
    assert_eq!(info[0].1, Value::Int(100));
    assert!(matches!(info[1].1, Value::Int(n) if n > 0), "{info:?}");
    assert_eq!(info[2].1, Value::Int(1));
    assert_eq!(info[3].1, Value::Int(3));
    assert_eq!(info[4].1, Value::Int(2));
    for (field, name) in [
        ("CAPACITY", "Capacity"),
        ("size", "Size"),
        ("FILTERS", "Number of filters"),
        ("Items", "Number of items inserted"),
        ("EXPANSION", "Expansion rate"),
    ] {
        let one = info_map(c, &["BF.INFO", "k", field]);
        let want = info.iter().find(|(n, _)| n == name).expect("field");
        assert_eq!(one, vec![want.clone()], "BF.INFO k {field}");
    }

    expect_ok(c, &["BF.RESERVE", "ns", "0.01", "2", "NONSCALING"]);
    assert_eq!(
        info_map(c, &["BF.INFO", "ns", "EXPANSION"]),
        vec![("Expansion rate".to_string(), Value::Nil)]
    );
    let full = info_map(c, &["BF.INFO", "ns"]);
    assert_eq!(full[4], ("Expansion rate".to_string(), Value::Nil));

    // A full non-scaling filter: the error is an element and the array stops there.
    let mut ns = Chain::nonscaling(0.01, 2);
    let items = gen_items("r3:", 0..50);
    let mut sent = Vec::new();
    let mut want = Vec::new();
    for i in &items {
        sent.push(i.clone());
        match ns.add(i) {
            common::guava_model::Added::Yes => want.push(Some(true)),
            common::guava_model::Added::Present => want.push(Some(false)),
            common::guava_model::Added::Full => {
                want.push(None);
                break;
            }
        }
    }
    sent.push(b"never-reached".to_vec());
    let mut args: Vec<&[u8]> = vec![b"BF.MADD", b"ns"];
    args.extend(sent.iter().map(|v| v.as_slice()));
    match raw(c, &args) {
        Value::Array(got) => {
            assert_eq!(got.len(), want.len(), "{got:?}");
            for (g, w) in got.iter().zip(&want) {
                match w {
                    Some(b) => assert_eq!(g, &Value::Boolean(*b)),
                    None => {
                        assert_eq!(err_of(g).as_deref(), Some("ERR non scaling filter is full"))
                    }
                }
            }
        }
        other => panic!("BF.MADD on a filling filter answered {other:?}"),
    }

    // Other replies keep their types.
    match raw(c, &["BF.SCANDUMP", "k", "0"]) {
        Value::Array(v) => {
            assert_eq!(v[0], Value::Int(1));
            assert!(matches!(v[1], Value::BulkString(_)));
        }
        other => panic!("BF.SCANDUMP answered {other:?}"),
    }
    assert_eq!(bf_debug(c, "k").len(), 2);
    expect_err(c, &["BF.INFO", "k", "FOO"], "Invalid information value");
}

#[test]
fn replies_with_protocol_resp3() {
    let s = Server::start();
    let mut c = s.conn_resp3();
    check_replies(&mut c);
}

#[test]
fn replies_after_hello_3() {
    let s = Server::start();
    let mut c = s.conn();
    match raw(&mut c, &["HELLO", "3"]) {
        Value::Map(_) => {}
        other => panic!("HELLO 3 answered {other:?}"),
    }
    check_replies(&mut c);
    // Back to RESP2: integers and flat arrays again.
    assert!(matches!(raw(&mut c, &["HELLO", "2"]), Value::Array(_)));
    expect_int(&mut c, &["BF.ADD", "k", "zzz"], 1);
    expect_int(&mut c, &["BF.EXISTS", "k", "zzz"], 1);
    assert!(matches!(raw(&mut c, &["BF.INFO", "k"]), Value::Array(_)));
}
