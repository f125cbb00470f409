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
use std::sync::Arc;

use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use yahtzee_core::batch;
use yahtzee_core::game::dice::Dice;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::{ScoreCard, reachable_states};
use yahtzee_core::policy::Policy;
use yahtzee_core::policy::player::Player;
use yahtzee_core::report;
use yahtzee_core::stats::distribution::Summary;
use yahtzee_core::stats::simulate::{MeanInterval, ShareInterval};
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::set::{
    Event, LoadCause, LoadError, Observer, TableKind, TablePaths, TableSet,
};

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

/// A table that cannot be had: `OSError` when its file cannot be read or written, else
/// `ValueError`.
fn load_error(e: LoadError) -> PyErr {
    match e.cause {
        LoadCause::Io => PyOSError::new_err(e.message),
        _ => PyValueError::new_err(e.message),
    }
}

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// What loading or building a table says on stderr, as the command line does.
struct Stderr;

impl Observer for Stderr {
    fn report(&self, rules: &Rules, kind: TableKind, event: Event<'_>) {
        let what = match kind {
            TableKind::ExpectedScore => "table".to_string(),
            other => format!("{} table", other.name()),
        };
        match event {
            Event::Building { path } => eprintln!(
                "no {what} for {} at {}: building it once",
                rules.label(),
                path.display()
            ),
            Event::NotSaved { error, .. } => eprintln!(
                "warning: the {what} was built but not saved, so it is built again next time ({error})"
            ),
            _ => {}
        }
    }
}

/// The tables of some rules: the strategy table, with its target table read (or built) when
/// a query first names a target, and its distribution table when a query first names
/// opponents.
#[pyclass(frozen, module = "yahtzee._native")]
struct Table {
    set: TableSet,
}

impl Table {
    /// The expected-score table (loaded when the `Table` was made).
    fn ev(&self) -> &StrategyTable {
        self.set
            .ev()
            .expect("the expected-score table is loaded when a Table is made")
    }
}

#[pymethods]
impl Table {
    /// The rule set's name.
    #[getter]
    fn rules(&self) -> &'static str {
        self.ev().rules().set.name()
    }

    /// True under the upper-section-first modifier.
    #[getter]
    fn upper_first(&self) -> bool {
        self.ev().rules().order == Order::UpperFirst
    }

    /// The expected final score of a new game under optimal play.
    #[getter]
    fn expected_score(&self) -> f64 {
        self.ev().expected_score()
    }

    /// The number of reachable turn-start states.
    #[getter]
    fn states(&self) -> u64 {
        self.ev().states()
    }

    /// The table's file (read, written, or where it could not be written).
    #[getter]
    fn path(&self) -> PathBuf {
        self.set.path(TableKind::ExpectedScore)
    }

    /// Every reachable state in layout order: the columns of `export --all-states`, the value
    /// unrounded.
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let rules = *self.ev().rules();
        let states: Vec<_> = reachable_states(&rules).collect();
        let filled: Vec<u16> = states.iter().map(|s| s.filled).collect();
        let upper: Vec<u8> = states.iter().map(|s| s.upper).collect();
        let flag: Vec<bool> = states.iter().map(|s| s.yahtzee_50).collect();
        let turns: Vec<u32> = states.iter().map(|s| s.turns_played()).collect();
        let value: Vec<f64> = states.iter().map(|s| self.ev().value(s)).collect();
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
    let paths = TablePaths {
        expected_score: path,
        target: target_path,
        distribution: distribution_path,
        two_player: None,
    };
    let set = TableSet::new(rules, paths, Arc::new(Stderr)).without(TableKind::TwoPlayer);
    py.detach(|| set.ev().map(|_| ())).map_err(load_error)?;
    Ok(Table { set })
}

/// Answers one batch query: the advice as JSON, or `ValueError` with the batch's message.
#[pyfunction]
fn advise_line(py: Python<'_>, table: &Table, line: &str) -> PyResult<String> {
    let answer = py.detach(|| batch::answer(&table.set, line.as_bytes()));
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
            .map(|line| batch::answer_line(&table.set, line.as_bytes()))
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
    let (report, tally) = py.detach(|| report::stats(table.ev(), &at_least, &|_, _| {}));
    let total = tally.total();
    let pmf: Vec<f64> = tally.score.iter().map(|m| m / total).collect();
    let json = serde_json::to_string(&report).map_err(value_error)?;
    Ok((pmf.into_pyarray(py), json))
}

/// Plays `games` games with `seed` under `policy` (`table` for the policies that play with
/// tables) on `rules` (the rule set's name and the upper-section-first modifier): every game's
/// final score in the order dealt, and the figures of the games as JSON.
#[pyfunction]
#[pyo3(signature = (rules, games, seed, policy, at_least, table=None))]
fn simulate<'py>(
    py: Python<'py>,
    rules: (String, bool),
    games: i128,
    seed: i128,
    policy: &str,
    at_least: Vec<u32>,
    table: Option<&Table>,
) -> PyResult<(Bound<'py, PyArray1<u32>>, String)> {
    let rules = rules_of(&rules.0, rules.1)?;
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
    if matches!(policy, Policy::Win | Policy::WinExact | Policy::TwoPlayer) {
        return Err(PyValueError::new_err(format!(
            "the {} policy plays against other players, in a match of the command line (`yahtzee simulate --match`): the policies here are optimal (or ev), greedy, most-common and target:T",
            policy.name()
        )));
    }
    report::check_games(games).map_err(value_error)?;
    if let Some(t) = table
        && *t.ev().rules() != rules
    {
        return Err(PyValueError::new_err(format!(
            "the table is of {}, not of {}: give the table of the rules played",
            t.ev().rules().label(),
            rules.label()
        )));
    }
    let player = match (policy, table) {
        (Policy::Greedy, _) => Player::Greedy,
        (Policy::MostCommon, _) => Player::MostCommon,
        (_, Some(t)) => py
            .detach(|| Player::new(policy, &t.set))
            .map_err(value_error)?,
        (_, None) => {
            return Err(PyValueError::new_err(format!(
                "the {} policy plays with a table: give the table of the rules",
                policy.name()
            )));
        }
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
