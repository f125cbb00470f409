//! The container every table file shares, written and read here once for every table:
//!
//! ```text
//! magic        8 bytes   "YHTZTBL\0"
//! version      u32 LE    FORMAT_VERSION: read before anything else, so a file of another
//!                        format version is named as such rather than as corrupt
//! header size  u32 LE
//! header       bincode   TableHeader: rule set, modifier, the SHA-256 of the game,
//!                        objective, value type, entry count, body size, CRC-32 of the
//!                        body, CRC-32 of the index, tail
//! body         the table's own: the expected-score values then the CRC-32 of each piece
//!              of them (`expected.rs`), or an index then values in pieces (`vector.rs`,
//!              `two_player.rs`)
//! ```
//!
//! A table is written in one pass ([`write_table`]): the header goes first with a blank
//! checksum, the body is checksummed as it is written, and the header is written again in
//! place (a CRC-32 has a fixed size), hence the `Seek`; it is saved through
//! [`crate::files`] ([`save`]), to a temporary renamed into place. It is read back and
//! checked part by part: the magic, the version and the header ([`Head::of`]), the objective
//! and value type ([`Head::check_kind`]), the rules ([`Head::check_rules`]: the name, the
//! modifier and the whole SHA-256 of the game, so that a table is never used for other rules,
//! even rules forged to share a name), the length ([`Head::check_length`]), then the
//! checksums.
//!
//! The tables whose values are read when first asked for (the vector tables, the early plies
//! of the game of two) share more: their body is an index, then `f32` values in pieces (a
//! card's, a mover card's), each listed in the index by its first value, its number of
//! values and their CRC-32 ([`Piece`]), and checked by it when read; a stored vector's range
//! is 12 bytes of the index ([`push_range`], [`range_at`]). Such a file is opened with
//! [`TableFile::open`], which reads and checks no more than the header.
//!
//! An output of the program never overwrites a table: [`check_output`] refuses a path that
//! holds one ([`holds_table`]: it starts with the magic).

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::files;
use crate::game::rules::{Order, RuleSet, Rules};
use crate::solve::vector::Range;
use crate::tables::{Origin, TableError};
use crate::text::excerpt;

/// First bytes of every table file.
pub const MAGIC: [u8; 8] = *b"YHTZTBL\0";
/// Version of the file format, bumped whenever the layout or the meaning of the values
/// changes; a file of another version is refused. Version 4: the header holds the SHA-256 of
/// the game (version 3 named a rules file's game by a CRC-32, which can be forged).
pub const FORMAT_VERSION: u32 = 4;
/// Bytes before the header: the magic, the version and the header's size.
const PREFIX: usize = MAGIC.len() + 8;
/// The largest header read: a header names a rule set and an objective, far less.
const MAX_HEADER: usize = 4096;

/// The header of a table file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableHeader {
    /// Rule set name, e.g. `yahtzee`.
    pub rules: String,
    /// True for the `--upper-first` modifier.
    pub upper_first: bool,
    /// The identity of the game: the SHA-256 of its description
    /// ([`RuleSet::digest`]), 64 hexadecimal digits. A table is used for the rules of its
    /// name only when their digest is this one.
    pub game: String,
    /// The objective solved: `expected-score`, `target`, `distribution`, `two-player`.
    pub objective: String,
    /// Value type of the body, `f64` or `f32`.
    pub value_type: String,
    /// Number of values.
    pub entries: u64,
    /// Size of the body in bytes.
    pub body_bytes: u64,
    /// CRC-32 of the body.
    pub checksum: u32,
    /// CRC-32 of the index of the body: a vector table's (what is read before any value),
    /// or the expected-score table's checksums of its pieces (read before any piece of a
    /// table read in part).
    pub index_checksum: u32,
    /// The tail left out of a vector table's vectors (see [`crate::solve::vector::TAIL`]); 0
    /// for the expected-score table.
    pub tail: f64,
}

impl TableHeader {
    /// The header of a table of `rules` solving `objective` in values of `value_type`, with
    /// blank sizes and checksums and no tail.
    pub(crate) fn new(rules: &Rules, objective: &str, value_type: &str) -> TableHeader {
        TableHeader {
            rules: rules.set.name().to_string(),
            upper_first: rules.order == Order::UpperFirst,
            game: rules.set.digest().to_string(),
            objective: objective.to_string(),
            value_type: value_type.to_string(),
            entries: 0,
            body_bytes: 0,
            checksum: 0,
            index_checksum: 0,
            tail: 0.0,
        }
    }

    /// The rules named by the header, if this program knows them: a built-in rule set, or
    /// a rules file's loaded in this run, whose game is the one of the header's digest.
    pub fn rules(&self) -> Option<Rules> {
        let set = RuleSet::from_name(&self.rules)?;
        (set.digest().to_string() == self.game).then(|| Rules::with_order(set, self.order()))
    }

    /// True when the table is of `rules`: their name, their modifier and their game's digest.
    pub fn is_of(&self, rules: &Rules) -> bool {
        self.rules == rules.set.name()
            && self.order() == rules.order
            && self.game == rules.set.digest().to_string()
    }

    /// The modifier the header names.
    fn order(&self) -> Order {
        if self.upper_first {
            Order::UpperFirst
        } else {
            Order::Any
        }
    }

    /// The rules of the table in words, for messages: their label when this program knows
    /// them, else the name the header gives (an excerpt), said to be another game when a
    /// rule set of that name here is not that game.
    pub fn rules_label(&self) -> String {
        if let Some(rules) = self.rules() {
            return rules.label();
        }
        let name = excerpt(&self.rules);
        let label = match self.order() {
            Order::Any => name,
            Order::UpperFirst => format!("{name} (upper first)"),
        };
        if RuleSet::from_name(&self.rules).is_some() {
            format!("another game named {label}")
        } else {
            label
        }
    }
}

/// Writes a table file's bytes to `out` in one pass: the magic, the version and `header`
/// with a blank body checksum, then the body, which `body` passes piece by piece to the
/// writer it is given (each piece checksummed as it is written), then the header again in
/// place with the body's CRC-32. `body` returns the CRC-32 of an index it wrote last, known
/// only once written (the expected-score table's), which the header then holds; `None` when
/// the header holds its index checksum already.
pub(crate) fn write_table<W: Write + Seek>(
    out: &mut W,
    mut header: TableHeader,
    body: impl FnOnce(&mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<Option<u32>>,
) -> io::Result<()> {
    header.checksum = 0;
    let start = out.stream_position()?;
    let header_bytes = bincode::serialize(&header).expect("a header always serializes");
    out.write_all(&MAGIC)?;
    out.write_all(&FORMAT_VERSION.to_le_bytes())?;
    out.write_all(&(header_bytes.len() as u32).to_le_bytes())?;
    out.write_all(&header_bytes)?;
    let mut checksum = crc32fast::Hasher::new();
    let index_checksum = body(&mut |bytes| {
        checksum.update(bytes);
        out.write_all(bytes)
    })?;
    header.checksum = checksum.finalize();
    if let Some(index_checksum) = index_checksum {
        header.index_checksum = index_checksum;
    }
    let again = bincode::serialize(&header).expect("a header always serializes");
    debug_assert_eq!(again.len(), header_bytes.len());
    let end = out.stream_position()?;
    out.seek(SeekFrom::Start(start + PREFIX as u64))?;
    out.write_all(&again)?;
    out.seek(SeekFrom::Start(end))?;
    out.flush()
}

/// Writes a table file to `path` through a temporary file in the same folder (see
/// [`crate::files`]), renamed into place once complete and synced; missing folders are
/// created. `write` writes the file's bytes (by [`write_table`]) through a buffer.
pub(crate) fn save(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&mut File>) -> io::Result<()>,
) -> Result<(), TableError> {
    let write_err = |cause| TableError::Write {
        path: path.to_path_buf(),
        cause,
    };
    files::create_folder(files::folder_of(path)).map_err(write_err)?;
    files::write_file(path, |f| {
        let mut out = BufWriter::with_capacity(1 << 20, f);
        write(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?;
        Ok(())
    })
    .map_err(write_err)
}

/// The whole table file at `path`: a regular file (never a device or a pipe, which could be
/// endless or block for ever) whose header is read and checked first, and whose length must
/// be what the header says before its body is read (a file of the right header and a
/// gigabyte of trailing bytes is refused, not read).
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, TableError> {
    let table = TableFile::open(path)?;
    table.head.check_length(table.len, 0)?;
    table.read_at(0, table.len as usize)
}

/// The header of a table file's bytes, checked as far as the header goes (magic, version,
/// header size), without the body: what a front end reads to name the rules of a damaged
/// table in its fix.
pub fn read_header(bytes: &[u8]) -> Result<TableHeader, TableError> {
    Head::of(bytes, Origin::Bytes).map(|h| h.header)
}

/// The header of the table file at `path`, read from its first bytes alone (at most the
/// magic, its length and 4 KiB), if it is a regular file holding a readable header.
pub fn header_of_file(path: &Path) -> Option<TableHeader> {
    let mut head = Vec::new();
    files::open_regular(path)
        .ok()?
        .take((PREFIX + MAX_HEADER) as u64)
        .read_to_end(&mut head)
        .ok()?;
    read_header(&head).ok()
}

/// A table's header, where its body starts and where the table came from: what every check
/// of a table reads.
#[derive(Debug)]
pub(crate) struct Head {
    /// The header.
    pub header: TableHeader,
    /// Where the body starts.
    pub body_at: u64,
    /// Where the table came from.
    pub origin: Origin,
}

impl Head {
    /// The header of the bytes of a table file (all of it, or at least its start), checked
    /// as far as it goes: the magic, the version, the header's size.
    pub(crate) fn of(bytes: &[u8], origin: Origin) -> Result<Head, TableError> {
        let truncated = |expected: u64| TableError::Truncated {
            origin: origin.clone(),
            expected,
            got: bytes.len() as u64,
        };
        if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
            if bytes.len() < MAGIC.len() && MAGIC.starts_with(bytes) && !bytes.is_empty() {
                return Err(truncated(PREFIX as u64));
            }
            return Err(TableError::Magic { origin });
        }
        if bytes.len() < PREFIX {
            return Err(truncated(PREFIX as u64));
        }
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let version = word(MAGIC.len());
        if version != FORMAT_VERSION {
            return Err(TableError::Version {
                origin,
                expected: FORMAT_VERSION,
                got: version,
            });
        }
        let header_len = word(MAGIC.len() + 4) as usize;
        if header_len > MAX_HEADER {
            return Err(origin.corrupt(format!("header of {header_len} bytes")));
        }
        let body_at = PREFIX + header_len;
        if bytes.len() < body_at {
            return Err(truncated(body_at as u64));
        }
        let header: TableHeader = bincode::deserialize(&bytes[PREFIX..body_at]).map_err(|e| {
            // bincode's end of input has no message of its own ("io error: ").
            let why = match &*e {
                bincode::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
                    "it ends before its last field".to_string()
                }
                other => other.to_string(),
            };
            origin.corrupt(format!("unreadable header: {why}"))
        })?;
        Ok(Head {
            header,
            body_at: body_at as u64,
            origin,
        })
    }

    /// Checks that the header is of `objective` with values of `value_type`.
    pub(crate) fn check_kind(
        &self,
        objective: &'static str,
        value_type: &str,
    ) -> Result<(), TableError> {
        let header = &self.header;
        if header.objective != objective {
            return Err(TableError::WrongObjective {
                origin: self.origin.clone(),
                expected: objective,
                got: crate::text::excerpt(&header.objective),
            });
        }
        if header.value_type != value_type {
            return Err(self.origin.corrupt(format!(
                "value type `{}`",
                crate::text::excerpt(&header.value_type)
            )));
        }
        Ok(())
    }

    /// Checks that the header names `rules`, the same game by its digest: a table never
    /// answers a question about other rules.
    pub(crate) fn check_rules(&self, rules: &Rules) -> Result<(), TableError> {
        if !self.header.is_of(rules) {
            return Err(TableError::WrongRules {
                origin: self.origin.clone(),
                expected: *rules,
                got: self.header.rules_label(),
                found: self.header.rules(),
            });
        }
        Ok(())
    }

    /// The rules the header names, which must be known to read the table: a rules file's
    /// game is known once its file is loaded (`--rules PATH`), and the error says so.
    pub(crate) fn named_rules(&self) -> Result<Rules, TableError> {
        self.header.rules().ok_or_else(|| TableError::UnknownRules {
            origin: self.origin.clone(),
            objective: excerpt(&self.header.objective),
            got: self.header.rules_label(),
        })
    }

    /// The rules of the table: `rules` when given (checked against the header), else those
    /// the header names ([`Head::named_rules`]).
    pub(crate) fn rules_or_named(&self, rules: Option<&Rules>) -> Result<Rules, TableError> {
        match rules {
            Some(rules) => self.check_rules(rules).map(|()| *rules),
            None => self.named_rules(),
        }
    }

    /// Checks the length `len` of the table's bytes against the body size of the header (and
    /// against `least_body`, the fewest bytes a body of this table can have): short is
    /// truncated, long is corrupt.
    pub(crate) fn check_length(&self, len: u64, least_body: u64) -> Result<(), TableError> {
        // Saturating: a header may state any body size, up to u64::MAX (found by fuzzing).
        let end = self.body_at.saturating_add(self.header.body_bytes);
        let least = end.max(self.body_at + least_body);
        if len < least {
            return Err(TableError::Truncated {
                origin: self.origin.clone(),
                expected: least,
                got: len,
            });
        }
        if len > end {
            return Err(self.origin.corrupt(format!(
                "{} after the end of the table",
                crate::text::plural(len - end, "byte", "bytes")
            )));
        }
        Ok(())
    }
}

/// Checks `bytes` against the CRC-32 `expected` (the body's, the index's, a piece's).
pub(crate) fn check_crc(origin: &Origin, expected: u32, bytes: &[u8]) -> Result<(), TableError> {
    let got = crc32fast::hash(bytes);
    if got != expected {
        return Err(TableError::Checksum {
            origin: origin.clone(),
            expected,
            got,
        });
    }
    Ok(())
}

/// A table file opened to be read part by part (a table of hundreds of megabytes of which a
/// query reads a few pieces): its header read and checked as far as it goes.
#[derive(Debug)]
pub(crate) struct TableFile {
    file: File,
    path: PathBuf,
    /// The file's length.
    pub len: u64,
    /// Its header.
    pub head: Head,
}

impl TableFile {
    /// Opens the table file at `path` and reads its header (at most the first 4 KiB).
    pub(crate) fn open(path: &Path) -> Result<TableFile, TableError> {
        let read_err = |cause| TableError::Read {
            path: path.to_path_buf(),
            cause,
        };
        let mut file = files::open_regular(path).map_err(read_err)?;
        let len = file.metadata().map_err(read_err)?.len();
        let mut start = vec![0u8; len.min((PREFIX + MAX_HEADER) as u64) as usize];
        file.read_exact(&mut start).map_err(read_err)?;
        let head = Head::of(&start, Origin::File(path.to_path_buf()))?;
        Ok(TableFile {
            file,
            path: path.to_path_buf(),
            len,
            head,
        })
    }

    /// A reader of the body, the bytes after the header, buffered: a table read as a
    /// stream holds no copy of its file.
    pub(crate) fn body(&self) -> Result<BufReader<&File>, TableError> {
        let mut file = &self.file;
        file.seek(SeekFrom::Start(self.head.body_at))
            .map_err(|cause| TableError::Read {
                path: self.path.clone(),
                cause,
            })?;
        Ok(BufReader::with_capacity(1 << 20, file))
    }

    /// The `count` bytes from `at` (whose length was checked).
    pub(crate) fn read_at(&self, at: u64, count: usize) -> Result<Vec<u8>, TableError> {
        let mut bytes = vec![0u8; count];
        let mut file = &self.file;
        file.seek(SeekFrom::Start(at))
            .and_then(|_| file.read_exact(&mut bytes))
            .map_err(|cause| TableError::Read {
                path: self.path.clone(),
                cause,
            })?;
        Ok(bytes)
    }
}

/// The bytes of `count` `f32` values from the `first`-th value of the values that start at
/// `values_at` in the table file at `path` (one piece's values, or the index read as
/// values): a file cut short is truncated, as when it is loaded whole.
pub(crate) fn read_span(
    path: &Path,
    values_at: u64,
    first: u64,
    count: u32,
) -> Result<Vec<u8>, TableError> {
    let read_err = |cause| TableError::Read {
        path: path.to_path_buf(),
        cause,
    };
    let mut bytes = vec![0u8; 4 * count as usize];
    let mut file = files::open_regular(path).map_err(read_err)?;
    file.seek(SeekFrom::Start(values_at + 4 * first))
        .and_then(|_| file.read_exact(&mut bytes))
        .map_err(|cause| {
            if cause.kind() == io::ErrorKind::UnexpectedEof {
                TableError::Truncated {
                    origin: Origin::File(path.to_path_buf()),
                    expected: values_at + 4 * (first + u64::from(count)),
                    got: std::fs::metadata(path).map_or(0, |m| m.len()),
                }
            } else {
                read_err(cause)
            }
        })?;
    Ok(bytes)
}

/// Bytes of one stored vector's range in an index.
pub(crate) const RANGE_BYTES: usize = 12;

/// Appends a stored vector's range to an index: the coordinate of its first stored value
/// (i32), the number stored (u32), and where they start among their piece's values (u32).
pub(crate) fn push_range(index: &mut Vec<u8>, range: &Range) {
    index.extend_from_slice(&range.lo.to_le_bytes());
    index.extend_from_slice(&range.len.to_le_bytes());
    index.extend_from_slice(&range.offset.to_le_bytes());
}

/// The range at `at` of an index, as [`push_range`] wrote it.
pub(crate) fn range_at(index: &[u8], at: usize) -> Range {
    Range {
        lo: word(index, at) as i32,
        len: word(index, at + 4),
        offset: word(index, at + 8),
    }
}

/// The little-endian u32 at `at` of `bytes`.
fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// Bytes of one piece's entry in an index.
pub(crate) const PIECE_BYTES: usize = 16;

/// One piece of the values of a table read part by part (a card's values, a mover card's):
/// its first value among all values, its number of values and their CRC-32, as its entry in
/// the index states them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Piece {
    /// Its first value among all values.
    pub first: u64,
    /// Its number of values.
    pub count: u32,
    /// The CRC-32 of its values' bytes.
    pub crc: u32,
}

impl Piece {
    /// The piece of `values`, starting at the `first`-th value.
    pub(crate) fn of(first: u64, values: &[f32]) -> Piece {
        Piece {
            first,
            count: values.len() as u32,
            crc: crc32fast::hash(&value_bytes(values)),
        }
    }

    /// Appends the piece's entry to an index: `first` (u64), `count` (u32), `crc` (u32).
    pub(crate) fn push(&self, index: &mut Vec<u8>) {
        index.extend_from_slice(&self.first.to_le_bytes());
        index.extend_from_slice(&self.count.to_le_bytes());
        index.extend_from_slice(&self.crc.to_le_bytes());
    }

    /// The entry at `at` of an index, as [`Piece::push`] wrote it.
    pub(crate) fn at(index: &[u8], at: usize) -> Piece {
        Piece {
            first: u64::from_le_bytes(index[at..at + 8].try_into().expect("8 bytes")),
            count: word(index, at + 8),
            crc: word(index, at + 12),
        }
    }

    /// The entry at `at` of an index, which must start where the piece before it ended,
    /// at value `next` (the first piece at value 0); `next` moves to its end. `name` names
    /// the piece in the error.
    pub(crate) fn following(
        index: &[u8],
        at: usize,
        next: &mut u64,
        origin: &Origin,
        name: impl FnOnce() -> String,
    ) -> Result<Piece, TableError> {
        let piece = Piece::at(index, at);
        if piece.first != *next {
            return Err(origin.corrupt(format!(
                "{} starts at value {}, not {next}",
                name(),
                piece.first
            )));
        }
        *next += u64::from(piece.count);
        Ok(piece)
    }

    /// The piece's values' bytes read from the table file at `path` whose values start at
    /// `values_at`, checked by their CRC-32.
    pub(crate) fn read(&self, path: &Path, values_at: u64) -> Result<Vec<u8>, TableError> {
        let bytes = read_span(path, values_at, self.first, self.count)?;
        check_crc(&Origin::File(path.to_path_buf()), self.crc, &bytes)?;
        Ok(bytes)
    }

    /// The piece's values read from the table file at `path` whose values start at
    /// `values_at`, checked by their CRC-32.
    pub(crate) fn read_values(
        &self,
        path: &Path,
        values_at: u64,
    ) -> Result<Box<[f32]>, TableError> {
        let bytes = read_span(path, values_at, self.first, self.count)?;
        self.values(&bytes, &Origin::File(path.to_path_buf()))
    }

    /// The piece's values from their bytes, checked by their CRC-32.
    pub(crate) fn values(&self, bytes: &[u8], origin: &Origin) -> Result<Box<[f32]>, TableError> {
        check_crc(origin, self.crc, bytes)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect())
    }
}

/// Checks that the pieces of a table hold as many values, `held`, as its header says; `what`
/// names the pieces (`cards`, `movers`).
pub(crate) fn check_entries(head: &Head, held: u64, what: &str) -> Result<(), TableError> {
    if held != head.header.entries {
        return Err(head.origin.corrupt(format!(
            "the {what} hold {held} values, the header says {}",
            head.header.entries
        )));
    }
    Ok(())
}

/// The bytes of `f32` values as stored.
pub(crate) fn value_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// True when the file at `path` starts with the table [`MAGIC`]: a strategy table (perhaps
/// damaged), which no output of the program overwrites.
pub fn holds_table(path: &Path) -> bool {
    let mut start = [0u8; MAGIC.len()];
    files::open_regular(path)
        .and_then(|mut f| f.read_exact(&mut start))
        .is_ok_and(|()| start == MAGIC)
}

/// Why a path cannot take an output file. Each message says what to do instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// The path names a folder: give a file name in it.
    #[error("cannot write {path}: it is a folder; give a file name")]
    IsFolder {
        /// The path given.
        path: PathBuf,
    },
    /// The folder of the path does not exist (or is a file): create it or give another path.
    #[error(
        "cannot write {path}: the folder {folder} does not exist; create it or give another path"
    )]
    NoFolder {
        /// The path given.
        path: PathBuf,
        /// Its folder.
        folder: PathBuf,
    },
    /// The path holds a strategy table, which an output never overwrites: give another path.
    #[error(
        "cannot write {path}: it holds a strategy table, which is never overwritten; give another file"
    )]
    IsTable {
        /// The path given.
        path: PathBuf,
    },
    /// The path is a device, a pipe, a socket or a link to nothing, which an output never
    /// replaces: give the path of a regular file.
    #[error("cannot write there: {cause}")]
    NotRegular {
        /// The path given.
        path: PathBuf,
        /// What stands there.
        cause: io::Error,
    },
    /// The path is the strategy table this command reads (or builds): give another path.
    #[error("cannot write {path}: it is the strategy table this command reads; give another file")]
    IsInput {
        /// The path given.
        path: PathBuf,
    },
}

/// Checks, before any long computation, that `path` can take an output file: its folder
/// exists, it is not a folder, it does not hold a strategy table (recognised by its magic
/// bytes) and it is not one of `tables`, the tables the command reads or builds.
pub fn check_output(path: &Path, tables: &[&Path]) -> Result<(), OutputError> {
    let folder = files::folder_of(path);
    if !folder.is_dir() {
        return Err(OutputError::NoFolder {
            path: path.to_path_buf(),
            folder: folder.to_path_buf(),
        });
    }
    if path.is_dir() {
        return Err(OutputError::IsFolder {
            path: path.to_path_buf(),
        });
    }
    if let Err(cause) = files::output_path(path) {
        return Err(OutputError::NotRegular {
            path: path.to_path_buf(),
            cause,
        });
    }
    if tables.iter().any(|t| files::same_file(path, t)) {
        return Err(OutputError::IsInput {
            path: path.to_path_buf(),
        });
    }
    if holds_table(path) {
        return Err(OutputError::IsTable {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}
