//! `rsbloom-cli sharded ...`: one Bloom or cuckoo filter over many keys (protocol
//! `rsbloom-sharding/1`, docs/sharding.md), through the `rsbloom-client` crate: create,
//! info, delete, and copy to another server or cluster shard by shard (each shard's
//! SCANDUMP header carries its place, so the copy is a shard of the same filter). A cuckoo
//! shard with no items sends no header (RedisBloom's rule for `CF.SCANDUMP`), so its
//! header is rebuilt from `CF.DEBUG` and given the place the source's `CF.INFO` shows.

use clap::{Args, Subcommand, ValueEnum};
use redis::{FromRedisValue, Value};
use rsbloom_client::{
    BloomOptions, Client, CuckooOptions, Description, FamilyName, Params, Routing, ShardInfo,
    ShardedBloom, ShardedCuckoo,
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
    /// Route items by a secret (keyed routing, for filters fed by untrusted items)
    #[arg(long)]
    keyed_routing: bool,
}

impl From<rsbloom_client::Error> for Fail {
    fn from(e: rsbloom_client::Error) -> Fail {
        Fail(e.to_string())
    }
}

/// The client of `rsbloom-client` for the server or cluster at `url` (it tells the two
/// apart itself).
fn client(url: &str) -> Result<Client> {
    Client::connect(url).map_err(|e| Fail(format!("cannot connect to {url}: {e}")))
}

/// A logical filter opened by name, whichever its family.
enum Opened {
    Bloom(ShardedBloom),
    Cuckoo(ShardedCuckoo),
}

impl Opened {
    fn open(con: &mut Client, name: &str) -> Result<Opened> {
        match ShardedBloom::open(con, name) {
            Ok(f) => Ok(Opened::Bloom(f)),
            Err(rsbloom_client::Error::Family { .. }) => {
                Ok(Opened::Cuckoo(ShardedCuckoo::open(con, name)?))
            }
            Err(e) => Err(e.into()),
        }
    }

    fn description(&self) -> Description {
        match self {
            Opened::Bloom(f) => f.description(),
            Opened::Cuckoo(f) => f.description(),
        }
    }

    fn keys(&self) -> Vec<Vec<u8>> {
        match self {
            Opened::Bloom(f) => f.keys(),
            Opened::Cuckoo(f) => f.keys(),
        }
    }

    fn info(&self, con: &mut Client) -> Result<Vec<ShardInfo>> {
        Ok(match self {
            Opened::Bloom(f) => f.info(con)?,
            Opened::Cuckoo(f) => f.info(con)?,
        })
    }

    fn delete(self, con: &mut Client) -> Result<u64> {
        Ok(match self {
            Opened::Bloom(f) => f.delete(con)?,
            Opened::Cuckoo(f) => f.delete(con)?,
        })
    }
}

pub fn run(
    command: &Sharded,
    url: &str,
    con: Conn,
    connect: impl Fn(&str, bool) -> Result<Conn>,
) -> Result<()> {
    match command {
        Sharded::Create(args) => create(&mut client(url)?, args),
        Sharded::Info { name } => info(&mut client(url)?, url, name),
        Sharded::Delete { name } => delete(&mut client(url)?, name),
        Sharded::Copy {
            name,
            to,
            to_cluster,
        } => copy(&mut client(url)?, con, name, connect(to, *to_cluster)?),
    }
}

fn create(con: &mut Client, a: &Create) -> Result<()> {
    let description = match a.family {
        Kind::Bloom => {
            let options = BloomOptions {
                expansion: a.expansion,
                nonscaling: a.nonscaling,
                keyed_routing: a.keyed_routing,
            };
            let f = ShardedBloom::reserve(con, &a.name, a.error, a.capacity, a.shards, options)?;
            f.description()
        }
        Kind::Cuckoo => {
            let options = CuckooOptions {
                bucket_size: a.bucket_size,
                max_iterations: a.max_iterations,
                expansion: a.expansion,
                keyed_routing: a.keyed_routing,
            };
            let f = ShardedCuckoo::reserve(con, &a.name, a.capacity, a.shards, options)?;
            f.description()
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

fn info(con: &mut Client, url: &str, name: &str) -> Result<()> {
    let filter = Opened::open(con, name)?;
    let d = &filter.description();
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
    let routing = match d.routing {
        Routing::Slot => "key-slot routing",
        Routing::Keyed(_) => "keyed routing",
    };
    println!(
        "{name}: {} filter, {} shards, capacity {} ({} per shard), {params}, {routing}",
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
    for s in filter.info(con)? {
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

fn delete(con: &mut Client, name: &str) -> Result<()> {
    let deleted = Opened::open(con, name)?.delete(con)?;
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

/// The description script of docs/sharding.md: the hash only where the name is free.
const DESCRIPTION_SCRIPT: &str = "if redis.call('exists', KEYS[1]) == 1 then return 0 end \
                                  redis.call('hset', KEYS[1], unpack(ARGV)) return 1";

/// A shard's `BF.INFO` / `CF.INFO` as (name, value) pairs.
fn shard_info(con: &mut Conn, family: Family, key: &[u8]) -> Result<Vec<(String, Value)>> {
    let command = match family {
        Family::Bloom => "BF.INFO",
        _ => "CF.INFO",
    };
    let reply = con.req_command(redis::cmd(command).arg(key))?;
    let pairs = match reply {
        Value::Array(items) => items
            .chunks(2)
            .map(|p| Ok((String::from_redis_value(&p[0])?, p[1].clone())))
            .collect::<std::result::Result<Vec<_>, redis::RedisError>>()?,
        Value::Map(pairs) => pairs
            .into_iter()
            .map(|(k, v)| Ok((String::from_redis_value(&k)?, v)))
            .collect::<std::result::Result<Vec<_>, redis::RedisError>>()?,
        other => return fail(format!("{command}: an unexpected reply {other:?}")),
    };
    Ok(pairs)
}

fn copy(source: &mut Client, mut from: Conn, name: &str, mut to: Conn) -> Result<()> {
    let filter = Opened::open(source, name)?;
    let description = filter.description();
    let keys = filter.keys();
    let family = match description.family() {
        FamilyName::Bloom => Family::Bloom,
        FamilyName::Cuckoo => Family::Cuckoo,
    };
    // The description first, as it is (the same creation id and routing): it claims the
    // name on the target (refused if taken).
    let mut script = redis::cmd("EVAL");
    script.arg(DESCRIPTION_SCRIPT).arg(1).arg(name);
    for (field, value) in description.fields() {
        script.arg(field).arg(value);
    }
    if i64::from_redis_value(&to.req_command(&script)?)? == 0 {
        return fail(format!("'{name}' exists on the target"));
    }
    let mut made = Made {
        con: &mut to,
        keys: vec![name.as_bytes().to_vec()],
        done: false,
    };
    // Every source key must be the shard its index names before anything is copied.
    let mut places = Vec::with_capacity(keys.len());
    for (i, key) in keys.iter().enumerate() {
        let info = shard_info(&mut from, family, key)?;
        let key = String::from_utf8_lossy(key);
        let expected = expected_place(name, i, keys.len(), &description)?;
        match place_in_info(&info, &description) {
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
    for (key, place) in keys.iter().zip(&places) {
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
    eprintln!("copied sharded filter {name}: {} shards", keys.len());
    Ok(())
}

/// Shard `i` of `count`'s place as the description says it is: its id, and its keyed
/// routing's secret (which INFO never shows).
fn expected_place(name: &str, i: usize, count: usize, d: &Description) -> Result<ShardPlace> {
    let wrap = |e: rsbloom_core::error::Error| Fail(format!("'{name}': {}", Fail::from(e)));
    let place = ShardPlace::new(name.as_bytes(), i as u64, count as u64).map_err(wrap)?;
    with_description(place, d).map_err(wrap)
}

fn with_description(
    mut place: ShardPlace,
    d: &Description,
) -> std::result::Result<ShardPlace, rsbloom_core::error::Error> {
    if let Some(id) = &d.id {
        place = place.with_id(id.as_bytes())?;
    }
    if let Routing::Keyed(secret) = &d.routing {
        place = place.with_secret_hex(secret.to_hex().as_bytes())?;
    }
    Ok(place)
}

/// The place `BF.INFO` / `CF.INFO` of a shard ends with (`Shard of`, `Shard`, `Shards`,
/// `Shard id`), with the routing secret the description holds when `Shard routing` is
/// `keyed`; none for a plain filter.
fn place_in_info(info: &[(String, Value)], d: &Description) -> Option<ShardPlace> {
    let field = |name: &str| info.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    let name = Vec::<u8>::from_redis_value(field("Shard of")?).ok()?;
    let index = u64::from_redis_value(field("Shard")?).ok()?;
    let count = u64::from_redis_value(field("Shards")?).ok()?;
    let mut place = ShardPlace::new(&name, index, count).ok()?;
    if let Some(id) = field("Shard id") {
        place = place.with_id(&Vec::<u8>::from_redis_value(id).ok()?).ok()?;
    }
    let keyed = field("Shard routing")
        .and_then(|v| String::from_redis_value(v).ok())
        .is_some_and(|r| r == "keyed");
    if keyed {
        let Routing::Keyed(secret) = &d.routing else {
            return None; // a keyed shard under a description without a secret
        };
        place = place.with_secret_hex(secret.to_hex().as_bytes()).ok()?;
    }
    Some(place)
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
