//! The tables a server shares between its requests: one [`TableSet`] per rules, made on the
//! first request for those rules and kept while its tables load (so each table is loaded or
//! built once, and a request for a table being loaded waits for that load). A table that
//! cannot be loaded is an error with its fix (nothing rebuilds it behind anyone's back), shown
//! by `/api/status` until the next request for those rules, which makes a new set and so
//! tries again: a table rebuilt as the message says serves without a restart.
//!
//! Builds run one at a time, whatever asked for them (the page's `/api/load`, a request that
//! needs the table): the others wait for their turn. The loading itself, its progress
//! (`/api/status`) and its errors are the set's; the server adds how it reports on stderr,
//! the queue of builds, and how it explains an error ([`TableHint`]).
//!
//! From its start the server loads or builds, in the background and one after the other,
//! the tables of the page's objectives for its rules ([`TableStore::prebuild`]); a target or
//! win question whose table is being built is answered at once with the expected-score
//! advice, marked [`Provisional`] ([`pending`]), and exactly once the table is ready.
//!
//! A build can be stopped ([`TableStore::cancel`], `POST /api/cancel`: the page's Cancel):
//! it stops as its next card starts, saves nothing, and the requests waiting for it are
//! answered 503; the next request for the table builds it anew (a new set, as after an error).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use yahtzee_core::game::rules::Rules;
use yahtzee_core::tables::TableError;
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::set::{
    Event, LoadCause, LoadError, LoadState, Observer, TableKind, TablePaths, TableSet, TableStatus,
};

use serde::Serialize;

use super::ApiError;
use yahtzee_core::policy::Objective;
use yahtzee_core::policy::win::needs_distribution;
use yahtzee_core::tables::vector::VectorTable;

/// Says how to fix a table that cannot be loaded: `(error, rules, objective)` to a message.
/// The command line gives the fixes it gives everywhere else (a `yahtzee solve` command).
pub type TableHint = Arc<dyn Fn(TableError, &Rules, &str) -> String + Send + Sync>;

/// How the server's table sets report: a line on stderr when a table is built or cannot be
/// saved, and the hint's fix for a table that cannot be loaded; and the queue of builds.
struct Hinted {
    hint: TableHint,
    /// When the build under way started; `None`: no build runs.
    build: Mutex<Option<Instant>>,
    /// Told when a build ends.
    ended: Condvar,
}

impl Hinted {
    /// Waits for the build under way, if any, then marks this one as under way: called on
    /// the thread that builds, before the build.
    fn enter(&self) {
        let mut build = self.build.lock().unwrap_or_else(|e| e.into_inner());
        while build.is_some() {
            build = self.ended.wait(build).unwrap_or_else(|e| e.into_inner());
        }
        *build = Some(Instant::now());
    }

    /// Ends the build under way, after `say` is told the seconds it took (so that what it
    /// prints comes before what the next build prints).
    fn leave(&self, say: impl FnOnce(f64)) {
        let mut build = self.build.lock().unwrap_or_else(|e| e.into_inner());
        say(build.take().map_or(0.0, |t| t.elapsed().as_secs_f64()));
        self.ended.notify_one();
    }
}

impl Observer for Hinted {
    fn report(&self, rules: &Rules, kind: TableKind, event: Event<'_>) {
        match event {
            Event::Building { path } => {
                // One build at a time: each takes the machine's cores (and a vector table's
                // build, a gigabyte of memory).
                self.enter();
                eprintln!(
                    "no {} table for {} at {}: building it once",
                    kind.name(),
                    rules.label(),
                    path.display()
                );
            }
            Event::Built => self.leave(|seconds| {
                eprintln!(
                    "built the {} table of {} in {seconds:.1} s",
                    kind.name(),
                    rules.label()
                );
            }),
            Event::Cancelled => self.leave(|seconds| {
                eprintln!(
                    "stopped building the {} table of {} after {seconds:.1} s (cancelled; nothing saved)",
                    kind.name(),
                    rules.label()
                );
            }),
            Event::NotSaved { error, .. } => eprintln!(
                "warning: the {} table of {} was built but not saved, so it is built again when the server restarts ({error})",
                kind.name(),
                rules.label()
            ),
            _ => {}
        }
    }

    fn explain(
        &self,
        error: TableError,
        rules: &Rules,
        kind: TableKind,
        _path: Option<&Path>,
    ) -> String {
        (self.hint)(error, rules, kind.name())
    }
}

/// The answer to a request whose table cannot be had: 503 when its build was cancelled (ask
/// again to build it), else the server's own trouble (500) with the fix.
pub fn table_error(e: LoadError) -> ApiError {
    match e.cause {
        LoadCause::Cancelled => {
            ApiError::new(axum::http::StatusCode::SERVICE_UNAVAILABLE, e.message)
        }
        _ => ApiError::internal(e.message),
    }
}

/// True when a table of `set` is being loaded or built.
fn busy(set: &TableSet) -> bool {
    PREBUILT.into_iter().any(|kind| {
        matches!(
            set.status(kind).state,
            LoadState::Loading | LoadState::Building
        )
    })
}

/// True when a table of `set` could not be loaded, or its build was cancelled (the one it
/// does not offer aside).
fn failed(set: &TableSet) -> bool {
    [
        TableKind::ExpectedScore,
        TableKind::Target,
        TableKind::Distribution,
    ]
    .into_iter()
    .any(|kind| {
        matches!(
            set.status(kind).state,
            LoadState::Failed | LoadState::Cancelled
        )
    })
}

/// The tables [`TableStore::prebuild`] builds, in its order.
const PREBUILT: [TableKind; 3] = [
    TableKind::ExpectedScore,
    TableKind::Target,
    TableKind::Distribution,
];

/// The answer of a target or win question while the table it needs is built: the
/// expected-score advice for the same position, marked by this (the `provisional` of the
/// answer of `/api/advise`), until the table is ready and the same question gets the exact
/// answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Provisional {
    /// The objective asked for: `target` or `win`.
    pub objective: &'static str,
    /// Why the answer is the expected score's, in words.
    pub reason: String,
    /// The table awaited: `target` or `distribution`.
    pub table: TableKind,
    /// Where it stands (`building`, or `loading` just before its build starts).
    pub state: LoadState,
    /// The share of its build done, 0 to 1 (`null` before its first step).
    pub progress: Option<f64>,
    /// The seconds left of its build, from its pace on this machine (see
    /// [`TableStatus::eta_seconds`]).
    pub eta_seconds: Option<f64>,
}

/// The table `objective` needs that is being built (or, missing, is started now), as the
/// mark of a provisional answer; `None` when the question can be answered exactly now (its
/// table loaded, or in its file and waited for) or the objective needs no table of its own.
/// A table refused (too large, not offered) or that failed is left to the exact path, which
/// says why.
pub fn pending(tables: &Arc<TableSet>, objective: &Objective) -> Option<Provisional> {
    let (kind, name) = match objective {
        Objective::Target(_) => (TableKind::Target, "target"),
        Objective::Win(opponents) if needs_distribution(opponents) => {
            (TableKind::Distribution, "win")
        }
        _ => return None,
    };
    if tables.check(kind).is_err() {
        return None;
    }
    let on_disk = || tables.path(kind).symlink_metadata().is_ok();
    let status = match tables.status(kind).state {
        LoadState::Building => tables.status(kind),
        LoadState::Loading if !on_disk() => tables.status(kind),
        LoadState::Idle if !on_disk() => tables.start(kind),
        // Stopped while another table of the set is built: asked for again after it (a new
        // set), it is built anew.
        LoadState::Cancelled if !on_disk() => tables.status(kind),
        _ => return None,
    };
    let rules = tables.rules();
    let progress = (status.total > 0).then(|| status.done as f64 / status.total as f64);
    let left = status.eta_seconds.map_or(String::new(), |s| {
        format!(", about {} left", seconds_in_words(s))
    });
    let why = if status.state == LoadState::Cancelled {
        "its build was cancelled, and is started again when asked for once the build under way ends"
            .to_string()
    } else {
        format!("it is being built (once: {}{left})", status.build_cost)
    };
    Some(Provisional {
        objective: name,
        reason: format!(
            "the {} table of {} is not ready: {why}; until it is, the advice is the expected score's, for the same position",
            kind.name(),
            rules.label(),
        ),
        table: kind,
        state: status.state,
        progress,
        eta_seconds: status.eta_seconds,
    })
}

/// `seconds` in words, rounded: `40 s`, `3 min`.
fn seconds_in_words(seconds: f64) -> String {
    if seconds < 90.0 {
        format!("{} s", seconds.ceil().max(1.0))
    } else {
        format!("{} min", (seconds / 60.0).round())
    }
}

/// Every table set of the server, by rules.
pub struct TableStore {
    sets: Mutex<HashMap<Rules, Arc<TableSet>>>,
    observer: Arc<Hinted>,
}

impl TableStore {
    /// A store of the default tables (the cache folder, or `$YAHTZEE_TABLE_DIR`), whose load
    /// errors are explained by `hint`.
    pub fn new(hint: TableHint) -> TableStore {
        TableStore {
            sets: Mutex::default(),
            observer: Arc::new(Hinted {
                hint,
                build: Mutex::new(None),
                ended: Condvar::new(),
            }),
        }
    }

    /// The tables of `rules`: a new set when a table of the one before could not be loaded
    /// (so that the load is tried again), once no other table of it is being loaded or built
    /// (which would be built twice).
    pub fn set(&self, rules: Rules) -> Arc<TableSet> {
        let mut sets = self.sets.lock().unwrap_or_else(|e| e.into_inner());
        let observer: Arc<dyn Observer> = self.observer.clone();
        let fresh = || {
            // The server answers no question of the game of two.
            Arc::new(
                TableSet::new(rules, TablePaths::default(), observer).without(TableKind::TwoPlayer),
            )
        };
        let set = sets.entry(rules).or_insert_with(fresh.clone());
        if failed(set) && !busy(set) {
            *set = fresh();
        }
        Arc::clone(set)
    }

    /// The expected-score table of `rules`, loaded or built first if need be (this waits).
    pub fn ev(&self, rules: Rules) -> Result<Arc<StrategyTable>, ApiError> {
        self.set(rules).ev().map(Arc::clone).map_err(table_error)
    }

    /// The target table of `rules`, loaded or built first if need be (this waits; a build
    /// takes about two minutes for the Yahtzee rule sets on two cores).
    pub fn target(&self, rules: Rules) -> Result<Arc<VectorTable<f32>>, ApiError> {
        self.set(rules)
            .target()
            .map(Arc::clone)
            .map_err(table_error)
    }

    /// The distribution table of `rules`, loaded or built first if need be (this waits; the
    /// expected-score table is loaded first, as a build follows its policy).
    pub fn distribution(&self, rules: Rules) -> Result<Arc<VectorTable<f32>>, ApiError> {
        self.set(rules)
            .distribution()
            .map(Arc::clone)
            .map_err(table_error)
    }

    /// Loads or builds in the background, one after the other, every table the page's
    /// objectives need for `rules` (`serve` without `--no-prebuild`, from its start): the
    /// expected-score table first (about a second to build), so that ordinary advice never
    /// waits behind a long build, then the target table and the distribution table (the
    /// opponents of win advice). Each stops when cancelled ([`TableStore::cancel`]), and one
    /// cancelled is not started again by this (a request that needs it starts it). A table
    /// the game does not offer, or that would not fit in memory, is left out: the requests
    /// that need it say why.
    pub fn prebuild(self: &Arc<Self>, rules: Rules) {
        let store = Arc::clone(self);
        std::thread::spawn(move || {
            for kind in PREBUILT {
                // (A game of saved rolls has none of these: its table is built by the
                // command line.)
                let set = store.set(rules);
                if rules.saved_rolls() || set.check(kind).is_err() {
                    continue;
                }
                // Waits for the load or the build, started here or by a request; the outcome
                // stays in the set, for the requests and the status.
                let _ = set.get(kind);
            }
        });
    }

    /// Starts loading the `kind` table of `rules` in the background, unless it is loaded or
    /// loading already, and says where it stands.
    pub fn start(&self, rules: Rules, kind: TableKind) -> TableStatus {
        self.set(rules).start(kind)
    }

    /// Stops the build of the `kind` table of `rules` under way, if one is (see
    /// [`TableSet::cancel`]), and says where the table stands.
    pub fn cancel(&self, rules: Rules, kind: TableKind) -> TableStatus {
        let set = self
            .sets
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&rules)
            .cloned();
        match set {
            Some(set) => set.cancel(kind),
            None => self.set(rules).status(kind),
        }
    }

    /// Where every table asked for so far stands, expected-score tables first, each in the
    /// order of [`Rules::all`], then those of a rules file's rules (`serve --rules PATH`).
    pub fn status(&self) -> Vec<TableStatus> {
        let sets = self.sets.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut order: Vec<Rules> = Rules::all().collect();
        let mut others: Vec<Rules> = sets
            .keys()
            .filter(|r| !order.contains(r))
            .copied()
            .collect();
        others.sort_by_key(|r| r.label());
        order.extend(others);
        let mut out = Vec::new();
        for kind in TableKind::ALL {
            for &rules in &order {
                if let Some(set) = sets.get(&rules).filter(|s| s.asked_for(kind)) {
                    out.push(set.status(kind));
                }
            }
        }
        out
    }
}
