//! The Top-K family's commands (`TOPK.*`): their rows (`rows.rs`), TOPK.RESERVE, the adds
//! (TOPK.ADD, TOPK.INCRBY) and the reads (TOPK.QUERY, TOPK.COUNT, TOPK.LIST, TOPK.INFO).
//!
//! Replies, defaults, limits and error texts are RedisBloom 8's, except where it crashes,
//! breaks the protocol, cuts items or guesses at arguments (see docs/commands/topk.md and
//! docs/differences.md). Writes are replicated verbatim: the decay is deterministic, so a replica that
//! runs the same command holds the same bytes.

pub mod add;
pub mod read;
pub mod reserve;
pub mod rows;

use rsbloom_core::error::{Error, Result};
use rsbloom_core::topk::TopK;

use crate::commands::key::{Key, Writing};

/// The sketch at the key for reading: `TopK: key does not exist` or WRONGTYPE otherwise.
fn read(key: &Key) -> Result<&TopK> {
    key.read::<TopK>()?.ok_or(Error::TopkNotFound)
}

/// The sketch at the key for writing.
fn write<'a>(key: &Key) -> Result<Writing<'a, TopK>> {
    key.write::<TopK>()?.ok_or(Error::TopkNotFound)
}
