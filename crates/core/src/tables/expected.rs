//! The strategy table: the solved value of every state, and the file it is saved in.
//!
//! A table file is built once by `yahtzee solve` and loaded by every query. Its layout is
//!
//! ```text
//! magic        8 bytes   "YHTZTBL\0"
//! version      u32 LE    FORMAT_VERSION: read before anything else, so a file of another
//!                        format version is named as such rather than as corrupt
//! header size  u32 LE
//! header       bincode   TableHeader: rule set, modifier, objective, value type, entry
//!                        count, body size, CRC-32 of the body
//! body         bincode   Vec<f64>, the values of the reachable states
//!                        (`state::reachable_rows`), in the order of `state::Layout`
//! ```
//!
//! The header names the objective the table solves: `expected-score` here; the tables of
//! the vector objectives ([`crate::solve::vector`], e.g. `target`) share the magic, the version and
//! the header, with a body of their own.
//!
//! Only reachable states are stored (536,448 of the 1,048,576 entries of the official rules'
//! dense layout): the file is half the size, and loading puts each value back at its place.
//!
//! Loading checks each part in that order and refuses a file of another rule set: a table
//! never answers a question about other rules. The same checks serve a table given as bytes
//! ([`StrategyTable::from_bytes`]; loading a path reads the file and checks its bytes), and
//! the errors say where the table came from ([`Origin`]). A file is written through
//! [`crate::files`], to a temporary name in the same folder renamed into place, so an
//! interrupted write never leaves a half-written table where a table is expected.

use std::fs;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::files;
use crate::game::rules::{Order, RuleSet, Rules};
use crate::game::state::{Layout, State, reachable_rows, reachable_state_count, set_bits};
use crate::solve::expected::{ScoreTable, SolveOptions};

/// First bytes of every table file.
pub const MAGIC: [u8; 8] = *b"YHTZTBL\0";
/// Version of the file format, bumped whenever the layout or the meaning of the values
/// changes; a file of another version is refused.
pub const FORMAT_VERSION: u32 = 3;
/// The value type stored, written into the header.
pub const VALUE_TYPE: &str = "f64";
/// The objective of the expected-score table, written into the header.
pub const EXPECTED_SCORE: &str = "expected-score";
/// Environment variable naming the folder of the default tables.
pub const TABLE_DIR_ENV: &str = "YAHTZEE_TABLE_DIR";

/// Where a table came from, as error messages name it: a file, or bytes handed over by the
/// caller (a server that keeps tables in memory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A table file.
    File(PathBuf),
    /// Bytes given to [`StrategyTable::from_bytes`] or [`StrategyTable::open_bytes`].
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
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::File(p) => write!(f, "{}", p.display()),
            Origin::Bytes => f.write_str("the table data"),
        }
    }
}

/// Errors in reading or writing a table. Each message says what is wrong and how to fix it,
/// in words: the messages name no command or flag, since the fix depends on the front end
/// (the binary adds the command that rebuilds the file, see [`TableError::needs_rebuild`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// The file cannot be read (missing, a folder, no permission). Fix: build the table of
    /// the rules at that path, or give the path of an existing table.
    #[error("cannot read table {path}: {cause}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        cause: std::io::Error,
    },
    /// The file cannot be written (read-only or full folder, a file where a folder should
    /// be). Fix: write it to a writable folder.
    #[error("cannot write table {path}: {cause}")]
    Write {
        /// The file.
        path: PathBuf,
        /// What the system said.
        cause: std::io::Error,
    },
    /// The data does not start with [`MAGIC`]: it is not a table at all (perhaps another
    /// file given by mistake, which must not be overwritten). Fix: give a table.
    #[error("{origin} is not a yahtzee table (wrong magic bytes); give a strategy table file")]
    Magic {
        /// Where the data came from.
        origin: Origin,
    },
    /// The table was written in another format version. Fix: rebuild it with this program.
    #[error(
        "{origin} has table format version {got}, this program reads version {expected}; solve its rules again to rebuild it"
    )]
    Version {
        /// Where the data came from.
        origin: Origin,
        /// [`FORMAT_VERSION`].
        expected: u32,
        /// The version the data states.
        got: u32,
    },
    /// The data ends early (an interrupted copy, a full disk). Fix: rebuild it.
    #[error(
        "{origin} is truncated ({got} of {expected} bytes); solve its rules again to rebuild it"
    )]
    Truncated {
        /// Where the data came from.
        origin: Origin,
        /// Bytes the table should have (at least).
        expected: u64,
        /// Bytes it has.
        got: u64,
    },
    /// The data is damaged or inconsistent. Fix: rebuild it.
    #[error("{origin} is corrupted ({what}); solve its rules again to rebuild it")]
    Corrupt {
        /// Where the data came from.
        origin: Origin,
        /// What is wrong.
        what: String,
    },
    /// The body's CRC-32 differs from the header's. Fix: rebuild it.
    #[error(
        "{origin} is corrupted (checksum {got:08x}, header says {expected:08x}); solve its rules again to rebuild it"
    )]
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
    #[error(
        "the table holds no values for the card {filled} (it was solved for the last turns only); solve the whole game"
    )]
    Unsolved {
        /// The card's mask of filled boxes.
        filled: u16,
    },
    /// The table is sound but solves another objective (a target table where the
    /// expected-score table was asked for, say). Fix: give the table of the objective asked
    /// for.
    #[error(
        "{origin} holds a table of the objective `{got}`, not `{expected}`; use a table of `{expected}`"
    )]
    WrongObjective {
        /// Where the data came from.
        origin: Origin,
        /// The objective asked for.
        expected: &'static str,
        /// The objective of the table, as its header names it.
        got: String,
    },
    /// The table is sound but of other rules than asked for. Fix: use the table of the rules
    /// asked for, or ask about the rules of this table.
    #[error("{origin} holds the table of {got}, not of {expected}; use a table of {expected}", expected = expected.label())]
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

impl TableError {
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
            | TableError::WrongObjective { .. }
            | TableError::Unsolved { .. } => false,
        }
    }
}

/// The header of a table file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableHeader {
    /// Rule set name, e.g. `yahtzee`.
    pub rules: String,
    /// True for the `--upper-first` modifier.
    pub upper_first: bool,
    /// The objective solved: `expected-score` ([`EXPECTED_SCORE`]), `target`, ...
    pub objective: String,
    /// Value type of the body, `f64` or `f32`.
    pub value_type: String,
    /// Number of values.
    pub entries: u64,
    /// Size of the body in bytes.
    pub body_bytes: u64,
    /// CRC-32 of the body.
    pub checksum: u32,
    /// CRC-32 of the index of a vector table's body (what is read before any value); 0 for
    /// the expected-score table.
    pub index_checksum: u32,
    /// The tail left out of a vector table's vectors (see [`crate::solve::vector::TAIL`]); 0 for
    /// the expected-score table.
    pub tail: f64,
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
    /// Solves `rules` (see [`crate::solve::expected::solve`]) and returns the table and the seconds taken.
    pub fn solve(
        rules: &Rules,
        options: SolveOptions,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> (StrategyTable, f64) {
        let solution = crate::solve::expected::solve(rules, options, progress);
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

    /// Writes the table to `path` through a temporary file in the same folder (see
    /// [`crate::files`]), renamed into place once complete and synced; missing folders are
    /// created.
    pub fn save(&self, path: &Path) -> Result<(), TableError> {
        let write_err = |cause| TableError::Write {
            path: path.to_path_buf(),
            cause,
        };
        files::create_folder(files::folder_of(path)).map_err(write_err)?;
        files::write_file(path, |f| self.write_to(f)).map_err(write_err)
    }

    /// Writes the table file's bytes to `out` in one pass over the values: the header goes
    /// first with a blank checksum, the body is checksummed as it is written, and the header
    /// is written again in place (a CRC-32 has a fixed size), hence the `Seek`.
    pub fn write_to<W: Write + Seek>(&self, out: &mut W) -> std::io::Result<()> {
        let entries = reachable_state_count(&self.rules);
        let mut header = TableHeader {
            entries,
            body_bytes: 8 * (1 + entries),
            ..header_for(&self.rules)
        };
        let start = out.stream_position()?;
        let header_bytes = bincode::serialize(&header).expect("a header always serializes");
        out.write_all(&MAGIC)?;
        out.write_all(&FORMAT_VERSION.to_le_bytes())?;
        out.write_all(&(header_bytes.len() as u32).to_le_bytes())?;
        out.write_all(&header_bytes)?;
        let mut checksum = crc32fast::Hasher::new();
        let rows = reachable_rows(&self.rules);
        let size = write_body(entries, &self.values, rows, |bytes| {
            checksum.update(bytes);
            out.write_all(bytes)
        })?;
        debug_assert_eq!(size, header.body_bytes);
        header.checksum = checksum.finalize();
        let again = bincode::serialize(&header).expect("a header always serializes");
        debug_assert_eq!(again.len(), header_bytes.len());
        let end = out.stream_position()?;
        out.seek(SeekFrom::Start(start + (MAGIC.len() + 8) as u64))?;
        out.write_all(&again)?;
        out.seek(SeekFrom::Start(end))?;
        out.flush()
    }

    /// The table file's bytes, as [`StrategyTable::save`] writes them.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        self.write_to(&mut out)
            .expect("writing to memory cannot fail");
        out.into_inner()
    }

    /// Loads the table of `rules` from `path`: reads the file and checks it as
    /// [`StrategyTable::from_bytes`] does, with the path in the errors.
    pub fn load(path: &Path, rules: &Rules) -> Result<StrategyTable, TableError> {
        let bytes = read(path)?;
        StrategyTable::checked(&bytes, Origin::File(path.to_path_buf()), rules)
    }

    /// The table of `rules` from the bytes of a table file, refusing a table of other rules,
    /// of another format version, truncated or corrupted.
    pub fn from_bytes(bytes: &[u8], rules: &Rules) -> Result<StrategyTable, TableError> {
        StrategyTable::checked(bytes, Origin::Bytes, rules)
    }

    fn checked(bytes: &[u8], origin: Origin, rules: &Rules) -> Result<StrategyTable, TableError> {
        let (header, values_at) = check_bytes(bytes, &origin)?;
        let expected = header_for(rules);
        if header.rules != expected.rules || header.upper_first != expected.upper_first {
            let found = header.rules();
            let got = found.map_or_else(|| crate::text::excerpt(&header.rules), |r| r.label());
            return Err(TableError::WrongRules {
                origin,
                expected: *rules,
                got,
                found,
            });
        }
        StrategyTable::from_parts(&origin, *rules, &bytes[values_at..])
    }

    /// Loads whatever table is at `path`, with the rules its header names: what `yahtzee
    /// verify` checks.
    pub fn open(path: &Path) -> Result<(TableHeader, StrategyTable), TableError> {
        let bytes = read(path)?;
        StrategyTable::opened(&bytes, Origin::File(path.to_path_buf()))
    }

    /// Whatever table `bytes` hold, with the rules its header names.
    pub fn open_bytes(bytes: &[u8]) -> Result<(TableHeader, StrategyTable), TableError> {
        StrategyTable::opened(bytes, Origin::Bytes)
    }

    fn opened(bytes: &[u8], origin: Origin) -> Result<(TableHeader, StrategyTable), TableError> {
        let (header, values_at) = check_bytes(bytes, &origin)?;
        let Some(rules) = header.rules() else {
            return Err(TableError::Corrupt {
                origin,
                what: format!("unknown rule set `{}`", crate::text::excerpt(&header.rules)),
            });
        };
        let table = StrategyTable::from_parts(&origin, rules, &bytes[values_at..])?;
        Ok((header, table))
    }

    /// The table of `rules` from the stored values (`stored`: 8 bytes each), each put back
    /// at its place in the dense layout.
    fn from_parts(
        origin: &Origin,
        rules: Rules,
        stored: &[u8],
    ) -> Result<StrategyTable, TableError> {
        let layout = Layout::of(&rules);
        let entries = reachable_state_count(&rules);
        if stored.len() as u64 != 8 * entries {
            return Err(TableError::Corrupt {
                origin: origin.clone(),
                what: format!(
                    "{} values where {} rules have {entries} reachable states",
                    stored.len() / 8,
                    rules.label(),
                ),
            });
        }
        let mut values = vec![0.0; layout.len()];
        let mut stored = stored.chunks_exact(8);
        for (row, uppers) in reachable_rows(&rules) {
            for u in set_bits(uppers) {
                let v = stored.next().expect("as many values as reachable states");
                let v = f64::from_le_bytes(v.try_into().expect("eight bytes"));
                // No solve writes a value that is not finite: only a crafted file can.
                if !v.is_finite() {
                    return Err(TableError::Corrupt {
                        origin: origin.clone(),
                        what: format!("a value that is not a number ({v})"),
                    });
                }
                values[row + u] = v;
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
        objective: EXPECTED_SCORE.to_string(),
        value_type: VALUE_TYPE.to_string(),
        entries: 0,
        body_bytes: 0,
        checksum: 0,
        index_checksum: 0,
        tail: 0.0,
    }
}

/// True when the file at `path` starts with the table [`MAGIC`]: a strategy table (perhaps
/// damaged), which no output of the program overwrites.
pub fn holds_table(path: &Path) -> bool {
    use std::io::Read;
    let mut start = [0u8; MAGIC.len()];
    fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut start))
        .is_ok_and(|()| start == MAGIC)
}

pub(crate) fn read(path: &Path) -> Result<Vec<u8>, TableError> {
    fs::read(path).map_err(|cause| TableError::Read {
        path: path.to_path_buf(),
        cause,
    })
}

/// The header of a table file's bytes, checked as far as the header goes (magic, version,
/// header size), without the body: what a front end reads to name the rules of a damaged
/// table in its fix.
pub fn read_header(bytes: &[u8]) -> Result<TableHeader, TableError> {
    header_of(bytes, &Origin::Bytes).map(|(h, _)| h)
}

/// The header and where the body starts.
pub(crate) fn header_of(bytes: &[u8], origin: &Origin) -> Result<(TableHeader, usize), TableError> {
    let truncated = |expected: u64| TableError::Truncated {
        origin: origin.clone(),
        expected,
        got: bytes.len() as u64,
    };
    let corrupt = |what: String| TableError::Corrupt {
        origin: origin.clone(),
        what,
    };
    let prefix = MAGIC.len() + 8;
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        if bytes.len() < MAGIC.len() && MAGIC.starts_with(bytes) && !bytes.is_empty() {
            return Err(truncated(prefix as u64));
        }
        return Err(TableError::Magic {
            origin: origin.clone(),
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
            origin: origin.clone(),
            expected: FORMAT_VERSION,
            got: version,
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
    Ok((header, body_at))
}

/// Checks that a header is of `objective` with values of `value_type`.
pub(crate) fn check_kind(
    header: &TableHeader,
    origin: &Origin,
    objective: &'static str,
    value_type: &str,
) -> Result<(), TableError> {
    if header.objective != objective {
        return Err(TableError::WrongObjective {
            origin: origin.clone(),
            expected: objective,
            got: crate::text::excerpt(&header.objective),
        });
    }
    if header.value_type != value_type {
        return Err(TableError::Corrupt {
            origin: origin.clone(),
            what: format!("value type `{}`", crate::text::excerpt(&header.value_type)),
        });
    }
    Ok(())
}

/// Checks a table file's bytes part by part and returns its header and where the stored
/// values start.
fn check_bytes(bytes: &[u8], origin: &Origin) -> Result<(TableHeader, usize), TableError> {
    let (header, body_at) = header_of(bytes, origin)?;
    check_kind(&header, origin, EXPECTED_SCORE, VALUE_TYPE)?;
    let corrupt = |what: String| TableError::Corrupt {
        origin: origin.clone(),
        what,
    };
    // The fields of a vector table are 0 here (found by fuzzing: a table with another tail
    // loaded, and wrote back other bytes than it was read from).
    if header.index_checksum != 0 || header.tail.to_bits() != 0 {
        return Err(corrupt(
            "header with an index checksum or a tail, which an expected-score table has not"
                .to_string(),
        ));
    }
    // Saturating: a header may state any body size, up to u64::MAX (found by fuzzing).
    let expected_len = (body_at as u64).saturating_add(header.body_bytes);
    if (bytes.len() as u64) < expected_len {
        return Err(TableError::Truncated {
            origin: origin.clone(),
            expected: expected_len,
            got: bytes.len() as u64,
        });
    }
    if (bytes.len() as u64) > expected_len {
        return Err(corrupt(format!(
            "{} after the end of the table",
            crate::text::plural(bytes.len() as u64 - expected_len, "byte", "bytes")
        )));
    }
    let body = &bytes[body_at..];
    let checksum = crc32fast::hash(body);
    if checksum != header.checksum {
        return Err(TableError::Checksum {
            origin: origin.clone(),
            expected: header.checksum,
            got: checksum,
        });
    }
    let count = body_count(body).ok_or_else(|| corrupt("unreadable values".to_string()))?;
    if count != header.entries {
        return Err(corrupt(format!(
            "{count} values, header says {}",
            header.entries
        )));
    }
    Ok((header, body_at + 8))
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

/// File name of the default expected-score table of `rules`, e.g.
/// `yahtzee-upper-first.v3.table`.
pub fn default_table_name(rules: &Rules) -> String {
    default_table_name_of(rules, EXPECTED_SCORE)
}

/// File name of the default table of `rules` for `objective`: the expected-score table's
/// `yahtzee.v3.table`, the others' `yahtzee.target.v3.table`.
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
