//! Keyed hashing for filters of our own format (`KEYED`): the probe positions depend on a
//! 128-bit secret drawn when the filter is made, so nobody without it can compute offline
//! which items would set only fresh bits (the pollution attack, Gerbet, Kumar and
//! Lauradoux, 2015).
//!
//! `h1` is SipHash-1-3 of the item under the secret; `h2` is `fmix64(h1)`, a bijection, so
//! the pair costs one SipHash and a few multiplies. Both feed the same probe schemes as
//! Guava's pair (double hashing, or a block and its bits when blocked).

use std::fmt;

use super::probe::ItemHash;
use crate::error::Result;
use crate::hash::murmur3::fmix64;
use crate::hash::siphash::{sip13, SipKey};
use crate::random;

/// A filter's secret. Its `Debug` shows nothing of it: filters are printed in test failures
/// and logs, and the secret must reach only the formats that carry the whole filter.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Secret(SipKey);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl Secret {
    /// A fresh secret from [`random`](crate::random).
    pub fn random() -> Result<Secret> {
        Ok(Secret(SipKey::from_bytes(&random::bytes::<16>()?)))
    }

    /// The secret as the parameter block stores it: two words.
    pub fn words(self) -> [u64; 2] {
        [self.0.k0, self.0.k1]
    }

    pub fn from_words([k0, k1]: [u64; 2]) -> Secret {
        Secret(SipKey { k0, k1 })
    }

    /// The item's hash words under this secret.
    #[inline]
    pub fn hash(self, item: &[u8]) -> ItemHash {
        let h1 = sip13(self.0, item);
        ItemHash {
            h1,
            h2: fmix64(h1),
            mask: i64::MAX as u64,
        }
    }
}

/// The item's hash under `secret`, or Guava's public one where there is none: the scheme of
/// the filters that are either Guava's or keyed (counting filters, sliding windows). Always
/// inlined: called through a filter's own `hash`, a plain `#[inline]` left the window's
/// single adds 17 instructions dearer (callgrind, APBF.ADD).
#[inline(always)]
pub fn hash_or_guava(secret: Option<Secret>, item: &[u8]) -> ItemHash {
    match secret {
        None => super::guava::hash(item),
        Some(secret) => secret.hash(item),
    }
}

/// [`hash_or_guava`] of each item; the secret is looked at once, not per item.
pub fn hash_all_or_guava<'a>(
    secret: Option<Secret>,
    items: impl IntoIterator<Item = &'a [u8]>,
) -> Vec<ItemHash> {
    let items = items.into_iter();
    match secret {
        None => items.map(super::guava::hash).collect(),
        Some(secret) => items.map(|item| secret.hash(item)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_secret() {
        let s = Secret::from_words([0x0123_4567_89ab_cdef, 42]);
        let shown = format!("{s:?} {:?}", Some(s));
        assert!(!shown.contains("123") && !shown.contains("42"), "{shown}");
    }

    #[test]
    fn random_secrets_differ_and_hash_differently() {
        let (a, b) = (Secret::random().unwrap(), Secret::random().unwrap());
        assert_ne!(a, b);
        assert_ne!(a.hash(b"item"), b.hash(b"item"));
        assert_eq!(a.hash(b"item"), a.hash(b"item"));
        assert_eq!(Secret::from_words(a.words()), a);
    }
}
