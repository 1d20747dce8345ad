//! ACL categories of every command of the families, as RedisBloom 8 gives them: each command
//! is in `@read` or `@write`, `@fast` for RESERVE, CARD and INFO, and in its family's module
//! category (`@bloom`, `@cuckoo`); BF.IMPORT and BF.EXPORT, which RedisBloom lacks, follow the
//! same rule (`@write`, `@read`). Checked by what users with category rules may run, through
//! connections authenticated as them, by COMMAND INFO and by ACL CAT, on every server: Redis
//! 7.0 has no module ACL categories, so there the commands are in none (only `+@all` grants
//! them, and the rules of docs/acl.md that name commands work everywhere).

use rsbloom_test_support as common;

use std::collections::BTreeSet;

use common::*;
use redis::{Connection, Value};

/// One command: a call of it with the arguments its arity asks for (the keys `b` and `c` hold
/// a Bloom and a cuckoo filter), whether it writes, and whether it is in `@fast`.
struct Row {
    call: &'static [&'static str],
    write: bool,
    fast: bool,
}

const fn read(call: &'static [&'static str], fast: bool) -> Row {
    Row {
        call,
        write: false,
        fast,
    }
}

const fn write(call: &'static [&'static str], fast: bool) -> Row {
    Row {
        call,
        write: true,
        fast,
    }
}

/// Every command of the module. RedisBloom 8.2.3's table, plus BF.IMPORT, BF.EXPORT,
/// BF.MERGE and valkey-bloom's BF.LOAD.
const TABLE: [Row; 79] = [
    write(&["BF.RESERVE", "b2", "0.01", "100"], true),
    write(&["BF.ADD", "b", "x"], false),
    write(&["BF.MADD", "b", "x", "y"], false),
    write(&["BF.INSERT", "b", "ITEMS", "x"], false),
    read(&["BF.EXISTS", "b", "x"], false),
    read(&["BF.MEXISTS", "b", "x", "y"], false),
    read(&["BF.CARD", "b"], true),
    read(&["BF.INFO", "b"], true),
    read(&["BF.DEBUG", "b"], false),
    read(&["BF.SCANDUMP", "b", "0"], false),
    write(&["BF.LOADCHUNK", "b3", "1", "not a header"], false),
    write(&["BF.IMPORT", "b4", "GUAVA", "not guava"], false),
    read(&["BF.EXPORT", "b", "GUAVA"], false),
    write(&["BF.MERGE", "b", "b"], false),
    // valkey-bloom's, which RedisBloom lacks: BF's rule.
    write(&["BF.LOAD", "b5", "not a blob"], false),
    write(&["CF.RESERVE", "c2", "100"], true),
    write(&["CF.ADD", "c", "x"], false),
    write(&["CF.ADDNX", "c", "x"], false),
    write(&["CF.INSERT", "c", "ITEMS", "x"], false),
    write(&["CF.INSERTNX", "c", "ITEMS", "x"], false),
    read(&["CF.EXISTS", "c", "x"], false),
    read(&["CF.MEXISTS", "c", "x", "y"], false),
    read(&["CF.COUNT", "c", "x"], false),
    write(&["CF.DEL", "c", "x"], false),
    // RedisBloom's category, although compaction rewrites the filter's slots.
    read(&["CF.COMPACT", "c"], false),
    read(&["CF.SCANDUMP", "c", "0"], false),
    write(&["CF.LOADCHUNK", "c3", "1", "not a header"], false),
    read(&["CF.INFO", "c"], true),
    read(&["CF.DEBUG", "c"], false),
    write(&["CMS.INITBYDIM", "m2", "10", "2"], true),
    write(&["CMS.INITBYPROB", "m3", "0.1", "0.1"], true),
    write(&["CMS.INCRBY", "m", "x", "1"], false),
    read(&["CMS.QUERY", "m", "x"], false),
    write(&["CMS.MERGE", "m", "1", "m"], false),
    read(&["CMS.INFO", "m"], true),
    write(&["TOPK.RESERVE", "t2", "2"], true),
    write(&["TOPK.ADD", "t", "x"], false),
    write(&["TOPK.INCRBY", "t", "x", "1"], false),
    read(&["TOPK.QUERY", "t", "x"], false),
    read(&["TOPK.COUNT", "t", "x"], false),
    read(&["TOPK.LIST", "t"], false),
    read(&["TOPK.INFO", "t"], true),
    write(&["TDIGEST.CREATE", "t2"], true),
    write(&["TDIGEST.ADD", "t", "1"], false),
    write(&["TDIGEST.RESET", "t3"], true),
    write(&["TDIGEST.MERGE", "t4", "1", "t"], false),
    read(&["TDIGEST.MIN", "t"], true),
    read(&["TDIGEST.MAX", "t"], true),
    read(&["TDIGEST.QUANTILE", "t", "0.5"], true),
    read(&["TDIGEST.CDF", "t", "1"], true),
    read(&["TDIGEST.RANK", "t", "1"], true),
    read(&["TDIGEST.REVRANK", "t", "1"], true),
    read(&["TDIGEST.BYRANK", "t", "1"], true),
    read(&["TDIGEST.BYREVRANK", "t", "1"], true),
    read(&["TDIGEST.TRIMMED_MEAN", "t", "0.1", "0.9"], false),
    read(&["TDIGEST.INFO", "t"], true),
    // The counting Bloom filters (rsbloom's own): BF's rule.
    write(&["CBF.RESERVE", "cb2", "0.01", "100"], true),
    write(&["CBF.ADD", "cb", "x"], false),
    write(&["CBF.MADD", "cb", "x", "y"], false),
    write(&["CBF.DEL", "cb", "x"], false),
    write(&["CBF.MDEL", "cb", "x", "y"], false),
    read(&["CBF.EXISTS", "cb", "x"], false),
    read(&["CBF.MEXISTS", "cb", "x", "y"], false),
    read(&["CBF.COUNT", "cb", "x"], false),
    read(&["CBF.CARD", "cb"], true),
    read(&["CBF.INFO", "cb"], true),
    read(&["CBF.SCANDUMP", "cb", "0"], false),
    write(&["CBF.LOADCHUNK", "cb3", "1", "not a header"], false),
    read(&["CBF.EXPORT", "cb", "GUAVA"], false),
    write(&["CBF.MERGE", "cb", "cb"], false),
    // The sliding-window filters (rsbloom's own): BF's rule.
    write(&["APBF.RESERVE", "ap2", "COUNT", "0.01", "100"], true),
    write(&["APBF.ADD", "ap", "x"], false),
    write(&["APBF.MADD", "ap", "x", "y"], false),
    write(&["APBF.INSERTAT", "ap", "1", "x"], false),
    read(&["APBF.EXISTS", "ap", "x"], false),
    read(&["APBF.MEXISTS", "ap", "x", "y"], false),
    read(&["APBF.INFO", "ap"], true),
    read(&["APBF.SCANDUMP", "ap", "0"], false),
    write(&["APBF.LOADCHUNK", "ap3", "1", "not a header"], false),
];

/// The commands RedisBloom does not have (and every CBF and APBF command).
const RSBLOOM_ONLY: [&str; 4] = ["bf.import", "bf.export", "bf.merge", "bf.load"];

fn rsbloom_only(name: &str) -> bool {
    RSBLOOM_ONLY.contains(&name) || name.starts_with("cbf.") || name.starts_with("apbf.")
}

impl Row {
    fn name(&self) -> String {
        self.call[0].to_lowercase()
    }

    /// The family's module category.
    fn family(&self) -> &'static str {
        if self.call[0].starts_with("BF.") {
            "bloom"
        } else if self.call[0].starts_with("CMS.") {
            "cms"
        } else if self.call[0].starts_with("TOPK.") {
            "topk"
        } else if self.call[0].starts_with("TDIGEST.") {
            "tdigest"
        } else if self.call[0].starts_with("CBF.") {
            "cbf"
        } else if self.call[0].starts_with("APBF.") {
            "apbf"
        } else {
            "cuckoo"
        }
    }

    /// Every category the command is in, as COMMAND INFO lists them.
    fn categories(&self) -> BTreeSet<String> {
        let mut all = vec![if self.write { "write" } else { "read" }, self.family()];
        if self.fast {
            all.push("fast");
        }
        all.into_iter().map(|c| format!("@{c}")).collect()
    }
}

/// What the server does with module ACL categories, from INFO server.
struct Acls {
    /// RedisModule_AddACLCategory / SetCommandACLCategories exist (Redis 7.2+, Valkey).
    module_categories: bool,
    /// `ACL CAT <category>` lists module commands (Redis 8, Valkey; Redis 7's listing skips
    /// every module command).
    listed: bool,
    server: String,
}

impl Acls {
    fn of(con: &mut Connection) -> Acls {
        let redis = info_field(con, "server", "redis_version").expect("redis_version");
        let valkey = info_field(con, "server", "valkey_version");
        let mut parts = redis.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
        let version = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        Acls {
            module_categories: valkey.is_some() || version >= (7, 2),
            listed: valkey.is_some() || version >= (8, 0),
            server: match valkey {
                Some(v) => format!("Valkey {v}"),
                None => format!("Redis {redis}"),
            },
        }
    }
}

fn texts(v: &Value) -> BTreeSet<String> {
    match v {
        Value::Array(items) | Value::Set(items) => items.iter().map(as_text).collect(),
        other => panic!("expected an array of strings, got {other:?}"),
    }
}

/// The module's commands in `ACL CAT category` (or the error it answers).
fn listed(con: &mut Connection, category: &str) -> Result<BTreeSet<String>, String> {
    let reply = raw(con, &["ACL", "CAT", category]);
    if let Some(e) = err_of(&reply) {
        return Err(e);
    }
    Ok(texts(&reply)
        .into_iter()
        .filter(|c| {
            c.starts_with("bf.")
                || c.starts_with("cf.")
                || c.starts_with("cms.")
                || c.starts_with("topk.")
                || c.starts_with("tdigest.")
                || c.starts_with("cbf.")
                || c.starts_with("apbf.")
        })
        .collect())
}

/// A user's rules, the commands they grant on a server with module ACL categories, and
/// whether they grant GET.
struct User {
    name: &'static str,
    rules: Vec<String>,
    grants: fn(&Row) -> bool,
    get: bool,
}

fn user(name: &'static str, rules: &[&str], grants: fn(&Row) -> bool, get: bool) -> User {
    User {
        name,
        rules: rules.iter().map(|r| r.to_string()).collect(),
        grants,
        get,
    }
}

/// The rules of docs/acl.md for servers without module categories: the categories, and the
/// commands named one by one (`+bf.exists ...` to grant the reads, `-bf.add ...` to take the
/// writes away).
fn by_name(start: &[&str], sign: char, write: bool) -> Vec<String> {
    let mut rules: Vec<String> = start.iter().map(|r| r.to_string()).collect();
    rules.extend(
        TABLE
            .iter()
            .filter(|r| r.write == write)
            .map(|r| format!("{sign}{}", r.name())),
    );
    rules
}

#[test]
fn every_command_is_granted_by_its_categories() {
    let s = Server::start();
    let mut admin = s.conn();
    let acls = Acls::of(&mut admin);
    let server = &acls.server;

    // The table is the module's whole command list, and RedisBloom's totals on Redis 8.2.3
    // for its 38 BF, CF, CMS and TOPK commands: 19 in @read, 19 in @write, 10 in @fast.
    // for its 52 BF, CF, CMS, TOPK and TDIGEST commands: 29 in @read, 23 in @write, 21 in @fast.
    let names: BTreeSet<String> = TABLE.iter().map(Row::name).collect();
    let module = texts(&raw(
        &mut admin,
        &["COMMAND", "LIST", "FILTERBY", "MODULE", "bf"],
    ));
    assert_eq!(names, module, "the table against the module's commands");
    assert_eq!(names.len(), TABLE.len(), "a command twice in the table");
    let redisbloom: Vec<&Row> = TABLE.iter().filter(|r| !rsbloom_only(&r.name())).collect();
    let count = |f: fn(&Row) -> bool| redisbloom.iter().filter(|r| f(r)).count();
    assert_eq!(
        (count(|r| !r.write), count(|r| r.write), count(|r| r.fast)),
        (29, 23, 21),
        "RedisBloom's (@read, @write, @fast) totals"
    );

    expect_ok(&mut admin, &["BF.RESERVE", "b", "0.01", "100"]);
    expect_ok(&mut admin, &["CF.RESERVE", "c", "100"]);
    expect_ok(&mut admin, &["CMS.INITBYDIM", "m", "10", "2"]);
    expect_ok(&mut admin, &["TOPK.RESERVE", "t", "2"]);
    expect_ok(&mut admin, &["CBF.RESERVE", "cb", "0.01", "100"]);
    expect_ok(&mut admin, &["APBF.RESERVE", "ap", "COUNT", "0.01", "100"]);

    let users = [
        user("nowrite", &["+@all", "-@write"], |r| !r.write, true),
        user("readonly", &["-@all", "+@read"], |r| !r.write, true),
        user(
            "bloom",
            &["-@all", "+@bloom"],
            |r| r.family() == "bloom",
            false,
        ),
        user(
            "cuckoo",
            &["-@all", "+@cuckoo"],
            |r| r.family() == "cuckoo",
            false,
        ),
        user("cms", &["-@all", "+@cms"], |r| r.family() == "cms", false),
        user(
            "topk",
            &["-@all", "+@topk"],
            |r| r.family() == "topk",
            false,
        ),
        user(
            "tdigest",
            &["-@all", "+@tdigest"],
            |r| r.family() == "tdigest",
            false,
        ),
        user(
            "counting",
            &["-@all", "+@cbf"],
            |r| r.family() == "cbf",
            false,
        ),
        user(
            "window",
            &["-@all", "+@apbf"],
            |r| r.family() == "apbf",
            false,
        ),
        user("fast", &["-@all", "+@fast"], |r| r.fast, true),
        // No command is in @slow (RedisBloom 8 names none; servers add none to a module's).
        user("slow", &["-@all", "+@slow"], |_| false, false),
        user("all", &["-@all", "+@all"], |_| true, true),
        user("none", &["-@all"], |_| false, false),
    ];
    for u in &users {
        let mut setuser = vec!["ACL", "SETUSER", u.name, "on", ">pw", "~*"];
        setuser.extend(u.rules.iter().map(String::as_str));
        let reply = raw(&mut admin, &setuser);
        let module_rule = u.rules.iter().any(|r| {
            [
                "+@bloom",
                "+@cuckoo",
                "+@cms",
                "+@topk",
                "+@tdigest",
                "+@cbf",
                "+@apbf",
            ]
            .contains(&r.as_str())
        });
        if module_rule && !acls.module_categories {
            // Redis 7.0: the module's categories do not exist, so the rule is refused.
            let e = err_of(&reply).unwrap_or_else(|| panic!("{server}: {setuser:?}: {reply:?}"));
            assert!(
                e.contains("Unknown command or category"),
                "{server}: {setuser:?} refused with {e:?}"
            );
            continue;
        }
        assert_eq!(reply, Value::Okay, "{server}: {setuser:?}");
        let mut con = s.conn();
        expect_ok(&mut con, &["AUTH", u.name, "pw"]);
        for row in &TABLE {
            // Without module categories the commands are in no category: only `@all` (every
            // command) reaches them, so the last of +@all / -@all decides.
            let granted = if acls.module_categories {
                (u.grants)(row)
            } else {
                u.rules.iter().rev().find(|r| r.ends_with("@all")) == Some(&"+@all".into())
            };
            check_call(
                &mut con,
                row,
                granted,
                &format!("{server}: user {}", u.name),
            );
        }
        // GET (@read @string @fast), for contrast: the module's categories hold no other.
        let get = raw(&mut con, &["GET", "k"]);
        assert_eq!(
            err_of(&get).is_none_or(|e| !e.starts_with("NOPERM")),
            u.get,
            "{server}: user {}: GET answered {get:?}",
            u.name
        );
    }

    // The rules of docs/acl.md for Redis 7.0, naming the commands: the same grants on every server.
    let named = [
        ("readnamed", by_name(&["-@all", "+@read"], '+', false)),
        ("nowritenamed", by_name(&["+@all", "-@write"], '-', true)),
    ];
    for (name, rules) in named {
        let mut setuser = vec!["ACL", "SETUSER", name, "on", ">pw", "~*"];
        setuser.extend(rules.iter().map(String::as_str));
        expect_ok(&mut admin, &setuser);
        let mut con = s.conn();
        expect_ok(&mut con, &["AUTH", name, "pw"]);
        for row in &TABLE {
            check_call(&mut con, row, !row.write, &format!("{server}: user {name}"));
        }
    }
}

/// The call of `row` is refused with NOPERM, or runs (whatever it answers) when `granted`.
fn check_call(con: &mut Connection, row: &Row, granted: bool, who: &str) {
    let reply = raw(con, row.call);
    let refused = err_of(&reply).filter(|e| e.starts_with("NOPERM"));
    match (granted, refused) {
        (true, Some(e)) => panic!("{who}: `{}` refused: {e}", show_args(row.call)),
        (false, None) => panic!("{who}: `{}` ran, answered {reply:?}", show_args(row.call)),
        (false, Some(e)) => assert!(
            e.contains(&format!("'{}'", row.name())),
            "{who}: `{}`: {e}",
            show_args(row.call)
        ),
        (true, None) => {}
    }
}

#[test]
fn command_info_and_acl_cat_list_the_categories() {
    let s = Server::start();
    let mut con = s.conn();
    let acls = Acls::of(&mut con);
    let server = &acls.server;

    // COMMAND INFO: the seventh field holds the command's ACL categories.
    for row in &TABLE {
        let name = row.name();
        let reply = raw(&mut con, &["COMMAND", "INFO", &name]);
        let Value::Array(entries) = &reply else {
            panic!("{server}: COMMAND INFO {name}: {reply:?}")
        };
        let Value::Array(info) = &entries[0] else {
            panic!("{server}: COMMAND INFO {name}: {reply:?}")
        };
        let want = if acls.module_categories {
            row.categories()
        } else {
            BTreeSet::new()
        };
        assert_eq!(texts(&info[6]), want, "{server}: COMMAND INFO {name}");
    }

    // ACL CAT: the family categories exist where the server has module categories.
    let categories = texts(&raw(&mut con, &["ACL", "CAT"]));
    for family in ["bloom", "cuckoo", "cms", "topk", "tdigest", "cbf", "apbf"] {
        assert_eq!(
            categories.contains(family),
            acls.module_categories,
            "{server}: ACL CAT lists {family}"
        );
    }
    // ACL CAT <category>: each category's commands; Redis 7 lists no module command in any
    // category (its listing skips them), Redis 7.0 has no `bloom` or `cuckoo`.
    for category in [
        "read", "write", "fast", "bloom", "cuckoo", "cms", "topk", "cbf", "apbf",
    ] {
        let got = listed(&mut con, category);
        let module_category = ["bloom", "cuckoo", "cms", "topk", "cbf", "apbf"].contains(&category);
        if module_category && !acls.module_categories {
            assert_eq!(
                got,
                Err(format!("ERR Unknown category '{category}'")),
                "{server}: ACL CAT {category}"
            );
            continue;
        }
        let want: BTreeSet<String> = if acls.listed {
            TABLE
                .iter()
                .filter(|r| r.categories().contains(&format!("@{category}")))
                .map(Row::name)
                .collect()
        } else {
            BTreeSet::new()
        };
        assert_eq!(got, Ok(want), "{server}: ACL CAT {category}");
    }
    if acls.listed {
        let read = listed(&mut con, "read").unwrap();
        let write = listed(&mut con, "write").unwrap();
        let fast = listed(&mut con, "fast").unwrap();
        let redisbloom = |set: &BTreeSet<String>| set.iter().filter(|c| !rsbloom_only(c)).count();
        assert_eq!(
            (redisbloom(&read), redisbloom(&write), redisbloom(&fast)),
            (29, 23, 21),
            "{server}: RedisBloom's commands in (@read, @write, @fast)"
        );
    }
}
