//! A shard keeps its place wherever its value goes: DEBUG RELOAD (RDB), DUMP / RESTORE,
//! SCANDUMP / LOADCHUNK, the AOF rewrite (LOADCHUNK chunks) replayed, and a replica; with
//! its creation id and keyed routing where it has them.

use super::*;

/// A shard: its family, key, index and whether it has an id and keyed routing.
type Made = (&'static str, String, u32, bool);

/// A plain Bloom shard (0), a keyed Bloom shard (1) and a keyed cuckoo shard (2), each
/// holding 1,500 of its items (the Bloom ones grown to a second layer).
fn populate(c: &mut Connection) -> [Made; 3] {
    let made = [
        ("bf", reserve_as(c, "bf", 0, false), 0, false),
        ("bf", reserve_as(c, "bf", 1, true), 1, true),
        ("cf", reserve_as(c, "cf", 2, true), 2, true),
    ];
    for (family, key, i, keyed) in &made {
        let command = if *family == "bf" {
            "BF.MADD"
        } else {
            "CF.INSERT"
        };
        let mut args = vec![command.as_bytes().to_vec(), key.clone().into_bytes()];
        if command == "CF.INSERT" {
            args.push(b"ITEMS".to_vec());
        }
        args.extend(items_of(&place_of(*i, *keyed), true, 1500));
        raw(c, &args);
    }
    made
}

fn info_cmd(family: &str) -> &'static str {
    if family == "bf" {
        "BF.INFO"
    } else {
        "CF.INFO"
    }
}

/// Each shard's DUMP, INFO and routing are as `want` (DUMPs) says, on this connection.
fn assert_same(c: &mut Connection, shards: &[Made], want: &[Vec<u8>], at: &str) {
    for ((family, key, i, keyed), dumped) in shards.iter().zip(want) {
        assert_eq!(&dump(c, key), dumped, "{key} {at}");
        assert_eq!(
            place_fields(c, info_cmd(family), key),
            expected_place_as(*i, *keyed),
            "{at}"
        );
        assert_routes_as(c, family, key, &place_of(*i, *keyed));
    }
}

#[test]
fn a_shard_keeps_its_place_through_rdb_dump_scandump_aof_and_replicas() {
    let primary = Server::start();
    let mut c = primary.conn();
    aof_always(&mut c, false);
    let replica = primary.start_replica();
    let shards = populate(&mut c);
    let want: Vec<Vec<u8>> = shards.iter().map(|(_, k, _, _)| dump(&mut c, k)).collect();
    assert_eq!(want[0][0], 7, "a module value");

    // The replica got the creations (a header, CF.RESERVE ... SHARD) and the adds.
    expect_int(&mut c, &["WAIT", "1", "5000"], 1);
    assert_same(&mut replica.conn(), &shards, &want, "on the replica");

    expect_ok(&mut c, &["DEBUG", "RELOAD"]);
    assert_same(&mut c, &shards, &want, "after DEBUG RELOAD");

    // The AOF rewrite (LOADCHUNK chunks with the place in the header), replayed.
    raw(&mut c, &["BGREWRITEAOF"]);
    wait_for_aof_rewrite(&mut c);
    expect_ok(&mut c, &["DEBUG", "LOADAOF"]);
    assert_same(
        &mut c,
        &shards,
        &want,
        "after the AOF rewrite and DEBUG LOADAOF",
    );

    for ((family, key, i, keyed), dumped) in shards.iter().zip(&want) {
        // RESTORE into another key of the same slot.
        let tag = &key[..key.find('}').unwrap() + 1];
        let copy = format!("{tag}restored");
        let args: [&[u8]; 4] = [b"RESTORE", copy.as_bytes(), b"0", dumped];
        expect_ok(&mut c, &args);
        assert_same(
            &mut c,
            &[(family, copy, *i, *keyed)],
            std::slice::from_ref(dumped),
            "RESTORE",
        );

        // SCANDUMP / LOADCHUNK into a new key of the same slot.
        let (scan, load) = match *family {
            "bf" => ("BF.SCANDUMP", "BF.LOADCHUNK"),
            _ => ("CF.SCANDUMP", "CF.LOADCHUNK"),
        };
        let copy = format!("{tag}loaded");
        let mut iter = 0i64;
        loop {
            let v = raw(&mut c, &[scan, key, &iter.to_string()]);
            let Value::Array(parts) = v else {
                panic!("{scan}: {v:?}")
            };
            iter = as_int(&parts[0]);
            if iter == 0 {
                break;
            }
            let data = as_bytes(&parts[1]);
            let it = iter.to_string();
            let args: [&[u8]; 4] = [load.as_bytes(), copy.as_bytes(), it.as_bytes(), &data];
            expect_ok(&mut c, &args);
        }
        assert_same(
            &mut c,
            &[(family, copy, *i, *keyed)],
            std::slice::from_ref(dumped),
            "LOADCHUNK",
        );
        // A shard's header loaded into a key outside its slots is refused.
        let header = as_bytes(&array_at(raw(&mut c, &[scan, key, "0"]), 1));
        let elsewhere = items(*i, false, 1).remove(0);
        let args: [&[u8]; 4] = [load.as_bytes(), &elsewhere, b"1", &header];
        expect_err_prefix(&mut c, &args, "ERR the key's slot ");
    }

    // The replica holds the copies too (LOADCHUNK and RESTORE replicate as they came).
    expect_int(&mut c, &["WAIT", "1", "5000"], 1);
    assert_same(
        &mut replica.conn(),
        &shards,
        &want,
        "on the replica at the end",
    );
}

fn array_at(v: Value, i: usize) -> Value {
    match v {
        Value::Array(mut parts) => parts.swap_remove(i),
        other => panic!("not an array: {other:?}"),
    }
}

/// A client's RESTORE or COPY of a shard to a key outside its slots is refused (the server's
/// replies: RESTORE's `Bad data format`, COPY's `module key failed to copy`), and nothing is
/// written; to a key of the same slot both work. RENAME cannot be refused (the server asks
/// the module nothing; a cluster keeps it in one slot): the renamed shard still routes as
/// its place says, and the server's own loads (DEBUG RELOAD) keep it.
#[test]
fn restore_and_copy_outside_the_shard_s_slots_are_refused() {
    let s = Server::start();
    let mut c = s.conn();
    let shards = populate(&mut c);
    for (family, key, i, keyed) in &shards {
        let dumped = dump(&mut c, key);
        // Keys whose own slots are outside shard i's.
        let place = ShardPlace::new(NAME.as_bytes(), (*i).into(), COUNT.into()).unwrap();
        let outside: Vec<String> = (0..)
            .map(|j| format!("{family}:outside:{j}"))
            .filter(|k| place.check_key(k.as_bytes()).is_err())
            .take(3)
            .collect();
        let args: [&[u8]; 4] = [b"RESTORE", outside[0].as_bytes(), b"0", &dumped];
        expect_err(&mut c, &args, "ERR Bad data format");
        expect_err(
            &mut c,
            &["COPY", key, &outside[1]],
            "ERR module key failed to copy",
        );
        for k in &outside[..2] {
            expect_int(&mut c, &["EXISTS", k], 0);
        }
        let tag = &key[..key.find('}').unwrap() + 1];
        let copied = format!("{tag}copied");
        expect_int(&mut c, &["COPY", key, &copied], 1);
        assert_same(
            &mut c,
            &[(family, copied, *i, *keyed)],
            std::slice::from_ref(&dumped),
            "COPY",
        );
        let renamed = outside[2].clone();
        expect_ok(&mut c, &["RENAME", key, &renamed]);
        expect_ok(&mut c, &["DEBUG", "RELOAD"]);
        assert_same(
            &mut c,
            &[(family, renamed, *i, *keyed)],
            std::slice::from_ref(&dumped),
            "RENAME and DEBUG RELOAD",
        );
    }
}
