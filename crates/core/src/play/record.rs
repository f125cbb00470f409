//! The game record: one JSON object per line (JSON Lines), documented in
//! `data/README-games.md`.
//!
//! The first line is the [`Header`] (rules, seats, how the dice were made). Then come the
//! events of the game in the order they happened: the opening rolls that choose the first
//! player, the play order, and for every turn its rolls, keeps and the scoring. A last `end`
//! line holds the final scores. `yahtzee play` appends and flushes one line per event
//! ([`RecordWriter`]), so a game interrupted in any way (end of input, `quit`, a killed
//! process) leaves a record of everything played until then; a record without its `end` line
//! is an unfinished game, and one whose last line was cut off mid-write (a full disk, a kill)
//! is reviewed up to that line.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::game::rules::RuleSet;
use crate::policy::Policy;
use crate::tables::provenance::Provenance;

/// Version of the record format, written in every header and checked when reading. Format 2
/// added the target of a bot playing for a target score (`target` of a seat) and the
/// coach's target (`coach_target` of the header); format 3 the bots that play to win
/// (`policy` of a seat) and the coach for winning (`coach_win` of the header); format 4 the
/// bot that plays the exact game of two (`"policy": "two-player"`); format 5 the program that
/// wrote the record (`provenance` of the header: its version, commit and dice generator,
/// which with the seed say which dice a seeded game rolled); format 6 the seats of a score pad
/// whose turns are entered as a box and its points, without dice (`"entry": "points"` of a
/// seat).
///
/// A game with saved rolls (rules with `saved_rolls`) is written in the same format, with two
/// fields no other game has: the rolls saved before a turn on its first roll (`saved` of a
/// `roll`) and the re-rolls left that filling a box saves (`rolls_left` of a `score`). Only
/// this program plays such games, and a record of any other game is as it was.
pub const RECORD_FORMAT: u32 = 6;

/// The record formats this program reads: a format-5 record is a format-6 record without
/// seats of points, a format-4 record one without its provenance either, a format-3 record one without a two-player bot either, a format-2 record one
/// without win bots or a coach for winning either, a format-1 record one without targets
/// either.
pub const RECORD_FORMATS: [u32; 6] = [1, 2, 3, 4, 5, 6];

/// How a bot plays to win against the other players at the table (format 3): the policies
/// `win` and `win-exact` of `yahtzee simulate --match`, against the others' current cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WinPolicy {
    /// The fast win policy (`WinTurn`): `bot:win`.
    Win,
    /// The exact best response, solved at each of its turns (slow): `bot:win-exact`.
    WinExact,
    /// The exact optimum of the game of two (Yacht, two players; format 4):
    /// `bot:two-player`, the `two-player` policy of a match.
    TwoPlayer,
}

impl WinPolicy {
    /// The policy's name, as a seat and a match write it (`win`, `win-exact`).
    pub fn name(self) -> &'static str {
        match self {
            WinPolicy::Win => "win",
            WinPolicy::WinExact => "win-exact",
            WinPolicy::TwoPlayer => "two-player",
        }
    }
}

/// Who plays a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeatKind {
    /// A person typing commands.
    Human,
    /// A bot: the optimal bot (`TurnValues::best_keep` and `best_box`, ties to the fewest
    /// dice kept and to the first box on the card), or, when its seat has a target, the
    /// target policy for that target (`TargetTurn`), or, when its seat has a win policy, that
    /// policy against the other players.
    Bot,
}

/// One seat at the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seat {
    /// The player's name, unique at the table.
    pub name: String,
    /// Person or bot.
    pub kind: SeatKind,
    /// For a bot playing for a final score of at least this target (format 2); absent for
    /// the optimal bot and for a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<u32>,
    /// For a bot playing to win against the other players (format 3); absent for the
    /// optimal bot, a target bot and a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<WinPolicy>,
    /// How the seat's turns are entered (format 6): with the dice (absent, the default), or,
    /// for another player at a score pad's table, as a box and its points alone.
    #[serde(default, skip_serializing_if = "Entry::is_dice")]
    pub entry: Entry,
}

/// How a seat's turns are entered in the record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Entry {
    /// Every roll, keep and box, as played: the turns a review prices.
    #[default]
    Dice,
    /// Only the box filled and its points (a `score` line without rolls, format 6): another
    /// player at a score pad's table, whose dice nobody types. A person's seat, in a game of
    /// typed dice without saved rolls; never priced.
    Points,
}

impl Entry {
    /// True for [`Entry::Dice`], the default, which a record leaves unwritten.
    pub fn is_dice(&self) -> bool {
        *self == Entry::Dice
    }
}

impl Seat {
    /// The policy a bot's seat plays (the optimal policy unless it plays for a target or to
    /// win); `None` for a person.
    pub fn bot_policy(&self) -> Option<Policy> {
        if self.kind == SeatKind::Human {
            return None;
        }
        Some(match (self.target, self.policy) {
            (Some(t), _) => Policy::Target(t),
            (None, Some(WinPolicy::Win)) => Policy::Win,
            (None, Some(WinPolicy::WinExact)) => Policy::WinExact,
            (None, Some(WinPolicy::TwoPlayer)) => Policy::TwoPlayer,
            (None, None) => Policy::Optimal,
        })
    }

    /// A person's seat.
    pub fn human(name: &str) -> Seat {
        Seat {
            name: name.to_string(),
            kind: SeatKind::Human,
            target: None,
            policy: None,
            entry: Entry::Dice,
        }
    }

    /// A person's seat whose turns are entered as a box and its points (format 6).
    pub fn points(name: &str) -> Seat {
        Seat {
            entry: Entry::Points,
            ..Seat::human(name)
        }
    }

    /// True when the seat's turns are entered as a box and its points, without dice.
    pub fn enters_points(&self) -> bool {
        self.entry == Entry::Points
    }
}

/// Where the dice came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiceMode {
    /// Rolled by the program from `seed` (ChaCha8, portable).
    Seeded,
    /// Typed by the players from real dice.
    Manual,
}

/// The first line of a record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// [`RECORD_FORMAT`].
    pub format: u32,
    /// The rule set.
    pub rules: &'static RuleSet,
    /// True under `--upper-first`.
    pub upper_first: bool,
    /// The seats in table order (play passes to the left: to the next seat of this list).
    pub seats: Vec<Seat>,
    /// How the dice were made.
    pub dice: DiceMode,
    /// The seed of seeded dice; `null` for manual dice.
    pub seed: Option<u64>,
    /// The coach's threshold during the game: in points, or in chance with a coach target;
    /// `null` when the coach was off.
    pub coach_threshold: Option<f64>,
    /// The final score the coach priced the people's decisions for, in chance of reaching it
    /// (format 2); `null` when it priced them in expected points.
    #[serde(default)]
    pub coach_target: Option<u32>,
    /// True when the coach priced the people's decisions in chance of winning against the
    /// other players at the table (format 3); absent (false) in formats 1 and 2.
    #[serde(default)]
    pub coach_win: bool,
    /// When the game started, UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub started: String,
    /// The program that wrote the record: its version, commit and dice generator (format 5;
    /// absent before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

/// A player's final total.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FinalScore {
    /// The player.
    pub player: String,
    /// Points on the card, bonuses included.
    pub total: u32,
}

/// One line of a record after the header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum Event {
    /// A roll of all five dice to choose the first player.
    Opening {
        /// The player rolling.
        player: String,
        /// The five dice, ascending.
        dice: Vec<u8>,
    },
    /// The play order, fixed by the opening rolls.
    Order {
        /// The players, first to play first.
        players: Vec<String>,
    },
    /// The dice after a roll of a turn.
    Roll {
        /// The player.
        player: String,
        /// The player's turn number, from 1.
        turn: u32,
        /// All five dice after the roll (kept and re-rolled), ascending.
        dice: Vec<u8>,
        /// Rolls left after this roll: 2 after the first roll of a turn (under saved rolls,
        /// 2 and the rolls saved before the turn).
        rolls_left: u8,
        /// Under saved rolls, on the first roll of a turn: the rolls the player had saved
        /// before it (from 0). Absent in other games and on a re-roll; when absent under
        /// saved rolls, it is what the game replayed says.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        saved: Option<u8>,
    },
    /// The dice kept before a re-roll; keeping all five means stopping to score.
    Keep {
        /// The player.
        player: String,
        /// The player's turn number.
        turn: u32,
        /// The kept faces, ascending.
        keep: Vec<u8>,
        /// Rolls left when keeping (1 or 2; under saved rolls, up to 2 and the rolls saved
        /// before the turn).
        rolls_left: u8,
    },
    /// The box filled at the end of a turn.
    Score {
        /// The player.
        player: String,
        /// The player's turn number.
        turn: u32,
        /// The box, named as on the command line.
        #[serde(rename = "box")]
        category: String,
        /// Points in the box.
        points: u32,
        /// Bonus earned with it: 35 for reaching 63 in the upper section, 100 for a further
        /// Yahtzee.
        bonus: u32,
        /// Under saved rolls: the re-rolls left when the box is filled, which it saves for
        /// the player's later turns (0 after the last roll). Absent in other games; when
        /// absent under saved rolls, it is what the game replayed says.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rolls_left: Option<u8>,
    },
    /// The last line: the game is over or was left.
    End {
        /// True when every card is full.
        complete: bool,
        /// Each player's total, in seat order.
        scores: Vec<FinalScore>,
    },
}

/// Either line of a record, for reading: the header has no `type` tag of an event.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(crate) enum HeaderLine {
    Game(Header),
}

/// The header as written, with its `type` tag.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(crate) enum HeaderOut<'a> {
    Game(&'a Header),
}

impl Header {
    /// The header as one JSON line (without the newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(&HeaderOut::Game(self)).expect("a header serializes")
    }
}

impl Event {
    /// The event as one JSON line (without the newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("an event serializes")
    }
}

/// A record that could not be created or written. The messages name the file; the binary
/// adds how to choose another.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordFileError {
    /// The file exists: a record is never overwritten. Fix: choose another name.
    #[error("the game record {path} exists already, and a record is never overwritten")]
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// The file cannot be created (no such folder, no permission). Fix: a folder one can
    /// write in.
    #[error("cannot create the game record {path}: {cause}")]
    Create {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: io::Error,
    },
    /// Every default name of this second is taken. Fix: name the record.
    #[error(
        "cannot create a game record in {dir}: yahtzee-game-{stamp}.jsonl and its variants up to -{MAX_SUFFIX} all exist"
    )]
    NamesTaken {
        /// The folder.
        dir: PathBuf,
        /// The time stamp of the names.
        stamp: String,
    },
    /// A line could not be written (a full disk, a lost device). The game stops there: the
    /// record keeps every line written before, and the last may be cut off, which `review`
    /// accepts. Fix: make room, then review the record or play again.
    #[error(
        "cannot write the game record {path}: {cause}; the game stops here, and the record keeps the lines written before"
    )]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: io::Error,
    },
}

/// The last suffix of a default record name tried: `yahtzee-game-STAMP-999.jsonl`.
pub const MAX_SUFFIX: u32 = 999;

/// The record of a game being written, one flushed line at a time, with the name its errors
/// give it. Any writer serves: the game's file, or a buffer in a test.
#[derive(Debug)]
pub struct RecordWriter<W> {
    path: PathBuf,
    inner: W,
}

impl RecordWriter<File> {
    /// Creates the record `path`, refusing an existing file: a record is never overwritten.
    pub fn create(path: &Path) -> Result<RecordWriter<File>, RecordFileError> {
        match OpenOptions::new().write(true).create_new(true).open(path) {
            Ok(file) => Ok(RecordWriter::new(path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(RecordFileError::Exists {
                path: path.to_path_buf(),
            }),
            Err(cause) => Err(RecordFileError::Create {
                path: path.to_path_buf(),
                cause,
            }),
        }
    }

    /// Creates a new record in `dir` under the default name of the time stamp `stamp`
    /// (`YYYYMMDD-HHMMSS`): `yahtzee-game-STAMP.jsonl`, or, when a game started in the same
    /// second took it, the first free of `yahtzee-game-STAMP-2.jsonl`, `-3`, ... Each name is
    /// claimed by creating it (never by looking first), so two games starting at once still
    /// get two files and no record is overwritten.
    pub fn create_default(dir: &Path, stamp: &str) -> Result<RecordWriter<File>, RecordFileError> {
        for n in 1..=MAX_SUFFIX {
            let name = if n == 1 {
                format!("yahtzee-game-{stamp}.jsonl")
            } else {
                format!("yahtzee-game-{stamp}-{n}.jsonl")
            };
            match RecordWriter::create(&dir.join(name)) {
                Err(RecordFileError::Exists { .. }) => continue,
                other => return other,
            }
        }
        Err(RecordFileError::NamesTaken {
            dir: dir.to_path_buf(),
            stamp: stamp.to_string(),
        })
    }
}

impl<W: Write> RecordWriter<W> {
    /// A record written to `inner`, called `path` in errors.
    pub fn new(path: impl Into<PathBuf>, inner: W) -> RecordWriter<W> {
        RecordWriter {
            path: path.into(),
            inner,
        }
    }

    /// The record's file name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `line` and a newline in one write, and flushes.
    pub fn write_line(&mut self, line: &str) -> Result<(), RecordFileError> {
        let mut text = String::with_capacity(line.len() + 1);
        text.push_str(line);
        text.push('\n');
        self.inner
            .write_all(text.as_bytes())
            .and_then(|()| self.inner.flush())
            .map_err(|cause| RecordFileError::Write {
                path: self.path.clone(),
                cause,
            })
    }

    /// The writer.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

/// The current time as `YYYY-MM-DDTHH:MM:SSZ` and as a compact `YYYYMMDD-HHMMSS` for file names.
pub fn now_utc() -> (String, String) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let t = secs % 86_400;
    let (hh, mm, ss) = (t / 3600, t / 60 % 60, t % 60);
    (
        format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z"),
        format!("{y:04}{m:02}{d:02}-{hh:02}{mm:02}{ss:02}"),
    )
}

/// Year, month and day of a count of days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }

    #[test]
    fn second_game_in_the_same_second_gets_its_own_record() {
        // The default name had only the second in it: a second game started in the same
        // second failed, as its record existed.
        let dir = tempfile::tempdir().unwrap();
        let stamp = "20260102-030405";
        let mut names = Vec::new();
        for _ in 0..3 {
            let mut w = RecordWriter::create_default(dir.path(), stamp).unwrap();
            w.write_line(&format!("game {}", names.len())).unwrap();
            names.push(w.path().file_name().unwrap().to_string_lossy().into_owned());
        }
        assert_eq!(
            names,
            [
                "yahtzee-game-20260102-030405.jsonl",
                "yahtzee-game-20260102-030405-2.jsonl",
                "yahtzee-game-20260102-030405-3.jsonl"
            ]
        );
        // Nothing was overwritten.
        for (i, name) in names.iter().enumerate() {
            let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
            assert_eq!(text, format!("game {i}\n"));
        }
        let e = RecordWriter::create(&dir.path().join(&names[1])).unwrap_err();
        assert!(matches!(e, RecordFileError::Exists { .. }), "{e}");
    }

    struct FailingWriter;

    impl Write for FailingWriter {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "No space left on device",
            ))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failed_record_write_names_the_file() {
        let mut w = RecordWriter::new("games/ann.jsonl", FailingWriter);
        let e = w.write_line("{}").unwrap_err().to_string();
        assert!(
            e.starts_with("cannot write the game record games/ann.jsonl: No space left on device"),
            "{e}"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_write_to_a_full_disk_names_the_file() {
        let full = OpenOptions::new().write(true).open("/dev/full").unwrap();
        let mut w = RecordWriter::new("/dev/full", full);
        let e = w.write_line("{\"type\":\"game\"}").unwrap_err();
        match &e {
            RecordFileError::Write { path, cause } => {
                assert_eq!(path, Path::new("/dev/full"));
                assert_eq!(cause.raw_os_error(), Some(28), "{cause}");
            }
            other => panic!("{other}"),
        }
    }

    #[test]
    fn events_round_trip_and_reject_unknown_fields() {
        let e = Event::Score {
            player: "ann".into(),
            turn: 3,
            category: "full-house".into(),
            points: 25,
            bonus: 0,
            rolls_left: None,
        };
        let line = e.to_line();
        assert!(line.contains("\"type\":\"score\""), "{line}");
        assert!(line.contains("\"box\":\"full-house\""), "{line}");
        assert_eq!(serde_json::from_str::<Event>(&line).unwrap(), e);
        let extra = line.replace("\"bonus\":0", "\"bonus\":0,\"x\":1");
        assert!(serde_json::from_str::<Event>(&extra).is_err());
        // The fields of saved rolls are written only when they are set: a line of another
        // game is as it was.
        assert!(!line.contains("rolls_left"), "{line}");
        let saved = Event::Score {
            player: "ann".into(),
            turn: 3,
            category: "full-house".into(),
            points: 25,
            bonus: 0,
            rolls_left: Some(3),
        };
        let line = saved.to_line();
        assert!(line.ends_with(r#""bonus":0,"rolls_left":3}"#), "{line}");
        assert_eq!(serde_json::from_str::<Event>(&line).unwrap(), saved);
    }
}
