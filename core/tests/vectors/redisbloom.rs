//! The pure core against ground truth from the real RedisBloom v2.8.20
//! (tests/vectors/redisbloom): MurmurHash64A, its SCANDUMP header and chunks, and every
//! configuration rebuilt from its items, bit for bit. No server involved.

use rsbloom_core::testkit::files;

use files::{unhex, REDISBLOOM_CONFIGS as CONFIGS};
use rsbloom_core::bloom::codec::scandump::{self, Load};
use rsbloom_core::bloom::redisbloom;
use rsbloom_core::bloom::{Chain, Scheme};
use serde_json::Value;

const NO_LIMIT: u64 = u64::MAX;
/// RedisBloom's SCANDUMP chunk size, also our default `bf.chunk-bytes`.
const CHUNK: u64 = 16 << 20;

fn read(name: &str) -> String {
    files::read("redisbloom", name)
}

/// `(iterator, data)` per SCANDUMP step, the final `(0, "")` included.
fn scandump(name: &str) -> Vec<(i64, Vec<u8>)> {
    read(&format!("{name}.scandump.tsv"))
        .lines()
        .map(|l| {
            let (it, hex) = l.split_once('\t').expect("tab");
            (it.parse().expect("iterator"), unhex(hex))
        })
        .collect()
}

fn info(name: &str) -> Value {
    serde_json::from_str(&read(&format!("{name}.info.json"))).expect("json")
}

/// The inserted items, in order.
fn items(name: &str, info: &Value) -> Vec<Vec<u8>> {
    let rule = &info["items"];
    if let Some(file) = rule["file"].as_str() {
        return read(file).lines().map(unhex).collect();
    }
    let Some(pattern) = rule["rule"].as_str() else {
        return Vec::new();
    };
    let (from, to) = (rule["i_from"].as_u64(), rule["i_to_exclusive"].as_u64());
    let (from, to) = (from.expect("i_from"), to.expect("i_to"));
    assert!(pattern.ends_with("{i}"), "{name}: rule {pattern}");
    let prefix = pattern.trim_end_matches("{i}");
    (from..to)
        .map(|i| format!("{prefix}{i}").into_bytes())
        .collect()
}

/// A filter rebuilt from the SCANDUMP lines through the LOADCHUNK parser.
fn load_scandump(steps: &[(i64, Vec<u8>)]) -> Chain {
    let mut chain = None;
    for (iter, data) in steps.iter().filter(|(it, _)| *it != 0) {
        match scandump::parse_load(*iter, data, NO_LIMIT, chain.is_some()).expect("chunk accepted")
        {
            Load::Header(meta) => chain = Some(Chain::from_meta(&meta, NO_LIMIT).unwrap()),
            Load::Data { offset, data } => {
                let c = chain.as_mut().expect("header first");
                c.write_chunk(offset, data).expect("chunk fits")
            }
        }
    }
    chain.expect("a header")
}

/// The SCANDUMP sequence of a filter, as the server would return it.
fn dump(chain: &Chain) -> Vec<(i64, Vec<u8>)> {
    let mut steps = Vec::new();
    let mut iter = 0;
    loop {
        let (next, data) = scandump::dump_step(chain, iter, CHUNK);
        steps.push((next, data));
        if next == 0 {
            return steps;
        }
        iter = next;
    }
}

/// The filter the recorded commands create: `BF.RESERVE key p n [EXPANSION e] [NONSCALING]`,
/// or RedisBloom's defaults (0.01, 100, expansion 2) when items were added to a missing key.
fn created(info: &Value) -> Chain {
    let first = info["commands"][0].as_str().expect("commands");
    let words: Vec<&str> = first.split_whitespace().collect();
    let (error, capacity, expansion) = match words.as_slice() {
        ["BF.RESERVE", _, p, n, rest @ ..] => {
            let expansion = match rest {
                [] => 2,
                ["NONSCALING"] => 0,
                ["EXPANSION", e] => e.parse().unwrap(),
                other => panic!("unexpected options {other:?}"),
            };
            (p.parse().unwrap(), n.parse().unwrap(), expansion)
        }
        _ => (0.01, 100, 2),
    };
    Chain::create(Scheme::RedisBloom, error, capacity, expansion, NO_LIMIT).unwrap()
}

#[test]
fn murmur64a_matches_every_line() {
    let text = read("murmur64a.tsv");
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 118);
    for row in rows {
        let cols: Vec<&str> = row.split('\t').collect();
        let item = unhex(cols[0]);
        let h = redisbloom::hash(&item);
        let want = (
            u64::from_str_radix(cols[1], 16),
            u64::from_str_radix(cols[2], 16),
        );
        assert_eq!(
            (h.h1, h.h2),
            (want.0.unwrap(), want.1.unwrap()),
            "{}",
            cols[0]
        );
        assert_eq!(redisbloom::murmur64a(&item, h.h1), h.h2);
    }
}

#[test]
fn scandump_round_trips_and_answers_like_redisbloom() {
    for name in CONFIGS {
        let steps = scandump(name);
        let chain = load_scandump(&steps);
        assert_eq!(chain.scheme(), Scheme::RedisBloom);
        assert_eq!(dump(&chain), steps, "{name}: SCANDUMP differs");
        let info = info(name);
        assert_eq!(chain.count(), info["bf_card"].as_u64().unwrap(), "{name}");
        assert_eq!(
            chain.memory_bytes(),
            info["bf_info"]["Size"].as_u64().unwrap(),
            "{name}: Size"
        );
        for item in items(name, &info) {
            assert!(chain.contains(&item), "{name}: {item:?} missing");
        }
        let mut wrong = 0;
        for line in read(&format!("{name}.queries.tsv")).lines() {
            let (hex, answer) = line.split_once('\t').expect("tab");
            wrong += (chain.contains(&unhex(hex)) != (answer == "1")) as u32;
        }
        assert_eq!(wrong, 0, "{name}: {wrong} query answers differ");
    }
}

#[test]
fn rebuilding_from_items_gives_redisbloom_bits_and_replies() {
    for name in CONFIGS {
        let info = info(name);
        let mut chain = created(&info);
        let mut zeros = Vec::new();
        for (i, item) in items(name, &info).iter().enumerate() {
            if !chain.add(item, NO_LIMIT).expect("add") {
                zeros.push(i as u64);
            }
        }
        let recorded: Vec<u64> = info["add_replies"]["replied_0_indices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(zeros, recorded, "{name}: adds that answered 0");
        assert_eq!(
            dump(&chain),
            scandump(name),
            "{name}: bits or header differ"
        );
    }
}
