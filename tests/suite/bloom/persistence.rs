//! Filters survive every way Redis moves data: DEBUG RELOAD, restart from the RDB, AOF
//! rewrite (BF.LOADCHUNK commands) and replay, DUMP/RESTORE, SCANDUMP/LOADCHUNK, COPY.
//! After each, BF.DEBUG, BF.INFO, the digest and the answers are the same as before.

use rsbloom_test_support as common;

use common::rdb::crc64;
use common::*;
use redis::{Connection, Value};
use std::collections::BTreeMap;

/// The keys of the data set and the items each holds.
struct Dataset {
    keys: Vec<(String, Vec<Vec<u8>>)>,
    queries: Vec<Vec<u8>>,
}

/// Several shapes of filter: multi-layer scaling, non-scaling, implicit, other expansion,
/// empty, binary items.
fn build(c: &mut Connection) -> Dataset {
    let mut keys = Vec::new();
    expect_ok(c, &["BF.RESERVE", "sc", "0.01", "1000"]);
    keys.push(("sc".to_string(), gen_items("sc:", 0..10_000)));
    expect_ok(c, &["BF.RESERVE", "ns", "0.001", "5000", "NONSCALING"]);
    keys.push(("ns".to_string(), gen_items("ns:", 0..3000)));
    keys.push(("ad".to_string(), gen_items("ad:", 0..250)));
    expect_ints(
        c,
        &[
            "BF.INSERT",
            "ex",
            "CAPACITY",
            "50",
            "ERROR",
            "0.2",
            "EXPANSION",
            "5",
            "ITEMS",
            "x",
        ],
        &[1],
    );
    let mut ex = gen_items("ex:", 0..1000);
    ex.push(b"x".to_vec());
    ex.push(Vec::new());
    ex.push(b"\x00\xff\xfe\x80".to_vec());
    keys.push(("ex".to_string(), ex));
    expect_ok(c, &["BF.RESERVE", "empty", "0.05", "10"]);
    keys.push(("empty".to_string(), Vec::new()));
    for (key, items) in &keys {
        if !items.is_empty() {
            madd_all(c, key, items);
        }
    }
    let queries = gen_items("query:", 0..20_000);
    Dataset { keys, queries }
}

/// What must survive: BF.DEBUG, BF.INFO without Size (allocation slack may differ), the
/// digest, and the answers to the queries.
#[derive(Debug, PartialEq)]
struct KeyState {
    debug: Vec<String>,
    info: Vec<(String, Value)>,
    digest: String,
    answers: Vec<i64>,
}

fn key_state(c: &mut Connection, key: &str, queries: &[Vec<u8>]) -> KeyState {
    let mut info = bf_info(c, key);
    info.retain(|(n, _)| n != "Size");
    KeyState {
        debug: bf_debug(c, key),
        info,
        digest: digest_value(c, key),
        answers: mexists_all(c, key, queries),
    }
}

fn snapshot(c: &mut Connection, ds: &Dataset) -> BTreeMap<String, KeyState> {
    ds.keys
        .iter()
        .map(|(k, _)| (k.clone(), key_state(c, k, &ds.queries)))
        .collect()
}

/// `dst` holds what `src` held at snapshot time, and all of `src`'s items answer 1.
fn verify_key(
    c: &mut Connection,
    ds: &Dataset,
    snap: &BTreeMap<String, KeyState>,
    src: &str,
    dst: &str,
) {
    assert_eq!(as_text(&raw(c, &["TYPE", dst])), "RSbloom--", "TYPE {dst}");
    let state = key_state(c, dst, &ds.queries);
    let want = &snap[src];
    assert_eq!(state.debug, want.debug, "BF.DEBUG {dst} (from {src})");
    assert_eq!(state.info, want.info, "BF.INFO {dst} (from {src})");
    assert_eq!(
        state.digest, want.digest,
        "DEBUG DIGEST-VALUE {dst} (from {src})"
    );
    assert!(
        state.answers == want.answers,
        "query answers of {dst} (from {src}) changed"
    );
    let items = &ds.keys.iter().find(|(k, _)| k == src).expect("key").1;
    if !items.is_empty() {
        let misses = mexists_all(c, dst, items)
            .iter()
            .filter(|&&a| a != 1)
            .count();
        assert_eq!(misses, 0, "{misses} items of {src} answer 0 in {dst}");
    }
}

fn verify_all(c: &mut Connection, ds: &Dataset, snap: &BTreeMap<String, KeyState>) {
    for (k, _) in &ds.keys {
        verify_key(c, ds, snap, k, k);
    }
}

#[test]
fn debug_reload() {
    let s = Server::start();
    let mut c = s.conn();
    let ds = build(&mut c);
    let snap = snapshot(&mut c, &ds);
    expect_ok(&mut c, &["DEBUG", "RELOAD"]);
    verify_all(&mut c, &ds, &snap);
}

#[test]
fn restart_from_rdb() {
    let mut s = Server::start();
    let mut c = s.conn();
    let ds = build(&mut c);
    let snap = snapshot(&mut c, &ds);
    expect_ok(&mut c, &["SAVE"]);
    drop(c);
    s.restart(&[]);
    let mut c = s.conn();
    expect_int(&mut c, &["DBSIZE"], ds.keys.len() as i64);
    verify_all(&mut c, &ds, &snap);
}

/// The byte size of each layer, from BF.DEBUG.
fn layer_bytes(c: &mut Connection, key: &str) -> Vec<u64> {
    bf_debug(c, key)[1..]
        .iter()
        .map(|l| {
            let f = l.split(' ').next().expect("field");
            f.strip_prefix("bytes:")
                .expect("bytes:")
                .parse()
                .expect("number")
        })
        .collect()
}

#[test]
fn aof_rewrite_and_replay() {
    let mut s = Server::start();
    let mut c = s.conn();
    let mut ds = build(&mut c);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.chunk-bytes", "64"]);
    expect_ok(&mut c, &["CONFIG", "SET", "aof-use-rdb-preamble", "no"]);
    expect_ok(&mut c, &["CONFIG", "SET", "appendonly", "yes"]);
    wait_for_aof_rewrite(&mut c);
    let v = raw(&mut c, &["BGREWRITEAOF"]);
    assert!(err_of(&v).is_none(), "BGREWRITEAOF answered {v:?}");
    wait_for_aof_rewrite(&mut c);

    // The rewrite emitted each filter as BF.LOADCHUNK commands of at most 64 data bytes.
    let (base, bytes) = s.aof_base();
    assert!(
        base.ends_with(".base.aof"),
        "base file {base} is not an AOF"
    );
    let commands = parse_aof(&bytes).unwrap_or_else(|e| panic!("{base} is not plain RESP: {e}"));
    for (key, _) in &ds.keys {
        let chunks: Vec<&Vec<Vec<u8>>> = commands
            .iter()
            .filter(|a| a[0].eq_ignore_ascii_case(b"BF.LOADCHUNK") && a[1] == key.as_bytes())
            .collect();
        assert!(!chunks.is_empty(), "no BF.LOADCHUNK for {key} in the AOF");
        assert_eq!(chunks[0][2], b"1", "{key}: the first chunk is the header");
        for ch in &chunks[1..] {
            assert_eq!(ch.len(), 4);
            assert!(ch[3].len() <= 64, "{key}: a chunk of {} bytes", ch[3].len());
        }
        let min: u64 = layer_bytes(&mut c, key)
            .iter()
            .map(|b| b.div_ceil(64))
            .sum();
        assert!(
            (chunks.len() - 1) as u64 >= min,
            "{key}: {} data chunks for at least {min} needed",
            chunks.len() - 1
        );
    }

    // Writes after the rewrite go to the AOF as commands.
    let more = gen_items("after:", 0..500);
    madd_all(&mut c, "sc", &more);
    ds.keys[0].1.extend(more);
    expect_ok(&mut c, &["BF.RESERVE", "late", "0.01", "200"]);
    let late = gen_items("late:", 0..300);
    madd_all(&mut c, "late", &late);
    ds.keys.push(("late".to_string(), late));
    let snap = snapshot(&mut c, &ds);
    drop(c);

    std::fs::remove_file(s.dir().join("dump.rdb")).ok();
    s.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]);
    let mut c = s.conn();
    expect_int(&mut c, &["DBSIZE"], ds.keys.len() as i64);
    verify_all(&mut c, &ds, &snap);
}

/// Writes logged to the AOF after a rewrite are replayed at start-up, when the bf.* settings
/// may differ from the ones in force when the write was made (CONFIG SET is not persisted):
/// a filter created implicitly must come back with the parameters it was created with.
#[test]
fn aof_replay_of_implicit_creation() {
    let mut s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["CONFIG", "SET", "appendonly", "yes"]);
    wait_for_aof_rewrite(&mut c);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.initial-size", "1000"]);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.error-rate", "0.001"]);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.expansion-factor", "4"]);
    expect_int(&mut c, &["BF.ADD", "viaadd", "x"], 1);
    expect_ints(&mut c, &["BF.MADD", "viamadd", "x", "y"], &[1, 1]);
    expect_ints(&mut c, &["BF.INSERT", "viainsert", "ITEMS", "x"], &[1]);
    let keys = ["viaadd", "viamadd", "viainsert"];
    let before: Vec<Vec<String>> = keys.iter().map(|k| bf_debug(&mut c, k)).collect();
    drop(c);
    s.restart(&["--appendonly", "yes"]);
    let mut c = s.conn();
    for (key, want) in keys.iter().zip(&before) {
        assert_eq!(
            &bf_debug(&mut c, key),
            want,
            "BF.DEBUG {key} after the AOF replay"
        );
    }
}

#[test]
fn dump_and_restore() {
    let s = Server::start();
    let mut c = s.conn();
    let ds = build(&mut c);
    let snap = snapshot(&mut c, &ds);
    expect_ok(&mut c, &["BF.RESERVE", "victim", "0.3", "3"]);
    for (key, _) in &ds.keys {
        let payload = as_bytes(&raw(&mut c, &["DUMP", key]));
        let copy = format!("{key}:restored");
        expect_ok(&mut c, &[b"RESTORE", copy.as_bytes(), b"0", &payload]);
        verify_key(&mut c, &ds, &snap, key, &copy);
        // REPLACE over an existing filter.
        expect_ok(
            &mut c,
            &[&b"RESTORE"[..], b"victim", b"0", &payload, b"REPLACE"],
        );
        verify_key(&mut c, &ds, &snap, key, "victim");
    }
}

/// A DUMP payload with a new body and the original RDB version, with a valid checksum.
fn reseal(body: &[u8], version: &[u8]) -> Vec<u8> {
    let mut p = body.to_vec();
    p.extend_from_slice(version);
    let crc = crc64(&p);
    p.extend_from_slice(&crc.to_le_bytes());
    p
}

#[test]
fn hostile_restore_payloads_are_refused() {
    assert_eq!(crc64(b"123456789"), 0xe9c6_d914_c4b8_d9ca);
    let mut s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "100"]);
    madd_all(&mut c, "k", &gen_items("h:", 0..300));
    let payload = as_bytes(&raw(&mut c, &["DUMP", "k"]));
    let (body, footer) = payload.split_at(payload.len() - 10);
    let version = &footer[..2];
    // Resealing the untouched body is accepted (the checksum code is right).
    expect_ok(
        &mut c,
        &[b"RESTORE", &b"same"[..], b"0", &reseal(body, version)],
    );
    assert_eq!(bf_debug(&mut c, "same"), bf_debug(&mut c, "k"));

    // Every truncation is refused, and the server lives on.
    let mut cuts: Vec<usize> = (1..body.len().min(120)).collect();
    cuts.extend((120..body.len()).step_by(37));
    cuts.push(body.len() - 1);
    for cut in cuts {
        let bad = reseal(&body[..cut], version);
        expect_err(
            &mut c,
            &[&b"RESTORE"[..], b"cut", b"0", &bad],
            "ERR Bad data format",
        );
        s.assert_alive();
    }
    // Corrupted bytes in the parameters: refused, or accepted as a working filter.
    for pos in 10..body.len().min(200) {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut b = body.to_vec();
            b[pos] ^= flip;
            let v = raw(
                &mut c,
                &[
                    &b"RESTORE"[..],
                    b"flip",
                    b"0",
                    &reseal(&b, version),
                    b"REPLACE",
                ],
            );
            s.assert_alive();
            if v == Value::Okay {
                // Whatever was accepted must be usable.
                bf_debug(&mut c, "flip");
                raw(&mut c, &["BF.EXISTS", "flip", "x"]);
                raw(&mut c, &["BF.ADD", "flip", "x"]);
                raw(&mut c, &["DEBUG", "DIGEST-VALUE", "flip"]);
                s.assert_alive();
            } else {
                assert_eq!(
                    err_of(&v).as_deref(),
                    Some("ERR Bad data format"),
                    "byte {pos} ^ {flip:#x}"
                );
            }
        }
    }
    assert_eq!(as_text(&raw(&mut c, &["PING"])), "PONG");
}

/// Check the chunk layout: a header, then contiguous chunks of at most `limit` bytes
/// covering all layers, none crossing a layer boundary.
fn check_chunks(chunks: &[Chunk], layers: &[u64], limit: usize) {
    assert_eq!((chunks[0].sent, chunks[0].next), (0, 1), "header step");
    let total: u64 = layers.iter().sum();
    let mut offset = 0u64;
    for ch in &chunks[1..] {
        let len = ch.data.len() as u64;
        assert!(
            len > 0 && len <= limit as u64,
            "chunk of {len} bytes, limit {limit}"
        );
        assert_eq!(ch.sent as u64 - 1, offset, "chunks are not contiguous");
        assert_eq!(
            ch.next as u64,
            ch.sent as u64 + len,
            "iterator is not 1 + the offset"
        );
        let mut start = 0;
        let layer_end = layers
            .iter()
            .map(|b| {
                start += b;
                start
            })
            .find(|&end| end > offset)
            .expect("offset inside the layers");
        assert!(
            offset + len <= layer_end,
            "chunk [{offset}, {}) crosses a layer end at {layer_end}",
            offset + len
        );
        offset += len;
    }
    assert_eq!(offset, total, "the chunks do not cover the layers");
}

#[test]
fn scandump_into_another_key() {
    let s = Server::start();
    let mut c = s.conn();
    let ds = build(&mut c);
    let snap = snapshot(&mut c, &ds);
    for limit in [16_777_216usize, 64, 1000] {
        expect_ok(
            &mut c,
            &["CONFIG", "SET", "bf.chunk-bytes", &limit.to_string()],
        );
        for (key, _) in &ds.keys {
            let chunks = scandump(&mut c, key);
            check_chunks(&chunks, &layer_bytes(&mut c, key), limit);
            let copy = format!("{key}:loaded:{limit}");
            loadchunks(&mut c, &copy, &chunks);
            verify_key(&mut c, &ds, &snap, key, &copy);
        }
    }
}

#[test]
fn copy_is_deep() {
    let s = Server::start();
    let mut c = s.conn();
    let ds = build(&mut c);
    let snap = snapshot(&mut c, &ds);
    for (key, _) in &ds.keys {
        let copy = format!("{key}:copy");
        expect_int(&mut c, &["COPY", key, &copy], 1);
        verify_key(&mut c, &ds, &snap, key, &copy);
        // Writing to the copy leaves the original alone.
        madd_all(&mut c, &copy, &gen_items("copy-only:", 0..50));
        verify_key(&mut c, &ds, &snap, key, key);
    }
}

#[test]
fn memory_usage_matches_info_size() {
    let s = Server::start();
    let mut c = s.conn();
    let ds = build(&mut c);
    for (key, _) in &ds.keys {
        let size = as_int(&info_value(&mut c, key, "Size"));
        let bits: u64 = layer_bytes(&mut c, key).iter().sum();
        assert!(
            size as u64 >= bits,
            "{key}: Size {size} below {bits} bytes of bits"
        );
        let usage = memory_usage(&mut c, key);
        assert!(
            usage >= size && usage - size < 200,
            "{key}: MEMORY USAGE {usage} vs BF.INFO Size {size}"
        );
    }
}
