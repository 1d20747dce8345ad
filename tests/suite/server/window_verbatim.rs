//! A TIME window's adds that keep the window's clock (a burst within one millisecond, or any
//! add while the clock is ahead of the server's) are replicated and logged as they came
//! (`APBF.ADD` / `APBF.MADD`, APBF.INSERTAT with its own moment), and a replica or an AOF
//! replay takes them at the window's clock, which is the primary's, not at its own later
//! one. An add that moves the clock, or a batch the primary refused part of, still goes as
//! `APBF.INSERTAT key <ms> items...` with the items taken.
//!
//! Which form is sent is made certain by moving the window's clock ahead of the server's
//! with APBF.INSERTAT (every add then happens at the window's clock), and a replica or a
//! replay is made to apply an add after the server's clock has passed the window's by
//! holding the transaction that made it (`DEBUG SLEEP` inside MULTI: the transaction is
//! sent when EXEC ends). No answer depends on how fast anything runs.

use rsbloom_test_support as common;

use std::collections::BTreeMap;
use std::fs;

use common::*;
use redis::{Connection, Value};

use crate::apbf::{apbf_field, multi};

/// The server's clock in milliseconds (`TIME`).
pub fn time_ms(c: &mut Connection) -> u64 {
    let Value::Array(a) = raw(c, &["TIME"]) else {
        panic!("TIME")
    };
    let secs: u64 = as_text(&a[0]).parse().expect("seconds");
    let micros: u64 = as_text(&a[1]).parse().expect("microseconds");
    secs * 1000 + micros / 1000
}

pub fn dumps(c: &mut Connection, keys: &[&str]) -> BTreeMap<String, Vec<u8>> {
    keys.iter()
        .map(|k| (k.to_string(), as_bytes(&raw(c, &["DUMP", k]))))
        .collect()
}

/// The calls of the APBF adds in a server's INFO commandstats (a replica counts the
/// commands its primary sent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Adds {
    pub add: i64,
    pub madd: i64,
    pub insertat: i64,
}

pub fn adds(c: &mut Connection) -> Adds {
    Adds {
        add: command_calls(c, "apbf.add"),
        madd: command_calls(c, "apbf.madd"),
        insertat: command_calls(c, "apbf.insertat"),
    }
}

impl Adds {
    pub fn since(self, before: Adds) -> Adds {
        Adds {
            add: self.add - before.add,
            madd: self.madd - before.madd,
            insertat: self.insertat - before.insertat,
        }
    }
}

fn args<'a>(head: &[&'a [u8]], items: &'a [Vec<u8>]) -> Vec<&'a [u8]> {
    let mut v = head.to_vec();
    v.extend(items.iter().map(Vec::as_slice));
    v
}

fn same(p: &mut Connection, r: &mut Connection, keys: &[&str], when: &str) {
    expect_int(p, &["WAIT", "1", "5000"], 1);
    let (want, got) = (dumps(p, keys), dumps(r, keys));
    for key in keys {
        assert_eq!(got[*key], want[*key], "{when}: the replica's {key} differs");
    }
}

/// The names of the APBF commands the primary logged for `key`, upper case.
fn logged(primary: &Server, key: &[u8]) -> Vec<String> {
    primary
        .aof_incr()
        .iter()
        .filter(|a| a.len() > 1 && a[1] == key && a[0].len() > 5)
        .filter(|a| a[0][..5].eq_ignore_ascii_case(b"APBF."))
        .map(|a| String::from_utf8_lossy(&a[0]).to_ascii_uppercase())
        .collect()
}

const ADD_SCRIPT: &str = "return redis.call('APBF.ADD', KEYS[1], ARGV[1])";
const MADD_SCRIPT: &str = "return redis.call('APBF.MADD', KEYS[1], ARGV[1], ARGV[2])";

/// Adds while the window's clock is an hour ahead of the server's: every one happens at the
/// window's clock and travels as it came (single commands, MULTI/EXEC, scripts), except the
/// batch the primary refused part of, which goes as APBF.INSERTAT with the items taken. The
/// replica and the AOF replay hold the primary's bytes.
#[test]
fn adds_at_the_windows_clock_travel_as_sent() {
    let mut primary = Server::start();
    let mut p = primary.conn();
    aof_always(&mut p, false);
    let replica = primary.start_replica();
    let mut r = replica.conn();

    expect_ok(
        &mut p,
        &["APBF.RESERVE", "t", "TIME", "0.01", "200", "3600"],
    );
    let ahead = (time_ms(&mut p) + 3_600_000).to_string();
    let first = gen_items("first:", 0..3);
    let v = raw(
        &mut p,
        &args(&[b"APBF.INSERTAT", b"t", ahead.as_bytes()], &first),
    );
    assert_eq!(as_ints(&v), [1, 1, 1]);
    same(&mut p, &mut r, &["t"], "after the clock moved ahead");
    let before = adds(&mut r);

    // Single commands.
    let single = gen_items("single:", 0..40);
    for item in &single {
        expect_int(&mut p, &[b"APBF.ADD".as_slice(), b"t", item], 1);
    }
    let batch = gen_items("batch:", 0..30);
    assert_eq!(
        as_ints(&raw(&mut p, &args(&[b"APBF.MADD", b"t"], &batch))),
        [1; 30]
    );
    // A transaction.
    expect_ok(&mut p, &["MULTI"]);
    raw(&mut p, &["APBF.ADD", "t", "multi:a"]);
    raw(&mut p, &["APBF.MADD", "t", "multi:b", "multi:c"]);
    raw(&mut p, &["APBF.ADD", "t", "multi:a"]);
    let v = raw(&mut p, &["EXEC"]);
    assert_eq!(
        format!("{v:?}"),
        format!(
            "{:?}",
            Value::Array(vec![
                Value::Int(1),
                Value::Array(vec![Value::Int(1), Value::Int(1)]),
                Value::Int(0),
            ])
        )
    );
    // Scripts (their effects are replicated, each call as made).
    expect_int(&mut p, &["EVAL", ADD_SCRIPT, "1", "t", "script:a"], 1);
    expect_ints(
        &mut p,
        &["EVAL", MADD_SCRIPT, "1", "t", "script:b", "script:a"],
        &[1, 0],
    );
    same(
        &mut p,
        &mut r,
        &["t"],
        "after the adds at the window's clock",
    );
    let sent = adds(&mut r).since(before);
    assert_eq!(
        sent,
        Adds {
            add: single.len() as i64 + 3,
            madd: 3,
            insertat: 0
        },
        "the replica's commands"
    );
    assert_eq!(apbf_field(&mut r, "t", "Number of items inserted"), 80);

    // The primary may not grow the window: a batch past the ring's room is refused part of
    // the way, and only the items taken are sent, at the window's clock.
    let reserved = apbf_field(&mut p, "t", "Size").to_string();
    expect_ok(&mut p, &["CONFIG", "SET", "bf.max-filter-bytes", &reserved]);
    let before = adds(&mut r);
    let over = gen_items("over:", 0..400);
    let v = raw(&mut p, &args(&[b"APBF.MADD", b"t"], &over));
    let Value::Array(answers) = &v else {
        panic!("{v:?}")
    };
    let refusal = err_of(answers.last().unwrap()).expect("a refusal");
    assert!(
        refusal.starts_with("ERR sliding window is full"),
        "{refusal}"
    );
    let taken = answers.len() - 1;
    assert!(taken > 0 && taken < over.len(), "{taken} taken");
    expect_err_prefix(
        &mut p,
        &["APBF.ADD", "t", "refused"],
        "ERR sliding window is full",
    );
    same(&mut p, &mut r, &["t"], "after the refusals");
    assert_eq!(
        adds(&mut r).since(before),
        Adds {
            add: 0,
            madd: 0,
            insertat: 1
        },
        "only the items taken, as APBF.INSERTAT"
    );
    assert_eq!(apbf_field(&mut r, "t", "Refused adds"), 0);
    assert_eq!(
        multi(&mut r, "APBF.MEXISTS", "t", &over[..taken]),
        vec![1; taken]
    );

    // The log holds the same commands, and replays to the same bytes.
    let log = logged(&primary, b"t");
    assert_eq!(log[0], "APBF.LOADCHUNK");
    assert_eq!(log[1], "APBF.INSERTAT");
    let sent: Vec<&str> = log[2..].iter().map(String::as_str).collect();
    assert_eq!(
        sent.iter().filter(|n| **n == "APBF.ADD").count(),
        single.len() + 3
    );
    assert_eq!(sent.iter().filter(|n| **n == "APBF.MADD").count(), 3);
    assert_eq!(sent.last(), Some(&"APBF.INSERTAT"), "{sent:?}");
    assert_eq!(sent.len(), single.len() + 3 + 3 + 1);
    let want = dumps(&mut p, &["t"]);
    drop(p);
    drop(r);
    fs::remove_file(primary.dir().join("dump.rdb")).ok();
    primary.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]);
    let mut p = primary.conn();
    assert_eq!(dumps(&mut p, &["t"]), want, "after the AOF replay");
}

/// What one held transaction sent: the window's clock moved ahead of the server's by
/// `lead_ms`, then adds (single, batch, script), then `DEBUG SLEEP` past that clock before
/// EXEC ends. Whether every add kept the window's clock (and so went as it came) is read
/// from the commands the receiver counted.
pub struct Held {
    pub clock: u64,
}

/// Runs one held transaction of adds on `key` (a TIME window) through `c`.
pub fn held_adds(c: &mut Connection, key: &str, round: usize, lead_ms: u64) -> Held {
    let clock = time_ms(c) + lead_ms;
    let sleep = format!("{:.3}", (lead_ms + 100) as f64 / 1000.0);
    expect_ok(c, &["MULTI"]);
    let queued = [
        vec![
            "APBF.INSERTAT".to_string(),
            key.to_string(),
            clock.to_string(),
            format!("held:{round}:a"),
        ],
        vec!["APBF.ADD".into(), key.into(), format!("held:{round}:b")],
        vec![
            "APBF.MADD".into(),
            key.into(),
            format!("held:{round}:c"),
            format!("held:{round}:d"),
        ],
        vec![
            "EVAL".into(),
            ADD_SCRIPT.into(),
            "1".into(),
            key.into(),
            format!("held:{round}:e"),
        ],
        vec!["DEBUG".into(), "SLEEP".into(), sleep],
    ];
    for q in &queued {
        let v = raw(c, q);
        assert_eq!(as_text(&v), "QUEUED", "{q:?}: {v:?}");
    }
    let v = raw(c, &["EXEC"]);
    let Value::Array(replies) = &v else {
        panic!("EXEC: {v:?}")
    };
    assert!(replies.iter().all(|r| err_of(r).is_none()), "EXEC: {v:?}");
    Held { clock }
}

/// The commands one [`held_adds`] sends when every add kept the window's clock: its
/// APBF.INSERTAT, then the others as they came.
pub const HELD_SENT: Adds = Adds {
    add: 2,
    madd: 1,
    insertat: 1,
};

/// A replica and an AOF replay apply adds sent as they came after their own clock has
/// passed the window's: they take them at the window's clock, and hold the primary's bytes.
#[test]
fn replicas_and_replays_take_adds_sent_as_they_came_at_the_windows_clock() {
    let mut primary = Server::start();
    let mut p = primary.conn();
    aof_always(&mut p, true);
    let replica = primary.start_replica();
    let mut r = replica.conn();
    expect_ok(
        &mut p,
        &["APBF.RESERVE", "t", "TIME", "0.01", "1000", "3600"],
    );

    // A round counts when every add of it kept the window's clock; one whose adds came
    // after that clock (a stalled machine) went as APBF.INSERTAT, and is simply repeated.
    same(&mut p, &mut r, &["t"], "after the creation");
    let mut counted = 0;
    for round in 0..20 {
        let before = adds(&mut r);
        let held = held_adds(&mut p, "t", round, 300);
        same(&mut p, &mut r, &["t"], &format!("round {round}"));
        assert!(time_ms(&mut r) > held.clock, "the replica's clock is past");
        if adds(&mut r).since(before) == HELD_SENT {
            counted += 1;
            if counted == 3 {
                break;
            }
        }
    }
    assert_eq!(counted, 3, "rounds whose adds all kept the window's clock");

    // The replay happens later still; it takes the logged adds at the logged clocks.
    let want = dumps(&mut p, &["t"]);
    expect_ok(&mut p, &["DEBUG", "LOADAOF"]);
    assert_eq!(dumps(&mut p, &["t"]), want, "after DEBUG LOADAOF");
    drop(p);
    primary.restart(&["--appendonly", "yes"]);
    let mut p = primary.conn();
    assert_eq!(dumps(&mut p, &["t"]), want, "after a restart");
}
