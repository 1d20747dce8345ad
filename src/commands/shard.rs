//! The SHARD option (`SHARD name index count`) of BF.RESERVE, BF.INSERT, CF.RESERVE,
//! CF.INSERT and CF.INSERTNX, and the routing check every item command of a shard makes
//! (docs/sharding.md). A plain filter has no place, so its commands pay one test of a
//! pointer.

use rsbloom_core::error::{Error, Result};
use rsbloom_core::shard::ShardPlace;

use super::argv::Arg;
use super::grammar::{self, Opt};
use super::reply::Reply;

/// The option: three values; told by its whole word in INSERT-style loops too.
pub const SHARD: Opt = Opt {
    name: "SHARD",
    values: 3,
    letters: &[(0, b's'), (1, b'h'), (2, b'a'), (3, b'r'), (4, b'd')],
};

/// The place SHARD's three values name, checked as `ShardPlace::new` checks it (a value
/// that is not a non-negative integer is out of its range).
pub fn place(values: &[Arg]) -> Result<ShardPlace> {
    let [name, index, count] = values else {
        return Err(Error::Internal);
    };
    let number = |arg: &Arg| {
        grammar::integer(arg)
            .and_then(|n| u64::try_from(n).ok())
            .unwrap_or(u64::MAX)
    };
    ShardPlace::new(name.as_slice(), number(index), number(count))
}

/// Refuses the items when one belongs to another shard; nothing for a plain filter.
#[inline]
pub fn check_items(shard: Option<&ShardPlace>, items: &[Arg]) -> Result<()> {
    match shard {
        None => Ok(()),
        Some(place) => place.check_items(items.iter().map(Arg::as_slice)),
    }
}

/// A SHARD option given to an existing filter must name the place it has (an INSERT that
/// found its filter creates nothing, but a different place means the client is confused).
pub fn check_same(existing: Option<&ShardPlace>, given: Option<&ShardPlace>) -> Result<()> {
    match given {
        Some(place) if existing != Some(place) => Err(Error::ShardMismatch),
        _ => Ok(()),
    }
}

/// The pairs BF.INFO and CF.INFO append for a shard, after RedisBloom's.
pub fn shard_fields(place: &ShardPlace) -> [(&'static str, Reply); 4] {
    let (first, last) = place.slots();
    [
        ("Shard of", Reply::Bulk(place.name.clone())),
        ("Shard", Reply::Int(i64::from(place.index))),
        ("Shards", Reply::Int(i64::from(place.count))),
        (
            "Shard slots",
            Reply::Bulk(format!("{first}-{last}").into_bytes()),
        ),
    ]
}
