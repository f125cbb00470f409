//! The risk-sensitive objective: exponential (CARA) utility of the rest of the game's points,
//! `u(x) = sign(θ)·e^(θx)`, with a parameter θ ([`Theta`]): θ > 0 seeks risk, θ < 0 avoids
//! it, and θ → 0 is the expected score. A state's value is its **certainty equivalent**,
//! `CE = (1/θ)·ln E[e^(θX)]`, X the points still to come under the policy that maximises
//! the expected utility: the sure number of points worth as much to the player as the game.
//!
//! Points add up over the turns, so the Bellman equation has the expected score's shape: a
//! box on the last roll is worth its points, its bonus and the certainty equivalent of the
//! state it leads to; a decision takes the greatest certainty equivalent (the greatest
//! utility, u increasing); only a chance node differs, a log-sum-exp where the expected
//! score takes a mean. In the utility's own domain a chance node *is* a mean, so the solve is
//! the expected score's (`solve::expected`: its successors, lanes, plans and the
//! `f64` kernel, no copy of any), with each row of a card's plan mapped once made
//! ([`exponentiate`]) from points `x` to `sign(θ)·e^(θ(x - c))`, and each value the kernel
//! gives mapped back ([`Shift::certainty`]): `CE = c + ln(sign(θ)·u)/θ`. Every box holds its
//! points in its rows (`score_table_for`: none adds them to the kernel's row, since points
//! multiply a utility), so the kernel computes nothing but means and maxima, and a θ table
//! is solved by the expected score's copies of the kernel: no new copy is compiled.
//!
//! The shift `c` is one number per lane (per state), constant over its turn, chosen so that
//! no utility overflows and the mean stays far from the smallest `f64`: with θ > 0 the best
//! row of the lane (every utility at most 1, and the turn's mean at least the chance of the
//! best row's roll, 1/46,656 or more); with θ < 0 the best of the boxes' worst rows (a value
//! the turn is sure of whatever the dice, so the policy's utilities are at most 1, in
//! magnitude). A row the policy never takes may overflow to -∞, which no maximum chooses.
//! For |θ| up to [`Theta::MAX`] every value of the shipped games is a number; a game whose
//! points would leave `f64`'s range is refused after the solve ([`check_finite`]).

use std::fmt;

use serde::Serialize;

use crate::solve::kernel::{Plan, ScoreTable};

/// The parameter θ of the exponential utility: a number with `MIN ≤ |θ| ≤ MAX`, compared
/// and hashed by its bits (one table per θ).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Theta(f64);

/// Why a number is not a θ, with what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ThetaError {
    /// Not a finite number.
    #[error(
        "θ must be a number from -{max} to {max}, not 0, e.g. 0.07 (risk-seeking) or -0.03 (risk-averse), not `{0}`",
        max = Theta::MAX
    )]
    NotANumber(String),
    /// 0, or too close to 0 to differ from the expected score.
    #[error(
        "θ = {0} plays for the expected score: ask for the ordinary advice (leave θ out, or use the optimal policy); a risk-sensitive θ is at least {min} from 0",
        min = Theta::MIN
    )]
    Zero(String),
    /// Beyond ±[`Theta::MAX`].
    #[error(
        "θ = {0} is too large: θ must be from -{max} to {max} (the policy hardly changes beyond ±1)",
        max = Theta::MAX
    )]
    TooLarge(String),
}

impl Theta {
    /// The largest |θ|: beyond 1 the policy hardly changes (dlangk/yatzy's sweep), and 5
    /// keeps every shipped game's utilities inside `f64`'s range (see the module's notes).
    pub const MAX: f64 = 5.0;
    /// The smallest |θ|: below, the certainty equivalent is the expected score to within
    /// 1e-3 points, and its rounding (about 1e-16/θ a turn) grows.
    pub const MIN: f64 = 1e-6;

    /// `theta` if it is one.
    pub fn new(theta: f64) -> Result<Theta, ThetaError> {
        if !theta.is_finite() {
            return Err(ThetaError::NotANumber(theta.to_string()));
        }
        if theta.abs() < Theta::MIN {
            return Err(ThetaError::Zero(theta.to_string()));
        }
        if theta.abs() > Theta::MAX {
            return Err(ThetaError::TooLarge(theta.to_string()));
        }
        Ok(Theta(theta))
    }

    /// The number.
    pub fn value(self) -> f64 {
        self.0
    }

    /// θ with its sign, as in file names: `+0.07`, `-0.03`.
    pub fn signed(self) -> String {
        format!("{:+}", self.0)
    }

    /// The sign of the utility: 1 for θ > 0, -1 for θ < 0.
    fn sign(self) -> f64 {
        self.0.signum()
    }
}

impl Eq for Theta {}

impl std::hash::Hash for Theta {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

impl fmt::Display for Theta {
    /// The shortest decimal that reads back as θ: `0.07`, `-0.03`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::str::FromStr for Theta {
    type Err = ThetaError;

    /// A decimal number (spaces around ignored): `0.07`, `-0.03`, `+1e-2`.
    fn from_str(text: &str) -> Result<Theta, ThetaError> {
        let text = text.trim();
        let theta: f64 = text
            .parse()
            .map_err(|_| ThetaError::NotANumber(crate::text::excerpt(text)))?;
        Theta::new(theta)
    }
}

impl Serialize for Theta {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.0)
    }
}

/// The shift of each lane of a card's plan (see the module's notes) and how its utilities
/// map back to certainty equivalents.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shift {
    theta: f64,
    sign: f64,
    /// The shift of each lane.
    pub lanes: Vec<f64>,
}

impl Shift {
    /// The certainty equivalent of the utility `u` of lane `lane`.
    #[inline]
    pub fn certainty(&self, u: f64, lane: usize) -> f64 {
        self.lanes[lane] + (self.sign * u).ln() / self.theta
    }
}

/// Maps the rows of `plan` (points: a box's points and bonus and the certainty equivalent of
/// the state it leads to, the upper bonus held, lane by lane) to utilities,
/// `sign(θ)·e^(θ(x - c))`, `c` the lane's shift, kept in `shift`.
pub(crate) fn exponentiate(
    plan: &mut Plan<f64>,
    scores: &ScoreTable,
    theta: Theta,
    shift: &mut Shift,
) {
    let width = plan.width();
    shift.theta = theta.value();
    shift.sign = theta.sign();
    shift.lanes.clear();
    // The boxes with a row per points (all of them here), read beside the rows.
    let ranked = std::mem::take(&mut plan.ranked);
    {
        let rows = plan.rows_mut();
        let rows = &rows[..rows.len() - rows.len() % width];
        if theta.value() > 0.0 {
            // The best row of each lane: every utility at most 1.
            shift.lanes.resize(width, f64::NEG_INFINITY);
            for row in rows.chunks_exact(width) {
                for (c, &x) in shift.lanes.iter_mut().zip(row) {
                    *c = c.max(x);
                }
            }
        } else {
            // The best of the boxes' worst rows: what the turn is sure of.
            shift.lanes.resize(width, f64::NEG_INFINITY);
            for &(c, first) in &ranked {
                let n = scores.distinct[usize::from(c)].len();
                let first = usize::from(first);
                let mut worst = vec![f64::INFINITY; width];
                for row in rows[first * width..(first + n) * width].chunks_exact(width) {
                    for (w, &x) in worst.iter_mut().zip(row) {
                        *w = w.min(x);
                    }
                }
                for (s, w) in shift.lanes.iter_mut().zip(worst) {
                    *s = s.max(w);
                }
            }
            if ranked.is_empty() {
                shift.lanes.fill(0.0);
            }
        }
    }
    plan.ranked = ranked;
    let (t, sign) = (theta.value(), theta.sign());
    for row in plan.rows_mut().chunks_exact_mut(width) {
        for (x, &c) in row.iter_mut().zip(&shift.lanes) {
            *x = sign * (t * (*x - c)).exp();
        }
    }
}

/// `Ok` when every value of a solve is a number; else the one line that says θ is too large
/// for the game's points.
pub(crate) fn check_finite(values: &[f64], theta: Theta, game: &str) -> Result<(), String> {
    if values.iter().all(|v| v.is_finite()) {
        return Ok(());
    }
    Err(format!(
        "θ = {theta} is too large for the points of {game}: its utilities leave the range of 64-bit numbers; use a θ nearer 0"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theta_is_a_number_away_from_zero_and_not_too_large() {
        assert_eq!("0.07".parse::<Theta>().unwrap().value(), 0.07);
        assert_eq!(" -0.03 ".parse::<Theta>().unwrap().signed(), "-0.03");
        assert_eq!("0.07".parse::<Theta>().unwrap().signed(), "+0.07");
        for bad in ["0", "-0", "1e-7", "nan", "inf", "5.5", "-6", "x"] {
            let e = bad.parse::<Theta>().unwrap_err().to_string();
            assert!(!e.contains('\n'), "{e}");
            assert!(e.contains("θ"), "{bad}: {e}");
        }
        assert!(
            "0".parse::<Theta>()
                .unwrap_err()
                .to_string()
                .contains("ordinary advice")
        );
        assert!(Theta::new(5.0).is_ok() && Theta::new(-5.0).is_ok());
    }
}
