//! The sketches of the cluster data set (Count-Min Sketches, Top-K lists, t-digests, the
//! RedisBloom types that travel whole as DUMP / RESTORE payloads) and what each must keep
//! through a reshard or a failover: its DUMP bytes (all nodes run the same server) and its
//! answers (CMS.QUERY / CMS.INFO, TOPK.LIST WITHCOUNT / TOPK.QUERY / TOPK.INFO,
//! TDIGEST.QUANTILE / CDF / INFO), counting Bloom filters (CBF.MEXISTS / COUNT / INFO) and
//! sliding-window filters (an hour-long TIME window: APBF.MEXISTS / INFO, its times kept),
//! moved by MIGRATE as DUMP payloads too.

use super::ok;
use common::*;
use redis::cluster::ClusterConnection;
use redis::Value;
use rsbloom_test_support as common;
use std::collections::BTreeMap;

/// Sketches of the data set, a quarter of each type (counting Bloom filters among them).
pub const SKETCHES: usize = 90;

/// What a sketch must keep.
#[derive(Debug, PartialEq)]
pub struct SketchState {
    answers: Vec<Value>,
    dump: Vec<u8>,
}

fn args<'a>(head: &[&'a str], items: &'a [Vec<u8>]) -> Vec<&'a [u8]> {
    let mut out: Vec<&[u8]> = head.iter().map(|s| s.as_bytes()).collect();
    out.extend(items.iter().map(|v| v.as_slice()));
    out
}

/// `SKETCHES` keys: `cms:i` (100 x 5 counters, 300 items with increments), `topk:i` (the top
/// 10 of a skewed stream of 600 adds), `td:i` (2,000 values).
pub fn populate_sketches(con: &mut ClusterConnection) -> Vec<String> {
    let mut keys = Vec::with_capacity(SKETCHES);
    for i in 0..SKETCHES {
        let items = gen_items(&format!("sketch:{i}/"), 0..300);
        let key = match i % 5 {
            0 => {
                let key = format!("cms:{i}");
                ok(con, &["CMS.INITBYDIM", &key, "100", "5"]);
                for batch in items.chunks(50) {
                    let mut a: Vec<Vec<u8>> = vec![b"CMS.INCRBY".to_vec(), key.clone().into()];
                    for (n, item) in batch.iter().enumerate() {
                        a.push(item.clone());
                        a.push((n % 7 + 1).to_string().into_bytes());
                    }
                    ok(con, &a);
                }
                key
            }
            1 => {
                let key = format!("topk:{i}");
                ok(con, &["TOPK.RESERVE", &key, "10", "50", "4", "0.9"]);
                // Low-numbered items come far more often: a few heavy hitters, a long tail.
                let stream: Vec<Vec<u8>> =
                    (0..600).map(|n| items[n % (1 + n % 30)].clone()).collect();
                for batch in stream.chunks(100) {
                    ok(con, &args(&["TOPK.ADD", &key], batch));
                }
                key
            }
            3 => {
                // A counting Bloom filter (rsbloom's own), with deletes and a saturated item.
                let key = format!("cbf:{i}");
                ok(con, &["CBF.RESERVE", &key, "0.01", "1000"]);
                ok(con, &args(&["CBF.MADD", &key], &items));
                ok(con, &args(&["CBF.MDEL", &key], &items[..100]));
                for _ in 0..20 {
                    ok(con, &["CBF.ADD", &key, "hot"]);
                }
                key
            }
            4 => {
                // A sliding window over the last hour (rsbloom's own): 50 items added at the
                // start of 1970 (long out of the window), then 200 at the server's clock.
                let key = format!("apbf:{i}");
                ok(con, &["APBF.RESERVE", &key, "TIME", "0.01", "1000", "3600"]);
                ok(con, &args(&["APBF.INSERTAT", &key, "1"], &items[200..250]));
                ok(con, &args(&["APBF.MADD", &key], &items[..200]));
                key
            }
            _ => {
                let key = format!("td:{i}");
                ok(con, &["TDIGEST.CREATE", &key, "COMPRESSION", "100"]);
                let values: Vec<Vec<u8>> = (0..2000)
                    .map(|n| format!("{}", ((n * 7919 + i) % 1000) as f64 / 8.0).into_bytes())
                    .collect();
                for batch in values.chunks(250) {
                    ok(con, &args(&["TDIGEST.ADD", &key], batch));
                }
                key
            }
        };
        keys.push(key);
    }
    keys
}

fn state(con: &mut ClusterConnection, key: &str) -> SketchState {
    let probes = gen_items(
        &format!("sketch:{}/", &key[key.find(':').unwrap() + 1..]),
        0..40,
    );
    let answers = if key.starts_with("cms:") {
        vec![
            ok(con, &args(&["CMS.QUERY", key], &probes)),
            ok(con, &["CMS.INFO", key]),
        ]
    } else if key.starts_with("cbf:") {
        vec![
            ok(con, &args(&["CBF.MEXISTS", key], &probes)),
            ok(con, &["CBF.COUNT", key, "hot"]),
            ok(con, &["CBF.INFO", key]),
        ]
    } else if key.starts_with("apbf:") {
        vec![
            ok(con, &args(&["APBF.MEXISTS", key], &probes)),
            ok(con, &["APBF.INFO", key]),
        ]
    } else if key.starts_with("topk:") {
        vec![
            ok(con, &["TOPK.LIST", key, "WITHCOUNT"]),
            ok(con, &args(&["TOPK.QUERY", key], &probes)),
            ok(con, &["TOPK.INFO", key]),
        ]
    } else {
        vec![
            ok(
                con,
                &["TDIGEST.QUANTILE", key, "0", "0.01", "0.5", "0.99", "1"],
            ),
            ok(con, &["TDIGEST.CDF", key, "0", "10", "62.5", "124.875"]),
            ok(con, &["TDIGEST.INFO", key]),
        ]
    };
    SketchState {
        answers,
        dump: as_bytes(&ok(con, &["DUMP", key])),
    }
}

pub fn sketch_snapshot(
    con: &mut ClusterConnection,
    keys: &[String],
) -> BTreeMap<String, SketchState> {
    keys.iter().map(|k| (k.clone(), state(con, k))).collect()
}

/// Every sketch answers exactly as in `before` and DUMPs the same bytes.
pub fn assert_sketches_unchanged(
    con: &mut ClusterConnection,
    keys: &[String],
    before: &BTreeMap<String, SketchState>,
    when: &str,
) {
    let now = sketch_snapshot(con, keys);
    let differ: Vec<String> = keys
        .iter()
        .filter(|k| before[*k] != now[*k])
        .map(|k| format!("{k}: before {:?}\n   after {:?}", before[k], now[k]))
        .collect();
    assert!(
        differ.is_empty(),
        "{when}: {} of {} sketches changed; first one:\n{}",
        differ.len(),
        keys.len(),
        differ.first().cloned().unwrap_or_default()
    );
}
