//! The interactive game: prompts, the player's commands, the bot, the coach and the record.
//!
//! The session reads its input line by line from any `BufRead` (a terminal or a pipe) and
//! writes the game to any `Write`, so a test drives it exactly as a person would. Every event
//! goes through the referee ([`Game::apply`]) and is appended to the record, one flushed line
//! at a time, before the game goes on. The end of the input or `quit` ends the game cleanly
//! with an `end` line saying it is not complete.
//!
//! A bot plays the documented optimal policy: [`TurnValues::best_keep`] (ties to the keep
//! with the fewest dice) and [`best_box`] (ties to the box first on the card); a bot seated
//! with a target (`bot:target=300`) plays the target policy for it, the turns of
//! [`crate::policy::player::Player`] that `yahtzee simulate --policy target:T` plays; a bot seated
//! to win (`bot:win`, `bot:win-exact`) plays the policy of that name of `yahtzee simulate
//! --match` against the other players' cards at the start of its turn (finished players at
//! their totals): the very turn of a match's seat ([`Player::turn_in_game`], with the opponents
//! of [`opponents_at_table`]); `bot:two-player` plays the exact optimum of the game of two
//! against the other card (Yacht, two players), the `two-player` seat of a match. Every
//! bot's turn goes through [`Player::turn_in_game`]. The coach
//! prices every decision of a person with [`evaluate`], the same computation as `yahtzee
//! review`, or, with a coach target, in chance of reaching it with [`evaluate_target`], or,
//! coaching to win, in chance of winning against the other players with [`WinPricing`].
//!
//! With `--manual-dice` the players type the dice of a real table: all five for a first roll
//! or an opening roll, and only the re-rolled dice for a re-roll (the kept dice stay).

use std::io::{self, BufRead, Write};

use crate::game::choice::Choice;
use crate::game::dice::{DICE, Dice, DiceRng, FaceCount, Keep, join_faces, parse_faces};
use crate::game::rules::Rules;
use crate::policy::MAX_TARGET;
use crate::policy::expected::{AdviceError, Position, advise, box_choices};
use crate::policy::player::Player;
use crate::policy::player::{AtTable, PlayerError, check_players};
use crate::policy::target::TargetPlayer;
use crate::policy::target::{TargetError, advise_target};
use crate::policy::two_player::TwoPlayerAdviceError;
use crate::policy::two_player::{NextPlies, TwoPlayerBot};
use crate::policy::win::{MODEL, WinError, opponent_scores, opponents_at_table};
use crate::solve::simd::Simd;
use crate::tables::expected::StrategyTable;
use crate::tables::two_player::EarlyTable;
use crate::tables::vector::VectorTable;
use crate::text::{excerpt, plural, probability};

use super::command::{HELP, HINT_ROWS, HintRows, PlayerCommand, parse_command, resolve_keep};
use super::record::{RecordFileError, RecordWriter, now_utc};
use super::render::render_cards;
use super::{
    DiceMode, Event, FinalScore, Game, Header, Illegal, Phase, RECORD_FORMAT, Seat, SeatKind,
    WinPolicy, agree, box_names, check_legal, check_names,
};
use crate::policy::pricing::{Decision, WinPricing, describe_option, evaluate, evaluate_target};

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
    /// The rules; the table must be of the same rules.
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

/// Why a game could not be played to its end. The record keeps what was played before.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlayError {
    /// The seats cannot play (no seat, a bad or repeated name). Fix: name the players again.
    #[error(transparent)]
    Seats(Illegal),
    /// The strategy table is of other rules than the game. Fix: load the table of the game's
    /// rules.
    #[error("the table is for {table}, the game for {game}: load the table of {game}")]
    WrongTable {
        /// The rules of the table.
        table: String,
        /// The rules of the game.
        game: String,
    },
    /// The players' input could not be read. Fix: a readable input (a terminal or a file).
    #[error("cannot read the players' input")]
    Input(#[source] io::Error),
    /// The game could not be shown (a closed output). Fix: keep the output open.
    #[error("cannot write the game to the output")]
    Output(#[from] io::Error),
    /// The record could not be written (see [`RecordFileError::Write`]). Fix: make room.
    #[error(transparent)]
    Record(#[from] RecordFileError),
    /// The advice for the coach or a hint failed: the table does not fit the game. Fix: load
    /// the table of the game's rules.
    #[error(transparent)]
    Advice(#[from] AdviceError),
    /// A bot plays for a target or with the fast win policy, or the coach prices for a
    /// target, but no target table was given. Fix: load the target table of the game's
    /// rules.
    #[error("a target or a win bot needs the target table of {rules}: load it")]
    NoTargetTable {
        /// The rules of the game.
        rules: String,
    },
    /// A bot plays to win, or the coach prices in chance of winning, but no distribution
    /// table was given (the other players' final scores need it). Fix: load the distribution
    /// table of the game's rules.
    #[error("playing or coaching to win needs the distribution table of {rules}: load it")]
    NoDistributionTable {
        /// The rules of the game.
        rules: String,
    },
    /// A bot plays the exact game of two, but no table of its first turns was given. Fix:
    /// load the two-player table of the game's rules.
    #[error("a two-player bot needs the two-player table of {rules}: load it")]
    NoTwoPlayerTable {
        /// The rules of the game.
        rules: String,
    },
    /// The game of two cannot be played with these tables (see [`TwoPlayerAdviceError`]).
    /// Fix: the tables of the game's rules.
    #[error(transparent)]
    TwoPlayer(TwoPlayerAdviceError),
    /// The coach prices in chance of winning, and for a target too, or at a table of one.
    /// Fix: coach for one of them, at a table of two or more for winning.
    #[error(
        "the coach prices to win against the other players or for a target, not both, and to win only at a table of two or more"
    )]
    CoachWin,
    /// A table of a win bot does not fit the game, or one of its cards could not be read
    /// (see [`PlayerError`]). Fix: load, or rebuild, the tables of the game's rules.
    #[error(transparent)]
    Bots(#[from] PlayerError),
    /// The pricing in chance of winning failed: a table does not fit the game (see
    /// [`WinError`]). Fix: load the tables of the game's rules.
    #[error(transparent)]
    Win(#[from] WinError),
    /// The target table does not fit the game, or one of its cards could not be read (see
    /// [`TargetError`]). Fix: load, or rebuild, the target table of the game's rules.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// The session made an event the referee refused: a bug of this program. Fix: report it
    /// with the record.
    #[error("internal error, the referee refused the game's own event: {0}")]
    Refused(Illegal),
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// True when every card is full.
    pub complete: bool,
    /// Each player's total, in seat order.
    pub totals: Vec<FinalScore>,
}

/// Parses `alice,bob,bot`: a seat named `bot`, or `bot` followed by digits (`bot2`), is the
/// optimal bot, `bot:target=300` a bot playing for a final score of at least 300 (the
/// seat is named `bot`), and `bot:win` (`bot:win-exact`) a bot playing to win against the
/// other players with the `win` (`win-exact`) policy of a match; any other name is a person.
/// The names are checked as the referee checks them ([`check_names`]).
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
        });
    }
    check_names(&seats)?;
    Ok(seats)
}

/// A seat as the game announces it: its name, and a bot's target or win policy.
fn seat_label(seat: &Seat) -> String {
    match (seat.target, seat.policy) {
        (Some(t), _) => format!("{} (playing for {t})", seat.name),
        (None, Some(WinPolicy::Win)) => format!("{} (playing to win)", seat.name),
        (None, Some(WinPolicy::WinExact)) => {
            format!("{} (playing to win, exact best response)", seat.name)
        }
        (None, Some(WinPolicy::TwoPlayer)) => {
            format!("{} (playing the exact game of two)", seat.name)
        }
        (None, None) => seat.name.clone(),
    }
}

/// The start of a record for `options`, stamped now.
pub fn header(options: &PlayOptions) -> Header {
    Header {
        format: RECORD_FORMAT,
        rules: options.rules.set,
        upper_first: options.rules.order == crate::game::rules::Order::UpperFirst,
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
    }
}

impl PlayOptions {
    /// True when the game needs the target table of its rules: a bot playing for a target
    /// or with the fast win policy, or the coach pricing for a target.
    pub fn needs_targets(&self) -> bool {
        self.coach_target.is_some()
            || self
                .seats
                .iter()
                .any(|s| s.target.is_some() || s.policy == Some(WinPolicy::Win))
    }

    /// True when the game needs the distribution table of its rules (the other players'
    /// final scores): a bot playing to win, or the coach pricing in chance of winning.
    pub fn needs_distribution(&self) -> bool {
        self.coach_win
            || self.seats.iter().any(|s| {
                s.policy
                    .is_some_and(|p| matches!(p, WinPolicy::Win | WinPolicy::WinExact))
            })
    }

    /// True when the game needs the table of the first turns of the game of two: a bot
    /// playing the exact game of two.
    pub fn needs_two_player(&self) -> bool {
        self.seats
            .iter()
            .any(|s| s.policy == Some(WinPolicy::TwoPlayer))
    }
}

struct Session<'a, R, W, F> {
    table: &'a StrategyTable,
    /// The target table, when a bot or the coach plays for a target.
    targets: Option<&'a VectorTable<f32>>,
    /// The distribution table, when a bot or the coach plays to win.
    distribution: Option<&'a VectorTable<f32>>,
    /// Per seat, how a bot plays (as a seat of a match); `None` for a person.
    bots: &'a [Option<Player<'a>>],
    coach_target: Option<u32>,
    /// The coach's pricing in chance of winning, when it coaches to win.
    win: Option<WinPricing<'a>>,
    /// The plies of the game of two, when a bot plays it.
    plies: Option<NextPlies<'a>>,
    game: Game,
    input: R,
    out: W,
    record: &'a mut RecordWriter<F>,
    rng: Option<DiceRng>,
    threshold: Option<f64>,
}

/// Plays a game: reads the players' commands from `input`, writes the game to `out` and the
/// record to `record`, one flushed line per event. `table` must be the table of the rules,
/// `targets` their target table when [`PlayOptions::needs_targets`], and `distribution`
/// their distribution table when [`PlayOptions::needs_distribution`], and `two_player` the
/// table of the first turns of the game of two when [`PlayOptions::needs_two_player`]. A
/// failed write of the record stops the game with [`PlayError::Record`], naming the file.
#[allow(clippy::too_many_arguments)]
pub fn play<R: BufRead, W: Write, F: Write>(
    table: &StrategyTable,
    targets: Option<&VectorTable<f32>>,
    distribution: Option<&VectorTable<f32>>,
    two_player: Option<&EarlyTable>,
    options: &PlayOptions,
    input: R,
    out: W,
    record: &mut RecordWriter<F>,
) -> Result<Summary, PlayError> {
    let game = Game::new(options.rules, options.seats.clone()).map_err(PlayError::Seats)?;
    if *table.rules() != options.rules {
        return Err(PlayError::WrongTable {
            table: table.rules().label(),
            game: options.rules.label(),
        });
    }
    if options.coach_win && (options.coach_target.is_some() || options.seats.len() < 2) {
        return Err(PlayError::CoachWin);
    }
    let targets = match (options.needs_targets(), targets) {
        (false, _) => None,
        (true, Some(t)) => Some(t),
        (true, None) => {
            return Err(PlayError::NoTargetTable {
                rules: options.rules.label(),
            });
        }
    };
    let distribution = match (options.needs_distribution(), distribution) {
        (false, _) => None,
        (true, Some(t)) => Some(t),
        (true, None) => {
            return Err(PlayError::NoDistributionTable {
                rules: options.rules.label(),
            });
        }
    };
    let two_player = match (options.needs_two_player(), two_player) {
        (false, _) => None,
        (true, Some(t)) => Some(t),
        (true, None) => {
            return Err(PlayError::NoTwoPlayerTable {
                rules: options.rules.label(),
            });
        }
    };
    let players = options
        .seats
        .iter()
        .map(|s| match (s.target, targets) {
            (Some(t), Some(targets)) => TargetPlayer::new(table, targets, t).map(Some),
            _ => Ok(None),
        })
        .collect::<Result<Vec<_>, TargetError>>()?;
    if let (Some(targets), None) = (targets, players.iter().flatten().next()) {
        // The coach's target alone: check the tables as a bot's would be.
        TargetPlayer::new(table, targets, 0)?;
    }
    let bots: Vec<Option<Player>> = options
        .seats
        .iter()
        .zip(&players)
        .map(|(s, player)| {
            if s.kind == SeatKind::Human {
                return None;
            }
            Some(match (player, s.policy) {
                (Some(p), _) => Player::Target(*p),
                (None, Some(WinPolicy::Win)) => Player::Win {
                    ev: table,
                    targets: targets.expect("a win bot has the target table"),
                },
                (None, Some(WinPolicy::WinExact)) => Player::WinExact { ev: table },
                (None, Some(WinPolicy::TwoPlayer)) => Player::TwoPlayer(TwoPlayerBot {
                    ev: table,
                    early: two_player.expect("a two-player bot has the two-player table"),
                }),
                (None, None) => Player::Optimal(table),
            })
        })
        .collect();
    // Reads every card the bots and the coach can ask for, so that no turn can fail.
    let checked: Vec<Player> = bots.iter().flatten().copied().collect();
    check_players(&options.rules, &checked, distribution)?;
    let win = match (options.coach_win, distribution) {
        (true, Some(d)) => {
            check_players(&options.rules, &[Player::WinExact { ev: table }], Some(d))?;
            Some(WinPricing::new(table, d))
        }
        _ => None,
    };
    let plies = match bots.iter().flatten().find_map(|b| match b {
        Player::TwoPlayer(bot) => Some(bot),
        _ => None,
    }) {
        Some(bot) => Some(bot.plies(Simd::detect()).map_err(PlayError::TwoPlayer)?),
        None => None,
    };
    let mut s = Session {
        table,
        targets,
        distribution,
        bots: &bots,
        coach_target: options.coach_target,
        win,
        plies,
        game,
        input,
        out,
        record,
        rng: match options.dice {
            DiceSource::Seeded(seed) => Some(DiceRng::new(seed)),
            DiceSource::Manual => None,
        },
        threshold: options.coach_threshold,
    };
    let head = header(options);
    s.record.write_line(&head.to_line())?;
    s.run(&head)
}

impl<R: BufRead, W: Write, F: Write> Session<'_, R, W, F> {
    fn run(&mut self, head: &Header) -> Result<Summary, PlayError> {
        let rules = self.game.rules();
        writeln!(
            self.out,
            "yahtzee play: {}, {} boxes, players {}{}",
            rules.label(),
            rules.box_count(),
            self.game
                .seats()
                .iter()
                .map(seat_label)
                .collect::<Vec<_>>()
                .join(", "),
            head.seed.map_or(String::new(), |s| format!(", seed {s}"))
        )?;
        if let Some(t) = self.coach_target {
            writeln!(
                self.out,
                "The coach and the hints price every decision in chance of a final score of {t} or more."
            )?;
        }
        if self.win.is_some() {
            writeln!(
                self.out,
                "The coach and the hints price every decision in chance of winning against the other players at the table (model: {MODEL})."
            )?;
        }
        if self.game.seats().iter().any(|s| s.kind == SeatKind::Human) {
            writeln!(self.out, "{HELP}")?;
        }
        let finished = self.opening()? && self.turns()?;
        let complete = finished && self.game.is_over();
        writeln!(
            self.out,
            "\n{}",
            render_cards(self.game.seats(), self.game.cards())
        )?;
        let totals = self.game.totals();
        if complete {
            let mut ranked = totals.clone();
            ranked.sort_by_key(|r| std::cmp::Reverse(r.total));
            if ranked.len() > 1 {
                let top: Vec<&str> = ranked
                    .iter()
                    .filter(|r| r.total == ranked[0].total)
                    .map(|r| r.player.as_str())
                    .collect();
                if top.len() == 1 {
                    writeln!(
                        self.out,
                        "{} {} with {}.",
                        top[0],
                        agree(top[0], "wins", "win"),
                        ranked[0].total
                    )?;
                } else {
                    let (last, others) = top.split_last().expect("a tie has players");
                    writeln!(
                        self.out,
                        "{} and {last} tie with {}.",
                        others.join(", "),
                        ranked[0].total
                    )?;
                }
            } else {
                writeln!(
                    self.out,
                    "Game over: {}.",
                    plural(u64::from(ranked[0].total), "point", "points")
                )?;
            }
        } else {
            writeln!(
                self.out,
                "Game left before the end; the record keeps what was played."
            )?;
        }
        let end = Event::End {
            complete,
            scores: totals.clone(),
        };
        self.record.write_line(&end.to_line())?;
        self.out.flush()?;
        Ok(Summary { complete, totals })
    }

    /// Applies an event and appends it to the record.
    fn emit(&mut self, event: Event) -> Result<Option<Decision>, PlayError> {
        let decision = self.game.apply(&event).map_err(PlayError::Refused)?;
        self.record.write_line(&event.to_line())?;
        Ok(decision)
    }

    /// Reads one line, asking again after a line that is not UTF-8 text; `None` at the end
    /// of the input.
    fn read_line(&mut self, prompt: &str) -> Result<Option<String>, PlayError> {
        loop {
            write!(self.out, "{prompt}")?;
            self.out.flush()?;
            let mut bytes = Vec::new();
            if self
                .input
                .read_until(b'\n', &mut bytes)
                .map_err(PlayError::Input)?
                == 0
            {
                writeln!(self.out)?;
                return Ok(None);
            }
            match String::from_utf8(bytes) {
                Ok(line) => return Ok(Some(line.trim().to_string())),
                Err(e) => writeln!(
                    self.out,
                    "  ! `{}` is not UTF-8 text: type it again",
                    excerpt(String::from_utf8_lossy(e.as_bytes()).trim())
                )?,
            }
        }
    }

    /// `n` dice for `seat`, rolled or typed; `None` when the player quits or the input ends.
    fn dice(&mut self, seat: usize, n: usize, what: &str) -> Result<Option<Vec<u8>>, PlayError> {
        if let Some(rng) = &mut self.rng {
            return Ok(Some(rng.dice(n)));
        }
        let name = self.game.seats()[seat].name.clone();
        loop {
            let dice = plural(n as u64, "die", "dice");
            let prompt = format!("{name}, type the {dice} of {what}: ");
            let Some(line) = self.read_line(&prompt)? else {
                return Ok(None);
            };
            if matches!(line.to_ascii_lowercase().as_str(), "quit" | "exit" | "q") {
                return Ok(None);
            }
            match parse_faces(&line, FaceCount::Exactly(n)) {
                Ok(faces) => return Ok(Some(faces)),
                Err(e) => writeln!(self.out, "  ! {e}")?,
            }
        }
    }

    /// The opening rolls and the play order; false when the game was left.
    fn opening(&mut self) -> Result<bool, PlayError> {
        if self.game.phase() == Phase::Opening {
            writeln!(
                self.out,
                "Opening roll: everyone rolls all five dice, the highest total starts."
            )?;
        }
        while self.game.phase() == Phase::Opening {
            let seat = self.game.to_move().expect("an opening roller");
            let Some(dice) = self.dice(seat, DICE, "the opening roll")? else {
                return Ok(false);
            };
            let mut dice = dice;
            dice.sort_unstable();
            let total: u32 = dice.iter().map(|&d| u32::from(d)).sum();
            let name = self.game.seats()[seat].name.clone();
            writeln!(
                self.out,
                "{name} {} {} ({total})",
                agree(&name, "rolls", "roll"),
                join_faces(&dice)
            )?;
            self.emit(Event::Opening { player: name, dice })?;
            if self.game.phase() == Phase::Opening && self.game.opening_rolled() == 0 {
                writeln!(
                    self.out,
                    "A tie for the highest total: the tied players roll again."
                )?;
            }
        }
        let order = self.game.decided_order().expect("the order is decided");
        let players: Vec<String> = order
            .iter()
            .map(|&s| self.game.seats()[s].name.clone())
            .collect();
        if players.len() > 1 {
            writeln!(self.out, "Play order: {}", players.join(", "))?;
        }
        self.emit(Event::Order { players })?;
        Ok(true)
    }

    /// Every turn until the end; false when the game was left.
    fn turns(&mut self) -> Result<bool, PlayError> {
        while !self.game.is_over() {
            if !self.turn()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Prices a person's decision and speaks when it loses at least the threshold.
    fn coach(&mut self, decision: &Decision) -> Result<(), PlayError> {
        let Some(threshold) = self.threshold else {
            return Ok(());
        };
        if let Some(win) = &mut self.win {
            let e = win.evaluate(decision)?;
            if e.loss >= threshold && e.loss > 0.0 {
                writeln!(
                    self.out,
                    "  coach: {} lowers the chance of winning by {:.4} ({} instead of {}); best: {}",
                    e.chosen,
                    e.loss,
                    probability(e.chosen_value),
                    probability(e.best_value),
                    e.best
                )?;
            }
            return Ok(());
        }
        if let (Some(t), Some(targets)) = (self.coach_target, self.targets) {
            let e = evaluate_target(self.table, targets, decision, t)?;
            if e.loss >= threshold && e.loss > 0.0 {
                writeln!(
                    self.out,
                    "  coach: {} lowers the chance of reaching {t} by {:.4} ({} instead of {}); best: {}",
                    e.chosen,
                    e.loss,
                    probability(e.chosen_value),
                    probability(e.best_value),
                    e.best
                )?;
            }
            return Ok(());
        }
        let e = evaluate(self.table, decision)?;
        if e.loss >= threshold && e.loss > 0.0 {
            writeln!(
                self.out,
                "  coach: {} costs {:.4} points against optimal play (expected final {:.2} instead of {:.2}); best: {}",
                e.chosen, e.loss, e.chosen_value, e.best_value, e.best
            )?;
        }
        Ok(())
    }

    fn hint(&mut self, seat: usize, position: &Position, rows: HintRows) -> Result<(), PlayError> {
        if let Some(win) = &mut self.win {
            let advice = win.advise(seat, position, self.game.cards())?;
            let shown = match rows {
                HintRows::Top => HINT_ROWS,
                HintRows::All => advice.options.len(),
            };
            writeln!(
                self.out,
                "  {:>4}  {:<36} {:>8} {:>9} {:>14}",
                "rank", "option", "P(win)", "loss", "expected final"
            )?;
            for (i, o) in advice.options.iter().take(shown).enumerate() {
                writeln!(
                    self.out,
                    "  {:>4}  {:<36} {:>8} {:>9.4} {:>14.4}",
                    i + 1,
                    o.action.to_string(),
                    probability(o.p_win),
                    o.loss,
                    o.expected_final
                )?;
            }
            if advice.options.len() > shown {
                writeln!(
                    self.out,
                    "  ... {} more (`hint all` shows every option)",
                    advice.options.len() - shown
                )?;
            }
            writeln!(self.out, "  model: {}", advice.model)?;
            return Ok(());
        }
        if let (Some(t), Some(targets)) = (self.coach_target, self.targets) {
            let advice = advise_target(self.table, targets, position, t)?;
            let shown = match rows {
                HintRows::Top => HINT_ROWS,
                HintRows::All => advice.options.len(),
            };
            writeln!(
                self.out,
                "  {:>4}  {:<36} {:>14} {:>9} {:>14}",
                "rank",
                "option",
                format!("P(final>={t})"),
                "loss",
                "expected final"
            )?;
            for (i, o) in advice.options.iter().take(shown).enumerate() {
                writeln!(
                    self.out,
                    "  {:>4}  {:<36} {:>14} {:>9.4} {:>14.4}",
                    i + 1,
                    o.action.to_string(),
                    probability(o.p_reach),
                    o.loss,
                    o.expected_final
                )?;
            }
            if advice.options.len() > shown {
                writeln!(
                    self.out,
                    "  ... {} more (`hint all` shows every option)",
                    advice.options.len() - shown
                )?;
            }
            return Ok(());
        }
        let advice = advise(self.table, position)?;
        let shown = match rows {
            HintRows::Top => HINT_ROWS,
            HintRows::All => advice.options.len(),
        };
        writeln!(
            self.out,
            "  {:>4}  {:<36} {:>14} {:>9}",
            "rank", "option", "expected final", "loss"
        )?;
        for (i, o) in advice.options.iter().take(shown).enumerate() {
            writeln!(
                self.out,
                "  {:>4}  {:<36} {:>14.4} {:>9.4}",
                i + 1,
                describe_option(o),
                o.expected_final(),
                o.loss()
            )?;
        }
        if advice.options.len() > shown {
            writeln!(
                self.out,
                "  ... {} more (`hint all` shows every option)",
                advice.options.len() - shown
            )?;
        }
        Ok(())
    }

    /// Asks a person for a keep (with rolls left) or a box, until the answer is legal. A box
    /// with rolls left is the shorthand for "stop rolling and fill it" (see [`Choice`]).
    fn ask(
        &mut self,
        seat: usize,
        dice: Dice,
        rolls_left: u8,
    ) -> Result<Option<Choice>, PlayError> {
        let name = self.game.seats()[seat].name.clone();
        let rules = self.game.rules();
        loop {
            let Some(line) = self.read_line(&format!("{name}> "))? else {
                return Ok(None);
            };
            let command = match parse_command(&line) {
                Ok(c) => c,
                Err(e) => {
                    writeln!(self.out, "  ! {e}")?;
                    continue;
                }
            };
            let card = self.game.cards()[seat].clone();
            match command {
                PlayerCommand::Quit => return Ok(None),
                PlayerCommand::Help => writeln!(self.out, "{HELP}")?,
                PlayerCommand::Card => writeln!(
                    self.out,
                    "{}",
                    render_cards(self.game.seats(), self.game.cards())
                )?,
                PlayerCommand::Hint(rows) => self.hint(
                    seat,
                    &Position {
                        card,
                        dice,
                        rolls_left,
                    },
                    rows,
                )?,
                PlayerCommand::KeepFaces(_) | PlayerCommand::KeepPositions(_) => {
                    if rolls_left == 0 {
                        // The example is a box these dice may fill now.
                        let legal = rules.legal_boxes(card.filled(), &dice);
                        let example = rules.boxes()[legal.trailing_zeros() as usize].name();
                        writeln!(
                            self.out,
                            "  ! no rolls left: score a box, e.g. `score {example}`"
                        )?;
                        continue;
                    }
                    match resolve_keep(&command, &dice) {
                        Some(Ok(k)) => return Ok(Some(Choice::Keep(k))),
                        Some(Err(e)) => writeln!(self.out, "  ! {e}")?,
                        None => unreachable!("a keep command resolves to a keep"),
                    }
                }
                PlayerCommand::Score(b) => {
                    let Some(index) = rules.box_by_name(&b) else {
                        writeln!(
                            self.out,
                            "  ! unknown box `{}`: the boxes are {}",
                            excerpt(&b),
                            box_names(&rules)
                        )?;
                        continue;
                    };
                    match check_legal(&rules, &card, &dice, index) {
                        Ok(()) => return Ok(Some(Choice::Score(index))),
                        Err(e) => writeln!(self.out, "  ! {e}")?,
                    }
                }
            }
        }
    }

    /// Fills `index` for the player to move and says so.
    fn score(&mut self, seat: usize, dice: Dice, index: usize) -> Result<(), PlayError> {
        let rules = self.game.rules();
        let card = &self.game.cards()[seat];
        let state = card.state();
        let points = rules.score(index, &dice, state.filled);
        let bonus = state.bonus_for(&rules, index, points, dice.five_of_a_kind().is_some());
        let name = self.game.seats()[seat].name.clone();
        let turn = self.game.turn();
        let category = rules.boxes()[index].name().to_string();
        let decision = self.emit(Event::Score {
            player: name.clone(),
            turn,
            category: category.clone(),
            points,
            bonus,
        })?;
        let total = self.game.cards()[seat].banked();
        let extra = if bonus > 0 {
            format!(" +{bonus} bonus")
        } else {
            String::new()
        };
        writeln!(
            self.out,
            "{name} {} {category} for {points}{extra} (total {total})",
            agree(&name, "scores", "score")
        )?;
        if self.game.seats()[seat].kind == SeatKind::Human
            && let Some(d) = decision
        {
            self.coach(&d)?;
        }
        Ok(())
    }

    /// One turn of the player to move; false when the game was left.
    fn turn(&mut self) -> Result<bool, PlayError> {
        let seat = self.game.to_move().expect("a player to move");
        let seat_info = self.game.seats()[seat].clone();
        let name = seat_info.name.clone();
        let human = seat_info.kind == SeatKind::Human;
        let turn = self.game.turn();
        let rules = self.game.rules();
        if human {
            writeln!(
                self.out,
                "\n{}",
                render_cards(self.game.seats(), self.game.cards())
            )?;
        }
        writeln!(
            self.out,
            "== {name}, turn {turn} of {} ==",
            rules.box_count()
        )?;
        let state = self.game.cards()[seat].state();
        // A bot's turn, as a seat of a match plays it: a bot that plays to win against the
        // others' cards now (finished players at their totals), as `Match::opponents` has them.
        let bots = self.bots;
        let mut exact = None;
        let bot = match &bots[seat] {
            Some(b) => {
                let cards = self.game.cards();
                let opponents = match self.distribution {
                    Some(d) if b.plays_to_win() => {
                        opponent_scores(&rules, Some(d), &opponents_at_table(seat, cards))?
                    }
                    _ => Vec::new(),
                };
                let at = AtTable {
                    seat,
                    cards,
                    opponents: &opponents,
                    cache: None,
                    plies: self.plies.as_mut(),
                    simd: Simd::detect(),
                };
                Some(b.turn_in_game(at, &mut exact))
            }
            None => None,
        };
        let Some(mut first) = self.dice(seat, DICE, "the first roll")? else {
            return Ok(false);
        };
        first.sort_unstable();
        self.emit(Event::Roll {
            player: name.clone(),
            turn,
            dice: first,
            rolls_left: 2,
        })?;
        loop {
            match self.game.phase() {
                Phase::Rolled { dice, rolls_left } => {
                    writeln!(
                        self.out,
                        "{name} rolled {dice}   ({} left)",
                        plural(u64::from(rolls_left), "roll", "rolls")
                    )?;
                    let choice = match &bot {
                        Some(b) => Choice::Keep(b.keep(rolls_left, &dice)),
                        None => match self.ask(seat, dice, rolls_left)? {
                            Some(c) => c,
                            None => return Ok(false),
                        },
                    };
                    let (keep, then_score) = match choice {
                        Choice::Keep(k) => (k, None),
                        // Scoring with rolls left is two decisions: stop, then the box.
                        Choice::Score(i) => (
                            Keep::from_faces(&dice.faces()).expect("five faces"),
                            Some(i),
                        ),
                    };
                    if !human {
                        if keep.len() == DICE {
                            writeln!(self.out, "{name} {}", agree(&name, "stops", "stop"))?;
                        } else {
                            writeln!(self.out, "{name} {} {keep}", agree(&name, "keeps", "keep"))?;
                        }
                    }
                    let decision = self.emit(Event::Keep {
                        player: name.clone(),
                        turn,
                        keep: keep.faces(),
                        rolls_left,
                    })?;
                    if human && let Some(d) = decision {
                        self.coach(&d)?;
                    }
                    if let Some(i) = then_score {
                        self.score(seat, dice, i)?;
                        return Ok(true);
                    }
                    if keep.len() < DICE {
                        let what = if keep.is_empty() {
                            "the re-roll".to_string()
                        } else {
                            format!("the re-roll (keeping {keep})")
                        };
                        let Some(new) = self.dice(seat, DICE - keep.len(), &what)? else {
                            return Ok(false);
                        };
                        let mut all = keep.faces();
                        all.extend(new);
                        all.sort_unstable();
                        self.emit(Event::Roll {
                            player: name.clone(),
                            turn,
                            dice: all.clone(),
                            rolls_left: rolls_left - 1,
                        })?;
                        if rolls_left == 1 {
                            // The last roll: shown here, as the rolls with rolls left are
                            // shown above, so every player's (the bot's too) scored dice
                            // are on screen.
                            writeln!(
                                self.out,
                                "{name} rolled {}   (no rolls left)",
                                join_faces(&all)
                            )?;
                        }
                    }
                }
                Phase::MustScore { dice } => {
                    let index = if human {
                        let open: Vec<String> = box_choices(self.table, &state, &dice)
                            .iter()
                            .map(|c| match c.bonus {
                                0 => format!("{} {}", c.category.name(), c.points),
                                b => format!("{} {}+{b}", c.category.name(), c.points),
                            })
                            .collect();
                        writeln!(
                            self.out,
                            "{name}: {dice}, choose a box to score ({})",
                            open.join(", ")
                        )?;
                        match self.ask(seat, dice, 0)? {
                            Some(Choice::Score(i)) => i,
                            Some(Choice::Keep(_)) => unreachable!("no keep without rolls left"),
                            None => return Ok(false),
                        }
                    } else {
                        let bot = bot.as_ref().expect("a bot's turn");
                        bot.choose_box(&rules, &state, &dice).0
                    };
                    self.score(seat, dice, index)?;
                    return Ok(true);
                }
                other => unreachable!("a turn is rolled or must score, not {other:?}"),
            }
        }
    }
}
