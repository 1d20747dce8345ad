//! `rsbloom-cli sharded` against real servers: create, info and delete on one server, and
//! copies between two servers and from a cluster to a server that keep every shard's value
//! (its digest) and place, so the copy opens and answers as the source.

use rsbloom_test_support as common;

use std::process::{Command, Output};

use common::cluster::Cluster;
use common::{digest_value, Server};
use rsbloom_client::{Client, ShardedBloom, ShardedCuckoo};

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

/// rsbloom-client's own connection (redis-rs 1.x) to the server or cluster at `url`; the
/// test support's (redis-rs 0.27) serves the raw commands.
fn client(url: &str) -> Client {
    Client::connect(url).expect("rsbloom-client connects")
}

fn keys_of(con: &mut redis::Connection) -> Vec<String> {
    let mut keys: Vec<String> = redis::cmd("KEYS").arg("*").query(con).expect("KEYS");
    keys.sort();
    keys
}

#[test]
fn sharded_create_info_copy_delete_between_two_servers() {
    let (a, b) = (Server::start(), Server::start());
    let (mut ca, mut cb) = (a.conn(), b.conn());
    let (mut xca, mut xcb) = (client(&a.url()), client(&b.url()));
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
    let urls = ShardedBloom::open(&mut xca, "urls").expect("open");
    let users = ShardedCuckoo::open(&mut xca, "users").expect("open");
    let (u, v) = (items("u", 3000), items("v", 2000));
    assert!(urls.madd(&mut xca, &u).expect("madd").iter().all(|&x| x));
    assert!(users.madd(&mut xca, &v).expect("madd").iter().all(|&x| x));

    let (info, _) = ok(&a.url(), &["sharded", "info", "urls"]);
    assert!(
        info.contains("urls: bloom filter, 5 shards, capacity 10000"),
        "{info}"
    );
    for key in urls.keys() {
        assert!(info.contains(&*String::from_utf8_lossy(&key)), "{info}");
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
    for key in urls.keys().iter().chain(&users.keys()) {
        let key = String::from_utf8_lossy(key);
        assert_eq!(
            digest_value(&mut ca, &key),
            digest_value(&mut cb, &key),
            "{key}"
        );
    }
    let copied = ShardedBloom::open(&mut xcb, "urls").expect("open the copy");
    assert!(copied
        .mexists(&mut xcb, &u)
        .expect("mexists")
        .iter()
        .all(|&x| x));
    let copied = ShardedCuckoo::open(&mut xcb, "users").expect("open the copy");
    assert_eq!(copied.card(&mut xcb).expect("card"), 2000);

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
    let mut xcon = client(&url);
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
    let seen = ShardedBloom::open(&mut xcon, "seen").expect("open");
    let cf = ShardedCuckoo::open(&mut xcon, "cf").expect("open");
    assert_eq!(seen.keys().len(), 16, "the default count");
    let s = items("s", 5000);
    seen.madd(&mut xcon, &s).expect("madd");
    cf.madd(&mut xcon, &s).expect("madd");

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
    let mut xtcon = client(&target.url());
    for key in seen.keys().iter().chain(&cf.keys()) {
        let key = String::from_utf8_lossy(key);
        let mut owner = cluster.conn(cluster.owner(key.as_bytes()));
        assert_eq!(
            digest_value(&mut owner, &key),
            digest_value(&mut tcon, &key),
            "{key}"
        );
    }
    let copied = ShardedBloom::open(&mut xtcon, "seen").expect("open");
    assert!(copied
        .mexists(&mut xtcon, &s)
        .expect("mexists")
        .iter()
        .all(|&x| x));
    let copied = ShardedCuckoo::open(&mut xtcon, "cf").expect("open");
    assert!(copied
        .mexists(&mut xtcon, &s)
        .expect("mexists")
        .iter()
        .all(|&x| x));
}

/// `CF.INFO` / `BF.INFO` of `key` as (name, value) pairs, values as text.
fn info_pairs(con: &mut redis::Connection, command: &str, key: &str) -> Vec<(String, String)> {
    let v: redis::Value = redis::cmd(command).arg(key).query(con).expect(command);
    let text = |v: &redis::Value| match v {
        redis::Value::Int(n) => n.to_string(),
        other => String::from_redis_value(other).expect("a text value"),
    };
    match v {
        redis::Value::Array(items) => items
            .chunks(2)
            .map(|p| (text(&p[0]), text(&p[1])))
            .collect(),
        other => panic!("{command} {key}: {other:?}"),
    }
}

use redis::FromRedisValue;

/// A cuckoo shard with no items sends no header to `CF.SCANDUMP`: the copy rebuilds it and
/// keeps the shard's place (and its counters: one shard had items, all deleted again); the
/// empty shards of a Bloom filter copy as they are; a plain filter where a shard should be
/// is refused before anything is written.
#[test]
fn sharded_copy_keeps_the_place_of_empty_shards() {
    use rsbloom_core::shard::layout::shard_of_item;

    let (a, b) = (Server::start(), Server::start());
    let (mut ca, mut cb) = (a.conn(), b.conn());
    let (mut xca, mut xcb) = (client(&a.url()), client(&b.url()));
    let create = |family: &str, name: &str| {
        ok(
            &a.url(),
            &[
                "sharded",
                "create",
                family,
                name,
                "--capacity",
                "1000",
                "--shards",
                "4",
            ],
        );
    };
    create("cuckoo", "few");
    create("bloom", "none");
    let few = ShardedCuckoo::open(&mut xca, "few").expect("open");
    // Items of shard 0 only, and one of shard 1 added and removed again.
    let mine: Vec<String> = items("f", 400)
        .into_iter()
        .filter(|it| shard_of_item(it.as_bytes(), 4) == 0)
        .collect();
    assert!(few.madd(&mut xca, &mine).expect("madd").iter().all(|&x| x));
    let gone = items("g", 400)
        .into_iter()
        .find(|it| shard_of_item(it.as_bytes(), 4) == 1)
        .expect("an item of shard 1");
    assert!(few.add(&mut xca, &gone).expect("add"));
    assert!(few.remove(&mut xca, &gone).expect("remove"));

    for name in ["few", "none"] {
        ok(&a.url(), &["sharded", "copy", name, "--to", &b.url()]);
    }
    assert_eq!(keys_of(&mut ca), keys_of(&mut cb));
    let none = ShardedBloom::open(&mut xca, "none").expect("open");
    for (command, keys) in [("CF.INFO", few.keys()), ("BF.INFO", none.keys())] {
        for (i, key) in keys.iter().enumerate() {
            let key = String::from_utf8_lossy(key);
            let (from, to) = (
                info_pairs(&mut ca, command, &key),
                info_pairs(&mut cb, command, &key),
            );
            assert_eq!(from, to, "{command} {key}");
            let shard = ("Shard".to_string(), i.to_string());
            assert!(to.contains(&shard), "{command} {key}: {to:?}");
            assert_eq!(
                digest_value(&mut ca, &key),
                digest_value(&mut cb, &key),
                "{key}"
            );
        }
    }
    // The copies are in force as shards: an item of another shard is refused.
    let copied = ShardedCuckoo::open(&mut xcb, "few").expect("open the copy");
    let key2 = String::from_utf8_lossy(&copied.keys()[2]).into_owned();
    let stranger = items("x", 400)
        .into_iter()
        .find(|it| shard_of_item(it.as_bytes(), 4) == 0)
        .unwrap();
    let refused: redis::RedisResult<i64> = redis::cmd("CF.ADD")
        .arg(&key2)
        .arg(&stranger)
        .query(&mut cb);
    let err = refused
        .expect_err("an item of shard 0 in shard 2")
        .to_string();
    assert!(err.contains("wrong shard"), "{err}");
    assert!(copied
        .mexists(&mut xcb, &mine)
        .expect("mexists")
        .iter()
        .all(|&x| x));
    assert_eq!(copied.card(&mut xcb).expect("card"), mine.len() as u64);
    assert!(
        copied
            .madd(&mut xcb, std::slice::from_ref(&gone))
            .expect("madd")[0]
    );

    // A plain filter in place of shard 3: nothing reaches the target.
    let key3 = String::from_utf8_lossy(&few.keys()[3]).into_owned();
    let _: () = redis::cmd("DEL").arg(&key3).query(&mut ca).unwrap();
    let _: () = redis::cmd("CF.RESERVE")
        .arg(&key3)
        .arg(100)
        .query(&mut ca)
        .unwrap();
    let c = Server::start();
    fails(
        &a.url(),
        &["sharded", "copy", "few", "--to", &c.url()],
        &format!("'{key3}' is not a shard"),
    );
    assert!(keys_of(&mut c.conn()).is_empty());
}

/// A keyed filter's copy keeps its creation id and routing secret, the empty cuckoo shards
/// too (their header is rebuilt with the secret the description holds): the copy takes the
/// same items on the same shards.
#[test]
fn sharded_copy_of_a_keyed_filter_keeps_its_routing() {
    let (a, b) = (Server::start(), Server::start());
    let (mut ca, mut cb) = (a.conn(), b.conn());
    let (mut xca, mut xcb) = (client(&a.url()), client(&b.url()));
    for family in ["cuckoo", "bloom"] {
        let name = format!("k{family}");
        ok(
            &a.url(),
            &[
                "sharded",
                "create",
                family,
                &name,
                "--capacity",
                "4000",
                "--shards",
                "4",
                "--keyed-routing",
            ],
        );
        let (info, _) = ok(&a.url(), &["sharded", "info", &name]);
        assert!(info.contains("keyed routing"), "{info}");
        ok(&a.url(), &["sharded", "copy", &name, "--to", &b.url()]);
        for key in &ShardedBloom::open(&mut xca, &name)
            .map(|f| f.keys())
            .or_else(|_| ShardedCuckoo::open(&mut xca, &name).map(|f| f.keys()))
            .expect("open")
        {
            let key = String::from_utf8_lossy(key);
            assert_eq!(
                digest_value(&mut ca, &key),
                digest_value(&mut cb, &key),
                "{key}"
            );
        }
    }
    let v = items("v", 500);
    let copied = ShardedCuckoo::open(&mut xcb, "kcuckoo").expect("open the copy");
    assert!(copied.madd(&mut xcb, &v).expect("madd").iter().all(|&x| x));
    assert!(copied
        .mexists(&mut xcb, &v)
        .expect("mexists")
        .iter()
        .all(|&x| x));
    let copied = ShardedBloom::open(&mut xcb, "kbloom").expect("open the copy");
    copied.madd(&mut xcb, &v).expect("madd");
    assert!(copied
        .mexists(&mut xcb, &v)
        .expect("mexists")
        .iter()
        .all(|&x| x));
}
