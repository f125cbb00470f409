//! Games played on the page: people and the optimal bot at one table, with the coach, the
//! dice rolled by the server from a seed or typed from a real table.
//!
//! A game lives in the server's memory (never in a file: its record is downloaded). It is the
//! game host of `yahtzee play` ([`Host`]), which this module drives: it maps each action of
//! the page to the host's call, keeps what the host tells in the game's log ([`LogLine`]) and
//! the price of the last decision of a person ([`Coached`]), and renders the host's game as
//! JSON ([`GameView`]). So every event is checked by the referee of `yahtzee play` and
//! appended to the record, line by line, in the format of `data/README-games.md`, a record
//! downloaded from the page is one `yahtzee review` reads and one `/api/review` prices, the
//! bots (`bot`, and `bot:win`) play as the terminal's, seeded dice are drawn as `yahtzee play`
//! draws them, so the same seed and the same choices give the same game as in the terminal,
//! and the coach prices each decision of a person as `yahtzee review` does.
//!
//! The server keeps at most [`MAX_GAMES`] games; starting one more forgets the game left
//! alone the longest.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::api::{CardView, describe, integer, parse_body, rules_query};
use super::{ApiError, BODY_LIMIT, Server, blocking, json, query_pairs, read_body};
use yahtzee_core::game::dice::MAX_DICE;
use yahtzee_core::game::rules::Rules;
use yahtzee_core::play::host::{
    DiceSource, Due, Front, Host, HostError, Message, PlayOptions, Standing, outcome, parse_seats,
};
use yahtzee_core::play::{DiceMode, Game, Phase, Seat, SeatKind, WinPolicy};
use yahtzee_core::tables::set::TableSet;
use yahtzee_core::text::excerpt;

/// The most games the server keeps at once.
pub const MAX_GAMES: usize = 64;

/// The most lines of a record: a game of ten players is about 900; more can only be a table
/// that ties its opening rolls without end.
pub const MAX_RECORD_LINES: usize = 5_000;

/// The games being played.
#[derive(Default)]
pub struct Games {
    next: AtomicU64,
    games: Mutex<Vec<Entry>>,
}

struct Entry {
    id: String,
    touched: Instant,
    game: Arc<Mutex<WebGame>>,
}

impl Games {
    /// A new id: the clock makes the ids of one run differ from those of a run before it.
    fn new_id(&self) -> String {
        let salt = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as u64);
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        format!("g{:x}", (salt << 16) ^ n)
    }

    /// Keeps `game`, forgetting the game left alone longest when full.
    fn insert(&self, game: WebGame) {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        if games.len() >= MAX_GAMES
            && let Some(oldest) = (0..games.len()).min_by_key(|&i| games[i].touched)
        {
            games.remove(oldest);
        }
        games.push(Entry {
            id: game.id.clone(),
            touched: Instant::now(),
            game: Arc::new(Mutex::new(game)),
        });
    }

    /// The game `id`.
    fn get(&self, id: &str) -> Result<Arc<Mutex<WebGame>>, ApiError> {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        match games.iter_mut().find(|e| e.id == id) {
            Some(e) => {
                e.touched = Instant::now();
                Ok(Arc::clone(&e.game))
            }
            None => Err(ApiError::new(
                StatusCode::NOT_FOUND,
                format!(
                    "no game `{}` on this server (a server keeps {MAX_GAMES} games while it runs): start a new game",
                    excerpt(id)
                ),
            )),
        }
    }
}

/// A line of the game in words, as the terminal game prints it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogLine {
    /// `roll`, `keep`, `score`, `coach`, `order` or `end`.
    pub kind: &'static str,
    /// The player, if the line is about one.
    pub player: Option<String>,
    /// The line.
    pub text: String,
}

/// The price of a person's decision, for the coach.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Coached {
    /// The player.
    pub player: String,
    /// The choice made, in words.
    pub chosen: String,
    /// The best choice, in words.
    pub best: String,
    /// Expected final score after the choice made.
    pub chosen_value: f64,
    /// Expected final score after the best choice.
    pub best_value: f64,
    /// Expected points lost, 0 for a tie with the best.
    pub loss: f64,
}

/// What the game waits for.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Expect {
    /// Dice typed from a real table: `count` dice of `what` for `player`.
    Dice {
        /// Whose dice.
        player: String,
        /// How many: five, or the dice re-rolled.
        count: usize,
        /// Which roll, in words.
        what: String,
    },
    /// A person's keep or box; `query` is the position as a batch line (`/api/advise`).
    Decision {
        /// The player.
        player: String,
        /// The position: `card`, `yahtzee_bonus`, `dice`, `rolls_left`.
        query: Value,
    },
    /// Nothing: the game is over or was left.
    Nothing,
}

/// One seat's card in a [`GameView`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeatCard {
    /// The player.
    pub player: String,
    /// Person or bot.
    pub kind: SeatKind,
    /// The card.
    #[serde(flatten)]
    pub card: CardView,
}

/// A game as the page shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameView {
    /// The game's id, for `/api/game/{id}`.
    pub id: String,
    /// The rules (`rules` and `upper_first`).
    #[serde(flatten)]
    pub rules: Rules,
    /// `seeded` or `manual`.
    pub dice_mode: DiceMode,
    /// The seed of seeded dice.
    pub seed: Option<u64>,
    /// The coach's threshold, `null` when it is off.
    pub coach_threshold: Option<f64>,
    /// The play order, once decided.
    pub order: Vec<String>,
    /// Every seat's card, in seat order.
    pub cards: Vec<SeatCard>,
    /// `playing`, `over` (every card full) or `left` (quit before the end).
    pub state: &'static str,
    /// The player to move (or to roll an opening roll).
    pub to_move: Option<String>,
    /// That player's turn, from 1 (0 before the play order).
    pub turn: u32,
    /// The dice showing.
    pub dice: Option<Vec<u8>>,
    /// Rolls left with the dice showing.
    pub rolls_left: Option<u8>,
    /// The dice kept for the re-roll under way.
    pub kept: Option<Vec<u8>>,
    /// What the game waits for.
    pub expect: Expect,
    /// The last decision of a person, priced.
    pub last_decision: Option<Coached>,
    /// The game in words, oldest first.
    pub log: Vec<LogLine>,
    /// The outcome once over: `ann wins with 250.`
    pub result: Option<String>,
    /// Lines of the record so far.
    pub record_lines: usize,
}

/// A game of the page: the host, and what the page keeps of what it tells.
pub struct WebGame {
    id: String,
    host: Host,
    page: Page,
}

/// The page as a front end of the host: the game's log and the price of the last decision of
/// a person. The record's lines are the host's, downloaded from it.
#[derive(Default)]
struct Page {
    log: Vec<LogLine>,
    last_decision: Option<Coached>,
}

impl Front for Page {
    type Error = ApiError;

    fn record(&mut self, _line: &str) -> Result<(), ApiError> {
        Ok(())
    }

    /// Logs the line of `message` (the page logs neither the start of the opening rolls nor
    /// a turn's) and keeps the price of a person's decision.
    fn show(&mut self, game: &Game, message: &Message) -> Result<(), ApiError> {
        let player = |seat: usize| Some(game.seats()[seat].name.clone());
        let (kind, player) = match message {
            Message::OpeningRolls | Message::TurnBegins { .. } => return Ok(()),
            Message::OpeningRoll { seat, .. } | Message::Rolled { seat, .. } => {
                ("roll", player(*seat))
            }
            Message::OpeningTie | Message::Order { .. } => ("order", None),
            Message::Kept { seat, .. } => ("keep", player(*seat)),
            Message::Scored { seat, .. } => ("score", player(*seat)),
            Message::Priced {
                seat, evaluation, ..
            } => {
                self.last_decision = Some(Coached {
                    player: game.seats()[*seat].name.clone(),
                    chosen: evaluation.chosen.clone(),
                    best: evaluation.best.clone(),
                    chosen_value: evaluation.chosen_value,
                    best_value: evaluation.best_value,
                    loss: evaluation.loss,
                });
                ("coach", player(*seat))
            }
            Message::Ended { .. } => ("end", None),
        };
        if let Some(text) = message.line(game) {
            self.log.push(LogLine { kind, player, text });
        }
        Ok(())
    }
}

impl From<HostError> for ApiError {
    /// A move the game refuses is a bad request; a table that cannot be had or does not fit,
    /// the server's own trouble.
    fn from(e: HostError) -> ApiError {
        match e {
            HostError::SeededDice => ApiError::bad(
                "this game's dice are rolled by the server from its seed: start a game of manual dice to type them",
            ),
            HostError::Seats(_)
            | HostError::Refused(_)
            | HostError::Left
            | HostError::Over
            | HostError::BotsMove { .. }
            | HostError::NoDiceDue
            | HostError::WrongDice { .. }
            | HostError::NoDecisionDue
            | HostError::PointsSeeded
            | HostError::NotPoints { .. }
            | HostError::TooLong { .. } => ApiError::bad(e.to_string()),
            _ => ApiError::internal(e.to_string()),
        }
    }
}

impl WebGame {
    /// A new game of `options` with the tables of `tables` (of the same rules), each table
    /// its bots need loaded (or built) first, played until it waits for a person or for dice.
    pub fn new(
        id: String,
        tables: Arc<TableSet>,
        options: &PlayOptions,
    ) -> Result<WebGame, ApiError> {
        let mut host = Host::new(tables, options)?
            .with_record_limit(MAX_RECORD_LINES)
            .pricing_every_decision();
        let mut page = Page::default();
        host.start(&mut page)?;
        Ok(WebGame { id, host, page })
    }

    fn name(&self, seat: usize) -> String {
        self.host.game().seats()[seat].name.clone()
    }

    /// What the game waits for now.
    fn expect(&self) -> Expect {
        match self.host.due() {
            Due::Dice { seat, count, what } => Expect::Dice {
                player: self.name(seat),
                count,
                what,
            },
            Due::Decision {
                seat,
                dice,
                rolls_left,
            } => self.decision(seat, &dice.faces(), rolls_left),
            // The page's games seat no player entered as points (the score pad does).
            Due::Points { .. } | Due::Nothing => Expect::Nothing,
        }
    }

    fn decision(&self, seat: usize, dice: &[u8], rolls_left: u8) -> Expect {
        let game = self.host.game();
        let card = &game.cards()[seat];
        let rules = game.rules();
        let boxes: serde_json::Map<String, Value> = (0..rules.box_count())
            .filter_map(|i| {
                card.points(i)
                    .map(|p| (rules.boxes()[i].name().to_string(), Value::from(p)))
            })
            .collect();
        Expect::Decision {
            player: self.name(seat),
            query: serde_json::json!({
                "card": boxes,
                "yahtzee_bonus": card.yahtzee_bonuses(),
                "dice": dice,
                "rolls_left": rolls_left,
            }),
        }
    }

    /// A person's action, then whatever follows without a person.
    pub fn act(&mut self, action: Action) -> Result<(), ApiError> {
        let page = &mut self.page;
        match action {
            Action::Quit => self.host.leave(page),
            Action::Dice(faces) => self.host.roll(faces, page),
            Action::Keep(faces) => self.host.keep(faces, page),
            Action::Score(name) => self.host.score(&name, page),
        }
    }

    /// The game as the page shows it.
    pub fn view(&self) -> GameView {
        let game = self.host.game();
        let header = self.host.header();
        let (dice, rolls_left, kept) = match game.phase() {
            Phase::Rolled { dice, rolls_left } => (Some(dice.faces()), Some(rolls_left), None),
            Phase::MustScore { dice } => (Some(dice.faces()), Some(0), None),
            Phase::Kept { keep, rolls_left } => (None, Some(rolls_left), Some(keep.faces())),
            _ => (None, None, None),
        };
        let seats = game.seats();
        let standing = self.host.standing();
        GameView {
            id: self.id.clone(),
            rules: game.rules(),
            dice_mode: header.dice,
            seed: header.seed,
            coach_threshold: header.coach_threshold,
            order: game
                .order()
                .iter()
                .map(|&s| seats[s].name.clone())
                .collect(),
            cards: seats
                .iter()
                .zip(game.cards())
                .map(|(s, c)| SeatCard {
                    player: s.name.clone(),
                    kind: s.kind,
                    card: CardView::of(c),
                })
                .collect(),
            state: match standing {
                Standing::Left => "left",
                _ if game.is_over() => "over",
                _ => "playing",
            },
            to_move: (standing == Standing::Playing)
                .then(|| game.to_move().map(|s| self.name(s)))
                .flatten(),
            turn: game.turn(),
            dice,
            rolls_left,
            kept,
            expect: self.expect(),
            last_decision: self.page.last_decision.clone(),
            log: self.page.log.clone(),
            result: outcome(game),
            record_lines: self.host.record().len(),
        }
    }

    /// The record so far, as `yahtzee play` writes it: one JSON line per event.
    pub fn record(&self) -> String {
        let mut text = self.host.record().join("\n");
        text.push('\n');
        text
    }

    /// The name to save the record under: `yahtzee-game-YYYYMMDD-HHMMSS.jsonl` of its start.
    pub fn file_name(&self) -> String {
        let stamp: String = self
            .host
            .header()
            .started
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        let (date, time) = stamp.split_at(stamp.len().min(8));
        format!("yahtzee-game-{date}-{time}.jsonl")
    }
}

/// A person's action on a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Keep these faces (all five: stop rolling).
    Keep(Vec<u8>),
    /// Fill this box (with rolls left: stop, then fill it).
    Score(String),
    /// The dice typed for the roll due.
    Dice(Vec<u8>),
    /// Leave the game.
    Quit,
}

const ACTION_EXAMPLE: &str =
    r#"{"keep": [3, 3]}, {"score": "chance"}, {"dice": [1, 3, 3, 5, 6]} or {"quit": true}"#;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionBody {
    keep: Option<Value>,
    score: Option<Value>,
    dice: Option<Value>,
    quit: Option<Value>,
}

/// The faces of `value`, an array of 0 to 6 integers from 1 to 6 (the game's referee checks
/// them against its dice).
pub(crate) fn faces(value: &Value, key: &str) -> Result<Vec<u8>, ApiError> {
    let expected =
        "an array of integer faces from 1 to 6, up to the game's five (or six) dice, like [3, 3]";
    value
        .as_array()
        .and_then(|a| {
            a.iter()
                .map(|v| v.as_u64().and_then(|f| u8::try_from(f).ok()))
                .collect::<Option<Vec<u8>>>()
        })
        .filter(|f| f.len() <= MAX_DICE)
        .ok_or_else(|| ApiError::bad(format!("{key} must be {expected}, not {}", describe(value))))
}

/// The action of a request body: exactly one of `keep`, `score`, `dice`, `quit`.
pub fn parse_action(bytes: &[u8]) -> Result<Action, ApiError> {
    let body: ActionBody = parse_body(bytes, ACTION_EXAMPLE)?;
    let given = [&body.keep, &body.score, &body.dice, &body.quit]
        .iter()
        .filter(|v| v.is_some())
        .count();
    if given != 1 {
        return Err(ApiError::bad(format!(
            "an action has exactly one of keep, score, dice and quit, like {ACTION_EXAMPLE}"
        )));
    }
    if let Some(v) = &body.keep {
        return Ok(Action::Keep(faces(v, "keep")?));
    }
    if let Some(v) = &body.score {
        return match v.as_str() {
            Some(name) => Ok(Action::Score(name.to_string())),
            None => Err(ApiError::bad(format!(
                "score must be the name of a box, like \"chance\", not {}",
                describe(v)
            ))),
        };
    }
    if let Some(v) = &body.dice {
        return Ok(Action::Dice(faces(v, "dice")?));
    }
    match body.quit {
        Some(Value::Bool(true)) => Ok(Action::Quit),
        Some(v) => Err(ApiError::bad(format!(
            "quit must be true, not {}",
            describe(&v)
        ))),
        None => unreachable!("one key is given"),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGameBody {
    players: Option<Value>,
    dice: Option<Value>,
    seed: Option<Value>,
    coach_threshold: Option<Value>,
}

const NEW_GAME_EXAMPLE: &str =
    r#"{"players": "you,bot", "dice": "seeded", "seed": 42, "coach_threshold": 0.2}"#;

/// The options of a new game under `rules`, as `yahtzee play` takes them: `players` as
/// `--players` (absent: `you`), `dice` `seeded` (absent) or `manual`, `seed` (absent: from the
/// clock), `coach_threshold` in points or `null` for no coach (absent: 0.2).
pub fn parse_new_game(rules: Rules, bytes: &[u8]) -> Result<PlayOptions, ApiError> {
    if rules.saved_rolls() {
        // `yahtzee play` plays such a game; the page's games do not keep the rolls saved.
        return Err(ApiError::bad(format!(
            "{} keeps unused rolls for later turns (saved_rolls = true): the page does not play such a game; `yahtzee play` in a terminal does",
            rules.label()
        )));
    }
    let body: NewGameBody = if bytes.iter().all(u8::is_ascii_whitespace) {
        NewGameBody {
            players: None,
            dice: None,
            seed: None,
            coach_threshold: None,
        }
    } else {
        parse_body(bytes, NEW_GAME_EXAMPLE)?
    };
    let players = match &body.players {
        None => "you",
        Some(Value::String(s)) => s.as_str(),
        Some(v) => {
            return Err(ApiError::bad(format!(
                "players must be a string of names separated by commas, like \"you,bot\" (bot, bot2, ... are the bot), not {}",
                describe(v)
            )));
        }
    };
    let seats: Vec<Seat> = parse_seats(players).map_err(|e| ApiError::bad(e.to_string()))?;
    if let Some(bot) = seats
        .iter()
        .find(|s| s.policy == Some(WinPolicy::TwoPlayer))
    {
        return Err(ApiError::bad(format!(
            "the page's bots play for the highest average, or to win as bot:win: seat {} as bot or bot:win (bot:two-player, the exact game of two, is for `yahtzee play`)",
            excerpt(&bot.name)
        )));
    }
    if let Some(bot) = seats
        .iter()
        .find(|s| s.target.is_some() || s.policy == Some(WinPolicy::WinExact))
    {
        return Err(ApiError::bad(format!(
            "the page's bots play for the highest average, or to win as bot:win: seat {} as bot or bot:win (bot:target=T and bot:win-exact are for `yahtzee play`)",
            excerpt(&bot.name)
        )));
    }
    let seed = match &body.seed {
        None | Some(Value::Null) => None,
        Some(v) => Some(integer(
            v,
            "seed",
            "an integer from 0 to 18446744073709551615",
        )?),
    };
    let dice = match &body.dice {
        None => DiceSource::Seeded(seed.unwrap_or_else(clock_seed)),
        Some(Value::String(s)) if s == "seeded" => {
            DiceSource::Seeded(seed.unwrap_or_else(clock_seed))
        }
        Some(Value::String(s)) if s == "manual" => {
            if seed.is_some() {
                return Err(ApiError::bad(
                    "manual dice have no seed: leave seed out, or choose seeded dice",
                ));
            }
            DiceSource::Manual
        }
        Some(v) => {
            return Err(ApiError::bad(format!(
                "dice must be \"seeded\" (rolled by the server) or \"manual\" (typed from a real table), not {}",
                describe(v)
            )));
        }
    };
    let coach_threshold = match &body.coach_threshold {
        None => Some(0.2),
        Some(Value::Null) => None,
        Some(v) => match v.as_f64() {
            Some(t) if t.is_finite() && t >= 0.0 => Some(t),
            _ => {
                return Err(ApiError::bad(format!(
                    "coach_threshold must be a number of points, 0 or more, or null for no coach, not {}",
                    describe(v)
                )));
            }
        },
    };
    Ok(PlayOptions {
        rules,
        seats,
        dice,
        coach_threshold,
        coach_target: None,
        coach_win: false,
    })
}

/// A seed from the clock, as `yahtzee play` draws one without `--seed` (it is recorded).
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The routes of this module.
pub fn routes() -> Router<Arc<Server>> {
    Router::new()
        .route("/api/game", post(new_game))
        .route("/api/game/{id}", get(show).post(act))
        .route("/api/game/{id}/record", get(record))
}

/// The game (or pad) behind `mutex`, even if a thread panicked holding it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

async fn new_game(
    State(server): State<Arc<Server>>,
    RawQuery(raw): RawQuery,
    body: Body,
) -> Response {
    let answer = async {
        let rules = rules_query(&server, raw.as_deref(), "/api/game")?;
        let bytes = read_body(body, BODY_LIMIT, "/api/game").await?;
        let options = parse_new_game(rules, &bytes)?;
        blocking(move || {
            let game = WebGame::new(server.games.new_id(), server.tables.set(rules), &options)?;
            let view = game.view();
            server.games.insert(game);
            Ok(view)
        })
        .await
    };
    match answer.await {
        Ok(view) => json(&view),
        Err(e) => e.into_response(),
    }
}

async fn show(
    State(server): State<Arc<Server>>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let answer = (|| {
        query_pairs(raw.as_deref(), &[], "/api/game/{id}")?;
        let game = server.games.get(&id)?;
        Ok::<_, ApiError>(lock(&game).view())
    })();
    match answer {
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
        query_pairs(raw.as_deref(), &[], "/api/game/{id}")?;
        let bytes = read_body(body, BODY_LIMIT, "/api/game/{id}").await?;
        let action = parse_action(&bytes)?;
        let game = server.games.get(&id)?;
        blocking(move || {
            let mut game = lock(&game);
            game.act(action)?;
            Ok(game.view())
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
        query_pairs(raw.as_deref(), &[], "/api/game/{id}/record")?;
        let game = server.games.get(&id)?;
        let game = lock(&game);
        Ok::<_, ApiError>((game.record(), game.file_name()))
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
