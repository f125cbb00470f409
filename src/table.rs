//! The strategy table: the solved value of every state, and the file it is saved in.
//!
//! A table file is built once by `yahtzee solve` and loaded by every query. Its layout is
//!
//! ```text
//! magic        8 bytes   "YHTZTBL\0"
//! version      u32 LE    FORMAT_VERSION: read before anything else, so a file of another
//!                        format version is named as such rather than as corrupt
//! header size  u32 LE
//! header       bincode   TableHeader: rule set, modifier, value type, entry count,
//!                        body size, CRC-32 of the body
//! body         bincode   Vec<f64>, the values of the reachable states
//!                        (`state::reachable_rows`), in the order of `state::Layout`
//! ```
//!
//! Only reachable states are stored (536,448 of the 1,048,576 entries of the official rules'
//! dense layout): the file is half the size, and loading puts each value back at its place.
//!
//! Loading checks each part in that order and refuses a file of another rule set: a table
//! never answers a question about other rules. A file is written to a temporary name in the
//! same folder and renamed into place, so an interrupted write never leaves a half-written
//! table where a table is expected.

use std::fs;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::rules::{Order, RuleSet, Rules};
use crate::solver::{self, ScoreTable, SolveOptions};
use crate::state::{Layout, State, reachable_rows, reachable_state_count, set_bits};
use std::sync::Arc;

/// First bytes of every table file.
pub const MAGIC: [u8; 8] = *b"YHTZTBL\0";
/// Version of the file format, bumped whenever the layout or the meaning of the values
/// changes; a file of another version is refused.
pub const FORMAT_VERSION: u32 = 2;
/// The value type stored, written into the header.
pub const VALUE_TYPE: &str = "f64";
/// Environment variable naming the folder of the default tables.
pub const TABLE_DIR_ENV: &str = "YAHTZEE_TABLE_DIR";

/// Errors in reading or writing a table file. Each message says how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("cannot read table {path}: {cause}; build it with `yahtzee solve {flags}`")]
    Read {
        path: PathBuf,
        flags: String,
        cause: std::io::Error,
    },
    #[error("cannot write table {path}: {cause}; choose a writable place with --out or ${env}")]
    Write {
        path: PathBuf,
        env: &'static str,
        cause: std::io::Error,
    },
    #[error(
        "{path} is not a yahtzee table (wrong magic bytes); rebuild it with `yahtzee solve {flags}`"
    )]
    Magic { path: PathBuf, flags: String },
    #[error(
        "{path} has table format version {got}, this program reads version {expected}; rebuild it with `yahtzee solve {flags}`"
    )]
    Version {
        path: PathBuf,
        expected: u32,
        got: u32,
        flags: String,
    },
    #[error(
        "{path} is truncated ({got} of {expected} bytes); rebuild it with `yahtzee solve {flags}`"
    )]
    Truncated {
        path: PathBuf,
        expected: u64,
        got: u64,
        flags: String,
    },
    #[error("{path} is corrupted ({what}); rebuild it with `yahtzee solve {flags}`")]
    Corrupt {
        path: PathBuf,
        what: String,
        flags: String,
    },
    #[error(
        "{path} is corrupted (checksum {got:08x}, header says {expected:08x}); rebuild it with `yahtzee solve {flags}`"
    )]
    Checksum {
        path: PathBuf,
        expected: u32,
        got: u32,
        flags: String,
    },
    #[error(
        "{path} holds the table of {got}, not of {expected}; use the table of {expected} (build it with `yahtzee solve {flags}`) or pass the matching --rules"
    )]
    WrongRules {
        path: PathBuf,
        expected: String,
        got: String,
        flags: String,
    },
}

/// The header of a table file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableHeader {
    /// Rule set name, e.g. `yahtzee`.
    pub rules: String,
    /// True for the `--upper-first` modifier.
    pub upper_first: bool,
    /// Value type of the body, `f64`.
    pub value_type: String,
    /// Number of values.
    pub entries: u64,
    /// Size of the body in bytes.
    pub body_bytes: u64,
    /// CRC-32 of the body.
    pub checksum: u32,
}

impl TableHeader {
    /// The rules named by the header, if this program knows them.
    pub fn rules(&self) -> Option<Rules> {
        let set = RuleSet::from_name(&self.rules)?;
        Some(Rules::with_order(
            set,
            if self.upper_first {
                Order::UpperFirst
            } else {
                Order::Any
            },
        ))
    }
}

/// The solved values of every state of one rule set.
#[derive(Clone, Debug)]
pub struct StrategyTable {
    rules: Rules,
    layout: Layout,
    values: Vec<f64>,
    scores: Arc<ScoreTable>,
}

impl StrategyTable {
    /// Solves `rules` (see [`solver::solve`]) and returns the table and the seconds taken.
    pub fn solve(
        rules: &Rules,
        options: SolveOptions,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> (StrategyTable, f64) {
        let solution = solver::solve(rules, options, progress);
        (
            StrategyTable {
                rules: *rules,
                layout: Layout::of(rules),
                values: solution.values,
                scores: Arc::new(ScoreTable::new(rules)),
            },
            solution.seconds,
        )
    }

    /// The rules of this table.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Where each state sits in [`StrategyTable::values`].
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Points of every box for every roll, without Joker (for the solver's turn kernel).
    pub(crate) fn scores(&self) -> &ScoreTable {
        &self.scores
    }

    /// All values, in the order of [`Layout`].
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Expected future score of a state under optimal play: the points still to come,
    /// bonuses included.
    pub fn value(&self, state: &State) -> f64 {
        self.values[self.layout.index(state)]
    }

    /// Expected final score of an empty card.
    pub fn expected_score(&self) -> f64 {
        self.value(&State::START)
    }

    /// Number of reachable turn-start states (full cards included).
    pub fn states(&self) -> u64 {
        reachable_state_count(&self.rules)
    }

    /// Writes the table to `path` through a temporary file in the same folder, renamed into
    /// place once complete.
    pub fn save(&self, path: &Path) -> Result<(), TableError> {
        let write_err = |cause| TableError::Write {
            path: path.to_path_buf(),
            env: TABLE_DIR_ENV,
            cause,
        };
        let entries = reachable_state_count(&self.rules);
        let mut header = TableHeader {
            rules: self.rules.set.name().to_string(),
            upper_first: self.rules.order == Order::UpperFirst,
            value_type: VALUE_TYPE.to_string(),
            entries,
            body_bytes: 8 * (1 + entries),
            checksum: 0,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(write_err)?;
        }
        let tmp = temporary_name(path);
        let result = (|| {
            // One pass over the values: the header goes first with a blank checksum, the body
            // is checksummed as it is written, and the header is written again in place (a
            // CRC-32 has a fixed size).
            let mut f = fs::File::create(&tmp)?;
            let header_bytes = bincode::serialize(&header).expect("a header always serializes");
            f.write_all(&MAGIC)?;
            f.write_all(&FORMAT_VERSION.to_le_bytes())?;
            f.write_all(&(header_bytes.len() as u32).to_le_bytes())?;
            f.write_all(&header_bytes)?;
            let mut checksum = crc32fast::Hasher::new();
            let rows = reachable_rows(&self.rules);
            let size = write_body(entries, &self.values, rows, |bytes| {
                checksum.update(bytes);
                f.write_all(bytes)
            })?;
            debug_assert_eq!(size, header.body_bytes);
            header.checksum = checksum.finalize();
            let again = bincode::serialize(&header).expect("a header always serializes");
            debug_assert_eq!(again.len(), header_bytes.len());
            f.seek(SeekFrom::Start((MAGIC.len() + 8) as u64))?;
            f.write_all(&again)?;
            f.sync_all()?;
            fs::rename(&tmp, path)
        })();
        if let Err(e) = result {
            let _ = fs::remove_file(&tmp);
            return Err(write_err(e));
        }
        Ok(())
    }

    /// Loads the table of `rules` from `path`, refusing a file of other rules, of another
    /// format version, truncated or corrupted.
    pub fn load(path: &Path, rules: &Rules) -> Result<StrategyTable, TableError> {
        let (header, values) = read_file(path, &rules.flags())?;
        let values = values.bytes();
        let expected = header_for(rules);
        if header.rules != expected.rules || header.upper_first != expected.upper_first {
            let got = header
                .rules()
                .map(|r| r.label())
                .unwrap_or_else(|| header.rules.clone());
            return Err(TableError::WrongRules {
                path: path.to_path_buf(),
                expected: rules.label(),
                got,
                flags: rules.flags(),
            });
        }
        StrategyTable::from_parts(path, *rules, values)
    }

    /// Loads whatever table is at `path`, with the rules its header names: what `yahtzee
    /// verify` checks.
    pub fn open(path: &Path) -> Result<(TableHeader, StrategyTable), TableError> {
        let (header, values) = read_file(path, "--rules RULES")?;
        let values = values.bytes();
        let rules = header.rules().ok_or_else(|| TableError::Corrupt {
            path: path.to_path_buf(),
            what: format!("unknown rule set `{}`", header.rules),
            flags: "--rules RULES".to_string(),
        })?;
        let table = StrategyTable::from_parts(path, rules, values)?;
        Ok((header, table))
    }

    /// The table of `rules` from the stored values (`stored`: 8 bytes each), each put back
    /// at its place in the dense layout.
    fn from_parts(path: &Path, rules: Rules, stored: &[u8]) -> Result<StrategyTable, TableError> {
        let layout = Layout::of(&rules);
        let entries = reachable_state_count(&rules);
        if stored.len() as u64 != 8 * entries {
            return Err(TableError::Corrupt {
                path: path.to_path_buf(),
                what: format!(
                    "{} values where {} rules have {entries} reachable states",
                    stored.len() / 8,
                    rules.label(),
                ),
                flags: rules.flags(),
            });
        }
        let mut values = vec![0.0; layout.len()];
        let mut stored = stored.chunks_exact(8);
        for (row, uppers) in reachable_rows(&rules) {
            for u in set_bits(uppers) {
                let v = stored.next().expect("as many values as reachable states");
                values[row + u] = f64::from_le_bytes(v.try_into().expect("eight bytes"));
            }
        }
        Ok(StrategyTable {
            rules,
            layout,
            values,
            scores: Arc::new(ScoreTable::new(&rules)),
        })
    }
}

fn header_for(rules: &Rules) -> TableHeader {
    TableHeader {
        rules: rules.set.name().to_string(),
        upper_first: rules.order == Order::UpperFirst,
        value_type: VALUE_TYPE.to_string(),
        entries: 0,
        body_bytes: 0,
        checksum: 0,
    }
}

/// A temporary name beside `path`, unique to this process.
pub fn temporary_name(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp{}", std::process::id()));
    path.with_file_name(name)
}

/// A table file read and checked: its bytes, and where the stored values start.
struct FileBytes {
    bytes: Vec<u8>,
    values_at: usize,
}

impl FileBytes {
    /// The stored values, 8 bytes each.
    fn bytes(&self) -> &[u8] {
        &self.bytes[self.values_at..]
    }
}

fn read_file(path: &Path, flags: &str) -> Result<(TableHeader, FileBytes), TableError> {
    let flags = flags.to_string();
    let bytes = fs::read(path).map_err(|cause| TableError::Read {
        path: path.to_path_buf(),
        flags: flags.clone(),
        cause,
    })?;
    let truncated = |expected: u64| TableError::Truncated {
        path: path.to_path_buf(),
        expected,
        got: bytes.len() as u64,
        flags: flags.clone(),
    };
    let corrupt = |what: String| TableError::Corrupt {
        path: path.to_path_buf(),
        what,
        flags: flags.clone(),
    };
    let prefix = MAGIC.len() + 8;
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        if bytes.len() < MAGIC.len() && MAGIC.starts_with(&bytes) && !bytes.is_empty() {
            return Err(truncated(prefix as u64));
        }
        return Err(TableError::Magic {
            path: path.to_path_buf(),
            flags,
        });
    }
    if bytes.len() < prefix {
        return Err(truncated(prefix as u64));
    }
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let version = word(MAGIC.len());
    if version != FORMAT_VERSION {
        return Err(TableError::Version {
            path: path.to_path_buf(),
            expected: FORMAT_VERSION,
            got: version,
            flags,
        });
    }
    let header_len = word(MAGIC.len() + 4) as usize;
    if header_len > 4096 {
        return Err(corrupt(format!("header of {header_len} bytes")));
    }
    let body_at = prefix + header_len;
    if bytes.len() < body_at {
        return Err(truncated(body_at as u64));
    }
    let header: TableHeader = bincode::deserialize(&bytes[prefix..body_at])
        .map_err(|e| corrupt(format!("unreadable header: {e}")))?;
    if header.value_type != VALUE_TYPE {
        return Err(corrupt(format!("value type `{}`", header.value_type)));
    }
    let expected_len = body_at as u64 + header.body_bytes;
    if (bytes.len() as u64) < expected_len {
        return Err(truncated(expected_len));
    }
    if (bytes.len() as u64) > expected_len {
        return Err(corrupt(format!(
            "{} bytes after the end of the table",
            bytes.len() as u64 - expected_len
        )));
    }
    let body = &bytes[body_at..];
    let checksum = crc32fast::hash(body);
    if checksum != header.checksum {
        return Err(TableError::Checksum {
            path: path.to_path_buf(),
            expected: header.checksum,
            got: checksum,
            flags,
        });
    }
    let count = body_count(body).ok_or_else(|| corrupt("unreadable values".to_string()))?;
    if count != header.entries {
        return Err(corrupt(format!(
            "{count} values, header says {}",
            header.entries
        )));
    }
    let values_at = body_at + 8;
    Ok((header, FileBytes { bytes, values_at }))
}

/// Values per piece of the body written at a time.
const BODY_PIECE: usize = 32 * 1024;

/// Passes the body of a table storing the `count` values of `rows` (row start and set of
/// totals, as `state::reachable_rows` lists them) to `write`, piece by piece, and returns its
/// size. The body is what bincode writes for a `Vec<f64>` (the count as a little-endian
/// u64, then each value little-endian), made here in pieces so that saving copies no more than
/// a piece of the values at a time.
fn write_body(
    count: u64,
    values: &[f64],
    rows: impl Iterator<Item = (usize, u64)>,
    mut write: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<u64> {
    write(&count.to_le_bytes())?;
    let mut piece = Vec::with_capacity(BODY_PIECE * 8);
    let mut written = 0;
    for (row, uppers) in rows {
        for u in set_bits(uppers) {
            piece.extend_from_slice(&values[row + u].to_le_bytes());
        }
        // A row adds at most 64 values: flush before the piece could grow.
        if piece.len() + 64 * 8 > piece.capacity() {
            write(&piece)?;
            written += piece.len();
            piece.clear();
        }
    }
    write(&piece)?;
    written += piece.len();
    debug_assert_eq!(written as u64, 8 * count);
    Ok(8 + written as u64)
}

/// The count of values of a body made by [`write_body`], or `None` if it does not match the
/// body's size.
fn body_count(body: &[u8]) -> Option<u64> {
    let (count, values) = body.split_first_chunk::<8>()?;
    let count = u64::from_le_bytes(*count);
    (values.len() % 8 == 0 && count == values.len() as u64 / 8).then_some(count)
}

/// The folder of the default tables: `$YAHTZEE_TABLE_DIR`, else the user's cache folder.
pub fn default_table_dir() -> PathBuf {
    match std::env::var_os(TABLE_DIR_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => dirs::cache_dir()
            .unwrap_or_else(std::env::temp_dir)
            .join("yahtzee"),
    }
}

/// File name of the default table of `rules`, e.g. `yahtzee-upper-first.v1.table`.
pub fn default_table_name(rules: &Rules) -> String {
    let modifier = match rules.order {
        Order::Any => "",
        Order::UpperFirst => "-upper-first",
    };
    format!("{}{modifier}.v{FORMAT_VERSION}.table", rules.set.name())
}

/// The default table path of `rules`.
pub fn default_table_path(rules: &Rules) -> PathBuf {
    default_table_dir().join(default_table_name(rules))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_is_bincode_of_the_values() {
        // More than one piece, and values whose bytes differ from end to end.
        let values: Vec<f64> = (0..BODY_PIECE * 2 + 5)
            .map(|i| i as f64 * 1.25 - 7.0)
            .collect();
        let mut body = Vec::new();
        // Rows of 64, then one of 5 values.
        let rows = (0..values.len())
            .step_by(64)
            .map(|row| (row, u64::MAX >> (64 - (values.len() - row).min(64))));
        let size = write_body(values.len() as u64, &values, rows, |bytes| {
            body.extend_from_slice(bytes);
            Ok(())
        })
        .unwrap();
        assert_eq!(body, bincode::serialize(&values).unwrap());
        assert_eq!(size, body.len() as u64);
        assert_eq!(body_count(&body), Some(values.len() as u64));
        // A count that does not match the size, and a size that is not whole values.
        let mut wrong = body.clone();
        wrong[0] ^= 1;
        assert_eq!(body_count(&wrong), None);
        assert_eq!(body_count(&body[..body.len() - 3]), None);
        assert_eq!(body_count(&body[..5]), None);
    }

    #[test]
    fn stores_only_reachable_states_and_puts_them_back() {
        let rules = Rules::with_order(RuleSet::YAHTZEE, Order::UpperFirst);
        let (table, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.table");
        table.save(&path).unwrap();
        let header_and_prefix = fs::metadata(&path).unwrap().len() - 8 * table.states();
        assert!(
            header_and_prefix < 200,
            "{header_and_prefix} bytes beside the values"
        );
        let loaded = StrategyTable::load(&path, &rules).unwrap();
        assert_eq!(loaded.values(), table.values());
    }
}
