//! Scope `--all-states`: the value of every reachable turn-start state ([`StateRow`]), full
//! cards included, in layout order and rendered a chunk at a time; under saved rolls, of
//! every reachable state with each number of rolls saved it can have ([`SavedStateRow`]),
//! by the same writer.

use std::io::{self, Write};

use serde::Serialize;

use super::{Format, Meta, Row, VISIT_NOTE, exporter, round, rules_title};
use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{State, reachable_states};
use crate::tables::expected::StrategyTable;
use crate::tables::saved::SavedTable;

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

/// The value of one reachable turn-start state of a game of saved rolls with some rolls
/// saved before its turn (scope `--all-states` under saved rolls): a [`StateRow`] with the
/// column `saved`, and without the visit probability, which is not computed under saved rolls
/// (its forward pass would carry the rolls saved beside each state).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SavedStateRow {
    /// Filled boxes as a bit mask, as in [`DecisionRow::filled`](super::DecisionRow::filled).
    pub filled: BoxMask,
    /// Upper-section total, capped at the bonus threshold.
    pub upper: u8,
    /// True when the Yahtzee box holds 50.
    pub yahtzee_50: bool,
    /// Number of filled boxes (turns played).
    pub turns_played: u32,
    /// The rolls saved before this turn: 0 to the game's re-rolls a turn times the turns
    /// played. The turn has the game's re-rolls and these.
    pub saved: u8,
    /// Expected points still to come from this state with these rolls saved under optimal
    /// play (0 for a full card): [`SavedTable::value`].
    pub expected_remaining: f64,
}

impl Row for SavedStateRow {
    const COLUMNS: &'static [&'static str] = &[
        "filled",
        "upper",
        "yahtzee_50",
        "turns_played",
        "saved",
        "expected_remaining",
    ];
    const TITLES: &'static [&'static str] = &[
        "filled",
        "upper",
        "Yahtzee 50",
        "turns played",
        "rolls saved",
        "expected remaining",
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
    let meta = Meta::of(
        table,
        format!("Value of every reachable state: {}", rules_title(rules)),
        vec![
            format!(
                "Expected points still to come from each turn-start state under optimal play; a new game is worth {:.4}.",
                table.expected_score()
            ),
            VISIT_NOTE.to_string(),
        ],
    );
    write_states(rules, &meta, format, out, |s, rows| {
        rows.push(StateRow {
            filled: s.filled,
            upper: s.upper,
            yahtzee_50: s.yahtzee_50,
            turns_played: s.turns_played(),
            expected_remaining: round(table.value(s)),
            visit_probability: visit(s),
        });
    })
}

/// Writes the value of every reachable turn-start state of a game of saved rolls with each
/// number of rolls saved it can have (scope `--all-states` under saved rolls: the values the
/// table of saved rolls holds, each once), the states in layout order and the rolls saved
/// ascending within a state, and returns the number of rows
/// ([`saved_value_count`](crate::tables::saved::saved_value_count)). `table` must be whole.
pub fn write_saved_state_values(
    table: &SavedTable,
    format: Format,
    out: &mut dyn Write,
) -> io::Result<u64> {
    assert!(table.is_whole(), "the whole table of saved rolls");
    let rules = table.rules();
    let meta = Meta::of_saved(
        table,
        format!(
            "Value of every reachable state and number of rolls saved: {}",
            rules_title(rules)
        ),
        vec![
            format!(
                "Expected points still to come from each turn-start state with the rolls saved before its turn (`saved`: the turn has the game's {} re-rolls and those) under optimal play; a new game is worth {:.4}.",
                rules.most_rolls_left(),
                table.expected_score().expect("the whole table")
            ),
            "Each state is listed once for each number of rolls saved it can have: 0 to the game's re-rolls a turn times the turns played. The chance of reaching a state is not computed under saved rolls, so there is no visit probability.".to_string(),
        ],
    );
    write_states(rules, &meta, format, out, |s, rows| {
        let turns_played = s.turns_played();
        for saved in 0..=rules.most_saved_rolls(turns_played as usize) {
            rows.push(SavedStateRow {
                filled: s.filled,
                upper: s.upper,
                yahtzee_50: s.yahtzee_50,
                turns_played,
                saved: saved as u8,
                expected_remaining: round(
                    table
                        .value(s, saved)
                        .expect("the table holds every reachable state"),
                ),
            });
        }
    })
}

/// The writer of the scope `--all-states`: `meta`, then the rows `rows_of` appends for each
/// reachable turn-start state of `rules` (full cards included), in layout order, rendered a
/// chunk of states at a time. Returns the number of rows.
fn write_states<R: Row>(
    rules: &Rules,
    meta: &Meta,
    format: Format,
    out: &mut dyn Write,
    rows_of: impl Fn(&State, &mut Vec<R>),
) -> io::Result<u64> {
    let exporter = exporter::<R>(format);
    let mut buf = Vec::new();
    exporter.begin(meta, &mut buf);
    exporter.table(None, &mut buf);
    out.write_all(&buf)?;
    let states: Vec<State> = reachable_states(rules).collect();
    let mut written = 0u64;
    let mut rows = Vec::new();
    // Chunks keep memory flat: a few thousand states rendered at a time.
    for chunk in states.chunks(4096) {
        rows.clear();
        for s in chunk {
            rows_of(s, &mut rows);
        }
        buf.clear();
        exporter.rows(&rows, &mut buf)?;
        out.write_all(&buf)?;
        written += rows.len() as u64;
    }
    Ok(written)
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
        assert_row_columns(&SavedStateRow {
            filled: 0,
            upper: 0,
            yahtzee_50: false,
            turns_played: 0,
            saved: 0,
            expected_remaining: 1.0,
        });
    }
}
