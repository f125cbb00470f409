//! What "best" means, and playing it: the one home of every objective and policy.
//!
//! - One file per objective: the expected score ([`expected`]: the ranked options of a
//!   position, the optimal policy), a target score ([`target`]), an exponential utility of
//!   parameter θ ([`theta`]: the options by their certainty equivalents), winning against
//!   opponents ([`win`]), the exact game of two ([`two_player`]), and the baselines
//!   ([`baseline`]).
//! - Here, the registry: the [`Policy`] names (`optimal`, `greedy`, `most-common`,
//!   `target:T`, `theta:X`, `win`, `win-exact`, `two-player`) and the tables each needs
//!   ([`Needs`]);
//!   the [`Objective`]s a position is advised under, and [`advise`], the one dispatch that
//!   `yahtzee advise`, the batch protocol, the server and Python share.
//! - [`player`]: a policy bound to its tables, playing turns (simulations, matches, bots);
//!   [`cache`]: the turns met so far, shared by the threads.
//! - [`pricing`]: the price of a decision under an objective (the coach, the hints, the
//!   review).
//!
//! Adding an objective: its file here (its advice, its turn), its variant in [`Policy`] (name,
//! parsing, [`Needs`]), in [`Objective`] and [`Answer`] if positions are advised under it, in
//! [`player::Player`] and [`player::PolicyTurn`] if it plays, and in [`pricing`] if decisions
//! are priced in it; the tables it needs come from [`TableSet`].

pub mod baseline;
pub mod cache;
pub mod expected;
pub mod player;
pub mod pricing;
pub mod saved;
pub mod target;
pub mod theta;
pub mod two_player;
pub mod win;

use serde::Serialize;

use crate::cancel::Cancel;
use crate::text::excerpt;

use crate::policy::expected::{Advice, AdviceError, Position};
use crate::policy::target::{TargetAdvice, TargetError, advise_target};
use crate::policy::theta::ThetaAdvice;
use crate::policy::two_player::TwoPlayerAdvice;
use crate::policy::two_player::TwoPlayerAdviceError;
use crate::policy::two_player::TwoPlayerPosition;
use crate::policy::two_player::advise_at;
use crate::policy::two_player::check_position;
use crate::policy::two_player::reads_early_table;
use crate::policy::win::{Opponent, WinAdvice, WinError, advise_win, needs_distribution};
use crate::solve::simd::Simd;
use crate::solve::theta::{Theta, ThetaError};
use crate::tables::set::{LoadError, TableKind, TableSet};

/// What the options of a position are ranked by, with what it plays for.
#[derive(Clone, Debug, PartialEq)]
pub enum Objective {
    /// The highest expected final score.
    ExpectedScore,
    /// The best chance of a final score of at least this.
    Target(u32),
    /// The highest certainty equivalent of the final score under the exponential utility of
    /// this θ ([`theta`]).
    Theta(Theta),
    /// The best chance of beating these opponents (each playing for the highest average).
    Win(Vec<Opponent>),
    /// The exact game of two against this opponent (both playing to win), the player's points
    /// less the opponent's being `lead` (default: the difference of the two cards).
    TwoPlayer {
        /// The other player.
        opponent: Opponent,
        /// Points ahead of the opponent.
        lead: Option<i64>,
    },
}

/// The ranked options of a position under an objective.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Answer {
    /// Expected-score advice.
    Advice(Advice),
    /// Advice for a target.
    Target(TargetAdvice),
    /// Advice under a θ.
    Theta(ThetaAdvice),
    /// Advice to win against opponents.
    Win(WinAdvice),
    /// Advice in the exact game of two.
    TwoPlayer(TwoPlayerAdvice),
}

/// Why a position cannot be advised on under an objective: the objective's own error, or a
/// table it needs that cannot be had.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AdviseError {
    /// The position (see [`AdviceError`]).
    #[error(transparent)]
    Advice(#[from] AdviceError),
    /// Target advice (see [`TargetError`]).
    #[error(transparent)]
    Target(#[from] TargetError),
    /// Win advice (see [`WinError`]).
    #[error(transparent)]
    Win(#[from] WinError),
    /// Two-player advice (see [`TwoPlayerAdviceError`]).
    #[error(transparent)]
    TwoPlayer(#[from] TwoPlayerAdviceError),
    /// A table the objective needs (see [`LoadError`]).
    #[error(transparent)]
    Table(#[from] LoadError),
    /// The solve of the answer was stopped ([`advise`]'s `cancel`): no one waits for it.
    #[error("the advice was cancelled before its end: no one waits for it")]
    Cancelled,
}

/// The options of `position` ranked under `objective`, with the tables of `tables` (each
/// loaded or built when first needed, after the position is checked): the one path of
/// advice of every front end (the command line, the batch protocol, the server, Python).
/// `progress(done, total)` follows the solve of the rest of a game of two, the one answer
/// that may take more than seconds. The solves of the answers against opponents (the best
/// response) and of the game of two stop as their next card starts once `cancel` is set
/// ([`AdviseError::Cancelled`]); a table's build has its own ([`TableSet::cancel`]).
pub fn advise(
    tables: &TableSet,
    position: &Position,
    objective: &Objective,
    progress: &(dyn Fn(u64, u64) + Sync),
    cancel: &Cancel,
) -> Result<Answer, AdviseError> {
    check_objective(tables, objective)?;
    if tables.rules().saved_rolls() {
        // Solved for the expected score alone (`check_objective` refused the others): its
        // table read for the position's card and the next.
        let table = tables.saved_for(&[position.card.filled()])?;
        return Ok(Answer::Advice(saved::advise(&table, position)?));
    }
    if let Objective::Theta(theta) = objective {
        // The θ table alone: the expected score's is not read.
        expected::check_position(tables.rules(), position)?;
        return Ok(Answer::Theta(theta::advise(
            tables.theta(*theta)?,
            position,
        )?));
    }
    let ev = tables.ev()?;
    Ok(match objective {
        Objective::Theta(_) => unreachable!("answered above"),
        Objective::ExpectedScore => Answer::Advice(expected::advise(ev, position)?),
        Objective::Target(target) => {
            let targets = tables.target()?;
            Answer::Target(advise_target(ev, targets, position, *target)?)
        }
        Objective::Win(opponents) => {
            // The position is checked before the distribution table is loaded or built.
            expected::advise(ev, position)?;
            let distribution = if needs_distribution(opponents) {
                Some(&**tables.distribution()?)
            } else {
                None
            };
            let advice = cancel
                .until(|check| advise_win(ev, distribution, position, opponents, &|_, _| check()));
            Answer::Win(advice.ok_or(AdviseError::Cancelled)??)
        }
        Objective::TwoPlayer { opponent, lead } => {
            let at = TwoPlayerPosition::against(position.clone(), opponent, *lead);
            // The position is checked before the table is read or anything solved.
            check_position(ev, &at)?;
            let early = if reads_early_table(&at) {
                Some(&**tables.two_player()?)
            } else {
                None
            };
            let advice = cancel.until(|check| {
                advise_at(ev, &at, early, Simd::detect(), &|done, total| {
                    check();
                    progress(done, total);
                })
            });
            Answer::TwoPlayer(advice.ok_or(AdviseError::Cancelled)??)
        }
    })
}

/// `Ok` unless the vectors `objective` would need do not fit in memory ([`TableSet::check`]):
/// asked before any table is loaded or built, so that a refused question builds nothing.
/// The win objective's vectors are as long as the target's.
pub fn check_objective(tables: &TableSet, objective: &Objective) -> Result<(), LoadError> {
    match objective {
        Objective::Target(_) | Objective::Win(_) => tables.check(TableKind::Target),
        Objective::Theta(theta) => tables.check(TableKind::Theta(*theta)),
        Objective::ExpectedScore | Objective::TwoPlayer { .. } => Ok(()),
    }
}

/// The largest target score a target policy takes: far above any score a game can reach
/// (1,575 for `yahtzee`), low enough to be typed by mistake only.
pub const MAX_TARGET: u32 = 100_000;

/// How the simulated player plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// The optimal policy of the strategy table (ties: fewest dice kept, first box on the
    /// card).
    Optimal,
    /// Never re-rolls: scores the opening roll in the box worth the most points now (bonus
    /// included; ties: first box on the card).
    Greedy,
    /// Keeps every die showing the most common face (ties: the higher face) and re-rolls the
    /// others twice, then scores like `greedy`.
    MostCommon,
    /// The best chance of a final score of at least this target ([`TargetTurn`]; ties in
    /// chance: the higher expected score, then as `optimal`).
    Target(u32),
    /// The highest certainty equivalent of the final score under the exponential utility of
    /// this θ ([`crate::solve::theta`]; ties as `optimal`).
    Theta(Theta),
    /// Plays to beat the other players of a match (matches only, `stats::matches`): the fast
    /// win policy ([`WinTurn`]) against the others' current cards.
    Win,
    /// Plays to beat the other players of a match by the exact best response
    /// ([`crate::policy::win::best_response`]), solved again at each of its turns: slow.
    WinExact,
    /// The exact optimum of the game of two, knowing both cards (matches of two players of
    /// Yacht only, [`crate::policy::two_player::TwoPlayerBot`]).
    TwoPlayer,
}

/// A policy's name that is not one: what was given and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// No policy of that name. Fix: one of the names listed.
    #[error(
        "unknown policy `{0}`: the policies are optimal (or ev), greedy, most-common, target:T (T from 0 to {MAX_TARGET}, e.g. target:300), theta:X (X from -5 to 5, not 0, e.g. theta:0.07), and in a match win, win-exact and two-player"
    )]
    Unknown(String),
    /// A θ that is not one (see [`ThetaError`]). Fix: `theta:X` with such a θ.
    #[error("the policy `theta:{given}`: {error}")]
    BadTheta {
        /// The θ given.
        given: String,
        /// Why it is not one.
        error: ThetaError,
    },
    /// `target` without its score. Fix: `target:T`.
    #[error(
        "the target policy needs its target score: target:T with T from 0 to {MAX_TARGET}, e.g. target:300"
    )]
    NoTarget,
    /// A target that is not a whole number from 0 to [`MAX_TARGET`]. Fix: such a number.
    #[error(
        "the target of `target:{0}` must be a whole number from 0 to {MAX_TARGET}, e.g. target:300"
    )]
    BadTarget(String),
}

impl Policy {
    /// The name used on the command line and in reports (`target` for every target; see
    /// [`Policy::label`]).
    pub fn name(self) -> &'static str {
        match self {
            Policy::Optimal => "optimal",
            Policy::Greedy => "greedy",
            Policy::MostCommon => "most-common",
            Policy::Target(_) => "target",
            Policy::Theta(_) => "theta",
            Policy::Win => "win",
            Policy::WinExact => "win-exact",
            Policy::TwoPlayer => "two-player",
        }
    }

    /// The policy as it is given on the command line: its name, with the target for
    /// `target:T`.
    pub fn label(self) -> String {
        match self {
            Policy::Target(t) => format!("target:{t}"),
            Policy::Theta(theta) => format!("theta:{theta}"),
            other => other.name().to_string(),
        }
    }

    /// The target score of a target policy.
    pub fn target(self) -> Option<u32> {
        match self {
            Policy::Target(t) => Some(t),
            _ => None,
        }
    }
}

impl std::str::FromStr for Policy {
    type Err = PolicyError;

    /// Parses `optimal` (or `ev`), `greedy`, `most-common`, `target:T`, `win` or `win-exact`
    /// (any case, spaces around ignored).
    fn from_str(text: &str) -> Result<Policy, PolicyError> {
        let text = text.trim();
        let lower = text.to_ascii_lowercase();
        match lower.as_str() {
            "optimal" | "ev" => return Ok(Policy::Optimal),
            "win" => return Ok(Policy::Win),
            "win-exact" => return Ok(Policy::WinExact),
            "two-player" => return Ok(Policy::TwoPlayer),
            "greedy" => return Ok(Policy::Greedy),
            "most-common" => return Ok(Policy::MostCommon),
            "target" | "target:" => return Err(PolicyError::NoTarget),
            _ => {}
        }
        if let Some(theta) = lower.strip_prefix("theta:") {
            return theta.parse::<Theta>().map(Policy::Theta).map_err(|error| {
                PolicyError::BadTheta {
                    given: excerpt(theta.trim()),
                    error,
                }
            });
        }
        let Some(target) = lower.strip_prefix("target:") else {
            return Err(PolicyError::Unknown(excerpt(text)));
        };
        match target.trim().parse::<u32>() {
            Ok(t) if t <= MAX_TARGET => Ok(Policy::Target(t)),
            _ => Err(PolicyError::BadTarget(excerpt(target.trim()))),
        }
    }
}

impl Serialize for Policy {
    /// The policy's [`Policy::name`]; a report gives a target policy's score beside it.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// The tables the policies of a lineup play with (see [`Needs`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// The expected-score table: every policy but `greedy` and `most-common`.
    pub ev: bool,
    /// The target table: `target:T` and `win`.
    pub targets: bool,
    /// The distribution table: `win` and `win-exact`, for the opponents' final scores.
    pub distribution: bool,
    /// The table of the early plies of the game of two: `two-player`.
    pub two_player: bool,
}

impl Needs {
    /// The tables `policies` need.
    pub fn of(policies: &[Policy]) -> Needs {
        let any = |f: fn(&Policy) -> bool| policies.iter().any(f);
        Needs {
            ev: any(|p| !matches!(p, Policy::Greedy | Policy::MostCommon | Policy::Theta(_))),
            targets: any(|p| matches!(p, Policy::Target(_) | Policy::Win)),
            distribution: any(|p| matches!(p, Policy::Win | Policy::WinExact)),
            two_player: any(|p| matches!(p, Policy::TwoPlayer)),
        }
    }
}

impl Needs {
    /// `Ok` unless a table needed cannot be had ([`TableSet::check`]): nothing is loaded or
    /// built.
    pub fn check(&self, tables: &TableSet) -> Result<(), LoadError> {
        for (needed, kind) in [
            (self.targets, TableKind::Target),
            (self.distribution, TableKind::Distribution),
            (self.two_player, TableKind::TwoPlayer),
        ] {
            if needed {
                tables.check(kind)?;
            }
        }
        Ok(())
    }

    /// Loads (or builds) the tables needed from `tables`, in the order of the fields.
    pub fn load(&self, tables: &TableSet) -> Result<(), LoadError> {
        self.check(tables)?;
        if self.ev {
            tables.ev()?;
        }
        if self.targets {
            tables.target()?;
        }
        if self.distribution {
            tables.distribution()?;
        }
        if self.two_player {
            tables.two_player()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::{RuleSet, Rules};
    use crate::game::state::ScoreCard;
    use crate::policy::win::{FinalScores, best_response, best_response_with};
    use crate::solve::expected::SolveOptions;
    use crate::tables::expected::StrategyTable;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// The best response stopped by a token: at the 4th check (one as each card starts, from
    /// the solve's threads) the cards already started each check once more and stop, far
    /// from the 4,096 cards of a Yacht card's solve; not stopped, it is the unwatched solve.
    #[test]
    fn the_best_response_stops_when_told_and_is_the_same_otherwise() {
        let rules = Rules::new(RuleSet::YACHT);
        let card = ScoreCard::parse(rules, "", 0).unwrap();
        let opponents = [FinalScores::point(150)];
        let plain = best_response(&card, &opponents, Simd::detect());
        let never = Cancel::new();
        let watched = never
            .until(|check| best_response_with(&card, &opponents, Simd::detect(), &|_, _| check()))
            .unwrap();
        let state = card.state();
        for b in [0i64, 50, 100, 150] {
            assert_eq!(
                plain.value(&state, b).unwrap(),
                watched.value(&state, b).unwrap()
            );
        }
        let cancel = Cancel::new();
        let checks = AtomicU32::new(0);
        let stopped = cancel.until(|check| {
            best_response_with(&card, &opponents, Simd::detect(), &|_, _| {
                if checks.fetch_add(1, Ordering::Relaxed) >= 3 {
                    cancel.cancel();
                }
                check();
            })
        });
        assert!(stopped.is_none());
        let checked = checks.load(Ordering::Relaxed);
        assert!((4..1000).contains(&checked), "{checked} checks");
    }

    /// Advice against opponents (and in the game of two) asked with a token already set is
    /// [`AdviseError::Cancelled`]; with a token not set, the same as without one.
    #[test]
    fn advice_whose_token_is_set_is_cancelled() {
        let rules = Rules::new(RuleSet::YACHT);
        let (table, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let tables = TableSet::of_expected_score(Arc::new(table));
        let position = Position {
            card: ScoreCard::parse(rules, "", 0).unwrap(),
            dice: rules.dice().parse("1,3,3,5,6").unwrap(),
            rolls_left: 2,
        };
        let win = Objective::Win(vec![Opponent::Finished(120)]);
        let set = Cancel::new();
        set.cancel();
        let e = advise(&tables, &position, &win, &|_, _| {}, &set).unwrap_err();
        assert!(matches!(e, AdviseError::Cancelled), "{e}");
        let answer = advise(&tables, &position, &win, &|_, _| {}, &Cancel::new()).unwrap();
        let ev = tables.ev().unwrap();
        let alone = advise_win(ev, None, &position, &[Opponent::Finished(120)], &|_, _| {});
        assert_eq!(answer, Answer::Win(alone.unwrap()));
        // The expected score has no solve to stop.
        assert!(
            advise(
                &tables,
                &position,
                &Objective::ExpectedScore,
                &|_, _| {},
                &set
            )
            .is_ok()
        );
    }
}
