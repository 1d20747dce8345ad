//! Reading the ground truth under `tests/vectors/` (see the README of each set): a file as
//! text or bytes, and hex to bytes. Also used on its own by the `core_*` tests, which start
//! no server.

#![allow(dead_code)]

use std::fs;
use std::path::PathBuf;

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

/// The folder of one set of vectors: `tests/vectors/<set>` (`guava`, `redisbloom`).
pub fn dir(set: &str) -> PathBuf {
    super::workspace_root().join("tests/vectors").join(set)
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
