//! The forward pass of one turn under a given policy: the chance of each way the turn can end.
//! It is the counterpart of the backward kernel ([`crate::solve::kernel`]): the kernel carries
//! values from the boxes back to the opening roll, this carries probability from the opening
//! roll forward to the boxes, along the same lattice of multisets.
//!
//! The opening roll has the probabilities of the thrown dice (five or six: the game's
//! [`DiceSpace`]). With rolls left, each roll's
//! mass moves to the policy's keep (or, for a keep of all five dice, stops there), and each
//! keep spreads its mass over the rolls it can become; after the last roll (or a stop) each
//! roll's mass goes to the policy's outcome (its box, points and bonus). The policy is an
//! input, lane by lane: the exact distribution runs one lane (the expected-score policy), the
//! target and win distributions run up to 16 (one policy per points banked), compiled for
//! the widest vectors of the processor ([`crate::solve::simd`]). A lane's masses are the same
//! operations in the same order whatever the number of lanes, so every lane has the bits of a
//! pass of its own.

use crate::game::dice::{ALL_MULTISETS, DiceSpace, FACES, Lattice, MAX_ROLLS};

/// A lane's keep for a roll: stop rolling, or re-roll the dice not in the multiset of this
/// index.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kept {
    /// Keep all the dice: the roll is final.
    Stop,
    /// Keep the multiset of this index (fewer than all the dice) and re-roll the others.
    Keep(u16),
}

impl Kept {
    /// The keep of the multiset of index `index` in a game of `space`'s dice: a stop for a
    /// multiset of all the dice (the roll itself, as a policy's best keep names a stop).
    pub(crate) fn of_index(space: DiceSpace, index: usize) -> Kept {
        if index >= space.first_roll() {
            Kept::Stop
        } else {
            Kept::Keep(index as u16)
        }
    }
}

/// The chance of each of `outcomes` ways a turn of a game of `space`'s dice and `rolls` rolls
/// a turn can end, in `lanes` lanes (at most `N`) at
/// once, under the policy of each lane: `keep(rolls_left, roll, lane)` is the lane's keep of
/// a roll (by roll offset) with `rolls_left` from `rolls - 1` down to 1 (2 and 1 in a game of
/// three rolls a turn), `outcome(roll, lane)` the outcome (in
/// `0..outcomes`) of a final roll, `None` if it ends none the caller counts. Each is asked only
/// for a roll the lane reaches. Returns, for each outcome, its chance in each lane (lanes past
/// `lanes` are 0).
///
/// Inlined, so that it is compiled for the instruction set of its caller.
#[inline(always)]
pub(crate) fn outcome_chances<const N: usize>(
    space: DiceSpace,
    rolls_a_turn: u8,
    lanes: usize,
    outcomes: usize,
    keep: impl FnMut(u8, usize, usize) -> Kept,
    outcome: impl FnMut(usize, usize) -> Option<u16>,
) -> Vec<[f64; N]> {
    outcome_chances_from(
        space,
        opening::<N>(space),
        rolls_a_turn - 1,
        lanes,
        outcomes,
        keep,
        outcome,
    )
}

/// [`outcome_chances`] from the middle of a turn: `p[r]` is each lane's chance of showing roll
/// `r` (by roll offset) with `rolls_left` rolls left (0: the roll is final).
#[inline(always)]
pub(crate) fn outcome_chances_from<const N: usize>(
    space: DiceSpace,
    p: [[f64; N]; MAX_ROLLS],
    rolls_left: u8,
    lanes: usize,
    outcomes: usize,
    keep: impl FnMut(u8, usize, usize) -> Kept,
    outcome: impl FnMut(usize, usize) -> Option<u16>,
) -> Vec<[f64; N]> {
    outcome_chances_marked(space, p, rolls_left, lanes, outcomes, keep, outcome, |_| {})
}

/// Each lane's chance of showing each roll of a game of `space`'s dice on the opening roll of
/// a turn, by roll offset.
#[inline(always)]
pub(crate) fn opening<const N: usize>(space: DiceSpace) -> [[f64; N]; MAX_ROLLS] {
    let lattice = Lattice::get();
    let first_roll = space.first_roll();
    let throws = f64::from(space.throws());
    let mut opening: [[f64; N]; MAX_ROLLS] = [[0.0; N]; MAX_ROLLS];
    for (r, q) in opening[..space.rolls()].iter_mut().enumerate() {
        *q = [f64::from(lattice.ways[first_roll + r]) / throws; N];
    }
    opening
}

/// [`outcome_chances_from`] with `mark(p)` called on the chances of the rolls each time dice
/// land: on `p` as given (the dice showing at the start) and after each throw, before any
/// keep. A lane's mark may change only its own masses; the policy does not see them, so a
/// lane whose mark sets the rolls of some event to 0 carries the chance of the turn's ways
/// in which no roll seen showed the event: the turn's events of a roll (`stats`'s
/// exact events), from the one pass of the turn.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn outcome_chances_marked<const N: usize>(
    space: DiceSpace,
    mut p: [[f64; N]; MAX_ROLLS],
    rolls_left: u8,
    lanes: usize,
    outcomes: usize,
    mut keep: impl FnMut(u8, usize, usize) -> Kept,
    mut outcome: impl FnMut(usize, usize) -> Option<u16>,
    mut mark: impl FnMut(&mut [[f64; N]]),
) -> Vec<[f64; N]> {
    debug_assert!(lanes <= N);
    let lattice = Lattice::get();
    let (first_roll, rolls) = (space.first_roll(), space.rolls());
    // `p[r]`: the chance of rolling roll `r` with the rolls left of the step.
    let p = &mut p[..rolls];
    mark(p);
    // The chance of ending the turn on each roll by a stop.
    let mut stopped = [[0.0f64; N]; MAX_ROLLS];
    let stopped = &mut stopped[..rolls];
    let mut mass = [[0.0f64; N]; ALL_MULTISETS];
    let mass = &mut mass[..space.multisets()];
    for rolls_left in (1..=rolls_left).rev() {
        mass.fill([0.0; N]);
        for (r, q) in p.iter().enumerate() {
            for l in 0..lanes {
                if q[l] == 0.0 {
                    continue;
                }
                match keep(rolls_left, r, l) {
                    Kept::Stop => stopped[r][l] += q[l],
                    Kept::Keep(i) => mass[usize::from(i)][l] += q[l],
                }
            }
        }
        throw_kept(lattice, first_roll, mass);
        p.copy_from_slice(&mass[first_roll..]);
        mark(p);
    }
    let mut chances = vec![[0.0f64; N]; outcomes];
    for (r, (s, q)) in stopped.iter().zip(p.iter()).enumerate() {
        for l in 0..lanes {
            let m = s[l] + q[l];
            if m == 0.0 {
                continue;
            }
            if let Some(o) = outcome(r, l) {
                chances[usize::from(o)][l] += m;
            }
        }
    }
    chances
}

/// Throws the dice not kept: `mass[i]` is each lane's chance of keeping the multiset `i`
/// (of fewer than all the dice); afterwards the rolls (`first_roll..`) hold the chances of
/// the rolls those keeps become, added to what they held. One die at a time: the mass of each
/// multiset of fewer than all the dice goes, a sixth to each face, to the multiset one die
/// larger. Multisets are ordered by size, so one forward sweep finishes every keep: 1,260
/// additions whatever the keeps, against up to 252 multiply-adds per keep with the outcome
/// probabilities.
#[inline(always)]
pub(crate) fn throw_kept<const N: usize>(
    lattice: &Lattice,
    first_roll: usize,
    mass: &mut [[f64; N]],
) {
    for i in 0..first_roll {
        let m = mass[i];
        if m.iter().all(|&x| x == 0.0) {
            continue;
        }
        let sixth = m.map(|x| x / FACES as f64);
        for &child in &lattice.add[i] {
            let c = &mut mass[usize::from(child)];
            for l in 0..N {
                c[l] += sixth[l];
            }
        }
    }
}

/// The chance of facing each roll at each number of rolls left in a turn of a game of
/// `space`'s dice and `rolls_a_turn` rolls a turn, under the policy `keep(rolls_left, roll)`
/// (by roll offset, asked for `rolls_left` from `rolls_a_turn - 1` down to 1, for every roll
/// the turn reaches). `chances[rolls_left][r]` for `rolls_left` in `0..rolls_a_turn`; each
/// row adds up to 1, to rounding.
///
/// A stop (keeping all the dice) counts as holding them through the rolls left: the roll
/// is faced again with fewer rolls left, where the policy fills the same box (a stop's value
/// is its best box's at any number of rolls left, and every other keep is worth no more with
/// fewer rolls left). So the decisions of one number of rolls left are the turn's ways of
/// reaching that point, and their chances add up to the chance of the turn.
pub(crate) fn roll_chances(
    space: DiceSpace,
    rolls_a_turn: u8,
    mut keep: impl FnMut(u8, usize) -> Kept,
) -> Vec<Vec<f64>> {
    let lattice = Lattice::get();
    let (first_roll, rolls) = (space.first_roll(), space.rolls());
    let throws = f64::from(space.throws());
    let mut chances = vec![Vec::new(); usize::from(rolls_a_turn)];
    let mut p: Vec<f64> = (0..rolls)
        .map(|r| f64::from(lattice.ways[first_roll + r]) / throws)
        .collect();
    let mut mass = vec![[0.0f64; 1]; space.multisets()];
    for rolls_left in (1..rolls_a_turn).rev() {
        mass.fill([0.0]);
        for (r, &q) in p.iter().enumerate() {
            if q == 0.0 {
                continue;
            }
            let to = match keep(rolls_left, r) {
                Kept::Stop => first_roll + r,
                Kept::Keep(i) => usize::from(i),
            };
            mass[to][0] += q;
        }
        throw_kept(lattice, first_roll, &mut mass);
        let next = mass[first_roll..].iter().map(|m| m[0]).collect();
        chances[usize::from(rolls_left)] = std::mem::replace(&mut p, next);
    }
    chances[0] = p;
    chances
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::dice::ROLLS;

    const FIVE: DiceSpace = DiceSpace::FIVE;

    /// Stopping on the opening roll ends the turn on it: the chances are the roll
    /// probabilities, whatever the lane.
    #[test]
    fn stopping_at_once_keeps_the_opening_roll() {
        let chances = outcome_chances::<4>(
            FIVE,
            3,
            3,
            ROLLS,
            |_, _, _| Kept::Stop,
            |r, _| Some(r as u16),
        );
        let lattice = Lattice::get();
        for (c, &q) in chances.iter().zip(&lattice.roll_probability) {
            assert_eq!(c, &[q, q, q, 0.0]);
        }
    }

    /// Re-rolling everything twice is the opening roll again, to rounding; one outcome for
    /// every roll gathers a chance of 1.
    #[test]
    fn rerolling_everything_sums_to_one() {
        let chances = outcome_chances::<1>(FIVE, 3, 1, 1, |_, _, _| Kept::Keep(0), |_, _| Some(0));
        assert!((chances[0][0] - 1.0).abs() < 1e-12, "{}", chances[0][0]);
        let spread = outcome_chances::<1>(
            FIVE,
            3,
            1,
            ROLLS,
            |_, _, _| Kept::Keep(0),
            |r, _| Some(r as u16),
        );
        let lattice = Lattice::get();
        for (c, &q) in spread.iter().zip(&lattice.roll_probability) {
            assert!((c[0] - q).abs() < 1e-15);
        }
    }

    /// Facing chances: a stop holds the roll through the turn, a re-roll of everything is
    /// the opening roll again; each number of rolls left adds up to 1.
    #[test]
    fn roll_chances_carry_stops_and_add_up_to_one() {
        let lattice = Lattice::get();
        let held = roll_chances(FIVE, 3, |_, _| Kept::Stop);
        let again = roll_chances(FIVE, 3, |_, _| Kept::Keep(0));
        for rolls_left in 0..3 {
            assert_eq!(held[rolls_left], lattice.roll_probability);
            for (a, &q) in again[rolls_left].iter().zip(&lattice.roll_probability) {
                assert!((a - q).abs() < 1e-15);
            }
        }
        // Keeping one die of the roll's lowest face: every row still adds up to 1.
        let low = roll_chances(FIVE, 3, |_, r| {
            let face = crate::game::dice::Dice::from_index(FIVE.first_roll() + r).faces()[0];
            Kept::Keep(
                crate::game::dice::Keep::from_faces(&[face])
                    .unwrap()
                    .index() as u16,
            )
        });
        for row in &low {
            assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }
}
