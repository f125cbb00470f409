//! The price of a decision: what the choice made is worth under an objective, against the
//! best choice of the same position. One home for the coach of `yahtzee play`, the hints and
//! the coach of the page, and `yahtzee review`, so that they agree to the last bit with
//! `yahtzee advise` on the same position: in expected points ([`evaluate`]), in chance of
//! reaching a target ([`evaluate_target`]), in chance of winning against the other players'
//! cards ([`WinPricing`]) or by the exact game of two ([`TwoPlayerPricing`]); [`Pricer`]
//! prices under any of them ([`Pricing`]).

use crate::game::choice::Choice;
use crate::game::rules::Rules;
use crate::game::state::ScoreCard;
use crate::game::ties::TIE;
use crate::policy::Answer;
use crate::policy::expected::{Action, AdviceError, AdviceOption, Position, advise};
use crate::policy::target::{TargetError, advise_target};
use crate::policy::two_player::NextPlies;
use crate::policy::two_player::TwoPlayerAdvice;
use crate::policy::two_player::TwoPlayerAdviceError;
use crate::policy::two_player::TwoPlayerTurn;
use crate::policy::win::{
    FinalScores, Opponent, WinAdvice, WinError, advise_against, opponents_at_table, solve_against,
};
use crate::solve::simd::Simd;
use crate::tables::expected::StrategyTable;
use crate::tables::saved::SavedTable;
use crate::tables::two_player::EarlyTable;
use crate::tables::vector::VectorTable;

/// One decision of a player: the position before it and the choice made.
#[derive(Clone, Debug)]
pub struct Decision {
    /// The seat that decided.
    pub seat: usize,
    /// That player's turn number, from 1.
    pub turn: u32,
    /// Card, dice and rolls left before the choice (0 rolls left when scoring, but under
    /// saved rolls the re-rolls left that the box saves).
    pub position: Position,
    /// Under saved rolls, the rolls the player had saved before this turn (the turn's
    /// re-rolls are the game's and these); `None` in other games.
    pub saved: Option<u8>,
    /// Every seat's card at the moment of the choice, in seat order (the player's is
    /// `position.card`): what a player sees of the others, for pricing in win probability.
    pub cards: Vec<ScoreCard>,
    /// The choice: a stop is two decisions, the keep of all five dice (with rolls left),
    /// then the box (with 0 rolls left), as the record has them.
    pub choice: Choice,
}

/// The price of one decision against optimal play: in expected points ([`evaluate`]), in
/// chance of reaching a target ([`evaluate_target`]), or in chance of winning
/// ([`WinPricing::evaluate`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// The choice made, in words (`keep 3 3`, `stop and score full-house`, `score full-house for 25`).
    pub chosen: String,
    /// The best choice, in the same words.
    pub best: String,
    /// Expected final score after the choice made, under optimal play from then on (for a
    /// target: the best chance of reaching it after the choice; to win: the best chance of
    /// winning after it).
    pub chosen_value: f64,
    /// Expected final score after the best choice (for a target or to win: its chance).
    pub best_value: f64,
    /// `best_value - chosen_value`; 0 for a choice tied with the best (within [`TIE`]).
    pub loss: f64,
}

/// Describes an option of [`advise`] in words: its [`Display`](std::fmt::Display) form.
pub fn describe_option(option: &AdviceOption) -> String {
    option.to_string()
}

/// True when `action`, an option of a position, is the choice `choice`.
fn is_choice(rules: &Rules, action: &Action, choice: Choice) -> bool {
    match (action, choice) {
        (Action::Keep { keep, .. }, Choice::Keep(k)) => *keep == k,
        (Action::Score { category, .. }, Choice::Score(i)) => *category == rules.boxes()[i].name(),
        _ => false,
    }
}

/// The evaluation of the option `chosen` against `best`, as `(action, value, loss)`: a
/// stop is priced with the best box for its dice (which box was then filled is the next
/// decision), so it is named `stop rolling`; a loss within [`TIE`] of the best is a tie and
/// costs 0.
fn evaluation(chosen: (&Action, f64, f64), best: (&Action, f64)) -> Evaluation {
    let (action, chosen_value, loss) = chosen;
    let chosen_words = match action {
        Action::Keep {
            stop_and_score: Some(_),
            ..
        } => "stop rolling".to_string(),
        a => a.to_string(),
    };
    Evaluation {
        chosen: chosen_words,
        best: best.0.to_string(),
        chosen_value,
        best_value: best.1,
        loss: if loss <= TIE { 0.0 } else { loss },
    }
}

/// The option of `options` that is the choice of `decision`.
fn chosen<'o, T>(
    rules: &Rules,
    options: &'o [T],
    action: impl Fn(&T) -> &Action,
    decision: &Decision,
) -> &'o T {
    options
        .iter()
        .find(|o| is_choice(rules, action(o), decision.choice))
        .expect("a legal decision is one of the options of its position")
}

/// Prices `decision` with [`advise`] on the same position: the loss of the option chosen.
pub fn evaluate(table: &StrategyTable, decision: &Decision) -> Result<Evaluation, AdviceError> {
    let advice = advise(table, &decision.position)?;
    let chosen = chosen(table.rules(), &advice.options, |o| &o.action, decision);
    let best = &advice.options[0];
    Ok(evaluation(
        (&chosen.action, chosen.expected_final(), chosen.loss()),
        (&best.action, best.expected_final()),
    ))
}

/// Prices `decision` of a game of saved rolls with [`crate::policy::saved::advise`] on the
/// same position (its re-rolls left, which a box filled now saves): the loss of the option
/// chosen against the best of [`crate::policy::saved::SavedTurn::options`], so that saving
/// ("score chance for 24, keep 3 rolls") is priced against spending (a keep and a re-roll).
/// `table` holds the rows of the position's card.
pub fn evaluate_saved(table: &SavedTable, decision: &Decision) -> Result<Evaluation, AdviceError> {
    let advice = crate::policy::saved::advise(table, &decision.position)?;
    let chosen = chosen(table.rules(), &advice.options, |o| &o.action, decision);
    let best = &advice.options[0];
    Ok(evaluation(
        (&chosen.action, chosen.expected_final(), chosen.loss()),
        (&best.action, best.expected_final()),
    ))
}

/// Prices `decision` in chance of a final score of at least `target`, with
/// [`advise_target`] on the same position: the chance after the option chosen against the
/// best option's (`chosen_value`, `best_value`, `loss` are chances). A choice within
/// [`TIE`] of the best chance is a tie and costs 0, so a target bot's decisions for the same
/// target cost 0.
pub fn evaluate_target(
    table: &StrategyTable,
    targets: &VectorTable<f32>,
    decision: &Decision,
    target: u32,
) -> Result<Evaluation, TargetError> {
    let advice = advise_target(table, targets, &decision.position, target)?;
    let chosen = chosen(table.rules(), &advice.options, |o| &o.action, decision);
    let best = &advice.options[0];
    Ok(evaluation(
        (&chosen.action, chosen.p_reach, chosen.loss),
        (&best.action, best.p_reach),
    ))
}

/// Prices positions and decisions in chance of winning against the other players at the
/// table, as `yahtzee advise --opponent` does ([`crate::policy::win::advise_win`]): each other player is an
/// opponent from their card at the moment of the decision (finished with their total once
/// their card is full), playing for the highest average ([`crate::policy::win::MODEL`]). The best
/// response of the last position priced is kept, so that the decisions of one turn (the same
/// card against the same opponents) are priced with one solve. What the coach, the hints and
/// the review price with, so that they agree to the last bit.
pub struct WinPricing<'a> {
    ev: &'a StrategyTable,
    distribution: &'a VectorTable<f32>,
    simd: Simd,
    /// Told of the cards of each solve as it goes (`done`, `total`).
    progress: &'a (dyn Fn(u64, u64) + Sync),
    /// The last solve.
    solved: Option<Solved>,
}

/// A best response solved by [`WinPricing`]: the player's card and opponents, the opponents'
/// final scores and the best response to them.
struct Solved {
    card: ScoreCard,
    opponents: Vec<Opponent>,
    scores: Vec<FinalScores>,
    table: VectorTable<f32>,
}

impl<'a> WinPricing<'a> {
    /// Prices with the expected-score table `ev` and the distribution table `distribution`
    /// of the game's rules.
    pub fn new(ev: &'a StrategyTable, distribution: &'a VectorTable<f32>) -> WinPricing<'a> {
        WinPricing {
            ev,
            distribution,
            simd: Simd::detect(),
            progress: &|_, _| {},
            solved: None,
        }
    }

    /// The advice of `advise --opponent` for the player of `seat` at `position`, every seat's
    /// card being `cards` (in seat order).
    pub fn advise(
        &mut self,
        seat: usize,
        position: &Position,
        cards: &[ScoreCard],
    ) -> Result<WinAdvice, WinError> {
        let opponents = opponents_at_table(seat, cards);
        let fresh = self
            .solved
            .as_ref()
            .is_none_or(|s| s.card != position.card || s.opponents != opponents);
        if fresh {
            let (scores, table) = solve_against(
                self.ev,
                Some(self.distribution),
                position,
                &opponents,
                self.simd,
                self.progress,
            )?;
            self.solved = Some(Solved {
                card: position.card.clone(),
                opponents,
                scores,
                table,
            });
        }
        let s = self.solved.as_ref().expect("solved above");
        advise_against(self.ev, &s.table, position, &s.opponents, &s.scores)
    }

    /// Prices `decision` in chance of winning: the chance after the option chosen against the
    /// best option's (`chosen_value`, `best_value`, `loss` are chances). A choice within
    /// [`TIE`] of the best is a tie and costs 0, so a `win-exact` bot's decisions cost 0.
    pub fn evaluate(&mut self, decision: &Decision) -> Result<Evaluation, WinError> {
        let advice = self.advise(decision.seat, &decision.position, &decision.cards)?;
        let chosen = chosen(self.ev.rules(), &advice.options, |o| &o.action, decision);
        let best = &advice.options[0];
        Ok(evaluation(
            (&chosen.action, chosen.p_win, chosen.loss),
            (&best.action, best.p_win),
        ))
    }
}

/// Prices positions and decisions by the exact chance of winning a game of two (plus half a
/// tie), both players playing to win from there, as `yahtzee advise --two-player` does
/// ([`crate::solve::two_player::advise_two_player`]): the player's card against the other player's
/// at the moment of the decision, the lead the difference of their points. The plies come
/// from the table of the early plies, then from the rest of the game solved once
/// ([`NextPlies`]), and the last turn's ply is kept, so that the decisions of one turn are
/// priced from one read. One per game: what the review of a record of two prices with.
pub struct TwoPlayerPricing<'a> {
    ev: &'a StrategyTable,
    plies: NextPlies<'a>,
    /// The last turn priced: the player's card, the other card, and the turn.
    last: Option<(ScoreCard, ScoreCard, TwoPlayerTurn<'a>)>,
}

impl<'a> TwoPlayerPricing<'a> {
    /// Prices with the expected-score table `ev` and the table of the early plies `early` of
    /// the game's rules.
    pub fn new(
        ev: &'a StrategyTable,
        early: &'a EarlyTable,
    ) -> Result<TwoPlayerPricing<'a>, TwoPlayerAdviceError> {
        Ok(TwoPlayerPricing {
            ev,
            plies: NextPlies::new(*ev.rules(), Some(early), Simd::detect())?,
            last: None,
        })
    }

    /// The advice of `advise --two-player` for the player of `seat` at `position`, the two
    /// seats' cards being `cards` (in seat order).
    pub fn advise(
        &mut self,
        seat: usize,
        position: &Position,
        cards: &[ScoreCard],
    ) -> Result<TwoPlayerAdvice, TwoPlayerAdviceError> {
        let other = &cards[1 - seat];
        let fresh = self
            .last
            .as_ref()
            .is_none_or(|(own, o, _)| *own != position.card || o != other);
        if fresh {
            let lead = i64::from(position.card.banked()) - i64::from(other.banked());
            let turn = TwoPlayerTurn::new(
                self.ev,
                &mut self.plies,
                &position.card,
                other.state().filled,
                lead,
            )?;
            self.last = Some((position.card.clone(), other.clone(), turn));
        }
        let (_, _, turn) = self.last.as_ref().expect("priced above");
        turn.advice(&position.dice, position.rolls_left)
    }

    /// Prices `decision` by the chance of winning a game of two: the value after the option
    /// chosen against the best option's (`chosen_value`, `best_value`, `loss` are chances).
    /// A choice within [`TIE`] of the best is a tie and costs 0, so a two-player bot's
    /// decisions cost 0.
    pub fn evaluate(&mut self, decision: &Decision) -> Result<Evaluation, TwoPlayerAdviceError> {
        let advice = self.advise(decision.seat, &decision.position, &decision.cards)?;
        let chosen = chosen(self.ev.rules(), &advice.options, |o| &o.action, decision);
        let best = &advice.options[0];
        Ok(evaluation(
            (&chosen.action, chosen.value, chosen.loss),
            (&best.action, best.value),
        ))
    }
}

/// What a review prices decisions in.
#[derive(Clone, Copy)]
pub enum Pricing<'a> {
    /// Expected points, against optimal play ([`evaluate`], `advise`).
    ExpectedScore,
    /// Chance of a final score of at least `target`, against the option best for it
    /// ([`evaluate_target`], `advise --target`), with the target table of the record's rules.
    Target {
        /// The target table.
        targets: &'a VectorTable<f32>,
        /// The target score.
        target: u32,
    },
    /// Chance of winning against the other players at the table, each from their card at
    /// the moment of the decision, against the option best for it ([`WinPricing`], `advise
    /// --opponent`), with the distribution table of the record's rules. For records of two
    /// players or more.
    Win {
        /// The distribution table.
        distribution: &'a VectorTable<f32>,
    },
    /// The exact chance of winning a game of two (plus half a tie), both players playing to
    /// win from there, against the option best for it ([`TwoPlayerPricing`], `advise
    /// --two-player`), with the table of the early plies of the record's rules. For records
    /// of two players of Yacht.
    TwoPlayer {
        /// The table of the early plies of the game of two.
        early: &'a EarlyTable,
    },
}

impl Pricing<'_> {
    /// The objective priced in, by its name (`expected-score`, `target`, `win`,
    /// `two-player`).
    pub fn objective(&self) -> &'static str {
        match self {
            Pricing::ExpectedScore => crate::tables::expected::EXPECTED_SCORE,
            Pricing::Target { .. } => crate::solve::vector::TARGET,
            Pricing::Win { .. } => crate::policy::win::WIN,
            Pricing::TwoPlayer { .. } => crate::tables::two_player::TWO_PLAYER,
        }
    }

    /// The target priced for, if any.
    pub fn target(&self) -> Option<u32> {
        match self {
            Pricing::Target { target, .. } => Some(*target),
            _ => None,
        }
    }
}

/// Why a decision cannot be priced: a table does not fit the game, or the position is not one
/// of the pricing's.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PricingError {
    /// In points or for a target (see [`TargetError`], which holds the position's errors).
    #[error(transparent)]
    Priced(#[from] TargetError),
    /// In chance of winning (see [`WinError`]).
    #[error(transparent)]
    Win(#[from] WinError),
    /// By the game of two (see [`TwoPlayerAdviceError`]).
    #[error(transparent)]
    TwoPlayer(#[from] TwoPlayerAdviceError),
}

impl From<AdviceError> for PricingError {
    fn from(e: AdviceError) -> PricingError {
        PricingError::Priced(e.into())
    }
}

/// Prices the decisions of one game under one [`Pricing`], with the expected-score table of
/// its rules: what the coach, the hints and the review call. It keeps what it solved for the
/// last decision (a best response, a ply of the game of two), so that the decisions of one
/// turn are priced with one solve.
pub struct Pricer<'a> {
    ev: &'a StrategyTable,
    pricing: Pricing<'a>,
    by: By<'a>,
}

/// What a [`Pricer`] keeps between decisions.
enum By<'a> {
    /// Nothing: the expected score and a target price each decision afresh.
    Advice,
    /// The last best response.
    Win(Box<WinPricing<'a>>),
    /// The plies of the game of two and the last turn.
    TwoPlayer(Box<TwoPlayerPricing<'a>>),
}

/// What a [`Pricer`] solved, apart from its tables: the last best response of the pricing to
/// win, the plies of the game of two. A holder that owns the tables and makes a pricer for each
/// call (a game host, `play::host`) keeps it between the calls
/// ([`Pricer::into_solves`], [`Pricer::resume`]), so that the decisions of one turn are still
/// priced with one solve.
#[derive(Default)]
pub struct Solves {
    /// The last best response solved to win.
    win: Option<Solved>,
    /// The plies of the game of two, put away without their table.
    plies: Option<NextPlies<'static>>,
}

impl<'a> Pricer<'a> {
    /// Prices with `ev`, the expected-score table of the game's rules, as `pricing` says.
    pub fn new(ev: &'a StrategyTable, pricing: Pricing<'a>) -> Result<Pricer<'a>, PricingError> {
        Pricer::resume(ev, pricing, Solves::default())
    }

    /// [`Pricer::new`] with what a pricer of the same game, tables and pricing solved before
    /// ([`Pricer::into_solves`]).
    pub fn resume(
        ev: &'a StrategyTable,
        pricing: Pricing<'a>,
        solves: Solves,
    ) -> Result<Pricer<'a>, PricingError> {
        let by = match pricing {
            Pricing::ExpectedScore | Pricing::Target { .. } => By::Advice,
            Pricing::Win { distribution } => By::Win(Box::new(WinPricing {
                solved: solves.win,
                ..WinPricing::new(ev, distribution)
            })),
            Pricing::TwoPlayer { early } => By::TwoPlayer(Box::new(match solves.plies {
                Some(plies) => TwoPlayerPricing {
                    ev,
                    plies: plies.with_early(Some(early)),
                    last: None,
                },
                None => TwoPlayerPricing::new(ev, early)?,
            })),
        };
        Ok(Pricer { ev, pricing, by })
    }

    /// This pricer, telling `progress(done, total)` of the cards of each best response it
    /// solves to win (from the solve's threads): what a front end that shows a long review's
    /// progress, or stops it, watches.
    pub fn with_solve_progress(mut self, progress: &'a (dyn Fn(u64, u64) + Sync)) -> Pricer<'a> {
        if let By::Win(win) = &mut self.by {
            win.progress = progress;
        }
        self
    }

    /// What the pricer solved, for a pricer of the same game made later ([`Pricer::resume`]).
    pub fn into_solves(self) -> Solves {
        match self.by {
            By::Advice => Solves::default(),
            By::Win(win) => Solves {
                win: win.solved,
                plies: None,
            },
            By::TwoPlayer(two) => Solves {
                win: None,
                plies: Some(two.plies.with_early(None)),
            },
        }
    }

    /// The options of `position`, the player of `seat`'s, ranked as the pricer prices them
    /// (every seat's card being `cards`, in seat order): what the hints show.
    pub fn advise(
        &mut self,
        seat: usize,
        position: &Position,
        cards: &[ScoreCard],
    ) -> Result<Answer, PricingError> {
        Ok(match (&mut self.by, self.pricing) {
            (By::Win(win), _) => Answer::Win(win.advise(seat, position, cards)?),
            (By::TwoPlayer(two), _) => Answer::TwoPlayer(two.advise(seat, position, cards)?),
            (By::Advice, Pricing::Target { targets, target }) => {
                Answer::Target(advise_target(self.ev, targets, position, target)?)
            }
            (By::Advice, _) => Answer::Advice(advise(self.ev, position)?),
        })
    }

    /// What the pricer prices in.
    pub fn pricing(&self) -> Pricing<'a> {
        self.pricing
    }

    /// Prices `decision`: the value of the choice made against the best choice's.
    pub fn evaluate(&mut self, decision: &Decision) -> Result<Evaluation, PricingError> {
        Ok(match (&mut self.by, self.pricing) {
            (By::Win(win), _) => win.evaluate(decision)?,
            (By::TwoPlayer(two), _) => two.evaluate(decision)?,
            (By::Advice, Pricing::Target { targets, target }) => {
                evaluate_target(self.ev, targets, decision, target)?
            }
            (By::Advice, _) => evaluate(self.ev, decision)?,
        })
    }
}
