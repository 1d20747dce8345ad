//! Bytes in and out of a cuckoo filter, all validated before anything is allocated:
//! RedisBloom's `MBbloomCF` RDB value (encoding version 4) over the
//! [field stream](crate::fields), and its SCANDUMP header and chunk protocol.
//!
//! - [`rdb`]: the RDB value (what a DUMP payload holds)
//! - [`scandump`]: the SCANDUMP header, the SCANDUMP steps and LOADCHUNK calls

pub mod rdb;
pub mod scandump;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
