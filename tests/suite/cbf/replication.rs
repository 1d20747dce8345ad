//! Writes reach replicas, as commands and through the full sync, whatever the replica's own
//! defaults: the same CBF.INFO, digest, answers and counts on both sides.

use rsbloom_test_support as common;

use common::*;
use redis::Value;

use super::{multi, state};

#[test]
fn writes_are_replicated() {
    let primary = Server::start();
    let mut p = primary.conn();
    // Keys made before the replica exists travel in the full sync.
    expect_ok(&mut p, &["CBF.RESERVE", "before", "0.01", "500"]);
    multi(&mut p, "CBF.MADD", "before", &gen_items("b:", 0..400));
    let replica = primary.start_replica();
    let mut r = replica.conn();
    // The replica's defaults differ: implicit creations must not depend on them.
    expect_ok(&mut r, &["CONFIG", "SET", "bf.cbf-initial-size", "5"]);
    expect_ok(&mut r, &["CONFIG", "SET", "bf.cbf-counter-bits", "8"]);

    expect_ok(
        &mut p,
        &["CBF.RESERVE", "res", "0.001", "1000", "COUNTERBITS", "8"],
    );
    multi(&mut p, "CBF.MADD", "res", &gen_items("r:", 0..800));
    multi(&mut p, "CBF.MDEL", "res", &gen_items("r:", 0..300));
    expect_int(&mut p, &["CBF.DEL", "res", "r:300"], 1);
    expect_int(&mut p, &["CBF.DEL", "res", "never"], 0);
    expect_int(&mut p, &["CBF.ADD", "implicit", "a"], 1);
    expect_ints(&mut p, &["CBF.MADD", "implicit2", "a", "b"], &[1, 1]);
    // A full filter: only what was added before the refusal is replicated.
    expect_ok(&mut p, &["CBF.RESERVE", "full", "0.01", "20"]);
    let over = gen_items("o:", 0..30);
    let mut args: Vec<&[u8]> = vec![b"CBF.MADD", b"full"];
    args.extend(over.iter().map(|v| v.as_slice()));
    match raw(&mut p, &args) {
        Value::Array(a) => assert!(err_of(a.last().unwrap()).is_some()),
        other => panic!("{other:?}"),
    }
    // LOADCHUNK writes.
    let header = match raw(&mut p, &["CBF.SCANDUMP", "res", "0"]) {
        Value::Array(a) => as_bytes(&a[1]),
        other => panic!("{other:?}"),
    };
    expect_ok(&mut p, &[&b"CBF.LOADCHUNK"[..], b"loaded", b"1", &header]);
    let data = match raw(&mut p, &["CBF.SCANDUMP", "res", "1"]) {
        Value::Array(a) => (as_int(&a[0]), as_bytes(&a[1])),
        other => panic!("{other:?}"),
    };
    let n = data.0.to_string();
    expect_ok(
        &mut p,
        &[b"CBF.LOADCHUNK", &b"loaded"[..], n.as_bytes(), &data.1],
    );
    expect_int(&mut p, &["WAIT", "1", "5000"], 1);

    let probes = {
        let mut q = gen_items("r:", 0..800);
        q.extend(gen_items("b:", 0..400));
        q.extend(gen_items("o:", 0..30));
        q.extend(gen_items("x:", 0..2000));
        q
    };
    for key in ["before", "res", "implicit", "implicit2", "full", "loaded"] {
        let want = state(&mut p, key, &probes);
        let got = state(&mut r, key, &probes);
        assert!(
            got == want,
            "{key} differs on the replica: {:?} vs {:?}",
            got.info,
            want.info
        );
    }
    // A full sync of everything: a second replica.
    let replica2 = primary.start_replica();
    let mut r2 = replica2.conn();
    for key in ["res", "implicit", "full", "loaded"] {
        assert!(
            state(&mut r2, key, &probes) == state(&mut p, key, &probes),
            "{key}"
        );
    }
}
