//! A Top-K primary and its replica fed the same stream hold identical keys afterwards
//! (DUMP byte for byte), through the full sync and the command stream: the decay that
//! RedisBloom draws from each process's `rand()` is deterministic here.

use std::thread::sleep;
use std::time::{Duration, Instant};

use super::common::client::*;
use super::common::Server;
use redis::Connection;

fn wait_offset(primary: &mut Connection) {
    let v = raw(primary, &["WAIT", "1", "5000"]);
    assert_eq!(as_int(&v), 1, "the replica did not acknowledge");
}

fn dumps(con: &mut Connection, keys: &[&str]) -> Vec<Vec<u8>> {
    keys.iter()
        .map(|k| as_bytes(&raw(con, &["DUMP", k])))
        .collect()
}

fn stream(con: &mut Connection, key: &str, seed: u32, rounds: u32) {
    for r in 0..rounds {
        let mut args: Vec<String> = vec!["TOPK.ADD".into(), key.into()];
        for i in 0..50u32 {
            let x = (i.wrapping_mul(2654435761) ^ (r + seed).wrapping_mul(40503)) % 1000;
            args.push(format!("t:{}", 1000 / (x + 1)));
        }
        raw(con, &args);
        let by = ((r * 13 + seed) % 50).to_string();
        raw(
            con,
            &[
                "TOPK.INCRBY",
                key,
                "hot",
                &by,
                "t:7",
                "3",
                "bad",
                "-5",
                "never",
                "1",
            ],
        );
    }
}

#[test]
fn primary_and_replica_hold_the_same_bytes() {
    let primary = Server::start();
    let mut p = primary.conn();
    // Before the replica: these reach it by the full sync (an RDB).
    expect_ok(&mut p, &["TOPK.RESERVE", "synced", "5"]);
    stream(&mut p, "synced", 1, 20);
    let replica = primary.start_replica();
    let mut r = replica.conn();
    // Then the command stream.
    expect_ok(
        &mut p,
        &["TOPK.RESERVE", "streamed", "10", "32", "5", "0.9"],
    );
    expect_ok(&mut p, &["TOPK.RESERVE", "tiny", "2", "2", "1", "0.5"]);
    for key in ["synced", "streamed", "tiny"] {
        stream(&mut p, key, 7, 30);
    }
    wait_offset(&mut p);
    let keys = ["synced", "streamed", "tiny"];
    let deadline = Instant::now() + Duration::from_secs(10);
    while dumps(&mut r, &keys) != dumps(&mut p, &keys) && Instant::now() < deadline {
        sleep(Duration::from_millis(50));
    }
    let (dp, dr) = (dumps(&mut p, &keys), dumps(&mut r, &keys));
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(dp[i], dr[i], "{k}: primary and replica differ");
    }
    // And the same answers.
    for k in keys {
        assert_eq!(
            raw(&mut p, &["TOPK.LIST", k, "WITHCOUNT"]),
            raw(&mut r, &["TOPK.LIST", k, "WITHCOUNT"])
        );
    }
    // Decays did happen (the streams collide in the small sketches).
    let list = raw(&mut p, &["TOPK.COUNT", "tiny", "hot", "t:1"]);
    assert!(as_ints(&list).iter().any(|&n| n > 0), "{list:?}");
}
