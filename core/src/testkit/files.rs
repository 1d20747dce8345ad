//! Reading the ground truth under `tests/vectors/` (see the README of each set): a file as
//! text or bytes, hex and the `.tsv` escaping undone, and the Guava set's parsed files. Here,
//! not in the integration tests' support crate, so the core's own vector tests (core/tests)
//! need neither a server nor a second copy of the core.

use std::fs;
use std::path::{Path, PathBuf};

/// The seven Guava configurations of `tests/vectors/guava/`; all but the last come with an
/// items file.
pub const GUAVA_CONFIGS: [&str; 7] = [
    "n1_p0.01",
    "n5_p1e-06",
    "n10_p0.5",
    "n100_p0.01",
    "n1000_p0.001",
    "n100000_p0.01",
    "n1000000_p0.03",
];

/// The nine RedisBloom configurations of `tests/vectors/redisbloom/`; each is stored under
/// the key of its name.
pub const REDISBLOOM_CONFIGS: [&str; 9] = [
    "tiny",
    "scaling100",
    "nonscaling1k",
    "exp1",
    "exp4",
    "big",
    "empty",
    "autocreated",
    "binary",
];

/// The cuckoo configurations of `tests/vectors/redisbloom-cf/`.
pub const REDISBLOOM_CF_CONFIGS: [&str; 17] = [
    "default",
    "autocreated",
    "bs1",
    "bs255",
    "mi1_exp0",
    "mimax_exp0",
    "exp1_max",
    "exp2",
    "exp4",
    "ops",
    "binary",
    "empty",
    "large",
    "errors",
    "resp3",
    "loadchunk",
    "restore",
];

/// The Count-Min Sketch configurations of `tests/vectors/redisbloom-cms/`; each is stored
/// under the key of its name.
pub const REDISBLOOM_CMS_CONFIGS: [&str; 10] = [
    "dim_small",
    "dim_large",
    "prob",
    "overflow",
    "merge",
    "binary",
    "tiny",
    "empty",
    "resp3",
    "errors",
];

/// The t-digest configurations of `tests/vectors/redisbloom-tdigest/`.
pub const REDISBLOOM_TDIGEST_CONFIGS: [&str; 13] = [
    "empty",
    "single",
    "c100",
    "c1",
    "c10",
    "c1000",
    "c5000",
    "values",
    "merge",
    "reset",
    "dumpstate",
    "resp3",
    "errors",
];

/// The folder of one set of vectors: `tests/vectors/<set>` (`guava`, `redisbloom`,
/// `redisbloom-cf`); the core crate sits one level below the repository root.
pub fn dir(set: &str) -> PathBuf {
    let core = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = core.parent().expect("the core crate has a parent folder");
    root.join("tests/vectors").join(set)
}

/// A file of a set as bytes.
pub fn read_bytes(set: &str, name: &str) -> Vec<u8> {
    let path = dir(set).join(name);
    fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// A file of a set as text.
pub fn read(set: &str, name: &str) -> String {
    let path = dir(set).join(name);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Lowercase/uppercase hex to bytes.
pub fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd-length hex {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or_else(|_| panic!("bad hex {s:?}")))
        .collect()
}

/// The escaping of the RedisBloom fixtures' `.tsv` files (`\\`, `\t`, `\n`, `\r`,
/// `\xHH`) undone.
pub fn unescape(field: &str) -> Vec<u8> {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        match b[i + 1] {
            b'\\' => out.push(b'\\'),
            b't' => out.push(b'\t'),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b'x' => {
                let hex = std::str::from_utf8(&b[i + 2..i + 4]).expect("hex");
                out.push(u8::from_str_radix(hex, 16).expect("hex"));
                i += 2;
            }
            other => panic!("unknown escape \\{}", other as char),
        }
        i += 2;
    }
    out
}

/// Bytes in the `.tsv` escaping (for messages and tables of expected replies).
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::new();
    for &c in bytes {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            0x20..=0x7e => out.push(c as char),
            _ => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out
}

/// The Guava set (`tests/vectors/guava/`, see its README.md) parsed.
pub mod guava {
    use super::unhex;

    fn read(name: &str) -> String {
        super::read("guava", name)
    }

    /// The items of `NAME.items.hex`, in file order. Every line ends with `\n`; an empty line
    /// is the empty item, so only the text after the final `\n` (nothing) is dropped.
    pub fn items(config: &str) -> Vec<Vec<u8>> {
        let text = read(&format!("{config}.items.hex"));
        let body = text
            .strip_suffix('\n')
            .unwrap_or_else(|| panic!("{config}.items.hex does not end with a newline"));
        body.split('\n').map(unhex).collect()
    }

    /// The queries of `NAME.queries.tsv` with Guava's answers.
    pub fn queries(config: &str) -> Vec<(Vec<u8>, bool)> {
        read(&format!("{config}.queries.tsv"))
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                let (hex, answer) = l.split_once('\t').expect("tab in queries line");
                let answer = match answer.trim() {
                    "1" => true,
                    "0" => false,
                    other => panic!("bad answer {other:?}"),
                };
                (unhex(hex), answer)
            })
            .collect()
    }

    /// A scalar field of `NAME.meta.json`, as its raw JSON text (numbers, null, or a quoted
    /// string). The meta files are flat enough that the first `"field":` is the one meant.
    pub fn meta(config: &str, field: &str) -> String {
        let text = read(&format!("{config}.meta.json"));
        let needle = format!("\"{field}\":");
        let start = text
            .find(&needle)
            .unwrap_or_else(|| panic!("{config}.meta.json has no {field}"))
            + needle.len();
        let rest = text[start..].trim_start();
        if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted.find('"').expect("closing quote");
            return format!("\"{}\"", &quoted[..end]);
        }
        let end = rest.find([',', '\n', '}']).unwrap_or(rest.len());
        rest[..end].trim().to_string()
    }

    /// A numeric field of `NAME.meta.json`.
    pub fn meta_u64(config: &str, field: &str) -> u64 {
        meta(config, field)
            .parse()
            .unwrap_or_else(|e| panic!("{config} meta {field}: {e}"))
    }

    /// A floating-point field of `NAME.meta.json`.
    pub fn meta_f64(config: &str, field: &str) -> f64 {
        meta(config, field)
            .parse()
            .unwrap_or_else(|e| panic!("{config} meta {field}: {e}"))
    }

    /// The rows of `sizing.tsv`: (n, p text, m, num_longs, k); rows where Guava throws are
    /// skipped.
    pub fn sizing_rows() -> Vec<(u64, String, i64, i64, u32)> {
        read("sizing.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                let num_longs: i64 = f[3].parse().expect("num_longs");
                if num_longs < 0 {
                    return None;
                }
                Some((
                    f[0].parse().expect("n"),
                    f[1].to_string(),
                    f[2].parse().expect("m"),
                    num_longs,
                    f[5].parse().expect("k"),
                ))
            })
            .collect()
    }
}
