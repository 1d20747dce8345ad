//! The RDB value of a `CMSk-TYPE` sketch (what a DUMP payload holds), in the encodings
//! RedisBloom writes and one of rsbloom's:
//!
//! - version 0, RedisBloom 2.x to 8.10 (4-byte counters): `width`, `depth`, the 64-bit total
//!   (unsigned fields), then the counters as one string of `width · depth` little-endian
//!   32-bit integers, row after row;
//! - version 1, RedisBloom 8.12 (every cell size): `width`, `depth`, the total,
//!   `cell_size`, then the counters as one string of `width · depth` little-endian cells of
//!   `cell_size` bytes, row after row;
//! - version 0 followed by the cell size, rsbloom's sketches of 1-, 2- or 8-byte cells:
//!   `width`, `depth`, the total, the string of `width · depth · cell_size` bytes, then
//!   `cell_size`.
//!
//! Why the third: Redis writes the encoding version a type was registered with into every
//! value (the low 10 bits of the module id before it), so a module cannot choose one per
//! value. `CMSk-TYPE` stays registered at version 0, and every sketch of 4-byte counters is
//! version 0 byte for byte, which every RedisBloom loads. The other sizes must then be told
//! apart inside version 0: their counter string is not `4 · width · depth` bytes long, and
//! the field after it makes every RedisBloom refuse the value cleanly (2.x reads the four
//! fields of version 0 and Redis then finds a field where the value's end marker should be;
//! 8.12 reading version 0 checks the string's length). Redis hands `rdb_load` the version
//! the value was written with whatever the type was registered with, so RedisBloom 8.12's
//! version 1 loads here.
//!
//! RedisBloom before 8.6 checks none of it (a width or depth of 2^62 or 0, or a short
//! counter string, crash its server on the next command). Here the dimensions are checked
//! against each other and against the size limit before anything is allocated, the counter
//! string must hold exactly the counters they announce, an 8-byte cell and a version-1 total
//! must be at most 2^63 - 1 (RedisBloom 8.12's rule: no command makes more).

use super::cells::{CellSize, Cells};
use super::sketch::{check_dims, CountMinSketch};
use crate::error::{bad_data, Error, Result};
use crate::fields::{FieldSink, FieldSource};

/// RedisBloom's type name for Count-Min Sketches (part of every RDB and DUMP payload).
pub const TYPE_NAME: &str = "CMSk-TYPE";
/// The encoding version the type is registered with, so every value is written with it
/// (see the module's documentation).
pub const ENCODING_VERSION: i32 = 0;
/// RedisBloom 8.12's encoding, with the cell size before the counters; loaded, not written.
pub const ENCODING_VERSION_CELL_SIZE: i32 = 1;

/// Writes the RDB value (version 0; other cell sizes than 4 with their size after it).
pub fn save(sketch: &CountMinSketch, out: &mut dyn FieldSink) {
    out.put_u64(sketch.width());
    out.put_u64(sketch.depth());
    out.put_u64(sketch.count());
    out.put_bytes(&sketch.cells().le_bytes());
    let cell = sketch.cell_size();
    if cell != CellSize::DEFAULT {
        out.put_u64(cell.bytes());
    }
}

/// Reads an RDB value of encoding `version`; the dimensions are checked, and the memory
/// they need against `limit`, before the counter string is read.
pub fn load(src: &mut dyn FieldSource, version: i32, limit: u64) -> Result<CountMinSketch> {
    if version != ENCODING_VERSION && version != ENCODING_VERSION_CELL_SIZE {
        return Err(bad_data(format!(
            "RedisBloom Count-Min Sketch encoding version {version} is not supported (only \
             {ENCODING_VERSION} and {ENCODING_VERSION_CELL_SIZE})"
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
    if version == ENCODING_VERSION_CELL_SIZE {
        let cell = src.get_u64()?;
        let cell =
            CellSize::from_bytes(cell).ok_or_else(|| bad_data(format!("cell size {cell}")))?;
        checked(width, depth, cell, limit)?;
        check_total(count)?;
        let (_, counters) = read_cells(src, width, depth, limit, Some(cell))?;
        return Ok(CountMinSketch::from_parts(width, depth, count, counters));
    }
    // Version 0: the counter string's length says the cell size (4 bytes, or one of
    // rsbloom's, whose size follows the string). The smallest must fit before it is read.
    checked(width, depth, CellSize::One, limit)?;
    let (cell, counters) = read_cells(src, width, depth, limit, None)?;
    if cell != CellSize::DEFAULT {
        let stored = src.get_u64()?;
        if stored != cell.bytes() {
            return Err(bad_data(format!(
                "cell size {stored} for {} counter bytes",
                counters.len() as u64 * cell.bytes()
            )));
        }
        check_total(count)?;
    }
    Ok(CountMinSketch::from_parts(width, depth, count, counters))
}

/// A total past 2^63 - 1, which no RedisBloom 8.12 command makes, in an encoding that has
/// cell sizes (version 0 of 4-byte cells keeps RedisBloom 2.8's wrapped totals).
fn check_total(count: u64) -> Result<()> {
    if count > i64::MAX as u64 {
        return Err(bad_data(format!("total {count} past 2^63 - 1")));
    }
    Ok(())
}

/// [`check_dims`] for a loaded value: the limit's error as it is, others as bad data.
fn checked(width: u64, depth: u64, cell: CellSize, limit: u64) -> Result<()> {
    match check_dims(width, depth, cell, limit) {
        Ok(_) => Ok(()),
        Err(e @ Error::TooLarge { .. }) => Err(e),
        Err(_) => Err(bad_data(format!(
            "sketch of width {width} and depth {depth} is too large"
        ))),
    }
}

/// The counter string of a sketch whose dimensions are checked: of cell size `cell`, or (None)
/// of the size its length gives, checked against `limit` before the counters are copied out.
fn read_cells(
    src: &mut dyn FieldSource,
    width: u64,
    depth: u64,
    limit: u64,
    cell: Option<CellSize>,
) -> Result<(CellSize, Cells)> {
    let cells = width.checked_mul(depth);
    let mut read = None;
    src.with_bytes(&mut |bytes| {
        let len = bytes.len() as u64;
        let fits = |c: &CellSize| cells.and_then(|n| n.checked_mul(c.bytes())) == Some(len);
        let size = match cell {
            Some(c) if fits(&c) => c,
            Some(c) => {
                return Err(bad_data(format!(
                    "{len} counter bytes for a sketch of {width} x {depth} of {}-byte cells",
                    c.bytes()
                )))
            }
            None => CellSize::ALL.into_iter().find(fits).ok_or_else(|| {
                bad_data(format!(
                    "{len} counter bytes for a sketch of {width} x {depth}"
                ))
            })?,
        };
        checked(width, depth, size, limit)?;
        read = Some((size, Cells::from_le_bytes(size, bytes)?));
        Ok(())
    })?;
    let (size, counters) = read.ok_or_else(|| bad_data("no counters"))?;
    check_cells(&counters)?;
    Ok((size, counters))
}

/// 8-byte cells hold at most 2^63 - 1 (the others cannot pass their maximum).
fn check_cells(cells: &Cells) -> Result<()> {
    if let Cells::Eight(v) = cells {
        if let Some(c) = v.iter().find(|&&c| c > i64::MAX as u64) {
            return Err(bad_data(format!("an 8-byte counter of {c}")));
        }
    }
    Ok(())
}
