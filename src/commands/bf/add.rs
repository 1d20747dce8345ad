//! BF.ADD, BF.MADD and BF.INSERT: add items in order, creating the filter if needed.

use std::ffi::CStr;

use redis_module::Context;

use rsbloom_core::bloom::{Chain, ItemHash};
use rsbloom_core::error::{Error, Result};

use super::options::{self, Shape};
use super::{replicate_creation, store_filter, write_filter};
use crate::commands::argv::Arg;
use crate::commands::parse::{keyword, value_of};
use crate::commands::reply::Reply;
use crate::commands::{arity, notify, open_write};
use crate::config;

/// How to create a missing filter (the configured defaults, overridden by INSERT's options);
/// `None` where it must exist (INSERT NOCREATE).
type Create = config::Defaults;

/// What adding a run of items did.
struct Outcome {
    /// Items processed without error (a prefix of the input).
    done: usize,
    /// The command created the key.
    created: bool,
    /// The dataset changed: the key was created or an item was added.
    changed: bool,
}

/// Adds `argv[first_item..]` in order to the filter at `argv[1]`, creating it if missing,
/// hands each item's result to `each` (stopping after an error), then emits the keyspace
/// event `name` and replicates what changed.
fn add_items(
    ctx: &Context,
    argv: &[Arg],
    first_item: usize,
    create: Option<Create>,
    name: &'static CStr,
    mut each: impl FnMut(Result<bool>),
) -> Result<()> {
    let limit = config::max_filter_bytes();
    let key = open_write(ctx, &argv[1]);
    let (chain, created) = match write_filter(&key)? {
        Some(chain) => (chain, false),
        None => {
            let c = create.ok_or(Error::NotFound)?;
            let chain = Chain::create(c.scheme, c.error_rate, c.capacity, c.expansion, limit)?;
            (store_filter(&key, chain)?, true)
        }
    };
    let mut outcome = Outcome {
        done: 0,
        created,
        changed: created,
    };
    let items = &argv[first_item..];
    // One item (BF.ADD) needs no heap at all.
    let (one, many): ([ItemHash; 1], Vec<ItemHash>);
    let hashes: &[ItemHash] = if let [item] = items {
        one = [chain.hash(item.as_slice())];
        &one
    } else {
        many = items.iter().map(|i| chain.hash(i.as_slice())).collect();
        &many
    };
    chain.add_batch(hashes, limit, config::batch_prefetch(), |result| {
        if let Ok(added) = result {
            outcome.done += 1;
            outcome.changed |= added;
        }
        each(result);
    });
    if outcome.changed {
        notify(ctx, name, &argv[1]);
    }
    replicate(ctx, argv, first_item, chain, &outcome, name);
    Ok(())
}

/// Sends the change to replicas and the AOF. A created filter goes with its parameters
/// spelled out (a replica's defaults may differ); otherwise the command as it came if every
/// item was processed, else only the processed prefix, so a replica never meets the error
/// (its limit may differ) and ends in exactly the primary's state.
fn replicate(
    ctx: &Context,
    argv: &[Arg],
    first_item: usize,
    chain: &Chain,
    outcome: &Outcome,
    name: &CStr,
) {
    if !outcome.changed || outcome.done == 0 {
        return;
    }
    let end = first_item + outcome.done;
    if outcome.created {
        replicate_creation(ctx, &argv[1], chain, &argv[first_item..end]);
    } else if end == argv.len() {
        ctx.replicate_verbatim();
    } else {
        let args: Vec<&[u8]> = argv[1..end].iter().map(Arg::as_slice).collect();
        ctx.replicate(&name.to_string_lossy(), args.as_slice());
    }
}

fn to_reply(result: Result<bool>) -> Reply {
    match result {
        Ok(added) => Reply::Bool(added),
        Err(e) => Reply::Error(e),
    }
}

/// Adds items and replies one answer per processed item, the error last if one stopped them.
fn add_all(
    ctx: &Context,
    argv: &[Arg],
    first_item: usize,
    create: Option<Create>,
    name: &'static CStr,
) -> Result<Reply> {
    let mut added = Vec::with_capacity(argv.len() - first_item);
    let mut error = None;
    add_items(ctx, argv, first_item, create, name, |r| match r {
        Ok(a) => added.push(a),
        Err(e) => error = Some(e),
    })?;
    Ok(match error {
        None => Reply::Bools(added),
        Some(e) => {
            let mut replies: Vec<Reply> = added.into_iter().map(Reply::Bool).collect();
            replies.push(Reply::Error(e));
            Reply::Array(replies)
        }
    })
}

/// BF.ADD key item
pub fn add(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 3, 3, "bf.add")?;
    let mut reply = None;
    add_items(ctx, argv, 2, Some(config::defaults()), c"bf.add", |r| {
        reply = Some(to_reply(r))
    })?;
    reply.ok_or(Error::Internal)
}

/// BF.MADD key item [item ...]
pub fn madd(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 3, usize::MAX, "bf.madd")?;
    add_all(ctx, argv, 2, Some(config::defaults()), c"bf.madd")
}

/// BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION n] [NOCREATE] [NONSCALING] ITEMS item ...
pub fn insert(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 4, usize::MAX, "bf.insert")?;
    let mut create = config::defaults();
    let mut shape = Shape::default();
    let mut nocreate = false;
    let mut first_item = None;
    let mut i = 2;
    while i < argv.len() {
        match keyword(&argv[i]).as_str() {
            "CAPACITY" => {
                create.capacity = options::capacity(value_of(argv, i, "CAPACITY")?)?;
                i += 1;
            }
            "ERROR" => {
                create.error_rate = options::error_rate(value_of(argv, i, "ERROR")?)?;
                i += 1;
            }
            "EXPANSION" => {
                shape.expansion = Some(options::expansion(value_of(argv, i, "EXPANSION")?)?);
                i += 1;
            }
            "NOCREATE" => nocreate = true,
            "NONSCALING" => shape.nonscaling = true,
            "ITEMS" => {
                first_item = Some(i + 1);
                break;
            }
            _ => return Err(Error::UnknownOption(argv[i].to_string_lossy())),
        }
        i += 1;
    }
    let first_item = first_item
        .filter(|&f| f < argv.len())
        .ok_or(Error::WrongArity("bf.insert"))?;
    create.expansion = shape.expansion(create.expansion)?;
    let create = (!nocreate).then_some(create);
    add_all(ctx, argv, first_item, create, c"bf.insert")
}
