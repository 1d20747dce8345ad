//! The cached powers of ten of the servers' Grisu2 (`deps/fpconv`): 10^k for k = -348, -340,
//! ..., 340, each as a 64-bit significand with its top bit set and a binary exponent, the
//! significand rounded to nearest (the unit tests recompute every entry exactly), and the
//! servers' own way of picking one for a given exponent.

/// The exponent of the first entry, 10^-348.
const FIRST_POWER: i32 = -348;
/// Decimal exponents between neighbouring entries.
const STEP: i32 = 8;
/// The window the product's exponent (`exp + power's exp + 64`) must fall in.
const EXP_MIN: i32 = -60;
const EXP_MAX: i32 = -32;

/// `(significand, binary exponent)` of 10^(FIRST_POWER + STEP * i): the value is
/// significand * 2^exponent, rounded to nearest.
pub(super) const POWERS: [(u64, i32); 87] = [
    (0xfa8fd5a0081c0288, -1220),
    (0xbaaee17fa23ebf76, -1193),
    (0x8b16fb203055ac76, -1166),
    (0xcf42894a5dce35ea, -1140),
    (0x9a6bb0aa55653b2d, -1113),
    (0xe61acf033d1a45df, -1087),
    (0xab70fe17c79ac6ca, -1060),
    (0xff77b1fcbebcdc4f, -1034),
    (0xbe5691ef416bd60c, -1007),
    (0x8dd01fad907ffc3c, -980),
    (0xd3515c2831559a83, -954),
    (0x9d71ac8fada6c9b5, -927),
    (0xea9c227723ee8bcb, -901),
    (0xaecc49914078536d, -874),
    (0x823c12795db6ce57, -847),
    (0xc21094364dfb5637, -821),
    (0x9096ea6f3848984f, -794),
    (0xd77485cb25823ac7, -768),
    (0xa086cfcd97bf97f4, -741),
    (0xef340a98172aace5, -715),
    (0xb23867fb2a35b28e, -688),
    (0x84c8d4dfd2c63f3b, -661),
    (0xc5dd44271ad3cdba, -635),
    (0x936b9fcebb25c996, -608),
    (0xdbac6c247d62a584, -582),
    (0xa3ab66580d5fdaf6, -555),
    (0xf3e2f893dec3f126, -529),
    (0xb5b5ada8aaff80b8, -502),
    (0x87625f056c7c4a8b, -475),
    (0xc9bcff6034c13053, -449),
    (0x964e858c91ba2655, -422),
    (0xdff9772470297ebd, -396),
    (0xa6dfbd9fb8e5b88f, -369),
    (0xf8a95fcf88747d94, -343),
    (0xb94470938fa89bcf, -316),
    (0x8a08f0f8bf0f156b, -289),
    (0xcdb02555653131b6, -263),
    (0x993fe2c6d07b7fac, -236),
    (0xe45c10c42a2b3b06, -210),
    (0xaa242499697392d3, -183),
    (0xfd87b5f28300ca0e, -157),
    (0xbce5086492111aeb, -130),
    (0x8cbccc096f5088cc, -103),
    (0xd1b71758e219652c, -77),
    (0x9c40000000000000, -50),
    (0xe8d4a51000000000, -24),
    (0xad78ebc5ac620000, 3),
    (0x813f3978f8940984, 30),
    (0xc097ce7bc90715b3, 56),
    (0x8f7e32ce7bea5c70, 83),
    (0xd5d238a4abe98068, 109),
    (0x9f4f2726179a2245, 136),
    (0xed63a231d4c4fb27, 162),
    (0xb0de65388cc8ada8, 189),
    (0x83c7088e1aab65db, 216),
    (0xc45d1df942711d9a, 242),
    (0x924d692ca61be758, 269),
    (0xda01ee641a708dea, 295),
    (0xa26da3999aef774a, 322),
    (0xf209787bb47d6b85, 348),
    (0xb454e4a179dd1877, 375),
    (0x865b86925b9bc5c2, 402),
    (0xc83553c5c8965d3d, 428),
    (0x952ab45cfa97a0b3, 455),
    (0xde469fbd99a05fe3, 481),
    (0xa59bc234db398c25, 508),
    (0xf6c69a72a3989f5c, 534),
    (0xb7dcbf5354e9bece, 561),
    (0x88fcf317f22241e2, 588),
    (0xcc20ce9bd35c78a5, 614),
    (0x98165af37b2153df, 641),
    (0xe2a0b5dc971f303a, 667),
    (0xa8d9d1535ce3b396, 694),
    (0xfb9b7cd9a4a7443c, 720),
    (0xbb764c4ca7a44410, 747),
    (0x8bab8eefb6409c1a, 774),
    (0xd01fef10a657842c, 800),
    (0x9b10a4e5e9913129, 827),
    (0xe7109bfba19c0c9d, 853),
    (0xac2820d9623bf429, 880),
    (0x80444b5e7aa7cf85, 907),
    (0xbf21e44003acdd2d, 933),
    (0x8e679c2f5e44ff8f, 960),
    (0xd433179d9c8cb841, 986),
    (0x9e19db92b4e31ba9, 1013),
    (0xeb96bf6ebadf77d9, 1039),
    (0xaf87023b9bf0ee6b, 1066),
];

/// The decimal exponent of entry `i`.
pub(super) fn decimal_exponent(i: usize) -> i32 {
    FIRST_POWER + STEP * i as i32
}

/// The entry the servers multiply by for a boundary whose binary exponent is `exp`, and its
/// decimal exponent. Where two neighbouring entries both land in the window, the servers take
/// the one their estimate reaches first: the estimate (a truncated `-(exp + 87) * log10(2)`)
/// and the walk from it are kept as they are, so the same entry is chosen.
pub(super) fn cached_power(exp: i32) -> ((u64, i32), i32) {
    const LOG10_2: f64 = 0.30102999566398114;
    // C's double-to-int conversion and integer division both truncate toward zero, as `as`
    // and `/` on i32 do.
    let estimate = (-(exp + POWERS.len() as i32) as f64 * LOG10_2) as i32;
    let mut i = (estimate - FIRST_POWER) / STEP;
    loop {
        let product_exp = exp + POWERS[i as usize].1 + 64;
        if product_exp < EXP_MIN {
            i += 1;
        } else if product_exp > EXP_MAX {
            i -= 1;
        } else {
            return (POWERS[i as usize], decimal_exponent(i as usize));
        }
    }
}
