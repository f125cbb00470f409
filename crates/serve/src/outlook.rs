//! `/api/outlook`: the exact distribution of the final score from a position, under the
//! objective of its batch line, for the page's chart.
//!
//! - No `target` and no `opponents`: every choice from the position on is the expected-score
//!   policy's, read from the distribution table ([`FinalScores::of_position`]); answered at
//!   once.
//! - `target`: the target policy, the best chance of reaching the target at every decision
//!   (`stats --target T`, from a position: [`distribution_from_position`]).
//! - `opponents`: the best response to their final-score distributions from the position
//!   (the win table `advise --opponent` ranks by, solved once for the position,
//!   [`yahtzee_core::policy::win::best_response`]), kept to the end of the game: the opponents' cards are
//!   not re-read as they play.
//!
//! A line without `dice` asks for the start of a turn of its card, before the roll: from an
//! empty card that is the distribution of `stats` (and of `stats --target T`).
//!
//! The distributions of the target and win policies take a forward pass through every state
//! that can follow the position: milliseconds late in a game, minutes from an early Yahtzee
//! card. So each is a [`Job`]: one computation per question, shared by every request that
//! asks it, one at a time (memory: a Yahtzee pass from an empty card holds about a
//! gigabyte), with its progress in `/api/status`, and stopped when no request waits for it
//! any more (the page asks another question, or is closed). The answers of the last
//! [`KEPT`] questions are kept.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use std::time::{Duration, Instant};

use super::limits::{Cancel, error_line, line, stopped, streamed};
use super::{
    ApiError, BODY_LIMIT, Server, blocking, json, query_pairs, read_body, rules_param, stream_param,
};
use yahtzee_core::batch::{BatchError, Query};
use yahtzee_core::game::dice::{Dice, DiceSpace, GameDice, Roll};
use yahtzee_core::game::rules::Rules;
use yahtzee_core::policy::cache::TurnCache;
use yahtzee_core::policy::player::Player;
use yahtzee_core::policy::target::TargetError;
use yahtzee_core::policy::target::TargetPlayer;
use yahtzee_core::policy::win::{
    FinalScores, MODEL, Opponent, WinError, best_response_with, needs_distribution,
    opponent_scores, utility,
};
use yahtzee_core::solve::simd::Simd;
use yahtzee_core::stats::distribution::Tally;
use yahtzee_core::stats::simulate::{MeanInterval, ShareInterval, play_turn};
use yahtzee_core::stats::{
    Start, VectorPolicy, distribution_from_card, distribution_from_position,
};
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::vector::VectorTable;

/// The answers kept for questions asked again (a page going back and forth).
pub const KEPT: usize = 16;

/// The distribution of the final score from a position under a policy, for the page's
/// chart.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outlook {
    /// The rules (`rules` and `upper_first`).
    #[serde(flatten)]
    pub rules: Rules,
    /// Points already on the card, bonuses included.
    pub banked: u32,
    /// The dice, ascending; `null` at the start of a turn, before its roll.
    pub dice: Option<Vec<u8>>,
    /// Rolls left; `null` at the start of a turn.
    pub rolls_left: Option<u8>,
    /// Whose choices from the position on: `expected-score` (the best for the average),
    /// `target` (the best for the chance of reaching `target`) or `win` (the best response to
    /// the opponents' distributions, not re-solved as they play).
    pub policy: &'static str,
    /// What the distribution is, in words: the chart's caption.
    pub caption: String,
    /// The mean final score.
    pub mean: f64,
    /// The lowest and highest final scores with a chance.
    pub min: u32,
    /// See `min`.
    pub max: u32,
    /// The 10th, 25th, 50th, 75th and 90th percentiles.
    pub percentiles: [u32; 5],
    /// The target of a query with one.
    pub target: Option<u32>,
    /// The chance of a final score of at least `target` under this policy (with a target).
    pub p_at_least_target: Option<f64>,
    /// The chance of winning under this policy (with opponents): ties for first shared.
    pub p_win: Option<f64>,
    /// What `p_win` assumes of the opponents ([`MODEL`]; with opponents).
    pub model: Option<&'static str>,
    /// Every final score from `min` to `max` with its chance: `[score, probability]`.
    pub pmf: Vec<(u32, f64)>,
}

/// What the policy of an outlook plays for.
#[derive(Clone, Debug)]
enum Objective {
    ExpectedScore,
    Target(u32),
    Win(Vec<FinalScores>),
}

impl Objective {
    fn policy(&self) -> &'static str {
        match self {
            Objective::ExpectedScore => yahtzee_core::tables::expected::EXPECTED_SCORE,
            Objective::Target(_) => yahtzee_core::solve::vector::TARGET,
            Objective::Win(_) => yahtzee_core::policy::win::WIN,
        }
    }

    /// The chart's caption.
    fn caption(&self, turn_start: bool) -> String {
        let from = if turn_start {
            "From the start of the turn, before its roll: your"
        } else {
            "Your"
        };
        match self {
            Objective::ExpectedScore => format!(
                "{from} final score if every choice from here on is the best for the average (the expected-score policy)."
            ),
            Objective::Target(t) => format!(
                "{from} final score if you keep playing for {t} or more: every choice from here on the best for the chance of reaching it (the target policy; ties to the higher average)."
            ),
            Objective::Win(_) => format!(
                "{from} final score if you keep playing to beat these opponents' distributions: every choice from here on the best response to them as they stand now, not re-solved as they play."
            ),
        }
    }
}

/// The outlook of `scores` (the distribution of the final score) from `start`.
fn outlook(rules: Rules, start: &Start, objective: &Objective, scores: &FinalScores) -> Outlook {
    let (dice, rolls_left) = match start {
        Start::Card(_) => (None, None),
        Start::Position(p) => (Some(p.dice.faces()), Some(p.rolls_left)),
    };
    let target = match objective {
        Objective::Target(t) => Some(*t),
        _ => None,
    };
    let p_win = match objective {
        Objective::Win(opponents) => {
            // E[u(final)]: u is 0 below its range and 1 past it.
            let (lo, u) = utility(opponents);
            Some(
                scores
                    .pmf
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let x = i64::from(scores.lo) + i as i64 - i64::from(lo);
                        let value = if x < 0 {
                            0.0
                        } else {
                            u.get(x as usize).copied().unwrap_or(1.0)
                        };
                        p * value
                    })
                    .sum::<f64>(),
            )
        }
        _ => None,
    };
    Outlook {
        rules,
        banked: start.card().banked(),
        dice,
        rolls_left,
        policy: objective.policy(),
        caption: objective.caption(matches!(start, Start::Card(_))),
        mean: scores.mean(),
        min: scores.lo,
        max: scores.hi(),
        percentiles: [0.1, 0.25, 0.5, 0.75, 0.9].map(|q| scores.percentile(q)),
        target,
        p_at_least_target: target.map(|t| (1.0 - scores.below(i64::from(t))).clamp(0.0, 1.0)),
        p_win,
        model: p_win.map(|_| MODEL),
        pmf: scores
            .pmf
            .iter()
            .enumerate()
            .map(|(i, &p)| (scores.lo + i as u32, p))
            .collect(),
    }
}

/// The final scores of a tally, as chances from its lowest score to its highest.
fn scores_of(tally: &Tally) -> FinalScores {
    let total = tally.total();
    let first = tally.score.iter().position(|&m| m > 0.0).unwrap_or(0);
    let last = tally.score.iter().rposition(|&m| m > 0.0).unwrap_or(0);
    FinalScores {
        lo: first as u32,
        pmf: tally.score[first..=last.max(first)]
            .iter()
            .map(|m| m / total)
            .collect(),
    }
}

/// The keys of an `/api/outlook` line: those of a batch line but `two_player` and `lead`
/// (the distribution is of the game against everyone, not of the game of two).
const KEYS: &str = "card, yahtzee_bonus, dice, rolls_left, target and opponents";

/// A batch line and whether it is at the start of a turn: a line without `dice` is read with
/// stand-in dice (which are then not used), so that it is checked, key by key, as every
/// batch line is, with the same messages; `two_player` and `lead` are refused.
fn parse_line(line: &[u8], space: DiceSpace) -> Result<(Query, bool), ApiError> {
    // A line that is not a JSON object gets the batch line's message below.
    if let Ok(serde_json::Value::Object(keys)) = serde_json::from_slice(line) {
        for key in ["two_player", "lead"] {
            if keys.contains_key(key) {
                return Err(ApiError::bad(format!(
                    "unknown key `{key}` for /api/outlook: the keys are {KEYS} (the game of two is /api/advise's)"
                )));
            }
        }
    }
    parse_batch_line(line, space)
}

fn parse_batch_line(line: &[u8], space: DiceSpace) -> Result<(Query, bool), ApiError> {
    match Query::parse_in(line, space) {
        Ok(q) => Ok((q, false)),
        Err(no_dice @ BatchError::NoDice { .. }) => {
            // The line is a JSON object whose every key is known and checked: the first `{`
            // opens it.
            let at = line
                .iter()
                .position(|&b| b == b'{')
                .ok_or_else(|| ApiError::bad(no_dice.to_string()))?;
            let rest = &line[at + 1..];
            let empty = rest
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|&b| b == b'}');
            let mut with = line[..=at].to_vec();
            with.extend_from_slice(br#""dice":[1,1,1,1,1]"#);
            if !empty {
                with.push(b',');
            }
            with.extend_from_slice(rest);
            let query = Query::parse_in(&with, space).map_err(|e| ApiError::bad(e.to_string()))?;
            let keys: serde_json::Value = serde_json::from_slice(line).map_err(|e| {
                let e = BatchError::Json {
                    reason: e.to_string(),
                    dice: space,
                };
                ApiError::bad(e.to_string())
            })?;
            if keys.get("rolls_left").is_some() {
                return Err(ApiError::bad(
                    "rolls_left is for the dice showing: give dice with it, or leave both out for the start of a turn, before its roll",
                ));
            }
            Ok((query, true))
        }
        Err(e) => Err(ApiError::bad(e.to_string())),
    }
}

/// What a job computes: the tables, the objective and the start.
enum Work {
    Target {
        ev: Arc<StrategyTable>,
        targets: Arc<VectorTable<f32>>,
        target: u32,
    },
    Win {
        ev: Arc<StrategyTable>,
    },
}

/// Where a job stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    /// Waiting for the computation before it.
    Waiting,
    /// Reading the tables it needs, or solving the best response to the opponents.
    Preparing,
    /// The forward pass: `done` of `total` cards.
    Computing,
    /// Answered.
    Ready,
}

const WAITING: u8 = 0;
const PREPARING: u8 = 1;
const COMPUTING: u8 = 2;

/// One question's computation.
pub struct Job {
    key: String,
    rules: Rules,
    objective: Objective,
    start: Start,
    work: Mutex<Option<Work>>,
    /// Requests waiting for it; changed under the lock of [`Outlooks::jobs`].
    waiters: Mutex<usize>,
    cancelled: Cancel,
    phase: AtomicU8,
    done: AtomicU64,
    total: AtomicU64,
    result: OnceLock<Result<Outlook, ApiError>>,
}

/// What `/api/status` says of a job.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobStatus {
    /// The rules (`rules` and `upper_first`).
    #[serde(flatten)]
    pub rules: Rules,
    /// `target` or `win`.
    pub policy: &'static str,
    /// The caption of its chart.
    pub caption: String,
    /// Where it stands.
    pub state: JobState,
    /// Cards done, while computing.
    pub done: u64,
    /// Cards to do, while computing (0 before).
    pub total: u64,
}

impl Job {
    fn status(&self) -> JobStatus {
        let state = if self.result.get().is_some() {
            JobState::Ready
        } else {
            match self.phase.load(Ordering::Relaxed) {
                WAITING => JobState::Waiting,
                PREPARING => JobState::Preparing,
                _ => JobState::Computing,
            }
        };
        JobStatus {
            rules: self.rules,
            policy: self.objective.policy(),
            caption: self.objective.caption(matches!(self.start, Start::Card(_))),
            state,
            done: self.done.load(Ordering::Relaxed),
            total: self.total.load(Ordering::Relaxed),
        }
    }
}

/// The outlook jobs of a server.
pub struct Outlooks {
    /// Jobs under way and the last answered, oldest first.
    jobs: Mutex<Vec<Arc<Job>>>,
    /// One permit, held by the request whose job computes (or whose job's answer it reads):
    /// the others wait for it without holding a thread, so that a queue of computations
    /// never takes the threads that answer the advice.
    gate: Arc<tokio::sync::Semaphore>,
}

impl Default for Outlooks {
    fn default() -> Outlooks {
        Outlooks {
            jobs: Mutex::default(),
            gate: Arc::new(tokio::sync::Semaphore::new(1)),
        }
    }
}

/// A request waiting for a job: when the last one goes (its connection closed) before the
/// answer, the job stops.
pub struct Waiter {
    server: Arc<Server>,
    job: Arc<Job>,
}

impl Drop for Waiter {
    fn drop(&mut self) {
        let outlooks = &self.server.outlooks;
        let mut jobs = outlooks.jobs.lock().unwrap_or_else(|e| e.into_inner());
        let mut waiters = self.job.waiters.lock().unwrap_or_else(|e| e.into_inner());
        *waiters -= 1;
        if *waiters == 0 && self.job.result.get().is_none() {
            self.job.cancelled.cancel();
            jobs.retain(|j| !Arc::ptr_eq(j, &self.job));
        }
    }
}

impl Outlooks {
    /// Where every job under way stands, oldest first.
    pub fn status(&self) -> Vec<JobStatus> {
        let jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        jobs.iter()
            .filter(|j| j.result.get().is_none())
            .map(|j| j.status())
            .collect()
    }

    /// The job of `key`, or a new one of `make()`, with one more request waiting for it.
    fn join(&self, server: &Arc<Server>, key: &str, make: impl FnOnce() -> Job) -> Joined {
        let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        let job = match jobs
            .iter()
            .find(|j| j.key == key && !j.cancelled.is_cancelled())
        {
            Some(j) => Arc::clone(j),
            None => {
                let job = Arc::new(make());
                jobs.push(Arc::clone(&job));
                // The answers kept: the oldest go first.
                let answered = jobs.iter().filter(|j| j.result.get().is_some()).count();
                if answered > KEPT
                    && let Some(i) = jobs.iter().position(|j| j.result.get().is_some())
                {
                    jobs.remove(i);
                }
                job
            }
        };
        if let Some(Ok(answer)) = job.result.get() {
            return Joined::Ready(answer.clone());
        }
        *job.waiters.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        Joined::Wait(Waiter {
            server: Arc::clone(server),
            job,
        })
    }

    /// The answer of `job`: computed here, or waited for. The caller holds the permit of
    /// [`Outlooks::gate`].
    fn answer(&self, job: &Job) -> Result<Outlook, ApiError> {
        let result = job.result.get_or_init(|| self.compute(job)).clone();
        if result.is_err() {
            // An error is not kept: the question asked again is computed again.
            let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
            jobs.retain(|j| !std::ptr::eq(&**j, job));
        }
        result
    }

    fn compute(&self, job: &Job) -> Result<Outlook, ApiError> {
        if job.cancelled.is_cancelled() {
            return Err(stopped());
        }
        job.phase.store(PREPARING, Ordering::Relaxed);
        let work = job
            .work
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .ok_or_else(|| ApiError::internal("internal error: an outlook computed twice"))?;
        let progress = |done: u64, total: u64| {
            job.phase.store(COMPUTING, Ordering::Relaxed);
            job.total.store(total, Ordering::Relaxed);
            job.done.store(done, Ordering::Relaxed);
            !job.cancelled.is_cancelled()
        };
        let table_error = |e: TargetError| match e {
            TargetError::Advice(e) => ApiError::bad(e.to_string()),
            other => ApiError::internal(other.to_string()),
        };
        let card = job.start.card();
        let state = card.state();
        let run = |policy: &VectorPolicy<'_>| match &job.start {
            Start::Card(card) => distribution_from_card(policy, card, &progress),
            Start::Position(position) => distribution_from_position(policy, position, &progress),
        };
        let tally = match (work, &job.objective) {
            (
                Work::Target {
                    ev,
                    targets,
                    target,
                },
                _,
            ) => {
                let player =
                    TargetPlayer::from_state(&ev, &targets, target, &state).map_err(table_error)?;
                run(&VectorPolicy::target(&player)).map_err(table_error)?
            }
            (Work::Win { ev }, Objective::Win(scores)) => {
                // Stopped between two depths of the solve once no request waits.
                let table = job
                    .cancelled
                    .until(|check| {
                        best_response_with(card, scores, Simd::detect(), &|_, _| check())
                    })
                    .ok_or_else(stopped)?;
                let policy = VectorPolicy::win(&ev, &table, scores, &state).map_err(table_error)?;
                run(&policy).map_err(table_error)?
            }
            _ => {
                return Err(ApiError::internal(
                    "internal error: an outlook's work is not of its objective",
                ));
            }
        };
        let tally = tally.ok_or_else(stopped)?;
        Ok(outlook(
            job.rules,
            &job.start,
            &job.objective,
            &scores_of(&tally),
        ))
    }
}

/// A request joined to a job, or answered already.
enum Joined {
    Ready(Outlook),
    Wait(Waiter),
}

/// Checks the question of the batch line `line` under `rules` and answers it, or (for the
/// target and win policies) joins the job that answers it.
fn prepare(server: &Arc<Server>, rules: Rules, line: &[u8]) -> Result<Joined, ApiError> {
    let (query, turn_start) = parse_line(line, rules.dice())?;
    let position = query
        .position(rules)
        .map_err(|e| ApiError::bad(e.to_string()))?;
    let opponents: Option<Vec<Opponent>> = query
        .opponents(rules)
        .map_err(|e| ApiError::bad(e.to_string()))?;
    let ev = server.tables.ev(rules)?;
    let start = if turn_start {
        // A full card is refused by the card's own check.
        Start::Card(position.card)
    } else {
        // The position is checked before any table is loaded (or built).
        yahtzee_core::policy::expected::advise(&ev, &position)
            .map_err(|e| ApiError::bad(e.to_string()))?;
        Start::Position(position)
    };
    let win_error = |e: WinError| match e {
        WinError::Advice(_) | WinError::NoOpponents | WinError::RulesMismatch { .. } => {
            ApiError::bad(e.to_string())
        }
        other => ApiError::internal(other.to_string()),
    };
    let (objective, work) = match (query.target, opponents) {
        (Some(target), _) => {
            let targets = server.tables.target(rules)?;
            (
                Objective::Target(target),
                Work::Target {
                    ev: Arc::clone(&ev),
                    targets,
                    target,
                },
            )
        }
        (None, Some(opponents)) => {
            let distribution = if needs_distribution(&opponents) {
                Some(server.tables.distribution(rules)?)
            } else {
                None
            };
            let scores =
                opponent_scores(&rules, distribution.as_deref(), &opponents).map_err(win_error)?;
            (
                Objective::Win(scores),
                Work::Win {
                    ev: Arc::clone(&ev),
                },
            )
        }
        (None, None) => {
            let distribution = server.tables.distribution(rules)?;
            let scores = match &start {
                Start::Card(card) => FinalScores::of_card(&distribution, card)
                    .map_err(|e| ApiError::internal(e.to_string()))?,
                Start::Position(position) => {
                    FinalScores::of_position(&ev, &distribution, position).map_err(win_error)?
                }
            };
            let objective = Objective::ExpectedScore;
            return Ok(Joined::Ready(outlook(rules, &start, &objective, &scores)));
        }
    };
    let key = format!(
        "{:?} {} {:?} {:?}",
        rules,
        start.card(),
        match &start {
            Start::Card(_) => None,
            Start::Position(p) => Some((p.dice.faces(), p.rolls_left)),
        },
        objective,
    );
    Ok(server.outlooks.join(server, &key, || Job {
        key: key.clone(),
        rules,
        objective,
        start,
        work: Mutex::new(Some(work)),
        waiters: Mutex::new(0),
        cancelled: Cancel::new(),
        phase: AtomicU8::new(WAITING),
        done: AtomicU64::new(0),
        total: AtomicU64::new(0),
        result: OnceLock::new(),
    }))
}

/// `POST /api/outlook`; with `stream=true` the answer is lines of JSON as they come
/// ([`OutlookLine`]): while the exact pass of the target policy runs, an estimate from
/// simulated games of the same policy from the same position about every second, then the
/// exact outlook (or the error) last. An answer ready at once is the one `outlook` line.
pub async fn outlook_of(
    State(server): State<Arc<Server>>,
    RawQuery(raw): RawQuery,
    body: Body,
) -> Response {
    let answer = async {
        let pairs = query_pairs(
            raw.as_deref(),
            &["rules", "upper_first", "stream"],
            "/api/outlook",
        )?;
        let rules = rules_param(&pairs, server.rules)?;
        let stream = stream_param(
            &pairs,
            "estimates from simulated games, then the exact outlook, as lines of JSON",
        )?;
        let mut line = read_body(body, BODY_LIMIT, "/api/outlook").await?;
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        let s = Arc::clone(&server);
        let joined = blocking(move || prepare(&s, rules, &line)).await?;
        if stream {
            return outlook_stream(&server, joined);
        }
        match joined {
            Joined::Ready(o) => Ok(json(&o)),
            Joined::Wait(waiter) => {
                // Counted with the long requests of `limits` while it waits (503 past them).
                let _admission = server.limits.admit("/api/outlook")?;
                wait_for(&server, waiter).await.map(|o| json(&o))
            }
        }
    };
    match answer.await {
        Ok(response) => response,
        Err(e) => e.into_response(),
    }
}

/// The answer of the job `waiter` waits for, computed in its turn ([`Outlooks::gate`]).
async fn wait_for(server: &Arc<Server>, waiter: Waiter) -> Result<Outlook, ApiError> {
    // `waiter` lives as long as this future: a closed connection drops it.
    let job = Arc::clone(&waiter.job);
    let gate = Arc::clone(&server.outlooks.gate);
    let permit = gate
        .acquire_owned()
        .await
        .map_err(|_| ApiError::internal("internal error: the outlooks' gate is closed"))?;
    let s = Arc::clone(server);
    // The permit goes with the computation: it is released when that ends, even if this
    // request is gone by then.
    let answer = blocking(move || {
        let answer = s.outlooks.answer(&job);
        drop(permit);
        answer
    })
    .await;
    drop(waiter);
    answer
}

/// A line of a streamed `/api/outlook` answer.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum OutlookLine<'a> {
    /// The outlook from the games simulated so far (the target policy only): its `pmf` the
    /// share of the games at each final score.
    Estimate {
        /// Games simulated so far.
        games: u64,
        /// The share of them at `target` or more, with its 95% interval.
        reach: ShareInterval,
        /// The 95% interval of the mean.
        mean: MeanInterval,
        /// The games' distribution, as an outlook.
        outlook: &'a Outlook,
    },
    /// The exact outlook: the last line.
    Outlook {
        /// The outlook.
        outlook: &'a Outlook,
    },
}

/// The seed of the simulated games of an estimate: the same games, so the same estimates
/// after as many games, every time.
pub const ESTIMATE_SEED: u64 = 2025;

/// The most games an estimate simulates (then it waits for the exact answer).
pub const ESTIMATE_GAMES: u64 = 1 << 22;

/// The streamed answer of `joined` ([`OutlookLine`]).
fn outlook_stream(server: &Arc<Server>, joined: Joined) -> Result<Response, ApiError> {
    let waiter = match joined {
        Joined::Ready(o) => {
            let (tx, _, response) = streamed();
            let _ = tx.send(line(&OutlookLine::Outlook { outlook: &o }));
            return Ok(response);
        }
        Joined::Wait(waiter) => waiter,
    };
    let admission = server.limits.admit("/api/outlook")?;
    let (tx, cancel, response) = streamed();
    let job = Arc::clone(&waiter.job);
    let estimate = match job.objective {
        Objective::Target(target) => Some((
            server.tables.ev(job.rules)?,
            server.tables.target(job.rules)?,
            target,
        )),
        _ => None,
    };
    let server = Arc::clone(server);
    tokio::spawn(async move {
        let _admission = admission;
        let exact = Arc::new(AtomicBool::new(false));
        let simulating = estimate.map(|(ev, targets, target)| {
            let (tx, exact, cancel, job) = (
                tx.clone(),
                Arc::clone(&exact),
                cancel.clone(),
                Arc::clone(&job),
            );
            tokio::task::spawn_blocking(move || {
                let stop = || exact.load(Ordering::Relaxed) || cancel.is_cancelled();
                let send = |text: String| {
                    let _ = tx.send(text);
                };
                let started =
                    TargetPlayer::from_state(&ev, &targets, target, &job.start.card().state());
                if let Ok(player) = started {
                    estimate_outlook(&job, &Player::Target(player), target, &stop, &send);
                }
            })
        });
        let answer = tokio::select! {
            answer = wait_for(&server, waiter) => answer,
            () = tx.closed() => return,
        };
        exact.store(true, Ordering::Relaxed);
        if let Some(simulating) = simulating {
            // The exact line comes last.
            let _ = simulating.await;
        }
        let _ = tx.send(match &answer {
            Ok(o) => line(&OutlookLine::Outlook { outlook: o }),
            Err(e) => error_line(e),
        });
    });
    Ok(response)
}

/// Simulates games of `player` (the target policy for `target`) from the start of `job`,
/// seeded ([`ESTIMATE_SEED`]), one after the other, sending an [`OutlookLine::Estimate`]
/// about every second until `stop()` (or [`ESTIMATE_GAMES`] games).
fn estimate_outlook(
    job: &Job,
    player: &Player<'_>,
    target: u32,
    stop: &dyn Fn() -> bool,
    send: &dyn Fn(String),
) {
    let rules = job.rules;
    let ev = player
        .table()
        .expect("the target policy plays with the expected-score table");
    let cache = TurnCache::new(ev);
    let mut tally = Tally::new(&rules);
    let mut next = Instant::now() + Duration::from_millis(500);
    let mut games = 0;
    while games < ESTIMATE_GAMES && !stop() {
        for _ in 0..64 {
            let mut dice = GameDice::of_game(ESTIMATE_SEED, games);
            tally.add_score(play_out(&rules, player, &cache, &job.start, &mut dice), 1.0);
            games += 1;
        }
        if Instant::now() >= next && !stop() {
            next = Instant::now() + Duration::from_secs(1);
            let estimate = outlook(rules, &job.start, &job.objective, &scores_of(&tally));
            send(line(&OutlookLine::Estimate {
                games,
                reach: ShareInterval::of(&tally, target),
                mean: MeanInterval::of(&tally),
                outlook: &estimate,
            }));
        }
    }
}

/// The final score of one game of `player` from `start`, with the dice of `dice`: the turn
/// of the dice showing played out (its keeps while rolls are left, then its box), then
/// every turn left as a simulated game plays it ([`play_turn`]).
fn play_out<'a>(
    rules: &Rules,
    player: &Player<'a>,
    cache: &TurnCache<'a>,
    start: &Start,
    dice: &mut GameDice,
) -> u32 {
    let card = start.card();
    let mut state = card.state();
    let mut score = card.banked();
    if let Start::Position(p) = start {
        let turn = player.turn(&state, score, Some(cache));
        let mut roll = p.dice.index();
        for rolls_left in (1..=p.rolls_left).rev() {
            let kept = turn.keep(rolls_left, &Dice::from_index(roll)).index();
            if kept >= rules.dice().first_roll() {
                break;
            }
            roll = dice.throw_index(rules.dice(), kept);
        }
        let (index, points, bonuses) = turn.choose_box(rules, &state, &Dice::from_index(roll));
        score += points + bonuses.points(rules);
        state = state.after(rules, index, points);
    }
    while state.filled.count_ones() < rules.box_count() as u32 {
        let turn = player.turn(&state, score, Some(cache));
        let played = play_turn(rules, &turn, &state, dice);
        score += played.points + played.bonuses.points(rules);
        state = state.after(rules, played.index, played.points);
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_without_dice_is_the_start_of_a_turn() {
        let (q, start) =
            parse_line(br#" {"card": {"ones": 3}, "target": 200}"#, DiceSpace::FIVE).unwrap();
        assert!(start);
        assert_eq!(q.target, Some(200));
        assert_eq!(q.card, vec![("ones".to_string(), 3)]);
        let (_, start) = parse_line(b"{}", DiceSpace::FIVE).unwrap();
        assert!(start);
        let (_, start) = parse_line(br#"{"dice": [1, 2, 3, 4, 5]}"#, DiceSpace::FIVE).unwrap();
        assert!(!start);
        // The line's own mistakes keep their messages.
        let e = parse_line(br#"{"card": {"ones": "3"}}"#, DiceSpace::FIVE).unwrap_err();
        assert!(e.message.starts_with("card.ones must be"), "{}", e.message);
        let e = parse_line(br#"{"card": {}, "card": {}}"#, DiceSpace::FIVE).unwrap_err();
        assert!(e.message.contains("given twice"), "{}", e.message);
        let e = parse_line(br#"{"rolls_left": 1}"#, DiceSpace::FIVE).unwrap_err();
        assert!(e.message.starts_with("rolls_left is for the dice showing"));
        let e = parse_line(b"[]", DiceSpace::FIVE).unwrap_err();
        assert!(e.message.contains("is not an object"), "{}", e.message);
    }

    #[test]
    fn outlook_accepted_two_player_and_lead() {
        for line in [
            r#"{"dice": [1, 2, 3, 4, 5], "opponents": [{"final": 100}], "two_player": true}"#,
            r#"{"two_player": false}"#,
            r#"{"dice": [1, 2, 3, 4, 5], "opponents": [{"final": 100}], "two_player": true, "lead": 3}"#,
        ] {
            let e = parse_line(line.as_bytes(), DiceSpace::FIVE).unwrap_err();
            assert_eq!(e.status, axum::http::StatusCode::BAD_REQUEST);
            assert!(
                e.message.starts_with("unknown key `two_player` for /api/outlook: the keys are card, yahtzee_bonus, dice, rolls_left, target and opponents"),
                "{line}: {}",
                e.message
            );
        }
        let e = parse_line(br#"{"lead": 3}"#, DiceSpace::FIVE).unwrap_err();
        assert!(
            e.message.starts_with("unknown key `lead` for /api/outlook"),
            "{}",
            e.message
        );
    }
}
