//! The cuckoo family's commands (`CF.*`): their table rows, access to the filter a key
//! holds, RedisBloom-style option values, and how a creation is replicated.
//!
//! Replies, defaults, limits and error texts are RedisBloom v2.8's, except where it crashes,
//! loses data or guesses at arguments (see the README's "Cuckoo filters" section).

pub mod add;
pub mod del;
pub mod exists;
pub mod info;
pub mod reserve;
pub mod scandump;

use std::ffi::CStr;

use redis_module::key::{RedisKey, RedisKeyWritable};
use redis_module::Context;
use rsbloom_core::cuckoo::CuckooFilter;
use rsbloom_core::error::{Error, Result};

use super::argv::Arg;
use super::parse::text;
use super::table::{arg, items, option, Access, ArgDoc, Command, Kind, ITEM, ITERATOR, KEY};
use crate::datatype::cuckoo::CUCKOO_TYPE;

/// The ACL category of every CF command, where the server has module categories (7.2+).
const ACL: &CStr = c"cuckoo";

const INSERT_ARGS: &[ArgDoc] = &[
    KEY,
    option(c"capacity", Kind::Integer, c"CAPACITY"),
    option(c"nocreate", Kind::Flag, c"NOCREATE"),
    ArgDoc {
        token: Some(c"ITEMS"),
        sub: &[items(c"item")],
        ..arg(c"items", Kind::Block)
    },
];

pub static COMMANDS: &[Command] = &[
    Command {
        name: c"cf.reserve",
        callback: callback!(reserve::reserve),
        flags: c"write deny-oom",
        summary: c"Creates an empty cuckoo filter with a capacity",
        complexity: c"O(1)",
        arity: -3,
        access: Access::Insert,
        args: &[
            KEY,
            arg(c"capacity", Kind::Integer),
            option(c"bucketsize", Kind::Integer, c"BUCKETSIZE"),
            option(c"maxiterations", Kind::Integer, c"MAXITERATIONS"),
            option(c"expansion", Kind::Integer, c"EXPANSION"),
        ],
        acl: ACL,
    },
    Command {
        name: c"cf.add",
        callback: callback!(add::add),
        flags: c"write deny-oom",
        summary: c"Adds an item to a cuckoo filter, creating the filter if needed",
        complexity: c"O(k + i), k sub-filters, i max iterations",
        arity: 3,
        access: Access::Insert,
        args: &[KEY, ITEM],
        acl: ACL,
    },
    Command {
        name: c"cf.addnx",
        callback: callback!(add::addnx),
        flags: c"write deny-oom",
        summary: c"Adds an item to a cuckoo filter unless it may be there already",
        complexity: c"O(k + i), k sub-filters, i max iterations",
        arity: 3,
        access: Access::Insert,
        args: &[KEY, ITEM],
        acl: ACL,
    },
    Command {
        name: c"cf.insert",
        callback: callback!(add::insert),
        flags: c"write deny-oom",
        summary: c"Adds items to a cuckoo filter, creating it with a capacity if needed",
        complexity: c"O(n * (k + i)), n items, k sub-filters, i max iterations",
        arity: -4,
        access: Access::Insert,
        args: INSERT_ARGS,
        acl: ACL,
    },
    Command {
        name: c"cf.insertnx",
        callback: callback!(add::insertnx),
        flags: c"write deny-oom",
        summary: c"Adds each item to a cuckoo filter unless it may be there already",
        complexity: c"O(n * (k + i)), n items, k sub-filters, i max iterations",
        arity: -4,
        access: Access::Insert,
        args: INSERT_ARGS,
        acl: ACL,
    },
    Command {
        name: c"cf.exists",
        callback: callback!(exists::exists),
        flags: c"readonly fast",
        summary: c"Tells whether an item may be in a cuckoo filter",
        complexity: c"O(k), k sub-filters",
        arity: 3,
        access: Access::ReadData,
        args: &[KEY, ITEM],
        acl: ACL,
    },
    Command {
        name: c"cf.mexists",
        callback: callback!(exists::mexists),
        flags: c"readonly fast",
        summary: c"Tells for each item whether it may be in a cuckoo filter",
        complexity: c"O(n * k), n items, k sub-filters",
        arity: -3,
        access: Access::ReadData,
        args: &[KEY, items(c"item")],
        acl: ACL,
    },
    Command {
        name: c"cf.count",
        callback: callback!(exists::count),
        flags: c"readonly fast",
        summary: c"Counts the copies of an item's fingerprint in a cuckoo filter",
        complexity: c"O(k), k sub-filters",
        arity: 3,
        access: Access::ReadData,
        args: &[KEY, ITEM],
        acl: ACL,
    },
    Command {
        name: c"cf.del",
        callback: callback!(del::del),
        flags: c"write fast",
        summary: c"Removes one copy of an item from a cuckoo filter",
        complexity: c"O(k), k sub-filters (compaction: O(size of the filter))",
        arity: 3,
        access: Access::Update,
        args: &[KEY, ITEM],
        acl: ACL,
    },
    Command {
        name: c"cf.compact",
        callback: callback!(del::compact),
        // RedisBloom marks it `readonly`, but it changes the filter.
        flags: c"write fast",
        summary: c"Moves items of a cuckoo filter into older sub-filters, freeing empty ones",
        complexity: c"O(n), n the size of the filter",
        arity: 2,
        access: Access::Update,
        args: &[KEY],
        acl: ACL,
    },
    Command {
        name: c"cf.scandump",
        callback: callback!(scandump::scandump),
        flags: c"readonly fast",
        summary: c"Returns the next chunk of a cuckoo filter's dump",
        complexity: c"O(n), n the chunk size",
        arity: 3,
        access: Access::ReadData,
        args: &[KEY, ITERATOR],
        acl: ACL,
    },
    Command {
        name: c"cf.loadchunk",
        callback: callback!(scandump::loadchunk),
        flags: c"write deny-oom",
        summary: c"Restores a cuckoo filter from chunks returned by CF.SCANDUMP",
        complexity: c"O(n), n the chunk size",
        arity: 4,
        access: Access::Update,
        args: &[KEY, ITERATOR, arg(c"data", Kind::Text)],
        acl: ACL,
    },
    Command {
        name: c"cf.info",
        callback: callback!(info::info),
        flags: c"readonly fast",
        summary: c"Returns information about a cuckoo filter",
        complexity: c"O(1)",
        arity: 2,
        access: Access::Read,
        args: &[KEY],
        acl: ACL,
    },
    Command {
        name: c"cf.debug",
        callback: callback!(info::debug),
        flags: c"readonly fast",
        summary: c"Returns a cuckoo filter's parameters and counters as one line",
        complexity: c"O(1)",
        arity: 2,
        access: Access::Read,
        args: &[KEY],
        acl: ACL,
    },
];

/// The filter at `key` for reading: `None` if the key is missing, WRONGTYPE if it holds
/// something else.
pub fn read_filter(key: &RedisKey) -> Result<Option<&CuckooFilter>> {
    key.get_value::<CuckooFilter>(&CUCKOO_TYPE)
        .map_err(|_| Error::WrongType)
}

/// The filter at `key` for writing, as [`read_filter`].
pub fn write_filter<'a>(key: &RedisKeyWritable) -> Result<Option<&'a mut CuckooFilter>> {
    key.get_value::<CuckooFilter>(&CUCKOO_TYPE)
        .map_err(|_| Error::WrongType)
}

/// Stores a new filter at an empty key and hands it back for further writes.
pub fn store_filter<'a>(
    key: &RedisKeyWritable,
    filter: CuckooFilter,
) -> Result<&'a mut CuckooFilter> {
    key.set_value(&CUCKOO_TYPE, filter)
        .map_err(|_| Error::WrongType)?;
    write_filter(key)?.ok_or(Error::Internal)
}

/// Redis's `string2ll`, which RedisBloom parses every integer with: an optional `-`, no
/// `+`, no leading zeros, no spaces, no `-0`, within i64.
pub fn strict_int(arg: &Arg) -> Option<i64> {
    let s = text(arg)?;
    let digits = s.strip_prefix('-').unwrap_or(s);
    let canonical = !digits.is_empty()
        && digits.bytes().all(|c| c.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && s != "-0";
    if canonical {
        s.parse().ok()
    } else {
        None
    }
}

/// Replicates the creation of `filter` at `key` with every parameter spelled out (a
/// replica's or an AOF replay's defaults may differ), as CF.RESERVE with the capacity that
/// gives exactly the filter's buckets. Commands replicated after this one in the same call
/// go with it in one MULTI/EXEC.
pub fn replicate_creation(ctx: &Context, key: &Arg, filter: &CuckooFilter) {
    let capacity = (filter.num_buckets() * filter.bucket_size() as u64).to_string();
    let bucket_size = filter.bucket_size().to_string();
    let iterations = filter.max_iterations().to_string();
    let expansion = filter.expansion().to_string();
    let args: [&[u8]; 8] = [
        key.as_slice(),
        capacity.as_bytes(),
        b"BUCKETSIZE",
        bucket_size.as_bytes(),
        b"MAXITERATIONS",
        iterations.as_bytes(),
        b"EXPANSION",
        expansion.as_bytes(),
    ];
    ctx.replicate("CF.RESERVE", &args[..]);
}
