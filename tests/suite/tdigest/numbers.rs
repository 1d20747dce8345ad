//! Numbers in arguments are read as the server reads them. rsbloom reads plain decimals
//! itself (`rsbloom_core::decimal`) and leaves every other form to the server's parser; both
//! must take the same strings to the same doubles. The server's own `ZADD` and `ZSCORE`
//! are the reference: for each string, TDIGEST.ADD accepts it exactly when ZADD does (and
//! the value is finite), and TDIGEST.MIN then answers what ZSCORE does, byte for byte.

use rsbloom_core::testkit::Rng;
use rsbloom_test_support as common;

use common::*;
use redis::Value;

/// A seeded mix: plain decimals of every length around the bounds of the fast path (2^53
/// and 22 places), and forms only the server reads or refuses.
fn strings() -> Vec<String> {
    let mut out: Vec<String> = [
        "0",
        "-0",
        "0.0",
        "-0.0",
        "00",
        "007.250",
        "0.5",
        "-0.99",
        "1",
        "+1",
        "+1.5",
        ".5",
        "-.5",
        "5.",
        "1e3",
        "1E-3",
        "-2.5e+2",
        " 1",
        "1 ",
        "0x10",
        "0x1p3",
        "inf",
        "-inf",
        "Infinity",
        "nan",
        "-nan",
        "1e400",
        "-1e400",
        "1e-400",
        "4.9e-324",
        "2.2250738585072014e-308",
        "",
        "-",
        ".",
        "abc",
        "1.2.3",
        "--1",
        "1,5",
        "9007199254740992",
        "9007199254740993",
        "-9007199254740993",
        "18446744073709551616",
        "123456789012345678901234567890",
        "0.0000000000000000000001",
        "0.00000000000000000000001",
        "1.0000000000000002",
        "179769313486231570000000000000000000000000000000000000000000000000000000000000000",
        "0.1",
        "0.2",
        "0.3",
        "2.675",
        "1.000000000000002",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut rng = Rng::new(0xdec1_3a15);
    for _ in 0..3000 {
        let whole_digits = rng.below(20) as usize;
        let places = rng.below(26) as usize;
        let digit = |rng: &mut Rng| (b'0' + rng.below(10) as u8) as char;
        let whole: String = (0..whole_digits.max(1)).map(|_| digit(&mut rng)).collect();
        let fraction: String = (0..places).map(|_| digit(&mut rng)).collect();
        let sign = if rng.below(3) == 0 { "-" } else { "" };
        out.push(match places {
            0 => format!("{sign}{whole}"),
            _ => format!("{sign}{whole}.{fraction}"),
        });
    }
    out
}

#[test]
fn decimals_read_as_the_server_reads_them() {
    let s = Server::start();
    let mut c = s.conn();
    // A listpack keeps a score as text (so -0 comes back 0); a skiplist keeps the double.
    expect_ok(&mut c, &["CONFIG", "SET", "zset-max-listpack-entries", "0"]);
    expect_ok(&mut c, &["TDIGEST.CREATE", "d"]);
    let strings = strings();
    let mut cmds = Vec::new();
    for (i, text) in strings.iter().enumerate() {
        let member = i.to_string();
        cmds.push(build(&["ZADD", "z", text.as_str(), &member]));
        cmds.push(build(&["ZSCORE", "z", &member]));
        cmds.push(build(&["TDIGEST.RESET", "d"]));
        cmds.push(build(&["TDIGEST.ADD", "d", text.as_str()]));
        cmds.push(build(&["TDIGEST.MIN", "d"]));
    }
    let replies = raw_pipeline(&mut c, cmds).expect("pipeline");
    let (mut compared, mut refused) = (0, 0);
    for (text, r) in strings.iter().zip(replies.chunks(5)) {
        let zadd_ok = err_of(&r[0]).is_none();
        let add_ok = err_of(&r[3]).is_none();
        let score = match &r[1] {
            Value::BulkString(b) => Some(String::from_utf8(b.clone()).expect("text")),
            Value::Nil => None,
            other => panic!("ZSCORE of {text:?} answered {other:?}"),
        };
        let finite = score.as_deref().is_some_and(|s| !s.contains("inf"));
        assert_eq!(
            add_ok,
            zadd_ok && finite,
            "{text:?}: ZADD {:?} ZSCORE {score:?}, TDIGEST.ADD {:?}",
            r[0],
            r[3]
        );
        if add_ok {
            assert_eq!(as_text(&r[4]), score.unwrap(), "{text:?}");
            compared += 1;
        } else {
            refused += 1;
        }
    }
    assert!(
        compared > 2500 && refused > 10,
        "{compared} compared, {refused} refused"
    );
}
