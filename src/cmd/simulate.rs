//! `yahtzee simulate`: games with random dice under a policy, reported like `stats`.

use std::io::Write;

use anyhow::{Result, anyhow};

use super::report as summary;
use crate::cli::SimulateArgs;
use yahtzee::report;
use yahtzee::simulate::{Player, Policy};
use yahtzee::table::default_table_path;

pub fn run(args: &SimulateArgs) -> Result<()> {
    let rules = args.rules.rules();
    let policy = Policy::from(args.policy);
    let table_path = args
        .table
        .clone()
        .unwrap_or_else(|| default_table_path(&rules));
    summary::check(&args.report, &table_path)?;
    // Before any table is built.
    let games_error = |e| anyhow!("--games {}: {e}", args.games);
    report::check_games(args.games).map_err(games_error)?;
    let pool = super::thread_pool(args.threads)?;
    let table = match policy {
        Policy::Optimal => {
            Some(pool.install(|| super::load_or_build(&rules, args.table.as_deref()))?)
        }
        _ => None,
    };
    let player = match (&table, policy) {
        (Some(t), _) => Player::Optimal(t),
        (None, Policy::MostCommon) => Player::MostCommon,
        (None, _) => Player::Greedy,
    };
    let bar = super::progress_bar(
        &format!("{} games of {}", policy.name(), rules.label()),
        "games",
    );
    bar.set_length(args.games);
    let simulated = pool.install(|| {
        report::simulate(
            &rules,
            &player,
            args.games,
            args.seed,
            &args.report.at_least,
            &|done| bar.set_position(done),
        )
    });
    bar.finish_and_clear();
    let (report, tally) = simulated.map_err(games_error)?;
    summary::write_files(
        &args.report,
        &tally,
        &format!(
            "{}: final score of {} {} games (seed {})",
            rules.label(),
            args.games,
            policy.name(),
            args.seed
        ),
    )?;
    super::print_result(args.report.json, &report, |out| {
        writeln!(
            out,
            "{}: {} games, policy {}, seed {} ({:.1} s, {:.0} games/s on {} threads)",
            rules.label(),
            report.games,
            policy.name(),
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
        summary::write_summary(out, &report.summary)?;
        if let Some(t) = report.tie_convention {
            writeln!(out, "ties: {t}")?;
        }
        Ok(())
    })?;
    Ok(())
}
