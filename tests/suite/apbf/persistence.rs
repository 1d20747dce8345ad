//! Sliding-window filters, a TIME window's burst layers included, survive every way the
//! server moves data: DEBUG RELOAD, restart from the RDB, the AOF (rewritten as
//! APBF.LOADCHUNK calls, with and without the RDB preamble, and replayed writes: a TIME
//! window's adds as APBF.INSERTAT at the primary's moment), DUMP / RESTORE, COPY and
//! SCANDUMP / LOADCHUNK into another key, keyed windows (their secrets) too. After each,
//! APBF.INFO, the digest, the SCANDUMP stream and every answer are as before. The TIME
//! windows' items were put hours from their expiry, so none of this depends on timing; the
//! last test is the one that does, with short sleeps and wide margins: what expired while
//! the server was down is forgotten when it comes back.

use rsbloom_test_support as common;

use std::collections::BTreeMap;
use std::thread::sleep;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::*;
use redis::Connection;

use super::{
    apbf_field, differences, found, insert_at, loadchunks, multi, scandump, server_ms, state, State,
};

const HOUR: u64 = 3_600_000;

/// Keys of both windows and several states: a COUNT window turned many times, TIME windows
/// with items forgotten and remembered, one whose clock is ahead of the server's, one with
/// overflows, binary items, empty filters, one created implicitly.
fn build(c: &mut Connection) -> Vec<String> {
    expect_ok(c, &["APBF.RESERVE", "count", "COUNT", "0.01", "2000"]);
    let mut items = gen_items("count:", 0..7000);
    items.push(Vec::new());
    items.push(b"\x00\xff\xfe\x80".to_vec());
    multi(c, "APBF.MADD", "count", &items);
    let now = server_ms(c);
    expect_ok(
        c,
        &["APBF.RESERVE", "time", "TIME", "0.001", "3000", "3600"],
    );
    insert_at(c, "time", now - 3 * HOUR, &gen_items("time-old:", 0..3000));
    insert_at(c, "time", now - 2 * HOUR, &gen_items("time-mid:", 0..2000));
    insert_at(c, "time", now - HOUR / 2, &gen_items("time-new:", 0..2500));
    // Its clock 10 hours ahead: everything before is forgotten, now and after any move.
    expect_ok(c, &["APBF.RESERVE", "ahead", "TIME", "0.01", "500", "3600"]);
    insert_at(c, "ahead", now - HOUR / 2, &gen_items("ahead-old:", 0..400));
    insert_at(
        c,
        "ahead",
        now + 10 * HOUR,
        &gen_items("ahead-new:", 0..100),
    );
    // Ten capacities in one span: burst layers.
    expect_ok(c, &["APBF.RESERVE", "burst", "TIME", "0.01", "300", "7200"]);
    for i in 0..10 {
        insert_at(
            c,
            "burst",
            now - HOUR + i * HOUR / 20,
            &gen_items(&format!("burst{i}:"), 0..300),
        );
    }
    assert!(apbf_field(c, "burst", "Overflows") > 0);
    assert!(apbf_field(c, "burst", "Burst layers") >= 2);
    expect_ok(c, &["APBF.RESERVE", "empty", "COUNT", "0.05", "10"]);
    expect_ok(
        c,
        &["APBF.RESERVE", "empty-time", "TIME", "0.05", "10", "0.5"],
    );
    expect_int(c, &["APBF.ADD", "auto", "a"], 1);
    // Keyed: a COUNT window turned many times, a TIME window with burst layers, an empty
    // one. Their secrets are in the SCANDUMP header the states compare, and hash the answers.
    expect_ok(
        c,
        &["APBF.RESERVE", "keyed", "COUNT", "0.01", "2000", "KEYED"],
    );
    multi(c, "APBF.MADD", "keyed", &gen_items("count:", 0..7000));
    expect_ok(
        c,
        &[
            "APBF.RESERVE",
            "keyed-burst",
            "TIME",
            "0.01",
            "300",
            "7200",
            "KEYED",
        ],
    );
    for i in 0..10 {
        insert_at(
            c,
            "keyed-burst",
            now - HOUR + i * HOUR / 20,
            &gen_items(&format!("burst{i}:"), 0..300),
        );
    }
    assert!(apbf_field(c, "keyed-burst", "Burst layers") >= 2);
    expect_ok(
        c,
        &[
            "APBF.RESERVE",
            "keyed-empty",
            "TIME",
            "0.05",
            "10",
            "1",
            "KEYED",
        ],
    );
    [
        "count",
        "time",
        "ahead",
        "burst",
        "empty",
        "empty-time",
        "auto",
        "keyed",
        "keyed-burst",
        "keyed-empty",
    ]
    .map(String::from)
    .to_vec()
}

fn queries() -> Vec<Vec<u8>> {
    let mut q = gen_items("count:", 0..7000);
    for (prefix, n) in [
        ("time-old:", 3000),
        ("time-mid:", 2000),
        ("time-new:", 2500),
        ("ahead-old:", 400),
        ("ahead-new:", 100),
        ("burst0:", 300),
        ("burst1:", 300),
        ("burst2:", 300),
        ("burst9:", 300),
        ("never:", 5000),
    ] {
        q.extend(gen_items(prefix, 0..n));
    }
    q.extend([Vec::new(), b"\x00\xff\xfe\x80".to_vec(), b"a".to_vec()]);
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
            "{what}: {key} changed: {}",
            differences(&got, want)
        );
    }
}

/// The states `build` made answer as they should (so the snapshots are worth comparing).
fn check_built(c: &mut Connection) {
    assert_eq!(found(c, "count", &gen_items("count:", 6000..7000)), 1000);
    assert_eq!(found(c, "time", &gen_items("time-new:", 0..2500)), 2500);
    assert!(found(c, "time", &gen_items("time-old:", 0..3000)) < 30);
    assert!(found(c, "time", &gen_items("time-mid:", 0..2000)) < 20);
    assert_eq!(found(c, "ahead", &gen_items("ahead-old:", 0..400)), 0);
    assert_eq!(found(c, "ahead", &gen_items("ahead-new:", 0..100)), 100);
    for i in 0..10 {
        let items = gen_items(&format!("burst{i}:"), 0..300);
        assert_eq!(found(c, "burst", &items), 300, "burst{i}");
        assert_eq!(found(c, "keyed-burst", &items), 300, "keyed burst{i}");
    }
    assert_eq!(found(c, "keyed", &gen_items("count:", 6000..7000)), 1000);
    for key in ["keyed", "keyed-burst", "keyed-empty"] {
        assert_eq!(apbf_field(c, key, "Keyed"), 1, "{key}");
    }
}

#[test]
fn debug_reload_and_restart_from_rdb() {
    let mut s = Server::start();
    let mut c = s.conn();
    let keys = build(&mut c);
    check_built(&mut c);
    let snap = snapshot(&mut c, &keys);
    expect_ok(&mut c, &["DEBUG", "RELOAD"]);
    verify(&mut c, &snap, "DEBUG RELOAD");
    expect_ok(&mut c, &["SAVE"]);
    drop(c);
    s.restart(&[]);
    let mut c = s.conn();
    expect_int(&mut c, &["DBSIZE"], keys.len() as i64);
    verify(&mut c, &snap, "restart from the RDB");
    check_built(&mut c);
}

fn aof(preamble: bool) {
    let mut s = Server::start();
    let mut c = s.conn();
    let mut keys = build(&mut c);
    let pre = if preamble { "yes" } else { "no" };
    expect_ok(&mut c, &["CONFIG", "SET", "bf.chunk-bytes", "64"]);
    aof_always(&mut c, preamble);
    let v = raw(&mut c, &["BGREWRITEAOF"]);
    assert!(err_of(&v).is_none(), "BGREWRITEAOF answered {v:?}");
    wait_for_aof_rewrite(&mut c);
    if !preamble {
        let (base, bytes) = s.aof_base();
        let commands = parse_aof(&bytes).unwrap_or_else(|e| panic!("{base}: {e}"));
        for key in &keys {
            let chunks: Vec<_> = commands
                .iter()
                .filter(|a| a.get(1).is_some_and(|k| k == key.as_bytes()))
                .collect();
            assert!(
                chunks.len() >= 2
                    && chunks
                        .iter()
                        .all(|a| a[0].eq_ignore_ascii_case(b"APBF.LOADCHUNK")),
                "{key}: written as {:?}",
                chunks
                    .iter()
                    .map(|a| show_args(&a[..2]))
                    .collect::<Vec<_>>()
            );
            assert_eq!(chunks[0][2], b"1", "{key}: the header first");
            assert!(chunks[0][3].starts_with(b"RSAP"), "{key}: the header first");
            assert!(
                chunks[1..].iter().all(|ch| ch[3].len() <= 64),
                "{key}: chunk over 64 bytes"
            );
        }
    }
    // Writes after the rewrite, logged as commands, with defaults the replay will not have.
    expect_ok(&mut c, &["CONFIG", "SET", "bf.apbf-capacity", "77"]);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.apbf-error-rate", "0.02"]);
    multi(&mut c, "APBF.MADD", "late", &gen_items("late:", 0..50));
    multi(
        &mut c,
        "APBF.MADD",
        "count",
        &gen_items("count-late:", 0..500),
    );
    expect_int(&mut c, &["APBF.ADD", "count", "one-more"], 1);
    // A TIME window's adds at the server's clock: logged at that moment.
    multi(
        &mut c,
        "APBF.MADD",
        "time",
        &gen_items("time-late:", 0..300),
    );
    expect_int(&mut c, &["APBF.ADD", "time", "time-one"], 1);
    expect_ok(
        &mut c,
        &["APBF.RESERVE", "late-time", "TIME", "0.01", "100", "3600"],
    );
    expect_int(&mut c, &["APBF.ADD", "late-time", "x"], 1);
    // A keyed creation after the rewrite: logged as its header, secret and all.
    expect_ok(
        &mut c,
        &[
            "APBF.RESERVE",
            "late-keyed",
            "COUNT",
            "0.01",
            "100",
            "KEYED",
        ],
    );
    multi(
        &mut c,
        "APBF.MADD",
        "late-keyed",
        &gen_items("late:", 0..50),
    );
    let now = server_ms(&mut c);
    insert_at(
        &mut c,
        "late-time",
        now - HOUR / 4,
        &gen_items("lt:", 0..20),
    );
    keys.extend(["late", "late-time", "late-keyed"].map(String::from));
    let snap = snapshot(&mut c, &keys);
    drop(c);
    // The log: TIME windows' adds as APBF.INSERTAT when they moved the window's clock (as
    // they came when they did not: within one millisecond), COUNT windows' as they came,
    // creations as their header.
    let log = s.aof_incr();
    let logged = |name: &[u8], key: &[u8]| {
        log.iter()
            .filter(|a| a[0].eq_ignore_ascii_case(name) && a.get(1).is_some_and(|k| k == key))
            .count()
    };
    let adds = |key: &[u8]| {
        logged(b"APBF.ADD", key) + logged(b"APBF.MADD", key) + logged(b"APBF.INSERTAT", key)
    };
    assert_eq!(adds(b"time"), 2);
    // The first add moves the window's clock (half an hour back); late-time's first add
    // moves its clock from 0, and the INSERTAT after it is sent as it came.
    assert!(logged(b"APBF.INSERTAT", b"time") >= 1);
    assert_eq!(logged(b"APBF.INSERTAT", b"late-time"), 2);
    assert_eq!(adds(b"late-time"), 2);
    assert_eq!(logged(b"APBF.ADD", b"count"), 1);
    assert_eq!(logged(b"APBF.LOADCHUNK", b"late"), 1);
    assert_eq!(logged(b"APBF.LOADCHUNK", b"late-time"), 1);
    assert_eq!(logged(b"APBF.LOADCHUNK", b"late-keyed"), 1);
    std::fs::remove_file(s.dir().join("dump.rdb")).ok();
    s.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", pre]);
    let mut c = s.conn();
    expect_int(&mut c, &["DBSIZE"], keys.len() as i64);
    verify(&mut c, &snap, &format!("AOF replay, preamble {pre}"));
    assert_eq!(apbf_field(&mut c, "late", "Capacity"), 77);
    assert_eq!(apbf_field(&mut c, "late-keyed", "Keyed"), 1);
    assert_eq!(found(&mut c, "late-keyed", &gen_items("late:", 0..50)), 50);
    assert_eq!(found(&mut c, "time", &gen_items("time-late:", 0..300)), 300);
    check_built(&mut c);
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
    expect_ok(&mut c, &["CONFIG", "SET", "bf.chunk-bytes", "1000"]);
    for key in &keys {
        let payload = as_bytes(&raw(&mut c, &["DUMP", key]));
        let copy = format!("{key}:restored");
        expect_ok(&mut c, &[b"RESTORE", copy.as_bytes(), b"0", &payload]);
        let got = state(&mut c, &copy, &q);
        assert!(
            got == snap[key],
            "RESTORE of {key}: {}",
            differences(&got, &snap[key])
        );
        let copied = format!("{key}:copied");
        expect_int(&mut c, &["COPY", key, &copied], 1);
        assert!(state(&mut c, &copied, &q) == snap[key], "COPY of {key}");
        // The copy is independent.
        let v = raw(&mut c, &["APBF.MADD", &copied, "more", "and more"]);
        assert!(err_of(&v).is_none(), "{v:?}");
        assert_ne!(digest_value(&mut c, &copied), snap[key].digest);
        assert!(
            state(&mut c, key, &q) == snap[key],
            "{key} changed by its copy"
        );
        // SCANDUMP in chunks of at most 1000 bytes, LOADCHUNK into a new key.
        let chunks = scandump(&mut c, key);
        assert!(chunks[1..].iter().all(|(_, d)| d.len() <= 1000), "{key}");
        let scanned = format!("{key}:scanned");
        loadchunks(&mut c, &scanned, &chunks);
        assert!(
            state(&mut c, &scanned, &q) == snap[key],
            "SCANDUMP/LOADCHUNK of {key}"
        );
        // The chunks in another order build the same filter (the header first).
        let reordered = format!("{key}:reordered");
        let mut shuffled = chunks.clone();
        shuffled[1..].reverse();
        loadchunks(&mut c, &reordered, &shuffled);
        assert!(
            state(&mut c, &reordered, &q) == snap[key],
            "reversed chunks of {key}"
        );
    }
    // A key restored over another type with REPLACE.
    expect_ok(&mut c, &["SET", "s", "x"]);
    let payload = as_bytes(&raw(&mut c, &["DUMP", "time"]));
    expect_ok(&mut c, &[&b"RESTORE"[..], b"s", b"0", &payload, b"REPLACE"]);
    assert!(state(&mut c, "s", &q) == snap["time"]);
    // RESTORE onto an existing key without REPLACE: BUSYKEY, the key unchanged.
    let v = raw(&mut c, &[&b"RESTORE"[..], b"count", b"0", &payload]);
    assert!(
        err_of(&v).is_some_and(|e| e.starts_with("BUSYKEY")),
        "{v:?}"
    );
    assert!(state(&mut c, "count", &q) == snap["count"]);
}

fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// Sleeps until the wall clock reads `ms`.
fn sleep_until(ms: u64) {
    let now = wall_ms();
    if ms > now {
        sleep(Duration::from_millis(ms - now));
    }
}

/// The gap between saving and loading: a TIME window of 2 s whose items were added 1 s
/// before the save is loaded 4 s after their add (from the RDB; from the AOF, where the
/// adds were logged at the primary's moment): they are forgotten, the state itself being
/// the same (digest), while a COUNT window's items are all still there.
#[test]
fn what_expired_while_down_is_forgotten() {
    let mut rdb = Server::start();
    let mut aof = Server::start_with(ServerOpts::server_args(&[
        "--appendonly",
        "yes",
        "--aof-use-rdb-preamble",
        "no",
    ]));
    let mut c = rdb.conn();
    let mut a = aof.conn();
    let items = gen_items("gap:", 0..500);
    let counted = gen_items("kept:", 0..500);
    for con in [&mut c, &mut a] {
        expect_ok(con, &["APBF.RESERVE", "t", "TIME", "0.01", "1000", "2"]);
        expect_ok(con, &["APBF.RESERVE", "n", "COUNT", "0.01", "1000"]);
        multi(con, "APBF.MADD", "n", &counted);
    }
    // RDB: the items put 1 s in the past; AOF: added now, at the server's clock.
    let added = server_ms(&mut c) - 1000;
    insert_at(&mut c, "t", added, &items);
    let added_aof = server_ms(&mut a);
    multi(&mut a, "APBF.MADD", "t", &items);
    // Still there before the save (1 s of margin).
    assert_eq!(found(&mut c, "t", &items), items.len());
    assert_eq!(found(&mut a, "t", &items), items.len());
    let digests = [digest_value(&mut c, "t"), digest_value(&mut a, "t")];
    let info = [apbf_field(&mut c, "t", "Number of items inserted"), 500];
    expect_ok(&mut c, &["SAVE"]);
    drop(c);
    drop(a);
    rdb.stop();
    aof.stop();
    // Down until 4 s past the adds: 2 s past their expiry.
    sleep_until(added.max(added_aof) + 4000);
    rdb.restart(&[]);
    aof.restart(&[]);
    let mut c = rdb.conn();
    let mut a = aof.conn();
    for (i, con) in [&mut c, &mut a].into_iter().enumerate() {
        let what = ["from the RDB", "from the AOF"][i];
        assert!(server_ms(con) >= added.max(added_aof) + 4000, "{what}");
        assert_eq!(
            digest_value(con, "t"),
            digests[i],
            "{what}: the state moved"
        );
        assert_eq!(
            apbf_field(con, "t", "Number of items inserted"),
            info[i],
            "{what}"
        );
        assert_eq!(
            found(con, "t", &items),
            0,
            "{what}: expired items answered 1"
        );
        assert_eq!(apbf_field(con, "t", "Items in window"), 0, "{what}");
        assert_eq!(
            found(con, "n", &counted),
            counted.len(),
            "{what}: COUNT window"
        );
        // The window goes on: a new add is remembered.
        expect_int(con, &["APBF.ADD", "t", "fresh"], 1);
        expect_int(con, &["APBF.EXISTS", "t", "fresh"], 1);
    }
}
