//! The name of the temporary key a transfer loads into: it must hash to the target key's
//! slot so that the final `RENAME` works in a cluster (slots: the core's `shard::slot`).
//!
//! Rule: if KEY has a hash tag (a `{...}` with something inside, the first `{` and the first
//! `}` after it), the temporary key is `KEY.rsbloom-tmp-<random>` (same tag, same slot).
//! Otherwise, if KEY is not empty and has no `}`, it is `{KEY}.rsbloom-tmp-<random>` (the tag
//! is KEY itself, whose slot is that of KEY). Otherwise (rare names such as `a}b`) it is
//! `KEY.rsbloom-tmp-<random>-<n>` with the first `n` whose slot equals KEY's.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

use rsbloom_core::shard::slot::{hashed_part, key_slot as slot};

pub fn has_tag(key: &[u8]) -> bool {
    hashed_part(key).len() != key.len()
}

/// 64 random bits from the standard library's per-process random hash keys and the clock.
pub fn random_u64() -> u64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.write_u32(std::process::id());
    h.finish()
}

/// A fresh temporary key in KEY's slot (see the module doc).
pub fn staging_key(key: &str) -> String {
    let suffix = format!(".rsbloom-tmp-{:016x}", random_u64());
    if has_tag(key.as_bytes()) {
        return format!("{key}{suffix}");
    }
    if !key.is_empty() && !key.contains('}') {
        return format!("{{{key}}}{suffix}");
    }
    let want = slot(key.as_bytes());
    (0u64..)
        .map(|n| format!("{key}{suffix}-{n}"))
        .find(|k| slot(k.as_bytes()) == want)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_and_slots_match_redis() {
        assert_eq!(slot(b"foo"), 12182);
        assert_eq!(slot(b"bar"), 5061);
        assert_eq!(slot(b"{user1000}.following"), slot(b"user1000"));
        assert_eq!(slot(b"foo{}{bar}"), slot(b"foo{}{bar}"));
        assert_eq!(hashed_part(b"foo{}{bar}"), b"foo{}{bar}");
        assert_eq!(hashed_part(b"foo{{bar}}zap"), b"{bar");
    }

    #[test]
    fn staging_keys_share_the_slot() {
        for key in [
            "k", "urls", "{t}x", "a{b}c", "a{", "}", "a}b", "{}", "{}x", "", "x{}{y}", "{{a}}",
        ] {
            let tmp = staging_key(key);
            assert_ne!(tmp, key);
            assert!(tmp.contains(".rsbloom-tmp-"), "{tmp}");
            assert_eq!(
                slot(tmp.as_bytes()),
                slot(key.as_bytes()),
                "{key:?} -> {tmp:?}"
            );
        }
        assert!(staging_key("urls").starts_with("{urls}.rsbloom-tmp-"));
        assert!(staging_key("a{b}c").starts_with("a{b}c.rsbloom-tmp-"));
    }
}
