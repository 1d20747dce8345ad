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
}

impl Access {
    /// The key-spec flags of COMMAND INFO.
    pub fn flags(self) -> u64 {
        (match self {
            Access::Read => raw::REDISMODULE_CMD_KEY_RO,
            Access::ReadData => raw::REDISMODULE_CMD_KEY_RO | raw::REDISMODULE_CMD_KEY_ACCESS,
            Access::Insert => raw::REDISMODULE_CMD_KEY_RW | raw::REDISMODULE_CMD_KEY_INSERT,
            Access::Update | Access::MergeInto => {
                raw::REDISMODULE_CMD_KEY_RW | raw::REDISMODULE_CMD_KEY_UPDATE
            }
        }) as u64
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

/// Argument types of COMMAND DOCS.
#[derive(Clone, Copy)]
pub enum Kind {
    Key,
    Text,
    Integer,
    Double,
    /// A keyword standing alone (`NONSCALING`).
    Flag,
    /// A group of arguments (`ITEMS item [item ...]`).
    Block,
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
}

/// What every command of one family shares.
pub struct CommandFamily {
    /// The module ACL category (`bloom` for BF, `cuckoo` for CF), on servers that have them.
    pub acl: &'static CStr,
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

/// `ITEMS item [item ...]`, closing BF.INSERT and CF.INSERT.
pub const ITEMS_BLOCK: ArgDoc = ArgDoc {
    token: Some(c"ITEMS"),
    sub: &[items(c"item")],
    ..arg(c"items", Kind::Block)
};

pub const KEY: ArgDoc = arg(c"key", Kind::Key);
pub const ITEM: ArgDoc = arg(c"item", Kind::Text);
pub const ITERATOR: ArgDoc = arg(c"iterator", Kind::Integer);
