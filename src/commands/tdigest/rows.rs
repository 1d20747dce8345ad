//! The t-digest family's command rows (`TDIGEST.*`): one `static` per command, its name
//! written only here (the harness takes the arity error and the keyspace event from it), what
//! the family's commands share, and the family's list. Flags and ACL categories are
//! RedisBloom 8.2.3's; arities are the real ones (RedisBloom declares -1 and counts itself).

use super::{query, write};
use crate::commands::row::{
    arg, callback, keyword, option, Access, Acl, ArgDoc, Arity, Command, CommandFamily, Docs, Kind,
    Since, KEY,
};
use crate::info::TDIGEST;

/// The TDIGEST commands' ACL category (on servers with module categories, 7.2+) and INFO
/// counters.
static FAMILY: CommandFamily = CommandFamily {
    acl: c"tdigest",
    since: Since::RedisBloom(c"2.4.0"),
    counters: &TDIGEST,
};

const fn multiple(name: &'static std::ffi::CStr, kind: Kind) -> ArgDoc {
    ArgDoc {
        multiple: true,
        ..arg(name, kind)
    }
}

const VALUES: ArgDoc = multiple(c"value", Kind::Double);

/// `[COMPRESSION compression]` as RedisBloom documents it: an untokened group, its keyword
/// inside.
const COMPRESSION: ArgDoc = ArgDoc {
    optional: true,
    sub: &[
        keyword(c"compression_token", c"COMPRESSION"),
        arg(c"compression", Kind::Integer),
    ],
    ..arg(c"compression_block", Kind::Block)
};

const MERGE_ARGS: &[ArgDoc] = &[
    arg(c"destination-key", Kind::Key),
    arg(c"numkeys", Kind::Integer),
    multiple(c"source-key", Kind::Key),
    COMPRESSION,
    option(c"override", Kind::Flag, c"OVERRIDE"),
];

/// The family's commands, in COMMAND DOCS order.
pub static COMMANDS: &[&Command] = &[
    &CREATE,
    &RESET,
    &ADD,
    &MERGE,
    &MIN,
    &MAX,
    &QUANTILE,
    &CDF,
    &RANK,
    &REVRANK,
    &BYRANK,
    &BYREVRANK,
    &TRIMMED_MEAN,
    &INFO,
];

pub static CREATE: Command = Command {
    name: c"tdigest.create",
    callback: callback!(CREATE => write::create),
    flags: c"write deny-oom",
    summary: c"Allocates an empty t-digest sketch",
    complexity: c"O(1)",
    arity: Arity::Between(2, 4),
    access: Access::Insert,
    args: &[KEY, COMPRESSION],
    acl: Acl::WriteFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static RESET: Command = Command {
    name: c"tdigest.reset",
    callback: callback!(RESET => write::reset),
    flags: c"write deny-oom",
    summary: c"Empties a t-digest sketch, keeping its compression",
    complexity: c"O(1)",
    arity: Arity::Exactly(2),
    access: Access::Update,
    args: &[KEY],
    acl: Acl::WriteFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static ADD: Command = Command {
    name: c"tdigest.add",
    callback: callback!(ADD => write::add),
    flags: c"write deny-oom",
    summary: c"Adds one or more observations to a t-digest sketch",
    complexity: c"O(N), N values",
    arity: Arity::AtLeast(3),
    access: Access::Insert,
    args: &[KEY, VALUES],
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static MERGE: Command = Command {
    name: c"tdigest.merge",
    callback: callback!(MERGE => write::merge),
    flags: c"write deny-oom",
    summary: c"Merges t-digest sketches into a destination",
    complexity: c"O(N·C), N sources of capacity C",
    arity: Arity::AtLeast(4),
    access: Access::MergeInto,
    args: MERGE_ARGS,
    acl: Acl::Write,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static MIN: Command = Command {
    name: c"tdigest.min",
    callback: callback!(MIN => query::min),
    flags: c"readonly",
    summary: c"Returns the smallest observation",
    complexity: c"O(1)",
    arity: Arity::Exactly(2),
    access: Access::ReadData,
    args: &[KEY],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static MAX: Command = Command {
    name: c"tdigest.max",
    callback: callback!(MAX => query::max),
    flags: c"readonly",
    summary: c"Returns the largest observation",
    complexity: c"O(1)",
    arity: Arity::Exactly(2),
    access: Access::ReadData,
    args: &[KEY],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static QUANTILE: Command = Command {
    name: c"tdigest.quantile",
    callback: callback!(QUANTILE => query::quantile),
    flags: c"readonly",
    summary: c"Returns the estimated values at quantiles",
    complexity: c"O(N + C), N quantiles, capacity C",
    arity: Arity::AtLeast(3),
    access: Access::ReadData,
    args: &[KEY, multiple(c"quantile", Kind::Double)],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static CDF: Command = Command {
    name: c"tdigest.cdf",
    callback: callback!(CDF => query::cdf),
    flags: c"readonly",
    summary: c"Returns the estimated fraction of observations at or below values",
    complexity: c"O(N·C), N values, capacity C",
    arity: Arity::AtLeast(3),
    access: Access::ReadData,
    args: &[KEY, VALUES],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static RANK: Command = Command {
    name: c"tdigest.rank",
    callback: callback!(RANK => query::rank),
    flags: c"readonly",
    summary: c"Returns the estimated ranks of values",
    complexity: c"O(N·C), N values, capacity C",
    arity: Arity::AtLeast(3),
    access: Access::ReadData,
    args: &[KEY, VALUES],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static REVRANK: Command = Command {
    name: c"tdigest.revrank",
    callback: callback!(REVRANK => query::revrank),
    flags: c"readonly",
    summary: c"Returns the estimated reverse ranks of values",
    complexity: c"O(N·C), N values, capacity C",
    arity: Arity::AtLeast(3),
    access: Access::ReadData,
    args: &[KEY, VALUES],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static BYRANK: Command = Command {
    name: c"tdigest.byrank",
    callback: callback!(BYRANK => query::byrank),
    flags: c"readonly",
    summary: c"Returns the estimated values at ranks",
    complexity: c"O(N·C), N ranks, capacity C",
    arity: Arity::AtLeast(3),
    access: Access::ReadData,
    args: &[KEY, multiple(c"rank", Kind::Double)],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static BYREVRANK: Command = Command {
    name: c"tdigest.byrevrank",
    callback: callback!(BYREVRANK => query::byrevrank),
    flags: c"readonly",
    summary: c"Returns the estimated values at reverse ranks",
    complexity: c"O(N·C), N ranks, capacity C",
    arity: Arity::AtLeast(3),
    access: Access::ReadData,
    args: &[KEY, multiple(c"reverse_rank", Kind::Double)],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static TRIMMED_MEAN: Command = Command {
    name: c"tdigest.trimmed_mean",
    callback: callback!(TRIMMED_MEAN => query::trimmed_mean),
    flags: c"readonly",
    summary: c"Returns the mean of the observations between two quantiles",
    complexity: c"O(C), capacity C",
    arity: Arity::Exactly(4),
    access: Access::ReadData,
    args: &[
        KEY,
        arg(c"low_cut_quantile", Kind::Double),
        arg(c"high_cut_quantile", Kind::Double),
    ],
    acl: Acl::Read,
    family: &FAMILY,
    docs: Docs::PLAIN,
};

pub static INFO: Command = Command {
    name: c"tdigest.info",
    callback: callback!(INFO => query::info),
    flags: c"readonly",
    summary: c"Returns information about a t-digest sketch",
    complexity: c"O(1)",
    arity: Arity::Exactly(2),
    access: Access::Read,
    args: &[KEY],
    acl: Acl::ReadFast,
    family: &FAMILY,
    docs: Docs::DONT_CACHE,
};
