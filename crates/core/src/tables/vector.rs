//! The table of a vector objective (target, distribution): the solved vectors of every state
//! ([`crate::solve::vector::Solution`]), its file, and the turns run on it at query time.
//!
//! A table solved here holds every card's values; a table loaded from a file reads a card's
//! values the first time they are asked for (checking its CRC-32), so a query that needs a
//! few states reads a few cards of a table of hundreds of megabytes.
//!
//! The file is the container of every table file ([`crate::tables::container`]): the header
//! names the rules, the objective, the value type (`f32`), the number of values, the body's
//! size, its CRC-32, the CRC-32 of its index and the tail left out. The body, all
//! little-endian:
//!
//! ```text
//! ranges   12 bytes per reachable state, in layout order (`state::reachable_states`):
//!          the coordinate of the first stored value (i32), the number stored (u32), and
//!          where they start among the card's values (u32)
//! cards    16 bytes per card the fill order allows, by ascending mask: its first value
//!          among all values (u64), its number of values (u32), their CRC-32 (u32)
//! values   f32, card after card
//! ```
//!
//! The ranges and cards are the index, read and checked (by its own CRC-32, and for
//! consistency) before any value; each card's values are checked by theirs when read.

use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{Layout, State, reachable_states, set_bits};
use crate::solve::kernel::{KeepArray, Layer, Plan, Real, ScoreTable, run_turn};
use crate::solve::vector::{Range, RowSpec, Solution, VectorObjective, lay_out, read};
use crate::tables::container::{
    self, Head, PIECE_BYTES, Piece, RANGE_BYTES, TableFile, TableHeader,
};
use crate::tables::{Origin, TableError};

/// The most lanes [`VectorTable::turn_lanes`] computes at once.
pub const MAX_TURN_LANES: usize = 16;

/// The value type of a vector table's file.
pub const FILE_VALUE_TYPE: &str = "f32";

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
}

/// Where the values of each card are in a table file.
#[derive(Debug)]
struct CardFile {
    path: PathBuf,
    /// The file offset of the values section.
    values_at: u64,
    /// Per card (by mask): its first value, its number of values, and their CRC-32.
    cards: Vec<Piece>,
}

impl<T: Real> From<Solution<T>> for VectorTable<T> {
    /// The table of a solve: every card solved is held.
    fn from(solution: Solution<T>) -> VectorTable<T> {
        VectorTable {
            scores: Arc::new(ScoreTable::new(&solution.rules)),
            solution,
            file: None,
        }
    }
}

impl<T: Real> VectorTable<T> {
    /// Solves `objective` for every reachable state (see [`crate::solve::vector::solve`]).
    pub fn solve(
        objective: &VectorObjective<T>,
        simd: crate::solve::simd::Simd,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> VectorTable<T> {
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

    /// Number of values held (states that share a vector count it once; for a table read
    /// from a file, the cards read so far).
    pub fn stored_values(&self) -> u64 {
        self.solution.stored_values()
    }
}

impl VectorTable<f32> {
    /// The values of the card `filled`, read from the file (and checked) on first use.
    pub fn card(&self, filled: BoxMask) -> Result<&[f32], TableError> {
        let slot = &self.solution.cards[usize::from(filled)];
        if let Some(values) = slot.get() {
            return Ok(values);
        }
        let Some(file) = self.file.as_ref() else {
            return Err(TableError::Unsolved { filled });
        };
        let values = file.read_card(filled)?;
        Ok(slot.get_or_init(|| values))
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
            let k = keeps.block::<N>();
            run_turn(k, plan, &self.scores, 0, last, |layer, k| visit(layer, k));
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

impl VectorTable<f32> {
    /// The index of the file: the ranges section and the cards section, and the number of
    /// values.
    fn index_bytes(&self) -> Result<(Vec<u8>, u64), TableError> {
        let mut index = Vec::new();
        for s in reachable_states(self.rules()) {
            container::push_range(&mut index, &self.range(&s));
        }
        let mut first = 0u64;
        for m in file_cards(self.rules()) {
            let values = self.card(m)?;
            Piece::of(first, values).push(&mut index);
            first += values.len() as u64;
        }
        Ok((index, first))
    }

    /// Writes the table file's bytes to `out` (see [`crate::tables::container`]): the index,
    /// then the values card by card.
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
        container::write_table(out, header, |write| {
            write(&index)?;
            for m in file_cards(self.rules()) {
                write(&container::value_bytes(self.card(m).map_err(to_io)?))?;
            }
            Ok(())
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
        let cards = table.card_entries(&index, head)?;
        table.file = Some(CardFile {
            path: path.to_path_buf(),
            values_at: body_at + sizes.index as u64,
            cards,
        });
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

    /// The vector table in the file at `path`, whatever its rules and objective (as its
    /// header names them), every part checked: what `yahtzee verify` does.
    pub fn verify(path: &Path) -> Result<(TableHeader, VectorTable<f32>), TableError> {
        let bytes = container::read(path)?;
        let head = Head::of(&bytes, Origin::File(path.to_path_buf()))?;
        let rules = head.named_rules()?;
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
        let table = VectorTable::from_index(&head, rules, objective, index)?;
        let cards = table.card_entries(index, &head)?;
        let values = &body[sizes.index..];
        for (m, entry) in cards.iter().enumerate() {
            if entry.count == 0 && table.solution.cards[m].get().is_some() {
                continue;
            }
            let from = 4 * entry.first as usize;
            let card =
                entry.values(&values[from..from + 4 * entry.count as usize], &head.origin)?;
            let _ = table.solution.cards[m].set(card);
        }
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

    /// The cards section of the index, checked against the ranges (every state's values lie
    /// inside its card's) and against the number of values.
    fn card_entries(&self, index: &[u8], head: &Head) -> Result<Vec<Piece>, TableError> {
        let origin = &head.origin;
        let rules = self.rules();
        let states = reachable_states(rules).count();
        let section = states * RANGE_BYTES;
        let mut cards = vec![Piece::default(); self.layout().masks];
        let mut next = 0u64;
        for (i, m) in file_cards(rules).enumerate() {
            cards[usize::from(m)] =
                Piece::following(index, section + i * PIECE_BYTES, &mut next, origin, || {
                    format!("card {m}")
                })?;
        }
        container::check_entries(head, next, "cards")?;
        for s in reachable_states(rules) {
            let r = self.range(&s);
            let count = u64::from(cards[usize::from(s.filled)].count);
            if u64::from(r.offset) + u64::from(r.len) > count {
                return Err(origin.corrupt(format!(
                    "a range of card {} ends past its {count} values",
                    s.filled
                )));
            }
            if r.len > 0 && (r.lo < -(1 << 20) || r.lo > 1 << 20) {
                return Err(origin.corrupt(format!("a range starts at coordinate {}", r.lo)));
            }
        }
        Ok(cards)
    }
}

impl CardFile {
    /// Reads the values of the card `filled` and checks their CRC-32.
    fn read_card(&self, filled: BoxMask) -> Result<Box<[f32]>, TableError> {
        self.cards[usize::from(filled)].read_values(&self.path, self.values_at)
    }
}

/// Checks that a header is of a vector table of `rules` and `objective`.
fn check_file(head: &Head, rules: &Rules, objective: &'static str) -> Result<(), TableError> {
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
