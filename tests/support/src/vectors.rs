//! The Guava ground truth in `tests/vectors/guava/` (see its README.md): its parsed files
//! come from the core's test kit; what is added here needs the client helpers.

use std::path::PathBuf;

pub use super::files::guava::*;
pub use super::files::unhex;

/// The folder of the Guava vectors.
pub fn dir() -> PathBuf {
    super::files::dir("guava")
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
