//! Every `NAME.commands.tsv` of tests/vectors/redisbloom-cms (RedisBloom 2.8.2 on Redis
//! 7.4.1) replayed on a fresh Redis 7.4.1 with rsbloom, where it was recorded, and every
//! `NAME.commands.rb8.tsv` (the same commands on RedisBloom 8.2.3 / Redis 8.2.3) on the
//! default server, over raw RESP2 and RESP3 connections: every reply must be byte-identical
//! to RedisBloom's (DUMP replies without their RDB version and CRC). No CMS reply of the
//! recorded sessions differs, so no difference may be listed for them.

use rsbloom_test_support as common;

use common::files::{self, escape, unescape, REDISBLOOM_CMS_CONFIGS as CONFIGS};
use common::raw_resp::{same_reply, RawConn};
use common::{Installed, Server, ServerOpts};

const SET: &str = "redisbloom-cms";

/// Replays one transcript; returns the mismatches (escaped) and the number of commands.
fn replay(server: &Server, file: &str) -> (Vec<String>, usize) {
    let mut resp2 = RawConn::connect(server.port);
    let mut resp3 = RawConn::connect_resp3(server.port);
    let mut differ = Vec::new();
    let mut count = 0;
    for line in files::read(SET, file).lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let expected = unescape(cols[2]);
        let argv: Vec<Vec<u8>> = cols[3..].iter().map(|a| unescape(a)).collect();
        let conn = match cols[1] {
            "3" => &mut resp3,
            _ => &mut resp2,
        };
        let got = conn.send(&argv);
        count += 1;
        if !same_reply(&argv, &expected, &got) {
            differ.push(format!(
                "{file} line {}: RedisBloom {:?}, rsbloom {:?}",
                cols[0],
                escape(&expected),
                escape(&got)
            ));
        }
    }
    (differ, count)
}

fn replay_all(opts: impl Fn() -> ServerOpts, suffix: &str) {
    let mut failures = Vec::new();
    let mut report = Vec::new();
    for name in CONFIGS {
        let mut server = Server::start_with(opts());
        let (differ, count) = replay(&server, &format!("{name}.{suffix}"));
        server.assert_alive();
        report.push(format!(
            "{name:10} {count:5} commands, {} mismatches",
            differ.len()
        ));
        failures.extend(differ);
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
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
