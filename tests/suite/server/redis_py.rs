//! redis-py's own tests of RedisBloom's five types (`tests/test_bloom.py` and
//! `tests/test_asyncio/test_bloom.py` of the redis-py release `tools/redis-py.sh` installs
//! with `make deps`), run with pytest against rsbloom on this suite's server, over RESP2 and
//! RESP3. A client library's view of RedisBloom's dialect: reply shapes, option spellings
//! and the module version it gates tests on (rsbloom reports RedisBloom 8.2.3's, so none is
//! skipped).

use std::path::PathBuf;
use std::process::Command;
use std::thread;

use rsbloom_test_support as common;

use common::*;

/// What the two files hold in redis-py 8.1.0: 73 tests, none skipped on a module that reports
/// version 2.4 or later. A change here means the installed tests changed, or pytest collected
/// fewer (a broken import), which must not pass unnoticed.
const TESTS: usize = 73;

/// pytest's tally of one run.
#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
    errors: usize,
}

/// Reads pytest's last line (`3 failed, 70 passed, 80 warnings in 25.9s`).
fn tally(output: &str) -> Option<Tally> {
    let line = output
        .lines()
        .rev()
        .find(|l| l.contains(" in ") && l.contains("passed"))?;
    let mut t = Tally::default();
    for part in line.trim_matches('=').trim().split(", ") {
        let mut words = part.split_whitespace();
        let (Some(n), Some(what)) = (words.next(), words.next()) else {
            continue;
        };
        let Ok(n) = n.parse() else { continue };
        match what {
            "passed" => t.passed = n,
            "failed" => t.failed = n,
            "skipped" => t.skipped = n,
            "error" | "errors" => t.errors = n,
            _ => {}
        }
    }
    Some(t)
}

fn installed() -> PathBuf {
    let dir = workspace_root().join("target/redis-py");
    assert!(
        dir.join("src/tests/test_bloom.py").is_file() && dir.join("site").is_dir(),
        "redis-py's tests are not installed in {}: run `make deps` (tools/redis-py.sh)",
        dir.display()
    );
    dir
}

/// Runs both files with pytest against a fresh server in `protocol`; the tally and the output.
fn run(protocol: u8) -> (Tally, String) {
    let dir = installed();
    let server = Server::start();
    let url = format!("redis://127.0.0.1:{}", server.port);
    let out = Command::new("python3")
        .current_dir(dir.join("src"))
        .env("PYTHONPATH", dir.join("site"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("COLUMNS", "240")
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-W",
            "ignore",
        ])
        .args(["tests/test_bloom.py", "tests/test_asyncio/test_bloom.py"])
        .arg(format!("--redis-url={url}"))
        .arg(format!("--redis-mod-url={url}"))
        .arg(format!("--protocol={protocol}"))
        .output()
        .expect("python3 runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let tally = tally(&text).unwrap_or_else(|| panic!("no pytest summary in:\n{text}"));
    (tally, text)
}

#[test]
fn redis_py_bloom_tests_pass_in_resp2_and_resp3() {
    // The two protocols on two servers at once: each run is mostly waiting on pytest.
    let runs: Vec<_> = [2u8, 3]
        .map(|p| thread::spawn(move || (p, run(p))))
        .into_iter()
        .map(|h| h.join().expect("pytest run"))
        .collect();
    for (protocol, (tally, text)) in runs {
        let want = Tally {
            passed: TESTS,
            ..Tally::default()
        };
        let failing: Vec<&str> = text.lines().filter(|l| l.starts_with("FAILED")).collect();
        assert_eq!(
            tally, want,
            "RESP{protocol}: redis-py's bloom tests: {failing:#?}\n{text}"
        );
    }
}

#[test]
fn pytest_summaries_are_read() {
    assert_eq!(
        tally("52 failed, 21 passed, 80 warnings in 25.92s"),
        Some(Tally {
            passed: 21,
            failed: 52,
            ..Tally::default()
        })
    );
    assert_eq!(
        tally("===== 1 failed, 70 passed, 2 skipped, 1 error in 3.1s ====="),
        Some(Tally {
            passed: 70,
            failed: 1,
            skipped: 2,
            errors: 1,
        })
    );
    assert_eq!(tally("no tests ran in 0.1s"), None);
}
