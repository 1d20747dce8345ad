//! Grisu2 (Loitsch 2010) as the servers' `fpconv_dtoa` (`deps/fpconv`, Redis 7.2 and newer,
//! Valkey) runs it, for finite non-zero doubles: the same boundaries, cached power, digit
//! generation and final rounding, so the same digits, which are not always the shortest that
//! read back as the double (Rust's `{}` is); then the same layout (plain integer, decimal
//! point or exponent).

use super::powers::cached_power;

/// `frac * 2^exp`.
#[derive(Clone, Copy)]
struct Fp {
    frac: u64,
    exp: i32,
}

const HIDDEN_BIT: u64 = 1 << 52;

impl Fp {
    /// The double's significand and exponent (its sign ignored).
    fn of(x: f64) -> Fp {
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let frac = bits & (HIDDEN_BIT - 1);
        if biased == 0 {
            Fp { frac, exp: -1074 }
        } else {
            Fp {
                frac: frac | HIDDEN_BIT,
                exp: biased - 1075,
            }
        }
    }

    /// Shifted left until bit 63 is set.
    fn normalized(self) -> Fp {
        let shift = self.frac.leading_zeros();
        Fp {
            frac: self.frac << shift,
            exp: self.exp - shift as i32,
        }
    }

    /// The product's top 64 bits, rounded half up on the 65th.
    fn times(self, other: (u64, i32)) -> Fp {
        let product = self.frac as u128 * other.0 as u128 + (1u128 << 63);
        Fp {
            frac: (product >> 64) as u64,
            exp: self.exp + other.1 + 64,
        }
    }
}

/// The midpoints to the neighbouring doubles, both at the upper one's normalised exponent.
/// The lower gap is taken as half as wide whenever the significand is the hidden bit alone,
/// the smallest normal double included (as the servers do).
fn boundaries(w: Fp) -> (Fp, Fp) {
    let upper = Fp {
        frac: (w.frac << 1) + 1,
        exp: w.exp - 1,
    }
    .normalized();
    let lower_shift = if w.frac == HIDDEN_BIT { 2 } else { 1 };
    let lower = Fp {
        frac: ((w.frac << lower_shift) - 1) << (w.exp - lower_shift - upper.exp) as u32,
        exp: upper.exp,
    };
    (lower, upper)
}

/// Room for the digits: Grisu2 generates at most 17 (the servers keep room for 18), and the
/// layout copies them in blocks of 32.
const DIGITS_ROOM: usize = 48;

/// Walks the last digit down while that brings the number nearer the double (`rem` and `ulp`
/// are distances from the upper boundary; `target` is the double's).
fn round_last(digits: &mut [u8], delta: u64, mut rem: u64, ulp: u64, target: u64) {
    let Some(last) = digits.last_mut() else {
        return;
    };
    while rem < target
        && delta.wrapping_sub(rem) >= ulp
        && (rem.wrapping_add(ulp) < target
            || target.wrapping_sub(rem) > rem.wrapping_add(ulp).wrapping_sub(target))
    {
        *last = last.wrapping_sub(1);
        rem = rem.wrapping_add(ulp);
    }
}

/// 10^0 to 10^9.
const TENS: [u32; 10] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

/// How many decimal digits `n` has (at least one).
fn decimal_digits(n: u32) -> usize {
    TENS.iter().skip(1).take_while(|&&t| n >= t).count() + 1
}

/// The digits of the scaled upper boundary down to where they stay inside the interval,
/// then rounded; returns how many, and adds the decimal exponent of the last one to `k`.
fn generate(w: Fp, upper: Fp, lower: Fp, digits: &mut [u8; DIGITS_ROOM], k: &mut i32) -> usize {
    let to_double = upper.frac - w.frac;
    let mut delta = upper.frac - lower.frac;
    // The cached power put the exponent in [-60, -32]: the integral part is below 2^32 and
    // at least 8, so it has a first digit, and no digit follows the point before it.
    let shift = (-upper.exp) as u32;
    let one = 1u64 << shift;
    let mut integral = (upper.frac >> shift) as u32;
    let mut fraction = upper.frac & (one - 1);
    let mut n = 0;
    // The servers walk from 10^9 down and write nothing for leading zeros; their check
    // cannot stop the walk there (what is left is the whole boundary, far above delta), so
    // the walk starts at the first digit.
    let mut kappa = decimal_digits(integral);
    while kappa > 0 {
        kappa -= 1;
        let div = TENS[kappa];
        let digit = integral / div;
        digits[n] = b'0' + digit as u8;
        n += 1;
        integral -= digit * div;
        let rem = ((integral as u64) << shift) + fraction;
        if rem <= delta {
            *k += kappa as i32;
            round_last(
                &mut digits[..n],
                delta,
                rem,
                (div as u64) << shift,
                to_double,
            );
            return n;
        }
    }
    // The fraction, one decimal at a time as the servers go, but two at once while the
    // second cannot stop the walk: what is left after two digits is at most ten times what
    // is left after one, so a walk that goes on after the second went on after the first.
    // `scale` is 10^(digits after the point), by which the distance to the double is scaled
    // alike. Before each step delta is below `one` (else the walk would have stopped), so
    // it times 10 fits in 64 bits as the servers keep it.
    let mut scale = 1u64;
    loop {
        let hundred = fraction as u128 * 100;
        let rest = hundred as u64 & (one - 1);
        if rest as u128 >= delta as u128 * 100 {
            let pair = (hundred >> shift) as u8;
            digits[n] = b'0' + pair / 10;
            digits[n + 1] = b'0' + pair % 10;
            n += 2;
            *k -= 2;
            fraction = rest;
            delta *= 100;
            scale = scale.wrapping_mul(100);
            continue;
        }
        loop {
            fraction *= 10;
            delta *= 10;
            scale = scale.wrapping_mul(10);
            *k -= 1;
            digits[n] = b'0' + (fraction >> shift) as u8;
            n += 1;
            fraction &= one - 1;
            if fraction < delta {
                let target = to_double.wrapping_mul(scale);
                round_last(&mut digits[..n], delta, fraction, one, target);
                return n;
            }
        }
    }
}

/// The Grisu2 digits of a finite non-zero `x` and the decimal exponent of the last one.
fn digits_of(x: f64, digits: &mut [u8; DIGITS_ROOM]) -> (usize, i32) {
    digits_with(x, digits, generate)
}

type Generate = fn(Fp, Fp, Fp, &mut [u8; DIGITS_ROOM], &mut i32) -> usize;

fn digits_with(x: f64, digits: &mut [u8; DIGITS_ROOM], generate: Generate) -> (usize, i32) {
    let w = Fp::of(x);
    let (lower, upper) = boundaries(w);
    let (power, power_exp) = cached_power(upper.exp);
    let w = w.normalized().times(power);
    let mut upper = upper.times(power);
    let mut lower = lower.times(power);
    lower.frac = lower.frac.wrapping_add(1);
    upper.frac = upper.frac.wrapping_sub(1);
    let mut k = -power_exp;
    let n = generate(w, upper, lower, digits, &mut k);
    (n, k)
}

/// Writes `x` (finite, not zero) as `fpconv_dtoa` does; returns the length (at most 25).
/// `out` must hold 64 bytes: the digits are copied in fixed blocks of 32.
pub(super) fn write(x: f64, out: &mut [u8; 64]) -> usize {
    write_with(x, out, digits_of)
}

fn write_with(
    x: f64,
    out: &mut [u8; 64],
    digits_of: fn(f64, &mut [u8; DIGITS_ROOM]) -> (usize, i32),
) -> usize {
    let mut digits = [0u8; DIGITS_ROOM];
    let (n, k) = digits_of(x, &mut digits);
    let negative = x.is_sign_negative();
    out[0] = b'-';
    let at = negative as usize;
    at + lay_out(&digits, n, k, negative, &mut out[at..at + 60])
}

/// Copies 32 digits from `from` to `out` at `to` (those past the last are never shown).
fn block(out: &mut [u8], to: usize, digits: &[u8; DIGITS_ROOM], from: usize) {
    out[to..to + 32].copy_from_slice(&digits[from..from + 32]);
}

/// The layout of the `n` digits x 10^k (the sign written already).
fn lay_out(digits: &[u8; DIGITS_ROOM], n: usize, k: i32, negative: bool, out: &mut [u8]) -> usize {
    let exp = (k + n as i32 - 1).abs();
    if k >= 0 && exp < n as i32 + 7 {
        // A plain integer: the digits, then k (below 8) zeros.
        block(out, 0, digits, 0);
        out[n..n + 8].fill(b'0');
        return n + k as usize;
    }
    if k < 0 && (k > -7 || exp < 4) {
        let int_len = n as i32 + k;
        if int_len <= 0 {
            // Below 1: "0." and (at most 5) zeros before the digits.
            let zeros = (-int_len) as usize;
            out[0] = b'0';
            out[1] = b'.';
            out[2..10].fill(b'0');
            block(out, 2 + zeros, digits, 0);
            return 2 + zeros + n;
        }
        let int_len = int_len as usize;
        block(out, 0, digits, 0);
        out[int_len] = b'.';
        block(out, int_len + 1, digits, int_len);
        return n + 1;
    }
    // Scientific: at most 18 digits (17 after a minus sign); the exponent's sign is taken
    // from the kept digits, its value from all of them, as the servers do.
    let kept = n.min(18 - negative as usize);
    out[0] = digits[0];
    let mut at = 1;
    if kept > 1 {
        out[1] = b'.';
        block(out, 2, digits, 1);
        at = kept + 1;
    }
    out[at] = b'e';
    out[at + 1] = if k + kept as i32 - 1 < 0 { b'-' } else { b'+' };
    at += 2;
    let hundreds = exp / 100;
    let tens = exp % 100 / 10;
    if hundreds > 0 {
        out[at] = b'0' + hundreds as u8;
        at += 1;
    }
    if tens > 0 || hundreds > 0 {
        out[at] = b'0' + tens as u8;
        at += 1;
    }
    out[at] = b'0' + (exp % 10) as u8;
    at + 1
}

/// The digit walk written plainly, one digit per step from 10^9 down as the servers walk,
/// for the tests to hold the shortcuts of [`generate`] against.
#[cfg(test)]
pub(super) fn write_plain(x: f64, out: &mut [u8; 64]) -> usize {
    fn generate_plain(
        w: Fp,
        upper: Fp,
        lower: Fp,
        digits: &mut [u8; DIGITS_ROOM],
        k: &mut i32,
    ) -> usize {
        let to_double = upper.frac - w.frac;
        let mut delta = upper.frac - lower.frac;
        let shift = (-upper.exp) as u32;
        let one = 1u64 << shift;
        let mut integral = upper.frac >> shift;
        let mut fraction = upper.frac & (one - 1);
        let mut n = 0;
        for kappa in (0..10).rev() {
            let div = 10u64.pow(kappa);
            let digit = integral / div;
            if digit != 0 || n != 0 {
                digits[n] = b'0' + digit as u8;
                n += 1;
            }
            integral -= digit * div;
            let rem = (integral << shift) + fraction;
            if rem <= delta {
                *k += kappa as i32;
                round_last(&mut digits[..n], delta, rem, div << shift, to_double);
                return n;
            }
        }
        let mut places = 0;
        loop {
            fraction = fraction.wrapping_mul(10);
            delta = delta.wrapping_mul(10);
            places += 1;
            let digit = fraction >> shift;
            if digit != 0 || n != 0 {
                digits[n] = b'0' + digit as u8;
                n += 1;
            }
            fraction &= one - 1;
            if fraction < delta {
                *k -= places;
                let target = to_double.wrapping_mul(10u64.wrapping_pow(places as u32));
                round_last(&mut digits[..n], delta, fraction, one, target);
                return n;
            }
        }
    }
    write_with(x, out, |x, digits| digits_with(x, digits, generate_plain))
}
