//! Exact events and joint figures of a game under the optimal policy, from the forward pass
//! of the exact distribution ([`super::exact_joint_from`]), not from a pass of their own.
//!
//! **Events** are indicators of a whole game, each reported as its exact probability; they
//! come from the rules' description, never from a game's name:
//!
//! - for each box that scores a pattern of the dice (a straight, or all the dice of one face:
//!   Yahtzee's five of a kind, Maxi Yatzy's six): *rolled*, the dice showing after some roll
//!   of some turn (the opening roll or a re-roll, kept or not, scored or not) score in that box
//!   by its own condition, no Joker;
//! - with a five-of-a-kind box: *scored*, the box filled with its points (50) or a
//!   five-of-a-kind bonus earned;
//! - with an upper bonus: the bonus earned.
//!
//! An event of a roll needs the turn's forward pass to know whether a roll seen in the turn
//! showed it. The policy does not depend on that, so the mass of the turn's ways in which no
//! roll showed the event moves as the whole mass does: a lane of the same forward pass whose
//! rolls showing the event are set to 0 each time dice land
//! ([`crate::solve::forward::outcome_chances_marked`]). Across turns each state carries, beside
//! the chance of reaching it, the chance of reaching it with each event not yet happened:
//! a turn moves it by the chance of each way the turn ends with the event still not seen.
//!
//! **Covariances**: each state carries, for each row (each box, then the upper bonus and the
//! five-of-a-kind bonuses, where the rules have them), `E[points of the row so far; state
//! reached]`. A turn that adds `d` points to rows `a` (its box, and a bonus) adds
//! `P · (d_a · m_b + d_b · m_a + d_a · d_b · reach)` to each cross moment `E[X_a X_b]`, and the
//! carried sums move as the points do. At the end the covariance of two rows is their cross
//! moment less the product of their means, and the sum of every entry is the variance of
//! the final score.

use serde::Serialize;

use super::TurnEvent;
use super::distribution::{Part, Tally};
use crate::game::dice::Dice;
use crate::game::rules::{Rules, Scoring};
use crate::game::state::ScoreCard;

/// What a game event indicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Some roll showed what box `.0` scores by its own condition.
    Rolled(usize),
    /// The five-of-a-kind box filled with its points, or a five-of-a-kind bonus earned.
    Scored,
    /// The upper bonus earned.
    UpperBonus,
}

/// A row of the covariance matrix: a box, or a bonus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Row {
    Box(usize),
    UpperBonus,
    YahtzeeBonus,
}

/// The events and rows of a rule set: what the forward pass carries beside the points.
#[derive(Clone, Debug)]
pub struct Spec {
    rules: Rules,
    /// The events: those of a roll first.
    events: Vec<Kind>,
    /// For each event of a roll, the roll offsets that show it.
    marks: Vec<Vec<u16>>,
    rows: Vec<Row>,
}

impl Spec {
    /// The events and rows of `rules`.
    pub fn of(rules: &Rules) -> Spec {
        let mut events = Vec::new();
        let mut marks = Vec::new();
        let rolls: Vec<Dice> = rules.dice().all_rolls().collect();
        for (index, category) in rules.boxes().iter().enumerate() {
            if matches!(
                category.scoring,
                Scoring::Straight { .. } | Scoring::FiveOfAKind { .. }
            ) {
                events.push(Kind::Rolled(index));
                marks.push(
                    (rolls.iter().enumerate())
                        .filter(|(_, d)| rules.base_score(index, d) > 0)
                        .map(|(r, _)| r as u16)
                        .collect(),
                );
            }
        }
        if rules.five_of_a_kind_box().is_some() {
            events.push(Kind::Scored);
        }
        if rules.has_upper_bonus() {
            events.push(Kind::UpperBonus);
        }
        let mut rows: Vec<Row> = (0..rules.box_count()).map(Row::Box).collect();
        if rules.has_upper_bonus() {
            rows.push(Row::UpperBonus);
        }
        if rules.has_yahtzee_bonus() {
            rows.push(Row::YahtzeeBonus);
        }
        Spec {
            rules: *rules,
            events,
            marks,
            rows,
        }
    }

    /// For each event of a roll, the roll offsets that show it.
    pub(crate) fn marks(&self) -> &[Vec<u16>] {
        &self.marks
    }

    /// The names of the events of a roll, in order (`BOX-rolled`).
    pub fn rolled_names(&self) -> Vec<String> {
        (self.events[..self.marks.len()].iter())
            .map(|k| describe(&self.rules, *k).0)
            .collect()
    }

    /// The events of a roll each roll shows, by roll offset: bit `e` for the `e`-th (the first
    /// eight), as a simulation counts them.
    pub(crate) fn roll_bits(&self) -> Vec<u8> {
        let mut bits = vec![0u8; self.rules.dice().rolls()];
        for (e, rolls) in self.marks.iter().enumerate().take(8) {
            for &r in rolls {
                bits[usize::from(r)] |= 1 << e;
            }
        }
        bits
    }

    /// What a state carries: the chance of reaching it (carried as the rest is, so that no
    /// histogram is summed for it), the chance of each event not yet happened, then each
    /// row's expected points so far, both on reaching the state.
    pub(crate) fn width(&self) -> usize {
        1 + self.events.len() + self.rows.len()
    }

    /// Where the rows start in what a state carries.
    fn rows_at(&self) -> usize {
        1 + self.events.len()
    }

    /// What the start of a game from `card` carries, reached for sure: every event of a roll
    /// still to come (the rolls before the card are not known), the others not yet happened
    /// unless the card holds them; no row's points yet (the card's own are constants,
    /// [`JointTally::new`]).
    pub(crate) fn start(&self, card: &ScoreCard) -> Vec<f64> {
        let mut carry = vec![0.0; self.width()];
        carry[0] = 1.0;
        for (e, kind) in self.events.iter().enumerate() {
            let happened = match kind {
                Kind::Rolled(_) => false,
                Kind::Scored => {
                    let rules = card.rules();
                    card.yahtzee_bonuses() > 0
                        || rules
                            .five_of_a_kind_box()
                            .is_some_and(|b| card.points(b) == Some(rules.five_of_a_kind_points()))
                }
                Kind::UpperBonus => card.has_upper_bonus(),
            };
            carry[1 + e] = if happened { 0.0 } else { 1.0 };
        }
        carry
    }

    /// The points `event` adds to each row it touches (its box, and its bonuses): the first
    /// of the three returned (row, points) pairs, as many as the count.
    fn increments(&self, event: &TurnEvent) -> ([(usize, f64); 3], usize) {
        let rules = &self.rules;
        let mut out = [(0, 0.0); 3];
        let mut n = 0;
        for (i, row) in self.rows.iter().enumerate() {
            let d = match row {
                Row::Box(b) if usize::from(event.box_index) == *b => u32::from(event.points),
                Row::UpperBonus if event.bonuses.upper => rules.upper_bonus_points(),
                Row::YahtzeeBonus if event.bonuses.yahtzee => rules.yahtzee_bonus_points(),
                _ => continue,
            };
            out[n] = (i, f64::from(d));
            n += 1;
        }
        (out, n)
    }

    /// The chance of `event`'s way of ending the turn with game event `e` (not one of a roll)
    /// not happening in it.
    fn unseen_by_outcome(&self, e: usize, event: &TurnEvent) -> f64 {
        let happens = match self.events[e] {
            Kind::Rolled(_) => unreachable!("an event of a roll comes from the rolls"),
            Kind::Scored => {
                super::fills_fifty(
                    &self.rules,
                    usize::from(event.box_index),
                    u32::from(event.points),
                ) || event.bonuses.yahtzee
            }
            Kind::UpperBonus => event.bonuses.upper,
        };
        if happens { 0.0 } else { event.probability }
    }

    /// Adds to `to` what a state carrying `from` carries on by `event` (whose turn ended with
    /// each event of a roll unseen with chances `unseen`).
    pub(crate) fn carry_on(&self, to: &mut [f64], from: &[f64], event: &TurnEvent, unseen: &[f64]) {
        let p = event.probability;
        let reach = from[0];
        to[0] += p * reach;
        let r = self.marks.len();
        for e in 0..self.events.len() {
            let u = if e < r {
                unseen[e]
            } else {
                self.unseen_by_outcome(e, event)
            };
            to[1 + e] += u * from[1 + e];
        }
        let rows = self.rows_at();
        for i in 0..self.rows.len() {
            to[rows + i] += p * from[rows + i];
        }
        let (increments, n) = self.increments(event);
        for &(i, d) in &increments[..n] {
            to[rows + i] += p * d * reach;
        }
    }
}

/// The sums of a pass that the joint figures are read from.
#[derive(Clone, Debug)]
pub struct JointTally {
    spec: Spec,
    /// `cross[a * rows + b]`: `E[X_a X_b]` of what the pass adds, over the games, summed with
    /// Neumaier's compensation (`compensation`): millions of small terms whose plain sum
    /// would lose about 1e-9 of the variance of the final score (about 3,553 for Yahtzee).
    cross: Vec<f64>,
    compensation: Vec<f64>,
    /// What the last states carry, summed: their chance (1, to rounding), each event's
    /// chance of not having happened and each row's mean.
    last: Vec<f64>,
    /// Each row's points fixed before the start (the card's).
    constants: Vec<f64>,
}

impl JointTally {
    /// Nothing tallied yet, for games from `card`, whose boxes and bonuses are constants.
    pub(crate) fn new(spec: &Spec, card: &ScoreCard) -> JointTally {
        let rules = &spec.rules;
        let constants = spec
            .rows
            .iter()
            .map(|row| {
                f64::from(match row {
                    Row::Box(b) => card.points(*b).unwrap_or(0),
                    Row::UpperBonus => {
                        u32::from(card.has_upper_bonus()) * rules.upper_bonus_points()
                    }
                    Row::YahtzeeBonus => card.yahtzee_bonuses() * rules.yahtzee_bonus_points(),
                })
            })
            .collect();
        let rows = spec.rows.len();
        JointTally {
            spec: spec.clone(),
            cross: vec![0.0; rows * rows],
            compensation: vec![0.0; rows * rows],
            last: vec![0.0; spec.width()],
            constants,
        }
    }

    /// Adds the cross moments of the turn of a state carrying `from`, ending in `events`.
    pub(crate) fn add_turn(&mut self, from: &[f64], events: &[TurnEvent]) {
        let rows = self.spec.rows.len();
        let reach = from[0];
        let m = &from[self.spec.rows_at()..];
        for event in events {
            let p = event.probability;
            let (increments, n) = self.spec.increments(event);
            let increments = &increments[..n];
            for &(a, da) in increments {
                for (b, &mb) in m.iter().enumerate().take(rows) {
                    let x = p * da * mb;
                    self.add(a * rows + b, x);
                    self.add(b * rows + a, x);
                }
                for &(b, db) in increments {
                    self.add(a * rows + b, p * da * db * reach);
                }
            }
        }
    }

    /// Adds `x` to the cross moment at `i`, compensated (Neumaier).
    #[inline]
    fn add(&mut self, i: usize, x: f64) {
        let s = self.cross[i];
        let t = s + x;
        self.compensation[i] += if s.abs() >= x.abs() {
            (s - t) + x
        } else {
            (x - t) + s
        };
        self.cross[i] = t;
    }

    /// Adds a last state (a full card) carrying `carry`.
    pub(crate) fn add_last(&mut self, carry: &[f64]) {
        for (s, &c) in self.last.iter_mut().zip(carry) {
            *s += c;
        }
    }

    /// The figures of the games, with the parts of `tally` (the distribution of the same
    /// pass) for the joint table of the upper bonus and the five-of-a-kind box.
    pub fn figures(&self, tally: &Tally) -> JointFigures {
        let spec = &self.spec;
        let rules = &spec.rules;
        let total = self.last[0];
        let events = spec
            .events
            .iter()
            .enumerate()
            .map(|(e, kind)| {
                let (name, meaning) = describe(rules, *kind);
                EventFigure {
                    name,
                    meaning,
                    // +0.0: never print -0.
                    probability: (1.0 - self.last[1 + e] / total).max(0.0) + 0.0,
                }
            })
            .collect();
        let n = spec.rows.len();
        let at = spec.rows_at();
        let added: Vec<f64> = (0..n).map(|a| self.last[at + a] / total).collect();
        let means: Vec<f64> = (0..n).map(|a| added[a] + self.constants[a]).collect();
        // The constants move the means, not the covariances.
        let matrix: Vec<Vec<f64>> = (0..n)
            .map(|a| {
                (0..n)
                    .map(|b| {
                        let cross = self.cross[a * n + b] + self.compensation[a * n + b];
                        cross / total - added[a] * added[b]
                    })
                    .collect()
            })
            .collect();
        let correlation = (0..n)
            .map(|a| {
                (0..n)
                    .map(|b| {
                        let scale = (matrix[a][a] * matrix[b][b]).sqrt();
                        if scale > 0.0 {
                            matrix[a][b] / scale
                        } else {
                            0.0
                        }
                    })
                    .collect()
            })
            .collect();
        let part = |upper_bonus: bool, fifty: bool| -> f64 {
            let mass: f64 = tally.parts[Part { upper_bonus, fifty }.index()]
                .iter()
                .sum();
            mass / tally.total()
        };
        let bonus_by_five_of_a_kind = match rules.five_of_a_kind_box() {
            Some(b) if rules.has_upper_bonus() => Some(BonusByFiveOfAKind {
                five_of_a_kind_box: rules.boxes()[b].name(),
                both: part(true, true),
                bonus_only: part(true, false),
                five_of_a_kind_only: part(false, true),
                neither: part(false, false),
            }),
            _ => None,
        };
        JointFigures {
            events,
            covariance: Covariance {
                rows: spec.rows.iter().map(|r| row_name(rules, *r)).collect(),
                means,
                matrix,
                correlation,
            },
            bonus_by_five_of_a_kind,
        }
    }
}

/// A name for each event and what it means exactly.
fn describe(rules: &Rules, kind: Kind) -> (String, String) {
    match kind {
        Kind::Rolled(b) => {
            let name = rules.boxes()[b].name();
            (
                format!("{name}-rolled"),
                format!(
                    "the dice showing after some roll (an opening roll or a re-roll, kept or not) score in {name} by its own condition ({})",
                    rules.boxes()[b].scoring.describe(rules.dice().dice())
                ),
            )
        }
        Kind::Scored => {
            let b = rules.five_of_a_kind_box().expect("a five-of-a-kind box");
            let name = rules.boxes()[b].name();
            let bonus = if rules.has_yahtzee_bonus() {
                format!(
                    ", or a {}-point bonus for a further one earned",
                    rules.yahtzee_bonus_points()
                )
            } else {
                String::new()
            };
            (
                format!("{name}-scored"),
                format!(
                    "{name} filled with its {} points{bonus}",
                    rules.five_of_a_kind_points()
                ),
            )
        }
        Kind::UpperBonus => (
            "upper-bonus".to_string(),
            format!(
                "the upper boxes total {} or more (the {}-point bonus)",
                rules.upper_threshold(),
                rules.upper_bonus_points()
            ),
        ),
    }
}

fn row_name(rules: &Rules, row: Row) -> String {
    match row {
        Row::Box(b) => rules.boxes()[b].name().to_string(),
        Row::UpperBonus => "upper-bonus".to_string(),
        Row::YahtzeeBonus => "yahtzee-bonuses".to_string(),
    }
}

/// One event of a game and its exact probability.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EventFigure {
    /// Its name: `BOX-rolled`, `BOX-scored`, `upper-bonus`.
    pub name: String,
    /// What it means exactly.
    pub meaning: String,
    /// The chance that a game has it (from the start: a card's own boxes and bonuses count,
    /// rolls before the start are not known and do not).
    pub probability: f64,
}

/// The covariance of the final points of every row: each box, the upper bonus and the
/// five-of-a-kind bonuses. The sum of every entry of `matrix` is the variance of the final
/// score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Covariance {
    /// The rows (and columns), in order: the boxes in card order, then `upper-bonus` and
    /// `yahtzee-bonuses` where the rules have them.
    pub rows: Vec<String>,
    /// The mean final points of each row.
    pub means: Vec<f64>,
    /// `matrix[a][b]`: the covariance of the final points of rows `a` and `b` (a variance on
    /// the diagonal).
    pub matrix: Vec<Vec<f64>>,
    /// The correlations (0 where a row's points are fixed).
    pub correlation: Vec<Vec<f64>>,
}

/// The joint table of the upper bonus and the five-of-a-kind box: the chance of each of the
/// four combinations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BonusByFiveOfAKind {
    /// The five-of-a-kind box.
    pub five_of_a_kind_box: &'static str,
    /// The upper bonus and the box's points.
    pub both: f64,
    /// The upper bonus, the box 0.
    pub bonus_only: f64,
    /// No upper bonus, the box's points.
    pub five_of_a_kind_only: f64,
    /// Neither.
    pub neither: f64,
}

/// The exact events and joint figures of the games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JointFigures {
    /// Each event of the rules, with its probability.
    pub events: Vec<EventFigure>,
    /// The covariances of the rows' final points.
    pub covariance: Covariance,
    /// The joint table of the upper bonus and the five-of-a-kind box (absent unless the rules
    /// have both).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bonus_by_five_of_a_kind: Option<BonusByFiveOfAKind>,
}

impl JointFigures {
    /// The probability of the event named `name`.
    pub fn event(&self, name: &str) -> Option<f64> {
        self.events
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.probability)
    }
}
