//! The options, the configs, BF.INFO's fields and the refusals.

use super::*;

const KEYED_IN_REDISBLOOM: &str = "ERR KEYED and BLOCKED filters are in rsbloom's own format, \
                                   not RedisBloom's (bf.new-filter-format redisbloom)";

#[test]
fn reserve_and_insert_make_each_variant_in_any_order_of_options() {
    let server = Server::start();
    let mut c = server.conn();
    let mut made = Vec::new();
    for (v, variant) in VARIANTS.iter().enumerate() {
        // BF.RESERVE: the variant's words before, between and after the others.
        let mut forms: Vec<Vec<&str>> = vec![
            [&["0.01", "100"][..], variant].concat(),
            [&["0.01", "100"][..], variant, &["EXPANSION", "2"]].concat(),
            [&["0.01", "100", "NONSCALING"][..], variant].concat(),
        ];
        if variant.len() == 2 {
            forms.push(vec![
                "0.01",
                "100",
                variant[0],
                "EXPANSION",
                "3",
                variant[1],
            ]);
        }
        for (f, form) in forms.iter().enumerate() {
            let key = format!("r{v}:{f}");
            let mut args = vec!["BF.RESERVE", key.as_str()];
            args.extend(form);
            expect_ok(&mut c, &args);
            made.push((key, *variant, !form.contains(&"NONSCALING")));
        }
        // BF.INSERT: the same words anywhere before ITEMS.
        let key = format!("i{v}");
        let mut args = vec!["BF.INSERT", key.as_str(), "CAPACITY", "100"];
        args.extend(*variant);
        args.extend(["ERROR", "0.001", "ITEMS", "a", "b"]);
        assert_eq!(as_ints(&raw(&mut c, &args)), vec![1, 1]);
        made.push((key, *variant, true));
    }
    for (key, variant, scaling) in &made {
        assert_eq!(info_names(&mut c, key), expected_names(variant), "{key}");
        // A scaling filter grows to more layers over 300 items; either finds all it took.
        let items = gen_items("add:", 0..if *scaling { 300 } else { 90 });
        madd_all(&mut c, key, &items);
        assert!(
            mexists_all(&mut c, key, &items).iter().all(|&e| e == 1),
            "{key}"
        );
        let layers = as_int(&info_value(&mut c, key, "Number of filters"));
        assert_eq!(layers > 1, *scaling, "{key}");
        // Single-field BF.INFO is unchanged.
        assert_eq!(as_ints(&raw(&mut c, &["BF.INFO", key, "FILTERS"])).len(), 1);
    }
    // A plain filter's reply has no variant field.
    expect_ok(&mut c, &["BF.RESERVE", "plain", "0.01", "100"]);
    assert_eq!(info_names(&mut c, "plain"), expected_names(&[]));
}

#[test]
fn keyed_filters_set_different_bits_for_the_same_items() {
    let server = Server::start();
    let mut c = server.conn();
    for variant in VARIANTS {
        let mut data = Vec::new();
        for key in ["a", "b"] {
            let mut args = vec!["BF.RESERVE", key, "0.01", "1000", "NONSCALING"];
            args.extend(variant);
            expect_ok(&mut c, &args);
            fill(&mut c, key, 1000);
            let chunks = scandump(&mut c, key);
            data.push(
                chunks[1..]
                    .iter()
                    .flat_map(|ch| ch.data.clone())
                    .collect::<Vec<u8>>(),
            );
        }
        let keyed = variant.contains(&"KEYED");
        assert_eq!(data[0] != data[1], keyed, "{variant:?}");
        assert_eq!(data[0].len(), data[1].len());
        raw(&mut c, &["DEL", "a", "b"]);
    }
}

#[test]
fn insert_on_an_existing_filter_ignores_the_creation_options() {
    let server = Server::start();
    let mut c = server.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "100"]);
    let before = dump(&mut c, "k");
    let args = ["BF.INSERT", "k", "KEYED", "BLOCKED", "ITEMS", "x"];
    assert_eq!(as_ints(&raw(&mut c, &args)), vec![1]);
    assert_eq!(info_names(&mut c, "k"), expected_names(&[]));
    assert_ne!(dump(&mut c, "k"), before);
    assert_eq!(as_int(&raw(&mut c, &["BF.EXISTS", "k", "x"])), 1);
}

#[test]
fn refusals_name_the_reason() {
    let server = Server::start();
    let mut c = server.conn();
    expect_ok(
        &mut c,
        &["CONFIG", "SET", "bf.new-filter-format", "redisbloom"],
    );
    for variant in VARIANTS {
        let mut args = vec!["BF.RESERVE", "r", "0.01", "100"];
        args.extend(variant);
        expect_err(&mut c, &args, KEYED_IN_REDISBLOOM);
        let mut args = vec!["BF.INSERT", "r"];
        args.extend(variant);
        args.extend(["ITEMS", "a"]);
        expect_err(&mut c, &args, KEYED_IN_REDISBLOOM);
        assert_eq!(as_int(&raw(&mut c, &["EXISTS", "r"])), 0);
    }
    // The defaults do not apply to RedisBloom's format: its filters stay plain.
    expect_ok(&mut c, &["CONFIG", "SET", "bf.keyed-default", "yes"]);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.blocked-default", "yes"]);
    expect_int(&mut c, &["BF.ADD", "rb", "a"], 1);
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "rb"])), "MBbloom--");
    assert_eq!(info_names(&mut c, "rb"), expected_names(&[]));
    // Guava's format cannot hold them either.
    expect_ok(&mut c, &["CONFIG", "SET", "bf.new-filter-format", "guava"]);
    for variant in VARIANTS {
        let mut args = vec!["BF.RESERVE", "g", "0.01", "100", "NONSCALING"];
        args.extend(variant);
        expect_ok(&mut c, &args);
        expect_err(
            &mut c,
            &["BF.EXPORT", "g", "GUAVA"],
            "ERR a keyed or blocked filter cannot be converted to Guava's format \
             (it hashes or lays out its bits differently)",
        );
        raw(&mut c, &["DEL", "g"]);
    }
    // Options take no value.
    expect_err(
        &mut c,
        &["BF.RESERVE", "x", "0.01", "100", "KEYED", "1"],
        "ERR unknown option '1'",
    );
}

#[test]
fn configs_make_implicit_filters_keyed_and_blocked() {
    let server = Server::start();
    let mut c = server.conn();
    for name in ["bf.keyed-default", "bf.blocked-default"] {
        assert_eq!(config_get(&mut c, name), "no");
    }
    expect_int(&mut c, &["BF.ADD", "plain", "a"], 1);
    assert_eq!(info_names(&mut c, "plain"), expected_names(&[]));
    expect_ok(&mut c, &["CONFIG", "SET", "bf.keyed-default", "yes"]);
    expect_int(&mut c, &["BF.ADD", "k", "a"], 1);
    assert_eq!(info_names(&mut c, "k"), expected_names(&["KEYED"]));
    expect_ok(&mut c, &["CONFIG", "SET", "bf.blocked-default", "yes"]);
    assert_eq!(
        as_ints(&raw(&mut c, &["BF.MADD", "kb", "a", "b"])),
        vec![1, 1]
    );
    assert_eq!(
        info_names(&mut c, "kb"),
        expected_names(&["BLOCKED", "KEYED"])
    );
    expect_ok(&mut c, &["CONFIG", "SET", "bf.keyed-default", "no"]);
    let args = ["BF.INSERT", "b", "CAPACITY", "10", "ITEMS", "a"];
    assert_eq!(as_ints(&raw(&mut c, &args)), vec![1]);
    assert_eq!(info_names(&mut c, "b"), expected_names(&["BLOCKED"]));
    // BF.RESERVE follows the defaults too.
    expect_ok(&mut c, &["BF.RESERVE", "r", "0.01", "10"]);
    assert_eq!(info_names(&mut c, "r"), expected_names(&["BLOCKED"]));
    expect_err_prefix(
        &mut c,
        &["CONFIG", "SET", "bf.keyed-default", "maybe"],
        "ERR CONFIG SET failed",
    );

    // As load arguments.
    let opts = ServerOpts::module_args(&["keyed-default", "yes", "BLOCKED_DEFAULT", "yes"]);
    let loaded = Server::start_with(opts);
    let mut c = loaded.conn();
    assert_eq!(config_get(&mut c, "bf.keyed-default"), "yes");
    assert_eq!(config_get(&mut c, "bf.blocked-default"), "yes");
    expect_int(&mut c, &["BF.ADD", "k", "a"], 1);
    assert_eq!(
        info_names(&mut c, "k"),
        expected_names(&["BLOCKED", "KEYED"])
    );
}

/// UNKEYED and UNBLOCKED opt a creation out of `bf.keyed-default` / `bf.blocked-default`
/// (BF.RESERVE and BF.INSERT alike), each alone; with their opposite they are refused,
/// nothing created.
#[test]
fn unkeyed_and_unblocked_opt_out_of_the_defaults() {
    let server = Server::start();
    let mut c = server.conn();
    expect_ok(&mut c, &["CONFIG", "SET", "bf.keyed-default", "yes"]);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.blocked-default", "yes"]);
    let cases: [(&[&str], &[&str]); 4] = [
        (&[], &["BLOCKED", "KEYED"]),
        (&["UNKEYED"], &["BLOCKED"]),
        (&["unblocked"], &["KEYED"]),
        (&["UNBLOCKED", "UNKEYED"], &[]),
    ];
    for (n, (words, variant)) in cases.iter().enumerate() {
        let key = format!("r{n}");
        let mut args = vec!["BF.RESERVE", &key, "0.01", "100", "NONSCALING"];
        args.extend(*words);
        expect_ok(&mut c, &args);
        assert_eq!(
            info_names(&mut c, &key),
            expected_names(variant),
            "{args:?}"
        );
        let key = format!("i{n}");
        let mut args = vec!["BF.INSERT", &key];
        args.extend(*words);
        args.extend(["ITEMS", "a"]);
        assert_eq!(as_ints(&raw(&mut c, &args)), vec![1]);
        assert_eq!(
            info_names(&mut c, &key),
            expected_names(variant),
            "{args:?}"
        );
    }
    // A plain filter exports to Guava's format; the defaults' filter does not.
    expect_ok(
        &mut c,
        &[
            "BF.RESERVE",
            "g",
            "0.01",
            "100",
            "NONSCALING",
            "UNKEYED",
            "UNBLOCKED",
        ],
    );
    assert!(matches!(
        raw(&mut c, &["BF.EXPORT", "g", "GUAVA"]),
        redis::Value::BulkString(_)
    ));
    let conflict = "ERR KEYED and UNKEYED, or BLOCKED and UNBLOCKED, cannot be given together";
    for words in [["KEYED", "UNKEYED"], ["UNBLOCKED", "BLOCKED"]] {
        let mut args = vec!["BF.RESERVE", "x", "0.01", "100"];
        args.extend(words);
        expect_err(&mut c, &args, conflict);
        let mut args = vec!["BF.INSERT", "x"];
        args.extend(words);
        args.extend(["ITEMS", "a"]);
        expect_err(&mut c, &args, conflict);
        expect_int(&mut c, &["EXISTS", "x"], 0);
    }
    // RedisBloom's format has no variants: the opt-outs change nothing there.
    expect_ok(
        &mut c,
        &["CONFIG", "SET", "bf.new-filter-format", "redisbloom"],
    );
    expect_ok(&mut c, &["BF.RESERVE", "rb", "0.01", "100", "UNKEYED"]);
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "rb"])), "MBbloom--");
}
