//! Hostile RESTORE payloads and LOADCHUNK headers and chunks, seeded: refused with the
//! usual errors or accepted as a working filter, never a crash, other keys untouched; a
//! shape over `bf.max-filter-bytes` refused before anything is allocated.

use rsbloom_test_support as common;

use common::hostile::{loadchunk_verdict, mutate, Guard, Mutation, Rng, BAD_RATES};
use common::rdb::*;
use common::*;
use redis::{Connection, Value};

use super::{apbf_field, insert_at, loadchunks, multi, scandump, server_ms};

const HOUR: u64 = 3_600_000;
const FULL: &str = "ERR sliding window is full";

// Indices of the parameter block's fields (see core/src/window/codec.rs).
const FLAGS: usize = 0;
const WINDOW: usize = 1;
const SPAN: usize = 2;
const CAPACITY: usize = 3;
const RATE: usize = 4;
const K: usize = 5;
const L: usize = 6;
const SLICES: usize = 7;
const GENERATION: usize = 8;
const BLOCKS: usize = 9;
const HEAD: usize = 10;
const TURNS: usize = 11;
const CLOCK: usize = 12;
const TURNED: usize = 13;
const ADDED: usize = 14;
const OVERFLOWS: usize = 15;
/// The first generation's `items`, `first_ms`, `last_ms` follow the 16 parameters.
const GENERATIONS: usize = 16;

/// A real DUMP's module value as fields (encoding version 2): 16 parameters and 3 per slice
/// for the reserved ring, the layer count, per layer its level, 16 parameters and 3 per
/// slice, then each ring's words (as a plain string, whatever compression the DUMP used).
fn parse(dump: &[u8], frame: &Frame) -> Vec<F> {
    let mut cur = Cursor::new(dump);
    cur.module_head(frame.module_id(), 2).unwrap();
    let mut out = Vec::new();
    let ring = |cur: &mut Cursor, out: &mut Vec<F>| {
        let at = out.len();
        for i in 0..GENERATIONS {
            out.push(if i == RATE {
                F::D(cur.double().unwrap())
            } else {
                F::U(cur.unsigned().unwrap())
            });
        }
        let F::U(slices) = out[at + SLICES] else {
            unreachable!()
        };
        for _ in 0..3 * slices {
            out.push(F::U(cur.unsigned().unwrap()));
        }
    };
    ring(&mut cur, &mut out);
    let layers = cur.unsigned().unwrap();
    out.push(F::U(layers));
    for _ in 0..layers {
        out.push(F::U(cur.unsigned().unwrap()));
        ring(&mut cur, &mut out);
    }
    for _ in 0..=layers {
        out.push(F::S(cur.string_bytes().unwrap()));
    }
    cur.module_eof().unwrap();
    out
}

/// Where the reserved ring's block ends (the layer count's index).
fn layer_count_at(fields: &[F]) -> usize {
    GENERATIONS + 3 * u(fields, SLICES) as usize
}

/// The version 1 form of a window without layers: its fields without the layer count.
fn version_1(fields: &[F]) -> Vec<F> {
    let at = layer_count_at(fields);
    assert_eq!(u(fields, at), 0, "version 1 has no layers");
    let mut f = fields.to_vec();
    f.remove(at);
    f
}

fn u(fields: &[F], at: usize) -> u64 {
    match fields[at] {
        F::U(v) => v,
        ref other => panic!("field {at} is {other:?}"),
    }
}

/// Whatever was accepted must answer every command, and DUMP / RESTORE as itself.
fn exercise(c: &mut Connection, key: &str) {
    let now = server_ms(c).to_string();
    for args in [
        &["APBF.INFO", key][..],
        &["APBF.EXISTS", key, "x"],
        &["APBF.MEXISTS", key, "x", "y", "z"],
        &["APBF.ADD", key, "x"],
        &["APBF.MADD", key, "a", "b", "c"],
        &["APBF.INSERTAT", key, &now, "d"],
        &["APBF.INSERTAT", key, "0", "e"],
        &["APBF.INSERTAT", key, "9223372036854775807", "f"],
        &["APBF.EXISTS", key, "f"],
        &["APBF.INFO", key],
        &["APBF.SCANDUMP", key, "0"],
        &["APBF.SCANDUMP", key, "1"],
        &["APBF.SCANDUMP", key, "100"],
        &["DEBUG", "DIGEST-VALUE", key],
        &["MEMORY", "USAGE", key],
    ] {
        let v = raw(c, args);
        // An add may find the window full (counters or times that leave the reserved ring
        // no room, a layer it may not grow): the refusal, as an error reply or the array's
        // last element, is an answer too.
        let refused = |v: &Value| err_of(v).is_some_and(|e| e.starts_with(FULL));
        let ok = match &v {
            Value::Array(a) if args[0].ends_with("ADD") || args[0].ends_with("INSERTAT") => {
                let (last, rest) = a.split_last().expect("an answer per item");
                rest.iter().all(|x| err_of(x).is_none())
                    && (err_of(last).is_none() || refused(last))
            }
            _ if args[0] == "APBF.ADD" => err_of(&v).is_none() || refused(&v),
            _ => err_of(&v).is_none(),
        };
        assert!(ok, "{}: {v:?}", show_args(args));
    }
    let dump = as_bytes(&raw(c, &["DUMP", key]));
    let digest = digest_value(c, key);
    assert_eq!(
        restore(c, "exercise:copy", &dump),
        Value::Okay,
        "{key}: DUMP / RESTORE"
    );
    assert_eq!(digest_value(c, "exercise:copy"), digest);
    expect_int(c, &["DEL", "exercise:copy"], 1);
}

/// A TIME window with remembered and forgotten items, a COUNT window turned often, and a
/// TIME window grown by a burst of six capacities at one moment (two burst layers: the
/// reserved ring takes about one capacity, level 1 two, level 2 the rest).
fn plant(c: &mut Connection) {
    let now = server_ms(c);
    expect_ok(c, &["APBF.RESERVE", "t", "TIME", "0.01", "200", "3600"]);
    insert_at(c, "t", now - 3 * HOUR, &gen_items("old:", 0..200));
    insert_at(c, "t", now - HOUR / 2, &gen_items("new:", 0..150));
    expect_ok(c, &["APBF.RESERVE", "n", "COUNT", "0.001", "100"]);
    multi(c, "APBF.MADD", "n", &gen_items("n:", 0..450));
    expect_ok(c, &["APBF.RESERVE", "g", "TIME", "0.01", "50", "3600"]);
    insert_at(c, "g", now - HOUR / 2, &gen_items("g:", 0..300));
    assert_eq!(apbf_field(c, "g", "Burst layers"), 2);
}

#[test]
fn hostile_restores_never_crash() {
    let mut s = Server::start();
    let mut c = s.conn();
    let guard = Guard::plant(&mut c);
    plant(&mut c);
    let mut tried = 0;
    for key in ["t", "n"] {
        let dump = as_bytes(&raw(&mut c, &["DUMP", key]));
        let frame = Frame::from_dump(&dump);
        let good = parse(&dump, &frame);
        // The fields written back plainly are the same filter (the frame and fields are
        // right); so is the version 1 form (the release before burst layers wrote it).
        assert_eq!(restore(&mut c, "ok", &frame.payload(&good)), Value::Okay);
        assert_eq!(digest_value(&mut c, "ok"), digest_value(&mut c, key));
        exercise(&mut c, "ok");
        expect_int(&mut c, &["DEL", "ok"], 1);
        let v1 = frame.with_encver(1).payload(&version_1(&good));
        assert_eq!(restore(&mut c, "ok", &v1), Value::Okay);
        assert_eq!(digest_value(&mut c, "ok"), digest_value(&mut c, key));
        expect_int(&mut c, &["DEL", "ok"], 1);

        let (k, l, slices) = (u(&good, K), u(&good, L), u(&good, SLICES));
        let window = u(&good, WINDOW);
        let (generation, blocks) = (u(&good, GENERATION), u(&good, BLOCKS));
        let words = blocks * (slices + 1) * 8;
        let last = good.len() - 1;
        // Edited fields: each refused as bad data, no key created.
        let mut cases: Vec<(String, Vec<F>)> = vec![
            ("flags".into(), with_field(&good, FLAGS, F::U(1))),
            ("window 2".into(), with_field(&good, WINDOW, F::U(2))),
            (
                "window huge".into(),
                with_field(&good, WINDOW, F::U(u64::MAX)),
            ),
            ("capacity 0".into(), with_field(&good, CAPACITY, F::U(0))),
            (
                "capacity 2^30 + 1".into(),
                with_field(&good, CAPACITY, F::U((1 << 30) + 1)),
            ),
            (
                "capacity huge".into(),
                with_field(&good, CAPACITY, F::U(u64::MAX)),
            ),
            (
                "capacity under a generation".into(),
                with_field(&good, CAPACITY, F::U(generation - 1)),
            ),
            ("k 0".into(), with_field(&good, K, F::U(0))),
            ("k + 1".into(), with_field(&good, K, F::U(k + 1))),
            ("k 2^32".into(), with_field(&good, K, F::U(1 << 32))),
            ("l 0".into(), with_field(&good, L, F::U(0))),
            ("l + 1".into(), with_field(&good, L, F::U(l + 1))),
            (
                "slices + 1".into(),
                with_field(&good, SLICES, F::U(slices + 1)),
            ),
            (
                "slices - 1".into(),
                with_field(&good, SLICES, F::U(slices - 1)),
            ),
            (
                "slices huge".into(),
                with_field(&good, SLICES, F::U(u64::MAX)),
            ),
            (
                "generation 0".into(),
                with_field(&good, GENERATION, F::U(0)),
            ),
            ("blocks 0".into(), with_field(&good, BLOCKS, F::U(0))),
            (
                "blocks + 1".into(),
                with_field(&good, BLOCKS, F::U(blocks + 1)),
            ),
            (
                "blocks 2^40".into(),
                with_field(&good, BLOCKS, F::U(1 << 40)),
            ),
            (
                "blocks huge".into(),
                with_field(&good, BLOCKS, F::U(u64::MAX)),
            ),
            (
                "head = slices".into(),
                with_field(&good, HEAD, F::U(slices)),
            ),
            ("head 2^32".into(), with_field(&good, HEAD, F::U(1 << 32))),
            (
                "short words".into(),
                with_field(&good, last, F::S(vec![0; words as usize - 1])),
            ),
            (
                "long words".into(),
                with_field(&good, last, F::S(vec![0; words as usize + 8])),
            ),
            ("no words".into(), with_field(&good, last, F::S(Vec::new()))),
            (
                "words as an integer".into(),
                with_field(&good, last, F::U(5)),
            ),
            (
                "a double for k".into(),
                with_field(&good, K, F::D(k as f64)),
            ),
            (
                "the rate as an integer".into(),
                with_field(&good, RATE, F::U(1)),
            ),
            (
                "a signed integer for the head".into(),
                with_field(&good, HEAD, raw_op(OP_SINT, &[0])),
            ),
            ("a missing generation".into(), {
                let mut f = good.clone();
                f.remove(GENERATIONS);
                f
            }),
            ("a missing field".into(), good[..last].to_vec()),
            ("an extra field".into(), {
                let mut f = good.clone();
                f.push(F::U(0));
                f
            }),
        ];
        if window == 1 {
            assert!(2 * l + 2 < 65);
            cases.extend([
                ("span 0".to_string(), with_field(&good, SPAN, F::U(0))),
                (
                    "span 2^40 + 1".into(),
                    with_field(&good, SPAN, F::U((1 << 40) + 1)),
                ),
                (
                    "a COUNT window with a span".into(),
                    with_field(&good, WINDOW, F::U(0)),
                ),
                // 65 slices, k + 2 l + 2 as they must be: too many for a lookup's mask.
                ("65 slices".into(), {
                    let f = with_field(&good, K, F::U(65 - 2 * l - 2));
                    with_field(&f, SLICES, F::U(65))
                }),
            ]);
        } else {
            cases.extend([
                (
                    "a COUNT window with a span".to_string(),
                    with_field(&good, SPAN, F::U(5)),
                ),
                (
                    "a TIME window without a span".into(),
                    with_field(&good, WINDOW, F::U(1)),
                ),
                ("65 slices".into(), {
                    let f = with_field(&good, K, F::U(65 - l));
                    with_field(&f, SLICES, F::U(65))
                }),
                ("generation over capacity".into(), {
                    let cap = u(&good, CAPACITY);
                    with_field(&good, GENERATION, F::U(cap + 1))
                }),
            ]);
        }
        for (i, rate) in BAD_RATES.iter().enumerate() {
            cases.push((
                format!("bad rate {i}"),
                with_field(&good, RATE, F::D(*rate)),
            ));
        }
        for (what, f) in &cases {
            expect_restore_refused(&mut c, "bad", &frame.payload(f), &format!("{key}: {what}"));
        }
        tried += cases.len();
        expect_restore_refused(
            &mut c,
            "bad",
            &frame.with_encver(3).payload(&good),
            "encver 3",
        );
        expect_restore_refused(
            &mut c,
            "bad",
            &frame.with_encver(1).payload(&good),
            "a version 2 value as version 1",
        );
        expect_restore_refused(
            &mut c,
            "bad",
            &frame.with_encver(0).payload(&good),
            "encver 0",
        );

        // A generation claiming more items than it takes (a generation closes when full):
        // refused, as the room and count sums read these counts.
        let g = GENERATIONS;
        for (what, items) in [("items at the end", u64::MAX), ("items far past", 1 << 40)] {
            let f = with_field(&good, g, F::U(items));
            expect_restore_refused(&mut c, "bad", &frame.payload(&f), what);
        }
        tried += 2;

        // Absurd counters and times, which nothing bounds: accepted, and the filter works.
        let absurd: Vec<(&str, Vec<F>)> = vec![
            ("turns at the end", with_field(&good, TURNS, F::U(u64::MAX))),
            ("clock at the end", with_field(&good, CLOCK, F::U(u64::MAX))),
            ("clock at 0", with_field(&good, CLOCK, F::U(0))),
            (
                "turned at the end",
                with_field(&good, TURNED, F::U(u64::MAX)),
            ),
            (
                "turned after the clock",
                with_field(&good, TURNED, F::U(1 << 60)),
            ),
            ("added at the end", with_field(&good, ADDED, F::U(u64::MAX))),
            (
                "overflows at the end",
                with_field(&good, OVERFLOWS, F::U(u64::MAX)),
            ),
            ("head last", with_field(&good, HEAD, F::U(slices - 1))),
            ("times at the end", {
                let f = with_field(&good, g + 1, F::U(u64::MAX));
                with_field(&f, g + 2, F::U(u64::MAX))
            }),
            ("last before first", {
                let f = with_field(&good, g + 1, F::U(u64::MAX));
                with_field(&f, g + 2, F::U(1))
            }),
            (
                "words all ones",
                with_field(&good, last, F::S(vec![0xff; words as usize])),
            ),
        ];
        for (what, f) in &absurd {
            let v = restore(&mut c, "odd", &frame.payload(f));
            assert_eq!(v, Value::Okay, "{key}: {what}");
            exercise(&mut c, "odd");
            expect_int(&mut c, &["DEL", "odd"], 1);
        }
        tried += absurd.len();

        // The size limit, before allocating.
        expect_ok(&mut c, &["CONFIG", "SET", "bf.max-filter-bytes", "1000"]);
        expect_restore_refused(&mut c, "bad", &dump, "over bf.max-filter-bytes");
        expect_ok(
            &mut c,
            &["CONFIG", "SET", "bf.max-filter-bytes", "536870912"],
        );

        // Seeded mutations of the real DUMP body: 2,000 payloads per key, under a limit of
        // 4 MB so that a mutated shape costs little.
        expect_ok(&mut c, &["CONFIG", "SET", "bf.max-filter-bytes", "4000000"]);
        let mut rng = Rng::new(0x0A9B_F000 + slices);
        let body = &dump[..dump.len() - 10];
        let mut accepted = 0;
        for round in 0..2000 {
            let bad = frame.seal(&mutate(&mut rng, body, Mutation::after(frame.head.len())));
            let v = restore(&mut c, "m", &bad);
            if v == Value::Okay {
                accepted += 1;
                exercise(&mut c, "m");
                expect_int(&mut c, &["DEL", "m"], 1);
            } else {
                assert_eq!(
                    err_of(&v).as_deref(),
                    Some(BAD_DATA),
                    "{key}: round {round}"
                );
            }
            if round % 500 == 0 {
                s.assert_alive();
                guard.check(&mut c, &format!("{key}: mutation {round}"));
            }
        }
        tried += 2000;
        expect_ok(
            &mut c,
            &["CONFIG", "SET", "bf.max-filter-bytes", "536870912"],
        );
        eprintln!("hostile APBF RESTOREs ({key}): {accepted} of 2000 mutants accepted");
    }
    tried += hostile_layers(&mut c);
    let refused: i64 = info_field(&mut c, "bf_apbf", "bf_apbf_refused_loads")
        .unwrap()
        .parse()
        .unwrap();
    assert!(refused >= 80, "{refused} refused loads counted");
    eprintln!("hostile APBF RESTOREs: {tried} payloads");
    guard.check_deep(&mut c, "the mutated RESTOREs");
    // The planted filters are intact.
    assert_eq!(apbf_field(&mut c, "t", "Number of items inserted"), 350);
    assert_eq!(apbf_field(&mut c, "n", "Number of items inserted"), 450);
    assert_eq!(apbf_field(&mut c, "g", "Number of items inserted"), 300);
    s.assert_alive();
}

/// The grown window's layers, edited: a claimed burst over the limit or past the most
/// layers a window may have is refused before anything is allocated; layers that do not
/// match their level, out of order, in a COUNT window, or whose words do not fit, as bad
/// data. Then seeded mutations of the whole value. Returns the payloads tried.
fn hostile_layers(c: &mut Connection) -> usize {
    let dump = as_bytes(&raw(c, &["DUMP", "g"]));
    let frame = Frame::from_dump(&dump);
    let good = parse(&dump, &frame);
    assert_eq!(restore(c, "ok", &frame.payload(&good)), Value::Okay);
    assert_eq!(digest_value(c, "ok"), digest_value(c, "g"));
    expect_int(c, &["DEL", "ok"], 1);
    let n_at = layer_count_at(&good);
    assert_eq!(u(&good, n_at), 2);
    // The first layer: its level, then its block.
    let (level, layer) = (n_at + 1, n_at + 2);
    let layer_slices = u(&good, layer + SLICES);
    let second = layer + GENERATIONS + 3 * layer_slices as usize;
    assert_eq!(u(&good, level), 1);
    assert_eq!(u(&good, second), 2);
    let (capacity, rate) = (u(&good, CAPACITY), good[RATE].clone());
    let F::D(rate) = rate else { unreachable!() };
    let words_at = good.len() - 3;
    let F::S(layer_words) = &good[words_at + 1] else {
        unreachable!()
    };
    let cases: Vec<(String, Vec<F>)> = vec![
        (
            "layer count 3, two layers".into(),
            with_field(&good, n_at, F::U(3)),
        ),
        (
            "layer count 1, two layers".into(),
            with_field(&good, n_at, F::U(1)),
        ),
        ("layer count 25".into(), with_field(&good, n_at, F::U(25))),
        (
            "layer count huge".into(),
            with_field(&good, n_at, F::U(u64::MAX)),
        ),
        ("level 0".into(), with_field(&good, level, F::U(0))),
        ("level 25".into(), with_field(&good, level, F::U(25))),
        (
            "levels out of order".into(),
            with_field(&good, level, F::U(3)),
        ),
        ("a level twice".into(), with_field(&good, second, F::U(1))),
        (
            "level 2^32 + 1".into(),
            with_field(&good, level, F::U((1 << 32) + 1)),
        ),
        (
            "a layer's capacity not its level's".into(),
            with_field(&good, layer + CAPACITY, F::U(capacity * 4)),
        ),
        (
            "a layer's rate not its level's".into(),
            with_field(&good, layer + RATE, F::D(rate / 4.0)),
        ),
        (
            "a layer's rate a little off".into(),
            with_field(&good, layer + RATE, F::D(rate / 2.0 * (1.0 + 1e-15))),
        ),
        (
            "a COUNT layer".into(),
            with_field(
                &with_field(&good, layer + WINDOW, F::U(0)),
                layer + SPAN,
                F::U(0),
            ),
        ),
        (
            "a layer over another span".into(),
            with_field(&good, layer + SPAN, F::U(7)),
        ),
        (
            "a layer's slices not its k and l".into(),
            with_field(&good, layer + SLICES, F::U(layer_slices + 1)),
        ),
        (
            "a layer's head past its ring".into(),
            with_field(&good, layer + HEAD, F::U(layer_slices)),
        ),
        (
            "a layer's words short".into(),
            with_field(&good, words_at + 1, F::S(layer_words[1..].to_vec())),
        ),
        (
            "a layer's words missing".into(),
            good[..good.len() - 1].to_vec(),
        ),
        ("layers in a COUNT window".into(), {
            let f = with_field(&good, WINDOW, F::U(0));
            with_field(&f, SPAN, F::U(0))
        }),
    ];
    for (what, f) in &cases {
        expect_restore_refused(c, "bad", &frame.payload(f), &format!("g: {what}"));
    }
    // A claimed burst far over the limit: refused at the limit's check, nothing allocated
    // (the server's peak memory does not move).
    let peak = |c: &mut Connection| -> i64 {
        info_field(c, "memory", "used_memory_peak")
            .unwrap()
            .parse()
            .unwrap()
    };
    let before = peak(c);
    for blocks in [1u64 << 40, 1 << 26, u64::MAX / 128] {
        let f = with_field(&good, layer + BLOCKS, F::U(blocks));
        expect_restore_refused(
            c,
            "bad",
            &frame.payload(&f),
            &format!("layer blocks {blocks}"),
        );
    }
    assert!(
        peak(c) < before + (1 << 20),
        "memory was allocated for a refused burst"
    );
    // Under a limit below the grown window's size, the value is refused; the reserved ring
    // alone would have fitted.
    let size = apbf_field(c, "g", "Size");
    expect_ok(
        c,
        &[
            "CONFIG",
            "SET",
            "bf.max-filter-bytes",
            &(size - 1).to_string(),
        ],
    );
    expect_restore_refused(c, "bad", &dump, "a grown window over the limit");
    expect_ok(c, &["CONFIG", "SET", "bf.max-filter-bytes", "4000000"]);
    let mut rng = Rng::new(0x0A9B_F1A7);
    let body = &dump[..dump.len() - 10];
    let mut accepted = 0;
    for round in 0..2000 {
        let bad = frame.seal(&mutate(&mut rng, body, Mutation::after(frame.head.len())));
        let v = restore(c, "m", &bad);
        if v == Value::Okay {
            accepted += 1;
            exercise(c, "m");
            expect_int(c, &["DEL", "m"], 1);
        } else {
            assert_eq!(err_of(&v).as_deref(), Some(BAD_DATA), "g: round {round}");
        }
    }
    expect_ok(c, &["CONFIG", "SET", "bf.max-filter-bytes", "536870912"]);
    eprintln!("hostile APBF RESTOREs (g, burst layers): {accepted} of 2000 mutants accepted");
    cases.len() + 3 + 1 + 2000
}

/// A header with field `at` (8 bytes little-endian after "RSAP" and the version byte) set.
fn edit(header: &[u8], at: usize, value: u64) -> Vec<u8> {
    let mut h = header.to_vec();
    h[5 + 8 * at..13 + 8 * at].copy_from_slice(&value.to_le_bytes());
    h
}

fn header_field(header: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(header[5 + 8 * at..13 + 8 * at].try_into().unwrap())
}

fn loadchunk(c: &mut Connection, key: &str, iter: i64, data: &[u8]) -> Value {
    let it = iter.to_string();
    raw(c, &[b"APBF.LOADCHUNK", key.as_bytes(), it.as_bytes(), data])
}

#[test]
fn hostile_loadchunks_never_crash() {
    let mut s = Server::start();
    let mut c = s.conn();
    let guard = Guard::plant(&mut c);
    plant(&mut c);
    let chunks = scandump(&mut c, "t");
    let header = chunks[0].1.clone();
    assert!(header.starts_with(b"RSAP\x02"));
    let slices = header_field(&header, SLICES) as usize;
    // The reserved ring's block, then the layer count (0).
    let n_at = GENERATIONS + 3 * slices;
    assert_eq!(header.len(), 5 + 8 * (n_at + 1));
    assert_eq!(header_field(&header, n_at), 0);
    let blocks = header_field(&header, BLOCKS);
    let total: u64 = chunks[1..].iter().map(|(_, d)| d.len() as u64).sum();
    assert_eq!(total, blocks * (slices as u64 + 1) * 8);

    // Edited headers: refused with RedisBloom's text, the reason in the log, no key.
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("magic only", b"RSAP".to_vec()),
        ("another magic", [b"RSAQ", &header[4..]].concat()),
        ("another version", [b"RSAP\x03", &header[5..]].concat()),
        (
            "version 1 with a layer count",
            [b"RSAP\x01", &header[5..]].concat(),
        ),
        ("a layer count without layers", edit(&header, n_at, 1)),
        ("truncated", header[..header.len() - 1].to_vec()),
        ("a byte more", [&header[..], b"\x00"].concat()),
        ("a generation more", [&header[..], &[0u8; 24]].concat()),
        ("flags", edit(&header, FLAGS, 1)),
        ("window 2", edit(&header, WINDOW, 2)),
        ("span 0", edit(&header, SPAN, 0)),
        ("capacity 0", edit(&header, CAPACITY, 0)),
        ("rate NaN", edit(&header, RATE, f64::NAN.to_bits())),
        ("rate 1", edit(&header, RATE, 1f64.to_bits())),
        ("rate -0", edit(&header, RATE, (-0f64).to_bits())),
        ("k 0", edit(&header, K, 0)),
        ("l + 1", edit(&header, L, header_field(&header, L) + 1)),
        ("slices 2^32", edit(&header, SLICES, 1 << 32)),
        ("generation 0", edit(&header, GENERATION, 0)),
        ("blocks 0", edit(&header, BLOCKS, 0)),
        ("head = slices", edit(&header, HEAD, slices as u64)),
    ];
    for (what, h) in &cases {
        let v = loadchunk(&mut c, "h", 1, h);
        assert_eq!(
            err_of(&v).as_deref(),
            Some("ERR received bad data"),
            "{what}: {v:?}"
        );
        assert!(
            !common::hostile::key_exists(&mut c, "h"),
            "{what}: key created"
        );
    }
    let log = s.log_text();
    let reasons = log.matches("bf: APBF.LOADCHUNK refused: ").count();
    assert!(reasons >= cases.len(), "{reasons} reasons logged");

    // A huge shape: refused before allocation, at the default limit and at a lowered one.
    let peak = |c: &mut Connection| -> i64 {
        info_field(c, "memory", "used_memory_peak")
            .unwrap()
            .parse()
            .unwrap()
    };
    let before = peak(&mut c);
    for blocks in [1u64 << 40, 1 << 26, u64::MAX / 128] {
        let v = loadchunk(&mut c, "huge", 1, &edit(&header, BLOCKS, blocks));
        let e = err_of(&v).unwrap_or_else(|| panic!("blocks {blocks}: {v:?}"));
        assert!(
            e.starts_with("ERR filter would need ")
                && e.ends_with("over bf.max-filter-bytes (536870912)"),
            "blocks {blocks}: {e}"
        );
    }
    expect_ok(&mut c, &["CONFIG", "SET", "bf.max-filter-bytes", "100000"]);
    // A header of about 1 MB: refused under 100 kB, taken under the default.
    let big = edit(&header, BLOCKS, (1 << 20) / ((slices as u64 + 1) * 8));
    let v = loadchunk(&mut c, "huge", 1, &big);
    let e = err_of(&v).unwrap_or_else(|| panic!("{v:?}"));
    assert!(e.ends_with("over bf.max-filter-bytes (100000)"), "{e}");
    assert!(
        peak(&mut c) < before + (1 << 20),
        "memory was allocated for refused shapes"
    );
    assert!(!common::hostile::key_exists(&mut c, "huge"));
    expect_ok(
        &mut c,
        &["CONFIG", "SET", "bf.max-filter-bytes", "536870912"],
    );
    assert_eq!(loadchunk(&mut c, "huge", 1, &big), Value::Okay);
    assert!(apbf_field(&mut c, "huge", "Size") > 1 << 20);
    exercise(&mut c, "huge");

    // A grown window's header claiming a huge burst layer: refused at the limit's check
    // before allocation.
    let grown = scandump(&mut c, "g")[0].1.clone();
    let g_slices = header_field(&grown, SLICES) as usize;
    let layer = GENERATIONS + 3 * g_slices + 2;
    assert_eq!(
        header_field(&grown, layer - 1),
        1,
        "the first layer's level"
    );
    let before = peak(&mut c);
    for blocks in [1u64 << 40, 1 << 26] {
        let v = loadchunk(&mut c, "burst", 1, &edit(&grown, layer + BLOCKS, blocks));
        let e = err_of(&v).unwrap_or_else(|| panic!("layer blocks {blocks}: {v:?}"));
        assert!(
            e.starts_with("ERR filter would need "),
            "layer blocks {blocks}: {e}"
        );
    }
    assert!(
        peak(&mut c) < before + (1 << 20),
        "memory was allocated for a refused burst"
    );
    assert!(!common::hostile::key_exists(&mut c, "burst"));
    // The grown window's header as it is makes the window, and its chunks fill it.
    let grown_chunks = scandump(&mut c, "g");
    assert_eq!(loadchunk(&mut c, "burst", 1, &grown), Value::Okay);
    loadchunks(&mut c, "burst", &grown_chunks[1..]);
    assert_eq!(digest_value(&mut c, "burst"), digest_value(&mut c, "g"));
    // The version 1 header of a window without layers (the release before wrote it) still
    // makes the window.
    let v1 = [b"RSAP\x01", &header[5..header.len() - 8]].concat();
    assert_eq!(loadchunk(&mut c, "v1", 1, &v1), Value::Okay);
    loadchunks(&mut c, "v1", &chunks[1..]);
    assert_eq!(digest_value(&mut c, "v1"), digest_value(&mut c, "t"));

    // Seeded mutations of the headers: 3,000 each, under a limit of 4 MB.
    expect_ok(&mut c, &["CONFIG", "SET", "bf.max-filter-bytes", "4000000"]);
    let mut rng = Rng::new(0x10AD_A9BF);
    let mut accepted = 0;
    for round in 0..6000 {
        let base = if round < 3000 { &header } else { &grown };
        let bad = mutate(&mut rng, base, Mutation::after(0));
        let v = loadchunk(&mut c, "m", 1, &bad);
        if v == Value::Okay {
            accepted += 1;
            exercise(&mut c, "m");
            expect_int(&mut c, &["DEL", "m"], 1);
        } else {
            let e = err_of(&v).unwrap_or_else(|| panic!("round {round}: {v:?}"));
            assert!(
                e == "ERR received bad data" || e.starts_with("ERR filter would need"),
                "round {round}: {e}"
            );
        }
        if round % 500 == 0 {
            s.assert_alive();
            guard.check(&mut c, &format!("header mutation {round}"));
        }
    }
    eprintln!("hostile APBF headers: {accepted} of 6000 mutants accepted");
    expect_ok(
        &mut c,
        &["CONFIG", "SET", "bf.max-filter-bytes", "536870912"],
    );

    // Data chunks at every bad place, and random ones, against RedisBloom's rules for one
    // stream of `total` bytes.
    assert_eq!(loadchunk(&mut c, "d", 1, &header), Value::Okay);
    let t = total as i64;
    let mut places: Vec<(i64, usize)> = vec![
        (0, 1),
        (-5, 1),
        (i64::MIN, 1),
        (1, 0),
        (1, 1),
        (2, 1),
        (3, 2),
        (t + 1, t as usize),
        (t + 1, t as usize + 1),
        (t + 2, 1),
        (t + 2, 2),
        (t + 1, 1),
        (t + 1, 0),
        (t, 1),
        (i64::MAX, 1),
        (i64::MAX, 0),
    ];
    for _ in 0..500 {
        let len = rng.below(64) as usize;
        places.push((rng.below(total + 80) as i64 - 8, len));
    }
    for (iter, len) in places {
        let data: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let v = loadchunk(&mut c, "d", iter, &data);
        // As the counting filters: an empty chunk right at the end writes nothing and is
        // taken (RedisBloom's Bloom filters call it an invalid offset).
        let verdict = match loadchunk_verdict(iter, len, &[total]) {
            Err(_) if len == 0 && iter == t + 1 => Ok(total),
            v => v,
        };
        match verdict {
            Ok(_) => assert_eq!(v, Value::Okay, "iter {iter} len {len}"),
            Err(want) => assert_eq!(err_of(&v).as_deref(), Some(want), "iter {iter} len {len}"),
        }
    }
    // Whatever the chunks wrote, the filter works.
    exercise(&mut c, "d");
    // A filter whose every byte was overwritten by noise works too.
    let noise: Vec<u8> = (0..total).map(|_| rng.next_u64() as u8).collect();
    assert_eq!(loadchunk(&mut c, "d", t + 1, &noise), Value::Okay);
    exercise(&mut c, "d");
    guard.check_deep(&mut c, "the hostile LOADCHUNKs");
    s.assert_alive();
}
