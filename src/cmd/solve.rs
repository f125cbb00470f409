//! `yahtzee solve`: solve a rule set and save its table.

use std::io::Write;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::cli::SolveArgs;
use yahtzee::table::default_table_path;

/// What a solve reports.
#[derive(Serialize)]
struct SolveReport {
    /// Rule set name.
    rules: String,
    /// True under `--upper-first`.
    upper_first: bool,
    /// Expected final score of an empty card under optimal play.
    expected_score: f64,
    /// Reachable turn-start states.
    states: u64,
    /// Seconds of the solve itself (not the file write).
    seconds: f64,
    /// Where the table was written.
    path: String,
    /// Worker threads used.
    threads: usize,
}

pub fn run(args: &SolveArgs) -> Result<()> {
    let rules = args.rules.rules();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start the worker threads")?;
    let (table, seconds) = pool.install(|| super::solve_with_progress(&rules));
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| default_table_path(&rules));
    table.save(&path)?;
    let report = SolveReport {
        rules: rules.set.name().to_string(),
        upper_first: args.rules.upper_first,
        expected_score: table.expected_score(),
        states: table.states(),
        seconds,
        path: path.display().to_string(),
        threads: pool.current_num_threads(),
    };
    super::print_result(args.json, &report, |out| {
        writeln!(
            out,
            "{}: expected score {:.10}, {} states, solved in {:.3} s on {} threads, table {}",
            rules.label(),
            report.expected_score,
            report.states,
            report.seconds,
            report.threads,
            report.path
        )?;
        Ok(())
    })?;
    Ok(())
}
