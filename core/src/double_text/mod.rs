//! A double as the text a server's `addReplyDouble` writes on RESP2 (the payload of its bulk
//! string), byte for byte, so the module can format the doubles it replies itself (the
//! server's formatting is most of what a t-digest query costs). Two styles:
//!
//! - Redis before 7.2: C's `%.17g` (glibc), with infinities written `inf` and `-inf`;
//!   a NaN is glibc's `nan`, or `-nan` when its sign bit is set.
//! - Redis 7.2 and newer, Valkey: `d2string`, which writes `nan` for any NaN, `inf`,
//!   `-inf`, `0` and `-0`, an integer-valued double within ±2^62 as that integer, and any
//!   other through `fpconv_dtoa` (Grisu2, see [`grisu`]).

mod grisu;
mod powers;
#[cfg(test)]
mod tests;

use std::fmt::Write;

use crate::decimal;

/// Room for any double's text in either style: the longest is 25 bytes, the room beyond
/// lets the writer copy digits in fixed-size blocks.
pub const MAX_LEN: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `%.17g`: Redis 7.0 and older.
    Printf17g,
    /// `d2string` with `fpconv_dtoa`: Redis 7.2 and newer, Valkey.
    D2string,
}

/// Writes `x` in `style` to the start of `out`; returns the length.
pub fn write(style: Style, x: f64, out: &mut [u8; MAX_LEN]) -> usize {
    match style {
        Style::Printf17g => printf_17g(x, out),
        Style::D2string => d2string(x, out),
    }
}

fn put(text: &[u8], out: &mut [u8]) -> usize {
    out[..text.len()].copy_from_slice(text);
    text.len()
}

fn d2string(x: f64, out: &mut [u8; MAX_LEN]) -> usize {
    if x.is_nan() {
        return put(b"nan", out);
    }
    if x.is_infinite() {
        return put(if x < 0.0 { b"-inf" } else { b"inf" }, out);
    }
    if x == 0.0 {
        return put(if x.is_sign_negative() { b"-0" } else { b"0" }, out);
    }
    // The servers' `double2ll`: within ±(double)(LLONG_MAX / 2), which is ±2^62, and
    // unchanged by a round trip through a 64-bit integer.
    const LIMIT: f64 = (1u64 << 62) as f64;
    if (-LIMIT..=LIMIT).contains(&x) && (x as i64) as f64 == x {
        return integer(x as i64, out);
    }
    grisu::write(x, out)
}

/// An integer in decimal.
fn integer(n: i64, out: &mut [u8]) -> usize {
    let mut len = 0;
    if n < 0 {
        out[0] = b'-';
        len = 1;
    }
    len + put(
        decimal::digits(n.unsigned_abs(), &mut [0; 20]),
        &mut out[len..],
    )
}

/// `fmt::Write` into a fixed buffer.
struct Cursor<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl Write for Cursor<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        self.buf
            .get_mut(self.len..end)
            .ok_or(std::fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// glibc's `%.17g`: 17 significant digits, correctly rounded (ties to even, as glibc rounds
/// in the default mode); fixed notation for decimal exponents -4 to 16, otherwise scientific
/// with at least two exponent digits; trailing zeros and a bare point dropped.
fn printf_17g(x: f64, out: &mut [u8; MAX_LEN]) -> usize {
    let negative = x.is_sign_negative();
    if x.is_nan() {
        return put(if negative { b"-nan" } else { b"nan" }, out);
    }
    if x.is_infinite() {
        return put(if negative { b"-inf" } else { b"inf" }, out);
    }
    if x == 0.0 {
        return put(if negative { b"-0" } else { b"0" }, out);
    }
    // Rust's exact formatting: "d.dddddddddddddddde<exp>", correctly rounded.
    let mut sci = [0u8; MAX_LEN];
    let mut cursor = Cursor {
        buf: &mut sci,
        len: 0,
    };
    // 17 digits and an exponent of at most 4 characters always fit.
    let _ = write!(cursor, "{:.16e}", x.abs());
    let sci_len = cursor.len;
    let mut digits = [0u8; 17];
    digits[0] = sci[0];
    digits[1..].copy_from_slice(&sci[2..18]);
    let exp = parse_exp(&sci[19..sci_len]);

    let mut at = 0;
    if negative {
        out[0] = b'-';
        at = 1;
    }
    if (-4..17).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            at += put(&digits[..int_len], &mut out[at..]);
            at += fraction(&digits[int_len..], &mut out[at..]);
        } else {
            at += put(b"0.", &mut out[at..]);
            let zeros = (-exp - 1) as usize;
            out[at..at + zeros].fill(b'0');
            at += zeros;
            let kept = 17 - trailing_zeros(&digits);
            at += put(&digits[..kept], &mut out[at..]);
        }
        return at;
    }
    out[at] = digits[0];
    at += 1;
    at += fraction(&digits[1..], &mut out[at..]);
    out[at] = b'e';
    out[at + 1] = if exp < 0 { b'-' } else { b'+' };
    at += 2;
    let magnitude = exp.unsigned_abs();
    if magnitude < 10 {
        out[at] = b'0';
        at += 1;
    }
    at + integer(magnitude as i64, &mut out[at..])
}

fn trailing_zeros(digits: &[u8]) -> usize {
    digits.iter().rev().take_while(|&&d| d == b'0').count()
}

/// "." and the digits without their trailing zeros; nothing when all are zeros.
fn fraction(digits: &[u8], out: &mut [u8]) -> usize {
    let kept = digits.len() - trailing_zeros(digits);
    if kept == 0 {
        return 0;
    }
    out[0] = b'.';
    1 + put(&digits[..kept], &mut out[1..])
}

/// The exponent Rust writes after `e`: an optional minus, then digits.
fn parse_exp(text: &[u8]) -> i32 {
    let (sign, digits) = match text.split_first() {
        Some((b'-', rest)) => (-1, rest),
        _ => (1, text),
    };
    sign * digits
        .iter()
        .fold(0i32, |n, &d| n * 10 + i32::from(d - b'0'))
}
