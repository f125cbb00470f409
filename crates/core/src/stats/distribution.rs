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
}

impl Tally {
    /// An empty tally for the boxes of `rules`.
    pub fn new(rules: &Rules) -> Tally {
        Tally {
            score: Vec::new(),
            boxes: vec![Vec::new(); rules.box_count()],
            upper_bonus: 0.0,
            yahtzee_bonuses: Vec::new(),
        }
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
}

/// The upper bonus.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UpperBonusSummary {
    /// Probability of earning the 35-point upper bonus.
    pub probability: f64,
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
    /// The Yahtzee bonuses; absent in rule sets without them.
    pub yahtzee_bonuses: Option<YahtzeeBonusSummary>,
}

impl Summary {
    /// Reads the figures of `tally` under `rules`, with P(score >= t) for each of
    /// `thresholds`. The tally must not be empty.
    pub fn of(rules: &Rules, tally: &Tally, thresholds: &[u32]) -> Summary {
        let total = tally.total();
        let pmf = tally.pmf();
        let mean = pmf.iter().map(|&(s, p)| f64::from(s) * p).sum::<f64>();
        let variance = pmf
            .iter()
            .map(|&(s, p)| (f64::from(s) - mean).powi(2) * p)
            .sum::<f64>();
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
            }
        });
        Summary {
            mean,
            std_dev: variance.sqrt(),
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
            yahtzee_bonuses,
        }
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
