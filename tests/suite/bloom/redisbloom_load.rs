//! RedisBloom compatibility: `MBbloom--` filters (RedisBloom v2.8's own type and data
//! format) against the ground truth recorded from RedisBloom v2.8.20 on Redis 7.0.15 in
//! `tests/vectors/redisbloom/`.
//!
//! Each of the nine configurations is loaded every way a RedisBloom dataset arrives (RESTORE
//! of its DUMP, BF.LOADCHUNK of its SCANDUMP, a server started on its RDB, a server replaying
//! its AOF) and rebuilt from its items with `bf.new-filter-format redisbloom`; afterwards
//! every reply RedisBloom gave (TYPE, the answers, BF.INFO, BF.CARD, BF.DEBUG, MEMORY USAGE)
//! and every byte it wrote (DUMP, SCANDUMP, the AOF rewrite) must be the same. The tests
//! collect every mismatch, named by configuration and load path, before failing.

use rsbloom_test_support as common;

use common::rdb::dump_body;
use common::redisbloom::{self, bytes_diff, short, Config, Report};
use common::*;
use redis::{Connection, Value};
use std::fs;

/// `BF.MEXISTS` of all items in pipelined batches, or why the answers are unusable.
fn mexists(c: &mut Connection, key: &str, items: &[Vec<u8>]) -> Result<Vec<i64>, String> {
    let mut out = Vec::with_capacity(items.len());
    let batches: Vec<&[Vec<u8>]> = items.chunks(BATCH).collect();
    for group in batches.chunks(PIPELINE) {
        let cmds = group
            .iter()
            .map(|batch| {
                let mut cmd = redis::cmd("BF.MEXISTS");
                cmd.arg(key);
                for item in batch.iter() {
                    cmd.arg(item.as_slice());
                }
                cmd
            })
            .collect();
        let replies = raw_pipeline(c, cmds).map_err(|e| format!("BF.MEXISTS failed: {e}"))?;
        for (reply, batch) in replies.iter().zip(group) {
            match reply {
                Value::Array(answers) if answers.len() == batch.len() => {
                    for a in answers {
                        match a {
                            Value::Int(n) => out.push(*n),
                            other => return Err(format!("BF.MEXISTS element {}", short(other))),
                        }
                    }
                }
                other => return Err(format!("BF.MEXISTS answered {}", short(other))),
            }
        }
    }
    Ok(out)
}

/// The full `BF.SCANDUMP` sequence (without the final `[0, ""]`), or why it broke off.
fn scandump_steps(c: &mut Connection, key: &str) -> Result<Vec<Chunk>, String> {
    let mut steps = Vec::new();
    let mut iter = 0i64;
    loop {
        let v = raw(c, &["BF.SCANDUMP", key, &iter.to_string()]);
        let (next, data) = match &v {
            Value::Array(items) if items.len() == 2 => match (&items[0], &items[1]) {
                (Value::Int(n), Value::BulkString(b)) => (*n, b.clone()),
                _ => return Err(format!("BF.SCANDUMP {iter} answered {}", short(&v))),
            },
            _ => return Err(format!("BF.SCANDUMP {iter} answered {}", short(&v))),
        };
        if next == 0 {
            if !data.is_empty() {
                return Err(format!("the final step carries {} bytes", data.len()));
            }
            return Ok(steps);
        }
        steps.push(Chunk {
            sent: iter,
            next,
            data,
        });
        if steps.len() > 1000 {
            return Err("more than 1000 steps".to_string());
        }
        iter = next;
    }
}

/// Check the key of `cfg` against everything RedisBloom recorded for it.
fn verify(c: &mut Connection, cfg: &Config, path: &str, r: &mut Report) {
    let key = cfg.name;
    let ty = raw(c, &["TYPE", key]);
    r.check_eq(
        key,
        path,
        "TYPE",
        &ty,
        &Value::SimpleString(cfg.type_name.clone()),
    );
    if ty == Value::SimpleString("none".to_string()) {
        return; // Nothing else can match.
    }
    r.check_eq(
        key,
        path,
        "OBJECT ENCODING",
        &raw(c, &["OBJECT", "ENCODING", key]),
        &Value::BulkString(cfg.encoding.as_bytes().to_vec()),
    );

    match mexists(c, key, &cfg.items) {
        Ok(answers) => {
            let misses: Vec<usize> = (0..answers.len()).filter(|&i| answers[i] != 1).collect();
            if !misses.is_empty() {
                r.fail(
                    key,
                    path,
                    format!(
                        "{} of {} inserted items answer 0 (first indices {:?})",
                        misses.len(),
                        cfg.items.len(),
                        &misses[..misses.len().min(10)]
                    ),
                );
            }
        }
        Err(e) => r.fail(key, path, format!("inserted items: {e}")),
    }
    match mexists(c, key, &cfg.queries) {
        Ok(answers) => {
            let differ: Vec<String> = (0..answers.len())
                .filter(|&i| answers[i] != cfg.answers[i])
                .map(|i| format!("q:{i} got {} want {}", answers[i], cfg.answers[i]))
                .collect();
            if !differ.is_empty() {
                r.fail(
                    key,
                    path,
                    format!(
                        "{} of {} query answers differ from RedisBloom's ({})",
                        differ.len(),
                        answers.len(),
                        differ[..differ.len().min(10)].join(", ")
                    ),
                );
            }
        }
        Err(e) => r.fail(key, path, format!("queries: {e}")),
    }

    r.check_eq(key, path, "BF.INFO", &raw(c, &["BF.INFO", key]), &cfg.info);
    r.check_eq(key, path, "BF.CARD", &raw(c, &["BF.CARD", key]), &cfg.card);
    r.check_eq(
        key,
        path,
        "BF.DEBUG",
        &raw(c, &["BF.DEBUG", key]),
        &cfg.debug,
    );
    // The module's bytes of the DUMP (its RDB value): RedisBloom's were recorded on Redis
    // 7.0, whose RDB version (and so the CRC after it) other servers do not share.
    match raw(c, &["DUMP", key]) {
        Value::BulkString(b) if dump_body(&b) == dump_body(&cfg.dump) => {}
        Value::BulkString(b) => r.fail(
            key,
            path,
            format!("DUMP: {}", bytes_diff(dump_body(&b), dump_body(&cfg.dump))),
        ),
        other => r.fail(key, path, format!("DUMP answered {}", short(&other))),
    }

    match scandump_steps(c, key) {
        Ok(steps) => {
            if steps.len() != cfg.scandump.len() {
                r.fail(
                    key,
                    path,
                    format!(
                        "BF.SCANDUMP: {} steps, RedisBloom has {}",
                        steps.len(),
                        cfg.scandump.len()
                    ),
                );
            }
            for (i, (got, want)) in steps.iter().zip(&cfg.scandump).enumerate() {
                if (got.sent, got.next) != (want.sent, want.next) {
                    r.fail(
                        key,
                        path,
                        format!(
                            "BF.SCANDUMP step {i}: iterator {} -> {}, RedisBloom {} -> {}",
                            got.sent, got.next, want.sent, want.next
                        ),
                    );
                } else if got.data != want.data {
                    r.fail(
                        key,
                        path,
                        format!(
                            "BF.SCANDUMP step {i} (iterator {}) data: {}",
                            got.sent,
                            bytes_diff(&got.data, &want.data)
                        ),
                    );
                }
            }
        }
        Err(e) => r.fail(key, path, format!("BF.SCANDUMP: {e}")),
    }

    // MEMORY USAGE is the module's share (RedisBloom's is its BF.INFO Size) plus the
    // server's own for the key, which depends on the server and its allocator (Redis 8 and
    // Valkey store keys otherwise, Valkey builds use libc malloc). On the recording server
    // (Redis 7.0, jemalloc) it is compared as recorded; elsewhere the module's share is
    // compared: MEMORY USAGE minus this server's overhead for this very key must be
    // RedisBloom's Size. Last, as measuring that overhead puts the key back from its DUMP.
    if redisbloom::is_recording_server(c) {
        r.check_eq(
            key,
            path,
            "MEMORY USAGE",
            &raw(c, &["MEMORY", "USAGE", key]),
            &cfg.memory_usage,
        );
    } else {
        let usage = as_int(&raw(c, &["MEMORY", "USAGE", key]));
        let overhead = redisbloom::key_overhead(c, key);
        let share = usage - overhead;
        let want = redisbloom::recorded_info_size(&cfg.info);
        if share != want {
            r.fail(
                key,
                path,
                format!(
                    "MEMORY USAGE minus the server's overhead ({overhead}): got {share}, \
                     expected {want}"
                ),
            );
        }
    }
}

/// Check that a loaded dataset holds exactly the nine keys, then each key.
fn verify_dataset(c: &mut Connection, cfgs: &[Config], path: &str, r: &mut Report) {
    let dbsize = raw(c, &["DBSIZE"]);
    r.check_eq(
        "all",
        path,
        "DBSIZE",
        &dbsize,
        &Value::Int(cfgs.len() as i64),
    );
    for cfg in cfgs {
        verify(c, cfg, path, r);
    }
}

/// RESTORE of each configuration's DUMP under its own name; false (and reported) if refused.
fn restore(c: &mut Connection, cfg: &Config, r: &mut Report) -> bool {
    let v = raw(c, &[b"RESTORE", cfg.name.as_bytes(), b"0", &cfg.dump]);
    if v != Value::Okay {
        r.fail(
            cfg.name,
            "RESTORE",
            format!("RESTORE answered {}", short(&v)),
        );
    }
    v == Value::Okay
}

#[test]
fn restore_of_redisbloom_dumps() {
    let cfgs = redisbloom::all();
    let s = Server::start();
    let mut c = s.conn();
    let mut r = Report::new();
    for cfg in &cfgs {
        if restore(&mut c, cfg, &mut r) {
            verify(&mut c, cfg, "RESTORE", &mut r);
        }
    }
    r.finish();
}

#[test]
fn loadchunk_of_redisbloom_scandumps() {
    let cfgs = redisbloom::all();
    let s = Server::start();
    let mut c = s.conn();
    let mut r = Report::new();
    let path = "BF.LOADCHUNK";
    for cfg in &cfgs {
        let mut loaded = true;
        for step in &cfg.scandump {
            let iter = step.next.to_string();
            let args: [&[u8]; 4] = [
                b"BF.LOADCHUNK",
                cfg.name.as_bytes(),
                iter.as_bytes(),
                &step.data,
            ];
            let v = raw(&mut c, &args);
            if v != Value::Okay {
                r.fail(
                    cfg.name,
                    path,
                    format!("BF.LOADCHUNK {} {iter} answered {}", cfg.name, short(&v)),
                );
                loaded = false;
                break;
            }
        }
        if loaded {
            verify(&mut c, cfg, path, &mut r);
        }
    }
    r.finish();
}

/// RedisBloom's `SAVE` output, placed as the server's `dump.rdb` before it starts.
#[test]
fn server_starts_on_redisbloom_rdb() {
    let cfgs = redisbloom::all();
    let s = Server::start_prepared(ServerOpts::default(), |dir| {
        fs::write(dir.join("dump.rdb"), redisbloom::read_bytes("all.rdb")).expect("dump.rdb");
    });
    let mut c = s.conn();
    let mut r = Report::new();
    verify_dataset(&mut c, &cfgs, "all.rdb", &mut r);
    r.finish();
}

/// RedisBloom's AOF rewrite output, placed as the base file of a Redis 7 AOF directory with
/// its manifest, and replayed at start-up.
#[test]
fn server_replays_redisbloom_aof() {
    let cfgs = redisbloom::all();
    let opts = ServerOpts::server_args(&["--appendonly", "yes"]);
    let s = Server::start_prepared(opts, |dir| {
        let aof = dir.join("appendonlydir");
        fs::create_dir(&aof).expect("appendonlydir");
        fs::write(
            aof.join("appendonly.aof.1.base.aof"),
            redisbloom::read_bytes("all.base.aof"),
        )
        .expect("base AOF");
        fs::write(
            aof.join("appendonly.aof.manifest"),
            "file appendonly.aof.1.base.aof seq 1 type b\n",
        )
        .expect("manifest");
    });
    let mut c = s.conn();
    let mut r = Report::new();
    verify_dataset(&mut c, &cfgs, "all.base.aof", &mut r);
    r.finish();
}

/// Rebuild `cfg` with its recorded commands: BF.RESERVE as recorded, then BF.MADD in batches
/// of 1000 or one BF.ADD per item. Returns the reply of each add, in item order.
fn rebuild(c: &mut Connection, cfg: &Config) -> Result<Vec<Value>, String> {
    let mut replies = Vec::new();
    for command in &cfg.commands {
        let words: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(words[1], cfg.name, "{}: key of {command:?}", cfg.name);
        let per_item = match words[0] {
            "BF.RESERVE" => {
                let v = raw(c, &words);
                if v != Value::Okay {
                    return Err(format!("`{command}` answered {}", short(&v)));
                }
                continue;
            }
            "BF.MADD" => BATCH,
            "BF.ADD" => 1,
            other => panic!("{}: unknown recorded command {other}", cfg.name),
        };
        let batches: Vec<&[Vec<u8>]> = cfg.items.chunks(per_item).collect();
        for group in batches.chunks(PIPELINE) {
            let cmds = group
                .iter()
                .map(|batch| {
                    let mut cmd = redis::cmd(words[0]);
                    cmd.arg(cfg.name);
                    for item in batch.iter() {
                        cmd.arg(item.as_slice());
                    }
                    cmd
                })
                .collect();
            let got = raw_pipeline(c, cmds).map_err(|e| format!("{} failed: {e}", words[0]))?;
            for reply in got {
                match reply {
                    Value::Array(elements) if per_item > 1 => replies.extend(elements),
                    other if per_item == 1 => replies.push(other),
                    other => return Err(format!("{} answered {}", words[0], short(&other))),
                }
            }
        }
    }
    Ok(replies)
}

/// With `bf.new-filter-format redisbloom`, the recorded commands give RedisBloom's replies
/// and a filter identical to RedisBloom's, byte for byte.
#[test]
fn redisbloom_format_rebuilds_identical_filters() {
    let cfgs = redisbloom::all();
    let s = Server::start_with(ServerOpts::module_args(&[
        "new-filter-format",
        "redisbloom",
    ]));
    let mut c = s.conn();
    let mut r = Report::new();
    let path = "rebuild";
    for cfg in &cfgs {
        let replies = match rebuild(&mut c, cfg) {
            Ok(v) => v,
            Err(e) => {
                r.fail(cfg.name, path, e);
                continue;
            }
        };
        if replies.len() != cfg.items.len() {
            r.fail(
                cfg.name,
                path,
                format!(
                    "{} add replies for {} items",
                    replies.len(),
                    cfg.items.len()
                ),
            );
        }
        let ones = replies.iter().filter(|v| **v == Value::Int(1)).count();
        let zeros: Vec<usize> = (0..replies.len())
            .filter(|&i| replies[i] == Value::Int(0))
            .collect();
        let others: Vec<String> = (0..replies.len())
            .filter(|&i| !matches!(replies[i], Value::Int(0) | Value::Int(1)))
            .map(|i| format!("item {i}: {}", short(&replies[i])))
            .collect();
        if ones != cfg.replied_1 {
            r.fail(
                cfg.name,
                path,
                format!("{ones} adds answered 1, RedisBloom {}", cfg.replied_1),
            );
        }
        if zeros != cfg.replied_0 {
            let only = |a: &[usize], b: &[usize]| -> Vec<usize> {
                a.iter()
                    .filter(|i| !b.contains(i))
                    .take(20)
                    .copied()
                    .collect()
            };
            r.fail(
                cfg.name,
                path,
                format!(
                    "{} adds answered 0, RedisBloom {}; only here at {:?}, only in RedisBloom \
                     at {:?}",
                    zeros.len(),
                    cfg.replied_0.len(),
                    only(&zeros, &cfg.replied_0),
                    only(&cfg.replied_0, &zeros)
                ),
            );
        }
        if !others.is_empty() {
            r.fail(
                cfg.name,
                path,
                format!(
                    "{} adds answered neither 0 nor 1: {}",
                    others.len(),
                    others[..others.len().min(5)].join(", ")
                ),
            );
        }
        verify(&mut c, cfg, path, &mut r);
    }
    r.finish();
}

/// An AOF rewrite without the RDB preamble writes each `MBbloom--` filter as RedisBloom
/// does: `BF.LOADCHUNK key 1 <header>`, then one BF.LOADCHUNK per SCANDUMP chunk, the very
/// bytes of RedisBloom's SCANDUMP; replaying that AOF gives the same filters back.
#[test]
fn aof_rewrite_writes_redisbloom_loadchunks() {
    let cfgs = redisbloom::all();
    let mut s = Server::start();
    let mut c = s.conn();
    let mut r = Report::new();
    let path = "AOF rewrite";
    for cfg in &cfgs {
        restore(&mut c, cfg, &mut r);
    }
    expect_ok(&mut c, &["CONFIG", "SET", "aof-use-rdb-preamble", "no"]);
    expect_ok(&mut c, &["CONFIG", "SET", "appendonly", "yes"]);
    wait_for_aof_rewrite(&mut c);

    let (base, bytes) = s.aof_base();
    let commands = parse_aof(&bytes).unwrap_or_else(|e| panic!("{base} is not plain RESP: {e}"));
    for cfg in &cfgs {
        let got: Vec<&Vec<Vec<u8>>> = commands
            .iter()
            .filter(|a| a.len() > 1 && a[1] == cfg.name.as_bytes())
            .collect();
        let want: Vec<Vec<Vec<u8>>> = cfg
            .scandump
            .iter()
            .map(|step| {
                vec![
                    b"BF.LOADCHUNK".to_vec(),
                    cfg.name.as_bytes().to_vec(),
                    step.next.to_string().into_bytes(),
                    step.data.clone(),
                ]
            })
            .collect();
        if got.len() != want.len() {
            r.fail(
                cfg.name,
                path,
                format!(
                    "{} commands for the key in {base}, RedisBloom's SCANDUMP has {} steps",
                    got.len(),
                    want.len()
                ),
            );
        }
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let shown = |a: &[Vec<u8>]| show_args(&a[..a.len().min(3)]);
            if g.len() != 4 || !g[0].eq_ignore_ascii_case(&w[0]) || g[1..3] != w[1..3] {
                r.fail(
                    cfg.name,
                    path,
                    format!(
                        "command {i} is `{} ...`, expected `{} ...`",
                        shown(g),
                        shown(w)
                    ),
                );
            } else if g[3] != w[3] {
                r.fail(
                    cfg.name,
                    path,
                    format!(
                        "command {i} (iterator {}) data: {}",
                        String::from_utf8_lossy(&w[2]),
                        bytes_diff(&g[3], &w[3])
                    ),
                );
            }
        }
    }
    for a in &commands {
        let known = a.len() > 1 && cfgs.iter().any(|cfg| a[1] == cfg.name.as_bytes());
        if !known && !a[0].eq_ignore_ascii_case(b"SELECT") {
            r.fail(
                "all",
                path,
                format!("unexpected command `{}`", show_args(a)),
            );
        }
    }

    drop(c);
    s.restart(&["--appendonly", "yes"]);
    let mut c = s.conn();
    verify_dataset(&mut c, &cfgs, "replay of the rewritten AOF", &mut r);
    r.finish();
}

/// Both types live side by side: the default format makes `RSbloom--` filters, a restored
/// `MBbloom--` filter keeps working next to them, and `bf.new-filter-format` switches what
/// new filters are (bad values refused). BF.EXPORT GUAVA refuses an `MBbloom--` filter, whose
/// bits are hashed differently.
#[test]
fn mixed_types_and_the_format_config() {
    let tiny = Config::load("tiny");
    let s = Server::start();
    let mut c = s.conn();
    let mut r = Report::new();
    let format = "bf.new-filter-format";
    let type_of = |c: &mut Connection, key: &str| as_text(&raw(c, &["TYPE", key]));

    assert_eq!(config_get(&mut c, format), "guava", "default {format}");
    expect_ok(&mut c, &["BF.RESERVE", "g", "0.01", "100"]);
    expect_int(&mut c, &["BF.ADD", "g", "hello"], 1);
    assert_eq!(type_of(&mut c, "g"), "RSbloom--");
    if restore(&mut c, &tiny, &mut r) {
        verify(&mut c, &tiny, "RESTORE next to an RSbloom-- key", &mut r);
    }
    r.finish();

    let v = raw(&mut c, &["BF.EXPORT", "tiny", "GUAVA"]);
    assert!(
        err_of(&v).is_some(),
        "BF.EXPORT GUAVA of an MBbloom-- filter answered {}",
        short(&v)
    );
    as_bytes(&raw(&mut c, &["BF.EXPORT", "g", "GUAVA"]));
    expect_ints(&mut c, &["BF.INFO", "tiny", "CAPACITY"], &[10]);
    // A query RedisBloom answered 0 for is new: adding it answers 1 and counts.
    let fresh = tiny
        .answers
        .iter()
        .position(|&a| a == 0)
        .expect("a 0 query");
    let item = &tiny.queries[fresh];
    expect_int(&mut c, &[&b"BF.ADD"[..], b"tiny", item], 1);
    expect_int(&mut c, &[&b"BF.EXISTS"[..], b"tiny", item], 1);
    expect_int(&mut c, &["BF.CARD", "tiny"], 6);
    expect_int(&mut c, &["BF.EXISTS", "g", "hello"], 1);

    // redisbloom: every creating command makes an MBbloom-- filter, RedisBloom's very bytes.
    expect_ok(&mut c, &["CONFIG", "SET", format, "redisbloom"]);
    assert_eq!(config_get(&mut c, format), "redisbloom");
    expect_ok(&mut c, &["BF.RESERVE", "t2", "0.01", "10"]);
    let t_items: Vec<&[u8]> = tiny.items.iter().map(Vec::as_slice).collect();
    let mut madd: Vec<&[u8]> = vec![b"BF.MADD", b"t2"];
    madd.extend(&t_items);
    expect_ints(&mut c, &madd, &[1; 5]);
    assert_eq!(type_of(&mut c, "t2"), "MBbloom--");
    let dump = as_bytes(&raw(&mut c, &["DUMP", "t2"]));
    // The value's bytes (the footer's RDB version and CRC are the server's).
    assert!(
        dump_body(&dump) == dump_body(&tiny.dump),
        "DUMP of tiny rebuilt after CONFIG SET: {}",
        bytes_diff(dump_body(&dump), dump_body(&tiny.dump))
    );
    expect_int(&mut c, &["BF.ADD", "viaadd", "x"], 1);
    expect_ints(&mut c, &["BF.MADD", "viamadd", "x"], &[1]);
    expect_ints(&mut c, &["BF.INSERT", "viainsert", "ITEMS", "x"], &[1]);
    for key in ["viaadd", "viamadd", "viainsert"] {
        assert_eq!(type_of(&mut c, key), "MBbloom--", "TYPE {key}");
    }
    // Existing filters keep their type.
    assert_eq!(type_of(&mut c, "g"), "RSbloom--");
    expect_int(&mut c, &["BF.ADD", "g", "world"], 1);

    // Back to guava.
    expect_ok(&mut c, &["CONFIG", "SET", format, "guava"]);
    assert_eq!(config_get(&mut c, format), "guava");
    expect_int(&mut c, &["BF.ADD", "g2", "x"], 1);
    assert_eq!(type_of(&mut c, "g2"), "RSbloom--");
    assert_eq!(type_of(&mut c, "viaadd"), "MBbloom--");

    let v = raw(&mut c, &["CONFIG", "SET", format, "bloomier"]);
    assert!(
        err_of(&v).is_some(),
        "CONFIG SET {format} bloomier answered {v:?}"
    );
    assert_eq!(config_get(&mut c, format), "guava");
}
