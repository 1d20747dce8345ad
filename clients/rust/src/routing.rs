//! Which routing slot an item has: the cluster's CRC16 key slot (protocol 1's default), or
//! under keyed routing (spec-44 section 6) the low 14 bits of the first two bytes of
//! HMAC-SHA256(secret, item), so that hostile items cannot be aimed at one shard.

use hmac::{Hmac, Mac};
use rsbloom_core::shard::slot::key_slot;
use sha2::Sha256;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Routing {
    /// The cluster's key slot of the item.
    Slot,
    /// HMAC-SHA256 under this 16-byte secret.
    Keyed([u8; 16]),
}

impl Routing {
    pub fn slot(&self, item: &[u8]) -> u16 {
        match self {
            Routing::Slot => key_slot(item),
            Routing::Keyed(secret) => keyed_slot(secret, item),
        }
    }
}

/// `(HMAC-SHA256(secret, item)[0] << 8 | [1]) & 0x3FFF`.
pub fn keyed_slot(secret: &[u8], item: &[u8]) -> u16 {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes any key length");
    mac.update(item);
    let digest = mac.finalize().into_bytes();
    u16::from_be_bytes([digest[0], digest[1]]) & 0x3FFF
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// 32 lowercase hex characters as 16 bytes.
pub(crate) fn unhex(text: &str) -> Option<[u8; 16]> {
    if text.len() != 32
        || text
            .bytes()
            .any(|c| !matches!(c, b'0'..=b'9' | b'a'..=b'f'))
    {
        return None;
    }
    let mut out = [0u8; 16];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// 16 fresh bytes from the OS's CSPRNG, as 32 lowercase hex (creation ids, secrets).
pub(crate) fn random16() -> crate::Result<[u8; 16]> {
    rsbloom_core::random::bytes::<16>()
        .map_err(|e| crate::Error::Argument(format!("no OS randomness: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyed_slots_are_hmac_sha256s_first_bytes() {
        // RFC 4231 test case 2: HMAC-SHA256("Jefe", "what do ya want for nothing?") begins
        // 5bdc: 0x5bdc & 0x3fff = 0x1bdc.
        assert_eq!(keyed_slot(b"Jefe", b"what do ya want for nothing?"), 0x1bdc);
    }

    #[test]
    fn hex_round_trips() {
        let b = [0xab; 16];
        assert_eq!(unhex(&hex(&b)), Some(b));
        assert_eq!(unhex("AB"), None);
    }
}
