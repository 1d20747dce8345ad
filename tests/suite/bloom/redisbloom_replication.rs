//! `MBbloom--` filters on replicas. What a primary with `bf.new-filter-format redisbloom`
//! creates (BF.RESERVE, BF.ADD, BF.MADD, BF.INSERT), grows, restores from RedisBloom's own
//! DUMPs and loads from its SCANDUMPs reaches replicas left at the default `guava` format as
//! exactly the same MBbloom-- filters (TYPE, DUMP bytes, BF.DEBUG, BF.INFO, answers), through
//! the command stream and through a full sync. And the reverse: a primary at the default
//! format creates RSbloom-- filters, also on a replica set to `redisbloom`.

use rsbloom_test_support as common;

use common::faults::attach_replica;
use common::hostile::config_set;
use common::rdb::dump_body;
use common::redisbloom::{bytes_diff, Config};
use common::*;
use redis::{Connection, Value};
use std::time::Duration;

const FORMAT: &str = "bf.new-filter-format";
const FULL: &str = "ERR non scaling filter is full";

fn wait_replicas(c: &mut Connection, n: i64) {
    expect_int(c, &["WAIT", &n.to_string(), "5000"], n);
}

/// Every key, sorted.
fn keys(c: &mut Connection) -> Vec<String> {
    let mut keys: Vec<String> = match raw(c, &["KEYS", "*"]) {
        Value::Array(items) => items.iter().map(as_text).collect(),
        other => panic!("KEYS * answered {other:?}"),
    };
    keys.sort();
    keys
}

/// The replica holds every key of the primary, each of the type `type_of(key)` on both, with
/// the same DUMP bytes, BF.DEBUG, BF.INFO, BF.CARD and answers to `probes`.
fn assert_replicated(
    p: &mut Connection,
    r: &mut Connection,
    type_of: &dyn Fn(&str) -> &'static str,
    probes: &[Vec<u8>],
    which: &str,
) {
    let all = keys(p);
    assert_eq!(keys(r), all, "{which}: keys");
    for key in &all {
        let key = key.as_str();
        let want = type_of(key);
        assert_eq!(
            as_text(&raw(p, &["TYPE", key])),
            want,
            "TYPE {key} on the primary"
        );
        assert_eq!(
            as_text(&raw(r, &["TYPE", key])),
            want,
            "{which}: TYPE {key}"
        );
        let dump = as_bytes(&raw(p, &["DUMP", key]));
        let copy = as_bytes(&raw(r, &["DUMP", key]));
        assert!(
            copy == dump,
            "{which}: DUMP {key} differs: {}",
            bytes_diff(&copy, &dump)
        );
        assert_eq!(
            bf_debug(r, key),
            bf_debug(p, key),
            "{which}: BF.DEBUG {key}"
        );
        assert_eq!(
            raw(r, &["BF.INFO", key]),
            raw(p, &["BF.INFO", key]),
            "{which}: BF.INFO {key}"
        );
        assert_eq!(card(r, key), card(p, key), "{which}: BF.CARD {key}");
        assert!(
            mexists_all(r, key, probes) == mexists_all(p, key, probes),
            "{which}: answers of {key} differ"
        );
    }
}

/// BF.MADD of `items` in one command, errors allowed as elements (a full non-scaling filter).
fn madd_raw(c: &mut Connection, key: &str, items: &[Vec<u8>]) -> Vec<Value> {
    let mut args: Vec<&[u8]> = vec![b"BF.MADD", key.as_bytes()];
    args.extend(items.iter().map(|i| i.as_slice()));
    match raw(c, &args) {
        Value::Array(answers) => answers,
        other => panic!("BF.MADD {key} answered {other:?}"),
    }
}

/// Creations of every kind, on a primary whose format is what the test set. Returns the keys
/// that were created.
fn create_filters(p: &mut Connection) -> Vec<&'static str> {
    expect_ok(p, &["BF.RESERVE", "res", "0.01", "100"]);
    expect_ok(p, &["BF.RESERVE", "ns", "0.001", "1000", "NONSCALING"]);
    expect_ok(p, &["BF.RESERVE", "e4", "0.02", "64", "EXPANSION", "4"]);
    expect_int(p, &["BF.ADD", "viaadd", "a"], 1);
    expect_ints(p, &["BF.MADD", "viamadd", "a", "b", "c"], &[1, 1, 1]);
    expect_ints(
        p,
        &[
            "BF.INSERT",
            "ins",
            "CAPACITY",
            "50",
            "ERROR",
            "0.001",
            "EXPANSION",
            "3",
            "ITEMS",
            "x",
            "y",
            "z",
        ],
        &[1, 1, 1],
    );
    expect_ints(
        p,
        &[
            "BF.INSERT",
            "insns",
            "CAPACITY",
            "30",
            "ERROR",
            "0.05",
            "NONSCALING",
            "ITEMS",
            "x",
        ],
        &[1],
    );
    expect_ints(p, &["BF.INSERT", "insdef", "ITEMS", "x", "y"], &[1, 1]);
    // Implicit creations under another configuration of the primary's.
    config_set(p, "bf.initial-size", "1000");
    config_set(p, "bf.error-rate", "0.001");
    config_set(p, "bf.expansion-factor", "4");
    expect_int(p, &["BF.ADD", "cfgadd", "x"], 1);
    expect_ints(p, &["BF.MADD", "cfgmadd", "x", "y"], &[1, 1]);
    expect_ints(p, &["BF.INSERT", "cfgins", "ITEMS", "x"], &[1]);
    config_set(p, "bf.expansion-factor", "0");
    expect_int(p, &["BF.ADD", "cfgns", "x"], 1);
    config_set(p, "bf.initial-size", "100");
    config_set(p, "bf.error-rate", "0.01");
    config_set(p, "bf.expansion-factor", "2");
    vec![
        "res", "ns", "e4", "viaadd", "viamadd", "ins", "insns", "insdef", "cfgadd", "cfgmadd",
        "cfgins", "cfgns",
    ]
}

/// Adds that grow the scaling filters by several layers and fill the non-scaling ones past
/// their end (the items before the error are kept and replicated).
fn grow_filters(p: &mut Connection) {
    for (key, n) in [
        ("res", 2000),
        ("e4", 3000),
        ("viaadd", 500),
        ("viamadd", 500),
        ("ins", 400),
        ("insdef", 300),
        ("cfgadd", 1500),
        ("cfgmadd", 1500),
        ("cfgins", 1500),
    ] {
        madd_all(p, key, &gen_items(&format!("{key}:"), 0..n));
    }
    for key in ["insns", "cfgns"] {
        let answers = madd_raw(p, key, &gen_items("over:", 0..2000));
        assert_eq!(
            answers.last().and_then(err_of).as_deref(),
            Some(FULL),
            "{key} filled past its end"
        );
    }
    madd_all(p, "ns", &gen_items("more:", 0..800));
}

/// RedisBloom's own filters: RESTOREd from its DUMPs and replayed from its SCANDUMPs, then
/// added to (a full non-scaling one answers the error). Returns the keys.
fn load_vectors(p: &mut Connection) -> Vec<String> {
    let mut keys = Vec::new();
    for name in [
        "tiny",
        "scaling100",
        "nonscaling1k",
        "exp1",
        "empty",
        "binary",
        "big",
    ] {
        let cfg = Config::load(name);
        let key = format!("rb:{name}");
        let args: [&[u8]; 4] = [b"RESTORE", key.as_bytes(), b"0", &cfg.dump];
        expect_ok(p, &args);
        let answers = madd_raw(p, &key, &gen_items(&format!("{name}+"), 0..600));
        if name == "nonscaling1k" {
            let last = answers.last().and_then(err_of);
            assert_eq!(last.as_deref(), Some(FULL), "{key} is full");
        } else {
            assert!(answers.iter().all(|a| matches!(a, Value::Int(_))), "{key}");
        }
        keys.push(key);
    }
    for name in ["exp4", "autocreated"] {
        let cfg = Config::load(name);
        let key = format!("lc:{name}");
        loadchunks(p, &key, &cfg.scandump);
        madd_all(p, &key, &gen_items(&format!("{name}+"), 0..3000));
        keys.push(key);
    }
    keys
}

#[test]
fn redisbloom_format_creations_reach_a_guava_replica_as_mbbloom() {
    let primary = Server::start();
    let replica = primary.start_replica();
    let mut p = primary.conn();
    let mut r = replica.conn();
    // A filter made before the switch keeps its type through later writes.
    expect_ok(&mut p, &["BF.RESERVE", "old", "0.01", "100"]);
    config_set(&mut p, FORMAT, "redisbloom");
    assert_eq!(
        config_get(&mut r, FORMAT),
        "guava",
        "the replica's own format"
    );
    let created = create_filters(&mut p);
    madd_all(&mut p, "old", &gen_items("old:", 0..500));
    // BF.ADD one item at a time, as `autocreated` was built: RedisBloom's very filter.
    let auto = Config::load("autocreated");
    for item in &auto.items {
        let args: [&[u8]; 3] = [b"BF.ADD", b"autocreated", item];
        expect_int(&mut p, &args, 1);
    }
    grow_filters(&mut p);
    let loaded = load_vectors(&mut p);
    // A SCANDUMP of a filter made here, replayed into another key.
    let chunks = scandump(&mut p, "e4");
    loadchunks(&mut p, "lc:e4", &chunks);
    wait_replicas(&mut p, 1);

    let type_of = |key: &str| {
        if key == "old" {
            "RSbloom--"
        } else {
            "MBbloom--"
        }
    };
    let probes = gen_items("probe:", 0..2000);
    assert_replicated(&mut p, &mut r, &type_of, &probes, "replica");
    let n = created.len() + loaded.len() + 3;
    expect_int(&mut r, &["DBSIZE"], n as i64);
    let dump = as_bytes(&raw(&mut r, &["DUMP", "autocreated"]));
    // The value's bytes (the footer's RDB version and CRC are the server's, and RedisBloom's
    // were recorded on Redis 7.0).
    assert!(
        dump_body(&dump) == dump_body(&auto.dump),
        "autocreated on the replica is not RedisBloom's filter: {}",
        bytes_diff(dump_body(&dump), dump_body(&auto.dump))
    );
    assert!(bf_debug(&mut r, "res").len() > 3, "res did not grow");

    // A replica that syncs now gets everything through the RDB, then the stream.
    let late = primary.start_replica();
    let mut l = late.conn();
    assert_eq!(config_get(&mut l, FORMAT), "guava");
    madd_all(&mut p, "res", &gen_items("late:", 0..3000));
    expect_int(&mut p, &["BF.ADD", "afterwards", "x"], 1);
    madd_all(&mut p, "afterwards", &gen_items("afterwards:", 0..500));
    wait_replicas(&mut p, 2);
    assert_replicated(&mut p, &mut l, &type_of, &probes, "late replica");
    assert_replicated(&mut p, &mut r, &type_of, &probes, "replica");
}

#[test]
fn guava_format_creations_stay_rsbloom_on_a_redisbloom_replica() {
    let primary = Server::start();
    let replica = primary.start_replica();
    let mut p = primary.conn();
    let mut r = replica.conn();
    config_set(&mut r, FORMAT, "redisbloom");
    assert_eq!(config_get(&mut p, FORMAT), "guava", "the primary's default");
    let created = create_filters(&mut p);
    grow_filters(&mut p);
    // RedisBloom's filters stay MBbloom-- whatever the format: the type follows the data.
    let loaded = load_vectors(&mut p);
    wait_replicas(&mut p, 1);

    let type_of = |key: &str| {
        if key.starts_with("rb:") || key.starts_with("lc:") {
            "MBbloom--"
        } else {
            "RSbloom--"
        }
    };
    let probes = gen_items("probe:", 0..2000);
    assert_replicated(&mut p, &mut r, &type_of, &probes, "replica");
    expect_int(&mut r, &["DBSIZE"], (created.len() + loaded.len()) as i64);

    // A replica set to `redisbloom` before its first sync loads the same through the RDB.
    let late = Server::start();
    let mut l = late.conn();
    config_set(&mut l, FORMAT, "redisbloom");
    attach_replica(&primary, &late, Duration::from_secs(20));
    expect_int(&mut p, &["BF.ADD", "afterwards", "x"], 1);
    madd_all(&mut p, "afterwards", &gen_items("afterwards:", 0..500));
    wait_replicas(&mut p, 2);
    assert_replicated(&mut p, &mut l, &type_of, &probes, "late replica");
    assert_replicated(&mut p, &mut r, &type_of, &probes, "replica");
}
