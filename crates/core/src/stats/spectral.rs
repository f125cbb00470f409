//! The exact forward pass ([`super::exact_forward`]) of a card too large for a histogram of
//! points per state: more than 15 boxes (Maxi Yatzy's 20). There, two adjacent depths hold
//! 20 million states whose histograms are up to 400 points wide: about 40 GB.
//!
//! Each state carries instead the discrete Fourier transform of its histogram at a few
//! frequencies, `E[w^(f * banked)]` with `w = exp(-2 pi i / n)` and `n` one more than the
//! highest score of the game: moving a histogram by `a` points multiplies its transform at
//! frequency `f` by `w^(f * a)`, so every event of a turn is a complex multiply-add per
//! frequency, lane by lane. The memory of a pass grows with its frequencies, not with the
//! width of the histograms; the passes together cover the frequencies `0..=n/2` (the others
//! are their conjugates: the histogram is real), each pass running the turns of every state
//! again ([`super::card_events`]). The final-score distribution is the inverse transform of
//! the sum of the last depth's transforms (and each [`Part`]'s likewise): exact but for
//! rounding, each probability to within about 1e-15 of its value (a tail below that rounds to
//! 0 or to noise of that size; the lowest and highest scores come from the points banked,
//! carried as whole numbers).
//!
//! The first pass also gathers what does not need the transform: the chance of reaching each
//! state ([`Visits`]), the per-box figures, the upper bonus and the Yahtzee bonuses.
//!
//! Determinism: a depth's cards are taken in chunks in a fixed order; within a chunk the
//! turns run in parallel and each successor sums its contributions by box, predecessor slot
//! and event, as [`super::exact_forward`] does; the chunk's sums are added in chunk order.
//! A frequency's operations do not depend on which pass or how many frequencies a pass holds,
//! so the result is the same at any thread count and any memory budget.

use std::f64::consts::TAU;

use rayon::prelude::*;

use super::{
    Forward, Seed, TurnEvent, block_slot, card_events, fills_fifty, final_part, state_of,
    tally_turn,
};
use crate::game::rules::{BoxMask, Rules, highest_score};
use crate::game::state::{ScoreCard, cards_by_depth, reachable_upper_totals, set_bits};
use crate::memory;
use crate::stats::distribution::{Part, Tally};
use crate::stats::visits::Visits;
use crate::tables::expected::StrategyTable;

/// Cards of one depth whose turns are computed together before their mass moves on.
const CHUNK: usize = 2048;

/// Not reached: the place of a slot without a state in [`CardMass::at`].
const NONE: u32 = u32::MAX;

/// The frequencies one pass carries for every state, and their twiddle factors.
struct Pass {
    /// The length of the transform: one more than the highest score of the game.
    n: usize,
    /// The first frequency of the pass.
    first: usize,
    /// How many frequencies it carries.
    width: usize,
    /// `twiddle[a]`: `w^(f * a)` for each frequency `f` of the pass, the real parts then the
    /// imaginary parts: the factor of a move by `a` points.
    twiddle: Vec<Vec<f64>>,
    /// Numbers per state for the Yahtzee bonuses earned (their counts 0 and up).
    bonus_width: usize,
}

impl Pass {
    fn new(rules: &Rules, n: usize, first: usize, width: usize) -> Pass {
        let most_banked = (0..rules.box_count())
            .map(|b| rules.max_score(b))
            .max()
            .unwrap_or(0)
            + rules.upper_bonus_points()
            + rules.yahtzee_bonus_points();
        let twiddle = (0..=most_banked as usize)
            .map(|a| {
                let mut t = vec![0.0; 2 * width];
                for k in 0..width {
                    (t[k], t[width + k]) = twiddle(first + k, a, n);
                }
                t
            })
            .collect();
        Pass {
            n,
            first,
            width,
            twiddle,
            bonus_width: bonus_width(rules),
        }
    }

    /// Numbers per state: the transform's real and imaginary parts, then the bonuses.
    fn stride(&self) -> usize {
        2 * self.width + self.bonus_width
    }
}

/// `w^(f * a)` at the frequency `f` of a transform of length `n`: the factor of a move by `a`
/// points, its real and imaginary parts. The angle comes from the whole number `f * a mod n`:
/// exact whatever `a`.
fn twiddle(f: usize, a: usize, n: usize) -> (f64, f64) {
    let angle = -TAU * ((f * a) % n) as f64 / n as f64;
    (angle.cos(), angle.sin())
}

/// The mass of the states of one card reached in a pass.
#[derive(Default)]
struct CardMass {
    /// `at[slot]` ([`block_slot`]): the state's place in the arrays below, or [`NONE`].
    at: Vec<u32>,
    /// Per state, [`Pass::stride`] numbers: its transform's real parts, its imaginary parts,
    /// then the chance of each count of Yahtzee bonuses earned.
    mass: Vec<f64>,
    /// Per state, the fewest and the most points banked with a nonzero chance.
    banked: Vec<(u32, u32)>,
}

impl CardMass {
    fn empty(blocks: usize) -> CardMass {
        CardMass {
            at: vec![NONE; blocks],
            mass: Vec::new(),
            banked: Vec::new(),
        }
    }

    /// The reached slots with their places, in slot order.
    fn reached(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.at
            .iter()
            .enumerate()
            .filter(|&(_, &i)| i != NONE)
            .map(|(k, &i)| (k, i as usize))
    }

    /// The place of `slot`, made (zero mass, an empty range) if it has none.
    fn place(&mut self, slot: usize, stride: usize) -> usize {
        if self.at[slot] == NONE {
            self.at[slot] = self.banked.len() as u32;
            self.banked.push((u32::MAX, 0));
            self.mass.resize(self.mass.len() + stride, 0.0);
        }
        self.at[slot] as usize
    }

    /// Adds `other` (of the same card) to this one.
    fn add(&mut self, other: &CardMass, stride: usize) {
        for (k, j) in other.reached() {
            let i = self.place(k, stride);
            let (lo, hi) = other.banked[j];
            let b = &mut self.banked[i];
            *b = (b.0.min(lo), b.1.max(hi));
            for (d, s) in self.mass[i * stride..(i + 1) * stride]
                .iter_mut()
                .zip(&other.mass[j * stride..(j + 1) * stride])
            {
                *d += s;
            }
        }
    }
}

/// The transforms the passes gather at the last depth: of every game and of each [`Part`].
struct Finals {
    /// `spectrum[0]` for every game, `spectrum[1 + part]` for each part: the real and the
    /// imaginary part of each frequency `0..=n/2`.
    spectrum: Vec<Vec<(f64, f64)>>,
    /// The fewest and most points of every game and of each part.
    banked: Vec<(u32, u32)>,
}

impl Finals {
    /// Nothing gathered yet, at `frequencies` frequencies.
    fn new(frequencies: usize) -> Finals {
        Finals {
            spectrum: vec![vec![(0.0, 0.0); frequencies]; 5],
            banked: vec![(u32::MAX, 0); 5],
        }
    }
}

/// Numbers per state for the Yahtzee bonuses earned (their counts 0 and up): one (no bonus
/// earned) in a game without them.
fn bonus_width(rules: &Rules) -> usize {
    if rules.has_yahtzee_bonus() {
        rules.box_count()
    } else {
        1
    }
}

/// [`super::exact_forward`] by transforms, with at most `per_pass` frequencies a pass.
pub(super) fn forward(
    table: &StrategyTable,
    per_pass: usize,
    seeds: &[Seed],
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Forward {
    let rules = *table.rules();
    let n = highest_score(&rules) as usize + 1;
    let frequencies = n / 2 + 1;
    let per_pass = per_pass.clamp(1, frequencies);
    let passes = frequencies.div_ceil(per_pass);
    // The frequencies spread evenly over the passes.
    let per_pass = frequencies.div_ceil(passes);
    let depths = rules.box_count() - Seed::depth_of(&rules, seeds);
    let steps = (passes * depths) as u64;
    let mut tally = Tally::new(&rules);
    let mut visits = Visits::new(&rules);
    let mut finals = Finals::new(frequencies);
    progress(0, steps);
    for p in 0..passes {
        let first = p * per_pass;
        let pass = Pass::new(&rules, n, first, per_pass.min(frequencies - first));
        // The first pass gathers the figures that do not need the transform.
        let figures = (p == 0).then_some((&mut tally, &mut visits));
        run_pass(table, &pass, seeds, figures, &mut finals, &|depth| {
            progress((p * depths + depth) as u64, steps)
        });
    }
    let score = inverse(&finals.spectrum[0], n, finals.banked[0]);
    for (s, &m) in score.iter().enumerate() {
        if m > 0.0 {
            tally.add_score(s as u32, m);
        }
    }
    for part in 0..4 {
        let mass = inverse(&finals.spectrum[1 + part], n, finals.banked[1 + part]);
        for (s, &m) in mass.iter().enumerate() {
            if m > 0.0 {
                tally.add_part(Part::at(part), s as u32, m);
            }
        }
    }
    Forward {
        tally,
        visits,
        joint: None,
    }
}

/// The chance of reaching each state, alone: one pass at the frequency 0 (the mass itself).
pub(super) fn visits(table: &StrategyTable, progress: &(dyn Fn(u64, u64) + Sync)) -> Visits {
    let rules = *table.rules();
    let n = highest_score(&rules) as usize + 1;
    let mut tally = Tally::new(&rules);
    let mut visits = Visits::new(&rules);
    let mut finals = Finals::new(n / 2 + 1);
    let boxes = rules.box_count() as u64;
    progress(0, boxes);
    run_pass(
        table,
        &Pass::new(&rules, n, 0, 1),
        &[Seed::of_card(&ScoreCard::new(rules))],
        Some((&mut tally, &mut visits)),
        &mut finals,
        &|depth| progress(depth as u64, boxes),
    );
    visits
}

/// One pass over every depth at the frequencies of `pass`, adding the last depth's
/// transforms to `finals`, and (the first pass) the visits and the per-box figures.
fn run_pass(
    table: &StrategyTable,
    pass: &Pass,
    seeds: &[Seed],
    mut figures: Option<(&mut Tally, &mut Visits)>,
    finals: &mut Finals,
    progress: &dyn Fn(usize),
) {
    let rules = *table.rules();
    let layout = *table.layout();
    let slots = layout.flags * layout.lanes;
    let stride = pass.stride();
    let by_depth = cards_by_depth(&rules);
    let mut layer: Vec<Option<Box<CardMass>>> = (0..layout.masks).map(|_| None).collect();
    for seed in seeds {
        let card = layer[seed.state.filled as usize]
            .get_or_insert_with(|| Box::new(CardMass::empty(2 * slots)));
        let i = card.place(block_slot(&layout, &seed.state, seed.fifty), stride);
        let mass = &mut card.mass[i * stride..(i + 1) * stride];
        for f in 0..pass.width {
            let (re, im) = twiddle(pass.first + f, seed.banked as usize, pass.n);
            mass[f] += seed.mass * re;
            mass[pass.width + f] += seed.mass * im;
        }
        mass[2 * pass.width + seed.bonuses] += seed.mass;
        let range = &mut card.banked[i];
        *range = (range.0.min(seed.banked), range.1.max(seed.banked));
    }
    let first = Seed::depth_of(&rules, seeds);
    let mut events_of: Vec<Option<Vec<Option<Vec<TurnEvent>>>>> =
        (0..layout.masks).map(|_| None).collect();
    for (depth, cards) in by_depth[..rules.box_count()].iter().enumerate().skip(first) {
        let mut next: Vec<Option<Box<CardMass>>> = (0..layout.masks).map(|_| None).collect();
        for chunk in cards.chunks(CHUNK) {
            // The turns of the chunk's states reached, in parallel.
            let turns: Vec<(BoxMask, Vec<Option<Vec<TurnEvent>>>)> = chunk
                .par_iter()
                .filter_map(|&m| {
                    let card = layer[m as usize].as_ref()?;
                    let reached =
                        |slot: usize| card.at[slot] != NONE || card.at[slots + slot] != NONE;
                    Some((m, card_events(table, m, reached)))
                })
                .collect();
            let mut successors: Vec<BoxMask> = Vec::new();
            for (m, events) in turns {
                let card = layer[m as usize].as_ref().expect("a card with turns");
                if let Some((tally, visits)) = figures.as_mut() {
                    for (k, i) in card.reached() {
                        let reach = card.mass[i * stride];
                        visits.add(&state_of(&layout, m, k % slots), reach);
                        let ev = events[k % slots]
                            .as_ref()
                            .expect("the turn of a state reached");
                        tally_turn(tally, reach, ev);
                    }
                }
                for e in events.iter().flatten().flatten() {
                    successors.push(m | (1 << e.box_index));
                }
                events_of[m as usize] = Some(events);
            }
            successors.sort_unstable();
            successors.dedup();
            // Each successor's sums from this chunk, in parallel; then added to its mass.
            let sums: Vec<CardMass> = successors
                .par_iter()
                .map(|&s| gather(table, pass, &layer, &events_of, s))
                .collect();
            let mut taken: Vec<Option<Box<CardMass>>> = successors
                .iter()
                .map(|&s| next[s as usize].take())
                .collect();
            taken.par_iter_mut().zip(&sums).for_each(|(mass, sum)| {
                mass.get_or_insert_with(|| Box::new(CardMass::empty(2 * slots)))
                    .add(sum, stride);
            });
            for (&s, mass) in successors.iter().zip(taken) {
                next[s as usize] = mass;
            }
            for &m in chunk {
                layer[m as usize] = None;
                events_of[m as usize] = None;
            }
        }
        layer = next;
        progress(depth + 1 - first);
    }
    for (m, card) in layer.iter().enumerate() {
        let Some(card) = card else {
            continue;
        };
        for (k, i) in card.reached() {
            let state = state_of(&layout, m as BoxMask, k % slots);
            let mass = &card.mass[i * stride..(i + 1) * stride];
            if let Some((tally, visits)) = figures.as_mut() {
                visits.add(&state, mass[0]);
                for (count, &p) in mass[2 * pass.width..].iter().enumerate() {
                    if p != 0.0 {
                        tally.add_yahtzee_bonuses(count, p);
                    }
                }
            }
            let part = final_part(&rules, &state, k >= slots);
            for at in [0, 1 + part.index()] {
                for f in 0..pass.width {
                    let s = &mut finals.spectrum[at][pass.first + f];
                    s.0 += mass[f];
                    s.1 += mass[pass.width + f];
                }
                let (lo, hi) = card.banked[i];
                let b = &mut finals.banked[at];
                *b = (b.0.min(lo), b.1.max(hi));
            }
        }
    }
}

/// The sums into card `next` from its predecessors whose turns are in `events_of`: each
/// predecessor's transforms moved by its events of the box that makes `next`, by box, then
/// predecessor slot, then event.
fn gather(
    table: &StrategyTable,
    pass: &Pass,
    layer: &[Option<Box<CardMass>>],
    events_of: &[Option<Vec<Option<Vec<TurnEvent>>>>],
    next: BoxMask,
) -> CardMass {
    let rules = table.rules();
    let layout = table.layout();
    let slots = layout.flags * layout.lanes;
    let (width, stride) = (pass.width, pass.stride());
    let mut sum = CardMass::empty(2 * slots);
    for b in set_bits(next) {
        let m = next & !(1 << b);
        let (Some(card), Some(events)) = (&layer[m as usize], &events_of[m as usize]) else {
            continue;
        };
        for (k, i) in card.reached() {
            let Some(ev) = &events[k % slots] else {
                continue;
            };
            let state = state_of(layout, m, k % slots);
            let fifty = k >= slots;
            let from = ev.partition_point(|e| usize::from(e.box_index) < b);
            let source = &card.mass[i * stride..(i + 1) * stride];
            let (lo, hi) = card.banked[i];
            for e in ev[from..]
                .iter()
                .take_while(|e| usize::from(e.box_index) == b)
            {
                let points = u32::from(e.points);
                let after = state.after(rules, b, points);
                let slot = block_slot(layout, &after, fifty || fills_fifty(rules, b, points));
                let j = sum.place(slot, stride);
                let shift = e.banked();
                let range = &mut sum.banked[j];
                *range = (range.0.min(lo + shift), range.1.max(hi + shift));
                let target = &mut sum.mass[j * stride..(j + 1) * stride];
                let t = &pass.twiddle[shift as usize];
                let p = e.probability;
                let (re, rest) = target.split_at_mut(width);
                let (im, bonuses) = rest.split_at_mut(width);
                for f in 0..width {
                    let (tr, ti) = (t[f], t[width + f]);
                    let (sr, si) = (source[f], source[width + f]);
                    re[f] += p * (tr * sr - ti * si);
                    im[f] += p * (tr * si + ti * sr);
                }
                let up = usize::from(e.yahtzee_bonus());
                for (d, s) in bonuses[up..]
                    .iter_mut()
                    .zip(&source[2 * width..stride - up])
                {
                    *d += p * s;
                }
            }
        }
    }
    sum
}

/// The histogram whose transform at the frequencies `0..=n/2` is `spectrum` (the others
/// their conjugates), from the fewest points `banked.0` to the most `banked.1`; 0 elsewhere and
/// where rounding leaves a value below 0.
fn inverse(spectrum: &[(f64, f64)], n: usize, banked: (u32, u32)) -> Vec<f64> {
    let (lo, hi) = banked;
    if lo > hi {
        return Vec::new();
    }
    let mut out = vec![0.0; hi as usize + 1];
    for (s, o) in out.iter_mut().enumerate().skip(lo as usize) {
        let mut sum = spectrum[0].0;
        for (f, &(re, im)) in spectrum.iter().enumerate().skip(1) {
            let angle = TAU * ((f * s) % n) as f64 / n as f64;
            // A frequency and its conjugate count twice, but for `n/2` of an even `n`.
            let twice = if 2 * f == n { 1.0 } else { 2.0 };
            sum += twice * (re * angle.cos() - im * angle.sin());
        }
        *o = (sum / n as f64).max(0.0);
    }
    out
}

/// The states of each depth of `rules` as a pass holds them (both halves of a card whose
/// five-of-a-kind box is filled, 0 or its points).
fn states_by_depth(rules: &Rules) -> Vec<u64> {
    let five = rules.five_of_a_kind_box();
    let mut by_depth = vec![0u64; rules.box_count() + 1];
    for (depth, cards) in cards_by_depth(rules).iter().enumerate() {
        for &m in cards {
            let halves = if five.is_some_and(|b| m & (1 << b) != 0) {
                2
            } else {
                1
            };
            // `state::card_states(rules, m).len()`, counted without making them.
            let flags = if rules.has_yahtzee_bonus() { 2 } else { 1 };
            let states = flags * u64::from(reachable_upper_totals(rules, m).count_ones());
            by_depth[depth] += halves * states;
        }
    }
    by_depth
}

/// The bytes a pass holds for each state at `width` frequencies: a real and an imaginary
/// part per frequency, the bonuses, the range banked and the slot's place.
fn state_bytes(rules: &Rules, width: usize) -> u64 {
    16 * width as u64 + 8 * bonus_width(rules) as u64 + 8 + 8
}

/// How the exact distribution of a game is computed by transforms within a memory budget
/// ([`plan`]), and what it takes: what a front end says before the work, and refuses when
/// even one frequency a pass does not fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// The frequencies of the transform (half the scores, the others their conjugates).
    pub frequencies: usize,
    /// The most frequencies a pass carries within the budget (at most all).
    pub per_pass: usize,
    /// The passes over every state, each carrying a share of the frequencies.
    pub passes: usize,
    /// Bytes the passes may hold at most: the states of the two largest adjacent depths at
    /// the frequencies of a pass (a pass holds about one depth's: about a third of it).
    pub memory: u64,
    /// The states of its largest depth (counted as [`Plan::states`]).
    pub largest_depth: u64,
    /// Bytes a pass holds at least: the largest depth's states at one frequency.
    pub least_memory: u64,
    /// The states every pass carries: each state of the game, twice where the
    /// five-of-a-kind box is filled (0 or its points).
    pub states: u64,
}

/// The plan of the passes of `rules` within `budget` bytes: as many frequencies a pass as
/// the two largest adjacent depths' states can carry (at least 1), spread evenly over the
/// passes. Milliseconds, a fraction of a second for a card of 20 boxes.
pub fn plan(rules: &Rules, budget: u64) -> Plan {
    let by_depth = states_by_depth(rules);
    let peak = by_depth
        .windows(2)
        .map(|w| w[0] + w[1])
        .max()
        .unwrap_or(1)
        .max(1);
    let largest_depth = by_depth.iter().max().copied().unwrap_or(1);
    let fixed = state_bytes(rules, 0);
    let within = ((budget / peak).saturating_sub(fixed) / 16).max(1) as usize;
    // As `forward` counts them: half the scores of a transform of length `n`, and one.
    let n = highest_score(rules) as usize + 1;
    let frequencies = n / 2 + 1;
    // As `forward` spreads them.
    let per_pass = within.clamp(1, frequencies);
    let passes = frequencies.div_ceil(per_pass);
    Plan {
        frequencies,
        per_pass,
        passes,
        memory: peak * state_bytes(rules, frequencies.div_ceil(passes)),
        largest_depth,
        least_memory: largest_depth * state_bytes(rules, 1),
        states: by_depth.iter().sum(),
    }
}

/// The frequencies a pass can carry within `budget` bytes ([`plan`]). At least 1.
pub(super) fn frequencies_within(rules: &Rules, budget: u64) -> usize {
    plan(rules, budget).per_pass
}

/// The memory the passes of [`forward`] may use beside the expected-score table, of `table`
/// bytes, loaded already or not (`loaded`; not yet, what the system has available will go
/// down by it): what `$YAHTZEE_MEMORY_GIB` allows less the table when set, else half of
/// what the system has available beside the table ([`memory::available`]), at least half a
/// GiB either way, or 4 GiB where the system does not say. More memory, fewer passes: each
/// pass runs every turn of the game again.
pub(super) fn default_budget(table: u64, loaded: bool) -> u64 {
    match memory::available() {
        Some(a) if a.source == memory::Source::Env => {
            a.bytes.saturating_sub(table).max(memory::GIB / 2)
        }
        Some(a) => {
            let room = if loaded {
                a.bytes
            } else {
                a.bytes.saturating_sub(table)
            };
            (room / 2).max(memory::GIB / 2)
        }
        None => 4 * memory::GIB,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::{Order, RuleSet};
    use crate::solve::expected::SolveOptions;

    /// The transforms give the histograms' distribution: every probability to 1e-14, the same
    /// lowest and highest scores, the same parts, visits and per-box figures; and the same
    /// bits whatever the frequencies of a pass.
    #[test]
    fn transforms_give_the_histograms_distribution() {
        // Yacht: no bonus; Yahtzee (upper first, 191 cards): the upper bonus, 50 or 0 in its
        // box and the Yahtzee bonuses (1,576 scores: 789 frequencies).
        let games = [
            (Rules::new(RuleSet::YACHT), 40, usize::MAX),
            (
                Rules::with_order(RuleSet::YAHTZEE, Order::UpperFirst),
                100,
                usize::MAX,
            ),
        ];
        for (rules, few, many) in games {
            let table = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {}).0;
            let set = rules.set;
            let start = [Seed::of_card(&ScoreCard::new(rules))];
            let exact = super::super::histogram_forward(&table, &start, None, None, &|_, _| {});
            let by_7 = forward(&table, few, &start, &|_, _| {});
            let at_once = forward(&table, many, &start, &|_, _| {});
            assert_eq!(by_7.tally, at_once.tally, "{}", set.name);
            assert_eq!(by_7.visits, at_once.visits);
            assert_eq!(visits(&table, &|_, _| {}), by_7.visits);
            // Tails below the rounding are 0: the range lies within the histograms'.
            let (a, b) = (exact.tally.pmf(), by_7.tally.pmf());
            assert!(a[0].0 <= b[0].0 && b.last().unwrap().0 <= a.last().unwrap().0);
            let dense = |t: &Tally| t.score.clone();
            let (da, db) = (dense(&exact.tally), dense(&by_7.tally));
            for s in 0..da.len().max(db.len()) {
                let (x, y) = (
                    da.get(s).copied().unwrap_or(0.0),
                    db.get(s).copied().unwrap_or(0.0),
                );
                assert!(
                    (x - y).abs() < 1e-14,
                    "{}: P({s}) {x} against {y}",
                    set.name
                );
            }
            for (pa, pb) in exact.tally.parts.iter().zip(&by_7.tally.parts) {
                for s in 0..pa.len().max(pb.len()) {
                    let (x, y) = (
                        pa.get(s).copied().unwrap_or(0.0),
                        pb.get(s).copied().unwrap_or(0.0),
                    );
                    assert!((x - y).abs() < 1e-14);
                }
            }
            let mean = |pmf: &[(u32, f64)]| pmf.iter().map(|&(s, p)| f64::from(s) * p).sum::<f64>();
            assert!(
                (mean(&b) - table.expected_score()).abs() < 1e-9,
                "{}",
                mean(&b)
            );
            for (x, y) in exact.tally.boxes.iter().zip(&by_7.tally.boxes) {
                assert_eq!(x.len(), y.len());
                for (u, v) in x.iter().zip(y) {
                    assert!((u - v).abs() < 1e-13);
                }
            }
            assert!((exact.tally.upper_bonus - by_7.tally.upper_bonus).abs() < 1e-13);
            for (u, v) in exact
                .tally
                .yahtzee_bonuses
                .iter()
                .zip(&by_7.tally.yahtzee_bonuses)
            {
                assert!((u - v).abs() < 1e-13);
            }
            for (u, v) in exact
                .visits
                .in_state_order()
                .iter()
                .zip(by_7.visits.in_state_order())
            {
                assert!((u - v).abs() < 1e-13);
            }
        }
    }

    /// From a card with points banked, its five-of-a-kind box filled and a Yahtzee bonus
    /// earned, the transforms give the histograms' distribution too.
    #[test]
    fn transforms_from_a_card_give_the_histograms_distribution() {
        let rules = Rules::new(RuleSet::YAHTZEE);
        let table = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {}).0;
        let card = ScoreCard::parse(
            rules,
            "yahtzee=50,ones=3,twos=6,threes=9,fours=12,fives=15,small-straight=30,chance=20",
            1,
        )
        .unwrap();
        let start = [Seed::of_card(&card)];
        let exact = super::super::histogram_forward(&table, &start, None, None, &|_, _| {});
        let by_few = forward(&table, 50, &start, &|_, _| {});
        let (a, b) = (exact.tally.pmf(), by_few.tally.pmf());
        assert!(a[0].0 <= b[0].0 && b.last().unwrap().0 <= a.last().unwrap().0);
        for &(s, p) in &a {
            let q = b.iter().find(|&&(t, _)| t == s).map_or(0.0, |&(_, q)| q);
            assert!((p - q).abs() < 1e-14, "P({s}) {p} against {q}");
        }
        assert_eq!(exact.tally.parts.len(), by_few.tally.parts.len());
        let mean: f64 = b.iter().map(|&(s, p)| f64::from(s) * p).sum();
        let value = f64::from(card.banked()) + table.value(&card.state());
        assert!((mean - value).abs() < 1e-9, "{mean} against {value}");
        for (u, v) in exact
            .tally
            .yahtzee_bonuses
            .iter()
            .zip(&by_few.tally.yahtzee_bonuses)
        {
            assert!((u - v).abs() < 1e-13);
        }
    }
}
