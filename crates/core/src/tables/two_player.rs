//! The two-player table file: the early plies of the full game's solution, so that advice
//! in the first turns reads the vectors after a turn instead of solving most of the game.
//!
//! The file is the container of every table file ([`crate::tables::container`]): the header
//! names the rules, the objective (`two-player`), the value type (`f32`), the number of
//! values, the body's size, its CRC-32, the CRC-32 of its index and the tail left out. The
//! body, all little-endian:
//!
//! ```text
//! plies    the first and the last ply stored (u32 each)
//! ranges   12 bytes per pair of each ply, ply by ply, in rank order (mover's card, then
//!          the other's, each in ascending mask among the cards of its depth): the lead
//!          of the first stored value (i32), the number stored (u32), and where they
//!          start among the mover card's values (u32)
//! movers   16 bytes per mover card of each ply: its first value among all values (u64),
//!          its number of values (u32), their CRC-32 (u32)
//! values   f32, ply after ply, mover card after mover card
//! ```
//!
//! The plies and ranges and movers are the index, read and checked (by its own CRC-32, and
//! for consistency) before any value; a mover card's values are checked by theirs when
//! read. Advice at ply `p` reads one mover card of ply `p + 1`: the opponent's, whose pairs
//! are every card the player's turn can lead to.
//!
//! The table is written by [`solve_report`]: the solve of the game of two from a new game
//! ([`crate::solve::two_player::solve_new_game`]) keeping the early plies, saved here.

use std::path::{Path, PathBuf};

use crate::game::rules::{BoxMask, Rules};
use crate::solve::simd::Simd;
use crate::solve::two_player::{
    Game, Ply, Solution, Start, Ties, TwoPlayerError, TwoPlayerReport, ply_cards, ranks,
    solve_new_game,
};
use crate::tables::container::{
    self, FORMAT_VERSION, PIECE_BYTES, Piece, RANGE_BYTES, TableFile, TableHeader,
};
use crate::tables::{Origin, TableError};

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

/// One stored ply: its cards and ranges, the values left in the file.
#[derive(Debug)]
struct StoredPly {
    others: Vec<BoxMask>,
    mover_rank: Vec<u32>,
    ranges: Vec<crate::solve::two_player::Range>,
    entries: Vec<Piece>,
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
        let index = container::read_span(&self.path, self.body_at, 0, (index_len / 4) as u32)?;
        body.update(&index);
        let mut pairs = 0u64;
        for stored in &self.plies {
            pairs += stored.ranges.len() as u64;
            for entry in &stored.entries {
                let values = entry.read(&self.path, self.values_at)?;
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
        let rank = stored.mover_rank[mover as usize];
        if rank == u32::MAX {
            return Err(self
                .origin()
                .corrupt(format!("no mover card {mover} at ply {ply}")));
        }
        let entry = stored.entries[rank as usize];
        let values = entry.read_values(&self.path, self.values_at)?;
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

    /// Loads the table of `rules` at `path`, checked as far as its index.
    pub fn load(path: &Path, rules: &Rules) -> Result<EarlyTable, TableError> {
        let file = TableFile::open(path)?;
        let head = &file.head;
        let origin = &head.origin;
        head.check_kind(TWO_PLAYER, VALUE_TYPE)?;
        head.check_rules(rules)?;
        // The body holds at least the plies stored (8 bytes).
        head.check_length(file.len, 8)?;
        let (body_at, header) = (head.body_at, &head.header);
        let plies = file.read_at(body_at, 8)?;
        let first = u32::from_le_bytes(plies[..4].try_into().expect("4 bytes")) as usize;
        let last = u32::from_le_bytes(plies[4..].try_into().expect("4 bytes")) as usize;
        let end = 2 * rules.box_count();
        if first == 0 || first > last || last >= end {
            return Err(origin.corrupt(format!("plies {first} to {last} stored")));
        }
        let cards: Vec<(Vec<BoxMask>, Vec<BoxMask>)> = (first..=last)
            .map(|p| ply_cards(rules, Start::NEW, p))
            .collect();
        let index_len = 8 + cards
            .iter()
            .map(|(m, o)| m.len() * o.len() * RANGE_BYTES + m.len() * PIECE_BYTES)
            .sum::<usize>();
        if header.body_bytes != index_len as u64 + 4 * header.entries {
            return Err(origin.corrupt(format!(
                "a body of {} bytes, where {} values and the index take {}",
                header.body_bytes,
                header.entries,
                index_len as u64 + 4 * header.entries
            )));
        }
        let index = file.read_at(body_at, index_len)?;
        container::check_crc(origin, header.index_checksum, &index)?;
        let masks = 1usize << rules.box_count();
        let mut at = 8;
        let mut stored = Vec::new();
        for (movers, others) in &cards {
            let mut ranges = Vec::with_capacity(movers.len() * others.len());
            for _ in 0..movers.len() * others.len() {
                ranges.push(container::range_at(&index, at));
                at += RANGE_BYTES;
            }
            stored.push((movers.clone(), others.clone(), ranges));
        }
        let mut next = 0u64;
        let mut plies_out = Vec::new();
        for (p, (movers, others, ranges)) in stored.into_iter().enumerate() {
            let mut entries = Vec::with_capacity(movers.len());
            for m in 0..movers.len() {
                let entry = Piece::following(&index, at, &mut next, origin, || {
                    format!("mover {m} of ply {}", first + p)
                })?;
                at += PIECE_BYTES;
                let n = others.len();
                if ranges[m * n..][..n]
                    .iter()
                    .any(|r| u64::from(r.offset) + u64::from(r.len) > u64::from(entry.count))
                {
                    return Err(origin.corrupt(format!(
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
        container::check_entries(head, next, "movers")?;
        Ok(EarlyTable {
            rules: *rules,
            path: path.to_path_buf(),
            body_at,
            values_at: body_at + index_len as u64,
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
        let plies: Vec<&Ply<f32>> = (first..=last)
            .map(|p| self.ply(p).expect("the plies saved are kept"))
            .collect();
        let mut index = Vec::new();
        index.extend_from_slice(&(first as u32).to_le_bytes());
        index.extend_from_slice(&(last as u32).to_le_bytes());
        for ply in &plies {
            for r in &ply.ranges {
                container::push_range(&mut index, r);
            }
        }
        let mut entries = 0u64;
        for ply in &plies {
            for values in &ply.values {
                Piece::of(entries, values).push(&mut index);
                entries += values.len() as u64;
            }
        }
        let header = TableHeader {
            entries,
            body_bytes: index.len() as u64 + 4 * entries,
            index_checksum: crc32fast::hash(&index),
            tail,
            ..TableHeader::new(self.rules(), TWO_PLAYER, VALUE_TYPE)
        };
        container::save(path, |out| {
            container::write_table(out, header, |write| {
                write(&index)?;
                for ply in &plies {
                    for values in &ply.values {
                        write(&container::value_bytes(values))?;
                    }
                }
                Ok(None)
            })
        })
    }
}

/// Errors of the solve of the game of two that saves the table of its early plies.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SolveReportError {
    /// The game cannot be solved (see [`TwoPlayerError`]).
    #[error(transparent)]
    Game(#[from] TwoPlayerError),
    /// The table cannot be written (see [`TableError`]).
    #[error(transparent)]
    Table(#[from] TableError),
}

/// Solves `game` from a new game and reports ([`solve_new_game`]); with `save`, the plies 1
/// to [`EARLY_PLIES`] are kept and written to that file, the table advice in the first turns
/// reads ([`EarlyTable`]), and the report names it.
pub fn solve_report(
    game: &Game,
    ties: Ties,
    save: Option<&Path>,
    simd: Simd,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<TwoPlayerReport, SolveReportError> {
    let keep = |p: usize| save.is_some() && (1..=EARLY_PLIES).contains(&p);
    let (mut report, solution) = solve_new_game(game, ties, &keep, simd, progress)?;
    if let Some(path) = save {
        solution.save_plies(1, EARLY_PLIES, game.tail, path)?;
        report.table = Some(path.display().to_string());
        report.table_bytes = std::fs::metadata(path).ok().map(|m| m.len());
    }
    Ok(report)
}
