//! Entry points for the property tests and fuzz targets of the counting filter's decoders:
//! arbitrary bytes as an `RSbloomCB` RDB value or SCANDUMP header. A clean rejection is
//! always fine; an accepted filter must pass its own validation, stay within the limit,
//! survive use and re-encode to what it came from.

use crate::counting::codec;
use crate::counting::CountingFilter;
use crate::fields::{Reader, Writer};

/// The size limit the harness runs under: small, so every accepted filter is cheap.
pub const LIMIT: u64 = 1 << 20;

fn check_accepted(filter: &mut CountingFilter) {
    filter
        .meta()
        .validate(LIMIT)
        .expect("accepted filter fails its own validation");
    assert!(
        filter.memory_bytes() <= LIMIT,
        "accepted filter over the limit"
    );
    let mut out = Writer::default();
    codec::save(filter, &mut out);
    let again = codec::load(&mut Reader(&out.0), codec::ENCODING_VERSION, LIMIT)
        .expect("re-encoded filter is refused");
    assert_eq!(&again, filter, "RDB round trip changed the filter");
    let header = codec::encode_header(&filter.meta());
    assert_eq!(codec::decode_header(&header, LIMIT), Ok(filter.meta()));
    for item in [&b""[..], b"a", b"fuzz"] {
        let before = filter.clone();
        match filter.add(item) {
            Ok(_) => assert!(filter.contains(item), "an added item is missing"),
            Err(_) => assert_eq!(&before, filter, "a refused add changed the filter"),
        }
        let count = filter.count_of(item);
        if filter.delete(item) {
            assert!(count > 0, "deleted an item counted 0 times");
        }
    }
    let _ = filter.export_guava();
}

/// An `RSbloomCB` RDB value in the wire form (fuzz target `counting_value`).
pub fn value(data: &[u8]) {
    let mut reader = Reader(data);
    if let Ok(mut filter) = codec::load(&mut reader, codec::ENCODING_VERSION, LIMIT) {
        // The server refuses values with bytes left over; so does the harness.
        if reader.rest().is_empty() {
            check_accepted(&mut filter);
        }
    }
}

/// A SCANDUMP header as CBF.LOADCHUNK's first call receives it.
pub fn header(data: &[u8]) {
    if let Ok(meta) = codec::decode_header(data, LIMIT) {
        let mut filter = CountingFilter::from_meta(&meta, LIMIT).expect("valid header refused");
        check_accepted(&mut filter);
    }
}
