//! One logical Bloom filter over a whole Redis Cluster with the `rsbloom-client` crate
//! (protocol `rsbloom-sharding/1`, docs/sharding.md): its shards spread over every master,
//! each item goes to the shard whose slots hold the item's own key slot.
//!
//! ```sh
//! cargo run --release --example sharded_filter -- 127.0.0.1:7000 [127.0.0.1:7001 ...]
//! ```

use rsbloom_client::{BloomOptions, ShardedBloom, Transport};

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
pub fn run_demo<C: Transport>(
    con: &mut C,
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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seeds: Vec<String> = std::env::args()
        .skip(1)
        .map(|a| match a.starts_with("redis://") {
            true => a,
            false => format!("redis://{a}/"),
        })
        .collect();
    if seeds.is_empty() {
        eprintln!("usage: sharded_filter HOST:PORT [HOST:PORT ...]   (nodes of a Redis Cluster)");
        std::process::exit(2);
    }
    let mut con = redis::cluster::ClusterClient::new(seeds)?.get_connection()?;
    let name = format!("demo{}", std::process::id());
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
