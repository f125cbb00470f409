//! `yahtzee._native`: the compiled half of the Python package `yahtzee`, a thin layer over the
//! `yahtzee` library. Every function here calls the library and turns its answer into Python
//! values; the Python half (`yahtzee/__init__.py`) gives them dataclasses, docstrings and
//! type hints.
//!
//! - Advice goes through the batch protocol ([`yahtzee_core::batch`]): a query is the JSON line
//!   `advise --batch` reads, the answer the JSON it prints, so the package's advice is the
//!   command line's by construction.
//! - Errors of the input are `ValueError` with the library's message (the message of the
//!   command line, without its `error:` and flag hints); a table file that cannot be read or
//!   written is an `OSError`.
//! - Solves, statistics, simulations and batches run with the GIL released (on the library's
//!   rayon threads), so other Python threads go on meanwhile.

use std::path::PathBuf;
use std::sync::OnceLock;

use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use yahtzee_core::batch::{self, BatchError};
use yahtzee_core::game::dice::Dice;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::{ScoreCard, reachable_states};
use yahtzee_core::report;
use yahtzee_core::tables::vector::VectorTable;
use yahtzee_core::stats::distribution::Summary;
use yahtzee_core::stats::simulate::{MeanInterval, Player, Policy, ShareInterval, TargetPlayer};
use yahtzee_core::tables::cache::{self, Progress};
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::TableError;

/// The rules named `rules`, with the upper-section-first modifier if asked.
fn rules_of(rules: &str, upper_first: bool) -> PyResult<Rules> {
    let set = RuleSet::from_name(rules).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown rules `{}`: the rule sets are {}",
            yahtzee_core::text::excerpt(rules),
            RuleSet::names().join(", ")
        ))
    })?;
    Ok(Rules::with_order(set, Order::upper_first(upper_first)))
}

/// A table error: `OSError` when the file cannot be read or written, else `ValueError`.
fn table_error(e: TableError) -> PyErr {
    match e {
        TableError::Read { .. } | TableError::Write { .. } => PyOSError::new_err(e.to_string()),
        other => PyValueError::new_err(other.to_string()),
    }
}

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// What loading or building a table says on stderr, as the command line does.
fn report_progress(what: &str, rules: &Rules, p: Progress<'_>) {
    if let Progress::Building { path } = p {
        eprintln!(
            "no {what} for {} at {}: building it once",
            rules.label(),
            path.display()
        );
    }
}

/// The strategy table of some rules, with its target table read (or built) when a query first
/// names a target, and its distribution table when a query first names opponents.
#[pyclass(frozen, module = "yahtzee._native")]
struct Table {
    ev: StrategyTable,
    path: PathBuf,
    target_path: Option<PathBuf>,
    target: OnceLock<Result<VectorTable<f32>, String>>,
    distribution_path: Option<PathBuf>,
    distribution: OnceLock<Result<VectorTable<f32>, String>>,
}

/// A vector table loaded (or built) by `load`, or its error as text; a table built but not
/// saved serves with a warning, as on the command line.
fn load_vector(
    what: &str,
    load: impl FnOnce() -> Result<cache::Loaded<VectorTable<f32>>, TableError>,
) -> Result<VectorTable<f32>, String> {
    let loaded = load().map_err(|e| e.to_string())?;
    if let Some(e) = loaded.saved() {
        eprintln!(
            "warning: the {what} was built but not saved, so it is built again next time ({e})"
        );
    }
    Ok(loaded.table)
}

impl batch::Tables for Table {
    fn ev(&self) -> &StrategyTable {
        &self.ev
    }

    fn target(&self) -> Result<&VectorTable<f32>, BatchError> {
        let rules = *self.ev.rules();
        self.target
            .get_or_init(|| {
                load_vector("target table", || {
                    cache::load_or_build_target(&rules, self.target_path.as_deref(), &|p| {
                        report_progress("target table", &rules, p)
                    })
                })
            })
            .as_ref()
            .map_err(|e| BatchError::NoTargetTable(e.clone()))
    }

    fn distribution(&self) -> Result<&VectorTable<f32>, BatchError> {
        let rules = *self.ev.rules();
        self.distribution
            .get_or_init(|| {
                load_vector("distribution table", || {
                    cache::load_or_build_distribution(
                        &self.ev,
                        self.distribution_path.as_deref(),
                        &|p| report_progress("distribution table", &rules, p),
                    )
                })
            })
            .as_ref()
            .map_err(|e| BatchError::NoDistributionTable(e.clone()))
    }
}

#[pymethods]
impl Table {
    /// The rule set's name.
    #[getter]
    fn rules(&self) -> &'static str {
        self.ev.rules().set.name()
    }

    /// True under the upper-section-first modifier.
    #[getter]
    fn upper_first(&self) -> bool {
        self.ev.rules().order == Order::UpperFirst
    }

    /// The expected final score of a new game under optimal play.
    #[getter]
    fn expected_score(&self) -> f64 {
        self.ev.expected_score()
    }

    /// The number of reachable turn-start states.
    #[getter]
    fn states(&self) -> u64 {
        self.ev.states()
    }

    /// The table's file (read, written, or where it could not be written).
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// Every reachable state in layout order: the columns of `export --all-states`, the value
    /// unrounded.
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let rules = *self.ev.rules();
        let states: Vec<_> = reachable_states(&rules).collect();
        let filled: Vec<u16> = states.iter().map(|s| s.filled).collect();
        let upper: Vec<u8> = states.iter().map(|s| s.upper).collect();
        let flag: Vec<bool> = states.iter().map(|s| s.yahtzee_50).collect();
        let turns: Vec<u32> = states.iter().map(|s| s.turns_played()).collect();
        let value: Vec<f64> = states.iter().map(|s| self.ev.value(s)).collect();
        let out = PyDict::new(py);
        out.set_item("filled", filled.into_pyarray(py))?;
        out.set_item("upper", upper.into_pyarray(py))?;
        out.set_item("yahtzee_50", flag.into_pyarray(py))?;
        out.set_item("turns_played", turns.into_pyarray(py))?;
        out.set_item("expected_remaining", value.into_pyarray(py))?;
        Ok(out)
    }
}

/// Loads the table of `rules` from its file (`path`, default the cache folder), or solves and
/// saves it there first.
#[pyfunction]
#[pyo3(signature = (rules, upper_first, path=None, target_path=None, distribution_path=None))]
fn solve(
    py: Python<'_>,
    rules: &str,
    upper_first: bool,
    path: Option<PathBuf>,
    target_path: Option<PathBuf>,
    distribution_path: Option<PathBuf>,
) -> PyResult<Table> {
    let rules = rules_of(rules, upper_first)?;
    let loaded = py
        .detach(|| {
            cache::load_or_build(&rules, path.as_deref(), &|p| {
                report_progress("table", &rules, p)
            })
        })
        .map_err(table_error)?;
    if let Some(e) = loaded.saved() {
        eprintln!(
            "warning: the table was built but not saved, so it is built again next time ({e})"
        );
    }
    Ok(Table {
        ev: loaded.table,
        path: loaded.path,
        target_path,
        target: OnceLock::new(),
        distribution_path,
        distribution: OnceLock::new(),
    })
}

/// Answers one batch query: the advice as JSON, or `ValueError` with the batch's message.
#[pyfunction]
fn advise_line(py: Python<'_>, table: &Table, line: &str) -> PyResult<String> {
    let answer = py.detach(|| batch::answer(table, line.as_bytes()));
    let answer = answer.map_err(value_error)?;
    serde_json::to_string(&answer).map_err(value_error)
}

/// Answers many batch queries, in parallel: each answer line of `advise --batch` (the advice,
/// or `{"error": "..."}`), in order.
#[pyfunction]
fn advise_lines(py: Python<'_>, table: &Table, lines: Vec<String>) -> Vec<String> {
    use rayon::prelude::*;
    py.detach(|| {
        lines
            .par_iter()
            .map(|line| batch::answer_line(table, line.as_bytes()))
            .collect()
    })
}

/// The filled boxes of a card written as on the command line (`ones=3,full-house=25`), by
/// their names, checked against the rules (the Yahtzee bonuses are checked with the query).
#[pyfunction]
fn card_entries(rules: &str, upper_first: bool, text: &str) -> PyResult<Vec<(&'static str, u32)>> {
    let rules = rules_of(rules, upper_first)?;
    let card = ScoreCard::parse(rules, text, 0).map_err(value_error)?;
    Ok(rules
        .boxes()
        .iter()
        .enumerate()
        .filter_map(|(i, b)| card.points(i).map(|p| (b.name(), p)))
        .collect())
}

/// The faces of dice written as on the command line (`13356` or `1,3,3,5,6`), ascending.
#[pyfunction]
fn parse_dice(text: &str) -> PyResult<Vec<u8>> {
    let dice: Dice = text.parse().map_err(value_error)?;
    Ok(dice.faces())
}

/// The exact distribution of the final score under optimal play: P(score = s) for every s
/// from 0, and the report of `stats --json`.
#[pyfunction]
fn stats<'py>(
    py: Python<'py>,
    table: &Table,
    at_least: Vec<u32>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, String)> {
    let (report, tally) = py.detach(|| report::stats(&table.ev, &at_least, &|_, _| {}));
    let total = tally.total();
    let pmf: Vec<f64> = tally.score.iter().map(|m| m / total).collect();
    let json = serde_json::to_string(&report).map_err(value_error)?;
    Ok((pmf.into_pyarray(py), json))
}

/// Plays `games` games with `seed` under `policy` (`table` for the optimal one): every game's
/// final score in the order dealt, and the figures of the games as JSON.
#[pyfunction]
#[pyo3(signature = (rules, upper_first, games, seed, policy, at_least, table=None))]
#[allow(clippy::too_many_arguments)]
fn simulate<'py>(
    py: Python<'py>,
    rules: &str,
    upper_first: bool,
    games: i128,
    seed: i128,
    policy: &str,
    at_least: Vec<u32>,
    table: Option<&Table>,
) -> PyResult<(Bound<'py, PyArray1<u32>>, String)> {
    let rules = rules_of(rules, upper_first)?;
    let games = u64::try_from(games).map_err(|_| {
        value_error(format!(
            "the number of games must be from 1 to {}, not {games}",
            report::MAX_GAMES
        ))
    })?;
    let seed = u64::try_from(seed).map_err(|_| {
        value_error(format!(
            "the seed must be an integer from 0 to {}, not {seed}",
            u64::MAX
        ))
    })?;
    let policy: Policy = policy.parse().map_err(value_error)?;
    if matches!(policy, Policy::Win | Policy::WinExact) {
        return Err(PyValueError::new_err(format!(
            "the {} policy plays against other players, in a match of the command line (`yahtzee simulate --match`): the policies here are optimal (or ev), greedy, most-common and target:T",
            policy.name()
        )));
    }
    report::check_games(games).map_err(value_error)?;
    let table = match (policy, table) {
        (Policy::Optimal | Policy::Target(_), None) => {
            return Err(PyValueError::new_err(format!(
                "the {} policy plays with a table: give the table of the rules",
                policy.name()
            )));
        }
        (_, table) => table,
    };
    if let Some(t) = table
        && *t.ev.rules() != rules
    {
        return Err(PyValueError::new_err(format!(
            "the table is of {}, not of {}: give the table of the rules played",
            t.ev.rules().label(),
            rules.label()
        )));
    }
    let targets = match (policy, table) {
        (Policy::Target(_), Some(t)) => Some(batch::Tables::target(t).map_err(value_error)?),
        _ => None,
    };
    let target_player = match (policy, table, targets) {
        (Policy::Target(target), Some(t), Some(targets)) => {
            Some(TargetPlayer::new(&t.ev, targets, target).map_err(value_error)?)
        }
        _ => None,
    };
    let player = match (policy, table, &target_player) {
        (_, _, Some(p)) => Player::Target(p),
        (Policy::Optimal, Some(t), _) => Player::Optimal(&t.ev),
        (Policy::MostCommon, _, _) => Player::MostCommon,
        _ => Player::Greedy,
    };
    let (tally, scores) = py.detach(|| {
        yahtzee_core::stats::simulate::simulate_scores(&rules, &player, games, seed, &|_| {})
    });
    let mut figures = serde_json::json!({
        "rules": rules.set.name(),
        "upper_first": rules.order == Order::UpperFirst,
        "method": "simulation",
        "policy": policy.name(),
        "games": games,
        "seed": seed,
        "mean_interval": MeanInterval::of(&tally),
        "summary": Summary::of(&rules, &tally, &at_least),
    });
    if let Some(t) = policy.target() {
        figures["target"] = t.into();
        figures["reached"] =
            serde_json::to_value(ShareInterval::of(&tally, t)).map_err(value_error)?;
    }
    Ok((scores.into_pyarray(py), figures.to_string()))
}

/// The rule sets, by name.
#[pyfunction]
fn rule_sets() -> Vec<&'static str> {
    RuleSet::names()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Table>()?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(advise_line, m)?)?;
    m.add_function(wrap_pyfunction!(advise_lines, m)?)?;
    m.add_function(wrap_pyfunction!(card_entries, m)?)?;
    m.add_function(wrap_pyfunction!(parse_dice, m)?)?;
    m.add_function(wrap_pyfunction!(stats, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(rule_sets, m)?)?;
    m.add("BATCH_EXAMPLE", batch::EXAMPLE)?;
    Ok(())
}
