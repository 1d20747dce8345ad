//! CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e]
//! [SHARD name index count] [SHARDID id] [SHARDSECRET hex]
//!
//! RedisBloom 8's checks in its order (the capacity as a number, MAXITERATIONS, BUCKETSIZE,
//! EXPANSION, the capacity's range against the bucket size), then rsbloom's SHARD (its
//! values, the key's slot against the shard's), then the key. Words that are not options
//! are refused after those checks (RedisBloom ignores them).

use rsbloom_core::cuckoo::filter::MAX_EXPANSION;
use rsbloom_core::cuckoo::CuckooFilter;
use rsbloom_core::error::{Error, Result};

use super::options::{self, ranged, MAX_CAPACITY};
use super::replicate_creation;
use crate::commands::grammar::Keywords;
use crate::commands::key::open_write;
use crate::commands::reply::Reply;
use crate::commands::shard::PlaceWords;
use crate::commands::Call;
use crate::config;

pub fn reserve(call: &Call) -> Result<Reply> {
    let argv = call.args;
    // RedisBloom wants keyword/value pairs after the capacity: an odd count.
    if argv.len().is_multiple_of(2) {
        return Err(call.wrong_arity());
    }
    let capacity = options::capacity(&argv[2])?;
    let words = Keywords::new(&argv[3..], options::RESERVE);
    let defaults = config::cf_defaults();
    let iterations = ranged(
        words.value("MAXITERATIONS"),
        defaults.max_iterations as i64,
        (1, config::CF_MAX_ITERATIONS),
        (Error::CfBadMaxIterations, Error::CfMaxIterationsRange),
    )?;
    // RedisBloom 8 bounds BUCKETSIZE by its `cf-bucket-size` config's range, which the
    // configured initial size narrows.
    let max_bucket_size = config::cf_bucket_size_max();
    let bucket_size = ranged(
        words.value("BUCKETSIZE"),
        defaults.bucket_size as i64,
        (1, max_bucket_size),
        (
            Error::CfBadBucketSize,
            Error::CfBucketSizeRange {
                max: max_bucket_size as u64,
            },
        ),
    )?;
    let expansion = ranged(
        words.value("EXPANSION"),
        defaults.expansion as i64,
        (0, MAX_EXPANSION as i64),
        (Error::CfBadExpansion, Error::CfExpansionRange),
    )?;
    if capacity < 2 * bucket_size || capacity > MAX_CAPACITY {
        return Err(Error::CfCapacityRange);
    }
    let place = PlaceWords::of(&words, || call.wrong_arity())?.place(call.key())?;
    words.all_known()?;

    let key = open_write(call);
    if key.read::<CuckooFilter>()?.is_some() {
        return Err(Error::ItemExists);
    }
    let filter = CuckooFilter::new(
        capacity as u64,
        bucket_size as u8,
        iterations as u16,
        expansion as u16,
        call.size_limit(),
    )?;
    let filter = match place {
        None => filter,
        Some(place) => filter.with_shard(place),
    };
    let filter = key.store(filter)?;
    replicate_creation(call.ctx, call.key(), &filter);
    call.notify();
    Ok(Reply::Ok)
}
