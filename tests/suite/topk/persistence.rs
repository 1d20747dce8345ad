//! Top-K keys through every way a server keeps or copies them: DEBUG RELOAD, SAVE and a
//! restart, the AOF with and without the RDB preamble, an AOF rewrite (`RESTORE key 0
//! <DUMP>`, as RedisBloom writes it) and COPY. Each time the DUMP is the same bytes, and a
//! stream added afterwards leaves the same bytes as on a twin that was never reloaded: the
//! decay's position is part of the persisted value.

use super::common::client::*;
use super::common::Server;
use redis::Connection;

const KEYS: [&str; 3] = ["tk:small", "tk:wide", "tk:bin"];

fn create(con: &mut Connection) {
    expect_ok(con, &["TOPK.RESERVE", "tk:small", "5"]);
    expect_ok(con, &["TOPK.RESERVE", "tk:wide", "20", "64", "4", "0.95"]);
    expect_ok(con, &["TOPK.RESERVE", "tk:bin", "3", "4", "2", "0.7"]);
}

/// Round `round` of a skewed stream with collisions, INCRBYs, NUL bytes and the empty item.
fn feed(con: &mut Connection, round: u32) {
    for key in KEYS {
        let mut args: Vec<Vec<u8>> = vec![b"TOPK.ADD".to_vec(), key.as_bytes().to_vec()];
        for i in 0..60u32 {
            let item = (i * 31 + round * 17) % 97 % (1 + i % 13);
            args.push(format!("i:{item}").into_bytes());
        }
        args.push(b"a\0b".to_vec());
        args.push(Vec::new());
        raw(con, &args);
        let by = (round * 37 % 200).to_string();
        raw(con, &["TOPK.INCRBY", key, "heavy", &by, "i:3", "2"]);
    }
}

fn dumps(con: &mut Connection) -> Vec<Vec<u8>> {
    KEYS.iter()
        .map(|k| as_bytes(&raw(con, &["DUMP", k])))
        .collect()
}

/// The DUMPs a never-reloaded server holds after rounds `0..rounds`.
fn twin(rounds: u32) -> Vec<Vec<u8>> {
    let s = Server::start();
    let mut c = s.conn();
    create(&mut c);
    for r in 0..rounds {
        feed(&mut c, r);
    }
    dumps(&mut c)
}

#[test]
fn reloads_keep_the_bytes_and_the_decay() {
    let mut s = Server::start();
    let mut c = s.conn();
    create(&mut c);
    feed(&mut c, 0);
    feed(&mut c, 1);
    let before = dumps(&mut c);
    expect_ok(&mut c, &["DEBUG", "RELOAD"]);
    assert_eq!(dumps(&mut c), before, "DEBUG RELOAD");
    feed(&mut c, 2);
    let before = dumps(&mut c);
    expect_ok(&mut c, &["SAVE"]);
    drop(c);
    s.restart(&[]);
    let mut c = s.conn();
    assert_eq!(dumps(&mut c), before, "restart on the RDB");
    feed(&mut c, 3);
    assert_eq!(dumps(&mut c), twin(4), "the same stream without reloads");
    // COPY holds the same bytes and goes on as the original.
    expect_int(&mut c, &["COPY", "tk:small", "tk:copy"], 1);
    assert_eq!(
        as_bytes(&raw(&mut c, &["DUMP", "tk:copy"])),
        dumps(&mut c)[0]
    );
    raw(&mut c, &["TOPK.ADD", "tk:copy", "x", "y", "i:1"]);
    raw(&mut c, &["TOPK.ADD", "tk:small", "x", "y", "i:1"]);
    assert_eq!(
        as_bytes(&raw(&mut c, &["DUMP", "tk:copy"])),
        dumps(&mut c)[0]
    );
}

#[test]
fn aof_replays_and_rewrites_keep_the_bytes() {
    for preamble in ["yes", "no"] {
        let mut s = Server::start();
        let mut c = s.conn();
        expect_ok(&mut c, &["CONFIG", "SET", "aof-use-rdb-preamble", preamble]);
        expect_ok(&mut c, &["CONFIG", "SET", "appendonly", "yes"]);
        wait_for_aof_rewrite(&mut c);
        create(&mut c);
        feed(&mut c, 0);
        feed(&mut c, 1);
        // A bad increment mid-command: applied up to it, here and in the replay.
        raw(
            &mut c,
            &["TOPK.INCRBY", "tk:bin", "p", "3", "q", "-1", "r", "2"],
        );
        let before = dumps(&mut c);
        drop(c);
        std::fs::remove_file(s.dir().join("dump.rdb")).ok();
        s.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", preamble]);
        let mut c = s.conn();
        assert_eq!(dumps(&mut c), before, "AOF replay (preamble {preamble})");

        let v = raw(&mut c, &["BGREWRITEAOF"]);
        assert!(err_of(&v).is_none(), "BGREWRITEAOF answered {v:?}");
        wait_for_aof_rewrite(&mut c);
        if preamble == "no" {
            let (_, bytes) = s.aof_base();
            let text = String::from_utf8_lossy(&bytes);
            assert_eq!(
                text.matches("RESTORE").count(),
                KEYS.len(),
                "one RESTORE per key"
            );
        }
        feed(&mut c, 2);
        let before = dumps(&mut c);
        drop(c);
        std::fs::remove_file(s.dir().join("dump.rdb")).ok();
        s.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", preamble]);
        let mut c = s.conn();
        assert_eq!(
            dumps(&mut c),
            before,
            "after the rewrite (preamble {preamble})"
        );
        feed(&mut c, 3);
        assert_eq!(dumps(&mut c)[..2], twin(4)[..2], "decay after the rewrite");
    }
}

/// RedisBloom 2.8 saves a heap item cut at its first NUL and loads "\x00" as a null pointer,
/// which the next lookup of "\x00" reads: the server segfaults (seen in
/// `server::redisbloom_states`'s runs). Here the item survives the reload whole.
#[test]
fn an_item_of_one_nul_byte_survives_a_reload() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["TOPK.RESERVE", "u", "3", "8", "3", "1"]);
    raw(&mut c, &[&b"TOPK.ADD"[..], b"u", b"\x00", b"a\x00b"]);
    expect_ok(&mut c, &["DEBUG", "RELOAD"]);
    let query = raw(
        &mut c,
        &[&b"TOPK.QUERY"[..], b"u", b"\x00", b"a\x00b", b"a"],
    );
    assert_eq!(as_ints(&query), vec![1, 1, 0]);
    let list = raw(&mut c, &["TOPK.LIST", "u"]);
    let redis::Value::Array(items) = list else {
        panic!("TOPK.LIST: {list:?}")
    };
    let mut items: Vec<Vec<u8>> = items.iter().map(as_bytes).collect();
    items.sort();
    assert_eq!(items, vec![b"\x00".to_vec(), b"a\x00b".to_vec()]);
}
