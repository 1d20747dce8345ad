//! Each RedisBloom configuration of tests/vectors/redisbloom-cf loaded four ways, by RESTORE
//! of `NAME.dump.bin`, by a CF.LOADCHUNK replay of `NAME.scandump.tsv`, by a server started
//! on RedisBloom's `all.rdb` and by one replaying its `all.base.aof`: every answer of
//! `NAME.queries.tsv` (CF.EXISTS and CF.COUNT), CF.INFO, CF.DEBUG, MEMORY USAGE, TYPE as
//! recorded, and DUMP (without RDB version and CRC) and SCANDUMP byte-identical. And
//! `mixed.rdb`: cuckoo, Bloom and other keys in one file.

use rsbloom_test_support as common;

use common::files::{self, escape, unescape, unhex};
use common::raw_resp::{bulk_payload, RawConn};
use common::{Server, ServerOpts};
use serde_json::Value;

use super::redisbloom_replay::CONFIGS;

const SET: &str = "redisbloom-cf";
/// Queries per pipeline round trip.
const PIPELINE: usize = 1000;

const INFO_FIELDS: [&str; 8] = [
    "Size",
    "Number of buckets",
    "Number of filters",
    "Number of items inserted",
    "Number of items deleted",
    "Bucket size",
    "Expansion rate",
    "Max iterations",
];

fn int(n: i64) -> Vec<u8> {
    format!(":{n}\r\n").into_bytes()
}

fn bulk(data: &[u8]) -> Vec<u8> {
    let mut out = format!("${}\r\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
    out
}

/// `(iterator, data)` per SCANDUMP step; the last one is `(0, None)`.
fn scandump_lines(name: &str) -> Vec<(i64, Option<Vec<u8>>)> {
    files::read(SET, &format!("{name}.scandump.tsv"))
        .lines()
        .map(|l| {
            let (it, hex) = l.split_once('\t').expect("tab");
            let it: i64 = it.parse().expect("iterator");
            (it, (it != 0).then(|| unhex(hex)))
        })
        .collect()
}

/// The SCANDUMP steps as RESP2 replies.
fn scandump_replies(name: &str) -> Vec<Vec<u8>> {
    scandump_lines(name)
        .into_iter()
        .map(|(it, data)| {
            let mut r = b"*2\r\n".to_vec();
            r.extend(int(it));
            match data {
                Some(d) => r.extend(bulk(&d)),
                None => r.extend_from_slice(b"$-1\r\n"),
            }
            r
        })
        .collect()
}

/// Checks the key `name` against everything recorded for it; returns the queries checked.
/// What MEMORY USAGE is compared with on this server. It is the module's share (RedisBloom's
/// CF.INFO Size) plus the server's own for the key, which depends on the server and its
/// allocator: on the recording server (Redis 7.0, jemalloc) the recorded figure; elsewhere
/// MEMORY USAGE less this server's overhead for that very key (measured last, as it puts the
/// value back from its DUMP) must be the Size.
struct Memory {
    recording: bool,
    con: redis::Connection,
}

impl Memory {
    fn of(server: &Server) -> Memory {
        let mut con = server.conn();
        let recording = common::redisbloom::is_recording_server(&mut con);
        Memory { recording, con }
    }
}

fn check_key(con: &mut RawConn, mem: &mut Memory, name: &str, how: &str) -> usize {
    let info: Value =
        serde_json::from_str(&files::read(SET, &format!("{name}.info.json"))).expect("json");
    let key = name.as_bytes();

    // CF.INFO (RESP2 array of names and values) and CF.DEBUG.
    let mut want = format!("*{}\r\n", 2 * INFO_FIELDS.len()).into_bytes();
    for field in INFO_FIELDS {
        want.extend(format!("+{field}\r\n").into_bytes());
        want.extend(int(info["cf_info"][field].as_i64().expect(field)));
    }
    let got = con.send(&[b"CF.INFO".as_slice(), key]);
    assert_eq!(escape(&got), escape(&want), "{name} ({how}): CF.INFO");
    let debug = info["cf_debug"].as_str().expect("cf_debug");
    let got = con.send(&[b"CF.DEBUG".as_slice(), key]);
    assert_eq!(got, bulk(debug.as_bytes()), "{name} ({how}): CF.DEBUG");
    let got = con.send(&[b"TYPE".as_slice(), key]);
    assert_eq!(got, b"+MBbloomCF\r\n", "{name} ({how}): TYPE");

    // DUMP, without the RDB version and CRC.
    let dump = files::read_bytes(SET, &format!("{name}.dump.bin"));
    let got = con.send(&[b"DUMP".as_slice(), key]);
    let got = bulk_payload(&got).expect("DUMP bulk").to_vec();
    assert_eq!(
        escape(&got[..got.len() - 10]),
        escape(&dump[..dump.len() - 10]),
        "{name} ({how}): DUMP"
    );

    // SCANDUMP, step by step.
    let mut iter = 0i64;
    for (step, want) in scandump_replies(name).into_iter().enumerate() {
        let it = iter.to_string();
        let got = con.send(&[b"CF.SCANDUMP".as_slice(), key, it.as_bytes()]);
        assert!(got == want, "{name} ({how}): SCANDUMP step {step} differs");
        iter = scandump_lines(name)[step].0;
    }

    // Every query.
    let text = files::read(SET, &format!("{name}.queries.tsv"));
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    let mut wrong = Vec::new();
    for part in lines.chunks(PIPELINE) {
        let mut cmds = Vec::with_capacity(2 * part.len());
        for cols in part {
            let item = unescape(cols[1]);
            cmds.push(vec![b"CF.EXISTS".to_vec(), key.to_vec(), item.clone()]);
            cmds.push(vec![b"CF.COUNT".to_vec(), key.to_vec(), item]);
        }
        let replies = con.pipeline(&cmds);
        for (cols, pair) in part.iter().zip(replies.chunks(2)) {
            let exists = int(cols[2].parse().expect("exists"));
            let count = int(cols[3].parse().expect("count"));
            if pair[0] != exists || pair[1] != count {
                wrong.push(cols[1].to_string());
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{name} ({how}): {} of {} queries answered differently, e.g. {:?}",
        wrong.len(),
        lines.len(),
        &wrong[..wrong.len().min(5)]
    );

    // MEMORY USAGE, last: measuring the server's overhead for the key puts it back from its DUMP.
    let usage = info["memory_usage"].as_i64().expect("memory_usage");
    let got = con.send(&[b"MEMORY".as_slice(), b"USAGE", key]);
    if mem.recording {
        assert_eq!(got, int(usage), "{name} ({how}): MEMORY USAGE");
    } else {
        let got = std::str::from_utf8(&got[1..got.len() - 2])
            .ok()
            .and_then(|t| t.parse::<i64>().ok())
            .unwrap_or_else(|| panic!("{name} ({how}): MEMORY USAGE {}", escape(&got)));
        let share = got - common::redisbloom::key_overhead(&mut mem.con, name);
        let size = info["cf_info"]["Size"].as_i64().expect("Size");
        assert_eq!(
            share, size,
            "{name} ({how}): MEMORY USAGE less the server's overhead is {share}, Size {size}"
        );
    }
    lines.len()
}

#[test]
fn restore_and_loadchunk_give_redisbloom_filters() {
    let mut server = Server::start();
    let mut con = RawConn::connect(server.port);
    let mut mem = Memory::of(&server);
    let mut report = Vec::new();
    for name in CONFIGS {
        let key = name.as_bytes();
        // RESTORE of the DUMP payload.
        let dump = files::read_bytes(SET, &format!("{name}.dump.bin"));
        let got = con.send(&[b"RESTORE".as_slice(), key, b"0", &dump]);
        assert_eq!(got, b"+OK\r\n", "{name}: RESTORE answered {}", escape(&got));
        let queries = check_key(&mut con, &mut mem, name, "RESTORE");
        assert_eq!(con.send(&[b"DEL".as_slice(), key]), b":1\r\n");

        // CF.LOADCHUNK of every SCANDUMP step.
        let steps = scandump_lines(name);
        let mut loaded = 0;
        for (it, data) in &steps {
            let Some(data) = data else { continue };
            let it = it.to_string();
            let got = con.send(&[b"CF.LOADCHUNK".as_slice(), key, it.as_bytes(), data]);
            assert_eq!(
                got,
                b"+OK\r\n",
                "{name}: LOADCHUNK {it} answered {}",
                escape(&got)
            );
            loaded += 1;
        }
        let how = if loaded == 0 {
            // A filter that counts no items has no SCANDUMP (RedisBloom's `empty`).
            assert_eq!(
                steps.len(),
                1,
                "{name}: no header but {} steps",
                steps.len()
            );
            "no LOADCHUNK path: SCANDUMP is just (0, null)".to_string()
        } else {
            check_key(&mut con, &mut mem, name, "LOADCHUNK");
            assert_eq!(con.send(&[b"DEL".as_slice(), key]), b":1\r\n");
            format!("LOADCHUNK of {loaded} chunks: all equal")
        };
        server.assert_alive();
        report.push(format!(
            "{name:12} RESTORE: {queries} queries, INFO, DEBUG, MEMORY USAGE, DUMP, SCANDUMP \
             equal; {how}"
        ));
    }
    println!("{}", report.join("\n"));
}

/// A server started on RedisBloom's `all.rdb` (the 17 keys in one RDB file), and one
/// replaying its `all.base.aof` (the AOF rewrite of the same keys as the base of a Redis 7
/// AOF directory): every key as recorded.
#[test]
fn servers_start_on_redisbloom_rdb_and_aof() {
    for source in ["all.rdb", "all.base.aof"] {
        let aof = source.ends_with(".aof");
        let opts = if aof {
            ServerOpts::server_args(&["--appendonly", "yes"])
        } else {
            ServerOpts::default()
        };
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
        let mut mem = Memory::of(&server);
        assert_eq!(
            con.send(&[b"DBSIZE".as_slice()]),
            int(CONFIGS.len() as i64),
            "{source}: keys loaded"
        );
        for name in CONFIGS {
            check_key(&mut con, &mut mem, name, source);
        }
        server.assert_alive();
    }
}

/// RedisBloom's `mixed.rdb`: six cuckoo filters beside Bloom filters, strings (one of them
/// holding bytes shaped like a cuckoo header) and a hash. Every key loads with its type, the
/// cuckoo filters answer as recorded, and the Bloom filters' DUMP bodies are RedisBloom's.
#[test]
fn a_server_starts_on_redisbloom_mixed_rdb() {
    let bytes = files::read_bytes(SET, "mixed.rdb");
    let mut server = Server::start_prepared(ServerOpts::default(), |dir| {
        std::fs::write(dir.join("dump.rdb"), &bytes).expect("dump.rdb");
    });
    let mut con = RawConn::connect(server.port);
    let mut mem = Memory::of(&server);
    let mixed: Value = serde_json::from_str(&files::read(SET, "mixed.json")).expect("json");
    let keys = mixed["keys"].as_object().expect("keys");
    assert_eq!(con.send(&[b"DBSIZE".as_slice()]), int(keys.len() as i64));
    let mut cuckoo = 0;
    for (key, want) in keys {
        let kind = want["type"].as_str().expect("type");
        let got = con.send(&[b"TYPE".as_slice(), key.as_bytes()]);
        assert_eq!(got, format!("+{kind}\r\n").into_bytes(), "{key}: TYPE");
        if kind == "MBbloomCF" {
            check_key(&mut con, &mut mem, key, "mixed.rdb");
            cuckoo += 1;
        } else if kind == "MBbloom--" {
            let dump = unhex(want["dump_hex"].as_str().expect("dump_hex"));
            let got = con.send(&[b"DUMP".as_slice(), key.as_bytes()]);
            let body = bulk_payload(&got).expect("DUMP bulk");
            // The body, without the RDB version (2 bytes) and CRC (8) of the server.
            assert_eq!(
                escape(&body[..body.len() - 10]),
                escape(&dump[..dump.len() - 10]),
                "{key}: DUMP body"
            );
        }
    }
    assert_eq!(cuckoo, 6, "cuckoo keys in mixed.rdb");
    server.assert_alive();
}
