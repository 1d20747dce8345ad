//! Entry points for the property tests and the fuzz target of the Count-Min Sketch decoder:
//! arbitrary bytes as an RDB value. A clean rejection is always fine; a sketch that is
//! accepted must stay within the limit, re-encode to the bytes it came from and survive use.

use crate::cms::codec;
use crate::cms::CountMinSketch;
use crate::fields::{Reader, Writer};

/// The size limit the harness runs under: small, so every accepted sketch is cheap.
pub const LIMIT: u64 = 1 << 20;

/// The RDB value of a sketch in the wire form ([`Writer`]).
pub fn encode_value(sketch: &CountMinSketch) -> Vec<u8> {
    let mut out = Writer::default();
    codec::save(sketch, &mut out);
    out.0
}

/// A `CMSk-TYPE` RDB value in the wire form, as `rdb_load` would receive its fields (fuzz
/// target `cms_value`). An accepted value re-encodes to exactly the bytes it used.
pub fn value(data: &[u8]) {
    let mut reader = Reader(data);
    let Ok(mut sketch) = codec::load(&mut reader, codec::ENCODING_VERSION, LIMIT) else {
        return;
    };
    let used = data.len() - reader.rest().len();
    assert_eq!(
        encode_value(&sketch),
        &data[..used],
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
        let before = sketch.query(item);
        let after = sketch.incr_by(item, 3);
        if let Ok(after) = after {
            assert!(after >= before, "an increment lowered an estimate");
        }
    }
    let copy = sketch.clone();
    let _ = sketch.merge(&[
        crate::cms::Source::Other(&copy, 2),
        crate::cms::Source::Destination(-1),
    ]);
}
