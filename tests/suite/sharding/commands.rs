//! Creating shards, their INFO, and the routing check: an item of another shard refuses the
//! whole command, exactly worded, with nothing written.

use super::*;

/// Runs `args` (the key's items command) and asserts the refusal and that the key's DUMP is
/// what it was.
fn refused_unchanged(con: &mut Connection, key: &str, args: &[Vec<u8>], text: &str) {
    let before = dump(con, key);
    expect_err(con, args, text);
    assert_eq!(dump(con, key), before, "{} wrote", show_args(args));
}

fn cmd(words: &[&[u8]], items: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut args: Vec<Vec<u8>> = words.iter().map(|w| w.to_vec()).collect();
    args.extend(items.iter().cloned());
    args
}

#[test]
fn a_bloom_shard_shows_its_place_and_refuses_other_shards_items() {
    let server = Server::start();
    let mut c = server.conn();
    // A shard is our own format whatever new filters default to.
    expect_ok(
        &mut c,
        &["CONFIG", "SET", "bf.new-filter-format", "redisbloom"],
    );
    let key = reserve(&mut c, "bf", 1);
    assert_eq!(as_text(&raw(&mut c, &["TYPE", &key])), "RSbloom--");
    let names: Vec<String> = info(&mut c, "BF.INFO", &key)
        .into_iter()
        .map(|p| p.0)
        .collect();
    assert_eq!(names.len(), 10, "{names:?}");
    assert_eq!(place_fields(&mut c, "BF.INFO", &key), expected_place(1));
    // One field: as before.
    expect_ints(&mut c, &["BF.INFO", &key, "CAPACITY"], &[1000]);

    let own = items(1, true, 20);
    let wrong = items(1, false, 1).remove(0);
    let text = wrong_shard(1, &wrong);
    assert!(
        text.starts_with("ERR wrong shard: the item's slot "),
        "{text}"
    );
    let k = key.as_bytes();
    let mut batch = own.clone();
    batch.push(wrong.clone());
    refused_unchanged(
        &mut c,
        &key,
        &cmd(&[b"BF.ADD", k], std::slice::from_ref(&wrong)),
        &text,
    );
    refused_unchanged(&mut c, &key, &cmd(&[b"BF.MADD", k], &batch), &text);
    let insert = cmd(&[b"BF.INSERT", k, b"NOCREATE", b"ITEMS"], &batch);
    refused_unchanged(&mut c, &key, &insert, &text);
    refused_unchanged(
        &mut c,
        &key,
        &cmd(&[b"BF.EXISTS", k], std::slice::from_ref(&wrong)),
        &text,
    );
    refused_unchanged(&mut c, &key, &cmd(&[b"BF.MEXISTS", k], &batch), &text);
    expect_int(&mut c, &["BF.CARD", &key], 0);

    // Its own items go in and are found.
    let added = as_ints(&raw(&mut c, &cmd(&[b"BF.MADD", k], &own)));
    assert!(added.iter().all(|&a| a == 1));
    let found = as_ints(&raw(&mut c, &cmd(&[b"BF.MEXISTS", k], &own)));
    assert!(found.iter().all(|&a| a == 1));
    expect_int(&mut c, &["BF.CARD", &key], own.len() as i64);
    // Guava's format cannot hold the place.
    expect_err(
        &mut c,
        &["BF.EXPORT", &key, "GUAVA"],
        "ERR a shard cannot be exported to Guava's format (its place would be lost)",
    );
    // A plain filter's INFO is RedisBloom's five pairs.
    expect_ok(&mut c, &["BF.RESERVE", "plain", "0.01", "1000"]);
    assert_eq!(info(&mut c, "BF.INFO", "plain").len(), 5);
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "plain"])), "MBbloom--");
}

#[test]
fn a_cuckoo_shard_shows_its_place_and_refuses_other_shards_items() {
    let server = Server::start();
    let mut c = server.conn();
    let key = reserve(&mut c, "cf", 2);
    assert_eq!(as_text(&raw(&mut c, &["TYPE", &key])), "RSbloomCF");
    assert_eq!(info(&mut c, "CF.INFO", &key).len(), 13);
    assert_eq!(place_fields(&mut c, "CF.INFO", &key), expected_place(2));

    let own = items(2, true, 20);
    let wrong = items(2, false, 1).remove(0);
    let text = wrong_shard(2, &wrong);
    let k = key.as_bytes();
    let mut batch = own.clone();
    batch.insert(3, wrong.clone());
    for command in [
        &b"CF.ADD"[..],
        b"CF.ADDNX",
        b"CF.EXISTS",
        b"CF.COUNT",
        b"CF.DEL",
    ] {
        refused_unchanged(
            &mut c,
            &key,
            &cmd(&[command, k], std::slice::from_ref(&wrong)),
            &text,
        );
    }
    refused_unchanged(&mut c, &key, &cmd(&[b"CF.MEXISTS", k], &batch), &text);
    for command in [&b"CF.INSERT"[..], b"CF.INSERTNX"] {
        let args = cmd(&[command, k, b"NOCREATE", b"ITEMS"], &batch);
        refused_unchanged(&mut c, &key, &args, &text);
    }
    let inserted = as_ints(&raw(&mut c, &cmd(&[b"CF.INSERT", k, b"ITEMS"], &own)));
    assert!(inserted.iter().all(|&a| a == 1));
    let args: [&[u8]; 3] = [b"CF.COUNT", k, &own[0]];
    expect_int(&mut c, &args, 1);
    let args: [&[u8]; 3] = [b"CF.DEL", k, &own[0]];
    expect_int(&mut c, &args, 1);
    // A plain cuckoo filter stays RedisBloom's type and INFO.
    expect_ok(&mut c, &["CF.RESERVE", "plain", "1000"]);
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "plain"])), "MBbloomCF");
    assert_eq!(info(&mut c, "CF.INFO", "plain").len(), 8);
}

#[test]
fn insert_creates_a_shard_and_checks_an_existing_one() {
    let server = Server::start();
    let mut c = server.conn();
    for (family, i) in [("BF", 0u32), ("CF", 1)] {
        let key = shard_key(i);
        let own = items(i, true, 3);
        let wrong = items(i, false, 1);
        let shard = shard_args(i).map(String::into_bytes);
        let head = |extra: &[Vec<u8>], items: &[Vec<u8>]| {
            let mut args = vec![
                format!("{family}.INSERT").into_bytes(),
                key.clone().into_bytes(),
            ];
            args.extend(extra.iter().cloned());
            args.push(b"ITEMS".to_vec());
            args.extend(items.iter().cloned());
            args
        };
        // A misrouted item refuses the creation too: nothing is made.
        expect_err(&mut c, &head(&shard, &wrong), &wrong_shard(i, &wrong[0]));
        expect_int(&mut c, &["EXISTS", &key], 0);
        raw(&mut c, &head(&shard, &own));
        let info_cmd = format!("{family}.INFO");
        assert_eq!(place_fields(&mut c, &info_cmd, &key), expected_place(i));
        // Again with the same place: fine; with another, or on a plain key: refused.
        raw(&mut c, &head(&shard, &own));
        let mut other = shard.clone();
        other[1] = b"other".to_vec();
        let mismatch = "ERR SHARD does not match the existing filter's shard place";
        expect_err(&mut c, &head(&other, &own), mismatch);
        let plain = format!("{{{}}}plain", &key[1..key.find('}').unwrap()]);
        let mut args = head(&[], &own);
        args[1] = plain.clone().into_bytes();
        raw(&mut c, &args);
        args = head(&shard, &own);
        args[1] = plain.into_bytes();
        expect_err(&mut c, &args, mismatch);
    }
}

#[test]
fn the_key_must_live_in_the_shards_slots_and_bad_arguments_are_refused() {
    let server = Server::start();
    let mut c = server.conn();
    let place = ShardPlace::new(NAME.as_bytes(), 0, COUNT.into()).unwrap();
    // Shard 1's key is in shard 1's slots, not shard 0's.
    let key = shard_key(1);
    let slot = rsbloom_core::shard::slot::key_slot(key.as_bytes());
    let (first, last) = place.slots();
    let text = format!("ERR the key's slot {slot} is outside shard 0's slots {first}-{last}");
    let bf = |s: &[&str]| {
        let mut a = vec!["BF.RESERVE", &key, "0.01", "100"];
        a.extend(s);
        a.iter().map(|x| x.to_string()).collect::<Vec<_>>()
    };
    expect_err(&mut c, &bf(&["SHARD", NAME, "0", "3"]), &text);
    let cf = ["CF.RESERVE", &key, "100", "SHARD", NAME, "0", "3"];
    expect_err(&mut c, &cf, &text);
    let insert = ["CF.INSERT", &key, "SHARD", NAME, "0", "3", "ITEMS", "x"];
    expect_err(&mut c, &insert, &text);
    expect_int(&mut c, &["EXISTS", &key], 0);

    let count = "ERR SHARD count must be in the range [1, 16384]";
    let index = "ERR SHARD index must be in the range [0, count - 1]";
    let name = "ERR SHARD name must be 1 to 65536 bytes long";
    for (args, text) in [
        (["SHARD", NAME, "0", "0"], count),
        (["SHARD", NAME, "0", "16385"], count),
        (["SHARD", NAME, "0", "many"], count),
        (["SHARD", NAME, "3", "3"], index),
        (["SHARD", NAME, "-1", "3"], index),
        (["SHARD", "", "0", "3"], name),
    ] {
        expect_err(&mut c, &bf(&args), text);
        let mut cf = vec!["CF.RESERVE", &key, "100"];
        cf.extend(args);
        expect_err(&mut c, &cf, text);
    }
    // SHARD without its three values.
    expect_err_prefix(
        &mut c,
        &bf(&["SHARD", NAME, "1"]),
        "ERR wrong number of arguments",
    );
    expect_int(&mut c, &["EXISTS", &key], 0);
}

/// SHARDID and SHARDSECRET (the creation id and keyed routing): shown by INFO (the id, the
/// routing, never the secret), refused alone or malformed, matched by an INSERT that names
/// them, and a keyed shard routes by the items' HMAC, not their key slot.
#[test]
fn a_keyed_shard_records_its_id_and_routes_by_its_secret() {
    let server = Server::start();
    let mut c = server.conn();
    for (family, i) in [("BF", 0u32), ("CF", 2)] {
        let key = reserve_as(&mut c, &family.to_lowercase(), i, true);
        let info_cmd = format!("{family}.INFO");
        assert_eq!(
            place_fields(&mut c, &info_cmd, &key),
            expected_place_as(i, true)
        );
        let shown = format!("{:?}", info(&mut c, &info_cmd, &key));
        assert!(!shown.contains(SECRET), "INFO shows the secret: {shown}");
        // Items the key slot routes here but the secret does not are refused, and the
        // other way round.
        let keyed = place_of(i, true);
        let plain = place_of(i, false);
        let aimed: Vec<Vec<u8>> = items_of(&plain, true, 400)
            .into_iter()
            .filter(|item| keyed.check_item(item).is_err())
            .take(5)
            .collect();
        assert_eq!(aimed.len(), 5);
        let exists = format!("{family}.EXISTS");
        for item in &aimed {
            let args: [&[u8]; 3] = [exists.as_bytes(), key.as_bytes(), item];
            expect_err(
                &mut c,
                &args,
                &keyed.check_item(item).unwrap_err().to_string(),
            );
        }
        let own = items_of(&keyed, true, 50);
        let mut args = vec![
            format!("{family}.INSERT").into_bytes(),
            key.clone().into_bytes(),
        ];
        args.extend(shard_args(i).map(String::into_bytes));
        args.extend([
            b"SHARDID".to_vec(),
            ID.as_bytes().to_vec(),
            b"ITEMS".to_vec(),
        ]);
        args.extend(own.iter().cloned());
        raw(&mut c, &args);
        let mut mexists = vec![
            format!("{family}.MEXISTS").into_bytes(),
            key.clone().into_bytes(),
        ];
        mexists.extend(own.iter().cloned());
        expect_ints(&mut c, &mexists, &[1; 50]);
        // Another id, or another secret, is another filter's place.
        let mismatch = "ERR SHARD does not match the existing filter's shard place";
        for (option, value) in [
            ("SHARDID", "another"),
            ("SHARDSECRET", "ffeeddccbbaa99887766554433221100"),
        ] {
            let mut args = vec![format!("{family}.INSERT"), key.clone()];
            args.extend(shard_args(i));
            args.extend([option.into(), value.into(), "ITEMS".into()]);
            args.push(String::from_utf8(own[0].clone()).unwrap());
            expect_err(&mut c, &args, mismatch);
        }
    }
    // Alone, malformed, too long.
    let key = shard_key(1);
    let bf = |s: &[&str]| {
        let mut a = vec!["BF.RESERVE", &key, "0.01", "100"];
        a.extend(s);
        a.iter().map(|x| x.to_string()).collect::<Vec<_>>()
    };
    let long = "x".repeat(129);
    let shard = ["SHARD", NAME, "1", "3"];
    for (extra, text) in [
        (vec!["SHARDID", "abc"], "ERR SHARDID needs SHARD"),
        (vec!["SHARDSECRET", SECRET], "ERR SHARDSECRET needs SHARD"),
        (
            [&shard[..], &["SHARDID", &long]].concat(),
            "ERR SHARDID must be 1 to 128 bytes long",
        ),
        (
            [&shard[..], &["SHARDSECRET", "0011"]].concat(),
            "ERR SHARDSECRET must be 32 hexadecimal digits",
        ),
        (
            [&shard[..], &["SHARDSECRET", &"g".repeat(32)]].concat(),
            "ERR SHARDSECRET must be 32 hexadecimal digits",
        ),
    ] {
        expect_err(&mut c, &bf(&extra), text);
        let mut cf = vec!["CF.INSERT", &key];
        cf.extend(extra.iter().copied());
        cf.extend(["ITEMS", "x"]);
        expect_err(&mut c, &cf, text);
    }
    expect_err_prefix(
        &mut c,
        &bf(&["SHARD", NAME, "1", "3", "SHARDID"]),
        "ERR wrong number of arguments",
    );
    expect_int(&mut c, &["EXISTS", &key], 0);
}
