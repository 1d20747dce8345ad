//! End-to-end tests of `rsbloom-cli` against real servers with the freshly built module
//! (the root crate's test fixture, `tests/support/`; the module is
//! `target/release/librsbloom.so` of the workspace).

use rsbloom_test_support as common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::files::unhex;
use common::rdb::dump_body;
use common::{as_int, bf_debug, digest_value, raw, Server, TempDir};
use redis::Connection;

/// A server with the module.
fn server() -> Server {
    Server::start()
}

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/guava")
}

fn cli(url: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rsbloom-cli"))
        .arg("--url")
        .arg(url)
        .args(args)
        .output()
        .expect("run rsbloom-cli")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs the tool and asserts success; returns its stderr.
fn ok(url: &str, args: &[&str]) -> String {
    let out = cli(url, args);
    assert!(
        out.status.success(),
        "rsbloom-cli {args:?} failed: {}",
        stderr(&out)
    );
    stderr(&out)
}

/// Runs the tool and asserts exit code 1 and a one-line message containing `want`.
fn fails(url: &str, args: &[&str], want: &str) -> String {
    let out = cli(url, args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "rsbloom-cli {args:?}: {err}");
    assert!(
        err.contains(want),
        "rsbloom-cli {args:?}: {err:?} lacks {want:?}"
    );
    assert!(err.starts_with("rsbloom-cli: "), "{err:?}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err:?}");
    err
}

fn keys(con: &mut Connection) -> Vec<String> {
    let mut keys: Vec<String> = redis::cmd("KEYS").arg("*").query(con).unwrap();
    keys.sort();
    keys
}

fn mexists(con: &mut Connection, key: &str, items: &[Vec<u8>]) -> Vec<i64> {
    let mut out = Vec::with_capacity(items.len());
    for batch in items.chunks(10_000) {
        let mut cmd = redis::cmd("BF.MEXISTS");
        cmd.arg(key);
        for item in batch {
            cmd.arg(&item[..]);
        }
        let v: Vec<i64> = cmd.query(con).unwrap();
        out.extend(v);
    }
    out
}

fn items(prefix: &str, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| format!("{prefix}{i}").into_bytes())
        .collect()
}

/// A scaling filter with several layers, dumped in many small chunks.
fn fill_scaling(con: &mut Connection, key: &str) -> Vec<Vec<u8>> {
    redis::cmd("CONFIG")
        .arg("SET")
        .arg("bf.chunk-bytes")
        .arg("1000")
        .query::<()>(con)
        .unwrap();
    redis::cmd("BF.RESERVE")
        .arg(key)
        .arg(0.01)
        .arg(200)
        .query::<()>(con)
        .unwrap();
    let added = items("item:", 3000);
    for batch in added.chunks(1000) {
        let mut cmd = redis::cmd("BF.MADD");
        cmd.arg(key);
        for item in batch {
            cmd.arg(&item[..]);
        }
        cmd.query::<Vec<i64>>(con).unwrap();
    }
    assert!(bf_debug(con, key).len() > 3, "expected several layers");
    added
}

fn assert_same_filter(
    a: &mut Connection,
    ka: &str,
    b: &mut Connection,
    kb: &str,
    probe: &[Vec<u8>],
) {
    assert_eq!(bf_debug(a, ka), bf_debug(b, kb));
    assert_eq!(digest_value(a, ka), digest_value(b, kb));
    assert_eq!(mexists(a, ka, probe), mexists(b, kb, probe));
}

/// Magic, version 2 and the family byte.
const HEAD: usize = 10;

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn dump_then_restore_gives_the_same_filter() {
    let s = server();
    let mut con = s.conn();
    let added = fill_scaling(&mut con, "src");
    let dir = TempDir::new();
    let file = dir.path().join("src.dump");
    let f = path_str(&file);
    let summary = ok(&s.url(), &["dump", "src", f]);
    assert!(summary.starts_with("dumped src: "), "{summary}");
    assert!(summary.contains(" chunks, "), "{summary}");
    assert!(!dir.path().join("src.dump.tmp").exists());
    let bytes = fs::read(&file).unwrap();
    assert_eq!(&bytes[..HEAD], b"RSBFDUMP\x02B");
    assert_eq!(&bytes[bytes.len() - 16..], &[0u8; 16]);

    let mut probe = added.clone();
    probe.extend(items("other:", 3000));
    ok(&s.url(), &["restore", "copy", f]);
    assert_same_filter(&mut con, "src", &mut s.conn(), "copy", &probe);
    assert_eq!(keys(&mut con), ["copy", "src"]);

    // And into another server.
    let t = server();
    let mut tcon = t.conn();
    ok(&t.url(), &["restore", "src", f]);
    assert_same_filter(&mut con, "src", &mut tcon, "src", &probe);
    assert_eq!(keys(&mut tcon), ["src"]);
}

#[test]
fn restore_refuses_an_existing_key_unless_replace() {
    let s = server();
    let mut con = s.conn();
    let added = fill_scaling(&mut con, "a");
    redis::cmd("BF.ADD")
        .arg("b")
        .arg("x")
        .query::<i64>(&mut con)
        .unwrap();
    let dir = TempDir::new();
    let file = dir.path().join("a.dump");
    let f = path_str(&file);
    ok(&s.url(), &["dump", "a", f]);
    let err = fails(
        &s.url(),
        &["restore", "b", f],
        "key 'b' exists (use --replace)",
    );
    assert!(err.starts_with("rsbloom-cli: restore: "), "{err}");
    assert_eq!(keys(&mut con), ["a", "b"]);
    assert_eq!(as_int(&raw(&mut con, &["BF.EXISTS", "b", "x"])), 1);
    ok(&s.url(), &["restore", "b", f, "--replace"]);
    assert_same_filter(&mut con, "a", &mut s.conn(), "b", &added);
    assert_eq!(keys(&mut con), ["a", "b"]);
    // A plain string key is replaced too; no TTL is left on the result.
    redis::cmd("SET")
        .arg("c")
        .arg("v")
        .arg("EX")
        .arg(100)
        .query::<()>(&mut con)
        .unwrap();
    ok(&s.url(), &["restore", "c", f, "--replace"]);
    assert_eq!(as_int(&raw(&mut con, &["TTL", "c"])), -1);
    assert_eq!(keys(&mut con), ["a", "b", "c"]);
}

#[test]
fn a_damaged_dump_loads_nothing() {
    let s = server();
    let mut con = s.conn();
    fill_scaling(&mut con, "a");
    let dir = TempDir::new();
    let file = dir.path().join("a.dump");
    ok(&s.url(), &["dump", "a", path_str(&file)]);
    let good = fs::read(&file).unwrap();
    let bad = dir.path().join("bad.dump");
    let b = path_str(&bad);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (good[..good.len() / 2].to_vec(), "is truncated"),
        (good[..good.len() - 16].to_vec(), "is truncated"),
        (good[..good.len() - 17].to_vec(), "is truncated"),
        (good[..5].to_vec(), "is truncated"),
        (b"NOTADUMP\x02B".to_vec(), "not an rsbloom-cli dump"),
        (
            [&good[..9], b"X", &good[HEAD..]].concat(),
            "unknown filter family byte 88",
        ),
        (
            [&good[..8], &[9], &good[9..]].concat(),
            "version 9 is not supported",
        ),
        (
            [good.as_slice(), b"x"].concat(),
            "bytes after the end record",
        ),
    ];
    for (bytes, want) in cases {
        fs::write(&bad, &bytes).unwrap();
        fails(&s.url(), &["restore", "r", b], want);
        assert_eq!(keys(&mut con), ["a"], "after {want}");
    }
    // A chunk record dropped from the middle: the iterators no longer follow.
    let mut records = Vec::new();
    let mut at = HEAD;
    while at < good.len() {
        let len = u64::from_le_bytes(good[at + 8..at + 16].try_into().unwrap()) as usize;
        records.push(&good[at..at + 16 + len]);
        at += 16 + len;
    }
    let mut holed = good[..HEAD].to_vec();
    for (i, r) in records.iter().enumerate() {
        if i != 3 {
            holed.extend_from_slice(r);
        }
    }
    fs::write(&bad, &holed).unwrap();
    fails(&s.url(), &["restore", "r", b], "out of order or damaged");
    // The end record right after some chunks: the filter is incomplete.
    let short = [&good[..HEAD], records[0], records[1], &[0u8; 16][..]].concat();
    fs::write(&bad, &short).unwrap();
    fails(&s.url(), &["restore", "r", b], "the chunks cover");
    assert_eq!(keys(&mut con), ["a"]);
    fails(
        &s.url(),
        &["restore", "r", "/nonexistent/x.dump"],
        "cannot open /nonexistent/x.dump",
    );
}

#[test]
fn copy_between_servers() {
    let s = server();
    let t = server();
    let mut con = s.conn();
    let mut tcon = t.conn();
    let mut probe = fill_scaling(&mut con, "f");
    probe.extend(items("other:", 2000));
    let summary = ok(&s.url(), &["copy", "f", "--to", &t.url()]);
    assert!(summary.starts_with("copied f: "), "{summary}");
    assert_same_filter(&mut con, "f", &mut tcon, "f", &probe);
    ok(
        &s.url(),
        &["copy", "f", "--to", &t.url(), "--to-key", "{g}h"],
    );
    assert_same_filter(&mut con, "f", &mut tcon, "{g}h", &probe);
    fails(
        &s.url(),
        &["copy", "f", "--to", &t.url()],
        "key 'f' exists (use --replace)",
    );
    ok(&s.url(), &["copy", "f", "--to", &t.url(), "--replace"]);
    assert_eq!(keys(&mut tcon), ["f", "{g}h"]);
    fails(
        &s.url(),
        &["copy", "missing", "--to", &t.url()],
        "key 'missing' does not exist",
    );
    redis::cmd("SET")
        .arg("str")
        .arg("x")
        .query::<()>(&mut con)
        .unwrap();
    fails(
        &s.url(),
        &["copy", "str", "--to", &t.url()],
        "key 'str' holds a string, not a Bloom or cuckoo filter",
    );
    assert_eq!(keys(&mut tcon), ["f", "{g}h"]);
    fails(
        &s.url(),
        &["copy", "f", "--to", "redis://127.0.0.1:1"],
        "cannot connect",
    );
}

fn configs() -> Vec<String> {
    let index = fs::read_to_string(vectors().join("index.json")).unwrap();
    let list = index.split("\"configs\"").nth(1).unwrap();
    let list = &list[list.find('[').unwrap() + 1..list.find(']').unwrap()];
    list.split(',')
        .map(|c| c.trim().trim_matches('"').to_string())
        .collect()
}

fn guava_items(config: &str) -> Vec<Vec<u8>> {
    let path = vectors().join(format!("{config}.items.hex"));
    match fs::read_to_string(&path) {
        // Every line ends with a newline; an empty line is the empty item.
        Ok(text) => text
            .strip_suffix('\n')
            .unwrap()
            .split('\n')
            .map(unhex)
            .collect(),
        Err(_) => {
            assert_eq!(config, "n1000000_p0.03", "no items file for {config}");
            items("u:", 1_000_000)
        }
    }
}

fn guava_queries(config: &str) -> (Vec<Vec<u8>>, Vec<i64>) {
    let text = fs::read_to_string(vectors().join(format!("{config}.queries.tsv"))).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (hex, answer) = l.split_once('\t').unwrap();
            (unhex(hex), answer.parse::<i64>().unwrap())
        })
        .unzip()
}

#[test]
fn import_guava_answers_like_guava_and_exports_back_identically() {
    let s = server();
    let mut con = s.conn();
    let dir = TempDir::new();
    let configs = configs();
    assert!(configs.len() >= 7, "{configs:?}");
    for config in &configs {
        let bin = vectors().join(format!("{config}.filter.bin"));
        let summary = ok(&s.url(), &["import-guava", config, path_str(&bin)]);
        assert!(
            summary.starts_with(&format!("imported {config}: ")),
            "{summary}"
        );
        let added = guava_items(config);
        assert!(
            mexists(&mut con, config, &added).iter().all(|&a| a == 1),
            "{config}"
        );
        let (queries, answers) = guava_queries(config);
        assert_eq!(mexists(&mut con, config, &queries), answers, "{config}");
        let back = dir.path().join(format!("{config}.bin"));
        ok(&s.url(), &["export-guava", config, path_str(&back)]);
        assert_eq!(
            fs::read(&back).unwrap(),
            fs::read(&bin).unwrap(),
            "{config}"
        );
    }
    let bin = vectors().join("n100_p0.01.filter.bin");
    fails(
        &s.url(),
        &["import-guava", "n100_p0.01", path_str(&bin)],
        "exists (use --replace)",
    );
    ok(
        &s.url(),
        &[
            "import-guava",
            "n100_p0.01",
            path_str(&bin),
            "--replace",
            "--capacity",
            "500",
            "--error",
            "0.001",
        ],
    );
    let debug = bf_debug(&mut con, "n100_p0.01");
    assert!(
        debug[1].contains("capacity:500 ") && debug[1].contains("ratio:0.001"),
        "{debug:?}"
    );
    // Bad Guava files load nothing.
    let before = keys(&mut con);
    let bad = dir.path().join("bad.bin");
    let good = fs::read(&bin).unwrap();
    for (bytes, want) in [
        (good[..good.len() - 1].to_vec(), "the file has"),
        ([good.as_slice(), &[0]].concat(), "the file has"),
        (good[..3].to_vec(), "truncated"),
        ([&[2u8][..], &good[1..]].concat(), "not MURMUR128_MITZ_64"),
    ] {
        fs::write(&bad, bytes).unwrap();
        fails(&s.url(), &["import-guava", "bad", path_str(&bad)], want);
    }
    assert_eq!(keys(&mut con), before);
}

#[test]
fn export_guava_refuses_what_guava_cannot_hold() {
    let s = server();
    let mut con = s.conn();
    fill_scaling(&mut con, "multi");
    let dir = TempDir::new();
    let out = dir.path().join("multi.bin");
    fails(
        &s.url(),
        &["export-guava", "multi", path_str(&out)],
        "Guava can hold only a single-layer filter",
    );
    assert!(!out.exists());
    assert!(!dir.path().join("multi.bin.tmp").exists());
    fails(
        &s.url(),
        &["export-guava", "nope", path_str(&out)],
        "key 'nope' does not exist",
    );
    // Keyed and blocked filters hash or lay out their bits otherwise than Guava.
    for (key, option) in [("keyed", "KEYED"), ("blocked", "BLOCKED")] {
        redis::cmd("BF.RESERVE")
            .arg(key)
            .arg(0.01)
            .arg(100)
            .arg("NONSCALING")
            .arg(option)
            .query::<()>(&mut con)
            .unwrap();
        fails(
            &s.url(),
            &["export-guava", key, path_str(&out)],
            "a keyed or blocked filter cannot be converted to Guava's format",
        );
        assert!(!out.exists());
    }
    // A single layer exports even when the chunk size is not a multiple of 8.
    redis::cmd("CONFIG")
        .arg("SET")
        .arg("bf.chunk-bytes")
        .arg("1001")
        .query::<()>(&mut con)
        .unwrap();
    redis::cmd("BF.RESERVE")
        .arg("one")
        .arg(0.001)
        .arg(5000)
        .arg("NONSCALING")
        .query::<()>(&mut con)
        .unwrap();
    let added = items("x", 4000);
    for batch in added.chunks(1000) {
        let mut cmd = redis::cmd("BF.MADD");
        cmd.arg("one");
        for item in batch {
            cmd.arg(&item[..]);
        }
        cmd.query::<Vec<i64>>(&mut con).unwrap();
    }
    let one = dir.path().join("one.bin");
    ok(&s.url(), &["export-guava", "one", path_str(&one)]);
    ok(&s.url(), &["import-guava", "two", path_str(&one)]);
    let mut probe = added.clone();
    probe.extend(items("y", 4000));
    assert_eq!(
        mexists(&mut con, "one", &probe),
        mexists(&mut con, "two", &probe)
    );
    let two = dir.path().join("two.bin");
    ok(&s.url(), &["export-guava", "two", path_str(&two)]);
    assert_eq!(fs::read(&one).unwrap(), fs::read(&two).unwrap());
}

#[test]
fn dump_restore_and_copy_in_a_cluster() {
    let cluster = common::cluster::Cluster::start();
    let port = cluster.live_ports()[0];
    let url = format!("redis://127.0.0.1:{port}");
    let mut con = cluster.client();
    let standalone = server();
    let mut scon = standalone.conn();
    let dir = TempDir::new();
    let added = items("c:", 500);
    // Keys with a hash tag, without, and with a `}` but no tag (the temporary key is then
    // found by slot search).
    for (i, key) in ["plain", "{tag}x", "a}b"].into_iter().enumerate() {
        let mut cmd = redis::cmd("BF.MADD");
        cmd.arg(key);
        for item in &added {
            cmd.arg(&item[..]);
        }
        cmd.query::<Vec<i64>>(&mut con).unwrap();
        let file = dir.path().join(format!("{i}.dump"));
        let f = path_str(&file);
        ok(&url, &["--cluster", "dump", key, f]);
        let copy = format!("{key}-restored");
        ok(&url, &["--cluster", "restore", &copy, f]);
        // DEBUG is not routed by key: ask the owner of the slot.
        let d =
            |k: &str| -> String { digest_value(&mut cluster.conn(cluster.owner(k.as_bytes())), k) };
        assert_eq!(d(key), d(&copy), "{key}");
        fails(
            &url,
            &["--cluster", "restore", &copy, f],
            "exists (use --replace)",
        );
        // From the cluster to a standalone server and back under another name.
        ok(&url, &["--cluster", "copy", key, "--to", &standalone.url()]);
        assert_eq!(mexists(&mut scon, key, &added), vec![1; added.len()]);
        let back = format!("{key}-back");
        ok(
            &standalone.url(),
            &["copy", key, "--to", &url, "--to-cluster", "--to-key", &back],
        );
        assert_eq!(d(key), d(&back), "{key}");
    }
    let mut all: Vec<String> = Vec::new();
    for p in cluster.live_ports() {
        let mut c = cluster.conn(p);
        let role: String = redis::cmd("ROLE")
            .query::<Vec<redis::Value>>(&mut c)
            .map(|v| common::as_text(&v[0]))
            .unwrap();
        if role == "master" {
            all.extend(keys(&mut c));
        }
    }
    all.sort();
    assert_eq!(
        all,
        [
            "a}b",
            "a}b-back",
            "a}b-restored",
            "plain",
            "plain-back",
            "plain-restored",
            "{tag}x",
            "{tag}x-back",
            "{tag}x-restored"
        ]
    );
}

/// A dump file of version 1 (rsbloom-cli before cuckoo filters: no family byte, always a
/// Bloom filter) still restores.
#[test]
fn version_1_dumps_still_restore() {
    let s = server();
    let mut con = s.conn();
    let mut probe = fill_scaling(&mut con, "a");
    probe.extend(items("other:", 1000));
    let dir = TempDir::new();
    let file = dir.path().join("a.dump");
    ok(&s.url(), &["dump", "a", path_str(&file)]);
    let v2 = fs::read(&file).unwrap();
    assert_eq!((&v2[..8], v2[8], v2[9]), (b"RSBFDUMP".as_slice(), 2, b'B'));
    let v1 = [&v2[..8], &[1u8], &v2[HEAD..]].concat();
    fs::write(&file, v1).unwrap();
    ok(&s.url(), &["restore", "b", path_str(&file)]);
    assert_same_filter(&mut con, "a", &mut s.conn(), "b", &probe);
}

/// The DUMP body of `key` (the value's bytes, without the server's RDB version and CRC).
fn dump_body_of(con: &mut Connection, key: &str) -> Vec<u8> {
    let redis::Value::BulkString(bytes) = raw(con, &["DUMP", key]) else {
        panic!("DUMP {key} answered no bytes");
    };
    dump_body(&bytes).to_vec()
}

fn cf_debug(con: &mut Connection, key: &str) -> String {
    redis::cmd("CF.DEBUG").arg(key).query(con).unwrap()
}

/// RedisBloom's DUMP payloads of `names` in `tests/vectors/<set>/`, RESTOREd, then dumped,
/// restored under another key and copied to a second server: both come back as the very
/// bytes RedisBloom wrote (the vectors' footers are Redis 7.0's: bodies are compared), with
/// the type and the family byte in the file; export-guava refuses them with `refusal`.
fn redisbloom_payloads_round_trip(
    set: &str,
    names: &[&str],
    type_name: &str,
    family: u8,
    refusal: &str,
) {
    let s = server();
    let t = server();
    let mut con = s.conn();
    let mut tcon = t.conn();
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vectors")
        .join(set);
    let dir = TempDir::new();
    for &name in names {
        let payload = fs::read(vectors.join(format!("{name}.dump.bin"))).unwrap();
        let restored = raw(
            &mut con,
            &[b"RESTORE".as_slice(), name.as_bytes(), b"0", &payload],
        );
        assert_eq!(restored, redis::Value::Okay, "{name}");
        let file = dir.path().join(format!("{name}.dump"));
        ok(&s.url(), &["dump", name, path_str(&file)]);
        assert_eq!(fs::read(&file).unwrap()[9], family, "{name}: family byte");
        let copy = format!("{name}:copy");
        ok(&s.url(), &["restore", &copy, path_str(&file)]);
        ok(&s.url(), &["copy", name, "--to", &t.url()]);
        let want = dump_body(&payload).to_vec();
        for (con, key) in [(&mut con, copy.as_str()), (&mut tcon, name)] {
            assert_eq!(
                raw(con, &["TYPE", key]),
                redis::Value::SimpleString(type_name.into()),
                "{key}"
            );
            assert!(dump_body_of(con, key) == want, "{key}: DUMP differs");
        }
        let out = cli(
            &s.url(),
            &["export-guava", name, path_str(&dir.path().join("g"))],
        );
        assert!(!out.status.success(), "export-guava of {name} succeeded");
        assert!(stderr(&out).contains(refusal), "{}", stderr(&out));
    }
}

/// RedisBloom's own Bloom filters (type MBbloom--): export-guava refuses them (they hash
/// differently).
#[test]
fn redisbloom_filters_dump_restore_and_copy_byte_for_byte() {
    redisbloom_payloads_round_trip(
        "redisbloom",
        &["scaling100", "nonscaling1k", "big"],
        "MBbloom--",
        b'B',
        "RedisBloom's format",
    );
}

/// RedisBloom's cuckoo filters (type MBbloomCF), every recorded configuration: growth,
/// deletes, bucket sizes 1 and 255, an empty one.
#[test]
fn cuckoo_filters_dump_restore_and_copy_byte_for_byte() {
    redisbloom_payloads_round_trip(
        "redisbloom-cf",
        &common::files::REDISBLOOM_CF_CONFIGS,
        "MBbloomCF",
        b'C',
        "only Bloom filters have a Guava form",
    );
}

/// `payload`'s body sealed with RDB version 10, which every supported server's RESTORE takes
/// (the sketch vectors come from Redis 7.4, RDB version 12).
fn portable(payload: &[u8]) -> Vec<u8> {
    rsbloom_core::dump::seal(dump_body(payload), 10)
}

/// RedisBloom's sketches of `set` RESTOREd, then dumped, restored under another key and
/// copied to a second server: both come back with the restored key's very DUMP body, the
/// type and the family byte in the file; export-guava refuses them.
fn sketches_round_trip(set: &str, names: &[&str], type_name: &str, family: u8, noun: &str) {
    let s = server();
    let t = server();
    let mut con = s.conn();
    let mut tcon = t.conn();
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vectors")
        .join(set);
    let dir = TempDir::new();
    for &name in names {
        let payload = portable(&fs::read(vectors.join(format!("{name}.dump.bin"))).unwrap());
        let restored = raw(
            &mut con,
            &[b"RESTORE".as_slice(), name.as_bytes(), b"0", &payload],
        );
        assert_eq!(restored, redis::Value::Okay, "{name}");
        let want = dump_body_of(&mut con, name);
        let file = dir.path().join(format!("{name}.dump"));
        ok(&s.url(), &["dump", name, path_str(&file)]);
        assert_eq!(fs::read(&file).unwrap()[9], family, "{name}: family byte");
        let copy = format!("{name}:copy");
        ok(&s.url(), &["restore", &copy, path_str(&file)]);
        fails(
            &s.url(),
            &["restore", &copy, path_str(&file)],
            "exists (use --replace)",
        );
        ok(&s.url(), &["restore", &copy, path_str(&file), "--replace"]);
        ok(&s.url(), &["copy", name, "--to", &t.url()]);
        for (con, key) in [(&mut con, copy.as_str()), (&mut tcon, name)] {
            assert_eq!(
                raw(con, &["TYPE", key]),
                redis::Value::SimpleString(type_name.into()),
                "{key}"
            );
            assert!(dump_body_of(con, key) == want, "{key}: DUMP differs");
            assert_eq!(
                raw(con, &["PTTL", key]),
                redis::Value::Int(-1),
                "{key}: TTL"
            );
        }
        fails(
            &s.url(),
            &["export-guava", name, path_str(&dir.path().join("g"))],
            &format!("is a {noun}; only Bloom filters have a Guava form"),
        );
    }
}

#[test]
fn sketches_dump_restore_and_copy_byte_for_byte() {
    sketches_round_trip(
        "redisbloom-cms",
        &common::files::REDISBLOOM_CMS_CONFIGS,
        "CMSk-TYPE",
        b'M',
        "Count-Min Sketch",
    );
    sketches_round_trip(
        "redisbloom-topk",
        &common::files::REDISBLOOM_TOPK_CONFIGS,
        "TopK-TYPE",
        b'K',
        "Top-K",
    );
    sketches_round_trip(
        "redisbloom-tdigest",
        &common::files::REDISBLOOM_TDIGEST_CONFIGS,
        "TDIS-TYPE",
        b'T',
        "t-digest",
    );
}

/// CF.SCANDUMP sends nothing for a cuckoo filter that counts no items; the tool rebuilds its
/// header from CF.DEBUG, so the copy keeps every parameter and the delete counter.
#[test]
fn an_emptied_cuckoo_filter_keeps_its_shape() {
    let s = server();
    let t = server();
    let mut con = s.conn();
    let mut tcon = t.conn();
    redis::cmd("CF.RESERVE")
        .arg("e")
        .arg(8)
        .arg("BUCKETSIZE")
        .arg(2)
        .arg("MAXITERATIONS")
        .arg(7)
        .arg("EXPANSION")
        .arg(4)
        .query::<()>(&mut con)
        .unwrap();
    let added = items("x", 40);
    for item in &added {
        redis::cmd("CF.ADD")
            .arg("e")
            .arg(&item[..])
            .query::<i64>(&mut con)
            .unwrap();
    }
    for item in added.iter().rev() {
        let gone: i64 = redis::cmd("CF.DEL")
            .arg("e")
            .arg(&item[..])
            .query(&mut con)
            .unwrap();
        assert_eq!(gone, 1);
    }
    let debug = cf_debug(&mut con, "e");
    // Emptied (its grown sub-filters compacted away), with deletes counted.
    assert!(
        debug.contains(" items:0 ") && !debug.contains(" deletes:0 "),
        "{debug}"
    );
    let file = TempDir::new();
    let path = file.path().join("e.dump");
    ok(&s.url(), &["dump", "e", path_str(&path)]);
    ok(&s.url(), &["restore", "e2", path_str(&path)]);
    ok(&s.url(), &["copy", "e", "--to", &t.url()]);
    let body = dump_body_of(&mut con, "e");
    for (con, key) in [(&mut con, "e2"), (&mut tcon, "e")] {
        assert_eq!(cf_debug(con, key), debug, "{key}");
        assert!(dump_body_of(con, key) == body, "{key}: DUMP differs");
    }
}

/// Counting Bloom filters (RSbloomCB) go chunk by chunk like Bloom filters: dump, restore and
/// copy give the very same value (DUMP body), family byte `N` in the file; export-guava is
/// the Bloom filters' only (CBF.EXPORT gives a counting filter's Guava form).
#[test]
fn counting_filters_dump_restore_and_copy_byte_for_byte() {
    let s = server();
    let t = server();
    let mut con = s.conn();
    let mut tcon = t.conn();
    let dir = TempDir::new();
    for (key, bits, n) in [("c4", "4", 3000usize), ("c8", "8", 500), ("empty", "4", 0)] {
        let reserve = raw(
            &mut con,
            &["CBF.RESERVE", key, "0.01", "4000", "COUNTERBITS", bits],
        );
        assert_eq!(reserve, redis::Value::Okay);
        let mut cmd = redis::cmd("CBF.MADD");
        cmd.arg(key).arg("hot");
        for item in items(key, n) {
            cmd.arg(item);
        }
        let _: redis::Value = cmd.query(&mut con).unwrap();
        for _ in 0..20 {
            raw(&mut con, &["CBF.ADD", key, "hot"]);
        }
        let file = dir.path().join(format!("{key}.dump"));
        ok(&s.url(), &["dump", key, path_str(&file)]);
        assert_eq!(fs::read(&file).unwrap()[9], b'N', "{key}: family byte");
        let copy = format!("{key}:copy");
        ok(&s.url(), &["restore", &copy, path_str(&file)]);
        ok(&s.url(), &["copy", key, "--to", &t.url()]);
        let want = dump_body_of(&mut con, key);
        for (con, k) in [(&mut con, copy.as_str()), (&mut tcon, key)] {
            assert_eq!(
                raw(con, &["TYPE", k]),
                redis::Value::SimpleString("RSbloomCB".into()),
                "{k}"
            );
            assert!(dump_body_of(con, k) == want, "{k}: DUMP differs");
        }
    }
}

/// Sliding-window filters (RSbloomAP) go chunk by chunk too, their generations' times (and a
/// keyed window's secret) in the header: dump, restore and copy give the very same value
/// (DUMP body), family byte `W`.
#[test]
fn sliding_windows_dump_restore_and_copy_byte_for_byte() {
    let s = server();
    let t = server();
    let mut con = s.conn();
    let mut tcon = t.conn();
    let dir = TempDir::new();
    for (key, reserve, n) in [
        ("count", &["COUNT", "0.01", "1000"][..], 2500usize),
        ("time", &["TIME", "0.001", "2000", "3600"][..], 1500),
        ("empty", &["TIME", "0.01", "10", "0.5"][..], 0),
        // Keyed: the secret is in the header, so it travels too.
        ("keyed", &["COUNT", "0.01", "1000", "KEYED"][..], 2500),
        (
            "keyed-time",
            &["TIME", "0.01", "500", "3600", "KEYED"][..],
            1500,
        ),
    ] {
        let mut args = vec!["APBF.RESERVE", key];
        args.extend_from_slice(reserve);
        assert_eq!(raw(&mut con, &args), redis::Value::Okay);
        if n > 0 {
            let mut cmd = redis::cmd("APBF.MADD");
            cmd.arg(key);
            for item in items(key, n) {
                cmd.arg(item);
            }
            let _: redis::Value = cmd.query(&mut con).unwrap();
        }
        let file = dir.path().join(format!("{key}.dump"));
        ok(&s.url(), &["dump", key, path_str(&file)]);
        assert_eq!(fs::read(&file).unwrap()[9], b'W', "{key}: family byte");
        let copy = format!("{key}:copy");
        ok(&s.url(), &["restore", &copy, path_str(&file)]);
        ok(&s.url(), &["copy", key, "--to", &t.url()]);
        let want = dump_body_of(&mut con, key);
        for (con, k) in [(&mut con, copy.as_str()), (&mut tcon, key)] {
            assert_eq!(
                raw(con, &["TYPE", k]),
                redis::Value::SimpleString("RSbloomAP".into()),
                "{k}"
            );
            assert!(dump_body_of(con, k) == want, "{k}: DUMP differs");
        }
    }
}
