//! Writes reach replicas, as commands and through the full sync: every key ends with the
//! primary's DUMP body. A sketch made by CMS.INITBYPROB is replicated as CMS.INITBYDIM with
//! its dimensions, so a replica never computes them itself.

use rsbloom_test_support as common;

use common::rdb::dump_body;
use common::*;
use redis::Connection;

use super::info_ints;

fn same(p: &mut Connection, r: &mut Connection, key: &str) {
    expect_int(p, &["WAIT", "1", "5000"], 1);
    let a = as_bytes(&raw(p, &["DUMP", key]));
    let b = as_bytes(&raw(r, &["DUMP", key]));
    assert_eq!(dump_body(&a), dump_body(&b), "{key}: DUMP on the replica");
    assert_eq!(info_ints(p, key), info_ints(r, key), "{key}: CMS.INFO");
}

#[test]
fn writes_are_replicated() {
    let primary = Server::start();
    let mut p = primary.conn();
    // Before the replica: reaches it by the full sync.
    expect_ok(&mut p, &["CMS.INITBYDIM", "before", "100", "3"]);
    raw(
        &mut p,
        &["CMS.INCRBY", "before", "a", "10", "b", "4294967295"],
    );
    let replica = primary.start_replica();
    let mut r = replica.conn();
    same(&mut p, &mut r, "before");

    // The stream: the replica's MONITOR-free view is its keys.
    expect_ok(&mut p, &["CMS.INITBYPROB", "prob", "0.01", "0.01"]);
    expect_ok(&mut p, &["CMS.INITBYDIM", "dim", "200", "7"]);
    for part in gen_items("i:", 0..2000).chunks(100) {
        let mut args: Vec<Vec<u8>> = vec![b"CMS.INCRBY".to_vec(), b"prob".to_vec()];
        for item in part {
            args.push(item.clone());
            args.push(b"3".to_vec());
        }
        raw(&mut p, &args);
    }
    raw(
        &mut p,
        &["CMS.INCRBY", "dim", "x", "9223372036854775807", "y", "0"],
    );
    expect_ok(
        &mut p,
        &["CMS.MERGE", "dim", "2", "prob", "dim", "WEIGHTS", "2", "0"],
    );
    expect_ok(&mut p, &["CMS.MERGE", "prob", "1", "prob", "WEIGHTS", "3"]);
    // Refused writes change nothing anywhere.
    let v = raw(&mut p, &["CMS.MERGE", "prob", "1", "prob", "WEIGHTS", "-1"]);
    assert_eq!(err_of(&v).as_deref(), Some("CMS: MERGE overflow"));
    for key in ["before", "prob", "dim"] {
        same(&mut p, &mut r, key);
    }
    assert_eq!(info_ints(&mut r, "prob")[..2], [200, 7]);
}
