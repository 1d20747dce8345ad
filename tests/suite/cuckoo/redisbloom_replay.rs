//! Every `NAME.commands.tsv` of tests/vectors/redisbloom-cf (RedisBloom v2.8.20 on Redis
//! 7.0.15) replayed on a fresh server over raw RESP2 and RESP3 connections: every reply must
//! be byte-identical to RedisBloom's, or a difference `docs/differences.txt` lists (the
//! differential fuzzer's rules: rsbloom's deliberate differences, and RedisBloom 8's answers
//! where 2.8 answered otherwise), or one of the lines pinned in [`DEVIATIONS`] (later replies
//! that follow from such a difference), which must give exactly the reply pinned.
//! DUMP replies are compared without their last 10 bytes (RDB version and CRC).

use rsbloom_test_support as common;

use common::diff::rules::Rules;
use common::files::{self, escape};
use common::raw_resp::{self, same_reply, Replay};
use common::Server;

const SET: &str = "redisbloom-cf";

pub use common::files::REDISBLOOM_CF_CONFIGS as CONFIGS;

/// What rsbloom answers instead of RedisBloom.
enum Want {
    /// These bytes (escaped as in the .tsv).
    Exact(&'static str),
    /// What RedisBloom answered at that line of the same file.
    Like(u64),
}

use Want::{Exact, Like};

const NOT_FOUND: Want = Exact(r"-ERR not found\r\n");

/// `(configuration, line, what rsbloom answers, rule)`: replies that differ from
/// RedisBloom's because of an earlier difference of the same session (a key one side made
/// and the other did not), pinned to exactly rsbloom's reply and to the rule of
/// `docs/differences.txt` behind the earlier difference.
const DEVIATIONS: &[(&str, u64, Want, &str)] = &[
    // CF.RESERVE errors:q1 1000 FOO 5 made nothing here (line 74).
    ("errors", 75, NOT_FOUND, "strict-options"),
    // A key named Expansion was made here (line 93), RedisBloom refused it.
    ("errors", 94, Exact(r":1\r\n"), "strict-options"),
    // CF.INSERT errors:i1 CAP 100 and errors:i2 c 10 i a b made nothing here (139, 141).
    ("errors", 140, NOT_FOUND, "strict-options"),
    ("errors", 142, NOT_FOUND, "strict-options"),
    ("errors", 178, Exact(r":13\r\n"), "strict-options"),
    // One CF.INSERT grew to 32 sub-filters, not 50 (line 46).
    (
        "resp3",
        48,
        Exact(
            r"%8\r\n+Size\r\n:680\r\n+Number of buckets\r\n:2\r\n+Number of filters\r\n:32\r\n+Number of items inserted\r\n:128\r\n+Number of items deleted\r\n:0\r\n+Bucket size\r\n:2\r\n+Expansion rate\r\n:1\r\n+Max iterations\r\n:20\r\n",
        ),
        "cf-max-expansions",
    ),
    // The chunk past the end was refused (line 31): the last sub-filter is as copied.
    ("loadchunk", 32, Like(6), "cf-loadchunk-past-end"),
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
/// `(line, arguments, RedisBloom's reply, rsbloom's reply)`, and the number of commands.
#[allow(clippy::type_complexity)]
fn replay(server: &Server, name: &str) -> (Vec<(u64, Vec<Vec<u8>>, Vec<u8>, Vec<u8>)>, usize) {
    let mut conns = Replay::connect(server.port);
    let mut differ = Vec::new();
    let mut count = 0;
    for line in raw_resp::recorded(&files::read(SET, &format!("{name}.commands.tsv"))) {
        let got = conns.send(&line);
        count += 1;
        if !same_reply(&line.argv, &line.expected, &got) {
            differ.push((line.seq, line.argv, line.expected, got));
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
        let mut server = Server::start();
        let lines = recorded(name);
        let (differ, count) = replay(&server, name);
        server.assert_alive();
        let (mut unlisted, mut by_rule) = (0, 0);
        for (seq, args, expected, got) in &differ {
            match DEVIATIONS.iter().find(|d| d.0 == name && d.1 == *seq) {
                Some(d) if wanted(&d.2, &lines) == escape(got) => {}
                Some(d) => failures.push(format!(
                    "{name} line {seq}: listed deviation ({}) answered {:?}, the list says \
                     {:?}",
                    d.3,
                    escape(got),
                    wanted(&d.2, &lines)
                )),
                None => match rules.classify_raw(args, expected, got) {
                    Some(_) => by_rule += 1,
                    None => {
                        unlisted += 1;
                        failures.push(format!(
                            "{name} line {seq}: RedisBloom {:?}, rsbloom {:?}",
                            escape(expected),
                            escape(got)
                        ))
                    }
                },
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
            "{name:12} {count:5} commands, {unlisted} mismatches, {by_rule} by the list's \
             rules, {} pinned deviations",
            differ.len() - unlisted - by_rule
        ));
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
