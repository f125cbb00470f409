//! Strategy tables for people and for programs: what optimal play does, written as CSV, JSON
//! lines or Markdown.
//!
//! Three scopes, each a stream of one row type:
//!
//! - one turn-start card ([`card_rows`]): every roll at every number of rolls left, with the
//!   best action, its expected final score, the runner-up and the gap ([`DecisionRow`]);
//! - every reachable state: its expected remaining score ([`StateRow`], [`write_state_values`]),
//!   or the full policy, every decision of every state ([`write_policy`]);
//! - the opening cheat sheet ([`opening_rows`]): the first turn's 252 rolls grouped by pattern
//!   ([`OpeningRow`]).
//!
//! Every decision comes from the library's policy, not a second one: [`TurnValues::best_keep`]
//! for keeps and [`best_box`] over [`box_choices`] for boxes, so ties follow the convention of
//! `shared/RULES.md` (among equal keeps the fewest dice, then the lowest faces; among equal
//! boxes the first on the card). The runner-up is the next option under the same ordering:
//! the second-best distinct keep, or the second-best legal box.
//!
//! Rows are `Serialize` structs rendered by one [`Exporter`] per [`Format`] (files `csv.rs`,
//! `jsonl.rs`, `markdown.rs`). The schema of each is documented in `data/README.md`.

mod csv;
mod jsonl;
mod markdown;
mod opening;

use std::io::{self, Write};
use std::sync::LazyLock;

use rayon::prelude::*;
use serde::Serialize;

use crate::advice::{TIE, TurnValues, best_two, box_choices};
use crate::dice::{DICE, Dice, FIRST_ROLL, Keep, Lattice, MULTISETS, ROLLS};
use crate::rules::{BoxMask, Order, Rules};
use crate::state::{ScoreCard, State, reachable_states};
use crate::table::StrategyTable;

pub use opening::{Pattern, pattern_of};

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
}

/// A row type: a flat `Serialize` struct of numbers, booleans and strings free of commas,
/// quotes and `|`.
pub trait Row: Serialize + Send + Sync {
    /// The field names in declaration order: the CSV header and the JSON keys.
    const COLUMNS: &'static [&'static str];
    /// Column titles of the Markdown tables, one per column.
    const TITLES: &'static [&'static str];
}

/// What a document says before its rows (Markdown shows it; CSV and JSON lines do not).
#[derive(Clone, Debug, Default)]
pub struct Meta {
    /// The document title.
    pub title: String,
    /// Lines of explanation under the title.
    pub notes: Vec<String>,
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
    }
}

/// Which decisions to write.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Filter {
    /// Only decisions with this many rolls left (0, 1 or 2); all when `None`.
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

/// One decision of optimal play: a roll, in a state, with some rolls left.
///
/// Actions are written as text: a keep is its faces in ascending order without separators
/// (`33`, `1345`), the empty keep (re-roll all five) is `-`, and a box is its command-line
/// name (`full-house`). With rolls left, a box means "stop rolling and score it now".
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecisionRow {
    /// Filled boxes as a bit mask: bit `i` is set when box `i` of the card (in the order of
    /// `shared/RULES.md`) is filled.
    pub filled: BoxMask,
    /// Upper-section total, capped at 63 (0 in rule sets without an upper bonus).
    pub upper: u8,
    /// True when the Yahtzee box holds 50 (always false without a Yahtzee bonus).
    pub yahtzee_50: bool,
    /// The five dice, ascending, e.g. `13356`.
    pub dice: &'static str,
    /// Rolls left: 2 just after the first roll, 0 after the last.
    pub rolls_left: u8,
    /// The best action under the tie convention.
    pub best: &'static str,
    /// Expected final score after the best action: the points already banked on the card
    /// plus the expected points still to come. Without a card (the full policy) the banked
    /// points count as 0, so it is the expected points from this decision on.
    pub expected: f64,
    /// The second-best option (distinct keep or legal box); absent when there is only one.
    pub runner_up: Option<&'static str>,
    /// How many points the best option is worth more than the runner-up (at least 0).
    pub gap: Option<f64>,
}

impl Row for DecisionRow {
    const COLUMNS: &'static [&'static str] = &[
        "filled",
        "upper",
        "yahtzee_50",
        "dice",
        "rolls_left",
        "best",
        "expected",
        "runner_up",
        "gap",
    ];
    const TITLES: &'static [&'static str] = &[
        "filled",
        "upper",
        "Yahtzee 50",
        "dice",
        "rolls left",
        "best",
        "expected",
        "runner-up",
        "gap",
    ];
}

/// The value of one reachable turn-start state.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StateRow {
    /// Filled boxes as a bit mask, as in [`DecisionRow::filled`].
    pub filled: BoxMask,
    /// Upper-section total, capped at 63.
    pub upper: u8,
    /// True when the Yahtzee box holds 50.
    pub yahtzee_50: bool,
    /// Number of filled boxes (turns played).
    pub turns_played: u32,
    /// Expected points still to come from this state under optimal play (0 for a full card).
    pub expected_remaining: f64,
}

impl Row for StateRow {
    const COLUMNS: &'static [&'static str] = &[
        "filled",
        "upper",
        "yahtzee_50",
        "turns_played",
        "expected_remaining",
    ];
    const TITLES: &'static [&'static str] = &[
        "filled",
        "upper",
        "Yahtzee 50",
        "turns played",
        "expected remaining",
    ];
}

/// One opening roll of the cheat sheet: what to do with it with two rolls left, and with one.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpeningRow {
    /// The pattern group of the roll (see [`Pattern`]).
    pub pattern: &'static str,
    /// The five dice, ascending.
    pub dice: &'static str,
    /// Expected final score of the game after this opening roll, playing optimally.
    pub expected: f64,
    /// Best action with two rolls left (this is the opening roll).
    pub best_2: &'static str,
    /// Runner-up with two rolls left.
    pub runner_up_2: Option<&'static str>,
    /// Gap between them.
    pub gap_2: Option<f64>,
    /// Best action with one roll left (the same dice after the second roll of the first turn).
    pub best_1: &'static str,
    /// Runner-up with one roll left.
    pub runner_up_1: Option<&'static str>,
    /// Gap between them.
    pub gap_1: Option<f64>,
}

impl Row for OpeningRow {
    const COLUMNS: &'static [&'static str] = &[
        "pattern",
        "dice",
        "expected",
        "best_2",
        "runner_up_2",
        "gap_2",
        "best_1",
        "runner_up_1",
        "gap_1",
    ];
    const TITLES: &'static [&'static str] = &[
        "pattern",
        "roll",
        "expected",
        "2 rolls left: keep",
        "else",
        "gap",
        "1 roll left: keep",
        "else",
        "gap",
    ];
}

/// An option of a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Keep these dice and re-roll the others (never all five: that is [`Action::Score`]).
    Keep(Keep),
    /// Score this box (by its position on the card) now.
    Score(usize),
}

impl Action {
    /// The action as written in exports.
    pub fn text(&self, rules: &Rules) -> &'static str {
        match self {
            Action::Keep(k) => keep_text(k.index()),
            Action::Score(i) => rules.boxes()[*i].name(),
        }
    }
}

/// The best option of one decision and the runner-up, with their values (points of this
/// turn and after, not counting points already banked).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// The optimal action.
    pub best: Action,
    /// Its value.
    pub value: f64,
    /// The second-best option and its value, when there is more than one option.
    pub runner_up: Option<(Action, f64)>,
}

impl Decision {
    /// Best value minus runner-up value.
    pub fn gap(&self) -> Option<f64> {
        self.runner_up.map(|(_, v)| (self.value - v).max(0.0))
    }
}

/// Best and second-best legal box for `dice`, under the one tie rule
/// ([`best_two`]); `None` on a full card, which has no box left.
fn box_decision(table: &StrategyTable, state: &State, dice: &Dice) -> Option<Decision> {
    let choices = box_choices(table, state, dice);
    let values: Vec<f64> = choices.iter().map(|c| c.future).collect();
    let (best, second) = best_two(&values);
    let best = choices[best?];
    Some(Decision {
        best: Action::Score(best.index),
        value: best.future,
        runner_up: second.map(|i| (Action::Score(choices[i].index), choices[i].future)),
    })
}

/// The decision for `dice` in `state` with `rolls_left` rolls left, from the library's
/// policy: the best option and the runner-up under the one tie rule ([`best_two`], the
/// first two options `advise` ranks). `turn` must be the [`TurnValues`] of `state` (unused
/// with no rolls left). `None` on a full card.
pub fn decide(
    table: &StrategyTable,
    state: &State,
    turn: &TurnValues,
    dice: &Dice,
    rolls_left: u8,
) -> Option<Decision> {
    if state.filled == table.rules().full_mask() {
        return None;
    }
    if rolls_left == 0 {
        return box_decision(table, state, dice);
    }
    let keeps = keeps_of(dice);
    let values: Vec<f64> = keeps
        .iter()
        .map(|k| turn.keep_value(rolls_left, k))
        .collect();
    let (best, second) = best_two(&values);
    let mut stop = None;
    let mut action = |keep: Keep| {
        if keep.len() == DICE {
            // Keeping all five dice is stopping to score the best box.
            let d = *stop.get_or_insert_with(|| box_decision(table, state, dice));
            d.map(|d| d.best)
        } else {
            Some(Action::Keep(keep))
        }
    };
    let best_i = best?;
    Some(Decision {
        best: action(keeps[best_i])?,
        value: values[best_i],
        runner_up: match second {
            Some(i) => Some((action(keeps[i])?, values[i])),
            None => None,
        },
    })
}

/// The distinct keeps of `dice`, listed once per roll by the library: the full policy asks
/// for them hundreds of millions of times.
fn keeps_of(dice: &Dice) -> &'static [Keep] {
    dice.keeps_by_preference()
}

/// Rounds to [`DECIMALS`] decimals for writing.
pub fn round(x: f64) -> f64 {
    let scale = 10f64.powi(DECIMALS);
    (x * scale).round() / scale
}

/// The dice of roll `r` (0..252) written as digits.
pub fn dice_text(r: usize) -> &'static str {
    static TEXT: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        (FIRST_ROLL..MULTISETS)
            .map(|i| &*Box::leak(digits(&Dice::from_index(i).faces()).into_boxed_str()))
            .collect()
    });
    TEXT[r]
}

/// The keep with multiset index `i` written as digits, `-` for the empty keep.
pub fn keep_text(i: usize) -> &'static str {
    static TEXT: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        let lattice = Lattice::get();
        (0..MULTISETS)
            .map(|i| {
                let keep = Keep::from_faces(&faces_of(&lattice.counts[i]))
                    .expect("a lattice entry is at most five faces");
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

fn faces_of(counts: &[u8]) -> Vec<u8> {
    counts
        .iter()
        .enumerate()
        .flat_map(|(f, &c)| std::iter::repeat_n(f as u8 + 1, usize::from(c)))
        .collect()
}

fn digits(faces: &[u8]) -> String {
    faces.iter().map(|f| char::from(b'0' + f)).collect()
}

/// The rows of one decision in `state`, `base` points already banked.
fn decision_row(
    table: &StrategyTable,
    state: &State,
    d: &Decision,
    r: usize,
    rolls_left: u8,
    base: f64,
) -> DecisionRow {
    let rules = table.rules();
    DecisionRow {
        filled: state.filled,
        upper: state.upper,
        yahtzee_50: state.yahtzee_50,
        dice: dice_text(r),
        rolls_left,
        best: d.best.text(rules),
        expected: round(base + d.value),
        runner_up: d.runner_up.map(|(a, _)| a.text(rules)),
        gap: d.gap().map(round),
    }
}

/// Appends the decisions of `state` that pass `filter`: rolls left 2, 1, 0, and within each
/// the 252 rolls in index order (ascending dice).
pub fn state_rows(
    table: &StrategyTable,
    state: &State,
    base: f64,
    filter: &Filter,
    out: &mut Vec<DecisionRow>,
) {
    let turn = TurnValues::new(table, state);
    for rolls_left in [2u8, 1, 0] {
        if !filter.wants_rolls_left(rolls_left) {
            continue;
        }
        for r in 0..ROLLS {
            let dice = Dice::from_index(FIRST_ROLL + r);
            let Some(d) = decide(table, state, &turn, &dice, rolls_left) else {
                // A full card: no decision is left.
                return;
            };
            if filter.wants_gap(d.gap()) {
                out.push(decision_row(table, state, &d, r, rolls_left, base));
            }
        }
    }
}

/// The decisions of one card's turn (scope `--card`), expected scores counting its banked
/// points.
pub fn card_rows(table: &StrategyTable, card: &ScoreCard, filter: &Filter) -> Vec<DecisionRow> {
    let mut rows = Vec::new();
    state_rows(
        table,
        &card.state(),
        f64::from(card.banked()),
        filter,
        &mut rows,
    );
    rows
}

/// A short description of the rule set for titles.
fn rules_title(rules: &Rules) -> String {
    match rules.order {
        Order::Any => rules.set.name().to_string(),
        Order::UpperFirst => format!("{} (upper section first)", rules.set.name()),
    }
}

const TIE_NOTE: &str = "Ties (options within 1e-9 points) follow the convention of the published figures: among equal keeps the one with the fewest dice (then the lowest faces), among equal boxes the one first on the card.";
const ACTION_NOTE: &str = "A keep is written as the kept faces (`33` = keep both threes and re-roll the rest), `-` means re-roll all five dice, a box name means score that box now (with rolls left: stop rolling). The gap is how many points the best option is worth more than the runner-up.";

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
    if let Some(g) = filter.min_gap {
        notes.push(format!("Only decisions with a gap of at least {g} points."));
    }
    Meta {
        title: format!("Strategy for one turn: {}", rules_title(rules)),
        notes,
    }
}

/// Writes the decisions of one card's turn (scope `--card`) and returns the number of rows.
pub fn write_card(
    table: &StrategyTable,
    card: &ScoreCard,
    filter: &Filter,
    format: Format,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let exporter = exporter::<DecisionRow>(format);
    let rows = card_rows(table, card, filter);
    let mut buf = Vec::new();
    exporter.begin(&card_meta(table, card, filter), &mut buf);
    for rolls_left in [2u8, 1, 0] {
        if !filter.wants_rolls_left(rolls_left) {
            continue;
        }
        let title = match rolls_left {
            1 => "1 roll left".to_string(),
            n => format!("{n} rolls left"),
        };
        exporter.table(Some(&title), &mut buf);
        let part: Vec<DecisionRow> = rows
            .iter()
            .filter(|r| r.rolls_left == rolls_left)
            .cloned()
            .collect();
        exporter.rows(&part, &mut buf)?;
    }
    out.write_all(&buf)?;
    Ok(rows.len() as u64)
}

/// Writes the value of every reachable turn-start state (scope `--all-states`) and returns
/// the number of rows.
pub fn write_state_values(
    table: &StrategyTable,
    format: Format,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let rules = table.rules();
    let exporter = exporter::<StateRow>(format);
    let mut buf = Vec::new();
    exporter.begin(
        &Meta {
            title: format!("Value of every reachable state: {}", rules_title(rules)),
            notes: vec![format!(
                "Expected points still to come from each turn-start state under optimal play; a new game is worth {:.4}.",
                table.expected_score()
            )],
        },
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
            })
            .collect();
        buf.clear();
        exporter.rows(&rows, &mut buf)?;
        out.write_all(&buf)?;
    }
    Ok(states.len() as u64)
}

/// States rendered per parallel task of [`write_policy`]: about 750 rows each, a few tens of
/// kilobytes, large enough to amortise the task and small enough to balance two cores.
const POLICY_CHUNK: usize = 16;
/// Chunks rendered before they are written: bounds the memory held (about 64 chunks of
/// 16 states, a few tens of megabytes) while keeping every thread busy.
const POLICY_WINDOW: usize = 64;

/// Writes the full policy (scope `--all-states --policy`): every decision of every reachable
/// state that still has an open box, state by state in layout order. States are rendered in
/// parallel by chunks and written in order, so the output is the same at any thread count;
/// only a window of chunks is held in memory at a time. `progress(done, total)` is called
/// with states done. Returns the number of rows.
pub fn write_policy(
    table: &StrategyTable,
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
    ];
    if let Some(g) = filter.min_gap {
        notes.push(format!("Only decisions with a gap of at least {g} points."));
    }
    exporter.begin(
        &Meta {
            title: format!("Full optimal policy: {}", rules_title(rules)),
            notes,
        },
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
                    state_rows(table, s, 0.0, filter, &mut rows);
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

/// The opening cheat sheet (scope `--opening`): the 252 first rolls of a new game, grouped
/// by [`Pattern`] in the order of [`Pattern::ALL`] and by ascending dice within a group; a
/// roll is listed when at least one of its two decisions passes `min_gap`.
pub fn opening_rows(table: &StrategyTable, min_gap: Option<f64>) -> Vec<OpeningRow> {
    let rules = table.rules();
    let state = State::START;
    let turn = TurnValues::new(table, &state);
    let filter = Filter {
        rolls_left: None,
        min_gap,
    };
    let mut rows: Vec<(Pattern, usize, OpeningRow)> = Vec::new();
    for r in 0..ROLLS {
        let dice = Dice::from_index(FIRST_ROLL + r);
        let (Some(two), Some(one)) = (
            decide(table, &state, &turn, &dice, 2),
            decide(table, &state, &turn, &dice, 1),
        ) else {
            continue;
        };
        if !filter.wants_gap(two.gap()) && !filter.wants_gap(one.gap()) {
            continue;
        }
        let pattern = pattern_of(&dice);
        rows.push((
            pattern,
            r,
            OpeningRow {
                pattern: pattern.name(),
                dice: dice_text(r),
                expected: round(turn.opening_rolls[r]),
                best_2: two.best.text(rules),
                runner_up_2: two.runner_up.map(|(a, _)| a.text(rules)),
                gap_2: two.gap().map(round),
                best_1: one.best.text(rules),
                runner_up_1: one.runner_up.map(|(a, _)| a.text(rules)),
                gap_1: one.gap().map(round),
            },
        ));
    }
    rows.sort_by_key(|(p, r, _)| (*p, *r));
    rows.into_iter().map(|(_, _, row)| row).collect()
}

/// Writes the opening cheat sheet, one table per pattern, and returns the number of rows.
pub fn write_opening(
    table: &StrategyTable,
    min_gap: Option<f64>,
    format: Format,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let rules = table.rules();
    let exporter = exporter::<OpeningRow>(format);
    let rows = opening_rows(table, min_gap);
    let mut notes = vec![
        format!(
            "What optimal solitaire play keeps on the first turn of a new game (expected final score {:.4}). For each opening roll: the keep with two rolls left, and the keep if the same dice show after the second roll (one roll left). The expected column is the expected final score after this opening roll.",
            table.expected_score()
        ),
        ACTION_NOTE.to_string(),
        TIE_NOTE.to_string(),
    ];
    if let Some(g) = min_gap {
        notes.push(format!(
            "Only rolls where at least one decision has a gap of at least {g} points."
        ));
    }
    let mut buf = Vec::new();
    exporter.begin(
        &Meta {
            title: format!("Opening cheat sheet: {}", rules_title(rules)),
            notes,
        },
        &mut buf,
    );
    for pattern in Pattern::ALL {
        let part: Vec<OpeningRow> = rows
            .iter()
            .filter(|r| r.pattern == pattern.name())
            .cloned()
            .collect();
        if part.is_empty() {
            continue;
        }
        let title = format!("{} ({} rolls)", pattern.name(), part.len());
        exporter.table(Some(&title), &mut buf);
        exporter.rows(&part, &mut buf)?;
    }
    out.write_all(&buf)?;
    Ok(rows.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv_header<R: Row>(row: &R) -> String {
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

    #[test]
    fn columns_match_the_serialized_fields() {
        let d = DecisionRow {
            filled: 1,
            upper: 3,
            yahtzee_50: false,
            dice: "11111",
            rolls_left: 0,
            best: "yahtzee",
            expected: 1.0,
            runner_up: None,
            gap: None,
        };
        assert_eq!(csv_header(&d), DecisionRow::COLUMNS.join(","));
        let s = StateRow {
            filled: 0,
            upper: 0,
            yahtzee_50: false,
            turns_played: 0,
            expected_remaining: 1.0,
        };
        assert_eq!(csv_header(&s), StateRow::COLUMNS.join(","));
        let o = OpeningRow {
            pattern: "x",
            dice: "11111",
            expected: 1.0,
            best_2: "a",
            runner_up_2: None,
            gap_2: None,
            best_1: "b",
            runner_up_1: None,
            gap_1: None,
        };
        assert_eq!(csv_header(&o), OpeningRow::COLUMNS.join(","));
        assert_eq!(DecisionRow::TITLES.len(), DecisionRow::COLUMNS.len());
        assert_eq!(StateRow::TITLES.len(), StateRow::COLUMNS.len());
        assert_eq!(OpeningRow::TITLES.len(), OpeningRow::COLUMNS.len());
    }

    #[test]
    fn texts_of_dice_and_keeps() {
        assert_eq!(dice_text(0), "11111");
        assert_eq!(dice_text(ROLLS - 1), "66666");
        assert_eq!(keep_text(0), "-");
        let k = Keep::from_faces(&[3, 3]).unwrap();
        assert_eq!(keep_text(k.index()), "33");
        let d: Dice = "13356".parse().unwrap();
        assert_eq!(dice_text(d.index() - FIRST_ROLL), "13356");
    }

    #[test]
    fn rounds_to_six_decimals() {
        assert_eq!(round(254.58772873), 254.587729);
        assert_eq!(round(0.0000004), 0.0);
    }

    /// Regression: a full card reaching `box_decision` panicked on an `expect` (through the
    /// public `state_rows` and `decide`); a full card has no decision, so no row.
    #[test]
    fn full_card_in_box_decision_does_not_panic() {
        use crate::rules::{RuleSet, Rules};
        use crate::solver::SolveOptions;
        let rules = Rules::new(RuleSet::YACHT);
        let (table, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let full = State {
            filled: rules.full_mask(),
            upper: 0,
            yahtzee_50: false,
        };
        let mut rows = Vec::new();
        state_rows(&table, &full, 0.0, &Filter::default(), &mut rows);
        assert!(rows.is_empty());
        let turn = TurnValues::new(&table, &full);
        let dice: Dice = "12345".parse().unwrap();
        for rolls_left in [0, 1, 2] {
            assert!(decide(&table, &full, &turn, &dice, rolls_left).is_none());
        }
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
