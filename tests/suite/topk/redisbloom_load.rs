//! RedisBloom's data into rsbloom and rsbloom's into RedisBloom 2.8.2.
//!
//! 1. Each recorded key of tests/vectors/redisbloom-topk loaded by RESTORE of its
//!    `NAME.dump.bin`, by a server started on `all.rdb` and by one replaying `all.base.aof`
//!    (RedisBloom's rewrite: `RESTORE key 0 <DUMP>`): TYPE, TOPK.INFO in both protocols,
//!    MEMORY USAGE, every read the session made after its last write to the key, and the
//!    DUMP body as recorded (the heap's pointer bytes aside: RedisBloom writes its process's
//!    pointers there).
//! 2. The live RedisBloom 2.8.2 loading rsbloom's DUMPs and RDB of every session's key and
//!    of a sketch with decayed buckets, NUL bytes and the empty item: every answer the same
//!    (items cut at a NUL in RedisBloom's replies).

use super::common::files;
use super::common::raw_resp::RawConn;
use super::common::{Installed, Server, ServerOpts};
use super::{
    answers, as_c_strings, dump, fields, items_of, redis74, redisbloom, session, CONFIGS, SET,
};
use serde_json::Value;

fn is_write(argv: &[Vec<u8>]) -> bool {
    let c = argv[0].to_ascii_uppercase();
    matches!(
        c.as_slice(),
        b"TOPK.ADD" | b"TOPK.INCRBY" | b"TOPK.RESERVE" | b"RESTORE"
    )
}

fn is_read(argv: &[Vec<u8>]) -> bool {
    let c = argv[0].to_ascii_uppercase();
    match c.as_slice() {
        b"TOPK.QUERY" | b"TOPK.COUNT" | b"TOPK.INFO" => true,
        // rsbloom takes only the whole word (errors: W, WITH and the empty word).
        b"TOPK.LIST" => argv.len() == 2 || argv[2].eq_ignore_ascii_case(b"WITHCOUNT"),
        _ => false,
    }
}

/// Checks the key `name` against everything recorded for it; returns the reads compared.
fn check_key(c2: &mut RawConn, c3: &mut RawConn, name: &str, how: &str) -> usize {
    let info: Value =
        serde_json::from_str(&files::read(SET, &format!("{name}.info.json"))).expect("json");
    let key = name.as_bytes();
    assert_eq!(
        c2.send(&[b"TYPE".as_slice(), key]),
        b"+TopK-TYPE\r\n",
        "{name} ({how})"
    );
    let unescaped = |field: &str| files::unescape(info[field].as_str().expect(field));
    assert_eq!(
        c2.send(&[b"TOPK.INFO".as_slice(), key]),
        unescaped("info_resp2"),
        "{name} ({how})"
    );
    assert_eq!(
        c3.send(&[b"TOPK.INFO".as_slice(), key]),
        unescaped("info_resp3"),
        "{name} ({how})"
    );
    let memory = c2.send(&[b"MEMORY".as_slice(), b"USAGE", key]);
    assert_eq!(
        memory,
        format!(":{}\r\n", info["memory_usage"]).into_bytes(),
        "{name} ({how}): MEMORY USAGE"
    );
    let recorded = files::read_bytes(SET, &format!("{name}.dump.bin"));
    assert_eq!(
        fields(&dump(c2, key), true),
        fields(&recorded, true),
        "{name} ({how}): DUMP"
    );

    let lines = session(&format!("{name}.commands.tsv"));
    let last_write = lines
        .iter()
        .rposition(|(_, _, _, a)| a.len() > 1 && a[1] == key && is_write(a))
        .expect("a write");
    let mut reads = 0;
    for (seq, proto, expected, argv) in &lines[last_write + 1..] {
        if argv.len() < 2 || argv[1] != key || !is_read(argv) {
            continue;
        }
        let got = if *proto == 3 {
            c3.send(argv)
        } else {
            c2.send(argv)
        };
        assert!(
            got == *expected || as_c_strings(&got) == *expected,
            "{name}:{seq} ({how}): RedisBloom {:?}, rsbloom {:?}",
            files::escape(expected),
            files::escape(&got)
        );
        reads += 1;
    }
    reads
}

#[test]
fn recorded_keys_load_from_restore_rdb_and_aof() {
    let mut report = Vec::new();
    // RESTORE of each DUMP.
    let mut server = redis74();
    let mut c2 = RawConn::connect(server.port);
    let mut c3 = RawConn::connect_resp3(server.port);
    let mut reads = 0;
    for name in CONFIGS {
        let payload = files::read_bytes(SET, &format!("{name}.dump.bin"));
        assert_eq!(
            c2.send(&[b"RESTORE".as_slice(), name.as_bytes(), b"0", &payload]),
            b"+OK\r\n"
        );
        reads += check_key(&mut c2, &mut c3, name, "RESTORE");
    }
    server.assert_alive();
    report.push(format!(
        "RESTORE: {} keys, {reads} recorded reads",
        CONFIGS.len()
    ));

    let stack = Installed::get("redis-7.4");
    for source in ["all.rdb", "all.base.aof"] {
        let aof = source.ends_with(".aof");
        let mut opts = ServerOpts::default().on(&stack);
        if aof {
            opts.server_args = vec!["--appendonly".into(), "yes".into()];
        }
        let bytes = files::read_bytes(SET, source);
        let mut server = Server::start_prepared(opts, |dir| {
            if aof {
                let aof_dir = dir.join("appendonlydir");
                std::fs::create_dir(&aof_dir).expect("appendonlydir");
                std::fs::write(aof_dir.join("appendonly.aof.1.base.aof"), &bytes).expect("aof");
                std::fs::write(
                    aof_dir.join("appendonly.aof.manifest"),
                    "file appendonly.aof.1.base.aof seq 1 type b\n",
                )
                .expect("manifest");
            } else {
                std::fs::write(dir.join("dump.rdb"), &bytes).expect("dump.rdb");
            }
        });
        let mut c2 = RawConn::connect(server.port);
        let mut c3 = RawConn::connect_resp3(server.port);
        let mut reads = 0;
        for name in CONFIGS {
            reads += check_key(&mut c2, &mut c3, name, source);
        }
        server.assert_alive();
        report.push(format!(
            "{source}: {} keys, {reads} recorded reads",
            CONFIGS.len()
        ));
    }
    println!("{}", report.join("\n"));
}

/// Builds every session's key on rsbloom, plus `mix` (collisions, decays, NUL bytes, the
/// empty item); returns the keys and the items to ask about.
fn build(port: u16) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let mut c2 = RawConn::connect(port);
    let mut c3 = RawConn::connect_resp3(port);
    let mut items = Vec::new();
    for name in CONFIGS {
        let lines = session(&format!("{name}.commands.tsv"));
        for (_, proto, _, argv) in &lines {
            if *proto == 3 {
                c3.send(argv)
            } else {
                c2.send(argv)
            };
        }
        items.extend(items_of(&lines));
    }
    assert_eq!(
        c2.send(&[
            b"TOPK.RESERVE".as_slice(),
            b"mix",
            b"6",
            b"16",
            b"3",
            b"0.8"
        ]),
        b"+OK\r\n"
    );
    for round in 0..40u32 {
        let mut args: Vec<Vec<u8>> = vec![b"TOPK.ADD".to_vec(), b"mix".to_vec()];
        for i in 0..30u32 {
            if (i * 7 + round) % (i + 1) == 0 {
                args.push(format!("m\0{i}").into_bytes());
            }
        }
        args.push(Vec::new());
        c2.send(&args);
    }
    let mut keys: Vec<Vec<u8>> = CONFIGS.iter().map(|c| c.as_bytes().to_vec()).collect();
    keys.retain(|k| c2.send(&[b"TYPE".as_slice(), k]) == b"+TopK-TYPE\r\n");
    keys.push(b"mix".to_vec());
    items.extend((0..30).map(|i| format!("m\0{i}").into_bytes()));
    items.push(Vec::new());
    items.dedup();
    (keys, items)
}

/// Every answer of each key on both servers; rsbloom's with items cut at a NUL.
fn compare(rs: u16, rb: u16, keys: &[Vec<u8>], items: &[Vec<u8>], how: &str) -> usize {
    let (mut a2, mut a3) = (RawConn::connect(rs), RawConn::connect_resp3(rs));
    let (mut b2, mut b3) = (RawConn::connect(rb), RawConn::connect_resp3(rb));
    let mut n = 0;
    for key in keys {
        let ours = answers(&mut a2, &mut a3, key, items);
        let theirs = answers(&mut b2, &mut b3, key, items);
        for (i, (o, t)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(
                files::escape(&as_c_strings(o)),
                files::escape(t),
                "{} answer {i} ({how})",
                String::from_utf8_lossy(key)
            );
            n += 1;
        }
    }
    n
}

#[test]
fn redisbloom_2_8_2_loads_rsbloom_dumps_and_rdb() {
    let mut rs = redis74();
    let (keys, items) = build(rs.port);
    let mut rb = redisbloom();
    let mut from = RawConn::connect(rs.port);
    let mut to = RawConn::connect(rb.port);
    for key in &keys {
        let payload = dump(&mut from, key);
        assert_eq!(
            to.send(&[b"RESTORE".as_slice(), key, b"0", &payload]),
            b"+OK\r\n"
        );
    }
    let n = compare(rs.port, rb.port, &keys, &items, "DUMP");
    rb.assert_alive();

    // The RDB file.
    assert_eq!(from.send(&[b"SAVE".as_slice()]), b"+OK\r\n");
    let rdb = std::fs::read(rs.dir().join("dump.rdb")).expect("dump.rdb");
    let opts = ServerOpts::default()
        .on(&Installed::get("redis-7.4"))
        .redisbloom();
    let mut rb2 = Server::start_prepared(opts, |dir| {
        std::fs::write(dir.join("dump.rdb"), &rdb).expect("dump.rdb");
    });
    let m = compare(rs.port, rb2.port, &keys, &items, "RDB");
    rb2.assert_alive();
    rs.assert_alive();
    println!(
        "{} keys: {n} answers equal after RESTORE, {m} after loading the RDB",
        keys.len()
    );
}

/// An rsbloom replica of a RedisBloom 2.8.2 primary: the keys the primary holds reach it by
/// the full sync (RedisBloom's RDB), later commands by the stream; with no collisions in
/// the stream (so no `rand()` on the primary's side), every answer is the primary's.
#[test]
fn an_rsbloom_replica_of_a_redisbloom_primary() {
    let mut rb = redisbloom();
    let mut p2 = RawConn::connect(rb.port);
    let mut p3 = RawConn::connect_resp3(rb.port);
    let mut items = Vec::new();
    // `binary` aside: RedisBloom's RDB cuts its NUL items, so any replica loses them.
    let synced = ["nodecay", "incrby", "k1", "empty", "resp3", "decay1"];
    for name in synced {
        let lines = session(&format!("{name}.commands.tsv"));
        for (_, proto, _, argv) in &lines {
            if *proto == 3 {
                p3.send(argv)
            } else {
                p2.send(argv)
            };
        }
        items.extend(items_of(&lines));
    }
    p2.send(&[
        b"CONFIG".as_slice(),
        b"SET",
        b"repl-diskless-sync-delay",
        b"0",
    ]);
    let port = rb.port.to_string();
    let mut opts = ServerOpts::default().on(&Installed::get("redis-7.4"));
    opts.server_args = vec!["--replicaof".into(), "127.0.0.1".into(), port];
    let mut replica = Server::start_with(opts);
    let mut r2 = RawConn::connect(replica.port);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let info = r2.send(&[b"INFO".as_slice(), b"replication"]);
        if String::from_utf8_lossy(&info).contains("master_link_status:up") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the replica never linked up"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The decay position of each synced key (the first heap entry's pointer bytes).
    let rolls = |c: &mut RawConn| -> Vec<Vec<u8>> {
        synced
            .iter()
            .map(|k| fields(&dump(c, k.as_bytes()), false)[5][8..16].to_vec())
            .collect()
    };
    let before = rolls(&mut r2);
    // The stream: a new key, and adds of new items to a synced one (wide sketches: these
    // items share no bucket with others, checked below).
    p2.send(&[
        b"TOPK.RESERVE".as_slice(),
        b"live",
        b"10",
        b"4096",
        b"4",
        b"0.9",
    ]);
    for round in 0..5 {
        for key in ["live", "nodecay"] {
            let mut args = vec![b"TOPK.INCRBY".to_vec(), key.as_bytes().to_vec()];
            for i in 0..8 {
                args.push(format!("{key}:s{i}").into_bytes());
                args.push(format!("{}", (i * 3 + round) % 7).into_bytes());
            }
            p2.send(&args);
        }
    }
    items
        .extend((0..8).flat_map(|i| ["live", "nodecay"].map(|k| format!("{k}:s{i}").into_bytes())));
    let wait = p2.send(&[b"WAIT".as_slice(), b"1", b"5000"]);
    assert_eq!(wait, b":1\r\n", "the replica did not acknowledge");
    let mut keys: Vec<Vec<u8>> = synced.iter().map(|k| k.as_bytes().to_vec()).collect();
    keys.push(b"live".to_vec());
    // No decay roll happened (so none on the primary either, whose rolls are random).
    assert_eq!(rolls(&mut r2), before, "the stream made the sketches roll");
    let live = fields(&dump(&mut r2, b"live"), false)[5][8..16].to_vec();
    assert_eq!(live, [0; 8], "the new key rolled");
    let n = compare(replica.port, rb.port, &keys, &items, "replica");
    replica.assert_alive();
    rb.assert_alive();
    println!(
        "{} keys: {n} answers of the rsbloom replica equal to its RedisBloom primary's",
        keys.len()
    );
}
