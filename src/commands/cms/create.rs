//! CMS.INITBYDIM key width depth, CMS.INITBYPROB key error probability
//!
//! RedisBloom 8's order: the key must not exist (any type: `CMS: key already exists`), then
//! the arguments, then the dimensions' product; then rsbloom's size limit, before the
//! counters are allocated. A sketch made from probabilities is replicated as CMS.INITBYDIM
//! with the dimensions it got, so a replica never recomputes them.

use rsbloom_core::cms::{dims_from_prob, CountMinSketch};
use rsbloom_core::error::{Error, Result};

use crate::commands::grammar::{double, integer};
use crate::commands::key::open_write;
use crate::commands::reply::Reply;
use crate::commands::Call;

/// CMS.INITBYDIM key width depth
pub fn initbydim(call: &Call) -> Result<Reply> {
    create(call, |args| {
        let width = integer(&args[2])
            .filter(|&w| w >= 1)
            .ok_or(Error::CmsInvalidWidth)?;
        let depth = integer(&args[3])
            .filter(|&d| d >= 1)
            .ok_or(Error::CmsInvalidDepth)?;
        Ok((width as u64, depth as u64))
    })
}

/// CMS.INITBYPROB key error probability: width `ceil(2 / error)`, depth
/// `ceil(log10f(probability) / log10f(0.5))`.
pub fn initbyprob(call: &Call) -> Result<Reply> {
    create(call, |args| {
        let error = double(&args[2]).ok_or(Error::CmsInvalidOverestimation)?;
        // Not a number is out of range too: the core names the argument.
        let prob = double(&args[3]).unwrap_or(f64::NAN);
        dims_from_prob(error, prob)
    })
}

fn create(
    call: &Call,
    dims: impl Fn(&[crate::commands::argv::Arg]) -> Result<(u64, u64)>,
) -> Result<Reply> {
    let key = open_write(call);
    if !key.is_empty() {
        return Err(Error::CmsKeyExists);
    }
    let (width, depth) = dims(call.args)?;
    let sketch = CountMinSketch::new(width, depth, call.size_limit())?;
    key.store(sketch)?;
    let (w, d) = (width.to_string(), depth.to_string());
    let args: [&[u8]; 3] = [call.key().as_slice(), w.as_bytes(), d.as_bytes()];
    call.ctx.replicate("CMS.INITBYDIM", &args[..]);
    call.notify();
    Ok(Reply::Ok)
}
