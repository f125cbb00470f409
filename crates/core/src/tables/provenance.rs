//! Provenance: what every JSON result says of where it comes from, beside its rules (which
//! every result holds already, as `rules` and `upper_first`): the program's version and the
//! checksum of the expected-score table read. One helper ([`stamped`]) adds it to any
//! `Serialize` result, so that the commands' results (the reports), the batch answers
//! and the exports' metadata state it alike.

use serde::Serialize;

use crate::tables::expected::StrategyTable;
use crate::tables::set::{TableKind, TableSet};

/// The version of the program, as every JSON result states it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Where a result comes from, as every JSON result states it beside its rules (which each
/// result holds already, as `rules` and `upper_first`): the program's version and the
/// checksum of the expected-score table it read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Provenance {
    /// The program's version ([`VERSION`]).
    pub version: &'static str,
    /// The CRC-32 of the expected-score table read (8 hexadecimal digits, what `yahtzee
    /// verify` prints); absent when no table was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_checksum: Option<String>,
}

impl Provenance {
    /// The provenance of a result computed from `table` (or from no table).
    pub fn of(table: Option<&StrategyTable>) -> Provenance {
        Provenance {
            version: VERSION,
            table_checksum: table.map(|t| format!("{:08x}", t.checksum())),
        }
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
    if set.rules().saved_rolls() {
        // The table of saved rolls, read in part for each question.
        return Stamped {
            result,
            provenance: Provenance {
                version: VERSION,
                table_checksum: set.saved_checksum().map(|c| format!("{c:08x}")),
            },
        };
    }
    let read = set
        .asked_for(TableKind::ExpectedScore)
        .then(|| set.ev().ok())
        .flatten();
    stamped(result, read.map(|t| &**t))
}
