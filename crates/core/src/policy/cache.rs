//! The turns of the states met so far, shared by the threads of a match: a
//! state's expected-score turn, and a target turn by points still needed, computed once and
//! kept while there is room.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::game::state::{Layout, State};
use crate::policy::target::{TargetPlayer, TargetTurn};
use crate::solve::expected::TurnValues;
use crate::tables::expected::StrategyTable;

/// The turns of the states met so far, shared by the threads: a state's turn (and, for the
/// target policy, a state's turn with some points still needed) is computed once and reused
/// while the cache has room. It changes nothing in the games (a turn is a pure function of
/// the state and the points needed); it saves recomputing the frequent ones (the first turns,
/// whose states are few, and the last, whose states are few again).
pub struct TurnCache<'a> {
    layout: Layout,
    slots: Vec<OnceLock<Arc<TurnValues>>>,
    room: AtomicUsize,
    /// Target turns by (state's layout index, points needed), in shards by state.
    targets: Vec<Mutex<TargetShard<'a>>>,
    target_room: AtomicUsize,
}

/// One shard of the target turns of a [`TurnCache`].
type TargetShard<'a> = HashMap<(usize, i64), Arc<TargetTurn<'a>>>;

/// States a [`TurnCache`] keeps at most: each turn is ~9.4 KB (1,176 values), so this bounds
/// the cache near 300 MB, enough for every frequent state.
pub const CACHED_TURNS: usize = 32_768;

/// Target turns a [`TurnCache`] keeps at most: each is ~17 KB (its chances and the
/// expected-score turn), so this bounds them near 140 MB.
pub const CACHED_TARGET_TURNS: usize = 8_192;

/// Shards of the target turns of a [`TurnCache`]: enough that two threads rarely wait for
/// each other.
const TARGET_SHARDS: usize = 64;

impl<'a> TurnCache<'a> {
    /// An empty cache for the states of `table`.
    pub fn new(table: &StrategyTable) -> TurnCache<'a> {
        let layout = *table.layout();
        TurnCache {
            layout,
            slots: (0..layout.len()).map(|_| OnceLock::new()).collect(),
            room: AtomicUsize::new(CACHED_TURNS),
            targets: (0..TARGET_SHARDS).map(|_| Mutex::default()).collect(),
            target_room: AtomicUsize::new(CACHED_TARGET_TURNS),
        }
    }

    /// The turn of `state`, from the cache or computed (and kept while there is room).
    pub fn turn(&self, table: &StrategyTable, state: &State) -> Arc<TurnValues> {
        let slot = &self.slots[self.layout.index(state)];
        if let Some(t) = slot.get() {
            return Arc::clone(t);
        }
        let turn = Arc::new(TurnValues::new(table, state));
        if take_room(&self.room) {
            // Another thread may have set it first: the values are the same either way.
            let _ = slot.set(Arc::clone(&turn));
        }
        turn
    }

    /// The target turn of `state` with `needed` points still needed for `player`, from the
    /// cache or computed (and kept while there is room).
    pub fn target_turn(
        &self,
        player: &TargetPlayer<'a>,
        state: &State,
        needed: i64,
    ) -> Arc<TargetTurn<'a>> {
        let index = self.layout.index(state);
        let shard = &self.targets[index % TARGET_SHARDS];
        let key = (index, needed);
        if let Some(t) = lock(shard).get(&key) {
            return Arc::clone(t);
        }
        // Computed outside the lock: another thread may compute the same turn meanwhile,
        // which only costs the time.
        let turn = Arc::new(player.turn_for(state, needed));
        if take_room(&self.target_room) {
            lock(shard).insert(key, Arc::clone(&turn));
        }
        turn
    }
}

/// Takes one unit of `room`; false when none is left.
fn take_room(room: &AtomicUsize) -> bool {
    room.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| r.checked_sub(1))
        .is_ok()
}

/// The map of a shard. A thread that panicked while holding it left a map that is still
/// whole (an insert of a computed turn), so the poison is ignored.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
