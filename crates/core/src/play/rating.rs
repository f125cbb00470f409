//! A player's rating across many games: the one home of the aggregation that `yahtzee review`
//! prints for several records, and that the page and Python call.
//!
//! Every decision of every record is priced by [`review`] (in expected points, against
//! optimal play, as the coach and `yahtzee advise` price it); [`rate`] then gathers each
//! player's decisions across the records:
//!
//! - the mean loss per decision (Verhoeff's measure: 0.2 or less is strong play) and the mean
//!   loss per complete game, each with a 95% interval. The games are the independent units:
//!   the loss per game is a mean of independent games (mean +- 1.96 standard errors); the loss
//!   per decision is a ratio of two sums over the games, whose standard error is the
//!   clustered (delta-method) one, decisions of one game not being independent;
//! - the **expected score** of the player's play: the optimal expected score less the mean
//!   loss per game. The losses of a game add up, in expectation, to the optimal expected
//!   score less the player's (each loss is the drop of the optimal expected final score that
//!   the choice causes, and the dice average out), so this is an unbiased estimate of the
//!   player's mean score, far tighter than the mean of the scores themselves;
//! - the loss by kind of decision (the keeps by rolls left, the most first, then the boxes) and
//!   by stage of the game (the first four turns, the last four, the middle);
//! - the costliest habits: the sub-optimal choices grouped by what was done instead of the
//!   best (a box for another, fewer dice kept than the best keep, a stop where rolling again
//!   was better, ...), ranked by the points they cost in all;
//! - the **rating**, a class of [`SCALE`] by the mean loss per game.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::game::choice::Choice;
use crate::game::rules::Rules;
use crate::play::SeatKind;
use crate::play::review::{GameRecord, RecordError, Review, ReviewError, review, review_saved};
use crate::policy::expected::{Action, AdviceError, Position, advise};
use crate::policy::pricing::PricingError;
use crate::policy::saved::SavedCards;
use crate::tables::expected::StrategyTable;
use crate::tables::set::TableSet;
use crate::text::plural;

/// The rating scale: a class by the mean loss per game, in expected points, each class up to
/// (not including) its bound; the bands double. About 0.2 points per decision, Verhoeff's
/// mark of strong play, is 5 to 7 points over a game of Yahtzee's 30 to 35 decisions.
pub const SCALE: [(f64, &str); 7] = [
    (1.0, "master"),
    (4.0, "expert"),
    (8.0, "strong"),
    (16.0, "good"),
    (32.0, "casual"),
    (64.0, "novice"),
    (f64::INFINITY, "beginner"),
];

/// The class of [`SCALE`] of a mean loss per game.
pub fn class(loss_per_game: f64) -> &'static str {
    SCALE
        .iter()
        .find(|(bound, _)| loss_per_game < *bound)
        .map_or("beginner", |&(_, name)| name)
}

/// How many habits a player's rating lists.
pub const HABITS: usize = 5;

/// The turns of the early game, and of the late game at the end of the card: four each, as
/// Vancura's *Advantage Yahtzee* divides the game of Yahtzee (hands 1 to 4, 5 to 9, 10 to 13).
pub const STAGE_TURNS: u32 = 4;

/// z of a two-sided 95% normal interval, as the simulations' intervals.
const Z_95: f64 = 1.96;

/// Why records cannot be rated together.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RatingError {
    /// No record. Fix: give at least one.
    #[error("no game record to rate: give at least one")]
    NoRecords,
    /// A record of other rules than the table's (and the first record's). Fix: rate the
    /// records of each rule set apart.
    #[error(
        "record {index} is a game of {got}, not {expected} like the first: rate the records of each rule set apart"
    )]
    Rules {
        /// The record, from 1 in the order given.
        index: usize,
        /// The rules of the table.
        expected: String,
        /// The rules of the record.
        got: String,
    },
    /// A decision could not be priced (see [`AdviceError`]).
    #[error(transparent)]
    Advice(#[from] AdviceError),
    /// A decision of a game of saved rolls could not be priced, or the table of saved rolls
    /// cannot be had (see [`ReviewError`]).
    #[error(transparent)]
    Saved(#[from] ReviewError),
    /// One of several records in one text is malformed (see [`RecordError`]).
    #[error("record {index} (from line {line}): {source}")]
    Record {
        /// The record, from 1 in the order given.
        index: usize,
        /// Its first line in the whole text.
        line: usize,
        /// What is wrong, its line counted from the record's first.
        source: RecordError,
    },
}

/// The records of a text holding one or several games, one after the other (game records
/// pasted or files joined): each starts at a `game` header line.
pub fn parse_records(text: &[u8]) -> Result<Vec<GameRecord>, RatingError> {
    let is_header = |line: &[u8]| {
        serde_json::from_slice::<serde_json::Value>(line)
            .is_ok_and(|v| v.get("type").and_then(|t| t.as_str()) == Some("game"))
    };
    // The first line of each record (from 0), and its first byte.
    let mut starts: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    for (n, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
        // A record's header may follow a byte-order mark (files joined as they were saved).
        if starts.is_empty() || is_header(crate::text::without_bom(line).trim_ascii()) {
            starts.push((n, at));
        }
        at += line.len();
    }
    if starts.is_empty() {
        return Err(RatingError::NoRecords);
    }
    let ends = starts.iter().skip(1).map(|&(_, b)| b).chain([text.len()]);
    starts
        .iter()
        .zip(ends)
        .enumerate()
        .map(|(i, (&(line, from), to))| {
            GameRecord::parse(&text[from..to]).map_err(|source| RatingError::Record {
                index: i + 1,
                line: line + 1,
                source,
            })
        })
        .collect()
}

/// A mean with its 95% interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The mean.
    pub mean: f64,
    /// Lower end of the 95% interval; `null` with fewer than two games.
    pub low: Option<f64>,
    /// Upper end of the 95% interval; `null` with fewer than two games.
    pub high: Option<f64>,
    /// The standard error of the mean; `null` with fewer than two games.
    pub standard_error: Option<f64>,
}

impl Estimate {
    fn new(mean: f64, standard_error: Option<f64>) -> Estimate {
        Estimate {
            mean,
            low: standard_error.map(|e| mean - Z_95 * e),
            high: standard_error.map(|e| mean + Z_95 * e),
            standard_error,
        }
    }

    /// The mean of independent `values`.
    fn mean_of(values: &[f64]) -> Estimate {
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let error = (values.len() > 1).then(|| {
            let squares = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>();
            (squares / (n - 1.0) / n).sqrt()
        });
        Estimate::new(mean, error)
    }

    /// The ratio of the sums of `(numerator, denominator)` pairs, each pair an independent
    /// unit (a game), with the clustered standard error of a ratio estimator.
    fn ratio_of(units: &[(f64, f64)]) -> Estimate {
        let n = units.len() as f64;
        let (top, bottom) = units
            .iter()
            .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x, b + y));
        let ratio = if bottom > 0.0 { top / bottom } else { 0.0 };
        let error = (units.len() > 1 && bottom > 0.0).then(|| {
            let squares = units
                .iter()
                .map(|&(x, y)| (x - ratio * y).powi(2))
                .sum::<f64>();
            (squares / (n * (n - 1.0))).sqrt() / (bottom / n)
        });
        Estimate::new(ratio, error)
    }

    /// `offset - self`: the same interval, mirrored.
    fn subtracted_from(&self, offset: f64) -> Estimate {
        Estimate::new(offset - self.mean, self.standard_error)
    }
}

/// The decisions of one kind, or of one stage of the game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KindLoss {
    /// The kind (`keep, 2 rolls left`, `keep, 1 roll left`, `box` in a game of three rolls a
    /// turn; a keep per number of rolls left in general) or the stage (`early game (turns
    /// 1-4)`, ...).
    pub kind: String,
    /// Number of decisions.
    pub decisions: usize,
    /// Decisions that lost points.
    pub suboptimal: usize,
    /// Sum of their losses, in expected points.
    pub total_loss: f64,
    /// Mean loss per decision of the kind; 0 when there is none.
    pub mean_loss: f64,
}

/// One habit: the sub-optimal choices of one pattern.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Habit {
    /// What was done instead of the best, e.g. `chance instead of full-house`, `kept 2 dice
    /// where the best keeps 3`, `stopped rolling where the best keeps 2 dice`.
    pub habit: String,
    /// How many times.
    pub count: usize,
    /// The points it cost in all.
    pub total_loss: f64,
    /// The points it cost a time.
    pub mean_loss: f64,
}

/// One player's rating.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerRating {
    /// The player's name (the records' players of the same name are one player).
    pub player: String,
    /// Person or bot (of the first record that seats the name).
    pub kind: SeatKind,
    /// Records in which the player made a decision.
    pub games: usize,
    /// Of them, the games played to the end: those the figures per game count.
    pub complete_games: usize,
    /// Decisions priced.
    pub decisions: usize,
    /// Decisions that lost points.
    pub suboptimal: usize,
    /// Mean final score of the complete games; `null` without one.
    pub mean_score: Option<f64>,
    /// Mean loss per decision, in expected points, with its 95% interval.
    pub loss_per_decision: Estimate,
    /// Mean loss per complete game, with its 95% interval; `null` without a complete game.
    pub loss_per_game: Option<Estimate>,
    /// The expected score of the player's play: the optimal expected score less the loss per
    /// game, with its 95% interval; `null` without a complete game.
    pub expected_score: Option<Estimate>,
    /// The class of [`SCALE`] by the mean loss per game; `null` without a complete game.
    pub rating: Option<&'static str>,
    /// By kind of decision: keeps with 2 rolls left, with 1, boxes.
    pub by_kind: Vec<KindLoss>,
    /// By stage: the first four turns, the middle, the last four.
    pub by_stage: Vec<KindLoss>,
    /// The costliest habits (at most [`HABITS`]), by total loss.
    pub habits: Vec<Habit>,
}

/// The rating of the players of a set of records.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rating {
    /// The rules of the games: `rules` and `upper_first`.
    #[serde(flatten)]
    pub rules: Rules,
    /// The optimal expected score of a game: what `expected_score` is measured against.
    pub optimal_score: f64,
    /// Records rated.
    pub records: usize,
    /// Each player, in the order first seen.
    pub players: Vec<PlayerRating>,
}

/// What is gathered of a player.
#[derive(Default)]
struct Tallies {
    kind: Option<SeatKind>,
    /// Per game: the loss, the decisions, and the final score when complete.
    games: Vec<(f64, f64, Option<u32>)>,
    decisions: usize,
    suboptimal: usize,
    /// By the rolls left of the decision, the most first (its index: the game's most rolls
    /// left less the decision's); the boxes last.
    by_kind: Vec<(usize, usize, f64)>,
    by_stage: [(usize, usize, f64); 3],
    habits: BTreeMap<String, (usize, f64)>,
}

/// The pattern of a sub-optimal `choice` against the `best` option of its position.
fn habit(rules: &Rules, choice: Choice, best: &Action) -> String {
    let dice = |n: usize| plural(n as u64, "die", "dice");
    match (choice, best) {
        (Choice::Score(i), Action::Score { category, .. }) => {
            format!("{} instead of {category}", rules.boxes()[i].name())
        }
        (Choice::Keep(k), Action::Keep { keep, .. }) => {
            let (kept, best) = (k.faces().len(), keep.len());
            let all = rules.dice().dice();
            match (kept == all, best == all) {
                (true, false) => format!("stopped rolling where the best keeps {}", dice(best)),
                (false, true) => format!(
                    "kept {} and rolled again where stopping is best",
                    dice(kept)
                ),
                _ if kept == best => format!("kept other {} than the best", dice(kept)),
                _ => format!("kept {} where the best keeps {best}", dice(kept)),
            }
        }
        // Under saved rolls a position with re-rolls left offers both: a box, which saves
        // them, and the keeps, which spend one.
        (Choice::Score(_), Action::Keep { keep, .. }) => format!(
            "scored (saving the rolls left) where the best keeps {} and rolls again",
            dice(keep.len())
        ),
        (Choice::Keep(k), Action::Score { .. }) => format!(
            "kept {} and rolled again where scoring now (saving the rolls left) is best",
            dice(k.faces().len())
        ),
    }
}

/// The kinds of decision a rating counts apart, in the order it lists them. In a game of
/// three rolls a turn: the keeps with 2 rolls left, with 1, the boxes. Under saved rolls the
/// keeps with more re-rolls left than a turn's (spending rolls saved) come first, and the
/// boxes filled with re-rolls left (saving them) apart from those filled after the last roll.
fn kinds(rules: &Rules) -> Vec<String> {
    let most = rules.most_rolls_left();
    let keep = |n: u8| match n {
        1 => "keep, 1 roll left".to_string(),
        n => format!("keep, {n} rolls left"),
    };
    if !rules.saved_rolls() {
        return (rules.rolls_left_in_turn())
            .map(|n| match n {
                0 => "box".to_string(),
                n => keep(n),
            })
            .collect();
    }
    let mut names = vec![format!("keep, over {most} rolls left (saved)")];
    names.extend((1..=most).rev().map(keep));
    names.push("box, rolls left (saving them)".to_string());
    names.push("box, no roll left".to_string());
    names
}

/// The place among [`kinds`] of a decision of `kind` (`keep` or `score`) with `left` rolls
/// left.
fn kind_of(rules: &Rules, kind: &str, left: u8) -> usize {
    let most = rules.most_rolls_left();
    if !rules.saved_rolls() {
        return usize::from(most - left.min(most));
    }
    match (kind, left) {
        ("keep", l) if l > most => 0,
        ("keep", l) => 1 + usize::from(most - l),
        (_, 0) => usize::from(most) + 2,
        _ => usize::from(most) + 1,
    }
}

/// Rates the players of `records` (games of the rules of `table`), calling `progress` with
/// the records done so far.
pub fn rate(
    table: &StrategyTable,
    records: &[GameRecord],
    progress: &dyn Fn(usize),
) -> Result<Rating, RatingError> {
    let rules = *table.rules();
    check_records(&rules, records)?;
    rate_with(
        rules,
        table.expected_score(),
        records,
        progress,
        &mut |record| Ok(review(table, record)?),
        &mut |position| Ok(advise(table, position)?.options.swap_remove(0).action),
    )
}

/// [`rate`] for records of a game of saved rolls, with the table of saved rolls of `tables`
/// (of the records' rules; built when missing, read a card at a time): every decision priced
/// as [`review_saved`] prices it, saving against spending, and the expected score measured
/// against the optimal expected score under saved rolls.
pub fn rate_saved(
    tables: &TableSet,
    records: &[GameRecord],
    progress: &dyn Fn(usize),
) -> Result<Rating, RatingError> {
    let rules = *tables.rules();
    check_records(&rules, records)?;
    let mut cards = SavedCards::default();
    let start = cards.for_card(tables, 0).map_err(ReviewError::from)?;
    let optimal = start
        .expected_score()
        .expect("the table holds the empty card");
    rate_with(
        rules,
        optimal,
        records,
        progress,
        &mut |record| Ok(review_saved(tables, record)?),
        &mut |position| {
            let table = cards.for_card(tables, position.card.filled());
            let table = table.map_err(ReviewError::from)?;
            let advice = crate::policy::saved::advise(&table, position)
                .map_err(|e| ReviewError::from(PricingError::from(e)))?;
            Ok(advice.options.into_iter().next().expect("an option").action)
        },
    )
}

/// Refuses no record, or a record of other rules than `rules`.
fn check_records(rules: &Rules, records: &[GameRecord]) -> Result<(), RatingError> {
    let rules = *rules;
    if records.is_empty() {
        return Err(RatingError::NoRecords);
    }
    if let Some((i, r)) = (records.iter().enumerate()).find(|(_, r)| r.game.rules() != rules) {
        return Err(RatingError::Rules {
            index: i + 1,
            expected: rules.label(),
            got: r.game.rules().label(),
        });
    }
    Ok(())
}

/// The rating of the players of `records` (checked to be games of `rules`), each priced by
/// `price`, the habits named against the best option of a position by `best`, the expected
/// score measured against `optimal_score`.
fn rate_with(
    rules: Rules,
    optimal_score: f64,
    records: &[GameRecord],
    progress: &dyn Fn(usize),
    price: &mut dyn FnMut(&GameRecord) -> Result<Review, RatingError>,
    best: &mut dyn FnMut(&Position) -> Result<Action, RatingError>,
) -> Result<Rating, RatingError> {
    let turns = rules.box_count() as u32;
    // The early game's last turn and the late game's first (a card of fewer than nine boxes,
    // from a rules file, has a short or no middle game).
    let early_end = STAGE_TURNS.min(turns);
    let late_start = (turns.saturating_sub(STAGE_TURNS) + 1).max(early_end + 1);
    let mut order: Vec<String> = Vec::new();
    let mut players: BTreeMap<String, Tallies> = BTreeMap::new();
    let kinds = kinds(&rules);
    for (done, record) in records.iter().enumerate() {
        let priced = price(record)?;
        let mut games: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
        for ((_, decision), d) in record.decisions.iter().zip(&priced.decisions) {
            if !players.contains_key(&d.player) {
                order.push(d.player.clone());
            }
            let p = players.entry(d.player.clone()).or_insert_with(|| Tallies {
                by_kind: vec![(0, 0, 0.0); kinds.len()],
                ..Tallies::default()
            });
            p.kind
                .get_or_insert(record.game.seats()[decision.seat].kind);
            let game = games.entry(&d.player).or_default();
            game.0 += d.loss;
            game.1 += 1.0;
            p.decisions += 1;
            let lost = d.loss > 0.0;
            p.suboptimal += usize::from(lost);
            let kind = kind_of(&rules, d.kind, d.rolls_left);
            let stage = match d.turn {
                t if t <= early_end => 0,
                t if t >= late_start => 2,
                _ => 1,
            };
            for (tally, i) in [(&mut p.by_kind[..], kind), (&mut p.by_stage[..], stage)] {
                tally[i].0 += 1;
                tally[i].1 += usize::from(lost);
                tally[i].2 += d.loss;
            }
            if lost {
                let key = habit(&rules, decision.choice, &best(&decision.position)?);
                let h = p.habits.entry(key).or_default();
                h.0 += 1;
                h.1 += d.loss;
            }
        }
        let complete = record.game.is_over();
        for review in &priced.players {
            if let Some(&(loss, decisions)) = games.get(review.player.as_str()) {
                let score = complete.then_some(review.score);
                let p = players
                    .get_mut(&review.player)
                    .expect("a player of a decision");
                p.games.push((loss, decisions, score));
            }
        }
        progress(done + 1);
    }
    let span = |first: u32, last: u32| match first.cmp(&last) {
        std::cmp::Ordering::Less => format!("turns {first}-{last}"),
        std::cmp::Ordering::Equal => format!("turn {first}"),
        std::cmp::Ordering::Greater => "no turn".to_string(),
    };
    let stages = [
        format!("early game ({})", span(1, early_end)),
        format!("middle game ({})", span(early_end + 1, late_start - 1)),
        format!("late game ({})", span(late_start, turns)),
    ];
    let losses = |names: &[String], tallies: &[(usize, usize, f64)]| -> Vec<KindLoss> {
        names
            .iter()
            .zip(tallies)
            .map(|(kind, &(decisions, suboptimal, total_loss))| KindLoss {
                kind: kind.clone(),
                decisions,
                suboptimal,
                total_loss,
                mean_loss: if decisions > 0 {
                    total_loss / decisions as f64
                } else {
                    0.0
                },
            })
            .collect()
    };
    let players = order
        .into_iter()
        .map(|name| {
            let p = &players[&name];
            let complete: Vec<(f64, u32)> = (p.games.iter())
                .filter_map(|&(loss, _, score)| Some((loss, score?)))
                .collect();
            let per_game = (!complete.is_empty())
                .then(|| Estimate::mean_of(&complete.iter().map(|&(l, _)| l).collect::<Vec<_>>()));
            let mut habits: Vec<Habit> = (p.habits.iter())
                .map(|(habit, &(count, total_loss))| Habit {
                    habit: habit.clone(),
                    count,
                    total_loss,
                    mean_loss: total_loss / count as f64,
                })
                .collect();
            // Ties in cost: the more frequent first, then by name (the map's order, kept by
            // the stable sort).
            habits.sort_by(|a, b| {
                (b.total_loss.total_cmp(&a.total_loss)).then(b.count.cmp(&a.count))
            });
            habits.truncate(HABITS);
            PlayerRating {
                player: name.clone(),
                kind: p.kind.unwrap_or(SeatKind::Human),
                games: p.games.len(),
                complete_games: complete.len(),
                decisions: p.decisions,
                suboptimal: p.suboptimal,
                mean_score: (!complete.is_empty()).then(|| {
                    complete.iter().map(|&(_, s)| f64::from(s)).sum::<f64>() / complete.len() as f64
                }),
                loss_per_decision: Estimate::ratio_of(
                    &p.games.iter().map(|&(l, d, _)| (l, d)).collect::<Vec<_>>(),
                ),
                expected_score: per_game.as_ref().map(|e| e.subtracted_from(optimal_score)),
                rating: per_game.as_ref().map(|e| class(e.mean)),
                loss_per_game: per_game,
                by_kind: losses(&kinds, &p.by_kind),
                by_stage: losses(&stages, &p.by_stage),
                habits,
            }
        })
        .collect();
    Ok(Rating {
        rules,
        optimal_score,
        records: records.len(),
        players,
    })
}

/// An estimate as text: `12.3456  95% interval [11.0000, 13.6912]`.
fn estimate(e: &Estimate) -> String {
    match (e.low, e.high) {
        (Some(low), Some(high)) => format!("{:>10.4}  95% interval [{low:.4}, {high:.4}]", e.mean),
        _ => format!("{:>10.4}  (one game: no interval)", e.mean),
    }
}

/// The rating as text: each player's figures, losses by kind and stage, and habits.
pub fn render_rating(r: &Rating) -> String {
    let mut s = format!(
        "{}, {}: losses in expected points against optimal play (optimal expected score {:.4})\n",
        r.rules.label(),
        plural(r.records as u64, "record", "records"),
        r.optimal_score
    );
    for p in &r.players {
        s.push_str(&format!(
            "\n{}: {} ({} complete), {}, {} sub-optimal\n",
            p.player,
            plural(p.games as u64, "game", "games"),
            p.complete_games,
            plural(p.decisions as u64, "decision", "decisions"),
            p.suboptimal
        ));
        s.push_str(&format!(
            "  loss per decision {}\n",
            estimate(&p.loss_per_decision)
        ));
        if let (Some(game), Some(score), Some(rating)) =
            (&p.loss_per_game, &p.expected_score, p.rating)
        {
            s.push_str(&format!("  loss per game     {}\n", estimate(game)));
            s.push_str(&format!(
                "  expected score    {} (mean score of the games {:.2})\n",
                estimate(score),
                p.mean_score.unwrap_or(0.0)
            ));
            s.push_str(&format!(
                "  rating            {rating} (by the loss per game: {})\n",
                SCALE
                    .iter()
                    .map(|(bound, name)| match bound.is_finite() {
                        true => format!("{name} < {bound}"),
                        false => name.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        } else {
            s.push_str("  no complete game: no loss per game and no rating\n");
        }
        s.push_str(&format!(
            "\n  {:<30} {:>9} {:>11} {:>10} {:>9}\n",
            "decisions", "count", "sub-optimal", "total loss", "mean loss"
        ));
        for k in p.by_kind.iter().chain(&p.by_stage) {
            s.push_str(&format!(
                "  {:<30} {:>9} {:>11} {:>10.4} {:>9.4}\n",
                k.kind, k.decisions, k.suboptimal, k.total_loss, k.mean_loss
            ));
        }
        if !p.habits.is_empty() {
            s.push_str(&format!(
                "\n  {:<50} {:>6} {:>10} {:>9}\n",
                "costliest habits", "times", "total loss", "mean loss"
            ));
            for (i, h) in p.habits.iter().enumerate() {
                s.push_str(&format!(
                    "  {}. {:<47} {:>6} {:>10.4} {:>9.4}\n",
                    i + 1,
                    h.habit,
                    h.count,
                    h.total_loss,
                    h.mean_loss
                ));
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_covers_every_loss() {
        assert_eq!(class(0.0), "master");
        assert_eq!(class(5.0), "strong");
        assert_eq!(class(63.9), "novice");
        assert_eq!(class(1e9), "beginner");
        assert!(SCALE.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn intervals_of_games() {
        let e = Estimate::mean_of(&[1.0, 3.0]);
        assert_eq!(e.mean, 2.0);
        assert_eq!(e.standard_error, Some(1.0));
        assert_eq!((e.low, e.high), (Some(2.0 - 1.96), Some(2.0 + 1.96)));
        assert_eq!(Estimate::mean_of(&[4.0]).low, None);
        // Games of equal length: the ratio is the mean per decision of the games' means.
        let r = Estimate::ratio_of(&[(2.0, 2.0), (6.0, 2.0)]);
        let m = Estimate::mean_of(&[1.0, 3.0]);
        assert_eq!(r.mean, m.mean);
        assert!((r.standard_error.unwrap() - m.standard_error.unwrap()).abs() < 1e-12);
        // No loss at all: a point.
        let z = Estimate::ratio_of(&[(0.0, 30.0), (0.0, 31.0)]);
        assert_eq!((z.mean, z.low, z.high), (0.0, Some(0.0), Some(0.0)));
    }
}
