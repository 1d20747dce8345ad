//! APBF.ADD, APBF.MADD and APBF.INSERTAT: add items in order at one moment, creating a
//! missing key (ADD / MADD) as a COUNT window with the `bf.apbf-*` defaults.

use rsbloom_core::bloom::ItemHash;
use rsbloom_core::error::{Error, Result};
use rsbloom_core::window::{Window, WindowFilter};

use super::{now_ms, replicate_creation, replicate_insertat};
use crate::commands::argv::Arg;
use crate::commands::grammar;
use crate::commands::key::{open_write, Key, Writing};
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;
use crate::origin;

/// Adds `items` at `at` (the server's clock if `None`) in order, creating the filter if
/// `create`, up to the first one refused (a TIME window that cannot grow for its burst);
/// emits the keyspace event and replicates what changed ([`replicate_adds`]).
fn add_items(call: &Call, at: Option<u64>, items: &[Arg], create: bool) -> Result<Added> {
    let key = open_write(call);
    // None for the server's own data (the primary's stream, the AOF): a replica takes every
    // add its primary took, whatever the two limits are. Asked for only when a burst grows
    // the window (the server's context flags cost more than a steady add's other work).
    let limit = || call.size_limit();
    let (mut filter, created) = match key.write::<WindowFilter>()? {
        Some(f) => (f, false),
        None if create => (create_count(call, &key, call.size_limit())?, true),
        None => return Err(Error::NotFound),
    };
    let timed = filter.timed();
    let before = filter.clock_ms();
    let now = match at {
        Some(ms) => ms,
        None if timed => moment(call, before),
        // A COUNT window's adds happen at moment 0 whatever the time: no clock to read.
        None => 0,
    };
    // One item (APBF.ADD) needs no heap.
    let added = if let [item] = items {
        let h = filter.hash(item.as_slice());
        Added::One(filter.add_hash(h, now, limit))
    } else {
        let hashes: Vec<ItemHash> = filter.hash_all(items.iter().map(Arg::as_slice));
        let (added, refused) = filter.add_batch(&hashes, now, config::batch_prefetch(), limit);
        Added::Many(added, refused)
    };
    let done = added.count();
    if done > 0 {
        call.notify();
    }
    // The window's clock stays where it was: the adds happened at it.
    let kept_clock = at.is_some() || now <= before;
    replicate_adds(
        call,
        &filter,
        created,
        kept_clock,
        &items[..done],
        items.len(),
    );
    Ok(added)
}

/// The moment an APBF.ADD / MADD on a TIME window happens at: the server's clock, except
/// when the command replays the primary's (its stream, the AOF) and that clock has gone past
/// the window's. The primary sends such an add as it came only when it did not move the
/// window's clock ([`replicate_adds`]), so the window's clock is the primary's moment; the
/// server's own clock is later by however long the add took to arrive.
///
/// The context's flags are asked for only when the clock has moved on: a burst's adds within
/// one millisecond never pay for them.
fn moment(call: &Call, window_clock: u64) -> u64 {
    let now = now_ms();
    if now > window_clock && origin::replays(call.ctx) {
        window_clock
    } else {
        now
    }
}

/// Replicates the adds of `added` (the items taken, of `asked` sent): nothing if none was
/// taken; a creation as its header, then the items as `APBF.MADD`; a COUNT window's adds
/// (whose answers do not depend on time, and which never refuses) as they came.
///
/// A TIME window's adds go as they came when every item was taken and the window's clock
/// kept (`kept_clock`: an APBF.INSERTAT, whose moment is in its arguments, or an ADD / MADD
/// at the window's clock, as a burst within one millisecond): a replica or a replay, whose
/// window holds the same clock, takes them at that clock ([`moment`]). Otherwise (the clock
/// moved, or an item was refused) as `APBF.INSERTAT key <ms> items...` with the items taken
/// and the moment pinned: a replica never meets the refusal (its limit may differ).
fn replicate_adds(
    call: &Call,
    filter: &WindowFilter,
    created: bool,
    kept_clock: bool,
    added: &[Arg],
    asked: usize,
) {
    if filter.timed() {
        if added.len() == asked && kept_clock {
            call.ctx.replicate_verbatim();
        } else if !added.is_empty() {
            replicate_insertat(call.ctx, call.key(), filter.clock_ms(), added);
        }
    } else if created {
        let mut args: Vec<&[u8]> = vec![call.key().as_slice()];
        args.extend(added.iter().map(Arg::as_slice));
        call.ctx.replicate("APBF.MADD", args.as_slice());
    } else {
        call.ctx.replicate_verbatim();
    }
}

/// Creates the missing key as a COUNT window with the `bf.apbf-*` defaults, and replicates
/// the creation.
#[cold]
fn create_count<'a>(call: &Call, key: &Key, limit: u64) -> Result<Writing<'a, WindowFilter>> {
    let (error_rate, capacity) = config::apbf_defaults();
    let new = WindowFilter::new(Window::Count, error_rate, capacity, limit)?;
    let filter = key.store(new)?;
    replicate_creation(call.ctx, call.key(), &filter);
    Ok(filter)
}

/// Whether each item was new to the window, up to a refusal.
enum Added {
    One(Result<bool>),
    /// The answers of the items added, and the refusal that stopped the others.
    Many(Vec<bool>, Option<Error>),
}

impl Added {
    /// Items added.
    fn count(&self) -> usize {
        match self {
            Added::One(a) => a.is_ok() as usize,
            Added::Many(a, _) => a.len(),
        }
    }

    /// One answer per item added, as an array (MADD, INSERTAT), the refusal last if one
    /// stopped them (as BF.MADD answers a filter that cannot grow).
    fn array(self) -> Reply {
        match self {
            Added::One(Ok(a)) => Reply::Bools(vec![a]),
            Added::One(Err(e)) => Reply::Array(vec![Reply::Error(e)]),
            Added::Many(a, None) => Reply::Bools(a),
            Added::Many(a, Some(e)) => {
                let mut replies: Vec<Reply> = a.into_iter().map(Reply::Bool).collect();
                replies.push(Reply::Error(e));
                Reply::Array(replies)
            }
        }
    }
}

/// APBF.ADD key item: 1 if the item was not in the window before, 0 if it was (added
/// either way, so its age starts again).
pub fn add(call: &Call) -> Result<Reply> {
    match add_items(call, None, &call.args[2..], true)? {
        Added::One(a) => Ok(Reply::Bool(a?)),
        Added::Many(..) => Err(Error::Internal),
    }
}

/// APBF.MADD key item [item ...]: one answer per item.
pub fn madd(call: &Call) -> Result<Reply> {
    Ok(add_items(call, None, &call.args[2..], true)?.array())
}

/// APBF.INSERTAT key ms item [item ...]: the items added at `ms` (milliseconds since the
/// epoch; a time earlier than the filter's latest is taken as the latest). The form adds
/// of TIME windows are replicated in; the key must exist.
pub fn insertat(call: &Call) -> Result<Reply> {
    let ms = grammar::integer(&call.args[2])
        .filter(|&ms| ms >= 0)
        .ok_or(Error::ApbfBadTime)? as u64;
    Ok(add_items(call, Some(ms), &call.args[3..], false)?.array())
}
