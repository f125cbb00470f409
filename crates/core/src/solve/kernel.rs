//! The core's side of the turn kernel, which is a crate of its own (`yahtzee-kernel`,
//! `crates/kernel`): the kernel's types where the solvers and their users read them, and the
//! one place a game's rules become what the kernel reads ([`score_table`]).
//!
//! The kernel's loops are compiled in that crate only, behind its entry points
//! ([`Kernel::solve`] for a block of a solve, [`turn`] for the layers of a turn): nothing in
//! this library instantiates them, so neither the library nor its callers compile them again.

pub use yahtzee_kernel::{
    BOX_SLOTS, KEEP_ENTRIES, KeepArray, Kernel, Layer, POINT_VALUES, Plan, Real, ScoreTable,
    aligned_start, per_line, saved_turn, turn,
};

use crate::game::rules::{BoxMask, Rules};

/// The points of each box of `rules` for each roll by the box's own condition (no Joker),
/// which rolls are five of a kind, and the boxes whose points may only add to the value of
/// the state they lead to (the lower boxes but the five-of-a-kind box, whose 50 leads to
/// another state): the kernel's [`ScoreTable`] of the game, made once per solve or table.
pub(crate) fn score_table(rules: &Rules) -> ScoreTable {
    score_table_for(rules, false)
}

/// The [`ScoreTable`] of `rules` for the expected score (`utility` false), or for an
/// exponential utility (`utility` true, `solve::theta`), whose points multiply a
/// successor's utility rather than add to it: then no box adds its points to its row in the
/// kernel, and every box has a row per points it can score, the points in it.
pub(crate) fn score_table_for(rules: &Rules, utility: bool) -> ScoreTable {
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
    let five = rules.five_of_a_kind_box();
    let mut adds: BoxMask = 0;
    for (c, category) in rules.boxes().iter().enumerate() {
        if !utility && !category.is_upper() && Some(c) != five {
            adds |= 1 << c;
        }
    }
    ScoreTable::new(space.space(), rules.rolls(), points, five_of_a_kind, adds)
}
