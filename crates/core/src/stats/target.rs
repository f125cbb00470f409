//! The exact distribution of the final score under the target policy: the best chance of a
//! final score of at least `T` ([`crate::policy::target::TargetTurn`], the policy `simulate
//! --policy target:T` and the target bots play), by propagating probability forward as
//! [`super::exact_distribution`] does for the expected-score policy. The same pass follows
//! the best response to opponents' final-score distributions ([`crate::policy::win`]: the win table
//! read at the points banked, [`Play::Win`]), from any card or any position in a turn
//! ([`distribution_from_card`], [`distribution_from_position`]).
//!
//! The target policy depends on the points banked, through the points still needed
//! `T - banked`, so a state's mass is held by points banked (and, for the figures of the
//! Yahtzee bonuses, by their number: a [`Joint`] histogram), and each banked value of a state
//! has its own turn. Where the target policy cannot differ from the expected-score policy
//! (the target reached, `needed <= 0`, or out of reach, `needed` above [`max_remaining`];
//! to win, a game lost or won whatever is played: [`Play::window`]) the
//! expected-score turn's outcomes ([`super::turn_outcomes`]) serve every such banked value at
//! once. Elsewhere the turn is computed by the vector table's kernel for 16 banked values at
//! a time ([`VectorTable::turn_lanes`], each lane bit for bit the turn
//! `TargetTurn` computes), and each lane's decisions are taken by the rule of
//! [`crate::policy::target::TargetTurn`]: the chance, then within 1e-9 the expected final score, then
//! the fewest dice kept or the box first on the card.
//!
//! Memory: the turns of a depth do not fit in memory for Yahtzee (a state has up to a few
//! hundred banked values, each with its own outcomes), so the cards of a depth are taken in
//! batches of [`BATCH`]: a batch's turns are computed in parallel, moved into the successors'
//! histograms, and dropped. Determinism: every successor gathers its predecessors in the
//! order of the cards (then of their states, outcomes, bonus counts and banked values),
//! whatever the batches and the threads, so the distribution is the same at any thread count.

use std::sync::{LazyLock, Mutex};

use rayon::prelude::*;

use super::{Seed, roll_dice, turn_outcomes};
use crate::game::dice::{Dice, DiceSpace, Lattice};
use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{Bonuses, Layout, ScoreCard, State, cards_by_depth};
use crate::game::ties::Preferred;
use crate::policy::expected::{BoxChoice, Position};
use crate::policy::target::TargetPlayer;
use crate::policy::target::{TargetError, TargetTurn};
use crate::policy::win::FinalScores;
use crate::solve::expected::TurnValues;
use crate::solve::forward::{Kept, outcome_chances};
use crate::solve::kernel::Layer;
use crate::solve::simd::Simd;
use crate::solve::vector::max_remaining;
use crate::stats::distribution::Tally;
use crate::stats::visits::Visits;
use crate::tables::TableError;
use crate::tables::expected::StrategyTable;
use crate::tables::vector::MAX_TURN_LANES;
use crate::tables::vector::VectorTable;
use yahtzee_kernel::simd_dispatch;

/// Cards whose turns are computed together: enough work for the threads, little enough
/// memory (a Yahtzee card's turns for every banked value take up to tens of megabytes).
pub const BATCH: usize = 8;

/// Lanes of one run of the target table's kernel: values of `needed` computed together.
const LANES: usize = MAX_TURN_LANES;

/// Mass over points banked, from `lo`.
#[derive(Clone, Debug, Default, PartialEq)]
struct Row {
    lo: u32,
    mass: Vec<f64>,
}

impl Row {
    fn hi(&self) -> u32 {
        self.lo + self.mass.len() as u32
    }

    /// Makes room for the banked values `a..z`.
    fn cover(&mut self, a: u32, z: u32) {
        if self.mass.is_empty() {
            self.lo = a;
            self.mass = vec![0.0; (z - a) as usize];
            return;
        }
        if a < self.lo {
            // Room for more below as well: the mass of a successor comes from many
            // predecessors, each reaching a little lower (the zeros are trimmed at the end
            // of the depth).
            let new_lo = a.saturating_sub(self.mass.len() as u32 / 2);
            let extra = (self.lo - new_lo) as usize;
            self.mass.splice(0..0, std::iter::repeat_n(0.0, extra));
            self.lo = new_lo;
        }
        if z > self.hi() {
            let len = (z - self.lo) as usize;
            self.mass.resize(len, 0.0);
        }
    }

    /// Adds `scale` times `values` (banked values from `from`), shifted by `shift`.
    fn add_shifted(&mut self, from: u32, values: &[f64], shift: u32, scale: f64) {
        if values.is_empty() {
            return;
        }
        let a = from + shift;
        self.cover(a, a + values.len() as u32);
        let start = (a - self.lo) as usize;
        for (d, &v) in self.mass[start..start + values.len()]
            .iter_mut()
            .zip(values)
        {
            *d += scale * v;
        }
    }

    /// Drops the zeros at both ends.
    fn trim(&mut self) {
        let Some(first) = self.mass.iter().position(|&m| m != 0.0) else {
            self.mass.clear();
            return;
        };
        let last = self
            .mass
            .iter()
            .rposition(|&m| m != 0.0)
            .expect("a nonzero mass");
        self.mass.truncate(last + 1);
        self.mass.drain(..first);
        self.lo += first as u32;
    }
}

/// The mass of one state: `rows[k]` by points banked, for `k` Yahtzee bonuses earned so far
/// (one row in rule sets without them). The target policy depends on the points banked, so
/// the number of bonuses, whose figures are reported, must be held with them.
#[derive(Clone, Debug, Default, PartialEq)]
struct Joint {
    rows: Vec<Row>,
}

impl Joint {
    fn row_mut(&mut self, k: usize) -> &mut Row {
        if self.rows.len() <= k {
            self.rows.resize(k + 1, Row::default());
        }
        &mut self.rows[k]
    }

    /// The banked values of some mass: `lo..hi` (empty for no mass).
    fn support(&self) -> (u32, u32) {
        let rows = self.rows.iter().filter(|r| !r.mass.is_empty());
        let lo = rows.clone().map(|r| r.lo).min().unwrap_or(0);
        let hi = rows.map(Row::hi).max().unwrap_or(0);
        (lo, hi.max(lo))
    }

    /// The mass at banked value `b`, summed over the bonus counts.
    fn at(&self, b: u32) -> f64 {
        self.rows
            .iter()
            .filter(|r| b >= r.lo && b < r.hi())
            .map(|r| r.mass[(b - r.lo) as usize])
            .sum()
    }

    fn trim(&mut self) {
        for r in &mut self.rows {
            r.trim();
        }
        while self.rows.last().is_some_and(|r| r.mass.is_empty()) {
            self.rows.pop();
        }
    }
}

/// The joints of one card (mask of filled boxes), by slot `flag * lanes + upper`.
type Block = Vec<Option<Joint>>;

/// One way a turn of a state can end: the box, its points, the bonus earned with it, and
/// the state after it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Outcome {
    box_index: u8,
    points: u8,
    bonus: u16,
    bonuses: Bonuses,
    next: State,
}

impl Outcome {
    fn gain(&self) -> u32 {
        u32::from(self.points) + u32::from(self.bonus)
    }
}

/// The keeps of every roll in the order of preference ([`crate::game::dice::Dice::keeps_by_preference`]),
/// flat: the keeps of roll `r` are `start[r]..start[r + 1]`, each with its multiset index and
/// whether it keeps all the dice (a stop).
struct KeepTable {
    start: Vec<usize>,
    index: Vec<u16>,
    stop: Vec<bool>,
}

impl KeepTable {
    fn build(space: DiceSpace) -> KeepTable {
        let mut t = KeepTable {
            start: vec![0],
            index: Vec::new(),
            stop: Vec::new(),
        };
        for dice in roll_dice(space) {
            for keep in dice.keeps_by_preference() {
                t.index.push(keep.index() as u16);
                t.stop.push(keep.len() == space.dice());
            }
            t.start.push(t.index.len());
        }
        t
    }

    /// The keeps of the rolls of a game of `space`'s dice, listed once.
    fn of(space: DiceSpace) -> &'static KeepTable {
        static FIVE: LazyLock<KeepTable> = LazyLock::new(|| KeepTable::build(DiceSpace::FIVE));
        static SIX: LazyLock<KeepTable> = LazyLock::new(|| KeepTable::build(DiceSpace::SIX));
        if space == DiceSpace::SIX { &SIX } else { &FIVE }
    }
}

/// What a state's turn is made of, whatever the points needed: every way it can end
/// (sorted by box, points, bonus), each roll's legal boxes with their expected values, and
/// the expected-score value of every keep of every roll (the tie rule's second value).
struct TurnPlan {
    outcomes: Vec<Outcome>,
    /// Every roll's legal boxes in card order, roll after roll: (outcome, expected final
    /// points); those of roll `r` from `choices_start[r]` ([`TurnPlan::choices_of`]).
    choices: Vec<(u16, f64)>,
    choices_start: Vec<usize>,
    /// `keep_values[rolls_left - 1][pos]`: [`TurnValues::keep_value`] of the keep at `pos`
    /// of the game's [`KeepTable`], for 1 to the game's rolls less one rolls left.
    keep_values: Vec<Vec<f64>>,
    /// The game's dice.
    space: DiceSpace,
}

impl TurnPlan {
    fn new(ev: &StrategyTable, state: &State) -> TurnPlan {
        let rules = ev.rules();
        // Every roll's legal boxes in card order with their points and bonus, as
        // `box_choices` finds them; a way of filling a box is valued once, however many rolls
        // lead to it (`box_choices`' value: its points and bonus plus the table's value after).
        let space = rules.dice();
        let mut found: Vec<(u8, u8, Bonuses)> = Vec::with_capacity(space.rolls() * 8);
        let mut start = Vec::with_capacity(space.rolls() + 1);
        start.push(0);
        for dice in roll_dice(space) {
            let five = dice.five_of_a_kind().is_some();
            let legal = rules.legal_boxes(state.filled, dice);
            for c in crate::game::state::set_bits(u64::from(legal)) {
                let points = rules.score(c, dice, state.filled);
                found.push((
                    c as u8,
                    points as u8,
                    state.bonuses_for(rules, c, points, five),
                ));
            }
            start.push(found.len());
        }
        let mut keys: Vec<(u8, u8, u16, Bonuses)> = found
            .iter()
            .map(|&(c, p, b)| (c, p, b.points(rules) as u16, b))
            .collect();
        keys.sort_unstable_by_key(|k| (k.0, k.1, k.2));
        keys.dedup_by_key(|k| (k.0, k.1, k.2));
        let outcomes: Vec<Outcome> = keys
            .iter()
            .map(|&(c, p, bonus, bonuses)| Outcome {
                box_index: c,
                points: p,
                bonus,
                bonuses,
                next: state.after(rules, usize::from(c), u32::from(p)),
            })
            .collect();
        let futures: Vec<f64> = outcomes
            .iter()
            .map(|o| f64::from(o.gain()) + ev.value(&o.next))
            .collect();
        let choices = found
            .iter()
            .map(|&(c, p, b)| {
                let o = find(&outcomes, c, p, b.points(rules) as u16);
                (o, futures[usize::from(o)])
            })
            .collect();
        let values = TurnValues::new(ev, state);
        let keeps = KeepTable::of(space);
        // `TurnValues::keep_value`: stopping, or a keep with one roll left, reads the layer of
        // one roll left.
        let keep_values = (1..rules.rolls())
            .map(|rolls_left| {
                keeps
                    .index
                    .iter()
                    .zip(&keeps.stop)
                    .map(|(&i, &stop)| {
                        values.value_of_index(if stop { 1 } else { rolls_left }, usize::from(i))
                    })
                    .collect()
            })
            .collect();
        TurnPlan {
            outcomes,
            choices,
            choices_start: start,
            keep_values,
            space,
        }
    }

    /// The legal boxes of roll `r` in card order: (outcome, expected final points).
    fn choices_of(&self, r: usize) -> &[(u16, f64)] {
        &self.choices[self.choices_start[r]..self.choices_start[r + 1]]
    }
}

/// The position of the outcome (box, points, bonus) in sorted `outcomes`.
fn find(outcomes: &[Outcome], box_index: u8, points: u8, bonus: u16) -> u16 {
    outcomes
        .binary_search_by_key(&(box_index, points, bonus), |o| {
            (o.box_index, o.points, o.bonus)
        })
        .expect("every choice of the turn is an outcome") as u16
}

/// Options whose chance is below the best by more than this cannot be chosen by the tie
/// rule ([`crate::game::ties::TieValue`] for pairs: within [`crate::game::ties::TIE`] of the
/// best, the second value decides). Twice the tie, so that no rounding of `best - TIE` can matter.
const CANDIDATE: f64 = 2.0 * crate::game::ties::TIE;

/// The choice of the tie rule among options in the order of preference, for every lane at
/// once: `chance(j)` is option `j`'s chance in each lane, `second(j)` its second value (the
/// expected score, the same in every lane), `best` each lane's best chance (the kernel's
/// maximum over the same options). When a single option of a lane is within [`CANDIDATE`]
/// of the lane's best chance it is the lane's choice (no other can beat it); otherwise, or
/// when none is (`best` above every option), the rule's scan ([`Preferred`]) decides for
/// that lane.
#[inline(always)]
fn choose_lanes<'c>(
    options: usize,
    lanes: usize,
    best: &[f64; LANES],
    chance: impl Fn(usize) -> &'c [f64; LANES],
    second: impl Fn(usize) -> f64,
) -> [u16; LANES] {
    let mut floor = [0.0; LANES];
    for l in 0..LANES {
        floor[l] = best[l] - CANDIDATE;
    }
    // 64-bit counters, the width of the chances, so that the loop stays in vector registers.
    let mut count = [0u64; LANES];
    let mut last = [0u64; LANES];
    for j in 0..options {
        let c = chance(j);
        for l in 0..LANES {
            let candidate = c[l] >= floor[l];
            count[l] += u64::from(candidate);
            last[l] = if candidate { j as u64 } else { last[l] };
        }
    }
    let mut chosen = [0u16; LANES];
    for l in 0..lanes {
        chosen[l] = if count[l] == 1 {
            last[l] as u16
        } else {
            let mut rule = Preferred::new();
            for j in 0..options {
                rule.offer(j as u16, (chance(j)[l], second(j)));
            }
            rule.best().expect("an option").0
        };
    }
    chosen
}

/// The value of `state`'s vector at each of `xs` (the lanes), as [`VectorTable::value`]
/// reads it: below the stored range the table's `below` value (1 for the target table, 0
/// for the win table), above it its `above` value (0 for the target table, 1 for the win
/// table). The state's card is looked up once for all lanes.
fn lanes_of(table: &VectorTable<f32>, state: &State, xs: &[i64; LANES]) -> [f64; LANES] {
    let value = table
        .reader(state)
        .expect("every card of the table was read when the player was made");
    xs.map(|x| f64::from(value(x)))
}

/// The policy's turn of one state for up to [`LANES`] coordinates `coords` of the policy's
/// table (the points still needed for a target, the points banked for the win objective;
/// `sign` is how points scored move it, see [`Play::sign`]): the mass of each outcome for
/// each lane. The decisions are those of `TargetTurn` at each coordinate, and each lane's
/// mass by the forward pass of [`crate::solve::forward`], for all lanes at once. Compiled for
/// the widest vectors of the processor, like the kernel (no operation is fused, so every
/// instruction set gives the same bits).
fn target_lanes(
    targets: &VectorTable<f32>,
    sign: i64,
    plan: &TurnPlan,
    state: &State,
    coords: &[i64],
) -> Vec<Vec<f64>> {
    target_lanes_dispatch(Simd::detect(), (targets, sign, plan, state, coords))
}

simd_dispatch! {
    /// [`target_lanes_of`] compiled for an instruction set.
    fn target_lanes_dispatch[](
        targets: &VectorTable<f32>,
        sign: i64,
        plan: &TurnPlan,
        state: &State,
        coords: &[i64],
    ) -> Vec<Vec<f64>> {
        target_lanes_of
    }
}

#[inline(always)]
fn target_lanes_of(
    targets: &VectorTable<f32>,
    sign: i64,
    plan: &TurnPlan,
    state: &State,
    coords: &[i64],
) -> Vec<Vec<f64>> {
    let n = coords.len();
    debug_assert!((1..=LANES).contains(&n));
    let mut xs = [coords[n - 1]; LANES];
    xs[..n].copy_from_slice(coords);
    let space = plan.space;
    let (first_roll, rolls) = (space.first_roll(), space.rolls());
    // The game's re-rolls: the decisions with 1 to `layers` rolls left.
    let layers = plan.keep_values.len();
    // `by_rolls_left[n - 1]`: the layer of `n` rolls left; the last entry, the opening's.
    let mut by_rolls_left: Vec<Vec<[f64; LANES]>> = Vec::with_capacity(layers + 1);
    // After each layer the rolls' entries hold the best over the options of the next
    // decision: the best box (one roll left's layer), the best keep with `n` rolls left
    // (`n + 1` rolls left's, or the opening's for the first decision).
    targets
        .turn_lanes::<LANES>(state, &xs, Layer::Opening, |_, k| {
            by_rolls_left.push(k.to_vec());
        })
        .expect("every card of the target table was read when the player was made");
    let one = &by_rolls_left[0];
    // The chance after each outcome, per lane: `VectorTable::after_box` at each coordinate.
    let chances: Vec<[f64; LANES]> = plan
        .outcomes
        .iter()
        .map(|o| {
            let gain = sign * i64::from(o.gain());
            lanes_of(targets, &o.next, &xs.map(|x| x + gain))
        })
        .collect();
    // `TargetTurn::best_keep`: each keep's chance (stopping, or a keep with one roll left,
    // reads the layer of one roll left), then its expected value.
    let keeps = KeepTable::of(space);
    let mut kept = vec![[Kept::Stop; LANES]; layers * rolls];
    for (layer, values) in plan.keep_values.iter().enumerate() {
        // The decisions with `layer + 1` rolls left: their keeps' chances in that layer, each
        // roll's best in the next (its rolls' entries).
        let (fewer, next) = (&by_rolls_left[layer], &by_rolls_left[layer + 1]);
        for r in 0..rolls {
            let (a, z) = (keeps.start[r], keeps.start[r + 1]);
            let source = |j: usize| {
                let pos = a + j;
                let i = usize::from(keeps.index[pos]);
                if keeps.stop[pos] { &one[i] } else { &fewer[i] }
            };
            let best = &next[first_roll + r];
            let chosen = choose_lanes(z - a, n, best, source, |j| values[a + j]);
            let out = &mut kept[layer * rolls + r];
            for l in 0..n {
                let pos = a + usize::from(chosen[l]);
                out[l] = if keeps.stop[pos] {
                    Kept::Stop
                } else {
                    Kept::Keep(keeps.index[pos])
                };
            }
        }
    }
    // `TargetTurn::best_box`: each legal box's chance, then its expected value.
    let mut boxes = vec![[u16::MAX; LANES]; rolls];
    for (r, out) in boxes.iter_mut().enumerate() {
        let choices = plan.choices_of(r);
        if choices.is_empty() {
            continue;
        }
        let chosen = choose_lanes(
            choices.len(),
            n,
            &one[first_roll + r],
            |j| &chances[usize::from(choices[j].0)],
            |j| choices[j].1,
        );
        for l in 0..n {
            out[l] = choices[usize::from(chosen[l])].0;
        }
    }
    // The probability from the opening rolls to the boxes, every lane at once.
    let chances = outcome_chances::<LANES>(
        space,
        layers as u8 + 1,
        n,
        plan.outcomes.len(),
        |rolls_left, r, l| kept[usize::from(rolls_left - 1) * rolls + r][l],
        |r, l| Some(boxes[r][l]).filter(|&o| o != u16::MAX),
    );
    (0..n)
        .map(|l| chances.iter().map(|c| c[l]).collect())
        .collect()
}

/// Which policy of a vector table a distribution follows, and how its table's coordinate
/// reads the points banked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Play {
    /// The target policy for a final score of at least this, on the target table: the
    /// coordinate is the points still needed, `target - banked`.
    Target(u32),
    /// The best response to opponents whose final scores all lie in `lo..=hi`, on the win
    /// table of [`crate::policy::win::best_response`]: the coordinate is the points banked.
    Win {
        /// The lowest final score of any opponent with a chance.
        lo: u32,
        /// The highest.
        hi: u32,
    },
}

impl Play {
    /// The table's coordinate with `banked` points on the card.
    pub fn coordinate(self, banked: u32) -> i64 {
        match self {
            Play::Target(t) => i64::from(t) - i64::from(banked),
            Play::Win { .. } => i64::from(banked),
        }
    }

    /// How points scored move the coordinate: -1 (fewer points needed) or +1 (more banked).
    pub fn sign(self) -> i64 {
        match self {
            Play::Target(_) => -1,
            Play::Win { .. } => 1,
        }
    }

    /// The banked values `a..z` whose turn is the table's own, in a state that can still
    /// score at most `most`. For the others every option has the same value, so the tie rule
    /// plays the expected-score turn: for a target, `needed = target - banked` from 1 to
    /// `most` is the window (reached: every chance is 1; out of reach: 0); to win, a banked
    /// value from which even `most` more loses to every opponent for sure (below
    /// `lo - most`: every chance is 0) or that beats them all for sure (above `hi`: 1) is
    /// outside it.
    fn window(self, most: u32) -> (u32, u32) {
        match self {
            Play::Target(target) => (target.saturating_sub(most), target),
            Play::Win { lo, hi } => (lo.saturating_sub(most), hi + 1),
        }
    }

    /// What the policy is, in words, for an answer that charts its distribution.
    pub fn name(self) -> &'static str {
        match self {
            Play::Target(_) => crate::solve::vector::TARGET,
            Play::Win { .. } => crate::policy::win::WIN,
        }
    }
}

/// The policy of a vector table with what it needs: the expected-score table (for its ties
/// and for the turns outside the window, [`Play::window`]), the vector table, and what it
/// plays for. Its cards are read when it is made, so that a damaged file is an error there.
pub struct VectorPolicy<'a> {
    ev: &'a StrategyTable,
    table: &'a VectorTable<f32>,
    play: Play,
}

impl<'a> VectorPolicy<'a> {
    /// The target policy of `player`.
    pub fn target(player: &TargetPlayer<'a>) -> VectorPolicy<'a> {
        VectorPolicy {
            ev: player.ev(),
            table: player.targets(),
            play: Play::Target(player.target()),
        }
    }

    /// The best response to opponents whose final scores have the distributions
    /// `opponents`, from `start` on: `table` is the win table solved against them for the
    /// cards that follow `start` ([`crate::policy::win::best_response`], objective `win`), `ev`
    /// the expected-score table of the same rules.
    pub fn win(
        ev: &'a StrategyTable,
        table: &'a VectorTable<f32>,
        opponents: &[FinalScores],
        start: &State,
    ) -> Result<VectorPolicy<'a>, TargetError> {
        debug_assert_eq!(table.objective(), crate::policy::win::WIN);
        let rules = *ev.rules();
        if *table.rules() != rules {
            return Err(TargetError::RulesMismatch {
                card: rules.label(),
                table: table.rules().label(),
            });
        }
        table.check_cards_from(start.filled)?;
        // The range of the opponents' final scores, as `crate::policy::win::utility` takes it.
        let lo = opponents.iter().map(|o| o.lo).min().unwrap_or(0);
        let hi = opponents.iter().map(FinalScores::hi).max().unwrap_or(0);
        Ok(VectorPolicy {
            ev,
            table,
            play: Play::Win { lo, hi },
        })
    }

    /// What the policy plays for.
    pub fn play(&self) -> Play {
        self.play
    }
}

/// The turns of one state, for every banked value of its mass.
struct StateTurns {
    outcomes: Vec<Outcome>,
    /// The expected-score turn's mass per outcome, when some banked value plays it.
    ev: Option<Vec<f64>>,
    /// The banked values `window.0..window.1` play the target policy's turn.
    window: (u32, u32),
    /// From banked value `lo`, the target turn's mass per outcome (empty for a banked value
    /// without mass).
    lo: u32,
    target: Vec<Vec<f64>>,
    /// The state's share of the per-box figures: (box, points, mass), then the upper bonus.
    figures: Vec<(u8, u8, f64)>,
    upper_bonus: f64,
}

impl StateTurns {
    fn new(policy: &VectorPolicy<'_>, state: &State, joint: &Joint) -> StateTurns {
        let ev = policy.ev;
        let rules = ev.rules();
        let plan = TurnPlan::new(ev, state);
        let window = policy.play.window(max_remaining(rules, state));
        let (lo, hi) = joint.support();
        let (a, z) = (lo.max(window.0), hi.min(window.1));
        let uses_ev = lo < window.0 || hi > window.1 || a >= z;
        let ev_mass = uses_ev.then(|| {
            let mut mass = vec![0.0; plan.outcomes.len()];
            for e in turn_outcomes(ev, state) {
                mass[usize::from(find(&plan.outcomes, e.box_index, e.points, e.bonus))] +=
                    e.probability;
            }
            mass
        });
        let mut turns: Vec<Vec<f64>> = Vec::new();
        if a < z {
            turns = vec![Vec::new(); (z - a) as usize];
            let banked: Vec<u32> = (a..z).filter(|&b| joint.at(b) != 0.0).collect();
            for chunk in banked.chunks(LANES) {
                let coords: Vec<i64> = chunk.iter().map(|&b| policy.play.coordinate(b)).collect();
                let lanes = target_lanes(policy.table, policy.play.sign(), &plan, state, &coords);
                for (&b, m) in chunk.iter().zip(lanes) {
                    turns[(b - a) as usize] = m;
                }
            }
        }
        let mut turns = StateTurns {
            outcomes: plan.outcomes,
            ev: ev_mass,
            window,
            lo: a,
            target: turns,
            figures: Vec::new(),
            upper_bonus: 0.0,
        };
        turns.figures(joint);
        turns
    }

    /// The target turn's mass per outcome at banked value `b`, or the expected-score turn's.
    fn at(&self, b: u32) -> &[f64] {
        if b >= self.window.0 && b < self.window.1 {
            &self.target[(b - self.lo) as usize]
        } else {
            self.ev
                .as_deref()
                .expect("a banked value outside the window plays the expected-score turn")
        }
    }

    /// The state's share of the per-box figures, from its mass.
    fn figures(&mut self, joint: &Joint) {
        let (lo, hi) = joint.support();
        let mut per_outcome = vec![0.0; self.outcomes.len()];
        let mut ev_reach = 0.0;
        for b in lo..hi {
            let reach = joint.at(b);
            if reach == 0.0 {
                continue;
            }
            if b >= self.window.0 && b < self.window.1 {
                for (d, &m) in per_outcome
                    .iter_mut()
                    .zip(&self.target[(b - self.lo) as usize])
                {
                    *d += reach * m;
                }
            } else {
                ev_reach += reach;
            }
        }
        if let Some(ev) = &self.ev {
            for (d, &m) in per_outcome.iter_mut().zip(ev) {
                *d += ev_reach * m;
            }
        }
        for (o, &m) in self.outcomes.iter().zip(&per_outcome) {
            if m > 0.0 {
                self.figures.push((o.box_index, o.points, m));
                if o.bonuses.upper {
                    self.upper_bonus += m;
                }
            }
        }
    }
}

fn slot_of(layout: &Layout, state: &State) -> usize {
    super::slot_of(layout, state)
}

/// The exact distribution of the final score from an empty card under the target policy of
/// `player` (the best chance of a final score of at least its target; ties: the higher
/// expected final score, then the usual preference), with the per-box figures.
/// `progress(done, total)` counts cards. Runs on the current rayon thread pool; the result
/// is the same at any thread count.
pub fn target_distribution(
    player: &TargetPlayer<'_>,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Tally {
    target_distribution_from(player, &State::START, 0, progress)
}

/// [`target_distribution`] from `start` with `banked` points on the card (final scores
/// include them; the figures count the boxes filled from `start` on and the Yahtzee bonuses
/// earned from there). The target table may be a reduced one that holds the states after
/// `start` ([`crate::solve::vector::solve_reduced`]).
pub fn target_distribution_from(
    player: &TargetPlayer<'_>,
    start: &State,
    banked: u32,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Tally {
    target_pass(player, start, banked, progress).0
}

/// The chance that a game played by the target policy of `player` from an empty card
/// reaches each turn-start state, by the forward pass of [`target_distribution`] (a state's
/// mass summed over the points banked). Runs on the current rayon thread pool; the result is
/// the same at any thread count.
pub fn target_visit_probabilities(
    player: &TargetPlayer<'_>,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Visits {
    target_pass(player, &State::START, 0, progress).1
}

/// The forward pass of the target policy of `player` from `start` with `banked` points on
/// the card, never stopped.
fn target_pass(
    player: &TargetPlayer<'_>,
    start: &State,
    banked: u32,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> (Tally, Visits) {
    let policy = VectorPolicy::target(player);
    let seeds = [Seed {
        state: *start,
        fifty: start.yahtzee_50,
        banked,
        bonuses: 0,
        mass: 1.0,
    }];
    let tally = Tally::new(player.ev().rules());
    propagate(&policy, tally, &seeds, &|done, total| {
        progress(done, total);
        true
    })
    .expect("the computation is never stopped")
}

/// The exact distribution of the final score under `policy` from the start of a turn of
/// `card` (before its first roll), with the per-box figures of the boxes filled from there.
/// `progress(done, total)` counts cards and says whether to go on: `false` stops the
/// computation, which then gives `None`. Runs on the current rayon thread pool; the result
/// is the same at any thread count.
pub fn distribution_from_card(
    policy: &VectorPolicy<'_>,
    card: &ScoreCard,
    progress: &(dyn Fn(u64, u64) -> bool + Sync),
) -> Result<Option<Tally>, TargetError> {
    check_rules(policy, card)?;
    let seeds = [Seed::of_card(card)];
    Ok(propagate(policy, Tally::new(&card.rules()), &seeds, progress).map(|(t, _)| t))
}

/// [`distribution_from_card`] from the middle of a turn: `position`'s dice showing with its
/// rolls left. The rest of the turn is played by the policy's turn at the position's
/// coordinate ([`crate::policy::target::TargetTurn`]: the choices `advise --target` or `advise
/// --opponent` ranks first), then the game as from a card.
pub fn distribution_from_position(
    policy: &VectorPolicy<'_>,
    position: &Position,
    progress: &(dyn Fn(u64, u64) -> bool + Sync),
) -> Result<Option<Tally>, TargetError> {
    let card = &position.card;
    check_rules(policy, card)?;
    // The position is checked: rolls left, a card with an open box.
    crate::policy::expected::advise(policy.ev, position)?;
    let rules = card.rules();
    let state = card.state();
    let banked = card.banked();
    let turn = TargetTurn::new(
        policy.ev,
        policy.table,
        &state,
        policy.play.coordinate(banked),
    )?;
    let mut ends: Vec<(BoxChoice, f64)> = Vec::new();
    play_out(&turn, &position.dice, position.rolls_left, 1.0, &mut ends)?;
    // Equal ends merged in a fixed order (box, points, bonus; then the order of the rolls).
    ends.sort_by_key(|(c, _)| (c.index, c.points, c.bonus));
    let mut tally = Tally::new(&rules);
    let mut seeds: Vec<Seed> = Vec::new();
    let start = Seed::of_card(card);
    for (c, p) in ends {
        let seed = start.after(&rules, c.index, c.points, c.bonus, c.bonuses.yahtzee, p);
        match seeds.last_mut() {
            Some(last)
                if (last.state, last.banked, last.bonuses)
                    == (seed.state, seed.banked, seed.bonuses) =>
            {
                last.mass += p;
            }
            _ => seeds.push(seed),
        }
        tally.add_box(c.index, c.points, p);
        if c.bonuses.upper {
            tally.upper_bonus += p;
        }
    }
    Ok(propagate(policy, tally, &seeds, progress).map(|(t, _)| t))
}

fn check_rules(policy: &VectorPolicy<'_>, card: &ScoreCard) -> Result<(), TargetError> {
    if card.rules() != *policy.ev.rules() {
        return Err(TargetError::RulesMismatch {
            card: card.rules().label(),
            table: policy.ev.rules().label(),
        });
    }
    Ok(())
}

/// The rest of a turn from `dice` with `rolls_left`, reached with chance `p`, played by
/// `turn`: every box it ends in, with its chance, in the order of the rolls.
fn play_out(
    turn: &TargetTurn<'_>,
    dice: &Dice,
    rolls_left: u8,
    p: f64,
    ends: &mut Vec<(BoxChoice, f64)>,
) -> Result<(), TableError> {
    if rolls_left > 0 {
        let keep = turn.best_keep(rolls_left, dice);
        // Keeping all the dice stops the turn: the box is chosen as with no roll left.
        if keep.len() < dice.len() {
            let space = DiceSpace::of(dice.len()).expect("a roll of five or six dice");
            let lattice = Lattice::get();
            for d in space.all_rolls().filter(|d| keep.is_within(d)) {
                let q = lattice.outcome_probability(keep.index(), d.index());
                play_out(turn, &d, rolls_left - 1, p * q, ends)?;
            }
            return Ok(());
        }
    }
    let (c, _) = turn.best_box(dice)?;
    ends.push((c, p));
    Ok(())
}

/// The forward pass of `policy` from `seeds` (states of one depth, each reached with its
/// points banked and its chance), adding to `tally` (which may hold the figures of the turn
/// that led to the seeds), with the chance of reaching each state from the seeds; `None` when
/// `progress` says to stop.
fn propagate(
    policy: &VectorPolicy<'_>,
    mut tally: Tally,
    seeds: &[Seed],
    progress: &(dyn Fn(u64, u64) -> bool + Sync),
) -> Option<(Tally, Visits)> {
    let ev = policy.ev;
    let rules: Rules = *ev.rules();
    let layout = *ev.layout();
    let boxes = rules.box_count();
    let slots = layout.flags * layout.lanes;
    let by_depth = cards_by_depth(&rules);
    let mut layer: Vec<Option<Block>> = vec![None; layout.masks];
    for seed in seeds {
        let block = layer[seed.state.filled as usize].get_or_insert_with(|| vec![None; slots]);
        block[slot_of(&layout, &seed.state)]
            .get_or_insert_with(Joint::default)
            .row_mut(seed.bonuses)
            .add_shifted(seed.banked, &[seed.mass], 0, 1.0);
    }
    let mut visits = Visits::new(&rules);
    let Some(first) = seeds.first() else {
        return Some((tally, visits));
    };
    debug_assert!(
        seeds
            .iter()
            .all(|s| s.state.filled.count_ones() == first.state.filled.count_ones()),
        "the seeds are of one depth"
    );
    let start = first.state;
    let from = start.filled.count_ones() as usize;
    let total: u64 = (from..boxes).map(|d| by_depth[d].len() as u64).sum();
    let mut done = 0u64;
    if !progress(done, total) {
        return None;
    }
    for depth_cards in &by_depth[from..boxes] {
        let cards: Vec<BoxMask> = depth_cards
            .iter()
            .copied()
            .filter(|&m| layer[m as usize].is_some())
            .collect();
        visit(&mut visits, &layout, &layer, &cards);
        let next: Vec<Mutex<Option<Block>>> = (0..layout.masks).map(|_| Mutex::new(None)).collect();
        for batch in cards.chunks(BATCH) {
            // The turns of every state of the batch, in parallel.
            let work: Vec<(usize, usize)> = batch
                .iter()
                .enumerate()
                .flat_map(|(i, &m)| {
                    let block = layer[m as usize].as_ref().expect("a card with mass");
                    (0..slots)
                        .filter(move |&s| block[s].is_some())
                        .map(move |s| (i, s))
                })
                .collect();
            let computed: Vec<StateTurns> = work
                .par_iter()
                .map(|&(i, s)| {
                    let m = batch[i];
                    let joint = layer[m as usize].as_ref().expect("a card with mass")[s]
                        .as_ref()
                        .expect("a state with mass");
                    StateTurns::new(policy, &super::state_of(&layout, m, s), joint)
                })
                .collect();
            let mut turns: Vec<Vec<Option<StateTurns>>> = batch
                .iter()
                .map(|_| (0..slots).map(|_| None).collect())
                .collect();
            for (&(i, s), t) in work.iter().zip(computed) {
                turns[i][s] = Some(t);
            }
            // The per-box figures, in a fixed order: card, slot, outcome.
            for card in &turns {
                for t in card.iter().flatten() {
                    for &(b, p, m) in &t.figures {
                        tally.add_box(usize::from(b), u32::from(p), m);
                    }
                    tally.upper_bonus += t.upper_bonus;
                }
            }
            // Every successor gathers from the batch, in the order of the cards.
            let mut successors: Vec<BoxMask> = batch
                .iter()
                .flat_map(|&m| {
                    crate::game::state::set_bits(u64::from(rules.open_by_order(m)))
                        .map(move |c| m | (1 << c))
                })
                .collect();
            successors.sort_unstable();
            successors.dedup();
            successors.par_iter().for_each(|&n| {
                let mut slot = next[n as usize].lock().unwrap_or_else(|e| e.into_inner());
                let block = slot.get_or_insert_with(|| vec![None; slots]);
                for (i, &m) in batch.iter().enumerate() {
                    let c = n & !m;
                    if m & n != m || c.count_ones() != 1 {
                        continue;
                    }
                    let c = c.trailing_zeros() as u8;
                    let from = layer[m as usize].as_ref().expect("a card with mass");
                    for (s, t) in turns[i].iter().enumerate() {
                        let (Some(t), Some(joint)) = (t, &from[s]) else {
                            continue;
                        };
                        gather(&layout, block, joint, t, c);
                    }
                }
            });
            done += batch.len() as u64;
            if !progress(done, total) {
                return None;
            }
        }
        done += (depth_cards.len() - cards.len()) as u64;
        layer = next
            .into_iter()
            .map(|m| {
                m.into_inner()
                    .unwrap_or_else(|e| e.into_inner())
                    .map(|mut block| {
                        for j in block.iter_mut().flatten() {
                            j.trim();
                        }
                        block
                    })
            })
            .collect();
        if !progress(done, total) {
            return None;
        }
    }
    let full: Vec<BoxMask> = by_depth[boxes]
        .iter()
        .copied()
        .filter(|&m| layer[m as usize].is_some())
        .collect();
    visit(&mut visits, &layout, &layer, &full);
    for block in layer.iter().flatten() {
        for joint in block.iter().flatten() {
            let (lo, hi) = joint.support();
            for b in lo..hi {
                let m = joint.at(b);
                if m > 0.0 {
                    tally.add_score(b, m);
                }
            }
            for (k, row) in joint.rows.iter().enumerate() {
                let m: f64 = row.mass.iter().sum();
                if m > 0.0 {
                    tally.add_yahtzee_bonuses(k, m);
                }
            }
        }
    }
    Some((tally, visits))
}

/// Adds the mass of every state of `cards` in `layer` to `visits`, in the order of the cards.
fn visit(visits: &mut Visits, layout: &Layout, layer: &[Option<Block>], cards: &[BoxMask]) {
    for &m in cards {
        let block = layer[m as usize].as_ref().expect("a card with mass");
        for (s, joint) in block.iter().enumerate() {
            if let Some(joint) = joint {
                let mass: f64 = joint.rows.iter().flat_map(|r| &r.mass).sum();
                visits.add(&super::state_of(layout, m, s), mass);
            }
        }
    }
}

/// Moves the mass `joint` of a state, whose turns are `turns`, through its outcomes filling
/// box `c` into the successors' joints `block`.
fn gather(layout: &Layout, block: &mut Block, joint: &Joint, turns: &StateTurns, c: u8) {
    let from = turns.outcomes.partition_point(|o| o.box_index < c);
    let to = turns.outcomes.partition_point(|o| o.box_index <= c);
    let (wa, wz) = turns.window;
    for o in from..to {
        let outcome = &turns.outcomes[o];
        let dest = block[slot_of(layout, &outcome.next)].get_or_insert_with(Joint::default);
        let shift = outcome.gain();
        let bonus = usize::from(outcome.bonuses.yahtzee);
        for (k, row) in joint.rows.iter().enumerate() {
            if row.mass.is_empty() {
                continue;
            }
            let (lo, hi) = (row.lo, row.hi());
            let out = dest.row_mut(k + bonus);
            // The banked values below and above the window play the expected-score turn.
            if let Some(ev) = &turns.ev {
                let p = ev[o];
                if p != 0.0 {
                    for (a, z) in [(lo, hi.min(wa)), (lo.max(wz), hi)] {
                        if a < z {
                            out.add_shifted(
                                a,
                                &row.mass[(a - lo) as usize..(z - lo) as usize],
                                shift,
                                p,
                            );
                        }
                    }
                }
            }
            for b in lo.max(wa)..hi.min(wz) {
                let h = row.mass[(b - lo) as usize];
                if h == 0.0 {
                    continue;
                }
                let p = turns.at(b)[o];
                if p != 0.0 {
                    out.add_shifted(b, &[h], shift, p);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::{Order, RuleSet};
    use crate::solve::expected::SolveOptions;
    use crate::solve::vector::VectorObjective;

    /// Every lane's keeps and boxes are those of `TargetTurn` at its `needed`: the policy of
    /// the statistics is the policy the bots and the simulation play.
    #[test]
    fn lane_decisions_are_the_target_turns() {
        for order in [Order::Any, Order::UpperFirst] {
            let rules = Rules::with_order(RuleSet::YACHT, order);
            let (ev, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
            let targets = VectorTable::solve(
                &VectorObjective::<f32>::target(rules),
                SolveOptions::default().simd,
                &|_, _| {},
            );
            let states = [
                State::START,
                State::START.after(&rules, 0, 3),
                State::START
                    .after(&rules, 0, 2)
                    .after(&rules, 5, 18)
                    .after(&rules, 1, 6),
            ];
            for state in states {
                let plan = TurnPlan::new(&ev, &state);
                // Each roll's boxes are `box_choices`', with the same values.
                for (r, dice) in roll_dice(DiceSpace::FIVE).iter().enumerate() {
                    let mine: Vec<(usize, u32, u32, f64)> = plan
                        .choices_of(r)
                        .iter()
                        .map(|&(o, future)| {
                            let o = &plan.outcomes[usize::from(o)];
                            (
                                usize::from(o.box_index),
                                u32::from(o.points),
                                u32::from(o.bonus),
                                future,
                            )
                        })
                        .collect();
                    let theirs: Vec<(usize, u32, u32, f64)> =
                        crate::policy::expected::box_choices(&ev, &state, dice)
                            .iter()
                            .map(|c| (c.index, c.points, c.bonus, c.future))
                            .collect();
                    assert_eq!(mine, theirs);
                }
                let most = i64::from(max_remaining(&rules, &state));
                let needed: Vec<i64> = (0..LANES as i64)
                    .map(|i| 1 + i * most / LANES as i64)
                    .collect();
                let lanes = target_lanes(&targets, -1, &plan, &state, &needed);
                for (l, &x) in needed.iter().enumerate() {
                    let turn = TargetTurn::new(&ev, &targets, &state, x).unwrap();
                    let reference = reference(&plan, &turn);
                    assert_eq!(lanes[l], reference, "{state:?} needed {x}");
                    let total: f64 = lanes[l].iter().sum();
                    assert!((total - 1.0).abs() < 1e-12, "{total}");
                }
            }
        }
    }

    /// The outcome masses of a turn of `state` played by `turn` (the reference of the lanes).
    fn reference(plan: &TurnPlan, turn: &TargetTurn<'_>) -> Vec<f64> {
        let rolls = roll_dice(plan.space);
        let chances = outcome_chances::<1>(
            plan.space,
            plan.keep_values.len() as u8 + 1,
            1,
            plan.outcomes.len(),
            |rolls_left, r, _| {
                Kept::of_index(plan.space, turn.best_keep(rolls_left, &rolls[r]).index())
            },
            |r, _| {
                let (c, _) = turn.best_box(&rolls[r]).unwrap();
                Some(find(
                    &plan.outcomes,
                    c.index as u8,
                    c.points as u8,
                    c.bonus as u16,
                ))
            },
        );
        chances.into_iter().map(|[m]| m).collect()
    }

    /// Yacht's tables, and opponents of a Yacht game: one still playing from a card, one
    /// finished.
    fn yacht() -> (StrategyTable, VectorTable<f32>) {
        let rules = Rules::new(RuleSet::YACHT);
        let (ev, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let targets = VectorTable::solve(
            &VectorObjective::<f32>::target(rules),
            SolveOptions::default().simd,
            &|_, _| {},
        );
        (ev, targets)
    }

    fn opponents() -> Vec<FinalScores> {
        vec![
            FinalScores {
                lo: 120,
                pmf: vec![0.1, 0.0, 0.2, 0.3, 0.25, 0.15],
            },
            FinalScores::point(131),
        ]
    }

    /// With the win table read at the points banked, every lane's keeps and boxes are those
    /// of `TargetTurn` on the win table at its banked value: the distribution of the win
    /// policy is the policy `advise --opponent` ranks first.
    #[test]
    fn win_lane_decisions_are_the_turns_of_the_win_table() {
        let (ev, _) = yacht();
        let rules = *ev.rules();
        let card = ScoreCard::parse(rules, "ones=2,twos=4,threes=9,fours=12,fives=15", 0).unwrap();
        let table =
            crate::policy::win::best_response(&card, &opponents(), SolveOptions::default().simd);
        let state = card.state();
        let plan = TurnPlan::new(&ev, &state);
        let banked: Vec<i64> = (0..LANES as i64).map(|i| 30 + 4 * i).collect();
        let lanes = target_lanes(&table, 1, &plan, &state, &banked);
        let mut differ = 0;
        for (l, &b) in banked.iter().enumerate() {
            let turn = TargetTurn::new(&ev, &table, &state, b).unwrap();
            let want = reference(&plan, &turn);
            assert_eq!(lanes[l], want, "banked {b}");
            differ += usize::from(lanes[l] != lanes[0]);
        }
        assert!(differ > 0, "the banked values play different turns");
    }

    /// The chance of `tally`'s final score being at least `t`.
    fn at_least(tally: &Tally, t: u32) -> f64 {
        tally.mass_at_least(t) / tally.total()
    }

    /// From a position, the target policy's distribution reaches the target with the best
    /// chance its advice gives, and the win policy's wins with the chance its advice gives;
    /// the positions of the opening rolls of a card mixed by their chances give the card's
    /// (from an empty card, `tests/serve.rs` checks it against `stats --target`).
    #[test]
    fn distributions_from_a_position_agree_with_the_advice_and_the_card() {
        let (ev, targets) = yacht();
        let rules = *ev.rules();
        let go_on = |_: u64, _: u64| true;
        let player = TargetPlayer::new(&ev, &targets, 150).unwrap();
        let policy = VectorPolicy::target(&player);
        let empty = ScoreCard::parse(rules, "", 0).unwrap();
        // A position in a turn: the chance of the target is the advice's best chance.
        let card = ScoreCard::parse(rules, "ones=3,sixes=24,choice=21", 0).unwrap();
        for (faces, rolls_left) in [
            ([2, 3, 5, 5, 6], 1),
            ([6, 6, 6, 1, 2], 2),
            ([4, 4, 4, 4, 1], 0),
        ] {
            let position = Position {
                card: card.clone(),
                dice: Dice::from_faces(&faces).unwrap(),
                rolls_left,
            };
            let tally = distribution_from_position(&policy, &position, &go_on)
                .unwrap()
                .unwrap();
            assert!((tally.total() - 1.0).abs() < 1e-12, "{}", tally.total());
            let advice =
                crate::policy::target::advise_target(&ev, &targets, &position, 150).unwrap();
            let p = at_least(&tally, 150);
            assert!(
                (p - advice.p_reach).abs() < 1e-6,
                "{faces:?}: {p} vs {}",
                advice.p_reach
            );
        }
        // The same against opponents, in chance of winning.
        let scores = opponents();
        let (_, u) = crate::policy::win::utility(&scores);
        let win_of = |tally: &Tally| -> f64 {
            tally
                .score
                .iter()
                .enumerate()
                .map(|(x, m)| {
                    let i = x as i64 - 120;
                    let value = if i < 0 {
                        0.0
                    } else {
                        u.get(i as usize).copied().unwrap_or(1.0)
                    };
                    m * value
                })
                .sum::<f64>()
                / tally.total()
        };
        let table = crate::policy::win::best_response(&card, &scores, SolveOptions::default().simd);
        let policy = VectorPolicy::win(&ev, &table, &scores, &card.state()).unwrap();
        assert_eq!(policy.play(), Play::Win { lo: 120, hi: 131 });
        for (faces, rolls_left) in [
            ([2, 3, 5, 5, 6], 1),
            ([6, 6, 6, 1, 2], 2),
            ([1, 1, 2, 2, 2], 0),
        ] {
            let position = Position {
                card: card.clone(),
                dice: Dice::from_faces(&faces).unwrap(),
                rolls_left,
            };
            let tally = distribution_from_position(&policy, &position, &go_on)
                .unwrap()
                .unwrap();
            let advice = crate::policy::win::advise_against(
                &ev,
                &table,
                &position,
                &[
                    crate::policy::win::Opponent::Finished(0),
                    crate::policy::win::Opponent::Finished(0),
                ],
                &scores,
            )
            .unwrap();
            let p = win_of(&tally);
            assert!(
                (p - advice.p_win).abs() < 1e-6,
                "{faces:?}: {p} vs {}",
                advice.p_win
            );
        }
        // The opening rolls of a turn, each with its chance, make the turn's start.
        let late = ScoreCard::parse(
            rules,
            "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,full-house=0,little-straight=30,big-straight=0",
            0,
        )
        .unwrap();
        let table = crate::policy::win::best_response(&late, &scores, SolveOptions::default().simd);
        let win = VectorPolicy::win(&ev, &table, &scores, &late.state()).unwrap();
        for policy in [VectorPolicy::target(&player), win] {
            let start = distribution_from_card(&policy, &late, &go_on)
                .unwrap()
                .unwrap();
            let mut mixed = vec![0.0; start.score.len()];
            let lattice = Lattice::get();
            for (r, dice) in roll_dice(DiceSpace::FIVE).iter().enumerate() {
                let position = Position {
                    card: late.clone(),
                    dice: *dice,
                    rolls_left: 2,
                };
                let t = distribution_from_position(&policy, &position, &go_on)
                    .unwrap()
                    .unwrap();
                for (x, m) in t.score.iter().enumerate() {
                    mixed[x] += lattice.roll_probability[r] * m;
                }
            }
            for (x, (a, b)) in mixed.iter().zip(&start.score).enumerate() {
                assert!(
                    (a - b).abs() < 1e-12,
                    "{:?} score {x}: {a} vs {b}",
                    policy.play()
                );
            }
        }
        // Stopped: no distribution.
        let target = VectorPolicy::target(&player);
        let stopped = distribution_from_card(&target, &empty, &|_, _| false).unwrap();
        assert!(stopped.is_none());
    }
}
