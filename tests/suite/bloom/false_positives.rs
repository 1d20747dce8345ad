//! Observed false-positive rates at scale, and no false negatives. Rates are printed (run
//! with `--nocapture` to see them).

use rsbloom_test_support as common;

use common::guava_model::{self, Chain};
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
    // Each layer is held to 0.9 of its part of the rate (with room for k's rounding and
    // double hashing's floor), so the chain expects about 0.8 %; ten million queries (sigma
    // 0.003 %) tell that from 1 % with no doubt.
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

/// A layer's `(capacity, bits)` from its BF.DEBUG line.
fn debug_layer(line: &str) -> (u64, u64) {
    let field = |name: &str| -> u64 {
        line.split(' ')
            .find_map(|f| f.strip_prefix(name))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {line:?}"))
    };
    (field("capacity:"), field("bits:"))
}

/// Grows `filters` scaling filters of 1,000 at `error` (different items each) through
/// `stages` (multiples of the capacity), and at each stage checks that the compound rate of a
/// million never-added items (shared out between the filters) and that of the adds so far
/// which answered 0 (false positives against the filter as it then was) are within `error`.
/// When each layer was sized to exactly its part of the rate, the chain went over it (1.03 x
/// at 1,000,000 items at 0.01, and more for small layers at small rates).
fn rate_within_request(error: &str, expansion: u64, stages: &[usize], filters: usize) {
    let s = Server::start();
    let mut c = s.conn();
    let p: f64 = error.parse().unwrap();
    let keys: Vec<String> = (0..filters)
        .map(|f| format!("r{error}x{expansion}.{f}"))
        .collect();
    for key in &keys {
        let expansion = expansion.to_string();
        let args = ["BF.RESERVE", key, error, "1000", "EXPANSION", &expansion];
        expect_ok(&mut c, &args);
    }
    let queries = 1_000_000 / filters;
    let (mut added, mut present) = (0usize, 0usize);
    for &stage in stages {
        let (mut positives, mut size, mut usage) = (0i64, 0i64, 0i64);
        let (mut bits, mut exact_bits, mut layers) = (0u64, 0u64, 0usize);
        for key in &keys {
            let items = gen_items(&format!("{key}:in:"), added..stage * 1000);
            let answers = madd_all(&mut c, key, &items);
            present += answers.iter().filter(|&&a| a == 0).count();
            let others = gen_items(&format!("{key}:out:{stage}:"), 0..queries);
            positives += mexists_all(&mut c, key, &others).iter().sum::<i64>();
            size += as_int(&info_value(&mut c, key, "Size"));
            usage += as_int(&raw(&mut c, &["MEMORY", "USAGE", key]));
            // Against the same layers each sized to exactly its part of the rate.
            let debug = bf_debug(&mut c, key);
            layers = debug.len() - 1;
            for (i, line) in debug[1..].iter().enumerate() {
                let (capacity, layer_bits) = debug_layer(line);
                bits += layer_bits;
                exact_bits += 64 * guava_model::sizing(capacity, p * 0.5f64.powi(i as i32 + 1)).0;
            }
        }
        added = stage * 1000;
        let rate = positives as f64 / (queries * filters) as f64;
        let add_rate = present as f64 / (added * filters) as f64;
        let per_item = |bytes: i64| bytes as f64 / (added * filters) as f64;
        eprintln!(
            "scaling 1,000 @ {error} expansion {expansion} x{filters}, {stage}x ({layers} \
             layers): never-added {:.4} % ({:.3} of the request), adds answering 0 {:.4} % \
             ({:.3}); BF.INFO Size {:.3} bytes/item, MEMORY USAGE {:.3} bytes/item, bits {:.3} \
             x the exact-part sizing",
            rate * 100.0,
            rate / p,
            add_rate * 100.0,
            add_rate / p,
            per_item(size),
            per_item(usage),
            bits as f64 / exact_bits as f64,
        );
        assert!(rate <= p, "{stage}x: {rate} of never-added items answer 1");
        assert!(
            add_rate <= p,
            "{stage}x: {add_rate} of distinct adds answered 0"
        );
        if expansion >= 2 {
            // The margin stays modest: -ln(0.9) / ln2^2 bits per item plus rounding.
            assert!(
                bits as f64 <= 1.05 * exact_bits as f64,
                "{stage}x: {bits} bits against {exact_bits}"
            );
        }
    }
}

#[test]
fn scaling_rate_at_one_percent() {
    rate_within_request("0.01", 2, &[1, 10, 1000], 1);
}

#[test]
fn scaling_rate_at_a_tenth_of_a_percent() {
    rate_within_request("0.001", 2, &[1, 10, 1000], 1);
}

/// Expansion 1 adds a 1,000-item layer at half the error each time, so its bits per item climb
/// with every layer (double hashing's floor wants bits growing as 1 / sqrt(error) once the
/// error is tiny for the items): 10x is as far as is cheap. 10,000 adds at 0.001 expect under
/// ten false positives, too few to tell a rate by; ten filters give the adds' count meaning.
#[test]
fn scaling_rate_without_growth() {
    rate_within_request("0.01", 1, &[1, 10], 10);
    rate_within_request("0.001", 1, &[1, 10], 10);
}
