//! The endpoints of the API that answer one question each, with the JSON of the command that
//! answers it on the command line:
//!
//! | endpoint | body | answer, as the command line prints it |
//! | --- | --- | --- |
//! | `GET /api/rules` | | `yahtzee rules --json` |
//! | `POST /api/card` | `{"card": "ones=3,...", "yahtzee_bonus": 0, "score": {...}, "dice": [...]}` | the card checked as `--card` is, with its sums (with `dice`: what each open box would score with them) |
//! | `POST /api/advise` | a batch line (with `target` or `opponents`) | `yahtzee advise --batch` |
//! | `POST /api/stats` | `{"at_least": [...]}` or nothing | `yahtzee stats --json` |
//! | `POST /api/review` | a game record | `yahtzee review --json` (`?target=T`: `--target T`; `?objective=win`: `--win`; `?stream=true`: lines of JSON, each decision as it is priced, see [`ReviewLine`]) |
//! | `POST /api/rating` | one or several game records, one after the other | `yahtzee review --rating --json` of those records |
//! | `POST /api/outlook` | a batch line (`dice` left out: the start of a turn) | the distribution of the final score from the position under the line's objective ([`super::outlook`]) |
//! | `GET /api/status` | | where each table stands (loading, building, ready) |
//! | `POST /api/load` | | starts loading a table, for a page that shows the progress |
//! | `POST /api/cancel` | | stops the build of a table under way (nothing is saved) |
//!
//! The rules are the query parameters `rules` (a rule set's name, default: the server's) and
//! `upper_first` (`true` or `false`, default `false`), except for a review, whose rules come
//! from the record (its parameters are `objective`, `expected-score`, `target` or `win`, and
//! `target`, as `review --target` and `--win`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use axum::Router;
use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::limits::{Cancel, LongWork, line, long_stream, long_work, stopped};
use super::{
    ApiError, BODY_LIMIT, RECORD_LIMIT, Server, TableKind, blocking, json, json_text, param,
    query_pairs, read_body, rules_param, stamped_json, stream_param,
};
use yahtzee_core::batch::{self, BatchError, Query};
use yahtzee_core::game::dice::Dice;
use yahtzee_core::game::rules::{Rules, RulesCard, Section};
use yahtzee_core::game::state::ScoreCard;
use yahtzee_core::play::rating::{RatingError, parse_records, rate};
use yahtzee_core::play::review::{
    DecisionReview, GameRecord, Priced, Review, ReviewError, review_progressively,
};
use yahtzee_core::play::{box_names, check_legal};
use yahtzee_core::policy::pricing::Pricing;
use yahtzee_core::policy::win::MODEL;
use yahtzee_core::policy::{Answer, Objective};
use yahtzee_core::report::{Provenance, Stamped, StatsReport, stamped_by, stats};
use yahtzee_core::stats::distribution::{Summary, THRESHOLDS, Tally};
use yahtzee_core::tables::set::LoadCause;
use yahtzee_core::text::excerpt;

/// The exact statistics of each rules, computed once (about 20 seconds for Yahtzee).
pub type StatsCache = Mutex<HashMap<Rules, Arc<OnceLock<(StatsReport, Tally)>>>>;

/// The routes of this module.
pub fn routes() -> Router<Arc<Server>> {
    Router::new()
        .route("/api/status", get(status))
        .route("/api/load", post(load))
        .route("/api/cancel", post(cancel_build))
        .route("/api/rules", get(rules_card))
        .route("/api/card", post(card))
        .route("/api/advise", post(advise))
        .route("/api/stats", post(stats_of))
        .route("/api/review", post(review_of))
        .route("/api/rating", post(rating_of))
        .route("/api/outlook", post(super::outlook::outlook_of))
}

const RULES_PARAMS: [&str; 2] = ["rules", "upper_first"];

/// The rules of a request's query, which may have only the parameters `rules` and
/// `upper_first`.
pub fn rules_query(server: &Server, raw: Option<&str>, endpoint: &str) -> Result<Rules, ApiError> {
    let pairs = query_pairs(raw, &RULES_PARAMS, endpoint)?;
    rules_param(&pairs, server.rules)
}

/// What `/api/status` answers.
#[derive(Serialize)]
struct Status {
    /// The rules the page opens with.
    #[serde(flatten)]
    rules: Rules,
    /// True when `/api/outlook` answers (the distribution of the final score from a
    /// position).
    outlook: bool,
    /// Every table asked for so far.
    tables: Vec<yahtzee_core::tables::set::TableStatus>,
    /// The outlooks being computed (under the target and win policies), oldest first.
    outlooks: Vec<super::outlook::JobStatus>,
    /// The long computations (advice against opponents, statistics, reviews): running,
    /// waiting, and the bounds.
    long_work: LongWork,
}

async fn status(State(server): State<Arc<Server>>, RawQuery(raw): RawQuery) -> Response {
    if let Err(e) = query_pairs(raw.as_deref(), &[], "/api/status") {
        return e.into_response();
    }
    json(&Status {
        rules: server.rules,
        outlook: true,
        tables: server.tables.status(),
        outlooks: server.outlooks.status(),
        long_work: server.limits.status(),
    })
}

/// The rules and the table of a query of `/api/load` or `/api/cancel` (`rules`,
/// `upper_first`, `objective`).
fn table_query(
    server: &Server,
    raw: Option<&str>,
    endpoint: &str,
) -> Result<(Rules, TableKind), ApiError> {
    let pairs = query_pairs(raw, &["rules", "upper_first", "objective"], endpoint)?;
    let rules = rules_param(&pairs, server.rules)?;
    let objective = match param(&pairs, "objective") {
        None | Some("expected-score") => TableKind::ExpectedScore,
        Some("target") => TableKind::Target,
        Some("distribution") => TableKind::Distribution,
        Some(other) => {
            return Err(ApiError::bad(format!(
                "objective must be expected-score, target or distribution, not `{}`",
                excerpt(other)
            )));
        }
    };
    Ok((rules, objective))
}

async fn load(State(server): State<Arc<Server>>, RawQuery(raw): RawQuery) -> Response {
    match table_query(&server, raw.as_deref(), "/api/load") {
        Ok((rules, kind)) => json(&server.tables.start(rules, kind)),
        Err(e) => e.into_response(),
    }
}

/// `POST /api/cancel`: stops the build of a table under way (the page's Cancel), which saves
/// nothing; answers where the table stands.
async fn cancel_build(State(server): State<Arc<Server>>, RawQuery(raw): RawQuery) -> Response {
    match table_query(&server, raw.as_deref(), "/api/cancel") {
        Ok((rules, kind)) => json(&server.tables.cancel(rules, kind)),
        Err(e) => e.into_response(),
    }
}

async fn rules_card(State(server): State<Arc<Server>>, RawQuery(raw): RawQuery) -> Response {
    match rules_query(&server, raw.as_deref(), "/api/rules") {
        Ok(rules) => json(&RulesCard::of(rules)),
        Err(e) => e.into_response(),
    }
}

/// One box of a [`CardView`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoxView {
    /// The box's name, as on the command line.
    pub name: &'static str,
    /// The box as printed on a score card.
    pub title: &'static str,
    /// `upper` or `lower`.
    pub section: Section,
    /// Its points, `null` while open.
    pub points: Option<u32>,
    /// With `dice` asked: what the open box would score with them, if it may take them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub with_dice: Option<DiceScore>,
}

/// What an open box would score with the dice entered ([`ScoreCard::scoring`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DiceScore {
    /// The box's points (the Joker included).
    pub points: u32,
    /// The bonuses earned on top (the upper bonus reached, a further Yahtzee), as the advice
    /// counts them.
    pub bonus: u32,
}

/// A score card with the sums a player reads from it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CardView {
    /// The rules (`rules` and `upper_first`).
    #[serde(flatten)]
    pub rules: Rules,
    /// The card as `--card` takes it (empty for a new game).
    pub card: String,
    /// The Yahtzee bonuses earned (`--yahtzee-bonus`).
    pub yahtzee_bonus: u32,
    /// Every box in card order.
    pub boxes: Vec<BoxView>,
    /// The sum of the upper boxes filled.
    pub upper_total: u32,
    /// What the upper section must reach for its bonus (0 without an upper bonus).
    pub upper_threshold: u32,
    /// The upper bonus earned so far (0 until the threshold is reached).
    pub upper_bonus: u32,
    /// The points of the Yahtzee bonuses earned.
    pub yahtzee_bonus_points: u32,
    /// Every point on the card, bonuses included.
    pub banked: u32,
    /// True when every box is filled.
    pub full: bool,
    /// Under saved rolls only: the most rolls the card's turns played may have saved (the
    /// page's most for its rolls saved; absent for other games).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub most_saved: Option<usize>,
}

impl CardView {
    /// The view of `card`.
    pub fn of(card: &ScoreCard) -> CardView {
        let rules = card.rules();
        let boxes = rules
            .boxes()
            .iter()
            .enumerate()
            .map(|(i, c)| BoxView {
                name: c.name(),
                title: c.title,
                section: c.section,
                points: card.points(i),
                with_dice: None,
            })
            .collect();
        CardView {
            rules,
            card: card.to_string(),
            yahtzee_bonus: card.yahtzee_bonuses(),
            boxes,
            upper_total: card.upper_total(),
            upper_threshold: rules.upper_bonus().map_or(0, |b| b.threshold),
            upper_bonus: u32::from(card.has_upper_bonus()) * rules.upper_bonus_points(),
            yahtzee_bonus_points: card.yahtzee_bonuses() * rules.yahtzee_bonus_points(),
            banked: card.banked(),
            full: card.is_full(),
            most_saved: rules
                .saved_rolls()
                .then(|| rules.most_saved_rolls(card.filled().count_ones() as usize)),
        }
    }

    /// The view of `card` with what each open box would score with `dice`.
    pub fn with_dice(card: &ScoreCard, dice: &Dice) -> CardView {
        let mut view = CardView::of(card);
        let rules = card.rules();
        for (i, b) in view.boxes.iter_mut().enumerate() {
            b.with_dice = card.scoring(i, dice).map(|(points, bonuses)| DiceScore {
                points,
                bonus: bonuses.points(&rules),
            });
        }
        view
    }
}

/// The shape of an `/api/card` body, shown in its errors.
const CARD_EXAMPLE: &str = r#"{"card": "ones=3,full-house=25", "yahtzee_bonus": 0, "score": {"box": "chance", "dice": [1, 3, 3, 5, 6]}, "dice": [2, 2, 4, 4, 4]}"#;

/// An `/api/card` body: every value is read by hand, to say what is wrong with it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CardBody {
    card: Option<Value>,
    yahtzee_bonus: Option<Value>,
    score: Option<Value>,
    dice: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScoreBody {
    #[serde(rename = "box")]
    category: Value,
    dice: Value,
}

/// `value` in words for an error, quoting text only as an excerpt.
pub fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("the string \"{}\"", excerpt(s)),
        Value::Array(a) => format!("an array of {} items", a.len()),
        Value::Object(o) => format!("an object of {} keys", o.len()),
        other => excerpt(&other.to_string()),
    }
}

/// A JSON body of type `T` (its fields `Value`s, checked by the caller), or what is wrong with
/// it, with the shape `example`.
pub fn parse_body<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    example: &str,
) -> Result<T, ApiError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        ApiError::bad(format!(
            "the body is not UTF-8 text (invalid byte at column {}); it is a JSON object like {example}",
            e.valid_up_to() + 1
        ))
    })?;
    serde_json::from_str(text).map_err(|e| {
        ApiError::bad(format!(
            "bad body ({}); it is a JSON object like {example}",
            excerpt_reason(&e)
        ))
    })
}

/// The JSON reader's reason as a message may show it: on one line, the input it quotes cut
/// to an excerpt, what is expected kept whole.
pub fn excerpt_reason(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(", expected ") {
        Some(i) => format!("{}{}", excerpt(&text[..i]), &text[i..]),
        None => excerpt(&text),
    }
}

/// The integer `value`, or the error for `key`, which must be `expected`.
pub fn integer(value: &Value, key: &str, expected: &str) -> Result<u64, ApiError> {
    value
        .as_u64()
        .filter(|_| !value.is_f64())
        .ok_or_else(|| ApiError::bad(format!("{key} must be {expected}, not {}", describe(value))))
}

/// The dice of `value`: an array of as many integer faces as the game of `rules` has dice.
pub fn dice_value(rules: &Rules, value: &Value, key: &str) -> Result<Dice, ApiError> {
    let wanted = yahtzee_core::batch::dice_wanted(rules.dice());
    let faces: Option<Vec<u8>> = value.as_array().and_then(|a| {
        a.iter()
            .map(|v| v.as_u64().and_then(|f| u8::try_from(f).ok()))
            .collect()
    });
    let faces = faces
        .ok_or_else(|| ApiError::bad(format!("{key} must be {wanted}, not {}", describe(value))))?;
    rules
        .dice()
        .dice_of(&faces)
        .map_err(|e| ApiError::bad(e.to_string()))
}

/// The card of an `/api/card` body under `rules`: checked as `--card` is, then, with
/// `score`, the dice scored in the box as the referee of a game scores them.
fn card_of(rules: Rules, body: &CardBody) -> Result<ScoreCard, ApiError> {
    let text = match &body.card {
        None => "",
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(ApiError::bad(format!(
                "card must be a string of filled boxes like \"ones=3,full-house=25\" (empty for a new game), not {}",
                describe(other)
            )));
        }
    };
    let bonus = match &body.yahtzee_bonus {
        None => 0,
        Some(v) => u32::try_from(integer(v, "yahtzee_bonus", "an integer, 0 or more")?)
            .map_err(|_| ApiError::bad("yahtzee_bonus is too large"))?,
    };
    let mut card =
        ScoreCard::parse(rules, text, bonus).map_err(|e| ApiError::bad(e.to_string()))?;
    if let Some(score) = &body.score {
        let score: ScoreBody = serde_json::from_value(score.clone()).map_err(|e| {
            ApiError::bad(format!(
                "score must be an object like {{\"box\": \"chance\", \"dice\": [1, 3, 3, 5, 6]}} ({})",
                excerpt_reason(&e)
            ))
        })?;
        let name = score.category.as_str().ok_or_else(|| {
            ApiError::bad(format!(
                "score.box must be the name of a box, like \"chance\", not {}",
                describe(&score.category)
            ))
        })?;
        let dice = dice_value(&rules, &score.dice, "score.dice")?;
        let index = rules.box_by_name(name).ok_or_else(|| {
            ApiError::bad(format!(
                "unknown box `{}`: the boxes are {}",
                excerpt(name),
                box_names(&rules)
            ))
        })?;
        check_legal(&rules, &card, &dice, index).map_err(|e| ApiError::bad(e.to_string()))?;
        if let Some((points, bonuses)) = card.scoring(index, &dice) {
            card.fill(index, points, bonuses.yahtzee);
        }
    }
    Ok(card)
}

async fn card(State(server): State<Arc<Server>>, RawQuery(raw): RawQuery, body: Body) -> Response {
    let answer = async {
        let rules = rules_query(&server, raw.as_deref(), "/api/card")?;
        let bytes = read_body(body, BODY_LIMIT, "/api/card").await?;
        let body: CardBody = if bytes.iter().all(u8::is_ascii_whitespace) {
            CardBody {
                card: None,
                yahtzee_bonus: None,
                score: None,
                dice: None,
            }
        } else {
            parse_body(&bytes, CARD_EXAMPLE)?
        };
        let card = card_of(rules, &body)?;
        // With `dice`: what each open box would score with them (after `score`).
        Ok::<_, ApiError>(match &body.dice {
            None => CardView::of(&card),
            Some(dice) => CardView::with_dice(&card, &dice_value(&rules, dice, "dice")?),
        })
    };
    match answer.await {
        Ok(view) => json(&view),
        Err(e) => e.into_response(),
    }
}

/// The most processor seconds a table of saved rolls may take to be built by a request (a
/// game of five dice: seconds); a larger one (Maxi Yatzy's: minutes and gigabytes) is built
/// by the command line.
const SAVED_BUILD_SECONDS: f64 = 60.0;

/// The answer of one batch line under `rules`, as `advise --batch` writes it
/// ([`batch::answer`], the path of every front end's advice), its solve stopped once
/// `cancel` is set (503, read by no one); an error of the query is a 400, a table that
/// cannot be loaded a 500.
pub fn advise_line(
    server: &Arc<Server>,
    rules: Rules,
    line: &[u8],
    cancel: &Cancel,
) -> Result<String, ApiError> {
    let tables = server.tables.set(rules);
    // Every query reads the expected-score table (under saved rolls, its card's rows of the
    // table of saved rolls): one that cannot be loaded is the server's error, not the query's.
    if rules.saved_rolls() {
        // The page does not build a table of saved rolls (Maxi Yatzy's takes minutes and
        // gigabytes): the command line does, once.
        let kind = yahtzee_core::tables::set::TableKind::ExpectedScore;
        let path = tables.path(kind);
        if path.symlink_metadata().is_err() && kind.need(&rules).cpu_seconds > SAVED_BUILD_SECONDS {
            let builtin = yahtzee_core::RuleSet::all()
                .iter()
                .any(|set| set.name == rules.set.name && set.digest() == rules.set.digest());
            let command = if builtin {
                format!("yahtzee solve --rules {}", rules.set.name())
            } else {
                "yahtzee solve --rules FILE, FILE its rules file,".to_string()
            };
            return Err(ApiError::new(
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the table of saved rolls of {} is not built, and the page does not build it ({}): build it once with {command} and ask again",
                    rules.label(),
                    kind.build_cost(&rules),
                ),
            ));
        }
        tables.saved_for(&[0]).map_err(super::tables::table_error)?;
    } else {
        tables.ev().map_err(super::tables::table_error)?;
        // A target or win question whose table is being built is answered at once with the
        // expected-score advice for the same position, marked as such (every key checked
        // first, as for the exact answer).
        let (position, objective) = batch::question(rules, line).map_err(batch_error)?;
        if let Some(mark) = super::tables::pending(&tables, &objective) {
            let answer = yahtzee_core::policy::advise(
                &tables,
                &position,
                &Objective::ExpectedScore,
                &|_, _| {},
                cancel,
            )
            .map_err(|e| batch_error(e.into()))?;
            let internal = |e: serde_json::Error| ApiError::internal(e.to_string());
            let advice = serde_json::to_string(&stamped_by(&answer, &tables)).map_err(internal)?;
            let mark = serde_json::to_string(&mark).map_err(internal)?;
            // The expected-score answer as `advise --json` writes it, and its mark last.
            let body = advice.strip_suffix('}').unwrap_or(&advice);
            return Ok(format!("{body},\"provisional\":{mark}}}"));
        }
    }
    let answer: Answer = batch::answer(&tables, line, cancel).map_err(batch_error)?;
    serde_json::to_string(&stamped_by(&answer, &tables))
        .map_err(|e| ApiError::internal(e.to_string()))
}

/// The error of a batch line as the server answers it: a table that cannot be loaded is a
/// 500, a solve stopped (its client gone) a 503, any other a 400.
fn batch_error(e: BatchError) -> ApiError {
    match e {
        BatchError::Table(e) if e.cause != LoadCause::NotOffered => super::tables::table_error(e),
        BatchError::Cancelled => stopped(),
        other => ApiError::bad(other.to_string()),
    }
}

/// True for a line that asks for advice against opponents (not the game of two): the long
/// questions, which solve the best response to the opponents (seconds to half a minute),
/// run a few at a time ([`long_work`]). False for any other line, or one with a mistake
/// (answered at once).
fn win_query(rules: Rules, line: &[u8]) -> bool {
    Query::parse(line)
        .is_ok_and(|query| !query.two_player && query.opponents(rules).is_ok_and(|o| o.is_some()))
}

async fn advise(
    State(server): State<Arc<Server>>,
    RawQuery(raw): RawQuery,
    body: Body,
) -> Response {
    let answer = async {
        let rules = rules_query(&server, raw.as_deref(), "/api/advise")?;
        let mut line = read_body(body, BODY_LIMIT, "/api/advise").await?;
        // One line, as `advise --batch` reads it: its line end is not part of the query.
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        if win_query(rules, &line) {
            let s = Arc::clone(&server);
            return long_work(&server, "/api/advise", move |cancel| {
                advise_line(&s, rules, &line, cancel)
            })
            .await;
        }
        blocking(move || advise_line(&server, rules, &line, &Cancel::new())).await
    };
    match answer.await {
        Ok(text) => json_text(text),
        Err(e) => e.into_response(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatsBody {
    at_least: Option<Value>,
}

const STATS_EXAMPLE: &str = r#"{"at_least": [200, 250, 300]}"#;

/// The exact statistics of `rules` with P(score >= t) for `thresholds`, as `yahtzee stats
/// --json` reports them; the distribution is computed once per rules (stopped between two
/// depths once `stop()` is true, and then computed again by the next request).
pub fn stats_report(
    server: &Arc<Server>,
    rules: Rules,
    thresholds: &[u32],
    cancel: &Cancel,
) -> Result<(StatsReport, Provenance), ApiError> {
    let cell = {
        let mut map = server.stats.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(map.entry(rules).or_default())
    };
    let table = server.tables.ev(rules)?;
    // A computation stopped leaves the cell empty: a request waiting for it computes it.
    let (report, tally) = cancel
        .until(|check| {
            cell.get_or_init(|| stats(&table, &THRESHOLDS, &|_, _| check()))
                .clone()
        })
        .ok_or_else(stopped)?;
    let mut report = report;
    report.summary = Summary::of(&rules, &tally, thresholds);
    Ok((report, Provenance::of(Some(&table))))
}

async fn stats_of(
    State(server): State<Arc<Server>>,
    RawQuery(raw): RawQuery,
    body: Body,
) -> Response {
    let answer = async {
        let rules = rules_query(&server, raw.as_deref(), "/api/stats")?;
        let bytes = read_body(body, BODY_LIMIT, "/api/stats").await?;
        let thresholds = if bytes.iter().all(u8::is_ascii_whitespace) {
            THRESHOLDS.to_vec()
        } else {
            let body: StatsBody = parse_body(&bytes, STATS_EXAMPLE)?;
            match body.at_least {
                None => THRESHOLDS.to_vec(),
                Some(v) => {
                    const AT_LEAST: &str = "an array of integer final scores, like [200, 250, 300]";
                    let items = v.as_array().ok_or_else(|| {
                        ApiError::bad(format!("at_least must be {AT_LEAST}, not {}", describe(&v)))
                    })?;
                    if items.len() > 100 {
                        return Err(ApiError::bad(format!(
                            "at_least has {} thresholds: give at most 100",
                            items.len()
                        )));
                    }
                    items
                        .iter()
                        .map(|t| {
                            integer(t, "each of at_least", "an integer final score, like 300")
                                .and_then(|n| {
                                    u32::try_from(n).map_err(|_| {
                                        ApiError::bad(format!(
                                            "each of at_least must be an integer final score, like 300, not {n}"
                                        ))
                                    })
                                })
                        })
                        .collect::<Result<Vec<u32>, ApiError>>()?
                }
            }
        };
        let computed = {
            let map = server.stats.lock().unwrap_or_else(|e| e.into_inner());
            map.get(&rules).is_some_and(|cell| cell.get().is_some())
        };
        let s = Arc::clone(&server);
        if computed {
            return blocking(move || stats_report(&s, rules, &thresholds, &Cancel::new())).await;
        }
        long_work(&server, "/api/stats", move |cancel| {
            stats_report(&s, rules, &thresholds, cancel)
        })
        .await
    };
    match answer.await {
        Ok((result, provenance)) => stamped_json(&result, provenance),
        Err(e) => e.into_response(),
    }
}

/// What a review prices decisions in, as asked by the query of `/api/review`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReviewObjective {
    /// Expected points (`review --target off`).
    Points,
    /// The chance of a final score of at least this (`review --target T`).
    Target(u32),
    /// The chance of winning against the other players (`review --win`).
    Win,
}

/// The objective of a review from its query (`objective` and `target`), as `yahtzee review`
/// takes `--target` and `--win`: absent, the record's coach's (its target, or winning),
/// else expected points.
pub fn review_objective(
    pairs: &[(String, String)],
    record: &GameRecord,
) -> Result<ReviewObjective, ApiError> {
    let target = match param(pairs, "target") {
        None => None,
        Some(text) => Some(match text.trim() {
            t if t.eq_ignore_ascii_case("off") => None,
            t => Some(
                t.parse::<u32>()
                    .ok()
                    .filter(|&n| n <= yahtzee_core::policy::MAX_TARGET)
                    .ok_or_else(|| {
                        ApiError::bad(format!(
                            "the target must be `off` or a whole number from 0 to {}, not `{}`",
                            yahtzee_core::policy::MAX_TARGET,
                            excerpt(t)
                        ))
                    })?,
            ),
        }),
    };
    let coach = || match record.header.coach_target {
        Some(t) => ReviewObjective::Target(t),
        None if record.header.coach_win => ReviewObjective::Win,
        None => ReviewObjective::Points,
    };
    match (param(pairs, "objective"), target) {
        (None, None) => Ok(coach()),
        (None, Some(None)) => Ok(ReviewObjective::Points),
        (None | Some("target"), Some(Some(t))) => Ok(ReviewObjective::Target(t)),
        (Some("target"), None) => match record.header.coach_target {
            Some(t) => Ok(ReviewObjective::Target(t)),
            None => Err(ApiError::bad(format!(
                "objective target needs its target: give target=T, a whole number from 0 to {} (the record's coach had none)",
                yahtzee_core::policy::MAX_TARGET
            ))),
        },
        (Some("target"), Some(None)) => Err(ApiError::bad(
            "objective target needs a target score: target=off prices in expected points (objective expected-score)",
        )),
        (Some("expected-score"), None | Some(None)) => Ok(ReviewObjective::Points),
        (Some("win"), None) => Ok(ReviewObjective::Win),
        (Some(o @ ("expected-score" | "win")), Some(_)) => Err(ApiError::bad(format!(
            "objective {o} takes no target: give target=T with objective target (or alone), or leave target out"
        ))),
        (Some(other), _) => Err(ApiError::bad(format!(
            "objective must be expected-score, target or win, not `{}`",
            excerpt(other)
        ))),
    }
}

/// The record `bytes` and the objective its query asks for (`objective`, `target`), checked
/// before any pricing: a mistake is a 400 (of a streamed review too, before its first line).
pub fn review_request(
    bytes: &[u8],
    pairs: &[(String, String)],
) -> Result<(GameRecord, ReviewObjective), ApiError> {
    let record = GameRecord::parse(bytes).map_err(|e| ApiError::bad(format!("the record: {e}")))?;
    let objective = review_objective(pairs, &record)?;
    // Checked before the distribution table is loaded (or built).
    if objective == ReviewObjective::Win && record.game.seats().len() < 2 {
        return Err(ApiError::bad(ReviewError::WinAlone.to_string()));
    }
    Ok((record, objective))
}

/// A line of a streamed review (`/api/review?stream=true`), as its `type` says.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ReviewLine<'a> {
    /// Pricing starts: `total` decisions, priced in `order`, in the review's objective.
    Started {
        /// What the decisions are priced in (the review's `objective`).
        objective: &'static str,
        /// The review's `target`.
        target: Option<u32>,
        /// The review's `model`.
        model: Option<&'static str>,
        /// The decisions of the record.
        total: usize,
        /// The order they are priced in, in words.
        order: &'static str,
    },
    /// A best response is being solved (pricing to win): `done` of `total` cards.
    Solving {
        /// Cards solved.
        done: u64,
        /// Cards of the solve.
        total: u64,
    },
    /// One decision priced, as it is in the review's `decisions`.
    Decision {
        /// Its place in the record's decisions, in the order played (from 0).
        index: usize,
        /// Decisions priced so far.
        done: usize,
        /// Decisions in all.
        total: usize,
        /// The decision, priced.
        decision: &'a DecisionReview,
    },
    /// The whole review, as `/api/review` answers it: the last line.
    Review {
        /// The review.
        review: Stamped<'a, Review>,
    },
}

/// How often a streamed review tells of a solve's progress.
const SOLVING_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

/// Prices every decision of `record` in `objective`, as `yahtzee review --json` reports it
/// with the same flags, telling `send` (a streamed review) of each decision as it is priced
/// ([`ReviewLine`]; the last turns first, see [`yahtzee_core::play::review::pricing_order`])
/// and of each solve's progress; stopped, within a card of a solve, once `cancel` is set.
pub fn price_review(
    server: &Arc<Server>,
    record: &GameRecord,
    objective: ReviewObjective,
    cancel: &Cancel,
    send: &(dyn Fn(String) + Sync),
) -> Result<(Review, Provenance), ApiError> {
    let rules = record.game.rules();
    let table = server.tables.ev(rules)?;
    let failed = |e: ReviewError| match e {
        ReviewError::WinAlone => ApiError::bad(e.to_string()),
        other => ApiError::internal(other.to_string()),
    };
    let targets;
    let distribution;
    let pricing = match objective {
        ReviewObjective::Points => Pricing::ExpectedScore,
        ReviewObjective::Target(target) => {
            targets = server.tables.target(rules)?;
            Pricing::Target {
                targets: &targets,
                target,
            }
        }
        ReviewObjective::Win => {
            distribution = server.tables.distribution(rules)?;
            Pricing::Win {
                distribution: &distribution,
            }
        }
    };
    send(line(&ReviewLine::Started {
        objective: pricing.objective(),
        target: pricing.target(),
        model: matches!(pricing, Pricing::Win { .. }).then_some(MODEL),
        total: record.decisions.len(),
        order: "the last turns first (a decision priced to win is a solve of the rest of the game: the first turns take longest)",
    }));
    let told = Mutex::new(None::<std::time::Instant>);
    let solving = |done: u64, total: u64| {
        let mut last = told.lock().unwrap_or_else(|e| e.into_inner());
        if last.is_none_or(|t| t.elapsed() >= SOLVING_EVERY) {
            *last = Some(std::time::Instant::now());
            send(line(&ReviewLine::Solving { done, total }));
        }
    };
    let mut priced = |p: Priced<'_>| {
        send(line(&ReviewLine::Decision {
            index: p.index,
            done: p.done,
            total: p.total,
            decision: p.decision,
        }));
        !cancel.is_cancelled()
    };
    // Each decision priced to win is a solve: stopped within one of its cards.
    cancel
        .until(|check| {
            review_progressively(
                &table,
                record,
                pricing,
                &|done, total| {
                    check();
                    solving(done, total);
                },
                &mut priced,
            )
        })
        .ok_or_else(stopped)?
        .map_err(failed)?
        .ok_or_else(stopped)
        .map(|review| (review, Provenance::of(Some(&table))))
}

async fn review_of(
    State(server): State<Arc<Server>>,
    RawQuery(raw): RawQuery,
    body: Body,
) -> Response {
    let answer = async {
        let pairs = query_pairs(
            raw.as_deref(),
            &["objective", "target", "stream"],
            "/api/review",
        )?;
        let stream = stream_param(&pairs, "the review as lines of JSON, decision by decision")?;
        let bytes = read_body(body, RECORD_LIMIT, "/api/review").await?;
        let (record, objective) = review_request(&bytes, &pairs)?;
        // A review prices every decision of a game (to win: a solve each turn).
        let s = Arc::clone(&server);
        if stream {
            return long_stream(&server, "/api/review", move |cancel, send| {
                let (result, provenance) = price_review(&s, &record, objective, cancel, send)?;
                let review = Stamped {
                    result: &result,
                    provenance,
                };
                Ok(line(&ReviewLine::Review { review }))
            });
        }
        long_work(&server, "/api/review", move |cancel| {
            price_review(&s, &record, objective, cancel, &|_| {})
        })
        .await
        .map(|(result, provenance)| stamped_json(&result, provenance))
    };
    match answer.await {
        Ok(response) => response,
        Err(e) => e.into_response(),
    }
}

/// Rates the players of the records of the body (one or several, one after the other), in
/// expected points, as `yahtzee review --rating --json` rates them.
async fn rating_of(
    State(server): State<Arc<Server>>,
    RawQuery(raw): RawQuery,
    body: Body,
) -> Response {
    let answer = async {
        query_pairs(raw.as_deref(), &[], "/api/rating")?;
        let bytes = read_body(body, RECORD_LIMIT, "/api/rating").await?;
        let records = parse_records(&bytes).map_err(|e| ApiError::bad(e.to_string()))?;
        let rules = records[0].game.rules();
        let s = Arc::clone(&server);
        long_work(&server, "/api/rating", move |_| {
            let table = s.tables.ev(rules)?;
            let rating = rate(&table, &records, &|_| {}).map_err(|e| match e {
                RatingError::Advice(_) => ApiError::internal(e.to_string()),
                _ => ApiError::bad(e.to_string()),
            })?;
            Ok((rating, Provenance::of(Some(&table))))
        })
        .await
        .map(|(result, provenance)| stamped_json(&result, provenance))
    };
    match answer.await {
        Ok(response) => response,
        Err(e) => e.into_response(),
    }
}
