//! Scope `--all-states --policy`: the full policy, every decision of every reachable state
//! that still has an open box, streamed state by state in layout order. States are rendered
//! in parallel by chunks and written in order, a bounded window at a time; Markdown gives
//! each state its own table, titled by [`describe_state`]. Under saved rolls
//! ([`write_saved_policy`]), every decision of every state at each number of re-rolls left
//! its turns can have, by the same writer.

use std::io::{self, Write};

use rayon::prelude::*;

use super::{
    ACTION_NOTE, DecisionRow, FACED_NOTE, Filter, Format, Meta, SAVES_NOTE, TIE_NOTE, VISIT_NOTE,
    exporter, gap_note, rules_title, saved_state_rows, state_rows,
};
use crate::game::rules::Rules;
use crate::game::state::{State, reachable_states};
use crate::policy::saved::{SavedTurn, most_rerolls};
use crate::tables::expected::StrategyTable;
use crate::tables::saved::SavedTable;

/// States rendered per parallel task of [`write_policy`]: about 750 rows each, a few tens of
/// kilobytes, large enough to amortise the task and small enough to balance two cores.
const POLICY_CHUNK: usize = 16;
/// Chunks rendered before they are written: bounds the memory held (about 64 chunks of
/// 16 states, a few tens of megabytes) while keeping every thread busy.
const POLICY_WINDOW: usize = 64;
/// States rendered per parallel task of [`write_saved_policy`]: a state has up to 31 numbers
/// of re-rolls left in Yatzy (up to 41 in Maxi Yatzy) where it has 3 without saved rolls, so
/// two states make about as many rows as [`POLICY_CHUNK`] states do without, and the window
/// holds about as much.
const SAVED_POLICY_CHUNK: usize = 2;

/// Writes the full policy (scope `--all-states --policy`): every decision of every reachable
/// state that still has an open box, state by state in layout order. States are rendered in
/// parallel by chunks and written in order, so the output is the same at any thread count;
/// only a window of chunks is held in memory at a time. `visit(state)` is the chance that
/// optimal play reaches a state (the statistics' `visit_probabilities`), written beside each
/// of its decisions with the chance of facing the decision. `progress(done, total)` is called with states done. Returns the number
/// of rows.
pub fn write_policy(
    table: &StrategyTable,
    visit: &(dyn Fn(&State) -> f64 + Sync),
    filter: &Filter,
    format: Format,
    out: &mut dyn Write,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> io::Result<u64> {
    let rules = table.rules();
    let mut notes = vec![
        "Every decision of every reachable state; the expected column counts points from the decision on (no points banked).".to_string(),
        ACTION_NOTE.to_string(),
        TIE_NOTE.to_string(),
        VISIT_NOTE.to_string(),
        FACED_NOTE.to_string(),
    ];
    notes.extend(gap_note(filter));
    let meta = Meta::of(
        table,
        format!("Full optimal policy: {}", rules_title(rules)),
        notes,
    );
    let policy = Policy {
        rules,
        meta: &meta,
        format,
        chunk: POLICY_CHUNK,
        progress,
    };
    policy.write(out, |s, rows| {
        state_rows(table, s, 0.0, Some(visit(s)), filter, rows);
    })
}

/// Writes the full policy of a game of saved rolls (scope `--all-states --policy`): every
/// decision of every reachable state that still has an open box at each number of re-rolls
/// left its turn can have (from the game's re-rolls and the most rolls it can have saved,
/// [`most_rerolls`], down to 0), as [`write_policy`] writes the policy of other games. A
/// decision does not depend on the rolls saved before the turn, only on the re-rolls left:
/// a turn with `s` rolls saved starts at the game's re-rolls and `s`. No visit probability:
/// it is not computed under saved rolls. `table` must be whole. Returns the number of rows.
pub fn write_saved_policy(
    table: &SavedTable,
    filter: &Filter,
    format: Format,
    out: &mut dyn Write,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> io::Result<u64> {
    assert!(table.is_whole(), "the whole table of saved rolls");
    let rules = table.rules();
    let mut notes = vec![
        "Every decision of every reachable state at each number of re-rolls left its turn can have (the game's re-rolls and the rolls saved before the turn); the expected column counts points from the decision on (no points banked). A decision depends on the re-rolls left, not on the rolls saved before the turn: a turn with `s` rolls saved starts at the game's re-rolls and `s`.".to_string(),
        ACTION_NOTE.to_string(),
        SAVES_NOTE.to_string(),
        TIE_NOTE.to_string(),
        "The chance of reaching a state or facing a decision is not computed under saved rolls: those columns are empty.".to_string(),
    ];
    notes.extend(gap_note(filter));
    let meta = Meta::of_saved(
        table,
        format!("Full optimal policy: {}", rules_title(rules)),
        notes,
    );
    let policy = Policy {
        rules,
        meta: &meta,
        format,
        chunk: SAVED_POLICY_CHUNK,
        progress,
    };
    policy.write(out, |s, rows| {
        let most = most_rerolls(rules, s.filled.count_ones() as usize) as u8;
        // The turn's keeps are valued up to the re-rolls left written: with `--rolls-left`,
        // those alone (a state whose turns cannot have them has no row).
        let most = match filter.rolls_left {
            Some(r) if r > most => return,
            Some(r) => r,
            None => most,
        };
        let turn = SavedTurn::new(table, *s, usize::from(most));
        saved_state_rows(rules, &turn, s, most, 0.0, filter, rows);
    })
}

/// The writer of the full policy: the document, then the decisions of every reachable state
/// with an open box.
struct Policy<'a> {
    rules: &'a Rules,
    meta: &'a Meta,
    format: Format,
    /// States rendered per parallel task.
    chunk: usize,
    progress: &'a (dyn Fn(u64, u64) + Sync),
}

impl Policy<'_> {
    /// Writes `meta`, then the rows `rows_of` appends for each reachable state with an open
    /// box, state by state in layout order: rendered in parallel by chunks of states and
    /// written in order, a window of [`POLICY_WINDOW`] chunks at a time. Returns the number of
    /// rows.
    fn write(
        &self,
        out: &mut dyn Write,
        rows_of: impl Fn(&State, &mut Vec<DecisionRow>) + Sync,
    ) -> io::Result<u64> {
        let (rules, format) = (self.rules, self.format);
        let exporter = exporter::<DecisionRow>(format);
        let states: Vec<State> = reachable_states(rules)
            .filter(|s| s.filled != rules.full_mask())
            .collect();
        let mut buf = Vec::new();
        exporter.begin(self.meta, &mut buf);
        if format != Format::Markdown {
            exporter.table(None, &mut buf);
        }
        out.write_all(&buf)?;
        let total = states.len() as u64;
        let mut done = 0u64;
        let mut written = 0u64;
        for window in states.chunks(self.chunk * POLICY_WINDOW) {
            let rendered: Vec<io::Result<(Vec<u8>, u64)>> = window
                .par_chunks(self.chunk)
                .map(|chunk| {
                    let mut rows = Vec::new();
                    let mut bytes = Vec::new();
                    let mut count = 0;
                    for s in chunk {
                        rows.clear();
                        rows_of(s, &mut rows);
                        if format == Format::Markdown && !rows.is_empty() {
                            exporter.table(Some(&describe_state(rules, s)), &mut bytes);
                        }
                        exporter.rows(&rows, &mut bytes)?;
                        count += rows.len() as u64;
                    }
                    Ok((bytes, count))
                })
                .collect();
            for part in rendered {
                let (bytes, count) = part?;
                out.write_all(&bytes)?;
                written += count;
            }
            done += window.len() as u64;
            (self.progress)(done, total);
        }
        Ok(written)
    }
}

/// A state in words, for Markdown titles.
pub fn describe_state(rules: &Rules, s: &State) -> String {
    let names: Vec<&str> = rules
        .boxes()
        .iter()
        .enumerate()
        .filter(|(i, _)| s.filled & (1 << i) != 0)
        .map(|(_, c)| c.name())
        .collect();
    let mut text = format!(
        "filled {} ({})",
        s.filled,
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(" ")
        }
    );
    if rules.has_upper_bonus() {
        text.push_str(&format!(", upper {}", s.upper));
    }
    if rules.has_yahtzee_bonus() {
        text.push_str(&format!(", Yahtzee 50 {}", s.yahtzee_50));
    }
    text
}
