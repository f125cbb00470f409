//! Scope `--all-states`: the value of every reachable turn-start state ([`StateRow`]), full
//! cards included, in layout order and rendered a chunk at a time.

use std::io::{self, Write};

use serde::Serialize;

use super::{Format, Meta, Row, VISIT_NOTE, exporter, round, rules_title};
use crate::game::rules::BoxMask;
use crate::game::state::{State, reachable_states};
use crate::tables::expected::StrategyTable;

/// The value of one reachable turn-start state.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StateRow {
    /// Filled boxes as a bit mask, as in [`DecisionRow::filled`](super::DecisionRow::filled).
    pub filled: BoxMask,
    /// Upper-section total, capped at 63.
    pub upper: u8,
    /// True when the Yahtzee box holds 50.
    pub yahtzee_50: bool,
    /// Number of filled boxes (turns played).
    pub turns_played: u32,
    /// Expected points still to come from this state under optimal play (0 for a full card).
    pub expected_remaining: f64,
    /// The chance that a game played by the optimal policy from an empty card starts a turn
    /// in this state (for a full card: ends in it), unrounded; those of one `turns_played`
    /// add up to 1 (the visits of the statistics' forward pass).
    pub visit_probability: f64,
}

impl Row for StateRow {
    const COLUMNS: &'static [&'static str] = &[
        "filled",
        "upper",
        "yahtzee_50",
        "turns_played",
        "expected_remaining",
        "visit_probability",
    ];
    const TITLES: &'static [&'static str] = &[
        "filled",
        "upper",
        "Yahtzee 50",
        "turns played",
        "expected remaining",
        "visit probability",
    ];
    const ROUNDED: &'static [&'static str] = &["expected_remaining"];
}

/// Writes the value of every reachable turn-start state (scope `--all-states`), with the
/// chance that optimal play reaches it (`visit`, of the policy of `table`: the statistics'
/// `visit_probabilities`), and returns the number of rows.
pub fn write_state_values(
    table: &StrategyTable,
    visit: &(dyn Fn(&State) -> f64 + Sync),
    format: Format,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let rules = table.rules();
    let exporter = exporter::<StateRow>(format);
    let mut buf = Vec::new();
    exporter.begin(
        &Meta::of(
            table,
            format!("Value of every reachable state: {}", rules_title(rules)),
            vec![
                format!(
                    "Expected points still to come from each turn-start state under optimal play; a new game is worth {:.4}.",
                    table.expected_score()
                ),
                VISIT_NOTE.to_string(),
            ],
        ),
        &mut buf,
    );
    exporter.table(None, &mut buf);
    out.write_all(&buf)?;
    let states: Vec<State> = reachable_states(rules).collect();
    // Chunks keep memory flat: a few thousand rows rendered at a time.
    for chunk in states.chunks(4096) {
        let rows: Vec<StateRow> = chunk
            .iter()
            .map(|s| StateRow {
                filled: s.filled,
                upper: s.upper,
                yahtzee_50: s.yahtzee_50,
                turns_played: s.turns_played(),
                expected_remaining: round(table.value(s)),
                visit_probability: visit(s),
            })
            .collect();
        buf.clear();
        exporter.rows(&rows, &mut buf)?;
        out.write_all(&buf)?;
    }
    Ok(states.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tests::assert_row_columns;

    #[test]
    fn columns_match_the_serialized_fields() {
        assert_row_columns(&StateRow {
            filled: 0,
            upper: 0,
            yahtzee_50: false,
            turns_played: 0,
            expected_remaining: 1.0,
            visit_probability: 1.0,
        });
    }
}
