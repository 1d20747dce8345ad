//! A t-digest's memory figure as RedisBloom 8.6+ gives it (rule `tdigest-memory-usage`):
//! TDIGEST.INFO's `Memory usage` is `80 + 16 × capacity` (9840 at compression 100), fixed at
//! creation whatever is added, growing with the compression, within MEMORY USAGE (the same
//! value plus the server's per-key overhead), and unchanged by a reload. RedisBloom 8's flow
//! tests (`test_tdigest_info`, `test_save_load`, `test_bf_resp3`) check these.

use rsbloom_test_support as common;

use common::*;
use redis::{Connection, Value};

fn info_memory(c: &mut Connection, key: &str) -> i64 {
    let reply = raw(c, &["TDIGEST.INFO", key]);
    let Value::Array(items) = &reply else {
        panic!("TDIGEST.INFO {key}: {reply:?}")
    };
    let at = items
        .iter()
        .position(|v| matches!(v, Value::SimpleString(s) if s == "Memory usage"))
        .unwrap_or_else(|| panic!("no Memory usage in {reply:?}"));
    as_int(&items[at + 1])
}

#[test]
fn memory_usage_is_redisbloom_8_6_s() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["TDIGEST.CREATE", "t"]);
    assert_eq!(info_memory(&mut c, "t"), 9840);
    let overhead = memory_usage(&mut c, "t") - 9840;
    assert!(overhead >= 0, "MEMORY USAGE below the value's figure");
    for chunk in 0..10 {
        let values: Vec<String> = (0..1000).map(|i| (chunk * 1000 + i).to_string()).collect();
        let mut args = vec!["TDIGEST.ADD", "t"];
        args.extend(values.iter().map(String::as_str));
        expect_ok(&mut c, &args);
    }
    assert_eq!(info_memory(&mut c, "t"), 9840, "after 10,000 values");
    assert_eq!(memory_usage(&mut c, "t"), 9840 + overhead);

    // 80 + 16 · (6 · compression + 10), the key's overhead the same for every size.
    for compression in [1_i64, 100, 200, 300, 400, 500] {
        let key = format!("c{compression}");
        expect_ok(
            &mut c,
            &[
                "TDIGEST.CREATE",
                &key,
                "COMPRESSION",
                &compression.to_string(),
            ],
        );
        let want = 80 + 16 * (6 * compression + 10);
        assert_eq!(info_memory(&mut c, &key), want, "{key}");
        assert_eq!(memory_usage(&mut c, &key), want + overhead, "{key}");
    }

    // A reload keeps the figure.
    expect_ok(&mut c, &["DEBUG", "RELOAD"]);
    assert_eq!(info_memory(&mut c, "t"), 9840, "after DEBUG RELOAD");
    assert_eq!(memory_usage(&mut c, "t"), 9840 + overhead);
}
