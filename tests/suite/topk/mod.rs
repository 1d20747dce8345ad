//! The Top-K family: TOPK.* commands on RedisBloom's `TopK-TYPE`, checked against the
//! RedisBloom vectors of `tests/vectors/redisbloom-topk/`, the live RedisBloom 2.8.2, and
//! rsbloom's own promises (deterministic decay: replicas, reloads and replays hold the same
//! bytes).

mod commands;
mod hostile_restore;
mod persistence;
mod redisbloom_load;
mod redisbloom_replay;
mod replication;

use rsbloom_test_support as common;

use common::files;
use common::raw_resp::{bulk_payload, RawConn};
use common::rdb::{dump_body, Cursor};
use common::{Installed, Server, ServerOpts};
pub use rsbloom_core::testkit::topk::as_c_strings;

pub const SET: &str = "redisbloom-topk";
/// Every recorded configuration (README section 2).
pub const CONFIGS: [&str; 10] = [
    "default", "nodecay", "decay1", "incrby", "binary", "restored", "k1", "empty", "resp3",
    "errors",
];
/// RedisBloom's module id of `TopK-TYPE` at encoding version 0.
pub const MODULE_ID: u64 = 0x4e8a_4af9_360f_1000;

/// A server on Redis 7.4.1, where the vectors were recorded (doubles print alike).
pub fn redis74() -> Server {
    Server::start_with(ServerOpts::default().on(&Installed::get("redis-7.4")))
}

/// RedisBloom 2.8.2 on Redis 7.4.1.
pub fn redisbloom() -> Server {
    Server::start_with(
        ServerOpts::default()
            .on(&Installed::get("redis-7.4"))
            .redisbloom(),
    )
}

/// One recorded line: `(seq, proto, reply, argv)`.
pub type Line = (u64, u8, Vec<u8>, Vec<Vec<u8>>);

/// The lines of `NAME.commands.tsv` (or `.rb8.tsv`).
pub fn session(file: &str) -> Vec<Line> {
    files::read(SET, file)
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].parse().expect("seq"),
                f[1].parse().expect("proto"),
                files::unescape(f[2]),
                f[3..].iter().map(|a| files::unescape(a)).collect(),
            )
        })
        .collect()
}

/// The fields of a Top-K DUMP payload (CRC checked), strings decompressed, in order:
/// `k, width, depth` (as 8-byte LE), decay, buckets, heap, items; with the heap entries'
/// pointer bytes zeroed when `mask`, as one byte vector per field.
pub fn fields(payload: &[u8], mask: bool) -> Vec<Vec<u8>> {
    let body = dump_body(payload);
    let mut c = Cursor::new(body);
    c.module_head(MODULE_ID, 0).expect("a TopK-TYPE v0 value");
    let mut out = Vec::new();
    for _ in 0..3 {
        out.push(c.unsigned().expect("uint").to_le_bytes().to_vec());
    }
    out.push(c.double().expect("double").to_le_bytes().to_vec());
    out.push(c.string_bytes().expect("buckets"));
    let mut heap = c.string_bytes().expect("heap");
    let k = heap.len() / 24;
    if mask {
        for e in 0..k {
            heap[e * 24 + 8..e * 24 + 16].fill(0);
        }
    }
    out.push(heap);
    for _ in 0..k {
        out.push(c.string_bytes().expect("item"));
    }
    c.module_eof().expect("module EOF");
    assert_eq!(c.pos, body.len(), "bytes after the value");
    out
}

/// The DUMP payload of `key` (panics unless the key exists).
pub fn dump(con: &mut RawConn, key: &[u8]) -> Vec<u8> {
    let reply = con.send(&[b"DUMP".as_slice(), key]);
    bulk_payload(&reply)
        .unwrap_or_else(|| panic!("DUMP {} answered {reply:?}", String::from_utf8_lossy(key)))
        .to_vec()
}

/// Every answer a key gives: INFO in both protocols, LIST, LIST WITHCOUNT, and QUERY and
/// COUNT of `items`.
pub fn answers(c2: &mut RawConn, c3: &mut RawConn, key: &[u8], items: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out = vec![
        c2.send(&[b"TOPK.INFO".as_slice(), key]),
        c3.send(&[b"TOPK.INFO".as_slice(), key]),
        c2.send(&[b"TOPK.LIST".as_slice(), key]),
        c2.send(&[b"TOPK.LIST".as_slice(), key, b"WITHCOUNT"]),
        c3.send(&[b"TOPK.LIST".as_slice(), key, b"WITHCOUNT"]),
    ];
    for cmd in [b"TOPK.QUERY".as_slice(), b"TOPK.COUNT"] {
        let mut args = vec![cmd.to_vec(), key.to_vec()];
        args.extend(items.iter().cloned());
        out.push(c2.send(&args));
        out.push(c3.send(&args));
    }
    out
}

/// Every item a session names (the arguments after the key of its ADD, INCRBY, QUERY and
/// COUNT lines), once each, in order of appearance.
pub fn items_of(lines: &[Line]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for (_, _, _, argv) in lines {
        let cmd = argv[0].to_ascii_uppercase();
        let step = match cmd.as_slice() {
            b"TOPK.ADD" | b"TOPK.QUERY" | b"TOPK.COUNT" => 1,
            b"TOPK.INCRBY" => 2,
            _ => continue,
        };
        for item in argv.iter().skip(2).step_by(step) {
            if !out.contains(item) {
                out.push(item.clone());
            }
        }
    }
    out
}
