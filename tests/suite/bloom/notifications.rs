//! Keyspace notifications: every write that changed data emits one event named after its
//! command (`bf.reserve`, `bf.add`, `bf.madd`, `bf.insert`, `bf.loadchunk`) in the generic
//! class; writes that changed nothing and reads emit nothing.
//!
//! "Nothing was emitted" is checked by order: after the silent commands comes a command
//! whose event is known, and it must be the very next message. Every read has a timeout,
//! so a missing event fails the test instead of hanging it.

use rsbloom_test_support as common;

use std::time::Duration;

use common::hostile::config_set;
use common::*;
use redis::{Connection, Msg};

const EVENTS: [&str; 5] = [
    "bf.reserve",
    "bf.add",
    "bf.madd",
    "bf.insert",
    "bf.loadchunk",
];
const TIMEOUT: Duration = Duration::from_secs(5);

/// Reads the next message as (channel, payload), failing after [`TIMEOUT`].
fn next(ps: &mut redis::PubSub<'_>, waiting_for: &str) -> (String, String) {
    let msg: Msg = ps
        .get_message()
        .unwrap_or_else(|e| panic!("no message while waiting for {waiting_for}: {e}"));
    let payload: String = msg.get_payload().expect("text payload");
    (msg.get_channel_name().to_string(), payload)
}

/// The next messages must be the keyspace event `event` on `key` and, when `keyevent`, the
/// keyevent message naming `key` (Redis sends the keyspace one first).
fn expect_event(ps: &mut redis::PubSub<'_>, key: &str, event: &str, keyevent: bool, after: &str) {
    let got = next(ps, &format!("{event} after {after}"));
    assert_eq!(
        got,
        (format!("__keyspace@0__:{key}"), event.to_string()),
        "after {after}"
    );
    if keyevent {
        let got = next(ps, &format!("keyevent {event} after {after}"));
        assert_eq!(
            got,
            (format!("__keyevent@0__:{event}"), key.to_string()),
            "after {after}"
        );
    }
}

fn run(c: &mut Connection, args: &[&[u8]]) -> redis::Value {
    let v = raw(c, args);
    assert!(err_of(&v).is_none(), "`{}` answered {v:?}", show_args(args));
    v
}

/// The whole scenario on key `k`; `keyevent` says whether keyevent messages are expected too.
fn scenario(s: &Server, flags: &str, keyevent: bool) {
    let mut c = s.conn();
    config_set(&mut c, "notify-keyspace-events", flags);
    let mut sub = s.conn();
    let mut ps = sub.as_pubsub();
    ps.set_read_timeout(Some(TIMEOUT)).expect("timeout");
    ps.subscribe("__keyspace@0__:k").expect("subscribe");
    for e in EVENTS {
        ps.subscribe(format!("__keyevent@0__:{e}"))
            .expect("subscribe");
    }
    let ev = |ps: &mut redis::PubSub<'_>, event: &str, after: &str| {
        expect_event(ps, "k", event, keyevent, after)
    };

    run(&mut c, &[b"BF.RESERVE", b"k", b"0.01", b"100"]);
    ev(&mut ps, "bf.reserve", "RESERVE");
    // Refused: the key exists.
    assert!(err_of(&raw(&mut c, &["BF.RESERVE", "k", "0.01", "100"])).is_some());
    run(&mut c, &[b"BF.ADD", b"k", b"a"]);
    ev(&mut ps, "bf.add", "ADD a (new)");
    run(&mut c, &[b"BF.ADD", b"k", b"a"]); // answers 0: nothing changed
    run(&mut c, &[b"BF.MADD", b"k", b"a", b"b"]);
    ev(
        &mut ps,
        "bf.madd",
        "a refused RESERVE, ADD a (answered 0), MADD a b",
    );
    run(&mut c, &[b"BF.MADD", b"k", b"a", b"b"]); // all 0
    run(&mut c, &[b"BF.INSERT", b"k", b"ITEMS", b"c"]);
    ev(&mut ps, "bf.insert", "MADD a b (all 0), INSERT c");
    run(&mut c, &[b"BF.INSERT", b"k", b"ITEMS", b"c", b"a"]); // all 0
                                                              // Reads.
    run(&mut c, &[b"BF.EXISTS", b"k", b"a"]);
    run(&mut c, &[b"BF.MEXISTS", b"k", b"a", b"zz"]);
    run(&mut c, &[b"BF.CARD", b"k"]);
    run(&mut c, &[b"BF.INFO", b"k"]);
    run(&mut c, &[b"BF.INFO", b"k", b"ITEMS"]);
    run(&mut c, &[b"BF.DEBUG", b"k"]);
    let chunks = scandump(&mut c, "k");
    // Reads of a missing key, and refused writes.
    run(&mut c, &[b"BF.EXISTS", b"missing", b"a"]);
    assert!(err_of(&raw(&mut c, &["BF.INSERT", "k", "ITEMS"])).is_some());
    assert!(err_of(&raw(&mut c, &["BF.LOADCHUNK", "k", "1", "junk"])).is_some());
    assert!(err_of(&raw(&mut c, &["BF.LOADCHUNK", "k", "0", "junk"])).is_some());
    run(&mut c, &[b"BF.ADD", b"k", b"d"]);
    ev(
        &mut ps,
        "bf.add",
        "INSERT (all 0), reads, refused writes, ADD d",
    );
    // LOADCHUNK: the header recreates the key, each chunk writes into it.
    run(&mut c, &[b"DEL", b"k"]);
    let del = next(&mut ps, "del");
    assert_eq!(del, ("__keyspace@0__:k".to_string(), "del".to_string()));
    run(&mut c, &[b"BF.LOADCHUNK", b"k", b"1", &chunks[0].data]);
    ev(&mut ps, "bf.loadchunk", "LOADCHUNK header");
    for chunk in &chunks[1..] {
        let iter = chunk.next.to_string();
        run(
            &mut c,
            &[b"BF.LOADCHUNK", b"k", iter.as_bytes(), &chunk.data],
        );
        ev(&mut ps, "bf.loadchunk", "LOADCHUNK data");
    }
    // (The dump was taken before d was added.)
    expect_int(&mut c, &["BF.EXISTS", "k", "c"], 1);
    // A write creating its key emits its own event, once.
    run(&mut c, &[b"DEL", b"k"]);
    let del = next(&mut ps, "del");
    assert_eq!(del.1, "del");
    run(&mut c, &[b"BF.MADD", b"k", b"x", b"y"]);
    ev(&mut ps, "bf.madd", "MADD creating k");
    run(&mut c, &[b"DEL", b"k"]);
    let _ = next(&mut ps, "del");
    run(
        &mut c,
        &[
            b"BF.INSERT",
            b"k",
            b"CAPACITY",
            b"2",
            b"NONSCALING",
            b"ITEMS",
            b"x",
        ],
    );
    ev(&mut ps, "bf.insert", "INSERT creating k");
    // A multi-item write stopped by a full filter still emits for what it added.
    let v = raw(&mut c, &["BF.MADD", "k", "x", "y", "z"]);
    assert!(
        matches!(&v, redis::Value::Array(a) if a.len() == 3),
        "{v:?}"
    );
    ev(
        &mut ps,
        "bf.madd",
        "MADD x y z on a full non-scaling filter",
    );
    // A write that only hits the full filter changes nothing.
    assert!(err_of(&raw(&mut c, &["BF.ADD", "k", "w"])).is_some());
    run(&mut c, &[b"BF.ADD", b"other", b"q"]); // another key: not on k's channel
    if keyevent {
        let got = next(&mut ps, "keyevent of other");
        assert_eq!(
            got,
            ("__keyevent@0__:bf.add".to_string(), "other".to_string())
        );
    }
    run(&mut c, &[b"DEL", b"k"]);
    let del = next(&mut ps, "del after a refused ADD");
    assert_eq!(del, ("__keyspace@0__:k".to_string(), "del".to_string()));
}

#[test]
fn every_change_emits_its_event_with_kea() {
    let s = Server::start();
    scenario(&s, "KEA", true);
}

#[test]
fn the_generic_class_alone_delivers_them() {
    let s = Server::start();
    scenario(&s, "Kg", false);
    let s = Server::start();
    scenario(&s, "KEg", true);
}

#[test]
fn other_classes_do_not_deliver_them() {
    // Every class but generic: the BF events are not sent; a string event on a marker key
    // shows the subscription works and that nothing came before it.
    let s = Server::start();
    let mut c = s.conn();
    config_set(&mut c, "notify-keyspace-events", "K$lshzxet");
    let mut sub = s.conn();
    let mut ps = sub.as_pubsub();
    ps.set_read_timeout(Some(TIMEOUT)).expect("timeout");
    ps.subscribe("__keyspace@0__:k").expect("subscribe");
    ps.subscribe("__keyspace@0__:marker").expect("subscribe");
    run(&mut c, &[b"BF.RESERVE", b"k", b"0.01", b"100"]);
    run(&mut c, &[b"BF.ADD", b"k", b"a"]);
    run(&mut c, &[b"BF.MADD", b"k", b"b"]);
    run(&mut c, &[b"BF.INSERT", b"k", b"ITEMS", b"c"]);
    let header = scandump(&mut c, "k")[0].data.clone();
    run(&mut c, &[b"BF.LOADCHUNK", b"k2", b"1", &header]);
    run(&mut c, &[b"SET", b"marker", b"1"]);
    let got = next(&mut ps, "the marker's set event");
    assert_eq!(
        got,
        ("__keyspace@0__:marker".to_string(), "set".to_string()),
        "a BF event was delivered outside the generic class"
    );
}
