//! One logical Bloom filter split over N keys of a Redis Cluster, so that a set too big for
//! one node (or one key) spreads over every master.
//!
//! ```sh
//! cargo run --release --example sharded_filter -- 127.0.0.1:7000 [127.0.0.1:7001 ...]
//! ```
//!
//! The recipe:
//!
//! - **Shard keys** are `<name>:{<name>-<i>.<j>}`: the part in braces is the hash tag, so the
//!   key's slot is CRC16 of the tag. For shard `i` of `N`, `j` is the smallest counter whose
//!   slot falls in the `i`-th of `N` equal ranges of the 16,384 slots. The names are a pure
//!   function of `(name, N)`, every client computes the same ones, and the shards sit evenly
//!   over the slot space, hence over every master when the masters hold contiguous slot
//!   ranges of similar size (what `redis-cli --cluster create` and rebalancing give).
//! - **An item goes to one shard**: `FNV-1a-64(item bytes) mod N`. The hash is stable across
//!   languages and processes (unlike Rust's `DefaultHasher`), so every client agrees.
//! - **Reserve** each shard with `capacity / N` (rounded up) and the wanted error rate: each
//!   item is only ever looked up in its own shard, so the false-positive rate of the logical
//!   filter is that of one shard.
//! - **Batches** (`add_many`, `exists_many`) group the items by shard, send one `BF.MADD` /
//!   `BF.MEXISTS` per shard, and put the answers back in the caller's order.
//!
//! Everything below `main` is generic over `redis::ConnectionLike`, so it works with a
//! cluster connection (`redis::cluster::ClusterConnection`) and, for one node, a plain one.

use redis::{ConnectionLike, RedisResult};

/// Hash slots of Redis Cluster.
pub const CLUSTER_SLOTS: u32 = 16384;

/// FNV-1a, 64-bit: the item -> shard hash (offset basis and prime from the FNV definition).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// CRC16-CCITT as Redis Cluster uses it (XMODEM: polynomial 0x1021, initial value 0, no
/// reflection), bit by bit.
pub fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in bytes {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// The cluster slot of a key: CRC16 of the hash tag (the bytes between the first `{` and the
/// first `}` after it, when that is not empty), else of the whole key, modulo 16,384.
pub fn key_slot(key: &[u8]) -> u16 {
    let hashed = match key.iter().position(|&b| b == b'{') {
        Some(open) => match key[open + 1..].iter().position(|&b| b == b'}') {
            Some(len) if len > 0 => &key[open + 1..open + 1 + len],
            _ => key,
        },
        None => key,
    };
    (u32::from(crc16(hashed)) % CLUSTER_SLOTS) as u16
}

/// The key of shard `i` of `shards` for the logical filter `name` (see the module docs).
pub fn shard_key(name: &str, i: usize, shards: usize) -> String {
    assert!(shards >= 1 && shards <= CLUSTER_SLOTS as usize && i < shards);
    let lo = (i as u64 * CLUSTER_SLOTS as u64 / shards as u64) as u16;
    let hi = ((i as u64 + 1) * CLUSTER_SLOTS as u64 / shards as u64) as u16;
    (0u64..)
        .map(|j| format!("{name}:{{{name}-{i}.{j}}}"))
        .find(|key| (lo..hi).contains(&key_slot(key.as_bytes())))
        .expect("every slot range has a tag")
}

/// One logical Bloom filter over `N` keys.
#[derive(Clone, Debug)]
pub struct ShardedFilter {
    keys: Vec<String>,
}

impl ShardedFilter {
    /// The filter `name` split over `shards` keys.
    pub fn new(name: &str, shards: usize) -> ShardedFilter {
        ShardedFilter {
            keys: (0..shards).map(|i| shard_key(name, i, shards)).collect(),
        }
    }

    /// The shard keys, shard 0 first.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// The shard an item belongs to.
    pub fn shard_of(&self, item: &[u8]) -> usize {
        (fnv1a64(item) % self.keys.len() as u64) as usize
    }

    /// `BF.RESERVE` every shard with its part of the capacity (rounded up).
    pub fn reserve<C: ConnectionLike>(
        &self,
        con: &mut C,
        error_rate: f64,
        capacity: u64,
    ) -> RedisResult<()> {
        let per_shard = capacity.div_ceil(self.keys.len() as u64).max(1);
        for key in &self.keys {
            redis::cmd("BF.RESERVE")
                .arg(key)
                .arg(error_rate)
                .arg(per_shard)
                .query::<()>(con)?;
        }
        Ok(())
    }

    /// Add one item: true when it was new.
    pub fn add<C: ConnectionLike>(&self, con: &mut C, item: &[u8]) -> RedisResult<bool> {
        redis::cmd("BF.ADD")
            .arg(&self.keys[self.shard_of(item)])
            .arg(item)
            .query(con)
    }

    /// Whether an item is (probably) in the filter.
    pub fn exists<C: ConnectionLike>(&self, con: &mut C, item: &[u8]) -> RedisResult<bool> {
        redis::cmd("BF.EXISTS")
            .arg(&self.keys[self.shard_of(item)])
            .arg(item)
            .query(con)
    }

    /// Add many items (one `BF.MADD` per shard); the answers in the order of `items`.
    pub fn add_many<C: ConnectionLike, I: AsRef<[u8]>>(
        &self,
        con: &mut C,
        items: &[I],
    ) -> RedisResult<Vec<bool>> {
        self.per_shard(con, "BF.MADD", items)
    }

    /// Look up many items (one `BF.MEXISTS` per shard); the answers in the order of `items`.
    pub fn exists_many<C: ConnectionLike, I: AsRef<[u8]>>(
        &self,
        con: &mut C,
        items: &[I],
    ) -> RedisResult<Vec<bool>> {
        self.per_shard(con, "BF.MEXISTS", items)
    }

    /// Items added to the whole filter: the sum of every shard's `BF.CARD`.
    pub fn card<C: ConnectionLike>(&self, con: &mut C) -> RedisResult<u64> {
        let mut total = 0;
        for key in &self.keys {
            total += redis::cmd("BF.CARD").arg(key).query::<u64>(con)?;
        }
        Ok(total)
    }

    fn per_shard<C: ConnectionLike, I: AsRef<[u8]>>(
        &self,
        con: &mut C,
        command: &str,
        items: &[I],
    ) -> RedisResult<Vec<bool>> {
        let mut by_shard: Vec<Vec<usize>> = vec![Vec::new(); self.keys.len()];
        for (pos, item) in items.iter().enumerate() {
            by_shard[self.shard_of(item.as_ref())].push(pos);
        }
        let mut answers = vec![false; items.len()];
        for (shard, positions) in by_shard.iter().enumerate() {
            if positions.is_empty() {
                continue;
            }
            let mut cmd = redis::cmd(command);
            cmd.arg(&self.keys[shard]);
            for &pos in positions {
                cmd.arg(items[pos].as_ref());
            }
            let got: Vec<bool> = cmd.query(con)?;
            if got.len() != positions.len() {
                return Err(redis::RedisError::from((
                    redis::ErrorKind::ResponseError,
                    "short reply",
                    format!(
                        "{command} answered {} of {} items",
                        got.len(),
                        positions.len()
                    ),
                )));
            }
            for (&pos, answer) in positions.iter().zip(got) {
                answers[pos] = answer;
            }
        }
        Ok(answers)
    }
}

/// What the demo did, for printing (and for the test that runs it against a cluster).
#[derive(Debug)]
pub struct DemoReport {
    pub keys: Vec<String>,
    pub added: usize,
    pub new_items: usize,
    pub members_found: usize,
    pub false_positives: usize,
    pub probes: usize,
    pub card: u64,
}

/// The demo `main` runs: reserve `name` over `shards` keys for `items` items at 1 %, add
/// `items` items in batches, look every one up again and count the false positives among as
/// many items that were never added.
pub fn run_demo<C: ConnectionLike>(
    con: &mut C,
    name: &str,
    shards: usize,
    items: usize,
) -> RedisResult<DemoReport> {
    let filter = ShardedFilter::new(name, shards);
    filter.reserve(con, 0.01, items as u64)?;
    let members: Vec<String> = (0..items).map(|i| format!("member:{i}")).collect();
    let mut new_items = 0;
    for batch in members.chunks(1000) {
        new_items += filter.add_many(con, batch)?.iter().filter(|&&a| a).count();
    }
    let mut members_found = 0;
    for batch in members.chunks(1000) {
        members_found += filter
            .exists_many(con, batch)?
            .iter()
            .filter(|&&a| a)
            .count();
    }
    let strangers: Vec<String> = (0..items).map(|i| format!("stranger:{i}")).collect();
    let mut false_positives = 0;
    for batch in strangers.chunks(1000) {
        false_positives += filter
            .exists_many(con, batch)?
            .iter()
            .filter(|&&a| a)
            .count();
    }
    Ok(DemoReport {
        keys: filter.keys().to_vec(),
        added: items,
        new_items,
        members_found,
        false_positives,
        probes: strangers.len(),
        card: filter.card(con)?,
    })
}

fn main() -> RedisResult<()> {
    let seeds: Vec<String> = std::env::args()
        .skip(1)
        .map(|a| {
            if a.starts_with("redis://") {
                a
            } else {
                format!("redis://{a}/")
            }
        })
        .collect();
    if seeds.is_empty() {
        eprintln!("usage: sharded_filter HOST:PORT [HOST:PORT ...]   (nodes of a Redis Cluster)");
        std::process::exit(2);
    }
    let client = redis::cluster::ClusterClient::new(seeds)?;
    let mut con = client.get_connection()?;
    let name = format!("demo{}", std::process::id());
    let report = run_demo(&mut con, &name, 12, 100_000)?;
    println!("logical filter {name:?} over {} keys:", report.keys.len());
    for key in &report.keys {
        let slot = key_slot(key.as_bytes());
        let card: u64 = redis::cmd("BF.CARD").arg(key).query(&mut con)?;
        let server_slot: i64 = redis::cmd("CLUSTER")
            .arg("KEYSLOT")
            .arg(key)
            .query(&mut con)?;
        println!("  {key:<28} slot {slot:>5} (server: {server_slot:>5})  items {card}");
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
    for key in &report.keys {
        redis::cmd("DEL").arg(key).query::<()>(&mut con)?;
    }
    Ok(())
}
