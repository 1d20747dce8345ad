//! The module's doubles on the wire, byte for byte as the server writes its own: on RESP2 the
//! module formats a double itself where it knows the server's format, so each double's
//! reply (TDIGEST.MIN, and BYRANK's array) is compared with ZSCORE's reply for the same score,
//! which the server writes with `addReplyDouble`. On RESP3 both go through the server.
//! A seeded mix: random finite bit patterns, short decimals, integers around 2^53, 2^62
//! and 2^63, powers of ten around the layout switches, subnormals, signed zeros; the
//! infinities through BYRANK past the end, NaN through an empty digest against a script's
//! double reply.

use rsbloom_test_support as common;

use common::hostile::Rng;
use common::raw_resp::RawConn;
use common::Server;

/// How many random bit patterns and short decimals (per protocol, RESP3 a fifth of it).
const RANDOM: usize = 6_000;

/// `ulps` representable doubles above (or below) a positive `x`.
fn step(x: f64, ulps: i64) -> f64 {
    f64::from_bits((x.to_bits() as i64 + ulps) as u64)
}

/// The doubles to compare, all finite, with their negatives.
fn doubles(random: usize) -> Vec<f64> {
    let mut rng = Rng::new(0xd0b1_2e91);
    let mut out = vec![0.0, 1.0, 0.5, 0.1, 1.0 / 3.0, 2.0 / 3.0, 5e-324, f64::MAX];
    out.extend([f64::MIN_POSITIVE, f64::EPSILON, 123456.789e300]);
    for anchor in [
        2f64.powi(53),
        2f64.powi(62),
        2f64.powi(63),
        2f64.powi(64),
        f64::MIN_POSITIVE,
    ] {
        for ulps in -3..=3 {
            out.push(step(anchor, ulps));
        }
    }
    for e in -330..=310 {
        let p: f64 = format!("1e{e}").parse().expect("power of ten");
        out.extend([step(p, -1), p, step(p, 1), 1.5 * p, 9.87654321 * p]);
    }
    for k in 0..64 {
        out.push(2f64.powi(k) - 1.0);
        out.push(2f64.powi(-k) * 3.0);
    }
    for _ in 0..random {
        let x = f64::from_bits(rng.next_u64());
        if x.is_finite() {
            out.push(x);
        }
        // A short decimal at a random scale.
        let digits = rng.below(10_000_000) as f64;
        let scale: f64 = format!("1e{}", rng.below(60) as i32 - 30)
            .parse()
            .expect("scale");
        out.push(digits * scale);
        // A subnormal, a random integer below 2^62, one above it.
        out.push(f64::from_bits(rng.below(1 << 52)));
        out.push((rng.next_u64() >> (2 + rng.below(60))) as f64);
        out.push(((rng.next_u64() | 1 << 63) >> rng.below(2)) as f64);
    }
    // Powers of ten past the range became zero or infinite, and their steps NaN.
    out.retain(|x| x.is_finite());
    let negatives: Vec<f64> = out.iter().map(|x| -x).collect();
    out.extend(negatives);
    out
}

/// A bulk string reply's payload as text, for messages.
fn shown(reply: &[u8]) -> String {
    String::from_utf8_lossy(reply).escape_debug().to_string()
}

/// Compares, for every double, the module's replies with ZSCORE's on one connection.
fn compare(c: &mut RawConn, values: &[f64]) {
    assert_eq!(c.send(&[b"DEL".as_slice(), b"t", b"z"])[0], b':');
    assert_eq!(c.send(&["TDIGEST.CREATE", "t"]), b"+OK\r\n");
    let mut cmds: Vec<Vec<String>> = Vec::new();
    for x in values {
        // Rust's shortest text reads back as the same double in the server's strtod.
        let arg = format!("{x:e}");
        cmds.push(vec!["TDIGEST.RESET".into(), "t".into()]);
        cmds.push(vec!["TDIGEST.ADD".into(), "t".into(), arg.clone()]);
        cmds.push(vec!["TDIGEST.MIN".into(), "t".into()]);
        cmds.push(["TDIGEST.BYRANK", "t", "0", "0"].map(String::from).to_vec());
        cmds.push(vec!["ZADD".into(), "z".into(), arg, "m".into()]);
        cmds.push(vec!["ZSCORE".into(), "z".into(), "m".into()]);
    }
    let replies = c.pipeline(&cmds);
    for (x, r) in values.iter().zip(replies.chunks(6)) {
        assert_eq!(r[1], b"+OK\r\n", "TDIGEST.ADD {x:e}");
        let server = &r[5];
        assert!(
            server.starts_with(b"$") || server.starts_with(b","),
            "ZSCORE of {x:e}: {}",
            shown(server)
        );
        assert_eq!(
            shown(&r[2]),
            shown(server),
            "TDIGEST.MIN of {x:e} ({:#x})",
            x.to_bits()
        );
        let pair = [b"*2\r\n".as_slice(), server, server].concat();
        assert_eq!(shown(&r[3]), shown(&pair), "TDIGEST.BYRANK of {x:e}");
    }

    // The infinities: past either end of a digest, against a sorted set's infinite scores.
    let replies = c.pipeline(&[
        vec!["TDIGEST.BYRANK", "t", "5"],
        vec!["TDIGEST.BYREVRANK", "t", "5"],
        vec!["ZADD", "z", "inf", "m"],
        vec!["ZSCORE", "z", "m"],
        vec!["ZADD", "z", "-inf", "m"],
        vec!["ZSCORE", "z", "m"],
    ]);
    assert_eq!(
        shown(&replies[0]),
        shown(&[b"*1\r\n", &replies[3][..]].concat())
    );
    assert_eq!(
        shown(&replies[1]),
        shown(&[b"*1\r\n", &replies[5][..]].concat())
    );

    // NaN: an empty digest's minimum, against a script's double reply of a NaN.
    let replies = c.pipeline(&[
        vec!["TDIGEST.RESET", "t"],
        vec!["TDIGEST.MIN", "t"],
        vec!["EVAL", "return {double = tonumber(ARGV[1])}", "0", "nan"],
    ]);
    assert_eq!(
        shown(&replies[1]),
        shown(&replies[2]),
        "TDIGEST.MIN of empty"
    );
}

#[test]
fn doubles_are_written_as_the_server_writes_them() {
    let s = Server::start();
    let mut c = RawConn::connect(s.port);
    // Scores in a skip list, never re-read from a listpack's text.
    let set = c.send(&["CONFIG", "SET", "zset-max-listpack-entries", "0"]);
    assert_eq!(set, b"+OK\r\n");
    let values = doubles(RANDOM);
    compare(&mut c, &values);
    let mut c3 = RawConn::connect_resp3(s.port);
    compare(&mut c3, &doubles(RANDOM / 5));
}
