//! Reading the RedisBloom v2.8.20 ground truth in `tests/vectors/redisbloom/` (see its
//! README.md), and collecting mismatches so a test can report all of them before it fails.

use super::client::{as_int, info_value, memory_usage, raw};
use super::files::{self, unhex};
use super::Chunk;
use redis::{Connection, Value};
use serde_json::Value as Json;
use std::path::PathBuf;

/// The nine configurations; each is stored under the key of its name.
pub use super::files::REDISBLOOM_CONFIGS as CONFIGS;

/// RedisBloom's BF.INFO fields, in its reply order (the JSON object does not keep an order).
pub const INFO_FIELDS: [&str; 5] = [
    "Capacity",
    "Size",
    "Number of filters",
    "Number of items inserted",
    "Expansion rate",
];

/// The folder of the RedisBloom vectors.
pub fn dir() -> PathBuf {
    files::dir("redisbloom")
}

/// A file of the folder as bytes.
pub fn read_bytes(name: &str) -> Vec<u8> {
    files::read_bytes("redisbloom", name)
}

fn read(name: &str) -> String {
    files::read("redisbloom", name)
}

/// One configuration as RedisBloom built and answered it.
pub struct Config {
    pub name: &'static str,
    /// The commands as recorded: `BF.RESERVE ...` verbatim, `BF.MADD key <items> ...` and
    /// `BF.ADD key <item> ...` as descriptions of how the items went in.
    pub commands: Vec<String>,
    /// The inserted items, in insertion order.
    pub items: Vec<Vec<u8>>,
    /// Adds that answered 1, and the indices of those that answered 0.
    pub replied_1: usize,
    pub replied_0: Vec<usize>,
    /// `TYPE` and `OBJECT ENCODING`.
    pub type_name: String,
    pub encoding: String,
    /// The RESP2 replies of BF.INFO, BF.CARD, BF.DEBUG and MEMORY USAGE.
    pub info: Value,
    pub card: Value,
    pub debug: Value,
    pub memory_usage: Value,
    /// `DUMP key`.
    pub dump: Vec<u8>,
    /// Every BF.SCANDUMP step except the final `[0, ""]`.
    pub scandump: Vec<Chunk>,
    /// The `q:<i>` queries and RedisBloom's answers (1/0).
    pub queries: Vec<Vec<u8>>,
    pub answers: Vec<i64>,
}

fn field<'a>(json: &'a Json, path: &[&str]) -> &'a Json {
    path.iter().fold(json, |j, name| {
        j.get(name)
            .unwrap_or_else(|| panic!("info.json has no {}", path.join(".")))
    })
}

fn int(json: &Json, path: &[&str]) -> i64 {
    field(json, path)
        .as_i64()
        .unwrap_or_else(|| panic!("info.json {} is not an integer", path.join(".")))
}

fn text(json: &Json, path: &[&str]) -> String {
    field(json, path)
        .as_str()
        .unwrap_or_else(|| panic!("info.json {} is not a string", path.join(".")))
        .to_string()
}

/// The items of the JSON `items` entry: a `str.format` rule over `{i}`, or an `.items.hex`
/// file whose every line ends with `\n` (an empty line is the empty item).
fn items(name: &str, spec: &Json) -> Vec<Vec<u8>> {
    let count = int(spec, &["count"]) as usize;
    let items: Vec<Vec<u8>> = if let Some(file) = spec.get("file").and_then(Json::as_str) {
        let text = read(file);
        let body = text
            .strip_suffix('\n')
            .unwrap_or_else(|| panic!("{file} does not end with a newline"));
        body.split('\n').map(unhex).collect()
    } else if let Some(rule) = spec.get("rule").and_then(Json::as_str) {
        let (from, to) = (int(spec, &["i_from"]), int(spec, &["i_to_exclusive"]));
        (from..to)
            .map(|i| rule.replace("{i}", &i.to_string()).into_bytes())
            .collect()
    } else {
        Vec::new()
    };
    assert_eq!(items.len(), count, "{name}: item count");
    items
}

/// `NAME.scandump.tsv` as SCANDUMP steps; checks it ends with the `0\t` line.
fn scandump(name: &str) -> Vec<Chunk> {
    let text = read(&format!("{name}.scandump.tsv"));
    let mut lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.pop(), Some("0\t"), "{name}.scandump.tsv: last line");
    let mut sent = 0;
    lines
        .iter()
        .map(|l| {
            let (iter, hex) = l.split_once('\t').expect("tab in scandump line");
            let next: i64 = iter.parse().expect("iterator");
            let chunk = Chunk {
                sent,
                next,
                data: unhex(hex),
            };
            sent = next;
            chunk
        })
        .collect()
}

/// `NAME.queries.tsv` as (item, answer) columns.
fn queries(name: &str) -> (Vec<Vec<u8>>, Vec<i64>) {
    read(&format!("{name}.queries.tsv"))
        .lines()
        .map(|l| {
            let (hex, answer) = l.split_once('\t').expect("tab in queries line");
            let answer = match answer {
                "1" => 1,
                "0" => 0,
                other => panic!("{name}: bad query answer {other:?}"),
            };
            (unhex(hex), answer)
        })
        .unzip()
}

impl Config {
    /// Load one configuration's files.
    pub fn load(name: &'static str) -> Config {
        let json: Json = serde_json::from_str(&read(&format!("{name}.info.json")))
            .unwrap_or_else(|e| panic!("{name}.info.json: {e}"));
        assert_eq!(text(&json, &["name"]), name);
        assert_eq!(text(&json, &["key_name_in_all_rdb_and_aof"]), name);
        let commands = field(&json, &["commands"])
            .as_array()
            .expect("commands array")
            .iter()
            .map(|c| c.as_str().expect("command text").to_string())
            .collect();
        let items = items(name, field(&json, &["items"]));
        let replies = field(&json, &["add_replies"]);
        assert!(
            replies["error"].is_null(),
            "{name}: the vectors record an add error, which these tests do not expect"
        );
        assert_eq!(int(replies, &["processed_items"]) as usize, items.len());
        let replied_0: Vec<usize> = field(replies, &["replied_0_indices"])
            .as_array()
            .expect("replied_0_indices")
            .iter()
            .map(|i| i.as_u64().expect("index") as usize)
            .collect();

        let info_json = field(&json, &["bf_info"])
            .as_object()
            .expect("bf_info object");
        assert_eq!(info_json.len(), INFO_FIELDS.len(), "{name}: bf_info fields");
        let mut info = Vec::new();
        for f in INFO_FIELDS {
            info.push(Value::SimpleString(f.to_string()));
            info.push(match &info_json[f] {
                Json::Null => Value::Nil,
                n => Value::Int(n.as_i64().expect("integer BF.INFO field")),
            });
        }
        let debug = field(&json, &["bf_debug"])
            .as_array()
            .expect("bf_debug lines")
            .iter()
            .map(|l| Value::BulkString(l.as_str().expect("line").as_bytes().to_vec()))
            .collect();

        let (queries, answers) = queries(name);
        assert_eq!(queries.len(), 10_000, "{name}: queries");
        Config {
            name,
            commands,
            replied_1: int(replies, &["replied_1"]) as usize,
            replied_0,
            items,
            type_name: text(&json, &["type"]),
            encoding: text(&json, &["object_encoding"]),
            info: Value::Array(info),
            card: Value::Int(int(&json, &["bf_card"])),
            debug: Value::Array(debug),
            memory_usage: Value::Int(int(&json, &["memory_usage"])),
            dump: read_bytes(&format!("{name}.dump.bin")),
            scandump: scandump(name),
            queries,
            answers,
        }
    }
}

/// All nine configurations.
pub fn all() -> Vec<Config> {
    CONFIGS.iter().map(|&name| Config::load(name)).collect()
}

/// Mismatches found so far, each with its configuration and load path.
#[derive(Default)]
pub struct Report {
    lines: Vec<String>,
}

impl Report {
    pub fn new() -> Report {
        Report::default()
    }

    /// Record one mismatch.
    pub fn fail(&mut self, config: &str, path: &str, what: impl Into<String>) {
        self.lines
            .push(format!("[{config} via {path}] {}", what.into()));
    }

    /// Record a mismatch unless `got == want`; shows both, shortened.
    pub fn check_eq(&mut self, config: &str, path: &str, what: &str, got: &Value, want: &Value) {
        if got != want {
            self.fail(
                config,
                path,
                format!("{what}: got {}, expected {}", short(got), short(want)),
            );
        }
    }

    /// Print every mismatch and fail if there was any.
    pub fn finish(self) {
        for l in &self.lines {
            eprintln!("{l}");
        }
        assert!(
            self.lines.is_empty(),
            "{} mismatches:\n{}",
            self.lines.len(),
            self.lines.join("\n")
        );
    }
}

/// A reply for a message: bulk strings over 64 bytes show their length and first bytes.
pub fn short(v: &Value) -> String {
    match v {
        Value::BulkString(b) if b.len() > 64 => {
            format!("bulk({} bytes, starting {})", b.len(), hex(&b[..32]))
        }
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().take(8).map(short).collect();
            let more = if items.len() > 8 {
                format!(", ... {} elements", items.len())
            } else {
                String::new()
            };
            format!("[{}{more}]", parts.join(", "))
        }
        other => format!("{other:?}"),
    }
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where two byte strings first differ, for messages: `len a vs b, first difference at i`.
pub fn bytes_diff(got: &[u8], want: &[u8]) -> String {
    let first = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let window = |b: &[u8]| hex(&b[first.min(b.len())..(first + 16).min(b.len())]);
    format!(
        "{} bytes vs {} expected, first difference at offset {first} (got {}.., expected {}..)",
        got.len(),
        want.len(),
        window(got),
        window(want)
    )
}

/// Whether this server is the kind the vectors were recorded on (Redis 7.0 with jemalloc),
/// whose figures of its own (MEMORY USAGE's share for the key) match the recorded ones.
pub fn is_recording_server(con: &mut Connection) -> bool {
    let version = crate::client::info_field(con, "server", "redis_version").unwrap_or_default();
    let valkey =
        crate::client::info_field(con, "server", "server_name").is_some_and(|n| n == "valkey");
    let allocator = crate::client::info_field(con, "memory", "mem_allocator").unwrap_or_default();
    !valkey && version.starts_with("7.0.") && allocator.starts_with("jemalloc")
}

/// The server's own share of `MEMORY USAGE` for the existing key `key` (its allocation for
/// the key, rounded by the allocator), measured on this server for that very key.
///
/// A fresh filter under an unused probe name of the same length gives the share for a key of
/// that name length: its MEMORY USAGE minus its BF.INFO Size. That is not always the share
/// of `key`: Valkey 8.1+ embeds the name in the key's object and counts that allocation's
/// usable size, and with glibc malloc (the Valkey builds) the usable size depends on the
/// heap, not only on the request: a request served from a free chunk 16 bytes larger than
/// needed keeps all of it (malloc does not split off a remainder under 32 bytes). So both
/// keys are also measured holding an integer beyond the shared ones, which has no allocation
/// of its own: `SET` over an existing key whose value is not shared keeps the key's object
/// (Valkey's dbSetValue swaps the value in), so the difference of those two figures is what
/// the key's own allocation differs from the probe's (0 with jemalloc's size classes). The
/// key's value is put back from its DUMP, which replaces the key's allocation.
pub fn key_overhead(con: &mut Connection, key: &str) -> i64 {
    // Above OBJ_SHARED_INTEGERS (10000): stored as an INT-encoded object of the key's own.
    const INT: &str = "1234567890123";
    assert_eq!(
        as_int(&raw(con, &["PTTL", key])),
        -1,
        "{key}: has a TTL or is missing"
    );
    let probe = (0..key.len())
        .map(|i| if i == 0 { '~' } else { '#' })
        .collect::<String>();
    assert_ne!(probe, key, "overhead probe is the key itself");
    assert_eq!(
        as_int(&raw(con, &["EXISTS", &probe])),
        0,
        "overhead probe {probe:?} exists"
    );
    let v = raw(con, &["BF.RESERVE", &probe, "0.01", "100"]);
    assert_eq!(v, Value::Okay, "BF.RESERVE {probe}");
    let probe_overhead = memory_usage(con, &probe) - as_int(&info_value(con, &probe, "Size"));
    assert_eq!(raw(con, &["SET", &probe, INT]), Value::Okay, "SET {probe}");
    let probe_int = memory_usage(con, &probe);
    raw(con, &["DEL", &probe]);

    let dump = match raw(con, &["DUMP", key]) {
        Value::BulkString(b) => b,
        other => panic!("DUMP {key} answered {other:?}"),
    };
    assert_eq!(raw(con, &["SET", key, INT]), Value::Okay, "SET {key}");
    let key_int = memory_usage(con, key);
    let args: [&[u8]; 5] = [b"RESTORE", key.as_bytes(), b"0", &dump, b"REPLACE"];
    assert_eq!(raw(con, &args), Value::Okay, "RESTORE {key} of its DUMP");
    probe_overhead + key_int - probe_int
}

/// The `Size` field of a recorded BF.INFO reply (RESP2: names and values in turn).
pub fn recorded_info_size(info: &Value) -> i64 {
    let Value::Array(items) = info else {
        panic!("recorded BF.INFO is not an array: {info:?}")
    };
    items
        .chunks(2)
        .find(|p| {
            matches!(&p[0], Value::SimpleString(s) if s == "Size")
                || matches!(&p[0], Value::BulkString(b) if b == b"Size")
        })
        .map(|p| as_int(&p[1]))
        .unwrap_or_else(|| panic!("recorded BF.INFO has no Size: {info:?}"))
}
