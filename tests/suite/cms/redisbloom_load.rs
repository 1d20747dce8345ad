//! Each RedisBloom sketch of tests/vectors/redisbloom-cms loaded three ways, by RESTORE of
//! `NAME.dump.bin` (resealed with this server's RDB version, so it runs on every server), by
//! a Redis 7.4.1 started on RedisBloom's `all.rdb` and by one replaying its `all.base.aof`:
//! TYPE, CMS.INFO (RESP2 and RESP3) as recorded, every item of the session queried (the
//! answers of the sketch the core decodes from the DUMP), MEMORY USAGE (rsbloom's figure,
//! see docs/commands/cms.md), and DUMP byte-identical without the RDB version and CRC. And the other
//! way: RedisBloom 2.8.2 on Redis 7.4.1 loading rsbloom's DUMP payloads and RDB file.

use rsbloom_test_support as common;

use common::files::{self, escape, unescape, REDISBLOOM_CMS_CONFIGS as CONFIGS};
use common::raw_resp::{bulk_payload, RawConn};
use common::rdb::{dump_body, Frame};
use common::{Installed, Server, ServerOpts};
use rsbloom_core::cms::sketch::STRUCT_BYTES;
use serde_json::Value;

use super::{check_queries, decode_dump, recorded_dump, session_items, SET};

/// What rsbloom's MEMORY USAGE counts for a sketch (RedisBloom's own counts `8 + 8·w·d`).
fn module_share(width: i64, depth: i64) -> i64 {
    STRUCT_BYTES as i64 + 4 * width * depth
}

/// Checks the key `name` against everything recorded for it; returns the queries checked.
fn check_key(server: &Server, name: &str, how: &str) -> usize {
    let mut con = RawConn::connect(server.port);
    let mut con3 = RawConn::connect_resp3(server.port);
    let info: Value =
        serde_json::from_str(&files::read(SET, &format!("{name}.info.json"))).expect("json");
    let key = name.as_bytes();
    let got = con.send(&[b"TYPE".as_slice(), key]);
    assert_eq!(got, b"+CMSk-TYPE\r\n", "{name} ({how}): TYPE");
    for (conn, field) in [(&mut con, "info_resp2"), (&mut con3, "info_resp3")] {
        let got = conn.send(&[b"CMS.INFO".as_slice(), key]);
        let want = unescape(info[field].as_str().expect(field));
        assert_eq!(
            escape(&got),
            escape(&want),
            "{name} ({how}): CMS.INFO {field}"
        );
    }
    let dump = recorded_dump(name);
    let got = con.send(&[b"DUMP".as_slice(), key]);
    let got = bulk_payload(&got).expect("DUMP bulk").to_vec();
    assert_eq!(
        escape(dump_body(&got)),
        escape(dump_body(&dump)),
        "{name} ({how}): DUMP body"
    );
    let sketch = decode_dump(&dump);
    let queries = check_queries(&mut con, key, &session_items(name), &sketch, how);

    // MEMORY USAGE, last (measuring the server's overhead puts the key back from its DUMP).
    let mut rc = server.conn();
    let usage = common::client::memory_usage(&mut rc, name);
    let share = usage - common::redisbloom::key_overhead(&mut rc, name);
    let (w, d) = (sketch.width() as i64, sketch.depth() as i64);
    assert_eq!(
        share,
        module_share(w, d),
        "{name} ({how}): MEMORY USAGE share"
    );
    queries
}

#[test]
fn restore_gives_redisbloom_sketches() {
    let mut server = Server::start();
    let mut con = RawConn::connect(server.port);
    // This server's RDB version, from a DUMP of its own.
    con.send(&[b"CMS.INITBYDIM".as_slice(), b"probe", b"1", b"1"]);
    let own = con.send(&[b"DUMP".as_slice(), b"probe"]);
    let frame = Frame::from_dump(bulk_payload(&own).expect("DUMP"));
    con.send(&[b"DEL".as_slice(), b"probe"]);
    let mut report = Vec::new();
    for name in CONFIGS {
        let key = name.as_bytes();
        let payload = frame.seal(dump_body(&recorded_dump(name)));
        let got = con.send(&[b"RESTORE".as_slice(), key, b"0", &payload]);
        assert_eq!(got, b"+OK\r\n", "{name}: RESTORE answered {}", escape(&got));
        let queries = check_key(&server, name, "RESTORE");
        assert_eq!(con.send(&[b"DEL".as_slice(), key]), b":1\r\n");
        report.push(format!(
            "{name:10} {queries} queries, INFO, DUMP, MEMORY USAGE equal"
        ));
    }
    server.assert_alive();
    println!("{}", report.join("\n"));
}

/// Redis 7.4.1 (where the vectors were recorded) started on RedisBloom's `all.rdb` and on
/// its `all.base.aof`: every key as recorded.
#[test]
fn servers_start_on_redisbloom_rdb_and_aof() {
    let redis74 = Installed::get("redis-7.4");
    for source in ["all.rdb", "all.base.aof"] {
        let aof = source.ends_with(".aof");
        let opts = if aof {
            ServerOpts::server_args(&["--appendonly", "yes"])
        } else {
            ServerOpts::default()
        }
        .on(&redis74);
        let bytes = files::read_bytes(SET, source);
        let mut server = Server::start_prepared(opts, |dir| {
            if aof {
                let aof_dir = dir.join("appendonlydir");
                std::fs::create_dir(&aof_dir).expect("appendonlydir");
                std::fs::write(aof_dir.join("appendonly.aof.1.base.aof"), &bytes).expect("aof");
                std::fs::write(
                    aof_dir.join("appendonly.aof.manifest"),
                    "file appendonly.aof.1.base.aof seq 1 type b\n",
                )
                .expect("manifest");
            } else {
                std::fs::write(dir.join("dump.rdb"), &bytes).expect("dump.rdb");
            }
        });
        let mut con = RawConn::connect(server.port);
        assert_eq!(
            con.send(&[b"DBSIZE".as_slice()]),
            format!(":{}\r\n", CONFIGS.len()).into_bytes(),
            "{source}: keys loaded"
        );
        for name in CONFIGS {
            check_key(&server, name, source);
        }
        server.assert_alive();
    }
}

/// RedisBloom 2.8.2 (Redis 7.4.1) loads what rsbloom (on the same Redis) writes: each
/// recorded session replayed on rsbloom, then its keys' DUMP payloads RESTOREd into
/// RedisBloom, and rsbloom's RDB file as RedisBloom's start-up file; every key's DUMP body,
/// CMS.INFO and queries equal on both.
#[test]
fn redisbloom_loads_rsbloom_dumps_and_rdb() {
    let redis74 = Installed::get("redis-7.4");
    let ours = Server::start_with(ServerOpts::default().on(&redis74));
    let mut con = RawConn::connect(ours.port);
    for name in CONFIGS {
        for line in files::read(SET, &format!("{name}.commands.tsv")).lines() {
            let argv: Vec<Vec<u8>> = line.split('\t').skip(3).map(unescape).collect();
            con.send(&argv);
        }
    }
    assert_eq!(con.send(&[b"SAVE".as_slice()]), b"+OK\r\n");
    let rdb = std::fs::read(ours.dir().join("dump.rdb")).expect("rsbloom's dump.rdb");
    let dumps: Vec<Vec<u8>> = CONFIGS
        .iter()
        .map(|name| {
            let got = con.send(&[b"DUMP".as_slice(), name.as_bytes()]);
            bulk_payload(&got).expect("DUMP").to_vec()
        })
        .collect();

    let mut compare = |theirs: &mut RawConn, how: &str| {
        for (name, dump) in CONFIGS.iter().zip(&dumps) {
            let key = name.as_bytes();
            for cmd in [&b"DUMP"[..], b"CMS.INFO"] {
                let a = con.send(&[cmd, key]);
                let b = theirs.send(&[cmd, key]);
                assert_eq!(escape(&a), escape(&b), "{name} ({how}): {}", escape(cmd));
            }
            let sketch = super::decode_dump(dump);
            check_queries(theirs, key, &session_items(name), &sketch, how);
        }
    };
    let mut redisbloom = Server::start_with(ServerOpts::default().on(&redis74).redisbloom());
    let mut theirs = RawConn::connect(redisbloom.port);
    for (name, dump) in CONFIGS.iter().zip(&dumps) {
        let got = theirs.send(&[b"RESTORE".as_slice(), name.as_bytes(), b"0", dump]);
        assert_eq!(
            got,
            b"+OK\r\n",
            "{name}: RedisBloom's RESTORE answered {}",
            escape(&got)
        );
    }
    compare(&mut theirs, "RESTORE into RedisBloom");
    redisbloom.assert_alive();

    let mut from_rdb =
        Server::start_prepared(ServerOpts::default().on(&redis74).redisbloom(), |dir| {
            std::fs::write(dir.join("dump.rdb"), &rdb).expect("dump.rdb");
        });
    let mut theirs = RawConn::connect(from_rdb.port);
    assert_eq!(
        theirs.send(&[b"DBSIZE".as_slice()]),
        format!(":{}\r\n", CONFIGS.len()).into_bytes()
    );
    compare(&mut theirs, "RedisBloom started on rsbloom's RDB");
    from_rdb.assert_alive();
}
