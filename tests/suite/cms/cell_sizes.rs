//! RedisBloom 8.12's Count-Min Sketch on a server: `CELL_SIZE 1|2|4|8`, CMS.INFO's fourth
//! pair, increments refused item by item past a cell's maximum or the total's, decrements,
//! merges within the cell size, the size limit at the real cell size, COMMAND DOCS and the
//! replication of a sized creation. The sequences and answers of 8.12's own tests (as ported
//! from RedisBloom 8.11.81) where they exist: the same hashes give the same collisions here.

use rsbloom_test_support as common;

use common::hostile::{config_set, expect_too_large, key_exists};
use common::*;
use redis::{Connection, Value};

use super::info_ints;

const SIZES: [i64; 4] = [1, 2, 4, 8];
const MAX: [i64; 4] = [255, 65535, 4294967295, i64::MAX];

/// CMS.INCRBY's elements: `Ok(estimate)` or the error text.
fn incrby(c: &mut Connection, args: &[&str]) -> Vec<Result<i64, String>> {
    let mut full = vec!["CMS.INCRBY"];
    full.extend_from_slice(args);
    match raw(c, &full) {
        Value::Array(items) => items
            .iter()
            .map(|v| match v {
                Value::Int(n) => Ok(*n),
                other => Err(err_of(other).unwrap_or_else(|| format!("{other:?}"))),
            })
            .collect(),
        other => panic!("{full:?} answered {other:?}"),
    }
}

fn over() -> Result<i64, String> {
    Err("CMS: INCRBY overflow".into())
}

fn under() -> Result<i64, String> {
    Err("CMS: INCRBY underflow".into())
}

#[test]
fn creations_take_a_cell_size() {
    let s = Server::start();
    let mut c = s.conn();
    for size in SIZES {
        let n = size.to_string();
        expect_ok(
            &mut c,
            &[
                "CMS.INITBYDIM",
                &format!("dim{n}"),
                "20",
                "5",
                "CELL_SIZE",
                &n,
            ],
        );
        assert_eq!(info_ints(&mut c, &format!("dim{n}")), vec![20, 5, 0, size]);
        // The word in any case.
        expect_ok(
            &mut c,
            &[
                "CMS.INITBYPROB",
                &format!("prob{n}"),
                "0.001",
                "0.01",
                "cell_size",
                &n,
            ],
        );
        assert_eq!(
            info_ints(&mut c, &format!("prob{n}")),
            vec![2000, 7, 0, size]
        );
    }
    expect_ok(&mut c, &["CMS.INITBYDIM", "default", "20", "5"]);
    assert_eq!(info_ints(&mut c, "default"), vec![20, 5, 0, 4]);
    // RESP2: eight elements; RESP3: a map of four.
    let mut r2 = common::raw_resp::RawConn::connect(s.port);
    assert_eq!(
        r2.send(&[b"CMS.INFO".as_slice(), b"dim1"]),
        b"*8\r\n+width\r\n:20\r\n+depth\r\n:5\r\n+count\r\n:0\r\n+cell_size\r\n:1\r\n"
    );
    let mut r3 = common::raw_resp::RawConn::connect_resp3(s.port);
    assert_eq!(
        r3.send(&[b"CMS.INFO".as_slice(), b"dim8"]),
        b"%4\r\n+width\r\n:20\r\n+depth\r\n:5\r\n+count\r\n:0\r\n+cell_size\r\n:8\r\n"
    );
}

/// 8.12's `test_cell_size_validation`, and the order of the checks.
#[test]
fn cell_sizes_are_checked() {
    let s = Server::start();
    let mut c = s.conn();
    for bad in [
        "0", "3", "5", "6", "7", "9", "16", "-1", "-4", "blah", "", "4.5",
    ] {
        for create in [
            &["CMS.INITBYDIM", "x", "20", "5", "CELL_SIZE", bad][..],
            &["CMS.INITBYPROB", "x", "0.001", "0.01", "CELL_SIZE", bad],
        ] {
            expect_err(&mut c, create, "CMS: CELL_SIZE must be 1, 2, 4 or 8");
        }
    }
    expect_err(
        &mut c,
        &["CMS.INITBYDIM", "x", "20", "5", "CELLSIZE", "1"],
        "CMS: unknown argument",
    );
    expect_err(
        &mut c,
        &["CMS.INITBYPROB", "x", "0.001", "0.01", "OOR", "1"],
        "CMS: unknown argument",
    );
    for args in [
        &["CMS.INITBYDIM", "x", "20", "5", "CELL_SIZE"][..],
        &["CMS.INITBYDIM", "x", "20", "5", "CELL_SIZE", "1", "2"],
        &["CMS.INITBYDIM", "x", "20", "5", "1"],
        &["CMS.INITBYPROB", "x", "0.1", "0.1", "CELL_SIZE"],
    ] {
        let name = args[0].to_ascii_lowercase();
        expect_err(
            &mut c,
            args,
            &format!("ERR wrong number of arguments for '{name}' command"),
        );
    }
    // The dimensions first, the key before them.
    expect_err(
        &mut c,
        &["CMS.INITBYDIM", "x", "0", "5", "CELL_SIZE", "3"],
        "CMS: invalid width",
    );
    expect_err(
        &mut c,
        &["CMS.INITBYPROB", "x", "2", "0.01", "CELL_SIZE", "1"],
        "CMS: invalid overestimation value",
    );
    expect_err(
        &mut c,
        &["CMS.INITBYDIM", "x", "4611686018427387904", "4", "FOO", "3"],
        "CMS: invalid init arguments",
    );
    expect_ok(&mut c, &["SET", "str", "v"]);
    expect_err(
        &mut c,
        &["CMS.INITBYDIM", "str", "20", "5", "FOO", "3"],
        "CMS: key already exists",
    );
    assert!(!key_exists(&mut c, "x"));
}

/// 8.12's `test_cell_size_max_value` and `test_cell_size_overflow_in_one_shot`: a 1 x 1
/// sketch is exact, each size takes its maximum and refuses one more; an increment past
/// the maximum at once is refused, nothing counted.
#[test]
fn each_size_holds_up_to_its_maximum() {
    let s = Server::start();
    let mut c = s.conn();
    for (size, max) in SIZES.iter().zip(MAX) {
        let key = format!("one{size}");
        let (n, m) = (size.to_string(), max.to_string());
        expect_ok(&mut c, &["CMS.INITBYDIM", &key, "1", "1", "CELL_SIZE", &n]);
        assert_eq!(incrby(&mut c, &[&key, "a", &m]), vec![Ok(max)]);
        expect_ints(&mut c, &["CMS.QUERY", &key, "a"], &[max]);
        assert_eq!(incrby(&mut c, &[&key, "a", "1"]), vec![over()]);
        expect_ints(&mut c, &["CMS.QUERY", &key, "a"], &[max]);
        assert_eq!(info_ints(&mut c, &key), vec![1, 1, max, *size]);
    }
    expect_ok(
        &mut c,
        &["CMS.INITBYDIM", "small", "20", "5", "CELL_SIZE", "1"],
    );
    assert_eq!(incrby(&mut c, &["small", "a", "256"]), vec![over()]);
    expect_ints(&mut c, &["CMS.QUERY", "small", "a"], &[0]);
    assert_eq!(info_ints(&mut c, "small"), vec![20, 5, 0, 1]);
}

/// 8.12's `test_overflow` (4-byte counters, 5 x 2: `b` and `c` collide) and
/// `test_incrby_rejection_undoes_partial_writes`: the refused item alone, nothing of it kept.
#[test]
fn an_overflow_refuses_that_item_alone() {
    let s = Server::start();
    let mut c = s.conn();
    let large = (1i64 << 31) - 1;
    let l = large.to_string();
    expect_ok(&mut c, &["CMS.INITBYDIM", "cms", "5", "2"]);
    let round = ["cms", "a", &l, "b", "10", "c", "7", "d", "5"];
    let query = ["CMS.QUERY", "cms", "a", "b", "c", "d"];
    assert_eq!(
        incrby(&mut c, &round),
        vec![Ok(large), Ok(10), Ok(17), Ok(5)]
    );
    expect_ints(&mut c, &query, &[large, 17, 17, 5]);
    assert_eq!(
        incrby(&mut c, &round),
        vec![Ok(2 * large), Ok(27), Ok(34), Ok(10)]
    );
    expect_ints(&mut c, &query, &[2 * large, 34, 34, 10]);
    assert_eq!(incrby(&mut c, &round), vec![over(), Ok(44), Ok(51), Ok(15)]);
    expect_ints(&mut c, &query, &[2 * large, 51, 51, 15]);
    assert_eq!(
        info_ints(&mut c, "cms"),
        vec![5, 2, 2 * (large + 22) + 22, 4]
    );
    // An estimate of exactly 2^32 - 1 is a number (2.8 called it an overflow).
    expect_ok(&mut c, &["CMS.INITBYDIM", "edge", "16", "2"]);
    assert_eq!(
        incrby(&mut c, &["edge", "a", "4294967294"]),
        vec![Ok(4294967294)]
    );
    assert_eq!(incrby(&mut c, &["edge", "a", "1"]), vec![Ok(4294967295)]);
    assert_eq!(
        incrby(&mut c, &["edge", "a", "1", "b", "2"]),
        vec![over(), Ok(2)]
    );
    // A refusal in a late row: the earlier rows are taken back.
    expect_ok(
        &mut c,
        &["CMS.INITBYDIM", "rows", "2", "4", "CELL_SIZE", "1"],
    );
    assert_eq!(incrby(&mut c, &["rows", "filler", "200"]), vec![Ok(200)]);
    let before = as_bytes(&raw(&mut c, &["DUMP", "rows"]));
    assert_eq!(incrby(&mut c, &["rows", "a", "100"]), vec![over()]);
    assert_eq!(as_bytes(&raw(&mut c, &["DUMP", "rows"])), before);
    assert_eq!(info_ints(&mut c, "rows"), vec![2, 4, 200, 1]);
    assert_eq!(incrby(&mut c, &["rows", "filler", "1"]), vec![Ok(201)]);
}

/// 8.12's `test_total_count_overflow`: the total is capped at 2^63 - 1 even where the item's
/// own counter has room.
#[test]
fn the_total_is_capped() {
    let s = Server::start();
    let mut c = s.conn();
    let max = i64::MAX;
    expect_ok(
        &mut c,
        &["CMS.INITBYDIM", "cms", "100", "1", "CELL_SIZE", "8"],
    );
    assert_eq!(
        incrby(&mut c, &["cms", "a", &max.to_string()]),
        vec![Ok(max)]
    );
    let other = (0..1000)
        .map(|i| format!("x{i}"))
        .find(|i| as_ints(&raw(&mut c, &["CMS.QUERY", "cms", i])) == [0])
        .expect("an item in another counter");
    assert_eq!(incrby(&mut c, &["cms", &other, "1"]), vec![over()]);
    expect_ints(&mut c, &["CMS.QUERY", "cms", &other], &[0]);
    assert_eq!(info_ints(&mut c, "cms"), vec![100, 1, max, 8]);
}

/// 8.12's `test_decrby`, `test_decrby_underflow`, `test_decrby_cell_sizes` and
/// `test_decrby_validation`.
#[test]
fn decrements() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["CMS.INITBYDIM", "cms", "1000", "5"]);
    assert_eq!(incrby(&mut c, &["cms", "a", "100"]), vec![Ok(100)]);
    assert_eq!(incrby(&mut c, &["cms", "a", "-40"]), vec![Ok(60)]);
    assert_eq!(info_ints(&mut c, "cms"), vec![1000, 5, 60, 4]);
    assert_eq!(incrby(&mut c, &["cms", "a", "-60"]), vec![Ok(0)]);
    assert_eq!(info_ints(&mut c, "cms"), vec![1000, 5, 0, 4]);
    assert_eq!(incrby(&mut c, &["cms", "a", "0"]), vec![Ok(0)]);

    expect_ok(&mut c, &["CMS.INITBYDIM", "u", "1000", "5"]);
    assert_eq!(incrby(&mut c, &["u", "a", "10"]), vec![Ok(10)]);
    assert_eq!(incrby(&mut c, &["u", "a", "-11"]), vec![under()]);
    expect_ints(&mut c, &["CMS.QUERY", "u", "a"], &[10]);
    assert_eq!(info_ints(&mut c, "u"), vec![1000, 5, 10, 4]);
    assert_eq!(incrby(&mut c, &["u", "never_added", "-1"]), vec![under()]);
    // Refusals do not stop the other pairs.
    assert_eq!(
        incrby(&mut c, &["u", "a", "-100", "b", "3", "a", "-4"]),
        vec![under(), Ok(3), Ok(6)]
    );
    expect_ints(&mut c, &["CMS.QUERY", "u", "a", "b"], &[6, 3]);
    assert_eq!(info_ints(&mut c, "u"), vec![1000, 5, 9, 4]);

    for size in SIZES {
        let key = format!("d{size}");
        expect_ok(
            &mut c,
            &[
                "CMS.INITBYDIM",
                &key,
                "1",
                "1",
                "CELL_SIZE",
                &size.to_string(),
            ],
        );
        assert_eq!(incrby(&mut c, &[&key, "a", "200"]), vec![Ok(200)]);
        assert_eq!(incrby(&mut c, &[&key, "a", "-150"]), vec![Ok(50)]);
        assert_eq!(incrby(&mut c, &[&key, "a", "-51"]), vec![under()]);
        expect_ints(&mut c, &["CMS.QUERY", &key, "a"], &[50]);
    }
    // -2^63 has no magnitude: the whole command is refused before any item.
    expect_err(
        &mut c,
        &["CMS.INCRBY", "u", "b", "1", "a", "-9223372036854775808"],
        "CMS: invalid increment",
    );
    expect_err(
        &mut c,
        &["CMS.INCRBY", "u", "a", "blah"],
        "CMS: Cannot parse number",
    );
    expect_ints(&mut c, &["CMS.QUERY", "u", "a", "b"], &[6, 3]);
}

/// 8.12's `test_merge_cell_size` and `test_merge_cell_size_mismatch`.
#[test]
fn merges_hold_to_the_cell_size() {
    let s = Server::start();
    let mut c = s.conn();
    for name in ["a{t}", "b{t}", "dest{t}"] {
        expect_ok(
            &mut c,
            &["CMS.INITBYDIM", name, "20", "5", "CELL_SIZE", "2"],
        );
    }
    assert_eq!(incrby(&mut c, &["a{t}", "x", "10"]), vec![Ok(10)]);
    assert_eq!(incrby(&mut c, &["b{t}", "x", "7"]), vec![Ok(7)]);
    expect_ok(&mut c, &["CMS.MERGE", "dest{t}", "2", "a{t}", "b{t}"]);
    expect_ints(&mut c, &["CMS.QUERY", "dest{t}", "x"], &[17]);
    assert_eq!(info_ints(&mut c, "dest{t}"), vec![20, 5, 17, 2]);
    expect_ok(
        &mut c,
        &[
            "CMS.MERGE",
            "dest{t}",
            "2",
            "a{t}",
            "b{t}",
            "WEIGHTS",
            "1000",
            "1",
        ],
    );
    let before = as_bytes(&raw(&mut c, &["DUMP", "dest{t}"]));
    expect_err(
        &mut c,
        &[
            "CMS.MERGE",
            "dest{t}",
            "2",
            "a{t}",
            "b{t}",
            "WEIGHTS",
            "10000",
            "1",
        ],
        "CMS: MERGE overflow",
    );
    // Below zero, too.
    expect_err(
        &mut c,
        &["CMS.MERGE", "dest{t}", "1", "a{t}", "WEIGHTS", "-1"],
        "CMS: MERGE overflow",
    );
    assert_eq!(as_bytes(&raw(&mut c, &["DUMP", "dest{t}"])), before);
    expect_ok(
        &mut c,
        &["CMS.INITBYDIM", "small{t}", "20", "5", "CELL_SIZE", "1"],
    );
    expect_ok(
        &mut c,
        &["CMS.INITBYDIM", "large{t}", "20", "5", "CELL_SIZE", "4"],
    );
    expect_err(
        &mut c,
        &["CMS.MERGE", "large{t}", "1", "small{t}"],
        "CMS: cell size is not equal",
    );
    expect_err(
        &mut c,
        &["CMS.MERGE", "small{t}", "1", "large{t}"],
        "CMS: cell size is not equal",
    );
    // Dimensions are checked before the cell size.
    expect_ok(
        &mut c,
        &["CMS.INITBYDIM", "other{t}", "21", "5", "CELL_SIZE", "1"],
    );
    expect_err(
        &mut c,
        &["CMS.MERGE", "large{t}", "1", "other{t}"],
        "CMS: width/depth is not equal",
    );
}

/// The size limit and MEMORY USAGE count the real cell size: `32 + size × width × depth`.
#[test]
fn sizes_count_the_cell_size() {
    let s = Server::start();
    let mut c = s.conn();
    config_set(&mut c, "bf.max-filter-bytes", "4032");
    expect_ok(
        &mut c,
        &["CMS.INITBYDIM", "one", "1000", "4", "CELL_SIZE", "1"],
    );
    expect_ok(&mut c, &["CMS.INITBYDIM", "four", "1000", "1"]);
    let v = raw(
        &mut c,
        &["CMS.INITBYDIM", "two", "1000", "4", "CELL_SIZE", "2"],
    );
    assert_eq!(expect_too_large(&v, "two"), (8032, 4032));
    let v = raw(
        &mut c,
        &["CMS.INITBYPROB", "eight", "0.002", "0.5", "CELL_SIZE", "8"],
    );
    assert_eq!(expect_too_large(&v, "eight"), (32 + 8 * 1000, 4032));
    assert!(!key_exists(&mut c, "two") && !key_exists(&mut c, "eight"));
    // Counters past what memory can address, at the cell size: RedisBloom 8's text.
    expect_err(
        &mut c,
        &[
            "CMS.INITBYDIM",
            "k",
            "2305843009213693952",
            "1",
            "CELL_SIZE",
            "8",
        ],
        "CMS: Insufficient memory to create the key",
    );
    config_set(&mut c, "bf.max-filter-bytes", "536870912");
    let mut usage = Vec::new();
    for size in SIZES {
        expect_ok(
            &mut c,
            &[
                "CMS.INITBYDIM",
                "m",
                "1000",
                "5",
                "CELL_SIZE",
                &size.to_string(),
            ],
        );
        usage.push(memory_usage(&mut c, "m"));
        expect_int(&mut c, &["DEL", "m"], 1);
    }
    for (i, size) in SIZES.iter().enumerate() {
        assert_eq!(
            usage[i] - usage[0],
            (size - 1) * 5000,
            "MEMORY USAGE at {size}"
        );
    }
}

/// COMMAND DOCS: `cell_size`, optional, after the dimensions, introduced by `CELL_SIZE`;
/// COMMAND INFO: arity -4.
#[test]
fn command_docs_show_cell_size() {
    let s = Server::start();
    let mut c = s.conn();
    for name in ["cms.initbydim", "cms.initbyprob"] {
        let docs = format!("{:?}", raw(&mut c, &["COMMAND", "DOCS", name]));
        for part in ["cell_size", "CELL_SIZE", "optional", "integer"] {
            assert!(docs.contains(part), "{name}: no {part} in {docs}");
        }
        let info = raw(&mut c, &["COMMAND", "INFO", name]);
        let Value::Array(entries) = info else {
            panic!("COMMAND INFO {name}: {info:?}")
        };
        let Value::Array(fields) = &entries[0] else {
            panic!("COMMAND INFO {name}: {entries:?}")
        };
        assert_eq!(fields[1], Value::Int(-4), "{name}: arity");
    }
}

/// A creation with a cell size reaches the replica as CMS.INITBYDIM with it; increments and
/// their refusals are the same there.
#[test]
fn sized_creations_are_replicated() {
    let primary = Server::start();
    let mut p = primary.conn();
    expect_ok(
        &mut p,
        &["CMS.INITBYDIM", "before", "10", "2", "CELL_SIZE", "1"],
    );
    assert_eq!(
        incrby(&mut p, &["before", "a", "250", "b", "300"]),
        vec![Ok(250), over()]
    );
    let replica = primary.start_replica();
    let mut r = replica.conn();
    expect_ok(
        &mut p,
        &["CMS.INITBYPROB", "prob", "0.01", "0.125", "CELL_SIZE", "2"],
    );
    expect_ok(
        &mut p,
        &["CMS.INITBYDIM", "eight", "50", "3", "cell_size", "8"],
    );
    expect_ok(
        &mut p,
        &["CMS.INITBYDIM", "four", "50", "3", "CELL_SIZE", "4"],
    );
    for key in ["prob", "eight", "four", "before"] {
        incrby(
            &mut p,
            &[key, "x", "60000", "y", "-1", "x", "6000", "z", "9"],
        );
    }
    expect_ok(
        &mut p,
        &["CMS.MERGE", "eight", "1", "eight", "WEIGHTS", "3"],
    );
    expect_int(&mut p, &["WAIT", "1", "5000"], 1);
    for key in ["before", "prob", "eight", "four"] {
        let a = as_bytes(&raw(&mut p, &["DUMP", key]));
        let b = as_bytes(&raw(&mut r, &["DUMP", key]));
        assert_eq!(
            common::rdb::dump_body(&a),
            common::rdb::dump_body(&b),
            "{key} on the replica"
        );
        assert_eq!(info_ints(&mut p, key), info_ints(&mut r, key), "{key}");
    }
    assert_eq!(info_ints(&mut r, "prob"), vec![200, 3, 60009, 2]);
    assert_eq!(info_ints(&mut r, "eight")[3], 8);
    assert_eq!(info_ints(&mut r, "four")[3], 4);
}
