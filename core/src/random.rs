//! The one source of randomness for what must not be guessed: keyed filters' secrets and
//! valkey-bloom filters' seeds. The `getrandom` crate asks the kernel (`getrandom(2)`,
//! blocking only until its pool is first seeded); a failure is an error reply, never a
//! weaker fallback.

use crate::error::{Error, Result};

/// Fills `buf` with cryptographically secure random bytes.
pub fn fill(buf: &mut [u8]) -> Result<()> {
    getrandom::fill(buf).map_err(|_| Error::NoRandomness)
}

/// `N` fresh random bytes.
pub fn bytes<const N: usize>() -> Result<[u8; N]> {
    let mut out = [0u8; N];
    fill(&mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_draws_differ_and_are_not_zero() {
        let (a, b) = (bytes::<32>().unwrap(), bytes::<32>().unwrap());
        assert_ne!(a, b);
        assert_ne!(a, [0u8; 32]);
    }
}
