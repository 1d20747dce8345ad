//! RedisBloom's RDB value of a `CMSk-TYPE` sketch, encoding version 0, written back byte
//! for byte: `width`, `depth`, the 64-bit total (unsigned fields), then the counters as one
//! string of `width · depth` little-endian 32-bit integers, row after row.
//!
//! RedisBloom checks none of it (a width or depth of 2^62 or 0, or a short counter string,
//! crash its server on the next command). Here the dimensions are checked against each
//! other and against the size limit before anything is allocated, and the counter string
//! must hold exactly the counters they announce.

use super::sketch::{check_dims, CountMinSketch};
use crate::error::{bad_data, Error, Result};
use crate::fields::{FieldSink, FieldSource};
use crate::memory::fallible;

/// RedisBloom's type name for Count-Min Sketches (part of every RDB and DUMP payload).
pub const TYPE_NAME: &str = "CMSk-TYPE";
/// The encoding version RedisBloom 2.x and 8.x write; the only one there is.
pub const ENCODING_VERSION: i32 = 0;

/// Writes the RDB value.
pub fn save(sketch: &CountMinSketch, out: &mut dyn FieldSink) {
    out.put_u64(sketch.width());
    out.put_u64(sketch.depth());
    out.put_u64(sketch.count());
    let mut bytes = Vec::with_capacity(sketch.counters().len() * 4);
    for c in sketch.counters() {
        bytes.extend_from_slice(&c.to_le_bytes());
    }
    out.put_bytes(&bytes);
}

/// Reads an RDB value of encoding `version`; the dimensions are checked, and the memory
/// they need against `limit`, before the counter string is read.
pub fn load(src: &mut dyn FieldSource, version: i32, limit: u64) -> Result<CountMinSketch> {
    if version != ENCODING_VERSION {
        return Err(bad_data(format!(
            "RedisBloom Count-Min Sketch encoding version {version} is not supported (only \
             {ENCODING_VERSION})"
        )));
    }
    let width = src.get_u64()?;
    let depth = src.get_u64()?;
    let count = src.get_u64()?;
    if width == 0 || depth == 0 {
        return Err(bad_data(format!(
            "sketch of width {width} and depth {depth}"
        )));
    }
    match check_dims(width, depth, limit) {
        Ok(_) => {}
        Err(e @ Error::TooLarge { .. }) => return Err(e),
        Err(_) => {
            return Err(bad_data(format!(
                "sketch of width {width} and depth {depth} is too large"
            )))
        }
    }
    let cells = width * depth;
    let mut counters = Vec::new();
    src.with_bytes(&mut |bytes| {
        if bytes.len() as u64 != cells * 4 {
            return Err(bad_data(format!(
                "{} counter bytes for a sketch of {width} x {depth}",
                bytes.len()
            )));
        }
        counters = fallible::with_capacity(bytes.len() / 4)?;
        counters.extend(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        );
        Ok(())
    })?;
    Ok(CountMinSketch::from_parts(width, depth, count, counters))
}
