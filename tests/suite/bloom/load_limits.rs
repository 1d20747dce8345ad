//! `bf.max-filter-bytes` holds client requests only: the server's own data (its RDB, its AOF
//! with and without the RDB preamble, a replica's full sync, the primary's stream) loads
//! whatever its size, while a client's RESTORE of the same value is refused with the
//! size-limit reason, the key and the type in the log. The filters are 5 MB against a
//! 1 MiB limit (a load argument, so every restart keeps it).

use rsbloom_test_support as common;

use common::*;
use redis::Connection;

const LIMIT: &str = "1048576";
/// Guava sizing of 2,000,000 items at 0.0001: about 4.8 MB.
const CAPACITY: &str = "2000000";

fn limited() -> ServerOpts {
    ServerOpts::module_args(&["max-filter-bytes", LIMIT])
}

/// Creates `key` over the limit (raised for the creation only) with `items` in it.
fn make_big(c: &mut Connection, key: &str, items: &[Vec<u8>]) {
    expect_ok(c, &["CONFIG", "SET", "bf.max-filter-bytes", "16777216"]);
    expect_ok(c, &["BF.RESERVE", key, "0.0001", CAPACITY, "NONSCALING"]);
    expect_ok(c, &["CONFIG", "SET", "bf.max-filter-bytes", LIMIT]);
    madd_all(c, key, items);
}

/// The filter is there, over the limit, with every item.
fn check_big(c: &mut Connection, key: &str, items: &[Vec<u8>], how: &str) {
    let size = as_int(&info_value(c, key, "Size"));
    assert!(size > 4 << 20, "{how}: {key} has {size} bytes");
    assert_eq!(card(c, key), items.len() as i64, "{how}: {key}");
    assert!(
        mexists_all(c, key, items).iter().all(|&a| a == 1),
        "{how}: {key} lost items"
    );
    assert_eq!(config_get(c, "bf.max-filter-bytes"), LIMIT, "{how}");
}

#[test]
fn own_data_over_the_limit_loads_from_rdb_and_aof() {
    let mut s = Server::start_with(limited());
    let mut c = s.conn();
    let items = gen_items("big:", 0..2000);
    make_big(&mut c, "big", &items);

    // RDB.
    expect_ok(&mut c, &["SAVE"]);
    drop(c);
    s.restart(&[]);
    let mut c = s.conn();
    check_big(&mut c, "big", &items, "RDB");
    assert!(
        !s.log_text().contains("refusing to load"),
        "{}",
        s.log_text()
    );

    // AOF without the RDB preamble: the rewrite's BF.LOADCHUNK calls replay over the limit,
    // and so does a creation logged after it (a BF.LOADCHUNK header, then BF.MADD).
    expect_ok(&mut c, &["CONFIG", "SET", "aof-use-rdb-preamble", "no"]);
    expect_ok(&mut c, &["CONFIG", "SET", "appendonly", "yes"]);
    wait_for_aof_rewrite(&mut c);
    let later = gen_items("later:", 0..500);
    make_big(&mut c, "later", &later);
    drop(c);
    std::fs::remove_file(s.dir().join("dump.rdb")).ok();
    s.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]);
    let mut c = s.conn();
    check_big(&mut c, "big", &items, "AOF");
    check_big(&mut c, "later", &later, "AOF");

    // AOF with the RDB preamble.
    expect_ok(&mut c, &["CONFIG", "SET", "aof-use-rdb-preamble", "yes"]);
    let v = raw(&mut c, &["BGREWRITEAOF"]);
    assert!(err_of(&v).is_none(), "BGREWRITEAOF answered {v:?}");
    wait_for_aof_rewrite(&mut c);
    drop(c);
    s.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", "yes"]);
    let mut c = s.conn();
    check_big(&mut c, "big", &items, "AOF with preamble");
    check_big(&mut c, "later", &later, "AOF with preamble");
    assert!(
        !s.log_text().contains("refusing to load"),
        "{}",
        s.log_text()
    );

    // A client's RESTORE of the same value is held to the limit: an error reply, and the
    // log names the key, the type and the reason.
    let payload = as_bytes(&raw(&mut c, &["DUMP", "big"]));
    let v = raw(&mut c, &[b"RESTORE".as_slice(), b"copy", b"0", &payload]);
    assert!(
        err_of(&v).is_some(),
        "RESTORE over the limit answered {v:?}"
    );
    expect_int(&mut c, &["EXISTS", "copy"], 0);
    let log = s.log_text();
    let line = log
        .lines()
        .find(|l| l.contains("refusing to load key 'copy'"))
        .unwrap_or_else(|| panic!("no refusal line for 'copy' in the log:\n{log}"));
    assert!(
        line.contains("of type RSbloom--: ERR filter would need ")
            && line.contains(&format!("over bf.max-filter-bytes ({LIMIT})")),
        "{line}"
    );
    // Within a raised limit the same RESTORE goes through.
    expect_ok(
        &mut c,
        &["CONFIG", "SET", "bf.max-filter-bytes", "16777216"],
    );
    expect_ok(&mut c, &[b"RESTORE".as_slice(), b"copy", b"0", &payload]);
    check_big_raw(&mut c, "copy", &items);
}

fn check_big_raw(c: &mut Connection, key: &str, items: &[Vec<u8>]) {
    assert_eq!(card(c, key), items.len() as i64, "{key}");
    assert!(mexists_all(c, key, items).iter().all(|&a| a == 1), "{key}");
}

/// A replica whose limit is below its primary's takes what the primary took: a full sync of
/// a filter over its limit, then a creation over it in the primary's stream.
#[test]
fn replica_takes_what_its_primary_took() {
    let primary = Server::start_with(limited());
    let mut p = primary.conn();
    let items = gen_items("big:", 0..2000);
    make_big(&mut p, "big", &items);
    let replica = primary.start_replica();
    let mut r = replica.conn();
    expect_int(&mut p, &["WAIT", "1", "10000"], 1);
    check_big(&mut r, "big", &items, "full sync");

    let later = gen_items("later:", 0..500);
    make_big(&mut p, "later", &later);
    expect_int(&mut p, &["WAIT", "1", "10000"], 1);
    check_big(&mut r, "later", &later, "replicated creation");
    assert_eq!(digest_value(&mut r, "later"), digest_value(&mut p, "later"));
    assert!(
        !replica.log_text().contains("refusing to load"),
        "{}",
        replica.log_text()
    );
}
