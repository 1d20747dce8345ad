//! Entry points for the property tests and the fuzz target of the Count-Min Sketch decoder:
//! arbitrary bytes as an RDB value, the first byte the encoding version it was written with.
//! A clean rejection is always fine; a sketch that is accepted must stay within the limit,
//! re-encode to the bytes it came from and survive use.

use crate::cms::codec::{self, ENCODING_VERSION_CELL_SIZE};
use crate::cms::{CountMinSketch, Source};
use crate::fields::{FieldSink, Reader, Writer};

/// The size limit the harness runs under: small, so every accepted sketch is cheap.
pub const LIMIT: u64 = 1 << 20;

/// The fields of a sketch as rsbloom writes them (encoding version 0).
pub fn fields(sketch: &CountMinSketch) -> Vec<u8> {
    let mut out = Writer::default();
    codec::save(sketch, &mut out);
    out.0
}

/// The fields of a sketch as RedisBloom 8.12 writes them (encoding version 1): the cell size
/// before the counters.
pub fn fields_v1(sketch: &CountMinSketch) -> Vec<u8> {
    let mut out = Writer::default();
    out.put_u64(sketch.width());
    out.put_u64(sketch.depth());
    out.put_u64(sketch.count());
    out.put_u64(sketch.cell_size().bytes());
    out.put_bytes(&sketch.cells().le_bytes());
    out.0
}

/// The harness's input for a sketch: its version byte, then its fields in that version.
pub fn encode_value(sketch: &CountMinSketch, version: i32) -> Vec<u8> {
    let mut out = vec![version as u8];
    out.extend(if version == ENCODING_VERSION_CELL_SIZE {
        fields_v1(sketch)
    } else {
        fields(sketch)
    });
    out
}

/// A `CMSk-TYPE` RDB value in the wire form, as `rdb_load` would receive its fields, after
/// one byte of encoding version (fuzz target `cms_value`). An accepted value re-encodes to
/// exactly the bytes it used.
pub fn value(data: &[u8]) {
    let Some((&version, data)) = data.split_first() else {
        return;
    };
    let version = version as i32;
    let mut reader = Reader(data);
    let Ok(mut sketch) = codec::load(&mut reader, version, LIMIT) else {
        return;
    };
    let used = data.len() - reader.rest().len();
    assert_eq!(
        encode_value(&sketch, version)[1..],
        data[..used],
        "accepted value re-encodes differently"
    );
    assert!(
        sketch.memory_bytes() <= LIMIT,
        "accepted sketch over the limit"
    );
    assert!(
        sketch.width() >= 1 && sketch.depth() >= 1,
        "empty dimension"
    );
    for item in [&b""[..], b"a", b"fuzz"] {
        let before = sketch.clone();
        let estimate = sketch.query(item);
        match sketch.incr_by(item, 3) {
            Ok(after) => {
                assert!(after >= estimate, "an increment lowered an estimate");
                // What went in comes out, exactly.
                assert_eq!(sketch.incr_by(item, -3), Ok(estimate));
                assert_eq!(
                    sketch, before,
                    "an increment and its decrement changed the sketch"
                );
            }
            Err(_) => assert_eq!(sketch, before, "a refused increment changed the sketch"),
        }
        if sketch.incr_by(item, -1).is_err() {
            assert_eq!(sketch, before, "a refused decrement changed the sketch");
        }
    }
    let copy = sketch.clone();
    let kept = sketch.clone();
    if sketch
        .merge(&[Source::Other(&copy, 2), Source::Destination(-1)])
        .is_err()
    {
        assert_eq!(sketch, kept, "a refused merge changed the sketch");
    }
}

/// A recorded CMS.INFO reply of RedisBloom before 8.12 (three pairs, RESP2 or RESP3) with
/// 8.12's fourth pair, `cell_size 4`, after them: what rsbloom answers for that sketch.
pub fn info_with_cell_size(recorded: &[u8]) -> Vec<u8> {
    let mut out = recorded.to_vec();
    for (old, new) in [(&b"*6\r\n"[..], &b"*8\r\n"[..]), (b"%3\r\n", b"%4\r\n")] {
        if out.starts_with(old) {
            out.splice(..old.len(), new.iter().copied());
        }
    }
    out.extend_from_slice(b"+cell_size\r\n:4\r\n");
    out
}
