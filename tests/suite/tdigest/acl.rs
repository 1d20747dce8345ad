//! TDIGEST.MERGE's key specs: the destination (argument 1) and the sources counted by
//! numkeys (read-only), so COMMAND GETKEYS lists every source and ACL key permissions cover
//! them (RedisBloom declares only the destination). And the keyspace events of the writes.

use rsbloom_test_support as common;

use common::*;
use redis::Value;

#[test]
fn merge_declares_its_sources() {
    let s = Server::start();
    let mut c = s.conn();
    let keys = raw(
        &mut c,
        &[
            "COMMAND",
            "GETKEYS",
            "TDIGEST.MERGE",
            "d",
            "2",
            "s1",
            "s2",
            "COMPRESSION",
            "5",
        ],
    );
    let names: Vec<String> = match keys {
        Value::Array(items) => items.iter().map(as_text).collect(),
        other => panic!("{other:?}"),
    };
    assert_eq!(names, vec!["d", "s1", "s2"]);

    expect_ok(&mut c, &["TDIGEST.CREATE", "src:a"]);
    expect_ok(&mut c, &["TDIGEST.ADD", "src:a", "1", "2", "3"]);
    expect_ok(&mut c, &["TDIGEST.CREATE", "secret"]);
    expect_ok(&mut c, &["TDIGEST.ADD", "secret", "42"]);
    // Reads src:*, writes dst:* only.
    expect_ok(
        &mut c,
        &[
            "ACL",
            "SETUSER",
            "merger",
            "on",
            ">pw",
            "+@all",
            "%R~src:*",
            "%RW~dst:*",
        ],
    );
    let mut u = s.conn();
    expect_ok(&mut u, &["AUTH", "merger", "pw"]);
    expect_ok(&mut u, &["TDIGEST.MERGE", "dst:1", "1", "src:a"]);
    let v = raw(&mut u, &["TDIGEST.MERGE", "dst:2", "2", "src:a", "secret"]);
    let e = err_of(&v).unwrap_or_else(|| panic!("merge of an unreadable key ran: {v:?}"));
    assert!(e.starts_with("NOPERM"), "{e}");
    assert!(!hostile::key_exists(&mut c, "dst:2"));
    let v = raw(&mut u, &["TDIGEST.MERGE", "src:b", "1", "src:a"]);
    assert!(err_of(&v).is_some_and(|e| e.starts_with("NOPERM")), "{v:?}");
    let v = raw(&mut u, &["TDIGEST.ADD", "src:a", "4"]);
    assert!(err_of(&v).is_some_and(|e| e.starts_with("NOPERM")), "{v:?}");
}

#[test]
fn writes_emit_keyspace_events() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["CONFIG", "SET", "notify-keyspace-events", "KEg"]);
    let client = redis::Client::open(s.url()).expect("client");
    let mut sub = client.get_connection().expect("connection");
    let mut pubsub = sub.as_pubsub();
    pubsub.psubscribe("__keyspace@0__:*").expect("psubscribe");
    pubsub
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .expect("timeout");
    expect_ok(&mut c, &["TDIGEST.CREATE", "t"]);
    expect_ok(&mut c, &["TDIGEST.ADD", "t", "1"]);
    expect_ok(&mut c, &["TDIGEST.RESET", "t"]);
    expect_ok(&mut c, &["TDIGEST.MERGE", "m", "1", "t"]);
    let _ = raw(&mut c, &["TDIGEST.QUANTILE", "t", "0.5"]);
    expect_ok(&mut c, &["TDIGEST.ADD", "t", "2"]);
    let mut got = Vec::new();
    for _ in 0..5 {
        let msg = pubsub.get_message().expect("event");
        let payload: String = msg.get_payload().expect("payload");
        got.push(format!("{} {payload}", msg.get_channel_name()));
    }
    assert_eq!(
        got,
        vec![
            "__keyspace@0__:t tdigest.create",
            "__keyspace@0__:t tdigest.add",
            "__keyspace@0__:t tdigest.reset",
            "__keyspace@0__:m tdigest.merge",
            "__keyspace@0__:t tdigest.add",
        ]
    );
}

/// TDIGEST.MERGE stores a new value at the destination, as RedisBloom's does: an existing
/// destination's TTL goes with it, and the family's memory counter follows the new size.
#[test]
fn merge_replaces_the_destination() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["TDIGEST.CREATE", "src", "COMPRESSION", "10"]);
    expect_ok(&mut c, &["TDIGEST.ADD", "src", "1", "2", "3"]);
    expect_ok(&mut c, &["TDIGEST.CREATE", "dst", "COMPRESSION", "500"]);
    expect_int(&mut c, &["EXPIRE", "dst", "1000"], 1);
    expect_ok(&mut c, &["TDIGEST.MERGE", "dst", "1", "src", "OVERRIDE"]);
    expect_int(&mut c, &["TTL", "dst"], -1);
    let info = raw(&mut c, &["TDIGEST.INFO", "dst"]);
    let Value::Array(items) = info else {
        panic!("{info:?}")
    };
    assert_eq!(as_int(&items[1]), 10, "the sources' compression");
    assert_eq!(as_int(&items[13]), 3, "observations");
    let memory = info_field(&mut c, "bf_tdigest", "bf_tdigest_memory_bytes");
    assert_eq!(
        memory,
        Some((2 * (80 + 16 * 70)).to_string()),
        "memory of src and dst"
    );
    assert_eq!(
        info_field(&mut c, "bf_tdigest", "bf_tdigest_items"),
        Some("6".into()),
        "observations of src and dst"
    );
}
