//! Advice for one position: every legal option, ranked, with its expected final score.
//!
//! A position is a score card, five dice and the number of rolls left. With rolls left the
//! options are the distinct keeps (keeping all five means stopping to score now); with no
//! rolls left they are the boxes the rules allow. The values come from one turn of the solver
//! run for this single state against the loaded table ([`turn_layers`]; every layer:
//! [`TurnValues`](crate::solve::expected::TurnValues)), so the advice is exactly what the
//! solver computed and costs a few microseconds.
//!
//! Ties: options within 1e-9 of each other are ordered by the convention of `shared/RULES.md`
//! ([`crate::game::ties`]), the keep with the fewest dice first (re-roll the most), and among
//! boxes the one that comes first on the card.

use std::fmt;

use serde::Serialize;

use crate::game::dice::{Dice, Keep};
use crate::game::rules::{BoxMask, Category, MAX_BOXES, Rules};
use crate::game::state::{Bonuses, ScoreCard, State, set_bits};
use crate::game::ties::{Preferred, PreferredLanes, best_by_preference, rank_by_preference};
use crate::solve::expected::{CARD_LANES, ExpectedValues, Layer};
use crate::tables::expected::StrategyTable;
use crate::text::plural;

/// Errors in a position given by a user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AdviceError {
    /// A number of rolls left the game's turn does not have: a turn of three rolls has 2
    /// left after the first roll, 0 after the last (`allowed`: the game's, in words).
    #[error("rolls left must be {allowed}, not {given}")]
    RollsLeft {
        /// The number given.
        given: u32,
        /// What the game allows, in words ([`Rules::rolls_left_allowed`]).
        allowed: String,
    },
    /// Dice of another number than the game's (five dice for a game of six, or six for a
    /// game of five): give as many as the game has.
    #[error(transparent)]
    Dice(#[from] crate::game::dice::DiceError),
    /// Under saved rolls, more rolls saved before a turn than the turns played can have
    /// saved (the rules' re-rolls each turn): give at most `most`.
    #[error("{given} rolls saved: after {turns} turns at most {most} rolls can be saved")]
    Saved {
        /// The rolls saved given.
        given: u32,
        /// The turns played (boxes filled).
        turns: usize,
        /// The most rolls they can have saved.
        most: usize,
    },
    /// A card of other rules than the table's: load the table of the card's rules.
    #[error("the card is for {card} but the table is for {table}: load the table of {card}")]
    RulesMismatch {
        /// The card's rules.
        card: String,
        /// The table's rules.
        table: String,
    },
}

/// A position to advise on.
#[derive(Clone, Debug)]
pub struct Position {
    /// The score card before this turn's scoring.
    pub card: ScoreCard,
    /// The dice showing.
    pub dice: Dice,
    /// Rolls left this turn: 0, 1 or 2 (0 to the game's rolls a turn less one).
    pub rolls_left: u8,
}

/// What an option does: keep some dice, or fill a box.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Action {
    /// Keep these dice and re-roll the others.
    Keep {
        /// The kept dice (their faces, ascending, in JSON).
        keep: Keep,
        /// For a keep of all five dice: stop rolling and score this box.
        #[serde(skip_serializing_if = "Option::is_none")]
        stop_and_score: Option<&'static str>,
    },
    /// Fill this box.
    Score {
        /// The box, named as on the command line.
        category: &'static str,
        /// Points the box scores now.
        points: u32,
        /// Bonus earned with it: the upper bonus for reaching the threshold, the
        /// five-of-a-kind bonus for a further Yahtzee.
        bonus: u32,
        /// Under saved rolls, the re-rolls left unused that scoring now saves for later
        /// turns (absent in other games).
        #[serde(skip_serializing_if = "Option::is_none")]
        saves: Option<u8>,
    },
}

impl fmt::Display for Action {
    /// The option in words: `keep 3 3`, `reroll all`, `stop and score threes`,
    /// `score full-house for 25`, `score fours for 20 (+100 bonus)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let faces = |d: &[u8]| d.iter().map(u8::to_string).collect::<Vec<_>>().join(" ");
        match self {
            Action::Keep {
                stop_and_score: Some(b),
                ..
            } => write!(f, "stop and score {b}"),
            Action::Keep { keep, .. } if keep.is_empty() => f.write_str("reroll all"),
            Action::Keep { keep, .. } => write!(f, "keep {}", faces(&keep.faces())),
            Action::Score {
                category,
                points,
                bonus,
                saves,
            } => {
                write!(f, "score {category} for {points}")?;
                if *bonus > 0 {
                    write!(f, " (+{bonus} bonus)")?;
                }
                match saves {
                    Some(n @ 1..) => write!(f, ", keep {}", plural(u64::from(*n), "roll", "rolls")),
                    _ => Ok(()),
                }
            }
        }
    }
}

/// One option of a position: what it does and what it is worth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AdviceOption {
    /// What the option does (`kind` and its fields in JSON).
    #[serde(flatten)]
    pub action: Action,
    /// Expected final score of the game after this choice, under optimal play.
    pub expected_final: f64,
    /// How much worse than the best option.
    pub loss: f64,
}

impl AdviceOption {
    /// Expected final score after this option.
    pub fn expected_final(&self) -> f64 {
        self.expected_final
    }

    /// Loss against the best option.
    pub fn loss(&self) -> f64 {
        self.loss
    }
}

impl fmt::Display for AdviceOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.action.fmt(f)
    }
}

/// The answer for one position.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Advice {
    /// The rules (serialized as `rules` and `upper_first`).
    #[serde(flatten)]
    pub rules: Rules,
    /// Points already on the card, bonuses included.
    pub banked: u32,
    /// The dice, ascending.
    pub dice: Vec<u8>,
    /// Rolls left.
    pub rolls_left: u8,
    /// Every legal option, best first.
    pub options: Vec<AdviceOption>,
}

/// A legal box for some dice and what filling it is worth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxChoice {
    /// Position of the box on the card.
    pub index: usize,
    /// The box.
    pub category: Category,
    /// Points scored in the box.
    pub points: u32,
    /// Points of the upper bonus and the Yahtzee bonus earned with it.
    pub bonus: u32,
    /// Which bonuses are earned with it.
    pub bonuses: Bonuses,
    /// Points of this turn plus the expected future score after it.
    pub future: f64,
}

/// The legal boxes for `dice` in `state`, in card order, each with its value.
pub fn box_choices(table: &StrategyTable, state: &State, dice: &Dice) -> Vec<BoxChoice> {
    choices(table, state, dice).collect()
}

/// The legal boxes for `dice` in `state`, in card order, each with its value, without
/// collecting them.
fn choices<'a>(
    table: &'a StrategyTable,
    state: &'a State,
    dice: &'a Dice,
) -> impl Iterator<Item = BoxChoice> + 'a {
    let rules = table.rules();
    let legal = rules.legal_boxes(state.filled, dice);
    let five = dice.five_of_a_kind().is_some();
    (0..rules.box_count())
        .filter(move |i| legal & (1 << i) != 0)
        .map(move |index| {
            let points = rules.score(index, dice, state.filled);
            valued(table, state, index, points, five)
        })
}

/// Box `index` filled with `points` from `state` (`five`: the dice are five of a kind), with
/// its bonus and the value of the game after it.
fn valued(
    table: &StrategyTable,
    state: &State,
    index: usize,
    points: u32,
    five: bool,
) -> BoxChoice {
    valued_after(table, state, index, points, five, &mut None)
}

/// [`valued`], with the value of the last state reached kept in `last` and read again when
/// the next call reaches the same state (a lower box reaches one state whatever its points).
fn valued_after(
    table: &StrategyTable,
    state: &State,
    index: usize,
    points: u32,
    five: bool,
    last: &mut Option<(State, f64)>,
) -> BoxChoice {
    let rules = table.rules();
    let bonuses = state.bonuses_for(rules, index, points, five);
    let bonus = bonuses.points(rules);
    let next = state.after(rules, index, points);
    let value = match *last {
        Some((s, v)) if s == next => v,
        _ => {
            let v = table.value(&next);
            *last = Some((next, v));
            v
        }
    };
    BoxChoice {
        index,
        category: rules.boxes()[index],
        points,
        bonus,
        bonuses,
        future: f64::from(points + bonus) + value,
    }
}

/// The best box among `choices` (in card order), ties to the box first on the card
/// ([`best_by_preference`]).
pub fn best_box(choices: &[BoxChoice]) -> Option<&BoxChoice> {
    best_by_preference(choices.iter().map(|c| c.future), |_| false).map(|i| &choices[i])
}

/// The best box for `dice` in `state`: `best_box(&box_choices(..))` without the allocation
/// and with the points of the table's score table (the same choices in the same order, the
/// same tie rule).
pub fn best_box_for(table: &StrategyTable, state: &State, dice: &Dice) -> Option<BoxChoice> {
    let first_roll = table.rules().dice().first_roll();
    best_box_of_roll(table, state, dice.index() - first_roll, dice)
}

/// [`best_box_for`] for every roll, by roll offset (`index - first_roll` of the game's
/// [`DiceSpace`](crate::game::dice::DiceSpace)).
pub fn best_boxes(table: &StrategyTable, state: &State) -> Vec<Option<BoxChoice>> {
    let card = card_best_boxes(table, std::slice::from_ref(state));
    (0..table.rules().dice().rolls())
        .map(|r| card.of_roll(r, 0).copied())
        .collect()
}

/// The best box of every roll for up to [`CARD_LANES`] states of one card (the same boxes
/// filled), lane by lane: what [`best_box_for`] chooses for each state and roll, bit for bit.
#[derive(Clone, Debug)]
pub struct CardBoxes {
    /// The choices made, each listed once.
    choices: Vec<BoxChoice>,
    /// `chosen[r][lane]`: the position in `choices` of the best box of roll `r` (by roll
    /// offset) in the state of `lane`; `NONE` when no box is legal.
    chosen: Vec<[u16; CARD_LANES]>,
}

impl CardBoxes {
    /// No choice.
    const NONE: u16 = u16::MAX;

    /// Every choice made for some roll of some lane, each once.
    pub fn choices(&self) -> &[BoxChoice] {
        &self.choices
    }

    /// The position in [`CardBoxes::choices`] of the best box of roll `r` in the state of
    /// `lane`, if any box is legal.
    pub fn index_of_roll(&self, r: usize, lane: usize) -> Option<u16> {
        let i = self.chosen[r][lane];
        (i != Self::NONE).then_some(i)
    }

    /// The best box of roll `r` in the state of `lane`.
    pub fn of_roll(&self, r: usize, lane: usize) -> Option<&BoxChoice> {
        self.index_of_roll(r, lane)
            .map(|i| &self.choices[usize::from(i)])
    }
}

/// Where each open box of a card has its distinct points, one after the other: the slots
/// of [`card_best_boxes`] and [`StateBoxes`]. Outside the Joker and five of a kind, a box
/// filled with the same points leads to the same state whatever the dice: a state values each
/// box once per distinct points it can score (about 100 values instead of some 1,600 for an
/// empty Yahtzee card).
#[derive(Clone, Copy)]
struct Slots {
    /// The first slot of each open box (by card position): `first[index] + rank`, the rank of
    /// the points among the box's distinct points.
    first: [u16; MAX_BOXES],
    /// The number of slots.
    len: usize,
}

impl Slots {
    /// The slots of the card `filled`.
    fn of(table: &StrategyTable, filled: BoxMask) -> Slots {
        let rules = table.rules();
        let mut first = [0; MAX_BOXES];
        let mut len = 0;
        for index in set_bits(u64::from(rules.open_by_order(filled))) {
            first[index] = len as u16;
            len += table.scores().distinct[index].len();
        }
        Slots { first, len }
    }

    /// Each slot's choice from `state` (filled with its points without five of a kind), in
    /// slot order: `fill(slot, choice)`.
    fn value(&self, table: &StrategyTable, state: &State, mut fill: impl FnMut(usize, BoxChoice)) {
        let scores = table.scores();
        for index in set_bits(u64::from(table.rules().open_by_order(state.filled))) {
            let mut last = None;
            for (rank, &points) in scores.distinct[index].iter().enumerate() {
                let c = valued_after(table, state, index, u32::from(points), false, &mut last);
                fill(usize::from(self.first[index]) + rank, c);
            }
        }
    }

    /// The slot of box `index` with the points of the roll at offset `r`.
    #[inline(always)]
    fn of_roll(&self, table: &StrategyTable, index: usize, r: usize) -> usize {
        usize::from(self.first[index]) + usize::from(table.scores().rank[r][index])
    }
}

/// The boxes of one state valued once ([`Slots`]), from which the best box of each roll met is
/// chosen by a scan of the open boxes' values: what [`best_box_for`] chooses, bit for bit,
/// cheaper when the state's rolls are many but too few to choose every roll's box at once
/// ([`card_best_boxes`]).
pub struct StateBoxes {
    state: State,
    slots: Slots,
    /// Each slot's choice.
    choices: Vec<BoxChoice>,
}

impl StateBoxes {
    /// No state's boxes yet: memory for [`StateBoxes::value`].
    pub fn new() -> StateBoxes {
        StateBoxes {
            state: State::START,
            slots: Slots {
                first: [0; MAX_BOXES],
                len: 0,
            },
            choices: Vec::new(),
        }
    }

    /// The boxes of `state`, valued.
    pub fn of(table: &StrategyTable, state: &State) -> StateBoxes {
        let mut boxes = StateBoxes::new();
        boxes.value(table, state);
        boxes
    }

    /// The boxes of `state`, valued in place of the state's before (its memory reused).
    pub fn value(&mut self, table: &StrategyTable, state: &State) {
        self.state = *state;
        self.slots = Slots::of(table, state.filled);
        self.choices.clear();
        self.slots.value(table, state, |_, c| self.choices.push(c));
    }

    /// [`best_box_for`] of the roll `dice` (roll offset `r`).
    pub fn best_of_roll(&self, table: &StrategyTable, r: usize, dice: &Dice) -> Option<BoxChoice> {
        if table.scores().five_of_a_kind[r] {
            // The Joker's and the five-of-a-kind bonus's own points and boxes.
            return best_box_of_roll(table, &self.state, r, dice);
        }
        let mut best = Preferred::new();
        for index in set_bits(u64::from(table.rules().open_by_order(self.state.filled))) {
            let slot = self.slots.of_roll(table, index, r);
            best.offer(slot, self.choices[slot].future);
        }
        best.best().map(|(slot, _)| self.choices[slot])
    }
}

impl Default for StateBoxes {
    fn default() -> StateBoxes {
        StateBoxes::new()
    }
}

/// [`CardBoxes`] of `states` (at most [`CARD_LANES`], all of one card): each state values
/// each box once per distinct points ([`Slots`]), and the 252 rolls choose among them for
/// all the states at once by the tie rule's lane scan ([`PreferredLanes`]).
pub fn card_best_boxes(table: &StrategyTable, states: &[State]) -> CardBoxes {
    assert!(!states.is_empty() && states.len() <= CARD_LANES);
    let filled = states[0].filled;
    assert!(
        states.iter().all(|s| s.filled == filled),
        "states of one card"
    );
    let rules = table.rules();
    let scores = table.scores();
    let open = rules.open_by_order(filled);
    let slots = Slots::of(table, filled);
    let mut choices: Vec<BoxChoice> = Vec::with_capacity(slots.len * states.len());
    let mut future = vec![[f64::NEG_INFINITY; CARD_LANES]; slots.len];
    let mut choice = vec![[CardBoxes::NONE; CARD_LANES]; slots.len];
    for (lane, state) in states.iter().enumerate() {
        slots.value(table, state, |slot, c| {
            future[slot][lane] = c.future;
            choice[slot][lane] = choices.len() as u16;
            choices.push(c);
        });
    }
    let space = rules.dice();
    let mut chosen = vec![[CardBoxes::NONE; CARD_LANES]; space.rolls()];
    for (r, (dice, best)) in space.all_rolls().zip(chosen.iter_mut()).enumerate() {
        if scores.five_of_a_kind[r] {
            // The Joker's and the five-of-a-kind bonus's own points and boxes: state by state.
            for (lane, state) in states.iter().enumerate() {
                if let Some(c) = best_box_of_roll(table, state, r, &dice) {
                    best[lane] = choices.len() as u16;
                    choices.push(c);
                }
            }
            continue;
        }
        let mut scan = PreferredLanes::<CARD_LANES>::new();
        for index in set_bits(u64::from(open)) {
            scan.offer(index as u16, &future[slots.of_roll(table, index, r)]);
        }
        for (lane, &index) in scan.best().iter().enumerate().take(states.len()) {
            if index != CardBoxes::NONE {
                best[lane] = choice[slots.of_roll(table, usize::from(index), r)][lane];
            }
        }
    }
    CardBoxes { choices, chosen }
}

/// The best box for `dice` (roll offset `r`) in `state`. Outside the Joker the points come
/// from the precomputed score table (what `Rules::score` gives without a Joker).
fn best_box_of_roll(
    table: &StrategyTable,
    state: &State,
    r: usize,
    dice: &Dice,
) -> Option<BoxChoice> {
    let rules = table.rules();
    let scores = table.scores();
    let five = scores.five_of_a_kind[r];
    let joker = five && rules.is_joker(state.filled, dice);
    let legal = if joker {
        rules.legal_boxes(state.filled, dice)
    } else {
        rules.open_by_order(state.filled)
    };
    let mut best = Preferred::new();
    for index in set_bits(u64::from(legal)) {
        let points = if joker {
            rules.score(index, dice, state.filled)
        } else {
            u32::from(scores.points[index][r])
        };
        let choice = valued(table, state, index, points, five);
        best.offer(choice, choice.future);
    }
    best.best().map(|(c, _)| c)
}

/// One turn of `state` against the solved values of `table`, up to `last`: `visit` sees each
/// layer's entries (see [`Layer`]) as future points (the solver's own kernel, as
/// [`ExpectedValues::turn`] runs it).
pub fn turn_layers(
    table: &StrategyTable,
    state: &State,
    last: Layer,
    mut visit: impl FnMut(Layer, &[f64]),
) {
    table.turn(state, last, &mut visit);
}

/// `Ok` when a turn of `rules` can have `rolls_left` rolls left (0 to its rolls a turn less
/// one): the one check of every front end's rolls left.
pub fn check_rolls_left(rules: &Rules, rolls_left: u32) -> Result<(), AdviceError> {
    if rolls_left > u32::from(rules.most_rolls_left()) {
        return Err(AdviceError::RollsLeft {
            given: rolls_left,
            allowed: rules.rolls_left_allowed(),
        });
    }
    Ok(())
}

/// Checks that `position` is of `rules` (the table's) and its dice the game's.
pub(crate) fn check_position(rules: &Rules, position: &Position) -> Result<(), AdviceError> {
    if position.card.rules() != *rules {
        return Err(AdviceError::RulesMismatch {
            card: position.card.rules().label(),
            table: rules.label(),
        });
    }
    rules.dice().check(position.dice)?;
    Ok(())
}

/// Advises on a position with the table of its rules.
pub fn advise(table: &StrategyTable, position: &Position) -> Result<Advice, AdviceError> {
    let rules = *table.rules();
    check_position(&rules, position)?;
    check_rolls_left(&rules, u32::from(position.rolls_left))?;
    let state = position.card.state();
    let banked = position.card.banked();
    let base = f64::from(banked);
    let dice = &position.dice;
    let choices = box_choices(table, &state, dice);
    // Every option with its value, in the order of preference (keeps: fewest dice, then
    // lowest faces; boxes: card order), then ranked by the one tie rule.
    let candidates: Vec<(Action, f64)> = if position.rolls_left == 0 {
        choices
            .iter()
            .map(|c| {
                let action = Action::Score {
                    category: c.category.name(),
                    points: c.points,
                    bonus: c.bonus,
                    saves: None,
                };
                (action, base + c.future)
            })
            .collect()
    } else {
        // Only the layer of this many rolls left, and only the entries of this roll's
        // keeps (a stop on the roll is the best box's value).
        let layer = Layer::with_rolls_left(position.rolls_left)
            .expect("rolls left checked against the game's");
        let keeps = dice.keeps_by_preference();
        let stop = best_box(&choices);
        let all = rules.dice().dice();
        let mut candidates = Vec::with_capacity(keeps.len());
        turn_layers(table, &state, layer, |l, layer_values| {
            if l == layer {
                candidates.extend(keeps.iter().map(|&keep| {
                    let stop = stop.filter(|_| keep.len() == all);
                    let value = match stop {
                        Some(b) => base + b.future,
                        None => base + layer_values[keep.index()],
                    };
                    let stop_and_score = stop.map(|b| b.category.name());
                    (
                        Action::Keep {
                            keep,
                            stop_and_score,
                        },
                        value,
                    )
                }));
            }
        });
        candidates
    };
    Ok(ranked(rules, banked, position, candidates))
}

/// The advice of `position` whose options are `candidates` (each with its expected final
/// score), in the order of preference: ranked by the one tie rule
/// ([`rank_by_preference`]), each with its loss against the best.
pub(crate) fn ranked(
    rules: Rules,
    banked: u32,
    position: &Position,
    candidates: Vec<(Action, f64)>,
) -> Advice {
    let values: Vec<f64> = candidates.iter().map(|&(_, v)| v).collect();
    let order = rank_by_preference(&values);
    let best = order.first().map_or(0.0, |&i| values[i]);
    let options = order
        .into_iter()
        .map(|i| AdviceOption {
            action: candidates[i].0.clone(),
            expected_final: values[i],
            loss: best - values[i],
        })
        .collect();
    Advice {
        rules,
        banked,
        dice: position.dice.faces(),
        rolls_left: position.rolls_left,
        options,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::dice::{Keep, MULTISETS};
    use crate::game::ties::TIE;
    use crate::solve::expected::TurnValues;

    /// `best_keep` as first written: every keep of `Dice::keeps`, ties by (size, faces).
    fn best_keep_reference(turn: &TurnValues, rolls_left: u8, dice: &Dice) -> (Keep, f64) {
        let mut best: Option<(Keep, f64)> = None;
        for keep in dice.keeps() {
            let v = turn.keep_value(rolls_left, &keep);
            best = match best {
                None => Some((keep, v)),
                Some((b, bv)) => {
                    let better = v > bv + TIE
                        || (v >= bv - TIE && (keep.len(), keep.faces()) < (b.len(), b.faces()));
                    if better {
                        Some((keep, v))
                    } else {
                        Some((b, bv))
                    }
                }
            };
        }
        best.unwrap()
    }

    #[test]
    fn best_boxes_match_the_ranked_choices_joker_included() {
        use crate::game::rules::{RuleSet, Rules};
        for set in [
            RuleSet::YAHTZEE,
            RuleSet::YAHTZEE_FREE_JOKER,
            RuleSet::YACHT,
        ] {
            let rules = Rules::new(set);
            let (table, _) = StrategyTable::solve(
                &rules,
                crate::solve::expected::SolveOptions::default(),
                &|_, _| {},
            );
            let flag = rules.has_yahtzee_bonus();
            // An empty card, a Yahtzee box holding 50 with some upper boxes filled (Joker),
            // and one with only upper boxes open.
            for (filled, upper, yahtzee_50) in [
                (0, 0, false),
                (0b0_1000_0000_0101, 4, flag),
                (0b0_1111_1100_0000, 0, false),
            ] {
                let state = State {
                    filled,
                    upper,
                    yahtzee_50,
                };
                let all = best_boxes(&table, &state);
                for (r, dice) in Dice::all().enumerate() {
                    let reference = best_box(&box_choices(&table, &state, &dice)).copied();
                    assert_eq!(all[r], reference, "{set:?} {dice}");
                    assert_eq!(best_box_for(&table, &state, &dice), reference);
                }
            }
        }
    }

    /// The best boxes of a card's states chosen together are each state's best box alone,
    /// roll by roll: every reachable upper total and flag of a spread of cards.
    #[test]
    fn card_best_boxes_and_state_boxes_are_the_best_box_of_each_state() {
        use crate::game::rules::{RuleSet, Rules};
        for set in [RuleSet::YAHTZEE, RuleSet::YATZY] {
            let rules = Rules::new(set);
            let (table, _) = StrategyTable::solve(
                &rules,
                crate::solve::expected::SolveOptions::default(),
                &|_, _| {},
            );
            let full = rules.full_mask();
            for filled in (0..full).step_by(61).chain([0, full & !1]) {
                let states = crate::game::state::card_states(&rules, filled);
                for chunk in states.chunks(CARD_LANES) {
                    let card = card_best_boxes(&table, chunk);
                    for (lane, state) in chunk.iter().enumerate() {
                        let valued = StateBoxes::of(&table, state);
                        for (r, dice) in Dice::all().enumerate() {
                            let best = best_box_for(&table, state, &dice);
                            assert_eq!(
                                card.of_roll(r, lane).copied(),
                                best,
                                "{set:?} {state:?} {dice}"
                            );
                            assert_eq!(
                                valued.best_of_roll(&table, r, &dice),
                                best,
                                "{set:?} {state:?} {dice}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn multiset_index_orders_keeps_by_size_then_faces() {
        for i in 0..MULTISETS {
            for j in 0..MULTISETS {
                let (a, b) = (Keep::from_index(i), Keep::from_index(j));
                assert_eq!(
                    (a.len(), a.faces()) < (b.len(), b.faces()),
                    i < j,
                    "{a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn best_keep_matches_the_reference_on_every_roll() {
        use crate::game::rules::{RuleSet, Rules};
        let rules = Rules::new(RuleSet::YAHTZEE_PLAIN);
        let (table, _) = StrategyTable::solve(
            &rules,
            crate::solve::expected::SolveOptions::default(),
            &|_, _| {},
        );
        for (filled, upper) in [(0, 0), (0b1_0000_0110_0111, 20), (0b0_1111_0000_0000, 0)] {
            let state = State {
                filled,
                upper,
                yahtzee_50: false,
            };
            let turn = TurnValues::new(&table, &state);
            for dice in Dice::all() {
                for rolls_left in [1, 2] {
                    let (k, v) = turn.best_keep(rolls_left, &dice);
                    let (rk, rv) = best_keep_reference(&turn, rolls_left, &dice);
                    assert_eq!((k, v.to_bits()), (rk, rv.to_bits()), "{dice} {rolls_left}");
                }
            }
        }
    }
}
