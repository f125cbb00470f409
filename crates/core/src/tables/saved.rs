//! The table of the expected score under saved rolls (`solve::saved`): the value of every
//! reachable turn-start state with every number of rolls saved it can have, in the table
//! file every table shares ([`super::container`], objective [`SAVED_EXPECTED_SCORE`]).
//!
//! The solve holds two depths at a time and hands each to the file as it is solved, so the
//! table of Maxi Yatzy (1.27 billion values, 10 GB) is written without ever being in memory.
//! The body is the expected-score table's (a count, the values as little-endian `f64`, the
//! CRC-32 of each piece of [`PIECE_VALUES`](super::expected::PIECE_VALUES) values): the
//! depths from the full cards to the empty card; in a depth its cards ascending; for each
//! card each number of rolls saved from 0 to the most its turn may start with
//! ([`Rules::most_saved_rolls`]); for each, the reachable rows of the card (each flag, then
//! the reachable upper totals). No value of an unreachable state is stored.
//!
//! A table is read in part ([`SavedTable::load_cards`]): the rows of the cards a turn reads
//! (its own and the next), a few pieces, in milliseconds whatever the size of the file;
//! small games are read whole ([`SavedTable::load`]).

use std::path::Path;
use std::sync::Arc;

use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{Layout, State, UpperTotals, cards_by_depth, reachable_rows, set_bits};
use crate::solve::expected::SolveOptions;
use crate::solve::kernel::{ScoreTable, score_table};
use crate::solve::saved::{Depth, SavedSolution, solve_saved_with};
use crate::tables::TableError;
use crate::tables::container::{self, TableFile, TableHeader};
use crate::tables::expected::{
    BodyWriter, Pieces, StrategyTable, VALUE_TYPE, body_bytes, read_index,
};

/// The objective of the table of saved rolls, as its header names it.
pub const SAVED_EXPECTED_SCORE: &str = "expected-score-saved-rolls";

/// The reachable rows of one card: its upper totals (the same for each flag) and its flags.
#[derive(Clone, Copy, Debug)]
struct CardRows {
    card: BoxMask,
    uppers: UpperTotals,
    flags: usize,
}

impl CardRows {
    /// The values of the card for one number of rolls saved.
    fn per_saved(&self) -> u64 {
        (self.flags as u64) * u64::from(self.uppers.count_ones())
    }
}

/// The reachable rows of every card, by depth (boxes filled), cards ascending.
fn rows_by_depth(rules: &Rules) -> Vec<Vec<CardRows>> {
    let layout = Layout::of(rules);
    let mut by_depth: Vec<Vec<CardRows>> = vec![Vec::new(); rules.box_count() + 1];
    for (row, uppers) in reachable_rows(rules) {
        let card = (row / (layout.flags * layout.lanes)) as BoxMask;
        let depth = &mut by_depth[card.count_ones() as usize];
        match depth.last_mut() {
            Some(last) if last.card == card => last.flags += 1,
            _ => depth.push(CardRows {
                card,
                uppers,
                flags: 1,
            }),
        }
    }
    by_depth
}

/// The values of each depth of `rules`' table (every card, every number of rolls saved).
fn depth_counts(rules: &Rules, rows: &[Vec<CardRows>]) -> Vec<u64> {
    rows.iter()
        .enumerate()
        .map(|(t, cards)| {
            let saved = rules.most_saved_rolls(t) as u64 + 1;
            cards.iter().map(|c| c.per_saved() * saved).sum()
        })
        .collect()
}

/// The values of the table of saved rolls of `rules`: its reachable states, each with every
/// number of rolls saved it can have.
pub fn saved_value_count(rules: &Rules) -> u64 {
    depth_counts(rules, &rows_by_depth(rules)).iter().sum()
}

/// The expected score under saved rolls of every reachable state of a game, or of the states
/// of some cards (a table read in part).
#[derive(Debug)]
pub struct SavedTable {
    rules: Rules,
    scores: Arc<ScoreTable>,
    /// By depth (boxes filled), the cards held and their values.
    depths: Vec<Depth>,
    whole: bool,
    checksum: u32,
}

/// What a build of the table reports.
#[derive(Clone, Debug)]
pub struct SavedBuild {
    /// The solve (its expected score, states, peak and time; no depth kept).
    pub solution: SavedSolution,
    /// The values written.
    pub values: u64,
    /// The file's size in bytes.
    pub bytes: u64,
}

impl SavedTable {
    /// Solves `rules` (a game of saved rolls) and writes its table to `path` as each depth is
    /// solved (through a temporary file renamed into place at the end, as every table): two
    /// depths in memory at a time. `progress` is called after each depth with the cards
    /// solved and their total.
    pub fn build(
        path: &Path,
        rules: &Rules,
        options: SolveOptions,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<SavedBuild, TableError> {
        assert!(rules.saved_rolls(), "a game with saved rolls");
        let rows = rows_by_depth(rules);
        let count: u64 = depth_counts(rules, &rows).iter().sum();
        let mut solution = None;
        container::save(path, |out| {
            let header = TableHeader {
                entries: count,
                body_bytes: body_bytes(count).expect("a table's size fits in 64 bits"),
                ..TableHeader::new(rules, SAVED_EXPECTED_SCORE, VALUE_TYPE)
            };
            container::write_table(out, header, |write| {
                let mut body = BodyWriter::new(count, write)?;
                let solved = solve_saved_with(rules, options, progress, &mut |depth: &Depth| {
                    let t = depth.cards().first().map_or(0, |c| c.count_ones() as usize);
                    for card in &rows[t] {
                        for saved in 0..=depth.most_saved() {
                            for flag in 0..card.flags {
                                let row = depth.row(card.card, saved, flag == 1);
                                for u in set_bits(card.uppers) {
                                    body.push(row[u])?;
                                }
                            }
                        }
                    }
                    Ok::<(), std::io::Error>(())
                })?;
                solution = Some(solved);
                let (_, index_checksum) = body.finish()?;
                Ok(Some(index_checksum))
            })
        })?;
        let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        Ok(SavedBuild {
            solution: solution.expect("the table was written"),
            values: count,
            bytes,
        })
    }

    /// The whole table of `rules` at `path`, every piece read and checked.
    pub fn load(path: &Path, rules: &Rules) -> Result<SavedTable, TableError> {
        SavedTable::read(path, rules, None)
    }

    /// The part of the table of `rules` at `path` that the turns of the cards `cards` read:
    /// the rows of their cards and of the cards after them
    /// ([`StrategyTable::cards_of_turn`]), with the pieces that hold them alone, each checked
    /// against the index. The table answers for the states of those cards alone.
    pub fn load_cards(
        path: &Path,
        rules: &Rules,
        cards: &[BoxMask],
    ) -> Result<SavedTable, TableError> {
        let held = StrategyTable::cards_of_turns(rules, cards);
        SavedTable::read(path, rules, Some(&held))
    }

    /// Checks every piece of the table at `path` (of `rules` when given, else of the rules
    /// its header names) against the index, and every value a number, reading the file once
    /// piece by piece (a table of gigabytes in a few megabytes of memory): what `yahtzee
    /// verify` does. Returns its header and the expected score from the start.
    pub fn verify(path: &Path, rules: Option<&Rules>) -> Result<(TableHeader, f64), TableError> {
        let (file, rules) = SavedTable::open(path, rules)?;
        let count = file.head.header.entries;
        let index = read_index(&file, count)?;
        let mut pieces = Pieces::new(&file, &index, count);
        for k in 0..count {
            pieces.value(k)?;
        }
        let start = SavedTable::read(path, &rules, Some(&[0]))?;
        let score = start.expected_score().expect("the empty card is held");
        Ok((file.head.header.clone(), score))
    }

    /// The table file at `path`, its header checked: the objective, the length, the rules
    /// (`rules` when given, else those it names), the count of values.
    fn open(path: &Path, rules: Option<&Rules>) -> Result<(TableFile, Rules), TableError> {
        let file = TableFile::open(path)?;
        let head = &file.head;
        head.check_kind(SAVED_EXPECTED_SCORE, VALUE_TYPE)?;
        head.check_length(file.len, 0)?;
        let rules = head.rules_or_named(rules)?;
        let count = saved_value_count(&rules);
        let header = &head.header;
        if header.entries != count || Some(header.body_bytes) != body_bytes(count) {
            return Err(head.origin.corrupt(format!(
                "{} values where {} with saved rolls has {count}",
                header.entries,
                rules.label()
            )));
        }
        let stored = file.read_at(head.body_at, 8)?;
        if u64::from_le_bytes(stored[..].try_into().expect("8 bytes")) != count {
            return Err(head
                .origin
                .corrupt("a count of values other than the header's"));
        }
        Ok((file, rules))
    }

    /// The table at `path`, every card's rows or those of `cards` (ascending).
    fn read(
        path: &Path,
        rules: &Rules,
        cards: Option<&[BoxMask]>,
    ) -> Result<SavedTable, TableError> {
        let (file, _) = SavedTable::open(path, Some(rules))?;
        let rows = rows_by_depth(rules);
        let counts = depth_counts(rules, &rows);
        let count: u64 = counts.iter().sum();
        let header = &file.head.header;
        let index = read_index(&file, count)?;
        let layout = Layout::of(rules);
        let by_depth = cards_by_depth(rules);
        // The depths in the file's order (the full cards first); each card held read from
        // its first value, the pieces in order.
        let mut pieces = Pieces::new(&file, &index, count);
        let mut depths = Vec::with_capacity(rows.len());
        let mut first = 0u64;
        for t in (0..rows.len()).rev() {
            let most = rules.most_saved_rolls(t);
            let held: Vec<BoxMask> = match cards {
                None => by_depth[t].clone(),
                Some(cards) => cards
                    .iter()
                    .copied()
                    .filter(|c| c.count_ones() as usize == t)
                    .collect(),
            };
            let mut depth = Depth::zeros(held, most, layout);
            let per_card = depth.per_card();
            let mut at_card = 0;
            let mut card_first = first;
            for card in &rows[t] {
                while at_card < depth.cards().len() && depth.cards()[at_card] < card.card {
                    at_card += 1;
                }
                if depth.cards().get(at_card) == Some(&card.card) {
                    let mut k = card_first;
                    for saved in 0..=most {
                        for flag in 0..card.flags {
                            let row =
                                at_card * per_card + (saved * layout.flags + flag) * layout.lanes;
                            for u in set_bits(card.uppers) {
                                depth.values_mut()[row + u] = pieces.value(k)?;
                                k += 1;
                            }
                        }
                    }
                }
                card_first += card.per_saved() * (most as u64 + 1);
            }
            first += counts[t];
            depths.push(depth);
        }
        depths.reverse();
        Ok(SavedTable {
            rules: *rules,
            scores: Arc::new(score_table(rules)),
            depths,
            whole: cards.is_none(),
            checksum: header.checksum,
        })
    }

    /// The rules of the table.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The score table of the rules.
    pub(crate) fn scores(&self) -> &ScoreTable {
        &self.scores
    }

    /// True when every card's values are held.
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    /// The CRC-32 of the table file's body.
    pub fn checksum(&self) -> u32 {
        self.checksum
    }

    /// The values of the cards of `depth` boxes filled.
    pub(crate) fn depth(&self, depth: usize) -> &Depth {
        &self.depths[depth]
    }

    /// The expected future score of `state` with `saved` rolls saved (without the upper bonus
    /// already held), or `None` when the table does not hold its card (read in part) or the
    /// state cannot have that many rolls saved.
    pub fn value(&self, state: &State, saved: usize) -> Option<f64> {
        self.depths
            .get(state.filled.count_ones() as usize)?
            .value(state, saved)
    }

    /// The expected score of the game from its start, when the table holds the empty card.
    pub fn expected_score(&self) -> Option<f64> {
        self.value(&State::START, 0)
    }
}
