//! Bytes in and out of a Bloom filter, all validated: each type's RDB value and SCANDUMP
//! header, the SCANDUMP / LOADCHUNK chunk protocol, and Guava's `writeTo()` bytes. Plain
//! Rust over the [field stream](crate::fields): the module supplies one over
//! `RedisModuleIO`, tests an in-memory one.
//!
//! - [`params`]: the parameter block of our own type (`RSbloom--`)
//! - [`native`]: `RSbloom--`'s RDB value and SCANDUMP header
//! - [`mbbloom`]: `MBbloom--`'s (RedisBloom's) RDB value and SCANDUMP header
//! - [`scandump`]: the iterator protocol, headers of either type
//! - [`writeto`]: Guava's `BloomFilter.writeTo()` bytes (BF.IMPORT / BF.EXPORT)

pub mod mbbloom;
pub mod native;
pub mod params;
pub mod scandump;
pub mod writeto;

use super::{Chain, Scheme};
use crate::error::Result;
use crate::fields::{FieldSink, FieldSource};

/// Writes the filter's RDB value in its own type's format (what its DUMP payload holds).
pub fn save_value(chain: &Chain, out: &mut dyn FieldSink) {
    match chain.scheme() {
        Scheme::Guava => native::save(chain, out),
        Scheme::RedisBloom => mbbloom::save(chain, out),
    }
}

/// Reads an RDB value written by [`save_value`] for a filter of `scheme`, at that type's
/// current encoding version.
pub fn load_value(scheme: Scheme, src: &mut dyn FieldSource, limit: u64) -> Result<Chain> {
    match scheme {
        Scheme::Guava => native::load(src, native::ENCODING_VERSION, limit),
        Scheme::RedisBloom => mbbloom::load(src, mbbloom::ENCODING_VERSION, limit),
    }
}

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
