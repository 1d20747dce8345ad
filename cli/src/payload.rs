//! DUMP payloads of the sketch families (Count-Min Sketch, Top-K, t-digest), which have no
//! SCANDUMP: they travel whole, as `DUMP` gives them and `RESTORE` takes them. A payload ends
//! with the server's footer, its RDB version (2 bytes LE) and a CRC-64 of all before it (8
//! bytes LE); a server refuses a payload whose version is above its own. The body before the
//! footer is the same on every server, so a dump file keeps the body and a transfer seals it
//! again with RDB version 10 (Redis 7.0's, the oldest server rsbloom runs on), which every
//! later Redis and Valkey accepts.

use rsbloom_core::dump;

use crate::fail::{fail, Result};

/// The RDB version a sealed payload claims.
const PORTABLE_RDB_VERSION: u16 = 10;

/// The body of a DUMP payload (its footer checked and cut off).
pub fn unseal(key: &str, payload: Vec<u8>) -> Result<Vec<u8>> {
    if payload.len() <= dump::FOOTER {
        return fail(format!("DUMP {key}: payload of {} bytes", payload.len()));
    }
    match dump::body(&payload) {
        Some(body) => Ok(body.to_vec()),
        None => fail(format!("DUMP {key}: payload with a wrong CRC-64")),
    }
}

/// A payload any supported server's `RESTORE` takes: `body` and a portable footer.
pub fn seal(body: &[u8]) -> Vec<u8> {
    dump::seal(body, PORTABLE_RDB_VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;

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
