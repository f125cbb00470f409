//! The numbers the kernel computes in ([`Real`]): `f64` for the expected score, `f32` where
//! the vector objectives' lanes make memory and bandwidth the cost, and the two-player
//! solve's lanes with a tie chance carried beside the value (`crate::duo`).

use std::ops::{Add, Mul};
use std::sync::LazyLock;

use crate::lattice::Lattice;

/// The most points one box may score (a rules file's limit): the kernel holds points as
/// `u8` and adds them from [`Real::POINTS`].
pub const MAX_POINTS: u32 = 100;

/// A floating-point type the kernel computes in (or a value with a companion carried beside
/// it, which the kernel's maxima choose by the value: the two-player solve's `Duo`, in
/// `lane.rs`).
pub trait Real:
    Copy + PartialEq + Add<Output = Self> + Mul<Output = Self> + Send + Sync + 'static
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// Below every value: the start of a maximum.
    const NEG_INFINITY: Self;
    /// The points a box can score (0 to [`MAX_POINTS`]), as values: one load where the
    /// final roll adds them.
    const POINTS: [Self; POINT_VALUES];
    /// A sixth of `self`: the mean over the faces of a die is the sum of the six values
    /// times this. Always the same operation, so the same inputs give the same bits.
    fn sixth(self) -> Self;
    /// The number of ways of throwing each multiset (of 7,776 for the 252 rolls of five dice,
    /// of 46,656 for the 462 of six), by multiset index, in this type (exact: at most 720).
    fn roll_ways() -> &'static [Self];
    /// The nearest value to `x`.
    fn from_f64(x: f64) -> Self;
    /// The value as an `f64` (exact).
    fn to_f64(self) -> f64;
    /// What the opening mean adds up in (the opening mean of a turn): `f64` for a number; a lane
    /// that carries a companion beside its value (a `Duo`, in `lane.rs`) sums both.
    type Wide: Copy;
    /// The sum of no values.
    const WIDE_ZERO: Self::Wide;
    /// `acc + x`, `x` widened exactly.
    fn wide_add(acc: Self::Wide, x: Self) -> Self::Wide;
    /// `acc / d`.
    fn wide_div(acc: Self::Wide, d: f64) -> Self::Wide;
    /// The value of a sum (for a number, the sum itself).
    fn wide_value(acc: Self::Wide) -> f64;
    /// The greater of `a` and `b` (`b` unless `a` is greater): every maximum of the kernel.
    /// For a number a plain comparison (not `f64::max`), which compiles to one `maxpd`: no
    /// value is ever NaN. A lane with a companion compares its values alone.
    fn greater(a: Self, b: Self) -> Self;
}

macro_rules! real {
    ($t:ty, $sixth:ident) => {
        impl Real for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            const NEG_INFINITY: $t = <$t>::NEG_INFINITY;
            const POINTS: [$t; POINT_VALUES] = {
                let mut table = [0.0; POINT_VALUES];
                let mut p = 0;
                while p < POINT_VALUES {
                    table[p] = p as $t;
                    p += 1;
                }
                table
            };
            #[inline(always)]
            fn sixth(self) -> $t {
                $sixth(self)
            }
            fn roll_ways() -> &'static [$t] {
                static WAYS: LazyLock<Vec<$t>> =
                    LazyLock::new(|| Lattice::get().ways.iter().map(|&w| w as $t).collect());
                &WAYS
            }
            #[inline(always)]
            fn from_f64(x: f64) -> $t {
                x as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
            type Wide = f64;
            const WIDE_ZERO: f64 = 0.0;
            #[inline(always)]
            fn wide_add(acc: f64, x: $t) -> f64 {
                acc + f64::from(x)
            }
            #[inline(always)]
            fn wide_div(acc: f64, d: f64) -> f64 {
                acc / d
            }
            #[inline(always)]
            fn wide_value(acc: f64) -> f64 {
                acc
            }
            #[inline(always)]
            fn greater(a: $t, b: $t) -> $t {
                if a > b { a } else { b }
            }
        }
    };
}

/// Entries of [`Real::POINTS`]: 0 to [`MAX_POINTS`].
pub const POINT_VALUES: usize = MAX_POINTS as usize + 1;

/// `x / 6` for `f64`: times the rounded 1/6, one rounding like a division. (Its tiny bias,
/// 1/6 rounded down by 1e-17 relative, is far below anything the expected score reads.)
#[inline(always)]
fn sixth_of_f64(x: f64) -> f64 {
    x * (1.0 / 6.0)
}

/// `x / 6` for `f32`, correctly rounded. `f32`'s rounded 1/6 is 3e-8 too large, a bias the
/// 26 means of a game would add up to 8e-7 (measured: 8.5e-7 on Yacht's target table, which
/// must stay within 1e-6 of exact); the quotient must round to nearest, with no bias.
///
/// Without a division, which was the kernel's slowest instruction (a `vdivps` costs as much
/// as a dozen multiplications and took about a sixth of a solve's time): the product by the
/// rounded 1/6, corrected once by its exact remainder (two fused multiply-adds). That is the
/// correctly rounded quotient, the bits of `x / 6.0`, for every `f32` from 2^-125 up (tested
/// for all of them to 2^20, `sixth_of_f32_is_the_rounded_quotient`); below, where the
/// quotient is subnormal, it can be one unit of 1e-45 away. A fused multiply-add is exactly
/// specified, so every instruction set (or the library's `fmaf`) gives the same bits. (Of
/// -0 it gives +0, the same number: no value of the kernel is negative.)
#[inline(always)]
fn sixth_of_f32(x: f32) -> f32 {
    const SIXTH: f32 = 1.0 / 6.0;
    let q = x * SIXTH;
    let remainder = (-q).mul_add(6.0, x);
    remainder.mul_add(SIXTH, q)
}

real!(f64, sixth_of_f64);
real!(f32, sixth_of_f32);
