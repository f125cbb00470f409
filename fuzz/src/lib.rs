//! What the fuzz targets share: the rules a byte picks, the tables they advise with (solved
//! once per process), and the checks every error message must pass.
//!
//! The targets call the library exactly as the binary does (`src/cmd/*.rs`), so a crash here
//! is a crash of a command on some input.

use std::sync::{Arc, Mutex, OnceLock};

use yahtzee_core::game::rules::Rules;
use yahtzee_core::solve::expected::SolveOptions;
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::set::TableSet;

/// The rules a byte selects: every rule set that solves in seconds in both orders, as
/// [`Rules::all`] lists them.
pub fn rules_from_byte(byte: u8) -> Rules {
    let all: Vec<Rules> = Rules::all()
        .filter(|r| r.set.solves_in_seconds())
        .collect();
    all[usize::from(byte) % all.len()]
}

/// The solved table of `rules`, solved once per fuzzing process (a few milliseconds for
/// Yacht, a fraction of a second for Yahtzee) and kept.
pub fn table(rules: Rules) -> &'static StrategyTable {
    static TABLES: OnceLock<Mutex<Vec<(Rules, &'static StrategyTable)>>> = OnceLock::new();
    let mut tables = TABLES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(&(_, t)) = tables.iter().find(|(r, _)| *r == rules) {
        return t;
    }
    let (t, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
    let t: &'static StrategyTable = Box::leak(Box::new(t));
    tables.push((rules, t));
    t
}

/// The tables of `rules` for the batch protocol: the solved table of [`table`] alone (the
/// batch of the fuzz target answers questions of expected score only), made once.
pub fn tables(rules: Rules) -> &'static TableSet {
    static SETS: OnceLock<Mutex<Vec<(Rules, &'static TableSet)>>> = OnceLock::new();
    let mut sets = SETS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(&(_, s)) = sets.iter().find(|(r, _)| *r == rules) {
        return s;
    }
    let set = TableSet::of_expected_score(Arc::new(table(rules).clone()));
    let set: &'static TableSet = Box::leak(Box::new(set));
    sets.push((rules, set));
    set
}

/// Longest error message the checks accept, in bytes: input is quoted only through
/// `yahtzee_core::text::excerpt` (40 characters, escaped), so a longer message quotes input whole.
pub const MAX_MESSAGE: usize = 1024;

/// Checks an error message as the binary prints it (`error: {e:#}`): one line, with no
/// control character, not empty, and at most [`MAX_MESSAGE`] bytes.
pub fn check_message(message: &str) {
    assert!(!message.is_empty(), "an empty error message");
    assert!(
        !message.chars().any(char::is_control),
        "an error message with a control character: {message:?}"
    );
    assert!(
        message.len() <= MAX_MESSAGE,
        "an error message of {} bytes: {message:?}",
        message.len()
    );
}
