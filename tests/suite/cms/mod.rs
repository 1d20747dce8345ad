//! The Count-Min Sketch family: CMS.* commands on RedisBloom's `CMSk-TYPE`, checked against
//! the RedisBloom vectors of `tests/vectors/redisbloom-cms/`.

mod cell_sizes;
mod commands;
mod hostile_restore;
mod numbers;
mod persistence;
mod redisbloom_load;
mod redisbloom_replay;
mod replication;

use rsbloom_test_support as common;

use common::files::{self, unescape};
use common::raw_resp::RawConn;
use common::rdb::Cursor;
use rsbloom_core::cms::codec;
use rsbloom_core::cms::CountMinSketch;
use rsbloom_core::fields::{FieldSink, Reader, Writer};

const SET: &str = "redisbloom-cms";

/// A recorded DUMP payload (`NAME.dump.bin`).
fn recorded_dump(name: &str) -> Vec<u8> {
    files::read_bytes(SET, &format!("{name}.dump.bin"))
}

/// The sketch a DUMP payload holds, decoded by the core (as `rdb_load` reads it).
fn decode_dump(payload: &[u8]) -> CountMinSketch {
    let mut c = Cursor::new(payload);
    let id = u64::from_be_bytes(payload[2..10].try_into().unwrap());
    c.module_head(id, 0).expect("module head");
    let mut w = Writer::default();
    for _ in 0..3 {
        w.put_u64(c.unsigned().expect("uint"));
    }
    w.put_bytes(&c.string_bytes().expect("counters"));
    codec::load(&mut Reader(&w.0), 0, u64::MAX).expect("a recorded sketch")
}

/// Every item the recorded session of `name` increments or queries on the key `name`, and
/// a few it never names.
fn session_items(name: &str) -> Vec<Vec<u8>> {
    let mut items: Vec<Vec<u8>> = Vec::new();
    for line in files::read(SET, &format!("{name}.commands.tsv")).lines() {
        let cols: Vec<Vec<u8>> = line.split('\t').skip(3).map(unescape).collect();
        if cols.len() < 3 || cols[1] != name.as_bytes() {
            continue;
        }
        let cmd = cols[0].to_ascii_lowercase();
        if cmd == b"cms.incrby" {
            items.extend(cols[2..].chunks(2).map(|p| p[0].clone()));
        } else if cmd == b"cms.query" {
            items.extend(cols[2..].iter().cloned());
        }
    }
    items.extend([b"never".to_vec(), Vec::new(), b"\x00\xff".to_vec()]);
    items.sort();
    items.dedup();
    items
}

/// CMS.QUERY of `items` on `key`, in rounds of 500, against what `sketch` answers; returns
/// how many were asked.
fn check_queries(
    con: &mut RawConn,
    key: &[u8],
    items: &[Vec<u8>],
    sketch: &CountMinSketch,
    how: &str,
) -> usize {
    for part in items.chunks(500) {
        let mut args = vec![b"CMS.QUERY".to_vec(), key.to_vec()];
        args.extend(part.iter().cloned());
        let mut want = format!("*{}\r\n", part.len()).into_bytes();
        for item in part {
            want.extend(format!(":{}\r\n", sketch.query(item)).into_bytes());
        }
        let got = con.send(&args);
        assert!(
            got == want,
            "{} ({how}): CMS.QUERY answers differ",
            String::from_utf8_lossy(key)
        );
    }
    items.len()
}

/// CMS.INFO's four figures (width, depth, count, cell size) over the `redis` client.
fn info_ints(con: &mut redis::Connection, key: &str) -> Vec<i64> {
    match common::client::raw(con, &["CMS.INFO", key]) {
        redis::Value::Array(items) => items
            .iter()
            .filter_map(|v| match v {
                redis::Value::Int(n) => Some(*n),
                _ => None,
            })
            .collect(),
        other => panic!("CMS.INFO {key} answered {other:?}"),
    }
}
