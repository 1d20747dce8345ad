//! The CF commands' options and option values, read as RedisBloom 8 reads them.

use rsbloom_core::error::{Error, Result};

use crate::commands::argv::Arg;
use crate::commands::grammar::{self, Dispatch, Found, Opt};
use crate::commands::shard::{SHARD, SHARDID, SHARDSECRET};
use crate::config;

/// The largest capacity CF.RESERVE and CF.INSERT take (RedisBloom 8's `cf-initial-size`
/// range).
pub const MAX_CAPACITY: i64 = 1 << 30;

/// CF.RESERVE's options (looked up by name).
pub const RESERVE: &[Opt] = &[
    Opt {
        name: "BUCKETSIZE",
        values: 1,
        letters: &[],
    },
    Opt {
        name: "MAXITERATIONS",
        values: 1,
        letters: &[],
    },
    Opt {
        name: "EXPANSION",
        values: 1,
        letters: &[],
    },
    SHARDID,
    SHARDSECRET,
    SHARD,
];

/// CF.INSERT's and CF.INSERTNX's options, told apart by their first letter.
pub const INSERT: Dispatch = Dispatch {
    options: &[
        Opt {
            name: "CAPACITY",
            values: 1,
            letters: &[(0, b'c')],
        },
        Opt {
            name: "ITEMS",
            values: 0,
            letters: &[(0, b'i')],
        },
        Opt {
            name: "NOCREATE",
            values: 0,
            letters: &[(0, b'n')],
        },
        SHARDID,
        SHARDSECRET,
        SHARD,
    ],
    unknown: Error::UnknownArgument,
};

/// A capacity (CF.RESERVE's second argument, CF.INSERT's CAPACITY) as an integer.
pub fn capacity(arg: &Arg) -> Result<i64> {
    grammar::integer(arg).ok_or(Error::InsertBadCapacity)
}

/// CF.INSERT's CAPACITY, in range: RedisBloom 8's `cf-initial-size` config's range, from twice
/// the configured bucket size.
pub fn insert_capacity(arg: &Arg) -> Result<u64> {
    let n = capacity(arg)?;
    (config::cf_initial_size_min()..=MAX_CAPACITY)
        .contains(&n)
        .then_some(n as u64)
        .ok_or(Error::CfInsertCapacityRange)
}

/// A CF.RESERVE option's value: `default` when absent, `bad` when not an integer or
/// missing (an option as the last word: RedisBloom 8 reads past its arguments there and
/// mostly finds no number; 2.8 crashes), `range` outside `min..=max`.
pub fn ranged(
    found: Found,
    default: i64,
    (min, max): (i64, i64),
    (bad, range): (Error, Error),
) -> Result<i64> {
    let arg = match found {
        Found::Absent => return Ok(default),
        Found::Last => return Err(bad),
        Found::Value(arg) => arg,
    };
    let n = grammar::integer(arg).ok_or(bad)?;
    (min..=max).contains(&n).then_some(n).ok_or(range)
}
