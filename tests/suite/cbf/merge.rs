//! CBF.MERGE: counting filters of one shape summed counter by counter, into a new or an
//! existing destination; deletes after a merge; an overflowing sum and other refusals by
//! their exact texts with every key unchanged; the result through DEBUG RELOAD and on a
//! replica. The word-level sums and their overflow are the core's
//! (core/src/counting/merge.rs).

use rsbloom_test_support as common;

use common::*;
use redis::{Connection, Value};

use super::{cbf_field, multi, state};

fn dump(c: &mut Connection, key: &str) -> Value {
    raw(c, &["DUMP", key])
}

fn filled(c: &mut Connection, key: &str, params: &[&str], items: &[Vec<u8>]) {
    let mut args = vec!["CBF.RESERVE", key];
    args.extend_from_slice(params);
    expect_ok(c, &args);
    multi(c, "CBF.MADD", key, items);
}

#[test]
fn counts_add_up_and_deletes_undo_every_add() {
    let s = Server::start();
    let mut c = s.conn();
    let (a_items, b_items) = (gen_items("a:", 0..600), gen_items("b:", 0..900));
    filled(&mut c, "a", &["0.01", "2000"], &a_items);
    filled(&mut c, "b", &["0.01", "2000"], &b_items);
    // An item in both, three times in all.
    expect_int(&mut c, &["CBF.ADD", "a", "both"], 1);
    expect_int(&mut c, &["CBF.ADD", "b", "both"], 1);
    expect_int(&mut c, &["CBF.ADD", "b", "both"], 0);
    let b_before = dump(&mut c, "b");

    expect_ok(&mut c, &["CBF.MERGE", "d", "a", "b"]);
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "d"])), "RSbloomCB");
    expect_int(&mut c, &["CBF.CARD", "d"], 1503);
    assert!(as_int(&raw(&mut c, &["CBF.COUNT", "d", "both"])) >= 3);
    for items in [&a_items, &b_items] {
        let found = multi(&mut c, "CBF.MEXISTS", "d", items);
        assert!(found.iter().all(|&f| f == 1), "an item is missing");
    }
    assert_eq!(dump(&mut c, "b"), b_before);
    // Into an existing destination listed among the sources: the same sum.
    expect_ok(&mut c, &["CBF.MERGE", "a", "a", "b"]);
    assert_eq!(dump(&mut c, "a"), dump(&mut c, "d"));
    // Deleting every add empties the sum: no counter is left, nothing answers present.
    let mut adds = a_items.clone();
    adds.extend(b_items.iter().cloned());
    let deleted = multi(&mut c, "CBF.MDEL", "d", &adds);
    assert!(deleted.iter().all(|&d| d == 1), "a delete found nothing");
    for _ in 0..3 {
        expect_int(&mut c, &["CBF.DEL", "d", "both"], 1);
    }
    expect_int(&mut c, &["CBF.CARD", "d"], 0);
    let probes = gen_items("a:", 0..2000);
    let found = multi(&mut c, "CBF.MEXISTS", "d", &probes);
    assert!(found.iter().all(|&f| f == 0), "a counter was left");
}

/// A source named twice counts once, into a new destination and into an existing one: the
/// result is the merge that names it once.
#[test]
fn a_source_named_twice_counts_once() {
    let s = Server::start();
    let mut c = s.conn();
    let (a_items, b_items) = (gen_items("a:", 0..300), gen_items("b:", 0..200));
    filled(&mut c, "a", &["0.01", "1000"], &a_items);
    filled(&mut c, "b", &["0.01", "1000"], &b_items);
    expect_int(&mut c, &["CBF.ADD", "a", "x"], 1);
    expect_ok(&mut c, &["CBF.MERGE", "once", "a"]);
    expect_ok(&mut c, &["CBF.MERGE", "twice", "a", "a"]);
    expect_int(&mut c, &["CBF.CARD", "twice"], 301);
    let once = raw(&mut c, &["CBF.COUNT", "a", "x"]);
    assert_eq!(raw(&mut c, &["CBF.COUNT", "twice", "x"]), once);
    assert_eq!(dump(&mut c, "twice"), dump(&mut c, "once"));
    // Into an existing destination, the repeats mixed with another source and itself.
    expect_ok(&mut c, &["CBF.MERGE", "once", "b"]);
    expect_ok(&mut c, &["CBF.MERGE", "twice", "b", "twice", "b", "b"]);
    expect_int(&mut c, &["CBF.CARD", "twice"], 501);
    assert_eq!(dump(&mut c, "twice"), dump(&mut c, "once"));
}

#[test]
fn refusals_name_the_problem_and_change_nothing() {
    let s = Server::start();
    let mut c = s.conn();
    // Only `x` in these two, so its counters are its adds alone.
    filled(&mut c, "a", &["0.01", "100"], &[]);
    filled(&mut c, "b", &["0.01", "100"], &[]);
    filled(&mut c, "wide", &["0.01", "100", "COUNTERBITS", "8"], &[]);
    filled(&mut c, "cap", &["0.01", "200"], &[]);
    expect_ok(&mut c, &["BF.RESERVE", "bloom", "0.01", "100"]);
    // 9 + 7 adds of one item pass a 4-bit counter's 15.
    for _ in 0..9 {
        raw(&mut c, &["CBF.ADD", "a", "x"]);
    }
    for _ in 0..7 {
        raw(&mut c, &["CBF.ADD", "b", "x"]);
    }
    let keys = ["a", "b", "wide", "cap", "bloom"];
    let before: Vec<Value> = keys.iter().map(|k| dump(&mut c, k)).collect();
    let wrongtype = "WRONGTYPE Operation against a key holding the wrong kind of value";
    let cases: [(&[&str], &str); 8] = [
        (
            &["CBF.MERGE", "a", "b"],
            "ERR cannot merge: a counter's sum would not fit in 4 bits",
        ),
        (
            &["CBF.MERGE", "new", "a", "b"],
            "ERR cannot merge: a counter's sum would not fit in 4 bits",
        ),
        (
            &["CBF.MERGE", "a", "wide"],
            "ERR cannot merge filters that differ in counter bits (4 and 8)",
        ),
        (
            &["CBF.MERGE", "a", "cap"],
            "ERR cannot merge filters that differ in capacity (100 and 200)",
        ),
        (&["CBF.MERGE", "a", "missing"], "ERR not found"),
        (&["CBF.MERGE", "a", "bloom"], wrongtype),
        (&["CBF.MERGE", "bloom", "a"], wrongtype),
        (
            &["CBF.MERGE", "a"],
            "ERR wrong number of arguments for 'cbf.merge' command",
        ),
    ];
    for (args, error) in cases {
        expect_err(&mut c, args, error);
        let after: Vec<Value> = keys.iter().map(|k| dump(&mut c, k)).collect();
        assert!(after == before, "{args:?} changed a key");
        expect_int(&mut c, &["EXISTS", "new"], 0);
    }
    // One add fewer fits: the counters stick at 15, as CBF.ADD leaves them.
    expect_int(&mut c, &["CBF.DEL", "b", "x"], 1);
    expect_ok(&mut c, &["CBF.MERGE", "a", "b"]);
    expect_int(&mut c, &["CBF.COUNT", "a", "x"], 15);
    assert!(cbf_field(&mut c, "a", "Saturated counters") > 0);
}

#[test]
fn a_merge_survives_a_reload_and_reaches_a_replica_identical() {
    let primary = Server::start();
    let mut p = primary.conn();
    let replica = primary.start_replica();
    let mut r = replica.conn();
    let (a_items, b_items) = (gen_items("a:", 0..500), gen_items("b:", 0..700));
    filled(
        &mut p,
        "a",
        &["0.001", "3000", "COUNTERBITS", "8"],
        &a_items,
    );
    filled(
        &mut p,
        "b",
        &["0.001", "3000", "COUNTERBITS", "8"],
        &b_items,
    );
    expect_ok(&mut p, &["CBF.MERGE", "d", "a", "b"]);
    expect_ok(&mut p, &["CBF.MERGE", "b", "a"]);
    expect_int(&mut p, &["WAIT", "1", "5000"], 1);
    let mut probes = a_items.clone();
    probes.extend(b_items.iter().cloned());
    probes.extend(gen_items("x:", 0..1000));
    for key in ["b", "d"] {
        let want = state(&mut p, key, &probes);
        assert!(state(&mut r, key, &probes) == want, "{key} on the replica");
        assert_eq!(dump(&mut r, key), dump(&mut p, key), "{key} DUMP");
    }
    let before = state(&mut p, "d", &probes);
    expect_ok(&mut p, &["DEBUG", "RELOAD"]);
    assert!(state(&mut p, "d", &probes) == before, "DEBUG RELOAD");
}
