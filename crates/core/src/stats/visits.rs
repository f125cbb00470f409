//! Visit probabilities: the chance that a game played by a policy from an empty card starts a
//! turn in each turn-start state (full cards included: the chance of ending the game there).
//!
//! They come from the forward passes that compute the exact distributions, not from a pass
//! of their own: the mass a state gathers there, summed over the points banked, is the chance
//! of reaching it ([`super::visit_probabilities`] for the expected-score policy,
//! [`super::target_visit_probabilities`] for the target policy). Every game starts one turn
//! at each depth (number of filled boxes), so the chances of the states of one depth add up
//! to 1 ([`Visits::by_depth`]), and weighting each state's turn by its chance gives the
//! figures of the whole game: so "how often does optimal play do X" is counted in games, not
//! in states.

use crate::game::rules::Rules;
use crate::game::state::{Layout, State, reachable_states};

/// The chance of reaching each turn-start state of a rule set under one policy.
#[derive(Clone, Debug, PartialEq)]
pub struct Visits {
    rules: Rules,
    layout: Layout,
    /// By the state's index in the table layout ([`Layout::index`]).
    probability: Vec<f64>,
}

impl Visits {
    /// No state reached yet.
    pub(crate) fn new(rules: &Rules) -> Visits {
        let layout = Layout::of(rules);
        Visits {
            rules: *rules,
            layout,
            probability: vec![0.0; layout.len()],
        }
    }

    /// Adds the chance `p` of reaching `state`.
    pub(crate) fn add(&mut self, state: &State, p: f64) {
        self.probability[self.layout.index(state)] += p;
    }

    /// The rules of the states.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The chance of reaching `state` at the start of a turn (0 for a state no game of the
    /// policy reaches, or one no game can reach).
    pub fn of(&self, state: &State) -> f64 {
        self.probability[self.layout.index(state)]
    }

    /// The chance of every reachable state, in the order of
    /// [`crate::game::state::reachable_states`]: the order of the rows of `yahtzee export
    /// --all-states` (by filled boxes, then the bonus flag, then the upper total).
    pub fn in_state_order(&self) -> Vec<f64> {
        reachable_states(&self.rules).map(|s| self.of(&s)).collect()
    }

    /// The chances of the states of each depth (number of filled boxes, 0 to the number of
    /// boxes) summed: each is 1, to rounding, as every game starts one turn at each depth.
    pub fn by_depth(&self) -> Vec<f64> {
        let mut depth = vec![0.0; self.rules.box_count() + 1];
        for s in reachable_states(&self.rules) {
            depth[s.turns_played() as usize] += self.of(&s);
        }
        depth
    }
}
