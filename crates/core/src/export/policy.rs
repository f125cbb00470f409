//! Scope `--all-states --policy`: the full policy, every decision of every reachable state
//! that still has an open box, streamed state by state in layout order. States are rendered
//! in parallel by chunks and written in order, a bounded window at a time; Markdown gives
//! each state its own table, titled by [`describe_state`].

use std::io::{self, Write};

use rayon::prelude::*;

use super::{
    ACTION_NOTE, DecisionRow, FACED_NOTE, Filter, Format, Meta, TIE_NOTE, VISIT_NOTE, exporter,
    gap_note, rules_title, state_rows,
};
use crate::game::rules::Rules;
use crate::game::state::{State, reachable_states};
use crate::tables::expected::StrategyTable;

/// States rendered per parallel task of [`write_policy`]: about 750 rows each, a few tens of
/// kilobytes, large enough to amortise the task and small enough to balance two cores.
const POLICY_CHUNK: usize = 16;
/// Chunks rendered before they are written: bounds the memory held (about 64 chunks of
/// 16 states, a few tens of megabytes) while keeping every thread busy.
const POLICY_WINDOW: usize = 64;

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
    let exporter = exporter::<DecisionRow>(format);
    let states: Vec<State> = reachable_states(rules)
        .filter(|s| s.filled != rules.full_mask())
        .collect();
    let mut buf = Vec::new();
    let mut notes = vec![
        "Every decision of every reachable state; the expected column counts points from the decision on (no points banked).".to_string(),
        ACTION_NOTE.to_string(),
        TIE_NOTE.to_string(),
        VISIT_NOTE.to_string(),
        FACED_NOTE.to_string(),
    ];
    notes.extend(gap_note(filter));
    exporter.begin(
        &Meta::of(
            table,
            format!("Full optimal policy: {}", rules_title(rules)),
            notes,
        ),
        &mut buf,
    );
    if format != Format::Markdown {
        exporter.table(None, &mut buf);
    }
    out.write_all(&buf)?;
    let total = states.len() as u64;
    let mut done = 0u64;
    let mut written = 0u64;
    for window in states.chunks(POLICY_CHUNK * POLICY_WINDOW) {
        let rendered: Vec<io::Result<(Vec<u8>, u64)>> = window
            .par_chunks(POLICY_CHUNK)
            .map(|chunk| {
                let mut rows = Vec::new();
                let mut bytes = Vec::new();
                let mut count = 0;
                for s in chunk {
                    rows.clear();
                    state_rows(table, s, 0.0, Some(visit(s)), filter, &mut rows);
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
        progress(done, total);
    }
    Ok(written)
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
