//! The module's INFO sections (`INFO bf`: `bf_bloom`, `bf_cuckoo`) against what the keys
//! themselves say (BF.CARD / BF.INFO Size, CF.INFO items / Size, summed over a SCAN of the
//! keyspace) through every way a value appears, changes and goes: commands, growth, deletes
//! and compaction, COPY, RESTORE, LOADCHUNK, DEBUG RELOAD, DEL, FLUSHALL ASYNC; and the
//! refusal counters. Active defragmentation on Redis 8.2 (whose jemalloc supports it) moves
//! filters' blocks and leaves every filter as it was.

use rsbloom_test_support as common;

use std::thread::sleep;
use std::time::{Duration, Instant};

use common::hostile::key_exists;
use common::rdb::{dump_body, Frame};
use common::*;
use redis::{Connection, Value};

/// One family's INFO fields.
#[derive(Debug, PartialEq, Default, Clone, Copy)]
struct Section {
    keys: i64,
    memory_bytes: i64,
    items: i64,
    refused_loads: i64,
    size_limit_refusals: i64,
}

fn section(con: &mut Connection, family: &str) -> Section {
    let name = format!("bf_{family}");
    let mut field = |f: &str| -> i64 {
        info_field(con, &name, &format!("{name}_{f}"))
            .unwrap_or_else(|| panic!("INFO {name} has no {name}_{f}"))
            .parse()
            .expect("an integer field")
    };
    Section {
        keys: field("keys"),
        memory_bytes: field("memory_bytes"),
        items: field("items"),
        refused_loads: field("refused_loads"),
        size_limit_refusals: field("size_limit_refusals"),
    }
}

/// The module's own section, `# bf`, carries rsbloom's version from Cargo.toml (MODULE LIST
/// keeps RedisBloom's number, module_list_reports_redisbloom_8_12); it comes with `INFO bf`
/// and `INFO everything`, not with a family's section alone.
#[test]
fn info_bf_shows_rsbloom_version() {
    let server = Server::start();
    let mut con = server.conn();
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        info_field(&mut con, "bf", "bf_version").as_deref(),
        Some(version)
    );
    let all = info_section(&mut con, "bf");
    assert!(
        all.contains("# bf\r\n"),
        "INFO bf has the module's section: {all}"
    );
    assert!(
        all.contains("# bf_bloom"),
        "INFO bf still has the families': {all}"
    );
    let everything = info_section(&mut con, "everything");
    assert!(everything.contains(&format!("bf_version:{version}\r\n")));
    assert_eq!(info_field(&mut con, "bf_bloom", "bf_version"), None);
}

/// What the keys say: (keys, memory, items) per family, from every key's own replies.
fn from_keys(con: &mut Connection) -> [(i64, i64, i64); 2] {
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(con).expect("KEYS");
    let mut totals = [(0, 0, 0); 2];
    for key in keys {
        let kind = as_text(&raw(con, &["TYPE", &key]));
        let (family, size, items) = match kind.as_str() {
            "RSbloom--" | "MBbloom--" => {
                (0, as_int(&info_value(con, &key, "Size")), card(con, &key))
            }
            "MBbloomCF" => {
                let info = raw(con, &["CF.INFO", &key]);
                let Value::Array(fields) = info else {
                    panic!("CF.INFO: {info:?}")
                };
                let get = |name: &str| {
                    fields
                        .chunks(2)
                        .find(|p| as_text(&p[0]) == name)
                        .map(|p| as_int(&p[1]))
                        .unwrap_or_else(|| panic!("CF.INFO has no {name}"))
                };
                (1, get("Size"), get("Number of items inserted"))
            }
            _ => continue,
        };
        totals[family].0 += 1;
        totals[family].1 += size;
        totals[family].2 += items;
    }
    totals
}

/// INFO's keys, memory and items equal what the keys say, for both families.
fn check(con: &mut Connection, step: &str) {
    let want = from_keys(con);
    for (i, family) in ["bloom", "cuckoo"].into_iter().enumerate() {
        let got = section(con, family);
        assert_eq!(
            (got.keys, got.memory_bytes, got.items),
            want[i],
            "after {step}: INFO bf_{family} (keys, memory_bytes, items)"
        );
    }
}

/// A DUMP payload whose module body lost its second half, sealed again with a correct CRC
/// so the server hands it to the module's loader, which must refuse it (a cut in the last
/// field alone may leave the loader whole and only the server's end marker missing).
fn truncated_dump(con: &mut Connection, key: &str) -> Vec<u8> {
    let payload = as_bytes(&raw(con, &["DUMP", key]));
    let body = dump_body(&payload);
    Frame::from_dump(&payload).seal(&body[..body.len() / 2])
}

#[test]
fn info_sections_follow_every_key_through_every_path() {
    let server = Server::start();
    let mut con = server.conn();
    check(&mut con, "start");
    assert_eq!(section(&mut con, "bloom"), Section::default());
    assert!(
        info_section(&mut con, "everything").contains("# bf_cuckoo"),
        "INFO everything includes the module's sections"
    );

    // Commands: creations, adds, growth of a scaling filter, both Bloom types.
    expect_ok(&mut con, &["BF.RESERVE", "grow", "0.01", "100"]);
    madd_all(&mut con, "grow", &gen_items("g", 0..1000));
    expect_int(&mut con, &["BF.ADD", "implicit", "x"], 1);
    expect_ok(
        &mut con,
        &["CONFIG", "SET", "bf.new-filter-format", "redisbloom"],
    );
    expect_ints(
        &mut con,
        &["BF.INSERT", "rb", "ITEMS", "a", "b", "a"],
        &[1, 1, 0],
    );
    expect_ok(
        &mut con,
        &["CONFIG", "SET", "bf.new-filter-format", "guava"],
    );
    check(&mut con, "BF adds");
    assert!(as_ints(&raw(&mut con, &["BF.INFO", "grow", "FILTERS"]))[0] > 1);

    expect_ok(&mut con, &["CF.RESERVE", "cf", "64", "EXPANSION", "2"]);
    for i in 0..400 {
        raw(&mut con, &["CF.ADD", "cf", &format!("c{i}")]);
    }
    expect_int(&mut con, &["CF.ADDNX", "cf2", "y"], 1);
    check(&mut con, "CF adds and growth");
    for i in 0..300 {
        raw(&mut con, &["CF.DEL", "cf", &format!("c{i}")]);
    }
    expect_ok(&mut con, &["CF.COMPACT", "cf"]);
    check(&mut con, "CF deletes and compaction");

    // COPY, RESTORE, LOADCHUNK, DEL.
    expect_int(&mut con, &["COPY", "grow", "grow-copy"], 1);
    expect_int(&mut con, &["COPY", "cf", "cf-copy"], 1);
    let dump = as_bytes(&raw(&mut con, &["DUMP", "rb"]));
    assert_eq!(
        raw(
            &mut con,
            &[b"RESTORE".as_slice(), b"rb-restored", b"0", &dump]
        ),
        Value::Okay
    );
    let dump = as_bytes(&raw(&mut con, &["DUMP", "cf"]));
    assert_eq!(
        raw(
            &mut con,
            &[b"RESTORE".as_slice(), b"cf", b"0", &dump, b"REPLACE"]
        ),
        Value::Okay
    );
    let chunks = scandump(&mut con, "grow");
    loadchunks(&mut con, "grow-chunks", &chunks);
    check(&mut con, "COPY, RESTORE, LOADCHUNK");
    expect_int(&mut con, &["DEL", "grow", "cf2"], 2);
    check(&mut con, "DEL");
    expect_ok(&mut con, &["DEBUG", "RELOAD"]);
    check(&mut con, "DEBUG RELOAD");

    // Refusals: bad chunks and payloads, the size limit.
    let before = [section(&mut con, "bloom"), section(&mut con, "cuckoo")];
    let cf_dump = as_bytes(&raw(&mut con, &["DUMP", "cf"]));
    for cmd in ["BF.LOADCHUNK", "CF.LOADCHUNK"] {
        let v = raw(&mut con, &[cmd, "bad", "1", "not a header"]);
        assert!(err_of(&v).is_some(), "{cmd} of a bad header: {v:?}");
    }
    for key in ["rb", "cf"] {
        let payload = truncated_dump(&mut con, key);
        let v = raw(
            &mut con,
            &[b"RESTORE".as_slice(), b"refused", b"0", &payload],
        );
        assert!(err_of(&v).is_some(), "truncated {key} RESTOREd: {v:?}");
    }
    expect_ok(&mut con, &["CONFIG", "SET", "bf.max-filter-bytes", "64"]);
    for cmd in [
        &["BF.RESERVE", "big", "0.001", "100000"][..],
        &["CF.RESERVE", "big", "100000"],
    ] {
        let v = raw(&mut con, cmd);
        assert!(err_of(&v).is_some(), "{cmd:?} over the limit: {v:?}");
    }
    let v = raw(&mut con, &[b"RESTORE".as_slice(), b"big", b"0", &cf_dump]);
    assert!(err_of(&v).is_some(), "a RESTORE over the limit: {v:?}");
    expect_ok(
        &mut con,
        &["CONFIG", "SET", "bf.max-filter-bytes", "536870912"],
    );
    let after = [section(&mut con, "bloom"), section(&mut con, "cuckoo")];
    // Bloom: a chunk and a payload refused, a creation over the limit; cuckoo: the same and
    // a RESTORE over the limit (a refused load and a size refusal both).
    let refused = |i: usize| after[i].refused_loads - before[i].refused_loads;
    let size = |i: usize| after[i].size_limit_refusals - before[i].size_limit_refusals;
    assert_eq!((refused(0), size(0)), (2, 1), "bloom refusals");
    assert_eq!((refused(1), size(1)), (3, 2), "cuckoo refusals");
    assert!(!key_exists(&mut con, "big") && !key_exists(&mut con, "refused"));
    check(&mut con, "refusals");

    // FLUSHALL ASYNC frees the values on a background thread.
    expect_ok(&mut con, &["FLUSHALL", "ASYNC"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while section(&mut con, "bloom").keys + section(&mut con, "cuckoo").keys > 0 {
        assert!(
            Instant::now() < deadline,
            "FLUSHALL ASYNC left keys counted"
        );
        sleep(Duration::from_millis(20));
    }
    for family in ["bloom", "cuckoo"] {
        let s = section(&mut con, family);
        assert_eq!(
            (s.keys, s.memory_bytes, s.items),
            (0, 0, 0),
            "{family} after FLUSHALL"
        );
    }
}

/// Many small filters, nine in ten deleted: their blocks sit in sparse jemalloc slabs, and
/// active defragmentation moves them (the module's defrag callback, counted in
/// `bf_*_defrag_moves`) while every filter keeps its content (DUMP) and answers.
#[test]
fn active_defragmentation_moves_filters_and_keeps_them() {
    let redis8 = Installed::get("redis-8.2");
    let server = Server::start_with(ServerOpts::default().on(&redis8));
    let mut con = server.conn();
    const N: usize = 20_000;
    let mut cmds = Vec::new();
    for i in 0..N {
        cmds.push(build(&[
            "BF.INSERT",
            &format!("b{i}"),
            "CAPACITY",
            "20",
            "ITEMS",
            "x",
        ]));
        cmds.push(build(&[
            "CF.INSERT",
            &format!("c{i}"),
            "CAPACITY",
            "8",
            "ITEMS",
            "x",
        ]));
    }
    for part in cmds.chunks(1000) {
        raw_pipeline(&mut con, part.to_vec()).expect("fill");
    }
    let kept: Vec<usize> = (0..N).filter(|i| i % 10 == 0).collect();
    let mut dels = Vec::new();
    for i in (0..N).filter(|i| i % 10 != 0) {
        dels.push(build(&["DEL", &format!("b{i}"), &format!("c{i}")]));
    }
    for part in dels.chunks(1000) {
        raw_pipeline(&mut con, part.to_vec()).expect("delete");
    }
    let dumps: Vec<(Vec<u8>, Vec<u8>)> = kept
        .iter()
        .map(|i| {
            (
                as_bytes(&raw(&mut con, &["DUMP", &format!("b{i}")])),
                as_bytes(&raw(&mut con, &["DUMP", &format!("c{i}")])),
            )
        })
        .collect();
    let totals = [section(&mut con, "bloom"), section(&mut con, "cuckoo")];

    for (name, value) in [
        ("active-defrag-ignore-bytes", "1"),
        ("active-defrag-threshold-lower", "1"),
        ("active-defrag-cycle-min", "25"),
        ("active-defrag-cycle-max", "75"),
        ("activedefrag", "yes"),
    ] {
        expect_ok(&mut con, &["CONFIG", "SET", name, value]);
    }
    let moves = |con: &mut Connection, family: &str| -> i64 {
        info_field(
            con,
            &format!("bf_{family}"),
            &format!("bf_{family}_defrag_moves"),
        )
        .and_then(|v| v.parse().ok())
        .expect("defrag_moves")
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while moves(&mut con, "bloom") == 0 || moves(&mut con, "cuckoo") == 0 {
        assert!(
            Instant::now() < deadline,
            "no filter block moved in 60 s: {}",
            info_section(&mut con, "stats")
        );
        sleep(Duration::from_millis(100));
    }
    expect_ok(&mut con, &["CONFIG", "SET", "activedefrag", "no"]);

    for (i, (b, c)) in kept.iter().zip(&dumps) {
        assert_eq!(
            &as_bytes(&raw(&mut con, &["DUMP", &format!("b{i}")])),
            b,
            "b{i}"
        );
        assert_eq!(
            &as_bytes(&raw(&mut con, &["DUMP", &format!("c{i}")])),
            c,
            "c{i}"
        );
        expect_int(&mut con, &["BF.EXISTS", &format!("b{i}"), "x"], 1);
        expect_int(&mut con, &["CF.EXISTS", &format!("c{i}"), "x"], 1);
    }
    // Moving blocks changes no figure.
    assert_eq!(section(&mut con, "bloom"), totals[0]);
    assert_eq!(section(&mut con, "cuckoo"), totals[1]);
    check(&mut con, "defragmentation");
}
