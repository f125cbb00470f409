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

use std::sync::Arc;

use crate::game::dice::Dice;
use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{ScoreCard, State};
use crate::game::ties::rank_by_preference;
use crate::policy::expected::{Action, Advice, AdviceError, Position, check_position, ranked};
use crate::solve::saved::state_turn;
use crate::tables::saved::SavedTable;
use crate::tables::set::{LoadError, TableSet};

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

/// The re-rolls left of a position of `card` under saved rolls, with `saved` rolls saved
/// before this turn: `rolls_left` when given, else the turn's re-rolls and `saved`; `saved`
/// at most what the turns played can have saved, and `rolls_left` at most the turn's re-rolls
/// and `saved`. The one check of the command line's flags and of a batch query's keys.
pub fn rerolls_left(
    rules: &Rules,
    card: &ScoreCard,
    saved: u8,
    rolls_left: Option<u8>,
) -> Result<u8, AdviceError> {
    let turns = card.filled().count_ones() as usize;
    let most = rules.most_saved_rolls(turns);
    if usize::from(saved) > most {
        return Err(AdviceError::Saved {
            given: u32::from(saved),
            turns,
            most,
        });
    }
    let rerolls = rules.most_rolls_left();
    let rolls_left = rolls_left.unwrap_or(rerolls + saved);
    if rolls_left > rerolls + saved {
        return Err(AdviceError::RollsLeft {
            given: u32::from(rolls_left),
            allowed: format!(
                "0 to {} (the turn's {rerolls} re-rolls and the {saved} rolls saved before it)",
                rerolls + saved
            ),
        });
    }
    Ok(rolls_left)
}

/// Every legal option of `position` (its `rolls_left` the re-rolls left this turn), ranked,
/// with its expected final score, from the table of saved rolls (whole, or read in part for
/// the position's card: [`SavedTable::load_cards`]).
pub fn advise(table: &SavedTable, position: &Position) -> Result<Advice, AdviceError> {
    let rules = *table.rules();
    check_position(&rules, position)?;
    let state = position.card.state();
    let turns_played = state.filled.count_ones() as usize;
    check_rerolls_left(&rules, turns_played, u32::from(position.rolls_left))?;
    let banked = position.card.banked();
    let base = f64::from(banked);
    let rerolls_left = usize::from(position.rolls_left);
    let turn = SavedTurn::new(table, state, rerolls_left);
    let mut candidates = turn.options(&position.dice, rerolls_left);
    for (_, value) in &mut candidates {
        *value += base;
    }
    Ok(ranked(rules, banked, position, candidates))
}

/// One turn of a state under saved rolls: the keeps' values with each number of re-rolls left
/// up to the most the turn has (one run of the solve's kernel for this state,
/// [`state_turn`]), from which the options of every roll and re-rolls left are valued:
/// advice's, and every decision of a simulated game's turn.
pub struct SavedTurn<'t> {
    table: &'t SavedTable,
    state: State,
    /// `keeps[r]`: the values of the keeps with `r` re-rolls left (entry by multiset;
    /// `keeps[0]` is empty: no keep without a re-roll).
    keeps: Vec<Vec<f64>>,
}

impl<'t> SavedTurn<'t> {
    /// The turn of `state` with up to `rerolls` re-rolls left (the table holds the cards
    /// after `state`'s).
    pub fn new(table: &'t SavedTable, state: State, rerolls: usize) -> SavedTurn<'t> {
        let rules = table.rules();
        let mut keeps = vec![Vec::new(); rerolls + 1];
        let played = state.filled.count_ones() as usize;
        if rerolls > 0 && played < rules.box_count() {
            let next = table.depth(played + 1);
            state_turn(rules, table.scores(), next, &state, rerolls, |r, layer| {
                if r > 0 {
                    keeps[r] = layer.to_vec();
                }
            });
        }
        SavedTurn {
            table,
            state,
            keeps,
        }
    }

    /// Every legal option for `dice` with `rerolls_left` (at most the turn's) in the order
    /// of preference, each with its value: the points of this turn and the expected score
    /// after it. The keeps of fewer than all the dice first (fewest dice first), then the
    /// boxes in card order, each filled now with the re-rolls left saved.
    pub fn options(&self, dice: &Dice, rerolls_left: usize) -> Vec<(Action, f64)> {
        let rules = *self.table.rules();
        let state = &self.state;
        let mut options: Vec<(Action, f64)> = Vec::new();
        if let Some(values) = self.keeps.get(rerolls_left).filter(|v| !v.is_empty()) {
            let all = rules.dice().dice();
            options.extend(
                dice.keeps_by_preference()
                    .iter()
                    .filter(|k| k.len() < all)
                    .map(|&keep| {
                        let action = Action::Keep {
                            keep,
                            stop_and_score: None,
                        };
                        (action, values[keep.index()])
                    }),
            );
        }
        let legal = rules.legal_boxes(state.filled, dice);
        let five = dice.five_of_a_kind().is_some();
        for index in (0..rules.box_count()).filter(|i| legal & (1 << i) != 0) {
            let points = rules.score(index, dice, state.filled);
            let bonus = state
                .bonuses_for(&rules, index, points, five)
                .points(&rules);
            let next = state.after(&rules, index, points);
            let value = self
                .table
                .value(&next, rerolls_left)
                .expect("the table holds the cards after the turn's");
            let action = Action::Score {
                category: rules.boxes()[index].name(),
                points,
                bonus,
                saves: Some(rerolls_left as u8),
            };
            options.push((action, f64::from(points + bonus) + value));
        }
        options
    }

    /// The option advice ranks first for `dice` with `rerolls_left` (the tie rule of every
    /// advice), and its value.
    pub fn best(&self, dice: &Dice, rerolls_left: usize) -> (Action, f64) {
        let options = self.options(dice, rerolls_left);
        let values: Vec<f64> = options.iter().map(|&(_, v)| v).collect();
        let first = rank_by_preference(&values)[0];
        options.into_iter().nth(first).expect("an option")
    }
}

/// The table of saved rolls of one game, read for the card of each turn as the turns come
/// ([`TableSet::saved_for`]: the rows of the card and of the cards after it, milliseconds
/// whatever the table's size, Maxi Yatzy's 10 GB included), the last card's kept, so that the
/// decisions of one turn read the file once: what the bots, the coach and the hints of a game
/// in progress and the review of a record play and price with.
#[derive(Default)]
pub struct SavedCards {
    last: Option<(BoxMask, Arc<SavedTable>)>,
}

impl SavedCards {
    /// The table of saved rolls of `tables` holding the turns of the card `filled` (built
    /// first when missing).
    pub fn for_card(
        &mut self,
        tables: &TableSet,
        filled: BoxMask,
    ) -> Result<Arc<SavedTable>, LoadError> {
        if let Some((card, table)) = &self.last
            && *card == filled
        {
            return Ok(Arc::clone(table));
        }
        let table = tables.saved_for(&[filled])?;
        self.last = Some((filled, Arc::clone(&table)));
        Ok(table)
    }
}
