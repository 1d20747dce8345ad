//! Observed false-positive rates at scale, and no false negatives. Rates are printed (run
//! with `--nocapture` to see them).

use rsbloom_test_support as common;

use common::model::Chain;
use common::*;

/// Fill `key` with `n` items and check every one answers 1; returns the items.
fn fill(c: &mut redis::Connection, key: &str, n: usize) -> Vec<Vec<u8>> {
    let items = gen_items(&format!("{key}:in:"), 0..n);
    let added: i64 = madd_all(c, key, &items).iter().sum();
    assert_eq!(card(c, key), added);
    let negatives = mexists_all(c, key, &items)
        .iter()
        .filter(|&&a| a != 1)
        .count();
    assert_eq!(negatives, 0, "{key}: {negatives} false negatives");
    items
}

/// The share of `n` never-inserted items that answer 1, queried in blocks of a million.
fn measure(c: &mut redis::Connection, key: &str, n: usize) -> f64 {
    let mut positives = 0i64;
    let block = 1_000_000;
    for start in (0..n).step_by(block) {
        let others = gen_items(&format!("{key}:out:"), start..(start + block).min(n));
        positives += mexists_all(c, key, &others).iter().sum::<i64>();
    }
    positives as f64 / n as f64
}

/// The expected rate of a chain from each layer's fill: 1 - prod(1 - (1 - e^(-k c / m))^k).
fn expected_rate(chain: &Chain) -> f64 {
    let pass: f64 = chain
        .layers
        .iter()
        .map(|l| {
            let bits = 64.0 * l.words.len() as f64;
            let fill = 1.0 - (-(l.k as f64) * l.count as f64 / bits).exp();
            1.0 - fill.powi(l.k as i32)
        })
        .product();
    1.0 - pass
}

#[test]
fn nonscaling_million_at_one_percent() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(
        &mut c,
        &["BF.RESERVE", "ns", "0.01", "1000000", "NONSCALING"],
    );
    fill(&mut c, "ns", 1_000_000);
    let rate = measure(&mut c, "ns", 1_000_000);
    eprintln!(
        "false-positive rate, 1,000,000 @ 0.01 NONSCALING with 1,000,000 items, \
         1,000,000 queries: {:.4} %",
        rate * 100.0
    );
    assert!((0.009..=0.011).contains(&rate), "observed rate {rate}");
}

#[test]
fn scaling_from_a_thousand_to_a_million() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "sc", "0.01", "1000"]);
    let items = fill(&mut c, "sc", 1_000_000);
    let mut chain = Chain::scaling(0.01, 1000, 2);
    for i in &items {
        chain.add(i);
    }
    drop(items);
    assert_eq!(bf_debug(&mut c, "sc"), chain.debug_lines());
    // The expected rate of this chain is about 0.986 %, so with a million queries (sigma
    // about 0.01 %) a sample can land above 1 % by chance; ten million (sigma 0.003 %) tell.
    let queries = 10_000_000;
    let rate = measure(&mut c, "sc", queries);
    eprintln!(
        "false-positive rate, scaling 1,000 @ 0.01 filled with 1,000,000 items ({} layers), \
         {queries} queries: {:.4} % (expected from the layers' fill: {:.4} %)",
        chain.layers.len(),
        rate * 100.0,
        expected_rate(&chain) * 100.0
    );
    assert!(rate <= 0.01, "observed rate {rate}");
}
