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
use crate::rules::UPPER_MASK;
use crate::rules::{BoxMask, Rules, UPPER_BONUS, YAHTZEE_BONUS};
use crate::state::{Layout, UPPER_TOTALS, reachable_upper_totals};

/// Length of a successor row: 64 upper totals plus room for the largest upper score (30), so a
/// lane `u` reading `u + points` never leaves the row. Lanes past 63 repeat lane 63.
const ROW: usize = 96;
/// The successor slot of the five-of-a-kind box filled with 50 (slots 0..13 are the boxes
/// filled with anything else).
const SLOT_FIFTY: usize = 13;
/// Upper totals solved together. Measured on AVX2 (CPU time of a full yahtzee solve, relative
/// to blocks of 16): 4 lanes 1.35, 8 lanes 1.15, 16 lanes 1.0, 32 lanes 0.97, 64 lanes 2.0.
/// Wider blocks share the lattice walk among more lanes; 64 lanes no longer fit the cache.
const BLOCK: usize = 16;
/// The block with AVX-512: the same four registers, twice as wide.
const WIDE_BLOCK: usize = 32;
/// Successor rows: one per box, plus [`SLOT_FIFTY`].
const SLOTS: usize = 14;

/// Points of each box for each roll by the box's own condition (no Joker), precomputed once
/// per rule set: `points[box][roll offset]`.
#[derive(Debug)]
pub(crate) struct ScoreTable {
    pub(crate) points: Vec<[u8; ROLLS]>,
    pub(crate) five_of_a_kind: [bool; ROLLS],
    /// The distinct points of each box over the rolls, ascending.
    pub(crate) distinct: Vec<Vec<u8>>,
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
        let distinct = points
            .iter()
            .map(|row| {
                let mut d = row.to_vec();
                d.sort_unstable();
                d.dedup();
                d
            })
            .collect();
        ScoreTable {
            points,
            five_of_a_kind,
            distinct,
        }
    }
}

/// Successor values of one card in "bonus held" form: row `slot` (at `slot * ROW`) holds at
/// `i` the value of the state reached by filling the box of `slot`, at upper total
/// `min(i, 63)`, plus 35 when that total is 63 (in rule sets with an upper bonus). A box
/// scoring `p` in the upper section moves lane `u` to `i = u + p`; any other box leaves it at
/// `i = u`.
pub(crate) struct Successors {
    rows: Vec<f64>,
}

impl Successors {
    pub(crate) fn new() -> Successors {
        Successors {
            rows: vec![0.0; SLOTS * ROW],
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
        for slot in 0..SLOTS {
            let index = if slot == SLOT_FIFTY { fifty } else { slot };
            if index >= rules.box_count() || open & (1 << index) == 0 {
                continue;
            }
            let next_flag = yahtzee_50 || (slot == SLOT_FIFTY && rules.has_yahtzee_bonus());
            let base = layout.row(filled | (1 << index), next_flag);
            let row = &mut self.rows[slot * ROW..(slot + 1) * ROW];
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

/// The boxes each final roll may fill on one card, worked out once per card and shared by
/// all its lane blocks. Within one box a roll matters only through the points it scores, so
/// each distinct (box, points) choice gets one precomputed row of 64 lanes: the points, the
/// Yahtzee bonus if any, plus the successor value at the shifted upper total. For roll `r`,
/// entries `start[r]..start[r + 1]` of `choice` are the rows of its legal boxes, and the final
/// roll is a plain maximum over them, with no addition per roll.
pub(crate) struct Plan {
    /// Offsets (row index x width) into `rows`, per roll.
    choice: Vec<u32>,
    start: Vec<u16>,
    rows: Vec<f64>,
    /// Row index of box `c` scoring `p` by its own condition, at `c * POINTS + p`.
    row_at: Vec<u16>,
    /// Rows made for Joker rolls and Yahtzee bonuses: (slot, points + bonus, row index).
    extra: Vec<(usize, u32, u16)>,
    /// The lanes the rows cover: upper totals `first..first + width`.
    first: usize,
    width: usize,
}

/// Points a box can score by its own condition: 0 to 50.
const POINTS: usize = 51;

impl Plan {
    pub(crate) fn new() -> Plan {
        Plan {
            choice: Vec::with_capacity(ROLLS * SLOTS),
            start: Vec::with_capacity(ROLLS + 1),
            rows: Vec::with_capacity(128 * UPPER_TOTALS),
            row_at: vec![u16::MAX; SLOTS * POINTS],
            extra: Vec::new(),
            first: 0,
            width: UPPER_TOTALS,
        }
    }

    /// Appends the row of filling box `c` with `points` plus `bonus`, returning its index.
    fn make_row(
        &mut self,
        turn: &Turn<'_>,
        succ: &Successors,
        c: usize,
        points: u32,
        bonus: u32,
    ) -> u16 {
        let rules = turn.rules;
        let slot = if c == rules.five_of_a_kind_box() && points == 50 {
            SLOT_FIFTY
        } else {
            c
        };
        let shift = if rules.has_upper_bonus() && c < 6 {
            points as usize
        } else {
            0
        };
        let index = (self.rows.len() / self.width) as u16;
        let from = slot * ROW + shift + self.first;
        let gain = f64::from(points + bonus);
        self.rows
            .extend(succ.rows[from..from + self.width].iter().map(|&w| gain + w));
        index
    }

    /// Lists the legal boxes of every roll of `turn`'s card, Joker included, and makes the row
    /// of each distinct choice from the loaded successors, for upper totals
    /// `first..first + width` (all 64 for the solver, one for a single position's advice).
    pub(crate) fn build(&mut self, turn: &Turn<'_>, succ: &Successors, first: usize, width: usize) {
        self.first = first;
        self.width = width;
        let rules = turn.rules;
        let open = rules.open_by_order(turn.filled);
        self.choice.clear();
        self.start.clear();
        self.rows.clear();
        self.extra.clear();
        // The rows of every open box and every points it can score by its own condition.
        let mut rest = open;
        while rest != 0 {
            let c = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            for &p in &turn.scores.distinct[c] {
                let row = self.make_row(turn, succ, c, u32::from(p), 0);
                self.row_at[c * POINTS + usize::from(p)] = row;
            }
        }
        let five_box_filled = turn.filled & (1 << rules.five_of_a_kind_box()) != 0;
        for r in 0..ROLLS {
            self.start.push(self.choice.len() as u16);
            let five = turn.scores.five_of_a_kind[r];
            if five && (five_box_filled || turn.yahtzee_50) {
                // A Yahtzee on a card whose Yahtzee box is filled: the Joker decides the boxes
                // and their points, and 50 in the box earns 100 more.
                let dice = Dice::from_index(FIRST_ROLL + r);
                let bonus = if turn.yahtzee_50 { YAHTZEE_BONUS } else { 0 };
                let mut boxes = rules.legal_boxes(turn.filled, &dice);
                while boxes != 0 {
                    let c = boxes.trailing_zeros() as usize;
                    boxes &= boxes - 1;
                    let points = rules.score(c, &dice, turn.filled);
                    let gain = points + bonus;
                    let row = match self.extra.iter().find(|e| e.0 == c && e.1 == gain) {
                        Some(e) => e.2,
                        None => {
                            let row = self.make_row(turn, succ, c, points, bonus);
                            self.extra.push((c, gain, row));
                            row
                        }
                    };
                    self.choice.push(u32::from(row) * width as u32);
                }
                continue;
            }
            let mut rest = open;
            while rest != 0 {
                let c = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let p = usize::from(turn.scores.points[c][r]);
                self.choice
                    .push(u32::from(self.row_at[c * POINTS + p]) * width as u32);
            }
        }
        self.start.push(self.choice.len() as u16);
    }
}

#[inline(always)]
fn fmax(a: f64, b: f64) -> f64 {
    // A plain comparison (not `f64::max`) compiles to one `maxpd`: no value is ever NaN.
    if a > b { a } else { b }
}

/// Step 1: the value of each roll when it is the last one, with the best box filled, written
/// to `k[FIRST_ROLL..]`. Lanes are upper totals `u0..u0 + N`.
#[inline(always)]
pub(crate) fn score_final_roll<const N: usize>(plan: &Plan, u0: usize, k: &mut [[f64; N]]) {
    for r in 0..ROLLS {
        let mut acc = [f64::NEG_INFINITY; N];
        let (from, to) = (usize::from(plan.start[r]), usize::from(plan.start[r + 1]));
        for &offset in &plan.choice[from..to] {
            let at = offset as usize + u0 - plan.first;
            let row: &[f64; N] = plan.rows[at..at + N]
                .try_into()
                .expect("choice rows cover the lanes asked for");
            for l in 0..N {
                acc[l] = fmax(acc[l], row[l]);
            }
        }
        k[FIRST_ROLL + r] = acc;
    }
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

/// Step 3: the best keep among the sub-multisets of each multiset (the keep itself
/// included), by a forward sweep over the lattice: the best sub-multiset of `i` is `i` itself
/// or the best of a multiset one die smaller. The maxima of multisets smaller than five go to
/// `m`; those of the rolls, the values of the rolls with this many rolls left, replace the
/// rolls' entries of `k` (nothing reads those again), which saves a copy per layer.
#[inline(always)]
pub(crate) fn best_keeps<const N: usize>(k: &mut [[f64; N]], m: &mut [[f64; N]]) {
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
        if i < FIRST_ROLL {
            m[i] = best;
        } else {
            k[i] = best;
        }
    }
}

/// Per-thread working memory of one turn: no allocation per card. `N` lanes are solved at a
/// time; with `N` = 16 the two keep arrays take 2 x 462 x 128 bytes, well inside L2.
pub(crate) struct Scratch<const N: usize> {
    pub k: Vec<[f64; N]>,
    pub m: Vec<[f64; N]>,
    pub succ: Successors,
    pub plan: Plan,
}

impl<const N: usize> Scratch<N> {
    pub(crate) fn new() -> Scratch<N> {
        Scratch {
            k: vec![[0.0; N]; MULTISETS],
            m: vec![[0.0; N]; FIRST_ROLL],
            succ: Successors::new(),
            plan: Plan::new(),
        }
    }
}

/// Solves one turn for lanes `u0..u0 + N` of one card: the expected future score at the start
/// of the turn, in "bonus held" form. The successors and the plan must be loaded.
#[inline(always)]
fn solve_turn<const N: usize>(scratch: &mut Scratch<N>, u0: usize) -> [f64; N] {
    let Scratch { k, m, plan, .. } = scratch;
    score_final_roll(plan, u0, k);
    // Two re-rolls: keep values with one roll left, best keeps, then with two rolls left.
    for _ in 0..2 {
        expect_keeps(k);
        best_keeps(k, m);
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

/// Solves one card and writes its row of state values (without the held bonus) to `out`:
/// lane blocks of `N` upper totals, skipping the blocks no player can reach (their values,
/// never read by a reachable state, are left at 0).
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
    scratch.plan.build(turn, &scratch.succ, 0, layout.lanes);
    let reachable = if layout.lanes == UPPER_TOTALS {
        reachable_upper_totals(turn.filled & UPPER_MASK)
    } else {
        1
    };
    for (block, chunk) in out.chunks_mut(N).enumerate() {
        let u0 = block * N;
        let lanes = chunk.len();
        let block_mask = if lanes >= 64 {
            u64::MAX
        } else {
            ((1u64 << lanes) - 1) << u0
        };
        if reachable & block_mask == 0 {
            chunk.fill(0.0);
            continue;
        }
        let row = solve_turn(scratch, u0);
        chunk.copy_from_slice(&row[..lanes]);
    }
    if layout.lanes == UPPER_TOTALS && turn.rules.has_upper_bonus() {
        out[UPPER_TOTALS - 1] -= f64::from(UPPER_BONUS);
    }
    for (u, v) in out.iter_mut().enumerate() {
        if reachable & (1 << u) == 0 {
            *v = 0.0;
        }
    }
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

/// A solve in progress: the cards of each depth and what their turns share. Depths are
/// solved from full cards (depth = number of boxes, all values 0) down to the empty card;
/// [`Solver::solve_depth`] needs the depth above it solved.
pub struct Solver {
    rules: Rules,
    layout: Layout,
    scores: ScoreTable,
    options: SolveOptions,
    /// Cards by number of filled boxes, with both flags where the Yahtzee box is filled.
    by_depth: Vec<Vec<(BoxMask, bool)>>,
}

impl Solver {
    /// Prepares a solve of `rules`.
    pub fn new(rules: &Rules, options: SolveOptions) -> Solver {
        let layout = Layout::of(rules);
        let boxes = rules.box_count();
        let flag_mask: BoxMask = 1 << rules.five_of_a_kind_box();
        let mut by_depth: Vec<Vec<(BoxMask, bool)>> = vec![Vec::new(); boxes + 1];
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
        Solver {
            rules: *rules,
            layout,
            scores: ScoreTable::new(rules),
            options,
            by_depth,
        }
    }

    /// Number of boxes: the depth of full cards.
    pub fn depths(&self) -> usize {
        self.rules.box_count()
    }

    /// Number of cards (with their flags) at `depth` filled boxes.
    pub fn cards_at(&self, depth: usize) -> usize {
        self.by_depth[depth].len()
    }

    /// A value array with every full card solved (all zeros).
    pub fn initial_values(&self) -> Vec<f64> {
        vec![0.0; self.layout.len()]
    }

    /// Solves every card with `depth` boxes filled, reading the solved cards of `depth + 1`
    /// from `values` and writing the new rows into it. Runs on the current rayon pool.
    pub fn solve_depth(&self, depth: usize, values: &mut [f64]) {
        let cards = &self.by_depth[depth];
        let lanes = self.layout.lanes;
        let mut rows = vec![0.0f64; cards.len() * lanes];
        match (lanes == UPPER_TOTALS, self.options.simd) {
            (true, Simd::Avx512) => self.solve_cards::<WIDE_BLOCK>(cards, values, &mut rows),
            (true, _) => self.solve_cards::<BLOCK>(cards, values, &mut rows),
            (false, _) => self.solve_cards::<1>(cards, values, &mut rows),
        }
        for (row, &(filled, flag)) in rows.chunks(lanes).zip(cards) {
            let base = self.layout.row(filled, flag);
            values[base..base + lanes].copy_from_slice(row);
        }
    }

    fn solve_cards<const N: usize>(
        &self,
        cards: &[(BoxMask, bool)],
        values: &[f64],
        rows: &mut [f64],
    ) {
        rows.par_chunks_mut(self.layout.lanes)
            .zip(cards.par_iter())
            .for_each_init(Scratch::<N>::new, |scratch, (out, &(filled, flag))| {
                let turn = Turn {
                    rules: &self.rules,
                    scores: &self.scores,
                    filled,
                    yahtzee_50: flag,
                };
                solve_card_dispatch(self.options.simd, &turn, &self.layout, values, scratch, out);
            });
    }
}

/// Solves every reachable card of `rules`. `progress` is called after each depth with the
/// number of cards solved so far and the total. Runs on the current rayon thread pool.
pub fn solve(
    rules: &Rules,
    options: SolveOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Solution {
    let start = Instant::now();
    let solver = Solver::new(rules, options);
    let mut values = solver.initial_values();
    let depths = solver.depths();
    let total: u64 = (0..=depths).map(|d| solver.cards_at(d) as u64).sum();
    let mut done = solver.cards_at(depths) as u64;
    progress(done, total);
    for depth in (0..depths).rev() {
        solver.solve_depth(depth, &mut values);
        done += solver.cards_at(depth) as u64;
        progress(done, total);
    }
    Solution {
        rules: *rules,
        values,
        seconds: start.elapsed().as_secs_f64(),
    }
}
