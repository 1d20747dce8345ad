//! The Bloom family's commands (`BF.*`): their table rows, and access to the filter a key
//! holds, of either Bloom type.

pub mod add;
pub mod exists;
pub mod info;
pub mod options;
pub mod reserve;
pub mod scandump;
pub mod transfer;

use std::ffi::CStr;

use redis_module::key::{RedisKey, RedisKeyWritable};
use redis_module::Context;
use rsbloom_core::bloom::codec::scandump::header_of_meta;
use rsbloom_core::bloom::Chain;
use rsbloom_core::error::{Error, Result};

use super::argv::Arg;
use super::table::{arg, items, option, Access, ArgDoc, Command, Kind, ITEM, ITERATOR, KEY};
use crate::datatype::bloom::{type_of, BLOOM_TYPE, REDISBLOOM_TYPE};

/// The ACL category of every BF command, where the server has module categories (7.2+).
const ACL: &CStr = c"bloom";

const EXPANSION: ArgDoc = option(c"expansion", Kind::Integer, c"EXPANSION");
const NONSCALING: ArgDoc = option(c"nonscaling", Kind::Flag, c"NONSCALING");

pub static COMMANDS: &[Command] = &[
    Command {
        name: c"bf.reserve",
        callback: callback!(reserve::reserve),
        flags: c"write deny-oom",
        summary: c"Creates an empty Bloom filter with an error rate and a capacity",
        complexity: c"O(1)",
        arity: -4,
        access: Access::Insert,
        args: &[
            KEY,
            arg(c"error_rate", Kind::Double),
            arg(c"capacity", Kind::Integer),
            EXPANSION,
            NONSCALING,
        ],
        acl: ACL,
    },
    Command {
        name: c"bf.add",
        callback: callback!(add::add),
        flags: c"write deny-oom",
        summary: c"Adds an item to a Bloom filter, creating the filter if needed",
        complexity: c"O(k), k the number of hash functions",
        arity: 3,
        access: Access::Insert,
        args: &[KEY, ITEM],
        acl: ACL,
    },
    Command {
        name: c"bf.madd",
        callback: callback!(add::madd),
        flags: c"write deny-oom",
        summary: c"Adds items to a Bloom filter, creating the filter if needed",
        complexity: c"O(k * n), k hash functions, n items",
        arity: -3,
        access: Access::Insert,
        args: &[KEY, items(c"item")],
        acl: ACL,
    },
    Command {
        name: c"bf.insert",
        callback: callback!(add::insert),
        flags: c"write deny-oom",
        summary: c"Adds items to a Bloom filter, creating it with the given options if needed",
        complexity: c"O(k * n), k hash functions, n items",
        arity: -4,
        access: Access::Insert,
        args: &[
            KEY,
            option(c"capacity", Kind::Integer, c"CAPACITY"),
            option(c"error", Kind::Double, c"ERROR"),
            EXPANSION,
            option(c"nocreate", Kind::Flag, c"NOCREATE"),
            NONSCALING,
            ArgDoc {
                token: Some(c"ITEMS"),
                sub: &[items(c"item")],
                ..arg(c"items", Kind::Block)
            },
        ],
        acl: ACL,
    },
    Command {
        name: c"bf.exists",
        callback: callback!(exists::exists),
        flags: c"readonly fast",
        summary: c"Tells whether an item may be in a Bloom filter",
        complexity: c"O(k), k the number of hash functions",
        arity: 3,
        access: Access::ReadData,
        args: &[KEY, ITEM],
        acl: ACL,
    },
    Command {
        name: c"bf.mexists",
        callback: callback!(exists::mexists),
        flags: c"readonly fast",
        summary: c"Tells for each item whether it may be in a Bloom filter",
        complexity: c"O(k * n), k hash functions, n items",
        arity: -3,
        access: Access::ReadData,
        args: &[KEY, items(c"item")],
        acl: ACL,
    },
    Command {
        name: c"bf.card",
        callback: callback!(info::card),
        flags: c"readonly fast",
        summary: c"Returns the number of items added to a Bloom filter",
        complexity: c"O(1)",
        arity: 2,
        access: Access::Read,
        args: &[KEY],
        acl: ACL,
    },
    Command {
        name: c"bf.info",
        callback: callback!(info::info),
        flags: c"readonly fast",
        summary: c"Returns information about a Bloom filter",
        complexity: c"O(1)",
        arity: -2,
        access: Access::Read,
        args: &[
            KEY,
            ArgDoc {
                optional: true,
                ..arg(c"field", Kind::Text)
            },
        ],
        acl: ACL,
    },
    Command {
        name: c"bf.debug",
        callback: callback!(info::debug),
        flags: c"readonly",
        summary: c"Returns the size of each layer of a Bloom filter",
        complexity: c"O(layers)",
        arity: 2,
        access: Access::Read,
        args: &[KEY],
        acl: ACL,
    },
    Command {
        name: c"bf.scandump",
        callback: callback!(scandump::scandump),
        flags: c"readonly",
        summary: c"Returns the next chunk of a Bloom filter's dump",
        complexity: c"O(n), n the chunk size",
        arity: 3,
        access: Access::ReadData,
        args: &[KEY, ITERATOR],
        acl: ACL,
    },
    Command {
        name: c"bf.loadchunk",
        callback: callback!(scandump::loadchunk),
        flags: c"write deny-oom",
        summary: c"Restores a Bloom filter from chunks returned by BF.SCANDUMP",
        complexity: c"O(n), n the chunk size",
        arity: 4,
        access: Access::Update,
        args: &[KEY, ITERATOR, arg(c"data", Kind::Text)],
        acl: ACL,
    },
    Command {
        name: c"bf.import",
        callback: callback!(transfer::import),
        flags: c"write deny-oom",
        summary:
            c"Creates a non-scaling Bloom filter from the bytes of Guava's BloomFilter.writeTo()",
        complexity: c"O(n), n the size of the data",
        arity: -4,
        access: Access::Insert,
        args: &[
            KEY,
            arg(c"format", Kind::Text),
            arg(c"data", Kind::Text),
            option(c"capacity", Kind::Integer, c"CAPACITY"),
            option(c"error", Kind::Double, c"ERROR"),
        ],
        acl: ACL,
    },
    Command {
        name: c"bf.export",
        callback: callback!(transfer::export),
        flags: c"readonly",
        summary: c"Returns a single-layer Bloom filter as Guava's BloomFilter.writeTo() bytes",
        complexity: c"O(n), n the size of the filter",
        arity: 3,
        access: Access::ReadData,
        args: &[KEY, arg(c"format", Kind::Text)],
        acl: ACL,
    },
];

/// The filter at `key` for reading, of either type: `None` if the key is missing,
/// WRONGTYPE if it holds something else.
pub fn read_filter(key: &RedisKey) -> Result<Option<&Chain>> {
    key.get_value::<Chain>(&BLOOM_TYPE)
        .or_else(|_| key.get_value::<Chain>(&REDISBLOOM_TYPE))
        .map_err(|_| Error::WrongType)
}

/// The filter at `key` for writing, as [`read_filter`].
pub fn write_filter<'a>(key: &RedisKeyWritable) -> Result<Option<&'a mut Chain>> {
    key.get_value::<Chain>(&BLOOM_TYPE)
        .or_else(|_| key.get_value::<Chain>(&REDISBLOOM_TYPE))
        .map_err(|_| Error::WrongType)
}

/// Stores a new filter at an empty key, as the type of its scheme, and hands it back for
/// further writes.
pub fn store_filter<'a>(key: &RedisKeyWritable, chain: Chain) -> Result<&'a mut Chain> {
    key.set_value(type_of(chain.scheme()), chain)
        .map_err(|_| Error::WrongType)?;
    write_filter(key)?.ok_or(Error::Internal)
}

/// Replicates the creation of `chain` at `key`, then `items` if any: the SCANDUMP header of
/// the filter as it was created (its first layer, empty) as `BF.LOADCHUNK key 1 <header>`,
/// then `BF.MADD key items...`; Redis wraps the two in MULTI/EXEC. The header pins the type
/// and every parameter, so a replica or an AOF replay never fills in defaults or a
/// `bf.new-filter-format` of its own.
pub fn replicate_creation(ctx: &Context, key: &Arg, chain: &Chain, items: &[Arg]) {
    let mut meta = chain.meta();
    meta.layers.truncate(1);
    for layer in &mut meta.layers {
        layer.count = 0;
    }
    let header = header_of_meta(&meta);
    ctx.replicate("BF.LOADCHUNK", &[key.as_slice(), b"1", &header][..]);
    if !items.is_empty() {
        let mut args: Vec<&[u8]> = vec![key.as_slice()];
        args.extend(items.iter().map(Arg::as_slice));
        ctx.replicate("BF.MADD", args.as_slice());
    }
}
