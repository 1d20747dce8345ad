//! CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e]
//!
//! RedisBloom's checks in its order (capacity, iterations, bucket size, expansion, capacity
//! against the bucket size, then the key), but options only where options go: RedisBloom
//! looks for each keyword anywhere in argv (the key included) and ignores words it does
//! not know; here an unknown word is an error.

use rsbloom_core::cuckoo::filter::MAX_EXPANSION;
use rsbloom_core::cuckoo::CuckooFilter;
use rsbloom_core::error::{Error, Result};

use super::{replicate_creation, strict_int};
use crate::commands::argv::Arg;
use crate::commands::key::open_write;
use crate::commands::parse::keyword;
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;

/// An option value: not an integer is `bad`, outside `min..=max` is `range`.
fn ranged(
    value: Option<&Arg>,
    default: i64,
    min: i64,
    max: i64,
    bad: Error,
    range: Error,
) -> Result<i64> {
    let Some(value) = value else {
        return Ok(default);
    };
    let n = strict_int(value).ok_or(bad)?;
    if (min..=max).contains(&n) {
        Ok(n)
    } else {
        Err(range)
    }
}

pub fn reserve(call: &Call) -> Result<Reply> {
    let argv = call.args;
    // RedisBloom wants keyword/value pairs after the capacity: an odd count.
    if argv.len().is_multiple_of(2) {
        return Err(call.wrong_arity());
    }
    let capacity = strict_int(&argv[2]).ok_or(Error::CfBadCapacity)?;
    let (mut bucket_size, mut iterations, mut expansion) = (None, None, None);
    for pair in argv[3..].chunks(2) {
        let slot = match keyword(&pair[0]).as_str() {
            "BUCKETSIZE" => &mut bucket_size,
            "MAXITERATIONS" => &mut iterations,
            "EXPANSION" => &mut expansion,
            _ => return Err(Error::UnknownOption(pair[0].to_string_lossy())),
        };
        // The first occurrence counts, as in RedisBloom.
        if slot.is_none() {
            *slot = pair.get(1);
        }
    }
    let defaults = config::cf_defaults();
    let iterations = ranged(
        iterations,
        defaults.max_iterations as i64,
        1,
        config::CF_MAX_ITERATIONS,
        Error::CfBadMaxIterations,
        Error::CfMaxIterationsRange,
    )?;
    let bucket_size = ranged(
        bucket_size,
        defaults.bucket_size as i64,
        1,
        config::CF_MAX_BUCKET_SIZE,
        Error::CfBadBucketSize,
        Error::CfBucketSizeRange,
    )?;
    let expansion = ranged(
        expansion,
        defaults.expansion as i64,
        0,
        MAX_EXPANSION as i64,
        Error::CfBadExpansion,
        Error::CfExpansionRange,
    )?;
    if capacity < 2 * bucket_size {
        return Err(Error::CfCapacityTooSmall);
    }
    let key = open_write(call);
    if key.write::<CuckooFilter>()?.is_some() {
        return Err(Error::ItemExists);
    }
    let filter = CuckooFilter::new(
        capacity as u64,
        bucket_size as u8,
        iterations as u16,
        expansion as u16,
        config::max_filter_bytes(),
    )?;
    let filter = key.store(filter)?;
    replicate_creation(call.ctx, call.key(), &filter);
    call.notify();
    Ok(Reply::Ok)
}
