//! Every `NAME.commands.tsv` of tests/vectors/redisbloom-tdigest (RedisBloom 2.8.2 on Redis
//! 7.4.1) replayed on a fresh Redis 7.4.1 (the server formats the doubles: 7.4's shortest
//! round-trip texts) over raw RESP2 and RESP3 connections: every reply must be
//! byte-identical to RedisBloom's (TDIGEST.INFO's `Memory usage` raised to RedisBloom 8.6+'s,
//! rule `tdigest-memory-usage`), or one of the lines pinned in [`DEVIATIONS`] (each tied to
//! a rule of `docs/differences.txt`), which must give exactly the reply pinned. DUMP replies
//! are compared without their last 10 bytes (RDB version and CRC).

use rsbloom_test_support as common;

use common::diff::rules::Rules;
use common::files::{self, escape};
use common::raw_resp::{recorded, same_reply, Replay};
use common::tdigest_memory;
use common::{Installed, Server, ServerOpts};

const SET: &str = "redisbloom-tdigest";

pub use common::files::REDISBLOOM_TDIGEST_CONFIGS as CONFIGS;

/// `(configuration, line, rsbloom's reply (escaped; `DUMP` for a payload checked
/// elsewhere), rule)`.
const DEVIATIONS: &[(&str, u64, &str, &str)] = &[
    // RANK / REVRANK of the one observation: 0, not a NaN cast to an integer.
    (
        "single",
        7,
        r"*5\r\n:-1\r\n:-1\r\n:0\r\n:1\r\n:1\r\n",
        "tdigest-single-rank",
    ),
    (
        "single",
        8,
        r"*5\r\n:1\r\n:1\r\n:0\r\n:-1\r\n:-1\r\n",
        "tdigest-single-rank",
    ),
    ("single", 23, r"*1\r\n:0\r\n", "tdigest-single-rank"),
    ("single", 24, r"*1\r\n:0\r\n", "tdigest-single-rank"),
    // A one-value digest is saved with its value: one merged node of weight 1.
    ("dumpstate", 4, "DUMP", "tdigest-single-value-saved"),
    ("dumpstate", 12, "DUMP", "tdigest-single-value-saved"),
    // Words MERGE does not know are refused once RedisBloom's checks pass.
    (
        "merge",
        33,
        r"-ERR unknown option 'FOO'\r\n",
        "strict-options",
    ),
    // So merge:new was not made.
    ("merge", 37, r":0\r\n", "strict-options"),
    ("merge", 68, r":0\r\n", "strict-options"),
    (
        "errors",
        136,
        r"-ERR unknown option 'BAR'\r\n",
        "strict-options",
    ),
    // So `errors` is not replaced by the merge's new digest (3 unmerged values there).
    (
        "errors",
        138,
        r"*18\r\n+Compression\r\n:10\r\n+Capacity\r\n:70\r\n+Merged nodes\r\n:3\r\n+Unmerged nodes\r\n:0\r\n+Merged weight\r\n:3\r\n+Unmerged weight\r\n:0\r\n+Observations\r\n:3\r\n+Total compressions\r\n:1\r\n+Memory usage\r\n:1200\r\n",
        "strict-options",
    ),
];

/// Redis 7.4.1 (the server of the recording) with rsbloom.
pub fn opts() -> ServerOpts {
    ServerOpts::default().on(&Installed::get("redis-7.4"))
}

/// The replies of one configuration that differ from RedisBloom's, as
/// `(line, arguments, RedisBloom's reply, rsbloom's reply)`, and the number of commands.
/// Keys of another family this build lacks (`CMS.INITBYDIM` unknown) and the lines that
/// name them are left out: they are WRONGTYPE checks that hold once that family is in.
#[allow(clippy::type_complexity)]
fn replay(server: &Server, name: &str) -> (Vec<(u64, Vec<Vec<u8>>, Vec<u8>, Vec<u8>)>, usize) {
    let mut conns = Replay::connect(server.port);
    let mut differ = Vec::new();
    let mut count = 0;
    let mut absent: Vec<Vec<u8>> = Vec::new();
    for line in recorded(&files::read(SET, &format!("{name}.commands.tsv"))) {
        if line.argv.iter().any(|a| absent.contains(a)) {
            continue;
        }
        let got = conns.send(&line);
        if got.starts_with(b"-ERR unknown command") && line.expected.starts_with(b"+") {
            absent.push(line.argv[1].clone());
            continue;
        }
        count += 1;
        // RedisBloom 8.6+'s memory figure, 72 bytes above the recording's (rule
        // tdigest-memory-usage).
        let expected = tdigest_memory::info_as_8_6(&line.expected);
        if !same_reply(&line.argv, &expected, &got) {
            differ.push((line.seq, line.argv, expected, got));
        }
    }
    (differ, count)
}

#[test]
fn every_reply_matches_redisbloom_or_a_listed_deviation() {
    let rules = Rules::load();
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for name in CONFIGS {
        let mut server = Server::start_with(opts());
        let (differ, count) = replay(&server, name);
        server.assert_alive();
        for (seq, args, expected, got) in &differ {
            match DEVIATIONS.iter().find(|d| d.0 == name && d.1 == *seq) {
                Some(d) if d.2 == "DUMP" && args[0].eq_ignore_ascii_case(b"DUMP") => {}
                Some(d) if d.2 == escape(got) => {}
                Some(d) => failures.push(format!(
                    "{name} line {seq}: listed deviation ({}) answered {:?}, the list says {:?}",
                    d.3,
                    escape(got),
                    d.2
                )),
                None => failures.push(format!(
                    "{name} line {seq} {:?}: RedisBloom {:?}, rsbloom {:?}",
                    String::from_utf8_lossy(&args[0]),
                    escape(expected),
                    escape(got)
                )),
            }
        }
        for d in DEVIATIONS.iter().filter(|d| d.0 == name) {
            if rules.get(d.3).is_none() {
                failures.push(format!("{name} line {}: no rule {} in the list", d.1, d.3));
            }
            if !differ.iter().any(|(seq, ..)| *seq == d.1) {
                failures.push(format!(
                    "{name} line {}: listed as a deviation but answered as RedisBloom did",
                    d.1
                ));
            }
        }
        report.push(format!(
            "{name:10} {count:4} commands, {} pinned deviations",
            differ.len()
        ));
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
