//! BF.MERGE (rsbloom's own): the union of Bloom filters of one shape, into a new or an
//! existing destination, in both formats; refusals by their exact texts with every key left
//! as it was (DUMP before and after); the result through DEBUG RELOAD and on a replica; the
//! keyspace event, ACL key patterns and cluster slots. The union's bits and count rule are
//! the core's (core/src/bloom/merge.rs).

use rsbloom_test_support as common;

use std::time::Duration;

use common::hostile::config_set;
use common::*;
use redis::{Connection, Value};

fn dump(c: &mut Connection, key: &str) -> Value {
    raw(c, &["DUMP", key])
}

fn filters(c: &mut Connection, key: &str) -> i64 {
    as_int(&info_value(c, key, "Number of filters"))
}

/// A filter at `key` made by BF.RESERVE with `params`, holding `items`.
fn filled(c: &mut Connection, key: &str, params: &[&str], items: &[Vec<u8>]) {
    let mut args = vec!["BF.RESERVE", key];
    args.extend_from_slice(params);
    expect_ok(c, &args);
    madd_all(c, key, items);
}

fn all_found(c: &mut Connection, key: &str, items: &[Vec<u8>]) {
    let answers = mexists_all(c, key, items);
    assert!(answers.iter().all(|&a| a == 1), "{key}: an item is missing");
}

#[test]
fn merges_into_a_new_and_an_existing_destination() {
    let s = Server::start();
    let mut c = s.conn();
    let (a_items, b_items) = (gen_items("a:", 0..700), gen_items("b:", 0..900));
    filled(&mut c, "a", &["0.01", "1000"], &a_items);
    filled(&mut c, "b", &["0.01", "1000"], &b_items);
    let (a_before, b_before) = (dump(&mut c, "a"), dump(&mut c, "b"));

    expect_ok(&mut c, &["BF.MERGE", "d", "a", "b"]);
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "d"])), "RSbloom--");
    all_found(&mut c, "d", &a_items);
    all_found(&mut c, "d", &b_items);
    // Disjoint items: the estimate lies between the larger part and the sum, near 1600
    // (the layer holds at most its capacity).
    let n = card(&mut c, "d");
    assert!((900..=1000).contains(&n), "BF.CARD {n}");
    // The sources are untouched; the same union the other way round is the same value.
    assert_eq!((dump(&mut c, "a"), dump(&mut c, "b")), (a_before, b_before));
    expect_ok(&mut c, &["BF.MERGE", "e", "b", "a"]);
    assert_eq!(dump(&mut c, "e"), dump(&mut c, "d"));
    // One source: an exact copy.
    expect_ok(&mut c, &["BF.MERGE", "copy", "a"]);
    assert_eq!(dump(&mut c, "copy"), dump(&mut c, "a"));
    // Into an existing destination that is also listed among the sources: the same union.
    expect_ok(&mut c, &["BF.MERGE", "a", "b", "a"]);
    assert_eq!(dump(&mut c, "a"), dump(&mut c, "d"));
    // Into an existing destination not listed: it takes part too.
    expect_ok(&mut c, &["BF.MERGE", "copy", "b"]);
    assert_eq!(dump(&mut c, "copy"), dump(&mut c, "d"));
    // The union counts as full (1600 items in a layer of 1000): new items go to a new layer.
    assert_eq!(filters(&mut c, "d"), 1);
    let more = gen_items("more:", 0..100);
    madd_all(&mut c, "d", &more);
    assert_eq!(filters(&mut c, "d"), 2);
    all_found(&mut c, "d", &more);
}

#[test]
fn scaling_chains_merge_layer_by_layer() {
    let s = Server::start();
    let mut c = s.conn();
    // 100 + 200 + 400 + 800: both grow to four layers.
    let (a_items, b_items) = (gen_items("a:", 0..1400), gen_items("b:", 0..1000));
    filled(&mut c, "a", &["0.01", "100", "EXPANSION", "2"], &a_items);
    filled(&mut c, "b", &["0.01", "100", "EXPANSION", "2"], &b_items);
    assert_eq!((filters(&mut c, "a"), filters(&mut c, "b")), (4, 4));
    expect_ok(&mut c, &["BF.MERGE", "d", "a", "b"]);
    assert_eq!(filters(&mut c, "d"), 4);
    all_found(&mut c, "d", &a_items);
    all_found(&mut c, "d", &b_items);
    let n = card(&mut c, "d");
    assert!((1400..=1500).contains(&n), "BF.CARD {n}");
    // The last layer is full: the next new item grows the chain.
    let more = gen_items("more:", 0..200);
    madd_all(&mut c, "d", &more);
    assert_eq!(filters(&mut c, "d"), 5);
    all_found(&mut c, "d", &more);
    // A chain of another length is refused.
    filled(
        &mut c,
        "short",
        &["0.01", "100", "EXPANSION", "2"],
        &b_items[..500],
    );
    assert_eq!(filters(&mut c, "short"), 3);
    let before = dump(&mut c, "d");
    expect_err(
        &mut c,
        &["BF.MERGE", "d", "short"],
        "ERR cannot merge filters that differ in number of layers (5 and 3)",
    );
    assert_eq!(dump(&mut c, "d"), before);
}

#[test]
fn refusals_name_the_problem_and_change_nothing() {
    let s = Server::start();
    let mut c = s.conn();
    let items = gen_items("i:", 0..300);
    filled(&mut c, "a", &["0.01", "1000"], &items);
    filled(&mut c, "b", &["0.01", "1000"], &items[..100]);
    filled(&mut c, "rate", &["0.02", "1000"], &items);
    filled(&mut c, "cap", &["0.01", "2000"], &items);
    filled(&mut c, "fixed", &["0.01", "1000", "NONSCALING"], &items);
    filled(&mut c, "wide", &["0.01", "1000", "EXPANSION", "4"], &items);
    expect_ok(&mut c, &["SET", "str", "x"]);
    expect_ok(&mut c, &["CF.RESERVE", "cuckoo", "1000"]);
    config_set(&mut c, "bf.new-filter-format", "redisbloom");
    filled(&mut c, "mb", &["0.01", "1000"], &items);
    config_set(&mut c, "bf.new-filter-format", "guava");
    let keys = [
        "a", "b", "rate", "cap", "fixed", "wide", "str", "cuckoo", "mb",
    ];
    let before: Vec<Value> = keys.iter().map(|k| dump(&mut c, k)).collect();

    let wrongtype = "WRONGTYPE Operation against a key holding the wrong kind of value";
    let cases: [(&[&str], &str); 13] = [
        (
            &["BF.MERGE", "a", "b", "rate"],
            "ERR cannot merge filters that differ in error rate (0.01 and 0.02)",
        ),
        (
            &["BF.MERGE", "a", "cap"],
            "ERR cannot merge filters that differ in layer 0's capacity (1000 and 2000)",
        ),
        (
            &["BF.MERGE", "a", "fixed"],
            "ERR cannot merge filters that differ in expansion (2 and 0)",
        ),
        (
            &["BF.MERGE", "a", "wide"],
            "ERR cannot merge filters that differ in expansion (2 and 4)",
        ),
        (
            &["BF.MERGE", "a", "mb"],
            "ERR cannot merge filters that differ in format (RSbloom-- and MBbloom--)",
        ),
        (
            &["BF.MERGE", "new", "mb", "b"],
            "ERR cannot merge filters that differ in format (RSbloom-- and MBbloom--)",
        ),
        (&["BF.MERGE", "a", "b", "missing"], "ERR not found"),
        (&["BF.MERGE", "new", "missing", "a"], "ERR not found"),
        // The destination named as a source while it is missing.
        (&["BF.MERGE", "new", "a", "new"], "ERR not found"),
        (&["BF.MERGE", "a", "b", "str"], wrongtype),
        (&["BF.MERGE", "a", "cuckoo"], wrongtype),
        (&["BF.MERGE", "str", "a"], wrongtype),
        (
            &["BF.MERGE", "a"],
            "ERR wrong number of arguments for 'bf.merge' command",
        ),
    ];
    for (args, error) in cases {
        expect_err(&mut c, args, error);
        let after: Vec<Value> = keys.iter().map(|k| dump(&mut c, k)).collect();
        assert!(after == before, "{args:?} changed a key");
        expect_int(&mut c, &["EXISTS", "new"], 0);
    }
    // A created destination is held to bf.max-filter-bytes; an existing one does not grow.
    config_set(&mut c, "bf.max-filter-bytes", "1000");
    expect_err_prefix(
        &mut c,
        &["BF.MERGE", "new", "a", "b"],
        "ERR filter would need ",
    );
    expect_int(&mut c, &["EXISTS", "new"], 0);
    expect_ok(&mut c, &["BF.MERGE", "b", "a"]);
    all_found(&mut c, "b", &items);
}

#[test]
fn redisbloom_s_format_merges_with_its_own() {
    let s = Server::start();
    let mut c = s.conn();
    config_set(&mut c, "bf.new-filter-format", "redisbloom");
    let (a_items, b_items) = (gen_items("a:", 0..350), gen_items("b:", 0..380));
    filled(&mut c, "a", &["0.001", "100", "EXPANSION", "3"], &a_items);
    filled(&mut c, "b", &["0.001", "100", "EXPANSION", "3"], &b_items);
    assert_eq!(filters(&mut c, "a"), filters(&mut c, "b"));
    config_set(&mut c, "bf.new-filter-format", "guava");
    expect_ok(&mut c, &["BF.MERGE", "d", "a", "b"]);
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "d"])), "MBbloom--");
    all_found(&mut c, "d", &a_items);
    all_found(&mut c, "d", &b_items);
    expect_ok(&mut c, &["BF.MERGE", "a", "b"]);
    assert_eq!(dump(&mut c, "a"), dump(&mut c, "d"));
}

#[test]
fn a_merge_survives_a_reload_and_reaches_a_replica_identical() {
    let primary = Server::start();
    let mut p = primary.conn();
    let replica = primary.start_replica();
    let mut r = replica.conn();
    let (a_items, b_items) = (gen_items("a:", 0..1200), gen_items("b:", 0..800));
    filled(&mut p, "a", &["0.01", "200", "EXPANSION", "2"], &a_items);
    filled(&mut p, "b", &["0.01", "200", "EXPANSION", "2"], &b_items);
    filled(
        &mut p,
        "c",
        &["0.01", "200", "EXPANSION", "2"],
        &a_items[500..],
    );
    // The replica's size limit is no concern of a replicated merge.
    config_set(&mut r, "bf.max-filter-bytes", "100");
    expect_ok(&mut p, &["BF.MERGE", "d", "a", "b"]);
    expect_ok(&mut p, &["BF.MERGE", "c", "b", "c"]);
    expect_err_prefix(&mut p, &["BF.MERGE", "c", "missing"], "ERR not found");
    expect_int(&mut p, &["WAIT", "1", "5000"], 1);
    for key in ["a", "b", "c", "d"] {
        let want = dump(&mut p, key);
        assert_eq!(dump(&mut r, key), want, "{key} on the replica");
    }
    let before: Vec<Value> = ["c", "d"].iter().map(|k| dump(&mut p, k)).collect();
    expect_ok(&mut p, &["DEBUG", "RELOAD"]);
    let after: Vec<Value> = ["c", "d"].iter().map(|k| dump(&mut p, k)).collect();
    assert_eq!(after, before, "DEBUG RELOAD");
    all_found(&mut p, "d", &a_items);
    all_found(&mut p, "d", &b_items);
}

#[test]
fn a_merge_emits_its_event_on_the_destination() {
    let s = Server::start();
    let mut c = s.conn();
    config_set(&mut c, "notify-keyspace-events", "Kg");
    filled(&mut c, "a", &["0.01", "100"], &gen_items("a:", 0..10));
    let mut listener = s.conn();
    listener
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut ps = listener.as_pubsub();
    ps.psubscribe("__keyspace@0__:*").unwrap();
    // A refused merge emits nothing; the next event is the merge's.
    expect_err(&mut c, &["BF.MERGE", "d", "missing"], "ERR not found");
    expect_ok(&mut c, &["BF.MERGE", "d", "a"]);
    let msg = ps.get_message().expect("an event");
    let payload: String = msg.get_payload().unwrap();
    assert_eq!(
        (msg.get_channel_name(), payload.as_str()),
        ("__keyspace@0__:d", "bf.merge")
    );
}

#[test]
fn acl_key_patterns_apply_to_every_key() {
    let s = Server::start();
    let mut c = s.conn();
    filled(&mut c, "pub:a", &["0.01", "100"], &gen_items("a:", 0..10));
    filled(&mut c, "own:b", &["0.01", "100"], &gen_items("b:", 0..10));
    filled(&mut c, "secret", &["0.01", "100"], &gen_items("s:", 0..10));
    expect_ok(
        &mut c,
        &[
            "ACL", "SETUSER", "u", "on", ">pw", "%R~pub:*", "~own:*", "+@all",
        ],
    );
    let mut u = s.conn();
    expect_ok(&mut u, &["AUTH", "u", "pw"]);
    expect_ok(&mut u, &["BF.MERGE", "own:d", "pub:a", "own:b"]);
    for args in [
        ["BF.MERGE", "pub:a", "own:b"],
        ["BF.MERGE", "own:d", "secret"],
    ] {
        let v = raw(&mut u, &args);
        assert!(
            err_of(&v).is_some_and(|e| e.starts_with("NOPERM")),
            "{args:?}: {v:?}"
        );
    }
}

/// In cluster mode the server checks every key of a merge for one slot.
#[test]
fn cluster_mode_checks_every_merge_key() {
    let s = Server::start_with(ServerOpts::server_args(&["--cluster-enabled", "yes"]));
    let mut c = s.conn();
    expect_ok(&mut c, &["CLUSTER", "ADDSLOTSRANGE", "0", "16383"]);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !as_text(&raw(&mut c, &["CLUSTER", "INFO"])).contains("cluster_state:ok") {
        assert!(
            std::time::Instant::now() < deadline,
            "cluster never came up"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    for key in ["{t}a", "{t}b", "x"] {
        expect_ok(&mut c, &["BF.RESERVE", key, "0.01", "100"]);
    }
    expect_ok(&mut c, &["BF.MERGE", "{t}d", "{t}a", "{t}b"]);
    for args in [
        ["BF.MERGE", "{t}d", "{t}a", "x"],
        ["BF.MERGE", "x", "{t}a", "{t}b"],
    ] {
        let v = raw(&mut c, &args);
        assert!(
            err_of(&v).is_some_and(|e| e.starts_with("CROSSSLOT")),
            "{args:?}: {v:?}"
        );
    }
}
