//! Hostile RESTORE payloads and LOADCHUNK headers and chunks, seeded: refused with the
//! usual errors or accepted as a working filter, never a crash, other keys untouched.

use rsbloom_test_support as common;

use common::hostile::{mutate, Guard, Mutation, Rng, BAD_RATES};
use common::rdb::*;
use common::*;
use redis::{Connection, Value};

/// The fields of a counting filter's RDB value (see core/src/counting/codec.rs).
fn fields(
    bits: u64,
    capacity: u64,
    rate: f64,
    k: u64,
    words: u64,
    count: u64,
    data: Vec<u8>,
) -> Vec<F> {
    vec![
        F::U(0),
        F::U(bits),
        F::U(capacity),
        F::D(rate),
        F::U(k),
        F::U(words),
        F::U(count),
        F::S(data),
    ]
}

/// Whatever was accepted must answer every command.
fn exercise(c: &mut Connection, key: &str) {
    for args in [
        &["CBF.INFO", key][..],
        &["CBF.ADD", key, "x"],
        &["CBF.EXISTS", key, "x"],
        &["CBF.COUNT", key, "x"],
        &["CBF.DEL", key, "x"],
        &["CBF.MADD", key, "a", "b"],
        &["CBF.MDEL", key, "a", "b"],
        &["CBF.EXPORT", key, "GUAVA"],
        &["CBF.SCANDUMP", key, "0"],
        &["CBF.SCANDUMP", key, "1"],
        &["DEBUG", "DIGEST-VALUE", key],
        &["MEMORY", "USAGE", key],
    ] {
        let v = raw(c, args);
        if let Some(e) = err_of(&v) {
            assert!(
                e == "ERR non scaling filter is full"
                    || e.starts_with("ERR Guava")
                    || e.contains("Guava"),
                "{}: {e}",
                show_args(args)
            );
        }
    }
}

#[test]
fn hostile_restores_never_crash() {
    let mut s = Server::start();
    let mut c = s.conn();
    let guard = Guard::plant(&mut c);
    expect_ok(&mut c, &["CBF.RESERVE", "k", "0.01", "200"]);
    multi_add(&mut c, "k", 150);
    let dump = as_bytes(&raw(&mut c, &["DUMP", "k"]));
    let frame = Frame::from_dump(&dump);
    let info: Vec<i64> = ["Number of hash functions", "Number of counters"]
        .iter()
        .map(|n| super::cbf_field(&mut c, "k", n))
        .collect();
    let (k, words) = (info[0] as u64, info[1] as u64 / 64);
    let good = fields(
        4,
        200,
        0.01,
        k,
        words,
        150,
        vec![0u8; (words * 32) as usize],
    );
    // The model's own value is accepted (the frame and fields are right).
    assert_eq!(restore(&mut c, "ok", &frame.payload(&good)), Value::Okay);
    exercise(&mut c, "ok");

    // Edited fields: each refused as bad data, no key created.
    let mut cases: Vec<(String, Vec<F>)> = vec![
        ("flags".into(), with_field(&good, 0, F::U(1))),
        ("bits 2".into(), with_field(&good, 1, F::U(2))),
        ("bits 16".into(), with_field(&good, 1, F::U(16))),
        ("capacity 0".into(), with_field(&good, 2, F::U(0))),
        ("capacity huge".into(), with_field(&good, 2, F::U(u64::MAX))),
        ("k + 1".into(), with_field(&good, 4, F::U(k + 1))),
        ("words + 1".into(), with_field(&good, 5, F::U(words + 1))),
        ("words huge".into(), with_field(&good, 5, F::U(1 << 60))),
        (
            "short data".into(),
            with_field(&good, 7, F::S(vec![0; (words * 32 - 1) as usize])),
        ),
        (
            "long data".into(),
            with_field(&good, 7, F::S(vec![0; (words * 32 + 8) as usize])),
        ),
        ("data as an integer".into(), with_field(&good, 7, F::U(5))),
        (
            "8-bit data in a 4-bit value".into(),
            with_field(&good, 1, F::U(8)),
        ),
    ];
    for (i, rate) in BAD_RATES.iter().enumerate() {
        cases.push((format!("bad rate {i}"), with_field(&good, 3, F::D(*rate))));
    }
    let mut extra = good.clone();
    extra.push(F::U(0));
    cases.push(("an extra field".into(), extra));
    cases.push(("a missing field".into(), good[..7].to_vec()));
    for (what, f) in &cases {
        expect_restore_refused(&mut c, "bad", &frame.payload(f), what);
    }
    // Another encoding version.
    expect_restore_refused(
        &mut c,
        "bad",
        &frame.with_encver(2).payload(&good),
        "encver 2",
    );
    // The size limit, before allocating.
    expect_ok(&mut c, &["CONFIG", "SET", "bf.max-filter-bytes", "1000"]);
    expect_restore_refused(&mut c, "bad", &dump, "over bf.max-filter-bytes");
    expect_ok(
        &mut c,
        &["CONFIG", "SET", "bf.max-filter-bytes", "536870912"],
    );
    let refused_before: i64 = info_field(&mut c, "bf_cbf", "bf_cbf_refused_loads")
        .unwrap()
        .parse()
        .unwrap();
    assert!(refused_before >= cases.len() as i64);

    // Seeded mutations of the real DUMP body: 3,000 payloads.
    let mut rng = Rng::new(0x00C0_FFEE);
    let body = &dump[..dump.len() - 10];
    let mut accepted = 0;
    for round in 0..3000 {
        let bad = frame.seal(&mutate(&mut rng, body, Mutation::after(frame.head.len())));
        let v = restore(&mut c, "m", &bad);
        if v == Value::Okay {
            accepted += 1;
            exercise(&mut c, "m");
            expect_int(&mut c, &["DEL", "m"], 1);
        } else {
            assert_eq!(
                err_of(&v).as_deref(),
                Some("ERR Bad data format"),
                "round {round}"
            );
        }
        if round % 500 == 0 {
            s.assert_alive();
            guard.check(&mut c, &format!("mutation {round}"));
        }
    }
    eprintln!("hostile CBF RESTOREs: {accepted} of 3000 mutants accepted as working filters");
    guard.check_deep(&mut c, "the mutated RESTOREs");
    s.assert_alive();
}

fn multi_add(c: &mut Connection, key: &str, n: usize) {
    super::multi(c, "CBF.MADD", key, &gen_items("h:", 0..n));
}

#[test]
fn hostile_loadchunks_never_crash() {
    let mut s = Server::start();
    let mut c = s.conn();
    let guard = Guard::plant(&mut c);
    expect_ok(
        &mut c,
        &["CBF.RESERVE", "k", "0.01", "300", "COUNTERBITS", "8"],
    );
    multi_add(&mut c, "k", 200);
    let header = match raw(&mut c, &["CBF.SCANDUMP", "k", "0"]) {
        Value::Array(a) => as_bytes(&a[1]),
        other => panic!("{other:?}"),
    };
    let total = super::cbf_field(&mut c, "k", "Number of counters");
    let mut rng = Rng::new(0x10AD);
    let mut accepted = 0;
    for round in 0..3000 {
        let bad = mutate(&mut rng, &header, Mutation::after(0));
        let v = raw(&mut c, &[&b"CBF.LOADCHUNK"[..], b"h", b"1", &bad]);
        if v == Value::Okay {
            accepted += 1;
            exercise(&mut c, "h");
            expect_int(&mut c, &["DEL", "h"], 1);
        } else {
            let e = err_of(&v).unwrap_or_else(|| panic!("round {round}: {v:?}"));
            assert!(
                e == "ERR received bad data" || e.starts_with("ERR filter would need"),
                "round {round}: {e}"
            );
        }
        if round % 500 == 0 {
            s.assert_alive();
        }
    }
    eprintln!("hostile CBF headers: {accepted} of 3000 mutants accepted");
    // Data chunks at every bad place of a real filter.
    expect_ok(&mut c, &[&b"CBF.LOADCHUNK"[..], b"t", b"1", &header]);
    let bytes = total; // 8-bit counters: a byte each
    for (iter, len, want) in [
        (0i64, 1usize, "ERR received bad data"),
        (-5, 1, "ERR received bad data"),
        (bytes + 2, 1, "ERR invalid offset - no link found"),
        (
            bytes + 2,
            2,
            "ERR invalid chunk - Too big for current filter",
        ),
        (i64::MAX, 1, "ERR invalid offset - no link found"),
    ] {
        let data = vec![7u8; len];
        let it = iter.to_string();
        expect_err(
            &mut c,
            &[b"CBF.LOADCHUNK", &b"t"[..], it.as_bytes(), &data],
            want,
        );
    }
    // A chunk that saturates counters: counted, and the filter works.
    let it = (1 + 64).to_string();
    expect_ok(
        &mut c,
        &[
            b"CBF.LOADCHUNK",
            &b"t"[..],
            it.as_bytes(),
            &[0xffu8; 64][..],
        ],
    );
    assert_eq!(super::cbf_field(&mut c, "t", "Saturated counters"), 64);
    exercise(&mut c, "t");
    guard.check_deep(&mut c, "the hostile LOADCHUNKs");
    s.assert_alive();
}
