//! Valkey 9's atomic slot migration (`CLUSTER MIGRATESLOTS`) with the module loaded, on a
//! cluster of three Valkey 9.1 masters whatever `$REDIS_SERVER` is. The module declares
//! `VALKEYMODULE_OPTIONS_HANDLE_ATOMIC_SLOT_MIGRATION` there (without it Valkey refuses every
//! migration); the source then sends the slots as their AOF rewrite (each filter as its
//! LOADCHUNK chunks) and after it the commands it propagates.
//!
//! - every filter family and format (scaling `RSbloom--` and `MBbloom--`, a grown cuckoo
//!   filter with deletes, one Bloom filter over 32 MiB, i.e. three 16 MiB chunks), a
//!   Count-Min Sketch, a Top-K and a t-digest (sent as `RESTORE key 0 <DUMP>`), a counting
//!   Bloom filter (CBF.LOADCHUNK chunks), a sliding-window filter (APBF.LOADCHUNK chunks, its
//!   generations' times in the header) and plain
//!   strings arrive byte for byte (DUMP bodies), while a writer adds to filters of the same
//!   slots all along; its acknowledged writes, replayed on a standalone server, give the same
//!   answers and the same bytes as the migrated filters, and the source keeps none of the keys;
//! - a migration cancelled with `CLUSTER CANCELSLOTMIGRATIONS` leaves the source as it was and
//!   nothing on the target, and a second migration then succeeds;
//! - a target killed with SIGKILL in the middle leaves the source owning, answering and
//!   accepting writes as before;
//! - a target whose `bf.max-filter-bytes` is below a filter's size takes it all the same: the
//!   import replays the source's own data, which no size limit holds (src/size_limit.rs),
//!   while a client's RESTORE of that filter on the target is still refused;
//! - a TIME window's adds sent as they came (they kept the window's clock on the source:
//!   `window_verbatim`) and applied by the target after its own clock has passed the
//!   window's are taken at the window's clock, as a replica takes them: the import client's
//!   commands replay the source's writes (context flags REPLICATED or LOADING, as the
//!   lower-limit test shows too), and the migrated window holds the source's bytes;
//! - the module loads on every installed server and declares the option on Valkey 9 only.
//!
//! The migrations are held after the snapshot with `DEBUG SLOTMIGRATION PREVENT-PAUSE 1` on
//! the source, so the writes, the cancel and the kill happen while the target streams, not
//! by luck of timing.

use rsbloom_test_support as common;

use super::window_verbatim::{adds, held_adds, HELD_SENT};
use common::cluster::{key_slot, Cluster, ClusterOpts};
use common::faults::wait_until;
use common::rdb::{self, dump_body};
use common::*;
use redis::{Connection, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::sleep;
use std::time::Duration;

/// The server of these tests: the first with atomic slot migration.
const VALKEY_9: &str = "valkey-9.1";
/// The line the module logs where it declares the option.
const DECLARED: &str = "declaring support for atomic slot migration";
/// How long a migration (a 48 MB snapshot included) may take.
const MIGRATION_TIMEOUT: Duration = Duration::from_secs(300);
/// Writes the writer must have acknowledged while the target streams, and after the end.
const STREAMED_WRITES: usize = 300;
const WRITES_AFTER: usize = 200;

fn valkey_cluster(extra: &[&str]) -> Cluster {
    Cluster::start_opts(&ClusterOpts {
        installed: Some(Installed::get(VALKEY_9)),
        masters_only: true,
        server_args: extra.iter().map(|s| s.to_string()).collect(),
        ..ClusterOpts::default()
    })
}

/// The hash tags, source, target and slots of one migration.
struct Plan {
    /// Two hash tags in different slots, both on the source.
    tags: [String; 2],
    slots: [u16; 2],
    source: u16,
    target: u16,
    target_id: String,
}

/// Two tags of two slots owned by the first master, migrated to the second.
fn plan(cluster: &Cluster) -> Plan {
    let masters = cluster.masters();
    assert_eq!(masters.len(), 3, "{masters:#?}");
    let (source, target) = (&masters[0], &masters[1]);
    let mut found: Vec<(String, u16)> = Vec::new();
    for i in 0.. {
        let tag = format!("asm{i}");
        let slot = key_slot(format!("{{{tag}}}").as_bytes());
        if source.owns(slot) && found.iter().all(|(_, s)| *s != slot) {
            found.push((tag, slot));
            if found.len() == 2 {
                break;
            }
        }
    }
    let [(t0, s0), (t1, s1)]: [(String, u16); 2] = found.try_into().expect("two tags");
    Plan {
        tags: [t0, t1],
        slots: [s0, s1],
        source: source.port,
        target: target.port,
        target_id: target.id.clone(),
    }
}

impl Plan {
    fn key(&self, tag: usize, name: &str) -> String {
        format!("{{{}}}{name}", self.tags[tag])
    }

    fn migrate_args(&self) -> Vec<String> {
        // One group (one job) of two one-slot ranges; each SLOTSRANGE ... NODE group is a job.
        let mut args = vec!["CLUSTER".to_string(), "MIGRATESLOTS".to_string()];
        args.push("SLOTSRANGE".to_string());
        for slot in self.slots {
            args.extend([slot.to_string(), slot.to_string()]);
        }
        args.extend(["NODE".to_string(), self.target_id.clone()]);
        args
    }
}

/// A filter of the data set and the items added to it.
struct Filter {
    key: String,
    items: Vec<Vec<u8>>,
}

/// The data set on the source: the keys (filters and strings) and the filters' items.
struct DataSet {
    keys: Vec<String>,
    filters: Vec<Filter>,
}

/// Create a Bloom filter in the given format (`bf.new-filter-format` is read at creation).
fn reserve_bloom(con: &mut Connection, format: &str, args: &[&str]) {
    expect_ok(con, &["CONFIG", "SET", "bf.new-filter-format", format]);
    let mut cmd = vec!["BF.RESERVE"];
    cmd.extend_from_slice(args);
    expect_ok(con, &cmd);
    expect_ok(con, &["CONFIG", "SET", "bf.new-filter-format", "guava"]);
}

fn type_of(con: &mut Connection, key: &str) -> String {
    as_text(&raw(con, &["TYPE", key]))
}

/// Layers of a filter, from `BF.INFO` / `CF.INFO`.
fn filters_field(con: &mut Connection, command: &str, key: &str, field: &str) -> i64 {
    let v = raw(con, &[command, key]);
    let Value::Array(items) = v else {
        panic!("{command} {key}: {v:?}")
    };
    let at = items
        .iter()
        .position(|i| {
            matches!(i, Value::SimpleString(s) if s == field)
                || matches!(i, Value::BulkString(b) if b == field.as_bytes())
        })
        .unwrap_or_else(|| panic!("{command} {key} has no {field}: {items:?}"));
    as_int(&items[at + 1])
}

/// Every family and format in the two slots: scaling RSbloom-- and MBbloom-- filters, a grown
/// cuckoo filter with deletes, strings, and (when `big`) a 48 MB RSbloom-- filter.
fn populate(con: &mut Connection, plan: &Plan, big: bool) -> DataSet {
    let mut set = DataSet {
        keys: Vec::new(),
        filters: Vec::new(),
    };
    for (tag, format, want) in [(0, "guava", "RSbloom--"), (1, "redisbloom", "MBbloom--")] {
        let key = plan.key(tag, &format!("scaling-{format}"));
        reserve_bloom(con, format, &[&key, "0.01", "100", "EXPANSION", "2"]);
        let items = gen_items(&format!("{key}/"), 0..3000);
        madd_all(con, &key, &items);
        assert_eq!(type_of(con, &key), want);
        assert!(filters_field(con, "BF.INFO", &key, "Number of filters") >= 4);
        set.keys.push(key.clone());
        set.filters.push(Filter { key, items });
    }
    let cf = plan.key(0, "cuckoo");
    expect_ok(
        con,
        &[
            "CF.RESERVE",
            &cf,
            "256",
            "BUCKETSIZE",
            "2",
            "EXPANSION",
            "1",
        ],
    );
    let items = gen_items(&format!("{cf}/"), 0..1500);
    for item in &items {
        expect_int(con, &[b"CF.ADD".as_slice(), cf.as_bytes(), item], 1);
    }
    // Deletes leave holes the snapshot must carry; the survivors are checked afterwards.
    let mut kept = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        if i.is_multiple_of(5) {
            expect_int(con, &[b"CF.DEL".as_slice(), cf.as_bytes(), &item], 1);
        } else {
            kept.push(item);
        }
    }
    assert_eq!(type_of(con, &cf), "MBbloomCF");
    assert!(filters_field(con, "CF.INFO", &cf, "Number of filters") >= 3);
    set.keys.push(cf.clone());
    set.filters.push(Filter {
        key: cf,
        items: kept,
    });
    // A cuckoo filter only an RDB or RESTORE makes (3 buckets, 0 iterations): its SCANDUMP
    // header is one a user's CF.LOADCHUNK refuses (as RedisBloom's), which the import client
    // must still take from the snapshot.
    let odd = plan.key(1, "cuckoo-odd");
    expect_ok(con, &["CF.RESERVE", &odd, "4"]);
    let frame = rdb::Frame::from_dump(&as_bytes(&raw(con, &["DUMP", &odd])));
    expect_int(con, &["DEL", &odd], 1);
    let fields = [
        rdb::F::U(1),
        rdb::F::U(3),
        rdb::F::U(0),
        rdb::F::U(0),
        rdb::F::U(2),
        rdb::F::U(0),
        rdb::F::U(1),
        rdb::F::U(3),
        rdb::F::S(vec![0; 6]),
    ];
    assert_eq!(
        rdb::restore(con, &odd, &frame.payload(&fields)),
        Value::Okay
    );
    let items = gen_items(&format!("{odd}/"), 0..60);
    for item in &items {
        expect_int(con, &[b"CF.ADD".as_slice(), odd.as_bytes(), item], 1);
    }
    assert!(filters_field(con, "CF.INFO", &odd, "Number of filters") > 1);
    set.keys.push(odd.clone());
    set.filters.push(Filter { key: odd, items });
    if big {
        // 20 million items at 1e-4: about 48 MB of bits, three 16 MiB LOADCHUNK chunks.
        let key = plan.key(1, "big");
        reserve_bloom(con, "guava", &[&key, "0.0001", "20000000", "NONSCALING"]);
        let items = gen_items(&format!("{key}/"), 0..5000);
        madd_all(con, &key, &items);
        let bytes = filters_field(con, "BF.INFO", &key, "Size");
        assert!(bytes > 32 << 20, "the big filter has only {bytes} bytes");
        set.keys.push(key.clone());
        set.filters.push(Filter { key, items });
    }
    // The sketches travel as `RESTORE key 0 <DUMP>` in the rewrite, as RedisBloom writes them.
    let cms = plan.key(0, "cms");
    expect_ok(con, &["CMS.INITBYDIM", &cms, "200", "4"]);
    let topk = plan.key(1, "topk");
    expect_ok(con, &["TOPK.RESERVE", &topk, "5", "40", "3", "0.9"]);
    let td = plan.key(0, "tdigest");
    expect_ok(con, &["TDIGEST.CREATE", &td, "COMPRESSION", "50"]);
    for (n, item) in gen_items(&format!("{cms}/"), 0..400).iter().enumerate() {
        let count = (n % 5 + 1).to_string();
        let incr: [&[u8]; 4] = [b"CMS.INCRBY", cms.as_bytes(), item, count.as_bytes()];
        raw(con, &incr);
        let add: [&[u8]; 3] = [b"TOPK.ADD", topk.as_bytes(), &item[..item.len() - n % 3]];
        raw(con, &add);
        expect_ok(con, &["TDIGEST.ADD", &td, &format!("{}", n as f64 / 3.0)]);
    }
    assert_eq!(type_of(con, &cms), "CMSk-TYPE");
    assert_eq!(type_of(con, &topk), "TopK-TYPE");
    assert_eq!(type_of(con, &td), "TDIS-TYPE");
    set.keys.extend([cms, topk, td]);
    // A counting Bloom filter travels as CBF.LOADCHUNK chunks, as the Bloom filters do.
    let cbf = plan.key(1, "cbf");
    expect_ok(con, &["CBF.RESERVE", &cbf, "0.01", "1000"]);
    let cbf_items = gen_items(&format!("{cbf}/"), 0..600);
    for item in &cbf_items {
        let add: [&[u8]; 3] = [b"CBF.ADD", cbf.as_bytes(), item];
        raw(con, &add);
    }
    for item in &cbf_items[..200] {
        let del: [&[u8]; 3] = [b"CBF.DEL", cbf.as_bytes(), item];
        raw(con, &del);
    }
    assert_eq!(type_of(con, &cbf), "RSbloomCB");
    set.keys.push(cbf);
    // A sliding window over the last hour travels as APBF.LOADCHUNK chunks, times and all.
    let apbf = plan.key(0, "apbf");
    expect_ok(
        con,
        &["APBF.RESERVE", &apbf, "TIME", "0.001", "5000", "3600"],
    );
    let apbf_items = gen_items(&format!("{apbf}/"), 0..700);
    let old: Vec<&[u8]> = [b"APBF.INSERTAT".as_slice(), apbf.as_bytes(), b"1000"]
        .into_iter()
        .chain(apbf_items[..100].iter().map(Vec::as_slice))
        .collect();
    raw(con, &old);
    for item in &apbf_items[100..] {
        let add: [&[u8]; 3] = [b"APBF.ADD", apbf.as_bytes(), item];
        raw(con, &add);
    }
    assert_eq!(type_of(con, &apbf), "RSbloomAP");
    set.keys.push(apbf);
    for tag in 0..2 {
        let key = plan.key(tag, "string");
        expect_ok(con, &["SET", &key, &format!("plain value {tag}")]);
        set.keys.push(key);
    }
    set
}

/// Each key's DUMP body (without the RDB version and CRC), `None` for a missing key.
fn dumps(con: &mut Connection, keys: &[String]) -> BTreeMap<String, Option<Vec<u8>>> {
    keys.iter()
        .map(|k| {
            let body = match raw(con, &["DUMP", k]) {
                Value::Nil => None,
                v => Some(dump_body(&as_bytes(&v)).to_vec()),
            };
            (k.clone(), body)
        })
        .collect()
}

fn assert_same_dumps(
    what: &str,
    got: &BTreeMap<String, Option<Vec<u8>>>,
    want: &BTreeMap<String, Option<Vec<u8>>>,
) {
    for (key, body) in want {
        let other = got
            .get(key)
            .unwrap_or_else(|| panic!("{what}: {key} not dumped"));
        assert!(
            body.is_some() && other == body,
            "{what}: {key} differs ({:?} bytes, expected {:?})",
            other.as_ref().map(Vec::len),
            body.as_ref().map(Vec::len)
        );
    }
}

/// Every item of every filter answers 1 (Bloom: no false negatives; cuckoo: still there).
fn assert_members(con: &mut Connection, set: &DataSet, node: &str) {
    for f in &set.filters {
        let answers = if type_of(con, &f.key) == "MBbloomCF" {
            f.items
                .iter()
                .map(|i| as_int(&raw(con, &[b"CF.EXISTS".as_slice(), f.key.as_bytes(), i])))
                .collect()
        } else {
            mexists_all(con, &f.key, &f.items)
        };
        let missing = answers.iter().filter(|&&a| a != 1).count();
        assert_eq!(missing, 0, "{node}: {missing} items of {} missing", f.key);
    }
}

/// After a migration that did not complete: the source still owns the slots and holds every
/// key as `before`, with every item of its filters present.
fn assert_source_kept(
    cluster: &Cluster,
    plan: &Plan,
    source: &mut Connection,
    set: &DataSet,
    before: &BTreeMap<String, Option<Vec<u8>>>,
    when: &str,
) {
    let view = cluster.view_from(plan.source);
    for slot in plan.slots {
        assert!(
            view.iter().any(|n| n.port == plan.source && n.owns(slot)),
            "{when}: slot {slot} left the source: {view:#?}"
        );
    }
    assert_same_dumps(
        &format!("source after {when}"),
        &dumps(source, &set.keys),
        before,
    );
    assert_members(source, set, "source");
}

/// The target holds no key of the migrated slots.
fn assert_target_empty(target: &mut Connection, plan: &Plan) {
    for slot in plan.slots {
        assert_eq!(
            count_in_slot(target, slot),
            0,
            "slot {slot} left on the target"
        );
    }
}

fn count_in_slot(con: &mut Connection, slot: u16) -> i64 {
    as_int(&raw(
        con,
        &["CLUSTER", "COUNTKEYSINSLOT", &slot.to_string()],
    ))
}

/// One entry of `CLUSTER GETSLOTMIGRATIONS` (field -> text).
type Job = HashMap<String, String>;

fn text_of(v: &Value) -> String {
    match v {
        Value::Int(n) => n.to_string(),
        other => as_text(other),
    }
}

/// `CLUSTER GETSLOTMIGRATIONS` of one node, newest first.
fn jobs(con: &mut Connection) -> Vec<Job> {
    let v = raw(con, &["CLUSTER", "GETSLOTMIGRATIONS"]);
    let Value::Array(entries) = v else {
        panic!("CLUSTER GETSLOTMIGRATIONS: {v:?}")
    };
    entries
        .iter()
        .map(|e| match e {
            Value::Array(kv) => kv
                .chunks(2)
                .map(|p| (text_of(&p[0]), text_of(&p[1])))
                .collect(),
            Value::Map(kv) => kv.iter().map(|(k, v)| (text_of(k), text_of(v))).collect(),
            other => panic!("a migration entry: {other:?}"),
        })
        .collect()
}

/// The job of this name on a node, if it is listed.
fn job(cluster: &Cluster, port: u16, name: &str) -> Option<Job> {
    jobs(&mut cluster.conn(port))
        .into_iter()
        .find(|j| j.get("name").map(String::as_str) == Some(name))
}

/// Start the plan's migration on the source; the name of the export job it created.
fn start_migration(cluster: &Cluster, plan: &Plan) -> String {
    let mut con = cluster.conn(plan.source);
    let before: Vec<String> = jobs(&mut con)
        .into_iter()
        .filter_map(|j| j.get("name").cloned())
        .collect();
    expect_ok(&mut con, &plan.migrate_args());
    let new: Vec<Job> = jobs(&mut con)
        .into_iter()
        .filter(|j| !before.contains(&j["name"]))
        .collect();
    assert_eq!(new.len(), 1, "one new job expected: {new:?}");
    assert_eq!(new[0]["operation"], "EXPORT", "{new:?}");
    new[0]["name"].clone()
}

/// Wait until the job on this node is in `state`; panics early when it ends in another one.
fn wait_state(cluster: &Cluster, port: u16, name: &str, state: &str) -> Job {
    let mut last = None;
    wait_until(
        MIGRATION_TIMEOUT,
        || {
            last = job(cluster, port, name);
            let now = last.as_ref().map(|j| j["state"].as_str()).unwrap_or("");
            if now != state && matches!(now, "success" | "failed" | "cancelled") {
                panic!("job {name} on {port} ended {now}, expected {state}: {last:?}");
            }
            now == state
        },
        || format!("job {name} on {port} never reached {state}"),
    );
    last.expect("job")
}

fn prevent_pause(cluster: &Cluster, port: u16, on: bool) {
    let flag = if on { "1" } else { "0" };
    expect_ok(
        &mut cluster.conn(port),
        &["DEBUG", "SLOTMIGRATION", "PREVENT-PAUSE", flag],
    );
}

/// Write `i` of the writer to the live filters (`live_keys`): a command on one key.
fn write_op(live: &[String], i: usize) -> Vec<String> {
    let item = format!("w{i}");
    match i % 4 {
        0 => vec!["BF.ADD".into(), live[0].clone(), item],
        1 => vec!["BF.ADD".into(), live[1].clone(), item],
        2 => vec!["CF.ADD".into(), live[2].clone(), item],
        // Every other fourth write deletes what the write before added.
        _ if (i / 4).is_multiple_of(2) => {
            vec!["CF.DEL".into(), live[2].clone(), format!("w{}", i - 1)]
        }
        _ => vec!["CF.ADD".into(), live[2].clone(), item],
    }
}

/// The filters the writer writes to, made the same way on the cluster and the reference.
fn create_live(con: &mut Connection, plan: &Plan) {
    reserve_bloom(
        con,
        "guava",
        &[&plan.key(0, "live-guava"), "0.01", "200", "EXPANSION", "2"],
    );
    reserve_bloom(
        con,
        "redisbloom",
        &[
            &plan.key(1, "live-redisbloom"),
            "0.01",
            "200",
            "EXPANSION",
            "2",
        ],
    );
    // Grows under the writes (a few thousand items) and never reaches its last expansion.
    expect_ok(
        con,
        &[
            "CF.RESERVE",
            &plan.key(0, "live-cuckoo"),
            "1024",
            "BUCKETSIZE",
            "2",
            "EXPANSION",
            "2",
        ],
    );
}

fn live_keys(plan: &Plan) -> Vec<String> {
    vec![
        plan.key(0, "live-guava"),
        plan.key(1, "live-redisbloom"),
        plan.key(0, "live-cuckoo"),
    ]
}

/// A minimal cluster client for one writer: sends each command to the node it believes owns
/// the slot and follows MOVED (the slot moved: remember the new owner), ASK (send there once,
/// after ASKING) and TRYAGAIN (retry), as a cluster client would. A command counts as
/// acknowledged when a node answers it with anything else.
struct Router {
    owner: HashMap<u16, u16>,
    conns: HashMap<u16, Connection>,
}

impl Router {
    fn conn(&mut self, port: u16) -> &mut Connection {
        self.conns.entry(port).or_insert_with(|| {
            let con = redis::Client::open(format!("redis://127.0.0.1:{port}/"))
                .expect("client")
                .get_connection_with_timeout(Duration::from_secs(5))
                .expect("connect");
            con.set_read_timeout(Some(Duration::from_secs(120)))
                .expect("read timeout");
            con
        })
    }

    fn send(&mut self, args: &[String]) -> Value {
        let slot = key_slot(args[1].as_bytes());
        let mut port = self.owner[&slot];
        let mut asking = false;
        loop {
            let con = self.conn(port);
            if asking {
                let _ = raw(con, &["ASKING"]);
            }
            let v = raw(con, args);
            let Value::ServerError(e) = &v else { return v };
            let target = || -> u16 {
                let detail = e.details().unwrap_or("");
                detail
                    .rsplit(':')
                    .next()
                    .and_then(|p| p.parse().ok())
                    .unwrap_or_else(|| panic!("redirect without a port: {detail}"))
            };
            match e.code() {
                "MOVED" => {
                    port = target();
                    self.owner.insert(slot, port);
                    asking = false;
                }
                "ASK" => {
                    port = target();
                    asking = true;
                }
                "TRYAGAIN" => sleep(Duration::from_millis(10)),
                _ => return v,
            }
        }
    }
}

/// What the writer had acknowledged, in order: each command and its reply.
type Log = Vec<(Vec<String>, Value)>;

struct Writer {
    stop: Arc<AtomicBool>,
    acked: Arc<AtomicUsize>,
    handle: std::thread::JoinHandle<Log>,
}

fn start_writer(plan: &Plan) -> Writer {
    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(AtomicUsize::new(0));
    let live = live_keys(plan);
    let mut router = Router {
        owner: plan.slots.iter().map(|&s| (s, plan.source)).collect(),
        conns: HashMap::new(),
    };
    let (s, a) = (stop.clone(), acked.clone());
    let handle = std::thread::spawn(move || {
        let mut log = Log::new();
        while !s.load(Ordering::SeqCst) {
            let op = write_op(&live, log.len());
            let reply = router.send(&op);
            log.push((op, reply));
            a.store(log.len(), Ordering::SeqCst);
        }
        log
    });
    Writer {
        stop,
        acked,
        handle,
    }
}

impl Writer {
    /// Wait until `more` writes beyond what is acknowledged now are acknowledged.
    fn wait_more(&self, more: usize) {
        let goal = self.acked.load(Ordering::SeqCst) + more;
        wait_until(
            MIGRATION_TIMEOUT,
            || self.acked.load(Ordering::SeqCst) >= goal,
            || format!("the writer stalled before {goal} writes"),
        );
    }

    fn finish(self) -> Log {
        self.stop.store(true, Ordering::SeqCst);
        self.handle.join().expect("writer thread")
    }
}

#[test]
fn migration_carries_every_filter_byte_for_byte_while_writes_run() {
    let cluster = valkey_cluster(&[]);
    let plan = plan(&cluster);
    let mut source = cluster.conn(plan.source);
    let set = populate(&mut source, &plan, true);
    create_live(&mut source, &plan);
    let before = dumps(&mut source, &set.keys);

    prevent_pause(&cluster, plan.source, true);
    let writer = start_writer(&plan);
    writer.wait_more(50);
    let started = std::time::Instant::now();
    let name = start_migration(&cluster, &plan);
    // Held after the snapshot: the target has every key and now receives the stream.
    wait_state(&cluster, plan.source, &name, "waiting-to-pause");
    let import = wait_state(&cluster, plan.target, &name, "waiting-for-paused");
    assert_eq!(import["operation"], "IMPORT");
    let snapshot_took = started.elapsed();
    // Every key is on the target once the snapshot is in (counted per slot: DBSIZE leaves out
    // keys of importing slots).
    let mut target = cluster.conn(plan.target);
    let imported: i64 = plan
        .slots
        .iter()
        .map(|&s| count_in_slot(&mut target, s))
        .sum();
    eprintln!(
        "held after the snapshot ({snapshot_took:?}): {imported} keys in the slots, DBSIZE {:?}",
        raw(&mut target, &["DBSIZE"])
    );
    assert_eq!(imported, (set.keys.len() + live_keys(&plan).len()) as i64);
    writer.wait_more(STREAMED_WRITES);
    prevent_pause(&cluster, plan.source, false);
    let done = wait_state(&cluster, plan.source, &name, "success");
    wait_state(&cluster, plan.target, &name, "success");
    writer.wait_more(WRITES_AFTER);
    let log = writer.finish();
    eprintln!(
        "migration {name}: {done:?}; {} writes acknowledged",
        log.len()
    );

    // The slots are the target's, the source kept none of their keys.
    let view = cluster.view_from(plan.source);
    for slot in plan.slots {
        assert!(
            view.iter().any(|n| n.port == plan.target && n.owns(slot)),
            "slot {slot} is not the target's: {view:#?}"
        );
        assert_eq!(
            count_in_slot(&mut source, slot),
            0,
            "slot {slot} left on the source"
        );
    }
    assert_eq!(as_int(&raw(&mut source, &["DBSIZE"])), 0);

    // The snapshot came as the AOF rewrite writes it: LOADCHUNK chunks, three or more for
    // the big filter alone, and one chunk or more for each other filter; one RESTORE per
    // sketch.
    let (bf_chunks, cf_chunks) = (
        command_calls(&mut target, "bf.loadchunk"),
        command_calls(&mut target, "cf.loadchunk"),
    );
    eprintln!("the target ran {bf_chunks} BF.LOADCHUNK and {cf_chunks} CF.LOADCHUNK");
    assert!(bf_chunks >= 3 + 4, "{bf_chunks} BF.LOADCHUNK on the target");
    assert!(cf_chunks >= 2, "{cf_chunks} CF.LOADCHUNK on the target");
    assert_eq!(command_calls(&mut target, "restore"), 3);

    // Every key arrived byte for byte, and answers for every item.
    assert_same_dumps(
        "target after the migration",
        &dumps(&mut target, &set.keys),
        &before,
    );
    assert_members(&mut target, &set, "target");

    // The writes: the same sequence on a standalone server gives the same answers and bytes.
    let installed = Installed::get(VALKEY_9);
    let reference = Server::start_with(ServerOpts::default().on(&installed));
    let mut refcon = reference.conn();
    create_live(&mut refcon, &plan);
    for (op, reply) in &log {
        assert!(
            err_of(reply).is_none(),
            "`{}` answered {reply:?}",
            op.join(" ")
        );
        let again = raw(&mut refcon, op);
        assert_eq!(&again, reply, "`{}` on the reference", op.join(" "));
    }
    let live = live_keys(&plan);
    assert_same_dumps(
        "written filters on the target",
        &dumps(&mut target, &live),
        &dumps(&mut refcon, &live),
    );
}

#[test]
fn cancelled_migration_leaves_the_source_whole_and_the_target_empty() {
    let cluster = valkey_cluster(&[]);
    let plan = plan(&cluster);
    let mut source = cluster.conn(plan.source);
    let set = populate(&mut source, &plan, false);
    let before = dumps(&mut source, &set.keys);

    prevent_pause(&cluster, plan.source, true);
    let name = start_migration(&cluster, &plan);
    wait_state(&cluster, plan.source, &name, "waiting-to-pause");
    wait_state(&cluster, plan.target, &name, "waiting-for-paused");
    let mut target = cluster.conn(plan.target);
    let imported: i64 = plan
        .slots
        .iter()
        .map(|&s| count_in_slot(&mut target, s))
        .sum();
    assert_eq!(
        imported,
        set.keys.len() as i64,
        "keys on the target before the cancel"
    );
    expect_ok(&mut source, &["CLUSTER", "CANCELSLOTMIGRATIONS"]);
    wait_state(&cluster, plan.source, &name, "cancelled");
    // The import fails when the source closes the link, after deleting what it imported.
    wait_state(&cluster, plan.target, &name, "failed");

    assert_eq!(
        as_int(&raw(&mut target, &["DBSIZE"])),
        0,
        "keys left on the target"
    );
    assert_target_empty(&mut target, &plan);
    assert_source_kept(&cluster, &plan, &mut source, &set, &before, "the cancel");

    // Nothing of the cancelled import stands in the way of the next one.
    prevent_pause(&cluster, plan.source, false);
    let again = start_migration(&cluster, &plan);
    wait_state(&cluster, plan.source, &again, "success");
    wait_state(&cluster, plan.target, &again, "success");
    assert_same_dumps(
        "target after the second migration",
        &dumps(&mut target, &set.keys),
        &before,
    );
    assert_members(&mut target, &set, "target");
}

#[test]
fn killed_target_leaves_the_source_owning_and_answering() {
    // The killed master's slots are not served any more; the source's must still be.
    let mut cluster = valkey_cluster(&["--cluster-require-full-coverage", "no"]);
    let plan = plan(&cluster);
    let mut source = cluster.conn(plan.source);
    let set = populate(&mut source, &plan, false);
    let before = dumps(&mut source, &set.keys);

    prevent_pause(&cluster, plan.source, true);
    let name = start_migration(&cluster, &plan);
    wait_state(&cluster, plan.source, &name, "waiting-to-pause");
    cluster.kill9(plan.target);
    let failed = wait_state(&cluster, plan.source, &name, "failed");
    eprintln!("export after the kill: {failed:?}");

    assert_source_kept(&cluster, &plan, &mut source, &set, &before, "the kill");
    // Not left paused: writes to the slots go on (a new filter: its first add answers 1).
    let key = plan.key(0, "after-the-kill");
    expect_int(&mut source, &["BF.ADD", &key, "item"], 1);
    expect_int(&mut source, &["BF.EXISTS", &key, "item"], 1);
}

#[test]
fn module_declares_atomic_slot_migration_on_valkey_9_only() {
    for (name, declares) in [
        ("redis-7.0", false),
        ("redis-7.4", false),
        ("redis-8.2", false),
        ("valkey-8.1", false),
        ("valkey-9.1", true),
    ] {
        let installed = Installed::get(name);
        let server = Server::start_with(ServerOpts::default().on(&installed));
        let mut con = server.conn();
        expect_int(&mut con, &["BF.ADD", "k", "a"], 1);
        expect_int(&mut con, &["BF.EXISTS", "k", "a"], 1);
        let log = server.log_text();
        assert_eq!(
            log.contains(DECLARED),
            declares,
            "{name}: the module's declaration in the log is not as expected:\n{}",
            common::faults::tail(&log, 20)
        );
    }
}

#[test]
fn target_with_a_lower_limit_takes_the_sources_filters() {
    let cluster = valkey_cluster(&[]);
    let plan = plan(&cluster);
    let mut source = cluster.conn(plan.source);
    let mut set = populate(&mut source, &plan, false);
    // About 3.6 MB: over the target's limit below, within the source's default.
    let key = plan.key(1, "over-the-target-limit");
    expect_ok(&mut source, &["BF.RESERVE", &key, "0.001", "2000000"]);
    set.keys.push(key.clone());
    let before = dumps(&mut source, &set.keys);
    let payload = as_bytes(&raw(&mut source, &["DUMP", &key]));
    let mut target = cluster.conn(plan.target);
    expect_ok(
        &mut target,
        &["CONFIG", "SET", "bf.max-filter-bytes", "1000000"],
    );

    // The import replays the source's LOADCHUNK calls: the source's data, not a request.
    let name = start_migration(&cluster, &plan);
    wait_state(&cluster, plan.source, &name, "success");
    wait_state(&cluster, plan.target, &name, "success");
    assert_same_dumps(
        "target after the migration",
        &dumps(&mut target, &set.keys),
        &before,
    );
    // A client's RESTORE of the same filter is held to the target's limit.
    let copy = plan.key(1, "client-copy");
    let v = raw(
        &mut target,
        &[b"RESTORE".as_slice(), copy.as_bytes(), b"0", &payload],
    );
    assert!(
        err_of(&v).is_some(),
        "RESTORE over the limit answered {v:?}"
    );
}

/// Adds to a TIME window sent while the target streams, as they came (they kept the window's
/// clock on the source): the target applies them after its own clock has passed the
/// window's, and takes them at the window's clock as a replica does (its import client
/// replays the source's writes), so the migrated window holds the source's bytes.
#[test]
fn a_windows_adds_sent_as_they_came_reach_the_target_at_the_sources_moment() {
    let cluster = valkey_cluster(&[]);
    let plan = plan(&cluster);
    let mut source = cluster.conn(plan.source);
    let key = plan.key(0, "window");
    expect_ok(
        &mut source,
        &["APBF.RESERVE", &key, "TIME", "0.01", "1000", "3600"],
    );
    let old: Vec<&[u8]> = [b"APBF.INSERTAT".as_slice(), key.as_bytes(), b"1000", b"old"].to_vec();
    expect_ints(&mut source, &old, &[1]);

    prevent_pause(&cluster, plan.source, true);
    let name = start_migration(&cluster, &plan);
    wait_state(&cluster, plan.source, &name, "waiting-to-pause");
    wait_state(&cluster, plan.target, &name, "waiting-for-paused");
    let mut target = cluster.conn(plan.target);
    // A round counts when every add of it kept the window's clock (see window_verbatim);
    // each of its four adds arrives as one command either way.
    let mut counted = 0;
    for round in 0..20 {
        let before = adds(&mut target);
        held_adds(&mut source, &key, round, 300);
        let mut sent = before;
        wait_until(
            MIGRATION_TIMEOUT,
            || {
                sent = adds(&mut target).since(before);
                sent.add + sent.madd + sent.insertat == 4
            },
            || format!("round {round} never reached the target"),
        );
        if sent == HELD_SENT {
            counted += 1;
            if counted == 3 {
                break;
            }
        }
    }
    assert_eq!(counted, 3, "rounds whose adds all kept the window's clock");
    let want = dumps(&mut source, std::slice::from_ref(&key));

    prevent_pause(&cluster, plan.source, false);
    wait_state(&cluster, plan.source, &name, "success");
    wait_state(&cluster, plan.target, &name, "success");
    assert_same_dumps(
        "the window on the target",
        &dumps(&mut target, std::slice::from_ref(&key)),
        &want,
    );
}
