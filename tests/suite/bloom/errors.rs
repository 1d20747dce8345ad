//! Every row of the module's error table (docs/errors.md), with the exact texts.

use rsbloom_test_support as common;

use common::guava_model::Chain;
use common::*;

const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";

#[test]
fn wrong_number_of_arguments() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "100"]);
    let cases: &[&[&str]] = &[
        &["BF.RESERVE"],
        &["BF.RESERVE", "k"],
        &["BF.RESERVE", "x", "0.01"],
        &["BF.ADD"],
        &["BF.ADD", "k"],
        &["BF.ADD", "k", "a", "b"],
        &["BF.MADD"],
        &["BF.MADD", "k"],
        &["BF.INSERT"],
        &["BF.INSERT", "k"],
        &["BF.EXISTS"],
        &["BF.EXISTS", "k"],
        &["BF.EXISTS", "k", "a", "b"],
        &["BF.MEXISTS"],
        &["BF.MEXISTS", "k"],
        &["BF.CARD"],
        &["BF.CARD", "k", "x"],
        &["BF.INFO"],
        &["BF.INFO", "k", "CAPACITY", "SIZE"],
        &["BF.SCANDUMP"],
        &["BF.SCANDUMP", "k"],
        &["BF.SCANDUMP", "k", "0", "x"],
        &["BF.LOADCHUNK"],
        &["BF.LOADCHUNK", "k", "1"],
        &["BF.LOADCHUNK", "k", "1", "d", "x"],
        &["BF.DEBUG"],
        &["BF.DEBUG", "k", "x"],
    ];
    for args in cases {
        let name = args[0].to_lowercase();
        let want = format!("ERR wrong number of arguments for '{name}' command");
        expect_err(&mut c, args, &want);
        // Whatever the case it was sent in, the name in the error is lower case.
        let mut mixed: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        mixed[0] = mixed[0].replace("BF.", "Bf.");
        expect_err(&mut c, &mixed, &want);
    }
    // Nothing was changed by the failed calls.
    expect_int(&mut c, &["BF.CARD", "k"], 0);
    expect_int(&mut c, &["EXISTS", "x"], 0);
}

#[test]
fn wrong_type() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["SET", "s", "value"]);
    let cases: &[&[&str]] = &[
        &["BF.ADD", "s", "a"],
        &["BF.MADD", "s", "a", "b"],
        &["BF.INSERT", "s", "ITEMS", "a"],
        &["BF.INSERT", "s", "NOCREATE", "ITEMS", "a"],
        &["BF.CARD", "s"],
        &["BF.INFO", "s"],
        &["BF.INFO", "s", "CAPACITY"],
        &["BF.DEBUG", "s"],
        &["BF.SCANDUMP", "s", "0"],
        &["BF.LOADCHUNK", "s", "65", "0123456789abcdef"],
        // Whatever the data: a damaged header, an empty one, a chunk.
        &["BF.LOADCHUNK", "s", "1", "garbage"],
        &["BF.LOADCHUNK", "s", "1", ""],
        &["BF.LOADCHUNK", "s", "2", "x"],
    ];
    for args in cases {
        expect_err(&mut c, args, WRONGTYPE);
    }
    // As in RedisBloom, the existence checks answer 0 for a key of another type.
    expect_int(&mut c, &["BF.EXISTS", "s", "a"], 0);
    expect_ints(&mut c, &["BF.MEXISTS", "s", "a", "b"], &[0, 0]);
    // The key's type is checked before whether it exists, and a chunk iterator that is not
    // a number before the type (RedisBloom's order).
    expect_err(
        &mut c,
        &["BF.RESERVE", "s", "0.01", "100", "NONSCALING"],
        WRONGTYPE,
    );
    expect_err(
        &mut c,
        &["BF.LOADCHUNK", "s", "x", "data"],
        "ERR Second argument must be numeric",
    );
    // A valid header too (a real filter's), and the string is left as it was.
    expect_ok(&mut c, &["BF.RESERVE", "h", "0.01", "100"]);
    let header = match raw(&mut c, &["BF.SCANDUMP", "h", "0"]) {
        redis::Value::Array(step) => match &step[1] {
            redis::Value::BulkString(bytes) => bytes.clone(),
            other => panic!("SCANDUMP header: {other:?}"),
        },
        other => panic!("SCANDUMP: {other:?}"),
    };
    expect_err(
        &mut c,
        &[&b"BF.LOADCHUNK"[..], b"s", b"1", &header],
        WRONGTYPE,
    );
    assert_eq!(as_text(&raw(&mut c, &["GET", "s"])), "value");
    // RESERVE refuses an existing filter.
    expect_ok(&mut c, &["BF.RESERVE", "f", "0.01", "100"]);
    expect_err(
        &mut c,
        &["BF.RESERVE", "f", "0.01", "100"],
        "ERR item exists",
    );
    assert_eq!(as_text(&raw(&mut c, &["GET", "s"])), "value");
    // And the other way round: string commands on a filter.
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "100"]);
    expect_err(&mut c, &["GET", "k"], WRONGTYPE);
}

#[test]
fn not_found() {
    let s = Server::start();
    let mut c = s.conn();
    expect_err(&mut c, &["BF.INFO", "missing"], "ERR not found");
    expect_err(&mut c, &["BF.INFO", "missing", "CAPACITY"], "ERR not found");
    expect_err(&mut c, &["BF.DEBUG", "missing"], "ERR not found");
    expect_err(&mut c, &["BF.SCANDUMP", "missing", "0"], "ERR not found");
    expect_err(
        &mut c,
        &["BF.INSERT", "missing", "NOCREATE", "ITEMS", "a"],
        "ERR not found",
    );
    // A data chunk (not the header) for a key that does not exist.
    expect_ok(&mut c, &["BF.RESERVE", "src", "0.01", "100"]);
    let chunks = scandump(&mut c, "src");
    let data = &chunks[1];
    let iter = data.next.to_string();
    let args: [&[u8]; 4] = [b"BF.LOADCHUNK", b"missing", iter.as_bytes(), &data.data];
    expect_err(&mut c, &args, "ERR not found");
    expect_int(&mut c, &["EXISTS", "missing"], 0);
}

#[test]
fn reserve_on_existing_key() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "100"]);
    expect_int(&mut c, &["BF.ADD", "k", "a"], 1);
    expect_err(
        &mut c,
        &["BF.RESERVE", "k", "0.01", "100"],
        "ERR item exists",
    );
    expect_err(
        &mut c,
        &["BF.RESERVE", "k", "0.1", "5", "NONSCALING"],
        "ERR item exists",
    );
    // The filter is untouched.
    let mut chain = Chain::scaling(0.01, 100, 2);
    chain.add(b"a");
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
}

#[test]
fn bad_error_rate() {
    let s = Server::start();
    let mut c = s.conn();
    // Not a number to the server's double parser (RedisBloom's), or NaN, or an underflow to
    // 0 or an overflow (`1e-400`, `1e400`). BF.INSERT has one text for both kinds.
    for bad in [
        "abc", "0.01x", "", "0x", " 0.1", "0.1 ", "nan", "1e-400", "1e400",
    ] {
        expect_err(
            &mut c,
            &["BF.RESERVE", "k", bad, "100"],
            "ERR bad error rate",
        );
        expect_err(
            &mut c,
            &["BF.INSERT", "k", "ERROR", bad, "ITEMS", "a"],
            "Bad error rate",
        );
    }
    for out in ["0", "1", "-0.5", "1.5", "2", "1e300", "-0"] {
        let want = "ERR error rate must be in the range (0.000000, 1.000000)";
        expect_err(&mut c, &["BF.RESERVE", "k", out, "100"], want);
        expect_err(
            &mut c,
            &["BF.INSERT", "k", "ERROR", out, "ITEMS", "a"],
            "Bad error rate",
        );
    }
    // The error rate is checked before the capacity.
    expect_err(
        &mut c,
        &["BF.RESERVE", "k", "0", "0"],
        "ERR error rate must be in the range (0.000000, 1.000000)",
    );
    expect_int(&mut c, &["EXISTS", "k"], 0);
    // Exponents and a denormal are numbers (RedisBloom's parser takes them).
    expect_ok(&mut c, &["BF.RESERVE", "e1", "1e-2", "100"]);
    expect_ok(&mut c, &["BF.RESERVE", "e2", "5E-1", "100"]);
}

#[test]
fn bad_capacity() {
    let s = Server::start();
    let mut c = s.conn();
    // Redis's string2ll: no sign but `-`, no leading zeros, no spaces, within 64 bits.
    for bad in [
        "abc",
        "1.5",
        "",
        "10x",
        "+10",
        "010",
        "-0",
        " 1",
        "1e3",
        "0x10",
        "9223372036854775808",
    ] {
        expect_err(
            &mut c,
            &["BF.RESERVE", "k", "0.01", bad],
            "ERR bad capacity",
        );
        expect_err(
            &mut c,
            &["BF.INSERT", "k", "CAPACITY", bad, "ITEMS", "a"],
            "Bad capacity",
        );
    }
    for out in ["0", "-1", "-100", "1073741825", "9223372036854775807"] {
        let want = "ERR capacity must be in the range [1, 1073741824]";
        expect_err(&mut c, &["BF.RESERVE", "k", "0.01", out], want);
        expect_err(
            &mut c,
            &["BF.INSERT", "k", "CAPACITY", out, "ITEMS", "a"],
            "Bad capacity",
        );
    }
    expect_int(&mut c, &["EXISTS", "k"], 0);
    expect_ok(&mut c, &["BF.RESERVE", "one", "0.01", "1"]);
}

#[test]
fn bad_expansion() {
    let s = Server::start();
    let mut c = s.conn();
    let reserve = |e: &'static str| ["BF.RESERVE", "k", "0.01", "100", "EXPANSION", e];
    for bad in ["abc", "1.5", "", "+2", "02"] {
        expect_err(&mut c, &reserve(bad), "ERR bad expansion");
        expect_err(
            &mut c,
            &["BF.INSERT", "k", "EXPANSION", bad, "ITEMS", "a"],
            "Bad expansion",
        );
    }
    for out in ["-1", "32769", "100000"] {
        let want = "ERR expansion must be in the range [0, 32768]";
        expect_err(&mut c, &reserve(out), want);
        expect_err(
            &mut c,
            &["BF.INSERT", "k", "EXPANSION", out, "ITEMS", "a"],
            "Bad expansion",
        );
    }
    // BF.RESERVE: NONSCALING and an expansion other than 0 conflict, wherever they are, and
    // the conflict is found before the range.
    let want = "Nonscaling filters cannot expand";
    for args in [
        &[
            "BF.RESERVE",
            "k",
            "0.01",
            "100",
            "EXPANSION",
            "2",
            "NONSCALING",
        ][..],
        &[
            "BF.RESERVE",
            "k",
            "0.01",
            "100",
            "NONSCALING",
            "EXPANSION",
            "4",
        ],
        &[
            "BF.RESERVE",
            "k",
            "0.01",
            "100",
            "NONSCALING",
            "EXPANSION",
            "-1",
        ],
    ] {
        expect_err(&mut c, args, want);
    }
    expect_int(&mut c, &["EXISTS", "k"], 0);
    // An EXPANSION without its value.
    expect_err(
        &mut c,
        &["BF.RESERVE", "k", "0.01", "100", "EXPANSION"],
        "ERR no expansion",
    );
    expect_err(
        &mut c,
        &["BF.RESERVE", "k", "0.01", "100", "NONSCALING", "EXPANSION"],
        "ERR no expansion",
    );
    // BF.INSERT takes NONSCALING with any expansion (client libraries send both): the
    // filter does not scale. EXPANSION 0 means non-scaling everywhere.
    for (key, opts) in [
        ("i1", &["NONSCALING", "EXPANSION", "2"][..]),
        ("i2", &["EXPANSION", "3", "NONSCALING"]),
        ("i3", &["EXPANSION", "0"]),
    ] {
        let mut args = vec!["BF.INSERT", key];
        args.extend_from_slice(opts);
        args.extend_from_slice(&["ITEMS", "a"]);
        expect_ints(&mut c, &args, &[1]);
        assert_eq!(
            no_expansion(&mut c, key),
            "a non-scaling filter",
            "{args:?}"
        );
    }
    expect_ok(&mut c, &reserve("0"));
    assert_eq!(no_expansion(&mut c, "k"), "a non-scaling filter");
}

/// What BF.INFO's EXPANSION says of the key: RedisBloom's nil for a non-scaling filter.
fn no_expansion(c: &mut redis::Connection, key: &str) -> String {
    match raw(c, &["BF.INFO", key, "EXPANSION"]) {
        redis::Value::Array(v) if v == [redis::Value::Nil] => "a non-scaling filter".into(),
        other => format!("{other:?}"),
    }
}

#[test]
fn unknown_options_and_missing_values() {
    let s = Server::start();
    let mut c = s.conn();
    // BF.RESERVE: RedisBloom ignores words it does not know; rsbloom refuses them, once
    // RedisBloom's own checks have passed (its errors come first).
    expect_err(
        &mut c,
        &["BF.RESERVE", "k", "0.01", "100", "FOO"],
        "ERR unknown option 'FOO'",
    );
    expect_err(
        &mut c,
        &["BF.RESERVE", "k", "0.01", "100", "NONSCALING", "FOO"],
        "ERR unknown option 'FOO'",
    );
    expect_err(
        &mut c,
        &["BF.RESERVE", "k", "0.01", "100", "FOO", "EXPANSION"],
        "ERR no expansion",
    );
    // A repeated option: the first EXPANSION counts, as in RedisBloom.
    expect_ok(
        &mut c,
        &[
            "BF.RESERVE",
            "r",
            "0.01",
            "100",
            "EXPANSION",
            "3",
            "EXPANSION",
        ],
    );
    expect_ints(&mut c, &["BF.INFO", "r", "EXPANSION"], &[3]);
    // Bytes that cannot be printed are escaped in the echo (a NUL would end a C string).
    expect_err(
        &mut c,
        &[&b"BF.RESERVE"[..], b"k", b"0.01", b"100", b"a\x00'\\\xff"],
        r"ERR unknown option 'a\x00\x27\x5c\xff'",
    );
    expect_err(
        &mut c,
        &[&b"BF.EXPORT"[..], b"k", b"\x00x"],
        r"ERR unknown format '\x00x' (supported: GUAVA)",
    );
    // BF.INSERT tells options by their first letters: a word none fits is RedisBloom's
    // error; one that fits but is not the whole keyword is refused after the loop.
    for word in ["FOO", "", "xITEMS"] {
        expect_err(
            &mut c,
            &["BF.INSERT", "k", word, "ITEMS", "a"],
            "Unknown argument received",
        );
    }
    expect_err(
        &mut c,
        &["BF.INSERT", "k", "CAP", "10", "ITEMS", "a"],
        "ERR unknown option 'CAP'",
    );
    expect_err(
        &mut c,
        &["BF.INSERT", "k", "CAP", "x", "ITEMS", "a"],
        "Bad capacity",
    );
    expect_err(
        &mut c,
        &["BF.INSERT", "k", "I", "a"],
        "ERR unknown option 'I'",
    );
    // An option without its value, or no item after ITEMS: a wrong number of arguments.
    let arity = "ERR wrong number of arguments for 'bf.insert' command";
    for args in [
        &["BF.INSERT", "k", "NOCREATE", "EXPANSION"][..],
        &["BF.INSERT", "k", "NOCREATE", "CAPACITY"],
        &["BF.INSERT", "k", "NOCREATE", "ERROR"],
        &[
            "BF.INSERT",
            "k",
            "ERROR",
            "0.1",
            "EXPANSION",
            "1",
            "CAPACITY",
        ],
        &["BF.INSERT", "k", "NOCREATE", "ITEMS"],
        &["BF.INSERT", "k", "NOCREATE", "NONSCALING"],
    ] {
        expect_err(&mut c, args, arity);
    }
    expect_int(&mut c, &["EXISTS", "k"], 0);
}

/// Parse `ERR filter would need <n> bytes, over bf.max-filter-bytes (<limit>)`.
fn size_limit_numbers(text: &str) -> (u64, u64) {
    let rest = text
        .strip_prefix("ERR filter would need ")
        .unwrap_or_else(|| panic!("unexpected size-limit error {text:?}"));
    let (n, rest) = rest
        .split_once(" bytes, over bf.max-filter-bytes (")
        .expect(text);
    let limit = rest.strip_suffix(')').expect(text);
    (n.parse().expect(text), limit.parse().expect(text))
}

#[test]
fn size_limit_on_create() {
    let s = Server::start();
    let mut c = s.conn();
    let text = expect_err_prefix(
        &mut c,
        &["BF.RESERVE", "k", "0.0001", "1073741824"],
        "ERR filter would need ",
    );
    let (need, limit) = size_limit_numbers(&text);
    assert_eq!(limit, 536_870_912);
    assert!(need > limit, "{text}");
    expect_int(&mut c, &["EXISTS", "k"], 0);

    expect_ok(&mut c, &["CONFIG", "SET", "bf.max-filter-bytes", "4096"]);
    let text = expect_err_prefix(
        &mut c,
        &["BF.RESERVE", "k", "0.001", "10000"],
        "ERR filter would need ",
    );
    let (need, limit) = size_limit_numbers(&text);
    assert_eq!(limit, 4096);
    // 10000 @ 0.001/2 needs well over 4096 bytes of bits alone.
    assert!(
        need >= Chain::scaling(0.001, 10000, 2).total_bytes(),
        "{text}"
    );
    let text = expect_err_prefix(
        &mut c,
        &["BF.INSERT", "k", "CAPACITY", "10000", "ITEMS", "a"],
        "ERR filter would need ",
    );
    assert_eq!(size_limit_numbers(&text).1, 4096);
    expect_int(&mut c, &["EXISTS", "k"], 0);
}

#[test]
fn size_limit_on_new_layer() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["CONFIG", "SET", "bf.max-filter-bytes", "4096"]);
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "100"]);
    // Layers of 100, 200, 400, 800 (errors 0.005 .. 0.000625) take 2,800 bytes of bits; a 5th
    // (1,600 @ 0.0003125) would bring the filter to 6,264.
    let mut chain = Chain::scaling(0.01, 100, 2);
    let items = gen_items("lim:", 0..5000);
    let mut next = 0;
    while chain.layers.len() < 4 || chain.layers[3].count < 800 {
        chain.add(&items[next]);
        next += 1;
    }
    assert_eq!(chain.total_bytes(), 2800);
    madd_all(&mut c, "k", &items[..next]);
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
    // The next item that is not already present needs a 5th layer.
    let fresh = items[next..]
        .iter()
        .find(|i| !chain.contains(i))
        .expect("a fresh item");
    let mut grown = chain.clone();
    assert_eq!(grown.add(fresh), common::guava_model::Added::Yes);
    assert!(
        grown.layers.len() == 5 && grown.total_bytes() > 4096,
        "test setup"
    );
    let text = expect_err_prefix(
        &mut c,
        &[&b"BF.ADD"[..], b"k", fresh],
        "ERR filter would need ",
    );
    let (need, limit) = size_limit_numbers(&text);
    assert_eq!(limit, 4096);
    assert!(need > 4096, "{text}");
    // The same error as the element of a multi-item reply.
    let v = raw(&mut c, &[&b"BF.MADD"[..], b"k", fresh]);
    match &v {
        redis::Value::Array(items) if items.len() == 1 => {
            let t = err_of(&items[0]).expect("an error element");
            assert_eq!(size_limit_numbers(&t).1, 4096);
        }
        other => panic!("BF.MADD on a filter at its size limit answered {other:?}"),
    }
    // Nothing changed.
    assert_eq!(bf_debug(&mut c, "k"), chain.debug_lines());
    expect_int(&mut c, &[&b"BF.EXISTS"[..], b"k", fresh], 0);
}

#[test]
fn nonscaling_full() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "3", "NONSCALING"]);
    let mut chain = Chain::nonscaling(0.01, 3);
    let items = gen_items("full:", 0..100);
    let mut i = 0;
    while chain.count() < 3 {
        let w = (chain.add(&items[i]) == common::guava_model::Added::Yes) as i64;
        expect_int(&mut c, &[&b"BF.ADD"[..], b"k", &items[i]], w);
        i += 1;
    }
    let fresh = items[i..]
        .iter()
        .find(|x| !chain.contains(x))
        .expect("fresh item");
    expect_err(
        &mut c,
        &[&b"BF.ADD"[..], b"k", fresh],
        "ERR non scaling filter is full",
    );
    // An item already present still answers 0, not the error.
    expect_int(&mut c, &[&b"BF.ADD"[..], b"k", &items[0]], 0);
    expect_int(&mut c, &["BF.CARD", "k"], 3);
}

#[test]
fn unknown_info_field() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "100"]);
    for field in [&b"FOO"[..], b"", b"\x00", b"CAPACITYX", b"CAP"] {
        expect_err(
            &mut c,
            &[&b"BF.INFO"[..], b"k", field],
            "Invalid information value",
        );
    }
    // The key is checked before the field.
    expect_err(&mut c, &["BF.INFO", "nokey", "FOO"], "ERR not found");
    expect_ints(&mut c, &["BF.INFO", "k", "capacity"], &[100]);
}

#[test]
fn bad_iterator() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "100"]);
    for bad in ["abc", "1.5", "", "1x", "+1", "01"] {
        expect_err(
            &mut c,
            &["BF.SCANDUMP", "k", bad],
            "Second argument must be numeric",
        );
        expect_err(
            &mut c,
            &["BF.LOADCHUNK", "k", bad, "data"],
            "ERR Second argument must be numeric",
        );
    }
    // SCANDUMP checks the key first, LOADCHUNK the iterator first.
    expect_err(&mut c, &["BF.SCANDUMP", "nokey", "x"], "ERR not found");
    expect_err(
        &mut c,
        &["BF.LOADCHUNK", "nokey", "x", "data"],
        "ERR Second argument must be numeric",
    );
    // Below 0 or past the end, SCANDUMP has nothing more to send.
    for it in ["-1", "-9223372036854775808", "100000"] {
        let v = raw(&mut c, &["BF.SCANDUMP", "k", it]);
        assert_eq!(
            v,
            redis::Value::Array(vec![
                redis::Value::Int(0),
                redis::Value::BulkString(Vec::new())
            ]),
            "BF.SCANDUMP k {it}"
        );
    }
    // A LOADCHUNK iterator other than 1 on a missing key: nothing to load into.
    expect_err(
        &mut c,
        &["BF.LOADCHUNK", "nokey", "2", "x"],
        "ERR not found",
    );
}

#[test]
fn loadchunk_bad_data() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "src", "0.01", "1000"]);
    madd_all(&mut c, "src", &gen_items("bd:", 0..500));
    let chunks = scandump(&mut c, "src");
    let header = chunks[0].data.clone();
    let bad = "ERR received bad data";

    // Garbage, an empty header, a truncated header, a corrupted magic: RedisBloom's one
    // text (why goes to the server log).
    let mut bad_headers: Vec<Vec<u8>> = vec![b"garbage".to_vec(), Vec::new()];
    bad_headers.push(header[..header.len() - 1].to_vec());
    bad_headers.push(header[..header.len() / 2].to_vec());
    let mut magic = header.clone();
    magic[0] ^= 0xff;
    bad_headers.push(magic);
    for h in &bad_headers {
        expect_err(&mut c, &[&b"BF.LOADCHUNK"[..], b"dst", b"1", h], bad);
        expect_int(&mut c, &["EXISTS", "dst"], 0);
    }

    // A valid header, then chunks that do not fit the filter, each with RedisBloom's text.
    expect_ok(&mut c, &[&b"BF.LOADCHUNK"[..], b"dst", b"1", &header]);
    let total: u64 = Chain::scaling(0.01, 1000, 2).total_bytes();
    let load = |c: &mut redis::Connection, iter: u64, data: &[u8], want: &str| {
        let it = iter.to_string();
        expect_err(
            c,
            &[&b"BF.LOADCHUNK"[..], b"dst", it.as_bytes(), data],
            want,
        );
    };
    // Past the end of the data.
    load(
        &mut c,
        total + 1000,
        &[0u8; 8],
        "ERR invalid offset - no link found",
    );
    // Starting before the data (the iterator is the chunk's length).
    load(&mut c, 8, &[0u8; 8], "ERR invalid offset - no link found");
    // An iterator below the chunk's length, or below 1.
    load(&mut c, 3, &[0u8; 8], bad);
    load(&mut c, 0, b"", bad);
    // Longer than the rest of its layer.
    let big = vec![0u8; total as usize + 64];
    load(
        &mut c,
        1 + big.len() as u64,
        &big,
        "ERR invalid chunk - Too big for current filter",
    );
    // A header sent again to the existing key is read as a chunk at iterator 1.
    expect_err(&mut c, &[&b"BF.LOADCHUNK"[..], b"dst", b"1", &header], bad);
    // An empty chunk at a valid place changes nothing and is accepted.
    expect_ok(&mut c, &["BF.LOADCHUNK", "dst", "1", ""]);
    // The good chunks still load afterwards.
    loadchunks(&mut c, "dst", &chunks[1..]);
    assert_eq!(bf_debug(&mut c, "dst"), bf_debug(&mut c, "src"));
}

#[test]
fn size_limit_for_the_largest_capacity() {
    let s = Server::start();
    let mut c = s.conn();
    for args in [
        ["BF.RESERVE", "k", "0.001", "1073741824"],
        ["BF.RESERVE", "k", "0.0000001", "1073741824"],
    ] {
        let text = expect_err_prefix(&mut c, &args, "ERR filter would need ");
        assert_eq!(size_limit_numbers(&text).1, 536_870_912);
    }
    expect_int(&mut c, &["EXISTS", "k"], 0);
}

/// Damaged LOADCHUNK headers (truncated, or any byte changed) are refused with an error or
/// make a working filter; the server never dies.
#[test]
fn loadchunk_header_fuzz() {
    let mut s = Server::start();
    let mut c = s.conn();
    expect_ok(
        &mut c,
        &["BF.RESERVE", "src", "0.01", "100", "EXPANSION", "3"],
    );
    madd_all(&mut c, "src", &gen_items("fz:", 0..400));
    let header = scandump(&mut c, "src").remove(0).data;
    let accepted =
        |t: &str| t == "ERR received bad data" || t.starts_with("ERR filter would need ");
    for cut in 0..header.len() {
        let text = expect_err_prefix(
            &mut c,
            &[&b"BF.LOADCHUNK"[..], b"cut", b"1", &header[..cut]],
            "ERR ",
        );
        assert!(accepted(&text), "header cut at {cut}: {text}");
        s.assert_alive();
    }
    for pos in 0..header.len() {
        for flip in [0x01u8, 0x10, 0x80, 0xff] {
            let mut h = header.clone();
            h[pos] ^= flip;
            let v = raw(&mut c, &[&b"BF.LOADCHUNK"[..], b"flip", b"1", &h]);
            s.assert_alive();
            if v == redis::Value::Okay {
                bf_debug(&mut c, "flip");
                raw(&mut c, &["BF.MADD", "flip", "a", "b", "c"]);
                raw(&mut c, &["BF.MEXISTS", "flip", "a", "zz"]);
                raw(&mut c, &["BF.INFO", "flip"]);
                s.assert_alive();
                expect_int(&mut c, &["DEL", "flip"], 1);
            } else {
                let text = err_of(&v).unwrap_or_else(|| panic!("answered {v:?}"));
                assert!(accepted(&text), "byte {pos} ^ {flip:#x}: {text}");
            }
        }
    }
}
