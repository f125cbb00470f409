//! The turn kernel: the machinery of one turn of the game, written once and driven by every
//! objective.
//!
//! A turn is computed for `N` lanes at once. What a lane is depends on the objective: for the
//! expected score (`solver`) the lanes are the states of one card (its upper totals and bonus
//! flags), for the vector objectives (points still needed, points banked, score difference)
//! the lanes are the values of that number for one state. Either way each lane reads its own
//! successor values, and the objective puts them into a [`Plan`]: one row of lanes per way of
//! filling each open box. The kernel then computes, for the lanes of a block:
//!
//! 1. the last roll: for each of the 252 rolls (462 with six dice), the best box to fill
//!    ([`score_final_roll`]);
//! 2. the value of each keep, by recursion over one more die: the value of keeping `k` is the
//!    mean over the six faces of keeping `k` plus that face ([`expect_keeps`]), 1,260
//!    additions per layer instead of 4,368 multiply-adds over the outcome probabilities;
//! 3. the best keep of each roll, as a maximum over the lattice of sub-multisets
//!    ([`best_keeps`]);
//! 4. steps 2 and 3 again for each earlier re-roll, once in a game of three rolls a turn
//!    (none with two rolls, twice with four: the rule set's `rolls`, held by the
//!    [`ScoreTable`]); [`run_turn`] runs them all, layer by layer; the caller takes the mean
//!    over the opening rolls.
//!
//! Values are of a type [`Real`]: `f64` for the expected score (the table is exact to the
//! last bits that matter) and `f32` where the objectives' vectors make memory and bandwidth
//! the cost. The arrays of `N` lanes are written so that the compiler turns them into vector
//! code, and no operation is fused, so every instruction set gives the same bits.
//!
//! Five dice or six: the loops take their ranges from the rule set's [`DiceSpace`] (held by
//! the [`ScoreTable`]): the keeps of fewer dice are the multisets before its first roll, and
//! the lattice of six dice extends that of five, so one kernel serves both. (Measured: a
//! five-dice solve as fast as before, `results/six-dice-2026-12-03.md`: [`run_turn`] runs one
//! copy of the turn for each number of dice, with its ranges constant.)

use std::ops::{Add, Mul};
use std::sync::LazyLock;

use crate::game::dice::{ALL_MULTISETS, DiceSpace, FACES, Lattice, MAX_DICE, MAX_ROLLS};
use crate::game::rules::file::MAX_POINTS;
use crate::game::rules::{BoxMask, MAX_BOXES, Rules};
use crate::game::state::set_bits;

/// Slots of the per-box arrays of a roll: one per box, plus one spare (the expected-score
/// solver's slot of the five-of-a-kind box filled with its points).
pub(crate) const BOX_SLOTS: usize = MAX_BOXES + 1;

/// A floating-point type the kernel computes in (or a value with a companion carried beside
/// it, which the kernel's maxima choose by the value: the two-player solve's `Duo`, in
/// `lane.rs`).
pub trait Real:
    Copy + PartialEq + Add<Output = Self> + Mul<Output = Self> + Send + Sync + 'static
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// Below every value: the start of a maximum.
    const NEG_INFINITY: Self;
    /// The points a box can score (0 to [`MAX_POINTS`]), as values: one load where the
    /// final roll adds them.
    const POINTS: [Self; POINT_VALUES];
    /// A sixth of `self`: the mean over the faces of a die is the sum of the six values
    /// times this. Always the same operation, so the same inputs give the same bits.
    fn sixth(self) -> Self;
    /// The number of ways of throwing each multiset (of 7,776 for the 252 rolls of five dice,
    /// of 46,656 for the 462 of six), by multiset index, in this type (exact: at most 720).
    fn roll_ways() -> &'static [Self];
    /// The nearest value to `x`.
    fn from_f64(x: f64) -> Self;
    /// The value as an `f64` (exact).
    fn to_f64(self) -> f64;
    /// What the opening mean adds up in ([`opening_mean_of`]): `f64` for a number; a lane
    /// that carries a companion beside its value (a `Duo`, in `lane.rs`) sums both.
    type Wide: Copy;
    /// The sum of no values.
    const WIDE_ZERO: Self::Wide;
    /// `acc + x`, `x` widened exactly.
    fn wide_add(acc: Self::Wide, x: Self) -> Self::Wide;
    /// `acc / d`.
    fn wide_div(acc: Self::Wide, d: f64) -> Self::Wide;
    /// The value of a sum (for a number, the sum itself).
    fn wide_value(acc: Self::Wide) -> f64;
    /// The greater of `a` and `b` (`b` unless `a` is greater): every maximum of the kernel.
    /// For a number a plain comparison (not `f64::max`), which compiles to one `maxpd`: no
    /// value is ever NaN. A lane with a companion compares its values alone.
    fn greater(a: Self, b: Self) -> Self;
}

macro_rules! real {
    ($t:ty, $sixth:ident) => {
        impl Real for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            const NEG_INFINITY: $t = <$t>::NEG_INFINITY;
            const POINTS: [$t; POINT_VALUES] = {
                let mut table = [0.0; POINT_VALUES];
                let mut p = 0;
                while p < POINT_VALUES {
                    table[p] = p as $t;
                    p += 1;
                }
                table
            };
            #[inline(always)]
            fn sixth(self) -> $t {
                $sixth(self)
            }
            fn roll_ways() -> &'static [$t] {
                static WAYS: LazyLock<Vec<$t>> =
                    LazyLock::new(|| Lattice::get().ways.iter().map(|&w| w as $t).collect());
                &WAYS
            }
            #[inline(always)]
            fn from_f64(x: f64) -> $t {
                x as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
            type Wide = f64;
            const WIDE_ZERO: f64 = 0.0;
            #[inline(always)]
            fn wide_add(acc: f64, x: $t) -> f64 {
                acc + f64::from(x)
            }
            #[inline(always)]
            fn wide_div(acc: f64, d: f64) -> f64 {
                acc / d
            }
            #[inline(always)]
            fn wide_value(acc: f64) -> f64 {
                acc
            }
            #[inline(always)]
            fn greater(a: $t, b: $t) -> $t {
                if a > b { a } else { b }
            }
        }
    };
}

/// Entries of [`Real::POINTS`]: 0 to [`MAX_POINTS`].
pub const POINT_VALUES: usize = MAX_POINTS as usize + 1;

/// `x / 6` for `f64`: times the rounded 1/6, one rounding like a division. (Its tiny bias,
/// 1/6 rounded down by 1e-17 relative, is far below anything the expected score reads.)
#[inline(always)]
fn sixth_of_f64(x: f64) -> f64 {
    x * (1.0 / 6.0)
}

/// `x / 6` for `f32`, correctly rounded. `f32`'s rounded 1/6 is 3e-8 too large, a bias the
/// 26 means of a game would add up to 8e-7 (measured: 8.5e-7 on Yacht's target table, which
/// must stay within 1e-6 of exact); the quotient must round to nearest, with no bias.
///
/// Without a division, which was the kernel's slowest instruction (a `vdivps` costs as much
/// as a dozen multiplications and took about a sixth of a solve's time): the product by the
/// rounded 1/6, corrected once by its exact remainder (two fused multiply-adds). That is the
/// correctly rounded quotient, the bits of `x / 6.0`, for every `f32` from 2^-125 up (tested
/// for all of them to 2^20, `sixth_of_f32_is_the_rounded_quotient`); below, where the
/// quotient is subnormal, it can be one unit of 1e-45 away. A fused multiply-add is exactly
/// specified, so every instruction set (or the library's `fmaf`) gives the same bits. (Of
/// -0 it gives +0, the same number: no value of the kernel is negative.)
#[inline(always)]
fn sixth_of_f32(x: f32) -> f32 {
    const SIXTH: f32 = 1.0 / 6.0;
    let q = x * SIXTH;
    let remainder = (-q).mul_add(6.0, x);
    remainder.mul_add(SIXTH, q)
}

real!(f64, sixth_of_f64);
real!(f32, sixth_of_f32);

/// Points of each box for each roll by the box's own condition (no Joker), precomputed once
/// per rule set: `points[box][roll offset]`.
#[derive(Debug)]
pub(crate) struct ScoreTable {
    /// The dice of the rule set: the ranges of the kernel's loops.
    pub(crate) dice: DiceSpace,
    /// Rolls a turn: the layers of keeps of a turn are one fewer.
    pub(crate) rolls: u8,
    /// The chance of each roll of all the dice, by roll offset.
    pub(crate) roll_probability: Vec<f64>,
    pub(crate) points: Vec<Vec<u8>>,
    pub(crate) five_of_a_kind: Vec<bool>,
    /// The distinct points of each box over the rolls, ascending.
    pub(crate) distinct: Vec<Vec<u8>>,
    /// For each roll, the rank of each box's points among that box's `distinct` points:
    /// `rank[roll offset][box]`.
    pub(crate) rank: Vec<[u8; BOX_SLOTS]>,
    /// The boxes whose points only add to the value of the state they lead to, which is the
    /// same whatever the roll ([`adding_boxes`]).
    pub(crate) adds: BoxMask,
    /// The rolls grouped by the points they score in the boxes that add their points
    /// (`adds`): the group of each roll. Yahtzee has 98 groups.
    pub(crate) group: Vec<u16>,
    /// The points of each group in each box that adds its points (0 in the others).
    pub(crate) group_points: Vec<[u8; BOX_SLOTS]>,
    /// More rows than the plan of a card ever makes (see [`Plan`]).
    pub(crate) max_rows: usize,
}

/// The boxes whose points only add to the value of the state they lead to, which is the same
/// whatever the roll: the lower boxes but the five-of-a-kind box (whose 50 leads to another
/// state). The final roll takes their best once per group of rolls scoring alike, and keeps
/// the groups' maxima in the entries of the keeps (free at that point), so there may be at
/// most as many groups as keeps of fewer dice: when the lower boxes score in more ways than that (Scandinavian
/// Yatzy's give 224), the box scoring in the most ways is left out and ranked like an upper
/// box instead, until the groups fit.
fn adding_boxes(rules: &Rules, points: &[Vec<u8>]) -> (BoxMask, Vec<u16>, Vec<[u8; BOX_SLOTS]>) {
    let dice = rules.dice();
    let five = rules.five_of_a_kind_box();
    let mut adds: BoxMask = 0;
    for (c, category) in rules.boxes().iter().enumerate() {
        if !category.is_upper() && Some(c) != five {
            adds |= 1 << c;
        }
    }
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
    pub(crate) fn new(rules: &Rules) -> ScoreTable {
        let space = rules.dice();
        let rolls = space.rolls();
        let mut points = vec![vec![0u8; rolls]; rules.box_count()];
        let mut five_of_a_kind = vec![false; rolls];
        for (r, dice) in space.all_rolls().enumerate() {
            for (i, row) in points.iter_mut().enumerate() {
                row[r] = rules.score(i, &dice, 0) as u8;
            }
            five_of_a_kind[r] = dice.five_of_a_kind().is_some();
        }
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
        let (adds, group, group_points) = adding_boxes(rules, &points);
        // A row per points of each ranked box, one per adding box, and the Joker's: at most
        // one per (box, points) of each five of a kind.
        let max_rows = (0..rules.box_count())
            .map(|c| {
                if adds & (1 << c) != 0 {
                    1
                } else {
                    distinct[c].len()
                }
            })
            .sum::<usize>()
            + FACES * rules.box_count();
        ScoreTable {
            dice: space,
            rolls: rules.rolls(),
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
pub(crate) struct Plan<T> {
    /// The open boxes whose rows are made for each of their points: (box, index of its
    /// first row).
    pub(crate) ranked: Vec<(u8, u16)>,
    /// The open boxes whose points only add to the successor value, the same for every roll
    /// (`ScoreTable::adds`): (box, index of its row of successor values, the row of 0 points).
    /// A roll adds its points.
    pub(crate) added: Vec<(u8, u16)>,
    /// The row of each box of `ranked` for each roll, roll by roll (`ranked.len()` a roll),
    /// made by [`Plan::index_rolls`] for the blocks of one state; unused after
    /// [`Plan::begin`] (`indexed` false), when [`score_final_roll`] works the rows out from
    /// `ranked`. When the index leaves out each box's floor, a roll lists only the rows of
    /// the boxes where it scores more than their fewest points, and the rolls come in the
    /// order of `floor_rolls`.
    roll_rows: Vec<u16>,
    /// With the floors left out: the rolls (offsets) grouped by how many rows they list,
    /// and the groups, (rows a roll, rolls). Empty otherwise. A roll's loop over its rows
    /// then runs as many times as the previous roll's but once a group, where rolls in their
    /// own order ran 0 to 5 times at random and the processor mispredicted the loop's end.
    floor_rolls: Vec<u16>,
    floor_groups: Vec<(u8, u16)>,
    /// Whether `roll_rows` is this plan's index: false after [`Plan::begin`], when the
    /// kernel works the rows out from `ranked`.
    indexed: bool,
    /// The boxes the last index was made for, and whether above their floors: the next
    /// state of a card (the same boxes open, their rows in the same places) reuses it.
    index_of: (Vec<(u8, u16)>, bool),
    /// The five-of-a-kind rolls decided by the Joker: (roll offset, range of `joker_rows`).
    pub(crate) jokers: Vec<(u16, u16, u16)>,
    /// Rows of the Joker's choices.
    pub(crate) joker_rows: Vec<u16>,
    /// The rows, from `rows[start]`, which is on a cache line boundary (see [`LINE`]).
    rows: Vec<T>,
    start: usize,
    /// Rows made for Yahtzees rolled with the Yahtzee box filled (Joker and bonus):
    /// (box, points, row index).
    pub(crate) extra: Vec<(usize, u32, u16)>,
    /// Number of lanes the rows cover.
    width: usize,
    /// For a plan that follows a given policy rather than the best choice: the keep of each
    /// roll (multiset index; the roll itself to stop) with one roll left, then with two (and
    /// three, in a game of four rolls a turn), one per roll each. Empty: every roll takes its
    /// best keep ([`best_keeps`]).
    keep_policy: Vec<u16>,
    /// The rolls (offsets) `keep_policy` stops on with two rolls left or more: their final
    /// values are kept apart, at `k[dice.multisets() + r]`, before the first layer of keeps
    /// replaces them (with one roll left, stopping leaves the final value where it is).
    later_stops: Vec<u16>,
}

impl<T: Real> Plan<T> {
    pub(crate) fn new() -> Plan<T> {
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
    pub(crate) fn begin(&mut self, width: usize, max_rows: usize) {
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
    pub(crate) fn restart_rows(&mut self, width: usize, max_rows: usize) {
        self.width = width;
        self.rows.clear();
        self.rows.reserve(per_line::<T>() + max_rows * width);
        self.start = aligned_start(&self.rows);
        self.rows.resize(self.start, T::ZERO);
    }

    /// Makes the plan follow the keeps `keeps` (see [`Plan::keep_policy`]: one per roll of
    /// `dice` with one roll left, then with two, and so on) instead of the best ones.
    pub(crate) fn follow_keeps(&mut self, dice: DiceSpace, keeps: impl IntoIterator<Item = u16>) {
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
    pub(crate) fn rows_made(&self) -> u16 {
        ((self.rows.len() - self.start) / self.width) as u16
    }

    /// Appends a row of `width` lanes from `lanes`, returning its index.
    #[inline]
    pub(crate) fn push_row(&mut self, lanes: impl Iterator<Item = T>) -> u16 {
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
    pub(crate) fn index_rolls(&mut self, scores: &ScoreTable, above_floor: bool) {
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

    /// Appends the row `lanes` (`width` of them), returning its index.
    #[inline(always)]
    pub(crate) fn push_row_of(&mut self, lanes: &[T]) -> u16 {
        debug_assert_eq!(lanes.len(), self.width, "a row has `width` lanes");
        let index = self.rows_made();
        self.rows.extend_from_slice(lanes);
        index
    }

    /// Appends a row of `width` lanes to be filled by `fill`, returning its index.
    #[inline]
    pub(crate) fn push_row_with(&mut self, fill: impl FnOnce(&mut [T])) -> u16 {
        let index = self.rows_made();
        let at = self.rows.len();
        self.rows.resize(at + self.width, T::ZERO);
        fill(&mut self.rows[at..]);
        index
    }

    /// The lanes `u0..u0 + N` of row `row`.
    #[inline(always)]
    pub(crate) fn lanes_of<const N: usize>(&self, row: usize, u0: usize) -> &[T; N] {
        let at = self.start + row * self.width + u0;
        self.rows[at..at + N]
            .try_into()
            .expect("rows cover the lanes asked for")
    }
}
/// The keep values of a block of lanes, one entry of `N` lanes per multiset, then one per
/// roll for the final roll's values (kept there by a plan that follows a policy, see
/// [`run_turn`]), starting on a cache line; allocated once per thread.
pub(crate) struct KeepArray<T> {
    values: Vec<T>,
    start: usize,
}

/// Entries of a keep array: the multisets, then the rolls' final values (room for six
/// dice; five use the first 462 + 252).
pub(crate) const KEEP_ENTRIES: usize = ALL_MULTISETS + MAX_ROLLS;

impl<T: Real> KeepArray<T> {
    /// Room for blocks of up to `lanes` lanes.
    pub(crate) fn new(lanes: usize) -> KeepArray<T> {
        let values = vec![T::ZERO; per_line::<T>() + KEEP_ENTRIES * lanes];
        KeepArray {
            start: aligned_start(&values),
            values,
        }
    }

    /// The entries of a block of `M` lanes ([`KEEP_ENTRIES`] of them).
    #[inline(always)]
    pub(crate) fn block<const M: usize>(&mut self) -> &mut [[T; M]] {
        self.values[self.start..][..KEEP_ENTRIES * M]
            .as_chunks_mut::<M>()
            .0
    }
}

// Buffers of lanes start on a cache line (64 bytes): a load that straddles two lines costs
// two. Measured: the keep values 16 bytes off a line made a full solve about 20% slower, and
// which allocation happened to land where swung timings by as much between builds.

/// Values of type `T` per cache line: the most a buffer's start is moved to a line.
pub(crate) const fn per_line<T>() -> usize {
    64 / size_of::<T>()
}

/// The first index of `buffer`'s allocation that starts a cache line (reserve
/// [`per_line`] more values than needed).
pub(crate) fn aligned_start<T>(buffer: &[T]) -> usize {
    buffer.as_ptr().align_offset(64).min(per_line::<T>())
}

#[inline(always)]
fn fmax<T: Real>(a: T, b: T) -> T {
    T::greater(a, b)
}

/// Step 1: the value of each roll when it is the last one, with the best box filled, written
/// to the rolls' entries of `k` (from the first roll on), for the lanes `u0..u0 + N` of the
/// plan.
#[inline(always)]
pub(crate) fn score_final_roll<T: Real, const N: usize>(
    plan: &Plan<T>,
    scores: &ScoreTable,
    dice: DiceSpace,
    u0: usize,
    k: &mut [[T; N]],
) {
    // Rows exactly one block wide (the vector objectives' blocks, a card of at most `N`
    // lanes): each row is one `[T; N]`, read with a single bounds check. The row reads are
    // most of this step's work, one per roll and open box.
    if u0 == 0 && plan.width == N {
        let blocks = plan.rows[plan.start..].as_chunks::<N>().0;
        final_roll_with(plan, scores, dice, k, |row| &blocks[row]);
    } else {
        final_roll_with(plan, scores, dice, k, |row| plan.lanes_of::<N>(row, u0));
    }
}

/// [`score_final_roll`] with the lanes of row `row` read by `lanes(row)`.
#[inline(always)]
fn final_roll_with<'p, T: Real + 'p, const N: usize>(
    plan: &Plan<T>,
    scores: &ScoreTable,
    dice: DiceSpace,
    k: &mut [[T; N]],
    lanes: impl Fn(usize) -> &'p [T; N],
) {
    let first_roll = dice.first_roll();
    // The best of the boxes that add their points, once per group of rolls scoring alike,
    // kept in the entries of the keeps (written only later, by `expect_keeps`).
    if !plan.added.is_empty() {
        for (g, scored) in scores.group_points.iter().enumerate() {
            let mut acc = [T::NEG_INFINITY; N];
            for &(c, row) in &plan.added {
                let successor = lanes(usize::from(row));
                let gain = T::POINTS[usize::from(scored[usize::from(c)])];
                for l in 0..N {
                    acc[l] = fmax(acc[l], successor[l] + gain);
                }
            }
            k[g] = acc;
        }
    }
    let start = |k: &[[T; N]], r: usize| {
        if plan.added.is_empty() {
            [T::NEG_INFINITY; N]
        } else {
            k[usize::from(scores.group[r])]
        }
    };
    let boxes = plan.ranked.len();
    let indexed = plan.indexed;
    if indexed && !plan.floor_groups.is_empty() {
        // Each box's floor read once for all the rolls; then each roll's rows above them,
        // the rolls listing as many rows together.
        let mut floor = [T::NEG_INFINITY; N];
        for &(_, first) in &plan.ranked {
            let row = lanes(usize::from(first));
            for l in 0..N {
                floor[l] = fmax(floor[l], row[l]);
            }
        }
        let (mut rolls, mut rows) = (&plan.floor_rolls[..], &plan.roll_rows[..]);
        for &(count, n) in &plan.floor_groups {
            let (these, rest) = rolls.split_at(usize::from(n));
            rolls = rest;
            let (their_rows, rest) = rows.split_at(usize::from(n) * usize::from(count));
            rows = rest;
            let group = (these, their_rows, &floor, !plan.added.is_empty());
            match count {
                0 => above_floor::<T, N, 0>(group, k, first_roll, &start, &lanes),
                1 => above_floor::<T, N, 1>(group, k, first_roll, &start, &lanes),
                2 => above_floor::<T, N, 2>(group, k, first_roll, &start, &lanes),
                3 => above_floor::<T, N, 3>(group, k, first_roll, &start, &lanes),
                4 => above_floor::<T, N, 4>(group, k, first_roll, &start, &lanes),
                5 => above_floor::<T, N, 5>(group, k, first_roll, &start, &lanes),
                6 => above_floor::<T, N, 6>(group, k, first_roll, &start, &lanes),
                _ => above_floor::<T, N, 7>(group, k, first_roll, &start, &lanes),
            }
        }
    } else if indexed && boxes > 0 && plan.roll_rows.len() == boxes * scores.rank.len() {
        // The rows worked out once for the state (`Plan::index_rolls`).
        for (r, rows) in plan.roll_rows.chunks_exact(boxes).enumerate() {
            let mut acc = start(k, r);
            for &row in rows {
                let row = lanes(usize::from(row));
                for l in 0..N {
                    acc[l] = fmax(acc[l], row[l]);
                }
            }
            k[first_roll + r] = acc;
        }
    } else {
        for (r, ranks) in scores.rank.iter().enumerate() {
            let mut acc = start(k, r);
            for &(c, first) in &plan.ranked {
                let row = usize::from(first) + usize::from(ranks[usize::from(c)]);
                let row = lanes(row);
                for l in 0..N {
                    acc[l] = fmax(acc[l], row[l]);
                }
            }
            k[first_roll + r] = acc;
        }
    }
    for &(r, from, to) in &plan.jokers {
        let mut acc = [T::NEG_INFINITY; N];
        for &row in &plan.joker_rows[usize::from(from)..usize::from(to)] {
            let row = lanes(usize::from(row));
            for l in 0..N {
                acc[l] = fmax(acc[l], row[l]);
            }
        }
        k[first_roll + usize::from(r)] = acc;
    }
}

/// The final roll's values of rolls that list `C` rows above the floors each: the best of
/// the floors, of the boxes that add their points (`start`, if `adds`) and of the rows. `C` is at most
/// the number of open boxes (7 stands for 7 and more).
#[inline(always)]
fn above_floor<'p, T: Real + 'p, const N: usize, const C: usize>(
    (rolls, rows, floor, adds): (&[u16], &[u16], &[T; N], bool),
    k: &mut [[T; N]],
    first_roll: usize,
    start: &impl Fn(&[[T; N]], usize) -> [T; N],
    lanes: &impl Fn(usize) -> &'p [T; N],
) {
    let per_roll = rows.len() / rolls.len().max(1);
    debug_assert!(per_roll == C || (C == 7 && per_roll >= C));
    for (i, &r) in rolls.iter().enumerate() {
        let r = usize::from(r);
        let mut acc = *floor;
        if adds {
            let added = start(k, r);
            for l in 0..N {
                acc[l] = fmax(acc[l], added[l]);
            }
        }
        let rows = &rows[i * per_roll..][..if C < 7 { C } else { per_roll }];
        for &row in rows {
            let row = lanes(usize::from(row));
            for l in 0..N {
                acc[l] = fmax(acc[l], row[l]);
            }
        }
        k[first_roll + r] = acc;
    }
}

/// Step 2: the value of every keep of fewer than all the dice, from the values of the rolls
/// (the entries from `dice.first_roll()` on): keeping `k` and throwing the rest is worth the
/// mean over the six faces of keeping `k` plus that face. Multisets are ordered by size, so a
/// backward sweep sees every larger multiset before it is needed.
#[inline(always)]
pub(crate) fn expect_keeps<T: Real, const N: usize>(k: &mut [[T; N]], dice: DiceSpace) {
    let lattice = Lattice::get();
    assert!(
        k.len() >= ALL_MULTISETS,
        "a keep array has an entry per multiset"
    );
    for i in (0..dice.first_roll()).rev() {
        let children = lattice.add[i];
        // SAFETY: the children of a multiset of fewer than six dice are multisets (the lattice
        // checks when it is built), and `k` has an entry for each (asserted above).
        let mut sum = *unsafe { entry(k, usize::from(children[0])) };
        for &child in &children[1..] {
            // SAFETY: as above.
            let c = unsafe { entry(k, usize::from(child)) };
            for l in 0..N {
                sum[l] = sum[l] + c[l];
            }
        }
        for s in sum.iter_mut() {
            *s = s.sixth();
        }
        k[i] = sum;
    }
}

/// The multisets of one size with the same number of distinct faces, each with its
/// sub-multisets one die smaller (one per distinct face). Grouping them gives the maximum loop
/// of [`best_keeps`] a fixed trip count, with no branch that depends on the multiset.
struct SubsetGroup {
    distinct: usize,
    members: Vec<u16>,
    /// `distinct` entries per member.
    parents: Vec<u16>,
}

/// The groups of every size up to six dice, by size: those of a game of `n` dice are the
/// first `SUBSET_GROUPS.1[n]`.
static SUBSET_GROUPS: LazyLock<(Vec<SubsetGroup>, [usize; MAX_DICE + 1])> = LazyLock::new(|| {
    let lattice = Lattice::get();
    let mut groups = Vec::new();
    let mut up_to = [0; MAX_DICE + 1];
    for (size, end) in up_to.iter_mut().enumerate().skip(1) {
        for distinct in 1..=size.min(FACES) {
            let mut g = SubsetGroup {
                distinct,
                members: Vec::new(),
                parents: Vec::new(),
            };
            for i in 0..ALL_MULTISETS {
                let from = lattice.remove_start[i] as usize;
                let to = lattice.remove_start[i + 1] as usize;
                if usize::from(lattice.size[i]) == size && to - from == distinct {
                    g.members.push(i as u16);
                    g.parents.extend_from_slice(&lattice.remove[from..to]);
                }
            }
            if !g.members.is_empty() {
                groups.push(g);
            }
        }
        *end = groups.len();
    }
    (groups, up_to)
});

/// Step 3: the best keep among the sub-multisets of each multiset (the keep itself
/// included), by a forward sweep over the lattice, size by size: the best sub-multiset of `i`
/// is `i` itself or the best of a multiset one die smaller. The sweep works in place: the value
/// of keep `i` is read only to start its own maximum, so each entry of `k` is replaced by its
/// maximum (for the rolls: the value of the roll with this many rolls left), which keeps one
/// array in cache instead of two and saves a copy per layer.
#[inline(always)]
pub(crate) fn best_keeps<T: Real, const N: usize>(k: &mut [[T; N]], dice: DiceSpace) {
    let (groups, up_to) = &*SUBSET_GROUPS;
    // What makes `best_in_group`'s unchecked reads sound.
    assert!(
        k.len() >= ALL_MULTISETS,
        "a keep array has an entry per multiset"
    );
    for g in &groups[..up_to[dice.dice()]] {
        match g.distinct {
            1 => best_in_group::<T, N, 1>(g, k),
            2 => best_in_group::<T, N, 2>(g, k),
            3 => best_in_group::<T, N, 3>(g, k),
            4 => best_in_group::<T, N, 4>(g, k),
            5 => best_in_group::<T, N, 5>(g, k),
            _ => best_in_group::<T, N, 6>(g, k),
        }
    }
}

/// The maxima of [`best_keeps`] for the multisets of one group. `k` must have an entry per
/// multiset ([`ALL_MULTISETS`]): the reads are not checked.
#[inline(always)]
fn best_in_group<T: Real, const N: usize, const D: usize>(g: &SubsetGroup, k: &mut [[T; N]]) {
    debug_assert!(k.len() >= ALL_MULTISETS);
    for (&i, parents) in g.members.iter().zip(g.parents.chunks_exact(D)) {
        let i = usize::from(i);
        // SAFETY: a group's members and their parents are multisets (the lattice checks its
        // sub-multisets when it is built), and `best_keeps` asserts that `k` has an entry for
        // each.
        let mut best = *unsafe { entry(k, i) };
        for &j in parents {
            // SAFETY: as above.
            let b = unsafe { entry(k, usize::from(j)) };
            for l in 0..N {
                best[l] = fmax(best[l], b[l]);
            }
        }
        // SAFETY: as above.
        *unsafe { k.get_unchecked_mut(i) } = best;
    }
}

/// Entry `i` of a keep array, read without a bounds check: the lattice's loops read entries
/// by the indices of its tables, five or six a multiset, and a check of each was one
/// instruction in six of the loops (measured: the target table solved 5-7% faster without).
///
/// # Safety
///
/// `i < k.len()`.
#[inline(always)]
unsafe fn entry<T, const N: usize>(k: &[[T; N]], i: usize) -> &[T; N] {
    debug_assert!(i < k.len());
    // SAFETY: the caller's.
    unsafe { k.get_unchecked(i) }
}

/// The layers of one turn, in the order the kernel computes them. After each, the keep
/// array `k` holds (by multiset index):
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Layer {
    /// The value of each keep of fewer than all the dice with one roll left; the rolls'
    /// entries hold the value of each roll when it is the last one (the best box filled).
    OneRollLeft,
    /// The value of each keep of fewer than all the dice with two rolls left; the rolls'
    /// entries hold each roll's value with one roll left (the best keep, or stopping).
    TwoRollsLeft,
    /// The value of each keep with three rolls left (a game of four rolls a turn); the
    /// rolls' entries hold each roll's value with two rolls left.
    ThreeRollsLeft,
    /// The rolls' entries hold each roll's value just after the opening roll (with two
    /// rolls left in a game of three rolls a turn, `rolls - 1` in general).
    Opening,
}

impl Layer {
    /// The layer a decision with `rolls_left` (1 to 3) rolls left reads its keep values from.
    pub fn with_rolls_left(rolls_left: u8) -> Option<Layer> {
        match rolls_left {
            1 => Some(Layer::OneRollLeft),
            2 => Some(Layer::TwoRollsLeft),
            3 => Some(Layer::ThreeRollsLeft),
            _ => None,
        }
    }

    /// The rolls left of a layer of keep values (`None` for the opening).
    pub fn rolls_left(self) -> Option<u8> {
        match self {
            Layer::OneRollLeft => Some(1),
            Layer::TwoRollsLeft => Some(2),
            Layer::ThreeRollsLeft => Some(3),
            Layer::Opening => None,
        }
    }

    /// The last layer of keep values of a turn of `rolls` rolls (that of the decision just
    /// after the opening roll), or the opening itself in a game of one roll a turn.
    pub fn first_decision(rolls: u8) -> Layer {
        Layer::with_rolls_left(rolls - 1).unwrap_or(Layer::Opening)
    }
}

/// The turn kernel: the layers of one turn for lanes `u0..u0 + N`, from the plan's rows,
/// up to `last`, in `k` (one entry of `N` lanes per multiset). `visit` sees `k` after each
/// layer. The final roll (the best box of each roll), then for each re-roll the value of
/// every keep (a mean over one more die) and the best keep of every roll (a maximum over the
/// lattice). Every objective, and every user of a turn (the solver, advice, statistics,
/// exports, the game), runs this one function. The plan must be built.
#[inline(always)]
pub(crate) fn run_turn<T: Real, const N: usize>(
    k: &mut [[T; N]],
    plan: &Plan<T>,
    scores: &ScoreTable,
    u0: usize,
    last: Layer,
    visit: impl FnMut(Layer, &[[T; N]]),
) {
    // One copy of the turn per number of dice, each with its ranges constant (measured: the
    // ranges read at run time cost a five-dice solve 3% more instructions), and for three
    // rolls a turn, with its layers constant, the turn every shipped game plays.
    match (scores.dice == DiceSpace::FIVE, scores.rolls) {
        (true, 3) => turn_of(k, plan, scores, DiceSpace::FIVE, 3, u0, last, visit),
        (true, rolls) => turn_of(k, plan, scores, DiceSpace::FIVE, rolls, u0, last, visit),
        (false, 3) => turn_of(k, plan, scores, DiceSpace::SIX, 3, u0, last, visit),
        (false, rolls) => turn_of(k, plan, scores, DiceSpace::SIX, rolls, u0, last, visit),
    }
}

/// [`run_turn`] for `dice` and `rolls` a turn, constants where it is called.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn turn_of<T: Real, const N: usize>(
    k: &mut [[T; N]],
    plan: &Plan<T>,
    scores: &ScoreTable,
    dice: DiceSpace,
    rolls: u8,
    u0: usize,
    last: Layer,
    mut visit: impl FnMut(Layer, &[[T; N]]),
) {
    let multisets = dice.multisets();
    score_final_roll(plan, scores, dice, u0, k);
    if rolls == 1 {
        // One roll a turn: the opening roll is the last.
        visit(Layer::Opening, &k[..multisets]);
        return;
    }
    // A policy that stops with two rolls left or more scores the roll as it is: keep those
    // rolls' final values after the multisets (`k` has `KEEP_ENTRIES` entries).
    for &r in &plan.later_stops {
        let r = usize::from(r);
        k[multisets + r] = k[dice.first_roll() + r];
    }
    expect_keeps(k, dice);
    visit(Layer::OneRollLeft, &k[..multisets]);
    // One more layer of keeps for each further roll: the best keep of every roll with one
    // roll fewer left, then the mean over the dice thrown.
    for rolls_left in 2..rolls {
        let layer = Layer::with_rolls_left(rolls_left).expect("at most four rolls a turn");
        if last < layer {
            return;
        }
        choose_keeps(plan, dice, usize::from(rolls_left) - 2, k);
        expect_keeps(k, dice);
        visit(layer, &k[..multisets]);
    }
    if last < Layer::Opening {
        return;
    }
    choose_keeps(plan, dice, usize::from(rolls) - 2, k);
    visit(Layer::Opening, &k[..multisets]);
}

/// Step 3 as the plan says: the best keep of every roll ([`best_keeps`]), or the keep of
/// the plan's policy (layer 0: one roll left, 1: two, and so on).
#[inline(always)]
fn choose_keeps<T: Real, const N: usize>(
    plan: &Plan<T>,
    dice: DiceSpace,
    layer: usize,
    k: &mut [[T; N]],
) {
    if plan.keep_policy.is_empty() {
        best_keeps(k, dice);
    } else {
        let rolls = dice.rolls();
        policy_keeps(&plan.keep_policy[layer * rolls..][..rolls], dice, layer, k);
    }
}

/// Step 3 under a given policy, for layer `layer` of keeps (0: one roll left): each roll's
/// entry becomes the value of the keep the policy takes for it (`keeps[r]`, a multiset
/// index), or, when the policy stops (the roll's own index), the final roll's value: still in
/// the roll's entry with one roll left, kept at `k[dice.multisets() + r]` for the layers after
/// ([`Plan::follow_keeps`]). Only the rolls' entries are read afterwards, by [`expect_keeps`]
/// or the opening mean.
#[inline(always)]
pub(crate) fn policy_keeps<T: Real, const N: usize>(
    keeps: &[u16],
    dice: DiceSpace,
    layer: usize,
    k: &mut [[T; N]],
) {
    let (first_roll, multisets) = (dice.first_roll(), dice.multisets());
    for (r, &keep) in keeps.iter().enumerate() {
        let (keep, roll) = (usize::from(keep), first_roll + r);
        if keep != roll {
            k[roll] = k[keep];
        } else if layer > 0 {
            k[roll] = k[multisets + r];
        }
    }
}

/// Rolls summed together in the value type before the opening mean adds their sum in `f64`
/// (252 = 21 runs of 12; 462 = 38 runs of 12 and one of 6).
const OPENING_RUN: usize = 12;

/// The opening roll of a turn run to [`Layer::Opening`]: the mean over the 252 rolls (462
/// with six dice) of their values (the rolls' entries of `k`), by their probabilities, the
/// number of ways (of 7,776, or 46,656) of throwing each, exact in any type. Each run of
/// `OPENING_RUN` rolls is summed in `T`, the runs in `f64`, and the total is divided by the
/// throws once: a 252-term sum in `f32` would lose up to 1e-6, and rounded probabilities add
/// up to 1 + 1.4e-8.
#[inline(always)]
pub(crate) fn opening_mean<T: Real, const N: usize>(k: &[[T; N]], dice: DiceSpace) -> [f64; N] {
    opening_mean_of(k, dice).map(T::wide_value)
}

/// [`opening_mean`] in the lane's [`Real::Wide`]: for a lane that carries a companion, the
/// mean of both.
#[inline(always)]
pub(crate) fn opening_mean_of<T: Real, const N: usize>(
    k: &[[T; N]],
    dice: DiceSpace,
) -> [T::Wide; N] {
    let rolls = dice.first_roll()..dice.multisets();
    let ways = &T::roll_ways()[rolls.clone()];
    let mut total = [T::WIDE_ZERO; N];
    for (run, w) in k[rolls].chunks(OPENING_RUN).zip(ways.chunks(OPENING_RUN)) {
        let mut part = [T::ZERO; N];
        for (v, &w) in run.iter().zip(w) {
            for l in 0..N {
                part[l] = part[l] + w * v[l];
            }
        }
        for l in 0..N {
            total[l] = T::wide_add(total[l], part[l]);
        }
    }
    let throws = f64::from(dice.throws());
    for t in total.iter_mut() {
        *t = T::wide_div(*t, throws);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    /// Every `f32` from 2^-125 to 2^20 (the values the kernel divides are chances in [0, 1]
    /// and scores below 2,000), and their negatives for a sample: the sixth without a
    /// division has the bits of the division.
    #[test]
    fn sixth_of_f32_is_the_rounded_quotient() {
        let mismatches: u64 = (2u32..=147)
            .into_par_iter()
            .map(|exponent| {
                let mut bad = 0;
                for mantissa in 0..1u32 << 23 {
                    let x = f32::from_bits(exponent << 23 | mantissa);
                    bad += u64::from(sixth_of_f32(x).to_bits() != (x / 6.0).to_bits());
                    if mantissa % 1024 == 0 {
                        bad += u64::from(sixth_of_f32(-x).to_bits() != (-x / 6.0).to_bits());
                    }
                }
                bad
            })
            .sum();
        assert_eq!(mismatches, 0);
        for x in [0.0f32, 1.0, 0.5, 1.0 / 3.0, 7776.0, 1e-30] {
            assert_eq!(sixth_of_f32(x).to_bits(), (x / 6.0).to_bits(), "{x}");
        }
        // -0 gives +0, the same number (no value of the kernel is negative).
        assert_eq!(sixth_of_f32(-0.0), 0.0);
    }
}
