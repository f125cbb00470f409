//! `yahtzee simulate`: games with random dice under a policy, reported like `stats`.

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use super::report::{self, TIE_CONVENTION};
use crate::cli::SimulateArgs;
use yahtzee::distribution::Summary;
use yahtzee::simulate::{MeanInterval, Player, Policy, simulate};

/// The most games one run plays: beyond this the per-game counts would no longer be exact in
/// f64 (2^53), long before which the run would take days anyway.
const MAX_GAMES: u64 = 1 << 40;

/// What `simulate` reports.
#[derive(Serialize)]
struct SimulateReport {
    /// Rule set name.
    rules: String,
    /// True under `--upper-first`.
    upper_first: bool,
    /// Always `simulation`.
    method: &'static str,
    /// The policy played.
    policy: Policy,
    /// How the optimal policy breaks ties (absent for the baselines).
    #[serde(skip_serializing_if = "Option::is_none")]
    tie_convention: Option<&'static str>,
    /// Games played.
    games: u64,
    /// Seed of the dice.
    seed: u64,
    /// 95% confidence interval of the mean.
    mean_interval: MeanInterval,
    /// Seconds of play (the table load or build excluded).
    seconds: f64,
    /// Games per second.
    games_per_second: f64,
    /// Worker threads used.
    threads: usize,
    /// The figures of the games (probabilities are shares of games).
    #[serde(flatten)]
    summary: Summary,
}

pub fn run(args: &SimulateArgs) -> Result<()> {
    report::check(&args.report)?;
    if args.games == 0 || args.games > MAX_GAMES {
        bail!("--games must be from 1 to {MAX_GAMES}, not {}", args.games);
    }
    let rules = args.rules.rules();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start the worker threads")?;
    let table = match args.policy {
        Policy::Optimal => {
            Some(pool.install(|| super::load_or_build(&rules, args.table.as_deref()))?)
        }
        _ => None,
    };
    let player = match (&table, args.policy) {
        (Some(t), _) => Player::Optimal(t),
        (None, Policy::MostCommon) => Player::MostCommon,
        (None, _) => Player::Greedy,
    };
    let bar = super::progress_bar(
        &format!("{} games of {}", args.policy.name(), rules.label()),
        "games",
    );
    bar.set_length(args.games);
    let start = Instant::now();
    let tally = pool.install(|| {
        simulate(&rules, &player, args.games, args.seed, &|done| {
            bar.set_position(done)
        })
    });
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let summary = Summary::of(&rules, &tally, &args.report.at_least);
    report::write_files(
        &args.report,
        &tally,
        &format!(
            "{}: final score of {} {} games (seed {})",
            rules.label(),
            args.games,
            args.policy.name(),
            args.seed
        ),
    )?;
    let report = SimulateReport {
        rules: rules.set.name().to_string(),
        upper_first: args.rules.upper_first,
        method: "simulation",
        policy: args.policy,
        tie_convention: (args.policy == Policy::Optimal).then_some(TIE_CONVENTION),
        games: args.games,
        seed: args.seed,
        mean_interval: MeanInterval::of(&tally),
        seconds,
        games_per_second: args.games as f64 / seconds,
        threads: pool.current_num_threads(),
        summary,
    };
    super::print_result(args.report.json, &report, |out| {
        writeln!(
            out,
            "{}: {} games, policy {}, seed {} ({:.1} s, {:.0} games/s on {} threads)",
            rules.label(),
            report.games,
            args.policy.name(),
            report.seed,
            report.seconds,
            report.games_per_second,
            report.threads
        )?;
        writeln!(
            out,
            "mean 95% interval [{:.4}, {:.4}] (standard error {:.4})",
            report.mean_interval.low,
            report.mean_interval.high,
            report.mean_interval.standard_error
        )?;
        report::write_summary(out, &report.summary)?;
        if let Some(t) = report.tie_convention {
            writeln!(out, "ties: {t}")?;
        }
        Ok(())
    })?;
    Ok(())
}
