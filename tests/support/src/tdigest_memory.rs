//! A t-digest's memory figure as RedisBloom 8.6+ gives it, from the older releases' recorded
//! one. RedisBloom 2.8 and 8.2 count a pointer's 8 bytes for t-digest-c's histogram struct,
//! 8.6+ the struct's 80 (rule `tdigest-memory-usage` of docs/differences.txt): TDIGEST.INFO's
//! `Memory usage` and MEMORY USAGE are 72 bytes larger, `80 + 16 × capacity` where
//! 2.8 and 8.2 said `8 + 16 × capacity`.

/// What RedisBloom 8.6+ adds to 2.8's and 8.2's figure.
pub const ADDED_BYTES: i64 = 72;

/// The integer after `+NAME\r\n:` in a TDIGEST.INFO reply (RESP2 array or RESP3 map), and
/// where its digits are.
fn field(reply: &[u8], name: &str) -> Option<(i64, std::ops::Range<usize>)> {
    let label = format!("+{name}\r\n:");
    let start = reply
        .windows(label.len())
        .position(|w| w == label.as_bytes())?
        + label.len();
    let len = reply[start..].iter().position(|&b| b == b'\r')?;
    let value = std::str::from_utf8(&reply[start..start + len])
        .ok()?
        .parse()
        .ok()?;
    Some((value, start..start + len))
}

/// A TDIGEST.INFO reply with 2.8's or 8.2's `Memory usage` (`8 + 16 × Capacity`) raised to
/// 8.6+'s; any other reply, 8.6+'s own included, unchanged.
pub fn info_as_8_6(reply: &[u8]) -> Vec<u8> {
    let (Some((cap, _)), Some((memory, at))) =
        (field(reply, "Capacity"), field(reply, "Memory usage"))
    else {
        return reply.to_vec();
    };
    if memory != 8 + 16 * cap {
        return reply.to_vec();
    }
    let mut out = reply[..at.start].to_vec();
    out.extend((memory + ADDED_BYTES).to_string().into_bytes());
    out.extend_from_slice(&reply[at.end..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raises_only_the_old_figure() {
        let old = b"*4\r\n+Capacity\r\n:610\r\n+Memory usage\r\n:9768\r\n";
        assert_eq!(
            info_as_8_6(old),
            b"*4\r\n+Capacity\r\n:610\r\n+Memory usage\r\n:9840\r\n".to_vec()
        );
        let new = b"%2\r\n+Capacity\r\n:610\r\n+Memory usage\r\n:9840\r\n";
        assert_eq!(info_as_8_6(new), new.to_vec());
        assert_eq!(info_as_8_6(b"-ERR x\r\n"), b"-ERR x\r\n".to_vec());
    }
}
