//! Entry point for the property tests and the fuzz target of the Top-K decoder: arbitrary
//! bytes as an RDB value. A clean rejection is always fine; a sketch that is accepted must
//! stay within the limit, survive use, and re-encode to a value that loads as the same
//! sketch (the bytes may differ where the loader is lenient: heap pointers of entries other
//! than the first, padding).

use crate::fields::{Reader, Writer};
use crate::topk::codec;
use crate::topk::TopK;

/// The size limit the harness runs under: small, so every accepted sketch is cheap.
pub const LIMIT: u64 = 1 << 20;

/// The RDB value of a sketch in the wire form ([`Writer`]).
pub fn encode_value(topk: &TopK) -> Vec<u8> {
    let mut out = Writer::default();
    codec::save(topk, &mut out);
    out.0
}

/// A `TopK-TYPE` RDB value in the wire form, as `rdb_load` would receive its fields (fuzz
/// target `topk_value`).
pub fn value(data: &[u8]) {
    let Ok(mut topk) = codec::load(&mut Reader(data), codec::ENCODING_VERSION, LIMIT) else {
        return;
    };
    assert!(topk.held_bytes() <= LIMIT, "accepted sketch over the limit");
    let bytes = encode_value(&topk);
    let again = codec::load(&mut Reader(&bytes), codec::ENCODING_VERSION, LIMIT)
        .expect("re-encoded sketch is refused");
    assert_eq!(again, topk, "RDB round trip changed the sketch");
    assert_eq!(encode_value(&again), bytes, "second encoding differs");
    for (item, by) in [(&b""[..], 1), (b"a", 3), (b"fuzz\0", 100)] {
        topk.add(item, by);
        topk.query(item);
        topk.count(item);
    }
    topk.list();
}

/// A reply with every bulk string cut at its first NUL, as RedisBloom sends items (C
/// strings); rsbloom sends them whole.
pub fn as_c_strings(reply: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < reply.len() {
        let end = i
            + reply[i..]
                .windows(2)
                .position(|w| w == b"\r\n")
                .expect("CRLF")
            + 2;
        let line = &reply[i..end];
        i = end;
        if line[0] == b'$' && line != b"$-1\r\n" {
            let n: usize = std::str::from_utf8(&line[1..line.len() - 2])
                .unwrap()
                .parse()
                .unwrap();
            let data = &reply[i..i + n];
            let cut = &data[..data.iter().position(|&c| c == 0).unwrap_or(n)];
            out.extend(format!("${}\r\n", cut.len()).into_bytes());
            out.extend_from_slice(cut);
            out.extend_from_slice(b"\r\n");
            i += n + 2;
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}
