//! Advice for one position: every legal option, ranked, with its expected final score.
//!
//! A position is a score card, five dice and the number of rolls left. With rolls left the
//! options are the distinct keeps (keeping all five means stopping to score now); with no
//! rolls left they are the boxes the rules allow. The values come from one turn of the solver
//! run for this single state against the loaded table ([`TurnValues`]), so the advice is
//! exactly what the solver computed and costs a few microseconds.
//!
//! Ties: options within 1e-9 of each other are ordered by the convention of `shared/RULES.md`,
//! the keep with the fewest dice first (re-roll the most), and among boxes the one that comes
//! first on the card.

use std::fmt;

use serde::Serialize;

use crate::game::dice::{DICE, Dice, FIRST_ROLL, Keep, MULTISETS};
use crate::game::rules::{Category, Rules};
use crate::game::state::{Bonuses, ScoreCard, State, set_bits};
use crate::solve::expected::Layer;
use crate::tables::expected::StrategyTable;

/// Two values closer than this are a tie, broken by the convention of `shared/RULES.md`.
pub const TIE: f64 = 1e-9;

/// Errors in a position given by a user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AdviceError {
    /// A number of rolls left other than 0, 1 or 2: a turn has three rolls, so after the
    /// first roll 2 are left, after the last 0.
    #[error("rolls left must be 0, 1 or 2, not {0}")]
    RollsLeft(u32),
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
    /// Rolls left this turn: 0, 1 or 2.
    pub rolls_left: u8,
}

/// What an option does: keep some dice, or fill a box.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Action {
    /// Keep these dice and re-roll the others.
    Keep {
        /// The kept faces, ascending.
        keep: Vec<u8>,
        /// For a keep of all five dice: stop rolling and score this box.
        #[serde(skip_serializing_if = "Option::is_none")]
        stop_and_score: Option<String>,
    },
    /// Fill this box.
    Score {
        /// The box, named as on the command line.
        category: String,
        /// Points the box scores now.
        points: u32,
        /// Bonus earned with it: the upper bonus for reaching the threshold, the
        /// five-of-a-kind bonus for a further Yahtzee.
        bonus: u32,
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
            Action::Keep { keep, .. } => write!(f, "keep {}", faces(keep)),
            Action::Score {
                category,
                points,
                bonus,
            } if *bonus > 0 => write!(f, "score {category} for {points} (+{bonus} bonus)"),
            Action::Score {
                category, points, ..
            } => write!(f, "score {category} for {points}"),
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
    let rules = table.rules();
    let bonuses = state.bonuses_for(rules, index, points, five);
    let bonus = bonuses.points(rules);
    let next = state.after(rules, index, points);
    BoxChoice {
        index,
        category: rules.boxes()[index],
        points,
        bonus,
        bonuses,
        future: f64::from(points + bonus) + table.value(&next),
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
    best_box_of_roll(table, state, dice.index() - FIRST_ROLL, dice)
}

/// [`best_box_for`] for every roll, by roll offset (`index - FIRST_ROLL`).
pub fn best_boxes(table: &StrategyTable, state: &State) -> Vec<Option<BoxChoice>> {
    Dice::all()
        .enumerate()
        .map(|(r, dice)| best_box_of_roll(table, state, r, &dice))
        .collect()
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
/// layer's entries (see [`Layer`]) as future points (see [`crate::solve::expected::state_turn`]).
pub fn turn_layers(
    table: &StrategyTable,
    state: &State,
    last: Layer,
    visit: impl FnMut(Layer, &mut dyn Iterator<Item = f64>),
) {
    crate::solve::expected::state_turn(
        table.rules(),
        table.scores(),
        table.layout(),
        table.values(),
        state,
        last,
        visit,
    );
}

/// The values of every keep of one turn of one state: one solver turn for this state alone
/// ([`turn_layers`]), every layer.
pub struct TurnValues {
    /// Keep values with one roll left (index by multiset), future points of this turn and
    /// after; entries of the rolls (size five) are the values of stopping to score.
    pub one_roll_left: Vec<f64>,
    /// Keep values with two rolls left; the rolls' entries are their values with one roll left.
    pub two_rolls_left: Vec<f64>,
    /// Value of each roll with two rolls left (the value after the opening roll).
    pub opening_rolls: Vec<f64>,
}

impl TurnValues {
    /// Computes the turn of `state` from the solved successors in `table`: every layer.
    pub fn new(table: &StrategyTable, state: &State) -> TurnValues {
        let mut values = TurnValues {
            one_roll_left: Vec::with_capacity(MULTISETS),
            two_rolls_left: Vec::with_capacity(MULTISETS),
            opening_rolls: Vec::with_capacity(crate::game::dice::ROLLS),
        };
        turn_layers(
            table,
            state,
            Layer::Opening,
            |layer, layer_values| match layer {
                Layer::OneRollLeft => values.one_roll_left.extend(layer_values),
                Layer::TwoRollsLeft => values.two_rolls_left.extend(layer_values),
                Layer::Opening => values.opening_rolls.extend(layer_values.skip(FIRST_ROLL)),
            },
        );
        values
    }

    /// Value (points of this turn and after) of keeping `keep` with `rolls_left` (1 or 2)
    /// rolls left. Keeping all five dice means stopping to score the best box now.
    pub fn keep_value(&self, rolls_left: u8, keep: &Keep) -> f64 {
        self.value_of_index(rolls_left, keep.index())
    }

    /// [`TurnValues::keep_value`] of the keep of multiset index `i` (a roll's own index,
    /// `FIRST_ROLL` and up, keeps all five dice).
    fn value_of_index(&self, rolls_left: u8, i: usize) -> f64 {
        if i >= FIRST_ROLL || rolls_left <= 1 {
            self.one_roll_left[i]
        } else {
            self.two_rolls_left[i]
        }
    }

    /// The optimal keep for `dice` with `rolls_left` (1 or 2) rolls left, and its value. Ties
    /// within [`TIE`] go to the keep with the fewest dice, then to the lowest faces; a keep of
    /// all five dice means stopping to score.
    pub fn best_keep(&self, rolls_left: u8, dice: &Dice) -> (Keep, f64) {
        let (index, value) = self.best_keep_of_roll(rolls_left, dice.index() - FIRST_ROLL);
        (Keep::from_index(index), value)
    }

    /// [`TurnValues::best_keep`] of the roll at offset `roll` (`index - FIRST_ROLL`): the
    /// keep's multiset index (the roll's own index to stop) and its value.
    pub fn best_keep_of_roll(&self, rolls_left: u8, roll: usize) -> (usize, f64) {
        let mut best = Preferred::new();
        for &keep in Dice::keep_indices_by_preference(roll) {
            let keep = usize::from(keep);
            best.offer(keep, self.value_of_index(rolls_left, keep));
        }
        best.best().expect("every roll has a keep")
    }
}

/// The value of an option for the tie rule: a number (an expected score, a probability), or
/// a pair compared on its first number and, within [`TIE`], on its second (the target
/// objective: the chance of reaching the target, then the expected score).
pub trait TieValue: Copy {
    /// True when `self` is better than `best` by more than [`TIE`].
    fn beats(&self, best: &Self) -> bool;
}

impl TieValue for f64 {
    #[inline]
    fn beats(&self, best: &f64) -> bool {
        *self > best + TIE
    }
}

impl TieValue for (f64, f64) {
    #[inline]
    fn beats(&self, best: &(f64, f64)) -> bool {
        self.0 > best.0 + TIE || (self.0 >= best.0 - TIE && self.1 > best.1 + TIE)
    }
}

/// The tie rule of the whole project, for options listed in the order of preference of
/// `shared/RULES.md` (keeps: fewest dice first, then the lowest faces; boxes: card order):
/// scanning in that order, a later option replaces the best so far only when it is better by
/// more than [`TIE`]. Returns the position of the best option of `values`, leaving out the
/// positions for which `skip` is true; `None` when none is left.
pub fn best_by_preference<V: TieValue>(
    values: impl IntoIterator<Item = V>,
    skip: impl Fn(usize) -> bool,
) -> Option<usize> {
    let mut best = Preferred::new();
    for (i, v) in values.into_iter().enumerate() {
        if !skip(i) {
            best.offer(i, v);
        }
    }
    best.best().map(|(i, _)| i)
}

/// The scan of the tie rule ([`best_by_preference`]): options are offered in the order of
/// preference, and a later one replaces the best so far only when better by more than
/// [`TIE`]. Every choice of the optimal policy goes through it.
#[derive(Clone, Copy, Debug)]
pub struct Preferred<T, V = f64> {
    best: Option<(T, V)>,
}

impl<T, V: TieValue> Preferred<T, V> {
    /// No option yet.
    pub fn new() -> Preferred<T, V> {
        Preferred { best: None }
    }

    /// Offers the next option in the order of preference.
    #[inline]
    pub fn offer(&mut self, option: T, value: V) {
        if self.best.as_ref().is_none_or(|(_, b)| value.beats(b)) {
            self.best = Some((option, value));
        }
    }

    /// The best option offered and its value.
    pub fn best(self) -> Option<(T, V)> {
        self.best
    }
}

impl<T, V: TieValue> Default for Preferred<T, V> {
    fn default() -> Preferred<T, V> {
        Preferred::new()
    }
}

/// The best option and the runner-up (the best of the others) of `values`, listed in the
/// order of preference, under [`best_by_preference`].
pub fn best_two<V: TieValue>(values: &[V]) -> (Option<usize>, Option<usize>) {
    let best = best_by_preference(values.iter().copied(), |_| false);
    let second = best.and_then(|b| best_by_preference(values.iter().copied(), |i| i == b));
    (best, second)
}

/// Every option ranked, best first: the best by [`best_by_preference`], then the best of the
/// rest, and so on. The first two are those of [`best_two`], so the advice, the exports'
/// runner-up, the bots and the statistics follow one tie rule.
pub fn rank_by_preference<V: TieValue>(values: &[V]) -> Vec<usize> {
    let mut taken = vec![false; values.len()];
    let mut order = Vec::with_capacity(values.len());
    while let Some(i) = best_by_preference(values.iter().copied(), |i| taken[i]) {
        taken[i] = true;
        order.push(i);
    }
    order
}

/// Advises on a position with the table of its rules.
pub fn advise(table: &StrategyTable, position: &Position) -> Result<Advice, AdviceError> {
    let rules = *table.rules();
    if position.card.rules() != rules {
        return Err(AdviceError::RulesMismatch {
            card: position.card.rules().label(),
            table: rules.label(),
        });
    }
    if position.rolls_left > 2 {
        return Err(AdviceError::RollsLeft(u32::from(position.rolls_left)));
    }
    let state = position.card.state();
    let banked = position.card.banked();
    let base = f64::from(banked);
    let dice = &position.dice;
    let choices = box_choices(table, &state, dice);
    let options: Vec<AdviceOption> = if position.rolls_left == 0 {
        choices
            .iter()
            .map(|c| AdviceOption {
                action: Action::Score {
                    category: c.category.name().to_string(),
                    points: c.points,
                    bonus: c.bonus,
                },
                expected_final: base + c.future,
                loss: 0.0,
            })
            .collect()
    } else {
        // Only the layer of this many rolls left: its keep values.
        let layer = Layer::with_rolls_left(position.rolls_left)
            .ok_or(AdviceError::RollsLeft(u32::from(position.rolls_left)))?;
        let mut keep_values = Vec::with_capacity(MULTISETS);
        turn_layers(table, &state, layer, |l, values| {
            if l == layer {
                keep_values.extend(values);
            }
        });
        let stop = best_box(&choices);
        dice.keeps_by_preference()
            .iter()
            .map(|&keep| {
                let all = keep.len() == DICE;
                let (stop_and_score, future) = match (all, stop) {
                    (true, Some(b)) => (Some(b.category.name().to_string()), b.future),
                    _ => (None, keep_values[keep.index()]),
                };
                AdviceOption {
                    action: Action::Keep {
                        keep: keep.faces(),
                        stop_and_score,
                    },
                    expected_final: base + future,
                    loss: 0.0,
                }
            })
            .collect()
    };
    // The options are listed in the order of preference (keeps: fewest dice, then lowest
    // faces; boxes: card order): rank them by the one tie rule.
    let values: Vec<f64> = options.iter().map(AdviceOption::expected_final).collect();
    let mut slots: Vec<Option<AdviceOption>> = options.into_iter().map(Some).collect();
    let mut options: Vec<AdviceOption> = rank_by_preference(&values)
        .into_iter()
        .filter_map(|i| slots[i].take())
        .collect();
    let best = options.first().map_or(0.0, AdviceOption::expected_final);
    for o in &mut options {
        o.loss = best - o.expected_final;
    }
    Ok(Advice {
        rules,
        banked,
        dice: dice.faces(),
        rolls_left: position.rolls_left,
        options,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn ranking_follows_the_one_tie_rule() {
        // In order of preference: a near tie (within 1e-9) keeps the preferred option first;
        // a real difference does not.
        let values = [1.0, 2.0 - 1e-12, 2.0, 0.5, 2.0 + 1e-6];
        assert_eq!(rank_by_preference(&values), vec![4, 1, 2, 0, 3]);
        assert_eq!(best_two(&values), (Some(4), Some(1)));
        assert_eq!(best_two(&[3.0]), (Some(0), None));
        assert_eq!(best_two::<f64>(&[]), (None, None));
        assert_eq!(best_by_preference([1.0, 1.0], |_| false), Some(0));
        assert_eq!(best_by_preference([1.0, 1.0], |i| i == 0), Some(1));
    }
}
