//! Play to win: the best chance of beating the other players, from any position.
//!
//! The model: each opponent plays the expected-score-optimal policy from their position to
//! the end of the game, so their final score has an exact distribution, read from the
//! distribution table ([`crate::tables::vector`], objective `distribution`: the chance of
//! scoring at least `t` more from each state under that policy) shifted by their banked
//! points. The opponents do not react to the player: their play does not depend on the
//! player's score. The player's win probability under a strategy is then `E[u(final)]`, with
//! `u(x)` the chance that `x` beats every opponent plus the shares of ties (a tie of `k`
//! players for first counts `1/k`), and the best response maximises it: the target kernel
//! with another terminal vector, `W(full card, b) = u(b)` and `W(s, b) = max E[W(s', b +
//! p)]` over the points banked `b`. It is solved for the cards that follow the player's card
//! ([`crate::solve::vector::solve_from`]) at each query, since it depends on the opponents.
//!
//! Ties in win probability (within 1e-9) go to the higher expected final score, then to the
//! usual preference (the fewest dice kept, the box first on the card), as for a target.

use serde::Serialize;

use crate::game::rules::Rules;
use crate::game::state::{CardError, ScoreCard};
use crate::policy::expected::{Action, AdviceError, Position};
use crate::policy::target::{TargetError, price_options};
use crate::solve::simd::Simd;
use crate::solve::vector::{Direction, TAIL, VectorObjective, max_remaining, solve_from};
use crate::tables::TableError;
use crate::tables::expected::StrategyTable;
use crate::tables::vector::VectorTable;
use crate::text::excerpt;

/// The name of the win objective.
pub const WIN: &str = "win";

/// What the advice assumes of the opponents, said in its output.
pub const MODEL: &str = "each opponent plays for the highest average to the end of the game and does not react to your score; the win probability is exact under that assumption";

/// Errors of win advice.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WinError {
    /// The position is not valid (see [`AdviceError`]).
    #[error(transparent)]
    Advice(#[from] AdviceError),
    /// A table could not be read, or is of other rules (see [`TargetError`]).
    #[error(transparent)]
    Priced(#[from] TargetError),
    /// A card of the distribution table could not be read (see [`TableError`]).
    #[error(transparent)]
    Table(#[from] TableError),
    /// An opponent is still playing and no distribution table was given: give the
    /// distribution table of the rules.
    #[error(
        "an opponent is still playing: their final score needs the distribution table of the rules"
    )]
    NoDistribution,
    /// No opponent was given: give at least one opponent's card or final score.
    #[error("there is no opponent: give at least one opponent's card or final score")]
    NoOpponents,
    /// An opponent's card is of other rules than the player's: give cards of the same rules.
    #[error(
        "opponent {which}'s card is for {opponent} but the game is {game}: every card must be of the same rules"
    )]
    RulesMismatch {
        /// Which opponent, from 1.
        which: usize,
        /// The opponent's rules.
        opponent: String,
        /// The player's rules.
        game: String,
    },
}

/// An opponent: still playing from a card, or finished with a final score.
#[derive(Clone, Debug, PartialEq)]
pub enum Opponent {
    /// Still playing: their card (bonuses included); they play for the highest average.
    Playing(ScoreCard),
    /// Finished with this final score.
    Finished(u32),
}

/// The other players of a table as the opponents of `seat`, from every seat's card (in seat
/// order): finished with their total once their card is full, else still playing from it.
/// What a win seat of a match, a win bot of `yahtzee play`, its coach and the review see.
pub fn opponents_at_table(seat: usize, cards: &[ScoreCard]) -> Vec<Opponent> {
    cards
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != seat)
        .map(|(_, card)| {
            if card.is_full() {
                Opponent::Finished(card.banked())
            } else {
                Opponent::Playing(card.clone())
            }
        })
        .collect()
}

/// The name of the entry of an opponent's card that gives their Yahtzee bonuses
/// ([`parse_opponent`]).
pub const BONUS_ENTRY: &str = "yahtzee-bonus";

/// The opponent of a card checked like the player's: still playing from it, or, when every
/// box is filled, finished with its total (bonuses included): what `opponents_at_table` makes
/// of a card at a table.
pub fn opponent_of(card: Result<ScoreCard, CardError>) -> Result<Opponent, CardError> {
    match card {
        Ok(card) => Ok(Opponent::Playing(card)),
        Err(CardError::Full { total }) => Ok(Opponent::Finished(total)),
        Err(e) => Err(e),
    }
}

/// Parses an opponent's card: the card syntax (`ones=3,full-house=25`), plus an optional
/// entry `yahtzee-bonus=N` for the Yahtzee bonuses they have earned, checked like the
/// player's card; a full card is a finished opponent ([`opponent_of`]).
pub fn parse_opponent(rules: Rules, text: &str) -> Result<Opponent, CardError> {
    let mut boxes = Vec::new();
    let mut bonuses = 0;
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        match entry.split_once('=') {
            Some((name, n))
                if name.trim().eq_ignore_ascii_case(BONUS_ENTRY)
                    || name.trim().eq_ignore_ascii_case("yahtzee_bonus") =>
            {
                bonuses = n.trim().parse().map_err(|_| CardError::BonusCount {
                    entry: excerpt(entry),
                })?;
            }
            _ => boxes.push(entry),
        }
    }
    opponent_of(ScoreCard::parse(rules, &boxes.join(","), bonuses))
}

/// The distribution of a final score: `pmf[i]` is the chance of `lo + i` points.
#[derive(Clone, Debug, PartialEq)]
pub struct FinalScores {
    /// The lowest score of `pmf`.
    pub lo: u32,
    /// The chance of each score from `lo` on.
    pub pmf: Vec<f64>,
}

impl FinalScores {
    /// A final score known for sure.
    pub fn point(score: u32) -> FinalScores {
        FinalScores {
            lo: score,
            pmf: vec![1.0],
        }
    }

    /// The distribution of the final score of `card` under expected-score play, from the
    /// distribution table of its rules.
    pub fn of_card(
        distribution: &VectorTable<f32>,
        card: &ScoreCard,
    ) -> Result<FinalScores, TableError> {
        let mut scores = FinalScores::of_state(distribution, &card.rules(), &card.state())?;
        scores.lo += card.banked();
        Ok(scores)
    }

    /// The distribution of the points scored from `state` on under expected-score play
    /// (`lo` counts from 0: no points banked).
    pub fn of_state(
        distribution: &VectorTable<f32>,
        rules: &Rules,
        state: &crate::game::state::State,
    ) -> Result<FinalScores, TableError> {
        let most = i64::from(max_remaining(rules, state));
        let at_least =
            |t: i64| -> Result<f64, TableError> { Ok(f64::from(distribution.value(state, t)?)) };
        let mut pmf = Vec::with_capacity(most as usize + 1);
        let mut above = at_least(0)?;
        for t in 0..=most {
            let next = at_least(t + 1)?;
            pmf.push((above - next).max(0.0));
            above = next;
        }
        // Leading scores that cannot happen are left out.
        let first = pmf.iter().position(|&p| p > 0.0).unwrap_or(0);
        Ok(FinalScores {
            lo: first as u32,
            pmf: pmf.split_off(first),
        })
    }

    /// The distribution of the final score from `position` (mid-turn: dice showing, rolls
    /// left) when every choice from there on is the expected-score policy's (ties as
    /// documented), from the expected-score and distribution tables of its rules.
    pub fn of_position(
        ev: &StrategyTable,
        distribution: &VectorTable<f32>,
        position: &Position,
    ) -> Result<FinalScores, WinError> {
        use crate::game::dice::{ALL_MULTISETS, Dice};
        crate::policy::expected::advise(ev, position)?;
        let card = &position.card;
        let rules = card.rules();
        let state = card.state();
        let banked = card.banked();
        let turn = crate::solve::expected::TurnValues::new(ev, &state);
        // With no roll left: the expected-score box, then the distribution after it.
        let after_box = |dice: &Dice| -> Result<Histogram, WinError> {
            let c = crate::policy::expected::best_box_for(ev, &state, dice)
                .expect("an open card has a legal box");
            let next = state.after(&rules, c.index, c.points);
            let mut after = FinalScores::of_state(distribution, &rules, &next)?;
            after.lo += banked + c.points + c.bonus;
            Ok(Histogram::from(after))
        };
        // The rest of the turn from each roll with each number of rolls left, once per roll.
        let mut known = vec![vec![None; ALL_MULTISETS]; usize::from(position.rolls_left) + 1];
        let h = rest_of_turn(
            &turn,
            &position.dice,
            position.rolls_left,
            &after_box,
            &mut known,
        )?;
        Ok(h.into())
    }

    /// The highest score of `pmf`.
    pub fn hi(&self) -> u32 {
        self.lo + self.pmf.len() as u32 - 1
    }

    /// The chance of a score below `x`.
    pub fn below(&self, x: i64) -> f64 {
        let n = (x - i64::from(self.lo)).clamp(0, self.pmf.len() as i64) as usize;
        self.pmf[..n].iter().sum()
    }

    /// The chance of exactly `x`.
    pub fn at(&self, x: i64) -> f64 {
        usize::try_from(x - i64::from(self.lo))
            .ok()
            .and_then(|i| self.pmf.get(i))
            .copied()
            .unwrap_or(0.0)
    }

    /// The mean score.
    pub fn mean(&self) -> f64 {
        let total: f64 = self.pmf.iter().sum();
        self.pmf
            .iter()
            .enumerate()
            .map(|(i, p)| p * (f64::from(self.lo) + i as f64))
            .sum::<f64>()
            / total
    }

    /// The smallest score with a chance of at least `q` of being at or below it.
    pub fn percentile(&self, q: f64) -> u32 {
        let total: f64 = self.pmf.iter().sum();
        let mut sum = 0.0;
        for (i, p) in self.pmf.iter().enumerate() {
            sum += p;
            if sum >= q * total - 1e-12 {
                return self.lo + i as u32;
            }
        }
        self.hi()
    }
}

/// The distribution of the final score from `dice` with `rolls_left`, when the rest of the
/// turn is the expected-score policy's (`turn`) and `after_box` gives it after the box of a
/// roll with no roll left: each keep's rolls mixed by their chances. `known[n][roll]` holds
/// what each roll with `n` rolls left gave, so each is worked out once.
fn rest_of_turn(
    turn: &crate::solve::expected::TurnValues,
    dice: &crate::game::dice::Dice,
    rolls_left: u8,
    after_box: &dyn Fn(&crate::game::dice::Dice) -> Result<Histogram, WinError>,
    known: &mut [Vec<Option<Histogram>>],
) -> Result<Histogram, WinError> {
    let n = usize::from(rolls_left);
    if let Some(h) = &known[n][dice.index()] {
        return Ok(h.clone());
    }
    let h = if rolls_left == 0 {
        after_box(dice)?
    } else {
        let (keep, _) = turn.best_keep(rolls_left, dice);
        if keep.len() == dice.len() {
            // Stopping with rolls left: the policy stops again with one fewer (keeping all
            // the dice is never preferred unless it beats every re-roll).
            rest_of_turn(turn, dice, rolls_left - 1, after_box, known)?
        } else {
            let lattice = crate::game::dice::Lattice::get();
            let space = turn.dice;
            let mut h = Histogram::default();
            for d in space.all_rolls().filter(|d| keep.is_within(d)) {
                let p = lattice.outcome_probability(keep.index(), d.index());
                h.add_scaled(
                    p,
                    &rest_of_turn(turn, &d, rolls_left - 1, after_box, known)?,
                );
            }
            h
        }
    };
    known[n][dice.index()] = Some(h.clone());
    Ok(h)
}

/// A distribution being summed: `p[i]` is the mass of `lo + i`.
#[derive(Clone, Debug, Default)]
struct Histogram {
    lo: u32,
    p: Vec<f64>,
}

impl Histogram {
    /// `self += w * other`.
    fn add_scaled(&mut self, w: f64, other: &Histogram) {
        if other.p.is_empty() || w == 0.0 {
            return;
        }
        if self.p.is_empty() {
            self.lo = other.lo;
        }
        let lo = self.lo.min(other.lo);
        let hi = (self.lo as usize + self.p.len()).max(other.lo as usize + other.p.len());
        if lo < self.lo {
            let mut p = vec![0.0; (self.lo - lo) as usize];
            p.append(&mut self.p);
            self.p = p;
            self.lo = lo;
        }
        self.p.resize(hi - lo as usize, 0.0);
        let at = (other.lo - lo) as usize;
        for (x, y) in self.p[at..].iter_mut().zip(&other.p) {
            *x += w * y;
        }
    }
}

impl From<FinalScores> for Histogram {
    fn from(f: FinalScores) -> Histogram {
        Histogram { lo: f.lo, p: f.pmf }
    }
}

impl From<Histogram> for FinalScores {
    fn from(h: Histogram) -> FinalScores {
        FinalScores { lo: h.lo, pmf: h.p }
    }
}

/// `u(x)` for the final scores `x` from `lo` on, as `(lo, values)`: the chance that `x`
/// beats every opponent plus the shares of ties (`1/k` for a tie of `k` players for first).
/// Below `lo` it is 0 (every opponent scores more for sure) and past the values 1 (no
/// opponent reaches `x`).
pub fn utility(opponents: &[FinalScores]) -> (i32, Vec<f64>) {
    let lo = opponents.iter().map(|o| o.lo).min().unwrap_or(0);
    let hi = opponents.iter().map(FinalScores::hi).max().unwrap_or(0);
    // Each opponent's chance of a score below `x`, kept as `x` grows: the sum of its pmf
    // below `x` from its first score up, as `FinalScores::below` adds it.
    let mut below = vec![0.0f64; opponents.len()];
    let mut ties: Vec<f64> = Vec::with_capacity(opponents.len() + 1);
    let mut next: Vec<f64> = Vec::with_capacity(opponents.len() + 1);
    let values = (lo..=hi)
        .map(|x| {
            let x = i64::from(x);
            // The chance that exactly `k` opponents tie at `x` and the others score less:
            // the coefficients of the product over opponents of (below + at * z).
            ties.clear();
            ties.push(1.0);
            for (o, below) in opponents.iter().zip(&mut below) {
                let at = o.at(x);
                next.clear();
                next.resize(ties.len() + 1, 0.0);
                for (k, c) in ties.iter().enumerate() {
                    next[k] += c * *below;
                    next[k + 1] += c * at;
                }
                std::mem::swap(&mut ties, &mut next);
                *below += at;
            }
            ties.iter()
                .enumerate()
                .map(|(k, c)| c / (k as f64 + 1.0))
                .sum()
        })
        .collect();
    (lo as i32, values)
}

impl<T: crate::solve::kernel::Real> VectorObjective<T> {
    /// The win objective against opponents whose final scores have the distributions
    /// `opponents`: for every state and every number of points banked `b`, the best chance
    /// of winning from there ([`utility`] at the end of the game).
    pub fn win(rules: Rules, opponents: &[FinalScores]) -> VectorObjective<T> {
        let (lo, u) = utility(opponents);
        VectorObjective {
            rules,
            direction: Direction::Banked,
            below: T::ZERO,
            above: T::ONE,
            terminal: (lo, u.into_iter().map(T::from_f64).collect()),
            tail: TAIL,
            name: WIN,
            policy: None,
        }
    }
}

/// The best response of the player of `card` to the opponents: the win table of every card
/// that follows the player's card.
pub fn best_response(card: &ScoreCard, opponents: &[FinalScores], simd: Simd) -> VectorTable<f32> {
    best_response_with(card, opponents, simd, &|_, _| {})
}

/// [`best_response`], reporting its progress in cards (called as each card starts, from the
/// solve's threads): what a front end that may stop the work (its client gone) watches.
pub fn best_response_with(
    card: &ScoreCard,
    opponents: &[FinalScores],
    simd: Simd,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> VectorTable<f32> {
    let objective = VectorObjective::<f32>::win(card.rules(), opponents);
    VectorTable::from(solve_from(&objective, card.state().filled, simd, progress))
}

/// True when some opponent is still playing: their final score needs the distribution
/// table.
pub fn needs_distribution(opponents: &[Opponent]) -> bool {
    opponents.iter().any(|o| matches!(o, Opponent::Playing(_)))
}

/// The final-score distributions of `opponents` (checked against the player's rules); the
/// distribution table is needed only for opponents still playing
/// ([`needs_distribution`]).
pub fn opponent_scores(
    rules: &Rules,
    distribution: Option<&VectorTable<f32>>,
    opponents: &[Opponent],
) -> Result<Vec<FinalScores>, WinError> {
    if opponents.is_empty() {
        return Err(WinError::NoOpponents);
    }
    opponents
        .iter()
        .enumerate()
        .map(|(i, o)| match o {
            Opponent::Finished(score) => Ok(FinalScores::point(*score)),
            Opponent::Playing(card) => {
                if card.rules() != *rules {
                    return Err(WinError::RulesMismatch {
                        which: i + 1,
                        opponent: card.rules().label(),
                        game: rules.label(),
                    });
                }
                let table = distribution.ok_or(WinError::NoDistribution)?;
                Ok(FinalScores::of_card(table, card)?)
            }
        })
        .collect()
}

/// One option of a position, priced in win probability.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WinOption {
    /// What the option does (`kind` and its fields in JSON).
    #[serde(flatten)]
    pub action: Action,
    /// The best chance of winning after this option.
    pub p_win: f64,
    /// How much smaller that chance is than the best option's.
    pub loss: f64,
    /// The expected final score after this option under expected-score play.
    pub expected_final: f64,
    /// How much smaller that is than the best expected final score of the position.
    pub expected_loss: f64,
}

/// An opponent as the advice sees it: their final score's distribution, summarised.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpponentSummary {
    /// The final score, for an opponent who has finished.
    pub finished: Option<u32>,
    /// Mean final score.
    pub mean: f64,
    /// Lowest and highest final scores with a chance.
    pub min: u32,
    /// See `min`.
    pub max: u32,
    /// The 10th, 25th, 50th, 75th and 90th percentiles of the final score.
    pub percentiles: [u32; 5],
}

impl OpponentSummary {
    fn of(opponent: &Opponent, scores: &FinalScores) -> OpponentSummary {
        OpponentSummary {
            finished: match opponent {
                Opponent::Finished(s) => Some(*s),
                Opponent::Playing(_) => None,
            },
            mean: scores.mean(),
            min: scores.lo,
            max: scores.hi(),
            percentiles: [0.1, 0.25, 0.5, 0.75, 0.9].map(|q| scores.percentile(q)),
        }
    }
}

/// The answer for one position against opponents.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WinAdvice {
    /// The rules (serialized as `rules` and `upper_first`).
    #[serde(flatten)]
    pub rules: Rules,
    /// Points already on the card, bonuses included.
    pub banked: u32,
    /// The dice, ascending.
    pub dice: Vec<u8>,
    /// Rolls left.
    pub rolls_left: u8,
    /// The best chance of winning from this position.
    pub p_win: f64,
    /// What the win probabilities assume of the opponents ([`MODEL`]).
    pub model: &'static str,
    /// The opponents, in the order given.
    pub opponents: Vec<OpponentSummary>,
    /// Every legal option, best first.
    pub options: Vec<WinOption>,
}

/// Advises on `position` to beat `opponents`, with the expected-score table `ev` and the
/// distribution table `distribution` of the position's rules (needed only for opponents still
/// playing, see [`needs_distribution`]). `progress(done, total)` counts the cards of the
/// solve of the best response, called as each starts from the solve's threads (what
/// [`crate::policy::advise`] stops the solve from, [`crate::cancel::Cancel::until`]).
pub fn advise_win(
    ev: &StrategyTable,
    distribution: Option<&VectorTable<f32>>,
    position: &Position,
    opponents: &[Opponent],
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<WinAdvice, WinError> {
    let (scores, table) = solve_against(
        ev,
        distribution,
        position,
        opponents,
        Simd::detect(),
        progress,
    )?;
    advise_against(ev, &table, position, opponents, &scores)
}

/// The opponents' final-score distributions and the best response to them of the player of
/// `position` (checked first): what [`advise_win`] solves before pricing the options with
/// [`advise_against`], for callers that price several positions of one turn with one solve.
/// `progress(done, total)` counts the cards of the solve ([`best_response_with`]).
pub fn solve_against(
    ev: &StrategyTable,
    distribution: Option<&VectorTable<f32>>,
    position: &Position,
    opponents: &[Opponent],
    simd: Simd,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(Vec<FinalScores>, VectorTable<f32>), WinError> {
    let scores = opponent_scores(ev.rules(), distribution, opponents)?;
    // Checks the position before the solve.
    crate::policy::expected::advise(ev, position)?;
    let table = best_response_with(&position.card, &scores, simd, progress);
    Ok((scores, table))
}

/// [`advise_win`] with the best response `table` already solved against `scores`.
pub fn advise_against(
    ev: &StrategyTable,
    table: &VectorTable<f32>,
    position: &Position,
    opponents: &[Opponent],
    scores: &[FinalScores],
) -> Result<WinAdvice, WinError> {
    let banked = position.card.banked();
    let (advice, priced) = price_options(ev, table, position, i64::from(banked))?;
    let best_p = priced.first().map_or(0.0, |o| o.value);
    let best_ev = advice.options.first().map_or(0.0, |o| o.expected_final);
    Ok(WinAdvice {
        rules: *ev.rules(),
        banked,
        dice: position.dice.faces(),
        rolls_left: position.rolls_left,
        p_win: best_p,
        model: MODEL,
        opponents: opponents
            .iter()
            .zip(scores)
            .map(|(o, s)| OpponentSummary::of(o, s))
            .collect(),
        options: priced
            .into_iter()
            .map(|o| WinOption {
                action: o.action,
                p_win: o.value,
                loss: best_p - o.value,
                expected_final: o.expected_final,
                expected_loss: best_ev - o.expected_final,
            })
            .collect(),
    })
}

/// The fast policy of the win bot, for one turn: instead of the exact best response (a
/// solve of every card after the player's at each turn), each choice maximises
/// `sum over T of (u(T) - u(T - 1)) * P*(final >= T after the choice)`, each chance the best
/// for its own target `T` (the target table). With a fixed strategy that sum is exactly
/// `E[u(final)]`; with a target-best chance for each `T` it is an upper bound that supposes
/// the rest of the game could be played knowing the opponents' final scores, so this is an
/// approximation of the best response, measured against it in docs/advice.md. Ties as for a
/// target.
pub struct WinTurn<'a>(crate::policy::target::TargetTurn<'a>);

/// Weights below this are left out of the fast policy's sum (its value moves by less).
pub const WEIGHT_FLOOR: f64 = 1e-7;

impl<'a> WinTurn<'a> {
    /// The turn of `state` with `banked` points banked against opponents whose final scores
    /// have the distributions `opponents`.
    pub fn new(
        ev: &'a StrategyTable,
        targets: &'a VectorTable<f32>,
        state: &crate::game::state::State,
        banked: u32,
        opponents: &[FinalScores],
    ) -> Result<WinTurn<'a>, TableError> {
        let weights = WinTurn::weights(targets, state, banked, opponents);
        Ok(WinTurn(crate::policy::target::TargetTurn::mixture(
            ev, targets, state, &weights,
        )?))
    }

    /// [`WinTurn::new`] from lanes of its state that hold every point needed of its
    /// [`WinTurn::weights`] (`None` when one is missing): the same turn, bit for bit, its
    /// chances shared with the other games in that state.
    pub fn from_lanes(
        lanes: &std::sync::Arc<crate::policy::target::TargetLanes<'a>>,
        weights: &[(i64, f64)],
    ) -> Option<WinTurn<'a>> {
        crate::policy::target::TargetTurn::from_lanes(lanes, weights).map(WinTurn)
    }

    /// The targets the turn of `state` weighs, with `banked` points banked against
    /// `opponents`: `(points still needed, weight)` for each final score whose chance of a
    /// win moves the sum, or `(0, 1)` (play for the average) when the outcome is decided.
    pub fn weights(
        targets: &VectorTable<f32>,
        state: &crate::game::state::State,
        banked: u32,
        opponents: &[FinalScores],
    ) -> Vec<(i64, f64)> {
        let (lo, u) = utility(opponents);
        let most = i64::from(max_remaining(targets.rules(), state));
        let mut weights = Vec::new();
        let mut previous = 0.0;
        for i in 0..=u.len() {
            let value = u.get(i).copied().unwrap_or(1.0);
            let w = value - previous;
            previous = value;
            let needed = i64::from(lo) + i as i64 - i64::from(banked);
            // Targets reached for sure or out of reach weigh the same on every choice.
            if w > WEIGHT_FLOOR && needed > 0 && needed <= most {
                weights.push((needed, w));
            }
        }
        if weights.is_empty() {
            // The outcome is decided whatever the player does: play for the average.
            weights.push((0, 1.0));
        }
        weights
    }

    /// The keep for `dice` with `rolls_left` (1 to the game's rolls less one) rolls left.
    pub fn best_keep(
        &self,
        rolls_left: u8,
        dice: &crate::game::dice::Dice,
    ) -> crate::game::dice::Keep {
        self.0.best_keep(rolls_left, dice)
    }

    /// The box for `dice` with no roll left.
    pub fn best_box(
        &self,
        dice: &crate::game::dice::Dice,
    ) -> Result<crate::policy::expected::BoxChoice, TableError> {
        Ok(self.0.best_box(dice)?.0)
    }
}
