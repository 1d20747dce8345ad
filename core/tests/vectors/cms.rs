//! The pure Count-Min Sketch core against ground truth from the real RedisBloom 2.8.2
//! (tests/vectors/redisbloom-cms, see its README). No server: every configuration's
//! `commands.tsv` is replayed against the core, the arguments read here as RedisBloom 8.12
//! reads them, and every CMS reply is rebuilt as RESP bytes (RESP2 or RESP3, as recorded) and
//! compared byte for byte, arity errors aside (the command layer's). Then each final sketch
//! against its DUMP: the value decoded from `NAME.dump.bin` equals the replayed sketch, and
//! the core's encoding of it is the DUMP's field for field.
//!
//! Where 8.12 answers otherwise than 2.8 (docs/differences.txt, `redisbloom-8` rules of the
//! Count-Min Sketch) the recording is not the truth: CMS.INFO has a fourth pair,
//! `cell_size 4`, checked after the recorded three; a negative increment is applied rather
//! than refused; an increment 2.8 saturated a counter with is refused and changes nothing.
//! After either of the last two changed what 2.8 kept, the key's replies and final DUMP are
//! no longer 2.8's and are not compared (the sketch tests of `rsbloom_core::cms` and the
//! server suite cover them).

use std::collections::HashMap;

use rsbloom_core::cms::codec::{self, ENCODING_VERSION};
use rsbloom_core::cms::{dims_from_prob, CountMinSketch, Source};
use rsbloom_core::error::{Error, Result};
use rsbloom_core::fields::{FieldSource, Reader, Writer};
use rsbloom_core::testkit::cms::info_with_cell_size;
use rsbloom_core::testkit::files::{self, escape, unescape, REDISBLOOM_CMS_CONFIGS as CONFIGS};
use rsbloom_core::testkit::rdb::Cursor;

const SET: &str = "redisbloom-cms";
const NO_LIMIT: u64 = u64::MAX;

enum Value {
    Sketch(CountMinSketch),
    /// A key of another type (a string, a Bloom filter).
    Other,
}

/// A reply the core decides, before it is written in a protocol.
enum Reply {
    Ok,
    Err(Error),
    Ints(Vec<Result<u64>>),
    Info(u64, u64, u64, u64),
}

fn render(reply: &Reply, proto: u8) -> Vec<u8> {
    let mut out = Vec::new();
    match reply {
        Reply::Ok => out.extend_from_slice(b"+OK\r\n"),
        Reply::Err(e) => out.extend_from_slice(format!("-{e}\r\n").as_bytes()),
        Reply::Ints(items) => {
            out.extend_from_slice(format!("*{}\r\n", items.len()).as_bytes());
            for r in items {
                match r {
                    Ok(n) => out.extend_from_slice(format!(":{n}\r\n").as_bytes()),
                    Err(e) => out.extend_from_slice(format!("-{e}\r\n").as_bytes()),
                }
            }
        }
        Reply::Info(w, d, c, cell) => {
            let head = if proto == 3 { "%4" } else { "*8" };
            out.extend_from_slice(
                format!(
                    "{head}\r\n+width\r\n:{w}\r\n+depth\r\n:{d}\r\n+count\r\n:{}\r\n\
                     +cell_size\r\n:{cell}\r\n",
                    *c as i64
                )
                .as_bytes(),
            );
        }
    }
    out
}

/// Redis's `string2ll`: an optional `-`, digits without a leading zero, within i64.
fn int(arg: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(arg).ok()?;
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || (digits.starts_with('0') && s != "0")
    {
        return None;
    }
    s.parse().ok()
}

fn double(arg: &[u8]) -> Option<f64> {
    let v: f64 = std::str::from_utf8(arg).ok()?.parse().ok()?;
    (!v.is_nan()).then_some(v)
}

struct Replay {
    keys: HashMap<Vec<u8>, Value>,
}

impl Replay {
    fn sketch(&self, key: &[u8]) -> Result<&CountMinSketch> {
        match self.keys.get(key) {
            None => Err(Error::CmsKeyNotFound),
            Some(Value::Other) => Err(Error::WrongType),
            Some(Value::Sketch(s)) => Ok(s),
        }
    }

    fn sketch_mut(&mut self, key: &[u8]) -> Result<&mut CountMinSketch> {
        match self.keys.get_mut(key) {
            None => Err(Error::CmsKeyNotFound),
            Some(Value::Other) => Err(Error::WrongType),
            Some(Value::Sketch(s)) => Ok(s),
        }
    }

    /// A CMS command as RedisBloom runs it; `None` for arity errors (not the core's).
    fn cms(&mut self, name: &str, a: &[Vec<u8>]) -> Option<Reply> {
        let r = match name {
            "cms.initbydim" | "cms.initbyprob" => {
                if a.len() != 4 {
                    return None;
                }
                self.create(name, a).map(|()| Reply::Ok)
            }
            "cms.incrby" => {
                if a.len() < 4 || a.len() % 2 == 1 {
                    return None;
                }
                self.incrby(a)
            }
            "cms.query" => {
                if a.len() < 3 {
                    return None;
                }
                self.sketch(&a[1])
                    .map(|s| Reply::Ints(a[2..].iter().map(|i| Ok(s.query(i))).collect()))
            }
            "cms.merge" => {
                if a.len() < 4 {
                    return None;
                }
                self.merge(a).map(|()| Reply::Ok)
            }
            "cms.info" => {
                if a.len() != 2 {
                    return None;
                }
                self.sketch(&a[1])
                    .map(|s| Reply::Info(s.width(), s.depth(), s.count(), s.cell_size().bytes()))
            }
            other => panic!("unknown command {other}"),
        };
        Some(r.unwrap_or_else(Reply::Err))
    }

    fn create(&mut self, name: &str, a: &[Vec<u8>]) -> Result<()> {
        if self.keys.contains_key(&a[1]) {
            return Err(Error::CmsKeyExists);
        }
        let (w, d) = if name == "cms.initbydim" {
            let w = int(&a[2])
                .filter(|&w| w >= 1)
                .ok_or(Error::CmsInvalidWidth)?;
            let d = int(&a[3])
                .filter(|&d| d >= 1)
                .ok_or(Error::CmsInvalidDepth)?;
            (w as u64, d as u64)
        } else {
            let e = double(&a[2]).ok_or(Error::CmsInvalidOverestimation)?;
            let p = double(&a[3]).unwrap_or(f64::NAN);
            dims_from_prob(e, p)?
        };
        let s = CountMinSketch::new(w, d, NO_LIMIT)?;
        self.keys.insert(a[1].clone(), Value::Sketch(s));
        Ok(())
    }

    fn incrby(&mut self, a: &[Vec<u8>]) -> Result<Reply> {
        self.sketch(&a[1])?;
        let mut pairs = Vec::new();
        for p in a[2..].chunks(2) {
            let v = int(&p[1]).ok_or(Error::CmsCannotParseNumber)?;
            if v == i64::MIN {
                return Err(Error::CmsInvalidIncrement);
            }
            pairs.push((p[0].clone(), v));
        }
        let s = self.sketch_mut(&a[1])?;
        Ok(Reply::Ints(
            pairs.iter().map(|(i, v)| s.incr_by(i, *v)).collect(),
        ))
    }

    fn merge(&mut self, a: &[Vec<u8>]) -> Result<()> {
        let dest = &a[1];
        let (w, d, cell) = {
            let s = self.sketch(dest)?;
            (s.width(), s.depth(), s.cell_size())
        };
        let numkeys = int(&a[2]).ok_or(Error::CmsInvalidNumkeys)?;
        if numkeys <= 0 {
            return Err(Error::CmsNumkeysNotPositive);
        }
        let rest = &a[3..];
        let n = numkeys as usize;
        let pos = rest.iter().position(|x| x.eq_ignore_ascii_case(b"WEIGHTS"));
        match pos {
            None if numkeys != rest.len() as i64 => return Err(Error::CmsWrongNumberOfKeys),
            Some(p) if p != n || rest.len() as i64 != 1 + 2 * numkeys => {
                return Err(Error::CmsWrongNumberOfKeysWeights)
            }
            _ => {}
        }
        let mut plan = Vec::new();
        for i in 0..n {
            let weight = match pos {
                None => 1,
                Some(_) => int(&rest[n + 1 + i]).ok_or(Error::CmsInvalidWeight)?,
            };
            let s = self.sketch(&rest[i])?;
            if s.width() != w || s.depth() != d {
                return Err(Error::CmsDimensionMismatch);
            }
            if s.cell_size() != cell {
                return Err(Error::CmsCellSizeMismatch);
            }
            plan.push((rest[i].clone(), weight));
        }
        let copies: Vec<(Option<CountMinSketch>, i64)> = plan
            .iter()
            .map(|(k, wt)| {
                let other = (k != dest).then(|| self.sketch(k).unwrap().clone());
                (other, *wt)
            })
            .collect();
        let sources: Vec<Source> = copies
            .iter()
            .map(|(o, wt)| match o {
                Some(s) => Source::Other(s, *wt),
                None => Source::Destination(*wt),
            })
            .collect();
        self.sketch_mut(dest)?.merge(&sources)
    }
}

/// The decoded DUMP of a sketch: the value as `rdb_load` receives it, as field bytes.
fn dump_value(payload: &[u8]) -> Vec<u8> {
    let mut c = Cursor::new(payload);
    let id = u64::from_be_bytes(payload[2..10].try_into().unwrap());
    c.module_head(id, 0).unwrap();
    let mut w = Writer::default();
    use rsbloom_core::fields::FieldSink;
    for _ in 0..3 {
        w.put_u64(c.unsigned().unwrap());
    }
    w.put_bytes(&c.string_bytes().unwrap());
    c.module_eof().unwrap();
    w.0
}

/// 2.8's reply with every estimate of exactly 2^32 - 1 an overflow: 2.8 took the maximum
/// itself for its saturation mark, 8.12 answers it as the number it is.
fn as_2_8_reports(got: &Reply, proto: u8) -> Vec<u8> {
    match got {
        Reply::Ints(items) => render(
            &Reply::Ints(
                items
                    .iter()
                    .map(|r| match r {
                        Ok(n) if *n == u32::MAX as u64 => Err(Error::CmsIncrByOverflow),
                        other => other.clone(),
                    })
                    .collect(),
            ),
            proto,
        ),
        other => render(other, proto),
    }
}

/// What 2.8's reply to a CMS.INCRBY does that 8.12's does not: it refused a negative
/// increment as a whole (8.12 applies the others, and any decrement that fits), or it
/// saturated a counter (8.12 refuses that item and changes nothing). `None` when both keep
/// the same sketch.
fn diverges(want: &[u8], got: &Reply, values: &[i64]) -> Option<&'static str> {
    if want.starts_with(b"-CMS: Number cannot be negative") {
        let changed = match got {
            Reply::Ints(items) => items.iter().zip(values).any(|(r, &v)| r.is_ok() && v != 0),
            _ => false,
        };
        return changed.then_some("a negative increment");
    }
    match got {
        Reply::Ints(items) if items.iter().any(|r| r == &Err(Error::CmsIncrByOverflow)) => {
            Some("an overflow refused")
        }
        _ => None,
    }
}

#[test]
fn recorded_sessions_replay_on_the_core() {
    let (mut compared, mut negative, mut after_divergence, mut exact_max) = (0, 0, 0, 0);
    let mut diverged_configs = Vec::new();
    for config in CONFIGS {
        let mut replay = Replay {
            keys: HashMap::new(),
        };
        // Keys whose sketch is no longer what 2.8 kept.
        let mut diverged: Vec<Vec<u8>> = Vec::new();
        for line in files::read(SET, &format!("{config}.commands.tsv")).lines() {
            let f: Vec<&str> = line.split('\t').collect();
            let (seq, proto, want) = (f[0], f[1].parse::<u8>().unwrap(), unescape(f[2]));
            let args: Vec<Vec<u8>> = f[3..].iter().map(|a| unescape(a)).collect();
            let name = String::from_utf8_lossy(&args[0]).to_lowercase();
            if !name.starts_with("cms.") {
                match name.as_str() {
                    "set" | "bf.add" => {
                        replay.keys.insert(args[1].clone(), Value::Other);
                    }
                    "del" => args[1..].iter().for_each(|k| {
                        replay.keys.remove(k);
                        diverged.retain(|d| d != k);
                    }),
                    _ => {}
                }
                continue;
            }
            let touched = args.len() > 1 && args[1..].iter().any(|a| diverged.contains(a));
            let Some(reply) = replay.cms(&name, &args) else {
                assert!(want.starts_with(b"-ERR wrong number"), "{config}:{seq}");
                continue;
            };
            let got = render(&reply, proto);
            if touched {
                // A merge of a diverged source diverges its destination.
                if !diverged.contains(&args[1]) {
                    diverged.push(args[1].clone());
                }
                after_divergence += 1;
                continue;
            }
            if name == "cms.incrby" {
                let values: Vec<i64> = args[2..]
                    .chunks(2)
                    .map(|p| int(&p[1]).unwrap_or(0))
                    .collect();
                if let Some(why) = diverges(&want, &reply, &values) {
                    if want.starts_with(b"-CMS: Number cannot be negative") {
                        negative += 1;
                    }
                    eprintln!("{config} line {seq}: {why}, 2.8's sketch no longer compared");
                    diverged.push(args[1].clone());
                    continue;
                }
                if got != want && as_2_8_reports(&reply, proto) == want {
                    exact_max += 1;
                    continue;
                }
                if want.starts_with(b"-CMS: Number cannot be negative") {
                    // Refused by both, item by item here: every decrement underflowed.
                    assert!(
                        matches!(&reply, Reply::Ints(r) if r.iter().any(|e| e == &Err(Error::CmsIncrByUnderflow))),
                        "{config} line {seq}: {}",
                        escape(&got)
                    );
                    negative += 1;
                    continue;
                }
            }
            let want = if name == "cms.info" && want.first() != Some(&b'-') {
                info_with_cell_size(&want)
            } else {
                want
            };
            assert_eq!(escape(&got), escape(&want), "{config} line {seq}: {}", line);
            compared += 1;
        }
        let Some(Value::Sketch(sketch)) = replay.keys.get(config.as_bytes()) else {
            panic!("{config}: no sketch left");
        };
        if diverged.contains(&config.as_bytes().to_vec()) {
            diverged_configs.push(config);
            continue;
        }
        // The final sketch against its DUMP.
        let value = dump_value(&files::read_bytes(SET, &format!("{config}.dump.bin")));
        let mut mine = Writer::default();
        codec::save(sketch, &mut mine);
        assert_eq!(mine.0, value, "{config}: DUMP value differs");
        let mut r = Reader(&value);
        let loaded = codec::load(&mut r, ENCODING_VERSION, NO_LIMIT).unwrap();
        assert!(r.get_u64().is_err(), "{config}: bytes left after the value");
        assert_eq!(&loaded, sketch, "{config}: loaded sketch differs");
    }
    eprintln!(
        "{compared} CMS replies compared, {exact_max} estimates of 2^32 - 1 2.8 called \
         overflows, {negative} negative increments, {after_divergence} after a divergence; \
         final sketches of {diverged_configs:?} not compared"
    );
    // Every CMS reply but the 18 arity errors of `errors`, the lines where 8.12 answers
    // otherwise and those after them on the same key (the `overflow` and `resp3` sessions).
    assert_eq!(diverged_configs, ["overflow", "resp3"]);
    assert_eq!(
        (compared, exact_max, negative, after_divergence),
        (266, 1, 1, 33),
        "CMS replies compared"
    );
}
