//! TOPK.* on rsbloom: RedisBloom's quirks fixed (docs/differences.md, "Top-K"), its crashes as errors,
//! the limits, and RedisBloom's own DUMPs with cut items loaded as well as they can be.

use super::common::client::*;
use super::common::files;
use super::common::raw_resp::RawConn;
use super::common::Server;
use super::{as_c_strings, dump, fields, SET};

const BAD_INCREMENT: &str = "-TopK: increment must be an integer greater or equal to 0                            and smaller or equal to 100,000\r\n";

fn send(c: &mut RawConn, args: &[&[u8]]) -> Vec<u8> {
    c.send(args)
}

/// A step of quirks.tsv: `(case, step) -> (reply, argv)`.
fn quirk(case: &str, step: u32) -> (Vec<u8>, Vec<Vec<u8>>) {
    let text = files::read(SET, "quirks.tsv");
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{case}\t{step}\t")))
        .expect("quirk line");
    let f: Vec<&str> = line.split('\t').collect();
    (
        files::unescape(f[3]),
        f[4..].iter().map(|a| files::unescape(a)).collect(),
    )
}

#[test]
fn incrby_with_a_bad_increment_keeps_the_protocol() {
    let server = Server::start();
    let mut c = RawConn::connect(server.port);
    assert_eq!(
        send(&mut c, &[b"TOPK.RESERVE", b"q", b"3", b"100", b"3", b"0.9"]),
        b"+OK\r\n"
    );
    // RedisBloom announces *3 and sends two elements; here the array holds what it says.
    let got = send(
        &mut c,
        &[b"TOPK.INCRBY", b"q", b"a", b"1", b"b", b"-1", b"c", b"2"],
    );
    assert_eq!(
        got,
        [b"*2\r\n$-1\r\n".as_slice(), BAD_INCREMENT.as_bytes()].concat()
    );
    assert_eq!(send(&mut c, &[b"PING"]), b"+PONG\r\n");
    // The pairs before the bad one are applied, none after (as RedisBloom).
    assert_eq!(
        send(&mut c, &[b"TOPK.LIST", b"q", b"WITHCOUNT"]),
        b"*2\r\n$1\r\na\r\n:1\r\n"
    );
    // A bad last increment: RedisBloom's reply exactly.
    let got = send(&mut c, &[b"TOPK.INCRBY", b"q", b"b", b"2", b"a", b"x"]);
    assert_eq!(
        got,
        [b"*2\r\n$-1\r\n".as_slice(), BAD_INCREMENT.as_bytes()].concat()
    );
    let got = send(&mut c, &[b"TOPK.INCRBY", b"q", b"a", b"100001"]);
    assert_eq!(
        got,
        [b"*1\r\n".as_slice(), BAD_INCREMENT.as_bytes()].concat()
    );
    assert_eq!(
        send(&mut c, &[b"TOPK.INCRBY", b"q", b"z", b"100000"]),
        b"*1\r\n$-1\r\n"
    );
    assert_eq!(
        send(&mut c, &[b"TOPK.INCRBY", b"q", b"a", b"1", b"b"]),
        b"-ERR wrong number of arguments for 'topk.incrby' command\r\n"
    );
}

#[test]
fn items_stay_whole_through_dump_and_restore() {
    let server = Server::start();
    let mut c = RawConn::connect(server.port);
    send(&mut c, &[b"TOPK.RESERVE", b"q", b"3", b"100", b"3", b"0.9"]);
    assert_eq!(
        send(&mut c, &[b"TOPK.ADD", b"q", b"a\0b", b"a\0b", b"", b""]),
        b"*4\r\n$-1\r\n$-1\r\n$-1\r\n$-1\r\n"
    );
    let listed = b"*4\r\n$3\r\na\0b\r\n:2\r\n$0\r\n\r\n:2\r\n".to_vec();
    assert_eq!(send(&mut c, &[b"TOPK.LIST", b"q", b"WITHCOUNT"]), listed);
    let payload = dump(&mut c, b"q");
    assert_eq!(
        send(&mut c, &[b"RESTORE", b"q2", b"0", &payload]),
        b"+OK\r\n"
    );
    assert_eq!(send(&mut c, &[b"TOPK.LIST", b"q2", b"WITHCOUNT"]), listed);
    assert_eq!(
        send(&mut c, &[b"TOPK.QUERY", b"q2", b"a\0b", b"", b"a"]),
        b"*3\r\n:1\r\n:1\r\n:0\r\n"
    );
    assert_eq!(
        send(&mut c, &[b"TOPK.COUNT", b"q2", b"a\0b", b""]),
        b"*2\r\n:2\r\n:2\r\n"
    );
    // Adding a\0b again finds it (RedisBloom would add a second `a`).
    assert_eq!(
        send(&mut c, &[b"TOPK.ADD", b"q2", b"a\0b"]),
        b"*1\r\n$-1\r\n"
    );
    assert_eq!(
        send(&mut c, &[b"TOPK.LIST", b"q2"]),
        b"*2\r\n$3\r\na\0b\r\n$0\r\n\r\n"
    );
    // And the bytes: the item, a NUL; the empty item as two NULs.
    let f = fields(&payload, false);
    let items: Vec<&[u8]> = f[6..].iter().map(|v| v.as_slice()).collect();
    assert!(
        items.contains(&&b"a\0b\0"[..]) && items.contains(&&b"\0\0"[..]),
        "{items:?}"
    );
}

/// RedisBloom's own DUMPs of a NUL item and of the empty item (quirks.tsv): the cut item
/// keeps its known prefix (its tail is lost in RedisBloom's bytes), the empty item is
/// listed as itself rather than nil, and both go back out as they came (pointers aside).
#[test]
fn redisbloom_dumps_of_cut_items_load() {
    // Redis 7.4: the payloads carry its RDB version.
    let server = super::redis74();
    let mut c = RawConn::connect(server.port);
    let (_, restore) = quirk("nul_item_after_restore", 5);
    assert_eq!(c.send(&restore), b"+OK\r\n");
    assert_eq!(
        send(&mut c, &[b"TOPK.QUERY", b"q2", b"a\0b", b"a"]),
        b"*2\r\n:0\r\n:0\r\n"
    );
    assert_eq!(
        send(&mut c, &[b"TOPK.COUNT", b"q2", b"a\0b", b"a"]),
        b"*2\r\n:2\r\n:0\r\n"
    );
    assert_eq!(
        send(&mut c, &[b"TOPK.LIST", b"q2", b"WITHCOUNT"]),
        b"*2\r\n$1\r\na\r\n:2\r\n"
    );
    let recorded = restore[3].clone();
    assert_eq!(fields(&dump(&mut c, b"q2"), true), fields(&recorded, true));

    let (_, restore) = quirk("empty_item_after_restore", 5);
    let restore: Vec<Vec<u8>> = [
        vec![restore[0].clone(), b"e2".to_vec()],
        restore[2..].to_vec(),
    ]
    .concat();
    assert_eq!(c.send(&restore), b"+OK\r\n");
    assert_eq!(send(&mut c, &[b"TOPK.QUERY", b"e2", b""]), b"*1\r\n:1\r\n");
    assert_eq!(send(&mut c, &[b"TOPK.COUNT", b"e2", b""]), b"*1\r\n:2\r\n");
    assert_eq!(send(&mut c, &[b"TOPK.LIST", b"e2"]), b"*1\r\n$0\r\n\r\n");
    assert_eq!(
        fields(&dump(&mut c, b"e2"), true),
        fields(&restore[3], true)
    );
}

#[test]
fn list_takes_withcount_as_a_whole_word() {
    let server = Server::start();
    let mut c = RawConn::connect(server.port);
    send(&mut c, &[b"TOPK.RESERVE", b"q", b"2"]);
    send(&mut c, &[b"TOPK.ADD", b"q", b"x"]);
    for word in [&b"WITHCOUNT"[..], b"withcount", b"WithCount"] {
        assert_eq!(
            send(&mut c, &[b"TOPK.LIST", b"q", word]),
            b"*2\r\n$1\r\nx\r\n:1\r\n"
        );
    }
    for word in [&b"W"[..], b"with", b"", b"WITHCOUNTS", b"x"] {
        assert_eq!(
            send(&mut c, &[b"TOPK.LIST", b"q", word]),
            b"-WITHCOUNT keyword expected\r\n"
        );
    }
    // Checked before the key, as RedisBloom.
    assert_eq!(
        send(&mut c, &[b"TOPK.LIST", b"missing", b"W"]),
        b"-WITHCOUNT keyword expected\r\n"
    );
    assert_eq!(as_c_strings(b"*1\r\n$3\r\na\0b\r\n"), b"*1\r\n$1\r\na\r\n");
}

#[test]
fn sizes_that_crash_redisbloom_are_errors() {
    let server = Server::start();
    let mut con = server.conn();
    // 8.2.3 dies on k = 2^32 (cut to 0); 2.8.20 aborts on k = 2^32-1 and width 2^31.
    expect_err(
        &mut con,
        &["TOPK.RESERVE", "a", "4294967296"],
        "TopK: invalid k",
    );
    expect_err(
        &mut con,
        &["TOPK.RESERVE", "a", "4294967298", "2", "2", "0.5"],
        "TopK: invalid k",
    );
    for args in [
        &["TOPK.RESERVE", "a", "4294967295"][..],
        &["TOPK.RESERVE", "a", "1", "2147483648", "1", "0.9"],
        &["TOPK.RESERVE", "a", "1", "4294967295", "4294967295", "0.9"],
    ] {
        let v = raw(&mut con, args);
        let e = err_of(&v).unwrap_or_default();
        assert!(e.contains("over bf.max-filter-bytes"), "{args:?}: {v:?}");
    }
    expect_err(
        &mut con,
        &["TOPK.RESERVE", "a", "1", "4294967296", "1", "0.9"],
        "TopK: invalid width",
    );
    expect_err(
        &mut con,
        &["TOPK.RESERVE", "a", "1", "1", "4294967296", "0.9"],
        "TopK: invalid depth",
    );
    expect_int(&mut con, &["EXISTS", "a"], 0);
    expect_ok(&mut con, &["SET", "s", "v"]);
    expect_err(
        &mut con,
        &["TOPK.RESERVE", "s", "0"],
        "TopK: key already exists",
    );
    expect_err(
        &mut con,
        &["TOPK.ADD", "s", "x"],
        "WRONGTYPE Operation against a key holding the wrong kind of value",
    );
    expect_err(
        &mut con,
        &["TOPK.INFO", "nokey"],
        "TopK: key does not exist",
    );
    // The limit is the configured one.
    config_set(&mut con, "bf.max-filter-bytes", "10000");
    let v = raw(&mut con, &["TOPK.RESERVE", "b", "10", "1000", "2", "0.9"]);
    assert!(
        err_of(&v)
            .unwrap_or_default()
            .contains("over bf.max-filter-bytes (10000)"),
        "{v:?}"
    );
    expect_ok(&mut con, &["TOPK.RESERVE", "b", "10", "100", "2", "0.9"]);
}

fn config_set(con: &mut redis::Connection, name: &str, value: &str) {
    super::common::hostile::config_set(con, name, value)
}

#[test]
fn commands_are_registered_as_redisbloom_8() {
    // Module ACL categories exist from Redis 7.2.
    let server = super::redis74();
    let mut c = RawConn::connect(server.port);
    // Flags and categories as RedisBloom 8.2.3's COMMAND INFO (checks.rb8.json).
    for (cmd, flags, cats) in [
        (
            "topk.reserve",
            "+write\r\n+denyoom\r\n",
            "+@write\r\n+@fast\r\n+@topk\r\n",
        ),
        (
            "topk.add",
            "+write\r\n+denyoom\r\n",
            "+@write\r\n+@topk\r\n",
        ),
        (
            "topk.incrby",
            "+write\r\n+denyoom\r\n",
            "+@write\r\n+@topk\r\n",
        ),
        ("topk.query", "+readonly\r\n", "+@read\r\n+@topk\r\n"),
        ("topk.count", "+readonly\r\n", "+@read\r\n+@topk\r\n"),
        ("topk.list", "+readonly\r\n", "+@read\r\n+@topk\r\n"),
        (
            "topk.info",
            "+readonly\r\n",
            "+@read\r\n+@fast\r\n+@topk\r\n",
        ),
    ] {
        let info = c.send(&[b"COMMAND".as_slice(), b"INFO", cmd.as_bytes()]);
        let text = String::from_utf8_lossy(&info);
        assert!(
            text.contains(flags) && text.contains(cats),
            "{cmd}: {text:?}"
        );
    }
}

#[test]
fn info_counters_and_keyspace_events() {
    let server = Server::start();
    let mut con = server.conn();
    let field = |con: &mut redis::Connection, name: &str| {
        info_field(con, "bf_topk", &format!("bf_topk_{name}"))
            .unwrap_or_else(|| panic!("no bf_topk_{name}"))
            .parse::<i64>()
            .expect("a number")
    };
    expect_ok(&mut con, &["TOPK.RESERVE", "a", "10", "100", "5", "0.9"]);
    expect_ok(&mut con, &["TOPK.RESERVE", "b", "1"]);
    assert_eq!(field(&mut con, "keys"), 2);
    let bytes = memory_usage_module(&mut con, "a") + memory_usage_module(&mut con, "b");
    assert_eq!(field(&mut con, "memory_bytes"), bytes);
    // Refusals by the size limit are counted.
    let before = field(&mut con, "size_limit_refusals");
    let v = raw(&mut con, &["TOPK.RESERVE", "c", "4294967295"]);
    assert!(err_of(&v).is_some());
    assert_eq!(field(&mut con, "size_limit_refusals"), before + 1);
    expect_int(&mut con, &["DEL", "a", "b"], 2);
    assert_eq!(field(&mut con, "keys"), 0);
    assert_eq!(field(&mut con, "memory_bytes"), 0);

    // Keyspace events, named as the commands.
    expect_ok(
        &mut con,
        &["CONFIG", "SET", "notify-keyspace-events", "KEA"],
    );
    let mut sub = server.conn();
    let mut pubsub = sub.as_pubsub();
    pubsub.psubscribe("__keyspace@0__:ev").expect("psubscribe");
    pubsub
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .expect("timeout");
    expect_ok(&mut con, &["TOPK.RESERVE", "ev", "2"]);
    raw(&mut con, &["TOPK.ADD", "ev", "x"]);
    raw(&mut con, &["TOPK.INCRBY", "ev", "x", "2"]);
    let events: Vec<String> = (0..3)
        .map(|_| {
            pubsub
                .get_message()
                .expect("event")
                .get_payload()
                .expect("text")
        })
        .collect();
    assert_eq!(events, ["topk.reserve", "topk.add", "topk.incrby"]);
}

/// RedisBloom's MEMORY USAGE figure of a sketch: its 2,088-byte struct, 8 bytes per counter,
/// 24 per heap entry.
fn memory_usage_module(con: &mut redis::Connection, key: &str) -> i64 {
    let info = raw(con, &["TOPK.INFO", key]);
    let redis::Value::Array(v) = info else {
        panic!("{info:?}")
    };
    let (k, w, d) = (as_int(&v[1]), as_int(&v[3]), as_int(&v[5]));
    2088 + w * d * 8 + k * 24
}
