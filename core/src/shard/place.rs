//! A shard's place in its logical filter, as the shard's own data carries it: the routing
//! scheme, the logical filter's name, the shard's index and the shard count, and where the
//! client gave them, the logical filter's creation id and routing secret. It travels
//! with the shard's value (RDB, DUMP, SCANDUMP headers, AOF rewrites), so the module checks
//! every item against the slots the shard routes, whoever sends it.

use super::keyed::{RoutingSecret, SECRET_BYTES};
use super::layout::{shard_of_slot, slot_range, MAX_SHARDS};
use super::slot::key_slot;
use crate::error::{bad_data, Error, Result};
use crate::fields::{FieldSink, FieldSource};

/// The routing scheme of protocol `rsbloom-sharding/1`: the item's key slot over equal
/// slot ranges. A value recording another scheme is refused (a later scheme gets a number
/// of its own).
pub const ROUTING_V1: u64 = 1;
/// Keyed routing: the item's HMAC-SHA256 under the place's secret ([`super::keyed`]).
pub const ROUTING_KEYED: u64 = 2;
/// The scheme field's flag for a recorded creation id (a place written before ids has a
/// bare scheme number, and still loads).
const ID_FLAG: u64 = 1 << 8;
/// The longest logical filter name a shard records.
pub const MAX_NAME_BYTES: usize = 1 << 16;
/// The longest creation id a shard records (clients send 32 hex digits).
pub const MAX_ID_BYTES: usize = 128;

/// Shard `index` of `count` of the logical filter `name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardPlace {
    pub name: Vec<u8>,
    pub index: u32,
    pub count: u32,
    /// The logical filter's creation id (its description's `id`): a client that finds its
    /// own id here knows a reserve whose reply it lost made this shard.
    pub id: Option<Vec<u8>>,
    /// Keyed routing's secret; `None` routes by the item's key slot. Boxed: its HMAC state
    /// is 200-odd bytes, which every place (and every creation's options) would carry.
    pub secret: Option<Box<RoutingSecret>>,
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
            id: None,
            secret: None,
        })
    }

    /// The place with a creation id (SHARDID's value), 1 to [`MAX_ID_BYTES`] bytes.
    pub fn with_id(mut self, id: &[u8]) -> Result<ShardPlace> {
        if id.is_empty() || id.len() > MAX_ID_BYTES {
            return Err(Error::ShardIdLength);
        }
        self.id = Some(id.to_vec());
        Ok(self)
    }

    /// The place with keyed routing (SHARDSECRET's 32 hex digits).
    pub fn with_secret_hex(mut self, hex: &[u8]) -> Result<ShardPlace> {
        self.secret = Some(Box::new(
            RoutingSecret::from_hex(hex).ok_or(Error::ShardSecret)?,
        ));
        Ok(self)
    }

    /// The routing scheme: [`ROUTING_V1`] or [`ROUTING_KEYED`].
    pub fn routing(&self) -> u64 {
        match self.secret {
            None => ROUTING_V1,
            Some(_) => ROUTING_KEYED,
        }
    }

    /// The slot an item is routed by under this place's scheme.
    #[inline]
    pub fn item_slot(&self, item: &[u8]) -> u16 {
        match &self.secret {
            None => key_slot(item),
            Some(secret) => secret.slot(item),
        }
    }

    /// The first and last slot this shard routes.
    pub fn slots(&self) -> (u16, u16) {
        slot_range(self.index, self.count)
    }

    /// Refuses an item whose slot another shard routes.
    #[inline]
    pub fn check_item(&self, item: &[u8]) -> Result<()> {
        let slot = self.item_slot(item);
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

    /// Writes the place as fields: the routing scheme (with [`ID_FLAG`] when an id
    /// follows), the name, the index, the count, then keyed routing's secret and the id
    /// where there are any. A place with neither is written as before ids existed.
    pub fn encode(&self, out: &mut dyn FieldSink) {
        let flag = if self.id.is_some() { ID_FLAG } else { 0 };
        out.put_u64(self.routing() | flag);
        out.put_bytes(&self.name);
        out.put_u64(u64::from(self.index));
        out.put_u64(u64::from(self.count));
        if let Some(secret) = &self.secret {
            out.put_bytes(secret.bytes());
        }
        if let Some(id) = &self.id {
            out.put_bytes(id);
        }
    }

    /// Reads a place written by [`ShardPlace::encode`], as strictly as any persisted field.
    pub fn decode(src: &mut dyn FieldSource) -> Result<ShardPlace> {
        let scheme = src.get_u64()?;
        let routing = scheme & !ID_FLAG;
        if routing != ROUTING_V1 && routing != ROUTING_KEYED {
            return Err(bad_data(format!("unknown shard routing {scheme}")));
        }
        let bytes_of = |src: &mut dyn FieldSource| {
            let mut out = Vec::new();
            src.with_bytes(&mut |bytes| {
                out = bytes.to_vec();
                Ok(())
            })
            .map(|()| out)
        };
        let name = bytes_of(src)?;
        let index = src.get_u64()?;
        let count = src.get_u64()?;
        let bad = |e: Error| bad_data(format!("shard place: {e}"));
        let mut place = ShardPlace::new(&name, index, count).map_err(bad)?;
        if routing == ROUTING_KEYED {
            let secret: [u8; SECRET_BYTES] = bytes_of(src)?
                .try_into()
                .map_err(|_| bad_data("shard place: a routing secret of another length"))?;
            place.secret = Some(Box::new(RoutingSecret::new(secret)));
        }
        if scheme & ID_FLAG != 0 {
            place = place.with_id(&bytes_of(src)?).map_err(bad)?;
        }
        Ok(place)
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
    fn ids_and_secrets_round_trip_and_an_old_place_still_loads() {
        let hex = b"00112233445566778899aabbccddeeff";
        let places = [
            ShardPlace::new(b"urls", 3, 16)
                .unwrap()
                .with_id(b"abc")
                .unwrap(),
            ShardPlace::new(b"urls", 3, 16)
                .unwrap()
                .with_secret_hex(hex)
                .unwrap(),
            ShardPlace::new(b"urls", 3, 16)
                .unwrap()
                .with_secret_hex(hex)
                .unwrap()
                .with_id(&[7; MAX_ID_BYTES])
                .unwrap(),
        ];
        for place in places {
            let mut out = Writer::default();
            place.encode(&mut out);
            assert_eq!(ShardPlace::decode(&mut Reader(&out.0)).unwrap(), place);
            for cut in 0..out.0.len() {
                assert!(ShardPlace::decode(&mut Reader(&out.0[..cut])).is_err());
            }
        }
        // A place without either is the bytes written before ids and secrets existed.
        let mut out = Writer::default();
        ShardPlace::new(b"urls", 3, 16).unwrap().encode(&mut out);
        let mut old = Writer::default();
        old.put_u64(ROUTING_V1);
        old.put_bytes(b"urls");
        old.put_u64(3);
        old.put_u64(16);
        assert_eq!(out.0, old.0);
        let plain = ShardPlace::new(b"u", 0, 1).unwrap();
        assert_eq!(plain.clone().with_id(b""), Err(Error::ShardIdLength));
        assert_eq!(
            plain.clone().with_id(&[0; MAX_ID_BYTES + 1]),
            Err(Error::ShardIdLength)
        );
        assert_eq!(plain.with_secret_hex(&hex[1..]), Err(Error::ShardSecret));
    }

    #[test]
    fn keyed_routing_checks_items_by_their_hmac() {
        let hex = b"00112233445566778899aabbccddeeff";
        let keyed: Vec<ShardPlace> = (0..4)
            .map(|i| {
                ShardPlace::new(b"f", i, 4)
                    .unwrap()
                    .with_secret_hex(hex)
                    .unwrap()
            })
            .collect();
        let plain = ShardPlace::new(b"f", 0, 4).unwrap();
        let mut differ = 0;
        for n in 0..400u32 {
            let item = n.to_string();
            let owners: Vec<bool> = keyed
                .iter()
                .map(|p| p.check_item(item.as_bytes()).is_ok())
                .collect();
            assert_eq!(owners.iter().filter(|&&ok| ok).count(), 1);
            let owner = owners.iter().position(|&ok| ok).unwrap() as u32;
            assert_eq!(owner, shard_of_slot(keyed[0].item_slot(item.as_bytes()), 4));
            differ += usize::from(plain.check_item(item.as_bytes()).is_ok() != (owner == 0));
        }
        // The schemes route differently (about 3/8 of the items disagree on shard 0).
        assert!(differ > 50, "{differ}");
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
