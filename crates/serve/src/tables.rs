//! The tables a server shares between its requests: for each rules, the expected-score table
//! and the target table, each loaded from the cache (or built and saved there) once, by
//! [`yahtzee_core::tables::cache`], and kept for the life of the server.
//!
//! A table is a [`Slot`]: loading starts either in the background ([`TableStore::start`],
//! so that a page can show the progress of a build while it waits) or on the first request
//! that needs it, which then waits; concurrent requests for the same table wait for the one
//! load (a `OnceLock`). A table that cannot be loaded (a damaged file in the cache) stays an
//! error with its fix for the life of the server, so no request rebuilds it behind the
//! user's back.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;

use yahtzee_core::game::rules::Rules;
use yahtzee_core::solve::vector::{DISTRIBUTION, TARGET};
use yahtzee_core::tables::TableError;
use yahtzee_core::tables::cache::{self, Progress};
use yahtzee_core::tables::expected::{EXPECTED_SCORE, StrategyTable};
use yahtzee_core::tables::vector::VectorTable;

/// Says how to fix a table that cannot be loaded: `(error, rules, objective)` to a message.
/// The command line gives the fixes it gives everywhere else (a `yahtzee solve` command).
pub type TableHint = Arc<dyn Fn(TableError, &Rules, &str) -> String + Send + Sync>;

/// Which table of some rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Objective {
    /// The expected final score of every state ([`StrategyTable`]).
    ExpectedScore,
    /// The best chance of reaching every final score ([`VectorTable`], objective `target`).
    Target,
    /// The chance of scoring at least `t` more under expected-score play ([`VectorTable`],
    /// objective `distribution`): the opponents of win advice.
    Distribution,
}

impl Objective {
    /// The name of the objective, as in table files and `yahtzee solve --objective`.
    pub fn name(self) -> &'static str {
        match self {
            Objective::ExpectedScore => EXPECTED_SCORE,
            Objective::Target => TARGET,
            Objective::Distribution => DISTRIBUTION,
        }
    }
}

/// One table being loaded or loaded.
pub struct Slot<T> {
    started: AtomicBool,
    building: AtomicBool,
    done: AtomicU64,
    total: AtomicU64,
    value: OnceLock<Result<Arc<T>, String>>,
}

impl<T> Default for Slot<T> {
    fn default() -> Slot<T> {
        Slot {
            started: AtomicBool::new(false),
            building: AtomicBool::new(false),
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            value: OnceLock::new(),
        }
    }
}

impl<T> Slot<T> {
    /// The table, loading it first (or waiting for the load under way).
    fn get(&self, load: impl FnOnce(&Slot<T>) -> Result<T, String>) -> Result<Arc<T>, String> {
        self.started.store(true, Ordering::Relaxed);
        self.value.get_or_init(|| load(self).map(Arc::new)).clone()
    }

    /// The progress callback of [`cache`], recording what it reports in this slot.
    fn report(&self, p: Progress<'_>, rules: &Rules, objective: Objective) {
        match p {
            Progress::Building { path } => {
                self.building.store(true, Ordering::Relaxed);
                eprintln!(
                    "no {} table for {} at {}: building it once",
                    objective.name(),
                    rules.label(),
                    path.display()
                );
            }
            Progress::Solving { done, total } => {
                self.total.store(total, Ordering::Relaxed);
                self.done.store(done, Ordering::Relaxed);
            }
            _ => {}
        }
    }

    fn status(&self, rules: Rules, objective: Objective) -> TableStatus {
        let (state, error) = match self.value.get() {
            Some(Ok(_)) => (LoadState::Ready, None),
            Some(Err(e)) => (LoadState::Failed, Some(e.clone())),
            None if !self.started.load(Ordering::Relaxed) => (LoadState::Idle, None),
            None if self.building.load(Ordering::Relaxed) => (LoadState::Building, None),
            None => (LoadState::Loading, None),
        };
        TableStatus {
            rules,
            objective,
            state,
            done: self.done.load(Ordering::Relaxed),
            total: self.total.load(Ordering::Relaxed),
            error,
        }
    }
}

/// Where a table stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LoadState {
    /// Not asked for yet.
    Idle,
    /// Being read from its file.
    Loading,
    /// Being solved (no file yet): `done` of `total` cards.
    Building,
    /// Loaded: requests are answered at once.
    Ready,
    /// It cannot be loaded: `error` says why and how to fix it.
    Failed,
}

/// What `/api/status` says of one table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TableStatus {
    /// The rules of the table (`rules` and `upper_first`).
    #[serde(flatten)]
    pub rules: Rules,
    /// Which table.
    pub objective: Objective,
    /// Where it stands.
    pub state: LoadState,
    /// Cards solved so far, while building.
    pub done: u64,
    /// Cards to solve, while building (0 before the solve reports).
    pub total: u64,
    /// Why it cannot be loaded, with the fix.
    pub error: Option<String>,
}

type Slots<T> = Mutex<HashMap<Rules, Arc<Slot<T>>>>;

/// Every table of the server, by rules.
pub struct TableStore {
    ev: Slots<StrategyTable>,
    target: Slots<VectorTable<f32>>,
    distribution: Slots<VectorTable<f32>>,
    hint: TableHint,
}

fn known<T>(slots: &Slots<T>, rules: Rules) -> bool {
    let map = slots.lock().unwrap_or_else(|e| e.into_inner());
    map.contains_key(&rules)
}

fn slot<T>(slots: &Slots<T>, rules: Rules) -> Arc<Slot<T>> {
    let mut map = slots.lock().unwrap_or_else(|e| e.into_inner());
    map.entry(rules).or_default().clone()
}

impl TableStore {
    /// A store of the default tables (the cache folder, or `$YAHTZEE_TABLE_DIR`), whose load
    /// errors are explained by `hint`.
    pub fn new(hint: TableHint) -> TableStore {
        TableStore {
            ev: Mutex::default(),
            target: Mutex::default(),
            distribution: Mutex::default(),
            hint,
        }
    }

    /// The expected-score table of `rules`, loaded or built first if need be (this waits).
    pub fn ev(&self, rules: Rules) -> Result<Arc<StrategyTable>, String> {
        let objective = Objective::ExpectedScore;
        slot(&self.ev, rules).get(|s| {
            let loaded = cache::load_or_build(&rules, None, &|p| s.report(p, &rules, objective))
                .map_err(|e| (self.hint)(e, &rules, objective.name()))?;
            warn_unsaved(loaded.saved(), &rules, objective);
            Ok(loaded.table)
        })
    }

    /// The target table of `rules`, loaded or built first if need be (this waits; a build
    /// takes about a minute for the Yahtzee rule sets).
    pub fn target(&self, rules: Rules) -> Result<Arc<VectorTable<f32>>, String> {
        let objective = Objective::Target;
        slot(&self.target, rules).get(|s| {
            let loaded =
                cache::load_or_build_target(&rules, None, &|p| s.report(p, &rules, objective))
                    .map_err(|e| (self.hint)(e, &rules, objective.name()))?;
            warn_unsaved(loaded.saved(), &rules, objective);
            Ok(loaded.table)
        })
    }

    /// The distribution table of `rules`, loaded or built first if need be (this waits; the
    /// expected-score table is loaded first, as a build follows its policy).
    pub fn distribution(&self, rules: Rules) -> Result<Arc<VectorTable<f32>>, String> {
        let objective = Objective::Distribution;
        slot(&self.distribution, rules).get(|s| {
            let ev = self.ev(rules)?;
            let loaded =
                cache::load_or_build_distribution(&ev, None, &|p| s.report(p, &rules, objective))
                    .map_err(|e| (self.hint)(e, &rules, objective.name()))?;
            warn_unsaved(loaded.saved(), &rules, objective);
            Ok(loaded.table)
        })
    }

    fn slots(&self, objective: Objective) -> &Slots<VectorTable<f32>> {
        match objective {
            Objective::Distribution => &self.distribution,
            _ => &self.target,
        }
    }

    /// Starts loading the `objective` table of `rules` in the background, unless it is
    /// loaded or loading already, and says where it stands.
    pub fn start(self: &Arc<Self>, rules: Rules, objective: Objective) -> TableStatus {
        let started = match objective {
            Objective::ExpectedScore => slot(&self.ev, rules).started.swap(true, Ordering::Relaxed),
            other => slot(self.slots(other), rules)
                .started
                .swap(true, Ordering::Relaxed),
        };
        if !started {
            let store = Arc::clone(self);
            std::thread::spawn(move || {
                // The outcome stays in the slot, for the requests and the status.
                let _ = match objective {
                    Objective::ExpectedScore => store.ev(rules).map(|_| ()),
                    Objective::Target => store.target(rules).map(|_| ()),
                    Objective::Distribution => store.distribution(rules).map(|_| ()),
                };
            });
        }
        self.status_of(rules, objective)
    }

    /// Where the `objective` table of `rules` stands.
    pub fn status_of(&self, rules: Rules, objective: Objective) -> TableStatus {
        match objective {
            Objective::ExpectedScore => slot(&self.ev, rules).status(rules, objective),
            other => slot(self.slots(other), rules).status(rules, objective),
        }
    }

    /// Where every table asked for so far stands, expected-score tables first, each in the
    /// order of [`Rules::all`].
    pub fn status(&self) -> Vec<TableStatus> {
        let mut out = Vec::new();
        for objective in [
            Objective::ExpectedScore,
            Objective::Target,
            Objective::Distribution,
        ] {
            for rules in Rules::all() {
                let known = match objective {
                    Objective::ExpectedScore => known(&self.ev, rules),
                    other => known(self.slots(other), rules),
                };
                if known {
                    out.push(self.status_of(rules, objective));
                }
            }
        }
        out
    }
}

/// The one-line warning of a table built but not saved (a read-only cache folder).
fn warn_unsaved(e: Option<&TableError>, rules: &Rules, objective: Objective) {
    if let Some(e) = e {
        eprintln!(
            "warning: the {} table of {} was built but not saved, so it is built again when the server restarts ({e})",
            objective.name(),
            rules.label()
        );
    }
}
