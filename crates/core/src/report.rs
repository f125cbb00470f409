//! The results of solving, verifying, the exact statistics and the simulation: one
//! `Serialize` struct each, computed by the function beside it. The binary prints them as
//! text or JSON; a server would send the same structs. Each holds the [`Rules`] it was
//! computed for, serialized as its two fields `rules` and `upper_first`.
//!
//! The functions run on the current rayon thread pool and report its size.

use std::io::{self, Write};
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::export::Meta;
use crate::export::columns::{Header, Value, write_values};
use crate::game::rules::{Rules, highest_score};
use crate::game::state::{State, reachable_state_count};
use crate::policy::Policy;
use crate::policy::expected::AdviceError;
use crate::policy::player::Player;
use crate::policy::target::{TargetError, TargetPlayer};
use crate::solve::expected::SolveOptions;
use crate::solve::theta::Theta;
use crate::solve::vector::{VectorObjective, max_remaining};
use crate::stats::distribution::{Interval, Summary, Tally};
use crate::stats::events::JointFigures;
use crate::stats::joint::JointReport;
use crate::stats::simulate::{MeanInterval, PerBox, ShareInterval};
use crate::stats::{JointError, Start};
use crate::tables::TableError;
use crate::tables::container::FORMAT_VERSION;
use crate::tables::container::TableHeader;
use crate::tables::expected::{EXPECTED_SCORE, StrategyTable};
use crate::tables::saved::SavedTable;
use crate::tables::vector::VectorTable;

pub use crate::tables::provenance::{
    Provenance, Stamped, UNKNOWN_COMMIT, VERSION, commit, set_commit, stamped, stamped_by,
};

/// The tie convention of the optimal policy, as every report that applies it states it.
pub const TIE_CONVENTION: &str = "options within 1e-9 of the best are ties: among keeps, the fewest dice (then the lowest faces); among boxes, the first on the card";

/// The tie convention of the target policy, as every report that applies it states it.
pub const TARGET_TIE_CONVENTION: &str = "options whose chances of reaching the target are within 1e-9 are ties: the higher expected final score, then among keeps the fewest dice (then the lowest faces), among boxes the first on the card";

/// The tie convention of the policies that play to win, as every report that applies it
/// states it.
pub const WIN_TIE_CONVENTION: &str = "options whose chances of winning are within 1e-9 are ties: the higher expected final score, then among keeps the fewest dice (then the lowest faces), among boxes the first on the card";

/// How `policy` breaks ties (`None` for the baselines, which have their own rules).
pub fn tie_convention(policy: Policy) -> Option<&'static str> {
    match policy {
        Policy::Optimal | Policy::Theta(_) => Some(TIE_CONVENTION),
        Policy::Target(_) => Some(TARGET_TIE_CONVENTION),
        Policy::Win | Policy::WinExact | Policy::TwoPlayer => Some(WIN_TIE_CONVENTION),
        Policy::Greedy | Policy::MostCommon => None,
    }
}

/// The most games one simulation plays: beyond this the per-game counts would no longer be
/// exact in f64 (2^53), long before which the run would take days anyway.
pub const MAX_GAMES: u64 = 1 << 40;

/// What a solve reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SolveReport {
    /// The rules solved.
    #[serde(flatten)]
    pub rules: Rules,
    /// Expected final score of an empty card under optimal play.
    pub expected_score: f64,
    /// Reachable turn-start states.
    pub states: u64,
    /// Seconds of the solve itself (not the file write).
    pub seconds: f64,
    /// Where the table was written.
    pub path: String,
    /// Worker threads used.
    pub threads: usize,
}

/// Solves `rules`, saves the table at `path` and reports. `progress(done, total)` counts
/// cards solved.
pub fn solve(
    rules: &Rules,
    path: &Path,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(SolveReport, StrategyTable), TableError> {
    let (table, seconds) = StrategyTable::solve(rules, SolveOptions::default(), progress);
    table.save(path)?;
    let report = SolveReport {
        rules: *rules,
        expected_score: table.expected_score(),
        states: table.states(),
        seconds,
        path: path.display().to_string(),
        threads: rayon::current_num_threads(),
    };
    Ok((report, table))
}

/// What a verified table holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VerifyReport {
    /// The file checked.
    pub path: String,
    /// The rules of the table, as its header names them.
    #[serde(flatten)]
    pub rules: Rules,
    /// File format version.
    pub format_version: u32,
    /// Value type of the stored values.
    pub value_type: String,
    /// Number of values stored.
    pub entries: u64,
    /// CRC-32 of the values as checked, 8 hexadecimal digits.
    pub checksum: String,
    /// Reachable turn-start states of these rules.
    pub states: u64,
    /// Expected final score of an empty card.
    pub expected_score: f64,
}

impl VerifyReport {
    /// The report of a table opened from `path` (see [`StrategyTable::open`]).
    pub fn of(path: &Path, header: &TableHeader, table: &StrategyTable) -> VerifyReport {
        VerifyReport {
            path: path.display().to_string(),
            rules: *table.rules(),
            format_version: FORMAT_VERSION,
            value_type: header.value_type.clone(),
            entries: header.entries,
            checksum: format!("{:08x}", header.checksum),
            states: table.states(),
            expected_score: table.expected_score(),
        }
    }
}

/// Checks the expected-score table file at `path` and says what it holds: a table of
/// `rules` when given (a table of other rules is refused), else of the rules its header names
/// (see [`StrategyTable::open_as`]).
pub fn verify(path: &Path, rules: Option<&Rules>) -> Result<VerifyReport, TableError> {
    let (header, table) = StrategyTable::open_as(path, rules)?;
    Ok(VerifyReport::of(path, &header, &table))
}

/// The thresholds whose chance from an empty card the reports of a target table show.
pub const REACH_THRESHOLDS: [u32; 6] = [150, 200, 250, 300, 350, 400];

/// The best chance of reaching a final score from an empty card.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Reach {
    /// The final score.
    pub target: u32,
    /// The best chance, over all strategies, of a final score of at least `target` (0 for
    /// a chance below the table's tail).
    pub p_reach: f64,
    /// True when some dice make the target, so that its chance is not 0.
    pub reachable: bool,
}

/// What a solve of a vector table (target or distribution) reports, and what verifying such
/// a file says. `reach` is the chance from an empty card of each final score: the best
/// chance for the target table, that of expected-score play for the distribution table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetReport {
    /// The rules solved.
    #[serde(flatten)]
    pub rules: Rules,
    /// The objective: `target` or `distribution`.
    pub objective: &'static str,
    /// Reachable turn-start states.
    pub states: u64,
    /// Values stored (states whose vectors are equal share them).
    pub values: u64,
    /// The tail left out of the vectors (values within it of 0).
    pub tail: f64,
    /// The best chance of reaching each of [`REACH_THRESHOLDS`] from an empty card.
    pub reach: Vec<Reach>,
    /// Seconds of the solve (`null` for a verified file).
    pub seconds: Option<f64>,
    /// The table file.
    pub path: String,
    /// File format version.
    pub format_version: u32,
    /// CRC-32 of the file's body, 8 hexadecimal digits.
    pub checksum: Option<String>,
    /// Worker threads used (`null` for a verified file).
    pub threads: Option<usize>,
}

impl TargetReport {
    fn of(table: &VectorTable<f32>, path: &Path) -> Result<TargetReport, TableError> {
        let reach = REACH_THRESHOLDS
            .iter()
            .map(|&t| {
                Ok(Reach {
                    target: t,
                    p_reach: f64::from(table.value(&State::START, i64::from(t))?),
                    reachable: t <= max_remaining(table.rules(), &State::START),
                })
            })
            .collect::<Result<_, TableError>>()?;
        Ok(TargetReport {
            rules: *table.rules(),
            objective: table.objective(),
            states: reachable_state_count(table.rules()),
            values: table.stored_values(),
            tail: table.tail(),
            reach,
            seconds: None,
            path: path.display().to_string(),
            format_version: FORMAT_VERSION,
            checksum: None,
            threads: None,
        })
    }
}

/// Solves the target table of `rules`, saves it at `path` and reports. `progress(done,
/// total)` counts cards solved.
pub fn solve_target(
    rules: &Rules,
    path: &Path,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(TargetReport, VectorTable<f32>), TableError> {
    solve_vector(&VectorObjective::target(*rules), path, progress)
}

/// Solves the table of a vector objective, saves it at `path` and reports, like
/// [`solve_target`].
pub fn solve_vector(
    objective: &VectorObjective<f32>,
    path: &Path,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(TargetReport, VectorTable<f32>), TableError> {
    let start = Instant::now();
    let table = VectorTable::solve(objective, SolveOptions::default().simd, progress);
    let seconds = start.elapsed().as_secs_f64();
    table.save(path)?;
    let mut report = TargetReport::of(&table, path)?;
    report.checksum = file_checksum(path);
    report.seconds = Some(seconds);
    report.threads = Some(rayon::current_num_threads());
    Ok((report, table))
}

/// Reads the table of the vector objective `name` of `rules` saved at `path`, without
/// solving, and reports it like [`solve_vector`]: `seconds` and `threads` are `null`, `values`
/// every card's (from the file's index), `checksum` the file header's. Only the empty card's
/// values are read (each card is read when first asked for), so this takes milliseconds where
/// the solve takes minutes.
pub fn read_vector(
    rules: &Rules,
    name: &'static str,
    path: &Path,
) -> Result<(TargetReport, VectorTable<f32>), TableError> {
    let table = VectorTable::load(path, rules, name)?;
    let mut report = TargetReport::of(&table, path)?;
    report.checksum = file_checksum(path);
    Ok((report, table))
}

/// The checksum of the table file at `path` as its header states it (the one `verify`
/// prints), or `None` when its header cannot be read.
fn file_checksum(path: &Path) -> Option<String> {
    crate::tables::container::header_of_file(path).map(|h| format!("{:08x}", h.checksum))
}

/// What a verified table file holds, by its objective.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Verified {
    /// An expected-score table.
    ExpectedScore(VerifyReport),
    /// A target table.
    Target(TargetReport),
}

/// Checks the table file at `path`, of whatever objective its header names, and says what
/// it holds: a table of `rules` when given, else of the rules its header names.
pub fn verify_any(path: &Path, rules: Option<&Rules>) -> Result<Verified, TableError> {
    // The header alone decides which table it is: the body is read once, by the check.
    let head = crate::tables::container::TableFile::open(path)?.head;
    if head.header.objective == EXPECTED_SCORE {
        return verify(path, rules).map(Verified::ExpectedScore);
    }
    if head.header.objective == crate::tables::saved::SAVED_EXPECTED_SCORE {
        let (header, expected_score) = crate::tables::saved::SavedTable::verify(path, rules)?;
        let rules = match rules {
            Some(rules) => *rules,
            None => head
                .header
                .rules()
                .expect("the rules the table was read with"),
        };
        return Ok(Verified::ExpectedScore(VerifyReport {
            path: path.display().to_string(),
            rules,
            format_version: FORMAT_VERSION,
            value_type: header.value_type.clone(),
            entries: header.entries,
            checksum: format!("{:08x}", header.checksum),
            states: header.entries,
            expected_score,
        }));
    }
    let (header, table) = VectorTable::verify(path, rules)?;
    let mut report = TargetReport::of(&table, path)?;
    report.checksum = Some(format!("{:08x}", header.checksum));
    Ok(Verified::Target(report))
}

/// What the exact statistics report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatsReport {
    /// The rules of the table.
    #[serde(flatten)]
    pub rules: Rules,
    /// Always `exact`: probabilities propagated through every state, no sampling.
    pub method: &'static str,
    /// Always `optimal`.
    pub policy: &'static str,
    /// How ties between equally good options are broken: [`TIE_CONVENTION`].
    pub tie_convention: &'static str,
    /// Where the games start: absent for a new game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<FromReport>,
    /// Expected final score according to the strategy table, from the start (the mean must
    /// equal it).
    pub solver_mean: f64,
    /// Seconds of the computation (the table load or build excluded).
    pub seconds: f64,
    /// Worker threads used.
    pub threads: usize,
    /// The figures of the distribution.
    #[serde(flatten)]
    pub summary: Summary,
    /// The exact events and joint figures (`stats --events`): `events`, `covariance`,
    /// `bonus_by_five_of_a_kind`; absent unless asked for.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub joint: Option<JointFigures>,
    /// The joint distribution of a box with the final score and the other boxes (`stats
    /// --joint BOX`, [`crate::stats::joint`]); absent unless asked for.
    #[serde(rename = "joint", skip_serializing_if = "Option::is_none")]
    pub box_joint: Option<JointReport>,
}

/// Where the games of [`StatsReport`] start: a card, and the dice of a turn of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FromReport {
    /// The card, as `--card` takes it.
    pub card: String,
    /// Its points, bonuses included.
    pub banked: u32,
    /// The dice showing, ascending (absent: the start of a turn, before its first roll).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dice: Option<Vec<u8>>,
    /// Rolls left with those dice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rolls_left: Option<u8>,
}

impl FromReport {
    /// What `start` is, as a report says it.
    pub fn of(start: &Start) -> FromReport {
        let card = start.card();
        let (dice, rolls_left) = match start {
            Start::Card(_) => (None, None),
            Start::Position(p) => (Some(p.dice.faces()), Some(p.rolls_left)),
        };
        FromReport {
            card: card.to_string(),
            banked: card.banked(),
            dice,
            rolls_left,
        }
    }
}

/// The exact distribution of the final score under the optimal policy of `table`, with
/// P(score >= t) for each of `thresholds`; the tally is returned too, for the whole
/// distribution. `progress(done, total)` counts turns.
pub fn stats(
    table: &StrategyTable,
    thresholds: &[u32],
    progress: &(dyn Fn(u64, u64) + Sync),
) -> (StatsReport, Tally) {
    stats_from(table, None, thresholds, progress)
        .expect("a new game is a start of the table's rules")
}

/// [`stats`] from `start` (`None`: a new game): the distribution of the final score of the
/// games that go on from there ([`crate::stats::exact_distribution_from`]).
pub fn stats_from(
    table: &StrategyTable,
    start: Option<&Start>,
    thresholds: &[u32],
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(StatsReport, Tally), AdviceError> {
    let clock = Instant::now();
    let (tally, from, solver_mean) = match start {
        None => (
            crate::stats::exact_distribution(table, progress),
            None,
            table.expected_score(),
        ),
        Some(start) => {
            let tally = crate::stats::exact_distribution_from(table, start, progress)?;
            let value = match start {
                Start::Card(c) => f64::from(c.banked()) + table.value(&c.state()),
                Start::Position(p) => {
                    crate::policy::expected::advise(table, p)?.options[0].expected_final()
                }
            };
            (tally, Some(FromReport::of(start)), value)
        }
    };
    let seconds = clock.elapsed().as_secs_f64();
    let report = stats_report(
        table.rules(),
        &tally,
        from,
        solver_mean,
        thresholds,
        seconds,
    );
    Ok((report, tally))
}

/// [`stats_from`] with the exact events and joint figures of the games, from the same pass
/// ([`crate::stats::exact_joint_from`]): refused for a card of more than 15 boxes.
pub fn stats_joint_from(
    table: &StrategyTable,
    start: Option<&Start>,
    thresholds: &[u32],
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(StatsReport, Tally), JointError> {
    let clock = Instant::now();
    let (tally, joint) = crate::stats::exact_joint_from(table, start, progress)?;
    let solver_mean = match start {
        None => table.expected_score(),
        Some(Start::Card(c)) => f64::from(c.banked()) + table.value(&c.state()),
        Some(Start::Position(p)) => {
            crate::policy::expected::advise(table, p)?.options[0].expected_final()
        }
    };
    let seconds = clock.elapsed().as_secs_f64();
    let mut report = stats_report(
        table.rules(),
        &tally,
        start.map(FromReport::of),
        solver_mean,
        thresholds,
        seconds,
    );
    report.joint = Some(joint);
    Ok((report, tally))
}

/// The exact distribution of the final score of a game of saved rolls from a new game under
/// the optimal policy of `table` (whole: [`crate::stats::saved::saved_distribution`]), with
/// its report.
pub fn stats_saved(
    table: &SavedTable,
    thresholds: &[u32],
    progress: &(dyn Fn(u64, u64) + Sync),
) -> (StatsReport, Tally) {
    let clock = Instant::now();
    let tally = crate::stats::saved::saved_distribution(table, progress);
    let seconds = clock.elapsed().as_secs_f64();
    let mean = table.expected_score().expect("the whole table");
    let report = stats_report(table.rules(), &tally, None, mean, thresholds, seconds);
    (report, tally)
}

/// The report of [`stats`] from the tally of a forward pass already made from a new game
/// ([`crate::stats::exact_forward`], whose visits a caller may keep too), which took
/// `seconds`: a front end that keeps the pass answers both without a second one.
pub fn stats_of_forward(
    table: &StrategyTable,
    forward: &crate::stats::Forward,
    thresholds: &[u32],
    seconds: f64,
) -> StatsReport {
    stats_report(
        table.rules(),
        &forward.tally,
        None,
        table.expected_score(),
        thresholds,
        seconds,
    )
}

fn stats_report(
    rules: &Rules,
    tally: &Tally,
    from: Option<FromReport>,
    solver_mean: f64,
    thresholds: &[u32],
    seconds: f64,
) -> StatsReport {
    let rules = *rules;
    StatsReport {
        rules,
        method: "exact",
        policy: "optimal",
        tie_convention: TIE_CONVENTION,
        from,
        solver_mean,
        seconds,
        threads: rayon::current_num_threads(),
        summary: Summary::of(&rules, tally, thresholds),
        joint: None,
        box_joint: None,
    }
}

/// The expected-score policy beside the target policy, for the same target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExpectedScorePolicy {
    /// Always `optimal`: the expected-score policy of the strategy table.
    pub policy: &'static str,
    /// P(final score >= target) under it, from its exact distribution.
    pub p_reach: f64,
    /// The figures of its exact distribution.
    #[serde(flatten)]
    pub summary: Summary,
}

/// What the exact statistics of the target policy report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetStatsReport {
    /// The rules of the tables.
    #[serde(flatten)]
    pub rules: Rules,
    /// Always `exact`: probabilities propagated through every state, no sampling.
    pub method: &'static str,
    /// Always `target`: the best chance of a final score of at least `target`.
    pub policy: &'static str,
    /// The target score.
    pub target: u32,
    /// How ties between equally good options are broken: [`TARGET_TIE_CONVENTION`].
    pub tie_convention: &'static str,
    /// Where the games start: absent for a new game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<FromReport>,
    /// P(final score >= target) under the target policy, from its exact distribution.
    pub p_reach: f64,
    /// The best chance of reaching the target from the start (an empty card, or `from`)
    /// according to the target table, `P*(start, T)`: `p_reach` must equal it (to the
    /// precision of the table).
    pub table_p_reach: f64,
    /// How much more often the target policy reaches the target: `p_reach` less the
    /// expected-score policy's.
    pub p_reach_gain: f64,
    /// What it costs in mean score: the expected-score policy's mean less the target
    /// policy's.
    pub mean_cost: f64,
    /// Seconds of the computation of the target policy's distribution (the tables' load or
    /// build excluded).
    pub seconds: f64,
    /// Worker threads used.
    pub threads: usize,
    /// The figures of the target policy's distribution.
    #[serde(flatten)]
    pub summary: Summary,
    /// The expected-score policy's, for comparison.
    pub expected_score: ExpectedScorePolicy,
}

/// The exact distribution of the final score under the target policy of `player`, beside
/// the expected-score policy's, with P(score >= t) for each of `thresholds` (the target is
/// always among them); the target policy's tally is returned too, for the whole
/// distribution. `start`: where the games start (`None`: a new game), both policies playing
/// from there. `progress(done, total)` counts cards, first of the target policy's pass,
/// then of the expected-score policy's.
pub fn stats_target(
    player: &TargetPlayer<'_>,
    start: Option<&Start>,
    thresholds: &[u32],
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(TargetStatsReport, Tally), TargetError> {
    let ev = player.ev();
    let rules = *ev.rules();
    let target = player.target();
    let mut thresholds = thresholds.to_vec();
    if !thresholds.contains(&target) {
        thresholds.push(target);
        thresholds.sort_unstable();
    }
    let clock = Instant::now();
    let go_on = |done, total| {
        progress(done, total);
        true
    };
    let policy = crate::stats::VectorPolicy::target(player);
    let never_stopped = "the computation is never stopped";
    let (tally, table_p_reach) = match start {
        None => (
            crate::stats::target_distribution(player, progress),
            f64::from(player.targets().value(&State::START, i64::from(target))?),
        ),
        Some(Start::Card(card)) => (
            crate::stats::distribution_from_card(&policy, card, &go_on)?.expect(never_stopped),
            f64::from(
                player
                    .targets()
                    .value(&card.state(), i64::from(target) - i64::from(card.banked()))?,
            ),
        ),
        Some(Start::Position(position)) => (
            crate::stats::distribution_from_position(&policy, position, &go_on)?
                .expect(never_stopped),
            crate::policy::target::advise_target(ev, player.targets(), position, target)?.p_reach,
        ),
    };
    let seconds = clock.elapsed().as_secs_f64();
    let optimal = match start {
        None => crate::stats::exact_distribution(ev, progress),
        Some(start) => crate::stats::exact_distribution_from(ev, start, progress)?,
    };
    let reach = |t: &Tally| t.mass_at_least(target) / t.total();
    let summary = Summary::of(&rules, &tally, &thresholds);
    let expected_score = ExpectedScorePolicy {
        policy: "optimal",
        p_reach: reach(&optimal),
        summary: Summary::of(&rules, &optimal, &thresholds),
    };
    let p_reach = reach(&tally);
    let report = TargetStatsReport {
        rules,
        method: "exact",
        policy: "target",
        target,
        tie_convention: TARGET_TIE_CONVENTION,
        from: start.map(FromReport::of),
        p_reach,
        table_p_reach,
        p_reach_gain: p_reach - expected_score.p_reach,
        mean_cost: expected_score.summary.mean - summary.mean,
        seconds,
        threads: rayon::current_num_threads(),
        summary,
        expected_score,
    };
    Ok((report, tally))
}

/// What a simulation reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimulateReport {
    /// The rules played.
    #[serde(flatten)]
    pub rules: Rules,
    /// Always `simulation`.
    pub method: &'static str,
    /// The policy played (`optimal`, `greedy`, `most-common` or `target`).
    pub policy: Policy,
    /// The target score of the target policy (absent for the others).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<u32>,
    /// How the optimal or the target policy breaks ties (absent for the baselines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tie_convention: Option<&'static str>,
    /// The share of the games reaching the target, with its 95% interval (the target policy
    /// only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached: Option<ShareInterval>,
    /// Games played.
    pub games: u64,
    /// Seed of the dice.
    pub seed: u64,
    /// 95% confidence interval of the mean.
    pub mean_interval: MeanInterval,
    /// How the interval of every share of the games is computed
    /// ([`crate::stats::distribution::INTERVAL_METHOD`]).
    pub interval_method: &'static str,
    /// Seconds of play (the table load or build excluded).
    pub seconds: f64,
    /// Games per second.
    pub games_per_second: f64,
    /// Worker threads used.
    pub threads: usize,
    /// The figures of the games (probabilities are shares of games).
    #[serde(flatten)]
    pub summary: Summary,
    /// The share of the games in which some roll showed each event of a roll (`BOX-rolled`,
    /// as `stats --events` reports them exactly), with its 95% interval; absent when the
    /// simulation does not count them (saved rolls).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<SimulatedEvent>,
}

/// The share of simulated games with an event of a roll.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimulatedEvent {
    /// Its name, as `stats --events` has it.
    pub name: String,
    /// The share of the games.
    pub probability: f64,
    /// Its 95% interval.
    pub interval: Interval,
}

/// Why a simulation cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SimulateError {
    /// No games, or more than [`MAX_GAMES`]. Fix: ask for a number of games in range.
    #[error("the number of games must be from 1 to {MAX_GAMES}, not {0}")]
    Games(u64),
}

/// Checks a number of games: from 1 to [`MAX_GAMES`].
pub fn check_games(games: u64) -> Result<(), SimulateError> {
    if games == 0 || games > MAX_GAMES {
        return Err(SimulateError::Games(games));
    }
    Ok(())
}

/// Plays `games` games of `rules` with `seed` under `player` and reports, with P(score >= t)
/// for each of `thresholds`; the tally is returned too. `progress(done)` counts games.
pub fn simulate(
    rules: &Rules,
    player: &Player<'_>,
    games: u64,
    seed: u64,
    thresholds: &[u32],
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(SimulateReport, Tally), SimulateError> {
    check_games(games)?;
    let start = Instant::now();
    let tally = crate::stats::simulate::simulate(rules, player, games, seed, progress);
    let report = SimulateReport::of(rules, player.policy(), seed, &tally, start, thresholds);
    Ok((report, tally))
}

/// Where a file of simulated games comes from, beside its provenance: the rules, the policy
/// (and its target), the seed and the number of games: with the dice generator's version,
/// what plays the same games again.
#[derive(Serialize)]
struct GamesSource {
    #[serde(flatten)]
    rules: Rules,
    policy: Policy,
    #[serde(skip_serializing_if = "Option::is_none")]
    target: Option<u32>,
    seed: u64,
    games: u64,
}

/// Games a frame of the typed column stream holds: a few hundred kilobytes of values.
const GAMES_PER_FRAME: usize = 1 << 13;

/// What a file of the games `per_box` says of them (Parquet's key-value metadata): a title
/// with the rules' label, the policy and the seed; the meaning and unit of each column, a
/// note each; the source (the rules, `policy`, `seed`, `games` and the provenance: the
/// version, the commit, the dice generator, the table read), stamped as the exports' are
/// ([`Meta::with_source`]).
pub fn per_box_meta(per_box: &PerBox, policy: Policy, seed: u64, provenance: Provenance) -> Meta {
    let rules = &per_box.rules;
    let games = per_box.games();
    let source = GamesSource {
        rules: *rules,
        policy,
        target: policy.target(),
        seed,
        games,
    };
    let title = format!(
        "{}: each game's boxes, bonuses and total, {games} games of policy {} (seed {seed})",
        rules.label(),
        policy.label()
    );
    let mut notes = vec![
        "A row per simulated game; every column but `game` is in points.".to_string(),
        "game: the game's number, from 0; with the seed, the policy and the dice generator it names the game's dice, the same at any thread count.".to_string(),
    ];
    let count = rules.box_count();
    for (i, b) in rules.boxes().iter().enumerate() {
        notes.push(format!(
            "{}: the points scored in {} (box {} of {count}), 0 to {}.",
            b.name(),
            b.title,
            i + 1,
            rules.max_score(i)
        ));
    }
    notes.push(match rules.upper_bonus() {
        Some(b) => format!(
            "upper_bonus: the upper bonus, {} when the upper boxes add up to {} or more, else 0.",
            b.points, b.threshold
        ),
        None => "upper_bonus: 0: these rules have no upper bonus.".to_string(),
    });
    notes.push(match rules.yahtzee_bonus_points() {
        0 => "yahtzee_bonuses: 0: these rules have no bonus for a further five of a kind."
            .to_string(),
        points => format!(
            "yahtzee_bonuses: the five-of-a-kind bonuses, {points} for each further five of a kind scored once the five-of-a-kind box holds its points."
        ),
    });
    notes.push("total: the final score, the sum of the row's boxes and bonuses.".to_string());
    let stamped = Stamped {
        result: &source,
        provenance,
    };
    Meta {
        // No column `filled` whose bits to name.
        filled_bits: Vec::new(),
        ..Meta::with_source(rules, &stamped, title, notes)
    }
}

/// Writes the games `per_box` in the typed column stream ([`crate::export::columns`]) that
/// the Parquet writer reads: the rows of [`PerBox::write_csv`] with their types (`game` a
/// u64, the points u16, or u32 under rules whose highest score does not fit in 16 bits),
/// after a header of `meta` ([`per_box_meta`]). Returns the rows written.
pub fn write_per_box_columns(
    per_box: &PerBox,
    meta: &Meta,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let mut columns = vec!["game".to_string()];
    columns.extend(per_box.columns.iter().cloned());
    let mut buf = Vec::new();
    Header::of(meta, columns, String::new()).write(&mut buf);
    out.write_all(&buf)?;
    // One type for every column of points, from the rules: no game scores more.
    let narrow = u16::try_from(highest_score(&per_box.rules)).is_ok();
    let point = |p: u32| {
        if narrow {
            Value::U16(p as u16)
        } else {
            Value::U32(p)
        }
    };
    let mut rows = per_box
        .points
        .chunks(per_box.columns.len())
        .enumerate()
        .peekable();
    while rows.peek().is_some() {
        buf.clear();
        let frame = rows.by_ref().take(GAMES_PER_FRAME).flat_map(|(g, row)| {
            std::iter::once(Value::U64(g as u64)).chain(row.iter().map(|&p| point(p)))
        });
        write_values(frame, &mut buf);
        out.write_all(&buf)?;
    }
    Ok(per_box.games())
}

impl SimulateReport {
    /// The report of the games of `tally`, played under `policy` with `seed` since `start`.
    pub fn of(
        rules: &Rules,
        policy: Policy,
        seed: u64,
        tally: &Tally,
        start: Instant,
        thresholds: &[u32],
    ) -> SimulateReport {
        let seconds = start.elapsed().as_secs_f64();
        let games = tally.total() as u64;
        SimulateReport {
            rules: *rules,
            method: "simulation",
            policy,
            target: policy.target(),
            tie_convention: tie_convention(policy),
            reached: policy.target().map(|t| ShareInterval::of(tally, t)),
            games,
            seed,
            mean_interval: MeanInterval::of(tally),
            interval_method: crate::stats::distribution::INTERVAL_METHOD,
            seconds,
            games_per_second: games as f64 / seconds,
            threads: rayon::current_num_threads(),
            summary: Summary::of_games(rules, tally, thresholds),
            events: simulated_events(rules, tally),
        }
    }
}

/// The shares of the games of `tally` with each event of a roll it counted.
fn simulated_events(rules: &Rules, tally: &Tally) -> Vec<SimulatedEvent> {
    let games = tally.total();
    if games <= 0.0 || tally.rolled.is_empty() {
        return Vec::new();
    }
    crate::stats::events::Spec::of(rules)
        .rolled_names()
        .into_iter()
        .take(8)
        .enumerate()
        .map(|(e, name)| {
            let count = tally.rolled.get(e).copied().unwrap_or(0.0);
            SimulatedEvent {
                name,
                probability: count / games,
                interval: Interval::wilson(count, games),
            }
        })
        .collect()
}

/// What a match between policies reports ([`crate::stats::matches`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchReport {
    /// The rules played.
    #[serde(flatten)]
    pub rules: Rules,
    /// Always `simulation`.
    pub method: &'static str,
    /// Games played.
    pub games: u64,
    /// Seed of the dice.
    pub seed: u64,
    /// How the games are played: the turn order, the rotation of the first seat, ties
    /// ([`crate::stats::matches::MATCH_ORDER`]).
    pub order: &'static str,
    /// What the policies that play to win assume of their opponents ([`crate::policy::win::MODEL`];
    /// absent when no seat plays to win).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<&'static str>,
    /// Each seat, in the order they play.
    pub seats: Vec<SeatReport>,
    /// Games whose highest total was shared.
    pub tied_games: u64,
    /// Seconds of play (the table loads or builds excluded).
    pub seconds: f64,
    /// Games per second.
    pub games_per_second: f64,
    /// Worker threads used.
    pub threads: usize,
}

/// One seat of a match.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeatReport {
    /// The seat, from 1.
    pub seat: usize,
    /// The policy played (`optimal`, `win`, `win-exact`, `target`, `greedy`, `most-common`).
    pub policy: Policy,
    /// The target score of a target policy (absent for the others).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<u32>,
    /// The share of the games won, a tie of `k` players for first counting `1/k`, with its
    /// 95% interval (Wilson's; on the wide side when games are tied).
    pub win_rate: ShareInterval,
    /// Games won alone.
    pub wins: u64,
    /// Games tied for first with others.
    pub ties: u64,
    /// Mean final score.
    pub mean: f64,
    /// 95% confidence interval of the mean final score.
    pub mean_interval: MeanInterval,
    /// Standard deviation of the final score.
    pub std_dev: f64,
    /// How the policy breaks ties (absent for the baselines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tie_convention: Option<&'static str>,
    /// Turns played.
    pub turns: u64,
    /// Choices made (keeps and boxes).
    pub decisions: u64,
    /// Milliseconds per turn spent choosing (the turn's preparation, its keeps and its box:
    /// for the win policies, the opponents' distributions and the solve too), measured on
    /// the thread that played it.
    pub ms_per_turn: f64,
    /// The same time per choice made.
    pub ms_per_decision: f64,
}

/// Plays `games` games of the match `m` with `seed` and reports; the tally is returned too
/// (with every game when `record` is set). `progress(done)` counts games.
pub fn play_match(
    m: &crate::stats::matches::Match<'_>,
    games: u64,
    seed: u64,
    record: bool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(MatchReport, crate::stats::matches::MatchTally), SimulateError> {
    check_games(games)?;
    let start = Instant::now();
    let (tally, clock) = crate::stats::matches::play(m, games, seed, record, progress);
    let seconds = start.elapsed().as_secs_f64();
    let n = games as f64;
    let seats = m
        .seats()
        .iter()
        .zip(&tally.seats)
        .zip(&clock)
        .enumerate()
        .map(|(i, ((seat, t), spent))| {
            let policy = seat.policy();
            let summary = Summary::of(m.rules(), &t.scores, &[]);
            let ms = spent.as_secs_f64() * 1e3;
            SeatReport {
                seat: i + 1,
                policy,
                target: policy.target(),
                win_rate: ShareInterval::wilson(t.win_share(), n),
                wins: t.wins[0],
                ties: t.ties(),
                mean: summary.mean,
                mean_interval: MeanInterval::of(&t.scores),
                std_dev: summary.std_dev,
                tie_convention: tie_convention(policy),
                turns: t.turns,
                decisions: t.decisions,
                ms_per_turn: ms / t.turns as f64,
                ms_per_decision: ms / t.decisions as f64,
            }
        })
        .collect();
    let report = MatchReport {
        rules: *m.rules(),
        method: "simulation",
        games,
        seed,
        order: crate::stats::matches::MATCH_ORDER,
        model: m
            .seats()
            .iter()
            .any(|s| s.plays_to_win())
            .then_some(crate::policy::win::MODEL),
        seats,
        tied_games: tally.tied_games,
        seconds,
        games_per_second: n / seconds,
        threads: rayon::current_num_threads(),
    };
    Ok((report, tally))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::{Order, RuleSet};

    #[test]
    fn reports_serialize_their_rules_as_two_fields_first() {
        let rules = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
        let (table, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        let (report, _) = stats(&table, &[100], &|_, _| {});
        let json = serde_json::to_string(&report).unwrap();
        assert!(
            json.starts_with(r#"{"rules":"yacht","upper_first":true,"method":"exact","#),
            "{json}"
        );
        let (sim, _) = simulate(&rules, &Player::Greedy, 10, 1, &[100], &|_| {}).unwrap();
        let json = serde_json::to_value(&sim).unwrap();
        assert_eq!(json["rules"], "yacht");
        assert_eq!(json["upper_first"], true);
        assert!(json.get("tie_convention").is_none());
        assert_eq!(
            simulate(&rules, &Player::Greedy, 0, 1, &[], &|_| {}).unwrap_err(),
            SimulateError::Games(0)
        );
    }
}

/// The result of `yahtzee stats --theta X`: the exact distribution of the final score under
/// the policy of an exponential utility ([`crate::solve::theta`]), and the certainty
/// equivalent of the start by the θ table and by the distribution itself (the two must agree:
/// `E[e^(θX)] = e^(θ·CE)`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThetaStatsReport {
    /// The rules of the table.
    #[serde(flatten)]
    pub rules: Rules,
    /// Always `exact`: probabilities propagated through every state, no sampling.
    pub method: &'static str,
    /// Always `theta`.
    pub policy: &'static str,
    /// The θ of the utility: above 0 the policy seeks risk, below it avoids it.
    pub theta: Theta,
    /// How ties between equally good options are broken: [`TIE_CONVENTION`].
    pub tie_convention: &'static str,
    /// Where the games start: absent for a new game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<FromReport>,
    /// The certainty equivalent of the final score from the start by the θ table (the
    /// points banked included).
    pub certainty_equivalent: f64,
    /// The same from the exact distribution: `(1/θ)·ln Σ P(x)·e^(θx)`.
    pub distribution_certainty_equivalent: f64,
    /// Seconds of the computation (the table load or build excluded).
    pub seconds: f64,
    /// Worker threads used.
    pub threads: usize,
    /// The figures of the distribution.
    #[serde(flatten)]
    pub summary: Summary,
}

/// The certainty equivalent `(1/θ)·ln Σ P(x)·e^(θx)` of a distribution (pairs of score and
/// probability), summed from its largest term down (the sign of θ says which) so that
/// nothing overflows.
pub fn certainty_equivalent(pmf: &[(u32, f64)], theta: Theta) -> f64 {
    let t = theta.value();
    let pivot = pmf
        .iter()
        .map(|&(x, _)| f64::from(x) * t)
        .fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = pmf
        .iter()
        .map(|&(x, p)| p * (f64::from(x) * t - pivot).exp())
        .sum();
    (pivot + sum.ln()) / t
}

/// The exact distribution of the final score under the θ policy of `table` (a θ table) from
/// `start` (`None`: a new game), with its report: the expected-score policy's pass
/// ([`stats_from`]) following the θ table's choices.
pub fn stats_theta(
    table: &StrategyTable,
    start: Option<&Start>,
    thresholds: &[u32],
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(ThetaStatsReport, Tally), AdviceError> {
    let theta = table.theta().expect("the θ distribution reads a θ table");
    let (report, tally) = stats_from(table, start, thresholds, progress)?;
    let report = ThetaStatsReport {
        rules: report.rules,
        method: report.method,
        policy: crate::tables::expected::THETA,
        theta,
        tie_convention: report.tie_convention,
        from: report.from,
        // What the pass calls the solver's mean is the table's value of the start: under a θ,
        // its certainty equivalent.
        certainty_equivalent: report.solver_mean,
        distribution_certainty_equivalent: certainty_equivalent(&tally.pmf(), theta),
        seconds: report.seconds,
        threads: report.threads,
        summary: report.summary,
    };
    Ok((report, tally))
}

/// The result of `yahtzee stats --frontier`: the exact figures of the final score under each
/// θ policy of a grid and each target policy, and the policy of the grid that maximises each
/// percentile (the mean–variance and mean–percentile frontiers over θ and over targets).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrontierReport {
    /// The rules of the tables.
    #[serde(flatten)]
    pub rules: Rules,
    /// Always `exact`: probabilities propagated through every state, no sampling.
    pub method: &'static str,
    /// Each policy's figures, the θ grid in its order (θ = 0 the expected score's policy),
    /// then the targets.
    pub policies: Vec<FrontierPoint>,
    /// For each percentile (5, 10, 25, 50, 75, 90, 95, 99), the θ of the grid whose policy
    /// scores it highest.
    pub best_theta: Vec<BestTheta>,
    /// Seconds of the whole computation.
    pub seconds: f64,
}

/// The percentiles a frontier reports, in percent.
pub const FRONTIER_PERCENTILES: [u32; 8] = [5, 10, 25, 50, 75, 90, 95, 99];

/// One policy of a frontier.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrontierPoint {
    /// The policy as `--policy` names it: `optimal`, `theta:X`, `target:T`.
    pub policy: String,
    /// Its θ (0 for the expected score's policy); absent for a target policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theta: Option<f64>,
    /// Its target; absent for the θ policies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<u32>,
    /// Mean final score.
    pub mean: f64,
    /// Standard deviation of the final score.
    pub std_dev: f64,
    /// The percentiles of [`FRONTIER_PERCENTILES`], in that order.
    pub percentiles: Vec<u32>,
    /// For a θ policy, the certainty equivalent of the final score by its table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certainty_equivalent: Option<f64>,
}

/// The θ that maximises one percentile over a frontier's grid.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BestTheta {
    /// The percentile, in percent.
    pub percentile: u32,
    /// Its highest value over the grid.
    pub score: u32,
    /// The θ of the grid reaching it with the highest mean (percentiles are whole numbers,
    /// flat over ranges of θ: `thetas` lists them all).
    pub theta: f64,
    /// Every θ of the grid reaching it, ascending.
    pub thetas: Vec<f64>,
}

impl FrontierPoint {
    /// The figures of the distribution `tally` of `policy` (`theta`, `target` as it is).
    fn of(
        rules: &Rules,
        tally: &Tally,
        policy: String,
        theta: Option<f64>,
        target: Option<u32>,
        certainty_equivalent: Option<f64>,
    ) -> FrontierPoint {
        let summary = Summary::of(rules, tally, &[]);
        let percentile = |p: u32| {
            if p == 50 {
                return summary.median;
            }
            (summary.percentiles.iter())
                .find(|q| q.percent == f64::from(p))
                .map_or(summary.median, |q| q.score)
        };
        FrontierPoint {
            policy,
            theta,
            target,
            mean: summary.mean,
            std_dev: summary.std_dev,
            percentiles: FRONTIER_PERCENTILES
                .iter()
                .map(|&p| percentile(p))
                .collect(),
            certainty_equivalent,
        }
    }
}

/// The frontier of `rules` ([`FrontierReport`]): for each θ of `thetas` (`None`: θ = 0, the
/// expected score's policy, whose table `ev` is) its table solved (in memory: a frontier
/// keeps no file per θ) and its exact distribution from a new game, then the target policy's
/// distribution for each of `targets` (`target_player(t)` binds it to its tables).
/// `progress(done, total, policy)` is told as each policy starts and at the end.
pub fn frontier<'t>(
    ev: &StrategyTable,
    thetas: &[Option<Theta>],
    targets: &[u32],
    target_player: &dyn Fn(u32) -> Result<TargetPlayer<'t>, TargetError>,
    progress: &(dyn Fn(u64, u64, &str) + Sync),
) -> Result<FrontierReport, String> {
    let clock = Instant::now();
    let rules = *ev.rules();
    let total = (thetas.len() + targets.len()) as u64;
    let quiet = |_, _| {};
    let mut policies = Vec::with_capacity(total as usize);
    for (i, &theta) in thetas.iter().enumerate() {
        let label = theta.map_or("optimal".to_string(), |t| format!("theta:{t}"));
        progress(i as u64, total, &label);
        let point = match theta {
            None => {
                let tally = crate::stats::exact_distribution(ev, &quiet);
                let ce = Some(ev.expected_score());
                FrontierPoint::of(&rules, &tally, label, Some(0.0), None, ce)
            }
            Some(theta) => {
                let (table, _) =
                    StrategyTable::solve_theta(&rules, theta, SolveOptions::default(), &quiet)?;
                let tally = crate::stats::exact_distribution(&table, &quiet);
                let ce = Some(table.expected_score());
                FrontierPoint::of(&rules, &tally, label, Some(theta.value()), None, ce)
            }
        };
        policies.push(point);
    }
    for (i, &target) in targets.iter().enumerate() {
        let label = format!("target:{target}");
        progress((thetas.len() + i) as u64, total, &label);
        let player = target_player(target).map_err(|e| e.to_string())?;
        let tally = crate::stats::target_distribution(&player, &quiet);
        policies.push(FrontierPoint::of(
            &rules,
            &tally,
            label,
            None,
            Some(target),
            None,
        ));
    }
    progress(total, total, "");
    let best_theta = FRONTIER_PERCENTILES
        .iter()
        .enumerate()
        .filter(|_| !thetas.is_empty())
        .map(|(k, &percentile)| {
            let on_grid = || policies.iter().filter(|p| p.theta.is_some());
            let score = on_grid().map(|p| p.percentiles[k]).max().unwrap_or(0);
            let reaching: Vec<&FrontierPoint> =
                on_grid().filter(|p| p.percentiles[k] == score).collect();
            let best = reaching
                .iter()
                .max_by(|a, b| a.mean.total_cmp(&b.mean))
                .expect("a θ reaches the highest");
            let mut thetas: Vec<f64> = reaching.iter().filter_map(|p| p.theta).collect();
            thetas.sort_by(f64::total_cmp);
            BestTheta {
                percentile,
                score,
                theta: best.theta.unwrap_or(0.0),
                thetas,
            }
        })
        .collect();
    Ok(FrontierReport {
        rules,
        method: "exact",
        policies,
        best_theta,
        seconds: clock.elapsed().as_secs_f64(),
    })
}
