//! Advice under saved rolls (`shared/RULES.md`, section 8): the options of a position of a
//! game whose turns keep their unused re-rolls for later, valued by the table of saved rolls
//! ([`SavedTable`]).
//!
//! A position is the card, the dice and the re-rolls left this turn, which may exceed the
//! game's two: the turn began with the rolls saved before it. With re-rolls left the options
//! are the keeps of fewer than all the dice (re-roll some) and every box the rules allow,
//! filled now and the re-rolls left saved ("score chance for 24, keep 3 rolls"); re-rolling
//! none is never better than scoring now, and is not offered. With none left, the boxes.
//! The keeps' values are the solve's own kernel run for this one state
//! ([`crate::solve::saved::state_turn`]); the boxes' are the table's values of the states they
//! lead to, with the re-rolls left saved. Ties are ranked by the rule of every advice
//! ([`super::expected`]).

use crate::game::rules::Rules;
use crate::policy::expected::{Action, Advice, AdviceError, Position, ranked};
use crate::solve::saved::state_turn;
use crate::tables::saved::SavedTable;

/// The most re-rolls a turn of a card with `turns_played` boxes filled may have left: the
/// game's re-rolls and the most rolls saved by then.
pub fn most_rerolls(rules: &Rules, turns_played: usize) -> usize {
    usize::from(rules.rolls() - 1) + rules.most_saved_rolls(turns_played)
}

/// Checks the re-rolls left of a position of `turns_played` boxes filled: 0 to
/// [`most_rerolls`].
pub fn check_rerolls_left(
    rules: &Rules,
    turns_played: usize,
    rolls_left: u32,
) -> Result<(), AdviceError> {
    let most = most_rerolls(rules, turns_played);
    if rolls_left as usize > most {
        return Err(AdviceError::RollsLeft {
            given: rolls_left,
            allowed: format!(
                "0 to {most} (the turn's {} re-rolls and the {} rolls at most saved after {turns_played} turns)",
                rules.rolls() - 1,
                rules.most_saved_rolls(turns_played),
            ),
        });
    }
    Ok(())
}

/// Every legal option of `position` (its `rolls_left` the re-rolls left this turn), ranked,
/// with its expected final score, from the table of saved rolls (whole, or read in part for
/// the position's card: [`SavedTable::load_cards`]).
pub fn advise(table: &SavedTable, position: &Position) -> Result<Advice, AdviceError> {
    let rules = *table.rules();
    if position.card.rules() != rules {
        return Err(AdviceError::RulesMismatch {
            card: position.card.rules().label(),
            table: rules.label(),
        });
    }
    rules.dice().check(position.dice)?;
    let state = position.card.state();
    let turns_played = state.filled.count_ones() as usize;
    check_rerolls_left(&rules, turns_played, u32::from(position.rolls_left))?;
    let banked = position.card.banked();
    let base = f64::from(banked);
    let dice = &position.dice;
    let rerolls_left = usize::from(position.rolls_left);
    // The keeps of fewer than all the dice first, in the order of preference, then the boxes
    // in card order: the order of every advice's options (a stop comes after the keeps).
    let mut candidates: Vec<(Action, f64)> = Vec::new();
    if rerolls_left > 0 && turns_played < rules.box_count() {
        let all = rules.dice().dice();
        let keeps: Vec<_> = dice
            .keeps_by_preference()
            .iter()
            .filter(|k| k.len() < all)
            .copied()
            .collect();
        let next = table.depth(turns_played + 1);
        state_turn(&rules, table.scores(), next, &state, rerolls_left, |r, layer| {
            if r == rerolls_left {
                candidates.extend(keeps.iter().map(|keep| {
                    let action = Action::Keep {
                        keep: *keep,
                        stop_and_score: None,
                    };
                    (action, base + layer[keep.index()])
                }));
            }
        });
    }
    let legal = rules.legal_boxes(state.filled, dice);
    let five = dice.five_of_a_kind().is_some();
    for index in (0..rules.box_count()).filter(|i| legal & (1 << i) != 0) {
        let points = rules.score(index, dice, state.filled);
        let bonus = state.bonuses_for(&rules, index, points, five).points(&rules);
        let next = state.after(&rules, index, points);
        let value = table
            .value(&next, rerolls_left)
            .expect("the table holds the cards after the position's");
        let action = Action::Score {
            category: rules.boxes()[index].name(),
            points,
            bonus,
            saves: Some(position.rolls_left),
        };
        candidates.push((action, base + f64::from(points + bonus) + value));
    }
    Ok(ranked(rules, banked, position, candidates))
}
