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
//! So the lanes of the kernel ([`crate::kernel`]) are consecutive coordinates of one state,
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

use rayon::prelude::*;

use crate::dice::{Dice, FIRST_ROLL, ROLLS};
use crate::kernel::{KeepArray, Layer, Plan, Real, ScoreTable, run_turn};
use crate::rules::{BoxMask, Joker, Rules};
use crate::solver::{Simd, shared_upper_totals};
use crate::state::{Layout, State, cards_by_depth, reachable_upper_totals, set_bits};

/// Values below this at the end of a vector are left out (read as the `above` value, 0 for
/// the target objective). The error this makes is at most `TAIL` per turn of the game, far
/// below the precision of the stored values (`f32`: 6e-8 near 1).
pub const TAIL: f64 = 1e-9;

/// Lanes solved together: four AVX2 registers of `f32` per multiset (two with AVX-512), like
/// the 16 lanes of `f64` of the expected score. Measured with AVX-512 (Yacht's target table,
/// one thread, best of 8): 64 lanes 1.5 times as long, 16 lanes 1.5 times as long.
pub(crate) const BLOCK: usize = 32;
/// The narrowest block: a vector's last lanes go in blocks of `BLOCK / 2`, ..., `TAIL_BLOCK`
/// lanes rather than being padded to a whole block.
const TAIL_BLOCK: usize = 8;

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

/// The vector of every reachable state of one rule set for one objective.
#[derive(Clone, Debug)]
pub struct VectorTable<T> {
    rules: Rules,
    layout: Layout,
    /// The value below each state's range.
    below: T,
    /// The value above each state's range.
    above: T,
    /// Each state's range, by layout index (unreachable states: an empty range).
    ranges: Vec<Range>,
    /// The values of each card, by mask of filled boxes.
    cards: Vec<Box<[T]>>,
    /// Lanes the kernel computed (blocks included whole), for the benchmarks.
    lanes_computed: u64,
}

impl<T: Real> VectorTable<T> {
    /// The rules of the table.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Where each state sits.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The stored range of `state`.
    pub fn range(&self, state: &State) -> Range {
        self.ranges[self.layout.index(state)]
    }

    /// The value of `state` at coordinate `x`.
    pub fn value(&self, state: &State, x: i64) -> T {
        let range = self.range(state);
        read(
            &self.cards[usize::from(state.filled)],
            range,
            self.below,
            self.above,
            x,
        )
    }

    /// The stored values of `state`, for coordinates `range.lo..range.end()`.
    pub fn stored(&self, state: &State) -> &[T] {
        let r = self.range(state);
        &self.cards[usize::from(state.filled)][r.offset as usize..][..r.len as usize]
    }

    /// Lanes the kernel computed to solve the table (whole blocks).
    pub fn lanes_computed(&self) -> u64 {
        self.lanes_computed
    }

    /// Number of values stored (states that share a vector count it once).
    pub fn stored_values(&self) -> u64 {
        self.cards.iter().map(|c| c.len() as u64).sum()
    }
}

/// The value of a stored vector at coordinate `x`.
#[inline]
fn read<T: Real>(values: &[T], range: Range, below: T, above: T, x: i64) -> T {
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
fn fill_shifted<T: Real>(row: &mut [T], x0: i64, values: &[T], range: Range, below: T, above: T) {
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
    let spec = |c: usize, points: u32, five: bool| {
        let bonus = state.bonus_for(rules, c, points, five);
        RowSpec {
            box_index: c as u8,
            points,
            bonus,
            next: state.after(rules, c, points),
        }
    };
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
    for r in 0..ROLLS {
        if !scores.five_of_a_kind[r] {
            continue;
        }
        let dice = Dice::from_index(FIRST_ROLL + r);
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
            .push((r as u8, from, plan.joker_rows.len() as u16));
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
    fn sign(self) -> i64 {
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
        }
    }
}

/// The states of one card a vector pass computes: each reachable (upper total, flag), the
/// totals whose vectors are equal sharing one (the lowest computes it).
fn card_states(rules: &Rules, layout: &Layout, filled: BoxMask) -> Vec<(State, u64)> {
    let five_filled = rules
        .five_of_a_kind_box()
        .is_some_and(|b| filled & (1 << b) != 0);
    let flags: &[bool] = if layout.flags == 2 && five_filled {
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

/// Per-thread working memory of a vector pass.
struct VectorScratch<T> {
    keeps: KeepArray<T>,
    plan: Plan<T>,
}

impl<T: Real> VectorScratch<T> {
    fn new() -> VectorScratch<T> {
        VectorScratch {
            keeps: KeepArray::new(BLOCK),
            plan: Plan::new(),
        }
    }
}

/// The solved vectors of one card: its values and the range of each of its states.
struct CardVectors<T> {
    values: Vec<T>,
    ranges: Vec<(usize, Range)>,
    lanes: u64,
}

/// Rolls summed together in the value type before the opening mean adds their sum in `f64`
/// (252 = 21 runs of 12).
const OPENING_RUN: usize = 12;

/// The value of a state's turn at the coordinates of one block: the plan's rows filled from
/// the successors for coordinates `x0..x0 + N`, the kernel run, the opening mean taken (in
/// `f64`). Appends `N` values to `out`.
#[inline(always)]
fn solve_block<T: Real, const N: usize>(
    (table, objective, scores, specs, x0): BlockArgs<'_, T>,
    scratch: &mut VectorScratch<T>,
    out: &mut Vec<T>,
) {
    let sign = objective.direction.sign();
    scratch.plan.restart_rows(N, specs.len());
    for s in specs {
        let card = &table.cards[usize::from(s.next.filled)];
        let range = table.range(&s.next);
        scratch.plan.push_row_with(|row| {
            fill_shifted(
                row,
                x0 + sign * s.gain(),
                card,
                range,
                table.below,
                table.above,
            );
        });
    }
    let k = scratch.keeps.block::<N>();
    run_turn(k, &scratch.plan, scores, 0, Layer::Opening, |_, _| {});
    // The opening roll: the mean over the 252 rolls, by their probabilities, the number of
    // ways (of 7,776) of throwing each, exact in any type. Each run of `OPENING_RUN` rolls is
    // summed in `T`, the runs in `f64`, and the total is divided by 7,776 once: a 252-term
    // sum in `f32` would lose up to 1e-6, and rounded probabilities add up to 1 + 1.4e-8.
    let ways = T::roll_ways();
    let mut total = [0.0f64; N];
    for (run, w) in k[FIRST_ROLL..].chunks(OPENING_RUN).zip(ways.chunks(OPENING_RUN)) {
        let mut part = [T::ZERO; N];
        for (v, &w) in run.iter().zip(w) {
            for l in 0..N {
                part[l] = part[l] + w * v[l];
            }
        }
        for l in 0..N {
            total[l] += part[l].to_f64();
        }
    }
    for t in total.iter_mut() {
        *t /= 7776.0;
    }
    out.extend(total.iter().map(|&v| T::from_f64(v)));
}

/// What a block of one state's vector needs: the table so far, the objective, the scores,
/// the state's rows and the block's first coordinate.
type BlockArgs<'a, T> = (
    &'a VectorTable<T>,
    &'a VectorObjective<T>,
    &'a ScoreTable,
    &'a [RowSpec],
    i64,
);

/// Solves the vectors of the states of one card from the solved successors in `table`, in
/// blocks of at most `W` lanes (32; the narrower blocks finish a vector).
#[inline(always)]
fn solve_card<T: Real, const W: usize>(
    table: &VectorTable<T>,
    objective: &VectorObjective<T>,
    scores: &ScoreTable,
    filled: BoxMask,
    scratch: &mut VectorScratch<T>,
) -> CardVectors<T> {
    let rules = &objective.rules;
    let layout = &table.layout;
    let sign = objective.direction.sign();
    let mut card = CardVectors {
        values: Vec::new(),
        ranges: Vec::new(),
        lanes: 0,
    };
    let above = objective.above.to_f64();
    let mut block = Vec::with_capacity(BLOCK);
    for (state, same) in card_states(rules, layout, filled) {
        let specs = lay_out(&mut scratch.plan, rules, scores, &state);
        // The coordinates where the state's vector can differ from its constants: those at
        // which some successor's stored range is read.
        let (mut from, mut to) = (i64::MAX, i64::MIN);
        for s in &specs {
            let r = table.range(&s.next);
            let shift = sign * s.gain();
            from = from.min(i64::from(r.lo) - shift);
            to = to.max(r.end() - shift);
        }
        if sign < 0 {
            // Points still needed: nothing is needed below 1.
            from = from.max(1);
        }
        let start = card.values.len();
        let mut x0 = from;
        while x0 < to {
            block.clear();
            let left = (to - x0) as usize;
            // The widest block, or the narrowest that holds the lanes left.
            let width = if left > W / 2 {
                W
            } else {
                left.next_power_of_two().max(TAIL_BLOCK)
            };
            let args = (table, objective, scores, &specs[..], x0);
            match width {
                32 => solve_block::<T, 32>(args, scratch, &mut block),
                16 => solve_block::<T, 16>(args, scratch, &mut block),
                _ => solve_block::<T, TAIL_BLOCK>(args, scratch, &mut block),
            }
            let n = left.min(width);
            card.values.extend_from_slice(&block[..n]);
            card.lanes += width as u64;
            x0 += width as i64;
        }
        // Keep only what differs from the constants: leading values equal to `below`,
        // trailing values within `TAIL` of `above` (of 0 for the target) are dropped.
        let mut lo = from;
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

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn solve_card_avx512<T: Real>(
    table: &VectorTable<T>,
    objective: &VectorObjective<T>,
    scores: &ScoreTable,
    filled: BoxMask,
    scratch: &mut VectorScratch<T>,
) -> CardVectors<T> {
    solve_card::<T, BLOCK>(table, objective, scores, filled, scratch)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn solve_card_avx2<T: Real>(
    table: &VectorTable<T>,
    objective: &VectorObjective<T>,
    scores: &ScoreTable,
    filled: BoxMask,
    scratch: &mut VectorScratch<T>,
) -> CardVectors<T> {
    solve_card::<T, BLOCK>(table, objective, scores, filled, scratch)
}

fn solve_card_dispatch<T: Real>(
    simd: Simd,
    table: &VectorTable<T>,
    objective: &VectorObjective<T>,
    scores: &ScoreTable,
    filled: BoxMask,
    scratch: &mut VectorScratch<T>,
) -> CardVectors<T> {
    use crate::solver::Isa;
    match simd.isa() {
        // SAFETY: a `Simd` is only made for an instruction set this processor has. No
        // operation is fused, so every instruction set gives the same bits.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { solve_card_avx512(table, objective, scores, filled, scratch) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { solve_card_avx2(table, objective, scores, filled, scratch) },
        _ => solve_card::<T, BLOCK>(table, objective, scores, filled, scratch),
    }
}

/// Solves a vector objective for every reachable state, backward from the full cards, one
/// depth at a time, the cards of a depth in parallel (each by the same sequential code, so
/// the table is the same at any thread count). `progress(done, total)` counts cards.
pub fn solve<T: Real>(
    objective: &VectorObjective<T>,
    simd: Simd,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> VectorTable<T> {
    let rules = objective.rules;
    let layout = Layout::of(&rules);
    let scores = ScoreTable::new(&rules);
    let by_depth = cards_by_depth(&rules);
    let mut table = VectorTable {
        rules,
        layout,
        below: objective.below,
        above: objective.above,
        ranges: vec![Range::default(); layout.len()],
        cards: (0..layout.masks).map(|_| Box::default()).collect(),
        lanes_computed: 0,
    };
    // The full cards: every state holds the terminal vector.
    let full = rules.full_mask();
    let (lo, terminal) = &objective.terminal;
    table.cards[usize::from(full)] = terminal.clone().into_boxed_slice();
    let terminal_range = Range {
        offset: 0,
        lo: *lo,
        len: terminal.len() as u32,
    };
    for (state, same) in card_states(&rules, &layout, full) {
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
    for depth in (0..rules.box_count()).rev() {
        let cards = &by_depth[depth];
        let solved: Vec<(BoxMask, CardVectors<T>)> = cards
            .par_iter()
            .map_init(VectorScratch::new, |scratch, &filled| {
                (
                    filled,
                    solve_card_dispatch(simd, &table, objective, &scores, filled, scratch),
                )
            })
            .collect();
        for (filled, card) in solved {
            table.lanes_computed += card.lanes;
            for (index, range) in card.ranges {
                table.ranges[index] = range;
            }
            table.cards[usize::from(filled)] = card.values.into_boxed_slice();
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
    let open = rules.full_mask() & !state.filled;
    let boxes: u32 = set_bits(u64::from(open)).map(|c| rules.max_score(c)).sum();
    let upper_open: u32 = set_bits(u64::from(open & rules.upper_mask()))
        .map(|c| rules.max_score(c))
        .sum();
    let threshold = rules.upper_threshold();
    let upper_bonus = if rules.has_upper_bonus()
        && u32::from(state.upper) < threshold
        && u32::from(state.upper) + upper_open >= threshold
    {
        rules.upper_bonus_points()
    } else {
        0
    };
    let turns = open.count_ones();
    let five = rules.five_of_a_kind_box();
    let bonus_turns = if !rules.has_yahtzee_bonus() {
        0
    } else if state.yahtzee_50 {
        turns
    } else if five.is_some_and(|b| open & (1 << b) != 0) {
        turns.saturating_sub(1)
    } else {
        0
    };
    boxes + upper_bonus + bonus_turns * rules.yahtzee_bonus_points()
}
