//! Game review: read a saved record, check it against the rules, and price every decision of
//! every player against optimal play: in expected points, or in chance of reaching a target
//! score ([`Pricing`]).
//!
//! [`GameRecord::parse`] replays a record through the referee ([`Game::apply`]) and refuses
//! the first line that is malformed or breaks the rules, naming the line and the reason,
//! except a last line cut off mid-write (a full disk, a killed game): the record then ends
//! early, at that line, and the lines before it are reviewed. Then
//! [`review`] prices each decision with [`evaluate`], that is with `advise` on the same
//! position, so a review, the coach of `yahtzee play` and `yahtzee advise` give the same
//! losses. A choice within 1e-9 of the best is a tie and costs 0, so the bot's own games
//! review at exactly zero loss.
//!
//! The mean loss per decision is the usual measure of a player's proficiency: 0.2 points or
//! less is strong play. Priced for a target ([`review_for`] with [`Pricing::Target`]), each
//! decision is priced with `advise --target` ([`evaluate_target`]): the chance of reaching the
//! target it gave away against the option best for it, so a bot playing for that target
//! reviews at zero loss. Priced to win ([`Pricing::Win`]), each decision is priced with
//! `advise --opponent` against the other players' cards at that moment ([`WinPricing`], as
//! the coach prices it): the chance of winning it gave away, under the model of
//! [`crate::policy::win::MODEL`], so a `win-exact` bot reviews at zero loss. Priced by the game of
//! two ([`Pricing::TwoPlayer`], records of two players of Yacht), each decision is priced
//! with `advise --two-player` ([`TwoPlayerPricing`]): the exact chance of winning plus half a
//! tie it gave away, both playing to win from there, so a two-player bot reviews at zero
//! loss.
//!
//! A record of saved rolls is priced in expected points alone ([`review_saved`]), each
//! decision against the options of its position with its re-rolls left, saving against
//! spending, as `advise --saved N --rolls-left R` prices them.
//!
//! Priced to win, each turn is a solve of the rest of the game (minutes for the first turns
//! of a Yahtzee game), so a front end can take the review as it comes
//! ([`review_progressively`]): each decision as soon as it is priced, the last turns first
//! ([`pricing_order`]: they take milliseconds), and the progress of the solve under way.

use serde::Serialize;

use crate::game::choice::Choice;
use crate::game::dice::{DICE, DiceRng, join_faces};
use crate::game::rules::Rules;
use crate::play::record::HeaderLine;
use crate::play::record::RECORD_FORMATS;
use crate::play::{DiceMode, Event, FinalScore, Game, Header, Illegal, SeatKind, WinPolicy};
use crate::policy::expected::AdviceError;
use crate::policy::pricing::{
    Decision, Evaluation, Pricer, Pricing, PricingError, evaluate, evaluate_saved,
};
use crate::policy::saved::SavedCards;
use crate::tables::expected::StrategyTable;
use crate::tables::set::{LoadError, TableSet};
use crate::text::{excerpt, plural, without_bom};

/// A record refused, with the line (from 1) and the reason. Each message says what the record
/// should hold instead; the format is in `data/README-games.md`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// No line at all. Fix: a record starts with a `game` header line.
    #[error("the record is empty: a record starts with a `game` header line")]
    Empty,
    /// The only line, the header, is cut off (the game's writing stopped in it): there is no
    /// game to review. Fix: none, the game was not recorded.
    #[error("line 1: the record ends in its header line, cut off: there is no game to review")]
    HeaderCutOff,
    /// A line that is not UTF-8 text. Fix: records are UTF-8; restore the line.
    #[error("line {line}: not UTF-8 text; a record is UTF-8 JSON, one object per line")]
    NotUtf8 {
        /// The line.
        line: usize,
    },
    /// The first line is not a `game` header. Fix: the header of `data/README-games.md`.
    #[error(
        "line {line}: not a game header ({reason}); the first line of a record is {{\"type\":\"game\", ...}}, see data/README-games.md"
    )]
    NotAHeader {
        /// The line.
        line: usize,
        /// What is wrong, from the JSON reader, with any input quoted through [`excerpt`].
        reason: String,
    },
    /// A line after the header that is not an event. Fix: the events of
    /// `data/README-games.md`.
    #[error("line {line}: not a valid event ({reason}); see data/README-games.md")]
    NotAnEvent {
        /// The line.
        line: usize,
        /// What is wrong, from the JSON reader, with any input quoted through [`excerpt`].
        reason: String,
    },
    /// A record format this program does not read. Fix: review it with the program that
    /// wrote it.
    #[error(
        "line {line}: record format {got} is not supported: this program reads formats 1 to {}",
        crate::play::record::RECORD_FORMAT
    )]
    Format {
        /// The line.
        line: usize,
        /// The format of the record.
        got: u32,
    },
    /// A format-1 record with a target (a bot's or the coach's): targets came with format 2.
    /// Fix: `"format": 2`, or remove the targets.
    #[error("line {line}: record format 1 has no targets: targets are written by format 2")]
    TargetInFormat1 {
        /// The line.
        line: usize,
    },
    /// A format-1 or format-2 record with a bot playing to win or a coach for winning: they
    /// came with format 3. Fix: `"format": 3`, or remove them.
    #[error(
        "line {line}: record format {format} has no win bots and no coach for winning: they are written by format 3"
    )]
    WinBeforeFormat3 {
        /// The line.
        line: usize,
        /// The format of the record.
        format: u32,
    },
    /// A record of format 3 or before with a two-player bot: it came with format 4. Fix:
    /// `"format": 4`, or remove it.
    #[error("line {line}: record format {format} has no two-player bot: it is written by format 4")]
    TwoPlayerBeforeFormat4 {
        /// The line.
        line: usize,
        /// The format of the record.
        format: u32,
    },
    /// A record of format 5 or before with a seat entered as points: it came with format 6.
    /// Fix: `"format": 6`, or remove it.
    #[error(
        "line {line}: record format {format} has no seats entered as points: they are written by format 6"
    )]
    PointsBeforeFormat6 {
        /// The line.
        line: usize,
        /// The format of the record.
        format: u32,
    },
    /// A seat entered as points in a record of seeded dice. Fix: `"dice": "manual"`.
    #[error(
        "line {line}: a seat entered as points plays with real dice: such a record has \"dice\": \"manual\""
    )]
    PointsSeeded {
        /// The line.
        line: usize,
    },
    /// A game of saved rolls with a bot playing for a target or to win, or a coach for a
    /// target or for winning: such a game is solved for the expected score alone, and `play`
    /// seats and coaches none. Fix: remove them.
    #[error(
        "line {line}: {game} keeps unused rolls for later turns and is solved for the expected score alone: its records have no bot playing for a target or to win, and no coach for a target or for winning"
    )]
    SavedRollsOnly {
        /// The line.
        line: usize,
        /// The game, by its rules' label.
        game: String,
    },
    /// A coach for winning and for a target at once, or at a table of one. Fix: one of them,
    /// the coach for winning at a table of two or more.
    #[error(
        "line {line}: the coach coached to win or for a target, not both (coach_win and coach_target), and to win only at a table of two or more"
    )]
    CoachWin {
        /// The line.
        line: usize,
    },
    /// A coach target above the largest target. Fix: a target from 0 to 100000, or `null`.
    #[error("line {line}: coach_target must be a whole number from 0 to 100000, or null")]
    CoachTarget {
        /// The line.
        line: usize,
    },
    /// Seeded dice without a seed. Fix: the seed, or `"dice": "manual"`.
    #[error("line {line}: seeded dice need a seed")]
    NoSeed {
        /// The line.
        line: usize,
    },
    /// Manual dice with a seed. Fix: `"seed": null`.
    #[error("line {line}: manual dice have no seed: write null")]
    ManualSeed {
        /// The line.
        line: usize,
    },
    /// A negative or infinite coach threshold, or one above 1 with a coach target (a chance).
    /// Fix: 0 or more (a chance from 0 to 1 with a coach target or the coach for winning), or
    /// `null` for no coach.
    #[error(
        "line {line}: coach_threshold must be 0 or more (a chance from 0 to 1 with a coach_target or coach_win), or null when the coach was off"
    )]
    CoachThreshold {
        /// The line.
        line: usize,
    },
    /// An event (or the table of players) the rules do not allow. Fix: the event the reason
    /// names.
    #[error("line {line}: {reason}")]
    Illegal {
        /// The line.
        line: usize,
        /// Why the rules refuse it.
        reason: Illegal,
    },
    /// Dice the seed of the record does not roll there. Fix: a seeded record replays
    /// exactly; dice may be edited only in a record of manual dice.
    #[error(
        "line {line}: the dice {dice} are not those of seed {seed} (it rolls {expected} here): a record of seeded dice replays exactly; edit its dice only in a game of manual dice"
    )]
    NotTheSeed {
        /// The line.
        line: usize,
        /// The seed.
        seed: u64,
        /// The dice of the record.
        dice: String,
        /// The dice of the seed.
        expected: String,
    },
    /// An `end` line whose `complete` disagrees with the cards. Fix: `complete` is true
    /// exactly when every card is full.
    #[error(
        "line {line}: the end line says complete = {complete} but the cards {}",
        if *.complete { "are not full" } else { "are full" }
    )]
    EndComplete {
        /// The line.
        line: usize,
        /// What the end line says.
        complete: bool,
    },
    /// An `end` line whose totals disagree with the cards. Fix: the totals of the message.
    #[error("line {line}: the final scores are {expected}, not {got}")]
    EndScores {
        /// The line.
        line: usize,
        /// The totals of the cards.
        expected: String,
        /// The totals of the end line, quoted through [`excerpt`].
        got: String,
    },
    /// A line after the `end` line. Fix: nothing follows the end.
    #[error("line {line}: nothing may follow the `end` line")]
    AfterEnd {
        /// The line.
        line: usize,
    },
}

impl RecordError {
    /// The line refused, when the error is about one line.
    pub fn line(&self) -> Option<usize> {
        match self {
            RecordError::Empty => None,
            RecordError::HeaderCutOff => Some(1),
            RecordError::NotUtf8 { line }
            | RecordError::NotAHeader { line, .. }
            | RecordError::NotAnEvent { line, .. }
            | RecordError::Format { line, .. }
            | RecordError::NoSeed { line }
            | RecordError::ManualSeed { line }
            | RecordError::CoachThreshold { line }
            | RecordError::TargetInFormat1 { line }
            | RecordError::WinBeforeFormat3 { line, .. }
            | RecordError::TwoPlayerBeforeFormat4 { line, .. }
            | RecordError::PointsBeforeFormat6 { line, .. }
            | RecordError::PointsSeeded { line }
            | RecordError::SavedRollsOnly { line, .. }
            | RecordError::CoachWin { line }
            | RecordError::CoachTarget { line }
            | RecordError::Illegal { line, .. }
            | RecordError::NotTheSeed { line, .. }
            | RecordError::EndComplete { line, .. }
            | RecordError::EndScores { line, .. }
            | RecordError::AfterEnd { line } => Some(*line),
        }
    }
}

/// The JSON reader's reason as an error may show it: its position dropped (the error names
/// the line), and the part that can quote the input (`unknown field `...``, `invalid type:
/// string "..."`) quoted through [`excerpt`]; what was expected comes from the record's own
/// schema and is kept whole.
fn json_reason(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let text = text.strip_suffix(&suffix).unwrap_or(&text);
    // The input is quoted before the last ", expected " and never after it.
    match text.rfind(", expected ") {
        Some(i) => format!("{}{}", excerpt(&text[..i]), &text[i..]),
        // The program's own messages (an unknown rule set and the list of those there are)
        // quote their input as excerpts already: cut only if one is long all the same.
        None if text.chars().count() <= 400 => text.to_string(),
        None => excerpt(text),
    }
}

/// A record checked against the rules.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The header.
    pub header: Header,
    /// Every decision with the line of the record that made it.
    pub decisions: Vec<(usize, Decision)>,
    /// The game as the record leaves it.
    pub game: Game,
    /// True when the record has its `end` line.
    pub ended: bool,
    /// The line at which the record ends early, cut off in the middle (the writing of the
    /// game stopped there: a full disk, a killed process); the record holds every line
    /// before it. `None` for a record whose every line is whole.
    pub cut_off: Option<usize>,
}

/// The lines of a record: number (from 1), bytes, and whether the line is the last and has
/// no newline, so may have been cut off in the middle.
fn record_lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8], bool)> {
    let pieces: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let last = pieces.len() - 1;
    pieces
        .into_iter()
        .enumerate()
        // The piece after a final newline is empty: it is no line.
        .filter(move |(i, p)| !(*i == last && p.is_empty()))
        .map(move |(i, p)| (i + 1, p, i == last))
}

impl GameRecord {
    /// Reads and checks a whole record, as bytes or text. A byte-order mark before the first
    /// line is skipped ([`crate::text::without_bom`]), as `advise --batch` skips it. A last
    /// line cut off in the middle (no newline, and its JSON or UTF-8 ends early) ends the
    /// record early: the lines before it are reviewed and [`GameRecord::cut_off`] says where.
    /// Any other malformed line refuses the record.
    pub fn parse(record: impl AsRef<[u8]>) -> Result<GameRecord, RecordError> {
        let mut header: Option<(usize, Header)> = None;
        let mut game: Option<Game> = None;
        let mut seeded: Option<SeededDice> = None;
        let mut decisions = Vec::new();
        let mut ended = false;
        let mut cut_off = None;
        for (n, bytes, unterminated) in record_lines(without_bom(record.as_ref())) {
            let text = match std::str::from_utf8(bytes) {
                Ok(t) => t.trim(),
                // A character cut in the middle, at the very end: the line was cut off.
                Err(e) if unterminated && e.error_len().is_none() => {
                    cut_off = Some(n);
                    break;
                }
                Err(_) => return Err(RecordError::NotUtf8 { line: n }),
            };
            if text.is_empty() {
                continue;
            }
            if ended {
                return Err(RecordError::AfterEnd { line: n });
            }
            let Some(game) = game.as_mut() else {
                let head = match serde_json::from_str::<HeaderLine>(text) {
                    Ok(HeaderLine::Game(h)) => h,
                    Err(e) if unterminated && e.is_eof() => return Err(RecordError::HeaderCutOff),
                    Err(e) => {
                        return Err(RecordError::NotAHeader {
                            line: n,
                            reason: json_reason(&e),
                        });
                    }
                };
                check_header(n, &head)?;
                game = Some(
                    Game::from_header(&head)
                        .map_err(|reason| RecordError::Illegal { line: n, reason })?,
                );
                seeded = head
                    .seed
                    .filter(|_| head.dice == DiceMode::Seeded)
                    .map(|seed| SeededDice {
                        rng: DiceRng::new(seed),
                        seed,
                        kept: None,
                        dice: game.as_ref().map_or(DICE, |g| g.rules().dice().dice()),
                    });
                header = Some((n, head));
                continue;
            };
            let event: Event = match serde_json::from_str(text) {
                Ok(e) => e,
                Err(e) if unterminated && e.is_eof() => {
                    cut_off = Some(n);
                    break;
                }
                Err(e) => {
                    return Err(RecordError::NotAnEvent {
                        line: n,
                        reason: json_reason(&e),
                    });
                }
            };
            if let Event::End { complete, scores } = &event {
                check_end(n, game, *complete, scores)?;
                ended = true;
                continue;
            }
            let decision = game
                .apply(&event)
                .map_err(|reason| RecordError::Illegal { line: n, reason })?;
            if let Some(seeded) = &mut seeded {
                seeded.check(n, &event)?;
            }
            if let Some(d) = decision {
                decisions.push((n, d));
            }
        }
        let (Some((_, header)), Some(game)) = (header, game) else {
            return Err(match cut_off {
                Some(_) => RecordError::HeaderCutOff,
                None => RecordError::Empty,
            });
        };
        Ok(GameRecord {
            header,
            decisions,
            game,
            ended,
            cut_off,
        })
    }
}

/// Checks what the header says beyond its shape.
fn check_header(line: usize, header: &Header) -> Result<(), RecordError> {
    if !RECORD_FORMATS.contains(&header.format) {
        return Err(RecordError::Format {
            line,
            got: header.format,
        });
    }
    let has_target =
        header.coach_target.is_some() || header.seats.iter().any(|s| s.target.is_some());
    if header.format == 1 && has_target {
        return Err(RecordError::TargetInFormat1 { line });
    }
    let has_win = header.coach_win || header.seats.iter().any(|s| s.policy.is_some());
    if header.format < 3 && has_win {
        return Err(RecordError::WinBeforeFormat3 {
            line,
            format: header.format,
        });
    }
    let two_player = header
        .seats
        .iter()
        .any(|s| s.policy == Some(WinPolicy::TwoPlayer));
    if header.format < 4 && two_player {
        return Err(RecordError::TwoPlayerBeforeFormat4 {
            line,
            format: header.format,
        });
    }
    let points = header.seats.iter().any(crate::play::Seat::enters_points);
    if header.format < 6 && points {
        return Err(RecordError::PointsBeforeFormat6 {
            line,
            format: header.format,
        });
    }
    if points && header.dice == DiceMode::Seeded {
        return Err(RecordError::PointsSeeded { line });
    }
    if header.rules.saved_rolls && (has_target || has_win) {
        let order = if header.upper_first {
            crate::game::rules::Order::UpperFirst
        } else {
            crate::game::rules::Order::Any
        };
        return Err(RecordError::SavedRollsOnly {
            line,
            game: Rules::with_order(header.rules, order).label(),
        });
    }
    if header.coach_win && (header.coach_target.is_some() || header.seats.len() < 2) {
        return Err(RecordError::CoachWin { line });
    }
    if header
        .coach_target
        .is_some_and(|t| t > crate::policy::MAX_TARGET)
    {
        return Err(RecordError::CoachTarget { line });
    }
    match (header.dice, header.seed) {
        (DiceMode::Seeded, None) => return Err(RecordError::NoSeed { line }),
        (DiceMode::Manual, Some(_)) => return Err(RecordError::ManualSeed { line }),
        _ => {}
    }
    let most = if header.coach_target.is_some() || header.coach_win {
        1.0
    } else {
        f64::INFINITY
    };
    if header
        .coach_threshold
        .is_some_and(|t| !(t.is_finite() && t >= 0.0 && t <= most))
    {
        return Err(RecordError::CoachThreshold { line });
    }
    Ok(())
}

/// Checks an `end` line against the game replayed.
fn check_end(
    line: usize,
    game: &Game,
    complete: bool,
    scores: &[FinalScore],
) -> Result<(), RecordError> {
    if complete != game.is_over() {
        return Err(RecordError::EndComplete { line, complete });
    }
    let totals = game.totals();
    if scores != totals {
        let show = |s: &[FinalScore]| {
            s.iter()
                .map(|f| format!("{} {}", f.player, f.total))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(RecordError::EndScores {
            line,
            expected: show(&totals),
            got: excerpt(&show(scores)),
        });
    }
    Ok(())
}

/// One decision priced.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecisionReview {
    /// Line of the record.
    pub line: usize,
    /// The player.
    pub player: String,
    /// The player's turn, from 1.
    pub turn: u32,
    /// The card before the decision, as `yahtzee advise --card` takes it.
    pub card: String,
    /// Yahtzee bonuses on the card (`--yahtzee-bonus`).
    pub yahtzee_bonus: u32,
    /// Points on the card, bonuses included.
    pub banked: u32,
    /// The dice, ascending.
    pub dice: Vec<u8>,
    /// Rolls left (0 for a scoring decision; under saved rolls, the re-rolls left, which a
    /// box filled then saves).
    pub rolls_left: u8,
    /// Under saved rolls, the rolls the player had saved before this turn (`advise --saved`);
    /// absent in other games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved: Option<u8>,
    /// `keep` or `score`.
    pub kind: &'static str,
    /// The choice made, in words.
    pub choice: String,
    /// The best choice, in words.
    pub best: String,
    /// Expected final score after the choice made (priced for a target: the best chance of
    /// reaching it after the choice).
    pub chosen_value: f64,
    /// Expected final score after the best choice (for a target: its chance).
    pub best_value: f64,
    /// Expected points lost (for a target: chance lost): `best_value - chosen_value`, 0 for a
    /// tie.
    pub loss: f64,
}

/// Decisions counted by the size of the mistake.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LossSizes {
    /// Optimal (or tied with the optimum): loss 0.
    pub optimal: usize,
    /// Loss above 0 and below 0.2.
    pub under_0_2: usize,
    /// Loss from 0.2 to below 1.
    pub from_0_2_to_1: usize,
    /// Loss from 1 to below 5.
    pub from_1_to_5: usize,
    /// Loss of 5 or more.
    pub from_5: usize,
}

impl LossSizes {
    fn count(&mut self, loss: f64) {
        // Bounds: 0.2 is the usual mark of strong play; 1 and 5 separate mistakes from blunders.
        match loss {
            l if l <= 0.0 => self.optimal += 1,
            l if l < 0.2 => self.under_0_2 += 1,
            l if l < 1.0 => self.from_0_2_to_1 += 1,
            l if l < 5.0 => self.from_1_to_5 += 1,
            _ => self.from_5 += 1,
        }
    }
}

/// Decisions priced for a target, counted by the chance they gave away.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ChanceLossSizes {
    /// Best for the target (or tied with the best): loss 0.
    pub optimal: usize,
    /// Loss above 0 and below 0.001 (a tenth of a percentage point).
    pub under_0_001: usize,
    /// Loss from 0.001 to below 0.01.
    pub from_0_001_to_0_01: usize,
    /// Loss from 0.01 to below 0.05.
    pub from_0_01_to_0_05: usize,
    /// Loss of 0.05 (five percentage points) or more.
    pub from_0_05: usize,
}

impl ChanceLossSizes {
    fn count(&mut self, loss: f64) {
        match loss {
            l if l <= 0.0 => self.optimal += 1,
            l if l < 0.001 => self.under_0_001 += 1,
            l if l < 0.01 => self.from_0_001_to_0_01 += 1,
            l if l < 0.05 => self.from_0_01_to_0_05 += 1,
            _ => self.from_0_05 += 1,
        }
    }
}

/// Decisions counted by the size of their loss, in the review's unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum BySize {
    /// In expected points.
    Points(LossSizes),
    /// In chance of reaching the target.
    Chance(ChanceLossSizes),
}

impl BySize {
    fn count(&mut self, loss: f64) {
        match self {
            BySize::Points(s) => s.count(loss),
            BySize::Chance(s) => s.count(loss),
        }
    }

    /// The counts, best first, with their column titles.
    pub fn columns(&self) -> [(&'static str, usize); 5] {
        match self {
            BySize::Points(s) => [
                ("optimal", s.optimal),
                ("<0.2", s.under_0_2),
                ("0.2-1", s.from_0_2_to_1),
                ("1-5", s.from_1_to_5),
                (">=5", s.from_5),
            ],
            BySize::Chance(s) => [
                ("best", s.optimal),
                ("<0.001", s.under_0_001),
                ("0.001-0.01", s.from_0_001_to_0_01),
                ("0.01-0.05", s.from_0_01_to_0_05),
                (">=0.05", s.from_0_05),
            ],
        }
    }
}

/// The totals of one player.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerReview {
    /// The player.
    pub player: String,
    /// Person or bot.
    pub kind: SeatKind,
    /// The target a bot played for (absent for the optimal bot and for a person).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<u32>,
    /// How a bot played to win (`win`, `win-exact`; absent for the other bots and for a
    /// person).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<WinPolicy>,
    /// Points on the card at the end of the record.
    pub score: u32,
    /// Number of decisions (keeps and scorings).
    pub decisions: usize,
    /// Sum of the losses: the expected points given away (for a target: the chance).
    pub total_loss: f64,
    /// Mean loss per decision; in points, 0.2 or less is strong play.
    pub mean_loss: f64,
    /// Decisions by size of the mistake, in the review's unit.
    pub by_size: BySize,
    /// The three costliest decisions (loss above 0), costliest first.
    pub costliest: Vec<DecisionReview>,
}

/// The review of one record.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Review {
    /// The rules of the game: `rules` (the rule set's name) and `upper_first`.
    #[serde(flatten)]
    pub rules: Rules,
    /// True for a game of saved rolls, priced with the table of saved rolls (each decision
    /// against the options of its position, saving against spending); absent in other games.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub saved_rolls: bool,
    /// What the decisions are priced in: `expected-score` (expected points, against optimal
    /// play), `target` (chance of a final score of at least `target`, against the option
    /// best for it) or `win` (chance of winning against the other players at the table,
    /// against the option best for it, under `model`).
    pub objective: &'static str,
    /// The target of a review priced for a target; `null` otherwise.
    pub target: Option<u32>,
    /// What a review priced in chance of winning assumes of the opponents
    /// ([`crate::policy::win::MODEL`]); `null` otherwise.
    pub model: Option<&'static str>,
    /// The seed of seeded dice.
    pub seed: Option<u64>,
    /// True when the game was played to the end.
    pub complete: bool,
    /// The line at which the record ends early, cut off mid-line; the review covers the
    /// lines before it. `null` for a record whose every line is whole.
    pub cut_off: Option<usize>,
    /// Per player, in seat order.
    pub players: Vec<PlayerReview>,
    /// Every decision, in the order played.
    pub decisions: Vec<DecisionReview>,
}

/// The dice stream of a seeded record, replayed as `yahtzee play` draws it: all the dice
/// (five or six) for an opening roll and for the first roll of a turn, and one per re-rolled
/// die after a keep.
struct SeededDice {
    rng: DiceRng,
    seed: u64,
    /// The faces of the keep the next roll re-rolls around; `None` when the next roll is a
    /// turn's first (a roll follows a keep exactly when it is a re-roll: under saved rolls
    /// its rolls left do not tell, a first roll having 2 and the rolls saved).
    kept: Option<Vec<u8>>,
    /// The game's number of dice.
    dice: usize,
}

impl SeededDice {
    /// Checks that the dice of `event` (line `line`) are the next ones of the stream.
    fn check(&mut self, line: usize, event: &Event) -> Result<(), RecordError> {
        let (dice, mut expected) = match event {
            Event::Keep { keep, .. } => {
                self.kept = Some(keep.clone());
                return Ok(());
            }
            Event::Score { .. } => {
                // After a stop (a keep of all the dice), the next roll is a turn's first.
                self.kept = None;
                return Ok(());
            }
            Event::Opening { dice, .. } => (dice, self.rng.dice(self.dice)),
            Event::Roll { dice, .. } => match self.kept.take() {
                Some(mut all) => {
                    all.extend(self.rng.dice(self.dice - all.len()));
                    (dice, all)
                }
                None => (dice, self.rng.dice(self.dice)),
            },
            _ => return Ok(()),
        };
        expected.sort_unstable();
        if *dice == expected {
            return Ok(());
        }
        Err(RecordError::NotTheSeed {
            line,
            seed: self.seed,
            dice: join_faces(dice),
            expected: join_faces(&expected),
        })
    }
}

/// Why a review could not price a record.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReviewError {
    /// The pricing failed: a table does not fit the record (see [`PricingError`]). Fix: the
    /// tables of the record's rules.
    #[error(transparent)]
    Priced(#[from] PricingError),
    /// A review in chance of winning of a record of one player. Fix: price it in points or
    /// for a target.
    #[error("a review in chance of winning needs two players or more: this record has one player")]
    WinAlone,
    /// A review by the exact game of two of a record that is not one of two players of
    /// Yacht. Fix: price it in points, for a target or in chance of winning.
    #[error(
        "a review by the exact game of two needs a record of two players of Yacht (either fill order): this one is {rules} with {players} players; price it in points, for a target or to win"
    )]
    NotTwoPlayer {
        /// The rules of the record.
        rules: String,
        /// Its number of players.
        players: usize,
    },
    /// The table of saved rolls of a record of saved rolls cannot be had (see [`LoadError`]).
    #[error(transparent)]
    Table(#[from] LoadError),
}

/// Prices every decision of `record` with `table` (the table of the record's rules) in
/// expected points.
pub fn review(table: &StrategyTable, record: &GameRecord) -> Result<Review, AdviceError> {
    review_with(record, Pricing::ExpectedScore, |d| evaluate(table, d))
}

/// Prices every decision of `record` with `table` (the table of the record's rules) as
/// `pricing` says.
pub fn review_for(
    table: &StrategyTable,
    record: &GameRecord,
    pricing: Pricing<'_>,
) -> Result<Review, ReviewError> {
    check_pricing(record, pricing)?;
    let mut pricer = Pricer::new(table, pricing)?;
    Ok(review_with(record, pricing, |d| pricer.evaluate(d))?)
}

/// Prices every decision of `record`, a game of saved rolls, in expected points with the
/// table of saved rolls of `tables` (of the record's rules; built when missing, read a card at
/// a time): each decision against the options of its position, the re-rolls left included
/// ([`evaluate_saved`]: a box filled now, saving them, against a keep spending one), as the
/// coach of `yahtzee play` and `yahtzee advise --saved N --rolls-left R` price it. The
/// optimal bot's games review at zero loss.
pub fn review_saved(tables: &TableSet, record: &GameRecord) -> Result<Review, ReviewError> {
    let mut cards = SavedCards::default();
    review_with(record, Pricing::ExpectedScore, |d| {
        let table = cards.for_card(tables, d.position.card.filled())?;
        let priced = evaluate_saved(&table, d).map_err(PricingError::from)?;
        Ok::<_, ReviewError>(priced)
    })
}

/// One decision priced by [`review_progressively`], as soon as it is priced.
#[derive(Clone, Copy, Debug)]
pub struct Priced<'r> {
    /// Its place among the record's decisions, in the order played (from 0).
    pub index: usize,
    /// Decisions priced so far, this one included.
    pub done: usize,
    /// Decisions to price.
    pub total: usize,
    /// The decision, priced.
    pub decision: &'r DecisionReview,
}

/// The order in which [`review_progressively`] prices the decisions of `record` (their
/// places in the order played): the cards with the most boxes filled first, in the order
/// played among equals. Priced to win, a decision is a solve of every card that can follow
/// the player's (each turn's decisions share one): the last turns take milliseconds and the
/// first ones most of the time, so most decisions are priced in the first moments.
pub fn pricing_order(record: &GameRecord) -> Vec<usize> {
    let mut order: Vec<usize> = (0..record.decisions.len()).collect();
    // Stable: the decisions of one turn stay together, so they share the pricer's solve.
    order.sort_by_key(|&i| {
        std::cmp::Reverse(
            record.decisions[i]
                .1
                .position
                .card
                .state()
                .filled
                .count_ones(),
        )
    });
    order
}

/// [`review_for`], telling `priced` of each decision as soon as it is priced, in the order
/// of [`pricing_order`], and `solving(done, total)` of the cards of a solve under way
/// (pricing to win). `Ok(None)` when `priced` returned false (a server whose client is gone).
/// The review is [`review_for`]'s, bit for bit: a decision's price does not depend on the
/// order.
pub fn review_progressively(
    table: &StrategyTable,
    record: &GameRecord,
    pricing: Pricing<'_>,
    solving: &(dyn Fn(u64, u64) + Sync),
    priced: &mut dyn FnMut(Priced<'_>) -> bool,
) -> Result<Option<Review>, ReviewError> {
    check_pricing(record, pricing)?;
    let mut pricer = Pricer::new(table, pricing)?.with_solve_progress(solving);
    let seats = record.game.seats();
    let total = record.decisions.len();
    let mut reviewed: Vec<Option<DecisionReview>> = vec![None; total];
    for (done, index) in pricing_order(record).into_iter().enumerate() {
        let (line, d) = &record.decisions[index];
        let e = pricer.evaluate(d)?;
        let decision = reviewed[index].insert(decision_review(seats, *line, d, e));
        let go_on = priced(Priced {
            index,
            done: done + 1,
            total,
            decision,
        });
        if !go_on {
            return Ok(None);
        }
    }
    let decisions = reviewed.into_iter().flatten().collect();
    Ok(Some(summarize(record, pricing, decisions)))
}

/// The record can be priced as `pricing` says: to win, two players or more; by the exact
/// game of two, two players of Yacht.
fn check_pricing(record: &GameRecord, pricing: Pricing<'_>) -> Result<(), ReviewError> {
    let rules = record.game.rules();
    let players = record.game.seats().len();
    match pricing {
        Pricing::Win { .. } if players < 2 => return Err(ReviewError::WinAlone),
        Pricing::TwoPlayer { .. }
            if players != 2 || crate::solve::two_player::check_rules(&rules).is_err() =>
        {
            return Err(ReviewError::NotTwoPlayer {
                rules: rules.label(),
                players,
            });
        }
        _ => {}
    }
    Ok(())
}

/// The review of decision `d` of `seats`' game, made at line `line`, priced as `e`.
fn decision_review(
    seats: &[crate::play::Seat],
    line: usize,
    d: &Decision,
    e: Evaluation,
) -> DecisionReview {
    let card = &d.position.card;
    DecisionReview {
        line,
        player: seats[d.seat].name.clone(),
        turn: d.turn,
        card: card.to_string(),
        yahtzee_bonus: card.yahtzee_bonuses(),
        banked: card.banked(),
        dice: d.position.dice.faces(),
        rolls_left: d.position.rolls_left,
        saved: d.saved,
        kind: match d.choice {
            Choice::Keep(_) => "keep",
            Choice::Score(_) => "score",
        },
        choice: e.chosen,
        best: e.best,
        chosen_value: e.chosen_value,
        best_value: e.best_value,
        loss: e.loss,
    }
}

fn review_with<E>(
    record: &GameRecord,
    pricing: Pricing<'_>,
    mut price: impl FnMut(&Decision) -> Result<Evaluation, E>,
) -> Result<Review, E> {
    let seats = record.game.seats();
    let decisions = record
        .decisions
        .iter()
        .map(|(line, d)| Ok(decision_review(seats, *line, d, price(d)?)))
        .collect::<Result<Vec<_>, E>>()?;
    Ok(summarize(record, pricing, decisions))
}

/// The review of `record` from its `decisions` priced (in the order played): the totals of
/// each player and the costliest decisions.
fn summarize(record: &GameRecord, pricing: Pricing<'_>, decisions: Vec<DecisionReview>) -> Review {
    let target = pricing.target();
    let seats = record.game.seats();
    let totals = record.game.totals();
    // A seat entered as points made no decision a review could price: it is left out.
    let players = seats
        .iter()
        .zip(totals)
        .filter(|(seat, _)| !seat.enters_points())
        .map(|(seat, total)| {
            let mine: Vec<&DecisionReview> =
                decisions.iter().filter(|d| d.player == seat.name).collect();
            let mut by_size = match pricing {
                Pricing::ExpectedScore => BySize::Points(LossSizes::default()),
                _ => BySize::Chance(ChanceLossSizes::default()),
            };
            let mut total_loss = 0.0;
            for d in &mine {
                by_size.count(d.loss);
                total_loss += d.loss;
            }
            let mut costly: Vec<&DecisionReview> =
                mine.iter().copied().filter(|d| d.loss > 0.0).collect();
            // Stable: equal losses keep the order of play.
            costly.sort_by(|a, b| b.loss.total_cmp(&a.loss));
            PlayerReview {
                player: seat.name.clone(),
                kind: seat.kind,
                target: seat.target,
                policy: seat.policy,
                score: total.total,
                decisions: mine.len(),
                total_loss,
                mean_loss: if mine.is_empty() {
                    0.0
                } else {
                    total_loss / mine.len() as f64
                },
                by_size,
                costliest: costly.into_iter().take(3).cloned().collect(),
            }
        })
        .collect();
    Review {
        rules: record.game.rules(),
        saved_rolls: record.game.rules().saved_rolls(),
        objective: pricing.objective(),
        target,
        model: matches!(pricing, Pricing::Win { .. }).then_some(crate::policy::win::MODEL),
        seed: record.header.seed,
        complete: record.game.is_over(),
        cut_off: record.cut_off,
        players,
        decisions,
    }
}

/// The review as text: every decision, then the totals and the costliest decisions per player.
pub fn render_review(r: &Review) -> String {
    let faces = |f: &[u8]| f.iter().map(u8::to_string).collect::<String>();
    let mut s = format!(
        "{}{}, {}{}\n",
        r.rules.label(),
        r.seed.map_or(String::new(), |x| format!(", seed {x}")),
        if r.complete {
            "complete game"
        } else {
            "unfinished game"
        },
        r.cut_off.map_or(String::new(), |n| format!(
            " (the record ends early, cut off at line {n})"
        ))
    );
    s.push_str(&match (r.target, r.model) {
        (Some(t), _) => format!(
            "decisions priced in chance of a final score of {t} or more, against the option best for it\n\n"
        ),
        (None, Some(model)) => format!(
            "decisions priced in chance of winning against the other players at the table, against the option best for it\nmodel: {model}\n\n"
        ),
        (None, None) if r.objective == crate::tables::two_player::TWO_PLAYER => "decisions priced in the exact chance of winning the game of two (plus half a tie), both players playing to win from there, against the option best for it\n\n".to_string(),
        (None, None) if r.saved_rolls => "decisions priced in expected points, against optimal play under saved rolls (saved: the rolls saved before the turn; left: the re-rolls left, which a box filled then saves)\n\n".to_string(),
        (None, None) => "decisions priced in expected points, against optimal play\n\n".to_string(),
    });
    // Under saved rolls, the rolls saved before the turn beside the re-rolls left, and the
    // choices as wide as the longest (`score two-pairs for 20, keep 4 rolls`).
    let w = match r.saved_rolls {
        true => (r.decisions.iter())
            .map(|d| d.choice.chars().count().max(d.best.chars().count()))
            .fold(32, usize::max),
        false => 32,
    };
    let saved_head = if r.saved_rolls {
        format!(" {:>5}", "saved")
    } else {
        String::new()
    };
    s.push_str(&format!(
        "{:>5}  {:<10} {:>4} {:>6}  {:<5}{} {:>4}  {:<w$} {:<w$} {:>8}\n",
        "line", "player", "turn", "banked", "dice", saved_head, "left", "choice", "best", "loss"
    ));
    for d in &r.decisions {
        s.push_str(&format!(
            "{:>5}  {:<10} {:>4} {:>6}  {:<5}{} {:>4}  {:<w$} {:<w$} {:>8.4}\n",
            d.line,
            d.player,
            d.turn,
            d.banked,
            faces(&d.dice),
            d.saved.map_or(String::new(), |n| format!(" {n:>5}")),
            d.rolls_left,
            d.choice,
            d.best,
            d.loss
        ));
    }
    let titles = r
        .players
        .first()
        .map(|p| p.by_size.columns().map(|(t, _)| t))
        .unwrap_or_default();
    s.push_str(&format!(
        "\n{:<10} {:>5} {:>9} {:>10} {:>9}  {}\n",
        "player",
        "score",
        "decisions",
        "total loss",
        "mean loss",
        titles
            .iter()
            .map(|t| format!("{t:>7}"))
            .collect::<Vec<_>>()
            .join(" ")
    ));
    for p in &r.players {
        s.push_str(&format!(
            "{:<10} {:>5} {:>9} {:>10.4} {:>9.4}  {}\n",
            p.player,
            p.score,
            p.decisions,
            p.total_loss,
            p.mean_loss,
            p.by_size
                .columns()
                .iter()
                .zip(titles)
                .map(|((_, n), t)| format!("{n:>w$}", w = t.len().max(7)))
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    for p in &r.players {
        if let Some(t) = p.target {
            s.push_str(&format!("\n{} played for {t}.", p.player));
        }
        match p.policy {
            Some(WinPolicy::Win) => s.push_str(&format!(
                "\n{} played to win (the fast win policy).",
                p.player
            )),
            Some(WinPolicy::WinExact) => s.push_str(&format!(
                "\n{} played to win (the exact best response).",
                p.player
            )),
            Some(WinPolicy::TwoPlayer) => {
                s.push_str(&format!("\n{} played the exact game of two.", p.player))
            }
            None => {}
        }
    }
    if r.players
        .iter()
        .any(|p| p.target.is_some() || p.policy.is_some())
    {
        s.push('\n');
    }
    for p in &r.players {
        if p.costliest.is_empty() {
            continue;
        }
        s.push_str(&format!("\nCostliest decisions of {}:\n", p.player));
        for (i, d) in p.costliest.iter().enumerate() {
            s.push_str(&format!(
                "  {}. line {}, turn {}, dice {}, {} left: {} instead of {}, loss {:.4}\n",
                i + 1,
                d.line,
                d.turn,
                faces(&d.dice),
                plural(u64::from(d.rolls_left), "roll", "rolls"),
                d.choice,
                d.best,
                d.loss
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = r#"{"type":"game","format":1,"rules":"yacht","upper_first":false,"seats":[{"name":"ann","kind":"human"}],"dice":"manual","seed":null,"coach_threshold":0.2,"started":"2026-01-01T00:00:00Z"}"#;

    fn parse(lines: &[&str]) -> Result<GameRecord, RecordError> {
        GameRecord::parse(lines.join("\n"))
    }

    #[test]
    fn reads_a_short_record() {
        let r = parse(&[
            HEAD,
            r#"{"type":"order","players":["ann"]}"#,
            r#"{"type":"roll","player":"ann","turn":1,"dice":[6,6,6,6,6],"rolls_left":2}"#,
            r#"{"type":"keep","player":"ann","turn":1,"keep":[6,6,6,6,6],"rolls_left":2}"#,
            r#"{"type":"score","player":"ann","turn":1,"box":"yacht","points":50,"bonus":0}"#,
            r#"{"type":"end","complete":false,"scores":[{"player":"ann","total":50}]}"#,
        ])
        .unwrap();
        assert_eq!(r.decisions.len(), 2);
        assert_eq!(r.decisions[1].0, 5);
        assert!(r.ended);
    }

    #[test]
    fn refuses_bad_lines_with_their_number() {
        let line = |lines: &[&str]| {
            let e = parse(lines).unwrap_err();
            (e.line().unwrap_or_else(|| panic!("{e}")), e.to_string())
        };
        let order = r#"{"type":"order","players":["ann"]}"#;
        assert_eq!(parse(&[]).unwrap_err(), RecordError::Empty);
        assert_eq!(line(&["{"]).0, 1);
        assert!(
            line(&[&HEAD.replace("\"format\":1", "\"format\":9")])
                .1
                .contains("format 9")
        );
        let (n, why) = line(&[
            HEAD,
            order,
            r#"{"type":"roll","player":"ann","turn":1,"dice":[1,2,3,4,7],"rolls_left":2}"#,
        ]);
        assert_eq!(n, 3);
        assert!(why.contains("invalid dice"), "{why}");
        let (n, why) = line(&[HEAD, "", order, r#"{"type":"dance"}"#]);
        assert_eq!(n, 4);
        assert!(why.contains("not a valid event"), "{why}");
        let (n, why) = line(&[
            HEAD,
            order,
            r#"{"type":"end","complete":true,"scores":[{"player":"ann","total":0}]}"#,
        ]);
        assert_eq!(n, 3);
        assert!(why.contains("complete"), "{why}");
        let (n, why) = line(&[
            HEAD,
            order,
            r#"{"type":"end","complete":false,"scores":[{"player":"ann","total":7}]}"#,
        ]);
        assert_eq!(n, 3);
        assert!(why.contains("ann 0"), "{why}");
        let mut bytes = [HEAD, order, ""].join("\n").into_bytes();
        bytes.extend(b"\xff{}\n");
        let e = GameRecord::parse(&bytes).unwrap_err();
        assert_eq!(e, RecordError::NotUtf8 { line: 3 });
    }

    /// Issue 45: `review bom.jsonl` said "line 1: not a game header" for a record saved with
    /// a byte-order mark, which `advise --batch` skips. A mark anywhere else is still refused.
    #[test]
    fn a_byte_order_mark_before_the_header_is_skipped() {
        let text = format!("\u{feff}{}", [HEAD, ORDER, ROLL, KEEP].join("\n"));
        let r = GameRecord::parse(&text).unwrap();
        assert_eq!(
            (r.decisions.len(), r.header.seats[0].name.as_str()),
            (1, "ann")
        );
        let e = parse(&[HEAD, &format!("\u{feff}{ORDER}")]).unwrap_err();
        assert_eq!(e.line(), Some(2), "{e}");
    }

    /// Issue 45: a record whose player is named U+202E + "tob" was reviewed, its name
    /// printed raw (showing as "bot"). The referee's check of names refuses it.
    #[test]
    fn a_name_with_a_bidirectional_override_is_refused() {
        for name in [
            "\u{202e}tob",
            "a\u{2028}b",
            "a\u{85}b",
            "a\u{7f}",
            "a\u{200b}b",
        ] {
            let head = HEAD.replace("\"ann\"", &serde_json::to_string(name).unwrap());
            let e = parse(&[&head]).unwrap_err();
            assert_eq!(e.line(), Some(1), "{name:?}: {e}");
            assert!(e.to_string().contains("is not allowed"), "{e}");
        }
    }

    const ROLL: &str =
        r#"{"type":"roll","player":"ann","turn":1,"dice":[6,6,6,6,6],"rolls_left":2}"#;
    const KEEP: &str =
        r#"{"type":"keep","player":"ann","turn":1,"keep":[6,6,6,6,6],"rolls_left":2}"#;
    const ORDER: &str = r#"{"type":"order","players":["ann"]}"#;

    #[test]
    fn record_cut_mid_line_reviews_its_complete_lines() {
        // A record whose last write was cut (a full disk, a killed game) was refused whole.
        let whole = [HEAD, ORDER, ROLL, KEEP].join("\n") + "\n";
        let score =
            r#"{"type":"score","player":"ann","turn":1,"box":"yacht","points":50,"bonus":0}"#;
        for cut in 1..score.len() {
            let text = format!("{whole}{}", &score[..cut]);
            let r = GameRecord::parse(&text).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
            assert_eq!(r.cut_off, Some(5), "cut at {cut}");
            assert_eq!(r.decisions.len(), 1);
            assert!(!r.ended);
        }
        // The whole line is no cut.
        let r = GameRecord::parse(format!("{whole}{score}")).unwrap();
        assert_eq!((r.cut_off, r.decisions.len()), (None, 2));
        // A cut in the middle of a character of a name.
        let text = format!("{whole}{{\"type\":\"end\",\"x\":\"\u{e9}");
        let bytes = text.as_bytes();
        let r = GameRecord::parse(&bytes[..bytes.len() - 1]).unwrap();
        assert_eq!(r.cut_off, Some(5));
    }

    #[test]
    fn a_record_malformed_before_its_last_line_is_still_refused() {
        let cut = &KEEP[..20];
        // A cut line followed by others is not a cut: the record is malformed there.
        let e = parse(&[HEAD, ORDER, cut, ROLL]).unwrap_err();
        assert_eq!(e.line(), Some(3), "{e}");
        assert!(e.to_string().contains("not a valid event"), "{e}");
        // A last line cut but ended by a newline was not cut by a stopped write either.
        let e = GameRecord::parse([HEAD, ORDER, ROLL, cut].join("\n") + "\n").unwrap_err();
        assert_eq!(e.line(), Some(4), "{e}");
        // A last line that is whole JSON but wrong is refused, not taken as a cut.
        let e = parse(&[HEAD, ORDER, r#"{"type":"roll"}"#]).unwrap_err();
        assert!(e.to_string().contains("missing field"), "{e}");
        // Only a header, cut: nothing to review.
        assert_eq!(
            parse(&[&HEAD[..30]]).unwrap_err(),
            RecordError::HeaderCutOff
        );
    }

    #[test]
    fn record_errors_quote_an_excerpt_of_the_record() {
        let long = "y".repeat(100_000);
        for bad in [
            format!(r#"{{"type":"dance{long}"}}"#),
            format!(
                r#"{{"type":"roll","player":"ann","turn":1,"dice":[1,2,3,4,5],"rolls_left":2,"x\n{long}":1}}"#
            ),
            format!(
                r#"{{"type":"score","player":"ann","turn":1,"box":"a\nb{long}","points":0,"bonus":0}}"#
            ),
            format!(
                r#"{{"type":"roll","player":"a\nnn{long}","turn":1,"dice":[1,2,3,4,5],"rolls_left":2}}"#
            ),
        ] {
            let e = parse(&[HEAD, ORDER, ROLL, KEEP, &bad])
                .unwrap_err()
                .to_string();
            assert!(e.len() < 400, "{} bytes: {}", e.len(), &e[..400]);
            assert!(!e.contains('\n'), "{e}");
            assert!(e.starts_with("line 5: "), "{e}");
        }
        // A seat name play would refuse (a newline, 10,000 characters) is refused here too.
        for name in ["a\\nb".to_string(), "z".repeat(10_000)] {
            let head = HEAD.replace(r#""name":"ann""#, &format!(r#""name":"{name}""#));
            let e = parse(&[&head]).unwrap_err().to_string();
            assert!(e.starts_with("line 1: player name `"), "{e}");
            assert!(e.len() < 200 && !e.contains('\n'), "{e}");
        }
        let e = parse(&[HEAD, ORDER, r#"{"type":"dance"}"#])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unknown variant `dance`, expected one of `opening`"),
            "{e}"
        );
    }

    #[test]
    fn sizes_losses() {
        let mut s = LossSizes::default();
        for l in [0.0, 0.1, 0.2, 0.99, 1.0, 5.0, 12.0] {
            s.count(l);
        }
        assert_eq!(
            s,
            LossSizes {
                optimal: 1,
                under_0_2: 1,
                from_0_2_to_1: 2,
                from_1_to_5: 1,
                from_5: 2
            }
        );
    }
}
