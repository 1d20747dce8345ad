//! Multi-item commands on filters big enough for the prefetching walks (layers of 2 MB and
//! more): with `bf.batch-prefetch` on and off they give the same replies and leave the same
//! bits, with duplicates inside one call, across a layer boundary, and for lookups that stop
//! early in one layer and go on to the next.

use rsbloom_test_support as common;

use common::*;
use redis::{Connection, Value};

/// 1,000,000 items at 0.0001: a 2.4 MB first layer, so both walks take their large-layer path.
const CAPACITY: u64 = 1_000_000;
const PER_CALL: usize = 1000;

fn ints(reply: Value) -> Vec<i64> {
    match reply {
        Value::Array(items) => items
            .into_iter()
            .map(|v| match v {
                Value::Int(n) => n,
                other => panic!("not an integer: {other:?}"),
            })
            .collect(),
        other => panic!("not an array: {other:?}"),
    }
}

fn batch(c: &mut Connection, command: &str, key: &str, items: &[String]) -> Vec<i64> {
    ints(redis::cmd(command).arg(key).arg(items).query(c).unwrap())
}

fn set_prefetch(c: &mut Connection, on: bool) {
    expect_ok(
        c,
        &[
            "CONFIG",
            "SET",
            "bf.batch-prefetch",
            if on { "yes" } else { "no" },
        ],
    );
}

/// Item `i` of the add stream: consecutive indexes repeat values (0 0 1 2 3 3 4 ...), so most
/// calls carry duplicates of their own items.
fn item(i: usize) -> String {
    format!("item:{}", i * 3 / 4)
}

#[test]
fn prefetching_changes_no_reply_and_no_bit() {
    let s = Server::start();
    let mut c = s.conn();
    // 1.4 M adds, 1.05 M distinct items: past the first layer's capacity.
    let adds: Vec<String> = (0..1_400_000).map(item).collect();
    let mut replies = Vec::new();
    for (key, on) in [("on", true), ("off", false)] {
        set_prefetch(&mut c, on);
        expect_ok(
            &mut c,
            &[
                "BF.RESERVE",
                key,
                "0.0001",
                &CAPACITY.to_string(),
                "EXPANSION",
                "2",
            ],
        );
        let got: Vec<i64> = adds
            .chunks(PER_CALL)
            .flat_map(|part| batch(&mut c, "BF.MADD", key, part))
            .collect();
        assert_eq!(info_value(&mut c, key, "Number of filters"), Value::Int(2));
        replies.push(got);
    }
    assert_eq!(replies[0], replies[1], "BF.MADD replies differ");
    let added = replies[0].iter().filter(|&&r| r == 1).count();
    // Every repeat answers 0; a few new items are false positives and answer 0 too.
    assert!((1_049_000..=1_050_000).contains(&added), "{added} added");
    let dump = |c: &mut Connection, key: &str| -> Vec<u8> {
        redis::cmd("DUMP").arg(key).query(c).unwrap()
    };
    assert_eq!(dump(&mut c, "on"), dump(&mut c, "off"), "the bits differ");

    // Lookups: present items (found in either layer) and absent ones, interleaved.
    let queries: Vec<String> = (0..300_000)
        .map(|i| {
            if i % 2 == 0 {
                format!("item:{}", i * 7 % 1_050_000)
            } else {
                format!("absent:{i}")
            }
        })
        .collect();
    let mut answers = Vec::new();
    for on in [true, false] {
        set_prefetch(&mut c, on);
        for key in ["on", "off"] {
            let got: Vec<i64> = queries
                .chunks(PER_CALL)
                .flat_map(|part| batch(&mut c, "BF.MEXISTS", key, part))
                .collect();
            answers.push(got);
        }
    }
    for (n, a) in answers.iter().enumerate() {
        assert_eq!(a, &answers[0], "BF.MEXISTS answers differ (run {n})");
    }
    let present = answers[0].iter().step_by(2).filter(|&&r| r == 1).count();
    let false_positives = answers[0]
        .iter()
        .skip(1)
        .step_by(2)
        .filter(|&&r| r == 1)
        .count();
    assert_eq!(present, 150_000, "an added item was not found");
    assert!(
        false_positives < 150,
        "{false_positives} false positives in 150,000"
    );
    // INSERT takes the same path as MADD.
    set_prefetch(&mut c, true);
    let fresh: Vec<String> = (0..PER_CALL).map(|i| format!("new:{}", i / 2)).collect();
    let insert = |c: &mut Connection, key: &str| -> Vec<i64> {
        ints(
            redis::cmd("BF.INSERT")
                .arg(key)
                .arg("ITEMS")
                .arg(&fresh)
                .query(c)
                .unwrap(),
        )
    };
    let on = insert(&mut c, "on");
    set_prefetch(&mut c, false);
    let off = insert(&mut c, "off");
    assert_eq!(on, off);
    assert_eq!(dump(&mut c, "on"), dump(&mut c, "off"));
}
