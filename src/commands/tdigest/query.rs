//! The t-digest queries: MIN, MAX, QUANTILE, CDF, RANK, REVRANK, BYRANK, BYREVRANK,
//! TRIMMED_MEAN and INFO. The key is checked first, then every argument, then the digest
//! answers (compressing its pending values first, as RedisBloom's queries do).

use rsbloom_core::error::{Error, Result};

use super::digest;
use crate::commands::argv::Arg;
use crate::commands::grammar;
use crate::commands::key::open_read;
use crate::commands::reply::Reply;
use crate::commands::Call;

/// How many arguments after the key are read onto the stack (more go to the heap).
const ON_STACK: usize = 16;

/// Every argument after the key through `parse`, in order, handed to `then` once all are
/// read (the first refusal is the reply, before the digest is asked anything). Up to
/// [`ON_STACK`] of them take no allocation.
fn each<T: Copy + Default, R>(
    call: &Call,
    parse: impl Fn(&Arg) -> Result<T>,
    then: impl FnOnce(&[T]) -> R,
) -> Result<R> {
    let args = &call.args[2..];
    if args.len() <= ON_STACK {
        let mut buf = [T::default(); ON_STACK];
        for (slot, arg) in buf.iter_mut().zip(args) {
            *slot = parse(arg)?;
        }
        Ok(then(&buf[..args.len()]))
    } else {
        let values = args.iter().map(parse).collect::<Result<Vec<T>>>()?;
        Ok(then(&values))
    }
}

/// One reply per value, `answer`'s, in an array.
fn array<T: Copy>(values: &[T], answer: impl FnMut(T) -> Reply) -> Reply {
    Reply::Array(values.iter().copied().map(answer).collect())
}

/// TDIGEST.MIN key: `nan` when empty.
pub fn min(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    Ok(Reply::Double(digest(&key)?.min()))
}

/// TDIGEST.MAX key: `nan` when empty.
pub fn max(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    Ok(Reply::Double(digest(&key)?.max()))
}

/// TDIGEST.QUANTILE key quantile [quantile ...]: each in [0, 1].
pub fn quantile(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let mut d = digest(&key)?;
    let parse = |a: &Arg| {
        let Some(q) = grammar::double(a) else {
            return Err(Error::TdBadQuantile);
        };
        if !(0.0..=1.0).contains(&q) {
            return Err(Error::TdQuantileRange);
        }
        Ok(q)
    };
    each(call, parse, |qs| {
        let mut out = Vec::with_capacity(qs.len());
        d.quantiles_each(qs, |v| out.push(v));
        Reply::Doubles(out)
    })
}

/// TDIGEST.CDF key value [value ...]
pub fn cdf(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let mut d = digest(&key)?;
    let parse = |a: &Arg| match grammar::double(a) {
        Some(v) => Ok(v),
        None => Err(Error::TdBadCdf),
    };
    each(call, parse, |values| {
        Reply::Doubles(values.iter().map(|&v| d.cdf(v)).collect())
    })
}

fn rank_of(call: &Call, reverse: bool) -> Result<Reply> {
    let key = open_read(call);
    let mut d = digest(&key)?;
    let parse = |a: &Arg| match grammar::double(a) {
        Some(v) if !v.is_nan() => Ok(v),
        _ => Err(Error::TdBadRankValue),
    };
    each(call, parse, |values| {
        array(values, |v| Reply::Int(d.rank(v, reverse)))
    })
}

/// TDIGEST.RANK key value [value ...]
pub fn rank(call: &Call) -> Result<Reply> {
    rank_of(call, false)
}

/// TDIGEST.REVRANK key value [value ...]
pub fn revrank(call: &Call) -> Result<Reply> {
    rank_of(call, true)
}

fn by_rank_of(call: &Call, reverse: bool) -> Result<Reply> {
    let key = open_read(call);
    let mut d = digest(&key)?;
    let parse = |a: &Arg| {
        let Some(r) = grammar::integer(a) else {
            return Err(Error::TdBadRank);
        };
        if r < 0 {
            return Err(Error::TdRankRange);
        }
        Ok(r)
    };
    each(call, parse, |ranks| {
        Reply::Doubles(ranks.iter().map(|&r| d.by_rank(r, reverse)).collect())
    })
}

/// TDIGEST.BYRANK key rank [rank ...]
pub fn byrank(call: &Call) -> Result<Reply> {
    by_rank_of(call, false)
}

/// TDIGEST.BYREVRANK key rank [rank ...]
pub fn byrevrank(call: &Call) -> Result<Reply> {
    by_rank_of(call, true)
}

/// TDIGEST.TRIMMED_MEAN key low_cut_percentile high_cut_percentile
pub fn trimmed_mean(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let mut d = digest(&key)?;
    let Some(low) = grammar::double(&call.args[2]) else {
        return Err(Error::TdBadLowCut);
    };
    let Some(high) = grammar::double(&call.args[3]) else {
        return Err(Error::TdBadHighCut);
    };
    if !(0.0..=1.0).contains(&low) || !(0.0..=1.0).contains(&high) {
        return Err(Error::TdCutRange);
    }
    if low >= high {
        return Err(Error::TdCutOrder);
    }
    Ok(Reply::Double(d.trimmed_mean(low, high)))
}

/// TDIGEST.INFO key: nine figures (a flat array in RESP2, a map in RESP3).
pub fn info(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let pairs = digest(&key)?.info().pairs();
    Ok(Reply::Map(
        pairs.into_iter().map(|(k, v)| (k, Reply::Int(v))).collect(),
    ))
}
