//! Every `NAME.commands.tsv` of tests/vectors/redisbloom-cms (RedisBloom 2.8.2 on Redis
//! 7.4.1) replayed on a fresh Redis 7.4.1 with rsbloom, where it was recorded, and every
//! `NAME.commands.rb8.tsv` (the same commands on RedisBloom 8.2.3 / Redis 8.2.3) on the
//! default server, over raw RESP2 and RESP3 connections: every reply must be byte-identical
//! to RedisBloom's (DUMP replies without their RDB version and CRC), or one of RedisBloom
//! 8.12's changes, which 8.2.3 did not have either (docs/differences.txt, `redisbloom-8`):
//!
//! - CMS.INFO: the recorded three pairs, then `cell_size 4` (cms-info-cell-size);
//! - one of the lines pinned in [`PINNED`] to exactly rsbloom's reply, each classified by
//!   the rule named there: the increments 8.12 refuses or (negative ones) makes where 2.8
//!   saturated or refused, and the replies about those sketches after them.

use std::collections::BTreeMap;

use rsbloom_core::testkit::cms::info_with_cell_size;
use rsbloom_test_support as common;

use common::diff::rules::{Kind, Rules};
use common::files::{self, escape, unescape, REDISBLOOM_CMS_CONFIGS as CONFIGS};
use common::raw_resp::{same_reply, RawConn};
use common::{Installed, Server, ServerOpts};

const SET: &str = "redisbloom-cms";

/// `(configuration, line, rsbloom's reply, rule)`: the same in both recordings (8.2.3
/// answered these as 2.8.2 did).
const PINNED: &[(&str, u64, &str, &str)] = &[
    ("overflow", 6, "*1\\r\\n:4294967295\\r\\n", "cms-overflow-refused"),
    ("overflow", 9, "*1\\r\\n:4294967295\\r\\n", "cms-overflow-refused"),
    ("overflow", 10, "*1\\r\\n:4294967295\\r\\n", "cms-overflow-refused"),
    ("overflow", 15, "*8\\r\\n+width\\r\\n:16\\r\\n+depth\\r\\n:2\\r\\n+count\\r\\n:8589934590\\r\\n+cell_size\\r\\n:4\\r\\n", "cms-info-cell-size"),
    ("overflow", 17, "*8\\r\\n+width\\r\\n:16\\r\\n+depth\\r\\n:2\\r\\n+count\\r\\n:8589934590\\r\\n+cell_size\\r\\n:4\\r\\n", "cms-info-cell-size"),
    ("overflow", 18, "*2\\r\\n-CMS: INCRBY overflow\\r\\n:3\\r\\n", "cms-overflow-refused"),
    ("overflow", 19, "*8\\r\\n+width\\r\\n:16\\r\\n+depth\\r\\n:2\\r\\n+count\\r\\n:8589934593\\r\\n+cell_size\\r\\n:4\\r\\n", "cms-info-cell-size"),
    ("overflow", 20, "%4\\r\\n+width\\r\\n:16\\r\\n+depth\\r\\n:2\\r\\n+count\\r\\n:8589934593\\r\\n+cell_size\\r\\n:4\\r\\n", "cms-info-cell-size"),
    ("overflow", 21, "*3\\r\\n-CMS: INCRBY overflow\\r\\n:4294967295\\r\\n:2\\r\\n", "cms-overflow-refused"),
    ("overflow", 24, "*2\\r\\n:1\\r\\n-CMS: INCRBY underflow\\r\\n", "cms-negative-increments"),
    ("overflow", 26, "*17\\r\\n:4294967295\\r\\n:4294967295\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:3\\r\\n:3\\r\\n:1\\r\\n:4294967295\\r\\n:2\\r\\n:0\\r\\n:0\\r\\n:1\\r\\n:0\\r\\n:0\\r\\n", "cms-overflow-refused"),
    ("overflow", 27, "*40\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:4294967295\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:2\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:0\\r\\n:3\\r\\n:0\\r\\n", "cms-overflow-refused"),
    ("overflow", 28, "*8\\r\\n+width\\r\\n:16\\r\\n+depth\\r\\n:2\\r\\n+count\\r\\n:12884901891\\r\\n+cell_size\\r\\n:4\\r\\n", "cms-info-cell-size"),
    ("resp3", 7, "*3\\r\\n:6\\r\\n:8\\r\\n:0\\r\\n", "cms-overflow-refused"),
    ("resp3", 8, "*3\\r\\n:6\\r\\n:8\\r\\n:0\\r\\n", "cms-overflow-refused"),
    ("resp3", 9, "*8\\r\\n+width\\r\\n:32\\r\\n+depth\\r\\n:3\\r\\n+count\\r\\n:14\\r\\n+cell_size\\r\\n:4\\r\\n", "cms-info-cell-size"),
    ("resp3", 10, "%4\\r\\n+width\\r\\n:32\\r\\n+depth\\r\\n:3\\r\\n+count\\r\\n:14\\r\\n+cell_size\\r\\n:4\\r\\n", "cms-info-cell-size"),
    ("resp3", 22, "*1\\r\\n-CMS: INCRBY underflow\\r\\n", "cms-negative-increments"),
    ("resp3", 23, "*1\\r\\n-CMS: INCRBY underflow\\r\\n", "cms-negative-increments"),
    ("errors", 67, "*1\\r\\n-CMS: INCRBY underflow\\r\\n", "cms-negative-increments"),
];

/// Replays one transcript; returns the mismatches (escaped) and the number of commands.
fn replay(
    server: &Server,
    name: &str,
    file: &str,
    rules: &Rules,
    seen: &mut BTreeMap<String, usize>,
) -> (Vec<String>, usize) {
    let mut resp2 = RawConn::connect(server.port);
    let mut resp3 = RawConn::connect_resp3(server.port);
    let mut differ = Vec::new();
    let mut count = 0;
    for line in files::read(SET, file).lines() {
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
        if same_reply(&argv, &expected, &got) {
            continue;
        }
        let pinned = PINNED
            .iter()
            .find(|(config, at, ..)| *config == name && *at == seq);
        let rule = rules
            .classify_raw(&argv, &expected, &got)
            .filter(|r| r.kind == Kind::RedisBloom8);
        let info = argv[0].eq_ignore_ascii_case(b"CMS.INFO");
        let fine = match (pinned, rule) {
            (Some((_, _, reply, id)), Some(r)) => unescape(reply) == got && r.id == *id,
            (None, Some(r)) => {
                info && r.id == "cms-info-cell-size" && got == info_with_cell_size(&expected)
            }
            _ => false,
        };
        if fine {
            let how = if pinned.is_some() { "pinned " } else { "" };
            *seen
                .entry(format!("{how}{}", rule.map_or("", |r| &r.id)))
                .or_default() += 1;
        }
        if !fine {
            differ.push(format!(
                "{file} line {seq}: RedisBloom {:?}, rsbloom {:?} (rule {:?})",
                escape(&expected),
                escape(&got),
                rule.map(|r| &r.id)
            ));
        }
    }
    (differ, count)
}

fn replay_all(opts: impl Fn() -> ServerOpts, suffix: &str) {
    let rules = Rules::load();
    let mut failures = Vec::new();
    let mut report = Vec::new();
    let mut seen = BTreeMap::new();
    for name in CONFIGS {
        let mut server = Server::start_with(opts());
        let (differ, count) = replay(
            &server,
            name,
            &format!("{name}.{suffix}"),
            &rules,
            &mut seen,
        );
        server.assert_alive();
        report.push(format!(
            "{name:10} {count:5} commands, {} mismatches",
            differ.len()
        ));
        failures.extend(differ);
    }
    println!(
        "{}\nRedisBloom 8.12's differences: {seen:?}",
        report.join("\n")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every pinned line was met (and each rule with it).
    let pinned: usize = seen
        .iter()
        .filter(|(id, _)| id.starts_with("pinned "))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(pinned, PINNED.len(), "pinned lines met");
    assert!(seen.get("cms-info-cell-size").is_some_and(|&n| n > 20));
}

/// RedisBloom 2.8.2's sessions, on the server they were recorded on.
#[test]
fn every_reply_matches_redisbloom_2_8_on_redis_7_4() {
    let redis74 = Installed::get("redis-7.4");
    replay_all(|| ServerOpts::default().on(&redis74), "commands.tsv");
}

/// RedisBloom 8.2.3's replay of the same sessions, on whatever server the suite runs on.
#[test]
fn every_reply_matches_redisbloom_8() {
    replay_all(ServerOpts::default, "commands.rb8.tsv");
}
