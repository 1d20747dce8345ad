//! A keyed or blocked filter keeps its secret and layout wherever its value goes: a replica
//! (the creation is replicated as its header), DEBUG RELOAD (RDB), DUMP / RESTORE, COPY,
//! SCANDUMP / LOADCHUNK, and the AOF rewrite replayed after a restart.

use super::*;

const ITEMS: usize = 3000;

/// One scaling filter of each variant (grown to several layers) and a non-scaling one.
fn populate(c: &mut Connection) -> Vec<String> {
    let mut keys = Vec::new();
    for (v, variant) in VARIANTS.iter().enumerate() {
        for (form, extra) in [("s", &["EXPANSION", "2"][..]), ("n", &["NONSCALING"])] {
            let key = format!("{form}{v}");
            let mut args = vec!["BF.RESERVE", key.as_str(), "0.01", "1000"];
            args.extend(extra);
            args.extend(*variant);
            expect_ok(c, &args);
            let n = if form == "s" { ITEMS } else { 1000 };
            fill(c, &key, n);
            keys.push(key);
        }
    }
    // One made implicitly under the defaults (BF.MADD creates it).
    expect_ok(c, &["CONFIG", "SET", "bf.keyed-default", "yes"]);
    expect_ok(c, &["CONFIG", "SET", "bf.blocked-default", "yes"]);
    fill(c, "implicit", ITEMS);
    expect_ok(c, &["CONFIG", "SET", "bf.keyed-default", "no"]);
    expect_ok(c, &["CONFIG", "SET", "bf.blocked-default", "no"]);
    keys.push("implicit".into());
    keys
}

type State = Vec<(Vec<u8>, Vec<i64>, Vec<String>)>;

fn state(c: &mut Connection, keys: &[String]) -> State {
    keys.iter()
        .map(|k| (dump(c, k), answers(c, k, ITEMS), info_names(c, k)))
        .collect()
}

fn assert_same(c: &mut Connection, keys: &[String], want: &State, at: &str) {
    for (key, (dumped, found, names)) in keys.iter().zip(want) {
        assert_eq!(&dump(c, key), dumped, "{key} {at}");
        assert_eq!(&answers(c, key, ITEMS), found, "{key} {at}");
        assert_eq!(&info_names(c, key), names, "{key} {at}");
    }
}

#[test]
fn the_secret_and_layout_survive_replicas_rdb_dump_scandump_and_the_aof() {
    let mut primary = Server::start();
    let mut c = primary.conn();
    let replica = primary.start_replica();
    let keys = populate(&mut c);
    let want = state(&mut c, &keys);
    for (key, (_, found, _)) in keys.iter().zip(&want) {
        let n = if key.starts_with('n') { 1000 } else { ITEMS };
        assert!(found[..n].iter().all(|&f| f == 1), "{key}");
    }

    expect_int(&mut c, &["WAIT", "1", "5000"], 1);
    assert_same(&mut replica.conn(), &keys, &want, "on the replica");

    expect_ok(&mut c, &["DEBUG", "RELOAD"]);
    assert_same(&mut c, &keys, &want, "after DEBUG RELOAD");

    for (key, (dumped, found, _)) in keys.iter().zip(&want) {
        let copy = format!("{key}:restored");
        let args: [&[u8]; 4] = [b"RESTORE", copy.as_bytes(), b"0", dumped];
        expect_ok(&mut c, &args);
        assert_eq!(&answers(&mut c, &copy, ITEMS), found, "{copy}");
        assert_eq!(&dump(&mut c, &copy), dumped, "{copy}");

        let copy = format!("{key}:copied");
        expect_int(&mut c, &["COPY", key, &copy], 1);
        assert_eq!(&answers(&mut c, &copy, ITEMS), found, "{copy}");
        assert_eq!(&dump(&mut c, &copy), dumped, "{copy}");

        let copy = format!("{key}:loaded");
        let chunks = scandump(&mut c, key);
        loadchunks(&mut c, &copy, &chunks);
        assert_eq!(&answers(&mut c, &copy, ITEMS), found, "{copy}");
        assert_eq!(&dump(&mut c, &copy), dumped, "{copy}");
    }

    // The AOF rewrite (each filter as its header and chunks), loaded by a restart.
    aof_always(&mut c, false);
    raw(&mut c, &["BGREWRITEAOF"]);
    wait_for_aof_rewrite(&mut c);
    drop(c);
    primary.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]);
    let mut c = primary.conn();
    assert_same(&mut c, &keys, &want, "after the AOF rewrite and a restart");
}
