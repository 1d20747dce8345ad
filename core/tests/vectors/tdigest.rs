//! The pure t-digest core against ground truth from the real RedisBloom 2.8.2
//! (tests/vectors/redisbloom-tdigest, see its README). No server: every recorded command of
//! every configuration is replayed against the core (arguments read as RedisBloom reads
//! them), and every reply compared with the recorded one, every double bit for bit (the
//! recorded texts are shortest round-trip, so they parse back to the exact double). Error
//! replies are the command layer's (argument parsing): those commands are skipped, as they
//! change nothing in RedisBloom. DUMP payloads are compared field for field with the core's
//! encoding; RESTORE goes through the core's decoder. Then each configuration's final digest
//! against its `.dump.bin` and INFO.

use std::collections::HashMap;

use rsbloom_core::fields::{FieldSink, Reader, Writer};
use rsbloom_core::tdigest::codec;
use rsbloom_core::tdigest::{Info, TDigest};
use rsbloom_core::testkit::files::{self, unescape, REDISBLOOM_TDIGEST_CONFIGS as CONFIGS};
use rsbloom_core::testkit::rdb::Cursor;
use serde_json::Value;

const SET: &str = "redisbloom-tdigest";
const NO_LIMIT: u64 = u64::MAX;
const MODULE_ID: u64 = 0x4c3212f9360f1000;

/// Replies where rsbloom differs from RedisBloom on purpose (config, seq, why).
const DEVIATIONS: [(&str, u64, &str); 6] = [
    (
        "single",
        7,
        "RANK of the one observation: 0, not a NaN cast to an integer",
    ),
    (
        "single",
        8,
        "REVRANK of the one observation: 0, not a NaN cast to an integer",
    ),
    (
        "dumpstate",
        12,
        "a one-value digest is saved with its value (one merged node)",
    ),
    (
        "dumpstate",
        4,
        "a one-value digest is saved with its value (one merged node)",
    ),
    (
        "single",
        23,
        "RANK of the one observation after RESTORE (value kept)",
    ),
    (
        "single",
        24,
        "REVRANK of the one observation after RESTORE (value kept)",
    ),
];

fn deviation(config: &str, seq: u64) -> bool {
    DEVIATIONS.iter().any(|&(c, s, _)| c == config && s == seq)
}

/// A recorded reply.
#[derive(Debug, Clone, PartialEq)]
enum R {
    Simple(String),
    Error(String),
    Int(i64),
    Bulk(Vec<u8>),
    Double(String),
    Arr(Vec<R>),
    Map(Vec<R>),
    Null,
}

fn parse(b: &[u8], pos: &mut usize) -> R {
    let end = b[*pos..].windows(2).position(|w| w == b"\r\n").unwrap() + *pos;
    let kind = b[*pos];
    let text = String::from_utf8_lossy(&b[*pos + 1..end]).into_owned();
    *pos = end + 2;
    match kind {
        b'+' => R::Simple(text),
        b'-' => R::Error(text),
        b':' => R::Int(text.parse().unwrap()),
        b',' => R::Double(text),
        b'_' => R::Null,
        b'$' => {
            let n: i64 = text.parse().unwrap();
            if n < 0 {
                return R::Null;
            }
            let data = b[*pos..*pos + n as usize].to_vec();
            *pos += n as usize + 2;
            R::Bulk(data)
        }
        b'*' | b'%' => {
            let n: usize = text.parse().unwrap();
            let n = if kind == b'%' { 2 * n } else { n };
            let items = (0..n).map(|_| parse(b, pos)).collect();
            if kind == b'%' {
                R::Map(items)
            } else {
                R::Arr(items)
            }
        }
        other => panic!("unknown reply type {}", other as char),
    }
}

/// What the core answers.
#[derive(Debug, Clone)]
enum V {
    Ok,
    Int(i64),
    D(f64),
    Arr(Vec<V>),
    Info(Info),
    Bulk(Vec<u8>),
    /// Not compared (replies of other types' commands).
    Any,
}

fn recorded_double(r: &R) -> Option<f64> {
    let text = match r {
        R::Double(t) => t.clone(),
        R::Bulk(b) => String::from_utf8(b.clone()).ok()?,
        _ => return None,
    };
    Some(match text.as_str() {
        "nan" | "-nan" => f64::NAN,
        "inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        t => t.parse().ok()?,
    })
}

fn same_double(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// Counts the doubles compared.
fn matches(v: &V, r: &R, doubles: &mut usize) -> bool {
    match (v, r) {
        (V::Any, _) => true,
        (V::Ok, R::Simple(s)) => s == "OK",
        (V::Int(a), R::Int(b)) => a == b,
        (V::D(a), r) => {
            *doubles += 1;
            recorded_double(r).is_some_and(|b| same_double(*a, b))
        }
        (V::Arr(a), R::Arr(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| matches(x, y, doubles))
        }
        (V::Info(i), R::Arr(b) | R::Map(b)) => {
            let want: Vec<R> = i
                .pairs()
                .into_iter()
                .flat_map(|(k, v)| [R::Simple(k.into()), R::Int(as_recorded(k, v))])
                .collect();
            &want == b
        }
        (V::Bulk(a), R::Bulk(b)) => a == b,
        _ => false,
    }
}

/// An INFO field as the recordings (RedisBloom 2.8.20 and 8.2.3) give it: they count 8 bytes
/// for t-digest-c's histogram struct where 8.6+, and the core, count its 80 (rule
/// `tdigest-memory-usage` of docs/differences.txt).
fn as_recorded(field: &str, value: i64) -> i64 {
    if field == "Memory usage" {
        value - 72
    } else {
        value
    }
}

/// The fields of a DUMP payload's module value, in the core's byte form.
fn payload_fields(payload: &[u8]) -> Vec<u8> {
    let mut c = Cursor::new(payload);
    c.module_head(MODULE_ID, 0).unwrap();
    let mut w = Writer::default();
    for i in 0..9 {
        if (3..7).contains(&i) {
            w.put_u64(c.unsigned().unwrap());
        } else {
            w.put_f64(c.double().unwrap());
        }
    }
    let merged = u64::from_le_bytes(w.0[32..40].try_into().unwrap());
    for _ in 0..2 * merged {
        w.put_f64(c.double().unwrap());
    }
    c.module_eof().unwrap();
    w.0
}

fn encode(d: &TDigest) -> Vec<u8> {
    let mut w = Writer::default();
    codec::save(d, &mut w);
    w.0
}

fn decode(fields: &[u8]) -> TDigest {
    let mut r = Reader(fields);
    let d = codec::load(&mut r, 0, NO_LIMIT).expect("recorded value loads");
    assert!(r.rest().is_empty());
    d
}

fn f(arg: &[u8]) -> f64 {
    let s = std::str::from_utf8(arg).unwrap();
    if let Some(hex) = s.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).unwrap() as f64;
    }
    s.parse().unwrap_or_else(|_| panic!("number {s}"))
}

fn int(arg: &[u8]) -> i64 {
    std::str::from_utf8(arg).unwrap().parse().unwrap()
}

/// Runs one command on the keys; `None` for commands the core does not model.
fn run(keys: &mut HashMap<Vec<u8>, TDigest>, others: &mut Vec<Vec<u8>>, args: &[Vec<u8>]) -> V {
    let name = String::from_utf8_lossy(&args[0]).to_ascii_uppercase();
    let key = args.get(1).cloned().unwrap_or_default();
    let rest = &args[2.min(args.len())..];
    let d = || panic!("no key");
    match name.as_str() {
        "TDIGEST.CREATE" => {
            let c = if rest.len() == 2 { int(&rest[1]) } else { 100 };
            keys.insert(key, TDigest::new(c, NO_LIMIT).unwrap());
            V::Ok
        }
        "TDIGEST.RESET" => {
            keys.get_mut(&key).unwrap_or_else(d).reset();
            V::Ok
        }
        "TDIGEST.ADD" => {
            let values: Vec<f64> = rest.iter().map(|a| f(a)).collect();
            keys.get_mut(&key)
                .unwrap_or_else(d)
                .add_values(&values)
                .unwrap();
            V::Ok
        }
        "TDIGEST.MERGE" => {
            let numkeys = int(&rest[0]) as usize;
            let sources: Vec<Vec<u8>> = rest[1..1 + numkeys].to_vec();
            let opts = &rest[1 + numkeys..];
            let find = |w: &str| {
                opts.iter()
                    .position(|a| a.eq_ignore_ascii_case(w.as_bytes()))
            };
            let override_ = find("OVERRIDE").is_some();
            let exists = keys.contains_key(&key);
            let compression = match find("COMPRESSION") {
                Some(i) => int(&opts[i + 1]),
                None if exists && !override_ => keys[&key].compression(),
                None => sources.iter().map(|s| keys[s].compression()).max().unwrap(),
            };
            let mut to = TDigest::new(compression, NO_LIMIT).unwrap();
            if exists && !override_ {
                let mut start = keys.remove(&key).unwrap();
                let _ = to.merge_from(&mut start);
                keys.insert(key.clone(), start);
            }
            for s in &sources {
                let mut from = keys.remove(s).unwrap();
                to.merge_from(&mut from).unwrap();
                keys.insert(s.clone(), from);
            }
            keys.insert(key, to);
            V::Ok
        }
        "TDIGEST.MIN" => V::D(keys[&key].min()),
        "TDIGEST.MAX" => V::D(keys[&key].max()),
        "TDIGEST.QUANTILE" => {
            let qs: Vec<f64> = rest.iter().map(|a| f(a)).collect();
            let out = keys.get_mut(&key).unwrap().quantiles(&qs);
            V::Arr(out.into_iter().map(V::D).collect())
        }
        "TDIGEST.CDF" => {
            let t = keys.get_mut(&key).unwrap();
            V::Arr(rest.iter().map(|a| V::D(t.cdf(f(a)))).collect())
        }
        "TDIGEST.RANK" | "TDIGEST.REVRANK" => {
            let rev = name == "TDIGEST.REVRANK";
            let t = keys.get_mut(&key).unwrap();
            V::Arr(rest.iter().map(|a| V::Int(t.rank(f(a), rev))).collect())
        }
        "TDIGEST.BYRANK" | "TDIGEST.BYREVRANK" => {
            let rev = name == "TDIGEST.BYREVRANK";
            let t = keys.get_mut(&key).unwrap();
            V::Arr(rest.iter().map(|a| V::D(t.by_rank(int(a), rev))).collect())
        }
        "TDIGEST.TRIMMED_MEAN" => {
            let t = keys.get_mut(&key).unwrap();
            V::D(t.trimmed_mean(f(&rest[0]), f(&rest[1])))
        }
        "TDIGEST.INFO" => V::Info(keys[&key].info()),
        "DEL" => V::Int(
            args[1..]
                .iter()
                .filter(|k| {
                    let other = others
                        .iter()
                        .position(|o| o == *k)
                        .map(|i| others.remove(i));
                    keys.remove(*k).is_some() || other.is_some()
                })
                .count() as i64,
        ),
        "SET" | "CMS.INITBYDIM" => {
            others.push(key);
            V::Any
        }
        "EXISTS" => V::Int(args[1..].iter().filter(|k| keys.contains_key(*k)).count() as i64),
        "DUMP" => {
            let t = keys.get_mut(&key).unwrap();
            t.compress();
            V::Bulk(encode(t))
        }
        "RESTORE" => {
            keys.insert(key, decode(&payload_fields(&rest[1])));
            V::Ok
        }
        _ => V::Any,
    }
}

#[test]
fn every_recorded_reply_from_the_core() {
    let mut compared = 0;
    let mut doubles = 0;
    let mut skipped_errors = 0;
    let mut deviations = 0;
    let mut failures = Vec::new();
    for config in CONFIGS {
        for file in ["commands.tsv", "commands.rb8.tsv"] {
            let mut keys = HashMap::new();
            let mut others = Vec::new();
            for line in files::read(SET, &format!("{config}.{file}")).lines() {
                let cols: Vec<&str> = line.split('\t').collect();
                let seq: u64 = cols[0].parse().unwrap();
                let reply = unescape(cols[2]);
                let args: Vec<Vec<u8>> = cols[3..].iter().map(|c| unescape(c)).collect();
                let recorded = parse(&reply, &mut 0);
                if matches!(recorded, R::Error(_)) {
                    skipped_errors += 1;
                    continue;
                }
                let got = run(&mut keys, &mut others, &args);
                if let (V::Bulk(ours), R::Bulk(payload)) = (&got, &recorded) {
                    let theirs = payload_fields(payload);
                    if ours != &theirs {
                        if deviation(config, seq) {
                            deviations += 1;
                        } else {
                            failures.push(format!("{config} {file} seq {seq}: DUMP fields differ"));
                        }
                    }
                    compared += 1;
                    continue;
                }
                compared += 1;
                if !matches(&got, &recorded, &mut doubles) {
                    if deviation(config, seq) {
                        deviations += 1;
                    } else {
                        failures.push(format!(
                            "{config} {file} seq {seq} {:?}: got {got:?}, recorded {recorded:?}",
                            String::from_utf8_lossy(&args[0])
                        ));
                    }
                }
            }
            if file == "commands.tsv" {
                // The final digest against the configuration's DUMP and INFO.
                let dump = files::read_bytes(SET, &format!("{config}.dump.bin"));
                if let Some(d) = keys.get_mut(config.as_bytes()) {
                    let before = d.info();
                    d.compress();
                    let theirs = payload_fields(&dump);
                    let single = d.single_value().is_some();
                    if encode(d) != theirs && !single {
                        failures.push(format!("{config}: final DUMP differs"));
                    }
                    let info: Value =
                        serde_json::from_str(&files::read(SET, &format!("{config}.info.json")))
                            .unwrap();
                    let want: Vec<Value> = before
                        .pairs()
                        .into_iter()
                        .flat_map(|(k, v)| [Value::from(k), Value::from(as_recorded(k, v))])
                        .collect();
                    if info["info"] != Value::Array(want.clone()) {
                        failures.push(format!(
                            "{config}: final INFO differs: {want:?} / {}",
                            info["info"]
                        ));
                    }
                    // The recorded payload loads into the same digest.
                    let mut loaded = decode(&theirs);
                    assert_eq!(loaded.info(), d.info(), "{config}: decoded INFO");
                    assert_eq!(encode(&loaded), encode(d), "{config}: decoded re-encodes");
                    assert_eq!(loaded.quantiles(&[0.1, 0.5, 0.9]).len(), 3);
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!(
        "t-digest vectors: {compared} replies compared ({doubles} doubles bit for bit), \
         {skipped_errors} error replies left to the command layer, {deviations} deliberate \
         deviations"
    );
    assert!(
        compared >= 878 && doubles >= 1242,
        "fewer replies compared than recorded"
    );
}
