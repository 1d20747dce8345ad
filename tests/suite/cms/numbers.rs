//! Integers in arguments are read as the server reads them. rsbloom reads short ones itself
//! (`rsbloom_core::decimal::integer`) and leaves the rest to `RedisModule_StringToLongLong`;
//! the server's own `INCRBY` (the same `string2ll`) is the reference: for each string,
//! CMS.INCRBY fails to parse it exactly when INCRBY does, and otherwise counts by its value.

use rsbloom_core::testkit::Rng;
use rsbloom_test_support as common;

use common::*;
use redis::Value;

fn strings() -> Vec<String> {
    let mut out: Vec<String> = [
        "0",
        "-0",
        "00",
        "01",
        "-01",
        "1",
        "-1",
        "+1",
        "",
        "-",
        " 1",
        "1 ",
        "1.0",
        "1e3",
        "0x1",
        "123456789012345678",
        "-123456789012345678",
        "1234567890123456789",
        "-1234567890123456789",
        "9223372036854775807",
        "-9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "99999999999999999999",
        "２",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut rng = Rng::new(0x1e7e_9e75);
    for _ in 0..2000 {
        // Mostly counts a 32-bit cell holds, some past i64.
        let longest = if rng.below(4) == 0 { 20 } else { 9 };
        let len = 1 + rng.below(longest) as usize;
        let mut s: String = (0..len)
            .map(|_| (b'0' + rng.below(10) as u8) as char)
            .collect();
        if rng.below(2) == 0 {
            s.insert(0, '-');
        }
        out.push(s);
    }
    out
}

#[test]
fn integers_read_as_the_server_reads_them() {
    let s = Server::start();
    let mut c = s.conn();
    let strings = strings();
    let mut cmds = Vec::new();
    for (i, text) in strings.iter().enumerate() {
        let n = format!("n{i}");
        cmds.push(build(&["INCRBY", n.as_str(), text.as_str()]));
        cmds.push(build(&["DEL", "c"]));
        cmds.push(build(&["CMS.INITBYDIM", "c", "1", "1"]));
        cmds.push(build(&["CMS.INCRBY", "c", "x", text.as_str()]));
    }
    let replies = raw_pipeline(&mut c, cmds).expect("pipeline");
    let (mut counted, mut unparsed) = (0, 0);
    for (text, r) in strings.iter().zip(replies.chunks(4)) {
        let server = match &r[0] {
            Value::Int(n) => Some(*n),
            other => {
                assert!(err_of(other).is_some(), "INCRBY {text:?}: {other:?}");
                None
            }
        };
        // A parse error answers the command; a count out of the cell's range, an element.
        let element = match &r[3] {
            Value::Array(a) if a.len() == 1 => &a[0],
            other => other,
        };
        let error = err_of(element);
        let parsed = error.as_deref() != Some("CMS: Cannot parse number");
        assert_eq!(
            parsed,
            server.is_some(),
            "{text:?}: INCRBY {:?}, CMS.INCRBY {:?}",
            r[0],
            r[3]
        );
        match (server, error) {
            (Some(n), None) => {
                assert_eq!(element, &Value::Int(n), "{text:?}");
                counted += 1;
            }
            (None, _) => unparsed += 1,
            _ => {}
        }
    }
    assert!(
        counted > 600 && unparsed > 100,
        "{counted} counted, {unparsed} unparsed"
    );
}
