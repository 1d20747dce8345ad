//! RedisBloom's own states, generated rather than recorded: RedisBloom 2.8.2 (Redis 7.4.1)
//! driven through seeded sequences over all five of its types (`diff::Generator::states`:
//! BF, CF, CMS, TOPK and TDIGEST commands, merges, SCANDUMP / LOADCHUNK copies, DUMP /
//! RESTORE between keys and into themselves, DEBUG RELOAD), every key's value archived on
//! RedisBloom (DUMP, RESTORE under a new name) every few steps. Then every value RedisBloom
//! holds is loaded into rsbloom on the same Redis three ways: its DUMP payloads RESTOREd, its
//! RDB as the start-up file, its AOF rewrite without the RDB preamble (BF.LOADCHUNK /
//! CF.LOADCHUNK for the filters, RESTORE for the sketches) replayed. Each way a RedisBloom
//! server loads the same data as the reference, and per key the answers to a fixed query set
//! and rsbloom's DUMP bytes must equal RedisBloom's, except what docs/differences.txt lists
//! (Top-K heap pointers are masked field by field rather than excused by their rule).

use rsbloom_test_support as common;

use common::diff::generator::{Action, Generator, STATE_KEYS as KEYS};
use common::diff::resp::{self, render, show_args, Conn, Reply};
use common::diff::Rules;
use common::raw_resp::RawConn;
use common::rdb::{dump_body, Cursor};
use common::{wait_for_aof_rewrite, Installed, Server, ServerOpts};
use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

/// The seeds and the steps each runs (about 2 s of RedisBloom per 1,000 steps, archives
/// and reloads included).
const SEEDS: &[u64] = &[0x0005_7a7e_0001, 0x0005_7a7e_0002, 0x0005_7a7e_0003];
const STEPS: usize = 2500;
/// Every key is archived after this many steps.
const ARCHIVE_EVERY: usize = 40;
/// The most SCANDUMP calls one copy may take.
const MAX_CHUNKS: usize = 4096;

const TYPES: &[&str] = &[
    "MBbloom--",
    "MBbloomCF",
    "CMSk-TYPE",
    "TopK-TYPE",
    "TDIS-TYPE",
];

fn b(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

fn words(text: &str) -> Vec<Vec<u8>> {
    text.split(' ').map(b).collect()
}

fn redis74() -> ServerOpts {
    ServerOpts::default().on(&Installed::get("redis-7.4"))
}

/// One command of a seed's run, for the sequences the findings show.
struct Logged {
    step: usize,
    args: Vec<Vec<u8>>,
    reply: String,
}

/// RedisBloom driven by the generator: every command and its reply kept per seed.
struct Driver {
    server: Server,
    conn: Conn,
    seed: u64,
    step: usize,
    log: BTreeMap<u64, Vec<Logged>>,
    /// Payloads archived (by their bytes: an unchanged key is archived once).
    seen: HashSet<Vec<u8>>,
    archived: usize,
    /// Commands RedisBloom did not refuse, by name (merges with weights apart).
    done: BTreeMap<String, usize>,
}

impl Driver {
    fn send(&mut self, args: Vec<Vec<u8>>) -> Vec<u8> {
        let reply = self.conn.send(&args).unwrap_or_else(|e| {
            panic!(
                "RedisBloom failed on `{}` ({e}), seed {:#x} step {}; commands of the seed:\n{}\n\
                 its log:\n{}",
                show_args(&args),
                self.seed,
                self.step,
                self.history(None, usize::MAX),
                self.server.log_text()
            )
        });
        let mut shown = render(&reply);
        shown.truncate(200);
        if !shown.starts_with('-') {
            let mut name = String::from_utf8_lossy(&args[0]).to_ascii_uppercase();
            if args.iter().any(|a| a.eq_ignore_ascii_case(b"WEIGHTS")) {
                name.push_str(" WEIGHTS");
            }
            *self.done.entry(name).or_default() += 1;
        }
        self.log.entry(self.seed).or_default().push(Logged {
            step: self.step,
            args,
            reply: shown,
        });
        reply
    }

    fn act(&mut self, action: Action) {
        match action {
            Action::Cmd(args) => {
                self.send(args);
            }
            Action::CopyChunks {
                cuckoo, src, dst, ..
            } => {
                let family = if cuckoo { "CF" } else { "BF" };
                let mut chunks = Vec::new();
                let mut it = b"0".to_vec();
                for _ in 0..MAX_CHUNKS {
                    let cmd = vec![b(&format!("{family}.SCANDUMP")), b(src), it.clone()];
                    let Reply::Array(pair) = resp::parse(&self.send(cmd)) else {
                        return;
                    };
                    match (pair.first(), pair.get(1)) {
                        (Some(Reply::Int(n)), Some(data)) if n != "0" => {
                            let data = match data {
                                Reply::Bulk(d) => d.clone(),
                                _ => Vec::new(),
                            };
                            it = b(n);
                            chunks.push((it.clone(), data));
                        }
                        _ => break,
                    }
                }
                for (it, data) in chunks {
                    self.send(vec![b(&format!("{family}.LOADCHUNK")), b(dst), it, data]);
                }
            }
            Action::DumpRestore {
                src, dst, replace, ..
            } => {
                let Reply::Bulk(payload) = resp::parse(&self.send(words(&format!("DUMP {src}"))))
                else {
                    return;
                };
                let mut cmd = vec![b("RESTORE"), b(dst), b("0"), payload];
                if replace {
                    cmd.push(b("REPLACE"));
                }
                self.send(cmd);
            }
        }
    }

    /// Every key of the generator that holds one of the five types, DUMPed and RESTOREd on
    /// RedisBloom as `a<seed>:<step>:<key>` (unless an earlier archive holds the same bytes).
    fn archive(&mut self) {
        for key in KEYS {
            let ty = render(&self.send(words(&format!("TYPE {key}"))));
            if !TYPES.iter().any(|t| ty == format!("+{t}")) {
                continue;
            }
            let Reply::Bulk(payload) = resp::parse(&self.send(words(&format!("DUMP {key}"))))
            else {
                panic!("DUMP {key} of a {ty} gave no payload");
            };
            if !self.seen.insert(payload.clone()) {
                continue;
            }
            let name = format!("a{:x}:{}:{key}", self.seed, self.step);
            let reply = self.send(vec![b("RESTORE"), b(&name), b("0"), payload]);
            assert_eq!(
                render(&reply),
                "+OK",
                "RedisBloom refused its own DUMP of {key} ({ty}), seed {:#x} step {}",
                self.seed,
                self.step
            );
            self.archived += 1;
        }
    }

    /// One seed's run; the generator's live keys end renamed `s<seed>:<key>`. Returns the
    /// number of items `i<n>` the run made.
    fn run(&mut self, seed: u64) -> u64 {
        self.seed = seed;
        let mut gen = Generator::states(seed);
        for step in 0..STEPS {
            self.step = step;
            let action = gen.next_action();
            self.act(action);
            if step % ARCHIVE_EVERY == ARCHIVE_EVERY - 1 {
                self.archive();
            }
        }
        self.step = STEPS;
        self.archive();
        for key in KEYS {
            let ty = render(&self.send(words(&format!("TYPE {key}"))));
            if TYPES.iter().any(|t| ty == format!("+{t}")) {
                self.send(words(&format!("RENAME {key} s{seed:x}:{key}")));
            } else {
                self.send(words(&format!("DEL {key}")));
            }
        }
        gen.items_made()
    }

    /// The commands of a seed up to `step` that touch `key` or a key those copied or merged
    /// from (every DEBUG RELOAD too), at most `max` of the last ones.
    fn history(&self, key: Option<(&str, usize)>, max: usize) -> String {
        let Some(log) = self.log.get(&self.seed) else {
            return String::new();
        };
        let (mut keys, upto): (HashSet<Vec<u8>>, usize) = match key {
            Some((k, step)) => ([b(k)].into_iter().collect(), step),
            None => (HashSet::new(), usize::MAX),
        };
        let mut picked = Vec::new();
        // Errors change nothing; TYPE and DUMP alone are the archive's reads.
        let counts =
            |l: &&Logged| !l.reply.starts_with('-') && l.args[0] != b"TYPE" && l.args[0] != b"DUMP";
        for l in log.iter().rev().filter(|l| l.step <= upto).filter(counts) {
            let names: Vec<&Vec<u8>> = l.args[1..]
                .iter()
                .filter(|a| KEYS.iter().any(|k| k.as_bytes() == a.as_slice()))
                .collect();
            let touches =
                key.is_none() || l.args[0] == b"DEBUG" || names.iter().any(|n| keys.contains(*n));
            if touches {
                keys.extend(names.into_iter().cloned());
                picked.push(l);
            }
        }
        let skipped = picked.len().saturating_sub(max);
        let mut out = String::new();
        if skipped > 0 {
            out.push_str(&format!("  ({skipped} earlier commands)\n"));
        }
        for l in picked.iter().take(max).rev() {
            out.push_str(&format!(
                "  [{}] {} -> {}\n",
                l.step,
                resp::clip(&show_args(&l.args), 300),
                l.reply
            ));
        }
        out
    }
}

/// Where a key came from: its seed, the last step before it was archived (or the run's end)
/// and the generator's name for it.
fn origin_of(key: &str) -> Option<(u64, usize, String)> {
    let mut parts = key.splitn(3, ':');
    let head = parts.next()?;
    let (seed, step, name) = if let Some(seed) = head.strip_prefix('a') {
        (seed, parts.next()?.parse().ok()?, parts.next()?)
    } else {
        (head.strip_prefix('s')?, usize::MAX, parts.next()?)
    };
    Some((u64::from_str_radix(seed, 16).ok()?, step, name.to_string()))
}

/// The items the queries probe: every `i<n>` below 200, 1,500 more spread over those the runs
/// made, and the odd items the generator sends now and then.
fn probes(made: u64) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = (0..200.min(made)).map(|n| b(&format!("i{n}"))).collect();
    let step = (made / 1500).max(1);
    out.extend(
        (200..made)
            .step_by(step as usize)
            .map(|n| b(&format!("i{n}"))),
    );
    out.extend(
        [
            &b""[..],
            b"\0",
            b"a\0b",
            b"0",
            b"-1",
            b"NONSCALING",
            b"inf",
            b"ITEMS",
        ]
        .iter()
        .map(|s| s.to_vec()),
    );
    out.push(vec![b'x'; 300]);
    out
}

const TD_VALUES: &str = "-inf -1e300 -500 -10 -1 -0 0 0.1 1 2.5 5 10 19 100 500.5 1000 1e6 \
                         2.5e10 1e15 1e300 inf";

/// The queries every key of type `ty` answers (read-only ones, in the same order on both
/// servers: a t-digest query compresses the digest on each alike).
fn queries(ty: &str, key: &str, probes: &[Vec<u8>]) -> Vec<Vec<Vec<u8>>> {
    let k = b(key);
    let with = |cmd: &str, items: &[Vec<u8>]| {
        let mut a = vec![b(cmd), k.clone()];
        a.extend(items.iter().cloned());
        a
    };
    let text = |t: &str| {
        let mut a = words(t);
        a.insert(1, k.clone());
        a
    };
    let sample: Vec<Vec<u8>> = probes.iter().step_by(7).cloned().collect();
    let mut q = Vec::new();
    match ty {
        "MBbloom--" => {
            q.extend(["BF.INFO", "BF.DEBUG", "BF.CARD"].map(text));
            q.extend(probes.chunks(500).map(|c| with("BF.MEXISTS", c)));
            q.extend(
                sample
                    .iter()
                    .map(|p| with("BF.EXISTS", std::slice::from_ref(p))),
            );
        }
        "MBbloomCF" => {
            q.extend(["CF.INFO", "CF.DEBUG"].map(text));
            q.extend(probes.chunks(500).map(|c| with("CF.MEXISTS", c)));
            q.extend(
                sample
                    .iter()
                    .map(|p| with("CF.EXISTS", std::slice::from_ref(p))),
            );
            q.extend(
                sample
                    .iter()
                    .map(|p| with("CF.COUNT", std::slice::from_ref(p))),
            );
        }
        "CMSk-TYPE" => {
            q.push(text("CMS.INFO"));
            q.extend(probes.chunks(500).map(|c| with("CMS.QUERY", c)));
        }
        "TopK-TYPE" => {
            // Not items that start with a NUL: RedisBloom 2.8.2 loads such a heap item (saved
            // cut at the NUL, so as a lone NUL) as a null pointer and segfaults when a query
            // of the same item reaches its memcmp (TOPK.QUERY / TOPK.COUNT k "\0" after a
            // reload); rsbloom answers (diff: no-crash, topk-whole-items).
            let probes: Vec<Vec<u8>> = probes
                .iter()
                .filter(|p| p.first() != Some(&0))
                .cloned()
                .collect();
            q.extend(["TOPK.INFO", "TOPK.LIST", "TOPK.LIST WITHCOUNT"].map(text));
            q.extend(probes.chunks(500).map(|c| with("TOPK.QUERY", c)));
            q.extend(probes.chunks(500).map(|c| with("TOPK.COUNT", c)));
        }
        "TDIS-TYPE" => {
            q.extend(
                [
                    "TDIGEST.INFO",
                    "TDIGEST.MIN",
                    "TDIGEST.MAX",
                    "TDIGEST.QUANTILE 0 0.01 0.1 0.25 0.5 0.75 0.9 0.99 1",
                    &format!("TDIGEST.CDF {TD_VALUES}"),
                    &format!("TDIGEST.RANK {TD_VALUES}"),
                    &format!("TDIGEST.REVRANK {TD_VALUES}"),
                    "TDIGEST.BYRANK 0 1 2 3 5 10 50 100 1000 100000",
                    "TDIGEST.BYREVRANK 0 1 2 3 5 10 50 100 1000 100000",
                    "TDIGEST.TRIMMED_MEAN 0 1",
                    "TDIGEST.TRIMMED_MEAN 0.1 0.9",
                    "TDIGEST.TRIMMED_MEAN 0.25 0.75",
                    "TDIGEST.TRIMMED_MEAN 0 0.5",
                    "TDIGEST.INFO",
                ]
                .map(text),
            );
        }
        other => panic!("no queries for type {other}"),
    }
    q
}

/// A module value's fields as the module reads them (strings decompressed), for comparisons
/// that must look inside one.
#[derive(Clone, Debug, PartialEq)]
enum Field {
    U(u64),
    D(u64),
    S(Vec<u8>),
}

fn fields(payload: &[u8]) -> Result<Vec<Field>, String> {
    let mut c = Cursor::new(payload);
    c.take(10)?;
    let mut out = Vec::new();
    loop {
        let op = *payload.get(c.pos).ok_or("no module EOF")?;
        out.push(match op {
            0 => return Ok(out),
            2 => Field::U(c.unsigned()?),
            4 => Field::D(c.double()?.to_bits()),
            5 => Field::S(c.string_bytes()?),
            other => return Err(format!("opcode {other} at {}", c.pos)),
        });
    }
}

/// A Top-K value with every heap entry's item pointer but the first zeroed: what rsbloom
/// writes for the RedisBloom value it loaded (entry 0's pointer it keeps as its decay
/// position).
fn topk_masked(payload: &[u8]) -> Result<Vec<Field>, String> {
    let mut f = fields(payload)?;
    let Some(Field::S(heap)) = f.get_mut(5) else {
        return Err("no heap string".into());
    };
    for entry in heap.chunks_mut(24).skip(1) {
        entry[8..16].fill(0);
    }
    Ok(f)
}

/// What a value of type `ty` shows of the states the brief asks for, on RedisBloom
/// (`payload` its DUMP).
fn features(c: &mut Conn, ty: &str, key: &str, payload: &[u8]) -> Vec<&'static str> {
    let mut out = Vec::new();
    let info = |c: &mut Conn, cmd: &str| -> Vec<(String, Reply)> {
        match resp::parse(&c.send(&[b(cmd), b(key)]).expect("RedisBloom answers")) {
            Reply::Array(v) => v
                .chunks(2)
                .map(|p| (render_name(&p[0]), p[1].clone()))
                .collect(),
            other => panic!("{cmd} {key} answered {other:?}"),
        }
    };
    let int = |fields: &[(String, Reply)], name: &str| {
        fields
            .iter()
            .find(|f| f.0 == name)
            .map_or(-1, |f| match &f.1 {
                Reply::Int(n) => n.parse().unwrap_or(-1),
                _ => -1,
            })
    };
    match ty {
        "MBbloom--" => {
            let f = info(c, "BF.INFO");
            if int(&f, "Number of filters") > 1 {
                out.push("BF of several layers");
            }
            if f.iter()
                .any(|f| f.0 == "Expansion rate" && f.1 == Reply::Nil)
            {
                out.push("BF non-scaling");
            }
        }
        "MBbloomCF" => {
            let f = info(c, "CF.INFO");
            if int(&f, "Number of filters") > 1 {
                out.push("CF of several sub-filters");
            }
            if int(&f, "Number of items deleted") > 0 {
                out.push("CF with deletes");
            }
        }
        "CMSk-TYPE" if int(&info(c, "CMS.INFO"), "count") > 0 => out.push("CMS counted"),
        "TopK-TYPE" => {
            let list = resp::parse(&c.send(&[b("TOPK.LIST"), b(key)]).expect("answers"));
            if matches!(list, Reply::Array(v) if !v.is_empty()) {
                out.push("TOPK with items");
            }
        }
        "TDIS-TYPE" => {
            let (merged, unmerged, zero) = td_shape(payload).expect("a t-digest value");
            match (merged, unmerged) {
                (0, 0) => out.push("TDIGEST empty"),
                (0, 1) => out.push("TDIGEST one value (RedisBloom's form)"),
                _ => out.push("TDIGEST merged"),
            }
            if zero {
                out.push("TDIGEST node of weight 0");
            }
        }
        _ => {}
    }
    out
}

/// A t-digest value's merged and unmerged node counts, and whether a node weighs 0 (what
/// RedisBloom makes of its own one-value form when it adds to it after a load).
fn td_shape(payload: &[u8]) -> Option<(usize, u64, bool)> {
    let f = fields(payload).ok()?;
    let (Some(Field::U(merged)), Some(Field::U(unmerged))) = (f.get(4), f.get(5)) else {
        return None;
    };
    let merged = *merged as usize;
    let weights = f.get(9 + merged..9 + 2 * merged)?;
    Some((
        merged,
        *unmerged,
        weights.contains(&Field::D(0f64.to_bits())),
    ))
}

fn render_name(r: &Reply) -> String {
    match r {
        Reply::Simple(s) => s.clone(),
        Reply::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        other => format!("{other:?}"),
    }
}

/// A difference found, for the report.
struct Finding {
    path: &'static str,
    key: String,
    what: String,
}

/// What one run found and counted.
#[derive(Default)]
struct Tally {
    findings: Vec<Finding>,
    /// Values loaded into rsbloom, per path and type.
    loaded: BTreeMap<(&'static str, String), usize>,
    /// Listed differences met, per rule.
    listed: BTreeMap<String, usize>,
    answers: usize,
    dumps_equal: usize,
}

/// The reference (RedisBloom) and rsbloom, each holding the values one path gave it.
struct Pair {
    path: &'static str,
    rb: Server,
    rs: Option<Server>,
    /// The keys both hold.
    keys: Vec<String>,
}

/// Compares every key of `keys` on the pair: TYPE, the queries, the DUMP (a Top-K's against
/// the payload the original server wrote, `payloads`, whose first heap pointer rsbloom keeps).
fn compare(
    pair: &Pair,
    payloads: &BTreeMap<&String, &Vec<u8>>,
    probes: &[Vec<u8>],
    rules: &Rules,
    t: &mut Tally,
) {
    let path = pair.path;
    let Some(rs) = &pair.rs else { return };
    let (mut rb, mut rs) = (RawConn::connect(pair.rb.port), RawConn::connect(rs.port));
    for key in &pair.keys {
        let original = payloads[key];
        let ty = render(&rb.send(&[b"TYPE".as_slice(), key.as_bytes()]));
        let Some(ty) = ty.strip_prefix('+').filter(|t| TYPES.contains(t)) else {
            panic!("{path}: RedisBloom's {key} is of type {ty}");
        };
        let got = render(&rs.send(&[b"TYPE".as_slice(), key.as_bytes()]));
        if got != format!("+{ty}") {
            // RESTORE refusals are reported where they happen.
            if got != "+none" || path != "DUMP" {
                t.findings.push(Finding {
                    path,
                    key: key.clone(),
                    what: format!("TYPE: rsbloom {got}, RedisBloom +{ty}"),
                });
            }
            continue;
        }
        *t.loaded.entry((path, ty.to_string())).or_default() += 1;
        let qs = queries(ty, key, probes);
        // RedisBloom 2.8's t-digest memory figure raised to 8.6+'s (rule tdigest-memory-usage).
        let want: Vec<Vec<u8>> = rb
            .pipeline(&qs)
            .iter()
            .map(|r| common::tdigest_memory::info_as_8_6(r))
            .collect();
        let have = rs.pipeline(&qs);
        for ((q, w), h) in qs.iter().zip(&want).zip(&have) {
            t.answers += 1;
            if w == h {
                continue;
            }
            let (args, wr, hr) = (show_args(q), render(w), render(h));
            match rules.classify(&args, &wr, &hr) {
                Some(rule) => *t.listed.entry(rule.id.clone()).or_default() += 1,
                None => t.findings.push(Finding {
                    path,
                    key: key.clone(),
                    what: format!(
                        "`{}`: RedisBloom {}, rsbloom {}",
                        resp::clip(&args, 160),
                        resp::clip(&wr, 300),
                        resp::clip(&hr, 300)
                    ),
                }),
            }
        }
        let dump = [b"DUMP".as_slice(), key.as_bytes()];
        let (w, h) = (rb.send(&dump), rs.send(&dump));
        let (Reply::Bulk(wp), Reply::Bulk(hp)) = (resp::parse(&w), resp::parse(&h)) else {
            panic!(
                "{path}: DUMP {key} answered {} / {}",
                render(&w),
                render(&h)
            );
        };
        let same = if ty == "TopK-TYPE" {
            topk_masked(original) == fields(&hp)
        } else {
            dump_body(&wp) == dump_body(&hp)
        };
        if same {
            t.dumps_equal += 1;
            continue;
        }
        let args = format!("DUMP {key}");
        match rules.classify(&args, &render(&w), &render(&h)) {
            Some(rule) if ty != "TopK-TYPE" => *t.listed.entry(rule.id.clone()).or_default() += 1,
            _ => t.findings.push(Finding {
                path,
                key: key.clone(),
                what: format!(
                    "DUMP bytes differ: RedisBloom {}, rsbloom {}",
                    common::redisbloom::hex(&wp),
                    common::redisbloom::hex(&hp)
                ),
            }),
        }
    }
}

/// RedisBloom's RDB (SAVE) and its AOF rewrite without the RDB preamble (`first`: the
/// rewrite that turning the AOF on starts), of what it holds now.
fn redisbloom_files(rb: &Server, first: bool) -> (Vec<u8>, Vec<u8>) {
    let mut c = rb.conn();
    common::expect_ok(&mut c, &["SAVE"]);
    let rdb = fs::read(rb.dir().join("dump.rdb")).expect("RedisBloom's dump.rdb");
    if first {
        common::expect_ok(&mut c, &["CONFIG", "SET", "aof-use-rdb-preamble", "no"]);
        common::expect_ok(&mut c, &["CONFIG", "SET", "appendonly", "yes"]);
    } else {
        let started = common::raw(&mut c, &["BGREWRITEAOF"]);
        assert!(
            common::err_of(&started).is_none(),
            "BGREWRITEAOF: {started:?}"
        );
    }
    wait_for_aof_rewrite(&mut c);
    let (_, aof) = rb.aof_base();
    assert!(aof.starts_with(b"*"), "the AOF rewrite has an RDB preamble");
    (rdb, aof)
}

/// RedisBloom and rsbloom started on a file RedisBloom wrote (`path` RDB or AOF) that holds
/// `keys`; rsbloom refusing the file (the whole of it) is a finding.
fn file_pair(path: &'static str, file: &[u8], keys: &[String], t: &mut Tally) -> Pair {
    let aof = path == "AOF";
    let opts = || {
        let mut opts = redis74();
        if aof {
            opts.server_args = vec!["--appendonly".into(), "yes".into()];
        }
        opts
    };
    let place = |dir: &Path| {
        if aof {
            let d = dir.join("appendonlydir");
            fs::create_dir(&d).expect("appendonlydir");
            fs::write(d.join("appendonly.aof.1.base.aof"), file).expect("write the AOF");
            fs::write(
                d.join("appendonly.aof.manifest"),
                "file appendonly.aof.1.base.aof seq 1 type b\n",
            )
            .expect("write the manifest");
        } else {
            fs::write(dir.join("dump.rdb"), file).expect("write dump.rdb");
        }
    };
    let rs = match Server::try_start_prepared(opts(), place) {
        Ok(s) => Some(s),
        Err(log) => {
            let lines: Vec<&str> = log
                .lines()
                .filter(|l| l.contains(" # ") || l.contains("<bf>"))
                .take(12)
                .collect();
            t.findings.push(Finding {
                path,
                key: format!("({} keys)", keys.len()),
                what: format!(
                    "rsbloom refused RedisBloom's file; its log:\n    {}",
                    lines.join("\n    ")
                ),
            });
            None
        }
    };
    Pair {
        path,
        rb: Server::start_prepared(opts().redisbloom(), place),
        rs,
        keys: keys.to_vec(),
    }
}

#[test]
fn rsbloom_loads_every_state_redisbloom_writes() {
    let t0 = Instant::now();
    let rules = Rules::load();
    let server = Server::start_with(redis74().redisbloom());
    let conn = Conn::connect(server.port, false, Duration::from_secs(60)).expect("connect");
    let mut d = Driver {
        server,
        conn,
        seed: 0,
        step: 0,
        log: BTreeMap::new(),
        seen: HashSet::new(),
        archived: 0,
        done: BTreeMap::new(),
    };
    let mut made = 0;
    for &seed in SEEDS {
        made = made.max(d.run(seed));
    }
    let generated = t0.elapsed();
    let probes = probes(made);

    // Every value RedisBloom holds, and the files it writes.
    let rb = &d.server;
    let mut keys: Vec<String> = match resp::parse(&d.conn.send(&words("KEYS *")).unwrap()) {
        Reply::Array(v) => v
            .into_iter()
            .map(|r| match r {
                Reply::Bulk(k) => String::from_utf8(k).expect("key name"),
                other => panic!("KEYS answered {other:?}"),
            })
            .collect(),
        other => panic!("KEYS answered {other:?}"),
    };
    keys.sort();
    let payloads: Vec<Vec<u8>> = keys
        .iter()
        .map(
            |k| match resp::parse(&d.conn.send(&[b("DUMP"), b(k)]).unwrap()) {
                Reply::Bulk(p) => p,
                other => panic!("DUMP {k} answered {other:?}"),
            },
        )
        .collect();
    let mut states: BTreeMap<&str, usize> = BTreeMap::new();
    for (key, payload) in keys.iter().zip(&payloads) {
        let ty = render(&d.conn.send(&[b("TYPE"), b(key)]).unwrap());
        let ty = ty.trim_start_matches('+');
        for f in features(&mut d.conn, ty, key, payload) {
            *states.entry(f).or_default() += 1;
        }
    }
    let mut t = Tally::default();
    // DUMP: every payload RESTOREd into a fresh RedisBloom and a fresh rsbloom.
    let dump_pair = Pair {
        path: "DUMP",
        rb: Server::start_with(redis74().redisbloom()),
        rs: Some(Server::start_with(redis74())),
        keys: keys.clone(),
    };
    let mut refused = Vec::new();
    {
        let mut rbc = RawConn::connect(dump_pair.rb.port);
        let mut rsc = RawConn::connect(dump_pair.rs.as_ref().unwrap().port);
        for (key, payload) in keys.iter().zip(&payloads) {
            let cmd = [b"RESTORE".as_slice(), key.as_bytes(), b"0", payload];
            assert_eq!(
                render(&rbc.send(&cmd)),
                "+OK",
                "RedisBloom's RESTORE of {key}"
            );
            let got = render(&rsc.send(&cmd));
            if got != "+OK" {
                refused.push(key.clone());
                t.findings.push(Finding {
                    path: "DUMP",
                    key: key.clone(),
                    what: format!(
                        "RESTORE refused ({got}){}; RedisBloom's payload {}",
                        match td_shape(payload) {
                            Some((_, _, true)) => " [a t-digest node of weight 0]",
                            _ => "",
                        },
                        common::redisbloom::hex(payload)
                    ),
                });
            }
        }
    }
    // RDB and AOF: the files of all values; should rsbloom refuse one (a whole file is then
    // refused), the files again without the values RESTORE refused, so the rest is compared.
    let (rdb, aof) = redisbloom_files(rb, true);
    let mut rdb_pair = file_pair("RDB", &rdb, &keys, &mut t);
    let mut aof_pair = file_pair("AOF", &aof, &keys, &mut t);
    if (rdb_pair.rs.is_none() || aof_pair.rs.is_none()) && !refused.is_empty() {
        let mut del = vec![b("DEL")];
        del.extend(refused.iter().map(|k| b(k)));
        d.conn.send(&del).expect("DEL");
        let rest: Vec<String> = keys
            .iter()
            .filter(|k| !refused.contains(k))
            .cloned()
            .collect();
        let (rdb, aof) = redisbloom_files(rb, false);
        if rdb_pair.rs.is_none() {
            rdb_pair = file_pair("RDB", &rdb, &rest, &mut t);
        }
        if aof_pair.rs.is_none() {
            aof_pair = file_pair("AOF", &aof, &rest, &mut t);
        }
    }
    let originals: BTreeMap<&String, &Vec<u8>> = keys.iter().zip(&payloads).collect();
    for pair in [&dump_pair, &rdb_pair, &aof_pair] {
        compare(pair, &originals, &probes, &rules, &mut t);
    }

    // The report: counts, then each finding with the commands that made its key.
    println!(
        "seeds {SEEDS:x?}, {STEPS} steps each ({} commands, {} values archived), generated in \
         {:.1} s; {} keys, {} probes; compared in {:.1} s",
        d.log.values().map(Vec::len).sum::<usize>(),
        d.archived,
        generated.as_secs_f64(),
        keys.len(),
        probes.len(),
        (t0.elapsed() - generated).as_secs_f64()
    );
    for ((path, ty), n) in &t.loaded {
        println!("loaded via {path}: {ty} {n}");
    }
    println!("states among the values: {states:?}");
    println!("commands RedisBloom took: {:?}", d.done);
    println!(
        "{} answers compared, {} DUMPs equal; listed differences: {:?}",
        t.answers, t.dumps_equal, t.listed
    );
    for f in &t.findings {
        println!("\n[{}] {}: {}", f.path, f.key, f.what);
        if let Some((seed, step, name)) = origin_of(&f.key) {
            d.seed = seed;
            println!(
                "  made by (seed {seed:#x}):\n{}",
                d.history(Some((&name, step)), 40)
            );
        }
    }
    assert!(
        t.findings.is_empty(),
        "{} findings, above",
        t.findings.len()
    );
    for state in [
        "BF of several layers",
        "BF non-scaling",
        "CF of several sub-filters",
        "CF with deletes",
        "CMS counted",
        "TOPK with items",
        "TDIGEST one value (RedisBloom's form)",
        "TDIGEST node of weight 0",
        "TDIGEST merged",
    ] {
        assert!(states.contains_key(state), "no value is a {state}");
    }
    for cmd in [
        "BF.LOADCHUNK",
        "CF.LOADCHUNK",
        "CF.DEL",
        "CMS.MERGE WEIGHTS",
        "TDIGEST.MERGE",
        "TDIGEST.RESET",
        "RESTORE",
        "DEBUG",
    ] {
        assert!(d.done.contains_key(cmd), "RedisBloom never took a {cmd}");
    }
    for ty in TYPES {
        for path in ["DUMP", "RDB", "AOF"] {
            let n = t.loaded.get(&(path, ty.to_string())).copied().unwrap_or(0);
            assert!(n > 0, "no {ty} value loaded via {path}");
        }
    }
}
