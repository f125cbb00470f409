//! `yahtzee stats`: the exact distribution of the final score under optimal play.

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, Result};
use serde::Serialize;

use super::report::{self, TIE_CONVENTION};
use crate::cli::StatsArgs;
use yahtzee::distribution::Summary;
use yahtzee::stats::exact_distribution;

/// What `stats` reports.
#[derive(Serialize)]
struct StatsReport {
    /// Rule set name.
    rules: String,
    /// True under `--upper-first`.
    upper_first: bool,
    /// Always `exact`: probabilities propagated through every state, no sampling.
    method: &'static str,
    /// Always `optimal`.
    policy: &'static str,
    /// How ties between equally good options are broken.
    tie_convention: &'static str,
    /// Expected final score according to the strategy table (the mean must equal it).
    solver_mean: f64,
    /// Seconds of the computation (the table load or build excluded).
    seconds: f64,
    /// Worker threads used.
    threads: usize,
    /// The figures of the distribution.
    #[serde(flatten)]
    summary: Summary,
}

pub fn run(args: &StatsArgs) -> Result<()> {
    report::check(&args.report)?;
    let rules = args.rules.rules();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start the worker threads")?;
    let table = pool.install(|| super::load_or_build(&rules, args.table.as_deref()))?;
    let start = Instant::now();
    let bar = super::progress_bar(&format!("distribution of {}", rules.label()), "turns");
    let tally = pool.install(|| {
        exact_distribution(&table, &|done, total| {
            bar.set_length(total);
            bar.set_position(done);
        })
    });
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let summary = Summary::of(&rules, &tally, &args.report.at_least);
    report::write_files(
        &args.report,
        &tally,
        &format!("{}: final score under optimal play (exact)", rules.label()),
    )?;
    let report = StatsReport {
        rules: rules.set.name().to_string(),
        upper_first: args.rules.upper_first,
        method: "exact",
        policy: "optimal",
        tie_convention: TIE_CONVENTION,
        solver_mean: table.expected_score(),
        seconds,
        threads: pool.current_num_threads(),
        summary,
    };
    super::print_result(args.report.json, &report, |out| {
        writeln!(
            out,
            "{}: exact distribution of the final score under optimal play (solver mean {:.10}; {:.1} s on {} threads)",
            rules.label(),
            report.solver_mean,
            report.seconds,
            report.threads
        )?;
        report::write_summary(out, &report.summary)?;
        writeln!(out, "ties: {TIE_CONVENTION}")?;
        Ok(())
    })?;
    Ok(())
}
