//! The sliding-window family's command rows (`APBF.*`): one `static` per command, its name
//! written only here, what the family's commands share, and the family's list. ACL
//! categories follow the BF rows (`@write` / `@read`, `@fast` for RESERVE and INFO) and the
//! module category `apbf`.

use super::{add, exists, info, reserve, scandump};
use crate::commands::row::{
    arg, callback, items, Access, Acl, Arity, Command, CommandFamily, Docs, Kind, Since, ITEM,
    ITERATOR, KEY, KEYED, SECRET_CARRIER,
};
use crate::info::APBF;

/// The APBF commands' ACL category (on servers with module categories, 7.2+) and INFO
/// counters.
static FAMILY: CommandFamily = CommandFamily {
    acl: c"apbf",
    since: Since::Rsbloom,
    counters: &APBF,
};

/// The family's commands, in COMMAND DOCS order.
pub static COMMANDS: &[&Command] = &[
    &RESERVE, &ADD, &MADD, &INSERTAT, &EXISTS, &MEXISTS, &INFO, &SCANDUMP, &LOADCHUNK,
];

pub static RESERVE: Command = Command {
    name: c"apbf.reserve",
    callback: callback!(RESERVE => reserve::reserve),
    flags: c"write deny-oom",
    summary: c"Creates an empty sliding-window filter over the last items (COUNT) or the last span of time (TIME)",
    complexity: c"O(1)",
    arity: Arity::AtLeast(5),
    access: Access::Insert,
    args: &[
        KEY,
        arg(c"window", Kind::Text),
        arg(c"error_rate", Kind::Double),
        arg(c"capacity", Kind::Integer),
        arg(c"span", Kind::Double),
        KEYED,
    ],
    acl: Acl::WriteFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static ADD: Command = Command {
    name: c"apbf.add",
    callback: callback!(ADD => add::add),
    flags: c"write deny-oom",
    summary: c"Adds an item to a sliding-window filter, creating the filter if needed",
    complexity: c"O(k), k the number of hash functions",
    arity: Arity::Exactly(3),
    access: Access::Insert,
    args: &[KEY, ITEM],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static MADD: Command = Command {
    name: c"apbf.madd",
    callback: callback!(MADD => add::madd),
    flags: c"write deny-oom",
    summary: c"Adds items to a sliding-window filter, creating the filter if needed",
    complexity: c"O(k * n), k hash functions, n items",
    arity: Arity::AtLeast(3),
    access: Access::Insert,
    args: &[KEY, items(c"item")],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static INSERTAT: Command = Command {
    name: c"apbf.insertat",
    callback: callback!(INSERTAT => add::insertat),
    flags: c"write deny-oom",
    summary: c"Adds items to a sliding-window filter at a given time (how adds are replicated)",
    complexity: c"O(k * n), k hash functions, n items",
    arity: Arity::AtLeast(4),
    access: Access::Update,
    args: &[KEY, arg(c"milliseconds", Kind::Integer), items(c"item")],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static EXISTS: Command = Command {
    name: c"apbf.exists",
    callback: callback!(EXISTS => exists::exists),
    flags: c"readonly fast",
    summary: c"Tells whether an item may be in a sliding-window filter's window",
    complexity: c"O(s), s the number of slices",
    arity: Arity::Exactly(3),
    access: Access::ReadData,
    args: &[KEY, ITEM],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static MEXISTS: Command = Command {
    name: c"apbf.mexists",
    callback: callback!(MEXISTS => exists::mexists),
    flags: c"readonly fast",
    summary: c"Tells for each item whether it may be in a sliding-window filter's window",
    complexity: c"O(s * n), s slices, n items",
    arity: Arity::AtLeast(3),
    access: Access::ReadData,
    args: &[KEY, items(c"item")],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static INFO: Command = Command {
    name: c"apbf.info",
    callback: callback!(INFO => info::info),
    flags: c"readonly fast",
    summary: c"Returns information about a sliding-window filter",
    complexity: c"O(s), s the number of slices",
    arity: Arity::Exactly(2),
    access: Access::Read,
    args: &[KEY],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static SCANDUMP: Command = Command {
    name: c"apbf.scandump",
    callback: callback!(SCANDUMP => scandump::scandump),
    flags: c"readonly",
    summary: c"Returns the next chunk of a sliding-window filter's dump",
    complexity: c"O(n), n the chunk size",
    arity: Arity::Exactly(3),
    access: Access::ReadData,
    args: &[KEY, ITERATOR],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static LOADCHUNK: Command = Command {
    name: c"apbf.loadchunk",
    callback: callback!(LOADCHUNK => scandump::loadchunk),
    // A keyed window's header holds its secret (docs/safety.md).
    flags: SECRET_CARRIER,
    summary: c"Restores a sliding-window filter from chunks returned by APBF.SCANDUMP",
    complexity: c"O(n), n the chunk size",
    arity: Arity::Exactly(4),
    access: Access::Update,
    args: &[KEY, ITERATOR, arg(c"data", Kind::Text)],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};
