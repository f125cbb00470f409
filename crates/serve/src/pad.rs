//! The score pad: games of a whole table kept on the server, one record file each.
//!
//! A pad game seats the players of a real table in table order (the first plays first): one
//! of them is advised, and plays with the dice entered (a roll, a keep, a box, as a game of
//! manual dice), the others enter each turn as a box and its points (the seats `"entry":
//! "points"` of record format 6, checked against [`yahtzee_core::play::attainable`]). Each
//! game is the core's game host ([`Host`], manual dice), so the referee, the record and the
//! review are those of `yahtzee play` and `yahtzee review`.
//!
//! Every game is a record in the server's games folder (`serve --games DIR`, by default the
//! `games` folder of the table folder), named as `yahtzee play` names its records
//! (`yahtzee-game-YYYYMMDD-HHMMSS.jsonl`), appended and flushed line by line as the events
//! come; an undo writes the record again through a temporary renamed into place. The
//! objective the advice is asked under (expected score, a target, winning against the pad's
//! other cards) is kept beside it, `NAME.objective.json`, written the same way. At start the
//! server reads every record of the folder, so a game survives a reload of the page and a
//! restart of the server; a record it cannot read is named on stderr and left alone.
//!
//! The advice itself is the page's `/api/advise` on the query a view hands it ([`PadView`]'s
//! `advice`): the advised player's position, and under the objective to win the other
//! players' cards as opponents, so that it is `policy::advise` with those opponents, as
//! `yahtzee advise --opponent` answers it.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path as FsPath, PathBuf};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::api::{CardView, describe, integer, parse_body, rules_query};
use super::play::{faces, lock};
use super::{ApiError, BODY_LIMIT, Server, blocking, json, query_pairs, read_body};
use yahtzee_core::cancel::Cancel;
use yahtzee_core::game::rules::Rules;
use yahtzee_core::play::host::{DiceSource, Due, Front, Host, PlayOptions};
use yahtzee_core::play::record::{RecordWriter, now_utc};
use yahtzee_core::play::review::GameRecord;
use yahtzee_core::play::{
    Attainable, Event, Game, Header, MAX_PLAYERS, Phase, Seat, attainable, check_names,
};
use yahtzee_core::policy::MAX_TARGET;
use yahtzee_core::text::excerpt;

/// The games of the pad, by id (the record's file name without `.jsonl`).
pub struct Pads {
    dir: PathBuf,
    games: Mutex<BTreeMap<String, Arc<Mutex<Pad>>>>,
}

/// What the advice of the advised player's turns is asked under.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "objective", rename_all = "kebab-case")]
pub enum Objective {
    /// The highest expected final score.
    #[default]
    ExpectedScore,
    /// The best chance of a final score of at least `target`.
    Target {
        /// The final score to reach.
        target: u32,
    },
    /// The best chance of winning against the other players' cards on the pad.
    Win,
}

/// One game of the pad.
struct Pad {
    id: String,
    path: PathBuf,
    /// Every line of the record, the header first.
    lines: Vec<String>,
    objective: Objective,
    /// The game host, resumed from the record when first needed (it loads the tables).
    host: Option<Host>,
}

/// The record's appender: each line the host makes is appended to the file and flushed.
struct Appender<'a> {
    path: &'a FsPath,
}

impl Front for Appender<'_> {
    type Error = ApiError;

    fn record(&mut self, line: &str) -> Result<(), ApiError> {
        let file = std::fs::OpenOptions::new().append(true).open(self.path);
        let written = file.map_err(|cause| yahtzee_core::play::record::RecordFileError::Write {
            path: self.path.to_path_buf(),
            cause,
        });
        written
            .and_then(|f| RecordWriter::new(self.path, f).write_line(line))
            .map_err(|e| ApiError::internal(e.to_string()))
    }

    fn show(&mut self, _: &Game, _: &yahtzee_core::play::host::Message) -> Result<(), ApiError> {
        Ok(())
    }
}

/// The header and events of a record's lines.
fn parse_lines(lines: &[String]) -> Result<(Header, Vec<Event>), String> {
    let record = GameRecord::parse(lines.join("\n")).map_err(|e| e.to_string())?;
    let events = lines[1..]
        .iter()
        .map(|l| serde_json::from_str::<Event>(l).map_err(|e| e.to_string()))
        .collect::<Result<Vec<Event>, String>>()?;
    Ok((record.header, events))
}

impl Pad {
    fn objective_path(&self) -> PathBuf {
        self.path.with_extension("objective.json")
    }

    /// The game replayed by the referee alone (no tables): for the list.
    fn game(&self) -> Result<GameRecord, ApiError> {
        GameRecord::parse(self.lines.join("\n"))
            .map_err(|e| ApiError::internal(format!("the record {}: {e}", self.path.display())))
    }

    /// The host, resumed from the record with the tables of its rules on first use.
    fn host(&mut self, server: &Server) -> Result<&mut Host, ApiError> {
        if self.host.is_none() {
            let (header, events) = parse_lines(&self.lines).map_err(ApiError::internal)?;
            let rules = Game::from_header(&header)
                .map_err(|e| ApiError::internal(e.to_string()))?
                .rules();
            let host = Host::resume(server.tables.set(rules), &header, &events)?;
            self.host = Some(host);
        }
        Ok(self.host.as_mut().expect("resumed"))
    }

    /// The seat advised: the one that plays with the dice.
    fn advised(game: &Game) -> usize {
        game.seats()
            .iter()
            .position(|s| !s.enters_points())
            .unwrap_or(0)
    }

    /// An action of the page.
    fn act(&mut self, server: &Server, action: PadAction) -> Result<(), ApiError> {
        match action {
            PadAction::Objective(objective) => {
                let host = self.host(server)?;
                if objective == Objective::Win && host.game().seats().len() < 2 {
                    return Err(ApiError::bad(
                        "the objective win plays against the other players of the pad: this game has one player",
                    ));
                }
                let text = serde_json::to_string(&objective).expect("an objective serializes");
                yahtzee_core::files::write_atomically(&self.objective_path(), text.as_bytes())
                    .map_err(|e| ApiError::internal(format!("cannot write the objective: {e}")))?;
                self.objective = objective;
                return Ok(());
            }
            PadAction::Undo => return self.undo(server),
            _ => {}
        }
        let path = self.path.clone();
        let mut front = Appender { path: &path };
        let host = self.host(server)?;
        match action {
            PadAction::Dice(mut faces) => {
                // A re-roll may give every die on the table: the kept dice are taken out.
                if let Phase::Kept { keep, .. } = host.game().phase() {
                    let all = host.game().rules().dice().dice();
                    if faces.len() == all {
                        for kept in keep.faces() {
                            match faces.iter().position(|&f| f == kept) {
                                Some(i) => {
                                    faces.remove(i);
                                }
                                None => {
                                    return Err(ApiError::bad(format!(
                                        "the dice {faces:?} do not hold the dice kept, {:?}: give the re-rolled dice, or all the dice with the kept ones",
                                        keep.faces()
                                    )));
                                }
                            }
                        }
                    }
                }
                host.roll(faces, &mut front)
            }
            PadAction::Keep(faces) => host.keep(faces, &mut front),
            PadAction::Score(name) => host.score(&name, &mut front),
            PadAction::Points {
                category,
                points,
                yahtzee_bonus,
            } => host.score_points(&category, points, yahtzee_bonus, &mut front),
            PadAction::Undo | PadAction::Objective(_) => unreachable!("handled above"),
        }?;
        self.lines = host.record().to_vec();
        Ok(())
    }

    /// Takes back the last event of a person: the last box (with the stop before it, when
    /// the box was filled with rolls left), keep or roll; the end of a finished game goes
    /// with its last box. The record is written again through a temporary.
    fn undo(&mut self, server: &Server) -> Result<(), ApiError> {
        let mut lines = self.lines.clone();
        let event = |l: &String| serde_json::from_str::<Event>(l).ok();
        if lines
            .last()
            .and_then(event)
            .is_some_and(|e| matches!(e, Event::End { .. }))
        {
            lines.pop();
        }
        match lines.last().and_then(event) {
            None | Some(Event::Order { .. } | Event::Opening { .. }) => {
                return Err(ApiError::bad("nothing to undo: the game has no move yet"));
            }
            Some(Event::Score { .. }) => {
                lines.pop();
                // A box filled with rolls left came with its stop: a keep of all the dice.
                let all = self.host(server)?.game().rules().dice().dice();
                if let Some(Event::Keep { keep, .. }) = lines.last().and_then(event)
                    && keep.len() == all
                {
                    lines.pop();
                }
            }
            Some(_) => {
                lines.pop();
            }
        }
        let mut text = lines.join("\n");
        text.push('\n');
        yahtzee_core::files::write_atomically(&self.path, text.as_bytes())
            .map_err(|e| ApiError::internal(format!("cannot write the record: {e}")))?;
        self.lines = lines;
        self.host = None;
        self.host(server)?;
        Ok(())
    }

    /// The game as the page shows it.
    fn view(&mut self, server: &Server) -> Result<PadView, ApiError> {
        let id = self.id.clone();
        let objective = self.objective;
        let host = self.host(server)?;
        let game = host.game();
        let rules = game.rules();
        let seats = game.seats();
        let advised = Pad::advised(game);
        let (dice, rolls_left, kept) = match game.phase() {
            Phase::Rolled { dice, rolls_left } => (Some(dice), Some(rolls_left), None),
            Phase::MustScore { dice } => (Some(dice), Some(0), None),
            Phase::Kept { keep, rolls_left } => (None, Some(rolls_left), Some(keep.faces())),
            _ => (None, None, None),
        };
        let mover = game.to_move();
        let open = |seat: usize| -> Vec<OpenBox> {
            let card = &game.cards()[seat];
            (0..rules.box_count())
                .filter(|&i| card.points(i).is_none())
                .map(|i| OpenBox {
                    name: rules.boxes()[i].name(),
                    title: rules.boxes()[i].title,
                    scores: match (seat == advised, dice) {
                        (true, Some(d)) => yahtzee_core::play::score_box(&rules, card, &d, i)
                            .ok()
                            .map(|(p, b)| Attainable {
                                points: p,
                                bonus: b.points(&rules),
                                yahtzee_bonus: b.yahtzee,
                            }),
                        _ => None,
                    },
                    options: match seat == advised {
                        true => Vec::new(),
                        false => attainable(&rules, card, i).unwrap_or_default(),
                    },
                })
                .collect()
        };
        let expect = match host.due() {
            Due::Dice { count, what, .. } => PadExpect::Dice { count, what },
            Due::Decision { .. } => PadExpect::Decision,
            Due::Points { .. } => PadExpect::Points,
            Due::Nothing => PadExpect::Nothing,
        };
        let advice = match host.due() {
            Due::Decision {
                seat,
                dice,
                rolls_left,
            } => Some(advice_query(
                game,
                seat,
                &dice.faces(),
                rolls_left,
                objective,
            )),
            _ => None,
        };
        let finished = game.is_over();
        Ok(PadView {
            id,
            rules,
            started: host.header().started.clone(),
            objective,
            players: seats
                .iter()
                .zip(game.cards())
                .enumerate()
                .map(|(i, (s, c))| PadPlayer {
                    name: s.name.clone(),
                    advised: i == advised,
                    card: CardView::of(c),
                })
                .collect(),
            to_move: mover.map(|s| seats[s].name.clone()),
            turn: game.turn(),
            finished,
            dice: dice.map(|d| d.faces()),
            rolls_left,
            kept,
            expect,
            open: mover.map(open).unwrap_or_default(),
            advice,
            can_undo: self.lines.len() > 2,
            record_lines: self.lines.len(),
        })
    }

    /// The game as the list shows it, from the record alone.
    fn summary(&self) -> Result<PadSummary, ApiError> {
        let record = self.game()?;
        let game = &record.game;
        Ok(PadSummary {
            id: self.id.clone(),
            rules: game.rules(),
            started: record.header.started.clone(),
            players: game.seats().iter().map(|s| s.name.clone()).collect(),
            advised: game.seats()[Pad::advised(game)].name.clone(),
            totals: game.totals().iter().map(|t| t.total).collect(),
            finished: game.is_over(),
        })
    }
}

/// The batch line of the advised player's decision (`/api/advise`), under `objective`: the
/// target, or the other players' cards as opponents (a full card a finished opponent).
pub fn advice_query(
    game: &Game,
    seat: usize,
    dice: &[u8],
    rolls_left: u8,
    objective: Objective,
) -> Value {
    let rules = game.rules();
    let card_map = |s: usize| -> serde_json::Map<String, Value> {
        let card = &game.cards()[s];
        (0..rules.box_count())
            .filter_map(|i| {
                card.points(i)
                    .map(|p| (rules.boxes()[i].name().to_string(), Value::from(p)))
            })
            .collect()
    };
    let mut query = json!({
        "card": card_map(seat),
        "yahtzee_bonus": game.cards()[seat].yahtzee_bonuses(),
        "dice": dice,
        "rolls_left": rolls_left,
    });
    match objective {
        Objective::ExpectedScore => {}
        Objective::Target { target } => query["target"] = Value::from(target),
        Objective::Win => {
            let opponents: Vec<Value> = (0..game.seats().len())
                .filter(|&s| s != seat)
                .map(|s| {
                    json!({"card": card_map(s), "yahtzee_bonus": game.cards()[s].yahtzee_bonuses()})
                })
                .collect();
            query["opponents"] = Value::from(opponents);
        }
    }
    query
}

/// An open box of the player to move.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpenBox {
    /// The box's name.
    pub name: &'static str,
    /// The box as printed on a card.
    pub title: &'static str,
    /// For the advised player with dice showing: what the box scores with them (`null` when
    /// the rules forbid it for these dice).
    pub scores: Option<Attainable>,
    /// For another player: every points (and bonus) the box can be filled with.
    pub options: Vec<Attainable>,
}

/// What the pad waits for.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum PadExpect {
    /// The advised player's dice: `count` of them.
    Dice {
        /// How many.
        count: usize,
        /// Which roll, in words.
        what: String,
    },
    /// The advised player's keep or box (the view's `advice` is its question).
    Decision,
    /// Another player's box and its points.
    Points,
    /// Nothing: the game is over.
    Nothing,
}

/// A player of a pad game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PadPlayer {
    /// The name.
    pub name: String,
    /// True for the advised player, who plays with the dice.
    pub advised: bool,
    /// The card.
    #[serde(flatten)]
    pub card: CardView,
}

/// A pad game as the page shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PadView {
    /// The game's id, for `/api/pad/{id}`.
    pub id: String,
    /// The rules (`rules`, `upper_first`).
    #[serde(flatten)]
    pub rules: Rules,
    /// When the game started, UTC.
    pub started: String,
    /// What the advice is asked under: `{"objective": "expected-score"}`, `{"objective":
    /// "target", "target": 250}` or `{"objective": "win"}`.
    pub objective: Objective,
    /// The players in table order, each with the card.
    pub players: Vec<PadPlayer>,
    /// The player to move; `null` once finished.
    pub to_move: Option<String>,
    /// That player's turn, from 1.
    pub turn: u32,
    /// True when every card is full.
    pub finished: bool,
    /// The advised player's dice showing.
    pub dice: Option<Vec<u8>>,
    /// Their rolls left.
    pub rolls_left: Option<u8>,
    /// The dice kept for the re-roll due.
    pub kept: Option<Vec<u8>>,
    /// What the pad waits for.
    pub expect: PadExpect,
    /// The open boxes of the player to move.
    pub open: Vec<OpenBox>,
    /// The advised player's decision as an `/api/advise` query, under the objective.
    pub advice: Option<Value>,
    /// True when a move can be taken back.
    pub can_undo: bool,
    /// Lines of the record.
    pub record_lines: usize,
}

/// A pad game in the list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PadSummary {
    /// The id.
    pub id: String,
    /// The rules.
    #[serde(flatten)]
    pub rules: Rules,
    /// When it started, UTC.
    pub started: String,
    /// The players in table order.
    pub players: Vec<String>,
    /// The advised player.
    pub advised: String,
    /// Each player's total, in table order.
    pub totals: Vec<u32>,
    /// True when every card is full.
    pub finished: bool,
}

impl Pads {
    /// The pad of the games folder `dir` (created when missing), with every record in it
    /// read; one that cannot be read is named on stderr and left out.
    pub fn open(dir: PathBuf) -> Pads {
        let pads = Pads {
            dir,
            games: Mutex::new(BTreeMap::new()),
        };
        let Ok(entries) = std::fs::read_dir(&pads.dir) else {
            return pads;
        };
        let mut games = pads.games.lock().unwrap_or_else(|e| e.into_inner());
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            match load(&path) {
                Ok(pad) => {
                    games.insert(pad.id.clone(), Arc::new(Mutex::new(pad)));
                }
                Err(why) => eprintln!(
                    "warning: the score pad leaves out {}: {why}",
                    path.display()
                ),
            }
        }
        drop(games);
        pads
    }

    /// The games folder.
    pub fn dir(&self) -> &FsPath {
        &self.dir
    }

    fn get(&self, id: &str) -> Result<Arc<Mutex<Pad>>, ApiError> {
        let games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        games.get(id).cloned().ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                format!(
                    "no pad game `{}` in {}: GET /api/pad lists them",
                    excerpt(id),
                    self.dir.display()
                ),
            )
        })
    }
}

/// A pad game from its record `path` (and its objective beside it).
fn load(path: &FsPath) -> Result<Pad, String> {
    let bytes = yahtzee_core::files::read_regular(path, super::RECORD_LIMIT as u64)
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())?;
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    if lines.is_empty() {
        return Err("an empty record".into());
    }
    let (header, _) = parse_lines(&lines)?;
    if header.dice != yahtzee_core::play::DiceMode::Manual {
        return Err("a game of seeded dice, not the pad's".into());
    }
    let id = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .ok_or("no file name")?;
    let mut pad = Pad {
        id,
        path: path.to_path_buf(),
        lines,
        objective: Objective::ExpectedScore,
        host: None,
    };
    if let Ok(text) = std::fs::read_to_string(pad.objective_path()) {
        pad.objective = serde_json::from_str(&text).unwrap_or_default();
    }
    Ok(pad)
}

/// An action on a pad game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PadAction {
    /// The advised player's dice: all of a first roll; of a re-roll, the dice re-rolled (or
    /// all the dice, the kept ones among them).
    Dice(Vec<u8>),
    /// The advised player keeps these faces.
    Keep(Vec<u8>),
    /// The advised player fills this box with the dice showing (with rolls left: stops first).
    Score(String),
    /// Another player fills a box with its points.
    Points {
        /// The box.
        category: String,
        /// Its points.
        points: u32,
        /// With the bonus of a further five of a kind (`None`: as the points earn it).
        yahtzee_bonus: Option<bool>,
    },
    /// Take back the last move.
    Undo,
    /// Ask the advice under this objective.
    Objective(Objective),
}

const ACTION_EXAMPLE: &str = r#"{"dice": [1, 3, 3, 5, 6]}, {"keep": [3, 3]}, {"score": "chance"}, {"box": "full-house", "points": 25}, {"undo": true} or {"objective": "win"}"#;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionBody {
    dice: Option<Value>,
    keep: Option<Value>,
    score: Option<Value>,
    #[serde(rename = "box")]
    category: Option<Value>,
    points: Option<Value>,
    yahtzee_bonus: Option<Value>,
    undo: Option<Value>,
    objective: Option<Value>,
    target: Option<Value>,
}

/// The action of a request body: one of `dice`, `keep`, `score`, `box` (with `points`, and
/// `yahtzee_bonus` or not), `undo`, `objective` (with `target` for a target).
pub fn parse_action(bytes: &[u8]) -> Result<PadAction, ApiError> {
    let body: ActionBody = parse_body(bytes, ACTION_EXAMPLE)?;
    let given = [
        &body.dice,
        &body.keep,
        &body.score,
        &body.category,
        &body.undo,
        &body.objective,
    ]
    .iter()
    .filter(|v| v.is_some())
    .count();
    let one = || {
        ApiError::bad(format!(
            "an action has one of dice, keep, score, box (with points), undo and objective, like {ACTION_EXAMPLE}"
        ))
    };
    if given != 1
        || (body.points.is_some() || body.yahtzee_bonus.is_some()) && body.category.is_none()
        || body.target.is_some() && body.objective.is_none()
    {
        return Err(one());
    }
    if let Some(v) = &body.dice {
        return Ok(PadAction::Dice(faces(v, "dice")?));
    }
    if let Some(v) = &body.keep {
        return Ok(PadAction::Keep(faces(v, "keep")?));
    }
    let name = |v: &Value, key: &str| match v.as_str() {
        Some(name) => Ok(name.to_string()),
        None => Err(ApiError::bad(format!(
            "{key} must be the name of a box, like \"chance\", not {}",
            describe(v)
        ))),
    };
    if let Some(v) = &body.score {
        return Ok(PadAction::Score(name(v, "score")?));
    }
    if let Some(v) = &body.category {
        let Some(points) = &body.points else {
            return Err(ApiError::bad(
                "a box of another player comes with its points, like {\"box\": \"full-house\", \"points\": 25}",
            ));
        };
        let points = integer(points, "points", "a whole number of points, like 25")?;
        let yahtzee_bonus = match &body.yahtzee_bonus {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(v) => {
                return Err(ApiError::bad(format!(
                    "yahtzee_bonus must be true or false, not {}",
                    describe(v)
                )));
            }
        };
        return Ok(PadAction::Points {
            category: name(v, "box")?,
            points: u32::try_from(points).unwrap_or(u32::MAX),
            yahtzee_bonus,
        });
    }
    if let Some(v) = &body.undo {
        return match v {
            Value::Bool(true) => Ok(PadAction::Undo),
            v => Err(ApiError::bad(format!(
                "undo must be true, not {}",
                describe(v)
            ))),
        };
    }
    let objective = body.objective.as_ref().expect("one key is given");
    let target = match &body.target {
        None => None,
        Some(v) => Some(
            integer(
                v,
                "target",
                &format!("a whole number from 0 to {MAX_TARGET}"),
            )
            .ok()
            .filter(|&t| t <= u64::from(MAX_TARGET))
            .ok_or_else(|| {
                ApiError::bad(format!(
                    "target must be a whole number from 0 to {MAX_TARGET}, not {}",
                    describe(v)
                ))
            })? as u32,
        ),
    };
    match (objective.as_str(), target) {
        (Some("expected-score"), None) => Ok(PadAction::Objective(Objective::ExpectedScore)),
        (Some("win"), None) => Ok(PadAction::Objective(Objective::Win)),
        (Some("target"), Some(target)) => Ok(PadAction::Objective(Objective::Target { target })),
        (Some("target"), None) => Err(ApiError::bad(
            "objective target needs its target, like {\"objective\": \"target\", \"target\": 250}",
        )),
        (Some("expected-score" | "win"), Some(_)) => {
            Err(ApiError::bad("only the objective target takes a target"))
        }
        _ => Err(ApiError::bad(format!(
            "objective must be \"expected-score\", \"target\" or \"win\", not {}",
            describe(objective)
        ))),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewPadBody {
    players: Value,
    advised: Option<Value>,
}

const NEW_PAD_EXAMPLE: &str = r#"{"players": ["ann", "bob", "cat"], "advised": "ann"}"#;

/// The seats of a new pad game: `players` in table order, the first to play first;
/// `advised` (absent: the first) plays with the dice, the others are entered as points.
pub fn parse_new_pad(rules: Rules, bytes: &[u8]) -> Result<PlayOptions, ApiError> {
    if rules.saved_rolls() {
        return Err(ApiError::bad(format!(
            "{} keeps unused rolls for later turns (saved_rolls = true): the pad does not play such a game; `yahtzee play` in a terminal does",
            rules.label()
        )));
    }
    let body: NewPadBody = parse_body(bytes, NEW_PAD_EXAMPLE)?;
    let names: Vec<String> = body
        .players
        .as_array()
        .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_string)).collect())
        .filter(|n: &Vec<String>| !n.is_empty() && n.len() <= MAX_PLAYERS)
        .ok_or_else(|| {
            ApiError::bad(format!(
                "players must be an array of 1 to {MAX_PLAYERS} names in table order, like [\"ann\", \"bob\"], not {}",
                describe(&body.players)
            ))
        })?;
    let advised = match &body.advised {
        None | Some(Value::Null) => names[0].clone(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => {
            return Err(ApiError::bad(format!(
                "advised must be the name of one of the players, not {}",
                describe(v)
            )));
        }
    };
    if !names.contains(&advised) {
        return Err(ApiError::bad(format!(
            "advised must be one of the players ({}), not `{}`",
            names.join(", "),
            excerpt(&advised)
        )));
    }
    let seats: Vec<Seat> = names
        .iter()
        .map(|n| match *n == advised {
            true => Seat::human(n),
            false => Seat::points(n),
        })
        .collect();
    check_names(&seats).map_err(|e| ApiError::bad(e.to_string()))?;
    Ok(PlayOptions {
        rules,
        seats,
        dice: DiceSource::Manual,
        coach_threshold: None,
        coach_target: None,
        coach_win: false,
    })
}

/// The routes of the pad.
pub fn routes() -> Router<Arc<Server>> {
    Router::new()
        .route("/api/pad", get(list).post(new_pad))
        .route("/api/pad/{id}", get(show).post(act))
        .route("/api/pad/{id}/record", get(record))
        .route("/api/pad/{id}/review", post(review))
}

async fn new_pad(
    State(server): State<Arc<Server>>,
    RawQuery(raw): RawQuery,
    body: Body,
) -> Response {
    let answer = async {
        let rules = rules_query(&server, raw.as_deref(), "/api/pad")?;
        let bytes = read_body(body, BODY_LIMIT, "/api/pad").await?;
        let options = parse_new_pad(rules, &bytes)?;
        blocking(move || {
            let host = Host::new(server.tables.set(rules), &options)?;
            let dir = server.pads.dir.clone();
            yahtzee_core::files::create_folder(&dir).map_err(|e| {
                ApiError::internal(format!(
                    "cannot create the games folder {}: {e}",
                    dir.display()
                ))
            })?;
            let stamp = now_utc().1;
            let writer = RecordWriter::create_default(&dir, &stamp)
                .map_err(|e| ApiError::internal(e.to_string()))?;
            let path = writer.path().to_path_buf();
            drop(writer.into_inner().flush());
            let id = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut host = host;
            host.start(&mut Appender { path: &path })?;
            let mut pad = Pad {
                id: id.clone(),
                path,
                lines: host.record().to_vec(),
                objective: Objective::ExpectedScore,
                host: Some(host),
            };
            let view = pad.view(&server)?;
            let mut games = server.pads.games.lock().unwrap_or_else(|e| e.into_inner());
            games.insert(id, Arc::new(Mutex::new(pad)));
            Ok(view)
        })
        .await
    };
    match answer.await {
        Ok(view) => json(&view),
        Err(e) => e.into_response(),
    }
}

async fn list(State(server): State<Arc<Server>>, RawQuery(raw): RawQuery) -> Response {
    let answer = async {
        query_pairs(raw.as_deref(), &[], "/api/pad")?;
        blocking(move || {
            let pads: Vec<Arc<Mutex<Pad>>> = {
                let games = server.pads.games.lock().unwrap_or_else(|e| e.into_inner());
                games.values().cloned().collect()
            };
            let mut list = pads
                .iter()
                .map(|p| lock(p).summary())
                .collect::<Result<Vec<_>, _>>()?;
            // The newest first.
            list.sort_by(|a, b| (&b.started, &b.id).cmp(&(&a.started, &a.id)));
            Ok(json!({ "games": list }))
        })
        .await
    };
    match answer.await {
        Ok(list) => json(&list),
        Err(e) => e.into_response(),
    }
}

async fn show(
    State(server): State<Arc<Server>>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let answer = async {
        query_pairs(raw.as_deref(), &[], "/api/pad/{id}")?;
        let pad = server.pads.get(&id)?;
        blocking(move || lock(&pad).view(&server)).await
    };
    match answer.await {
        Ok(view) => json(&view),
        Err(e) => e.into_response(),
    }
}

async fn act(
    State(server): State<Arc<Server>>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    body: Body,
) -> Response {
    let answer = async {
        query_pairs(raw.as_deref(), &[], "/api/pad/{id}")?;
        let bytes = read_body(body, BODY_LIMIT, "/api/pad/{id}").await?;
        let action = parse_action(&bytes)?;
        let pad = server.pads.get(&id)?;
        blocking(move || {
            let mut pad = lock(&pad);
            pad.act(&server, action)?;
            pad.view(&server)
        })
        .await
    };
    match answer.await {
        Ok(view) => json(&view),
        Err(e) => e.into_response(),
    }
}

async fn record(
    State(server): State<Arc<Server>>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let answer = (|| {
        query_pairs(raw.as_deref(), &[], "/api/pad/{id}/record")?;
        let pad = server.pads.get(&id)?;
        let pad = lock(&pad);
        let mut text = pad.lines.join("\n");
        text.push('\n');
        Ok::<_, ApiError>((text, format!("{}.jsonl", pad.id)))
    })();
    match answer {
        Ok((text, name)) => {
            let mut r = Response::new(Body::from(text));
            let h = r.headers_mut();
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/x-ndjson; charset=utf-8"),
            );
            if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
                h.insert(header::CONTENT_DISPOSITION, v);
            }
            r
        }
        Err(e) => e.into_response(),
    }
}

/// The review of a pad game in expected points, as `/api/review` (and `yahtzee review
/// --json`) prices its record: the advised player's decisions.
async fn review(
    State(server): State<Arc<Server>>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let answer = async {
        query_pairs(raw.as_deref(), &[], "/api/pad/{id}/review")?;
        let pad = server.pads.get(&id)?;
        let record = lock(&pad).game()?;
        let s = Arc::clone(&server);
        super::limits::long_work(&server, "/api/pad/{id}/review", move |cancel: &Cancel| {
            super::api::price_review(
                &s,
                &record,
                super::api::ReviewObjective::Points,
                cancel,
                &|_| {},
            )
        })
        .await
        .map(|(result, provenance)| super::stamped_json(&result, provenance))
    };
    match answer.await {
        Ok(response) => response,
        Err(e) => e.into_response(),
    }
}
