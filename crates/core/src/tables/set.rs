//! The tables of one rule set, each loaded (or built and saved) the first time it is asked for:
//! the one home of "the set of tables" that every front end uses. The command line builds one
//! per command (with its `--table` paths and a progress bar), the server one per rules for its
//! whole life, the Python module one per `Table`, a match or a game of bots one for its
//! players.
//!
//! Each table is a slot. Loading starts on the first request that needs the table, which then
//! waits, or in the background ([`TableSet::start`], so that a page can show the progress of a
//! build while it waits); concurrent requests for the same table wait for the one load (a
//! `OnceLock`). The outcome stays: a table that cannot be loaded (a damaged file) is an error
//! with its fix for the life of the set, so nothing rebuilds it behind the user's back.
//!
//! What the front ends differ in is how they report and explain, given as an [`Observer`]:
//! the progress of a build (a bar on a terminal, a status on the page), the warning of a table
//! built but not saved, and the fix of a table that cannot be loaded (a `yahtzee solve`
//! command on the command line).
//!
//! A build under way can be stopped ([`TableSet::cancel`]: a page whose player pressed
//! Cancel): the solve checks the flag as each card (or depth) starts and stops there, before
//! anything is saved, so no file is left behind; the slot then holds a [`LoadCause::Cancelled`]
//! error (a set made again builds the table anew).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use serde::Serialize;

use crate::cancel::Cancel;
use crate::game::rules::{BoxMask, Rules};
use crate::game::state::{Layout, cards_by_depth, reachable_state_count};
use crate::memory;
use crate::solve::expected::{SolveOptions, solved_lanes};
use crate::solve::theta::Theta;
use crate::solve::two_player::{Game, Ties, check_rules};
use crate::solve::vector::{DISTRIBUTION, TARGET, stored_values_bound};
use crate::tables::TableError;
use crate::tables::cache::{self, Loaded, Progress, Source};
use crate::tables::default_table_path_of;
use crate::tables::expected::{EXPECTED_SCORE, StrategyTable, THETA, body_bytes};
use crate::tables::saved::{SavedTable, saved_value_count};
use crate::tables::two_player::{EarlyTable, TWO_PLAYER};
use crate::tables::two_player::{SolveReportError, solve_report};
use crate::tables::vector::VectorTable;
use crate::text::{self, file_size, large_count};

/// Which table of a rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TableKind {
    /// The expected final score of every state ([`StrategyTable`]).
    ExpectedScore,
    /// The best chance of reaching every final score ([`VectorTable`], objective `target`).
    Target,
    /// The chance of scoring at least `t` more under expected-score play ([`VectorTable`],
    /// objective `distribution`): the opponents of win advice.
    Distribution,
    /// The chance of winning the early plies of the game of two ([`EarlyTable`]).
    TwoPlayer,
    /// The certainty equivalent of every state under the exponential utility of a θ
    /// ([`StrategyTable`] of objective `theta`, [`crate::solve::theta`]): one table per θ.
    Theta(Theta),
}

impl TableKind {
    /// Every kind of one table a rule set, in the order statuses list them (the θ tables,
    /// one per θ, are asked for by their θ).
    pub const ALL: [TableKind; 4] = [
        TableKind::ExpectedScore,
        TableKind::Target,
        TableKind::Distribution,
        TableKind::TwoPlayer,
    ];

    /// The objective's name, as in table files and `yahtzee solve --objective`.
    pub fn name(self) -> &'static str {
        match self {
            TableKind::ExpectedScore => EXPECTED_SCORE,
            TableKind::Target => TARGET,
            TableKind::Distribution => DISTRIBUTION,
            TableKind::TwoPlayer => TWO_PLAYER,
            TableKind::Theta(_) => THETA,
        }
    }

    /// The objective as in a default file name: its name, with the θ of a θ table
    /// (`theta+0.07`, `theta-0.03`), so that each θ has its file.
    pub fn file_objective(self) -> String {
        match self {
            TableKind::Theta(theta) => format!("{THETA}{}", theta.signed()),
            other => other.name().to_string(),
        }
    }

    /// What a build of this table of `rules` costs, in words, for the messages that
    /// announce one (the terminal's note, the page's progress through
    /// [`TableStatus::build_cost`]): its rough time on this machine's cores, its memory at
    /// peak and the size of the file it leaves, worked out from the game ([`Need`]).
    pub fn build_cost(self, rules: &Rules) -> String {
        self.need(rules).words()
    }

    /// What building and loading this table of `rules` takes ([`Need::of`]).
    pub fn need(self, rules: &Rules) -> Need {
        Need::of(rules, self)
    }
}

/// The memory at the peak of a program beside its tables: its code, its threads' stacks and
/// scratch, its buffers, a game's score table and lattice (a solve of Yacht peaks at 9 MB,
/// one of Yahtzee at 19 MB with 8 MB of values, one of six dice and four rolls 15 MB above
/// its values and rows on two threads: `results/memory-2026-12-06.md`), with room for more
/// threads.
pub const BASE_MEMORY: u64 = 32 << 20;

/// Processor seconds of the solve under saved rolls per value it stores: Maxi Yatzy's
/// 1,269,658,211 took 459 s on 2 cores (results/maxi-yatzy-saved-rolls-2026-12-06.md).
const SAVED_SECONDS_PER_VALUE: f64 = 0.72e-6;

/// The time of a θ table's solve against the expected score's (rows per box rather than per
/// group of rolls, and an exponential per row and lane).
const THETA_TIME: f64 = 1.6;

/// Processor seconds of the expected-score solve per lane it runs ([`solved_lanes`]) with
/// five dice and six, for three rolls a turn: Yahtzee's 385,016 lanes took 0.25 s of CPU,
/// Yatzy's 1.07 million 0.63 s, Maxi Yatzy's 37.0 million 55 s (results/memory-2026-12-06.md).
const EXPECTED_SECONDS_PER_LANE: [f64; 2] = [0.65e-6, 1.45e-6];

/// Processor seconds per byte of the dense values of an expected-score solve: the system's
/// work of giving it its pages (3.5 s of system time for the 2.1 GB of the game of issue 45,
/// results/memory-2026-12-06.md).
const EXPECTED_SECONDS_PER_BYTE: f64 = 3e-9;

/// Processor seconds of the target and distribution solves per value of their bound
/// ([`stored_values_bound`]), roughly: Yahtzee's target table, a bound of 209 million
/// values, takes about 116 s of CPU (docs/rules-files.md).
const VECTOR_SECONDS_PER_VALUE: f64 = 0.55e-6;

/// Bytes of a vector table's file per value of its bound, roughly (every other depth stored,
/// packed): Yahtzee's target table, a bound of 209 million, is a file of 233 MB, Yacht
/// Dice's, a bound of 21 million, one of 27 MB.
const VECTOR_FILE_BYTES_PER_VALUE: f64 = 1.2;

/// What building and loading a table takes, worked out from its game before any work: what
/// the notice of a build says ([`Need::words`]) and what the memory available is compared
/// with ([`check_fits`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Need {
    /// Bytes of memory at the peak of a build.
    pub build_memory: u64,
    /// Bytes of memory a load of the whole table holds.
    pub load_memory: u64,
    /// What the memory of a build is made of, in words (for a refusal).
    pub memory_parts: String,
    /// What the memory of a load is made of, in words (for a refusal).
    pub load_parts: String,
    /// Bytes of the file a build leaves, about (at most, for the vector tables).
    pub disk: u64,
    /// Processor seconds of a build, roughly (the work divides among the cores).
    pub cpu_seconds: f64,
}

impl Need {
    /// What the `kind` table of `rules` takes. Milliseconds, a fraction of a second for a
    /// card of 20 boxes (its cards counted by depth, its reachable states).
    pub fn of(rules: &Rules, kind: TableKind) -> Need {
        match kind {
            TableKind::ExpectedScore if rules.saved_rolls() => Need::saved_rolls(rules),
            TableKind::ExpectedScore => {
                // The solve holds an f64 for every entry of the dense layout (each card, upper
                // total and flag), and the rows of one depth's cards as it solves them; a load
                // holds the dense values alone (its file is read as a stream).
                let layout = Layout::of(rules);
                let entries = layout.len() as u64;
                let widest = cards_by_depth(rules)
                    .iter()
                    .map(Vec::len)
                    .max()
                    .unwrap_or(1);
                let rows = 8 * (widest * layout.flags * layout.lanes) as u64;
                let states = reachable_state_count(rules);
                let values = format!(
                    "a value for each of its {} entries of cards, upper totals and flags, {}",
                    large_count(entries),
                    text::memory(8 * entries),
                );
                Need {
                    build_memory: BASE_MEMORY + 8 * entries + rows,
                    load_memory: BASE_MEMORY + 8 * entries,
                    memory_parts: format!(
                        "{values}, and the rows of its widest depth, {}",
                        text::memory(rows)
                    ),
                    load_parts: values,
                    // The body and a header.
                    disk: body_bytes(states).unwrap_or(u64::MAX).saturating_add(256),
                    // A turn of four rolls has three layers of keeps where one of three has
                    // two (the game of issue 45: 8.4 million lanes, 27 s of CPU).
                    cpu_seconds: solved_lanes(rules) as f64
                        * EXPECTED_SECONDS_PER_LANE[usize::from(rules.dice().dice() == 6)]
                        * (f64::from(rules.rolls()) - 1.0).max(0.5)
                        / 2.0
                        + EXPECTED_SECONDS_PER_BYTE * (8 * entries) as f64,
                }
            }
            TableKind::Target | TableKind::Distribution => {
                let values = stored_values_bound(rules);
                let chances = format!(
                    "up to {} chances, a chance per score each of its {} states can still add",
                    large_count(values),
                    large_count(reachable_state_count(rules))
                );
                let mut need = Need {
                    build_memory: BASE_MEMORY + 4 * values,
                    load_memory: BASE_MEMORY + 4 * values,
                    memory_parts: chances.clone(),
                    load_parts: chances,
                    disk: (values as f64 * VECTOR_FILE_BYTES_PER_VALUE) as u64,
                    cpu_seconds: values as f64 * VECTOR_SECONDS_PER_VALUE,
                };
                if kind == TableKind::Distribution {
                    // The distribution follows the expected-score policy: that table is
                    // loaded, and its build holds the policy's choices, about 48 bytes a state
                    // (Yatzy's distribution build peaks 83 MB above its target build,
                    // Yahtzee's 50 MB: results/table-sizes-2026-12-03.md).
                    let ev = Need::of(rules, TableKind::ExpectedScore);
                    let choices = 48 * reachable_state_count(rules);
                    need.build_memory += ev.load_memory - BASE_MEMORY + choices;
                    need.load_memory += ev.load_memory - BASE_MEMORY;
                    for parts in [&mut need.memory_parts, &mut need.load_parts] {
                        parts.push_str(", and the expected-score table it follows");
                    }
                }
                need
            }
            TableKind::TwoPlayer => Need::two_player(rules, Ties::Values),
            TableKind::Theta(_) => {
                // The expected score's solve and table, every box's rows mapped to
                // utilities once made: about 1.6 times its time (results/theta-yatzy-2026-12-06.md).
                let mut need = Need::of(rules, TableKind::ExpectedScore);
                need.cpu_seconds *= THETA_TIME;
                need
            }
        }
    }

    /// What the solve of the game of two of `rules` takes, its table of the early plies
    /// saved, with the tie chance carried or not (`ties`: `solve --two-player --ties`
    /// carries it beside each value, twice the memory and the time). Measured on Yacht's 12
    /// boxes (results/two-player-2026-12-02.md: 1,847 MiB at peak and 481 s of CPU, 3,775
    /// MiB and 1,136 s with the tie chance; a file of 957 MB, whose advice holds its index
    /// alone, 25 to 30 MiB at peak); each box fewer about a quarter.
    pub fn two_player(rules: &Rules, ties: Ties) -> Need {
        let scale = 0.25f64.powi(TWO_PLAYER_MOST_BOXES as i32 - rules.box_count() as i32);
        let (peak, cpu) = match ties {
            Ties::Values => (1.94e9, 481.0),
            Ties::Carried => (3.96e9, 1136.0),
        };
        Need {
            build_memory: BASE_MEMORY + (peak * scale) as u64,
            load_memory: BASE_MEMORY + (0.02e9 * scale) as u64,
            memory_parts: match ties {
                Ties::Values => "a chance of winning for each pair of cards and lead",
                Ties::Carried => {
                    "a chance of winning and one of a tie for each pair of cards and lead"
                }
            }
            .to_string(),
            load_parts: "the index of its pairs of cards".to_string(),
            disk: (0.96e9 * scale) as u64,
            cpu_seconds: cpu * scale,
        }
    }

    /// What the table of saved rolls of `rules` takes (`tables::saved`): its solve holds two
    /// depths of values, a row per number of rolls saved ([`crate::solve::saved::peak_bytes`]),
    /// and writes each as it goes; advice reads the rows of a position's cards alone. Measured
    /// on Maxi Yatzy with saved rolls (results/maxi-yatzy-saved-rolls-2026-12-06.md: 1.27
    /// billion states, 4.93 GiB at peak, 459 s on 2 cores).
    pub fn saved_rolls(rules: &Rules) -> Need {
        let values = saved_value_count(rules);
        let peak = crate::solve::saved::peak_bytes(rules);
        // A whole load holds every card's rows, a row per number of rolls saved.
        let layout = Layout::of(rules);
        let dense: u64 = cards_by_depth(rules)
            .iter()
            .enumerate()
            .map(|(t, cards)| {
                (cards.len() * (rules.most_saved_rolls(t) + 1) * layout.flags * layout.lanes) as u64
            })
            .sum();
        Need {
            build_memory: BASE_MEMORY + peak,
            load_memory: BASE_MEMORY + 8 * dense,
            memory_parts: format!(
                "two depths of its cards, a row per number of rolls saved, {}",
                text::memory(peak)
            ),
            load_parts: format!(
                "a row of upper totals for each of its cards and numbers of rolls saved, {}",
                text::memory(8 * dense)
            ),
            disk: body_bytes(values).unwrap_or(u64::MAX).saturating_add(256),
            cpu_seconds: values as f64 * SAVED_SECONDS_PER_VALUE,
        }
    }

    /// The build's cost in words: `about 2 minutes on 2 cores, 2.4 GiB of memory and 738 MB
    /// on disk`.
    pub fn words(&self) -> String {
        format!(
            "{}, {} of memory and {} on disk",
            text::rough_time(self.cpu_seconds),
            text::memory(self.build_memory),
            file_size(self.disk)
        )
    }
}

/// Where a set's tables are: a path per table, or `None` for its default place in the cache
/// folder ([`default_table_path_of`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TablePaths {
    /// The expected-score table (`--table`).
    pub expected_score: Option<PathBuf>,
    /// The target table (`--target-table`).
    pub target: Option<PathBuf>,
    /// The distribution table (`--distribution-table`).
    pub distribution: Option<PathBuf>,
    /// The table of the early plies of the game of two (`--two-player-table`).
    pub two_player: Option<PathBuf>,
}

impl TablePaths {
    /// The path given for `kind`, if any.
    pub fn given(&self, kind: TableKind) -> Option<&Path> {
        match kind {
            TableKind::ExpectedScore => self.expected_score.as_deref(),
            TableKind::Target => self.target.as_deref(),
            TableKind::Distribution => self.distribution.as_deref(),
            TableKind::TwoPlayer => self.two_player.as_deref(),
            TableKind::Theta(_) => None,
        }
    }

    /// Where the `kind` table of `rules` is: the path given, else its default place.
    pub fn path(&self, rules: &Rules, kind: TableKind) -> PathBuf {
        self.given(kind).map_or_else(
            || default_table_path_of(rules, &kind.file_objective()),
            Path::to_path_buf,
        )
    }
}

/// What a set reports while it loads a table.
#[derive(Debug)]
#[non_exhaustive]
pub enum Event<'a> {
    /// No file at `path`: the table is being built (see [`TableKind::build_cost`]), then
    /// saved there.
    Building {
        /// Where it will be saved.
        path: &'a Path,
    },
    /// The build has done `done` of `total` steps (cards, or pairs of cards for the game of
    /// two).
    Solving {
        /// Steps done.
        done: u64,
        /// Steps in all.
        total: u64,
    },
    /// The build is over (the bar can go).
    Built,
    /// The build was stopped ([`TableSet::cancel`]) before its end: nothing was saved.
    Cancelled,
    /// The table was built but could not be saved: it serves, and is built again next time.
    NotSaved {
        /// Why it could not be saved.
        error: &'a TableError,
        /// The path was given (not the table's default place).
        given: bool,
    },
}

/// How a front end hears of a set's loads and explains a table that cannot be loaded. The
/// default reports nothing and explains an error by its own message.
pub trait Observer: Send + Sync {
    /// `event` of the load of the `kind` table of `rules`.
    fn report(&self, rules: &Rules, kind: TableKind, event: Event<'_>) {
        let _ = (rules, kind, event);
    }

    /// The message of `error`, met loading the `kind` table of `rules` from `path` (`None`:
    /// its default place), with the fix this front end offers.
    fn explain(
        &self,
        error: TableError,
        rules: &Rules,
        kind: TableKind,
        path: Option<&Path>,
    ) -> String {
        let _ = (rules, kind, path);
        error.to_string()
    }
}

/// The observer that reports nothing.
pub struct Silent;

impl Observer for Silent {}

/// Why a table of a set cannot be had: its message says what and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LoadError {
    /// Which table.
    pub kind: TableKind,
    /// What went wrong and the fix ([`Observer::explain`]).
    pub message: String,
    /// What kind of failure it is.
    pub cause: LoadCause,
}

/// What kind of failure a [`LoadError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadCause {
    /// The file is not a sound table of these rules, or the solve that builds it failed.
    Table,
    /// The file could not be read or written (an operating-system error, not its content).
    Io,
    /// This set does not offer the table (see [`TableSet::without`]), or the game's table
    /// would not fit in memory ([`check_fits`]): the question asked for something this front
    /// end or this game does not answer.
    NotOffered,
    /// Its build was stopped ([`TableSet::cancel`]) before its end; nothing was saved. Asked
    /// for again (by a set made again), it is built anew.
    Cancelled,
}

/// The message of a table a set does not offer: what the question should leave out.
fn not_offered(kind: TableKind) -> LoadError {
    let message = match kind {
        TableKind::Target => "this front end answers no query with a target: leave `target` out",
        TableKind::Distribution => {
            "this front end answers no query with opponents: leave `opponents` out"
        }
        TableKind::TwoPlayer => {
            "this front end answers no two-player query: leave `two_player` out"
        }
        TableKind::ExpectedScore => "this front end has no expected-score table",
        TableKind::Theta(_) => "this front end answers no query with a θ: leave `theta` out",
    };
    LoadError {
        kind,
        message: message.to_string(),
        cause: LoadCause::NotOffered,
    }
}

/// The most memory the solve of a target or distribution table may hold, whatever the
/// memory available: 4 GiB, the budget of the largest expected-score solve of a shipped game
/// (Maxi Yatzy's, 1.1 GiB). Yahtzee's and Yatzy's target tables hold 0.8 GB of values; Maxi
/// Yatzy's would hold 46 GiB.
pub const VECTOR_MEMORY_LIMIT: u64 = 4 << 30;

/// The most bytes the values of an expected-score table may take in memory for a question
/// about a few positions to load it whole ([`TableSet::ev_for`]): 256 MiB, above the tables
/// of every shipped game of 15 boxes or fewer (Yatzy's 16 MiB) and below Maxi Yatzy's 713 MB.
pub const PART_LOAD_BYTES: u64 = 256 << 20;

/// The most boxes of a game of two whose table is built ([`check_fits`]).
pub const TWO_PLAYER_MOST_BOXES: usize = 12;

/// `Ok` when the `kind` table of `rules` can be built: the target and distribution tables
/// (and with them the win objective, whose vectors are as long) when their values
/// ([`stored_values_bound`], 4 bytes each) fit in [`VECTOR_MEMORY_LIMIT`]; the table of the
/// game of two for a game whose states are its cards ([`check_rules`]) of at most
/// [`TWO_PLAYER_MOST_BOXES`] boxes; and every table when the memory of its build ([`Need`])
/// fits in the memory available ([`memory::available`], or `$YAHTZEE_MEMORY_GIB`). Else the
/// one line that says why not, with the figures and what to do. Milliseconds, a fraction of
/// a second for a card of 20 boxes: asked before any work.
pub fn check_fits(rules: &Rules, kind: TableKind) -> Result<(), String> {
    check_fits_need(rules, kind, &kind.need(rules))
}

/// [`check_fits`] of the `kind` table of `rules` whose build needs `need` (the game of two
/// with its tie chance, [`Need::two_player`]).
pub fn check_fits_need(rules: &Rules, kind: TableKind, need: &Need) -> Result<(), String> {
    check_game(rules, kind)?;
    check_memory(rules, kind, need, Use::Build)
}

/// `Ok` when the `kind` table of `rules`, in its file already, can be read whole in the
/// memory available ([`Need::load_memory`]: what `yahtzee verify` holds); else the one line
/// that says why not, with the figures.
pub fn check_load(rules: &Rules, kind: TableKind) -> Result<(), String> {
    check_memory(rules, kind, &kind.need(rules), Use::Load)
}

/// Whether a table is built or loaded: what its memory is checked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    Build,
    Load,
}

/// Refuses the `kind` table of `rules` when its build, or its load, needs more memory than
/// is available ([`memory::check`]).
fn check_memory(rules: &Rules, kind: TableKind, need: &Need, use_: Use) -> Result<(), String> {
    let (verb, bytes, parts) = match use_ {
        Use::Build => ("solving", need.build_memory, &need.memory_parts),
        Use::Load => ("loading", need.load_memory, &need.load_parts),
    };
    memory::check(
        bytes,
        &format!(
            "{verb} the {} table of {} ({})",
            kind.name(),
            rules.label(),
            parts
        ),
    )
}

/// The limits of each kind of table whatever the memory: the sizes of the vector tables, the
/// games the game of two is solved for.
fn check_game(rules: &Rules, kind: TableKind) -> Result<(), String> {
    if rules.saved_rolls() {
        // The table of saved rolls (`tables::saved`) is the expected score's; no other
        // objective is solved under saved rolls.
        if kind == TableKind::ExpectedScore {
            return Ok(());
        }
        if let TableKind::Theta(_) = kind {
            return Err(saved_rolls_only(rules, "the θ objective"));
        }
        return Err(saved_rolls_only(
            rules,
            "the target, win and two-player objectives",
        ));
    }
    match kind {
        TableKind::ExpectedScore | TableKind::Theta(_) => Ok(()),
        TableKind::TwoPlayer => {
            check_rules(rules).map_err(|e| e.to_string())?;
            // The game of two holds a value per pair of cards and lead: Yacht's 12 boxes take
            // about 1 GB, and every box more about four times as much.
            if rules.box_count() > TWO_PLAYER_MOST_BOXES {
                return Err(format!(
                    "the game of two of {game} is not solved: its table grows about fourfold with each box past {most} (Yacht's {most} boxes take about 1 GB; {game} has {boxes}); play {game} for the expected score, a target or against opponents",
                    game = rules.label(),
                    most = TWO_PLAYER_MOST_BOXES,
                    boxes = rules.box_count(),
                ));
            }
            Ok(())
        }
        TableKind::Target | TableKind::Distribution => {
            let values = stored_values_bound(rules);
            let bytes = 4 * values;
            if bytes <= VECTOR_MEMORY_LIMIT {
                return Ok(());
            }
            let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
            Err(format!(
                "the target and win objectives of {game} are not solved: their tables would hold up to {values} chances ({gib:.0} GiB of memory: a chance per score each of its {states} states can still add), more than the {limit:.0} GiB a table may take; play {game} for the expected score (leave out the target and the opponents)",
                game = rules.label(),
                values = large_count(values),
                gib = gib(bytes),
                states = large_count(reachable_state_count(rules)),
                limit = gib(VECTOR_MEMORY_LIMIT),
            ))
        }
    }
}

/// The refusal of `what` for a game of saved rolls, which is solved for the expected score
/// alone.
pub fn saved_rolls_only(rules: &Rules, what: &str) -> String {
    format!(
        "{game} keeps unused rolls for later turns (saved_rolls = true), and is solved for the expected score alone: {what} need the rules without saved rolls",
        game = rules.label(),
    )
}

/// One table being loaded or loaded.
struct Slot<T> {
    started: AtomicBool,
    building: AtomicBool,
    /// Set to stop the build under way ([`TableSet::cancel`]).
    cancel: Cancel,
    done: AtomicU64,
    total: AtomicU64,
    value: OnceLock<Result<Arc<T>, LoadError>>,
    /// What a build costs, in words, worked out when first asked for (a fraction of a second
    /// for a card of 20 boxes: not again at every status).
    cost: OnceLock<String>,
    /// The seconds a build takes on this machine before it has measured its own pace
    /// ([`predicted_seconds`]), worked out when first asked for.
    predicted: OnceLock<f64>,
    /// When the build's solve first reported its progress, and the steps done then: its own
    /// pace, measured from there ([`TableStatus::eta_seconds`]).
    clock: Mutex<Option<(Instant, u64)>>,
}

impl<T> Default for Slot<T> {
    fn default() -> Slot<T> {
        Slot {
            started: AtomicBool::new(false),
            building: AtomicBool::new(false),
            cancel: Cancel::new(),
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            value: OnceLock::new(),
            cost: OnceLock::new(),
            predicted: OnceLock::new(),
            clock: Mutex::new(None),
        }
    }
}

impl<T> Slot<T> {
    /// A slot whose outcome is `value` already: asked for when it holds a table, not yet
    /// when it refuses one.
    fn settled(value: Result<Arc<T>, LoadError>) -> Slot<T> {
        let slot = Slot::default();
        slot.started.store(value.is_ok(), Ordering::Relaxed);
        let _ = slot.value.set(value);
        slot
    }

    fn get(&self, load: impl FnOnce() -> Result<Arc<T>, LoadError>) -> Result<&Arc<T>, LoadError> {
        self.started.store(true, Ordering::Relaxed);
        match self.value.get_or_init(load) {
            Ok(table) => Ok(table),
            Err(e) => Err(e.clone()),
        }
    }

    fn status(&self, rules: Rules, kind: TableKind) -> TableStatus {
        let (state, error) = match self.value.get() {
            Some(Ok(_)) => (LoadState::Ready, None),
            Some(Err(e)) if e.cause == LoadCause::Cancelled => {
                (LoadState::Cancelled, Some(e.message.clone()))
            }
            Some(Err(e)) => (LoadState::Failed, Some(e.message.clone())),
            None if !self.started.load(Ordering::Relaxed) => (LoadState::Idle, None),
            None if self.building.load(Ordering::Relaxed) => (LoadState::Building, None),
            None => (LoadState::Loading, None),
        };
        let (done, total) = (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        );
        let (seconds, eta_seconds) = if state == LoadState::Building {
            let predicted = *self
                .predicted
                .get_or_init(|| predicted_seconds(&rules, kind));
            let clock = *self.clock.lock().unwrap_or_else(|e| e.into_inner());
            match clock {
                Some((since, first)) => {
                    let seconds = since.elapsed().as_secs_f64();
                    (
                        Some(seconds),
                        Some(eta(seconds, first, done, total, predicted)),
                    )
                }
                // Not solving yet (waiting for the build before it, or reading what it
                // follows): the whole build ahead.
                None => (None, Some(predicted)),
            }
        } else {
            (None, None)
        };
        TableStatus {
            rules,
            objective: kind,
            state,
            done,
            total,
            error,
            build_cost: self.cost.get_or_init(|| kind.build_cost(&rules)).clone(),
            seconds,
            eta_seconds,
        }
    }

    /// The build is over: its pace teaches the machine's ([`PACE`]).
    fn built(&self, rules: &Rules, kind: TableKind) {
        let clock = *self.clock.lock().unwrap_or_else(|e| e.into_inner());
        let (Some((since, first)), total) = (clock, self.total.load(Ordering::Relaxed)) else {
            return;
        };
        let model = model_seconds(rules, kind);
        if total > first && model > 0.0 {
            // The share of the steps that the clock saw, in the model's seconds.
            let share = (total - first) as f64 / total as f64;
            let ratio = since.elapsed().as_secs_f64() / (model * share);
            if ratio.is_finite() && ratio > 0.0 {
                *PACE.lock().unwrap_or_else(|e| e.into_inner()) = Some(ratio);
            }
        }
    }
}

/// The steps `done` of `total` of a build, kept in its slot's counters (`done_so_far`,
/// `steps`), and from the first its `clock` started (the counters alone: the solve's threads
/// share them).
fn solving(
    (done_so_far, steps, clock): (&AtomicU64, &AtomicU64, &Mutex<Option<(Instant, u64)>>),
    done: u64,
    total: u64,
) {
    steps.store(total, Ordering::Relaxed);
    done_so_far.store(done, Ordering::Relaxed);
    let mut clock = clock.lock().unwrap_or_else(|e| e.into_inner());
    clock.get_or_insert_with(|| (Instant::now(), done));
}

/// The seconds the builds of this process took over those their model gave
/// ([`model_seconds`]): the last build's, measured on this machine as it was loaded then.
/// `None` before any build ended.
static PACE: Mutex<Option<f64>> = Mutex::new(None);

/// The seconds a build of the `kind` table of `rules` takes by the model of its work alone
/// ([`Need::cpu_seconds`], shared among the threads of the solve).
fn model_seconds(rules: &Rules, kind: TableKind) -> f64 {
    kind.need(rules).cpu_seconds / rayon::current_num_threads().max(1) as f64
}

/// The seconds a build of the `kind` table of `rules` takes on this machine, before it has
/// measured its own pace: the model's ([`model_seconds`]) scaled by the pace this process
/// measured of its last build ([`PACE`]; the model's own before any).
pub fn predicted_seconds(rules: &Rules, kind: TableKind) -> f64 {
    let pace = PACE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .unwrap_or(1.0);
    model_seconds(rules, kind) * pace
}

/// The seconds left of a build `seconds` into its solve, which has done `done` of `total`
/// steps, `first` of them when its clock started: the pace of the steps since, once a step
/// is done; before, what remains of the `predicted` seconds.
fn eta(seconds: f64, first: u64, done: u64, total: u64, predicted: f64) -> f64 {
    if done > first && total >= done {
        seconds * (total - done) as f64 / (done - first) as f64
    } else {
        (predicted - seconds).max(0.0)
    }
}

/// Where a table stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LoadState {
    /// Not asked for yet.
    Idle,
    /// Being read from its file.
    Loading,
    /// Being solved (no file yet): `done` of `total` steps.
    Building,
    /// Loaded: requests are answered at once.
    Ready,
    /// It cannot be loaded: `error` says why and how to fix it.
    Failed,
    /// Its build was stopped before its end (nothing saved): asked for again, it is built
    /// anew.
    Cancelled,
}

/// Where one table of a set stands (what the server's `/api/status` lists).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TableStatus {
    /// The rules of the table (`rules` and `upper_first`).
    #[serde(flatten)]
    pub rules: Rules,
    /// Which table.
    pub objective: TableKind,
    /// Where it stands.
    pub state: LoadState,
    /// Steps solved so far, while building.
    pub done: u64,
    /// Steps to solve, while building (0 before the solve reports).
    pub total: u64,
    /// Why it cannot be loaded, with the fix.
    pub error: Option<String>,
    /// What building it costs, in words ([`TableKind::build_cost`]), for a page to show
    /// while it builds.
    pub build_cost: String,
    /// While building: the seconds since its solve first reported its progress (absent
    /// before, and when not building).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// While building: the seconds left, from the build's own pace on this machine (the
    /// steps done since its clock started and the time they took); before its first step,
    /// the model's seconds ([`predicted_seconds`]) less those spent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eta_seconds: Option<f64>,
}

/// The tables of one rule set, each loaded or built on first use.
pub struct TableSet {
    rules: Rules,
    /// Where the tables are.
    paths: TablePaths,
    observer: Arc<dyn Observer>,
    ev: Slot<StrategyTable>,
    target: Slot<VectorTable<f32>>,
    distribution: Slot<VectorTable<f32>>,
    two_player: Slot<EarlyTable>,
    /// The table of saved rolls, built (it is read in part, for each question).
    saved: Slot<()>,
    /// The checksum of the table of saved rolls, once read.
    saved_checksum: OnceLock<u32>,
    /// The θ tables asked for, each its θ and slot, in the order asked ([`TableSet::theta`]).
    thetas: [OnceLock<(Theta, Slot<StrategyTable>)>; MAX_THETAS],
    /// Held while a slot of `thetas` is claimed.
    claiming: Mutex<()>,
    /// The slot of every θ when the set offers none ([`TableSet::without`]) or holds
    /// [`MAX_THETAS`] already: its error.
    no_theta: Slot<StrategyTable>,
}

/// The most θ tables one set holds (a frontier's grid of 37 and some more).
pub const MAX_THETAS: usize = 64;

/// The slot of the θ past [`MAX_THETAS`]: an error that says so.
fn too_many_thetas() -> Slot<StrategyTable> {
    Slot::settled(Err(LoadError {
        kind: TableKind::ExpectedScore,
        message: format!("at most {MAX_THETAS} values of θ are solved at once: ask for fewer"),
        cause: LoadCause::NotOffered,
    }))
}

impl TableSet {
    /// The tables of `rules` at `paths` (the default places where none is given), reported
    /// to and explained by `observer`.
    ///
    /// A table that would not fit in memory ([`check_fits`]) is refused when asked for,
    /// before anything is built ([`TableSet::check`]).
    pub fn new(rules: Rules, paths: TablePaths, observer: Arc<dyn Observer>) -> TableSet {
        TableSet {
            rules,
            paths,
            observer,
            ev: Slot::default(),
            target: Slot::default(),
            distribution: Slot::default(),
            two_player: Slot::default(),
            saved: Slot::default(),
            saved_checksum: OnceLock::new(),
            thetas: [const { OnceLock::new() }; MAX_THETAS],
            claiming: Mutex::new(()),
            no_theta: too_many_thetas(),
        }
    }

    /// The tables of `rules` in their default places, silently.
    pub fn in_cache(rules: Rules) -> TableSet {
        TableSet::new(rules, TablePaths::default(), Arc::new(Silent))
    }

    /// A set of the expected-score table `ev` alone: asking it for another table is an error
    /// that says what to leave out of the question (for front ends that answer
    /// expected-score questions only). [`TableSet::with_target`] and the others add tables.
    pub fn of_expected_score(ev: Arc<StrategyTable>) -> TableSet {
        TableSet {
            rules: *ev.rules(),
            paths: TablePaths::default(),
            observer: Arc::new(Silent),
            ev: Slot::settled(Ok(ev)),
            target: Slot::settled(Err(not_offered(TableKind::Target))),
            distribution: Slot::settled(Err(not_offered(TableKind::Distribution))),
            two_player: Slot::settled(Err(not_offered(TableKind::TwoPlayer))),
            saved: Slot::settled(Err(not_offered(TableKind::ExpectedScore))),
            saved_checksum: OnceLock::new(),
            thetas: [const { OnceLock::new() }; MAX_THETAS],
            claiming: Mutex::new(()),
            no_theta: Slot::settled(Err(not_offered(TableKind::Theta(
                Theta::new(1.0).expect("1 is a θ"),
            )))),
        }
    }

    /// This set with the target table `target` loaded already (of the same rules).
    pub fn with_target(mut self, target: Arc<VectorTable<f32>>) -> TableSet {
        self.target = Slot::settled(Ok(target));
        self
    }

    /// This set with the distribution table `distribution` loaded already.
    pub fn with_distribution(mut self, distribution: Arc<VectorTable<f32>>) -> TableSet {
        self.distribution = Slot::settled(Ok(distribution));
        self
    }

    /// This set with the table of the early plies `early` loaded already.
    pub fn with_two_player(mut self, early: Arc<EarlyTable>) -> TableSet {
        self.two_player = Slot::settled(Ok(early));
        self
    }

    /// This set without the `kind` table: asking for it is an error ([`LoadCause::NotOffered`])
    /// that says what to leave out of the question.
    pub fn without(mut self, kind: TableKind) -> TableSet {
        let refused = not_offered(kind);
        match kind {
            TableKind::ExpectedScore => self.ev = Slot::settled(Err(refused)),
            TableKind::Target => self.target = Slot::settled(Err(refused)),
            TableKind::Distribution => self.distribution = Slot::settled(Err(refused)),
            TableKind::TwoPlayer => self.two_player = Slot::settled(Err(refused)),
            TableKind::Theta(_) => {
                self.thetas = [const { OnceLock::new() }; MAX_THETAS];
                self.no_theta = Slot::settled(Err(refused));
            }
        }
        self
    }

    /// Whether the set solves θ tables (not one made without them).
    fn offers_theta(&self) -> bool {
        !matches!(self.no_theta.value.get(), Some(Err(e)) if e.cause == LoadCause::NotOffered && e.kind != TableKind::ExpectedScore)
    }

    /// The slot of `theta`, claimed when first asked for; the set's refusal when it offers
    /// no θ table or holds [`MAX_THETAS`] already.
    fn theta_slot(&self, theta: Theta) -> &Slot<StrategyTable> {
        if !self.offers_theta() {
            return &self.no_theta;
        }
        let find = || {
            self.thetas
                .iter()
                .map_while(OnceLock::get)
                .find(|(t, _)| *t == theta)
                .map(|(_, slot)| slot)
        };
        if let Some(slot) = find() {
            return slot;
        }
        let _claim = self.claiming.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = find() {
            return slot;
        }
        match self.thetas.iter().find(|s| s.get().is_none()) {
            Some(free) => &free.get_or_init(|| (theta, Slot::default())).1,
            None => &self.no_theta,
        }
    }

    /// The table of certainty equivalents under the exponential utility of `theta`
    /// ([`crate::solve::theta`]), loaded or built first if need be (this waits: a few seconds
    /// for the games of five dice). Refused for a game of saved rolls.
    pub fn theta(&self, theta: Theta) -> Result<&Arc<StrategyTable>, LoadError> {
        let kind = TableKind::Theta(theta);
        let rules = self.rules;
        let slot = self.theta_slot(theta);
        slot.get(|| {
            self.fits(kind)?;
            self.load(kind, slot, |path, progress| {
                load_or_solve_theta(&rules, theta, path, progress)
            })
        })
    }

    /// The rules of the set.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Where the `kind` table is, or would be built.
    pub fn path(&self, kind: TableKind) -> PathBuf {
        self.paths.path(&self.rules, kind)
    }

    /// The expected-score table, loaded or built first if need be (this waits). A game of
    /// saved rolls has none: its table is [`TableSet::saved_for`]'s.
    pub fn ev(&self) -> Result<&Arc<StrategyTable>, LoadError> {
        let rules = self.rules;
        self.ev.get(|| {
            if rules.saved_rolls() {
                return Err(LoadError {
                    kind: TableKind::ExpectedScore,
                    cause: LoadCause::NotOffered,
                    message: saved_rolls_only(&rules, "this question and its objective"),
                });
            }
            self.fits(TableKind::ExpectedScore)?;
            self.load(TableKind::ExpectedScore, &self.ev, |path, progress| {
                Ok(cache::load_or_build(&rules, Some(path), progress)?)
            })
        })
    }

    /// The expected-score table as far as the turns of the cards `cards` read it: the whole
    /// table when it is loaded already, missing (then built whole) or small (its values take
    /// at most [`PART_LOAD_BYTES`] in memory), else the rows those turns read alone
    /// ([`StrategyTable::load_cards`]): the advice on one position of a game whose table
    /// takes gigabytes holds megabytes. A table read in part answers for the states of those
    /// cards alone, and is not kept in the set.
    pub fn ev_for(&self, cards: &[BoxMask]) -> Result<Arc<StrategyTable>, LoadError> {
        if let Some(Ok(table)) = self.ev.value.get() {
            return Ok(Arc::clone(table));
        }
        let path = self.path(TableKind::ExpectedScore);
        let dense = 8 * Layout::of(&self.rules).len() as u64;
        if dense <= PART_LOAD_BYTES || path.symlink_metadata().is_err() {
            return self.ev().map(Arc::clone);
        }
        StrategyTable::load_cards(&path, &self.rules, cards)
            .map(Arc::new)
            .map_err(|e| self.failed(TableKind::ExpectedScore, e))
    }

    /// The table of saved rolls (a game with `saved_rolls = true`) as far as the turns of the
    /// cards `cards` read it ([`SavedTable::load_cards`]), built first when its file is
    /// missing (this waits: seconds for a game of five dice, minutes for Maxi Yatzy; the
    /// observer hears of it as of the expected-score table's build).
    pub fn saved_for(&self, cards: &[BoxMask]) -> Result<Arc<SavedTable>, LoadError> {
        let path = self.saved_built()?;
        let table = SavedTable::load_cards(&path, &self.rules, cards)
            .map_err(|e| self.failed(TableKind::ExpectedScore, e))?;
        let _ = self.saved_checksum.set(table.checksum());
        Ok(Arc::new(table))
    }

    /// The checksum of the table of saved rolls, once read.
    pub fn saved_checksum(&self) -> Option<u32> {
        self.saved_checksum.get().copied()
    }

    /// The whole table of saved rolls (what a simulation reads), built first when its file is
    /// missing; refused before anything is read when its values would not fit in memory.
    pub fn saved(&self) -> Result<Arc<SavedTable>, LoadError> {
        let kind = TableKind::ExpectedScore;
        let path = self.saved_built()?;
        let need = kind.need(&self.rules);
        check_memory(&self.rules, kind, &need, Use::Load).map_err(|message| LoadError {
            kind,
            message,
            cause: LoadCause::NotOffered,
        })?;
        let table = SavedTable::load(&path, &self.rules).map_err(|e| self.failed(kind, e))?;
        let _ = self.saved_checksum.set(table.checksum());
        Ok(Arc::new(table))
    }

    /// The path of the table of saved rolls, built there first when missing.
    fn saved_built(&self) -> Result<PathBuf, LoadError> {
        let kind = TableKind::ExpectedScore;
        let rules = self.rules;
        if !rules.saved_rolls() {
            return Err(LoadError {
                kind,
                cause: LoadCause::NotOffered,
                message: format!(
                    "{} does not keep unused rolls for later turns: its table is the expected score's",
                    rules.label()
                ),
            });
        }
        let path = self.path(kind);
        if path.symlink_metadata().is_err() {
            self.saved.get(|| {
                self.load(kind, &self.saved, |path, progress| {
                    progress(Progress::Building { path });
                    SavedTable::build(path, &rules, SolveOptions::default(), &|done, total| {
                        progress(Progress::Solving { done, total })
                    })?;
                    Ok(Loaded {
                        table: (),
                        path: path.to_path_buf(),
                        source: Source::Built(Ok(())),
                    })
                })
            })?;
        }
        Ok(path)
    }

    /// The target table, loaded or built first if need be (this waits; a build takes about a
    /// minute for the Yahtzee rule sets).
    pub fn target(&self) -> Result<&Arc<VectorTable<f32>>, LoadError> {
        let rules = self.rules;
        self.target.get(|| {
            self.fits(TableKind::Target)?;
            self.load(TableKind::Target, &self.target, |path, progress| {
                Ok(cache::load_or_build_target(&rules, Some(path), progress)?)
            })
        })
    }

    /// The distribution table, loaded or built first if need be (this waits; a build follows
    /// the expected-score policy, so that table is loaded first).
    pub fn distribution(&self) -> Result<&Arc<VectorTable<f32>>, LoadError> {
        self.distribution.get(|| {
            self.fits(TableKind::Distribution)?;
            let ev = self.ev()?;
            self.load(
                TableKind::Distribution,
                &self.distribution,
                |path, progress| Ok(cache::load_or_build_distribution(ev, Some(path), progress)?),
            )
        })
    }

    /// The table of the early plies of the game of two, loaded or solved first if need be
    /// (this waits; a solve is the whole game, a few minutes for Yacht).
    pub fn two_player(&self) -> Result<&Arc<EarlyTable>, LoadError> {
        let rules = self.rules;
        self.two_player.get(|| {
            self.fits(TableKind::TwoPlayer)?;
            self.load(TableKind::TwoPlayer, &self.two_player, |path, progress| {
                load_or_solve_two_player(&rules, path, progress)
            })
        })
    }

    /// The table of `kind` from `load` (given its path and the progress to report), with
    /// what the observer hears of it.
    fn load<T>(
        &self,
        kind: TableKind,
        slot: &Slot<T>,
        load: impl FnOnce(&Path, &(dyn Fn(Progress<'_>) + Sync)) -> Result<Loaded<T>, Failure>,
    ) -> Result<Arc<T>, LoadError> {
        // Every table is refused before anything is read or built when the game has none
        // (a game of saved rolls) or it would not fit ([`check_fits`]).
        self.fits(kind)?;
        let paths = &self.paths;
        let rules = &self.rules;
        let path = paths.path(rules, kind);
        // A path given is used as given: a missing folder is refused, as for every output
        // (the default folder, the cache, is made when missing).
        if let Some(given) = paths.given(kind)
            && let Err(e) = crate::files::check_folder_of(given)
        {
            return Err(LoadError {
                kind,
                cause: LoadCause::Io,
                message: format!(
                    "cannot use the {} table {}: {e}",
                    kind.name(),
                    given.display()
                ),
            });
        }
        let observer = &*self.observer;
        // The slot's counters alone: the closure is shared with the solve's threads.
        let building = &slot.building;
        let counters = (&slot.done, &slot.total, &slot.clock);
        // A build told to stop stops at its next step (nothing is saved before the solve's
        // end).
        let loaded = slot.cancel.until(|stop_here| {
            load(&path, &|p| match p {
                Progress::Building { path } => {
                    stop_here();
                    building.store(true, Ordering::Relaxed);
                    observer.report(rules, kind, Event::Building { path });
                }
                Progress::Solving { done, total } => {
                    stop_here();
                    solving(counters, done, total);
                    observer.report(rules, kind, Event::Solving { done, total });
                }
            })
        });
        let loaded = match loaded {
            Some(loaded) => loaded,
            None => {
                if slot.building.load(Ordering::Relaxed) {
                    observer.report(rules, kind, Event::Cancelled);
                }
                return Err(LoadError {
                    kind,
                    message: format!(
                        "the build of the {} table of {} was cancelled before its end (nothing was saved): ask for it again to build it",
                        kind.name(),
                        rules.label()
                    ),
                    cause: LoadCause::Cancelled,
                });
            }
        };
        if slot.building.load(Ordering::Relaxed) {
            slot.built(rules, kind);
            observer.report(rules, kind, Event::Built);
        }
        let loaded = loaded.map_err(|failure| match failure {
            Failure::Table(e) => self.failed(kind, e),
            Failure::Solve(message) => LoadError {
                kind,
                message,
                cause: LoadCause::Table,
            },
        })?;
        if let Some(error) = loaded.saved() {
            let given = paths.given(kind).is_some();
            observer.report(rules, kind, Event::NotSaved { error, given });
        }
        Ok(Arc::new(loaded.table))
    }

    /// The error of the `kind` table that could not be read or written, explained by the
    /// observer.
    fn failed(&self, kind: TableKind, e: TableError) -> LoadError {
        LoadError {
            kind,
            cause: match e {
                TableError::Read { .. } | TableError::Write { .. } => LoadCause::Io,
                _ => LoadCause::Table,
            },
            message: self
                .observer
                .explain(e, &self.rules, kind, self.paths.given(kind)),
        }
    }

    /// `Ok` unless the `kind` table would not fit in memory, or cannot be solved for the
    /// game ([`check_fits`]). Nothing is loaded or built: a front end asks this of every
    /// table a question needs before it loads any, so that a refused question builds
    /// nothing.
    pub fn check(&self, kind: TableKind) -> Result<(), LoadError> {
        self.fits(kind)
    }

    /// [`check_fits`] as a [`LoadError`] of the `kind` table: the memory of its load when
    /// its file is there, of its build when not. A table given already (or loaded) fits.
    fn fits(&self, kind: TableKind) -> Result<(), LoadError> {
        let loaded = match kind {
            TableKind::ExpectedScore => matches!(self.ev.value.get(), Some(Ok(_))),
            TableKind::Target => matches!(self.target.value.get(), Some(Ok(_))),
            TableKind::Distribution => matches!(self.distribution.value.get(), Some(Ok(_))),
            TableKind::TwoPlayer => matches!(self.two_player.value.get(), Some(Ok(_))),
            TableKind::Theta(theta) => {
                matches!(self.theta_slot(theta).value.get(), Some(Ok(_)))
            }
        };
        if loaded {
            return Ok(());
        }
        let use_ = if self.path(kind).symlink_metadata().is_ok() {
            Use::Load
        } else {
            Use::Build
        };
        check_game(&self.rules, kind)
            .and_then(|()| check_memory(&self.rules, kind, &kind.need(&self.rules), use_))
            .map_err(|message| LoadError {
                kind,
                message,
                cause: LoadCause::NotOffered,
            })
    }

    /// Starts loading the `kind` table in the background, unless it is loaded or loading
    /// already, and says where it stands.
    pub fn start(self: &Arc<Self>, kind: TableKind) -> TableStatus {
        if !self.started(kind).swap(true, Ordering::Relaxed) {
            let set = Arc::clone(self);
            std::thread::spawn(move || {
                // The outcome stays in the slot, for the requests and the status.
                let _ = set.get(kind);
            });
        }
        self.status(kind)
    }

    /// Stops the build of the `kind` table under way, if one is (or is about to start): it
    /// stops as its next card or depth starts, saves nothing, and the slot then holds a
    /// [`LoadCause::Cancelled`] error for every request waiting for it. A table loaded, or
    /// being read from its file, is left as it is. Says where the table stands.
    pub fn cancel(&self, kind: TableKind) -> TableStatus {
        let cancel = match kind {
            TableKind::ExpectedScore => &self.ev.cancel,
            TableKind::Target => &self.target.cancel,
            TableKind::Distribution => &self.distribution.cancel,
            TableKind::TwoPlayer => &self.two_player.cancel,
            TableKind::Theta(theta) => &self.theta_slot(theta).cancel,
        };
        // Loading: read from its file (which no flag stops) or about to be built.
        if matches!(
            self.status(kind).state,
            LoadState::Loading | LoadState::Building
        ) {
            cancel.cancel();
        }
        self.status(kind)
    }

    /// Loads the `kind` table (see [`TableSet::ev`] and the others), for its outcome only.
    pub fn get(&self, kind: TableKind) -> Result<(), LoadError> {
        match kind {
            TableKind::ExpectedScore => self.ev().map(|_| ()),
            TableKind::Target => self.target().map(|_| ()),
            TableKind::Distribution => self.distribution().map(|_| ()),
            TableKind::TwoPlayer => self.two_player().map(|_| ()),
            TableKind::Theta(theta) => self.theta(theta).map(|_| ()),
        }
    }

    /// Where the `kind` table stands.
    pub fn status(&self, kind: TableKind) -> TableStatus {
        match kind {
            TableKind::ExpectedScore => self.ev.status(self.rules, kind),
            TableKind::Target => self.target.status(self.rules, kind),
            TableKind::Distribution => self.distribution.status(self.rules, kind),
            TableKind::TwoPlayer => self.two_player.status(self.rules, kind),
            TableKind::Theta(theta) => self.theta_slot(theta).status(self.rules, kind),
        }
    }

    /// True once the `kind` table has been asked for (or was given).
    pub fn asked_for(&self, kind: TableKind) -> bool {
        self.started(kind).load(Ordering::Relaxed)
    }

    /// Whether the `kind` table was asked for.
    fn started(&self, kind: TableKind) -> &AtomicBool {
        match kind {
            TableKind::ExpectedScore => &self.ev.started,
            TableKind::Target => &self.target.started,
            TableKind::Distribution => &self.distribution.started,
            TableKind::TwoPlayer => &self.two_player.started,
            TableKind::Theta(theta) => &self.theta_slot(theta).started,
        }
    }
}

/// Why a table could not be loaded or built.
enum Failure {
    /// Its file (see [`TableError`]).
    Table(TableError),
    /// The solve that builds it, in words.
    Solve(String),
}

impl From<TableError> for Failure {
    fn from(e: TableError) -> Failure {
        Failure::Table(e)
    }
}

/// The θ table of `rules` at `path`: loaded when the file exists, else solved and saved there
/// (a save that fails is reported, as for the expected-score table).
fn load_or_solve_theta(
    rules: &Rules,
    theta: Theta,
    path: &Path,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Loaded<StrategyTable>, Failure> {
    if path.symlink_metadata().is_ok() {
        return Ok(Loaded {
            table: StrategyTable::load_theta(path, rules, theta)?,
            path: path.to_path_buf(),
            source: cache::Source::Loaded,
        });
    }
    progress(Progress::Building { path });
    let (table, _) =
        StrategyTable::solve_theta(rules, theta, SolveOptions::default(), &|done, total| {
            progress(Progress::Solving { done, total })
        })
        .map_err(Failure::Solve)?;
    let saved = table.save(path);
    Ok(Loaded {
        table,
        path: path.to_path_buf(),
        source: cache::Source::Built(saved),
    })
}

/// The table of the early plies of the game of two of `rules` at `path`: loaded when the file
/// exists, else the whole game solved and its early plies saved there, then loaded.
fn load_or_solve_two_player(
    rules: &Rules,
    path: &Path,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Loaded<EarlyTable>, Failure> {
    // `symlink_metadata` rather than `exists`: a dangling link is a file that is there.
    if path.symlink_metadata().is_ok() {
        return Ok(Loaded {
            table: EarlyTable::load(path, rules)?,
            path: path.to_path_buf(),
            source: cache::Source::Loaded,
        });
    }
    progress(Progress::Building { path });
    let game = Game::optimal(*rules).map_err(|e| Failure::Solve(e.to_string()))?;
    solve_report(
        &game,
        Ties::Values,
        Some(path),
        SolveOptions::default().simd,
        &|done, total| progress(Progress::Solving { done, total }),
    )
    .map_err(|e| match e {
        SolveReportError::Table(e) => Failure::Table(e),
        SolveReportError::Game(e) => Failure::Solve(e.to_string()),
    })?;
    Ok(Loaded {
        table: EarlyTable::load(path, rules)?,
        path: path.to_path_buf(),
        source: cache::Source::Built(Ok(())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::RuleSet;
    use std::sync::{Mutex, Weak};

    /// Cancels the build of its set as soon as the build has solved a card, and notes what it
    /// hears.
    struct Stopper {
        set: OnceLock<Weak<TableSet>>,
        heard: Mutex<Vec<&'static str>>,
    }

    impl Observer for Stopper {
        fn report(&self, _: &Rules, kind: TableKind, event: Event<'_>) {
            let word = match event {
                Event::Building { .. } => "building",
                Event::Solving { done, .. } => {
                    if done > 0
                        && let Some(set) = self.set.get().and_then(Weak::upgrade)
                    {
                        set.cancel(kind);
                    }
                    "solving"
                }
                Event::Built => "built",
                Event::Cancelled => "cancelled",
                _ => "other",
            };
            self.heard.lock().unwrap().push(word);
        }
    }

    /// The game of issue 45, as `tests/hostile.rs` writes it: Maxi Yatzy's card with four
    /// rolls (no saved rolls), an upper bonus of 100 at 126, a five-of-a-kind bonus and a forced Joker.
    fn huge() -> Rules {
        let maxi = crate::game::rules::file::SHIPPED
            .iter()
            .find(|(name, _)| *name == "maxi-yatzy")
            .unwrap()
            .1;
        let text = [
            ("rolls = 3\nsaved_rolls = true", "rolls = 4"),
            (
                "joker = \"none\"",
                "joker = \"forced\"\nfive_of_a_kind_bonus = 100",
            ),
            ("threshold = 84", "threshold = 126"),
            ("name = \"maxi-yatzy\"", "name = \"huge\""),
        ]
        .iter()
        .fold(maxi.to_string(), |text, (from, to)| {
            assert!(text.contains(from), "{from}");
            text.replacen(from, to, 1)
        });
        crate::game::rules::file::load(&text, None).unwrap()
    }

    /// Maxi Yatzy without saved rolls (its example file), whose table was measured.
    fn maxi_without_saved_rolls() -> Rules {
        crate::game::rules::file::load(
            include_str!("../../../../data/rules/examples/maxi-yatzy-no-saved-rolls.toml"),
            None,
        )
        .unwrap()
    }

    /// Issue 45, item 1: what the notices say holds what the builds measured (the game of
    /// issue 45 once promised "a GiB" and took 2.8 GB): each table's memory at least its
    /// build's peak resident memory and at most a quarter more and 32 MiB, its file within a
    /// tenth of its size (results/memory-2026-12-06.md, results/table-sizes-2026-12-03.md,
    /// results/two-player-2026-12-02.md; peaks in KiB, or MB for the vector tables).
    #[test]
    fn the_needs_hold_what_the_builds_measured() {
        let (kib, mb) = (1024u64, 1_000_000u64);
        let shipped = |name: &str| Rules::new(RuleSet::from_name(name).unwrap());
        let (ev, target, distribution) = (
            TableKind::ExpectedScore,
            TableKind::Target,
            TableKind::Distribution,
        );
        let measured = [
            (shipped("yacht"), ev, 9_320 * kib, 32_947),
            (shipped("yahtzee"), ev, 19_104 * kib, 4_292_285),
            (shipped("yatzy"), ev, 29_048 * kib, 11_445_799),
            (shipped("yacht-dice"), ev, 11_988 * kib, 1_430_884),
            (maxi_without_saved_rolls(), ev, 839_504 * kib, 460_119_060),
            (huge(), ev, 2_469_776 * kib, 737_763_455),
            (shipped("yacht-dice"), target, 103 * mb, 27_190_000),
            (shipped("yahtzee"), target, 795 * mb, 233_030_000),
            (shipped("yatzy"), target, 794 * mb, 234_070_000),
            (shipped("yahtzee"), distribution, 845 * mb, 235_800_000),
            (shipped("yatzy"), distribution, 877 * mb, 249_410_000),
            (
                shipped("yacht"),
                TableKind::TwoPlayer,
                1_847 << 20,
                956_610_067,
            ),
        ];
        for (rules, kind, peak, file) in measured {
            let need = kind.need(&rules);
            let what = format!("{} {}: {need:?}", rules.label(), kind.name());
            assert!(need.build_memory >= peak, "{what}: peak {peak}");
            assert!(need.build_memory <= peak + peak / 4 + (32 << 20), "{what}");
            assert!(need.disk.abs_diff(file) * 10 <= file, "{what}: file {file}");
        }
        let ties = Need::two_player(&shipped("yacht"), Ties::Carried);
        assert!(ties.build_memory >= 3_775 << 20, "{ties:?}");
        let words = TableKind::ExpectedScore.build_cost(&huge());
        assert!(
            words.ends_with(", 2.4 GiB of memory and 738 MB on disk"),
            "{words}"
        );
    }

    #[test]
    fn a_build_told_to_stop_stops_at_its_next_card_and_saves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let paths = TablePaths {
            target: Some(dir.path().join("yacht.target.table")),
            ..TablePaths::default()
        };
        let stopper = Arc::new(Stopper {
            set: OnceLock::new(),
            heard: Mutex::default(),
        });
        let set = Arc::new(TableSet::new(
            Rules::new(RuleSet::YACHT),
            paths,
            stopper.clone(),
        ));
        let _ = stopper.set.set(Arc::downgrade(&set));
        // Not being built: nothing to stop.
        assert_eq!(set.cancel(TableKind::Target).state, LoadState::Idle);
        let e = set.target().unwrap_err();
        assert_eq!(e.cause, LoadCause::Cancelled);
        assert!(e.message.contains("was cancelled"), "{}", e.message);
        let status = set.status(TableKind::Target);
        assert_eq!(status.state, LoadState::Cancelled);
        assert!(status.done < status.total, "{status:?}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let heard = stopper.heard.lock().unwrap().clone();
        assert_eq!(heard.first(), Some(&"building"));
        assert_eq!(heard.last(), Some(&"cancelled"));
        assert!(!heard.contains(&"built"), "{heard:?}");
        // The outcome stays: a request waiting for it hears the same.
        assert_eq!(set.target().unwrap_err().cause, LoadCause::Cancelled);
    }
}
