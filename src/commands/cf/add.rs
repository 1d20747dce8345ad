//! CF.ADD, CF.ADDNX, CF.INSERT and CF.INSERTNX: add items, creating the filter if needed.
//!
//! As in RedisBloom, a command is refused with `Maximum expansions reached` when the filter
//! already has `bf.cf-max-expansions` sub-filters; unlike RedisBloom, growth stays within
//! that bound item by item, so one CF.INSERT cannot grow past it. An item that finds no room
//! leaves the filter as it was, and CF.INSERT goes on with the next one.

use std::ffi::CStr;

use redis_module::key::RedisKeyWritable;
use redis_module::Context;

use rsbloom_core::cuckoo::batch::hash_all;
use rsbloom_core::cuckoo::CuckooFilter;
use rsbloom_core::error::{Error, Result};

use super::{replicate_creation, store_filter, strict_int, write_filter};
use crate::commands::argv::Arg;
use crate::commands::parse::keyword;
use crate::commands::reply::{resp3, Reply};
use crate::commands::{arity, notify, open_write};
use crate::config;

/// The smallest CAPACITY CF.INSERT takes (twice RedisBloom's default bucket size).
const MIN_INSERT_CAPACITY: i64 = 4;

/// The filter at the key, created with the configured parameters (and `capacity`, if
/// given) when missing and `create` allows it; also whether it was created.
fn open_or_create<'a>(
    key: &RedisKeyWritable,
    create: bool,
    capacity: Option<u64>,
) -> Result<(&'a mut CuckooFilter, bool)> {
    if let Some(filter) = write_filter(key)? {
        return Ok((filter, false));
    }
    if !create {
        return Err(Error::NotFound);
    }
    let d = config::cf_defaults();
    let filter = CuckooFilter::new(
        capacity.unwrap_or(d.capacity),
        d.bucket_size,
        d.max_iterations,
        d.expansion,
        config::max_filter_bytes(),
    )?;
    Ok((store_filter(key, filter)?, true))
}

/// CF.ADD and CF.ADDNX.
fn add_one(
    ctx: &Context,
    argv: &[Arg],
    nx: bool,
    name: &'static str,
    event: &'static CStr,
) -> Result<Reply> {
    arity(argv, 3, 3, name)?;
    let limits = config::cf_limits();
    let key = open_write(ctx, &argv[1]);
    let (filter, created) = open_or_create(&key, true, None)?;
    let item = argv[2].as_slice();
    let result = filter
        .check_expansions(limits.max_expansions)
        .and_then(|()| match nx {
            true => filter.add_nx(item, &limits),
            false => filter.add(item, &limits).map(|()| true),
        });
    let added = matches!(result, Ok(true));
    if created {
        replicate_creation(ctx, &argv[1], filter);
        if added {
            ctx.replicate("CF.ADD", &[argv[1].as_slice(), item][..]);
        }
    } else if added {
        ctx.replicate_verbatim();
    }
    if created || added {
        notify(ctx, event, &argv[1]);
    }
    result.map(Reply::Bool)
}

/// CF.ADD key item
pub fn add(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    add_one(ctx, argv, false, "cf.add", c"cf.add")
}

/// CF.ADDNX key item
pub fn addnx(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    add_one(ctx, argv, true, "cf.addnx", c"cf.addnx")
}

/// CF.INSERT and CF.INSERTNX: `key [CAPACITY c] [NOCREATE] ITEMS item...`, whole keywords
/// in option positions only (RedisBloom reads options by their first letter).
fn insert_all(
    ctx: &Context,
    argv: &[Arg],
    nx: bool,
    name: &'static str,
    event: &'static CStr,
) -> Result<Reply> {
    arity(argv, 4, usize::MAX, name)?;
    let (mut capacity, mut nocreate, mut first_item) = (None, false, None);
    let mut i = 2;
    while i < argv.len() {
        match keyword(&argv[i]).as_str() {
            "CAPACITY" => {
                let value = argv.get(i + 1).ok_or(Error::WrongArity(name))?;
                let c = strict_int(value).ok_or(Error::CfBadCapacity)?;
                if c < MIN_INSERT_CAPACITY {
                    return Err(Error::CfCapacityTooSmall);
                }
                capacity = Some(c as u64);
                i += 2;
            }
            "NOCREATE" => {
                nocreate = true;
                i += 1;
            }
            "ITEMS" => {
                first_item = Some(i + 1);
                break;
            }
            _ => return Err(Error::UnknownOption(argv[i].to_string_lossy())),
        }
    }
    let first_item = first_item
        .filter(|&f| f < argv.len())
        .ok_or(Error::WrongArity(name))?;
    let items = &argv[first_item..];

    let limits = config::cf_limits();
    let key = open_write(ctx, &argv[1]);
    let (filter, created) = open_or_create(&key, !nocreate, capacity)?;
    let checked = filter.check_expansions(limits.max_expansions);
    let mut results = Vec::with_capacity(items.len());
    if checked.is_ok() {
        let hashes = hash_all(items.iter().map(Arg::as_slice));
        filter.add_batch(&hashes, nx, &limits, config::batch_prefetch(), |r| {
            results.push(r)
        });
    }
    let added = |r: &Result<bool>| matches!(r, Ok(true));
    let n_added = results.iter().filter(|r| added(r)).count();
    if created {
        replicate_creation(ctx, &argv[1], filter);
    }
    if n_added > 0 {
        if !created && n_added == items.len() {
            ctx.replicate_verbatim();
        } else {
            // Only what was added: a replica ends in exactly this state and meets no
            // refusal of its own.
            let mut args: Vec<&[u8]> = Vec::with_capacity(3 + n_added);
            args.extend([argv[1].as_slice(), b"NOCREATE", b"ITEMS"]);
            args.extend(
                items
                    .iter()
                    .zip(&results)
                    .filter(|(_, r)| added(r))
                    .map(|(item, _)| item.as_slice()),
            );
            ctx.replicate("CF.INSERT", args.as_slice());
        }
    }
    if created || n_added > 0 {
        notify(ctx, event, &argv[1]);
    }
    checked?;
    let resp3 = resp3(ctx);
    let replies = results
        .into_iter()
        .map(|r| match (nx, r) {
            // CF.INSERTNX answers integers in both protocols.
            (true, Ok(added)) => Reply::Int(added as i64),
            (true, Err(_)) => Reply::Int(-1),
            (false, Ok(_)) => Reply::Bool(true),
            (false, Err(_)) if resp3 => Reply::Bool(false),
            (false, Err(_)) => Reply::Int(-1),
        })
        .collect();
    Ok(Reply::Array(replies))
}

/// CF.INSERT key [CAPACITY c] [NOCREATE] ITEMS item [item ...]
pub fn insert(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    insert_all(ctx, argv, false, "cf.insert", c"cf.insert")
}

/// CF.INSERTNX key [CAPACITY c] [NOCREATE] ITEMS item [item ...]
pub fn insertnx(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    insert_all(ctx, argv, true, "cf.insertnx", c"cf.insertnx")
}
