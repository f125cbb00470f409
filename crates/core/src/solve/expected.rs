//! The dynamic-programming solver: the exact expected future score of every turn-start state
//! under optimal play.
//!
//! States are solved backward, from full cards to the empty card, one depth (number of filled
//! boxes) at a time; the cards of one depth only read values of the next depth, so rayon
//! solves them in parallel, and each card is computed by the same sequential code whatever the
//! thread count, which makes the table bit-identical at any thread count.
//!
//! One *turn* is solved for all the states of one card at once: every reachable upper total (0 to
//! 63, or to 84 in Maxi Yatzy) with both values of the Yahtzee-box flag shares the same dice, the
//! same keeps and the same boxes, and differs only in which successor value it reads and whether a
//! further Yahtzee earns 100. The reachable states of a card are packed into lanes (`Lanes`), the
//! totals from which the upper bonus is out of reach sharing one lane (their values are equal: the
//! total plays no further part), and each quantity of the turn is an array of `N` lanes (16, 32
//! with AVX-512, 1 in rule sets without an upper bonus), which the compiler turns into SIMD code. A
//! turn is:
//!
//! 1. the last roll: for each of the 252 rolls, the best box to fill
//!    (`score_final_roll`);
//! 2. the value of each keep, by recursion over one more die: the value of keeping `k` is the
//!    mean over the six faces of keeping `k` plus that face (`expect_keeps`), 1,260 additions
//!    per layer instead of 4,368 multiply-adds over the outcome probabilities;
//! 3. the best keep of each roll, as a maximum over the lattice of sub-multisets
//!    (`best_keeps`);
//! 4. steps 2 and 3 again for the first re-roll, then the mean over the opening rolls.
//!
//! Values inside a turn are kept "with the upper bonus held": a state at 63 carries +35 once
//! the bonus is secured, so moving to a higher upper total is a plain shifted read of the
//! successor row, with no special case for a state already at 63 (see `Successors`). The
//! successor reads of each lane are gathered once per card into rows of lanes (`Plan`), so
//! the hot loops read contiguous lanes.
//!
//! What reads the solved values one state at a time is here too: one turn of one state
//! ([`ExpectedValues::turn`], the trait of the solved values that the expected-score table
//! implements) and the values of every keep of that turn ([`TurnValues`]), which the
//! advice, the bots, the statistics and the solves that follow the expected-score policy
//! read.

use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use crate::game::dice::{ALL_MULTISETS, Dice, DiceSpace, Keep, MAX_DICE};
use crate::game::rules::{BoxMask, Joker, MAX_BOXES, Rules};
use crate::game::state::{
    Layout, State, UPPER_TOTALS, UpperTotals, cards_by_depth, reachable_upper_totals, set_bits,
};
use crate::game::ties::{Preferred, PreferredLanes, TIE};
pub use crate::solve::kernel::Layer;
pub(crate) use crate::solve::kernel::ScoreTable;
use crate::solve::kernel::{KeepArray, Kernel, Plan, score_table_for, turn};
use crate::solve::simd::Simd;
use crate::solve::theta::{Shift, Theta, check_finite, exponentiate};
use yahtzee_kernel::simd_dispatch;

/// Length of a successor row: every upper total a layout may track (64 with a threshold of 63,
/// 85 with Maxi Yatzy's 84, at most [`UPPER_TOTALS`]) plus room for the largest upper score
/// (30, or 36 with six dice), so a lane `u` reading `u + points` never leaves the row. Lanes
/// past the threshold repeat the threshold's lane.
const ROW: usize = UPPER_TOTALS + 6 * MAX_DICE;
/// The successor slot of the five-of-a-kind box filled with its points (50), which sets the
/// bonus flag (slots 0 to `MAX_BOXES - 1` are the boxes filled with anything else).
const SLOT_FIFTY: usize = MAX_BOXES;
/// Successor rows: one per box, plus [`SLOT_FIFTY`].
const SLOTS: usize = MAX_BOXES + 1;

/// The upper bonus a value "with the bonus held" carries at upper total `upper`: the bonus's
/// points once the total has reached the threshold, else 0. Inside a turn every value is in
/// this form (see the module documentation); this is the one place the correction is made.
#[inline]
pub(crate) fn held_bonus(rules: &Rules, upper: usize) -> f64 {
    match rules.upper_bonus() {
        Some(b) if upper >= b.threshold as usize => f64::from(b.points),
        _ => 0.0,
    }
}

/// The solved values a turn reads: every state's at its index in the layout (a whole table,
/// or a solve under way), or the rows of a few cards only (a table read in part to answer a
/// few positions of a game whose table is large: `StrategyTable::load_cards`).
#[derive(Clone, Copy, Debug)]
pub enum Solved<'a> {
    /// Every state's value, in the order of [`Layout`].
    All(&'a [f64]),
    /// The rows of `cards` (ascending), card after card, each its `flags * lanes` values in
    /// the order of [`Layout`].
    Cards {
        /// The cards held.
        cards: &'a [BoxMask],
        /// Their rows.
        values: &'a [f64],
    },
}

impl<'a> Solved<'a> {
    /// The row of the card `filled` with the Yahtzee-box flag `yahtzee_50`: its `lanes`
    /// values, one per upper total. Panics for a card a table read in part does not hold:
    /// such a table is made for the positions whose cards it holds.
    #[inline]
    pub fn row(&self, layout: &Layout, filled: BoxMask, yahtzee_50: bool) -> &'a [f64] {
        let at = match *self {
            Solved::All(_) => layout.row(filled, yahtzee_50),
            Solved::Cards { cards, .. } => {
                let card = cards.binary_search(&filled).unwrap_or_else(|_| {
                    panic!("the card {filled:#x} is not among the cards of a table read in part")
                });
                (card * layout.flags + usize::from(yahtzee_50 && layout.flags == 2)) * layout.lanes
            }
        };
        let (Solved::All(values) | Solved::Cards { values, .. }) = *self;
        &values[at..at + layout.lanes]
    }

    /// The value of `state`.
    #[inline]
    pub fn value(&self, layout: &Layout, state: &State) -> f64 {
        self.row(layout, state.filled, state.yahtzee_50)
            [usize::from(state.upper).min(layout.lanes - 1)]
    }
}

/// Successor values of one card in "bonus held" form, for both values of the Yahtzee-box
/// flag: row `(flag, slot)` (at `(flag * SLOTS + slot) * ROW`) holds at `i` the value of the
/// state reached by filling the box of `slot`, at upper total `min(i, threshold)`, plus the
/// upper bonus when that total is the threshold (in rule sets with an upper bonus). A box scoring `p` in the
/// upper section moves lane `u` to `i = u + p`; any other box leaves it at `i = u`.
pub(crate) struct Successors {
    rows: Vec<f64>,
}

impl Successors {
    pub(crate) fn new() -> Successors {
        Successors {
            rows: vec![0.0; 2 * SLOTS * ROW],
        }
    }

    /// Where the row of `slot` for lanes with `flag` starts.
    fn at(flag: bool, slot: usize) -> usize {
        (usize::from(flag) * SLOTS + slot) * ROW
    }

    /// Fills the rows of the card `filled` for each flag in `flags` from the solved `values`.
    pub(crate) fn load(
        &mut self,
        rules: &Rules,
        layout: &Layout,
        values: Solved<'_>,
        filled: BoxMask,
        flags: &[bool],
    ) {
        self.load_with(rules, layout, filled, flags, |next, flag| {
            values.row(layout, next, flag)
        });
    }

    /// [`Successors::load`] with the solved row (`layout.lanes` values) of each card and flag
    /// reached read by `row(card, flag)`: the same rows from another store of values (the
    /// solve under saved rolls keeps a depth at a time, a row per rolls saved).
    pub(crate) fn load_with<'v>(
        &mut self,
        rules: &Rules,
        layout: &Layout,
        filled: BoxMask,
        flags: &[bool],
        row_of: impl Fn(BoxMask, bool) -> &'v [f64],
    ) {
        let last = layout.lanes - 1;
        let held = held_bonus(rules, last);
        let open = rules.open_by_order(filled);
        for &yahtzee_50 in flags {
            for slot in 0..SLOTS {
                let index = if slot == SLOT_FIFTY {
                    match rules.five_of_a_kind_box() {
                        Some(b) => b,
                        None => continue,
                    }
                } else {
                    slot
                };
                if index >= rules.box_count() || open & (1 << index) == 0 {
                    continue;
                }
                let next_flag = yahtzee_50 || (slot == SLOT_FIFTY && rules.has_yahtzee_bonus());
                let solved = row_of(filled | (1 << index), next_flag);
                let at = Successors::at(yahtzee_50, slot);
                // What the lanes of this layout read: its totals and the largest upper score.
                let row = &mut self.rows[at..at + layout.lanes + 6 * MAX_DICE];
                if rules.has_upper_bonus() {
                    row[..last].copy_from_slice(&solved[..last]);
                    row[last..].fill(solved[last] + held);
                } else {
                    row.fill(solved[0]);
                }
            }
        }
    }
}

/// The states of one card solved together, one per lane: their upper totals and Yahtzee-box
/// flags. Only reachable states are listed, packed, and the list is padded to whole blocks
/// by repeating its last state.
pub(crate) struct Lanes {
    pub upper: Vec<u8>,
    pub flag: Vec<bool>,
    /// Where each lane reads in [`Successors`], less the slot and shift: the flag's rows plus
    /// the upper total.
    base: Vec<u32>,
}

impl Lanes {
    pub(crate) fn new() -> Lanes {
        Lanes {
            upper: Vec::with_capacity(2 * UPPER_TOTALS),
            flag: Vec::with_capacity(2 * UPPER_TOTALS),
            base: Vec::with_capacity(2 * UPPER_TOTALS),
        }
    }

    pub(crate) fn clear(&mut self) {
        self.upper.clear();
        self.flag.clear();
        self.base.clear();
    }

    pub(crate) fn push(&mut self, upper: u8, flag: bool) {
        self.upper.push(upper);
        self.flag.push(flag);
        self.base
            .push((Successors::at(flag, 0) + usize::from(upper)) as u32);
    }

    pub(crate) fn len(&self) -> usize {
        self.upper.len()
    }

    /// Repeats the last lane up to a multiple of `n` lanes.
    fn pad_to(&mut self, n: usize) {
        while !self.len().is_multiple_of(n) {
            let (u, f) = (self.upper[self.len() - 1], self.flag[self.len() - 1]);
            self.push(u, f);
        }
    }
}

/// What one turn of one card needs besides the successor values.
#[derive(Clone, Copy)]
pub(crate) struct Turn<'a> {
    pub rules: &'a Rules,
    pub scores: &'a ScoreTable,
    pub filled: BoxMask,
    /// The exponential utility whose certainty equivalents the values are
    /// ([`crate::solve::theta`]; `scores` then has every box ranked), or `None` for the
    /// expected score.
    pub theta: Option<Theta>,
}

impl Turn<'_> {
    /// Builds `plan` from the loaded successors for the states of `lanes`, its rows mapped to
    /// utilities under a θ (their shifts in `shift`).
    fn build(&self, plan: &mut Plan<f64>, succ: &Successors, lanes: &Lanes, shift: &mut Shift) {
        plan.build(self, succ, lanes);
        if let Some(theta) = self.theta {
            exponentiate(plan, self.scores, theta, shift);
        }
    }
}

/// The expected score's plan of a card: which boxes each final roll may fill, worked out
/// once per card and shared by all its lane blocks. Within one box a roll matters only
/// through the points it scores. An upper box (whose points shift the upper total) and the
/// five-of-a-kind box (whose 50 leads to another state) get one precomputed row of lanes per
/// points they can score: the points plus the successor value. The rows of one box are
/// consecutive, in the order of its distinct points, so the row of a roll is the box's first
/// row plus the roll's rank (`ScoreTable::rank`). Every other box gets one row, its successor
/// values, to which a roll adds its points (`ScoreTable::adds`). Yahtzees rolled with the
/// Yahtzee box filled, where the Joker decides, have their own lists of rows.
pub(crate) trait CardPlan {
    /// Makes the rows of every open box of `turn`'s card and of the Joker's choices from the
    /// loaded successors, for the states of `lanes`.
    fn build(&mut self, turn: &Turn<'_>, succ: &Successors, lanes: &Lanes);
}

/// [`CardPlan::build`]'s rows.
trait Rows {
    fn make_row(
        &mut self,
        turn: &Turn<'_>,
        succ: &Successors,
        lanes: &Lanes,
        c: usize,
        points: u32,
        bonus: u32,
    ) -> u16;
}

impl Rows for Plan<f64> {
    /// Appends the row of filling box `c` with `points` (plus `bonus` in the lanes whose
    /// Yahtzee box holds 50), returning its index.
    fn make_row(
        &mut self,
        turn: &Turn<'_>,
        succ: &Successors,
        lanes: &Lanes,
        c: usize,
        points: u32,
        bonus: u32,
    ) -> u16 {
        let rules = turn.rules;
        let slot =
            if Some(c) == rules.five_of_a_kind_box() && points == rules.five_of_a_kind_points() {
                SLOT_FIFTY
            } else {
                c
            };
        let shift = if rules.has_upper_bonus() && rules.boxes()[c].is_upper() {
            points as usize
        } else {
            0
        };
        let plain = f64::from(points);
        let with_bonus = f64::from(points + bonus);
        let offset = slot * ROW + shift;
        if bonus == 0 {
            self.push_row(
                lanes
                    .base
                    .iter()
                    .map(|&b| plain + succ.rows[b as usize + offset]),
            )
        } else {
            self.push_row(lanes.base.iter().zip(&lanes.flag).map(|(&b, &flag)| {
                let gain = if flag { with_bonus } else { plain };
                gain + succ.rows[b as usize + offset]
            }))
        }
    }
}

impl CardPlan for Plan<f64> {
    fn build(&mut self, turn: &Turn<'_>, succ: &Successors, lanes: &Lanes) {
        self.begin(lanes.len(), turn.scores.max_rows);
        let rules = turn.rules;
        let open = rules.open_by_order(turn.filled);
        // The rows of every open box and every points it can score by its own condition.
        for c in set_bits(u64::from(open)) {
            let first = self.rows_made();
            if turn.scores.adds & (1 << c) != 0 {
                self.added.push((c as u8, first));
                self.make_row(turn, succ, lanes, c, 0, 0);
                continue;
            }
            self.ranked.push((c as u8, first));
            for &p in &turn.scores.distinct[c] {
                self.make_row(turn, succ, lanes, c, u32::from(p), 0);
            }
        }
        // A Yahtzee on a card whose Yahtzee box is filled: the Joker decides the boxes and
        // their points, and 50 in the box earns 100 more. Without a Joker or a bonus it is a
        // roll like any other.
        let bonus = rules.yahtzee_bonus_points();
        let five_filled = rules
            .five_of_a_kind_box()
            .is_some_and(|b| turn.filled & (1 << b) != 0);
        if !five_filled || (rules.joker() == Joker::None && bonus == 0) {
            return;
        }
        let first_roll = turn.scores.dice.first_roll();
        for (r, &five) in turn.scores.five_of_a_kind.iter().enumerate() {
            if !five {
                continue;
            }
            let dice = Dice::from_index(first_roll + r);
            let from = self.joker_rows.len() as u16;
            for c in set_bits(u64::from(rules.legal_boxes(turn.filled, &dice))) {
                let points = rules.score(c, &dice, turn.filled);
                let row = match self.extra.iter().find(|e| e.0 == c && e.1 == points) {
                    Some(e) => e.2,
                    None => {
                        let row = self.make_row(turn, succ, lanes, c, points, bonus);
                        self.extra.push((c, points, row));
                        row
                    }
                };
                self.joker_rows.push(row);
            }
            self.jokers
                .push((r as u16, from, self.joker_rows.len() as u16));
        }
    }
}

/// Per-thread working memory of one turn: no allocation per card. A card's lanes are solved
/// in blocks of the kernel's widths (`Kernel::widths`: 16 lanes, 32 with AVX-512, the last
/// ones 8): with 16 the keep array takes 462 x 128 bytes (924 x 128 with six dice), well inside
/// L2.
pub(crate) struct Scratch {
    /// The keep values of a block, for blocks of up to [`MAX_BLOCK`] lanes.
    keeps: KeepArray<f64>,
    pub succ: Successors,
    pub plan: Plan<f64>,
    pub lanes: Lanes,
    /// The value of each lane, in "bonus held" form.
    pub results: Vec<f64>,
    /// The shift of each lane's utilities under a θ ([`crate::solve::theta`]).
    shift: Shift,
}

/// The widest block of the expected-score kernel (AVX-512's).
const MAX_BLOCK: usize = 32;

impl Scratch {
    pub(crate) fn new() -> Scratch {
        Scratch {
            keeps: KeepArray::new(MAX_BLOCK),
            succ: Successors::new(),
            plan: Plan::new(),
            lanes: Lanes::new(),
            results: Vec::with_capacity(2 * UPPER_TOTALS + MAX_BLOCK),
            shift: Shift::default(),
        }
    }

    /// Solves the lanes `u0..u0 + width` of the loaded card and appends their values to
    /// `results`.
    fn solve_block(&mut self, simd: Simd, width: usize, scores: &ScoreTable, u0: usize) {
        f64::solve(
            simd,
            width,
            &mut self.keeps,
            &self.plan,
            scores,
            u0,
            &mut self.results,
        );
    }

    /// The layers of one turn of the loaded card's lanes `0..width` up to `last`.
    fn turn(
        &mut self,
        width: usize,
        scores: &ScoreTable,
        last: Layer,
        visit: &mut dyn FnMut(Layer, &[f64]),
    ) {
        turn(
            Simd::detect(),
            width,
            &mut self.keeps,
            &self.plan,
            scores,
            0,
            last,
            visit,
        );
    }
}

/// One turn of one state, against the solved values of the states after it, up to `last`:
/// `visit(layer, values)` receives each layer's entries (one per multiset, see [`Layer`]) as
/// future points of this turn and after, the upper bonus already held taken off. Runs the
/// solver's own kernel ([`run_turn`]) with one lane, so advice, statistics, exports and the
/// game read exactly what the solver computed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn state_turn(
    rules: &Rules,
    scores: &ScoreTable,
    theta: Option<Theta>,
    layout: &Layout,
    values: Solved<'_>,
    state: &State,
    last: Layer,
    mut visit: impl FnMut(Layer, &[f64]),
) {
    thread_local! {
        // One scratch per thread, reused: a query allocates nothing but its results.
        static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::new());
    }
    let turn = Turn {
        rules,
        scores,
        filled: state.filled,
        theta,
    };
    let upper = usize::from(state.upper).min(layout.lanes - 1);
    let held = held_bonus(rules, upper);
    SCRATCH.with_borrow_mut(|scratch| {
        let flag = state.yahtzee_50 && layout.flags == 2;
        scratch
            .succ
            .load(rules, layout, values, state.filled, &[flag]);
        scratch.lanes.clear();
        scratch.lanes.push(upper as u8, flag);
        turn.build(
            &mut scratch.plan,
            &scratch.succ,
            &scratch.lanes,
            &mut scratch.shift,
        );
        let shift = std::mem::take(&mut scratch.shift);
        scratch.turn(1, scores, last, &mut |layer, k| {
            if theta.is_some() {
                let mut points = [0.0; ALL_MULTISETS];
                for (to, &u) in points.iter_mut().zip(k) {
                    *to = shift.certainty(u, 0) - held;
                }
                visit(layer, &points[..k.len()]);
            } else if held == 0.0 {
                visit(layer, k);
            } else {
                // A slice rather than an iterator: an iterator behind `dyn` cost a call per
                // value, a tenth of an advice query (callgrind).
                let mut less = [0.0; ALL_MULTISETS];
                for (to, &v) in less.iter_mut().zip(k) {
                    *to = v - held;
                }
                visit(layer, &less[..k.len()]);
            }
        });
        scratch.shift = shift;
    });
}

/// Lanes of one card that [`card_turns`] computes together.
pub const CARD_LANES: usize = 8;

/// [`state_turn`] for up to [`CARD_LANES`] states of one card (boxes `filled`) at once, one
/// lane each (`lanes`: their upper totals and Yahtzee-box flags): `visit(lane, layer, values)`
/// receives each lane's layers, the same values, bit for bit, as [`state_turn`] gives for that
/// state alone (the kernel computes every lane by the same operations), for a fraction of the
/// cost of one call per state.
pub(crate) fn card_turns(
    turn: &Turn<'_>,
    layout: &Layout,
    values: Solved<'_>,
    lanes: &[(u8, bool)],
    last: Layer,
    mut visit: impl FnMut(usize, Layer, &[f64]),
) {
    let mut column = [0.0; ALL_MULTISETS];
    card_layers(turn, layout, values, lanes, last, |layer, k| {
        for l in 0..lanes.len() {
            for (to, v) in column.iter_mut().zip(k) {
                *to = v[l];
            }
            visit(l, layer, &column[..k.len()]);
        }
    });
}

/// The layers of [`card_turns`] as the kernel holds them, lane by lane in each multiset's
/// entry (lanes past `lanes.len()` are padding): `visit(layer, values)`.
fn card_layers(
    turn: &Turn<'_>,
    layout: &Layout,
    values: Solved<'_>,
    lanes: &[(u8, bool)],
    last: Layer,
    mut visit: impl FnMut(Layer, &[[f64; CARD_LANES]]),
) {
    thread_local! {
        static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::new());
    }
    assert!(!lanes.is_empty() && lanes.len() <= CARD_LANES);
    let Turn {
        rules,
        scores,
        filled,
        theta,
    } = *turn;
    // The bonus each lane holds, taken off its values (the "bonus held" form of the kernel).
    let mut held = [0.0; CARD_LANES];
    for (h, &(upper, _)) in held.iter_mut().zip(lanes) {
        *h = held_bonus(rules, usize::from(upper).min(layout.lanes - 1));
    }
    let any_held = held.iter().any(|&h| h != 0.0);
    SCRATCH.with_borrow_mut(|scratch| {
        let with_flag = |f: bool| lanes.iter().any(|&(_, flag)| flag == f);
        let flags: Vec<bool> = [false, true]
            .into_iter()
            .filter(|&f| with_flag(f))
            .collect();
        scratch.succ.load(rules, layout, values, filled, &flags);
        scratch.lanes.clear();
        for &(upper, flag) in lanes {
            let upper = usize::from(upper).min(layout.lanes - 1);
            scratch.lanes.push(upper as u8, flag && layout.flags == 2);
        }
        scratch.lanes.pad_to(CARD_LANES);
        turn.build(
            &mut scratch.plan,
            &scratch.succ,
            &scratch.lanes,
            &mut scratch.shift,
        );
        let shift = std::mem::take(&mut scratch.shift);
        let mut shifted = Vec::new();
        let mut visit = |layer, k: &[f64]| {
            let k = k.as_chunks::<CARD_LANES>().0;
            if theta.is_some() {
                shifted.clear();
                shifted.extend(k.iter().map(|v| {
                    let mut out = *v;
                    for (l, (o, &h)) in out.iter_mut().zip(&held).enumerate() {
                        *o = shift.certainty(*o, l) - h;
                    }
                    out
                }));
                return visit(layer, &shifted);
            }
            if !any_held {
                return visit(layer, k);
            }
            shifted.clear();
            shifted.extend(k.iter().map(|v| {
                let mut out = *v;
                for (o, &h) in out.iter_mut().zip(&held) {
                    if h != 0.0 {
                        *o -= h;
                    }
                }
                out
            }));
            visit(layer, &shifted);
        };
        scratch.turn(CARD_LANES, scores, last, &mut visit);
        scratch.shift = shift;
    });
}

/// The optimal keep of every roll of one turn, by the tie rule, as multiset indices (a
/// roll's own index: stop and score): `by_rolls_left[n - 1][r]` for the roll of offset `r`
/// with `n` rolls left. What [`TurnValues::best_keep_of_roll`] chooses, roll by roll.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnKeeps {
    /// With one roll left, then two (and three in a game of four rolls a turn), one per roll
    /// each; none in a game of one roll a turn.
    pub by_rolls_left: Vec<Vec<u16>>,
}

impl TurnKeeps {
    /// The keep of the roll of offset `roll` with `rolls_left` (1 to the game's rolls a
    /// turn less one) rolls left.
    pub fn of_roll(&self, rolls_left: u8, roll: usize) -> u16 {
        self.by_rolls_left[usize::from(rolls_left) - 1][roll]
    }
}

/// The [`TurnKeeps`] of up to [`CARD_LANES`] states of one card, as [`card_turns`] gives
/// their turns: each the choices of [`TurnValues::best_keep_of_roll`] for that state, bit for
/// bit, made for all the lanes at once by the tie rule's lane scan
/// ([`PreferredLanes`](crate::game::ties::PreferredLanes)), compiled for the processor's
/// widest vectors.
pub(crate) fn card_keeps(
    turn: &Turn<'_>,
    layout: &Layout,
    values: Solved<'_>,
    lanes: &[(u8, bool)],
) -> Vec<TurnKeeps> {
    let mut keep_values = CardKeepValues::new(turn.scores.dice.into());
    card_keep_values(turn, layout, values, lanes, &mut keep_values);
    keep_values.keeps()
}

simd_dispatch! {
    /// [`scan_keeps_in`] compiled for the processor's widest vectors.
    fn scan_keeps[](
        fewer: &[[f64; CARD_LANES]],
        stops: &[[f64; CARD_LANES]],
        out: &mut [[u16; CARD_LANES]],
    ) -> () {
        scan_keeps_in
    }
}

/// The best keep of every roll in every lane: the tie rule's scan over the roll's keeps in
/// the order of preference, `fewer[i]` the value of keeping the multiset `i` of fewer than
/// all the dice (its length is the first roll's index), `stops[r]` that of stopping on roll
/// `r`.
#[inline(always)]
fn scan_keeps_in(
    fewer: &[[f64; CARD_LANES]],
    stops: &[[f64; CARD_LANES]],
    out: &mut [[u16; CARD_LANES]],
) {
    for (r, best) in out.iter_mut().enumerate() {
        let keeps = Dice::keep_indices_of(fewer.len() + r);
        let (stop, keeps_of_fewer) = keeps.split_last().expect("every roll has a keep");
        let mut scan = PreferredLanes::<CARD_LANES>::new();
        for &keep in keeps_of_fewer {
            scan.offer(keep, &fewer[usize::from(keep)]);
        }
        scan.offer(*stop, &stops[r]);
        *best = scan.best();
    }
}

/// The solved expected-score values of a rule set, as a turn of one state reads them: what
/// the expected-score table holds (`StrategyTable` in `tables/expected.rs` implements it).
/// The vector and two-player solves follow the expected-score policy through it (the
/// distribution objective, a player of the game of two who plays for the average) without
/// knowing where the values are kept.
pub trait ExpectedValues: std::fmt::Debug + Send + Sync {
    /// The rules solved.
    fn rules(&self) -> &Rules;
    /// The expected future score of `state` under optimal play: the points still to come,
    /// bonuses included.
    fn value(&self, state: &State) -> f64;
    /// One turn of `state` against the solved values of the states after it, up to `last`:
    /// `visit(layer, values)` receives each layer's entries (one per multiset, see
    /// [`Layer`]) as future points of this turn and after (the solver's own kernel, one
    /// lane).
    fn turn(&self, state: &State, last: Layer, visit: &mut dyn FnMut(Layer, &[f64]));
    /// The optimal keeps of the turns of `states`, all of one card: each state's
    /// [`TurnValues::best_keep_of_roll`] for every roll (by default one turn at a time; a
    /// table that runs the kernel over several states at once does better).
    fn card_keeps(&self, states: &[State]) -> Vec<TurnKeeps> {
        let dice = self.rules().dice();
        states
            .iter()
            .map(|state| {
                let turn = TurnValues::new(self, state);
                TurnKeeps {
                    by_rolls_left: (1..self.rules().rolls())
                        .map(|n| {
                            (0..dice.rolls())
                                .map(|r| turn.best_keep_of_roll(n, r).0 as u16)
                                .collect()
                        })
                        .collect(),
                }
            })
            .collect()
    }
}

/// Shared solved values are the values they share.
impl<T: ExpectedValues + ?Sized> ExpectedValues for std::sync::Arc<T> {
    fn rules(&self) -> &Rules {
        (**self).rules()
    }

    fn value(&self, state: &State) -> f64 {
        (**self).value(state)
    }

    fn turn(&self, state: &State, last: Layer, visit: &mut dyn FnMut(Layer, &[f64])) {
        (**self).turn(state, last, visit);
    }

    fn card_keeps(&self, states: &[State]) -> Vec<TurnKeeps> {
        (**self).card_keeps(states)
    }
}

/// The values of every keep of one expected-score turn of one state: one solver turn for this
/// state alone ([`ExpectedValues::turn`]), every layer.
pub struct TurnValues {
    /// Keep values by rolls left (index by multiset), future points of this turn and after:
    /// `by_rolls_left[n - 1]` with `n` rolls left, one layer per re-roll of the game. With
    /// one roll left the entries of the rolls (all the dice) are the values of stopping to
    /// score; with `n` > 1 they are the rolls' values with `n - 1` rolls left.
    pub by_rolls_left: Vec<Vec<f64>>,
    /// Value of each roll just after the opening roll (with the game's rolls less one left).
    pub opening_rolls: Vec<f64>,
    /// The dice of the game: which entries are rolls.
    pub dice: DiceSpace,
}

impl TurnValues {
    /// Computes the turn of `state` from the solved successors in `table`: every layer.
    pub fn new(table: &(impl ExpectedValues + ?Sized), state: &State) -> TurnValues {
        let mut values = TurnValues::empty(table.rules().dice());
        table.turn(state, Layer::Opening, &mut |layer, layer_values| {
            values.add_layer(layer, layer_values)
        });
        values
    }

    /// A turn with no layer yet.
    pub(crate) fn empty(dice: DiceSpace) -> TurnValues {
        TurnValues {
            by_rolls_left: Vec::new(),
            opening_rolls: Vec::with_capacity(dice.rolls()),
            dice,
        }
    }

    /// Takes the values of `layer` as the kernel gives them (in the kernel's order).
    pub(crate) fn add_layer(&mut self, layer: Layer, values: &[f64]) {
        match layer.rolls_left() {
            Some(n) => {
                debug_assert_eq!(usize::from(n), self.by_rolls_left.len() + 1);
                self.by_rolls_left.push(values.to_vec());
            }
            None => self
                .opening_rolls
                .extend_from_slice(&values[self.dice.first_roll()..]),
        }
    }

    /// The keep values with one roll left: those of stopping on each roll.
    fn one_roll_left(&self) -> &[f64] {
        &self.by_rolls_left[0]
    }

    /// The keep values with `rolls_left` rolls left (at least 1).
    fn with_rolls_left(&self, rolls_left: u8) -> &[f64] {
        &self.by_rolls_left[usize::from(rolls_left.max(1)) - 1]
    }

    /// Value (points of this turn and after) of keeping `keep` with `rolls_left` (1 to the
    /// game's rolls a turn less one) rolls left. Keeping all five dice means stopping to score the best box now.
    pub fn keep_value(&self, rolls_left: u8, keep: &Keep) -> f64 {
        self.value_of_index(rolls_left, keep.index())
    }

    /// [`TurnValues::keep_value`] of the keep of multiset index `i` (a roll's own index,
    /// the first roll's and up, keeps all the dice).
    pub(crate) fn value_of_index(&self, rolls_left: u8, i: usize) -> f64 {
        if i >= self.dice.first_roll() {
            self.one_roll_left()[i]
        } else {
            self.with_rolls_left(rolls_left)[i]
        }
    }

    /// The optimal keep for `dice` with `rolls_left` (1 or more) rolls left, and its value. Ties
    /// within [`TIE`](crate::game::ties::TIE) go to the keep with the fewest dice, then to
    /// the lowest faces; a keep of all five dice means stopping to score.
    pub fn best_keep(&self, rolls_left: u8, dice: &Dice) -> (Keep, f64) {
        let (index, value) =
            self.best_keep_of_roll(rolls_left, dice.index() - self.dice.first_roll());
        (Keep::from_index(index), value)
    }

    /// [`TurnValues::best_keep`] of the roll at offset `roll` (its index less the first
    /// roll's): the keep's multiset index (the roll's own index to stop) and its value.
    ///
    /// The scan of the tie rule ([`Preferred`]) carries its best value from one keep to the
    /// next; most rolls have one keep clearly best, found without that chain: the keep the
    /// scan chooses is within [`TIE`] of the highest value, so when
    /// a single keep is that close (a margin wider by 1e-12 absorbs the rounding of the
    /// comparisons), it is the choice. Otherwise the scan decides.
    pub fn best_keep_of_roll(&self, rolls_left: u8, roll: usize) -> (usize, f64) {
        let fewer = self.with_rolls_left(rolls_left);
        let one = self.one_roll_left();
        best_keep_among(
            Dice::keep_indices_of(self.dice.first_roll() + roll),
            |keep| fewer[keep],
            |stop| one[stop],
        )
    }
}

/// The choice of [`TurnValues::best_keep_of_roll`] among `keeps` (a roll's keeps in the order
/// of preference, its own index, stopping, last), `fewer(i)` the value of keeping the
/// multiset `i` of fewer than all the dice and `stop(i)` that of stopping on the roll `i`:
/// the one home of the tie rule of a keep, whatever holds the values.
#[inline(always)]
fn best_keep_among(
    keeps: &[u16],
    fewer: impl Fn(usize) -> f64,
    stop: impl Fn(usize) -> f64,
) -> (usize, f64) {
    let (last, keeps_of_fewer) = keeps.split_last().expect("every roll has a keep");
    let value = |keep: u16| fewer(usize::from(keep));
    let stop_value = stop(usize::from(*last));
    let mut highest = stop_value;
    for &keep in keeps_of_fewer {
        let v = value(keep);
        highest = if v > highest { v } else { highest };
    }
    let near = highest - (TIE + 1e-12);
    let mut close = usize::from(stop_value >= near);
    let mut chosen = *last;
    for &keep in keeps_of_fewer {
        if value(keep) >= near {
            close += 1;
            chosen = keep;
        }
    }
    let value_of = |keep: u16| {
        if keep == *last {
            stop_value
        } else {
            value(keep)
        }
    };
    if close == 1 {
        return (usize::from(chosen), value_of(chosen));
    }
    let mut best = Preferred::new();
    for &keep in keeps {
        best.offer(usize::from(keep), value_of(keep));
    }
    best.best().expect("every roll has a keep")
}

/// The keep values of up to [`CARD_LANES`] states of one card, with each number of rolls
/// left, lane by lane as the kernel holds them (each lane's values are, bit for bit, those of
/// [`TurnValues`] of its state): the keeps of the states' rolls are chosen from them one at a
/// time ([`CardKeepValues::best_keep_of_roll`], as [`TurnValues::best_keep_of_roll`]) or all
/// at once ([`CardKeepValues::keeps`], as [`card_keeps`]). Filled by [`card_keep_values`];
/// reused from card to card.
pub struct CardKeepValues {
    /// `by_rolls_left[n - 1]`: the keep values with `n` rolls left; the first `layers` are
    /// filled (the others kept for their memory). With two rolls left or more, those of the
    /// keeps of fewer than all the dice only.
    by_rolls_left: Vec<Vec<[f64; CARD_LANES]>>,
    layers: usize,
    dice: DiceSpace,
    lanes: usize,
}

impl CardKeepValues {
    /// Room for the values of a card of `dice`.
    pub fn new(dice: DiceSpace) -> CardKeepValues {
        CardKeepValues {
            by_rolls_left: Vec::new(),
            layers: 0,
            dice,
            lanes: 0,
        }
    }

    /// The keep values with `rolls_left` rolls left (at least 1).
    fn with_rolls_left(&self, rolls_left: u8) -> &[[f64; CARD_LANES]] {
        &self.by_rolls_left[usize::from(rolls_left.max(1)) - 1]
    }

    /// [`TurnValues::best_keep_of_roll`] of the state of `lane`: the keep's multiset index
    /// (the roll's own index to stop) for the roll at offset `roll` with `rolls_left` (1 to
    /// the game's rolls a turn less one) rolls left.
    pub fn best_keep_of_roll(&self, lane: usize, rolls_left: u8, roll: usize) -> usize {
        let fewer = self.with_rolls_left(rolls_left);
        let one = self.with_rolls_left(1);
        best_keep_among(
            Dice::keep_indices_of(self.dice.first_roll() + roll),
            |keep| fewer[keep][lane],
            |stop| one[stop][lane],
        )
        .0
    }

    /// The keeps of every roll of every lane, by the lane scan of [`card_keeps`].
    pub fn keeps(&self) -> Vec<TurnKeeps> {
        let mut by_rolls_left = Vec::new();
        self.lane_keeps(&mut by_rolls_left);
        (0..self.lanes)
            .map(|l| TurnKeeps {
                by_rolls_left: by_rolls_left
                    .iter()
                    .map(|layer| layer.iter().map(|r| r[l]).collect())
                    .collect(),
            })
            .collect()
    }

    /// [`CardKeepValues::keeps`] as the scan gives them, every lane together:
    /// `into[n - 1][r][lane]`, the keep of the roll at offset `r` with `n` rolls left (`into`'s
    /// memory reused).
    pub fn lane_keeps(&self, into: &mut Vec<Vec<[u16; CARD_LANES]>>) {
        let simd = Simd::detect();
        let (first_roll, rolls) = (self.dice.first_roll(), self.dice.rolls());
        into.resize_with(self.layers, Vec::new);
        if self.layers == 0 {
            // One roll a turn: no keeps.
            return;
        }
        let stops = &self.with_rolls_left(1)[first_roll..first_roll + rolls];
        for (values, out) in self.by_rolls_left[..self.layers]
            .iter()
            .zip(into.iter_mut())
        {
            out.clear();
            out.resize(rolls, [0; CARD_LANES]);
            scan_keeps(simd, (&values[..first_roll], stops, out));
        }
    }
}

/// Fills `into` with the keep values of the states of `lanes` of one card (as
/// [`card_turns`]): one run of the kernel up to the layer of the first decision of a turn.
pub(crate) fn card_keep_values(
    turn: &Turn<'_>,
    layout: &Layout,
    values: Solved<'_>,
    lanes: &[(u8, bool)],
    into: &mut CardKeepValues,
) {
    into.dice = turn.scores.dice.into();
    into.lanes = lanes.len();
    into.layers = 0;
    let first_roll = into.dice.first_roll();
    card_layers(
        turn,
        layout,
        values,
        lanes,
        Layer::first_decision(turn.scores.rolls),
        |layer, k| {
            if layer.rolls_left().is_some() {
                if into.by_rolls_left.len() == into.layers {
                    into.by_rolls_left.push(Vec::with_capacity(ALL_MULTISETS));
                }
                let to = &mut into.by_rolls_left[into.layers];
                to.clear();
                // With two rolls left or more only the keeps of fewer than all the dice are
                // read: the rolls' own entries are those of stopping, with one roll left.
                let read = if into.layers == 0 {
                    k.len()
                } else {
                    first_roll
                };
                to.extend_from_slice(&k[..read]);
                into.layers += 1;
            }
        },
    );
}

/// The narrower block that finishes a card whose lanes are not a whole number of blocks, so
/// that a card of 20 lanes costs a block of 16 and one of 8 rather than two of 16. Lanes are
/// padded to a multiple of it. Measured (full solve, AVX2): 7-10% faster than padding to 16;
/// adding blocks of 4 gained nothing more (a 4-lane block shares the lattice walk among too
/// few lanes).
const TAIL_BLOCK: usize = 8;

/// The upper totals of the card `filled` whose states all have the same value, so that one
/// lane solves them all: every total once the upper section is full (no upper box is left to
/// score), and otherwise the totals from which the upper bonus is out of reach whatever the
/// open upper boxes score (the total plays no further part). In rule sets with an upper bonus.
pub(crate) fn shared_upper_totals(rules: &Rules, filled: BoxMask) -> UpperTotals {
    let threshold = rules.upper_threshold();
    let most: u32 = (1..=6u32)
        .filter(|face| filled & (1 << (face - 1)) == 0)
        .map(|face| face * rules.dice().dice() as u32)
        .sum();
    if most == 0 {
        UpperTotals::MAX
    } else if most >= threshold {
        0
    } else {
        (1 << (threshold - most)) - 1
    }
}

/// The lanes a solve of `rules` runs ([`solve_card`]): for each card short of full, each of
/// its Yahtzee-box flags' reachable upper totals, those of [`shared_upper_totals`] counted
/// once, padded to whole blocks of [`TAIL_BLOCK`] lanes in a game with an upper bonus. What
/// the time of a solve grows with (a card's states whose bonus is out of reach share a lane:
/// a threshold of 126 with six dice makes most cards one block). Milliseconds, a fraction of
/// a second for a card of 20 boxes.
pub fn solved_lanes(rules: &Rules) -> u64 {
    let by_depth = cards_by_depth(rules);
    by_depth[..rules.box_count()]
        .iter()
        .flatten()
        .map(|&filled| {
            let five_box_filled = rules
                .five_of_a_kind_box()
                .is_some_and(|b| filled & (1 << b) != 0);
            let flags = if rules.has_yahtzee_bonus() && five_box_filled {
                2
            } else {
                1
            };
            if rules.has_upper_bonus() {
                let reachable = reachable_upper_totals(rules, filled);
                let shared = reachable & shared_upper_totals(rules, filled);
                let solo = (reachable & !shared) | (shared & shared.wrapping_neg());
                (flags * u64::from(solo.count_ones())).next_multiple_of(TAIL_BLOCK as u64)
            } else {
                flags
            }
        })
        .sum()
}

/// Solves one card, both Yahtzee-box flags at once, and writes its rows of state values
/// (without the held bonus) to `out`: `layout.flags` rows of `layout.lanes` values. Only the
/// reachable states are solved, packed into blocks of `width` lanes (the last ones in blocks
/// of [`TAIL_BLOCK`], or of one lane), and one lane per flag stands for all the totals whose
/// value does not depend on the total ([`shared_upper_totals`]). Unreachable states are left
/// at 0.
fn solve_card(
    turn: &Turn<'_>,
    layout: &Layout,
    values: &[f64],
    (simd, width): (Simd, usize),
    scratch: &mut Scratch,
    out: &mut [f64],
) {
    let card = card_lanes(turn, layout, width, &mut scratch.lanes);
    scratch.succ.load(
        turn.rules,
        layout,
        Solved::All(values),
        turn.filled,
        card.flags,
    );
    turn.build(
        &mut scratch.plan,
        &scratch.succ,
        &scratch.lanes,
        &mut scratch.shift,
    );
    scratch.results.clear();
    let all = scratch.lanes.len();
    let mut u0 = 0;
    while u0 < all {
        let block = if all - u0 >= width { width } else { card.tail };
        scratch.solve_block(simd, block, turn.scores, u0);
        u0 += block;
    }
    if turn.theta.is_some() {
        for (l, v) in scratch.results.iter_mut().enumerate() {
            *v = scratch.shift.certainty(*v, l);
        }
    }
    card.write_row(turn.rules, layout, &scratch.lanes, &scratch.results, out);
}

/// The lanes of one card's turn ([`card_lanes`]) and how their values fill its rows.
pub(crate) struct CardLanes {
    /// The Yahtzee-box flags solved.
    pub flags: &'static [bool],
    /// The lanes that stand for states (the others pad the last block).
    pub solved: usize,
    /// The upper totals one lane stands for together ([`shared_upper_totals`]).
    shared: UpperTotals,
    /// The width of the blocks after the full ones.
    pub tail: usize,
    /// The reachable states of the card: its reachable upper totals times its flags.
    pub states: usize,
}

/// Lists the reachable states of `turn`'s card in `lanes`, both Yahtzee-box flags when its
/// five-of-a-kind box is filled (in a layout of two flags), one lane for the totals whose value
/// does not depend on the total ([`shared_upper_totals`]), padded to whole blocks of the tail
/// width (`width`, at most [`TAIL_BLOCK`]).
pub(crate) fn card_lanes(
    turn: &Turn<'_>,
    layout: &Layout,
    width: usize,
    lanes: &mut Lanes,
) -> CardLanes {
    let rules = turn.rules;
    let five_box_filled = rules
        .five_of_a_kind_box()
        .is_some_and(|b| turn.filled & (1 << b) != 0);
    let flags: &'static [bool] = if layout.flags == 2 && five_box_filled {
        &[false, true]
    } else {
        &[false]
    };
    let (reachable, shared) = if rules.has_upper_bonus() {
        let reachable = reachable_upper_totals(rules, turn.filled);
        (
            reachable,
            reachable & shared_upper_totals(rules, turn.filled),
        )
    } else {
        (1, 0)
    };
    lanes.clear();
    // One lane stands for all the totals of `shared`: the lowest.
    let solo = (reachable & !shared) | (shared & shared.wrapping_neg());
    for &flag in flags {
        for u in set_bits(solo) {
            lanes.push(u as u8, flag);
        }
    }
    let solved = lanes.len();
    let tail = width.min(TAIL_BLOCK);
    lanes.pad_to(tail);
    CardLanes {
        flags,
        solved,
        shared,
        tail,
        states: reachable.count_ones() as usize * flags.len(),
    }
}

impl CardLanes {
    /// Writes the card's rows of state values (without the held bonus) to `out`:
    /// `layout.flags` rows of `layout.lanes` values, from the value of each lane in
    /// `results` ("bonus held"). Unreachable states are left at 0.
    pub(crate) fn write_row(
        &self,
        rules: &Rules,
        layout: &Layout,
        lanes: &Lanes,
        results: &[f64],
        out: &mut [f64],
    ) {
        out.fill(0.0);
        let states = lanes.upper.iter().zip(&lanes.flag).zip(results);
        for ((&u, &flag), &value) in states.take(self.solved) {
            let u = usize::from(u);
            let row = &mut out[usize::from(flag) * layout.lanes..][..layout.lanes];
            let w = value - held_bonus(rules, u);
            if self.shared & (1 << u) != 0 {
                for t in set_bits(self.shared) {
                    row[t] = w;
                }
            } else {
                row[u] = w;
            }
        }
    }
}

/// Options of a solve.
#[derive(Clone, Copy, Debug)]
pub struct SolveOptions {
    /// Instruction set to use (default: the widest detected). Only instruction sets this
    /// processor has can be given (see [`Simd`]).
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
    /// The exponential utility solved for, or `None` for the expected score.
    theta: Option<Theta>,
    options: SolveOptions,
    /// Cards (masks of filled boxes) by number of filled boxes.
    by_depth: Vec<Vec<BoxMask>>,
    /// The new rows of one depth before they are copied into the values, kept from depth to
    /// depth: fresh memory costs a page fault per 4 KiB.
    rows: Mutex<Vec<f64>>,
}

impl Solver {
    /// Prepares a solve of `rules`.
    pub fn new(rules: &Rules, options: SolveOptions) -> Solver {
        Solver::of(rules, None, options)
    }

    /// Prepares a solve of the certainty equivalents of `rules` under the exponential utility
    /// of `theta` ([`crate::solve::theta`]), or of the expected score (`None`).
    pub fn of(rules: &Rules, theta: Option<Theta>, options: SolveOptions) -> Solver {
        let layout = Layout::of(rules);
        let by_depth = cards_by_depth(rules);
        Solver {
            rules: *rules,
            layout,
            scores: score_table_for(rules, theta.is_some()),
            theta,
            options,
            by_depth,
            rows: Mutex::new(Vec::new()),
        }
    }

    /// Number of boxes: the depth of full cards.
    pub fn depths(&self) -> usize {
        self.rules.box_count()
    }

    /// Number of cards at `depth` filled boxes.
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
        let simd = self.options.simd;
        // The kernel's widest block on this instruction set (four registers of lanes), or one
        // lane for a game whose cards have one state each (no upper bonus).
        let width = if self.layout.lanes > 1 {
            f64::widths(simd)[0]
        } else {
            1
        };
        self.solve_depth_in(depth, values, (simd, width));
    }

    /// [`Solver::solve_depth`] in blocks of `width` lanes compiled for `simd`.
    fn solve_depth_in(&self, depth: usize, values: &mut [f64], blocks: (Simd, usize)) {
        let cards = &self.by_depth[depth];
        // Both flag rows of a card are adjacent in the layout: one chunk per card.
        let width = self.layout.flags * self.layout.lanes;
        let mut rows = std::mem::take(&mut *self.rows.lock().unwrap_or_else(|e| e.into_inner()));
        rows.resize(cards.len() * width, 0.0);
        self.solve_cards(cards, values, &mut rows, blocks);
        // The rows of card `filled` start at `filled * width` (`Layout::row`): pick those
        // chunks of the values, in the order of the cards (ascending), and copy in parallel,
        // which also spreads the first touches of the values' fresh pages over the threads.
        let mut cards_left = cards.iter().peekable();
        let mut places = Vec::with_capacity(cards.len());
        for (filled, place) in values.chunks_mut(width).enumerate() {
            if cards_left.next_if(|&&c| c as usize == filled).is_some() {
                places.push(place);
            }
        }
        debug_assert_eq!(self.layout.row(cards[0], false), cards[0] as usize * width);
        places
            .into_par_iter()
            .zip(rows.par_chunks(width))
            .for_each(|(place, row)| place.copy_from_slice(row));
        *self.rows.lock().unwrap_or_else(|e| e.into_inner()) = rows;
    }

    fn solve_cards(
        &self,
        cards: &[BoxMask],
        values: &[f64],
        rows: &mut [f64],
        blocks: (Simd, usize),
    ) {
        rows.par_chunks_mut(self.layout.flags * self.layout.lanes)
            .zip(cards.par_iter())
            .for_each_init(Scratch::new, |scratch, (out, &filled)| {
                let turn = Turn {
                    rules: &self.rules,
                    scores: &self.scores,
                    filled,
                    theta: self.theta,
                };
                solve_card(&turn, &self.layout, values, blocks, scratch, out);
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
    solve_of(rules, None, options, progress)
}

/// Solves every reachable card of `rules` for the certainty equivalents of the exponential
/// utility of `theta` ([`crate::solve::theta`]): each value the certainty equivalent of the
/// points still to come under the policy that maximises that utility. Refused (one line)
/// when a value would leave `f64`'s range, which no shipped game does. As [`solve`] otherwise.
pub fn solve_theta(
    rules: &Rules,
    theta: Theta,
    options: SolveOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Solution, String> {
    let solution = solve_of(rules, Some(theta), options, progress);
    check_finite(&solution.values, theta, &rules.label())?;
    Ok(solution)
}

fn solve_of(
    rules: &Rules,
    theta: Option<Theta>,
    options: SolveOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Solution {
    let start = Instant::now();
    let solver = Solver::of(rules, theta, options);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::{Order, RuleSet, UPPER_MASK};

    /// Every block width of every instruction set of this processor (and blocks of the
    /// tail's 8 lanes alone) gives the same bits: the block logic of a machine this one is
    /// not is covered too.
    #[test]
    fn every_block_width_gives_the_same_bits() {
        for rules in [
            Rules::with_order(RuleSet::YAHTZEE, Order::UpperFirst),
            Rules::new(RuleSet::YAHTZEE),
        ] {
            let solver = Solver::new(&rules, SolveOptions::default());
            let mut blocks: Vec<(Simd, usize)> = Simd::available()
                .into_iter()
                .flat_map(|simd| f64::widths(simd).iter().map(move |&w| (simd, w)))
                .filter(|&(_, w)| w > 1)
                .collect();
            blocks.push((Simd::BASELINE, TAIL_BLOCK));
            let solved: Vec<Vec<u64>> = blocks
                .iter()
                .map(|&b| {
                    let mut values = solver.initial_values();
                    for depth in (0..solver.depths()).rev() {
                        solver.solve_depth_in(depth, &mut values, b);
                    }
                    values.iter().map(|x| x.to_bits()).collect()
                })
                .collect();
            for (b, s) in blocks.iter().zip(&solved) {
                assert!(*s == solved[0], "{} {b:?}", rules.label());
            }
        }
    }

    /// The best keep of a roll is the scan of the tie rule over its keeps, whether one keep
    /// is clearly best or several are within the tie margin, in chains the scan must follow.
    #[test]
    fn best_keep_of_roll_is_the_scan_of_the_tie_rule() {
        let scan = |turn: &TurnValues, rolls_left: u8, roll: usize| {
            let mut best = Preferred::new();
            for &keep in Dice::keep_indices_by_preference(roll) {
                let keep = usize::from(keep);
                best.offer(keep, turn.value_of_index(rolls_left, keep));
            }
            best.best().unwrap()
        };
        // Values on a grid of steps of 0.4e-9 around 250, so that many keeps are within the
        // tie margin of each other and of the best, and some chains of near ties form.
        use crate::game::dice::{MULTISETS, ROLLS};
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut ties = 0;
        for round in 0..400 {
            let spread = [3, 6, 40, 1_000_000][round % 4];
            let mut value = || 250.0 + (next() % spread) as f64 * 0.4e-9;
            let one_roll_left = (0..MULTISETS).map(|_| value()).collect();
            let two_rolls_left = (0..MULTISETS).map(|_| value()).collect();
            let turn = TurnValues {
                by_rolls_left: vec![one_roll_left, two_rolls_left],
                opening_rolls: vec![0.0; ROLLS],
                dice: DiceSpace::FIVE,
            };
            for rolls_left in [1, 2] {
                for roll in 0..ROLLS {
                    let expected = scan(&turn, rolls_left, roll);
                    let got = turn.best_keep_of_roll(rolls_left, roll);
                    assert_eq!(got.0, expected.0, "round {round} roll {roll}");
                    assert_eq!(got.1.to_bits(), expected.1.to_bits());
                    ties += usize::from(expected.0 != scan_first_max(&turn, rolls_left, roll));
                }
            }
        }
        // The chains where the scan's choice is not the first keep of the highest value
        // were met.
        assert!(ties > 1000, "{ties}");
    }

    /// The first keep (in the order of preference) of the highest value.
    fn scan_first_max(turn: &TurnValues, rolls_left: u8, roll: usize) -> usize {
        let keeps = Dice::keep_indices_by_preference(roll);
        let value = |k: &u16| turn.value_of_index(rolls_left, usize::from(*k));
        let highest = keeps.iter().map(value).fold(f64::MIN, f64::max);
        usize::from(*keeps.iter().find(|k| value(k) == highest).unwrap())
    }

    /// The lanes a solve runs: one per card without an upper bonus (Yacht: every card but
    /// the full one), whole blocks of 8 with one (Yahtzee's 359,422 solo lanes padded).
    #[test]
    fn solved_lanes_are_the_blocks_of_every_card() {
        let yacht = Rules::new(RuleSet::YACHT);
        assert_eq!(solved_lanes(&yacht), (1 << 12) - 1);
        let yahtzee = Rules::new(RuleSet::YAHTZEE);
        let lanes = solved_lanes(&yahtzee);
        assert_eq!(lanes % TAIL_BLOCK as u64, 0);
        assert_eq!(lanes, 385_016);
    }

    #[test]
    fn shared_upper_totals_are_those_that_cannot_reach_the_bonus() {
        // Every upper box open: 105 points still possible, no total is out of reach.
        let r = Rules::new(RuleSet::YAHTZEE);
        let shared_upper_totals = |filled| shared_upper_totals(&r, filled);
        assert_eq!(shared_upper_totals(0), 0);
        // Only the sixes open: at most 30 more, so totals 0 to 32 can no longer reach 63.
        assert_eq!(shared_upper_totals(0b01_1111), (1 << 33) - 1);
        // Only the aces and twos open: at most 15 more, totals 0 to 47.
        assert_eq!(shared_upper_totals(0b11_1100 | 1 << 9), (1 << 48) - 1);
        // Upper section full: every total shares one value.
        assert_eq!(shared_upper_totals(UPPER_MASK), UpperTotals::MAX);
        // Fours, fives and sixes open: 75 more, no total is out of reach.
        assert_eq!(shared_upper_totals(0b00_0111), 0);
    }
}
