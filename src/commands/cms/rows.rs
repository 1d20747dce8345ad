//! The Count-Min Sketch command rows (`CMS.*`): one `static` per command, its name written
//! only here, what the family's commands share, and the family's list. Flags and built-in
//! ACL categories are RedisBloom 8.2.3's (`COMMAND INFO`); the key specs say what each
//! command does with its keys, CMS.MERGE's sources included (RedisBloom declares only the
//! destination).

use super::{create, info, merge, update};
use crate::commands::numkeys_keys::numkeys_callback;
use crate::commands::row::{
    arg, callback, items, option, Access, Acl, ArgDoc, Arity, Command, CommandFamily, Kind, KEY,
};
use crate::commands::row::{keyword, Docs, Since};
use crate::info::CMS;

/// The CMS commands' ACL category (on servers with module categories, 7.2+) and INFO
/// counters.
static FAMILY: CommandFamily = CommandFamily {
    acl: c"cms",
    since: Since::RedisBloom(c"2.0.0"),
    counters: &CMS,
};

/// The family's commands, in COMMAND DOCS order.
pub static COMMANDS: &[&Command] = &[&INITBYDIM, &INITBYPROB, &INCRBY, &QUERY, &MERGE, &INFO];

/// `CELL_SIZE n` of the creations (RedisBloom 8.12): bytes per counter, 1, 2, 4 or 8.
/// Without `since`, as RedisBloom documents no argument with one.
const CELL_SIZE: ArgDoc = ArgDoc {
    since: Some(c"8.12.0"),
    ..option(c"cell_size", Kind::Integer, c"CELL_SIZE")
};

pub static INITBYDIM: Command = Command {
    name: c"cms.initbydim",
    callback: callback!(INITBYDIM => create::initbydim),
    flags: c"write deny-oom",
    summary: c"Creates a Count-Min Sketch of the given width and depth",
    complexity: c"O(1)",
    arity: Arity::Between(4, 6),
    access: Access::Insert,
    args: &[
        KEY,
        arg(c"width", Kind::Integer),
        arg(c"depth", Kind::Integer),
        CELL_SIZE,
    ],
    acl: Acl::WriteFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static INITBYPROB: Command = Command {
    name: c"cms.initbyprob",
    callback: callback!(INITBYPROB => create::initbyprob),
    flags: c"write deny-oom",
    summary: c"Creates a Count-Min Sketch sized for an overestimation and a probability",
    complexity: c"O(1)",
    arity: Arity::Between(4, 6),
    access: Access::Insert,
    args: &[
        KEY,
        arg(c"error", Kind::Double),
        arg(c"probability", Kind::Double),
        CELL_SIZE,
    ],
    acl: Acl::WriteFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static INCRBY: Command = Command {
    name: c"cms.incrby",
    callback: callback!(INCRBY => update::incrby),
    flags: c"write deny-oom",
    summary: c"Increases the counts of items in a Count-Min Sketch",
    complexity: c"O(n * d), n items, d the depth",
    arity: Arity::AtLeast(4),
    access: Access::Update,
    args: &[
        KEY,
        ArgDoc {
            multiple: true,
            sub: &[arg(c"item", Kind::Text), arg(c"increment", Kind::Integer)],
            ..arg(c"items", Kind::Block)
        },
    ],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static QUERY: Command = Command {
    name: c"cms.query",
    callback: callback!(QUERY => update::query),
    flags: c"readonly",
    summary: c"Returns the estimated counts of items in a Count-Min Sketch",
    complexity: c"O(n * d), n items, d the depth",
    arity: Arity::AtLeast(3),
    access: Access::ReadData,
    args: &[KEY, items(c"item")],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

/// CMS.MERGE answers the server's requests for its keys' positions (`getkeys-api`, see
/// `numkeys_keys`) as well as its key specs.
pub static MERGE: Command = Command {
    name: c"cms.merge",
    callback: numkeys_callback!(MERGE => merge::merge),
    flags: c"write deny-oom getkeys-api",
    summary: c"Sets a Count-Min Sketch to the weighted sum of sketches of its dimensions",
    complexity: c"O(n * w * d), n sources, w the width, d the depth",
    arity: Arity::AtLeast(4),
    access: Access::MergeInto,
    args: &[
        // RedisBloom's names and types (a weight documented as a double).
        KEY,
        arg(c"numKeys", Kind::Integer),
        ArgDoc {
            multiple: true,
            ..arg(c"source", Kind::Key)
        },
        ArgDoc {
            optional: true,
            sub: &[
                keyword(c"weights", c"WEIGHTS"),
                ArgDoc {
                    multiple: true,
                    ..arg(c"weight", Kind::Double)
                },
            ],
            ..arg(c"weights", Kind::Block)
        },
    ],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static INFO: Command = Command {
    name: c"cms.info",
    callback: callback!(INFO => info::info),
    flags: c"readonly",
    summary: c"Returns a Count-Min Sketch's width, depth, total count and cell size",
    complexity: c"O(1)",
    arity: Arity::Exactly(2),
    access: Access::Read,
    args: &[KEY],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::DONT_CACHE,
};
