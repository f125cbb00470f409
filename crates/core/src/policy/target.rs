//! Play for a target score: the best chance of reaching a final score, from any position.
//!
//! The target table ([`crate::tables::vector`], objective `target`) holds for every state `s`
//! and every number of points still needed `t` the best chance `P*(s, t)`, over all strategies,
//! of scoring at least `t` more points. With `B` points banked, the chance of a final score
//! of at least `T` is `P*(s, T - B)`. Advice for a target ranks every option of a position by
//! that chance (the target's own turn, run by the kernel at `t`), and shows beside it what
//! the option is worth on average under expected-score play, so a player sees what a gamble
//! costs.
//!
//! Ties: options whose chances are within 1e-9 are ordered by their expected final score,
//! then by the usual preference (the fewest dice kept, the box first on the card). Once the
//! target is reached (`t <= 0`) every option has chance 1, so the advice is the
//! expected-score advice.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::game::dice::Keep;
use crate::game::rules::Rules;
use crate::game::state::{State, set_bits};
use crate::game::ties::Preferred;
use crate::game::ties::rank_by_preference;
use crate::policy::expected::{Action, AdviceError, Position, advise, box_choices};
use crate::solve::expected::TurnValues;
use crate::solve::kernel::Layer;
use crate::solve::vector::max_remaining;
use crate::tables::TableError;
use crate::tables::expected::StrategyTable;
use crate::tables::vector::VectorTable;

/// Errors of target advice: the position, or the target table's file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    /// The position is not valid (see [`AdviceError`]).
    #[error(transparent)]
    Advice(#[from] AdviceError),
    /// A card of the target table could not be read (see [`TableError`]).
    #[error(transparent)]
    Table(#[from] TableError),
    /// The two tables are of other rules than the card: load the tables of the card's rules.
    #[error(
        "the target table is for {table} but the card is for {card}: load the target table of {card}"
    )]
    RulesMismatch {
        /// The card's rules.
        card: String,
        /// The target table's rules.
        table: String,
    },
}

/// One option of a position, priced for a target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetOption {
    /// What the option does (`kind` and its fields in JSON).
    #[serde(flatten)]
    pub action: Action,
    /// The best chance of a final score of at least the target after this option (chances
    /// below 1e-9, the tail the table leaves out, are 0 here: see `reachable`).
    pub p_reach: f64,
    /// True when some dice still make the target after this option, so that its chance is
    /// not 0 even where `p_reach` rounds it to 0.
    pub reachable: bool,
    /// How much smaller that chance is than the best option's.
    pub loss: f64,
    /// The expected final score after this option under expected-score play.
    pub expected_final: f64,
    /// How much smaller that is than the best expected final score of the position.
    pub expected_loss: f64,
}

/// The answer for one position and a target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetAdvice {
    /// The rules (serialized as `rules` and `upper_first`).
    #[serde(flatten)]
    pub rules: Rules,
    /// The final score aimed at.
    pub target: u32,
    /// Points already on the card, bonuses included.
    pub banked: u32,
    /// Points still needed: the target less the points banked.
    pub needed: i64,
    /// The dice, ascending.
    pub dice: Vec<u8>,
    /// Rolls left.
    pub rolls_left: u8,
    /// The best chance of reaching the target from this position.
    pub p_reach: f64,
    /// True when some dice still make the target from this position.
    pub reachable: bool,
    /// Chances below this are left out of the table and shown as 0.
    pub tail: f64,
    /// Every legal option, best first.
    pub options: Vec<TargetOption>,
}

/// Where a priced option comes from: a box filled with no roll left, stopping to fill a
/// box, or a keep of fewer than five dice.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Source {
    /// Fill this box (of [`box_choices`]).
    Box(crate::policy::expected::BoxChoice),
    /// Keep these dice and roll the others.
    Keep(crate::game::dice::Keep),
}

/// One option of a position priced by a vector table: its value at the coordinate, and its
/// expected final score under expected-score play.
#[derive(Clone, Debug)]
pub(crate) struct Priced {
    pub(crate) action: Action,
    pub(crate) value: f64,
    pub(crate) expected_final: f64,
    pub(crate) source: Source,
}

/// What prices the options of a position at a coordinate `x`: a vector table (the target,
/// the win objective), or the two-player solution (`x` the lead).
pub(crate) trait OptionPrices {
    /// The rules of the values.
    fn rules(&self) -> &Rules;
    /// The value after filling box `index` with `points` from `state` (the dice five of a
    /// kind or not), at coordinate `x` before it.
    fn after_box(
        &self,
        state: &crate::game::state::State,
        index: usize,
        points: u32,
        five_of_a_kind: bool,
        x: i64,
    ) -> Result<f64, TableError>;
    /// One turn of `state` at `x`, up to `last`: `visit(layer, values)` receives each
    /// layer's value of every multiset (see [`Layer`]).
    fn turn_at(
        &self,
        state: &crate::game::state::State,
        x: i64,
        last: Layer,
        visit: &mut dyn FnMut(Layer, &[f64]),
    ) -> Result<(), TableError>;
}

impl OptionPrices for VectorTable<f32> {
    fn rules(&self) -> &Rules {
        VectorTable::rules(self)
    }

    fn after_box(
        &self,
        state: &crate::game::state::State,
        index: usize,
        points: u32,
        five_of_a_kind: bool,
        x: i64,
    ) -> Result<f64, TableError> {
        VectorTable::after_box(self, state, index, points, five_of_a_kind, x)
    }

    fn turn_at(
        &self,
        state: &crate::game::state::State,
        x: i64,
        last: Layer,
        visit: &mut dyn FnMut(Layer, &[f64]),
    ) -> Result<(), TableError> {
        VectorTable::turn_at(self, state, x, last, visit)
    }
}

/// Every option of `position` priced by the vector table `table` at coordinate `x` (the
/// points still needed for the target, the points banked for the win objective), best
/// first: ranked by that value, within 1e-9 by the expected final score, then by the usual
/// preference (the fewest dice kept, the box first on the card). Stopping to score takes
/// the box best by the same rule. Also returns the expected-score advice of the position,
/// which checks it.
pub(crate) fn price_options(
    ev: &StrategyTable,
    table: &impl OptionPrices,
    position: &Position,
    x: i64,
) -> Result<(crate::policy::expected::Advice, Vec<Priced>), TargetError> {
    if *table.rules() != *ev.rules() {
        return Err(TargetError::RulesMismatch {
            card: position.card.rules().label(),
            table: table.rules().label(),
        });
    }
    // The expected-score advice checks the position and prices every option on average.
    let advice = advise(ev, position)?;
    let state = position.card.state();
    let base = f64::from(position.card.banked());
    let dice = &position.dice;
    let five = dice.five_of_a_kind().is_some();
    let choices = box_choices(ev, &state, dice);
    let after_box = |c: &crate::policy::expected::BoxChoice| -> Result<f64, TableError> {
        table.after_box(&state, c.index, c.points, five, x)
    };
    let score = |c: &crate::policy::expected::BoxChoice| Action::Score {
        category: c.category.name,
        points: c.points,
        bonus: c.bonus,
        saves: None,
    };
    // Every option in the order of preference.
    let mut options: Vec<Priced> = Vec::new();
    if position.rolls_left == 0 {
        for c in &choices {
            options.push(Priced {
                action: score(c),
                value: after_box(c)?,
                expected_final: base + c.future,
                source: Source::Box(*c),
            });
        }
    } else {
        let layer = Layer::with_rolls_left(position.rolls_left)
            .expect("rolls left checked against the game's");
        let mut values = Vec::new();
        table.turn_at(&state, x, layer, &mut |l, v| {
            if l == layer {
                values.extend_from_slice(v);
            }
        })?;
        // Stopping scores the box best by the same rule.
        let mut stop = Preferred::new();
        for c in &choices {
            stop.offer(*c, (after_box(c)?, c.future));
        }
        let ev_of = |keep: &Keep| {
            advice
                .options
                .iter()
                .find(|o| matches!(&o.action, Action::Keep { keep: k, .. } if k == keep))
                .map_or(f64::NAN, |o| o.expected_final)
        };
        for keep in dice.keeps_by_preference() {
            if keep.len() == dice.len() {
                if let Some((c, (p, _))) = stop.best() {
                    options.push(Priced {
                        action: Action::Keep {
                            keep: *keep,
                            stop_and_score: Some(c.category.name),
                        },
                        value: p,
                        expected_final: base + c.future,
                        source: Source::Box(c),
                    });
                }
            } else {
                options.push(Priced {
                    expected_final: ev_of(keep),
                    action: Action::Keep {
                        keep: *keep,
                        stop_and_score: None,
                    },
                    value: values[keep.index()],
                    source: Source::Keep(*keep),
                });
            }
        }
    }
    let values: Vec<(f64, f64)> = options
        .iter()
        .map(|o| (o.value, o.expected_final))
        .collect();
    let mut slots: Vec<Option<Priced>> = options.into_iter().map(Some).collect();
    let ranked = rank_by_preference(&values)
        .into_iter()
        .filter_map(|i| slots[i].take())
        .collect();
    Ok((advice, ranked))
}

/// Advises on `position` for a final score of at least `target`, with the target table
/// `targets` and the expected-score table `ev` of the position's rules.
pub fn advise_target(
    ev: &StrategyTable,
    targets: &VectorTable<f32>,
    position: &Position,
    target: u32,
) -> Result<TargetAdvice, TargetError> {
    let rules = *ev.rules();
    let state = position.card.state();
    let banked = position.card.banked();
    let needed = i64::from(target) - i64::from(banked);
    let (advice, priced) = price_options(ev, targets, position, needed)?;
    let dice = &position.dice;
    // The most a box choice leads to: its points and bonus, then the most after it.
    let most_after = |dice: &crate::game::dice::Dice, c: usize| -> i64 {
        let points = rules.score(c, dice, state.filled);
        let gain = points + state.bonus_for(&rules, c, points, dice.five_of_a_kind().is_some());
        i64::from(gain) + i64::from(max_remaining(&rules, &state.after(&rules, c, points)))
    };
    // The most a roll leads to, each roll's worked out once (by its index among the rolls).
    let mut most_of_roll: Vec<Option<i64>> = vec![None; rules.dice().rolls()];
    let mut most_with = |dice: &crate::game::dice::Dice| -> i64 {
        *most_of_roll[dice.index() - rules.dice().first_roll()].get_or_insert_with(|| {
            set_bits(u64::from(rules.legal_boxes(state.filled, dice)))
                .map(|c| most_after(dice, c))
                .max()
                .unwrap_or(0)
        })
    };
    // Whether some roll that keeps `keep` leads to `needed` (with rolls left, any such roll
    // can come). An option with a chance of reaching it reaches it, so only the options
    // with none need the bound: with rolls left that is a search over the rolls.
    let mut reachable = |source: &Source, p: f64| -> bool {
        if p > 0.0 {
            return true;
        }
        match source {
            Source::Box(c) => most_after(dice, c.index) >= needed,
            Source::Keep(keep) => rules
                .dice()
                .all_rolls()
                .filter(|d| keep.is_within(d))
                .any(|d| most_with(&d) >= needed),
        }
    };
    let best_p = priced.first().map_or(0.0, |o| o.value);
    let best_ev = advice.options.first().map_or(0.0, |o| o.expected_final);
    let options: Vec<TargetOption> = priced
        .into_iter()
        .map(|o| TargetOption {
            reachable: reachable(&o.source, o.value),
            action: o.action,
            p_reach: o.value,
            loss: best_p - o.value,
            expected_final: o.expected_final,
            expected_loss: best_ev - o.expected_final,
        })
        .collect();
    Ok(TargetAdvice {
        rules,
        target,
        banked,
        needed,
        dice: dice.faces(),
        rolls_left: position.rolls_left,
        p_reach: best_p,
        reachable: options.iter().any(|o| o.reachable),
        tail: targets.tail(),
        options,
    })
}

/// The target policy in one turn of one state: which dice to keep and which box to fill, to
/// reach a final score of at least the target, with the points banked so far. Ties in
/// chance (within 1e-9) go to the higher expected final score, then to the usual preference
/// (the fewest dice kept, the box first on the card): once the target is reached, or out of
/// reach, this is the expected-score policy. What the bots, the simulation and the exports
/// play for a target.
///
/// More generally ([`TargetTurn::mixture`]) it maximises a weighted sum of chances of
/// several targets, `sum of w * P*(t)`, each chance the best for its own target after the
/// choice: the fast policy of the win bot (`WinTurn` in `policy/win.rs`).
pub struct TargetTurn<'a> {
    ev: &'a StrategyTable,
    targets: &'a VectorTable<f32>,
    state: crate::game::state::State,
    /// Points still needed and their weights.
    weights: Vec<(i64, f64)>,
    /// The (weighted) chance of each keep.
    chances: Chances<'a>,
    /// The expected-score values of the turn, for ties.
    values: Arc<TurnValues>,
}

/// The chances of a [`TargetTurn`]'s keeps: computed whole for the turn, or summed on demand
/// from lanes shared with the turns of other games in the same state ([`TargetLanes`]).
enum Chances<'a> {
    Whole {
        /// The value of each keep with `n` rolls left at `by_rolls_left[n - 1]` (with one
        /// roll left, also of stopping, at the rolls' entries).
        by_rolls_left: Vec<Vec<f64>>,
    },
    Lanes {
        lanes: Arc<TargetLanes<'a>>,
        /// The lane of each weight (in the order of the weights) and the weight.
        picks: Vec<(usize, f64)>,
    },
}

/// The chances of one state's turn for several numbers of points needed, lane by lane, as
/// the kernel computes them ([`VectorTable::turn_lanes`], 16 at a time): what the fast win
/// policy's turns of many games in one state share. A [`TargetTurn::from_lanes`] of these
/// lanes is, bit for bit, the [`TargetTurn::mixture`] of the same weights: each lane is what
/// the kernel gives at its point whatever the other lanes, and the weighted sums are taken
/// in the mixture's order.
pub struct TargetLanes<'a> {
    ev: &'a StrategyTable,
    targets: &'a VectorTable<f32>,
    state: crate::game::state::State,
    /// The points needed of each lane, ascending.
    needed: Vec<i64>,
    /// Lane `l`'s value of multiset `i` with `n` rolls left at `by_rolls_left[n - 1][i *
    /// lanes + l]` (a keep's lanes side by side).
    by_rolls_left: Vec<Vec<f64>>,
    values: Arc<TurnValues>,
    /// The chance of each lane after filling a box, by (box, points, five of a kind), as
    /// [`VectorTable::after_box`] gives it; filled as the turns ask.
    after_boxes: Mutex<HashMap<AfterBox, Arc<[f64]>>>,
}

/// A box filled: (box, points, five of a kind).
type AfterBox = (usize, u32, bool);

impl<'a> TargetLanes<'a> {
    /// The lanes of `state` at each of `needed` (any order, repeats allowed).
    pub fn new(
        ev: &'a StrategyTable,
        targets: &'a VectorTable<f32>,
        state: &crate::game::state::State,
        mut needed: Vec<i64>,
    ) -> Result<TargetLanes<'a>, TableError> {
        use crate::tables::vector::MAX_TURN_LANES as N;
        let multisets = ev.rules().dice().multisets();
        needed.sort_unstable();
        needed.dedup();
        let width = needed.len();
        let rolls = ev.rules().rolls();
        let mut by_rolls_left = vec![vec![0.0; needed.len() * multisets]; keep_layers(rolls)];
        for (c, chunk) in needed.chunks(N).enumerate() {
            let mut xs = [chunk[0]; N];
            xs[..chunk.len()].copy_from_slice(chunk);
            targets.turn_lanes::<N>(state, &xs, Layer::first_decision(rolls), |layer, k| {
                let Some(n) = layer.rolls_left() else {
                    return;
                };
                let into = &mut by_rolls_left[usize::from(n) - 1];
                for (i, lanes) in k.iter().enumerate().take(multisets) {
                    let at = i * width + c * N;
                    into[at..at + chunk.len()].copy_from_slice(&lanes[..chunk.len()]);
                }
            })?;
        }
        Ok(TargetLanes {
            ev,
            targets,
            state: *state,
            needed,
            by_rolls_left,
            values: Arc::new(TurnValues::new(ev, state)),
            after_boxes: Mutex::default(),
        })
    }

    /// Each lane's chance after filling box `index` with `points` (`five`: the dice are five
    /// of a kind).
    fn after_box(&self, index: usize, points: u32, five: bool) -> Result<Arc<[f64]>, TableError> {
        let key = (index, points, five);
        let known = self
            .after_boxes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned();
        if let Some(v) = known {
            return Ok(v);
        }
        let v: Arc<[f64]> = self
            .needed
            .iter()
            .map(|&x| self.targets.after_box(&self.state, index, points, five, x))
            .collect::<Result<Vec<f64>, TableError>>()?
            .into();
        self.after_boxes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, Arc::clone(&v));
        Ok(v)
    }

    /// The state of the lanes.
    pub fn state(&self) -> &crate::game::state::State {
        &self.state
    }

    /// The lane of `needed` points, if the lanes hold it.
    fn lane(&self, needed: i64) -> Option<usize> {
        self.needed.binary_search(&needed).ok()
    }
}

impl<'a> TargetTurn<'a> {
    /// The turn of `state` with `needed` points still to score (the target less the points
    /// banked).
    pub fn new(
        ev: &'a StrategyTable,
        targets: &'a VectorTable<f32>,
        state: &crate::game::state::State,
        needed: i64,
    ) -> Result<TargetTurn<'a>, TableError> {
        TargetTurn::mixture(ev, targets, state, &[(needed, 1.0)])
    }

    /// The turn of `state` maximising `sum of w * P*(s', needed)` over `weights` of
    /// `(needed, w)`: the chances are computed 16 targets at a time by the kernel.
    pub fn mixture(
        ev: &'a StrategyTable,
        targets: &'a VectorTable<f32>,
        state: &crate::game::state::State,
        weights: &[(i64, f64)],
    ) -> Result<TargetTurn<'a>, TableError> {
        use crate::tables::vector::MAX_TURN_LANES as N;
        let multisets = ev.rules().dice().multisets();
        let rolls = ev.rules().rolls();
        let last = Layer::first_decision(rolls);
        let mut by_rolls_left = vec![vec![0.0; multisets]; keep_layers(rolls)];
        // Adds a layer of keeps' values to its own (the opening's are not kept).
        let mut add = |layer: Layer, k: &[f64]| {
            if let Some(n) = layer.rolls_left() {
                for (x, y) in by_rolls_left[usize::from(n) - 1].iter_mut().zip(k) {
                    *x += y;
                }
            }
        };
        if let [(needed, w)] = weights {
            // One target: one lane.
            targets.turn_lanes::<1>(state, &[*needed], last, |layer, k| {
                let k: Vec<f64> = k.iter().map(|v| w * v[0]).collect();
                add(layer, &k);
            })?;
        } else {
            for chunk in weights.chunks(N) {
                let mut xs = [chunk[0].0; N];
                let mut ws = [0.0; N];
                for (l, &(x, w)) in chunk.iter().enumerate() {
                    xs[l] = x;
                    ws[l] = w;
                }
                targets.turn_lanes::<N>(state, &xs, last, |layer, k| {
                    let k: Vec<f64> = k
                        .iter()
                        .map(|v| v.iter().zip(&ws).map(|(v, w)| v * w).sum())
                        .collect();
                    add(layer, &k);
                })?;
            }
        }
        Ok(TargetTurn {
            ev,
            targets,
            state: *state,
            weights: weights.to_vec(),
            chances: Chances::Whole { by_rolls_left },
            values: Arc::new(TurnValues::new(ev, state)),
        })
    }

    /// [`TargetTurn::mixture`] of `weights` from `lanes`, which hold every point needed of
    /// the weights (`None` when one is missing): bit for bit the same turn, its chances summed
    /// on demand, so a turn that looks at a few keeps costs a few sums.
    pub fn from_lanes(
        lanes: &Arc<TargetLanes<'a>>,
        weights: &[(i64, f64)],
    ) -> Option<TargetTurn<'a>> {
        let picks = weights
            .iter()
            .map(|&(needed, w)| Some((lanes.lane(needed)?, w)))
            .collect::<Option<Vec<_>>>()?;
        Some(TargetTurn {
            ev: lanes.ev,
            targets: lanes.targets,
            state: lanes.state,
            weights: weights.to_vec(),
            chances: Chances::Lanes {
                lanes: Arc::clone(lanes),
                picks,
            },
            values: Arc::clone(&lanes.values),
        })
    }

    /// The chance of keeping `keep` with `rolls_left` (1 to the game's rolls less one) rolls
    /// left (all the dice: stopping to fill the best box for the target); for a mixture, the
    /// weighted sum.
    pub fn keep_chance(&self, rolls_left: u8, keep: &crate::game::dice::Keep) -> f64 {
        use crate::tables::vector::MAX_TURN_LANES as N;
        let i = keep.index();
        // Stopping reads the layer of one roll left (the rolls' entries: the best box).
        let n = if keep.len() == self.ev.rules().dice().dice() {
            0
        } else {
            usize::from(rolls_left.max(1)) - 1
        };
        match &self.chances {
            Chances::Whole { by_rolls_left } => by_rolls_left[n][i],
            Chances::Lanes { lanes, picks } => {
                let layer = &lanes.by_rolls_left[n];
                let row = &layer[i * lanes.needed.len()..(i + 1) * lanes.needed.len()];
                let v = |lane: usize| row[lane];
                if let [(lane, w)] = picks[..] {
                    return w * v(lane);
                }
                // As the mixture sums: 16 lanes at a time (the last padded with its first
                // lane, weighing 0), each chunk's sum added in turn.
                let mut total = 0.0;
                for chunk in picks.chunks(N) {
                    let s: f64 = (0..N)
                        .map(|l| match chunk.get(l) {
                            Some(&(lane, w)) => v(lane) * w,
                            None => v(chunk[0].0) * 0.0,
                        })
                        .sum();
                    total += s;
                }
                total
            }
        }
    }

    /// The keep of the target policy for `dice` with `rolls_left` (1 to the game's rolls
    /// less one) rolls left.
    pub fn best_keep(
        &self,
        rolls_left: u8,
        dice: &crate::game::dice::Dice,
    ) -> crate::game::dice::Keep {
        let mut best = Preferred::new();
        for &keep in dice.keeps_by_preference() {
            let value = (
                self.keep_chance(rolls_left, &keep),
                self.values.keep_value(rolls_left, &keep),
            );
            best.offer(keep, value);
        }
        best.best().expect("every roll has a keep").0
    }

    /// The box of the target policy for `dice` with no roll left, and its chance (for a
    /// mixture, the weighted sum).
    pub fn best_box(
        &self,
        dice: &crate::game::dice::Dice,
    ) -> Result<(crate::policy::expected::BoxChoice, f64), TableError> {
        let five = dice.five_of_a_kind().is_some();
        let mut best = Preferred::new();
        for c in box_choices(self.ev, &self.state, dice) {
            let mut p = 0.0;
            match &self.chances {
                Chances::Whole { .. } => {
                    for &(needed, w) in &self.weights {
                        p += w * self.targets.after_box(
                            &self.state,
                            c.index,
                            c.points,
                            five,
                            needed,
                        )?;
                    }
                }
                Chances::Lanes { lanes, picks } => {
                    // The same sum, from the lanes' chances.
                    let after = lanes.after_box(c.index, c.points, five)?;
                    for &(lane, w) in picks {
                        p += w * after[lane];
                    }
                }
            }
            best.offer((c, p), (p, c.future));
        }
        Ok(best.best().expect("an open card has a legal box").0)
    }
}
/// The layers of keeps of a turn of `rolls` rolls: one per re-roll.
fn keep_layers(rolls: u8) -> usize {
    usize::from(rolls) - 1
}

/// What the target policy plays with: the two tables of the rules, every card of the target
/// table read and checked (so that no turn of a game can fail), and the target.
#[derive(Clone, Copy)]
pub struct TargetPlayer<'a> {
    ev: &'a StrategyTable,
    targets: &'a VectorTable<f32>,
    target: u32,
}

impl<'a> TargetPlayer<'a> {
    /// A player for `target` with the expected-score table `ev` and the target table
    /// `targets` of the same rules. Reads every card of `targets` first (a table loaded from
    /// a file reads them on first use), so that a damaged file is an error here.
    pub fn new(
        ev: &'a StrategyTable,
        targets: &'a VectorTable<f32>,
        target: u32,
    ) -> Result<TargetPlayer<'a>, TargetError> {
        TargetPlayer::from_state(ev, targets, target, &State::START)
    }

    /// [`TargetPlayer::new`] for games from `start` on: reads only the cards that follow
    /// it, so a reduced target table ([`crate::solve::vector::solve_reduced`]) serves.
    pub fn from_state(
        ev: &'a StrategyTable,
        targets: &'a VectorTable<f32>,
        target: u32,
        start: &State,
    ) -> Result<TargetPlayer<'a>, TargetError> {
        let rules = *ev.rules();
        if *targets.rules() != rules {
            return Err(TargetError::RulesMismatch {
                card: rules.label(),
                table: targets.rules().label(),
            });
        }
        targets.check_cards_from(start.filled)?;
        Ok(TargetPlayer {
            ev,
            targets,
            target,
        })
    }

    /// The target score.
    pub fn target(&self) -> u32 {
        self.target
    }

    /// The points still needed in `state` with `banked` points on the card, where the target
    /// policy can differ from the optimal policy: `None` when the target is reached
    /// (`needed <= 0`) or out of reach (`needed` above [`max_remaining`]), where both
    /// policies are the same.
    pub fn needed(&self, state: &State, banked: u32) -> Option<i64> {
        let needed = i64::from(self.target) - i64::from(banked);
        (needed > 0 && needed <= i64::from(max_remaining(self.ev.rules(), state))).then_some(needed)
    }

    /// The target policy's turn of `state` with `needed` points still needed.
    pub fn turn_for(&self, state: &State, needed: i64) -> TargetTurn<'a> {
        TargetTurn::new(self.ev, self.targets, state, needed)
            .expect("every card of the target table was read when the player was made")
    }

    /// The expected-score table.
    pub fn ev(&self) -> &'a StrategyTable {
        self.ev
    }

    /// The target table.
    pub fn targets(&self) -> &'a VectorTable<f32> {
        self.targets
    }
}
