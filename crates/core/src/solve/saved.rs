//! The expected score under the rule of saved rolls (`shared/RULES.md`, section 8: Maxi
//! Yatzy as printed, a house rule of any game): the re-rolls a turn leaves unused when it
//! scores are kept for later turns.
//!
//! A turn-start state gains one number, the rolls saved `s`: 0 at the start of the game, at
//! most `rolls - 1` more for each turn played. A turn is the opening roll and `rolls - 1 + s`
//! re-rolls; the re-rolls left when a box is filled are the next turn's `s`. The values of a
//! turn with `r` re-rolls left depend on the card and `r` only, so one pass over a card's
//! re-rolls left (`r` from 0 to `rolls - 1 + most`) gives every `s` of its states at once
//! (the kernel's [`saved_turn`]): with `r` left, a roll is worth the best of filling a box now
//! (the successors with `r` saved) and of the best keep.
//!
//! The solve is the expected score's (`expected.rs`): the same lanes of a card, the same
//! successor rows and plans (one plan per `r`), depths from full cards to the empty card, in
//! parallel over the cards of a depth and the same bits at any thread count. Only two depths
//! are held at a time: the one being solved and the one after it, each card with a row of
//! states per number of rolls saved (Maxi Yatzy's widest depth, ten boxes filled, is 184,756
//! cards × 21 numbers of rolls saved × 85 upper totals: 2.6 GB of `f64`).

use std::time::Instant;

use rayon::prelude::*;

use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{Layout, State, cards_by_depth};
use crate::solve::expected::{CardPlan, Lanes, SolveOptions, Successors, Turn, card_lanes};
use crate::solve::kernel::{KeepArray, Kernel, Plan, ScoreTable, saved_turn, score_table};
use crate::solve::simd::Simd;

/// The widest block of the kernel (AVX-512's), for the keep arrays.
const MAX_BLOCK: usize = 32;

/// The solved values of the cards of one depth: for each card (ascending), each number of
/// rolls saved (0 to `most`), each Yahtzee-box flag of the layout and each upper total, the
/// expected future score (without the upper bonus already held; 0 for unreachable states).
#[derive(Clone, Debug)]
pub struct Depth {
    cards: Vec<BoxMask>,
    most: usize,
    layout: Layout,
    values: Vec<f64>,
}

impl Depth {
    /// The values of every card of `cards` (ascending) with up to `most` rolls saved, all 0.
    pub(crate) fn zeros(cards: Vec<BoxMask>, most: usize, layout: Layout) -> Depth {
        let len = cards.len() * (most + 1) * layout.flags * layout.lanes;
        Depth {
            values: vec![0.0; len],
            cards,
            most,
            layout,
        }
    }

    /// The cards held, ascending.
    pub fn cards(&self) -> &[BoxMask] {
        &self.cards
    }

    /// The values held: for each card, each number of rolls saved, each flag and each upper
    /// total (0 for unreachable states).
    pub(crate) fn values_mut(&mut self) -> &mut [f64] {
        &mut self.values
    }

    /// The values of a card: `(most + 1) * flags * lanes`.
    pub(crate) fn per_card(&self) -> usize {
        (self.most + 1) * self.layout.flags * self.layout.lanes
    }

    /// The row (one value per upper total) of card `filled` with `saved` rolls saved and the
    /// Yahtzee-box flag `flag`.
    pub(crate) fn row(&self, filled: BoxMask, saved: usize, flag: bool) -> &[f64] {
        let card = self
            .cards
            .binary_search(&filled)
            .expect("a card of this depth");
        assert!(saved <= self.most, "at most {} rolls saved", self.most);
        let flag = usize::from(flag && self.layout.flags == 2);
        let at = card * self.per_card() + (saved * self.layout.flags + flag) * self.layout.lanes;
        &self.values[at..][..self.layout.lanes]
    }

    /// The most rolls saved a turn of this depth may start with.
    pub fn most_saved(&self) -> usize {
        self.most
    }

    /// The value of `state` with `saved` rolls saved, or `None` when its card is not of this
    /// depth or more rolls are saved than it can have.
    pub fn value(&self, state: &State, saved: usize) -> Option<f64> {
        self.cards.binary_search(&state.filled).ok()?;
        if saved > self.most {
            return None;
        }
        let row = self.row(state.filled, saved, state.yahtzee_50);
        Some(row[usize::from(state.upper).min(self.layout.lanes - 1)])
    }
}

/// A solve of the expected score under saved rolls.
#[derive(Clone, Debug)]
pub struct SavedSolution {
    /// The rules solved.
    pub rules: Rules,
    /// The expected score of the game from its start (an empty card, no roll saved).
    pub expected_score: f64,
    /// The reachable states solved: (card, upper total, Yahtzee-box flag, rolls saved).
    pub states: u64,
    /// The most bytes of values held at once (two depths).
    pub peak_bytes: u64,
    /// Wall-clock seconds the solve took.
    pub seconds: f64,
    /// Every depth's values, by number of boxes filled, when the solve was asked to keep
    /// them ([`solve_saved`]); else empty.
    pub depths: Vec<Depth>,
}

impl SavedSolution {
    /// The value of `state` with `saved` rolls saved (the depths kept), or `None` when the
    /// depths were not kept or the state cannot have that many rolls saved.
    pub fn value(&self, state: &State, saved: usize) -> Option<f64> {
        self.depths
            .get(state.filled.count_ones() as usize)?
            .value(state, saved)
    }
}

/// Per-thread working memory of the solve: no allocation per card.
struct Scratch {
    keeps: KeepArray<f64>,
    spare: KeepArray<f64>,
    succ: Successors,
    /// A plan per number of re-rolls left.
    plans: Vec<Plan<f64>>,
    lanes: Lanes,
    /// A block's values, by rolls saved.
    block: Vec<f64>,
    /// The card's values, by rolls saved and lane ("bonus held").
    results: Vec<f64>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            keeps: KeepArray::new(MAX_BLOCK),
            spare: KeepArray::new(MAX_BLOCK),
            succ: Successors::new(),
            plans: Vec::new(),
            lanes: Lanes::new(),
            block: Vec::new(),
            results: Vec::new(),
        }
    }
}

/// Solves card `turn.filled` (with up to `most` rolls saved) against the solved `next`
/// depth, writing its values to `out` (`(most + 1) * flags * lanes`, as [`Depth`] holds
/// them). Returns its number of reachable states.
fn solve_card(
    turn: &Turn<'_>,
    layout: &Layout,
    (next, most): (&Depth, usize),
    (simd, width): (Simd, usize),
    scratch: &mut Scratch,
    out: &mut [f64],
) -> u64 {
    let rules = turn.rules;
    let rerolls = usize::from(rules.rolls()) - 1;
    let card = card_lanes(turn, layout, width, &mut scratch.lanes);
    // With `r` re-rolls left, filling a box leads to the next card with `r` saved.
    let levels = rerolls + most + 1;
    debug_assert_eq!(levels, next.most + 1);
    while scratch.plans.len() < levels {
        scratch.plans.push(Plan::new());
    }
    for (r, plan) in scratch.plans[..levels].iter_mut().enumerate() {
        scratch
            .succ
            .load_with(rules, layout, turn.filled, card.flags, |c, flag| {
                next.row(c, r, flag)
            });
        plan.build(turn, &scratch.succ, &scratch.lanes);
    }
    let all = scratch.lanes.len();
    scratch.results.clear();
    scratch.results.resize((most + 1) * all, 0.0);
    let mut u0 = 0;
    while u0 < all {
        let block = if all - u0 >= width { width } else { card.tail };
        scratch.block.clear();
        saved_turn(
            simd,
            block,
            &mut scratch.keeps,
            &mut scratch.spare,
            &scratch.plans[..levels],
            turn.scores,
            u0,
            &mut scratch.block,
            None,
        );
        for (s, values) in scratch.block.chunks_exact(block).enumerate() {
            scratch.results[s * all + u0..][..block].copy_from_slice(values);
        }
        u0 += block;
    }
    let per_saved = layout.flags * layout.lanes;
    for (s, out) in out.chunks_exact_mut(per_saved).enumerate() {
        let results = &scratch.results[s * all..][..all];
        card.write_row(rules, layout, &scratch.lanes, results, out);
    }
    (card.states * (most + 1)) as u64
}

/// The bytes of values of the widest two depths of `rules` with saved rolls: what a solve
/// holds at its peak (besides each thread's scratch, a few MB).
pub fn peak_bytes(rules: &Rules) -> u64 {
    let layout = Layout::of(rules);
    let boxes = rules.box_count();
    let depth_bytes = |t: usize| -> u64 {
        let cards = binomial(boxes, t);
        cards * (rules.most_saved_rolls(t) as u64 + 1) * (layout.flags * layout.lanes * 8) as u64
    };
    (0..boxes)
        .map(|t| depth_bytes(t) + depth_bytes(t + 1))
        .max()
        .unwrap_or(0)
}

/// `n` choose `k`.
fn binomial(n: usize, k: usize) -> u64 {
    (0..k).fold(1u64, |acc, i| acc * (n - i) as u64 / (i as u64 + 1))
}

/// Solves the expected score of `rules` under saved rolls, every reachable state, from full
/// cards to the empty one, holding two depths at a time; with `keep`, every depth's values
/// are kept in the solution (for small games: queries and checks). `progress` is called
/// after each depth with the cards solved so far and the total. Runs on the current rayon
/// thread pool.
pub fn solve_saved(
    rules: &Rules,
    options: SolveOptions,
    keep: bool,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> SavedSolution {
    let mut kept = Vec::new();
    let solution = solve_saved_with(rules, options, progress, &mut |depth: &Depth| {
        if keep {
            kept.push(depth.clone());
        }
        Ok::<(), std::convert::Infallible>(())
    });
    let Ok(mut solution) = solution;
    kept.reverse();
    solution.depths = kept;
    solution
}

/// [`solve_saved`] handing each depth, once solved, to `on_depth`, from the full cards to the
/// empty card (what the table of saved rolls writes as it goes: `tables::saved`); an error of
/// `on_depth` stops the solve. The solution keeps no depth.
pub fn solve_saved_with<E>(
    rules: &Rules,
    options: SolveOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
    on_depth: &mut dyn FnMut(&Depth) -> Result<(), E>,
) -> Result<SavedSolution, E> {
    assert!(rules.saved_rolls(), "a game with saved rolls");
    let start = Instant::now();
    let layout = Layout::of(rules);
    let scores: ScoreTable = score_table(rules);
    let by_depth = cards_by_depth(rules);
    let simd = options.simd;
    let width = if layout.lanes > 1 {
        f64::widths(simd)[0]
    } else {
        1
    };
    let boxes = rules.box_count();
    let total: u64 = by_depth.iter().map(|c| c.len() as u64).sum();
    let mut next = Depth::zeros(
        by_depth[boxes].clone(),
        rules.most_saved_rolls(boxes),
        layout,
    );
    on_depth(&next)?;
    let mut done = by_depth[boxes].len() as u64;
    progress(done, total);
    let mut states = 0u64;
    let mut peak = 0u64;
    for depth in (0..boxes).rev() {
        let most = rules.most_saved_rolls(depth);
        let mut this = Depth::zeros(by_depth[depth].clone(), most, layout);
        let bytes = |d: &Depth| (d.values.len() * 8) as u64;
        peak = peak.max(bytes(&this) + bytes(&next));
        let per_card = this.per_card();
        states += this
            .values
            .par_chunks_mut(per_card)
            .zip(this.cards.par_iter())
            .map_init(Scratch::new, |scratch, (out, &filled)| {
                let turn = Turn {
                    rules,
                    scores: &scores,
                    filled,
                    theta: None,
                };
                solve_card(&turn, &layout, (&next, most), (simd, width), scratch, out)
            })
            .sum::<u64>();
        on_depth(&this)?;
        done += this.cards.len() as u64;
        progress(done, total);
        next = this;
    }
    let expected_score = next.row(0, 0, false)[0];
    Ok(SavedSolution {
        rules: *rules,
        expected_score,
        states,
        peak_bytes: peak,
        seconds: start.elapsed().as_secs_f64(),
        depths: Vec::new(),
    })
}

/// The layers of one turn of `state` under saved rolls with `rerolls_left` re-rolls left (at
/// most the re-rolls the next depth's rows `next` were solved for), against `next`:
/// `visit(r, entries)` sees the layer of `r` re-rolls left (`r` from 0, one entry per
/// multiset: the keeps' values with `r` re-rolls left for `r` > 0, the rolls' values) as
/// future points of this turn and after, the upper bonus already held taken off: the
/// solve's own kernel ([`saved_turn`]) with one lane, so that advice reads exactly what the
/// solve computed.
pub(crate) fn state_turn(
    rules: &Rules,
    scores: &ScoreTable,
    next: &Depth,
    state: &State,
    rerolls_left: usize,
    mut visit: impl FnMut(usize, &[f64]),
) {
    let layout = next.layout;
    let turn = Turn {
        rules,
        scores,
        filled: state.filled,
        theta: None,
    };
    let rerolls = usize::from(rules.rolls()) - 1;
    let levels = rerolls_left.max(rerolls) + 1;
    assert!(levels <= next.most + 1, "rows for every re-roll left");
    let upper = usize::from(state.upper).min(layout.lanes - 1);
    let held = crate::solve::expected::held_bonus(rules, upper);
    let flag = state.yahtzee_50 && layout.flags == 2;
    let mut scratch = Scratch::new();
    scratch.lanes.push(upper as u8, flag);
    for r in 0..levels {
        let mut plan = Plan::new();
        scratch
            .succ
            .load_with(rules, &layout, state.filled, &[flag], |c, flag| {
                next.row(c, r, flag)
            });
        plan.build(&turn, &scratch.succ, &scratch.lanes);
        scratch.plans.push(plan);
    }
    let mut out = Vec::new();
    saved_turn(
        Simd::detect(),
        1,
        &mut scratch.keeps,
        &mut scratch.spare,
        &scratch.plans,
        scores,
        0,
        &mut out,
        Some(&mut |r, k: &[f64]| {
            if r <= rerolls_left {
                let less: Vec<f64> = k.iter().map(|v| v - held).collect();
                visit(r, &less);
            }
        }),
    );
}
