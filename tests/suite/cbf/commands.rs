//! The CBF commands: replies, errors, implicit creation with the `bf.cbf-*` configs, the
//! full filter, RESP3, the Guava export, keyspace events and COMMAND DOCS.

use rsbloom_test_support as common;

use std::time::Duration;

use common::guava_model;
use common::*;
use redis::{Connection, Msg, Value};

use super::{cbf_field, cbf_info, multi};

#[test]
fn add_delete_exists_count_and_card() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["CBF.RESERVE", "k", "0.01", "1000"]);
    expect_int(&mut c, &["CBF.ADD", "k", "a"], 1);
    expect_int(&mut c, &["CBF.ADD", "k", "a"], 0);
    expect_int(&mut c, &["CBF.COUNT", "k", "a"], 2);
    expect_ints(&mut c, &["CBF.MADD", "k", "b", "c", "b"], &[1, 1, 0]);
    expect_int(&mut c, &["CBF.CARD", "k"], 5);
    expect_ints(&mut c, &["CBF.MEXISTS", "k", "a", "b", "zz"], &[1, 1, 0]);
    expect_int(&mut c, &["CBF.EXISTS", "k", "c"], 1);
    // Deleted as many times as added: gone; once more: 0 and nothing changes.
    expect_int(&mut c, &["CBF.DEL", "k", "a"], 1);
    expect_int(&mut c, &["CBF.EXISTS", "k", "a"], 1);
    expect_int(&mut c, &["CBF.DEL", "k", "a"], 1);
    expect_int(&mut c, &["CBF.EXISTS", "k", "a"], 0);
    expect_int(&mut c, &["CBF.COUNT", "k", "a"], 0);
    let before = digest_value(&mut c, "k");
    expect_int(&mut c, &["CBF.DEL", "k", "a"], 0);
    assert_eq!(digest_value(&mut c, "k"), before);
    expect_ints(&mut c, &["CBF.MDEL", "k", "b", "zz", "c"], &[1, 0, 1]);
    expect_int(&mut c, &["CBF.CARD", "k"], 1);
    expect_ints(&mut c, &["CBF.MEXISTS", "k", "b", "c"], &[1, 0]);
    // Missing keys: reads answer 0, deletes and INFO are not found.
    expect_int(&mut c, &["CBF.EXISTS", "nokey", "a"], 0);
    expect_ints(&mut c, &["CBF.MEXISTS", "nokey", "a", "b"], &[0, 0]);
    expect_int(&mut c, &["CBF.COUNT", "nokey", "a"], 0);
    expect_int(&mut c, &["CBF.CARD", "nokey"], 0);
    expect_err(&mut c, &["CBF.DEL", "nokey", "a"], "ERR not found");
    expect_err(&mut c, &["CBF.MDEL", "nokey", "a"], "ERR not found");
    expect_err(&mut c, &["CBF.INFO", "nokey"], "ERR not found");
    expect_err(&mut c, &["CBF.SCANDUMP", "nokey", "0"], "ERR not found");
    expect_err(&mut c, &["CBF.EXPORT", "nokey", "GUAVA"], "ERR not found");
    assert_eq!(raw(&mut c, &["EXISTS", "nokey"]), Value::Int(0));
}

#[test]
fn info_fields() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(
        &mut c,
        &["CBF.RESERVE", "k", "0.001", "5000", "COUNTERBITS", "8"],
    );
    multi(&mut c, "CBF.MADD", "k", &gen_items("i:", 0..100));
    let info = cbf_info(&mut c, "k");
    let names: Vec<&str> = info.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "Capacity",
            "Size",
            "Number of items inserted",
            "Error rate",
            "Number of hash functions",
            "Number of counters",
            "Counter bits",
            "Saturated counters"
        ]
    );
    assert_eq!(cbf_field(&mut c, "k", "Capacity"), 5000);
    assert_eq!(cbf_field(&mut c, "k", "Number of items inserted"), 100);
    assert_eq!(cbf_field(&mut c, "k", "Counter bits"), 8);
    assert_eq!(cbf_field(&mut c, "k", "Saturated counters"), 0);
    let counters = cbf_field(&mut c, "k", "Number of counters");
    // 8-bit counters: a byte each, plus the struct.
    let size = cbf_field(&mut c, "k", "Size");
    assert!(
        size > counters && size < counters + 256,
        "{size} {counters}"
    );
    assert!(memory_usage(&mut c, "k") >= size);
    assert_eq!(as_text(&info[3].1), "0.001");
    // The counters are those of an RSbloom-- layer held under 0.001: Guava's words for
    // 0.0009 or a little more.
    let (words, k) = guava_model::scaling_sizing(5000, 0.001);
    assert_eq!(counters as u64, words * 64);
    assert_eq!(cbf_field(&mut c, "k", "Number of hash functions"), k as i64);
    // Saturation with 4-bit counters, counted and sticking.
    expect_ok(&mut c, &["CBF.RESERVE", "s", "0.01", "100"]);
    for _ in 0..20 {
        raw(&mut c, &["CBF.ADD", "s", "hot"]);
    }
    expect_int(&mut c, &["CBF.COUNT", "s", "hot"], 15);
    let saturated = cbf_field(&mut c, "s", "Saturated counters");
    assert!(saturated >= 1, "{saturated}");
    for _ in 0..30 {
        expect_int(&mut c, &["CBF.DEL", "s", "hot"], 1);
    }
    expect_int(&mut c, &["CBF.EXISTS", "s", "hot"], 1);
    assert_eq!(cbf_field(&mut c, "s", "Saturated counters"), saturated);
    expect_int(&mut c, &["CBF.CARD", "s"], 0);
}

#[test]
fn resp3_replies() {
    let s = Server::start();
    let mut c = s.conn_resp3();
    expect_ok(&mut c, &["CBF.RESERVE", "k", "0.01", "100"]);
    assert_eq!(raw(&mut c, &["CBF.ADD", "k", "a"]), Value::Boolean(true));
    assert_eq!(
        raw(&mut c, &["CBF.MEXISTS", "k", "a", "b"]),
        Value::Array(vec![Value::Boolean(true), Value::Boolean(false)])
    );
    assert_eq!(raw(&mut c, &["CBF.DEL", "k", "b"]), Value::Boolean(false));
    assert_eq!(raw(&mut c, &["CBF.COUNT", "k", "a"]), Value::Int(1));
    match raw(&mut c, &["CBF.INFO", "k"]) {
        Value::Map(m) => {
            assert_eq!(m.len(), 8);
            assert_eq!(m[3].1, Value::Double(0.01));
        }
        other => panic!("CBF.INFO in RESP3 answered {other:?}"),
    }
}

#[test]
fn argument_errors() {
    let s = Server::start();
    let mut c = s.conn();
    for (args, want) in [
        (&["CBF.RESERVE", "k", "x", "100"][..], "ERR bad error rate"),
        (
            &["CBF.RESERVE", "k", "1", "100"],
            "ERR error rate must be in the range (0.000000, 1.000000)",
        ),
        (
            &["CBF.RESERVE", "k", "0", "100"],
            "ERR error rate must be in the range (0.000000, 1.000000)",
        ),
        (&["CBF.RESERVE", "k", "0.01", "x"], "ERR bad capacity"),
        (
            &["CBF.RESERVE", "k", "0.01", "0"],
            "ERR capacity must be in the range [1, 1073741824]",
        ),
        (
            &["CBF.RESERVE", "k", "0.01", "1073741825"],
            "ERR capacity must be in the range [1, 1073741824]",
        ),
        (
            &["CBF.RESERVE", "k", "0.01", "100", "COUNTERBITS"],
            "ERR no counter bits",
        ),
        (
            &["CBF.RESERVE", "k", "0.01", "100", "COUNTERBITS", "16"],
            "ERR counter bits must be 4 or 8",
        ),
        (
            &["CBF.RESERVE", "k", "0.01", "100", "COUNTERBITS", "x"],
            "ERR counter bits must be 4 or 8",
        ),
        (
            &["CBF.RESERVE", "k", "0.01", "100", "NONSCALING"],
            "ERR unknown option 'NONSCALING'",
        ),
        (
            &["CBF.RESERVE", "k", "0.01"],
            "ERR wrong number of arguments for 'cbf.reserve' command",
        ),
        (
            &["CBF.ADD", "k"],
            "ERR wrong number of arguments for 'cbf.add' command",
        ),
        (
            &["CBF.ADD", "k", "a", "b"],
            "ERR wrong number of arguments for 'cbf.add' command",
        ),
        (
            &["CBF.MADD", "k"],
            "ERR wrong number of arguments for 'cbf.madd' command",
        ),
        (
            &["CBF.DEL", "k"],
            "ERR wrong number of arguments for 'cbf.del' command",
        ),
        (
            &["CBF.MDEL", "k"],
            "ERR wrong number of arguments for 'cbf.mdel' command",
        ),
        (
            &["CBF.INFO", "k", "Capacity"],
            "ERR wrong number of arguments for 'cbf.info' command",
        ),
        (
            &["CBF.EXPORT", "k"],
            "ERR wrong number of arguments for 'cbf.export' command",
        ),
    ] {
        expect_err(&mut c, args, want);
    }
    assert_eq!(raw(&mut c, &["EXISTS", "k"]), Value::Int(0));
    expect_ok(
        &mut c,
        &["CBF.RESERVE", "k", "0.01", "100", "counterbits", "8"],
    );
    expect_err(
        &mut c,
        &["CBF.RESERVE", "k", "0.01", "100"],
        "ERR item exists",
    );
    expect_err(
        &mut c,
        &["CBF.EXPORT", "k", "JSON"],
        "ERR unknown format 'JSON' (supported: GUAVA)",
    );
    expect_err(
        &mut c,
        &["CBF.SCANDUMP", "k", "x"],
        "Second argument must be numeric",
    );
    expect_err(
        &mut c,
        &["CBF.LOADCHUNK", "k", "x", "y"],
        "ERR Second argument must be numeric",
    );
    expect_err(
        &mut c,
        &["CBF.LOADCHUNK", "new", "1", "junk"],
        "ERR received bad data",
    );
    expect_err(
        &mut c,
        &["CBF.LOADCHUNK", "new", "5", "junk"],
        "ERR not found",
    );
    // Other types: WRONGTYPE both ways.
    expect_ok(&mut c, &["BF.RESERVE", "bf", "0.01", "100"]);
    expect_ok(&mut c, &["SET", "str", "v"]);
    let wrong = "WRONGTYPE Operation against a key holding the wrong kind of value";
    for key in ["bf", "str"] {
        for args in [
            &["CBF.ADD", key, "a"][..],
            &["CBF.MADD", key, "a"],
            &["CBF.DEL", key, "a"],
            &["CBF.MDEL", key, "a"],
            &["CBF.EXISTS", key, "a"],
            &["CBF.MEXISTS", key, "a"],
            &["CBF.COUNT", key, "a"],
            &["CBF.CARD", key],
            &["CBF.INFO", key],
            &["CBF.RESERVE", key, "0.01", "10"],
            &["CBF.SCANDUMP", key, "0"],
            &["CBF.LOADCHUNK", key, "1", "x"],
            &["CBF.EXPORT", key, "GUAVA"],
        ] {
            expect_err(&mut c, args, wrong);
        }
    }
    for args in [
        &["BF.ADD", "k", "a"][..],
        &["BF.INFO", "k"],
        &["CF.ADD", "k", "a"],
        &["GET", "k"],
    ] {
        expect_err(&mut c, args, wrong);
    }
    // Over bf.max-filter-bytes: refused before anything is allocated.
    expect_ok(&mut c, &["CONFIG", "SET", "bf.max-filter-bytes", "100000"]);
    let e = expect_err_prefix(
        &mut c,
        &["CBF.RESERVE", "big", "0.0001", "100000"],
        "ERR filter would need ",
    );
    assert!(e.ends_with("over bf.max-filter-bytes (100000)"), "{e}");
    assert_eq!(raw(&mut c, &["EXISTS", "big"]), Value::Int(0));
}

#[test]
fn a_full_filter_refuses_new_items_as_a_full_nonscaling_bloom_filter() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["CBF.RESERVE", "k", "0.001", "10"]);
    expect_ok(&mut c, &["BF.RESERVE", "b", "0.001", "10", "NONSCALING"]);
    let items = gen_items("x:", 0..10);
    assert_eq!(multi(&mut c, "CBF.MADD", "k", &items), vec![1; 10]);
    multi(&mut c, "BF.MADD", "b", &items);
    let bf = err_of(&raw(&mut c, &["BF.ADD", "b", "new"])).expect("BF.ADD error");
    let cbf = err_of(&raw(&mut c, &["CBF.ADD", "k", "new"])).expect("CBF.ADD error");
    assert_eq!(cbf, bf);
    assert_eq!(cbf, "ERR non scaling filter is full");
    // MADD stops at the refusal, with the answers before it.
    match raw(&mut c, &["CBF.MADD", "k", "x:1", "new", "x:2"]) {
        Value::Array(a) => {
            assert_eq!(a[0], Value::Int(0));
            assert_eq!(
                err_of(&a[1]).as_deref(),
                Some("ERR non scaling filter is full")
            );
            assert_eq!(a.len(), 2);
        }
        other => panic!("{other:?}"),
    }
    // A present item is still counted; a delete makes room for a new one.
    expect_int(&mut c, &["CBF.CARD", "k"], 11);
    expect_int(&mut c, &["CBF.DEL", "k", "x:1"], 1);
    expect_int(&mut c, &["CBF.DEL", "k", "x:1"], 1);
    expect_int(&mut c, &["CBF.ADD", "k", "new"], 1);
    expect_int(&mut c, &["CBF.CARD", "k"], 10);
}

#[test]
fn implicit_creation_uses_the_cbf_configs() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(config_get(&mut c, "bf.cbf-error-rate"), "0.01");
    assert_eq!(config_get(&mut c, "bf.cbf-initial-size"), "1000");
    assert_eq!(config_get(&mut c, "bf.cbf-counter-bits"), "4");
    expect_int(&mut c, &["CBF.ADD", "d", "a"], 1);
    assert_eq!(cbf_field(&mut c, "d", "Capacity"), 1000);
    assert_eq!(cbf_field(&mut c, "d", "Counter bits"), 4);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.cbf-error-rate", "0.001"]);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.cbf-initial-size", "50"]);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.cbf-counter-bits", "8"]);
    for bad in ["5", "16", "0"] {
        let v = raw(&mut c, &["CONFIG", "SET", "bf.cbf-counter-bits", bad]);
        assert!(err_of(&v).is_some(), "bf.cbf-counter-bits {bad}: {v:?}");
    }
    assert!(err_of(&raw(&mut c, &["CONFIG", "SET", "bf.cbf-error-rate", "1"])).is_some());
    expect_ints(&mut c, &["CBF.MADD", "m", "a", "b"], &[1, 1]);
    assert_eq!(cbf_field(&mut c, "m", "Capacity"), 50);
    assert_eq!(cbf_field(&mut c, "m", "Counter bits"), 8);
    let info = cbf_info(&mut c, "m");
    assert_eq!(as_text(&info[3].1), "0.001");
    // RESERVE without COUNTERBITS takes the configured width.
    expect_ok(&mut c, &["CBF.RESERVE", "r", "0.01", "10"]);
    assert_eq!(cbf_field(&mut c, "r", "Counter bits"), 8);
    // Load arguments.
    let s2 = Server::start_with(ServerOpts::module_args(&[
        "cbf-error-rate",
        "0.05",
        "cbf-initial-size",
        "7",
        "cbf-counter-bits",
        "8",
    ]));
    let mut c2 = s2.conn();
    expect_int(&mut c2, &["CBF.ADD", "d", "a"], 1);
    assert_eq!(cbf_field(&mut c2, "d", "Capacity"), 7);
    assert_eq!(cbf_field(&mut c2, "d", "Counter bits"), 8);
}

/// CBF.EXPORT is Guava's writeTo of the filter the non-zero counters make: the project's
/// Guava model built with the same shape and the items left holds the same words, BF.IMPORT
/// takes the bytes, and the imported filter answers as the counting one.
#[test]
fn export_loads_as_guava_and_answers_as_the_filter() {
    let s = Server::start();
    let mut c = s.conn();
    for (bits, rate, n) in [("4", "0.01", 2000usize), ("8", "0.001", 500)] {
        let key = format!("e{bits}");
        expect_ok(
            &mut c,
            &[
                "CBF.RESERVE",
                &key,
                rate,
                &n.to_string(),
                "COUNTERBITS",
                bits,
            ],
        );
        let items = gen_items(&format!("{key}:"), 0..n);
        multi(&mut c, "CBF.MADD", &key, &items);
        let (gone, kept) = items.split_at(n / 2);
        assert!(multi(&mut c, "CBF.MDEL", &key, gone)
            .iter()
            .all(|&d| d == 1));
        let bytes = as_bytes(&raw(&mut c, &["CBF.EXPORT", &key, "GUAVA"]));
        // The model: Guava's words for an RSbloom-- layer of this capacity and rate.
        let p: f64 = rate.parse().unwrap();
        let mut layer = guava_model::Layer::scaling(n as u64, p);
        for i in kept {
            layer.set(guava_model::hash(i));
        }
        let mut want = vec![1u8, layer.k as u8];
        want.extend((layer.words.len() as i32).to_be_bytes());
        for w in &layer.words {
            want.extend(w.to_be_bytes());
        }
        assert!(bytes == want, "{key}: export differs from the Guava model");
        let imported = format!("{key}:imported");
        expect_ok(
            &mut c,
            &[&b"BF.IMPORT"[..], imported.as_bytes(), b"GUAVA", &bytes],
        );
        let queries = gen_items("q:", 0..20_000);
        let all: Vec<Vec<u8>> = items.iter().chain(&queries).cloned().collect();
        let counting = multi(&mut c, "CBF.MEXISTS", &key, &all);
        assert_eq!(mexists_all(&mut c, &imported, &all), counting);
        assert!(counting[n / 2..n].iter().all(|&a| a == 1));
        // And back out of BF.EXPORT unchanged.
        assert!(as_bytes(&raw(&mut c, &["BF.EXPORT", &imported, "GUAVA"])) == bytes);
    }
}

fn next_event(ps: &mut redis::PubSub<'_>) -> (String, String) {
    let msg: Msg = ps.get_message().expect("a keyspace event");
    (
        msg.get_channel_name().to_string(),
        msg.get_payload().expect("text"),
    )
}

/// Every write that changed the key emits one event named after its command; writes that
/// changed nothing and reads emit none.
#[test]
fn keyspace_events() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["CONFIG", "SET", "notify-keyspace-events", "Kg"]);
    let mut sub = s.conn();
    let mut ps = sub.as_pubsub();
    ps.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    ps.subscribe("__keyspace@0__:k").unwrap();
    let chunks = {
        let mut tmp = s.conn();
        expect_ok(&mut tmp, &["CBF.RESERVE", "src", "0.01", "10"]);
        let h = raw(&mut tmp, &["CBF.SCANDUMP", "src", "0"]);
        match h {
            Value::Array(a) => as_bytes(&a[1]),
            other => panic!("{other:?}"),
        }
    };
    let steps: Vec<(Vec<&[u8]>, Option<&str>)> = vec![
        (
            vec![b"CBF.RESERVE", b"k", b"0.01", b"100"],
            Some("cbf.reserve"),
        ),
        (vec![b"CBF.ADD", b"k", b"a"], Some("cbf.add")),
        (vec![b"CBF.MADD", b"k", b"a", b"b"], Some("cbf.madd")),
        (vec![b"CBF.EXISTS", b"k", b"a"], None),
        (vec![b"CBF.DEL", b"k", b"zz"], None),
        (vec![b"CBF.DEL", b"k", b"a"], Some("cbf.del")),
        (vec![b"CBF.MDEL", b"k", b"zz"], None),
        (vec![b"CBF.MDEL", b"k", b"a", b"b"], Some("cbf.mdel")),
        (vec![b"DEL", b"k"], Some("del")),
        (
            vec![b"CBF.LOADCHUNK", b"k", b"1", &chunks],
            Some("cbf.loadchunk"),
        ),
    ];
    for (args, event) in steps {
        raw(&mut c, &args);
        if let Some(event) = event {
            assert_eq!(
                next_event(&mut ps),
                ("__keyspace@0__:k".to_string(), event.to_string()),
                "after {}",
                show_args(&args)
            );
        }
    }
    // Nothing was left unread: the next event is the next write's.
    raw(&mut c, &["CBF.ADD", "k", "z"]);
    assert_eq!(next_event(&mut ps).1, "cbf.add");
}

#[test]
fn command_docs_and_info() {
    let s = Server::start();
    let mut c = s.conn();
    let rows: [(&str, i64, &[&str], &str); 13] = [
        ("cbf.reserve", -4, &["write", "denyoom"], "RW"),
        ("cbf.add", 3, &["write", "denyoom"], "RW"),
        ("cbf.madd", -3, &["write", "denyoom"], "RW"),
        ("cbf.del", 3, &["write", "fast"], "RW"),
        ("cbf.mdel", -3, &["write"], "RW"),
        ("cbf.exists", 3, &["readonly", "fast"], "RO"),
        ("cbf.mexists", -3, &["readonly", "fast"], "RO"),
        ("cbf.count", 3, &["readonly", "fast"], "RO"),
        ("cbf.card", 2, &["readonly", "fast"], "RO"),
        ("cbf.info", 2, &["readonly", "fast"], "RO"),
        ("cbf.scandump", 3, &["readonly"], "RO"),
        // Its header may hold a keyed filter's secret: out of MONITOR and SLOWLOG.
        (
            "cbf.loadchunk",
            4,
            &["write", "denyoom", "skip_monitor", "skip_slowlog"],
            "RW",
        ),
        ("cbf.export", 3, &["readonly"], "RO"),
    ];
    for (name, arity, flags, key) in rows {
        let reply = raw(&mut c, &["COMMAND", "INFO", name]);
        let Value::Array(entries) = &reply else {
            panic!("{reply:?}")
        };
        let Value::Array(info) = &entries[0] else {
            panic!("{name}: {reply:?}")
        };
        assert_eq!(info[1], Value::Int(arity), "{name}");
        let got: Vec<String> = match &info[2] {
            Value::Array(f) | Value::Set(f) => {
                f.iter().map(|v| redis_flag_name(as_text(v))).collect()
            }
            other => panic!("{other:?}"),
        };
        for f in flags.iter().chain(&["module"]) {
            assert!(got.contains(&f.to_string()), "{name}: flags {got:?}");
        }
        assert_eq!(got.len(), flags.len() + 1, "{name}: flags {got:?}");
        assert!(
            format!("{:?}", info[8]).contains(key),
            "{name}: key specs {:?}",
            info[8]
        );
        let docs = raw(&mut c, &["COMMAND", "DOCS", name]);
        let text = format!("{docs:?}");
        assert!(
            text.contains("summary") && text.contains("arguments"),
            "{name}: {text}"
        );
        assert!(text.contains("key"), "{name}: {text}");
    }
    let docs = format!("{:?}", raw(&mut c, &["COMMAND", "DOCS", "cbf.reserve"]));
    for word in ["error_rate", "capacity", "COUNTERBITS"] {
        assert!(docs.contains(word), "CBF.RESERVE docs lack {word}: {docs}");
    }
    assert_eq!(
        raw(&mut c, &["COMMAND", "GETKEYS", "CBF.MADD", "k", "a", "b"]),
        Value::Array(vec![Value::BulkString(b"k".to_vec())])
    );
}

/// INFO bf_cbf counts keys, memory and items as the other families' sections do.
#[test]
fn info_section_counts_keys_and_items() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["CBF.RESERVE", "a", "0.01", "1000"]);
    multi(&mut c, "CBF.MADD", "a", &gen_items("a:", 0..300));
    multi(&mut c, "CBF.MDEL", "a", &gen_items("a:", 0..100));
    expect_int(&mut c, &["CBF.ADD", "b", "x"], 1);
    let field = |c: &mut Connection, n: &str| {
        info_field(c, "bf_cbf", &format!("bf_cbf_{n}")).unwrap_or_else(|| panic!("no {n}"))
    };
    assert_eq!(field(&mut c, "keys"), "2");
    assert_eq!(field(&mut c, "items"), "201");
    let mem: i64 = field(&mut c, "memory_bytes").parse().unwrap();
    assert_eq!(
        mem,
        cbf_field(&mut c, "a", "Size") + cbf_field(&mut c, "b", "Size")
    );
    raw(&mut c, &["DEL", "a"]);
    assert_eq!(field(&mut c, "keys"), "1");
    assert_eq!(field(&mut c, "items"), "1");
}
