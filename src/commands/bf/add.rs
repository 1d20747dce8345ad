//! BF.ADD, BF.MADD and BF.INSERT: add items in order, creating the filter if needed.

use rsbloom_core::bloom::{Chain, ItemHash};
use rsbloom_core::error::{Error, Result};

use super::dialect::{insert_creates, BloomKey, Dialect};
use super::options::{self, Creation};
use super::{replicate_creation, valkey};
use crate::commands::argv::Arg;
use crate::commands::reply::Reply;
use crate::commands::shard::{self, PlaceWords};
use crate::commands::Call;
use crate::config;

/// How to create a missing filter: with the configured defaults (read only then: most adds
/// find their filter), with INSERT's options over them, or not at all (INSERT NOCREATE).
enum Create {
    Defaults,
    With(Creation),
    Never,
}

/// What adding a run of items did.
struct Outcome {
    /// Items processed without error (a prefix of the input).
    done: usize,
    /// The command created the key.
    created: bool,
    /// The dataset changed: the key was created or an item was added.
    changed: bool,
}

/// Adds `argv[first_item..]` in order to the filter at the key, creating it if missing,
/// hands each item's result to `each` (stopping after an error), then emits the command's
/// keyspace event and replicates what changed.
fn add_items(
    call: &Call,
    key: &BloomKey,
    first_item: usize,
    create: Create,
    mut each: impl FnMut(Result<bool>),
) -> Result<()> {
    // The server's context flags, which decide the limit, cost more than a steady add: asked
    // for only when the filter is created or grows.
    let limit = || call.size_limit();
    let items = &call.args[first_item..];
    // A shard refuses the whole command before anything is read or written (a new one
    // before it is stored).
    let (mut chain, created) = match key.write::<Chain>()? {
        Some(chain) => {
            if let Create::With(new) = &create {
                shard::check_same(chain.shard(), new.shard.as_ref())?;
            }
            shard::check_items(chain.shard(), items)?;
            (chain, false)
        }
        None => {
            let new = match create {
                Create::Defaults => Creation::defaults(),
                Create::With(new) => new,
                Create::Never => return Err(Error::NotFound),
            };
            let chain = new.create(limit())?;
            shard::check_items(chain.shard(), items)?;
            (key.store(chain)?, true)
        }
    };
    let mut outcome = Outcome {
        done: 0,
        created,
        changed: created,
    };
    // One item (BF.ADD) needs no heap at all.
    let (one, many): ([ItemHash; 1], Vec<ItemHash>);
    let hashes: &[ItemHash] = if let [item] = items {
        one = [chain.hash(item.as_slice())];
        &one
    } else {
        many = chain.hash_all(items.iter().map(Arg::as_slice));
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
        call.notify();
    }
    replicate(call, first_item, &chain, &outcome);
    Ok(())
}

/// Sends the change to replicas and the AOF. A created filter goes with its parameters
/// spelled out (a replica's defaults may differ); otherwise the command as it came if every
/// item was processed, else only the processed prefix, so a replica never meets the error
/// (its limit may differ) and ends in exactly the primary's state.
fn replicate(call: &Call, first_item: usize, chain: &Chain, outcome: &Outcome) {
    if !outcome.changed || outcome.done == 0 {
        return;
    }
    let (ctx, argv) = (call.ctx, call.args);
    let end = first_item + outcome.done;
    if outcome.created {
        replicate_creation(ctx, call.key(), chain, &argv[first_item..end]);
    } else if end == argv.len() {
        ctx.replicate_verbatim();
    } else {
        let args: Vec<&[u8]> = argv[1..end].iter().map(Arg::as_slice).collect();
        ctx.replicate(call.command.name_str(), args.as_slice());
    }
}

fn to_reply(result: Result<bool>) -> Reply {
    match result {
        Ok(added) => Reply::Bool(added),
        Err(e) => Reply::Error(e),
    }
}

/// Adds items and replies one answer per processed item, the error last if one stopped them.
fn add_all(call: &Call, key: &BloomKey, first_item: usize, create: Create) -> Result<Reply> {
    let mut added = Vec::with_capacity(call.args.len() - first_item);
    let mut error = None;
    add_items(call, key, first_item, create, |r| match r {
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
pub fn add(call: &Call) -> Result<Reply> {
    let key = BloomKey::open_write(call)?;
    match key.dialect() {
        Dialect::Valkey => valkey::add(call, &key),
        Dialect::Own => {
            let mut reply = None;
            add_items(call, &key, 2, Create::Defaults, |r| {
                reply = Some(to_reply(r))
            })?;
            reply.ok_or(Error::Internal)
        }
    }
}

/// BF.MADD key item [item ...]
pub fn madd(call: &Call) -> Result<Reply> {
    let key = BloomKey::open_write(call)?;
    match key.dialect() {
        Dialect::Valkey => valkey::madd(call, &key),
        Dialect::Own => add_all(call, &key, 2, Create::Defaults),
    }
}

/// BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION n] [NOCREATE] [NONSCALING]
/// [SHARD name index count] [KEYED | UNKEYED] [BLOCKED | UNBLOCKED] ITEMS item ...
///
/// RedisBloom 8's loop: options by their letters, each value checked as it comes, the last
/// of a repeated option kept; NONSCALING with an EXPANSION is non-scaling (no conflict, as
/// in RedisBloom), EXPANSION 0 too. SHARD (rsbloom's) makes a new filter a shard; the key's
/// slot must be in the shard's, and an existing filter must have that very place. KEYED and
/// BLOCKED (rsbloom's) apply to a new filter only, like the other creation options, and so do
/// UNKEYED and UNBLOCKED (a plain filter whatever `bf.keyed-default` and
/// `bf.blocked-default` say).
pub fn insert(call: &Call) -> Result<Reply> {
    let key = BloomKey::open_write(call)?;
    match key.creating(|configured| insert_creates(configured, &call.args[2..])) {
        Dialect::Valkey => valkey::insert(call, &key),
        Dialect::Own => insert_own(call, &key),
    }
}

/// BF.INSERT in rsbloom's grammar.
fn insert_own(call: &Call, key: &BloomKey) -> Result<Reply> {
    // Under valkey-bloom's rows a key alone reaches here (see `valkey_rows`): rsbloom's
    // grammar still needs `ITEMS item`.
    if !call.command.arity.allows(call.args.len()) {
        return Err(call.wrong_arity());
    }
    let mut new = Creation::defaults();
    let mut nocreate = false;
    let mut place = PlaceWords::default();
    let first_item = options::INSERT.run(
        call.args,
        2,
        || call.wrong_arity(),
        |name, values| {
            let value = || values.first().ok_or(Error::Internal);
            match name {
                "ERROR" => new.error_rate = options::insert_error_rate(value()?)?,
                "EXPANSION" => new.expansion = options::insert_expansion(value()?)?,
                "CAPACITY" => new.capacity = options::insert_capacity(value()?)?,
                "NOCREATE" => nocreate = true,
                _ if place.take(name, values) => {}
                "KEYED" => new.ask_keyed(),
                "BLOCKED" => new.ask_blocked(),
                "UNKEYED" => new.ask_unkeyed(),
                "UNBLOCKED" => new.ask_unblocked(),
                _ => new.nonscaling = true,
            }
            Ok(())
        },
    )?;
    new.nonscaling |= new.expansion == 0;
    new.shard = place.place(call.key())?;
    let create = match nocreate {
        true => Create::Never,
        false => Create::With(new),
    };
    add_all(call, key, first_item, create)
}
