//! The blocking handles: [`ShardedBloom`] and [`ShardedCuckoo`] are [`Sharded`] of one
//! [`Family`]; the operations are the generic layer's (`filter`, `ops`), run by
//! [`Client`].

use crate::client::Client;
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

/// One Bloom filter over many keys.
pub type ShardedBloom = Sharded<Bloom>;
/// One cuckoo filter over many keys.
pub type ShardedCuckoo = Sharded<Cuckoo>;

fn flags(answers: Vec<u64>) -> Vec<bool> {
    answers.into_iter().map(|a| a != 0).collect()
}

impl<F: Family> Sharded<F> {
    /// Opens the logical filter `name` from its description.
    pub fn open(con: &mut Client, name: impl AsRef<[u8]>) -> Result<Sharded<F>> {
        let open = Open {
            name: name.as_ref(),
            family: F::NAME,
        };
        Ok(Sharded(Filter::new(con.drive(open)?)))
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
    pub fn add(&self, con: &mut Client, item: impl AsRef<[u8]>) -> Result<bool> {
        Ok(self.madd(con, &[item])?[0])
    }

    /// Adds many items, one command per shard, pipelined per node. Bloom (`BF.INSERT`): per
    /// item, true when it was new. Cuckoo (`CF.INSERT`, a copy even when the item is there):
    /// true per item stored. Items a full shard refused, and a cuckoo insert whose reply was
    /// lost (never resent), make an [`Error::Batch`](crate::Error::Batch) holding every
    /// outcome.
    pub fn madd<I: AsRef<[u8]>>(&self, con: &mut Client, items: &[I]) -> Result<Vec<bool>> {
        con.drive(self.0.add(items)).map(flags)
    }

    /// Whether an item is (probably) in the filter.
    pub fn exists(&self, con: &mut Client, item: impl AsRef<[u8]>) -> Result<bool> {
        Ok(self.mexists(con, &[item])?[0])
    }

    /// Looks up many items, one `BF.MEXISTS` / `CF.MEXISTS` per shard; the answers in order.
    pub fn mexists<I: AsRef<[u8]>>(&self, con: &mut Client, items: &[I]) -> Result<Vec<bool>> {
        con.drive(self.0.exists(items)).map(flags)
    }

    /// Items in the logical filter: the sum of the shards' `BF.CARD` (Bloom) or `Number of
    /// items inserted` (cuckoo).
    pub fn card(&self, con: &mut Client) -> Result<u64> {
        con.drive(self.0.card()).and_then(card)
    }

    /// Each shard's place (key, master, slots), size (items, bytes) and creation id.
    pub fn info(&self, con: &mut Client) -> Result<Vec<ShardInfo>> {
        let cluster = con.is_cluster();
        con.drive(self.0.info()).and_then(|r| infos(r, cluster))
    }

    /// Deletes every shard of the current description, then the description; the number of
    /// keys deleted (0 when there was no filter).
    pub fn delete(self, con: &mut Client) -> Result<u64> {
        con.drive(self.0.delete())
    }
}

impl Sharded<Bloom> {
    /// Makes the logical filter `name` for `capacity` items at `error_rate`, over `shards`
    /// shards (default: the protocol's, at least 16). [`Error::Exists`](crate::Error::Exists)
    /// when `name` exists; a reserve that fails leaves nothing it made behind.
    pub fn reserve(
        con: &mut Client,
        name: impl AsRef<[u8]>,
        error_rate: f64,
        capacity: u64,
        shards: Option<u32>,
        options: BloomOptions,
    ) -> Result<ShardedBloom> {
        let layout = options::bloom(name.as_ref(), error_rate, capacity, shards, options)?;
        Ok(Sharded(Filter::new(con.drive(Reserve::new(layout))?)))
    }
}

impl Sharded<Cuckoo> {
    /// Makes the logical filter `name` for `capacity` items over `shards` shards (default:
    /// the protocol's, at least 16); see [`ShardedBloom::reserve`].
    pub fn reserve(
        con: &mut Client,
        name: impl AsRef<[u8]>,
        capacity: u64,
        shards: Option<u32>,
        options: CuckooOptions,
    ) -> Result<ShardedCuckoo> {
        let layout = options::cuckoo(name.as_ref(), capacity, shards, options)?;
        Ok(Sharded(Filter::new(con.drive(Reserve::new(layout))?)))
    }

    /// Adds one item unless it may be there; see [`maddnx`](Self::maddnx).
    pub fn addnx(&self, con: &mut Client, item: impl AsRef<[u8]>) -> Result<bool> {
        Ok(self.maddnx(con, &[item])?[0])
    }

    /// `CF.INSERTNX` per shard: true per item added, false for one that may be there.
    /// Retried after a lost reply, so an item the lost attempt added answers false.
    pub fn maddnx<I: AsRef<[u8]>>(&self, con: &mut Client, items: &[I]) -> Result<Vec<bool>> {
        con.drive(self.0.batch(CF_ADDNX, items)).map(flags)
    }

    /// Removes one copy of an item (`CF.DEL`, never resent): false when it was not there.
    pub fn remove(&self, con: &mut Client, item: impl AsRef<[u8]>) -> Result<bool> {
        Ok(con.drive(self.0.batch(CF_DEL, &[item]))?[0] != 0)
    }

    /// How many times an item may have been added (`CF.COUNT`).
    pub fn count(&self, con: &mut Client, item: impl AsRef<[u8]>) -> Result<u64> {
        Ok(con.drive(self.0.batch(CF_COUNT, &[item]))?[0])
    }
}
