//! The batch protocol: one JSON query per line in, one JSON line out, the same for every
//! front end (`yahtzee advise --batch` reads stdin; a server would read its requests).
//!
//! A query is an object with these keys, each optional but `dice`:
//!
//! ```text
//! {"card": {"ones": 3, "full-house": 25}, "yahtzee_bonus": 0, "dice": [1, 3, 3, 5, 6], "rolls_left": 2}
//! ```
//!
//! - `card`: an object of box name to integer points (absent: a new game);
//! - `yahtzee_bonus`: an integer, the 100-point bonuses already earned (absent: 0);
//! - `dice`: an array of the game's five (or six) integers from 1 to 6;
//! - `rolls_left`: the integer 0, 1 or 2 (absent: 2; in a game of four rolls a turn 0 to 3,
//!   absent 3);
//! - `target`: an integer final score to reach (absent: the expected-score advice); the
//!   answer is then the [`TargetAdvice`], every option ranked by its chance of reaching it.
//! - `theta`: a number from -5 to 5, not 0, the θ of an exponential utility (absent: the
//!   expected-score advice); the answer is then the
//!   [`ThetaAdvice`](crate::policy::theta::ThetaAdvice), every option ranked by
//!   its certainty equivalent (not with `target`, `opponents` or `two_player`).
//! - `opponents`: an array of the other players, each `{"card": {...}, "yahtzee_bonus": n}`
//!   (still playing, `yahtzee_bonus` optional) or `{"final": n}` (finished with `n`
//!   points); the answer is then the [`WinAdvice`], every option ranked by its chance of
//!   winning (not with `target`).
//! - `two_player`: `true` for the exact game of two (Yacht): `opponents` then holds exactly
//!   the one opponent, and the answer is the [`TwoPlayerAdvice`] of `advise --two-player
//!   --json`, every option ranked by the exact chance of winning plus half a tie;
//! - `lead`: with `two_player`, an integer, your points less the opponent's (absent: the
//!   difference of the two cards' points, or of your card's and the opponent's final).
//!
//! Every value has exactly this type (no strings for numbers, no `null` for absent), a key
//! given twice is refused (at the top level and inside `card`), and so is an unknown key. The
//! answer is the [`Advice`] as JSON, or `{"error": "..."}` saying what was wrong and showing
//! the expected shape. Every input line gets exactly one output line, in order: a blank line
//! or a line that is not UTF-8 gets an error line, and the batch goes on.
//!
//! Keys are read by [`Query::parse`] one by one into a [`Query`] whose fields are public and
//! which is `#[non_exhaustive]`, so keys can be added without breaking a caller.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::cancel::Cancel;
use crate::game::dice::{self, Dice, join_faces};
use crate::game::rules::{MAX_BOXES, MAX_ROLLS_A_TURN, Rules};
use crate::game::state::{CardError, ScoreCard};
use crate::policy::expected::{self as expected, Action, AdviceError, Position, check_rolls_left};
use crate::policy::target::TargetError;
use crate::policy::two_player::TwoPlayerAdviceError;
use crate::policy::win::{Opponent, WinError};
use crate::policy::{self, AdviseError, Answer, Objective};
use crate::solve::theta::{Theta, ThetaError};
use crate::tables::expected::StrategyTable;
use crate::tables::provenance::stamped_by;
use crate::tables::set::{LoadError, TableSet};
use crate::text::excerpt;

/// The shape of a query, shown in error lines (a game of five dice; [`example`]).
pub const EXAMPLE: &str = r#"{"card": {"ones": 3, "full-house": 25}, "yahtzee_bonus": 0, "dice": [1, 3, 3, 5, 6], "rolls_left": 2}"#;

/// The shape of a query of a game of six dice, shown in its error lines.
pub const EXAMPLE_SIX: &str = r#"{"card": {"ones": 3, "chance": 20}, "yahtzee_bonus": 0, "dice": [1, 2, 3, 3, 5, 6], "rolls_left": 2}"#;

/// The example query of the error lines of a game of `dice`: its dice are the game's.
pub fn example(dice: dice::DiceSpace) -> &'static str {
    if dice == dice::DiceSpace::SIX {
        EXAMPLE_SIX
    } else {
        EXAMPLE
    }
}

/// The dice of [`example`], for the error of a query without dice.
fn example_dice(dice: dice::DiceSpace) -> &'static str {
    if dice == dice::DiceSpace::SIX {
        "[1, 2, 3, 3, 5, 6]"
    } else {
        "[1, 3, 3, 5, 6]"
    }
}

/// The keys of a query, in the order of [`EXAMPLE`], then the optional objective.
pub const KEYS: [&str; 10] = [
    "card",
    "yahtzee_bonus",
    "dice",
    "rolls_left",
    "saved",
    "target",
    "theta",
    "opponents",
    "two_player",
    "lead",
];

/// The largest lead a two-player query may give: far beyond any game's scores.
pub const MAX_LEAD: i64 = 10_000;

/// The highest target a query may name: far above any final score of any rule set (the
/// highest is Yahtzee's 1,575), low enough that no sum overflows.
pub const MAX_TARGET: u32 = 100_000;

/// Why a line got an error line instead of an answer. Each message says what was wrong and
/// what is expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BatchError {
    /// The line is not UTF-8 text. Fix: send UTF-8.
    #[error(
        "the line is not UTF-8 text (invalid byte at column {column}); a query is a JSON object like {}",
        example(*.dice)
    )]
    NotUtf8 {
        /// 1-based byte column of the first invalid byte.
        column: usize,
        /// The dice of the game, whose query the message shows.
        dice: dice::DiceSpace,
    },
    /// The line is longer than [`MAX_LINE_BYTES`]. Fix: one query per line.
    #[error(
        "the line is longer than {MAX_LINE_BYTES} bytes, the most a query may take; a query is one JSON object per line like {}",
        example(*.dice)
    )]
    TooLong {
        /// The dice of the game, whose query the message shows.
        dice: dice::DiceSpace,
    },
    /// The line is empty or only spaces. Fix: send one query per line, or no line.
    #[error("empty line; a query is a JSON object like {}", example(*.dice))]
    Blank {
        /// The dice of the game, whose query the message shows.
        dice: dice::DiceSpace,
    },
    /// The line is not valid JSON. Fix: send a JSON object.
    #[error(
        "bad query, not JSON ({reason}); a query is a JSON object like {}",
        example(*.dice)
    )]
    Json {
        /// What the JSON reader said.
        reason: String,
        /// The dice of the game, whose query the message shows.
        dice: dice::DiceSpace,
    },
    /// The line is JSON but not an object. Fix: send a JSON object.
    #[error(
        "bad query, {got} is not an object; a query is a JSON object like {}",
        example(*.dice)
    )]
    NotObject {
        /// What the line holds instead.
        got: String,
        /// The dice of the game, whose query the message shows.
        dice: dice::DiceSpace,
    },
    /// A key that queries do not have. Fix: use the keys of [`KEYS`].
    #[error(
        "unknown key `{key}`: the keys are card, yahtzee_bonus, dice, rolls_left, saved, target, theta, opponents, two_player and lead, as in {}",
        example(*.dice)
    )]
    UnknownKey {
        /// The key (an excerpt).
        key: String,
        /// The dice of the game, whose query the message shows.
        dice: dice::DiceSpace,
    },
    /// A key given twice. Fix: give each key once.
    #[error("key `{key}` is given twice: give each key once")]
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// A value of the wrong type or out of range. Fix: give a value of the expected shape.
    #[error("{key} must be {expected}, not {got}")]
    Value {
        /// The key, or `card.BOX` for the points of a box.
        key: String,
        /// What is expected, with an example.
        expected: &'static str,
        /// What was given (an excerpt).
        got: String,
    },
    /// `dice` is missing. Fix: give the dice.
    #[error(
        "the query has no dice: add e.g. \"dice\": {}; a query looks like {}",
        example_dice(*.dice),
        example(*.dice)
    )]
    NoDice {
        /// The dice of the game, whose query the message shows.
        dice: dice::DiceSpace,
    },
    /// The card (or its Yahtzee bonuses) is impossible under the rules of the table.
    #[error(transparent)]
    Card(#[from] CardError),
    /// An opponent's card (or Yahtzee bonuses) is impossible under the rules of the table.
    /// Fix: as for the player's card; `which` counts from 0, as the array does.
    #[error("opponents[{which}].card: {source}")]
    OpponentCard {
        /// The opponent's index in `opponents`.
        which: usize,
        /// What is wrong with the card.
        source: CardError,
    },
    /// The position cannot be advised on with this table.
    #[error(transparent)]
    Advice(#[from] AdviceError),
    /// The position cannot be advised on for its target (see [`TargetError`]).
    #[error("{0}")]
    Target(String),
    /// A table the query needs cannot be had (see [`LoadError`]: a damaged file, or a front
    /// end without that table). Fix: as its message says.
    #[error(transparent)]
    Table(#[from] LoadError),
    /// A query with a θ and another objective. Fix: give one objective.
    #[error(
        "theta: a query with a θ ranks by the certainty equivalent; leave `target`, `opponents` and `two_player` out"
    )]
    ThetaWithOther,
    /// A θ that is not one (see [`ThetaError`]).
    #[error("theta: {0}")]
    Theta(#[from] ThetaError),
    /// A query with both a target and opponents. Fix: give one objective.
    #[error("a query has one objective: give `target` or `opponents`, not both")]
    TwoObjectives,
    /// The position cannot be advised on against its opponents (see [`WinError`]).
    #[error("{0}")]
    Win(String),
    /// A two-player query whose `opponents` is not exactly one opponent. Fix: one opponent.
    #[error(
        "opponents: a query with \"two_player\": true plays against exactly one opponent, not {got}, like \"opponents\": [{{\"card\": {{\"ones\": 3}}}}]"
    )]
    TwoPlayerOpponents {
        /// The number of opponents given (0: no `opponents`).
        got: usize,
    },
    /// A two-player query with a target. Fix: leave `target` out.
    #[error(
        "target: a query with \"two_player\": true ranks by the chance of winning the game of two; leave `target` out"
    )]
    TwoPlayerTarget,
    /// `lead` without `"two_player": true`. Fix: add it, or leave `lead` out.
    #[error("lead is the two-player query's: add \"two_player\": true, or leave `lead` out")]
    LeadWithoutTwoPlayer,
    /// The position cannot be advised on in the game of two (see
    /// [`TwoPlayerAdviceError`]).
    #[error("two_player: {0}")]
    TwoPlayer(String),
    /// The solve of the answer was stopped (see [`AdviseError::Cancelled`]).
    #[error("{}", AdviseError::Cancelled)]
    Cancelled,
}

impl From<TwoPlayerAdviceError> for BatchError {
    fn from(e: TwoPlayerAdviceError) -> BatchError {
        BatchError::TwoPlayer(e.to_string())
    }
}

impl From<WinError> for BatchError {
    fn from(e: WinError) -> BatchError {
        BatchError::Win(e.to_string())
    }
}

impl From<TargetError> for BatchError {
    fn from(e: TargetError) -> BatchError {
        BatchError::Target(e.to_string())
    }
}

/// One query, as read from a line: types checked, not yet the rules (see
/// [`Query::position`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Query {
    /// The filled boxes and their points, in the order given (empty: a new game).
    pub card: Vec<(String, i64)>,
    /// Yahtzee bonuses already earned.
    pub yahtzee_bonus: u32,
    /// The dice.
    pub dice: Dice,
    /// Rolls left: 0, 1 or 2 (to 3 in a game of four rolls a turn; under saved rolls, to
    /// the turn's re-rolls plus the rolls saved); `None`: the start of a turn, the game's
    /// rolls a turn less one (and the rolls saved).
    pub rolls_left: Option<u8>,
    /// Under saved rolls, the rolls saved before this turn (`None`: none).
    pub saved: Option<u8>,
    /// The final score to reach, for target advice.
    pub target: Option<u32>,
    /// The θ of an exponential utility, for advice by certainty equivalents.
    pub theta: Option<Theta>,
    /// The other players, for win advice (the one opponent of a two-player query).
    pub opponents: Option<Vec<OpponentQuery>>,
    /// True for the exact game of two against the one opponent.
    pub two_player: bool,
    /// Your points less the opponent's, for a two-player query.
    pub lead: Option<i64>,
}

/// One opponent of a query, as read: types checked, not yet the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OpponentQuery {
    /// Still playing from this card (boxes and points) with these Yahtzee bonuses.
    Playing {
        /// The filled boxes and their points, in the order given.
        card: Vec<(String, i64)>,
        /// Yahtzee bonuses already earned.
        yahtzee_bonus: u32,
    },
    /// Finished with this final score.
    Finished(u32),
}

/// What `opponents` must be.
const OPPONENTS: &str = r#"an array of opponents, each {"card": {...}, "yahtzee_bonus": 0} or {"final": 230}, like [{"card": {"ones": 3}}, {"final": 230}]"#;
/// What one opponent must be.
const OPPONENT: &str =
    r#"an object {"card": {...}, "yahtzee_bonus": 0} (still playing) or {"final": 230} (finished)"#;
/// What a final score must be.
const FINAL: &str = "an integer final score from 0 to 100000, like 230";

/// What `target` must be.
const TARGET: &str = "an integer final score from 0 to 100000, like 300 (leave it out for the expected-score advice)";

/// What `theta` must be.
const THETA: &str = "a number from -5 to 5, not 0, like 0.07 (risk-seeking) or -0.03 (risk-averse)";

/// What `two_player` must be.
const TWO_PLAYER: &str = "true or false (true: the exact game of two against the one opponent)";
/// What `lead` must be.
const LEAD: &str = "an integer from -10000 to 10000, your points less the opponent's, like -12";

/// What `rolls_left` must be.
const ROLLS_LEFT: &str =
    "the integer 0, 1 or 2 (to 3 in a game of four rolls a turn, more with saved rolls)";
/// What `saved` must be.
const SAVED: &str = "the integer number of rolls saved before this turn, like 2, in a game that keeps unused rolls for later turns";
/// The most re-rolls a turn may have left: a game of four rolls a turn, or the rolls saved of
/// a card of the most boxes (two a turn).
const MOST_ROLLS_LEFT: i128 = MAX_ROLLS_A_TURN as i128 - 1 + 2 * MAX_BOXES as i128;
/// What `dice` must be, in a game of five dice ([`dice_wanted`]).
const DICE: &str = "an array of five integer faces from 1 to 6, like [1, 3, 3, 5, 6]";
/// What `dice` must be, in a game of six dice.
const DICE_SIX: &str = "an array of six integer faces from 1 to 6, like [1, 2, 3, 3, 5, 6]";

/// What the dice of a query must be in a game of `space`'s dice, as its errors say (the
/// server's too).
pub fn dice_wanted(space: dice::DiceSpace) -> &'static str {
    if space == dice::DiceSpace::SIX {
        DICE_SIX
    } else {
        DICE
    }
}
/// What `card` must be.
const CARD: &str = r#"an object of box name to integer points, like {"ones": 3, "full-house": 25} (leave it out for a new game)"#;
/// What the points of a box must be.
const POINTS: &str = "an integer of points, like 3";
/// What `yahtzee_bonus` must be.
const BONUS: &str = "an integer, 0 or more, like 1 (leave it out for none)";

impl Query {
    /// Reads one line (without its line end) of a game of five dice: see [`Query::parse_in`].
    pub fn parse(line: &[u8]) -> Result<Query, BatchError> {
        Query::parse_in(line, dice::DiceSpace::FIVE)
    }

    /// Reads one line (without its line end) of a game of `space`'s dice: UTF-8, JSON, an
    /// object of the keys of [`KEYS`], each once, each of its type. The errors' examples are
    /// queries of the game's dice (the dice themselves are checked against the game by
    /// [`Query::position`]).
    pub fn parse_in(line: &[u8], space: dice::DiceSpace) -> Result<Query, BatchError> {
        let text = std::str::from_utf8(line).map_err(|e| BatchError::NotUtf8 {
            column: e.valid_up_to() + 1,
            dice: space,
        })?;
        if text.trim().is_empty() {
            return Err(BatchError::Blank { dice: space });
        }
        let json: Json = serde_json::from_str(text).map_err(|e| BatchError::Json {
            reason: e.to_string(),
            dice: space,
        })?;
        let Json::Object(entries) = json else {
            return Err(BatchError::NotObject {
                got: json.describe(),
                dice: space,
            });
        };
        let (mut card_entries, mut yahtzee_bonus, mut dice, mut rolls_left, mut target) =
            (Vec::new(), 0, None, None, None);
        let mut saved = None;
        let mut theta = None;
        let mut opponents = None;
        let (mut two_player, mut lead) = (false, None);
        // Only keys of KEYS are ever added, each at most once.
        let mut seen: Vec<&str> = Vec::new();
        for (key, value) in &entries {
            let key = key.as_str();
            if seen.contains(&key) {
                return Err(BatchError::DuplicateKey {
                    key: key.to_string(),
                });
            }
            match key {
                "card" => card_entries = card(value)?,
                "yahtzee_bonus" => {
                    yahtzee_bonus = value
                        .integer()
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or_else(|| value.wrong(key, BONUS))?
                }
                "dice" => dice = Some(dice_of(value, space)?),
                "rolls_left" => {
                    rolls_left = Some(
                        value
                            .integer()
                            .filter(|n| (0..=MOST_ROLLS_LEFT).contains(n))
                            .map(|n| n as u8)
                            .ok_or_else(|| value.wrong(key, ROLLS_LEFT))?,
                    )
                }
                "saved" => {
                    saved = Some(
                        value
                            .integer()
                            .filter(|n| (0..=2 * MAX_BOXES as i128).contains(n))
                            .map(|n| n as u8)
                            .ok_or_else(|| value.wrong(key, SAVED))?,
                    )
                }
                "target" => {
                    target = Some(
                        value
                            .integer()
                            .and_then(|n| u32::try_from(n).ok())
                            .filter(|&n| n <= MAX_TARGET)
                            .ok_or_else(|| value.wrong(key, TARGET))?,
                    )
                }
                "theta" => {
                    let number = match value {
                        Json::Integer(n) => *n as f64,
                        Json::Float(x) => *x,
                        _ => return Err(value.wrong(key, THETA)),
                    };
                    theta = Some(Theta::new(number)?);
                }
                "opponents" => opponents = Some(opponents_of(value)?),
                "two_player" => match value {
                    Json::Bool(b) => two_player = *b,
                    _ => return Err(value.wrong(key, TWO_PLAYER)),
                },
                "lead" => {
                    lead = Some(
                        value
                            .integer()
                            .and_then(|n| i64::try_from(n).ok())
                            .filter(|n| n.abs() <= MAX_LEAD)
                            .ok_or_else(|| value.wrong(key, LEAD))?,
                    )
                }
                _ => {
                    return Err(BatchError::UnknownKey {
                        key: excerpt(key),
                        dice: space,
                    });
                }
            }
            seen.push(key);
        }
        if two_player {
            if target.is_some() {
                return Err(BatchError::TwoPlayerTarget);
            }
            let got = opponents.as_ref().map_or(0, Vec::len);
            if got != 1 {
                return Err(BatchError::TwoPlayerOpponents { got });
            }
        } else if lead.is_some() {
            return Err(BatchError::LeadWithoutTwoPlayer);
        }
        if target.is_some() && opponents.is_some() {
            return Err(BatchError::TwoObjectives);
        }
        if theta.is_some() && (target.is_some() || opponents.is_some() || two_player) {
            return Err(BatchError::ThetaWithOther);
        }
        Ok(Query {
            card: card_entries,
            yahtzee_bonus,
            dice: dice.ok_or(BatchError::NoDice { dice: space })?,
            rolls_left,
            saved,
            target,
            theta,
            opponents,
            two_player,
            lead,
        })
    }

    /// The position under `rules`: the card, the dice and the rolls left checked against
    /// the rules.
    pub fn position(&self, rules: Rules) -> Result<Position, BatchError> {
        let card = card_of(rules, &self.card, self.yahtzee_bonus).map_err(BatchError::Card)?;
        let rerolls = rules.most_rolls_left();
        let rolls_left = if rules.saved_rolls() {
            // Under saved rolls: the turn's re-rolls and the rolls saved before it.
            let saved = self.saved.unwrap_or(0);
            crate::policy::saved::rerolls_left(&rules, &card, saved, self.rolls_left)?
        } else {
            if let Some(saved) = self.saved {
                return Err(BatchError::Value {
                    key: "saved".to_string(),
                    expected: "left out: this game does not keep unused rolls for later turns",
                    got: saved.to_string(),
                });
            }
            let rolls_left = self.rolls_left.unwrap_or(rerolls);
            check_rolls_left(&rules, u32::from(rolls_left))?;
            rolls_left
        };
        Ok(Position {
            card,
            dice: rules.dice().check(self.dice).map_err(AdviceError::from)?,
            rolls_left,
        })
    }

    /// The opponents under `rules`, each card checked against the rules (none: no
    /// opponents were given).
    pub fn opponents(&self, rules: Rules) -> Result<Option<Vec<Opponent>>, BatchError> {
        let Some(opponents) = &self.opponents else {
            return Ok(None);
        };
        opponents
            .iter()
            .enumerate()
            .map(|(which, o)| match o {
                OpponentQuery::Finished(score) => Ok(Opponent::Finished(*score)),
                OpponentQuery::Playing {
                    card,
                    yahtzee_bonus,
                } => {
                    // A full card is a finished opponent (its total), as at a table.
                    crate::policy::win::opponent_of(card_of(rules, card, *yahtzee_bonus))
                        .map_err(|source| BatchError::OpponentCard { which, source })
                }
            })
            .collect::<Result<Vec<_>, BatchError>>()
            .map(Some)
    }
}

fn card_of(
    rules: Rules,
    card: &[(String, i64)],
    yahtzee_bonus: u32,
) -> Result<ScoreCard, CardError> {
    let entries: Vec<(String, String)> = card
        .iter()
        .map(|(name, points)| (name.clone(), points.to_string()))
        .collect();
    ScoreCard::from_entries(rules, &entries, yahtzee_bonus)
}

fn opponents_of(value: &Json) -> Result<Vec<OpponentQuery>, BatchError> {
    let Json::Array(items) = value else {
        return Err(value.wrong("opponents", OPPONENTS));
    };
    if items.is_empty() {
        return Err(value.wrong("opponents", OPPONENTS));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = |key: &str| format!("opponents[{i}].{key}");
            let Json::Object(entries) = item else {
                return Err(item.wrong(&format!("opponents[{i}]"), OPPONENT));
            };
            let (mut card_entries, mut bonus, mut finished) = (None, 0, None);
            let mut seen: Vec<&str> = Vec::new();
            for (key, value) in entries {
                let key = key.as_str();
                if seen.contains(&key) {
                    return Err(BatchError::DuplicateKey { key: at(key) });
                }
                match key {
                    "card" => card_entries = Some(card(value)?),
                    "yahtzee_bonus" => {
                        bonus = value
                            .integer()
                            .and_then(|n| u32::try_from(n).ok())
                            .ok_or_else(|| value.wrong(&at(key), BONUS))?
                    }
                    "final" => {
                        finished = Some(
                            value
                                .integer()
                                .and_then(|n| u32::try_from(n).ok())
                                .filter(|&n| n <= MAX_TARGET)
                                .ok_or_else(|| value.wrong(&at(key), FINAL))?,
                        )
                    }
                    _ => return Err(item.wrong(&format!("opponents[{i}]"), OPPONENT)),
                }
                seen.push(key);
            }
            match (card_entries, finished) {
                (card, None) => Ok(OpponentQuery::Playing {
                    card: card.unwrap_or_default(),
                    yahtzee_bonus: bonus,
                }),
                (None, Some(score)) if !seen.contains(&"yahtzee_bonus") => {
                    Ok(OpponentQuery::Finished(score))
                }
                _ => Err(item.wrong(&format!("opponents[{i}]"), OPPONENT)),
            }
        })
        .collect()
}

fn card(value: &Json) -> Result<Vec<(String, i64)>, BatchError> {
    let Json::Object(entries) = value else {
        return Err(value.wrong("card", CARD));
    };
    // Any integer is taken here: the card's own check says what each box can hold.
    entries
        .iter()
        .map(|(name, points)| {
            points
                .integer()
                .and_then(|n| i64::try_from(n).ok())
                .map(|p| (name.clone(), p))
                .ok_or_else(|| points.wrong(&format!("card.{}", excerpt(name)), POINTS))
        })
        .collect()
}

/// The dice of a query: an array of faces (whether they are the game's number of dice is
/// checked with the rules); the error names what the game's dice must be.
fn dice_of(value: &Json, space: dice::DiceSpace) -> Result<Dice, BatchError> {
    let wanted = dice_wanted(space);
    let Json::Array(items) = value else {
        return Err(value.wrong("dice", wanted));
    };
    let faces: Option<Vec<u8>> = items
        .iter()
        .map(|v| v.integer().and_then(|f| u8::try_from(f).ok()))
        .collect();
    faces
        .and_then(|f| Dice::from_faces(&f).ok())
        .ok_or_else(|| value.wrong("dice", wanted))
}

/// Answers one line: the advice of its position with `tables` ([`policy::advise`], whose
/// solve stops once `cancel` is set), or why there is none.
pub fn answer(tables: &TableSet, line: &[u8], cancel: &Cancel) -> Result<Answer, BatchError> {
    let (position, objective) = question(*tables.rules(), line)?;
    Ok(policy::advise(
        tables,
        &position,
        &objective,
        &|_, _| {},
        cancel,
    )?)
}

/// The position and the objective of one line under `rules`, every key checked as
/// [`answer`] checks it, before any table is read: for a front end that answers some lines
/// otherwise (the server, whose answer is the expected score's while the objective's table
/// is being built).
pub fn question(rules: Rules, line: &[u8]) -> Result<(Position, Objective), BatchError> {
    let query = Query::parse_in(line, rules.dice())?;
    let position = query.position(rules)?;
    let objective = match (query.two_player, query.opponents(rules)?, query.target) {
        (true, opponents, _) => {
            let opponents = opponents.unwrap_or_default();
            let [opponent] = &opponents[..] else {
                return Err(BatchError::TwoPlayerOpponents {
                    got: opponents.len(),
                });
            };
            Objective::TwoPlayer {
                opponent: opponent.clone(),
                lead: query.lead,
            }
        }
        (false, Some(opponents), _) => Objective::Win(opponents),
        (false, None, Some(target)) => Objective::Target(target),
        (false, None, None) => match query.theta {
            Some(theta) => Objective::Theta(theta),
            None => Objective::ExpectedScore,
        },
    };
    Ok((position, objective))
}

impl From<AdviseError> for BatchError {
    fn from(e: AdviseError) -> BatchError {
        match e {
            AdviseError::Advice(e) => BatchError::Advice(e),
            AdviseError::Target(e) => e.into(),
            AdviseError::Win(e) => e.into(),
            AdviseError::TwoPlayer(e) => e.into(),
            AdviseError::Table(e) => BatchError::Table(e),
            AdviseError::Cancelled => BatchError::Cancelled,
        }
    }
}

/// The columns of [`option_values`] before the boxes' in a game of five dice: one per
/// subset of the five dice ([`keep_columns`] of any game).
pub const KEEP_COLUMNS: usize = 1 << dice::DICE;

/// The columns of [`option_values`] before the boxes' in a game of `space`'s dice: one per
/// subset of the dice (32 for five, 64 for six).
pub fn keep_columns(space: dice::DiceSpace) -> usize {
    1 << space.dice()
}

/// The expected-score advice of many positions as one matrix, without JSON: row `i` holds
/// the `expected_final` of every option of `positions[i]`, as [`answer`] ranks them
/// ([`expected::advise`], the one valuation), in fixed columns: column `m` (below
/// [`keep_columns`], 32 with five dice) is the keep of the dice at the set bits of `m`, the
/// dice ascending (bit 0 the lowest die; `m = 31`, all five, stops and scores the best box),
/// column `keep_columns + b` scores box `b` (card order). Columns that are not options of the
/// position are NaN: the keeps with no rolls left, the boxes with rolls left, the boxes that
/// cannot be filled. Keeps of equal faces (two of `[1, 3, 3, 5, 6]`'s masks keep one 3) hold
/// the same value. The rows are `keep_columns + boxes` wide, row after row; the positions
/// are valued in parallel. The first position that cannot be advised on, with its index.
pub fn option_values(
    table: &StrategyTable,
    positions: &[Position],
) -> Result<Vec<f64>, (usize, AdviceError)> {
    use rayon::prelude::*;
    let rules = table.rules();
    let keeps = keep_columns(rules.dice());
    let width = keeps + rules.box_count();
    let mut values = vec![f64::NAN; width * positions.len()];
    values
        .par_chunks_mut(width)
        .zip(positions)
        .enumerate()
        .try_for_each(|(i, (row, position))| {
            let advice = expected::advise(table, position).map_err(|e| (i, e))?;
            let faces = position.dice.faces();
            for option in &advice.options {
                match &option.action {
                    Action::Keep { keep, .. } => {
                        for (mask, cell) in row[..keeps].iter_mut().enumerate() {
                            let kept = (0..faces.len()).filter(|d| mask & (1 << d) != 0);
                            if kept.map(|d| faces[d]).eq(keep.faces()) {
                                *cell = option.expected_final;
                            }
                        }
                    }
                    Action::Score { category, .. } => {
                        let b = rules.box_by_name(category).expect("a box of the rules");
                        row[keeps + b] = option.expected_final;
                    }
                }
            }
            Ok(())
        })?;
    Ok(values)
}

/// The output line of one input line (without its line end): the advice as JSON, or
/// `{"error": "..."}`.
pub fn answer_line(table: &TableSet, line: &[u8]) -> String {
    // Each answer states its provenance: a line is a result of its own.
    let answer =
        answer(table, line, &Cancel::new()).map(|a| serde_json::to_string(&stamped_by(&a, table)));
    match answer {
        Ok(Ok(json)) => json,
        Ok(Err(e)) => error_line(&e.to_string()),
        Err(e) => error_line(&e.to_string()),
    }
}

fn error_line(message: &str) -> String {
    serde_json::json!({ "error": message }).to_string()
}

/// The longest query line, in bytes (its line end aside): a query with seven opponents'
/// cards is under 2 KB. A longer line is answered with one error line and skipped to its end
/// without being kept, so no input can make the batch hold more than this.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Reads the next line of `input` into `line` (its `\n` dropped), at most
/// [`MAX_LINE_BYTES`] bytes of it: `Ok(None)` at the end of the input, `Ok(Some(true))` for a
/// line, `Ok(Some(false))` for a line that was longer (read to its end and dropped).
fn next_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<Option<bool>> {
    line.clear();
    let mut fits = true;
    let mut read_any = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            // The end of the input: the last line had no line end.
            return Ok(read_any.then(|| end_line(line, fits)));
        }
        read_any = true;
        let (part, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(end) => (&buf[..end], Some(end + 1)),
            None => (buf, None),
        };
        if fits && line.len() + part.len() <= MAX_LINE_BYTES + 1 {
            // One byte over the limit is kept: a `\r` before the `\n` is not counted.
            line.extend_from_slice(part);
        } else {
            fits = false;
            line.clear();
        }
        let used = done.unwrap_or(buf.len());
        input.consume(used);
        if done.is_some() {
            return Ok(Some(end_line(line, fits)));
        }
    }
}

/// The end of a line read by [`next_line`]: a `\r` before the line end dropped, and whether
/// it fits in [`MAX_LINE_BYTES`].
fn end_line(line: &mut Vec<u8>, fits: bool) -> bool {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if !fits || line.len() > MAX_LINE_BYTES {
        line.clear();
        return false;
    }
    true
}

/// Answers every line of `input` on `output`, one line each, in order, and returns the number
/// of lines. A line ends at `\n` (a `\r` before it is dropped); the last may have no line end;
/// a byte-order mark at the start of the input is skipped; a line longer than
/// [`MAX_LINE_BYTES`] gets an error line. Each answer is written and flushed as soon as it is
/// ready, before the next line is read: a caller that sends one query at a time gets each
/// answer at once, and a batch stopped in the middle (killed while a later line waits on a
/// table being built) keeps every answer it finished. (A flush is one write of one line: a
/// few microseconds, against the tens of an answer.)
pub fn run(table: &TableSet, input: impl Read, mut output: impl Write) -> io::Result<u64> {
    let mut input = BufReader::with_capacity(1 << 16, input);
    let mut line = Vec::new();
    let mut count = 0;
    while let Some(fits) = next_line(&mut input, &mut line)? {
        let mut text = &line[..];
        if count == 0 {
            text = crate::text::without_bom(text);
        }
        let answer = if fits {
            answer_line(table, text)
        } else {
            error_line(
                &BatchError::TooLong {
                    dice: table.rules().dice(),
                }
                .to_string(),
            )
        };
        // The answer and its line end in one write.
        let mut bytes = answer.into_bytes();
        bytes.push(b'\n');
        output.write_all(&bytes)?;
        output.flush()?;
        count += 1;
    }
    Ok(count)
}

/// A JSON value as written, keeping every key of an object in order, duplicates included
/// (`serde_json::Value` keeps only the last of a repeated key).
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Integer(i128),
    Float(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn integer(&self) -> Option<i128> {
        match self {
            Json::Integer(n) => Some(*n),
            _ => None,
        }
    }

    /// The value in words for an error message, quoting text only as an excerpt.
    fn describe(&self) -> String {
        match self {
            Json::Null => "null".to_string(),
            Json::Bool(b) => b.to_string(),
            Json::Integer(n) => excerpt(&n.to_string()),
            // As a number with a decimal point or an exponent, as it was written: `1.0` (not
            // `1`, an integer the key would take), 2^64 as `1.8446744073709552e19` (not the
            // digits of a float that were never typed).
            Json::Float(x) => excerpt(&format!("{x:?}")),
            Json::String(s) => format!("the string \"{}\"", excerpt(s)),
            Json::Array(items) => {
                let faces: Option<Vec<u8>> = items
                    .iter()
                    .map(|v| v.integer().and_then(|f| u8::try_from(f).ok()))
                    .collect();
                match faces {
                    Some(f) if f.len() <= 8 => format!("[{}]", join_faces(&f).replace(' ', ", ")),
                    _ => {
                        let items_text = crate::text::plural(items.len() as u64, "item", "items");
                        // What is not a face, named: `["1", ...]` holds strings.
                        match items.iter().find(|v| v.integer().is_none()) {
                            Some(odd) => {
                                format!("an array of {items_text}, among them {}", odd.describe())
                            }
                            None => format!("an array of {items_text}"),
                        }
                    }
                }
            }
            Json::Object(entries) => format!(
                "an object of {}",
                crate::text::plural(entries.len() as u64, "key", "keys")
            ),
        }
    }

    fn wrong(&self, key: &str, expected: &'static str) -> BatchError {
        BatchError::Value {
            key: key.to_string(),
            expected,
            got: self.describe(),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Integer(i128::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Integer(i128::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        Ok(Json::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            entries.push((key, value));
        }
        Ok(Json::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(line: &str) -> String {
        Query::parse(line.as_bytes()).unwrap_err().to_string()
    }

    #[test]
    fn a_full_query_parses_with_its_defaults() {
        let q = Query::parse(br#"{"dice": [6, 1, 3, 3, 5]}"#).unwrap();
        assert_eq!(q.dice.faces(), [1, 3, 3, 5, 6]);
        assert_eq!((q.rolls_left, q.yahtzee_bonus), (None, 0));
        assert!(q.card.is_empty());
        let q = Query::parse(
            br#"{"card": {"ones": 3, "yahtzee": 50}, "yahtzee_bonus": 1, "dice": [4,4,4,4,4], "rolls_left": 0}"#,
        )
        .unwrap();
        assert_eq!(
            q.card,
            [("ones".to_string(), 3), ("yahtzee".to_string(), 50)]
        );
        assert_eq!((q.rolls_left, q.yahtzee_bonus), (Some(0), 1));
    }

    #[test]
    fn batch_duplicate_keys_are_refused_at_the_top_and_in_the_card() {
        assert!(
            err(r#"{"dice": [1,2,3,4,5], "dice": [6,6,6,6,6]}"#).contains("`dice` is given twice"),
        );
        // Inside the card, both entries reach the card's check, which refuses the second.
        let q = Query::parse(br#"{"card": {"ones": 1, "ones": 3}, "dice": [1,2,3,4,5]}"#).unwrap();
        assert_eq!(q.card.len(), 2);
        let e = q
            .position(Rules::new(crate::game::rules::RuleSet::YAHTZEE))
            .unwrap_err();
        assert!(e.to_string().contains("given twice"), "{e}");
    }

    #[test]
    fn batch_values_have_one_strict_type() {
        for (line, needle) in [
            (
                r#"{"card": {"ones": "3"}, "dice": [1,2,3,4,5]}"#,
                "card.ones must be an integer of points, like 3, not the string \"3\"",
            ),
            (
                r#"{"card": {"ones": 3.0}, "dice": [1,2,3,4,5]}"#,
                "card.ones must be an integer",
            ),
            (
                r#"{"card": "ones=3", "dice": [1,2,3,4,5]}"#,
                "card must be an object of box name to integer points",
            ),
            (
                r#"{"card": null, "dice": [1,2,3,4,5]}"#,
                "card must be an object",
            ),
            (
                r#"{"dice": "12345"}"#,
                "dice must be an array of five integer faces from 1 to 6, like [1, 3, 3, 5, 6], not the string \"12345\"",
            ),
            (r#"{"dice": [1,2,3,4]}"#, "not [1, 2, 3, 4]"),
            (r#"{"dice": [1,2,3,4,7]}"#, "not [1, 2, 3, 4, 7]"),
            (r#"{"dice": [1,2,3,4,"5"]}"#, "not an array of 5 items"),
            (
                r#"{"dice": [1,2,3,4,5], "rolls_left": "1"}"#,
                "rolls_left must be the integer 0, 1 or 2 (to 3 in a game of four rolls a turn, more with saved rolls), not the string \"1\"",
            ),
            (
                r#"{"dice": [1,2,3,4,5], "rolls_left": 99}"#,
                "rolls_left must be the integer 0, 1 or 2 (to 3 in a game of four rolls a turn, more with saved rolls), not 99",
            ),
            (
                r#"{"dice": [1,2,3,4,5], "yahtzee_bonus": "1"}"#,
                "yahtzee_bonus must be an integer",
            ),
            (r#"{"dice": [1,2,3,4,5], "yahtzee_bonus": -1}"#, "not -1"),
            (r#"{"dice": [1,2,3,4,5], "yahtzee_bonus": 1e2}"#, "not 100"),
        ] {
            let e = err(line);
            assert!(e.contains(needle), "{line}: {e}");
        }
    }

    #[test]
    fn batch_unknown_keys_and_other_shapes_are_refused_with_the_expected_shape() {
        let e = err(r#"{"dice": [1,2,3,4,5], "rolls": 1}"#);
        assert!(
            e.starts_with(
                "unknown key `rolls`: the keys are card, yahtzee_bonus, dice, rolls_left"
            ),
            "{e}"
        );
        assert!(e.contains(EXAMPLE));
        assert!(err("[1, 2, 3, 4, 5]").contains("[1, 2, 3, 4, 5] is not an object"));
        assert!(err("not json").starts_with("bad query, not JSON"));
        assert!(err("   ").starts_with("empty line"));
        assert!(err("{}").starts_with("the query has no dice"));
        assert!(err("{\"x\n").contains("not JSON"));
        let e = Query::parse(b"{\"dice\": [1,2,3,4,5]}\xff").unwrap_err();
        assert_eq!(
            e,
            BatchError::NotUtf8 {
                column: 22,
                dice: dice::DiceSpace::FIVE
            }
        );
    }

    #[test]
    fn batch_errors_quote_long_input_only_as_an_excerpt() {
        let long = "x".repeat(1_000_000);
        for line in [
            format!(r#"{{"{long}": 1, "dice": [1,2,3,4,5]}}"#),
            format!(r#"{{"dice": "{long}"}}"#),
            format!(r#"{{"card": {{"{long}": "1"}}, "dice": [1,2,3,4,5]}}"#),
            format!(r#"{{"dice": [{}1]}}"#, "1,".repeat(100_000)),
        ] {
            let e = err(&line);
            assert!(e.len() < 400, "{} bytes: {}", e.len(), &e[..200]);
        }
    }
}
