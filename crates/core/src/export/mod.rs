//! Strategy tables for people and for programs: what optimal play does, written as CSV, JSON
//! lines, Markdown, or the typed column stream that the `yahtzee-parquet` crate turns into
//! Parquet.
//!
//! Four scopes, each a stream of one row type and each in its own file:
//!
//! - one turn-start card ([`card_rows`], `card.rs`): every roll at every number of rolls
//!   left, with the best action, its expected final score, the runner-up and the gap
//!   ([`DecisionRow`]);
//! - every reachable state: its expected remaining score ([`StateRow`],
//!   [`write_state_values`], `states.rs`);
//! - the full policy, every decision of every state ([`write_policy`], `policy.rs`);
//! - the opening cheat sheet ([`opening_rows`], `opening.rs`): the first turn's 252 rolls
//!   grouped by pattern ([`OpeningRow`]);
//! - one card's turn when playing for a target score ([`target_card_rows`], `target.rs`):
//!   the target policy's action, its chance of reaching the target, the runner-up and the
//!   gap in chance ([`TargetDecisionRow`]).
//!
//! The decision of one roll, shared by the card, the policy and the opening, is in
//! `decision.rs` ([`decide`]). Every decision comes from the library's policy, not a second
//! one: the values of the turn's keeps ([`TurnValues`](crate::solve::expected::TurnValues)) and of
//! the legal boxes ([`box_choices`](crate::policy::expected::box_choices)), ranked by
//! [`best_two`](crate::game::ties::best_two), the one tie rule that `advise`, the bots and the
//! statistics follow. So ties follow the convention of `shared/RULES.md` (among equal keeps
//! the fewest dice, then the lowest faces; among equal boxes the first on the card), and the
//! runner-up is the next option under the same ordering: the second-best distinct keep, or
//! the second-best legal box. A full card has no decision.
//!
//! This file holds what every scope shares: the [`Format`]s, the [`Row`] contract and the
//! [`Exporter`] of each format (files `csv.rs`, `jsonl.rs`, `markdown.rs`, `columns.rs`), the [`Filter`] of
//! decisions, the document [`Meta`] and its notes, the text of dice and keeps, and rounding.
//! The schema of each row type is documented in `data/README.md`.

mod card;
pub mod columns;
mod csv;
mod decision;
mod jsonl;
mod markdown;
mod opening;
mod policy;
mod states;
mod target;

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::{LazyLock, Mutex, PoisonError};

use serde::Serialize;

use crate::game::choice::Choice;
use crate::game::dice::{ALL_MULTISETS, Dice, FIRST_ROLL, Keep, Multiset};
use crate::game::rules::{Order, Rules};
use crate::game::ties::TIE;
use crate::tables::expected::StrategyTable;
use crate::tables::provenance::{Provenance, Stamped, stamped};
use crate::tables::saved::SavedTable;

pub use card::{card_rows, saved_card_rows, write_card, write_saved_card};
pub use decision::{
    Decision, DecisionRow, decide, saved_choice_text, saved_decide, saved_state_rows, state_rows,
};
pub use opening::{
    OpeningRow, Pattern, opening_rows, pattern_of, saved_opening_rows, write_opening,
    write_saved_opening,
};
pub use policy::{describe_state, write_policy, write_saved_policy};
pub use states::{SavedStateRow, StateRow, write_saved_state_values, write_state_values};
pub use target::{
    TargetCardTurn, TargetDecision, TargetDecisionRow, TargetExportError, target_card_rows,
    write_target_card,
};

/// Expected scores and gaps are written rounded to this many decimals: far below any
/// difference that matters in play (values are exact to about 1e-9), and it keeps the full
/// policy files about a quarter smaller than shortest round-trip floats would.
pub const DECIMALS: i32 = 6;

/// How an empty keep (re-roll all five dice) is written.
pub const REROLL_ALL: &str = "-";

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Comma-separated values with one header line.
    Csv,
    /// One JSON object per line.
    Jsonl,
    /// Markdown tables, for reading and printing.
    Markdown,
    /// The typed column stream ([`columns`]): not a file by itself, but what a columnar
    /// writer reads (the `yahtzee-parquet` crate's `write` makes a Parquet file of it).
    Columns,
}

/// A row type: a flat `Serialize` struct of numbers, booleans and strings free of commas,
/// quotes and `|`.
pub trait Row: Serialize + Send + Sync {
    /// The field names in declaration order: the CSV header and the JSON keys.
    const COLUMNS: &'static [&'static str];
    /// Column titles of the Markdown tables, one per column.
    const TITLES: &'static [&'static str];
    /// The columns written rounded to [`DECIMALS`] decimals (points); every other number is
    /// written as computed.
    const ROUNDED: &'static [&'static str];
}

/// What the files that say so (JSON lines' metadata, Parquet's key-value metadata) say of the
/// rounding of rows of type `R`.
pub fn rounding<R: Row>() -> String {
    let exact = "every other number is written as computed (a 64-bit float, not rounded)";
    match R::ROUNDED {
        [] => format!("No column is rounded: {exact}."),
        columns => format!(
            "{} rounded to {DECIMALS} decimals (half away from zero); {exact}.",
            columns.join(", ")
        ),
    }
}

/// What a document says before its rows: Markdown shows the title and notes, JSON lines
/// write them with the source as their first line (`{"metadata": {...}}`), Parquet keeps them
/// as key-value metadata; CSV writes none of it.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    /// The document title.
    pub title: String,
    /// Lines of explanation under the title.
    pub notes: Vec<String>,
    /// Where the rows come from, as one JSON object: the rules (`rules`, `upper_first`), the
    /// program's version and the checksum of the table read
    /// ([`crate::tables::provenance`]); empty when not known.
    pub source: String,
    /// The box of each bit of the column `filled`: bit `i` is set when box `filled_bits[i]`
    /// is filled (the rules' card order); empty when not known.
    pub filled_bits: Vec<String>,
}

impl Meta {
    /// The document of rows computed from `table`, with its source.
    pub fn of(table: &StrategyTable, title: String, notes: Vec<String>) -> Meta {
        let source = Source {
            rules: *table.rules(),
        };
        Meta::with_source(table.rules(), &stamped(&source, Some(table)), title, notes)
    }

    /// The document of rows computed from the table of saved rolls `table`, with its source
    /// (the checksum of that table).
    pub fn of_saved(table: &SavedTable, title: String, notes: Vec<String>) -> Meta {
        let source = Source {
            rules: *table.rules(),
        };
        let stamped = Stamped {
            result: &source,
            provenance: Provenance::of_saved(table),
        };
        Meta::with_source(table.rules(), &stamped, title, notes)
    }

    /// The document of rows computed under `rules`, from `source` (what it says of where the
    /// rows come from, with its provenance): the one place a document's source is stamped,
    /// for the exports and for the other files of rows (`simulate --per-box`'s games).
    pub fn with_source<S: Serialize>(
        rules: &Rules,
        source: &Stamped<'_, S>,
        title: String,
        notes: Vec<String>,
    ) -> Meta {
        Meta {
            title,
            notes,
            source: serde_json::to_string(source).expect("a source serializes"),
            filled_bits: (rules.boxes().iter())
                .map(|b| b.name().to_string())
                .collect(),
        }
    }
}

/// The rules of a document's source.
#[derive(Serialize)]
struct Source {
    #[serde(flatten)]
    rules: Rules,
}

/// Renders rows of type `R` in one format. Rendering goes to byte buffers so that chunks of
/// rows can be rendered in parallel and written in order.
pub trait Exporter<R: Row>: Sync {
    /// What comes before the first row: the CSV header, the Markdown title.
    fn begin(&self, meta: &Meta, out: &mut Vec<u8>);
    /// Starts a table, titled in formats that show titles; the rows follow.
    fn table(&self, title: Option<&str>, out: &mut Vec<u8>);
    /// Appends `rows`.
    fn rows(&self, rows: &[R], out: &mut Vec<u8>) -> io::Result<()>;
}

/// The exporter of `format` for rows of type `R`.
pub fn exporter<R: Row>(format: Format) -> Box<dyn Exporter<R>> {
    match format {
        Format::Csv => Box::new(csv::CsvExporter),
        Format::Jsonl => Box::new(jsonl::JsonlExporter),
        Format::Markdown => Box::new(markdown::MarkdownExporter),
        Format::Columns => Box::new(columns::ColumnsExporter),
    }
}

/// Writes the decisions of one turn (scope `--card`, of the expected-score or the target
/// policy): `meta`, then one table per number of rolls left of `rolls_left` (the turn's, in
/// the order they come: 2, 1, 0 in a game of three rolls a turn; under saved rolls from the
/// turn's most re-rolls down to 0) that `filter` wants, holding the rows with that many rolls
/// left. Returns how many rows there were.
fn write_turn<R: Row + Clone>(
    rolls_left_in_turn: impl IntoIterator<Item = u8>,
    format: Format,
    meta: &Meta,
    rows: &[R],
    rolls_left_of: fn(&R) -> u8,
    filter: &Filter,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let exporter = exporter::<R>(format);
    let mut buf = Vec::new();
    exporter.begin(meta, &mut buf);
    for rolls_left in rolls_left_in_turn {
        if !filter.wants_rolls_left(rolls_left) {
            continue;
        }
        let title = match rolls_left {
            1 => "1 roll left".to_string(),
            n => format!("{n} rolls left"),
        };
        exporter.table(Some(&title), &mut buf);
        let part: Vec<R> = rows
            .iter()
            .filter(|r| rolls_left_of(r) == rolls_left)
            .cloned()
            .collect();
        exporter.rows(&part, &mut buf)?;
    }
    out.write_all(&buf)?;
    Ok(rows.len() as u64)
}

/// Which decisions to write.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Filter {
    /// Only decisions with this many rolls left (0, 1 or 2; to 3 in a game of four rolls a
    /// turn; under saved rolls, up to the turn's re-rolls and the rolls saved before it); all
    /// when `None`.
    pub rolls_left: Option<u8>,
    /// Only decisions whose best option beats the runner-up by at least this many points;
    /// decisions with a single option (no runner-up) are then left out too.
    pub min_gap: Option<f64>,
}

impl Filter {
    fn wants_rolls_left(&self, rolls_left: u8) -> bool {
        self.rolls_left.is_none_or(|r| r == rolls_left)
    }

    fn wants_gap(&self, gap: Option<f64>) -> bool {
        match (self.min_gap, gap) {
            (None, _) => true,
            (Some(_), None) => false,
            // Compared before rounding, with the tie tolerance: a gap written as exactly the
            // threshold passes.
            (Some(min), Some(g)) => g >= min - TIE,
        }
    }
}

/// Rounds to [`DECIMALS`] decimals for writing.
pub fn round(x: f64) -> f64 {
    let scale = 10f64.powi(DECIMALS);
    (x * scale).round() / scale
}

/// The dice of the roll of multiset index `index` (of five dice or six) written as digits.
pub fn dice_text(index: Multiset) -> &'static str {
    static TEXT: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        (FIRST_ROLL..ALL_MULTISETS)
            .map(|i| &*Box::leak(digits(&Dice::from_index(i).faces()).into_boxed_str()))
            .collect()
    });
    TEXT[index - FIRST_ROLL]
}

/// The keep with multiset index `i` written as digits, `-` for the empty keep.
pub fn keep_text(i: usize) -> &'static str {
    static TEXT: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        (0..ALL_MULTISETS)
            .map(|i| {
                let keep = Keep::from_index(i);
                let text = if keep.is_empty() {
                    REROLL_ALL.to_string()
                } else {
                    digits(&keep.faces())
                };
                &*Box::leak(text.into_boxed_str())
            })
            .collect()
    });
    TEXT[i]
}

/// A [`Choice`] as exports write it: a keep as [`keep_text`], a box by its command-line name.
/// With rolls left a box means "stop rolling and fill it" (see [`Decision`]).
pub fn choice_text(choice: &Choice, rules: &Rules) -> &'static str {
    match choice {
        Choice::Keep(k) => keep_text(k.index()),
        Choice::Score(i) => rules.boxes()[*i].name(),
    }
}

/// The box `name` filled with `saves` re-rolls left, which it saves for later turns (a game
/// of saved rolls), as exports write it: `chance (saves 3)`; `chance` when none is left. The
/// texts are made once each (a few hundred at most: the boxes of the rules read, by the
/// re-rolls a turn can have).
pub fn saves_text(name: &'static str, saves: u8) -> &'static str {
    static TEXT: LazyLock<Mutex<HashMap<(&'static str, u8), &'static str>>> =
        LazyLock::new(Default::default);
    if saves == 0 {
        return name;
    }
    let mut texts = TEXT.lock().unwrap_or_else(PoisonError::into_inner);
    texts
        .entry((name, saves))
        .or_insert_with(|| Box::leak(format!("{name} (saves {saves})").into_boxed_str()))
}

fn digits(faces: &[u8]) -> String {
    faces.iter().map(|f| char::from(b'0' + f)).collect()
}

/// A short description of the rule set for titles.
fn rules_title(rules: &Rules) -> String {
    let mut title = match rules.order {
        Order::Any => rules.set.name().to_string(),
        Order::UpperFirst => format!("{} (upper section first)", rules.set.name()),
    };
    if rules.saved_rolls() {
        title.push_str(" (saved rolls)");
    }
    title
}

const VISIT_NOTE: &str = "The visit probability is the chance that a game played by optimal play from an empty card starts a turn in the state: those of the states with the same number of filled boxes add up to 1, so a figure weighted by it counts games, not states.";
const FACED_NOTE: &str = "The faced probability is the chance that a game played by optimal play from an empty card faces the decision: the state's visit probability times the chance that the turn shows these dice with these rolls left (a stop holds its dice through the rolls left, where it fills the same box), so the decisions of a state with one number of rolls left add up to its visit probability.";
const TIE_NOTE: &str = "Ties (options within 1e-9 points) follow the convention of the published figures: among equal keeps the one with the fewest dice (then the lowest faces), among equal boxes the one first on the card.";
const SAVES_NOTE: &str = "Under saved rolls a box filled with re-rolls left saves them for later turns, and is written with them: `chance (saves 3)` fills Chance now and keeps the 3 re-rolls left for the turns to come (the row's rolls left); a box with none left is written by its name alone. Keeping all the dice is never better than filling a box now, and is not an option.";
const ACTION_NOTE: &str = "A keep is written as the kept faces (`33` = keep both threes and re-roll the rest), `-` means re-roll all five dice, a box name means score that box now (with rolls left: stop rolling). The gap is how many points the best option is worth more than the runner-up.";

/// The note of a `min_gap` filter on decisions, if there is one.
fn gap_note(filter: &Filter) -> Option<String> {
    filter
        .min_gap
        .map(|g| format!("Only decisions with a gap of at least {g} points."))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::game::dice::ROLLS;

    /// The CSV header of `row` as serde writes it.
    pub(in crate::export) fn csv_header<R: Row>(row: &R) -> String {
        let mut w = ::csv::Writer::from_writer(Vec::new());
        w.serialize(row).unwrap();
        let bytes = w.into_inner().unwrap();
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string()
    }

    /// Asserts the [`Row`] contract of `R`: its columns are its serialized fields, in order,
    /// and it has one title per column.
    pub(in crate::export) fn assert_row_columns<R: Row>(row: &R) {
        assert_eq!(csv_header(row), R::COLUMNS.join(","));
        assert_eq!(R::TITLES.len(), R::COLUMNS.len());
    }

    #[test]
    fn texts_of_dice_and_keeps() {
        assert_eq!(dice_text(FIRST_ROLL), "11111");
        assert_eq!(dice_text(FIRST_ROLL + ROLLS - 1), "66666");
        assert_eq!(dice_text(ALL_MULTISETS - 1), "666666");
        assert_eq!(keep_text(0), "-");
        let k = Keep::from_faces(&[3, 3]).unwrap();
        assert_eq!(keep_text(k.index()), "33");
        let d: Dice = "13356".parse().unwrap();
        assert_eq!(dice_text(d.index()), "13356");
    }

    #[test]
    fn rounds_to_six_decimals() {
        assert_eq!(round(254.58772873), 254.587729);
        assert_eq!(round(0.0000004), 0.0);
    }

    #[test]
    fn min_gap_leaves_out_single_options() {
        let f = Filter {
            rolls_left: None,
            min_gap: Some(1.0),
        };
        assert!(!f.wants_gap(None));
        assert!(f.wants_gap(Some(1.0)));
        assert!(!f.wants_gap(Some(0.5)));
        assert!(Filter::default().wants_gap(None));
    }
}
