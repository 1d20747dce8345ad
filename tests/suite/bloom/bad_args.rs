//! Odd arguments to every command, as a table: empty strings, non-UTF-8 bytes, 1 MiB items,
//! numbers that are negative, fractional, huge, NaN or infinite, missing, repeated,
//! lower-case and unknown options. Each row names the module's error text or the right answer.
//!
//! The texts, limits and check order are RedisBloom 8's (its error texts differ between
//! BF.RESERVE and BF.INSERT); where rsbloom differs on purpose the row says so
//! (`Unspecified:` where neither RedisBloom nor the docs decide). Numbers are read by the
//! server's own parsers, as RedisBloom reads them:
//! - Integers are Redis's `string2ll`: no `+`, no leading zero, no `-0`, no spaces, within
//!   64 bits. Doubles are `strtod`-like: "1e400", "-1e400" and "1e-400" overflow or
//!   underflow and are not numbers; "inf" and "99999999999999999999" are numbers, out of
//!   range for an error rate; "NaN" is not a number.
//! - An unknown option is refused (RedisBloom ignores it at BF.RESERVE) and echoed as sent,
//!   escaped where it is not printable.
//! - An option takes the next argument as its value, whatever it is.
//! - BF.INSERT keeps the last of a repeated option; BF.RESERVE the first EXPANSION.
//! - Option values are checked even when the key exists and they would not be used.
//! - The argument count is checked first, then the arguments, then the key.

use rsbloom_test_support as common;

use common::guava_model::{self, Added};
use common::hostile::key_exists;
use common::*;
use redis::{Connection, Value};

macro_rules! args {
    ($($a:expr),* $(,)?) => {
        vec![$(AsRef::<[u8]>::as_ref(&$a).to_vec()),*]
    };
}

/// What a row must answer.
#[derive(Clone, Debug)]
enum W {
    Ok,
    Int(i64),
    Ints(Vec<i64>),
    /// Exactly this error text.
    Err(String),
    /// An error starting with this.
    ErrPrefix(String),
    /// Exactly this value.
    Is(Value),
    /// Any array of this length whose elements are not errors.
    Array(usize),
}

fn err(text: &str) -> W {
    W::Err(text.to_string())
}

fn info1(v: Value) -> W {
    W::Is(Value::Array(vec![v]))
}

const BAD_RATE: &str = "ERR bad error rate";
const RATE_RANGE: &str = "ERR error rate must be in the range (0.000000, 1.000000)";
const BAD_CAP: &str = "ERR bad capacity";
const CAP_RANGE: &str = "ERR capacity must be in the range [1, 1073741824]";
const BAD_EXP: &str = "ERR bad expansion";
const EXP_RANGE: &str = "ERR expansion must be in the range [0, 32768]";
const SCANDUMP_ITER: &str = "Second argument must be numeric";
const LOADCHUNK_ITER: &str = "ERR Second argument must be numeric";
const NO_EXPAND: &str = "Nonscaling filters cannot expand";
/// BF.INSERT's texts (RedisBloom 8 gives no code and one text for a bad or out-of-range value).
const INSERT_RATE: &str = "Bad error rate";
const INSERT_CAP: &str = "Bad capacity";
const INSERT_EXP: &str = "Bad expansion";
const UNKNOWN_ARG: &str = "Unknown argument received";
const INFO_FIELD: &str = "Invalid information value";
const BAD_DATA: &str = "ERR received bad data";
const INSERT_ARITY: &str = "ERR wrong number of arguments for 'bf.insert' command";
const RESERVE_ARITY: &str = "ERR wrong number of arguments for 'bf.reserve' command";

/// Runs the rows in order; every row that answers otherwise is reported, then the test
/// fails. A refused row must not have created its key.
fn run(con: &mut Connection, rows: &[(Vec<Vec<u8>>, W, &str)]) {
    let mut wrong = Vec::new();
    for (args, want, note) in rows {
        let shown = show_args(args);
        let key_before = args.get(1).map(|k| key_exists(con, k));
        let v = raw(con, args);
        let ok = match want {
            W::Ok => v == Value::Okay,
            W::Int(n) => v == Value::Int(*n),
            W::Ints(ns) => v == Value::Array(ns.iter().map(|&n| Value::Int(n)).collect()),
            W::Err(text) => err_of(&v).as_deref() == Some(text.as_str()),
            W::ErrPrefix(p) => err_of(&v).is_some_and(|t| t.starts_with(p.as_str())),
            W::Is(value) => &v == value,
            W::Array(n) => matches!(&v, Value::Array(a)
                if a.len() == *n && a.iter().all(|e| err_of(e).is_none())),
        };
        if !ok {
            wrong.push(format!(
                "`{shown}` ({note}) answered {v:?}, expected {want:?}"
            ));
        }
        if err_of(&v).is_some() && key_before == Some(false) && key_exists(con, &args[1]) {
            wrong.push(format!("`{shown}` ({note}) failed but created its key"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} rows:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// A server with `f` (0.01, 1000, holding "a" and "b") and a string key `s`.
fn setup() -> (Server, Connection) {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "f", "0.01", "1000"]);
    expect_ints(&mut c, &["BF.MADD", "f", "a", "b"], &[1, 1]);
    expect_ok(&mut c, &["SET", "s", "text"]);
    (s, c)
}

#[test]
fn empty_strings() {
    let (_s, mut c) = setup();
    let rows = vec![
        // The empty key is a key like any other.
        (args!["BF.RESERVE", "", "0.01", "100"], W::Ok, "empty key"),
        (args!["BF.ADD", "", "x"], W::Int(1), "empty key"),
        (
            args!["BF.MADD", "", "y", "z"],
            W::Ints(vec![1, 1]),
            "empty key",
        ),
        (
            args!["BF.INSERT", "", "ITEMS", "w"],
            W::Ints(vec![1]),
            "empty key",
        ),
        (args!["BF.EXISTS", "", "x"], W::Int(1), "empty key"),
        (
            args!["BF.MEXISTS", "", "x", "never"],
            W::Ints(vec![1, 0]),
            "empty key",
        ),
        (args!["BF.CARD", ""], W::Int(4), "empty key"),
        (args!["BF.INFO", ""], W::Array(10), "empty key"),
        (
            args!["BF.INFO", "", "ITEMS"],
            info1(Value::Int(4)),
            "empty key",
        ),
        (args!["BF.DEBUG", ""], W::Array(2), "empty key"),
        (args!["BF.SCANDUMP", "", "0"], W::Array(2), "empty key"),
        (
            args!["BF.LOADCHUNK", "", "2", "\x01"],
            W::Ok,
            "empty key, a data chunk",
        ),
        // The empty item is an item like any other.
        (args!["BF.ADD", "f", ""], W::Int(1), "empty item"),
        (args!["BF.EXISTS", "f", ""], W::Int(1), "empty item"),
        (
            args!["BF.MADD", "f", "", "c"],
            W::Ints(vec![0, 1]),
            "empty item",
        ),
        (
            args!["BF.MEXISTS", "f", "", "", "c"],
            W::Ints(vec![1, 1, 1]),
            "empty item",
        ),
        (
            args!["BF.INSERT", "f", "ITEMS", ""],
            W::Ints(vec![0]),
            "empty item",
        ),
        (args!["BF.CARD", "f"], W::Int(4), "a, b, \"\", c"),
        // Empty numbers.
        (
            args!["BF.RESERVE", "k", "", "100"],
            err(BAD_RATE),
            "empty error rate",
        ),
        (
            args!["BF.RESERVE", "k", "0.01", ""],
            err(BAD_CAP),
            "empty capacity",
        ),
        (
            args!["BF.RESERVE", "k", "0.01", "100", "EXPANSION", ""],
            err(BAD_EXP),
            "empty expansion",
        ),
        (
            args!["BF.INSERT", "k", "CAPACITY", "", "ITEMS", "a"],
            err(INSERT_CAP),
            "empty",
        ),
        (
            args!["BF.INSERT", "k", "ERROR", "", "ITEMS", "a"],
            err(INSERT_RATE),
            "empty",
        ),
        (
            args!["BF.INSERT", "k", "EXPANSION", "", "ITEMS", "a"],
            err(INSERT_EXP),
            "empty",
        ),
        (
            args!["BF.SCANDUMP", "f", ""],
            err(SCANDUMP_ITER),
            "empty iterator",
        ),
        (
            args!["BF.LOADCHUNK", "f", "", "x"],
            err(LOADCHUNK_ITER),
            "empty iterator",
        ),
        (
            args!["BF.LOADCHUNK", "k", "", "x"],
            err(LOADCHUNK_ITER),
            "empty iterator, no key",
        ),
        // Empty option names and fields.
        (
            args!["BF.RESERVE", "k", "0.01", "100", ""],
            err("ERR unknown option ''"),
            "empty option",
        ),
        (
            args!["BF.INSERT", "k", "", "ITEMS", "a"],
            err(UNKNOWN_ARG),
            "empty option",
        ),
        (args!["BF.INFO", "f", ""], err(INFO_FIELD), "empty field"),
        // An empty header / chunk.
        (
            args!["BF.LOADCHUNK", "k", "1", ""],
            err(BAD_DATA),
            "empty header",
        ),
    ];
    run(&mut c, &rows);
}

#[test]
fn non_utf8_bytes() {
    let (_s, mut c) = setup();
    let item = b"\xff\xfe\x00\x80 item";
    let key = b"\xc3\x28 key";
    let rows = vec![
        (args!["BF.ADD", "f", item], W::Int(1), "binary item"),
        (args!["BF.EXISTS", "f", item], W::Int(1), "binary item"),
        (
            args!["BF.EXISTS", "f", b"\xff\xfe\x00\x81 item"],
            W::Int(0),
            "one bit off",
        ),
        (
            args!["BF.MADD", "f", item, b"\x00"],
            W::Ints(vec![0, 1]),
            "binary items",
        ),
        (
            args!["BF.MEXISTS", "f", item, b"\x00"],
            W::Ints(vec![1, 1]),
            "binary",
        ),
        (
            args!["BF.INSERT", "f", "ITEMS", b"\x80\x80"],
            W::Ints(vec![1]),
            "binary item",
        ),
        (args!["BF.RESERVE", key, "0.01", "100"], W::Ok, "binary key"),
        (args!["BF.ADD", key, item], W::Int(1), "binary key"),
        (args!["BF.MADD", key, item], W::Ints(vec![0]), "binary key"),
        (
            args!["BF.INSERT", key, "ITEMS", "q"],
            W::Ints(vec![1]),
            "binary key",
        ),
        (args!["BF.EXISTS", key, item], W::Int(1), "binary key"),
        (
            args!["BF.MEXISTS", key, item, "q"],
            W::Ints(vec![1, 1]),
            "binary key",
        ),
        (args!["BF.CARD", key], W::Int(2), "binary key"),
        (args!["BF.INFO", key], W::Array(10), "binary key"),
        (args!["BF.DEBUG", key], W::Array(2), "binary key"),
        (args!["BF.SCANDUMP", key, "0"], W::Array(2), "binary key"),
        (
            args!["BF.LOADCHUNK", key, "9", b"\xff"],
            W::Ok,
            "binary key and data",
        ),
        // As numbers: the documented "bad ..." errors.
        (
            args!["BF.RESERVE", "k", b"\xff", "100"],
            err(BAD_RATE),
            "binary error rate",
        ),
        (
            args!["BF.RESERVE", "k", b"0.0\xff1", "100"],
            err(BAD_RATE),
            "binary error rate",
        ),
        (
            args!["BF.RESERVE", "k", "0.01", b"\xff"],
            err(BAD_CAP),
            "binary capacity",
        ),
        (
            args!["BF.RESERVE", "k", "0.01", b"1\xff0"],
            err(BAD_CAP),
            "binary capacity",
        ),
        (
            args!["BF.RESERVE", "k", "0.01", "100", "EXPANSION", b"\xff"],
            err(BAD_EXP),
            "binary expansion",
        ),
        (
            args!["BF.INSERT", "k", "ERROR", b"\xff", "ITEMS", "a"],
            err(INSERT_RATE),
            "binary",
        ),
        (
            args!["BF.INSERT", "k", "CAPACITY", b"\xff", "ITEMS", "a"],
            err(INSERT_CAP),
            "binary",
        ),
        (
            args!["BF.INSERT", "k", "EXPANSION", b"\xff", "ITEMS", "a"],
            err(INSERT_EXP),
            "binary",
        ),
        (
            args!["BF.SCANDUMP", "f", b"\xff"],
            err(SCANDUMP_ITER),
            "binary iterator",
        ),
        (
            args!["BF.LOADCHUNK", "f", b"\xff", "x"],
            err(LOADCHUNK_ITER),
            "binary iterator",
        ),
        // Unspecified: a non-UTF-8 option or field is echoed lossily.
        (
            args!["BF.RESERVE", "k", "0.01", "100", b"\xff"],
            W::ErrPrefix("ERR unknown option '".into()),
            "binary option",
        ),
        (
            args!["BF.INSERT", "k", b"\xffITEMS", "ITEMS", "a"],
            err(UNKNOWN_ARG),
            "binary option",
        ),
        (
            args!["BF.INFO", "f", b"\xff"],
            err(INFO_FIELD),
            "binary field",
        ),
    ];
    run(&mut c, &rows);
}

#[test]
fn one_mebibyte_items() {
    let (_s, mut c) = setup();
    let mib = |fill: u8| vec![fill; 1 << 20];
    let mut last_differs = mib(b'a');
    *last_differs.last_mut().unwrap() = b'b';
    let rows = vec![
        (args!["BF.ADD", "big", mib(b'a')], W::Int(1), "1 MiB item"),
        (
            args!["BF.EXISTS", "big", mib(b'a')],
            W::Int(1),
            "1 MiB item",
        ),
        (args!["BF.ADD", "big", mib(b'a')], W::Int(0), "added again"),
        (
            args!["BF.EXISTS", "big", last_differs.clone()],
            W::Int(0),
            "last byte differs",
        ),
        (
            args!["BF.MADD", "big", mib(b'a'), mib(b'b')],
            W::Ints(vec![0, 1]),
            "1 MiB items",
        ),
        (
            args!["BF.MEXISTS", "big", mib(b'b'), mib(b'a')],
            W::Ints(vec![1, 1]),
            "1 MiB",
        ),
        (
            args!["BF.INSERT", "big", "ITEMS", mib(b'c')],
            W::Ints(vec![1]),
            "1 MiB item",
        ),
        (
            args!["BF.EXISTS", "big", mib(b'c')],
            W::Int(1),
            "1 MiB item",
        ),
        (
            args!["BF.MEXISTS", "big", last_differs, mib(b'd')],
            W::Ints(vec![0, 0]),
            "absent",
        ),
        (args!["BF.CARD", "big"], W::Int(3), "a, b, c"),
        // A 1 MiB key name.
        (
            args!["BF.RESERVE", mib(b'k'), "0.01", "10"],
            W::Ok,
            "1 MiB key",
        ),
        (
            args!["BF.ADD", mib(b'k'), mib(b'a')],
            W::Int(1),
            "1 MiB key and item",
        ),
        (
            args!["BF.EXISTS", mib(b'k'), mib(b'a')],
            W::Int(1),
            "1 MiB key and item",
        ),
        (args!["BF.CARD", mib(b'k')], W::Int(1), "1 MiB key"),
    ];
    run(&mut c, &rows);
    // The reference hashing agrees on what a 1 MiB item sets.
    let mut chain = guava_model::Chain::scaling(0.01, 100, 2);
    assert_eq!(chain.add(&mib(b'a')), Added::Yes);
    assert!(chain.contains(&mib(b'a')));
}

#[test]
fn odd_numbers() {
    let (_s, mut c) = setup();
    let mut rows = Vec::new();
    // Error rates, through RESERVE and INSERT ERROR.
    let rates: [(&str, &str); 18] = [
        ("-0.01", RATE_RANGE),
        ("0", RATE_RANGE),
        ("-0", RATE_RANGE),
        ("1", RATE_RANGE),
        ("1.5", RATE_RANGE),
        ("99999999999999999999", RATE_RANGE),
        ("1e400", BAD_RATE),
        ("-1e400", BAD_RATE),
        ("1e-400", BAD_RATE),
        ("inf", RATE_RANGE),
        ("-inf", RATE_RANGE),
        ("infinity", RATE_RANGE),
        ("NaN", BAD_RATE),
        ("nan", BAD_RATE),
        ("0.01abc", BAD_RATE),
        ("abc", BAD_RATE),
        (" 0.01", BAD_RATE),
        ("0,01", BAD_RATE),
    ];
    for (p, e) in rates {
        rows.push((args!["BF.RESERVE", "k", p, "100"], err(e), "error rate"));
        rows.push((
            args!["BF.INSERT", "k", "ERROR", p, "ITEMS", "a"],
            err(INSERT_RATE),
            "ERROR",
        ));
    }
    // Capacities, through RESERVE and INSERT CAPACITY.
    let caps: [(&str, &str); 15] = [
        ("-1", CAP_RANGE),
        ("0", CAP_RANGE),
        ("-0", BAD_CAP),
        ("-9223372036854775808", CAP_RANGE),
        ("1.5", BAD_CAP),
        ("1e3", BAD_CAP),
        ("99999999999999999999", BAD_CAP),
        ("18446744073709551615", BAD_CAP),
        ("1e400", BAD_CAP),
        ("NaN", BAD_CAP),
        ("inf", BAD_CAP),
        ("-inf", BAD_CAP),
        ("0x10", BAD_CAP),
        ("10 ", BAD_CAP),
        ("ten", BAD_CAP),
    ];
    for (n, e) in caps {
        rows.push((args!["BF.RESERVE", "k", "0.01", n], err(e), "capacity"));
        rows.push((
            args!["BF.INSERT", "k", "CAPACITY", n, "ITEMS", "a"],
            err(INSERT_CAP),
            "CAPACITY",
        ));
    }
    // Expansions, through RESERVE and INSERT.
    let exps: [(&str, &str); 10] = [
        ("-1", EXP_RANGE),
        ("32769", EXP_RANGE),
        ("-9223372036854775808", EXP_RANGE),
        ("99999999999999999999", BAD_EXP),
        ("1.5", BAD_EXP),
        ("1e400", BAD_EXP),
        ("NaN", BAD_EXP),
        ("inf", BAD_EXP),
        ("-inf", BAD_EXP),
        ("2x", BAD_EXP),
    ];
    for (n, e) in exps {
        rows.push((
            args!["BF.RESERVE", "k", "0.01", "100", "EXPANSION", n],
            err(e),
            "expansion",
        ));
        rows.push((
            args!["BF.INSERT", "k", "EXPANSION", n, "ITEMS", "a"],
            err(INSERT_EXP),
            "EXPANSION",
        ));
    }
    // Iterators: below 0, SCANDUMP has nothing to send and a LOADCHUNK chunk is bad data
    // (RedisBloom's answers); what is not an integer is refused as such.
    for it in ["-1", "-9223372036854775808"] {
        rows.push((
            args!["BF.SCANDUMP", "f", it],
            W::Is(Value::Array(vec![Value::Int(0), Value::BulkString(vec![])])),
            "negative iterator",
        ));
        rows.push((
            args!["BF.LOADCHUNK", "f", it, "x"],
            err(BAD_DATA),
            "negative",
        ));
    }
    let iters: [&str; 7] = [
        "1.5",
        "99999999999999999999",
        "9223372036854775808",
        "1e400",
        "NaN",
        "inf",
        "-inf",
    ];
    for it in iters {
        rows.push((
            args!["BF.SCANDUMP", "f", it],
            err(SCANDUMP_ITER),
            "iterator",
        ));
        rows.push((
            args!["BF.LOADCHUNK", "f", it, "x"],
            err(LOADCHUNK_ITER),
            "iterator",
        ));
    }
    // Far past the end is the end.
    rows.push((
        args!["BF.SCANDUMP", "f", "9223372036854775807"],
        W::Is(Value::Array(vec![Value::Int(0), Value::BulkString(vec![])])),
        "iterator past the end",
    ));
    // Good values at the edges.
    rows.extend([
        (
            args!["BF.RESERVE", "e1", "0.999999", "1"],
            W::Ok,
            "error rate just under 1",
        ),
        (
            args!["BF.RESERVE", "e2", "1e-300", "1"],
            W::Ok,
            "tiny error rate",
        ),
        (
            args!["BF.RESERVE", "e3", "0.01", "1", "EXPANSION", "32768"],
            W::Ok,
            "max expansion",
        ),
        (
            args!["BF.INFO", "e3", "EXPANSION"],
            info1(Value::Int(32768)),
            "max expansion",
        ),
        (
            args!["BF.RESERVE", "e4", "0.01", "10", "EXPANSION", "0"],
            W::Ok,
            "expansion 0",
        ),
        (
            args!["BF.INFO", "e4", "EXPANSION"],
            info1(Value::Nil),
            "expansion 0 is non-scaling",
        ),
        (
            args![
                "BF.INSERT",
                "e5",
                "ERROR",
                "1e-300",
                "CAPACITY",
                "1",
                "ITEMS",
                "a"
            ],
            W::Ints(vec![1]),
            "tiny",
        ),
    ]);
    run(&mut c, &rows);
    assert!(!key_exists(&mut c, "k"));
}

#[test]
fn missing_repeated_and_cased_options() {
    let (_s, mut c) = setup();
    let mut r7 = guava_model::Chain::nonscaling(0.002, 100);
    assert_eq!(r7.add(b"a"), Added::Yes);
    let r7_debug: Vec<Value> = r7
        .debug_lines()
        .into_iter()
        .map(|l| Value::BulkString(l.into_bytes()))
        .collect();
    let rows = vec![
        // Options without their value.
        (
            args!["BF.RESERVE", "k", "0.01", "100", "EXPANSION"],
            err("ERR no expansion"),
            "no value",
        ),
        (
            args!["BF.RESERVE", "k", "0.01", "100", "expansion"],
            err("ERR no expansion"),
            "no value, lower case: the error names the option canonically",
        ),
        (
            args!["BF.INSERT", "k", "CAPACITY", "100", "ERROR"],
            err(INSERT_ARITY),
            "no value",
        ),
        (
            args!["BF.INSERT", "k", "ERROR", "0.01", "CAPACITY"],
            err(INSERT_ARITY),
            "no value",
        ),
        (
            args!["BF.INSERT", "k", "ERROR", "0.01", "EXPANSION"],
            err(INSERT_ARITY),
            "no value",
        ),
        // Unspecified: an option takes the next argument as its value, even "ITEMS".
        (
            args!["BF.INSERT", "k", "CAPACITY", "ITEMS", "a"],
            err(INSERT_CAP),
            "ITEMS as the capacity",
        ),
        // Unspecified: ITEMS with no item, or no ITEMS at all, is a wrong argument count.
        (
            args!["BF.INSERT", "k", "ITEMS"],
            err(INSERT_ARITY),
            "no items",
        ),
        (
            args!["BF.INSERT", "k", "CAPACITY", "100", "ITEMS"],
            err(INSERT_ARITY),
            "no items",
        ),
        (
            args!["BF.INSERT", "k", "CAPACITY", "100", "ERROR", "0.1"],
            err(INSERT_ARITY),
            "no ITEMS",
        ),
        // Everything after ITEMS is an item.
        (
            args!["BF.INSERT", "i", "ITEMS", "ITEMS", "CAPACITY", "NONSCALING"],
            W::Ints(vec![1, 1, 1]),
            "keywords as items",
        ),
        (
            args!["BF.INFO", "i", "CAPACITY"],
            info1(Value::Int(100)),
            "defaults applied",
        ),
        // A key named like an option is a key.
        (
            args!["BF.RESERVE", "NONSCALING", "0.01", "100"],
            W::Ok,
            "key named NONSCALING",
        ),
        (
            args!["BF.INFO", "NONSCALING", "EXPANSION"],
            info1(Value::Int(2)),
            "still scaling",
        ),
        // Repeated options: BF.RESERVE takes at most 7 arguments and the first EXPANSION;
        // BF.INSERT keeps the last of each.
        (
            args![
                "BF.RESERVE",
                "r1",
                "0.01",
                "100",
                "EXPANSION",
                "4",
                "EXPANSION",
                "8"
            ],
            err(RESERVE_ARITY),
            "EXPANSION twice: more than 7 arguments, as RedisBloom counts",
        ),
        (
            args!["BF.INFO", "r1", "EXPANSION"],
            err("ERR not found"),
            "not created",
        ),
        (
            args![
                "BF.INSERT",
                "r2",
                "EXPANSION",
                "4",
                "EXPANSION",
                "8",
                "ITEMS",
                "a"
            ],
            W::Ints(vec![1]),
            "EXPANSION twice",
        ),
        (
            args!["BF.INFO", "r2", "EXPANSION"],
            info1(Value::Int(8)),
            "last EXPANSION wins",
        ),
        (
            args![
                "BF.RESERVE",
                "r3",
                "0.01",
                "100",
                "NONSCALING",
                "NONSCALING"
            ],
            W::Ok,
            "NONSCALING twice",
        ),
        (
            args!["BF.INFO", "r3", "EXPANSION"],
            info1(Value::Nil),
            "non-scaling",
        ),
        (
            args![
                "BF.RESERVE",
                "r4",
                "0.01",
                "100",
                "EXPANSION",
                "4",
                "EXPANSION",
                "0",
                "NONSCALING"
            ],
            err(RESERVE_ARITY),
            "more than 7 arguments",
        ),
        (
            args![
                "BF.RESERVE",
                "r5",
                "0.01",
                "100",
                "EXPANSION",
                "0",
                "EXPANSION",
                "4",
                "NONSCALING"
            ],
            err(RESERVE_ARITY),
            "more than 7 arguments",
        ),
        (
            args![
                "BF.RESERVE",
                "r5",
                "0.01",
                "100",
                "NONSCALING",
                "EXPANSION",
                "4"
            ],
            err(NO_EXPAND),
            "NONSCALING then EXPANSION",
        ),
        (
            args![
                "BF.INSERT",
                "r5",
                "EXPANSION",
                "4",
                "NONSCALING",
                "ITEMS",
                "a"
            ],
            W::Ints(vec![1]),
            "INSERT takes EXPANSION with NONSCALING (RedisBloom 8): non-scaling",
        ),
        (
            args!["BF.INFO", "r5", "EXPANSION"],
            info1(Value::Nil),
            "non-scaling",
        ),
        (
            args![
                "BF.INSERT",
                "r6",
                "CAPACITY",
                "100",
                "CAPACITY",
                "500",
                "ITEMS",
                "a"
            ],
            W::Ints(vec![1]),
            "CAPACITY twice",
        ),
        (
            args!["BF.INFO", "r6", "CAPACITY"],
            info1(Value::Int(500)),
            "last CAPACITY wins",
        ),
        (
            args![
                "BF.INSERT",
                "r7",
                "ERROR",
                "0.5",
                "ERROR",
                "0.002",
                "NONSCALING",
                "ITEMS",
                "a"
            ],
            W::Ints(vec![1]),
            "ERROR twice",
        ),
        (
            args!["BF.DEBUG", "r7"],
            W::Is(Value::Array(r7_debug)),
            "last ERROR wins",
        ),
        (
            args!["BF.INSERT", "nothere", "NOCREATE", "NOCREATE", "ITEMS", "a"],
            err("ERR not found"),
            "NOCREATE twice",
        ),
        // Unspecified: option values are checked even when the filter exists.
        (
            args!["BF.INSERT", "f", "CAPACITY", "0", "ITEMS", "a"],
            err(INSERT_CAP),
            "existing",
        ),
        (
            args!["BF.INSERT", "f", "ERROR", "2", "ITEMS", "a"],
            err(INSERT_RATE),
            "existing",
        ),
        // Lower and mixed case options and fields.
        (
            args!["BF.RESERVE", "m1", "0.01", "100", "expansion", "3"],
            W::Ok,
            "lower case",
        ),
        (
            args!["BF.INFO", "m1", "expansion"],
            info1(Value::Int(3)),
            "lower case field",
        ),
        (
            args!["BF.RESERVE", "m2", "0.01", "100", "ExPaNsIoN", "5"],
            W::Ok,
            "mixed case",
        ),
        (
            args!["BF.INFO", "m2", "Expansion"],
            info1(Value::Int(5)),
            "mixed case field",
        ),
        (
            args!["BF.RESERVE", "m3", "0.01", "100", "nonscaling"],
            W::Ok,
            "lower case",
        ),
        (
            args!["BF.INFO", "m3", "eXpAnSiOn"],
            info1(Value::Nil),
            "lower case NONSCALING",
        ),
        (
            args!["BF.RESERVE", "m4", "0.01", "100", "NonScaling"],
            W::Ok,
            "mixed case",
        ),
        (
            args!["BF.INFO", "m4", "EXPANSION"],
            info1(Value::Nil),
            "mixed case NONSCALING",
        ),
        (
            args![
                "BF.INSERT",
                "m5",
                "capacity",
                "50",
                "error",
                "0.1",
                "expansion",
                "3",
                "items",
                "a",
                "b"
            ],
            W::Ints(vec![1, 1]),
            "lower case INSERT",
        ),
        (
            args!["BF.INFO", "m5", "capacity"],
            info1(Value::Int(50)),
            "lower case",
        ),
        (
            args!["BF.INFO", "m5", "Filters"],
            info1(Value::Int(1)),
            "mixed case",
        ),
        (
            args!["BF.INFO", "m5", "items"],
            info1(Value::Int(2)),
            "lower case",
        ),
        (args!["BF.INFO", "m5", "size"], W::Array(1), "lower case"),
        (
            args!["BF.INSERT", "m6", "NonScaling", "Items", "a"],
            W::Ints(vec![1]),
            "mixed case INSERT",
        ),
        (
            args!["BF.INFO", "m6", "EXPANSION"],
            info1(Value::Nil),
            "mixed case NONSCALING",
        ),
        (
            args!["BF.INSERT", "m7", "nocreate", "items", "a"],
            err("ERR not found"),
            "nocreate",
        ),
    ];
    run(&mut c, &rows);
}

#[test]
fn unknown_options_and_fields() {
    let (_s, mut c) = setup();
    let unknown = |o: &str| err(&format!("ERR unknown option '{o}'"));
    let rows = vec![
        (
            args!["BF.RESERVE", "k", "0.01", "100", "FOO"],
            unknown("FOO"),
            "unknown",
        ),
        // Unspecified: the case of the echo, as sent.
        (
            args!["BF.RESERVE", "k", "0.01", "100", "foo"],
            unknown("foo"),
            "lower case",
        ),
        (
            args!["BF.RESERVE", "k", "0.01", "100", "FOO", "1"],
            unknown("FOO"),
            "with a value",
        ),
        (
            args!["BF.RESERVE", "k", "0.01", "100", "ITEMS", "a"],
            unknown("ITEMS"),
            "INSERT's",
        ),
        (
            args!["BF.RESERVE", "k", "0.01", "100", "NOCREATE"],
            unknown("NOCREATE"),
            "INSERT's",
        ),
        (
            args!["BF.RESERVE", "k", "0.01", "100", "CAPACITY", "5"],
            unknown("CAPACITY"),
            "INSERT's",
        ),
        (
            args!["BF.RESERVE", "k", "0.01", "100", "EXPANSIONS", "2"],
            unknown("EXPANSIONS"),
            "typo",
        ),
        (
            args!["BF.RESERVE", "k", "0.01", "100", "NONSCALING", "X"],
            unknown("X"),
            "after a flag",
        ),
        (
            args!["BF.RESERVE", "k", "0.01", "100", "EXPANSION", "2", "3"],
            unknown("3"),
            "extra value",
        ),
        (
            args!["BF.INSERT", "k", "FOO", "ITEMS", "a"],
            err(UNKNOWN_ARG),
            "no option starts with F (RedisBloom's text)",
        ),
        // Whole keywords only (RedisBloom matches INSERT options by their first letter).
        (
            args!["BF.INSERT", "k", "N", "ITEMS", "a"],
            unknown("N"),
            "first letter only",
        ),
        (
            args!["BF.INSERT", "k", "CAP", "5", "ITEMS", "a"],
            unknown("CAP"),
            "abbreviation",
        ),
        (
            args!["BF.INSERT", "k", "ERR", "0.1", "ITEMS", "a"],
            unknown("ERR"),
            "abbreviation",
        ),
        (
            args!["BF.INSERT", "k", "NONSCALINGX", "ITEMS", "a"],
            unknown("NONSCALINGX"),
            "longer",
        ),
        (
            args!["BF.INSERT", "k", "ITEM", "a"],
            unknown("ITEM"),
            "ITEM for ITEMS",
        ),
        (
            args!["BF.INFO", "f", "FOO"],
            err(INFO_FIELD),
            "unknown field",
        ),
        (args!["BF.INFO", "f", "foo"], err(INFO_FIELD), "as sent"),
        (args!["BF.INFO", "f", "ITEM"], err(INFO_FIELD), "singular"),
        (args!["BF.INFO", "f", "Capacity "], err(INFO_FIELD), "space"),
        (
            args!["BF.INFO", "f", "Number of filters"],
            err(INFO_FIELD),
            "the reply's name is no keyword",
        ),
    ];
    run(&mut c, &rows);
    assert!(!key_exists(&mut c, "k"));
}

#[test]
fn a_hundred_thousand_items_in_one_command() {
    let (_s, mut c) = setup();
    let n = 100_000;
    let items = gen_items("many-", 0..n);
    let mut oracle = guava_model::Chain::scaling(0.01, 100, 2);
    let want: Vec<Value> = items
        .iter()
        .map(|i| Value::Int((oracle.add(i) == Added::Yes) as i64))
        .collect();
    let mut args = vec![b"BF.MADD".to_vec(), b"many".to_vec()];
    args.extend(items.iter().cloned());
    match raw(&mut c, &args) {
        Value::Array(got) => {
            assert_eq!(got.len(), n, "BF.MADD reply length");
            assert!(
                got == want,
                "BF.MADD answers differ from the reference chain"
            );
        }
        other => panic!("BF.MADD answered {other:?}"),
    }
    assert_eq!(bf_debug(&mut c, "many"), oracle.debug_lines());
    args[0] = b"BF.MEXISTS".to_vec();
    match raw(&mut c, &args) {
        Value::Array(got) => {
            assert_eq!(got.len(), n, "BF.MEXISTS reply length");
            assert!(
                got.iter().all(|v| *v == Value::Int(1)),
                "an added item is missing"
            );
        }
        other => panic!("BF.MEXISTS answered {other:?}"),
    }
    let others = gen_items("other-", 0..n);
    let want: Vec<Value> = others
        .iter()
        .map(|i| Value::Int(oracle.contains(i) as i64))
        .collect();
    let mut args = vec![b"BF.MEXISTS".to_vec(), b"many".to_vec()];
    args.extend(others.iter().cloned());
    match raw(&mut c, &args) {
        Value::Array(got) => {
            assert_eq!(got.len(), n);
            assert!(
                got == want,
                "BF.MEXISTS of absent items differs from the reference"
            );
        }
        other => panic!("BF.MEXISTS answered {other:?}"),
    }
}
