//! Entry points for the property tests and the fuzz targets: feed arbitrary bytes to the
//! decoders the server exposes (RDB values, SCANDUMP headers, LOADCHUNK chunks) and panic
//! only if an invariant breaks. A clean rejection is always fine; a filter that is accepted
//! must pass its own validation and survive use and re-encoding unchanged.

use super::chunks::{self, Load};
use super::wire::{Reader, Writer};
use crate::filter::{Chain, Scheme};

/// The size limit the harness runs under: small, so every accepted filter is cheap.
pub const LIMIT: u64 = 1 << 20;

/// xorshift64*: a small, fast, reproducible generator for property tests and benchmarks.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform-enough in `0..n` (0 for n = 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

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
    super::save_value(chain, &mut out);
    let again = super::load_value(chain.scheme(), &mut Reader(&out.0), LIMIT)
        .expect("re-encoded filter is refused");
    assert_eq!(&again, chain, "RDB round trip changed the filter");
    let meta =
        chunks::parse_header(&chunks::header_of(chain), LIMIT).expect("own header is refused");
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

/// An RDB value in the wire form ([`Writer`]), as `rdb_load` would receive its fields.
pub fn rdb_value(data: &[u8]) {
    if let Ok(mut chain) = super::load_value(Scheme::Guava, &mut Reader(data), LIMIT) {
        check_accepted(&mut chain);
    }
}

/// An `MBbloom--` RDB value in the wire form, as its `rdb_load` would receive its fields.
pub fn redisbloom_value(data: &[u8]) {
    let loaded = super::load_value(Scheme::RedisBloom, &mut Reader(data), LIMIT);
    if let Ok(mut chain) = loaded {
        check_accepted(&mut chain);
    }
}

/// A LOADCHUNK session: a 2-byte little-endian header length and the header, then chunks,
/// each as an 8-byte little-endian iterator, a 2-byte length and the data.
pub fn loadchunk_session(data: &[u8]) {
    let Some((len, rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let header_len = u16::from_le_bytes(*len) as usize;
    let (head, mut rest) = rest.split_at(header_len.min(rest.len()));
    let mut chain = match chunks::parse_load(1, head, LIMIT) {
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
        match chunks::parse_load(iter, chunk, LIMIT) {
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
