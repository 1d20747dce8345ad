//! Counting filters survive every way the server moves data: DEBUG RELOAD, restart from the
//! RDB, the AOF (rewritten as CBF.LOADCHUNK calls, with and without the RDB preamble, and
//! replayed writes), DUMP / RESTORE, COPY and SCANDUMP / LOADCHUNK into another key. After
//! each, CBF.INFO, the digest, the export and every answer and count are as before.

use rsbloom_test_support as common;

use std::collections::BTreeMap;

use common::*;
use redis::Connection;

use super::{multi, state, State};

/// Keys of several shapes: 4- and 8-bit counters, saturated counters, deletes, binary
/// items, an empty filter, one created implicitly.
fn build(c: &mut Connection) -> Vec<String> {
    expect_ok(c, &["CBF.RESERVE", "four", "0.01", "5000"]);
    multi(c, "CBF.MADD", "four", &gen_items("four:", 0..4000));
    multi(c, "CBF.MDEL", "four", &gen_items("four:", 0..1500));
    expect_ok(
        c,
        &["CBF.RESERVE", "eight", "0.001", "2000", "COUNTERBITS", "8"],
    );
    let mut items = gen_items("eight:", 0..1500);
    items.push(Vec::new());
    items.push(b"\x00\xff\xfe\x80".to_vec());
    multi(c, "CBF.MADD", "eight", &items);
    expect_ok(c, &["CBF.RESERVE", "hot", "0.01", "100"]);
    for _ in 0..40 {
        raw(c, &["CBF.MADD", "hot", "h1", "h2", "h3"]);
    }
    expect_ok(c, &["CBF.RESERVE", "empty", "0.05", "10"]);
    expect_int(c, &["CBF.ADD", "auto", "a"], 1);
    ["four", "eight", "hot", "empty", "auto"]
        .map(String::from)
        .to_vec()
}

fn queries() -> Vec<Vec<u8>> {
    let mut q = gen_items("four:", 0..4000);
    q.extend(gen_items("eight:", 0..1500));
    q.extend(gen_items("never:", 0..3000));
    q.extend([b"h1".to_vec(), b"h2".to_vec(), Vec::new(), b"a".to_vec()]);
    q
}

fn snapshot(c: &mut Connection, keys: &[String]) -> BTreeMap<String, State> {
    let q = queries();
    keys.iter().map(|k| (k.clone(), state(c, k, &q))).collect()
}

fn verify(c: &mut Connection, snap: &BTreeMap<String, State>, what: &str) {
    let q = queries();
    for (key, want) in snap {
        let got = state(c, key, &q);
        assert!(
            got == *want,
            "{what}: {key} changed: {:?} vs {:?}",
            got.info,
            want.info
        );
    }
}

#[test]
fn debug_reload_and_restart_from_rdb() {
    let mut s = Server::start();
    let mut c = s.conn();
    let keys = build(&mut c);
    let snap = snapshot(&mut c, &keys);
    assert!(super::cbf_field(&mut c, "hot", "Saturated counters") > 0);
    expect_ok(&mut c, &["DEBUG", "RELOAD"]);
    verify(&mut c, &snap, "DEBUG RELOAD");
    expect_ok(&mut c, &["SAVE"]);
    drop(c);
    s.restart(&[]);
    let mut c = s.conn();
    expect_int(&mut c, &["DBSIZE"], keys.len() as i64);
    verify(&mut c, &snap, "restart from the RDB");
}

fn aof(preamble: bool) {
    let mut s = Server::start();
    let mut c = s.conn();
    let mut keys = build(&mut c);
    let pre = if preamble { "yes" } else { "no" };
    expect_ok(&mut c, &["CONFIG", "SET", "bf.chunk-bytes", "64"]);
    expect_ok(&mut c, &["CONFIG", "SET", "aof-use-rdb-preamble", pre]);
    expect_ok(&mut c, &["CONFIG", "SET", "appendonly", "yes"]);
    wait_for_aof_rewrite(&mut c);
    let v = raw(&mut c, &["BGREWRITEAOF"]);
    assert!(err_of(&v).is_none(), "BGREWRITEAOF answered {v:?}");
    wait_for_aof_rewrite(&mut c);
    if !preamble {
        let (base, bytes) = s.aof_base();
        let commands = parse_aof(&bytes).unwrap_or_else(|e| panic!("{base}: {e}"));
        for key in &keys {
            let chunks: Vec<_> = commands
                .iter()
                .filter(|a| a[0].eq_ignore_ascii_case(b"CBF.LOADCHUNK") && a[1] == key.as_bytes())
                .collect();
            assert!(
                chunks.len() >= 2,
                "{key}: {} CBF.LOADCHUNK calls",
                chunks.len()
            );
            assert_eq!(chunks[0][2], b"1", "{key}: the header first");
            assert!(
                chunks[1..].iter().all(|ch| ch[3].len() <= 64),
                "{key}: chunk over 64 bytes"
            );
        }
    }
    // Writes after the rewrite, logged as commands, with defaults the replay will not have.
    expect_ok(&mut c, &["CONFIG", "SET", "bf.cbf-initial-size", "77"]);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.cbf-counter-bits", "8"]);
    multi(&mut c, "CBF.MADD", "late", &gen_items("late:", 0..50));
    multi(&mut c, "CBF.MDEL", "four", &gen_items("four:", 1500..1700));
    expect_int(&mut c, &["CBF.DEL", "hot", "h1"], 1);
    keys.push("late".into());
    let snap = snapshot(&mut c, &keys);
    drop(c);
    std::fs::remove_file(s.dir().join("dump.rdb")).ok();
    s.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", pre]);
    let mut c = s.conn();
    expect_int(&mut c, &["DBSIZE"], keys.len() as i64);
    verify(&mut c, &snap, &format!("AOF replay, preamble {pre}"));
    assert_eq!(super::cbf_field(&mut c, "late", "Capacity"), 77);
}

#[test]
fn aof_rewrite_and_replay_without_preamble() {
    aof(false);
}

#[test]
fn aof_rewrite_and_replay_with_preamble() {
    aof(true);
}

#[test]
fn dump_restore_copy_and_scandump() {
    let s = Server::start();
    let mut c = s.conn();
    let keys = build(&mut c);
    let snap = snapshot(&mut c, &keys);
    let q = queries();
    for key in &keys {
        let payload = as_bytes(&raw(&mut c, &["DUMP", key]));
        let copy = format!("{key}:restored");
        expect_ok(&mut c, &[b"RESTORE", copy.as_bytes(), b"0", &payload]);
        assert!(state(&mut c, &copy, &q) == snap[key], "RESTORE of {key}");
        let copied = format!("{key}:copied");
        expect_int(&mut c, &["COPY", key, &copied], 1);
        assert!(state(&mut c, &copied, &q) == snap[key], "COPY of {key}");
        // The copy is independent.
        raw(&mut c, &["CBF.ADD", &copied, "more"]);
        assert!(
            state(&mut c, key, &q) == snap[key],
            "{key} changed by its copy"
        );
        // SCANDUMP in small chunks, LOADCHUNK into a new key.
        expect_ok(&mut c, &["CONFIG", "SET", "bf.chunk-bytes", "100"]);
        let mut iter = 0i64;
        let scanned = format!("{key}:scanned");
        loop {
            let v = raw(&mut c, &["CBF.SCANDUMP", key, &iter.to_string()]);
            let (next, data) = match &v {
                redis::Value::Array(a) => (as_int(&a[0]), as_bytes(&a[1])),
                other => panic!("{other:?}"),
            };
            if next == 0 {
                assert!(data.is_empty());
                break;
            }
            assert!(data.len() <= 100);
            let n = next.to_string();
            expect_ok(
                &mut c,
                &[b"CBF.LOADCHUNK", scanned.as_bytes(), n.as_bytes(), &data],
            );
            iter = next;
        }
        assert!(
            state(&mut c, &scanned, &q) == snap[key],
            "SCANDUMP/LOADCHUNK of {key}"
        );
    }
    // A key restored over another type with REPLACE, and MEMORY USAGE as CBF.INFO Size.
    expect_ok(&mut c, &["SET", "s", "x"]);
    let payload = as_bytes(&raw(&mut c, &["DUMP", "four"]));
    expect_ok(&mut c, &[&b"RESTORE"[..], b"s", b"0", &payload, b"REPLACE"]);
    assert!(state(&mut c, "s", &q) == snap["four"]);
    assert!(memory_usage(&mut c, "four") >= super::cbf_field(&mut c, "four", "Size"));
}
