//! The counting Bloom filter family's command rows (`CBF.*`): one `static` per command, its
//! name written only here, what the family's commands share, and the family's list. ACL
//! categories follow the BF rows (`@write` / `@read`, `@fast` for RESERVE, CARD and INFO)
//! and the module category `cbf`.

use super::{add, del, exists, info, merge, reserve, scandump};
use crate::commands::row::{
    arg, callback, items, keys, option, Access, Acl, Arity, Command, CommandFamily, Docs, Kind,
    Since, ITEM, ITERATOR, KEY, SECRET_CARRIER,
};
use crate::info::CBF;

/// The CBF commands' ACL category (on servers with module categories, 7.2+) and INFO
/// counters.
static FAMILY: CommandFamily = CommandFamily {
    acl: c"cbf",
    since: Since::Rsbloom,
    counters: &CBF,
};

/// The family's commands, in COMMAND DOCS order.
pub static COMMANDS: &[&Command] = &[
    &RESERVE, &ADD, &MADD, &DEL, &MDEL, &EXISTS, &MEXISTS, &COUNT, &CARD, &INFO, &SCANDUMP,
    &LOADCHUNK, &EXPORT, &MERGE,
];

pub static RESERVE: Command = Command {
    name: c"cbf.reserve",
    callback: callback!(RESERVE => reserve::reserve),
    flags: c"write deny-oom",
    summary: c"Creates an empty counting Bloom filter with an error rate and a capacity",
    complexity: c"O(1)",
    arity: Arity::AtLeast(4),
    access: Access::Insert,
    args: &[
        KEY,
        arg(c"error_rate", Kind::Double),
        arg(c"capacity", Kind::Integer),
        option(c"counterbits", Kind::Integer, c"COUNTERBITS"),
        option(c"keyed", Kind::Flag, c"KEYED"),
    ],
    acl: Acl::WriteFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static ADD: Command = Command {
    name: c"cbf.add",
    callback: callback!(ADD => add::add),
    flags: c"write deny-oom",
    summary: c"Adds an item to a counting Bloom filter, creating the filter if needed",
    complexity: c"O(k), k the number of hash functions",
    arity: Arity::Exactly(3),
    access: Access::Insert,
    args: &[KEY, ITEM],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static MADD: Command = Command {
    name: c"cbf.madd",
    callback: callback!(MADD => add::madd),
    flags: c"write deny-oom",
    summary: c"Adds items to a counting Bloom filter, creating the filter if needed",
    complexity: c"O(k * n), k hash functions, n items",
    arity: Arity::AtLeast(3),
    access: Access::Insert,
    args: &[KEY, items(c"item")],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static DEL: Command = Command {
    name: c"cbf.del",
    callback: callback!(DEL => del::del),
    flags: c"write fast",
    summary: c"Deletes an item from a counting Bloom filter",
    complexity: c"O(k), k the number of hash functions",
    arity: Arity::Exactly(3),
    access: Access::Update,
    args: &[KEY, ITEM],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static MDEL: Command = Command {
    name: c"cbf.mdel",
    callback: callback!(MDEL => del::mdel),
    flags: c"write",
    summary: c"Deletes items from a counting Bloom filter",
    complexity: c"O(k * n), k hash functions, n items",
    arity: Arity::AtLeast(3),
    access: Access::Update,
    args: &[KEY, items(c"item")],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static EXISTS: Command = Command {
    name: c"cbf.exists",
    callback: callback!(EXISTS => exists::exists),
    flags: c"readonly fast",
    summary: c"Tells whether an item may be in a counting Bloom filter",
    complexity: c"O(k), k the number of hash functions",
    arity: Arity::Exactly(3),
    access: Access::ReadData,
    args: &[KEY, ITEM],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static MEXISTS: Command = Command {
    name: c"cbf.mexists",
    callback: callback!(MEXISTS => exists::mexists),
    flags: c"readonly fast",
    summary: c"Tells for each item whether it may be in a counting Bloom filter",
    complexity: c"O(k * n), k hash functions, n items",
    arity: Arity::AtLeast(3),
    access: Access::ReadData,
    args: &[KEY, items(c"item")],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static COUNT: Command = Command {
    name: c"cbf.count",
    callback: callback!(COUNT => exists::count),
    flags: c"readonly fast",
    summary: c"Returns the smallest of an item's counters in a counting Bloom filter",
    complexity: c"O(k), k the number of hash functions",
    arity: Arity::Exactly(3),
    access: Access::ReadData,
    args: &[KEY, ITEM],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static CARD: Command = Command {
    name: c"cbf.card",
    callback: callback!(CARD => info::card),
    flags: c"readonly fast",
    summary: c"Returns the items added to a counting Bloom filter less those deleted",
    complexity: c"O(1)",
    arity: Arity::Exactly(2),
    access: Access::Read,
    args: &[KEY],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static INFO: Command = Command {
    name: c"cbf.info",
    callback: callback!(INFO => info::info),
    flags: c"readonly fast",
    summary: c"Returns information about a counting Bloom filter",
    complexity: c"O(1)",
    arity: Arity::Exactly(2),
    access: Access::Read,
    args: &[KEY],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static SCANDUMP: Command = Command {
    name: c"cbf.scandump",
    callback: callback!(SCANDUMP => scandump::scandump),
    flags: c"readonly",
    summary: c"Returns the next chunk of a counting Bloom filter's dump",
    complexity: c"O(n), n the chunk size",
    arity: Arity::Exactly(3),
    access: Access::ReadData,
    args: &[KEY, ITERATOR],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static LOADCHUNK: Command = Command {
    name: c"cbf.loadchunk",
    callback: callback!(LOADCHUNK => scandump::loadchunk),
    // A keyed filter's header holds its secret (docs/safety.md).
    flags: SECRET_CARRIER,
    summary: c"Restores a counting Bloom filter from chunks returned by CBF.SCANDUMP",
    complexity: c"O(n), n the chunk size",
    arity: Arity::Exactly(4),
    access: Access::Update,
    args: &[KEY, ITERATOR, arg(c"data", Kind::Text)],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static EXPORT: Command = Command {
    name: c"cbf.export",
    callback: callback!(EXPORT => info::export),
    flags: c"readonly",
    summary: c"Returns the Bloom filter a counting Bloom filter counts for as Guava's BloomFilter.writeTo() bytes",
    complexity: c"O(n), n the size of the filter",
    arity: Arity::Exactly(3),
    access: Access::ReadData,
    args: &[KEY, arg(c"format", Kind::Text)],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static MERGE: Command = Command {
    name: c"cbf.merge",
    callback: callback!(MERGE => merge::merge),
    flags: c"write deny-oom",
    summary: c"Adds the counters of counting Bloom filters of one shape to a counting Bloom filter",
    complexity: c"O(m * n), m the counters of a filter, n the filters",
    arity: Arity::AtLeast(3),
    access: Access::UnionInto,
    args: &[arg(c"destination", Kind::Key), keys(c"source")],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};
