//! Normal use of every command, with RESP2 reply types and exact values.

use rsbloom_test_support as common;

use common::guava_model::{Added, Chain};
use common::*;
use redis::Value;

/// Add items to the reference chain, returning the 1/0 answers the server should give.
fn model_adds(chain: &mut Chain, items: &[&[u8]]) -> Vec<i64> {
    items
        .iter()
        .map(|i| match chain.add(i) {
            Added::Yes => 1,
            Added::Present => 0,
            Added::Full => panic!("reference chain full"),
        })
        .collect()
}

#[test]
fn reserve_creates_a_native_key() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "1000"]);
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "k"])), "RSbloom--");
    assert_eq!(
        bf_debug(&mut c, "k"),
        Chain::scaling(0.01, 1000, 2).debug_lines()
    );
    let info = bf_info(&mut c, "k");
    let names: Vec<&str> = info.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "Capacity",
            "Size",
            "Number of filters",
            "Number of items inserted",
            "Expansion rate"
        ]
    );
    assert_eq!(info[0].1, Value::Int(1000));
    assert!(matches!(info[1].1, Value::Int(n) if n > 0), "{info:?}");
    assert_eq!(info[2].1, Value::Int(1));
    assert_eq!(info[3].1, Value::Int(0));
    assert_eq!(info[4].1, Value::Int(2));
    expect_int(&mut c, &["EXISTS", "k"], 1);
}

#[test]
fn reserve_options() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(
        &mut c,
        &["BF.RESERVE", "e4", "0.001", "500", "EXPANSION", "4"],
    );
    assert_eq!(
        bf_debug(&mut c, "e4"),
        Chain::scaling(0.001, 500, 4).debug_lines()
    );
    assert_eq!(info_value(&mut c, "e4", "Expansion rate"), Value::Int(4));

    expect_ok(&mut c, &["BF.RESERVE", "ns", "0.01", "1000", "NONSCALING"]);
    assert_eq!(
        bf_debug(&mut c, "ns"),
        Chain::nonscaling(0.01, 1000).debug_lines()
    );
    assert_eq!(info_value(&mut c, "ns", "Expansion rate"), Value::Nil);

    // Options are case-insensitive keywords, in any order.
    expect_ok(
        &mut c,
        &[
            "BF.RESERVE",
            "ns2",
            "0.01",
            "1000",
            "expansion",
            "0",
            "nonscaling",
        ],
    );
    assert_eq!(
        bf_debug(&mut c, "ns2"),
        Chain::nonscaling(0.01, 1000).debug_lines()
    );

    // EXPANSION 0 means non-scaling.
    expect_ok(
        &mut c,
        &["BF.RESERVE", "e0", "0.01", "1000", "EXPANSION", "0"],
    );
    assert_eq!(
        bf_debug(&mut c, "e0"),
        Chain::nonscaling(0.01, 1000).debug_lines()
    );
    assert_eq!(info_value(&mut c, "e0", "Expansion rate"), Value::Nil);

    expect_ok(
        &mut c,
        &["BF.RESERVE", "emax", "0.01", "10", "EXPANSION", "32768"],
    );
    assert_eq!(
        info_value(&mut c, "emax", "Expansion rate"),
        Value::Int(32768)
    );

    // A key named like an option is a key (options are parsed after the fixed arguments).
    expect_ok(&mut c, &["BF.RESERVE", "NONSCALING", "0.01", "100"]);
    assert_eq!(
        info_value(&mut c, "NONSCALING", "Expansion rate"),
        Value::Int(2)
    );
    assert_eq!(
        bf_debug(&mut c, "NONSCALING"),
        Chain::scaling(0.01, 100, 2).debug_lines()
    );
}

#[test]
fn add_and_exists() {
    let s = Server::start();
    let mut c = s.conn();
    let mut chain = Chain::scaling(0.01, 1000, 2);
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "1000"]);
    let long = vec![b'x'; 10_000];
    let items: [&[u8]; 5] = [
        b"hello",
        b"",
        b"\x00\xff\x80 bin",
        &long,
        "héllo 🦀".as_bytes(),
    ];
    let want = model_adds(&mut chain, &items);
    for (item, w) in items.iter().zip(&want) {
        expect_int(&mut c, &[&b"BF.ADD"[..], b"k", *item], *w);
    }
    assert_eq!(want, [1, 1, 1, 1, 1]);
    for item in items {
        expect_int(&mut c, &[&b"BF.ADD"[..], b"k", item], 0);
        expect_int(&mut c, &[&b"BF.EXISTS"[..], b"k", item], 1);
    }
    for other in [&b"hellO"[..], b"\x00", b"\x00\xff\x80 bin\x00", b"nope"] {
        let w = chain.contains(other) as i64;
        expect_int(&mut c, &[&b"BF.EXISTS"[..], b"k", other], w);
    }
    assert_eq!(card(&mut c, "k"), 5);
    expect_int(&mut c, &["BF.EXISTS", "missing", "hello"], 0);
    expect_int(&mut c, &["EXISTS", "missing"], 0);
}

#[test]
fn add_creates_with_defaults() {
    let s = Server::start();
    let mut c = s.conn();
    expect_int(&mut c, &["BF.ADD", "k", "a"], 1);
    let mut chain = Chain::scaling(0.01, 100, 2);
    chain.add(b"a");
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
    assert_eq!(info_value(&mut c, "k", "Expansion rate"), Value::Int(2));
    assert_eq!(info_value(&mut c, "k", "Capacity"), Value::Int(100));
}

#[test]
fn madd_and_mexists() {
    let s = Server::start();
    let mut c = s.conn();
    let mut chain = Chain::scaling(0.01, 100, 2);
    let want = model_adds(&mut chain, &[b"a", b"b", b"a", b"c"]);
    assert_eq!(want, [1, 1, 0, 1]);
    // MADD on a missing key creates it with the defaults.
    expect_ints(&mut c, &["BF.MADD", "k", "a", "b", "a", "c"], &want);
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
    let probe: [&[u8]; 5] = [b"a", b"b", b"c", b"d", b"zz"];
    let want: Vec<i64> = probe.iter().map(|i| chain.contains(i) as i64).collect();
    let mut args: Vec<&[u8]> = vec![b"BF.MEXISTS", b"k"];
    args.extend(probe);
    expect_ints(&mut c, &args, &want);
    assert_eq!(&want[..3], [1, 1, 1]);
    expect_ints(&mut c, &["BF.MEXISTS", "missing", "a", "b"], &[0, 0]);
    expect_ints(&mut c, &["BF.MADD", "k", "single"], &[1]);
    assert_eq!(card(&mut c, "k"), 4);
}

#[test]
fn insert_options_apply_only_on_creation() {
    let s = Server::start();
    let mut c = s.conn();
    let mut chain = Chain::scaling(0.001, 500, 4);
    let want = model_adds(&mut chain, &[b"a", b"b", b"a"]);
    expect_ints(
        &mut c,
        &[
            "BF.INSERT",
            "k",
            "CAPACITY",
            "500",
            "ERROR",
            "0.001",
            "EXPANSION",
            "4",
            "ITEMS",
            "a",
            "b",
            "a",
        ],
        &want,
    );
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
    assert_eq!(info_value(&mut c, "k", "Expansion rate"), Value::Int(4));

    // On an existing key the options are ignored.
    let want = model_adds(&mut chain, &[b"c"]);
    expect_ints(
        &mut c,
        &[
            "BF.INSERT",
            "k",
            "CAPACITY",
            "7",
            "ERROR",
            "0.2",
            "NONSCALING",
            "ITEMS",
            "c",
        ],
        &want,
    );
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
    let want = model_adds(&mut chain, &[b"d", b"c"]);
    expect_ints(
        &mut c,
        &["BF.INSERT", "k", "NOCREATE", "ITEMS", "d", "c"],
        &want,
    );
    assert_eq!(card(&mut c, "k"), 4);

    // Lower-case options; NONSCALING.
    let mut ns = Chain::nonscaling(0.05, 20);
    let want = model_adds(&mut ns, &[b"x"]);
    expect_ints(
        &mut c,
        &[
            "BF.INSERT",
            "n",
            "capacity",
            "20",
            "error",
            "0.05",
            "nonscaling",
            "items",
            "x",
        ],
        &want,
    );
    assert_eq!(bf_debug(&mut c, "n"), ns.debug_lines());
    assert_eq!(info_value(&mut c, "n", "Expansion rate"), Value::Nil);

    // No options: the configured defaults.
    let mut d = Chain::scaling(0.01, 100, 2);
    let want = model_adds(&mut d, &[b"x", b"y"]);
    expect_ints(&mut c, &["BF.INSERT", "d", "ITEMS", "x", "y"], &want);
    assert_eq!(bf_debug(&mut c, "d"), d.debug_lines());
}

#[test]
fn card_counts_successful_adds() {
    let s = Server::start();
    let mut c = s.conn();
    expect_int(&mut c, &["BF.CARD", "missing"], 0);
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "100"]);
    expect_int(&mut c, &["BF.CARD", "k"], 0);
    let mut chain = Chain::scaling(0.01, 100, 2);
    let items = gen_items("card:", 0..350);
    let answers = madd_all(&mut c, "k", &items);
    let want: Vec<i64> = items
        .iter()
        .map(|i| (chain.add(i) == Added::Yes) as i64)
        .collect();
    assert_eq!(answers, want);
    expect_int(&mut c, &["BF.CARD", "k"], chain.count() as i64);
    assert_eq!(
        info_value(&mut c, "k", "Number of items inserted"),
        Value::Int(chain.count() as i64)
    );
}

#[test]
fn info_single_fields() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "10", "EXPANSION", "3"]);
    let items = gen_items("f:", 0..50);
    madd_all(&mut c, "k", &items);
    let full = bf_info(&mut c, "k");
    let fields = [
        ("CAPACITY", "Capacity"),
        ("SIZE", "Size"),
        ("FILTERS", "Number of filters"),
        ("ITEMS", "Number of items inserted"),
        ("EXPANSION", "Expansion rate"),
    ];
    for (field, name) in fields {
        let want = full
            .iter()
            .find(|(n, _)| n == name)
            .expect("field")
            .1
            .clone();
        for spelling in [field.to_string(), field.to_lowercase()] {
            let v = raw(&mut c, &["BF.INFO", "k", &spelling]);
            assert_eq!(v, Value::Array(vec![want.clone()]), "BF.INFO k {spelling}");
        }
    }
    let mut chain = Chain::scaling(0.01, 10, 3);
    for i in &items {
        chain.add(i);
    }
    assert_eq!(full[0].1, Value::Int(chain.total_capacity() as i64));
    assert_eq!(full[2].1, Value::Int(chain.layers.len() as i64));
    assert_eq!(full[3].1, Value::Int(chain.count() as i64));
    assert_eq!(full[4].1, Value::Int(3));
    expect_ok(&mut c, &["BF.RESERVE", "ns", "0.01", "10", "NONSCALING"]);
    assert_eq!(
        raw(&mut c, &["BF.INFO", "ns", "EXPANSION"]),
        Value::Array(vec![Value::Nil])
    );
}

#[test]
fn debug_lists_every_layer() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.02", "10"]);
    let mut chain = Chain::scaling(0.02, 10, 2);
    let items = gen_items("dbg:", 0..200);
    for i in &items {
        chain.add(i);
    }
    madd_all(&mut c, "k", &items);
    assert!(
        chain.layers.len() >= 4,
        "test setup: expected several layers"
    );
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
}

#[test]
fn size_and_memory_usage() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.001", "20000"]);
    madd_all(&mut c, "k", &gen_items("m:", 0..100_000));
    let mut chain = Chain::scaling(0.001, 20000, 2);
    for i in gen_items("m:", 0..100_000) {
        chain.add(&i);
    }
    let size = as_int(&info_value(&mut c, "k", "Size"));
    assert!(
        size >= chain.total_bytes() as i64,
        "Size {size} below the bit arrays' {} bytes",
        chain.total_bytes()
    );
    let usage = memory_usage(&mut c, "k");
    assert!(
        usage >= size && usage - size < 200,
        "MEMORY USAGE {usage} vs BF.INFO Size {size}"
    );
}

#[test]
fn scandump_and_loadchunk_roundtrip() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "src", "0.01", "100"]);
    let items = gen_items("sd:", 0..1000);
    madd_all(&mut c, "src", &items);
    let chunks = scandump(&mut c, "src");
    assert!(chunks.len() >= 2, "expected a header and data: {chunks:?}");
    assert_eq!(chunks[0].sent, 0);
    assert_eq!(chunks[0].next, 1, "SCANDUMP key 0 must answer iterator 1");
    loadchunks(&mut c, "dst", &chunks);
    assert_eq!(bf_debug(&mut c, "dst"), bf_debug(&mut c, "src"));
    assert!(mexists_all(&mut c, "dst", &items).iter().all(|&a| a == 1));
    let others = gen_items("other:", 0..5000);
    assert_eq!(
        mexists_all(&mut c, "dst", &others),
        mexists_all(&mut c, "src", &others)
    );
    assert_eq!(bf_info(&mut c, "dst"), bf_info(&mut c, "src"));
}

/// The flags and key positions of a command, from COMMAND INFO.
fn command_info(c: &mut redis::Connection, name: &str) -> (Vec<String>, i64, i64, i64) {
    match raw(c, &["COMMAND", "INFO", name]) {
        Value::Array(entries) => match &entries[0] {
            Value::Array(e) => {
                let flags = match &e[2] {
                    Value::Array(f) | Value::Set(f) => f.iter().map(as_text).collect(),
                    other => panic!("flags of {name}: {other:?}"),
                };
                (flags, as_int(&e[3]), as_int(&e[4]), as_int(&e[5]))
            }
            other => panic!("COMMAND INFO {name} answered {other:?}"),
        },
        other => panic!("COMMAND INFO {name} answered {other:?}"),
    }
}

#[test]
fn command_flags_and_keys() {
    let s = Server::start();
    let mut c = s.conn();
    let writes = [
        "bf.reserve",
        "bf.add",
        "bf.madd",
        "bf.insert",
        "bf.loadchunk",
    ];
    let reads = [
        "bf.exists",
        "bf.mexists",
        "bf.card",
        "bf.info",
        "bf.scandump",
        "bf.debug",
    ];
    for name in writes.iter().chain(&reads) {
        let (flags, first, last, step) = command_info(&mut c, name);
        assert_eq!((first, last, step), (1, 1, 1), "{name} key positions");
        let has = |f: &str| flags.iter().any(|x| x == f);
        if writes.contains(name) {
            assert!(
                has("write") && has("denyoom") && !has("readonly"),
                "{name}: {flags:?}"
            );
        } else {
            assert!(has("readonly") && !has("write"), "{name}: {flags:?}");
        }
    }
    for name in ["bf.exists", "bf.mexists", "bf.card"] {
        let (flags, ..) = command_info(&mut c, name);
        assert!(flags.iter().any(|f| f == "fast"), "{name}: {flags:?}");
    }
    let keys = raw(
        &mut c,
        &["COMMAND", "GETKEYS", "BF.INSERT", "kk", "ITEMS", "a", "b"],
    );
    assert_eq!(keys, Value::Array(vec![Value::BulkString(b"kk".to_vec())]));
    // A key named like a keyword is still the key.
    expect_ints(&mut c, &["BF.INSERT", "ITEMS", "ITEMS", "a"], &[1]);
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "ITEMS"])), "RSbloom--");
}

#[test]
fn out_of_memory_denies_writes_only() {
    let s = Server::start();
    let mut c = s.conn();
    expect_int(&mut c, &["BF.ADD", "k", "a"], 1);
    let chunks = scandump(&mut c, "k");
    expect_ok(&mut c, &["CONFIG", "SET", "maxmemory", "1"]);
    let oom = "OOM command not allowed when used memory > 'maxmemory'.";
    expect_err(&mut c, &["BF.ADD", "k", "b"], oom);
    expect_err(&mut c, &["BF.MADD", "k", "b"], oom);
    expect_err(&mut c, &["BF.INSERT", "k", "ITEMS", "b"], oom);
    expect_err(&mut c, &["BF.RESERVE", "n", "0.01", "100"], oom);
    let iter = chunks[0].next.to_string();
    expect_err(
        &mut c,
        &[&b"BF.LOADCHUNK"[..], b"n", iter.as_bytes(), &chunks[0].data],
        oom,
    );
    expect_int(&mut c, &["BF.EXISTS", "k", "a"], 1);
    expect_ints(&mut c, &["BF.MEXISTS", "k", "a"], &[1]);
    expect_int(&mut c, &["BF.CARD", "k"], 1);
    assert_eq!(bf_debug(&mut c, "k").len(), 2);
    expect_ok(&mut c, &["CONFIG", "SET", "maxmemory", "0"]);
    expect_int(&mut c, &["BF.ADD", "k", "b"], 1);
}

#[test]
fn extreme_parameters() {
    let s = Server::start();
    let mut c = s.conn();
    let cases: [(&str, f64, u64); 6] = [
        ("0.9", 0.9, 1),
        ("0.999999", 0.999999, 5),
        ("1e-300", 1e-300, 1),
        ("1e-3", 1e-3, 1000),
        ("0.5", 0.5, 1),
        ("0.0000001", 1e-7, 3),
    ];
    for (i, (text, p, n)) in cases.iter().enumerate() {
        let key = format!("x{i}");
        expect_ok(
            &mut c,
            &["BF.RESERVE", &key, text, &n.to_string(), "NONSCALING"],
        );
        let mut chain = Chain::nonscaling(*p, *n);
        let items = gen_items(&format!("{key}:"), 0..3);
        for item in &items {
            match chain.add(item) {
                Added::Full => break,
                a => expect_int(
                    &mut c,
                    &[&b"BF.ADD"[..], key.as_bytes(), item],
                    (a == Added::Yes) as i64,
                ),
            }
        }
        assert_eq!(bf_debug(&mut c, &key), chain.debug_lines(), "{text} {n}");
    }
}
