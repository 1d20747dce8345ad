//! TOPK.RESERVE key k [width depth decay]
//!
//! RedisBloom 8's order: the argument count (3 or 6), the key (any value there: `TopK: key
//! already exists`), then k, width, depth and decay. k, width and depth are integers in
//! [1, 2^32-1] (RedisBloom cuts k to 32 bits; a k of 2^32 then crashes it), decay a number
//! in (0, 1]. The sketch's size is checked against `bf.max-filter-bytes` before anything is
//! allocated.

use rsbloom_core::error::{Error, Result};
use rsbloom_core::topk::sketch::{DEFAULT_DECAY, DEFAULT_DEPTH, DEFAULT_WIDTH};
use rsbloom_core::topk::{Params, TopK};

use crate::commands::argv::Arg;
use crate::commands::grammar;
use crate::commands::key::open_write;
use crate::commands::reply::Reply;
use crate::commands::Call;

/// A dimension: an integer in [1, 2^32-1].
fn dimension(arg: &Arg, error: Error) -> Result<u32> {
    grammar::integer(arg)
        .and_then(|v| u32::try_from(v).ok())
        .filter(|&v| v > 0)
        .ok_or(error)
}

pub fn reserve(call: &Call) -> Result<Reply> {
    let argv = call.args;
    if argv.len() != 3 && argv.len() != 6 {
        return Err(call.wrong_arity());
    }
    let key = open_write(call);
    if !key.is_empty() {
        return Err(Error::TopkKeyExists);
    }
    let k = dimension(&argv[2], Error::TopkBadK)?;
    let params = if argv.len() == 6 {
        let width = dimension(&argv[3], Error::TopkBadWidth)?;
        let depth = dimension(&argv[4], Error::TopkBadDepth)?;
        let decay = grammar::double(&argv[5])
            .filter(|&d| d > 0.0 && d <= 1.0)
            .ok_or(Error::TopkBadDecay)?;
        Params {
            k,
            width,
            depth,
            decay,
        }
    } else {
        Params {
            k,
            width: DEFAULT_WIDTH,
            depth: DEFAULT_DEPTH,
            decay: DEFAULT_DECAY,
        }
    };
    let topk = TopK::new(params, call.size_limit())?;
    key.store(topk)?;
    call.ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Ok)
}
