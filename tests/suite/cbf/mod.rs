//! The counting Bloom filters: CBF.* commands on rsbloom's `RSbloomCB` type. The heavy
//! model checks (false-positive rates over a million queries, the multiset model,
//! saturation) are the core's (`core/src/counting/tests.rs`); here the commands, the server's
//! ways of moving data, replication and hostile input.

mod commands;
mod hostile;
mod merge;
mod persistence;
mod replication;

use rsbloom_test_support as common;

use common::*;
use redis::{Connection, Value};

/// Items per command and commands per pipeline of [`multi`].
const BATCH: usize = 500;
const PIPELINE: usize = 20;

/// One multi-item command (`CBF.MADD`, `CBF.MEXISTS`, `CBF.MDEL`) over all items in
/// pipelined batches; the integer answers in order.
pub fn multi(c: &mut Connection, command: &str, key: &str, items: &[Vec<u8>]) -> Vec<i64> {
    let mut out = Vec::with_capacity(items.len());
    let batches: Vec<&[Vec<u8>]> = items.chunks(BATCH).collect();
    for group in batches.chunks(PIPELINE) {
        let mut pipe = redis::pipe();
        for batch in group {
            let cmd = pipe.cmd(command).arg(key);
            for item in batch.iter() {
                cmd.arg(item.as_slice());
            }
        }
        let replies: Vec<Value> = pipe
            .query(c)
            .unwrap_or_else(|e| panic!("{command} {key}: {e}"));
        for reply in &replies {
            out.extend(as_ints(reply));
        }
    }
    out
}

/// CBF.INFO as (name, value) pairs (RESP2).
pub fn cbf_info(c: &mut Connection, key: &str) -> Vec<(String, Value)> {
    match raw(c, &["CBF.INFO", key]) {
        Value::Array(a) => a
            .chunks(2)
            .map(|p| (as_text(&p[0]), p[1].clone()))
            .collect(),
        other => panic!("CBF.INFO {key} answered {other:?}"),
    }
}

/// One CBF.INFO field as an integer.
pub fn cbf_field(c: &mut Connection, key: &str, name: &str) -> i64 {
    let info = cbf_info(c, key);
    let v = &info
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name} in {info:?}"))
        .1;
    as_int(v)
}

/// What must survive any move of a key: its type, CBF.INFO, the digest, the export, and
/// every answer and count of `queries`.
#[derive(Debug, PartialEq)]
pub struct State {
    pub info: Vec<(String, Value)>,
    pub digest: String,
    pub export: Vec<u8>,
    pub answers: Vec<i64>,
    pub counts: Vec<i64>,
}

pub fn state(c: &mut Connection, key: &str, queries: &[Vec<u8>]) -> State {
    assert_eq!(as_text(&raw(c, &["TYPE", key])), "RSbloomCB", "TYPE {key}");
    let mut pipe = redis::pipe();
    for q in queries {
        pipe.cmd("CBF.COUNT").arg(key).arg(q.as_slice());
    }
    let counts: Vec<i64> = pipe.query(c).expect("CBF.COUNT");
    State {
        info: cbf_info(c, key),
        digest: digest_value(c, key),
        export: as_bytes(&raw(c, &["CBF.EXPORT", key, "GUAVA"])),
        answers: multi(c, "CBF.MEXISTS", key, queries),
        counts,
    }
}
