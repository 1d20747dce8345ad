//! The SHARD option (`SHARD name index count`, with `SHARDID id` and `SHARDSECRET hex`
//! beside it) of BF.RESERVE, BF.INSERT, CF.RESERVE, CF.INSERT and CF.INSERTNX, and the
//! routing check every item command of a shard makes (docs/sharding.md). A plain filter has
//! no place, so its commands pay one test of a pointer.

use rsbloom_core::error::{Error, Result};
use rsbloom_core::shard::ShardPlace;

use super::argv::Arg;
use super::grammar::{self, Keywords, Opt};
use super::reply::Reply;

/// The option: three values; told by its whole word in INSERT-style loops too.
pub const SHARD: Opt = Opt {
    name: "SHARD",
    values: 3,
    letters: &[(0, b's'), (1, b'h'), (2, b'a'), (3, b'r'), (4, b'd')],
};

/// The logical filter's creation id, recorded in the place. Declared before SHARD in
/// INSERT-style option lists, whose loops tell options by their letters.
pub const SHARDID: Opt = Opt {
    name: "SHARDID",
    values: 1,
    letters: &[
        (0, b's'),
        (1, b'h'),
        (2, b'a'),
        (3, b'r'),
        (4, b'd'),
        (5, b'i'),
    ],
};

/// Keyed routing's secret (32 hex digits); likewise before SHARD.
pub const SHARDSECRET: Opt = Opt {
    name: "SHARDSECRET",
    values: 1,
    letters: &[
        (0, b's'),
        (1, b'h'),
        (2, b'a'),
        (3, b'r'),
        (4, b'd'),
        (5, b's'),
    ],
};

/// The words SHARD, SHARDID and SHARDSECRET gave, put together into a place once a
/// command's options are all read (in whatever order they came).
#[derive(Default)]
pub struct PlaceWords<'a> {
    shard: Option<&'a [Arg]>,
    id: Option<&'a Arg>,
    secret: Option<&'a Arg>,
}

impl<'a> PlaceWords<'a> {
    /// Keeps an INSERT-style loop's option if it is one of the three; false otherwise.
    pub fn take(&mut self, name: &str, values: &'a [Arg]) -> bool {
        match name {
            "SHARD" => self.shard = Some(values),
            "SHARDID" => self.id = values.first(),
            "SHARDSECRET" => self.secret = values.first(),
            _ => return false,
        }
        true
    }

    /// A RESERVE-style command's three options (a missing value is a wrong arity).
    pub fn of(words: &Keywords<'a>, wrong_arity: impl Fn() -> Error) -> Result<Self> {
        let one = |name| match words.values(name, 1) {
            None => Ok(None),
            Some(Ok(v)) => Ok(v.first()),
            Some(Err(())) => Err(wrong_arity()),
        };
        Ok(PlaceWords {
            shard: words
                .values("SHARD", 3)
                .transpose()
                .map_err(|()| wrong_arity())?,
            id: one("SHARDID")?,
            secret: one("SHARDSECRET")?,
        })
    }

    /// How many words the three took, names included (RESERVE's arity bound lets them
    /// through).
    pub fn words(&self) -> usize {
        self.shard.map_or(0, |_| 4)
            + 2 * (self.id.is_some() as usize + self.secret.is_some() as usize)
    }

    /// The place, checked (its values, then `key`'s slot against the shard's), or `None`
    /// for a plain filter.
    pub fn place(self, key: &Arg) -> Result<Option<ShardPlace>> {
        let Some(values) = self.shard else {
            return match (self.id, self.secret) {
                (None, None) => Ok(None),
                (Some(_), _) => Err(Error::ShardOptionAlone("SHARDID")),
                (None, Some(_)) => Err(Error::ShardOptionAlone("SHARDSECRET")),
            };
        };
        let mut place = place(values)?;
        if let Some(id) = self.id {
            place = place.with_id(id.as_slice())?;
        }
        if let Some(secret) = self.secret {
            place = place.with_secret_hex(secret.as_slice())?;
        }
        place.check_key(key.as_slice())?;
        Ok(Some(place))
    }
}

/// The words that make `place` again (a replicated reserve).
pub fn place_words(place: &ShardPlace) -> Vec<Vec<u8>> {
    let mut words = vec![
        b"SHARD".to_vec(),
        place.name.clone(),
        place.index.to_string().into_bytes(),
        place.count.to_string().into_bytes(),
    ];
    if let Some(id) = &place.id {
        words.extend([b"SHARDID".to_vec(), id.clone()]);
    }
    if let Some(secret) = &place.secret {
        words.extend([b"SHARDSECRET".to_vec(), secret.to_hex().into_bytes()]);
    }
    words
}

/// The place SHARD's three values name, checked as `ShardPlace::new` checks it (a value
/// that is not a non-negative integer is out of its range).
fn place(values: &[Arg]) -> Result<ShardPlace> {
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
/// found its filter creates nothing, but a different place means the client is confused):
/// the same name, index and count, and the same id and routing secret where given.
pub fn check_same(existing: Option<&ShardPlace>, given: Option<&ShardPlace>) -> Result<()> {
    let Some(given) = given else { return Ok(()) };
    let same = existing.is_some_and(|has| {
        (&has.name, has.index, has.count) == (&given.name, given.index, given.count)
            && (given.id.is_none() || has.id == given.id)
            && (given.secret.is_none() || has.secret == given.secret)
    });
    match same {
        true => Ok(()),
        false => Err(Error::ShardMismatch),
    }
}

/// The pairs BF.INFO and CF.INFO append for a shard, after RedisBloom's: its place, then
/// its creation id where it has one and its routing (`slot` or `keyed`; never the secret).
pub fn shard_fields(place: &ShardPlace) -> Vec<(&'static str, Reply)> {
    let (first, last) = place.slots();
    let mut fields = vec![
        ("Shard of", Reply::Bulk(place.name.clone())),
        ("Shard", Reply::Int(i64::from(place.index))),
        ("Shards", Reply::Int(i64::from(place.count))),
        (
            "Shard slots",
            Reply::Bulk(format!("{first}-{last}").into_bytes()),
        ),
    ];
    if let Some(id) = &place.id {
        fields.push(("Shard id", Reply::Bulk(id.clone())));
    }
    let routing = if place.secret.is_some() {
        "keyed"
    } else {
        "slot"
    };
    fields.push(("Shard routing", Reply::Bulk(routing.as_bytes().to_vec())));
    fields
}
