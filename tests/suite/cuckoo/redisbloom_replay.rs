//! Every `NAME.commands.tsv` of tests/vectors/redisbloom-cf (RedisBloom v2.8.20 on Redis
//! 7.0.15) replayed on a fresh server over raw RESP2 and RESP3 connections: every reply must
//! be byte-identical to RedisBloom's, except the lines listed in [`DEVIATIONS`], where
//! rsbloom answers differently on purpose; each of those must give exactly the reply listed.
//! DUMP replies are compared without their last 10 bytes (RDB version and CRC).

use rsbloom_test_support as common;

use common::files::{self, escape, unescape};
use common::raw_resp::{bulk_payload, RawConn};
use common::Server;

const SET: &str = "redisbloom-cf";

pub use common::files::REDISBLOOM_CF_CONFIGS as CONFIGS;

/// What rsbloom answers instead of RedisBloom.
enum Want {
    /// These bytes (escaped as in the .tsv).
    Exact(&'static str),
    /// What RedisBloom answered at that line of the same file.
    Like(u64),
    /// A RESP3 CF.INSERT answer: `added` times `#t`, then `refused` times `#f`.
    Insert { added: usize, refused: usize },
}

use Want::{Exact, Insert, Like};

const UNKNOWN_FOO: Want = Exact(r"-ERR unknown option 'FOO'\r\n");
const NOT_FOUND: Want = Exact(r"-ERR not found\r\n");

/// `(configuration, line, what rsbloom answers, why)`: the replies where rsbloom differs
/// from RedisBloom on purpose (README, "Cuckoo filters").
const DEVIATIONS: &[(&str, u64, Want, &str)] = &[
    (
        "errors",
        74,
        UNKNOWN_FOO,
        "CF.RESERVE k 1000 FOO 5: unknown words are errors, not ignored",
    ),
    ("errors", 75, NOT_FOUND, "CF.INFO of the key line 74 did not create"),
    (
        "errors",
        91,
        Exact(
            r"*16\r\n+Size\r\n:1080\r\n+Number of buckets\r\n:512\r\n+Number of filters\r\n:1\r\n+Number of items inserted\r\n:0\r\n+Number of items deleted\r\n:0\r\n+Bucket size\r\n:2\r\n+Expansion rate\r\n:1\r\n+Max iterations\r\n:20\r\n",
        ),
        "CF.RESERVE MAXITERATIONS 1000: a key named like a keyword is only a key (20 iterations)",
    ),
    (
        "errors",
        93,
        Exact(r"+OK\r\n"),
        "CF.RESERVE Expansion 70000: the key Expansion, capacity 70000, not an option",
    ),
    ("errors", 94, Exact(r":1\r\n"), "EXISTS of the key line 93 created"),
    (
        "errors",
        122,
        Exact(r"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
        "BF.EXISTS on a CF key: WRONGTYPE as on any other type (rsbloom's BF rule)",
    ),
    (
        "errors",
        139,
        Exact(r"-ERR unknown option 'CAP'\r\n"),
        "CF.INSERT CAP 100: whole keywords only, not first letters",
    ),
    ("errors", 140, NOT_FOUND, "CF.INFO of the key line 139 did not create"),
    (
        "errors",
        141,
        Exact(r"-ERR unknown option 'c'\r\n"),
        "CF.INSERT c 10 i a b: whole keywords only",
    ),
    ("errors", 142, NOT_FOUND, "CF.INFO of the key line 141 did not create"),
    (
        "errors",
        143,
        Exact(r"-ERR unknown option 'NOPE'\r\n"),
        "CF.INSERT NOPE: not taken as NOCREATE",
    ),
    (
        "errors",
        151,
        UNKNOWN_FOO,
        "CF.INSERT FOO: the unknown-option error names the word",
    ),
    (
        "errors",
        152,
        Exact(r"-ERR unknown option ''\r\n"),
        "CF.INSERT with an empty option word",
    ),
    (
        "errors",
        178,
        Exact(r":13\r\n"),
        "DEL of the keys: lines 74, 139 and 141 created none",
    ),
    (
        "resp3",
        46,
        Insert {
            added: 128,
            refused: 72,
        },
        "one CF.INSERT grows to bf.cf-max-expansions (32) sub-filters, not past it (RedisBloom: 50)",
    ),
    (
        "resp3",
        48,
        Exact(
            r"%8\r\n+Size\r\n:680\r\n+Number of buckets\r\n:2\r\n+Number of filters\r\n:32\r\n+Number of items inserted\r\n:128\r\n+Number of items deleted\r\n:0\r\n+Bucket size\r\n:2\r\n+Expansion rate\r\n:1\r\n+Max iterations\r\n:20\r\n",
        ),
        "CF.INFO after line 46: 32 sub-filters",
    ),
    (
        "loadchunk",
        31,
        Exact(r"-Couldn't load chunk!\r\n"),
        "a chunk past the end is refused, not written into the last sub-filter",
    ),
    (
        "loadchunk",
        32,
        Like(6),
        "SCANDUMP after line 31: the last sub-filter as it was copied",
    ),
    (
        "loadchunk",
        33,
        Exact(r"-Couldn't load chunk!\r\n"),
        "the chunk past the end that undid line 31, refused the same way",
    ),
];

/// The escaped reply `want` stands for, in file `lines` (`seq` -> RedisBloom's reply).
fn wanted(want: &Want, lines: &[(u64, String)]) -> String {
    match want {
        Exact(text) => text.to_string(),
        Like(seq) => lines
            .iter()
            .find(|(s, _)| s == seq)
            .map(|(_, r)| r.clone())
            .expect("the line exists"),
        Insert { added, refused } => {
            let mut r = format!("*{}\\r\\n", added + refused);
            r.push_str(&"#t\\r\\n".repeat(*added));
            r.push_str(&"#f\\r\\n".repeat(*refused));
            r
        }
    }
}

/// RedisBloom's reply of each line of a configuration, escaped.
fn recorded(name: &str) -> Vec<(u64, String)> {
    files::read(SET, &format!("{name}.commands.tsv"))
        .lines()
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols[0].parse().expect("line number"), cols[2].to_string())
        })
        .collect()
}

/// The replies of one configuration that differ from RedisBloom's, as
/// `(line, expected, got)`, and the number of commands compared.
fn replay(server: &Server, name: &str) -> (Vec<(u64, String, String)>, usize) {
    let mut resp2 = RawConn::connect(server.port);
    let mut resp3 = RawConn::connect_resp3(server.port);
    let mut differ = Vec::new();
    let mut count = 0;
    for line in files::read(SET, &format!("{name}.commands.tsv")).lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let seq: u64 = cols[0].parse().expect("line number");
        let expected = unescape(cols[2]);
        let argv: Vec<Vec<u8>> = cols[3..].iter().map(|a| unescape(a)).collect();
        let conn = match cols[1] {
            "3" => &mut resp3,
            _ => &mut resp2,
        };
        let got = conn.send(&argv);
        count += 1;
        let same = if argv[0].eq_ignore_ascii_case(b"DUMP") {
            // The value and its framing; not the RDB version and CRC at the end.
            match (bulk_payload(&expected), bulk_payload(&got)) {
                (Some(e), Some(g)) if e.len() > 10 && g.len() > 10 => {
                    e[..e.len() - 10] == g[..g.len() - 10]
                }
                _ => expected == got,
            }
        } else {
            expected == got
        };
        if !same {
            differ.push((seq, escape(&expected), escape(&got)));
        }
    }
    (differ, count)
}

#[test]
fn every_reply_matches_redisbloom_or_a_listed_deviation() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for name in CONFIGS {
        let mut server = Server::start();
        let lines = recorded(name);
        let (differ, count) = replay(&server, name);
        server.assert_alive();
        let mut unlisted = 0;
        for (seq, expected, got) in &differ {
            match DEVIATIONS.iter().find(|d| d.0 == name && d.1 == *seq) {
                Some(d) if wanted(&d.2, &lines) == *got => {}
                Some(d) => failures.push(format!(
                    "{name} line {seq}: listed deviation ({}) answered {got:?}, the list says \
                     {:?}",
                    d.3,
                    wanted(&d.2, &lines)
                )),
                None => {
                    unlisted += 1;
                    failures.push(format!(
                        "{name} line {seq}: RedisBloom {expected:?}, rsbloom {got:?}"
                    ))
                }
            }
        }
        for d in DEVIATIONS.iter().filter(|d| d.0 == name) {
            if !differ.iter().any(|(seq, _, _)| *seq == d.1) {
                failures.push(format!(
                    "{name} line {}: listed as a deviation but answered as RedisBloom did",
                    d.1
                ));
            }
        }
        report.push(format!(
            "{name:12} {count:5} commands, {unlisted} mismatches, {} listed deviations",
            differ.len() - unlisted
        ));
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
