//! Scope `--card`: the decisions of one turn-start card, every roll at rolls left 2, 1 and 0,
//! with expected final scores that count the card's banked points; one table per number of
//! rolls left.

use std::io::{self, Write};

use super::{
    ACTION_NOTE, DecisionRow, Filter, Format, Meta, TIE_NOTE, gap_note, rules_title, state_rows,
    write_turn,
};
use crate::game::state::ScoreCard;
use crate::tables::expected::StrategyTable;

/// The decisions of one card's turn (scope `--card`), expected scores counting its banked
/// points.
pub fn card_rows(table: &StrategyTable, card: &ScoreCard, filter: &Filter) -> Vec<DecisionRow> {
    let mut rows = Vec::new();
    state_rows(
        table,
        &card.state(),
        f64::from(card.banked()),
        None,
        filter,
        &mut rows,
    );
    rows
}

fn card_meta(table: &StrategyTable, card: &ScoreCard, filter: &Filter) -> Meta {
    let rules = table.rules();
    let text = card.to_string();
    let mut notes = vec![
        format!(
            "Card: {}; {} points banked; expected final score {:.4}.",
            if text.is_empty() {
                "empty (a new game)"
            } else {
                &text
            },
            card.banked(),
            f64::from(card.banked()) + table.value(&card.state())
        ),
        ACTION_NOTE.to_string(),
        TIE_NOTE.to_string(),
    ];
    notes.extend(gap_note(filter));
    Meta::of(
        table,
        format!("Strategy for one turn: {}", rules_title(rules)),
        notes,
    )
}

/// Writes the decisions of one card's turn (scope `--card`) and returns the number of rows.
pub fn write_card(
    table: &StrategyTable,
    card: &ScoreCard,
    filter: &Filter,
    format: Format,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let rows = card_rows(table, card, filter);
    write_turn(
        table.rules(),
        format,
        &card_meta(table, card, filter),
        &rows,
        |r| r.rolls_left,
        filter,
        out,
    )
}
