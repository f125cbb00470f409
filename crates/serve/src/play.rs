//! Games played on the page: people and the optimal bot at one table, with the coach, the
//! dice rolled by the server from a seed or typed from a real table.
//!
//! A game lives in the server's memory (never in a file: its record is downloaded) and is
//! played through the referee of `yahtzee play`, [`Game::apply`]: every event is checked
//! there and appended to the record, line by line, in the format of `data/README-games.md`,
//! so a record downloaded from the page is one `yahtzee review` reads, and one `/api/review`
//! prices. The bot plays the policy of `yahtzee play` ([`TurnValues::best_keep`],
//! [`best_box`]); a bot seated as `bot:win` plays the `win` policy of `yahtzee play` and of
//! `yahtzee simulate --match` against the other players' cards ([`Player::turn_in_game`]); seeded
//! dice are drawn as `yahtzee play` draws them (five for an opening
//! roll or a first roll, one per re-rolled die), so the same seed and the same choices give
//! the same game as in the terminal. The coach prices each decision of a person with
//! [`evaluate`], as `yahtzee review` does.
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
use yahtzee_core::game::dice::{DICE, DiceRng, join_faces};
use yahtzee_core::game::rules::Rules;
use yahtzee_core::play::session::{DiceSource, PlayOptions, header, parse_seats};
use yahtzee_core::play::{
    DiceMode, Event, Game, Header, Illegal, Phase, Seat, SeatKind, WinPolicy, agree, box_names,
    check_legal,
};
use yahtzee_core::policy::expected::{best_box, box_choices};
use yahtzee_core::policy::player::{AtTable, Player, check_players};
use yahtzee_core::policy::pricing::{Decision, evaluate};
use yahtzee_core::policy::win::{opponent_scores, opponents_at_table};
use yahtzee_core::solve::expected::TurnValues;
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::vector::VectorTable;
use yahtzee_core::text::{excerpt, plural};

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

/// A game of the page.
pub struct WebGame {
    id: String,
    table: Arc<StrategyTable>,
    game: Game,
    header: Header,
    record: Vec<String>,
    rng: Option<DiceRng>,
    threshold: Option<f64>,
    log: Vec<LogLine>,
    last_decision: Option<Coached>,
    left: bool,
    ended: bool,
    /// The bot's turn being played: seat, turn, and the values of its keeps.
    bot_turn: Option<(usize, u32, TurnValues)>,
    /// The target and distribution tables of the win bots, when one sits at the table.
    win_tables: Option<WinTables>,
}

/// The tables a win bot of the page plays with: the target table (its fast policy) and the
/// distribution table (the other players' final scores).
#[derive(Clone)]
pub struct WinTables {
    /// The target table of the game's rules.
    pub targets: Arc<VectorTable<f32>>,
    /// The distribution table of the game's rules.
    pub distribution: Arc<VectorTable<f32>>,
}

/// An illegal event as a bad request.
fn refused(e: Illegal) -> ApiError {
    ApiError::bad(e.to_string())
}

impl WebGame {
    /// A new game of `options` with `table` (of the same rules), and `win_tables` when a bot
    /// plays to win, played until it waits for a person or for dice.
    pub fn new(
        id: String,
        table: Arc<StrategyTable>,
        win_tables: Option<WinTables>,
        options: &PlayOptions,
    ) -> Result<WebGame, ApiError> {
        let game = Game::new(options.rules, options.seats.clone()).map_err(refused)?;
        if options.seats.iter().any(|s| s.policy.is_some()) {
            let Some(w) = &win_tables else {
                return Err(ApiError::internal(
                    "internal error: a win bot without the target and distribution tables",
                ));
            };
            // Reads every card the win bots can ask for, so that no move can fail.
            let seat = Player::Win {
                ev: &table,
                targets: &w.targets,
            };
            check_players(&options.rules, &[seat], Some(&w.distribution))
                .map_err(|e| ApiError::internal(e.to_string()))?;
        }
        let header = header(options);
        let mut g = WebGame {
            id,
            table,
            game,
            record: vec![header.to_line()],
            header,
            rng: match options.dice {
                DiceSource::Seeded(seed) => Some(DiceRng::new(seed)),
                DiceSource::Manual => None,
            },
            threshold: options.coach_threshold,
            log: Vec::new(),
            last_decision: None,
            left: false,
            ended: false,
            bot_turn: None,
            win_tables,
        };
        g.advance()?;
        Ok(g)
    }

    fn say(&mut self, kind: &'static str, player: Option<&str>, text: String) {
        self.log.push(LogLine {
            kind,
            player: player.map(str::to_string),
            text,
        });
    }

    /// Applies `event` through the referee and appends it to the record.
    fn emit(&mut self, event: Event) -> Result<Option<Decision>, ApiError> {
        if self.record.len() >= MAX_RECORD_LINES {
            return Err(ApiError::bad(format!(
                "the game has {MAX_RECORD_LINES} record lines, the most a game may have: start a new game"
            )));
        }
        let decision = self.game.apply(&event).map_err(refused)?;
        self.record.push(event.to_line());
        Ok(decision)
    }

    /// Ends the record with its `end` line.
    fn end(&mut self, complete: bool) {
        if self.ended {
            return;
        }
        let end = Event::End {
            complete,
            scores: self.game.totals(),
        };
        self.record.push(end.to_line());
        self.ended = true;
        let text = self.result().unwrap_or_else(|| {
            "Game left before the end; the record keeps what was played.".into()
        });
        self.say("end", None, text);
    }

    /// The outcome of a finished game, as the terminal game says it.
    fn result(&self) -> Option<String> {
        if !self.game.is_over() {
            return None;
        }
        let mut ranked = self.game.totals();
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

    fn name(&self, seat: usize) -> String {
        self.game.seats()[seat].name.clone()
    }

    fn is_bot(&self, seat: usize) -> bool {
        self.game.seats()[seat].kind == SeatKind::Bot
    }

    /// What the game waits for now.
    fn expect(&self) -> Expect {
        if self.ended {
            return Expect::Nothing;
        }
        let Some(seat) = self.game.to_move() else {
            return Expect::Nothing;
        };
        let player = self.name(seat);
        let dice = |count: usize, what: &str| Expect::Dice {
            player: player.clone(),
            count,
            what: what.to_string(),
        };
        match self.game.phase() {
            Phase::Opening if self.rng.is_none() => dice(DICE, "the opening roll"),
            Phase::TurnStart if self.rng.is_none() => dice(DICE, "the first roll"),
            Phase::Kept { keep, .. } if self.rng.is_none() => dice(
                DICE - keep.len(),
                &if keep.is_empty() {
                    "the re-roll".to_string()
                } else {
                    format!("the re-roll (keeping {keep})")
                },
            ),
            Phase::Rolled { dice, rolls_left } if !self.is_bot(seat) => {
                self.decision(seat, &dice.faces(), rolls_left)
            }
            Phase::MustScore { dice } if !self.is_bot(seat) => {
                self.decision(seat, &dice.faces(), 0)
            }
            _ => Expect::Nothing,
        }
    }

    fn decision(&self, seat: usize, dice: &[u8], rolls_left: u8) -> Expect {
        let card = &self.game.cards()[seat];
        let rules = self.game.rules();
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

    /// Plays what needs no person: seeded dice, the play order, the bots' moves, the end.
    fn advance(&mut self) -> Result<(), ApiError> {
        while !self.ended {
            let phase = self.game.phase();
            if phase == Phase::Over {
                self.end(true);
                break;
            }
            if phase == Phase::OrderDue {
                let order = self.game.decided_order().unwrap_or_default();
                let players: Vec<String> = order.iter().map(|&s| self.name(s)).collect();
                if players.len() > 1 {
                    self.say("order", None, format!("Play order: {}", players.join(", ")));
                }
                self.emit(Event::Order { players })?;
                continue;
            }
            let Some(seat) = self.game.to_move() else {
                break;
            };
            let needs_dice = matches!(
                phase,
                Phase::Opening | Phase::TurnStart | Phase::Kept { .. }
            );
            if needs_dice {
                let Some(rng) = &mut self.rng else {
                    break;
                };
                let count = match phase {
                    Phase::Kept { keep, .. } => DICE - keep.len(),
                    _ => DICE,
                };
                let faces = rng.dice(count);
                self.roll(seat, faces)?;
                continue;
            }
            if !self.is_bot(seat) {
                break;
            }
            self.bot_move(seat)?;
        }
        Ok(())
    }

    /// The dice `faces` for `seat`: an opening roll, a first roll or a re-roll (the kept dice
    /// are added).
    fn roll(&mut self, seat: usize, mut faces: Vec<u8>) -> Result<(), ApiError> {
        let name = self.name(seat);
        let turn = self.game.turn();
        match self.game.phase() {
            Phase::Opening => {
                faces.sort_unstable();
                let total: u32 = faces.iter().map(|&d| u32::from(d)).sum();
                let text = format!(
                    "{name} {} {} ({total})",
                    agree(&name, "rolls", "roll"),
                    join_faces(&faces)
                );
                self.emit(Event::Opening {
                    player: name.clone(),
                    dice: faces,
                })?;
                self.say("roll", Some(&name), text);
                if self.game.phase() == Phase::Opening && self.game.opening_rolled() == 0 {
                    self.say(
                        "order",
                        None,
                        "A tie for the highest total: the tied players roll again.".into(),
                    );
                }
            }
            Phase::TurnStart => {
                faces.sort_unstable();
                self.emit(Event::Roll {
                    player: name.clone(),
                    turn,
                    dice: faces.clone(),
                    rolls_left: 2,
                })?;
                self.say(
                    "roll",
                    Some(&name),
                    format!("{name} rolled {}   (2 rolls left)", join_faces(&faces)),
                );
            }
            Phase::Kept { keep, rolls_left } => {
                let mut all = keep.faces();
                all.extend(faces);
                all.sort_unstable();
                self.emit(Event::Roll {
                    player: name.clone(),
                    turn,
                    dice: all.clone(),
                    rolls_left: rolls_left - 1,
                })?;
                let left = if rolls_left == 1 {
                    "no rolls left".to_string()
                } else {
                    format!(
                        "{} left",
                        plural(u64::from(rolls_left - 1), "roll", "rolls")
                    )
                };
                self.say(
                    "roll",
                    Some(&name),
                    format!("{name} rolled {}   ({left})", join_faces(&all)),
                );
            }
            _ => {
                return Err(ApiError::bad(
                    "no dice are due now: the player to move decides (a keep or a box)",
                ));
            }
        }
        Ok(())
    }

    /// The move of a bot that plays to win: the turn of the match's seat against the other
    /// players' cards (which do not change during the turn, so the turn is made again at each
    /// of its moves, the same each time).
    fn win_bot_move(&mut self, seat: usize, w: &WinTables) -> Result<(), ApiError> {
        let rules = self.game.rules();
        let cards = self.game.cards();
        let bot = Player::Win {
            ev: &self.table,
            targets: &w.targets,
        };
        let opponents = opponent_scores(
            &rules,
            Some(&w.distribution),
            &opponents_at_table(seat, cards),
        )
        .map_err(|e| ApiError::internal(e.to_string()))?;
        let mut exact = None;
        let at = AtTable {
            seat,
            cards,
            opponents: &opponents,
            cache: None,
            plies: None,
            simd: yahtzee_core::solve::simd::Simd::detect(),
        };
        let turn = bot.turn_in_game(at, &mut exact);
        match self.game.phase() {
            Phase::Rolled { dice, rolls_left } => {
                let keep = turn.keep(rolls_left, &dice);
                self.keep(seat, keep.faces())
            }
            Phase::MustScore { dice } => {
                let (index, _, _) = turn.choose_box(&rules, &cards[seat].state(), &dice);
                self.score(seat, index)
            }
            other => Err(ApiError::internal(format!(
                "internal error: the bot cannot move in {other:?}"
            ))),
        }
    }

    /// The bot's keep or box.
    fn bot_move(&mut self, seat: usize) -> Result<(), ApiError> {
        if self.game.seats()[seat].policy == Some(WinPolicy::Win)
            && let Some(w) = self.win_tables.clone()
        {
            return self.win_bot_move(seat, &w);
        }
        let turn = self.game.turn();
        let state = self.game.cards()[seat].state();
        if !matches!(&self.bot_turn, Some((s, t, _)) if *s == seat && *t == turn) {
            self.bot_turn = Some((seat, turn, TurnValues::new(&self.table, &state)));
        }
        match self.game.phase() {
            Phase::Rolled { dice, rolls_left } => {
                let keep = match &self.bot_turn {
                    Some((_, _, values)) => values.best_keep(rolls_left, &dice).0,
                    None => unreachable!("the bot's turn values were computed above"),
                };
                self.keep(seat, keep.faces())
            }
            Phase::MustScore { dice } => {
                let choices = box_choices(&self.table, &state, &dice);
                let index = best_box(&choices)
                    .ok_or_else(|| ApiError::internal("internal error: no open box for the bot"))?
                    .index;
                self.score(seat, index)
            }
            other => Err(ApiError::internal(format!(
                "internal error: the bot cannot move in {other:?}"
            ))),
        }
    }

    /// Keeps `faces` for `seat` (all five: stop rolling).
    fn keep(&mut self, seat: usize, faces: Vec<u8>) -> Result<(), ApiError> {
        let name = self.name(seat);
        let rolls_left = match self.game.phase() {
            Phase::Rolled { rolls_left, .. } => rolls_left,
            _ => 0,
        };
        let decision = self.emit(Event::Keep {
            player: name.clone(),
            turn: self.game.turn(),
            keep: faces.clone(),
            rolls_left,
        })?;
        let text = if faces.len() == DICE {
            format!("{name} {}", agree(&name, "stops", "stop"))
        } else if faces.is_empty() {
            format!("{name} {} all the dice", agree(&name, "rerolls", "reroll"))
        } else {
            format!(
                "{name} {} {}",
                agree(&name, "keeps", "keep"),
                join_faces(&faces)
            )
        };
        self.say("keep", Some(&name), text);
        self.coach(decision)
    }

    /// Fills box `index` for `seat` with the dice showing.
    fn score(&mut self, seat: usize, index: usize) -> Result<(), ApiError> {
        let rules = self.game.rules();
        let dice = match self.game.phase() {
            Phase::MustScore { dice } => dice,
            _ => {
                return Err(refused(Illegal::ScoreWithRollsLeft));
            }
        };
        let card = &self.game.cards()[seat];
        let state = card.state();
        let points = rules.score(index, &dice, state.filled);
        let bonus = state.bonus_for(&rules, index, points, dice.five_of_a_kind().is_some());
        let name = self.name(seat);
        let category = rules.boxes()[index].name().to_string();
        let decision = self.emit(Event::Score {
            player: name.clone(),
            turn: self.game.turn(),
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
        self.say(
            "score",
            Some(&name),
            format!(
                "{name} {} {category} for {points}{extra} (total {total})",
                agree(&name, "scores", "score")
            ),
        );
        self.coach(decision)
    }

    /// Prices a person's decision, and has the coach speak when it loses at least the
    /// threshold.
    fn coach(&mut self, decision: Option<Decision>) -> Result<(), ApiError> {
        let Some(d) = decision else {
            return Ok(());
        };
        if self.is_bot(d.seat) {
            return Ok(());
        }
        let e = evaluate(&self.table, &d).map_err(|e| ApiError::internal(e.to_string()))?;
        let player = self.name(d.seat);
        if let Some(t) = self.threshold
            && e.loss >= t
            && e.loss > 0.0
        {
            self.say(
                "coach",
                Some(&player),
                format!(
                    "coach: {} costs {:.4} points against optimal play (expected final {:.2} instead of {:.2}); best: {}",
                    e.chosen, e.loss, e.chosen_value, e.best_value, e.best
                ),
            );
        }
        self.last_decision = Some(Coached {
            player,
            chosen: e.chosen,
            best: e.best,
            chosen_value: e.chosen_value,
            best_value: e.best_value,
            loss: e.loss,
        });
        Ok(())
    }

    /// A person's action, then whatever follows without a person.
    pub fn act(&mut self, action: Action) -> Result<(), ApiError> {
        if self.ended {
            return Err(ApiError::bad(if self.left {
                "the game was left: start a new game"
            } else {
                "the game is over: download its record, or start a new game"
            }));
        }
        let Some(seat) = self.game.to_move() else {
            return Err(ApiError::bad("the game is over: start a new game"));
        };
        match action {
            Action::Quit => {
                self.left = true;
                self.end(false);
                return Ok(());
            }
            Action::Dice(faces) => {
                if self.rng.is_some() {
                    return Err(ApiError::bad(
                        "this game's dice are rolled by the server from its seed: start a game of manual dice to type them",
                    ));
                }
                let Expect::Dice { count, what, .. } = self.expect() else {
                    return Err(ApiError::bad(
                        "no dice are due now: the player to move decides (a keep or a box)",
                    ));
                };
                if faces.len() != count || faces.iter().any(|f| !(1..=6).contains(f)) {
                    return Err(ApiError::bad(format!(
                        "give {} from 1 to 6 for {what}, not {}",
                        plural(count as u64, "die", "dice"),
                        excerpt(&format!("{faces:?}"))
                    )));
                }
                self.roll(seat, faces)?;
            }
            _ if self.is_bot(seat) => {
                return Err(ApiError::bad(format!(
                    "it is {}'s move, and {} is the bot",
                    self.name(seat),
                    self.name(seat)
                )));
            }
            Action::Keep(faces) => self.keep(seat, faces)?,
            Action::Score(name) => {
                let rules = self.game.rules();
                let index = rules.box_by_name(&name).ok_or_else(|| {
                    refused(Illegal::UnknownBox {
                        name: excerpt(&name),
                        boxes: box_names(&rules),
                    })
                })?;
                match self.game.phase() {
                    // With rolls left a box is the shorthand of `yahtzee play`: stop, then
                    // fill it, checked before the stop is made.
                    Phase::Rolled { dice, .. } => {
                        check_legal(&rules, &self.game.cards()[seat], &dice, index)
                            .map_err(refused)?;
                        self.keep(seat, dice.faces())?;
                        self.score(seat, index)?;
                    }
                    Phase::MustScore { .. } => self.score(seat, index)?,
                    _ => return Err(refused(Illegal::NoScoreDue)),
                }
            }
        }
        self.advance()
    }

    /// The game as the page shows it.
    pub fn view(&self) -> GameView {
        let (dice, rolls_left, kept) = match self.game.phase() {
            Phase::Rolled { dice, rolls_left } => (Some(dice.faces()), Some(rolls_left), None),
            Phase::MustScore { dice } => (Some(dice.faces()), Some(0), None),
            Phase::Kept { keep, rolls_left } => (None, Some(rolls_left), Some(keep.faces())),
            _ => (None, None, None),
        };
        let seats = self.game.seats();
        GameView {
            id: self.id.clone(),
            rules: self.game.rules(),
            dice_mode: self.header.dice,
            seed: self.header.seed,
            coach_threshold: self.header.coach_threshold,
            order: self
                .game
                .order()
                .iter()
                .map(|&s| seats[s].name.clone())
                .collect(),
            cards: seats
                .iter()
                .zip(self.game.cards())
                .map(|(s, c)| SeatCard {
                    player: s.name.clone(),
                    kind: s.kind,
                    card: CardView::of(c),
                })
                .collect(),
            state: if self.left {
                "left"
            } else if self.game.is_over() {
                "over"
            } else {
                "playing"
            },
            to_move: (!self.ended)
                .then(|| self.game.to_move().map(|s| self.name(s)))
                .flatten(),
            turn: self.game.turn(),
            dice,
            rolls_left,
            kept,
            expect: self.expect(),
            last_decision: self.last_decision.clone(),
            log: self.log.clone(),
            result: self.result(),
            record_lines: self.record.len(),
        }
    }

    /// The record so far, as `yahtzee play` writes it: one JSON line per event.
    pub fn record(&self) -> String {
        let mut text = self.record.join("\n");
        text.push('\n');
        text
    }

    /// The name to save the record under: `yahtzee-game-YYYYMMDD-HHMMSS.jsonl` of its start.
    pub fn file_name(&self) -> String {
        let stamp: String = self
            .header
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

/// The faces of `value`, an array of 0 to 5 integers from 1 to 6.
fn faces(value: &Value, key: &str) -> Result<Vec<u8>, ApiError> {
    let expected = "an array of up to five integer faces from 1 to 6, like [3, 3]";
    value
        .as_array()
        .and_then(|a| {
            a.iter()
                .map(|v| v.as_u64().and_then(|f| u8::try_from(f).ok()))
                .collect::<Option<Vec<u8>>>()
        })
        .filter(|f| f.len() <= DICE)
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
    let seats: Vec<Seat> = parse_seats(players).map_err(refused)?;
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

fn lock(game: &Mutex<WebGame>) -> std::sync::MutexGuard<'_, WebGame> {
    game.lock().unwrap_or_else(|e| e.into_inner())
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
            let table = server.tables.ev(rules).map_err(ApiError::internal)?;
            let win_tables = if options.seats.iter().any(|s| s.policy.is_some()) {
                Some(WinTables {
                    targets: server.tables.target(rules).map_err(ApiError::internal)?,
                    distribution: server
                        .tables
                        .distribution(rules)
                        .map_err(ApiError::internal)?,
                })
            } else {
                None
            };
            // Kept only once its first moves are played.
            let game = WebGame::new(server.games.new_id(), table, win_tables, &options)?;
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
