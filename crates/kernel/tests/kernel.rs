//! The kernel's own tests, as an integration test: they link the kernel compiled once (a
//! unit-test harness would compile every copy of it a second time). What they check is what
//! makes one compiled copy as good as another: every instruction set and every block width of
//! the entry points gives the same bits, lane by lane; the sixth without a division is the
//! division; only an instruction set the processor has can be selected. The values the kernel
//! computes for real games are checked by the core's and the workspace's tests (brute force on
//! reduced games, the published values).

use rayon::prelude::*;
use yahtzee_kernel::lattice::{Lattice, Space};
use yahtzee_kernel::simd::{Isa, Simd};
use yahtzee_kernel::{
    BoxMask, Duo, DuoPack, KeepArray, Kernel, Layer, PACK, Plan, Real, ScoreTable,
};

/// A small deterministic generator (xorshift).
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value in [0, 1), with some values repeated (the maxima's ties).
    fn unit(&mut self) -> f64 {
        (self.next() % 997) as f64 / 997.0
    }
}

/// A game of `space`'s dice and `rolls` rolls a turn: the six upper boxes (the face's count
/// times the face), a Chance (the sum, which adds its points) and a five-of-a-kind box (50).
fn score_table(space: Space, rolls: u8) -> ScoreTable {
    let lattice = Lattice::get();
    let mut points = vec![Vec::new(); 8];
    let mut five = Vec::new();
    for roll in space.first_roll()..space.multisets() {
        let counts = lattice.counts[roll];
        for face in 0..6 {
            points[face].push(counts[face] * (face as u8 + 1));
        }
        let sum: u8 = (0..6).map(|f| counts[f] * (f as u8 + 1)).sum();
        points[6].push(sum);
        let kind = counts.iter().any(|&c| c >= 5);
        points[7].push(if kind { 50 } else { 0 });
        five.push(kind);
    }
    let adds: BoxMask = 1 << 6;
    ScoreTable::new(space, rolls, points, five, adds)
}

/// Makes the lanes of a row.
trait Lanes: Kernel {
    fn random(random: &mut Random) -> Self;
    /// The lanes one element holds.
    const PER: usize;
    fn mean_bits(mean: Self::Mean, l: usize) -> (u64, u64);
}

impl Lanes for f64 {
    fn random(random: &mut Random) -> f64 {
        random.unit() * 300.0
    }
    const PER: usize = 1;
    fn mean_bits(mean: f64, _: usize) -> (u64, u64) {
        (mean.to_bits(), 0)
    }
}

impl Lanes for f32 {
    fn random(random: &mut Random) -> f32 {
        random.unit() as f32
    }
    const PER: usize = 1;
    fn mean_bits(mean: f64, _: usize) -> (u64, u64) {
        (mean.to_bits(), 0)
    }
}

impl Lanes for Duo<f64> {
    fn random(random: &mut Random) -> Duo<f64> {
        Duo {
            value: random.unit(),
            tie: random.unit() / 10.0,
        }
    }
    const PER: usize = 1;
    fn mean_bits(mean: (f64, f64), _: usize) -> (u64, u64) {
        (mean.0.to_bits(), mean.1.to_bits())
    }
}

impl Lanes for DuoPack {
    fn random(random: &mut Random) -> DuoPack {
        DuoPack {
            value: std::array::from_fn(|_| random.unit() as f32),
            tie: std::array::from_fn(|_| random.unit() as f32 / 10.0),
        }
    }
    const PER: usize = PACK;
    fn mean_bits(mean: Self::Mean, l: usize) -> (u64, u64) {
        (mean.0[l].to_bits(), mean.1[l].to_bits())
    }
}

/// A plan of `elements` elements a row for the game of `scores`: the upper boxes and the
/// five-of-a-kind box ranked (a row per points), the Chance added (one row), random values;
/// with `policy`, a policy's keeps instead of the best ones.
fn make_plan<T: Lanes>(scores: &ScoreTable, elements: usize, policy: bool, seed: u64) -> Plan<T> {
    let mut random = Random(seed);
    let mut plan = Plan::new();
    plan.begin(elements, scores.max_rows);
    for c in 0..8 {
        let first = plan.rows_made();
        let rows = if scores.adds & (1 << c) != 0 {
            plan.added.push((c as u8, first));
            1
        } else {
            plan.ranked.push((c as u8, first));
            scores.distinct[c].len()
        };
        for _ in 0..rows {
            plan.push_row((0..elements).map(|_| T::random(&mut random)));
        }
    }
    if policy {
        let lattice = Lattice::get();
        let (first_roll, rolls) = (scores.dice.first_roll(), scores.dice.rolls());
        let layers = usize::from(scores.rolls).saturating_sub(1);
        let keeps = (0..layers * rolls).map(|i| {
            let roll = first_roll + i % rolls;
            // Stop on some rolls, keep a die fewer on the others.
            if random.next().is_multiple_of(3) {
                roll as u16
            } else {
                lattice.remove[lattice.remove_start[roll] as usize]
            }
        });
        plan.follow_keeps(scores.dice, keeps);
    }
    plan
}

/// The opening means of every lane of a plan of `elements` elements, solved in blocks of
/// `width` elements compiled for `simd` (with the rows read from `u0`, or plans one block
/// wide): the bits of each lane's mean.
fn solve_all<T: Lanes>(
    scores: &ScoreTable,
    plan: &Plan<T>,
    elements: usize,
    (simd, width): (Simd, usize),
) -> Vec<(u64, u64)> {
    let mut keeps = KeepArray::new(32);
    let mut out = Vec::new();
    for u0 in (0..elements).step_by(width) {
        T::solve(simd, width, &mut keeps, plan, scores, u0, &mut out);
    }
    out.iter()
        .flat_map(|&m| (0..T::PER).map(move |l| T::mean_bits(m, l)))
        .collect()
}

/// Every instruction set of this processor, with every width of its table, and the baseline
/// with every width of the baseline's table.
fn copies<T: Kernel>() -> Vec<(Simd, usize)> {
    let mut copies: Vec<(Simd, usize)> = Simd::available()
        .into_iter()
        .flat_map(|simd| T::widths(simd).iter().map(move |&w| (simd, w)))
        .collect();
    copies.extend(
        T::widths(Simd::BASELINE)
            .iter()
            .map(|&w| (Simd::BASELINE, w)),
    );
    copies.sort_by_key(|&(s, w)| (format!("{:?}", s.isa()), w));
    copies.dedup();
    copies
}

fn every_copy_gives_the_same_bits<T: Lanes>() {
    let elements = 32 / T::PER.min(32);
    let elements = elements.max(2);
    for space in [Space::FIVE, Space::SIX] {
        for rolls in [1, 2, 3, 4] {
            let scores = score_table(space, rolls);
            for policy in [false, true] {
                let plan = make_plan::<T>(&scores, elements, policy, 7 + u64::from(rolls));
                let copies = copies::<T>();
                let solved: Vec<Vec<(u64, u64)>> = copies
                    .iter()
                    .map(|&c| solve_all(&scores, &plan, elements, c))
                    .collect();
                for (c, s) in copies.iter().zip(&solved) {
                    assert!(
                        *s == solved[0],
                        "{} {space:?} {rolls} rolls, policy {policy}: {c:?} differs from {:?}",
                        std::any::type_name::<T>(),
                        copies[0]
                    );
                }
                // And a plan exactly one block wide, as the vector solves make them.
                for &(simd, width) in &copies {
                    let narrow = make_plan::<T>(&scores, width, policy, 7 + u64::from(rolls));
                    let mut keeps = KeepArray::new(32);
                    let mut one = Vec::new();
                    T::solve(simd, width, &mut keeps, &narrow, &scores, 0, &mut one);
                    let mut base = Vec::new();
                    let mut keeps = KeepArray::new(32);
                    let w = *T::widths(Simd::BASELINE).last().unwrap();
                    for u0 in (0..width).step_by(w) {
                        T::solve(
                            Simd::BASELINE,
                            w,
                            &mut keeps,
                            &narrow,
                            &scores,
                            u0,
                            &mut base,
                        );
                    }
                    let bits = |v: &[T::Mean]| -> Vec<(u64, u64)> {
                        v.iter()
                            .flat_map(|&m| (0..T::PER).map(move |l| T::mean_bits(m, l)))
                            .collect()
                    };
                    assert!(bits(&one) == bits(&base), "{simd:?} {width} one block wide");
                }
            }
        }
    }
}

#[test]
fn every_copy_of_the_f64_solve_gives_the_same_bits() {
    every_copy_gives_the_same_bits::<f64>();
}

#[test]
fn every_copy_of_the_f32_solve_gives_the_same_bits() {
    every_copy_gives_the_same_bits::<f32>();
}

#[test]
fn every_copy_of_the_pack_solve_gives_the_same_bits() {
    every_copy_gives_the_same_bits::<DuoPack>();
}

#[test]
fn every_copy_of_the_exact_duo_solve_gives_the_same_bits() {
    every_copy_gives_the_same_bits::<Duo<f64>>();
}

/// The layers of [`yahtzee_kernel::turn`]: every copy gives the same bits in every lane, and
/// a turn's opening layer is the solve's mean's input (the solve's mean is the layer's mean).
#[test]
fn every_copy_of_the_turn_gives_the_same_layers() {
    for space in [Space::FIVE, Space::SIX] {
        for rolls in [1, 3, 4] {
            let scores = score_table(space, rolls);
            let plan = make_plan::<f64>(&scores, 16, false, 99);
            let layers = |simd: Simd, width: usize| -> Vec<(Layer, Vec<u64>)> {
                let mut keeps = KeepArray::new(32);
                // Lane by lane: each layer's entries of lane `l` for every lane in order.
                let mut by_lane: Vec<Vec<(Layer, Vec<u64>)>> = Vec::new();
                for u0 in (0..16).step_by(width) {
                    let mut layers = Vec::new();
                    yahtzee_kernel::turn(
                        simd,
                        width,
                        &mut keeps,
                        &plan,
                        &scores,
                        u0,
                        Layer::Opening,
                        &mut |layer, k| layers.push((layer, k.to_vec())),
                    );
                    for l in 0..width {
                        by_lane.push(
                            layers
                                .iter()
                                .map(|(layer, k)| {
                                    (
                                        *layer,
                                        k.iter()
                                            .skip(l)
                                            .step_by(width)
                                            .map(|v| v.to_bits())
                                            .collect(),
                                    )
                                })
                                .collect(),
                        );
                    }
                }
                by_lane.into_iter().flatten().collect()
            };
            let reference = layers(Simd::BASELINE, 1);
            let mut copies = vec![(Simd::BASELINE, 16), (Simd::BASELINE, 8)];
            copies.extend(Simd::available().into_iter().map(|s| (s, 8)));
            for (simd, width) in copies {
                assert!(
                    layers(simd, width) == reference,
                    "{space:?} {rolls} rolls: {simd:?} {width}"
                );
            }
        }
    }
}

/// Each solve's table of widths is its widest first and holds the narrowest block (8 lanes)
/// of a vector's tail, and no instruction set lists a copy the processor cannot run.
#[test]
fn widths_are_listed_widest_first() {
    for simd in Simd::available() {
        for widths in [
            f64::widths(simd),
            f32::widths(simd),
            DuoPack::widths(simd),
            <Duo<f64>>::widths(simd),
        ] {
            assert!(!widths.is_empty());
            assert!(widths.windows(2).all(|w| w[0] > w[1]), "{widths:?}");
        }
        assert!(f32::widths(simd).contains(&8));
    }
}

/// Every `f32` from 2^-125 to 2^20 (the values the kernel divides are chances in [0, 1]
/// and scores below 2,000), and their negatives for a sample: the sixth without a
/// division has the bits of the division.
#[test]
fn sixth_of_f32_is_the_rounded_quotient() {
    let sixth = <f32 as Real>::sixth;
    let mismatches: u64 = (2u32..=147)
        .into_par_iter()
        .map(|exponent| {
            let mut bad = 0;
            for mantissa in 0..1u32 << 23 {
                let x = f32::from_bits(exponent << 23 | mantissa);
                bad += u64::from(sixth(x).to_bits() != (x / 6.0).to_bits());
                if mantissa % 1024 == 0 {
                    bad += u64::from(sixth(-x).to_bits() != (-x / 6.0).to_bits());
                }
            }
            bad
        })
        .sum();
    assert_eq!(mismatches, 0);
    for x in [0.0f32, 1.0, 0.5, 1.0 / 3.0, 7776.0, 1e-30] {
        assert_eq!(sixth(x).to_bits(), (x / 6.0).to_bits(), "{x}");
    }
    // -0 gives +0, the same number (no value of the kernel is negative).
    assert_eq!(sixth(-0.0), 0.0);
}

/// Regression: `Simd` and `SolveOptions` were public with public variants, so safe code
/// could select AVX-512 on a processor without it (undefined behaviour). Now a `Simd` is
/// made only for an instruction set the processor has.
#[test]
fn unsupported_simd_level_cannot_be_constructed() {
    for isa in [Isa::Avx512, Isa::Avx2, Isa::Baseline] {
        assert_eq!(Simd::new(isa).is_some(), isa.is_present(), "{isa:?}");
    }
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        Simd::new(Isa::Avx512).is_some(),
        std::arch::is_x86_feature_detected!("avx512f")
    );
    assert!(Simd::available().contains(&Simd::detect()));
    assert_eq!(Simd::new(Isa::Baseline), Some(Simd::BASELINE));
}

/// The instruction sets' names, as `$YAHTZEE_SIMD` gives them, name each.
#[test]
fn instruction_sets_are_named() {
    for isa in [Isa::Avx512, Isa::Avx2, Isa::Baseline] {
        assert_eq!(Isa::named(isa.name()), Some(isa));
    }
    assert_eq!(Isa::named("sse9"), None);
    assert_eq!(Isa::named("AVX2"), None);
}

/// A sum of squares.
#[inline(always)]
fn sum_of_squares(xs: &[f64]) -> f64 {
    xs.iter().map(|x| x * x).sum()
}

yahtzee_kernel::simd_dispatch! {
    /// [`sum_of_squares`] compiled for each instruction set.
    fn sum_of_squares_on[](xs: &[f64]) -> f64 {
        sum_of_squares
    }
}

/// Every instruction set of this processor gives the same bits through the dispatch macro.
#[test]
fn every_instruction_set_runs_a_task_to_the_same_bits() {
    let xs: Vec<f64> = (0..1000).map(|i| f64::from(i) / 7.0).collect();
    let bits: Vec<u64> = Simd::available()
        .into_iter()
        .map(|simd| sum_of_squares_on(simd, (&xs,)).to_bits())
        .collect();
    assert!(bits.windows(2).all(|w| w[0] == w[1]), "{bits:?}");
}
