//! The distribution of the final score of a game and the figures read from it.
//!
//! A [`Tally`] holds the mass of every outcome that matters for the statistics: each final
//! score, each (box, points) pair, the upper bonus and the number of Yahtzee bonuses. The exact
//! computation ([`crate::stats`]) fills it with probabilities, the simulation
//! ([`crate::stats::simulate`]) with counts of games; [`Summary::of`] reads the same figures from
//! either, so both commands report exactly the same things in the same formats.

use std::path::Path;

use serde::Serialize;

use crate::game::rules::Rules;

/// The percentiles reported besides the median.
pub const PERCENTILES: [f64; 8] = [1.0, 5.0, 10.0, 25.0, 75.0, 90.0, 95.0, 99.0];

/// The default thresholds `t` of P(score >= t).
pub const THRESHOLDS: [u32; 6] = [200, 250, 300, 350, 400, 500];

/// Mass (probability or count of games) of each outcome of a game.
#[derive(Clone, Debug, PartialEq)]
pub struct Tally {
    /// `score[s]`: mass of the final score `s`.
    pub score: Vec<f64>,
    /// `boxes[i][p]`: mass of games ending with box `i` (card order) holding `p` points.
    pub boxes: Vec<Vec<f64>>,
    /// Mass of games that earned the upper bonus.
    pub upper_bonus: f64,
    /// `yahtzee_bonuses[k]`: mass of games that earned `k` Yahtzee bonuses.
    pub yahtzee_bonuses: Vec<f64>,
    /// `parts[Part::index]`: the final-score mass of the games of each [`Part`], as
    /// `score`; all empty when the computation does not tell the parts apart (the target
    /// policy's distribution).
    pub parts: [Vec<f64>; 4],
    /// `rolled[e]`: mass of the games in which some roll showed the `e`-th event of a roll
    /// ([`crate::stats::events::Spec::rolled_names`]); counted by simulations (the exact pass
    /// reports the events in its joint figures, [`crate::stats::exact_joint_from`]), empty
    /// otherwise.
    pub rolled: Vec<f64>,
}

/// The part of the games a final score belongs to: whether the game earned the upper bonus
/// and whether its five-of-a-kind box holds its points (50), the two events that shape the
/// distribution of the final score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// The game earned the upper bonus.
    pub upper_bonus: bool,
    /// The five-of-a-kind box holds its points (50), not 0.
    pub fifty: bool,
}

impl Part {
    /// Its place in [`Tally::parts`].
    pub fn index(self) -> usize {
        2 * usize::from(self.upper_bonus) + usize::from(self.fifty)
    }

    /// The part at `index` of [`Tally::parts`].
    pub fn at(index: usize) -> Part {
        Part {
            upper_bonus: index >= 2,
            fifty: index % 2 == 1,
        }
    }
}

impl Tally {
    /// An empty tally for the boxes of `rules`.
    pub fn new(rules: &Rules) -> Tally {
        Tally {
            score: Vec::new(),
            boxes: vec![Vec::new(); rules.box_count()],
            upper_bonus: 0.0,
            yahtzee_bonuses: Vec::new(),
            parts: Default::default(),
            rolled: Vec::new(),
        }
    }

    /// Adds a game whose rolls showed the events of a roll of the bits of `rolled` (bit `e`:
    /// the `e`-th), and none of the others.
    pub fn add_rolled(&mut self, rolled: u8) {
        for e in 0..8 {
            if rolled & (1 << e) != 0 {
                add_at(&mut self.rolled, e, 1.0);
            }
        }
    }

    /// Adds `mass` to the final score `score` of the games of `part` (besides
    /// [`Tally::add_score`], which counts every game).
    pub fn add_part(&mut self, part: Part, score: u32, mass: f64) {
        add_at(&mut self.parts[part.index()], score as usize, mass);
    }

    /// Adds `mass` to the final score `score`.
    pub fn add_score(&mut self, score: u32, mass: f64) {
        add_at(&mut self.score, score as usize, mass);
    }

    /// Adds `mass` to box `index` holding `points`.
    pub fn add_box(&mut self, index: usize, points: u32, mass: f64) {
        add_at(&mut self.boxes[index], points as usize, mass);
    }

    /// Adds `mass` to games with `count` Yahtzee bonuses.
    pub fn add_yahtzee_bonuses(&mut self, count: usize, mass: f64) {
        add_at(&mut self.yahtzee_bonuses, count, mass);
    }

    /// Adds every mass of `other` to this tally.
    pub fn merge(&mut self, other: &Tally) {
        for (s, &m) in other.score.iter().enumerate() {
            add_at(&mut self.score, s, m);
        }
        for (mine, theirs) in self.boxes.iter_mut().zip(&other.boxes) {
            for (p, &m) in theirs.iter().enumerate() {
                add_at(mine, p, m);
            }
        }
        self.upper_bonus += other.upper_bonus;
        for (k, &m) in other.yahtzee_bonuses.iter().enumerate() {
            add_at(&mut self.yahtzee_bonuses, k, m);
        }
        for (mine, theirs) in self.parts.iter_mut().zip(&other.parts) {
            for (s, &m) in theirs.iter().enumerate() {
                add_at(mine, s, m);
            }
        }
        for (e, &m) in other.rolled.iter().enumerate() {
            add_at(&mut self.rolled, e, m);
        }
    }

    /// The mass of the final scores of at least `score` (games, or probability): `0`, never
    /// `-0`, when there is none (a float sum of nothing is `-0`, printed as such).
    pub fn mass_at_least(&self, score: u32) -> f64 {
        self.score.iter().skip(score as usize).sum::<f64>() + 0.0
    }

    /// Total mass: 1 for a distribution, the number of games for a simulation.
    pub fn total(&self) -> f64 {
        self.score.iter().sum()
    }

    /// The final-score distribution as (score, probability) pairs of nonzero probability,
    /// ascending.
    pub fn pmf(&self) -> Vec<(u32, f64)> {
        let total = self.total();
        self.score
            .iter()
            .enumerate()
            .filter(|&(_, &m)| m > 0.0)
            .map(|(s, &m)| (s as u32, m / total))
            .collect()
    }

    /// Writes the whole distribution as CSV (`score,probability`, every score from the lowest
    /// to the highest with nonzero probability) to `path`, through a temporary file renamed
    /// into place.
    pub fn write_pmf_csv(&self, path: &Path) -> std::io::Result<()> {
        let pmf = self.pmf();
        let mut text = String::from("score,probability\n");
        if let (Some(&(lo, _)), Some(&(hi, _))) = (pmf.first(), pmf.last()) {
            let total = self.total();
            for s in lo..=hi {
                // 17 significant digits: the probabilities read back bit for bit.
                text.push_str(&format!("{s},{:.16e}\n", self.score[s as usize] / total));
            }
        }
        crate::files::write_atomically(path, text.as_bytes())
    }
}

fn add_at(v: &mut Vec<f64>, i: usize, mass: f64) {
    if v.len() <= i {
        v.resize(i + 1, 0.0);
    }
    v[i] += mass;
}

/// One percentile of the final score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Percentile {
    /// Percent, 1 to 99.
    pub percent: f64,
    /// Smallest score `s` with P(score <= s) >= percent / 100.
    pub score: u32,
}

/// One threshold of P(score >= t).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AtLeast {
    /// The threshold `t`.
    pub score: u32,
    /// Probability of a final score of `t` or more.
    pub probability: f64,
    /// Its 95% interval, for a share of simulated games ([`Interval::wilson`]; absent for
    /// an exact distribution).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
}

/// What one box contributes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoxSummary {
    /// The box, named as on the command line.
    pub name: String,
    /// Mean points in the box at the end of the game.
    pub mean: f64,
    /// Probability that the box ends with 0.
    pub zero_probability: f64,
    /// Its 95% interval, for a share of simulated games (absent for an exact distribution).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zero_interval: Option<Interval>,
}

/// The upper bonus.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UpperBonusSummary {
    /// Probability of earning the 35-point upper bonus.
    pub probability: f64,
    /// Its 95% interval, for a share of simulated games (absent for an exact distribution).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// Mean points from the upper bonus (35 x probability).
    pub mean: f64,
}

/// The Yahtzee box and the 100-point Yahtzee bonuses.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct YahtzeeBonusSummary {
    /// Mean number of Yahtzee bonuses in a game.
    pub mean_count: f64,
    /// Mean points from Yahtzee bonuses (100 x mean count).
    pub mean: f64,
    /// `count_probability[k]`: probability of exactly `k` Yahtzee bonuses.
    pub count_probability: Vec<f64>,
    /// Their 95% intervals, for shares of simulated games (absent for an exact
    /// distribution).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count_intervals: Option<Vec<Interval>>,
}

/// A 95% confidence interval of a share of games.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    /// Lower end.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// How the intervals of shares of simulated games are computed, as reports state it.
pub const INTERVAL_METHOD: &str = "95% Wilson score interval (z = 1.96) of each share of the games";

impl Interval {
    /// The Wilson score interval at 95% (z = 1.96) of the share `successes / n`: unlike the
    /// share +- 1.96 standard errors it stays within 0 and 1 and does not shrink to a point
    /// when no game, or every game, succeeds. A success may count a fraction (a shared win):
    /// the interval then errs on the wide side. `[0, 1]` without games.
    pub fn wilson(successes: f64, n: f64) -> Interval {
        if n == 0.0 {
            return Interval {
                low: 0.0,
                high: 1.0,
            };
        }
        let share = successes / n;
        let z2 = 1.96f64 * 1.96;
        let centre = (share + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = 1.96 * (share * (1.0 - share) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
        // Exactly 0 with no success and 1 with every game (rounding leaves 1e-19 there), and
        // never past the share itself.
        Interval {
            low: if share <= 0.0 {
                0.0
            } else {
                (centre - half).clamp(0.0, share)
            },
            high: if share >= 1.0 {
                1.0
            } else {
                (centre + half).clamp(share, 1.0)
            },
        }
    }
}

/// The shape of a distribution beyond its mean and spread: its third and fourth moments and
/// its tails.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Shape {
    /// Skewness: the third central moment over the cube of the standard deviation (0 for a
    /// symmetric distribution; positive with a long right tail).
    pub skewness: f64,
    /// Excess kurtosis: the fourth central moment over the fourth power of the standard
    /// deviation, less 3 (0 for a normal distribution).
    pub excess_kurtosis: f64,
    /// The mean of the worst 5% of the games (conditional value at risk at 5%, the lower
    /// tail): the games below the 5th percentile, and the share of the games at it that makes
    /// up 5%.
    pub cvar_5: f64,
    /// The mean of the best 5% of the games, likewise.
    pub top_5_mean: f64,
}

/// One part of the games: those with the upper bonus or without, with 50 in the
/// five-of-a-kind box or 0, or both (see [`Part`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PartSummary {
    /// The games with (`true`) or without the upper bonus; absent when the part does not
    /// depend on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upper_bonus: Option<bool>,
    /// The points the five-of-a-kind box holds in the games of the part (50 or 0); absent
    /// when the part does not depend on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub five_of_a_kind: Option<u32>,
    /// The share of the games in the part.
    pub probability: f64,
    /// Its 95% interval, for a share of simulated games (absent for an exact distribution).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// The mean final score of the part's games (0 for a part without games).
    pub mean: f64,
    /// The standard deviation of their final score.
    pub std_dev: f64,
}

/// The distribution split by the upper bonus and by the five-of-a-kind box: each split's
/// parts hold every game once, so their probabilities add up to 1 and their means, weighted
/// by them, to the mean.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Split {
    /// By the upper bonus: earned, not earned (empty without an upper bonus).
    pub upper_bonus: Vec<PartSummary>,
    /// By the five-of-a-kind box: 50, 0 (empty without such a box).
    pub five_of_a_kind: Vec<PartSummary>,
    /// By both: the four sub-populations (empty unless the rules have both an upper bonus
    /// and a five-of-a-kind box).
    pub joint: Vec<PartSummary>,
    /// The name of the five-of-a-kind box (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub five_of_a_kind_box: Option<&'static str>,
}

/// The figures of a final-score distribution.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Mean final score.
    pub mean: f64,
    /// Standard deviation of the final score (of the distribution itself; for a simulation,
    /// of the games played, with the number of games as divisor).
    pub std_dev: f64,
    /// Median final score: the 50th percentile.
    pub median: u32,
    /// Percentiles 1, 5, 10, 25, 75, 90, 95, 99.
    pub percentiles: Vec<Percentile>,
    /// Lowest final score with nonzero probability.
    pub min: u32,
    /// Highest final score with nonzero probability.
    pub max: u32,
    /// P(score >= t) for each threshold asked for.
    pub at_least: Vec<AtLeast>,
    /// Each box, in card order.
    pub boxes: Vec<BoxSummary>,
    /// The upper bonus; absent in rule sets without one.
    pub upper_bonus: Option<UpperBonusSummary>,
    /// Probability that the five-of-a-kind box (Yahtzee, or Yacht) holds 50.
    pub fifty_probability: f64,
    /// Its 95% interval, for a share of simulated games (absent for an exact distribution).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fifty_interval: Option<Interval>,
    /// The Yahtzee bonuses; absent in rule sets without them.
    pub yahtzee_bonuses: Option<YahtzeeBonusSummary>,
    /// Skewness, kurtosis and the tails.
    pub shape: Shape,
    /// The distribution split by the upper bonus and the five-of-a-kind box; absent when
    /// the computation does not tell the parts apart (the target policy's distribution).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<Split>,
}

impl Summary {
    /// Reads the figures of `tally` under `rules`, with P(score >= t) for each of
    /// `thresholds`. The tally must not be empty.
    pub fn of(rules: &Rules, tally: &Tally, thresholds: &[u32]) -> Summary {
        let total = tally.total();
        let pmf = tally.pmf();
        let moments = Moments::of(&pmf);
        let mean = moments.mean;
        let percentile = |percent: f64| -> u32 {
            // A sum of probabilities can fall a rounding short of the exact cumulative; a
            // tolerance far below any real probability step keeps `P <= s` exact.
            let target = percent / 100.0 - 1e-12;
            let mut cumulative = 0.0;
            for &(s, p) in &pmf {
                cumulative += p;
                if cumulative >= target {
                    return s;
                }
            }
            pmf.last().map_or(0, |&(s, _)| s)
        };
        let at_least = thresholds
            .iter()
            .map(|&t| AtLeast {
                score: t,
                // A fold from +0.0: an empty float `sum` is -0.0, printed "-0.0000".
                probability: pmf
                    .iter()
                    .filter(|&&(s, _)| s >= t)
                    .fold(0.0, |a, &(_, p)| a + p),
                interval: None,
            })
            .collect();
        let boxes = rules
            .boxes()
            .iter()
            .zip(&tally.boxes)
            .map(|(category, mass)| BoxSummary {
                name: category.name().to_string(),
                mean: mass
                    .iter()
                    .enumerate()
                    .map(|(p, &m)| p as f64 * m)
                    .sum::<f64>()
                    / total,
                zero_probability: mass.first().copied().unwrap_or(0.0) / total,
                zero_interval: None,
            })
            .collect();
        let fifty_probability = rules.five_of_a_kind_box().map_or(0.0, |b| {
            tally.boxes[b]
                .get(rules.five_of_a_kind_points() as usize)
                .copied()
                .unwrap_or(0.0)
                / total
        });
        let upper_bonus = rules.has_upper_bonus().then(|| {
            let probability = tally.upper_bonus / total;
            UpperBonusSummary {
                probability,
                interval: None,
                mean: f64::from(rules.upper_bonus_points()) * probability,
            }
        });
        let yahtzee_bonuses = rules.has_yahtzee_bonus().then(|| {
            let count_probability: Vec<f64> =
                tally.yahtzee_bonuses.iter().map(|&m| m / total).collect();
            let mean_count = count_probability
                .iter()
                .enumerate()
                .map(|(k, &p)| k as f64 * p)
                .sum::<f64>();
            YahtzeeBonusSummary {
                mean_count,
                mean: f64::from(rules.yahtzee_bonus_points()) * mean_count,
                count_probability,
                count_intervals: None,
            }
        });
        let (cvar_5, top_5_mean) = tail_means(&pmf, 0.05);
        Summary {
            mean,
            std_dev: moments.std_dev(),
            median: percentile(50.0),
            percentiles: PERCENTILES
                .iter()
                .map(|&percent| Percentile {
                    percent,
                    score: percentile(percent),
                })
                .collect(),
            min: pmf.first().map_or(0, |&(s, _)| s),
            max: pmf.last().map_or(0, |&(s, _)| s),
            at_least,
            boxes,
            upper_bonus,
            fifty_probability,
            fifty_interval: None,
            yahtzee_bonuses,
            shape: Shape {
                skewness: moments.skewness(),
                excess_kurtosis: moments.excess_kurtosis(),
                cvar_5,
                top_5_mean,
            },
            split: Split::of(rules, tally),
        }
    }

    /// [`Summary::of`] the games of a simulation, each share with its 95% interval
    /// ([`Interval::wilson`], [`INTERVAL_METHOD`]).
    pub fn of_games(rules: &Rules, tally: &Tally, thresholds: &[u32]) -> Summary {
        let mut s = Summary::of(rules, tally, thresholds);
        let n = tally.total();
        let interval = |p: f64| Some(Interval::wilson(p * n, n));
        for a in &mut s.at_least {
            a.interval = interval(a.probability);
        }
        for b in &mut s.boxes {
            b.zero_interval = interval(b.zero_probability);
        }
        if let Some(u) = &mut s.upper_bonus {
            u.interval = interval(u.probability);
        }
        s.fifty_interval = interval(s.fifty_probability);
        if let Some(y) = &mut s.yahtzee_bonuses {
            y.count_intervals = Some(
                y.count_probability
                    .iter()
                    .map(|&p| Interval::wilson(p * n, n))
                    .collect(),
            );
        }
        if let Some(split) = &mut s.split {
            for part in split
                .upper_bonus
                .iter_mut()
                .chain(&mut split.five_of_a_kind)
                .chain(&mut split.joint)
            {
                part.interval = interval(part.probability);
            }
        }
        s
    }
}

/// The central moments of a distribution given as (score, probability) pairs.
struct Moments {
    mean: f64,
    /// The second, third and fourth central moments.
    m2: f64,
    m3: f64,
    m4: f64,
}

impl Moments {
    fn of(pmf: &[(u32, f64)]) -> Moments {
        let mean = pmf.iter().map(|&(s, p)| f64::from(s) * p).sum::<f64>();
        let (mut m2, mut m3, mut m4) = (0.0, 0.0, 0.0);
        for &(s, p) in pmf {
            let d = f64::from(s) - mean;
            let d2 = d * d;
            m2 += d2 * p;
            m3 += d2 * d * p;
            m4 += d2 * d2 * p;
        }
        Moments { mean, m2, m3, m4 }
    }

    fn std_dev(&self) -> f64 {
        self.m2.sqrt()
    }

    /// 0 for a distribution without spread (a single score), where it is undefined.
    fn skewness(&self) -> f64 {
        if self.m2 > 0.0 {
            self.m3 / self.m2.powf(1.5)
        } else {
            0.0
        }
    }

    fn excess_kurtosis(&self) -> f64 {
        if self.m2 > 0.0 {
            self.m4 / (self.m2 * self.m2) - 3.0
        } else {
            0.0
        }
    }
}

/// The mean of the lowest `alpha` of the probability of `pmf` (ascending scores) and that of
/// the highest: whole scores while they fit, then the share of the next score that makes up
/// `alpha`.
fn tail_means(pmf: &[(u32, f64)], alpha: f64) -> (f64, f64) {
    let tail = |scores: &mut dyn Iterator<Item = &(u32, f64)>| {
        let (mut mass, mut sum) = (0.0, 0.0);
        for &(s, p) in scores {
            let take = p.min(alpha - mass);
            if take <= 0.0 {
                break;
            }
            mass += take;
            sum += take * f64::from(s);
        }
        if mass > 0.0 { sum / mass } else { 0.0 }
    };
    (tail(&mut pmf.iter()), tail(&mut pmf.iter().rev()))
}

impl Split {
    /// The split of the games of `tally` (`None` when its parts were not counted).
    fn of(rules: &Rules, tally: &Tally) -> Option<Split> {
        let total = tally.total();
        let counted: f64 = tally.parts.iter().flatten().sum();
        if total <= 0.0 || counted <= 0.0 {
            return None;
        }
        let part = |parts: &[Part], upper: Option<bool>, five: Option<bool>| {
            let mut mass: Vec<f64> = Vec::new();
            for p in parts {
                for (s, &m) in tally.parts[p.index()].iter().enumerate() {
                    add_at(&mut mass, s, m);
                }
            }
            let weight: f64 = mass.iter().sum();
            let pmf: Vec<(u32, f64)> = mass
                .iter()
                .enumerate()
                .filter(|&(_, &m)| m > 0.0)
                .map(|(s, &m)| (s as u32, m / weight))
                .collect();
            let moments = Moments::of(&pmf);
            PartSummary {
                upper_bonus: upper,
                five_of_a_kind: five.map(|f| if f { rules.five_of_a_kind_points() } else { 0 }),
                probability: weight / total,
                interval: None,
                mean: moments.mean,
                std_dev: moments.std_dev(),
            }
        };
        let with = |upper: bool, fifty: bool| Part {
            upper_bonus: upper,
            fifty,
        };
        let has_bonus = rules.has_upper_bonus();
        let has_fifty = rules.five_of_a_kind_box().is_some();
        Some(Split {
            upper_bonus: if has_bonus {
                [true, false]
                    .iter()
                    .map(|&u| part(&[with(u, true), with(u, false)], Some(u), None))
                    .collect()
            } else {
                Vec::new()
            },
            five_of_a_kind: if has_fifty {
                [true, false]
                    .iter()
                    .map(|&f| part(&[with(true, f), with(false, f)], None, Some(f)))
                    .collect()
            } else {
                Vec::new()
            },
            joint: if has_bonus && has_fifty {
                [(true, true), (true, false), (false, true), (false, false)]
                    .iter()
                    .map(|&(u, f)| part(&[with(u, f)], Some(u), Some(f)))
                    .collect()
            } else {
                Vec::new()
            },
            five_of_a_kind_box: rules.five_of_a_kind_box().map(|b| rules.boxes()[b].name()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::RuleSet;

    #[test]
    fn summary_of_a_small_distribution() {
        let rules = Rules::new(RuleSet::YACHT);
        let mut t = Tally::new(&rules);
        // Scores 10, 20, 30, 40 with probabilities 0.1, 0.4, 0.3, 0.2.
        for (s, p) in [(10, 0.1), (20, 0.4), (30, 0.3), (40, 0.2)] {
            t.add_score(s, p);
        }
        t.add_box(0, 0, 0.25);
        t.add_box(0, 4, 0.75);
        let s = Summary::of(&rules, &t, &[20, 35]);
        assert!((s.mean - 26.0).abs() < 1e-12);
        assert!((s.std_dev - 84f64.sqrt()).abs() < 1e-12);
        assert_eq!(s.median, 20);
        assert_eq!((s.min, s.max), (10, 40));
        assert_eq!(s.percentiles[0].score, 10); // 1%
        assert_eq!(s.percentiles[3].score, 20); // 25%
        assert_eq!(s.percentiles[4].score, 30); // 75%
        assert_eq!(s.percentiles[7].score, 40); // 99%
        assert!((s.at_least[0].probability - 0.9).abs() < 1e-12);
        assert!((s.at_least[1].probability - 0.2).abs() < 1e-12);
        assert!((s.boxes[0].mean - 3.0).abs() < 1e-12);
        assert!((s.boxes[0].zero_probability - 0.25).abs() < 1e-12);
        assert!(s.upper_bonus.is_none() && s.yahtzee_bonuses.is_none());
    }

    #[test]
    fn counts_and_probabilities_give_the_same_summary() {
        let rules = Rules::new(RuleSet::YAHTZEE);
        let mut counts = Tally::new(&rules);
        let mut probs = Tally::new(&rules);
        for (s, n) in [(150, 3.0), (250, 5.0), (400, 2.0)] {
            counts.add_score(s, n);
            probs.add_score(s, n / 10.0);
        }
        counts.add_yahtzee_bonuses(0, 8.0);
        counts.add_yahtzee_bonuses(1, 2.0);
        probs.add_yahtzee_bonuses(0, 0.8);
        probs.add_yahtzee_bonuses(1, 0.2);
        counts.upper_bonus = 6.0;
        probs.upper_bonus = 0.6;
        let a = Summary::of(&rules, &counts, &THRESHOLDS);
        let b = Summary::of(&rules, &probs, &THRESHOLDS);
        assert_eq!(a.median, b.median);
        assert!((a.mean - b.mean).abs() < 1e-9);
        let yb = a.yahtzee_bonuses.unwrap();
        assert!((yb.mean_count - 0.2).abs() < 1e-12);
        assert!((a.upper_bonus.unwrap().mean - 21.0).abs() < 1e-12);
    }
}
