//! What `reserve` takes per family, checked, and the layout (description with a fresh
//! creation id and, under keyed routing, a fresh secret) it makes.

use rsbloom_core::shard::layout::MAX_SHARDS;
use rsbloom_core::shard::layout::{bloom_bytes, cuckoo_bytes, default_shards, shard_capacity};

use crate::description::{Description, Layout, Params};
use crate::error::{Error, Result};
use crate::routing::{hex, random16, Routing};
use crate::MAX_SHARD_CAPACITY;

/// BF.RESERVE's default expansion, written out so the description records it.
pub const DEFAULT_BLOOM_EXPANSION: u32 = 2;
/// CF.RESERVE's defaults, written out so the description records them.
pub const DEFAULT_BUCKET_SIZE: u32 = 2;
pub const DEFAULT_MAX_ITERATIONS: u32 = 20;
pub const DEFAULT_CUCKOO_EXPANSION: u32 = 1;

/// How each Bloom shard grows, and how items are routed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BloomOptions {
    /// `EXPANSION e` (default [`DEFAULT_BLOOM_EXPANSION`]).
    pub expansion: Option<u32>,
    /// `NONSCALING`: a full shard refuses new items instead of growing.
    pub nonscaling: bool,
    /// Route items by HMAC-SHA256 under a secret drawn at reserve (spec-44 section 6).
    pub keyed_routing: bool,
}

impl BloomOptions {
    /// These options with keyed routing.
    pub fn keyed_routing(self) -> BloomOptions {
        BloomOptions {
            keyed_routing: true,
            ..self
        }
    }
}

/// CF.RESERVE's options for each shard (`None`: the defaults above), and the routing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CuckooOptions {
    pub bucket_size: Option<u32>,
    pub max_iterations: Option<u32>,
    pub expansion: Option<u32>,
    /// Route items by HMAC-SHA256 under a secret drawn at reserve (spec-44 section 6).
    pub keyed_routing: bool,
}

impl CuckooOptions {
    /// These options with keyed routing.
    pub fn keyed_routing(self) -> CuckooOptions {
        CuckooOptions {
            keyed_routing: true,
            ..self
        }
    }
}

/// The shard count asked for, checked, or the protocol's default for `capacity` items whose
/// shard of `c` items is planned at `bytes(c)`.
fn check_shards(shards: Option<u32>, capacity: u64, bytes: impl Fn(u64) -> u64) -> Result<u32> {
    if capacity == 0 {
        return Err(Error::Argument("capacity must be at least 1".into()));
    }
    match shards {
        Some(n) if (1..=MAX_SHARDS).contains(&n) => Ok(n),
        Some(n) => Err(Error::Argument(format!(
            "{n} shards: a logical filter has 1 to {MAX_SHARDS}"
        ))),
        None => default_shards(capacity, MAX_SHARD_CAPACITY, bytes).ok_or_else(|| {
            Error::Argument(format!(
                "{capacity} items do not fit in {MAX_SHARDS} shards"
            ))
        }),
    }
}

fn layout(name: &[u8], shards: u32, capacity: u64, params: Params, keyed: bool) -> Result<Layout> {
    let routing = match keyed {
        true => Routing::keyed(random16()?),
        false => Routing::Slot,
    };
    let description = Description {
        shards,
        capacity,
        shard_capacity: shard_capacity(capacity, shards),
        params,
        id: Some(hex(&random16()?)),
        routing,
    };
    Ok(Layout::new(name, description))
}

pub(crate) fn bloom(
    name: &[u8],
    error_rate: f64,
    capacity: u64,
    shards: Option<u32>,
    options: BloomOptions,
) -> Result<Layout> {
    if !(error_rate > 0.0 && error_rate < 1.0) {
        return Err(Error::Argument(format!(
            "error rate {error_rate} is not in (0, 1)"
        )));
    }
    if options.nonscaling && options.expansion.is_some() {
        return Err(Error::Argument(
            "EXPANSION and NONSCALING exclude each other".into(),
        ));
    }
    let shards = check_shards(shards, capacity, |c| bloom_bytes(c, error_rate))?;
    let expansion = match options.nonscaling {
        true => 0,
        false => options.expansion.unwrap_or(DEFAULT_BLOOM_EXPANSION),
    };
    let params = Params::Bloom {
        error_rate,
        expansion,
    };
    layout(name, shards, capacity, params, options.keyed_routing)
}

pub(crate) fn cuckoo(
    name: &[u8],
    capacity: u64,
    shards: Option<u32>,
    options: CuckooOptions,
) -> Result<Layout> {
    let bucket_size = options.bucket_size.unwrap_or(DEFAULT_BUCKET_SIZE);
    let max_iterations = options.max_iterations.unwrap_or(DEFAULT_MAX_ITERATIONS);
    let expansion = options.expansion.unwrap_or(DEFAULT_CUCKOO_EXPANSION);
    if bucket_size == 0 || max_iterations == 0 {
        return Err(Error::Argument(
            "bucket size and max iterations are at least 1".into(),
        ));
    }
    let shards = check_shards(shards, capacity, |c| {
        cuckoo_bytes(c, u64::from(bucket_size))
    })?;
    let params = Params::Cuckoo {
        bucket_size,
        max_iterations,
        expansion,
    };
    layout(name, shards, capacity, params, options.keyed_routing)
}
