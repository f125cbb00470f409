//! The decision of one roll: the best option under the library's policy and the runner-up
//! ([`decide`], [`Decision`]), and the [`DecisionRow`] that writes it. The card and the full
//! policy write the decisions of a state ([`state_rows`]); the opening sheet writes two
//! decisions of each opening roll. Under saved rolls the decision is the one of
//! [`SavedTurn`]'s options ([`saved_decide`]), and a box is written with the re-rolls left
//! it saves ([`saved_choice_text`]); the card writes the decisions of a turn with
//! [`saved_state_rows`].

use serde::Serialize;

use super::{Filter, Row, choice_text, dice_text, round, saves_text};
use crate::game::choice::Choice;
use crate::game::dice::{Dice, Keep};
use crate::game::rules::{BoxMask, Rules};
use crate::game::state::State;
use crate::game::ties::best_two;
use crate::policy::expected::{Action, box_choices};
use crate::policy::saved::SavedTurn;
use crate::solve::expected::TurnValues;
use crate::solve::forward::{Kept, roll_chances};
use crate::tables::expected::StrategyTable;

/// One decision of optimal play: a roll, in a state, with some rolls left.
///
/// Choices are written as text: a keep is its faces in ascending order without separators
/// (`33`, `1345`), the empty keep (re-roll all five) is `-`, and a box is its command-line
/// name (`full-house`). With rolls left, a box means "stop rolling and score it now".
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecisionRow {
    /// Filled boxes as a bit mask: bit `i` is set when box `i` of the card (in the order of
    /// `shared/RULES.md`) is filled.
    pub filled: BoxMask,
    /// Upper-section total, capped at 63 (0 in rule sets without an upper bonus).
    pub upper: u8,
    /// True when the Yahtzee box holds 50 (always false without a Yahtzee bonus).
    pub yahtzee_50: bool,
    /// The five dice, ascending, e.g. `13356`.
    pub dice: &'static str,
    /// Rolls left: 2 just after the first roll, 0 after the last.
    pub rolls_left: u8,
    /// The best action under the tie convention.
    pub best: &'static str,
    /// Expected final score after the best action: the points already banked on the card
    /// plus the expected points still to come. Without a card (the full policy) the banked
    /// points count as 0, so it is the expected points from this decision on.
    pub expected: f64,
    /// The second-best option (distinct keep or legal box); absent when there is only one.
    pub runner_up: Option<&'static str>,
    /// How many points the best option is worth more than the runner-up (at least 0).
    pub gap: Option<f64>,
    /// In the full policy (`--all-states --policy`): the chance that a game played by the
    /// optimal policy from an empty card starts a turn in this decision's state (the
    /// `visit_probability` of [`super::StateRow`]); absent in the other scopes.
    pub visit_probability: Option<f64>,
    /// In the full policy: the chance that a game played by the optimal policy from an
    /// empty card faces this decision: its state's `visit_probability` times the chance that
    /// the turn shows these dice with these rolls left under optimal play within the turn
    /// (a stop holds its dice through the rolls left: see [`roll_chances`]). The decisions
    /// of a state with one number of rolls left add up to its `visit_probability`; absent in
    /// the other scopes.
    pub faced_probability: Option<f64>,
}

impl Row for DecisionRow {
    const COLUMNS: &'static [&'static str] = &[
        "filled",
        "upper",
        "yahtzee_50",
        "dice",
        "rolls_left",
        "best",
        "expected",
        "runner_up",
        "gap",
        "visit_probability",
        "faced_probability",
    ];
    const TITLES: &'static [&'static str] = &[
        "filled",
        "upper",
        "Yahtzee 50",
        "dice",
        "rolls left",
        "best",
        "expected",
        "runner-up",
        "gap",
        "visit probability",
        "faced probability",
    ];
    const ROUNDED: &'static [&'static str] = &["expected", "gap"];
}

/// The best option of one decision and the runner-up, with their values (points of this
/// turn and after, not counting points already banked).
///
/// Options are held as exports write them. With rolls left, stopping (the keep of all five
/// dice) is resolved to the box the policy then fills: it is the [`Choice::Score`] of that
/// box, the shorthand for "stop rolling and fill it" of the [`Choice`] convention, so a
/// [`Choice::Keep`] here always re-rolls at least one die.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// The optimal option.
    pub best: Choice,
    /// Its value.
    pub value: f64,
    /// The second-best option and its value, when there is more than one option.
    pub runner_up: Option<(Choice, f64)>,
}

impl Decision {
    /// Best value minus runner-up value.
    pub fn gap(&self) -> Option<f64> {
        self.runner_up.map(|(_, v)| (self.value - v).max(0.0))
    }
}

/// Best and second-best legal box for `dice`, under the one tie rule
/// ([`best_two`]); `None` on a full card, which has no box left.
fn box_decision(table: &StrategyTable, state: &State, dice: &Dice) -> Option<Decision> {
    let choices = box_choices(table, state, dice);
    let values: Vec<f64> = choices.iter().map(|c| c.future).collect();
    let (best, second) = best_two(&values);
    let best = choices[best?];
    Some(Decision {
        best: Choice::Score(best.index),
        value: best.future,
        runner_up: second.map(|i| (Choice::Score(choices[i].index), choices[i].future)),
    })
}

/// The decision for `dice` in `state` with `rolls_left` rolls left, from the library's
/// policy: the best option and the runner-up under the one tie rule ([`best_two`], the
/// first two options `advise` ranks). `turn` must be the [`TurnValues`] of `state` (unused
/// with no rolls left). `None` on a full card.
pub fn decide(
    table: &StrategyTable,
    state: &State,
    turn: &TurnValues,
    dice: &Dice,
    rolls_left: u8,
) -> Option<Decision> {
    if state.filled == table.rules().full_mask() {
        return None;
    }
    if rolls_left == 0 {
        return box_decision(table, state, dice);
    }
    let keeps = keeps_of(dice);
    let values: Vec<f64> = keeps
        .iter()
        .map(|k| turn.keep_value(rolls_left, k))
        .collect();
    let (best, second) = best_two(&values);
    let mut stop = None;
    let mut choice = |keep: Keep| {
        if keep.len() == dice.len() {
            // Keeping all the dice is stopping: it is held as the box the policy then
            // fills (the best box), a `Choice::Score` with rolls left.
            let d = *stop.get_or_insert_with(|| box_decision(table, state, dice));
            d.map(|d| d.best)
        } else {
            Some(Choice::Keep(keep))
        }
    };
    let best_i = best?;
    Some(Decision {
        best: choice(keeps[best_i])?,
        value: values[best_i],
        runner_up: match second {
            Some(i) => Some((choice(keeps[i])?, values[i])),
            None => None,
        },
    })
}

/// The distinct keeps of `dice`, listed once per roll by the library: the full policy asks
/// for them hundreds of millions of times.
fn keeps_of(dice: &Dice) -> &'static [Keep] {
    dice.keeps_by_preference()
}

/// The row of one decision in `state`, `base` points already banked, its options written by
/// `text`.
fn decision_row(
    rules: &Rules,
    state: &State,
    d: &Decision,
    r: usize,
    rolls_left: u8,
    base: f64,
    text: impl Fn(&Choice) -> &'static str,
) -> DecisionRow {
    DecisionRow {
        filled: state.filled,
        upper: state.upper,
        yahtzee_50: state.yahtzee_50,
        dice: dice_text(rules.dice().first_roll() + r),
        rolls_left,
        best: text(&d.best),
        expected: round(base + d.value),
        runner_up: d.runner_up.map(|(c, _)| text(&c)),
        gap: d.gap().map(round),
        visit_probability: None,
        faced_probability: None,
    }
}

/// Appends the decisions of `state` that pass `filter`: rolls left 2, 1, 0 (from the game's
/// rolls a turn less one), and within each the 252 rolls in index order (ascending dice).
/// With `visit`, the chance that optimal play reaches `state` (the full policy), each row
/// also holds it and the chance of facing its decision ([`DecisionRow::faced_probability`]).
pub fn state_rows(
    table: &StrategyTable,
    state: &State,
    base: f64,
    visit: Option<f64>,
    filter: &Filter,
    out: &mut Vec<DecisionRow>,
) {
    let rules = table.rules();
    if state.filled == rules.full_mask() {
        // A full card: no decision is left.
        return;
    }
    let turn = TurnValues::new(table, state);
    // The decisions of each number of rolls left the rows or the chances of facing them
    // need: the chances follow the policy's keeps at every number of rolls left.
    let mut decisions: Vec<Vec<Decision>> = vec![Vec::new(); usize::from(rules.rolls())];
    for rolls_left in rules.rolls_left_in_turn() {
        if filter.wants_rolls_left(rolls_left) || (visit.is_some() && rolls_left > 0) {
            decisions[usize::from(rolls_left)] = rules
                .dice()
                .all_rolls()
                .map(|dice| {
                    decide(table, state, &turn, &dice, rolls_left)
                        .expect("a card with an open box has a decision")
                })
                .collect();
        }
    }
    let faced = visit.map(|_| {
        roll_chances(rules.dice(), rules.rolls(), |rolls_left, r| match decisions
            [usize::from(rolls_left)][r]
            .best
        {
            Choice::Keep(k) => Kept::Keep(k.index() as u16),
            Choice::Score(_) => Kept::Stop,
        })
    });
    for rolls_left in rules.rolls_left_in_turn() {
        if !filter.wants_rolls_left(rolls_left) {
            continue;
        }
        for (r, d) in decisions[usize::from(rolls_left)].iter().enumerate() {
            if filter.wants_gap(d.gap()) {
                let mut row = decision_row(rules, state, d, r, rolls_left, base, |c| {
                    choice_text(c, rules)
                });
                if let (Some(v), Some(faced)) = (visit, &faced) {
                    row.visit_probability = Some(v);
                    row.faced_probability = Some(v * faced[usize::from(rolls_left)][r]);
                }
                out.push(row);
            }
        }
    }
}

/// The decision for `dice` with `rerolls_left` re-rolls left in the turn `turn` of a game of
/// saved rolls (at most the re-rolls `turn` was made for): the first two of [`SavedTurn`]'s
/// options (the keeps of fewer than all the dice, and every legal box filled now with the
/// re-rolls left saved) under the one tie rule ([`best_two`]), the two options `advise`
/// ranks first. A box is held as its [`Choice::Score`], which with re-rolls left saves them
/// ([`saved_choice_text`]). `None` on a full card.
pub fn saved_decide(
    rules: &Rules,
    turn: &SavedTurn,
    dice: &Dice,
    rerolls_left: usize,
) -> Option<Decision> {
    let options = turn.options(dice, rerolls_left);
    let values: Vec<f64> = options.iter().map(|&(_, v)| v).collect();
    let (best, second) = best_two(&values);
    let choice = |i: usize| match &options[i].0 {
        Action::Keep { keep, .. } => Choice::Keep(*keep),
        Action::Score { category, .. } => Choice::Score(
            rules
                .boxes()
                .iter()
                .position(|b| b.name() == *category)
                .expect("a box of the rules"),
        ),
    };
    let best = best?;
    Some(Decision {
        best: choice(best),
        value: values[best],
        runner_up: second.map(|i| (choice(i), values[i])),
    })
}

/// A [`Choice`] of a turn under saved rolls with `rerolls_left` re-rolls left, as exports
/// write it: a keep as [`choice_text`] does, a box with the re-rolls it saves for later
/// turns ([`saves_text`]: `chance (saves 3)`; with none left, its name alone).
pub fn saved_choice_text(choice: &Choice, rules: &Rules, rerolls_left: u8) -> &'static str {
    match choice {
        Choice::Keep(_) => choice_text(choice, rules),
        Choice::Score(i) => saves_text(rules.boxes()[*i].name(), rerolls_left),
    }
}

/// Appends the decisions of `state` in a game of saved rolls that pass `filter`: the re-rolls
/// left from `most` (the turn's, at most those `turn` was made for) down to 0, and within
/// each the rolls in index order (ascending dice), each valued by `turn` (the turn of
/// `state`), `base` points already banked. A full card has none.
pub fn saved_state_rows(
    rules: &Rules,
    turn: &SavedTurn,
    state: &State,
    most: u8,
    base: f64,
    filter: &Filter,
    out: &mut Vec<DecisionRow>,
) {
    if state.filled == rules.full_mask() {
        return;
    }
    for rolls_left in (0..=most).rev() {
        if !filter.wants_rolls_left(rolls_left) {
            continue;
        }
        for (r, dice) in rules.dice().all_rolls().enumerate() {
            let d = saved_decide(rules, turn, &dice, usize::from(rolls_left))
                .expect("a card with an open box has a decision");
            if filter.wants_gap(d.gap()) {
                out.push(decision_row(rules, state, &d, r, rolls_left, base, |c| {
                    saved_choice_text(c, rules, rolls_left)
                }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tests::assert_row_columns;
    use crate::game::dice::{DICE, FIRST_ROLL, ROLLS};

    #[test]
    fn columns_match_the_serialized_fields() {
        assert_row_columns(&DecisionRow {
            filled: 1,
            upper: 3,
            yahtzee_50: false,
            dice: "11111",
            rolls_left: 0,
            best: "yahtzee",
            expected: 1.0,
            runner_up: None,
            gap: None,
            visit_probability: None,
            faced_probability: None,
        });
    }

    /// Regression: a full card reaching `box_decision` panicked on an `expect` (through the
    /// public `state_rows` and `decide`); a full card has no decision, so no row.
    #[test]
    fn full_card_in_box_decision_does_not_panic() {
        use crate::game::rules::{RuleSet, Rules};
        use crate::solve::expected::SolveOptions;
        let rules = Rules::new(RuleSet::YACHT);
        let (table, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let full = State {
            filled: rules.full_mask(),
            upper: 0,
            yahtzee_50: false,
        };
        let mut rows = Vec::new();
        state_rows(&table, &full, 0.0, None, &Filter::default(), &mut rows);
        assert!(rows.is_empty());
        let turn = TurnValues::new(&table, &full);
        let dice: Dice = "12345".parse().unwrap();
        for rolls_left in [0, 1, 2] {
            assert!(decide(&table, &full, &turn, &dice, rolls_left).is_none());
        }
    }

    /// The convention of [`Decision`]: with rolls left, a stop is held as the `Score` of the
    /// box the policy then fills, at the value of keeping all five dice; a `Keep` always
    /// re-rolls a die.
    #[test]
    fn a_stop_with_rolls_left_is_the_box_the_policy_fills() {
        use crate::game::rules::{RuleSet, Rules};
        use crate::policy::expected::best_box_for;
        use crate::solve::expected::SolveOptions;
        let rules = Rules::new(RuleSet::YACHT);
        let (table, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let state = State::START;
        let turn = TurnValues::new(&table, &state);
        let mut stops = 0;
        for r in 0..ROLLS {
            let dice = Dice::from_index(FIRST_ROLL + r);
            let all_five = Keep::from_index(dice.index());
            let stop = best_box_for(&table, &state, &dice).unwrap().index;
            for rolls_left in [1, 2] {
                let d = decide(&table, &state, &turn, &dice, rolls_left).unwrap();
                for (choice, value) in std::iter::once((d.best, d.value)).chain(d.runner_up) {
                    match choice {
                        Choice::Keep(k) => {
                            assert!(k.len() < DICE, "{dice} {rolls_left}: {k:?}");
                            assert_eq!(value, turn.keep_value(rolls_left, &k));
                        }
                        Choice::Score(i) => {
                            assert_eq!(i, stop, "{dice} {rolls_left}");
                            assert_eq!(value, turn.keep_value(rolls_left, &all_five));
                            stops += 1;
                        }
                    }
                }
            }
        }
        // Five of a kind is scored as a Yacht at once: at least those six rolls stop.
        assert!(stops >= 6 * 2, "{stops}");
        let yacht = rules.box_by_name("yacht").unwrap();
        let sixes: Dice = "66666".parse().unwrap();
        let d = decide(&table, &state, &turn, &sixes, 2).unwrap();
        assert_eq!(d.best, Choice::Score(yacht));
    }
}
