//! The exact distribution of the final score under saved rolls (`shared/RULES.md`, section 8):
//! the forward pass of [`super`] with one more number in every state, the rolls saved.
//!
//! A turn-start state is a card, an upper total, a flag and the rolls saved `s`; it holds a
//! histogram of the points banked so far, as the states of the ordinary pass do. One turn of a
//! state ([`turn_events`]) ends in a box, its points, its bonus and the re-rolls left when the
//! box was filled, which are the next turn's rolls saved: the policy is the advice's
//! ([`SavedTurn::choose`], the tie rule of every advice), and its choices with `r` re-rolls
//! left depend on the card and `r` only, so the choices of every roll at every `r` are made
//! once for a state and shared by all its numbers of rolls saved. Each number of rolls saved
//! then carries the opening roll's chances down from its own re-rolls (`rolls - 1 + s`) to 0:
//! a roll whose choice is a box ends the turn there, saving the re-rolls left.
//!
//! The histograms move to the next depth as in the ordinary pass, each successor gathering
//! its predecessors' in a fixed order (box, predecessor, event), so the distribution is the
//! same bits at any thread count. The histograms of two depths are held at once: for Yatzy
//! with saved rolls, 24 million states and rolls saved with their histograms
//! (results/saved-rolls-stats-2026-12-06.md).

use rayon::prelude::*;

use crate::game::dice::Lattice;
use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{Layout, State, cards_by_depth, set_bits};
use crate::policy::saved::{Choice, Fills, SavedTurn};
use crate::solve::forward::{Kept, throw_kept};
use crate::stats::distribution::Tally;
use crate::tables::saved::SavedTable;

use super::{
    Block, Contribution, Histogram, TurnEvent, block_slot, fills_fifty, roll_dice, state_of,
    summed, tally_final, tally_turn,
};

thread_local! {
    /// The working arrays of [`turn_events`], each thread's own: the kinds of events and the
    /// values of the boxes by points, and the entries of the values to reset.
    static SCRATCH: std::cell::RefCell<(Vec<u16>, Vec<f64>, Vec<usize>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// One way a turn under saved rolls can end: the box, its points and bonus with their chance
/// ([`TurnEvent`]), and the re-rolls left when the box was filled (the next turn's rolls
/// saved).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SavedEvent {
    /// The box filled, its points, its bonus and the chance.
    pub event: TurnEvent,
    /// The re-rolls left, saved for the next turns.
    pub saves: u8,
}

/// Every way the turn of `state` can end under the optimal policy, for each number of rolls
/// saved of `saved`: `result[i]` for `saved[i]`, sorted by box, then points, then bonus, then
/// re-rolls saved. Each list's chances sum to 1 (to rounding), and its events' mean value
/// (their points and the table's value of the state after, with the re-rolls saved) is the
/// table's value of the state with those rolls saved.
pub fn turn_events(table: &SavedTable, state: &State, saved: &[usize]) -> Vec<Vec<SavedEvent>> {
    let rules = *table.rules();
    let space = rules.dice();
    let rerolls = usize::from(rules.rolls() - 1);
    let most = saved.iter().map(|&s| rerolls + s).max().unwrap_or(0);
    let turn = SavedTurn::new(table, *state, most);
    let dice = roll_dice(space);
    // The box of each roll's choice with each re-rolls left, as an event of this state
    // (`Err`), or its keep (`Ok`): made once for all the numbers of rolls saved.
    let boxes = rules.box_count();
    let mut kinds: Vec<TurnEvent> = Vec::new();
    let choices: Vec<Vec<Result<Kept, u16>>> = SCRATCH.with_borrow_mut(|scratch| {
        // A box's points and dice's five of a kind at `(index * 256 + points) * 2 + five`:
        // the event's kind (`u16::MAX`: none yet) and the value of filling it now (NaN: not
        // yet asked with these re-rolls left); each thread's, reset entry by entry after use.
        let (id_of, scored, touched) = scratch;
        if id_of.len() < boxes * 512 {
            id_of.resize(boxes * 512, u16::MAX);
            scored.resize(boxes * 512, f64::NAN);
        }
        let mut ids_used: Vec<usize> = Vec::new();
        let fills: Vec<Fills> = dice.iter().map(|d| turn.fills(d)).collect();
        let choices = (0..=most)
            .map(|r| {
                for at in touched.drain(..) {
                    scored[at] = f64::NAN;
                }
                dice.iter()
                    .zip(&fills)
                    .map(|(d, fills)| {
                        let (choice, _) = turn.choose(d, r, fills, |index, points, five| {
                            let at = (index * 256 + points as usize) * 2 + usize::from(five);
                            if scored[at].is_nan() {
                                scored[at] = turn.scored(index, points, five, r);
                                touched.push(at);
                            }
                            scored[at]
                        });
                        match choice {
                            Choice::Keep(k) => Ok(Kept::Keep(k)),
                            Choice::Score(index) => {
                                let (_, points) =
                                    fills.boxes[fills.boxes.partition_point(|&(i, _)| i < index)];
                                let five = fills.five;
                                let at = (index * 256 + points as usize) * 2 + usize::from(five);
                                if id_of[at] == u16::MAX {
                                    let bonuses = state.bonuses_for(&rules, index, points, five);
                                    id_of[at] = kinds.len() as u16;
                                    ids_used.push(at);
                                    kinds.push(TurnEvent {
                                        box_index: index as u8,
                                        points: points as u8,
                                        bonus: bonuses.points(&rules) as u16,
                                        bonuses,
                                        probability: 0.0,
                                    });
                                }
                                Err(id_of[at])
                            }
                        }
                    })
                    .collect()
            })
            .collect();
        for at in touched.drain(..) {
            scored[at] = f64::NAN;
        }
        for at in ids_used {
            id_of[at] = u16::MAX;
        }
        choices
    });
    // The kinds of events in the order of the lists.
    let mut order: Vec<usize> = (0..kinds.len()).collect();
    order.sort_by_key(|&k| (kinds[k].box_index, kinds[k].points, kinds[k].bonus));
    let lattice = Lattice::get();
    let first_roll = space.first_roll();
    let opening: Vec<f64> = (0..space.rolls())
        .map(|r| f64::from(lattice.ways[first_roll + r]) / f64::from(space.throws()))
        .collect();
    // The numbers of rolls saved [`LANES`] at a time, each in a lane of one pass: a lane
    // starts (its opening roll's chances) at its own re-rolls, and until then holds nothing,
    // so each lane's sums are those of a pass of its own, bit for bit.
    let mut lists = Vec::with_capacity(saved.len());
    for group in saved.chunks(LANES) {
        let top = rerolls + group.iter().max().expect("a group of one or more");
        let stride = top + 1;
        // `chance[kind * stride + r][lane]`: ending in event `kind` with `r` re-rolls left.
        let mut chance = vec![[0.0f64; LANES]; kinds.len() * stride];
        let mut p = vec![[0.0f64; LANES]; space.rolls()];
        let mut mass = vec![[0.0f64; LANES]; space.multisets()];
        for r in (0..=top).rev() {
            for (lane, &s) in group.iter().enumerate() {
                if rerolls + s == r {
                    for (q, &o) in p.iter_mut().zip(&opening) {
                        q[lane] = o;
                    }
                }
            }
            mass.fill([0.0; LANES]);
            for (roll, q) in p.iter().enumerate() {
                if q.iter().all(|&x| x == 0.0) {
                    continue;
                }
                let to = match choices[r][roll] {
                    Ok(Kept::Keep(k)) => &mut mass[usize::from(k)],
                    Ok(Kept::Stop) => unreachable!("a re-roll keeps fewer than all the dice"),
                    Err(kind) => &mut chance[usize::from(kind) * stride + r],
                };
                for (t, &x) in to.iter_mut().zip(q) {
                    *t += x;
                }
            }
            if r > 0 {
                throw_kept(lattice, first_roll, &mut mass);
                p.copy_from_slice(&mass[first_roll..]);
            }
        }
        for (lane, &s) in group.iter().enumerate() {
            let mut events = Vec::new();
            for &kind in &order {
                for r in 0..=rerolls + s {
                    let probability = chance[kind * stride + r][lane];
                    if probability > 0.0 {
                        events.push(SavedEvent {
                            event: TurnEvent {
                                probability,
                                ..kinds[kind]
                            },
                            saves: r as u8,
                        });
                    }
                }
            }
            lists.push(events);
        }
    }
    lists
}

/// The numbers of rolls saved of a state carried through its turn at once ([`turn_events`]).
const LANES: usize = 8;

/// The histograms of one card under saved rolls: a [`Block`] for each number of rolls saved,
/// one after the other (`saved * 2 * slots + block_slot`).
type SavedBlock = Block;

/// `Ok` when the exact distribution of `rules` (a game of saved rolls) is computed from a new
/// game (`from_start`: asked from a card or a position, refused) for the expected-score
/// policy (`target`: for a target, refused): cards of at most 15 boxes, whose histograms fit
/// in memory. Else the one line that says why, asked before any table is read.
pub fn check_saved_stats(rules: &Rules, from_start: bool, target: bool) -> Result<(), String> {
    let label = rules.label();
    if target {
        return Err(crate::tables::set::saved_rolls_only(
            rules,
            "a target (the target objective)",
        ));
    }
    if from_start {
        return Err(format!(
            "the exact distribution of {label} under saved rolls is computed from a new game alone: leave the card and the dice out"
        ));
    }
    if !rules.set.solves_in_seconds() {
        return Err(format!(
            "the exact distribution of {label} under saved rolls is computed for cards of at most 15 boxes: its pass would carry a histogram of the points banked beside each of its {} states and numbers of rolls saved, more than this machine holds; a simulation of the optimal policy's games (`simulate`) estimates it",
            crate::text::large_count(crate::tables::saved::saved_value_count(rules)),
        ));
    }
    Ok(())
}

/// The exact distribution of the final score of a game of saved rolls from an empty card
/// under the optimal policy of `table` (whole), with the per-box figures and the parts.
/// `progress(done, total)` is called after each depth.
pub fn saved_distribution(table: &SavedTable, progress: &(dyn Fn(u64, u64) + Sync)) -> Tally {
    assert!(table.is_whole(), "the whole table of saved rolls");
    let rules = *table.rules();
    let layout = Layout::of(&rules);
    let boxes = rules.box_count();
    let slots = layout.flags * layout.lanes;
    let per_saved = 2 * slots;
    let mut tally = Tally::new(&rules);
    let by_depth = cards_by_depth(&rules);
    let mut layer: Vec<Option<SavedBlock>> = vec![None; layout.masks];
    let mut start: SavedBlock = vec![None; per_saved];
    start[block_slot(&layout, &State::START, false)] = Some(Histogram {
        lo: 0,
        points: vec![1.0],
        bonuses: vec![1.0],
        extra: Vec::new(),
    });
    layer[0] = Some(start);
    progress(0, boxes as u64);
    let mut events_of: Vec<Option<Vec<Option<Vec<SavedEvent>>>>> = vec![None; layout.masks];
    for (depth, cards) in by_depth.iter().enumerate().take(boxes) {
        let mut next_layer: Vec<Option<SavedBlock>> = vec![None; layout.masks];
        // The cards of the depth a chunk at a time, so that the turns of a chunk alone are
        // held (they take more memory than the histograms); each card of the next depth adds
        // what it gathers from a chunk's cards to what it holds, chunk after chunk, the same
        // sums in the same order at any thread count.
        for chunk in cards.chunks(CHUNK) {
            // Step 1: the turns of every state reached, each with every number of rolls
            // saved it is reached with, in parallel.
            let turns: Vec<(BoxMask, Vec<Option<Vec<SavedEvent>>>)> = chunk
                .par_iter()
                .filter_map(|&m| {
                    let block = layer[m as usize].as_ref()?;
                    Some((m, card_turns(table, &layout, m, block)))
                })
                .collect();
            for (m, e) in turns {
                events_of[m as usize] = Some(e);
            }
            // The per-box figures, in a fixed order: card, rolls saved, slot, event.
            for &m in chunk {
                let (Some(block), Some(events)) = (&layer[m as usize], &events_of[m as usize])
                else {
                    continue;
                };
                for (k, h) in block.iter().enumerate() {
                    let (Some(h), Some(ev)) = (h, &events[event_slot(k, slots)]) else {
                        continue;
                    };
                    tally_turn(
                        &mut tally,
                        h.points.iter().sum(),
                        ev.iter().map(|e| &e.event),
                    );
                }
            }
            // Step 2: every card of the next depth gathers the chunk's histograms.
            next_layer
                .par_iter_mut()
                .enumerate()
                .filter(|(next, _)| next.count_ones() as usize == depth + 1)
                .for_each(|(next, held)| {
                    let next = next as BoxMask;
                    if let Some(block) = gather_saved(&rules, &layout, &layer, &events_of, next) {
                        add_block(held, block);
                    }
                });
            for &m in chunk {
                events_of[m as usize] = None;
                layer[m as usize] = None;
            }
        }
        layer = next_layer;
        progress(depth as u64 + 1, boxes as u64);
    }
    for (m, block) in layer.iter().enumerate() {
        let Some(block) = block else {
            continue;
        };
        for (k, h) in block.iter().enumerate() {
            let Some(h) = h else {
                continue;
            };
            let half = k % per_saved;
            let state = state_of(&layout, m as BoxMask, half % slots);
            tally_final(&mut tally, &rules, &state, half >= slots, h);
        }
    }
    tally
}

/// The cards whose turns are held at once: a fixed number, so that the sums are the same at
/// any thread count.
const CHUNK: usize = 256;

/// Adds the histograms of `block` to those `held` holds (none yet: `None`).
fn add_block(held: &mut Option<SavedBlock>, block: SavedBlock) {
    let Some(held) = held else {
        *held = Some(block);
        return;
    };
    for (h, b) in held.iter_mut().zip(block) {
        match (h.as_mut(), b) {
            (_, None) => {}
            (None, b) => *h = b,
            (Some(h), Some(b)) => h.add_histogram(&b),
        }
    }
}

/// The place of the turn of block entry `k` among a card's turns: its rolls saved and slot
/// (both halves of the five-of-a-kind box share a turn).
fn event_slot(k: usize, slots: usize) -> usize {
    (k / (2 * slots)) * slots + k % slots
}

/// The turns of the states of card `m` reached in `block`, by [`event_slot`]; `None` for the
/// others. A state's numbers of rolls saved share one run of [`turn_events`].
fn card_turns(
    table: &SavedTable,
    layout: &Layout,
    m: BoxMask,
    block: &SavedBlock,
) -> Vec<Option<Vec<SavedEvent>>> {
    let slots = layout.flags * layout.lanes;
    let saved_counts = block.len() / (2 * slots);
    let mut turns = vec![None; saved_counts * slots];
    // Each slot reached, with the rolls saved it is reached with.
    let reached: Vec<(usize, Vec<usize>)> = (0..slots)
        .map(|slot| {
            let saved = (0..saved_counts)
                .filter(|&s| {
                    let at = s * 2 * slots + slot;
                    block[at].is_some() || block[at + slots].is_some()
                })
                .collect();
            (slot, saved)
        })
        .filter(|(_, saved): &(usize, Vec<usize>)| !saved.is_empty())
        .collect();
    // Slots whose turns are the same ([`same_turn_key`]) share one run, with every rolls
    // saved any of them is reached with.
    let rerolls = usize::from(table.rules().rolls() - 1);
    let most = reached
        .iter()
        .filter_map(|(_, saved)| saved.last())
        .max()
        .map_or(0, |&s| rerolls + s);
    let mut groups: Vec<(Vec<u64>, Vec<usize>)> = Vec::new();
    for (k, (slot, _)) in reached.iter().enumerate() {
        let key = same_turn_key(table, &state_of(layout, m, *slot), most);
        match groups.iter_mut().find(|(g, _)| *g == key) {
            Some((_, members)) => members.push(k),
            None => groups.push((key, vec![k])),
        }
    }
    for (_, members) in groups {
        let mut saved: Vec<usize> = members
            .iter()
            .flat_map(|&k| reached[k].1.iter().copied())
            .collect();
        saved.sort_unstable();
        saved.dedup();
        let state = state_of(layout, m, reached[members[0]].0);
        let events = turn_events(table, &state, &saved);
        for &k in &members {
            let (slot, own) = &reached[k];
            for &s in own {
                let at = saved.binary_search(&s).expect("the group's rolls saved");
                turns[s * slots + slot] = Some(events[at].clone());
            }
        }
    }
    turns
}

/// What the turn of `state` with up to `most` re-rolls reads of its state: its flag, and for
/// every box it may fill with every points the box can score, the value of the state after
/// with each number of re-rolls saved and whether the box earns the upper bonus. Two states of
/// one card with the same key play the same turn, event for event and bit for bit (the kernel,
/// the choices and the forward pass read nothing else), as the ordinary pass's states do
/// ([`super::same_turns`]).
fn same_turn_key(table: &SavedTable, state: &State, most: usize) -> Vec<u64> {
    let rules = table.rules();
    let scores = table.scores();
    let mut key = vec![u64::from(state.yahtzee_50)];
    for index in set_bits(u64::from(rules.open_by_order(state.filled))) {
        for &points in &scores.distinct[index] {
            let points = u32::from(points);
            let next = state.after(rules, index, points);
            key.push(u64::from(
                state.bonuses_for(rules, index, points, false).upper,
            ));
            for r in 0..=most {
                key.push(table.value(&next, r).map_or(u64::MAX, f64::to_bits));
            }
        }
    }
    key
}

/// The block of card `next` under saved rolls: the histograms of its predecessors (one box
/// fewer) moved by their events of that box to the rolls saved after them, summed in a fixed
/// order. `None` when no state of it is reached.
fn gather_saved(
    rules: &Rules,
    layout: &Layout,
    layer: &[Option<SavedBlock>],
    events_of: &[Option<Vec<Option<Vec<SavedEvent>>>>],
    next: BoxMask,
) -> Option<SavedBlock> {
    let slots = layout.flags * layout.lanes;
    let per_saved = 2 * slots;
    let mut contributions: Vec<Contribution<'_>> = Vec::new();
    for b in 0..rules.box_count() {
        if next & (1 << b) == 0 {
            continue;
        }
        let m = next & !(1 << b);
        let (Some(block), Some(events)) = (&layer[m as usize], &events_of[m as usize]) else {
            continue;
        };
        for (k, h) in block.iter().enumerate() {
            let (Some(h), Some(ev)) = (h, &events[event_slot(k, slots)]) else {
                continue;
            };
            let half = k % per_saved;
            let state = state_of(layout, m, half % slots);
            let fifty = half >= slots;
            // Events are sorted by box: those of box `b` are one run.
            let from = ev.partition_point(|e| usize::from(e.event.box_index) < b);
            for e in ev[from..]
                .iter()
                .take_while(|e| usize::from(e.event.box_index) == b)
            {
                let points = u32::from(e.event.points);
                let after = state.after(rules, b, points);
                let fifty = fifty || fills_fifty(rules, b, points);
                contributions.push(Contribution {
                    slot: usize::from(e.saves) * per_saved + block_slot(layout, &after, fifty),
                    from: h,
                    shift: e.event.banked(),
                    probability: e.event.probability,
                    yahtzee_bonus: e.event.yahtzee_bonus(),
                    event: &e.event,
                    unseen: &[],
                });
            }
        }
    }
    let saved_counts = rules.most_saved_rolls(next.count_ones() as usize) + 1;
    summed(&contributions, saved_counts * per_saved, None)
}
