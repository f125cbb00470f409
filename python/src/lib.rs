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
//! - A game of saved rolls (`saved_rolls = true` in a rules file) is a [`Table`] too, of its
//!   table of saved rolls: its advice goes through the same batch protocol (the query's
//!   `saved`), its games through [`simulate_saved_scores`]; what is not solved under saved
//!   rolls (the target, win and two-player objectives, the exact distribution, the baseline
//!   policies) is a `ValueError` saying why, in the library's words where it has them.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use yahtzee_core::batch;
use yahtzee_core::cancel::Cancel;
use yahtzee_core::game::choice::Choice;
use yahtzee_core::game::dice::{Dice, DiceSpace, Keep};
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::{ScoreCard, State, reachable_states};
use yahtzee_core::play::own::{OwnChoiceError, play_own_game};
use yahtzee_core::play::rating::parse_records;
use yahtzee_core::play::score_box;
use yahtzee_core::policy::Policy;
use yahtzee_core::policy::expected::{Position, check_rolls_left};
use yahtzee_core::policy::player::Player;
use yahtzee_core::report::{self, SimulateReport};
use yahtzee_core::solve::theta::Theta;
use yahtzee_core::stats::distribution::Tally;
use yahtzee_core::stats::simulate::{simulate_saved_scores, simulate_scores};
use yahtzee_core::stats::{Forward, Start};
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::saved::saved_value_count;
use yahtzee_core::tables::set::{
    Event, LoadCause, LoadError, Observer, TableKind, TablePaths, TableSet, saved_rolls_only,
};

/// The rules `rules` names: a rule set's name, or the path of a rules file (with a `/` or
/// ending in `.toml`, read as `--rules PATH` reads it), with the upper-section-first modifier
/// if asked.
fn rules_of(rules: &str, upper_first: bool) -> PyResult<Rules> {
    use yahtzee_core::game::rules::file::{MAX_FILE_BYTES, load};
    let loaded = match RuleSet::from_name(rules) {
        Some(set) => Rules::with_order(set, Order::upper_first(upper_first)),
        None if rules.contains('/') || rules.ends_with(".toml") => {
            let path = std::path::Path::new(rules);
            let bytes = yahtzee_core::files::read_regular(path, MAX_FILE_BYTES).map_err(|e| {
                PyOSError::new_err(format!("cannot read the rules file {rules}: {e}"))
            })?;
            let text = String::from_utf8(bytes)
                .map_err(|_| value_error(format!("the rules file {rules} is not UTF-8 text")))?;
            load(&text, Some(path)).map_err(|e| value_error(format!("rules file, {e}")))?
        }
        None => {
            return Err(value_error(format!(
                "unknown rules `{}`: the rule sets are {}, or give the path of a rules file (with a `/` or ending in .toml)",
                yahtzee_core::text::excerpt(rules),
                RuleSet::names().join(", ")
            )));
        }
    };
    Ok(match upper_first {
        true => Rules::with_order(loaded.set, Order::UpperFirst),
        false => loaded,
    })
}

/// Rules as Python gives them: a table (its rules) or what [`rules_of`] reads.
#[derive(FromPyObject)]
enum RulesArg<'py> {
    Table(Bound<'py, Table>),
    Named(String),
}

impl RulesArg<'_> {
    fn rules(&self, upper_first: bool) -> PyResult<Rules> {
        match self {
            RulesArg::Table(t) => Ok(t.get().game()),
            RulesArg::Named(name) => rules_of(name, upper_first),
        }
    }
}

/// A card of `rules` from its `(box, points)` entries and Yahtzee bonuses, checked as the
/// batch protocol checks one (the same messages).
fn card_of(rules: Rules, entries: &[(String, i64)], yahtzee_bonus: i64) -> PyResult<ScoreCard> {
    let bonus = u32::try_from(yahtzee_bonus).map_err(|_| {
        value_error(format!(
            "yahtzee_bonus must be a whole number of bonuses from 0, not {yahtzee_bonus}"
        ))
    })?;
    let entries: Vec<(String, String)> = entries
        .iter()
        .map(|(name, points)| (name.clone(), points.to_string()))
        .collect();
    ScoreCard::from_entries(rules, &entries, bonus).map_err(value_error)
}

/// The roll of `faces`: five or six faces, as many as the game of `rules` has dice when it is
/// given.
fn dice_of(rules: Option<Rules>, faces: &[i64]) -> PyResult<Dice> {
    let faces: Vec<u8> = faces
        .iter()
        .map(|&f| u8::try_from(f).unwrap_or(0))
        .collect();
    match rules {
        Some(rules) => rules.dice().dice_of(&faces),
        None => Dice::from_faces(&faces),
    }
    .map_err(value_error)
}

/// A threshold list of P(score >= t): whole numbers a score can be compared with.
fn thresholds(at_least: &[i64]) -> PyResult<Vec<u32>> {
    at_least
        .iter()
        .map(|&t| {
            u32::try_from(t).map_err(|_| {
                value_error(format!(
                    "at_least: the thresholds are whole numbers from 0 to {}, not {t}",
                    u32::MAX
                ))
            })
        })
        .collect()
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
                "no {what} for {} at {}: building it once ({})",
                rules.label(),
                path.display(),
                kind.build_cost(rules)
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
/// opponents; in a game of saved rolls, the table of saved rolls alone (built when the
/// `Table` is made, then read in part for each question, or whole for games and `values`).
#[pyclass(frozen, module = "yahtzee._native")]
struct Table {
    set: TableSet,
    /// The forward pass of the optimal policy from a new game and its seconds, made on first
    /// use and kept: `stats` of a new game and `visit_probabilities` both read it, so the
    /// second asks nothing of the processor.
    forward: OnceLock<(Forward, f64)>,
    /// In a game of saved rolls, the expected score of a new game, read from the table of
    /// saved rolls when the `Table` was made; `None` in other games.
    saved_start: Option<f64>,
}

impl Table {
    /// The rules of the table.
    fn game(&self) -> Rules {
        *self.set.rules()
    }

    /// The expected-score table (loaded when the `Table` was made), or in a game of saved
    /// rolls, which has none, the refusal of `what` (plural: "... need the rules without
    /// saved rolls").
    fn ev(&self, what: &str) -> PyResult<&StrategyTable> {
        let rules = self.game();
        if rules.saved_rolls() {
            return Err(value_error(saved_rolls_only(&rules, what)));
        }
        Ok(self
            .set
            .ev()
            .expect("the expected-score table is loaded when a Table is made"))
    }

    /// The expected-score table for the exact distribution of the final score, which is not
    /// computed under saved rolls: the refusal says what estimates it instead.
    fn exact(&self) -> PyResult<&StrategyTable> {
        let rules = self.game();
        if rules.saved_rolls() {
            return Err(value_error(format!(
                "the exact distribution of {} under saved rolls is not computed: its pass would carry the rolls saved beside each state and its points, which the distribution's pass does not; yahtzee.simulate(table) estimates it from the optimal policy's games",
                rules.label()
            )));
        }
        self.ev("the exact distribution")
    }

    /// The forward pass of a new game ([`Table::forward`]) under the optimal policy of `ev`
    /// (this table's), made the first time it is asked for.
    fn forward(&self, ev: &StrategyTable) -> &(Forward, f64) {
        self.forward.get_or_init(|| {
            let clock = std::time::Instant::now();
            let forward = yahtzee_core::stats::exact_forward(ev, &|_, _| {});
            (forward, clock.elapsed().as_secs_f64())
        })
    }
}

#[pymethods]
impl Table {
    /// The rule set's name.
    #[getter]
    fn rules(&self) -> &'static str {
        self.game().set.name()
    }

    /// True under the upper-section-first modifier.
    #[getter]
    fn upper_first(&self) -> bool {
        self.game().order == Order::UpperFirst
    }

    /// True in a game that keeps unused rolls for later turns (`saved_rolls = true`).
    #[getter]
    fn saved_rolls(&self) -> bool {
        self.game().saved_rolls()
    }

    /// The expected final score of a new game under optimal play.
    #[getter]
    fn expected_score(&self) -> PyResult<f64> {
        match self.saved_start {
            Some(start) => Ok(start),
            None => Ok(self.ev("the expected-score table")?.expected_score()),
        }
    }

    /// The number of reachable turn-start states; in a game of saved rolls, of reachable
    /// states and numbers of rolls saved (the `states` of `yahtzee solve --json`).
    #[getter]
    fn states(&self) -> PyResult<u64> {
        let rules = self.game();
        if rules.saved_rolls() {
            return Ok(saved_value_count(&rules));
        }
        Ok(self.ev("the expected-score table")?.states())
    }

    /// The table's file (read, written, or where it could not be written).
    #[getter]
    fn path(&self) -> PathBuf {
        self.set.path(TableKind::ExpectedScore)
    }

    /// The target table's file (read, or built on first use); none in a game of saved rolls.
    #[getter]
    fn target_path(&self) -> PyResult<PathBuf> {
        let rules = self.game();
        if rules.saved_rolls() {
            // The core's refusal of the target table (`TableSet::target`).
            return Err(value_error(saved_rolls_only(
                &rules,
                "the target, win and two-player objectives",
            )));
        }
        Ok(self.set.path(TableKind::Target))
    }

    /// Every reachable state in layout order: the columns of `export --all-states`, the value
    /// unrounded; in a game of saved rolls, a row per state and number of rolls saved it can
    /// have (ascending), with the column `saved` (the whole table of saved rolls is read).
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let rules = self.game();
        // The expected remaining score of a state with `k` rolls saved.
        type ValueOf<'t> = Box<dyn Fn(&State, usize) -> f64 + 't>;
        let value_of: ValueOf<'_> = if rules.saved_rolls() {
            let table = py.detach(|| self.set.saved()).map_err(load_error)?;
            Box::new(move |s, k| {
                table
                    .value(s, k)
                    .expect("the whole table holds every reachable state")
            })
        } else {
            let ev = self.ev("the expected-score table")?;
            Box::new(move |s, _| ev.value(s))
        };
        let (mut filled, mut upper, mut flag, mut turns) = (vec![], vec![], vec![], vec![]);
        let (mut saved, mut value): (Vec<u8>, Vec<f64>) = (vec![], vec![]);
        for s in reachable_states(&rules) {
            // A row per number of rolls saved the state can have: one without saved rolls.
            let most = rules.most_saved_rolls(s.turns_played() as usize);
            for k in 0..=most {
                filled.push(s.filled);
                upper.push(s.upper);
                flag.push(s.yahtzee_50);
                turns.push(s.turns_played());
                saved.push(k as u8);
                value.push(value_of(&s, k));
            }
        }
        let out = PyDict::new(py);
        out.set_item("filled", filled.into_pyarray(py))?;
        out.set_item("upper", upper.into_pyarray(py))?;
        out.set_item("yahtzee_50", flag.into_pyarray(py))?;
        out.set_item("turns_played", turns.into_pyarray(py))?;
        if rules.saved_rolls() {
            out.set_item("saved", saved.into_pyarray(py))?;
        }
        out.set_item("expected_remaining", value.into_pyarray(py))?;
        Ok(out)
    }
}

/// Loads the table of `rules` from its file (`path`, default the cache folder), or solves and
/// saves it there first: in a game of saved rolls, the table of saved rolls, of which the
/// new game's rows are read (its expected score).
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
    let saved_start = if rules.saved_rolls() {
        let start = py.detach(|| set.saved_for(&[0])).map_err(load_error)?;
        Some(
            start
                .expected_score()
                .expect("the rows of the empty card were read"),
        )
    } else {
        py.detach(|| set.ev().map(|_| ())).map_err(load_error)?;
        None
    };
    Ok(Table {
        set,
        forward: OnceLock::new(),
        saved_start,
    })
}

/// Answers one batch query: the advice as JSON, or `ValueError` with the batch's message.
#[pyfunction]
fn advise_line(py: Python<'_>, table: &Table, line: &str) -> PyResult<String> {
    let answer = py.detach(|| batch::answer(&table.set, line.as_bytes(), &Cancel::new()));
    let answer = answer.map_err(value_error)?;
    // With the version and table checksum, as `advise --json` and each batch line state them.
    serde_json::to_string(&yahtzee_core::report::stamped_by(&answer, &table.set))
        .map_err(value_error)
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

/// The expected remaining score of `card` (its `(box, points)` entries) at the start of a
/// turn under optimal play: the points still to come, the upper bonus not yet earned
/// included. In a game of saved rolls, with `saved` rolls saved before the turn, checked as
/// advice checks them ([`yahtzee_core::policy::saved::rerolls_left`]), from the rows of the
/// card read from the table of saved rolls; in other games `saved` is 0.
#[pyfunction]
fn value(py: Python<'_>, table: &Table, card: Vec<(String, i64)>, saved: i64) -> PyResult<f64> {
    let rules = table.game();
    let card = card_of(rules, &card, 0)?;
    if !rules.saved_rolls() {
        if saved != 0 {
            return Err(value_error(format!(
                "saved is the rolls saved in a game that keeps unused rolls for later turns, and {} does not (saved_rolls = true in a rules file): leave out saved",
                rules.label()
            )));
        }
        return Ok(table.ev("the expected-score table")?.value(&card.state()));
    }
    let saved = u8::try_from(saved).map_err(|_| {
        value_error(format!(
            "saved must be the whole number of rolls saved before this turn, from 0, not {saved}"
        ))
    })?;
    yahtzee_core::policy::saved::rerolls_left(&rules, &card, saved, None).map_err(value_error)?;
    let part = py
        .detach(|| table.set.saved_for(&[card.filled()]))
        .map_err(load_error)?;
    Ok(part
        .value(&card.state(), usize::from(saved))
        .expect("the rows of the card were read"))
}

/// The filled boxes of a card written as on the command line (`ones=3,full-house=25`), by
/// their names, checked against the rules (the Yahtzee bonuses are checked with the query).
#[pyfunction]
fn card_entries(
    rules: RulesArg<'_>,
    upper_first: bool,
    text: &str,
) -> PyResult<Vec<(&'static str, u32)>> {
    let rules = rules.rules(upper_first)?;
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
    // Five faces, or six (a game of six dice); the error is the one of five, as `advise
    // --dice` words it for a game of five.
    let dice: Dice = DiceSpace::FIVE
        .parse(text)
        .or_else(|e| DiceSpace::SIX.parse(text).map_err(|_| e))
        .map_err(value_error)?;
    Ok(dice.faces())
}

/// The rating of the players of `records` (texts, each holding one game record or several
/// one after the other), as `review --rating --json` writes it.
#[pyfunction]
fn rate(py: Python<'_>, table: &Table, records: Vec<String>) -> PyResult<String> {
    let mut all = Vec::new();
    for text in &records {
        all.extend(parse_records(text.as_bytes()).map_err(value_error)?);
    }
    let ev = table.ev("ratings of game records")?;
    let rating = py
        .detach(|| yahtzee_core::play::rating::rate(ev, &all, &|_| {}))
        .map_err(value_error)?;
    // The version and the table's checksum, as `review --rating --json`.
    serde_json::to_string(&report::stamped(&rating, Some(ev))).map_err(value_error)
}

/// The exact distribution of the final score: P(score = s) for every s from 0, and the
/// report of `stats --json`: under optimal play, or with `target` under the target policy
/// (`stats --target`, the expected-score policy beside it); from a new game, or from `card`
/// (its `(box, points)` entries, `yahtzee_bonus` bonuses) and, with `dice`, from the position
/// with `rolls_left` (default: the first roll's). A new game's pass under optimal play is made
/// once per table and kept (`visit_probabilities` reads the same). With `events`, the exact
/// events and joint figures of `stats --events` too, from their own pass (expected-score
/// play only); with `joint` (one box name or two), the joint distributions of `stats
/// --joint`, from their own passes.
#[pyfunction]
#[pyo3(signature = (table, at_least, card=None, yahtzee_bonus=0, dice=None, rolls_left=None, target=None, events=false, theta=None, joint=None))]
#[allow(clippy::too_many_arguments)]
fn stats<'py>(
    py: Python<'py>,
    table: &Table,
    at_least: Vec<i64>,
    card: Option<Vec<(String, i64)>>,
    yahtzee_bonus: i64,
    dice: Option<Vec<i64>>,
    rolls_left: Option<i64>,
    target: Option<i64>,
    events: bool,
    theta: Option<f64>,
    joint: Option<Vec<String>>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, String)> {
    let at_least = thresholds(&at_least)?;
    let joint = joint.unwrap_or_default();
    if !joint.is_empty() && (theta.is_some() || target.is_some() || table.game().saved_rolls()) {
        return Err(value_error(
            "joint is computed for expected-score play without saved rolls: leave out target and theta (or joint)",
        ));
    }
    let joint_boxes = joint_boxes(&table.game(), &joint)?;
    if theta.is_some() && (events || target.is_some()) {
        return Err(value_error(
            "theta is a policy of its own: leave out target and events (or theta)",
        ));
    }
    if events && (target.is_some() || table.game().saved_rolls()) {
        return Err(value_error(
            "events are computed for expected-score play without saved rolls: leave out target (or events)",
        ));
    }
    if table.game().saved_rolls() {
        let rules = table.game();
        yahtzee_core::stats::saved::check_saved_stats(
            &rules,
            card.is_some() || dice.is_some(),
            target.is_some(),
        )
        .map_err(value_error)?;
        let saved = py.detach(|| table.set.saved()).map_err(load_error)?;
        let (report, tally) = py.detach(|| report::stats_saved(&saved, &at_least, &|_, _| {}));
        let total = tally.total();
        let pmf: Vec<f64> = tally.score.iter().map(|m| m / total).collect();
        let json =
            serde_json::to_string(&report::stamped_by(&report, &table.set)).map_err(value_error)?;
        return Ok((pmf.into_pyarray(py), json));
    }
    let ev = table.exact()?;
    let rules = *ev.rules();
    // Refused before any work when its passes cannot fit in the memory available.
    yahtzee_core::stats::check_exact(&rules).map_err(value_error)?;
    let start = start_of(
        rules,
        card.as_deref(),
        yahtzee_bonus,
        dice.as_deref(),
        rolls_left,
    )?;
    let pmf = |tally: &Tally| -> Vec<f64> {
        let total = tally.total();
        tally.score.iter().map(|m| m / total).collect()
    };
    let stamp = |json: Result<String, serde_json::Error>| json.map_err(value_error);
    if let Some(target) = target {
        let target = u32::try_from(target).map_err(|_| {
            value_error(format!(
                "target must be a whole number of points from 0, not {target}"
            ))
        })?;
        let targets = py.detach(|| table.set.target()).map_err(load_error)?;
        let player = yahtzee_core::policy::target::TargetPlayer::new(ev, targets, target)
            .map_err(value_error)?;
        let (report, tally) = py
            .detach(|| report::stats_target(&player, start.as_ref(), &at_least, &|_, _| {}))
            .map_err(value_error)?;
        let json = stamp(serde_json::to_string(&report::stamped(&report, Some(ev))))?;
        return Ok((pmf(&tally).into_pyarray(py), json));
    }
    if let Some(theta) = theta {
        let theta = Theta::new(theta).map_err(value_error)?;
        let table_theta = py.detach(|| table.set.theta(theta)).map_err(load_error)?;
        let (report, tally) = py
            .detach(|| report::stats_theta(table_theta, start.as_ref(), &at_least, &|_, _| {}))
            .map_err(value_error)?;
        let json = stamp(serde_json::to_string(&report::stamped(
            &report,
            Some(table_theta),
        )))?;
        return Ok((pmf(&tally).into_pyarray(py), json));
    }
    let box_joint = if joint_boxes.is_empty() {
        None
    } else {
        let joints = py
            .detach(|| {
                yahtzee_core::stats::joint::boxes_joint(
                    ev,
                    start.as_ref(),
                    &joint_boxes,
                    &|_, _| {},
                )
            })
            .map_err(value_error)?;
        Some(yahtzee_core::stats::joint::report(&joints))
    };
    if events {
        let (mut report, tally) = py
            .detach(|| report::stats_joint_from(ev, start.as_ref(), &at_least, &|_, _| {}))
            .map_err(value_error)?;
        report.box_joint = box_joint;
        let json = stamp(serde_json::to_string(&report::stamped(&report, Some(ev))))?;
        return Ok((pmf(&tally).into_pyarray(py), json));
    }
    let (mut report, tally) = match &start {
        None => {
            let (forward, seconds) = py.detach(|| table.forward(ev));
            let report = report::stats_of_forward(ev, forward, &at_least, *seconds);
            (report, None)
        }
        Some(start) => {
            let (report, tally) = py
                .detach(|| report::stats_from(ev, Some(start), &at_least, &|_, _| {}))
                .map_err(value_error)?;
            (report, Some(tally))
        }
    };
    report.box_joint = box_joint;
    // Lazily: a position's own pass is all it needs (not the new game's as well).
    let tally = tally.as_ref().unwrap_or_else(|| &table.forward(ev).0.tally);
    let json = stamp(serde_json::to_string(&report::stamped(&report, Some(ev))))?;
    Ok((pmf(tally).into_pyarray(py), json))
}

/// The boxes of `stats(..., joint=...)`: one or two distinct names of `rules`.
fn joint_boxes(rules: &Rules, names: &[String]) -> PyResult<Vec<usize>> {
    if names.len() > 2 {
        return Err(value_error(format!(
            "joint takes one box or two (e.g. (\"yahtzee\", \"chance\")), not {}",
            names.len()
        )));
    }
    let boxes = (names.iter())
        .map(|n| yahtzee_core::game::state::box_named(rules, n).map_err(value_error))
        .collect::<PyResult<Vec<usize>>>()?;
    if boxes.len() == 2 && boxes[0] == boxes[1] {
        return Err(value_error(format!(
            "joint names {} twice: give two different boxes, or one",
            names[0]
        )));
    }
    Ok(boxes)
}

/// `stats --frontier`: for each θ of `thetas` (0: the expected score's policy) and each target
/// of `targets`, the exact figures of its policy's distribution from a new game, and the θ
/// that maximises each percentile; the report as JSON.
#[pyfunction]
#[pyo3(signature = (table, thetas, targets))]
fn frontier(
    py: Python<'_>,
    table: &Table,
    thetas: Vec<f64>,
    targets: Vec<i64>,
) -> PyResult<String> {
    let ev = table.exact()?;
    yahtzee_core::stats::check_exact(ev.rules()).map_err(value_error)?;
    let thetas = thetas
        .into_iter()
        .map(|x| {
            if x == 0.0 {
                Ok(None)
            } else {
                Theta::new(x).map(Some).map_err(value_error)
            }
        })
        .collect::<PyResult<Vec<_>>>()?;
    let targets = targets
        .into_iter()
        .map(|t| {
            u32::try_from(t).map_err(|_| {
                value_error(format!(
                    "targets are whole numbers of points from 0, not {t}"
                ))
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let target_tables = if targets.is_empty() {
        None
    } else {
        Some(py.detach(|| table.set.target()).map_err(load_error)?)
    };
    let player = |t: u32| {
        yahtzee_core::policy::target::TargetPlayer::new(
            ev,
            target_tables.expect("loaded when targets are given"),
            t,
        )
    };
    let report = py
        .detach(|| report::frontier(ev, &thetas, &targets, &player, &|_, _, _| {}))
        .map_err(value_error)?;
    serde_json::to_string(&report::stamped(&report, Some(ev))).map_err(value_error)
}

/// Where a distribution starts: `None` for a new game (no card, no dice), else the card's
/// turn, or with `dice` the position with `rolls_left` (default: the first roll's), checked
/// as `stats --card --dice --rolls-left` checks them.
fn start_of(
    rules: Rules,
    card: Option<&[(String, i64)]>,
    yahtzee_bonus: i64,
    dice: Option<&[i64]>,
    rolls_left: Option<i64>,
) -> PyResult<Option<Start>> {
    if card.is_none() && dice.is_none() {
        if yahtzee_bonus != 0 {
            return Err(value_error(
                "yahtzee_bonus is of a card: give the card (or {} for a new one)",
            ));
        }
        if rolls_left.is_some() {
            return Err(value_error("rolls_left is of a position: give its dice"));
        }
        return Ok(None);
    }
    let card = card_of(rules, card.unwrap_or_default(), yahtzee_bonus)?;
    let Some(dice) = dice else {
        if rolls_left.is_some() {
            return Err(value_error("rolls_left is of a position: give its dice"));
        }
        return Ok(Some(Start::Card(card)));
    };
    let dice = dice_of(Some(rules), dice)?;
    let rolls_left = match rolls_left {
        None => rules.most_rolls_left(),
        Some(r) => {
            let r = u32::try_from(r).map_err(|_| {
                value_error(format!("rolls_left must be a whole number from 0, not {r}"))
            })?;
            check_rolls_left(&rules, r).map_err(value_error)?;
            r as u8
        }
    };
    Ok(Some(Start::Position(Position {
        card,
        dice,
        rolls_left,
    })))
}

/// The chance that a game played by the optimal policy of `table` reaches each reachable
/// turn-start state, in the order of `Table.values()` (the rows of `export --all-states`):
/// from the pass [`stats`] of a new game keeps (made here if it was not yet).
#[pyfunction]
fn visit_probabilities<'py>(py: Python<'py>, table: &Table) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let ev = table.exact()?;
    let (forward, _) = py.detach(|| table.forward(ev));
    Ok(forward.visits.in_state_order().into_pyarray(py))
}

/// A number of games or a seed from Python, as a `u64`, or the command line's message.
fn games_and_seed(games: i128, seed: i128) -> PyResult<(u64, u64)> {
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
    report::check_games(games).map_err(value_error)?;
    Ok((games, seed))
}

/// Plays `games` games with `seed` under `policy` (`table` for the policies that play with
/// tables) on `rules` (the rule set's name and the upper-section-first modifier): every game's
/// final score in the order dealt, and the report of `simulate --json`. A game of saved rolls
/// is played by the optimal policy alone, from the whole table of saved rolls
/// ([`simulate_saved_scores`]), as `simulate` of the command line plays it.
#[pyfunction]
#[pyo3(signature = (rules, games, seed, policy, at_least, table=None))]
fn simulate<'py>(
    py: Python<'py>,
    rules: (String, bool),
    games: i128,
    seed: i128,
    policy: &str,
    at_least: Vec<i64>,
    table: Option<&Table>,
) -> PyResult<(Bound<'py, PyArray1<u32>>, String)> {
    let rules = rules_of(&rules.0, rules.1)?;
    let (games, seed) = games_and_seed(games, seed)?;
    let at_least = thresholds(&at_least)?;
    let policy: Policy = policy.parse().map_err(value_error)?;
    if matches!(policy, Policy::Win | Policy::WinExact | Policy::TwoPlayer) {
        return Err(PyValueError::new_err(format!(
            "the {} policy plays against other players, in a match of the command line (`yahtzee simulate --match`): the policies here are optimal (or ev), greedy, most-common, target:T and a callable of one's own",
            policy.name()
        )));
    }
    if let Some(t) = table
        && t.game() != rules
    {
        return Err(PyValueError::new_err(format!(
            "the table is of {}, not of {}: give the table of the rules played",
            t.game().label(),
            rules.label()
        )));
    }
    if rules.saved_rolls() {
        if policy != Policy::Optimal {
            // The command line's refusal (`yahtzee simulate` of a game of saved rolls).
            return Err(value_error(saved_rolls_only(
                &rules,
                "the policies but the optimal one (optimal)",
            )));
        }
        let Some(t) = table else {
            return Err(value_error(
                "the optimal policy plays with a table: give the table of the rules",
            ));
        };
        let saved = py.detach(|| t.set.saved()).map_err(load_error)?;
        let start = std::time::Instant::now();
        let (tally, scores) = py.detach(|| simulate_saved_scores(&saved, games, seed, &|_| {}));
        let report = SimulateReport::of(&rules, policy, seed, &tally, start, &at_least);
        // The version, and the checksum of the table of saved rolls, as `simulate --json`.
        let json =
            serde_json::to_string(&report::stamped_by(&report, &t.set)).map_err(value_error)?;
        return Ok((scores.into_pyarray(py), json));
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
    let start = std::time::Instant::now();
    let (tally, scores) = py.detach(|| simulate_scores(&rules, &player, games, seed, &|_| {}));
    let report = SimulateReport::of(&rules, policy, seed, &tally, start, &at_least);
    // The version, and the table's checksum where the policy read it, as `simulate --json`.
    let read = match player {
        Player::Greedy | Player::MostCommon => None,
        _ => table
            .map(|t| t.ev("the expected-score table"))
            .transpose()?,
    };
    let json = serde_json::to_string(&report::stamped(&report, read)).map_err(value_error)?;
    Ok((scores.into_pyarray(py), json))
}

/// Why a game of one's own policy stopped: the callable's exception, or a choice the rules
/// refuse.
enum OwnError {
    Python(PyErr),
    /// An answer that is no keep or no box of the rules.
    Answer(String),
    Choice(OwnChoiceError),
}

impl From<OwnChoiceError> for OwnError {
    fn from(e: OwnChoiceError) -> OwnError {
        OwnError::Choice(e)
    }
}

impl From<PyErr> for OwnError {
    fn from(e: PyErr) -> OwnError {
        OwnError::Python(e)
    }
}

/// Plays `games` games with `seed` on `rules` under a policy of one's own: `decide(card,
/// yahtzee_bonus, dice, rolls_left)` (the filled boxes as `(name, points)` pairs, the dice
/// ascending) answers `("keep", faces)` or `("box", name)`. The dice of game `g` are those of
/// game `g` of every simulation of `seed` (the same decisions, the same dice). Every game's
/// final score, and the report of `simulate --json` with the policy `own`.
#[pyfunction]
fn simulate_own<'py>(
    py: Python<'py>,
    rules: RulesArg<'py>,
    upper_first: bool,
    games: i128,
    seed: i128,
    decide: Bound<'py, PyAny>,
    at_least: Vec<i64>,
) -> PyResult<(Bound<'py, PyArray1<u32>>, String)> {
    let rules = rules.rules(upper_first)?;
    if rules.saved_rolls() {
        return Err(value_error(saved_rolls_only(
            &rules,
            "policies of one's own (callables)",
        )));
    }
    let (games, seed) = games_and_seed(games, seed)?;
    let at_least = thresholds(&at_least)?;
    let start = std::time::Instant::now();
    let mut ask = |card: &ScoreCard, dice: &Dice, rolls_left: u8| -> Result<Choice, OwnError> {
        let filled: Vec<(&str, u32)> = (0..rules.box_count())
            .filter_map(|i| card.points(i).map(|p| (rules.boxes()[i].name(), p)))
            .collect();
        let answer = decide.call1((filled, card.yahtzee_bonuses(), dice.faces(), rolls_left))?;
        let (kind, value): (String, Bound<'py, PyAny>) = answer.extract()?;
        Ok(match kind.as_str() {
            "keep" => {
                let faces: Vec<i64> = value.extract()?;
                let faces: Vec<u8> = faces
                    .iter()
                    .map(|&f| u8::try_from(f).unwrap_or(0))
                    .collect();
                Choice::Keep(Keep::from_faces(&faces).map_err(|e| OwnError::Answer(e.to_string()))?)
            }
            _ => {
                let name: String = value.extract()?;
                Choice::Score(rules.box_by_name(&name).ok_or_else(|| {
                    OwnError::Answer(format!(
                        "unknown box `{}`: the boxes are {}",
                        yahtzee_core::text::excerpt(&name),
                        rules.names_of(rules.full_mask())
                    ))
                })?)
            }
        })
    };
    let mut tally = Tally::new(&rules);
    let mut scores = Vec::with_capacity(usize::try_from(games).unwrap_or(0));
    for game in 0..games {
        let card = play_own_game(&rules, seed, game, &mut ask).map_err(|e| match e {
            OwnError::Python(e) => e,
            OwnError::Answer(e) => value_error(format!("game {game}: {e}")),
            OwnError::Choice(e) => value_error(format!("game {game}: {e}")),
        })?;
        tally.add_score(card.banked(), 1.0);
        for i in 0..rules.box_count() {
            tally.add_box(i, card.points(i).expect("a full card"), 1.0);
        }
        if card.has_upper_bonus() {
            tally.upper_bonus += 1.0;
        }
        tally.add_yahtzee_bonuses(card.yahtzee_bonuses() as usize, 1.0);
        scores.push(card.banked());
        py.check_signals()?;
    }
    // The report of a built-in policy's games, naming the policy `own`: no tie convention.
    let report = SimulateReport::of(&rules, Policy::Optimal, seed, &tally, start, &at_least);
    let mut json = serde_json::to_value(&report).map_err(value_error)?;
    json["policy"] = "own".into();
    if let Some(o) = json.as_object_mut() {
        o.remove("tie_convention");
    }
    Ok((scores.into_pyarray(py), json.to_string()))
}

/// The expected final score of every option of N positions at once (see
/// [`batch::option_values`] for the columns): `cards` (N x boxes, the points of each box, -1
/// for an open box), `yahtzee_bonus` (N), `dice` (N x 5, or N x 6 in a game of six dice) and
/// `rolls_left` (N).
#[pyfunction]
fn option_values<'py>(
    py: Python<'py>,
    table: &Table,
    cards: PyReadonlyArray2<'py, i64>,
    yahtzee_bonus: PyReadonlyArray1<'py, i64>,
    dice: PyReadonlyArray2<'py, i64>,
    rolls_left: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let rules = table.game();
    if rules.saved_rolls() {
        return Err(value_error(format!(
            "option_values values positions of turns of {} rolls, and {} keeps unused rolls for later turns (saved_rolls = true): advise and advise_batch take a position's rolls saved (saved=N)",
            rules.rolls(),
            rules.label()
        )));
    }
    let ev = table.ev("option_values")?;
    let (cards, bonus) = (cards.as_array(), yahtzee_bonus.as_array());
    let (dice, rolls) = (dice.as_array(), rolls_left.as_array());
    let n = rolls.len();
    let boxes = rules.box_count();
    let all = rules.dice().dice();
    if cards.shape() != [n, boxes] || bonus.len() != n || dice.shape() != [n, all] {
        return Err(value_error(format!(
            "the arrays describe {n} positions: cards must be {n} x {boxes} (the points of each box of {}, -1 for an open box), yahtzee_bonus {n} long, dice {n} x {all}, not {:?}, {:?} and {:?}",
            rules.label(),
            cards.shape(),
            bonus.shape(),
            dice.shape()
        )));
    }
    let positions = (0..n)
        .map(|i| {
            let at = |e: PyErr| value_error(format!("position {i}: {}", e.value(py)));
            let mut entries = Vec::new();
            for (b, &points) in cards.row(i).iter().enumerate() {
                if points != -1 {
                    entries.push((rules.boxes()[b].name().to_string(), points));
                }
            }
            let card = card_of(rules, &entries, bonus[i]).map_err(at)?;
            let row: Vec<i64> = dice.row(i).to_vec();
            let dice = dice_of(Some(rules), &row).map_err(at)?;
            let rolls_left = u8::try_from(rolls[i]).map_err(|_| {
                value_error(format!(
                    "position {i}: rolls left must be {}, not {}",
                    rules.rolls_left_allowed(),
                    rolls[i]
                ))
            })?;
            Ok(Position {
                card,
                dice,
                rolls_left,
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let values = py
        .detach(|| batch::option_values(ev, &positions))
        .map_err(|(i, e)| value_error(format!("position {i}: {e}")))?;
    values
        .into_pyarray(py)
        .reshape([n, batch::keep_columns(rules.dice()) + boxes])
}

/// The best chance of each final score from a card (`card` and `yahtzee_bonus`; empty: a new
/// game): `p[t]` = P(final score >= t) under the strategy that maximises it, for `t` from 0
/// to one past the highest final score reachable (1 up to the points banked). Reads (or
/// builds) the target table.
#[pyfunction]
fn target_curve<'py>(
    py: Python<'py>,
    table: &Table,
    card: Vec<(String, i64)>,
    yahtzee_bonus: i64,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let card = card_of(table.game(), &card, yahtzee_bonus)?;
    // Refused in a game of saved rolls, with the core's message.
    let targets = py.detach(|| table.set.target()).map_err(load_error)?;
    let curve = targets.curve(&card.state()).map_err(value_error)?;
    let mut p = vec![1.0; card.banked() as usize];
    p.extend(curve.iter().map(|&v| f64::from(v)));
    Ok(p.into_pyarray(py))
}

/// The boxes of `rules`, in card order.
#[pyfunction]
fn boxes(rules: RulesArg<'_>, upper_first: bool) -> PyResult<Vec<&'static str>> {
    let rules = rules.rules(upper_first)?;
    Ok(rules.boxes().iter().map(|b| b.name()).collect())
}

/// The columns of `option_values` before the boxes' in a game of `rules`: one per subset of
/// its dice (32 for five, 64 for six).
#[pyfunction]
fn keep_columns(rules: RulesArg<'_>, upper_first: bool) -> PyResult<usize> {
    Ok(batch::keep_columns(rules.rules(upper_first)?.dice()))
}

/// The rules, the card (with its Yahtzee bonuses) and the dice of a roll, each checked.
fn roll_on_card(
    rules: RulesArg<'_>,
    upper_first: bool,
    card: &[(String, i64)],
    yahtzee_bonus: i64,
    dice: &[i64],
) -> PyResult<(Rules, ScoreCard, Dice)> {
    let rules = rules.rules(upper_first)?;
    Ok((
        rules,
        card_of(rules, card, yahtzee_bonus)?,
        dice_of(Some(rules), dice)?,
    ))
}

/// The boxes that `dice` may fill on `card` (and its `yahtzee_bonus`), in card order.
#[pyfunction]
fn legal_boxes(
    rules: RulesArg<'_>,
    upper_first: bool,
    card: Vec<(String, i64)>,
    yahtzee_bonus: i64,
    dice: Vec<i64>,
) -> PyResult<Vec<&'static str>> {
    let (rules, card, dice) = roll_on_card(rules, upper_first, &card, yahtzee_bonus, &dice)?;
    let legal = rules.legal_boxes(card.filled(), &dice);
    Ok((0..rules.box_count())
        .filter(|i| legal & (1 << i) != 0)
        .map(|i| rules.boxes()[i].name())
        .collect())
}

/// Box `name` filled with `dice` on `card`: its name, its points (the Joker included) and the
/// bonus points earned with it; `ValueError` saying why when the box cannot be filled.
#[pyfunction]
fn score(
    rules: RulesArg<'_>,
    upper_first: bool,
    card: Vec<(String, i64)>,
    yahtzee_bonus: i64,
    dice: Vec<i64>,
    name: &str,
) -> PyResult<(&'static str, u32, u32)> {
    let (rules, card, dice) = roll_on_card(rules, upper_first, &card, yahtzee_bonus, &dice)?;
    let index = rules.box_by_name(name).ok_or_else(|| {
        value_error(format!(
            "unknown box `{}`: the boxes are {}",
            yahtzee_core::text::excerpt(name),
            rules.names_of(rules.full_mask())
        ))
    })?;
    let (points, bonuses) = score_box(&rules, &card, &dice, index).map_err(value_error)?;
    Ok((rules.boxes()[index].name(), points, bonuses.points(&rules)))
}

/// The distinct keeps of `dice`, in the order of the tie convention (fewest dice, then the
/// lowest faces): the dice kept, ascending.
#[pyfunction]
fn keeps(dice: Vec<i64>) -> PyResult<Vec<Vec<u8>>> {
    let dice = dice_of(None, &dice)?;
    Ok(dice.keeps_by_preference().iter().map(Keep::faces).collect())
}

/// The rule sets, by name.
#[pyfunction]
fn rule_sets() -> Vec<&'static str> {
    RuleSet::names()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The commit every result states (build.rs).
    yahtzee_core::report::set_commit(env!("YAHTZEE_COMMIT"));
    m.add_class::<Table>()?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(advise_line, m)?)?;
    m.add_function(wrap_pyfunction!(advise_lines, m)?)?;
    m.add_function(wrap_pyfunction!(value, m)?)?;
    m.add_function(wrap_pyfunction!(card_entries, m)?)?;
    m.add_function(wrap_pyfunction!(parse_dice, m)?)?;
    m.add_function(wrap_pyfunction!(stats, m)?)?;
    m.add_function(wrap_pyfunction!(frontier, m)?)?;
    m.add_function(wrap_pyfunction!(visit_probabilities, m)?)?;
    m.add_function(wrap_pyfunction!(rate, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(rule_sets, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_own, m)?)?;
    m.add_function(wrap_pyfunction!(option_values, m)?)?;
    m.add_function(wrap_pyfunction!(target_curve, m)?)?;
    m.add_function(wrap_pyfunction!(boxes, m)?)?;
    m.add_function(wrap_pyfunction!(keep_columns, m)?)?;
    m.add_function(wrap_pyfunction!(legal_boxes, m)?)?;
    m.add_function(wrap_pyfunction!(score, m)?)?;
    m.add_function(wrap_pyfunction!(keeps, m)?)?;
    m.add("BATCH_EXAMPLE", batch::EXAMPLE)?;
    m.add("KEEP_COLUMNS", batch::KEEP_COLUMNS)?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    m.add("COMMIT", env!("YAHTZEE_COMMIT"))?;
    m.add("DICE_GENERATOR", yahtzee_core::game::dice::DICE_GENERATOR)?;
    Ok(())
}
