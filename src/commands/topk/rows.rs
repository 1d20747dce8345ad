//! The Top-K family's command rows (`TOPK.*`): flags and ACL categories as RedisBloom 8.2.3
//! registers them (COMMAND INFO in tests/vectors/redisbloom-topk/checks.rb8.json).

use super::{add, read, reserve};
use crate::commands::row::{
    arg, callback, items, Access, Acl, ArgDoc, Arity, Command, CommandFamily, Docs, History, Kind,
    Since, KEY,
};
use crate::info::TOPK;

/// The TOPK commands' ACL category (on servers with module categories, 7.2+) and INFO
/// counters.
static FAMILY: CommandFamily = CommandFamily {
    acl: c"topk",
    since: Since::RedisBloom(c"2.0.0"),
    counters: &TOPK,
};

/// The family's commands, in COMMAND DOCS order.
pub static COMMANDS: &[&Command] = &[&RESERVE, &ADD, &INCRBY, &QUERY, &COUNT, &LIST, &INFO];

const ITEMS: ArgDoc = items(c"item");

pub static RESERVE: Command = Command {
    name: c"topk.reserve",
    callback: callback!(RESERVE => reserve::reserve),
    flags: c"write deny-oom",
    summary: c"Creates an empty Top-K sketch that keeps the k heaviest items",
    complexity: c"O(1)",
    arity: Arity::Between(3, 6),
    access: Access::Insert,
    args: &[
        KEY,
        arg(c"topk", Kind::Integer),
        ArgDoc {
            optional: true,
            sub: &[
                arg(c"width", Kind::Integer),
                arg(c"depth", Kind::Integer),
                arg(c"decay", Kind::Double),
            ],
            ..arg(c"params", Kind::Block)
        },
    ],
    acl: Acl::WriteFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static ADD: Command = Command {
    name: c"topk.add",
    callback: callback!(ADD => add::add),
    flags: c"write deny-oom",
    summary: c"Adds items to a Top-K sketch; replies the items they expelled",
    complexity: c"O(n * k), n items",
    arity: Arity::AtLeast(3),
    access: Access::Update,
    args: &[KEY, ITEMS],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static INCRBY: Command = Command {
    name: c"topk.incrby",
    callback: callback!(INCRBY => add::incrby),
    flags: c"write deny-oom",
    summary: c"Adds items to a Top-K sketch, each a number of times",
    complexity: c"O(n * k * increment), n items",
    arity: Arity::AtLeast(4),
    access: Access::Update,
    args: &[
        KEY,
        ArgDoc {
            multiple: true,
            sub: &[arg(c"item", Kind::Text), arg(c"increment", Kind::Integer)],
            ..arg(c"item_increment", Kind::Block)
        },
    ],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static QUERY: Command = Command {
    name: c"topk.query",
    callback: callback!(QUERY => read::query),
    flags: c"readonly",
    summary: c"Tells for each item whether it is in the top k",
    complexity: c"O(n * k), n items",
    arity: Arity::AtLeast(3),
    access: Access::ReadData,
    args: &[KEY, ITEMS],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static COUNT: Command = Command {
    name: c"topk.count",
    callback: callback!(COUNT => read::count),
    flags: c"readonly",
    summary: c"Estimates each item's count in a Top-K sketch",
    complexity: c"O(n * (k + depth)), n items",
    arity: Arity::AtLeast(3),
    access: Access::ReadData,
    args: &[KEY, ITEMS],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs {
        history: &[History {
            version: c"2.4.0",
            change: c"Deprecated: its estimate is not how many times the item was added",
        }],
        ..Docs::PLAIN
    },
};

pub static LIST: Command = Command {
    name: c"topk.list",
    callback: callback!(LIST => read::list),
    flags: c"readonly",
    summary: c"Lists the top k items, heaviest first, optionally with their counts",
    complexity: c"O(k log k)",
    arity: Arity::Between(2, 3),
    access: Access::ReadData,
    args: &[
        KEY,
        crate::commands::row::option(c"withcount", Kind::Flag, c"WITHCOUNT"),
    ],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static INFO: Command = Command {
    name: c"topk.info",
    callback: callback!(INFO => read::info),
    flags: c"readonly",
    summary: c"Returns a Top-K sketch's k, width, depth and decay",
    complexity: c"O(1)",
    arity: Arity::Exactly(2),
    access: Access::Read,
    args: &[KEY],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};
