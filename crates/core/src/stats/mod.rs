//! The exact distribution of the final score under the optimal policy, by propagating
//! probabilities forward through the states (no sampling).
//!
//! The policy is the library's: [`TurnValues::best_keep`] for the keeps and [`best_boxes`]
//! (the same choice as `advice::best_box`) for the box, with the tie convention of
//! `shared/RULES.md` (among keeps within 1e-9 of the best,
//! the fewest dice, then the lowest faces; among boxes, the first on the card). Ties do not
//! move the mean but do move the spread: this convention reproduces Verhoeff's published
//! standard deviation of 59.6117 for `yahtzee-free-joker`.
//!
//! Two steps:
//!
//! 1. One turn of one state ([`turn_outcomes`]): the probability of each way the turn can end,
//!    as (box, points, bonus) events, by the forward pass of [`crate::solve::forward`]. The
//!    opening roll has the probabilities of five thrown dice; each roll moves its probability
//!    to the policy's keep, and each keep spreads it over the rolls it can become; after the
//!    last roll (or a stop) each roll's probability goes to the policy's box. The policy does
//!    not depend on the points banked so far, so this is done once per state.
//! 2. The game ([`exact_distribution`]): states are visited by depth (number of filled boxes),
//!    each holding a histogram of the points banked so far (bonuses included, up to ~1,600
//!    with Yahtzee bonuses) and one of the Yahtzee bonuses earned so far. Every event of a
//!    state moves its whole histogram, shifted by the event's points and scaled by its
//!    probability, into the successor state. At the last depth the histograms are the final
//!    score.
//!
//! Determinism: each depth runs in parallel with rayon, but every sum is taken in a fixed
//! order (a successor gathers its contributions by box, then by predecessor slot, then by
//! event), so the distribution is bit-identical at any thread count.
//!
//! Beside it: the figures of a distribution ([`distribution`]), the exact distributions of
//! the other policies ([`target`]), games with random dice ([`simulate`]) and matches
//! between policies ([`matches`]).

pub mod distribution;
pub mod events;
pub mod joint;
pub mod matches;
pub mod saved;
pub mod simulate;
mod spectral;
mod target;
pub mod visits;

use std::collections::HashMap;
use std::sync::LazyLock;

use rayon::prelude::*;

use crate::game::dice::{Dice, DiceSpace, MAX_ROLLS};
use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{Bonuses, Layout, ScoreCard, State, cards_by_depth, set_bits};
use crate::memory;
use crate::policy::expected::{AdviceError, BoxChoice, Position, card_best_boxes};
use crate::solve::expected::CARD_LANES;
use crate::solve::forward::{
    Kept, opening, outcome_chances, outcome_chances_from, outcome_chances_marked,
};
use crate::stats::distribution::{Part, Tally};
use crate::stats::events::{JointFigures, JointTally, Spec};
use crate::tables::expected::StrategyTable;
use crate::tables::set::{Need, TableKind};
use crate::text::{self, large_count, plural};

pub use spectral::Plan;
pub use target::{
    BATCH, Play, VectorPolicy, distribution_from_card, distribution_from_position,
    target_distribution, target_distribution_from, target_visit_probabilities,
};
pub use visits::Visits;

/// One way a turn can end: the box filled, its points, the bonus earned with it, and the
/// probability under the optimal policy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TurnEvent {
    /// Position of the box on the card.
    pub box_index: u8,
    /// Points scored in the box.
    pub points: u8,
    /// Points of the upper bonus and the Yahtzee bonus earned with it.
    pub bonus: u16,
    /// Which bonuses are earned with it.
    pub bonuses: Bonuses,
    /// Probability of this event from the start of the turn.
    pub probability: f64,
}

impl TurnEvent {
    /// Points banked by the event: the box and its bonus.
    pub fn banked(&self) -> u32 {
        u32::from(self.points) + u32::from(self.bonus)
    }

    /// True when the event earns a Yahtzee bonus.
    pub fn yahtzee_bonus(&self) -> bool {
        self.bonuses.yahtzee
    }

    /// True when the event earns the upper bonus.
    pub fn upper_bonus(&self) -> bool {
        self.bonuses.upper
    }
}

/// Where an exact distribution starts: the start of a turn of a card (before its first roll),
/// or a position in a turn (its dice showing, with its rolls left).
#[derive(Clone, Debug)]
pub enum Start {
    /// The start of a turn of this card.
    Card(ScoreCard),
    /// This position: the card, the dice showing and the rolls left.
    Position(Position),
}

impl Start {
    /// The card of the start.
    pub fn card(&self) -> &ScoreCard {
        match self {
            Start::Card(c) => c,
            Start::Position(p) => &p.card,
        }
    }
}

/// Mass put into a forward pass: a state reached with `banked` points, `bonuses` Yahtzee
/// bonuses earned since the start, its five-of-a-kind box holding its points (`fifty`) or
/// not, with chance `mass`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Seed {
    pub(crate) state: State,
    pub(crate) fifty: bool,
    pub(crate) banked: u32,
    pub(crate) bonuses: usize,
    pub(crate) mass: f64,
}

impl Seed {
    /// The depth (boxes filled) of `seeds`, all of one depth, where a forward pass from them
    /// starts: the full card when there are none.
    pub(crate) fn depth_of(rules: &Rules, seeds: &[Seed]) -> usize {
        seeds
            .first()
            .map_or(rules.box_count(), |s| s.state.turns_played() as usize)
    }

    /// The start of a turn of `card`, with chance 1.
    pub(crate) fn of_card(card: &ScoreCard) -> Seed {
        let rules = card.rules();
        let fifty = rules
            .five_of_a_kind_box()
            .is_some_and(|b| card.points(b) == Some(rules.five_of_a_kind_points()));
        Seed {
            state: card.state(),
            fifty,
            banked: card.banked(),
            bonuses: 0,
            mass: 1.0,
        }
    }

    /// The seed after the turn of this one ends in box `index` with `points`, `bonus` points of
    /// bonuses (`yahtzee_bonus`: a Yahtzee bonus among them), with chance `probability`.
    pub(crate) fn after(
        &self,
        rules: &Rules,
        index: usize,
        points: u32,
        bonus: u32,
        yahtzee_bonus: bool,
        probability: f64,
    ) -> Seed {
        Seed {
            state: self.state.after(rules, index, points),
            fifty: self.fifty || fills_fifty(rules, index, points),
            banked: self.banked + points + bonus,
            bonuses: self.bonuses + usize::from(yahtzee_bonus),
            mass: self.mass * probability,
        }
    }
}

/// The rolls of a game of `space`'s dice (252 of five, 462 of six), by roll offset.
fn roll_dice(space: DiceSpace) -> &'static [Dice] {
    static FIVE: LazyLock<Vec<Dice>> = LazyLock::new(|| DiceSpace::FIVE.all_rolls().collect());
    static SIX: LazyLock<Vec<Dice>> = LazyLock::new(|| DiceSpace::SIX.all_rolls().collect());
    if space == DiceSpace::SIX { &SIX } else { &FIVE }
}

/// Every way the turn of `state` can end under the optimal policy, with its probability:
/// sorted by box, then points, then bonus, with equal events merged. The probabilities sum
/// to 1 (to rounding) and the events' expected value is the state's value in `table`.
pub fn turn_outcomes(table: &StrategyTable, state: &State) -> Vec<TurnEvent> {
    card_outcomes(table, std::slice::from_ref(state))
        .pop()
        .expect("the outcomes of one state")
}

/// [`turn_outcomes`] of each of `states`, all of one card (the same boxes filled), computed
/// [`CARD_LANES`] states at a time: the keeps of all of them by one run of the kernel and one
/// scan of the tie rule ([`StrategyTable::card_keeps`]), and their masses by one forward pass
/// of as many lanes, each lane by the operations of a pass of its own (the same bits).
///
/// States whose turns are the same (see [`same_turns`]) are computed once.
pub fn card_outcomes(table: &StrategyTable, states: &[State]) -> Vec<Vec<TurnEvent>> {
    card_turns(table, states, &[])
        .into_iter()
        .map(|t| t.events)
        .collect()
}

/// The ways a turn ends, and for each way and each event of a roll (`marks`: the roll
/// offsets showing each, [`Spec::marks`]) the chance of that way with no roll of the turn
/// showing the event.
#[derive(Clone, Debug, Default)]
pub(crate) struct Turn {
    pub(crate) events: Vec<TurnEvent>,
    /// `unseen[i * marks + e]`: the chance of `events[i]` with no roll showing event `e`.
    pub(crate) unseen: Vec<f64>,
}

impl Turn {
    /// The chances of `events[i]` with each event of a roll unseen.
    fn unseen_of(&self, i: usize) -> &[f64] {
        let marks = self.unseen.len() / self.events.len().max(1);
        &self.unseen[i * marks..(i + 1) * marks]
    }

    /// The turn without its ways of ending that `only` leaves out (the box of `only` filled
    /// with other points): their mass leaves the pass.
    fn keep_only(&mut self, only: Only) {
        let marks = self.unseen.len() / self.events.len().max(1);
        let keep: Vec<bool> = self.events.iter().map(|e| only.keeps(e)).collect();
        let mut i = 0;
        self.events.retain(|_| {
            i += 1;
            keep[i - 1]
        });
        let mut j = 0;
        self.unseen.retain(|_| {
            j += 1;
            keep[(j - 1) / marks.max(1)]
        });
    }
}

/// The games a forward pass follows when it follows only some: those whose box `index` ends
/// with `points` ([`joint`]). A turn that fills the box with other points ends the game's
/// mass there, so that the pass's final scores are those of the games of that box's points
/// alone, jointly with them. The other boxes are counted from the turn the box is filled
/// on: the mass of a state before it still holds games dropped later, that after it does
/// not, so the pass's boxes hold `P(other box = p, box = points, other box filled after)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Only {
    pub(crate) index: usize,
    pub(crate) points: u32,
}

impl Only {
    /// True when the way a turn ends, `e`, is one of the games followed.
    fn keeps(self, e: &TurnEvent) -> bool {
        usize::from(e.box_index) != self.index || u32::from(e.points) == self.points
    }
}

/// [`card_outcomes`] with the events of a roll of `marks` ([`Turn`]).
fn card_turns(table: &StrategyTable, states: &[State], marks: &[Vec<u16>]) -> Vec<Turn> {
    let (unique, turn_of) = same_turns(table, states);
    if unique.len() == states.len() {
        return distinct_card_outcomes(table, states, None, marks);
    }
    let outcomes = distinct_card_outcomes(table, &unique, None, marks);
    turn_of.iter().map(|&u| outcomes[u].clone()).collect()
}

/// The states of `states` (all of one card) whose turns differ, in order of first
/// appearance, and for each state the place of its turn among them. Two states of one card
/// play the same turn, event for event and bit for bit, when their five-of-a-kind flags are
/// equal and every box they can fill with every points it can score leads to a state of the
/// same value (the same bits) with the same bonuses: the kernel, the tie rules and the
/// forward pass read nothing else of a state. Upper totals from which the bonus can no longer
/// be reached, or is already earned, are one turn.
fn same_turns(table: &StrategyTable, states: &[State]) -> (Vec<State>, Vec<usize>) {
    if states.len() < 2 {
        return (states.to_vec(), (0..states.len()).collect());
    }
    let rules = table.rules();
    let scores = table.scores();
    let open = rules.open_by_order(states[0].filled);
    let key = |state: &State| -> Vec<u64> {
        let mut key = vec![u64::from(state.yahtzee_50)];
        for index in set_bits(u64::from(open)) {
            for &points in &scores.distinct[index] {
                let points = u32::from(points);
                let bonuses = state.bonuses_for(rules, index, points, false);
                key.push(table.value(&state.after(rules, index, points)).to_bits());
                key.push(u64::from(bonuses.upper));
            }
        }
        key
    };
    let mut seen: HashMap<Vec<u64>, usize> = HashMap::with_capacity(states.len());
    let mut unique = Vec::with_capacity(states.len());
    let turn_of = states
        .iter()
        .map(|state| {
            *seen.entry(key(state)).or_insert_with(|| {
                unique.push(*state);
                unique.len() - 1
            })
        })
        .collect();
    (unique, turn_of)
}

/// Every way the rest of the turn of `position` can end under the optimal policy, with its
/// probability, as [`turn_outcomes`] gives them from the opening roll.
fn position_outcomes(table: &StrategyTable, position: &Position, marks: &[Vec<u16>]) -> Turn {
    let roll = position.dice.index() - table.rules().dice().first_roll();
    let state = position.card.state();
    distinct_card_outcomes(table, &[state], Some((roll, position.rolls_left)), marks)
        .pop()
        .expect("the outcomes of one state")
}

/// [`card_outcomes`] of states whose turns all differ, from the opening roll, or from the
/// roll of offset `from.0` with `from.1` rolls left; with the events of a roll of `marks`.
fn distinct_card_outcomes(
    table: &StrategyTable,
    states: &[State],
    from: Option<(usize, u8)>,
    marks: &[Vec<u16>],
) -> Vec<Turn> {
    let keeps = table.card_keeps(states);
    let mut outcomes = Vec::with_capacity(states.len());
    for (chunk, keeps) in states.chunks(CARD_LANES).zip(keeps.chunks(CARD_LANES)) {
        // The way each final roll ends the turn of each state.
        let boxes = card_best_boxes(table, chunk);
        let event = |c: &BoxChoice| TurnEvent {
            box_index: c.index as u8,
            points: c.points as u8,
            bonus: c.bonus as u16,
            bonuses: c.bonuses,
            probability: 0.0,
        };
        // The choices some roll of some state makes, and every way of any of them, sorted by
        // box, then points, then bonus (equal ways from several choices merged).
        let mut used = vec![false; boxes.choices().len()];
        for r in 0..table.rules().dice().rolls() {
            for l in 0..chunk.len() {
                if let Some(i) = boxes.index_of_roll(r, l) {
                    used[usize::from(i)] = true;
                }
            }
        }
        let mut keys: Vec<u64> = boxes
            .choices()
            .iter()
            .zip(&used)
            .filter(|(_, u)| **u)
            .map(|(c, _)| packed_key(&event(c)))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let mut events: Vec<Option<TurnEvent>> = vec![None; keys.len()];
        let event_of_choice: Vec<u16> = boxes
            .choices()
            .iter()
            .zip(&used)
            .map(|(c, &u)| {
                if !u {
                    return u16::MAX;
                }
                let e = event(c);
                let at = keys
                    .binary_search(&packed_key(&e))
                    .expect("every choice made has its key");
                events[at].get_or_insert(e);
                at as u16
            })
            .collect();
        let event_of = |r: usize, l: usize| {
            boxes
                .index_of_roll(r, l)
                .map(|i| event_of_choice[usize::from(i)])
        };
        let space = table.rules().dice();
        let keep = |rolls_left, r, l: usize| {
            Kept::of_index(space, usize::from(keeps[l].of_roll(rolls_left, r)))
        };
        let chances = match from {
            None => outcome_chances::<CARD_LANES>(
                space,
                table.rules().rolls(),
                chunk.len(),
                keys.len(),
                keep,
                event_of,
            ),
            Some((roll, rolls_left)) => {
                let mut p = [[0.0; CARD_LANES]; MAX_ROLLS];
                p[roll] = [1.0; CARD_LANES];
                outcome_chances_from::<CARD_LANES>(
                    space,
                    p,
                    rolls_left,
                    chunk.len(),
                    keys.len(),
                    keep,
                    event_of,
                )
            }
        };
        // The events of a roll: one lane per state and event, the same keeps and outcomes,
        // the rolls showing the event set to 0 each time dice land.
        let r = marks.len();
        let mut unseen = vec![vec![0.0; keys.len() * r]; chunk.len()];
        let pairs: Vec<(usize, usize)> = (0..chunk.len())
            .flat_map(|l| (0..r).map(move |e| (l, e)))
            .collect();
        for run in pairs.chunks(CARD_LANES) {
            let (start, rolls_left) = match from {
                None => (opening::<CARD_LANES>(space), table.rules().rolls() - 1),
                Some((roll, rolls_left)) => {
                    let mut p = [[0.0; CARD_LANES]; MAX_ROLLS];
                    p[roll] = [1.0; CARD_LANES];
                    (p, rolls_left)
                }
            };
            let chances = outcome_chances_marked::<CARD_LANES>(
                space,
                start,
                rolls_left,
                run.len(),
                keys.len(),
                |rolls_left, roll, k| keep(rolls_left, roll, run[k].0),
                |roll, k| event_of(roll, run[k].0),
                |p| {
                    for (k, &(_, e)) in run.iter().enumerate() {
                        for &roll in &marks[e] {
                            p[usize::from(roll)][k] = 0.0;
                        }
                    }
                },
            );
            for (k, &(l, e)) in run.iter().enumerate() {
                for (o, c) in chances.iter().enumerate() {
                    unseen[l][o * r + e] = c[k];
                }
            }
        }
        for l in 0..chunk.len() {
            // An event no roll of the state reaches is no way its turn ends.
            let kept: Vec<usize> = (0..keys.len()).filter(|&o| chances[o][l] != 0.0).collect();
            outcomes.push(Turn {
                events: kept
                    .iter()
                    .map(|&o| TurnEvent {
                        probability: chances[o][l],
                        ..events[o].expect("every key is an event")
                    })
                    .collect(),
                unseen: kept
                    .iter()
                    .flat_map(|&o| unseen[l][o * r..(o + 1) * r].iter().copied())
                    .collect(),
            });
        }
    }
    outcomes
}

/// What tells events apart, as one number ordered by box, then points, then bonus.
fn packed_key(e: &TurnEvent) -> u64 {
    (u64::from(e.box_index) << 32) | (u64::from(e.points) << 16) | u64::from(e.bonus)
}

/// The mass of one state: points banked so far and Yahtzee bonuses earned so far.
#[derive(Clone, Debug)]
struct Histogram {
    /// Points of `points[0]`.
    lo: u32,
    /// `points[i]`: probability of reaching the state with `lo + i` points banked.
    points: Vec<f64>,
    /// `bonuses[k]`: probability of reaching the state with `k` Yahtzee bonuses.
    bonuses: Vec<f64>,
    /// What the pass of the joint figures carries besides ([`Spec::width`]): empty in the
    /// pass of the distribution alone.
    extra: Vec<f64>,
}

impl Histogram {
    /// Adds `mass` at `banked` points with `bonuses` Yahtzee bonuses.
    fn add(&mut self, banked: u32, bonuses: usize, mass: f64) {
        if self.points.is_empty() {
            self.lo = banked;
        }
        if banked < self.lo {
            let grow = (self.lo - banked) as usize;
            self.points.splice(0..0, std::iter::repeat_n(0.0, grow));
            self.lo = banked;
        }
        let at = (banked - self.lo) as usize;
        if self.points.len() <= at {
            self.points.resize(at + 1, 0.0);
        }
        self.points[at] += mass;
        if self.bonuses.len() <= bonuses {
            self.bonuses.resize(bonuses + 1, 0.0);
        }
        self.bonuses[bonuses] += mass;
    }

    /// Adds the masses of `other`, entry by entry.
    fn add_histogram(&mut self, other: &Histogram) {
        let lo = self.lo.min(other.lo);
        let hi = (self.lo as usize + self.points.len()).max(other.lo as usize + other.points.len());
        if lo < self.lo || hi > self.lo as usize + self.points.len() {
            let mut points = vec![0.0; hi - lo as usize];
            let at = (self.lo - lo) as usize;
            points[at..at + self.points.len()].copy_from_slice(&self.points);
            self.points = points;
            self.lo = lo;
        }
        let at = (other.lo - self.lo) as usize;
        for (d, &s) in self.points[at..].iter_mut().zip(&other.points) {
            *d += s;
        }
        if self.bonuses.len() < other.bonuses.len() {
            self.bonuses.resize(other.bonuses.len(), 0.0);
        }
        for (d, &s) in self.bonuses.iter_mut().zip(&other.bonuses) {
            *d += s;
        }
        if self.extra.len() < other.extra.len() {
            self.extra.resize(other.extra.len(), 0.0);
        }
        for (d, &s) in self.extra.iter_mut().zip(&other.extra) {
            *d += s;
        }
    }

    /// The chance of reaching the state.
    fn reach(&self) -> f64 {
        self.points.iter().sum()
    }
}

/// The histograms of one card (mask of filled boxes), by slot `flag * lanes + upper` (the
/// slots of [`slot_of`]), each twice: the games whose five-of-a-kind box does not hold its
/// points, then those whose box does ([`Block::at`]). The five-of-a-kind box's points are
/// kept apart so that the final scores can be split by them ([`Part`]); in rule sets with a
/// Yahtzee bonus the state's own flag says it already, and the second half of the games
/// without the flag stays empty.
type Block = Vec<Option<Histogram>>;

/// The place in a [`Block`] of `state`, with `fifty` telling whether its five-of-a-kind box
/// holds its points.
fn block_slot(layout: &Layout, state: &State, fifty: bool) -> usize {
    usize::from(fifty) * layout.flags * layout.lanes + slot_of(layout, state)
}

fn slot_of(layout: &Layout, state: &State) -> usize {
    usize::from(state.yahtzee_50 && layout.flags == 2) * layout.lanes
        + usize::from(state.upper).min(layout.lanes - 1)
}

fn state_of(layout: &Layout, filled: BoxMask, slot: usize) -> State {
    State {
        filled,
        upper: (slot % layout.lanes) as u8,
        yahtzee_50: slot >= layout.lanes,
    }
}

/// The [`Part`] of the games that end in `state` (a full card), `fifty` telling whether the
/// five-of-a-kind box holds its points.
fn final_part(rules: &Rules, state: &State, fifty: bool) -> Part {
    Part {
        upper_bonus: rules.has_upper_bonus() && u32::from(state.upper) >= rules.upper_threshold(),
        fifty,
    }
}

/// True when a box filled with `points` at `index` puts its points in the five-of-a-kind box
/// of `rules`.
pub(crate) fn fills_fifty(rules: &Rules, index: usize, points: u32) -> bool {
    rules.five_of_a_kind_box() == Some(index) && points == rules.five_of_a_kind_points()
}

/// What the forward pass of the expected-score policy finds: the final-score tally (with its
/// parts, [`Part`]) and the chance of reaching each turn-start state.
pub struct Forward {
    /// The final score, the boxes, the bonuses, and the final score of each part.
    pub tally: Tally,
    /// The chance that a game reaches each turn-start state.
    pub visits: Visits,
    /// The sums of the joint figures, when the pass carried them ([`exact_joint_from`]).
    pub joint: Option<JointTally>,
}

/// The exact distribution of the final score from an empty card under the optimal policy of
/// `table`, with the per-box figures. `progress(done, total)` is called after each depth.
/// Runs on the current rayon thread pool; the result is the same at any thread count.
pub fn exact_distribution(table: &StrategyTable, progress: &(dyn Fn(u64, u64) + Sync)) -> Tally {
    exact_forward(table, progress).tally
}

/// The exact distribution of the final score under the optimal policy of `table` from
/// `start`, with the per-box figures, the upper bonus and the Yahtzee bonuses of the final
/// card (the card's own boxes and bonuses included, for sure). From a position, the rest of its turn is played as
/// `advise` ranks first; from a card, its turn starts with the opening roll. Its mean is the
/// value `advise` gives the position (the card's points banked and its expected remaining
/// score). `progress(done, total)` is called after each depth. The result is the same at any
/// thread count.
pub fn exact_distribution_from(
    table: &StrategyTable,
    start: &Start,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Tally, AdviceError> {
    distribution_from(table, start, None, None, progress).map(|(tally, _)| tally)
}

/// Why the joint figures of a game are not computed.
#[derive(Debug, thiserror::Error)]
pub enum JointError {
    /// The start is no position of the table's rules.
    #[error(transparent)]
    Advice(#[from] AdviceError),
    /// A card of more than 15 boxes: its pass carries transforms, not the states' masses.
    #[error(
        "the exact events and covariances of {0} are not computed: its card has more than 15 boxes (they are computed for cards of at most 15)"
    )]
    TooLarge(String),
}

/// [`exact_distribution_from`] (from a new game when `start` is `None`) with the exact events
/// and joint figures of the games ([`events`]), in the same pass.
pub fn exact_joint_from(
    table: &StrategyTable,
    start: Option<&Start>,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(Tally, JointFigures), JointError> {
    let rules = table.rules();
    if !rules.set.solves_in_seconds() {
        return Err(JointError::TooLarge(rules.label()));
    }
    let spec = Spec::of(rules);
    let new_game = Start::Card(ScoreCard::new(*rules));
    let (tally, joint) = distribution_from(
        table,
        start.unwrap_or(&new_game),
        Some(&spec),
        None,
        progress,
    )?;
    let figures = joint.expect("the joint sums").figures(&tally);
    Ok((tally, figures))
}

/// [`exact_forward`] with the sums of the joint figures ([`Forward::joint`], read by
/// [`JointTally::figures`] with the pass's tally): the distribution, the visits and the events
/// and covariances of a new game in one pass.
pub fn exact_joint_forward(
    table: &StrategyTable,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Forward, JointError> {
    let rules = table.rules();
    if !rules.set.solves_in_seconds() {
        return Err(JointError::TooLarge(rules.label()));
    }
    let spec = Spec::of(rules);
    let card = ScoreCard::new(*rules);
    let carry = Carry {
        spec: &spec,
        seeds: vec![spec.start(&card)],
        tally: JointTally::new(&spec, &card),
    };
    Ok(histogram_forward(
        table,
        &[Seed::of_card(&card)],
        Some(carry),
        None,
        progress,
    ))
}

/// [`exact_distribution_from`], with the sums of the joint figures of `spec` when given, of
/// the games `only` follows when given (the pass's tally then holds their mass alone).
fn distribution_from(
    table: &StrategyTable,
    start: &Start,
    spec: Option<&Spec>,
    only: Option<Only>,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(Tally, Option<JointTally>), AdviceError> {
    let card = start.card();
    if card.rules() != *table.rules() {
        return Err(AdviceError::RulesMismatch {
            card: card.rules().label(),
            table: table.rules().label(),
        });
    }
    let seed = Seed::of_card(card);
    let rules = table.rules();
    let mut tally = Tally::new(rules);
    let joint = match start {
        Start::Card(_) => {
            let forward = match spec {
                None => forward_from(table, &[seed], only, progress),
                Some(spec) => {
                    let carry = Carry {
                        spec,
                        seeds: vec![spec.start(card)],
                        tally: JointTally::new(spec, card),
                    };
                    histogram_forward(table, &[seed], Some(carry), only, progress)
                }
            };
            tally.merge(&forward.tally);
            forward.joint
        }
        Start::Position(position) => {
            // The position is checked: its dice, its rolls left, a card with an open box.
            crate::policy::expected::advise(table, position)?;
            let mut turn = position_outcomes(table, position, spec.map_or(&[][..], Spec::marks));
            if let Some(only) = only {
                turn.keep_only(only);
            }
            let events = &turn.events;
            let seeds: Vec<Seed> = events
                .iter()
                .map(|e| {
                    let (index, points) = (usize::from(e.box_index), u32::from(e.points));
                    seed.after(
                        rules,
                        index,
                        points,
                        u32::from(e.bonus),
                        e.yahtzee_bonus(),
                        e.probability,
                    )
                })
                .collect();
            if only.is_none() {
                tally_turn(&mut tally, 1.0, events);
            }
            let forward = match spec {
                None => forward_from(table, &seeds, only, progress),
                Some(spec) => {
                    // The rest of the turn from a state reached for sure carrying the card's
                    // start.
                    let start = spec.start(card);
                    let mut sums = JointTally::new(spec, card);
                    sums.add_turn(&start, events);
                    let carried = (events.iter().enumerate())
                        .map(|(i, e)| {
                            let mut to = vec![0.0; spec.width()];
                            spec.carry_on(&mut to, &start, e, turn.unseen_of(i));
                            to
                        })
                        .collect();
                    let carry = Carry {
                        spec,
                        seeds: carried,
                        tally: sums,
                    };
                    histogram_forward(table, &seeds, Some(carry), only, progress)
                }
            };
            tally.merge(&forward.tally);
            forward.joint
        }
    };
    // The card's own boxes and bonuses, with every game (following some games, they were
    // filled before the box followed: not counted).
    if only.is_none() {
        for index in 0..rules.box_count() {
            if let Some(points) = card.points(index) {
                tally.add_box(index, points, 1.0);
            }
        }
        if card.has_upper_bonus() {
            tally.upper_bonus += 1.0;
        }
    }
    Ok((with_bonuses_before(tally, card.yahtzee_bonuses()), joint))
}

/// `tally`, whose Yahtzee bonuses count those earned from a card on, counting the `before`
/// the card had too.
fn with_bonuses_before(mut tally: Tally, before: u32) -> Tally {
    let before = before as usize;
    if before > 0 && !tally.yahtzee_bonuses.is_empty() {
        tally
            .yahtzee_bonuses
            .splice(0..0, std::iter::repeat_n(0.0, before));
    }
    tally
}

/// The chance that a game played by the optimal policy of `table` reaches each turn-start
/// state, by the forward pass of [`exact_distribution`] (the reach of each state is the
/// mass it gathers there). Runs on the current rayon thread pool; the result is the same at
/// any thread count.
pub fn visit_probabilities(table: &StrategyTable, progress: &(dyn Fn(u64, u64) + Sync)) -> Visits {
    if table.rules().set.solves_in_seconds() {
        histogram_forward(
            table,
            &[Seed::of_card(&ScoreCard::new(*table.rules()))],
            None,
            None,
            progress,
        )
        .visits
    } else {
        spectral::visits(table, progress)
    }
}

/// The forward pass of the optimal policy of `table` from an empty card: [`exact_distribution`]
/// and [`visit_probabilities`] together.
///
/// A card of at most 15 boxes carries a histogram of points banked per state
/// ([`histogram_forward`]); a larger card (Maxi Yatzy) carries their Fourier transforms, a few
/// frequencies a pass, within half the memory the system has available ([`spectral`]).
pub fn exact_forward(table: &StrategyTable, progress: &(dyn Fn(u64, u64) + Sync)) -> Forward {
    forward_from(
        table,
        &[Seed::of_card(&ScoreCard::new(*table.rules()))],
        None,
        progress,
    )
}

/// Processor seconds of a pass of transforms per state it carries ([`Plan::states`]),
/// roughly: Maxi Yatzy's 86.3 million (its 57.5 million states, those whose five-of-a-kind
/// box is filled twice: 0 or its points) took 9,251 s of CPU in 9 passes of up to 37
/// frequencies (results/maxi-yatzy-distribution-2026-12-03.md); a pass of fewer frequencies
/// takes less.
const SPECTRAL_SECONDS_PER_STATE: f64 = 12e-6;

/// What the exact distribution of `rules` takes beyond its expected-score table, worked out
/// before any work (a fraction of a second for a card of 20 boxes): nothing for a card of at
/// most 15 boxes (histograms, seconds: `None`), else the passes of transforms within the
/// memory the passes would have ([`spectral::plan`]).
pub fn exact_plan(rules: &Rules) -> Option<Plan> {
    if rules.set.solves_in_seconds() {
        return None;
    }
    let table = Need::of(rules, TableKind::ExpectedScore).load_memory;
    Some(spectral::plan(
        rules,
        spectral::default_budget(table, false),
    ))
}

impl Plan {
    /// Processor seconds of the passes, roughly.
    pub fn cpu_seconds(&self) -> f64 {
        (self.passes as u64 * self.states) as f64 * SPECTRAL_SECONDS_PER_STATE
    }

    /// What the passes take, in words, for a notice: `326 frequencies in 9 passes over every
    /// state: about 78 minutes on 2 cores and up to 17.8 GiB of memory beside its table`.
    pub fn words(&self) -> String {
        format!(
            "{} in {} over every state: {} and up to {} of memory beside its table",
            plural(self.frequencies as u64, "frequency", "frequencies"),
            plural(self.passes as u64, "pass", "passes"),
            text::rough_time(self.cpu_seconds()),
            text::memory(self.memory)
        )
    }
}

/// `Ok` unless the exact distribution of `rules` cannot be had in the memory available
/// ([`memory::available`], or `$YAHTZEE_MEMORY_GIB`): its expected-score table loaded and a
/// pass of one frequency over its largest depth ([`Plan::least_memory`]) would need more.
/// Else the one line that says why, with the figures. Asked before any table is loaded or
/// built (a fraction of a second for a card of 20 boxes).
pub fn check_exact(rules: &Rules) -> Result<(), String> {
    let Some(plan) = exact_plan(rules) else {
        return Ok(());
    };
    let table = Need::of(rules, TableKind::ExpectedScore).load_memory;
    memory::check(
        table + plan.least_memory,
        &format!(
            "the exact distribution of {} (its expected-score table, {}, and at least a frequency of the transform of each of the {} states of its largest depth, {}; {})",
            rules.label(),
            text::memory(table),
            large_count(plan.largest_depth),
            text::memory(plan.least_memory),
            plan.words()
        ),
    )
}

/// [`exact_forward`] from `seeds`, states of one depth each reached with its chance, of the
/// games `only` follows when given (cards of at most 15 boxes: [`joint`] refuses the others).
fn forward_from(
    table: &StrategyTable,
    seeds: &[Seed],
    only: Option<Only>,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Forward {
    let rules = table.rules();
    if rules.set.solves_in_seconds() {
        histogram_forward(table, seeds, None, only, progress)
    } else {
        assert!(only.is_none(), "the pass of transforms follows every game");
        let budget = spectral::default_budget(8 * table.values().len() as u64, true);
        spectral::forward(
            table,
            spectral::frequencies_within(rules, budget),
            seeds,
            progress,
        )
    }
}

/// What the pass of the joint figures carries besides the points: the events and rows
/// (`spec`), what each seed carries (`seeds`, in the order of the pass's seeds) and the sums
/// so far (`tally`).
struct Carry<'a> {
    spec: &'a Spec,
    seeds: Vec<Vec<f64>>,
    tally: JointTally,
}

/// [`forward_from`] with a histogram of the points banked for every state of two adjacent
/// depths; with `carry`, the joint figures too ([`events`]); with `only`, the games it
/// follows alone.
fn histogram_forward(
    table: &StrategyTable,
    seeds: &[Seed],
    carry: Option<Carry<'_>>,
    only: Option<Only>,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Forward {
    let (spec, seed_extra, mut joint) = match carry {
        Some(c) => (Some(c.spec), c.seeds, Some(c.tally)),
        None => (None, Vec::new(), None),
    };
    let marks = spec.map_or(&[][..], |s| s.marks());
    let rules = *table.rules();
    let layout = *table.layout();
    let boxes = rules.box_count();
    let slots = layout.flags * layout.lanes;
    let mut tally = Tally::new(&rules);
    let mut visits = Visits::new(&rules);
    let by_depth = cards_by_depth(&rules);
    let cards_at = |depth: usize| -> &[BoxMask] { &by_depth[depth] };
    let mut layer: Vec<Option<Block>> = vec![None; layout.masks];
    let first = Seed::depth_of(&rules, seeds);
    for (i, seed) in seeds.iter().enumerate() {
        assert_eq!(
            seed.state.turns_played() as usize,
            first,
            "seeds of one depth"
        );
        let block = layer[seed.state.filled as usize].get_or_insert_with(|| vec![None; 2 * slots]);
        let h =
            block[block_slot(&layout, &seed.state, seed.fifty)].get_or_insert_with(|| Histogram {
                lo: seed.banked,
                points: Vec::new(),
                bonuses: Vec::new(),
                extra: Vec::new(),
            });
        h.add(seed.banked, seed.bonuses, seed.mass);
        if let Some(extra) = seed_extra.get(i) {
            h.extra.resize(extra.len(), 0.0);
            for (d, &x) in h.extra.iter_mut().zip(extra) {
                *d += x;
            }
        }
    }
    let steps = (boxes - first) as u64;
    progress(0, steps);
    for depth in first..boxes {
        // Step 1: the turn of every state reached, in parallel (a state's turn does not
        // depend on its five-of-a-kind box, so both halves of a block share it).
        let cards = cards_at(depth);
        let turns: Vec<(BoxMask, Vec<Option<Turn>>)> = cards
            .par_iter()
            .filter_map(|&m| {
                let block = layer[m as usize].as_ref()?;
                let reached = |slot: usize| block[slot].is_some() || block[slots + slot].is_some();
                let mut turns = card_turns_reached(table, m, reached, marks);
                if let Some(only) = only.filter(|o| m & (1 << o.index) == 0) {
                    turns.iter_mut().flatten().for_each(|t| t.keep_only(only));
                }
                Some((m, turns))
            })
            .collect();
        let mut events_of: Vec<Option<Vec<Option<Turn>>>> = vec![None; layout.masks];
        for (m, e) in turns {
            events_of[m as usize] = Some(e);
        }
        // The per-box figures and the visits, in a fixed order: card, slot, event.
        for &m in cards {
            let Some(block) = &layer[m as usize] else {
                continue;
            };
            visit(&mut visits, &layout, m, block);
            let events = events_of[m as usize]
                .as_ref()
                .expect("the turns of a card reached");
            // Following some games, the boxes filled before the box followed are not counted:
            // their mass held games the pass drops later ([`Only`]).
            let counted = only.is_none_or(|o| m & (1 << o.index) != 0);
            for (k, h) in block.iter().enumerate() {
                let (Some(h), Some(ev)) = (h, &events[k % slots]) else {
                    continue;
                };
                let reach = h.reach();
                if counted {
                    tally_turn(&mut tally, reach, &ev.events);
                }
                if let Some(joint) = &mut joint {
                    joint.add_turn(&h.extra, &ev.events);
                }
            }
        }
        // Step 2: every card of the next depth gathers its predecessors' histograms.
        let next_cards = cards_at(depth + 1);
        let blocks: Vec<(BoxMask, Block)> = next_cards
            .par_iter()
            .filter_map(|&next| {
                gather(table, &layer, &events_of, next, slots, spec).map(|b| (next, b))
            })
            .collect();
        let mut next_layer: Vec<Option<Block>> = vec![None; layout.masks];
        for (m, b) in blocks {
            next_layer[m as usize] = Some(b);
        }
        layer = next_layer;
        progress((depth + 1 - first) as u64, steps);
    }
    for (m, block) in layer.iter().enumerate() {
        let Some(block) = block else {
            continue;
        };
        visit(&mut visits, &layout, m as BoxMask, block);
        for (k, h) in block.iter().enumerate() {
            let Some(h) = h else {
                continue;
            };
            let state = state_of(&layout, m as BoxMask, k % slots);
            tally_final(&mut tally, &rules, &state, k >= slots, h);
            if let Some(joint) = &mut joint {
                joint.add_last(&h.extra);
            }
        }
    }
    Forward {
        tally,
        visits,
        joint,
    }
}

/// Adds to `tally` the games that end in `state` (a full card) with the histogram `h`, `fifty`
/// telling whether the five-of-a-kind box holds its points: their final scores, their part
/// ([`Part`]) and their Yahtzee bonuses.
fn tally_final(tally: &mut Tally, rules: &Rules, state: &State, fifty: bool, h: &Histogram) {
    let part = final_part(rules, state, fifty);
    for (i, &p) in h.points.iter().enumerate() {
        if p > 0.0 {
            tally.add_score(h.lo + i as u32, p);
            tally.add_part(part, h.lo + i as u32, p);
        }
    }
    for (k, &p) in h.bonuses.iter().enumerate() {
        tally.add_yahtzee_bonuses(k, p);
    }
}

/// The turn events of the states of card `m` (by slot, [`slot_of`]) for which `reached(slot)`,
/// computed together ([`card_outcomes`]); `None` for the others.
fn card_events(
    table: &StrategyTable,
    m: BoxMask,
    reached: impl Fn(usize) -> bool,
) -> Vec<Option<Vec<TurnEvent>>> {
    card_turns_reached(table, m, reached, &[])
        .into_iter()
        .map(|t| t.map(|t| t.events))
        .collect()
}

/// [`card_events`] with the events of a roll of `marks` ([`Turn`]).
fn card_turns_reached(
    table: &StrategyTable,
    m: BoxMask,
    reached: impl Fn(usize) -> bool,
    marks: &[Vec<u16>],
) -> Vec<Option<Turn>> {
    let layout = table.layout();
    let slots = layout.flags * layout.lanes;
    let states: Vec<State> = (0..slots)
        .filter(|&slot| reached(slot))
        .map(|slot| state_of(layout, m, slot))
        .collect();
    let mut outcomes = card_turns(table, &states, marks).into_iter();
    (0..slots)
        .map(|slot| {
            reached(slot).then(|| outcomes.next().expect("outcomes for each state reached"))
        })
        .collect()
}

/// Adds to the per-box figures of `tally` the turn `events` of a state reached with chance
/// `reach`.
fn tally_turn<'e>(tally: &mut Tally, reach: f64, events: impl IntoIterator<Item = &'e TurnEvent>) {
    for e in events {
        let mass = reach * e.probability;
        tally.add_box(usize::from(e.box_index), u32::from(e.points), mass);
        if e.upper_bonus() {
            tally.upper_bonus += mass;
        }
    }
}

/// Adds the reach of every state of the block of card `m` to `visits`: its mass, both halves
/// of the block together.
fn visit(visits: &mut Visits, layout: &Layout, m: BoxMask, block: &Block) {
    let slots = layout.flags * layout.lanes;
    for (k, h) in block.iter().enumerate() {
        if let Some(h) = h {
            visits.add(&state_of(layout, m, k % slots), h.points.iter().sum());
        }
    }
}

/// One contribution to a successor's histogram.
struct Contribution<'a> {
    slot: usize,
    from: &'a Histogram,
    shift: u32,
    probability: f64,
    yahtzee_bonus: bool,
    /// The way the turn ends, and its chances with each event of a roll unseen.
    event: &'a TurnEvent,
    unseen: &'a [f64],
}

/// The block of card `next`: the histograms of its predecessors (one box fewer) moved by
/// their events of that box, summed in a fixed order. `None` when no state of it is reached.
fn gather(
    table: &StrategyTable,
    layer: &[Option<Block>],
    events_of: &[Option<Vec<Option<Turn>>>],
    next: BoxMask,
    slots: usize,
    spec: Option<&Spec>,
) -> Option<Block> {
    let rules = table.rules();
    let layout = table.layout();
    let mut contributions: Vec<Contribution<'_>> = Vec::new();
    for b in 0..rules.box_count() {
        if next & (1 << b) == 0 {
            continue;
        }
        let m = next & !(1 << b);
        let (Some(block), Some(events)) = (&layer[m as usize], &events_of[m as usize]) else {
            continue;
        };
        for (k, h) in block.iter().enumerate() {
            let (Some(h), Some(ev)) = (h, &events[k % slots]) else {
                continue;
            };
            let state = state_of(layout, m, k % slots);
            let fifty = k >= slots;
            // Events are sorted by box: those of box `b` are one run.
            let from = ev.events.partition_point(|e| usize::from(e.box_index) < b);
            for (i, e) in ev.events[from..]
                .iter()
                .enumerate()
                .take_while(|(_, e)| usize::from(e.box_index) == b)
            {
                let points = u32::from(e.points);
                let after = state.after(rules, b, points);
                contributions.push(Contribution {
                    slot: block_slot(layout, &after, fifty || fills_fifty(rules, b, points)),
                    from: h,
                    shift: e.banked(),
                    probability: e.probability,
                    yahtzee_bonus: e.yahtzee_bonus(),
                    event: e,
                    unseen: ev.unseen_of(from + i),
                });
            }
        }
    }
    summed(&contributions, 2 * slots, spec)
}

/// The block of `len` histograms the `contributions` make, each the sum of those of its
/// slot in their order, with what the pass of the joint figures carries (`spec`); `None`
/// when there are none.
fn summed(contributions: &[Contribution<'_>], len: usize, spec: Option<&Spec>) -> Option<Block> {
    if contributions.is_empty() {
        return None;
    }
    // First pass: the range of points and bonus counts of each successor.
    let mut range: Vec<Option<(u32, u32, usize)>> = vec![None; len];
    for c in contributions {
        let lo = c.from.lo + c.shift;
        let hi = lo + c.from.points.len() as u32;
        let nb = c.from.bonuses.len() + usize::from(c.yahtzee_bonus);
        range[c.slot] = Some(match range[c.slot] {
            None => (lo, hi, nb),
            Some((a, z, n)) => (a.min(lo), z.max(hi), n.max(nb)),
        });
    }
    let mut block: Block = range
        .iter()
        .map(|r| {
            r.map(|(lo, hi, nb)| Histogram {
                lo,
                points: vec![0.0; (hi - lo) as usize],
                bonuses: vec![0.0; nb],
                extra: vec![0.0; spec.map_or(0, Spec::width)],
            })
        })
        .collect();
    // Second pass: the sums, in contribution order.
    for c in contributions {
        let h = block[c.slot]
            .as_mut()
            .expect("every contributed slot has a histogram");
        let offset = (c.from.lo + c.shift - h.lo) as usize;
        let p = c.probability;
        for (d, &s) in h.points[offset..offset + c.from.points.len()]
            .iter_mut()
            .zip(&c.from.points)
        {
            *d += p * s;
        }
        let shift = usize::from(c.yahtzee_bonus);
        for (d, &s) in h.bonuses[shift..shift + c.from.bonuses.len()]
            .iter_mut()
            .zip(&c.from.bonuses)
        {
            *d += p * s;
        }
        if let Some(spec) = spec {
            spec.carry_on(&mut h.extra, &c.from.extra, c.event, c.unseen);
        }
    }
    Some(block)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::{RuleSet, Rules};
    use crate::solve::expected::SolveOptions;

    fn yacht() -> StrategyTable {
        StrategyTable::solve(
            &Rules::new(RuleSet::YACHT),
            SolveOptions::default(),
            &|_, _| {},
        )
        .0
    }

    #[test]
    fn turn_outcomes_sum_to_one_and_to_the_state_value() {
        let table = yacht();
        let rules = *table.rules();
        for state in [
            State::START,
            State {
                filled: 0b1010_0101_0011,
                upper: 0,
                yahtzee_50: false,
            },
        ] {
            let events = turn_outcomes(&table, &state);
            let total: f64 = events.iter().map(|e| e.probability).sum();
            assert!((total - 1.0).abs() < 1e-12, "{total}");
            let value: f64 = events
                .iter()
                .map(|e| {
                    let next = state.after(&rules, usize::from(e.box_index), e.points.into());
                    e.probability * (f64::from(e.banked()) + table.value(&next))
                })
                .sum();
            assert!((value - table.value(&state)).abs() < 1e-9);
            assert!(
                events
                    .iter()
                    .all(|e| state.filled & (1 << e.box_index) == 0)
            );
        }
    }

    #[test]
    fn yacht_distribution_has_the_solver_mean() {
        let table = yacht();
        let tally = exact_distribution(&table, &|_, _| {});
        assert!((tally.total() - 1.0).abs() < 1e-12);
        let mean: f64 = tally.pmf().iter().map(|&(s, p)| f64::from(s) * p).sum();
        assert!((mean - table.expected_score()).abs() < 1e-9);
        // Every box holds something in every game.
        for b in &tally.boxes {
            assert!((b.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }
}

#[cfg(test)]
mod from_tests {
    use std::sync::Arc;

    use super::*;
    use crate::game::rules::{RuleSet, Rules};
    use crate::policy::expected::advise;
    use crate::policy::win::FinalScores;
    use crate::solve::expected::SolveOptions;
    use crate::solve::vector::VectorObjective;
    use crate::tables::vector::VectorTable;

    /// The distribution from a card or a position, forward, against the distribution table
    /// (computed backward, stored as `f32`): every probability to 1e-6; the mean equals the
    /// value `advise` gives (the card's points and its expected remaining score) to 1e-9, and
    /// the chances sum to 1. The cards and positions hold points, a filled Yacht box, dice
    /// with 0, 1 and 2 rolls left, and the last box.
    #[test]
    fn distribution_from_a_position_is_the_distribution_tables() {
        let rules = Rules::new(RuleSet::YACHT);
        let (ev, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let table = VectorTable::<f32>::solve(
            &VectorObjective::distribution(Arc::new(ev.clone())),
            SolveOptions::default().simd,
            &|_, _| {},
        );
        let card = |text: &str| ScoreCard::parse(rules, text, 0).unwrap();
        let position = |text: &str, dice: &str, rolls_left: u8| Position {
            card: card(text),
            dice: dice.parse().unwrap(),
            rolls_left,
        };
        let starts = [
            Start::Card(card("")),
            Start::Card(card("yacht=50,ones=2,fours=12")),
            Start::Card(card(
                "ones=3,twos=4,threes=9,fours=8,fives=15,sixes=18,choice=22",
            )),
            Start::Position(position("", "1,3,3,5,6", 2)),
            Start::Position(position("yacht=50,ones=2", "6,6,6,6,6", 1)),
            Start::Position(position("sixes=24,choice=20", "2,3,4,5,5", 0)),
            Start::Position(position(
                "ones=3,twos=4,threes=9,fours=8,fives=15,sixes=18,full-house=0,four-of-a-kind=20,little-straight=30,big-straight=0,choice=22",
                "1,1,1,1,2",
                2,
            )),
        ];
        for start in &starts {
            let tally = exact_distribution_from(&ev, start, &|_, _| {}).unwrap();
            let pmf = tally.pmf();
            let total: f64 = pmf.iter().map(|&(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-12, "{start:?}: {total}");
            let mean: f64 = pmf.iter().map(|&(s, p)| f64::from(s) * p).sum();
            let (value, backward) = match start {
                Start::Card(c) => (
                    f64::from(c.banked()) + ev.value(&c.state()),
                    FinalScores::of_card(&table, c).unwrap(),
                ),
                Start::Position(p) => (
                    advise(&ev, p).unwrap().options[0].expected_final(),
                    FinalScores::of_position(&ev, &table, p).unwrap(),
                ),
            };
            assert!(
                (mean - value).abs() < 1e-9,
                "{start:?}: {mean} against {value}"
            );
            let at = |s: u32| pmf.iter().find(|&&(t, _)| t == s).map_or(0.0, |&(_, p)| p);
            let highest = backward.lo + backward.pmf.len() as u32;
            for s in 0..highest.max(pmf.last().unwrap().0 + 1) {
                let b = s
                    .checked_sub(backward.lo)
                    .and_then(|i| backward.pmf.get(i as usize))
                    .copied()
                    .unwrap_or(0.0);
                assert!(
                    (at(s) - b).abs() < 1e-6,
                    "{start:?}: P({s}) {} against {b}",
                    at(s)
                );
            }
        }
    }

    /// A position of another game's card, or of impossible rolls left, is refused as `advise`
    /// refuses it.
    #[test]
    fn distribution_from_a_position_checks_it() {
        let (ev, _) = StrategyTable::solve(
            &Rules::new(RuleSet::YACHT),
            SolveOptions::default(),
            &|_, _| {},
        );
        let other = Start::Card(ScoreCard::new(Rules::new(RuleSet::YATZY)));
        assert!(matches!(
            exact_distribution_from(&ev, &other, &|_, _| {}),
            Err(AdviceError::RulesMismatch { .. })
        ));
        let position = Start::Position(Position {
            card: ScoreCard::new(Rules::new(RuleSet::YACHT)),
            dice: "1,2,3,4,5".parse().unwrap(),
            rolls_left: 3,
        });
        assert!(matches!(
            exact_distribution_from(&ev, &position, &|_, _| {}),
            Err(AdviceError::RollsLeft { .. })
        ));
    }
}
