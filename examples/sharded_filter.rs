//! One logical Bloom filter over a whole Redis Cluster with the `rsbloom-client` crate
//! (protocol `rsbloom-sharding/1`, docs/sharding.md): its shards spread over every master,
//! each item goes to the shard whose slots hold the item's own key slot.
//!
//! ```sh
//! cargo run --release --example sharded_filter -- 127.0.0.1:7000
//! ```
//!
//! `--bench N` (used by `bench/sharding.py`) reserves a fresh filter for N items, adds N
//! items and looks up N others, in batches of 1,000, and prints one line per operation,
//! `bench <op> <count> <seconds>` (op `madd`, then `mexists`). The client finds out itself
//! whether the address is a cluster node or one plain server (`--single` is still taken, for
//! `bench/sharding.py`); further addresses are ignored (the first node's `CLUSTER SLOTS`
//! names the others).

use rsbloom_client::{BloomOptions, Client, ShardedBloom};

/// What the demo did, for printing (and for the test that runs it against a cluster).
#[derive(Debug)]
pub struct DemoReport {
    pub filter: ShardedBloom,
    pub added: usize,
    pub new_items: usize,
    pub members_found: usize,
    pub false_positives: usize,
    pub probes: usize,
    pub card: u64,
}

/// Reserves `name` over `shards` shards for `items` items at 1 %, adds `items` items in
/// batches, looks every one up again and counts the false positives among as many items
/// that were never added.
pub fn run_demo(
    con: &mut Client,
    name: &str,
    shards: u32,
    items: usize,
) -> rsbloom_client::Result<DemoReport> {
    let options = BloomOptions::default();
    let filter = ShardedBloom::reserve(con, name, 0.01, items as u64, Some(shards), options)?;
    let count = |answers: Vec<bool>| answers.into_iter().filter(|&a| a).count();
    let members: Vec<String> = (0..items).map(|i| format!("member:{i}")).collect();
    let strangers: Vec<String> = (0..items).map(|i| format!("stranger:{i}")).collect();
    let (mut new_items, mut members_found, mut false_positives) = (0, 0, 0);
    for batch in members.chunks(1000) {
        new_items += count(filter.madd(con, batch)?);
    }
    for batch in members.chunks(1000) {
        members_found += count(filter.mexists(con, batch)?);
    }
    for batch in strangers.chunks(1000) {
        false_positives += count(filter.mexists(con, batch)?);
    }
    Ok(DemoReport {
        card: filter.card(con)?,
        filter,
        added: items,
        new_items,
        members_found,
        false_positives,
        probes: strangers.len(),
    })
}

/// One timed operation of [`run_bench`]: its name, the items it handled and the seconds
/// it took.
#[derive(Debug)]
pub struct BenchLine {
    pub op: &'static str,
    pub count: usize,
    pub seconds: f64,
}

/// The items of one benchmark operation: `prefix:0` to `prefix:n-1`.
fn bench_items(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}:{i}")).collect()
}

/// Reserves `name` (1 %, `n` items, the default shard count), times `madd` of `n` new
/// items and `mexists` of `n` others, in batches of 1,000, then deletes the filter.
pub fn run_bench(con: &mut Client, name: &str, n: usize) -> rsbloom_client::Result<Vec<BenchLine>> {
    const BATCH: usize = 1000;
    let options = BloomOptions::default();
    let filter = ShardedBloom::reserve(con, name, 0.01, n.max(1) as u64, None, options)?;
    let (members, probes) = (bench_items("b", n), bench_items("p", n));
    let mut lines = Vec::with_capacity(2);
    let started = std::time::Instant::now();
    for batch in members.chunks(BATCH) {
        filter.madd(con, batch)?;
    }
    lines.push(BenchLine {
        op: "madd",
        count: n,
        seconds: started.elapsed().as_secs_f64(),
    });
    let started = std::time::Instant::now();
    for batch in probes.chunks(BATCH) {
        filter.mexists(con, batch)?;
    }
    lines.push(BenchLine {
        op: "mexists",
        count: n,
        seconds: started.elapsed().as_secs_f64(),
    });
    filter.delete(con)?;
    Ok(lines)
}

fn usage() -> ! {
    eprintln!(
        "usage: sharded_filter [--bench N [--single]] HOST:PORT [HOST:PORT ...]\n  \
         (a node of a Redis Cluster, or one plain server)"
    );
    std::process::exit(2);
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut bench, mut single, mut seeds) = (None, false, Vec::new());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--bench" => match args.next().and_then(|n| n.parse::<usize>().ok()) {
                Some(n) => bench = Some(n),
                None => usage(),
            },
            "--single" => single = true,
            _ if a.starts_with("--") => usage(),
            _ if a.starts_with("redis://") => seeds.push(a),
            _ => seeds.push(format!("redis://{a}/")),
        }
    }
    if seeds.is_empty() || (single && (seeds.len() != 1 || bench.is_none())) {
        usage();
    }
    let name = format!("demo{}", std::process::id());
    if let Some(n) = bench {
        let mut con = Client::connect(seeds[0].as_str())?;
        let lines = run_bench(&mut con, &name, n)?;
        for l in lines {
            println!("bench {} {} {:.6}", l.op, l.count, l.seconds);
        }
        return Ok(());
    }
    let mut con = Client::connect(seeds[0].as_str())?;
    let report = run_demo(&mut con, &name, 12, 100_000)?;
    println!(
        "logical filter {name:?} over {} shards:",
        report.filter.keys().len()
    );
    for shard in report.filter.info(&mut con)? {
        println!(
            "  {:<16} slots {:>5}-{:<5} on {:<16} items {:>6}  {} bytes",
            String::from_utf8_lossy(&shard.key),
            shard.slots.0,
            shard.slots.1,
            shard.node.as_deref().unwrap_or("-"),
            shard.items,
            shard.bytes
        );
    }
    println!(
        "added {} items ({} new), {} found again, {} of {} strangers answered 1 ({:.3} %), \
         BF.CARD total {}",
        report.added,
        report.new_items,
        report.members_found,
        report.false_positives,
        report.probes,
        100.0 * report.false_positives as f64 / report.probes as f64,
        report.card
    );
    report.filter.delete(&mut con)?;
    Ok(())
}
