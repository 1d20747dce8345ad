//! Which dialect a BF command speaks, decided once per command by what its key holds: a
//! filter of rsbloom's own type or RedisBloom's (`RSbloom--`, `MBbloom--`, both a [`Chain`])
//! gets rsbloom's commands, valkey-bloom's (`bloomfltr`) its own (`valkey.rs`); a key holding
//! no filter (missing, or another type) gets the dialect of the filters
//! `bf.new-filter-format` creates, but BF.INSERT's and BF.RESERVE's options may choose a
//! missing key's ([`insert_creates`], [`reserve_creates`]). Each command opens its key here
//! once and matches on its dialect, one arm per family's handler, handing the opened key on;
//! a new key type is one more [`Kind`].

use rsbloom_core::bloom::Chain;
use rsbloom_core::error::Result;
use rsbloom_core::valkey::ValkeyBloom;

use crate::commands::argv::Arg;
use crate::commands::grammar;
use crate::commands::key::{open_read, open_write, Held, Key, Writing};
use crate::commands::Call;
use crate::datatype::Family;

/// Whose commands answer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// rsbloom's, RedisBloom 8's where RedisBloom has the command.
    Own,
    /// valkey-bloom 1.0's.
    Valkey,
}

/// What a BF command's key holds; where it holds no filter, the dialect of the filters
/// `bf.new-filter-format` creates.
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
    kind: Kind,
}

// Inlined into each command: a call and the returned struct cost more than the rest.
impl BloomKey {
    /// The call's key, opened for reading.
    #[inline(always)]
    pub fn open_read(call: &Call) -> Result<BloomKey> {
        BloomKey::classify(open_read(call))
    }

    /// The call's key, opened for reading and writing.
    #[inline(always)]
    pub fn open_write(call: &Call) -> Result<BloomKey> {
        BloomKey::classify(open_write(call))
    }

    #[inline(always)]
    fn classify(key: Key) -> Result<BloomKey> {
        let held = key.held()?;
        // The config is read only where it decides: most commands find a filter.
        let configured = || match crate::config::new_filters_valkey() {
            true => Dialect::Valkey,
            false => Dialect::Own,
        };
        let kind = match held {
            _ if held.is::<Chain>() => Kind::Chain,
            _ if held.is::<ValkeyBloom>() => Kind::Valkey,
            Held::Empty => Kind::Missing(configured()),
            _ => Kind::Other(configured()),
        };
        Ok(BloomKey { key, held, kind })
    }

    /// The dialect that answers on the key: its filter's, else the configured one.
    pub fn dialect(&self) -> Dialect {
        match self.kind {
            Kind::Chain => Dialect::Own,
            Kind::Valkey => Dialect::Valkey,
            Kind::Missing(configured) | Kind::Other(configured) => configured,
        }
    }

    /// BF.INSERT's and BF.RESERVE's dialect: on a missing key, the one `creates` picks from
    /// the configured one and the options; on a key of another type rsbloom's (its grammar's
    /// errors, then WRONGTYPE).
    pub fn creating(&self, creates: impl FnOnce(Dialect) -> Dialect) -> Dialect {
        match self.kind {
            Kind::Missing(configured) => creates(configured),
            Kind::Other(_) => Dialect::Own,
            Kind::Chain | Kind::Valkey => self.dialect(),
        }
    }

    /// As [`Key::read`], without a second look at the key.
    pub fn read<'a, F: Family>(&self) -> Result<Option<&'a F>> {
        self.held.read()
    }

    /// As [`Key::write`], without a second look at the key.
    pub fn write<'a, F: Family>(&self) -> Result<Option<Writing<'a, F>>> {
        self.held.write()
    }

    /// As [`Key::store`].
    pub fn store<'a, F: Family>(&self, value: F) -> Result<Writing<'a, F>> {
        self.key.store(value)
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
