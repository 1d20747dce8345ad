//! The cuckoo filters of the cluster data set: several shapes, grown past their first
//! sub-filter, with deletes (some compacted on their own, some by CF.COMPACT), and what each
//! must keep through a reshard or a failover: CF.INFO, CF.DEBUG, CF.EXISTS and CF.COUNT of
//! its items and of non-members, and its DUMP bytes (all nodes run the same server).

use super::{ok, wait_all_replicas};
use common::*;
use redis::cluster::ClusterConnection;
use redis::Value;
use rsbloom_test_support as common;
use std::collections::BTreeMap;

/// Number of cuckoo filters of the data set.
pub const CF_FILTERS: usize = 150;

/// One cuckoo filter and its items: `kept` were added and not deleted.
pub struct CfFilter {
    pub key: String,
    items: Vec<Vec<u8>>,
    kept: Vec<bool>,
}

/// What a cuckoo filter must keep.
#[derive(Debug, PartialEq)]
pub struct CfState {
    info: Value,
    debug: Value,
    exists: Value,
    counts: Vec<Value>,
    dump: Vec<u8>,
}

fn insert(con: &mut ClusterConnection, key: &str, items: &[Vec<u8>]) -> Vec<i64> {
    let mut args: Vec<&[u8]> = vec![b"CF.INSERT", key.as_bytes(), b"ITEMS"];
    args.extend(items.iter().map(|v| v.as_slice()));
    as_ints(&ok(con, &args))
}

/// `CF.DEBUG`'s figure `name`.
fn debug_figure(con: &mut ClusterConnection, key: &str, name: &str) -> u64 {
    let text = String::from_utf8(as_bytes(&ok(con, &["CF.DEBUG", key]))).unwrap();
    text.split(' ')
        .find_map(|f| f.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in CF.DEBUG {key}: {text}"))
}

/// `CF_FILTERS` filters in three shapes: small one-slot-growth filters (expansion 1) filled
/// far past their first sub-filter with every fourth item deleted (automatic compaction);
/// bucket size 4, 50 iterations, expansion 2; and filters created by CF.ADD (RedisBloom's
/// defaults) that grow, lose a third of their items and are compacted by CF.COMPACT.
pub fn populate_cf(con: &mut ClusterConnection) -> Vec<CfFilter> {
    let mut out = Vec::with_capacity(CF_FILTERS);
    for i in 0..CF_FILTERS {
        let key = format!("cf:{i}");
        let items = gen_items(&format!("{key}/"), 0..[300, 500, 2500][i % 3]);
        let every = match i % 3 {
            0 => {
                ok(con, &["CF.RESERVE", &key, "64"]);
                4
            }
            1 => {
                let args = [
                    "CF.RESERVE",
                    &key,
                    "100",
                    "BUCKETSIZE",
                    "4",
                    "MAXITERATIONS",
                    "50",
                    "EXPANSION",
                    "2",
                ];
                ok(con, &args);
                5
            }
            _ => {
                let args: [&[u8]; 3] = [b"CF.ADD", key.as_bytes(), &items[0]];
                assert_eq!(as_int(&ok(con, &args)), 1);
                3
            }
        };
        let start = usize::from(i % 3 == 2);
        let mut kept = vec![i % 3 == 2; items.len()];
        for (at, added) in insert(con, &key, &items[start..]).iter().enumerate() {
            assert_eq!(*added, 1, "CF.INSERT {key}: item {at} not added");
            kept[start + at] = true;
        }
        for (at, item) in items.iter().enumerate().step_by(every) {
            let args: [&[u8]; 3] = [b"CF.DEL", key.as_bytes(), item];
            assert_eq!(as_int(&ok(con, &args)), 1, "CF.DEL {key} item {at}");
            kept[at] = false;
        }
        if i % 3 == 2 {
            ok(con, &["CF.COMPACT", &key]);
        }
        assert!(debug_figure(con, &key, "filters") > 1, "{key} did not grow");
        out.push(CfFilter { key, items, kept });
    }
    out
}

/// A second round of writes, as acknowledged data for the failover tests: more items on
/// every other filter, and deletes of some of the first items (deletes left uncompacted).
pub fn second_round(con: &mut ClusterConnection, filters: &mut [CfFilter]) {
    for f in filters.iter_mut().step_by(2) {
        let extra = gen_items(&format!("{}/round2/", f.key), 0..40);
        for added in insert(con, &f.key, &extra) {
            assert_eq!(added, 1, "CF.INSERT {}", f.key);
        }
        f.kept.extend(vec![true; extra.len()]);
        f.items.extend(extra);
        if let Some(at) = f.kept.iter().position(|&k| k) {
            let args: [&[u8]; 3] = [b"CF.DEL", f.key.as_bytes(), &f.items[at]];
            assert_eq!(as_int(&ok(con, &args)), 1, "CF.DEL {}", f.key);
            f.kept[at] = false;
        }
    }
    wait_all_replicas(con);
}

fn cf_state(con: &mut ClusterConnection, f: &CfFilter, probes: &[Vec<u8>]) -> CfState {
    let mut args: Vec<&[u8]> = vec![b"CF.MEXISTS", f.key.as_bytes()];
    args.extend(f.items.iter().map(|v| v.as_slice()));
    args.extend(probes.iter().map(|v| v.as_slice()));
    let counts = f
        .items
        .iter()
        .step_by(10)
        .chain(probes.iter().take(20))
        .map(|item| {
            let args: [&[u8]; 3] = [b"CF.COUNT", f.key.as_bytes(), item];
            ok(con, &args)
        })
        .collect();
    CfState {
        info: ok(con, &["CF.INFO", &f.key]),
        debug: ok(con, &["CF.DEBUG", &f.key]),
        exists: ok(con, &args),
        counts,
        dump: as_bytes(&ok(con, &["DUMP", &f.key])),
    }
}

pub fn cf_snapshot(con: &mut ClusterConnection, filters: &[CfFilter]) -> BTreeMap<String, CfState> {
    let probes = gen_items("cf-probe:", 0..150);
    filters
        .iter()
        .map(|f| (f.key.clone(), cf_state(con, f, &probes)))
        .collect()
}

/// Every cuckoo filter answers exactly as in `before`, and every item added and not deleted
/// is found.
pub fn assert_cf_unchanged(
    con: &mut ClusterConnection,
    filters: &[CfFilter],
    before: &BTreeMap<String, CfState>,
    when: &str,
) {
    let now = cf_snapshot(con, filters);
    let mut differ = Vec::new();
    for f in filters {
        let (a, b) = (&before[&f.key], &now[&f.key]);
        if a != b {
            differ.push(format!("{}: before {a:?}\n   after {b:?}", f.key));
        }
        let answers = as_ints(&b.exists);
        let lost = f
            .kept
            .iter()
            .zip(&answers)
            .filter(|(&kept, &a)| kept && a != 1)
            .count();
        assert_eq!(lost, 0, "{when}: {lost} kept items of {} answer 0", f.key);
    }
    assert!(
        differ.is_empty(),
        "{when}: {} of {} cuckoo filters changed; first one:\n{}",
        differ.len(),
        filters.len(),
        differ.first().cloned().unwrap_or_default()
    );
}
