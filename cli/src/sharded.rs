//! `rsbloom-cli sharded ...`: one Bloom or cuckoo filter over many keys (protocol
//! `rsbloom-sharding/1`, docs/sharding.md), through the `rsbloom-client` crate: create,
//! info, delete, and copy to another server or cluster shard by shard (each shard's
//! SCANDUMP header carries its place, so the copy is a shard of the same filter). A cuckoo
//! shard with no items sends no header (RedisBloom's rule for `CF.SCANDUMP`), so its
//! header is rebuilt from `CF.DEBUG` and given the place the source's `CF.INFO` shows.

use clap::{Args, Subcommand, ValueEnum};
use redis::{FromRedisValue, Value};
use rsbloom_client::{
    BloomOptions, CuckooOptions, Description, Params, ShardedBloom, ShardedCuckoo, Shards,
};

use rsbloom_core::cuckoo::codec::{scandump as cuckoo_scandump, sharded as cuckoo_sharded};
use rsbloom_core::shard::ShardPlace;

use crate::fail::{fail, Fail, Result};
use crate::family::Family;
use crate::scan;
use crate::server::{Conn, Staging};

#[derive(Subcommand)]
pub enum Sharded {
    /// Reserve a logical filter NAME and its shards
    Create(Create),
    /// Each shard's node, key, slots, size and items, and the totals
    Info { name: String },
    /// Delete every shard, then the description
    Delete { name: String },
    /// Copy logical filter NAME to another server or cluster, shard by shard
    Copy {
        name: String,
        /// Target server URL
        #[arg(long)]
        to: String,
        /// The target URL is a node of a Redis Cluster
        #[arg(long)]
        to_cluster: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Kind {
    Bloom,
    Cuckoo,
}

#[derive(Args)]
pub struct Create {
    family: Kind,
    name: String,
    /// Items the logical filter is made for
    #[arg(long)]
    capacity: u64,
    /// Shard count (default: the protocol's, at least 16)
    #[arg(long)]
    shards: Option<u32>,
    /// Bloom: the error rate
    #[arg(long, default_value_t = 0.01)]
    error: f64,
    /// Bloom and cuckoo: each shard's expansion
    #[arg(long)]
    expansion: Option<u32>,
    /// Bloom: non-scaling shards
    #[arg(long)]
    nonscaling: bool,
    /// Cuckoo: bucket size
    #[arg(long)]
    bucket_size: Option<u32>,
    /// Cuckoo: max iterations
    #[arg(long)]
    max_iterations: Option<u32>,
}

impl From<rsbloom_client::Error> for Fail {
    fn from(e: rsbloom_client::Error) -> Fail {
        match e {
            rsbloom_client::Error::Redis(e) => Fail::from(e),
            other => Fail(other.to_string()),
        }
    }
}

pub fn run(
    command: &Sharded,
    url: &str,
    con: Conn,
    connect: impl Fn(&str, bool) -> Result<Conn>,
) -> Result<()> {
    match command {
        Sharded::Create(args) => create(con, args),
        Sharded::Info { name } => info(con, url, name),
        Sharded::Delete { name } => delete(con, name),
        Sharded::Copy {
            name,
            to,
            to_cluster,
        } => copy(con, name, connect(to, *to_cluster)?),
    }
}

fn create(mut con: Conn, a: &Create) -> Result<()> {
    let description = match a.family {
        Kind::Bloom => {
            let options = BloomOptions {
                expansion: a.expansion,
                nonscaling: a.nonscaling,
            };
            let f =
                ShardedBloom::reserve(&mut con, &a.name, a.error, a.capacity, a.shards, options)?;
            f.description().clone()
        }
        Kind::Cuckoo => {
            let options = CuckooOptions {
                bucket_size: a.bucket_size,
                max_iterations: a.max_iterations,
                expansion: a.expansion,
            };
            let f = ShardedCuckoo::reserve(&mut con, &a.name, a.capacity, a.shards, options)?;
            f.description().clone()
        }
    };
    eprintln!(
        "created {} filter {} over {} shards of {} items",
        description.family(),
        a.name,
        description.shards,
        description.shard_capacity
    );
    Ok(())
}

fn open(con: &mut Conn, name: &str) -> Result<Shards> {
    Ok(Shards::new(
        name.as_bytes(),
        Description::read(con, name.as_bytes())?,
    ))
}

fn info(mut con: Conn, url: &str, name: &str) -> Result<()> {
    let shards = open(&mut con, name)?;
    let d = &shards.description;
    let params = match d.params {
        Params::Bloom {
            error_rate,
            expansion,
        } => format!("error rate {error_rate}, expansion {expansion}"),
        Params::Cuckoo {
            bucket_size,
            max_iterations,
            expansion,
        } => format!(
            "bucket size {bucket_size}, max iterations {max_iterations}, expansion {expansion}"
        ),
    };
    println!(
        "{name}: {} filter, {} shards, capacity {} ({} per shard), {params}",
        d.family(),
        d.shards,
        d.capacity,
        d.shard_capacity
    );
    // A single server: every shard is on the server of --url.
    let server = redis::IntoConnectionInfo::into_connection_info(url)
        .map(|i| i.addr.to_string())
        .unwrap_or_else(|_| "-".into());
    println!(
        "{:>5}  {:<21}  {:<24}  {:>11}  {:>12}  {:>12}",
        "shard", "node", "key", "slots", "bytes", "items"
    );
    let (mut bytes, mut items) = (0u64, 0u64);
    for s in shards.info(&mut con)? {
        println!(
            "{:>5}  {:<21}  {:<24}  {:>11}  {:>12}  {:>12}",
            s.index,
            s.node.as_deref().unwrap_or(&server),
            String::from_utf8_lossy(&s.key),
            format!("{}-{}", s.slots.0, s.slots.1),
            s.bytes,
            s.items
        );
        bytes += s.bytes;
        items += s.items;
    }
    println!(
        "{:>5}  {:<21}  {:<24}  {:>11}  {bytes:>12}  {items:>12}",
        "total", "", "", ""
    );
    Ok(())
}

fn delete(mut con: Conn, name: &str) -> Result<()> {
    let shards = open(&mut con, name)?;
    let deleted = shards.delete(&mut con)?;
    eprintln!("deleted {name}: {deleted} keys");
    Ok(())
}

/// The target's keys made so far, deleted again unless the copy completes.
struct Made<'a> {
    con: &'a mut Conn,
    keys: Vec<Vec<u8>>,
    done: bool,
}

impl Drop for Made<'_> {
    fn drop(&mut self) {
        if !self.done && !self.keys.is_empty() {
            let _ = self.con.req_command(redis::cmd("DEL").arg(&self.keys));
        }
    }
}

fn copy(mut from: Conn, name: &str, mut to: Conn) -> Result<()> {
    let shards = open(&mut from, name)?;
    let family = match shards.description.family() {
        rsbloom_client::Family::Bloom => Family::Bloom,
        rsbloom_client::Family::Cuckoo => Family::Cuckoo,
    };
    // The description first: it claims the name on the target (refused if taken).
    shards
        .description
        .create(&mut to, name.as_bytes())
        .map_err(|e| match e {
            rsbloom_client::Error::Exists(_) => Fail(format!("'{name}' exists on the target")),
            e => Fail::from(e),
        })?;
    let mut made = Made {
        con: &mut to,
        keys: vec![name.as_bytes().to_vec()],
        done: false,
    };
    // Every source key must be the shard its index names before anything is copied.
    let infos = shards.infos(&mut from)?;
    let mut places = Vec::with_capacity(shards.keys.len());
    for (i, (key, info)) in shards.keys.iter().zip(&infos).enumerate() {
        let key = String::from_utf8_lossy(key);
        let expected = ShardPlace::new(name.as_bytes(), i as u64, shards.keys.len() as u64)
            .map_err(|e| Fail(format!("'{name}': {}", Fail::from(e))))?;
        match place_in_info(info) {
            Some(place) if place == expected => places.push(place),
            Some(place) => {
                return fail(format!(
                    "'{key}' is shard {} of {} of '{}', not shard {i} of {} of '{name}'",
                    place.index,
                    place.count,
                    String::from_utf8_lossy(&place.name),
                    expected.count
                ))
            }
            None => return fail(format!("'{key}' is not a shard (its INFO shows no place)")),
        }
    }
    for (key, place) in shards.keys.iter().zip(&places) {
        let key = std::str::from_utf8(key).map_err(|_| Fail("a shard key is not UTF-8".into()))?;
        let mut progress = None;
        let mut staging = Staging::new(&mut *made.con, family, key, false)?;
        scan(
            &mut from,
            family,
            key,
            &mut progress,
            "copied",
            |it, data| match (family, it) {
                (Family::Cuckoo, 1) => staging.load(it, &cuckoo_shard_header(key, data, place)?),
                _ => staging.load(it, &data),
            },
        )?;
        staging.commit()?;
        made.keys.push(key.as_bytes().to_vec());
        if let Some(p) = progress {
            p.finish();
        }
    }
    made.done = true;
    eprintln!("copied sharded filter {name}: {} shards", shards.keys.len());
    Ok(())
}

/// The place `BF.INFO` / `CF.INFO` of a shard ends with (`Shard of`, `Shard`, `Shards`);
/// none for a plain filter.
fn place_in_info(info: &[(String, Value)]) -> Option<ShardPlace> {
    let field = |name: &str| info.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    let name = Vec::<u8>::from_redis_value(field("Shard of")?).ok()?;
    let index = u64::from_redis_value(field("Shard")?).ok()?;
    let count = u64::from_redis_value(field("Shards")?).ok()?;
    ShardPlace::new(&name, index, count).ok()
}

/// The header a cuckoo shard is loaded from: the source's own when it carries the place
/// (it must be `place`); RedisBloom's 38 bytes only come from `CF.DEBUG` for a shard with no
/// items (`scan`), and get `place`, which the source's INFO showed, so the copy stays a shard.
fn cuckoo_shard_header(key: &str, header: Vec<u8>, place: &ShardPlace) -> Result<Vec<u8>> {
    let user = cuckoo_scandump::Sender::User;
    let (meta, found) = cuckoo_sharded::decode_any_header(&header, u64::MAX, user)
        .map_err(|e| Fail(format!("the header of '{key}': {}", Fail::from(e))))?;
    match found {
        Some(found) if &found == place => Ok(header),
        Some(found) => fail(format!(
            "the header of '{key}' names shard {} of {} of '{}'",
            found.index,
            found.count,
            String::from_utf8_lossy(&found.name)
        )),
        None if meta.items == 0 => Ok(cuckoo_sharded::encode_header(&meta, place)),
        None => fail(format!("'{key}' sent a plain cuckoo header with items")),
    }
}
