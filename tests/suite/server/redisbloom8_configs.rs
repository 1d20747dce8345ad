//! RedisBloom 8's config names (`bf-error-rate`, `cf-max-expansions`, ...): load arguments on
//! every server; on Redis 8 also configs (unprefixed, with `bf.<name>` as their alias), so a
//! RedisBloom 8 `redis.conf` starts rsbloom with the same settings. Both names are one value,
//! checked and worded as RedisBloom 8 does (`CONFIG SET` texts, ranges, the error-rate cap,
//! the coupled cuckoo bucket and initial sizes). On servers without unprefixed configs the
//! Redis-8-only checks become checks that the server refuses the names.

use std::fs;
use std::process::Command;

use rsbloom_test_support as common;

use common::*;
use redis::{Connection, Value};

/// (RedisBloom 8's name, rsbloom's name) of the eight settings, in RedisBloom's order.
const NAMES: [(&str, &str); 8] = [
    ("bf-error-rate", "bf.error-rate"),
    ("bf-initial-size", "bf.initial-size"),
    ("bf-expansion-factor", "bf.expansion-factor"),
    ("cf-bucket-size", "bf.cf-bucket-size"),
    ("cf-initial-size", "bf.cf-initial-size"),
    ("cf-max-iterations", "bf.cf-max-iterations"),
    ("cf-expansion-factor", "bf.cf-expansion-factor"),
    ("cf-max-expansions", "bf.cf-max-expansions"),
];

/// Non-default values for the eight, as a RedisBloom 8 config file or load arguments give them.
const VALUES: [&str; 8] = ["0.001", "500", "4", "4", "2048", "30", "2", "16"];

/// Whether `$REDIS_SERVER` is Redis 8 or later (not Valkey), from `--version`: there the
/// module registers RedisBloom's names as configs.
fn unprefixed_configs() -> bool {
    let out = Command::new(server_program())
        .arg("--version")
        .output()
        .expect("run the server with --version");
    let text = String::from_utf8_lossy(&out.stdout);
    let major = text
        .split("v=")
        .nth(1)
        .and_then(|v| v.split('.').next())
        .and_then(|m| m.parse::<u32>().ok())
        .unwrap_or_else(|| panic!("no version in {text:?}"));
    text.starts_with("Redis server") && major >= 8
}

fn skipped(what: &str) {
    eprintln!("{what}: not on this server (Redis 8 and later only); checked it refuses the names");
}

/// CF.DEBUG's line.
fn cf_debug(c: &mut Connection, key: &str) -> String {
    String::from_utf8(as_bytes(&raw(c, &["CF.DEBUG", key]))).expect("text")
}

/// The implicitly created Bloom filter is the one BF.RESERVE makes with these parameters.
fn implicit_bloom_is(c: &mut Connection, rate: &str, capacity: i64, expansion: i64) {
    expect_int(c, &["BF.ADD", "implicit", "x"], 1);
    let cap = capacity.to_string();
    let exp = expansion.to_string();
    expect_ok(
        c,
        &["BF.RESERVE", "explicit", rate, &cap, "EXPANSION", &exp],
    );
    expect_int(c, &["BF.ADD", "explicit", "x"], 1);
    assert_eq!(bf_debug(c, "implicit"), bf_debug(c, "explicit"));
    assert_eq!(info_value(c, "implicit", "Capacity"), Value::Int(capacity));
    assert_eq!(
        info_value(c, "implicit", "Expansion rate"),
        Value::Int(expansion)
    );
    for key in ["implicit", "explicit"] {
        expect_int(c, &["DEL", key], 1);
    }
}

/// CF.ADD's filters stop growing at `max` sub-filters (a filter of 4 slots, one kick).
fn cuckoo_stops_at(c: &mut Connection, max: usize) {
    expect_ok(
        c,
        &[
            "CF.RESERVE",
            "grow",
            "4",
            "BUCKETSIZE",
            "1",
            "MAXITERATIONS",
            "1",
            "EXPANSION",
            "1",
        ],
    );
    let mut refused = false;
    for i in 0..20 * max {
        let v = raw(c, &["CF.ADD", "grow", &format!("i{i}")]);
        if err_of(&v).as_deref() == Some("Maximum expansions reached") {
            refused = true;
            break;
        }
    }
    assert!(refused, "CF.ADD never answered Maximum expansions reached");
    assert!(cf_debug(c, "grow").contains(&format!(" filters:{max} ")));
    expect_int(c, &["DEL", "grow"], 1);
}

#[test]
fn redisbloom_8s_names_are_load_arguments_on_every_server() {
    let mut args = vec!["new-filter-format", "redisbloom"];
    // Any case, `_` for `-`, as RedisBloom reads them.
    let spelled = [
        "bf-error-rate",
        "BF-INITIAL-SIZE",
        "bf_expansion_factor",
        "cf-bucket-size",
        "CF-Initial-Size",
        "cf-max-iterations",
        "cf_expansion_factor",
        "cf-max-expansions",
    ];
    let values = ["0.02", "200", "3", "4", "64", "7", "2", "3"];
    for (name, value) in spelled.iter().zip(values) {
        args.extend([*name, value]);
    }
    let s = Server::start_with(ServerOpts::module_args(&args));
    let mut c = s.conn();
    let unprefixed = unprefixed_configs();
    for ((redisbloom, own), value) in NAMES.iter().zip(values) {
        assert_eq!(config_get(&mut c, own), value, "{own}");
        if unprefixed {
            assert_eq!(config_get(&mut c, redisbloom), value, "{redisbloom}");
        } else {
            assert_eq!(
                raw(&mut c, &["CONFIG", "GET", redisbloom]),
                Value::Array(vec![])
            );
        }
    }
    implicit_bloom_is(&mut c, "0.02", 200, 3);
    expect_int(&mut c, &["CF.ADD", "c", "x"], 1);
    assert_eq!(
        cf_debug(&mut c, "c"),
        "bktsize:4 buckets:16 items:1 deletes:0 filters:1 max_iterations:7 expansion:2"
    );
    cuckoo_stops_at(&mut c, 3);
}

#[test]
fn an_error_rate_over_a_quarter_is_a_quarter() {
    // RedisBloom 8 caps the setting (legacy load argument, its name, CONFIG SET) and shows the
    // cap; the Guava format, which keeps any rate BF.RESERVE asks for, gets the cap too.
    let s = Server::start_with(ServerOpts::module_args(&["ERROR_RATE", "0.5"]));
    let mut c = s.conn();
    assert_eq!(config_get(&mut c, "bf.error-rate"), "0.25");
    implicit_bloom_is(&mut c, "0.25", 100, 2);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.error-rate", "0.3"]);
    assert_eq!(config_get(&mut c, "bf.error-rate"), "0.25");
    // Below the cap the text is kept as given, as RedisBloom's CONFIG GET answers it.
    expect_ok(&mut c, &["CONFIG", "SET", "bf.error-rate", "2e-2"]);
    assert_eq!(config_get(&mut c, "bf.error-rate"), "2e-2");
    implicit_bloom_is(&mut c, "0.02", 100, 2);
}

#[test]
fn a_config_line_wins_over_a_load_argument() {
    // As in RedisBloom 8: the load arguments are the configs' defaults.
    let opts = ServerOpts {
        server_args: vec!["--bf.initial-size".into(), "500".into()],
        module_args: ["initial-size", "1000", "cf-max-expansions", "3"]
            .map(String::from)
            .to_vec(),
        ..ServerOpts::default()
    };
    let s = Server::start_with(opts);
    let mut c = s.conn();
    assert_eq!(config_get(&mut c, "bf.initial-size"), "500");
    assert_eq!(config_get(&mut c, "bf.cf-max-expansions"), "3");
    implicit_bloom_is(&mut c, "0.01", 500, 2);
}

#[test]
fn a_redisbloom_8_config_file_starts_rsbloom() {
    let dir = TempDir::new();
    let conf = dir.path().join("redisbloom8.conf");
    let text: String = NAMES
        .iter()
        .zip(VALUES)
        .map(|((name, _), value)| format!("{name} {value}\n"))
        .collect();
    fs::write(&conf, text).expect("write the config file");
    let opts = ServerOpts {
        server_args: vec!["--include".into(), conf.display().to_string()],
        // The file's bf-initial-size wins over this load argument.
        module_args: ["new-filter-format", "redisbloom", "bf-initial-size", "300"]
            .map(String::from)
            .to_vec(),
        ..ServerOpts::default()
    };
    if !unprefixed_configs() {
        match Server::try_start(opts) {
            Ok(_) => panic!("the server took RedisBloom 8's config names in its config file"),
            Err(log) => assert!(log.contains("bf-error-rate"), "{log}"),
        }
        return skipped("a RedisBloom 8 config file");
    }
    let s = Server::start_with(opts);
    let mut c = s.conn();
    for ((redisbloom, own), value) in NAMES.iter().zip(VALUES) {
        assert_eq!(config_get(&mut c, redisbloom), value, "{redisbloom}");
        assert_eq!(config_get(&mut c, own), value, "{own}");
    }
    implicit_bloom_is(&mut c, "0.001", 500, 4);
    expect_int(&mut c, &["CF.ADD", "c", "x"], 1);
    assert_eq!(
        cf_debug(&mut c, "c"),
        "bktsize:4 buckets:512 items:1 deletes:0 filters:1 max_iterations:30 expansion:2"
    );
    expect_ok(&mut c, &["CONFIG", "SET", "cf-max-expansions", "2"]);
    cuckoo_stops_at(&mut c, 2);
}

#[test]
fn both_names_are_one_config() {
    let s = Server::start_with(ServerOpts::module_args(&[
        "new-filter-format",
        "redisbloom",
    ]));
    let mut c = s.conn();
    if !unprefixed_configs() {
        for (redisbloom, _) in NAMES {
            let v = raw(&mut c, &["CONFIG", "SET", redisbloom, "2"]);
            assert!(
                err_of(&v).is_some(),
                "CONFIG SET {redisbloom} answered {v:?}"
            );
        }
        return skipped("RedisBloom 8's names as configs");
    }
    // One CONFIG SET of three of RedisBloom's names; read back under both.
    expect_ok(
        &mut c,
        &[
            "CONFIG",
            "SET",
            "bf-error-rate",
            "0.02",
            "bf-initial-size",
            "200",
            "bf-expansion-factor",
            "3",
        ],
    );
    assert_eq!(config_get(&mut c, "bf.error-rate"), "0.02");
    assert_eq!(config_get(&mut c, "bf.initial-size"), "200");
    assert_eq!(config_get(&mut c, "bf.expansion-factor"), "3");
    implicit_bloom_is(&mut c, "0.02", 200, 3);
    // And back through rsbloom's names.
    for ((redisbloom, own), value) in NAMES.iter().zip(VALUES) {
        expect_ok(&mut c, &["CONFIG", "SET", own, value]);
        assert_eq!(config_get(&mut c, redisbloom), value, "{redisbloom}");
    }
    // CONFIG GET with a pattern lists each config under both names.
    let listed = match raw(&mut c, &["CONFIG", "GET", "cf-max-*"]) {
        Value::Array(items) => items.iter().map(as_text).collect::<Vec<_>>(),
        other => panic!("CONFIG GET answered {other:?}"),
    };
    assert!(
        listed.contains(&"cf-max-expansions".to_string()),
        "{listed:?}"
    );
    assert!(
        listed.contains(&"cf-max-iterations".to_string()),
        "{listed:?}"
    );
}

/// `CONFIG SET name value` is refused with this detail after the server's own prefix.
fn refused(c: &mut Connection, name: &str, value: &str, detail: &str) {
    let v = raw(c, &["CONFIG", "SET", name, value]);
    let text = err_of(&v).unwrap_or_else(|| panic!("CONFIG SET {name} {value} answered {v:?}"));
    assert!(
        text.ends_with(&format!(" - {detail}")),
        "CONFIG SET {name} {value}: {text:?}, expected the detail {detail:?}"
    );
}

#[test]
fn config_set_answers_as_redisbloom_8() {
    let s = Server::start();
    let mut c = s.conn();
    let unprefixed = unprefixed_configs();
    // The name a refusal gives: the config's own, which is RedisBloom's on Redis 8 (also
    // when set through the alias).
    let shown = |i: usize| {
        let (redisbloom, own) = NAMES[i];
        if unprefixed {
            redisbloom
        } else {
            own
        }
    };
    for (i, (redisbloom, own)) in NAMES.iter().enumerate() {
        let set_as = if unprefixed { redisbloom } else { own };
        for name in [set_as, own] {
            refused(
                &mut c,
                name,
                "abc",
                &format!("Invalid value for `{}`", shown(i)),
            );
        }
    }
    let rate = |name: &str| format!("Value for `{name}` must be in the range (0.000000, 1.000000)");
    for value in ["0", "1", "-0.5", "1.5"] {
        refused(&mut c, shown(0), value, &rate(shown(0)));
    }
    // Integers: just outside each end of RedisBloom 8's ranges (the others at their
    // defaults); both ends are taken.
    let ranges = [
        (1, 1, 1073741824, "100"),
        (2, 0, 32768, "2"),
        (3, 1, 255, "2"),
        (4, 4, 1073741824, "1024"),
        (5, 1, 65535, "20"),
        (6, 0, 32768, "1"),
        (7, 1, 65536, "32"),
    ];
    for (i, min, max, default) in ranges {
        let detail = format!(
            "Value for `{}` must be in the range [{min}, {max}]",
            shown(i)
        );
        for value in [min - 1, max + 1] {
            refused(&mut c, shown(i), &value.to_string(), &detail);
        }
        for value in [min.to_string(), max.to_string(), default.to_string()] {
            expect_ok(&mut c, &["CONFIG", "SET", shown(i), &value]);
            assert_eq!(config_get(&mut c, NAMES[i].1), value);
        }
    }
    // The bucket size is at most half the initial size, the initial size at least twice the
    // bucket size: each set moves the other's bound.
    expect_ok(&mut c, &["CONFIG", "SET", shown(4), "64"]);
    let bucket = format!("Value for `{}` must be in the range [1, 32]", shown(3));
    refused(&mut c, shown(3), "33", &bucket);
    expect_ok(&mut c, &["CONFIG", "SET", shown(3), "32"]);
    let initial = format!(
        "Value for `{}` must be in the range [64, 1073741824]",
        shown(4)
    );
    refused(&mut c, shown(4), "63", &initial);
    assert_eq!(config_get(&mut c, "bf.cf-initial-size"), "64");
    assert_eq!(config_get(&mut c, "bf.cf-bucket-size"), "32");
}
