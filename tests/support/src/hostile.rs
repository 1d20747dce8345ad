//! Helpers of the hostile-input tests: a seeded random source and a byte mutator, a guard that
//! plants keys before an attack and proves afterwards that the server is up and those keys are
//! untouched, a parser of the size-limit error text, and RedisBloom 8's rules for a
//! `BF.LOADCHUNK` data chunk.

use redis::{Connection, Value};

use super::client::*;

/// The core's seeded xorshift64* generator, so every failing run can be replayed, and its
/// byte mutator (the one the core's property tests use).
pub use rsbloom_core::testkit::{mutate, Mutation, Rng};

/// Keys planted before an attack: a scaling filter with two layers and a plain string.
/// [`Guard::check`] proves the server still answers and neither key changed.
pub struct Guard {
    pub filter_key: String,
    pub string_key: String,
    debug: Vec<String>,
    digest: String,
    string_value: Vec<u8>,
    items: Vec<Vec<u8>>,
}

impl Guard {
    /// Plants `guard:bloom` (two layers, 150 items) and `guard:plain`.
    pub fn plant(con: &mut Connection) -> Guard {
        let filter_key = "guard:bloom".to_string();
        let string_key = "guard:plain".to_string();
        expect_ok(
            con,
            &["BF.RESERVE", &filter_key, "0.01", "100", "EXPANSION", "2"],
        );
        let items = gen_items("guard-item-", 0..150);
        let mut args: Vec<Vec<u8>> = vec![b"BF.MADD".to_vec(), filter_key.as_bytes().to_vec()];
        args.extend(items.iter().cloned());
        let answers = as_ints(&raw(con, &args));
        assert_eq!(
            answers.len(),
            items.len(),
            "guard MADD answered {answers:?}"
        );
        let string_value = b"plain value \x00\xff with binary".to_vec();
        let set: [&[u8]; 3] = [b"SET", string_key.as_bytes(), &string_value];
        expect_ok(con, &set);
        let debug = bf_debug(con, &filter_key);
        assert!(
            debug.len() >= 3,
            "guard filter should have 2+ layers: {debug:?}"
        );
        let digest = digest_value(con, &filter_key);
        Guard {
            filter_key,
            string_key,
            debug,
            digest,
            string_value,
            items,
        }
    }

    /// Asserts the server answers PING and both planted keys are exactly as planted.
    pub fn check(&self, con: &mut Connection, after: &str) {
        let pong = raw(con, &["PING"]);
        assert!(
            matches!(&pong, Value::SimpleString(s) if s == "PONG"),
            "after {after}: PING answered {pong:?}"
        );
        let debug = bf_debug(con, &self.filter_key);
        assert_eq!(debug, self.debug, "after {after}: guard filter changed");
        assert_eq!(
            digest_value(con, &self.filter_key),
            self.digest,
            "after {after}: guard filter digest changed"
        );
        let got = raw(con, &["GET", &self.string_key]);
        assert_eq!(
            got,
            Value::BulkString(self.string_value.clone()),
            "after {after}: guard string changed"
        );
    }

    /// Like [`Guard::check`], and also asks the filter about every planted item.
    pub fn check_deep(&self, con: &mut Connection, after: &str) {
        self.check(con, after);
        let mut args: Vec<Vec<u8>> =
            vec![b"BF.MEXISTS".to_vec(), self.filter_key.as_bytes().to_vec()];
        args.extend(self.items.iter().cloned());
        let answers = as_ints(&raw(con, &args));
        assert!(
            answers.iter().all(|&a| a == 1),
            "after {after}: a planted item is no longer in the guard filter"
        );
    }
}

/// Error rates a filter must refuse: NaNs, infinities, zeros, one and above, negatives.
pub const BAD_RATES: [f64; 13] = [
    f64::NAN,
    -f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    1.0,
    -0.01,
    -1.0,
    1.0000001,
    2.0,
    f64::MAX,
    f64::MIN,
];

/// A NaN with another payload bit pattern.
pub fn odd_nan() -> f64 {
    let nan = f64::from_bits(0x7ff0_0000_0000_0001);
    assert!(nan.is_nan());
    nan
}

/// `BF.ADD key item` on a filter of any shape answers 0 or 1, or refuses with the size-limit
/// or the full error, never another (an internal) error. Returns the reply.
pub fn expect_add_answers(con: &mut Connection, key: &str, item: &str, what: &str) -> Value {
    let v = raw(con, &["BF.ADD", key, item]);
    match &v {
        Value::Int(0) | Value::Int(1) => {}
        other => {
            let text = err_of(other).unwrap_or_else(|| panic!("{what}: BF.ADD answered {v:?}"));
            assert!(
                text.starts_with("ERR filter would need ")
                    || text == "ERR non scaling filter is full",
                "{what}: BF.ADD {item} answered {text:?}"
            );
        }
    }
    v
}

/// Splits `ERR filter would need <n> bytes, over bf.max-filter-bytes (<limit>)` into
/// `(n, limit)`; None when the text has another shape.
pub fn parse_too_large(text: &str) -> Option<(u64, u64)> {
    let rest = text.strip_prefix("ERR filter would need ")?;
    let (n, rest) = rest.split_once(" bytes, over bf.max-filter-bytes (")?;
    let limit = rest.strip_suffix(')')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(n) || !digits(limit) {
        return None;
    }
    Some((n.parse().ok()?, limit.parse().ok()?))
}

/// Asserts a reply is the size-limit error and returns `(n, limit)`.
pub fn expect_too_large(v: &Value, what: &str) -> (u64, u64) {
    let text =
        err_of(v).unwrap_or_else(|| panic!("{what}: expected the size-limit error, got {v:?}"));
    parse_too_large(&text)
        .unwrap_or_else(|| panic!("{what}: error {text:?} is not the size-limit error"))
}

/// `CONFIG SET name value`, asserting OK.
pub fn config_set(con: &mut Connection, name: &str, value: &str) {
    expect_ok(con, &["CONFIG", "SET", name, value]);
}

/// `EXISTS key` as a bool.
pub fn key_exists<A: AsRef<[u8]>>(con: &mut Connection, key: A) -> bool {
    let args: [&[u8]; 2] = [b"EXISTS", key.as_ref()];
    as_int(&raw(con, &args)) == 1
}

/// `BF.LOADCHUNK`'s reply to a refused header, and to a data chunk whose iterator is below 1
/// or below its length (RedisBloom 8's text; the module logs why a header was refused).
pub const LOADCHUNK_BAD_DATA: &str = "ERR received bad data";
/// The start of the log line (notice level) that gives the reason for a refused header.
pub const LOADCHUNK_REFUSED_LOG: &str = "bf: BF.LOADCHUNK refused: ";
/// A data chunk starting before byte 0 or past the end of the filter's data.
pub const LOADCHUNK_INVALID_OFFSET: &str = "ERR invalid offset - no link found";
/// A data chunk that starts in a layer and runs past that layer's end.
pub const LOADCHUNK_TOO_BIG: &str = "ERR invalid chunk - Too big for current filter";

/// What `BF.LOADCHUNK key iter data` does to an existing Bloom filter whose layers end at
/// `ends` (byte offsets in its data stream, ascending), as RedisBloom 8's
/// `SBChain_LoadEncodedChunk` decides: every iterator, 1 included, carries a data chunk of
/// `len` bytes that starts at `iter - len - 1`. `Ok(offset)` where it is written (an empty
/// chunk at a valid offset writes nothing), else the error text.
pub fn loadchunk_verdict(iter: i64, len: usize, ends: &[u64]) -> Result<u64, &'static str> {
    let len = len as u64;
    if iter <= 0 || (iter as u64) < len {
        return Err(LOADCHUNK_BAD_DATA);
    }
    // iter == len: the chunk would start at byte -1.
    let Some(offset) = (iter as u64 - len).checked_sub(1) else {
        return Err(LOADCHUNK_INVALID_OFFSET);
    };
    match ends.iter().find(|&&end| offset < end) {
        None => Err(LOADCHUNK_INVALID_OFFSET),
        Some(&end) if offset + len > end => Err(LOADCHUNK_TOO_BIG),
        Some(_) => Ok(offset),
    }
}

/// The reasons the module logged for refused `BF.LOADCHUNK` headers so far, oldest first.
pub fn loadchunk_refusals(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|line| line.split_once(LOADCHUNK_REFUSED_LOG))
        .map(|(_, why)| why.to_string())
        .collect()
}
