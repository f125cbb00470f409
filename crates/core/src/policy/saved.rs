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

use crate::game::dice::{Dice, Keep};
use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{ScoreCard, State};
use crate::game::ties::Preferred;
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
        let mut options = Vec::new();
        let fills = self.fills(dice);
        self.scan(
            dice,
            rerolls_left,
            &fills,
            |index, points, five| self.scored(index, points, five, rerolls_left),
            |choice, value| options.push((self.action(dice, choice, rerolls_left), value)),
        );
        options
    }

    /// The option advice ranks first for `dice` with `rerolls_left` (the tie rule of every
    /// advice), and its value.
    pub fn best(&self, dice: &Dice, rerolls_left: usize) -> (Action, f64) {
        let fills = self.fills(dice);
        let (choice, value) = self.choose(dice, rerolls_left, &fills, |index, points, five| {
            self.scored(index, points, five, rerolls_left)
        });
        (self.action(dice, choice, rerolls_left), value)
    }

    /// The boxes `dice` may fill now, in card order, with their points: the same whatever the
    /// re-rolls left (the exact distribution lists them once for a roll of a turn).
    pub fn fills(&self, dice: &Dice) -> Fills {
        let rules = self.table.rules();
        let filled = self.state.filled;
        let legal = rules.legal_boxes(filled, dice);
        Fills {
            boxes: (0..rules.box_count())
                .filter(|i| legal & (1 << i) != 0)
                .map(|i| (i, rules.score(i, dice, filled)))
                .collect(),
            five: dice.five_of_a_kind().is_some(),
        }
    }

    /// [`SavedTurn::best`] as a [`Choice`], for `dice` whose boxes are `fills`, the boxes
    /// valued by `scored(index, points, five)` (what [`SavedTurn::scored`] gives, perhaps
    /// remembered by the caller: the exact distribution asks for every roll of a turn): the
    /// first of [`SavedTurn::options`] by the tie rule of every advice ([`Preferred`]).
    pub fn choose(
        &self,
        dice: &Dice,
        rerolls_left: usize,
        fills: &Fills,
        scored: impl FnMut(usize, u32, bool) -> f64,
    ) -> (Choice, f64) {
        let mut best = Preferred::new();
        self.scan(dice, rerolls_left, fills, scored, |choice, value| {
            best.offer(choice, value)
        });
        best.best().expect("a legal option")
    }

    /// Offers every legal option for `dice` (whose boxes are `fills`) with `rerolls_left`, in
    /// the order of preference, to `offer`: the one listing of the options behind
    /// [`SavedTurn::options`] and [`SavedTurn::choose`].
    fn scan(
        &self,
        dice: &Dice,
        rerolls_left: usize,
        fills: &Fills,
        mut scored: impl FnMut(usize, u32, bool) -> f64,
        mut offer: impl FnMut(Choice, f64),
    ) {
        if let Some(values) = self.keeps.get(rerolls_left).filter(|v| !v.is_empty()) {
            let first_roll = self.table.rules().dice().first_roll();
            for &keep in Dice::keep_indices_of(dice.index()) {
                // Keeping all the dice re-rolls none: never better than scoring now.
                if usize::from(keep) < first_roll {
                    offer(Choice::Keep(keep), values[usize::from(keep)]);
                }
            }
        }
        for &(index, points) in &fills.boxes {
            offer(Choice::Score(index), scored(index, points, fills.five));
        }
    }

    /// The value of filling box `index` with `points` now (`five`: the dice are five of a
    /// kind) with `rerolls_left` saved: the points and bonus of this turn and the table's
    /// value of the state after it.
    pub fn scored(&self, index: usize, points: u32, five: bool, rerolls_left: usize) -> f64 {
        let rules = self.table.rules();
        let bonus = self
            .state
            .bonuses_for(rules, index, points, five)
            .points(rules);
        let next = self.state.after(rules, index, points);
        let value = self
            .table
            .value(&next, rerolls_left)
            .expect("the table holds the cards after the turn's");
        f64::from(points + bonus) + value
    }

    /// The [`Action`] of `choice` for `dice` with `rerolls_left`.
    fn action(&self, dice: &Dice, choice: Choice, rerolls_left: usize) -> Action {
        let rules = self.table.rules();
        match choice {
            Choice::Keep(keep) => Action::Keep {
                keep: Keep::from_index(usize::from(keep)),
                stop_and_score: None,
            },
            Choice::Score(index) => {
                let points = rules.score(index, dice, self.state.filled);
                let five = dice.five_of_a_kind().is_some();
                Action::Score {
                    category: rules.boxes()[index].name(),
                    points,
                    bonus: self
                        .state
                        .bonuses_for(rules, index, points, five)
                        .points(rules),
                    saves: Some(rerolls_left as u8),
                }
            }
        }
    }
}

/// The boxes a roll may fill now ([`SavedTurn::fills`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fills {
    /// Each box the rules allow, in card order, with its points.
    pub boxes: Vec<(usize, u32)>,
    /// The dice are five of a kind (which may earn a bonus).
    pub five: bool,
}

/// What the policy does with a roll under saved rolls: re-roll some dice or fill a box now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Keep the multiset of this index (fewer than all the dice) and re-roll the others.
    Keep(u16),
    /// Fill the box at this position on the card now, saving the re-rolls left.
    Score(usize),
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
