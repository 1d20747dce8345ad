//! Keyed routing (routing scheme 2): an item's routing slot is the first two bytes of
//! HMAC-SHA256 under the logical filter's routing secret, big-endian, low 14 bits. Nobody
//! without the secret can pick items that all land in one shard, which the public CRC16
//! routing allows (docs/sharding.md, "Hostile items"). HMAC-SHA256 because every client
//! language has it in its standard library (Python `hmac`, Node `crypto`, Java `Mac`, Go
//! `crypto/hmac`), so any client can follow the scheme.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::slot::SLOTS;

/// A routing secret's length in bytes (32 hex digits on the wire and in descriptions).
pub const SECRET_BYTES: usize = 16;

/// The secret and its HMAC state with the key already absorbed: each item then costs the
/// two compressions of a short message, not the four of a fresh key (cloned per item).
#[derive(Clone)]
pub struct RoutingSecret {
    bytes: [u8; SECRET_BYTES],
    mac: Hmac<Sha256>,
}

impl RoutingSecret {
    pub fn new(bytes: [u8; SECRET_BYTES]) -> RoutingSecret {
        let mac = Hmac::<Sha256>::new_from_slice(&bytes).expect("HMAC takes any key length");
        RoutingSecret { bytes, mac }
    }

    /// 32 hexadecimal digits (either case), as SHARDSECRET takes them.
    pub fn from_hex(text: &[u8]) -> Option<RoutingSecret> {
        if text.len() != 2 * SECRET_BYTES {
            return None;
        }
        let mut bytes = [0u8; SECRET_BYTES];
        for (out, pair) in bytes.iter_mut().zip(text.chunks_exact(2)) {
            let digit = |c: u8| (c as char).to_digit(16);
            *out = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
        }
        Some(RoutingSecret::new(bytes))
    }

    pub fn bytes(&self) -> &[u8; SECRET_BYTES] {
        &self.bytes
    }

    /// 32 lowercase hex digits: SHARDSECRET's value and the description's `routing_secret`.
    pub fn to_hex(&self) -> String {
        self.bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The item's routing slot, in `0..16384`.
    pub fn slot(&self, item: &[u8]) -> u16 {
        let mut mac = self.mac.clone();
        mac.update(item);
        let tag = mac.finalize().into_bytes();
        (u16::from_be_bytes([tag[0], tag[1]]) as u32 % SLOTS) as u16
    }
}

impl PartialEq for RoutingSecret {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for RoutingSecret {}

/// The secret is never printed (a `Debug` of a place may reach a log).
impl std::fmt::Debug for RoutingSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RoutingSecret(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_strict_and_the_slot_is_the_tags_first_bytes() {
        assert!(RoutingSecret::from_hex(b"00").is_none());
        assert!(RoutingSecret::from_hex(&[b'g'; 32]).is_none());
        let secret = RoutingSecret::from_hex(b"000102030405060708090A0b0c0d0e0f").unwrap();
        assert_eq!(secret.bytes()[10], 10);
        // The tag computed from scratch, with a fresh key each time.
        for item in [&b""[..], b"a", b"{user}:1", &[0xffu8; 100]] {
            let mut mac = Hmac::<Sha256>::new_from_slice(secret.bytes()).unwrap();
            mac.update(item);
            let tag = mac.finalize().into_bytes();
            let want = (u16::from(tag[0]) << 8 | u16::from(tag[1])) & 0x3fff;
            assert_eq!(secret.slot(item), want);
        }
    }
}
