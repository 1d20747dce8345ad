//! The cuckoo family's command rows (`CF.*`): one `static` per command, its name written only
//! here (the harness takes the arity error and the keyspace event from it), what the family's
//! commands share, and the family's list.

use super::{add, del, exists, info, reserve, scandump};
use crate::commands::row::{
    arg, block_option, callback, items, keyword, option, Access, Acl, ArgDoc, Arity, Command,
    CommandFamily, Docs, Kind, Since, ITEM, ITEMS_KEYWORD, ITERATOR, KEY, SHARD,
};
use crate::info::CUCKOO;

/// The CF commands' ACL category (on servers with module categories, 7.2+) and INFO
/// counters.
static FAMILY: CommandFamily = CommandFamily {
    acl: c"cuckoo",
    since: Since::RedisBloom(c"1.0.0"),
    counters: &CUCKOO,
};

/// As RedisBloom documents them (CF.INSERTNX too): the CAPACITY group untokened, its keyword
/// inside; then rsbloom's SHARD.
const INSERT_ARGS: &[ArgDoc] = &[
    KEY,
    ArgDoc {
        optional: true,
        sub: &[
            keyword(c"capacity", c"CAPACITY"),
            arg(c"capacity", Kind::Integer),
        ],
        ..arg(c"capacity", Kind::Block)
    },
    option(c"nocreate", Kind::Flag, c"NOCREATE"),
    SHARD,
    ITEMS_KEYWORD,
    items(c"item"),
];

/// The family's commands, in COMMAND DOCS order.
pub static COMMANDS: &[&Command] = &[
    &RESERVE, &ADD, &ADDNX, &INSERT, &INSERTNX, &EXISTS, &MEXISTS, &COUNT, &DEL, &COMPACT,
    &SCANDUMP, &LOADCHUNK, &INFO, &DEBUG,
];

pub static RESERVE: Command = Command {
    name: c"cf.reserve",
    callback: callback!(RESERVE => reserve::reserve),
    flags: c"write deny-oom",
    summary: c"Creates an empty cuckoo filter with a capacity",
    complexity: c"O(1)",
    arity: Arity::AtLeast(3),
    access: Access::Insert,
    args: &[
        KEY,
        arg(c"capacity", Kind::Integer),
        block_option(
            c"bucketsize",
            c"BUCKETSIZE",
            &[arg(c"bucketsize", Kind::Integer)],
        ),
        block_option(
            c"maxiterations",
            c"MAXITERATIONS",
            &[arg(c"maxiterations", Kind::Integer)],
        ),
        block_option(
            c"expansion",
            c"EXPANSION",
            &[arg(c"expansion", Kind::Integer)],
        ),
        SHARD,
    ],
    acl: Acl::WriteFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static ADD: Command = Command {
    name: c"cf.add",
    callback: callback!(ADD => add::add),
    flags: c"write deny-oom",
    summary: c"Adds an item to a cuckoo filter, creating the filter if needed",
    complexity: c"O(k + i), k sub-filters, i max iterations",
    arity: Arity::Exactly(3),
    access: Access::Insert,
    args: &[KEY, ITEM],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static ADDNX: Command = Command {
    name: c"cf.addnx",
    callback: callback!(ADDNX => add::addnx),
    flags: c"write deny-oom",
    summary: c"Adds an item to a cuckoo filter unless it may be there already",
    complexity: c"O(k + i), k sub-filters, i max iterations",
    arity: Arity::Exactly(3),
    access: Access::Insert,
    args: &[KEY, ITEM],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static INSERT: Command = Command {
    name: c"cf.insert",
    callback: callback!(INSERT => add::insert),
    flags: c"write deny-oom",
    summary: c"Adds items to a cuckoo filter, creating it with a capacity if needed",
    complexity: c"O(n * (k + i)), n items, k sub-filters, i max iterations",
    arity: Arity::AtLeast(4),
    access: Access::Insert,
    args: INSERT_ARGS,
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static INSERTNX: Command = Command {
    name: c"cf.insertnx",
    callback: callback!(INSERTNX => add::insertnx),
    flags: c"write deny-oom",
    summary: c"Adds each item to a cuckoo filter unless it may be there already",
    complexity: c"O(n * (k + i)), n items, k sub-filters, i max iterations",
    arity: Arity::AtLeast(4),
    access: Access::Insert,
    args: INSERT_ARGS,
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static EXISTS: Command = Command {
    name: c"cf.exists",
    callback: callback!(EXISTS => exists::exists),
    flags: c"readonly fast",
    summary: c"Tells whether an item may be in a cuckoo filter",
    complexity: c"O(k), k sub-filters",
    arity: Arity::Exactly(3),
    access: Access::ReadData,
    args: &[KEY, ITEM],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static MEXISTS: Command = Command {
    name: c"cf.mexists",
    callback: callback!(MEXISTS => exists::mexists),
    flags: c"readonly fast",
    summary: c"Tells for each item whether it may be in a cuckoo filter",
    complexity: c"O(n * k), n items, k sub-filters",
    arity: Arity::AtLeast(3),
    access: Access::ReadData,
    args: &[KEY, items(c"item")],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static COUNT: Command = Command {
    name: c"cf.count",
    callback: callback!(COUNT => exists::count),
    flags: c"readonly fast",
    summary: c"Counts the copies of an item's fingerprint in a cuckoo filter",
    complexity: c"O(k), k sub-filters",
    arity: Arity::Exactly(3),
    access: Access::ReadData,
    args: &[KEY, ITEM],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static DEL: Command = Command {
    name: c"cf.del",
    callback: callback!(DEL => del::del),
    flags: c"write fast",
    summary: c"Removes one copy of an item from a cuckoo filter",
    complexity: c"O(k), k sub-filters (compaction: O(size of the filter))",
    arity: Arity::Exactly(3),
    access: Access::Update,
    args: &[KEY, ITEM],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static COMPACT: Command = Command {
    name: c"cf.compact",
    callback: callback!(COMPACT => del::compact),
    // RedisBloom marks it `readonly`, but it changes the filter.
    flags: c"write fast",
    summary: c"Moves items of a cuckoo filter into older sub-filters, freeing empty ones",
    complexity: c"O(n), n the size of the filter",
    arity: Arity::Exactly(2),
    access: Access::Update,
    args: &[KEY],
    // RedisBloom 8's category, kept for drop-in ACL rules: compaction moves fingerprints but
    // changes no answer. Its key spec (RW) still refuses it on read-only keys (`%R~`).
    acl: Acl::Read,
    family: &FAMILY,
    // RedisBloom documents no CF.COMPACT; 2.2.0 brought it.
    docs: Docs::since(Since::RedisBloom(c"2.2.0")),
};

pub static SCANDUMP: Command = Command {
    name: c"cf.scandump",
    callback: callback!(SCANDUMP => scandump::scandump),
    flags: c"readonly fast",
    summary: c"Returns the next chunk of a cuckoo filter's dump",
    complexity: c"O(n), n the chunk size",
    arity: Arity::Exactly(3),
    access: Access::ReadData,
    args: &[KEY, ITERATOR],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::DONT_CACHE,
};

pub static LOADCHUNK: Command = Command {
    name: c"cf.loadchunk",
    callback: callback!(LOADCHUNK => scandump::loadchunk),
    flags: c"write deny-oom",
    summary: c"Restores a cuckoo filter from chunks returned by CF.SCANDUMP",
    complexity: c"O(n), n the chunk size",
    arity: Arity::Exactly(4),
    access: Access::Update,
    args: &[KEY, ITERATOR, arg(c"data", Kind::Text)],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static INFO: Command = Command {
    name: c"cf.info",
    callback: callback!(INFO => info::info),
    flags: c"readonly fast",
    summary: c"Returns information about a cuckoo filter",
    complexity: c"O(1)",
    arity: Arity::Exactly(2),
    access: Access::Read,
    args: &[KEY],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::DONT_CACHE,
};

pub static DEBUG: Command = Command {
    name: c"cf.debug",
    callback: callback!(DEBUG => info::debug),
    flags: c"readonly fast",
    summary: c"Returns a cuckoo filter's parameters and counters as one line",
    complexity: c"O(1)",
    arity: Arity::Exactly(2),
    access: Access::Read,
    args: &[KEY],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::DONT_CACHE,
};
