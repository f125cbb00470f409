//! The table of a vector objective (target, distribution): the solved vectors of every state
//! ([`crate::solve::vector::Solution`]), its file, and the turns run on it at query time.
//!
//! A table solved here holds every card's values; a table loaded from a file reads a card's
//! values the first time they are asked for (checking its CRC-32), so a query that needs a
//! few states reads a few cards of a table of hundreds of megabytes.
//!
//! The file stores the cards of every other depth only ([`stores`]: an even number of boxes
//! filled, and the full cards): a card left out is solved again from its successors, which
//! the file stores, the first time it is asked for (by the solve's own code,
//! [`crate::solve::vector`], so bit for bit what the build computed; about 10 ms for a card
//! of Yahtzee's middle depths). The values it stores are packed without loss ([`pack`]).
//!
//! The file is the container of every table file ([`crate::tables::container`]): the header
//! names the rules, the objective, the value type ([`FILE_VALUE_TYPE`]), the number of
//! 4-byte words of packed values, the body's size, its CRC-32, the CRC-32 of its index and
//! the tail left out. The body, all little-endian:
//!
//! ```text
//! ranges   12 bytes per reachable state, in layout order (`state::reachable_states`):
//!          the coordinate of the first stored value (i32), the number stored (u32), and
//!          where they start among the card's values (u32); every state's, the states of
//!          the cards left out included
//! cards    16 bytes per card the fill order allows, by ascending mask: its first word among
//!          all the packed words (u64), its number of words (u32, 0 for a card left out),
//!          their CRC-32 (u32)
//! values   each stored card's values packed (see [`pack`]), padded to whole words
//! ```
//!
//! The ranges and cards are the index, read and checked (by its own CRC-32, and for
//! consistency) before any value; each card's words are checked by theirs when read, and
//! unpacked to exactly as many values as its states' ranges cover.

use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{Layout, State, cards_by_depth, reachable_states, set_bits};
use crate::solve::expected::ExpectedValues;
use crate::solve::kernel::{KeepArray, Layer, Plan, Real, ScoreTable, score_table, turn};
use crate::solve::simd::Simd;
use crate::solve::vector::{
    Range, RowSpec, Solution, VectorObjective, lay_out, read, solve_one_card,
};
use crate::tables::container::{
    self, Head, PIECE_BYTES, Piece, RANGE_BYTES, TableFile, TableHeader,
};
use crate::tables::{Origin, TableError};

/// The most lanes [`VectorTable::turn_lanes`] computes at once.
pub const MAX_TURN_LANES: usize = 16;

/// The value type of a vector table's file: `f32` values packed ([`pack`]), every other
/// depth stored ([`stores`]).
pub const FILE_VALUE_TYPE: &str = "f32 packed, even depths";

/// The value type of the files of earlier versions of this program (every card's `f32`
/// values as they are): refused with the advice to rebuild.
const OLD_VALUE_TYPE: &str = "f32";

/// True when a table file stores the values of the card `filled`: the cards with an even
/// number of boxes filled, and the full cards. Every card it leaves out has an odd number
/// filled, so every card after it (one box more) is stored: it is solved again from them.
/// The middle depths hold most values; either parity alone holds about half.
pub fn stores(rules: &Rules, filled: BoxMask) -> bool {
    filled.count_ones().is_multiple_of(2) || filled & rules.full_mask() == rules.full_mask()
}

/// The vector of every reachable state of one rule set for one objective: a solve's
/// [`Solution`], or a table file's cards read when first asked for.
#[derive(Debug)]
pub struct VectorTable<T> {
    /// The ranges of every state, the cards solved or read so far.
    solution: Solution<T>,
    /// Points of every box for every roll (the kernel's).
    scores: Arc<ScoreTable>,
    /// Where the cards not read yet are, for a table loaded from a file.
    file: Option<CardFile>,
    /// The expected-score values whose policy a distribution table follows: what solving a
    /// card the file left out needs ([`VectorTable::following`]).
    policy: Option<Arc<dyn ExpectedValues>>,
    /// For a table read from a file (or its bytes): per card (by mask), its number of
    /// values, the end of its states' ranges as the index gives them.
    lengths: Option<Vec<u32>>,
    /// Where the table was read from, for its errors.
    origin: Origin,
}

/// Where the values of each card are in a table file.
#[derive(Debug)]
struct CardFile {
    path: PathBuf,
    /// The file offset of the values section.
    values_at: u64,
    /// Per card (by mask): its first word, its number of words, and their CRC-32.
    cards: Vec<Piece>,
}

impl<T: Real> From<Solution<T>> for VectorTable<T> {
    /// The table of a solve: every card solved is held.
    fn from(solution: Solution<T>) -> VectorTable<T> {
        VectorTable {
            scores: Arc::new(score_table(&solution.rules)),
            solution,
            file: None,
            policy: None,
            lengths: None,
            origin: Origin::Bytes,
        }
    }
}

impl<T: Real> VectorTable<T> {
    /// Solves `objective` for every reachable state (see [`crate::solve::vector::solve`]).
    pub fn solve(
        objective: &VectorObjective<T>,
        simd: crate::solve::simd::Simd,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> VectorTable<T>
    where
        T: crate::solve::vector::VectorLane,
    {
        VectorTable::from(crate::solve::vector::solve(objective, simd, progress))
    }

    /// The rules of the table.
    pub fn rules(&self) -> &Rules {
        self.solution.rules()
    }

    /// The objective's name (`target`, ...).
    pub fn objective(&self) -> &'static str {
        self.solution.objective()
    }

    /// Where each state sits.
    pub fn layout(&self) -> &Layout {
        self.solution.layout()
    }

    /// The tail left out of the vectors.
    pub fn tail(&self) -> f64 {
        self.solution.tail()
    }

    /// The stored range of `state`.
    pub fn range(&self, state: &State) -> Range {
        self.solution.range(state)
    }

    /// Number of values of the table (states that share a vector count it once): of a table
    /// read from a file, those its index gives every card, read yet or not, stored or left
    /// out.
    pub fn stored_values(&self) -> u64 {
        match &self.lengths {
            Some(lengths) => lengths.iter().map(|&n| u64::from(n)).sum(),
            None => self.solution.stored_values(),
        }
    }

    /// This table, a distribution table, with the expected-score values whose policy it
    /// follows (the table it was solved from): a card its file left out is solved again with
    /// them. A target table needs none.
    pub fn following(self, ev: Arc<dyn ExpectedValues>) -> VectorTable<T> {
        VectorTable {
            policy: Some(ev),
            ..self
        }
    }
}

impl VectorTable<f32> {
    /// The values of the card `filled`, read from the file (and checked) on first use.
    pub fn card(&self, filled: BoxMask) -> Result<&[f32], TableError> {
        let slot = &self.solution.cards[filled as usize];
        if let Some(values) = slot.get() {
            return Ok(values);
        }
        let values = match (&self.file, &self.lengths) {
            (_, Some(lengths)) if !stores(self.rules(), filled) => {
                self.solve_card(filled, lengths[filled as usize])?
            }
            (Some(file), Some(lengths)) => file.read_card(filled, lengths[filled as usize])?,
            _ => return Err(TableError::Unsolved { filled }),
        };
        Ok(slot.get_or_init(|| values))
    }

    /// Reads the cards the file stores of every card that can follow `start` (those with
    /// every box of `start` filled), checking them, so that a damaged file is an error here
    /// rather than in the middle of a game; the cards it leaves out are solved when first
    /// asked for. A table solved here: checks that those cards were solved.
    pub fn check_cards_from(&self, start: BoxMask) -> Result<(), TableError> {
        let rules = *self.rules();
        for m in cards_by_depth(&rules).into_iter().flatten() {
            if m & start == start && (self.lengths.is_none() || stores(&rules, m)) {
                self.card(m)?;
            }
        }
        Ok(())
    }

    /// Every card that can follow `start`, read or solved again, the cards left out solved
    /// in parallel, the deepest first: for a pass over the whole table.
    pub fn load_cards_from(&self, start: BoxMask) -> Result<(), TableError> {
        self.check_cards_from(start)?;
        for cards in cards_by_depth(self.rules()).into_iter().rev() {
            cards
                .par_iter()
                .filter(|&&m| m & start == start)
                .try_for_each(|&m| self.card(m).map(|_| ()))?;
        }
        Ok(())
    }

    /// The values of the card `filled`, which the file leaves out, solved from its
    /// successors' (which it stores) as the build solved them, and checked against the
    /// ranges the file states (`length` values in all).
    fn solve_card(&self, filled: BoxMask, length: u32) -> Result<Box<[f32]>, TableError> {
        self.load_successors(&State {
            filled,
            upper: 0,
            yahtzee_50: false,
        })?;
        let mut objective =
            VectorObjective::by_name(self.objective(), *self.rules()).expect("a known objective");
        if objective.name == crate::solve::vector::DISTRIBUTION {
            let Some(ev) = &self.policy else {
                return Err(TableError::Unsolved { filled });
            };
            objective.policy = Some(Arc::clone(ev));
        }
        let (values, ranges) = solve_one_card(
            &self.solution,
            &objective,
            &self.scores,
            filled,
            Simd::detect(),
        );
        if values.len() != length as usize
            || ranges
                .iter()
                .any(|&(index, range)| self.solution.ranges[index] != range)
        {
            return Err(self.origin.corrupt(format!(
                "the ranges of card {filled} differ from those its successors give"
            )));
        }
        Ok(values)
    }

    /// The value of `state` at coordinate `x`.
    pub fn value(&self, state: &State, x: i64) -> Result<f32, TableError> {
        Ok(self.reader(state)?(x))
    }

    /// The curve of `state`: its value at every coordinate from 0 to one past the most points
    /// it can still score ([`crate::solve::vector::max_remaining`]), where every vector is 0:
    /// for the target table the best chance of scoring at least `x` more points, for the
    /// distribution table the chance under expected-score play.
    pub fn curve(&self, state: &State) -> Result<Vec<f32>, TableError> {
        let most = crate::solve::vector::max_remaining(self.rules(), state);
        let read = self.reader(state)?;
        Ok((0..=i64::from(most) + 1).map(read).collect())
    }

    /// The value of `state`'s vector at any coordinate, as [`VectorTable::value`] reads it,
    /// with the state's card looked up once: for reading many coordinates of one state.
    pub fn reader(&self, state: &State) -> Result<impl Fn(i64) -> f32 + '_, TableError> {
        let values = self.card(state.filled)?;
        let range = self.range(state);
        let (below, above) = (self.solution.below, self.solution.above);
        Ok(move |x| read(values, range, below, above, x))
    }

    /// The stored values of `state`, for coordinates `range.lo..range.end()`.
    pub fn stored(&self, state: &State) -> Result<&[f32], TableError> {
        let r = self.range(state);
        Ok(&self.card(state.filled)?[r.offset as usize..][..r.len as usize])
    }

    /// Reads every card the turns of `state` read (its successors'), checking them, so that
    /// a damaged file is an error here rather than in the middle of a turn.
    pub fn load_successors(&self, state: &State) -> Result<(), TableError> {
        // The boxes the fill order allows: under the upper-first rule the cards with a lower
        // box filled before the upper section is full are not in the table.
        let open = self.rules().open_by_order(state.filled);
        for c in set_bits(u64::from(open)) {
            self.card(state.filled | (1 << c))?;
        }
        Ok(())
    }

    /// One turn of `state` at coordinate `x` (for the target: points still needed), in
    /// `f64` from the stored successors, up to `last`: `visit(layer, values)` receives each
    /// layer's entries, one per multiset (see [`Layer`]), each the objective's value (the
    /// best chance of reaching the target) of keeping those dice, or of that roll. The same
    /// kernel as the solve, one lane ([`VectorTable::turn_lanes`]).
    pub fn turn_at(
        &self,
        state: &State,
        x: i64,
        last: Layer,
        mut visit: impl FnMut(Layer, &[f64]),
    ) -> Result<(), TableError> {
        self.turn_lanes::<1>(state, &[x], last, |layer, k| {
            visit(layer, k.as_flattened());
        })
    }

    /// [`VectorTable::turn_at`] for `N` coordinates at once, one lane each (any coordinates,
    /// not only consecutive ones): `visit(layer, entries)` receives each layer's entries, one
    /// array of `N` lanes per multiset. Lane `l` holds exactly, bit for bit, what `turn_at`
    /// gives at `xs[l]`: the kernel computes every lane by the same operations.
    pub fn turn_lanes<const N: usize>(
        &self,
        state: &State,
        xs: &[i64; N],
        last: Layer,
        mut visit: impl FnMut(Layer, &[[f64; N]]),
    ) -> Result<(), TableError> {
        thread_local! {
            // One plan and keep array per thread, reused by every query.
            static SCRATCH: std::cell::RefCell<(Plan<f64>, KeepArray<f64>)> =
                std::cell::RefCell::new((Plan::new(), KeepArray::new(MAX_TURN_LANES)));
        }
        const { assert!(N >= 1 && N <= MAX_TURN_LANES) };
        self.load_successors(state)?;
        let sign = self.solution.direction.sign();
        SCRATCH.with_borrow_mut(|(plan, keeps)| {
            let specs = lay_out(plan, self.rules(), &self.scores, state);
            plan.restart_rows(N, specs.len());
            for s in &specs {
                plan.push_row(xs.iter().map(|&x| {
                    let v = self
                        .value(&s.next, x + sign * s.gain())
                        .expect("the successors' cards are read");
                    f64::from(v)
                }));
            }
            let mut visit = |layer, k: &[f64]| visit(layer, k.as_chunks::<N>().0);
            turn(
                Simd::detect(),
                N,
                keeps,
                plan,
                &self.scores,
                0,
                last,
                &mut visit,
            );
        });
        Ok(())
    }

    /// The objective's value after filling box `index` with `points` from `state` with
    /// `dice` (the bonuses they earn included), at coordinate `x` before it.
    pub fn after_box(
        &self,
        state: &State,
        index: usize,
        points: u32,
        five_of_a_kind: bool,
        x: i64,
    ) -> Result<f64, TableError> {
        let s = RowSpec::new(self.rules(), state, index, points, five_of_a_kind);
        Ok(f64::from(self.value(
            &s.next,
            x + self.solution.direction.sign() * s.gain(),
        )?))
    }
}

/// The cards a table file lists, in file order.
fn file_cards(rules: &Rules) -> impl Iterator<Item = BoxMask> + '_ {
    (0..=rules.full_mask()).filter(|&m| rules.order_allows(m))
}

/// Cards packed together while a table file is written: enough to keep every thread busy,
/// few enough that their packed bytes (a few hundred kB a card at most) stay small.
const PACKED_TOGETHER: usize = 64;

impl VectorTable<f32> {
    /// The packed words of the card `filled` as the file holds them: none for a card it
    /// leaves out.
    fn packed(&self, filled: BoxMask) -> Result<Vec<u8>, TableError> {
        if stores(self.rules(), filled) {
            Ok(pack(self.card(filled)?))
        } else {
            Ok(Vec::new())
        }
    }

    /// The index of the file: the ranges section and the cards section, and the number of
    /// words of packed values. Each card is packed here to learn its size and CRC-32 (in
    /// parallel), and again as it is written, rather than all held packed at once.
    fn index_bytes(&self) -> Result<(Vec<u8>, u64), TableError> {
        let mut index = Vec::new();
        for s in reachable_states(self.rules()) {
            container::push_range(&mut index, &self.range(&s));
        }
        let cards: Vec<BoxMask> = file_cards(self.rules()).collect();
        let sizes = cards
            .par_iter()
            .map(|&m| {
                let bytes = self.packed(m)?;
                Ok(((bytes.len() / 4) as u32, crc32fast::hash(&bytes)))
            })
            .collect::<Result<Vec<_>, TableError>>()?;
        let mut first = 0u64;
        for (count, crc) in sizes {
            Piece { first, count, crc }.push(&mut index);
            first += u64::from(count);
        }
        Ok((index, first))
    }

    /// Writes the table file's bytes to `out` (see [`crate::tables::container`]): the index,
    /// then the packed values card by card.
    pub fn write_to<W: Write + Seek>(&self, out: &mut W) -> std::io::Result<()> {
        let to_io = |e: TableError| std::io::Error::other(e.to_string());
        let (index, entries) = self.index_bytes().map_err(to_io)?;
        let header = TableHeader {
            entries,
            body_bytes: index.len() as u64 + 4 * entries,
            index_checksum: crc32fast::hash(&index),
            tail: self.tail(),
            ..TableHeader::new(self.rules(), self.objective(), FILE_VALUE_TYPE)
        };
        let cards: Vec<BoxMask> = file_cards(self.rules()).collect();
        container::write_table(out, header, |write| {
            write(&index)?;
            // Packed in parallel a group of cards at a time (a few MB held), written in order.
            for group in cards.chunks(PACKED_TOGETHER) {
                let packed = group
                    .par_iter()
                    .map(|&m| self.packed(m))
                    .collect::<Result<Vec<_>, TableError>>()
                    .map_err(to_io)?;
                for bytes in &packed {
                    write(bytes)?;
                }
            }
            Ok(None)
        })
    }

    /// Writes the table to `path` through a temporary file renamed into place.
    pub fn save(&self, path: &Path) -> Result<(), TableError> {
        container::save(path, |out| self.write_to(out))
    }

    /// The table of `rules` and `objective` in the file at `path`, checked as far as its
    /// index; each card's values are read and checked when first asked for.
    pub fn load(
        path: &Path,
        rules: &Rules,
        objective: &'static str,
    ) -> Result<VectorTable<f32>, TableError> {
        let file = TableFile::open(path)?;
        let head = &file.head;
        check_file(head, rules, objective)?;
        let sizes = Sizes::of(rules);
        sizes.check_len(head, file.len)?;
        let body_at = head.body_at;
        let index = file.read_at(body_at, sizes.index)?;
        let mut table = VectorTable::from_index(head, rules, objective, &index)?;
        let (cards, lengths) = table.card_entries(&index, head)?;
        table.file = Some(CardFile {
            path: path.to_path_buf(),
            values_at: body_at + sizes.index as u64,
            cards,
        });
        table.lengths = Some(lengths);
        table.origin = head.origin.clone();
        Ok(table)
    }

    /// The table of `rules` and `objective` from the bytes of a table file: every part
    /// checked, every card read.
    pub fn from_bytes(
        bytes: &[u8],
        rules: &Rules,
        objective: &'static str,
    ) -> Result<VectorTable<f32>, TableError> {
        VectorTable::checked(bytes, Head::of(bytes, Origin::Bytes)?, rules, objective)
    }

    /// The vector table in the file at `path`, whatever its objective (as its header names
    /// it), of `rules` when given (a table of other rules is refused), else of the rules its
    /// header names, every part checked: what `yahtzee verify [--rules R]` does.
    pub fn verify(
        path: &Path,
        rules: Option<&Rules>,
    ) -> Result<(TableHeader, VectorTable<f32>), TableError> {
        let head = TableFile::open(path)?.head;
        let rules = head.rules_or_named(rules)?;
        let bytes = container::read(path)?;
        let head = Head::of(&bytes, Origin::File(path.to_path_buf()))?;
        let objective =
            VectorObjective::by_name(&head.header.objective, rules).ok_or_else(|| {
                head.origin.corrupt(format!(
                    "unknown objective `{}`",
                    crate::text::excerpt(&head.header.objective)
                ))
            })?;
        let header = head.header.clone();
        let table = VectorTable::checked(&bytes, head, &rules, objective.name)?;
        Ok((header, table))
    }

    /// The table of the bytes of a table file whose head is `head`, every part checked.
    fn checked(
        bytes: &[u8],
        head: Head,
        rules: &Rules,
        objective: &'static str,
    ) -> Result<VectorTable<f32>, TableError> {
        check_file(&head, rules, objective)?;
        let sizes = Sizes::of(rules);
        sizes.check_len(&head, bytes.len() as u64)?;
        let body = &bytes[head.body_at as usize..];
        container::check_crc(&head.origin, head.header.checksum, body)?;
        let index = &body[..sizes.index];
        let mut table = VectorTable::from_index(&head, rules, objective, index)?;
        let (cards, lengths) = table.card_entries(index, &head)?;
        let values = &body[sizes.index..];
        for m in file_cards(rules).filter(|&m| stores(rules, m)) {
            let (entry, m) = (&cards[m as usize], m as usize);
            let from = 4 * entry.first as usize;
            let words = &values[from..from + 4 * entry.count as usize];
            container::check_crc(&head.origin, entry.crc, words)?;
            let card = unpack(words, lengths[m], &head.origin, m)?;
            let _ = table.solution.cards[m].set(card);
        }
        table.lengths = Some(lengths);
        table.origin = head.origin.clone();
        Ok(table)
    }

    /// The ranges of the index (checked against its CRC-32), without the cards' values.
    fn from_index(
        head: &Head,
        rules: &Rules,
        objective: &'static str,
        index: &[u8],
    ) -> Result<VectorTable<f32>, TableError> {
        container::check_crc(&head.origin, head.header.index_checksum, index)?;
        let o = VectorObjective::by_name(objective, *rules).expect("a known objective");
        let layout = Layout::of(rules);
        let mut ranges = vec![Range::default(); layout.len()];
        for (i, s) in reachable_states(rules).enumerate() {
            ranges[layout.index(&s)] = container::range_at(index, i * RANGE_BYTES);
        }
        Ok(VectorTable::from(Solution {
            rules: *rules,
            layout,
            objective: o.name,
            below: o.below,
            above: o.above,
            tail: head.header.tail,
            direction: o.direction,
            ranges,
            cards: (0..layout.masks).map(|_| OnceLock::new()).collect(),
            lanes_computed: 0,
        }))
    }

    /// The cards section of the index, checked against the number of words (a card left out
    /// has none), and each card's number of values: the end of its states' ranges.
    fn card_entries(
        &self,
        index: &[u8],
        head: &Head,
    ) -> Result<(Vec<Piece>, Vec<u32>), TableError> {
        let origin = &head.origin;
        let rules = self.rules();
        let states = reachable_states(rules).count();
        let section = states * RANGE_BYTES;
        let mut cards = vec![Piece::default(); self.layout().masks];
        let mut next = 0u64;
        for (i, m) in file_cards(rules).enumerate() {
            cards[m as usize] =
                Piece::following(index, section + i * PIECE_BYTES, &mut next, origin, || {
                    format!("card {m}")
                })?;
        }
        container::check_entries(head, next, "cards")?;
        for m in file_cards(rules).filter(|&m| !stores(rules, m)) {
            if cards[m as usize].count != 0 {
                return Err(origin.corrupt(format!("values for card {m}, which is left out")));
            }
        }
        let mut lengths = vec![0u32; self.layout().masks];
        for s in reachable_states(rules) {
            let r = self.range(&s);
            let end = u64::from(r.offset) + u64::from(r.len);
            // A card holds at most a few million values.
            if end > 1 << 28 {
                return Err(
                    origin.corrupt(format!("a range of card {} ends at value {end}", s.filled))
                );
            }
            let length = &mut lengths[s.filled as usize];
            *length = (*length).max(end as u32);
            if r.len > 0 && (r.lo < -(1 << 20) || r.lo > 1 << 20) {
                return Err(origin.corrupt(format!("a range starts at coordinate {}", r.lo)));
            }
        }
        Ok((cards, lengths))
    }
}

impl CardFile {
    /// Reads the values of the card `filled`, checks their CRC-32 and unpacks them to its
    /// `length` values.
    fn read_card(&self, filled: BoxMask, length: u32) -> Result<Box<[f32]>, TableError> {
        let m = filled as usize;
        let words = self.cards[m].read(&self.path, self.values_at)?;
        unpack(&words, length, &Origin::File(self.path.clone()), m)
    }
}

/// Packs a card's values without loss: their number, then for each value the change of the
/// change of its bits (an `f32` in `0..=1` read as a `u32`, which grows with the value; the
/// first compared with 1 and no change), zigzag-coded (0, -1, 1, -2, ... as 0, 1, 2, 3, ...)
/// in LEB128 (seven bits a byte, the high bit set on every byte but the last), then zero bytes
/// to a whole number of 4-byte words. A state's vector falls smoothly from 1 towards 0, so
/// the second difference of the bits is small: measured on Yahtzee's target table, 2.5
/// bytes a value where `f32` takes 4.
pub(crate) fn pack(values: &[f32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 3 + 8);
    let push = |out: &mut Vec<u8>, mut n: u64| {
        while n >= 0x80 {
            out.push((n as u8) | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    };
    push(&mut out, values.len() as u64);
    let (mut prev, mut step) = (i64::from(1f32.to_bits()), 0i64);
    for v in values {
        let bits = i64::from(v.to_bits());
        let d = bits - prev;
        let dd = d - step;
        push(&mut out, ((dd << 1) ^ (dd >> 63)) as u64);
        (prev, step) = (bits, d);
    }
    out.resize(out.len().next_multiple_of(4), 0);
    out
}

/// The values of card `m` from its packed words ([`pack`]), which must be exactly `length`
/// values and the padding.
fn unpack(bytes: &[u8], length: u32, origin: &Origin, m: usize) -> Result<Box<[f32]>, TableError> {
    let bad = |what: &str| origin.corrupt(format!("the packed values of card {m} {what}"));
    let mut at = 0usize;
    let mut next = || -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *bytes.get(at)?;
            at += 1;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    };
    let count = next().ok_or_else(|| bad("are cut short"))?;
    if count != u64::from(length) {
        return Err(bad(&format!(
            "number {count}, where its ranges need {length}"
        )));
    }
    let mut values = Vec::with_capacity(length as usize);
    let (mut prev, mut step) = (i64::from(1f32.to_bits()), 0i64);
    for _ in 0..length {
        let z = next().ok_or_else(|| bad("are cut short"))?;
        let dd = (z >> 1) as i64 ^ -((z & 1) as i64);
        step = step.wrapping_add(dd);
        prev = prev.wrapping_add(step);
        let bits = u32::try_from(prev).map_err(|_| bad("leave the range of f32"))?;
        values.push(f32::from_bits(bits));
    }
    if bytes.len() - at >= 4 || bytes[at..].iter().any(|&b| b != 0) {
        return Err(bad("are followed by other bytes"));
    }
    Ok(values.into_boxed_slice())
}

/// Checks that a header is of a vector table of `rules` and `objective`.
fn check_file(head: &Head, rules: &Rules, objective: &'static str) -> Result<(), TableError> {
    if head.header.value_type == OLD_VALUE_TYPE {
        return Err(head.origin.corrupt(
            "it was written by an earlier version of this program, which stored every value \
             unpacked",
        ));
    }
    head.check_kind(objective, FILE_VALUE_TYPE)?;
    head.check_rules(rules)
}

/// The sizes of a vector table file's sections, from its rules.
struct Sizes {
    /// Bytes of the index (ranges and cards).
    index: usize,
}

impl Sizes {
    fn of(rules: &Rules) -> Sizes {
        let states = reachable_states(rules).count();
        let cards = file_cards(rules).count();
        Sizes {
            index: states * RANGE_BYTES + cards * PIECE_BYTES,
        }
    }

    /// Checks the body's size against the index and the number of values, and the table's
    /// length `len` against the header.
    fn check_len(&self, head: &Head, len: u64) -> Result<(), TableError> {
        let header = &head.header;
        let expected_body = self.index as u64 + header.entries.saturating_mul(4);
        if header.body_bytes != expected_body {
            return Err(head.origin.corrupt(format!(
                "a body of {} bytes, where {} values and the index take {expected_body}",
                header.body_bytes, header.entries
            )));
        }
        head.check_length(len, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::{Order, RuleSet};
    use crate::solve::expected::SolveOptions;
    use crate::solve::vector::TARGET;
    use crate::tables::expected::StrategyTable;

    fn round_trip(values: &[f32]) {
        let packed = pack(values);
        assert_eq!(packed.len() % 4, 0);
        let back = unpack(&packed, values.len() as u32, &Origin::Bytes, 0).unwrap();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(values));
    }

    /// Packing keeps every bit of any values, monotone or not, the extremes included; what is
    /// not a card's packing is refused.
    #[test]
    fn packing_keeps_every_bit() {
        round_trip(&[]);
        round_trip(&[1.0]);
        round_trip(&[0.0, 1.0, 0.0, f32::MAX, f32::from_bits(1), -0.0, 0.5, 1e-30]);
        let mut rng = crate::game::dice::DiceRng::new(3);
        let wild: Vec<f32> = (0..1000)
            .map(|i| f32::from_bits(u32::from(rng.die()).wrapping_mul(0x2f6b_3a1d) ^ (i * 7919)))
            .collect();
        round_trip(&wild);
        let smooth: Vec<f32> = (0..700).map(|x| (-(x as f32) / 40.0).exp()).collect();
        round_trip(&smooth);
        // A smooth fall packs in about two bytes a value.
        assert!(pack(&smooth).len() < 2 * 4 * smooth.len() / 3);
        let packed = pack(&smooth);
        let origin = Origin::Bytes;
        assert!(unpack(&packed, 699, &origin, 0).is_err(), "another count");
        assert!(
            unpack(&packed[..packed.len() - 8], 700, &origin, 0).is_err(),
            "cut short"
        );
        let mut longer = packed.clone();
        longer.extend_from_slice(&[0, 0, 0, 0]);
        assert!(unpack(&longer, 700, &origin, 0).is_err(), "a word too many");
        let mut flipped = packed.clone();
        *flipped.last_mut().unwrap() = 1;
        assert!(
            unpack(&flipped, 700, &origin, 0).is_err(),
            "padding not zero"
        );
    }

    /// Every card of a table read back from its file, those the file stores and those it
    /// leaves out and solves again, is bit for bit the card the build solved; and the file
    /// holds less than half of the values' `f32` bytes.
    fn reads_back_bit_for_bit(solved: &VectorTable<f32>, ev: Option<&StrategyTable>) {
        let rules = *solved.rules();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.table");
        solved.save(&path).unwrap();
        let load = || {
            let t = VectorTable::load(&path, &rules, solved.objective()).unwrap();
            match ev {
                Some(ev) => t.following(Arc::new(ev.clone())),
                None => t,
            }
        };
        let loaded = load();
        assert_eq!(loaded.stored_values(), solved.stored_values());
        let (mut stored, mut left_out) = (0, 0);
        for m in file_cards(&rules) {
            let a = solved.card(m).unwrap();
            let b = loaded.card(m).unwrap();
            assert_eq!(a.len(), b.len(), "{}: card {m}", rules.label());
            assert!(
                a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()),
                "{}: card {m}",
                rules.label()
            );
            if stores(&rules, m) {
                stored += a.len();
            } else {
                left_out += a.len();
            }
        }
        assert!(
            stored > 1000 && left_out > 1000,
            "{stored} stored, {left_out} left out"
        );
        let all = (stored + left_out) as u64;
        let bytes = std::fs::metadata(&path).unwrap().len();
        assert!(bytes < 2 * all, "{bytes} bytes for {all} values");
        for s in reachable_states(&rules) {
            assert_eq!(loaded.range(&s), solved.range(&s));
        }
        // Read whole: the same, every stored card checked, the others solved again.
        let whole =
            VectorTable::from_bytes(&std::fs::read(&path).unwrap(), &rules, solved.objective())
                .unwrap();
        let whole = match ev {
            Some(ev) => whole.following(Arc::new(ev.clone())),
            None => whole,
        };
        assert_eq!(whole.stored_values(), solved.stored_values());
        for m in file_cards(&rules) {
            assert_eq!(whole.card(m).unwrap(), solved.card(m).unwrap());
        }
        // The cards left out, solved in parallel for a whole pass.
        let again = load();
        again.load_cards_from(0).unwrap();
        for m in file_cards(&rules) {
            assert_eq!(again.card(m).unwrap(), solved.card(m).unwrap());
        }
    }

    #[test]
    fn target_tables_read_back_bit_for_bit() {
        for rules in [
            Rules::new(RuleSet::YACHT),
            Rules::with_order(RuleSet::YACHT, Order::UpperFirst),
        ] {
            let solved = VectorTable::solve(
                &VectorObjective::<f32>::target(rules),
                SolveOptions::default().simd,
                &|_, _| {},
            );
            reads_back_bit_for_bit(&solved, None);
        }
    }

    #[test]
    fn distribution_tables_read_back_bit_for_bit() {
        let rules = Rules::new(RuleSet::YACHT);
        let (ev, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let solved = VectorTable::solve(
            &VectorObjective::<f32>::distribution(Arc::new(ev.clone())),
            SolveOptions::default().simd,
            &|_, _| {},
        );
        reads_back_bit_for_bit(&solved, Some(&ev));
        // Without the expected-score policy, a card left out cannot be solved again.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.table");
        solved.save(&path).unwrap();
        let bare = VectorTable::load(&path, &rules, solved.objective()).unwrap();
        let left_out = file_cards(&rules).find(|&m| !stores(&rules, m)).unwrap();
        assert!(bare.card(left_out).is_err());
    }

    /// A file of an earlier version, which stored every value unpacked, is refused with the
    /// advice to rebuild it.
    #[test]
    fn an_unpacked_file_is_refused_with_the_advice_to_rebuild() {
        let rules = Rules::new(RuleSet::YACHT);
        let solved = VectorTable::solve(
            &VectorObjective::<f32>::target(rules),
            SolveOptions::default().simd,
            &|_, _| {},
        );
        let mut bytes = Vec::new();
        solved
            .write_to(&mut std::io::Cursor::new(&mut bytes))
            .unwrap();
        let header = container::read_header(&bytes).unwrap();
        let old = TableHeader {
            value_type: OLD_VALUE_TYPE.to_string(),
            ..header
        };
        let mut file = Vec::new();
        container::write_table(&mut std::io::Cursor::new(&mut file), old, |write| {
            write(&bytes[bytes.len() - solved_body_len(&bytes)..]).map(|()| None)
        })
        .unwrap();
        let e = VectorTable::from_bytes(&file, &rules, TARGET).unwrap_err();
        assert!(e.needs_rebuild(), "{e}");
        assert!(e.to_string().contains("earlier version"), "{e}");
    }

    /// The body's length of a table file's bytes.
    fn solved_body_len(bytes: &[u8]) -> usize {
        container::read_header(bytes).unwrap().body_bytes as usize
    }
}
