//! CMS.INCRBY key item increment [item increment ...] and CMS.QUERY key item [item ...]

use rsbloom_core::cms::CountMinSketch;
use rsbloom_core::error::{Error, Result};

use super::sketch;
use crate::commands::argv::Arg;
use crate::commands::grammar::integer;
use crate::commands::key::{open_read, open_write};
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;

/// How many pairs CMS.INCRBY reads onto the stack (more go to the heap).
const ON_STACK: usize = 16;

/// CMS.INCRBY: every increment is read (an integer, negative to decrement, not -2^63) before
/// any is applied; then each is applied or refused on its own (RedisBloom 8.12): the item's
/// element is its estimate after the change, or `CMS: INCRBY overflow` / `underflow` when a
/// counter would leave its cell's range or the total `0..=2^63 - 1`, and that item's change
/// is not made. The command is replicated whole: a replica refuses the same items.
pub fn incrby(call: &Call) -> Result<Reply> {
    let args = call.args;
    if args.len() % 2 == 1 {
        return Err(call.wrong_arity());
    }
    let key = open_write(call);
    let mut cms = key
        .write::<CountMinSketch>()?
        .ok_or(Error::CmsKeyNotFound)?;
    #[inline(always)]
    fn read(pair: &[Arg]) -> Result<(&[u8], i64)> {
        match integer(&pair[1]) {
            Some(i64::MIN) => Err(Error::CmsInvalidIncrement),
            Some(value) => Ok((pair[0].as_slice(), value)),
            None => Err(Error::CmsCannotParseNumber),
        }
    }
    // Every pair is read before any is applied; a few on the stack, more on the heap.
    let (mut stack, heap);
    let pairs: &[(&[u8], i64)] = if args.len() - 2 <= 2 * ON_STACK {
        stack = [(&[][..], 0i64); ON_STACK];
        for (slot, pair) in stack.iter_mut().zip(args[2..].chunks_exact(2)) {
            *slot = read(pair)?;
        }
        &stack[..(args.len() - 2) / 2]
    } else {
        heap = {
            let mut v = Vec::with_capacity((args.len() - 2) / 2);
            for pair in args[2..].chunks_exact(2) {
                v.push(read(pair)?);
            }
            v
        };
        &heap
    };
    let mut replies = Vec::with_capacity(pairs.len());
    let mut each = |result: Result<u64>| {
        replies.push(match result {
            Ok(estimate) => Reply::Int(estimate as i64),
            Err(e) => Reply::Error(e),
        })
    };
    match pairs {
        &[(item, value)] => each(cms.incr_by(item, value)),
        _ => cms.incr_by_batch(pairs, config::batch_prefetch(), each),
    }
    drop(cms);
    call.ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Array(replies))
}

/// CMS.QUERY: each item's estimate.
pub fn query(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let cms = sketch(&key)?;
    Ok(Reply::Counts(match &call.args[2..] {
        [item] => vec![cms.query(item.as_slice())],
        items => cms.query_batch(items.iter().map(Arg::as_slice), config::batch_prefetch()),
    }))
}
