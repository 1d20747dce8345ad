//! Entry points for the property tests and fuzz targets of the cuckoo decoders: arbitrary
//! bytes as an RDB value or a LOADCHUNK session. A clean rejection is always fine; a filter
//! that is accepted must pass its own validation, stay within the limit, survive use and
//! re-encode to the bytes it came from.

use crate::cuckoo::codec::scandump::{self, Load};
use crate::cuckoo::codec::{rdb, sharded};
use crate::cuckoo::{CuckooFilter, Limits};
use crate::fields::{Reader, Writer};

/// The size limit the harness runs under: small, so every accepted filter is cheap.
pub const LIMIT: u64 = 1 << 20;

/// The RDB value of a filter in the wire form ([`Writer`]).
pub fn encode_value(filter: &CuckooFilter) -> Vec<u8> {
    let mut out = Writer::default();
    rdb::save(filter, &mut out);
    out.0
}

/// Checks an accepted filter: valid, within the limit, stable through both formats, usable.
fn check_accepted(filter: &mut CuckooFilter) {
    filter
        .meta()
        .validate(LIMIT)
        .expect("accepted filter fails its own validation");
    assert!(
        filter.memory_bytes() <= LIMIT,
        "accepted filter over the limit"
    );
    let again = rdb::load(
        &mut Reader(&encode_value(filter)),
        rdb::ENCODING_VERSION,
        LIMIT,
    )
    .expect("re-encoded filter is refused");
    assert_eq!(&again, filter, "RDB round trip changed the filter");
    let header = scandump::encode_header(&filter.meta());
    match scandump::decode_header(&header, LIMIT) {
        Ok(meta) => assert_eq!(meta, filter.meta(), "header round trip changed the filter"),
        // RDB values may hold what a header may not (odd bucket counts, 0 iterations).
        Err(_) => assert!(
            !filter.num_buckets().is_power_of_two() || filter.max_iterations() == 0,
            "own header refused"
        ),
    }
    let limits = Limits::new(LIMIT);
    for item in [&b""[..], b"a", b"fuzz"] {
        let before = filter.clone();
        match filter.add(item, &limits) {
            Ok(()) => assert!(filter.exists(item), "an added item is missing"),
            Err(_) => assert_eq!(&before, filter, "a failed add changed the filter"),
        }
        assert!(filter.memory_bytes() <= LIMIT, "growth over the limit");
        let count = filter.count(item);
        if filter.delete(item) {
            assert!(count > 0, "deleted an item counted 0 times");
        }
    }
    filter.compact(true);
}

/// An `MBbloomCF` RDB value in the wire form, as `rdb_load` would receive its fields (fuzz
/// target `cuckoo_value`). An accepted value re-encodes to exactly the bytes it used.
pub fn value(data: &[u8]) {
    let mut reader = Reader(data);
    if let Ok(mut filter) = rdb::load(&mut reader, rdb::ENCODING_VERSION, LIMIT) {
        let used = data.len() - reader.rest().len();
        assert_eq!(
            encode_value(&filter),
            &data[..used],
            "accepted value re-encodes differently"
        );
        check_accepted(&mut filter);
    }
}

/// An `RSbloomCF` RDB value (a shard) in the wire form (fuzz target `cuckoo_shard_value`).
/// An accepted value re-encodes to exactly the bytes it used, its header (with the place)
/// decodes to the same parameters and place, and the filter passes the checks above.
pub fn shard_value(data: &[u8]) {
    let mut reader = Reader(data);
    if let Ok(filter) = sharded::load(&mut reader, sharded::ENCODING_VERSION, LIMIT) {
        let used = data.len() - reader.rest().len();
        let mut out = Writer::default();
        sharded::save(&filter, &mut out);
        assert_eq!(
            out.0,
            &data[..used],
            "accepted shard re-encodes differently"
        );
        let place = filter.shard().expect("a loaded shard has a place").clone();
        let header = sharded::header_of(&filter);
        let server = scandump::Sender::Server;
        if let Ok((meta, got)) = sharded::decode_any_header(&header, LIMIT, server) {
            assert_eq!(
                (meta, got),
                (filter.meta(), Some(place)),
                "header round trip"
            );
        }
        check_accepted(&mut filter.without_shard());
    }
}

/// A filter's SCANDUMP as one LOADCHUNK session in the form [`loadchunk_session`] reads: the
/// 38-byte header, then each chunk (of at most `chunk_len(i)` bytes for the `i`-th) as its
/// 8-byte little-endian iterator, a 4-byte length and the data.
pub fn encode_session(filter: &CuckooFilter, mut chunk_len: impl FnMut(usize) -> u64) -> Vec<u8> {
    let mut session = scandump::encode_header(&filter.meta());
    let mut iter = 1i64;
    let mut i = 0;
    while let Some(data) = filter.read_chunk(iter as u64 - 1, chunk_len(i)) {
        iter += data.len() as i64;
        session.extend_from_slice(&iter.to_le_bytes());
        session.extend_from_slice(&(data.len() as u32).to_le_bytes());
        session.extend_from_slice(data);
        i += 1;
    }
    session
}

/// A LOADCHUNK session as [`encode_session`] writes it (fuzz target `cuckoo_loadchunk`).
pub fn loadchunk_session(data: &[u8]) {
    let (head, mut rest) = data.split_at(scandump::HEADER_LEN.min(data.len()));
    let mut filter = match scandump::parse_load(1, head, LIMIT) {
        Ok(Load::Header(meta)) => match CuckooFilter::from_meta(&meta, LIMIT) {
            Ok(filter) => filter,
            Err(_) => return,
        },
        _ => return,
    };
    while let Some((iter, tail)) = rest.split_first_chunk::<8>() {
        let Some((len, body)) = tail.split_first_chunk::<4>() else {
            break;
        };
        let len = u32::from_le_bytes(*len) as usize;
        let (chunk, tail) = body.split_at(len.min(body.len()));
        rest = tail;
        match scandump::parse_load(i64::from_le_bytes(*iter), chunk, LIMIT) {
            Ok(Load::Data { offset, data }) => {
                let before = filter.slot_bytes();
                if filter.write_chunk(offset, data).is_ok() {
                    assert!(offset + data.len() as u64 <= before, "write past the end");
                }
            }
            Ok(Load::Header(_) | Load::ShardHeader(..)) | Err(_) => {}
        }
    }
    check_accepted(&mut filter);
}
