//! DUMP payloads of the sketch families (Count-Min Sketch, Top-K, t-digest), which have no
//! SCANDUMP: they travel whole, as `DUMP` gives them and `RESTORE` takes them. A payload ends
//! with the server's footer, its RDB version (2 bytes LE) and a CRC-64 of all before it (8
//! bytes LE); a server refuses a payload whose version is above its own. The body before the
//! footer is the same on every server, so a dump file keeps the body and a transfer seals it
//! again with RDB version 10 (Redis 7.0's, the oldest server rsbloom runs on), which every
//! later Redis and Valkey accepts.

use crate::fail::{fail, Result};

/// The RDB version a sealed payload claims.
const PORTABLE_RDB_VERSION: u16 = 10;
const FOOTER: usize = 10;

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

/// The body of a DUMP payload (its footer checked and cut off).
pub fn unseal(key: &str, mut payload: Vec<u8>) -> Result<Vec<u8>> {
    if payload.len() <= FOOTER {
        return fail(format!("DUMP {key}: payload of {} bytes", payload.len()));
    }
    let sealed = payload.len() - 8;
    let crc = u64::from_le_bytes(payload[sealed..].try_into().unwrap_or_default());
    if crc64(&payload[..sealed]) != crc {
        return fail(format!("DUMP {key}: payload with a wrong CRC-64"));
    }
    payload.truncate(payload.len() - FOOTER);
    Ok(payload)
}

/// A payload any supported server's `RESTORE` takes: `body` and a portable footer.
pub fn seal(body: &[u8]) -> Vec<u8> {
    let mut payload = Vec::with_capacity(body.len() + FOOTER);
    payload.extend_from_slice(body);
    payload.extend_from_slice(&PORTABLE_RDB_VERSION.to_le_bytes());
    let crc = crc64(&payload);
    payload.extend_from_slice(&crc.to_le_bytes());
    payload
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
    fn seal_and_unseal_round_trip() {
        let body = b"\x07\x81some module value\x00".to_vec();
        let payload = seal(&body);
        assert_eq!(&payload[body.len()..body.len() + 2], &[10, 0]);
        assert_eq!(unseal("k", payload.clone()).unwrap(), body);
        let mut bad = payload;
        bad[3] ^= 1;
        assert!(unseal("k", bad).is_err());
        assert!(unseal("k", vec![1, 2, 3]).is_err());
    }
}
