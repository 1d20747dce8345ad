//! The Rust client's nemesis (the Python client's is clients/python/tests/nemesis.py): on a
//! cluster of 3 masters and 3 replicas whose nodes each run in a network namespace of their
//! own (tests/support's `netns`), a Bloom writer (RESP2) and a cuckoo writer (RESP3) add
//! batches of new items while the master of the Bloom filter's shard 0 is, one fault at a
//! time: paused with SIGSTOP past the node timeout; cut off by a real partition from every
//! other node and from the clients; cut off from every other node with the clients still
//! reaching it (the minority side takes writes until it notices); killed with SIGKILL.
//!
//! - An item is **acknowledged** once `madd` answered for it and the write is on a replica:
//!   after the batch, every node that accepts a write to the shard's slot (`INCR` of a key
//!   with the shard's hash tag) answers `WAIT 1` with at least 1. A master cut off with the
//!   clients keeps accepting writes for up to the node timeout; its replica is promoted only
//!   later (the failure must be agreed, then the election waits at least 500 ms), so a batch
//!   it answered is checked while it still accepts writes, and its `WAIT` finds no replica.
//!   Bloom items count whatever the answer; cuckoo items where the answer was true.
//! - Items the client reported **unknown** (a `BatchKind::Ambiguous` error) may or may not be
//!   stored; so may items answered but not acknowledged.
//! - The checker: every acknowledged item is found afterwards, the cuckoo filter holds no
//!   fewer than the acknowledged items and no more than those plus the unknown and the
//!   unacknowledged ones (a write run twice would show as more), and no error but a reported
//!   ambiguity reached a writer (the library retried the rest).

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, sleep, JoinHandle};
use std::time::{Duration, Instant};

use redis::Value;
use rsbloom_client::protocol::{shard_key, shard_of};
use rsbloom_client::{
    BatchKind, BloomOptions, Client, CuckooOptions, Error, Options, ShardedBloom, ShardedCuckoo,
};
use rsbloom_test_support::cluster::{Cluster, ClusterOpts, NODE_TIMEOUT_MS};
use rsbloom_test_support::faults::signal;

const SHARDS: u32 = 6;
const BATCH: usize = 200;

/// What one writer saw.
#[derive(Default)]
struct Tally {
    acked: Vec<String>,
    maybe: Vec<String>,
    unknown: Vec<String>,
    raised: Vec<String>,
    /// When each answered batch ended.
    answered: Vec<Instant>,
}

struct Writer {
    tally: Arc<Mutex<Tally>>,
    batches: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// Plain connections to every node, for the acknowledgement checks.
struct Acks {
    nodes: Vec<(String, Option<redis::Connection>)>,
    tags: Vec<Vec<u8>>,
}

impl Acks {
    fn new(addresses: &[String], name: &str) -> Acks {
        let tags = (0..SHARDS)
            .map(|i| {
                let key = shard_key(name.as_bytes(), i, SHARDS);
                let end = key.iter().position(|&b| b == b'}').expect("a hash tag") + 1;
                let mut tag = key[..end].to_vec();
                tag.extend_from_slice(b"nemesis:ack");
                tag
            })
            .collect();
        Acks {
            nodes: addresses.iter().map(|a| (a.clone(), None)).collect(),
            tags,
        }
    }

    /// The shards (of `shards`) whose writes so far are on a replica, by the rule above.
    fn acknowledged(&mut self, shards: &[u32]) -> Vec<u32> {
        let mut accepted = vec![false; SHARDS as usize];
        let mut replicated = vec![true; SHARDS as usize];
        for (address, slot) in self.nodes.iter_mut() {
            if slot.is_none() {
                *slot = connect(address);
            }
            let Some(con) = slot.as_mut() else { continue };
            let mut mine = Vec::new();
            let mut broken = false;
            for &s in shards {
                match redis::cmd("INCR")
                    .arg(&self.tags[s as usize])
                    .query::<Value>(con)
                {
                    Ok(Value::Int(_)) => mine.push(s),
                    Err(e) if e.is_io_error() || e.is_timeout() || e.is_connection_dropped() => {
                        broken = true;
                        break;
                    }
                    // MOVED, CLUSTERDOWN, READONLY: not this node's to take now.
                    _ => {}
                }
            }
            let copies = match (broken, mine.is_empty()) {
                (true, _) => None,
                (false, true) => Some(i64::MAX),
                (false, false) => redis::cmd("WAIT").arg(1).arg(300).query::<i64>(con).ok(),
            };
            let Some(copies) = copies else {
                *slot = None; // unreachable: the writers cannot write through it either
                continue;
            };
            for s in mine {
                accepted[s as usize] = true;
                replicated[s as usize] &= copies >= 1;
            }
        }
        shards
            .iter()
            .copied()
            .filter(|&s| accepted[s as usize] && replicated[s as usize])
            .collect()
    }
}

fn connect(address: &str) -> Option<redis::Connection> {
    let client = redis::Client::open(format!("redis://{address}/")).ok()?;
    let con = client
        .get_connection_with_timeout(Duration::from_millis(300))
        .ok()?;
    con.set_read_timeout(Some(Duration::from_millis(800)))
        .ok()?;
    Some(con)
}

fn options() -> Options {
    Options {
        retry_timeout: Duration::from_secs(45),
        response_timeout: Some(Duration::from_secs(3)),
        ..Options::default()
    }
}

impl Writer {
    fn start(seed: &str, addresses: Vec<String>, name: &str, cuckoo: bool) -> Writer {
        let tally = Arc::new(Mutex::new(Tally::default()));
        let batches = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let url = match cuckoo {
            true => format!("redis://{seed}/?protocol=resp3"),
            false => format!("redis://{seed}/"),
        };
        let (t, b, s, name) = (
            tally.clone(),
            batches.clone(),
            stop.clone(),
            name.to_string(),
        );
        let thread = thread::spawn(move || {
            let mut con = Client::connect_with(url, options()).expect("connect");
            let mut acks = Acks::new(&addresses, &name);
            let prefix = if cuckoo { "c" } else { "b" };
            type Madd = Box<dyn Fn(&mut Client, &[String]) -> rsbloom_client::Result<Vec<bool>>>;
            let madd: Madd = match cuckoo {
                true => {
                    let f = ShardedCuckoo::open(&mut con, &name).expect("open");
                    Box::new(move |con, batch| f.madd(con, batch))
                }
                false => {
                    let f = ShardedBloom::open(&mut con, &name).expect("open");
                    Box::new(move |con, batch| f.madd(con, batch))
                }
            };
            let mut n = 0;
            while !s.load(Ordering::Relaxed) {
                let batch: Vec<String> = (0..BATCH).map(|i| format!("{prefix}{}", n + i)).collect();
                n += BATCH;
                let answers = madd(&mut con, &batch);
                let (answers, unknown): (Vec<Option<bool>>, Vec<usize>) = match answers {
                    Ok(a) => (a.into_iter().map(Some).collect(), Vec::new()),
                    Err(Error::Batch(e))
                        if e.kind == BatchKind::Ambiguous && e.failed.is_empty() =>
                    {
                        (e.results, e.unknown)
                    }
                    Err(e) => {
                        t.lock().unwrap().raised.push(format!("{e:?}"));
                        sleep(Duration::from_millis(50));
                        continue;
                    }
                };
                let done: Vec<&String> = batch
                    .iter()
                    .zip(&answers)
                    .filter(|(_, a)| match cuckoo {
                        true => **a == Some(true),
                        false => a.is_some(),
                    })
                    .map(|(item, _)| item)
                    .collect();
                let mut shards: Vec<u32> = done
                    .iter()
                    .map(|i| shard_of(i.as_bytes(), SHARDS))
                    .collect();
                shards.sort_unstable();
                shards.dedup();
                let acked = acks.acknowledged(&shards);
                let mut tally = t.lock().unwrap();
                tally.answered.push(Instant::now());
                tally
                    .unknown
                    .extend(unknown.iter().map(|&p| batch[p].clone()));
                for item in done {
                    match acked.contains(&shard_of(item.as_bytes(), SHARDS)) {
                        true => tally.acked.push(item.clone()),
                        false => tally.maybe.push(item.clone()),
                    }
                }
                drop(tally);
                b.fetch_add(1, Ordering::Relaxed);
            }
        });
        Writer {
            tally,
            batches,
            stop,
            thread: Some(thread),
        }
    }

    fn finish(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join().expect("the writer panicked");
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Wait until every writer has answered `n` more batches.
fn wait_batches(writers: &[Writer], n: usize) {
    let goal: Vec<usize> = writers
        .iter()
        .map(|w| w.batches.load(Ordering::Relaxed) + n)
        .collect();
    let deadline = Instant::now() + Duration::from_secs(90);
    while writers
        .iter()
        .zip(&goal)
        .any(|(w, &g)| w.batches.load(Ordering::Relaxed) < g)
    {
        let raised: Vec<String> = writers
            .iter()
            .flat_map(|w| w.tally.lock().unwrap().raised.clone())
            .collect();
        assert!(Instant::now() < deadline, "the writers stalled: {raised:?}");
        assert!(writers
            .iter()
            .all(|w| w.thread.as_ref().is_some_and(|t| !t.is_finished())));
        sleep(Duration::from_millis(50));
    }
}

/// The master holding the Bloom filter's shard 0, and its replica's port.
fn victim(cluster: &Cluster, name: &str) -> (u16, u16) {
    cluster.wait_ready(Duration::from_secs(120));
    let master = cluster.owner(&shard_key(name.as_bytes(), 0, SHARDS));
    let id = cluster
        .view()
        .into_iter()
        .find(|n| n.port == master)
        .expect("master")
        .id;
    (master, cluster.replica_of(&id).port)
}

/// Wait until the node at `port` says it is a master.
fn until_promoted(cluster: &Cluster, port: u16) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let role = connect(&cluster.address(port))
            .and_then(|mut con| redis::cmd("ROLE").query::<Vec<Value>>(&mut con).ok());
        if matches!(role.as_deref(), Some([Value::BulkString(b), ..]) if b == b"master") {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{port} was not promoted:\n{}",
            cluster.describe()
        );
        sleep(Duration::from_millis(50));
    }
}

/// A fault's figures: the writers' longest wait between two answered batches over it, and
/// the items acknowledged meanwhile.
struct Report {
    fault: &'static str,
    recover: Duration,
    acked: usize,
    maybe: usize,
}

fn fault(writers: &[Writer], fault: &'static str, act: impl FnOnce()) -> Report {
    let count = |f: fn(&Tally) -> usize| {
        writers
            .iter()
            .map(|w| f(&w.tally.lock().unwrap()))
            .sum::<usize>()
    };
    let (acked, maybe) = (count(|t| t.acked.len()), count(|t| t.maybe.len()));
    let began = Instant::now();
    act();
    let ended = Instant::now();
    wait_batches(writers, 3);
    let recover = writers
        .iter()
        .map(|w| {
            let tally = w.tally.lock().unwrap();
            let mut ends = vec![began];
            ends.extend(tally.answered.iter().copied().filter(|&t| t > began));
            ends.windows(2)
                .filter(|p| p[0] <= ended)
                .map(|p| p[1] - p[0])
                .max()
                .unwrap_or_default()
        })
        .max()
        .unwrap_or_default();
    Report {
        fault,
        recover,
        acked: count(|t| t.acked.len()) - acked,
        maybe: count(|t| t.maybe.len()) - maybe,
    }
}

#[test]
fn every_acknowledged_item_survives_pauses_partitions_and_a_kill() {
    let mut cluster = Cluster::start_opts(&ClusterOpts {
        netns: true,
        ..ClusterOpts::default()
    });
    let name = "nemesis";
    let seed = cluster.address(cluster.masters()[0].port);
    let addresses: Vec<String> = cluster
        .live_ports()
        .iter()
        .map(|&p| cluster.address(p))
        .collect();
    let mut admin = Client::connect(format!("redis://{seed}/")).expect("connect");
    ShardedBloom::reserve(
        &mut admin,
        name,
        0.0001,
        200_000,
        Some(SHARDS),
        BloomOptions::default(),
    )
    .expect("reserve");
    let cf = format!("{name}:cf");
    ShardedCuckoo::reserve(
        &mut admin,
        &cf,
        200_000,
        Some(SHARDS),
        CuckooOptions::default(),
    )
    .expect("reserve");
    let mut writers = vec![
        Writer::start(&seed, addresses.clone(), name, false),
        Writer::start(&seed, addresses, &cf, true),
    ];
    wait_batches(&writers, 5);
    let past_timeout = Duration::from_millis(NODE_TIMEOUT_MS);
    let mut reports = Vec::new();

    let (master, replica) = victim(&cluster, name);
    let pid = cluster.pid(master);
    reports.push(fault(
        &writers,
        "master paused (SIGSTOP) past the node timeout",
        || {
            signal(pid, "STOP");
            until_promoted(&cluster, replica);
            sleep(past_timeout);
            signal(pid, "CONT");
        },
    ));

    for (clients_keep_it, what) in [
        (false, "master cut off from every node and the clients"),
        (
            true,
            "master cut off from every node, the clients still reaching it",
        ),
    ] {
        let (master, replica) = victim(&cluster, name);
        let cluster = &mut cluster;
        reports.push(fault(&writers, what, move || {
            cluster.cut_off(master, clients_keep_it);
            until_promoted(cluster, replica);
            sleep(past_timeout);
            cluster.heal(master);
        }));
    }

    let (master, replica) = victim(&cluster, name);
    reports.push(fault(&writers, "master killed (SIGKILL)", || {
        cluster.kill9(master);
        until_promoted(&cluster, replica);
    }));

    for w in writers.iter_mut() {
        w.finish();
    }
    let raised: Vec<String> = writers
        .iter()
        .flat_map(|w| w.tally.lock().unwrap().raised.clone())
        .collect();
    assert!(
        raised.is_empty(),
        "{} error(s) reached a writer: {:?}",
        raised.len(),
        &raised[..raised.len().min(5)]
    );

    // The checker, on a fresh client.
    cluster.wait_ready(Duration::from_secs(120));
    let mut con = Client::connect(format!(
        "redis://{}/",
        cluster.address(cluster.masters()[0].port)
    ))
    .expect("connect");
    let (bloom, cuckoo) = (
        writers[0].tally.lock().unwrap(),
        writers[1].tally.lock().unwrap(),
    );
    let found = ShardedBloom::open(&mut con, name)
        .unwrap()
        .mexists(&mut con, &bloom.acked)
        .unwrap();
    let cuckoo_filter = ShardedCuckoo::open(&mut con, &cf).unwrap();
    let found_cf = cuckoo_filter.mexists(&mut con, &cuckoo.acked).unwrap();
    let lost: Vec<&String> = bloom
        .acked
        .iter()
        .zip(&found)
        .chain(cuckoo.acked.iter().zip(&found_cf))
        .filter(|(_, &f)| !f)
        .map(|(i, _)| i)
        .collect();
    let card = cuckoo_filter.card(&mut con).unwrap() as usize;
    let (low, high) = (
        cuckoo.acked.len(),
        cuckoo.acked.len() + cuckoo.maybe.len() + cuckoo.unknown.len(),
    );
    for r in &reports {
        println!(
            "{}: recovered in {:.1} s, {} acknowledged, {} answered without a replica",
            r.fault,
            r.recover.as_secs_f64(),
            r.acked,
            r.maybe
        );
    }
    let acked = bloom.acked.len() + cuckoo.acked.len();
    println!("acknowledged {acked}, lost {}, unknown {}, unacknowledged {}, cuckoo card {card} in [{low}, {high}]", lost.len(), cuckoo.unknown.len(), bloom.maybe.len() + cuckoo.maybe.len());
    assert!(
        lost.is_empty(),
        "{} acknowledged item(s) lost, e.g. {:?}",
        lost.len(),
        &lost[..lost.len().min(5)]
    );
    assert!(acked >= 10 * BATCH, "only {acked} items acknowledged");
    assert!(
        (low..=high).contains(&card),
        "cuckoo card {card} outside [{low}, {high}]"
    );
    // The faults were real: writers went on through the first three, and while the master
    // was cut off with the clients, it answered writes that reached no replica.
    assert!(
        reports[..3].iter().all(|r| r.acked > 0),
        "a fault stopped the writers for good"
    );
    assert!(
        reports[2].maybe > 0,
        "the cut-off master answered nothing: was it cut off?"
    );
}
