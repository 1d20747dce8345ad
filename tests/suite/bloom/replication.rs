//! Writes reach replicas, both as a stream of commands and through the full sync (RDB).

use rsbloom_test_support as common;

use common::*;
use redis::{Connection, Value};

fn wait_one_replica(c: &mut Connection) {
    expect_int(c, &["WAIT", "1", "5000"], 1);
}

/// The same BF.DEBUG, BF.CARD, answers and (non-zero) digest on both servers.
fn assert_same(p: &mut Connection, r: &mut Connection, key: &str, probes: &[Vec<u8>]) {
    let debug = bf_debug(p, key);
    assert_eq!(bf_debug(r, key), debug, "BF.DEBUG {key} on the replica");
    assert_eq!(card(r, key), card(p, key), "BF.CARD {key}");
    let answers = mexists_all(p, key, probes);
    assert!(
        mexists_all(r, key, probes) == answers,
        "answers of {key} differ on the replica"
    );
    let digest = digest_value(p, key);
    assert!(
        !digest.is_empty() && digest.chars().any(|ch| ch != '0'),
        "digest of {key} is {digest:?}"
    );
    assert_eq!(digest_value(r, key), digest, "DEBUG DIGEST-VALUE {key}");
}

#[test]
fn writes_are_replicated() {
    let primary = Server::start();
    let replica = primary.start_replica();
    let mut p = primary.conn();
    let mut r = replica.conn();
    let probes = gen_items("probe:", 0..5000);

    expect_ok(
        &mut p,
        &["BF.RESERVE", "res", "0.01", "100", "EXPANSION", "3"],
    );
    expect_int(&mut p, &["BF.ADD", "res", "one"], 1);
    let items = gen_items("res:", 0..2000);
    madd_all(&mut p, "res", &items);
    expect_int(&mut p, &["BF.ADD", "implicit", "a"], 1);
    let v = raw(
        &mut p,
        &[
            "BF.INSERT",
            "ins",
            "CAPACITY",
            "30",
            "ERROR",
            "0.001",
            "NONSCALING",
            "ITEMS",
            "a",
            "b",
            "c",
        ],
    );
    assert_eq!(v, Value::Array(vec![Value::Int(1); 3]));
    madd_all(&mut p, "ins", &gen_items("ins:", 0..20));
    // A non-scaling filter filled past its end: the items before the error are replicated.
    let over = gen_items("over:", 0..40);
    let mut args: Vec<&[u8]> = vec![b"BF.MADD", b"ins"];
    args.extend(over.iter().map(|v| v.as_slice()));
    let reply = raw(&mut p, &args);
    match &reply {
        Value::Array(a) => {
            assert!(a.len() < over.len(), "no error element: {reply:?}");
            assert_eq!(
                err_of(a.last().unwrap()).as_deref(),
                Some("ERR non scaling filter is full")
            );
        }
        other => panic!("BF.MADD past the end answered {other:?}"),
    }
    expect_int(&mut p, &["BF.CARD", "ins"], 30);
    // LOADCHUNK writes.
    let chunks = scandump(&mut p, "res");
    loadchunks(&mut p, "loaded", &chunks);
    wait_one_replica(&mut p);

    for key in ["res", "implicit", "ins", "loaded"] {
        assert_eq!(
            as_text(&raw(&mut r, &["TYPE", key])),
            "RSbloom--",
            "TYPE {key} on the replica"
        );
        assert_same(&mut p, &mut r, key, &probes);
    }
    assert!(mexists_all(&mut r, "res", &items).iter().all(|&a| a == 1));
    assert_eq!(digest_value(&mut r, "loaded"), digest_value(&mut r, "res"));
    // Failed writes change nothing on either side.
    expect_err(
        &mut p,
        &["BF.RESERVE", "res", "0.01", "100"],
        "ERR item exists",
    );
    wait_one_replica(&mut p);
    assert_same(&mut p, &mut r, "res", &probes);
    expect_int(&mut p, &["DBSIZE"], 4);
    expect_int(&mut r, &["DBSIZE"], 4);
}

#[test]
fn full_sync_carries_filters() {
    let primary = Server::start();
    let mut p = primary.conn();
    expect_ok(&mut p, &["BF.RESERVE", "a", "0.001", "1000"]);
    madd_all(&mut p, "a", &gen_items("a:", 0..20_000));
    expect_ok(&mut p, &["BF.RESERVE", "b", "0.05", "500", "NONSCALING"]);
    madd_all(&mut p, "b", &gen_items("b:", 0..400));
    let replica = primary.start_replica();
    let mut r = replica.conn();
    wait_one_replica(&mut p);
    let probes = gen_items("probe:", 0..5000);
    assert_same(&mut p, &mut r, "a", &probes);
    assert_same(&mut p, &mut r, "b", &probes);
    // And the stream continues after the sync.
    madd_all(&mut p, "a", &gen_items("a2:", 0..5000));
    wait_one_replica(&mut p);
    assert_same(&mut p, &mut r, "a", &probes);
}

/// A filter created implicitly (BF.ADD/MADD/INSERT on a missing key) takes the primary's
/// bf.* configuration; the replica, whose configuration is its own, must still end up with
/// the very same filter.
#[test]
fn implicit_creation_uses_the_primarys_configuration() {
    let primary = Server::start();
    let replica = primary.start_replica();
    let mut p = primary.conn();
    let mut r = replica.conn();
    expect_ok(&mut p, &["CONFIG", "SET", "bf.initial-size", "1000"]);
    expect_ok(&mut p, &["CONFIG", "SET", "bf.error-rate", "0.001"]);
    expect_ok(&mut p, &["CONFIG", "SET", "bf.expansion-factor", "4"]);
    expect_int(&mut p, &["BF.ADD", "viaadd", "x"], 1);
    expect_ints(&mut p, &["BF.MADD", "viamadd", "x", "y"], &[1, 1]);
    expect_ints(&mut p, &["BF.INSERT", "viainsert", "ITEMS", "x"], &[1]);
    expect_ints(
        &mut p,
        &["BF.INSERT", "viainsert2", "CAPACITY", "77", "ITEMS", "x"],
        &[1],
    );
    wait_one_replica(&mut p);
    let probes = gen_items("probe:", 0..2000);
    for key in ["viaadd", "viamadd", "viainsert", "viainsert2"] {
        assert_same(&mut p, &mut r, key, &probes);
    }
}
