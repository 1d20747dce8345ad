//! The t-digest inputs that crash RedisBloom (tests/vectors/redisbloom-tdigest/README.md and
//! the issue): RESTOREs of a digest with compression -1 or NaN, a capacity of 20,000 over the
//! 16 nodes compression 1 allocates, a million unmerged nodes, truncated payloads and seeded
//! byte mutations, and CREATE / MERGE with compressions whose node arrays cannot be
//! allocated. Each gets an error reply (or, for a mutation, loads as a digest that answers
//! every query), the server keeps serving, and other keys are intact.

use rsbloom_test_support as common;

use common::hostile::{key_exists, Mutation, Rng};
use common::rdb::{expect_restore_refused, restore, Frame, BAD_DATA, F};
use common::*;
use redis::{Connection, Value};

/// A string, a t-digest and its DUMP, which every hostile input must leave alone.
fn witnesses(con: &mut Connection) -> Vec<u8> {
    expect_ok(con, &["SET", "witness:str", "untouched"]);
    expect_ok(con, &["TDIGEST.CREATE", "witness:td", "COMPRESSION", "20"]);
    expect_ok(con, &["TDIGEST.ADD", "witness:td", "1", "2", "3", "4", "5"]);
    as_bytes(&raw(con, &["DUMP", "witness:td"]))
}

fn check_witnesses(server: &mut Server, con: &mut Connection, dump: &[u8], case: &str) {
    server.assert_alive();
    assert_eq!(as_text(&raw(con, &["PING"])), "PONG", "{case}: no PONG");
    assert_eq!(
        as_text(&raw(con, &["GET", "witness:str"])),
        "untouched",
        "{case}"
    );
    assert_eq!(
        as_bytes(&raw(con, &["DUMP", "witness:td"])),
        dump,
        "{case}: witness:td changed"
    );
}

/// The fields of a compression-1 digest of 40 values (16 nodes, some merged).
fn base_fields(con: &mut Connection) -> (Frame, Vec<F>) {
    expect_ok(con, &["TDIGEST.CREATE", "base", "COMPRESSION", "1"]);
    let values: Vec<String> = (0..40).map(|i| i.to_string()).collect();
    let mut args = vec!["TDIGEST.ADD", "base"];
    args.extend(values.iter().map(String::as_str));
    expect_ok(con, &args);
    let dump = as_bytes(&raw(con, &["DUMP", "base"]));
    let frame = Frame::from_dump(&dump);
    // Read the fields back: 9 header fields, then means and weights.
    let mut c = rsbloom_core::testkit::rdb::Cursor::new(&dump);
    c.module_head(frame.module_id(), 0).expect("head");
    let mut fields = Vec::new();
    for i in 0..9 {
        fields.push(if (3..7).contains(&i) {
            F::U(c.unsigned().unwrap())
        } else {
            F::D(c.double().unwrap())
        });
    }
    let F::U(m) = fields[4] else { unreachable!() };
    for _ in 0..2 * m {
        fields.push(F::D(c.double().unwrap()));
    }
    assert!(m >= 2, "{m} merged nodes");
    expect_int(con, &["DEL", "base"], 1);
    (frame, fields)
}

fn set(fields: &[F], at: usize, f: F) -> Vec<F> {
    common::rdb::with_field(fields, at, f)
}

#[test]
fn redisbloom_crashers_are_refused() {
    let mut server = Server::start();
    let mut con = server.conn();
    let dump = witnesses(&mut con);
    let (frame, fields) = base_fields(&mut con);
    assert_eq!(
        restore(&mut con, "ok", &frame.payload(&fields)),
        Value::Okay
    );
    expect_int(&mut con, &["DEL", "ok"], 1);
    let cases: Vec<(&str, Vec<F>)> = vec![
        ("compression -1", set(&fields, 0, F::D(-1.0))),
        ("compression NaN", set(&fields, 0, F::D(f64::NAN))),
        ("compression 0", set(&fields, 0, F::D(0.0))),
        ("compression inf", set(&fields, 0, F::D(f64::INFINITY))),
        ("compression 1e15", set(&fields, 0, F::D(1e15))),
        ("compression 1.5", set(&fields, 0, F::D(1.5))),
        (
            "capacity 20000 over 16 nodes",
            set(&fields, 3, F::U(20_000)),
        ),
        ("1,000,000 unmerged nodes", set(&fields, 5, F::U(1_000_000))),
        ("merged nodes over the capacity", set(&fields, 4, F::U(17))),
        ("merged nodes past the data", set(&fields, 4, F::U(15))),
        ("NaN min", set(&fields, 1, F::D(f64::NAN))),
        ("min over max", set(&fields, 1, F::D(1e300))),
        ("merged weight two over", set(&fields, 7, F::D(42.0))),
        ("merged weight under", set(&fields, 7, F::D(39.0))),
        ("negative merged weight", set(&fields, 7, F::D(-40.0))),
        ("unmerged weight without nodes", set(&fields, 8, F::D(3.0))),
        ("a negative weight", {
            let n = fields.len();
            set(&fields, n - 1, F::D(-1.0))
        }),
        ("a fractional weight", {
            let n = fields.len();
            set(&fields, n - 1, F::D(0.5))
        }),
    ];
    for (what, f) in &cases {
        expect_restore_refused(&mut con, "bad", &frame.payload(f), what);
        check_witnesses(&mut server, &mut con, &dump, what);
    }
    // States RedisBloom's own code reaches (core/src/tdigest/codec.rs): a NaN mean, a
    // merged weight one over the nodes' sum, a node of weight 0 (RedisBloom's zeroed node
    // after it loads its one-observation save). They load and answer every query.
    let n = fields.len();
    let reachable: Vec<(&str, Vec<F>)> = vec![
        ("NaN mean", set(&fields, 9, F::D(f64::NAN))),
        ("merged weight one over", set(&fields, 7, F::D(41.0))),
        ("a weight of 0", set(&fields, n - 1, F::D(0.0))),
    ];
    for (what, f) in &reachable {
        assert_eq!(
            restore(&mut con, "ok", &frame.payload(f)),
            Value::Okay,
            "{what}"
        );
        for q in [
            vec!["TDIGEST.QUANTILE", "ok", "0", "0.5", "1"],
            vec!["TDIGEST.CDF", "ok", "0", "10", "1e300"],
            vec!["TDIGEST.RANK", "ok", "0", "10"],
            vec!["TDIGEST.TRIMMED_MEAN", "ok", "0.1", "0.9"],
            vec!["TDIGEST.ADD", "ok", "1", "2", "3"],
            vec!["TDIGEST.INFO", "ok"],
        ] {
            let v = raw(&mut con, &q);
            assert!(err_of(&v).is_none(), "{what}: {q:?}: {v:?}");
        }
        expect_int(&mut con, &["DEL", "ok"], 1);
        check_witnesses(&mut server, &mut con, &dump, what);
    }
    // Every truncation of a valid body.
    let body = frame.body(&fields);
    for cut in frame.head.len() + 1..body.len() {
        let v = restore(&mut con, "cut", &frame.seal(&body[..cut]));
        assert_eq!(err_of(&v).as_deref(), Some(BAD_DATA), "cut at {cut}: {v:?}");
    }
    check_witnesses(&mut server, &mut con, &dump, "truncations");

    // Compressions whose nodes cannot be allocated.
    for c in [
        "1000000000000000",
        "9223372036854775807",
        "768614336404564650",
        "400000000",
    ] {
        let v = raw(&mut con, &["TDIGEST.CREATE", "huge", "COMPRESSION", c]);
        let e = err_of(&v).unwrap_or_else(|| panic!("CREATE {c}: {v:?}"));
        assert!(
            e == "ERR T-Digest: allocation failed" || e.starts_with("ERR filter would need"),
            "CREATE {c}: {e}"
        );
        let v = raw(
            &mut con,
            &["TDIGEST.MERGE", "huge", "1", "witness:td", "COMPRESSION", c],
        );
        let e = err_of(&v).unwrap_or_else(|| panic!("MERGE {c}: {v:?}"));
        assert!(
            e == "ERR T-Digest: allocation of destination digest failed"
                || e.starts_with("ERR filter would need"),
            "MERGE {c}: {e}"
        );
        assert!(!key_exists(&mut con, "huge"));
    }
    check_witnesses(&mut server, &mut con, &dump, "huge compressions");
}

/// Seeded mutations of real payloads (RedisBloom's recorded DUMPs and rsbloom's): refused,
/// or loaded as a digest that answers every query; the server keeps serving.
#[test]
fn mutated_restores_never_crash() {
    let mut server = Server::start();
    let mut con = server.conn();
    let dump = witnesses(&mut con);
    let mut rng = Rng::new(0x7d16e57);
    let mut bases: Vec<Vec<u8>> = ["c1", "c10", "single", "merge", "empty"]
        .iter()
        .map(|n| files::read_bytes("redisbloom-tdigest", &format!("{n}.dump.bin")))
        .collect();
    bases.push(dump.clone());
    let (mut accepted, mut refused) = (0, 0);
    for round in 0..1500 {
        let base = &bases[round % bases.len()];
        // This server's RDB version (RedisBloom's files are of Redis 7.4).
        let mut frame = Frame::from_dump(base);
        frame.version = Frame::from_dump(&dump).version;
        let body = &base[..base.len() - 10];
        let mutated = common::hostile::mutate(&mut rng, body, Mutation::after(frame.head.len()));
        let payload = frame.seal(&mutated);
        match restore(&mut con, "m", &payload) {
            Value::Okay => {
                accepted += 1;
                for q in [
                    vec!["TDIGEST.QUANTILE", "m", "0", "0.5", "1"],
                    vec!["TDIGEST.CDF", "m", "0", "10", "1e300"],
                    vec!["TDIGEST.RANK", "m", "0", "10"],
                    vec!["TDIGEST.BYREVRANK", "m", "0", "1", "5"],
                    vec!["TDIGEST.TRIMMED_MEAN", "m", "0.1", "0.9"],
                    vec!["TDIGEST.ADD", "m", "1", "2", "3"],
                    vec!["TDIGEST.MERGE", "m2", "2", "m", "m"],
                    vec!["TDIGEST.INFO", "m"],
                    vec!["DUMP", "m"],
                ] {
                    let v = raw(&mut con, &q);
                    assert!(
                        err_of(&v).is_none() || q[0] == "TDIGEST.ADD",
                        "{q:?}: {v:?}"
                    );
                }
                raw(&mut con, &["DEL", "m", "m2"]);
            }
            v => {
                assert_eq!(
                    err_of(&v).as_deref(),
                    Some(BAD_DATA),
                    "round {round}: {v:?}"
                );
                refused += 1;
            }
        }
        if round % 100 == 0 {
            check_witnesses(&mut server, &mut con, &dump, &format!("round {round}"));
        }
    }
    check_witnesses(&mut server, &mut con, &dump, "mutations");
    println!("{accepted} mutated payloads loaded, {refused} refused");
    assert!(
        accepted > 20 && refused > 500,
        "{accepted} loaded, {refused} refused"
    );
}

/// An RDB file of this server's version holding one module value at `key`: `body` is a DUMP
/// body (type byte, module id, fields, EOF opcode). Its checksum is 0 (not checked). Valkey
/// 9's versions (80 on) have their own magic.
fn rdb_of(frame: &Frame, key: &str, body: &[u8]) -> Vec<u8> {
    let version = u16::from_le_bytes(frame.version);
    let magic = if version >= 80 {
        format!("VALKEY{version:03}")
    } else {
        format!("REDIS{version:04}")
    };
    let mut out = magic.into_bytes();
    out.extend_from_slice(&[0xFE, 0x00, body[0]]);
    out.extend(common::rdb::rdb_len(key.len() as u64));
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(&body[1..]);
    out.push(0xFF);
    out.extend_from_slice(&[0; 8]);
    out
}

/// A refused RDB value names the key, the type and the reason in the log (the server itself
/// says only that the file is bad); the same file with the value intact loads.
#[test]
fn refused_rdb_value_is_logged_with_key_type_and_reason() {
    let server = Server::start();
    let mut con = server.conn();
    let (frame, fields) = base_fields(&mut con);
    drop((con, server));
    let good = rdb_of(&frame, "td:good", &frame.body(&fields));
    let loaded = Server::start_prepared(ServerOpts::default(), |dir| {
        std::fs::write(dir.join("dump.rdb"), &good).expect("dump.rdb")
    });
    let mut con = loaded.conn();
    expect_ints(&mut con, &["TDIGEST.RANK", "td:good", "100"], &[40]);

    let bad = rdb_of(&frame, "td:bad", &frame.body(&set(&fields, 7, F::D(42.0))));
    let log = match Server::try_start_prepared(ServerOpts::default(), |dir| {
        std::fs::write(dir.join("dump.rdb"), &bad).expect("dump.rdb")
    }) {
        Ok(s) => panic!("the server started on a bad value:\n{}", s.log_text()),
        Err(log) => log,
    };
    let line = log
        .lines()
        .find(|l| l.contains("bf: refusing to load key"))
        .unwrap_or_else(|| panic!("no refusal line in the log:\n{log}"));
    assert!(
        line.contains(
            "bf: refusing to load key 'td:bad' of type TDIS-TYPE: ERR received bad data: \
             t-digest merged weight 42 is not its centroids' 40"
        ),
        "{line}"
    );
}
