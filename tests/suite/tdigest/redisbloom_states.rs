//! t-digest states only RedisBloom's own code reaches (core/src/tdigest/codec.rs), made on
//! the live RedisBloom 2.8.2: RESTORE of its one-observation save (which it holds as a node
//! of mean 0 and weight 0, the unmerged weight 1) then `TDIGEST.ADD k 8.5 9.5` (three nodes,
//! weights 0, 1, 1, merged weight 3); a merge of two such digests (two unmerged weight-0
//! nodes, total weight 0), and the same after adds (a node of mean NaN); values near
//! ±f64::MAX (merged means overflow). Each reaches rsbloom by RESTORE, by RedisBloom's RDB
//! file and by an AOF (its RESTORE commands, then its rewrite), answers every query as
//! RedisBloom does, and DUMPs to RedisBloom's bytes.

use rsbloom_test_support as common;

use common::files::escape;
use common::raw_resp::{bulk_payload, RawConn};
use common::*;

use super::redisbloom_replay::opts;
use super::redisbloom_transfer::{queries, redisbloom};

const KEYS: [&str; 5] = ["ghost", "zeros", "nan", "far", "one"];

fn ok(con: &mut RawConn, args: &[&str]) {
    let got = con.send(args);
    assert_eq!(got, b"+OK\r\n", "{args:?}: {}", escape(&got));
}

fn dump(con: &mut RawConn, key: &str) -> Vec<u8> {
    let got = con.send(&["DUMP", key]);
    bulk_payload(&got)
        .unwrap_or_else(|| panic!("DUMP {key}: {}", escape(&got)))
        .to_vec()
}

fn restore(con: &mut RawConn, key: &str, payload: &[u8]) {
    let got = con.send(&[b"RESTORE".as_slice(), key.as_bytes(), b"0", payload]);
    assert_eq!(got, b"+OK\r\n", "RESTORE {key}: {}", escape(&got));
}

/// Makes the states on RedisBloom.
fn make_states(rb: &mut RawConn) {
    ok(rb, &["TDIGEST.CREATE", "s", "COMPRESSION", "100"]);
    ok(rb, &["TDIGEST.ADD", "s", "5"]);
    let single = dump(rb, "s");
    restore(rb, "ghost", &single);
    ok(rb, &["TDIGEST.ADD", "ghost", "8.5", "9.5"]);
    restore(rb, "g1", &single);
    restore(rb, "g2", &single);
    ok(rb, &["TDIGEST.MERGE", "zeros", "2", "g1", "g2"]);
    ok(rb, &["TDIGEST.MERGE", "nan", "2", "g1", "g2"]);
    ok(rb, &["TDIGEST.ADD", "nan", "1", "2", "3", "-4", "4.5"]);
    ok(rb, &["TDIGEST.CREATE", "far", "COMPRESSION", "1"]);
    let mut args = vec!["TDIGEST.ADD", "far"];
    for i in 0..60 {
        args.push(match i % 3 {
            0 => "1.7976931348623157e308",
            1 => "-1.7976931348623157e308",
            _ => "1e308",
        });
    }
    ok(rb, &args);
    // The one-observation digest after a restore of its own save, and one more value.
    restore(rb, "one", &single);
    ok(rb, &["TDIGEST.ADD", "one", "7"]);
}

/// Every key answers alike and DUMPs to the same bytes; then both take the same adds and
/// answer alike again. Returns the replies compared.
fn compare(rs: &mut RawConn, rb: &mut RawConn, how: &str) -> usize {
    let mut compared = 0;
    for key in KEYS {
        for round in 0..2 {
            for q in queries(key) {
                let (a, b) = (rs.send(&q), rb.send(&q));
                assert_eq!(
                    escape(&a),
                    escape(&b),
                    "{key} ({how}, round {round}): {q:?}"
                );
                compared += 1;
            }
            assert_eq!(
                escape(&dump(rs, key)),
                escape(&dump(rb, key)),
                "{key} ({how}, round {round}): DUMP"
            );
            if round == 0 {
                let more = ["TDIGEST.ADD", key, "0", "6", "-1e9", "42"];
                assert_eq!(rs.send(&more), rb.send(&more), "{key} ({how}): ADD");
            }
        }
    }
    compared
}

/// Resets both sides' keys to RedisBloom's states (`payloads`).
fn reload(rs: &mut RawConn, rb: &mut RawConn, payloads: &[(String, Vec<u8>)]) {
    for (key, p) in payloads {
        for con in [&mut *rs, &mut *rb] {
            con.send(&["DEL", key.as_str()]);
            restore(con, key, p);
        }
    }
}

#[test]
fn redisbloom_only_states_load_and_answer_as_redisbloom() {
    let mut rb_server = Server::start_with(redisbloom());
    let mut rb = RawConn::connect(rb_server.port);
    make_states(&mut rb);
    assert_eq!(rb.send(&["SAVE"]), b"+OK\r\n");
    let rdb = std::fs::read(rb_server.dir().join("dump.rdb")).expect("dump.rdb");
    let payloads: Vec<(String, Vec<u8>)> = KEYS
        .iter()
        .map(|k| (k.to_string(), dump(&mut rb, k)))
        .collect();
    // The ghost state is the one the issue names: three merged nodes, merged weight 3.
    let info = String::from_utf8_lossy(&rb.send(&["TDIGEST.INFO", "ghost"])).to_string();
    assert!(info.contains("+Merged weight\r\n:3\r\n"), "{info}");

    // RESTORE.
    let mut aof = opts();
    aof.server_args
        .extend(["--appendonly", "yes"].map(String::from));
    let mut rs_server = Server::start_with(aof);
    let mut rs = RawConn::connect(rs_server.port);
    for (key, p) in &payloads {
        restore(&mut rs, key, p);
    }
    let by_restore = compare(&mut rs, &mut rb, "RESTORE");

    // AOF: the RESTORE commands replayed at start-up.
    reload(&mut rs, &mut rb, &payloads);
    drop(rs);
    rs_server.restart(&[]);
    let mut rs = RawConn::connect(rs_server.port);
    let by_aof = compare(&mut rs, &mut rb, "AOF");

    // AOF rewrite (each key a RESTORE of its DUMP), without the RDB preamble.
    reload(&mut rs, &mut rb, &payloads);
    ok(&mut rs, &["CONFIG", "SET", "aof-use-rdb-preamble", "no"]);
    let mut c = rs_server.conn();
    let v = raw(&mut c, &["BGREWRITEAOF"]);
    assert!(err_of(&v).is_none(), "BGREWRITEAOF answered {v:?}");
    wait_for_aof_rewrite(&mut c);
    drop((c, rs));
    rs_server.restart(&["--aof-use-rdb-preamble", "no"]);
    let mut rs = RawConn::connect(rs_server.port);
    let by_rewrite = compare(&mut rs, &mut rb, "AOF rewrite");
    rs_server.assert_alive();
    drop(rs_server);

    // RedisBloom's RDB file (RedisBloom's keys set back to the states it saved).
    let rs_server = Server::start_prepared(opts(), |dir| {
        std::fs::write(dir.join("dump.rdb"), &rdb).expect("dump.rdb");
    });
    let mut rs = RawConn::connect(rs_server.port);
    for (key, p) in &payloads {
        rb.send(&["DEL", key.as_str()]);
        restore(&mut rb, key, p);
    }
    let by_rdb = compare(&mut rs, &mut rb, "RDB");
    rb_server.assert_alive();
    assert!(
        by_restore > 100 && [by_aof, by_rewrite, by_rdb] == [by_restore; 3],
        "{by_restore} / {by_aof} / {by_rewrite} / {by_rdb} replies compared"
    );
}
