//! valkey-bloom's world on Valkey 9.1: rsbloom loaded with `new-filter-format valkey` (and
//! valkey-bloom's fixed seed) replays tests/vectors/valkey-bloom, recorded from valkey-bloom
//! (unstable at 8077d58) on the same server: its command metadata (name, arity, flags, key
//! range, ACL categories), `ACL CAT bloom`, its INFO sections figure for figure through adds,
//! scaling, COPY, DEL, DEBUG RELOAD and FLUSHALL, and its answers at the argument level. The
//! rest of the dialect (shards under the valkey format, RESTORE and the AOF rewrite keeping
//! the figures, `cmdstat_BF.ADD`, RedisBloom's metadata without the load argument) is checked
//! here too.

use rsbloom_test_support as common;

use common::files::{self, escape, unescape};
use common::raw_resp::RawConn;
use common::*;
use redis::{Connection, Value};
use std::thread::sleep;
use std::time::{Duration, Instant};

const SET: &str = "valkey-bloom";

/// valkey-bloom's world: Valkey 9.1, rsbloom as its migration page loads it.
fn valkey_server(extra: &[&str]) -> Server {
    let mut args = vec!["new-filter-format", "valkey", "bloom-use-random-seed", "no"];
    args.extend_from_slice(extra);
    Server::start_with(
        ServerOpts {
            server_args: vec!["--enable-debug-command".into(), "yes".into()],
            ..ServerOpts::module_args(&args)
        }
        .on(&Installed::get("valkey-9.1")),
    )
}

/// The first seven fields of a COMMAND INFO entry (name to ACL categories): what valkey-bloom
/// declares. Key specs, tips and sub-commands follow; the server derives valkey-bloom's from
/// its key range, rsbloom publishes its own (read-only where a command only reads).
fn metadata(reply: &[u8]) -> Vec<Value> {
    let v = redis::parse_redis_value(reply).expect("a RESP reply");
    let Value::Array(entries) = v else {
        panic!("COMMAND INFO: not an array: {v:?}")
    };
    let Some(Value::Array(fields)) = entries.into_iter().next() else {
        panic!("COMMAND INFO: no entry")
    };
    fields.into_iter().take(7).collect()
}

fn parse(reply: &[u8]) -> Value {
    redis::parse_redis_value(reply).expect("a RESP reply")
}

/// BF.INFO's reply without its `Tightening ratio` pair.
fn without_tightening(reply: &[u8]) -> Value {
    let Value::Array(fields) = parse(reply) else {
        panic!("BF.INFO: not an array")
    };
    let pairs = fields
        .chunks(2)
        .filter(|p| as_text(&p[0]) != "Tightening ratio");
    Value::Array(pairs.flatten().cloned().collect())
}

fn names(reply: &[u8]) -> Vec<String> {
    let v = redis::parse_redis_value(reply).expect("a RESP reply");
    let mut names: Vec<String> = match v {
        Value::Array(items) => items.iter().map(as_text).collect(),
        other => panic!("not an array: {other:?}"),
    };
    names.sort();
    names
}

#[test]
fn valkey_blooms_metadata_metrics_and_answers_replay_exactly() {
    let mut server = valkey_server(&[]);
    let mut conn = RawConn::connect(server.port);
    let mut checked = 0;
    for line in files::read(SET, "session.commands.tsv").lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let argv: Vec<Vec<u8>> = cols[3..].iter().map(|a| unescape(a)).collect();
        let expected = unescape(cols[2]);
        let got = conn.send(&argv);
        let what = format!("line {}: {}", cols[0], cols[3..].join(" "));
        match (argv[0].as_slice(), argv.get(1).map(Vec::as_slice)) {
            (b"COMMAND", _) => assert_eq!(metadata(&got), metadata(&expected), "{what}"),
            // rsbloom's own commands are in @bloom too (bf.debug, bf.scandump, ...).
            (b"ACL", _) => {
                let ours = names(&got);
                for name in names(&expected) {
                    assert!(ours.contains(&name), "{what}: {name} missing from {ours:?}");
                }
                assert!(
                    ours.iter()
                        .all(|n| !n.starts_with("BF.") || names(&expected).contains(n)),
                    "{what}: {ours:?}"
                );
            }
            // valkey-bloom 1.0 (which rsbloom follows) added `Tightening ratio` to BF.INFO;
            // the tree recorded predates it. Everything else in the reply is the same.
            (b"BF.INFO", _) if argv.len() == 2 => {
                assert_eq!(without_tightening(&got), parse(&expected), "{what}")
            }
            // The metrics fall as values are freed, and Valkey frees replaced or flushed
            // values in the background (its lazyfree defaults): after DEBUG RELOAD the old
            // values may still be counted for a moment, on valkey-bloom as here. Wait (at
            // most 10 s) for the figures the recording settled on.
            (b"INFO", _) => {
                let deadline = Instant::now() + Duration::from_secs(10);
                let mut got = got;
                while got != expected && Instant::now() < deadline {
                    sleep(Duration::from_millis(20));
                    got = conn.send(&argv);
                }
                assert_eq!(escape(&got), escape(&expected), "{what}")
            }
            _ => assert_eq!(escape(&got), escape(&expected), "{what}"),
        }
        checked += 1;
    }
    assert_eq!(checked, 49);
    server.assert_alive();
}

fn core_metrics(c: &mut Connection) -> Vec<(String, i64)> {
    info_section(c, "bf_bloom_core_metrics")
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            Some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

/// The figures valkey-bloom's metrics must show, from the keys themselves (BF.INFO).
fn from_keys(c: &mut Connection, keys: &[&str]) -> Vec<(String, i64)> {
    let mut sums = [0i64; 5];
    for key in keys {
        let field = |c: &mut Connection, f: &str| as_int(&raw(c, &["BF.INFO", key, f]));
        sums[0] += field(c, "SIZE");
        sums[1] += 1;
        sums[2] += field(c, "FILTERS");
        sums[3] += field(c, "ITEMS");
        sums[4] += field(c, "CAPACITY");
    }
    [
        "bf_bloom_total_memory_bytes",
        "bf_bloom_num_objects",
        "bf_bloom_num_filters_across_objects",
        "bf_bloom_num_items_across_objects",
        "bf_bloom_capacity_across_objects",
    ]
    .iter()
    .zip(sums)
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

#[test]
fn metrics_stay_exact_through_restore_and_the_aof_rewrite() {
    let mut server = valkey_server(&[]);
    let mut c = server.conn();
    let mut rng = common::hostile::Rng::new(46);
    let items: Vec<String> = (0..700).map(|_| format!("{:x}", rng.next_u64())).collect();
    let mut madd = vec!["BF.MADD", "a"];
    madd.extend(items.iter().map(String::as_str));
    let _ = raw(&mut c, &madd);
    expect_ok(
        &mut c,
        &["BF.RESERVE", "b", "0.001", "50", "EXPANSION", "4"],
    );
    madd[1] = "b";
    let _ = raw(&mut c, &madd[..300]);
    assert_eq!(core_metrics(&mut c), from_keys(&mut c, &["a", "b"]));
    // DUMP / RESTORE adds a copy's figures; RESTORE REPLACE swaps them.
    let Value::BulkString(payload) = raw(&mut c, &["DUMP", "a"]) else {
        panic!("DUMP")
    };
    let _ = raw(&mut c, &[&b"RESTORE"[..], b"c", b"0", &payload]);
    assert_eq!(core_metrics(&mut c), from_keys(&mut c, &["a", "b", "c"]));
    let _ = raw(&mut c, &[&b"RESTORE"[..], b"b", b"0", &payload, b"REPLACE"]);
    assert_eq!(core_metrics(&mut c), from_keys(&mut c, &["a", "b", "c"]));
    // The AOF rewrite (BF.LOAD per key), then a restart that replays it.
    expect_ok(&mut c, &["CONFIG", "SET", "appendonly", "yes"]);
    wait_for_aof_rewrite(&mut c);
    let before = core_metrics(&mut c);
    drop(c);
    server.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]);
    let mut c = server.conn();
    assert_eq!(core_metrics(&mut c), before);
    assert_eq!(before, from_keys(&mut c, &["a", "b", "c"]));
    // SYNC: Valkey flushes in the background by default (lazyfree-lazy-user-flush), and the
    // metrics fall as values are freed, on valkey-bloom as here; a plain FLUSHALL's INFO
    // right after races that free.
    expect_ok(&mut c, &["FLUSHALL", "SYNC"]);
    assert!(core_metrics(&mut c).iter().all(|(_, v)| *v == 0));
}

#[test]
fn the_dialect_names_commands_as_valkey_bloom_and_leaves_rsbloom_keys_alone() {
    let mut server = valkey_server(&[]);
    let mut c = server.conn();
    expect_int(&mut c, &["BF.ADD", "k", "x"], 1);
    let stats = info_section(&mut c, "commandstats");
    assert!(stats.contains("cmdstat_BF.ADD:calls=1"), "{stats}");
    // RedisBloom's clients name the commands in any case: the server looks them up so.
    expect_int(&mut c, &["bf.exists", "k", "x"], 1);
    // Shards, KEYED and BLOCKED are rsbloom's own filters whatever the format.
    expect_ok(
        &mut c,
        &[
            "BF.RESERVE",
            "{0}n:0",
            "0.01",
            "1000",
            "SHARD",
            "n",
            "0",
            "1",
        ],
    );
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "{0}n:0"])), "RSbloom--");
    expect_ok(&mut c, &["BF.RESERVE", "kd", "0.01", "1000", "KEYED"]);
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "kd"])), "RSbloom--");
    expect_ints(
        &mut c,
        &["BF.INSERT", "bl", "BLOCKED", "ITEMS", "a", "b"],
        &[1, 1],
    );
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "bl"])), "RSbloom--");
    // On rsbloom's keys its grammar holds: INSERT still needs ITEMS and an item.
    expect_err(
        &mut c,
        &["BF.INSERT", "bl"],
        "ERR wrong number of arguments for 'BF.INSERT' command",
    );
    expect_ints(&mut c, &["BF.MEXISTS", "bl", "a", "zz"], &[1, 0]);
    server.assert_alive();
}

#[test]
fn without_the_load_argument_the_commands_keep_redisblooms_metadata() {
    // The format set later (CONFIG SET) changes what new keys are, never the registration.
    let mut server = Server::start_with(ServerOpts::default().on(&Installed::get("valkey-9.1")));
    let mut c = server.conn();
    expect_ok(&mut c, &["CONFIG", "SET", "bf.new-filter-format", "valkey"]);
    let Value::Array(entries) = raw(&mut c, &["COMMAND", "INFO", "BF.ADD", "BF.INSERT"]) else {
        panic!("COMMAND INFO")
    };
    let fields = |e: &Value| match e {
        Value::Array(f) => (as_text(&f[0]), as_int(&f[1])),
        other => panic!("{other:?}"),
    };
    assert_eq!(fields(&entries[0]), ("bf.add".to_string(), 3));
    assert_eq!(fields(&entries[1]), ("bf.insert".to_string(), -4));
    // The argument-level answers follow the format all the same.
    expect_ok(&mut c, &["SET", "s", "x"]);
    expect_err_prefix(&mut c, &["BF.EXISTS", "s", "a"], "WRONGTYPE");
    expect_err(
        &mut c,
        &["BF.INSERT", "k"],
        "ERR wrong number of arguments for 'bf.insert' command",
    );
    server.assert_alive();
}
