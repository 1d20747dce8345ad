//! The sliding-window filters: APBF.* commands on rsbloom's `RSbloomAP` type. The heavy
//! model checks (false-positive rates over a million queries, shapes, the codec's
//! property tests) are the core's (`core/src/window/`); here the commands against a real
//! server, the windows end to end (COUNT by MADD, TIME by APBF.INSERTAT at chosen past
//! times, so no test depends on how fast it runs), the server's ways of moving data and
//! hostile input.

mod burst;
mod commands;
mod hostile;
mod keyed;
mod persistence;
mod version1;
mod window;

use rsbloom_test_support as common;

use common::*;
use redis::{Connection, Value};

/// Items per command and commands per pipeline of [`multi`].
const BATCH: usize = 500;
const PIPELINE: usize = 20;

/// A multi-item command (`APBF.MADD`, `APBF.MEXISTS`, or `APBF.INSERTAT` with `pre` = the
/// time) over all items in pipelined batches; the integer answers in order.
pub fn multi_with(
    c: &mut Connection,
    command: &str,
    key: &str,
    pre: &[&str],
    items: &[Vec<u8>],
) -> Vec<i64> {
    let mut out = Vec::with_capacity(items.len());
    let batches: Vec<&[Vec<u8>]> = items.chunks(BATCH).collect();
    for group in batches.chunks(PIPELINE) {
        let mut pipe = redis::pipe();
        for batch in group {
            let cmd = pipe.cmd(command).arg(key);
            for p in pre {
                cmd.arg(*p);
            }
            for item in batch.iter() {
                cmd.arg(item.as_slice());
            }
        }
        let replies: Vec<Value> = pipe
            .query(c)
            .unwrap_or_else(|e| panic!("{command} {key}: {e}"));
        for (reply, batch) in replies.iter().zip(group) {
            let answers = as_ints(reply);
            assert_eq!(answers.len(), batch.len(), "{command} {key}: {reply:?}");
            out.extend(answers);
        }
    }
    out
}

/// [`multi_with`] without arguments before the items.
pub fn multi(c: &mut Connection, command: &str, key: &str, items: &[Vec<u8>]) -> Vec<i64> {
    multi_with(c, command, key, &[], items)
}

/// `APBF.INSERTAT key ms items...` in batches (all at `ms`).
pub fn insert_at(c: &mut Connection, key: &str, ms: u64, items: &[Vec<u8>]) -> Vec<i64> {
    multi_with(c, "APBF.INSERTAT", key, &[&ms.to_string()], items)
}

/// How many of `items` the filter answers 1 for.
pub fn found(c: &mut Connection, key: &str, items: &[Vec<u8>]) -> usize {
    multi(c, "APBF.MEXISTS", key, items)
        .iter()
        .filter(|&&a| a == 1)
        .count()
}

/// The server's clock (`TIME`) in milliseconds since the epoch: the clock APBF.ADD takes
/// and lookups ask at.
pub fn server_ms(c: &mut Connection) -> u64 {
    match raw(c, &["TIME"]) {
        Value::Array(a) if a.len() == 2 => {
            let s: u64 = as_text(&a[0]).parse().unwrap();
            let us: u64 = as_text(&a[1]).parse().unwrap();
            s * 1000 + us / 1000
        }
        other => panic!("TIME answered {other:?}"),
    }
}

/// APBF.INFO as (name, value) pairs (RESP2).
pub fn apbf_info(c: &mut Connection, key: &str) -> Vec<(String, Value)> {
    match raw(c, &["APBF.INFO", key]) {
        Value::Array(a) => a
            .chunks(2)
            .map(|p| (as_text(&p[0]), p[1].clone()))
            .collect(),
        other => panic!("APBF.INFO {key} answered {other:?}"),
    }
}

/// One APBF.INFO field as an integer.
pub fn apbf_field(c: &mut Connection, key: &str, name: &str) -> i64 {
    let info = apbf_info(c, key);
    let v = &info
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name} in {info:?}"))
        .1;
    as_int(v)
}

/// One APBF.INFO field as text (doubles as the server prints them).
pub fn apbf_text(c: &mut Connection, key: &str, name: &str) -> String {
    let info = apbf_info(c, key);
    as_text(
        &info
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no {name} in {info:?}"))
            .1,
    )
}

/// The whole APBF.SCANDUMP stream: `(next iterator, data)` per step, the final `[0, ""]`
/// left out.
pub fn scandump(c: &mut Connection, key: &str) -> Vec<(i64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut iter = 0i64;
    loop {
        let v = raw(c, &["APBF.SCANDUMP", key, &iter.to_string()]);
        let (next, data) = match &v {
            Value::Array(a) if a.len() == 2 => (as_int(&a[0]), as_bytes(&a[1])),
            other => panic!("APBF.SCANDUMP {key} {iter} answered {other:?}"),
        };
        if next == 0 {
            assert!(data.is_empty(), "APBF.SCANDUMP {key}: the end carries data");
            return out;
        }
        out.push((next, data));
        assert!(out.len() < 1_000_000, "APBF.SCANDUMP {key} never ends");
        iter = next;
    }
}

/// `APBF.LOADCHUNK key next data` for every step of a SCANDUMP stream.
pub fn loadchunks(c: &mut Connection, key: &str, chunks: &[(i64, Vec<u8>)]) {
    for (next, data) in chunks {
        let n = next.to_string();
        expect_ok(
            c,
            &[
                b"APBF.LOADCHUNK",
                key.as_bytes(),
                n.as_bytes(),
                data.as_slice(),
            ],
        );
    }
}

/// What must survive any move of a key: its type, APBF.INFO, the digest, the SCANDUMP
/// stream (the header, then the data however `bf.chunk-bytes` cuts it) and every answer
/// of `queries`.
#[derive(Debug, PartialEq)]
pub struct State {
    pub info: Vec<(String, Value)>,
    pub digest: String,
    pub dump: (Vec<u8>, Vec<u8>),
    pub answers: Vec<i64>,
}

/// A SCANDUMP stream as its header and its data.
pub fn stream(chunks: &[(i64, Vec<u8>)]) -> (Vec<u8>, Vec<u8>) {
    let data = chunks[1..]
        .iter()
        .flat_map(|(_, d)| d.iter().copied())
        .collect();
    (chunks[0].1.clone(), data)
}

pub fn state(c: &mut Connection, key: &str, queries: &[Vec<u8>]) -> State {
    assert_eq!(as_text(&raw(c, &["TYPE", key])), "RSbloomAP", "TYPE {key}");
    State {
        info: apbf_info(c, key),
        digest: digest_value(c, key),
        dump: stream(&scandump(c, key)),
        answers: multi(c, "APBF.MEXISTS", key, queries),
    }
}

/// Which parts of two states differ (for failure messages).
pub fn differences(a: &State, b: &State) -> String {
    let mut out = Vec::new();
    if a.info != b.info {
        out.push(format!("info {:?} vs {:?}", a.info, b.info));
    }
    if a.digest != b.digest {
        out.push(format!("digest {} vs {}", a.digest, b.digest));
    }
    if a.dump.0 != b.dump.0 {
        out.push("SCANDUMP header".into());
    }
    if a.dump.1 != b.dump.1 {
        out.push("SCANDUMP data".into());
    }
    if a.answers != b.answers {
        let n = a
            .answers
            .iter()
            .zip(&b.answers)
            .filter(|(x, y)| x != y)
            .count();
        out.push(format!("{n} answers"));
    }
    out.join("; ")
}
