//! CMS.MERGE destination numkeys source [source ...] [WEIGHTS weight [weight ...]]
//!
//! RedisBloom 8's order of checks: the destination (it must exist), numkeys (an integer,
//! positive), the argument counts (`WEIGHTS`, found anywhere after numkeys in any case, must
//! follow exactly numkeys sources and be followed by numkeys weights), then per source its
//! weight, the key, its dimensions and its cell size (RedisBloom 8.12); then the sums, each
//! within the cell size's range. The destination becomes `Σ weight · source`; its own
//! counters count only if it is listed among the sources.

use rsbloom_core::cms::{CountMinSketch, Source};
use rsbloom_core::error::{Error, Result};

use super::sketch;
use crate::commands::grammar::{integer, is};
use crate::commands::key::{open_named, open_write};
use crate::commands::reply::Reply;
use crate::commands::Call;

pub fn merge(call: &Call) -> Result<Reply> {
    let args = call.args;
    let dest_key = open_write(call);
    let (width, depth, cell) = {
        let dest = sketch(&dest_key)?;
        (dest.width(), dest.depth(), dest.cell_size())
    };
    let numkeys = integer(&args[2]).ok_or(Error::CmsInvalidNumkeys)?;
    if numkeys <= 0 {
        return Err(Error::CmsNumkeysNotPositive);
    }
    let rest = &args[3..];
    let weights_at = rest.iter().position(|a| is(a, "WEIGHTS"));
    match weights_at {
        None if numkeys != rest.len() as i64 => return Err(Error::CmsWrongNumberOfKeys),
        Some(at) if at as i64 != numkeys || rest.len() as i128 != 1 + 2 * numkeys as i128 => {
            return Err(Error::CmsWrongNumberOfKeysWeights)
        }
        _ => {}
    }
    let n = numkeys as usize;
    // The source keys stay open while their sketches are read.
    let mut open = Vec::with_capacity(n);
    let mut sources = Vec::with_capacity(n);
    for (i, name) in rest[..n].iter().enumerate() {
        let weight = match weights_at {
            None => 1,
            Some(_) => integer(&rest[n + 1 + i]).ok_or(Error::CmsInvalidWeight)?,
        };
        if name.as_slice() == call.key().as_slice() {
            // The destination itself: read through it, not through a second handle.
            sources.push(Source::Destination(weight));
            continue;
        }
        let key = open_named(call, name, false);
        let source = sketch(&key)?;
        if source.width() != width || source.depth() != depth {
            return Err(Error::CmsDimensionMismatch);
        }
        if source.cell_size() != cell {
            return Err(Error::CmsCellSizeMismatch);
        }
        open.push(key);
        sources.push(Source::Other(source, weight));
    }
    let mut dest = dest_key
        .write::<CountMinSketch>()?
        .ok_or(Error::CmsKeyNotFound)?;
    dest.merge(&sources)?;
    drop(dest);
    call.ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Ok)
}
