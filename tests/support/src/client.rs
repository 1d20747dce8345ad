//! Sending commands and reading replies without the client hiding anything: errors, also
//! errors nested in arrays, come back as `Value::ServerError`, so tests can check exact texts.

use redis::{Cmd, Connection, ConnectionLike, Value};

/// Items sent per BF.MADD / BF.MEXISTS in the big fills.
pub const BATCH: usize = 1000;
/// Commands per pipeline round trip in the big fills.
pub const PIPELINE: usize = 16;

/// A command from its arguments (the first one is the command name).
pub fn build<A: AsRef<[u8]>>(args: &[A]) -> Cmd {
    let mut c = redis::cmd(std::str::from_utf8(args[0].as_ref()).expect("command name"));
    for a in &args[1..] {
        c.arg(a.as_ref());
    }
    c
}

/// Send a command and return the reply as it came, errors included.
pub fn raw<A: AsRef<[u8]>>(con: &mut Connection, args: &[A]) -> Value {
    con.req_command(&build(args))
        .unwrap_or_else(|e| panic!("I/O failure on {}: {e}", show_args(args)))
}

/// Human-readable arguments for assertion messages.
pub fn show_args<A: AsRef<[u8]>>(args: &[A]) -> String {
    args.iter()
        .map(|a| {
            let s = String::from_utf8_lossy(a.as_ref());
            if s.len() > 40 {
                format!(
                    "{}...",
                    &s[..s.char_indices().nth(40).map_or(s.len(), |c| c.0)]
                )
            } else {
                s.into_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The full text of an error reply (`CODE detail`), or None for any other reply.
pub fn err_of(v: &Value) -> Option<String> {
    match v {
        Value::ServerError(e) => Some(match e.details() {
            Some(d) => format!("{} {}", e.code(), d),
            None => e.code().to_string(),
        }),
        _ => None,
    }
}

/// Assert that a command answers exactly this error text.
pub fn expect_err<A: AsRef<[u8]>>(con: &mut Connection, args: &[A], expected: &str) {
    let v = raw(con, args);
    assert_eq!(
        err_of(&v).as_deref(),
        Some(expected),
        "`{}` answered {v:?}, expected error {expected:?}",
        show_args(args)
    );
}

/// Assert that a command answers an error that starts with `prefix`; returns the text.
pub fn expect_err_prefix<A: AsRef<[u8]>>(con: &mut Connection, args: &[A], prefix: &str) -> String {
    let v = raw(con, args);
    match err_of(&v) {
        Some(text) if text.starts_with(prefix) => text,
        _ => panic!(
            "`{}` answered {v:?}, expected an error starting with {prefix:?}",
            show_args(args)
        ),
    }
}

/// Assert that a command answers `OK`.
pub fn expect_ok<A: AsRef<[u8]>>(con: &mut Connection, args: &[A]) {
    let v = raw(con, args);
    assert_eq!(v, Value::Okay, "`{}` answered {v:?}", show_args(args));
}

/// Assert that a command answers this integer.
pub fn expect_int<A: AsRef<[u8]>>(con: &mut Connection, args: &[A], n: i64) {
    let v = raw(con, args);
    assert_eq!(v, Value::Int(n), "`{}` answered {v:?}", show_args(args));
}

/// Assert that a command answers an array of exactly these integers.
pub fn expect_ints<A: AsRef<[u8]>>(con: &mut Connection, args: &[A], ns: &[i64]) {
    let v = raw(con, args);
    let want = Value::Array(ns.iter().map(|&n| Value::Int(n)).collect());
    assert_eq!(v, want, "`{}` answered {v:?}", show_args(args));
}

/// The integer of an integer reply; panics on anything else.
pub fn as_int(v: &Value) -> i64 {
    match v {
        Value::Int(n) => *n,
        other => panic!("expected an integer reply, got {other:?}"),
    }
}

/// The integers of an array of integers; panics on anything else.
pub fn as_ints(v: &Value) -> Vec<i64> {
    match v {
        Value::Array(items) => items.iter().map(as_int).collect(),
        other => panic!("expected an array of integers, got {other:?}"),
    }
}

/// The text of a bulk or simple string reply.
pub fn as_text(v: &Value) -> String {
    match v {
        Value::BulkString(b) => String::from_utf8(b.clone()).expect("utf-8 reply"),
        Value::SimpleString(s) => s.clone(),
        Value::Okay => "OK".to_string(),
        other => panic!("expected a string reply, got {other:?}"),
    }
}

/// The bytes of a bulk string reply.
pub fn as_bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::BulkString(b) => b.clone(),
        other => panic!("expected a bulk string reply, got {other:?}"),
    }
}

/// `BF.DEBUG key` as its lines; asserts every element is a bulk string.
pub fn bf_debug(con: &mut Connection, key: &str) -> Vec<String> {
    match raw(con, &["BF.DEBUG", key]) {
        Value::Array(items) => items
            .iter()
            .map(|v| match v {
                Value::BulkString(b) => String::from_utf8(b.clone()).expect("utf-8"),
                other => panic!("BF.DEBUG element is not a bulk string: {other:?}"),
            })
            .collect(),
        other => panic!("BF.DEBUG {key} answered {other:?}"),
    }
}

/// `BF.INFO key` in RESP2 as (name, value) pairs; asserts names are simple strings.
pub fn bf_info(con: &mut Connection, key: &str) -> Vec<(String, Value)> {
    match raw(con, &["BF.INFO", key]) {
        Value::Array(items) => {
            assert_eq!(items.len() % 2, 0, "odd BF.INFO array: {items:?}");
            items
                .chunks(2)
                .map(|pair| match &pair[0] {
                    Value::SimpleString(name) => (name.clone(), pair[1].clone()),
                    other => panic!("BF.INFO field name is not a simple string: {other:?}"),
                })
                .collect()
        }
        other => panic!("BF.INFO {key} answered {other:?}"),
    }
}

/// One integer field of `BF.INFO key` (full form), by its name as listed.
pub fn info_value(con: &mut Connection, key: &str, name: &str) -> Value {
    bf_info(con, key)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("BF.INFO {key} has no {name:?}"))
        .1
}

/// `BF.CARD key`.
pub fn card(con: &mut Connection, key: &str) -> i64 {
    as_int(&raw(con, &["BF.CARD", key]))
}

/// Items `prefix0`, `prefix1`, ... for the given range.
pub fn gen_items(prefix: &str, range: std::ops::Range<usize>) -> Vec<Vec<u8>> {
    range.map(|i| format!("{prefix}{i}").into_bytes()).collect()
}

/// Run one multi-item command over all items in pipelined batches; RESP2 integer answers.
fn batched(con: &mut Connection, command: &str, key: &str, items: &[Vec<u8>]) -> Vec<i64> {
    let mut out = Vec::with_capacity(items.len());
    let batches: Vec<&[Vec<u8>]> = items.chunks(BATCH).collect();
    for group in batches.chunks(PIPELINE) {
        let mut pipe = redis::pipe();
        for batch in group {
            let c = pipe.cmd(command).arg(key);
            for item in batch.iter() {
                c.arg(item.as_slice());
            }
        }
        let replies: Vec<Value> = pipe
            .query(con)
            .unwrap_or_else(|e| panic!("{command} {key} batch failed: {e}"));
        for (reply, batch) in replies.iter().zip(group) {
            let answers = as_ints(reply);
            assert_eq!(
                answers.len(),
                batch.len(),
                "{command} answered a short array"
            );
            out.extend(answers);
        }
    }
    out
}

/// BF.MADD of all items (pipelined batches); the 1/0 answers in order.
pub fn madd_all(con: &mut Connection, key: &str, items: &[Vec<u8>]) -> Vec<i64> {
    batched(con, "BF.MADD", key, items)
}

/// BF.MEXISTS of all items (pipelined batches); the 1/0 answers in order.
pub fn mexists_all(con: &mut Connection, key: &str, items: &[Vec<u8>]) -> Vec<i64> {
    batched(con, "BF.MEXISTS", key, items)
}

/// One step of the chunked dump: the iterator sent, and the `[next, data]` answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    pub sent: i64,
    pub next: i64,
    pub data: Vec<u8>,
}

/// Run `BF.SCANDUMP` from 0 to the end; returns every step except the final `[0, ""]`.
pub fn scandump(con: &mut Connection, key: &str) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut iter = 0i64;
    loop {
        let v = raw(con, &["BF.SCANDUMP", key, &iter.to_string()]);
        let (next, data) = match &v {
            Value::Array(items) if items.len() == 2 => (as_int(&items[0]), as_bytes(&items[1])),
            other => panic!("BF.SCANDUMP {key} {iter} answered {other:?}"),
        };
        if next == 0 {
            assert!(data.is_empty(), "final SCANDUMP step carries data");
            return chunks;
        }
        chunks.push(Chunk {
            sent: iter,
            next,
            data,
        });
        assert!(chunks.len() < 10_000_000, "SCANDUMP never ends");
        iter = next;
    }
}

/// Feed a SCANDUMP sequence into `BF.LOADCHUNK key next data`, asserting OK each time.
pub fn loadchunks(con: &mut Connection, key: &str, chunks: &[Chunk]) {
    for c in chunks {
        let iter = c.next.to_string();
        let args: [&[u8]; 4] = [b"BF.LOADCHUNK", key.as_bytes(), iter.as_bytes(), &c.data];
        expect_ok(con, &args);
    }
}

/// A section of INFO as text.
pub fn info_section(con: &mut Connection, section: &str) -> String {
    as_text(&raw(con, &["INFO", section]))
}

/// One `name:value` line of an INFO section.
pub fn info_field(con: &mut Connection, section: &str, name: &str) -> Option<String> {
    let text = info_section(con, section);
    text.lines().find_map(|l| {
        l.strip_prefix(&format!("{name}:"))
            .map(|v| v.trim().to_string())
    })
}

/// `cmdstat_<name>` calls in `INFO commandstats` (0 when never called).
pub fn command_calls(con: &mut Connection, name: &str) -> i64 {
    let text = info_section(con, "commandstats");
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("cmdstat_{name}:calls=")))
        .map(|rest| rest.split(',').next().unwrap().parse().expect("calls"))
        .unwrap_or(0)
}

/// `DEBUG DIGEST-VALUE key` as hex text.
pub fn digest_value(con: &mut Connection, key: &str) -> String {
    match raw(con, &["DEBUG", "DIGEST-VALUE", key]) {
        Value::Array(items) if items.len() == 1 => as_text(&items[0]),
        other => panic!("DEBUG DIGEST-VALUE {key} answered {other:?}"),
    }
}

/// `MEMORY USAGE key`.
pub fn memory_usage(con: &mut Connection, key: &str) -> i64 {
    as_int(&raw(con, &["MEMORY", "USAGE", key]))
}

/// Send commands in one pipeline and return every reply as it came, errors included (the
/// client's own pipeline turns the first error reply into a failure of the whole batch).
pub fn raw_pipeline(con: &mut Connection, cmds: Vec<Cmd>) -> redis::RedisResult<Vec<Value>> {
    let n = cmds.len();
    let mut pipe = redis::pipe();
    for c in cmds {
        pipe.add_command(c);
    }
    con.req_packed_commands(&pipe.get_packed_pipeline(), 0, n)
}

/// Switches the AOF on, with or without the RDB preamble, and waits for its first rewrite.
/// Each write reaches the file before its reply (`appendfsync always`): with everysec a busy
/// machine's pending fsync may hold a write back for up to two seconds, and tests read the file.
pub fn aof_always(con: &mut Connection, preamble: bool) {
    let preamble = if preamble { "yes" } else { "no" };
    expect_ok(con, &["CONFIG", "SET", "appendfsync", "always"]);
    expect_ok(con, &["CONFIG", "SET", "aof-use-rdb-preamble", preamble]);
    expect_ok(con, &["CONFIG", "SET", "appendonly", "yes"]);
    wait_for_aof_rewrite(con);
}

/// Wait (up to 60 s) until no AOF rewrite runs or is scheduled; asserts the last one succeeded.
pub fn wait_for_aof_rewrite(con: &mut Connection) {
    wait_for_aof_rewrite_within(con, std::time::Duration::from_secs(60));
}

/// [`wait_for_aof_rewrite`] with another time limit (a rewrite under heavy writes is slower).
pub fn wait_for_aof_rewrite_within(con: &mut Connection, timeout: std::time::Duration) {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        let info = info_section(con, "persistence");
        if info.contains("aof_rewrite_in_progress:0") && info.contains("aof_rewrite_scheduled:0") {
            assert!(
                info.contains("aof_last_bgrewrite_status:ok"),
                "AOF rewrite failed:\n{info}"
            );
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "AOF rewrite did not finish:\n{info}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The commands of an AOF file written without the RDB preamble (RESP arrays of bulk
/// strings), or what is wrong with it.
pub fn parse_aof(bytes: &[u8]) -> Result<Vec<Vec<Vec<u8>>>, String> {
    fn line(b: &[u8], pos: &mut usize) -> Result<String, String> {
        let end = b[*pos..]
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| format!("no CRLF after offset {pos}"))?
            + *pos;
        let s = String::from_utf8_lossy(&b[*pos..end]).into_owned();
        *pos = end + 2;
        Ok(s)
    }
    fn number(text: &str, prefix: char, at: usize) -> Result<usize, String> {
        text.strip_prefix(prefix)
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("expected `{prefix}<n>` at offset {at}, found {text:?}"))
    }
    let mut pos = 0;
    let mut commands = Vec::new();
    while pos < bytes.len() {
        let n = number(&line(bytes, &mut pos)?, '*', pos)?;
        let mut args = Vec::with_capacity(n);
        for _ in 0..n {
            let len = number(&line(bytes, &mut pos)?, '$', pos)?;
            if pos + len + 2 > bytes.len() || &bytes[pos + len..pos + len + 2] != b"\r\n" {
                return Err(format!("bulk string of {len} bytes at offset {pos} is cut"));
            }
            args.push(bytes[pos..pos + len].to_vec());
            pos += len + 2;
        }
        commands.push(args);
    }
    Ok(commands)
}

/// `CONFIG GET name` for one parameter: its value as text.
pub fn config_get(con: &mut Connection, name: &str) -> String {
    match raw(con, &["CONFIG", "GET", name]) {
        Value::Array(items) if items.len() == 2 => {
            assert_eq!(as_text(&items[0]), name);
            as_text(&items[1])
        }
        other => panic!("CONFIG GET {name} answered {other:?}"),
    }
}

/// A COMMAND INFO flag in Redis's words: Valkey 8.1 and later call `skip_slowlog`
/// `skip_commandlog` (its SLOWLOG became part of COMMANDLOG); the flag is the same.
pub fn redis_flag_name(flag: String) -> String {
    match flag.as_str() {
        "skip_commandlog" => "skip_slowlog".into(),
        _ => flag,
    }
}
