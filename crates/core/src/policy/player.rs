//! A player: a [`Policy`] bound to the tables it plays with, making every choice of a turn.
//! The one home of "how a policy plays", used by every front end that plays: the simulations
//! (`stats::simulate`), the matches (`stats::matches`), the bots of a game on the terminal or
//! the page (`play`).
//!
//! [`Player::new`] binds a policy to the tables of a [`TableSet`] (loading what it needs);
//! [`check_players`] reads every card the players' games can ask for, so that no turn of a
//! game can fail; a player's turn is a [`PolicyTurn`], which keeps dice after each roll and
//! fills a box. The policies of one player (`optimal`, `greedy`, `most-common`, `target:T`)
//! play a turn from their own card alone ([`Player::turn`]); the others look at the table:
//! `win` and `win-exact` at the other players' cards, `two-player` at the other card of a game
//! of two ([`Player::turn_in_game`]).

use std::sync::Arc;

use crate::game::dice::{Dice, Keep};
use crate::game::rules::Rules;
use crate::game::state::{Bonuses, ScoreCard, State};
use crate::policy::baseline::{greedy_box, most_common_keep};
use crate::policy::cache::TurnCache;
use crate::policy::expected::best_box_for;
use crate::policy::target::{TargetError, TargetPlayer, TargetTurn};
use crate::policy::two_player::{NextPlies, TwoPlayerBot, TwoPlayerTurn};
use crate::policy::win::{FinalScores, WinTurn, best_response};
use crate::policy::{Needs, Policy};
use crate::solve::expected::TurnValues;
use crate::solve::simd::Simd;
use crate::solve::vector::DISTRIBUTION;
use crate::tables::TableError;
use crate::tables::expected::{EXPECTED_SCORE, StrategyTable};
use crate::tables::set::{LoadError, TableSet};
use crate::tables::two_player::TWO_PLAYER;
use crate::tables::vector::VectorTable;

/// A policy and the tables it plays with.
#[derive(Clone, Copy)]
pub enum Player<'a> {
    /// The optimal policy of this table (ties: fewest dice kept, first box on the card).
    Optimal(&'a StrategyTable),
    /// See [`Policy::Greedy`].
    Greedy,
    /// See [`Policy::MostCommon`].
    MostCommon,
    /// See [`Policy::Target`].
    Target(TargetPlayer<'a>),
    /// The fast win policy ([`Policy::Win`]).
    Win {
        /// The expected-score table (for ties).
        ev: &'a StrategyTable,
        /// The target table.
        targets: &'a VectorTable<f32>,
    },
    /// The exact best response, solved at each turn ([`Policy::WinExact`]).
    WinExact {
        /// The expected-score table (for ties).
        ev: &'a StrategyTable,
    },
    /// The exact optimum of the game of two ([`Policy::TwoPlayer`]): its turns need the
    /// other player's card and the plies of the game ([`Player::turn_in_game`]).
    TwoPlayer(TwoPlayerBot<'a>),
}

/// Why a policy cannot play: a table it needs cannot be had or does not fit, or the game is
/// not one it plays.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlayerError {
    /// A policy needs a table that was not given. Fix: give the table of that objective.
    #[error("{policy} plays with the {objective} table of the rules, which was not given")]
    NoTable {
        /// The policy, as given.
        policy: String,
        /// The table's objective (`expected-score`, `target`, `distribution`).
        objective: &'static str,
    },
    /// A table the policy needs cannot be loaded or built (see [`LoadError`]).
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A table is of other rules than the game. Fix: give the tables of the game's rules.
    #[error(
        "the {objective} table is for {table} but the match is {rules}: give the {objective} table of {rules}"
    )]
    RulesMismatch {
        /// The table's objective.
        objective: &'static str,
        /// The table's rules.
        table: String,
        /// The game's rules.
        rules: String,
    },
    /// The target table is of other rules, or a card of it cannot be read (see
    /// [`TargetError`]).
    #[error(transparent)]
    Target(#[from] TargetError),
    /// A card of the distribution table, or a value of the table of the game of two,
    /// cannot be read (see [`TableError`]).
    #[error(transparent)]
    Table(#[from] TableError),
    /// A two-player seat in a game of rules other than Yacht's, or of other than two
    /// players. Fix: the game of two of Yacht (either fill order).
    #[error(
        "the two-player policy plays the exact game of two of Yacht (either fill order) only, with exactly two players: this game is {rules} with {players} players"
    )]
    TwoPlayer {
        /// The rules of the game.
        rules: String,
        /// The number of players.
        players: usize,
    },
}

impl<'a> Player<'a> {
    /// `policy` playing with the tables of `tables`, loading (or building) those it needs.
    pub fn new(policy: Policy, tables: &'a TableSet) -> Result<Player<'a>, PlayerError> {
        Needs::of(&[policy]).check(tables)?;
        Ok(match policy {
            Policy::Optimal => Player::Optimal(tables.ev()?),
            // The optimal policy of the θ table: its values are certainty equivalents.
            Policy::Theta(theta) => {
                tables.check(crate::tables::set::TableKind::Theta(theta))?;
                Player::Optimal(tables.theta(theta)?)
            }
            Policy::Greedy => Player::Greedy,
            Policy::MostCommon => Player::MostCommon,
            Policy::Target(t) => {
                Player::Target(TargetPlayer::new(tables.ev()?, tables.target()?, t)?)
            }
            Policy::Win => Player::Win {
                ev: tables.ev()?,
                targets: tables.target()?,
            },
            Policy::WinExact => Player::WinExact { ev: tables.ev()? },
            Policy::TwoPlayer => Player::TwoPlayer(TwoPlayerBot {
                ev: tables.ev()?,
                early: tables.two_player()?,
            }),
        })
    }

    /// The policy played.
    pub fn policy(&self) -> Policy {
        match self {
            Player::Optimal(t) => t.theta().map_or(Policy::Optimal, Policy::Theta),
            Player::Greedy => Policy::Greedy,
            Player::MostCommon => Policy::MostCommon,
            Player::Target(p) => Policy::Target(p.target()),
            Player::Win { .. } => Policy::Win,
            Player::WinExact { .. } => Policy::WinExact,
            Player::TwoPlayer(_) => Policy::TwoPlayer,
        }
    }

    /// True when the player plays against the others' final scores, taken as under
    /// expected-score play (the distribution table's): `win` and `win-exact`.
    pub fn plays_to_win(&self) -> bool {
        matches!(self, Player::Win { .. } | Player::WinExact { .. })
    }

    /// The expected-score table the policy's turns are cached by (the optimal and the target
    /// policy: see [`TurnCache`]).
    pub fn table(&self) -> Option<&'a StrategyTable> {
        match self {
            Player::Optimal(t) => Some(t),
            Player::Target(p) => Some(p.ev()),
            _ => None,
        }
    }

    /// How a player of one policy (`optimal`, `greedy`, `most-common`, `target:T`) plays the
    /// turn of `state` with `banked` points on the card (bonuses included), from `cache`
    /// when one is given (a turn is a pure function of the state and, for the target policy,
    /// of the points still needed, so the cache changes nothing in the game). A player who
    /// looks at the table plays through [`Player::turn_in_game`].
    pub fn turn(
        &self,
        state: &State,
        banked: u32,
        cache: Option<&TurnCache<'a>>,
    ) -> PolicyTurn<'a> {
        let optimal = |table: &'a StrategyTable| {
            let values = match cache {
                Some(cache) => cache.turn(table, state),
                None => Arc::new(TurnValues::new(table, state)),
            };
            PolicyTurn::Optimal(table, values)
        };
        match self {
            Player::Optimal(table) => optimal(table),
            Player::Target(p) => match p.needed(state, banked) {
                Some(needed) => PolicyTurn::Target(match cache {
                    Some(cache) => cache.target_turn(p, state, needed),
                    None => Arc::new(p.turn_for(state, needed)),
                }),
                None => optimal(p.ev()),
            },
            Player::Greedy => PolicyTurn::Greedy,
            Player::MostCommon => PolicyTurn::MostCommon,
            Player::Win { .. } | Player::WinExact { .. } | Player::TwoPlayer(_) => {
                unreachable!("a player who looks at the table plays through Player::turn_in_game")
            }
        }
    }

    /// How the player of seat `at.seat` plays its turn at a table whose cards are `at.cards`
    /// (every seat's, in seat order): the players of one policy as [`Player::turn`]; `win`
    /// against `at.opponents` (their final scores' distributions); `win-exact` by the best
    /// response to them, solved now into `exact` (with `at.simd`), which the turn reads; and
    /// `two-player` against the other card from `at.plies`, the plies of the game. What a
    /// match and a game with bots play.
    pub fn turn_in_game<'t>(
        &'t self,
        at: AtTable<'_, 't, 'a>,
        exact: &'t mut Option<VectorTable<f32>>,
    ) -> PolicyTurn<'t> {
        let card = &at.cards[at.seat];
        let state = card.state();
        let banked = card.banked();
        match self {
            Player::Win { ev, targets } => PolicyTurn::Win(
                WinTurn::new(ev, targets, &state, banked, at.opponents).expect(
                    "every card of the target table was read when the players were checked",
                ),
            ),
            Player::WinExact { ev } => {
                let table = exact.insert(best_response(card, at.opponents, at.simd));
                PolicyTurn::Target(Arc::new(
                    TargetTurn::new(ev, table, &state, i64::from(banked))
                        .expect("the best response holds every card after the player's"),
                ))
            }
            Player::TwoPlayer(bot) => {
                let plies = at
                    .plies
                    .expect("a game with a two-player seat has the plies of the game of two");
                PolicyTurn::TwoPlayer(
                    bot.turn(plies, card, &at.cards[1 - at.seat]).expect(
                        "the tables of a two-player seat were checked when the game was made",
                    ),
                )
            }
            alone => alone.turn(&state, banked, at.cache),
        }
    }
}

/// What a player sees at the table when its turn comes (see [`Player::turn_in_game`]).
pub struct AtTable<'c, 't, 'a> {
    /// The player's seat.
    pub seat: usize,
    /// Every seat's card, in seat order.
    pub cards: &'c [ScoreCard],
    /// The other players' final scores' distributions (for the players that play to win;
    /// empty for the others).
    pub opponents: &'c [FinalScores],
    /// The turns met so far, shared (see [`TurnCache`]).
    pub cache: Option<&'t TurnCache<'a>>,
    /// The plies of the game of two, for a two-player seat.
    pub plies: Option<&'c mut NextPlies<'a>>,
    /// The instruction set a best response is solved with.
    pub simd: Simd,
}

/// One turn of one state under a policy: the dice kept after each roll and the box filled.
/// What the simulation plays, and what the bots of `yahtzee play` play.
pub enum PolicyTurn<'a> {
    /// The optimal policy's turn ([`TurnValues::best_keep`], [`best_box_for`]).
    Optimal(&'a StrategyTable, Arc<TurnValues>),
    /// The target policy's turn, where it can differ from the optimal policy's.
    Target(Arc<TargetTurn<'a>>),
    /// See [`Policy::Greedy`].
    Greedy,
    /// See [`Policy::MostCommon`].
    MostCommon,
    /// The fast win policy's turn ([`Policy::Win`]).
    Win(WinTurn<'a>),
    /// The two-player optimum's turn ([`Policy::TwoPlayer`]).
    TwoPlayer(TwoPlayerTurn<'a>),
}

impl PolicyTurn<'_> {
    /// The dice kept from `dice` with `rolls_left` (1 or 2) rolls left; all five dice: stop
    /// rolling (the greedy policy always stops).
    pub fn keep(&self, rolls_left: u8, dice: &Dice) -> Keep {
        match self {
            PolicyTurn::Optimal(_, values) => values.best_keep(rolls_left, dice).0,
            PolicyTurn::Target(t) => t.best_keep(rolls_left, dice),
            PolicyTurn::Win(t) => t.best_keep(rolls_left, dice),
            PolicyTurn::TwoPlayer(t) => t.best_keep(rolls_left, dice),
            PolicyTurn::MostCommon => most_common_keep(dice),
            PolicyTurn::Greedy => Keep::from_faces(&dice.faces()).expect("five faces"),
        }
    }

    /// The box filled with `dice` in `state` (its index, points and the bonuses earned).
    pub fn choose_box(&self, rules: &Rules, state: &State, dice: &Dice) -> (usize, u32, Bonuses) {
        match self {
            PolicyTurn::Optimal(table, _) => {
                let c = best_box_for(table, state, dice).expect("a legal box");
                (c.index, c.points, c.bonuses)
            }
            PolicyTurn::Target(t) => {
                let (c, _) = t
                    .best_box(dice)
                    .expect("every card of the target table was read when the player was made");
                (c.index, c.points, c.bonuses)
            }
            PolicyTurn::Win(t) => {
                let c = t
                    .best_box(dice)
                    .expect("every card of the target table was read when the match was made");
                (c.index, c.points, c.bonuses)
            }
            PolicyTurn::TwoPlayer(t) => t.best_box(dice),
            PolicyTurn::Greedy | PolicyTurn::MostCommon => greedy_box(rules, state, dice),
        }
    }
}

/// The players of `policies`, with the tables of `tables` (each loaded or built once, when a
/// policy first needs it).
pub fn players<'a>(
    policies: &[Policy],
    tables: &'a TableSet,
) -> Result<Vec<Player<'a>>, PlayerError> {
    policies.iter().map(|&p| Player::new(p, tables)).collect()
}

/// Checks that every table `players` play with, and `distribution` when a player plays to
/// win, is of `rules`, and reads every card the games can ask for, so that no turn of a game
/// can fail: what a match checks, and what a game of `yahtzee play` with such bots checks.
pub fn check_players(
    rules: &Rules,
    players: &[Player<'_>],
    distribution: Option<&VectorTable<f32>>,
) -> Result<(), PlayerError> {
    let rules = *rules;
    let check = |objective: &'static str, table: &Rules| {
        if *table == rules {
            Ok(())
        } else {
            Err(PlayerError::RulesMismatch {
                objective,
                table: table.label(),
                rules: rules.label(),
            })
        }
    };
    for player in players {
        match player {
            Player::Optimal(ev) | Player::WinExact { ev } => check(EXPECTED_SCORE, ev.rules())?,
            Player::Target(p) => check(EXPECTED_SCORE, p.ev().rules())?,
            Player::Greedy | Player::MostCommon => {}
            Player::Win { ev, targets } => {
                check(EXPECTED_SCORE, ev.rules())?;
                // Checks the target table's rules and reads its every card.
                TargetPlayer::new(ev, targets, 0)?;
            }
            Player::TwoPlayer(bot) => {
                // (The number of players is the game's to check.)
                if crate::solve::two_player::check_rules(&rules).is_err() {
                    return Err(PlayerError::TwoPlayer {
                        rules: rules.label(),
                        players: players.len(),
                    });
                }
                check(EXPECTED_SCORE, bot.ev.rules())?;
                check(TWO_PLAYER, bot.early.rules())?;
                // Reads and checks every value the games can ask for.
                bot.early.verify()?;
            }
        }
    }
    if let Some(player) = players.iter().find(|p| p.plays_to_win()) {
        let Some(table) = distribution else {
            return Err(PlayerError::NoTable {
                policy: player.policy().label(),
                objective: DISTRIBUTION,
            });
        };
        check(DISTRIBUTION, table.rules())?;
        table.check_cards_from(0)?;
    }
    Ok(())
}
