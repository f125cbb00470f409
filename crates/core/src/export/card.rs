//! Scope `--card`: the decisions of one turn-start card, every roll at rolls left 2, 1 and 0,
//! with expected final scores that count the card's banked points; one table per number of
//! rolls left. Under saved rolls ([`write_saved_card`]), the turn of the card with some rolls
//! saved before it: every roll at every number of re-rolls left from the turn's most (its two
//! and the rolls saved) down to 0, valued by the table of saved rolls.

use std::io::{self, Write};

use super::{
    ACTION_NOTE, DecisionRow, Filter, Format, Meta, SAVES_NOTE, TIE_NOTE, gap_note, rules_title,
    saved_state_rows, state_rows, write_turn,
};
use crate::game::state::ScoreCard;
use crate::policy::saved::SavedTurn;
use crate::tables::expected::StrategyTable;
use crate::tables::saved::SavedTable;

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
        table.rules().rolls_left_in_turn(),
        format,
        &card_meta(table, card, filter),
        &rows,
        |r| r.rolls_left,
        filter,
        out,
    )
}

/// The most re-rolls of the turn of `card` with `saved` rolls saved before it: the game's
/// and those.
fn saved_turn_rerolls(table: &SavedTable, saved: u8) -> u8 {
    table.rules().most_rolls_left() + saved
}

/// The decisions of one card's turn in a game of saved rolls, `saved` rolls saved before it
/// (at most what its turns played can have saved: checked by
/// [`rerolls_left`](crate::policy::saved::rerolls_left)), expected scores counting its banked
/// points: every roll at every number of re-rolls left from the turn's most (the game's
/// re-rolls and `saved`) down to 0, valued as `advise --saved` values them ([`SavedTurn`]).
/// `table` holds the card's rows and the next cards' (whole, or read for the card:
/// [`SavedTable::load_cards`]).
pub fn saved_card_rows(
    table: &SavedTable,
    card: &ScoreCard,
    saved: u8,
    filter: &Filter,
) -> Vec<DecisionRow> {
    let rules = table.rules();
    let most = saved_turn_rerolls(table, saved);
    let state = card.state();
    let turn = SavedTurn::new(table, state, usize::from(most));
    let mut rows = Vec::new();
    saved_state_rows(
        rules,
        &turn,
        &state,
        most,
        f64::from(card.banked()),
        filter,
        &mut rows,
    );
    rows
}

fn saved_card_meta(table: &SavedTable, card: &ScoreCard, saved: u8, filter: &Filter) -> Meta {
    let rules = table.rules();
    let text = card.to_string();
    let value = table
        .value(&card.state(), usize::from(saved))
        .expect("the table holds the card with its rolls saved");
    let mut notes = vec![
        format!(
            "Card: {}; {} points banked; {saved} rolls saved before this turn, so up to {} re-rolls (the rolls left of the rows); expected final score {:.4}.",
            if text.is_empty() {
                "empty (a new game)"
            } else {
                &text
            },
            card.banked(),
            saved_turn_rerolls(table, saved),
            f64::from(card.banked()) + value
        ),
        ACTION_NOTE.to_string(),
        SAVES_NOTE.to_string(),
        TIE_NOTE.to_string(),
    ];
    notes.extend(gap_note(filter));
    Meta::of_saved(
        table,
        format!(
            "Strategy for one turn with {saved} rolls saved: {}",
            rules_title(rules)
        ),
        notes,
    )
}

/// Writes the decisions of one card's turn in a game of saved rolls, `saved` rolls saved
/// before it ([`saved_card_rows`]), one table per number of re-rolls left from the turn's
/// most down to 0, and returns the number of rows.
pub fn write_saved_card(
    table: &SavedTable,
    card: &ScoreCard,
    saved: u8,
    filter: &Filter,
    format: Format,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let rows = saved_card_rows(table, card, saved, filter);
    write_turn(
        (0..=saved_turn_rerolls(table, saved)).rev(),
        format,
        &saved_card_meta(table, card, saved, filter),
        &rows,
        |r| r.rolls_left,
        filter,
        out,
    )
}
