//! The tables a server shares between its requests: one [`TableSet`] per rules, made on the
//! first request for those rules and kept for the life of the server (so each table is loaded
//! or built once, and a table that cannot be loaded stays an error with its fix, rebuilt behind
//! no one's back). The loading itself, its progress (`/api/status`) and its errors are the
//! set's; the server adds how it reports on stderr and explains an error ([`TableHint`]).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use yahtzee_core::game::rules::Rules;
use yahtzee_core::tables::TableError;
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::set::{Event, Observer, TableKind, TablePaths, TableSet, TableStatus};
use yahtzee_core::tables::vector::VectorTable;

/// Says how to fix a table that cannot be loaded: `(error, rules, objective)` to a message.
/// The command line gives the fixes it gives everywhere else (a `yahtzee solve` command).
pub type TableHint = Arc<dyn Fn(TableError, &Rules, &str) -> String + Send + Sync>;

/// How the server's table sets report: a line on stderr when a table is built or cannot be
/// saved, and the hint's fix for a table that cannot be loaded.
struct Hinted(TableHint);

impl Observer for Hinted {
    fn report(&self, rules: &Rules, kind: TableKind, event: Event<'_>) {
        match event {
            Event::Building { path } => eprintln!(
                "no {} table for {} at {}: building it once",
                kind.name(),
                rules.label(),
                path.display()
            ),
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
        (self.0)(error, rules, kind.name())
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
            observer: Arc::new(Hinted(hint)),
        }
    }

    /// The tables of `rules`.
    pub fn set(&self, rules: Rules) -> Arc<TableSet> {
        let mut sets = self.sets.lock().unwrap_or_else(|e| e.into_inner());
        let observer: Arc<dyn Observer> = self.observer.clone();
        Arc::clone(
            // The server answers no question of the game of two.
            sets.entry(rules).or_insert_with(|| {
                Arc::new(
                    TableSet::new(rules, TablePaths::default(), observer)
                        .without(TableKind::TwoPlayer),
                )
            }),
        )
    }

    /// The expected-score table of `rules`, loaded or built first if need be (this waits).
    pub fn ev(&self, rules: Rules) -> Result<Arc<StrategyTable>, String> {
        self.set(rules).ev().map(Arc::clone).map_err(|e| e.message)
    }

    /// The target table of `rules`, loaded or built first if need be (this waits; a build
    /// takes about a minute for the Yahtzee rule sets).
    pub fn target(&self, rules: Rules) -> Result<Arc<VectorTable<f32>>, String> {
        self.set(rules)
            .target()
            .map(Arc::clone)
            .map_err(|e| e.message)
    }

    /// The distribution table of `rules`, loaded or built first if need be (this waits; the
    /// expected-score table is loaded first, as a build follows its policy).
    pub fn distribution(&self, rules: Rules) -> Result<Arc<VectorTable<f32>>, String> {
        self.set(rules)
            .distribution()
            .map(Arc::clone)
            .map_err(|e| e.message)
    }

    /// Starts loading the `kind` table of `rules` in the background, unless it is loaded or
    /// loading already, and says where it stands.
    pub fn start(&self, rules: Rules, kind: TableKind) -> TableStatus {
        self.set(rules).start(kind)
    }

    /// Where every table asked for so far stands, expected-score tables first, each in the
    /// order of [`Rules::all`].
    pub fn status(&self) -> Vec<TableStatus> {
        let sets = self.sets.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut out = Vec::new();
        for kind in TableKind::ALL {
            for rules in Rules::all() {
                if let Some(set) = sets.get(&rules).filter(|s| s.asked_for(kind)) {
                    out.push(set.status(kind));
                }
            }
        }
        out
    }
}
