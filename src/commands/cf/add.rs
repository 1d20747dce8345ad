//! CF.ADD, CF.ADDNX, CF.INSERT and CF.INSERTNX: add items, creating the filter if needed.
//!
//! As in RedisBloom, a command is refused with `Maximum expansions reached` when the filter
//! already has `bf.cf-max-expansions` sub-filters; unlike RedisBloom, growth stays within
//! that bound item by item, so one CF.INSERT cannot grow past it. An item that finds no room
//! leaves the filter as it was, and CF.INSERT goes on with the next one.

use rsbloom_core::cuckoo::batch::hash_all;
use rsbloom_core::cuckoo::CuckooFilter;
use rsbloom_core::error::{Error, Result};
use rsbloom_core::memory::limit::GrowthLimit;
use rsbloom_core::shard::ShardPlace;

use super::{options, replicate_creation};
use crate::commands::argv::Arg;
use crate::commands::key::{open_write, Key, Writing};
use crate::commands::reply::{resp3, Reply};
use crate::commands::shard::{self, PlaceWords};
use crate::commands::Call;
use crate::config;
use crate::datatype::Family;

/// How a missing filter is made: whether at all, its capacity if given, its place if a
/// shard.
struct Create<'p> {
    allowed: bool,
    capacity: Option<u64>,
    shard: Option<&'p ShardPlace>,
}

/// The filter at the key, created with the configured parameters (and `create`'s) when
/// missing and allowed; also whether it was created. A shard refuses `items` when one is
/// another shard's, before anything is read or written (a new one before it is stored).
fn open_or_create<'a>(
    key: &Key,
    limit: impl GrowthLimit,
    create: Create,
    items: &[Arg],
) -> Result<(Writing<'a, CuckooFilter>, bool)> {
    if let Some(filter) = key.write::<CuckooFilter>()? {
        shard::check_same(filter.shard(), create.shard)?;
        shard::check_items(filter.shard(), items)?;
        return Ok((filter, false));
    }
    let Create {
        allowed: create,
        capacity,
        shard: place,
    } = create;
    if !create {
        return Err(Error::NotFound);
    }
    let d = config::cf_defaults();
    let filter = CuckooFilter::new(
        capacity.unwrap_or(d.capacity),
        d.bucket_size,
        d.max_iterations,
        d.expansion,
        limit.limit(),
    )?;
    let filter = match place {
        None => filter,
        Some(place) => filter.with_shard(place.clone()),
    };
    shard::check_items(filter.shard(), items)?;
    Ok((key.store(filter)?, true))
}

/// CF.ADD and CF.ADDNX.
fn add_one(call: &Call, nx: bool) -> Result<Reply> {
    let ctx = call.ctx;
    // The server's context flags, which decide the limit, cost more than a steady add: asked
    // for only when the filter is created or grows.
    let limits = config::cf_limits(|| call.size_limit());
    let key = open_write(call);
    let plain = Create {
        allowed: true,
        capacity: None,
        shard: None,
    };
    let (mut filter, created) = open_or_create(&key, limits.bytes, plain, &call.args[2..3])?;
    let item = call.args[2].as_slice();
    let result = filter
        .check_expansions(limits.max_expansions)
        .and_then(|()| match nx {
            true => filter.add_nx(item, &limits),
            false => filter.add(item, &limits).map(|()| true),
        });
    let added = matches!(result, Ok(true));
    if created {
        replicate_creation(ctx, call.key(), &filter);
        if added {
            ctx.replicate("CF.ADD", &[call.key().as_slice(), item][..]);
        }
    } else if added {
        ctx.replicate_verbatim();
    }
    if created || added {
        call.notify();
    }
    result.map(Reply::Bool)
}

/// CF.ADD key item
pub fn add(call: &Call) -> Result<Reply> {
    add_one(call, false)
}

/// CF.ADDNX key item
pub fn addnx(call: &Call) -> Result<Reply> {
    add_one(call, true)
}

/// CF.INSERT and CF.INSERTNX: `key [CAPACITY c] [NOCREATE] [SHARD name index count]
/// [SHARDID id] [SHARDSECRET hex] ITEMS item...`, options told by their first letter as RedisBloom does, but written in full.
/// SHARD (rsbloom's) makes a new filter a shard; the key's slot must be in the shard's, and
/// an existing filter must have that very place.
fn insert_all(call: &Call, nx: bool) -> Result<Reply> {
    let (ctx, argv) = (call.ctx, call.args);
    let (mut capacity, mut nocreate, mut place) = (None, false, PlaceWords::default());
    let first_item = options::INSERT.run(
        argv,
        2,
        || call.wrong_arity(),
        |name, values| {
            match (name, values) {
                ("CAPACITY", [v]) => capacity = Some(options::insert_capacity(v)?),
                ("NOCREATE", _) => nocreate = true,
                _ if place.take(name, values) => {}
                _ => return Err(Error::Internal),
            }
            Ok(())
        },
    )?;
    let items = &argv[first_item..];
    let place = place.place(call.key())?;
    let create = Create {
        allowed: !nocreate,
        capacity,
        shard: place.as_ref(),
    };

    let limits = config::cf_limits(|| call.size_limit());
    let key = open_write(call);
    let (mut filter, created) = open_or_create(&key, limits.bytes, create, items)?;
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
        replicate_creation(ctx, call.key(), &filter);
    }
    // A refused growth answers -1 in the array: the size limit's refusals are counted here.
    for e in results.iter().filter_map(|r| r.as_ref().err()) {
        CuckooFilter::counters().refused(e);
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
        call.notify();
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
pub fn insert(call: &Call) -> Result<Reply> {
    insert_all(call, false)
}

/// CF.INSERTNX key [CAPACITY c] [NOCREATE] ITEMS item [item ...]
pub fn insertnx(call: &Call) -> Result<Reply> {
    insert_all(call, true)
}
