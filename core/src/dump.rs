//! The frame of a DUMP payload, which RESTORE takes: the module value's bytes (the body),
//! then the server's footer, its RDB version (2 bytes LE) and a CRC-64 of everything before
//! it (8 bytes LE). The body is the same on every server; a server refuses a footer whose
//! version is above its own (Redis 7.0 writes 10, Valkey 8 11, Redis 7.4 / 8.x 12, Valkey 9
//! 80) or whose CRC is wrong.

/// The footer's length: the RDB version and the CRC-64.
pub const FOOTER: usize = 10;

/// Redis's CRC-64 (Jones polynomial, reflected, init 0, no final xor), a byte at a time.
pub fn crc64(bytes: &[u8]) -> u64 {
    static TABLE: std::sync::OnceLock<[u64; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        // 0xad93d23594c935a9 with its 64 bits in reverse order.
        const POLY_REFLECTED: u64 = 0x95ac_9329_ac4b_c9b5;
        let mut t = [0u64; 256];
        for (i, slot) in t.iter_mut().enumerate() {
            let mut crc = i as u64;
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ POLY_REFLECTED
                } else {
                    crc >> 1
                };
            }
            *slot = crc;
        }
        t
    });
    bytes.iter().fold(0u64, |crc, &b| {
        table[((crc ^ b as u64) & 0xff) as usize] ^ (crc >> 8)
    })
}

/// `body` with a footer of RDB version `version` and its CRC-64.
pub fn seal(body: &[u8], version: u16) -> Vec<u8> {
    let mut payload = Vec::with_capacity(body.len() + FOOTER);
    payload.extend_from_slice(body);
    payload.extend_from_slice(&version.to_le_bytes());
    let crc = crc64(&payload);
    payload.extend_from_slice(&crc.to_le_bytes());
    payload
}

/// The body of `payload` if its footer's CRC-64 is right, else `None`.
pub fn body(payload: &[u8]) -> Option<&[u8]> {
    let sealed = payload.len().checked_sub(8).filter(|&n| n >= 2)?;
    let crc = u64::from_le_bytes(payload[sealed..].try_into().ok()?);
    (crc64(&payload[..sealed]) == crc).then(|| &payload[..sealed - 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc64_is_redis_s() {
        // Redis's own test vector (crc64.c): "123456789" -> e9c6d914c4b8d9ca.
        assert_eq!(crc64(b"123456789"), 0xe9c6_d914_c4b8_d9ca);
    }

    #[test]
    fn seal_and_body_round_trip() {
        let b = b"\x07\x81some module value\x00".to_vec();
        let payload = seal(&b, 10);
        assert_eq!(&payload[b.len()..b.len() + 2], &[10, 0]);
        assert_eq!(body(&payload), Some(b.as_slice()));
        let mut bad = payload;
        bad[3] ^= 1;
        assert_eq!(body(&bad), None);
        assert_eq!(body(&[1, 2, 3]), None);
    }
}
