//! Sketches survive every way Redis moves data: DEBUG RELOAD, restart from the RDB, the AOF
//! rewrite (`RESTORE key 0 <DUMP>` per key, as RedisBloom writes it) with and without the
//! RDB preamble and the replay of commands logged after it, DUMP/RESTORE, COPY. After each,
//! every key's DUMP body, CMS.INFO, digest and answers are as before; sketches of each cell
//! size among them (1, 2 and 8 bytes: encoding version 0 with the size after the counters).

use rsbloom_test_support as common;

use common::rdb::dump_body;
use common::*;
use redis::Connection;
use std::collections::BTreeMap;

use super::info_ints;

const KEYS: [&str; 9] = [
    "dim", "prob", "sat", "merged", "bin", "empty", "cell1", "cell2", "cell8",
];

/// Sketches of several shapes and histories.
fn build(c: &mut Connection) {
    expect_ok(c, &["CMS.INITBYDIM", "dim", "500", "4"]);
    expect_ok(c, &["CMS.INITBYPROB", "prob", "0.001", "0.01"]);
    expect_ok(c, &["CMS.INITBYDIM", "sat", "16", "2"]);
    expect_ok(c, &["CMS.INITBYDIM", "merged", "500", "4"]);
    expect_ok(c, &["CMS.INITBYDIM", "bin", "100", "3"]);
    expect_ok(c, &["CMS.INITBYDIM", "empty", "10", "1"]);
    for key in ["dim", "prob"] {
        for part in gen_items(&format!("{key}:"), 0..3000).chunks(200) {
            let mut args: Vec<Vec<u8>> = vec![b"CMS.INCRBY".to_vec(), key.as_bytes().to_vec()];
            for (i, item) in part.iter().enumerate() {
                args.push(item.clone());
                args.push((1 + i % 5).to_string().into_bytes());
            }
            raw(c, &args);
        }
    }
    raw(
        c,
        &[
            "CMS.INCRBY",
            "sat",
            "a",
            "4294967295",
            "b",
            "9223372036854775807",
        ],
    );
    raw(c, &["CMS.INCRBY", "sat", "c", "9223372036854775807"]);
    let v = raw(
        c,
        &[
            "CMS.MERGE",
            "merged",
            "2",
            "dim",
            "merged",
            "WEIGHTS",
            "3",
            "1",
        ],
    );
    assert_eq!(v, redis::Value::Okay, "MERGE answered {v:?}");
    let binary: [&[u8]; 4] = [b"", b"\x00\x01", b"\xff\xfe\r\n", b"a b\tc"];
    for item in binary {
        let args: [&[u8]; 4] = [b"CMS.INCRBY", b"bin", item, b"7"];
        raw(c, &args);
    }
    // Each other cell size, counted into up to its maximum, decremented, merged.
    for (key, size, max) in [
        ("cell1", "1", 255u64),
        ("cell2", "2", 65535),
        ("cell8", "8", i64::MAX as u64),
    ] {
        expect_ok(c, &["CMS.INITBYDIM", key, "300", "3", "CELL_SIZE", size]);
        for part in gen_items("dim:", 0..900).chunks(150) {
            let mut args: Vec<Vec<u8>> = vec![b"CMS.INCRBY".to_vec(), key.as_bytes().to_vec()];
            for (i, item) in part.iter().enumerate() {
                args.push(item.clone());
                args.push((1 + i % 5).to_string().into_bytes());
            }
            raw(c, &args);
        }
        raw(
            c,
            &[
                "CMS.INCRBY",
                key,
                "c",
                &(max - 100).to_string(),
                "dim:1",
                "-1",
            ],
        );
        expect_ok(c, &["CMS.MERGE", key, "1", key, "WEIGHTS", "1"]);
    }
}

fn queries() -> Vec<Vec<u8>> {
    let mut q = gen_items("dim:", 0..3000);
    q.extend(gen_items("prob:", 0..500));
    q.extend(gen_items("never:", 0..200));
    q.extend([
        b"".to_vec(),
        b"\x00\x01".to_vec(),
        b"a".to_vec(),
        b"c".to_vec(),
    ]);
    q
}

/// What must survive, per key: the DUMP body, CMS.INFO, the digest, the answers.
type State = (Vec<u8>, Vec<i64>, String, Vec<i64>);

fn snapshot(c: &mut Connection) -> BTreeMap<&'static str, State> {
    let q = queries();
    KEYS.iter()
        .map(|&key| {
            let dump = as_bytes(&raw(c, &["DUMP", key]));
            let mut args: Vec<Vec<u8>> = vec![b"CMS.QUERY".to_vec(), key.as_bytes().to_vec()];
            args.extend(q.iter().cloned());
            let answers = as_ints(&raw(c, &args));
            let state = (
                dump_body(&dump).to_vec(),
                info_ints(c, key),
                digest_value(c, key),
                answers,
            );
            (key, state)
        })
        .collect()
}

fn verify(c: &mut Connection, before: &BTreeMap<&'static str, State>, how: &str) {
    expect_int(c, &["DBSIZE"], KEYS.len() as i64);
    let after = snapshot(c);
    for key in KEYS {
        assert!(after[key] == before[key], "{key} changed after {how}");
    }
}

#[test]
fn debug_reload() {
    let s = Server::start();
    let mut c = s.conn();
    build(&mut c);
    let snap = snapshot(&mut c);
    expect_ok(&mut c, &["DEBUG", "RELOAD"]);
    verify(&mut c, &snap, "DEBUG RELOAD");
}

#[test]
fn restart_from_rdb() {
    let mut s = Server::start();
    let mut c = s.conn();
    build(&mut c);
    let snap = snapshot(&mut c);
    expect_ok(&mut c, &["SAVE"]);
    drop(c);
    s.restart(&[]);
    let mut c = s.conn();
    verify(&mut c, &snap, "a restart from the RDB");
}

/// The rewrite without the RDB preamble writes one `RESTORE key 0 <payload>` per sketch,
/// the payload being the server's own DUMP; commands logged after it are replayed too.
#[test]
fn aof_rewrite_and_replay() {
    for preamble in ["no", "yes"] {
        let mut s = Server::start();
        let mut c = s.conn();
        build(&mut c);
        aof_always(&mut c, preamble == "yes");
        if preamble == "no" {
            let (base, bytes) = s.aof_base();
            let commands =
                parse_aof(&bytes).unwrap_or_else(|e| panic!("{base} is not plain RESP: {e}"));
            for key in KEYS {
                let restores: Vec<_> = commands
                    .iter()
                    .filter(|a| a[0].eq_ignore_ascii_case(b"RESTORE") && a[1] == key.as_bytes())
                    .collect();
                assert_eq!(restores.len(), 1, "{key}: RESTOREs in the AOF");
                assert_eq!(restores[0][2], b"0", "{key}: RESTORE ttl");
                let dump = as_bytes(&raw(&mut c, &["DUMP", key]));
                assert_eq!(
                    restores[0][3], dump,
                    "{key}: the RESTORE payload is its DUMP"
                );
            }
        }
        // Logged after the rewrite: a creation by probabilities, increments, a merge.
        expect_ok(&mut c, &["CMS.INITBYPROB", "late", "0.01", "0.125"]);
        raw(&mut c, &["CMS.INCRBY", "late", "x", "5", "y", "6"]);
        raw(&mut c, &["CMS.INCRBY", "dim", "dim:1", "100"]);
        expect_ok(
            &mut c,
            &["CMS.MERGE", "empty", "1", "empty", "WEIGHTS", "2"],
        );
        expect_int(&mut c, &["DEL", "late"], 1);
        expect_ok(&mut c, &["CMS.INITBYPROB", "late", "0.01", "0.125"]);
        raw(&mut c, &["CMS.INCRBY", "late", "x", "5"]);
        expect_ok(
            &mut c,
            &["CMS.INITBYPROB", "late2", "0.01", "0.125", "CELL_SIZE", "2"],
        );
        raw(
            &mut c,
            &["CMS.INCRBY", "late2", "x", "65535", "y", "7", "x", "-35"],
        );
        // CMS.INITBYPROB reached the AOF as CMS.INITBYDIM with its dimensions (and its cell
        // size if not 4).
        let logged: Vec<Vec<Vec<u8>>> = std::fs::read_dir(s.dir().join("appendonlydir"))
            .expect("appendonlydir")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".incr.aof"))
            .flat_map(|e| parse_aof(&std::fs::read(e.path()).expect("incr")).expect("RESP"))
            .collect();
        let creations: Vec<&Vec<Vec<u8>>> = logged
            .iter()
            .filter(|a| a[0].to_ascii_lowercase().starts_with(b"cms.initby") && a[1] == b"late")
            .collect();
        assert_eq!(creations.len(), 2, "creations in the AOF");
        let sized: Vec<&Vec<Vec<u8>>> = logged
            .iter()
            .filter(|a| a[0].to_ascii_lowercase().starts_with(b"cms.initby") && a[1] == b"late2")
            .collect();
        let want: Vec<Vec<u8>> = ["CMS.INITBYDIM", "late2", "200", "3", "CELL_SIZE", "2"]
            .iter()
            .map(|a| a.as_bytes().to_vec())
            .collect();
        assert_eq!(sized, [&want], "the sized creation in the AOF");
        for a in creations {
            assert_eq!(
                a[..],
                [
                    b"CMS.INITBYDIM".to_vec(),
                    b"late".to_vec(),
                    b"200".to_vec(),
                    b"3".to_vec()
                ]
            );
        }
        let snap = snapshot(&mut c);
        let late = |c: &mut Connection| {
            ["late", "late2"].map(|key| {
                (
                    dump_body(&as_bytes(&raw(c, &["DUMP", key]))).to_vec(),
                    info_ints(c, key),
                )
            })
        };
        let late_before = late(&mut c);
        assert_eq!(late_before[1].1[..2], [200, 3]);
        assert_eq!(late_before[1].1[3], 2);
        drop(c);
        std::fs::remove_file(s.dir().join("dump.rdb")).ok();
        s.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", preamble]);
        let mut c = s.conn();
        assert_eq!(
            late(&mut c),
            late_before,
            "late keys after the AOF replay (preamble {preamble})"
        );
        expect_int(&mut c, &["DEL", "late", "late2"], 2);
        verify(
            &mut c,
            &snap,
            &format!("the AOF replay (preamble {preamble})"),
        );
    }
}

#[test]
fn dump_restore_and_copy() {
    let s = Server::start();
    let mut c = s.conn();
    build(&mut c);
    let snap = snapshot(&mut c);
    for key in KEYS {
        let dump = as_bytes(&raw(&mut c, &["DUMP", key]));
        let args: [&[u8]; 5] = [b"RESTORE", b"copy", b"0", &dump, b"REPLACE"];
        expect_ok(&mut c, &args);
        assert_eq!(
            dump_body(&as_bytes(&raw(&mut c, &["DUMP", "copy"]))),
            &snap[key].0[..],
            "{key}: RESTORE"
        );
        expect_int(&mut c, &["COPY", key, "copy", "REPLACE"], 1);
        // The copy is deep: changing it leaves the original alone.
        raw(
            &mut c,
            &["CMS.INCRBY", "copy", "x", "1", "y", "1", "z", "1", "w", "1"],
        );
        assert_ne!(
            dump_body(&as_bytes(&raw(&mut c, &["DUMP", "copy"]))),
            &snap[key].0[..],
            "{key}: the copy did not change"
        );
    }
    expect_int(&mut c, &["DEL", "copy"], 1);
    verify(&mut c, &snap, "RESTORE and COPY");
}

/// MEMORY USAGE grows by exactly the counters' bytes (4 per counter): a sketch of 4 more
/// counters takes 16 more bytes under the same key name.
#[test]
fn memory_usage_counts_the_counters() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["CMS.INITBYDIM", "m", "1000", "5"]);
    let small = memory_usage(&mut c, "m");
    expect_int(&mut c, &["DEL", "m"], 1);
    expect_ok(&mut c, &["CMS.INITBYDIM", "m", "1000", "10"]);
    let large = memory_usage(&mut c, "m");
    assert_eq!(
        large - small,
        5000 * 4,
        "MEMORY USAGE of 5000 more counters"
    );
    assert!(small >= 32 + 5000 * 4, "MEMORY USAGE {small}");
}
