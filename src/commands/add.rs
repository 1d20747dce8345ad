//! BF.ADD, BF.MADD and BF.INSERT: add items in order, creating the filter if needed.

use redis_module::{Context, RedisString};

use super::args::{self, Shape};
use super::reply::Reply;
use super::{arity, notify, replicate_creation, store_filter, write_filter};
use crate::config;
use crate::error::{Error, Result};
use crate::filter::{Chain, ItemHash};

/// How to create a missing filter; `None` means it must exist (INSERT NOCREATE).
struct Create {
    error_rate: f64,
    capacity: u64,
    expansion: u32,
}

fn defaults() -> Create {
    let d = config::defaults();
    Create {
        error_rate: d.error_rate,
        capacity: d.capacity,
        expansion: d.expansion,
    }
}

/// What adding a run of items did.
struct Outcome {
    /// One reply per processed item; the last may be the error that stopped the run.
    replies: Vec<Reply>,
    /// Items processed without error (a prefix of the input).
    done: usize,
    /// The command created the key.
    created: bool,
    /// The dataset changed: the key was created or an item was added.
    changed: bool,
}

/// Adds `argv[first_item..]` in order to the filter at `argv[1]`, creating it if missing,
/// and replicates what changed.
fn add_items(
    ctx: &Context,
    argv: &[RedisString],
    first_item: usize,
    create: Option<Create>,
) -> Result<Vec<Reply>> {
    let limit = config::max_filter_bytes();
    let key = ctx.open_key_writable(&argv[1]);
    let (chain, created) = match write_filter(&key)? {
        Some(chain) => (chain, false),
        None => {
            let c = create.ok_or(Error::NotFound)?;
            let chain = Chain::new(c.error_rate, c.capacity, c.expansion, limit)?;
            (store_filter(&key, chain)?, true)
        }
    };
    let items = &argv[first_item..];
    let mut outcome = Outcome {
        replies: Vec::with_capacity(items.len()),
        done: 0,
        created,
        changed: created,
    };
    let hashes: Vec<ItemHash> = items.iter().map(|i| ItemHash::of(i.as_slice())).collect();
    for result in chain.add_batch(&hashes, limit, config::batch_prefetch()) {
        match result {
            Ok(added) => {
                outcome.changed |= added;
                outcome.done += 1;
                outcome.replies.push(Reply::Bool(added));
            }
            Err(e) => outcome.replies.push(Reply::Error(e)),
        }
    }
    if outcome.changed {
        let event = argv[0].to_string_lossy().to_ascii_lowercase();
        notify(ctx, &event, &argv[1]);
    }
    replicate(ctx, argv, first_item, chain, &outcome);
    Ok(outcome.replies)
}

/// Sends the change to replicas and the AOF. A created filter goes with its parameters
/// spelled out (a replica's defaults may differ); otherwise the command as it came if every
/// item was processed, else only the processed prefix, so a replica never meets the error
/// (its limit may differ) and ends in exactly the primary's state.
fn replicate(
    ctx: &Context,
    argv: &[RedisString],
    first_item: usize,
    chain: &Chain,
    outcome: &Outcome,
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
        let args: Vec<&RedisString> = argv[1..end].iter().collect();
        let name = argv[0].to_string_lossy().to_ascii_uppercase();
        ctx.replicate(&name, args.as_slice());
    }
}

/// BF.ADD key item
pub fn add(ctx: &Context, argv: &[RedisString]) -> Result<Reply> {
    arity(argv, 3, 3, "bf.add")?;
    add_items(ctx, argv, 2, Some(defaults()))?
        .pop()
        .ok_or(Error::Internal)
}

/// BF.MADD key item [item ...]
pub fn madd(ctx: &Context, argv: &[RedisString]) -> Result<Reply> {
    arity(argv, 3, usize::MAX, "bf.madd")?;
    Ok(Reply::Array(add_items(ctx, argv, 2, Some(defaults()))?))
}

/// BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION n] [NOCREATE] [NONSCALING] ITEMS item ...
pub fn insert(ctx: &Context, argv: &[RedisString]) -> Result<Reply> {
    arity(argv, 4, usize::MAX, "bf.insert")?;
    let mut create = defaults();
    let mut shape = Shape::default();
    let mut nocreate = false;
    let mut first_item = None;
    let mut i = 2;
    while i < argv.len() {
        match args::keyword(&argv[i]).as_str() {
            "CAPACITY" => {
                create.capacity = args::capacity(args::value_of(argv, i, "CAPACITY")?)?;
                i += 1;
            }
            "ERROR" => {
                create.error_rate = args::error_rate(args::value_of(argv, i, "ERROR")?)?;
                i += 1;
            }
            "EXPANSION" => {
                shape.expansion = Some(args::expansion(args::value_of(argv, i, "EXPANSION")?)?);
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
    Ok(Reply::Array(add_items(ctx, argv, first_item, create)?))
}
