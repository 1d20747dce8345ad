//! RedisBloom 8.2.3's answers at the edges of both families' argument grammar, texts, limits
//! and check order (tests/vectors/redisbloom8, recorded from the real module: CI cannot build
//! it), replayed on rsbloom with `bf.new-filter-format redisbloom` over RESP2 and RESP3: every
//! reply must be byte for byte RedisBloom 8's (DUMP payloads without their RDB version and
//! CRC), or a difference `docs/differences.txt` lists as deliberate. A `redisbloom-8` rule
//! (what 8 answers where 2.8 did not) must never be needed here.

use rsbloom_test_support as common;

use common::diff::rules::{Kind, Rules};
use common::files::{self, escape, unescape};
use common::raw_resp::{same_reply, RawConn};
use common::*;

const SET: &str = "redisbloom8";

/// The recorded sessions.
const SESSIONS: [&str; 2] = ["bloom", "cuckoo"];

#[test]
fn every_reply_is_redisbloom_8s_or_a_deliberate_difference() {
    let rules = Rules::load();
    let mut failures = Vec::new();
    for name in SESSIONS {
        let mut server = Server::start();
        let mut resp2 = RawConn::connect(server.port);
        let mut resp3 = RawConn::connect_resp3(server.port);
        let mut c = server.conn();
        expect_ok(
            &mut c,
            &["CONFIG", "SET", "bf.new-filter-format", "redisbloom"],
        );
        let (mut same, mut deliberate) = (0, 0);
        for line in files::read(SET, &format!("{name}.commands.tsv")).lines() {
            let cols: Vec<&str> = line.split('\t').collect();
            let argv: Vec<Vec<u8>> = cols[3..].iter().map(|a| unescape(a)).collect();
            // Numbers are the server's grammar, as for RedisBloom: an error rate this server
            // does not read as a double (Valkey 9 reads no hex, the recording Redis 8.2 reads
            // `0x10` as 16) is what RedisBloom there would call a bad error rate.
            let expected = match argv.as_slice() {
                [cmd, _, rate, ..] if cmd == b"BF.RESERVE" && !reads_double(&mut c, rate) => {
                    b"-ERR bad error rate\r\n".to_vec()
                }
                _ => unescape(cols[2]),
            };
            let conn = match cols[1] {
                "3" => &mut resp3,
                _ => &mut resp2,
            };
            let got = conn.send(&argv);
            if same_reply(&argv, &expected, &got) {
                same += 1;
                continue;
            }
            match rules.classify_raw(&argv, &expected, &got) {
                Some(rule) if rule.kind == Kind::Deliberate => deliberate += 1,
                found => failures.push(format!(
                    "{name} line {}: {}: RedisBloom 8 {:?}, rsbloom {:?} (rule: {:?})",
                    cols[0],
                    cols[3..].join(" "),
                    escape(&expected),
                    escape(&got),
                    found.map(|r| &r.id)
                )),
            }
        }
        server.assert_alive();
        println!("{name}: {same} identical, {deliberate} deliberate differences");
        assert!(same > 60, "{name}: only {same} identical replies");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Whether the server reads `word` as a double: ZADD reads its score with the function
/// `RedisModule_StringToDouble` uses (`getDoubleFromObject`).
fn reads_double(c: &mut redis::Connection, word: &[u8]) -> bool {
    let v = raw(c, &[&b"ZADD"[..], b"redisbloom8:probe", word, b"m"]);
    raw(c, &["DEL", "redisbloom8:probe"]);
    err_of(&v).is_none()
}
