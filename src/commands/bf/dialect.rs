//! Which dialect a BF command speaks, decided once per command by what its key holds: a
//! filter of rsbloom's own type or RedisBloom's (`RSbloom--`, `MBbloom--`, both a [`Chain`])
//! gets rsbloom's commands, valkey-bloom's (`bloomfltr`) its own (`valkey.rs`); a key holding
//! no filter (missing, or another type) gets the dialect of the filters
//! `bf.new-filter-format` creates. Each command opens its key here once and matches on
//! [`Kind`], one arm per dialect, handing the opened key on; a new key type is one more arm.

use std::ops::Deref;

use rsbloom_core::bloom::Chain;
use rsbloom_core::error::Result;
use rsbloom_core::valkey::ValkeyBloom;

use crate::commands::argv::Arg;
use crate::commands::grammar;
use crate::commands::key::{open_read, open_write, Held, Key, Writing};
use crate::commands::Call;

/// Whose commands answer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// rsbloom's, RedisBloom 8's where RedisBloom has the command.
    Own,
    /// valkey-bloom 1.0's.
    Valkey,
}

/// What a BF command's key holds. Where it holds no filter, the dialect that answers: the
/// one whose filters a missing key is created as (a command's options may still say
/// otherwise: [`insert_creates`], [`reserve_creates`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Missing(Dialect),
    /// `RSbloom--` or `MBbloom--`.
    Chain,
    /// `bloomfltr`.
    Valkey,
    Other(Dialect),
}

/// A BF command's key, opened once, with what it holds.
pub struct BloomKey {
    key: Key,
    held: Held,
    pub kind: Kind,
}

impl BloomKey {
    /// The call's key, opened for reading.
    pub fn read(call: &Call) -> Result<BloomKey> {
        BloomKey::classify(open_read(call))
    }

    /// The call's key, opened for reading and writing.
    pub fn write(call: &Call) -> Result<BloomKey> {
        BloomKey::classify(open_write(call))
    }

    fn classify(key: Key) -> Result<BloomKey> {
        let held = key.held()?;
        let configured = match crate::config::new_filters_valkey() {
            true => Dialect::Valkey,
            false => Dialect::Own,
        };
        let kind = match held {
            Held::Empty => Kind::Missing(configured),
            _ if held.is::<Chain>() => Kind::Chain,
            _ if held.is::<ValkeyBloom>() => Kind::Valkey,
            _ => Kind::Other(configured),
        };
        Ok(BloomKey { key, held, kind })
    }

    /// rsbloom's or RedisBloom's filter at the key, if it holds one.
    pub fn chain(&self) -> Option<&Chain> {
        self.held.read()
    }

    pub fn chain_mut(&self) -> Option<Writing<'_, Chain>> {
        self.held.write()
    }

    /// valkey-bloom's filter at the key, if it holds one.
    pub fn valkey(&self) -> Option<&ValkeyBloom> {
        self.held.read()
    }

    pub fn valkey_mut(&self) -> Option<Writing<'_, ValkeyBloom>> {
        self.held.write()
    }
}

/// The key itself (to store a new value at).
impl Deref for BloomKey {
    type Target = Key;
    fn deref(&self) -> &Key {
        &self.key
    }
}

/// The dialect BF.INSERT creates a missing key in: rsbloom's own filter where the options
/// name one of its own (valkey-bloom has no such filters), else valkey-bloom's if the format
/// says so or an option only valkey-bloom has is given (its replication stream and AOF carry
/// them), else rsbloom's.
pub fn insert_creates(configured: Dialect, options: &[Arg]) -> Dialect {
    if names_own_option(options) {
        return Dialect::Own;
    }
    match configured == Dialect::Valkey || names_valkey_option(options) {
        true => Dialect::Valkey,
        false => Dialect::Own,
    }
}

/// The dialect BF.RESERVE creates a missing key in: the format's, but rsbloom's own filter
/// where the options name one of its own.
pub fn reserve_creates(configured: Dialect, options: &[Arg]) -> Dialect {
    match names_own_option(options) {
        true => Dialect::Own,
        false => configured,
    }
}

/// The option words before `ITEMS`.
fn option_words(args: &[Arg]) -> impl Iterator<Item = &Arg> {
    args.iter().take_while(|a| !grammar::is(a, "ITEMS"))
}

/// BF.INSERT's words that only valkey-bloom has.
fn names_valkey_option(args: &[Arg]) -> bool {
    option_words(args).any(|a| {
        ["SEED", "TIGHTENING", "VALIDATESCALETO"]
            .iter()
            .any(|w| grammar::is(a, w))
    })
}

/// BF.RESERVE's and BF.INSERT's words that only rsbloom has (SHARD, KEYED, BLOCKED).
fn names_own_option(args: &[Arg]) -> bool {
    option_words(args).any(|a| {
        ["SHARD", "SHARDID", "SHARDSECRET", "KEYED", "BLOCKED"]
            .iter()
            .any(|w| grammar::is(a, w))
    })
}
