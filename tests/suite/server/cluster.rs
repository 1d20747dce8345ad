//! Filters in a real Redis Cluster (3 masters, 3 replicas, every node with the module):
//! keys spread over every master and every BF command routes through a cluster-aware client;
//! a reshard (MIGRATE, i.e. DUMP/RESTORE through the type's RDB callbacks) moves a third of
//! the slots and every filter answers as before; a manual failover and a `kill -9` of a
//! master leave the promoted replica answering identically for every acknowledged write; the
//! sharded-filter example (`examples/sharded_filter.rs`, the `rsbloom-client` crate) spreads over every master.
//! Cuckoo filters (grown, with deletes and compactions) go through the same reshard and
//! failovers (`cluster/cuckoo.rs`), and Count-Min Sketches, Top-K lists and t-digests
//! through the reshard (`cluster/sketches.rs`).

use rsbloom_test_support as common;

mod cuckoo;
mod sketches;

#[allow(dead_code)]
#[path = "../../../examples/sharded_filter.rs"]
mod sharded_filter;

use common::cluster::{key_slot, Cluster, NodeView, READY_TIMEOUT};
use common::*;
use cuckoo::{assert_cf_unchanged, cf_snapshot, populate_cf, CfFilter, CfState, CF_FILTERS};
use redis::cluster::ClusterConnection;
use redis::{ConnectionLike, RedisResult, Value};
use sketches::{assert_sketches_unchanged, populate_sketches, sketch_snapshot, SKETCHES};
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

/// Number of filters of the data set.
const FILTERS: usize = 1000;

/// Send a command through the cluster client; errors come back as `Err`.
fn q<A: AsRef<[u8]>>(con: &mut ClusterConnection, args: &[A]) -> RedisResult<Value> {
    con.req_command(&build(args))
}

/// Send a command that must succeed.
fn ok<A: AsRef<[u8]>>(con: &mut ClusterConnection, args: &[A]) -> Value {
    q(con, args).unwrap_or_else(|e| panic!("`{}` failed: {e}", show_args(args)))
}

/// The `CODE detail` text of an error.
fn err_text(e: &redis::RedisError) -> String {
    match (e.code(), e.detail()) {
        (Some(c), Some(d)) => format!("{c} {d}"),
        (Some(c), None) => c.to_string(),
        _ => e.to_string(),
    }
}

/// Assert that a command fails with exactly this error text.
fn expect_cluster_err<A: AsRef<[u8]>>(con: &mut ClusterConnection, args: &[A], want: &str) {
    match q(con, args) {
        Err(e) => assert_eq!(err_text(&e), want, "`{}`", show_args(args)),
        Ok(v) => panic!("`{}` answered {v:?}, expected {want:?}", show_args(args)),
    }
}

/// One filter of the data set and what was added to it.
struct Filter {
    key: String,
    items: Vec<Vec<u8>>,
    /// Adds that answered 1 (what BF.CARD must say).
    ones: i64,
}

fn count_ones(v: &Value) -> i64 {
    as_ints(v).iter().filter(|&&a| a == 1).count() as i64
}

/// `FILTERS` filters made with every creating command and several shapes (scaling,
/// non-scaling, other expansions, implicit defaults, multi-layer), with their items.
fn populate(con: &mut ClusterConnection) -> Vec<Filter> {
    let mut out = Vec::with_capacity(FILTERS);
    for i in 0..FILTERS {
        let key = format!("filter:{i}");
        let mut ones = 0;
        let items;
        if i % 100 == 7 {
            // Big enough to have several layers.
            ok(con, &["BF.RESERVE", &key, "0.01", "100", "EXPANSION", "2"]);
            items = gen_items(&format!("{key}/"), 0..1000);
            for batch in items.chunks(250) {
                let mut args: Vec<&[u8]> = vec![b"BF.MADD", key.as_bytes()];
                args.extend(batch.iter().map(|v| v.as_slice()));
                ones += count_ones(&ok(con, &args));
            }
        } else {
            match i % 5 {
                0 => {
                    ok(con, &["BF.RESERVE", &key, "0.01", "100"]);
                    items = gen_items(&format!("{key}/"), 0..40);
                    let mut args: Vec<&[u8]> = vec![b"BF.MADD", key.as_bytes()];
                    args.extend(items.iter().map(|v| v.as_slice()));
                    ones += count_ones(&ok(con, &args));
                }
                1 => {
                    ok(con, &["BF.RESERVE", &key, "0.001", "50", "NONSCALING"]);
                    items = gen_items(&format!("{key}/"), 0..20);
                    for item in &items {
                        let args: [&[u8]; 3] = [b"BF.ADD", key.as_bytes(), item];
                        ones += as_int(&ok(con, &args));
                    }
                }
                2 => {
                    items = gen_items(&format!("{key}/"), 0..60);
                    let mut args: Vec<&[u8]> = vec![
                        b"BF.INSERT",
                        key.as_bytes(),
                        b"CAPACITY",
                        b"20",
                        b"ERROR",
                        b"0.05",
                        b"EXPANSION",
                        b"3",
                        b"ITEMS",
                    ];
                    args.extend(items.iter().map(|v| v.as_slice()));
                    ones += count_ones(&ok(con, &args));
                }
                3 => {
                    items = gen_items(&format!("{key}/"), 0..30);
                    let args: [&[u8]; 3] = [b"BF.ADD", key.as_bytes(), &items[0]];
                    ones += as_int(&ok(con, &args));
                    let mut args: Vec<&[u8]> = vec![b"BF.MADD", key.as_bytes()];
                    args.extend(items[1..].iter().map(|v| v.as_slice()));
                    ones += count_ones(&ok(con, &args));
                }
                _ => {
                    items = gen_items(&format!("{key}/"), 0..25);
                    let mut args: Vec<&[u8]> = vec![b"BF.MADD", key.as_bytes()];
                    args.extend(items.iter().map(|v| v.as_slice()));
                    ones += count_ones(&ok(con, &args));
                }
            }
        }
        out.push(Filter { key, items, ones });
    }
    out
}

/// Non-members asked of every filter, so that "answers unchanged" covers the zeros too.
fn probes() -> Vec<Vec<u8>> {
    gen_items("probe:", 0..150)
}

/// What a filter must keep through a migration or a failover.
#[derive(Debug, PartialEq)]
struct KeyState {
    debug: Vec<Value>,
    info: Value,
    card: Value,
    answers: Value,
    digest: String,
}

/// Direct connections to the current masters, by port.
struct Owners {
    masters: Vec<NodeView>,
    conns: HashMap<u16, redis::Connection>,
}

impl Owners {
    fn new(cluster: &Cluster) -> Owners {
        Owners {
            masters: cluster.masters(),
            conns: HashMap::new(),
        }
    }

    fn port_of(&self, key: &str) -> u16 {
        let slot = key_slot(key.as_bytes());
        self.masters
            .iter()
            .find(|m| m.owns(slot))
            .unwrap_or_else(|| panic!("no master owns slot {slot}"))
            .port
    }

    fn conn(&mut self, cluster: &Cluster, port: u16) -> &mut redis::Connection {
        self.conns.entry(port).or_insert_with(|| cluster.conn(port))
    }

    /// `DEBUG DIGEST-VALUE` on the key's owner (DEBUG is not redirected, so it must go there).
    fn digest(&mut self, cluster: &Cluster, key: &str) -> String {
        let port = self.port_of(key);
        digest_value(self.conn(cluster, port), key)
    }
}

fn key_state(
    con: &mut ClusterConnection,
    owners: &mut Owners,
    cluster: &Cluster,
    f: &Filter,
    probes: &[Vec<u8>],
) -> KeyState {
    let debug = match ok(con, &["BF.DEBUG", &f.key]) {
        Value::Array(lines) => lines,
        other => panic!("BF.DEBUG {} answered {other:?}", f.key),
    };
    let mut args: Vec<&[u8]> = vec![b"BF.MEXISTS", f.key.as_bytes()];
    args.extend(f.items.iter().map(|v| v.as_slice()));
    args.extend(probes.iter().map(|v| v.as_slice()));
    KeyState {
        debug,
        info: ok(con, &["BF.INFO", &f.key]),
        card: ok(con, &["BF.CARD", &f.key]),
        answers: ok(con, &args),
        digest: owners.digest(cluster, &f.key),
    }
}

fn snapshot(
    con: &mut ClusterConnection,
    cluster: &Cluster,
    filters: &[Filter],
) -> BTreeMap<String, KeyState> {
    let probes = probes();
    let mut owners = Owners::new(cluster);
    filters
        .iter()
        .map(|f| {
            (
                f.key.clone(),
                key_state(con, &mut owners, cluster, f, &probes),
            )
        })
        .collect()
}

/// Every filter answers exactly as in `before`: BF.DEBUG, full BF.INFO, BF.CARD, the answers
/// for its items and for non-members, the digest; and every item answers 1.
fn assert_unchanged(
    con: &mut ClusterConnection,
    cluster: &Cluster,
    filters: &[Filter],
    before: &BTreeMap<String, KeyState>,
    when: &str,
) {
    let now = snapshot(con, cluster, filters);
    let mut differ = Vec::new();
    for f in filters {
        let (a, b) = (&before[&f.key], &now[&f.key]);
        if a != b {
            differ.push(format!("{}: before {a:?}\n   after {b:?}", f.key));
        }
        let answers = as_ints(&b.answers);
        let misses = answers[..f.items.len()].iter().filter(|&&x| x != 1).count();
        assert_eq!(misses, 0, "{when}: {misses} items of {} answer 0", f.key);
        assert_eq!(as_int(&b.card), f.ones, "{when}: BF.CARD {}", f.key);
    }
    assert!(
        differ.is_empty(),
        "{when}: {} of {} filters changed; first ones:\n{}",
        differ.len(),
        filters.len(),
        differ
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// `WAIT 1 <ms>` through the cluster client: sent on every master's connection, the answer is
/// the smallest count, so 1 means every master's writes reached its replica.
fn wait_all_replicas(con: &mut ClusterConnection) {
    let acked = as_int(&ok(con, &["WAIT", "1", "10000"]));
    assert_eq!(acked, 1, "WAIT 1 10000 through the cluster client");
}

/// Keys per master port, from DBSIZE on each master.
fn dbsizes(cluster: &Cluster) -> BTreeMap<u16, i64> {
    cluster
        .masters()
        .iter()
        .map(|m| (m.port, as_int(&raw(&mut cluster.conn(m.port), &["DBSIZE"]))))
        .collect()
}

#[test]
fn filters_spread_over_masters_and_every_command_routes() {
    let cluster = Cluster::start();
    let mut con = cluster.client();
    let filters = populate(&mut con);

    // The keys spread over every master, each key lives on the master owning its slot, and a
    // direct request to another master is redirected.
    let sizes = dbsizes(&cluster);
    assert_eq!(sizes.len(), 3, "masters: {sizes:?}");
    assert_eq!(sizes.values().sum::<i64>(), FILTERS as i64, "{sizes:?}");
    for (port, n) in &sizes {
        assert!(
            *n >= 200,
            "master {port} holds only {n} of {FILTERS} filters"
        );
    }
    let mut owners = Owners::new(&cluster);
    let ports: Vec<u16> = sizes.keys().copied().collect();
    for f in &filters {
        let slot = as_int(&raw(
            owners.conn(&cluster, ports[0]),
            &["CLUSTER", "KEYSLOT", &f.key],
        ));
        assert_eq!(slot, key_slot(f.key.as_bytes()) as i64, "slot of {}", f.key);
        let port = owners.port_of(&f.key);
        let c = owners.conn(&cluster, port);
        assert_eq!(as_text(&raw(c, &["TYPE", &f.key])), "RSbloom--");
        let other = *ports.iter().find(|&&p| p != port).unwrap();
        let v = raw(owners.conn(&cluster, other), &["BF.CARD", &f.key]);
        let e = err_of(&v).unwrap_or_default();
        assert!(
            e.starts_with("MOVED ") && e.ends_with(&format!(":{port}")),
            "BF.CARD {} on master {other} (not the owner {port}) answered {v:?}",
            f.key
        );
    }

    // Every command, through the cluster client, on every filter.
    let probes = probes();
    for f in &filters {
        let args: [&[u8]; 3] = [b"BF.EXISTS", f.key.as_bytes(), &f.items[0]];
        assert_eq!(ok(&mut con, &args), Value::Int(1), "BF.EXISTS {}", f.key);
        let mut args: Vec<&[u8]> = vec![b"BF.MEXISTS", f.key.as_bytes()];
        args.extend(f.items.iter().map(|v| v.as_slice()));
        let answers = as_ints(&ok(&mut con, &args));
        assert!(
            answers.iter().all(|&a| a == 1),
            "BF.MEXISTS {}: {answers:?}",
            f.key
        );
        assert_eq!(ok(&mut con, &["BF.CARD", &f.key]), Value::Int(f.ones));
        let info = ok(&mut con, &["BF.INFO", &f.key]);
        let fields = match &info {
            Value::Array(a) => a.clone(),
            other => panic!("BF.INFO {} answered {other:?}", f.key),
        };
        assert_eq!(fields.len(), 10, "BF.INFO {}: {info:?}", f.key);
        assert_eq!(
            fields[6],
            Value::SimpleString("Number of items inserted".into())
        );
        assert_eq!(fields[7], Value::Int(f.ones), "BF.INFO {} items", f.key);
        assert_eq!(
            ok(&mut con, &["BF.INFO", &f.key, "ITEMS"]),
            Value::Array(vec![Value::Int(f.ones)])
        );
        let debug = ok(&mut con, &["BF.DEBUG", &f.key]);
        match &debug {
            Value::Array(lines) => {
                assert_eq!(
                    as_text(&lines[0]),
                    format!("size:{}", f.ones),
                    "BF.DEBUG {}",
                    f.key
                );
                assert_eq!(
                    Value::Int(lines.len() as i64 - 1),
                    fields[5],
                    "BF.DEBUG {} has one line per layer",
                    f.key
                );
            }
            other => panic!("BF.DEBUG {} answered {other:?}", f.key),
        }
    }

    // SCANDUMP through the client, LOADCHUNK into a key that usually lives on another master.
    let mut copies = 0;
    let mut cross_node = 0;
    for f in filters.iter().step_by(10) {
        let copy = format!("copy:{}", f.key);
        let mut iter = 0i64;
        loop {
            let v = ok(&mut con, &["BF.SCANDUMP", &f.key, &iter.to_string()]);
            let (next, data) = match &v {
                Value::Array(p) if p.len() == 2 => (as_int(&p[0]), as_bytes(&p[1])),
                other => panic!("BF.SCANDUMP {} {iter} answered {other:?}", f.key),
            };
            if next == 0 {
                assert!(data.is_empty());
                break;
            }
            let it = next.to_string();
            let args: [&[u8]; 4] = [b"BF.LOADCHUNK", copy.as_bytes(), it.as_bytes(), &data];
            assert_eq!(ok(&mut con, &args), Value::Okay, "BF.LOADCHUNK {copy} {it}");
            iter = next;
        }
        if owners.port_of(&copy) != owners.port_of(&f.key) {
            cross_node += 1;
        }
        let copy_filter = Filter {
            key: copy.clone(),
            items: f.items.clone(),
            ones: f.ones,
        };
        let a = key_state(&mut con, &mut owners, &cluster, f, &probes);
        let b = key_state(&mut con, &mut owners, &cluster, &copy_filter, &probes);
        assert_eq!(a.debug, b.debug, "BF.DEBUG of {copy}");
        assert_eq!(a.card, b.card, "BF.CARD of {copy}");
        assert_eq!(a.answers, b.answers, "answers of {copy}");
        assert_eq!(a.digest, b.digest, "digest of {copy}");
        copies += 1;
    }
    assert_eq!(copies, FILTERS / 10);
    assert!(cross_node >= 30, "only {cross_node} copies crossed nodes");

    // Errors come back from the owning node.
    expect_cluster_err(
        &mut con,
        &["BF.RESERVE", "filter:0", "0.01", "10"],
        "ERR item exists",
    );
    expect_cluster_err(&mut con, &["BF.INFO", "nosuchkey"], "ERR not found");
    expect_cluster_err(&mut con, &["BF.DEBUG", "nosuchkey"], "ERR not found");
    expect_cluster_err(
        &mut con,
        &["BF.INSERT", "nosuchkey", "NOCREATE", "ITEMS", "x"],
        "ERR not found",
    );
    expect_cluster_err(
        &mut con,
        &["BF.ADD", "filter:1", "too-many-arguments", "x"],
        "ERR wrong number of arguments for 'bf.add' command",
    );
    assert_eq!(
        ok(&mut con, &["BF.EXISTS", "nosuchkey", "x"]),
        Value::Int(0)
    );
    assert_eq!(ok(&mut con, &["BF.CARD", "nosuchkey"]), Value::Int(0));

    // Replicas hold the same keys.
    wait_all_replicas(&mut con);
    for m in cluster.masters() {
        let r = cluster.replica_of(&m.id);
        let want = as_int(&raw(&mut cluster.conn(m.port), &["DBSIZE"]));
        let got = as_int(&raw(&mut cluster.conn(r.port), &["DBSIZE"]));
        assert_eq!(got, want, "replica {} of master {}", r.port, m.port);
        let sample = filters
            .iter()
            .find(|f| owners.port_of(&f.key) == m.port)
            .expect("a filter on this master");
        let mut rc = cluster.conn(r.port);
        expect_ok(&mut rc, &["READONLY"]);
        assert_eq!(
            digest_value(&mut rc, &sample.key),
            owners.digest(&cluster, &sample.key),
            "digest of {} on replica {}",
            sample.key,
            r.port
        );
    }
}

#[test]
fn reshard_moves_a_third_of_the_slots_and_filters_are_unchanged() {
    let cluster = Cluster::start();
    let mut con = cluster.client();
    let filters = populate(&mut con);
    let cf = populate_cf(&mut con);
    let sketches = populate_sketches(&mut con);
    wait_all_replicas(&mut con);
    let before = snapshot(&mut con, &cluster, &filters);
    let cf_before = cf_snapshot(&mut con, &cf);
    let sketches_before = sketch_snapshot(&mut con, &sketches);
    let owners_before = Owners::new(&cluster);
    let masters = cluster.masters();
    let (a, b, c) = (&masters[0], &masters[1], &masters[2]);
    let slots_c_before = c.slot_count();
    let migrate_before: i64 = [a.port, b.port]
        .iter()
        .map(|&p| command_calls(&mut cluster.conn(p), "migrate"))
        .sum();

    // A third of the 16384 slots, half from each of the two other masters, to the third.
    let third = 16384 / 3;
    let started = Instant::now();
    cluster.reshard(&[&a.id, &b.id], &c.id, third);
    eprintln!(
        "reshard of {third} slots took {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let owners_after = Owners::new(&cluster);
    let after_masters = cluster.masters();
    assert_eq!(after_masters.len(), 3, "{after_masters:?}");
    let c_now = after_masters.iter().find(|m| m.id == c.id).unwrap();
    assert_eq!(c_now.slot_count(), slots_c_before + third, "slots of C");
    let mut moved = 0;
    for f in &filters {
        let (was, is) = (owners_before.port_of(&f.key), owners_after.port_of(&f.key));
        if was != is {
            assert_eq!(is, c.port, "{} moved to an unexpected node", f.key);
            moved += 1;
        }
    }
    assert!(
        (200..=480).contains(&moved),
        "{moved} of {FILTERS} filters moved with a third of the slots"
    );
    let cf_moved: Vec<&CfFilter> = cf
        .iter()
        .filter(|f| owners_before.port_of(&f.key) != owners_after.port_of(&f.key))
        .collect();
    assert!(
        (30..=80).contains(&cf_moved.len()),
        "{} of {CF_FILTERS} cuckoo filters moved with a third of the slots",
        cf_moved.len()
    );
    let sketches_moved = sketches
        .iter()
        .filter(|k| owners_before.port_of(k) != owners_after.port_of(k))
        .count();
    assert!(
        (15..=50).contains(&sketches_moved),
        "{sketches_moved} of {SKETCHES} sketches moved with a third of the slots"
    );
    let sizes = dbsizes(&cluster);
    let keys = (FILTERS + CF_FILTERS + SKETCHES) as i64;
    assert_eq!(sizes.values().sum::<i64>(), keys, "{sizes:?}");
    // MIGRATE was used (it carries DUMP payloads, i.e. the type's rdb_save / rdb_load).
    let migrate_after: i64 = [a.port, b.port]
        .iter()
        .map(|&p| command_calls(&mut cluster.conn(p), "migrate"))
        .sum();
    assert!(
        migrate_after > migrate_before,
        "no MIGRATE ran on the source masters"
    );
    let restores = command_calls(&mut cluster.conn(c.port), "restore-asking");
    assert!(restores > 0, "no RESTORE-ASKING ran on the target master");
    eprintln!(
        "{moved} filters moved with {third} slots: {migrate_after} MIGRATE calls, \
         {restores} RESTORE-ASKING"
    );

    let mut con = cluster.client();
    assert_unchanged(&mut con, &cluster, &filters, &before, "after the reshard");
    assert_cf_unchanged(&mut con, &cf, &cf_before, "after the reshard");
    assert_sketches_unchanged(&mut con, &sketches, &sketches_before, "after the reshard");
    // Moved cuckoo filters take adds and deletes on their new owner.
    for f in &cf_moved {
        let item = format!("{}/after-reshard", f.key);
        assert_eq!(ok(&mut con, &["CF.ADD", &f.key, &item]), Value::Int(1));
        assert_eq!(ok(&mut con, &["CF.EXISTS", &f.key, &item]), Value::Int(1));
        assert_eq!(ok(&mut con, &["CF.DEL", &f.key, &item]), Value::Int(1));
    }

    // The target's replica received the moved filters, and moved filters take writes.
    wait_all_replicas(&mut con);
    let rc = cluster.replica_of(&c.id);
    assert_eq!(
        as_int(&raw(&mut cluster.conn(rc.port), &["DBSIZE"])),
        sizes[&c.port],
        "replica of the target master"
    );
    for f in filters
        .iter()
        .filter(|f| owners_after.port_of(&f.key) == c.port)
    {
        let item = format!("{}/after-reshard", f.key);
        let v = ok(&mut con, &["BF.ADD", &f.key, &item]);
        assert!(matches!(v, Value::Int(0 | 1)), "BF.ADD {}: {v:?}", f.key);
        assert_eq!(ok(&mut con, &["BF.EXISTS", &f.key, &item]), Value::Int(1));
    }
}

/// The data set and the snapshots a promoted replica must match.
struct Acknowledged {
    filters: Vec<Filter>,
    before: BTreeMap<String, KeyState>,
    cf: Vec<CfFilter>,
    cf_before: BTreeMap<String, CfState>,
}

/// Writes acknowledged by `WAIT 1` on every master, then the snapshots the promoted replica
/// must match.
fn acknowledged_data(cluster: &Cluster, con: &mut ClusterConnection) -> Acknowledged {
    let mut cf = populate_cf(con);
    cuckoo::second_round(con, &mut cf);
    let cf_before = cf_snapshot(con, &cf);
    let mut filters = populate(con);
    wait_all_replicas(con);
    // A second round of writes on a third of the filters, acknowledged again.
    for f in filters.iter_mut().step_by(3) {
        let extra = gen_items(&format!("{}/round2/", f.key), 0..10);
        let mut args: Vec<&[u8]> = vec![b"BF.MADD", f.key.as_bytes()];
        args.extend(extra.iter().map(|v| v.as_slice()));
        match q(con, &args) {
            Ok(v) => {
                f.ones += count_ones(&v);
                f.items.extend(extra);
            }
            // Non-scaling filters of 50 take 20 + 10 items: never full here.
            Err(e) => panic!("BF.MADD {}: {e}", f.key),
        }
    }
    wait_all_replicas(con);
    let before = snapshot(con, cluster, &filters);
    Acknowledged {
        filters,
        before,
        cf,
        cf_before,
    }
}

/// Wait until `new_master` is a master owning `slots` in the view of every live node and the
/// cluster is ready.
fn wait_promoted(cluster: &Cluster, new_master: &str, slots: &[(u16, u16)]) {
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        let promoted = cluster.live_ports().iter().all(|&p| {
            common::faults::try_conn(cluster.server(p))
                .ok()
                .and_then(|mut c| {
                    redis::cmd("CLUSTER")
                        .arg("NODES")
                        .query::<String>(&mut c)
                        .ok()
                })
                .map(|t| {
                    common::cluster::parse_nodes(&t)
                        .iter()
                        .any(|n| n.id == new_master && n.is_master() && n.slots == slots)
                })
                .unwrap_or(false)
        });
        if promoted {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{new_master} was not promoted within {READY_TIMEOUT:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    cluster.wait_ready(READY_TIMEOUT);
}

#[test]
fn manual_failover_keeps_every_acknowledged_write() {
    let cluster = Cluster::start();
    let mut con = cluster.client();
    let data = acknowledged_data(&cluster, &mut con);
    let (filters, before) = (&data.filters, &data.before);
    let old = cluster.masters()[0].clone();
    let replica = cluster.replica_of(&old.id);
    let on_old: Vec<&Filter> = {
        let owners = Owners::new(&cluster);
        filters
            .iter()
            .filter(|f| owners.port_of(&f.key) == old.port)
            .collect()
    };
    assert!(
        on_old.len() >= 200,
        "{} filters on the old master",
        on_old.len()
    );

    expect_ok(&mut cluster.conn(replica.port), &["CLUSTER", "FAILOVER"]);
    let started = Instant::now();
    wait_promoted(&cluster, &replica.id, &old.slots);
    eprintln!(
        "manual failover done in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let view = cluster.view();
    let old_now = view.iter().find(|n| n.id == old.id).unwrap();
    assert_eq!(
        old_now.master_id.as_deref(),
        Some(replica.id.as_str()),
        "the old master became a replica of the promoted one: {view:?}"
    );

    let mut con = cluster.client();
    let owners = Owners::new(&cluster);
    for f in &on_old {
        assert_eq!(owners.port_of(&f.key), replica.port, "owner of {}", f.key);
    }
    assert_unchanged(
        &mut con,
        &cluster,
        filters,
        before,
        "after CLUSTER FAILOVER",
    );
    let cf_on_old = data
        .cf
        .iter()
        .filter(|f| owners.port_of(&f.key) == replica.port)
        .count();
    assert!(
        cf_on_old >= 30,
        "{cf_on_old} cuckoo filters on the old master"
    );
    assert_cf_unchanged(
        &mut con,
        &data.cf,
        &data.cf_before,
        "after CLUSTER FAILOVER",
    );

    // The promoted master takes writes and replicates them to the old one.
    for f in on_old.iter().take(50) {
        let item = format!("{}/after-failover", f.key);
        let v = ok(&mut con, &["BF.ADD", &f.key, &item]);
        assert!(matches!(v, Value::Int(0 | 1)), "BF.ADD {}: {v:?}", f.key);
    }
    wait_all_replicas(&mut con);
    let mut promoted = cluster.conn(replica.port);
    let mut demoted = cluster.conn(old.port);
    expect_ok(&mut demoted, &["READONLY"]);
    for f in on_old.iter().take(50) {
        assert_eq!(
            digest_value(&mut demoted, &f.key),
            digest_value(&mut promoted, &f.key),
            "{} on the demoted master",
            f.key
        );
    }
}

#[test]
fn killed_master_leaves_every_acknowledged_write_on_the_promoted_replica() {
    let mut cluster = Cluster::start();
    let mut con = cluster.client();
    let data = acknowledged_data(&cluster, &mut con);
    let (filters, before) = (&data.filters, &data.before);
    drop(con);
    let victim = cluster.masters()[1].clone();
    let heir = cluster.replica_of(&victim.id);
    let on_victim = {
        let owners = Owners::new(&cluster);
        filters
            .iter()
            .filter(|f| owners.port_of(&f.key) == victim.port)
            .count()
    };
    assert!(on_victim >= 200, "{on_victim} filters on the victim");

    let started = Instant::now();
    cluster.kill9(victim.port);
    wait_promoted(&cluster, &heir.id, &victim.slots);
    eprintln!(
        "replica promoted {:.1} s after kill -9 of its master ({on_victim} filters there)",
        started.elapsed().as_secs_f64()
    );
    let view = cluster.view();
    let dead = view.iter().find(|n| n.id == victim.id).unwrap();
    assert!(
        dead.is_failed(),
        "the killed master is not flagged: {dead:?}"
    );

    let mut con = cluster.client();
    assert_unchanged(
        &mut con,
        &cluster,
        filters,
        before,
        "after kill -9 of a master",
    );
    let owners = Owners::new(&cluster);
    let cf_on_victim = data
        .cf
        .iter()
        .filter(|f| owners.port_of(&f.key) == heir.port)
        .count();
    assert!(
        cf_on_victim >= 30,
        "{cf_on_victim} cuckoo filters on the victim"
    );
    assert_cf_unchanged(
        &mut con,
        &data.cf,
        &data.cf_before,
        "after kill -9 of a master",
    );
    // The promoted replica takes writes.
    let f = filters
        .iter()
        .find(|f| victim.owns(key_slot(f.key.as_bytes())))
        .expect("a filter of the killed master");
    let v = ok(&mut con, &["BF.ADD", &f.key, "after-kill"]);
    assert!(matches!(v, Value::Int(0 | 1)), "BF.ADD {}: {v:?}", f.key);
    assert_eq!(
        as_int(&raw(
            &mut cluster.conn(heir.port),
            &["BF.EXISTS", &f.key, "after-kill"]
        )),
        1
    );
}

#[test]
fn sharded_filter_recipe_spreads_over_every_master() {
    use rsbloom_client::{BloomOptions, ShardedBloom};
    use rsbloom_core::shard::layout::{shard_of_item, slot_range};

    let cluster = Cluster::start();
    // The raw commands on the suite's connection, the client's on its own (redis-rs 1.x).
    let mut con = cluster.client();
    let seed = format!("redis://127.0.0.1:{}/", cluster.masters()[0].port);
    let mut client = rsbloom_client::Client::connect(seed.as_str()).expect("client");
    const SHARDS: u32 = 12;
    const ITEMS: usize = 30_000;

    // The example's demo, as `cargo run --example sharded_filter` runs it.
    let report = sharded_filter::run_demo(&mut client, "demo", SHARDS, ITEMS).expect("demo");
    assert_eq!(report.members_found, ITEMS, "members lost: {report:?}");
    assert_eq!(report.card as usize, report.new_items, "{report:?}");
    assert!(
        report.false_positives < report.probes * 3 / 100,
        "false-positive rate over 3 % at 1 %: {report:?}"
    );

    // Our own use of it: reserve, add, look up, count.
    let options = BloomOptions::default();
    let filter = ShardedBloom::reserve(
        &mut client,
        "seen",
        0.01,
        ITEMS as u64,
        Some(SHARDS),
        options,
    )
    .expect("reserve");
    let id = filter.description().id.expect("a creation id");
    // Slots as the server computes them: each shard key in the range its shard routes.
    let mut direct = cluster.conn(cluster.live_ports()[0]);
    for (i, key) in filter.keys().iter().enumerate() {
        let key = String::from_utf8(key.clone()).expect("a text key");
        let server = as_int(&raw(&mut direct, &["CLUSTER", "KEYSLOT", &key])) as u32;
        let (first, last) = slot_range(i as u32, SHARDS);
        assert!(
            (u32::from(first)..=u32::from(last)).contains(&server),
            "{key} in slot {server}, not in [{first}, {last}]"
        );
        // The shard records its place: BF.INFO's pairs after RedisBloom's.
        let info: Value = redis::cmd("BF.INFO")
            .arg(&key)
            .query(&mut con)
            .expect("BF.INFO");
        let Value::Array(pairs) = info else {
            panic!("BF.INFO {key}: {info:?}")
        };
        let from = pairs
            .iter()
            .position(|v| {
                matches!(v, Value::SimpleString(_) | Value::BulkString(_))
                    && as_text(v) == "Shard of"
            })
            .expect("a shard's place in BF.INFO");
        let place: Vec<String> = pairs[from..]
            .iter()
            .map(|v| match v {
                Value::Int(n) => n.to_string(),
                other => as_text(other),
            })
            .collect();
        let slots = format!("{first}-{last}");
        let (index, count) = (i.to_string(), SHARDS.to_string());
        let expected = [
            "Shard of",
            "seen",
            "Shard",
            &index,
            "Shards",
            &count,
            "Shard slots",
            &slots,
            "Shard id",
            &id,
            "Shard routing",
            "slot",
        ];
        assert_eq!(place, expected, "BF.INFO {key}");
    }
    let items: Vec<String> = (0..ITEMS).map(|i| format!("user:{i}")).collect();
    let mut new = 0;
    for batch in items.chunks(2000) {
        new += filter
            .madd(&mut client, batch)
            .expect("madd")
            .iter()
            .filter(|&&a| a)
            .count();
    }
    assert!(new >= ITEMS * 99 / 100, "only {new} of {ITEMS} were new");
    assert!(!filter.add(&mut client, "user:0").expect("add"));
    assert!(filter.add(&mut client, "single").expect("add"));
    assert!(filter.exists(&mut client, "single").expect("exists"));
    let mut found = 0;
    for batch in items.chunks(2000) {
        found += filter
            .mexists(&mut client, batch)
            .expect("mexists")
            .iter()
            .filter(|&&a| a)
            .count();
    }
    assert_eq!(found, ITEMS, "every added item answers 1");
    assert_eq!(
        filter.card(&mut client).expect("card") as usize,
        new + 1,
        "sum of the shards' BF.CARD"
    );

    // Each shard got its share of the items (their key slots spread them), and the shards
    // live on every master: as `info` reports it, and as the cluster's own view has it.
    let owners = Owners::new(&cluster);
    let mut per_master: BTreeMap<u16, usize> = BTreeMap::new();
    for shard in filter.info(&mut client).expect("info") {
        let key = String::from_utf8(shard.key.clone()).expect("a text key");
        let share = ITEMS / SHARDS as usize;
        assert!(
            shard.items as usize > share * 8 / 10 && (shard.items as usize) < share * 12 / 10,
            "shard {} ({key}) holds {} items, expected about {share}",
            shard.index,
            shard.items
        );
        let port = owners.port_of(&key);
        assert_eq!(shard.node, Some(format!("127.0.0.1:{port}")), "{key}");
        *per_master.entry(port).or_default() += 1;
        let mine = items
            .iter()
            .filter(|it| shard_of_item(it.as_bytes(), SHARDS) == shard.index)
            .take(20);
        for it in mine {
            let v = raw(&mut cluster.conn(port), &["BF.EXISTS", &key, it]);
            assert_eq!(v, Value::Int(1), "{it} in its shard {key}");
        }
    }
    assert_eq!(
        per_master.len(),
        3,
        "shards on {} masters: {per_master:?}",
        per_master.len()
    );
    assert!(
        per_master.values().all(|&n| n >= SHARDS as usize / 3 - 1),
        "shards per master: {per_master:?}"
    );
    assert_eq!(
        filter.delete(&mut client).expect("delete"),
        u64::from(SHARDS) + 1
    );

    // The example's --bench mode (bench/sharding.py): madd, then mexists, of N items each,
    // on a filter it reserves and deletes again.
    let lines = sharded_filter::run_bench(&mut client, "bench", 2_500).expect("bench");
    let ops: Vec<(&str, usize)> = lines.iter().map(|l| (l.op, l.count)).collect();
    assert_eq!(ops, [("madd", 2_500), ("mexists", 2_500)], "{lines:?}");
    assert!(lines.iter().all(|l| l.seconds > 0.0), "{lines:?}");
    let left: i64 = redis::cmd("EXISTS")
        .arg("bench")
        .query(&mut con)
        .expect("EXISTS");
    assert_eq!(left, 0, "the bench's description is deleted");
}

/// A filter bigger than the target's `proto-max-bulk-len` cannot be migrated: `MIGRATE` fails,
/// the reshard stops with the slot left open, and the filter stays whole on the source. After
/// raising the limit, `redis-cli --cluster fix` finishes the move and the filter is unchanged.
/// (The limit is 1 MB here, its minimum, and the filter about 1.2 MB: the same mechanics as a
/// filter over 512 MB against the default.)
#[test]
fn filter_over_proto_max_bulk_len_stops_migrate_and_stays_on_the_source() {
    let cluster = Cluster::start();
    let mut con = cluster.client();
    let masters = cluster.masters();
    let (src, dst) = (&masters[0], &masters[1]);
    // A key in the source's lowest slot: the one a one-slot reshard moves first.
    let slot = src.slots[0].0;
    let key = (0..)
        .map(|i| format!("big:{i}"))
        .find(|k| key_slot(k.as_bytes()) == slot)
        .unwrap();
    // k = 30 probes per item: filled to capacity, about half the bits are set, which the
    // DUMP payload's LZF compression cannot shrink (a sparse filter would compress well).
    ok(
        &mut con,
        &["BF.RESERVE", &key, "0.000000001", "220000", "NONSCALING"],
    );
    let items = gen_items("big-item:", 0..220_000);
    for batch in items.chunks(1000) {
        let mut args: Vec<&[u8]> = vec![b"BF.MADD", key.as_bytes()];
        args.extend(batch.iter().map(|v| v.as_slice()));
        ok(&mut con, &args);
    }
    let size = as_int(&ok(&mut con, &["BF.INFO", &key, "SIZE"]).clone_first());
    assert!(
        size > 1024 * 1024,
        "filter of {size} bytes is not over 1 MB"
    );
    let mut s = cluster.conn(src.port);
    let payload = as_bytes(&raw(&mut s, &["DUMP", &key]));
    assert!(
        payload.len() > 1024 * 1024,
        "DUMP payload of {} bytes is not over 1 MB",
        payload.len()
    );
    let digest = digest_value(&mut s, &key);
    let debug = bf_debug(&mut s, &key);
    let mut d = cluster.conn(dst.port);
    expect_ok(&mut d, &["CONFIG", "SET", "proto-max-bulk-len", "1mb"]);

    let args: Vec<String> = [
        "--cluster",
        "reshard",
        &format!("127.0.0.1:{}", src.port),
        "--cluster-from",
        &src.id,
        "--cluster-to",
        &dst.id,
        "--cluster-slots",
        "1",
        "--cluster-yes",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let ran = cluster.cli(&args);
    assert!(
        !ran.ok,
        "the reshard of a {size}-byte filter over a 1 MB proto-max-bulk-len succeeded:\n{}",
        ran.output
    );
    eprintln!(
        "reshard refused as expected; redis-cli said:\n{}",
        common::faults::tail(&ran.output, 4)
    );
    // The filter is still on the source, whole, and the slot is left migrating.
    assert_eq!(digest_value(&mut s, &key), digest, "filter on the source");
    assert_eq!(bf_debug(&mut s, &key), debug);
    expect_int(
        &mut d,
        &["CLUSTER", "COUNTKEYSINSLOT", &slot.to_string()],
        0,
    );
    let nodes: String = redis::cmd("CLUSTER")
        .arg("NODES")
        .query(&mut s)
        .expect("CLUSTER NODES");
    assert!(
        nodes.contains(&format!("[{slot}->-{}]", dst.id)),
        "slot {slot} is not left migrating on the source:\n{nodes}"
    );

    // Raise the limit, let redis-cli finish the move, and the filter arrives unchanged.
    expect_ok(&mut d, &["CONFIG", "SET", "proto-max-bulk-len", "512mb"]);
    let fix = cluster.cli(&[
        "--cluster".to_string(),
        "fix".to_string(),
        format!("127.0.0.1:{}", src.port),
        "--cluster-yes".to_string(),
    ]);
    assert!(fix.ok, "redis-cli --cluster fix failed:\n{}", fix.output);
    cluster.wait_ready(READY_TIMEOUT);
    let check = cluster.check();
    assert!(
        check.ok && !check.output.contains("[WARNING]"),
        "{}",
        check.output
    );
    let owner = cluster.owner(key.as_bytes());
    assert_eq!(owner, dst.port, "{key} after the fix");
    let mut o = cluster.conn(owner);
    assert_eq!(digest_value(&mut o, &key), digest, "filter after the move");
    assert_eq!(bf_debug(&mut o, &key), debug);
    let mut con = cluster.client();
    let mut args: Vec<&[u8]> = vec![b"BF.MEXISTS", key.as_bytes()];
    args.extend(items.iter().map(|v| v.as_slice()));
    assert!(as_ints(&ok(&mut con, &args)).iter().all(|&a| a == 1));
}

/// The first element of an array reply.
trait FirstElement {
    fn clone_first(&self) -> Value;
}

impl FirstElement for Value {
    fn clone_first(&self) -> Value {
        match self {
            Value::Array(a) if !a.is_empty() => a[0].clone(),
            other => panic!("expected a non-empty array, got {other:?}"),
        }
    }
}
