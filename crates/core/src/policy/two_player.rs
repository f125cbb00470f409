//! The exact two-player optimum in a position and in a game: the advice of a position
//! ([`advise_two_player`], [`advise_at`]: every option ranked by the exact chance of winning
//! plus half a tie, what `yahtzee advise --two-player` and a batch line answer), the bot's
//! turns (`bot:two-player` of `yahtzee play`, the `two-player` policy of `yahtzee simulate
//! --match`), and the plies its choices, the coach's prices and the review's read. The solve
//! itself is [`crate::solve::two_player`].
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

use serde::Serialize;

use crate::game::dice::{Dice, Keep};
use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{Bonuses, ScoreCard, State};
use crate::policy::expected::{Action, Position, advise};
use crate::policy::target::{OptionPrices, TargetError, price_options};
use crate::policy::win::Opponent;
use crate::solve::kernel::{KeepArray, Layer, Plan, ScoreTable, score_table, turn};
use crate::solve::simd::Simd;
use crate::solve::two_player::{Game, Ply, Solution, Start, TwoPlayerError, check_rules, solve};
use crate::solve::vector::{RowSpec, lay_out};
use crate::tables::TableError;
use crate::tables::expected::StrategyTable;
use crate::tables::two_player::{EARLY_PLIES, EarlyTable};

/// A position of a two-player game: your card and dice mid-turn, the opponent's filled
/// boxes, and your lead. Who is to move follows from the cards: with as many boxes filled as
/// the opponent you are the first player, with one fewer the second.
#[derive(Clone, Debug)]
pub struct TwoPlayerPosition {
    /// Your card, the dice and the rolls left.
    pub position: Position,
    /// The opponent's filled boxes (every box once they have finished).
    pub opponent: BoxMask,
    /// Your points less the opponent's.
    pub lead: i64,
}

impl TwoPlayerPosition {
    /// `position` against `opponent` (still playing from a card, or finished with a total),
    /// with your lead `lead`, by default the difference of the two scores.
    pub fn against(
        position: Position,
        opponent: &Opponent,
        lead: Option<i64>,
    ) -> TwoPlayerPosition {
        let rules = position.card.rules();
        let (filled, points) = match opponent {
            Opponent::Playing(card) => (card.state().filled, card.banked()),
            Opponent::Finished(points) => (rules.full_mask(), *points),
        };
        let lead = lead.unwrap_or_else(|| i64::from(position.card.banked()) - i64::from(points));
        TwoPlayerPosition {
            position,
            opponent: filled,
            lead,
        }
    }

    /// The cards between turns (before this turn's box).
    pub fn start(&self) -> Result<Start, TwoPlayerAdviceError> {
        let own = self.position.card.state().filled;
        let other = self.opponent;
        let (o, t) = (own.count_ones(), other.count_ones());
        if o != t && o + 1 != t {
            return Err(TwoPlayerAdviceError::Cards {
                own: o,
                opponent: t,
            });
        }
        let start = if o == t {
            Start {
                first: own,
                second: other,
            }
        } else {
            Start {
                first: other,
                second: own,
            }
        };
        start.ply(&self.position.card.rules())?;
        Ok(start)
    }

    /// True when you are the first player.
    pub fn is_first(&self) -> bool {
        self.position.card.state().filled.count_ones() == self.opponent.count_ones()
    }
}

/// Errors of two-player advice.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TwoPlayerAdviceError {
    /// The two cards cannot be in a game of two (see [`TwoPlayerError`]).
    #[error(transparent)]
    Game(#[from] TwoPlayerError),
    /// The position is not valid, or a table is of other rules (see [`TargetError`]).
    #[error(transparent)]
    Priced(#[from] TargetError),
    /// The position's own card is full: the game is over, there is nothing to advise.
    #[error("your card is full: the game is over")]
    Over,
    /// The table of the early plies cannot be read (see [`TableError`]).
    #[error(transparent)]
    Table(#[from] TableError),
    /// Your card and the opponent's cannot meet at your turn: between turns you have
    /// filled as many boxes as the opponent (you play first) or one fewer (you play second).
    #[error(
        "you have filled {own} boxes and the opponent {opponent}: at your turn you have filled as many boxes as the opponent (you play first) or one fewer (you play second)"
    )]
    Cards {
        /// Boxes you have filled.
        own: u32,
        /// Boxes the opponent has filled.
        opponent: u32,
    },
}

/// One option of a two-player position.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TwoPlayerOption {
    /// What the option does (`kind` and its fields in JSON).
    #[serde(flatten)]
    pub action: Action,
    /// Your chance of winning plus half the chance of a tie after this option, both
    /// players playing to win from there.
    pub value: f64,
    /// How much smaller that is than the best option's.
    pub loss: f64,
    /// Your expected final score after this option under expected-score play.
    pub expected_final: f64,
    /// How much smaller that is than the best expected final score of the position.
    pub expected_loss: f64,
}

/// The answer for one two-player position.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TwoPlayerAdvice {
    /// The rules (serialized as `rules` and `upper_first`).
    #[serde(flatten)]
    pub rules: Rules,
    /// `first` or `second`: which player you are.
    pub you_are: &'static str,
    /// Your points less the opponent's.
    pub lead: i64,
    /// The dice, ascending.
    pub dice: Vec<u8>,
    /// Rolls left.
    pub rolls_left: u8,
    /// Your chance of winning plus half the chance of a tie, with the best option.
    pub value: f64,
    /// Every legal option, best first.
    pub options: Vec<TwoPlayerOption>,
}

/// The prices of a two-player position: the next ply's vectors after your turn.
struct PlyPrices<'a> {
    rules: Rules,
    scores: ScoreTable,
    ply: &'a Ply<f32>,
    opponent: BoxMask,
}

impl OptionPrices for PlyPrices<'_> {
    fn rules(&self) -> &Rules {
        &self.rules
    }

    fn after_box(
        &self,
        state: &State,
        index: usize,
        points: u32,
        five_of_a_kind: bool,
        x: i64,
    ) -> Result<f64, TableError> {
        let s = RowSpec::new(&self.rules, state, index, points, five_of_a_kind);
        Ok(self
            .ply
            .after(self.opponent, s.next.filled, x + s.gain())
            .expect("the next ply holds every successor"))
    }

    fn turn_at(
        &self,
        state: &State,
        x: i64,
        last: Layer,
        visit: &mut dyn FnMut(Layer, &[f64]),
    ) -> Result<(), TableError> {
        let mut plan = Plan::<f64>::new();
        let mut keeps = KeepArray::<f64>::new(1);
        let specs = lay_out(&mut plan, &self.rules, &self.scores, state);
        plan.restart_rows(1, specs.len());
        for s in &specs {
            let v = self
                .ply
                .after(self.opponent, s.next.filled, x + s.gain())
                .expect("the next ply holds every successor");
            plan.push_row(std::iter::once(v));
        }
        turn(
            Simd::BASELINE,
            1,
            &mut keeps,
            &plan,
            &self.scores,
            0,
            last,
            visit,
        );
        Ok(())
    }
}

/// True when advice at `at` reads the table of the early plies (the ply after its turn is
/// stored there), false when it solves the rest of its game.
pub fn reads_early_table(at: &TwoPlayerPosition) -> bool {
    let turns = at.position.card.state().filled.count_ones() + at.opponent.count_ones();
    (turns as usize) < EARLY_PLIES
}

/// Ranks every option of `at` by the exact chance of winning (plus half a tie) when both
/// players play to win, from the next ply's vectors `next` (of the game from `at`'s cards:
/// [`next_ply`]); `ev` prices each option on average too and breaks ties (within 1e-9: the
/// higher expected final score, then the fewest dice kept, the box first on the card).
pub fn advise_two_player(
    ev: &StrategyTable,
    next: &Ply<f32>,
    at: &TwoPlayerPosition,
) -> Result<TwoPlayerAdvice, TwoPlayerAdviceError> {
    let rules = *ev.rules();
    at.start()?;
    let prices = PlyPrices {
        rules,
        scores: score_table(&rules),
        ply: next,
        opponent: at.opponent,
    };
    let (advice, priced) = price_options(ev, &prices, &at.position, at.lead)?;
    let best = priced.first().map_or(0.0, |o| o.value);
    let best_ev = advice.options.first().map_or(0.0, |o| o.expected_final());
    Ok(TwoPlayerAdvice {
        rules,
        you_are: if at.is_first() { "first" } else { "second" },
        lead: at.lead,
        dice: at.position.dice.faces(),
        rolls_left: at.position.rolls_left,
        value: best,
        options: priced
            .into_iter()
            .map(|o| TwoPlayerOption {
                action: o.action,
                value: o.value,
                loss: best - o.value,
                expected_final: o.expected_final,
                expected_loss: best_ev - o.expected_final,
            })
            .collect(),
    })
}

/// Checks `at` before any table is read or anything solved: the position (as `advise`
/// checks it, with the expected-score table `ev`) and the two cards together.
pub fn check_position(
    ev: &StrategyTable,
    at: &TwoPlayerPosition,
) -> Result<(), TwoPlayerAdviceError> {
    check_rules(ev.rules())?;
    advise(ev, &at.position).map_err(TargetError::from)?;
    at.start()?;
    Ok(())
}

/// The advice of `advise --two-player` at `at` (checked with [`check_position`]): the ply
/// after the turn from the table of the early plies `early` (give it when
/// [`reads_early_table`]), else solved for the rest of the game (`progress(done, total)`
/// counts its pairs), then [`advise_two_player`]. What the command line and a batch line
/// answer alike.
pub fn advise_at(
    ev: &StrategyTable,
    at: &TwoPlayerPosition,
    early: Option<&EarlyTable>,
    simd: Simd,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<TwoPlayerAdvice, TwoPlayerAdviceError> {
    let next = next_ply(*ev.rules(), at, early, simd, progress)?;
    advise_two_player(ev, &next, at)
}

/// The ply after `at`'s turn, solved for the game from `at`'s cards (both players
/// optimal): every pair the turn's boxes lead to, and all that follow them.
///
/// From the table of the early plies `early` when it holds that ply (one mover card read:
/// the opponent's), else solved.
pub fn next_ply(
    rules: Rules,
    at: &TwoPlayerPosition,
    early: Option<&EarlyTable>,
    simd: Simd,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Ply<f32>, TwoPlayerAdviceError> {
    let start = at.start()?;
    let ply = start.ply(&rules)?;
    if ply >= 2 * rules.box_count() || at.position.card.state().filled == rules.full_mask() {
        return Err(TwoPlayerAdviceError::Over);
    }
    if let Some(early) = early
        && let Some(next) = early.mover_ply(ply + 1, at.opponent)?
    {
        return Ok(next);
    }
    let game = Game::optimal(rules)?;
    let solution = solve::<f32>(&game, start, &|p| p == ply + 1, simd, progress)?;
    Ok(solution
        .into_plies()
        .swap_remove(ply + 1)
        .expect("the next ply is kept"))
}

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
            return Err(TableError::WrongRules {
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
    /// `play::host`); the rest of the game solved so far is kept.
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

    /// The dice kept from `dice` with `rolls_left` (1 to the game's rolls less one) rolls
    /// left; all the dice: stop.
    pub fn best_keep(&self, rolls_left: u8, dice: &Dice) -> Keep {
        match self.best(dice, rolls_left) {
            Action::Keep { keep, .. } => keep,
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
                let index = rules.box_by_name(category).expect("a box of the rules");
                let state = self.card.state();
                let bonuses =
                    state.bonuses_for(&rules, index, points, dice.five_of_a_kind().is_some());
                (index, points, bonuses)
            }
            other => unreachable!("with no roll left every option fills a box, not {other:?}"),
        }
    }
}
