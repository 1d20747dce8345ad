//! COMMAND DOCS and the tips of COMMAND INFO as RedisBloom gives them, for every one of its
//! commands: `since`, `history` versions, and each argument's name, type, token, flags,
//! key-spec index and sub-arguments, in order; the `dont_cache` tip of RedisBloom 8.10 on the
//! reads whose replies clients must not cache. The table holds what RedisBloom 8.8 registers
//! (8.10 for BF.DEBUG and CF.DEBUG, which 8.8 leaves undocumented; CF.COMPACT, which no
//! release documents, with the version that introduced it). Summaries and complexities are
//! rsbloom's own words (rule `command-docs-words` of docs/differences.txt), so they are only
//! checked to be there. rsbloom's own commands (BF.IMPORT, BF.EXPORT, CBF.*, APBF.*) give
//! rsbloom's version as `since`, and so do rsbloom's own arguments of RedisBloom's commands
//! (`SHARD`, `KEYED`, `BLOCKED`, valkey-bloom's three of BF.INSERT): without them, COMMAND
//! DOCS is RedisBloom's exactly.

use rsbloom_test_support as common;

use std::collections::BTreeSet;

use common::*;
use redis::Value;

/// `(command, since, tips, history versions, arguments)`. An argument is written
/// `name:type`, then `#i` (its key-spec index), `=TOKEN`, `?` (optional), `*` (multiple),
/// `+` (multiple_token), `@since` (an argument added after its command), then its
/// sub-arguments in parentheses. The Count-Min Sketch's creations carry 8.12's `CELL_SIZE`
/// (RedisBloom PR 1063), documented from its syntax: 8.12's own COMMAND DOCS entry for it
/// was not read from a running 8.12 (none is in reach): name, type and token follow its syntax.
#[allow(clippy::type_complexity)]
const REDISBLOOM: &[(&str, &str, &[&str], &[&str], &str)] = &[
    (
        "bf.reserve",
        "1.0.0",
        &[],
        &[],
        "key:key#0 error_rate:double capacity:integer \
         expansion:block=EXPANSION?(expansion:integer) nonscaling:pure-token=NONSCALING?",
    ),
    ("bf.add", "1.0.0", &[], &[], "key:key#0 item:string"),
    ("bf.madd", "1.0.0", &[], &[], "key:key#0 item:string*"),
    (
        "bf.insert",
        "1.0.0",
        &[],
        &[],
        "key:key#0 capacity:block=CAPACITY?(capacity:integer) error:block=ERROR?(error:double) \
         expansion:block=EXPANSION?(expansion:integer) nocreate:pure-token=NOCREATE? \
         nonscaling:pure-token=NONSCALING? items:pure-token=ITEMS item:string*",
    ),
    ("bf.exists", "1.0.0", &[], &[], "key:key#0 item:string"),
    ("bf.mexists", "1.0.0", &[], &[], "key:key#0 item:string*"),
    ("bf.card", "2.4.4", &[], &[], "key:key#0"),
    (
        "bf.info",
        "1.0.0",
        &["dont_cache"],
        &[],
        // RedisBloom names the first choice `capcaity` (rule `command-docs-words`).
        "key:key#0 single_value:oneof?(capacity:pure-token=CAPACITY SIZE:pure-token=SIZE \
         FILTERS:pure-token=FILTERS ITEMS:pure-token=ITEMS EXPANSION:pure-token=EXPANSION)",
    ),
    ("bf.debug", "1.0.0", &["dont_cache"], &[], "key:key#0"),
    (
        "bf.scandump",
        "1.0.0",
        &["dont_cache"],
        &[],
        "key:key#0 iterator:integer",
    ),
    (
        "bf.loadchunk",
        "1.0.0",
        &[],
        &[],
        "key:key#0 iterator:integer data:string",
    ),
    (
        "cf.reserve",
        "1.0.0",
        &[],
        &[],
        "key:key#0 capacity:integer bucketsize:block=BUCKETSIZE?(bucketsize:integer) \
         maxiterations:block=MAXITERATIONS?(maxiterations:integer) \
         expansion:block=EXPANSION?(expansion:integer)",
    ),
    ("cf.add", "1.0.0", &[], &[], "key:key#0 item:string"),
    ("cf.addnx", "1.0.0", &[], &[], "key:key#0 item:string"),
    (
        "cf.insert",
        "1.0.0",
        &[],
        &[],
        "key:key#0 capacity:block?(capacity:pure-token=CAPACITY capacity:integer) \
         nocreate:pure-token=NOCREATE? items:pure-token=ITEMS item:string*",
    ),
    (
        "cf.insertnx",
        "1.0.0",
        &[],
        &[],
        "key:key#0 capacity:block?(capacity:pure-token=CAPACITY capacity:integer) \
         nocreate:pure-token=NOCREATE? items:pure-token=ITEMS item:string*",
    ),
    ("cf.exists", "1.0.0", &[], &[], "key:key#0 item:string"),
    ("cf.mexists", "1.0.0", &[], &[], "key:key#0 item:string*"),
    ("cf.count", "1.0.0", &[], &[], "key:key#0 item:string"),
    ("cf.del", "1.0.0", &[], &[], "key:key#0 item:string"),
    ("cf.compact", "2.2.0", &[], &[], "key:key#0"),
    (
        "cf.scandump",
        "1.0.0",
        &["dont_cache"],
        &[],
        "key:key#0 iterator:integer",
    ),
    (
        "cf.loadchunk",
        "1.0.0",
        &[],
        &[],
        "key:key#0 iterator:integer data:string",
    ),
    ("cf.info", "1.0.0", &["dont_cache"], &[], "key:key#0"),
    ("cf.debug", "1.0.0", &["dont_cache"], &[], "key:key#0"),
    (
        "cms.initbydim",
        "2.0.0",
        &[],
        &[],
        "key:key#0 width:integer depth:integer cell_size:integer=CELL_SIZE?@8.12.0",
    ),
    (
        "cms.initbyprob",
        "2.0.0",
        &[],
        &[],
        "key:key#0 error:double probability:double cell_size:integer=CELL_SIZE?@8.12.0",
    ),
    (
        "cms.incrby",
        "2.0.0",
        &[],
        &[],
        "key:key#0 items:block*(item:string increment:integer)",
    ),
    ("cms.query", "2.0.0", &[], &[], "key:key#0 item:string*"),
    (
        "cms.merge",
        "2.0.0",
        &[],
        &[],
        // The sources document their own key spec here (rule `cms-merge-keys`); RedisBloom
        // declares none for them and gives them index 0.
        "key:key#0 numKeys:integer source:key#1* \
         weights:block?(weights:pure-token=WEIGHTS weight:double*)",
    ),
    ("cms.info", "2.0.0", &["dont_cache"], &[], "key:key#0"),
    (
        "topk.reserve",
        "2.0.0",
        &[],
        &[],
        "key:key#0 topk:integer params:block?(width:integer depth:integer decay:double)",
    ),
    ("topk.add", "2.0.0", &[], &[], "key:key#0 item:string*"),
    (
        "topk.incrby",
        "2.0.0",
        &[],
        &[],
        "key:key#0 item_increment:block*(item:string increment:integer)",
    ),
    ("topk.query", "2.0.0", &[], &[], "key:key#0 item:string*"),
    (
        "topk.count",
        "2.0.0",
        &[],
        &["2.4.0"],
        "key:key#0 item:string*",
    ),
    (
        "topk.list",
        "2.0.0",
        &[],
        &[],
        "key:key#0 withcount:pure-token=WITHCOUNT?",
    ),
    ("topk.info", "2.0.0", &[], &[], "key:key#0"),
    (
        "tdigest.create",
        "2.4.0",
        &[],
        &[],
        "key:key#0 \
         compression_block:block?(compression_token:pure-token=COMPRESSION compression:integer)",
    ),
    ("tdigest.reset", "2.4.0", &[], &[], "key:key#0"),
    ("tdigest.add", "2.4.0", &[], &[], "key:key#0 value:double*"),
    (
        "tdigest.merge",
        "2.4.0",
        &[],
        &[],
        "destination-key:key#0 numkeys:integer source-key:key#1* \
         compression_block:block?(compression_token:pure-token=COMPRESSION compression:integer) \
         override:pure-token=OVERRIDE?",
    ),
    ("tdigest.min", "2.4.0", &[], &[], "key:key#0"),
    ("tdigest.max", "2.4.0", &[], &[], "key:key#0"),
    (
        "tdigest.quantile",
        "2.4.0",
        &[],
        &[],
        "key:key#0 quantile:double*",
    ),
    ("tdigest.cdf", "2.4.0", &[], &[], "key:key#0 value:double*"),
    ("tdigest.rank", "2.4.0", &[], &[], "key:key#0 value:double*"),
    (
        "tdigest.revrank",
        "2.4.0",
        &[],
        &[],
        "key:key#0 value:double*",
    ),
    (
        "tdigest.byrank",
        "2.4.0",
        &[],
        &[],
        "key:key#0 rank:double*",
    ),
    (
        "tdigest.byrevrank",
        "2.4.0",
        &[],
        &[],
        "key:key#0 reverse_rank:double*",
    ),
    (
        "tdigest.trimmed_mean",
        "2.4.0",
        &[],
        &[],
        "key:key#0 low_cut_quantile:double high_cut_quantile:double",
    ),
    ("tdigest.info", "2.4.0", &["dont_cache"], &[], "key:key#0"),
];

/// rsbloom's own arguments of RedisBloom's commands, each at its place in the whole list
/// (RedisBloom's arguments around them, unchanged): `@V` stands for rsbloom's version.
/// Without the `@V` arguments, each list is RedisBloom's (the table above).
const OWN_ARGUMENTS: &[(&str, &str)] = &[
    (
        "bf.reserve",
        "key:key#0 error_rate:double capacity:integer \
         expansion:block=EXPANSION?(expansion:integer) nonscaling:pure-token=NONSCALING? \
         shard:block=SHARD?@V(name:string index:integer count:integer id:string=SHARDID?@V secret:string=SHARDSECRET?@V) \
         keyed:pure-token=KEYED?@V blocked:pure-token=BLOCKED?@V \
         unkeyed:pure-token=UNKEYED?@V unblocked:pure-token=UNBLOCKED?@V",
    ),
    (
        "bf.insert",
        "key:key#0 capacity:block=CAPACITY?(capacity:integer) error:block=ERROR?(error:double) \
         expansion:block=EXPANSION?(expansion:integer) nocreate:pure-token=NOCREATE? \
         nonscaling:pure-token=NONSCALING? \
         shard:block=SHARD?@V(name:string index:integer count:integer id:string=SHARDID?@V secret:string=SHARDSECRET?@V) \
         keyed:pure-token=KEYED?@V blocked:pure-token=BLOCKED?@V \
         unkeyed:pure-token=UNKEYED?@V unblocked:pure-token=UNBLOCKED?@V \
         tightening:block=TIGHTENING?@V(tightening_ratio:double) \
         seed:block=SEED?@V(seed:string) \
         validatescaleto:block=VALIDATESCALETO?@V(validatescaleto:integer) \
         items:pure-token=ITEMS item:string*",
    ),
    (
        "cf.reserve",
        "key:key#0 capacity:integer bucketsize:block=BUCKETSIZE?(bucketsize:integer) \
         maxiterations:block=MAXITERATIONS?(maxiterations:integer) \
         expansion:block=EXPANSION?(expansion:integer) \
         shard:block=SHARD?@V(name:string index:integer count:integer id:string=SHARDID?@V secret:string=SHARDSECRET?@V)",
    ),
    (
        "cf.insert",
        "key:key#0 capacity:block?(capacity:pure-token=CAPACITY capacity:integer) \
         nocreate:pure-token=NOCREATE? \
         shard:block=SHARD?@V(name:string index:integer count:integer id:string=SHARDID?@V secret:string=SHARDSECRET?@V) \
         items:pure-token=ITEMS item:string*",
    ),
    (
        "cf.insertnx",
        "key:key#0 capacity:block?(capacity:pure-token=CAPACITY capacity:integer) \
         nocreate:pure-token=NOCREATE? \
         shard:block=SHARD?@V(name:string index:integer count:integer id:string=SHARDID?@V secret:string=SHARDSECRET?@V) \
         items:pure-token=ITEMS item:string*",
    ),
];

/// The arguments without rsbloom's own (those whose `since` is rsbloom's version).
fn without_own(args: &[Value]) -> Vec<Value> {
    let version = env!("CARGO_PKG_VERSION");
    args.iter()
        .filter(|a| field(a, "since").is_none_or(|v| as_text(&v) != version))
        .cloned()
        .collect()
}

fn array(v: &Value) -> &[Value] {
    match v {
        Value::Array(a) | Value::Set(a) => a,
        other => panic!("expected an array, got {other:?}"),
    }
}

/// A RESP2 flat `name, value, ...` array (or a RESP3 map) as pairs.
fn pairs(v: &Value) -> Vec<(String, Value)> {
    match v {
        Value::Map(m) => m.iter().map(|(k, v)| (as_text(k), v.clone())).collect(),
        _ => {
            let a = array(v);
            assert_eq!(a.len() % 2, 0, "odd name/value array: {a:?}");
            a.chunks(2)
                .map(|p| (as_text(&p[0]), p[1].clone()))
                .collect()
        }
    }
}

fn field(v: &Value, name: &str) -> Option<Value> {
    pairs(v).into_iter().find(|(n, _)| n == name).map(|p| p.1)
}

/// The arguments of COMMAND DOCS in the table's notation.
fn render(args: &[Value]) -> String {
    let mut out = Vec::new();
    for a in args {
        let text = |name: &str| field(a, name).map(|v| as_text(&v));
        let mut s = format!(
            "{}:{}",
            text("name").expect("an argument's name"),
            text("type").expect("an argument's type")
        );
        if let Some(Value::Int(i)) = field(a, "key_spec_index") {
            s += &format!("#{i}");
        }
        if let Some(token) = text("token") {
            s += &format!("={token}");
        }
        if let Some(flags) = field(a, "flags") {
            let flags: BTreeSet<String> = array(&flags).iter().map(as_text).collect();
            for (flag, mark) in [
                ("optional", "?"),
                ("multiple", "*"),
                ("multiple_token", "+"),
            ] {
                if flags.contains(flag) {
                    s += mark;
                }
            }
        }
        if let Some(since) = text("since") {
            s += &format!("@{since}");
        }
        if let Some(sub) = field(a, "arguments") {
            s += &format!("({})", render(array(&sub)));
        }
        out.push(s);
    }
    out.join(" ")
}

/// The tips of COMMAND INFO (its 8th field).
fn tips(c: &mut redis::Connection, name: &str) -> Vec<String> {
    let reply = raw(c, &["COMMAND", "INFO", name]);
    let info = array(&array(&reply)[0]);
    array(&info[7]).iter().map(as_text).collect()
}

/// One command's COMMAND DOCS entry.
fn docs(c: &mut redis::Connection, name: &str) -> Value {
    let reply = raw(c, &["COMMAND", "DOCS", name]);
    let entries = pairs(&reply);
    assert_eq!(entries.len(), 1, "{name}: COMMAND DOCS {reply:?}");
    assert_eq!(entries[0].0, name);
    entries[0].1.clone()
}

#[test]
fn command_docs_of_redisbloom_commands_are_redisbloom_s() {
    let s = Server::start();
    let mut c = s.conn();
    let mut wrong = Vec::new();
    for &(name, since, want_tips, history, args) in REDISBLOOM {
        let doc = docs(&mut c, name);
        let text = |key: &str| field(&doc, key).map(|v| as_text(&v));
        if text("since").as_deref() != Some(since) {
            wrong.push(format!("{name}: since {:?}, not {since}", text("since")));
        }
        for key in ["summary", "complexity"] {
            if text(key).is_none_or(|t| t.trim().is_empty()) {
                wrong.push(format!("{name}: no {key}"));
            }
        }
        let got_history: Vec<String> = field(&doc, "history")
            .map(|h| {
                array(&h)
                    .iter()
                    .map(|entry| {
                        let entry = array(entry);
                        assert_eq!(entry.len(), 2, "{name}: history entry {entry:?}");
                        assert!(!as_text(&entry[1]).is_empty(), "{name}: empty history");
                        as_text(&entry[0])
                    })
                    .collect()
            })
            .unwrap_or_default();
        if got_history != history {
            wrong.push(format!("{name}: history {got_history:?}, not {history:?}"));
        }
        let all = field(&doc, "arguments").expect("arguments");
        let got = render(&without_own(array(&all)));
        let want = args.split_whitespace().collect::<Vec<_>>().join(" ");
        if got != want {
            wrong.push(format!("{name}: arguments\n  got  {got}\n  want {want}"));
        }
        let own = OWN_ARGUMENTS.iter().find(|o| o.0 == name);
        let want_all = own.map_or(want, |o| {
            let words = o.1.split_whitespace().collect::<Vec<_>>().join(" ");
            words.replace("@V", &format!("@{}", env!("CARGO_PKG_VERSION")))
        });
        let got_all = render(array(&all));
        if got_all != want_all {
            wrong.push(format!(
                "{name}: all arguments\n  got  {got_all}\n  want {want_all}"
            ));
        }
        let got_tips = tips(&mut c, name);
        if got_tips != want_tips {
            wrong.push(format!("{name}: tips {got_tips:?}, not {want_tips:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// KEYED of APBF.RESERVE (and of CBF.RESERVE) is listed, optional; APBF.RESERVE's with
/// rsbloom's version as its `since`, as the KEYED of BF.RESERVE.
#[test]
fn keyed_of_the_window_and_counting_reserves_is_listed() {
    let s = Server::start();
    let mut c = s.conn();
    let version = env!("CARGO_PKG_VERSION");
    let doc = docs(&mut c, "apbf.reserve");
    let args = field(&doc, "arguments").expect("arguments");
    assert_eq!(
        render(array(&args)),
        format!(
            "key:key#0 window:string error_rate:double capacity:integer span:double \
             keyed:pure-token=KEYED?@{version}"
        )
    );
    let doc = docs(&mut c, "cbf.reserve");
    let args = render(array(&field(&doc, "arguments").expect("arguments")));
    assert!(args.ends_with("keyed:pure-token=KEYED?"), "{args}");
}

#[test]
fn rsbloom_s_own_commands_give_rsbloom_s_version_and_no_tips() {
    let s = Server::start();
    let mut c = s.conn();
    let module: BTreeSet<String> = array(&raw(
        &mut c,
        &["COMMAND", "LIST", "FILTERBY", "MODULE", "bf"],
    ))
    .iter()
    .map(as_text)
    .collect();
    let redisbloom: BTreeSet<String> = REDISBLOOM.iter().map(|r| r.0.to_string()).collect();
    assert!(
        redisbloom.is_subset(&module),
        "missing: {:?}",
        redisbloom.difference(&module)
    );
    let own: Vec<&String> = module.difference(&redisbloom).collect();
    // BF.IMPORT, BF.EXPORT and the counting and sliding-window families.
    assert!(own.len() >= 2 + 13 + 9, "rsbloom's own commands: {own:?}");
    for name in own {
        assert!(
            name.starts_with("cbf.") || name.starts_with("apbf.") || name.starts_with("bf."),
            "{name}: neither RedisBloom's nor rsbloom's"
        );
        let doc = docs(&mut c, name);
        assert_eq!(
            field(&doc, "since").map(|v| as_text(&v)).as_deref(),
            Some(env!("CARGO_PKG_VERSION")),
            "{name}: since"
        );
        assert!(field(&doc, "history").is_none(), "{name}: history");
        assert_eq!(tips(&mut c, name), Vec::<String>::new(), "{name}: tips");
    }
}

/// MODULE LIST gives the `bf` module RedisBloom 8.12.0's version number, the release whose
/// dialect rsbloom speaks, so clients that gate a feature on the module's version (`CELL_SIZE`
/// from 8.12) send it; CMS.INITBYDIM then takes the cell size that gate protects.
#[test]
fn module_list_reports_redisbloom_8_12() {
    let s = Server::start();
    let mut c = s.conn();
    let modules = array(&raw(&mut c, &["MODULE", "LIST"])).to_vec();
    let bf: Vec<(String, Value)> = modules
        .iter()
        .map(pairs)
        .find(|m| m.iter().any(|(k, v)| k == "name" && as_text(v) == "bf"))
        .expect("the bf module is listed");
    let ver = bf.iter().find(|(k, _)| k == "ver").expect("ver").1.clone();
    assert_eq!(ver, Value::Int(81200));
    let reply = raw(
        &mut c,
        &["CMS.INITBYDIM", "gated", "10", "2", "CELL_SIZE", "2"],
    );
    assert_eq!(as_text(&reply), "OK");
}
