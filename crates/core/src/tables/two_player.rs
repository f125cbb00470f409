//! The two-player table file: the early plies of the full game's solution, so that advice
//! in the first turns reads the vectors after a turn instead of solving most of the game.
//!
//! The magic, the format version and the header are those of every table file
//! (`crate::tables::expected`): the header names the rules, the objective (`two-player`), the value
//! type (`f32`), the number of values, the body's size, its CRC-32, the CRC-32 of its index
//! and the tail left out. The body, all little-endian:
//!
//!   plies    the first and the last ply stored (u32 each)
//!   ranges   12 bytes per pair of each ply, ply by ply, in rank order (mover's card, then
//!            the other's, each in ascending mask among the cards of its depth): the lead
//!            of the first stored value (i32), the number stored (u32), and where they
//!            start among the mover card's values (u32)
//!   movers   16 bytes per mover card of each ply: its first value among all values (u64),
//!            its number of values (u32), their CRC-32 (u32)
//!   values   f32, ply after ply, mover card after mover card
//!
//! The plies and ranges and movers are the index, read and checked (by its own CRC-32, and
//! for consistency) before any value; a mover card's values are checked by theirs when
//! read. Advice at ply `p` reads one mover card of ply `p + 1`: the opponent's, whose pairs
//! are every card the player's turn can lead to.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::game::rules::{BoxMask, Rules};
use crate::solve::two_player::{Ply, Range, Solution, Start, ply_cards, ranks};
use crate::solve::vector::read_span;
use crate::tables::expected::{FORMAT_VERSION, MAGIC, Origin, TableError, TableHeader};

/// The objective's name in the table file's header.
pub const TWO_PLAYER: &str = "two-player";

/// The plies the table of `solve --two-player` stores: 1 to this. Advice before ply
/// `EARLY_PLIES` reads the next ply from it; later positions solve the rest of their game,
/// at most a few million lanes. Why 9: ply 9 adds 392,040 pairs and 417 MiB (915 MiB in
/// all, under the 1 GiB the table may take on disk), and takes the worst advice from ply 8
/// (8 boxes open each, 2.3 s of CPU) to ply 9 (8 and 7 open, 1.2 s); ply 10 would add
/// another 600 MiB. (Measured sizes and times: `results/two-player-*.md`.) A table of
/// fewer plies still serves: the plies it lacks are solved.
pub const EARLY_PLIES: usize = 9;

const VALUE_TYPE: &str = "f32";
const RANGE_BYTES: usize = 12;
const MOVER_BYTES: usize = 16;

/// Where one mover card's values are in the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct MoverEntry {
    first: u64,
    count: u32,
    crc: u32,
}

/// One stored ply: its cards and ranges, the values left in the file.
#[derive(Debug)]
struct StoredPly {
    others: Vec<BoxMask>,
    mover_rank: Vec<u32>,
    ranges: Vec<Range>,
    entries: Vec<MoverEntry>,
}

/// The early plies of the two-player solution, from a table file: the index read and
/// checked, each mover card's values read when asked for.
#[derive(Debug)]
pub struct EarlyTable {
    rules: Rules,
    path: PathBuf,
    /// The file offset of the body (the index, then the values).
    body_at: u64,
    values_at: u64,
    first: usize,
    plies: Vec<StoredPly>,
    tail: f64,
    /// The CRC-32 of the body (the index and every value), from the header.
    checksum: u32,
    /// The values stored, from the header.
    entries: u64,
}

/// What [`EarlyTable::verify`] found: a table whose every byte was read and checked.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TwoPlayerTableCheck {
    /// The file.
    pub path: String,
    /// The rules (serialized as `rules` and `upper_first`).
    #[serde(flatten)]
    pub rules: Rules,
    /// The objective: `two-player`.
    pub objective: &'static str,
    /// The table format version.
    pub format_version: u32,
    /// The value type: `f32`.
    pub value_type: &'static str,
    /// The first ply stored.
    pub first_ply: usize,
    /// The last ply stored.
    pub last_ply: usize,
    /// Pairs of cards stored, over the plies.
    pub pairs: u64,
    /// Values stored.
    pub entries: u64,
    /// The CRC-32 of the body, as the header states it and the body gives it.
    pub checksum: String,
    /// The tail left out of the vectors.
    pub tail: f64,
}

impl EarlyTable {
    /// The rules of the table.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Where the table came from.
    pub fn origin(&self) -> Origin {
        Origin::File(self.path.clone())
    }

    /// Reads every value of the table and checks it: each mover card's CRC-32, and the body's
    /// against the header's (the index was checked at load). What `yahtzee verify` does.
    pub fn verify(&self) -> Result<TwoPlayerTableCheck, TableError> {
        let mut body = crc32fast::Hasher::new();
        let index_len = (self.values_at - self.body_at) as usize;
        let index = read_span(&self.path, self.body_at, 0, (index_len / 4) as u32)?;
        body.update(&index);
        let mut pairs = 0u64;
        for stored in &self.plies {
            pairs += stored.ranges.len() as u64;
            for entry in &stored.entries {
                let values = self.read_bytes(entry)?;
                body.update(&values);
            }
        }
        let checksum = body.finalize();
        if checksum != self.checksum {
            return Err(TableError::Checksum {
                origin: self.origin(),
                expected: self.checksum,
                got: checksum,
            });
        }
        Ok(TwoPlayerTableCheck {
            path: self.path.display().to_string(),
            rules: self.rules,
            objective: TWO_PLAYER,
            format_version: FORMAT_VERSION,
            value_type: VALUE_TYPE,
            first_ply: self.first,
            last_ply: self.first + self.plies.len() - 1,
            pairs,
            entries: self.entries,
            checksum: format!("{checksum:08x}"),
            tail: self.tail,
        })
    }

    /// The plies stored: `first..=last`.
    pub fn plies(&self) -> std::ops::RangeInclusive<usize> {
        self.first..=self.first + self.plies.len() - 1
    }

    /// The tail left out of the vectors.
    pub fn tail(&self) -> f64 {
        self.tail
    }

    /// The pairs of ply `ply` whose mover holds `mover`, read from the file (checked): the
    /// ply after a turn of the other card's player, as advice needs it. `None` when the ply
    /// is not stored.
    pub fn mover_ply(&self, ply: usize, mover: BoxMask) -> Result<Option<Ply<f32>>, TableError> {
        if !self.plies().contains(&ply) {
            return Ok(None);
        }
        let stored = &self.plies[ply - self.first];
        let rank = stored.mover_rank[usize::from(mover)];
        if rank == u32::MAX {
            return Err(TableError::Corrupt {
                origin: Origin::File(self.path.clone()),
                what: format!("no mover card {mover} at ply {ply}"),
            });
        }
        let entry = stored.entries[rank as usize];
        let values = self.read_values(&entry)?;
        let n = stored.others.len();
        let masks = 1usize << self.rules.box_count();
        Ok(Some(Ply {
            ply,
            movers: vec![mover],
            others: stored.others.clone(),
            mover_rank: ranks(masks, &[mover]),
            other_rank: ranks(masks, &stored.others),
            ranges: stored.ranges[rank as usize * n..][..n].to_vec(),
            values: vec![values],
        }))
    }

    /// The bytes of one mover card's values, checked by their CRC-32.
    fn read_bytes(&self, entry: &MoverEntry) -> Result<Vec<u8>, TableError> {
        let bytes = read_span(&self.path, self.values_at, entry.first, entry.count)?;
        let checksum = crc32fast::hash(&bytes);
        if checksum != entry.crc {
            return Err(TableError::Checksum {
                origin: Origin::File(self.path.clone()),
                expected: entry.crc,
                got: checksum,
            });
        }
        Ok(bytes)
    }

    fn read_values(&self, entry: &MoverEntry) -> Result<Box<[f32]>, TableError> {
        let bytes = self.read_bytes(entry)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect())
    }

    /// Loads the table of `rules` at `path`, checked as far as its index.
    pub fn load(path: &Path, rules: &Rules) -> Result<EarlyTable, TableError> {
        let origin = Origin::File(path.to_path_buf());
        let read_err = |cause| TableError::Read {
            path: path.to_path_buf(),
            cause,
        };
        let corrupt = |what: String| TableError::Corrupt {
            origin: origin.clone(),
            what,
        };
        let mut file = std::fs::File::open(path).map_err(read_err)?;
        let len = file.metadata().map_err(read_err)?.len();
        let mut head = vec![0u8; len.min(MAGIC.len() as u64 + 8 + 4096) as usize];
        file.read_exact(&mut head).map_err(read_err)?;
        let (header, body_at) = crate::tables::expected::header_of(&head, &origin)?;
        crate::tables::expected::check_kind(&header, &origin, TWO_PLAYER, VALUE_TYPE)?;
        if header.rules() != Some(*rules) {
            let found = header.rules();
            return Err(TableError::WrongRules {
                origin: origin.clone(),
                expected: *rules,
                got: found.map_or_else(|| crate::text::excerpt(&header.rules), |r| r.label()),
                found,
            });
        }
        let expected = body_at as u64 + header.body_bytes;
        if len < expected || len < body_at as u64 + 8 {
            return Err(TableError::Truncated {
                origin: origin.clone(),
                expected: expected.max(body_at as u64 + 8),
                got: len,
            });
        }
        if len > expected {
            return Err(corrupt(format!(
                "{} after the end of the table",
                crate::text::plural(len - expected, "byte", "bytes")
            )));
        }
        let mut plies = [0u8; 8];
        file.seek(SeekFrom::Start(body_at as u64))
            .and_then(|_| file.read_exact(&mut plies))
            .map_err(read_err)?;
        let first = u32::from_le_bytes(plies[..4].try_into().expect("4 bytes")) as usize;
        let last = u32::from_le_bytes(plies[4..].try_into().expect("4 bytes")) as usize;
        let end = 2 * rules.box_count();
        if first == 0 || first > last || last >= end {
            return Err(corrupt(format!("plies {first} to {last} stored")));
        }
        let cards: Vec<(Vec<BoxMask>, Vec<BoxMask>)> = (first..=last)
            .map(|p| ply_cards(rules, Start::NEW, p))
            .collect();
        let index_len = 8 + cards
            .iter()
            .map(|(m, o)| m.len() * o.len() * RANGE_BYTES + m.len() * MOVER_BYTES)
            .sum::<usize>();
        if header.body_bytes != index_len as u64 + 4 * header.entries {
            return Err(corrupt(format!(
                "a body of {} bytes, where {} values and the index take {}",
                header.body_bytes,
                header.entries,
                index_len as u64 + 4 * header.entries
            )));
        }
        let mut index = vec![0u8; index_len];
        file.seek(SeekFrom::Start(body_at as u64))
            .and_then(|_| file.read_exact(&mut index))
            .map_err(read_err)?;
        let checksum = crc32fast::hash(&index);
        if checksum != header.index_checksum {
            return Err(TableError::Checksum {
                origin,
                expected: header.index_checksum,
                got: checksum,
            });
        }
        let word = |at: usize| u32::from_le_bytes(index[at..at + 4].try_into().expect("4 bytes"));
        let masks = 1usize << rules.box_count();
        let mut at = 8;
        let mut stored = Vec::new();
        for (movers, others) in &cards {
            let mut ranges = Vec::with_capacity(movers.len() * others.len());
            for _ in 0..movers.len() * others.len() {
                ranges.push(Range {
                    lo: word(at) as i32,
                    len: word(at + 4),
                    offset: word(at + 8),
                });
                at += RANGE_BYTES;
            }
            stored.push((movers.clone(), others.clone(), ranges));
        }
        let mut next = 0u64;
        let mut plies_out = Vec::new();
        for (p, (movers, others, ranges)) in stored.into_iter().enumerate() {
            let mut entries = Vec::with_capacity(movers.len());
            for m in 0..movers.len() {
                let entry = MoverEntry {
                    first: u64::from_le_bytes(index[at..at + 8].try_into().expect("8 bytes")),
                    count: word(at + 8),
                    crc: word(at + 12),
                };
                at += MOVER_BYTES;
                if entry.first != next {
                    return Err(corrupt(format!(
                        "mover {m} of ply {} starts at value {}, not {next}",
                        first + p,
                        entry.first
                    )));
                }
                next += u64::from(entry.count);
                let n = others.len();
                if ranges[m * n..][..n]
                    .iter()
                    .any(|r| u64::from(r.offset) + u64::from(r.len) > u64::from(entry.count))
                {
                    return Err(corrupt(format!(
                        "a range of mover {m} of ply {} ends past its values",
                        first + p
                    )));
                }
                entries.push(entry);
            }
            plies_out.push(StoredPly {
                mover_rank: ranks(masks, &movers),
                others,
                ranges,
                entries,
            });
        }
        if next != header.entries {
            return Err(corrupt(format!(
                "the movers hold {next} values, the header says {}",
                header.entries
            )));
        }
        Ok(EarlyTable {
            rules: *rules,
            path: path.to_path_buf(),
            body_at: body_at as u64,
            values_at: body_at as u64 + index_len as u64,
            first,
            plies: plies_out,
            tail: header.tail,
            checksum: header.checksum,
            entries: header.entries,
        })
    }
}

impl Solution<f32> {
    /// Writes the kept plies `first..=last` of the full game's solution to `path` (through
    /// a temporary file renamed into place), as [`EarlyTable::load`] reads them.
    pub fn save_plies(
        &self,
        first: usize,
        last: usize,
        tail: f64,
        path: &Path,
    ) -> Result<(), TableError> {
        let write_err = |cause| TableError::Write {
            path: path.to_path_buf(),
            cause,
        };
        let plies: Vec<&Ply<f32>> = (first..=last)
            .map(|p| self.ply(p).expect("the plies saved are kept"))
            .collect();
        let mut index = Vec::new();
        index.extend_from_slice(&(first as u32).to_le_bytes());
        index.extend_from_slice(&(last as u32).to_le_bytes());
        for ply in &plies {
            for r in &ply.ranges {
                index.extend_from_slice(&r.lo.to_le_bytes());
                index.extend_from_slice(&r.len.to_le_bytes());
                index.extend_from_slice(&r.offset.to_le_bytes());
            }
        }
        let mut entries = 0u64;
        for ply in &plies {
            for values in &ply.values {
                index.extend_from_slice(&entries.to_le_bytes());
                index.extend_from_slice(&(values.len() as u32).to_le_bytes());
                index.extend_from_slice(&crc32fast::hash(&value_bytes(values)).to_le_bytes());
                entries += values.len() as u64;
            }
        }
        let rules = self.rules();
        let mut header = TableHeader {
            rules: rules.set.name().to_string(),
            upper_first: rules.order == crate::game::rules::Order::UpperFirst,
            objective: TWO_PLAYER.to_string(),
            value_type: VALUE_TYPE.to_string(),
            entries,
            body_bytes: index.len() as u64 + 4 * entries,
            checksum: 0,
            index_checksum: crc32fast::hash(&index),
            tail,
        };
        crate::files::create_folder(crate::files::folder_of(path)).map_err(write_err)?;
        crate::files::write_file(path, |f| {
            let mut out = std::io::BufWriter::with_capacity(1 << 20, f);
            let start = out.stream_position()?;
            let header_bytes = bincode::serialize(&header).expect("a header always serializes");
            out.write_all(&MAGIC)?;
            out.write_all(&FORMAT_VERSION.to_le_bytes())?;
            out.write_all(&(header_bytes.len() as u32).to_le_bytes())?;
            out.write_all(&header_bytes)?;
            let mut checksum = crc32fast::Hasher::new();
            checksum.update(&index);
            out.write_all(&index)?;
            for ply in &plies {
                for values in &ply.values {
                    let bytes = value_bytes(values);
                    checksum.update(&bytes);
                    out.write_all(&bytes)?;
                }
            }
            header.checksum = checksum.finalize();
            let again = bincode::serialize(&header).expect("a header always serializes");
            let end = out.stream_position()?;
            out.seek(SeekFrom::Start(start + (MAGIC.len() + 8) as u64))?;
            out.write_all(&again)?;
            out.seek(SeekFrom::Start(end))?;
            out.flush()?;
            out.into_inner().map_err(|e| e.into_error())?;
            Ok(())
        })
        .map_err(write_err)
    }
}

/// The bytes of `values` as stored.
fn value_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}
