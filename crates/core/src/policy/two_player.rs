//! Playing the exact two-player optimum in a game: the bot's turns (`bot:two-player` of
//! `yahtzee play`, the `two-player` policy of `yahtzee simulate --match`), and the plies its
//! choices, the coach's prices and the review's read.
//!
//! A choice of a turn is priced by the ply after the turn (the vectors of every pair the
//! turn's boxes lead to): [`NextPlies`] gives it, from the table of the early plies while
//! the game is in them ([`EarlyTable`]), then from the rest of the game solved once, at the
//! first turn past the table, from the cards of that moment, every later ply kept. Every
//! later position of the same game is in that solution (both cards only grow, and a pair's
//! vector depends only on the pairs after it, so the values are those of the full solve to
//! the last bit), so a game solves at most one subgame: about a second of CPU at ply 9, the
//! first ply past the table, for a few megabytes.
//!
//! The bot's every choice is the first option of [`advise_two_player`] on the position, the
//! very ranking `yahtzee advise --two-player` prints: the exact chance of winning plus half a
//! tie, ties within 1e-9 to the higher expected final score, then the fewest dice kept and
//! the box first on the card.

use std::sync::Arc;

use crate::game::dice::{Dice, Keep};
use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{Bonuses, ScoreCard};
use crate::policy::expected::{Action, Position};
use crate::solve::expected::Simd;
use crate::tables::expected::StrategyTable;

use crate::solve::two_player::{
    Game, Ply, Solution, TwoPlayerAdvice, TwoPlayerAdviceError, TwoPlayerPosition,
    advise_two_player, check_rules, solve,
};
use crate::tables::two_player::EarlyTable;

/// The ply after a turn: one mover card read from the table of the early plies, or a ply of
/// the rest of the game solved and kept.
#[derive(Debug)]
pub enum NextPly {
    /// Read from the table of the early plies: the pairs of the opponent's card.
    Read(Ply<f32>),
    /// A ply of a (sub)game solved and kept, shared.
    Kept(Arc<Solution<f32>>, usize),
}

impl NextPly {
    /// The ply's vectors.
    pub fn ply(&self) -> &Ply<f32> {
        match self {
            NextPly::Read(ply) => ply,
            NextPly::Kept(solution, p) => solution.ply(*p).expect("a kept ply of the solution"),
        }
    }
}

/// The plies after the turns of one game of two (see the module's documentation): the table
/// of the early plies, and the rest of the game solved at the first turn past it. One per
/// game: a new game starts from another card.
#[derive(Debug)]
pub struct NextPlies<'a> {
    rules: Rules,
    early: Option<&'a EarlyTable>,
    simd: Simd,
    /// The rest of the game, solved from the cards of the first turn past the table.
    rest: Option<Arc<Solution<f32>>>,
    /// Subgames solved so far (for the benchmarks).
    solved: u32,
}

impl<'a> NextPlies<'a> {
    /// The plies of a game of `rules`, with the table of the early plies `early` (of the same
    /// rules; without it every turn's ply is solved).
    pub fn new(
        rules: Rules,
        early: Option<&'a EarlyTable>,
        simd: Simd,
    ) -> Result<NextPlies<'a>, TwoPlayerAdviceError> {
        check_rules(&rules)?;
        if let Some(table) = early
            && *table.rules() != rules
        {
            return Err(crate::tables::expected::TableError::WrongRules {
                origin: table.origin(),
                expected: rules,
                got: table.rules().label(),
                found: Some(*table.rules()),
            }
            .into());
        }
        Ok(NextPlies {
            rules,
            early,
            simd,
            rest: None,
            solved: 0,
        })
    }

    /// These plies, reading the early plies from `early`: the table they were made with, or
    /// none while they are put away. What keeps the plies of a game between two borrows of
    /// its tables (a game host owns its tables and lends the plies its table for each turn,
    /// [`crate::play::host`]); the rest of the game solved so far is kept.
    pub fn with_early<'b>(self, early: Option<&'b EarlyTable>) -> NextPlies<'b> {
        NextPlies {
            rules: self.rules,
            early,
            simd: self.simd,
            rest: self.rest,
            solved: self.solved,
        }
    }

    /// Subgames solved so far.
    pub fn subgames_solved(&self) -> u32 {
        self.solved
    }

    /// The ply after the turn of `at`: read from the table of the early plies when it holds
    /// it, else from the rest of the game, solved now if no earlier turn of this game did.
    pub fn next(&mut self, at: &TwoPlayerPosition) -> Result<NextPly, TwoPlayerAdviceError> {
        let start = at.start()?;
        let ply = start.ply(&self.rules)?;
        if ply >= 2 * self.rules.box_count()
            || at.position.card.state().filled == self.rules.full_mask()
        {
            return Err(TwoPlayerAdviceError::Over);
        }
        if let Some(early) = self.early
            && let Some(next) = early.mover_ply(ply + 1, at.opponent)?
        {
            return Ok(NextPly::Read(next));
        }
        let covers = |s: &Solution<f32>| {
            let from = s.start();
            from.first & start.first == from.first
                && from.second & start.second == from.second
                && s.ply(ply + 1).is_some()
        };
        if let Some(rest) = &self.rest
            && covers(rest)
        {
            return Ok(NextPly::Kept(rest.clone(), ply + 1));
        }
        let game = Game::optimal(self.rules)?;
        let rest = Arc::new(solve::<f32>(
            &game,
            start,
            &|p| p > ply,
            self.simd,
            &|_, _| {},
        )?);
        self.solved += 1;
        self.rest = Some(rest.clone());
        Ok(NextPly::Kept(rest, ply + 1))
    }
}

/// The two-player bot: plays the exact two-player optimum, with the expected-score table
/// (for its ties) and the table of the early plies of the same rules.
#[derive(Clone, Copy, Debug)]
pub struct TwoPlayerBot<'a> {
    /// The expected-score table.
    pub ev: &'a StrategyTable,
    /// The table of the early plies.
    pub early: &'a EarlyTable,
}

impl<'a> TwoPlayerBot<'a> {
    /// The plies of a new game for this bot (and any other two-player seat of the game).
    pub fn plies(&self, simd: Simd) -> Result<NextPlies<'a>, TwoPlayerAdviceError> {
        NextPlies::new(*self.ev.rules(), Some(self.early), simd)
    }

    /// The bot's turn with the card `own` against the card `opponent` (the lead is the
    /// difference of their points), from the plies of the game `plies`.
    pub fn turn(
        &self,
        plies: &mut NextPlies<'a>,
        own: &ScoreCard,
        opponent: &ScoreCard,
    ) -> Result<TwoPlayerTurn<'a>, TwoPlayerAdviceError> {
        TwoPlayerTurn::new(
            self.ev,
            plies,
            own,
            opponent.state().filled,
            i64::from(own.banked()) - i64::from(opponent.banked()),
        )
    }
}

/// One turn of the two-player optimum: the card, the opponent's filled boxes, the lead and
/// the ply after the turn. Each choice is the first option of [`advise_two_player`].
#[derive(Debug)]
pub struct TwoPlayerTurn<'a> {
    ev: &'a StrategyTable,
    next: NextPly,
    card: ScoreCard,
    opponent: BoxMask,
    lead: i64,
}

impl<'a> TwoPlayerTurn<'a> {
    /// The turn with `card` against an opponent who has filled `opponent`, `lead` points
    /// ahead, from the plies of the game `plies`.
    pub fn new(
        ev: &'a StrategyTable,
        plies: &mut NextPlies<'_>,
        card: &ScoreCard,
        opponent: BoxMask,
        lead: i64,
    ) -> Result<TwoPlayerTurn<'a>, TwoPlayerAdviceError> {
        let at = TwoPlayerPosition {
            position: Position {
                card: card.clone(),
                dice: Dice::from_faces(&[1, 1, 1, 1, 1]).expect("five faces"),
                rolls_left: 2,
            },
            opponent,
            lead,
        };
        let next = plies.next(&at)?;
        Ok(TwoPlayerTurn {
            ev,
            next,
            card: card.clone(),
            opponent,
            lead,
        })
    }

    /// The advice of the turn with `dice` and `rolls_left`: what `advise --two-player` gives.
    pub fn advice(
        &self,
        dice: &Dice,
        rolls_left: u8,
    ) -> Result<TwoPlayerAdvice, TwoPlayerAdviceError> {
        let at = TwoPlayerPosition {
            position: Position {
                card: self.card.clone(),
                dice: *dice,
                rolls_left,
            },
            opponent: self.opponent,
            lead: self.lead,
        };
        advise_two_player(self.ev, self.next.ply(), &at)
    }

    /// The best action with `dice` and `rolls_left`.
    fn best(&self, dice: &Dice, rolls_left: u8) -> Action {
        self.advice(dice, rolls_left)
            .expect("a turn's position is checked when the turn is made")
            .options
            .swap_remove(0)
            .action
    }

    /// The dice kept from `dice` with `rolls_left` (1 or 2) rolls left; all five: stop.
    pub fn best_keep(&self, rolls_left: u8, dice: &Dice) -> Keep {
        match self.best(dice, rolls_left) {
            Action::Keep { keep, .. } => Keep::from_faces(&keep).expect("a keep of the dice"),
            other => unreachable!("with rolls left every option keeps dice, not {other:?}"),
        }
    }

    /// The box filled with `dice`: its index, points and the bonuses earned.
    pub fn best_box(&self, dice: &Dice) -> (usize, u32, Bonuses) {
        let rules = self.card.rules();
        match self.best(dice, 0) {
            Action::Score {
                category, points, ..
            } => {
                let index = rules.box_by_name(&category).expect("a box of the rules");
                let state = self.card.state();
                let bonuses =
                    state.bonuses_for(&rules, index, points, dice.five_of_a_kind().is_some());
                (index, points, bonuses)
            }
            other => unreachable!("with no roll left every option fills a box, not {other:?}"),
        }
    }
}
