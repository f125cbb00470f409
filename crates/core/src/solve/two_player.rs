//! Two players, solved exactly: the chance that the first player wins a game of two, when
//! both play to win (or either plays a fixed policy), from every position.
//!
//! A position between turns is both cards and the score difference. The value of a position
//! to the player to move, `W(own card, other card, d)` with `d` the mover's lead, is their
//! chance of winning plus half their chance of a tie, under the best play of both (the game
//! is zero-sum: what one gains the other loses, so maximising one's own value is minimising
//! the other's). Filling a box with `p` points hands the move over: the value after it is
//! `1 - W(other card, own card + box, -(d + p))`, and with both cards full it is
//! `u(d) = 1, 1/2, 0` for `d > 0, = 0, < 0`. Each turn is therefore the vector kernel
//! ([`crate::solve::kernel`]) over the lanes `d`, a box's row being the successor's vector read at
//! `d + p`, exactly like the target objective ([`crate::solve::vector`]).
//!
//! Plies: after `p` turns (plies) the first player has filled `ceil(p / 2)` boxes and the
//! second `floor(p / 2)`, so only pairs of cards of equal depth (the first player to move)
//! or of depths `k + 1` and `k` (the second to move) occur. Each ply is solved from the next
//! alone and only two plies are kept in memory (more if asked, for the advice's file).
//!
//! Storage, per ply and pair (mover's card, other card): the vector `S(y) = 1 - W(-y)`, the
//! value to the player who has just moved (the "other" of the pair) at their own lead `y`.
//! The turn before reads it forward: the row of a box with `p` points at lane `d` is
//! `S(d + p)`. `S` is stored over the leads where it is not constant (a [`Range`]): below
//! the range the game is lost for that player (0), above it won (1), beyond what either can
//! still score. Leading values within `tail` of 0 and trailing values within `tail` of 1
//! are left out as well (an error of at most `tail` per turn; 0 keeps every value).
//!
//! Fixed policies: a player can play the expected-score policy instead of the best one for
//! the win; their turns then follow that policy's keeps and boxes (the kernel's policy
//! plans, as for the distribution table), so the same machinery computes every comparison.
//!
//! Only rule sets whose turn-start state is the card alone (no upper bonus, no
//! five-of-a-kind bonus: Yacht) are solved: a state is then a card and the pairs of cards
//! are all there is.
//!
//! The solve is all this module does: the table of the early plies is saved and read in
//! `tables/two_player.rs`, and the advice of a position (the ply after its turn, its options
//! ranked) is in `policy/two_player.rs`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use serde::Serialize;

use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{Layout, State};
use crate::solve::expected::ExpectedValues;
use crate::solve::kernel::{KeepArray, Kernel, Plan, Real, ScoreTable, score_table};
use crate::solve::lane::{Duo, Lane};
use crate::solve::simd::Simd;
use crate::solve::vector::{MAX_BLOCK, RowSpec, block_width, follow_policy, lay_out};

pub use crate::solve::vector::Range;

/// The tail left out of the stored vectors of the full solve: chances within this of 0 or
/// 1 at the ends of a vector, an error of at most this per turn (24 turns: 2.4e-8, below
/// the precision of the `f32` values).
pub const TAIL: f64 = 1e-9;

/// Errors of the two-player solution.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TwoPlayerError {
    /// The rule set's states hold more than the card (an upper bonus or a five-of-a-kind
    /// bonus), which the two-player solution does not track: use a rule set without
    /// bonuses (Yacht).
    #[error(
        "two-player play is solved only for rule sets without bonuses (yacht), not for {rules}: use yacht"
    )]
    Rules {
        /// The rules asked for.
        rules: String,
    },
    /// The two cards cannot be on the table together with a turn to play: the first player
    /// has played as many turns as the second (the first to move) or one more (the second
    /// to move). Give cards of such depths.
    #[error(
        "the first player has filled {first} boxes and the second {second}: between turns the first has filled as many as the second (first to move) or one more (second to move)"
    )]
    Depths {
        /// Boxes filled by the first player.
        first: u32,
        /// Boxes filled by the second player.
        second: u32,
    },
    /// A card is not one the fill order allows (the upper-first rule): fill the upper
    /// section first.
    #[error(
        "a card fills a lower box before the upper section is full, which the fill order forbids"
    )]
    Order,
}

/// How one player plays.
#[derive(Clone, Debug)]
pub enum Player {
    /// Every choice the best for the win (win plus half a tie), knowing both cards and the
    /// score difference.
    Optimal,
    /// The expected-score policy of these solved values (the expected-score table; ties as
    /// documented: the fewest dice kept, the box first on the card), whatever the other
    /// player does.
    Expected(Arc<dyn ExpectedValues>),
}

impl Player {
    /// The name of the player's policy in reports: `optimal` or `ev`.
    pub fn name(&self) -> &'static str {
        match self {
            Player::Optimal => "optimal",
            Player::Expected(_) => "ev",
        }
    }
}

/// A two-player game to solve: the rules, how each player plays, and the tail left out.
#[derive(Clone, Debug)]
pub struct Game {
    /// The rules.
    pub rules: Rules,
    /// The first player (who moves first).
    pub first: Player,
    /// The second player.
    pub second: Player,
    /// Chances within this of 0 or 1 at the ends of a vector are left out ([`TAIL`]; 0
    /// keeps every value).
    pub tail: f64,
}

impl Game {
    /// Both players optimal, with the full solve's tail.
    pub fn optimal(rules: Rules) -> Result<Game, TwoPlayerError> {
        Game::new(rules, Player::Optimal, Player::Optimal)
    }

    /// The game of `first` against `second`, with the full solve's tail.
    pub fn new(rules: Rules, first: Player, second: Player) -> Result<Game, TwoPlayerError> {
        check_rules(&rules)?;
        Ok(Game {
            rules,
            first,
            second,
            tail: TAIL,
        })
    }

    /// The player who moves at ply `ply`: the first at even plies.
    fn mover(&self, ply: usize) -> &Player {
        if ply.is_multiple_of(2) {
            &self.first
        } else {
            &self.second
        }
    }
}

/// Checks that a turn-start state of `rules` is its card alone.
pub fn check_rules(rules: &Rules) -> Result<(), TwoPlayerError> {
    let layout = Layout::of(rules);
    if layout.lanes != 1 || layout.flags != 1 {
        return Err(TwoPlayerError::Rules {
            rules: rules.label(),
        });
    }
    Ok(())
}

/// Where a (sub)game starts: both cards, between turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Start {
    /// The first player's filled boxes.
    pub first: BoxMask,
    /// The second player's filled boxes.
    pub second: BoxMask,
}

impl Start {
    /// A new game: both cards empty.
    pub const NEW: Start = Start {
        first: 0,
        second: 0,
    };

    /// The ply of this position (turns played), checking that the cards can be on the
    /// table together between turns under `rules`.
    pub fn ply(&self, rules: &Rules) -> Result<usize, TwoPlayerError> {
        let (f, s) = (self.first.count_ones(), self.second.count_ones());
        if f != s && f != s + 1 {
            return Err(TwoPlayerError::Depths {
                first: f,
                second: s,
            });
        }
        let full = rules.full_mask();
        if !rules.order_allows(self.first & full) || !rules.order_allows(self.second & full) {
            return Err(TwoPlayerError::Order);
        }
        Ok((f + s) as usize)
    }
}

/// The cards of depth `depth` that contain `base` and the fill order allows.
fn cards_over(rules: &Rules, depth: usize, base: BoxMask) -> Vec<BoxMask> {
    (0..=rules.full_mask())
        .filter(|&m| m.count_ones() as usize == depth && m & base == base && rules.order_allows(m))
        .collect()
}

/// The solved vectors of one ply: every pair (mover's card, other card) of the (sub)game.
#[derive(Debug)]
pub struct Ply<T> {
    /// The ply: turns played.
    pub ply: usize,
    pub(crate) movers: Vec<BoxMask>,
    pub(crate) others: Vec<BoxMask>,
    /// Each card's position in `movers` / `others`, by mask (`u32::MAX`: not in the list).
    pub(crate) mover_rank: Vec<u32>,
    pub(crate) other_rank: Vec<u32>,
    /// The range of each pair, by `mover rank * others + other rank`; offsets are into the
    /// mover's values.
    pub(crate) ranges: Vec<Range>,
    /// The values of each mover card's pairs, by mover rank.
    pub(crate) values: Vec<Box<[T]>>,
}

pub(crate) fn ranks(masks: usize, cards: &[BoxMask]) -> Vec<u32> {
    let mut rank = vec![u32::MAX; masks];
    for (i, &c) in cards.iter().enumerate() {
        rank[c as usize] = i as u32;
    }
    rank
}

impl<T: Lane> Ply<T> {
    /// The ply with the values alone (no copy when the lane is the value alone).
    fn into_values(self) -> Ply<T::Value> {
        Ply {
            ply: self.ply,
            movers: self.movers,
            others: self.others,
            mover_rank: self.mover_rank,
            other_rank: self.other_rank,
            ranges: self.ranges,
            values: self.values.into_iter().map(T::values_of).collect(),
        }
    }
}

impl<T: Real> Ply<T> {
    /// The same ply with each value mapped by `f` (the same ranges).
    pub(crate) fn map<U>(&self, f: impl Fn(T) -> U) -> Ply<U> {
        Ply {
            ply: self.ply,
            movers: self.movers.clone(),
            others: self.others.clone(),
            mover_rank: self.mover_rank.clone(),
            other_rank: self.other_rank.clone(),
            ranges: self.ranges.clone(),
            values: self
                .values
                .iter()
                .map(|v| v.iter().map(|&x| f(x)).collect())
                .collect(),
        }
    }

    /// The stored vector `S` of the pair (mover's card, other card) and its range, if the
    /// pair is in this ply.
    pub fn pair(&self, mover: BoxMask, other: BoxMask) -> Option<(&[T], Range)> {
        let m = *self.mover_rank.get(mover as usize)?;
        let o = *self.other_rank.get(other as usize)?;
        if m == u32::MAX || o == u32::MAX {
            return None;
        }
        let range = self.ranges[m as usize * self.others.len() + o as usize];
        Some((&self.values[m as usize], range))
    }

    /// `S(y)` of the pair: the value to the player who has just moved (the other card's) at
    /// their lead `y`.
    pub fn after(&self, mover: BoxMask, other: BoxMask, y: i64) -> Option<f64> {
        let (values, range) = self.pair(mover, other)?;
        Some(read(values, range, y))
    }

    /// Number of pairs.
    pub fn pairs(&self) -> usize {
        self.ranges.len()
    }

    /// Number of values stored.
    pub fn stored_values(&self) -> u64 {
        self.values.iter().map(|v| v.len() as u64).sum()
    }

    /// The cards of the player to move and of the other, in rank order.
    pub fn cards(&self) -> (&[BoxMask], &[BoxMask]) {
        (&self.movers, &self.others)
    }
}

/// The value of a stored vector `S` at `y`: 0 below its range, 1 above it.
#[inline]
fn read<T: Real>(values: &[T], range: Range, y: i64) -> f64 {
    if y < i64::from(range.lo) {
        0.0
    } else if y >= range.end() {
        1.0
    } else {
        values[range.offset as usize + (y - i64::from(range.lo)) as usize].to_f64()
    }
}

/// The lane of a stored vector `S` at `y`: lost below its range, won above it.
#[inline]
fn read_lane<T: Lane>(values: &[T], range: Range, y: i64) -> T {
    if y < i64::from(range.lo) {
        T::LOST
    } else if y >= range.end() {
        T::WON
    } else {
        values[range.offset as usize + (y - i64::from(range.lo)) as usize]
    }
}

impl<T: Real> Ply<Duo<T>> {
    /// The chance of a tie at the pair (mover's card, other card) with the lead `y` of the
    /// player who has just moved, both playing as the solve had them.
    pub fn tie_after(&self, mover: BoxMask, other: BoxMask, y: i64) -> Option<f64>
    where
        Duo<T>: Lane,
    {
        let (values, range) = self.pair(mover, other)?;
        Some(read_lane(values, range, y).tie.to_f64())
    }
}

/// The terminal ply: both cards full, the second player has just moved, `S(y) = u(y)`.
fn terminal<T: Lane>(rules: &Rules, ply: usize) -> Ply<T> {
    let full = rules.full_mask();
    let masks = 1usize << rules.box_count();
    Ply {
        ply,
        movers: vec![full],
        others: vec![full],
        mover_rank: ranks(masks, &[full]),
        other_rank: ranks(masks, &[full]),
        ranges: vec![Range {
            offset: 0,
            lo: 0,
            len: 1,
        }],
        values: vec![vec![T::TIED].into_boxed_slice()],
    }
}

/// The solution of a (sub)game: the plies asked to be kept (their values), and the lowest
/// ply solved with everything its lanes carry.
#[derive(Debug)]
pub struct Solution<T: Lane> {
    rules: Rules,
    start: Start,
    /// The plies kept, by ply: their values alone (the lowest ply solved always).
    plies: Vec<Option<Ply<T::Value>>>,
    /// The lowest ply solved, its lanes whole (with a [`Duo`], the tie chances too).
    lowest: Ply<T>,
    /// Lanes the kernel computed (whole blocks), for the benchmarks.
    pub lanes_computed: u64,
    /// Values stored, summed over every ply solved.
    pub values_stored: u64,
    /// The most bytes of values held at once (two plies, plus those kept).
    pub peak_bytes: u64,
}

impl<T: Lane> Solution<T> {
    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Where the (sub)game starts.
    pub fn start(&self) -> Start {
        self.start
    }

    /// The ply `ply`, if kept: its values.
    pub fn ply(&self, ply: usize) -> Option<&Ply<T::Value>> {
        self.plies.get(ply)?.as_ref()
    }

    /// The lowest ply solved, with everything its lanes carry.
    pub fn lowest(&self) -> &Ply<T> {
        &self.lowest
    }

    /// Takes the plies kept out of the solution.
    pub fn into_plies(self) -> Vec<Option<Ply<T::Value>>> {
        self.plies
    }

    /// The solution of the values alone: the plies kept, the lowest one's values.
    pub fn into_values(self) -> Solution<T::Value> {
        let lowest = self.lowest.map(|v| v.value_part());
        Solution {
            rules: self.rules,
            start: self.start,
            plies: self.plies,
            lowest,
            lanes_computed: self.lanes_computed,
            values_stored: self.values_stored,
            peak_bytes: self.peak_bytes,
        }
    }

    /// The first player's value (chance of winning plus half the chance of a tie) between
    /// turns with cards `first` and `second` and the first player's lead `lead`, from the
    /// kept plies.
    pub fn value(&self, first: BoxMask, second: BoxMask, lead: i64) -> Option<f64> {
        let p = (first.count_ones() + second.count_ones()) as usize;
        first_value(self.ply(p)?, first, second, lead)
    }
}

impl<T: Real> Solution<Duo<T>>
where
    Duo<T>: Lane,
{
    /// The chance of a tie between turns at the lowest ply solved, with cards `first` and
    /// `second` and the first player's lead `lead`, both players playing as the game has
    /// them (a tie is a tie for both: no sign to turn).
    pub fn tie(&self, first: BoxMask, second: BoxMask, lead: i64) -> Option<f64> {
        let ply = &self.lowest;
        if (first.count_ones() + second.count_ones()) as usize != ply.ply {
            return None;
        }
        if ply.ply.is_multiple_of(2) {
            ply.tie_after(first, second, -lead)
        } else {
            ply.tie_after(second, first, lead)
        }
    }
}

/// The first player's value at ply `ply.ply` with cards `first` and `second` and lead
/// `lead` of the first player: at an even ply the first player moves,
/// `W = 1 - S(first, second)(-lead)`; at an odd ply the second moves and
/// `S(second, first)(lead)` is the value to the first player, who has just moved.
pub fn first_value<T: Real>(
    ply: &Ply<T>,
    first: BoxMask,
    second: BoxMask,
    lead: i64,
) -> Option<f64> {
    if ply.ply.is_multiple_of(2) {
        Some(1.0 - ply.after(first, second, -lead)?)
    } else {
        ply.after(second, first, lead)
    }
}

/// One successor row of a pair: the stored vector of the pair the box leads to and the
/// points it scores.
struct Successor<'a, T> {
    values: &'a [T],
    range: Range,
    gain: i64,
}

/// Per-thread working memory of a ply.
struct Scratch<T: Lane> {
    keeps: KeepArray<T::Block>,
    plan: Plan<T::Block>,
    /// A block's opening means, by element.
    means: Vec<<T::Block as Kernel>::Mean>,
    w: Vec<T::Wide>,
}

impl<T: Lane> Scratch<T> {
    fn new() -> Scratch<T> {
        Scratch {
            keeps: KeepArray::new(MAX_BLOCK.div_ceil(T::PER_BLOCK)),
            plan: Plan::new(),
            means: Vec::new(),
            w: Vec::new(),
        }
    }
}

/// The narrowest block of a ply, in lanes: a vector's last lanes go in blocks of 16 or 8 (a
/// block of 8 lanes of packs computes a whole pack of 16, the lanes past 8 left out).
const TAIL_LANES: usize = 8;

/// The widths of a ply's blocks in lanes, widest first: the kernel's widths of the lane's
/// elements (`Kernel::widths`), halved down to [`TAIL_LANES`].
fn lane_widths<T: Lane>(simd: Simd) -> Vec<usize> {
    let mut widths: Vec<usize> = T::Block::widths(simd)
        .iter()
        .map(|&e| e * T::PER_BLOCK)
        .collect();
    while let Some(&w) = widths.last().filter(|&&w| w > TAIL_LANES) {
        if !widths.contains(&(w / 2)) {
            widths.push(w / 2);
        }
    }
    widths
}

/// The value `W(d)` of one pair at the leads `x0..x0 + width`: the plan's rows read from the
/// successors at `d + p`, the kernel run on the elements that hold the lanes (one per lane,
/// or packs: two of 16 lanes for 32, one for fewer, the lanes past `width` computed and left
/// out), the opening mean taken. Appends `width` values.
fn solve_block<T: Lane>(
    successors: &[Successor<'_, T>],
    scores: &ScoreTable,
    x0: i64,
    (simd, width): (Simd, usize),
    scratch: &mut Scratch<T>,
) {
    let elements = width.div_ceil(T::PER_BLOCK);
    scratch.plan.restart_rows(elements, successors.len());
    for s in successors {
        scratch.plan.push_row_with(|row| {
            T::fill_row(row, x0 + s.gain, s.values, s.range);
        });
    }
    scratch.means.clear();
    T::Block::solve(
        simd,
        elements,
        &mut scratch.keeps,
        &scratch.plan,
        scores,
        0,
        &mut scratch.means,
    );
    T::extend_wide(&mut scratch.w, &scratch.means, width);
}

/// The vectors of one mover card's pairs: its values and each pair's range (in the order of
/// the other cards).
struct MoverVectors<T> {
    values: Vec<T>,
    ranges: Vec<Range>,
    lanes: u64,
}

/// Solves every pair of the mover card `mover` against the other cards `others` at ply
/// `ply` from the next ply, in blocks of the kernel's widths for `simd`.
#[allow(clippy::too_many_arguments)]
fn solve_mover<T: Lane>(
    game: &Game,
    scores: &ScoreTable,
    ply: usize,
    mover: BoxMask,
    others: &[BoxMask],
    next: &Ply<T>,
    simd: Simd,
    scratch: &mut Scratch<T>,
) -> MoverVectors<T> {
    let widths = lane_widths::<T>(simd);
    let rules = &game.rules;
    let state = State {
        filled: mover,
        upper: 0,
        yahtzee_50: false,
    };
    let mut specs: Vec<RowSpec> = lay_out(&mut scratch.plan, rules, scores, &state);
    if let Player::Expected(ev) = game.mover(ply) {
        // Reads the boxes in card order: before the reversal below (a policy's plan has
        // no ranked boxes left to reverse).
        let keeps = &ev.card_keeps(&[state])[0];
        specs = follow_policy(&mut scratch.plan, &specs, ev.as_ref(), keeps, scores);
    }
    // The boxes last to first: of boxes of exactly the same value a maximum keeps the later
    // row, so the box first on the card is chosen (which changes no value, but a tie
    // chance carried beside it follows the choice: see [`Duo`]).
    scratch.plan.ranked.reverse();
    let mut out = MoverVectors {
        values: Vec::new(),
        ranges: Vec::with_capacity(others.len()),
        lanes: 0,
    };
    for &other in others {
        // The successor of each row: the pair (other, mover + box) of the next ply.
        let successors: Vec<Successor<'_, T>> = specs
            .iter()
            .map(|s| {
                let (values, range) = next
                    .pair(other, s.next.filled)
                    .expect("the next ply holds every successor");
                Successor {
                    values,
                    range,
                    gain: s.gain(),
                }
            })
            .collect();
        // The leads where some row is not constant, or rows step differently.
        let (mut from, mut to) = (i64::MAX, i64::MIN);
        for s in &successors {
            from = from.min(i64::from(s.range.lo) - s.gain);
            to = to.max(s.range.end() - s.gain);
        }
        scratch.w.clear();
        let mut x0 = from;
        while x0 < to {
            let left = (to - x0) as usize;
            let width = block_width(&widths, left);
            solve_block(&successors, scores, x0, (simd, width), scratch);
            out.lanes += width as u64;
            x0 += width as i64;
        }
        let w = &scratch.w[..(to - from).max(0) as usize];
        // Leave out the leading chances within the tail of 0 and the trailing ones within
        // the tail of 1: they read as the constants.
        // (A tie chance there is at most twice the tail: it is left out with them.)
        let value = |i: usize| T::wide_value(w[i]);
        let mut first = 0;
        while first < w.len() && value(first) <= game.tail {
            first += 1;
        }
        let mut last = w.len();
        while last > first && value(last - 1) >= 1.0 - game.tail {
            last -= 1;
        }
        // W is stored over leads `from + first .. from + last`; S(y) = 1 - W(-y) over
        // `1 - (from + last) .. 1 - (from + first)`, in reverse.
        let offset = out.values.len() as u32;
        out.values
            .extend(w[first..last].iter().rev().map(|&v| T::flip(v)));
        let lo = if from <= to {
            1 - (from + last as i64)
        } else {
            0
        };
        out.ranges.push(Range {
            offset,
            lo: lo as i32,
            len: (last - first) as u32,
        });
    }
    out
}

/// The cards of the mover and of the other player at ply `ply` of the (sub)game from
/// `start`.
pub(crate) fn ply_cards(rules: &Rules, start: Start, ply: usize) -> (Vec<BoxMask>, Vec<BoxMask>) {
    let first = cards_over(rules, ply.div_ceil(2), start.first);
    let second = cards_over(rules, ply / 2, start.second);
    if ply.is_multiple_of(2) {
        (first, second)
    } else {
        (second, first)
    }
}

/// Solves `game` from `start` backward from the full cards, ply by ply, the mover cards of
/// a ply in parallel (each by the same sequential code, so the values are the same at any
/// thread count), keeping the plies for which `keep` is true (the start's is always kept).
/// `progress(done, total)` counts pairs.
pub fn solve<T: PlyLane>(
    game: &Game,
    start: Start,
    keep: &(dyn Fn(usize) -> bool + Sync),
    simd: Simd,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Solution<T>, TwoPlayerError> {
    let first_ply = start.ply(&game.rules)?;
    solve_plies_of(game, start, first_ply, keep, simd, progress)
}

/// [`solve`] from the last ply down to ply `down_to` only (at least the start's): the last
/// turns of the (sub)game, whose lowest ply is then the one always kept.
pub fn solve_plies<T: PlyLane>(
    game: &Game,
    start: Start,
    down_to: usize,
    keep: &(dyn Fn(usize) -> bool + Sync),
    simd: Simd,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Solution<T>, TwoPlayerError> {
    solve_plies_of(game, start, down_to, keep, simd, progress)
}

/// The lanes of a two-player solve: `f32` and `Duo<f32>` (with its tie companion), the
/// tables', and `f64` and `Duo<f64>`, the exact checks'. The pass over the plies is generic
/// and small; its kernel is the kernel crate's, compiled there once for each lane's elements.
pub trait PlyLane: Lane {}
impl<T: Lane> PlyLane for T {}

/// [`solve_plies`].
fn solve_plies_of<T: Lane>(
    game: &Game,
    start: Start,
    down_to: usize,
    keep: &(dyn Fn(usize) -> bool + Sync),
    simd: Simd,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Solution<T>, TwoPlayerError> {
    check_rules(&game.rules)?;
    let rules = game.rules;
    let first_ply = start.ply(&rules)?.max(down_to).min(2 * rules.box_count());
    let last_ply = 2 * rules.box_count();
    let scores = score_table(&rules);
    let masks = 1usize << rules.box_count();
    let cards: Vec<(Vec<BoxMask>, Vec<BoxMask>)> = (0..=last_ply)
        .map(|p| {
            if p < first_ply {
                (Vec::new(), Vec::new())
            } else {
                ply_cards(&rules, start, p)
            }
        })
        .collect();
    let total: u64 = cards.iter().map(|(m, o)| (m.len() * o.len()) as u64).sum();
    let done = AtomicU64::new(1);
    progress(1, total);
    let mut plies: Vec<Option<Ply<T::Value>>> = (0..=last_ply).map(|_| None).collect();
    let (mut lanes_computed, mut values_stored, mut peak_bytes) = (0u64, 1u64, 0u64);
    let mut next: Ply<T> = terminal(&rules, last_ply);
    let mut kept_bytes = 0u64;
    let lane_bytes = size_of::<T>() as u64;
    for ply in (first_ply..last_ply).rev() {
        let (movers, others) = &cards[ply];
        let solved: Vec<MoverVectors<T>> = movers
            .par_iter()
            .map_init(Scratch::new, |scratch, &mover| {
                let v = solve_mover(game, &scores, ply, mover, others, &next, simd, scratch);
                let d = done.fetch_add(others.len() as u64, Ordering::Relaxed);
                progress(d + others.len() as u64, total);
                v
            })
            .collect();
        let mut ranges = Vec::with_capacity(movers.len() * others.len());
        let mut values = Vec::with_capacity(movers.len());
        for m in solved {
            lanes_computed += m.lanes;
            ranges.extend(m.ranges);
            values.push(m.values.into_boxed_slice());
        }
        let current = Ply {
            ply,
            mover_rank: ranks(masks, movers),
            other_rank: ranks(masks, others),
            movers: movers.clone(),
            others: others.clone(),
            ranges,
            values,
        };
        let stored = current.stored_values();
        values_stored += stored;
        peak_bytes = peak_bytes.max(kept_bytes + (stored + next.stored_values()) * lane_bytes);
        let done_with = std::mem::replace(&mut next, current);
        if keep(done_with.ply) {
            let p = done_with.ply;
            let values = done_with.into_values();
            kept_bytes += values.stored_values() * size_of::<T::Value>() as u64;
            plies[p] = Some(values);
        }
    }
    let p = next.ply;
    plies[p] = Some(next.map(|v| T::value_part(v)));
    Ok(Solution {
        rules,
        start,
        plies,
        lowest: next,
        lanes_computed,
        values_stored,
        peak_bytes: peak_bytes.max(lane_bytes),
    })
}

/// What a two-player solve reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TwoPlayerReport {
    /// The rules (serialized as `rules` and `upper_first`).
    #[serde(flatten)]
    pub rules: Rules,
    /// How the first player plays: `optimal` (to win) or `ev` (the expected-score policy).
    pub first: &'static str,
    /// How the second player plays.
    pub second: &'static str,
    /// The first player's chance of winning plus half the chance of a tie, from a new game.
    pub first_value: f64,
    /// The second player's: one less the first's.
    pub second_value: f64,
    /// The first player's chance of winning outright: `first_value` less half the chance of
    /// a tie. Only when the tie chance was carried through the solve (`null` otherwise).
    pub first_wins: Option<f64>,
    /// The second player's chance of winning outright: `second_value` less half the chance
    /// of a tie (`null` as `first_wins`).
    pub second_wins: Option<f64>,
    /// The chance of a tie, under the very choices the values make (`null` as
    /// `first_wins`); the three chances add up to 1.
    pub tie: Option<f64>,
    /// Chances within this of 0 or 1 at the ends of the vectors were left out (an error of
    /// at most this per turn).
    pub tail: f64,
    /// Pairs of cards solved, over every ply.
    pub pairs: u64,
    /// Values stored, over every ply.
    pub values: u64,
    /// The most bytes of values held at once.
    pub peak_bytes: u64,
    /// Lanes the kernel computed (whole blocks).
    pub lanes: u64,
    /// Seconds the solve took.
    pub seconds: f64,
    /// Worker threads.
    pub threads: usize,
    /// The table file of the early plies written, if any.
    pub table: Option<String>,
    /// Its size in bytes.
    pub table_bytes: Option<u64>,
}

/// Whether a solve carries the chance of a tie beside the values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ties {
    /// The values alone: the solve of the table, within its time budget.
    Values,
    /// The values and the tie chance ([`Duo`] lanes): about 2.2 times the CPU time and
    /// twice the memory of the values alone, the same values to the last bit.
    Carried,
}

/// Solves `game` from a new game and reports the first player's value, in `f32` (the
/// values' precision, about 6e-8 per turn, and the tail); with [`Ties::Carried`], the
/// chances of a win for each player and of a tie apart too. Keeps the plies for which `keep`
/// is true (to be saved: the table of the early plies, `solve_report` in
/// `tables/two_player.rs`); the report names no table.
pub fn solve_new_game(
    game: &Game,
    ties: Ties,
    keep: &(dyn Fn(usize) -> bool + Sync),
    simd: Simd,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(TwoPlayerReport, Solution<f32>), TwoPlayerError> {
    let start = std::time::Instant::now();
    let (solution, tie) = match ties {
        Ties::Values => (solve::<f32>(game, Start::NEW, keep, simd, progress)?, None),
        Ties::Carried => {
            let s = solve::<Duo<f32>>(game, Start::NEW, keep, simd, progress)?;
            let tie = s.tie(0, 0, 0).expect("the start's ply is the lowest");
            (s.into_values(), Some(tie))
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    let first_value = solution.value(0, 0, 0).expect("the start's ply is kept");
    let pairs = (0..2 * game.rules.box_count())
        .map(|p| {
            let (m, o) = ply_cards(&game.rules, Start::NEW, p);
            (m.len() * o.len()) as u64
        })
        .sum();
    let report = TwoPlayerReport {
        rules: game.rules,
        first: game.first.name(),
        second: game.second.name(),
        first_value,
        second_value: 1.0 - first_value,
        first_wins: tie.map(|t| first_value - t / 2.0),
        second_wins: tie.map(|t| 1.0 - first_value - t / 2.0),
        tie,
        tail: game.tail,
        pairs,
        values: solution.values_stored,
        peak_bytes: solution.peak_bytes,
        lanes: solution.lanes_computed,
        seconds,
        threads: rayon::current_num_threads(),
        table: None,
        table_bytes: None,
    };
    Ok((report, solution))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::{Order, RuleSet};

    fn yacht() -> Rules {
        Rules::with_order(RuleSet::YACHT, Order::Any)
    }

    #[test]
    fn start_ply_takes_equal_depths_or_the_first_one_ahead() {
        let rules = yacht();
        let ply = |first: BoxMask, second: BoxMask| Start { first, second }.ply(&rules);
        assert_eq!(ply(0, 0).unwrap(), 0);
        assert_eq!(ply(0b1, 0).unwrap(), 1);
        assert_eq!(ply(0b11, 0b101).unwrap(), 4);
        assert!(matches!(
            ply(0, 0b1),
            Err(TwoPlayerError::Depths {
                first: 0,
                second: 1
            })
        ));
        assert!(matches!(
            ply(0b111, 0b1),
            Err(TwoPlayerError::Depths { .. })
        ));
        // Under the upper-first order a lower box cannot be filled before the upper ones.
        let upper_first = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
        let choice = 1 << 10;
        assert!(matches!(
            Start {
                first: choice,
                second: 0b1
            }
            .ply(&upper_first),
            Err(TwoPlayerError::Order)
        ));
    }

    #[test]
    fn rule_sets_with_bonuses_are_refused() {
        assert!(check_rules(&yacht()).is_ok());
        for set in [RuleSet::YAHTZEE, RuleSet::YAHTZEE_PLAIN, RuleSet::YATZY] {
            let rules = Rules::with_order(set, Order::Any);
            assert!(matches!(
                check_rules(&rules),
                Err(TwoPlayerError::Rules { .. })
            ));
        }
    }

    #[test]
    fn the_terminal_ply_is_the_outcome_of_the_final_lead() {
        let rules = yacht();
        let ply: Ply<f64> = terminal(&rules, 24);
        let full = rules.full_mask();
        // The second player has just moved: their lead decides.
        assert_eq!(ply.after(full, full, 1), Some(1.0));
        assert_eq!(ply.after(full, full, 0), Some(0.5));
        assert_eq!(ply.after(full, full, -1), Some(0.0));
        // To the first player, at an even ply, the value is one less it at the other lead.
        assert_eq!(first_value(&ply, full, full, 3), Some(1.0));
        assert_eq!(first_value(&ply, full, full, 0), Some(0.5));
        assert_eq!(ply.pair(0, full), None);
    }

    #[test]
    fn a_vector_reads_its_constants_outside_its_range() {
        let values = [0.25f32, 0.5, 0.75];
        let range = Range {
            offset: 0,
            lo: -1,
            len: 3,
        };
        assert_eq!(read(&values, range, -2), 0.0);
        assert_eq!(read(&values, range, -1), 0.25);
        assert_eq!(read(&values, range, 1), 0.75);
        assert_eq!(read(&values, range, 2), 1.0);
        // An empty range is a step: lost below it, won from it on.
        let step = Range {
            offset: 0,
            lo: 5,
            len: 0,
        };
        assert_eq!(read(&values, step, 4), 0.0);
        assert_eq!(read(&values, step, 5), 1.0);
    }
}
