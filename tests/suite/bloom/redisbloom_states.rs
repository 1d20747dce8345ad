//! Bloom filter states only RedisBloom 2.8's own commands reach, made on the live RedisBloom
//! 2.8.2: it takes any `EXPANSION` from 1 (no upper bound) and keeps it in 32 bits, so a
//! filter grows 50,000-fold per layer. rsbloom (whose own commands stop at 32,768) loads it
//! by RESTORE and from RedisBloom's RDB file, answers as RedisBloom does, DUMPs to its bytes,
//! and grows it the same way.

use rsbloom_test_support as common;

use common::files::escape;
use common::raw_resp::{bulk_payload, RawConn};
use common::*;

fn redisbloom() -> ServerOpts {
    ServerOpts::default()
        .on(&Installed::get("redis-7.4"))
        .redisbloom()
}

fn rsbloom() -> ServerOpts {
    ServerOpts::default().on(&Installed::get("redis-7.4"))
}

fn ok(con: &mut RawConn, args: &[&str]) {
    let got = con.send(args);
    assert_eq!(got, b"+OK\r\n", "{args:?}: {}", escape(&got));
}

fn dump(con: &mut RawConn, key: &str) -> Vec<u8> {
    let got = con.send(&["DUMP", key]);
    bulk_payload(&got)
        .unwrap_or_else(|| panic!("DUMP {key}: {}", escape(&got)))
        .to_vec()
}

fn items(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

fn madd(con: &mut RawConn, key: &str, items: &[String]) -> Vec<u8> {
    let mut args = vec!["BF.MADD", key];
    args.extend(items.iter().map(String::as_str));
    con.send(&args)
}

/// Both answer alike: BF.INFO, BF.CARD, the items and probes, DUMP; then the same adds
/// (past the next layer's capacity) answer alike and leave the same bytes.
fn compare(rs: &mut RawConn, rb: &mut RawConn, key: &str, how: &str) {
    let mut probes = vec!["BF.MEXISTS", key];
    let known = items("item:", 40);
    let unknown = items("probe:", 200);
    probes.extend(known.iter().chain(&unknown).map(String::as_str));
    for q in [vec!["BF.INFO", key], vec!["BF.CARD", key], probes.clone()] {
        assert_eq!(escape(&rs.send(&q)), escape(&rb.send(&q)), "{how}: {q:?}");
    }
    assert_eq!(
        escape(&dump(rs, key)),
        escape(&dump(rb, key)),
        "{how}: DUMP"
    );
    let more = items("more:", 30);
    assert_eq!(madd(rs, key, &more), madd(rb, key, &more), "{how}: MADD");
    for q in [vec!["BF.INFO", key], probes] {
        assert_eq!(escape(&rs.send(&q)), escape(&rb.send(&q)), "{how}: {q:?}");
    }
    assert_eq!(
        escape(&dump(rs, key)),
        escape(&dump(rb, key)),
        "{how}: DUMP"
    );
}

#[test]
fn redisbloom_expansion_over_32768_loads_and_grows_alike() {
    let mut rb_server = Server::start_with(redisbloom());
    let mut rb = RawConn::connect(rb_server.port);
    // Ten items fill the first layer; the rest go to one of 500,000 (about 600 KB).
    ok(
        &mut rb,
        &["BF.RESERVE", "wide", "0.01", "10", "EXPANSION", "50000"],
    );
    madd(&mut rb, "wide", &items("item:", 40));
    assert_eq!(rb.send(&["SAVE"]), b"+OK\r\n");
    let rdb = std::fs::read(rb_server.dir().join("dump.rdb")).expect("dump.rdb");
    let payload = dump(&mut rb, "wide");

    let rs_server = Server::start_with(rsbloom());
    let mut rs = RawConn::connect(rs_server.port);
    let got = rs.send(&[b"RESTORE".as_slice(), b"wide", b"0", &payload]);
    assert_eq!(got, b"+OK\r\n", "RESTORE: {}", escape(&got));
    compare(&mut rs, &mut rb, "wide", "RESTORE");

    // RedisBloom's RDB file (RedisBloom's key set back to what it saved).
    let rs_server = Server::start_prepared(rsbloom(), |dir| {
        std::fs::write(dir.join("dump.rdb"), &rdb).expect("dump.rdb");
    });
    let mut rs = RawConn::connect(rs_server.port);
    rb.send(&["DEL", "wide"]);
    let got = rb.send(&[b"RESTORE".as_slice(), b"wide", b"0", &payload]);
    assert_eq!(got, b"+OK\r\n");
    compare(&mut rs, &mut rb, "wide", "RDB");
    rb_server.assert_alive();
}

/// RedisBloom 2.8 keeps `EXPANSION 4294967296` as growth 0: a scaling filter that cannot
/// grow. It loads, answers and DUMPs as RedisBloom's; once full, the next new item answers
/// RedisBloom's `ERR problem inserting into filter` on both.
#[test]
fn redisbloom_growth_zero_loads_and_stops_alike() {
    let rb_server = Server::start_with(redisbloom());
    let mut rb = RawConn::connect(rb_server.port);
    let got = rb.send(&[
        "BF.INSERT",
        "stuck",
        "CAPACITY",
        "10",
        "EXPANSION",
        "4294967296",
        "ITEMS",
        "item:0",
    ]);
    assert_eq!(got, b"*1\r\n:1\r\n", "{}", escape(&got));
    let info = String::from_utf8_lossy(&rb.send(&["BF.INFO", "stuck"])).to_string();
    assert!(info.contains("Expansion rate\r\n:0\r\n"), "{info}");
    let payload = dump(&mut rb, "stuck");

    let rs_server = Server::start_with(rsbloom());
    let mut rs = RawConn::connect(rs_server.port);
    let got = rs.send(&[b"RESTORE".as_slice(), b"stuck", b"0", &payload]);
    assert_eq!(got, b"+OK\r\n", "RESTORE: {}", escape(&got));
    let info = vec!["BF.INFO", "stuck"];
    assert_eq!(escape(&rs.send(&info)), escape(&rb.send(&info)));
    assert_eq!(
        escape(&dump(&mut rs, "stuck")),
        escape(&dump(&mut rb, "stuck"))
    );
    let mut stopped = false;
    for i in 1..100 {
        let add = ["BF.ADD".to_string(), "stuck".into(), format!("item:{i}")];
        let (a, b) = (rs.send(&add), rb.send(&add));
        assert_eq!(escape(&a), escape(&b), "{add:?}");
        if b.starts_with(b"-") {
            assert_eq!(b, b"-ERR problem inserting into filter\r\n");
            stopped = true;
            break;
        }
        assert_eq!(
            escape(&dump(&mut rs, "stuck")),
            escape(&dump(&mut rb, "stuck"))
        );
    }
    assert!(stopped, "the filter never filled");
    // RedisBloom 2.8 has now added a broken empty link (8 refuses to load it); rsbloom's
    // filter is unchanged and refuses the next new item the same way.
    let got = rs.send(&["BF.ADD", "stuck", "another"]);
    assert_eq!(got, b"-ERR problem inserting into filter\r\n");
    let info = String::from_utf8_lossy(&rs.send(&info)).to_string();
    assert!(info.contains("Number of filters\r\n:1\r\n"), "{info}");
}
