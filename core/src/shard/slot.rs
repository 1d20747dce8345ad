//! The cluster's key-slot function: CRC16 (XMODEM: polynomial 0x1021, initial value 0, no
//! reflection) of the key's hash tag, or of the whole key, modulo 16,384. Items of a sharded
//! filter are routed by it as if they were keys, so any client library's own key-slot
//! function routes them.

/// Hash slots of Redis Cluster and Valkey Cluster.
pub const SLOTS: u32 = 16384;

/// CRC16-XMODEM a byte at a time, from a table built at compile time.
const TABLE: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = (i as u16) << 8;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

/// CRC16 as the cluster computes it.
pub fn crc16(bytes: &[u8]) -> u16 {
    bytes.iter().fold(0u16, |crc, &b| {
        (crc << 8) ^ TABLE[usize::from((crc >> 8) as u8 ^ b)]
    })
}

/// The bytes the cluster hashes for `key`: those between the first `{` and the first `}`
/// after it when there are any, else the whole key.
pub fn hashed_part(key: &[u8]) -> &[u8] {
    if let Some(open) = key.iter().position(|&b| b == b'{') {
        let rest = &key[open + 1..];
        if let Some(len) = rest.iter().position(|&b| b == b'}') {
            if len > 0 {
                return &rest[..len];
            }
        }
    }
    key
}

/// The slot of `key` (hash tags honoured), in `0..16384`.
pub fn key_slot(key: &[u8]) -> u16 {
    (u32::from(crc16(hashed_part(key))) % SLOTS) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit-by-bit definition the table must agree with.
    fn crc16_bitwise(bytes: &[u8]) -> u16 {
        let mut crc: u16 = 0;
        for &b in bytes {
            crc ^= u16::from(b) << 8;
            for _ in 0..8 {
                crc = if crc & 0x8000 != 0 {
                    (crc << 1) ^ 0x1021
                } else {
                    crc << 1
                };
            }
        }
        crc
    }

    #[test]
    fn table_matches_the_definition() {
        // The check value of CRC-16/XMODEM, and the example of the cluster specification.
        assert_eq!(crc16(b"123456789"), 0x31C3);
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for len in 0..200 {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state as u8
                })
                .collect();
            assert_eq!(crc16(&bytes), crc16_bitwise(&bytes));
        }
    }

    #[test]
    fn hash_tags_as_the_cluster_reads_them() {
        assert_eq!(key_slot(b"{user1000}.following"), key_slot(b"user1000"));
        assert_eq!(key_slot(b"foo{}{bar}"), key_slot(b"foo{}{bar}"));
        assert_eq!(hashed_part(b"foo{}{bar}"), b"foo{}{bar}");
        assert_eq!(hashed_part(b"foo{{bar}}zap"), b"{bar");
        assert_eq!(hashed_part(b"foo{bar}{zap}"), b"bar");
        assert_eq!(hashed_part(b"{"), b"{");
        assert_eq!(key_slot(b""), 0);
    }
}
