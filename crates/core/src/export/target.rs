//! Scope `--card` with `--target T`: the decisions of one turn-start card when playing for a
//! final score of at least `T`, every roll at rolls left 2, 1 and 0: the target policy's
//! action ([`TargetTurn`], what the target bots and `simulate --policy target:T` play), its
//! chance of reaching `T`, the runner-up and the gap in chance ([`TargetDecisionRow`]).
//!
//! The options of a decision are ranked by the target's tie rule ([`best_two`] over pairs):
//! the chance, then within 1e-9 the expected final score under expected-score play, then the
//! order of preference (the fewest dice kept, the box first on the card). With rolls left,
//! stopping is held as the box the target policy then fills, as in every export.

use std::io::{self, Write};

use serde::Serialize;

use super::{Filter, Format, Meta, Row, choice_text, dice_text, round, rules_title, write_turn};
use crate::game::choice::Choice;
use crate::game::dice::Dice;
use crate::game::rules::BoxMask;
use crate::game::state::{ScoreCard, State};
use crate::game::ties::best_two;
use crate::policy::expected::box_choices;
use crate::policy::target::TargetTurn;
use crate::solve::expected::TurnValues;
use crate::tables::TableError;
use crate::tables::expected::StrategyTable;
use crate::tables::vector::VectorTable;

/// One decision of the target policy: a roll, in a state, with some rolls left, when playing
/// for a final score of at least the target. Choices are written as in [`super::DecisionRow`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetDecisionRow {
    /// Filled boxes as a bit mask (bit `i`: box `i` of the card).
    pub filled: BoxMask,
    /// Upper-section total, capped at the bonus threshold.
    pub upper: u8,
    /// True when the Yahtzee box holds 50.
    pub yahtzee_50: bool,
    /// Points still needed to reach the target: the target less the points banked on the
    /// card (0 or less: reached).
    pub needed: i64,
    /// The five dice, ascending, e.g. `13356`.
    pub dice: &'static str,
    /// Rolls left: 2 just after the first roll, 0 after the last.
    pub rolls_left: u8,
    /// The target policy's action under its tie rule.
    pub best: &'static str,
    /// The best chance of a final score of at least the target after the best action.
    pub p_reach: f64,
    /// The expected final score after the best action under expected-score play (the points
    /// banked on the card included), to see what the gamble costs on average.
    pub expected: f64,
    /// The second option under the same rule; absent when there is only one.
    pub runner_up: Option<&'static str>,
    /// How much smaller the runner-up's chance is than the best's (at least 0).
    pub gap: Option<f64>,
}

impl Row for TargetDecisionRow {
    const COLUMNS: &'static [&'static str] = &[
        "filled",
        "upper",
        "yahtzee_50",
        "needed",
        "dice",
        "rolls_left",
        "best",
        "p_reach",
        "expected",
        "runner_up",
        "gap",
    ];
    const TITLES: &'static [&'static str] = &[
        "filled",
        "upper",
        "Yahtzee 50",
        "needed",
        "dice",
        "rolls left",
        "best",
        "P(reach)",
        "expected",
        "runner-up",
        "gap",
    ];
    const ROUNDED: &'static [&'static str] = &["expected"];
}

/// The best option of one target decision and the runner-up: (choice, chance, expected
/// final points after it, not counting points already banked).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetDecision {
    /// The target policy's option.
    pub best: (Choice, f64, f64),
    /// The second option, when there is more than one.
    pub runner_up: Option<(Choice, f64, f64)>,
}

/// One turn of one state for a target, with what its decisions read: the tables, the
/// target turn and the expected-score turn (the tie rule's second value).
pub struct TargetCardTurn<'a> {
    ev: &'a StrategyTable,
    targets: &'a VectorTable<f32>,
    state: State,
    needed: i64,
    turn: TargetTurn<'a>,
    values: TurnValues,
}

impl<'a> TargetCardTurn<'a> {
    /// The turn of `state` with `needed` points still needed.
    pub fn new(
        ev: &'a StrategyTable,
        targets: &'a VectorTable<f32>,
        state: &State,
        needed: i64,
    ) -> Result<TargetCardTurn<'a>, TableError> {
        Ok(TargetCardTurn {
            ev,
            targets,
            state: *state,
            needed,
            turn: TargetTurn::new(ev, targets, state, needed)?,
            values: TurnValues::new(ev, state),
        })
    }

    /// The decision for `dice` with `rolls_left`: the target policy's option (the option
    /// [`TargetTurn::best_keep`] or [`TargetTurn::best_box`] chooses) and the runner-up
    /// under the same rule. `None` on a full card.
    pub fn decide(
        &self,
        dice: &Dice,
        rolls_left: u8,
    ) -> Result<Option<TargetDecision>, TableError> {
        let (ev, state) = (self.ev, &self.state);
        if state.filled == ev.rules().full_mask() {
            return Ok(None);
        }
        let five = dice.five_of_a_kind().is_some();
        let options: Vec<(Choice, f64, f64)> = if rolls_left == 0 {
            box_choices(ev, state, dice)
                .into_iter()
                .map(|c| {
                    let p = self
                        .targets
                        .after_box(state, c.index, c.points, five, self.needed)?;
                    Ok((Choice::Score(c.index), p, c.future))
                })
                .collect::<Result<_, TableError>>()?
        } else {
            let mut stop = None;
            let mut options = Vec::new();
            for keep in dice.keeps_by_preference() {
                let value = (
                    self.turn.keep_chance(rolls_left, keep),
                    self.values.keep_value(rolls_left, keep),
                );
                let choice = if keep.len() == dice.len() {
                    // Stopping: the box the target policy then fills, at the chance and the
                    // expected value `TargetTurn::best_keep` gives a keep of all five dice.
                    let (c, _) = *stop.get_or_insert(self.turn.best_box(dice)?);
                    Choice::Score(c.index)
                } else {
                    Choice::Keep(*keep)
                };
                options.push((choice, value.0, value.1));
            }
            options
        };
        let pairs: Vec<(f64, f64)> = options.iter().map(|&(_, p, e)| (p, e)).collect();
        let (best, second) = best_two(&pairs);
        Ok(best.map(|b| TargetDecision {
            best: options[b],
            runner_up: second.map(|i| options[i]),
        }))
    }
}

/// The decisions of one card's turn for `target` (scope `--card` with `--target`).
pub fn target_card_rows(
    ev: &StrategyTable,
    targets: &VectorTable<f32>,
    card: &ScoreCard,
    target: u32,
    filter: &Filter,
) -> Result<Vec<TargetDecisionRow>, TableError> {
    let rules = ev.rules();
    let state = card.state();
    let needed = i64::from(target) - i64::from(card.banked());
    let base = f64::from(card.banked());
    let turn = TargetCardTurn::new(ev, targets, &state, needed)?;
    let mut rows = Vec::new();
    for rolls_left in [2u8, 1, 0] {
        if !filter.wants_rolls_left(rolls_left) {
            continue;
        }
        for dice in rules.dice().all_rolls() {
            let Some(d) = turn.decide(&dice, rolls_left)? else {
                return Ok(rows);
            };
            let (best, p, e) = d.best;
            let gap = d.runner_up.map(|(_, q, _)| (p - q).max(0.0));
            if !filter.wants_gap(gap) {
                continue;
            }
            rows.push(TargetDecisionRow {
                filled: state.filled,
                upper: state.upper,
                yahtzee_50: state.yahtzee_50,
                needed,
                dice: dice_text(dice.index()),
                rolls_left,
                best: choice_text(&best, rules),
                p_reach: p,
                expected: round(base + e),
                runner_up: d.runner_up.map(|(c, _, _)| choice_text(&c, rules)),
                gap,
            });
        }
    }
    Ok(rows)
}

const TARGET_TIE_NOTE: &str = "Ties (chances within 1e-9) go to the option with the higher expected final score under expected-score play, then among equal keeps to the one with the fewest dice (then the lowest faces), among equal boxes to the one first on the card: once the target is reached, or out of reach, this is the expected-score policy.";
const TARGET_ACTION_NOTE: &str = "A keep is written as the kept faces (`33` = keep both threes and re-roll the rest), `-` means re-roll all five dice, a box name means score that box now (with rolls left: stop rolling). P(reach) is the best chance of a final score of at least the target after the best action; the gap is how much smaller the runner-up's chance is; expected is the expected final score after the best action under expected-score play.";

fn target_meta(
    ev: &StrategyTable,
    targets: &VectorTable<f32>,
    card: &ScoreCard,
    target: u32,
    filter: &Filter,
) -> Result<Meta, TableError> {
    let text = card.to_string();
    let needed = i64::from(target) - i64::from(card.banked());
    let p = targets.value(&card.state(), needed)?;
    let mut notes = vec![
        format!(
            "Card: {}; {} points banked, {} needed for {target}; best chance of reaching it from the start of this turn {:.6}.",
            if text.is_empty() {
                "empty (a new game)"
            } else {
                &text
            },
            card.banked(),
            needed.max(0),
            p
        ),
        TARGET_ACTION_NOTE.to_string(),
        TARGET_TIE_NOTE.to_string(),
    ];
    if let Some(g) = filter.min_gap {
        notes.push(format!(
            "Only decisions with a gap of at least {g} in chance."
        ));
    }
    Ok(Meta::of(
        ev,
        format!(
            "Strategy for one turn playing for {target}: {}",
            rules_title(ev.rules())
        ),
        notes,
    ))
}

/// Writes the decisions of one card's turn for `target` and returns the number of rows.
pub fn write_target_card(
    ev: &StrategyTable,
    targets: &VectorTable<f32>,
    card: &ScoreCard,
    target: u32,
    filter: &Filter,
    format: Format,
    out: &mut dyn Write,
) -> Result<u64, TargetExportError> {
    let rows = target_card_rows(ev, targets, card, target, filter)?;
    let meta = target_meta(ev, targets, card, target, filter)?;
    Ok(write_turn(
        ev.rules().rolls_left_in_turn(),
        format,
        &meta,
        &rows,
        |r| r.rolls_left,
        filter,
        out,
    )?)
}

/// Why a target export failed: the target table, or the output.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TargetExportError {
    /// A card of the target table could not be read (see [`TableError`]).
    #[error(transparent)]
    Table(#[from] TableError),
    /// The output could not be written. Fix: a writable output with room.
    #[error(transparent)]
    Write(#[from] io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tests::assert_row_columns;

    #[test]
    fn columns_match_the_serialized_fields() {
        assert_row_columns(&TargetDecisionRow {
            filled: 1,
            upper: 3,
            yahtzee_50: false,
            needed: 120,
            dice: "11111",
            rolls_left: 0,
            best: "yacht",
            p_reach: 0.5,
            expected: 1.0,
            runner_up: None,
            gap: None,
        });
    }
}
