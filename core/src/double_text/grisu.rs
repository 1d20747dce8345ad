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

/// Powers of ten from 10^19 down to 10^0.
const TENS: [u64; 20] = {
    let mut t = [1u64; 20];
    let mut i = 19;
    while i > 0 {
        t[i - 1] = t[i] * 10;
        i -= 1;
    }
    t
};

/// Room for the digits: Grisu2 generates at most 17 (the servers keep room for 18).
const MAX_DIGITS: usize = 24;

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

/// The digits of the scaled upper boundary down to where they stay inside the interval,
/// then rounded; returns how many, and adds the decimal exponent of the last one to `k`.
fn generate(w: Fp, upper: Fp, lower: Fp, digits: &mut [u8; MAX_DIGITS], k: &mut i32) -> usize {
    let to_double = upper.frac - w.frac;
    let mut delta = upper.frac - lower.frac;
    let shift = (-upper.exp) as u32;
    let one = 1u64 << shift;
    let mut integral = upper.frac >> shift;
    let mut fraction = upper.frac & (one - 1);
    let mut n = 0;
    let mut kappa = 10;
    // The integral part, 10^9 down to 10^0.
    for &div in &TENS[10..] {
        let digit = integral / div;
        if digit != 0 || n != 0 {
            digits[n] = b'0' + digit as u8;
            n += 1;
        }
        integral -= digit * div;
        kappa -= 1;
        let rem = (integral << shift) + fraction;
        if rem <= delta {
            *k += kappa;
            round_last(&mut digits[..n], delta, rem, div << shift, to_double);
            return n;
        }
    }
    // The fraction, one decimal at a time; `unit` scales the distance to the double alike.
    let mut unit = 18;
    loop {
        fraction = fraction.wrapping_mul(10);
        delta = delta.wrapping_mul(10);
        kappa -= 1;
        let digit = fraction >> shift;
        if digit != 0 || n != 0 {
            digits[n] = b'0' + digit as u8;
            n += 1;
        }
        fraction &= one - 1;
        if fraction < delta {
            *k += kappa;
            round_last(
                &mut digits[..n],
                delta,
                fraction,
                one,
                to_double.wrapping_mul(TENS[unit]),
            );
            return n;
        }
        unit -= 1;
    }
}

/// The Grisu2 digits of a finite non-zero `x` and the decimal exponent of the last one.
fn digits_of(x: f64, digits: &mut [u8; MAX_DIGITS]) -> (usize, i32) {
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

/// Writes `x` (finite, not zero) as `fpconv_dtoa` does; returns the length (at most 26).
pub(super) fn write(x: f64, out: &mut [u8]) -> usize {
    let mut digits = [0u8; MAX_DIGITS];
    let (n, k) = digits_of(x, &mut digits);
    let negative = x.is_sign_negative();
    let mut at = 0;
    if negative {
        out[0] = b'-';
        at = 1;
    }
    at + lay_out(&digits[..n], k, negative, &mut out[at..])
}

/// The layout of `digits` x 10^k (the sign written already).
fn lay_out(digits: &[u8], k: i32, negative: bool, out: &mut [u8]) -> usize {
    let n = digits.len() as i32;
    let exp = (k + n - 1).abs();
    if k >= 0 && exp < n + 7 {
        // A plain integer: the digits, then k zeros.
        out[..digits.len()].copy_from_slice(digits);
        out[digits.len()..digits.len() + k as usize].fill(b'0');
        return digits.len() + k as usize;
    }
    if k < 0 && (k > -7 || exp < 4) {
        let int_len = n + k;
        if int_len <= 0 {
            // Below 1: "0." and zeros before the digits.
            let zeros = (-int_len) as usize;
            out[..2].copy_from_slice(b"0.");
            out[2..2 + zeros].fill(b'0');
            out[2 + zeros..2 + zeros + digits.len()].copy_from_slice(digits);
            return 2 + zeros + digits.len();
        }
        let int_len = int_len as usize;
        out[..int_len].copy_from_slice(&digits[..int_len]);
        out[int_len] = b'.';
        out[int_len + 1..=digits.len()].copy_from_slice(&digits[int_len..]);
        return digits.len() + 1;
    }
    // Scientific: at most 18 digits (17 after a minus sign); the exponent's sign is taken
    // from the kept digits, its value from all of them, as the servers do.
    let kept = digits.len().min(18 - negative as usize);
    let mut at = 0;
    out[at] = digits[0];
    at += 1;
    if kept > 1 {
        out[at] = b'.';
        out[at + 1..at + kept].copy_from_slice(&digits[1..kept]);
        at += kept;
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
