//! rsbloom's structures and their formats in plain Rust: Bloom (`bloom/`), cuckoo (`cuckoo/`),
//! Count-Min Sketch (`cms/`), Top-K (`topk/`), t-digest (`tdigest/`), counting Bloom
//! (`counting/`) and sliding-window (`window/`).
//!
//! Nothing here knows about Redis: the module crate is the Redis skin over this one, and
//! `rsbloom-cli`, the fuzz targets and the benchmarks use it directly. Each filter family has
//! its own folder; what families share (hashes, memory hints, the typed field stream, the
//! byte-stream addressing of SCANDUMP data, the error type) sits beside them.

pub mod bloom;
pub mod chunk_offset;
pub mod cms;
pub mod counting;
pub mod cuckoo;
pub mod decimal;
pub mod double_text;
pub mod dump;
pub mod error;
pub mod fields;
pub mod hash;
pub mod le_words;
pub mod memory;
pub mod random;
pub mod shard;
pub mod tdigest;
pub mod topk;
pub mod valkey;
pub mod window;

#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
