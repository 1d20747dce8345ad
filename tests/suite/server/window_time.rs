//! A TIME window's time is the primary's. Its adds that move the window's clock are
//! replicated and logged as `APBF.INSERTAT key <ms> items...` with the primary's moment (the
//! others, at the window's clock, as they came: `window_verbatim`), so a replica and an AOF
//! replay (at a later moment, on a clock of their own) hold the primary's bytes exactly; a
//! COUNT window's adds, whose answers do not depend on time, travel as they came. A keyed
//! window's creation carries its secret (the header), so the replica and the replay hash as
//! the primary does.

use rsbloom_test_support as common;

use std::collections::BTreeMap;
use std::fs;

use common::*;
use redis::{Connection, Value};

fn dumps(c: &mut Connection, keys: &[&str]) -> BTreeMap<String, Vec<u8>> {
    keys.iter()
        .map(|k| (k.to_string(), as_bytes(&raw(c, &["DUMP", k]))))
        .collect()
}

fn mexists(c: &mut Connection, key: &str, items: &[Vec<u8>]) -> Vec<i64> {
    let mut args: Vec<&[u8]> = vec![b"APBF.MEXISTS", key.as_bytes()];
    args.extend(items.iter().map(Vec::as_slice));
    as_ints(&raw(c, &args))
}

#[test]
fn a_time_windows_adds_reach_replicas_and_the_aof_at_the_primarys_moment() {
    let mut primary = Server::start();
    let mut p = primary.conn();
    aof_always(&mut p, false);
    let replica = primary.start_replica();
    let mut r = replica.conn();

    let old = gen_items("old:", 0..50);
    let live = gen_items("live:", 0..300);
    let never = gen_items("never:", 0..2000);
    expect_ok(
        &mut p,
        &["APBF.RESERVE", "t", "TIME", "0.01", "1000", "3600"],
    );
    // At the start of 1970: out of the window long ago.
    let mut args: Vec<&[u8]> = vec![b"APBF.INSERTAT", b"t", b"1000"];
    args.extend(old.iter().map(Vec::as_slice));
    assert_eq!(as_ints(&raw(&mut p, &args)), vec![1; old.len()]);
    // Now, one command at a time, so the moments differ.
    for item in &live {
        let add: [&[u8]; 3] = [b"APBF.ADD", b"t", item];
        raw(&mut p, &add);
    }
    expect_ok(&mut p, &["APBF.RESERVE", "c", "COUNT", "0.01", "500"]);
    let mut args: Vec<&[u8]> = vec![b"APBF.MADD", b"c"];
    args.extend(live.iter().map(Vec::as_slice));
    raw(&mut p, &args);
    expect_int(&mut p, &["APBF.ADD", "implicit", "a"], 1);
    expect_ok(
        &mut p,
        &[
            "APBF.RESERVE",
            "kt",
            "TIME",
            "0.01",
            "1000",
            "3600",
            "KEYED",
        ],
    );
    let mut args: Vec<&[u8]> = vec![b"APBF.INSERTAT", b"kt", b"1000"];
    args.extend(old.iter().map(Vec::as_slice));
    raw(&mut p, &args);
    let mut args: Vec<&[u8]> = vec![b"APBF.MADD", b"kt"];
    args.extend(live.iter().map(Vec::as_slice));
    assert_eq!(as_ints(&raw(&mut p, &args)), vec![1; live.len()]);
    expect_int(&mut p, &["WAIT", "1", "5000"], 1);

    // The replica holds the primary's bytes, times (and the keyed window's secret)
    // included, and answers alike.
    let keys = ["t", "c", "implicit", "kt"];
    let want = dumps(&mut p, &keys);
    let got = dumps(&mut r, &keys);
    for key in keys {
        if got[key] != want[key] {
            let info = |c: &mut Connection| format!("{:?}", raw(c, &["APBF.INFO", key]));
            panic!(
                "{key}: the replica's DUMP differs: {} vs {}",
                info(&mut r),
                info(&mut p)
            );
        }
    }
    assert_eq!(mexists(&mut p, "t", &live), vec![1; live.len()]);
    let old_found = mexists(&mut p, "t", &old).iter().sum::<i64>();
    assert!(old_found <= 5, "{old_found} of 50 expired items found");
    assert_eq!(mexists(&mut r, "kt", &live), vec![1; live.len()]);
    for key in ["t", "c", "kt"] {
        for items in [&old, &live, &never] {
            assert_eq!(
                mexists(&mut r, key, items),
                mexists(&mut p, key, items),
                "{key}"
            );
        }
    }

    // The log: the TIME window's adds carry their moment; the COUNT window's come as sent.
    let log = primary.aof_incr();
    let on = |key: &[u8]| -> Vec<String> {
        log.iter()
            .filter(|a| a.len() > 1 && a[1] == key && a[0].len() > 5)
            .filter(|a| a[0][..5].eq_ignore_ascii_case(b"APBF."))
            .map(|a| String::from_utf8_lossy(&a[0]).to_ascii_uppercase())
            .collect()
    };
    let t = on(b"t");
    assert_eq!(t[0], "APBF.LOADCHUNK", "the creation pins the shape: {t:?}");
    // The INSERTAT in 1970, then the first add now (moving the clock); each later add moves
    // it (APBF.INSERTAT) or comes within the same millisecond (as it was sent).
    assert_eq!(t[1..3], ["APBF.INSERTAT", "APBF.INSERTAT"], "{t:?}");
    assert!(
        t[1..]
            .iter()
            .all(|n| n == "APBF.INSERTAT" || n == "APBF.ADD"),
        "{t:?}"
    );
    assert_eq!(t.len(), 2 + live.len());
    assert_eq!(on(b"c"), ["APBF.LOADCHUNK", "APBF.MADD"]);
    let moments: Vec<u64> = log
        .iter()
        .filter(|a| a[0].eq_ignore_ascii_case(b"APBF.INSERTAT") && a[1] == b"t")
        .map(|a| String::from_utf8_lossy(&a[2]).parse().expect("a time"))
        .collect();
    assert!(moments.windows(2).all(|w| w[0] <= w[1]), "time goes back");
    assert!(
        moments[1] > 1_600_000_000_000,
        "the server's clock: {}",
        moments[1]
    );

    // A replay at a later moment, on its own clock, rebuilds the same bytes.
    drop(p);
    drop(r);
    fs::remove_file(primary.dir().join("dump.rdb")).ok();
    primary.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]);
    let mut p = primary.conn();
    assert_eq!(dumps(&mut p, &keys), want, "after the AOF replay");
    assert_eq!(mexists(&mut p, "t", &live), vec![1; live.len()]);
    assert_eq!(mexists(&mut p, "kt", &live), vec![1; live.len()]);
    let v: Value = raw(&mut p, &["APBF.INSERTAT", "t", "5", "late"]);
    assert_eq!(as_ints(&v), vec![1]);
}

/// A burst grows a TIME window on the primary: its replica and its AOF replay hold the same
/// bytes, burst layers included, though the replica's own `bf.max-filter-bytes` is lower
/// (the primary's stream is not held to it). Adds the primary refuses are not sent on: only
/// the items it took, so the replica never meets the refusal and holds the primary's bytes. A span later, an add gives the
/// layers' memory back on both.
#[test]
fn a_time_windows_burst_and_its_refusals_reach_replicas_and_the_aof() {
    let mut primary = Server::start();
    let mut p = primary.conn();
    expect_ok(&mut p, &["CONFIG", "SET", "appendfsync", "always"]);
    expect_ok(&mut p, &["CONFIG", "SET", "aof-use-rdb-preamble", "no"]);
    expect_ok(&mut p, &["CONFIG", "SET", "appendonly", "yes"]);
    wait_for_aof_rewrite(&mut p);
    let replica = primary.start_replica();
    let mut r = replica.conn();
    let insert = |c: &mut Connection, ms: u64, items: &[Vec<u8>]| -> Value {
        let ms = ms.to_string();
        let mut args: Vec<&[u8]> = vec![b"APBF.INSERTAT", b"t", ms.as_bytes()];
        args.extend(items.iter().map(Vec::as_slice));
        raw(c, &args)
    };
    let info = crate::apbf::apbf_field;
    let same = |p: &mut Connection, r: &mut Connection, when: &str| {
        expect_int(p, &["WAIT", "1", "5000"], 1);
        assert_eq!(
            dumps(r, &["t"]),
            dumps(p, &["t"]),
            "{when}: the replica differs"
        );
    };

    expect_ok(
        &mut p,
        &["APBF.RESERVE", "t", "TIME", "0.01", "200", "3600"],
    );
    let reserved = info(&mut p, "t", "Size");
    // The replica's own limit is the reserved size: the primary's stream is not held to it
    // (a replica takes what its primary took).
    expect_ok(
        &mut r,
        &[
            "CONFIG",
            "SET",
            "bf.max-filter-bytes",
            &reserved.to_string(),
        ],
    );
    // A day ahead of the clock: lookups are answered at the window's moment.
    let t0 = {
        let Value::Array(a) = raw(&mut p, &["TIME"]) else {
            panic!("TIME")
        };
        as_text(&a[0]).parse::<u64>().unwrap() * 1000 + 86_400_000
    };
    let burst = gen_items("burst:", 0..2000);
    for (i, chunk) in burst.chunks(500).enumerate() {
        assert_eq!(as_ints(&insert(&mut p, t0 + i as u64, chunk)).len(), 500);
    }
    assert!(info(&mut p, "t", "Burst layers") >= 2);
    same(&mut p, &mut r, "after the burst");
    assert_eq!(mexists(&mut r, "t", &burst), vec![1; burst.len()]);

    // The primary may not grow further; the replica could.
    let limit = info(&mut p, "t", "Size").to_string();
    expect_ok(&mut p, &["CONFIG", "SET", "bf.max-filter-bytes", &limit]);
    let more = gen_items("more:", 0..3000);
    let v = insert(&mut p, t0 + 10, &more);
    let Value::Array(a) = &v else { panic!("{v:?}") };
    let refusal = err_of(a.last().unwrap()).expect("a refusal");
    assert!(
        refusal.starts_with("ERR sliding window is full"),
        "{refusal}"
    );
    let taken = a.len() - 1;
    expect_err_prefix(
        &mut p,
        &["APBF.ADD", "t", "one"],
        "ERR sliding window is full",
    );
    same(&mut p, &mut r, "after the refusals");
    assert_eq!(info(&mut p, "t", "Refused adds"), 2);
    assert_eq!(
        info(&mut r, "t", "Refused adds"),
        0,
        "the replica met no refusal"
    );
    assert_eq!(
        mexists(&mut r, "t", &more[..taken]),
        vec![1; taken],
        "the items taken"
    );

    // A span after the burst: the next add drops the layers, on both.
    assert_eq!(
        as_ints(&insert(&mut p, t0 + 3_600_011, &[b"later".to_vec()])),
        [1]
    );
    same(&mut p, &mut r, "a span later");
    assert_eq!(info(&mut p, "t", "Burst layers"), 0);
    assert_eq!(info(&mut r, "t", "Size"), reserved);

    // The log holds exactly the items taken, and replays to the same bytes.
    let log = primary.aof_incr();
    let logged: usize = log
        .iter()
        .filter(|a| a[0].eq_ignore_ascii_case(b"APBF.INSERTAT") && a[1] == b"t")
        .map(|a| a.len() - 3)
        .sum();
    assert_eq!(logged, burst.len() + taken + 1);
    let want = dumps(&mut p, &["t"]);
    drop(p);
    drop(r);
    fs::remove_file(primary.dir().join("dump.rdb")).ok();
    primary.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]);
    let mut p = primary.conn();
    assert_eq!(dumps(&mut p, &["t"]), want, "after the AOF replay");
}
