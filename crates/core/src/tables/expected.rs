//! The strategy table: the solved value of every state, and the file it is saved in.
//!
//! A table file is built once by `yahtzee solve` and loaded by every query. It is the
//! container of every table file ([`crate::tables::container`]: magic, format version,
//! header, checksummed body), whose header names the objective `expected-score` and the
//! value type `f64`, with this body:
//!
//! ```text
//! body         count     u64 LE, the number of values
//!              values    f64 LE, the values of the reachable states
//!                        (`state::reachable_rows`), in the order of `state::Layout`
//!              index     u32 LE, the CRC-32 of each piece of `PIECE_VALUES` values (the
//!                        last piece shorter), whose own CRC-32 is the header's index checksum
//! ```
//!
//! The count and the values are what bincode writes for a `Vec<f64>` (the body of format 3);
//! the header's checksum is the CRC-32 of the whole body, index included.
//!
//! Only reachable states are stored (536,448 of the 1,048,576 entries of the official rules'
//! dense layout): the file is half the size, and loading puts each value back at its place.
//!
//! Loading checks each part in that order and refuses a file of another rule set (by the
//! SHA-256 of its game): a table never answers a question about other rules. The body is read
//! as a stream, each value put at its place as it passes and the whole checksummed (each
//! piece against the index too), so a load holds the values and no copy of the file. A table
//! of a large game can be read in part ([`StrategyTable::load_cards`]): the rows of the few
//! cards a position's turn reads, found by their place among the values and read with the
//! pieces that hold them, each checked by its CRC-32 in the index (itself checked by the
//! header): a few pieces of 32 KiB read and held, not the gigabytes of the whole table.
//! The same checks serve a table given as bytes ([`StrategyTable::from_bytes`]), and the
//! errors say where the table came from ([`Origin`]). A file is written through
//! [`crate::files`], to a temporary name in the same folder renamed into place, so an
//! interrupted write never leaves a half-written table where a table is expected.

use std::io::{Read, Seek, Write};
use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{
    Layout, State, UPPER_TOTALS, UpperTotals, reachable_rows, reachable_state_count, set_bits,
};
use crate::solve::expected::{
    CARD_LANES, CardKeepValues, ExpectedValues, Layer, ScoreTable, SolveOptions, Solved, Turn,
    TurnKeeps, TurnValues, card_keep_values, card_keeps, card_turns,
};
use crate::solve::kernel::score_table_for;
use crate::solve::theta::Theta;
use crate::tables::container::{self, Head, TableFile, TableHeader};
use crate::tables::{Origin, TableError};

/// The value type stored, written into the header.
pub const VALUE_TYPE: &str = "f64";
/// The objective of the expected-score table, written into the header.
pub const EXPECTED_SCORE: &str = "expected-score";
/// The objective of a table of certainty equivalents under an exponential utility
/// ([`crate::solve::theta`]), written into the header with its θ in the header's `tail`.
pub const THETA: &str = "theta";

/// Which objective a read accepts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Want {
    /// Whichever the header names: the expected score or a θ.
    Any,
    /// The expected score.
    ExpectedScore,
    /// The certainty equivalents of this θ.
    Theta(Theta),
}

/// The solved values of every state of one rule set (or of the states of a few cards: a
/// table read in part, [`StrategyTable::load_cards`]).
#[derive(Clone, Debug)]
pub struct StrategyTable {
    rules: Rules,
    layout: Layout,
    values: Vec<f64>,
    /// The cards whose rows `values` holds (ascending), for a table read in part; `None`:
    /// every state's value, in the order of the layout.
    cards: Option<Vec<BoxMask>>,
    scores: Arc<ScoreTable>,
    /// The CRC-32 of the body of its file: the header's for a table read, computed when first
    /// asked for otherwise.
    checksum: OnceLock<u32>,
    /// For a table of certainty equivalents, its θ ([`crate::solve::theta`]): its values,
    /// turns and choices are then those of the exponential utility; `None` for the expected
    /// score.
    theta: Option<Theta>,
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
            StrategyTable::of_values(*rules, solution.values, None),
            solution.seconds,
        )
    }

    /// Solves the certainty equivalents of `rules` under the exponential utility of `theta`
    /// (see [`crate::solve::expected::solve_theta`]) and returns the table and the seconds
    /// taken; refused in one line when a value would leave `f64`'s range.
    pub fn solve_theta(
        rules: &Rules,
        theta: Theta,
        options: SolveOptions,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<(StrategyTable, f64), String> {
        let solution = crate::solve::expected::solve_theta(rules, theta, options, progress)?;
        Ok((
            StrategyTable::of_values(*rules, solution.values, Some(theta)),
            solution.seconds,
        ))
    }

    /// The whole table of `values` (in the order of the layout) of `rules`, of the expected
    /// score or of a θ.
    fn of_values(rules: Rules, values: Vec<f64>, theta: Option<Theta>) -> StrategyTable {
        StrategyTable {
            rules,
            layout: Layout::of(&rules),
            values,
            cards: None,
            scores: Arc::new(score_table_for(&rules, theta.is_some())),
            checksum: OnceLock::new(),
            theta,
        }
    }

    /// The θ of a table of certainty equivalents; `None` for the expected score's.
    pub fn theta(&self) -> Option<Theta> {
        self.theta
    }

    /// The values as a turn reads them.
    fn solved(&self) -> Solved<'_> {
        match &self.cards {
            None => Solved::All(&self.values),
            Some(cards) => Solved::Cards {
                cards,
                values: &self.values,
            },
        }
    }

    /// True when the table holds every state's value; false for a table read in part
    /// ([`StrategyTable::load_cards`]), which answers for the states of its cards alone.
    pub fn is_whole(&self) -> bool {
        self.cards.is_none()
    }

    /// The cards a turn of the card `filled` reads: its own and each it can become by filling
    /// one more box (in the order of the rules), ascending. A table read in part for the
    /// cards of some positions ([`StrategyTable::load_cards`]) answers their advice.
    pub fn cards_of_turn(rules: &Rules, filled: BoxMask) -> Vec<BoxMask> {
        let mut cards: Vec<BoxMask> = std::iter::once(filled)
            .chain(set_bits(u64::from(rules.open_by_order(filled))).map(|b| filled | (1 << b)))
            .collect();
        cards.sort_unstable();
        cards
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
            theta: self.theta,
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
                card_keeps(&turn, &self.layout, self.solved(), &lanes)
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
        card_keep_values(&turn, &self.layout, self.solved(), &lanes, into);
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
                self.solved(),
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

    /// All values, in the order of [`Layout`] (for a table read in part, the rows of its
    /// cards, card after card).
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Expected future score of a state under optimal play: the points still to come,
    /// bonuses included.
    pub fn value(&self, state: &State) -> f64 {
        self.solved().value(&self.layout, state)
    }

    /// The CRC-32 of the body of the table's file (what `yahtzee verify` prints as its
    /// checksum), the same for the table solved or loaded: the file's bytes are a function of
    /// the values. A table read has its header's, checked as it was read; a table solved
    /// computes it from its body the first time it is asked for (milliseconds, no copy of
    /// the body held).
    pub fn checksum(&self) -> u32 {
        *self.checksum.get_or_init(|| {
            let mut crc = crc32fast::Hasher::new();
            let entries = reachable_state_count(&self.rules);
            write_body(
                entries,
                &self.values,
                reachable_rows(&self.rules),
                &mut |bytes| {
                    crc.update(bytes);
                    Ok(())
                },
            )
            .expect("checksumming cannot fail");
            crc.finalize()
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
        if !self.is_whole() {
            return Err(std::io::Error::other(
                "a table read in part (the rows of a few cards) cannot be written",
            ));
        }
        let entries = reachable_state_count(&self.rules);
        let objective = if self.theta.is_some() {
            THETA
        } else {
            EXPECTED_SCORE
        };
        let header = TableHeader {
            entries,
            body_bytes: body_bytes(entries).expect("a table's size fits in 64 bits"),
            // A θ table's θ is the header's parameter of its objective (the vector tables'
            // tail).
            tail: self.theta.map_or(0.0, Theta::value),
            ..TableHeader::new(&self.rules, objective, VALUE_TYPE)
        };
        let body_bytes = header.body_bytes;
        container::write_table(out, header, |write| {
            let rows = reachable_rows(&self.rules);
            let (size, index_checksum) = write_body(entries, &self.values, rows, write)?;
            debug_assert_eq!(size, body_bytes);
            Ok(Some(index_checksum))
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
        StrategyTable::read_file(path, Some(rules), None, Want::ExpectedScore).map(|(_, t)| t)
    }

    /// Loads the table of certainty equivalents of `rules` under `theta` from `path`, as
    /// [`StrategyTable::load`] does, refusing a table of another objective or another θ.
    pub fn load_theta(
        path: &Path,
        rules: &Rules,
        theta: Theta,
    ) -> Result<StrategyTable, TableError> {
        StrategyTable::read_file(path, Some(rules), None, Want::Theta(theta)).map(|(_, t)| t)
    }

    /// The part of the table of `rules` at `path` that the turns of the cards `cards` read:
    /// the rows of their cards and of the cards after them ([`StrategyTable::cards_of_turn`]),
    /// read with the pieces of the body that hold them and nothing else. The header is
    /// checked as [`StrategyTable::load`] does, then the index of the pieces' checksums
    /// (against the header's index checksum) and each piece read (against the index), and
    /// every value held must be a number; the values of the other pieces are neither read nor
    /// checked. The advice on a position of a game whose table takes gigabytes reads and
    /// holds a few hundred kilobytes, in milliseconds. The table answers for the states of
    /// those cards alone.
    pub fn load_cards(
        path: &Path,
        rules: &Rules,
        cards: &[BoxMask],
    ) -> Result<StrategyTable, TableError> {
        let held = StrategyTable::cards_of_turns(rules, cards);
        StrategyTable::read_file(path, Some(rules), Some(held), Want::ExpectedScore).map(|(_, t)| t)
    }

    /// The cards the turns of the cards `cards` read ([`StrategyTable::cards_of_turn`] of
    /// each), ascending, each once: what a table read in part for them holds.
    pub fn cards_of_turns(rules: &Rules, cards: &[BoxMask]) -> Vec<BoxMask> {
        let mut held: Vec<BoxMask> = cards
            .iter()
            .flat_map(|&c| StrategyTable::cards_of_turn(rules, c))
            .collect();
        held.sort_unstable();
        held.dedup();
        held
    }

    /// The table of `rules` from the bytes of a table file, refusing a table of other rules,
    /// of another format version, truncated or corrupted.
    pub fn from_bytes(bytes: &[u8], rules: &Rules) -> Result<StrategyTable, TableError> {
        StrategyTable::read_bytes(bytes, Some(rules), Want::ExpectedScore).map(|(_, t)| t)
    }

    /// Loads whatever table is at `path`, with the rules its header names: what `yahtzee
    /// verify` checks.
    pub fn open(path: &Path) -> Result<(TableHeader, StrategyTable), TableError> {
        StrategyTable::open_as(path, None)
    }

    /// Loads the table at `path` as a table of `rules` when given (refusing one of other
    /// rules, by their name and digest), else of the rules its header names (refusing rules
    /// this program does not know, such as a rules file's that was not given): what `yahtzee
    /// verify [--rules R]` checks.
    pub fn open_as(
        path: &Path,
        rules: Option<&Rules>,
    ) -> Result<(TableHeader, StrategyTable), TableError> {
        StrategyTable::read_file(path, rules, None, Want::Any)
    }

    /// Whatever table `bytes` hold, with the rules its header names.
    pub fn open_bytes(bytes: &[u8]) -> Result<(TableHeader, StrategyTable), TableError> {
        StrategyTable::read_bytes(bytes, None, Want::Any)
    }

    /// The table in the file at `path` (see [`StrategyTable::read`]).
    fn read_file(
        path: &Path,
        rules: Option<&Rules>,
        cards: Option<Vec<BoxMask>>,
        want: Want,
    ) -> Result<(TableHeader, StrategyTable), TableError> {
        let file = TableFile::open(path)?;
        match cards {
            None => {
                let mut body = file.body()?;
                let values = |rules: &Rules| read_values(&file.head, rules, &mut body);
                StrategyTable::read(&file.head, file.len, rules, want, values)
            }
            Some(cards) => {
                let values = |rules: &Rules| read_cards(&file, rules, &cards);
                let (header, mut table) =
                    StrategyTable::read(&file.head, file.len, rules, want, values)?;
                table.cards = Some(cards);
                Ok((header, table))
            }
        }
    }

    /// The table in `bytes` (see [`StrategyTable::read`]).
    fn read_bytes(
        bytes: &[u8],
        rules: Option<&Rules>,
        want: Want,
    ) -> Result<(TableHeader, StrategyTable), TableError> {
        let head = Head::of(bytes, Origin::Bytes)?;
        let mut body = &bytes[head.body_at as usize..];
        let values = |rules: &Rules| read_values(&head, rules, &mut body);
        StrategyTable::read(&head, bytes.len() as u64, rules, want, values)
    }

    /// The table of the head `head` of data of `len` bytes, checked part by part: the
    /// objective and value type, the length, the rules (`rules` when given, else those the
    /// header names), then the values `values` reads for those rules (every state's,
    /// [`read_values`], or the rows of some cards alone, [`read_cards`], which the caller
    /// then names in the table).
    fn read(
        head: &Head,
        len: u64,
        rules: Option<&Rules>,
        want: Want,
        values: impl FnOnce(&Rules) -> Result<Vec<f64>, TableError>,
    ) -> Result<(TableHeader, StrategyTable), TableError> {
        let header = &head.header;
        let theta = match want {
            Want::Theta(_) => Some(()),
            Want::Any if header.objective == THETA => Some(()),
            _ => None,
        };
        let theta = if theta.is_some() {
            head.check_kind(THETA, VALUE_TYPE)?;
            let theta = Theta::new(header.tail)
                .map_err(|_| head.origin.corrupt("header whose θ is not one"))?;
            if let Want::Theta(asked) = want
                && asked != theta
            {
                return Err(TableError::WrongObjective {
                    origin: head.origin.clone(),
                    expected: THETA,
                    got: format!("theta {theta} (not {asked})"),
                });
            }
            Some(theta)
        } else {
            head.check_kind(EXPECTED_SCORE, VALUE_TYPE)?;
            // The field of a vector table is 0 here (found by fuzzing: a table with another
            // tail loaded, and wrote back other bytes than it was read from).
            if header.tail.to_bits() != 0 {
                return Err(head
                    .origin
                    .corrupt("header with a tail, which an expected-score table has not"));
            }
            None
        };
        head.check_length(len, 0)?;
        let rules = head.rules_or_named(rules)?;
        let values = values(&rules)?;
        let table = StrategyTable {
            rules,
            layout: Layout::of(&rules),
            values,
            cards: None,
            scores: Arc::new(score_table_for(&rules, theta.is_some())),
            checksum: OnceLock::from(header.checksum),
            theta,
        };
        Ok((header.clone(), table))
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
            self.theta,
            &self.layout,
            self.solved(),
            state,
            last,
            visit,
        );
    }

    fn card_keeps(&self, states: &[State]) -> Vec<TurnKeeps> {
        StrategyTable::card_keeps(self, states)
    }
}

/// Values per piece of the body, each checked by its CRC-32 in the index that ends the body:
/// 32 KiB, so that the rows of one card (at most 2 x 127 values) rarely span two pieces, and
/// the index of the largest game (92 million values) takes 90 KB.
pub const PIECE_VALUES: usize = 4096;

/// The pieces of `count` values.
fn pieces(count: u64) -> u64 {
    count.div_ceil(PIECE_VALUES as u64)
}

/// The size of the body of `count` values: the count, the values, the index of their pieces
/// (`None` past `u64::MAX`: only a crafted header states such a count).
pub(crate) fn body_bytes(count: u64) -> Option<u64> {
    count.checked_mul(8)?.checked_add(8 + 4 * pieces(count))
}

/// The error of data read from `origin` whose bytes ran out (`cause`).
fn read_error(origin: &Origin, cause: std::io::Error) -> TableError {
    match origin {
        Origin::File(path) => TableError::Read {
            path: path.clone(),
            cause,
        },
        Origin::Bytes => origin.corrupt(cause.to_string()),
    }
}

/// The values of the body that `body` reads (as many bytes as the header of `head` says, the
/// data's length checked against it), read once from end to end, each at its place in the
/// dense layout of `rules`. The checks are a whole file's, in this order: the body's CRC-32,
/// its count of values ([`check_count`]), the index's CRC-32 and each piece's against it,
/// each value a number.
fn read_values(head: &Head, rules: &Rules, body: &mut dyn Read) -> Result<Vec<f64>, TableError> {
    let header = &head.header;
    let origin = &head.origin;
    let mut crc = crc32fast::Hasher::new();
    let mut read = |bytes: &mut [u8]| -> Result<(), TableError> {
        body.read_exact(bytes)
            .map_err(|cause| read_error(origin, cause))?;
        crc.update(bytes);
        Ok(())
    };
    let layout = Layout::of(rules);
    let reachable = reachable_state_count(rules);
    // The values of these rules fill the body exactly: then they are read into place; else
    // the body is only checksummed, and the checks below say what is wrong.
    let fits = Some(header.body_bytes) == body_bytes(reachable);
    let mut count = None;
    let mut values = Vec::new();
    let mut not_a_number = None;
    // Each piece's CRC-32 as read, and the index's.
    let mut piece_crcs = Vec::new();
    let mut index = Vec::new();
    if fits {
        values = vec![0.0; layout.len()];
        let mut word = [0u8; 8];
        read(&mut word)?;
        count = Some(u64::from_le_bytes(word));
        let mut row_bytes = [0u8; 8 * UPPER_TOTALS];
        let (mut piece_crc, mut in_piece) = (crc32fast::Hasher::new(), 0);
        for (row, uppers) in reachable_rows(rules) {
            let bytes = &mut row_bytes[..8 * uppers.count_ones() as usize];
            read(bytes)?;
            // A row may end one piece and start the next.
            let mut rest = &bytes[..];
            while !rest.is_empty() {
                let n = rest.len().min(8 * PIECE_VALUES - in_piece);
                piece_crc.update(&rest[..n]);
                (rest, in_piece) = (&rest[n..], in_piece + n);
                if in_piece == 8 * PIECE_VALUES {
                    piece_crcs.push(std::mem::take(&mut piece_crc).finalize());
                    in_piece = 0;
                }
            }
            for (u, v) in set_bits(uppers).zip(bytes.chunks_exact(8)) {
                let v = f64::from_le_bytes(v.try_into().expect("eight bytes"));
                // No solve writes a value that is not finite: only a crafted file can.
                if !v.is_finite() {
                    not_a_number.get_or_insert(v);
                }
                values[row + u] = v;
            }
        }
        if in_piece > 0 {
            piece_crcs.push(piece_crc.finalize());
        }
        index = vec![0u8; 4 * piece_crcs.len()];
        read(&mut index)?;
    } else {
        let mut left = header.body_bytes;
        if left >= 8 {
            let mut word = [0u8; 8];
            read(&mut word)?;
            count = Some(u64::from_le_bytes(word));
            left -= 8;
        }
        let mut piece = vec![0u8; 1 << 16];
        while left > 0 {
            let n = left.min(piece.len() as u64) as usize;
            read(&mut piece[..n])?;
            left -= n as u64;
        }
    }
    let got = crc.finalize();
    if got != header.checksum {
        return Err(TableError::Checksum {
            origin: origin.clone(),
            expected: header.checksum,
            got,
        });
    }
    check_count(head, rules, count)?;
    // Only a crafted file has a body whose checksum holds and an index that does not.
    container::check_crc(origin, header.index_checksum, &index)?;
    for (i, &got) in piece_crcs.iter().enumerate() {
        check_piece(origin, i, index_entry(&index, i), got)?;
    }
    if let Some(v) = not_a_number {
        return Err(origin.corrupt(format!("a value that is not a number ({v})")));
    }
    Ok(values)
}

/// The CRC-32 of the `i`-th piece that the index `index` lists.
fn index_entry(index: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(index[4 * i..4 * i + 4].try_into().expect("4 bytes"))
}

/// Checks the CRC-32 `got` of the `piece`-th piece of the values against `expected`, its
/// index's.
fn check_piece(origin: &Origin, piece: usize, expected: u32, got: u32) -> Result<(), TableError> {
    if got != expected {
        return Err(origin.corrupt(format!(
            "checksum {got:08x} of piece {piece} of its values, the index says {expected:08x}"
        )));
    }
    Ok(())
}

/// Checks the count of values `count` of a body (its first word, `None` in a body too short
/// to hold one) against the body's size, the header's entries and the reachable states of
/// `rules`, in that order: what a body whose checksum holds can still get wrong.
fn check_count(head: &Head, rules: &Rules, count: Option<u64>) -> Result<(), TableError> {
    let header = &head.header;
    let origin = &head.origin;
    // The body is a count, that many values, and the index of their pieces.
    let count = match count {
        Some(count) if body_bytes(count) == Some(header.body_bytes) => count,
        _ => return Err(origin.corrupt("unreadable values")),
    };
    if count != header.entries {
        return Err(origin.corrupt(format!("{count} values, header says {}", header.entries)));
    }
    let reachable = reachable_state_count(rules);
    if count != reachable {
        return Err(origin.corrupt(format!(
            "{count} values where {} rules have {reachable} reachable states",
            rules.label(),
        )));
    }
    Ok(())
}

/// The rows of `cards` (ascending) of the table of `rules` in `file`, card after card, each
/// its `flags * lanes` values in the order of the layout (the rows a table read in part
/// holds): the count of values checked ([`check_count`]), the index read and checked against
/// the header's index checksum, then each piece that holds a row of those cards read and
/// checked against the index, and each value held a number. The other pieces are not read.
fn read_cards(file: &TableFile, rules: &Rules, cards: &[BoxMask]) -> Result<Vec<f64>, TableError> {
    let head = &file.head;
    let header = &head.header;
    let count = (header.body_bytes >= 8)
        .then(|| file.read_at(head.body_at, 8))
        .transpose()?
        .map(|word| u64::from_le_bytes(word[..].try_into().expect("8 bytes")));
    check_count(head, rules, count)?;
    let count = header.entries;
    let index = read_index(file, count)?;
    // Where each row of `cards` is among the values, and where it goes among those held.
    let layout = Layout::of(rules);
    let width = layout.flags * layout.lanes;
    let (mut wanted, mut places) = (Vec::new(), Vec::new());
    let (mut first, mut next_card) = (0u64, 0);
    for (row, uppers) in reachable_rows(rules) {
        let filled = (row / width) as BoxMask;
        while next_card < cards.len() && cards[next_card] < filled {
            next_card += 1;
        }
        if cards.get(next_card) == Some(&filled) {
            for (i, u) in set_bits(uppers).enumerate() {
                wanted.push(first + i as u64);
                places.push(next_card * width + row % width + u);
            }
        }
        first += u64::from(uppers.count_ones());
    }
    let mut values = vec![0.0; cards.len() * width];
    let mut pieces = Pieces::new(file, &index, count);
    for (k, at) in wanted.into_iter().zip(places) {
        values[at] = pieces.value(k)?;
    }
    Ok(values)
}

/// Passes the body of a table storing the `count` values of `rows` (row start and set of
/// totals, as `state::reachable_rows` lists them) to `write`, piece by piece, and returns its
/// size and the CRC-32 of its index ([`BodyWriter`]).
fn write_body(
    count: u64,
    values: &[f64],
    rows: impl Iterator<Item = (usize, UpperTotals)>,
    write: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<(u64, u32)> {
    let mut body = BodyWriter::new(count, write)?;
    for (row, uppers) in rows {
        for u in set_bits(uppers) {
            body.push(values[row + u])?;
        }
    }
    body.finish()
}

/// The writer of a body of `f64` values in pieces: the count as a little-endian u64, each
/// value little-endian (what bincode writes for a `Vec<f64>`), then the index: the CRC-32 of
/// each piece of [`PIECE_VALUES`] values (the last one shorter), made as the pieces are
/// written, so that saving copies no more than a piece of the values at a time. The body of
/// the expected-score table, and of the table of saved rolls ([`super::saved`]).
pub(crate) struct BodyWriter<'w> {
    write: &'w mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    count: u64,
    written: u64,
    piece: Vec<u8>,
    index: Vec<u8>,
}

impl<'w> BodyWriter<'w> {
    /// A body of `count` values, its count written.
    pub(crate) fn new(
        count: u64,
        write: &'w mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<BodyWriter<'w>> {
        write(&count.to_le_bytes())?;
        Ok(BodyWriter {
            write,
            count,
            written: 0,
            piece: Vec::with_capacity(PIECE_VALUES * 8),
            index: Vec::with_capacity(4 * pieces(count) as usize),
        })
    }

    /// The next value.
    pub(crate) fn push(&mut self, value: f64) -> std::io::Result<()> {
        self.piece.extend_from_slice(&value.to_le_bytes());
        self.written += 1;
        if self.piece.len() == 8 * PIECE_VALUES {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.index
            .extend_from_slice(&crc32fast::hash(&self.piece).to_le_bytes());
        (self.write)(&self.piece)?;
        self.piece.clear();
        Ok(())
    }

    /// The last piece and the index: the body's size and the index's CRC-32.
    pub(crate) fn finish(mut self) -> std::io::Result<(u64, u32)> {
        if !self.piece.is_empty() {
            self.flush()?;
        }
        debug_assert_eq!(self.written, self.count);
        (self.write)(&self.index)?;
        let size = body_bytes(self.count).expect("a table's size fits in 64 bits");
        Ok((size, crc32fast::hash(&self.index)))
    }
}

/// The values of a body of `count` values of `file` read piece by piece, on demand: each
/// piece read when a value of it is first asked for and checked against the index (`index`,
/// checked already), the last one kept, each value a number. Values asked for in ascending
/// order read each piece once; what a table read in part, or read whole a card at a time,
/// reads.
pub(crate) struct Pieces<'f> {
    file: &'f TableFile,
    index: &'f [u8],
    count: u64,
    /// The piece held, and its bytes.
    held: Option<(u64, Vec<u8>)>,
}

impl<'f> Pieces<'f> {
    pub(crate) fn new(file: &'f TableFile, index: &'f [u8], count: u64) -> Pieces<'f> {
        Pieces {
            file,
            index,
            count,
            held: None,
        }
    }

    /// The `k`-th value.
    pub(crate) fn value(&mut self, k: u64) -> Result<f64, TableError> {
        let piece_values = PIECE_VALUES as u64;
        let p = k / piece_values;
        let origin = &self.file.head.origin;
        if self.held.as_ref().is_none_or(|(held, _)| *held != p) {
            let from = p * piece_values;
            let n = (self.count - from).min(piece_values);
            let values_at = self.file.head.body_at + 8;
            let bytes = self.file.read_at(values_at + 8 * from, 8 * n as usize)?;
            let i = p as usize;
            check_piece(
                origin,
                i,
                index_entry(self.index, i),
                crc32fast::hash(&bytes),
            )?;
            self.held = Some((p, bytes));
        }
        let (_, piece) = self.held.as_ref().expect("the piece was read");
        let offset = 8 * (k % piece_values) as usize;
        let v = f64::from_le_bytes(piece[offset..offset + 8].try_into().expect("8 bytes"));
        // No solve writes a value that is not finite: only a crafted file can.
        if v.is_finite() {
            Ok(v)
        } else {
            Err(origin.corrupt(format!("a value that is not a number ({v})")))
        }
    }
}

/// The index of the pieces of a body of `count` values in `file`, checked against the
/// header's index checksum.
pub(crate) fn read_index(file: &TableFile, count: u64) -> Result<Vec<u8>, TableError> {
    let head = &file.head;
    let index = file.read_at(head.body_at + 8 + 8 * count, 4 * pieces(count) as usize)?;
    container::check_crc(&head.origin, head.header.index_checksum, &index)?;
    Ok(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::dice::ROLLS;
    use crate::game::rules::Order;
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

    /// The body a table of `values` (in the order stored) has: their count and themselves as
    /// bincode writes a `Vec<f64>`, then the CRC-32 of each piece of [`PIECE_VALUES`].
    fn body_of(values: &[f64]) -> Vec<u8> {
        let mut body = bincode::serialize(values).unwrap();
        let crcs: Vec<u8> = body[8..]
            .chunks(8 * PIECE_VALUES)
            .flat_map(|piece| crc32fast::hash(piece).to_le_bytes())
            .collect();
        body.extend_from_slice(&crcs);
        body
    }

    #[test]
    fn body_is_bincode_of_the_values_then_the_checksums_of_their_pieces() {
        // More than one piece, and values whose bytes differ from end to end.
        let values: Vec<f64> = (0..PIECE_VALUES * 2 + 5)
            .map(|i| i as f64 * 1.25 - 7.0)
            .collect();
        let mut body = Vec::new();
        // Rows of 64, then one of 5 values: rows end where pieces do, and inside them.
        for row_len in [64, 100] {
            body.clear();
            let rows = (0..values.len()).step_by(row_len).map(|row| {
                (
                    row,
                    (u128::MAX >> (128 - (values.len() - row).min(row_len))),
                )
            });
            let (size, index_checksum) =
                write_body(values.len() as u64, &values, rows, &mut |bytes| {
                    body.extend_from_slice(bytes);
                    Ok(())
                })
                .unwrap();
            assert_eq!(body, body_of(&values));
            assert_eq!(size, body.len() as u64);
            assert_eq!(index_checksum, crc32fast::hash(&body[body.len() - 12..]));
        }
    }

    /// The body, read as a stream, is checked as a whole file's was: its checksum, its count
    /// against its size and the header's, the reachable states of its rules, the index and
    /// each piece against it, in that order.
    #[test]
    fn a_body_read_as_a_stream_is_checked_part_by_part() {
        let rules = Rules::new(RuleSet::YACHT);
        let (table, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let bytes = table.to_bytes();
        // The magic, the version, the header's size, the header.
        let body_at = 16 + u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        // Yacht's 4096 values: one piece, its checksum the body's last 4 bytes.
        assert_eq!(bytes.len(), body_at + 8 + 8 * 4096 + 4);
        // The header's last fields, from its end: tail (8), index checksum (4), checksum (4),
        // body size (8), entries (8).
        let field = |bytes: &mut Vec<u8>, from_end: usize, value: &[u8]| {
            let at = body_at - from_end;
            bytes[at..at + value.len()].copy_from_slice(value);
        };
        let sealed = |mut bytes: Vec<u8>| {
            let crc = crc32fast::hash(&bytes[body_at..]);
            field(&mut bytes, 16, &crc.to_le_bytes());
            bytes
        };
        let message = |bytes: &[u8]| {
            StrategyTable::from_bytes(bytes, &rules)
                .unwrap_err()
                .to_string()
        };
        assert!(StrategyTable::from_bytes(&sealed(bytes.clone()), &rules).is_ok());
        // A value changed: the checksum.
        let mut changed = bytes.clone();
        changed[body_at + 100] ^= 1;
        assert!(message(&changed).contains("is corrupted (checksum"));
        // The count of the body unlike its size.
        let mut count = bytes.clone();
        count[body_at] ^= 1;
        assert!(message(&sealed(count)).contains("(unreadable values)"));
        // The header's entries unlike the body's count.
        let mut entries = bytes.clone();
        field(&mut entries, 32, &4095u64.to_le_bytes());
        assert!(message(&sealed(entries)).contains("(4096 values, header says 4095)"));
        // One value more than the rules' reachable states, consistently counted.
        let mut values: Vec<f64> = bincode::deserialize(&bytes[body_at..]).unwrap();
        values.push(0.0);
        let body = body_of(&values);
        let mut more = bytes[..body_at].to_vec();
        more.extend_from_slice(&body);
        field(&mut more, 32, &4097u64.to_le_bytes());
        field(&mut more, 24, &(body.len() as u64).to_le_bytes());
        let index = crc32fast::hash(&body[body.len() - 8..]);
        field(&mut more, 12, &index.to_le_bytes());
        assert!(
            message(&sealed(more))
                .contains("(4097 values where yacht rules have 4096 reachable states)")
        );
        // The index unlike the header's index checksum, the body's checksum recomputed.
        let mut index = bytes.clone();
        field(&mut index, 12, &1u32.to_le_bytes());
        assert!(message(&sealed(index)).contains("is corrupted (checksum"));
        // A piece unlike its checksum in the index, the index's and the body's recomputed.
        let mut piece = bytes.clone();
        piece[body_at + 100] ^= 1;
        let at = piece.len() - 4;
        let crc = crc32fast::hash(&piece[body_at + 8..at]) ^ 1;
        piece[at..].copy_from_slice(&crc.to_le_bytes());
        let index = crc32fast::hash(&piece[at..]);
        field(&mut piece, 12, &index.to_le_bytes());
        assert!(message(&sealed(piece)).contains("is corrupted (checksum"));
    }

    /// A table read in part holds the rows of the cards asked for and of the cards after
    /// them, each value where the whole table has it, and is never written.
    #[test]
    fn a_table_read_in_part_holds_the_rows_of_its_cards() {
        let rules = Rules::with_order(RuleSet::YAHTZEE, Order::UpperFirst);
        let (table, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.table");
        table.save(&path).unwrap();
        let filled = 0b11_1111;
        let part = StrategyTable::load_cards(&path, &rules, &[filled]).unwrap();
        let cards = StrategyTable::cards_of_turn(&rules, filled);
        // Upper first: after the upper section, any lower box.
        assert_eq!(cards.len(), 1 + 7);
        assert_eq!(part.values().len(), cards.len() * 2 * 64);
        for &card in &cards {
            for state in crate::game::state::card_states(&rules, card) {
                assert_eq!(part.value(&state).to_bits(), table.value(&state).to_bits());
            }
        }
        assert_eq!(part.checksum(), table.checksum());
        assert!(
            part.write_to(&mut std::io::Cursor::new(Vec::new()))
                .is_err()
        );
        // The last value damaged (the full card's, in the last piece): a part that reads that
        // piece is refused by its checksum, one that does not never reads it.
        let mut bytes = std::fs::read(&path).unwrap();
        let index_at = bytes.len() - 4 * pieces(table.states()) as usize;
        bytes[index_at - 1] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let last = rules.full_mask() & !(1 << 12);
        let e = StrategyTable::load_cards(&path, &rules, &[last]).unwrap_err();
        assert!(e.to_string().contains("is corrupted (checksum"), "{e}");
        let e = StrategyTable::load(&path, &rules).unwrap_err();
        assert!(e.to_string().contains("is corrupted (checksum"), "{e}");
        let part = StrategyTable::load_cards(&path, &rules, &[0]).unwrap();
        assert_eq!(part.value(&State::START), table.expected_score());
    }

    #[test]
    fn stores_only_reachable_states_and_puts_them_back() {
        let rules = Rules::with_order(RuleSet::YAHTZEE, Order::UpperFirst);
        let (table, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.table");
        table.save(&path).unwrap();
        let header_and_prefix = std::fs::metadata(&path).unwrap().len()
            - 8 * table.states()
            - 4 * pieces(table.states());
        assert!(
            header_and_prefix < 200,
            "{header_and_prefix} bytes beside the values and their pieces' checksums"
        );
        let loaded = StrategyTable::load(&path, &rules).unwrap();
        assert_eq!(loaded.values(), table.values());
    }
}
