//! Which routing slot an item has: the cluster's CRC16 key slot (protocol 1's default), or
//! under keyed routing (spec-44 section 6) the low 14 bits of the first two bytes of
//! HMAC-SHA256(secret, item), so that hostile items cannot be aimed at one shard. Both are
//! the core's functions, the ones the module checks items with.

use rsbloom_core::shard::keyed::{RoutingSecret, SECRET_BYTES};
use rsbloom_core::shard::slot::key_slot;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Routing {
    /// The cluster's key slot of the item.
    Slot,
    /// HMAC-SHA256 under this secret (never printed by `Debug`).
    Keyed(RoutingSecret),
}

impl Routing {
    /// Keyed routing under these 16 bytes.
    pub fn keyed(secret: [u8; SECRET_BYTES]) -> Routing {
        Routing::Keyed(RoutingSecret::new(secret))
    }

    pub fn slot(&self, item: &[u8]) -> u16 {
        match self {
            Routing::Slot => key_slot(item),
            Routing::Keyed(secret) => secret.slot(item),
        }
    }
}

/// Lowercase hex of a creation id's bytes (a routing secret has `RoutingSecret::to_hex`).
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// 16 fresh bytes from the OS's CSPRNG (creation ids, routing secrets).
pub(crate) fn random16() -> crate::Result<[u8; 16]> {
    rsbloom_core::random::bytes::<16>()
        .map_err(|e| crate::Error::Argument(format!("no OS randomness: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_routing_is_the_cluster_key_slot() {
        // CLUSTER KEYSLOT foo (redis.io's example).
        assert_eq!(Routing::Slot.slot(b"foo"), 12_182);
        assert_eq!(Routing::Slot.slot(b"{foo}bar"), 12_182);
    }
}
