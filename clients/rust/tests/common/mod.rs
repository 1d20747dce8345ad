//! What the client tests share: connections of this crate's redis-rs (1.x) built from the
//! ports of tests/support's servers and clusters (which run redis 0.27 themselves), raw
//! commands, and a fault proxy.

#![allow(dead_code)] // each test binary uses its own part

pub mod proxy;

use std::time::Duration;

use redis::Value;
use rsbloom_client::{Client, Options};
use rsbloom_test_support::cluster::Cluster;

/// The protocols every test runs in: RESP3 when true.
pub const RESP3: [bool; 2] = [false, true];

pub fn url(port: u16, resp3: bool) -> String {
    match resp3 {
        true => format!("redis://127.0.0.1:{port}/?protocol=resp3"),
        false => format!("redis://127.0.0.1:{port}/"),
    }
}

/// A client of the server (or cluster node) at `port`.
pub fn client(port: u16, resp3: bool) -> Client {
    Client::connect(url(port, resp3)).expect("connect")
}

/// A client whose retries stop after `retry` (tests of what happens when they run out).
pub fn client_retrying(port: u16, resp3: bool, retry: Duration) -> Client {
    let options = Options {
        retry_timeout: retry,
        ..Options::default()
    };
    Client::connect_with(url(port, resp3), options).expect("connect")
}

pub async fn async_client(port: u16, resp3: bool) -> rsbloom_client::aio::Client {
    rsbloom_client::aio::Client::connect(url(port, resp3))
        .await
        .expect("connect")
}

/// A plain connection to one node.
pub fn raw(port: u16) -> redis::Connection {
    redis::Client::open(url(port, false))
        .expect("url")
        .get_connection()
        .expect("connection")
}

/// `args` on the node at `port`; an error reply is `Err(its text)`.
pub fn cmd(port: u16, args: &[&[u8]]) -> Result<Value, String> {
    let mut c = redis::Cmd::new();
    for a in args {
        c.arg(*a);
    }
    match c.query::<Value>(&mut raw(port)) {
        Ok(Value::ServerError(e)) => Err(format!("{e:?}")),
        Ok(v) => Ok(v),
        Err(e) => Err(e.to_string()),
    }
}

pub fn int(v: Result<Value, String>) -> i64 {
    match v {
        Ok(Value::Int(n)) => n,
        Ok(Value::Boolean(b)) => b as i64,
        other => panic!("not an integer: {other:?}"),
    }
}

/// The port of the master holding `key` (or the one server).
pub fn owner(cluster: Option<&Cluster>, single: u16, key: &[u8]) -> u16 {
    match cluster {
        Some(c) => c.owner(key),
        None => single,
    }
}

/// Every key of every master (or of the one server), sorted.
pub fn all_keys(ports: &[u16]) -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = Vec::new();
    for &p in ports {
        let got: Vec<Vec<u8>> = redis::cmd("KEYS")
            .arg("*")
            .query(&mut raw(p))
            .expect("KEYS");
        keys.extend(got);
    }
    keys.sort();
    keys
}

pub fn master_ports(cluster: &Cluster) -> Vec<u16> {
    cluster.masters().iter().map(|m| m.port).collect()
}

/// `n` items with every third one a repeat of an earlier one, so that a batch's answers
/// show whether they came back in the caller's order.
pub fn items_with_repeats(prefix: &str, n: usize) -> (Vec<String>, Vec<bool>) {
    let mut items: Vec<String> = Vec::with_capacity(n);
    let mut fresh = Vec::with_capacity(n);
    for i in 0..n {
        if i % 3 == 2 {
            items.push(items[i / 2].clone());
            fresh.push(false);
        } else {
            items.push(format!("{prefix}:{i}"));
            fresh.push(true);
        }
    }
    (items, fresh)
}

/// `Number of items inserted` of a cuckoo shard's `CF.INFO`, asked of its master.
pub fn inserted(port: u16, key: &[u8]) -> u64 {
    let Ok(Value::Array(info)) = cmd(port, &[b"CF.INFO", key]) else {
        panic!("CF.INFO of {}", String::from_utf8_lossy(key))
    };
    let at = info
        .iter()
        .position(|v| *v == Value::SimpleString("Number of items inserted".into()))
        .or_else(|| {
            let name = Value::BulkString(b"Number of items inserted".to_vec());
            info.iter().position(|v| *v == name)
        })
        .expect("Number of items inserted");
    int(Ok(info[at + 1].clone())) as u64
}
