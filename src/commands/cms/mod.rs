//! The Count-Min Sketch commands (`CMS.*`): their rows (`rows.rs`) and one file per group of
//! commands. Replies, limits, check order and error texts are RedisBloom 8's, except that
//! sizes are checked against `bf.max-filter-bytes` before anything is allocated (see
//! docs/commands/cms.md and docs/differences.md).

pub mod create;
pub mod info;
pub mod merge;
pub mod rows;
pub mod update;

use rsbloom_core::cms::CountMinSketch;
use rsbloom_core::error::{Error, Result};

use super::key::Key;

/// The sketch at `key`: `CMS: key does not exist` when missing, WRONGTYPE for another type.
fn sketch<'a>(key: &Key) -> Result<&'a CountMinSketch> {
    // A match, not `ok_or`: that builds (and drops) the error on every call.
    match key.read::<CountMinSketch>()? {
        Some(s) => Ok(s),
        None => Err(Error::CmsKeyNotFound),
    }
}
