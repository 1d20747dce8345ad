//! t-digests survive every way Redis moves data: DUMP / RESTORE, DEBUG RELOAD, a restart
//! from the RDB, the AOF with and without an RDB preamble (the rewrite writes
//! `RESTORE key 0 <payload>` as RedisBloom's does), COPY and replication. After each, DUMP,
//! INFO and the answers are those of before. Saving compresses pending values (as
//! RedisBloom's save does), so the state compared is the one after a DUMP. A one-value
//! digest keeps its value through all of them.

use rsbloom_test_support as common;

use common::*;
use redis::Connection;

/// Keys of several shapes: pending values, merged only, a merge, one value, empty, reset.
fn build(c: &mut Connection) -> Vec<&'static str> {
    expect_ok(c, &["TDIGEST.CREATE", "big", "COMPRESSION", "200"]);
    for round in 0..5 {
        let values: Vec<String> = (0..500)
            .map(|i| format!("{}", ((i * 7919 + round * 104729) % 100_003) as f64 / 7.0))
            .collect();
        let mut args = vec!["TDIGEST.ADD", "big"];
        args.extend(values.iter().map(String::as_str));
        expect_ok(c, &args);
    }
    expect_ok(c, &["TDIGEST.CREATE", "small", "COMPRESSION", "5"]);
    expect_ok(
        c,
        &[
            "TDIGEST.ADD",
            "small",
            "1",
            "2",
            "3",
            "-0",
            "0",
            "2.5e-324",
            "1e300",
        ],
    );
    expect_ok(
        c,
        &[
            "TDIGEST.MERGE",
            "merged",
            "2",
            "big",
            "small",
            "COMPRESSION",
            "50",
        ],
    );
    expect_ok(c, &["TDIGEST.CREATE", "one"]);
    expect_ok(c, &["TDIGEST.ADD", "one", "42.5"]);
    expect_ok(c, &["TDIGEST.CREATE", "empty"]);
    expect_ok(c, &["TDIGEST.CREATE", "reset", "COMPRESSION", "7"]);
    expect_ok(c, &["TDIGEST.ADD", "reset", "1", "2"]);
    expect_ok(c, &["TDIGEST.RESET", "reset"]);
    vec!["big", "small", "merged", "one", "empty", "reset"]
}

/// DUMP body (without version and CRC), INFO and a set of answers.
fn state(c: &mut Connection, key: &str) -> Vec<redis::Value> {
    let dump = as_bytes(&raw(c, &["DUMP", key]));
    let body = redis::Value::BulkString(dump[..dump.len() - 10].to_vec());
    let mut out = vec![body];
    for q in [
        vec!["TDIGEST.INFO", key],
        vec!["TDIGEST.MIN", key],
        vec!["TDIGEST.MAX", key],
        vec!["TDIGEST.QUANTILE", key, "0", "0.1", "0.5", "0.9", "1"],
        vec!["TDIGEST.CDF", key, "0", "1", "42.5", "1000", "10000"],
        vec!["TDIGEST.RANK", key, "0", "1", "42.5", "1000"],
        vec!["TDIGEST.REVRANK", key, "0", "1", "42.5", "1000"],
        vec!["TDIGEST.BYRANK", key, "0", "1", "100", "1000"],
        vec!["TDIGEST.BYREVRANK", key, "0", "1", "100", "1000"],
        vec!["TDIGEST.TRIMMED_MEAN", key, "0.1", "0.9"],
        vec!["TDIGEST.INFO", key],
    ] {
        out.push(raw(c, &q));
    }
    out
}

fn snapshot(c: &mut Connection, keys: &[&str]) -> Vec<Vec<redis::Value>> {
    keys.iter().map(|k| state(c, k)).collect()
}

fn verify(c: &mut Connection, keys: &[&str], want: &[Vec<redis::Value>], how: &str) {
    for (k, w) in keys.iter().zip(want) {
        assert_eq!(&state(c, k), w, "{k} after {how}");
    }
    let one = raw(c, &["TDIGEST.MIN", "one"]);
    assert_eq!(as_text(&one), "42.5", "one after {how}");
}

#[test]
fn dump_restore_debug_reload_and_restart() {
    let mut s = Server::start();
    let mut c = s.conn();
    let keys = build(&mut c);
    let snap = snapshot(&mut c, &keys);
    // DUMP / RESTORE into other keys.
    for (k, w) in keys.iter().zip(&snap) {
        let dump = as_bytes(&raw(&mut c, &["DUMP", k]));
        let copy = format!("{k}:copy");
        let args: [&[u8]; 4] = [b"RESTORE", copy.as_bytes(), b"0", &dump];
        expect_ok(&mut c, &args);
        let mut got = state(&mut c, &copy);
        got[0] = w[0].clone(); // The key name is not in the body; the bodies are compared next.
        assert_eq!(&got, w, "{k}: RESTORE");
        assert_eq!(
            as_bytes(&raw(&mut c, &["DUMP", &copy])),
            dump,
            "{k}: re-DUMP"
        );
        // COPY is deep: adding to the copy leaves the original alone.
        let copy2 = format!("{k}:copy2");
        expect_int(&mut c, &["COPY", k, &copy2], 1);
        expect_ok(&mut c, &["TDIGEST.ADD", &copy2, "7"]);
        assert_eq!(&state(&mut c, k), w, "{k}: after adding to its COPY");
        expect_int(&mut c, &["DEL", &copy, &copy2], 2);
    }
    // The one-value digest keeps its value: QUANTILE still answers nan (RedisBloom's
    // one-value behaviour), RANK 0, and adding a second value makes a real digest.
    expect_ok(&mut c, &["DEBUG", "RELOAD"]);
    verify(&mut c, &keys, &snap, "DEBUG RELOAD");
    drop(c);
    s.restart(&[]);
    let mut c = s.conn();
    verify(&mut c, &keys, &snap, "a restart from the RDB");
    assert_eq!(
        as_ints(&raw(&mut c, &["TDIGEST.RANK", "one", "42.5"])),
        vec![0]
    );
    expect_ok(&mut c, &["TDIGEST.ADD", "one", "50"]);
    let q = raw(&mut c, &["TDIGEST.QUANTILE", "one", "0", "1"]);
    let texts: Vec<String> = match q {
        redis::Value::Array(items) => items.iter().map(as_text).collect(),
        other => panic!("{other:?}"),
    };
    assert_eq!(texts, vec!["42.5", "50"]);
}

#[test]
fn aof_with_and_without_preamble() {
    for preamble in ["yes", "no"] {
        let mut s = Server::start();
        let mut c = s.conn();
        let keys = build(&mut c);
        expect_ok(&mut c, &["CONFIG", "SET", "aof-use-rdb-preamble", preamble]);
        expect_ok(&mut c, &["CONFIG", "SET", "appendonly", "yes"]);
        wait_for_aof_rewrite(&mut c);
        let v = raw(&mut c, &["BGREWRITEAOF"]);
        assert!(err_of(&v).is_none(), "BGREWRITEAOF answered {v:?}");
        wait_for_aof_rewrite(&mut c);
        if preamble == "no" {
            let (_, bytes) = s.aof_base();
            let commands = parse_aof(&bytes).expect("plain RESP");
            for k in &keys {
                assert!(
                    commands
                        .iter()
                        .any(|a| a[0].eq_ignore_ascii_case(b"RESTORE")
                            && a[1] == k.as_bytes()
                            && a[2] == b"0"),
                    "no RESTORE {k} 0 in the AOF"
                );
            }
        }
        // Writes after the rewrite are logged as commands.
        expect_ok(&mut c, &["TDIGEST.ADD", "small", "9", "10"]);
        expect_ok(&mut c, &["TDIGEST.MERGE", "merged", "1", "small"]);
        let snap = snapshot(&mut c, &keys);
        drop(c);
        std::fs::remove_file(s.dir().join("dump.rdb")).ok();
        s.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", preamble]);
        let mut c = s.conn();
        expect_int(&mut c, &["DBSIZE"], keys.len() as i64);
        verify(
            &mut c,
            &keys,
            &snap,
            &format!("the AOF (preamble {preamble})"),
        );
    }
}

#[test]
fn replicas_hold_the_same_digests() {
    let primary = Server::start();
    let replica = primary.start_replica();
    let mut p = primary.conn();
    let mut r = replica.conn();
    let keys = build(&mut p);
    expect_ok(&mut p, &["TDIGEST.ADD", "small", "4", "5"]);
    expect_ok(
        &mut p,
        &[
            "TDIGEST.MERGE",
            "merged",
            "2",
            "merged",
            "small",
            "OVERRIDE",
        ],
    );
    expect_int(&mut p, &["WAIT", "1", "5000"], 1);
    // Both compress at their DUMP, from the same state.
    for k in &keys {
        assert_eq!(state(&mut p, k), state(&mut r, k), "{k} on the replica");
    }
}

/// An ADD that fails part way (weights near 2^63: t-digest-c's double total rounds additions
/// away and the node buffer fills) keeps the values before it, as RedisBloom does, and
/// replicates just those, so the replica ends in the primary's state.
#[test]
fn a_partial_add_replicates_what_it_added() {
    use common::rdb::{Frame, F};
    let primary = Server::start();
    let replica = primary.start_replica();
    let mut p = primary.conn();
    let mut r = replica.conn();
    expect_ok(&mut p, &["TDIGEST.CREATE", "frame", "COMPRESSION", "10"]);
    let frame = Frame::from_dump(&as_bytes(&raw(&mut p, &["DUMP", "frame"])));
    // One centroid holding 2^63 - 1024 observations (the largest count a double holds).
    let w = 9223372036854774784.0;
    let fields = [
        F::D(10.0),
        F::D(5.0),
        F::D(5.0),
        F::U(70),
        F::U(1),
        F::U(0),
        F::U(1),
        F::D(w),
        F::D(0.0),
        F::D(5.0),
        F::D(w),
    ];
    assert_eq!(
        common::rdb::restore(&mut p, "big", &frame.payload(&fields)),
        redis::Value::Okay
    );
    // Values above the huge centroid never merge: the buffer fills and adding fails.
    let values: Vec<String> = (10..2010).map(|i| i.to_string()).collect();
    let mut args = vec!["TDIGEST.ADD", "big"];
    args.extend(values.iter().map(String::as_str));
    let v = raw(&mut p, &args);
    assert_eq!(
        err_of(&v).as_deref(),
        Some("ERR T-Digest: overflow detected")
    );
    let info = raw(&mut p, &["TDIGEST.INFO", "big"]);
    let redis::Value::Array(items) = &info else {
        panic!("{info:?}")
    };
    assert!(
        as_int(&items[5]) > 60,
        "merged nodes: the values added before the error"
    );
    expect_int(&mut p, &["WAIT", "1", "5000"], 1);
    assert_eq!(state(&mut p, "big"), state(&mut r, "big"), "the replica");
}
