//! Hostile input for `MBbloom--`, RedisBloom v2.8's own type (encoding version 4): `RESTORE`
//! payloads with a valid CRC and `BF.LOADCHUNK` headers in RedisBloom's packed layout, built
//! from the real vectors in `tests/vectors/redisbloom/` (see its README) with one field at a
//! time moved across the loader's rules, cut at every byte, or mutated at random. A refusal
//! creates no key and leaves the server answering with its other keys untouched; everything
//! accepted is a filter that answers, grows as RedisBloom would and survives DUMP / RESTORE.
//!
//! The rules, for the RDB value and the SCANDUMP header alike: encoding version 4; options
//! exactly 5 (NOROUND | FORCE64) or 13 (also NO_SCALING, then exactly one link); growth a
//! 32-bit value, in 1..=32768 for a scaling filter (a non-scaling one records any growth, 0
//! included, and never reads it); nfilters >= 1; per link entries >= 1, error a finite
//! number in (0, 1), hashes in 1..=1100, bpe finite and > 0, hashes = ceil(LN2 * bpe), bits
//! a non-zero multiple of 64,
//! n2 == 0, the bit array (or the header's byte count) exactly bits / 8 bytes, size <=
//! entries; the chain's size is the sum of the link sizes; Size (32 + 64 * nfilters + the
//! bytes of all links) is within `bf.max-filter-bytes`.

use rsbloom_test_support as common;

use common::hostile::{
    config_set, expect_add_answers, key_exists, loadchunk_refusals, loadchunk_verdict, mutate,
    odd_nan, parse_too_large, Guard, Mutation, Rng, BAD_RATES, LOADCHUNK_BAD_DATA,
    LOADCHUNK_INVALID_OFFSET, LOADCHUNK_REFUSED_LOG, LOADCHUNK_TOO_BIG,
};
use common::rdb::*;
use common::redisbloom::{bytes_diff, hex, Config, INFO_FIELDS};
use common::redisbloom_model::{
    at_link, bpe_for, header_oracle, new_link, oracle, vector_filter, Added, Filter, Header, Link,
    Model, Verdict, AT_GROWTH, AT_NFILTERS, AT_OPTIONS, AT_SIZE, HEADER_FIXED, HEADER_LINK, L_BITS,
    L_BPE, L_DATA, L_ENTRIES, L_ERROR, L_HASHES, L_N2, L_SIZE, MAX_GROWTH, MAX_HASHES, MODULE_ID,
    NO_SCALING, SCALING, TYPE_NAME,
};
use common::*;
use redis::{Connection, Value};

const DEFAULT_LIMIT: u64 = 512 * 1024 * 1024;
const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";
const REFUSAL_LOG: &str = "bf: refusing to load key '";
const FULL: &str = "ERR non scaling filter is full";
const TOO_LARGE: &str = "ERR filter would need ";

use common::redisbloom_model::rb_hash;

// ---------------------------------------------------------------------------------------
// The fixture
// ---------------------------------------------------------------------------------------

const VICTIM: &str = "victim";
const COPY: &str = "victim:copy";

struct Bench {
    server: Server,
    con: Connection,
    /// The frame of RedisBloom's own DUMP of `tiny`: MBbloom-- v4, RDB version 10.
    frame: Frame,
    guard: Guard,
    limit: u64,
}

impl Bench {
    fn new() -> Bench {
        let server = Server::start();
        let mut con = server.conn();
        let frame = Frame::from_dump(&Config::load("tiny").dump);
        assert_eq!(frame.module_id(), MODULE_ID, "module id of the vectors");
        let guard = Guard::plant(&mut con);
        // Uncompressed DUMPs, so the module's own DUMP can be compared byte for byte with
        // the payload expected here.
        config_set(&mut con, "rdbcompression", "no");
        Bench {
            server,
            con,
            frame,
            guard,
            limit: DEFAULT_LIMIT,
        }
    }

    fn set_limit(&mut self, limit: u64) {
        config_set(&mut self.con, "bf.max-filter-bytes", &limit.to_string());
        self.limit = limit;
    }

    fn refusals_logged(&self) -> usize {
        self.server.log_text().matches(REFUSAL_LOG).count()
    }

    /// RESTORE must answer `ERR Bad data format`, create nothing and disturb nothing.
    fn refuse(&mut self, payload: &[u8], what: &str) {
        expect_restore_refused(&mut self.con, VICTIM, payload, what);
        self.guard.check(&mut self.con, what);
    }

    /// As [`Bench::refuse`], for a payload the module itself reads (the right type and a
    /// readable module id): its refusal must also leave a line in the log.
    fn refuse_logged(&mut self, payload: &[u8], what: &str) {
        let before = self.refusals_logged();
        self.refuse(payload, what);
        assert!(
            self.refusals_logged() > before,
            "{what}: refused without a log line starting {REFUSAL_LOG:?}"
        );
    }

    /// A payload built from `filter` must be refused, and the oracle must agree (so a table
    /// entry that is really valid shows as a mistake of the table).
    fn refuse_filter(&mut self, frame: &Frame, filter: &Filter, what: &str) {
        let payload = frame.payload(&filter.fields());
        if let Verdict::Accept(_) = oracle(&payload, self.limit) {
            panic!("test table: {what} is a valid payload");
        }
        self.refuse_logged(&payload, what);
    }

    /// A payload built from `filter` must be accepted and give exactly that filter.
    fn accept_filter(&mut self, filter: &Filter, items: &[Vec<u8>], what: &str) {
        let payload = self.frame.payload(&filter.fields());
        match oracle(&payload, self.limit) {
            Verdict::Accept(f) => assert_eq!(f.links, filter.links, "{what}: decoded"),
            other => panic!("test table: {what} is not a valid payload: {other:?}"),
        }
        let v = restore(&mut self.con, VICTIM, &payload);
        assert_eq!(v, Value::Okay, "{what}: RESTORE answered {v:?}");
        self.check_usable(VICTIM, filter, items, 24, what);
        expect_int(&mut self.con, &["DEL", VICTIM], 1);
    }

    /// RESTORE must do what the oracle says; an accepted filter is checked and deleted.
    /// Returns the verdict's kind: 'a'ccepted, 'r'ejected, 'u'nknown.
    fn expect_oracle(&mut self, payload: &[u8], what: &str) -> char {
        match oracle(payload, self.limit) {
            Verdict::Reject(r) => {
                self.refuse(payload, &format!("{what} ({})", r.why));
                'r'
            }
            Verdict::Accept(filter) => {
                let v = restore(&mut self.con, VICTIM, payload);
                assert_eq!(v, Value::Okay, "{what}: RESTORE answered {v:?}");
                self.check_usable(VICTIM, &filter, &[], 4, what);
                expect_int(&mut self.con, &["DEL", VICTIM], 1);
                'a'
            }
            Verdict::Unknown(why) => {
                restore_unmodelled(&mut self.con, VICTIM, payload, what, &why, |c| {
                    check_readable(c, VICTIM, what)
                });
                self.guard.check(&mut self.con, what);
                'u'
            }
        }
    }

    fn load(&mut self, key: &str, iter: &str, data: &[u8]) -> Value {
        let args: [&[u8]; 4] = [b"BF.LOADCHUNK", key.as_bytes(), iter.as_bytes(), data];
        raw(&mut self.con, &args)
    }

    /// A header at iterator 1 on a missing key must be refused with RedisBloom's bad-data
    /// error and one new log line giving the reason (or, when its Size is over the limit,
    /// with the size-limit error), and the key must stay missing.
    fn refuse_header(&mut self, bytes: &[u8], over_limit: bool, what: &str) {
        let logged = loadchunk_refusals(&self.server.log_text()).len();
        let v = self.load(VICTIM, "1", bytes);
        let text = err_of(&v)
            .unwrap_or_else(|| panic!("{what}: LOADCHUNK answered {v:?} (header {})", hex(bytes)));
        if text == LOADCHUNK_BAD_DATA {
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
        } else {
            assert!(
                over_limit && parse_too_large(&text).is_some(),
                "{what}: LOADCHUNK answered {text:?}, expected {LOADCHUNK_BAD_DATA:?} \
                 (header {})",
                hex(bytes)
            );
        }
        assert!(!key_exists(&mut self.con, VICTIM), "{what}: key created");
        self.guard.check(&mut self.con, what);
    }

    /// A header the oracle refuses must be refused.
    fn refuse_header_checked(&mut self, h: &Header, what: &str) {
        let bytes = h.bytes();
        match header_oracle(&bytes, self.limit) {
            Verdict::Reject(r) => self.refuse_header(&bytes, r.over_limit, what),
            other => panic!("test table: {what} is not a bad header: {other:?}"),
        }
    }

    /// A header must be accepted and give exactly the (all clear) filter it describes.
    fn accept_header(&mut self, h: &Header, probes: usize, what: &str) {
        let v = self.load(VICTIM, "1", &h.bytes());
        assert_eq!(
            v,
            Value::Okay,
            "{what}: LOADCHUNK answered {v:?} (header {})",
            hex(&h.bytes())
        );
        self.check_usable(VICTIM, &h.filter(), &[], probes, what);
        expect_int(&mut self.con, &["DEL", VICTIM], 1);
    }

    /// The key holds exactly `filter`: TYPE, BF.DEBUG, BF.INFO, BF.CARD, the SCANDUMP header,
    /// chunks and bits, and the (uncompressed) DUMP.
    fn expect_state(&mut self, key: &str, filter: &Filter, what: &str) {
        let c = &mut self.con;
        assert_eq!(as_text(&raw(c, &["TYPE", key])), TYPE_NAME, "{what}: TYPE");
        assert_eq!(bf_debug(c, key), filter.debug_lines(), "{what}: BF.DEBUG");
        let info = bf_info(c, key);
        let names: Vec<&str> = info.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, INFO_FIELDS, "{what}: BF.INFO fields");
        for ((name, got), (_, want)) in info.iter().zip(filter.info()) {
            if let Some(want) = want {
                assert_eq!(*got, want, "{what}: BF.INFO {name}");
            }
        }
        if let Ok(size) = i64::try_from(filter.size) {
            expect_int(c, &["BF.CARD", key], size);
        }
        let chunks = scandump(c, key);
        assert_eq!(
            hex(&chunks[0].data),
            hex(&filter.header().bytes()),
            "{what}: SCANDUMP header"
        );
        // Small links: one chunk each, starting where the link starts.
        let mut start = 0u64;
        assert_eq!(
            chunks.len(),
            1 + filter.links.len(),
            "{what}: SCANDUMP steps"
        );
        for (chunk, link) in chunks[1..].iter().zip(&filter.links) {
            assert_eq!(chunk.sent as u64, start + 1, "{what}: chunk iterator");
            assert!(chunk.data == link.data, "{what}: bits of a link differ");
            start += link.data.len() as u64;
        }
        // The value's bytes: the frame's footer carries the RDB version of the vectors'
        // server (Redis 7.0), the DUMP this server's own (with its CRC).
        let dump = as_bytes(&raw(c, &["DUMP", key]));
        let want = self.frame.body(&filter.fields());
        assert!(
            dump_body(&dump) == want,
            "{what}: DUMP differs from the payload of the filter: {}",
            bytes_diff(dump_body(&dump), &want)
        );
    }

    /// An accepted filter is exactly `filter` and usable: `items` answer as RedisBloom's chain
    /// says, `probes` new adds answer and grow it as RedisBloom would (leaving exactly the
    /// predicted filter), and its DUMP restores into an identical copy.
    fn check_usable(
        &mut self,
        key: &str,
        filter: &Filter,
        items: &[Vec<u8>],
        probes: usize,
        what: &str,
    ) {
        self.expect_state(key, filter, what);
        let mut model = Model {
            filter: filter.clone(),
            limit: self.limit,
        };
        // Without items of its own, a filter is asked about 50 others (and one by one).
        let others = gen_items("q:", 0..50);
        let asked = if items.is_empty() { &others[..] } else { items };
        let want: Vec<i64> = asked.iter().map(|i| model.contains(i) as i64).collect();
        assert!(
            mexists_all(&mut self.con, key, asked) == want,
            "{what}: answers differ from RedisBloom's chain"
        );
        for (item, &want) in asked.iter().zip(&want).take(5) {
            let args: [&[u8]; 3] = [b"BF.EXISTS", key.as_bytes(), item];
            expect_int(&mut self.con, &args, want);
        }
        let mut predictable = true;
        for i in 0..probes {
            let item = format!("probe:{i}");
            let expected = model.add(item.as_bytes());
            let v = raw(&mut self.con, &["BF.ADD", key, &item]);
            let ok = match expected {
                Added::Yes => v == Value::Int(1),
                Added::No => v == Value::Int(0),
                Added::Full => err_of(&v).as_deref() == Some(FULL),
                Added::Stuck => err_of(&v).as_deref() == Some("ERR problem inserting into filter"),
                Added::TooLarge => err_of(&v).is_some_and(|t| t.starts_with(TOO_LARGE)),
                Added::Unknown => {
                    predictable = false;
                    break;
                }
            };
            assert!(
                ok,
                "{what}: BF.ADD {item} answered {v:?}, expected {expected:?}"
            );
        }
        if predictable {
            self.expect_state(key, &model.filter, &format!("{what}, after the adds"));
            let added = gen_items("probe:", 0..probes);
            let want: Vec<i64> = added.iter().map(|i| model.contains(i) as i64).collect();
            assert!(
                mexists_all(&mut self.con, key, &added) == want,
                "{what}: answers for the added items differ from RedisBloom's chain"
            );
        } else {
            check_readable(&mut self.con, key, what);
        }
        // The module's own DUMP restores into the same filter.
        let dump = as_bytes(&raw(&mut self.con, &["DUMP", key]));
        let v = restore(&mut self.con, COPY, &dump);
        assert_eq!(v, Value::Okay, "{what}: RESTORE of its own DUMP: {v:?}");
        let c = &mut self.con;
        assert_eq!(bf_debug(c, COPY), bf_debug(c, key), "{what}: copy differs");
        assert!(
            as_bytes(&raw(c, &["DUMP", COPY])) == dump,
            "{what}: DUMP of the copy differs"
        );
        expect_int(c, &["DEL", COPY], 1);
        self.guard.check(&mut self.con, what);
    }
}

/// A filter the oracle cannot describe must still answer every read and a write.
fn check_readable(c: &mut Connection, key: &str, what: &str) {
    assert_eq!(as_text(&raw(c, &["TYPE", key])), TYPE_NAME, "{what}: TYPE");
    bf_debug(c, key);
    assert_eq!(bf_info(c, key).len(), 5, "{what}: BF.INFO");
    scandump(c, key);
    expect_add_answers(c, key, "readable-probe", what);
    let dump = as_bytes(&raw(c, &["DUMP", key]));
    let v = restore(c, COPY, &dump);
    assert_eq!(v, Value::Okay, "{what}: RESTORE of its own DUMP: {v:?}");
    expect_int(c, &["DEL", COPY], 1);
}

/// The three filters the field-by-field tests start from.
fn bases() -> Vec<Config> {
    ["tiny", "scaling100", "nonscaling1k"]
        .into_iter()
        .map(Config::load)
        .collect()
}

const BAD_BPES: [f64; 8] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    -1.0,
    -5e-324,
    f64::MIN,
];

/// Error rates a link must refuse: [`BAD_RATES`], the negative of the smallest subnormal and
/// a NaN with another payload.
fn bad_errors() -> Vec<f64> {
    let mut errors = BAD_RATES.to_vec();
    errors.extend([-5e-324, odd_nan()]);
    errors
}

type Edit<T> = Box<dyn Fn(&mut T)>;

/// Named edits of a [`Filter`] or a [`Header`], in the order they were added.
struct Edits<T>(Vec<(String, Edit<T>)>);

impl<T: 'static> Edits<T> {
    fn new() -> Edits<T> {
        Edits(Vec::new())
    }

    fn add(&mut self, what: impl Into<String>, edit: impl Fn(&mut T) + 'static) {
        self.0.push((what.into(), Box::new(edit)));
    }

    /// One edit per value `v`, named `what(v)`, doing `set(t, v)`.
    fn each<V: Copy + 'static>(
        &mut self,
        values: impl IntoIterator<Item = V>,
        what: impl Fn(V) -> String,
        set: impl Fn(&mut T, V) + Copy + 'static,
    ) {
        for v in values {
            self.add(what(v), move |t| set(t, v));
        }
    }
}

/// Edits of the chain's own fields that break a rule, for a filter of `n` links of total
/// size `size`.
fn bad_chain_edits(n: usize, size: u64) -> Vec<(String, Edit<Filter>)> {
    let mut e: Edits<Filter> = Edits::new();
    let options = [
        0u64,
        1,
        2,
        3,
        4,
        6,
        7,
        8,
        9,
        12,
        14,
        15,
        16,
        21,
        29,
        37,
        69,
        133,
        (1 << 32) | 5,
        (1 << 32) | 13,
        1 << 40,
        u64::MAX,
    ];
    e.each(options, |o| format!("options {o}"), |f, o| f.options = o);
    if n > 1 {
        e.add("options 13 (NO_SCALING) with several links", |f| {
            f.options = NO_SCALING
        });
    }
    // Growth is a 32-bit field, any value of it a filter's (RedisBloom 2.8 takes any
    // EXPANSION and keeps 32 bits: see NONSCALING_GROWTHS and the scaling growths test).
    let growths = vec![1u64 << 32, (1 << 32) + 2, u64::MAX];
    e.each(growths, |g| format!("growth {g}"), |f, g| f.growth = g);
    let n = n as u64;
    let mut counts = vec![0, n + 1, n + 2, 1 << 32, 1 << 40, u64::MAX];
    if n > 1 {
        counts.push(n - 1);
    }
    e.each(
        counts,
        |c| format!("nfilters {c} for {n}"),
        |f, c| f.nfilters = Some(c),
    );
    let mut sizes = vec![size + 1, u64::MAX];
    if size > 0 {
        sizes.extend([size - 1, 0]);
    }
    e.each(
        sizes,
        |s| format!("chain size {s} for {size}"),
        |f, s| f.size = s,
    );
    e.0
}

/// Growths a non-scaling filter may record although no scaling filter may have them: it
/// never grows, and RedisBloom 8 records 0 after `EXPANSION 0`.
const NONSCALING_GROWTHS: [u64; 4] = [0, MAX_GROWTH + 1, 65536, u32::MAX as u64];

/// Edits of link `i` that break a rule.
fn bad_link_edits(i: usize, link: &Link) -> Vec<(String, Edit<Filter>)> {
    let mut e: Edits<Filter> = Edits::new();
    let name = |what: String| format!("link {i}: {what}");
    e.add(name("entries 0".into()), move |f| f.links[i].entries = 0);
    if link.size > 0 {
        let below = link.size - 1;
        e.add(name(format!("entries {below}, below its size")), move |f| {
            f.links[i].entries = below
        });
    }
    let over = link.entries + 1;
    e.add(
        name(format!(
            "size {over}, above its entries (chain size follows)"
        )),
        move |f| {
            f.links[i].size = over;
            f.resum();
        },
    );
    e.add(
        name("size u64::MAX (chain size follows, wrapping)".into()),
        move |f| {
            f.links[i].size = u64::MAX;
            f.resum();
        },
    );
    e.each(
        bad_errors(),
        |v| name(format!("error {v:e} ({:#x})", v.to_bits())),
        move |f, v| f.links[i].error = v,
    );
    e.each(
        [0u64, MAX_HASHES + 1, 5000, 1 << 32, (1 << 32) + 8, u64::MAX],
        |k| name(format!("hashes {k}")),
        move |f, k| f.links[i].hashes = k,
    );
    e.each(
        BAD_BPES,
        |bpe| name(format!("bpe {bpe:e} ({:#x})", bpe.to_bits())),
        move |f, bpe| f.links[i].bpe = bpe,
    );
    // Bit counts that are not a non-zero multiple of 64, each with the bit array they imply.
    let bits = link.bits;
    e.each(
        [0, 8, 56, 63, 65, 120, 136, bits - 8, bits + 8, bits + 32],
        |b| name(format!("bits {b} with {} bytes", b / 8)),
        move |f, b| {
            f.links[i].bits = b;
            f.links[i].data.resize((b / 8) as usize, 0xa5);
        },
    );
    // Bit counts that do not match the bit array that follows.
    let mut wrong = vec![bits * 2, bits + 64, 1 << 63, u64::MAX - 63, (1 << 40) * 8];
    if bits > 64 {
        wrong.push(bits - 64);
    }
    e.each(
        wrong,
        |b| name(format!("bits {b} over a bit array of {} bytes", bits / 8)),
        move |f, b| f.links[i].bits = b,
    );
    let bytes = bits / 8;
    e.each(
        [0, 1, bytes - 1, bytes + 1, bytes + 8, bytes * 2],
        |len| name(format!("a bit array of {len} bytes for {bits} bits")),
        move |f, len| f.links[i].data.resize(len as usize, 0x5a),
    );
    e.each(
        [1u64, 7, 8, 64, 255, 256, u64::MAX],
        |n2| name(format!("n2 {n2}")),
        move |f, n2| f.links[i].n2 = n2,
    );
    e.0
}

/// Edits of a single-link filter (the `tiny` vector) that keep every rule.
fn good_tiny_edits() -> Vec<(String, Edit<Filter>)> {
    let mut e: Edits<Filter> = Edits::new();
    e.each(
        [1u64, 3, MAX_GROWTH],
        |g| format!("growth {g}"),
        |f, g| f.growth = g,
    );
    e.add("options 13: the one link, non-scaling", |f| {
        f.options = NO_SCALING
    });
    e.add("options 13, full", |f| {
        f.options = NO_SCALING;
        f.links[0].size = f.links[0].entries;
        f.resum();
    });
    e.add("a full link", |f| {
        f.links[0].size = f.links[0].entries;
        f.resum();
    });
    e.add("a full link with growth 32768", |f| {
        f.growth = MAX_GROWTH;
        f.links[0].size = f.links[0].entries;
        f.resum();
    });
    // RedisBloom 2.8 takes any EXPANSION and keeps its 32 bits: growths past ours, and 0
    // (from 2^32), whose full filter cannot grow.
    e.each(
        [0u64, MAX_GROWTH + 1, 65536, u32::MAX as u64],
        |g| format!("a full link with RedisBloom 2.8's growth {g}"),
        |f, g| {
            f.growth = g;
            f.links[0].size = f.links[0].entries;
            f.resum();
        },
    );
    e.add("no items counted", |f| {
        f.links[0].size = 0;
        f.resum();
    });
    e.add("entries u64::MAX", |f| f.links[0].entries = u64::MAX);
    e.each(
        [1u64, 2, MAX_HASHES],
        |k| format!("hashes {k} with its bpe"),
        |f, k| {
            f.links[0].hashes = k;
            f.links[0].bpe = bpe_for(k);
        },
    );
    e.each(
        [1e-300, 5e-324, 0.25, 0.4999999],
        |v| format!("error {v:e}"),
        |f, v| f.links[0].error = v,
    );
    // 11.5 bits per entry still gives 128 bits for 10 entries and k = ceil(0.693 * 11.5) = 8:
    // another bpe consistent with the link as it is (so are 11.0 and 10.1). A bpe the hash
    // count does not follow from is refused (RedisBloom refuses it in a header).
    e.each(
        [11.5, 11.0, 10.1],
        |bpe| format!("bpe {bpe:e}"),
        |f, bpe| f.links[0].bpe = bpe,
    );
    e.add("64 bits", |f| {
        f.links[0].bits = 64;
        f.links[0].data.truncate(8);
    });
    e.add("192 bits", |f| {
        f.links[0].bits = 192;
        f.links[0].data.resize(24, 0x81);
    });
    e.0
}

// ---------------------------------------------------------------------------------------
// Tests: the encodings themselves
// ---------------------------------------------------------------------------------------

#[test]
fn the_encodings_reproduce_the_vectors() {
    for cfg in common::redisbloom::all() {
        let filter = vector_filter(&cfg);
        // The header written back from its fields is the header RedisBloom wrote.
        assert_eq!(
            hex(&filter.header().bytes()),
            hex(&cfg.scandump[0].data),
            "{}: header",
            cfg.name
        );
        match header_oracle(&cfg.scandump[0].data, DEFAULT_LIMIT) {
            Verdict::Accept(_) => {}
            other => panic!(
                "{}: the oracle refuses the real header: {other:?}",
                cfg.name
            ),
        }
        assert_eq!(
            Value::Array(
                filter
                    .debug_lines()
                    .into_iter()
                    .map(|l| Value::BulkString(l.into_bytes()))
                    .collect()
            ),
            cfg.debug,
            "{}: BF.DEBUG lines",
            cfg.name
        );
        // The model holds every inserted item and gives RedisBloom's 10,000 answers.
        let model = Model {
            filter: filter.clone(),
            limit: DEFAULT_LIMIT,
        };
        assert!(cfg.items.iter().all(|i| model.contains(i)), "{}", cfg.name);
        let answers: Vec<i64> = cfg
            .queries
            .iter()
            .map(|q| model.contains(q) as i64)
            .collect();
        assert!(answers == cfg.answers, "{}: query answers", cfg.name);
        // Raw (not LZF) DUMPs are exactly the fields re-encoded, CRC included.
        let frame = Frame::from_dump(&cfg.dump);
        match oracle(&cfg.dump, DEFAULT_LIMIT) {
            Verdict::Accept(decoded) => {
                assert_eq!(decoded.links, filter.links, "{}: decoded links", cfg.name);
                assert_eq!(frame.payload(&filter.fields()), cfg.dump, "{}", cfg.name);
            }
            Verdict::Unknown(_) => assert!(["empty", "binary"].contains(&cfg.name)),
            Verdict::Reject(r) => panic!("{}: the oracle refuses the real DUMP: {r:?}", cfg.name),
        }
    }
    // A rebuild of the growth of `autocreated` from its first link: the sizing of a new link.
    let auto = vector_filter(&Config::load("autocreated"));
    let grown = new_link(
        auto.links[0].entries * auto.growth,
        auto.links[0].error * 0.5,
    );
    assert_eq!(
        (
            grown.entries,
            grown.error.to_bits(),
            grown.hashes,
            grown.bpe.to_bits(),
            grown.bits
        ),
        (
            auto.links[1].entries,
            auto.links[1].error.to_bits(),
            auto.links[1].hashes,
            auto.links[1].bpe.to_bits(),
            auto.links[1].bits
        )
    );
}

#[test]
fn murmur64a_matches_the_vectors() {
    let text = std::fs::read_to_string(common::redisbloom::dir().join("murmur64a.tsv"))
        .expect("murmur64a.tsv");
    let mut n = 0;
    for line in text.lines() {
        let mut cols = line.split('\t');
        let input = vectors::unhex(cols.next().expect("input"));
        let a = u64::from_str_radix(cols.next().expect("a"), 16).expect("a hex");
        let b = u64::from_str_radix(cols.next().expect("b"), 16).expect("b hex");
        assert_eq!(rb_hash(&input), (a, b), "input {}", hex(&input));
        n += 1;
    }
    assert_eq!(n, 118);
}

// ---------------------------------------------------------------------------------------
// Tests: RESTORE
// ---------------------------------------------------------------------------------------

#[test]
fn real_payloads_are_accepted_and_usable() {
    let mut b = Bench::new();
    for cfg in common::redisbloom::all() {
        let what = format!("{} as dumped by RedisBloom", cfg.name);
        let v = restore(&mut b.con, VICTIM, &cfg.dump);
        assert_eq!(v, Value::Okay, "{what}: RESTORE answered {v:?}");
        let answers = mexists_all(&mut b.con, VICTIM, &cfg.items);
        assert!(
            answers.iter().all(|&a| a == 1),
            "{what}: an inserted item is missing"
        );
        b.check_usable(VICTIM, &vector_filter(&cfg), &cfg.queries, 24, &what);
        expect_int(&mut b.con, &["DEL", VICTIM], 1);
    }
    b.guard.check_deep(&mut b.con, "real payloads");
}

#[test]
fn every_rule_is_enforced_field_by_field() {
    let mut b = Bench::new();
    for cfg in bases() {
        let base = vector_filter(&cfg);
        let n = base.links.len();
        let mut edits = bad_chain_edits(n, base.size);
        for i in [0, n - 1]
            .into_iter()
            .collect::<std::collections::BTreeSet<_>>()
        {
            edits.extend(bad_link_edits(i, &base.links[i]));
        }
        for (what, edit) in &edits {
            let mut f = base.clone();
            edit(&mut f);
            let what = format!("{}: {what}", cfg.name);
            b.refuse_filter(&b.frame.clone(), &f, &what);
        }
        // Encoding versions other than 4.
        for encver in [0u64, 1, 2, 3, 5, 6, 1023] {
            let frame = b.frame.with_encver(encver);
            let what = format!("{}: encoding version {encver}", cfg.name);
            b.refuse_filter(&frame, &base, &what);
        }
        // Two links whose sizes add up past u64::MAX, to the chain's size modulo 2^64.
        if n > 1 {
            let mut f = base.clone();
            for l in &mut f.links[..2] {
                l.entries = 1 << 63;
                l.size = 1 << 63;
            }
            f.resum();
            let what = format!("{}: link sizes summing past 2^64 (to {})", cfg.name, f.size);
            b.refuse_filter(&b.frame.clone(), &f, &what);
        }
        // An extra link's fields under an unchanged link count, and an extra field.
        let mut fields = base.fields();
        let last = fields[fields.len() - 8..].to_vec();
        fields.extend(last);
        // The module reads a whole value here; Redis then misses its EOF opcode.
        let what = format!("{}: one link more than nfilters says", cfg.name);
        b.refuse(&b.frame.payload(&fields), &what);
        let mut fields = base.fields();
        fields.push(F::U(0));
        let what = format!("{}: an extra unsigned before the EOF opcode", cfg.name);
        b.refuse(&b.frame.payload(&fields), &what);
        // Any 32-bit growth is taken from a non-scaling filter too (this one, or this one
        // made non-scaling when it has a single link).
        if base.options == NO_SCALING || n == 1 {
            for g in NONSCALING_GROWTHS {
                let mut f = base.clone();
                f.options = NO_SCALING;
                f.growth = g;
                let what = format!("{}: non-scaling with growth {g}", cfg.name);
                b.accept_filter(&f, &cfg.items, &what);
            }
        }
    }
    b.guard.check_deep(&mut b.con, "rules");
}

#[test]
fn wrong_field_types_are_refused() {
    let mut b = Bench::new();
    let tiny = vector_filter(&Config::load("tiny"));
    let fields = tiny.fields();
    let cases: Vec<(&str, usize, F)> = vec![
        ("a double for the chain size", AT_SIZE, F::D(5.0)),
        ("a double for nfilters", AT_NFILTERS, F::D(1.0)),
        ("a double for the options", AT_OPTIONS, F::D(5.0)),
        ("a double for the growth", AT_GROWTH, F::D(2.0)),
        (
            "a string for the entries",
            at_link(0, L_ENTRIES),
            F::S(b"10".to_vec()),
        ),
        ("an unsigned for the error", at_link(0, L_ERROR), F::U(0)),
        ("a double for the hashes", at_link(0, L_HASHES), F::D(8.0)),
        ("an unsigned for the bpe", at_link(0, L_BPE), F::U(11)),
        ("a double for the bits", at_link(0, L_BITS), F::D(128.0)),
        ("a double for n2", at_link(0, L_N2), F::D(0.0)),
        (
            "an unsigned for the bit array",
            at_link(0, L_DATA),
            F::U(16),
        ),
        ("a double for the bit array", at_link(0, L_DATA), F::D(0.5)),
        (
            "a string for the link size",
            at_link(0, L_SIZE),
            F::S(vec![5]),
        ),
        (
            "a signed opcode for the entries",
            at_link(0, L_ENTRIES),
            raw_op(OP_SINT, &[10]),
        ),
        (
            "a float opcode for the error",
            at_link(0, L_ERROR),
            raw_op(OP_FLOAT, &[0, 0, 0, 0]),
        ),
        (
            "the EOF opcode for the options",
            AT_OPTIONS,
            raw_op(OP_EOF, &[]),
        ),
        ("opcode 6 for the growth", AT_GROWTH, raw_op(6, &[2])),
        (
            "a bad length encoding as value",
            at_link(0, L_HASHES),
            F::Raw(vec![OP_UINT, 0xbf, 7]),
        ),
        (
            "an int-encoded string of 8 digits for 128 bits",
            at_link(0, L_DATA),
            raw_op(OP_STRING, &[0xc2, 0x4e, 0x61, 0xbc, 0x00]),
        ),
        (
            "a string with a bad encoding marker",
            at_link(0, L_DATA),
            raw_op(OP_STRING, &[0xc4, 0]),
        ),
    ];
    for (what, at, field) in cases {
        let payload = b.frame.payload(&with_field(&fields, at, field));
        assert!(
            matches!(oracle(&payload, b.limit), Verdict::Reject(_)),
            "test table: {what}"
        );
        b.refuse_logged(&payload, what);
    }
    b.refuse_logged(&b.frame.payload(&[]), "an empty value");
    b.refuse_logged(&b.frame.payload(&fields[..4]), "the chain without its link");
    // The 8 digits of an int-encoded string are exactly the bytes of a 64-bit link.
    let mut f = with_field(
        &fields,
        at_link(0, L_DATA),
        F::Raw(vec![OP_STRING, 0xc2, 0x4e, 0x61, 0xbc, 0x00]),
    );
    f[at_link(0, L_BITS)] = F::U(64);
    let payload = b.frame.payload(&f);
    assert_eq!(
        b.expect_oracle(&payload, "int-encoded 64-bit bit array"),
        'a'
    );
    b.guard.check_deep(&mut b.con, "field types");
}

#[test]
fn legal_variations_are_accepted_and_usable() {
    let mut b = Bench::new();
    let tiny_cfg = Config::load("tiny");
    let tiny = vector_filter(&tiny_cfg);
    for (what, edit) in &good_tiny_edits() {
        let mut f = tiny.clone();
        edit(&mut f);
        b.accept_filter(&f, &tiny_cfg.queries[..2000], &format!("tiny: {what}"));
    }
    let scaling_cfg = Config::load("scaling100");
    let scaling = vector_filter(&scaling_cfg);
    for g in [1u64, 3, MAX_GROWTH] {
        let mut f = scaling.clone();
        f.growth = g;
        b.accept_filter(&f, &scaling_cfg.items, &format!("scaling100: growth {g}"));
    }
    let mut f = scaling.clone();
    f.links.pop();
    f.resum();
    b.accept_filter(
        &f,
        &scaling_cfg.queries[..2000],
        "scaling100 without its last link",
    );
    let mut f = scaling.clone();
    f.links.push(f.links[3].clone());
    f.resum();
    b.accept_filter(
        &f,
        &scaling_cfg.items,
        "scaling100 with its last link twice",
    );
    let mut f = scaling.clone();
    for l in &mut f.links {
        l.size = l.entries;
    }
    f.resum();
    b.accept_filter(&f, &scaling_cfg.items, "scaling100 with every link full");
    let ns_cfg = Config::load("nonscaling1k");
    let ns = vector_filter(&ns_cfg);
    let mut f = ns.clone();
    f.options = SCALING;
    b.accept_filter(&f, &ns_cfg.items, "nonscaling1k made scaling (it grows)");
    let mut f = ns.clone();
    f.growth = MAX_GROWTH;
    b.accept_filter(&f, &ns_cfg.items, "nonscaling1k with growth 32768");
    let mut f = ns.clone();
    f.links[0].size = 999;
    f.resum();
    b.accept_filter(&f, &ns_cfg.items, "nonscaling1k one short of full");
    b.guard.check_deep(&mut b.con, "legal variations");
}

/// Link errors of a half and more (which RedisBloom's BF.RESERVE never gives a first link,
/// as it halves an error rate below 1) are still in (0, 1): legal in every link, scaling or
/// not, through RESTORE and through a header.
#[test]
fn link_errors_up_to_one_are_accepted() {
    let mut b = Bench::new();
    let tiny_cfg = Config::load("tiny");
    let tiny = vector_filter(&tiny_cfg);
    let scaling = vector_filter(&Config::load("scaling100"));
    let items = &tiny_cfg.queries[..2000];
    for e in [0.5, 0.75, 0.999999, 1.0 - f64::EPSILON / 2.0] {
        for options in [NO_SCALING, SCALING] {
            let mut f = tiny.clone();
            f.options = options;
            f.links[0].error = e;
            let what = format!("tiny, options {options}: link 0 error {e:e}");
            b.accept_filter(&f, items, &what);
            b.accept_header(&f.header(), 24, &format!("{what}, as a header"));
        }
        for i in [1, 3] {
            let mut f = scaling.clone();
            f.links[i].error = e;
            let what = format!("scaling100: link {i} error {e:e}");
            b.accept_filter(&f, items, &what);
            b.accept_header(&f.header(), 8, &format!("{what}, as a header"));
        }
    }
    b.guard.check_deep(&mut b.con, "link errors up to one");
}

#[test]
fn truncation_at_every_byte_is_refused() {
    let mut b = Bench::new();
    for cfg in bases() {
        let body = b.frame.body(&vector_filter(&cfg).fields());
        assert_eq!(b.frame.seal(&body), cfg.dump, "{}: re-encoding", cfg.name);
        let mut accepted = Vec::new();
        for cut in 0..body.len() {
            let payload = b.frame.seal(&body[..cut]);
            let what = format!("{}: body cut to {cut} of {} bytes", cfg.name, body.len());
            // Every shorter cut leaves a field or the EOF opcode unread. The last two cuts
            // read the RDB version as the last link's size and EOF opcode: the oracle decides.
            if cut + 2 < body.len() {
                match oracle(&payload, b.limit) {
                    Verdict::Reject(_) => b.refuse(&payload, &what),
                    other => panic!("{what}: the oracle does not refuse it: {other:?}"),
                }
            } else if b.expect_oracle(&payload, &what) == 'a' {
                accepted.push(cut);
            }
        }
        assert!(
            accepted.len() <= 1,
            "{}: cuts accepted: {accepted:?}",
            cfg.name
        );
    }
    b.guard.check_deep(&mut b.con, "truncations");
}

#[test]
fn max_filter_bytes_bounds_restore_and_headers() {
    let mut b = Bench::new();
    for cfg in bases() {
        let filter = vector_filter(&cfg);
        let total = filter.total_size();
        let expected_size = match &cfg.info {
            Value::Array(items) => items[3].clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            Value::Int(total as i64),
            expected_size,
            "{}: Size",
            cfg.name
        );
        let header = filter.header();
        b.set_limit(total - 1);
        let what = format!("{}: Size {total} over a limit of {}", cfg.name, total - 1);
        b.refuse_logged(&cfg.dump, &what);
        b.refuse_header_checked(&header, &what);
        b.set_limit(total);
        let what = format!("{}: Size {total} at a limit of {total}", cfg.name);
        let v = restore(&mut b.con, VICTIM, &cfg.dump);
        assert_eq!(v, Value::Okay, "{what}: RESTORE answered {v:?}");
        // Full to its limit: the next link is over it (or the filter cannot grow at all).
        b.check_usable(VICTIM, &filter, &cfg.items, 8, &what);
        expect_int(&mut b.con, &["DEL", VICTIM], 1);
        b.accept_header(&header, 4, &what);
    }
    // Sizes far over the limit, with consistent fields.
    b.set_limit(DEFAULT_LIMIT);
    let mut h = vector_filter(&Config::load("tiny")).header();
    for bytes in [DEFAULT_LIMIT, 1 << 40, 1 << 60] {
        h.links[0].bytes = bytes;
        h.links[0].bits = bytes * 8;
        b.refuse_header_checked(&h, &format!("a header of {bytes} bytes of bits"));
    }
    b.guard.check_deep(&mut b.con, "size limit");
}

#[test]
fn random_payload_mutations_never_hurt_the_server() {
    let mut b = Bench::new();
    b.set_limit(1 << 20);
    let mut rng = Rng::new(0x4d42_626c_6f6f_6d04);
    let mut seen = std::collections::HashMap::new();
    for cfg in ["tiny", "nonscaling1k"].map(Config::load) {
        let payloads = b
            .frame
            .mutations(&mut rng, &vector_filter(&cfg).fields(), 400);
        for (round, payload) in payloads.iter().enumerate() {
            let what = format!("{}: mutation {round}", cfg.name);
            *seen.entry(b.expect_oracle(payload, &what)).or_insert(0u32) += 1;
        }
    }
    let rejected = seen.get(&'r').copied().unwrap_or(0);
    let accepted = seen.get(&'a').copied().unwrap_or(0);
    assert!(rejected >= 400 && accepted >= 200, "verdicts: {seen:?}");
    b.guard.check_deep(&mut b.con, "random payload mutations");
}

// ---------------------------------------------------------------------------------------
// Tests: BF.LOADCHUNK with RedisBloom's header
// ---------------------------------------------------------------------------------------

/// Edits of a header that break a rule (link `i` for the per-link ones).
fn bad_header_edits(h: &Header, i: usize) -> Vec<(String, Edit<Header>)> {
    let mut e: Edits<Header> = Edits::new();
    let n = h.links.len();
    e.each(
        [0u32, 1, 4, 7, 8, 12, 15, 21, 0x8000_0005, u32::MAX],
        |o| format!("options {o}"),
        |h, o| h.options = o,
    );
    if n > 1 {
        e.add("options 13 with several links", |h| {
            h.options = NO_SCALING as u32
        });
    }
    // The header's growth is 32 bits, any value of which a filter may record.
    let size = h.size;
    let mut sizes = vec![size + 1, u64::MAX];
    if size > 0 {
        sizes.extend([size - 1, 0]);
    }
    e.each(sizes, |s| format!("chain size {s}"), |h, s| h.size = s);
    let l = &h.links[i];
    let name = |what: String| format!("link {i}: {what}");
    e.add(name("entries 0".into()), move |h| h.links[i].entries = 0);
    if l.size > 0 {
        let below = l.size - 1;
        e.add(name(format!("entries {below}")), move |h| {
            h.links[i].entries = below
        });
    }
    let over = l.entries + 1;
    e.add(
        name(format!("size {over} (chain size follows)")),
        move |h| {
            h.size = h.size - h.links[i].size + over;
            h.links[i].size = over;
        },
    );
    e.each(
        bad_errors(),
        |v| name(format!("error {v:e} ({:#x})", v.to_bits())),
        move |h, v| h.links[i].error = v,
    );
    e.each(
        BAD_BPES,
        |bpe| name(format!("bpe {bpe:e} ({:#x})", bpe.to_bits())),
        move |h, bpe| h.links[i].bpe = bpe,
    );
    e.each(
        [0u32, MAX_HASHES as u32 + 1, 5000, u32::MAX],
        |k| name(format!("hashes {k}")),
        move |h, k| h.links[i].hashes = k,
    );
    e.each(
        [1u8, 7, 64, 0xff],
        |n2| name(format!("n2 {n2}")),
        move |h, n2| h.links[i].n2 = n2,
    );
    let (bytes, bits) = (l.bytes, l.bits);
    e.each(
        [0, bytes - 1, bytes + 1, bytes * 2, u64::MAX],
        |by| name(format!("bytes {by} for {bits} bits")),
        move |h, by| h.links[i].bytes = by,
    );
    e.each(
        [0u64, 8, 63, 65, 120, bits - 8, bits + 8, bits * 2, u64::MAX],
        |b| name(format!("bits {b} for {bytes} bytes")),
        move |h, b| h.links[i].bits = b,
    );
    e.each(
        [0u64, 8, 56, 136, bits + 8],
        |b| name(format!("bits {b} with bytes {} to match", b / 8)),
        move |h, b| {
            h.links[i].bits = b;
            h.links[i].bytes = b / 8;
        },
    );
    e.0
}

#[test]
fn redisbloom_header_fields_are_checked_one_at_a_time() {
    let mut b = Bench::new();
    for cfg in bases() {
        let base = vector_filter(&cfg).header();
        let n = base.links.len();
        for i in [0, n - 1]
            .into_iter()
            .collect::<std::collections::BTreeSet<_>>()
        {
            for (what, edit) in bad_header_edits(&base, i) {
                let mut h = base.clone();
                edit(&mut h);
                b.refuse_header_checked(&h, &format!("{}: {what}", cfg.name));
            }
        }
        // Two links whose sizes add up past u64::MAX.
        if n > 1 {
            let mut h = base.clone();
            for l in &mut h.links[..2] {
                l.entries = 1 << 63;
                l.size = 1 << 63;
            }
            h.size = h.links.iter().fold(0u64, |s, l| s.wrapping_add(l.size));
            b.refuse_header_checked(&h, &format!("{}: link sizes past 2^64", cfg.name));
        }
    }
    // Legal variations of the tiny header.
    let tiny = vector_filter(&Config::load("tiny")).header();
    let good: Vec<(&str, Edit<Header>)> = vec![
        ("as dumped", Box::new(|_| {})),
        ("growth 1", Box::new(|h| h.growth = 1)),
        ("growth 3", Box::new(|h| h.growth = 3)),
        ("growth 32768", Box::new(|h| h.growth = MAX_GROWTH as u32)),
        ("options 13", Box::new(|h| h.options = NO_SCALING as u32)),
        (
            "hashes 1 with its bpe",
            Box::new(|h| {
                h.links[0].hashes = 1;
                h.links[0].bpe = bpe_for(1);
            }),
        ),
        (
            "hashes 1100 with its bpe",
            Box::new(|h| {
                h.links[0].hashes = MAX_HASHES as u32;
                h.links[0].bpe = bpe_for(MAX_HASHES);
            }),
        ),
        ("error 1e-300", Box::new(|h| h.links[0].error = 1e-300)),
        (
            "error 0.4999999",
            Box::new(|h| h.links[0].error = 0.4999999),
        ),
        ("bpe 11.5", Box::new(|h| h.links[0].bpe = 11.5)),
        ("bpe 10.1", Box::new(|h| h.links[0].bpe = 10.1)),
        (
            "entries u64::MAX",
            Box::new(|h| h.links[0].entries = u64::MAX),
        ),
        (
            "full",
            Box::new(|h| {
                h.links[0].size = 10;
                h.size = 10;
            }),
        ),
        (
            "no items",
            Box::new(|h| {
                h.links[0].size = 0;
                h.size = 0;
            }),
        ),
        (
            "64 bits",
            Box::new(|h| {
                h.links[0].bits = 64;
                h.links[0].bytes = 8;
            }),
        ),
        (
            "4096 bits",
            Box::new(|h| {
                h.links[0].bits = 4096;
                h.links[0].bytes = 512;
            }),
        ),
    ];
    for (what, edit) in &good {
        let mut h = tiny.clone();
        edit(&mut h);
        match header_oracle(&h.bytes(), b.limit) {
            Verdict::Accept(_) => {}
            other => panic!("test table: tiny header {what} is not valid: {other:?}"),
        }
        b.accept_header(&h, 24, &format!("tiny header, {what}"));
    }
    // A scaling100 header with its last link twice: a consistent five-link chain.
    let mut h = vector_filter(&Config::load("scaling100")).header();
    h.links.push(h.links[3].clone());
    h.size += h.links[4].size;
    b.accept_header(&h, 8, "scaling100 header with five links");
    // Non-scaling headers (nonscaling1k's, tiny's made non-scaling) with the growths a
    // scaling header may not have.
    let ns = vector_filter(&Config::load("nonscaling1k")).header();
    let mut tiny_ns = tiny.clone();
    tiny_ns.options = NO_SCALING as u32;
    for (name, base) in [("nonscaling1k", &ns), ("tiny, options 13", &tiny_ns)] {
        for g in NONSCALING_GROWTHS {
            let mut h = base.clone();
            h.growth = g as u32;
            let what = format!("{name} header, growth {g}");
            match header_oracle(&h.bytes(), b.limit) {
                Verdict::Accept(_) => {}
                other => panic!("test table: {what} is not valid: {other:?}"),
            }
            b.accept_header(&h, 24, &what);
        }
    }
    b.guard.check_deep(&mut b.con, "header fields");
}

#[test]
fn redisbloom_header_lengths_must_be_exact() {
    let mut b = Bench::new();
    b.refuse_header(b"", false, "an empty header");
    for cfg in bases() {
        let good = cfg.scandump[0].data.clone();
        let n = (good.len() - HEADER_FIXED) / HEADER_LINK;
        for cut in 1..good.len() {
            b.refuse_header(
                &good[..cut],
                false,
                &format!("{}: cut to {cut} bytes", cfg.name),
            );
        }
        for extra in [&[0u8][..], &[0xff], &[0; 52], &[0; 53], &[0; 54]] {
            let mut longer = good.clone();
            longer.extend_from_slice(extra);
            let what = format!("{}: {} bytes more", cfg.name, extra.len());
            b.refuse_header(&longer, false, &what);
        }
        // The last link twice, with nfilters left alone.
        let mut longer = good.clone();
        longer.extend_from_slice(&good[good.len() - HEADER_LINK..]);
        b.refuse_header(
            &longer,
            false,
            &format!("{}: a link more than nfilters", cfg.name),
        );
        for count in [
            0u32,
            n as u32 - 1,
            n as u32 + 1,
            n as u32 + 2,
            1 << 16,
            u32::MAX,
        ] {
            if count as usize == n {
                continue;
            }
            let mut bytes = good.clone();
            bytes[8..12].copy_from_slice(&count.to_le_bytes());
            let what = format!("{}: nfilters {count} in a header of {n} links", cfg.name);
            b.refuse_header(&bytes, false, &what);
        }
        // nfilters and the length agree, but a link is cut off at the end.
        let mut bytes = good[..good.len() - HEADER_LINK].to_vec();
        if n > 1 {
            bytes[8..12].copy_from_slice(&(n as u32 - 1).to_le_bytes());
            let what = format!("{}: the last link dropped, sizes left", cfg.name);
            b.refuse_header(&bytes, false, &what);
        }
    }
    b.guard.check_deep(&mut b.con, "header lengths");
}

#[test]
fn chunks_into_a_redisbloom_key_must_fit_one_link() {
    let mut b = Bench::new();
    let cfg = Config::load("scaling100");
    let header = &cfg.scandump[0].data;
    let v = b.load(VICTIM, "1", header);
    assert_eq!(v, Value::Okay, "scaling100 header: {v:?}");
    // A header on an existing filter of either type is a data chunk at iterator 1, longer
    // than its iterator allows: "received bad data" (nothing is created over the filter,
    // and nothing is logged: it was never read as a header); on a key of another type:
    // WRONGTYPE.
    let logged = loadchunk_refusals(&b.server.log_text()).len();
    for (key, error) in [
        (VICTIM.to_string(), LOADCHUNK_BAD_DATA),
        (b.guard.filter_key.clone(), LOADCHUNK_BAD_DATA),
        (b.guard.string_key.clone(), WRONGTYPE),
    ] {
        let v = b.load(&key, "1", header);
        assert_eq!(
            err_of(&v).as_deref(),
            Some(error),
            "RedisBloom header on existing {key}: {v:?}"
        );
    }
    assert_eq!(
        loadchunk_refusals(&b.server.log_text()).len(),
        logged,
        "a chunk refusal was logged as a header's"
    );
    b.guard.check_deep(&mut b.con, "headers on existing keys");
    let filter = vector_filter(&cfg);
    let ends: Vec<u64> = filter
        .links
        .iter()
        .scan(0u64, |end, l| {
            *end += l.data.len() as u64;
            Some(*end)
        })
        .collect();
    assert_eq!(ends, [144, 456, 1152, 2688]);
    let total = ends[3];
    let mut model = vec![0u8; total as usize];
    let fits: [(u64, u64); 8] = [
        (0, 144),
        (144, 312),
        (456, 696),
        (1152, 1536),
        (143, 1),
        (144, 1),
        (455, 1),
        (2687, 1),
    ];
    for (n, (offset, len)) in fits.into_iter().enumerate() {
        let data: Vec<u8> = (0..len)
            .map(|i| (i as u8) ^ (n as u8 * 40) ^ 0x3c)
            .collect();
        let iter = (offset + 1 + len).to_string();
        let v = b.load(VICTIM, &iter, &data);
        assert_eq!(v, Value::Okay, "chunk of {len} at {offset}: {v:?}");
        model[offset as usize..(offset + len) as usize].copy_from_slice(&data);
    }
    let data_of = |c: &mut Connection| -> Vec<u8> {
        scandump(c, VICTIM)
            .iter()
            .skip(1)
            .flat_map(|ch| ch.data.clone())
            .collect()
    };
    assert!(
        data_of(&mut b.con) == model,
        "chunks that fit were not written"
    );
    let debug = bf_debug(&mut b.con, VICTIM);
    // RedisBloom 8's replies: no link where the chunk starts (past the end, or before
    // byte 0), a chunk running past its link's end, an iterator below the chunk's length.
    let (off, big, bad) = (
        LOADCHUNK_INVALID_OFFSET,
        LOADCHUNK_TOO_BIG,
        LOADCHUNK_BAD_DATA,
    );
    let cases: Vec<(i64, u64, &str, &str)> = vec![
        (2690, 1, "one byte just past the end", off),
        (2697, 8, "eight bytes just past the end", off),
        ((1 << 40) + 9, 8, "an offset of 2^40", off),
        (i64::MAX, 8, "an offset near i64::MAX", off),
        (2, 2, "two bytes at iterator 2 (from byte -1)", off),
        (2689, 0, "an empty chunk just past the end", off),
        (149, 8, "across links 0 and 1 (140..148)", big),
        (146, 2, "across links 0 and 1 (143..145)", big),
        (461, 10, "across links 1 and 2 (450..460)", big),
        (1155, 4, "across links 2 and 3 (1150..1154)", big),
        (2693, 8, "across the end (2684..2692)", big),
        (457, 456, "links 0 and 1 in one chunk", big),
        (2690, 2689, "the whole data and a byte more", big),
        (5, 10, "longer than its iterator allows", bad),
        (0, 1, "iterator 0", bad),
    ];
    for (iter, len, what, error) in cases {
        assert_eq!(
            loadchunk_verdict(iter, len as usize, &ends),
            Err(error),
            "test table: {what}"
        );
        let v = b.load(VICTIM, &iter.to_string(), &vec![0xee; len as usize]);
        assert_eq!(err_of(&v).as_deref(), Some(error), "{what}: answered {v:?}");
        assert!(data_of(&mut b.con) == model, "{what}: data changed");
        assert_eq!(
            bf_debug(&mut b.con, VICTIM),
            debug,
            "{what}: filter changed"
        );
        b.guard.check(&mut b.con, what);
    }
    // Empty chunks at valid offsets (the first byte, a link's first, the last): OK, and
    // nothing changes.
    for iter in ["1", "145", "2688"] {
        let v = b.load(VICTIM, iter, b"");
        assert_eq!(v, Value::Okay, "an empty chunk at iterator {iter}: {v:?}");
        assert!(
            data_of(&mut b.con) == model,
            "empty chunk at {iter}: data changed"
        );
        assert_eq!(
            bf_debug(&mut b.con, VICTIM),
            debug,
            "empty chunk: filter changed"
        );
    }
    expect_int(&mut b.con, &["DEL", VICTIM], 1);
    // The real chunks complete the real header into RedisBloom's filter.
    loadchunks(&mut b.con, VICTIM, &cfg.scandump);
    b.check_usable(
        VICTIM,
        &filter,
        &cfg.items,
        24,
        "scaling100 through LOADCHUNK",
    );
    b.guard.check_deep(&mut b.con, "chunks");
}

#[test]
fn random_redisbloom_header_mutations_are_refused_or_usable() {
    let mut b = Bench::new();
    b.set_limit(1 << 20);
    let mut rng = Rng::new(0x4d42_4844_5200_0001);
    let (mut accepted, mut refused) = (0, 0);
    for cfg in bases() {
        let base = cfg.scandump[0].data.clone();
        for round in 0..340 {
            let bytes = mutate(&mut rng, &base, Mutation::after(0));
            let what = format!("{} header mutation {round}", cfg.name);
            match header_oracle(&bytes, b.limit) {
                Verdict::Reject(r) => {
                    b.refuse_header(&bytes, r.over_limit, &format!("{what} ({})", r.why));
                    refused += 1;
                }
                Verdict::Accept(h) => {
                    b.accept_header(&h, 6, &what);
                    accepted += 1;
                }
                Verdict::Unknown(_) => continue,
            }
        }
    }
    assert!(
        refused >= 800 && accepted >= 100,
        "{refused} refused, {accepted} accepted"
    );
    b.guard.check_deep(&mut b.con, "random header mutations");
}
