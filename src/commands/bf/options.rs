//! The BF commands' options and option values, read as RedisBloom 8 reads them, and the
//! filter they describe.

use rsbloom_core::bloom::keyed::Secret;
use rsbloom_core::bloom::meta::{ERROR_RATE_CAP, MAX_CAPACITY, MAX_EXPANSION};
use rsbloom_core::bloom::{Chain, Scheme, Variant};
use rsbloom_core::error::{Error, Result};
use rsbloom_core::shard::ShardPlace;

use crate::commands::argv::Arg;
use crate::commands::grammar::{self, Dispatch, Opt};
use crate::commands::shard::{SHARD, SHARDID, SHARDSECRET};
use crate::config;

/// BF.RESERVE's options (looked up by name).
pub const RESERVE: &[Opt] = &[
    Opt {
        name: "EXPANSION",
        values: 1,
        letters: &[],
    },
    Opt {
        name: "NONSCALING",
        values: 0,
        letters: &[],
    },
    SHARDID,
    SHARDSECRET,
    SHARD,
    KEYED,
    BLOCKED,
    UNKEYED,
    UNBLOCKED,
];

/// `KEYED` and `BLOCKED` (rsbloom's): no values, told by their whole word in BF.INSERT.
const KEYED: Opt = Opt {
    name: "KEYED",
    values: 0,
    letters: &[(0, b'k'), (1, b'e'), (2, b'y'), (3, b'e'), (4, b'd')],
};
const BLOCKED: Opt = Opt {
    name: "BLOCKED",
    values: 0,
    letters: &[
        (0, b'b'),
        (1, b'l'),
        (2, b'o'),
        (3, b'c'),
        (4, b'k'),
        (5, b'e'),
        (6, b'd'),
    ],
};

/// `UNKEYED` and `UNBLOCKED` (rsbloom's): a filter plain despite `bf.keyed-default` /
/// `bf.blocked-default`.
const UNKEYED: Opt = Opt {
    name: "UNKEYED",
    values: 0,
    letters: &[(0, b'u'), (1, b'n'), (2, b'k')],
};
const UNBLOCKED: Opt = Opt {
    name: "UNBLOCKED",
    values: 0,
    letters: &[(0, b'u'), (1, b'n'), (2, b'b')],
};

/// BF.INSERT's options, told apart by RedisBloom's letters (ERROR before EXPANSION,
/// NOCREATE before NONSCALING).
pub const INSERT: Dispatch = Dispatch {
    options: &[
        Opt {
            name: "ITEMS",
            values: 0,
            letters: &[(0, b'i')],
        },
        Opt {
            name: "ERROR",
            values: 1,
            letters: &[(0, b'e'), (1, b'r')],
        },
        Opt {
            name: "EXPANSION",
            values: 1,
            letters: &[(0, b'e')],
        },
        Opt {
            name: "CAPACITY",
            values: 1,
            letters: &[(0, b'c')],
        },
        Opt {
            name: "NOCREATE",
            values: 0,
            letters: &[(0, b'n'), (2, b'c')],
        },
        Opt {
            name: "NONSCALING",
            values: 0,
            letters: &[(0, b'n')],
        },
        SHARDID,
        SHARDSECRET,
        SHARD,
        KEYED,
        BLOCKED,
        UNKEYED,
        UNBLOCKED,
    ],
    unknown: Error::UnknownArgument,
};

fn rate_in_range(p: f64) -> bool {
    p > 0.0 && p < 1.0
}

fn capacity_in_range(n: i64) -> bool {
    (1..=MAX_CAPACITY as i64).contains(&n)
}

fn expansion_in_range(n: i64) -> bool {
    (0..=MAX_EXPANSION as i64).contains(&n)
}

/// BF.RESERVE's error rate.
pub fn reserve_error_rate(arg: &Arg) -> Result<f64> {
    let p = grammar::double(arg).ok_or(Error::BadErrorRate)?;
    rate_in_range(p).then_some(p).ok_or(Error::ErrorRateRange)
}

/// BF.RESERVE's capacity.
pub fn reserve_capacity(arg: &Arg) -> Result<u64> {
    let n = grammar::integer(arg).ok_or(Error::BadCapacity)?;
    capacity_in_range(n)
        .then_some(n as u64)
        .ok_or(Error::CapacityRange)
}

/// BF.RESERVE's EXPANSION value (its range is checked after NONSCALING's conflict).
pub fn reserve_expansion(arg: &Arg) -> Result<i64> {
    grammar::integer(arg).ok_or(Error::BadExpansion)
}

/// BF.RESERVE's EXPANSION once parsed: in range, or the range error.
pub fn expansion_checked(n: i64) -> Result<u32> {
    expansion_in_range(n)
        .then_some(n as u32)
        .ok_or(Error::ExpansionRange)
}

/// BF.INSERT's values: one error each, for a bad word or a value out of range.
pub fn insert_error_rate(arg: &Arg) -> Result<f64> {
    grammar::double(arg)
        .filter(|&p| rate_in_range(p))
        .ok_or(Error::InsertBadErrorRate)
}

pub fn insert_capacity(arg: &Arg) -> Result<u64> {
    grammar::integer(arg)
        .filter(|&n| capacity_in_range(n))
        .map(|n| n as u64)
        .ok_or(Error::InsertBadCapacity)
}

pub fn insert_expansion(arg: &Arg) -> Result<u32> {
    grammar::integer(arg)
        .filter(|&n| expansion_in_range(n))
        .map(|n| n as u32)
        .ok_or(Error::InsertBadExpansion)
}

/// A filter to create: the configured defaults with the command's options over them.
#[derive(Debug, Clone)]
pub struct Creation {
    pub scheme: Scheme,
    pub error_rate: f64,
    pub capacity: u64,
    /// The expansion in effect: recorded even by a non-scaling filter, as RedisBloom does.
    pub expansion: u32,
    pub nonscaling: bool,
    /// SHARD's place: the filter is a shard, in our own format whatever the configured
    /// format is (only ours records a place).
    pub shard: Option<ShardPlace>,
    /// Keyed / blocked: the configured defaults, or the options.
    pub keyed: bool,
    pub blocked: bool,
    /// KEYED or BLOCKED was given: refused for a filter in RedisBloom's format (a configured
    /// default does not apply to one).
    pub variant_asked: bool,
    /// The words given: KEYED with UNKEYED (or BLOCKED with UNBLOCKED) is refused.
    words: VariantWords,
}

/// Which of KEYED, BLOCKED, UNKEYED and UNBLOCKED a creation named.
#[derive(Debug, Clone, Copy, Default)]
struct VariantWords {
    keyed: bool,
    blocked: bool,
    unkeyed: bool,
    unblocked: bool,
}

impl Creation {
    /// The configured defaults (an expansion of 0 means non-scaling).
    pub fn defaults() -> Creation {
        let d = config::defaults();
        Creation {
            scheme: d.scheme,
            error_rate: d.error_rate,
            capacity: d.capacity,
            expansion: d.expansion,
            nonscaling: d.expansion == 0,
            shard: None,
            keyed: d.keyed,
            blocked: d.blocked,
            variant_asked: false,
            words: VariantWords::default(),
        }
    }

    /// KEYED given.
    pub fn ask_keyed(&mut self) {
        self.keyed = true;
        self.variant_asked = true;
        self.words.keyed = true;
    }

    /// BLOCKED given.
    pub fn ask_blocked(&mut self) {
        self.blocked = true;
        self.variant_asked = true;
        self.words.blocked = true;
    }

    /// UNKEYED given: plain hashing whatever `bf.keyed-default` says.
    pub fn ask_unkeyed(&mut self) {
        self.keyed = false;
        self.words.unkeyed = true;
    }

    /// UNBLOCKED given: the classic layout whatever `bf.blocked-default` says.
    pub fn ask_unblocked(&mut self) {
        self.blocked = false;
        self.words.unblocked = true;
    }

    /// The new filter's hashing and layout: a fresh secret when keyed. Refused for
    /// RedisBloom's format when asked for; the configured defaults leave such filters plain.
    fn variant(&self, scheme: Scheme) -> Result<Variant> {
        let w = self.words;
        if (w.keyed && w.unkeyed) || (w.blocked && w.unblocked) {
            return Err(Error::VariantConflict);
        }
        if scheme != Scheme::Guava {
            return match self.variant_asked {
                true => Err(Error::VariantUnsupported),
                false => Ok(Variant::default()),
            };
        }
        Ok(Variant {
            secret: self.keyed.then(Secret::random).transpose()?,
            blocked: self.blocked,
        })
    }

    /// The new filter. RedisBloom 8 caps its filters' error rate at 0.25; Guava-scheme
    /// filters keep the rate asked for, as Guava does.
    pub fn create(&self, limit: u64) -> Result<Chain> {
        let scheme = match self.shard {
            Some(_) => Scheme::Guava,
            None => self.scheme,
        };
        let expansion = if self.nonscaling { 0 } else { self.expansion };
        let rate = match scheme {
            Scheme::RedisBloom => self.error_rate.min(ERROR_RATE_CAP),
            Scheme::Guava => self.error_rate,
        };
        let variant = self.variant(scheme)?;
        let chain = Chain::create_variant(scheme, variant, rate, self.capacity, expansion, limit)?;
        let chain = chain.with_idle_growth(self.expansion);
        match &self.shard {
            None => Ok(chain),
            Some(place) => chain.with_shard(place.clone()),
        }
    }
}
