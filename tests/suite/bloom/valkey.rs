//! valkey-bloom's type, `bloomfltr`: values built here with the `bloomfilter` crate (the crate
//! valkey-bloom 1.0 stores) are RESTOREd and BF.LOADed, and answer as the crate does; the
//! commands scale, reply and err as valkey-bloom; the value goes back byte for byte through
//! DUMP, DEBUG RELOAD, the AOF rewrite (`BF.LOAD key blob`) and a replica's full sync.

use rsbloom_test_support as common;

use bloomfilter::Bloom;
use common::hostile::Rng;
use common::raw_resp::RawConn;
use common::rdb::*;
use common::*;
use redis::{Connection, Value};

const SEED: [u8; 32] = *b"0123456789abcdef0123456789ABCDEF";
const FIXED_SEED: [u8; 32] = [
    89, 15, 245, 34, 234, 120, 17, 218, 167, 20, 216, 9, 59, 62, 123, 217, 29, 137, 138, 115, 62,
    152, 136, 135, 48, 127, 151, 205, 40, 7, 51, 131,
];

/// A valkey-bloom value as the crate holds it: its sub-filters with (num_items, capacity).
struct Model {
    expansion: u64,
    fp: f64,
    tightening: f64,
    random: bool,
    filters: Vec<(Bloom<[u8]>, i64, i64)>,
}

impl Model {
    fn new(capacity: i64, fp: f64, expansion: u64, seed: &[u8; 32]) -> Model {
        let first = Bloom::new_for_fp_rate_with_seed(capacity as usize, fp, seed).unwrap();
        Model {
            expansion,
            fp,
            tightening: 0.5,
            random: seed != &FIXED_SEED,
            filters: vec![(first, 0, capacity)],
        }
    }

    fn exists(&self, item: &[u8]) -> bool {
        self.filters.iter().any(|f| f.0.check(item))
    }

    /// valkey-bloom's add (no limits): 1 added, 0 present, None non-scaling and full.
    fn add(&mut self, item: &[u8]) -> Option<i64> {
        if self.exists(item) {
            return Some(0);
        }
        let n = self.filters.len() as i32;
        let last = self.filters.last_mut().unwrap();
        if last.1 < last.2 {
            last.0.set(item);
            last.1 += 1;
            return Some(1);
        }
        if self.expansion == 0 {
            return None;
        }
        let rate = self.fp * self.tightening.powi(n);
        let capacity = last.2 * self.expansion as i64;
        let seed = self.filters[0].0.seed();
        let mut next = Bloom::new_for_fp_rate_with_seed(capacity as usize, rate, &seed).unwrap();
        next.set(item);
        self.filters.push((next, 1, capacity));
        Some(1)
    }

    fn fields(&self) -> Vec<F> {
        let mut f = vec![
            F::U(self.filters.len() as u64),
            F::U(self.expansion),
            F::D(self.fp),
            F::D(self.tightening),
            F::U(self.random as u64),
        ];
        for (i, (b, n, c)) in self.filters.iter().enumerate() {
            f.push(F::S(b.as_slice().to_vec()));
            f.push(F::U(*c as u64));
            if i + 1 == self.filters.len() {
                f.push(F::U(*n as u64));
            }
        }
        f
    }

    /// BF.LOAD's blob: version 1, then bincode's fixed-width little-endian fields.
    fn blob(&self) -> Vec<u8> {
        let mut out = vec![1u8];
        out.extend_from_slice(&(self.expansion as u32).to_le_bytes());
        out.extend_from_slice(&self.fp.to_le_bytes());
        out.extend_from_slice(&self.tightening.to_le_bytes());
        out.push(self.random as u8);
        out.extend_from_slice(&(self.filters.len() as u64).to_le_bytes());
        for (b, n, c) in &self.filters {
            out.extend_from_slice(&(b.as_slice().len() as u64).to_le_bytes());
            out.extend_from_slice(b.as_slice());
            out.extend_from_slice(&n.to_le_bytes());
            out.extend_from_slice(&c.to_le_bytes());
        }
        out
    }

    /// valkey-bloom's BF.INFO SIZE: its structs (48 + 8 per vector slot, 208 per
    /// sub-filter) and the bits.
    fn size(&self, slots: u64) -> i64 {
        let bits: usize = self.filters.iter().map(|f| f.0.as_slice().len() - 45).sum();
        (48 + 8 * slots + 208 * self.filters.len() as u64 + bits as u64) as i64
    }
}

fn items(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let len = 1 + rng.below(24) as usize;
            (0..len).map(|_| rng.below(256) as u8).collect()
        })
        .collect()
}

/// The frame of a `bloomfltr` DUMP (type id and RDB version) from a filter made here.
fn frame(c: &mut Connection) -> Frame {
    let args: [&[u8]; 9] = [
        b"BF.INSERT",
        b"frame",
        b"CAPACITY",
        b"10",
        b"SEED",
        &SEED,
        b"ITEMS",
        b"a",
        b"b",
    ];
    raw(c, &args);
    let dump = as_bytes(&raw(c, &["DUMP", "frame"]));
    raw(c, &["DEL", "frame"]);
    Frame::from_dump(&dump)
}

fn dump(c: &mut Connection, key: &str) -> Vec<u8> {
    as_bytes(&raw(c, &["DUMP", key]))
}

fn int_args(c: &mut Connection, args: &[&[u8]]) -> Value {
    raw(c, args)
}

fn assert_answers(c: &mut Connection, key: &str, model: &Model, probes: &[Vec<u8>]) {
    for chunk in probes.chunks(200) {
        let args = batch(b"BF.MEXISTS", key.as_bytes(), chunk);
        let got = as_ints(&int_args(c, &args));
        let want: Vec<i64> = chunk.iter().map(|i| model.exists(i) as i64).collect();
        assert_eq!(got, want, "BF.MEXISTS {key}");
    }
}

#[test]
fn restored_crate_values_answer_grow_and_dump_as_the_crate() {
    let s = Server::start();
    let mut c = s.conn();
    // DUMP then writes strings as they are, as the payloads here are built.
    expect_ok(&mut c, &["CONFIG", "SET", "rdbcompression", "no"]);
    let frame = frame(&mut c);
    let mut rng = Rng::new(0x7a1);
    for (round, (capacity, fp, expansion)) in
        [(50, 0.01, 2), (7, 0.1, 1), (100, 0.001, 0), (1, 0.5, 3)]
            .into_iter()
            .enumerate()
    {
        let key = format!("v{round}");
        let seed = if round == 1 { FIXED_SEED } else { SEED };
        let mut model = Model::new(capacity, fp, expansion, &seed);
        for item in items(&mut rng, capacity as usize / 2) {
            model.add(&item);
        }
        let payload = frame.payload(&model.fields());
        let v = restore(&mut c, &key, &payload);
        assert!(err_of(&v).is_none(), "RESTORE {key}: {v:?}");
        assert_eq!(as_text(&raw(&mut c, &["TYPE", &key])), "bloomfltr");
        assert_eq!(dump_body(&dump(&mut c, &key)), dump_body(&payload));
        let probes = items(&mut rng, 400);
        assert_answers(&mut c, &key, &model, &probes);

        // Adds: the crate's answers, its scaling, valkey-bloom's errors.
        for item in items(&mut rng, 3 * capacity as usize + 5) {
            let args: [&[u8]; 3] = [b"BF.ADD", key.as_bytes(), &item];
            let got = raw(&mut c, &args);
            match model.add(&item) {
                Some(n) => assert_eq!(as_int(&got), n, "BF.ADD {key}"),
                None => {
                    assert_eq!(
                        err_of(&got).as_deref(),
                        Some("ERR non scaling filter is full")
                    );
                    break;
                }
            }
        }
        assert_eq!(
            dump_body(&dump(&mut c, &key)),
            dump_body(&frame.payload(&model.fields())),
            "{key} after the adds"
        );
        assert_answers(&mut c, &key, &model, &probes);
        let card: i64 = model.filters.iter().map(|f| f.1).sum();
        expect_int(&mut c, &["BF.CARD", &key], card);
        let cap: i64 = model.filters.iter().map(|f| f.2).sum();
        expect_int(&mut c, &["BF.INFO", &key, "CAPACITY"], cap);
        expect_int(
            &mut c,
            &["BF.INFO", &key, "FILTERS"],
            model.filters.len() as i64,
        );
        // The RDB load's vector of sub-filters grows 1, 4, 8, ...
        let n = model.filters.len() as u64;
        let slots = if n == 1 {
            1
        } else {
            n.next_power_of_two().max(4)
        };
        expect_int(&mut c, &["BF.INFO", &key, "SIZE"], model.size(slots));
    }
    // COPY makes the same value (same bytes, same BF.INFO SIZE).
    expect_int(&mut c, &["COPY", "v0", "copied"], 1);
    assert_eq!(
        dump_body(&dump(&mut c, "copied")),
        dump_body(&dump(&mut c, "v0"))
    );
    let size = |c: &mut Connection, k: &str| as_int(&raw(c, &["BF.INFO", k, "SIZE"]));
    assert_eq!(size(&mut c, "copied"), size(&mut c, "v0"));
    // DEBUG RELOAD keeps every value's bytes.
    let before: Vec<Vec<u8>> = (0..4).map(|i| dump(&mut c, &format!("v{i}"))).collect();
    expect_ok(&mut c, &["DEBUG", "RELOAD"]);
    for (i, d) in before.iter().enumerate() {
        assert_eq!(
            &dump(&mut c, &format!("v{i}")),
            d,
            "v{i} after DEBUG RELOAD"
        );
    }
}

#[test]
fn info_replies_valkey_blooms_fields() {
    let s = Server::start();
    let mut c = s.conn();
    let args: [&[u8]; 11] = [
        b"BF.INSERT",
        b"k",
        b"CAPACITY",
        b"100",
        b"ERROR",
        b"0.01",
        b"SEED",
        &SEED,
        b"ITEMS",
        b"x",
        b"y",
    ];
    assert_eq!(as_ints(&raw(&mut c, &args)), vec![1, 1]);
    let model = Model::new(100, 0.01, 2, &SEED);
    match raw(&mut c, &["BF.INFO", "k"]) {
        Value::Array(v) => {
            let names: Vec<String> = v.iter().step_by(2).map(as_text).collect();
            assert_eq!(
                names,
                [
                    "Capacity",
                    "Size",
                    "Number of filters",
                    "Number of items inserted",
                    "Error rate",
                    "Expansion rate",
                    "Tightening ratio",
                    "Max scaled capacity"
                ]
            );
            assert_eq!(as_int(&v[1]), 100);
            assert_eq!(as_int(&v[3]), model.size(1));
            assert_eq!(as_int(&v[7]), 2);
            assert_eq!(as_text(&v[9]).parse::<f64>().unwrap(), 0.01);
            assert_eq!(as_int(&v[11]), 2);
            assert!(
                as_int(&v[15]) > 1_000_000,
                "max scaled capacity {:?}",
                v[15]
            );
        }
        other => panic!("BF.INFO answered {other:?}"),
    }
    expect_err(
        &mut c,
        &["BF.INFO", "k", "NOPE"],
        "ERR invalid information value",
    );
    expect_err(&mut c, &["BF.INFO", "missing"], "ERR not found");
    expect_err(
        &mut c,
        &["BF.RESERVE", "k", "0.01", "100"],
        "ERR item exists",
    );
    expect_err(
        &mut c,
        &["BF.INSERT", "k", "SEED", "short", "ITEMS", "a"],
        "ERR invalid seed",
    );
    expect_err(
        &mut c,
        &["BF.INSERT", "k", "TIGHTENING", "2", "ITEMS", "a"],
        "ERR (0 < tightening ratio range < 1)",
    );
    expect_err(
        &mut c,
        &["BF.INSERT", "k", "BOGUS", "1", "ITEMS", "a"],
        "ERR unknown argument received",
    );
    expect_err(
        &mut c,
        &["BF.LOAD", "k", "x"],
        "BUSYKEY Target key name already exists.",
    );
    let nonscaling: [&[u8]; 8] = [
        b"BF.INSERT",
        b"ns",
        b"NONSCALING",
        b"SEED",
        &SEED,
        b"VALIDATESCALETO",
        b"5",
        b"ITEMS",
    ];
    expect_err(
        &mut c,
        &nonscaling[..7],
        "ERR cannot use NONSCALING and VALIDATESCALETO options together",
    );
    // Commands valkey-bloom lacks refuse its keys as another type.
    expect_err_prefix(&mut c, &["BF.SCANDUMP", "k", "0"], "WRONGTYPE");
}

#[test]
fn bf_load_takes_valkey_blooms_blob_and_the_aof_rewrite_writes_it() {
    let mut s = Server::start();
    let mut c = s.conn();
    let mut rng = Rng::new(99);
    let mut model = Model::new(20, 0.05, 2, &SEED);
    for item in items(&mut rng, 70) {
        model.add(&item);
    }
    assert!(model.filters.len() > 1);
    let blob = model.blob();
    let args: [&[u8]; 3] = [b"BF.LOAD", b"loaded", &blob];
    expect_ok(&mut c, &args);
    let probes = items(&mut rng, 500);
    assert_answers(&mut c, "loaded", &model, &probes);
    // Hostile blobs: refused with valkey-bloom's errors, never a crash.
    let mut bad = blob.clone();
    bad[0] = 9;
    let args: [&[u8]; 3] = [b"BF.LOAD", b"bad", &bad];
    assert_eq!(
        err_of(&raw(&mut c, &args)).as_deref(),
        Some("ERR bloom object decoding failed. Unsupported version")
    );
    for cut in [1, 10, 30, 40, 80, blob.len() - 1] {
        let args: [&[u8]; 3] = [b"BF.LOAD", b"bad", &blob[..cut]];
        assert_eq!(
            err_of(&raw(&mut c, &args)).as_deref(),
            Some("ERR bloom object decoding failed"),
            "cut at {cut}"
        );
    }
    expect_ok(&mut c, &["CONFIG", "SET", "aof-use-rdb-preamble", "no"]);
    expect_ok(&mut c, &["CONFIG", "SET", "appendonly", "yes"]);
    wait_for_aof_rewrite(&mut c);
    let (_, bytes) = s.aof_base();
    let commands = parse_aof(&bytes).unwrap();
    let load: Vec<&Vec<Vec<u8>>> = commands
        .iter()
        .filter(|a| a[0].eq_ignore_ascii_case(b"BF.LOAD"))
        .collect();
    assert_eq!(load.len(), 1, "one BF.LOAD in the rewritten AOF");
    assert_eq!(load[0][1], b"loaded");
    assert_eq!(load[0][2], blob, "the rewrite's blob is valkey-bloom's");
    let before = dump(&mut c, "loaded");
    drop(c);
    std::fs::remove_file(s.dir().join("dump.rdb")).ok();
    s.restart(&["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]);
    let mut c = s.conn();
    assert_eq!(dump(&mut c, "loaded"), before, "after the AOF replay");
}

#[test]
fn a_replica_gets_the_same_filter_by_stream_and_by_full_sync() {
    let primary = Server::start();
    let mut p = primary.conn();
    let mut rng = Rng::new(3);
    let before: [&[u8]; 8] = [
        b"BF.INSERT",
        b"early",
        b"CAPACITY",
        b"30",
        b"SEED",
        &SEED,
        b"ITEMS",
        b"a",
    ];
    raw(&mut p, &before);
    madd_items(&mut p, "early", &items(&mut rng, 100));
    let replica = primary.start_replica();
    let mut r = replica.conn();
    // Created after the sync: by BF.INSERT without a SEED (a random one), grown by MADD.
    let args: [&[u8]; 7] = [
        b"BF.INSERT",
        b"late",
        b"TIGHTENING",
        b"0.25",
        b"ITEMS",
        b"p",
        b"q",
    ];
    assert_eq!(as_ints(&raw(&mut p, &args)), vec![1, 1]);
    madd_items(&mut p, "late", &items(&mut rng, 400));
    expect_int(&mut p, &["WAIT", "1", "5000"], 1);
    for key in ["early", "late"] {
        assert_eq!(as_text(&raw(&mut r, &["TYPE", key])), "bloomfltr");
        assert_eq!(
            dump_body(&dump(&mut r, key)),
            dump_body(&dump(&mut p, key)),
            "{key} on the replica"
        );
    }
}

/// `command key item...`.
fn batch<'a>(command: &'a [u8], key: &'a [u8], items: &'a [Vec<u8>]) -> Vec<&'a [u8]> {
    let mut args = vec![command, key];
    args.extend(items.iter().map(Vec::as_slice));
    args
}

fn madd_items(c: &mut Connection, key: &str, items: &[Vec<u8>]) {
    let args = batch(b"BF.MADD", key.as_bytes(), items);
    let v = raw(c, &args);
    assert!(err_of(&v).is_none(), "BF.MADD {key}: {v:?}");
}

#[test]
fn new_filter_format_valkey_creates_bloomfltr_with_its_configs() {
    // valkey-bloom's config names as load arguments, as its valkey.conf would set them.
    let s = Server::start_with(ServerOpts::module_args(&[
        "bloom-capacity",
        "3",
        "bloom-use-random-seed",
        "no",
        "new-filter-format",
        "valkey",
    ]));
    let mut c = s.conn();
    assert_eq!(config_get(&mut c, "bf.bloom-capacity"), "3");
    assert_eq!(
        config_get(&mut c, "bf.bloom-memory-usage-limit"),
        "134217728"
    );
    expect_ok(&mut c, &["CONFIG", "SET", "bf.bloom-fp-rate", "0.05"]);
    expect_err_prefix(
        &mut c,
        &["CONFIG", "SET", "bf.bloom-fp-rate", "1.5"],
        "ERR CONFIG SET failed",
    );
    // BF.ADD and BF.MADD create valkey-bloom's filter from the bf.bloom-* configs, with its
    // fixed seed here: exactly the crate's filter.
    let mut model = Model::new(3, 0.05, 2, &FIXED_SEED);
    model.random = false;
    let mut rng = Rng::new(11);
    for item in items(&mut rng, 20) {
        let args: [&[u8]; 3] = [b"BF.ADD", b"auto", &item];
        assert_eq!(as_int(&raw(&mut c, &args)), model.add(&item).unwrap());
    }
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "auto"])), "bloomfltr");
    expect_ok(&mut c, &["CONFIG", "SET", "rdbcompression", "no"]);
    let frame = Frame::from_dump(&dump(&mut c, "auto"));
    assert_eq!(
        dump_body(&dump(&mut c, "auto")),
        dump_body(&frame.payload(&model.fields()))
    );
    // Missing keys answer valkey-bloom's integers.
    expect_int(&mut c, &["BF.EXISTS", "none", "x"], 0);
    expect_ok(&mut c, &["BF.RESERVE", "r", "0.01", "1000", "NONSCALING"]);
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "r"])), "bloomfltr");
    expect_err(
        &mut c,
        &["BF.RESERVE", "r2", "0.01", "10", "BOGUS"],
        "ERROR",
    );
    // Back to guava: new keys are rsbloom's again, bloomfltr keys keep their dialect.
    expect_ok(&mut c, &["CONFIG", "SET", "bf.new-filter-format", "guava"]);
    expect_int(&mut c, &["BF.ADD", "g", "x"], 1);
    assert_eq!(as_text(&raw(&mut c, &["TYPE", "g"])), "RSbloom--");
    expect_int(&mut c, &["BF.INFO", "r", "FILTERS"], 1);
}

#[test]
fn hostile_restore_payloads_are_refused_and_the_server_lives() {
    let s = Server::start();
    let mut c = s.conn();
    let frame = frame(&mut c);
    let model = Model::new(100, 0.01, 2, &SEED);
    let good = model.fields();
    let bits = model.filters[0].0.as_slice().to_vec();
    let patched = |at: usize, bytes: &[u8]| {
        let mut b = bits.clone();
        b[at..at + bytes.len()].copy_from_slice(bytes);
        with_field(&good, 5, F::S(b))
    };
    let cases: Vec<(&str, Vec<F>)> = vec![
        ("k 0", patched(9, &0u32.to_le_bytes())),
        ("k huge", patched(9, &u32::MAX.to_le_bytes())),
        ("length disagrees", patched(1, &7u64.to_le_bytes())),
        ("version 2", patched(0, &[2])),
        ("no sub-filters", with_field(&good, 0, F::U(0))),
        ("2^40 sub-filters", with_field(&good, 0, F::U(1 << 40))),
        ("capacity 0", with_field(&good, 6, F::U(0))),
        ("error rate 2", with_field(&good, 2, F::D(2.0))),
        ("fixed seed mode, other seed", with_field(&good, 4, F::U(0))),
        ("truncated", good[..6].to_vec()),
    ];
    for (what, fields) in cases {
        expect_restore_refused(&mut c, "h", &frame.payload(&fields), what);
    }
    // Over bf.bloom-memory-usage-limit: refused from a client.
    expect_ok(
        &mut c,
        &["CONFIG", "SET", "bf.bloom-memory-usage-limit", "300"],
    );
    expect_restore_refused(&mut c, "h", &frame.payload(&good), "over the memory limit");
    expect_ok(
        &mut c,
        &["CONFIG", "SET", "bf.bloom-memory-usage-limit", "134217728"],
    );
    let v = restore(&mut c, "h", &frame.payload(&good));
    assert!(err_of(&v).is_none(), "{v:?}");
    let mut rng = Rng::new(8);
    for payload in frame.mutations(&mut rng, &good, 300) {
        let _ = restore(&mut c, "m", &payload);
        raw(&mut c, &["BF.ADD", "m", "x"]);
    }
    assert_eq!(as_text(&raw(&mut c, &["PING"])), "PONG");
}

/// `lazyfree_pending_objects` and valkey-bloom's five figures (`bf_bloom_core_metrics`, in
/// its order), from one INFO reply: the memory section comes first, so a 0 pending there
/// means every free the flush scheduled ran before the figures were read.
fn pending_and_figures(c: &mut Connection) -> (i64, [i64; 5]) {
    let text = as_text(&raw(c, &["INFO", "memory", "bf_bloom_core_metrics"]));
    let get = |name: &str| -> i64 {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}:")))
            .unwrap_or_else(|| panic!("INFO has no {name}: {text}"))
            .trim()
            .parse()
            .unwrap()
    };
    let figures = [
        "bf_bloom_total_memory_bytes",
        "bf_bloom_num_objects",
        "bf_bloom_num_filters_across_objects",
        "bf_bloom_num_items_across_objects",
        "bf_bloom_capacity_across_objects",
    ]
    .map(get);
    (get("lazyfree_pending_objects"), figures)
}

/// What a key adds to the five figures, from its BF.INFO.
fn key_figures(c: &mut Connection, key: &str) -> [i64; 5] {
    let mut f = |field: &str| as_int(&raw(c, &["BF.INFO", key, field]));
    [f("SIZE"), 1, f("FILTERS"), f("ITEMS"), f("CAPACITY")]
}

fn plus(a: [i64; 5], b: [i64; 5], times: i64) -> [i64; 5] {
    std::array::from_fn(|i| a[i] + b[i] * times)
}

/// valkey-bloom's figures through a lazy flush (Valkey 8 and later flush so by default,
/// `lazyfree-lazy-user-flush yes`; set here for Redis): FLUSHDB and FLUSHALL answer before
/// the server's background thread frees the values, and each value is counted until its
/// free, as valkey-bloom counts them (its test_copy_metrics and test_basic_command_metrics
/// read INFO at once and fail now and then on valkey-bloom as on rsbloom). The figures only
/// fall, and once nothing is pending they are the remaining keys' exactly: FLUSHDB takes its
/// own database's filters away, FLUSHALL every one.
#[test]
fn valkey_metrics_fall_as_a_lazy_flush_frees_and_settle_when_nothing_is_pending() {
    let s = Server::start_with(ServerOpts::module_args(&[
        "new-filter-format",
        "valkey",
        "bloom-use-random-seed",
        "no",
    ]));
    let mut c = s.conn();
    expect_ok(
        &mut c,
        &["CONFIG", "SET", "lazyfree-lazy-user-flush", "yes"],
    );
    // Database 1 keeps a filter scaled once; database 0 gets 2,000 default filters and a
    // copy, enough that the free takes a while.
    let mut other = s.conn();
    expect_ok(&mut other, &["SELECT", "1"]);
    let items = gen_items("i", 0..150);
    madd_items(&mut other, "kept", &items);
    let kept = key_figures(&mut other, "kept");
    assert_eq!(kept[2], 2, "the kept filter scaled once: {kept:?}");
    let n = 2000;
    let mut pipe = redis::pipe();
    for i in 0..n {
        pipe.cmd("BF.ADD").arg(format!("k{i}")).arg("x");
    }
    let added: Vec<i64> = pipe.query(&mut c).expect("the BF.ADD pipeline");
    assert!(added.iter().all(|&a| a == 1));
    assert_eq!(as_int(&raw(&mut c, &["COPY", "k0", "copied"])), 1);
    let one = key_figures(&mut c, "k0");
    let mut before = plus(kept, one, n + 1);
    assert_eq!(pending_and_figures(&mut c), (0, before));

    for (flush, after) in [("FLUSHDB", kept), ("FLUSHALL", [0; 5])] {
        expect_ok(&mut c, &[flush]);
        assert_eq!(as_int(&raw(&mut c, &["DBSIZE"])), 0, "{flush}");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let (pending, figures) = pending_and_figures(&mut c);
            for i in 0..5 {
                assert!(
                    after[i] <= figures[i] && figures[i] <= before[i],
                    "{flush}: {figures:?} outside {after:?}..{before:?}"
                );
            }
            if pending == 0 {
                assert_eq!(figures, after, "{flush} with nothing pending");
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{flush}: still pending"
            );
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        before = after;
    }
    assert_eq!(as_int(&raw(&mut other, &["DBSIZE"])), 0);
}

/// `command key item` for each item, its integer answers.
fn one_by_one(c: &mut Connection, command: &[u8], key: &[u8], items: &[Vec<u8>]) -> Vec<i64> {
    items
        .iter()
        .map(|i| as_int(&int_args(c, &[command, key, i])))
        .collect()
}

/// `bloomfltr` batches on a sub-filter past the prefetch threshold (2 MiB of bits) take the
/// batch paths (probe 0 first for lookups, bit positions kept between request and write for
/// adds): their answers are those of one command per item, and integers in RESP3 as in RESP2
/// (valkey-bloom's replies), on every server.
#[test]
fn large_filter_batches_answer_as_single_commands_in_both_protocols() {
    let mut s = Server::start_with(ServerOpts::module_args(&[
        "new-filter-format",
        "valkey",
        "bloom-use-random-seed",
        "no",
    ]));
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "big", "0.01", "2000000"]);
    expect_ok(&mut c, &["BF.RESERVE", "twin", "0.01", "2000000"]);
    let mut rng = Rng::new(0xb16);
    let added = items(&mut rng, 300);
    let absent = items(&mut rng, 300);
    let mut resp3 = RawConn::connect_resp3(s.port);
    for chunk in added.chunks(100) {
        let mut args = batch(b"BF.MADD", b"big", chunk);
        let batch = as_ints(&int_args(&mut c, &args));
        let singles = one_by_one(&mut c, b"BF.ADD", b"twin", chunk);
        assert_eq!(batch, singles);
        args[1] = b"twin";
        let again = resp3.send(&args);
        assert_eq!(
            again,
            format!("*{}\r\n{}", chunk.len(), ":0\r\n".repeat(chunk.len())).into_bytes()
        );
    }
    // One seed for both (the fixed one): the same items leave the same bytes.
    assert!(
        dump(&mut c, "big") == dump(&mut c, "twin"),
        "batched and single adds differ"
    );
    let mut probe: Vec<Vec<u8>> = absent.clone();
    probe.extend(added.iter().cloned());
    for chunk in probe.chunks(150) {
        let args = batch(b"BF.MEXISTS", b"big", chunk);
        let batch = as_ints(&int_args(&mut c, &args));
        let singles = one_by_one(&mut c, b"BF.EXISTS", b"big", chunk);
        assert_eq!(batch, singles);
        let expected: String = singles.iter().map(|f| format!(":{f}\r\n")).collect();
        assert_eq!(
            resp3.send(&args),
            format!("*{}\r\n{expected}", chunk.len()).into_bytes()
        );
    }
    let found: i64 = as_ints(&int_args(&mut c, &batch(b"BF.MEXISTS", b"big", &added)))
        .iter()
        .sum();
    assert_eq!(found, 300, "every added item is found");
    s.assert_alive();
}
