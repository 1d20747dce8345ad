//! The inputs that crash or nearly crash Redis 7.0.15 with RedisBloom v2.8.20
//! (tests/vectors/redisbloom-cf/README.md, section 9) against a real server with rsbloom:
//! each must get an error reply, the server must keep serving, and other keys must be
//! intact. Also the other places where rsbloom refuses what RedisBloom gets wrong: a
//! LOADCHUNK past the end, and growth past `bf.cf-max-expansions` within one command.

use rsbloom_test_support as common;

use common::rdb::{Frame, BAD_DATA, F};
use common::*;
use redis::{Connection, Value};
use rsbloom_core::cuckoo::CfHash;

const SET: &str = "redisbloom-cf";
/// The error prefix of a filter over `bf.max-filter-bytes`.
const TOO_LARGE: &str = "ERR filter would need";

/// A CF key and a string that every hostile input must leave alone.
fn witnesses(con: &mut Connection) -> Vec<u8> {
    expect_ok(con, &["SET", "witness:str", "untouched"]);
    expect_ok(con, &["CF.RESERVE", "witness:cf", "100"]);
    let v = raw(con, &["CF.INSERT", "witness:cf", "ITEMS", "w1", "w2", "w3"]);
    assert_eq!(as_ints(&v), vec![1, 1, 1]);
    as_bytes(&raw(con, &["DUMP", "witness:cf"]))
}

fn check_witnesses(server: &mut Server, con: &mut Connection, dump: &[u8], case: &str) {
    server.assert_alive();
    assert_eq!(as_text(&raw(con, &["PING"])), "PONG", "{case}: no PONG");
    assert_eq!(
        as_text(&raw(con, &["GET", "witness:str"])),
        "untouched",
        "{case}"
    );
    assert_eq!(
        as_bytes(&raw(con, &["DUMP", "witness:cf"])),
        dump,
        "{case}: witness:cf changed"
    );
}

/// A LOADCHUNK header: items, buckets, deletes, sub-filters, bucket size, iterations,
/// expansion.
fn header(items: u64, buckets: u64, filters: u64, bucket_size: u16, expansion: u16) -> Vec<u8> {
    let mut h = Vec::new();
    for v in [items, buckets, 0, filters] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    for v in [bucket_size, 20, expansion] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    h
}

/// An `MBbloomCF` DUMP payload with these fields (framed like RedisBloom's own).
fn payload(fields: &[F]) -> Vec<u8> {
    let real = common::files::read_bytes(SET, "resp3.dump.bin");
    Frame::from_dump(&real).payload(fields)
}

#[test]
fn redisbloom_crash_inputs_are_error_replies() {
    let mut server = Server::start();
    let mut con = server.conn();
    let dump = witnesses(&mut con);

    // A keyword as the last argument (RedisBloom reads past argv: 2.8 dies of SIGSEGV, 8
    // mostly finds no number there): its value is missing, so it cannot be parsed (checked
    // before the word that is no option, as RedisBloom checks options first).
    for keyword in ["BUCKETSIZE", "MAXITERATIONS", "EXPANSION"] {
        let args = ["CF.RESERVE", "k", "1000", "FOO", keyword];
        expect_err(&mut con, &args, &format!("Couldn't parse {keyword}"));
        assert!(!hostile::key_exists(&mut con, "k"), "{args:?} created k");
        check_witnesses(&mut server, &mut con, &dump, keyword);
    }
    // Sizes RedisBloom 2.8 tries to allocate and aborts on: past RedisBloom 8's capacity
    // range they are refused as such.
    for (args, error) in [
        (
            &["CF.RESERVE", "k", "1000000000000000"][..],
            "Capacity must be in the range [2 * BUCKETSIZE, 1073741824]",
        ),
        (
            &[
                "CF.INSERT",
                "k",
                "CAPACITY",
                "1000000000000000",
                "ITEMS",
                "a",
            ],
            "Capacity must be in the range [cf-bucket-size * 2, 1073741824]",
        ),
        (
            &["CF.RESERVE", "k", "1099511627776", "BUCKETSIZE", "1"],
            "Capacity must be in the range [2 * BUCKETSIZE, 1073741824]",
        ),
    ] {
        expect_err(&mut con, args, error);
        assert!(!hostile::key_exists(&mut con, "k"), "{args:?} created k");
        check_witnesses(&mut server, &mut con, &dump, &show_args(args));
    }
    // The largest capacity in range (2^30) is 1 GiB of slots, over bf.max-filter-bytes.
    for args in [
        &["CF.RESERVE", "k", "1073741824"][..],
        &["CF.INSERT", "k", "CAPACITY", "1073741824", "ITEMS", "a"],
        &["CF.RESERVE", "k", "1073741824", "BUCKETSIZE", "1"],
    ] {
        expect_err_prefix(&mut con, args, TOO_LARGE);
        assert!(!hostile::key_exists(&mut con, "k"), "{args:?} created k");
        check_witnesses(&mut server, &mut con, &dump, &show_args(args));
    }
    // A LOADCHUNK header of 2^50 buckets.
    let h = header(1, 1 << 50, 1, 2, 1);
    let args: [&[u8]; 4] = [b"CF.LOADCHUNK", b"k", b"1", &h];
    expect_err_prefix(&mut con, &args, TOO_LARGE);
    check_witnesses(&mut server, &mut con, &dump, "LOADCHUNK 2^50 buckets");

    // RESTORE with a short slot string (RedisBloom: assert, SIGABRT) and with bucket size 0
    // (accepted by RedisBloom; the next CF.ADD divides by zero).
    let good = [
        F::U(1),
        F::U(4),
        F::U(8),
        F::U(0),
        F::U(2),
        F::U(20),
        F::U(0),
        F::U(4),
        F::S(vec![1; 8]),
    ];
    let v = rdb::restore(&mut con, "k", &payload(&good));
    assert_eq!(v, Value::Okay, "the well-formed payload");
    expect_int(&mut con, &["DEL", "k"], 1);
    let mut short = good.to_vec();
    short[8] = F::S(vec![1; 7]);
    let mut zero = good.to_vec();
    zero[4] = F::U(0);
    zero[8] = F::S(Vec::new());
    for (what, fields) in [("short slots", short), ("bucket size 0", zero)] {
        let v = rdb::restore(&mut con, "k", &payload(&fields));
        assert_eq!(err_of(&v).as_deref(), Some(BAD_DATA), "{what}: {v:?}");
        expect_int(&mut con, &["CF.ADD", "k", "x"], 1);
        expect_int(&mut con, &["DEL", "k"], 1);
        check_witnesses(&mut server, &mut con, &dump, what);
    }

    // EXPANSION 32768 on 2^21 one-slot buckets: RedisBloom's first growth callocs 64 GiB
    // (one kick per add, so the first growth comes soon).
    expect_ok(
        &mut con,
        &[
            "CF.RESERVE",
            "k",
            "2097152",
            "BUCKETSIZE",
            "1",
            "MAXITERATIONS",
            "1",
            "EXPANSION",
            "32768",
        ],
    );
    let mut refused = None;
    'fill: for batch in 0..1000 {
        let items = gen_items(&format!("g{batch}:"), 0..1000);
        let mut args: Vec<Vec<u8>> = vec![b"CF.INSERT".to_vec(), b"k".to_vec(), b"ITEMS".to_vec()];
        args.extend(items.iter().cloned());
        let answers = as_ints(&raw(&mut con, &args));
        if let Some(at) = answers.iter().position(|&a| a == -1) {
            refused = Some(items[at].clone());
            break 'fill;
        }
    }
    let item = refused.expect("the filter never needed to grow");
    let args: [&[u8]; 3] = [b"CF.ADD", b"k", &item];
    expect_err_prefix(&mut con, &args, TOO_LARGE);
    let info = as_bytes(&raw(&mut con, &["CF.DEBUG", "k"]));
    assert!(
        String::from_utf8_lossy(&info).contains("filters:1 "),
        "{info:?}"
    );
    expect_int(&mut con, &["DEL", "k"], 1);
    check_witnesses(&mut server, &mut con, &dump, "EXPANSION 32768 growth");
}

#[test]
fn loadchunk_past_the_end_and_growth_past_the_bound_are_refused() {
    let mut server = Server::start();
    let mut con = server.conn();
    let dump = witnesses(&mut con);

    // RedisBloom folds a chunk past the end back into the last sub-filter.
    expect_ok(&mut con, &["CF.RESERVE", "s", "8"]);
    expect_int(&mut con, &["CF.ADD", "s", "a"], 1);
    let before = as_bytes(&raw(&mut con, &["DUMP", "s"]));
    // 4 buckets of 2 slots: 8 bytes; iterator 8 + 2 + 1 puts 2 bytes at offset 8.
    expect_err(
        &mut con,
        &["CF.LOADCHUNK", "s", "11", "ab"],
        "Couldn't load chunk!",
    );
    assert_eq!(as_bytes(&raw(&mut con, &["DUMP", "s"])), before);

    // One CF.INSERT may not grow past bf.cf-max-expansions (RedisBloom checks once).
    expect_ok(&mut con, &["CONFIG", "SET", "bf.cf-max-expansions", "4"]);
    expect_ok(&mut con, &["CF.RESERVE", "g", "4", "EXPANSION", "1"]);
    let items = gen_items("grow:", 0..200);
    let mut args: Vec<Vec<u8>> = vec![b"CF.INSERT".to_vec(), b"g".to_vec(), b"ITEMS".to_vec()];
    args.extend(items.iter().cloned());
    let answers = as_ints(&raw(&mut con, &args));
    assert!(answers.contains(&-1), "the bound was never met");
    let debug = String::from_utf8(as_bytes(&raw(&mut con, &["CF.DEBUG", "g"]))).unwrap();
    assert!(debug.contains(" filters:4 "), "{debug}");
    expect_err(
        &mut con,
        &["CF.ADD", "g", "more"],
        "Maximum expansions reached",
    );
    check_witnesses(&mut server, &mut con, &dump, "bounds");
}

/// Every literal input of RedisBloom's `crashes.tsv` (its steps as written; the growth
/// cases' `a..b` item ranges are the fill of the test above), replayed in order against a
/// real server: where RedisBloom died on a case's first step, the reply is an error; after
/// every step the server answers and the witness keys are untouched.
#[test]
fn every_literal_input_of_crashes_tsv_is_answered() {
    let mut server = Server::start();
    let mut con = server.conn();
    let dump = witnesses(&mut con);
    let text = common::files::read("redisbloom-cf", "crashes.tsv");
    let mut replayed = 0;
    let mut case = String::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let [name, step, outcome, command] = fields[..] else {
            panic!("crashes.tsv: bad line {line:?}");
        };
        if name != case {
            // Each case starts on an empty key.
            raw(&mut con, &["DEL", "k"]);
            case = name.to_string();
        }
        if command == "(end)" || command.contains("..") {
            continue;
        }
        let args: Vec<Vec<u8>> = command.split(' ').map(common::files::unescape).collect();
        let v = raw(&mut con, &args);
        let what = format!("{name} step {step}: {command:.60}");
        if step == "1" && outcome.starts_with("server died") {
            assert!(err_of(&v).is_some(), "{what}: answered {v:?}");
        }
        check_witnesses(&mut server, &mut con, &dump, &what);
        replayed += 1;
    }
    assert_eq!(replayed, 17, "literal steps of crashes.tsv");
}

/// The `CF.DEBUG` figure `name` (`filters`, `items`, ...).
fn cf_debug_figure(con: &mut Connection, key: &str, name: &str) -> u64 {
    let debug = String::from_utf8(as_bytes(&raw(con, &["CF.DEBUG", key]))).unwrap();
    debug
        .split(' ')
        .find_map(|f| f.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {debug}"))
}

/// The most sub-filters a loaded value may have (RedisBloom's own 16-bit bound, which its
/// CF_MAX_EXPANSIONS 65535 reaches), laid out for the worst compaction: 2-bucket sub-filters
/// where one item's bucket (an item with an even fingerprint, whose two buckets coincide)
/// is full in the older half and holds one copy in the newer half. RedisBloom's walk tries
/// every full sub-filter for each copy it moves: about 2 * 65,535^2 / 4 bucket probes for
/// the delete, more for CF.COMPACT. Both finish (the work is counted and bounded by
/// core's compaction tests) and keep every copy, packed into the fewest sub-filters.
#[test]
fn compaction_of_the_most_sub_filters_finishes() {
    const FILTERS: u64 = 65535;
    const BUCKET_SIZE: u64 = 4;
    let (item, h) = (0u32..)
        .map(|i| format!("x{i}"))
        .map(|item| (item.clone(), CfHash::of(item.as_bytes())))
        .find(|(_, h)| h.fp % 2 == 0)
        .unwrap();
    let at = (h.h1 % 2 * BUCKET_SIZE) as usize;
    let mut copies = 0;
    let mut fields = vec![
        F::U(FILTERS),
        F::U(2),
        F::U(0),
        F::U(0),
        F::U(BUCKET_SIZE),
        F::U(20),
        F::U(1),
    ];
    for k in 0..FILTERS {
        let fill = if k < FILTERS / 2 { BUCKET_SIZE } else { 1 };
        let mut slots = vec![0u8; 2 * BUCKET_SIZE as usize];
        slots[at..at + fill as usize].fill(h.fp);
        copies += fill;
        fields.push(F::U(2));
        fields.push(F::S(slots));
    }
    // Counters as after many deletes: the next delete compacts.
    fields[2] = F::U(copies);
    fields[3] = F::U(copies);
    let payload = payload(&fields);

    let mut server = Server::start();
    let mut con = server.conn();
    let dump = witnesses(&mut con);
    for key in ["compact", "del"] {
        assert_eq!(rdb::restore(&mut con, key, &payload), Value::Okay, "{key}");
        assert_eq!(cf_debug_figure(&mut con, key, "filters"), FILTERS);
        // Both buckets are one: each copy counts twice.
        expect_int(&mut con, &["CF.COUNT", key, &item], 2 * copies as i64);
    }

    expect_ok(&mut con, &["CF.COMPACT", "compact"]);
    expect_int(&mut con, &["CF.COUNT", "compact", &item], 2 * copies as i64);
    let packed = copies.div_ceil(BUCKET_SIZE);
    assert_eq!(cf_debug_figure(&mut con, "compact", "filters"), packed);
    assert_eq!(cf_debug_figure(&mut con, "compact", "deletes"), 0);

    expect_int(&mut con, &["CF.DEL", "del", &item], 1);
    let left = copies - 1;
    expect_int(&mut con, &["CF.COUNT", "del", &item], 2 * left as i64);
    assert_eq!(
        cf_debug_figure(&mut con, "del", "filters"),
        left.div_ceil(BUCKET_SIZE)
    );
    assert_eq!(cf_debug_figure(&mut con, "del", "items"), left);
    check_witnesses(&mut server, &mut con, &dump, "compaction");
}
