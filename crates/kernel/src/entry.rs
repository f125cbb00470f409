//! The kernel's entry points: the only functions that run a turn, each compiled here once for
//! each lane type, block width and instruction set in the tables below, and nowhere else.
//!
//! A turn's hot loops (`turn.rs`) are generic and `#[inline(always)]`: they become machine
//! code only inside the copies made here, one per line of a table. Nothing in them is
//! generic to a caller: [`Kernel::solve`] and [`turn`] take the block width and the
//! instruction set as values and pick the copy, so the core library, the front ends and the
//! tests link this crate's code and never compile a kernel again (a generic kernel was
//! compiled in every crate that called it, up to four times in the test command).
//!
//! The tables list only the copies that run: the widths a solve of each lane type uses on
//! each instruction set (`results/kernel-crate-2026-12-06.md` measured each choice). A width
//! asked for on an instruction set whose table lacks it runs the baseline copy of that width
//! (the same bits, more slowly); one no table has is a bug, and panics.

use crate::duo::{Duo, DuoPack};
use crate::lattice::Space;
use crate::plan::{KeepArray, Plan, ScoreTable};
use crate::real::Real;
use crate::simd::{Isa, Simd};
use crate::turn::{Layer, opening_mean, run_saved_turn, run_turn, run_turn_of};

/// The copies of one entry: for each width of each instruction set's list, a call of the
/// entry's function compiled for that instruction set (`$avx512`, `$avx2`, `$baseline`,
/// generic over the lane type and width, instantiated only here), and a match on the
/// instruction set and width that picks it.
macro_rules! copies {
    (
        $simd:expr, $width:expr, $args:tt,
        $avx512:ident, $avx2:ident, $baseline:ident, $t:ty,
        avx512: [$($a:literal),*], avx2: [$($b:literal),*], baseline: [$($c:literal),*]
    ) => {
        match ($simd.isa(), $width) {
            $(
                // SAFETY: a `Simd` is only made for an instruction set this processor has.
                #[cfg(target_arch = "x86_64")]
                (Isa::Avx512, $a) => unsafe { $avx512::<$t, $a> $args },
            )*
            $(
                // SAFETY: as above.
                #[cfg(target_arch = "x86_64")]
                (Isa::Avx2, $b) => unsafe { $avx2::<$t, $b> $args },
            )*
            $( (_, $c) => $baseline::<$t, $c> $args, )*
            (isa, width) => panic!(
                "no kernel of {width} lanes of {} for {isa:?}",
                std::any::type_name::<$t>()
            ),
        }
    };
}

/// Defines the three copies of an entry's function `$inner`: for AVX-512, for AVX2 with
/// FMA, and for the baseline (never inlined into the match, so each copy is one function).
macro_rules! isa_copies {
    (
        $inner:ident [$($bound:tt)*] ($($arg:ident: $ty:ty),*):
        $avx512:ident, $avx2:ident, $baseline:ident
    ) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f")]
        fn $avx512<T: $($bound)*, const N: usize>($($arg: $ty),*) {
            $inner::<T, N>($($arg),*)
        }
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        fn $avx2<T: $($bound)*, const N: usize>($($arg: $ty),*) {
            $inner::<T, N>($($arg),*)
        }
        #[inline(never)]
        fn $baseline<T: $($bound)*, const N: usize>($($arg: $ty),*) {
            $inner::<T, N>($($arg),*)
        }
    };
}

/// A lane type the kernel solves in, and its entry point.
pub trait Kernel: Real {
    /// What the opening mean of a lane adds up to: the expected score for `f64`, the wide sum
    /// of the lane's parts for the others.
    type Mean: Copy + Send;

    /// The block widths compiled for `simd`, widest first. A solve covers its lanes with
    /// blocks of these widths; any other width is compiled for the baseline only, if at all.
    fn widths(simd: Simd) -> &'static [usize];

    /// The whole turn of a block of `width` lanes, those from `u0` of the plan's rows, and
    /// its opening mean over the first roll: `width` means appended to `out`. For `f64`, the
    /// mean by the rolls' probabilities (the expected score's); for the others, by their
    /// numbers of ways, summed in runs in the lane's type and in `f64` across them.
    #[allow(clippy::too_many_arguments)]
    fn solve(
        simd: Simd,
        width: usize,
        keeps: &mut KeepArray<Self>,
        plan: &Plan<Self>,
        scores: &ScoreTable,
        u0: usize,
        out: &mut Vec<Self::Mean>,
    );
}

/// The layers of one turn of a block of `width` lanes of `f64`, those from `u0` of the plan's
/// rows, up to `last`: `visit(layer, entries)` sees each layer's entries, one per multiset,
/// each `width` lanes side by side. What advice, statistics and the game read of a turn.
#[allow(clippy::too_many_arguments)]
pub fn turn(
    simd: Simd,
    width: usize,
    keeps: &mut KeepArray<f64>,
    plan: &Plan<f64>,
    scores: &ScoreTable,
    u0: usize,
    last: Layer,
    visit: &mut dyn FnMut(Layer, &[f64]),
) {
    // One state's turn, an advice query's, in the game of most queries (five dice, three
    // rolls): a copy with those constants, a few percent faster than the general one (the
    // query takes microseconds; results/kernel-crate-2026-12-06.md).
    if width == 1 && scores.dice == Space::FIVE && scores.rolls == 3 {
        return five_dice_three_rolls(keeps, plan, scores, u0, last, visit);
    }
    copies!(
        simd, width, (keeps, plan, scores, u0, last, visit),
        turn_avx512, turn_avx2, turn_baseline, f64,
        avx512: [8], avx2: [8], baseline: [16, 8, 1]
    )
}

/// What a query's turn under saved rolls shows of each layer ([`saved_turn`]): the re-rolls
/// left and the layer's entries.
pub type LayerVisit<'v, T> = &'v mut dyn FnMut(usize, &[T]);

/// A turn under the rule of saved rolls of a block of `width` lanes of `f64`, those from
/// `u0` of the plans' rows: `plans[r]` holds the rows of the successors with `r` rolls saved,
/// from none to the most re-rolls this turn may have. For each number of rolls saved `s` at
/// the start of the turn (0 to `plans.len() - rolls`), the opening mean of each lane (the
/// expected score) is appended to `out`: `width` values for `s = 0`, then for `s = 1`, and so
/// on. `spare` is a second keep array, for the values of scoring now. With `visit`, a query's
/// turn: `visit(r, entries)` sees each layer of `r` re-rolls left, `r` from 0 (one entry per
/// multiset, `width` lanes side by side: the keeps' values with `r` re-rolls left, and the
/// rolls' values of scoring now).
#[allow(clippy::too_many_arguments)]
pub fn saved_turn(
    simd: Simd,
    width: usize,
    keeps: &mut KeepArray<f64>,
    spare: &mut KeepArray<f64>,
    plans: &[Plan<f64>],
    scores: &ScoreTable,
    u0: usize,
    out: &mut Vec<f64>,
    visit: Option<LayerVisit<'_, f64>>,
) {
    copies!(
        simd, width, (keeps, spare, plans, scores, u0, out, visit),
        saved_avx512, saved_avx2, saved_baseline, f64,
        avx512: [32, 8], avx2: [16, 8], baseline: [16, 8, 1]
    )
}

/// [`saved_turn`] with `N` lanes.
#[inline(always)]
fn saved_in<T: OpeningMean<Mean = f64>, const N: usize>(
    keeps: &mut KeepArray<T>,
    spare: &mut KeepArray<T>,
    plans: &[Plan<T>],
    scores: &ScoreTable,
    u0: usize,
    out: &mut Vec<f64>,
    mut visit: Option<LayerVisit<'_, T>>,
) {
    let (k, spare) = (keeps.block::<N>(), spare.block::<N>());
    let multisets = scores.dice.multisets();
    run_saved_turn(
        k,
        spare,
        plans,
        scores,
        u0,
        |r, k| {
            if let Some(visit) = visit.as_mut() {
                visit(r, k[..multisets].as_flattened());
            }
        },
        |_, k| out.extend_from_slice(&T::opening(k, scores)),
    );
}

isa_copies!(
    saved_in[OpeningMean<Mean = f64>](
        keeps: &mut KeepArray<T>,
        spare: &mut KeepArray<T>,
        plans: &[Plan<T>],
        scores: &ScoreTable,
        u0: usize,
        out: &mut Vec<f64>,
        visit: Option<LayerVisit<'_, T>>
    ): saved_avx512, saved_avx2, saved_baseline
);

/// [`turn`]'s one-lane copy for five dice and three rolls a turn.
#[inline(never)]
fn five_dice_three_rolls(
    keeps: &mut KeepArray<f64>,
    plan: &Plan<f64>,
    scores: &ScoreTable,
    u0: usize,
    last: Layer,
    visit: &mut dyn FnMut(Layer, &[f64]),
) {
    let k = keeps.block::<1>();
    run_turn_of(k, plan, scores, (Space::FIVE, 3), u0, last, |layer, k| {
        visit(layer, k.as_flattened())
    });
}

/// [`turn`] with `N` lanes: the layers handed to `visit` flat.
#[inline(always)]
fn turn_in<T: Real, const N: usize>(
    keeps: &mut KeepArray<T>,
    plan: &Plan<T>,
    scores: &ScoreTable,
    u0: usize,
    last: Layer,
    visit: &mut dyn FnMut(Layer, &[T]),
) {
    let k = keeps.block::<N>();
    run_turn(k, plan, scores, u0, last, |layer, k| {
        visit(layer, k.as_flattened())
    });
}

/// [`Kernel::solve`] with `N` lanes.
#[inline(always)]
fn solve_in<T: OpeningMean, const N: usize>(
    keeps: &mut KeepArray<T>,
    plan: &Plan<T>,
    scores: &ScoreTable,
    u0: usize,
    out: &mut Vec<T::Mean>,
) {
    let k = keeps.block::<N>();
    run_turn(k, plan, scores, u0, Layer::Opening, |_, _| {});
    out.extend_from_slice(&T::opening(k, scores));
}

/// The opening mean of each lane type ([`Kernel::solve`]).
trait OpeningMean: Kernel {
    fn opening<const N: usize>(k: &[[Self; N]], scores: &ScoreTable) -> [Self::Mean; N];
}

impl OpeningMean for f64 {
    /// The probability-weighted mean of the rolls' values (the expected score's).
    #[inline(always)]
    fn opening<const N: usize>(k: &[[f64; N]], scores: &ScoreTable) -> [f64; N] {
        let dice = scores.dice;
        let rolls = &k[dice.first_roll()..dice.multisets()];
        let mut total = [0.0; N];
        for (v, p) in rolls.iter().zip(&scores.roll_probability) {
            for l in 0..N {
                total[l] += p * v[l];
            }
        }
        total
    }
}

macro_rules! by_ways {
    ($($t:ty),*) => {$(
        impl OpeningMean for $t {
            /// The mean by the rolls' numbers of ways ([`opening_mean`]).
            #[inline(always)]
            fn opening<const N: usize>(k: &[[$t; N]], scores: &ScoreTable) -> [Self::Mean; N] {
                opening_mean(k, scores.dice)
            }
        }
    )*};
}
by_ways!(f32, DuoPack, Duo<f64>);

isa_copies!(
    turn_in[Real](
        keeps: &mut KeepArray<T>,
        plan: &Plan<T>,
        scores: &ScoreTable,
        u0: usize,
        last: Layer,
        visit: &mut dyn FnMut(Layer, &[T])
    ): turn_avx512, turn_avx2, turn_baseline
);

isa_copies!(
    solve_in[OpeningMean](
        keeps: &mut KeepArray<T>,
        plan: &Plan<T>,
        scores: &ScoreTable,
        u0: usize,
        out: &mut Vec<T::Mean>
    ): solve_avx512, solve_avx2, solve_baseline
);

/// The [`Kernel`] of a lane type: its widths on each instruction set, and the copies of its
/// solve for them.
macro_rules! kernel {
    (
        $t:ty, mean $mean:ty,
        avx512: [$($a:literal),*], avx2: [$($b:literal),*], baseline: [$($c:literal),*]
    ) => {
        impl Kernel for $t {
            type Mean = $mean;

            fn widths(simd: Simd) -> &'static [usize] {
                const AVX512: &[usize] = &[$($a),*];
                const AVX2: &[usize] = &[$($b),*];
                const BASELINE: &[usize] = &[$($c),*];
                match simd.isa() {
                    Isa::Avx512 if !AVX512.is_empty() => AVX512,
                    Isa::Avx2 if !AVX2.is_empty() => AVX2,
                    _ => BASELINE,
                }
            }

            fn solve(
                simd: Simd,
                width: usize,
                keeps: &mut KeepArray<$t>,
                plan: &Plan<$t>,
                scores: &ScoreTable,
                u0: usize,
                out: &mut Vec<$mean>,
            ) {
                copies!(
                    simd, width, (keeps, plan, scores, u0, out),
                    solve_avx512, solve_avx2, solve_baseline, $t,
                    avx512: [$($a),*], avx2: [$($b),*], baseline: [$($c),*]
                )
            }
        }
    };
}

// The expected score: the states of a card in blocks of four registers (32 lanes with
// AVX-512, 16 with AVX2), the card's last lanes in blocks of 8; a game without an upper bonus
// has one state a card (1 lane).
kernel!(f64, mean f64, avx512: [32, 8], avx2: [16, 8], baseline: [16, 8, 1]);
// The vector objectives: 32 lanes, a vector's last ones in 16 or 8 (the baseline too: in
// blocks of 8 alone, Yahtzee's target table took ten times as long as with AVX-512).
kernel!(f32, mean f64, avx512: [32, 16, 8], avx2: [32, 16, 8], baseline: [32, 16, 8]);
// The game of two with ties: packs of 16 lanes, two or one a block.
kernel!(DuoPack, mean ([f64; crate::duo::PACK], [f64; crate::duo::PACK]),
    avx512: [2, 1], avx2: [2, 1], baseline: [2, 1]);
// The exact checks of the game of two with ties (tests only): the baseline.
kernel!(Duo<f64>, mean (f64, f64), avx512: [], avx2: [], baseline: [8]);
