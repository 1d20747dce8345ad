//! Entry points for the property tests and the fuzz target of the sliding-window filter's
//! decoders: arbitrary bytes as an `RSbloomAP` RDB value (in the wire form) or as a
//! SCANDUMP header. A clean rejection is always fine; an accepted filter must pass its own
//! validation, stay within the limit, re-encode to the bytes it came from, rebuild through
//! its SCANDUMP stream and survive lookups and adds at any time, finding what it was just
//! given.

use super::codec;
use super::filter::WindowFilter;
use crate::error::Error;
use crate::fields::{Reader, Writer};

/// The size limit the harness runs under: small, so every accepted filter is cheap.
pub const LIMIT: u64 = 1 << 20;

/// The RDB value of a filter in the wire form ([`Writer`]).
pub fn encode_value(filter: &WindowFilter) -> Vec<u8> {
    let mut out = Writer::default();
    codec::save(filter, &mut out);
    out.0
}

/// Rebuilds a filter from its SCANDUMP stream in chunks of `max_chunk` bytes, as
/// APBF.LOADCHUNK would on a missing key.
pub fn rebuild(filter: &WindowFilter, max_chunk: u64) -> WindowFilter {
    let calls = codec::load_calls(filter, max_chunk);
    let (first, rest) = calls.split_first().expect("a header");
    let codec::Load::Header(mut rebuilt) =
        codec::parse_load(first.0, &first.1, LIMIT, false).expect("own header refused")
    else {
        panic!("the first call is not a header")
    };
    for (iter, data) in rest {
        let codec::Load::Data { offset, data } =
            codec::parse_load(*iter, data, LIMIT, true).expect("own chunk refused")
        else {
            panic!("a later call is not data")
        };
        rebuilt
            .write_chunk(offset, data)
            .expect("own chunk refused");
    }
    *rebuilt
}

fn check_accepted(filter: &mut WindowFilter) {
    filter
        .meta()
        .validate(LIMIT)
        .expect("accepted filter fails its own validation");
    assert!(
        filter.memory_bytes() <= LIMIT,
        "accepted filter over the limit"
    );
    let value = encode_value(filter);
    let again = codec::load(&mut Reader(&value), codec::ENCODING_VERSION, LIMIT)
        .expect("re-encoded filter is refused");
    assert_eq!(&again, filter, "RDB round trip changed the filter");
    assert_eq!(&rebuild(filter, 61), filter, "SCANDUMP changed the filter");
    let clock = filter.meta().clock_ms;
    let span = filter.meta().span_ms().unwrap_or(0);
    for now in [0, clock, clock.saturating_add(span), u64::MAX] {
        let _ = filter.starts(now);
        let _ = filter.items_in_window(now);
        let _ = filter.contains(b"fuzz", now);
    }
    for (i, item) in [&b""[..], b"a", b"fuzz"].into_iter().enumerate() {
        let now = clock.saturating_add(i as u64 * span / 2);
        add_or_refuse(filter, item, now);
        let hashes = [filter.hash(item); 3];
        let _ = filter.add_batch(&hashes, now, true, LIMIT);
        let _ = filter.contains_batch(&hashes, now, true);
    }
    // A burst of up to three times the capacity at one moment: a TIME window grows layers
    // until the limit refuses one.
    let now = filter.meta().clock_ms;
    let burst = filter.meta().capacity.min(300) * 3;
    for i in 0..burst {
        if !add_or_refuse(filter, &i.to_le_bytes(), now) {
            break;
        }
    }
    assert!(
        filter.memory_bytes() <= LIMIT,
        "a burst went over the limit"
    );
    let value = encode_value(filter);
    let again = codec::load(&mut Reader(&value), codec::ENCODING_VERSION, LIMIT)
        .expect("a used filter is refused");
    assert_eq!(&again, filter, "RDB round trip changed the used filter");
}

/// Adds the item: once added, far from the end of time, it is in the window; a refused add
/// (the window is full) changes nothing. Returns whether it was added.
fn add_or_refuse(filter: &mut WindowFilter, item: &[u8], now: u64) -> bool {
    let before = filter.clone();
    match filter.add(item, now, LIMIT) {
        Ok(_) => {
            if filter.meta().clock_ms < 1 << 62 {
                assert!(filter.contains(item, now), "an added item is missing");
            }
            true
        }
        Err(e) => {
            assert!(
                matches!(e, Error::ApbfFull { .. } | Error::ApbfMaxLayers),
                "an add refused with {e:?}"
            );
            assert_eq!(filter, &before, "a refused add changed the filter");
            assert!(filter.memory_bytes() <= LIMIT);
            false
        }
    }
}

/// An `RSbloomAP` RDB value in the wire form (fuzz target `window_value`), read as each
/// encoding version the type takes. An accepted value re-encodes to exactly the bytes it
/// used (in its version).
pub fn value(data: &[u8]) {
    for version in [codec::ENCODING_VERSION, codec::ENCODING_VERSION_1] {
        let mut reader = Reader(data);
        let Ok(mut filter) = codec::load(&mut reader, version, LIMIT) else {
            continue;
        };
        let used = data.len() - reader.rest().len();
        let again = match version {
            codec::ENCODING_VERSION => encode_value(&filter),
            _ => {
                assert!(filter.layers().is_empty(), "a version 1 value has layers");
                let mut out = Writer::default();
                codec::save_v1(&filter, &mut out);
                out.0
            }
        };
        assert_eq!(
            again,
            &data[..used],
            "accepted value re-encodes differently"
        );
        check_accepted(&mut filter);
    }
}

/// A SCANDUMP header as APBF.LOADCHUNK's first call receives it (either version).
pub fn header(data: &[u8]) {
    if let Ok(mut filter) = codec::decode_header(data, LIMIT) {
        let again = match codec::header_version(data) {
            Some(1) => codec::encode_header_v1(&filter),
            _ => codec::encode_header(&filter),
        };
        assert_eq!(again, data, "accepted header re-encodes differently");
        check_accepted(&mut filter);
    }
}
