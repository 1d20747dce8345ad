//! A logical cuckoo filter: shards made with `CF.RESERVE ... SHARD`, items added with
//! `CF.INSERT key NOCREATE ITEMS`, looked up with `CF.MEXISTS`, removed and counted one at a
//! time with `CF.DEL` and `CF.COUNT` on the item's shard.

use redis::{Cmd, ErrorKind, FromRedisValue, RedisResult, Value};
use rsbloom_core::shard::layout::{cuckoo_bytes, shard_capacity, shard_of_item};

use crate::check_shards;
use crate::description::{Description, Family, Params};
use crate::error::Result;
use crate::shards::{convert, ShardInfo, Shards};
use crate::transport::{Access, Transport};

/// CF.RESERVE's defaults, written out so the description records them.
pub const DEFAULT_BUCKET_SIZE: u32 = 2;
pub const DEFAULT_MAX_ITERATIONS: u32 = 20;
pub const DEFAULT_EXPANSION: u32 = 1;

/// CF.RESERVE's options for each shard (`None`: the default above).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CuckooOptions {
    pub bucket_size: Option<u32>,
    pub max_iterations: Option<u32>,
    pub expansion: Option<u32>,
}

/// One cuckoo filter over many keys (protocol `rsbloom-sharding/1`).
#[derive(Clone, Debug)]
pub struct ShardedCuckoo(Shards);

impl ShardedCuckoo {
    /// Makes the logical filter `name` for `capacity` items over `shards` shards (default:
    /// the protocol's, at least 16). Refused with [`Error::Exists`] when `name` exists.
    pub fn reserve<C: Transport + ?Sized>(
        con: &mut C,
        name: impl AsRef<[u8]>,
        capacity: u64,
        shards: Option<u32>,
        options: CuckooOptions,
    ) -> Result<ShardedCuckoo> {
        let bucket_size = options.bucket_size.unwrap_or(DEFAULT_BUCKET_SIZE);
        let max_iterations = options.max_iterations.unwrap_or(DEFAULT_MAX_ITERATIONS);
        let expansion = options.expansion.unwrap_or(DEFAULT_EXPANSION);
        let shards = check_shards(shards, capacity, |c| {
            cuckoo_bytes(c, u64::from(bucket_size))
        })?;
        let description = Description {
            shards,
            capacity,
            shard_capacity: shard_capacity(capacity, shards),
            params: Params::Cuckoo {
                bucket_size,
                max_iterations,
                expansion,
            },
        };
        let each = description.shard_capacity;
        let reserve = |key: &[u8], _: u32| {
            let mut cmd = redis::cmd("CF.RESERVE");
            cmd.arg(key)
                .arg(each)
                .arg("BUCKETSIZE")
                .arg(bucket_size)
                .arg("MAXITERATIONS")
                .arg(max_iterations)
                .arg("EXPANSION")
                .arg(expansion);
            cmd
        };
        Shards::reserve(con, name.as_ref(), description, reserve).map(ShardedCuckoo)
    }

    /// Opens the logical filter `name` from its description.
    pub fn open<C: Transport + ?Sized>(
        con: &mut C,
        name: impl AsRef<[u8]>,
    ) -> Result<ShardedCuckoo> {
        Shards::open(con, name.as_ref(), Family::Cuckoo).map(ShardedCuckoo)
    }

    pub fn name(&self) -> &[u8] {
        &self.0.name
    }

    pub fn description(&self) -> &Description {
        &self.0.description
    }

    /// The shard keys, shard 0 first.
    pub fn keys(&self) -> &[Vec<u8>] {
        &self.0.keys
    }

    /// Adds one item (a cuckoo filter keeps duplicates): false when its shard is full.
    pub fn add<C: Transport + ?Sized>(&self, con: &mut C, item: impl AsRef<[u8]>) -> Result<bool> {
        Ok(self.madd(con, &[item])?[0])
    }

    /// Adds many items, one `CF.INSERT` per shard; per item, in order: false when its
    /// shard was full (CF.INSERT's -1, `false` under RESP3).
    pub fn madd<C: Transport + ?Sized, I: AsRef<[u8]>>(
        &self,
        con: &mut C,
        items: &[I],
    ) -> Result<Vec<bool>> {
        let added: Vec<Inserted> = self.0.per_item(con, items, Access::Write, |key| {
            let mut cmd = redis::cmd("CF.INSERT");
            cmd.arg(key).arg("NOCREATE").arg("ITEMS");
            cmd
        })?;
        Ok(added.into_iter().map(|a| a.0).collect())
    }

    /// Whether an item is (probably) in the filter.
    pub fn exists<C: Transport + ?Sized>(
        &self,
        con: &mut C,
        item: impl AsRef<[u8]>,
    ) -> Result<bool> {
        Ok(self.mexists(con, &[item])?[0])
    }

    /// Looks up many items, one `CF.MEXISTS` per shard; the answers in order.
    pub fn mexists<C: Transport + ?Sized, I: AsRef<[u8]>>(
        &self,
        con: &mut C,
        items: &[I],
    ) -> Result<Vec<bool>> {
        self.0.per_item(con, items, Access::Read, |key| {
            let mut cmd = redis::cmd("CF.MEXISTS");
            cmd.arg(key);
            cmd
        })
    }

    /// Removes one copy of an item (`CF.DEL`): false when it was not there.
    pub fn remove<C: Transport + ?Sized>(
        &self,
        con: &mut C,
        item: impl AsRef<[u8]>,
    ) -> Result<bool> {
        self.on_item(con, "CF.DEL", item.as_ref())
    }

    /// How many times an item may have been added (`CF.COUNT`).
    pub fn count<C: Transport + ?Sized>(&self, con: &mut C, item: impl AsRef<[u8]>) -> Result<u64> {
        self.on_item(con, "CF.COUNT", item.as_ref())
    }

    /// Items in the logical filter: the sum of the shards' `Number of items inserted`.
    pub fn card<C: Transport + ?Sized>(&self, con: &mut C) -> Result<u64> {
        Ok(self.0.info(con)?.iter().map(|s| s.items).sum())
    }

    /// Each shard's place (key, master, slots) and size (items, bytes).
    pub fn info<C: Transport + ?Sized>(&self, con: &mut C) -> Result<Vec<ShardInfo>> {
        self.0.info(con)
    }

    /// Deletes every shard, then the description; the number of keys deleted.
    pub fn delete<C: Transport + ?Sized>(self, con: &mut C) -> Result<u64> {
        self.0.delete(con)
    }

    /// `command key item` on the item's shard.
    fn on_item<C: Transport + ?Sized, T: redis::FromRedisValue>(
        &self,
        con: &mut C,
        command: &str,
        item: &[u8],
    ) -> Result<T> {
        let shard = shard_of_item(item, self.0.description.shards) as usize;
        let mut cmd: Cmd = redis::cmd(command);
        cmd.arg(&self.0.keys[shard]).arg(item);
        let reply = con
            .connection()
            .req_command(&cmd)
            .and_then(Value::extract_error);
        convert(&cmd, reply)
    }
}

/// One item's answer to `CF.INSERT`: stored, or not because its shard is full. RESP2 says
/// 1 or -1, RESP3 `true` or `false` (so neither `i64` nor `bool`, which reads -1 as true,
/// decodes both).
struct Inserted(bool);

impl FromRedisValue for Inserted {
    fn from_redis_value(v: &Value) -> RedisResult<Inserted> {
        match *v {
            Value::Int(n) => Ok(Inserted(n == 1)),
            Value::Boolean(b) => Ok(Inserted(b)),
            _ => Err((
                ErrorKind::TypeError,
                "CF.INSERT: not an integer or a boolean",
            )
                .into()),
        }
    }
}
