//! `rsbloom-cli sharded` against real servers: create, info and delete on one server, and
//! copies between two servers and from a cluster to a server that keep every shard's value
//! (its digest) and place, so the copy opens and answers as the source.

use rsbloom_test_support as common;

use std::process::{Command, Output};

use common::cluster::Cluster;
use common::{digest_value, Server};
use rsbloom_client::{ShardedBloom, ShardedCuckoo, Transport};

fn cli(url: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rsbloom-cli"))
        .arg("--url")
        .arg(url)
        .args(args)
        .output()
        .expect("run rsbloom-cli")
}

/// Runs the tool, asserts success and returns its stdout and stderr.
fn ok(url: &str, args: &[&str]) -> (String, String) {
    let out = cli(url, args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "rsbloom-cli {args:?} failed: {err}");
    (String::from_utf8_lossy(&out.stdout).into_owned(), err)
}

fn fails(url: &str, args: &[&str], want: &str) {
    let out = cli(url, args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "rsbloom-cli {args:?}: {err}");
    assert!(err.contains(want), "{err:?} lacks {want:?}");
}

fn items(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

fn keys_of<C: Transport>(con: &mut C) -> Vec<String> {
    let mut keys: Vec<String> = redis::cmd("KEYS")
        .arg("*")
        .query(con.connection())
        .expect("KEYS");
    keys.sort();
    keys
}

#[test]
fn sharded_create_info_copy_delete_between_two_servers() {
    let (a, b) = (Server::start(), Server::start());
    let (mut ca, mut cb) = (a.conn(), b.conn());
    let create = ["sharded", "create", "bloom", "urls", "--capacity", "10000"];
    ok(
        &a.url(),
        &[&create[..], &["--shards", "5", "--error", "0.001"]].concat(),
    );
    fails(&a.url(), &create, "ERR item exists");
    ok(
        &a.url(),
        &[
            "sharded",
            "create",
            "cuckoo",
            "users",
            "--capacity",
            "5000",
            "--shards",
            "3",
            "--bucket-size",
            "4",
        ],
    );
    let urls = ShardedBloom::open(&mut ca, "urls").expect("open");
    let users = ShardedCuckoo::open(&mut ca, "users").expect("open");
    let (u, v) = (items("u", 3000), items("v", 2000));
    assert!(urls.madd(&mut ca, &u).expect("madd").iter().all(|&x| x));
    assert!(users.madd(&mut ca, &v).expect("madd").iter().all(|&x| x));

    let (info, _) = ok(&a.url(), &["sharded", "info", "urls"]);
    assert!(
        info.contains("urls: bloom filter, 5 shards, capacity 10000"),
        "{info}"
    );
    for key in urls.keys() {
        assert!(info.contains(&*String::from_utf8_lossy(key)), "{info}");
    }
    let total = info.lines().last().expect("a total line");
    assert!(
        total.starts_with("total") && total.ends_with(" 3000"),
        "{info}"
    );

    for name in ["urls", "users"] {
        ok(&a.url(), &["sharded", "copy", name, "--to", &b.url()]);
        fails(
            &a.url(),
            &["sharded", "copy", name, "--to", &b.url()],
            "exists on the target",
        );
    }
    assert_eq!(keys_of(&mut ca), keys_of(&mut cb));
    for key in urls.keys().iter().chain(users.keys()) {
        let key = String::from_utf8_lossy(key);
        assert_eq!(
            digest_value(&mut ca, &key),
            digest_value(&mut cb, &key),
            "{key}"
        );
    }
    let copied = ShardedBloom::open(&mut cb, "urls").expect("open the copy");
    assert!(copied
        .mexists(&mut cb, &u)
        .expect("mexists")
        .iter()
        .all(|&x| x));
    let copied = ShardedCuckoo::open(&mut cb, "users").expect("open the copy");
    assert_eq!(copied.card(&mut cb).expect("card"), 2000);

    ok(&a.url(), &["sharded", "delete", "urls"]);
    ok(&a.url(), &["sharded", "delete", "users"]);
    assert!(keys_of(&mut ca).is_empty());
    fails(
        &a.url(),
        &["sharded", "info", "urls"],
        "no sharded filter named 'urls'",
    );
}

#[test]
fn sharded_copy_from_a_cluster_to_a_server() {
    let cluster = Cluster::start();
    let url = format!("redis://127.0.0.1:{}", cluster.live_ports()[0]);
    let target = Server::start();
    let mut con = cluster.client();
    ok(
        &url,
        &[
            "--cluster",
            "sharded",
            "create",
            "bloom",
            "seen",
            "--capacity",
            "20000",
        ],
    );
    ok(
        &url,
        &[
            "--cluster",
            "sharded",
            "create",
            "cuckoo",
            "cf",
            "--capacity",
            "20000",
            "--shards",
            "6",
        ],
    );
    let seen = ShardedBloom::open(&mut con, "seen").expect("open");
    let cf = ShardedCuckoo::open(&mut con, "cf").expect("open");
    assert_eq!(seen.keys().len(), 16, "the default count");
    let s = items("s", 5000);
    seen.madd(&mut con, &s).expect("madd");
    cf.madd(&mut con, &s).expect("madd");

    let (info, _) = ok(&url, &["--cluster", "sharded", "info", "seen"]);
    let masters = cluster.masters();
    for m in &masters {
        assert!(info.contains(&format!("127.0.0.1:{} ", m.port)), "{info}");
    }
    for name in ["seen", "cf"] {
        ok(
            &url,
            &["--cluster", "sharded", "copy", name, "--to", &target.url()],
        );
    }
    let mut tcon = target.conn();
    for key in seen.keys().iter().chain(cf.keys()) {
        let key = String::from_utf8_lossy(key);
        let mut owner = cluster.conn(cluster.owner(key.as_bytes()));
        assert_eq!(
            digest_value(&mut owner, &key),
            digest_value(&mut tcon, &key),
            "{key}"
        );
    }
    let copied = ShardedBloom::open(&mut tcon, "seen").expect("open");
    assert!(copied
        .mexists(&mut tcon, &s)
        .expect("mexists")
        .iter()
        .all(|&x| x));
    let copied = ShardedCuckoo::open(&mut tcon, "cf").expect("open");
    assert!(copied
        .mexists(&mut tcon, &s)
        .expect("mexists")
        .iter()
        .all(|&x| x));
}
