//! CMS.INITBYDIM key width depth [CELL_SIZE n], CMS.INITBYPROB key error probability
//! [CELL_SIZE n]
//!
//! RedisBloom 8.12's order: the argument count (4 or 6), the key must not exist (any type:
//! `CMS: key already exists`), then the dimensions and their product, then `CELL_SIZE` (the
//! word, then 1, 2, 4 or 8); then rsbloom's size limit, before the counters are allocated. A
//! sketch made from probabilities is replicated as CMS.INITBYDIM with the dimensions it got,
//! so a replica never recomputes them.

use rsbloom_core::cms::sketch::check_product;
use rsbloom_core::cms::{dims_from_prob, CellSize, CountMinSketch};
use rsbloom_core::error::{Error, Result};

use crate::commands::argv::Arg;
use crate::commands::grammar::{double, integer, is};
use crate::commands::key::open_write;
use crate::commands::reply::Reply;
use crate::commands::Call;

/// CMS.INITBYDIM key width depth [CELL_SIZE n]
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

/// CMS.INITBYPROB key error probability [CELL_SIZE n]: width `ceil(2 / error)`, depth
/// `ceil(log10f(probability) / log10f(0.5))`.
pub fn initbyprob(call: &Call) -> Result<Reply> {
    create(call, |args| {
        let error = double(&args[2]).ok_or(Error::CmsInvalidOverestimation)?;
        // Not a number is out of range too: the core names the argument.
        let prob = double(&args[3]).unwrap_or(f64::NAN);
        dims_from_prob(error, prob)
    })
}

/// `CELL_SIZE n` after the fixed arguments, if given.
fn cell_size(option: &[Arg]) -> Result<CellSize> {
    match option {
        [] => Ok(CellSize::DEFAULT),
        [word, value] if is(word, "CELL_SIZE") => CellSize::parse(integer(value)),
        _ => Err(Error::CmsUnknownArgument),
    }
}

fn create(call: &Call, dims: impl Fn(&[Arg]) -> Result<(u64, u64)>) -> Result<Reply> {
    if call.args.len() != 4 && call.args.len() != 6 {
        return Err(call.wrong_arity());
    }
    let key = open_write(call);
    if !key.is_empty() {
        return Err(Error::CmsKeyExists);
    }
    let (width, depth) = dims(call.args)?;
    check_product(width, depth)?;
    let cell = cell_size(&call.args[4..])?;
    let sketch = CountMinSketch::with_cell_size(width, depth, cell, call.size_limit())?;
    key.store(sketch)?;
    let (w, d, c) = (
        width.to_string(),
        depth.to_string(),
        cell.bytes().to_string(),
    );
    let mut args: Vec<&[u8]> = vec![call.key().as_slice(), w.as_bytes(), d.as_bytes()];
    if cell != CellSize::DEFAULT {
        args.extend([b"CELL_SIZE".as_slice(), c.as_bytes()]);
    }
    call.ctx.replicate("CMS.INITBYDIM", &args[..]);
    call.notify();
    Ok(Reply::Ok)
}
