//! Cluster throughput, `madd` against `mexists`: 1,000,000 items (`RSBLOOM_BENCH_ITEMS`), batches
//! of 1,000, on tests/support's cluster of 3 masters and 3 replicas, median of 3 interleaved
//! runs of this client in-process and of every `examples/sharded_filter --bench` binary named
//! in `RSBLOOM_BENCH_BINARIES` (`label=path,...`: e.g. the example built from main, before
//! this client). Ignored (it takes a minute and the machine's cores); run it explicitly:
//!
//! ```sh
//! RSBLOOM_BENCH_BINARIES=before=/tmp/sf_old,after=target/release/examples/sharded_filter \
//!   cargo test --release -p rsbloom-client --test throughput -- --ignored --nocapture
//! ```

mod common;

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Instant;

use rsbloom_client::{BloomOptions, ShardedBloom};
use rsbloom_test_support::cluster::{Cluster, ClusterOpts};

const BATCH: usize = 1_000;

/// This process's CPU seconds so far (user + system, from /proc/self/stat, 100 Hz ticks).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    // utime and stime are the 14th and 15th fields; `fields` starts at the 3rd.
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0
}

/// Items per second of `madd` and of `mexists` of `n` items through this crate (and the
/// client's CPU per item of each, printed).
fn in_process(port: u16, name: &str, n: usize) -> (f64, f64) {
    let mut con = common::client(port, false);
    let filter = ShardedBloom::reserve(
        &mut con,
        name,
        0.01,
        n as u64,
        None,
        BloomOptions::default(),
    )
    .expect("reserve");
    let items: Vec<String> = (0..n).map(|i| format!("b:{i}")).collect();
    let probes: Vec<String> = (0..n).map(|i| format!("p:{i}")).collect();
    let (started, cpu) = (Instant::now(), cpu_seconds());
    for batch in items.chunks(BATCH) {
        filter.madd(&mut con, batch).expect("madd");
    }
    let madd = n as f64 / started.elapsed().as_secs_f64();
    let madd_cpu = cpu_seconds() - cpu;
    let (started, cpu) = (Instant::now(), cpu_seconds());
    for batch in probes.chunks(BATCH) {
        filter.mexists(&mut con, batch).expect("mexists");
    }
    let mexists = n as f64 / started.elapsed().as_secs_f64();
    let mexists_cpu = cpu_seconds() - cpu;
    println!(
        "  in-process client CPU per item: madd {:.3} us, mexists {:.3} us",
        madd_cpu * 1e6 / n as f64,
        mexists_cpu * 1e6 / n as f64
    );
    filter.delete(&mut con).expect("delete");
    (madd, mexists)
}

/// The same, by an example binary's `--bench` lines.
fn binary(path: &str, port: u16, n: usize) -> (f64, f64) {
    let out = Command::new(path)
        .args(["--bench", &n.to_string(), &format!("127.0.0.1:{port}")])
        .output()
        .expect("run the bench binary");
    assert!(
        out.status.success(),
        "{path}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rates = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let ["bench", op, count, secs] = line.split_whitespace().collect::<Vec<_>>()[..] {
            let rate = count.parse::<f64>().unwrap() / secs.parse::<f64>().unwrap();
            rates.insert(op.to_string(), rate);
        }
    }
    (rates["madd"], rates["mexists"])
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

#[test]
#[ignore]
fn cluster_madd_against_mexists() {
    let n: usize = std::env::var("RSBLOOM_BENCH_ITEMS").map_or(1_000_000, |v| v.parse().unwrap());
    let binaries: Vec<(String, String)> = std::env::var("RSBLOOM_BENCH_BINARIES")
        .unwrap_or_default()
        .split(',')
        .filter_map(|p| {
            p.split_once('=')
                .map(|(l, b)| (l.to_string(), b.to_string()))
        })
        .collect();
    // RSBLOOM_BENCH_MASTERS_ONLY=1: no replicas, to see what replicating the writes costs.
    let cluster = match std::env::var_os("RSBLOOM_BENCH_MASTERS_ONLY") {
        Some(_) => Cluster::start_opts(&ClusterOpts {
            masters_only: true,
            ..ClusterOpts::default()
        }),
        None => Cluster::start(),
    };
    let port = cluster.live_ports()[0];
    let mut runs: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for round in 0..3 {
        let label = "in-process".to_string();
        runs.entry(label)
            .or_default()
            .push(in_process(port, &format!("tp{round}"), n));
        for (label, path) in &binaries {
            runs.entry(label.clone())
                .or_default()
                .push(binary(path, port, n));
        }
    }
    for (label, rates) in &runs {
        let madd = median(rates.iter().map(|r| r.0).collect());
        let mexists = median(rates.iter().map(|r| r.1).collect());
        println!(
            "{label:>12}: madd {madd:>10.0} items/s, mexists {mexists:>10.0} items/s, madd/mexists {:.2} (runs {rates:.0?})",
            madd / mexists
        );
    }
    // The servers' own time per item (commandstats over every run), to tell the client's
    // cost from the commands'.
    let mut usec: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for m in cluster.masters() {
        let stats: String = redis::cmd("INFO")
            .arg("commandstats")
            .query(&mut common::raw(m.port))
            .expect("INFO");
        for line in stats.lines() {
            let Some((name, rest)) = line
                .strip_prefix("cmdstat_")
                .and_then(|l| l.split_once(':'))
            else {
                continue;
            };
            let field = |f: &str| {
                rest.split(',')
                    .find_map(|kv| kv.strip_prefix(f))
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or(0.0)
            };
            let e = usec.entry(name.to_string()).or_default();
            e.0 += field("usec=");
            e.1 += field("calls=");
        }
    }
    let runs_total = runs.values().map(Vec::len).sum::<usize>() as f64;
    let ours = usec
        .iter()
        .filter(|(name, _)| name.starts_with("bf.") || *name == "hmget");
    for (name, (us, calls)) in ours {
        println!(
            "{name:>16}: {calls:>8} calls, {:.3} us of server time per item",
            us / (runs_total * n as f64)
        );
    }
    let rates = &runs["in-process"];
    let madd = median(rates.iter().map(|r| r.0).collect());
    let mexists = median(rates.iter().map(|r| r.1).collect());
    assert!(
        madd >= mexists * 2.0 / 3.0,
        "cluster madd {madd:.0}/s under two thirds of mexists {mexists:.0}/s"
    );
}
