//! Module configuration: defaults, CONFIG SET/GET, load arguments (new and legacy), bad values.

use rsbloom_test_support as common;

use common::guava_model::Chain;
use common::*;
use redis::Value;

#[test]
fn defaults() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(config_get(&mut c, "bf.error-rate"), "0.01");
    assert_eq!(config_get(&mut c, "bf.initial-size"), "100");
    assert_eq!(config_get(&mut c, "bf.expansion-factor"), "2");
    assert_eq!(config_get(&mut c, "bf.max-filter-bytes"), "536870912");
    assert_eq!(config_get(&mut c, "bf.chunk-bytes"), "16777216");
}

#[test]
fn set_changes_implicit_filters() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["CONFIG", "SET", "bf.error-rate", "0.001"]);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.initial-size", "1000"]);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.expansion-factor", "4"]);
    assert_eq!(config_get(&mut c, "bf.error-rate"), "0.001");
    assert_eq!(config_get(&mut c, "bf.initial-size"), "1000");
    assert_eq!(config_get(&mut c, "bf.expansion-factor"), "4");
    expect_int(&mut c, &["BF.ADD", "a", "x"], 1);
    expect_ints(&mut c, &["BF.MADD", "m", "x"], &[1]);
    expect_ints(&mut c, &["BF.INSERT", "i", "ITEMS", "x"], &[1]);
    let mut chain = Chain::scaling(0.001, 1000, 4);
    chain.add(b"x");
    for key in ["a", "m", "i"] {
        assert_eq!(bf_debug(&mut c, key), chain.debug_lines(), "key {key}");
        assert_eq!(info_value(&mut c, key, "Expansion rate"), Value::Int(4));
    }
    // INSERT options still win over the configuration.
    expect_ints(
        &mut c,
        &["BF.INSERT", "j", "CAPACITY", "50", "ITEMS", "x"],
        &[1],
    );
    let mut j = Chain::scaling(0.001, 50, 4);
    j.add(b"x");
    assert_eq!(bf_debug(&mut c, "j"), j.debug_lines());
    // Expansion factor 0: implicit filters are non-scaling.
    expect_ok(&mut c, &["CONFIG", "SET", "bf.expansion-factor", "0"]);
    expect_int(&mut c, &["BF.ADD", "z", "x"], 1);
    assert_eq!(info_value(&mut c, "z", "Expansion rate"), Value::Nil);
    let mut z = Chain::nonscaling(0.001, 1000);
    z.add(b"x");
    assert_eq!(bf_debug(&mut c, "z"), z.debug_lines());
    // Existing filters keep their parameters.
    assert_eq!(bf_debug(&mut c, "a"), chain.debug_lines());
}

#[test]
fn set_rejects_bad_values() {
    let s = Server::start();
    let mut c = s.conn();
    let bad = [
        ("bf.error-rate", "0"),
        ("bf.error-rate", "1"),
        ("bf.error-rate", "1.5"),
        ("bf.error-rate", "abc"),
        ("bf.error-rate", "-0.1"),
        ("bf.initial-size", "0"),
        ("bf.initial-size", "abc"),
        ("bf.expansion-factor", "-1"),
        ("bf.expansion-factor", "32769"),
        ("bf.max-filter-bytes", "63"),
        ("bf.max-filter-bytes", "1099511627777"),
        ("bf.chunk-bytes", "63"),
        ("bf.chunk-bytes", "536870913"),
    ];
    for (name, value) in bad {
        let v = raw(&mut c, &["CONFIG", "SET", name, value]);
        assert!(
            err_of(&v).is_some(),
            "CONFIG SET {name} {value} answered {v:?}"
        );
    }
    assert_eq!(config_get(&mut c, "bf.error-rate"), "0.01");
    assert_eq!(config_get(&mut c, "bf.initial-size"), "100");
    assert_eq!(config_get(&mut c, "bf.expansion-factor"), "2");
    assert_eq!(config_get(&mut c, "bf.max-filter-bytes"), "536870912");
    assert_eq!(config_get(&mut c, "bf.chunk-bytes"), "16777216");
    // The limits of the ranges are accepted.
    for (name, value) in [
        ("bf.expansion-factor", "32768"),
        ("bf.max-filter-bytes", "64"),
        ("bf.max-filter-bytes", "1099511627776"),
        ("bf.chunk-bytes", "64"),
        ("bf.chunk-bytes", "536870912"),
        ("bf.initial-size", "1"),
    ] {
        expect_ok(&mut c, &["CONFIG", "SET", name, value]);
        assert_eq!(config_get(&mut c, name), value);
    }
}

#[test]
fn load_arguments() {
    let s = Server::start_with(ServerOpts::module_args(&[
        "initial-size",
        "1000",
        "error-rate",
        "0.001",
        "expansion-factor",
        "3",
        "chunk-bytes",
        "64",
    ]));
    let mut c = s.conn();
    assert_eq!(config_get(&mut c, "bf.initial-size"), "1000");
    assert_eq!(config_get(&mut c, "bf.error-rate"), "0.001");
    assert_eq!(config_get(&mut c, "bf.expansion-factor"), "3");
    assert_eq!(config_get(&mut c, "bf.chunk-bytes"), "64");
    expect_int(&mut c, &["BF.ADD", "k", "x"], 1);
    let mut chain = Chain::scaling(0.001, 1000, 3);
    chain.add(b"x");
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
    // chunk-bytes 64: every data chunk is at most 64 bytes.
    let chunks = scandump(&mut c, "k");
    assert!(chunks[1..].iter().all(|ch| ch.data.len() <= 64));
    assert!(chunks.len() as u64 > chain.total_bytes() / 64);
}

#[test]
fn legacy_load_arguments() {
    let s = Server::start_with(ServerOpts::module_args(&[
        "ERROR_RATE",
        "0.002",
        "INITIAL_SIZE",
        "500",
    ]));
    let mut c = s.conn();
    assert_eq!(config_get(&mut c, "bf.initial-size"), "500");
    assert_eq!(config_get(&mut c, "bf.error-rate"), "0.002");
    expect_int(&mut c, &["BF.ADD", "k", "x"], 1);
    let mut chain = Chain::scaling(0.002, 500, 2);
    chain.add(b"x");
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
}

#[test]
fn bad_load_arguments_fail_the_start() {
    let cases: &[&[&str]] = &[
        &["error-rate", "2"],
        &["error-rate", "abc"],
        &["initial-size", "0"],
        &["expansion-factor", "40000"],
        &["ERROR_RATE", "0"],
        &["INITIAL_SIZE", "x"],
        &["no-such-config", "1"],
    ];
    for args in cases {
        match Server::try_start(ServerOpts::module_args(args)) {
            Ok(_) => panic!("the server started with module arguments {args:?}"),
            Err(log) => assert!(
                log.contains("Module") || log.contains("module"),
                "the failure log for {args:?} does not mention the module:\n{log}"
            ),
        }
    }
}
