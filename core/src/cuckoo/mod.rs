//! The cuckoo filter family, RedisBloom's `MBbloomCF` byte for byte: one-byte fingerprints
//! in buckets of `bucket_size` slots, two candidate buckets per item, a deterministic kick
//! sequence, and sub-filters appended as the filter grows. A filter built by the same
//! commands holds the same bytes, counters and formats as RedisBloom v2.8's.
//!
//! - [`hash`]: fingerprint and bucket indices from MurmurHash64A
//! - [`sub_filter`]: one sub-filter's slot array and the bucket-level operations
//! - [`filter`]: the filter: insert, kick, growth, lookups, delete, compaction
//! - [`batch`]: many items per call, with the next items' buckets prefetched
//! - [`meta`]: the persisted parameters, their validation and the size accounting
//! - [`chunks`]: the slot arrays as one byte stream (SCANDUMP, LOADCHUNK)
//! - [`info`]: the figures CF.INFO and CF.DEBUG report
//! - [`codec`]: the RDB value and the SCANDUMP header and chunk protocol

pub mod batch;
pub mod chunks;
pub mod codec;
pub mod filter;
pub mod hash;
pub mod info;
pub mod meta;
pub mod sub_filter;

pub use filter::{CuckooFilter, Limits};
pub use hash::CfHash;
pub use info::Info;
pub use meta::CuckooMeta;
