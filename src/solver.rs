//! The dynamic-programming solver: the exact expected future score of every turn-start state
//! under optimal play.
//!
//! States are solved backward, from full cards to the empty card, one depth (number of filled
//! boxes) at a time; the cards of one depth only read values of the next depth, so rayon
//! solves them in parallel, and each card is computed by the same sequential code whatever the
//! thread count, which makes the table bit-identical at any thread count.
//!
//! One *turn* is solved for a whole row of states at once: all upper totals (0 to 63) of one
//! card and Yahtzee-box flag share the same dice, the same keeps and the same boxes, and differ
//! only in which successor value they read. Each quantity is therefore an array of `N` lanes
//! (64, or 1 in rule sets without an upper bonus), which the compiler turns into SIMD code. A
//! turn is:
//!
//! 1. the last roll: for each of the 252 rolls, the best box to fill
//!    ([`score_final_roll`]);
//! 2. the value of each keep, by recursion over one more die: the value of keeping `k` is the
//!    mean over the six faces of keeping `k` plus that face ([`expect_keeps`]), 1,260 additions
//!    per layer instead of 4,368 multiply-adds over the outcome probabilities;
//! 3. the best keep of each roll, as a maximum over the lattice of sub-multisets
//!    ([`best_keeps`]);
//! 4. steps 2 and 3 again for the first re-roll, then the mean over the opening rolls.
//!
//! Values inside a turn are kept "with the upper bonus held": lane 63 carries +35 once the
//! bonus is secured, so moving to a higher upper total is a plain shifted read of the successor
//! row, with no special case for the lane already at 63 (see [`Successors`]).

use std::time::Instant;

use rayon::prelude::*;

use crate::dice::{Dice, FACES, FIRST_ROLL, Lattice, MULTISETS, ROLLS};
use crate::rules::{BoxMask, Rules, UPPER_BONUS, YAHTZEE_BONUS};
use crate::state::{Layout, UPPER_TOTALS};

/// Length of a successor row: 64 upper totals plus room for the largest upper score (30), so a
/// lane `u` reading `u + points` never leaves the row. Lanes past 63 repeat lane 63.
const ROW: usize = 96;
/// The successor slot of the five-of-a-kind box filled with 50 (slots 0..13 are the boxes
/// filled with anything else).
const SLOT_FIFTY: usize = 13;

/// Points of each box for each roll by the box's own condition (no Joker), precomputed once
/// per rule set: `points[box][roll offset]`.
#[derive(Debug)]
pub(crate) struct ScoreTable {
    pub(crate) points: Vec<[u8; ROLLS]>,
    pub(crate) five_of_a_kind: [bool; ROLLS],
}

impl ScoreTable {
    pub(crate) fn new(rules: &Rules) -> ScoreTable {
        let mut points = vec![[0u8; ROLLS]; rules.box_count()];
        let mut five_of_a_kind = [false; ROLLS];
        for (r, dice) in Dice::all().enumerate() {
            for (i, row) in points.iter_mut().enumerate() {
                row[r] = rules.score(i, &dice, 0) as u8;
            }
            five_of_a_kind[r] = dice.five_of_a_kind().is_some();
        }
        ScoreTable {
            points,
            five_of_a_kind,
        }
    }
}

/// Successor values of one card in "bonus held" form: `rows[slot][i]` is the value of the
/// state reached by filling the box of `slot`, at upper total `min(i, 63)`, plus 35 when that
/// total is 63 (in rule sets with an upper bonus). A box scoring `p` in the upper section moves
/// lane `u` to `rows[slot][u + p]`; any other box leaves it at `rows[slot][u]`.
pub(crate) struct Successors {
    rows: [[f64; ROW]; 14],
}

impl Successors {
    pub(crate) fn new() -> Successors {
        Successors {
            rows: [[0.0; ROW]; 14],
        }
    }

    /// Fills the rows for the card `filled` with flag `yahtzee_50` from the solved `values`.
    pub(crate) fn load(
        &mut self,
        rules: &Rules,
        layout: &Layout,
        values: &[f64],
        filled: BoxMask,
        yahtzee_50: bool,
    ) {
        let held = if rules.has_upper_bonus() {
            f64::from(UPPER_BONUS)
        } else {
            0.0
        };
        let open = rules.open_by_order(filled);
        let fifty = rules.five_of_a_kind_box();
        for slot in 0..14 {
            let index = if slot == SLOT_FIFTY { fifty } else { slot };
            if index >= rules.box_count() || open & (1 << index) == 0 {
                continue;
            }
            let next_flag = yahtzee_50 || (slot == SLOT_FIFTY && rules.has_yahtzee_bonus());
            let base = layout.row(filled | (1 << index), next_flag);
            let row = &mut self.rows[slot];
            if layout.lanes == UPPER_TOTALS {
                let last = UPPER_TOTALS - 1;
                row[..last].copy_from_slice(&values[base..base + last]);
                row[last..].fill(values[base + last] + held);
            } else {
                row.fill(values[base]);
            }
        }
    }
}

/// What one turn of one card needs besides the successor values.
pub(crate) struct Turn<'a> {
    pub rules: &'a Rules,
    pub scores: &'a ScoreTable,
    pub filled: BoxMask,
    pub yahtzee_50: bool,
}

#[inline(always)]
fn fmax(a: f64, b: f64) -> f64 {
    // A plain comparison (not `f64::max`) compiles to one `maxpd`: no value is ever NaN.
    if a > b { a } else { b }
}

/// Step 1: the value of each roll when it is the last one, with the best box filled, written
/// to `k[FIRST_ROLL..]`. Lanes are upper totals `u0..u0 + N`.
#[inline(always)]
pub(crate) fn score_final_roll<const N: usize>(
    turn: &Turn<'_>,
    succ: &Successors,
    u0: usize,
    k: &mut [[f64; N]],
) {
    let rules = turn.rules;
    let open = rules.open_by_order(turn.filled);
    let track_upper = rules.has_upper_bonus();
    let fifty_box = rules.five_of_a_kind_box();
    for r in 0..ROLLS {
        let mut acc = [f64::NEG_INFINITY; N];
        let is_joker_roll =
            turn.scores.five_of_a_kind[r] && rules.is_joker(turn.filled, &dice_of(r));
        let boxes = if is_joker_roll {
            rules.legal_boxes(turn.filled, &dice_of(r))
        } else {
            open
        };
        let mut rest = boxes;
        while rest != 0 {
            let c = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let points = if is_joker_roll {
                rules.score(c, &dice_of(r), turn.filled)
            } else {
                u32::from(turn.scores.points[c][r])
            };
            let slot = if c == fifty_box && points == 50 {
                SLOT_FIFTY
            } else {
                c
            };
            let shift = if track_upper && c < 6 {
                points as usize
            } else {
                0
            };
            let row: &[f64; N] = succ.rows[slot][u0 + shift..u0 + shift + N]
                .try_into()
                .expect("successor rows are long enough for every shift");
            let p = f64::from(points);
            for l in 0..N {
                acc[l] = fmax(acc[l], p + row[l]);
            }
        }
        if turn.yahtzee_50 && turn.scores.five_of_a_kind[r] {
            for a in acc.iter_mut() {
                *a += f64::from(YAHTZEE_BONUS);
            }
        }
        k[FIRST_ROLL + r] = acc;
    }
}

fn dice_of(r: usize) -> Dice {
    Dice::from_index(FIRST_ROLL + r)
}

/// Step 2: the value of every keep of fewer than five dice, from the values of the rolls in
/// `k[FIRST_ROLL..]`: keeping `k` and throwing the rest is worth the mean over the six faces of
/// keeping `k` plus that face. Multisets are ordered by size, so a backward sweep sees every
/// larger multiset before it is needed.
#[inline(always)]
pub(crate) fn expect_keeps<const N: usize>(k: &mut [[f64; N]]) {
    let lattice = Lattice::get();
    // Multiplying by the rounded 1/6 rather than dividing by 6 is one rounding either way;
    // what matters for determinism is that it is always the same operation.
    let sixth = 1.0 / FACES as f64;
    for i in (0..FIRST_ROLL).rev() {
        let children = lattice.add[i];
        let mut sum = k[usize::from(children[0])];
        for &child in &children[1..] {
            let c = &k[usize::from(child)];
            for l in 0..N {
                sum[l] += c[l];
            }
        }
        for s in sum.iter_mut() {
            *s *= sixth;
        }
        k[i] = sum;
    }
}

/// Step 3: `m[i]` is the best keep value among the sub-multisets of multiset `i` (the keep
/// itself included); for the rolls, `m[FIRST_ROLL..]` is the value of the roll with this many
/// rolls left. A forward sweep over the lattice: the best sub-multiset of `i` is `i` itself or
/// the best of a multiset one die smaller.
#[inline(always)]
pub(crate) fn best_keeps<const N: usize>(k: &[[f64; N]], m: &mut [[f64; N]]) {
    let lattice = Lattice::get();
    m[0] = k[0];
    for i in 1..MULTISETS {
        let mut best = k[i];
        let from = lattice.remove_start[i] as usize;
        let to = lattice.remove_start[i + 1] as usize;
        for &j in &lattice.remove[from..to] {
            let b = &m[usize::from(j)];
            for l in 0..N {
                best[l] = fmax(best[l], b[l]);
            }
        }
        m[i] = best;
    }
}

/// Per-thread working memory of one turn: no allocation per card.
pub(crate) struct Scratch<const N: usize> {
    pub k: Vec<[f64; N]>,
    pub m: Vec<[f64; N]>,
    pub succ: Box<Successors>,
}

impl<const N: usize> Scratch<N> {
    pub(crate) fn new() -> Scratch<N> {
        Scratch {
            k: vec![[0.0; N]; MULTISETS],
            m: vec![[0.0; N]; MULTISETS],
            succ: Box::new(Successors::new()),
        }
    }
}

/// Solves one turn for lanes `u0..u0 + N` of one card: the expected future score at the start
/// of the turn, in "bonus held" form. The successors must be loaded.
#[inline(always)]
fn solve_turn<const N: usize>(turn: &Turn<'_>, scratch: &mut Scratch<N>, u0: usize) -> [f64; N] {
    let Scratch { k, m, succ } = scratch;
    score_final_roll(turn, succ, u0, k);
    // Two re-rolls: keep values with one roll left, best keeps, then with two rolls left.
    for _ in 0..2 {
        expect_keeps(k);
        best_keeps(k, m);
        k[FIRST_ROLL..].copy_from_slice(&m[FIRST_ROLL..]);
    }
    // The opening roll: the probability-weighted mean of the rolls' values.
    let lattice = Lattice::get();
    let mut total = [0.0; N];
    for (r, p) in lattice.roll_probability.iter().enumerate() {
        let v = &k[FIRST_ROLL + r];
        for l in 0..N {
            total[l] += p * v[l];
        }
    }
    total
}

/// Solves one card (all its lanes) and writes its row of state values (without the held
/// bonus) to `out`.
#[inline(always)]
fn solve_card<const N: usize>(
    turn: &Turn<'_>,
    layout: &Layout,
    values: &[f64],
    scratch: &mut Scratch<N>,
    out: &mut [f64],
) {
    scratch
        .succ
        .load(turn.rules, layout, values, turn.filled, turn.yahtzee_50);
    let mut row = solve_turn(turn, scratch, 0);
    if N == UPPER_TOTALS && turn.rules.has_upper_bonus() {
        row[N - 1] -= f64::from(UPPER_BONUS);
    }
    out.copy_from_slice(&row);
}

/// The instruction sets the solver can use, detected once at run time so one binary runs on
/// every x86-64 machine and uses the widest vectors present.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Simd {
    /// AVX-512 (512-bit vectors).
    Avx512,
    /// AVX2 (256-bit vectors).
    Avx2,
    /// Whatever the build target guarantees (SSE2 on x86-64).
    Baseline,
}

impl Simd {
    /// The best instruction set of this processor.
    pub fn detect() -> Simd {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Simd::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Simd::Avx2;
            }
        }
        Simd::Baseline
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn solve_card_avx512<const N: usize>(
    turn: &Turn<'_>,
    layout: &Layout,
    values: &[f64],
    scratch: &mut Scratch<N>,
    out: &mut [f64],
) {
    solve_card(turn, layout, values, scratch, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn solve_card_avx2<const N: usize>(
    turn: &Turn<'_>,
    layout: &Layout,
    values: &[f64],
    scratch: &mut Scratch<N>,
    out: &mut [f64],
) {
    solve_card(turn, layout, values, scratch, out)
}

fn solve_card_dispatch<const N: usize>(
    simd: Simd,
    turn: &Turn<'_>,
    layout: &Layout,
    values: &[f64],
    scratch: &mut Scratch<N>,
    out: &mut [f64],
) {
    match simd {
        // SAFETY: `Simd::detect` found these features on this processor; neither variant uses
        // fused multiply-add, so all three produce the same bits.
        #[cfg(target_arch = "x86_64")]
        Simd::Avx512 => unsafe { solve_card_avx512(turn, layout, values, scratch, out) },
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2 => unsafe { solve_card_avx2(turn, layout, values, scratch, out) },
        _ => solve_card(turn, layout, values, scratch, out),
    }
}

/// Options of a solve.
#[derive(Clone, Copy, Debug)]
pub struct SolveOptions {
    /// Instruction set to use (default: detected).
    pub simd: Simd,
}

impl Default for SolveOptions {
    fn default() -> SolveOptions {
        SolveOptions {
            simd: Simd::detect(),
        }
    }
}

/// The solved values of a rule set, densely laid out by [`Layout`].
#[derive(Clone, Debug)]
pub struct Solution {
    /// The rules solved.
    pub rules: Rules,
    /// Expected future score of each state under optimal play (entries of unreachable cards
    /// are 0).
    pub values: Vec<f64>,
    /// Wall-clock seconds the solve took.
    pub seconds: f64,
}

/// Solves every reachable card of `rules`. `progress` is called after each depth with the
/// number of cards solved so far and the total. Runs on the current rayon thread pool.
pub fn solve(
    rules: &Rules,
    options: SolveOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Solution {
    let start = Instant::now();
    let layout = Layout::of(rules);
    let scores = ScoreTable::new(rules);
    let mut values = vec![0.0f64; layout.len()];
    let boxes = rules.box_count() as u32;
    let flag_mask: BoxMask = 1 << rules.five_of_a_kind_box();
    // Cards by depth, with both flags where the Yahtzee box is filled.
    let mut by_depth: Vec<Vec<(BoxMask, bool)>> = vec![Vec::new(); boxes as usize + 1];
    for filled in 0..=rules.full_mask() {
        if !rules.order_allows(filled) {
            continue;
        }
        let depth = filled.count_ones() as usize;
        by_depth[depth].push((filled, false));
        if layout.flags == 2 && filled & flag_mask != 0 {
            by_depth[depth].push((filled, true));
        }
    }
    let total: u64 = by_depth.iter().map(|d| d.len() as u64).sum();
    let mut done = by_depth[boxes as usize].len() as u64;
    progress(done, total);
    for depth in (0..boxes as usize).rev() {
        let cards = &by_depth[depth];
        let mut rows = vec![0.0f64; cards.len() * layout.lanes];
        {
            let solved: &[f64] = &values;
            if layout.lanes == UPPER_TOTALS {
                rows.par_chunks_mut(layout.lanes)
                    .zip(cards.par_iter())
                    .for_each_init(
                        Scratch::<UPPER_TOTALS>::new,
                        |scratch, (out, &(filled, flag))| {
                            let turn = Turn {
                                rules,
                                scores: &scores,
                                filled,
                                yahtzee_50: flag,
                            };
                            solve_card_dispatch(options.simd, &turn, &layout, solved, scratch, out);
                        },
                    );
            } else {
                rows.par_chunks_mut(layout.lanes)
                    .zip(cards.par_iter())
                    .for_each_init(Scratch::<1>::new, |scratch, (out, &(filled, flag))| {
                        let turn = Turn {
                            rules,
                            scores: &scores,
                            filled,
                            yahtzee_50: flag,
                        };
                        solve_card_dispatch(options.simd, &turn, &layout, solved, scratch, out);
                    });
            }
        }
        for (row, &(filled, flag)) in rows.chunks(layout.lanes).zip(cards) {
            let base = layout.row(filled, flag);
            values[base..base + layout.lanes].copy_from_slice(row);
        }
        done += cards.len() as u64;
        progress(done, total);
    }
    Solution {
        rules: *rules,
        values,
        seconds: start.elapsed().as_secs_f64(),
    }
}
