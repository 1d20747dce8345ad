//! Parity with Guava 31.1: filters sized like Guava's give Guava's answers, bit for bit.
//!
//! The first two tests check the test oracle (`common::guava_model`) against the vectors without a
//! server; the others check the module.

use rsbloom_test_support as common;

use common::files::GUAVA_CONFIGS;
use common::guava_model::{self, Added, Chain, Layer};
use common::vectors;
use common::*;

/// Configurations that come with an items file (all but the last).
const WITH_ITEMS: &[&str] = GUAVA_CONFIGS.split_last().unwrap().1;

/// The words of a Guava `writeTo` file (big-endian words after a 6-byte header).
fn guava_words(config: &str) -> (u32, Vec<u64>) {
    let path = vectors::dir().join(format!("{config}.filter.bin"));
    let bytes = std::fs::read(&path).expect("filter.bin");
    assert_eq!(bytes[0], 1, "strategy ordinal");
    let k = bytes[1] as u32;
    let n = u32::from_be_bytes(bytes[2..6].try_into().unwrap()) as usize;
    let words = (0..n)
        .map(|i| u64::from_be_bytes(bytes[6 + 8 * i..14 + 8 * i].try_into().unwrap()))
        .collect();
    (k, words)
}

#[test]
fn oracle_sizing_matches_guava() {
    let rows = vectors::sizing_rows();
    assert!(rows.len() > 1000);
    for (n, p_text, m, num_longs, k) in rows {
        if n == 0 {
            continue; // Guava treats n = 0 as 1; capacities here are >= 1.
        }
        let p: f64 = p_text.parse().expect("p");
        let (got_m, got_k) = guava_model::sizing_m_k(n, p);
        assert_eq!((got_m as i64, got_k), (m, k), "n={n} p={p_text}");
        assert_eq!(
            guava_model::sizing(n, p).0 as i64,
            num_longs,
            "n={n} p={p_text}"
        );
    }
}

#[test]
fn oracle_filters_match_guava() {
    for config in WITH_ITEMS {
        let (k, words) = guava_words(config);
        let n = vectors::meta_u64(config, "n");
        let p = vectors::meta_f64(config, "p");
        assert_eq!(
            guava_model::sizing(n, p),
            (words.len() as u64, k),
            "{config}"
        );
        let mut layer = Layer::new(n, p);
        let items = vectors::items(config);
        assert_eq!(
            items.len() as u64,
            vectors::meta_u64(config, "items_file_count")
        );
        for i in &items {
            layer.set(guava_model::hash(i));
        }
        assert!(
            layer.words == words,
            "{config}: oracle bits differ from Guava's"
        );
        for (q, answer) in vectors::queries(config) {
            assert_eq!(layer.contains(guava_model::hash(&q)), answer, "{config}");
        }
    }
}

/// Reserve a non-scaling filter whose sizing gives exactly the configuration's words and k,
/// with a capacity for all its items when one exists (a layer is sized as Guava sizes it), and
/// insert the items. With room for all: every answer and every bit is Guava's. Without (k too
/// big for that many items in so few bits): the largest such capacity, filled until full;
/// then answers and bits are the oracle's for the items that fit (the oracle is checked
/// against Guava above), and `guava_filters_through_loadchunk` covers Guava's own filter.
fn check_config(c: &mut redis::Connection, config: &str) {
    let items = vectors::items(config);
    let p = vectors::meta_f64(config, "p");
    let words = vectors::meta_u64(config, "num_longs");
    let k = vectors::meta_u64(config, "k") as u32;
    let (capacity, error) = guava_model::equivalent_reservation(items.len() as u64, p, words, k)
        .or_else(|| guava_model::largest_reservation_below(items.len() as u64, p, words, k))
        .unwrap_or_else(|| panic!("{config}: no capacity sizes to {words} words, k = {k}"));
    let key = format!("g:{config}");
    let args = [
        "BF.RESERVE",
        &key,
        &error.to_string(),
        &capacity.to_string(),
        "NONSCALING",
    ];
    expect_ok(c, &args);
    let debug = bf_debug(c, &key);
    let want_prefix = format!("bytes:{} bits:{} hashes:{k} ", 8 * words, 64 * words);
    assert!(
        debug.len() == 2 && debug[1].starts_with(&want_prefix),
        "{config}: reserved {error} {capacity}, BF.DEBUG {debug:?}, expected {want_prefix:?}"
    );

    // The items that fit, and the answers the oracle gives for them.
    let mut chain = Chain::nonscaling(error, capacity);
    let mut want = Vec::new();
    for i in &items {
        match chain.add(i) {
            Added::Yes => want.push(1),
            Added::Present => want.push(0),
            Added::Full => break,
        }
    }
    let fit = &items[..want.len()];
    let all_fit = fit.len() == items.len();
    assert_eq!(madd_all(c, &key, fit), want, "{config}: BF.MADD answers");
    assert_eq!(card(c, &key), chain.count() as i64, "{config}: BF.CARD");
    let misses = mexists_all(c, &key, fit)
        .iter()
        .filter(|&&a| a != 1)
        .count();
    assert_eq!(misses, 0, "{config}: {misses} inserted items answer 0");

    let (qs, guava): (Vec<Vec<u8>>, Vec<bool>) = vectors::queries(config).into_iter().unzip();
    let expected: Vec<bool> = if all_fit {
        guava
    } else {
        qs.iter().map(|q| chain.contains(q)).collect()
    };
    let got = mexists_all(c, &key, &qs);
    let differ: Vec<usize> = (0..qs.len())
        .filter(|&i| (got[i] == 1) != expected[i])
        .collect();
    assert!(
        differ.is_empty(),
        "{config}: {} of {} queries differ from {} (first at q:{})",
        differ.len(),
        qs.len(),
        if all_fit { "Guava" } else { "the oracle" },
        differ[0]
    );
    let bits = if all_fit {
        guava_le_bytes(config)
    } else {
        chain.layers[0]
            .words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect()
    };
    assert!(
        dumped_bits(c, &key) == bits,
        "{config}: the filter's bits differ"
    );
    eprintln!(
        "{config}: reserved {capacity} @ {error}, {} of {} items inserted, compared with {}",
        fit.len(),
        items.len(),
        if all_fit { "Guava" } else { "the oracle" }
    );
}

/// Guava's words as little-endian bytes: the layout of the module's layer data (bit i is
/// bit i % 64 of word i / 64; SCANDUMP iterators are byte offsets into the layers).
fn guava_le_bytes(config: &str) -> Vec<u8> {
    guava_words(config)
        .1
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
}

/// The data bytes of a filter's SCANDUMP (everything after the header), concatenated.
fn dumped_bits(c: &mut redis::Connection, key: &str) -> Vec<u8> {
    scandump(c, key)[1..]
        .iter()
        .flat_map(|ch| ch.data.iter().copied())
        .collect()
}

#[test]
fn parity_small_configurations() {
    let s = Server::start();
    let mut c = s.conn();
    for config in &WITH_ITEMS[..5] {
        check_config(&mut c, config);
    }
}

/// Every Guava filter, loaded bit for bit through BF.LOADCHUNK into a filter reserved with
/// Guava's own (n, p), answers like Guava: all items 1, every query as Guava said.
#[test]
fn guava_filters_through_loadchunk() {
    let s = Server::start();
    let mut c = s.conn();
    for config in WITH_ITEMS.iter().chain(["n1000000_p0.03"].iter()) {
        let n = vectors::meta_u64(config, "n");
        let p = vectors::meta(config, "p");
        let k = vectors::meta_u64(config, "k");
        let bytes = guava_le_bytes(config);
        let shape = format!("shape:{config}");
        expect_ok(
            &mut c,
            &["BF.RESERVE", &shape, &p, &n.to_string(), "NONSCALING"],
        );
        let debug = bf_debug(&mut c, &shape);
        let want = format!("bytes:{} bits:{} hashes:{k} ", bytes.len(), 8 * bytes.len());
        assert!(
            debug[1].starts_with(&want),
            "{config}: {debug:?}, expected {want:?}"
        );
        let header = scandump(&mut c, &shape).remove(0);
        let key = format!("guava:{config}");
        loadchunks(&mut c, &key, &[header]);
        let mut chunks = Vec::new();
        for (i, part) in bytes.chunks(4096).enumerate() {
            let end = (i * 4096 + part.len()) as i64;
            chunks.push(Chunk {
                sent: end - part.len() as i64 + 1,
                next: end + 1,
                data: part.to_vec(),
            });
        }
        loadchunks(&mut c, &key, &chunks);
        assert_eq!(dumped_bits(&mut c, &key), bytes, "{config}: bits read back");
        let items = vectors::inserted(config);
        let misses = mexists_all(&mut c, &key, &items)
            .iter()
            .filter(|&&a| a != 1)
            .count();
        assert_eq!(misses, 0, "{config}: {misses} items answer 0");
        let (qs, guava): (Vec<Vec<u8>>, Vec<bool>) = vectors::queries(config).into_iter().unzip();
        let got = mexists_all(&mut c, &key, &qs);
        let differ = (0..qs.len()).filter(|&i| (got[i] == 1) != guava[i]).count();
        assert_eq!(differ, 0, "{config}: {differ} queries differ from Guava");
    }
}

#[test]
fn parity_n100000_p0_01() {
    let s = Server::start();
    let mut c = s.conn();
    check_config(&mut c, "n100000_p0.01");
}

#[test]
fn parity_n1000000_p0_03() {
    let config = "n1000000_p0.03";
    assert_eq!(vectors::meta(config, "generated_pattern"), "\"u:{i}\"");
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(
        &mut c,
        &["BF.RESERVE", "k", "0.03", "1000000", "NONSCALING"],
    );
    let debug = bf_debug(&mut c, "k");
    assert_eq!(debug.len(), 2, "{debug:?}");
    assert!(
        debug[1].starts_with("bytes:912312 bits:7298496 hashes:5 hashwidth:64 capacity:1000000 "),
        "{debug:?}"
    );
    let items = gen_items("u:", 0..1_000_000);
    let answers = madd_all(&mut c, "k", &items);
    let mut chain = Chain::nonscaling(0.03, 1_000_000);
    let want: Vec<i64> = items
        .iter()
        .map(|i| (chain.add(i) == Added::Yes) as i64)
        .collect();
    assert!(answers == want, "BF.MADD answers differ from the reference");
    assert_eq!(card(&mut c, "k"), chain.count() as i64);
    let misses = mexists_all(&mut c, "k", &items)
        .iter()
        .filter(|&&a| a != 1)
        .count();
    assert_eq!(misses, 0, "{misses} inserted items answer 0");

    let (qs, guava): (Vec<Vec<u8>>, Vec<bool>) = vectors::queries(config).into_iter().unzip();
    let got = mexists_all(&mut c, "k", &qs);
    let differ = (0..qs.len()).filter(|&i| (got[i] == 1) != guava[i]).count();
    assert_eq!(
        differ,
        0,
        "{differ} of {} queries differ from Guava",
        qs.len()
    );
    assert_eq!(
        got.iter().sum::<i64>(),
        vectors::meta_u64(config, "true_count") as i64
    );
    assert!(
        dumped_bits(&mut c, "k") == guava_le_bytes(config),
        "the filter's bits differ from Guava's"
    );
}
