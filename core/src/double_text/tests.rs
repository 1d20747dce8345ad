use super::powers::{decimal_exponent, POWERS};
use super::{write, Style, MAX_LEN};
use crate::testkit::Rng;

fn text(style: Style, x: f64) -> String {
    let mut buf = [0u8; MAX_LEN];
    let n = write(style, x, &mut buf);
    String::from_utf8(buf[..n].to_vec()).expect("ascii")
}

/// A non-negative integer as little-endian 64-bit limbs, just enough to compute powers of
/// ten exactly.
#[derive(Clone)]
struct Big(Vec<u64>);

impl Big {
    fn one() -> Big {
        Big(vec![1])
    }

    fn mul_small(&mut self, m: u64) {
        let mut carry = 0u128;
        for limb in &mut self.0 {
            let v = *limb as u128 * m as u128 + carry;
            *limb = v as u64;
            carry = v >> 64;
        }
        if carry > 0 {
            self.0.push(carry as u64);
        }
    }

    fn div_small(&mut self, d: u64) {
        let mut rem = 0u128;
        for limb in self.0.iter_mut().rev() {
            let v = (rem << 64) | *limb as u128;
            *limb = (v / d as u128) as u64;
            rem = v % d as u128;
        }
        while self.0.len() > 1 && self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn bits(&self) -> u32 {
        let top = *self.0.last().expect("limb");
        (self.0.len() as u32 - 1) * 64 + (64 - top.leading_zeros())
    }

    fn bit(&self, i: u32) -> bool {
        self.0
            .get((i / 64) as usize)
            .is_some_and(|l| (l >> (i % 64)) & 1 == 1)
    }

    fn pow2(s: u32) -> Big {
        let mut v = vec![0u64; (s / 64 + 1) as usize];
        v[(s / 64) as usize] = 1 << (s % 64);
        Big(v)
    }

    /// Bits `from .. from + 64`.
    fn window(&self, from: u32) -> u64 {
        (0..64).fold(0u64, |acc, i| acc | (self.bit(from + i) as u64) << i)
    }
}

/// 10^p as a 64-bit significand with its top bit set, rounded to nearest, and the binary
/// exponent, from exact integers.
fn exact_power(p: i32) -> (u64, i32) {
    let mut ten = Big::one();
    for _ in 0..p.unsigned_abs() {
        ten.mul_small(10);
    }
    if p >= 0 {
        let bits = ten.bits();
        if bits <= 64 {
            let frac = ten.window(0);
            let shift = frac.leading_zeros();
            return (frac << shift, -(shift as i32));
        }
        let e = bits - 64;
        let frac = ten.window(e);
        // No tie is possible: 10^p has only p factors of two, fewer than the e dropped bits.
        let up = ten.bit(e - 1);
        return (frac + up as u64, e as i32);
    }
    // 2^s / 10^q lies in (2^63, 2^64) for s = bits(10^q) + 63; one more bit decides the
    // rounding (no tie: 10^q has a factor of five).
    let s = ten.bits() + 63;
    let mut twice = Big::pow2(s + 1);
    for _ in 0..p.unsigned_abs() {
        twice.div_small(10);
    }
    let t = twice.window(0) as u128 | (twice.bit(64) as u128) << 64;
    let frac = t.div_ceil(2);
    assert!((1 << 63..1 << 64).contains(&frac), "10^{p}");
    (frac as u64, -(s as i32))
}

#[test]
fn cached_powers_are_the_exact_powers_of_ten_rounded() {
    for (i, &entry) in POWERS.iter().enumerate() {
        let p = decimal_exponent(i);
        assert_eq!(entry, exact_power(p), "10^{p}");
    }
    assert_eq!(decimal_exponent(0), -348);
    assert_eq!(decimal_exponent(POWERS.len() - 1), 340);
}

/// `(double, d2string's text, %.17g's text)`, the texts as Redis 8.2.3 and Valkey 9.1.2
/// (d2string), and Redis 7.0.15 (%.17g) answered ZSCORE for these scores.
const KNOWN: &[(f64, &str, &str)] = &[
    // Grisu2's digits where they are not the shortest (7.980298641382704e-261 reads back).
    (
        7.980298641382704e-261,
        "7.9802986413827035e-261",
        "7.9802986413827035e-261",
    ),
    (
        4.495348747235019e266,
        "4.4953487472350193e+266",
        "4.4953487472350193e+266",
    ),
    (
        1.8807883153007e-199,
        "1.8807883153007001e-199",
        "1.8807883153007001e-199",
    ),
    (1e21, "1e+21", "1e+21"),
    (1e22, "1e+22", "1e+22"),
    (1e-7, "1e-7", "9.9999999999999995e-08"),
    (1e-6, "0.000001", "9.9999999999999995e-07"),
    (1e-5, "0.00001", "1.0000000000000001e-05"),
    (1e-4, "0.0001", "0.0001"),
    (
        1.2345678901234568e20,
        "123456789012345680000",
        "1.2345678901234568e+20",
    ),
    (
        9223372036854775808.0,
        "9223372036854776000",
        "9.2233720368547758e+18",
    ),
    (
        -9223372036854775808.0,
        "-9223372036854776000",
        "-9.2233720368547758e+18",
    ),
    // 2^62, the last integer written as one, and the double after it.
    (
        4611686018427387904.0,
        "4611686018427387904",
        "4.6116860184273879e+18",
    ),
    (
        4611686018427388928.0,
        "4611686018427389000",
        "4.6116860184273889e+18",
    ),
    (5e-324, "5e-324", "4.9406564584124654e-324"),
    (
        2.2250738585072014e-308,
        "2.2250738585072014e-308",
        "2.2250738585072014e-308",
    ),
    (
        f64::MAX,
        "1.7976931348623157e+308",
        "1.7976931348623157e+308",
    ),
    (0.1, "0.1", "0.10000000000000001"),
    (
        0.30000000000000004,
        "0.30000000000000004",
        "0.30000000000000004",
    ),
    (100.5, "100.5", "100.5"),
    (-1.5e-10, "-1.5e-10", "-1.5e-10"),
    (1e100, "1e+100", "1e+100"),
    (
        1.2345678901234567e23,
        "123456789012345670000000",
        "1.2345678901234567e+23",
    ),
    (
        1.2345678901234567e24,
        "1.2345678901234568e+24",
        "1.2345678901234568e+24",
    ),
    (123.456, "123.456", "123.456"),
    (-0.0, "-0", "-0"),
    (0.0, "0", "0"),
    (f64::INFINITY, "inf", "inf"),
    (f64::NEG_INFINITY, "-inf", "-inf"),
];

#[test]
fn known_texts() {
    for &(x, d2string, printf) in KNOWN {
        assert_eq!(text(Style::D2string, x), d2string, "{x:e}");
        assert_eq!(text(Style::Printf17g, x), printf, "{x:e}");
    }
}

#[test]
fn d2string_special_values() {
    for (x, want) in [
        (f64::NAN, "nan"),
        (-f64::NAN, "nan"),
        (1.0, "1"),
        (-1.0, "-1"),
        (-4611686018427387904.0, "-4611686018427387904"),
        (9007199254740993.0, "9007199254740992"),
    ] {
        assert_eq!(text(Style::D2string, x), want, "{x:e}");
    }
}

/// The digit walk's shortcuts (the first digit found at once, two fraction digits a step)
/// give what the plain walk gives.
#[test]
fn grisu_shortcuts_match_the_plain_walk() {
    let mut rng = Rng::new(0x0057_0a1c);
    let mut cases: Vec<f64> = (-1074..1024).map(|e| 2f64.powi(e)).collect();
    for _ in 0..3_000_000 {
        cases.push(f64::from_bits(rng.next_u64()));
    }
    for _ in 0..300_000 {
        cases.push(f64::from_bits(rng.below(1 << 52)));
        cases.push(rng.below(100_000_000) as f64 / 1000.0);
    }
    for x in cases {
        if !x.is_finite() || x == 0.0 {
            continue;
        }
        let (mut fast, mut plain) = ([0u8; 64], [0u8; 64]);
        let n = super::grisu::write(x, &mut fast);
        let m = super::grisu::write_plain(x, &mut plain);
        assert_eq!(fast[..n], plain[..m], "{x:e}");
    }
}

/// Every finite double reads back as itself (Grisu2's guarantee), in at most 17 digits.
#[test]
fn d2string_round_trips() {
    let mut rng = Rng::new(0x5eed_d0b1);
    for _ in 0..2_000_000 {
        let x = f64::from_bits(rng.next_u64());
        if !x.is_finite() {
            continue;
        }
        let t = text(Style::D2string, x);
        let back: f64 = t.parse().expect("parses");
        assert_eq!(back.to_bits(), x.to_bits(), "{t}");
    }
}

extern "C" {
    fn snprintf(buf: *mut libc::c_char, size: usize, format: *const libc::c_char, ...) -> i32;
}

/// glibc's own `%.17g` of `x`.
fn glibc_17g(x: f64) -> String {
    let mut buf = [0u8; 64];
    let n = unsafe { snprintf(buf.as_mut_ptr().cast(), buf.len(), c"%.17g".as_ptr(), x) };
    String::from_utf8(buf[..n as usize].to_vec()).expect("ascii")
}

#[test]
fn printf_17g_is_glibcs() {
    let mut cases = vec![
        0.0,
        -0.0,
        f64::NAN,
        -f64::NAN,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::EPSILON,
        5e-324,
        -5e-324,
        1e-4,
        9.99999999999999e-5,
        1e16,
        1e17,
        99999999999999999.0,
        123456789012345678.0,
        0.1,
        1.0 / 3.0,
    ];
    // Powers of two: some have exactly 18 significant digits ending in 5 (2^-25 is
    // 2.98023223876953125e-8), a tie at the 17th digit.
    for e in -1074..1024 {
        cases.push(2f64.powi(e));
        cases.push(-3.0 * 2f64.powi(e - 2));
    }
    let mut rng = Rng::new(17);
    for _ in 0..300_000 {
        cases.push(f64::from_bits(rng.next_u64()));
        cases.push((rng.next_u64() % 2_000_000) as f64 / 1000.0);
    }
    for x in cases {
        if x.is_infinite() {
            continue; // the servers spell these out before printf
        }
        assert_eq!(
            text(Style::Printf17g, x),
            glibc_17g(x),
            "{:#x}",
            x.to_bits()
        );
    }
    assert_eq!(text(Style::Printf17g, f64::INFINITY), "inf");
    assert_eq!(text(Style::Printf17g, f64::NEG_INFINITY), "-inf");
}
