//! The AOF rewrite of the sketch types (Count-Min Sketch, Top-K, t-digest): RedisBloom's
//! form, `RESTORE key 0 <DUMP payload>` per key, with the payload of the key's own database.
//! RedisBloom asks `DUMP` in database 0 whatever the key's database, so its rewrite drops
//! sketches of other databases (a key of the same name in db 0 would even be written in
//! their place); here every database's sketches come back, byte for byte.

use rsbloom_test_support as common;

use common::rdb::dump_body;
use common::*;
use redis::Connection;

/// A sketch of each type in the current database, different per `salt`; the keys.
fn sketches(c: &mut Connection, salt: usize) -> Vec<String> {
    let (cms, topk, td) = ("cms".to_string(), "topk".to_string(), "td".to_string());
    expect_ok(c, &["CMS.INITBYDIM", &cms, "64", "3"]);
    expect_ok(c, &["TOPK.RESERVE", &topk, "4", "16", "3", "0.9"]);
    expect_ok(c, &["TDIGEST.CREATE", &td, "COMPRESSION", "40"]);
    for n in 0..(100 + salt * 37) {
        let item = format!("item:{}", n % (7 + salt));
        raw(c, &["CMS.INCRBY", &cms, &item, &format!("{}", n % 4 + 1)]);
        raw(c, &["TOPK.ADD", &topk, &item]);
        expect_ok(
            c,
            &[
                "TDIGEST.ADD",
                &td,
                &format!("{}", (n * (salt + 3)) as f64 / 7.0),
            ],
        );
    }
    vec![cms, topk, td]
}

fn bodies(c: &mut Connection, keys: &[String]) -> Vec<Vec<u8>> {
    keys.iter()
        .map(|k| dump_body(&as_bytes(&raw(c, &["DUMP", k]))).to_vec())
        .collect()
}

#[test]
fn sketches_of_every_database_are_rewritten_as_restore_and_replayed() {
    let mut s = Server::start();
    let mut c = s.conn();
    let dbs = [0usize, 3, 9];
    let mut before = Vec::new();
    for &db in &dbs {
        expect_ok(&mut c, &["SELECT", &db.to_string()]);
        let keys = sketches(&mut c, db);
        before.push((db, keys.clone(), bodies(&mut c, &keys)));
    }
    // The same names hold different sketches in each database.
    assert_ne!(before[0].2, before[1].2);
    expect_ok(&mut c, &["CONFIG", "SET", "aof-use-rdb-preamble", "no"]);
    expect_ok(&mut c, &["CONFIG", "SET", "appendonly", "yes"]);
    wait_for_aof_rewrite(&mut c);

    let (base, bytes) = s.aof_base();
    let commands = parse_aof(&bytes).unwrap_or_else(|e| panic!("{base} is not plain RESP: {e}"));
    let mut db = 0usize;
    let mut restored = Vec::new();
    for cmd in &commands {
        if cmd[0].eq_ignore_ascii_case(b"SELECT") {
            db = String::from_utf8_lossy(&cmd[1]).parse().unwrap();
        } else if cmd[0].eq_ignore_ascii_case(b"RESTORE") {
            assert_eq!(cmd.len(), 4, "RESTORE key 0 payload: {:?}", &cmd[..3]);
            assert_eq!(cmd[2], b"0");
            let key = String::from_utf8_lossy(&cmd[1]).into_owned();
            restored.push((db, key, dump_body(&cmd[3]).to_vec()));
        } else {
            panic!(
                "the rewrite of sketches only has SELECT and RESTORE, found {}",
                String::from_utf8_lossy(&cmd[0])
            );
        }
    }
    let mut want: Vec<(usize, String, Vec<u8>)> = before
        .iter()
        .flat_map(|(db, keys, bodies)| {
            keys.iter()
                .zip(bodies)
                .map(move |(k, b)| (*db, k.clone(), b.clone()))
        })
        .collect();
    restored.sort();
    want.sort();
    assert_eq!(restored.len(), want.len(), "RESTOREs in the rewrite");
    assert!(restored == want, "the rewrite's payloads differ from DUMP");

    // Replayed from the AOF alone: every database's sketches, byte for byte.
    s.restart(&["--appendonly", "yes"]);
    let mut c = s.conn();
    for (db, keys, bodies_before) in &before {
        expect_ok(&mut c, &["SELECT", &db.to_string()]);
        assert_eq!(
            &bodies(&mut c, keys),
            bodies_before,
            "db {db} after the replay"
        );
    }
}
