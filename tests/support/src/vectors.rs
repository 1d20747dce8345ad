//! Reading the Guava ground truth in `tests/vectors/guava/` (see its README.md).

use std::path::PathBuf;

pub use super::files::unhex;

/// The folder of the Guava vectors.
pub fn dir() -> PathBuf {
    super::files::dir("guava")
}

fn read(name: &str) -> String {
    super::files::read("guava", name)
}

/// The items of `NAME.items.hex`, in file order. Every line ends with `\n`; an empty line is
/// the empty item, so only the text after the final `\n` (nothing) is dropped.
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

/// A scalar field of `NAME.meta.json`, as its raw JSON text (numbers, null, or a quoted string).
/// The meta files are flat enough that the first `"field":` is the one meant.
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

/// The rows of `sizing.tsv`: (n, p text, m, num_longs, k); rows where Guava throws are skipped.
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

/// The items a configuration inserted: its items file, or `u:{i}` for i < 1,000,000 for
/// `n1000000_p0.03`, which stores no list.
pub fn inserted(config: &str) -> Vec<Vec<u8>> {
    if config == "n1000000_p0.03" {
        super::gen_items("u:", 0..1_000_000)
    } else {
        items(config)
    }
}
