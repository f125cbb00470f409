//! The turn kernel: the machinery of one turn of the game, written once and driven by every
//! objective.
//!
//! A turn is computed for `N` lanes at once. What a lane is depends on the objective: for the
//! expected score the lanes are the states of one card (its upper totals and bonus flags),
//! for the vector objectives (points still needed, points banked, score difference) the
//! lanes are the values of that number for one state. Either way each lane reads its own
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
//!    [`ScoreTable`]); [`run_turn`] runs them all, layer by layer; the opening mean over the
//!    first roll ends a solve's turn ([`opening_mean`]).
//!
//! Everything here is `#[inline(always)]` and generic: it is compiled only inside the entry
//! points of `entry.rs`, once for each lane type, block width and instruction set listed
//! there. No operation is fused, so every instruction set gives the same bits.
//!
//! Five dice or six: the loops take their ranges from the game's [`Space`] (held by the
//! [`ScoreTable`]): the keeps of fewer dice are the multisets before its first roll, and the
//! lattice of six dice extends that of five, so one kernel serves both.

use crate::lattice::{ALL_MULTISETS, Lattice, SUBSET_GROUPS, Space, SubsetGroup};
use crate::plan::{Plan, ScoreTable};
use crate::real::Real;

#[inline(always)]
fn fmax<T: Real>(a: T, b: T) -> T {
    T::greater(a, b)
}

/// Step 1: the value of each roll when it is the last one, with the best box filled, written
/// to the rolls' entries of `k` (from the first roll on), for the lanes `u0..u0 + N` of the
/// plan. The row reads are most of this step's work, one per roll and open box. (A second
/// copy for rows exactly one block wide, read with one bounds check fewer, was no faster and
/// added a quarter to the kernel's machine code: results/kernel-crate-2026-12-06.md.)
#[inline(always)]
pub(crate) fn score_final_roll<T: Real, const N: usize>(
    plan: &Plan<T>,
    scores: &ScoreTable,
    dice: Space,
    u0: usize,
    k: &mut [[T; N]],
) {
    final_roll_with(plan, scores, dice, k, |row| plan.lanes_of::<N>(row, u0));
}

/// [`score_final_roll`] with the lanes of row `row` read by `lanes(row)`.
#[inline(always)]
fn final_roll_with<'p, T: Real + 'p, const N: usize>(
    plan: &Plan<T>,
    scores: &ScoreTable,
    dice: Space,
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
            above_floor(group, usize::from(count), k, first_roll, &start, &lanes);
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

/// The final roll's values of rolls that list `count` rows above the floors each: the best of
/// the floors, of the boxes that add their points (`start`, if `adds`) and of the rows. The
/// rolls of a group list as many rows, so the loop over them runs as many times from roll to
/// roll and its end is predicted. (A copy per count, the count a constant, ran 2% fewer
/// instructions and no faster, for a third more of the kernel's machine code:
/// results/kernel-crate-2026-12-06.md.)
#[inline(always)]
fn above_floor<'p, T: Real + 'p, const N: usize>(
    (rolls, rows, floor, adds): (&[u16], &[u16], &[T; N], bool),
    count: usize,
    k: &mut [[T; N]],
    first_roll: usize,
    start: &impl Fn(&[[T; N]], usize) -> [T; N],
    lanes: &impl Fn(usize) -> &'p [T; N],
) {
    let per_roll = count;
    debug_assert_eq!(rows.len(), per_roll * rolls.len());
    for (i, &r) in rolls.iter().enumerate() {
        let r = usize::from(r);
        let mut acc = *floor;
        if adds {
            let added = start(k, r);
            for l in 0..N {
                acc[l] = fmax(acc[l], added[l]);
            }
        }
        let rows = &rows[i * per_roll..][..per_roll];
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
pub(crate) fn expect_keeps<T: Real, const N: usize>(k: &mut [[T; N]], dice: Space) {
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

/// Step 3: the best keep among the sub-multisets of each multiset (the keep itself
/// included), by a forward sweep over the lattice, size by size: the best sub-multiset of `i`
/// is `i` itself or the best of a multiset one die smaller. The sweep works in place: the value
/// of keep `i` is read only to start its own maximum, so each entry of `k` is replaced by its
/// maximum (for the rolls: the value of the roll with this many rolls left), which keeps one
/// array in cache instead of two and saves a copy per layer.
#[inline(always)]
pub(crate) fn best_keeps<T: Real, const N: usize>(k: &mut [[T; N]], dice: Space) {
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
    // The dice and the rolls a turn are read at run time: one compiled turn serves every
    // game (results/kernel-crate-2026-12-06.md measured what constant ranges would save:
    // 1-5% of the instructions, for five times the kernel's compile time).
    run_turn_of(
        k,
        plan,
        scores,
        (scores.dice, scores.rolls),
        u0,
        last,
        visit,
    )
}

/// [`run_turn`] for `dice` and `rolls` a turn, which must be the score table's: constants
/// where a copy is made for one game (the advice's one-lane turn of five dice and three rolls,
/// `entry.rs`).
#[inline(always)]
pub(crate) fn run_turn_of<T: Real, const N: usize>(
    k: &mut [[T; N]],
    plan: &Plan<T>,
    scores: &ScoreTable,
    (dice, rolls): (Space, u8),
    u0: usize,
    last: Layer,
    mut visit: impl FnMut(Layer, &[[T; N]]),
) {
    debug_assert!(dice == scores.dice && rolls == scores.rolls);
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

/// A turn under the rule of saved rolls (`shared/RULES.md`, section 8), for lanes
/// `u0..u0 + N`: the re-rolls a turn leaves unused when it scores are saved, so filling a box
/// with `r` re-rolls left leads to the next turn with `r` saved, and a turn with `s` saved has
/// `rolls - 1 + s` re-rolls. `plans[r]` holds the rows of the successors with `r` rolls saved,
/// for `r` from 0 to `rolls - 1 + most`, where `most` is the most this card's turn may start
/// with. One pass over the re-rolls left serves every `s` at once: with `r` re-rolls left a
/// roll is worth the best of filling a box now (`plans[r]`, scored into `spare`) and of the
/// best keep (a mean over the roll with `r - 1` left); the turn that starts with `s` saved
/// is the opening mean after `rolls - 1 + s` re-rolls, handed to `opening(r, k)` (`r` the
/// re-rolls left: `s` is `r - rolls + 1`). `layer(r, k)` sees `k` before the best keeps of
/// the layer of `r` re-rolls left are chosen (`r` from 0): the keeps' entries hold the keeps'
/// values with `r` re-rolls left (for `r` > 0), the rolls' entries those of scoring now. Rolling
/// again keeping every die is never better than scoring (a value never falls with a roll
/// more saved), so the rolls' own entries hold the value of scoring now.
#[inline(always)]
pub(crate) fn run_saved_turn<T: Real, const N: usize>(
    k: &mut [[T; N]],
    spare: &mut [[T; N]],
    plans: &[Plan<T>],
    scores: &ScoreTable,
    u0: usize,
    mut layer: impl FnMut(usize, &[[T; N]]),
    mut opening: impl FnMut(usize, &[[T; N]]),
) {
    let dice = scores.dice;
    let rerolls = usize::from(scores.rolls) - 1;
    assert!(plans.len() > rerolls, "a plan for each re-roll of a turn");
    let rolls = dice.first_roll()..dice.multisets();
    score_final_roll(&plans[0], scores, dice, u0, k);
    layer(0, k);
    if rerolls == 0 {
        opening(0, k);
    }
    for (r, plan) in plans.iter().enumerate().skip(1) {
        expect_keeps(k, dice);
        score_final_roll(plan, scores, dice, u0, spare);
        k[rolls.clone()].copy_from_slice(&spare[rolls.clone()]);
        layer(r, k);
        best_keeps(k, dice);
        if r >= rerolls {
            opening(r, k);
        }
    }
}

/// Step 3 as the plan says: the best keep of every roll ([`best_keeps`]), or the keep of
/// the plan's policy (layer 0: one roll left, 1: two, and so on).
#[inline(always)]
fn choose_keeps<T: Real, const N: usize>(
    plan: &Plan<T>,
    dice: Space,
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
    dice: Space,
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
/// For a lane that carries a companion, the mean of both ([`Real::Wide`]).
#[inline(always)]
pub(crate) fn opening_mean<T: Real, const N: usize>(k: &[[T; N]], dice: Space) -> [T::Wide; N] {
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
