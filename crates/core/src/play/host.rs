//! The game in progress: one state machine that every front end drives, the terminal's
//! `yahtzee play` ([`super::session`]) and the games of the web page alike.
//!
//! A [`Host`] owns everything a game in progress needs, so that it lives as long as its front
//! end keeps it (the page keeps its games in the server's memory): the referee ([`Game`]), the
//! record (its [`Header`] and every line written so far), the dice (drawn from a seed, five for
//! an opening roll or a first roll and one per re-rolled die, or typed from a real table), the
//! bots (each bot seat's [`Policy`], played with the tables of the game's [`TableSet`], which
//! the host shares), the coach (what it prices a person's decisions in, and its threshold),
//! and the plies of the game of two when a two-player bot plays.
//!
//! A front end calls [`Host::start`], then, each time the host waits for someone
//! ([`Host::due`]), the call of what was typed: [`Host::roll`] (dice from a real table),
//! [`Host::keep`], [`Host::score`] or [`Host::leave`]. Each call plays on whatever needs no
//! person (seeded dice, the play order, the bots' moves, the end) until a person or typed dice
//! are due again, and refuses what the referee refuses, with the referee's message. What
//! happens reaches the front end as it is made, through its [`Front`]: each record line (the
//! terminal appends it to its file at once), and each [`Message`], which each front end shows
//! its own way; [`Message::line`] is the line both show where they show it alike.
//!
//! A bot's move is decided in one place, [`Host`]'s `play_bot`: the turn of a match's seat
//! ([`Player::turn_in_game`]), against the other players' cards at the start of the move
//! (finished players at their totals) for a bot playing to win. A person's decision is priced
//! in one place, by a [`Pricer`] of the coach's objective (`yahtzee review`'s computation);
//! the hints rank the options with the same pricer ([`Host::advise`]).
//!
//! Under saved rolls (rules with `saved_rolls`) the referee keeps each seat's rolls saved, a
//! turn has the game's re-rolls and those, and a box filled with re-rolls left saves them; the
//! optimal bot plays [`SavedTurn::best`] and the coach and the hints price with
//! [`evaluate_saved`] and [`crate::policy::saved::advise`], the table of saved rolls read a
//! card at a time ([`SavedCards`]). Such a game is solved for the expected score alone: other
//! bots and coaches are refused ([`PlayOptions::check_saved_rolls`]).

use std::sync::Arc;

use crate::game::dice::{Dice, DiceRng, join_faces};
use crate::game::rules::{Order, Rules};
use crate::policy::player::{AtTable, Player, PlayerError, check_players};
use crate::policy::pricing::{Evaluation, Pricer, Pricing, PricingError, Solves};
use crate::policy::target::TargetPlayer;
use crate::policy::two_player::NextPlies;
use crate::policy::win::{opponent_scores, opponents_at_table};
use crate::policy::{Answer, MAX_TARGET, Needs, Policy};
use crate::solve::simd::Simd;
use crate::tables::provenance::Provenance;
use crate::tables::set::{LoadError, TableSet};
use crate::text::{excerpt, plural, probability};

use super::record::now_utc;
use super::{
    DiceMode, Event, Game, Header, Illegal, Phase, RECORD_FORMAT, Seat, SeatKind, WinPolicy, agree,
    attainable, box_names, check_legal, check_names,
};
use crate::policy::expected::{Action, Position};
use crate::policy::pricing::{Decision, evaluate_saved};
use crate::policy::saved::{SavedCards, SavedTurn};
use crate::tables::set::saved_rolls_only;

/// Where the dice come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiceSource {
    /// Rolled by the program from this seed.
    Seeded(u64),
    /// Typed by the players.
    Manual,
}

/// A validated request to play.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// The rules; the tables must be of the same rules.
    pub rules: Rules,
    /// The seats in table order.
    pub seats: Vec<Seat>,
    /// The dice.
    pub dice: DiceSource,
    /// The coach speaks after a person's decision that loses at least this much (and more
    /// than nothing): points, or chance with a `coach_target` or `coach_win`; `None`: the
    /// coach is off.
    pub coach_threshold: Option<f64>,
    /// The coach (and the hints) price the people's decisions in chance of a final score of
    /// at least this target; `None`: in expected points.
    pub coach_target: Option<u32>,
    /// The coach (and the hints) price the people's decisions in chance of winning against
    /// the other players at the table (not with a `coach_target`).
    pub coach_win: bool,
}

impl PlayOptions {
    /// What the coach prices the people's decisions in.
    pub fn coach_objective(&self) -> CoachObjective {
        match (self.coach_target, self.coach_win) {
            (_, true) => CoachObjective::Win,
            (Some(t), false) => CoachObjective::Target(t),
            (None, false) => CoachObjective::ExpectedScore,
        }
    }

    /// Under saved rolls, refuses what is not solved under them: a coach for a target or for
    /// winning, and bots playing for a target or to win (the optimal bot and the coach in
    /// expected points play and price with the table of saved rolls).
    pub fn check_saved_rolls(&self) -> Result<(), HostError> {
        if !self.rules.saved_rolls() {
            return Ok(());
        }
        let refused = |what: &str| Err(HostError::SavedRolls(saved_rolls_only(&self.rules, what)));
        if self.coach_objective() != CoachObjective::ExpectedScore {
            return refused("a coach for a target or for winning");
        }
        if (self.seats.iter()).any(|s| s.bot_policy().is_some_and(|p| p != Policy::Optimal)) {
            return refused("bots playing for a target or to win");
        }
        Ok(())
    }

    /// Loads (or builds) every table the game needs ([`PlayOptions::needs`]); under saved
    /// rolls, checks what it refuses ([`PlayOptions::check_saved_rolls`]) and builds the table
    /// of saved rolls when missing (then read a card at a time as the game goes).
    pub fn load(&self, tables: &TableSet) -> Result<(), HostError> {
        if self.rules.saved_rolls() {
            self.check_saved_rolls()?;
            tables.saved_for(&[0])?;
            return Ok(());
        }
        Ok(self.needs().load(tables)?)
    }

    /// The tables the game needs: the expected-score table, and those of its bots' policies
    /// ([`Needs::of`]) and of its coach (the target table for a coach target, the distribution
    /// table to coach for winning).
    pub fn needs(&self) -> Needs {
        let policies: Vec<Policy> = self.seats.iter().filter_map(Seat::bot_policy).collect();
        let bots = Needs::of(&policies);
        let coach = self.coach_objective();
        Needs {
            ev: true,
            targets: bots.targets || matches!(coach, CoachObjective::Target(_)),
            distribution: bots.distribution || coach == CoachObjective::Win,
            two_player: bots.two_player,
        }
    }
}

/// Parses `alice,bob,bot`: a seat named `bot`, or `bot` followed by digits (`bot2`), is the
/// optimal bot, `bot:target=300` a bot playing for a final score of at least 300 (the
/// seat is named `bot`), `bot:win` (`bot:win-exact`) a bot playing to win against the
/// other players with the `win` (`win-exact`) policy of a match, and `bot:two-player` a bot
/// playing the exact game of two; any other name is a person. The names are checked as the
/// referee checks them ([`check_names`]).
pub fn parse_seats(text: &str) -> Result<Vec<Seat>, Illegal> {
    let mut seats: Vec<Seat> = Vec::new();
    for item in text.split(',').map(str::trim) {
        let (name, policy) = match item.split_once(':') {
            Some((name, policy)) => (name.trim(), Some(policy.trim())),
            None => (item, None),
        };
        let lower = name.to_ascii_lowercase();
        let is_bot = lower
            .strip_prefix("bot")
            .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit()));
        let win = match policy.map(str::to_ascii_lowercase).as_deref() {
            Some("win") if is_bot => Some(WinPolicy::Win),
            Some("win-exact") if is_bot => Some(WinPolicy::WinExact),
            Some("two-player") if is_bot => Some(WinPolicy::TwoPlayer),
            Some("win" | "win-exact" | "two-player") => {
                return Err(Illegal::BadPolicy {
                    seat: excerpt(item),
                });
            }
            _ => None,
        };
        let target = match policy {
            None => None,
            Some(_) if win.is_some() => None,
            Some(policy) => {
                let t = policy
                    .split_once('=')
                    .filter(|(key, _)| key.trim().eq_ignore_ascii_case("target"))
                    .and_then(|(_, t)| t.trim().parse::<u32>().ok())
                    .filter(|&t| t <= MAX_TARGET && is_bot);
                match t {
                    Some(t) => Some(t),
                    None => {
                        return Err(Illegal::BadPolicy {
                            seat: excerpt(item),
                        });
                    }
                }
            }
        };
        seats.push(Seat {
            name: name.to_string(),
            kind: if is_bot {
                SeatKind::Bot
            } else {
                SeatKind::Human
            },
            target,
            policy: win,
            entry: Default::default(),
        });
    }
    check_names(&seats)?;
    Ok(seats)
}

/// The start of a record for `options`, stamped now.
pub fn header(options: &PlayOptions) -> Header {
    Header {
        format: RECORD_FORMAT,
        rules: options.rules.set,
        upper_first: options.rules.order == Order::UpperFirst,
        seats: options.seats.clone(),
        dice: match options.dice {
            DiceSource::Seeded(_) => DiceMode::Seeded,
            DiceSource::Manual => DiceMode::Manual,
        },
        seed: match options.dice {
            DiceSource::Seeded(s) => Some(s),
            DiceSource::Manual => None,
        },
        coach_threshold: options.coach_threshold,
        coach_target: options.coach_target,
        coach_win: options.coach_win,
        started: now_utc().0,
        provenance: Some(Provenance::of(None)),
    }
}

/// What the coach prices a person's decisions in (and the hints rank the options by).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoachObjective {
    /// Expected points, against optimal play.
    ExpectedScore,
    /// Chance of a final score of at least this target.
    Target(u32),
    /// Chance of winning against the other players at the table.
    Win,
}

/// Why a game cannot be hosted, or a move cannot be made. A front end shows the message; the
/// refusals of a person's move ([`HostError::Refused`] and the others a person can cause) say
/// what to do instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// The seats cannot play (no seat, a bad or repeated name, a two-player bot outside a game
    /// of two of Yacht). Fix: name the players again.
    #[error(transparent)]
    Seats(Illegal),
    /// The tables are of other rules than the game. Fix: the tables of the game's rules.
    #[error("the table is for {table}, the game for {game}: load the table of {game}")]
    WrongTable {
        /// The rules of the tables.
        table: String,
        /// The rules of the game.
        game: String,
    },
    /// The coach prices in chance of winning, and for a target too, or at a table of one.
    /// Fix: coach for one of them, at a table of two or more for winning.
    #[error(
        "the coach prices to win against the other players or for a target, not both, and to win only at a table of two or more"
    )]
    CoachWin,
    /// A table the bots or the coach need cannot be loaded or built (see [`LoadError`]).
    #[error(transparent)]
    Table(#[from] LoadError),
    /// A table of a bot, or the coach's target table, does not fit the game, or one of its
    /// cards could not be read (see [`PlayerError`]). Fix: load, or rebuild, the tables of
    /// the game's rules.
    #[error(transparent)]
    Bots(#[from] PlayerError),
    /// A table does not fit the game: the coach or a hint could not price the position, or a
    /// bot's opponents (their final scores) or the plies of the game of two could not be had
    /// (see [`PricingError`]). Fix: load the tables of the game's rules.
    #[error(transparent)]
    Pricing(#[from] PricingError),
    /// A person's move that the rules do not allow. Fix: what the message says.
    #[error(transparent)]
    Refused(Illegal),
    /// The host made an event the referee refused: a bug of this program. Fix: report it with
    /// the record.
    #[error("internal error, the referee refused the game's own event: {0}")]
    Internal(Illegal),
    /// Under saved rolls, a coach for a target or for winning, or a bot playing for a target
    /// or to win: the game is solved for the expected score alone. Fix: the coach in points
    /// and the optimal bot.
    #[error("{0}")]
    SavedRolls(String),
    /// A move after the game was left. Fix: start a new game.
    #[error("the game was left: start a new game")]
    Left,
    /// A move after the game ended. Fix: start a new game.
    #[error("the game is over: download its record, or start a new game")]
    Over,
    /// A person's keep or box on a bot's move. Fix: wait for the bot.
    #[error("it is {player}'s move, and {player} is the bot")]
    BotsMove {
        /// The bot.
        player: String,
    },
    /// A seat entered as a box and its points in a game of seeded dice: such a player's dice
    /// are at the table, not drawn. Fix: a game of typed dice.
    #[error(
        "a player entered as a box and its points plays with real dice: start a game of manual dice"
    )]
    PointsSeeded,
    /// A box and its points for a player whose turns are played with the dice. Fix: the dice,
    /// then a keep or a box.
    #[error("{player} plays with the dice entered: give the dice, then a keep or a box")]
    NotPoints {
        /// The player.
        player: String,
    },
    /// A record to resume that does not replay. Fix: a record this program wrote.
    #[error("line {line} of the record: {reason}")]
    Replay {
        /// The line, from 1.
        line: usize,
        /// Why.
        reason: Illegal,
    },
    /// Dice typed in a game of seeded dice. Fix: a game of typed dice.
    #[error("this game's dice are rolled from its seed: start a game of manual dice to type them")]
    SeededDice,
    /// Dice typed when no roll is due. Fix: the player to move decides first.
    #[error("no dice are due now: the player to move decides (a keep or a box)")]
    NoDiceDue,
    /// Typed dice that are not those of the roll due. Fix: that many faces from 1 to 6.
    #[error("give {} from 1 to 6 for {what}, not {given}", plural(*.count as u64, "die", "dice"))]
    WrongDice {
        /// The dice due.
        count: usize,
        /// The roll due, in words.
        what: String,
        /// The faces given, quoted through [`excerpt`].
        given: String,
    },
    /// A hint asked for when no person decides. Fix: ask at a person's keep or box.
    #[error("no decision is due now: hints are for the keep or the box of the player to move")]
    NoDecisionDue,
    /// The record reached the most lines a front end keeps. Fix: start a new game.
    #[error("the game has {limit} record lines, the most a game may have: start a new game")]
    TooLong {
        /// The most lines.
        limit: usize,
    },
}

/// What the game waits for.
#[derive(Clone, Debug, PartialEq)]
pub enum Due {
    /// Dice typed from a real table: `count` dice of `what` for the player of `seat`.
    Dice {
        /// Whose dice.
        seat: usize,
        /// How many: five, or the dice re-rolled.
        count: usize,
        /// Which roll, in words (`the first roll`, `the re-roll (keeping 3 3)`).
        what: String,
    },
    /// A person's keep (with rolls left) or box, for these dice.
    Decision {
        /// The person's seat.
        seat: usize,
        /// The dice showing.
        dice: Dice,
        /// Rolls left: 0 when a box must be filled.
        rolls_left: u8,
    },
    /// The box and its points of the player of `seat`, whose turns are entered so (a score
    /// pad's other players).
    Points {
        /// The seat.
        seat: usize,
    },
    /// Nothing: the game is over or was left.
    Nothing,
}

/// How a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Being played.
    Playing,
    /// Every card is full: the record has its `end` line.
    Over,
    /// Left before the end: the record has its `end` line, not complete.
    Left,
}

/// Something that happened in the game, as the host tells its front end ([`Front::show`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// The opening rolls begin (a table of two or more).
    OpeningRolls,
    /// An opening roll of the player of `seat`: the dice, in order.
    OpeningRoll {
        /// The seat.
        seat: usize,
        /// The dice, in ascending order.
        dice: Vec<u8>,
    },
    /// A tie for the highest opening total: the tied players roll again.
    OpeningTie,
    /// The play order, decided.
    Order {
        /// The players in play order.
        players: Vec<String>,
    },
    /// The turn of the player of `seat` begins.
    TurnBegins {
        /// The seat.
        seat: usize,
        /// That player's turn, from 1.
        turn: u32,
    },
    /// Dice rolled in a turn.
    Rolled {
        /// The seat.
        seat: usize,
        /// All five dice showing.
        dice: Dice,
        /// Rolls left after this roll.
        rolls_left: u8,
    },
    /// Dice kept for a re-roll; all five: a stop.
    Kept {
        /// The seat.
        seat: usize,
        /// The faces kept, as given.
        keep: Vec<u8>,
    },
    /// A box filled.
    Scored {
        /// The seat.
        seat: usize,
        /// The box.
        category: String,
        /// Its points.
        points: u32,
        /// The bonus points the box earned.
        bonus: u32,
        /// The player's total after it.
        total: u32,
    },
    /// A person's decision, priced by the coach.
    Priced {
        /// The seat.
        seat: usize,
        /// The price.
        evaluation: Evaluation,
        /// What it is priced in.
        objective: CoachObjective,
        /// True when the coach speaks: the decision lost at least the threshold.
        speaks: bool,
    },
    /// The game ended: every card is full (`complete`), or it was left.
    Ended {
        /// True when every card is full.
        complete: bool,
    },
}

impl Message {
    /// The line of the message in words, as the terminal prints it and the page logs it,
    /// `game` being the game just after it; `None` for a message without one (the play order
    /// of a player alone, a price the coach keeps to itself). The front ends part on a few:
    /// the terminal says `keeps nothing` for a bot's re-roll of all five dice, and shows no
    /// person's keep; the page logs neither the opening rolls' start nor a turn's.
    pub fn line(&self, game: &Game) -> Option<String> {
        let name = |seat: usize| game.seats()[seat].name.as_str();
        Some(match self {
            Message::OpeningRolls => {
                format!(
                    "Opening roll: everyone rolls all {} dice, the highest total starts.",
                    crate::text::number_word(game.rules().dice().dice())
                )
            }
            Message::OpeningRoll { seat, dice } => {
                let name = name(*seat);
                let total: u32 = dice.iter().map(|&d| u32::from(d)).sum();
                format!(
                    "{name} {} {} ({total})",
                    agree(name, "rolls", "roll"),
                    join_faces(dice)
                )
            }
            Message::OpeningTie => {
                "A tie for the highest total: the tied players roll again.".into()
            }
            Message::Order { players } if players.len() > 1 => {
                format!("Play order: {}", players.join(", "))
            }
            Message::Order { .. } => return None,
            Message::TurnBegins { seat, turn } => {
                let head = format!(
                    "== {}, turn {turn} of {} ==",
                    name(*seat),
                    game.rules().box_count()
                );
                if !game.rules().saved_rolls() {
                    return Some(head);
                }
                // Under saved rolls: the rolls saved before the turn, and its re-rolls.
                format!(
                    "{head}   ({} saved: {} this turn)",
                    plural(u64::from(game.saved()[*seat]), "roll", "rolls"),
                    plural(u64::from(game.turn_rerolls(*seat)), "re-roll", "re-rolls")
                )
            }
            Message::Rolled {
                seat,
                dice,
                rolls_left,
            } => {
                let left = match rolls_left {
                    0 => "no rolls left".to_string(),
                    n => format!("{} left", plural(u64::from(*n), "roll", "rolls")),
                };
                format!("{} rolled {dice}   ({left})", name(*seat))
            }
            Message::Kept { seat, keep } => {
                let name = name(*seat);
                if keep.len() == game.rules().dice().dice() {
                    format!("{name} {}", agree(name, "stops", "stop"))
                } else if keep.is_empty() {
                    format!("{name} {} all the dice", agree(name, "rerolls", "reroll"))
                } else {
                    format!(
                        "{name} {} {}",
                        agree(name, "keeps", "keep"),
                        join_faces(keep)
                    )
                }
            }
            Message::Scored {
                seat,
                category,
                points,
                bonus,
                total,
            } => {
                let name = name(*seat);
                let extra = if *bonus > 0 {
                    format!(" +{bonus} bonus")
                } else {
                    String::new()
                };
                let saved = match game.rules().saved_rolls() {
                    // The re-rolls left unused are all the rolls saved now.
                    true => format!(", rolls saved: {}", game.saved()[*seat]),
                    false => String::new(),
                };
                format!(
                    "{name} {} {category} for {points}{extra} (total {total}{saved})",
                    agree(name, "scores", "score")
                )
            }
            Message::Priced { speaks: false, .. } => return None,
            Message::Priced {
                evaluation: e,
                objective,
                ..
            } => match objective {
                CoachObjective::Win => format!(
                    "coach: {} lowers the chance of winning by {:.4} ({} instead of {}); best: {}",
                    e.chosen,
                    e.loss,
                    probability(e.chosen_value),
                    probability(e.best_value),
                    e.best
                ),
                CoachObjective::Target(t) => format!(
                    "coach: {} lowers the chance of reaching {t} by {:.4} ({} instead of {}); best: {}",
                    e.chosen,
                    e.loss,
                    probability(e.chosen_value),
                    probability(e.best_value),
                    e.best
                ),
                CoachObjective::ExpectedScore => format!(
                    "coach: {} costs {:.4} points against optimal play (expected final {:.2} instead of {:.2}); best: {}",
                    e.chosen, e.loss, e.chosen_value, e.best_value, e.best
                ),
            },
            Message::Ended { .. } => outcome(game).unwrap_or_else(|| {
                "Game left before the end; the record keeps what was played.".into()
            }),
        })
    }
}

/// The outcome of a finished game in words (`ann wins with 250.`, `ann and bot tie with 250.`,
/// `Game over: 250 points.` for a player alone); `None` before the end.
pub fn outcome(game: &Game) -> Option<String> {
    if !game.is_over() {
        return None;
    }
    let mut ranked = game.totals();
    ranked.sort_by_key(|r| std::cmp::Reverse(r.total));
    if ranked.len() == 1 {
        return Some(format!(
            "Game over: {}.",
            plural(u64::from(ranked[0].total), "point", "points")
        ));
    }
    let top: Vec<&str> = ranked
        .iter()
        .filter(|r| r.total == ranked[0].total)
        .map(|r| r.player.as_str())
        .collect();
    Some(match top.split_last() {
        Some((only, [])) => format!(
            "{only} {} with {}.",
            agree(only, "wins", "win"),
            ranked[0].total
        ),
        Some((last, others)) => format!(
            "{} and {last} tie with {}.",
            others.join(", "),
            ranked[0].total
        ),
        None => String::new(),
    })
}

/// A front end of a game: it is handed each record line and each message as the host makes
/// them.
pub trait Front {
    /// Why the front end cannot go on (its output is closed, its record cannot be written);
    /// the host's own errors become one.
    type Error: From<HostError>;

    /// Takes `line`, the record's newest line (the host keeps every line too:
    /// [`Host::record`]).
    fn record(&mut self, line: &str) -> Result<(), Self::Error>;

    /// Shows `message`, `game` being the game just after it.
    fn show(&mut self, game: &Game, message: &Message) -> Result<(), Self::Error>;
}

/// Who makes an event: a person's move that the referee refuses is the person's to fix
/// ([`HostError::Refused`]); one the host made, a bug ([`HostError::Internal`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum By {
    Person,
    Host,
}

/// The coach: what it prices in, when it speaks, and what its pricer solved so far.
struct Coach {
    objective: CoachObjective,
    /// The coach speaks after a decision that loses at least this much; `None`: it is off.
    threshold: Option<f64>,
    /// Prices every decision of a person even with the coach off (a front end that shows the
    /// price of the last decision).
    every: bool,
    /// What the last pricer solved, for the next decision of the turn.
    solves: Solves,
}

/// A game in progress (see the module's documentation).
pub struct Host {
    tables: Arc<TableSet>,
    game: Game,
    header: Header,
    /// Every line of the record so far, the header first.
    record: Vec<String>,
    /// The most lines of the record, when the front end sets a limit.
    limit: Option<usize>,
    /// The dice of a seeded game; `None`: they are typed.
    rng: Option<DiceRng>,
    /// Each seat's policy: a bot's, `None` for a person.
    bots: Vec<Option<Policy>>,
    coach: Coach,
    /// The plies of the game of two, put away without their table between two turns of a
    /// two-player bot.
    plies: Option<NextPlies<'static>>,
    /// Under saved rolls, the table of saved rolls as the turns read it, a card at a time.
    saved: SavedCards,
    standing: Standing,
}

impl Host {
    /// A new game of `options` with the tables of `tables` (of the same rules), each table
    /// the bots and the coach need loaded (or built) now, and read through, so that no move
    /// of the game can fail on a table. Nothing is played before [`Host::start`].
    pub fn new(tables: Arc<TableSet>, options: &PlayOptions) -> Result<Host, HostError> {
        let game = Game::new(options.rules, options.seats.clone()).map_err(HostError::Seats)?;
        if *tables.rules() != options.rules {
            return Err(HostError::WrongTable {
                table: tables.rules().label(),
                game: options.rules.label(),
            });
        }
        if options.coach_win && (options.coach_target.is_some() || options.seats.len() < 2) {
            return Err(HostError::CoachWin);
        }
        if options.dice != DiceSource::Manual && options.seats.iter().any(Seat::enters_points) {
            return Err(HostError::PointsSeeded);
        }
        let bots: Vec<Option<Policy>> = options.seats.iter().map(Seat::bot_policy).collect();
        let objective = options.coach_objective();
        let head = header(options);
        let host = |plies| Host {
            game,
            record: vec![head.to_line()],
            header: head,
            limit: None,
            rng: match options.dice {
                DiceSource::Seeded(seed) => Some(DiceRng::new(seed)),
                DiceSource::Manual => None,
            },
            bots: bots.clone(),
            coach: Coach {
                objective,
                threshold: options.coach_threshold,
                every: false,
                solves: Solves::default(),
            },
            plies,
            saved: SavedCards::default(),
            standing: Standing::Playing,
            tables: Arc::clone(&tables),
        };
        if options.rules.saved_rolls() {
            // The optimal bot, the coach and the hints read the table of saved rolls a card
            // at a time; its first card now, so that a table that cannot be had fails here.
            options.load(&tables)?;
            return Ok(host(None));
        }
        let needs = options.needs();
        needs.load(&tables)?;
        let players = bots
            .iter()
            .flatten()
            .map(|&p| Player::new(p, &tables))
            .collect::<Result<Vec<Player>, PlayerError>>()?;
        let ev = tables.ev()?;
        if let CoachObjective::Target(_) = objective {
            // Reads every card of the target table, as a target bot does.
            TargetPlayer::new(ev, tables.target()?, 0).map_err(PlayerError::from)?;
        }
        let distribution = match needs.distribution {
            true => Some(&**tables.distribution()?),
            false => None,
        };
        // Reads every card the bots and the coach can ask for, so that no move can fail.
        check_players(&options.rules, &players, distribution)?;
        if objective == CoachObjective::Win {
            check_players(&options.rules, &[Player::WinExact { ev }], distribution)?;
        }
        let plies = match players.iter().find_map(|p| match p {
            Player::TwoPlayer(bot) => Some(bot),
            _ => None,
        }) {
            Some(bot) => {
                let plies = bot.plies(Simd::detect()).map_err(PricingError::from)?;
                Some(plies.with_early(None))
            }
            None => None,
        };
        Ok(host(plies))
    }

    /// This host with a record of at most `limit` lines: a move that would write more is
    /// refused ([`HostError::TooLong`]), for a front end that keeps its games in memory.
    pub fn with_record_limit(mut self, limit: usize) -> Host {
        self.limit = Some(limit);
        self
    }

    /// This host pricing every decision of a person ([`Message::Priced`]), the coach on or
    /// off, for a front end that shows the price of the last decision.
    pub fn pricing_every_decision(mut self) -> Host {
        self.coach.every = true;
        self
    }

    /// Starts the game: hands `front` the record's header, then plays until a person or typed
    /// dice are due.
    pub fn start<F: Front>(&mut self, front: &mut F) -> Result<(), F::Error> {
        front.record(&self.record[0])?;
        if self.game.phase() == Phase::Opening {
            front.show(&self.game, &Message::OpeningRolls)?;
        }
        self.advance(front)
    }

    /// The referee: the seats, the cards, the phase of the game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The record's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Every line of the record so far, the header first.
    pub fn record(&self) -> &[String] {
        &self.record
    }

    /// The tables of the game.
    pub fn tables(&self) -> &TableSet {
        &self.tables
    }

    /// What the coach prices in.
    pub fn coach_objective(&self) -> CoachObjective {
        self.coach.objective
    }

    /// How the game stands.
    pub fn standing(&self) -> Standing {
        self.standing
    }

    /// True when a bot plays `seat`.
    pub fn is_bot(&self, seat: usize) -> bool {
        self.bots[seat].is_some()
    }

    /// What the game waits for now.
    pub fn due(&self) -> Due {
        if self.standing != Standing::Playing {
            return Due::Nothing;
        }
        let Some(seat) = self.game.to_move() else {
            return Due::Nothing;
        };
        let manual = self.rng.is_none();
        let dice = |count: usize, what: String| Due::Dice { seat, count, what };
        let all = self.game.rules().dice().dice();
        match self.game.phase() {
            Phase::TurnStart if self.game.seats()[seat].enters_points() => Due::Points { seat },
            Phase::Opening if manual => dice(all, "the opening roll".into()),
            Phase::TurnStart if manual => dice(all, "the first roll".into()),
            Phase::Kept { keep, .. } if manual => dice(
                all - keep.len(),
                if keep.is_empty() {
                    "the re-roll".to_string()
                } else {
                    format!("the re-roll (keeping {keep})")
                },
            ),
            Phase::Rolled { dice, rolls_left } if !self.is_bot(seat) => Due::Decision {
                seat,
                dice,
                rolls_left,
            },
            Phase::MustScore { dice } if !self.is_bot(seat) => Due::Decision {
                seat,
                dice,
                rolls_left: 0,
            },
            _ => Due::Nothing,
        }
    }

    /// The seat to move, refusing a move once the game has ended.
    fn mover(&self) -> Result<usize, HostError> {
        match self.standing {
            Standing::Left => Err(HostError::Left),
            Standing::Over => Err(HostError::Over),
            Standing::Playing => self.game.to_move().ok_or(HostError::Over),
        }
    }

    /// The seat of the person to move, refusing a move on a bot's turn.
    fn person(&self) -> Result<usize, HostError> {
        let seat = self.mover()?;
        if self.is_bot(seat) {
            let player = self.game.seats()[seat].name.clone();
            return Err(HostError::BotsMove { player });
        }
        Ok(seat)
    }

    /// The dice typed for the roll due ([`Due::Dice`]), then whatever follows without a
    /// person.
    pub fn roll<F: Front>(&mut self, faces: Vec<u8>, front: &mut F) -> Result<(), F::Error> {
        let seat = self.mover()?;
        if self.rng.is_some() {
            return Err(HostError::SeededDice.into());
        }
        let Due::Dice { count, what, .. } = self.due() else {
            return Err(HostError::NoDiceDue.into());
        };
        if faces.len() != count || faces.iter().any(|f| !(1..=6).contains(f)) {
            let given = excerpt(&format!("{faces:?}"));
            return Err(HostError::WrongDice { count, what, given }.into());
        }
        self.apply_roll(seat, faces, front)?;
        self.advance(front)
    }

    /// The person to move keeps `faces` (all five: stops rolling), then whatever follows
    /// without a person.
    pub fn keep<F: Front>(&mut self, faces: Vec<u8>, front: &mut F) -> Result<(), F::Error> {
        let seat = self.person()?;
        self.apply_keep(seat, faces, By::Person, front)?;
        self.advance(front)
    }

    /// The person to move fills the box named `name`; with rolls left, stops first (the two
    /// decisions of the record), checked before the stop is made. Then whatever follows
    /// without a person.
    pub fn score<F: Front>(&mut self, name: &str, front: &mut F) -> Result<(), F::Error> {
        let seat = self.person()?;
        let rules = self.game.rules();
        let Some(index) = rules.box_by_name(name) else {
            return Err(HostError::Refused(Illegal::UnknownBox {
                name: excerpt(name),
                boxes: box_names(&rules),
            })
            .into());
        };
        match self.game.phase() {
            // Under saved rolls the box is filled at once, its re-rolls left saved.
            Phase::Rolled { .. } if rules.saved_rolls() => {
                self.apply_score(seat, index, By::Person, front)?
            }
            Phase::Rolled { dice, .. } => {
                check_legal(&rules, &self.game.cards()[seat], &dice, index)
                    .map_err(HostError::Refused)?;
                self.apply_keep(seat, dice.faces(), By::Person, front)?;
                self.apply_score(seat, index, By::Person, front)?;
            }
            Phase::MustScore { .. } => self.apply_score(seat, index, By::Person, front)?,
            _ => return Err(HostError::Refused(Illegal::NoScoreDue).into()),
        }
        self.advance(front)
    }

    /// The player to move, whose turns are entered as a box and its points, fills the box
    /// `name` with `points` (and the bonus of a further five of a kind when `yahtzee_bonus`;
    /// `None`: the bonus the points earn, without it when they may go either way), then
    /// whatever follows without a person. Points no roll scores there are refused with the
    /// values it can score ([`attainable`]).
    pub fn score_points<F: Front>(
        &mut self,
        name: &str,
        points: u32,
        yahtzee_bonus: Option<bool>,
        front: &mut F,
    ) -> Result<(), F::Error> {
        let seat = self.person()?;
        let rules = self.game.rules();
        let player = self.game.seats()[seat].name.clone();
        if !self.game.seats()[seat].enters_points() {
            return Err(HostError::NotPoints { player }.into());
        }
        let card = &self.game.cards()[seat];
        // An unknown box, or points no roll scores, are refused by the referee, which names
        // what is allowed.
        let bonus = match rules.box_by_name(name).map(|i| attainable(&rules, card, i)) {
            Some(Ok(options)) => {
                let fits = |a: &&super::Attainable| {
                    a.points == points && yahtzee_bonus.is_none_or(|y| a.yahtzee_bonus == y)
                };
                let same = options.iter().find(|a| a.points == points);
                match (options.iter().find(fits), same) {
                    (Some(a), _) => a.bonus,
                    // The points, with or without the bonus of a further five of a kind as
                    // they cannot earn it: the referee says which they earn.
                    (None, Some(a)) => match a.yahtzee_bonus {
                        true => a.bonus - rules.yahtzee_bonus_points(),
                        false => a.bonus + rules.yahtzee_bonus_points(),
                    },
                    (None, None) => 0,
                }
            }
            _ => 0,
        };
        let event = Event::Score {
            player,
            turn: self.game.turn(),
            // The box's own name, as the record writes every box.
            category: rules
                .box_by_name(name)
                .map_or(name, |i| rules.boxes()[i].name())
                .to_string(),
            points,
            bonus,
            rolls_left: None,
        };
        self.emit(event, By::Person, front)?;
        let index = rules.box_by_name(name).expect("the referee took the box");
        let message = Message::Scored {
            seat,
            category: rules.boxes()[index].name().to_string(),
            points,
            bonus,
            total: self.game.cards()[seat].banked(),
        };
        front.show(&self.game, &message)?;
        self.begin_turn(front)?;
        self.advance(front)
    }

    /// A game resumed from its record: `header` and `events` (the lines after it, an `end`
    /// line included), replayed through the referee, with the tables of `tables`, as
    /// [`Host::new`] has them. A game of typed dice only (a seeded game is replayed by its
    /// seed); the record keeps its header, its start time included.
    pub fn resume(
        tables: Arc<TableSet>,
        header: &Header,
        events: &[Event],
    ) -> Result<Host, HostError> {
        if header.dice != DiceMode::Manual {
            return Err(HostError::SeededDice);
        }
        let options = PlayOptions {
            rules: Game::from_header(header).map_err(HostError::Seats)?.rules(),
            seats: header.seats.clone(),
            dice: DiceSource::Manual,
            coach_threshold: header.coach_threshold,
            coach_target: header.coach_target,
            coach_win: header.coach_win,
        };
        let mut host = Host::new(tables, &options)?;
        host.header = header.clone();
        host.record = vec![header.to_line()];
        for (i, event) in events.iter().enumerate() {
            if let Event::End { complete, .. } = event {
                host.standing = if *complete {
                    Standing::Over
                } else {
                    Standing::Left
                };
                host.record.push(event.to_line());
                break;
            }
            host.game.apply(event).map_err(|reason| HostError::Replay {
                line: i + 2,
                reason,
            })?;
            host.record.push(event.to_line());
        }
        Ok(host)
    }

    /// The player to move leaves the game: it ends, its record saying it is not complete.
    pub fn leave<F: Front>(&mut self, front: &mut F) -> Result<(), F::Error> {
        self.mover()?;
        self.end(false, front)
    }

    /// The options of the position of the person to move, ranked as the coach prices them
    /// (the coach on or off): the hints.
    pub fn advise(&mut self) -> Result<Answer, HostError> {
        let Due::Decision {
            seat,
            dice,
            rolls_left,
        } = self.due()
        else {
            return Err(HostError::NoDecisionDue);
        };
        let position = Position {
            card: self.game.cards()[seat].clone(),
            dice,
            rolls_left,
        };
        let tables = Arc::clone(&self.tables);
        if self.game.rules().saved_rolls() {
            let table = self.saved.for_card(&tables, position.card.filled())?;
            let advice = crate::policy::saved::advise(&table, &position);
            return Ok(Answer::Advice(advice.map_err(PricingError::from)?));
        }
        let mut pricer = self.pricer(&tables)?;
        let answer = pricer.advise(seat, &position, self.game.cards());
        self.coach.solves = pricer.into_solves();
        Ok(answer?)
    }

    /// The coach's pricer, with what the last one solved.
    fn pricer<'t>(&mut self, tables: &'t TableSet) -> Result<Pricer<'t>, HostError> {
        let pricing = match self.coach.objective {
            CoachObjective::ExpectedScore => Pricing::ExpectedScore,
            CoachObjective::Target(target) => Pricing::Target {
                targets: tables.target()?,
                target,
            },
            CoachObjective::Win => Pricing::Win {
                distribution: tables.distribution()?,
            },
        };
        let solves = std::mem::take(&mut self.coach.solves);
        Ok(Pricer::resume(tables.ev()?, pricing, solves)?)
    }

    /// Plays what needs no person: seeded dice, the play order, the bots' moves, the end.
    fn advance<F: Front>(&mut self, front: &mut F) -> Result<(), F::Error> {
        while self.standing == Standing::Playing {
            let phase = self.game.phase();
            let Some(seat) = self.game.to_move() else {
                match phase {
                    Phase::Over => self.end(true, front)?,
                    _ => self.order(front)?,
                }
                continue;
            };
            match phase {
                Phase::Rolled { .. } | Phase::MustScore { .. } if self.is_bot(seat) => {
                    self.play_bot(seat, front)?;
                }
                Phase::Rolled { .. } | Phase::MustScore { .. } => break,
                _ => {
                    if !self.roll_seeded(seat, front)? {
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    /// Rolls the dice due for `seat` from the seed; false when the dice are typed.
    fn roll_seeded<F: Front>(&mut self, seat: usize, front: &mut F) -> Result<bool, F::Error> {
        let all = self.game.rules().dice().dice();
        let count = match self.game.phase() {
            Phase::Kept { keep, .. } => all - keep.len(),
            _ => all,
        };
        let Some(rng) = &mut self.rng else {
            return Ok(false);
        };
        let faces = rng.dice(count);
        self.apply_roll(seat, faces, front)?;
        Ok(true)
    }

    /// The moves of the bot of `seat` from the position now, until its turn ends or dice must
    /// be typed for it: the one place a bot's move is decided. Its turn is the turn of a
    /// match's seat ([`Player::turn_in_game`]), made once for the moves of this call: the
    /// other players' cards do not change during the turn, so it is the same at each move.
    fn play_bot<F: Front>(&mut self, seat: usize, front: &mut F) -> Result<(), F::Error> {
        let tables = Arc::clone(&self.tables);
        let Some(policy) = self.bots[seat] else {
            return Ok(());
        };
        if self.game.rules().saved_rolls() {
            return self.play_saved_bot(seat, front);
        }
        let player = Player::new(policy, &tables).map_err(HostError::from)?;
        let rules = self.game.rules();
        let cards = self.game.cards();
        // A bot that plays to win plays against the others' cards now (finished players at
        // their totals), as `Match::opponents` has them.
        let opponents = match player.plays_to_win() {
            true => {
                let distribution = tables.distribution().map_err(HostError::from)?;
                opponent_scores(&rules, Some(distribution), &opponents_at_table(seat, cards))
                    .map_err(|e| HostError::from(PricingError::from(e)))?
            }
            false => Vec::new(),
        };
        let early = match &self.plies {
            Some(_) => Some(&**tables.two_player().map_err(HostError::from)?),
            None => None,
        };
        let mut plies = self.plies.take().map(|p| p.with_early(early));
        let mut exact = None;
        let at = AtTable {
            seat,
            cards,
            opponents: &opponents,
            cache: None,
            plies: plies.as_mut(),
            simd: Simd::detect(),
        };
        let turn = player.turn_in_game(at, &mut exact);
        self.plies = plies.map(|p| p.with_early(None));
        while self.game.to_move() == Some(seat) {
            match self.game.phase() {
                Phase::Rolled { dice, rolls_left } => {
                    let keep = turn.keep(rolls_left, &dice);
                    self.apply_keep(seat, keep.faces(), By::Host, front)?;
                }
                Phase::MustScore { dice } => {
                    let state = self.game.cards()[seat].state();
                    let (index, _, _) = turn.choose_box(&rules, &state, &dice);
                    return self.apply_score(seat, index, By::Host, front);
                }
                _ => {
                    if !self.roll_seeded(seat, front)? {
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    /// The moves of the optimal bot of `seat` under saved rolls, as [`Host`]'s `play_bot`
    /// plays the others': each the option advice ranks first ([`SavedTurn::best`], as
    /// `yahtzee simulate` plays such a game), a box filled with re-rolls left saving them.
    fn play_saved_bot<F: Front>(&mut self, seat: usize, front: &mut F) -> Result<(), F::Error> {
        let tables = Arc::clone(&self.tables);
        let rules = self.game.rules();
        let card = self.game.cards()[seat].clone();
        let table = self.saved.for_card(&tables, card.filled());
        let table = table.map_err(HostError::from)?;
        let rerolls = usize::from(self.game.turn_rerolls(seat));
        let turn = SavedTurn::new(&table, card.state(), rerolls);
        while self.game.to_move() == Some(seat) {
            let (dice, left) = match self.game.phase() {
                Phase::Rolled { dice, rolls_left } => (dice, rolls_left),
                Phase::MustScore { dice } => (dice, 0),
                _ => {
                    if !self.roll_seeded(seat, front)? {
                        break;
                    }
                    continue;
                }
            };
            match turn.best(&dice, usize::from(left)).0 {
                Action::Keep { keep, .. } => {
                    self.apply_keep(seat, keep.faces(), By::Host, front)?;
                }
                Action::Score { category, .. } => {
                    let index = rules.box_by_name(category).expect("a box of the rules");
                    return self.apply_score(seat, index, By::Host, front);
                }
            }
        }
        Ok(())
    }

    /// Applies `event` through the referee, appends it to the record and hands the line to
    /// `front`; a keep or a box is a decision, returned for the coach.
    fn emit<F: Front>(
        &mut self,
        event: Event,
        by: By,
        front: &mut F,
    ) -> Result<Option<Decision>, F::Error> {
        if let Some(limit) = self.limit
            && self.record.len() >= limit
        {
            return Err(HostError::TooLong { limit }.into());
        }
        let decision = self.game.apply(&event).map_err(|e| match by {
            By::Person => HostError::Refused(e),
            By::Host => HostError::Internal(e),
        })?;
        let line = event.to_line();
        front.record(&line)?;
        self.record.push(line);
        Ok(decision)
    }

    /// The dice `faces` for `seat`: an opening roll, a first roll or a re-roll (the kept dice
    /// are added).
    fn apply_roll<F: Front>(
        &mut self,
        seat: usize,
        mut faces: Vec<u8>,
        front: &mut F,
    ) -> Result<(), F::Error> {
        let player = self.game.seats()[seat].name.clone();
        let turn = self.game.turn();
        match self.game.phase() {
            Phase::Opening => {
                faces.sort_unstable();
                let event = Event::Opening {
                    player,
                    dice: faces.clone(),
                };
                self.emit(event, By::Host, front)?;
                front.show(&self.game, &Message::OpeningRoll { seat, dice: faces })?;
                if self.game.phase() == Phase::Opening && self.game.opening_rolled() == 0 {
                    front.show(&self.game, &Message::OpeningTie)?;
                }
                Ok(())
            }
            Phase::TurnStart | Phase::Kept { .. } => {
                // Under saved rolls, a turn's first roll states the rolls saved before it.
                let (mut all, rolls_left, saved) = match self.game.phase() {
                    Phase::Kept { keep, rolls_left } => (keep.faces(), rolls_left - 1, None),
                    _ => (
                        Vec::new(),
                        self.game.turn_rerolls(seat),
                        (self.game.rules().saved_rolls()).then(|| self.game.saved()[seat]),
                    ),
                };
                all.extend(faces);
                all.sort_unstable();
                let event = Event::Roll {
                    player,
                    turn,
                    dice: all,
                    rolls_left,
                    saved,
                };
                self.emit(event, By::Host, front)?;
                let dice = match self.game.phase() {
                    Phase::Rolled { dice, .. } | Phase::MustScore { dice } => dice,
                    other => unreachable!("a roll leaves dice showing, not {other:?}"),
                };
                let message = Message::Rolled {
                    seat,
                    dice,
                    rolls_left,
                };
                front.show(&self.game, &message)
            }
            _ => Err(HostError::NoDiceDue.into()),
        }
    }

    /// The play order, recorded once the opening rolls decide it; the first turn begins.
    fn order<F: Front>(&mut self, front: &mut F) -> Result<(), F::Error> {
        let seats = self.game.seats();
        let players: Vec<String> = (self.game.decided_order().unwrap_or_default().iter())
            .map(|&s| seats[s].name.clone())
            .collect();
        let event = Event::Order {
            players: players.clone(),
        };
        self.emit(event, By::Host, front)?;
        front.show(&self.game, &Message::Order { players })?;
        self.begin_turn(front)
    }

    /// Says that a turn begins, when one does.
    fn begin_turn<F: Front>(&mut self, front: &mut F) -> Result<(), F::Error> {
        if let (Phase::TurnStart, Some(seat)) = (self.game.phase(), self.game.to_move()) {
            let turn = self.game.turn();
            front.show(&self.game, &Message::TurnBegins { seat, turn })?;
        }
        Ok(())
    }

    /// `seat` keeps `faces` (all five: stops rolling) from the dice showing.
    fn apply_keep<F: Front>(
        &mut self,
        seat: usize,
        faces: Vec<u8>,
        by: By,
        front: &mut F,
    ) -> Result<(), F::Error> {
        let rolls_left = match self.game.phase() {
            Phase::Rolled { rolls_left, .. } => rolls_left,
            _ => 0,
        };
        let event = Event::Keep {
            player: self.game.seats()[seat].name.clone(),
            turn: self.game.turn(),
            keep: faces.clone(),
            rolls_left,
        };
        let decision = self.emit(event, by, front)?;
        front.show(&self.game, &Message::Kept { seat, keep: faces })?;
        self.price(decision, front)
    }

    /// `seat` fills box `index` with the dice showing; the next turn begins.
    fn apply_score<F: Front>(
        &mut self,
        seat: usize,
        index: usize,
        by: By,
        front: &mut F,
    ) -> Result<(), F::Error> {
        let rules = self.game.rules();
        // Under saved rolls a box may be filled with re-rolls left: it saves them.
        let (dice, left) = match self.game.phase() {
            Phase::MustScore { dice } => (dice, 0),
            Phase::Rolled { dice, rolls_left } if rules.saved_rolls() => (dice, rolls_left),
            Phase::Rolled { .. } => {
                return Err(HostError::Refused(Illegal::ScoreWithRollsLeft).into());
            }
            _ => return Err(HostError::Refused(Illegal::NoScoreDue).into()),
        };
        let state = self.game.cards()[seat].state();
        let points = rules.score(index, &dice, state.filled);
        let bonus = state.bonus_for(&rules, index, points, dice.five_of_a_kind().is_some());
        let category = rules.boxes()[index].name().to_string();
        let event = Event::Score {
            player: self.game.seats()[seat].name.clone(),
            turn: self.game.turn(),
            category: category.clone(),
            points,
            bonus,
            rolls_left: rules.saved_rolls().then_some(left),
        };
        let decision = self.emit(event, by, front)?;
        let total = self.game.cards()[seat].banked();
        let message = Message::Scored {
            seat,
            category,
            points,
            bonus,
            total,
        };
        front.show(&self.game, &message)?;
        self.price(decision, front)?;
        self.begin_turn(front)
    }

    /// Prices a person's decision with the coach (when it is on, or every decision is
    /// priced), and tells the front end.
    fn price<F: Front>(
        &mut self,
        decision: Option<Decision>,
        front: &mut F,
    ) -> Result<(), F::Error> {
        let Some(decision) = decision else {
            return Ok(());
        };
        if self.is_bot(decision.seat) || (self.coach.threshold.is_none() && !self.coach.every) {
            return Ok(());
        }
        let tables = Arc::clone(&self.tables);
        let evaluation = if self.game.rules().saved_rolls() {
            let table = (self.saved).for_card(&tables, decision.position.card.filled());
            let table = table.map_err(HostError::from)?;
            evaluate_saved(&table, &decision).map_err(|e| HostError::from(PricingError::from(e)))?
        } else {
            let mut pricer = self.pricer(&tables)?;
            let evaluation = pricer.evaluate(&decision);
            self.coach.solves = pricer.into_solves();
            evaluation.map_err(HostError::from)?
        };
        let speaks = self
            .coach
            .threshold
            .is_some_and(|t| evaluation.loss >= t && evaluation.loss > 0.0);
        let message = Message::Priced {
            seat: decision.seat,
            evaluation,
            objective: self.coach.objective,
            speaks,
        };
        front.show(&self.game, &message)
    }

    /// Ends the game: its record's `end` line, and the outcome.
    fn end<F: Front>(&mut self, complete: bool, front: &mut F) -> Result<(), F::Error> {
        self.standing = if complete {
            Standing::Over
        } else {
            Standing::Left
        };
        front.show(&self.game, &Message::Ended { complete })?;
        let end = Event::End {
            complete,
            scores: self.game.totals(),
        };
        let line = end.to_line();
        front.record(&line)?;
        self.record.push(line);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::RuleSet;
    use crate::solve::expected::SolveOptions;
    use crate::tables::expected::StrategyTable;

    /// A front end that keeps what it is handed.
    #[derive(Default)]
    struct Kept {
        lines: Vec<String>,
        messages: Vec<Message>,
    }

    impl Front for Kept {
        type Error = HostError;

        fn record(&mut self, line: &str) -> Result<(), HostError> {
            self.lines.push(line.to_string());
            Ok(())
        }

        fn show(&mut self, _game: &Game, message: &Message) -> Result<(), HostError> {
            self.messages.push(message.clone());
            Ok(())
        }
    }

    fn hosted(players: &str, dice: DiceSource, coach_threshold: Option<f64>) -> Host {
        let rules = Rules::new(RuleSet::YACHT);
        let (ev, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let tables = Arc::new(TableSet::of_expected_score(Arc::new(ev)));
        let options = PlayOptions {
            rules,
            seats: parse_seats(players).unwrap(),
            dice,
            coach_threshold,
            coach_target: None,
            coach_win: false,
        };
        Host::new(tables, &options).unwrap()
    }

    #[test]
    fn a_game_of_bots_plays_to_its_end_and_hands_every_line_as_it_is_made() {
        let mut host = hosted("bot,bot2", DiceSource::Seeded(3), Some(0.2));
        let mut front = Kept::default();
        host.start(&mut front).unwrap();
        assert_eq!(host.standing(), Standing::Over);
        assert_eq!(host.due(), Due::Nothing);
        assert_eq!(front.lines, host.record());
        assert!(front.lines.last().unwrap().contains(r#""complete":true"#));
        let turns = (front.messages.iter())
            .filter(|m| matches!(m, Message::TurnBegins { .. }))
            .count();
        assert_eq!(turns, 2 * host.game().rules().box_count());
        // Bots are not coached.
        assert!(!(front.messages.iter()).any(|m| matches!(m, Message::Priced { .. })));
        assert!(matches!(host.leave(&mut front), Err(HostError::Over)));
    }

    /// A score pad's game through the host: the advised player's dice and boxes, the others'
    /// boxes and points; the record replays (resumed mid-game, it is the same game) and its
    /// review prices the advised player's decisions alone.
    #[test]
    fn a_score_pad_game_is_hosted_resumed_and_reviewed_for_the_advised_player() {
        let rules = Rules::new(RuleSet::YACHT);
        let (ev, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let ev = Arc::new(ev);
        let tables = Arc::new(TableSet::of_expected_score(Arc::clone(&ev)));
        let mut options = PlayOptions {
            rules,
            seats: vec![Seat::human("ann"), Seat::points("bob")],
            dice: DiceSource::Seeded(1),
            coach_threshold: None,
            coach_target: None,
            coach_win: false,
        };
        let e = Host::new(Arc::clone(&tables), &options).err().unwrap();
        assert!(matches!(e, HostError::PointsSeeded), "{e}");
        options.dice = DiceSource::Manual;
        let mut host = Host::new(Arc::clone(&tables), &options).unwrap();
        let mut front = Kept::default();
        host.start(&mut front).unwrap();
        let mut middle = None;
        for turn in 0..rules.box_count() {
            host.roll(vec![6, 6, 5, 2, 1], &mut front).unwrap();
            let e = host
                .score_points("choice", 20, None, &mut front)
                .unwrap_err();
            assert!(matches!(e, HostError::NotPoints { .. }), "{e}");
            // ann keeps the sixes, then fills the first open box.
            host.keep(vec![6, 6], &mut front).unwrap();
            host.roll(vec![6, 3, 3], &mut front).unwrap();
            let open = (0..rules.box_count())
                .find(|&i| host.game().cards()[0].points(i).is_none())
                .unwrap();
            host.score(rules.boxes()[open].name(), &mut front).unwrap();
            assert_eq!(host.due(), Due::Points { seat: 1 });
            let e = host.roll(vec![1; 5], &mut front).unwrap_err();
            assert!(matches!(e, HostError::NoDiceDue), "{e}");
            let card = &host.game().cards()[1];
            let last = attainable(&rules, card, open).unwrap();
            let best = last.last().unwrap();
            let e = host
                .score_points(
                    rules.boxes()[open].name(),
                    best.points + 1,
                    None,
                    &mut front,
                )
                .unwrap_err();
            assert!(e.to_string().contains(" scores "), "{e}");
            host.score_points(rules.boxes()[open].name(), best.points, None, &mut front)
                .unwrap();
            if turn == 5 {
                middle = Some(host.record().to_vec());
            }
        }
        assert_eq!(host.standing(), Standing::Over);
        assert_eq!(front.lines, host.record());
        // Resumed from the record mid-game, the game is the same, and plays on.
        let lines = middle.unwrap();
        let header: Header = match serde_json::from_str(&lines[0]) {
            Ok(super::super::record::HeaderLine::Game(h)) => h,
            Err(e) => panic!("{e}"),
        };
        let events: Vec<Event> = lines[1..]
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let mut resumed = Host::resume(Arc::clone(&tables), &header, &events).unwrap();
        assert_eq!(resumed.record(), &lines[..]);
        assert_eq!(resumed.game().turn(), 7);
        assert!(matches!(
            resumed.due(),
            Due::Dice {
                seat: 0,
                count: 5,
                ..
            }
        ));
        resumed
            .roll(vec![1, 2, 3, 4, 5], &mut Kept::default())
            .unwrap();
        // The review prices ann's decisions alone (a keep, a stop and a box a turn), as a
        // record of ann alone with the same dice is priced.
        let record = host.record().join("\n");
        let parsed = super::super::review::GameRecord::parse(&record).unwrap();
        assert!(parsed.header.format == 6 && parsed.ended);
        assert!(record.contains(r#""entry":"points""#));
        let review = super::super::review::review(&ev, &parsed).unwrap();
        assert_eq!(review.players.len(), 1);
        assert_eq!(review.players[0].player, "ann");
        assert_eq!(review.players[0].decisions, 3 * rules.box_count());
        assert!(review.decisions.iter().all(|d| d.player == "ann"));
        let alone: Vec<String> = std::iter::once(
            host.record()[0].replace(r#",{"name":"bob","kind":"human","entry":"points"}"#, ""),
        )
        .chain(
            host.record()[1..]
                .iter()
                .filter(|l| !l.contains(r#""player":"bob""#) && !l.contains(r#""type":"end""#))
                .map(|l| l.replace(r#"["ann","bob"]"#, r#"["ann"]"#)),
        )
        .collect();
        let alone = super::super::review::GameRecord::parse(alone.join("\n")).unwrap();
        let solo = super::super::review::review(&ev, &alone).unwrap();
        let priced = |r: &super::super::review::Review| -> Vec<(String, String, f64)> {
            (r.decisions.iter())
                .map(|d| (d.choice.clone(), d.best.clone(), d.loss))
                .collect()
        };
        assert_eq!(priced(&solo), priced(&review));
    }

    #[test]
    fn typed_dice_and_moves_are_taken_only_when_due() {
        let mut host = hosted("ann,bot", DiceSource::Manual, None);
        let mut front = Kept::default();
        host.start(&mut front).unwrap();
        let what = "the opening roll".to_string();
        assert_eq!(
            host.due(),
            Due::Dice {
                seat: 0,
                count: 5,
                what
            }
        );
        let e = host.roll(vec![1, 2, 3], &mut front).unwrap_err();
        assert_eq!(
            e.to_string(),
            "give 5 dice from 1 to 6 for the opening roll, not [1, 2, 3]"
        );
        let e = host.keep(vec![3], &mut front).unwrap_err();
        assert!(
            matches!(e, HostError::Refused(Illegal::OpeningFirst)),
            "{e}"
        );
        host.roll(vec![6, 6, 6, 6, 5], &mut front).unwrap();
        host.roll(vec![1, 1, 1, 1, 1], &mut front).unwrap();
        // ann starts: her first roll is typed, then she decides.
        host.roll(vec![3, 1, 3, 5, 6], &mut front).unwrap();
        let Due::Decision { seat: 0, dice, .. } = host.due() else {
            panic!("ann decides, not {:?}", host.due());
        };
        assert_eq!(dice.faces(), vec![1, 3, 3, 5, 6]);
        assert!(matches!(
            host.score("sevens", &mut front),
            Err(HostError::Refused(Illegal::UnknownBox { .. }))
        ));
        // The coach is off: nothing is priced.
        host.score("choice", &mut front).unwrap();
        assert!(!(front.messages.iter()).any(|m| matches!(m, Message::Priced { .. })));
        // The bot's first roll is typed too.
        assert!(matches!(
            host.due(),
            Due::Dice {
                seat: 1,
                count: 5,
                ..
            }
        ));
        let e = host.keep(vec![1], &mut front).unwrap_err();
        assert_eq!(e.to_string(), "it is bot's move, and bot is the bot");
        host.leave(&mut front).unwrap();
        assert_eq!(host.standing(), Standing::Left);
        assert!(matches!(
            host.roll(vec![1; 5], &mut front),
            Err(HostError::Left)
        ));
        assert!(front.lines.last().unwrap().contains(r#""complete":false"#));
    }

    #[test]
    fn every_decision_is_priced_when_asked_and_the_coach_speaks_over_its_threshold() {
        let mut host = hosted("ann", DiceSource::Seeded(1), None).pricing_every_decision();
        let mut front = Kept::default();
        host.start(&mut front).unwrap();
        host.keep(Vec::new(), &mut front).unwrap();
        let Some(Message::Priced {
            seat: 0,
            speaks: false,
            objective: CoachObjective::ExpectedScore,
            ..
        }) = front.messages.iter().rev().nth(1)
        else {
            panic!("the keep is priced: {:?}", front.messages);
        };
        let mut coached = hosted("ann", DiceSource::Seeded(1), Some(0.0));
        coached.start(&mut front).unwrap();
        // Re-rolling all five dice of the first roll is a mistake on most rolls.
        coached.keep(Vec::new(), &mut front).unwrap();
        let priced = front.messages.iter().rev().nth(1).unwrap();
        let Message::Priced {
            evaluation, speaks, ..
        } = priced
        else {
            panic!("the keep is priced: {priced:?}");
        };
        assert_eq!(*speaks, evaluation.loss > 0.0);
        let game = coached.game();
        assert_eq!(priced.line(game).is_some(), *speaks);
    }
}
