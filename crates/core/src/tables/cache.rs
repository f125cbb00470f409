//! Finding the strategy table of some rules: load it from its file, or solve the rules and
//! save the table there for next time.
//!
//! The default place of a table is the cache folder ([`default_table_path`]). A table that
//! cannot be saved (a read-only or full folder, a file where the folder should be) is not an
//! error: the table was built and answers the question; [`Loaded::saved`] holds why it could
//! not be kept, for the front end to warn about. A file that is there but is not a sound
//! table of these rules is an error (see [`TableError::needs_rebuild`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::game::rules::Rules;
use crate::solve::expected::SolveOptions;
use crate::solve::vector::{self, VectorObjective};
use crate::tables::TableError;
use crate::tables::expected::StrategyTable;
use crate::tables::vector::VectorTable;
use crate::tables::{default_table_path, default_table_path_of};

/// What [`load_or_build`] reports while it works.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Progress<'a> {
    /// No table at `path`: solving the rules now (a second or so), then saving it there.
    Building {
        /// Where the table will be saved.
        path: &'a Path,
    },
    /// The solve has done `done` of `total` cards.
    Solving {
        /// Cards solved.
        done: u64,
        /// Cards to solve.
        total: u64,
    },
}

/// How the table was found.
#[derive(Debug)]
pub enum Source {
    /// Loaded from its file.
    Loaded,
    /// Built now; `Ok` once saved at the path, else why it could not be saved.
    Built(Result<(), TableError>),
}

/// A table and where it came from.
#[derive(Debug)]
pub struct Loaded<T = StrategyTable> {
    /// The table of the rules asked for.
    pub table: T,
    /// Its file (read, or written, or where writing failed).
    pub path: PathBuf,
    /// Whether it was loaded or built, and saved.
    pub source: Source,
}

impl<T> Loaded<T> {
    /// Why a table built now could not be saved, if it could not.
    pub fn saved(&self) -> Option<&TableError> {
        match &self.source {
            Source::Built(Err(e)) => Some(e),
            _ => None,
        }
    }
}

/// The table of `rules` at `path` (default: [`default_table_path`]): loaded when the file
/// exists, else solved (in the current rayon pool) and saved there. A failed save is kept in
/// [`Loaded::source`], not returned as an error; a file that exists but cannot be loaded is an
/// error.
pub fn load_or_build(
    rules: &Rules,
    path: Option<&Path>,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Loaded, TableError> {
    let path = path.map_or_else(|| default_table_path(rules), Path::to_path_buf);
    load_or_build_with(
        path,
        |p| StrategyTable::load(p, rules),
        |report| StrategyTable::solve(rules, SolveOptions::default(), report).0,
        StrategyTable::save,
        progress,
    )
}

/// The target table of `rules` ([`VectorTable`], objective `target`) at `path` (default:
/// beside the expected-score table), loaded when the file exists (its cards are then read
/// when first asked for), else solved and saved there, like [`load_or_build`]. The solve
/// takes most of a minute for the Yahtzee rule sets.
pub fn load_or_build_target(
    rules: &Rules,
    path: Option<&Path>,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Loaded<VectorTable<f32>>, TableError> {
    load_or_build_vector(&VectorObjective::target(*rules), path, progress)
}

/// The distribution table of the rules of `ev` ([`VectorTable`], objective
/// `distribution`: the chance of scoring at least `t` more under the expected-score policy
/// of `ev`) at `path` (default: beside the expected-score table), like
/// [`load_or_build_target`].
pub fn load_or_build_distribution(
    ev: &StrategyTable,
    path: Option<&Path>,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Loaded<VectorTable<f32>>, TableError> {
    // Only a build needs the expected-score policy: the copy is made then.
    let shape = VectorObjective::<f32>::by_name(vector::DISTRIBUTION, *ev.rules())
        .expect("the distribution objective is known");
    let path = path.map_or_else(
        || default_table_path_of(ev.rules(), vector::DISTRIBUTION),
        Path::to_path_buf,
    );
    load_or_build_with(
        path,
        |p| {
            // A card the file leaves out is solved again under the expected-score policy.
            VectorTable::load(p, ev.rules(), shape.name).map(|t| t.following(Arc::new(ev.clone())))
        },
        |report| {
            let objective = VectorObjective::distribution(Arc::new(ev.clone()));
            VectorTable::solve(&objective, SolveOptions::default().simd, report)
        },
        |t: &VectorTable<f32>, p| t.save(p),
        progress,
    )
}

/// The table of a vector objective at `path` (default: beside the expected-score table,
/// named after the objective), loaded or solved and saved.
fn load_or_build_vector(
    objective: &VectorObjective<f32>,
    path: Option<&Path>,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Loaded<VectorTable<f32>>, TableError> {
    let rules = &objective.rules;
    let path = path.map_or_else(
        || default_table_path_of(rules, objective.name),
        Path::to_path_buf,
    );
    load_or_build_with(
        path,
        |p| VectorTable::load(p, rules, objective.name),
        |report| VectorTable::solve(objective, SolveOptions::default().simd, report),
        |t: &VectorTable<f32>, p| t.save(p),
        progress,
    )
}

/// Loads the table at `path` when the file exists, else builds it (reporting progress) and
/// tries to save it there.
fn load_or_build_with<T>(
    path: PathBuf,
    load: impl FnOnce(&Path) -> Result<T, TableError>,
    build: impl FnOnce(&(dyn Fn(u64, u64) + Sync)) -> T,
    save: impl FnOnce(&T, &Path) -> Result<(), TableError>,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Loaded<T>, TableError> {
    // `symlink_metadata` rather than `exists`: a dangling link is a file that is there.
    if path.symlink_metadata().is_ok() {
        let table = load(&path)?;
        return Ok(Loaded {
            table,
            path,
            source: Source::Loaded,
        });
    }
    progress(Progress::Building { path: &path });
    let table = build(&|done, total| progress(Progress::Solving { done, total }));
    let saved = save(&table, &path);
    Ok(Loaded {
        table,
        path,
        source: Source::Built(saved),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::{Order, RuleSet};

    #[test]
    fn builds_saves_then_loads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/t.table");
        let rules = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
        let building = std::sync::atomic::AtomicBool::new(false);
        let report = |p: Progress<'_>| {
            if let Progress::Building { path: at } = p {
                assert_eq!(at, path);
                building.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        };
        let first = load_or_build(&rules, Some(&path), &report).unwrap();
        assert!(matches!(first.source, Source::Built(Ok(()))));
        assert!(building.load(std::sync::atomic::Ordering::Relaxed));
        let again = load_or_build(&rules, Some(&path), &|_| panic!("no progress")).unwrap();
        assert!(matches!(again.source, Source::Loaded));
        assert_eq!(again.table.values(), first.table.values());
    }

    #[test]
    fn a_table_that_cannot_be_saved_is_still_returned() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-folder");
        std::fs::write(&file, "x").unwrap();
        let rules = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
        let got = load_or_build(&rules, Some(&file.join("t.table")), &|_| {}).unwrap();
        let e = got.saved().expect("the save failed");
        assert!(matches!(e, TableError::Write { .. }));
        assert!(e.to_string().contains("is a file, not a folder"), "{e}");
        assert!((got.table.expected_score() - 137.7122414788).abs() < 1e-9);
    }
}
