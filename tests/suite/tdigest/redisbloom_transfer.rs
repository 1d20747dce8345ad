//! rsbloom's t-digests going to RedisBloom 2.8.2 (Redis 7.4.1, from redis-stack): its DUMP
//! payloads RESTOREd there and its RDB file loaded there answer every query exactly as
//! rsbloom does. A one-observation digest, which RedisBloom itself saves without its value,
//! arrives with it (RedisBloom answers the value to QUANTILE).

use rsbloom_test_support as common;

use common::files::{self, escape};
use common::raw_resp::{bulk_payload, RawConn};
use common::{Installed, Server, ServerOpts};

use super::redisbloom_replay::{opts, CONFIGS};

const SET: &str = "redisbloom-tdigest";

pub(super) fn redisbloom() -> ServerOpts {
    ServerOpts::default()
        .on(&Installed::get("redis-7.4"))
        .redisbloom()
}

/// The queries both sides must answer alike.
pub(super) fn queries(key: &str) -> Vec<Vec<String>> {
    let k = key.to_string();
    let q = |parts: &[&str]| {
        let mut v = vec![parts[0].to_string(), k.clone()];
        v.extend(parts[1..].iter().map(|s| s.to_string()));
        v
    };
    vec![
        q(&["TDIGEST.INFO"]),
        q(&["TDIGEST.MIN"]),
        q(&["TDIGEST.MAX"]),
        q(&[
            "TDIGEST.QUANTILE",
            "0",
            "0.01",
            "0.1",
            "0.5",
            "0.9",
            "0.99",
            "1",
            "0.3",
        ]),
        q(&[
            "TDIGEST.CDF",
            "-1000",
            "-50",
            "0",
            "1",
            "42.5",
            "100",
            "500",
            "1e9",
        ]),
        q(&["TDIGEST.RANK", "-1000", "-50", "0", "100", "500", "1e9"]),
        q(&["TDIGEST.REVRANK", "-1000", "-50", "0", "100", "500", "1e9"]),
        q(&[
            "TDIGEST.BYRANK",
            "0",
            "1",
            "2",
            "10",
            "100",
            "1000",
            "100000",
        ]),
        q(&[
            "TDIGEST.BYREVRANK",
            "0",
            "1",
            "2",
            "10",
            "100",
            "1000",
            "100000",
        ]),
        q(&["TDIGEST.TRIMMED_MEAN", "0.1", "0.9"]),
        q(&["TDIGEST.TRIMMED_MEAN", "0", "1"]),
        q(&["TDIGEST.INFO"]),
    ]
}

/// Keys made on rsbloom: RedisBloom's recorded digests, a fresh one with pending values, a
/// merge, and one-observation digests.
fn make_keys(con: &mut RawConn) -> Vec<String> {
    let mut keys = Vec::new();
    for name in CONFIGS {
        let dump = files::read_bytes(SET, &format!("{name}.dump.bin"));
        let got = con.send(&[b"RESTORE".as_slice(), name.as_bytes(), b"0", &dump]);
        assert_eq!(got, b"+OK\r\n", "{name}");
        keys.push(name.to_string());
    }
    let ok = |con: &mut RawConn, args: &[&str]| {
        let got = con.send(args);
        assert_eq!(got, b"+OK\r\n", "{args:?}: {}", escape(&got));
    };
    ok(con, &["TDIGEST.CREATE", "fresh", "COMPRESSION", "50"]);
    let values: Vec<String> = (0..777)
        .map(|i| format!("{}", ((i * 7919) % 1000) as f64 / 3.0 - 50.0))
        .collect();
    let mut args = vec!["TDIGEST.ADD", "fresh"];
    args.extend(values.iter().map(String::as_str));
    ok(con, &args);
    ok(con, &["TDIGEST.MERGE", "merged", "2", "fresh", "c100"]);
    ok(con, &["TDIGEST.CREATE", "one", "COMPRESSION", "50"]);
    ok(con, &["TDIGEST.ADD", "one", "42.5"]);
    keys.extend(["fresh", "merged", "one"].map(String::from));
    keys
}

/// Whether the key holds one observation on rsbloom (RedisBloom then answers otherwise).
fn one_value(con: &mut RawConn, key: &str) -> bool {
    let info = con.send(&["TDIGEST.INFO", key]);
    String::from_utf8_lossy(&info).contains("+Observations\r\n:1\r\n")
}

/// Every key answers alike on both sides; one-value digests answer with their value on
/// RedisBloom.
fn compare(rs: &mut RawConn, rb: &mut RawConn, keys: &[String], how: &str) -> usize {
    let mut compared = 0;
    for key in keys {
        if one_value(rs, key) {
            let min = rs.send(&["TDIGEST.MIN", key]);
            let got = rb.send(&["TDIGEST.QUANTILE", key, "0", "0.5", "1"]);
            let value =
                String::from_utf8_lossy(&min[min.iter().position(|&b| b == b'\n').unwrap() + 1..])
                    .trim_end()
                    .to_string();
            let want = format!(
                "*3\r\n{0}\r\n{1}\r\n{0}\r\n{1}\r\n{0}\r\n{1}\r\n",
                format_args!("${}", value.len()),
                value
            );
            assert_eq!(
                escape(&got),
                escape(want.as_bytes()),
                "{key} ({how}): RedisBloom's QUANTILE of the kept value"
            );
            assert_eq!(rb.send(&["TDIGEST.MIN", key]), min, "{key} ({how}): MIN");
            compared += 1;
            continue;
        }
        for q in queries(key) {
            let a = rs.send(&q);
            let b = rb.send(&q);
            assert_eq!(escape(&a), escape(&b), "{key} ({how}): {q:?}");
            compared += 1;
        }
    }
    compared
}

#[test]
fn redisbloom_loads_rsbloom_dumps_and_rdb() {
    let mut rs_server = Server::start_with(opts());
    let mut rb_server = Server::start_with(redisbloom());
    let mut rs = RawConn::connect(rs_server.port);
    let mut rb = RawConn::connect(rb_server.port);
    let keys = make_keys(&mut rs);
    for key in &keys {
        let dump = rs.send(&["DUMP", key.as_str()]);
        let payload = bulk_payload(&dump).expect("DUMP").to_vec();
        let got = rb.send(&[b"RESTORE".as_slice(), key.as_bytes(), b"0", &payload]);
        assert_eq!(
            got,
            b"+OK\r\n",
            "{key}: RedisBloom's RESTORE: {}",
            escape(&got)
        );
    }
    let by_dump = compare(&mut rs, &mut rb, &keys, "DUMP");
    rb_server.assert_alive();
    drop(rb_server);

    // The RDB file: RedisBloom started on rsbloom's SAVE.
    assert_eq!(rs.send(&["SAVE"]), b"+OK\r\n");
    let rdb = std::fs::read(rs_server.dir().join("dump.rdb")).expect("dump.rdb");
    let rb_server = Server::start_prepared(redisbloom(), |dir| {
        std::fs::write(dir.join("dump.rdb"), &rdb).expect("dump.rdb");
    });
    let mut rb = RawConn::connect(rb_server.port);
    let by_rdb = compare(&mut rs, &mut rb, &keys, "RDB");
    rs_server.assert_alive();
    assert!(
        by_dump > 150 && by_rdb == by_dump,
        "{by_dump} / {by_rdb} replies compared"
    );
}
