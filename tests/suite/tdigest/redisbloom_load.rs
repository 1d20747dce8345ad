//! Each RedisBloom t-digest of tests/vectors/redisbloom-tdigest loaded three ways, by
//! RESTORE of `NAME.dump.bin`, by a server started on RedisBloom's `all.rdb` and by one
//! replaying its `all.base.aof`: TYPE, INFO as RedisBloom's RESTORE gives it, every query the
//! transcript asked of the final digest answered byte for byte (on Redis 7.4.1, the server
//! of the recording, whose double texts they are), INFO and MEMORY USAGE with RedisBloom
//! 8.6+'s memory figure (the recorded one and 72, rule `tdigest-memory-usage`), and DUMP giving
//! back RedisBloom's body (but for one-observation digests, which are saved with their value
//! here).

use rsbloom_test_support as common;

use common::files::{self, escape, unescape};
use common::raw_resp::{bulk_payload, RawConn};
use common::tdigest_memory;
use common::Server;
use serde_json::Value;

use super::redisbloom_replay::{opts, CONFIGS};

const SET: &str = "redisbloom-tdigest";

const QUERIES: [&str; 10] = [
    "TDIGEST.MIN",
    "TDIGEST.MAX",
    "TDIGEST.QUANTILE",
    "TDIGEST.CDF",
    "TDIGEST.RANK",
    "TDIGEST.REVRANK",
    "TDIGEST.BYRANK",
    "TDIGEST.BYREVRANK",
    "TDIGEST.TRIMMED_MEAN",
    "TDIGEST.INFO",
];

/// The queries of `name`'s transcript asked after its last write (so of the digest its DUMP
/// holds), as (arguments, RedisBloom's reply); RANK / REVRANK of a one-value digest (where
/// rsbloom answers 0) and INFO (which shows pending values the DUMP no longer has) left out.
pub fn final_queries(name: &str) -> Vec<(Vec<Vec<u8>>, Vec<u8>)> {
    let mut out = Vec::new();
    for line in files::read(SET, &format!("{name}.commands.tsv")).lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let args: Vec<Vec<u8>> = cols[3..].iter().map(|a| unescape(a)).collect();
        let reply = unescape(cols[2]);
        let cmd = String::from_utf8_lossy(&args[0]).to_ascii_uppercase();
        let on_key = args.get(1).is_some_and(|k| k == name.as_bytes());
        if !on_key || reply.starts_with(b"-") {
            continue;
        }
        if !QUERIES.contains(&cmd.as_str()) {
            out.clear(); // A write: what was asked before no longer holds.
            continue;
        }
        let single_rank = name == "single" && cmd.ends_with("RANK") && !cmd.contains("BY");
        if cols[1] == "2" && cmd != "TDIGEST.INFO" && !single_rank {
            out.push((args, reply));
        }
    }
    out
}

/// TDIGEST.INFO (RESP2) of the digest RedisBloom's DUMP of `name` holds.
fn info_of_dump(name: &str) -> Vec<u8> {
    let info: Value =
        serde_json::from_str(&files::read(SET, &format!("{name}.info.json"))).expect("json");
    let d = &info["dump"];
    let n = |k: &str| d[k].as_f64().unwrap_or_else(|| panic!("{name}: {k}")) as i64;
    let fields = [
        ("Compression", n("compression")),
        ("Capacity", n("cap")),
        ("Merged nodes", n("merged_nodes")),
        ("Unmerged nodes", n("unmerged_nodes")),
        ("Merged weight", n("merged_weight")),
        ("Unmerged weight", n("unmerged_weight")),
        ("Observations", n("merged_weight") + n("unmerged_weight")),
        ("Total compressions", n("total_compressions")),
        // RedisBloom 8.6+'s figure (rule tdigest-memory-usage).
        ("Memory usage", 80 + 16 * n("cap")),
    ];
    let mut out = b"*18\r\n".to_vec();
    for (k, v) in fields {
        out.extend(format!("+{k}\r\n:{v}\r\n").into_bytes());
    }
    out
}

/// Whether RedisBloom's DUMP of `name` holds one observation (saved without its value).
pub fn single_value(name: &str) -> bool {
    let info: Value =
        serde_json::from_str(&files::read(SET, &format!("{name}.info.json"))).expect("json");
    info["dump"]["unmerged_nodes"].as_u64() == Some(1)
}

/// Checks the key `name` against everything recorded for it; returns the queries checked.
fn check_key(con: &mut RawConn, name: &str, how: &str) -> usize {
    let key = name.as_bytes();
    let got = con.send(&[b"TYPE".as_slice(), key]);
    assert_eq!(got, b"+TDIS-TYPE\r\n", "{name} ({how}): TYPE");
    let got = con.send(&[b"TDIGEST.INFO".as_slice(), key]);
    assert_eq!(
        escape(&got),
        escape(&info_of_dump(name)),
        "{name} ({how}): INFO"
    );
    let queries = final_queries(name);
    for (args, want) in &queries {
        let got = con.send(args);
        assert_eq!(
            escape(&got),
            escape(want),
            "{name} ({how}): {}",
            String::from_utf8_lossy(&args[0])
        );
    }
    let dump = files::read_bytes(SET, &format!("{name}.dump.bin"));
    let got = con.send(&[b"DUMP".as_slice(), key]);
    let got = bulk_payload(&got).expect("DUMP bulk").to_vec();
    if single_value(name) {
        // Ours holds one node (mean and weight: two more double fields of 9 bytes).
        assert_eq!(got.len(), dump.len() + 18, "{name} ({how}): one-value DUMP");
    } else {
        assert_eq!(
            escape(&got[..got.len() - 10]),
            escape(&dump[..dump.len() - 10]),
            "{name} ({how}): DUMP"
        );
    }
    // MEMORY USAGE: RedisBloom 8.6+'s figure for the value (80 + 16 · capacity) and the same
    // server's overhead for the key, so the recorded number (2.8.2's) and 72.
    let info: Value =
        serde_json::from_str(&files::read(SET, &format!("{name}.info.json"))).expect("json");
    let usage = info["memory_usage"].as_i64().expect("memory_usage") + tdigest_memory::ADDED_BYTES;
    let got = con.send(&[b"MEMORY".as_slice(), b"USAGE", key]);
    assert_eq!(
        escape(&got),
        format!(":{usage}\\r\\n"),
        "{name} ({how}): MEMORY USAGE"
    );
    queries.len()
}

#[test]
fn restore_gives_redisbloom_digests() {
    let mut server = Server::start_with(opts());
    let mut con = RawConn::connect(server.port);
    let mut total = 0;
    for name in CONFIGS {
        let key = name.as_bytes();
        let dump = files::read_bytes(SET, &format!("{name}.dump.bin"));
        let got = con.send(&[b"RESTORE".as_slice(), key, b"0", &dump]);
        assert_eq!(got, b"+OK\r\n", "{name}: RESTORE answered {}", escape(&got));
        total += check_key(&mut con, name, "RESTORE");
        assert_eq!(con.send(&[b"DEL".as_slice(), key]), b":1\r\n");
    }
    server.assert_alive();
    assert!(total > 100, "only {total} queries checked");
}

/// A server started on RedisBloom's `all.rdb`, and one replaying its `all.base.aof`
/// (`RESTORE key 0 <payload>` lines): every key as recorded.
#[test]
fn servers_start_on_redisbloom_rdb_and_aof() {
    for source in ["all.rdb", "all.base.aof"] {
        let aof = source.ends_with(".aof");
        let mut o = opts();
        if aof {
            o.server_args = vec!["--appendonly".into(), "yes".into()];
        }
        let bytes = files::read_bytes(SET, source);
        let mut server = Server::start_prepared(o, |dir| {
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
        let mut loaded = 0;
        for name in CONFIGS {
            if con.send(&[b"EXISTS".as_slice(), name.as_bytes()]) == b":1\r\n" {
                check_key(&mut con, name, source);
                loaded += 1;
            }
        }
        let dbsize = con.send(&[b"DBSIZE".as_slice()]);
        assert_eq!(
            dbsize,
            format!(":{loaded}\r\n").into_bytes(),
            "{source}: keys"
        );
        assert!(loaded >= 10, "{source}: only {loaded} keys");
        server.assert_alive();
    }
}
