//! The joint distribution of a box with the final score, and of two boxes, exact, under the
//! expected-score policy, from a new game or any position.
//!
//! One forward pass of the distribution ([`super::exact_distribution_from`]) per points a box
//! can end with, each following only the games whose box ends with those points: a turn
//! that fills the box with other points ends its mass there ([`super::Only`]). The policy is
//! the same in every pass; only which games are counted changes. Each pass's final scores
//! are then the joint mass of those points with every final score, and the passes' masses
//! add up to 1. A box filled on the starting card takes one pass that follows every game.
//!
//! Two boxes `A` and `B`: the pass of `A = a` counts each box filled after `A` with its
//! points, mass that holds only games with `A = a` (before `A` is filled, a state's mass still
//! holds games the pass drops later). So the pass of `A = a` gives `P(A = a, B = b, B filled
//! after A)`, the pass of `B = b` gives the same with `A` after `B`, and their sum is
//! `P(A = a, B = b)`. A box filled on the starting card counts as filled first (both filled:
//! their points, for sure).
//!
//! The passes run in parallel (each in parallel too); each is deterministic, so the result
//! is the same at any thread count.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use serde::Serialize;

use super::distribution::{Percentile, Summary, Tally};
use super::{JointError, Only, Start, distribution_from};
use crate::game::rules::Rules;
use crate::game::state::ScoreCard;
use crate::tables::expected::StrategyTable;

/// The games of each points a box can end with, from a start.
#[derive(Clone, Debug)]
pub struct BoxJoint {
    rules: Rules,
    index: usize,
    /// The points on the starting card, if the box is filled there.
    on_card: Option<u32>,
    /// The points the box ends with, ascending, each with the tally of its pass (see the
    /// module's text): its final scores are those of the games that end with them, its boxes
    /// those filled after this one. Points of no chance are left out.
    pub by_points: Vec<(u32, Tally)>,
}

/// The joint distribution of each of `boxes` of `table`'s rules with the final score, from
/// `start` (`None`: a new game): one pass per points a box can end with, every pass under one
/// progress (`progress(done, total)` counts the turns of every pass).
pub fn boxes_joint(
    table: &StrategyTable,
    start: Option<&Start>,
    boxes: &[usize],
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Vec<BoxJoint>, JointError> {
    let rules = *table.rules();
    if !rules.set.solves_in_seconds() {
        return Err(JointError::TooLarge(rules.label()));
    }
    let new_game = Start::Card(ScoreCard::new(rules));
    let start = start.unwrap_or(&new_game);
    let card = start.card();
    // Every pass: its box, and the points it follows (`None`: a box on the card, every game).
    let mut passes: Vec<(usize, Option<Only>)> = Vec::new();
    for &index in boxes {
        assert!(
            index < rules.box_count(),
            "box {index} of {}",
            rules.label()
        );
        match card.points(index) {
            Some(_) => passes.push((index, None)),
            None => passes.extend(
                (rules.possible_scores(index).iter())
                    .map(|&points| (index, Some(Only { index, points }))),
            ),
        }
    }
    let turns = u64::from(rules.box_count() as u32 - card.state().turns_played());
    let all = turns * passes.len() as u64;
    let done = AtomicU64::new(0);
    progress(0, all);
    let tallies: Vec<Tally> = passes
        .par_iter()
        .map(|&(_, only)| {
            let step = |d: u64, _: u64| {
                if d > 0 {
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1, all);
                }
            };
            distribution_from(table, start, None, only, &step).map(|(tally, _)| tally)
        })
        .collect::<Result<_, _>>()?;
    progress(all, all);
    let mut out: Vec<BoxJoint> = boxes
        .iter()
        .map(|&index| BoxJoint {
            rules,
            index,
            on_card: card.points(index),
            by_points: Vec::new(),
        })
        .collect();
    for ((index, only), tally) in passes.into_iter().zip(tallies) {
        let joint = (out.iter_mut())
            .find(|j| j.index == index)
            .expect("a pass of a box asked for");
        let points = only.map_or_else(|| joint.on_card.unwrap_or(0), |o| o.points);
        if tally.total() > 0.0 {
            joint.by_points.push((points, tally));
        }
    }
    Ok(out)
}

/// The figures of a [`BoxJoint`]: for each points of the box, their chance and the final
/// score of the games that end with them; the box's covariance and correlation with the
/// final score; the joint table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoxReport {
    /// The box's name.
    #[serde(rename = "box")]
    pub box_name: &'static str,
    /// Each points the box ends with (of nonzero chance), ascending.
    pub values: Vec<GivenPoints>,
    /// The covariance of the box's points and the final score.
    pub covariance_with_score: f64,
    /// Their correlation (0 when either does not vary).
    pub correlation_with_score: f64,
    /// `[points, score, probability]`: the joint distribution of the box's points and the
    /// final score, each pair of nonzero chance, by points then score.
    pub score_table: Vec<(u32, u32, f64)>,
}

/// The games whose box ends with some points, and their final score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GivenPoints {
    /// The points.
    pub points: u32,
    /// Their chance.
    pub probability: f64,
    /// The mean final score of the games that end with them.
    pub mean: f64,
    /// The standard deviation of their final score.
    pub std_dev: f64,
    /// Their median final score.
    pub median: u32,
    /// Their percentiles 1, 5, 10, 25, 75, 90, 95, 99.
    pub percentiles: Vec<Percentile>,
}

/// The joint distribution of two boxes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairReport {
    /// The two boxes' names.
    pub boxes: [&'static str; 2],
    /// `[points of the first, points of the second, probability]`, each pair of nonzero
    /// chance, by the first's points then the second's.
    pub table: Vec<(u32, u32, f64)>,
    /// The covariance of their points.
    pub covariance: f64,
    /// Their correlation (0 when either does not vary).
    pub correlation: f64,
}

/// What `stats --joint` reports: each box with the final score, and the two boxes' joint
/// distribution when two are given.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JointReport {
    /// Each box with the final score.
    pub boxes: Vec<BoxReport>,
    /// The two boxes together (absent for one box).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pair: Option<PairReport>,
}

/// The covariance and correlation of the pairs `(x, y, probability)`.
fn moments(table: &[(u32, u32, f64)]) -> (f64, f64) {
    let (mut x, mut y, mut xy, mut xx, mut yy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(a, b, p) in table {
        let (a, b) = (f64::from(a), f64::from(b));
        x += p * a;
        y += p * b;
        xy += p * a * b;
        xx += p * a * a;
        yy += p * b * b;
    }
    let covariance = xy - x * y;
    let (var_x, var_y) = (xx - x * x, yy - y * y);
    let correlation = if var_x > 0.0 && var_y > 0.0 {
        covariance / (var_x * var_y).sqrt()
    } else {
        0.0
    };
    (covariance, correlation)
}

impl BoxJoint {
    /// `[points, score, probability]` of each pair of nonzero chance.
    fn score_table(&self) -> Vec<(u32, u32, f64)> {
        let mut out = Vec::new();
        for (points, tally) in &self.by_points {
            for (s, &m) in tally.score.iter().enumerate() {
                if m > 0.0 {
                    out.push((*points, s as u32, m));
                }
            }
        }
        out
    }

    /// The figures of the box with the final score.
    pub fn report(&self) -> BoxReport {
        let score_table = self.score_table();
        let (covariance, correlation) = moments(&score_table);
        BoxReport {
            box_name: self.rules.boxes()[self.index].name(),
            values: (self.by_points.iter())
                .map(|(points, tally)| {
                    let mut scores = Tally::new(&self.rules);
                    scores.score.clone_from(&tally.score);
                    let given = Summary::of(&self.rules, &scores, &[]);
                    GivenPoints {
                        points: *points,
                        probability: tally.total(),
                        mean: given.mean,
                        std_dev: given.std_dev,
                        median: given.median,
                        percentiles: given.percentiles,
                    }
                })
                .collect(),
            covariance_with_score: covariance,
            correlation_with_score: correlation,
            score_table,
        }
    }

    /// The mass of the games with this box's `points` and `other`'s `q`, `other` filled after
    /// this box (see the module's text).
    fn after(&self, other: usize) -> impl Iterator<Item = (u32, u32, f64)> + '_ {
        self.by_points.iter().flat_map(move |(points, tally)| {
            (tally.boxes[other].iter().enumerate())
                .filter(|&(_, &m)| m > 0.0)
                .map(move |(q, &m)| (*points, q as u32, m))
        })
    }
}

/// The joint distribution of the boxes of `a` and `b` (two boxes of one start, not the same).
pub fn pair(a: &BoxJoint, b: &BoxJoint) -> PairReport {
    let mut cells: std::collections::BTreeMap<(u32, u32), f64> = Default::default();
    if let (Some(p), Some(q)) = (a.on_card, b.on_card) {
        // Both on the card: their points, for sure.
        cells.insert((p, q), 1.0);
    } else {
        // A box on the card: its one pass counts every fill of the other, and the other's
        // passes, following some games, count no box of the card.
        for (p, q, m) in a.after(b.index) {
            *cells.entry((p, q)).or_default() += m;
        }
        for (q, p, m) in b.after(a.index) {
            *cells.entry((p, q)).or_default() += m;
        }
    }
    let table: Vec<(u32, u32, f64)> = cells.into_iter().map(|((p, q), m)| (p, q, m)).collect();
    let (covariance, correlation) = moments(&table);
    let names = |j: &BoxJoint| j.rules.boxes()[j.index].name();
    PairReport {
        boxes: [names(a), names(b)],
        table,
        covariance,
        correlation,
    }
}

/// The report of `joints` (one box or two).
pub fn report(joints: &[BoxJoint]) -> JointReport {
    JointReport {
        boxes: joints.iter().map(BoxJoint::report).collect(),
        pair: match joints {
            [a, b] => Some(pair(a, b)),
            _ => None,
        },
    }
}

impl JointReport {
    /// Writes the joint tables as CSV (`first,first_points,second,second_points,probability`:
    /// a box and its points, then `score` and the final score or the other box and its
    /// points; one row per pair of nonzero chance, the probabilities to 17 significant
    /// digits) to `path`, through a temporary file renamed into place.
    pub fn write_csv(&self, path: &Path) -> std::io::Result<()> {
        let mut text = String::from("first,first_points,second,second_points,probability\n");
        let mut rows = |first: &str, second: &str, table: &[(u32, u32, f64)]| {
            for (p, q, m) in table {
                writeln!(text, "{first},{p},{second},{q},{m:.16e}").expect("a string takes text");
            }
        };
        for b in &self.boxes {
            rows(b.box_name, "score", &b.score_table);
        }
        if let Some(pair) = &self.pair {
            rows(pair.boxes[0], pair.boxes[1], &pair.table);
        }
        crate::files::write_atomically(path, text.as_bytes())
    }
}
