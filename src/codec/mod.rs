//! Bytes in and out of a filter, all validated: the RDB value, the SCANDUMP header and the
//! chunk iterator. Plain Rust: the Redis layer supplies a [`FieldSink`] / [`FieldSource`]
//! over `RedisModuleIO`, tests supply in-memory ones.

pub mod chunks;
pub mod guava;
pub mod harness;
pub mod header;
pub mod meta;
pub mod rdb;
pub mod redisbloom;
pub mod wire;

use crate::error::Result;
use crate::filter::{Chain, Scheme};

/// Where an encoder writes typed fields (RDB save, header bytes).
pub trait FieldSink {
    fn put_u64(&mut self, value: u64);
    fn put_f64(&mut self, value: f64);
    fn put_bytes(&mut self, bytes: &[u8]);
}

/// Where a decoder reads typed fields from. Every read can fail (short or bad input).
pub trait FieldSource {
    fn get_u64(&mut self) -> Result<u64>;
    fn get_f64(&mut self) -> Result<f64>;
    /// Hands the next byte string to `use_bytes` without keeping it.
    fn with_bytes(&mut self, use_bytes: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()>;
}

/// Writes the filter's RDB value in its own type's format (what its DUMP payload holds).
pub fn save_value(chain: &Chain, out: &mut dyn FieldSink) {
    match chain.scheme() {
        Scheme::Guava => rdb::save(chain, out),
        Scheme::RedisBloom => redisbloom::save(chain, out),
    }
}

/// Reads an RDB value written by [`save_value`] for a filter of `scheme`, at that type's
/// current encoding version.
pub fn load_value(scheme: Scheme, src: &mut dyn FieldSource, limit: u64) -> Result<Chain> {
    match scheme {
        Scheme::Guava => rdb::load(src, rdb::ENCODING_VERSION, limit),
        Scheme::RedisBloom => redisbloom::load(src, redisbloom::ENCODING_VERSION, limit),
    }
}

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
