//! What a turn reads besides its keep values: the points of every box for every roll
//! ([`ScoreTable`], once per game) and the rows of one card ([`Plan`]: the successor values
//! of each way of filling a box, once per card or block), and where the keep values are
//! held ([`KeepArray`], once per thread).

use crate::lattice::{ALL_MULTISETS, FACES, Lattice, MAX_ROLLS, Space};
use crate::real::{MAX_POINTS, Real};

/// A set of boxes, bit `i` for box `i` of the card.
pub type BoxMask = u32;

/// The most boxes a game may have.
pub const MAX_BOXES: usize = 20;

/// The most rolls a turn may have.
pub const MAX_ROLLS_A_TURN: u8 = 4;

/// Slots of the per-box arrays of a roll: one per box, plus one spare (the expected-score
/// solver's slot of the five-of-a-kind box filled with its points).
pub const BOX_SLOTS: usize = MAX_BOXES + 1;

/// The set bits of `mask`, lowest first.
fn set_bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            i
        })
    })
}

/// Points of each box for each roll by the box's own condition (no Joker), precomputed once
/// per rule set: `points[box][roll offset]`.
#[derive(Debug)]
pub struct ScoreTable {
    /// The dice of the rule set: the ranges of the kernel's loops.
    pub dice: Space,
    /// Rolls a turn: the layers of keeps of a turn are one fewer.
    pub rolls: u8,
    /// The chance of each roll of all the dice, by roll offset.
    pub roll_probability: Vec<f64>,
    pub points: Vec<Vec<u8>>,
    pub five_of_a_kind: Vec<bool>,
    /// The distinct points of each box over the rolls, ascending.
    pub distinct: Vec<Vec<u8>>,
    /// For each roll, the rank of each box's points among that box's `distinct` points:
    /// `rank[roll offset][box]`.
    pub rank: Vec<[u8; BOX_SLOTS]>,
    /// The boxes whose points only add to the value of the state they lead to, which is the
    /// same whatever the roll ([`adding_boxes`]).
    pub adds: BoxMask,
    /// The rolls grouped by the points they score in the boxes that add their points
    /// (`adds`): the group of each roll. Yahtzee has 98 groups.
    pub group: Vec<u16>,
    /// The points of each group in each box that adds its points (0 in the others).
    pub group_points: Vec<[u8; BOX_SLOTS]>,
    /// More rows than the plan of a card ever makes (see [`Plan`]).
    pub max_rows: usize,
}

/// The boxes whose points only add to the value of the state they lead to, which is the same
/// whatever the roll: of the candidates `adds` (the game's lower boxes but the five-of-a-kind
/// box, whose 50 leads to another state), as many as fit. The final roll takes their best once per group of rolls scoring alike, and keeps
/// the groups' maxima in the entries of the keeps (free at that point), so there may be at
/// most as many groups as keeps of fewer dice: when the lower boxes score in more ways than that (Scandinavian
/// Yatzy's give 224), the box scoring in the most ways is left out and ranked like an upper
/// box instead, until the groups fit.
fn adding_boxes(
    space: Space,
    points: &[Vec<u8>],
    mut adds: BoxMask,
) -> (BoxMask, Vec<u16>, Vec<[u8; BOX_SLOTS]>) {
    let dice = space;
    loop {
        let mut group = vec![0u16; dice.rolls()];
        let mut group_points: Vec<[u8; BOX_SLOTS]> = Vec::new();
        for (r, g) in group.iter_mut().enumerate() {
            let mut scored = [0u8; BOX_SLOTS];
            for c in set_bits(u64::from(adds)) {
                scored[c] = points[c][r];
            }
            *g = match group_points.iter().position(|p| *p == scored) {
                Some(i) => i as u16,
                None => {
                    group_points.push(scored);
                    (group_points.len() - 1) as u16
                }
            };
        }
        if group_points.len() <= dice.first_roll() {
            return (adds, group, group_points);
        }
        let distinct = |c: usize| {
            let mut d = points[c].to_vec();
            d.sort_unstable();
            d.dedup();
            d.len()
        };
        let most = set_bits(u64::from(adds))
            .max_by_key(|&c| (distinct(c), std::cmp::Reverse(c)))
            .expect("more groups than rolls need an adding box");
        adds &= !(1 << most);
    }
}

impl ScoreTable {
    /// The table of a game of `space`'s dice and `rolls` rolls a turn from the points of each
    /// box for each roll by its own condition (`points[box][roll offset]`, at most
    /// [`MAX_BOXES`] boxes of at most [`MAX_POINTS`] points), which rolls are five of a kind,
    /// and the boxes whose points may only add to the value of the state they lead to
    /// (`adds`: the lower boxes but the five-of-a-kind box).
    pub fn new(
        space: Space,
        rolls_a_turn: u8,
        points: Vec<Vec<u8>>,
        five_of_a_kind: Vec<bool>,
        adds: BoxMask,
    ) -> ScoreTable {
        let rolls = space.rolls();
        let boxes = points.len();
        assert!(boxes <= MAX_BOXES, "at most {MAX_BOXES} boxes");
        assert!(
            points.iter().all(|row| row.len() == rolls)
                && points.iter().flatten().all(|&p| u32::from(p) <= MAX_POINTS),
            "points of every roll, at most {MAX_POINTS}"
        );
        assert_eq!(five_of_a_kind.len(), rolls, "a flag per roll");
        assert!(
            (1..=MAX_ROLLS_A_TURN).contains(&rolls_a_turn),
            "1 to {MAX_ROLLS_A_TURN} rolls a turn"
        );
        let distinct: Vec<Vec<u8>> = points
            .iter()
            .map(|row| {
                let mut d = row.to_vec();
                d.sort_unstable();
                d.dedup();
                d
            })
            .collect();
        let rank = (0..rolls)
            .map(|r| {
                let mut ranks = [0u8; BOX_SLOTS];
                for (c, d) in distinct.iter().enumerate() {
                    ranks[c] = d.partition_point(|&p| p < points[c][r]) as u8;
                }
                ranks
            })
            .collect();
        let (adds, group, group_points) = adding_boxes(space, &points, adds);
        // A row per points of each ranked box, one per adding box, and the Joker's: at most
        // one per (box, points) of each five of a kind.
        let max_rows = (0..boxes)
            .map(|c| {
                if adds & (1 << c) != 0 {
                    1
                } else {
                    distinct[c].len()
                }
            })
            .sum::<usize>()
            + FACES * boxes;
        ScoreTable {
            dice: space,
            rolls: rolls_a_turn,
            roll_probability: Lattice::get().roll_probabilities(space),
            points,
            five_of_a_kind,
            distinct,
            rank,
            adds,
            group,
            group_points,
            max_rows,
        }
    }
}

/// The boxes each final roll may fill on one card, worked out once per card and shared by
/// all its lane blocks. Within one box a roll matters only through the points it scores.
/// An upper box (whose points shift the upper total) and the five-of-a-kind box (whose 50
/// leads to another state) get one precomputed row of lanes per points they can score: the
/// points plus the successor value. The rows of one box are consecutive, in the order of its
/// distinct points, so the row of a roll is the box's first row plus the roll's rank
/// (`ScoreTable::rank`). Every other box gets one row, its successor values, to which a roll
/// adds its points (`ScoreTable::adds`). Yahtzees rolled with the Yahtzee box filled, where the
/// Joker decides, have their own lists of rows.
pub struct Plan<T> {
    /// The open boxes whose rows are made for each of their points: (box, index of its
    /// first row).
    pub ranked: Vec<(u8, u16)>,
    /// The open boxes whose points only add to the successor value, the same for every roll
    /// (`ScoreTable::adds`): (box, index of its row of successor values, the row of 0 points).
    /// A roll adds its points.
    pub added: Vec<(u8, u16)>,
    /// The row of each box of `ranked` for each roll, roll by roll (`ranked.len()` a roll),
    /// made by [`Plan::index_rolls`] for the blocks of one state; unused after
    /// [`Plan::begin`] (`indexed` false), when [`score_final_roll`] works the rows out from
    /// `ranked`. When the index leaves out each box's floor, a roll lists only the rows of
    /// the boxes where it scores more than their fewest points, and the rolls come in the
    /// order of `floor_rolls`.
    pub(crate) roll_rows: Vec<u16>,
    /// With the floors left out: the rolls (offsets) grouped by how many rows they list,
    /// and the groups, (rows a roll, rolls). Empty otherwise. A roll's loop over its rows
    /// then runs as many times as the previous roll's but once a group, where rolls in their
    /// own order ran 0 to 5 times at random and the processor mispredicted the loop's end.
    pub(crate) floor_rolls: Vec<u16>,
    pub(crate) floor_groups: Vec<(u8, u16)>,
    /// Whether `roll_rows` is this plan's index: false after [`Plan::begin`], when the
    /// kernel works the rows out from `ranked`.
    pub(crate) indexed: bool,
    /// The boxes the last index was made for, and whether above their floors: the next
    /// state of a card (the same boxes open, their rows in the same places) reuses it.
    index_of: (Vec<(u8, u16)>, bool),
    /// The five-of-a-kind rolls decided by the Joker: (roll offset, range of `joker_rows`).
    pub jokers: Vec<(u16, u16, u16)>,
    /// Rows of the Joker's choices.
    pub joker_rows: Vec<u16>,
    /// The rows, from `rows[start]`, which is on a cache line boundary (see [`LINE`]).
    pub(crate) rows: Vec<T>,
    pub(crate) start: usize,
    /// Rows made for Yahtzees rolled with the Yahtzee box filled (Joker and bonus):
    /// (box, points, row index).
    pub extra: Vec<(usize, u32, u16)>,
    /// Number of lanes the rows cover.
    pub(crate) width: usize,
    /// For a plan that follows a given policy rather than the best choice: the keep of each
    /// roll (multiset index; the roll itself to stop) with one roll left, then with two (and
    /// three, in a game of four rolls a turn), one per roll each. Empty: every roll takes its
    /// best keep ([`best_keeps`]).
    pub(crate) keep_policy: Vec<u16>,
    /// The rolls (offsets) `keep_policy` stops on with two rolls left or more: their final
    /// values are kept apart, at `k[dice.multisets() + r]`, before the first layer of keeps
    /// replaces them (with one roll left, stopping leaves the final value where it is).
    pub(crate) later_stops: Vec<u16>,
}

impl<T: Real> Default for Plan<T> {
    fn default() -> Plan<T> {
        Plan::new()
    }
}

impl<T: Real> Plan<T> {
    pub fn new() -> Plan<T> {
        Plan {
            ranked: Vec::with_capacity(BOX_SLOTS),
            roll_rows: Vec::new(),
            floor_rolls: Vec::new(),
            floor_groups: Vec::new(),
            indexed: false,
            index_of: (Vec::new(), false),
            added: Vec::with_capacity(BOX_SLOTS),
            jokers: Vec::with_capacity(FACES),
            joker_rows: Vec::with_capacity(FACES * BOX_SLOTS),
            rows: Vec::new(),
            start: 0,
            extra: Vec::new(),
            width: 1,
            keep_policy: Vec::new(),
            later_stops: Vec::new(),
        }
    }

    /// Empties the plan for rows of `width` lanes, at most `max_rows` of them (the rows'
    /// buffer is reserved once, so that it starts on a cache line).
    pub fn begin(&mut self, width: usize, max_rows: usize) {
        self.width = width;
        self.keep_policy.clear();
        self.later_stops.clear();
        self.ranked.clear();
        self.indexed = false;
        self.added.clear();
        self.jokers.clear();
        self.joker_rows.clear();
        self.extra.clear();
        self.rows.clear();
        self.rows.reserve(per_line::<T>() + max_rows * width);
        self.start = aligned_start(&self.rows);
        self.rows.resize(self.start, T::ZERO);
    }

    /// Drops the rows but keeps which boxes and Joker choices they stand for: the next rows
    /// are those of another block of lanes of the same state.
    pub fn restart_rows(&mut self, width: usize, max_rows: usize) {
        self.width = width;
        self.rows.clear();
        self.rows.reserve(per_line::<T>() + max_rows * width);
        self.start = aligned_start(&self.rows);
        self.rows.resize(self.start, T::ZERO);
    }

    /// Makes the plan follow the keeps `keeps` (see [`Plan::keep_policy`]: one per roll of
    /// `dice` with one roll left, then with two, and so on) instead of the best ones.
    pub fn follow_keeps(&mut self, dice: Space, keeps: impl IntoIterator<Item = u16>) {
        self.keep_policy.clear();
        self.keep_policy.extend(keeps);
        let (first_roll, rolls) = (dice.first_roll(), dice.rolls());
        self.later_stops.clear();
        for r in 0..rolls {
            let stop = (first_roll + r) as u16;
            let mut later = self.keep_policy.chunks_exact(rolls).skip(1);
            if later.any(|layer| layer[r] == stop) {
                self.later_stops.push(r as u16);
            }
        }
    }

    /// Number of rows made so far: the index of the next.
    pub fn rows_made(&self) -> u16 {
        ((self.rows.len() - self.start) / self.width) as u16
    }

    /// Appends a row of `width` lanes from `lanes`, returning its index.
    #[inline]
    pub fn push_row(&mut self, lanes: impl Iterator<Item = T>) -> u16 {
        let index = self.rows_made();
        self.rows.extend(lanes);
        debug_assert_eq!(self.rows_made(), index + 1, "a row has `width` lanes");
        index
    }

    /// Works out the row of each box of `ranked` for each roll once, for a state whose turn
    /// is run block after block ([`Plan::restart_rows`] keeps them): call it after `ranked`
    /// is final; [`Plan::begin`] forgets them. The next state with the same boxes (the
    /// states of a card, one after another) reuses them: a plan indexes the rolls of one
    /// [`ScoreTable`] in its life.
    ///
    /// `above_floor`: for an objective whose values never fall as points are scored (a box's
    /// row of more points is worth at least its row of fewer, lane by lane, to the bit), each
    /// box's first row, its fewest points (its floor), is worth no more than any of its rows:
    /// the best of the floors is then taken once per block, and a roll lists only the rows
    /// of the boxes where it scores more than their fewest. The best box of each roll is the
    /// same maximum, with about half the rows read.
    pub fn index_rolls(&mut self, scores: &ScoreTable, above_floor: bool) {
        self.indexed = true;
        if self.index_of.1 == above_floor && self.index_of.0 == self.ranked {
            // The previous state's boxes, rows and rank table: its index holds.
            return;
        }
        self.index_of.0.clone_from(&self.ranked);
        self.index_of.1 = above_floor;
        self.roll_rows.clear();
        self.floor_rolls.clear();
        self.floor_groups.clear();
        if !above_floor {
            for ranks in &scores.rank {
                for &(c, first) in &self.ranked {
                    self.roll_rows
                        .push(first + u16::from(ranks[usize::from(c)]));
                }
            }
            return;
        }
        // Each roll's rows above the floors, the rolls listed by their number, fewest first.
        let above = |ranks: &[u8; BOX_SLOTS]| {
            let mut rows = [0u16; BOX_SLOTS];
            let mut n = 0;
            for &(c, first) in &self.ranked {
                let rank = ranks[usize::from(c)];
                if rank > 0 {
                    rows[n] = first + u16::from(rank);
                    n += 1;
                }
            }
            (rows, n)
        };
        let listed: Vec<([u16; BOX_SLOTS], usize)> = scores.rank.iter().map(above).collect();
        for count in 0..=self.ranked.len() {
            let before = self.floor_rolls.len();
            for (r, (rows, n)) in listed.iter().enumerate() {
                if *n == count {
                    self.floor_rolls.push(r as u16);
                    self.roll_rows.extend_from_slice(&rows[..count]);
                }
            }
            let rolls = self.floor_rolls.len() - before;
            if rolls > 0 {
                self.floor_groups.push((count as u8, rolls as u16));
            }
        }
    }

    /// The rows made so far, row after row, [`Plan::width`] lanes each: for an objective
    /// that maps its rows once made (the certainty equivalent's, whose rows become
    /// utilities, `yahtzee_core::solve::theta`).
    pub fn rows_mut(&mut self) -> &mut [T] {
        let start = self.start;
        &mut self.rows[start..]
    }

    /// The lanes of each row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Appends the row `lanes` (`width` of them), returning its index.
    #[inline(always)]
    pub fn push_row_of(&mut self, lanes: &[T]) -> u16 {
        debug_assert_eq!(lanes.len(), self.width, "a row has `width` lanes");
        let index = self.rows_made();
        self.rows.extend_from_slice(lanes);
        index
    }

    /// Appends a row of `width` lanes to be filled by `fill`, returning its index.
    #[inline]
    pub fn push_row_with(&mut self, fill: impl FnOnce(&mut [T])) -> u16 {
        let index = self.rows_made();
        let at = self.rows.len();
        self.rows.resize(at + self.width, T::ZERO);
        fill(&mut self.rows[at..]);
        index
    }

    /// The lanes `u0..u0 + N` of row `row`.
    #[inline(always)]
    pub fn lanes_of<const N: usize>(&self, row: usize, u0: usize) -> &[T; N] {
        let at = self.start + row * self.width + u0;
        self.rows[at..]
            .first_chunk::<N>()
            .expect("rows cover the lanes asked for")
    }
}
/// The keep values of a block of lanes, one entry of `N` lanes per multiset, then one per
/// roll for the final roll's values (kept there by a plan that follows a policy, see
/// [`run_turn`]), starting on a cache line; allocated once per thread.
pub struct KeepArray<T> {
    values: Vec<T>,
    start: usize,
}

/// Entries of a keep array: the multisets, then the rolls' final values (room for six
/// dice; five use the first 462 + 252).
pub const KEEP_ENTRIES: usize = ALL_MULTISETS + MAX_ROLLS;

impl<T: Real> KeepArray<T> {
    /// Room for blocks of up to `lanes` lanes.
    pub fn new(lanes: usize) -> KeepArray<T> {
        let values = vec![T::ZERO; per_line::<T>() + KEEP_ENTRIES * lanes];
        KeepArray {
            start: aligned_start(&values),
            values,
        }
    }

    /// The entries of a block of `M` lanes ([`KEEP_ENTRIES`] of them).
    #[inline(always)]
    pub fn block<const M: usize>(&mut self) -> &mut [[T; M]] {
        self.values[self.start..][..KEEP_ENTRIES * M]
            .as_chunks_mut::<M>()
            .0
    }
}

// Buffers of lanes start on a cache line (64 bytes): a load that straddles two lines costs
// two. Measured: the keep values 16 bytes off a line made a full solve about 20% slower, and
// which allocation happened to land where swung timings by as much between builds.

/// Values of type `T` per cache line: the most a buffer's start is moved to a line.
pub const fn per_line<T>() -> usize {
    64 / size_of::<T>()
}

/// The first index of `buffer`'s allocation that starts a cache line (reserve
/// [`per_line`] more values than needed).
pub fn aligned_start<T>(buffer: &[T]) -> usize {
    buffer.as_ptr().align_offset(64).min(per_line::<T>())
}
