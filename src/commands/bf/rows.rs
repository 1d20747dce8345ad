//! The Bloom family's command rows (`BF.*`): one `static` per command, its name written only
//! here (the harness takes the arity error and the keyspace event from it), what the family's
//! commands share, and the family's list.

use super::{add, exists, info, merge, reserve, scandump, transfer, valkey};
use crate::commands::row::{
    arg, block_option, callback, items, keys, keyword, option, own, Access, Acl, ArgDoc, Arity,
    Command, CommandFamily, Docs, Kind, Since, ITEM, ITEMS_KEYWORD, ITERATOR, KEY, KEYED,
    SECRET_CARRIER, SHARD,
};
use crate::info::BLOOM;

/// The BF commands' ACL category (on servers with module categories, 7.2+) and INFO
/// counters.
static FAMILY: CommandFamily = CommandFamily {
    acl: c"bloom",
    since: Since::RedisBloom(c"1.0.0"),
    counters: &BLOOM,
};

const EXPANSION: ArgDoc = block_option(
    c"expansion",
    c"EXPANSION",
    &[arg(c"expansion", Kind::Integer)],
);
const NONSCALING: ArgDoc = option(c"nonscaling", Kind::Flag, c"NONSCALING");
// rsbloom's, after RedisBloom's options (docs/commands/bloom.md).
const BLOCKED: ArgDoc = own(option(c"blocked", Kind::Flag, c"BLOCKED"));
const UNKEYED: ArgDoc = own(option(c"unkeyed", Kind::Flag, c"UNKEYED"));
const UNBLOCKED: ArgDoc = own(option(c"unblocked", Kind::Flag, c"UNBLOCKED"));

/// The family's commands, in COMMAND DOCS order.
pub static COMMANDS: &[&Command] = &[
    &RESERVE, &ADD, &MADD, &INSERT, &EXISTS, &MEXISTS, &CARD, &INFO, &DEBUG, &SCANDUMP, &LOADCHUNK,
    &IMPORT, &EXPORT, &MERGE, &LOAD,
];

pub static RESERVE: Command = Command {
    name: c"bf.reserve",
    callback: callback!(RESERVE => reserve::reserve),
    flags: c"write deny-oom",
    summary: c"Creates an empty Bloom filter with an error rate and a capacity",
    complexity: c"O(1)",
    // SHARD's four words, SHARDID's and SHARDSECRET's two each, KEYED, BLOCKED, UNKEYED and
    // UNBLOCKED are rsbloom's, beyond RedisBloom's seven.
    arity: Arity::Between(4, 19),
    access: Access::Insert,
    args: &[
        KEY,
        arg(c"error_rate", Kind::Double),
        arg(c"capacity", Kind::Integer),
        EXPANSION,
        NONSCALING,
        SHARD,
        KEYED,
        BLOCKED,
        UNKEYED,
        UNBLOCKED,
    ],
    acl: Acl::WriteFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static ADD: Command = Command {
    name: c"bf.add",
    callback: callback!(ADD => add::add),
    flags: c"write deny-oom",
    summary: c"Adds an item to a Bloom filter, creating the filter if needed",
    complexity: c"O(k), k the number of hash functions",
    arity: Arity::Exactly(3),
    access: Access::Insert,
    args: &[KEY, ITEM],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static MADD: Command = Command {
    name: c"bf.madd",
    callback: callback!(MADD => add::madd),
    flags: c"write deny-oom",
    summary: c"Adds items to a Bloom filter, creating the filter if needed",
    complexity: c"O(k * n), k hash functions, n items",
    arity: Arity::AtLeast(3),
    access: Access::Insert,
    args: &[KEY, items(c"item")],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static INSERT: Command = Command {
    name: c"bf.insert",
    callback: callback!(INSERT => add::insert),
    flags: c"write deny-oom",
    summary: c"Adds items to a Bloom filter, creating it with the given options if needed",
    complexity: c"O(k * n), k hash functions, n items",
    arity: Arity::AtLeast(4),
    access: Access::Insert,
    args: &[
        KEY,
        block_option(c"capacity", c"CAPACITY", &[arg(c"capacity", Kind::Integer)]),
        block_option(c"error", c"ERROR", &[arg(c"error", Kind::Double)]),
        EXPANSION,
        option(c"nocreate", Kind::Flag, c"NOCREATE"),
        NONSCALING,
        SHARD,
        KEYED,
        BLOCKED,
        UNKEYED,
        UNBLOCKED,
        // valkey-bloom's, with its names; they make a valkey-bloom filter.
        own(block_option(
            c"tightening",
            c"TIGHTENING",
            &[arg(c"tightening_ratio", Kind::Double)],
        )),
        own(block_option(c"seed", c"SEED", &[arg(c"seed", Kind::Text)])),
        own(block_option(
            c"validatescaleto",
            c"VALIDATESCALETO",
            &[arg(c"validatescaleto", Kind::Integer)],
        )),
        ITEMS_KEYWORD,
        items(c"item"),
    ],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static EXISTS: Command = Command {
    name: c"bf.exists",
    callback: callback!(EXISTS => exists::exists),
    flags: c"readonly fast",
    summary: c"Tells whether an item may be in a Bloom filter",
    complexity: c"O(k), k the number of hash functions",
    arity: Arity::Exactly(3),
    access: Access::ReadData,
    args: &[KEY, ITEM],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static MEXISTS: Command = Command {
    name: c"bf.mexists",
    callback: callback!(MEXISTS => exists::mexists),
    flags: c"readonly fast",
    summary: c"Tells for each item whether it may be in a Bloom filter",
    complexity: c"O(k * n), k hash functions, n items",
    arity: Arity::AtLeast(3),
    access: Access::ReadData,
    args: &[KEY, items(c"item")],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static CARD: Command = Command {
    name: c"bf.card",
    callback: callback!(CARD => info::card),
    flags: c"readonly fast",
    summary: c"Returns the number of items added to a Bloom filter",
    complexity: c"O(1)",
    arity: Arity::Exactly(2),
    access: Access::Read,
    args: &[KEY],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::since(Since::RedisBloom(c"2.4.4")),
};

pub static INFO: Command = Command {
    name: c"bf.info",
    callback: callback!(INFO => info::info),
    flags: c"readonly fast",
    summary: c"Returns information about a Bloom filter",
    complexity: c"O(1)",
    arity: Arity::Between(2, 3),
    access: Access::Read,
    args: &[
        KEY,
        // RedisBloom's names (its first misspelt: `capcaity`).
        ArgDoc {
            optional: true,
            sub: &[
                keyword(c"capacity", c"CAPACITY"),
                keyword(c"SIZE", c"SIZE"),
                keyword(c"FILTERS", c"FILTERS"),
                keyword(c"ITEMS", c"ITEMS"),
                keyword(c"EXPANSION", c"EXPANSION"),
            ],
            ..arg(c"single_value", Kind::OneOf)
        },
    ],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::DONT_CACHE,
};

pub static DEBUG: Command = Command {
    name: c"bf.debug",
    callback: callback!(DEBUG => info::debug),
    flags: c"readonly",
    summary: c"Returns the size of each layer of a Bloom filter",
    complexity: c"O(layers)",
    arity: Arity::Exactly(2),
    access: Access::Read,
    args: &[KEY],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::DONT_CACHE,
};

pub static SCANDUMP: Command = Command {
    name: c"bf.scandump",
    callback: callback!(SCANDUMP => scandump::scandump),
    flags: c"readonly",
    summary: c"Returns the next chunk of a Bloom filter's dump",
    complexity: c"O(n), n the chunk size",
    arity: Arity::Exactly(3),
    access: Access::ReadData,
    args: &[KEY, ITERATOR],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::DONT_CACHE,
};

pub static LOADCHUNK: Command = Command {
    name: c"bf.loadchunk",
    callback: callback!(LOADCHUNK => scandump::loadchunk),
    // A keyed filter's header holds its secret, and a keyed creation is replicated as this
    // command: MONITOR and SLOWLOG (a replica's too) must not show its arguments.
    flags: SECRET_CARRIER,
    summary: c"Restores a Bloom filter from chunks returned by BF.SCANDUMP",
    complexity: c"O(n), n the chunk size",
    arity: Arity::Exactly(4),
    access: Access::Update,
    args: &[KEY, ITERATOR, arg(c"data", Kind::Text)],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static IMPORT: Command = Command {
    name: c"bf.import",
    callback: callback!(IMPORT => transfer::import),
    flags: c"write deny-oom",
    summary: c"Creates a non-scaling Bloom filter from the bytes of Guava's BloomFilter.writeTo()",
    complexity: c"O(n), n the size of the data",
    arity: Arity::AtLeast(4),
    access: Access::Insert,
    args: &[
        KEY,
        arg(c"format", Kind::Text),
        arg(c"data", Kind::Text),
        option(c"capacity", Kind::Integer, c"CAPACITY"),
        option(c"error", Kind::Double, c"ERROR"),
    ],
    // Not in RedisBloom: it creates a filter, so @write (as BF.RESERVE, without @fast: O(n)).
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::since(Since::Rsbloom),
};

pub static EXPORT: Command = Command {
    name: c"bf.export",
    callback: callback!(EXPORT => transfer::export),
    flags: c"readonly",
    summary: c"Returns a single-layer Bloom filter as Guava's BloomFilter.writeTo() bytes",
    complexity: c"O(n), n the size of the filter",
    arity: Arity::Exactly(3),
    access: Access::ReadData,
    args: &[KEY, arg(c"format", Kind::Text)],
    // Not in RedisBloom: it reads the whole filter, so @read (as BF.SCANDUMP).
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::since(Since::Rsbloom),
};

pub static MERGE: Command = Command {
    name: c"bf.merge",
    callback: callback!(MERGE => merge::merge),
    flags: c"write deny-oom",
    summary: c"Makes a Bloom filter the union of itself and other Bloom filters of its shape",
    complexity: c"O(m * n), m the bits of a filter, n the filters",
    arity: Arity::AtLeast(3),
    access: Access::UnionInto,
    args: &[arg(c"destination", Kind::Key), keys(c"source")],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::since(Since::Rsbloom),
};

/// valkey-bloom's command: what its AOF rewrite emits for a `bloomfltr` key.
pub static LOAD: Command = Command {
    name: c"bf.load",
    callback: callback!(LOAD => valkey::load),
    flags: c"write deny-oom",
    summary: c"Restores a valkey-bloom filter from its AOF form onto a missing key",
    complexity: c"O(n), n the size of the data",
    arity: Arity::Exactly(3),
    access: Access::Insert,
    args: &[KEY, arg(c"data", Kind::Text)],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::since(Since::Rsbloom),
};
