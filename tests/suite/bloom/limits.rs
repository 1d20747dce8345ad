//! Size and memory limits: `bf.max-filter-bytes` is checked before anything is allocated,
//! a scaling filter stops growing at it, `maxmemory` denies every write command while reads
//! go on, and a big new filter is allocated lazily (zeroed pages are not written).

use rsbloom_test_support as common;

use common::guava_model::{self, Added};
use common::hostile::{config_set, expect_too_large, key_exists, parse_too_large};
use common::*;
use redis::{Connection, Value};

const DEFAULT_LIMIT: u64 = 536_870_912;

fn used_memory(con: &mut Connection) -> u64 {
    info_field(con, "memory", "used_memory")
        .expect("used_memory")
        .parse()
        .expect("used_memory number")
}

fn dbsize(con: &mut Connection) -> i64 {
    as_int(&raw(con, &["DBSIZE"]))
}

/// Bytes of the bit array of a non-scaling layer of capacity `n` and error `p`.
fn layer_bytes(n: u64, p: f64) -> u64 {
    8 * guava_model::sizing(n, p).0
}

/// Bytes of the bit array of a scaling filter's layer of capacity `n` and part `share`.
fn scaling_layer_bytes(n: u64, share: f64) -> u64 {
    8 * guava_model::scaling_sizing(n, share).0
}

#[test]
fn reservations_over_the_limit_are_refused_before_allocating() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["SET", "other", "x"]);
    let keys_before = dbsize(&mut c);
    let mem_before = used_memory(&mut c);
    // Capacities past RedisBloom 8's range are refused as such, before any sizing.
    for (args, error) in [
        (
            &["BF.RESERVE", "k", "0.01", "1073741825"][..],
            "ERR capacity must be in the range [1, 1073741824]",
        ),
        (
            &["BF.RESERVE", "k", "0.01", "1000000000000000", "NONSCALING"],
            "ERR capacity must be in the range [1, 1073741824]",
        ),
        (
            &["BF.RESERVE", "k", "0.01", "9223372036854775807"],
            "ERR capacity must be in the range [1, 1073741824]",
        ),
        (
            &[
                "BF.INSERT",
                "k",
                "CAPACITY",
                "1000000000000000",
                "ITEMS",
                "a",
            ],
            "Bad capacity",
        ),
    ] {
        expect_err(&mut c, args, error);
        assert!(!key_exists(&mut c, "k"), "{args:?}: key created");
    }
    // (arguments, the least number of bytes an honest "would need" can name)
    let cases: Vec<(Vec<&str>, u64)> = vec![
        (
            vec!["BF.RESERVE", "k", "0.01", "1073741824"],
            scaling_layer_bytes(1 << 30, 0.005),
        ),
        (
            vec!["BF.RESERVE", "k", "0.01", "1073741824", "NONSCALING"],
            layer_bytes(1 << 30, 0.01),
        ),
        (
            vec!["BF.RESERVE", "k", "1e-300", "1000000000"],
            scaling_layer_bytes(1_000_000_000, 0.5e-300),
        ),
        (
            vec!["BF.RESERVE", "k", "1e-300", "1073741824", "NONSCALING"],
            layer_bytes(1 << 30, 1e-300),
        ),
        (
            vec!["BF.INSERT", "k", "CAPACITY", "1073741824", "ITEMS", "a"],
            scaling_layer_bytes(1 << 30, 0.005),
        ),
        // Just over the limit: 512 MiB of bits at 0.01 is about 448 million items.
        (
            vec!["BF.RESERVE", "k", "0.01", "460000000", "NONSCALING"],
            layer_bytes(460_000_000, 0.01),
        ),
    ];
    for (args, least) in &cases {
        let what = args.join(" ");
        let (n, limit) = expect_too_large(&raw(&mut c, args), &what);
        assert_eq!(limit, DEFAULT_LIMIT, "{what}: limit named");
        assert!(n > limit, "{what}: {n} is not over the limit");
        assert!(
            n >= *least,
            "{what}: names {n} bytes, the bits alone need {least}"
        );
        // The figure is the bits plus the filter's bookkeeping, not some other number.
        assert!(
            n - least < 4096,
            "{what}: names {n} bytes for {least} of bits"
        );
        assert!(!key_exists(&mut c, "k"), "{what}: key created");
    }
    // Implicit creation with the largest initial size RedisBloom 8 can be configured with.
    config_set(&mut c, "bf.initial-size", "1073741824");
    for args in [
        vec!["BF.ADD", "k", "a"],
        vec!["BF.MADD", "k", "a", "b"],
        vec!["BF.INSERT", "k", "ITEMS", "a"],
    ] {
        let what = args.join(" ");
        let (n, limit) = expect_too_large(&raw(&mut c, &args), &what);
        assert!(n > limit && limit == DEFAULT_LIMIT, "{what}: {n} {limit}");
        assert!(!key_exists(&mut c, "k"), "{what}: key created");
    }
    assert_eq!(dbsize(&mut c), keys_before);
    let mem_after = used_memory(&mut c);
    assert!(
        mem_after < mem_before + (1 << 20),
        "used_memory went from {mem_before} to {mem_after}"
    );
    // The limit is the configured one.
    config_set(&mut c, "bf.max-filter-bytes", "1000000");
    let v = raw(
        &mut c,
        &["BF.RESERVE", "k", "0.01", "1000000", "NONSCALING"],
    );
    let (n, limit) = expect_too_large(&v, "1e6 items under a 1 MB limit");
    assert_eq!(limit, 1_000_000);
    assert!(n >= layer_bytes(1_000_000, 0.01) && n > limit);
    assert!(!key_exists(&mut c, "k"));
}

#[test]
fn a_scaling_filter_stops_growing_at_the_limit() {
    let s = Server::start();
    let mut c = s.conn();
    let limit = 100_000u64;
    config_set(&mut c, "bf.max-filter-bytes", &limit.to_string());
    expect_ok(&mut c, &["BF.RESERVE", "s", "0.01", "100"]);
    let mut oracle = guava_model::Chain::scaling(0.01, 100, 2);
    let mut added: Vec<Vec<u8>> = Vec::new();
    let mut next = 0usize;
    let failure = 'fill: loop {
        let batch = gen_items("grow-", next..next + 500);
        next += 500;
        assert!(next < 1_000_000, "the filter never hit its limit");
        let mut args = vec![b"BF.MADD".to_vec(), b"s".to_vec()];
        args.extend(batch.iter().cloned());
        let answers = match raw(&mut c, &args) {
            Value::Array(a) => a,
            other => panic!("BF.MADD answered {other:?}"),
        };
        for (item, answer) in batch.iter().zip(&answers) {
            if let Some(text) = err_of(answer) {
                break 'fill (item.clone(), text, answers.len());
            }
            let want = oracle.add(item) == Added::Yes;
            assert_eq!(answer, &Value::Int(want as i64), "item {item:?}");
            if want {
                added.push(item.clone());
            }
        }
        assert_eq!(answers.len(), batch.len(), "short reply without an error");
    };
    let (item, text, _) = failure;
    // The oracle agrees the item is new and needs a new layer.
    assert!(!oracle.contains(&item), "a present item hit the limit");
    let last = oracle.layers.last().unwrap();
    assert_eq!(
        last.count, last.capacity,
        "the limit was hit before the layer was full"
    );
    let layers = oracle.layers.len() as u32;
    let new_bytes = scaling_layer_bytes(
        100 * 2u64.pow(layers),
        0.01 * 0.5f64.powi(layers as i32 + 1),
    );
    let (n, named_limit) =
        parse_too_large(&text).unwrap_or_else(|| panic!("the limit hit answered {text:?}"));
    assert_eq!(named_limit, limit);
    let size = as_int(&as_array(raw(&mut c, &["BF.INFO", "s", "SIZE"]))[0]) as u64;
    assert!(
        size <= limit,
        "BF.INFO Size {size} is over the limit {limit}"
    );
    assert!(n > limit, "named {n}");
    // "would need" = what it has + the new layer (+ that layer's bookkeeping).
    assert!(
        n >= size + new_bytes && n - size - new_bytes < 1024,
        "named {n} bytes; has {size}, the new layer needs {new_bytes}"
    );
    // Nothing of the failed item went in; every earlier item still answers 1.
    assert_eq!(bf_debug(&mut c, "s"), oracle.debug_lines());
    assert_eq!(card(&mut c, "s"), added.len() as i64);
    let answers = mexists_all(&mut c, "s", &added);
    assert!(answers.iter().all(|&a| a == 1), "an added item was lost");
    // Later new items hit the limit too (or are false positives answering 0).
    for i in 0..50 {
        let item = format!("later-{i}");
        let v = raw(&mut c, &["BF.ADD", "s", &item]);
        if oracle.contains(item.as_bytes()) {
            assert_eq!(v, Value::Int(0), "{item}");
        } else {
            expect_too_large(&v, &item);
        }
    }
    assert_eq!(bf_debug(&mut c, "s"), oracle.debug_lines());
}

fn as_array(v: Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a,
        other => panic!("expected an array, got {other:?}"),
    }
}

#[test]
fn maxmemory_denies_writes_and_keeps_reads() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "f", "0.01", "1000"]);
    let items = gen_items("mm-", 0..300);
    let answers = madd_all(&mut c, "f", &items);
    let count = answers.iter().filter(|&&a| a == 1).count() as i64;
    let header = scandump(&mut c, "f")[0].data.clone();
    let debug = bf_debug(&mut c, "f");
    let digest = digest_value(&mut c, "f");
    config_set(&mut c, "maxmemory-policy", "noeviction");
    let used = used_memory(&mut c);
    config_set(&mut c, "maxmemory", &(used + 512 * 1024).to_string());
    // Grow a string in small steps until the server is over the limit (each step is
    // allowed while under it; the first one refused shows it is over).
    let piece = vec![b'x'; 64 * 1024];
    let mut steps = 0;
    loop {
        let append: [&[u8]; 3] = [b"APPEND", b"filler", &piece];
        let v = raw(&mut c, &append);
        if err_of(&v).is_some_and(|e| e.starts_with("OOM")) {
            break;
        }
        assert!(matches!(v, Value::Int(_)), "APPEND answered {v:?}");
        steps += 1;
        assert!(steps < 1000, "never went over maxmemory");
    }
    expect_err_prefix(&mut c, &["SET", "probe", "1"], "OOM");
    let writes: Vec<Vec<&[u8]>> = vec![
        vec![b"BF.ADD", b"f", b"new"],
        vec![b"BF.ADD", b"fresh", b"new"],
        vec![b"BF.MADD", b"f", b"new1", b"new2"],
        vec![b"BF.RESERVE", b"fresh", b"0.01", b"100"],
        vec![b"BF.INSERT", b"f", b"ITEMS", b"new3"],
        vec![
            b"BF.INSERT",
            b"fresh",
            b"CAPACITY",
            b"10",
            b"ITEMS",
            b"new3",
        ],
        vec![b"BF.LOADCHUNK", b"fresh", b"1", &header],
        vec![
            b"BF.LOADCHUNK",
            b"f",
            b"9",
            b"\xff\xff\xff\xff\xff\xff\xff\xff",
        ],
    ];
    for args in &writes {
        expect_err_prefix(&mut c, args, "OOM");
    }
    assert!(!key_exists(&mut c, "fresh"), "a denied write created a key");
    assert_eq!(
        digest_value(&mut c, "f"),
        digest,
        "a denied write changed the filter"
    );
    // Reads go on.
    expect_int(&mut c, &["BF.EXISTS", "f", "mm-0"], 1);
    expect_int(&mut c, &["BF.EXISTS", "f", "new"], 0);
    let mut args = vec![b"BF.MEXISTS".to_vec(), b"f".to_vec()];
    args.extend(items.iter().cloned());
    assert!(as_ints(&raw(&mut c, &args)).iter().all(|&a| a == 1));
    expect_int(&mut c, &["BF.CARD", "f"], count);
    assert_eq!(
        info_value(&mut c, "f", "Number of items inserted"),
        Value::Int(count)
    );
    assert_eq!(bf_debug(&mut c, "f"), debug);
    assert_eq!(scandump(&mut c, "f")[0].data, header);
    // The errors were the memory limit's: without it the same writes go through.
    config_set(&mut c, "maxmemory", "0");
    expect_int(&mut c, &["BF.ADD", "f", "new"], 1);
    expect_ok(&mut c, &["BF.RESERVE", "fresh", "0.01", "100"]);
}

fn vm_rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("read status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .expect("VmRSS line");
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("VmRSS value");
    kb * 1024
}

#[test]
fn a_big_new_filter_does_not_touch_its_pages() {
    let s = Server::start();
    let mut c = s.conn();
    config_set(&mut c, "bf.max-filter-bytes", "2147483648");
    let pid: u32 = info_field(&mut c, "server", "process_id")
        .expect("process_id")
        .parse()
        .expect("pid");
    let rss_before = vm_rss_bytes(pid);
    let used_before = used_memory(&mut c);
    expect_ok(
        &mut c,
        &["BF.RESERVE", "big", "0.0001", "200000000", "NONSCALING"],
    );
    let rss_after = vm_rss_bytes(pid);
    let used_after = used_memory(&mut c);
    let bits = layer_bytes(200_000_000, 0.0001);
    assert!(bits > 470_000_000, "model sizing {bits}");
    let size = as_int(&as_array(raw(&mut c, &["BF.INFO", "big", "SIZE"]))[0]) as u64;
    assert!(
        size >= bits && size - bits < 4096,
        "BF.INFO Size {size} for {bits} bytes of bits"
    );
    // The allocator counts it (maxmemory sees it) ...
    assert!(
        used_after >= used_before + bits,
        "used_memory grew by {} for {bits} bytes",
        used_after.saturating_sub(used_before)
    );
    // ... but the pages were not written.
    let grown = rss_after.saturating_sub(rss_before);
    assert!(
        grown < size / 4,
        "RSS grew by {grown} bytes for a {size}-byte filter (before {rss_before})"
    );
    // It works: a few adds touch a few pages only.
    let items = gen_items("big-", 0..1000);
    let answers = madd_all(&mut c, "big", &items);
    assert!(answers.iter().all(|&a| a == 1));
    assert!(mexists_all(&mut c, "big", &items).iter().all(|&a| a == 1));
    expect_int(&mut c, &["BF.EXISTS", "big", "not-added"], 0);
    expect_int(&mut c, &["DEL", "big"], 1);
}

/// Every way a filter over `bf.max-filter-bytes` is refused says so with the one size-limit
/// text, naming what the filter needs: BF.IMPORT of a Guava filter, and a LOADCHUNK header
/// of either type. Nothing is created.
#[test]
fn import_and_loadchunk_headers_over_the_limit_use_the_size_limit_text() {
    let s = Server::start();
    let mut c = s.conn();
    // A Guava writeTo() filter of 20,000 words (160,000 bytes of bits): strategy 1, k = 7.
    let words = 20_000u32;
    let mut guava = vec![1u8, 7];
    guava.extend_from_slice(&(words as i32).to_be_bytes());
    guava.resize(6 + words as usize * 8, 0);
    // SCANDUMP headers of 1,000,000-item filters of both types (about 1.2 MB of bits).
    let mut headers = Vec::new();
    for format in ["guava", "redisbloom"] {
        config_set(&mut c, "bf.new-filter-format", format);
        expect_ok(
            &mut c,
            &["BF.RESERVE", format, "0.01", "1000000", "NONSCALING"],
        );
        let header = match raw(&mut c, &["BF.SCANDUMP", format, "0"]) {
            Value::Array(step) => match &step[1] {
                Value::BulkString(bytes) => bytes.clone(),
                other => panic!("{format}: SCANDUMP header {other:?}"),
            },
            other => panic!("{format}: SCANDUMP {other:?}"),
        };
        raw(&mut c, &["DEL", format]);
        headers.push((format, header));
    }
    config_set(&mut c, "bf.max-filter-bytes", "100000");
    let v = raw(&mut c, &[&b"BF.IMPORT"[..], b"g", b"GUAVA", &guava]);
    let (n, limit) = expect_too_large(&v, "BF.IMPORT of 160,000 bytes");
    assert_eq!(limit, 100_000);
    assert!(
        (160_000..160_000 + 4096).contains(&n),
        "BF.IMPORT names {n} bytes for 160,000 of bits"
    );
    assert!(!key_exists(&mut c, "g"));
    for (format, header) in &headers {
        let v = raw(&mut c, &[&b"BF.LOADCHUNK"[..], b"h", b"1", header]);
        let (n, limit) = expect_too_large(&v, &format!("{format} LOADCHUNK header"));
        assert_eq!(limit, 100_000);
        assert!(n > 1_000_000, "{format}: names {n} bytes");
        assert!(!key_exists(&mut c, "h"), "{format}: key created");
    }
}
