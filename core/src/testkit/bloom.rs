//! Entry points for the property tests and the fuzz targets: feed arbitrary bytes to the
//! Bloom decoders the server exposes (RDB values, SCANDUMP headers, LOADCHUNK chunks) and
//! panic only if an invariant breaks. A clean rejection is always fine; a filter that is
//! accepted must pass its own validation and survive use and re-encoding unchanged.

use crate::bloom::codec::scandump::{self, Load};
use crate::bloom::codec::{load_value, save_value};
use crate::bloom::{Chain, Scheme};
use crate::fields::{Reader, Writer};

/// The size limit the harness runs under: small, so every accepted filter is cheap.
pub const LIMIT: u64 = 1 << 20;

/// Checks an accepted filter: valid parameters, usable, and stable through both formats.
fn check_accepted(chain: &mut Chain) {
    chain
        .meta()
        .validate(LIMIT)
        .expect("accepted filter fails its own validation");
    assert!(
        chain.memory_bytes() <= LIMIT,
        "accepted filter over the limit"
    );
    let mut out = Writer::default();
    save_value(chain, &mut out);
    let again = load_value(chain.scheme(), &mut Reader(&out.0), LIMIT)
        .expect("re-encoded filter is refused");
    assert_eq!(&again, chain, "RDB round trip changed the filter");
    let meta =
        scandump::parse_header(&scandump::header_of(chain), LIMIT).expect("own header is refused");
    assert_eq!(
        meta,
        chain.meta(),
        "header round trip changed the parameters"
    );
    for item in [&b""[..], b"a", b"fuzz"] {
        if chain.add(item, LIMIT).is_ok() {
            assert!(chain.contains(item), "an added item is missing");
        }
    }
}

/// An RDB value of either Bloom type in the wire form ([`Writer`]), as that type's
/// `rdb_load` would receive its fields.
pub fn value(scheme: Scheme, data: &[u8]) {
    if let Ok(mut chain) = load_value(scheme, &mut Reader(data), LIMIT) {
        check_accepted(&mut chain);
    }
}

/// An `RSbloom--` RDB value (fuzz target `rdb_value`).
pub fn rdb_value(data: &[u8]) {
    value(Scheme::Guava, data)
}

/// An `MBbloom--` RDB value (fuzz target `redisbloom_value`).
pub fn redisbloom_value(data: &[u8]) {
    value(Scheme::RedisBloom, data)
}

/// The fuzz target that reads RDB values of the type `scheme` maps to.
pub fn value_target(scheme: Scheme) -> &'static str {
    match scheme {
        Scheme::Guava => "rdb_value",
        Scheme::RedisBloom => "redisbloom_value",
    }
}

/// A filter's SCANDUMP as one LOADCHUNK session in the form [`loadchunk_session`] reads: a
/// 2-byte little-endian header length and the header, then each chunk (of at most
/// `chunk_len(i)` bytes for the `i`-th) as its 8-byte little-endian iterator, a 2-byte
/// length and the data.
pub fn encode_session(chain: &Chain, mut chunk_len: impl FnMut(usize) -> u64) -> Vec<u8> {
    let head = scandump::header_of(chain);
    let mut session = (head.len() as u16).to_le_bytes().to_vec();
    session.extend_from_slice(&head);
    let mut offset = 0u64;
    let mut i = 0;
    while let Some(data) = chain.read_chunk(offset, chunk_len(i)) {
        offset += data.len() as u64;
        session.extend_from_slice(&(offset as i64 + 1).to_le_bytes());
        session.extend_from_slice(&(data.len() as u16).to_le_bytes());
        session.extend_from_slice(&data);
        i += 1;
    }
    session
}

/// A LOADCHUNK session as [`encode_session`] writes it (fuzz target `loadchunk_session`).
pub fn loadchunk_session(data: &[u8]) {
    let Some((len, rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let header_len = u16::from_le_bytes(*len) as usize;
    let (head, mut rest) = rest.split_at(header_len.min(rest.len()));
    let mut chain = match scandump::parse_load(1, head, LIMIT, false) {
        Ok(Load::Header(meta)) => match Chain::from_meta(&meta, LIMIT) {
            Ok(chain) => chain,
            Err(_) => return,
        },
        _ => return,
    };
    while rest.len() >= 10 {
        let iter = i64::from_le_bytes(rest[..8].try_into().unwrap_or_default());
        let len = u16::from_le_bytes([rest[8], rest[9]]) as usize;
        let body = &rest[10..];
        let (chunk, tail) = body.split_at(len.min(body.len()));
        rest = tail;
        match scandump::parse_load(iter, chunk, LIMIT, true) {
            Ok(Load::Data { offset, data }) => {
                let before = chain.data_len();
                if chain.write_chunk(offset, data).is_ok() {
                    assert!(offset + data.len() as u64 <= before, "write past the end");
                }
            }
            Ok(Load::Header(_)) | Err(_) => {}
        }
    }
    check_accepted(&mut chain);
}
