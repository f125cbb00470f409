//! `yahtzee simulate`: games with random dice under a policy, reported like `stats`.

use std::io::Write;

use anyhow::{Result, anyhow};

use super::report as summary;
use crate::cli::SimulateArgs;
use yahtzee::report;
use yahtzee::simulate::{Player, Policy, TargetPlayer};
use yahtzee::table::default_table_path;
use yahtzee::text::probability;

pub fn run(args: &SimulateArgs) -> Result<()> {
    let rules = args.rules.rules();
    let policy = args.policy;
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
        Policy::Optimal | Policy::Target(_) => {
            Some(pool.install(|| super::load_or_build(&rules, args.table.as_deref()))?)
        }
        Policy::Greedy | Policy::MostCommon => None,
    };
    let targets = match policy {
        Policy::Target(_) => {
            Some(pool.install(|| super::load_target(&rules, args.target_table.as_deref()))?)
        }
        _ => None,
    };
    let target_player = match (&table, &targets, policy) {
        (Some(ev), Some(targets), Policy::Target(t)) => Some(TargetPlayer::new(ev, targets, t)?),
        _ => None,
    };
    let player = match (&table, &target_player, policy) {
        (_, Some(p), _) => Player::Target(p),
        (Some(t), None, _) => Player::Optimal(t),
        (None, _, Policy::MostCommon) => Player::MostCommon,
        (None, _, _) => Player::Greedy,
    };
    let bar = super::progress_bar(
        &format!("{} games of {}", policy.label(), rules.label()),
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
            policy.label(),
            args.seed
        ),
    )?;
    super::print_result(args.report.json, &report, |out| {
        writeln!(
            out,
            "{}: {} games, policy {}, seed {} ({:.1} s, {:.0} games/s on {} threads)",
            rules.label(),
            report.games,
            policy.label(),
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
        if let (Some(t), Some(r)) = (report.target, &report.reached) {
            writeln!(
                out,
                "reached {t} or more: {} of the games, 95% interval [{}, {}]",
                probability(r.share),
                probability(r.low),
                probability(r.high)
            )?;
        }
        summary::write_summary(out, &report.summary)?;
        if let Some(t) = report.tie_convention {
            writeln!(out, "ties: {t}")?;
        }
        Ok(())
    })?;
    Ok(())
}
