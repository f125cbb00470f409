//! Vector objectives: a vector of values per state instead of one number, computed by the
//! same turn kernel.
//!
//! The expected score gives each turn-start state one number. Some questions need a number
//! per state *and* per score: the best chance of scoring at least `t` more points (the
//! target objective), the chance of beating the opponents with `b` points banked (the win
//! objective), the distribution of the remaining score. For those each state holds a vector
//! over an integer coordinate `x` (points still needed, points banked, ...), and scoring `p`
//! points turns `x` into `x - p` or `x + p`: a successor's vector is read at an offset.
//!
//! So the lanes of the kernel ([`crate::solve::kernel`]) are consecutive coordinates of one state,
//! in blocks of `N`, and a row of the plan is a successor's vector shifted by the points of
//! that way of filling a box. Every box's rows are made for each of its points (no box "adds
//! its points" here: points move the coordinate), and the Joker's rolls have their own rows,
//! exactly as for the expected score.
//!
//! Storage: a state's vector is stored over the coordinates where it is not constant, a
//! [`Range`]; below the range the value is the table's `below` value, above it the `above`
//! value (for the target objective 1 below: nothing more is needed; 0 above: beyond what the
//! state can still score). The values of one card are one block of memory, and states whose
//! vectors are equal (the upper totals from which the upper bonus is out of reach) share
//! them. Vectors are cut where their tail falls below [`TAIL`]: the values left out are
//! read as the `above` value, an error of at most `TAIL` per turn.
//!
//! A solve gives a [`Solution`]: the objective's constants, each state's range and each
//! card's values. The table of a vector objective (`VectorTable` in `tables/vector.rs`)
//! wraps it, with its file and the turns run at query time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use crate::game::dice::{Dice, MAX_ROLLS};
use crate::game::rules::{BoxMask, Joker, Rules};
use crate::game::state::{
    Layout, State, UpperTotals, cards_by_depth, reachable_upper_totals, set_bits,
};
use crate::game::ties::Preferred;
use crate::solve::expected::{ExpectedValues, TurnKeeps, shared_upper_totals};
use crate::solve::kernel::{KeepArray, Kernel, Plan, Real, ScoreTable, score_table};
use crate::solve::simd::Simd;

/// Values below this at the end of a vector are left out (read as the `above` value, 0 for
/// the target objective). The error this makes is at most `TAIL` per turn of the game, far
/// below the precision of the stored values (`f32`: 6e-8 near 1).
pub const TAIL: f64 = 1e-9;

/// The name of the target objective in table files.
pub const TARGET: &str = "target";
/// The name of the distribution of the remaining score under expected-score play in table
/// files.
pub const DISTRIBUTION: &str = "distribution";

/// The widest block of a vector solve (the kernel's widths: 32 lanes, a vector's last ones
/// in blocks of 16 or 8; `yahtzee_kernel::Kernel::widths`). Measured with AVX-512 (Yacht's
/// target table, one thread, best of 8): 64 lanes 1.5 times as long, 16 lanes 1.5 times as
/// long.
pub(crate) const MAX_BLOCK: usize = 32;

/// The lanes a vector solve computes in: the tables' `f32`, and the exact checks' `f64`, each
/// with the opening mean of a turn in `f64`.
pub trait VectorLane: Kernel<Mean = f64> {}
impl<T: Kernel<Mean = f64>> VectorLane for T {}

/// Where a state's vector is stored: the values of coordinates `lo..lo + len`, from
/// `offset` in its card's values.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Range {
    /// First value's position in the card's values.
    pub offset: u32,
    /// Coordinate of the first stored value.
    pub lo: i32,
    /// Number of stored values.
    pub len: u32,
}

impl Range {
    /// The coordinate after the last stored value.
    pub fn end(&self) -> i64 {
        i64::from(self.lo) + i64::from(self.len)
    }
}

/// The solved vectors of every reachable state of one rule set for one objective (or of the
/// cards a reduced solve covers): the objective's constants, each state's range and each
/// card's values.
#[derive(Debug)]
pub struct Solution<T> {
    pub(crate) rules: Rules,
    pub(crate) layout: Layout,
    /// The objective's name, as the file header states it (`target`, ...).
    pub(crate) objective: &'static str,
    /// The value below each state's range.
    pub(crate) below: T,
    /// The value above each state's range.
    pub(crate) above: T,
    /// The tail left out of the vectors ([`TAIL`]).
    pub(crate) tail: f64,
    /// How points move the coordinate.
    pub(crate) direction: Direction,
    /// Each state's range, by layout index (unreachable states: an empty range).
    pub(crate) ranges: Vec<Range>,
    /// The values of each card, by mask of filled boxes, once solved (or, in a table loaded
    /// from a file, once read).
    pub(crate) cards: Vec<OnceLock<Box<[T]>>>,
    /// Lanes the kernel computed (blocks included whole), for the benchmarks.
    pub(crate) lanes_computed: u64,
}

impl<T: Real> Solution<T> {
    /// The rules solved.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The objective's name (`target`, ...).
    pub fn objective(&self) -> &'static str {
        self.objective
    }

    /// Where each state sits.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The tail left out of the vectors.
    pub fn tail(&self) -> f64 {
        self.tail
    }

    /// The stored range of `state`.
    pub fn range(&self, state: &State) -> Range {
        self.ranges[self.layout.index(state)]
    }

    /// The value of `state` at coordinate `x`; `None` for a state the solve left out
    /// ([`solve_reduced`], [`solve_from`]).
    pub fn value(&self, state: &State, x: i64) -> Option<T> {
        let values = self.cards[state.filled as usize].get()?;
        Some(read(values, self.range(state), self.below, self.above, x))
    }

    /// A card solved by this solve (every successor is, when a card is solved).
    fn solved(&self, filled: BoxMask) -> &[T] {
        self.cards[filled as usize]
            .get()
            .expect("the successors of a card are solved before it")
    }

    /// Lanes the kernel computed to solve the table (whole blocks).
    pub fn lanes_computed(&self) -> u64 {
        self.lanes_computed
    }

    /// Number of values held (states that share a vector count it once).
    pub fn stored_values(&self) -> u64 {
        self.cards
            .iter()
            .filter_map(OnceLock::get)
            .map(|c| c.len() as u64)
            .sum()
    }
}

/// The value of a stored vector at coordinate `x`.
#[inline]
pub(crate) fn read<T: Real>(values: &[T], range: Range, below: T, above: T, x: i64) -> T {
    if x < i64::from(range.lo) {
        below
    } else if x >= range.end() {
        above
    } else {
        values[range.offset as usize + (x - i64::from(range.lo)) as usize]
    }
}

/// Fills `row[l]` with the stored vector's value at `x0 + l`: three runs, below, stored,
/// above.
#[inline]
pub(crate) fn fill_shifted<T: Real>(
    row: &mut [T],
    x0: i64,
    values: &[T],
    range: Range,
    below: T,
    above: T,
) {
    let n = row.len() as i64;
    let lo = i64::from(range.lo);
    let end = range.end();
    // Lanes `0..a` are below the range, `a..b` inside it, `b..n` above it.
    let a = (lo - x0).clamp(0, n);
    let b = (end - x0).clamp(a, n);
    row[..a as usize].fill(below);
    if b > a {
        let from = range.offset as usize + (x0 + a - lo) as usize;
        row[a as usize..b as usize].copy_from_slice(&values[from..from + (b - a) as usize]);
    }
    row[b as usize..].fill(above);
}

/// One row of a state's plan: filling `box_index` with `points`, earning `bonus` points, and
/// the state this leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RowSpec {
    /// The box filled.
    pub box_index: u8,
    /// Its points.
    pub points: u32,
    /// Upper bonus and five-of-a-kind bonus earned with it.
    pub bonus: u32,
    /// The state after it.
    pub next: State,
}

impl RowSpec {
    /// Filling box `index` with `points` from `state` (`five`: with five of a kind, which
    /// may earn the five-of-a-kind bonus).
    pub(crate) fn new(
        rules: &Rules,
        state: &State,
        index: usize,
        points: u32,
        five: bool,
    ) -> RowSpec {
        RowSpec {
            box_index: index as u8,
            points,
            bonus: state.bonus_for(rules, index, points, five),
            next: state.after(rules, index, points),
        }
    }

    /// Points the row scores: the box and its bonus.
    pub fn gain(&self) -> i64 {
        i64::from(self.points) + i64::from(self.bonus)
    }
}

/// Lays out the plan of `state` for a vector objective: every open box gets a row per points
/// it can score by its own condition (in the order of its distinct points, so the kernel
/// finds a roll's row by rank), and the five-of-a-kind rolls decided by the Joker (or earning
/// the bonus) get their own rows. Returns what each row stands for, in row order.
pub(crate) fn lay_out<T: Real>(
    plan: &mut Plan<T>,
    rules: &Rules,
    scores: &ScoreTable,
    state: &State,
) -> Vec<RowSpec> {
    let mut specs = Vec::new();
    plan.begin(1, 1);
    plan.ranked.clear();
    let open = rules.open_by_order(state.filled);
    let spec = |c: usize, points: u32, five: bool| RowSpec::new(rules, state, c, points, five);
    for c in set_bits(u64::from(open)) {
        plan.ranked.push((c as u8, specs.len() as u16));
        for &p in &scores.distinct[c] {
            specs.push(spec(c, u32::from(p), false));
        }
    }
    let five_filled = rules
        .five_of_a_kind_box()
        .is_some_and(|b| state.filled & (1 << b) != 0);
    if !five_filled || (rules.joker() == Joker::None && !rules.has_yahtzee_bonus()) {
        return specs;
    }
    let first_roll = scores.dice.first_roll();
    for (r, &five) in scores.five_of_a_kind.iter().enumerate() {
        if !five {
            continue;
        }
        let dice = Dice::from_index(first_roll + r);
        let from = plan.joker_rows.len() as u16;
        for c in set_bits(u64::from(rules.legal_boxes(state.filled, &dice))) {
            let s = spec(c, rules.score(c, &dice, state.filled), true);
            let row = match specs.iter().position(|x| *x == s) {
                Some(i) => i,
                None => {
                    specs.push(s);
                    specs.len() - 1
                }
            };
            plan.joker_rows.push(row as u16);
        }
        plan.jokers
            .push((r as u16, from, plan.joker_rows.len() as u16));
    }
    specs
}

/// How a vector objective reads a successor: the coordinate `x` of this state becomes
/// `x + direction * gain` in the successor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Points scored are taken off the coordinate: points still needed.
    Need,
    /// Points scored are added to the coordinate: points banked.
    Banked,
}

impl Direction {
    pub(crate) fn sign(self) -> i64 {
        match self {
            Direction::Need => -1,
            Direction::Banked => 1,
        }
    }
}

/// What a backward pass of a vector objective needs: the rules, the states' values at the
/// end of the game, and how points move the coordinate.
#[derive(Clone, Debug)]
pub struct VectorObjective<T> {
    /// The rules.
    pub rules: Rules,
    /// How points move the coordinate.
    pub direction: Direction,
    /// The value below a stored range.
    pub below: T,
    /// The value above a stored range.
    pub above: T,
    /// The vector of a full card (every full card has the same), from coordinate `lo`.
    pub terminal: (i32, Vec<T>),
    /// Trailing values within this of `above` are left out ([`TAIL`]; 0 keeps every value).
    pub tail: f64,
    /// The objective's name, written into table files.
    pub name: &'static str,
    /// The policy followed instead of the best choice, for the distributions of a fixed
    /// policy: the solved expected-score values (the expected-score table) whose optimal
    /// policy (with its tie rule) is played. `None`: every choice is the best for the
    /// objective.
    pub policy: Option<Arc<dyn ExpectedValues>>,
}

impl<T: Real> VectorObjective<T> {
    /// The target objective: the best chance of scoring at least `t` more points, 1 for
    /// `t <= 0`, and for a full card 0 for every `t >= 1`.
    pub fn target(rules: Rules) -> VectorObjective<T> {
        VectorObjective {
            rules,
            direction: Direction::Need,
            below: T::ONE,
            above: T::ZERO,
            terminal: (1, Vec::new()),
            tail: TAIL,
            name: TARGET,
            policy: None,
        }
    }

    /// Whether scoring more points never lowers a value: every choice is the objective's
    /// best (no policy followed) and the full card's vector, with the constants around it,
    /// never falls the way points move the coordinate. Then no state's vector falls either,
    /// to the bit (the kernel's sums, sixths, means and maxima never fall when a row rises),
    /// and a box's row of more points is worth at least its row of fewer, lane by lane: the
    /// final roll reads only the rows above each box's floor ([`Plan::index_rolls`]).
    pub(crate) fn never_falls_with_points(&self) -> bool {
        self.policy.is_none() && self.monotone()
    }

    /// Whether every state's vector runs from `below` to `above` without turning back: the
    /// full card's vector does, with the constants around it, and the kernel keeps it so at
    /// every state, to the bit (its lanes are shifted copies of the same operations, each
    /// of which never falls when an input rises), whatever the choices, best or a policy's.
    pub(crate) fn monotone(&self) -> bool {
        let read: Vec<f64> = std::iter::once(self.below)
            .chain(self.terminal.1.iter().copied())
            .chain(std::iter::once(self.above))
            .map(T::to_f64)
            .collect();
        read.windows(2).all(|w| match self.direction {
            Direction::Need => w[0] >= w[1],
            Direction::Banked => w[0] <= w[1],
        })
    }

    /// This objective with every choice made by the optimal policy of `ev` instead.
    fn following(self, ev: Arc<dyn ExpectedValues>) -> VectorObjective<T> {
        VectorObjective {
            policy: Some(ev),
            ..self
        }
    }

    /// The distribution of the remaining score under expected-score play: for every state
    /// and every `t`, the chance of scoring at least `t` more points when every choice is
    /// that of the optimal policy of `ev` (ties as documented: the fewest dice kept, the box
    /// first on the card). 1 for `t <= 0`; 0 for a full card and every `t >= 1`.
    pub fn distribution(ev: Arc<dyn ExpectedValues>) -> VectorObjective<T> {
        VectorObjective {
            name: DISTRIBUTION,
            ..VectorObjective::target(*ev.rules())
        }
        .following(ev)
    }
}

/// Makes `plan` (laid out for a state by [`lay_out`], rows `specs`) follow the optimal
/// policy of `ev` instead of the best choice: each roll's one row is the box that policy
/// fills (as a choice of one row, by the Joker's mechanism), and its keeps with each number
/// of rolls left (1 to the game's rolls less one) are the policy's, `keeps` (the state's
/// [`ExpectedValues::card_keeps`]; see [`crate::solve::kernel::policy_keeps`]). Returns the
/// rows left to fill: those of the boxes some roll fills, in the order of `specs`.
///
/// The box of a roll is chosen among the rows the plan offers it (the open boxes in card
/// order, or the Joker's rows), each worth its points and bonus plus the expected score
/// after it, by the tie rule: the choice of the expected-score advice's best box
/// (`best_box_for` in `policy/expected.rs`), from one value per row instead of one per roll
/// and box.
pub(crate) fn follow_policy<T: Real>(
    plan: &mut Plan<T>,
    specs: &[RowSpec],
    ev: &dyn ExpectedValues,
    keeps: &TurnKeeps,
    scores: &ScoreTable,
) -> Vec<RowSpec> {
    let worth: Vec<f64> = specs
        .iter()
        .map(|s| f64::from(s.points + s.bonus) + ev.value(&s.next))
        .collect();
    let rolls = scores.dice.rolls();
    let mut joker_of_roll = [None; MAX_ROLLS];
    for &(r, from, to) in &plan.jokers {
        joker_of_roll[usize::from(r)] = Some((usize::from(from), usize::from(to)));
    }
    let mut chosen = [u16::MAX; MAX_ROLLS];
    let chosen = &mut chosen[..rolls];
    for (r, row) in chosen.iter_mut().enumerate() {
        let mut best = Preferred::new();
        match joker_of_roll[r] {
            Some((from, to)) => {
                for &row in &plan.joker_rows[from..to] {
                    best.offer(row, worth[usize::from(row)]);
                }
            }
            None => {
                for &(c, first) in &plan.ranked {
                    let row = first + u16::from(scores.rank[r][usize::from(c)]);
                    best.offer(row, worth[usize::from(row)]);
                }
            }
        }
        if let Some((best, _)) = best.best() {
            *row = best;
        }
    }
    // Only the rows some roll chooses are read: they alone are kept, in their order, and
    // `kept[row]` is a chosen row's index among them.
    let mut read = vec![false; specs.len()];
    for &row in chosen.iter().filter(|&&row| row != u16::MAX) {
        read[usize::from(row)] = true;
    }
    let mut kept = vec![u16::MAX; specs.len()];
    let mut used = Vec::new();
    for (row, _) in read.iter().enumerate().filter(|&(_, &r)| r) {
        kept[row] = used.len() as u16;
        used.push(specs[row]);
    }
    plan.ranked.clear();
    plan.jokers.clear();
    plan.joker_rows.clear();
    for (r, &row) in chosen.iter().enumerate() {
        let from = plan.joker_rows.len() as u16;
        if row != u16::MAX {
            plan.joker_rows.push(kept[usize::from(row)]);
        }
        plan.jokers
            .push((r as u16, from, plan.joker_rows.len() as u16));
    }
    // One layer of keeps per re-roll of the game: those with 1, 2, ... rolls left.
    plan.follow_keeps(scores.dice, keeps.by_rolls_left.iter().flatten().copied());
    used
}

/// The states of one card a vector pass computes: each reachable (upper total, flag), the
/// totals whose vectors are equal sharing one (the lowest computes it).
fn card_states(rules: &Rules, filled: BoxMask) -> Vec<(State, UpperTotals)> {
    let (flags, solo, shared) = card_vectors(rules, filled);
    let mut out = Vec::new();
    for &flag in flags {
        for u in set_bits(solo) {
            let same = if shared & (1 << u) != 0 {
                shared
            } else {
                1 << u
            };
            out.push((
                State {
                    filled,
                    upper: u as u8,
                    yahtzee_50: flag,
                },
                same,
            ));
        }
    }
    out
}

/// The vectors of one card ([`card_states`]): its flags, the upper totals that compute a
/// vector, and those that share one (the lowest of them computes it).
fn card_vectors(rules: &Rules, filled: BoxMask) -> (&'static [bool], UpperTotals, UpperTotals) {
    let five_filled = rules
        .five_of_a_kind_box()
        .is_some_and(|b| filled & (1 << b) != 0);
    let flags: &[bool] = if rules.has_yahtzee_bonus() && five_filled {
        &[false, true]
    } else {
        &[false]
    };
    let reachable = reachable_upper_totals(rules, filled);
    let shared = if rules.has_upper_bonus() {
        reachable & shared_upper_totals(rules, filled)
    } else {
        0
    };
    let solo = (reachable & !shared) | (shared & shared.wrapping_neg());
    (flags, solo, shared)
}

/// Per-thread working memory of a vector pass.
struct VectorScratch<T> {
    keeps: KeepArray<T>,
    plan: Plan<T>,
    /// A block's opening means.
    means: Vec<f64>,
}

impl<T: Real> VectorScratch<T> {
    fn new() -> VectorScratch<T> {
        VectorScratch {
            keeps: KeepArray::new(MAX_BLOCK),
            plan: Plan::new(),
            means: Vec::with_capacity(MAX_BLOCK),
        }
    }
}

/// The solved vectors of one card: its values and the range of each of its states.
struct CardVectors<T> {
    values: Vec<T>,
    ranges: Vec<(usize, Range)>,
    lanes: u64,
}

/// Where one row of a state's plan reads its lanes: the successor's card and range, and the
/// shift of its coordinates (the points the row's box scores, with its bonus, towards the
/// objective's direction). Found once per state, read by each of its blocks.
struct Source<'a, T> {
    values: &'a [T],
    range: Range,
    shift: i64,
}

/// The value of a state's turn at the coordinates of one block of `width` lanes: the plan's
/// rows filled from the successors for coordinates `x0..x0 + width`, the kernel run, the
/// opening mean taken (in `f64`). Appends `width` values to `out`.
fn solve_block<T: VectorLane>(
    (table, scores, sources, x0): BlockArgs<'_, T>,
    (simd, width): (Simd, usize),
    scratch: &mut VectorScratch<T>,
    out: &mut Vec<T>,
) {
    scratch.plan.restart_rows(width, sources.len());
    for s in sources {
        let x = x0 + s.shift;
        // Most rows lie inside the successor's stored range: a copy of `width` stored values.
        let from = x - i64::from(s.range.lo);
        if from >= 0 && x + width as i64 <= s.range.end() {
            let from = s.range.offset as usize + from as usize;
            scratch.plan.push_row_of(&s.values[from..from + width]);
        } else {
            scratch.plan.push_row_with(|row| {
                fill_shifted(row, x, s.values, s.range, table.below, table.above);
            });
        }
    }
    scratch.means.clear();
    T::solve(
        simd,
        width,
        &mut scratch.keeps,
        &scratch.plan,
        scores,
        0,
        &mut scratch.means,
    );
    out.extend(scratch.means.iter().map(|&v| T::from_f64(v)));
}

/// What a block of one state's vector needs: the table so far, the scores, where the
/// state's rows read and the block's first coordinate.
type BlockArgs<'a, T> = (&'a Solution<T>, &'a ScoreTable, &'a [Source<'a, T>], i64);

/// The width of the block that covers the `left` lanes left of a vector: the narrowest of
/// the kernel's `widths` (widest first) that holds them, or the widest.
pub(crate) fn block_width(widths: &[usize], left: usize) -> usize {
    widths
        .iter()
        .rev()
        .copied()
        .find(|&w| w >= left)
        .unwrap_or(widths[0])
}

/// Solves the vectors of the states of one card from the solved successors in `table`, in
/// blocks of the kernel's widest width for `simd` (32; the narrower blocks finish a vector).
fn solve_card<T: VectorLane>(
    table: &Solution<T>,
    objective: &VectorObjective<T>,
    scores: &ScoreTable,
    filled: BoxMask,
    simd: Simd,
    scratch: &mut VectorScratch<T>,
) -> CardVectors<T> {
    let widths = T::widths(simd);
    #[allow(non_snake_case)]
    let W = widths[0];
    let rules = &objective.rules;
    let layout = &table.layout;
    let sign = objective.direction.sign();
    let mut card = CardVectors {
        values: Vec::new(),
        ranges: Vec::new(),
        lanes: 0,
    };
    let above = objective.above.to_f64();
    let above_floor = objective.never_falls_with_points();
    let monotone = objective.monotone();
    let mut block = Vec::with_capacity(W);
    let mut span = Vec::new();
    let states = card_states(rules, filled);
    // The policy's keeps of every state of the card, chosen together.
    let keeps = objective.policy.as_ref().map(|ev| {
        let of: Vec<State> = states.iter().map(|&(state, _)| state).collect();
        ev.card_keeps(&of)
    });
    let mut sources = Vec::new();
    for (i, (state, same)) in states.into_iter().enumerate() {
        let mut specs = lay_out(&mut scratch.plan, rules, scores, &state);
        if let (Some(ev), Some(keeps)) = (&objective.policy, &keeps) {
            specs = follow_policy(&mut scratch.plan, &specs, ev.as_ref(), &keeps[i], scores);
        }
        scratch.plan.index_rolls(scores, above_floor);
        sources.clear();
        sources.extend(specs.iter().map(|s| Source {
            values: table.solved(s.next.filled),
            range: table.range(&s.next),
            shift: sign * s.gain(),
        }));
        // The coordinates where the state's vector can differ from its constants: those at
        // which some successor's stored range is read.
        let (mut from, mut to) = (i64::MAX, i64::MIN);
        for s in &sources {
            from = from.min(i64::from(s.range.lo) - s.shift);
            to = to.max(s.range.end() - s.shift);
        }
        if sign < 0 {
            // Points still needed: nothing is needed below 1.
            from = from.max(1);
        } else {
            // Points banked: a reachable position has banked from 0 to `max_banked`, and
            // every turn from there reads its successors within theirs (a box's points and
            // bonus add at most what the successor's bound adds), so the other coordinates
            // are never read and are not solved. The vector serves every upper total of
            // `same`: the bound is the largest of theirs (an upper total past the threshold
            // has banked the bonus).
            let most = set_bits(same)
                .map(|u| {
                    let s = State {
                        upper: u as u8,
                        ..state
                    };
                    max_banked(rules, &s)
                })
                .max()
                .unwrap_or(0);
            from = from.max(0);
            to = to.min(i64::from(most) + 1);
        }
        let start = card.values.len();
        // The coordinates `from..to` in blocks of `W` lanes from `from`, the last one the
        // narrowest that holds the lanes left. Where vectors are monotone, the block in the
        // middle first, then outwards, and no further than the constants: a block whose
        // lowest lane is `below` has only `below` under it, one whose highest lane is within
        // `TAIL` of `above` only such values over it, all of which the trimming below would
        // drop (measured: 3.7% fewer lanes for yahtzee's target table, 200.8 -> 193.4 million, 4.4%
        // for its distribution table; the same values).
        let len = (to - from).max(0) as usize;
        let blocks = len.div_ceil(W);
        span.clear();
        span.resize(blocks * W, objective.below);
        let middle = if monotone { blocks / 2 } else { 0 };
        let (mut low, mut high) = (middle, middle);
        let mut b = middle;
        while b < blocks {
            block.clear();
            let left = len - b * W;
            let width = block_width(widths, left);
            let args = (table, scores, &sources[..], from + (b * W) as i64);
            solve_block(args, (simd, width), scratch, &mut block);
            let n = left.min(width);
            span[b * W..b * W + n].copy_from_slice(&block[..n]);
            card.lanes += width as u64;
            // The next block: downwards from the middle while the lowest lane is not
            // `below`, then upwards while the highest is not within `TAIL` of `above`.
            if b == low && b <= middle && low > 0 && !(monotone && span[low * W] == objective.below)
            {
                low -= 1;
                b = low;
                continue;
            }
            let top = span[((high + 1) * W).min(len) - 1].to_f64();
            if high + 1 < blocks && !(monotone && (top - above).abs() <= objective.tail) {
                high += 1;
                b = high;
                continue;
            }
            break;
        }
        if blocks > 0 {
            card.values
                .extend_from_slice(&span[low * W..((high + 1) * W).min(len)]);
        }
        // Keep only what differs from the constants: leading values equal to `below`,
        // trailing values within `TAIL` of `above` (of 0 for the target) are dropped.
        let mut lo = from + (low * W) as i64;
        let mut first = start;
        while first < card.values.len() && card.values[first] == objective.below {
            first += 1;
            lo += 1;
        }
        let mut last = card.values.len();
        while last > first && (card.values[last - 1].to_f64() - above).abs() <= objective.tail {
            last -= 1;
        }
        card.values.copy_within(first..last, start);
        card.values.truncate(start + (last - first));
        let range = Range {
            offset: start as u32,
            lo: lo as i32,
            len: (last - first) as u32,
        };
        for u in set_bits(same) {
            let s = State {
                upper: u as u8,
                ..state
            };
            card.ranges.push((layout.index(&s), range));
        }
    }
    card
}

/// The values of the card `filled` and the range of each of its states (by layout index),
/// solved from its successors' cards in `table` (which must be there): exactly, bit for bit,
/// what [`solve`] computes for that card, on any instruction set. A table file that leaves a
/// card out is read back through this.
pub(crate) fn solve_one_card<T: VectorLane>(
    table: &Solution<T>,
    objective: &VectorObjective<T>,
    scores: &ScoreTable,
    filled: BoxMask,
    simd: Simd,
) -> (Box<[T]>, Vec<(usize, Range)>) {
    let mut scratch = VectorScratch::new();
    let card = solve_card(table, objective, scores, filled, simd, &mut scratch);
    (card.values.into_boxed_slice(), card.ranges)
}

/// Solves a vector objective for every reachable state, backward from the full cards, one
/// depth at a time, the cards of a depth in parallel (each by the same sequential code, so
/// the table is the same at any thread count). `progress(done, total)` counts cards.
pub fn solve<T: VectorLane>(
    objective: &VectorObjective<T>,
    simd: Simd,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Solution<T> {
    solve_reduced(objective, objective.rules.box_count(), simd, progress)
}

/// [`solve`] for the reduced game of the cards with at most `open` boxes open (the other
/// cards are left unsolved): what the brute-force checks compare on.
pub fn solve_reduced<T: VectorLane>(
    objective: &VectorObjective<T>,
    open: usize,
    simd: Simd,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Solution<T> {
    let last = objective.rules.box_count().saturating_sub(open);
    solve_cards(objective, &|_| true, last, simd, progress)
}

/// [`solve`] for the cards that follow `filled` (those with every box of `filled` filled;
/// the other cards are left unsolved): all a game from a card with `filled` needs, for an
/// objective solved for one position, such as the win objective against given opponents.
pub fn solve_from<T: VectorLane>(
    objective: &VectorObjective<T>,
    filled: BoxMask,
    simd: Simd,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Solution<T> {
    let depth = filled.count_ones() as usize;
    solve_cards(objective, &|c| c & filled == filled, depth, simd, progress)
}

/// The backward pass of [`solve`] over the cards of depth `last` and more for which
/// `include` is true.
fn solve_cards<T: VectorLane>(
    objective: &VectorObjective<T>,
    include: &(dyn Fn(BoxMask) -> bool + Sync),
    last: usize,
    simd: Simd,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Solution<T> {
    let rules = objective.rules;
    let layout = Layout::of(&rules);
    let scores = score_table(&rules);
    let by_depth: Vec<Vec<BoxMask>> = cards_by_depth(&rules)
        .into_iter()
        .enumerate()
        .map(|(depth, cards)| {
            if depth < last {
                Vec::new()
            } else {
                cards.into_iter().filter(|&c| include(c)).collect()
            }
        })
        .collect();
    let mut table = Solution {
        rules,
        layout,
        below: objective.below,
        above: objective.above,
        ranges: vec![Range::default(); layout.len()],
        cards: (0..layout.masks).map(|_| OnceLock::new()).collect(),
        objective: objective.name,
        tail: objective.tail,
        direction: objective.direction,
        lanes_computed: 0,
    };
    // The full cards: every state holds the terminal vector.
    let full = rules.full_mask();
    let (lo, terminal) = &objective.terminal;
    table.cards[full as usize] = OnceLock::from(terminal.clone().into_boxed_slice());
    let terminal_range = Range {
        offset: 0,
        lo: *lo,
        len: terminal.len() as u32,
    };
    for (state, same) in card_states(&rules, full) {
        for u in set_bits(same) {
            let s = State {
                upper: u as u8,
                ..state
            };
            table.ranges[layout.index(&s)] = terminal_range;
        }
    }
    let total: u64 = by_depth.iter().map(|d| d.len() as u64).sum();
    let mut done = by_depth[rules.box_count()].len() as u64;
    progress(done, total);
    for depth in (last..rules.box_count()).rev() {
        let cards = &by_depth[depth];
        // Progress is reported as each card starts (a depth of Yatzy's target table is
        // seconds of work): a bar moves within a depth, and a caller that stops the solve from
        // its progress callback (the server, when its client has gone) stops it within a card.
        let started = AtomicU64::new(done);
        let solved: Vec<(BoxMask, CardVectors<T>)> = cards
            .par_iter()
            .map_init(VectorScratch::new, |scratch, &filled| {
                progress(started.fetch_add(1, Ordering::Relaxed), total);
                (
                    filled,
                    solve_card(&table, objective, &scores, filled, simd, scratch),
                )
            })
            .collect();
        for (filled, card) in solved {
            table.lanes_computed += card.lanes;
            for (index, range) in card.ranges {
                table.ranges[index] = range;
            }
            table.cards[filled as usize] = OnceLock::from(card.values.into_boxed_slice());
        }
        done += cards.len() as u64;
        progress(done, total);
    }
    table
}

/// The most points a state can still score: the best of every open box, the upper bonus if
/// still reachable, and the five-of-a-kind bonus on every turn that can earn it. The target
/// objective's `P*(s, t)` is 0 for every `t` above it.
pub fn max_remaining(rules: &Rules, state: &State) -> u32 {
    CardRemaining::of(rules, state.filled).at(rules, state.upper, state.yahtzee_50)
}

/// What the open boxes of one card can still score, whatever its upper total and flag:
/// [`max_remaining`] worked out once per card.
struct CardRemaining {
    /// The best of every open box.
    boxes: u32,
    /// The best of the open upper boxes.
    upper_open: u32,
    /// Turns left.
    turns: u32,
    /// The five-of-a-kind box is open.
    five_open: bool,
}

impl CardRemaining {
    fn of(rules: &Rules, filled: BoxMask) -> CardRemaining {
        let open = rules.full_mask() & !filled;
        let best =
            |mask: BoxMask| -> u32 { set_bits(u64::from(mask)).map(|c| rules.max_score(c)).sum() };
        CardRemaining {
            boxes: best(open),
            upper_open: best(open & rules.upper_mask()),
            turns: open.count_ones(),
            five_open: rules
                .five_of_a_kind_box()
                .is_some_and(|b| open & (1 << b) != 0),
        }
    }

    /// The most the card can still score from the upper total `upper`, with (`yahtzee_50`)
    /// or without the five-of-a-kind box's points.
    fn at(&self, rules: &Rules, upper: u8, yahtzee_50: bool) -> u32 {
        let upper_bonus = if self.bonus_totals(rules) & (1 << upper) != 0 {
            rules.upper_bonus_points()
        } else {
            0
        };
        self.besides_upper_bonus(rules, yahtzee_50) + upper_bonus
    }

    /// The upper totals from which the upper bonus is still to be earned: below its
    /// threshold by no more than the open upper boxes can score.
    fn bonus_totals(&self, rules: &Rules) -> UpperTotals {
        if !rules.has_upper_bonus() {
            return 0;
        }
        let threshold = rules.upper_threshold();
        let from = threshold.saturating_sub(self.upper_open);
        ((1 << threshold) - 1) & !((1 << from) - 1)
    }

    /// The most the card can still score but the upper bonus: its open boxes, and the
    /// five-of-a-kind bonus of every turn that can earn it.
    fn besides_upper_bonus(&self, rules: &Rules, yahtzee_50: bool) -> u32 {
        let bonus_turns = if !rules.has_yahtzee_bonus() {
            0
        } else if yahtzee_50 {
            self.turns
        } else if self.five_open {
            self.turns.saturating_sub(1)
        } else {
            0
        };
        self.boxes + bonus_turns * rules.yahtzee_bonus_points()
    }
}

/// A bound on the values a target or distribution table of `rules` holds while it is
/// solved (its file packs them further): each card's vectors (states whose vectors are equal
/// counted once, as [`solve`] stores them) times the targets at which a vector can differ
/// from its constants, 1 to the most its state can still score ([`max_remaining`]). The
/// vectors cut where their tail falls below [`TAIL`] make a table smaller: Yahtzee's target
/// table holds 185 million values, of a bound of 209 million. Milliseconds for a card of 15
/// boxes, a fraction of a second for 20.
pub fn stored_values_bound(rules: &Rules) -> u64 {
    cards_by_depth(rules)
        .iter()
        .flatten()
        .map(|&filled| {
            let card = CardRemaining::of(rules, filled);
            let (flags, solo, _) = card_vectors(rules, filled);
            let with_bonus = u64::from((solo & card.bonus_totals(rules)).count_ones());
            flags
                .iter()
                .map(|&flag| {
                    u64::from(solo.count_ones()) * u64::from(card.besides_upper_bonus(rules, flag))
                        + with_bonus * u64::from(rules.upper_bonus_points())
                })
                .sum::<u64>()
        })
        .sum()
}

/// The most points a card in `state` can have banked: the best of every filled box, the upper
/// bonus once the upper total has reached its threshold, and a five-of-a-kind bonus on every
/// turn after the first when the five-of-a-kind box holds its points (a card holds at most
/// one bonus per turn after that box). The points banked on a reachable card lie in
/// `0..=max_banked`, and a turn adds to them at most what it adds to the bound: the win
/// objective's vectors are solved only there.
pub fn max_banked(rules: &Rules, state: &State) -> u32 {
    let filled = state.filled & rules.full_mask();
    let boxes: u32 = set_bits(u64::from(filled))
        .map(|c| rules.max_score(c))
        .sum();
    let upper_bonus =
        if rules.has_upper_bonus() && u32::from(state.upper) >= rules.upper_threshold() {
            rules.upper_bonus_points()
        } else {
            0
        };
    let bonus_turns = if rules.has_yahtzee_bonus() && state.yahtzee_50 {
        filled.count_ones().saturating_sub(1)
    } else {
        0
    };
    boxes + upper_bonus + bonus_turns * rules.yahtzee_bonus_points()
}

impl VectorObjective<f32> {
    /// The objective of a table file's header, by its name.
    pub fn by_name(name: &str, rules: Rules) -> Option<VectorObjective<f32>> {
        match name {
            TARGET => Some(VectorObjective::target(rules)),
            DISTRIBUTION => Some(VectorObjective {
                name: DISTRIBUTION,
                ..VectorObjective::target(rules)
            }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::state::{ScoreCard, reachable_states};

    /// `max_banked` bounds what the win objective solves: every turn of every state must
    /// land within its successor's bound (the box's points and bonus added), or a value read
    /// by a reachable position would be a constant instead of the solved one.
    #[test]
    fn max_banked_grows_by_at_least_what_every_turn_scores() {
        for rules in Rules::all().filter(|r| r.set.solves_in_seconds()) {
            let scores = score_table(&rules);
            let mut plan = Plan::<f64>::new();
            let mut checked = 0;
            for (i, state) in reachable_states(&rules).enumerate() {
                if state.filled == rules.full_mask() || i % 7 != 0 {
                    continue;
                }
                let here = max_banked(&rules, &state);
                for s in lay_out(&mut plan, &rules, &scores, &state) {
                    let there = max_banked(&rules, &s.next);
                    assert!(
                        i64::from(there) >= i64::from(here) + s.gain(),
                        "{}: {state:?} (bound {here}) scores {} in box {} to {:?} (bound {there})",
                        rules.label(),
                        s.gain(),
                        s.box_index,
                        s.next
                    );
                    checked += 1;
                }
            }
            assert!(checked > 100, "{}: {checked} turns", rules.label());
        }
    }

    /// What makes the final roll's floors exact ([`Plan::index_rolls`]): in solved target and
    /// win tables, each open box's row of more points is worth at least its row of fewer, at
    /// every coordinate, to the bit (and so at least its floor), in a fifth of the states of
    /// the reduced games (the upper boxes, the bonuses and the Joker included).
    #[test]
    fn a_box_scoring_more_points_is_worth_at_least_as_much_to_the_bit() {
        use crate::policy::win::FinalScores;
        for rules in Rules::all().filter(|r| r.set.solves_in_seconds()) {
            let objectives = [
                VectorObjective::<f32>::target(rules),
                VectorObjective::<f32>::win(rules, &[FinalScores::point(90)]),
            ];
            for objective in &objectives {
                assert!(objective.never_falls_with_points());
                let open = 4;
                let table = solve_reduced(objective, open, Simd::detect(), &|_, _| {});
                let scores = score_table(&rules);
                let mut plan = Plan::<f32>::new();
                let (mut rows, mut rising) = (0, 0);
                for (i, state) in reachable_states(&rules).enumerate() {
                    let left = rules.box_count() - state.filled.count_ones() as usize;
                    if left == 0 || left > open || i % 5 != 0 {
                        continue;
                    }
                    let specs = lay_out(&mut plan, &rules, &scores, &state);
                    let range = table.range(&state);
                    let sign = objective.direction.sign();
                    for &(c, first) in &plan.ranked {
                        let count = scores.distinct[usize::from(c)].len();
                        let box_rows = &specs[usize::from(first)..][..count];
                        for pair in box_rows.windows(2) {
                            for x in i64::from(range.lo) - 20..range.end() + 20 {
                                let read = |s: &RowSpec| {
                                    table.value(&s.next, x + sign * s.gain()).unwrap()
                                };
                                let (fewer, more) = (read(&pair[0]), read(&pair[1]));
                                assert!(
                                    more >= fewer,
                                    "{} {}: {state:?}, box {c}: {more} < {fewer} at {x}",
                                    rules.label(),
                                    objective.name
                                );
                                rows += 1;
                                rising += usize::from(more > fewer);
                            }
                        }
                    }
                }
                assert!(
                    rising > 1000 && rows > rising,
                    "{}: {rising} of {rows}",
                    rules.label()
                );
            }
        }
    }

    /// Cards filled at random, with a bonus whenever one can be earned: the points banked
    /// never exceed the bound of the card's state.
    #[test]
    fn banked_points_of_a_card_are_within_max_banked() {
        for rules in Rules::all().filter(|r| r.set.solves_in_seconds()) {
            let mut rng = crate::game::dice::DiceRng::new(7);
            for _ in 0..300 {
                let mut card = ScoreCard::new(rules);
                let mut open: Vec<usize> = (0..rules.box_count()).collect();
                while !open.is_empty() {
                    let pick = open.remove(usize::from(rng.die()) * 7 % open.len());
                    let possible = rules.possible_scores(pick);
                    let points =
                        *possible.last().expect("every box can score") * u32::from(rng.die() > 2);
                    let points = if possible.contains(&points) {
                        points
                    } else {
                        0
                    };
                    let bonus = card.state().yahtzee_50 && rng.die() > 3;
                    card.fill(pick, points, bonus && rules.has_yahtzee_bonus());
                    let state = card.state();
                    assert!(
                        card.banked() <= max_banked(&rules, &state),
                        "{}: {} banked, bound {} for {state:?}",
                        rules.label(),
                        card.banked(),
                        max_banked(&rules, &state)
                    );
                }
            }
        }
    }
}
