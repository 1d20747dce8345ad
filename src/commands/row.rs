//! What a command row is: its entry point, flags, arity, key access, COMMAND DOCS and ACL
//! categories, and the builders a family's `rows.rs` writes them with. Families import this
//! file; only [`register`](super::register) imports the families.

use std::ffi::{c_int, CStr};

use redis_module::raw;
use rsbloom_core::error::Error;

use crate::info::Counters;

/// A command callback as Redis calls it.
pub type CommandFn =
    extern "C" fn(*mut raw::RedisModuleCtx, *mut *mut raw::RedisModuleString, c_int) -> c_int;

/// How a command uses its key.
#[derive(Clone, Copy)]
pub enum Access {
    /// Reads metadata only (CARD, INFO, DEBUG).
    Read,
    /// Reads and returns user data (EXISTS, MEXISTS, SCANDUMP).
    ReadData,
    /// Adds data (RESERVE, ADD, MADD, INSERT).
    Insert,
    /// Overwrites data (LOADCHUNK, CF.DEL, CF.COMPACT).
    Update,
    /// Overwrites the key (argument 1) with what it reads from `numkeys` source keys, the
    /// count at argument 2 and the sources right after it (CMS.MERGE): two key specs, the
    /// destination's (read-write, update) and the sources' (read-only, access).
    MergeInto,
    /// Overwrites the key (argument 1) with the union of itself and every later argument,
    /// all keys (BF.MERGE, CBF.MERGE): first key 1, last key -1, step 1, so a cluster
    /// refuses keys of different slots and ACL key patterns apply to every one. Two key
    /// specs: the destination's (read-write, update) and the sources' (read-only, access).
    UnionInto,
}

impl Access {
    /// The key-spec flags of COMMAND INFO.
    pub fn flags(self) -> u64 {
        (match self {
            Access::Read => raw::REDISMODULE_CMD_KEY_RO,
            Access::ReadData => raw::REDISMODULE_CMD_KEY_RO | raw::REDISMODULE_CMD_KEY_ACCESS,
            Access::Insert => raw::REDISMODULE_CMD_KEY_RW | raw::REDISMODULE_CMD_KEY_INSERT,
            Access::Update | Access::MergeInto | Access::UnionInto => {
                raw::REDISMODULE_CMD_KEY_RW | raw::REDISMODULE_CMD_KEY_UPDATE
            }
        }) as u64
    }

    /// The key positions `CreateCommand` takes: (first, last, step).
    pub fn key_range(self) -> (c_int, c_int, c_int) {
        match self {
            Access::UnionInto => (1, -1, 1),
            _ => (1, 1, 1),
        }
    }
}

/// How many arguments a command takes, its name included. The harness checks it before the
/// command runs; COMMAND INFO shows it as Redis's arity number.
#[derive(Clone, Copy)]
pub enum Arity {
    Exactly(usize),
    AtLeast(usize),
    Between(usize, usize),
}

impl Arity {
    pub fn allows(self, n: usize) -> bool {
        match self {
            Arity::Exactly(k) => n == k,
            Arity::AtLeast(min) => n >= min,
            Arity::Between(min, max) => (min..=max).contains(&n),
        }
    }

    /// Redis's arity: `n` for exactly n, `-n` for at least n.
    pub fn redis(self) -> c_int {
        match self {
            Arity::Exactly(k) => k as c_int,
            Arity::AtLeast(min) | Arity::Between(min, _) => -(min as c_int),
        }
    }
}

/// The server's own ACL categories a command is in, besides its family's module category:
/// RedisBloom 8's table (`@read` or `@write`, and `@fast` for RESERVE, CARD and INFO), and the
/// same logic for the commands RedisBloom lacks (a command that changes a key: `@write`; one
/// that only reads it: `@read`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acl {
    Read,
    ReadFast,
    Write,
    WriteFast,
}

impl Acl {
    /// The category names as `RedisModule_SetCommandACLCategories` takes them.
    pub fn names(self) -> &'static str {
        match self {
            Acl::Read => "read",
            Acl::ReadFast => "read fast",
            Acl::Write => "write",
            Acl::WriteFast => "write fast",
        }
    }
}

/// The `CreateCommand` flags of a write whose arguments may hold a filter's secret (the
/// LOADCHUNK of a keyed family: its header chunk): kept out of MONITOR and SLOWLOG, on the
/// replicas too, which run the replicated creation (docs/safety.md).
pub const SECRET_CARRIER: &CStr = c"write deny-oom no-monitor no-slowlog";

/// Argument types of COMMAND DOCS.
#[derive(Clone, Copy)]
pub enum Kind {
    Key,
    Text,
    Integer,
    Double,
    /// A keyword standing alone (`NONSCALING`).
    Flag,
    /// A group of arguments (`CAPACITY capacity`).
    Block,
    /// One of its sub-arguments (`CAPACITY | SIZE | ...`).
    OneOf,
}

/// One argument as COMMAND DOCS describes it. `token` is the keyword that introduces it, if
/// any.
pub struct ArgDoc {
    pub name: &'static CStr,
    pub kind: Kind,
    pub token: Option<&'static CStr>,
    pub optional: bool,
    pub multiple: bool,
    pub sub: &'static [ArgDoc],
    /// COMMAND DOCS' `since` of an argument added after its command (`None`: the command's).
    pub since: Option<&'static CStr>,
}

/// A command: how Redis reaches it, what COMMAND DOCS says of it, and its ACL categories.
/// `name` is also the keyspace event a change by the command emits and the name in its
/// arity error: it is written once, in the family's `rows.rs`.
pub struct Command {
    pub name: &'static CStr,
    pub callback: CommandFn,
    /// `CreateCommand` flags.
    pub flags: &'static CStr,
    pub summary: &'static CStr,
    pub complexity: &'static CStr,
    pub arity: Arity,
    pub access: Access,
    pub args: &'static [ArgDoc],
    /// Its built-in ACL categories (its family's is added to them).
    pub acl: Acl,
    /// What the command shares with the rest of its family.
    pub family: &'static CommandFamily,
    /// Its `since`, tips and history, where not the family's.
    pub docs: Docs,
}

/// The version COMMAND DOCS gives as a command's `since`.
#[derive(Clone, Copy)]
pub enum Since {
    /// The RedisBloom release that introduced the command, as RedisBloom's COMMAND DOCS gives
    /// it, so clients and tools that read it see RedisBloom's.
    RedisBloom(&'static CStr),
    /// A command of rsbloom's own: the crate's version.
    Rsbloom,
}

/// One `history` entry of COMMAND DOCS: a version and what changed then.
pub struct History {
    pub version: &'static CStr,
    pub change: &'static CStr,
}

/// What COMMAND DOCS and COMMAND INFO show of a command besides its row's other fields.
pub struct Docs {
    /// `None`: the family's.
    pub since: Option<Since>,
    /// Space-separated command tips (COMMAND INFO).
    pub tips: Option<&'static CStr>,
    pub history: &'static [History],
}

impl Docs {
    /// The family's `since`, no tips, no history.
    pub const PLAIN: Docs = Docs {
        since: None,
        tips: None,
        history: &[],
    };

    /// The `dont_cache` tip of RedisBloom 8.10: a read whose reply client-side caches must not
    /// keep (metadata and memory figures that change with no write the cache would see, dump
    /// chunks read once).
    pub const DONT_CACHE: Docs = Docs {
        tips: Some(c"dont_cache"),
        ..Docs::PLAIN
    };

    pub const fn since(since: Since) -> Docs {
        Docs {
            since: Some(since),
            ..Docs::PLAIN
        }
    }
}

/// What every command of one family shares.
pub struct CommandFamily {
    /// The module ACL category (`bloom` for BF, `cuckoo` for CF), on servers that have them.
    pub acl: &'static CStr,
    /// COMMAND DOCS' `since` of its commands, unless a row says otherwise.
    pub since: Since,
    /// The family's INFO counters (refusals by the size limit are counted there).
    pub counters: &'static Counters,
}

impl Command {
    /// The name as text (the rows are ASCII).
    pub fn name_str(&self) -> &'static str {
        self.name.to_str().unwrap_or("?")
    }

    /// The error for a wrong number of arguments.
    pub fn wrong_arity(&self) -> Error {
        Error::WrongArity(self.name_str())
    }

    /// COMMAND DOCS' `since`.
    pub fn since(&self) -> Since {
        self.docs.since.unwrap_or(self.family.since)
    }
}

/// The `extern "C"` callback of the command row `$row` (a `static` of the same family):
/// [`run`](crate::commands::run) with the row and its handler, so arguments reach the handler
/// borrowed, with no copies on the way in.
macro_rules! callback {
    ($row:ident => $handler:path) => {{
        extern "C" fn callback(
            ctx: *mut redis_module::raw::RedisModuleCtx,
            argv: *mut *mut redis_module::raw::RedisModuleString,
            argc: std::ffi::c_int,
        ) -> std::ffi::c_int {
            // SAFETY: these are the arguments Redis passed to this callback.
            unsafe { $crate::commands::run(ctx, argv, argc, &$row, $handler) }
        }
        callback as $crate::commands::row::CommandFn
    }};
}
pub(crate) use callback;

pub const fn arg(name: &'static CStr, kind: Kind) -> ArgDoc {
    ArgDoc {
        name,
        kind,
        token: None,
        optional: false,
        multiple: false,
        sub: &[],
        since: None,
    }
}

pub const fn option(name: &'static CStr, kind: Kind, token: &'static CStr) -> ArgDoc {
    ArgDoc {
        token: Some(token),
        optional: true,
        ..arg(name, kind)
    }
}

pub const fn items(name: &'static CStr) -> ArgDoc {
    ArgDoc {
        multiple: true,
        ..arg(name, Kind::Text)
    }
}

/// One key or more (a merge's sources).
pub const fn keys(name: &'static CStr) -> ArgDoc {
    ArgDoc {
        multiple: true,
        ..arg(name, Kind::Key)
    }
}

/// An optional group: `[TOKEN sub...]` with the token on the group.
pub const fn block_option(
    name: &'static CStr,
    token: &'static CStr,
    sub: &'static [ArgDoc],
) -> ArgDoc {
    ArgDoc {
        token: Some(token),
        optional: true,
        sub,
        ..arg(name, Kind::Block)
    }
}

/// A keyword alone (a pure token), required.
pub const fn keyword(name: &'static CStr, token: &'static CStr) -> ArgDoc {
    ArgDoc {
        token: Some(token),
        ..arg(name, Kind::Flag)
    }
}

/// An argument of rsbloom's own in a RedisBloom command: `since` rsbloom's version, so a client
/// that reads COMMAND DOCS tells it from RedisBloom's (which keep theirs unchanged).
pub const fn own(a: ArgDoc) -> ArgDoc {
    ArgDoc {
        since: Some(crate::VERSION),
        ..a
    }
}

/// `SHARD name index count [SHARDID id] [SHARDSECRET secret]` (rsbloom's,
/// docs/sharding.md), optional; SHARDID and SHARDSECRET only go with SHARD.
pub const SHARD: ArgDoc = own(block_option(
    c"shard",
    c"SHARD",
    &[
        arg(c"name", Kind::Text),
        arg(c"index", Kind::Integer),
        arg(c"count", Kind::Integer),
        own(option(c"id", Kind::Text, c"SHARDID")),
        own(option(c"secret", Kind::Text, c"SHARDSECRET")),
    ],
));

/// The `ITEMS` of BF.INSERT and CF.INSERT, documented as RedisBloom does: the keyword alone,
/// then `items(c"item")`.
pub const ITEMS_KEYWORD: ArgDoc = keyword(c"items", c"ITEMS");

/// rsbloom's `KEYED` (a secret of the filter's own for its hashing), with rsbloom's `since`:
/// BF.RESERVE's, BF.INSERT's and APBF.RESERVE's.
pub const KEYED: ArgDoc = own(option(c"keyed", Kind::Flag, c"KEYED"));

pub const KEY: ArgDoc = arg(c"key", Kind::Key);
pub const ITEM: ArgDoc = arg(c"item", Kind::Text);
pub const ITERATOR: ArgDoc = arg(c"iterator", Kind::Integer);
