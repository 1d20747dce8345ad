//! Scaling filters grow by layers (each new one `expansion` times the capacity at half the
//! error rate); non-scaling ones refuse items when full.

use rsbloom_test_support as common;

use common::guava_model::{Added, Chain};
use common::*;
use redis::Value;

#[test]
fn hundred_thousand_adds_from_a_thousand() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "1000"]);
    let items = gen_items("scale:", 0..100_000);
    let answers = madd_all(&mut c, "k", &items);
    let added: i64 = answers.iter().sum();
    let card = card(&mut c, "k");
    assert_eq!(card, added, "BF.CARD vs the adds that answered 1");
    assert!(card > 99_000 && card <= 100_000, "card {card}");

    // From the formulas alone: layer i holds 1000 * 2^i, and a layer is added only when the
    // last one is full, so the number of layers is the smallest L with 1000 * (2^L - 1) >= card.
    let mut layers = 1u32;
    while 1000 * ((1i64 << layers) - 1) < card {
        layers += 1;
    }
    assert_eq!(layers, 7);
    let capacity_sum = 1000 * ((1i64 << layers) - 1);
    let full_before_last = 1000 * ((1i64 << (layers - 1)) - 1);
    let debug = bf_debug(&mut c, "k");
    assert_eq!(debug.len(), layers as usize + 1, "{debug:?}");
    assert_eq!(debug[0], format!("size:{card}"));
    for i in 0..layers as usize {
        let cap = 1000u64 << i;
        let err = 0.01 * 0.5f64.powi(i as i32 + 1);
        let (words, k) = common::guava_model::scaling_sizing(cap, err);
        let count = if i + 1 < layers as usize {
            cap as i64
        } else {
            card - full_before_last
        };
        let want = common::guava_model::debug_line(64 * words, k as u64, cap, count as u64, err);
        assert_eq!(debug[i + 1], want, "layer {i}");
    }
    let info = bf_info(&mut c, "k");
    assert_eq!(info[0], ("Capacity".to_string(), Value::Int(capacity_sum)));
    assert_eq!(
        info[2],
        ("Number of filters".to_string(), Value::Int(layers as i64))
    );
    assert_eq!(
        info[3],
        ("Number of items inserted".to_string(), Value::Int(card))
    );
    assert_eq!(info[4], ("Expansion rate".to_string(), Value::Int(2)));

    // The exact answers, from the reference chain.
    let mut chain = Chain::scaling(0.01, 1000, 2);
    let want: Vec<i64> = items
        .iter()
        .map(|i| (chain.add(i) == Added::Yes) as i64)
        .collect();
    assert!(
        answers == want,
        "BF.MADD answers differ from the reference chain"
    );
    assert_eq!(debug, chain.debug_lines());
    assert!(mexists_all(&mut c, "k", &items).iter().all(|&a| a == 1));
}

#[test]
fn other_expansions() {
    let s = Server::start();
    let mut c = s.conn();
    for (key, cap, exp, n) in [
        ("e3", 100u64, 3u64, 5000usize),
        ("e1", 50, 1, 400),
        ("e7", 10, 7, 3000),
    ] {
        expect_ok(
            &mut c,
            &[
                "BF.RESERVE",
                key,
                "0.05",
                &cap.to_string(),
                "EXPANSION",
                &exp.to_string(),
            ],
        );
        let items = gen_items(&format!("{key}:"), 0..n);
        madd_all(&mut c, key, &items);
        let mut chain = Chain::scaling(0.05, cap, exp);
        for i in &items {
            chain.add(i);
        }
        assert!(chain.layers.len() >= 3);
        assert_eq!(bf_debug(&mut c, key), chain.debug_lines(), "{key}");
        assert_eq!(
            info_value(&mut c, key, "Capacity"),
            Value::Int(chain.total_capacity() as i64)
        );
    }
}

/// Items for a filling filter: the answers the reference gives, up to and including the
/// first Full, plus one more item that must not be processed.
fn fill_plan(chain: &mut Chain, prefix: &str) -> (Vec<Vec<u8>>, Vec<Added>) {
    let mut sent = Vec::new();
    let mut want = Vec::new();
    for item in gen_items(prefix, 0..1000) {
        let a = chain.add(&item);
        sent.push(item);
        want.push(a);
        if a == Added::Full {
            break;
        }
    }
    assert_eq!(
        want.last(),
        Some(&Added::Full),
        "test setup: filter never filled"
    );
    sent.push(format!("{prefix}after-the-error").into_bytes());
    (sent, want)
}

fn check_partial(v: &Value, want: &[Added]) {
    match v {
        Value::Array(got) => {
            assert_eq!(got.len(), want.len(), "reply {got:?}");
            for (g, w) in got.iter().zip(want) {
                match w {
                    Added::Yes => assert_eq!(g, &Value::Int(1)),
                    Added::Present => assert_eq!(g, &Value::Int(0)),
                    Added::Full => assert_eq!(
                        err_of(g).as_deref(),
                        Some("ERR non scaling filter is full"),
                        "reply {got:?}"
                    ),
                }
            }
        }
        other => panic!("expected an array with an error element, got {other:?}"),
    }
}

#[test]
fn nonscaling_full_add() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "20", "NONSCALING"]);
    let mut chain = Chain::nonscaling(0.01, 20);
    let (sent, want) = fill_plan(&mut chain, "add:");
    for (item, w) in sent.iter().zip(&want) {
        let args: [&[u8]; 3] = [b"BF.ADD", b"k", item];
        match w {
            Added::Yes => expect_int(&mut c, &args, 1),
            Added::Present => expect_int(&mut c, &args, 0),
            Added::Full => expect_err(&mut c, &args, "ERR non scaling filter is full"),
        }
    }
    expect_int(&mut c, &["BF.CARD", "k"], 20);
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
    // Still full, still answering; present items answer 0.
    let again: [&[u8]; 3] = [b"BF.ADD", b"k", &sent[sent.len() - 2]];
    expect_err(&mut c, &again, "ERR non scaling filter is full");
    let present: [&[u8]; 3] = [b"BF.ADD", b"k", &sent[0]];
    expect_int(&mut c, &present, 0);
}

#[test]
fn nonscaling_full_madd() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "5", "NONSCALING"]);
    let mut chain = Chain::nonscaling(0.01, 5);
    let (sent, want) = fill_plan(&mut chain, "madd:");
    let mut args: Vec<&[u8]> = vec![b"BF.MADD", b"k"];
    args.extend(sent.iter().map(|v| v.as_slice()));
    check_partial(&raw(&mut c, &args), &want);
    // The items before the error stay added; the ones after it were not processed.
    expect_int(&mut c, &["BF.CARD", "k"], 5);
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
    for item in &sent[..sent.len() - 2] {
        expect_int(&mut c, &[&b"BF.EXISTS"[..], b"k", item], 1);
    }
    let last = &sent[sent.len() - 1];
    expect_int(
        &mut c,
        &[&b"BF.EXISTS"[..], b"k", last],
        chain.contains(last) as i64,
    );
    // Once full, the first new item errors at once.
    let fresh: Vec<u8> = b"totally-new-item".to_vec();
    assert!(!chain.contains(&fresh));
    check_partial(
        &raw(&mut c, &[&b"BF.MADD"[..], b"k", &fresh]),
        &[Added::Full],
    );
    check_partial(
        &raw(&mut c, &[&b"BF.MADD"[..], b"k", &sent[0], &fresh, &sent[1]]),
        &[Added::Present, Added::Full],
    );
}

#[test]
fn nonscaling_full_insert() {
    let s = Server::start();
    let mut c = s.conn();
    let mut chain = Chain::nonscaling(0.02, 7);
    let (sent, want) = fill_plan(&mut chain, "ins:");
    let mut args: Vec<&[u8]> = vec![
        b"BF.INSERT",
        b"k",
        b"CAPACITY",
        b"7",
        b"ERROR",
        b"0.02",
        b"NONSCALING",
        b"ITEMS",
    ];
    args.extend(sent.iter().map(|v| v.as_slice()));
    check_partial(&raw(&mut c, &args), &want);
    expect_int(&mut c, &["BF.CARD", "k"], 7);
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
    // EXPANSION 0 behaves the same.
    let mut chain0 = Chain::nonscaling(0.02, 7);
    let (sent, want) = fill_plan(&mut chain0, "ins0:");
    let mut args: Vec<&[u8]> = vec![
        b"BF.INSERT",
        b"k0",
        b"CAPACITY",
        b"7",
        b"ERROR",
        b"0.02",
        b"EXPANSION",
        b"0",
        b"ITEMS",
    ];
    args.extend(sent.iter().map(|v| v.as_slice()));
    check_partial(&raw(&mut c, &args), &want);
    assert_eq!(bf_debug(&mut c, "k0"), chain0.debug_lines());
}

/// With the largest expansion, the third layer (2^30 items) is over bf.max-filter-bytes: the
/// add that needs it fails with the size-limit error and changes nothing.
#[test]
fn huge_expansion_hits_the_size_limit() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(
        &mut c,
        &["BF.RESERVE", "k", "0.5", "1", "EXPANSION", "32768"],
    );
    let mut chain = Chain::scaling(0.5, 1, 32768);
    let items = gen_items("huge:", 0..40_000);
    let mut next = 0;
    while chain.count() < 1 + 32768 {
        chain.add(&items[next]);
        next += 1;
    }
    madd_all(&mut c, "k", &items[..next]);
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
    let fresh = items[next..]
        .iter()
        .find(|i| !chain.contains(i))
        .expect("a fresh item");
    let text = expect_err_prefix(
        &mut c,
        &[&b"BF.ADD"[..], b"k", fresh],
        "ERR filter would need ",
    );
    assert!(
        text.ends_with(" bytes, over bf.max-filter-bytes (536870912)"),
        "{text}"
    );
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
}
