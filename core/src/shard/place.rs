//! A shard's place in its logical filter, as the shard's own data carries it: the routing
//! scheme, the logical filter's name, the shard's index and the shard count. It travels
//! with the shard's value (RDB, DUMP, SCANDUMP headers, AOF rewrites), so the module checks
//! every item against the slots the shard routes, whoever sends it.

use super::layout::{shard_of_slot, slot_range, MAX_SHARDS};
use super::slot::key_slot;
use crate::error::{bad_data, Error, Result};
use crate::fields::{FieldSink, FieldSource};

/// The routing scheme of protocol `rsbloom-sharding/1`: the item's key slot over equal
/// slot ranges. A value recording another scheme is refused (a later scheme gets a number
/// of its own).
pub const ROUTING_V1: u64 = 1;
/// The longest logical filter name a shard records.
pub const MAX_NAME_BYTES: usize = 1 << 16;

/// Shard `index` of `count` of the logical filter `name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardPlace {
    pub name: Vec<u8>,
    pub index: u32,
    pub count: u32,
}

impl ShardPlace {
    /// A place from a command's arguments, checked as [`Error`]s the client sees.
    pub fn new(name: &[u8], index: u64, count: u64) -> Result<ShardPlace> {
        if name.is_empty() || name.len() > MAX_NAME_BYTES {
            return Err(Error::ShardNameLength);
        }
        let count = u32::try_from(count)
            .ok()
            .filter(|c| (1..=MAX_SHARDS).contains(c))
            .ok_or(Error::ShardCountRange)?;
        let index = u32::try_from(index)
            .ok()
            .filter(|&i| i < count)
            .ok_or(Error::ShardIndexRange)?;
        Ok(ShardPlace {
            name: name.to_vec(),
            index,
            count,
        })
    }

    /// The first and last slot this shard routes.
    pub fn slots(&self) -> (u16, u16) {
        slot_range(self.index, self.count)
    }

    /// Refuses an item whose slot another shard routes.
    #[inline]
    pub fn check_item(&self, item: &[u8]) -> Result<()> {
        let slot = key_slot(item);
        let owner = shard_of_slot(slot, self.count);
        if owner == self.index {
            Ok(())
        } else {
            Err(self.wrong(slot, owner))
        }
    }

    /// Refuses the batch when any item's slot is another shard's (the first such item).
    pub fn check_items<'a>(&self, items: impl IntoIterator<Item = &'a [u8]>) -> Result<()> {
        items.into_iter().try_for_each(|item| self.check_item(item))
    }

    #[cold]
    fn wrong(&self, slot: u16, owner: u32) -> Error {
        Error::WrongShard {
            slot,
            owner,
            index: self.index,
            count: self.count,
        }
    }

    /// Refuses a key whose own slot is outside this shard's slots: a shard lives in the
    /// slots it routes (docs/sharding.md).
    pub fn check_key(&self, key: &[u8]) -> Result<()> {
        let slot = key_slot(key);
        let (first, last) = self.slots();
        if (first..=last).contains(&slot) {
            Ok(())
        } else {
            Err(Error::ShardKeySlot {
                slot,
                index: self.index,
                first,
                last,
            })
        }
    }

    /// Writes the place as fields: the routing scheme, the name, the index, the count.
    pub fn encode(&self, out: &mut dyn FieldSink) {
        out.put_u64(ROUTING_V1);
        out.put_bytes(&self.name);
        out.put_u64(u64::from(self.index));
        out.put_u64(u64::from(self.count));
    }

    /// Reads a place written by [`ShardPlace::encode`], as strictly as any persisted field.
    pub fn decode(src: &mut dyn FieldSource) -> Result<ShardPlace> {
        let routing = src.get_u64()?;
        if routing != ROUTING_V1 {
            return Err(bad_data(format!("unknown shard routing {routing}")));
        }
        let mut name = Vec::new();
        src.with_bytes(&mut |bytes| {
            name = bytes.to_vec();
            Ok(())
        })?;
        let index = src.get_u64()?;
        let count = src.get_u64()?;
        ShardPlace::new(&name, index, count).map_err(|e| bad_data(format!("shard place: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::{Reader, Writer};
    use crate::shard::layout::shard_keys;

    #[test]
    fn round_trip_and_strict_decode() {
        let place = ShardPlace::new(b"urls", 3, 16).unwrap();
        let mut out = Writer::default();
        place.encode(&mut out);
        assert_eq!(ShardPlace::decode(&mut Reader(&out.0)).unwrap(), place);
        for cut in 0..out.0.len() {
            assert!(ShardPlace::decode(&mut Reader(&out.0[..cut])).is_err());
        }
        let mut bad = out.0.clone();
        bad[0] = 2;
        assert!(ShardPlace::decode(&mut Reader(&bad)).is_err());
        assert_eq!(ShardPlace::new(b"", 0, 1), Err(Error::ShardNameLength));
        assert_eq!(ShardPlace::new(b"a", 0, 0), Err(Error::ShardCountRange));
        assert_eq!(ShardPlace::new(b"a", 0, 16385), Err(Error::ShardCountRange));
        assert_eq!(ShardPlace::new(b"a", 16, 16), Err(Error::ShardIndexRange));
    }

    #[test]
    fn items_and_keys_are_checked_against_the_range() {
        let count = 16;
        let keys = shard_keys(b"urls", count);
        for (i, key) in keys.iter().enumerate() {
            let place = ShardPlace::new(b"urls", i as u64, u64::from(count)).unwrap();
            place.check_key(key).unwrap();
            let other = &keys[(i + 1) % keys.len()];
            assert!(matches!(
                place.check_key(other),
                Err(Error::ShardKeySlot { .. })
            ));
        }
        let place = ShardPlace::new(b"urls", 0, 2).unwrap();
        let (accepted, refused): (Vec<u32>, Vec<u32>) =
            (0..1000u32).partition(|j| place.check_item(j.to_string().as_bytes()).is_ok());
        assert!(!accepted.is_empty() && !refused.is_empty());
        let text = place
            .check_item(refused[0].to_string().as_bytes())
            .unwrap_err();
        assert!(text
            .to_string()
            .starts_with("ERR wrong shard: the item's slot "));
        assert!(text
            .to_string()
            .ends_with("belongs to shard 1 of 2, not shard 0"));
    }
}
