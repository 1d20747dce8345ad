//! Plain decimals read without the server: `-?digits(.digits)?`, as short as command
//! arguments usually are, and short integers; and integers written as decimal digits.
//!
//! The server's parser (`strtod` or fast_float behind `RedisModule_StringToDouble`) costs
//! about 270 instructions a number, more than a t-digest add's own work. A plain decimal
//! whose digits fit 53 bits and which has at most 22 digits after the point is exactly
//! `m / 10^f` of two doubles held exactly, and one IEEE division of exact operands is
//! correctly rounded (Clinger's fast path), as every server's parser is. So these strings get
//! the server's value, and the server accepts every one of them. Anything else (an exponent,
//! a sign `+`, `.5`, `5.`, spaces, `inf`, more digits) is not read here: the caller asks the
//! server, which keeps every other acceptance, refusal and value its own.

/// The integer of `-?[1-9][0-9]{0,17}` or `0`, or `None` for anything else: the strings
/// Redis's `string2ll` (behind `RedisModule_StringToLongLong`, the same on every server)
/// takes to an integer without overflow checks (18 digits stay below 2^63). It refuses a
/// `+`, leading zeros, `-0`, spaces; longer numbers are left to it.
#[inline]
pub fn integer(s: &[u8]) -> Option<i64> {
    let (negative, digits) = match s {
        [b'0'] => return Some(0),
        [b'-', rest @ ..] => (true, rest),
        _ => (false, s),
    };
    match digits {
        [b'1'..=b'9', ..] if digits.len() <= 18 => {}
        _ => return None,
    }
    let mut n: i64 = 0;
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n * 10 + d as i64;
    }
    Some(if negative { -n } else { n })
}

/// `n` in decimal digits, written at the end of `buf` (20 bytes hold any `u64`).
#[inline]
pub fn digits(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[at..];
        }
    }
}

/// `10^0 ..= 10^22`: the powers of ten a double holds exactly.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The largest digit string whose integer a double holds exactly: 2^53.
const EXACT_INTEGER: u64 = 1 << 53;

/// Longer strings go to the server (leading zeros are the only way to get here).
const MAX_LEN: usize = 40;

/// The value of a plain decimal, or `None` when it is not one this function reads.
#[inline]
pub fn plain(s: &[u8]) -> Option<f64> {
    let (negative, digits) = match s {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, s),
    };
    if digits.is_empty() || digits.len() > MAX_LEN {
        return None;
    }
    // One pass: the digits' integer (held to 2^53, so `m * 10 + 9` never overflows) and
    // where the point is.
    let mut m: u64 = 0;
    let mut point = None;
    for (i, &b) in digits.iter().enumerate() {
        let d = b.wrapping_sub(b'0');
        if d <= 9 {
            m = m * 10 + d as u64;
            if m > EXACT_INTEGER {
                return None;
            }
        } else if b == b'.' && point.is_none() {
            point = Some(i);
        } else {
            return None;
        }
    }
    let places = match point {
        None => 0,
        // A digit on each side of the point.
        Some(at) if at > 0 && at + 1 < digits.len() => digits.len() - at - 1,
        Some(_) => return None,
    };
    let power = *EXACT_POWERS.get(places)?;
    let magnitude = m as f64 / power;
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::plain;
    use crate::testkit::Rng;

    fn std_value(s: &[u8]) -> f64 {
        std::str::from_utf8(s).unwrap().parse::<f64>().unwrap()
    }

    #[test]
    fn reads_plain_decimals_as_a_correctly_rounded_parser_does() {
        for s in [
            "0",
            "-0",
            "0.0",
            "-0.0",
            "1",
            "-1",
            "0.5",
            "0.99",
            "007.250",
            "123456.789",
            "9007199254740992",
            "900719925474099.2",
            "0.0000000000000000000001",
            "0.1",
            "0.2",
            "0.3",
            "2.675",
            "1.000000000000002",
            "-4503599627370.495",
        ] {
            let got = plain(s.as_bytes()).unwrap_or_else(|| panic!("{s} not read"));
            assert_eq!(got.to_bits(), std_value(s.as_bytes()).to_bits(), "{s}");
        }
        let mut rng = Rng::new(0x5eed_dec1);
        let mut read = 0;
        for _ in 0..200_000 {
            let bits = rng.below(54);
            let whole = rng.below(1u64 << bits);
            let places = rng.below(24) as usize;
            let fraction: String = (0..places)
                .map(|_| (b'0' + rng.below(10) as u8) as char)
                .collect();
            let sign = if rng.below(2) == 0 { "-" } else { "" };
            let s = match places {
                0 => format!("{sign}{whole}"),
                _ => format!("{sign}{whole}.{fraction}"),
            };
            if let Some(got) = plain(s.as_bytes()) {
                assert_eq!(got.to_bits(), std_value(s.as_bytes()).to_bits(), "{s}");
                read += 1;
            }
        }
        assert!(read > 50_000, "only {read} read");
    }

    /// Redis's `string2ll`, step by step, as the reference.
    fn string2ll(s: &[u8]) -> Option<i64> {
        if s.is_empty() || s.len() >= 21 {
            return None;
        }
        if s == b"0" {
            return Some(0);
        }
        let (negative, digits) = match s {
            [b'-', rest @ ..] if !rest.is_empty() => (true, rest),
            [b'-'] => return None,
            _ => (false, s),
        };
        if !(b'1'..=b'9').contains(&digits[0]) || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let v: u64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
        match negative {
            true if v <= i64::MAX as u64 + 1 => Some((v as i64).wrapping_neg()),
            false if v <= i64::MAX as u64 => Some(v as i64),
            _ => None,
        }
    }

    #[test]
    fn reads_integers_as_string2ll_does() {
        use super::integer;
        for s in [
            "0",
            "-0",
            "00",
            "01",
            "1",
            "-1",
            "+1",
            "",
            "-",
            " 1",
            "1 ",
            "123456789012345678",
            "-123456789012345678",
            "1234567890123456789",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "1.0",
            "1e3",
            "0x1",
        ] {
            let got = integer(s.as_bytes());
            if got.is_some() {
                assert_eq!(got, string2ll(s.as_bytes()), "{s:?}");
            }
        }
        assert_eq!(integer(b"-0"), None);
        assert_eq!(integer(b"123456789012345678"), Some(123456789012345678));
        let mut rng = Rng::new(11);
        let alphabet = b"0123456789-+ ";
        let mut read = 0;
        for _ in 0..300_000 {
            let len = rng.below(21) as usize;
            let s: Vec<u8> = (0..len)
                .map(|i| match i {
                    0 => alphabet[rng.below(alphabet.len() as u64) as usize],
                    _ => b'0' + rng.below(10) as u8,
                })
                .collect();
            if let Some(got) = integer(&s) {
                assert_eq!(
                    Some(got),
                    string2ll(&s),
                    "{:?}",
                    String::from_utf8_lossy(&s)
                );
                read += 1;
            }
        }
        assert!(read > 100_000, "only {read} read");
    }

    #[test]
    fn digits_writes_every_digit() {
        for n in [0, 7, 10, 1_700_000_000_123, i64::MAX as u64, u64::MAX] {
            assert_eq!(super::digits(n, &mut [0; 20]), n.to_string().as_bytes());
        }
    }

    #[test]
    fn leaves_everything_else_to_the_server() {
        for s in [
            "",
            "-",
            ".",
            "-.",
            ".5",
            "5.",
            "+1",
            "1e3",
            "1E3",
            " 1",
            "1 ",
            "0x10",
            "inf",
            "-inf",
            "nan",
            "1.2.3",
            "--1",
            "1-",
            "9007199254740993",
            "18446744073709551616",
            "0.00000000000000000000001",
            "1,5",
            "１",
        ] {
            assert_eq!(plain(s.as_bytes()), None, "{s:?}");
        }
        // Whatever bytes come, a value read is the correctly rounded one.
        let mut rng = Rng::new(7);
        let alphabet = b"0123456789.-+e ";
        for _ in 0..200_000 {
            let len = rng.below(12) as usize;
            let s: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
                .collect();
            if let Some(got) = plain(&s) {
                assert_eq!(
                    got.to_bits(),
                    std_value(&s).to_bits(),
                    "{:?}",
                    String::from_utf8_lossy(&s)
                );
            }
        }
    }
}
