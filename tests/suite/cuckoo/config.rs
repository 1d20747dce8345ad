//! The cuckoo configs: RedisBloom's defaults, CONFIG SET changing what CF.ADD / CF.INSERT
//! create and what CF.RESERVE defaults to, and the load argument `CF_MAX_EXPANSIONS`.

use rsbloom_test_support as common;

use common::hostile::{config_set, expect_too_large};
use common::*;
use redis::{Connection, Value};

fn debug(c: &mut Connection, key: &str) -> String {
    String::from_utf8(as_bytes(&raw(c, &["CF.DEBUG", key]))).expect("text")
}

#[test]
fn cuckoo_defaults_and_config_set() {
    let s = Server::start();
    let mut c = s.conn();
    for (name, value) in [
        ("bf.cf-bucket-size", "2"),
        ("bf.cf-initial-size", "1024"),
        ("bf.cf-max-iterations", "20"),
        ("bf.cf-expansion-factor", "1"),
        ("bf.cf-max-expansions", "32"),
    ] {
        assert_eq!(config_get(&mut c, name), value, "{name}");
    }
    expect_int(&mut c, &["CF.ADD", "a", "x"], 1);
    assert_eq!(
        debug(&mut c, "a"),
        "bktsize:2 buckets:512 items:1 deletes:0 filters:1 max_iterations:20 expansion:1"
    );
    for (name, value) in [
        ("bf.cf-bucket-size", "4"),
        ("bf.cf-initial-size", "64"),
        ("bf.cf-max-iterations", "7"),
        ("bf.cf-expansion-factor", "3"),
    ] {
        expect_ok(&mut c, &["CONFIG", "SET", name, value]);
    }
    expect_int(&mut c, &["CF.ADD", "b", "x"], 1);
    assert_eq!(
        debug(&mut c, "b"),
        "bktsize:4 buckets:16 items:1 deletes:0 filters:1 max_iterations:7 expansion:4"
    );
    expect_ints(
        &mut c,
        &["CF.INSERT", "i", "CAPACITY", "256", "ITEMS", "x"],
        &[1],
    );
    assert_eq!(
        debug(&mut c, "i"),
        "bktsize:4 buckets:64 items:1 deletes:0 filters:1 max_iterations:7 expansion:4"
    );
    expect_ok(&mut c, &["CF.RESERVE", "r", "100", "BUCKETSIZE", "2"]);
    assert_eq!(
        debug(&mut c, "r"),
        "bktsize:2 buckets:64 items:0 deletes:0 filters:1 max_iterations:7 expansion:4"
    );
    // Existing filters keep their parameters; bad values are refused.
    assert!(debug(&mut c, "a").starts_with("bktsize:2 buckets:512 "));
    for (name, value) in [
        ("bf.cf-bucket-size", "0"),
        ("bf.cf-bucket-size", "256"),
        ("bf.cf-max-iterations", "65536"),
        ("bf.cf-expansion-factor", "32769"),
        ("bf.cf-max-expansions", "0"),
        ("bf.cf-initial-size", "1"),
    ] {
        let v = raw(&mut c, &["CONFIG", "SET", name, value]);
        assert!(err_of(&v).is_some(), "{name} {value} accepted");
    }
}

#[test]
fn the_cf_max_expansions_load_argument() {
    let s = Server::start_with(ServerOpts::module_args(&["CF_MAX_EXPANSIONS", "2"]));
    let mut c = s.conn();
    assert_eq!(config_get(&mut c, "bf.cf-max-expansions"), "2");
    expect_ok(&mut c, &["CF.RESERVE", "k", "4", "MAXITERATIONS", "1"]);
    let mut answers = Vec::new();
    for i in 0..40 {
        let item = format!("i{i}");
        let v = raw(&mut c, &["CF.ADD", "k", &item]);
        answers.push(err_of(&v).unwrap_or_default());
    }
    assert!(
        answers.iter().any(|a| a == "Maximum expansions reached"),
        "{answers:?}"
    );
    assert!(debug(&mut c, "k").contains(" filters:2 "));
    assert!(Server::try_start(ServerOpts::module_args(&["CF_MAX_EXPANSIONS", "0"])).is_err());
}

#[test]
fn the_size_configs_bound_reserve_and_insert() {
    // RedisBloom 8 checks CF.RESERVE's BUCKETSIZE against its cf-bucket-size config's range
    // (at most half cf-initial-size) and CF.INSERT's CAPACITY against cf-initial-size's (at
    // least twice cf-bucket-size).
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["CONFIG", "SET", "bf.cf-initial-size", "64"]);
    expect_err(
        &mut c,
        &["CF.RESERVE", "r", "1000", "BUCKETSIZE", "33"],
        "BUCKETSIZE: value must be in the range [1, 32]",
    );
    expect_ok(&mut c, &["CF.RESERVE", "r", "1000", "BUCKETSIZE", "32"]);
    assert!(debug(&mut c, "r").starts_with("bktsize:32 "));
    expect_ok(&mut c, &["CONFIG", "SET", "bf.cf-bucket-size", "4"]);
    expect_err(
        &mut c,
        &["CF.INSERT", "i", "CAPACITY", "7", "ITEMS", "x"],
        "Capacity must be in the range [cf-bucket-size * 2, 1073741824]",
    );
    expect_ints(
        &mut c,
        &["CF.INSERT", "i", "CAPACITY", "8", "ITEMS", "x"],
        &[1],
    );
    assert!(debug(&mut c, "i").starts_with("bktsize:4 buckets:2 "));
}

/// `bf.max-filter-bytes` as it is when a filter grows: CF.ADD and CF.INSERT read it then
/// (not when the command starts), refuse the growth that would pass it with the size-limit
/// error, and grow once it is raised.
#[test]
fn growth_reads_the_size_limit_when_it_grows() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(
        &mut c,
        &["CF.RESERVE", "c", "64", "BUCKETSIZE", "2", "EXPANSION", "1"],
    );
    let size = |c: &mut Connection| {
        let info = as_array(raw(c, &["CF.INFO", "c"]));
        let at = info
            .iter()
            .position(|v| matches!(v, Value::SimpleString(s) if s == "Size"))
            .expect("Size");
        as_int(&info[at + 1]) as u64
    };
    let limit = size(&mut c) + 1;
    config_set(&mut c, "bf.max-filter-bytes", &limit.to_string());
    let mut refused = None;
    for i in 0..10_000 {
        let item = format!("item-{i}");
        match raw(&mut c, &["CF.ADD", "c", &item]) {
            Value::Int(1) => {}
            other => {
                let (needed, named) = expect_too_large(&other, &item);
                assert_eq!(named, limit);
                assert!(needed > limit, "needs {needed}");
                refused = Some(item);
                break;
            }
        }
    }
    let item = refused.expect("the filter never needed to grow");
    assert!(
        debug(&mut c, "c").contains(" filters:1 "),
        "{}",
        debug(&mut c, "c")
    );
    assert!(size(&mut c) < limit);
    match raw(&mut c, &["CF.INSERT", "c", "ITEMS", &item]) {
        Value::Array(a) => assert_eq!(a, vec![Value::Int(-1)], "CF.INSERT of {item}"),
        other => panic!("CF.INSERT answered {other:?}"),
    }
    config_set(&mut c, "bf.max-filter-bytes", "1000000");
    expect_int(&mut c, &["CF.ADD", "c", &item], 1);
    assert!(
        debug(&mut c, "c").contains(" filters:2 "),
        "{}",
        debug(&mut c, "c")
    );
    expect_int(&mut c, &["CF.EXISTS", "c", &item], 1);
}

fn as_array(v: Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a,
        other => panic!("expected an array, got {other:?}"),
    }
}
