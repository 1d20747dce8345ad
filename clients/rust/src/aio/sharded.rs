//! The async handles: the blocking handles' operations (the same ops, decoded alike),
//! awaited on an async [`Client`]. Methods take `&Client`, so one client serves many batches
//! at once.

use crate::aio::Client;
use crate::description::Description;
use crate::error::Result;
use crate::family::{Bloom, Cuckoo, Family, CF_ADDNX, CF_COUNT, CF_DEL};
use crate::filter::{card, infos, Filter, ShardInfo};
use crate::ops::lifecycle::Open;
use crate::ops::reserve::Reserve;
use crate::options::{self, BloomOptions, CuckooOptions};

/// One logical filter of family `F` over many keys (protocol `rsbloom-sharding/1`). Cheap to
/// clone; clones share the cached description.
#[derive(Clone, Debug)]
pub struct Sharded<F>(pub(crate) Filter<F>);

impl<F> From<crate::Sharded<F>> for Sharded<F> {
    /// The same filter (sharing its cached description), for async use.
    fn from(blocking: crate::Sharded<F>) -> Sharded<F> {
        Sharded(blocking.0)
    }
}

/// One Bloom filter over many keys.
pub type ShardedBloom = Sharded<Bloom>;
/// One cuckoo filter over many keys.
pub type ShardedCuckoo = Sharded<Cuckoo>;

fn flags(answers: Vec<u64>) -> Vec<bool> {
    answers.into_iter().map(|a| a != 0).collect()
}

impl<F: Family> Sharded<F> {
    /// Opens the logical filter `name` from its description.
    pub async fn open(con: &Client, name: impl AsRef<[u8]>) -> Result<Sharded<F>> {
        let open = Open {
            name: name.as_ref(),
            family: F::NAME,
        };
        Ok(Sharded(Filter::new(con.drive(open).await?)))
    }

    pub fn name(&self) -> Vec<u8> {
        self.0.name()
    }

    /// The description as last read (batches read it again when it changed).
    pub fn description(&self) -> Description {
        self.0.description()
    }

    /// The shard keys, shard 0 first.
    pub fn keys(&self) -> Vec<Vec<u8>> {
        self.0.keys()
    }

    /// Adds one item; see [`madd`](Self::madd).
    pub async fn add(&self, con: &Client, item: impl AsRef<[u8]>) -> Result<bool> {
        Ok(self.madd(con, &[item]).await?[0])
    }

    /// Adds many items, one command per shard, pipelined per node. Bloom (`BF.INSERT`): per
    /// item, true when it was new. Cuckoo (`CF.INSERT`, a copy even when the item is there):
    /// true per item stored. Items a full shard refused, and a cuckoo insert whose reply was
    /// lost (never resent), make an [`Error::Batch`](crate::Error::Batch) holding every
    /// outcome.
    pub async fn madd<I: AsRef<[u8]>>(&self, con: &Client, items: &[I]) -> Result<Vec<bool>> {
        con.drive(self.0.add(items)).await.map(flags)
    }

    /// Whether an item is (probably) in the filter.
    pub async fn exists(&self, con: &Client, item: impl AsRef<[u8]>) -> Result<bool> {
        Ok(self.mexists(con, &[item]).await?[0])
    }

    /// Looks up many items, one `BF.MEXISTS` / `CF.MEXISTS` per shard; the answers in order.
    pub async fn mexists<I: AsRef<[u8]>>(&self, con: &Client, items: &[I]) -> Result<Vec<bool>> {
        con.drive(self.0.exists(items)).await.map(flags)
    }

    /// Items in the logical filter: the sum of the shards' `BF.CARD` (Bloom) or `Number of
    /// items inserted` (cuckoo).
    pub async fn card(&self, con: &Client) -> Result<u64> {
        con.drive(self.0.card()).await.and_then(card)
    }

    /// Each shard's place (key, master, slots), size (items, bytes) and creation id.
    pub async fn info(&self, con: &Client) -> Result<Vec<ShardInfo>> {
        let cluster = con.is_cluster();
        con.drive(self.0.info())
            .await
            .and_then(|r| infos(r, cluster))
    }

    /// Deletes every shard of the current description, then the description; the number of
    /// keys deleted (0 when there was no filter).
    pub async fn delete(self, con: &Client) -> Result<u64> {
        con.drive(self.0.delete()).await
    }
}

impl Sharded<Bloom> {
    /// Makes the logical filter `name` for `capacity` items at `error_rate`, over `shards`
    /// shards (default: the protocol's, at least 16). [`Error::Exists`](crate::Error::Exists)
    /// when `name` exists; a reserve that fails leaves nothing it made behind.
    pub async fn reserve(
        con: &Client,
        name: impl AsRef<[u8]>,
        error_rate: f64,
        capacity: u64,
        shards: Option<u32>,
        options: BloomOptions,
    ) -> Result<ShardedBloom> {
        let layout = options::bloom(name.as_ref(), error_rate, capacity, shards, options)?;
        Ok(Sharded(Filter::new(con.drive(Reserve::new(layout)).await?)))
    }
}

impl Sharded<Cuckoo> {
    /// Makes the logical filter `name` for `capacity` items over `shards` shards (default:
    /// the protocol's, at least 16); see [`ShardedBloom::reserve`](crate::ShardedBloom::reserve).
    pub async fn reserve(
        con: &Client,
        name: impl AsRef<[u8]>,
        capacity: u64,
        shards: Option<u32>,
        options: CuckooOptions,
    ) -> Result<ShardedCuckoo> {
        let layout = options::cuckoo(name.as_ref(), capacity, shards, options)?;
        Ok(Sharded(Filter::new(con.drive(Reserve::new(layout)).await?)))
    }

    /// Adds one item unless it may be there; see [`maddnx`](Self::maddnx).
    pub async fn addnx(&self, con: &Client, item: impl AsRef<[u8]>) -> Result<bool> {
        Ok(self.maddnx(con, &[item]).await?[0])
    }

    /// `CF.INSERTNX` per shard: true per item added, false for one that may be there.
    /// Retried after a lost reply, so an item the lost attempt added answers false.
    pub async fn maddnx<I: AsRef<[u8]>>(&self, con: &Client, items: &[I]) -> Result<Vec<bool>> {
        con.drive(self.0.batch(CF_ADDNX, items)).await.map(flags)
    }

    /// Removes one copy of an item (`CF.DEL`, never resent): false when it was not there.
    pub async fn remove(&self, con: &Client, item: impl AsRef<[u8]>) -> Result<bool> {
        Ok(con.drive(self.0.batch(CF_DEL, &[item])).await?[0] != 0)
    }

    /// How many times an item may have been added (`CF.COUNT`).
    pub async fn count(&self, con: &Client, item: impl AsRef<[u8]>) -> Result<u64> {
        Ok(con.drive(self.0.batch(CF_COUNT, &[item])).await?[0])
    }
}
