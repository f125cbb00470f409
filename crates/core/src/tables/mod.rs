//! The solved tables and their files: the container every table file shares (magic, format
//! version, header, checksummed body: [`container`]), the expected-score table
//! ([`expected`]), the tables of the vector objectives ([`vector`]: target, distribution),
//! the table of the early plies of the game of two ([`two_player`]), the cache that loads a
//! table from its file or builds and saves it ([`cache`]), and the set of the tables of a
//! rule set, each loaded on first use, that every front end uses ([`set`]), and the
//! provenance every JSON result states (the version, the table's checksum: [`provenance`]).
//!
//! The errors of every table, read or written, are one type here ([`TableError`]), naming
//! where the table came from ([`Origin`]); so are the default places of every kind of table
//! (the folder, [`default_table_dir`], and each file's name, [`default_table_name_of`]).

use std::path::{Path, PathBuf};

use crate::game::rules::{BoxMask, Order, Rules};
use crate::solve::vector::{DISTRIBUTION, TARGET};
use crate::tables::container::FORMAT_VERSION;
use crate::tables::expected::EXPECTED_SCORE;
use crate::tables::two_player::TWO_PLAYER;

pub mod cache;
pub mod container;
pub mod expected;
pub mod provenance;
pub mod saved;
pub mod set;
pub mod two_player;
pub mod vector;

/// Where a table came from, as error messages name it: a file, or bytes handed over by the
/// caller (a server that keeps tables in memory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A table file.
    File(PathBuf),
    /// Bytes given to [`StrategyTable::from_bytes`](expected::StrategyTable::from_bytes) or
    /// [`StrategyTable::open_bytes`](expected::StrategyTable::open_bytes).
    Bytes,
}

impl Origin {
    /// The file, if the table came from one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Origin::File(p) => Some(p),
            Origin::Bytes => None,
        }
    }

    /// The error of a damaged or inconsistent table from here: `what` is wrong.
    pub(crate) fn corrupt(&self, what: impl Into<String>) -> TableError {
        TableError::Corrupt {
            origin: self.clone(),
            what: what.into(),
        }
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::File(p) => write!(f, "{}", p.display()),
            Origin::Bytes => f.write_str("the table data"),
        }
    }
}

// The default paths of every kind of table: one folder, one name per rules and objective.

/// Environment variable naming the folder of the default tables.
pub const TABLE_DIR_ENV: &str = "YAHTZEE_TABLE_DIR";

/// The folder of the default tables: `$YAHTZEE_TABLE_DIR`, else the user's cache folder.
pub fn default_table_dir() -> PathBuf {
    match std::env::var_os(TABLE_DIR_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => dirs::cache_dir()
            .unwrap_or_else(std::env::temp_dir)
            .join("yahtzee"),
    }
}

/// File name of the default expected-score table of `rules`, e.g.
/// `yahtzee-upper-first.v4.table`.
pub fn default_table_name(rules: &Rules) -> String {
    default_table_name_of(rules, EXPECTED_SCORE)
}

/// The rules and objective whose default table file is named `name` (see
/// [`default_table_name_of`]), if it is such a name: what a message about a missing file of
/// that name can suggest building.
pub fn default_table_of_name(name: &str) -> Option<(Rules, &'static str)> {
    Rules::all()
        .flat_map(|rules| {
            [EXPECTED_SCORE, TARGET, DISTRIBUTION, TWO_PLAYER].map(move |kind| (rules, kind))
        })
        .find(|(rules, kind)| default_table_name_of(rules, kind) == name)
}

/// File name of the default table of `rules` for `objective`: the expected-score table's
/// `yahtzee.v4.table`, the others' `yahtzee.target.v4.table`.
pub fn default_table_name_of(rules: &Rules, objective: &str) -> String {
    let modifier = match rules.order {
        Order::Any => "",
        Order::UpperFirst => "-upper-first",
    };
    let kind = if objective == EXPECTED_SCORE {
        String::new()
    } else {
        format!(".{objective}")
    };
    format!(
        "{}{modifier}{kind}.v{FORMAT_VERSION}.table",
        rules.set.name()
    )
}

/// The default table path of `rules`.
pub fn default_table_path(rules: &Rules) -> PathBuf {
    default_table_dir().join(default_table_name(rules))
}

/// The default table path of `rules` for `objective`.
pub fn default_table_path_of(rules: &Rules, objective: &str) -> PathBuf {
    default_table_dir().join(default_table_name_of(rules, objective))
}

/// Errors in reading or writing a table. Each message says what is wrong
/// ([`TableError::problem`]) and how to fix it ([`TableError::fix`]), in words: the messages
/// name no command or flag, since the fix depends on the front end (the binary follows the
/// problem with its own fix, the command that rebuilds the file: see
/// [`TableError::needs_rebuild`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// The file cannot be read (missing, a folder, no permission). Fix: build the table of
    /// the rules at that path, or give the path of an existing table.
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        cause: std::io::Error,
    },
    /// The file cannot be written (read-only or full folder, a file where a folder should
    /// be). Fix: write it to a writable folder.
    Write {
        /// The file.
        path: PathBuf,
        /// What the system said.
        cause: std::io::Error,
    },
    /// The data does not start with the table [`MAGIC`](container::MAGIC): it is not a table
    /// at all (perhaps another file given by mistake, which must not be overwritten). Fix:
    /// give a table.
    Magic {
        /// Where the data came from.
        origin: Origin,
    },
    /// The table was written in another format version. Fix: rebuild it with this program.
    Version {
        /// Where the data came from.
        origin: Origin,
        /// [`FORMAT_VERSION`](container::FORMAT_VERSION).
        expected: u32,
        /// The version the data states.
        got: u32,
    },
    /// The data ends early (an interrupted copy, a full disk). Fix: rebuild it.
    Truncated {
        /// Where the data came from.
        origin: Origin,
        /// Bytes the table should have (at least).
        expected: u64,
        /// Bytes it has.
        got: u64,
    },
    /// The data is damaged or inconsistent. Fix: rebuild it.
    Corrupt {
        /// Where the data came from.
        origin: Origin,
        /// What is wrong.
        what: String,
    },
    /// The body's CRC-32 differs from the header's. Fix: rebuild it.
    Checksum {
        /// Where the data came from.
        origin: Origin,
        /// The checksum in the header.
        expected: u32,
        /// The checksum of the body.
        got: u32,
    },
    /// A card the table does not hold: it was solved for a reduced game only (the last
    /// turns). Fix: solve the whole game.
    Unsolved {
        /// The card's mask of filled boxes.
        filled: BoxMask,
    },
    /// The table is sound but solves another objective (a target table where the
    /// expected-score table was asked for, say). Fix: give the table of the objective asked
    /// for.
    WrongObjective {
        /// Where the data came from.
        origin: Origin,
        /// The objective asked for.
        expected: &'static str,
        /// The objective of the table, as its header names it.
        got: String,
    },
    /// The table is of rules this program does not know: a rules file's game (named
    /// `NAME-DIGEST`) whose file was not given, or a game whose rules differ from those of
    /// the rule set of that name here. Its values cannot be read without them. Fix: give
    /// its rules file.
    UnknownRules {
        /// Where the data came from.
        origin: Origin,
        /// The objective of the table, as its header names it.
        objective: String,
        /// The rules of the table, as its header names them.
        got: String,
    },
    /// The table is sound but of other rules than asked for. Fix: use the table of the rules
    /// asked for, or ask about the rules of this table.
    WrongRules {
        /// Where the data came from.
        origin: Origin,
        /// The rules asked for.
        expected: Rules,
        /// The rules of the table, as its header names them.
        got: String,
        /// The rules of the table, if this program knows them.
        found: Option<Rules>,
    },
}

impl std::fmt::Display for TableError {
    /// The problem, then the fix in words when there is one: `X is truncated (...); solve
    /// its rules again to rebuild it`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.problem())?;
        match self.fix() {
            Some(fix) => write!(f, "; {fix}"),
            None => Ok(()),
        }
    }
}

impl TableError {
    /// What is wrong, without the fix: what a front end with a fix of its own (a command
    /// that rebuilds the file) follows with it, so that no message gives two.
    pub fn problem(&self) -> String {
        match self {
            TableError::Read { path, cause } => {
                format!("cannot read table {}: {cause}", path.display())
            }
            TableError::Write { path, cause } => {
                format!("cannot write table {}: {cause}", path.display())
            }
            TableError::Magic { origin } => {
                format!("{origin} is not a yahtzee table (wrong magic bytes)")
            }
            TableError::Version {
                origin,
                expected,
                got,
            } => format!(
                "{origin} has table format version {got}, this program reads version {expected}"
            ),
            TableError::Truncated {
                origin,
                expected,
                got,
            } => format!("{origin} is truncated ({got} of {expected} bytes)"),
            TableError::Corrupt { origin, what } => format!("{origin} is corrupted ({what})"),
            TableError::Checksum {
                origin,
                expected,
                got,
            } => format!("{origin} is corrupted (checksum {got:08x}, header says {expected:08x})"),
            TableError::Unsolved { filled } => format!(
                "the table holds no values for the card {filled} (it was solved for the last turns only)"
            ),
            TableError::WrongObjective {
                origin,
                expected,
                got,
            } => format!("{origin} holds a table of the objective `{got}`, not `{expected}`"),
            TableError::WrongRules {
                origin,
                expected,
                got,
                ..
            } => format!(
                "{origin} holds the table of {got}, not of {}",
                expected.label()
            ),
            TableError::UnknownRules {
                origin,
                objective,
                got,
            } => format!(
                "{origin} holds the {objective} table of {got}, a game whose rules this command was not given (a rules file's)"
            ),
        }
    }

    /// The fix in words, naming no command or flag (`solve its rules again to rebuild it`),
    /// or `None` where the problem says it all (a file the system cannot read or write).
    pub fn fix(&self) -> Option<String> {
        match self {
            TableError::Read { .. } | TableError::Write { .. } => None,
            TableError::Magic { .. } => Some("give a strategy table file".to_string()),
            TableError::Version { .. }
            | TableError::Truncated { .. }
            | TableError::Corrupt { .. }
            | TableError::Checksum { .. } => {
                Some("solve its rules again to rebuild it".to_string())
            }
            TableError::Unsolved { .. } => Some("solve the whole game".to_string()),
            TableError::WrongObjective { expected, .. } => {
                Some(format!("use a table of `{expected}`"))
            }
            TableError::WrongRules { expected, .. } => {
                Some(format!("use a table of {}", expected.label()))
            }
            // The one fix that names a flag: every front end takes the rules as `--rules`
            // (Python as `rules`), and the table cannot be read without them.
            TableError::UnknownRules { .. } => {
                Some("give that rules file with --rules PATH".to_string())
            }
        }
    }

    /// The error with the data's origin set to the file `path` (for data read from it).
    pub fn at(self, path: &Path) -> TableError {
        let file = Origin::File(path.to_path_buf());
        match self {
            TableError::Magic { .. } => TableError::Magic { origin: file },
            TableError::Version { expected, got, .. } => TableError::Version {
                origin: file,
                expected,
                got,
            },
            TableError::Truncated { expected, got, .. } => TableError::Truncated {
                origin: file,
                expected,
                got,
            },
            TableError::Corrupt { what, .. } => TableError::Corrupt { origin: file, what },
            other => other,
        }
    }

    /// True when the fix is to build the table again at the same place: the file is missing,
    /// of another format version, truncated or corrupted. (A file that is not a table at all
    /// may be something else given by mistake: it is not to be overwritten.)
    pub fn needs_rebuild(&self) -> bool {
        match self {
            TableError::Read { cause, .. } => cause.kind() == std::io::ErrorKind::NotFound,
            TableError::Version { .. }
            | TableError::Truncated { .. }
            | TableError::Corrupt { .. }
            | TableError::Checksum { .. } => true,
            TableError::Magic { .. }
            | TableError::Write { .. }
            | TableError::WrongRules { .. }
            | TableError::UnknownRules { .. }
            | TableError::WrongObjective { .. }
            | TableError::Unsolved { .. } => false,
        }
    }
}
