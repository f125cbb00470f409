//! Provenance: what every JSON result says of where it comes from, beside its rules (which
//! every result holds already, as `rules` and `upper_first`): the program's version, the
//! commit it was built from, the version of the dice generator and the checksum of the
//! expected-score table read. One helper ([`stamped`]) adds it to any `Serialize` result, so
//! that the commands' results (the reports), the batch answers and the exports' metadata
//! state it alike; [`Provenance::line`] is the same in words, for the figures and files that
//! are not JSON.
//!
//! The commit is the front end's: its build script reads `git rev-parse HEAD` (`build.rs`
//! and `build/commit.rs` of the workspace) and it hands it over once at start-up
//! ([`set_commit`]). A build script of the core's own would compile the core and every
//! crate over it again at each commit; the front end is compiled again anyway.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::game::dice::DICE_GENERATOR;
use crate::tables::expected::StrategyTable;
use crate::tables::saved::SavedTable;
use crate::tables::set::{TableKind, TableSet};

/// The version of the program, as every JSON result states it. It changes whenever an output
/// for the same input changes (CONTRIBUTING.md, "When an output changes").
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The commit stated when the front end gave none: a build outside a git checkout (a
/// tarball), or a library caller that did not say.
pub const UNKNOWN_COMMIT: &str = "unknown";

static COMMIT: OnceLock<&'static str> = OnceLock::new();

/// Sets the commit the program was built from (the 40 hexadecimal digits of `git rev-parse
/// HEAD`, or [`UNKNOWN_COMMIT`]), once, at start-up: every result stamped afterwards states
/// it. A second call is ignored.
pub fn set_commit(commit: &'static str) {
    let _ = COMMIT.set(commit);
}

/// The commit the program was built from, as [`set_commit`] set it ([`UNKNOWN_COMMIT`] if
/// never).
pub fn commit() -> &'static str {
    COMMIT.get().copied().unwrap_or(UNKNOWN_COMMIT)
}

/// Where a result comes from, as every JSON result states it beside its rules (which each
/// result holds already, as `rules` and `upper_first`): the program's version and commit,
/// the dice generator's version and the checksum of the expected-score table it read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// The program's version ([`VERSION`]).
    pub version: String,
    /// The commit the program was built from ([`commit`]).
    pub commit: String,
    /// The version of the dice generator ([`DICE_GENERATOR`]): with the version and a seed,
    /// it says which dice a seeded result rolled.
    pub dice_generator: u32,
    /// The CRC-32 of the expected-score table read (8 hexadecimal digits, what `yahtzee
    /// verify` prints); absent when no table was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_checksum: Option<String>,
}

impl Provenance {
    /// The provenance of a result computed from `table` (or from no table).
    pub fn of(table: Option<&StrategyTable>) -> Provenance {
        Provenance {
            version: VERSION.to_string(),
            commit: commit().to_string(),
            dice_generator: DICE_GENERATOR,
            table_checksum: table.map(|t| format!("{:08x}", t.checksum())),
        }
    }

    /// The provenance of a result computed from the table of saved rolls `table`: its
    /// checksum.
    pub fn of_saved(table: &SavedTable) -> Provenance {
        Provenance {
            table_checksum: Some(format!("{:08x}", table.checksum())),
            ..Provenance::of(None)
        }
    }

    /// The provenance of a result computed from the tables of `set`: the checksum of its
    /// expected-score table when that table was read (it is never loaded or built for this),
    /// or of its table of saved rolls, read in part for each question.
    pub fn by(set: &TableSet) -> Provenance {
        if set.rules().saved_rolls() {
            return Provenance {
                table_checksum: set.saved_checksum().map(|c| format!("{c:08x}")),
                ..Provenance::of(None)
            };
        }
        let read = set
            .asked_for(TableKind::ExpectedScore)
            .then(|| set.ev().ok())
            .flatten();
        Provenance::of(read.map(|t| &**t))
    }

    /// The same in words, for a figure or a file that is not JSON: `yahtzee 0.2.0, commit
    /// 0123456789ab, dice generator 3, table 2a44f15b` (the commit's first 12 digits, which
    /// name it as well in a repository of this size, and fit under a figure).
    pub fn line(&self) -> String {
        let commit = self.commit.get(..12).unwrap_or(&self.commit);
        let mut text = format!(
            "yahtzee {}, commit {commit}, dice generator {}",
            self.version, self.dice_generator
        );
        if let Some(c) = &self.table_checksum {
            text.push_str(&format!(", table {c}"));
        }
        text
    }
}

/// A result with its provenance: the fields of `result` followed by those of [`Provenance`],
/// in one JSON object. Every command's JSON result, every batch answer and the metadata of
/// the exports go through it: the one place provenance is added.
#[derive(Clone, Debug, Serialize)]
pub struct Stamped<'a, R: Serialize> {
    /// The result.
    #[serde(flatten)]
    pub result: &'a R,
    /// Where it comes from.
    #[serde(flatten)]
    pub provenance: Provenance,
}

/// `result` with the provenance of a result computed from `table` (or from no table).
pub fn stamped<'a, R: Serialize>(result: &'a R, table: Option<&StrategyTable>) -> Stamped<'a, R> {
    Stamped {
        result,
        provenance: Provenance::of(table),
    }
}

/// `result` with the provenance of a result computed from the tables of `set`: the checksum
/// of its expected-score table when that table was read (it is never loaded or built for
/// this), or of its table of saved rolls.
pub fn stamped_by<'a, R: Serialize>(result: &'a R, set: &TableSet) -> Stamped<'a, R> {
    Stamped {
        result,
        provenance: Provenance::by(set),
    }
}
