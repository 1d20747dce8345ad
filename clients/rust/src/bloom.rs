//! A logical Bloom filter: shards made with `BF.RESERVE ... SHARD`, items added with
//! `BF.INSERT key NOCREATE ITEMS`, looked up with `BF.MEXISTS`.

use redis::Cmd;
use rsbloom_core::shard::layout::{bloom_bytes, shard_capacity};

use crate::check_shards;
use crate::description::{Description, Family, Params};
use crate::error::{Error, Result};
use crate::shards::{ShardInfo, Shards};
use crate::transport::{Access, Transport};

/// BF.RESERVE's default expansion, written out so the description records it.
pub const DEFAULT_EXPANSION: u32 = 2;

/// How each Bloom shard grows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BloomOptions {
    /// `EXPANSION e` (default [`DEFAULT_EXPANSION`]).
    pub expansion: Option<u32>,
    /// `NONSCALING`: a full shard refuses new items instead of growing.
    pub nonscaling: bool,
}

/// One Bloom filter over many keys (protocol `rsbloom-sharding/1`).
#[derive(Clone, Debug)]
pub struct ShardedBloom(Shards);

impl ShardedBloom {
    /// Makes the logical filter `name` for `capacity` items at `error_rate`, over `shards`
    /// shards (default: the protocol's, at least 16). Refused with [`Error::Exists`] when
    /// `name` exists.
    pub fn reserve<C: Transport + ?Sized>(
        con: &mut C,
        name: impl AsRef<[u8]>,
        error_rate: f64,
        capacity: u64,
        shards: Option<u32>,
        options: BloomOptions,
    ) -> Result<ShardedBloom> {
        if !(error_rate > 0.0 && error_rate < 1.0) {
            return Err(Error::Argument(format!(
                "error rate {error_rate} is not in (0, 1)"
            )));
        }
        if options.nonscaling && options.expansion.is_some() {
            return Err(Error::Argument(
                "EXPANSION and NONSCALING exclude each other".into(),
            ));
        }
        let shards = check_shards(shards, capacity, |c| bloom_bytes(c, error_rate))?;
        let expansion = match options {
            BloomOptions {
                nonscaling: true, ..
            } => 0,
            BloomOptions { expansion, .. } => expansion.unwrap_or(DEFAULT_EXPANSION),
        };
        let description = Description {
            shards,
            capacity,
            shard_capacity: shard_capacity(capacity, shards),
            params: Params::Bloom {
                error_rate,
                expansion,
            },
        };
        let each = description.shard_capacity;
        let reserve = |key: &[u8], _: u32| {
            let mut cmd = redis::cmd("BF.RESERVE");
            cmd.arg(key).arg(error_rate.to_string()).arg(each);
            match expansion {
                0 => cmd.arg("NONSCALING"),
                e => cmd.arg("EXPANSION").arg(e),
            };
            cmd
        };
        Shards::reserve(con, name.as_ref(), description, reserve).map(ShardedBloom)
    }

    /// Opens the logical filter `name` from its description.
    pub fn open<C: Transport + ?Sized>(
        con: &mut C,
        name: impl AsRef<[u8]>,
    ) -> Result<ShardedBloom> {
        Shards::open(con, name.as_ref(), Family::Bloom).map(ShardedBloom)
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

    /// Adds one item: true when it was new.
    pub fn add<C: Transport + ?Sized>(&self, con: &mut C, item: impl AsRef<[u8]>) -> Result<bool> {
        Ok(self.madd(con, &[item])?[0])
    }

    /// Adds many items, one `BF.INSERT` per shard; per item, in order: true when it was new.
    pub fn madd<C: Transport + ?Sized, I: AsRef<[u8]>>(
        &self,
        con: &mut C,
        items: &[I],
    ) -> Result<Vec<bool>> {
        self.0.per_item(con, items, Access::Write, insert)
    }

    /// Whether an item is (probably) in the filter.
    pub fn exists<C: Transport + ?Sized>(
        &self,
        con: &mut C,
        item: impl AsRef<[u8]>,
    ) -> Result<bool> {
        Ok(self.mexists(con, &[item])?[0])
    }

    /// Looks up many items, one `BF.MEXISTS` per shard; the answers in order.
    pub fn mexists<C: Transport + ?Sized, I: AsRef<[u8]>>(
        &self,
        con: &mut C,
        items: &[I],
    ) -> Result<Vec<bool>> {
        self.0.per_item(con, items, Access::Read, |key| {
            let mut cmd = redis::cmd("BF.MEXISTS");
            cmd.arg(key);
            cmd
        })
    }

    /// Items added to the logical filter: the sum of the shards' `BF.CARD`.
    pub fn card<C: Transport + ?Sized>(&self, con: &mut C) -> Result<u64> {
        let cards: Vec<u64> = self.0.per_shard(con, |key| {
            let mut cmd = redis::cmd("BF.CARD");
            cmd.arg(key);
            cmd
        })?;
        Ok(cards.iter().sum())
    }

    /// Each shard's place (key, master, slots) and size (items, bytes).
    pub fn info<C: Transport + ?Sized>(&self, con: &mut C) -> Result<Vec<ShardInfo>> {
        self.0.info(con)
    }

    /// Deletes every shard, then the description; the number of keys deleted.
    pub fn delete<C: Transport + ?Sized>(self, con: &mut C) -> Result<u64> {
        self.0.delete(con)
    }
}

/// `BF.INSERT key NOCREATE ITEMS`: never creates a plain filter in place of a lost shard.
fn insert(key: &[u8]) -> Cmd {
    let mut cmd = redis::cmd("BF.INSERT");
    cmd.arg(key).arg("NOCREATE").arg("ITEMS");
    cmd
}
