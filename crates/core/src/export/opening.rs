//! Scope `--opening`: the opening cheat sheet, what optimal play does with each of the 252
//! first rolls of a new game, with two rolls left and with one ([`OpeningRow`]), grouped by
//! [`Pattern`]. Patterns are what a player sees at a glance in five dice; they describe the
//! dice, not boxes, so they read the same under every rule set. Under saved rolls the first
//! turn has no roll saved: the same sheet, from the table of saved rolls
//! ([`saved_opening_rows`]), a box written with the re-rolls it saves.

use std::io::{self, Write};

use serde::Serialize;

use super::{
    ACTION_NOTE, Decision, Filter, Format, Meta, Row, SAVES_NOTE, TIE_NOTE, choice_text, decide,
    dice_text, exporter, round, rules_title, saved_choice_text, saved_decide,
};
use crate::game::choice::Choice;
use crate::game::dice::Dice;
use crate::game::rules::Rules;
use crate::game::state::State;
use crate::policy::saved::SavedTurn;
use crate::solve::expected::TurnValues;
use crate::tables::expected::StrategyTable;
use crate::tables::saved::SavedTable;

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
    const ROUNDED: &'static [&'static str] = &["expected", "gap_2", "gap_1"];
}

/// The pattern of a roll. Every roll has exactly one: a run of four or five faces wins over
/// the pair it may contain, then the largest group of equal faces decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pattern {
    /// All five dice show the same face.
    FiveOfAKind,
    /// Five consecutive faces: 12345 or 23456.
    StraightOfFive,
    /// Four consecutive faces among the dice (and not five).
    StraightOfFour,
    /// Four dice of one face.
    FourOfAKind,
    /// Three of one face and two of another.
    FullHouse,
    /// Three of one face, the other two different.
    ThreeOfAKind,
    /// Two pairs.
    TwoPairs,
    /// One pair, no run of four.
    OnePair,
    /// Five different faces without a run of four: 12356 and 12456.
    AllDifferent,
}

impl Pattern {
    /// Every pattern, in the order of the cheat sheet.
    pub const ALL: [Pattern; 9] = [
        Pattern::FiveOfAKind,
        Pattern::StraightOfFive,
        Pattern::StraightOfFour,
        Pattern::FourOfAKind,
        Pattern::FullHouse,
        Pattern::ThreeOfAKind,
        Pattern::TwoPairs,
        Pattern::OnePair,
        Pattern::AllDifferent,
    ];

    /// The name written in exports.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::FiveOfAKind => "five of a kind",
            Pattern::StraightOfFive => "straight of five",
            Pattern::StraightOfFour => "straight of four",
            Pattern::FourOfAKind => "four of a kind",
            Pattern::FullHouse => "full house",
            Pattern::ThreeOfAKind => "three of a kind",
            Pattern::TwoPairs => "two pairs",
            Pattern::OnePair => "one pair",
            Pattern::AllDifferent => "all different",
        }
    }
}

/// The pattern of `dice`.
pub fn pattern_of(dice: &Dice) -> Pattern {
    let counts = dice.counts();
    let present: Vec<bool> = counts.iter().map(|&c| c > 0).collect();
    let run = |len: usize| present.windows(len).any(|w| w.iter().all(|&p| p));
    let mut groups: Vec<u8> = counts.iter().copied().filter(|&c| c > 0).collect();
    groups.sort_unstable_by(|a, b| b.cmp(a));
    // With six dice the largest groups decide alike: six of a kind is five of a kind and
    // more, 3 3 a full house, three pairs two pairs and more.
    match groups.as_slice() {
        [g, ..] if *g >= 5 => Pattern::FiveOfAKind,
        _ if run(5) => Pattern::StraightOfFive,
        _ if run(4) => Pattern::StraightOfFour,
        [4, ..] => Pattern::FourOfAKind,
        [3, 2..=3, ..] => Pattern::FullHouse,
        [3, ..] => Pattern::ThreeOfAKind,
        [2, 2, ..] => Pattern::TwoPairs,
        [2, ..] => Pattern::OnePair,
        _ => Pattern::AllDifferent,
    }
}

/// The opening cheat sheet (scope `--opening`): the 252 first rolls of a new game, grouped
/// by [`Pattern`] in the order of [`Pattern::ALL`] and by ascending dice within a group; a
/// roll is listed when at least one of its two decisions passes `min_gap`.
pub fn opening_rows(table: &StrategyTable, min_gap: Option<f64>) -> Vec<OpeningRow> {
    let rules = table.rules();
    let state = State::START;
    let turn = TurnValues::new(table, &state);
    sheet_rows(
        rules,
        min_gap,
        |dice, rolls_left| decide(table, &state, &turn, dice, rolls_left),
        |r, _| turn.opening_rolls[r],
        |choice, _| choice_text(choice, rules),
    )
}

/// The opening cheat sheet of a game of saved rolls (scope `--opening`): the first turn has
/// no roll saved, so its rows are [`opening_rows`]'s, each decision one of the turn of the
/// table of saved rolls ([`saved_decide`]) and a box written with the re-rolls it saves.
/// `table` holds the empty card and the cards after it.
pub fn saved_opening_rows(table: &SavedTable, min_gap: Option<f64>) -> Vec<OpeningRow> {
    let rules = table.rules();
    let most = rules.most_rolls_left();
    let turn = SavedTurn::new(table, State::START, usize::from(most));
    sheet_rows(
        rules,
        min_gap,
        |dice, rolls_left| saved_decide(rules, &turn, dice, usize::from(rolls_left)),
        |_, two| two.value,
        |choice, rolls_left| saved_choice_text(choice, rules, rolls_left),
    )
}

/// The rows of the sheet: each roll's decisions with two rolls left and with one
/// (`decide(dice, rolls_left)`), its expected final score (`expected(roll index, decision with
/// two rolls left)`), the options written by `text(choice, rolls_left)`.
fn sheet_rows(
    rules: &Rules,
    min_gap: Option<f64>,
    decide: impl Fn(&Dice, u8) -> Option<Decision>,
    expected: impl Fn(usize, &Decision) -> f64,
    text: impl Fn(&Choice, u8) -> &'static str,
) -> Vec<OpeningRow> {
    let filter = Filter {
        rolls_left: None,
        min_gap,
    };
    let mut rows: Vec<(Pattern, usize, OpeningRow)> = Vec::new();
    for (r, dice) in rules.dice().all_rolls().enumerate() {
        let (Some(two), Some(one)) = (decide(&dice, 2), decide(&dice, 1)) else {
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
                dice: dice_text(dice.index()),
                expected: round(expected(r, &two)),
                best_2: text(&two.best, 2),
                runner_up_2: two.runner_up.map(|(c, _)| text(&c, 2)),
                gap_2: two.gap().map(round),
                best_1: text(&one.best, 1),
                runner_up_1: one.runner_up.map(|(c, _)| text(&c, 1)),
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
    let notes = vec![
        format!(
            "What optimal solitaire play keeps on the first turn of a new game (expected final score {:.4}). For each opening roll: the keep with two rolls left, and the keep if the same dice show after the second roll (one roll left). The expected column is the expected final score after this opening roll.",
            table.expected_score()
        ),
        ACTION_NOTE.to_string(),
        TIE_NOTE.to_string(),
    ];
    let meta = |notes| {
        Meta::of(
            table,
            format!("Opening cheat sheet: {}", rules_title(rules)),
            notes,
        )
    };
    write_sheet(
        &opening_rows(table, min_gap),
        min_gap,
        notes,
        meta,
        format,
        out,
    )
}

/// Writes the opening cheat sheet of a game of saved rolls ([`saved_opening_rows`]), one
/// table per pattern, and returns the number of rows.
pub fn write_saved_opening(
    table: &SavedTable,
    min_gap: Option<f64>,
    format: Format,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let rules = table.rules();
    let notes = vec![
        format!(
            "What optimal solitaire play does on the first turn of a new game with saved rolls, no roll saved yet (expected final score {:.4}). For each opening roll: the option with two rolls left, and the option if the same dice show after the second roll (one roll left). The expected column is the expected final score after this opening roll.",
            table
                .expected_score()
                .expect("the table holds the empty card")
        ),
        ACTION_NOTE.to_string(),
        SAVES_NOTE.to_string(),
        TIE_NOTE.to_string(),
    ];
    let meta = |notes| {
        Meta::of_saved(
            table,
            format!("Opening cheat sheet: {}", rules_title(rules)),
            notes,
        )
    };
    write_sheet(
        &saved_opening_rows(table, min_gap),
        min_gap,
        notes,
        meta,
        format,
        out,
    )
}

/// Writes the sheet's `rows`, one table per pattern, under the document `meta(notes)` (the
/// note of `min_gap` added), and returns the number of rows.
fn write_sheet(
    rows: &[OpeningRow],
    min_gap: Option<f64>,
    mut notes: Vec<String>,
    meta: impl FnOnce(Vec<String>) -> Meta,
    format: Format,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let exporter = exporter::<OpeningRow>(format);
    if let Some(g) = min_gap {
        notes.push(format!(
            "Only rolls where at least one decision has a gap of at least {g} points."
        ));
    }
    let mut buf = Vec::new();
    exporter.begin(&meta(notes), &mut buf);
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
    use crate::export::tests::assert_row_columns;

    #[test]
    fn columns_match_the_serialized_fields() {
        assert_row_columns(&OpeningRow {
            pattern: "x",
            dice: "11111",
            expected: 1.0,
            best_2: "a",
            runner_up_2: None,
            gap_2: None,
            best_1: "b",
            runner_up_1: None,
            gap_1: None,
        });
    }

    fn p(s: &str) -> Pattern {
        pattern_of(&s.parse().unwrap())
    }

    #[test]
    fn classifies_rolls() {
        assert_eq!(p("44444"), Pattern::FiveOfAKind);
        assert_eq!(p("23456"), Pattern::StraightOfFive);
        assert_eq!(p("12334"), Pattern::StraightOfFour);
        assert_eq!(p("13456"), Pattern::StraightOfFour);
        assert_eq!(p("22226"), Pattern::FourOfAKind);
        assert_eq!(p("33555"), Pattern::FullHouse);
        assert_eq!(p("33356"), Pattern::ThreeOfAKind);
        assert_eq!(p("11335"), Pattern::TwoPairs);
        assert_eq!(p("11356"), Pattern::OnePair);
        assert_eq!(p("12356"), Pattern::AllDifferent);
    }

    #[test]
    fn every_roll_has_one_pattern_and_the_counts_add_up() {
        let mut n = [0usize; 9];
        for d in Dice::all() {
            n[pattern_of(&d) as usize] += 1;
        }
        assert_eq!(n.iter().sum::<usize>(), 252);
        // 6 five of a kind, 2 straights of five, 30 four of a kind, 30 full houses.
        assert_eq!((n[0], n[1], n[3], n[4]), (6, 2, 30, 30));
        // Only 12356 and 12456 are all different without a run of four.
        assert_eq!(n[8], 2);
    }
}
