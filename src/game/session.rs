//! The interactive game: prompts, the player's commands, the bot, the coach and the record.
//!
//! The session reads its input line by line from any `BufRead` (a terminal or a pipe) and
//! writes the game to any `Write`, so a test drives it exactly as a person would. Every event
//! goes through the referee ([`Game::apply`]) and is appended to the record, one flushed line
//! at a time, before the game goes on. The end of the input or `quit` ends the game cleanly
//! with an `end` line saying it is not complete.
//!
//! The bot plays the documented optimal policy: [`TurnValues::best_keep`] (ties to the keep
//! with the fewest dice) and [`best_box`] (ties to the box first on the card). The coach prices
//! every decision of a person with [`evaluate`], the same computation as `yahtzee review`.
//!
//! With `--manual-dice` the players type the dice of a real table: all five for a first roll
//! or an opening roll, and only the re-rolled dice for a re-roll (the kept dice stay).

use std::io::{self, BufRead, Write};

use crate::advice::{Position, TurnValues, advise, best_box, box_choices};
use crate::dice::{DICE, Dice, Keep, join_faces};
use crate::rules::Rules;
use crate::table::StrategyTable;

use super::command::{HELP, PlayerCommand, parse_command, resolve_keep};
use super::record::now_utc;
use super::render::render_cards;
use super::{
    DiceMode, DiceRng, Event, FinalScore, Game, Header, Phase, RECORD_FORMAT, Seat, SeatKind,
    box_names, check_legal, describe_option, evaluate,
};

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
    /// The coach speaks after a person's decision that loses at least this many points.
    pub coach_threshold: f64,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// True when every card is full.
    pub complete: bool,
    /// Each player's total, in seat order.
    pub totals: Vec<FinalScore>,
}

/// How many options `hint` shows.
const HINT_ROWS: usize = 10;

/// Parses `--players alice,bob,bot`: a seat named `bot`, or `bot` followed by digits
/// (`bot2`), is the optimal bot; any other name is a person.
pub fn parse_seats(text: &str) -> Result<Vec<Seat>, String> {
    let mut seats: Vec<Seat> = Vec::new();
    for name in text.split(',').map(str::trim) {
        if name.is_empty() {
            return Err(format!(
                "empty player name in `{text}`: give names separated by commas, e.g. `alice,bob,bot`"
            ));
        }
        if name.chars().count() > 20 || name.chars().any(|c| c.is_control() || c == '"') {
            return Err(format!(
                "player name `{name}` is not allowed: use at most 20 printable characters"
            ));
        }
        if seats.iter().any(|s| s.name.eq_ignore_ascii_case(name)) {
            return Err(format!(
                "player `{name}` is named twice: give every seat its own name (bots: bot, bot2, ...)"
            ));
        }
        let lower = name.to_ascii_lowercase();
        let is_bot = lower
            .strip_prefix("bot")
            .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit()));
        seats.push(Seat {
            name: name.to_string(),
            kind: if is_bot {
                SeatKind::Bot
            } else {
                SeatKind::Human
            },
        });
    }
    Ok(seats)
}

/// The start of a record for `options`, stamped now.
pub fn header(options: &PlayOptions) -> Header {
    Header {
        format: RECORD_FORMAT,
        rules: options.rules.set,
        upper_first: options.rules.order == crate::rules::Order::UpperFirst,
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
        started: now_utc().0,
    }
}

/// What a person chose at a prompt.
enum Action {
    Keep(Keep),
    Score(usize),
}

struct Session<'a, R, W, F> {
    table: &'a StrategyTable,
    game: Game,
    input: R,
    out: W,
    record: F,
    rng: Option<DiceRng>,
    threshold: f64,
}

/// Plays a game: reads the players' commands from `input`, writes the game to `out` and the
/// record to `record`, one flushed line per event. `table` must be the table of the rules.
pub fn play<R: BufRead, W: Write, F: Write>(
    table: &StrategyTable,
    options: &PlayOptions,
    input: R,
    out: W,
    record: F,
) -> io::Result<Summary> {
    let game = Game::new(options.rules, options.seats.clone())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.0))?;
    if *table.rules() != options.rules {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "the table is for {}, the game for {}",
                table.rules().label(),
                options.rules.label()
            ),
        ));
    }
    let mut s = Session {
        table,
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
    writeln!(s.record, "{}", head.to_line())?;
    s.record.flush()?;
    s.run(&head)
}

impl<R: BufRead, W: Write, F: Write> Session<'_, R, W, F> {
    fn run(&mut self, head: &Header) -> io::Result<Summary> {
        let rules = self.game.rules();
        writeln!(
            self.out,
            "yahtzee play: {}, {} boxes, players {}{}",
            rules.label(),
            rules.box_count(),
            self.names().join(", "),
            head.seed.map_or(String::new(), |s| format!(", seed {s}"))
        )?;
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
                    writeln!(self.out, "{} wins with {}.", top[0], ranked[0].total)?;
                } else {
                    writeln!(
                        self.out,
                        "{} tie with {}.",
                        top.join(" and "),
                        ranked[0].total
                    )?;
                }
            } else {
                writeln!(self.out, "Game over: {} points.", ranked[0].total)?;
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
        writeln!(self.record, "{}", end.to_line())?;
        self.record.flush()?;
        self.out.flush()?;
        Ok(Summary { complete, totals })
    }

    fn names(&self) -> Vec<String> {
        self.game.seats().iter().map(|s| s.name.clone()).collect()
    }

    /// Applies an event and appends it to the record.
    fn emit(&mut self, event: Event) -> io::Result<Option<super::Decision>> {
        let decision = self
            .game
            .apply(&event)
            .map_err(|e| io::Error::other(format!("internal error, illegal event: {e}")))?;
        writeln!(self.record, "{}", event.to_line())?;
        self.record.flush()?;
        Ok(decision)
    }

    /// Reads one line; `None` at the end of the input.
    fn read_line(&mut self, prompt: &str) -> io::Result<Option<String>> {
        write!(self.out, "{prompt}")?;
        self.out.flush()?;
        let mut line = String::new();
        if self.input.read_line(&mut line)? == 0 {
            writeln!(self.out)?;
            return Ok(None);
        }
        Ok(Some(line.trim().to_string()))
    }

    /// `n` dice for `seat`, rolled or typed; `None` when the player quits or the input ends.
    fn dice(&mut self, seat: usize, n: usize, what: &str) -> io::Result<Option<Vec<u8>>> {
        if let Some(rng) = &mut self.rng {
            return Ok(Some(rng.dice(n)));
        }
        let name = self.game.seats()[seat].name.clone();
        loop {
            let prompt = format!("{name}, type the {n} dice of {what}: ");
            let Some(line) = self.read_line(&prompt)? else {
                return Ok(None);
            };
            if matches!(line.as_str(), "quit" | "exit" | "q") {
                return Ok(None);
            }
            let parsed: Result<Vec<u8>, String> = {
                let parts: Vec<&str> = line.split([' ', ',']).filter(|p| !p.is_empty()).collect();
                let items: Vec<String> = if parts.len() == 1 {
                    parts[0].chars().map(String::from).collect()
                } else {
                    parts.iter().map(|p| p.to_string()).collect()
                };
                items
                    .iter()
                    .map(|p| match p.parse::<u8>() {
                        Ok(f) if (1..=6).contains(&f) => Ok(f),
                        _ => Err(format!("`{p}` is not a face: dice show 1 to 6")),
                    })
                    .collect()
            };
            match parsed {
                Ok(f) if f.len() == n => return Ok(Some(f)),
                Ok(f) => writeln!(self.out, "  ! {} dice given, {n} needed", f.len())?,
                Err(e) => writeln!(self.out, "  ! {e}")?,
            }
        }
    }

    /// The opening rolls and the play order; false when the game was left.
    fn opening(&mut self) -> io::Result<bool> {
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
            writeln!(self.out, "{name} rolls {} ({total})", join_faces(&dice))?;
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
    fn turns(&mut self) -> io::Result<bool> {
        while !self.game.is_over() {
            if !self.turn()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Prices a person's decision and speaks when it loses at least the threshold.
    fn coach(&mut self, decision: &super::Decision) -> io::Result<()> {
        let e = evaluate(self.table, decision).map_err(io::Error::other)?;
        if e.loss >= self.threshold && e.loss > 0.0 {
            writeln!(
                self.out,
                "  coach: {} costs {:.4} points against optimal play (expected final {:.2} instead of {:.2}); best: {}",
                e.chosen, e.loss, e.chosen_value, e.best_value, e.best
            )?;
        }
        Ok(())
    }

    fn hint(&mut self, position: &Position) -> io::Result<()> {
        let advice = advise(self.table, position).map_err(io::Error::other)?;
        writeln!(
            self.out,
            "  {:>4}  {:<36} {:>14} {:>9}",
            "rank", "option", "expected final", "loss"
        )?;
        for (i, o) in advice.options.iter().take(HINT_ROWS).enumerate() {
            writeln!(
                self.out,
                "  {:>4}  {:<36} {:>14.4} {:>9.4}",
                i + 1,
                describe_option(o),
                o.expected_final(),
                o.loss()
            )?;
        }
        if advice.options.len() > HINT_ROWS {
            writeln!(self.out, "  ... {} more", advice.options.len() - HINT_ROWS)?;
        }
        Ok(())
    }

    /// Asks a person for a keep (with rolls left) or a box, until the answer is legal.
    fn ask(&mut self, seat: usize, dice: Dice, rolls_left: u8) -> io::Result<Option<Action>> {
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
                PlayerCommand::Hint => self.hint(&Position {
                    card,
                    dice,
                    rolls_left,
                })?,
                PlayerCommand::KeepFaces(_) | PlayerCommand::KeepPositions(_) => {
                    if rolls_left == 0 {
                        writeln!(
                            self.out,
                            "  ! no rolls left: score a box, e.g. `score chance`"
                        )?;
                        continue;
                    }
                    match resolve_keep(&command, &dice) {
                        Ok(k) => return Ok(Some(Action::Keep(k))),
                        Err(e) => writeln!(self.out, "  ! {e}")?,
                    }
                }
                PlayerCommand::Score(b) => {
                    let Some(index) = rules.box_by_name(&b) else {
                        writeln!(
                            self.out,
                            "  ! unknown box `{b}`: the boxes are {}",
                            box_names(&rules)
                        )?;
                        continue;
                    };
                    match check_legal(&rules, &card, &dice, index) {
                        Ok(()) => return Ok(Some(Action::Score(index))),
                        Err(e) => writeln!(self.out, "  ! {e}")?,
                    }
                }
            }
        }
    }

    /// Fills `index` for the player to move and says so.
    fn score(&mut self, seat: usize, dice: Dice, index: usize) -> io::Result<()> {
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
            "{name} scores {category} for {points}{extra} (total {total})"
        )?;
        if self.game.seats()[seat].kind == SeatKind::Human
            && let Some(d) = decision
        {
            self.coach(&d)?;
        }
        Ok(())
    }

    /// One turn of the player to move; false when the game was left.
    fn turn(&mut self) -> io::Result<bool> {
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
        let values = (!human).then(|| TurnValues::new(self.table, &state));
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
                        "{name} rolled {dice}   ({rolls_left} roll{} left)",
                        if rolls_left == 1 { "" } else { "s" }
                    )?;
                    let action = match &values {
                        Some(v) => Action::Keep(v.best_keep(rolls_left, &dice).0),
                        None => match self.ask(seat, dice, rolls_left)? {
                            Some(a) => a,
                            None => return Ok(false),
                        },
                    };
                    let (keep, then_score) = match action {
                        Action::Keep(k) => (k, None),
                        // Scoring with rolls left is two decisions: stop, then the box.
                        Action::Score(i) => (
                            Keep::from_faces(&dice.faces()).expect("five faces"),
                            Some(i),
                        ),
                    };
                    if !human {
                        if keep.len() == DICE {
                            writeln!(self.out, "{name} stops")?;
                        } else {
                            writeln!(self.out, "{name} keeps {keep}")?;
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
                            dice: all,
                            rolls_left: rolls_left - 1,
                        })?;
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
                            Some(Action::Score(i)) => i,
                            Some(Action::Keep(_)) => unreachable!("no keep without rolls left"),
                            None => return Ok(false),
                        }
                    } else {
                        let choices = box_choices(self.table, &state, &dice);
                        best_box(&choices).expect("an open box").index
                    };
                    self.score(seat, dice, index)?;
                    return Ok(true);
                }
                other => {
                    return Err(io::Error::other(format!(
                        "internal error: unexpected phase {other:?} in a turn"
                    )));
                }
            }
        }
    }
}
