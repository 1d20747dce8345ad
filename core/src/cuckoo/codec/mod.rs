//! Bytes in and out of a cuckoo filter, all validated before anything is allocated:
//! RedisBloom's `MBbloomCF` RDB value (encoding version 4) over the
//! [field stream](crate::fields), and its SCANDUMP header and chunk protocol.
//!
//! - [`rdb`]: the RDB value (what a DUMP payload holds)
//! - [`scandump`]: the SCANDUMP header, the SCANDUMP steps and LOADCHUNK calls
//! - [`sharded`]: `RSbloomCF`, rsbloom's type for shards: the RDB value and SCANDUMP header
//!   with the shard's place

pub mod header;
pub mod rdb;
pub mod scandump;
pub mod sharded;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
