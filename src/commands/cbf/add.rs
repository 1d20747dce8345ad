//! CBF.ADD and CBF.MADD: add items in order (each increments its counters, present or
//! not), creating the filter with `bf.cbf-*` defaults if missing. A full filter refuses a
//! new item with the full non-scaling Bloom filter's error, and MADD stops there.

use rsbloom_core::bloom::ItemHash;
use rsbloom_core::counting::CountingFilter;
use rsbloom_core::error::{Error, Result};

use super::replicate_creation;
use crate::commands::argv::Arg;
use crate::commands::key::open_write;
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;

/// Adds `argv[2..]` in order, handing each result to `each` (stopping after an error), then
/// emits the keyspace event and replicates what changed: a created filter as its header and
/// the processed items; otherwise the command as it came if every item was processed, else
/// the processed prefix, so a replica never meets the refusal.
fn add_items(call: &Call, mut each: impl FnMut(Result<bool>)) -> Result<()> {
    let key = open_write(call);
    let (mut filter, created) = match key.write::<CountingFilter>()? {
        Some(f) => (f, false),
        None => {
            let d = config::cbf_defaults();
            let new =
                CountingFilter::new(d.error_rate, d.capacity, d.counter_bits, call.size_limit())?;
            (key.store(new)?, true)
        }
    };
    let items = &call.args[2..];
    // One item (CBF.ADD) needs no heap at all.
    let (one, many): ([ItemHash; 1], Vec<ItemHash>);
    let hashes: &[ItemHash] = if let [item] = items {
        one = [filter.hash(item.as_slice())];
        &one
    } else {
        many = filter.hash_all(items.iter().map(Arg::as_slice));
        &many
    };
    let mut done = 0;
    filter.add_batch(hashes, config::batch_prefetch(), |r| {
        done += r.is_ok() as usize;
        each(r);
    });
    if created || done > 0 {
        call.notify();
    }
    let (ctx, argv) = (call.ctx, call.args);
    let end = 2 + done;
    if created {
        replicate_creation(ctx, call.key(), &filter, &argv[2..end]);
    } else if end == argv.len() {
        ctx.replicate_verbatim();
    } else if done > 0 {
        let args: Vec<&[u8]> = argv[1..end].iter().map(Arg::as_slice).collect();
        ctx.replicate("CBF.MADD", args.as_slice());
    }
    Ok(())
}

/// CBF.ADD key item: 1 if the item was not present before, 0 if it was (counted either way).
pub fn add(call: &Call) -> Result<Reply> {
    let mut reply = None;
    add_items(call, |r| reply = Some(r))?;
    reply.ok_or(Error::Internal)?.map(Reply::Bool)
}

/// CBF.MADD key item [item ...]: one answer per item, the error last if one stopped them.
pub fn madd(call: &Call) -> Result<Reply> {
    let mut added = Vec::with_capacity(call.args.len() - 2);
    let mut error = None;
    add_items(call, |r| match r {
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
