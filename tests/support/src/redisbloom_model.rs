//! A model of `MBbloom--`, RedisBloom v2.8's own type (encoding version 4), for the tests of
//! hostile input in that format (`tests/suite/bloom/hostile_redisbloom.rs`): its two encodings
//! (the RDB value as typed fields, the packed SCANDUMP header), the loader's rules as an oracle
//! of what `RESTORE` and `BF.LOADCHUNK` must accept, and RedisBloom's chain, to predict
//! answers, growth and bits exactly.
//!
//! The rules, for the RDB value and the SCANDUMP header alike: encoding version 4; options
//! exactly 5 (NOROUND | FORCE64) or 13 (also NO_SCALING, then exactly one link); growth any
//! 32-bit value (RedisBloom's field: 2.8 takes any `EXPANSION` and keeps 32 bits of it, 0
//! from 2^32, and then its filter cannot grow; a non-scaling one records any growth, 0
//! after RedisBloom 8's `EXPANSION 0`, and never reads it);
//! nfilters >= 1; per link entries >= 1, error a finite number in (0, 1), hashes in
//! 1..=1100, bpe finite and > 0, hashes = ceil(LN2 * bpe) (RedisBloom's check of a header;
//! rsbloom holds RDB values to it too), bits a non-zero multiple of 64, n2 == 0, the bit array (or
//! the header's byte count) exactly bits / 8 bytes, size <= entries; the chain's size is the
//! sum of the link sizes; Size (32 + 64 * nfilters + the bytes of all links) is within
//! `bf.max-filter-bytes`.

use redis::Value;
use rsbloom_core::hash::murmur64a::murmur64a;

use super::guava_model::debug_line;
use super::rdb::{Cursor, F, OP_STRING};
use super::redisbloom::Config;

pub const TYPE_NAME: &str = "MBbloom--";
/// `MBbloom--` with encoding version 4, as RedisBloom writes it (README of the vectors).
pub const MODULE_ID: u64 = 0x3016_e5a2_89be_f804;
/// NOROUND | FORCE64, and the same with NO_SCALING.
pub const SCALING: u64 = 5;
pub const NO_SCALING: u64 = 13;
pub const MAX_HASHES: u64 = 1100;
/// A bits-per-entry value whose hash count is `k`.
pub fn bpe_for(k: u64) -> f64 {
    (k as f64 - 0.5) / LN2
}
pub const MAX_GROWTH: u64 = 32768;
/// RedisBloom's ln(2)^2 and ln(2), truncated as written in its source (the stored doubles
/// depend on it).
const LN2_SQUARED: f64 = 0.480453013918201;
#[allow(clippy::approx_constant)]
pub const LN2: f64 = 0.693147180559945;
pub const HASH_SEED: u64 = 0xc6a4_a793_5bd1_e995;

// ---------------------------------------------------------------------------------------
// The two encodings of a filter
// ---------------------------------------------------------------------------------------

/// One link, in the order of its RDB fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub entries: u64,
    pub error: f64,
    pub hashes: u64,
    pub bpe: f64,
    pub bits: u64,
    pub n2: u64,
    pub data: Vec<u8>,
    pub size: u64,
}

/// A whole `MBbloom--` value; `nfilters` overrides the link count written (to lie about it).
#[derive(Clone, Debug)]
pub struct Filter {
    pub size: u64,
    pub nfilters: Option<u64>,
    pub options: u64,
    pub growth: u64,
    pub links: Vec<Link>,
}

/// Positions in [`Filter::fields`]: the chain's four, then eight per link.
pub const AT_SIZE: usize = 0;
pub const AT_NFILTERS: usize = 1;
pub const AT_OPTIONS: usize = 2;
pub const AT_GROWTH: usize = 3;
pub fn at_link(i: usize, field: usize) -> usize {
    4 + 8 * i + field
}
pub const L_ENTRIES: usize = 0;
pub const L_ERROR: usize = 1;
pub const L_HASHES: usize = 2;
pub const L_BPE: usize = 3;
pub const L_BITS: usize = 4;
pub const L_N2: usize = 5;
pub const L_DATA: usize = 6;
pub const L_SIZE: usize = 7;

impl Filter {
    pub fn fields(&self) -> Vec<F> {
        let mut f = vec![
            F::U(self.size),
            F::U(self.nfilters.unwrap_or(self.links.len() as u64)),
            F::U(self.options),
            F::U(self.growth),
        ];
        for l in &self.links {
            f.extend([
                F::U(l.entries),
                F::D(l.error),
                F::U(l.hashes),
                F::D(l.bpe),
                F::U(l.bits),
                F::U(l.n2),
                string_field(&l.data),
                F::U(l.size),
            ]);
        }
        f
    }

    /// The SCANDUMP header of this filter.
    pub fn header(&self) -> Header {
        Header {
            size: self.size,
            nfilters: None,
            options: self.options as u32,
            growth: self.growth as u32,
            links: self
                .links
                .iter()
                .map(|l| HLink {
                    bytes: l.data.len() as u64,
                    bits: l.bits,
                    size: l.size,
                    error: l.error,
                    bpe: l.bpe,
                    hashes: l.hashes as u32,
                    entries: l.entries,
                    n2: l.n2 as u8,
                })
                .collect(),
        }
    }

    /// Size as BF.INFO shows it and as it is held against `bf.max-filter-bytes`.
    pub fn total_size(&self) -> u64 {
        size_of(
            self.links.len() as u64,
            self.links.iter().map(|l| l.data.len() as u64),
        )
    }

    pub fn debug_lines(&self) -> Vec<String> {
        let mut lines = vec![format!("size:{}", self.size)];
        for l in &self.links {
            lines.push(debug_line(l.bits, l.hashes, l.entries, l.size, l.error));
        }
        lines
    }

    /// The BF.INFO fields in RedisBloom's order, None where the value does not fit an integer
    /// reply (not compared).
    pub fn info(&self) -> Vec<(&'static str, Option<Value>)> {
        let int = |v: Option<u64>| v.and_then(|v| i64::try_from(v).ok()).map(Value::Int);
        let capacity = self
            .links
            .iter()
            .try_fold(0u64, |s, l| s.checked_add(l.entries));
        let expansion = if self.options == NO_SCALING {
            Some(Value::Nil)
        } else {
            int(Some(self.growth))
        };
        vec![
            ("Capacity", int(capacity)),
            ("Size", int(Some(self.total_size()))),
            ("Number of filters", int(Some(self.links.len() as u64))),
            ("Number of items inserted", int(Some(self.size))),
            ("Expansion rate", expansion),
        ]
    }

    /// Recount the chain's size from its links (after an edit of a link's size).
    pub fn resum(&mut self) {
        self.size = self.links.iter().fold(0u64, |s, l| s.wrapping_add(l.size));
    }
}

/// A string field as Redis writes it (`rdbSaveRawString`, compression off): up to 11 bytes
/// that are the canonical decimal form of a 32-bit integer go int-encoded, the rest raw.
fn string_field(data: &[u8]) -> F {
    let int = std::str::from_utf8(data)
        .ok()
        .filter(|_| data.len() <= 11)
        .and_then(|s| s.parse::<i64>().ok())
        .filter(|v| v.to_string().as_bytes() == data);
    let mut raw = vec![OP_STRING];
    match int {
        Some(v) if i8::try_from(v).is_ok() => raw.extend([0xc0, v as i8 as u8]),
        Some(v) if i16::try_from(v).is_ok() => {
            raw.push(0xc1);
            raw.extend((v as i16).to_le_bytes());
        }
        Some(v) if i32::try_from(v).is_ok() => {
            raw.push(0xc2);
            raw.extend((v as i32).to_le_bytes());
        }
        _ => return F::S(data.to_vec()),
    }
    F::Raw(raw)
}

/// 32 + 64 * nfilters + the bytes of every link, saturating.
fn size_of(nfilters: u64, bytes: impl Iterator<Item = u64>) -> u64 {
    bytes.fold(
        32u64.saturating_add(nfilters.saturating_mul(64)),
        u64::saturating_add,
    )
}

/// One link of a RedisBloom SCANDUMP header.
#[derive(Clone, Debug, PartialEq)]
pub struct HLink {
    pub bytes: u64,
    pub bits: u64,
    pub size: u64,
    pub error: f64,
    pub bpe: f64,
    pub hashes: u32,
    pub entries: u64,
    pub n2: u8,
}

/// RedisBloom's SCANDUMP header: packed little-endian, 20 + 53 * nfilters bytes.
#[derive(Clone, Debug)]
pub struct Header {
    pub size: u64,
    pub nfilters: Option<u32>,
    pub options: u32,
    pub growth: u32,
    pub links: Vec<HLink>,
}

pub const HEADER_FIXED: usize = 20;
pub const HEADER_LINK: usize = 53;

impl Header {
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = self.size.to_le_bytes().to_vec();
        let n = self.nfilters.unwrap_or(self.links.len() as u32);
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&self.options.to_le_bytes());
        out.extend_from_slice(&self.growth.to_le_bytes());
        for l in &self.links {
            out.extend_from_slice(&l.bytes.to_le_bytes());
            out.extend_from_slice(&l.bits.to_le_bytes());
            out.extend_from_slice(&l.size.to_le_bytes());
            out.extend_from_slice(&l.error.to_le_bytes());
            out.extend_from_slice(&l.bpe.to_le_bytes());
            out.extend_from_slice(&l.hashes.to_le_bytes());
            out.extend_from_slice(&l.entries.to_le_bytes());
            out.push(l.n2);
        }
        out
    }

    /// The layout only: the length must be exactly 20 + 53 * nfilters.
    pub fn parse(bytes: &[u8]) -> Result<Header, String> {
        if bytes.len() < HEADER_FIXED || !(bytes.len() - HEADER_FIXED).is_multiple_of(HEADER_LINK) {
            return Err(format!("header of {} bytes", bytes.len()));
        }
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let nfilters = u32_at(8);
        if nfilters as usize != (bytes.len() - HEADER_FIXED) / HEADER_LINK {
            return Err(format!("{nfilters} links in {} bytes", bytes.len()));
        }
        let links = (0..nfilters as usize)
            .map(|i| {
                let at = HEADER_FIXED + HEADER_LINK * i;
                HLink {
                    bytes: u64_at(at),
                    bits: u64_at(at + 8),
                    size: u64_at(at + 16),
                    error: f64::from_bits(u64_at(at + 24)),
                    bpe: f64::from_bits(u64_at(at + 32)),
                    hashes: u32_at(at + 40),
                    entries: u64_at(at + 44),
                    n2: bytes[at + 52],
                }
            })
            .collect();
        Ok(Header {
            size: u64_at(0),
            nfilters: None,
            options: u32_at(12),
            growth: u32_at(16),
            links,
        })
    }

    /// The filter a (valid) header creates: every bit clear.
    pub fn filter(&self) -> Filter {
        Filter {
            size: self.size,
            nfilters: None,
            options: self.options as u64,
            growth: self.growth as u64,
            links: self
                .links
                .iter()
                .map(|l| Link {
                    entries: l.entries,
                    error: l.error,
                    hashes: l.hashes as u64,
                    bpe: l.bpe,
                    bits: l.bits,
                    n2: l.n2 as u64,
                    data: vec![0; l.bytes as usize],
                    size: l.size,
                })
                .collect(),
        }
    }
}

/// A real filter of the vectors: its SCANDUMP header, and the bits of its data chunks.
pub fn vector_filter(cfg: &Config) -> Filter {
    let header = Header::parse(&cfg.scandump[0].data)
        .unwrap_or_else(|e| panic!("{}: vector header: {e}", cfg.name));
    let mut filter = header.filter();
    let data: Vec<u8> = cfg.scandump[1..]
        .iter()
        .flat_map(|c| c.data.clone())
        .collect();
    let mut rest = &data[..];
    for l in &mut filter.links {
        let (bits, tail) = rest.split_at(l.data.len());
        l.data = bits.to_vec();
        rest = tail;
    }
    assert!(rest.is_empty(), "{}: data longer than the links", cfg.name);
    filter
}

// ---------------------------------------------------------------------------------------
// The oracle: the rules above, applied to what a payload or a header says
// ---------------------------------------------------------------------------------------

/// One link's parameters, whichever encoding they came from.
struct Params {
    entries: u64,
    error: f64,
    hashes: u64,
    bpe: f64,
    bits: u64,
    n2: u64,
    bytes: u64,
    size: u64,
}

/// Why a filter must be refused; `over_limit` when its Size alone is over the limit (a header
/// may then also be refused with the size-limit error).
#[derive(Debug)]
pub struct Refusal {
    pub why: String,
    pub over_limit: bool,
}

fn rules(
    size: u64,
    options: u64,
    growth: u64,
    links: &[Params],
    limit: u64,
) -> Result<(), Refusal> {
    let total = size_of(links.len() as u64, links.iter().map(|l| l.bytes));
    let over_limit = total > limit;
    let refuse = |why: String| Err(Refusal { why, over_limit });
    if options != SCALING && options != NO_SCALING {
        return refuse(format!("options {options}"));
    }
    let growth_ok = u32::try_from(growth).is_ok();
    if !growth_ok {
        return refuse(format!("growth {growth} with options {options}"));
    }
    if links.is_empty() || (options == NO_SCALING && links.len() != 1) {
        return refuse(format!("{} links with options {options}", links.len()));
    }
    for (i, l) in links.iter().enumerate() {
        let bad = if l.entries == 0 {
            "entries 0"
        } else if !(l.error.is_finite() && l.error > 0.0 && l.error < 1.0) {
            "error"
        } else if l.hashes == 0 || l.hashes > MAX_HASHES {
            "hashes"
        } else if !(l.bpe.is_finite() && l.bpe > 0.0) {
            "bpe"
        } else if l.hashes as f64 != (LN2 * l.bpe).ceil() {
            "hashes do not follow from bpe"
        } else if l.bits == 0 || !l.bits.is_multiple_of(64) {
            "bits"
        } else if l.n2 != 0 {
            "n2"
        } else if l.bytes != l.bits / 8 {
            "bytes"
        } else if l.size > l.entries {
            "size above entries"
        } else {
            continue;
        };
        return refuse(format!("link {i}: {bad}"));
    }
    let sum = links.iter().try_fold(0u64, |s, l| s.checked_add(l.size));
    if sum != Some(size) {
        return refuse(format!("chain size {size}, links sum to {sum:?}"));
    }
    if over_limit {
        return refuse(format!("Size {total} over {limit}"));
    }
    Ok(())
}

fn link_params(l: &Link) -> Params {
    Params {
        entries: l.entries,
        error: l.error,
        hashes: l.hashes,
        bpe: l.bpe,
        bits: l.bits,
        n2: l.n2,
        bytes: l.data.len() as u64,
        size: l.size,
    }
}

fn hlink_params(l: &HLink) -> Params {
    Params {
        entries: l.entries,
        error: l.error,
        hashes: l.hashes as u64,
        bpe: l.bpe,
        bits: l.bits,
        n2: l.n2 as u64,
        bytes: l.bytes,
        size: l.size,
    }
}

#[derive(Debug)]
pub enum Verdict<T> {
    Accept(T),
    Reject(Refusal),
    /// Outside what the oracle models: an LZF string in a payload, rsbloom's own header.
    Unknown(String),
}

fn reject<T>(why: impl Into<String>) -> Verdict<T> {
    Verdict::Reject(Refusal {
        why: why.into(),
        over_limit: false,
    })
}

/// What RESTORE of a sealed payload must do, read field by field as Redis and the module
/// read it.
pub fn oracle(payload: &[u8], limit: u64) -> Verdict<Filter> {
    let mut c = Cursor::new(payload);
    let read = (|| -> Result<Option<Filter>, String> {
        c.module_head(MODULE_ID, 4)?;
        let size = c.unsigned()?;
        let nfilters = c.unsigned()?;
        let options = c.unsigned()?;
        let growth = c.unsigned()?;
        let mut links = Vec::new();
        // A count larger than the payload can hold ends at the first short read.
        for _ in 0..nfilters {
            let entries = c.unsigned()?;
            let error = c.double()?;
            let hashes = c.unsigned()?;
            let bpe = c.double()?;
            let bits = c.unsigned()?;
            let n2 = c.unsigned()?;
            let Some(data) = c.string()? else {
                return Ok(None);
            };
            let size = c.unsigned()?;
            links.push(Link {
                entries,
                error,
                hashes,
                bpe,
                bits,
                n2,
                data,
                size,
            });
        }
        c.module_eof()?;
        Ok(Some(Filter {
            size,
            nfilters: None,
            options,
            growth,
            links,
        }))
    })();
    match read {
        Err(why) => reject(why),
        Ok(None) => Verdict::Unknown("LZF string".into()),
        Ok(Some(f)) => {
            let params: Vec<Params> = f.links.iter().map(link_params).collect();
            match rules(f.size, f.options, f.growth, &params, limit) {
                Ok(()) => Verdict::Accept(f),
                Err(r) => Verdict::Reject(r),
            }
        }
    }
}

/// What BF.LOADCHUNK at iterator 1 must do with these header bytes on a missing key.
pub fn header_oracle(bytes: &[u8], limit: u64) -> Verdict<Header> {
    if bytes.starts_with(b"RSBF") {
        return Verdict::Unknown("rsbloom's own header".into());
    }
    let h = match Header::parse(bytes) {
        Ok(h) => h,
        Err(why) => return reject(why),
    };
    let params: Vec<Params> = h.links.iter().map(hlink_params).collect();
    match rules(h.size, h.options as u64, h.growth as u64, &params, limit) {
        Ok(()) => Verdict::Accept(h),
        Err(r) => Verdict::Reject(r),
    }
}

// ---------------------------------------------------------------------------------------
// RedisBloom's chain, to predict answers, growth and bits exactly
// ---------------------------------------------------------------------------------------

/// RedisBloom's two hash words of an item (MurmurHash64A from the core, itself checked
/// against RedisBloom's vectors).
pub fn rb_hash(item: &[u8]) -> (u64, u64) {
    let a = murmur64a(item, HASH_SEED);
    (a, murmur64a(item, a))
}

fn bit_indexes(l: &Link, (a, b): (u64, u64)) -> impl Iterator<Item = u64> + '_ {
    (0..l.hashes).map(move |i| a.wrapping_add(i.wrapping_mul(b)) % l.bits)
}

fn link_has(l: &Link, h: (u64, u64)) -> bool {
    bit_indexes(l, h).all(|bit| l.data[(bit >> 3) as usize] & (1 << (bit & 7)) != 0)
}

/// What an add does, as RedisBloom decides it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Added {
    Yes,
    No,
    Full,
    /// A full scaling filter of growth 0: RedisBloom 8's "problem inserting into filter".
    Stuck,
    TooLarge,
    /// A new link the rules cannot describe (its error underflows, or k goes past 1100).
    Unknown,
}

/// A new link of `entries` at `error`: RedisBloom's sizing (README of the vectors).
pub fn new_link(entries: u64, error: f64) -> Link {
    let bpe = -(error.ln() / LN2_SQUARED);
    let bits0 = ((entries as f64 * bpe) as u64).max(1);
    let bytes = bits0.div_ceil(64).saturating_mul(8);
    Link {
        entries,
        error,
        hashes: (LN2 * bpe).ceil() as u64,
        bpe,
        bits: bytes.saturating_mul(8),
        n2: 0,
        data: Vec::new(),
        size: 0,
    }
}

pub struct Model {
    pub filter: Filter,
    pub limit: u64,
}

impl Model {
    pub fn contains(&self, item: &[u8]) -> bool {
        let h = rb_hash(item);
        self.filter.links.iter().any(|l| link_has(l, h))
    }

    pub fn add(&mut self, item: &[u8]) -> Added {
        let h = rb_hash(item);
        if self.filter.links.iter().rev().any(|l| link_has(l, h)) {
            return Added::No;
        }
        let last = self.filter.links.last().expect("a link");
        if last.size >= last.entries {
            if self.filter.options == NO_SCALING {
                return Added::Full;
            }
            if self.filter.growth == 0 {
                return Added::Stuck;
            }
            let Some(entries) = last.entries.checked_mul(self.filter.growth) else {
                return Added::TooLarge;
            };
            let mut link = new_link(entries, last.error * 0.5);
            if link.error.is_nan() || link.error <= 0.0 || link.hashes > MAX_HASHES {
                return Added::Unknown;
            }
            let bytes = link.bits / 8;
            let total = self.filter.total_size().saturating_add(64 + bytes);
            if total > self.limit {
                return Added::TooLarge;
            }
            link.data = vec![0; bytes as usize];
            self.filter.links.push(link);
        }
        let last = self.filter.links.last_mut().expect("a link");
        let bits: Vec<u64> = bit_indexes(last, h).collect();
        for bit in bits {
            last.data[(bit >> 3) as usize] |= 1 << (bit & 7);
        }
        last.size += 1;
        self.filter.size += 1;
        Added::Yes
    }
}
