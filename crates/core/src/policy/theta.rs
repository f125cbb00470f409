//! Advice under an exponential utility of parameter θ ([`crate::solve::theta`]): every
//! option of a position ranked by its **certainty equivalent**, the sure final score worth
//! as much to a player of that θ as the game after the option.
//!
//! A θ table is a [`StrategyTable`] whose values are certainty equivalents, and whose turns
//! (the kernel's, through [`crate::solve::expected::ExpectedValues`]) give every keep's: the
//! expected score's advice ([`expected::advise`]) read from it ranks the options by them, by
//! the same tie rule, and its players, statistics and simulations follow the θ policy. This
//! file renames what that advice says: a certainty equivalent, not an expected score.

use serde::Serialize;

use crate::game::rules::Rules;
use crate::policy::expected::{self, Action, AdviceError, Position};
use crate::solve::theta::Theta;
use crate::tables::expected::StrategyTable;

/// One option of a position under a θ.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThetaOption {
    /// What the option does (`kind` and its fields in JSON).
    #[serde(flatten)]
    pub action: Action,
    /// The certainty equivalent of the final score after this choice, under the θ policy:
    /// `(1/θ)·ln E[e^(θ·final score)]`, the points on the card included.
    pub certainty_equivalent: f64,
    /// How much lower than the best option's certainty equivalent.
    pub loss: f64,
}

/// The options of one position under a θ, best first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThetaAdvice {
    /// The rules (serialized as `rules` and `upper_first`).
    #[serde(flatten)]
    pub rules: Rules,
    /// The parameter of the exponential utility: above 0 seeks risk, below avoids it.
    pub theta: Theta,
    /// Points already on the card, bonuses included.
    pub banked: u32,
    /// The dice, ascending.
    pub dice: Vec<u8>,
    /// Rolls left.
    pub rolls_left: u8,
    /// Every legal option, best first.
    pub options: Vec<ThetaOption>,
}

/// Advises on a position with the θ table of its rules (`table.theta()` is its θ; the
/// expected-score table is refused as a θ table by a panic: a caller's bug).
pub fn advise(table: &StrategyTable, position: &Position) -> Result<ThetaAdvice, AdviceError> {
    let theta = table
        .theta()
        .expect("θ advice reads a θ table, not the expected score's");
    let advice = expected::advise(table, position)?;
    Ok(ThetaAdvice {
        rules: advice.rules,
        theta,
        banked: advice.banked,
        dice: advice.dice,
        rolls_left: advice.rolls_left,
        options: advice
            .options
            .into_iter()
            .map(|o| ThetaOption {
                action: o.action,
                certainty_equivalent: o.expected_final,
                loss: o.loss,
            })
            .collect(),
    })
}
