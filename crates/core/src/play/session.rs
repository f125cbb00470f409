//! The terminal game: prompts, the player's commands and the hints, around the game host.
//!
//! The session reads its input line by line from any `BufRead` (a terminal or a pipe) and
//! writes the game to any `Write`, so a test drives it exactly as a person would. The game
//! itself, the referee, the dice, the bots and the coach, is the [`Host`] that the page's games
//! drive too: the session asks it what is due, reads the command or the dice due, hands them
//! to it, and prints what it tells ([`Message`]). The host hands it each record line as it is
//! made, which the session appends to the record, one flushed line at a time, before the game
//! goes on. The end of the input or `quit` ends the game cleanly with an `end` line saying it
//! is not complete.
//!
//! The bots play the policies of [`crate::policy::player::Player`] (`bot`: the optimal
//! policy; `bot:target=300`: the target policy; `bot:win`, `bot:win-exact`: the policies of
//! that name of `yahtzee simulate --match`; `bot:two-player`: the exact game of two); the coach
//! prices every decision of a person as `yahtzee review` does, in expected points, or with a
//! coach target in chance of reaching it, or coaching to win in chance of winning against the
//! other players; `hint` ranks the options of the position the same way.
//!
//! Under saved rolls the optimal bot plays, the coach and `hint` price saving against spending,
//! a box filled with re-rolls left saves them, and the cards show each player's rolls saved.
//!
//! With `--manual-dice` the players type the dice of a real table: all five for a first roll
//! or an opening roll, and only the re-rolled dice for a re-roll (the kept dice stay).

use std::io::{self, BufRead, Write};
use std::sync::Arc;

use crate::game::dice::{Dice, FaceCount, parse_faces};
use crate::policy::Answer;
use crate::policy::pricing::describe_option;
use crate::policy::win::MODEL;
use crate::tables::set::TableSet;
use crate::text::{excerpt, plural, probability};

use super::command::{HINT_ROWS, HintRows, PlayerCommand, help, parse_command, resolve_keep};
use super::host::{CoachObjective, Due, Front, Host, HostError, Message, PlayOptions, Standing};
use super::record::{RecordFileError, RecordWriter};
use super::render::render_game;
use super::{FinalScore, Game, Seat, SeatKind, WinPolicy, agree};

/// Why a game could not be played to its end. The record keeps what was played before.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlayError {
    /// The game cannot be hosted, or went wrong (see [`HostError`]).
    #[error(transparent)]
    Host(#[from] HostError),
    /// The players' input could not be read. Fix: a readable input (a terminal or a file).
    #[error("cannot read the players' input")]
    Input(#[source] io::Error),
    /// The game could not be shown (a closed output). Fix: keep the output open.
    #[error("cannot write the game to the output")]
    Output(#[from] io::Error),
    /// The record could not be written (see [`RecordFileError::Write`]). Fix: make room.
    #[error(transparent)]
    Record(#[from] RecordFileError),
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// True when every card is full.
    pub complete: bool,
    /// Each player's total, in seat order.
    pub totals: Vec<FinalScore>,
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

/// The terminal as a front end of the host: the game printed to `out`, the record appended
/// to its file line by line.
struct Terminal<'r, W, F> {
    out: W,
    record: &'r mut RecordWriter<F>,
}

impl<W: Write, F: Write> Front for Terminal<'_, W, F> {
    type Error = PlayError;

    fn record(&mut self, line: &str) -> Result<(), PlayError> {
        Ok(self.record.write_line(line)?)
    }

    /// Prints the line of `message`, with the cards before a person's turn and at the end;
    /// a person's keep is not printed (they typed it), and a bot's re-roll of all five dice
    /// is `keeps nothing`.
    fn show(&mut self, game: &Game, message: &Message) -> Result<(), PlayError> {
        let person = |seat: usize| game.seats()[seat].kind == SeatKind::Human;
        match message {
            Message::TurnBegins { seat, .. } if person(*seat) => {
                writeln!(self.out, "\n{}", render_game(game))?;
            }
            Message::Ended { .. } => {
                writeln!(self.out, "\n{}", render_game(game))?;
            }
            Message::Kept { seat, .. } if person(*seat) => return Ok(()),
            Message::Kept { seat, keep } if keep.is_empty() => {
                let name = &game.seats()[*seat].name;
                writeln!(self.out, "{name} {} nothing", agree(name, "keeps", "keep"))?;
                return Ok(());
            }
            _ => {}
        }
        if let Some(line) = message.line(game) {
            let indent = match message {
                Message::Priced { .. } => "  ",
                _ => "",
            };
            writeln!(self.out, "{indent}{line}")?;
        }
        Ok(())
    }
}

struct Session<'r, R, W, F> {
    host: Host,
    input: R,
    front: Terminal<'r, W, F>,
}

/// Plays a game: reads the players' commands from `input`, writes the game to `out` and the
/// record to `record`, one flushed line per event. `tables` are the tables of the rules, each
/// one the bots and the coach need loaded (or built) first ([`PlayOptions::needs`]). A failed
/// write of the record stops the game with [`PlayError::Record`], naming the file.
pub fn play<R: BufRead, W: Write, F: Write>(
    tables: Arc<TableSet>,
    options: &PlayOptions,
    input: R,
    out: W,
    record: &mut RecordWriter<F>,
) -> Result<Summary, PlayError> {
    let host = Host::new(tables, options)?;
    let mut s = Session {
        host,
        input,
        front: Terminal { out, record },
    };
    s.run()
}

impl<R: BufRead, W: Write, F: Write> Session<'_, R, W, F> {
    fn run(&mut self) -> Result<Summary, PlayError> {
        self.introduce()?;
        self.host.start(&mut self.front)?;
        loop {
            match self.host.due() {
                Due::Nothing => break,
                // `yahtzee play` seats no player entered as points (the page's score pad
                // does): such a game is not the terminal's to play.
                Due::Points { .. } => self.host.leave(&mut self.front)?,
                Due::Dice { seat, count, what } => match self.dice(seat, count, &what)? {
                    Some(faces) => self.host.roll(faces, &mut self.front)?,
                    None => self.host.leave(&mut self.front)?,
                },
                Due::Decision {
                    seat,
                    dice,
                    rolls_left,
                } => {
                    if !self.decide(seat, dice, rolls_left)? {
                        self.host.leave(&mut self.front)?;
                    }
                }
            }
        }
        self.front.out.flush()?;
        Ok(Summary {
            complete: self.host.standing() == Standing::Over,
            totals: self.host.game().totals(),
        })
    }

    /// The game's first lines: the rules, the players, the seed, what the coach prices in,
    /// and the commands when a person plays.
    fn introduce(&mut self) -> Result<(), PlayError> {
        let game = self.host.game();
        let rules = game.rules();
        let out = &mut self.front.out;
        writeln!(
            out,
            "yahtzee play: {}, {} boxes, players {}{}",
            rules.label(),
            rules.box_count(),
            game.seats()
                .iter()
                .map(seat_label)
                .collect::<Vec<_>>()
                .join(", "),
            self.host
                .header()
                .seed
                .map_or(String::new(), |s| format!(", seed {s}"))
        )?;
        match self.host.coach_objective() {
            CoachObjective::Target(t) => writeln!(
                out,
                "The coach and the hints price every decision in chance of a final score of {t} or more."
            )?,
            CoachObjective::Win => writeln!(
                out,
                "The coach and the hints price every decision in chance of winning against the other players at the table (model: {MODEL})."
            )?,
            CoachObjective::ExpectedScore => {}
        }
        if rules.saved_rolls() {
            writeln!(
                out,
                "Saved rolls: the re-rolls a turn leaves unused when it scores a box are saved for the player's later turns (`score BOX` with re-rolls left saves them; a turn has the game's {} re-rolls and the rolls saved). The coach and `hint` price saving against spending.",
                rules.most_rolls_left()
            )?;
        }
        if game.seats().iter().any(|s| s.kind == SeatKind::Human) {
            writeln!(out, "{}", help(game.rules().dice().dice()))?;
        }
        Ok(())
    }

    /// Reads one line, asking again after a line that is not UTF-8 text; `None` at the end
    /// of the input.
    fn read_line(&mut self, prompt: &str) -> Result<Option<String>, PlayError> {
        let out = &mut self.front.out;
        loop {
            write!(out, "{prompt}")?;
            out.flush()?;
            let mut bytes = Vec::new();
            if self
                .input
                .read_until(b'\n', &mut bytes)
                .map_err(PlayError::Input)?
                == 0
            {
                writeln!(out)?;
                return Ok(None);
            }
            match String::from_utf8(bytes) {
                Ok(line) => return Ok(Some(line.trim().to_string())),
                Err(e) => writeln!(
                    out,
                    "  ! `{}` is not UTF-8 text: type it again",
                    excerpt(String::from_utf8_lossy(e.as_bytes()).trim())
                )?,
            }
        }
    }

    /// `n` dice of `what` typed for `seat`; `None` when the player quits or the input ends.
    fn dice(&mut self, seat: usize, n: usize, what: &str) -> Result<Option<Vec<u8>>, PlayError> {
        let name = self.host.game().seats()[seat].name.clone();
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
                Err(e) => writeln!(self.front.out, "  ! {e}")?,
            }
        }
    }

    /// Prints the options of a hint, the best [`HINT_ROWS`] or all of them.
    fn hint(&mut self, answer: &Answer, rows: HintRows) -> Result<(), PlayError> {
        let option = |action: &dyn std::fmt::Display| action.to_string();
        let ((head, lines), model) = match answer {
            Answer::Win(advice) => {
                let options = (advice.options.iter())
                    .map(|o| (option(&o.action), o.p_win, o.loss, o.expected_final));
                (in_chance("P(win)".into(), 8, options), Some(advice.model))
            }
            Answer::TwoPlayer(advice) => {
                let options = (advice.options.iter())
                    .map(|o| (option(&o.action), o.value, o.loss, o.expected_final));
                (in_chance("P(win)".into(), 8, options), None)
            }
            Answer::Target(advice) => {
                let options = (advice.options.iter())
                    .map(|o| (option(&o.action), o.p_reach, o.loss, o.expected_final));
                let chance = format!("P(final>={})", advice.target);
                (in_chance(chance, 14, options), None)
            }
            Answer::Advice(advice) => {
                let head = format!("{:>14} {:>9}", "expected final", "loss");
                let lines = (advice.options.iter())
                    .map(|o| {
                        let values = format!("{:>14.4} {:>9.4}", o.expected_final(), o.loss());
                        (describe_option(o), values)
                    })
                    .collect();
                ((head, lines), None)
            }
            Answer::Theta(advice) => {
                let head = format!("{:>14} {:>9}", "certainty eq.", "loss");
                let lines = (advice.options.iter())
                    .map(|o| {
                        let values = format!("{:>14.4} {:>9.4}", o.certainty_equivalent, o.loss);
                        (option(&o.action), values)
                    })
                    .collect();
                ((head, lines), None)
            }
        };
        let out = &mut self.front.out;
        let shown = match rows {
            HintRows::Top => HINT_ROWS,
            HintRows::All => lines.len(),
        };
        writeln!(out, "  {:>4}  {:<36} {head}", "rank", "option")?;
        for (i, (option, values)) in lines.iter().take(shown).enumerate() {
            writeln!(out, "  {:>4}  {option:<36} {values}", i + 1)?;
        }
        if lines.len() > shown {
            writeln!(
                out,
                "  ... {} more (`hint all` shows every option)",
                lines.len() - shown
            )?;
        }
        if let Some(model) = model {
            writeln!(out, "  model: {model}")?;
        }
        Ok(())
    }

    /// Asks the person of `seat` for a keep (with rolls left) or a box, until the host takes
    /// one; false when the person quits or the input ends. A box with rolls left is the
    /// shorthand for "stop rolling and fill it".
    fn decide(&mut self, seat: usize, dice: Dice, rolls_left: u8) -> Result<bool, PlayError> {
        let game = self.host.game();
        let name = game.seats()[seat].name.clone();
        let rules = game.rules();
        if rolls_left == 0 {
            let state = game.cards()[seat].state();
            let legal = rules.legal_boxes(state.filled, &dice);
            let five = dice.five_of_a_kind().is_some();
            let open: Vec<String> = (0..rules.box_count())
                .filter(|i| legal & (1 << i) != 0)
                .map(|index| {
                    let name = rules.boxes()[index].name();
                    let points = rules.score(index, &dice, state.filled);
                    match state.bonus_for(&rules, index, points, five) {
                        0 => format!("{name} {points}"),
                        b => format!("{name} {points}+{b}"),
                    }
                })
                .collect();
            writeln!(
                self.front.out,
                "{name}: {dice}, choose a box to score ({})",
                open.join(", ")
            )?;
        }
        loop {
            let Some(line) = self.read_line(&format!("{name}> "))? else {
                return Ok(false);
            };
            let command = match parse_command(&line, self.host.game().rules().dice().dice()) {
                Ok(c) => c,
                Err(e) => {
                    writeln!(self.front.out, "  ! {e}")?;
                    continue;
                }
            };
            let game = self.host.game();
            match command {
                PlayerCommand::Quit => return Ok(false),
                PlayerCommand::Help => {
                    writeln!(self.front.out, "{}", help(game.rules().dice().dice()))?
                }
                PlayerCommand::Card => writeln!(self.front.out, "{}", render_game(game))?,
                PlayerCommand::Hint(rows) => {
                    let answer = self.host.advise()?;
                    self.hint(&answer, rows)?;
                }
                PlayerCommand::KeepFaces(_) | PlayerCommand::KeepPositions(_) => {
                    if rolls_left == 0 {
                        // The example is a box these dice may fill now.
                        let legal = rules.legal_boxes(game.cards()[seat].filled(), &dice);
                        let example = rules.boxes()[legal.trailing_zeros() as usize].name();
                        writeln!(
                            self.front.out,
                            "  ! no rolls left: score a box, e.g. `score {example}`"
                        )?;
                        continue;
                    }
                    match resolve_keep(&command, &dice) {
                        Some(Ok(keep)) => match self.host.keep(keep.faces(), &mut self.front) {
                            Ok(()) => return Ok(true),
                            // A keep of all the dice under saved rolls: a box stops a turn.
                            Err(PlayError::Host(HostError::Refused(e))) => {
                                writeln!(self.front.out, "  ! {e}")?
                            }
                            Err(e) => return Err(e),
                        },
                        Some(Err(e)) => writeln!(self.front.out, "  ! {e}")?,
                        None => unreachable!("a keep command resolves to a keep"),
                    }
                }
                PlayerCommand::Score(b) => match self.host.score(&b, &mut self.front) {
                    Ok(()) => return Ok(true),
                    Err(PlayError::Host(HostError::Refused(e))) => {
                        writeln!(self.front.out, "  ! {e}")?
                    }
                    Err(e) => return Err(e),
                },
            }
        }
    }
}

/// The columns of a hint whose options are priced in a chance: the head (the chance named
/// `chance`, in a column `width` wide, then the loss and the expected final score), and each
/// option with its values, from `(option, chance, loss, expected final)`.
fn in_chance(
    chance: String,
    width: usize,
    options: impl Iterator<Item = (String, f64, f64, f64)>,
) -> (String, Vec<(String, String)>) {
    let head = format!("{chance:>width$} {:>9} {:>14}", "loss", "expected final");
    let lines = options
        .map(|(option, chance, loss, expected)| {
            let values = format!(
                "{:>width$} {loss:>9.4} {expected:>14.4}",
                probability(chance)
            );
            (option, values)
        })
        .collect();
    (head, lines)
}
