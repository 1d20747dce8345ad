//! Command metadata and ACLs: COMMAND INFO (arity, flags, key specs), COMMAND DOCS,
//! COMMAND GETKEYS, and a user whose key permissions depend on those key specs
//! (`%R~pattern` grants reads only, which works only if reads declare read-only key specs).
//! The ACL categories of both families are tested in `server::acl`.

use rsbloom_test_support as common;

use std::collections::BTreeSet;

use common::*;
use redis::{Connection, Value};

/// The loads whose arguments may hold a keyed filter's secret: kept out of MONITOR and
/// SLOWLOG (docs/safety.md; their effect is tested in `variants::secret`).
const SECRET_CARRIERS: &[&str] = &["bf.loadchunk", "cbf.loadchunk", "apbf.loadchunk"];

/// (command, arity, is a write, is fast, key spec flags)
const COMMANDS: [(&str, i64, bool, bool, &[&str]); 15] = [
    ("bf.reserve", -4, true, false, &["RW", "insert"]),
    ("bf.add", 3, true, false, &["RW", "insert"]),
    ("bf.madd", -3, true, false, &["RW", "insert"]),
    ("bf.insert", -4, true, false, &["RW", "insert"]),
    ("bf.loadchunk", 4, true, false, &["RW", "update"]),
    ("bf.exists", 3, false, true, &["RO", "access"]),
    ("bf.mexists", -3, false, true, &["RO", "access"]),
    ("bf.scandump", 3, false, false, &["RO", "access"]),
    ("bf.card", 2, false, true, &["RO"]),
    ("bf.info", -2, false, true, &["RO"]),
    ("bf.debug", 2, false, false, &["RO"]),
    ("bf.import", -4, true, false, &["RW", "insert"]),
    ("bf.export", 3, false, false, &["RO", "access"]),
    ("bf.merge", -3, true, false, &["RW", "update"]),
    ("bf.load", 3, true, false, &["RW", "insert"]),
];

/// (command, arity, flags besides `module`, key spec flags): RedisBloom's flags, except
/// CF.COMPACT, which RedisBloom marks `readonly` although it changes the filter.
const CF_COMMANDS: [(&str, i64, &[&str], &[&str]); 14] = [
    ("cf.reserve", -3, &["write", "denyoom"], &["RW", "insert"]),
    ("cf.add", 3, &["write", "denyoom"], &["RW", "insert"]),
    ("cf.addnx", 3, &["write", "denyoom"], &["RW", "insert"]),
    ("cf.insert", -4, &["write", "denyoom"], &["RW", "insert"]),
    ("cf.insertnx", -4, &["write", "denyoom"], &["RW", "insert"]),
    ("cf.exists", 3, &["readonly", "fast"], &["RO", "access"]),
    ("cf.mexists", -3, &["readonly", "fast"], &["RO", "access"]),
    ("cf.count", 3, &["readonly", "fast"], &["RO", "access"]),
    ("cf.del", 3, &["write", "fast"], &["RW", "update"]),
    ("cf.compact", 2, &["write", "fast"], &["RW", "update"]),
    ("cf.scandump", 3, &["readonly", "fast"], &["RO", "access"]),
    ("cf.loadchunk", 4, &["write", "denyoom"], &["RW", "update"]),
    ("cf.info", 2, &["readonly", "fast"], &["RO"]),
    ("cf.debug", 2, &["readonly", "fast"], &["RO"]),
];

/// The counting Bloom filters' commands (rsbloom's own), as `CF_COMMANDS`.
const CBF_COMMANDS: [(&str, i64, &[&str], &[&str]); 14] = [
    ("cbf.reserve", -4, &["write", "denyoom"], &["RW", "insert"]),
    ("cbf.add", 3, &["write", "denyoom"], &["RW", "insert"]),
    ("cbf.madd", -3, &["write", "denyoom"], &["RW", "insert"]),
    ("cbf.del", 3, &["write", "fast"], &["RW", "update"]),
    ("cbf.mdel", -3, &["write"], &["RW", "update"]),
    ("cbf.exists", 3, &["readonly", "fast"], &["RO", "access"]),
    ("cbf.mexists", -3, &["readonly", "fast"], &["RO", "access"]),
    ("cbf.count", 3, &["readonly", "fast"], &["RO", "access"]),
    ("cbf.card", 2, &["readonly", "fast"], &["RO"]),
    ("cbf.info", 2, &["readonly", "fast"], &["RO"]),
    ("cbf.scandump", 3, &["readonly"], &["RO", "access"]),
    ("cbf.loadchunk", 4, &["write", "denyoom"], &["RW", "update"]),
    ("cbf.export", 3, &["readonly"], &["RO", "access"]),
    ("cbf.merge", -3, &["write", "denyoom"], &["RW", "update"]),
];

/// The sliding-window filters' commands (rsbloom's own), as `CF_COMMANDS`.
const APBF_COMMANDS: [(&str, i64, &[&str], &[&str]); 9] = [
    ("apbf.reserve", -5, &["write", "denyoom"], &["RW", "insert"]),
    ("apbf.add", 3, &["write", "denyoom"], &["RW", "insert"]),
    ("apbf.madd", -3, &["write", "denyoom"], &["RW", "insert"]),
    (
        "apbf.insertat",
        -4,
        &["write", "denyoom"],
        &["RW", "update"],
    ),
    ("apbf.exists", 3, &["readonly", "fast"], &["RO", "access"]),
    ("apbf.mexists", -3, &["readonly", "fast"], &["RO", "access"]),
    ("apbf.info", 2, &["readonly", "fast"], &["RO"]),
    ("apbf.scandump", 3, &["readonly"], &["RO", "access"]),
    (
        "apbf.loadchunk",
        4,
        &["write", "denyoom"],
        &["RW", "update"],
    ),
];

/// (command, arity, flags besides `module`, key spec flags): RedisBloom 8's flags; CMS.MERGE
/// also `movablekeys` (its sources, in a second key spec, checked apart).
const CMS_COMMANDS: [(&str, i64, &[&str], &[&str]); 6] = [
    (
        "cms.initbydim",
        -4,
        &["write", "denyoom"],
        &["RW", "insert"],
    ),
    (
        "cms.initbyprob",
        -4,
        &["write", "denyoom"],
        &["RW", "insert"],
    ),
    ("cms.incrby", -4, &["write", "denyoom"], &["RW", "update"]),
    ("cms.query", -3, &["readonly"], &["RO", "access"]),
    (
        "cms.merge",
        -4,
        &["write", "denyoom", "movablekeys"],
        &["RW", "update"],
    ),
    ("cms.info", 2, &["readonly"], &["RO"]),
];

/// (command, arity, flags besides `module`, key spec flags): RedisBloom 8's flags; arities
/// are the real ones (RedisBloom declares -1 for every t-digest command). TDIGEST.MERGE is
/// also `movablekeys` (its sources, in a second key spec, checked apart).
const TD_COMMANDS: [(&str, i64, &[&str], &[&str]); 14] = [
    (
        "tdigest.create",
        -2,
        &["write", "denyoom"],
        &["RW", "insert"],
    ),
    ("tdigest.add", -3, &["write", "denyoom"], &["RW", "insert"]),
    ("tdigest.reset", 2, &["write", "denyoom"], &["RW", "update"]),
    (
        "tdigest.merge",
        -4,
        &["write", "denyoom", "movablekeys"],
        &["RW", "update"],
    ),
    ("tdigest.min", 2, &["readonly"], &["RO", "access"]),
    ("tdigest.max", 2, &["readonly"], &["RO", "access"]),
    ("tdigest.quantile", -3, &["readonly"], &["RO", "access"]),
    ("tdigest.cdf", -3, &["readonly"], &["RO", "access"]),
    ("tdigest.rank", -3, &["readonly"], &["RO", "access"]),
    ("tdigest.revrank", -3, &["readonly"], &["RO", "access"]),
    ("tdigest.byrank", -3, &["readonly"], &["RO", "access"]),
    ("tdigest.byrevrank", -3, &["readonly"], &["RO", "access"]),
    ("tdigest.trimmed_mean", 4, &["readonly"], &["RO", "access"]),
    ("tdigest.info", 2, &["readonly"], &["RO"]),
];

/// (command, arity, flags besides `module`, key spec flags): RedisBloom 8's flags (TOPK.COUNT
/// `readonly` as in 8; 2.8 marked it `write`), the real arities.
const TOPK_COMMANDS: [(&str, i64, &[&str], &[&str]); 7] = [
    ("topk.reserve", -3, &["write", "denyoom"], &["RW", "insert"]),
    ("topk.add", -3, &["write", "denyoom"], &["RW", "update"]),
    ("topk.incrby", -4, &["write", "denyoom"], &["RW", "update"]),
    ("topk.query", -3, &["readonly"], &["RO", "access"]),
    ("topk.count", -3, &["readonly"], &["RO", "access"]),
    ("topk.list", -2, &["readonly"], &["RO", "access"]),
    ("topk.info", 2, &["readonly"], &["RO"]),
];

/// BF.MERGE and CBF.MERGE: every argument a key.
fn is_union(name: &str) -> bool {
    name == "bf.merge" || name == "cbf.merge"
}

/// Every command of the module as (name, arity, flags besides `module`, key spec flags).
fn all_commands() -> Vec<(&'static str, i64, BTreeSet<String>, &'static [&'static str])> {
    let bf = COMMANDS.iter().map(|&(name, arity, write, fast, keys)| {
        let mut flags = if write {
            set_of(&["write", "denyoom"])
        } else {
            set_of(&["readonly"])
        };
        if fast {
            flags.insert("fast".into());
        }
        if SECRET_CARRIERS.contains(&name) {
            flags.extend(set_of(&["skip_monitor", "skip_slowlog"]));
        }
        (name, arity, flags, keys)
    });
    let cf = CF_COMMANDS
        .iter()
        .chain(&CBF_COMMANDS)
        .chain(&APBF_COMMANDS)
        .map(|&(name, arity, flags, keys)| {
            let mut flags = set_of(flags);
            if SECRET_CARRIERS.contains(&name) {
                flags.extend(set_of(&["skip_monitor", "skip_slowlog"]));
            }
            (name, arity, flags, keys)
        });
    let cms = CMS_COMMANDS
        .iter()
        .map(|&(name, arity, flags, keys)| (name, arity, set_of(flags), keys));
    let td = TD_COMMANDS
        .iter()
        .map(|&(name, arity, flags, keys)| (name, arity, set_of(flags), keys));
    let topk = TOPK_COMMANDS
        .iter()
        .map(|&(name, arity, flags, keys)| (name, arity, set_of(flags), keys));
    bf.chain(cf).chain(cms).chain(topk).chain(td).collect()
}

/// The text of a simple or bulk string.
fn text(v: &Value) -> String {
    match v {
        Value::SimpleString(s) => s.clone(),
        Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Okay => "OK".into(),
        other => panic!("expected a string, got {other:?}"),
    }
}

fn array(v: &Value) -> &[Value] {
    match v {
        Value::Array(a) | Value::Set(a) => a,
        other => panic!("expected an array, got {other:?}"),
    }
}

/// A RESP2 flat `name, value, ...` array as pairs.
fn pairs(v: &Value) -> Vec<(String, Value)> {
    let a = array(v);
    assert_eq!(a.len() % 2, 0, "odd name/value array: {a:?}");
    a.chunks(2).map(|p| (text(&p[0]), p[1].clone())).collect()
}

fn field(v: &Value, name: &str) -> Value {
    pairs(v)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name:?} in {v:?}"))
        .1
}

fn strings(v: &Value) -> BTreeSet<String> {
    array(v).iter().map(text).collect()
}

fn set_of(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn command_info_declares_arity_flags_and_key_specs() {
    let s = Server::start();
    let mut c = s.conn();
    for (name, arity, mut want, key_flags) in all_commands() {
        let reply = raw(&mut c, &["COMMAND", "INFO", name]);
        let entry = &array(&reply)[0];
        let info = array(entry);
        assert!(info.len() >= 10, "{name}: COMMAND INFO entry {info:?}");
        assert_eq!(text(&info[0]), name);
        assert_eq!(info[1], Value::Int(arity), "{name}: arity");
        want.insert("module".into());
        let flags: BTreeSet<String> = strings(&info[2]).into_iter().map(redis_flag_name).collect();
        assert_eq!(flags, want, "{name}: flags");
        // A union's keys are every argument from the first (so a cluster checks them all).
        let last = if is_union(name) { -1 } else { 1 };
        assert_eq!(
            (&info[3], &info[4], &info[5]),
            (&Value::Int(1), &Value::Int(last), &Value::Int(1)),
            "{name}: first/last/step"
        );
        let specs = array(&info[8]);
        if is_union(name) {
            // The sources: every argument from 2 to the last, read-only.
            assert_eq!(specs.len(), 2, "{name}: key specs {specs:?}");
            let sources = &specs[1];
            assert_eq!(strings(&field(sources, "flags")), set_of(&["RO", "access"]));
            let begin = field(sources, "begin_search");
            assert_eq!(field(&field(&begin, "spec"), "index"), Value::Int(2));
            let find = field(sources, "find_keys");
            assert_eq!(text(&field(&find, "type")), "range", "{name}: find_keys");
            let range = field(&find, "spec");
            assert_eq!(field(&range, "lastkey"), Value::Int(-1));
            assert_eq!(field(&range, "keystep"), Value::Int(1));
            assert_eq!(field(&range, "limit"), Value::Int(0));
        } else if name == "cms.merge" {
            // The sources: numkeys at argument 2, then that many keys, read-only.
            assert_eq!(specs.len(), 2, "{name}: key specs {specs:?}");
            let sources = &specs[1];
            assert_eq!(strings(&field(sources, "flags")), set_of(&["RO", "access"]));
            let begin = field(sources, "begin_search");
            assert_eq!(field(&field(&begin, "spec"), "index"), Value::Int(2));
            let find = field(sources, "find_keys");
            assert_eq!(text(&field(&find, "type")), "keynum", "{name}: find_keys");
            let keynum = field(&find, "spec");
            assert_eq!(field(&keynum, "keynumidx"), Value::Int(0));
            assert_eq!(field(&keynum, "firstkey"), Value::Int(1));
            assert_eq!(field(&keynum, "keystep"), Value::Int(1));
        } else {
            let count = if name == "tdigest.merge" { 2 } else { 1 };
            assert_eq!(specs.len(), count, "{name}: key specs {specs:?}");
        }
        let spec = &specs[0];
        assert_eq!(
            strings(&field(spec, "flags")),
            set_of(key_flags),
            "{name}: key spec flags"
        );
        let begin = field(spec, "begin_search");
        assert_eq!(
            text(&field(&begin, "type")),
            "index",
            "{name}: begin_search"
        );
        assert_eq!(
            field(&field(&begin, "spec"), "index"),
            Value::Int(1),
            "{name}"
        );
        let find = field(spec, "find_keys");
        assert_eq!(text(&field(&find, "type")), "range", "{name}: find_keys");
        let range = field(&find, "spec");
        assert_eq!(field(&range, "lastkey"), Value::Int(0), "{name}: lastkey");
        assert_eq!(field(&range, "keystep"), Value::Int(1), "{name}: keystep");
        assert_eq!(field(&range, "limit"), Value::Int(0), "{name}: limit");
    }
    // Exactly these commands belong to the module.
    let listed = strings(&raw(
        &mut c,
        &["COMMAND", "LIST", "FILTERBY", "MODULE", "bf"],
    ));
    let want: BTreeSet<String> = all_commands().iter().map(|c| c.0.to_string()).collect();
    assert_eq!(listed, want, "COMMAND LIST FILTERBY MODULE bf");
}

#[test]
fn wrong_argument_counts_get_the_arity_error() {
    // With the arity declared, Redis itself refuses a wrong count, with the same text.
    let s = Server::start();
    let mut c = s.conn();
    for (name, arity, ..) in all_commands() {
        let n = arity.unsigned_abs() as usize;
        let mut args: Vec<String> = vec![name.to_uppercase()];
        args.extend((1..n - 1).map(|i| format!("a{i}")));
        expect_err(
            &mut c,
            &args,
            &format!("ERR wrong number of arguments for '{name}' command"),
        );
        if arity > 0 {
            let mut more: Vec<String> = vec![name.to_string()];
            more.extend((1..=n).map(|i| format!("a{i}")));
            expect_err(
                &mut c,
                &more,
                &format!("ERR wrong number of arguments for '{name}' command"),
            );
        }
    }
}

#[test]
fn command_docs_describe_every_command() {
    let s = Server::start();
    let mut c = s.conn();
    for (name, ..) in all_commands() {
        let reply = raw(&mut c, &["COMMAND", "DOCS", name]);
        let docs = pairs(&reply);
        assert_eq!(docs.len(), 1, "{name}: COMMAND DOCS {reply:?}");
        assert_eq!(docs[0].0, name);
        let doc = &docs[0].1;
        for key in ["summary", "since", "complexity"] {
            let value = text(&field(doc, key));
            assert!(!value.trim().is_empty(), "{name}: empty {key}");
        }
        assert_eq!(text(&field(doc, "group")), "module", "{name}: group");
        assert_eq!(text(&field(doc, "module")), "bf", "{name}: module");
        let arguments = field(doc, "arguments");
        let arguments = array(&arguments);
        assert!(!arguments.is_empty(), "{name}: no arguments");
        let first = &arguments[0];
        let key_name = if name == "tdigest.merge" {
            "destination-key"
        } else if is_union(name) {
            "destination"
        } else {
            "key"
        };
        assert_eq!(
            text(&field(first, "name")),
            key_name,
            "{name}: first argument"
        );
        assert_eq!(
            text(&field(first, "type")),
            "key",
            "{name}: first argument type"
        );
        assert_eq!(
            field(first, "key_spec_index"),
            Value::Int(0),
            "{name}: key spec index"
        );
        if is_union(name) || name == "cms.merge" || name == "tdigest.merge" {
            // The sources document the second key spec.
            let sources = &arguments[if is_union(name) { 1 } else { 2 }];
            assert!(text(&field(sources, "name")).starts_with("source"));
            assert_eq!(field(sources, "key_spec_index"), Value::Int(1));
        }
    }
}

#[test]
fn command_getkeys_finds_the_key() {
    let s = Server::start();
    let mut c = s.conn();
    let cases: [&[&str]; 14] = [
        &["BF.RESERVE", "k", "0.01", "100", "NONSCALING"],
        &["BF.ADD", "k", "x"],
        &["BF.MADD", "k", "x", "y"],
        &["BF.INSERT", "k", "CAPACITY", "10", "ITEMS", "x"],
        &["BF.EXISTS", "k", "x"],
        &["BF.MEXISTS", "k", "x", "y"],
        &["BF.CARD", "k"],
        &["BF.INFO", "k", "SIZE"],
        &["BF.DEBUG", "k"],
        &["BF.SCANDUMP", "k", "0"],
        &["BF.LOADCHUNK", "k", "1", "data"],
        &["BF.IMPORT", "k", "GUAVA", "data"],
        &["BF.EXPORT", "k", "GUAVA"],
        &["BF.LOAD", "k", "data"],
    ];
    for args in cases {
        let mut full = vec!["COMMAND", "GETKEYS"];
        full.extend_from_slice(args);
        let v = raw(&mut c, &full);
        assert_eq!(
            v,
            Value::Array(vec![Value::BulkString(b"k".to_vec())]),
            "GETKEYS {args:?}"
        );
    }
    // A merge's keys are all its arguments.
    for merge in ["BF.MERGE", "CBF.MERGE"] {
        let v = raw(&mut c, &["COMMAND", "GETKEYS", merge, "d", "s1", "s2"]);
        let keys: Vec<String> = array(&v).iter().map(text).collect();
        assert_eq!(keys, ["d", "s1", "s2"], "GETKEYS {merge}");
    }
}

/// A connection authenticated as `user`.
fn conn_as(s: &Server, user: &str, password: &str) -> Connection {
    let mut con = s.conn();
    expect_ok(&mut con, &["AUTH", user, password]);
    con
}

fn reads(key: &str) -> Vec<Vec<String>> {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&["BF.EXISTS", key, "a"]),
        v(&["BF.MEXISTS", key, "a", "zz"]),
        v(&["BF.CARD", key]),
        v(&["BF.INFO", key]),
        v(&["BF.INFO", key, "CAPACITY"]),
        v(&["BF.SCANDUMP", key, "0"]),
        v(&["BF.SCANDUMP", key, "1"]),
        v(&["BF.DEBUG", key]),
    ]
}

fn writes(key: &str, fresh: &str, header: &[u8]) -> Vec<Vec<Vec<u8>>> {
    let v = |a: &[&[u8]]| a.iter().map(|s| s.to_vec()).collect::<Vec<_>>();
    vec![
        v(&[b"BF.ADD", key.as_bytes(), b"w1"]),
        v(&[b"BF.MADD", key.as_bytes(), b"w2", b"w3"]),
        v(&[b"BF.INSERT", key.as_bytes(), b"ITEMS", b"w4"]),
        v(&[b"BF.RESERVE", fresh.as_bytes(), b"0.01", b"100"]),
        v(&[b"BF.ADD", format!("{fresh}2").as_bytes(), b"w5"]),
        v(&[
            b"BF.LOADCHUNK",
            format!("{fresh}3").as_bytes(),
            b"1",
            header,
        ]),
        v(&[b"BF.LOADCHUNK", key.as_bytes(), b"2", b"\x00"]),
    ]
}

fn assert_not_error(v: &Value, what: &str) {
    if let Some(e) = err_of(v) {
        panic!("{what}: answered the error {e:?}");
    }
    if let Value::Array(items) = v {
        for item in items {
            assert!(err_of(item).is_none(), "{what}: element error {item:?}");
        }
    }
}

#[test]
fn key_permissions_follow_the_key_specs() {
    let s = Server::start();
    let mut admin = s.conn();
    for key in ["pub:f", "else:f"] {
        expect_ok(&mut admin, &["BF.RESERVE", key, "0.01", "100"]);
        expect_ints(&mut admin, &["BF.MADD", key, "a", "b"], &[1, 1]);
    }
    let header = scandump(&mut admin, "pub:f")[0].data.clone();
    let digest_pub = digest_value(&mut admin, "pub:f");
    let digest_else = digest_value(&mut admin, "else:f");
    expect_ok(
        &mut admin,
        &[
            "ACL", "SETUSER", "u", "on", ">pw", "%R~pub:*", "~own:*", "+@all",
        ],
    );
    let mut u = conn_as(&s, "u", "pw");
    // Reads on read-only keys work.
    for args in reads("pub:f") {
        let v = raw(&mut u, &args);
        assert_not_error(&v, &format!("u: {}", args.join(" ")));
    }
    expect_int(&mut u, &["BF.EXISTS", "pub:f", "a"], 1);
    expect_int(&mut u, &["BF.CARD", "pub:f"], 2);
    // Reads of a missing read-only key work too (and find nothing).
    expect_int(&mut u, &["BF.EXISTS", "pub:none", "a"], 0);
    expect_int(&mut u, &["BF.CARD", "pub:none"], 0);
    // Writes on read-only keys are refused by the ACL, and change nothing.
    for args in writes("pub:f", "pub:new", &header) {
        let what = format!("u: {}", show_args(&args));
        let v = raw(&mut u, &args);
        let e = err_of(&v).unwrap_or_else(|| panic!("{what}: answered {v:?}"));
        assert!(e.starts_with("NOPERM"), "{what}: answered {e:?}");
    }
    assert_eq!(digest_value(&mut admin, "pub:f"), digest_pub);
    for key in ["pub:new", "pub:new2", "pub:new3"] {
        expect_int(&mut admin, &["EXISTS", key], 0);
    }
    // Everything works on own keys.
    for args in writes("own:f", "own:new", &header) {
        // own:f does not exist yet for the first ones: ADD/MADD/INSERT create it.
        let v = raw(&mut u, &args);
        assert_not_error(&v, &format!("u: {}", show_args(&args)));
    }
    for args in reads("own:f") {
        let v = raw(&mut u, &args);
        assert_not_error(&v, &format!("u: {}", args.join(" ")));
    }
    expect_int(&mut u, &["BF.EXISTS", "own:f", "w1"], 1);
    // Any command on any other key is refused, reads included.
    for args in reads("else:f") {
        let what = format!("u: {}", args.join(" "));
        let v = raw(&mut u, &args);
        let e = err_of(&v).unwrap_or_else(|| panic!("{what}: answered {v:?}"));
        assert!(e.starts_with("NOPERM"), "{what}: answered {e:?}");
    }
    for args in writes("else:f", "else:new", &header) {
        let what = format!("u: {}", show_args(&args));
        let v = raw(&mut u, &args);
        let e = err_of(&v).unwrap_or_else(|| panic!("{what}: answered {v:?}"));
        assert!(e.starts_with("NOPERM"), "{what}: answered {e:?}");
    }
    assert_eq!(digest_value(&mut admin, "else:f"), digest_else);
    // ACL DRYRUN agrees.
    let ok = raw(
        &mut admin,
        &["ACL", "DRYRUN", "u", "BF.EXISTS", "pub:f", "a"],
    );
    assert_eq!(ok, Value::Okay, "DRYRUN of a read on pub:f");
    let no = raw(&mut admin, &["ACL", "DRYRUN", "u", "BF.ADD", "pub:f", "a"]);
    assert!(
        matches!(&no, Value::BulkString(_)),
        "DRYRUN of a write on pub:f: {no:?}"
    );
}
