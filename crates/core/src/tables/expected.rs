//! The strategy table: the solved value of every state, and the file it is saved in.
//!
//! A table file is built once by `yahtzee solve` and loaded by every query. It is the
//! container of every table file ([`crate::tables::container`]: magic, format version,
//! header, checksummed body), whose header names the objective `expected-score` and the
//! value type `f64`, with this body:
//!
//! ```text
//! body         bincode   Vec<f64>, the values of the reachable states
//!                        (`state::reachable_rows`), in the order of `state::Layout`
//! ```
//!
//! Only reachable states are stored (536,448 of the 1,048,576 entries of the official rules'
//! dense layout): the file is half the size, and loading puts each value back at its place.
//!
//! Loading checks each part in that order and refuses a file of another rule set: a table
//! never answers a question about other rules. The same checks serve a table given as bytes
//! ([`StrategyTable::from_bytes`]; loading a path reads the file and checks its bytes), and
//! the errors say where the table came from ([`Origin`]). A file is written through
//! [`crate::files`], to a temporary name in the same folder renamed into place, so an
//! interrupted write never leaves a half-written table where a table is expected.

use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::game::rules::{Order, Rules};
use crate::game::state::{
    Layout, State, UPPER_TOTALS, UpperTotals, reachable_rows, reachable_state_count, set_bits,
};
use crate::solve::expected::{
    CARD_LANES, CardKeepValues, ExpectedValues, Layer, ScoreTable, SolveOptions, Turn, TurnKeeps,
    TurnValues, card_keep_values, card_keeps, card_turns,
};
use crate::solve::kernel::score_table;
use crate::tables::container::{self, FORMAT_VERSION, Head, TableHeader};
use crate::tables::{Origin, TableError};

/// The value type stored, written into the header.
pub const VALUE_TYPE: &str = "f64";
/// The objective of the expected-score table, written into the header.
pub const EXPECTED_SCORE: &str = "expected-score";
/// Environment variable naming the folder of the default tables.
pub const TABLE_DIR_ENV: &str = "YAHTZEE_TABLE_DIR";

/// The solved values of every state of one rule set.
#[derive(Clone, Debug)]
pub struct StrategyTable {
    rules: Rules,
    layout: Layout,
    values: Vec<f64>,
    scores: Arc<ScoreTable>,
    /// The CRC-32 of the body of its file, computed when first asked for.
    checksum: OnceLock<u32>,
}

impl StrategyTable {
    /// Solves `rules` (see [`crate::solve::expected::solve`]) and returns the table and the seconds taken.
    pub fn solve(
        rules: &Rules,
        options: SolveOptions,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> (StrategyTable, f64) {
        let solution = crate::solve::expected::solve(rules, options, progress);
        (
            StrategyTable {
                rules: *rules,
                layout: Layout::of(rules),
                values: solution.values,
                scores: Arc::new(score_table(rules)),
                checksum: OnceLock::new(),
            },
            solution.seconds,
        )
    }

    /// The turn of the card of `states` (all of one card: the same boxes filled), `None`
    /// without states.
    fn card_turn(&self, states: &[State]) -> Option<Turn<'_>> {
        let first = states.first()?;
        assert!(
            states.iter().all(|s| s.filled == first.filled),
            "states of one card"
        );
        Some(Turn {
            rules: &self.rules,
            scores: &self.scores,
            filled: first.filled,
        })
    }

    /// The optimal keeps of the turns of `states`, all of one card: each state's
    /// [`TurnValues::best_keep_of_roll`] for every roll, bit for bit, chosen
    /// [`CARD_LANES`] states at a time by one run of the kernel and one scan of the tie rule
    /// over the lanes.
    pub fn card_keeps(&self, states: &[State]) -> Vec<TurnKeeps> {
        let Some(turn) = self.card_turn(states) else {
            return Vec::new();
        };
        states
            .chunks(CARD_LANES)
            .flat_map(|chunk| {
                let lanes: Vec<(u8, bool)> =
                    chunk.iter().map(|s| (s.upper, s.yahtzee_50)).collect();
                card_keeps(&turn, &self.layout, &self.values, &lanes)
            })
            .collect()
    }

    /// The keep values of `states` (at most [`CARD_LANES`], all of one card) into `into`, lane
    /// by lane: one run of the kernel, whose keeps are then chosen one roll at a time or all
    /// at once (see [`CardKeepValues`]).
    pub fn card_keep_values(&self, states: &[State], into: &mut CardKeepValues) {
        let turn = self.card_turn(states).expect("a state");
        assert!(states.len() <= CARD_LANES);
        let lanes: Vec<(u8, bool)> = states.iter().map(|s| (s.upper, s.yahtzee_50)).collect();
        card_keep_values(&turn, &self.layout, &self.values, &lanes, into);
    }

    /// The turns of `states`, all of one card (the same boxes filled): each the
    /// [`TurnValues::new`] of its state, bit for bit, computed [`CARD_LANES`] states at a time
    /// by one run of the kernel.
    pub fn card_turns(&self, states: &[State]) -> Vec<TurnValues> {
        let Some(turn) = self.card_turn(states) else {
            return Vec::new();
        };
        let mut turns = Vec::with_capacity(states.len());
        for chunk in states.chunks(CARD_LANES) {
            if let [state] = chunk {
                // One state: the kernel of one lane is cheaper.
                turns.push(TurnValues::new(self, state));
                continue;
            }
            let lanes: Vec<(u8, bool)> = chunk.iter().map(|s| (s.upper, s.yahtzee_50)).collect();
            let at = turns.len();
            turns.extend(chunk.iter().map(|_| TurnValues::empty(self.rules.dice())));
            card_turns(
                &turn,
                &self.layout,
                &self.values,
                &lanes,
                Layer::Opening,
                |l, layer, v| {
                    turns[at + l].add_layer(layer, v);
                },
            );
        }
        turns
    }

    /// The rules of this table.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Where each state sits in [`StrategyTable::values`].
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Points of every box for every roll, without Joker (for the solver's turn kernel).
    pub(crate) fn scores(&self) -> &ScoreTable {
        &self.scores
    }

    /// All values, in the order of [`Layout`].
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Expected future score of a state under optimal play: the points still to come,
    /// bonuses included.
    pub fn value(&self, state: &State) -> f64 {
        self.values[self.layout.index(state)]
    }

    /// The CRC-32 of the body of the table's file (what `yahtzee verify` prints as its
    /// checksum), the same for the table solved or loaded: the file's bytes are a function of
    /// the values. Computed from the bytes the first time it is asked for (milliseconds).
    pub fn checksum(&self) -> u32 {
        *self.checksum.get_or_init(|| {
            container::read_header(&self.to_bytes())
                .expect("a table's own bytes have a header")
                .checksum
        })
    }

    /// Expected final score of an empty card.
    pub fn expected_score(&self) -> f64 {
        self.value(&State::START)
    }

    /// Number of reachable turn-start states (full cards included).
    pub fn states(&self) -> u64 {
        reachable_state_count(&self.rules)
    }

    /// Writes the table to `path` through a temporary file in the same folder (see
    /// [`crate::files`]), renamed into place once complete and synced; missing folders are
    /// created.
    pub fn save(&self, path: &Path) -> Result<(), TableError> {
        container::save(path, |out| self.write_to(out))
    }

    /// Writes the table file's bytes to `out` in one pass over the values (see
    /// [`crate::tables::container`]: the header is written again in place once the body's
    /// checksum is known, hence the `Seek`).
    pub fn write_to<W: Write + Seek>(&self, out: &mut W) -> std::io::Result<()> {
        let entries = reachable_state_count(&self.rules);
        let header = TableHeader {
            entries,
            body_bytes: 8 * (1 + entries),
            ..TableHeader::new(&self.rules, EXPECTED_SCORE, VALUE_TYPE)
        };
        let body_bytes = header.body_bytes;
        container::write_table(out, header, |write| {
            let rows = reachable_rows(&self.rules);
            let size = write_body(entries, &self.values, rows, write)?;
            debug_assert_eq!(size, body_bytes);
            Ok(())
        })
    }

    /// The table file's bytes, as [`StrategyTable::save`] writes them.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        self.write_to(&mut out)
            .expect("writing to memory cannot fail");
        out.into_inner()
    }

    /// Loads the table of `rules` from `path`: reads the file and checks it as
    /// [`StrategyTable::from_bytes`] does, with the path in the errors.
    pub fn load(path: &Path, rules: &Rules) -> Result<StrategyTable, TableError> {
        let bytes = container::read(path)?;
        StrategyTable::checked(&bytes, Origin::File(path.to_path_buf()), rules)
    }

    /// The table of `rules` from the bytes of a table file, refusing a table of other rules,
    /// of another format version, truncated or corrupted.
    pub fn from_bytes(bytes: &[u8], rules: &Rules) -> Result<StrategyTable, TableError> {
        StrategyTable::checked(bytes, Origin::Bytes, rules)
    }

    fn checked(bytes: &[u8], origin: Origin, rules: &Rules) -> Result<StrategyTable, TableError> {
        let (head, values_at) = check_bytes(bytes, origin)?;
        head.check_rules(rules)?;
        StrategyTable::from_parts(&head.origin, *rules, &bytes[values_at..])
    }

    /// Loads whatever table is at `path`, with the rules its header names: what `yahtzee
    /// verify` checks.
    pub fn open(path: &Path) -> Result<(TableHeader, StrategyTable), TableError> {
        let bytes = container::read(path)?;
        StrategyTable::opened(&bytes, Origin::File(path.to_path_buf()))
    }

    /// Whatever table `bytes` hold, with the rules its header names.
    pub fn open_bytes(bytes: &[u8]) -> Result<(TableHeader, StrategyTable), TableError> {
        StrategyTable::opened(bytes, Origin::Bytes)
    }

    fn opened(bytes: &[u8], origin: Origin) -> Result<(TableHeader, StrategyTable), TableError> {
        let (head, values_at) = check_bytes(bytes, origin)?;
        let rules = head.named_rules()?;
        let table = StrategyTable::from_parts(&head.origin, rules, &bytes[values_at..])?;
        Ok((head.header, table))
    }

    /// The table of `rules` from the stored values (`stored`: 8 bytes each), each put back
    /// at its place in the dense layout.
    fn from_parts(
        origin: &Origin,
        rules: Rules,
        stored: &[u8],
    ) -> Result<StrategyTable, TableError> {
        let layout = Layout::of(&rules);
        let entries = reachable_state_count(&rules);
        if stored.len() as u64 != 8 * entries {
            return Err(origin.corrupt(format!(
                "{} values where {} rules have {entries} reachable states",
                stored.len() / 8,
                rules.label(),
            )));
        }
        let mut values = vec![0.0; layout.len()];
        let mut stored = stored.chunks_exact(8);
        for (row, uppers) in reachable_rows(&rules) {
            for u in set_bits(uppers) {
                let v = stored.next().expect("as many values as reachable states");
                let v = f64::from_le_bytes(v.try_into().expect("eight bytes"));
                // No solve writes a value that is not finite: only a crafted file can.
                if !v.is_finite() {
                    return Err(origin.corrupt(format!("a value that is not a number ({v})")));
                }
                values[row + u] = v;
            }
        }
        Ok(StrategyTable {
            rules,
            layout,
            values,
            scores: Arc::new(score_table(&rules)),
            checksum: OnceLock::new(),
        })
    }
}

impl ExpectedValues for StrategyTable {
    fn rules(&self) -> &Rules {
        &self.rules
    }

    fn value(&self, state: &State) -> f64 {
        StrategyTable::value(self, state)
    }

    fn turn(&self, state: &State, last: Layer, visit: &mut dyn FnMut(Layer, &[f64])) {
        crate::solve::expected::state_turn(
            &self.rules,
            &self.scores,
            &self.layout,
            &self.values,
            state,
            last,
            visit,
        );
    }

    fn card_keeps(&self, states: &[State]) -> Vec<TurnKeeps> {
        StrategyTable::card_keeps(self, states)
    }
}

/// Checks a table file's bytes part by part and returns its head and where the stored
/// values start.
fn check_bytes(bytes: &[u8], origin: Origin) -> Result<(Head, usize), TableError> {
    let head = Head::of(bytes, origin)?;
    head.check_kind(EXPECTED_SCORE, VALUE_TYPE)?;
    let header = &head.header;
    // The fields of a vector table are 0 here (found by fuzzing: a table with another tail
    // loaded, and wrote back other bytes than it was read from).
    if header.index_checksum != 0 || header.tail.to_bits() != 0 {
        return Err(head.origin.corrupt(
            "header with an index checksum or a tail, which an expected-score table has not",
        ));
    }
    head.check_length(bytes.len() as u64, 0)?;
    let body = &bytes[head.body_at as usize..];
    container::check_crc(&head.origin, header.checksum, body)?;
    let count = body_count(body).ok_or_else(|| head.origin.corrupt("unreadable values"))?;
    if count != header.entries {
        return Err(head
            .origin
            .corrupt(format!("{count} values, header says {}", header.entries)));
    }
    let values_at = head.body_at as usize + 8;
    Ok((head, values_at))
}

/// Values per piece of the body written at a time.
const BODY_PIECE: usize = 32 * 1024;

/// Passes the body of a table storing the `count` values of `rows` (row start and set of
/// totals, as `state::reachable_rows` lists them) to `write`, piece by piece, and returns its
/// size. The body is what bincode writes for a `Vec<f64>` (the count as a little-endian
/// u64, then each value little-endian), made here in pieces so that saving copies no more than
/// a piece of the values at a time.
fn write_body(
    count: u64,
    values: &[f64],
    rows: impl Iterator<Item = (usize, UpperTotals)>,
    write: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<u64> {
    write(&count.to_le_bytes())?;
    let mut piece = Vec::with_capacity(BODY_PIECE * 8);
    let mut written = 0;
    for (row, uppers) in rows {
        for u in set_bits(uppers) {
            piece.extend_from_slice(&values[row + u].to_le_bytes());
        }
        // A row adds at most `UPPER_TOTALS` values: flush before the piece could grow.
        if piece.len() + UPPER_TOTALS * 8 > piece.capacity() {
            write(&piece)?;
            written += piece.len();
            piece.clear();
        }
    }
    write(&piece)?;
    written += piece.len();
    debug_assert_eq!(written as u64, 8 * count);
    Ok(8 + written as u64)
}

/// The count of values of a body made by [`write_body`], or `None` if it does not match the
/// body's size.
fn body_count(body: &[u8]) -> Option<u64> {
    let (count, values) = body.split_first_chunk::<8>()?;
    let count = u64::from_le_bytes(*count);
    (values.len() % 8 == 0 && count == values.len() as u64 / 8).then_some(count)
}

/// The folder of the default tables: `$YAHTZEE_TABLE_DIR`, else the user's cache folder.
pub fn default_table_dir() -> PathBuf {
    match std::env::var_os(TABLE_DIR_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => dirs::cache_dir()
            .unwrap_or_else(std::env::temp_dir)
            .join("yahtzee"),
    }
}

/// File name of the default expected-score table of `rules`, e.g.
/// `yahtzee-upper-first.v3.table`.
pub fn default_table_name(rules: &Rules) -> String {
    default_table_name_of(rules, EXPECTED_SCORE)
}

/// The rules and objective whose default table file is named `name` (see
/// [`default_table_name_of`]), if it is such a name: what a message about a missing file of
/// that name can suggest building.
pub fn default_table_of_name(name: &str) -> Option<(Rules, &'static str)> {
    use crate::solve::vector::{DISTRIBUTION, TARGET};
    use crate::tables::two_player::TWO_PLAYER;
    Rules::all()
        .flat_map(|rules| {
            [EXPECTED_SCORE, TARGET, DISTRIBUTION, TWO_PLAYER].map(move |kind| (rules, kind))
        })
        .find(|(rules, kind)| default_table_name_of(rules, kind) == name)
}

/// File name of the default table of `rules` for `objective`: the expected-score table's
/// `yahtzee.v3.table`, the others' `yahtzee.target.v3.table`.
pub fn default_table_name_of(rules: &Rules, objective: &str) -> String {
    let modifier = match rules.order {
        Order::Any => "",
        Order::UpperFirst => "-upper-first",
    };
    let kind = if objective == EXPECTED_SCORE {
        String::new()
    } else {
        format!(".{objective}")
    };
    format!(
        "{}{modifier}{kind}.v{FORMAT_VERSION}.table",
        rules.set.name()
    )
}

/// The default table path of `rules`.
pub fn default_table_path(rules: &Rules) -> PathBuf {
    default_table_dir().join(default_table_name(rules))
}

/// The default table path of `rules` for `objective`.
pub fn default_table_path_of(rules: &Rules, objective: &str) -> PathBuf {
    default_table_dir().join(default_table_name_of(rules, objective))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::dice::ROLLS;
    use crate::game::rules::RuleSet;

    /// A card's turns (and keeps) computed together are, bit for bit, each state's turn
    /// (and keeps) alone: every
    /// reachable upper total and flag of a spread of cards, in chunks of every length.
    #[test]
    fn card_turns_are_the_turns_of_each_state_alone() {
        for set in [RuleSet::YACHT, RuleSet::YAHTZEE, RuleSet::YATZY] {
            let rules = Rules::new(set);
            let (table, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
            let full = rules.full_mask();
            for filled in (0..full).step_by(97).chain([0, full & !1]) {
                let states = crate::game::state::card_states(&rules, filled);
                for take in [1, 3, states.len()] {
                    let some = &states[..take.min(states.len())];
                    for (state, keeps) in some.iter().zip(table.card_keeps(some)) {
                        let alone = TurnValues::new(&table, state);
                        for rolls_left in [1, 2] {
                            for r in 0..ROLLS {
                                assert_eq!(
                                    usize::from(keeps.of_roll(rolls_left, r)),
                                    alone.best_keep_of_roll(rolls_left, r).0,
                                    "{set:?} {state:?} {rolls_left} {r}"
                                );
                            }
                        }
                    }
                    // The keeps chosen one roll at a time from the values of a block of lanes.
                    let mut keep_values = CardKeepValues::new(rules.dice());
                    for chunk in some.chunks(CARD_LANES) {
                        table.card_keep_values(chunk, &mut keep_values);
                        for (lane, state) in chunk.iter().enumerate() {
                            let alone = TurnValues::new(&table, state);
                            for rolls_left in [1, 2] {
                                for r in 0..ROLLS {
                                    assert_eq!(
                                        keep_values.best_keep_of_roll(lane, rolls_left, r),
                                        alone.best_keep_of_roll(rolls_left, r).0,
                                        "{set:?} {state:?} {rolls_left} {r}"
                                    );
                                }
                            }
                        }
                    }
                    for (state, turn) in some.iter().zip(table.card_turns(some)) {
                        let alone = TurnValues::new(&table, state);
                        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                        assert_eq!(turn.by_rolls_left.len(), 2);
                        for (layer, alone_layer) in
                            turn.by_rolls_left.iter().zip(&alone.by_rolls_left)
                        {
                            assert_eq!(bits(layer), bits(alone_layer), "{set:?} {state:?}");
                        }
                        assert_eq!(
                            bits(&turn.opening_rolls),
                            bits(&alone.opening_rolls),
                            "{state:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn body_is_bincode_of_the_values() {
        // More than one piece, and values whose bytes differ from end to end.
        let values: Vec<f64> = (0..BODY_PIECE * 2 + 5)
            .map(|i| i as f64 * 1.25 - 7.0)
            .collect();
        let mut body = Vec::new();
        // Rows of 64, then one of 5 values.
        let rows = (0..values.len()).step_by(64).map(|row| {
            (
                row,
                (u64::MAX >> (64 - (values.len() - row).min(64))).into(),
            )
        });
        let size = write_body(values.len() as u64, &values, rows, &mut |bytes| {
            body.extend_from_slice(bytes);
            Ok(())
        })
        .unwrap();
        assert_eq!(body, bincode::serialize(&values).unwrap());
        assert_eq!(size, body.len() as u64);
        assert_eq!(body_count(&body), Some(values.len() as u64));
        // A count that does not match the size, and a size that is not whole values.
        let mut wrong = body.clone();
        wrong[0] ^= 1;
        assert_eq!(body_count(&wrong), None);
        assert_eq!(body_count(&body[..body.len() - 3]), None);
        assert_eq!(body_count(&body[..5]), None);
    }

    #[test]
    fn stores_only_reachable_states_and_puts_them_back() {
        let rules = Rules::with_order(RuleSet::YAHTZEE, Order::UpperFirst);
        let (table, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.table");
        table.save(&path).unwrap();
        let header_and_prefix = std::fs::metadata(&path).unwrap().len() - 8 * table.states();
        assert!(
            header_and_prefix < 200,
            "{header_and_prefix} bytes beside the values"
        );
        let loaded = StrategyTable::load(&path, &rules).unwrap();
        assert_eq!(loaded.values(), table.values());
    }
}
