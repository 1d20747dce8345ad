//! Hostile `RESTORE` payloads with a valid CRC: whatever the module value claims, the server
//! answers `ERR Bad data format` (or accepts a value that really is well formed) and keeps
//! running with every other key intact.
//!
//! A DUMP payload is `0x07` (RDB_TYPE_MODULE_2), the module id as an RDB length (`0x81` + 8
//! bytes big-endian: the type name in the high 54 bits, the encoding version in the low 10),
//! the module value as typed fields, `0x00` (the module EOF opcode), the RDB version (2 bytes
//! LE) and the CRC-64 of everything before it (8 bytes LE). The payloads here are built from
//! scratch (with the helpers of `common::rdb`); only the module id and the RDB version are
//! taken from a real `DUMP`.

use rsbloom_test_support as common;

use common::guava_model;
use common::hostile::{expect_add_answers, odd_nan, Guard, Rng, BAD_RATES};
use common::rdb::*;
use common::*;
use redis::{Connection, Value};

/// The largest number of hashes a layer may have (the persistence contract).
const MAX_K: u64 = 1100;
const MAX_EXPANSION: u64 = 32768;

// ---------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------

/// One layer of a value.
#[derive(Clone, Debug, PartialEq)]
struct LayerSpec {
    capacity: u64,
    count: u64,
    k: u64,
    error: f64,
    bit_size: u64,
    bits: Vec<u8>,
}

/// A whole value; `nlayers` overrides the layer count written (to lie about it).
#[derive(Clone, Debug)]
struct ValueSpec {
    flags: u64,
    expansion: u64,
    error_rate: f64,
    nlayers: Option<u64>,
    layers: Vec<LayerSpec>,
}

impl ValueSpec {
    fn fields(&self) -> Vec<F> {
        let mut f = vec![
            F::U(self.flags),
            F::U(self.expansion),
            F::D(self.error_rate),
            F::U(self.nlayers.unwrap_or(self.layers.len() as u64)),
        ];
        for l in &self.layers {
            f.extend([
                F::U(l.capacity),
                F::U(l.count),
                F::U(l.k),
                F::D(l.error),
                F::U(l.bit_size),
            ]);
        }
        for l in &self.layers {
            f.push(F::S(l.bits.clone()));
        }
        f
    }

    /// The BF.DEBUG reply this value should give once restored.
    fn debug_lines(&self) -> Vec<String> {
        let total: u64 = self.layers.iter().map(|l| l.count).sum();
        let mut lines = vec![format!("size:{total}")];
        for l in &self.layers {
            lines.push(guava_model::debug_line(
                l.bit_size, l.k, l.capacity, l.count, l.error,
            ));
        }
        lines
    }
}

/// Items set in the base layer.
const BASE_ITEMS: [&str; 2] = ["alpha", "beta"];

/// The reference layer of the base value: capacity 100, error 0.01 (960 bits, k 7), with
/// the [`BASE_ITEMS`] set.
fn base_model_layer() -> guava_model::Layer {
    let mut layer = guava_model::Layer::new(100, 0.01);
    assert_eq!(
        (layer.words.len(), layer.k),
        (15, 7),
        "sizing of 100 @ 0.01"
    );
    for item in BASE_ITEMS {
        layer.set(guava_model::hash(item.as_bytes()));
        layer.count += 1;
    }
    layer
}

fn words_to_bytes(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn layer_spec(l: &guava_model::Layer) -> LayerSpec {
    LayerSpec {
        capacity: l.capacity,
        count: l.count,
        k: l.k as u64,
        error: l.error,
        bit_size: 64 * l.words.len() as u64,
        bits: words_to_bytes(&l.words),
    }
}

/// A scaling filter (expansion 2, error rate 0.02) whose first layer is [`base_model_layer`].
fn base_value() -> ValueSpec {
    ValueSpec {
        flags: 0,
        expansion: 2,
        error_rate: 0.02,
        nlayers: None,
        layers: vec![layer_spec(&base_model_layer())],
    }
}

/// A small two-layer value, mostly structure, for the mutation loop.
fn two_layer_value() -> ValueSpec {
    let bits = |n: usize, seed: u8| (0..n).map(|i| (i as u8).wrapping_mul(37) ^ seed).collect();
    ValueSpec {
        flags: 0,
        expansion: 2,
        error_rate: 0.1,
        nlayers: None,
        layers: vec![
            LayerSpec {
                capacity: 10,
                count: 10,
                k: 4,
                error: 0.05,
                bit_size: 128,
                bits: bits(16, 0x5a),
            },
            LayerSpec {
                capacity: 20,
                count: 3,
                k: 5,
                error: 0.025,
                bit_size: 256,
                bits: bits(32, 0xa5),
            },
        ],
    }
}

// ---------------------------------------------------------------------------------------
// The oracle: what Redis 7.0 plus the persistence contract make of a payload
// ---------------------------------------------------------------------------------------

#[derive(Debug)]
enum Verdict {
    Accept(ValueSpec),
    Reject(String),
    /// The payload uses an encoding the oracle does not model (an LZF string).
    Unknown(String),
}

fn rate_ok(p: f64) -> bool {
    p > 0.0 && p < 1.0
}

/// What RESTORE of `payload` (already sealed) must do, given the module id of the type.
fn oracle(payload: &[u8], module_id: u64) -> Verdict {
    let mut c = Cursor::new(payload);
    let result = (|| -> Result<Option<ValueSpec>, String> {
        c.module_head(module_id, 1)?;
        let flags = c.unsigned()?;
        if flags != 0 {
            return Err("flags".into());
        }
        let expansion = c.unsigned()?;
        if expansion > MAX_EXPANSION {
            return Err("expansion".into());
        }
        let error_rate = c.double()?;
        if !rate_ok(error_rate) {
            return Err("error rate".into());
        }
        let nlayers = c.unsigned()?;
        if nlayers == 0 || (expansion == 0 && nlayers != 1) {
            return Err("layer count".into());
        }
        let mut layers = Vec::new();
        // More layers than bytes left cannot be read; stop at the first short read.
        for _ in 0..nlayers {
            let capacity = c.unsigned()?;
            let count = c.unsigned()?;
            let k = c.unsigned()?;
            let error = c.double()?;
            let bit_size = c.unsigned()?;
            if capacity == 0 || count > capacity || k == 0 || k > MAX_K || !rate_ok(error) {
                return Err("layer parameters".into());
            }
            if bit_size == 0 || bit_size % 64 != 0 {
                return Err("bit size".into());
            }
            layers.push(LayerSpec {
                capacity,
                count,
                k,
                error,
                bit_size,
                bits: Vec::new(),
            });
        }
        let mut unknown = false;
        for l in &mut layers {
            match c.string()? {
                Some(bits) if bits.len() as u64 == l.bit_size / 8 => l.bits = bits,
                Some(_) => return Err("bit array length".into()),
                None => {
                    unknown = true;
                    break;
                }
            }
        }
        if unknown {
            return Ok(None);
        }
        c.module_eof()?;
        Ok(Some(ValueSpec {
            flags,
            expansion,
            error_rate,
            nlayers: None,
            layers,
        }))
    })();
    match result {
        Ok(Some(v)) => Verdict::Accept(v),
        Ok(None) => Verdict::Unknown("LZF string".into()),
        Err(why) => Verdict::Reject(why),
    }
}

// ---------------------------------------------------------------------------------------
// The fixture
// ---------------------------------------------------------------------------------------

const VICTIM: &str = "victim";

struct Bench {
    _server: Server,
    con: Connection,
    frame: Frame,
    guard: Guard,
}

impl Bench {
    fn new() -> Bench {
        let server = Server::start();
        let mut con = server.conn();
        expect_ok(&mut con, &["BF.RESERVE", "sample", "0.01", "3"]);
        expect_int(&mut con, &["BF.ADD", "sample", "a"], 1);
        let dump = as_bytes(&raw(&mut con, &["DUMP", "sample"]));
        let frame = Frame::from_dump(&dump);
        expect_int(&mut con, &["DEL", "sample"], 1);
        let guard = Guard::plant(&mut con);
        Bench {
            _server: server,
            con,
            frame,
            guard,
        }
    }

    fn restore(&mut self, payload: &[u8]) -> Value {
        restore(&mut self.con, VICTIM, payload)
    }

    /// RESTORE must answer `ERR Bad data format`, create nothing and disturb nothing.
    fn refuse(&mut self, payload: &[u8], what: &str) {
        expect_restore_refused(&mut self.con, VICTIM, payload, what);
        self.guard.check(&mut self.con, what);
    }

    /// RESTORE must answer OK; the key is left for the caller to inspect.
    fn accept(&mut self, payload: &[u8], what: &str) {
        let v = self.restore(payload);
        assert_eq!(
            v,
            Value::Okay,
            "{what}: RESTORE answered {v:?} (payload {payload:02x?})"
        );
        self.guard.check(&mut self.con, what);
    }

    /// RESTORE must do what the oracle says; an accepted filter is checked and deleted.
    /// Returns the verdict's kind: 'a'ccepted, 'r'ejected, 'u'nknown.
    fn expect_oracle(&mut self, payload: &[u8], what: &str) -> char {
        match oracle(payload, self.frame.module_id()) {
            Verdict::Reject(why) => {
                self.refuse(payload, &format!("{what} ({why})"));
                'r'
            }
            Verdict::Accept(value) => {
                self.accept(payload, what);
                check_restored(&mut self.con, VICTIM, Some(&value), what);
                expect_int(&mut self.con, &["DEL", VICTIM], 1);
                'a'
            }
            Verdict::Unknown(why) => {
                restore_unmodelled(&mut self.con, VICTIM, payload, what, &why, |c| {
                    check_restored(c, VICTIM, None, what)
                });
                self.guard.check(&mut self.con, what);
                'u'
            }
        }
    }
}

/// An accepted filter must answer every read, and (when known) exactly reflect `value`:
/// BF.DEBUG lines, the SCANDUMP data stream, BF.INFO. BF.ADD must not hit an internal error,
/// and the module's own DUMP of it must RESTORE again.
fn check_restored(con: &mut Connection, key: &str, value: Option<&ValueSpec>, what: &str) {
    let debug = bf_debug(con, key);
    let info = bf_info(con, key);
    assert_eq!(info.len(), 5, "{what}: BF.INFO answered {info:?}");
    let chunks = scandump(con, key);
    let data: Vec<u8> = chunks.iter().skip(1).flat_map(|c| c.data.clone()).collect();
    if let Some(value) = value {
        assert_eq!(debug, value.debug_lines(), "{what}: BF.DEBUG");
        let bits: Vec<u8> = value.layers.iter().flat_map(|l| l.bits.clone()).collect();
        assert!(
            data == bits,
            "{what}: SCANDUMP data differs from the restored bits"
        );
        let filters = info
            .iter()
            .find(|(n, _)| n == "Number of filters")
            .map(|(_, v)| as_int(v));
        assert_eq!(filters, Some(value.layers.len() as i64), "{what}: BF.INFO");
    }
    // The module's own DUMP of what it accepted must be accepted again.
    let dump = as_bytes(&raw(con, &["DUMP", key]));
    let args: [&[u8]; 5] = [b"RESTORE", b"victim:copy", b"0", &dump, b"REPLACE"];
    let v = raw(con, &args);
    assert_eq!(v, Value::Okay, "{what}: re-RESTORE of its own DUMP: {v:?}");
    assert_eq!(bf_debug(con, "victim:copy"), debug, "{what}: copy differs");
    expect_int(con, &["DEL", "victim:copy"], 1);
    // A write on it: an answer or a documented error, never a caught panic.
    let v = expect_add_answers(con, key, "probe-item", what);
    expect_int(
        con,
        &["BF.EXISTS", key, "probe-item"],
        i64::from(v == Value::Int(1) || v == Value::Int(0)),
    );
}

// Field positions in a one-layer value's field list.
const AT_FLAGS: usize = 0;
const AT_EXPANSION: usize = 1;
const AT_RATE: usize = 2;
const AT_NLAYERS: usize = 3;
const AT_CAPACITY: usize = 4;
const AT_COUNT: usize = 5;
const AT_K: usize = 6;
const AT_ERROR: usize = 7;
const AT_BITS: usize = 8;
const AT_DATA: usize = 9;

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

#[test]
fn crc_and_framing_match_a_real_dump() {
    // The published check value of CRC-64/Jones as Redis uses it.
    assert_eq!(crc64(b"123456789"), 0xe9c6_d914_c4b8_d9ca);
    let mut b = Bench::new();
    expect_ok(
        &mut b.con,
        &["BF.RESERVE", "real", "0.01", "1000", "EXPANSION", "4"],
    );
    expect_ints(&mut b.con, &["BF.MADD", "real", "x", "y", "z"], &[1, 1, 1]);
    let dump = as_bytes(&raw(&mut b.con, &["DUMP", "real"]));
    let frame = Frame::from_dump(&dump);
    assert_eq!(
        frame.head, b.frame.head,
        "module id differs between two DUMPs"
    );
    assert_eq!(
        frame.module_id() & 1023,
        1,
        "encoding version in the module id"
    );
    // Resealing the real body reproduces the real CRC.
    assert_eq!(frame.seal(&dump[..dump.len() - 10]), dump);
    // The real DUMP is read by the oracle as the value the filter holds (Redis compresses
    // the bit array with LZF, which the oracle leaves alone: so only the structure is seen).
    match oracle(&dump, frame.module_id()) {
        Verdict::Unknown(_) | Verdict::Accept(_) => {}
        Verdict::Reject(why) => panic!("oracle rejects a real DUMP: {why}"),
    }
    // With compression off, the real DUMP is read whole and matches BF.DEBUG.
    expect_ok(&mut b.con, &["CONFIG", "SET", "rdbcompression", "no"]);
    let dump = as_bytes(&raw(&mut b.con, &["DUMP", "real"]));
    match oracle(&dump, frame.module_id()) {
        Verdict::Accept(v) => {
            assert_eq!(v.debug_lines(), bf_debug(&mut b.con, "real"));
            assert_eq!(v.expansion, 4);
            assert_eq!(v.error_rate, 0.01);
        }
        other => panic!("oracle on an uncompressed real DUMP: {other:?}"),
    }
}

#[test]
fn handcrafted_payload_is_accepted_and_behaves_like_a_native_filter() {
    let mut b = Bench::new();
    let value = base_value();
    let payload = b.frame.payload(&value.fields());
    b.accept(&payload, "handcrafted payload");
    let c = &mut b.con;
    let layer = base_model_layer();
    assert_eq!(
        bf_debug(c, VICTIM),
        vec!["size:2".to_string(), layer.debug_line()]
    );
    for item in BASE_ITEMS {
        expect_int(c, &["BF.EXISTS", VICTIM, item], 1);
    }
    for i in 0..300 {
        let item = format!("absent-{i}");
        let want = layer.contains(guava_model::hash(item.as_bytes())) as i64;
        expect_int(c, &["BF.EXISTS", VICTIM, &item], want);
    }
    expect_int(c, &["BF.CARD", VICTIM], 2);
    assert_eq!(info_value(c, VICTIM, "Capacity"), Value::Int(100));
    assert_eq!(info_value(c, VICTIM, "Number of filters"), Value::Int(1));
    assert_eq!(
        info_value(c, VICTIM, "Number of items inserted"),
        Value::Int(2)
    );
    assert_eq!(info_value(c, VICTIM, "Expansion rate"), Value::Int(2));
    // The SCANDUMP data stream is exactly the bits written.
    let chunks = scandump(c, VICTIM);
    let data: Vec<u8> = chunks
        .iter()
        .skip(1)
        .flat_map(|ch| ch.data.clone())
        .collect();
    assert_eq!(data, value.layers[0].bits);
    // Without compression, the module's DUMP is byte for byte the payload built here.
    expect_ok(c, &["CONFIG", "SET", "rdbcompression", "no"]);
    let dump = as_bytes(&raw(c, &["DUMP", VICTIM]));
    assert_eq!(
        dump, payload,
        "DUMP of the restored filter differs from the payload"
    );
    // It grows exactly like a native filter with these parameters.
    let mut oracle_chain = guava_model::Chain::scaling(0.02, 100, 2);
    oracle_chain.layers[0] = layer;
    for i in 0..400 {
        let item = format!("grow-{i}");
        let want = (oracle_chain.add(item.as_bytes()) == guava_model::Added::Yes) as i64;
        expect_int(c, &["BF.ADD", VICTIM, &item], want);
    }
    assert_eq!(bf_debug(c, VICTIM), oracle_chain.debug_lines());
    b.guard.check_deep(&mut b.con, "handcrafted payload");
}

#[test]
fn a_payload_with_an_lzf_compressed_bit_array_is_accepted() {
    // Redis may compress string fields; the module must take them as Redis hands them over.
    // LZF with literal runs only: a control byte `len - 1` (up to 32) then the bytes.
    let lzf = |data: &[u8]| -> Vec<u8> {
        let mut out = Vec::new();
        for run in data.chunks(32) {
            out.push(run.len() as u8 - 1);
            out.extend_from_slice(run);
        }
        out
    };
    let lzf_string = |data: &[u8], claimed: u64| -> F {
        let packed = lzf(data);
        let mut raw = vec![OP_STRING, 0xc3];
        raw.extend(rdb_len(packed.len() as u64));
        raw.extend(rdb_len(claimed));
        raw.extend(packed);
        F::Raw(raw)
    };
    let mut b = Bench::new();
    let value = base_value();
    let bits = value.layers[0].bits.clone();
    let fields = with_field(
        &value.fields(),
        AT_DATA,
        lzf_string(&bits, bits.len() as u64),
    );
    b.accept(&b.frame.payload(&fields), "LZF bit array");
    check_restored(&mut b.con, VICTIM, Some(&value), "LZF bit array");
    expect_int(&mut b.con, &["DEL", VICTIM], 1);
    // Compressed data of the wrong length, and a claimed length that does not match.
    let short = &bits[..bits.len() - 1];
    let cases = [
        ("LZF of 119 bytes", lzf_string(short, short.len() as u64)),
        (
            "LZF claiming 121 bytes",
            lzf_string(&bits, bits.len() as u64 + 1),
        ),
        (
            "LZF claiming 119 bytes",
            lzf_string(&bits, bits.len() as u64 - 1),
        ),
    ];
    for (what, f) in cases {
        let payload = b.frame.payload(&with_field(&value.fields(), AT_DATA, f));
        b.refuse(&payload, what);
    }
}

#[test]
fn truncation_at_every_byte_is_refused() {
    let mut b = Bench::new();
    for value in [base_value(), two_layer_value()] {
        let body = b.frame.body(&value.fields());
        let mut accepted = Vec::new();
        for cut in 0..body.len() {
            let payload = b.frame.seal(&body[..cut]);
            let what = format!("body cut to {cut} of {} bytes", body.len());
            // Cutting the last data byte and the EOF opcode leaves a well-formed payload: the
            // string's last byte is then the RDB version's low byte and the EOF opcode its
            // high byte (0). Every shorter cut must be refused.
            if cut + 2 < body.len() {
                b.refuse(&payload, &what);
            } else if b.expect_oracle(&payload, &what) == 'a' {
                accepted.push(cut);
            }
        }
        assert_eq!(
            accepted,
            vec![body.len() - 2],
            "only the cut that re-forms a valid payload may be accepted"
        );
    }
    b.guard.check_deep(&mut b.con, "truncations");
}

#[test]
fn extra_bytes_and_fields_are_refused() {
    let mut b = Bench::new();
    let value = base_value();
    let fields = value.fields();
    let mut cases: Vec<(String, Vec<F>)> = Vec::new();
    let mut extra = fields.clone();
    extra.push(F::U(5));
    cases.push(("an extra unsigned after the bit arrays".into(), extra));
    let mut extra = fields.clone();
    extra.push(F::D(0.5));
    cases.push(("an extra double after the bit arrays".into(), extra));
    let mut extra = fields.clone();
    extra.push(F::S(vec![0; 120]));
    cases.push(("a second bit array for a one-layer value".into(), extra));
    let mut extra = fields.clone();
    extra.push(F::Raw(vec![0x07]));
    cases.push(("a stray byte before the EOF opcode".into(), extra));
    // A second layer's parameters with the layer count still 1.
    let mut extra = fields[..AT_DATA].to_vec();
    extra.extend(fields[AT_CAPACITY..AT_DATA].iter().cloned());
    extra.push(fields[AT_DATA].clone());
    extra.push(fields[AT_DATA].clone());
    cases.push(("two layers' parameters under a count of 1".into(), extra));
    // A bit array one byte longer than its layer.
    let mut longer = value.layers[0].bits.clone();
    longer.push(0);
    cases.push((
        "a bit array one byte too long".into(),
        with_field(&fields, AT_DATA, F::S(longer)),
    ));
    for (what, f) in cases {
        b.refuse(&b.frame.payload(&f), &what);
    }
    // Bytes after the module's EOF opcode are Redis's business: it does not read them, so the
    // value itself is whole and the oracle (which models exactly that) decides.
    let mut body = b.frame.body(&fields);
    body.extend_from_slice(b"trailing");
    let payload = b.frame.seal(&body);
    b.expect_oracle(&payload, "bytes after the EOF opcode");
    b.guard.check_deep(&mut b.con, "extra bytes");
}

#[test]
fn absurd_layer_counts_are_refused() {
    let mut b = Bench::new();
    for n in [0, 2, 3, 1000, 1_000_000, 1 << 32, 1 << 63, u64::MAX] {
        let mut v = base_value();
        v.nlayers = Some(n);
        b.refuse(&b.frame.payload(&v.fields()), &format!("layer count {n}"));
    }
    // Two layers announced, two layers' parameters, one bit array.
    let mut v = two_layer_value();
    let mut f = v.fields();
    f.pop();
    b.refuse(&b.frame.payload(&f), "two layers, one bit array");
    // A non-scaling value with two (otherwise valid) layers.
    v.expansion = 0;
    b.refuse(&b.frame.payload(&v.fields()), "non-scaling with 2 layers");
    b.guard.check_deep(&mut b.con, "layer counts");
}

#[test]
fn huge_and_misaligned_bit_sizes_are_refused() {
    let mut b = Bench::new();
    let value = base_value();
    let fields = value.fields();
    let huge = [
        1u64 << 63,
        u64::MAX - 63,
        u64::MAX,
        // 2^40 bytes of bits: far over the default 512 MiB limit.
        (1u64 << 40) * 8,
        // Exactly the default limit in data bytes: over it once the bookkeeping is added.
        512 * 1024 * 1024 * 8,
        // Under the limit, but the bit array that follows has 120 bytes.
        8 * 1024 * 1024 * 8,
    ];
    for bits in huge {
        let f = with_field(&fields, AT_BITS, F::U(bits));
        b.refuse(&b.frame.payload(&f), &format!("bit size {bits}"));
    }
    // Not a multiple of 64, each with a bit array of the byte length it implies.
    for bits in [0u64, 1, 8, 63, 65, 959, 968, 1000] {
        let mut f = with_field(&fields, AT_BITS, F::U(bits));
        f[AT_DATA] = F::S(vec![0xff; (bits / 8) as usize]);
        b.refuse(&b.frame.payload(&f), &format!("bit size {bits}"));
    }
    b.guard.check_deep(&mut b.con, "bit sizes");
}

#[test]
fn bit_arrays_of_the_wrong_length_are_refused() {
    let mut b = Bench::new();
    let value = base_value();
    let fields = value.fields();
    let bits = &value.layers[0].bits;
    for len in [0usize, 1, 8, 112, 119, 121, 128, 240, 4096] {
        let mut data = bits.clone();
        data.resize(len, 0xab);
        let f = with_field(&fields, AT_DATA, F::S(data));
        b.refuse(&b.frame.payload(&f), &format!("bit array of {len} bytes"));
    }
    // Redis's integer-encoded strings: "5", "-300", "12345678" (8 bytes, for 64 bits).
    let ints: [(&str, Vec<u8>, u64); 3] = [
        ("int8 string", vec![OP_STRING, 0xc0, 5], 960),
        ("int16 string", vec![OP_STRING, 0xc1, 0xd4, 0xfe], 960),
        (
            "int32 string for 960 bits",
            vec![OP_STRING, 0xc2, 0x4e, 0x61, 0xbc, 0x00],
            960,
        ),
    ];
    for (what, raw, bit_size) in ints {
        let mut f = with_field(&fields, AT_DATA, F::Raw(raw));
        f[AT_BITS] = F::U(bit_size);
        b.refuse(&b.frame.payload(&f), what);
    }
    // ... and one whose 8 digits are exactly the bytes of a 64-bit layer: a valid value.
    let mut f = with_field(
        &fields,
        AT_DATA,
        F::Raw(vec![OP_STRING, 0xc2, 0x4e, 0x61, 0xbc, 0x00]),
    );
    f[AT_BITS] = F::U(64);
    assert_eq!(
        b.expect_oracle(&b.frame.payload(&f), "int32 string for 64 bits"),
        'a'
    );
    b.guard.check_deep(&mut b.con, "bit array lengths");
}

#[test]
fn bad_hash_counts_are_refused_and_the_bounds_accepted() {
    let mut b = Bench::new();
    let fields = base_value().fields();
    for k in [0u64, MAX_K + 1, 5000, (1 << 32) + 7, 1 << 32, u64::MAX] {
        let f = with_field(&fields, AT_K, F::U(k));
        b.refuse(&b.frame.payload(&f), &format!("k = {k}"));
    }
    for k in [1u64, 2, MAX_K] {
        let mut v = base_value();
        v.layers[0].k = k;
        let what = format!("k = {k}");
        b.accept(&b.frame.payload(&v.fields()), &what);
        check_restored(&mut b.con, VICTIM, Some(&v), &what);
        expect_int(&mut b.con, &["DEL", VICTIM], 1);
    }
    b.guard.check_deep(&mut b.con, "hash counts");
}

#[test]
fn bad_counts_and_capacities_are_refused() {
    let mut b = Bench::new();
    let fields = base_value().fields();
    let cases: Vec<(&str, u64, u64)> = vec![
        ("count above capacity", 100, 101),
        ("count far above capacity", 100, u64::MAX),
        ("capacity 0", 0, 0),
        ("capacity 0, count 1", 0, 1),
    ];
    for (what, capacity, count) in cases {
        let mut f = with_field(&fields, AT_CAPACITY, F::U(capacity));
        f[AT_COUNT] = F::U(count);
        b.refuse(&b.frame.payload(&f), what);
    }
    // A full layer (count == capacity) is valid; the next new item then opens a layer.
    let mut v = base_value();
    v.layers[0].count = 100;
    b.accept(&b.frame.payload(&v.fields()), "a full layer");
    check_restored(&mut b.con, VICTIM, Some(&v), "a full layer");
    b.guard.check_deep(&mut b.con, "counts");
}

#[test]
fn bad_error_rates_are_refused() {
    let mut b = Bench::new();
    let fields = base_value().fields();
    for p in BAD_RATES {
        for (at, name) in [(AT_ERROR, "layer"), (AT_RATE, "chain")] {
            let f = with_field(&fields, at, F::D(p));
            b.refuse(&b.frame.payload(&f), &format!("{name} error rate {p}"));
        }
    }
    let f = with_field(&fields, AT_ERROR, F::D(odd_nan()));
    b.refuse(&b.frame.payload(&f), "signalling NaN layer error");
    b.guard.check_deep(&mut b.con, "error rates");
}

#[test]
fn unknown_flags_and_bad_expansions_are_refused() {
    let mut b = Bench::new();
    let fields = base_value().fields();
    for flags in [1u64, 2, 1 << 31, 1 << 63, u64::MAX] {
        let f = with_field(&fields, AT_FLAGS, F::U(flags));
        b.refuse(&b.frame.payload(&f), &format!("flags {flags}"));
    }
    for e in [MAX_EXPANSION + 1, 1 << 32, (1 << 32) + 2, u64::MAX] {
        let f = with_field(&fields, AT_EXPANSION, F::U(e));
        b.refuse(&b.frame.payload(&f), &format!("expansion {e}"));
    }
    // The bounds: expansion 0 (non-scaling, one layer) and 32768.
    for e in [0u64, 1, MAX_EXPANSION] {
        let mut v = base_value();
        v.expansion = e;
        let what = format!("expansion {e}");
        b.accept(&b.frame.payload(&v.fields()), &what);
        check_restored(&mut b.con, VICTIM, Some(&v), &what);
        let want = if e == 0 {
            Value::Nil
        } else {
            Value::Int(e as i64)
        };
        assert_eq!(info_value(&mut b.con, VICTIM, "Expansion rate"), want);
        expect_int(&mut b.con, &["DEL", VICTIM], 1);
    }
    b.guard.check_deep(&mut b.con, "flags and expansions");
}

#[test]
fn wrong_field_types_and_versions_are_refused() {
    let mut b = Bench::new();
    let fields = base_value().fields();
    let cases: Vec<(&str, usize, F)> = vec![
        ("a double for the flags", AT_FLAGS, F::D(0.0)),
        ("a double for the layer count", AT_NLAYERS, F::D(1.0)),
        ("a double for k", AT_K, F::D(7.0)),
        ("a double for the bit size", AT_BITS, F::D(960.0)),
        ("an unsigned for the error rate", AT_RATE, F::U(0)),
        ("an unsigned for the layer error", AT_ERROR, F::U(1)),
        (
            "a string for the capacity",
            AT_CAPACITY,
            F::S(b"100".to_vec()),
        ),
        ("an unsigned for the bit array", AT_DATA, F::U(120)),
        ("a double for the bit array", AT_DATA, F::D(0.5)),
        (
            "a signed opcode for the count",
            AT_COUNT,
            raw_op(OP_SINT, &[2]),
        ),
        (
            "a float opcode for the error",
            AT_ERROR,
            raw_op(OP_FLOAT, &[0, 0, 0, 0]),
        ),
        (
            "the EOF opcode for the flags",
            AT_FLAGS,
            raw_op(OP_EOF, &[]),
        ),
        ("opcode 6 for the expansion", AT_EXPANSION, raw_op(6, &[2])),
        (
            "opcode 63 for the capacity",
            AT_CAPACITY,
            raw_op(63, &[100]),
        ),
        (
            "a bad length encoding as opcode",
            AT_K,
            raw_op(0x82, &[2, 7]),
        ),
        (
            "a bad length encoding as value",
            AT_K,
            F::Raw(vec![OP_UINT, 0xbf, 7]),
        ),
        (
            "a string with a bad encoding marker",
            AT_DATA,
            raw_op(OP_STRING, &[0xc4, 0]),
        ),
    ];
    for (what, at, field) in cases {
        b.refuse(&b.frame.payload(&with_field(&fields, at, field)), what);
    }
    // Nothing at all between the module id and the EOF opcode.
    b.refuse(&b.frame.payload(&[]), "an empty value");
    // Encoding versions the module does not know (0 and 2..1023).
    for encver in [0u64, 2, 3, 1023] {
        let frame = b.frame.with_encver(encver);
        b.refuse(
            &frame.payload(&fields),
            &format!("encoding version {encver}"),
        );
    }
    b.guard.check_deep(&mut b.con, "field types");
}

#[test]
fn max_filter_bytes_applies_to_restore() {
    let mut b = Bench::new();
    // A valid filter with 64 KiB of bits.
    let mut v = base_value();
    v.layers[0].bit_size = 64 * 1024 * 8;
    v.layers[0].bits = (0..64 * 1024).map(|i| (i % 251) as u8).collect();
    let payload = b.frame.payload(&v.fields());
    b.accept(&payload, "64 KiB filter under the default limit");
    check_restored(&mut b.con, VICTIM, Some(&v), "64 KiB filter");
    expect_int(&mut b.con, &["DEL", VICTIM], 1);
    expect_ok(
        &mut b.con,
        &["CONFIG", "SET", "bf.max-filter-bytes", "32768"],
    );
    b.refuse(&payload, "64 KiB filter over a 32 KiB limit");
    expect_ok(
        &mut b.con,
        &["CONFIG", "SET", "bf.max-filter-bytes", "65536"],
    );
    b.refuse(
        &payload,
        "64 KiB of bits plus bookkeeping over a 64 KiB limit",
    );
    expect_ok(
        &mut b.con,
        &["CONFIG", "SET", "bf.max-filter-bytes", "1048576"],
    );
    b.accept(&payload, "64 KiB filter under a 1 MiB limit");
    b.guard.check_deep(&mut b.con, "max-filter-bytes");
}

#[test]
fn random_mutations_never_hurt_the_server() {
    let mut b = Bench::new();
    let mut rng = Rng::new(0x5eed_0001_beef_cafe);
    let mut seen = std::collections::HashMap::new();
    for (base_no, value) in [base_value(), two_layer_value()].iter().enumerate() {
        let payloads = b.frame.mutations(&mut rng, &value.fields(), 1500);
        for (round, payload) in payloads.iter().enumerate() {
            let what = format!("mutation {round} of base {base_no}");
            let kind = b.expect_oracle(payload, &what);
            *seen.entry(kind).or_insert(0u32) += 1;
        }
    }
    // The loop exercised both sides (a seed change that made it trivial would show here).
    let rejected = seen.get(&'r').copied().unwrap_or(0);
    let accepted = seen.get(&'a').copied().unwrap_or(0);
    assert!(
        rejected >= 1000,
        "only {rejected} mutations were refused: {seen:?}"
    );
    assert!(
        accepted >= 100,
        "only {accepted} mutations were accepted: {seen:?}"
    );
    b.guard.check_deep(&mut b.con, "random mutations");
}
