//! Live migrations between RedisBloom 2.8.2 (on Redis 7.4.1, both from redis-stack) and
//! rsbloom, server to server, with Bloom keys (scaling over several layers, NONSCALING, made
//! by BF.RESERVE / BF.ADD / BF.INSERT, copies by BF.LOADCHUNK) and cuckoo keys (growth,
//! deletes, automatic compaction and CF.COMPACT, a CF.LOADCHUNK copy):
//!
//! 1. an rsbloom replica of a RedisBloom primary, beside a RedisBloom replica as the
//!    reference, through the full sync and the command stream; then both fail over, take the
//!    same writes, and RedisBloom loads what rsbloom wrote (its RDB, its DUMPs, its SCANDUMPs);
//! 2. RedisBloom's RDB (version 12) and DUMP payloads loaded by rsbloom on Redis 8.2;
//! 3. the same on Valkey 9.1, which needs `rdb-version-check relaxed` for them;
//! 4. `rsbloom-cli copy` from RedisBloom to rsbloom on Valkey 8.1, which cannot read a Redis
//!    7.4 payload at all, Bloom and cuckoo keys alike.
//!
//! Every comparison takes, per key, TYPE, the DUMP body (the payload without the server's
//! RDB-version + CRC footer), INFO, DEBUG, single and multi EXISTS over items added, deleted
//! and never added, BF.CARD and CF.COUNT, on both servers.

use rsbloom_test_support as common;

use common::faults::wait_link_up;
use common::hostile::config_set;
use common::rdb::{dump_body, dump_rdb_version};
use common::redisbloom::bytes_diff;
use common::*;
use redis::{Connection, Value};
use std::fs;
use std::process::Command;
use std::time::Duration;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Family {
    Bloom,
    Cuckoo,
}

/// A key of the scenario: its family, the prefix of the items added to it (a LOADCHUNK copy
/// holds its source's items) and the round that creates it.
#[derive(Clone, Copy, Debug)]
struct Key {
    name: &'static str,
    family: Family,
    items: &'static str,
    born: usize,
}

impl Key {
    /// A LOADCHUNK copy of another key.
    fn is_copy(&self) -> bool {
        self.name != self.items
    }
}

const fn key(name: &'static str, family: Family, born: usize) -> Key {
    Key {
        name,
        family,
        items: name,
        born,
    }
}

use Family::{Bloom, Cuckoo};

const KEYS: &[Key] = &[
    key("bf:scale", Bloom, 0),
    key("bf:e3", Bloom, 0),
    key("bf:ns", Bloom, 0),
    key("bf:add", Bloom, 0),
    key("bf:ins", Bloom, 0),
    key("bf:insns", Bloom, 0),
    key("cf:grow", Cuckoo, 0),
    key("cf:b4", Cuckoo, 0),
    key("cf:add", Cuckoo, 0),
    key("cf:ins", Cuckoo, 0),
    // Round 1, the live stream: creations a replica must repeat exactly, LOADCHUNK copies.
    key("bf:sres", Bloom, 1),
    key("bf:sadd", Bloom, 1),
    key("bf:sins", Bloom, 1),
    key("cf:sres", Cuckoo, 1),
    key("cf:sadd", Cuckoo, 1),
    key("cf:sins", Cuckoo, 1),
    Key {
        name: "bf:lc",
        family: Bloom,
        items: "bf:e3",
        born: 1,
    },
    Key {
        name: "cf:lc",
        family: Cuckoo,
        items: "cf:grow",
        born: 1,
    },
    // Round 2, after the failover: creations by the new primary.
    key("bf:new", Bloom, 2),
    key("bf:newadd", Bloom, 2),
    key("bf:newins", Bloom, 2),
    key("cf:new", Cuckoo, 2),
];

/// Items added per key per round: round r adds indices r*ROUND.. (some keys fewer).
const ROUND: usize = 1000;
/// Probed indices: every one a round adds or deletes, and ROUND never added past them.
const PROBES: usize = 4 * ROUND;

fn keys_at(round: usize) -> Vec<Key> {
    KEYS.iter().copied().filter(|k| k.born <= round).collect()
}

fn items(prefix: &str, range: std::ops::Range<usize>) -> Vec<Vec<u8>> {
    gen_items(&format!("{prefix}:"), range)
}

/// A command from text words followed by items.
fn args(words: &[&str], items: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
    out.extend(items.iter().cloned());
    out
}

fn has_error(v: &Value) -> bool {
    match v {
        Value::ServerError(_) => true,
        Value::Array(items) => items.iter().any(has_error),
        _ => false,
    }
}

/// The writes of the scenario on one server, every reply kept in order (after the failover
/// two servers take the same writes and must answer them alike).
struct Writer<'a> {
    con: &'a mut Connection,
    replies: Vec<Value>,
}

impl Writer<'_> {
    /// Send a command; an error reply (also one inside an array) fails the test unless
    /// `may_fail` (a non-scaling filter filled past its end).
    fn send(&mut self, cmd: Vec<Vec<u8>>, may_fail: bool) {
        let v = raw(self.con, &cmd);
        assert!(
            may_fail || !has_error(&v),
            "`{}` answered {v:?}",
            show_args(&cmd)
        );
        self.replies.push(v);
    }

    fn words(&mut self, words: &[&str]) {
        self.send(args(words, &[]), false);
    }

    /// One command per item: `words... item`.
    fn each(&mut self, words: &[&str], items: &[Vec<u8>]) {
        for item in items {
            self.send(args(words, std::slice::from_ref(item)), false);
        }
    }
}

/// Create the keys born in `round`.
fn create(w: &mut Writer, round: usize) {
    match round {
        0 => {
            w.words(&["BF.RESERVE", "bf:scale", "0.01", "100"]);
            w.words(&["BF.RESERVE", "bf:e3", "0.001", "50", "EXPANSION", "3"]);
            w.words(&["BF.RESERVE", "bf:ns", "0.01", "1000", "NONSCALING"]);
            w.words(&["BF.ADD", "bf:add", "bf:add:0"]);
            let cmd = [
                "BF.INSERT",
                "bf:ins",
                "CAPACITY",
                "64",
                "ERROR",
                "0.02",
                "EXPANSION",
                "4",
                "ITEMS",
            ];
            w.send(args(&cmd, &items("bf:ins", 0..10)), false);
            let cmd = [
                "BF.INSERT",
                "bf:insns",
                "CAPACITY",
                "300",
                "ERROR",
                "0.05",
                "NONSCALING",
                "ITEMS",
            ];
            w.send(args(&cmd, &items("bf:insns", 0..10)), false);
            let cmd = [
                "CF.RESERVE",
                "cf:grow",
                "64",
                "BUCKETSIZE",
                "2",
                "MAXITERATIONS",
                "50",
                "EXPANSION",
                "2",
            ];
            w.words(&cmd);
            w.words(&[
                "CF.RESERVE",
                "cf:b4",
                "500",
                "BUCKETSIZE",
                "4",
                "EXPANSION",
                "1",
            ]);
            w.words(&["CF.ADD", "cf:add", "cf:add:0"]);
            let cmd = ["CF.INSERT", "cf:ins", "CAPACITY", "200", "ITEMS"];
            w.send(args(&cmd, &items("cf:ins", 0..10)), false);
        }
        1 => {
            // Explicit and implicit creations (the latter under the defaults, the same on
            // RedisBloom and rsbloom); the copies are made by `copy_by_chunks`.
            w.words(&["BF.RESERVE", "bf:sres", "0.005", "200", "EXPANSION", "2"]);
            w.words(&["BF.ADD", "bf:sadd", "bf:sadd:0"]);
            let cmd = ["BF.INSERT", "bf:sins", "CAPACITY", "80", "ITEMS"];
            w.send(args(&cmd, &items("bf:sins", 0..5)), false);
            let cmd = [
                "CF.RESERVE",
                "cf:sres",
                "128",
                "BUCKETSIZE",
                "3",
                "MAXITERATIONS",
                "30",
                "EXPANSION",
                "2",
            ];
            w.words(&cmd);
            w.words(&["CF.ADD", "cf:sadd", "cf:sadd:0"]);
            let cmd = ["CF.INSERT", "cf:sins", "CAPACITY", "300", "ITEMS"];
            w.send(args(&cmd, &items("cf:sins", 0..5)), false);
        }
        _ => {
            w.words(&["BF.RESERVE", "bf:new", "0.001", "100", "EXPANSION", "2"]);
            w.words(&["BF.ADD", "bf:newadd", "bf:newadd:0"]);
            let cmd = ["BF.INSERT", "bf:newins", "CAPACITY", "50", "ITEMS"];
            w.send(args(&cmd, &items("bf:newins", 0..5)), false);
            w.words(&["CF.ADD", "cf:new", "cf:new:0"]);
        }
    }
}

/// The adds and deletes of `round` on every key that is not a copy: Bloom filters grow by
/// layers (bf:ns stays under its capacity, bf:insns goes past its end in round 1), cuckoo
/// filters grow, lose items (with automatic compaction) and are compacted.
fn fill(w: &mut Writer, round: usize) {
    let lo = round * ROUND;
    let hi = lo + ROUND;
    for k in keys_at(round) {
        if k.is_copy() {
            continue; // A LOADCHUNK copy keeps what it was copied from.
        }
        let name = k.name;
        match name {
            "bf:ns" => w.send(
                args(&["BF.MADD", name], &items(name, lo / 4..hi / 4)),
                false,
            ),
            "bf:insns" => {
                // 150 per round against a capacity of 300: full in the second round, later
                // items answer the error and are not added.
                let cmd = ["BF.INSERT", name, "NOCREATE", "ITEMS"];
                w.send(args(&cmd, &items(name, lo..lo + 150)), round > 0);
            }
            "bf:add" | "bf:sadd" | "bf:newadd" => {
                w.each(&["BF.ADD", name], &items(name, lo + 1..lo + 60));
                w.send(args(&["BF.MADD", name], &items(name, lo + 60..hi)), false);
            }
            "bf:ins" | "bf:sins" | "bf:newins" => {
                let cmd = ["BF.INSERT", name, "ITEMS"];
                w.send(args(&cmd, &items(name, lo..hi)), false);
            }
            _ if k.family == Bloom => {
                for part in items(name, lo..hi).chunks(250) {
                    w.send(args(&["BF.MADD", name], part), false);
                }
            }
            "cf:b4" => {
                // 600 per round into 500-item sub-filters that do not grow (EXPANSION 1).
                let cmd = ["CF.INSERT", name, "ITEMS"];
                w.send(args(&cmd, &items(name, lo..lo + 600)), false);
                w.each(&["CF.DEL", name], &items(name, lo..lo + 100));
            }
            "cf:ins" | "cf:sins" => {
                // NX inserts with repeats inside one command, into a small filter.
                let mut batch = items(name, lo..lo + 300);
                batch.extend(items(name, lo..lo + 50));
                let cmd = ["CF.INSERTNX", name, "ITEMS"];
                w.send(args(&cmd, &batch), false);
                w.each(&["CF.DEL", name], &items(name, lo + 100..lo + 140));
            }
            _ => {
                // cf:grow, cf:add, cf:sres, cf:sadd, cf:new.
                w.each(&["CF.ADD", name], &items(name, lo + 1..lo + 60));
                let cmd = ["CF.INSERT", name, "ITEMS"];
                w.send(args(&cmd, &items(name, lo + 60..hi)), false);
                w.each(&["CF.DEL", name], &items(name, lo + 100..lo + 300));
                w.each(&["CF.ADDNX", name], &items(name, lo + 300..lo + 340));
                // Added twice: CF.COUNT says 2.
                w.each(&["CF.ADD", name], &items(name, lo + 400..lo + 420));
                w.words(&["CF.COMPACT", name]);
            }
        }
    }
}

/// One step of a SCANDUMP of either family: the iterator to pass to LOADCHUNK and the data.
fn scandump_of(c: &mut Connection, family: Family, key: &str) -> Vec<(i64, Vec<u8>)> {
    let cmd = match family {
        Bloom => "BF.SCANDUMP",
        Cuckoo => "CF.SCANDUMP",
    };
    let mut out = Vec::new();
    let mut iter = 0i64;
    loop {
        let (next, data) = match raw(c, &[cmd, key, &iter.to_string()]) {
            Value::Array(v) if v.len() == 2 => (
                as_int(&v[0]),
                match &v[1] {
                    Value::Nil => Vec::new(),
                    other => as_bytes(other),
                },
            ),
            other => panic!("{cmd} {key} {iter} answered {other:?}"),
        };
        if next == 0 {
            assert!(data.is_empty(), "{cmd} {key}: the last step carries data");
            return out;
        }
        out.push((next, data));
        assert!(out.len() < 100_000, "{cmd} {key} never ends");
        iter = next;
    }
}

fn loadchunks_of(c: &mut Connection, family: Family, key: &str, chunks: &[(i64, Vec<u8>)]) {
    let cmd: &[u8] = match family {
        Bloom => b"BF.LOADCHUNK",
        Cuckoo => b"CF.LOADCHUNK",
    };
    assert!(!chunks.is_empty(), "no chunks for {key}");
    for (iter, data) in chunks {
        let iter = iter.to_string();
        let args: [&[u8]; 4] = [cmd, key.as_bytes(), iter.as_bytes(), data];
        expect_ok(c, &args);
    }
}

/// Round 1's copies: the SCANDUMP of a key replayed by LOADCHUNK into another key.
fn copy_by_chunks(c: &mut Connection) {
    for k in KEYS.iter().filter(|k| k.is_copy()) {
        let chunks = scandump_of(c, k.family, k.items);
        loadchunks_of(c, k.family, k.name, &chunks);
    }
}

/// Everything rounds 0..=last write, on one server (the copies after round 1's adds).
fn scenario(c: &mut Connection, rounds: std::ops::RangeInclusive<usize>) -> Vec<Value> {
    let mut w = Writer {
        con: c,
        replies: Vec::new(),
    };
    for round in rounds {
        create(&mut w, round);
        fill(&mut w, round);
        if round == 1 {
            copy_by_chunks(w.con);
        }
    }
    w.replies
}

/// Every answer a key gives, and its bytes.
#[derive(PartialEq)]
struct Snap {
    ty: String,
    body: Vec<u8>,
    info: Value,
    debug: Value,
    card: Option<Value>,
    exists: Vec<Value>,
    multi: Vec<i64>,
    counts: Vec<i64>,
}

/// Replies of one pipeline, none of them an error.
fn pipelined(c: &mut Connection, cmds: Vec<Vec<Vec<u8>>>) -> Vec<Value> {
    let mut out = Vec::with_capacity(cmds.len());
    for group in cmds.chunks(1000) {
        let replies = raw_pipeline(c, group.iter().map(|a| build(a)).collect())
            .unwrap_or_else(|e| panic!("pipeline failed: {e}"));
        for (reply, cmd) in replies.iter().zip(group) {
            assert!(!has_error(reply), "`{}` answered {reply:?}", show_args(cmd));
        }
        out.extend(replies);
    }
    out
}

fn snap(c: &mut Connection, k: &Key) -> Snap {
    let (pre, multi_cmd) = match k.family {
        Bloom => ("BF", "BF.MEXISTS"),
        Cuckoo => ("CF", "CF.MEXISTS"),
    };
    let name = k.name;
    let (exists_cmd, info_cmd, debug_cmd) = (
        format!("{pre}.EXISTS"),
        format!("{pre}.INFO"),
        format!("{pre}.DEBUG"),
    );
    let probes = items(k.items, 0..PROBES);
    let dump = as_bytes(&raw(c, &["DUMP", name]));
    let multi = pipelined(
        c,
        probes
            .chunks(500)
            .map(|part| args(&[multi_cmd, name], part))
            .collect(),
    )
    .iter()
    .flat_map(as_ints)
    .collect();
    // Single EXISTS on a sample (the multi form covers every probe).
    let exists = pipelined(
        c,
        probes
            .iter()
            .step_by(37)
            .map(|p| args(&[exists_cmd.as_str(), name], std::slice::from_ref(p)))
            .collect(),
    );
    let counts = match k.family {
        Bloom => Vec::new(),
        Cuckoo => pipelined(
            c,
            probes
                .iter()
                .map(|p| args(&["CF.COUNT", name], std::slice::from_ref(p)))
                .collect(),
        )
        .iter()
        .map(as_int)
        .collect(),
    };
    Snap {
        ty: as_text(&raw(c, &["TYPE", name])),
        body: dump_body(&dump).to_vec(),
        info: raw(c, &[info_cmd.as_str(), name]),
        debug: raw(c, &[debug_cmd.as_str(), name]),
        card: (k.family == Bloom).then(|| raw(c, &["BF.CARD", name])),
        exists,
        multi,
        counts,
    }
}

fn first_difference<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T]) -> String {
    if got.len() != want.len() {
        return format!("{} answers against {}", got.len(), want.len());
    }
    let i = (0..got.len()).find(|&i| got[i] != want[i]).unwrap_or(0);
    let n = (0..got.len()).filter(|&i| got[i] != want[i]).count();
    format!(
        "{n} differ, first at {i}: {:?} against {:?}",
        got[i], want[i]
    )
}

/// Assert `k` answers on `got` exactly as on `want`, byte for byte.
fn assert_key_same(got: &Snap, want: &Snap, k: &Key, what: &str) {
    let name = k.name;
    assert_eq!(got.ty, want.ty, "{what}: TYPE {name}");
    assert!(
        got.body == want.body,
        "{what}: DUMP body of {name}: {}",
        bytes_diff(&got.body, &want.body)
    );
    assert_eq!(got.info, want.info, "{what}: INFO {name}");
    assert_eq!(got.debug, want.debug, "{what}: DEBUG {name}");
    assert_eq!(got.card, want.card, "{what}: BF.CARD {name}");
    assert!(
        got.multi == want.multi,
        "{what}: MEXISTS {name}: {}",
        first_difference(&got.multi, &want.multi)
    );
    assert!(
        got.exists == want.exists,
        "{what}: EXISTS {name}: {}",
        first_difference(&got.exists, &want.exists)
    );
    assert!(
        got.counts == want.counts,
        "{what}: CF.COUNT {name}: {}",
        first_difference(&got.counts, &want.counts)
    );
}

/// `got` holds `keys` answering exactly as on `want`.
fn assert_same(got: &mut Connection, want: &mut Connection, keys: &[Key], what: &str) {
    assert!(!keys.is_empty(), "{what}: nothing to compare");
    for k in keys {
        let (g, w) = (snap(got, k), snap(want, k));
        assert_key_same(&g, &w, k, what);
    }
}

/// Every key name on a server, sorted.
fn key_names(c: &mut Connection) -> Vec<String> {
    let mut keys: Vec<String> = match raw(c, &["KEYS", "*"]) {
        Value::Array(items) => items.iter().map(as_text).collect(),
        other => panic!("KEYS * answered {other:?}"),
    };
    keys.sort();
    keys
}

fn names(keys: &[Key]) -> Vec<String> {
    let mut names: Vec<String> = keys.iter().map(|k| k.name.to_string()).collect();
    names.sort();
    names
}

/// The scenario did what it says on the server it ran on: the keys hold items, the scaling
/// filters grew by several layers and the cuckoo filters by sub-filters.
fn assert_scenario_ran(c: &mut Connection, round: usize) {
    for k in keys_at(round) {
        let s = snap(c, &k);
        assert!(
            s.multi.contains(&1) && s.multi[PROBES - ROUND..].contains(&0),
            "{}: answers {:?}...",
            k.name,
            &s.multi[..10]
        );
    }
    if round >= 1 {
        let layers = bf_debug(c, "bf:scale").len() - 1;
        assert!(layers >= 4, "bf:scale has {layers} layers");
        let info = raw(c, &["CF.INFO", "cf:grow"]);
        let filters = match &info {
            Value::Array(v) => v
                .chunks(2)
                .find(|p| as_text(&p[0]) == "Number of filters")
                .map(|p| as_int(&p[1])),
            _ => None,
        };
        assert!(filters >= Some(3), "cf:grow: {info:?}");
    }
}

fn wait_replicas(c: &mut Connection, n: i64) {
    expect_int(c, &["WAIT", &n.to_string(), "10000"], n);
}

fn opts_on(server: &str) -> ServerOpts {
    ServerOpts::default().on(&Installed::get(server))
}

/// Redis 7.4.1 with RedisBloom 2.8.2.
fn redisbloom_opts() -> ServerOpts {
    opts_on("redis-7.4").redisbloom()
}

/// rsbloom creating RedisBloom's formats, so RedisBloom can load what it writes.
fn rsbloom_rb_format(server: &str) -> ServerOpts {
    ServerOpts {
        module_args: vec!["new-filter-format".into(), "redisbloom".into()],
        ..opts_on(server)
    }
}

fn replica_of(mut opts: ServerOpts, primary: &Server) -> Server {
    opts.server_args.extend([
        "--replicaof".to_string(),
        "127.0.0.1".to_string(),
        primary.port.to_string(),
    ]);
    let replica = Server::start_with(opts);
    wait_link_up(&replica, Duration::from_secs(30));
    replica
}

/// `SAVE` and the bytes of the server's dump.rdb.
fn save_rdb(server: &Server) -> Vec<u8> {
    expect_ok(&mut server.conn(), &["SAVE"]);
    fs::read(server.dir().join("dump.rdb")).expect("read dump.rdb")
}

fn with_rdb(rdb: &[u8]) -> impl FnOnce(&std::path::Path) + '_ {
    move |dir| fs::write(dir.join("dump.rdb"), rdb).expect("write dump.rdb")
}

/// RESTORE every key's DUMP payload from `from` into `to`; returns the payloads.
fn restore_all(from: &mut Connection, to: &mut Connection, keys: &[Key]) -> Vec<Vec<u8>> {
    keys.iter()
        .map(|k| {
            let payload = as_bytes(&raw(from, &["DUMP", k.name]));
            let args: [&[u8]; 4] = [b"RESTORE", k.name.as_bytes(), b"0", &payload];
            expect_ok(to, &args);
            payload
        })
        .collect()
}

#[test]
fn rsbloom_replicates_a_redisbloom_primary_and_redisbloom_loads_it_back() {
    let primary = Server::start_with(redisbloom_opts());
    let mut p = primary.conn();
    scenario(&mut p, 0..=0);
    assert_scenario_ran(&mut p, 0);
    config_set(&mut p, "repl-diskless-sync-delay", "0");
    // The full sync; RedisBloom's own replica is the reference for what a replica holds.
    let rs = replica_of(rsbloom_rb_format("redis-7.4"), &primary);
    let rb = replica_of(redisbloom_opts(), &primary);
    let (mut r, mut q) = (rs.conn(), rb.conn());
    wait_replicas(&mut p, 2);
    assert_eq!(key_names(&mut r), names(&keys_at(0)), "keys after the sync");
    assert_same(
        &mut r,
        &mut p,
        &keys_at(0),
        "rsbloom replica after the sync",
    );

    // The command stream: adds, deletes, growth, CF.COMPACT, BF.LOADCHUNK / CF.LOADCHUNK.
    scenario(&mut p, 1..=1);
    assert_scenario_ran(&mut p, 1);
    wait_replicas(&mut p, 2);
    assert_eq!(
        key_names(&mut r),
        names(&keys_at(1)),
        "keys after the stream"
    );
    assert_same(
        &mut r,
        &mut q,
        &keys_at(1),
        "rsbloom replica against RedisBloom's",
    );
    // RedisBloom replicates only the header of a CF.LOADCHUNK copy, not its data chunks (its
    // replicas hold the copy with empty buckets): everything else must match the primary.
    let stream: Vec<Key> = keys_at(1)
        .into_iter()
        .filter(|k| k.name != "cf:lc")
        .collect();
    assert_same(
        &mut r,
        &mut p,
        &stream,
        "rsbloom replica against the primary",
    );
    let lc = KEYS.iter().find(|k| k.name == "cf:lc").expect("cf:lc");
    let (on_primary, on_replica) = (snap(&mut p, lc), snap(&mut q, lc));
    assert!(
        on_primary.multi.contains(&1) && !on_replica.multi.contains(&1),
        "RedisBloom now replicates CF.LOADCHUNK data: compare cf:lc with the primary too"
    );

    // Failover: both replicas become primaries and take the same writes, new keys included.
    expect_ok(&mut r, &["REPLICAOF", "NO", "ONE"]);
    expect_ok(&mut q, &["REPLICAOF", "NO", "ONE"]);
    let on_rsbloom = scenario(&mut r, 2..=2);
    let on_redisbloom = scenario(&mut q, 2..=2);
    assert_eq!(on_rsbloom.len(), on_redisbloom.len());
    for (i, (a, b)) in on_rsbloom.iter().zip(&on_redisbloom).enumerate() {
        assert_eq!(a, b, "write {i} after the failover");
    }
    let all = keys_at(2);
    assert_eq!(key_names(&mut r), names(&all), "keys after the failover");
    assert_same(&mut r, &mut q, &all, "rsbloom after the failover");

    // RedisBloom loads what rsbloom wrote: its RDB ...
    let rdb = save_rdb(&rs);
    let loaded = Server::start_prepared(redisbloom_opts(), with_rdb(&rdb));
    let mut l = loaded.conn();
    assert_eq!(key_names(&mut l), names(&all), "keys of rsbloom's RDB");
    assert_same(&mut l, &mut r, &all, "RedisBloom on rsbloom's RDB");
    // ... its DUMP payloads ...
    let restored = Server::start_with(redisbloom_opts());
    let mut t = restored.conn();
    restore_all(&mut r, &mut t, &all);
    assert_same(
        &mut t,
        &mut r,
        &all,
        "RedisBloom RESTOREing rsbloom's DUMPs",
    );
    // ... and its SCANDUMPs, replayed by LOADCHUNK.
    let chunked = Server::start_with(redisbloom_opts());
    let mut h = chunked.conn();
    for k in &all {
        let chunks = scandump_of(&mut r, k.family, k.name);
        loadchunks_of(&mut h, k.family, k.name, &chunks);
    }
    assert_same(
        &mut h,
        &mut r,
        &all,
        "RedisBloom replaying rsbloom's SCANDUMPs",
    );
}

/// A RedisBloom server holding every key of the scenario, written by it.
fn redisbloom_source() -> Server {
    let source = Server::start_with(redisbloom_opts());
    scenario(&mut source.conn(), 0..=2);
    assert_scenario_ran(&mut source.conn(), 2);
    source
}

/// RedisBloom's RDB as Redis 7.4 writes it (version 12).
fn redisbloom_rdb(source: &Server) -> Vec<u8> {
    let rdb = save_rdb(source);
    assert_eq!(&rdb[..9], b"REDIS0012", "RDB header");
    rdb
}

/// rsbloom on `target` holds what RedisBloom held: through its RDB (`rdb_target`, started on
/// it) and through its DUMP payloads (RESTOREd into `restore_target`).
fn assert_loads_redisbloom(
    source: &Server,
    rdb_target: &Server,
    restore_target: &Server,
    what: &str,
) {
    let all = keys_at(2);
    let mut s = source.conn();
    let mut t = rdb_target.conn();
    assert_eq!(key_names(&mut t), names(&all), "{what}: keys of the RDB");
    assert_same(&mut t, &mut s, &all, &format!("{what}: RedisBloom's RDB"));
    let mut t = restore_target.conn();
    for payload in restore_all(&mut s, &mut t, &all) {
        assert_eq!(dump_rdb_version(&payload), 12, "RedisBloom's DUMP footer");
    }
    assert_same(&mut t, &mut s, &all, &format!("{what}: RedisBloom's DUMPs"));
}

#[test]
fn rsbloom_on_redis_8_loads_redisbloom_rdb_and_dumps() {
    let source = redisbloom_source();
    let rdb = redisbloom_rdb(&source);
    let from_rdb = Server::start_prepared(opts_on("redis-8.2"), with_rdb(&rdb));
    let empty = Server::start_with(opts_on("redis-8.2"));
    assert_loads_redisbloom(&source, &from_rdb, &empty, "Redis 8.2");
}

#[test]
fn rsbloom_on_valkey_9_loads_redisbloom_rdb_and_dumps_when_relaxed() {
    let source = redisbloom_source();
    let rdb = redisbloom_rdb(&source);
    // Valkey 9 takes RDB version 12 (Redis 7.4+) for a foreign format unless told otherwise.
    let refused = Server::try_start_prepared(opts_on("valkey-9.1"), with_rdb(&rdb));
    match refused {
        Ok(server) => panic!(
            "Valkey 9.1 loaded RDB version 12 without rdb-version-check relaxed; log:\n{}",
            server.log_text()
        ),
        Err(log) => assert!(
            log.contains("Can't handle RDB format version 12"),
            "Valkey 9.1 refused the RDB for another reason:\n{log}"
        ),
    }
    let strict = Server::start_with(opts_on("valkey-9.1"));
    let payload = as_bytes(&raw(&mut source.conn(), &["DUMP", "bf:scale"]));
    let args: [&[u8]; 4] = [b"RESTORE", b"bf:scale", b"0", &payload];
    expect_err_prefix(&mut strict.conn(), &args, "ERR DUMP payload version");

    let relaxed = || {
        let mut opts = opts_on("valkey-9.1");
        opts.server_args = vec!["--rdb-version-check".into(), "relaxed".into()];
        opts
    };
    let from_rdb = Server::start_prepared(relaxed(), with_rdb(&rdb));
    let empty = Server::start_with(relaxed());
    assert_loads_redisbloom(&source, &from_rdb, &empty, "Valkey 9.1 relaxed");
}

#[test]
fn rsbloom_cli_copies_redisbloom_filters_to_valkey_8() {
    let source = redisbloom_source();
    let mut s = source.conn();
    let target = Server::start_with(opts_on("valkey-8.1"));
    let mut t = target.conn();
    // Valkey 8 reads RDB versions up to 11: a Redis 7.4 payload is refused outright.
    let payload = as_bytes(&raw(&mut s, &["DUMP", "bf:scale"]));
    let args: [&[u8]; 4] = [b"RESTORE", b"bf:scale", b"0", &payload];
    expect_err_prefix(&mut t, &args, "ERR DUMP payload version");
    expect_int(&mut t, &["DBSIZE"], 0);

    let cli = workspace_root().join("target/release/rsbloom-cli");
    assert!(cli.is_file(), "{} is missing: build first", cli.display());
    let all = keys_at(2);
    for k in &all {
        let out = Command::new(&cli)
            .args([
                "--url",
                &source.url(),
                "copy",
                k.name,
                "--to",
                &target.url(),
            ])
            .output()
            .expect("run rsbloom-cli");
        assert!(
            out.status.success(),
            "rsbloom-cli copy {}: {}",
            k.name,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(key_names(&mut t), names(&all), "keys copied");
    assert_same(&mut t, &mut s, &all, "copied to Valkey 8.1");
}
