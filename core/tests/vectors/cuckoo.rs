//! The pure cuckoo core against ground truth from the real RedisBloom v2.8.20
//! (tests/vectors/redisbloom-cf, see its README). No server: every configuration's
//! `commands.tsv` is replayed against the core, with the command arguments interpreted here
//! as RedisBloom interprets them, and every reply the core decides is compared with the
//! recorded one (as values: integers, booleans, arrays, texts, bytes). Then the final filter
//! against the configuration's SCANDUMP, DUMP value, queries, CF.INFO, CF.DEBUG and MEMORY
//! USAGE; and the filters the decoders build from that DUMP value and that SCANDUMP.

use std::collections::HashMap;

use rsbloom_core::cuckoo::batch::hash_all;
use rsbloom_core::cuckoo::codec::rdb;
use rsbloom_core::cuckoo::codec::scandump::{self, Load};
use rsbloom_core::cuckoo::filter::{
    DEFAULT_BUCKET_SIZE, DEFAULT_EXPANSION, DEFAULT_MAX_ITERATIONS,
};
use rsbloom_core::cuckoo::meta::MAX_FILTERS;
use rsbloom_core::cuckoo::{CuckooFilter, Limits};
use rsbloom_core::error::Error;
use rsbloom_core::fields::{FieldSink, FieldSource, Reader, Writer};
use rsbloom_core::testkit::files::{self, unescape, unhex, REDISBLOOM_CF_CONFIGS as CONFIGS};
use rsbloom_core::testkit::rdb::{Cursor, OP_EOF, OP_STRING, OP_UINT};
use serde_json::Value;

const SET: &str = "redisbloom-cf";
const NO_LIMIT: u64 = u64::MAX;
/// RedisBloom's `CF_MAX_EXPANSIONS`, checked once per add-type command.
const MAX_EXPANSIONS: u64 = 32;
/// Growth under RedisBloom's own bounds only: it does not repeat the check above per item.
const REDISBLOOM_GROWTH: Limits = Limits {
    bytes: NO_LIMIT,
    max_expansions: MAX_FILTERS,
};

/// The CF commands of v2.8.20, as their arity errors name them.
const COMMANDS: [&str; 14] = [
    "cf.reserve",
    "cf.add",
    "cf.addnx",
    "cf.insert",
    "cf.insertnx",
    "cf.exists",
    "cf.mexists",
    "cf.count",
    "cf.del",
    "cf.compact",
    "cf.scandump",
    "cf.loadchunk",
    "cf.info",
    "cf.debug",
];

/// Replies where rsbloom differs from RedisBloom on purpose, with the reason.
const DEVIATIONS: [(&str, u64, &str); 3] = [
    (
        "loadchunk",
        31,
        "a chunk past the end is refused, not folded into the last sub-filter",
    ),
    ("loadchunk", 32, "SCANDUMP after that refused chunk"),
    (
        "loadchunk",
        33,
        "the chunk that undid it, refused the same way",
    ),
];

fn read(name: &str) -> String {
    files::read(SET, name)
}

/// A reply as values: RESP2 and RESP3 nulls are one `Null`.
#[derive(Debug, Clone, PartialEq)]
enum Resp {
    Simple(String),
    Error(String),
    Int(i64),
    Bool(bool),
    Bulk(Vec<u8>),
    Null,
    Array(Vec<Resp>),
    Map(Vec<(Resp, Resp)>),
}

fn parse_resp(bytes: &[u8]) -> Resp {
    let mut pos = 0;
    let r = parse_at(bytes, &mut pos);
    assert_eq!(pos, bytes.len(), "trailing reply bytes");
    r
}

fn parse_at(b: &[u8], pos: &mut usize) -> Resp {
    let line_end = (*pos..b.len() - 1)
        .find(|&i| &b[i..i + 2] == b"\r\n")
        .expect("CRLF");
    let kind = b[*pos];
    let line = String::from_utf8_lossy(&b[*pos + 1..line_end]).into_owned();
    *pos = line_end + 2;
    match kind {
        b'+' => Resp::Simple(line),
        b'-' => Resp::Error(line),
        b':' => Resp::Int(line.parse().unwrap()),
        b'#' => Resp::Bool(line == "t"),
        b'_' => Resp::Null,
        b'$' if line == "-1" => Resp::Null,
        b'$' => {
            let len: usize = line.parse().unwrap();
            let data = b[*pos..*pos + len].to_vec();
            *pos += len + 2;
            Resp::Bulk(data)
        }
        b'*' => Resp::Array(
            (0..line.parse::<usize>().unwrap())
                .map(|_| parse_at(b, pos))
                .collect(),
        ),
        b'%' => Resp::Map(
            (0..line.parse::<usize>().unwrap())
                .map(|_| (parse_at(b, pos), parse_at(b, pos)))
                .collect(),
        ),
        other => panic!("unknown reply type {}", other as char),
    }
}

/// Redis's `string2ll`: no sign but `-`, no leading zeros, no spaces, no `-0`.
fn strict_int(arg: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(arg).ok()?;
    let digits = s.strip_prefix('-').unwrap_or(s);
    let canonical = !digits.is_empty()
        && digits.bytes().all(|c| c.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && s != "-0";
    if canonical {
        s.parse().ok()
    } else {
        None
    }
}

/// A text RedisBloom 2.8 replied where rsbloom follows RedisBloom 8's wording (listed in
/// docs/differences.txt); this model replays 2.8's sessions, so it answers 2.8's text.
fn rb28(text: &str) -> Resp {
    Resp::Error(text.into())
}

fn err(e: Error) -> Resp {
    Resp::Error(e.to_string())
}

enum Key {
    Cf(Box<CuckooFilter>),
    Other,
}

/// What a replay found.
#[derive(Default)]
struct Tally {
    compared: u64,
    skipped: u64,
    mismatches: Vec<(u64, String)>,
}

/// The keyspace, with RedisBloom's CF.* semantics on top of the core.
struct Server {
    keys: HashMap<Vec<u8>, Key>,
}

impl Server {
    fn cf(&mut self, key: &[u8]) -> Result<Option<&mut CuckooFilter>, Resp> {
        match self.keys.get_mut(key) {
            Some(Key::Cf(f)) => Ok(Some(f)),
            Some(Key::Other) => Err(err(Error::WrongType)),
            None => Ok(None),
        }
    }

    /// Runs a command; `None` for commands the core has no say in (they are skipped).
    fn run(&mut self, proto: u8, argv: &[Vec<u8>]) -> Option<Resp> {
        let name = String::from_utf8_lossy(&argv[0]).to_lowercase();
        let boolean = |b: bool| match proto {
            3 => Resp::Bool(b),
            _ => Resp::Int(b as i64),
        };
        Some(match name.as_str() {
            // CF.MADD and CF.CARD do not exist in v2.8.20: Redis answers for them.
            n if n.starts_with("cf.") && !matches!(n, "cf.madd" | "cf.card") => {
                match self.cf_command(n, proto, argv, &boolean) {
                    Ok(r) | Err(r) => r,
                }
            }
            "del" => Resp::Int(
                argv[1..]
                    .iter()
                    .filter(|k| self.keys.remove(*k).is_some())
                    .count() as i64,
            ),
            "exists" => Resp::Int(
                argv[1..]
                    .iter()
                    .filter(|k| self.keys.contains_key(*k))
                    .count() as i64,
            ),
            "set" => {
                self.keys.insert(argv[1].clone(), Key::Other);
                Resp::Simple("OK".into())
            }
            "type" => Resp::Simple(
                match self.keys.get(&argv[1]) {
                    Some(Key::Cf(_)) => "MBbloomCF",
                    Some(Key::Other) => "string",
                    None => "none",
                }
                .into(),
            ),
            "restore" => self.restore(argv),
            _ => return None,
        })
    }

    fn cf_command(
        &mut self,
        name: &str,
        proto: u8,
        argv: &[Vec<u8>],
        boolean: &dyn Fn(bool) -> Resp,
    ) -> Result<Resp, Resp> {
        let argc = argv.len();
        let arity = || {
            let cmd = COMMANDS.iter().find(|&&c| c == name).expect("a CF command");
            err(Error::WrongArity(cmd))
        };
        let ok = Resp::Simple("OK".into());
        let key = argv.get(1).cloned().unwrap_or_default();
        match name {
            "cf.reserve" => {
                if argc < 3 || argc.is_multiple_of(2) {
                    return Err(arity());
                }
                let capacity = strict_int(&argv[2]).ok_or(err(Error::InsertBadCapacity))?;
                // Each keyword anywhere in argv (the key included), the word after it.
                let option = |word: &str| {
                    (1..argc)
                        .find(|&i| argv[i].eq_ignore_ascii_case(word.as_bytes()))
                        .map(|i| argv[i + 1].clone())
                };
                let ranged =
                    |word, default, range: std::ops::RangeInclusive<i64>, bad, out| match option(
                        word,
                    ) {
                        None => Ok(default),
                        Some(v) => match strict_int(&v) {
                            None => Err(err(bad)),
                            Some(v) if !range.contains(&v) => Err(rb28(out)),
                            Some(v) => Ok(v),
                        },
                    };
                let iterations = ranged(
                    "MAXITERATIONS",
                    20,
                    1..=65535,
                    Error::CfBadMaxIterations,
                    "MAXITERATIONS: value must be an integer between 1 and 65535, inclusive.",
                )?;
                let bucket_size = ranged(
                    "BUCKETSIZE",
                    2,
                    1..=255,
                    Error::CfBadBucketSize,
                    "BUCKETSIZE: value must be an integer between 1 and 255, inclusive.",
                )?;
                let expansion = ranged(
                    "EXPANSION",
                    1,
                    0..=32768,
                    Error::CfBadExpansion,
                    "EXPANSION: value must be an integer between 0 and 32768, inclusive.",
                )?;
                if capacity < 2 * bucket_size {
                    return Err(rb28("Capacity must be at least (BucketSize * 2)"));
                }
                if self.cf(&key)?.is_some() {
                    return Err(err(Error::ItemExists));
                }
                let f = CuckooFilter::new(
                    capacity as u64,
                    bucket_size as u8,
                    iterations as u16,
                    expansion as u16,
                    NO_LIMIT,
                )
                .map_err(err)?;
                self.keys.insert(key, Key::Cf(Box::new(f)));
                Ok(ok)
            }
            "cf.add" | "cf.addnx" => {
                if argc != 3 {
                    return Err(arity());
                }
                let f = self.cf_or_create(&key, None)?;
                f.check_expansions(MAX_EXPANSIONS).map_err(err)?;
                let added = if name == "cf.add" {
                    f.add(&argv[2], &REDISBLOOM_GROWTH).map(|()| true)
                } else {
                    f.add_nx(&argv[2], &REDISBLOOM_GROWTH)
                };
                added.map(boolean).map_err(err)
            }
            "cf.insert" | "cf.insertnx" => {
                if argc < 4 {
                    return Err(arity());
                }
                let (mut capacity, mut nocreate, mut items) = (None, false, None);
                let mut i = 2;
                while i < argc {
                    match argv[i].first().map(u8::to_ascii_lowercase) {
                        Some(b'c') => {
                            let v = argv.get(i + 1).ok_or_else(arity)?;
                            let c = strict_int(v).ok_or(err(Error::InsertBadCapacity))?;
                            if c < 4 {
                                return Err(rb28("Capacity must be at least (BucketSize * 2)"));
                            }
                            capacity = Some(c as u64);
                            i += 2;
                        }
                        Some(b'n') => {
                            nocreate = true;
                            i += 1;
                        }
                        Some(b'i') => {
                            items = Some(&argv[i + 1..]);
                            break;
                        }
                        _ => return Err(err(Error::UnknownArgument)),
                    }
                }
                let items = items.filter(|i| !i.is_empty()).ok_or_else(arity)?;
                if nocreate && self.cf(&key)?.is_none() {
                    return Err(err(Error::NotFound));
                }
                let f = self.cf_or_create(&key, capacity)?;
                f.check_expansions(MAX_EXPANSIONS).map_err(err)?;
                let nx = name == "cf.insertnx";
                let hashes = hash_all(items.iter().map(Vec::as_slice));
                let mut replies = Vec::new();
                f.add_batch(&hashes, nx, &REDISBLOOM_GROWTH, true, |r| {
                    replies.push(match (nx, r, proto) {
                        (true, Ok(added), _) => Resp::Int(added as i64),
                        (_, Ok(_), 3) => Resp::Bool(true),
                        (_, Ok(_), _) => Resp::Int(1),
                        (false, Err(_), 3) => Resp::Bool(false),
                        (_, Err(_), _) => Resp::Int(-1),
                    })
                });
                Ok(Resp::Array(replies))
            }
            "cf.exists" | "cf.count" => {
                if argc != 3 {
                    return Err(arity());
                }
                let f = self.cf(&key).unwrap_or(None);
                Ok(match (name, f) {
                    ("cf.exists", f) => boolean(f.is_some_and(|f| f.exists(&argv[2]))),
                    (_, f) => Resp::Int(f.map_or(0, |f| f.count(&argv[2])) as i64),
                })
            }
            "cf.mexists" => {
                if argc < 3 {
                    return Err(arity());
                }
                let hashes = hash_all(argv[2..].iter().map(Vec::as_slice));
                let found = match self.cf(&key).unwrap_or(None) {
                    Some(f) => f.exists_batch(&hashes, true),
                    None => vec![false; hashes.len()],
                };
                Ok(Resp::Array(found.into_iter().map(boolean).collect()))
            }
            "cf.del" => {
                if argc != 3 {
                    return Err(arity());
                }
                match self.cf(&key).unwrap_or(None) {
                    Some(f) => Ok(boolean(f.delete(&argv[2]))),
                    None => Err(err(Error::CfDelNotFound)),
                }
            }
            "cf.compact" => {
                if argc != 2 {
                    return Err(arity());
                }
                match self.cf(&key).unwrap_or(None) {
                    Some(f) => {
                        f.compact(true);
                        Ok(ok)
                    }
                    None => Err(err(Error::CfCompactNotFound)),
                }
            }
            "cf.info" | "cf.debug" => {
                if argc != 2 {
                    return Err(arity());
                }
                let info = self.cf(&key)?.ok_or(err(Error::NotFound))?.info();
                if name == "cf.debug" {
                    return Ok(Resp::Bulk(info.debug_line().into_bytes()));
                }
                let pairs = info
                    .fields()
                    .map(|(n, v)| (Resp::Simple(n.into()), Resp::Int(v)));
                Ok(match proto {
                    3 => Resp::Map(pairs.to_vec()),
                    _ => Resp::Array(pairs.into_iter().flat_map(|(n, v)| [n, v]).collect()),
                })
            }
            "cf.scandump" => {
                if argc != 3 {
                    return Err(arity());
                }
                let iter = strict_int(&argv[2]).ok_or(err(Error::CfInvalidPosition))?;
                if iter < 0 {
                    return Err(err(Error::CfInvalidPosition));
                }
                let f = self.cf(&key)?.ok_or(err(Error::NotFound))?;
                let (next, data) =
                    scandump::dump_step(f, iter, scandump::MAX_CHUNK).map_err(err)?;
                Ok(Resp::Array(vec![
                    Resp::Int(next),
                    data.map_or(Resp::Null, |d| Resp::Bulk(d.into_owned())),
                ]))
            }
            "cf.loadchunk" => {
                if argc != 4 {
                    return Err(arity());
                }
                let iter = strict_int(&argv[2]).ok_or(err(Error::CfInvalidPosition))?;
                if iter == 0 {
                    return Err(err(Error::CfInvalidPosition));
                }
                let exists = self.cf(&key)?.is_some();
                if iter == 1 && exists {
                    return Err(err(Error::ItemExists));
                }
                if iter != 1 && !exists {
                    return Err(err(Error::NotFound));
                }
                match scandump::parse_load(iter, &argv[3], NO_LIMIT).map_err(err)? {
                    Load::Header(meta) => {
                        let f = CuckooFilter::from_meta(&meta, NO_LIMIT).map_err(err)?;
                        self.keys.insert(key, Key::Cf(Box::new(f)));
                    }
                    Load::ShardHeader(..) => return Err(Resp::Error("unmodelled shard".into())),
                    Load::Data { offset, data } => {
                        let f = self.cf(&key)?.ok_or(err(Error::NotFound))?;
                        f.write_chunk(offset, data).map_err(err)?;
                    }
                }
                Ok(ok)
            }
            _ => Err(Resp::Error(format!("unmodelled {name}"))),
        }
    }

    /// The key's filter, created with RedisBloom's defaults (and `capacity`) if missing.
    fn cf_or_create(
        &mut self,
        key: &[u8],
        capacity: Option<u64>,
    ) -> Result<&mut CuckooFilter, Resp> {
        if self.cf(key)?.is_none() {
            let f = CuckooFilter::new(
                capacity.unwrap_or(1024),
                DEFAULT_BUCKET_SIZE,
                DEFAULT_MAX_ITERATIONS,
                DEFAULT_EXPANSION,
                NO_LIMIT,
            )
            .map_err(err)?;
            self.keys.insert(key.to_vec(), Key::Cf(Box::new(f)));
        }
        Ok(self.cf(key)?.expect("just created"))
    }

    fn restore(&mut self, argv: &[Vec<u8>]) -> Resp {
        let replace = argv
            .get(4)
            .is_some_and(|a| a.eq_ignore_ascii_case(b"REPLACE"));
        if self.keys.contains_key(&argv[1]) && !replace {
            return Resp::Error("BUSYKEY Target key name already exists.".into());
        }
        match load_payload(&argv[3]) {
            Some(f) => {
                self.keys.insert(argv[1].clone(), Key::Cf(Box::new(f)));
                Resp::Simple("OK".into())
            }
            None => Resp::Error("ERR Bad data format".into()),
        }
    }
}

/// One field of a module value.
#[derive(Debug, PartialEq)]
enum Field {
    U(u64),
    S(Vec<u8>),
}

/// The encoding version and the fields of a DUMP payload of `MBbloomCF`, LZF strings
/// decompressed (what `RedisModule_Load*` hands the module).
fn payload_fields(payload: &[u8]) -> Result<(u64, Vec<Field>), String> {
    let id = u64::from_be_bytes(payload[2..10].try_into().unwrap());
    let mut c = Cursor::new(payload);
    c.module_head(id, id & 1023)?;
    let mut fields = Vec::new();
    loop {
        let save = c.pos;
        let (op, _) = c.len()?;
        c.pos = save;
        match op as u8 {
            OP_EOF => break,
            OP_UINT => fields.push(Field::U(c.unsigned()?)),
            OP_STRING => fields.push(Field::S(c.string_bytes()?)),
            other => return Err(format!("opcode {other}")),
        }
    }
    Ok((id & 1023, fields))
}

/// The fields in the byte form the core's decoders read.
fn wire(fields: &[Field]) -> Vec<u8> {
    let mut w = Writer::default();
    for f in fields {
        match f {
            Field::U(v) => w.put_u64(*v),
            Field::S(s) => w.put_bytes(s),
        }
    }
    w.0
}

/// A filter's RDB value as fields.
fn value_fields(f: &CuckooFilter) -> Vec<Field> {
    let mut w = Writer::default();
    rdb::save(f, &mut w);
    let mut r = Reader(&w.0);
    let mut fields = Vec::new();
    // Seven counters, then (buckets, slots) pairs.
    for _ in 0..7 {
        fields.push(Field::U(r.get_u64().unwrap()));
    }
    while !r.rest().is_empty() {
        fields.push(Field::U(r.get_u64().unwrap()));
        r.with_bytes(&mut |b| {
            fields.push(Field::S(b.to_vec()));
            Ok(())
        })
        .unwrap();
    }
    fields
}

/// RESTORE through the core's decoder. Legacy payloads (encoding versions 0-3, which the
/// core refuses) are first rewritten here the way RedisBloom reads them: bucket size 2, 20
/// iterations, expansion 1, no deletes, every sub-filter of `numBuckets` buckets.
fn load_payload(payload: &[u8]) -> Option<CuckooFilter> {
    let (encver, fields) = payload_fields(payload).ok()?;
    let fields = match (encver, fields.as_slice()) {
        (0..=3, [Field::U(nf), Field::U(nb), Field::U(items), rest @ ..]) => {
            let mut v4 = vec![
                Field::U(*nf),
                Field::U(*nb),
                Field::U(*items),
                Field::U(0),
                Field::U(2),
                Field::U(20),
                Field::U(1),
            ];
            for s in rest {
                match s {
                    Field::S(s) => v4.extend([Field::U(*nb), Field::S(s.clone())]),
                    Field::U(_) => return None,
                }
            }
            v4
        }
        (4.., _) => fields,
        _ => return None,
    };
    let bytes = wire(&fields);
    let mut reader = Reader(&bytes);
    // Rewritten legacy values are version 4 now; other versions go to the core as they are.
    let version = if encver <= 3 { 4 } else { encver as i32 };
    let f = rdb::load(&mut reader, version, NO_LIMIT).ok()?;
    // Redis wants the module's EOF right after the value.
    reader.rest().is_empty().then_some(f)
}

fn is_deviation(name: &str, seq: u64) -> bool {
    DEVIATIONS.iter().any(|&(n, s, _)| n == name && s == seq)
}

/// Replays a configuration's commands; returns the keyspace and what was compared.
fn replay(name: &str) -> (Server, Tally) {
    let mut server = Server {
        keys: HashMap::new(),
    };
    let mut tally = Tally::default();
    for line in read(&format!("{name}.commands.tsv")).lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let seq: u64 = cols[0].parse().unwrap();
        let proto: u8 = cols[1].parse().unwrap();
        let expected = parse_resp(&unescape(cols[2]));
        let argv: Vec<Vec<u8>> = cols[3..].iter().map(|a| unescape(a)).collect();
        let command = String::from_utf8_lossy(&argv[0]).to_lowercase();
        if command == "dump" {
            // DUMP: the value's fields, not Redis's framing and compression.
            let Resp::Bulk(payload) = &expected else {
                panic!("{name} {seq}: DUMP reply {expected:?}");
            };
            let want = payload_fields(payload).unwrap().1;
            let got = match server.cf(&argv[1]) {
                Ok(Some(f)) => value_fields(f),
                _ => Vec::new(),
            };
            tally.compared += 1;
            if got != want {
                tally.mismatches.push((seq, "DUMP value differs".into()));
            }
            continue;
        }
        let Some(got) = server.run(proto, &argv) else {
            tally.skipped += 1;
            continue;
        };
        tally.compared += 1;
        if got != expected {
            let shown = |r: &Resp| format!("{r:?}").chars().take(300).collect::<String>();
            tally.mismatches.push((
                seq,
                format!("expected {} got {}", shown(&expected), shown(&got)),
            ));
        }
    }
    (server, tally)
}

/// `(iterator, data)` per SCANDUMP step, `None` for the final null.
fn scandump_lines(name: &str) -> Vec<(i64, Option<Vec<u8>>)> {
    read(&format!("{name}.scandump.tsv"))
        .lines()
        .map(|l| {
            let (it, hex) = l.split_once('\t').expect("tab");
            let it: i64 = it.parse().unwrap();
            (it, (it != 0).then(|| unhex(hex)))
        })
        .collect()
}

fn dump(f: &CuckooFilter) -> Vec<(i64, Option<Vec<u8>>)> {
    let mut steps = Vec::new();
    let mut iter = 0;
    loop {
        let (next, data) = scandump::dump_step(f, iter, scandump::MAX_CHUNK).unwrap();
        steps.push((next, data.map(|d| d.into_owned())));
        if next == 0 {
            return steps;
        }
        iter = next;
    }
}

/// A filter rebuilt from SCANDUMP lines through the LOADCHUNK parser.
fn load_scandump(steps: &[(i64, Option<Vec<u8>>)]) -> Option<CuckooFilter> {
    let mut filter = None;
    for (iter, data) in steps {
        let Some(data) = data else { continue };
        match scandump::parse_load(*iter, data, NO_LIMIT).expect("chunk accepted") {
            Load::Header(meta) => filter = Some(CuckooFilter::from_meta(&meta, NO_LIMIT).unwrap()),
            Load::ShardHeader(..) => panic!("RedisBloom sends no shard header"),
            Load::Data { offset, data } => {
                let f = filter.as_mut().expect("header first");
                f.write_chunk(offset, data).expect("chunk fits")
            }
        }
    }
    filter
}

/// Wrong answers to the `queries.tsv` lines, and the number of lines.
fn wrong_queries(name: &str, f: &CuckooFilter) -> (u64, u64) {
    let (mut wrong, mut lines) = (0, 0);
    for line in read(&format!("{name}.queries.tsv")).lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let item = unescape(cols[1]);
        let exists = cols[2] == "1";
        let count: u64 = cols[3].parse().unwrap();
        wrong += (f.exists(&item) != exists || f.count(&item) != count) as u64;
        lines += 1;
    }
    (wrong, lines)
}

/// Redis's own share of `MEMORY USAGE` for a key of this name length, as measured for
/// these runs (README section 6).
fn key_overhead(name_len: usize) -> u64 {
    match name_len {
        1..=6 => 32,
        7..=13 => 40,
        _ => panic!("no measured overhead for {name_len}-byte names"),
    }
}

#[test]
fn replays_match_redisbloom() {
    let mut report = Vec::new();
    let mut total = (0, 0, 0, 0, 0);
    for name in CONFIGS {
        let (mut server, tally) = replay(name);
        let unexpected: Vec<_> = tally
            .mismatches
            .iter()
            .filter(|(seq, _)| !is_deviation(name, *seq))
            .collect();
        assert!(
            unexpected.is_empty(),
            "{name}: {} replies differ:\n{}",
            unexpected.len(),
            unexpected
                .iter()
                .map(|(s, m)| format!("  line {s}: {m}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        let deviations = tally.mismatches.len();
        assert_eq!(
            deviations,
            DEVIATIONS.iter().filter(|d| d.0 == name).count(),
            "{name}: a documented deviation no longer shows"
        );
        let Ok(Some(f)) = server.cf(name.as_bytes()) else {
            panic!("{name}: no filter at the end");
        };
        let f = f.clone();

        // SCANDUMP, byte for byte.
        let steps = scandump_lines(name);
        assert_eq!(dump(&f), steps, "{name}: SCANDUMP differs");
        let dumped: usize = steps
            .iter()
            .filter_map(|s| s.1.as_ref())
            .map(Vec::len)
            .sum();

        // The DUMP value, field by field (slots after LZF decompression).
        let payload = files::read_bytes(SET, &format!("{name}.dump.bin"));
        let (encver, fields) = payload_fields(&payload).unwrap();
        assert_eq!(encver, 4, "{name}");
        assert_eq!(value_fields(&f), fields, "{name}: RDB value differs");

        // Queries, CF.INFO, CF.DEBUG, MEMORY USAGE.
        let (wrong, queries) = wrong_queries(name, &f);
        assert_eq!(
            wrong, 0,
            "{name}: {wrong} of {queries} queries answered differently"
        );
        let info: Value = serde_json::from_str(&read(&format!("{name}.info.json"))).unwrap();
        for (field, value) in f.info().fields() {
            assert_eq!(
                Some(value),
                info["cf_info"][field].as_i64(),
                "{name}: CF.INFO {field}"
            );
        }
        assert_eq!(
            Some(f.info().debug_line().as_str()),
            info["cf_debug"].as_str(),
            "{name}: CF.DEBUG"
        );
        assert_eq!(
            Some(f.memory_bytes() + key_overhead(name.len())),
            info["memory_usage"].as_u64(),
            "{name}: MEMORY USAGE"
        );

        // The decoders: the DUMP value and the SCANDUMP give the same filter.
        let restored = load_payload(&payload).expect("DUMP value accepted");
        assert_eq!(restored, f, "{name}: DUMP value decodes to another filter");
        assert_eq!(wrong_queries(name, &restored).0, 0, "{name}: restored");
        match load_scandump(&steps) {
            Some(loaded) => {
                assert_eq!(loaded, f, "{name}: SCANDUMP loads to another filter");
                assert_eq!(wrong_queries(name, &loaded).0, 0, "{name}: loaded");
            }
            // A filter that counts no items has no SCANDUMP (RedisBloom's `empty`).
            None => assert_eq!(f.items(), 0, "{name}: SCANDUMP without a header"),
        }
        report.push(format!(
            "{name:12} {:5} replies compared, {:2} skipped, {} deviations; {} SCANDUMP steps \
             ({dumped} bytes), {} value fields, {queries} queries: all equal",
            tally.compared,
            tally.skipped,
            deviations,
            steps.len(),
            fields.len(),
        ));
        total.0 += tally.compared;
        total.1 += tally.skipped;
        total.2 += deviations;
        total.3 += dumped;
        total.4 += queries;
    }
    println!("{}", report.join("\n"));
    println!(
        "17 configurations: {} replies compared ({} commands outside the core skipped, {} \
         documented deviations), {} SCANDUMP bytes and {} queries equal",
        total.0, total.1, total.2, total.3, total.4
    );
}
