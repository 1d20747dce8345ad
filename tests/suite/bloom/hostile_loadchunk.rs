//! Hostile `BF.LOADCHUNK` input: garbage and crafted headers, chunks that do not fit, bad
//! iterators. Every refusal is RedisBloom 8's reply to it (a refused header is `ERR received
//! bad data`, its reason in the server log; a header over `bf.max-filter-bytes` the size-limit
//! error), nothing is created or changed by a refused call, and the server keeps answering
//! with its other keys intact.
//!
//! The header (what `BF.SCANDUMP key 0` returns) is `b"RSBF"`, a version byte (1), then
//! `flags, expansion, error_rate, nlayers` and per layer `capacity, count, k, error,
//! bit_size`, each 8 bytes little-endian (u64, or f64 for the rates). It is read only at
//! iterator 1 on a missing key; on an existing key every iterator carries a data chunk, sent
//! with the iterator SCANDUMP returned after it: `1 + offset + len`.

use rsbloom_test_support as common;

use common::guava_model;
use common::hostile::{
    key_exists, loadchunk_refusals, loadchunk_verdict, Guard, Rng, LOADCHUNK_BAD_DATA as BAD_DATA,
    LOADCHUNK_INVALID_OFFSET as INVALID_OFFSET, LOADCHUNK_REFUSED_LOG,
    LOADCHUNK_TOO_BIG as TOO_BIG,
};
use common::*;
use redis::{Connection, Value};

const NOT_NUMERIC: &str = "ERR Second argument must be numeric";
const SCANDUMP_NOT_NUMERIC: &str = "Second argument must be numeric";
const NOT_FOUND: &str = "ERR not found";
const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";
const MAX_K: u64 = 1100;
const MAX_EXPANSION: u64 = 32768;

#[derive(Clone, Debug, PartialEq)]
struct HLayer {
    capacity: u64,
    count: u64,
    k: u64,
    error: f64,
    bit_size: u64,
}

#[derive(Clone, Debug)]
struct Header {
    magic: Vec<u8>,
    version: u8,
    flags: u64,
    expansion: u64,
    error_rate: f64,
    /// Overrides the layer count written.
    nlayers: Option<u64>,
    layers: Vec<HLayer>,
}

impl Header {
    fn bytes(&self) -> Vec<u8> {
        let mut out = self.magic.clone();
        out.push(self.version);
        let n = self.nlayers.unwrap_or(self.layers.len() as u64);
        out.extend_from_slice(&self.flags.to_le_bytes());
        out.extend_from_slice(&self.expansion.to_le_bytes());
        out.extend_from_slice(&self.error_rate.to_le_bytes());
        out.extend_from_slice(&n.to_le_bytes());
        for l in &self.layers {
            out.extend_from_slice(&l.capacity.to_le_bytes());
            out.extend_from_slice(&l.count.to_le_bytes());
            out.extend_from_slice(&l.k.to_le_bytes());
            out.extend_from_slice(&l.error.to_le_bytes());
            out.extend_from_slice(&l.bit_size.to_le_bytes());
        }
        out
    }

    fn data_bytes(&self) -> u64 {
        self.layers.iter().map(|l| l.bit_size / 8).sum()
    }

    fn debug_lines(&self) -> Vec<String> {
        let total: u128 = self.layers.iter().map(|l| l.count as u128).sum();
        let mut lines = vec![format!("size:{total}")];
        for l in &self.layers {
            lines.push(guava_model::debug_line(
                l.bit_size, l.k, l.capacity, l.count, l.error,
            ));
        }
        lines
    }
}

/// A scaling filter with two layers of 128 and 256 bytes.
fn two_layers() -> Header {
    Header {
        magic: b"RSBF".to_vec(),
        version: 1,
        flags: 0,
        expansion: 2,
        error_rate: 0.01,
        nlayers: None,
        layers: vec![
            HLayer {
                capacity: 100,
                count: 40,
                k: 7,
                error: 0.005,
                bit_size: 1024,
            },
            HLayer {
                capacity: 200,
                count: 5,
                k: 8,
                error: 0.0025,
                bit_size: 2048,
            },
        ],
    }
}

fn one_layer() -> Header {
    let mut h = two_layers();
    h.layers.truncate(1);
    h
}

fn rate_ok(p: f64) -> bool {
    p > 0.0 && p < 1.0
}

enum Verdict {
    Accept(Header),
    Reject(String),
    /// Too close to the size limit to call without knowing the module's bookkeeping.
    Unknown,
}

/// The oracle's reason for a header whose filter is over the size limit: the module refuses
/// it with the one size-limit error, every other reason with a bad-data error.
const OVER_LIMIT: &str = "over the size limit";

/// What the persistence contract makes of header bytes, under a size limit.
fn oracle(bytes: &[u8], limit: u64) -> Verdict {
    let Some(rest) = bytes.strip_prefix(b"RSBF") else {
        return Verdict::Reject("magic".into());
    };
    let Some((&version, rest)) = rest.split_first() else {
        return Verdict::Reject("no version".into());
    };
    if version != 1 {
        return Verdict::Reject("version".into());
    }
    if rest.len() < 32 || (rest.len() - 32) % 40 != 0 {
        return Verdict::Reject("length".into());
    }
    let word = |i: usize| u64::from_le_bytes(rest[8 * i..8 * i + 8].try_into().unwrap());
    let float = |i: usize| f64::from_bits(word(i));
    let nlayers = word(3);
    if nlayers != ((rest.len() - 32) / 40) as u64 {
        return Verdict::Reject("layer count does not match the length".into());
    }
    let h = Header {
        magic: b"RSBF".to_vec(),
        version,
        flags: word(0),
        expansion: word(1),
        error_rate: float(2),
        nlayers: None,
        layers: (0..nlayers as usize)
            .map(|i| HLayer {
                capacity: word(4 + 5 * i),
                count: word(5 + 5 * i),
                k: word(6 + 5 * i),
                error: float(7 + 5 * i),
                bit_size: word(8 + 5 * i),
            })
            .collect(),
    };
    if h.flags != 0
        || h.expansion > MAX_EXPANSION
        || !rate_ok(h.error_rate)
        || h.layers.is_empty()
        || (h.expansion == 0 && h.layers.len() != 1)
    {
        return Verdict::Reject("chain parameters".into());
    }
    for l in &h.layers {
        if l.capacity == 0
            || l.count > l.capacity
            || l.k == 0
            || l.k > MAX_K
            || !rate_ok(l.error)
            || l.bit_size == 0
            || l.bit_size % 64 != 0
        {
            return Verdict::Reject("layer parameters".into());
        }
    }
    let data = h
        .layers
        .iter()
        .fold(0u64, |s, l| s.saturating_add(l.bit_size / 8));
    if data > limit {
        return Verdict::Reject(OVER_LIMIT.into());
    }
    // The module adds its bookkeeping (well under 4 KiB for a few layers) to the data.
    if data + 4096 > limit {
        return Verdict::Unknown;
    }
    Verdict::Accept(h)
}

const KEY: &str = "loaded";

struct Bench {
    server: Server,
    con: Connection,
    guard: Guard,
}

impl Bench {
    fn new() -> Bench {
        let server = Server::start();
        let mut con = server.conn();
        let guard = Guard::plant(&mut con);
        Bench { server, con, guard }
    }

    fn load(&mut self, key: &str, iter: &[u8], data: &[u8]) -> Value {
        let args: [&[u8]; 4] = [b"BF.LOADCHUNK", key.as_bytes(), iter, data];
        raw(&mut self.con, &args)
    }

    /// How many header refusals the server has logged.
    fn refusals_logged(&self) -> usize {
        loadchunk_refusals(&self.server.log_text()).len()
    }

    /// `v`, the reply to a header, must be RedisBloom's `ERR received bad data`, with
    /// exactly one new log line (after `logged` earlier ones) giving a reason.
    fn expect_refused_header(&self, v: &Value, logged: usize, what: &str) {
        assert_eq!(
            err_of(v).as_deref(),
            Some(BAD_DATA),
            "{what}: LOADCHUNK answered {v:?}"
        );
        let reasons = loadchunk_refusals(&self.server.log_text());
        assert_eq!(
            reasons.len(),
            logged + 1,
            "{what}: not one new log line {LOADCHUNK_REFUSED_LOG:?}"
        );
        assert!(
            !reasons[logged].trim().is_empty(),
            "{what}: the log line gives no reason"
        );
    }

    /// A header at iterator 1 on a missing key must be refused with RedisBloom's bad-data
    /// error (its reason logged), and the key must stay missing.
    fn refuse_header(&mut self, bytes: &[u8], what: &str) {
        let logged = self.refusals_logged();
        let v = self.load(KEY, b"1", bytes);
        self.expect_refused_header(&v, logged, &format!("{what} (header {bytes:02x?})"));
        assert!(!key_exists(&mut self.con, KEY), "{what}: key created");
        self.guard.check(&mut self.con, what);
    }

    /// A header the oracle rejects for `reason`: over the size limit, the size-limit error;
    /// anything else, a bad-data error. The key stays missing either way.
    fn refuse_header_for(&mut self, bytes: &[u8], reason: &str, what: &str) {
        if reason != OVER_LIMIT {
            return self.refuse_header(bytes, what);
        }
        let v = self.load(KEY, b"1", bytes);
        let text = err_of(&v).unwrap_or_else(|| panic!("{what}: LOADCHUNK answered {v:?}"));
        assert!(
            common::hostile::parse_too_large(&text).is_some(),
            "{what}: LOADCHUNK answered {text:?}, expected the size-limit error"
        );
        assert!(!key_exists(&mut self.con, KEY), "{what}: key created");
        self.guard.check(&mut self.con, what);
    }

    /// A header must be accepted and give exactly the filter it describes (all bits clear).
    fn accept_header(&mut self, h: &Header, what: &str) {
        let v = self.load(KEY, b"1", &h.bytes());
        assert_eq!(v, Value::Okay, "{what}: LOADCHUNK answered {v:?}");
        assert_eq!(bf_debug(&mut self.con, KEY), h.debug_lines(), "{what}");
        // Reads work and the data stream is the right number of zero bytes.
        let info = bf_info(&mut self.con, KEY);
        assert_eq!(info.len(), 5, "{what}: BF.INFO {info:?}");
        let chunks = scandump(&mut self.con, KEY);
        assert_eq!(chunks[0].data, h.bytes(), "{what}: SCANDUMP header differs");
        let data: Vec<u8> = chunks.iter().skip(1).flat_map(|c| c.data.clone()).collect();
        assert_eq!(data.len() as u64, h.data_bytes(), "{what}: data length");
        assert!(data.iter().all(|&b| b == 0), "{what}: fresh bits not clear");
        expect_int(&mut self.con, &["BF.EXISTS", KEY, "anything"], 0);
        self.guard.check(&mut self.con, what);
    }

    fn drop_key(&mut self) {
        expect_int(&mut self.con, &["DEL", KEY], 1);
    }
}

/// `[0, ""]`: SCANDUMP's answer to an iterator below 0 or past the end of the data.
fn scandump_end() -> Value {
    Value::Array(vec![Value::Int(0), Value::BulkString(Vec::new())])
}

#[test]
fn the_real_header_has_the_documented_layout() {
    let mut b = Bench::new();
    let c = &mut b.con;
    expect_ok(c, &["BF.RESERVE", "real", "0.01", "100", "EXPANSION", "4"]);
    let items = gen_items("r", 0..150);
    madd_all(c, "real", &items);
    let chunks = scandump(c, "real");
    assert_eq!((chunks[0].sent, chunks[0].next), (0, 1));
    let header = &chunks[0].data;
    let parsed = match oracle(header, 1 << 30) {
        Verdict::Accept(h) => h,
        Verdict::Reject(why) => panic!("real header refused by the layout: {why}"),
        Verdict::Unknown => unreachable!(),
    };
    assert_eq!(parsed.bytes(), *header);
    assert_eq!(parsed.debug_lines(), bf_debug(c, "real"));
    assert_eq!(parsed.expansion, 4);
    assert_eq!(parsed.error_rate, 0.01);
    assert_eq!(parsed.layers.len(), 2);
    // A header built from scratch loads, and the real chunks complete it into the same filter.
    b.accept_header(&parsed, "rebuilt header");
    loadchunks(&mut b.con, KEY, &chunks[1..]);
    assert_eq!(
        digest_value(&mut b.con, KEY),
        digest_value(&mut b.con, "real")
    );
    let answers = mexists_all(&mut b.con, KEY, &items);
    assert!(answers.iter().all(|&a| a == 1));
}

#[test]
fn garbage_headers_are_refused() {
    let mut b = Bench::new();
    let good = two_layers().bytes();
    b.refuse_header(b"", "an empty header");
    let mut rng = Rng::new(0x10ad_c4a2_0000_0001);
    for i in 0..200 {
        let len = 1 + rng.below(200) as usize;
        let mut bytes = rng.bytes(len);
        if i % 2 == 0 && len >= 5 {
            // Half of them with the right magic and version, so the fields get parsed.
            bytes[..5].copy_from_slice(b"RSBF\x01");
        }
        if let Verdict::Accept(_) = oracle(&bytes, 1 << 29) {
            continue; // astronomically unlikely, but random bytes could form a header
        }
        b.refuse_header(&bytes, &format!("random header {i} ({len} bytes)"));
    }
    for cut in 0..good.len() {
        b.refuse_header(&good[..cut], &format!("header cut to {cut} bytes"));
    }
    for extra in [&[0u8][..], &[0xff], &[0; 8], &[0; 40]] {
        let mut longer = good.clone();
        longer.extend_from_slice(extra);
        b.refuse_header(&longer, &format!("header + {} bytes", extra.len()));
    }
    for i in 0..4 {
        let mut bad = good.clone();
        bad[i] ^= 0x20;
        b.refuse_header(&bad, &format!("magic byte {i} changed"));
    }
    for magic in [&b"MBbl"[..], b"RSB", b"RSBFF", b"\0\0\0\0"] {
        let mut h = two_layers();
        h.magic = magic.to_vec();
        b.refuse_header(&h.bytes(), &format!("magic {magic:?}"));
    }
    for version in [0u8, 2, 9, 0x7f, 0xff] {
        let mut h = two_layers();
        h.version = version;
        b.refuse_header(&h.bytes(), &format!("version {version}"));
    }
    b.guard.check_deep(&mut b.con, "garbage headers");
}

#[test]
fn crafted_header_fields_are_checked_at_their_bounds() {
    let mut b = Bench::new();
    type Edit = Box<dyn Fn(&mut Header)>;
    let bad: Vec<(&str, Edit)> = vec![
        ("flags 1", Box::new(|h| h.flags = 1)),
        ("flags u64::MAX", Box::new(|h| h.flags = u64::MAX)),
        (
            "expansion 32769",
            Box::new(|h| h.expansion = MAX_EXPANSION + 1),
        ),
        ("expansion 2^32", Box::new(|h| h.expansion = 1 << 32)),
        (
            "expansion 2^32 + 2",
            Box::new(|h| h.expansion = (1 << 32) + 2),
        ),
        ("expansion u64::MAX", Box::new(|h| h.expansion = u64::MAX)),
        ("non-scaling with 2 layers", Box::new(|h| h.expansion = 0)),
        ("error rate NaN", Box::new(|h| h.error_rate = f64::NAN)),
        ("error rate inf", Box::new(|h| h.error_rate = f64::INFINITY)),
        (
            "error rate -inf",
            Box::new(|h| h.error_rate = f64::NEG_INFINITY),
        ),
        ("error rate 0", Box::new(|h| h.error_rate = 0.0)),
        ("error rate -0", Box::new(|h| h.error_rate = -0.0)),
        ("error rate 1", Box::new(|h| h.error_rate = 1.0)),
        ("error rate -0.5", Box::new(|h| h.error_rate = -0.5)),
        ("layer count 0", Box::new(|h| h.nlayers = Some(0))),
        ("layer count 1 for 2", Box::new(|h| h.nlayers = Some(1))),
        ("layer count 3 for 2", Box::new(|h| h.nlayers = Some(3))),
        ("layer count 2^32", Box::new(|h| h.nlayers = Some(1 << 32))),
        ("layer count 2^63", Box::new(|h| h.nlayers = Some(1 << 63))),
        (
            "layer count u64::MAX",
            Box::new(|h| h.nlayers = Some(u64::MAX)),
        ),
        (
            "no layers at all",
            Box::new(|h| {
                h.layers.clear();
                h.nlayers = Some(2);
            }),
        ),
        (
            "capacity 0",
            Box::new(|h| {
                h.layers[1].capacity = 0;
                h.layers[1].count = 0;
            }),
        ),
        (
            "count above capacity",
            Box::new(|h| h.layers[0].count = 101),
        ),
        ("count u64::MAX", Box::new(|h| h.layers[1].count = u64::MAX)),
        ("k 0", Box::new(|h| h.layers[0].k = 0)),
        ("k 1101", Box::new(|h| h.layers[0].k = MAX_K + 1)),
        ("k 5000", Box::new(|h| h.layers[1].k = 5000)),
        ("k 2^32 + 7", Box::new(|h| h.layers[0].k = (1 << 32) + 7)),
        ("k u64::MAX", Box::new(|h| h.layers[1].k = u64::MAX)),
        (
            "layer error NaN",
            Box::new(|h| h.layers[0].error = f64::NAN),
        ),
        (
            "layer error inf",
            Box::new(|h| h.layers[1].error = f64::INFINITY),
        ),
        ("layer error 0", Box::new(|h| h.layers[0].error = 0.0)),
        ("layer error 1", Box::new(|h| h.layers[1].error = 1.0)),
        ("layer error -0.1", Box::new(|h| h.layers[0].error = -0.1)),
        ("bit size 0", Box::new(|h| h.layers[0].bit_size = 0)),
        ("bit size 63", Box::new(|h| h.layers[0].bit_size = 63)),
        ("bit size 65", Box::new(|h| h.layers[1].bit_size = 65)),
        ("bit size 968", Box::new(|h| h.layers[0].bit_size = 968)),
        (
            "bit size 2^63",
            Box::new(|h| h.layers[0].bit_size = 1 << 63),
        ),
        (
            "bit size u64::MAX - 63",
            Box::new(|h| h.layers[1].bit_size = u64::MAX - 63),
        ),
        (
            "bit size u64::MAX",
            Box::new(|h| h.layers[1].bit_size = u64::MAX),
        ),
        (
            "bit size 2^43 (1 TiB)",
            Box::new(|h| h.layers[0].bit_size = 1 << 43),
        ),
        (
            "two layers of 2^63 bits",
            Box::new(|h| {
                h.layers[0].bit_size = 1 << 63;
                h.layers[1].bit_size = 1 << 63;
            }),
        ),
    ];
    for (what, edit) in &bad {
        let mut h = two_layers();
        edit(&mut h);
        let reason = match oracle(&h.bytes(), 1 << 29) {
            Verdict::Reject(reason) => reason,
            Verdict::Accept(_) => panic!("test table: {what} is a valid header"),
            Verdict::Unknown => panic!("test table: {what} is too close to the limit to call"),
        };
        b.refuse_header_for(&h.bytes(), &reason, what);
    }
    let good: Vec<(&str, Edit)> = vec![
        ("as built", Box::new(|_| {})),
        ("one layer", Box::new(|h| h.layers.truncate(1))),
        (
            "non-scaling, one layer",
            Box::new(|h| {
                h.layers.truncate(1);
                h.expansion = 0;
            }),
        ),
        ("expansion 1", Box::new(|h| h.expansion = 1)),
        ("expansion 32768", Box::new(|h| h.expansion = MAX_EXPANSION)),
        (
            "k 1 and 1100",
            Box::new(|h| {
                h.layers[0].k = 1;
                h.layers[1].k = MAX_K;
            }),
        ),
        (
            "full layers",
            Box::new(|h| {
                h.layers[0].count = 100;
                h.layers[1].count = 200;
            }),
        ),
        (
            "tiny error rates",
            Box::new(|h| {
                h.error_rate = 1e-300;
                h.layers[0].error = 5e-324;
            }),
        ),
        (
            "64-bit layers",
            Box::new(|h| {
                h.layers[0].bit_size = 64;
                h.layers[1].bit_size = 64;
            }),
        ),
    ];
    for (what, edit) in &good {
        let mut h = two_layers();
        edit(&mut h);
        b.accept_header(&h, what);
        b.drop_key();
    }
    b.guard.check_deep(&mut b.con, "crafted headers");
}

/// A one-layer filter whose only layer is full with capacity u64::MAX.
fn full_u64_max_layer() -> Header {
    let mut h = one_layer();
    h.layers[0].capacity = u64::MAX;
    h.layers[0].count = u64::MAX;
    h.expansion = MAX_EXPANSION;
    h
}

#[test]
fn add_past_a_full_layer_of_capacity_u64_max_is_refused_by_the_limit() {
    // The next layer would need capacity u64::MAX * 32768: the add must be refused by the
    // size limit, not wrap around or crash.
    let mut b = Bench::new();
    let h = full_u64_max_layer();
    b.accept_header(&h, "full layer of capacity u64::MAX");
    let v = raw(&mut b.con, &["BF.ADD", KEY, "new item"]);
    let text = err_of(&v).unwrap_or_else(|| panic!("BF.ADD answered {v:?}"));
    assert!(
        text.starts_with("ERR filter would need "),
        "BF.ADD on a full u64::MAX layer answered {text:?}"
    );
    assert_eq!(bf_debug(&mut b.con, KEY), h.debug_lines(), "filter changed");
    b.guard.check_deep(&mut b.con, "add past u64::MAX");
}

#[test]
fn counts_beyond_i64_are_never_reported_negative() {
    // A loaded header may claim u64::MAX items, which no integer reply can carry. Nothing
    // specifies it; BF.INFO clamps to i64::MAX, and whatever CARD answers must at least not be
    // negative (a negative cardinality is nonsense to every client).
    let mut b = Bench::new();
    let h = full_u64_max_layer();
    b.accept_header(&h, "count u64::MAX");
    let items = info_value(&mut b.con, KEY, "Number of items inserted");
    assert!(
        matches!(items, Value::Int(n) if n >= 0),
        "BF.INFO items: {items:?}"
    );
    let card = raw(&mut b.con, &["BF.CARD", KEY]);
    assert!(
        matches!(card, Value::Int(n) if n >= 0),
        "BF.CARD answered {card:?}"
    );
    b.guard.check_deep(&mut b.con, "huge counts");
}

#[test]
fn a_total_count_is_never_smaller_than_one_of_its_layers() {
    // Two full layers of 2^63 items each: their sum does not fit a u64. Nothing specifies
    // how it is shown; whatever BF.DEBUG, BF.CARD and BF.INFO answer must not be less than
    // one layer's count (clamped to i64::MAX for the integer replies), i.e. must not wrap.
    let mut b = Bench::new();
    let mut h = two_layers();
    for l in &mut h.layers {
        l.capacity = 1 << 63;
        l.count = 1 << 63;
    }
    let v = b.load(KEY, b"1", &h.bytes());
    assert_eq!(
        v,
        Value::Okay,
        "header with two layers of 2^63 items: {v:?}"
    );
    let debug = bf_debug(&mut b.con, KEY);
    let total: u128 = debug[0]
        .strip_prefix("size:")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("BF.DEBUG first line {:?}", debug[0]));
    assert!(
        total >= 1 << 63,
        "BF.DEBUG total {total} is below one layer's 2^63"
    );
    let card = as_int(&raw(&mut b.con, &["BF.CARD", KEY]));
    assert_eq!(card, i64::MAX, "BF.CARD of more than i64::MAX items");
    let items = info_value(&mut b.con, KEY, "Number of items inserted");
    assert_eq!(items, Value::Int(i64::MAX), "BF.INFO items");
    b.guard.check_deep(&mut b.con, "count overflow");
}

#[test]
fn a_full_loaded_non_scaling_filter_answers_full() {
    let mut b = Bench::new();
    let mut h = one_layer();
    h.expansion = 0;
    h.layers[0].count = h.layers[0].capacity;
    b.accept_header(&h, "full non-scaling layer");
    expect_err(
        &mut b.con,
        &["BF.ADD", KEY, "new item"],
        "ERR non scaling filter is full",
    );
    assert_eq!(bf_debug(&mut b.con, KEY), h.debug_lines(), "filter changed");
    b.guard.check_deep(&mut b.con, "full non-scaling");
}

#[test]
fn add_past_a_layer_with_the_smallest_error_is_refused() {
    // The next layer's error (half of 5e-324) is 0, which no layer may have: the add must
    // be refused with the size-limit error, not build a broken layer.
    let mut b = Bench::new();
    let mut h = one_layer();
    h.layers[0].error = 5e-324;
    h.layers[0].count = h.layers[0].capacity;
    b.accept_header(&h, "full layer with error 5e-324");
    let v = raw(&mut b.con, &["BF.ADD", KEY, "new item"]);
    let text = err_of(&v).unwrap_or_else(|| panic!("BF.ADD answered {v:?}"));
    assert!(
        text.starts_with("ERR filter would need "),
        "BF.ADD past a 5e-324 layer answered {text:?}"
    );
    assert_eq!(bf_debug(&mut b.con, KEY), h.debug_lines(), "filter changed");
    b.guard.check_deep(&mut b.con, "edge adds");
}

#[test]
fn chunks_before_the_header_and_headers_on_existing_keys() {
    let mut b = Bench::new();
    // No header yet: the key does not exist, and only iterator 1 carries a header.
    for iter in ["2", "9", "129", "1099511627776", "9223372036854775807"] {
        let v = b.load("nokey", iter.as_bytes(), b"\x01");
        assert_eq!(
            err_of(&v).as_deref(),
            Some(NOT_FOUND),
            "chunk at {iter} on a missing key: {v:?}"
        );
        assert!(!key_exists(&mut b.con, "nokey"));
    }
    b.guard.check(&mut b.con, "chunks before the header");
    // A header sent to an existing filter is a data chunk like any other: at iterator 1 it
    // is longer than its iterator allows ("received bad data"), and nothing is created over
    // the filter. On an existing key of another type: WRONGTYPE, as for every BF command.
    let header = two_layers().bytes();
    let guard_key = b.guard.filter_key.clone();
    let string_key = b.guard.string_key.clone();
    for (key, error) in [(&guard_key, BAD_DATA), (&string_key, WRONGTYPE)] {
        let v = b.load(key, b"1", &header);
        assert_eq!(
            err_of(&v).as_deref(),
            Some(error),
            "header on existing {key}: {v:?}"
        );
    }
    b.guard.check_deep(&mut b.con, "headers on existing keys");
    // The same on a filter loaded from a header a moment ago.
    b.accept_header(&two_layers(), "first header");
    let before = data_of(&mut b.con, KEY);
    let v = b.load(KEY, b"1", &one_layer().bytes());
    assert_eq!(
        err_of(&v).as_deref(),
        Some(BAD_DATA),
        "second header: {v:?}"
    );
    assert_eq!(bf_debug(&mut b.con, KEY), two_layers().debug_lines());
    assert_eq!(
        data_of(&mut b.con, KEY),
        before,
        "second header: data changed"
    );
    // At an iterator that makes it fit the first layer (77 of its 128 bytes), the header's
    // bytes are written as bits; the filter's parameters stay as they were.
    let second = one_layer().bytes();
    assert_eq!(second.len(), 77);
    let iter = (second.len() + 1).to_string();
    let v = b.load(KEY, iter.as_bytes(), &second);
    assert_eq!(v, Value::Okay, "a header as the first chunk: {v:?}");
    let mut model = before;
    model[..second.len()].copy_from_slice(&second);
    assert_eq!(
        data_of(&mut b.con, KEY),
        model,
        "a header as the first chunk"
    );
    assert_eq!(bf_debug(&mut b.con, KEY), two_layers().debug_lines());
    // Data chunks on a key of another type.
    let v = b.load(&string_key, b"9", b"\x01");
    assert_eq!(err_of(&v).as_deref(), Some(WRONGTYPE));
    b.guard.check_deep(&mut b.con, "wrong type chunk");
}

/// The loaded filter's data stream.
fn data_of(con: &mut Connection, key: &str) -> Vec<u8> {
    scandump(con, key)
        .iter()
        .skip(1)
        .flat_map(|c| c.data.clone())
        .collect()
}

#[test]
fn chunks_that_do_not_fit_are_refused() {
    let mut b = Bench::new();
    let h = two_layers();
    b.accept_header(&h, "two layers");
    let total = h.data_bytes(); // 128 + 256
    assert_eq!(total, 384);
    let mut model = vec![0u8; total as usize];
    // Chunks that fit: whole layers, single bytes at the edges.
    let fits: [(u64, usize); 5] = [(0, 128), (128, 256), (127, 1), (128, 1), (383, 1)];
    for (n, (offset, len)) in fits.iter().enumerate() {
        let data: Vec<u8> = (0..*len)
            .map(|i| (i as u8) ^ (n as u8 * 50) ^ 0x33)
            .collect();
        let iter = (offset + 1 + *len as u64).to_string();
        let v = b.load(KEY, iter.as_bytes(), &data);
        assert_eq!(v, Value::Okay, "chunk at {offset} of {len}: {v:?}");
        model[*offset as usize..*offset as usize + len].copy_from_slice(&data);
    }
    assert_eq!(data_of(&mut b.con, KEY), model);
    let debug = bf_debug(&mut b.con, KEY);
    let ends = [128u64, 384];
    // Chunks that do not fit, each with RedisBloom 8's reply: starting past the end or
    // before byte 0 (no layer found), across a layer's or the filter's end (too big),
    // longer than their iterator allows or at an iterator below 1 (bad data).
    let cases: Vec<(String, Vec<u8>, &str, &str)> = vec![
        (
            "386".into(),
            vec![1],
            "one byte just past the end",
            INVALID_OFFSET,
        ),
        (
            "393".into(),
            vec![1; 8],
            "eight bytes just past the end",
            INVALID_OFFSET,
        ),
        (
            ((1u64 << 40) + 9).to_string(),
            vec![1; 8],
            "an offset of 2^40",
            INVALID_OFFSET,
        ),
        (
            i64::MAX.to_string(),
            vec![1; 8],
            "an offset near i64::MAX",
            INVALID_OFFSET,
        ),
        (
            i64::MAX.to_string(),
            vec![1],
            "one byte at i64::MAX - 2",
            INVALID_OFFSET,
        ),
        (
            "385".into(),
            vec![],
            "an empty chunk just past the end",
            INVALID_OFFSET,
        ),
        (
            "2".into(),
            vec![1; 2],
            "two bytes at iterator 2 (from byte -1)",
            INVALID_OFFSET,
        ),
        (
            "1".into(),
            vec![1],
            "one byte at iterator 1 (at byte -1)",
            INVALID_OFFSET,
        ),
        (
            "137".into(),
            vec![1; 16],
            "across the first layer's end (120..136)",
            TOO_BIG,
        ),
        (
            "130".into(),
            vec![1; 2],
            "across the first layer's end (127..129)",
            TOO_BIG,
        ),
        (
            "389".into(),
            vec![1; 8],
            "across the filter's end (380..388)",
            TOO_BIG,
        ),
        (
            "386".into(),
            vec![1; 385],
            "the whole data and one byte more",
            TOO_BIG,
        ),
        (
            "5".into(),
            vec![1; 10],
            "longer than its iterator allows",
            BAD_DATA,
        ),
        (
            "3".into(),
            vec![1; 300],
            "300 bytes at iterator 3",
            BAD_DATA,
        ),
        ("0".into(), vec![1], "iterator 0", BAD_DATA),
        (
            "-5".into(),
            vec![],
            "an empty chunk at iterator -5",
            BAD_DATA,
        ),
    ];
    for (iter, data, what, error) in &cases {
        let parsed: i64 = iter.parse().expect("test table: iterator");
        assert_eq!(
            loadchunk_verdict(parsed, data.len(), &ends),
            Err(*error),
            "test table: {what}"
        );
        let v = b.load(KEY, iter.as_bytes(), data);
        assert_eq!(
            err_of(&v).as_deref(),
            Some(*error),
            "{what}: answered {v:?}"
        );
        assert_eq!(data_of(&mut b.con, KEY), model, "{what}: data changed");
        assert_eq!(bf_debug(&mut b.con, KEY), debug, "{what}: filter changed");
        b.guard.check(&mut b.con, what);
    }
    // An empty chunk at a valid offset (the first byte, one inside, the last byte) is
    // written as RedisBloom writes it: OK, and nothing changes.
    for iter in ["1", "10", "129", "384"] {
        let v = b.load(KEY, iter.as_bytes(), b"");
        assert_eq!(v, Value::Okay, "an empty chunk at iterator {iter}: {v:?}");
        assert_eq!(
            data_of(&mut b.con, KEY),
            model,
            "an empty chunk at iterator {iter} changed the data"
        );
        assert_eq!(
            bf_debug(&mut b.con, KEY),
            debug,
            "empty chunk: filter changed"
        );
    }
    b.guard.check_deep(&mut b.con, "chunks that do not fit");
}

#[test]
fn bad_iterators_are_refused() {
    let mut b = Bench::new();
    b.accept_header(&two_layers(), "two layers");
    let before = data_of(&mut b.con, KEY);
    let string_key = b.guard.string_key.clone();
    // Not integers as the server reads them (no sign but '-', no leading zero, no spaces,
    // within i64): LOADCHUNK refuses them before it looks at the key; SCANDUMP looks at the
    // key first.
    let not_integers = [
        "9223372036854775808",
        "-9223372036854775809",
        "99999999999999999999",
        "abc",
        "1.5",
        "1e3",
        "0x10",
        "",
        " 2",
        "2 ",
        "2abc",
        "+2",
        "02",
        "\u{ff10}",
    ];
    for iter in not_integers {
        for key in [KEY, "missing", &string_key] {
            let v = b.load(key, iter.as_bytes(), b"\x01");
            assert_eq!(
                err_of(&v).as_deref(),
                Some(NOT_NUMERIC),
                "LOADCHUNK {key} {iter:?}: {v:?}"
            );
        }
        for (key, error) in [
            (KEY, SCANDUMP_NOT_NUMERIC),
            ("missing", NOT_FOUND),
            (&string_key, WRONGTYPE),
        ] {
            let v = raw(&mut b.con, &["BF.SCANDUMP", key, iter]);
            assert_eq!(
                err_of(&v).as_deref(),
                Some(error),
                "SCANDUMP {key} {iter:?}: {v:?}"
            );
        }
    }
    let v = b.load(KEY, b"\xff\xfe", b"\x01");
    assert_eq!(err_of(&v).as_deref(), Some(NOT_NUMERIC));
    // Integers below 1: on the filter, a data chunk refused as bad data; on a missing key
    // no header (only iterator 1 is one), so not found. SCANDUMP finds nothing there:
    // [0, ""] (iterator 0 is its header).
    for iter in ["0", "-1", "-2", "-9223372036854775808"] {
        for (key, error) in [(KEY, BAD_DATA), ("missing", NOT_FOUND)] {
            let v = b.load(key, iter.as_bytes(), b"\x01");
            assert_eq!(
                err_of(&v).as_deref(),
                Some(error),
                "LOADCHUNK {key} {iter:?}: {v:?}"
            );
        }
        if iter != "0" {
            let v = raw(&mut b.con, &["BF.SCANDUMP", KEY, iter]);
            assert_eq!(v, scandump_end(), "SCANDUMP {iter:?}");
        }
    }
    // Past the end of the 384 data bytes: [0, ""] too.
    for iter in ["385", "386", "1099511627776", "9223372036854775807"] {
        let v = raw(&mut b.con, &["BF.SCANDUMP", KEY, iter]);
        assert_eq!(v, scandump_end(), "SCANDUMP {iter:?}");
    }
    // A header at iterator 0 is no header either.
    let v = b.load("fresh", b"0", &two_layers().bytes());
    assert_eq!(err_of(&v).as_deref(), Some(NOT_FOUND));
    assert!(!key_exists(&mut b.con, "fresh"));
    assert_eq!(data_of(&mut b.con, KEY), before);
    assert!(!key_exists(&mut b.con, "missing"));
    b.guard.check_deep(&mut b.con, "bad iterators");
}

/// A header over the limit is refused with the size-limit error (the one refusal of a
/// header that is not RedisBloom's "received bad data").
fn expect_over_limit(v: &Value, what: &str) {
    let text = err_of(v).unwrap_or_else(|| panic!("{what}: answered {v:?}"));
    assert!(
        common::hostile::parse_too_large(&text).is_some(),
        "{what}: answered {text:?}, expected the size-limit error"
    );
}

#[test]
fn headers_over_max_filter_bytes_are_refused() {
    let mut b = Bench::new();
    let sizes: [(u64, &str); 3] = [
        (512 * 1024 * 1024, "512 MiB of bits"),
        (600 * 1024 * 1024, "600 MiB of bits"),
        (1 << 40, "1 TiB of bits"),
    ];
    for (bytes, what) in sizes {
        let mut h = one_layer();
        h.layers[0].bit_size = bytes * 8;
        let v = b.load(KEY, b"1", &h.bytes());
        expect_over_limit(&v, what);
        assert!(!key_exists(&mut b.con, KEY));
        b.guard.check(&mut b.con, what);
    }
    // Two layers that fit alone but not together.
    let mut h = two_layers();
    h.layers[0].bit_size = 300 * 1024 * 1024 * 8;
    h.layers[1].bit_size = 300 * 1024 * 1024 * 8;
    let v = b.load(KEY, b"1", &h.bytes());
    expect_over_limit(&v, "two layers of 300 MiB");
    assert!(!key_exists(&mut b.con, KEY));
    // With a lowered limit.
    expect_ok(
        &mut b.con,
        &["CONFIG", "SET", "bf.max-filter-bytes", "4096"],
    );
    let mut h = one_layer();
    h.layers[0].bit_size = 8192 * 8;
    let v = b.load(KEY, b"1", &h.bytes());
    expect_over_limit(&v, "8 KiB under a 4 KiB limit");
    assert!(!key_exists(&mut b.con, KEY));
    h.layers[0].bit_size = 2048 * 8;
    b.accept_header(&h, "2 KiB under a 4 KiB limit");
    b.guard.check_deep(&mut b.con, "headers over the limit");
}

#[test]
fn random_header_mutations_and_chunks_never_hurt_the_server() {
    let mut b = Bench::new();
    let limit = 1u64 << 20;
    expect_ok(
        &mut b.con,
        &["CONFIG", "SET", "bf.max-filter-bytes", &limit.to_string()],
    );
    let mut rng = Rng::new(0xc4a2_2024_0000_0007);
    let base = two_layers().bytes();
    let (mut accepted, mut refused) = (0, 0);
    for round in 0..2000 {
        let mut bytes = base.clone();
        for _ in 0..=rng.below(3) {
            let at = 5 + rng.below(bytes.len() as u64 - 5) as usize;
            match rng.below(5) {
                0 => bytes[at] = rng.byte(),
                1 => bytes[at] ^= 1 << rng.below(8),
                2 => bytes[at] = [0x00, 0x01, 0x40, 0x7f, 0x80, 0xff][rng.below(6) as usize],
                3 => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, rng.byte()),
            }
        }
        let what = format!("header mutation {round}");
        match oracle(&bytes, limit) {
            Verdict::Reject(reason) => {
                b.refuse_header_for(&bytes, &reason, &what);
                refused += 1;
            }
            Verdict::Accept(h) => {
                b.accept_header(&h, &what);
                b.drop_key();
                accepted += 1;
            }
            Verdict::Unknown => {
                let logged = b.refusals_logged();
                let v = b.load(KEY, b"1", &bytes);
                if v == Value::Okay {
                    b.drop_key();
                } else {
                    b.expect_refused_header(&v, logged, &what);
                }
                b.guard.check(&mut b.con, &what);
            }
        }
    }
    assert!(
        refused >= 500 && accepted >= 100,
        "{refused} refused, {accepted} accepted"
    );
    // Random chunks against a loaded filter: each is written exactly when RedisBloom 8
    // writes it (it fits in one layer), refused with its error otherwise, and the data
    // stream follows a model of the writes.
    let h = two_layers();
    b.accept_header(&h, "two layers");
    let mut model = vec![0u8; h.data_bytes() as usize];
    let ends = [128u64, 384];
    let mut written = 0u32;
    let mut bounced = std::collections::BTreeMap::new();
    for round in 0..2000 {
        let len = rng.below(40) as usize;
        let iter: i64 = match rng.below(4) {
            0 => rng.below(400) as i64 - 5,
            1 => rng.next_u64() as i64,
            _ => 1 + (rng.below(400) + len as u64) as i64,
        };
        let data = rng.bytes(len);
        let v = b.load(KEY, iter.to_string().as_bytes(), &data);
        let what = format!("chunk {round}: iterator {iter}, {len} bytes");
        match loadchunk_verdict(iter, len, &ends) {
            Ok(off) => {
                assert_eq!(v, Value::Okay, "{what}");
                let off = off as usize;
                model[off..off + len].copy_from_slice(&data);
                written += (len > 0) as u32;
            }
            Err(error) => {
                assert_eq!(err_of(&v).as_deref(), Some(error), "{what}: {v:?}");
                *bounced.entry(error).or_insert(0u32) += 1;
            }
        }
        if round % 100 == 0 {
            assert_eq!(data_of(&mut b.con, KEY), model, "after {what}");
            b.guard.check(&mut b.con, &what);
        }
    }
    assert_eq!(data_of(&mut b.con, KEY), model);
    // Every refusal was seen often enough to count.
    assert!(
        written >= 200
            && [BAD_DATA, INVALID_OFFSET, TOO_BIG]
                .iter()
                .all(|e| bounced.get(e).is_some_and(|&n| n >= 20)),
        "{written} written, refused: {bounced:?}"
    );
    b.guard.check_deep(&mut b.con, "random chunks");
}
