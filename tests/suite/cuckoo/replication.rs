//! Cuckoo filters on a primary and its replica stay identical (DUMP) through adds with kicks,
//! NX adds, deletes (with automatic compaction), growth, CF.COMPACT, partial CF.INSERTs,
//! creations by CF.ADD / CF.INSERT under other defaults on the replica, and a CF.LOADCHUNK
//! copy (whose data chunks RedisBloom does not replicate).

use rsbloom_test_support as common;

use common::*;
use redis::Connection;

fn wait_one_replica(c: &mut Connection) {
    expect_int(c, &["WAIT", "1", "5000"], 1);
}

fn insert(con: &mut Connection, key: &str, items: &[Vec<u8>]) -> Vec<i64> {
    let mut args: Vec<Vec<u8>> = vec![b"CF.INSERT".to_vec(), key.as_bytes().to_vec()];
    args.push(b"ITEMS".to_vec());
    args.extend(items.iter().cloned());
    as_ints(&raw(con, &args))
}

#[test]
fn replicas_hold_the_same_cuckoo_filters() {
    let primary = Server::start();
    let replica = primary.start_replica();
    let mut p = primary.conn();
    let mut r = replica.conn();
    // The replica would create other filters by itself: creations must pin every parameter.
    for (name, value) in [
        ("bf.cf-bucket-size", "4"),
        ("bf.cf-initial-size", "64"),
        ("bf.cf-max-iterations", "3"),
        ("bf.cf-expansion-factor", "4"),
    ] {
        expect_ok(&mut r, &["CONFIG", "SET", name, value]);
    }

    // Adds with kicks and growth, deletes (automatic compaction), CF.COMPACT.
    expect_ok(
        &mut p,
        &[
            "CF.RESERVE",
            "c",
            "64",
            "BUCKETSIZE",
            "2",
            "MAXITERATIONS",
            "50",
            "EXPANSION",
            "2",
        ],
    );
    let items = gen_items("c:", 0..3000);
    assert!(insert(&mut p, "c", &items).iter().all(|&a| a == 1));
    for item in &items[..400] {
        let args: [&[u8]; 3] = [b"CF.DEL", b"c", item];
        expect_int(&mut p, &args, 1);
    }
    for item in &items[400..450] {
        let args: [&[u8]; 3] = [b"CF.ADDNX", b"c", item];
        expect_int(&mut p, &args, 0);
    }
    expect_ok(&mut p, &["CF.COMPACT", "c"]);

    // Creations by CF.ADD and CF.INSERT (CAPACITY), CF.INSERTNX with repeats.
    expect_int(&mut p, &["CF.ADD", "auto", "a"], 1);
    let v = raw(
        &mut p,
        &[
            "CF.INSERT",
            "ins",
            "CAPACITY",
            "200",
            "ITEMS",
            "a",
            "b",
            "a",
        ],
    );
    assert_eq!(as_ints(&v), vec![1, 1, 1]);
    let v = raw(&mut p, &["CF.INSERTNX", "ins", "ITEMS", "a", "z", "z"]);
    assert_eq!(as_ints(&v), vec![0, 1, 0]);

    // A partial CF.INSERT: a filter that never grows fills up; only what was added goes on.
    expect_ok(
        &mut p,
        &[
            "CF.RESERVE",
            "full",
            "8",
            "MAXITERATIONS",
            "5",
            "EXPANSION",
            "0",
        ],
    );
    let answers = insert(&mut p, "full", &gen_items("f:", 0..40));
    assert!(answers.contains(&-1) && answers.contains(&1), "{answers:?}");

    // A LOADCHUNK copy of "c": header and every data chunk.
    let mut iter = 0i64;
    loop {
        let v = raw(&mut p, &["CF.SCANDUMP", "c", &iter.to_string()]);
        let redis::Value::Array(parts) = v else {
            panic!("SCANDUMP answered {v:?}")
        };
        let next = as_int(&parts[0]);
        if next == 0 {
            break;
        }
        let data = as_bytes(&parts[1]);
        let it = next.to_string();
        let args: [&[u8]; 4] = [b"CF.LOADCHUNK", b"copy", it.as_bytes(), &data];
        expect_ok(&mut p, &args);
        iter = next;
    }

    wait_one_replica(&mut p);
    for key in ["c", "auto", "ins", "full", "copy"] {
        let dump = as_bytes(&raw(&mut p, &["DUMP", key]));
        assert!(!dump.is_empty(), "{key}: no DUMP on the primary");
        assert_eq!(
            as_bytes(&raw(&mut r, &["DUMP", key])),
            dump,
            "{key}: the replica holds another filter"
        );
    }
    let probe = gen_items("c:", 0..3000);
    let mut args: Vec<Vec<u8>> = vec![b"CF.MEXISTS".to_vec(), b"copy".to_vec()];
    args.extend(probe.iter().cloned());
    assert_eq!(as_ints(&raw(&mut r, &args)), as_ints(&raw(&mut p, &args)));
}

fn dumps(con: &mut Connection, keys: &[&str]) -> Vec<Vec<u8>> {
    keys.iter()
        .map(|k| as_bytes(&raw(con, &["DUMP", k])))
        .collect()
}

/// A LOADCHUNK copy logged to the AOF as commands comes back whole after a restart
/// (RedisBloom logs only its header: the slots come back empty); then the same after an AOF
/// rewrite (every filter as CF.LOADCHUNK chunks of at most `bf.chunk-bytes`, also one that
/// counts no items).
#[test]
fn cuckoo_filters_survive_aof_replay_and_rewrite() {
    let mut s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["CONFIG", "SET", "aof-use-rdb-preamble", "no"]);
    expect_ok(&mut c, &["CONFIG", "SET", "appendonly", "yes"]);
    wait_for_aof_rewrite(&mut c);
    expect_ok(&mut c, &["CONFIG", "SET", "bf.cf-max-iterations", "7"]);
    expect_int(&mut c, &["CF.ADD", "auto", "a"], 1);
    expect_ok(&mut c, &["CF.RESERVE", "c", "100", "EXPANSION", "2"]);
    insert(&mut c, "c", &gen_items("c:", 0..1000));
    expect_ok(&mut c, &["CF.RESERVE", "empty", "1000"]);
    let mut iter = 0i64;
    loop {
        let v = raw(&mut c, &["CF.SCANDUMP", "c", &iter.to_string()]);
        let redis::Value::Array(parts) = v else {
            panic!("SCANDUMP answered {v:?}")
        };
        let next = as_int(&parts[0]);
        if next == 0 {
            break;
        }
        let data = as_bytes(&parts[1]);
        let it = next.to_string();
        let args: [&[u8]; 4] = [b"CF.LOADCHUNK", b"copy", it.as_bytes(), &data];
        expect_ok(&mut c, &args);
        iter = next;
    }
    let keys = ["auto", "c", "empty", "copy"];
    let before = dumps(&mut c, &keys);
    drop(c);
    std::fs::remove_file(s.dir().join("dump.rdb")).ok();
    s.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]);
    let mut c = s.conn();
    assert_eq!(dumps(&mut c, &keys), before, "after the AOF replay");

    expect_ok(&mut c, &["CONFIG", "SET", "bf.chunk-bytes", "64"]);
    let v = raw(&mut c, &["BGREWRITEAOF"]);
    assert!(err_of(&v).is_none(), "BGREWRITEAOF answered {v:?}");
    wait_for_aof_rewrite(&mut c);
    let (_, bytes) = s.aof_base();
    let commands = parse_aof(&bytes).expect("plain RESP");
    let chunks = commands
        .iter()
        .filter(|a| a[0].eq_ignore_ascii_case(b"CF.LOADCHUNK"))
        .inspect(|a| assert!(a[2] == b"1" || a[3].len() <= 64, "a chunk over 64 bytes"))
        .count();
    assert!(
        chunks > 4 + 2000 / 64,
        "only {chunks} CF.LOADCHUNK commands"
    );
    drop(c);
    std::fs::remove_file(s.dir().join("dump.rdb")).ok();
    s.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]);
    let mut c = s.conn();
    assert_eq!(dumps(&mut c, &keys), before, "after the AOF rewrite");
}

/// Every CF write that changed the key emits one keyspace event named after its command;
/// writes that changed nothing and reads emit nothing (checked by order: the next message
/// must be the next expected event).
#[test]
fn cuckoo_writes_emit_keyspace_events() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["CONFIG", "SET", "notify-keyspace-events", "Kg"]);
    let mut sub = s.conn();
    let mut ps = sub.as_pubsub();
    ps.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .expect("timeout");
    ps.subscribe("__keyspace@0__:k").expect("subscribe");
    let steps: [(&[&str], Option<&str>); 14] = [
        (
            &["CF.RESERVE", "k", "8", "EXPANSION", "0"],
            Some("cf.reserve"),
        ),
        (&["CF.ADD", "k", "a"], Some("cf.add")),
        (&["CF.ADDNX", "k", "a"], None),
        (&["CF.ADDNX", "k", "b"], Some("cf.addnx")),
        (&["CF.INSERT", "k", "ITEMS", "c"], Some("cf.insert")),
        (&["CF.INSERTNX", "k", "ITEMS", "c"], None),
        (&["CF.INSERTNX", "k", "ITEMS", "d"], Some("cf.insertnx")),
        (&["CF.EXISTS", "k", "a"], None),
        (&["CF.SCANDUMP", "k", "0"], None),
        (&["CF.DEL", "k", "zz"], None),
        (&["CF.DEL", "k", "a"], Some("cf.del")),
        (&["CF.COMPACT", "k"], Some("cf.compact")),
        (&["DEL", "k"], Some("del")),
        (&["CF.LOADCHUNK", "k", "1", HEADER], Some("cf.loadchunk")),
    ];
    for (args, event) in steps {
        let v = raw(&mut c, args);
        assert!(err_of(&v).is_none(), "{args:?} answered {v:?}");
        if let Some(event) = event {
            let msg = ps
                .get_message()
                .unwrap_or_else(|e| panic!("no {event} after {args:?}: {e}"));
            let payload: String = msg.get_payload().expect("text");
            assert_eq!(payload, event, "after {args:?}");
        }
    }
}

/// A LOADCHUNK header: 0 items, 4 buckets, 0 deletes, 1 sub-filter, bucket size 2, 20
/// iterations, expansion 1.
const HEADER: &str =
    "\0\0\0\0\0\0\0\0\x04\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0\x02\0\x14\0\x01\0";

/// Filters RedisBloom's RDB loader takes and its CF.LOADCHUNK refuses from users: a bucket
/// count that is not a power of two, 0 iterations. An AOF rewrite writes them as
/// CF.LOADCHUNK headers, which the AOF replay must accept (a user's CF.LOADCHUNK of the same
/// header is still refused, as in RedisBloom) or the keys are lost on the restart. The
/// filters are RESTOREd empty (odd shape, parameters) and then filled by commands, which
/// grow them.
#[test]
fn odd_loaded_filters_survive_an_aof_rewrite_and_reach_replicas() {
    let mut s = Server::start();
    let mut replica = s.start_replica();
    let mut c = s.conn();
    expect_ok(&mut c, &["CF.RESERVE", "frame", "4"]);
    let frame = rdb::Frame::from_dump(&as_bytes(&raw(&mut c, &["DUMP", "frame"])));
    expect_int(&mut c, &["DEL", "frame"], 1);
    // (key, buckets, iterations, expansion)
    let shapes = [
        ("odd3", 3u64, 0u64, 1u64),
        ("pow2mi0", 4, 0, 2),
        ("odd5", 5, 20, 2),
    ];
    let items = gen_items("o:", 0..120);
    for (key, buckets, iterations, expansion) in shapes {
        let fields = [
            rdb::F::U(1),
            rdb::F::U(buckets),
            rdb::F::U(0),
            rdb::F::U(0),
            rdb::F::U(2),
            rdb::F::U(iterations),
            rdb::F::U(expansion),
            rdb::F::U(buckets),
            rdb::F::S(vec![0; 2 * buckets as usize]),
        ];
        let v = rdb::restore(&mut c, key, &frame.payload(&fields));
        assert_eq!(v, redis::Value::Okay, "{key}");
        let added = insert(&mut c, key, &items);
        assert!(added.iter().filter(|&&a| a == 1).count() > 40, "{key}");
        for item in items.iter().step_by(7) {
            raw(
                &mut c,
                &[b"CF.DEL".as_slice(), key.as_bytes(), item.as_slice()],
            );
        }
        // The user path keeps RedisBloom's refusal of such a header.
        let header = as_bytes(
            &raw(&mut c, &["CF.SCANDUMP", key, "0"])
                .as_sequence()
                .unwrap()[1],
        );
        let args: [&[u8]; 4] = [b"CF.LOADCHUNK", b"copy", b"1", &header];
        expect_err(&mut c, &args, "Couldn't create filter!");
    }
    let keys: Vec<&str> = shapes.iter().map(|s| s.0).collect();
    let answers = |c: &mut Connection| -> Vec<Vec<u8>> {
        let mut out = dumps(c, &keys);
        let probes = gen_items("p:", 0..200);
        for key in &keys {
            out.push(as_bytes(&raw(c, &["CF.DEBUG", key])));
            for item in items.iter().chain(&probes) {
                let exists = as_int(&raw(
                    c,
                    &[b"CF.EXISTS".as_slice(), key.as_bytes(), item.as_slice()],
                ));
                let count = as_int(&raw(
                    c,
                    &[b"CF.COUNT".as_slice(), key.as_bytes(), item.as_slice()],
                ));
                out.push(format!("{exists} {count}").into_bytes());
            }
        }
        out
    };
    let before = answers(&mut c);

    // The replica got the RESTOREs and the commands.
    wait_one_replica(&mut c);
    assert_eq!(answers(&mut replica.conn()), before, "on the replica");
    replica.stop();

    expect_ok(&mut c, &["CONFIG", "SET", "aof-use-rdb-preamble", "no"]);
    expect_ok(&mut c, &["CONFIG", "SET", "appendonly", "yes"]);
    wait_for_aof_rewrite(&mut c);
    let (_, bytes) = s.aof_base();
    let commands = parse_aof(&bytes).expect("plain RESP");
    for key in &keys {
        assert!(
            commands
                .iter()
                .any(|a| a[0].eq_ignore_ascii_case(b"CF.LOADCHUNK")
                    && a[1] == key.as_bytes()
                    && a[2] == b"1"),
            "no CF.LOADCHUNK header of {key} in the rewrite"
        );
    }
    drop(c);
    std::fs::remove_file(s.dir().join("dump.rdb")).ok();
    s.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]);
    let mut c = s.conn();
    assert_eq!(answers(&mut c), before, "after the AOF rewrite and restart");

    // A replica of the restarted server (a full sync) holds them too.
    let replica = s.start_replica();
    assert_eq!(answers(&mut replica.conn()), before, "on a new replica");
}
