//! Durability under `kill -9`: writers add items (BF.ADD one at a time on one connection,
//! BF.MADD batches on another) and record every acknowledged one; the server is killed with
//! SIGKILL while writes are in flight and restarted from what it had on disk. Every
//! acknowledged item must answer 1 and BF.CARD must be at least the number of adds that
//! answered 1.
//!
//! - AOF with `appendfsync always`, with the RDB preamble (a BGREWRITEAOF during the writes
//!   makes the base an RDB file) and without it (the rewrite writes BF.LOADCHUNK commands).
//! - RDB: a BGSAVE during the writes; everything acknowledged before BGSAVE was sent must be
//!   in the snapshot.

use rsbloom_test_support as common;

use common::faults::{info_int, kill9, server_pid, wait_port_closed, wait_until};
use common::*;
use redis::{Connection, ConnectionLike, Value};
use std::fs;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// Items per BF.MADD of the batch writer.
const MADD_BATCH: usize = 100;
/// Upper bound of items per writer: the kill comes long before (a writer that reaches it
/// fails the test, as the kill did not land mid-stream).
const MAX_ITEMS: usize = 3_000_000;
/// Upper bound of a writer's run time, for the same reason.
const MAX_RUN: Duration = Duration::from_secs(300);

/// What one writer did.
struct Written {
    key: String,
    /// Acknowledged items, in order, with their answers (1 added, 0 probably present).
    acked: Vec<(Vec<u8>, i64)>,
    /// Items of the one command in flight when the connection broke.
    in_flight: usize,
    /// Why the writer stopped (the I/O error the kill caused, or the bound).
    ended: String,
    killed: bool,
}

impl Written {
    fn ones_in(&self, prefix: usize) -> i64 {
        self.acked[..prefix].iter().map(|(_, a)| a).sum()
    }
}

/// The commands a filter family is written and checked with.
#[derive(Clone, Copy)]
struct Family {
    /// One item: answers 1 (added) or 0 (probably present).
    add: &'static str,
    /// Many items after the key: an array of those answers.
    add_many: &'static [&'static str],
    /// The command that creates `d:madd` before the writers start.
    reserve: &'static [&'static str],
    /// What the AOF rewrite writes a filter as.
    loadchunk: &'static str,
}

const BLOOM: Family = Family {
    add: "BF.ADD",
    add_many: &["BF.MADD"],
    reserve: &["BF.RESERVE", "d:madd", "0.001", "5000", "EXPANSION", "3"],
    loadchunk: "BF.LOADCHUNK",
};

/// Cuckoo filters: CF.ADD answers 1 for every add, CF.INSERT one answer per item; the batch
/// filter starts small with bucket size 1, so the writes kick and grow.
const CUCKOO: Family = Family {
    add: "CF.ADD",
    add_many: &["CF.INSERT", "ITEMS"],
    reserve: &[
        "CF.RESERVE",
        "d:madd",
        "4096",
        "BUCKETSIZE",
        "1",
        "EXPANSION",
        "2",
    ],
    loadchunk: "CF.LOADCHUNK",
};

/// A writer thread: single adds (`batch == 1`) or batches to `key`, counting acknowledged
/// items in `acks` (after recording them).
fn writer(
    port: u16,
    family: Family,
    key: &str,
    batch: usize,
    acks: Arc<AtomicUsize>,
) -> JoinHandle<Written> {
    let key = key.to_string();
    thread::spawn(move || {
        let client = redis::Client::open(format!("redis://127.0.0.1:{port}/")).unwrap();
        let mut con = client
            .get_connection_with_timeout(Duration::from_secs(5))
            .expect("writer connects");
        con.set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        let mut w = Written {
            key: key.clone(),
            acked: Vec::new(),
            in_flight: 0,
            ended: String::new(),
            killed: false,
        };
        let started = Instant::now();
        let mut next = 0usize;
        while next < MAX_ITEMS && started.elapsed() < MAX_RUN {
            let items: Vec<Vec<u8>> = (next..next + batch)
                .map(|i| format!("{key}/item:{i}").into_bytes())
                .collect();
            let mut cmd = redis::cmd(if batch == 1 {
                family.add
            } else {
                family.add_many[0]
            });
            cmd.arg(&key);
            if batch > 1 {
                cmd.arg(&family.add_many[1..]);
            }
            for it in &items {
                cmd.arg(it.as_slice());
            }
            match con.req_command(&cmd) {
                Ok(v) => {
                    let answers = match (&v, batch) {
                        (Value::Int(a), 1) => vec![*a],
                        (Value::Array(_), _) => as_ints(&v),
                        _ => panic!("{key}: unexpected reply {v:?}"),
                    };
                    assert_eq!(answers.len(), items.len(), "{key}: short reply {v:?}");
                    for (it, a) in items.into_iter().zip(answers) {
                        assert!(a == 0 || a == 1, "{key}: answer {a}");
                        w.acked.push((it, a));
                    }
                    acks.store(w.acked.len(), Ordering::Release);
                    next += batch;
                }
                Err(e) => {
                    w.ended = e.to_string();
                    w.killed = e.is_io_error() || e.is_connection_dropped();
                    w.in_flight = batch;
                    return w;
                }
            }
        }
        w.ended = format!("bound reached after {} items", w.acked.len());
        w
    })
}

/// The two writers, their counters and the server's pid.
struct Stream {
    pid: u32,
    port: u16,
    adds: Arc<AtomicUsize>,
    madds: Arc<AtomicUsize>,
    handles: Vec<JoinHandle<Written>>,
}

impl Stream {
    fn start(server: &Server, family: Family) -> Stream {
        let pid = server_pid(&mut server.conn());
        let adds = Arc::new(AtomicUsize::new(0));
        let madds = Arc::new(AtomicUsize::new(0));
        let handles = vec![
            writer(server.port, family, "d:add", 1, adds.clone()),
            writer(server.port, family, "d:madd", MADD_BATCH, madds.clone()),
        ];
        Stream {
            pid,
            port: server.port,
            adds,
            madds,
            handles,
        }
    }

    fn counts(&self) -> (usize, usize) {
        (
            self.adds.load(Ordering::Acquire),
            self.madds.load(Ordering::Acquire),
        )
    }

    /// Wait until both writers have at least these many acknowledged items.
    fn wait_acks(&self, adds: usize, madds: usize) {
        wait_until(
            Duration::from_secs(240),
            || {
                let (a, m) = self.counts();
                a >= adds && m >= madds
            },
            || {
                format!(
                    "writers at {:?}, waiting for ({adds}, {madds})",
                    self.counts()
                )
            },
        );
    }

    /// SIGKILL the server while the writers are writing, and collect what they did.
    fn kill(self) -> Vec<Written> {
        kill9(self.pid);
        wait_port_closed(self.port, Duration::from_secs(30));
        let out: Vec<Written> = self
            .handles
            .into_iter()
            .map(|h| h.join().expect("writer thread"))
            .collect();
        for w in &out {
            assert!(
                w.killed,
                "writer of {} was not cut off by the kill: {}",
                w.key, w.ended
            );
        }
        out
    }
}

/// Every acknowledged item among the first `prefix[i]` of writer `i` answers 1, and BF.CARD
/// is at least the adds among them that answered 1 and at most every add sent. Returns the
/// number of items checked.
fn verify(c: &mut Connection, family: Family, written: &[Written], prefix: &[usize]) -> usize {
    let mut checked = 0;
    for (w, &n) in written.iter().zip(prefix) {
        let items: Vec<Vec<u8>> = w.acked[..n].iter().map(|(it, _)| it.clone()).collect();
        let answers = if family.add == "BF.ADD" {
            mexists_all(c, &w.key, &items)
        } else {
            let mut args: Vec<&[u8]> = vec![b"CF.MEXISTS", w.key.as_bytes()];
            args.extend(items.iter().map(Vec::as_slice));
            as_ints(&raw(c, &args))
        };
        let lost: Vec<String> = items
            .iter()
            .zip(&answers)
            .filter(|(_, &a)| a != 1)
            .map(|(it, _)| String::from_utf8_lossy(it).into_owned())
            .collect();
        assert!(
            lost.is_empty(),
            "{} of {n} acknowledged items of {} lost after the restart, first: {:?}",
            lost.len(),
            w.key,
            &lost[..lost.len().min(5)]
        );
        let got = if family.add == "BF.ADD" {
            card(c, &w.key)
        } else {
            // CF.INFO: names and values in turn.
            let info = match raw(c, &["CF.INFO", &w.key]) {
                Value::Array(fields) => fields,
                other => panic!("CF.INFO {}: {other:?}", w.key),
            };
            let at = info
                .iter()
                .position(
                    |f| matches!(f, Value::SimpleString(n) if n == "Number of items inserted"),
                )
                .expect("items inserted");
            as_int(&info[at + 1])
        };
        let at_least = w.ones_in(n);
        let at_most = w.ones_in(w.acked.len()) + w.in_flight as i64;
        assert!(
            got >= at_least && got <= at_most,
            "the count of {} is {got}, expected between {at_least} and {at_most}",
            w.key
        );
        eprintln!(
            "{}: {n} acknowledged items checked, 0 lost; count {got} (>= {at_least})",
            w.key
        );
        checked += n;
    }
    checked
}

/// The AOF scenario: writers, a BGREWRITEAOF during the writes, more writes, kill -9 while
/// writing, restart from the AOF, check every acknowledged item.
fn aof_scenario(family: Family, preamble: bool) {
    let opts = ServerOpts {
        server_args: [
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--aof-use-rdb-preamble",
            if preamble { "yes" } else { "no" },
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        // Small chunks: the rewrite without the preamble writes several BF.LOADCHUNK per filter.
        module_args: vec!["chunk-bytes".to_string(), "4096".to_string()],
        ..ServerOpts::default()
    };
    let mut server = Server::start_with(opts);
    let mut c = server.conn();
    // The RDB header this server writes (magic and version: `REDIS0010` on Redis 7.0,
    // `VALKEY080` on Valkey 9), from a SAVE of the empty database: an RDB preamble of the
    // AOF base must start with the same 9 bytes.
    expect_ok(&mut c, &["SAVE"]);
    let rdb_header =
        fs::read(server.dir().join("dump.rdb")).expect("dump.rdb of SAVE")[..9].to_vec();
    expect_ok(&mut c, family.reserve);
    // d:add is created by the first add, with the configured defaults (many layers).

    let stream = Stream::start(&server, family);
    stream.wait_acks(500, 5000);
    expect_ok_or_started(&mut c, &["BGREWRITEAOF"]);
    wait_for_aof_rewrite_within(&mut c, Duration::from_secs(120));
    let (a, m) = stream.counts();
    // More writes after the rewrite (they go to the new incremental file), then the kill.
    stream.wait_acks(a.max(1500) + 300, m.max(15_000) + 3000);
    let written = stream.kill();
    drop(c);

    let (base, bytes) = server.aof_base();
    // Base 1 is the one created at startup; ours (the BGREWRITEAOF above) comes after it.
    assert!(
        !base.starts_with("appendonly.aof.1."),
        "the base file {base} is not the rewrite's"
    );
    if preamble {
        assert!(base.ends_with(".base.rdb"), "base file {base}");
        assert!(
            bytes.starts_with(&rdb_header),
            "{base} is not an RDB file (the server's RDB files start with {:?})",
            String::from_utf8_lossy(&rdb_header)
        );
    } else {
        assert!(base.ends_with(".base.aof"), "base file {base}");
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            text.matches(family.loadchunk).count() >= 4,
            "{base} holds no {} commands",
            family.loadchunk
        );
    }

    server.restart(&[]);
    let mut c = server.conn();
    let log = server.log_text();
    assert!(
        log.contains(&format!("DB loaded from base file {base}"))
            && log.contains("DB loaded from incr file"),
        "the restart did not load the AOF base and incr files:\n{}",
        common::faults::tail(&log, 30)
    );
    let prefix: Vec<usize> = written.iter().map(|w| w.acked.len()).collect();
    let checked = verify(&mut c, family, &written, &prefix);
    assert!(checked >= 1800 + 18_000, "only {checked} items checked");
    eprintln!(
        "AOF (preamble {preamble}): {checked} acknowledged items all present after \
         kill -9; base {base}"
    );
}

/// `BGREWRITEAOF` / `BGSAVE` answer a status text; accept the started and scheduled forms.
fn expect_ok_or_started(c: &mut Connection, args: &[&str]) {
    let v = raw(c, args);
    let text = match &v {
        Value::SimpleString(s) => s.clone(),
        Value::Okay => "OK".to_string(),
        other => panic!("{args:?} answered {other:?}"),
    };
    assert!(
        text.contains("started") || text.contains("scheduled"),
        "{args:?} answered {text}"
    );
}

#[test]
fn aof_with_rdb_preamble_survives_kill_9() {
    aof_scenario(BLOOM, true);
}

#[test]
fn aof_without_preamble_survives_kill_9() {
    aof_scenario(BLOOM, false);
}

/// The same for cuckoo filters, through an AOF rewrite into CF.LOADCHUNK chunks.
#[test]
fn cuckoo_aof_without_preamble_survives_kill_9() {
    aof_scenario(CUCKOO, false);
}

#[test]
fn rdb_snapshot_survives_kill_9() {
    let mut server = Server::start();
    let mut c = server.conn();
    expect_ok(&mut c, BLOOM.reserve);
    let stream = Stream::start(&server, BLOOM);
    stream.wait_acks(1000, 10_000);
    let saves = info_int(&mut c, "persistence", "rdb_saves");
    // Everything acknowledged before BGSAVE is sent is in the forked snapshot.
    let before = stream.counts();
    expect_ok_or_started(&mut c, &["BGSAVE"]);
    wait_until(
        Duration::from_secs(120),
        || {
            info_int(&mut c, "persistence", "rdb_bgsave_in_progress") == 0
                && info_int(&mut c, "persistence", "rdb_saves") > saves
        },
        || "BGSAVE did not finish".to_string(),
    );
    assert_eq!(
        info_field(&mut c, "persistence", "rdb_last_bgsave_status").as_deref(),
        Some("ok")
    );
    let done = stream.counts();
    // Writes go on after the snapshot; the kill comes in the middle of them.
    stream.wait_acks(done.0 + 300, done.1 + 3000);
    let written = stream.kill();
    drop(c);
    assert!(server.dir().join("dump.rdb").is_file(), "no dump.rdb");

    server.restart(&[]);
    let mut c = server.conn();
    let log = server.log_text();
    assert!(
        log.contains("DB loaded from disk"),
        "the restart did not load the RDB:\n{}",
        common::faults::tail(&log, 30)
    );
    let checked = verify(&mut c, BLOOM, &written, &[before.0, before.1]);
    assert!(checked >= 11_000, "only {checked} items checked");
    eprintln!(
        "RDB: {checked} items acknowledged before BGSAVE all present after kill -9 \
         ({} + {} acknowledged in all; those after the fork are not in the snapshot)",
        written[0].acked.len(),
        written[1].acked.len()
    );
}
