//! `yahtzee simulate`: games with random dice under a policy, reported like `stats`; with
//! `--match`, matches between policies, reported seat by seat.

use std::io::Write;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};

use super::report as summary;
use crate::cli::SimulateArgs;
use crate::plot::Curve;
use crate::values::Lineup;
use yahtzee_core::policy::player::{Player, PlayerError, players};
use yahtzee_core::policy::{Needs, Policy};
use yahtzee_core::report::{self, MatchReport, SimulateReport};
use yahtzee_core::solve::vector::{DISTRIBUTION, TARGET};
use yahtzee_core::stats::distribution::Tally;
use yahtzee_core::stats::matches::Match;
use yahtzee_core::stats::simulate::PerBox;
use yahtzee_core::tables::default_table_path_of;
use yahtzee_core::tables::set::TableKind;
use yahtzee_core::tables::set::TableSet;
use yahtzee_core::text::probability;

pub fn run(args: &SimulateArgs) -> Result<()> {
    let rules = args.rules.rules();
    let policy = args.policy[0];
    let table_path = super::table_paths(&args.tables).path(&rules, TableKind::ExpectedScore);
    summary::check(&args.report, &table_path)?;
    // Before any table is built.
    let games_error = |e| anyhow!("--games {}: {e}", args.games);
    report::check_games(args.games).map_err(games_error)?;
    let pool = super::thread_pool(args.threads)?;
    let tables = super::tables(
        rules,
        super::table_paths(&args.tables),
        super::RulesFrom::Flags,
    );
    if rules.saved_rolls() && (args.lineup.is_some() || policy != Policy::Optimal) {
        bail!(yahtzee_core::tables::set::saved_rolls_only(
            &rules,
            "matches and the policies but the optimal one (--policy optimal)"
        ));
    }
    super::distinct_outputs(&[
        ("--pmf", args.report.pmf.as_deref()),
        ("--plot", args.report.plot.as_deref()),
        ("--per-box", args.per_box.as_deref()),
        ("--games-csv", args.games_csv.as_deref()),
    ])?;
    if let Some(lineup) = &args.lineup {
        return pool.install(|| run_match(args, lineup, &tables));
    }
    if args.per_box.is_some() && (args.policy.len() > 1 || rules.saved_rolls()) {
        bail!(
            "--per-box writes the games of one policy without saved rolls: give one --policy (saved rolls: leave out --per-box)"
        );
    }
    if let Some(path) = &args.per_box {
        PerBoxFormat::of(path)?;
        check_games_file("--per-box", path, args)?;
    }
    if args.policy.len() > 1 {
        return pool.install(|| run_several(args, &tables));
    }
    let (report, tally) = if rules.saved_rolls() {
        pool.install(|| saved_games(args, &tables))?
    } else {
        // (The parser of --policy refuses the policies that need opponents.)
        let player = pool.install(|| Player::new(policy, &tables))?;
        pool.install(|| games(args, &player, &tables))?
    };
    summary::write_files(
        &args.report,
        &tally,
        &report.summary,
        &format!(
            "{}: final score of {} {} games (seed {})",
            rules.label(),
            args.games,
            policy.label(),
            args.seed
        ),
        &report::Provenance::by(&tables),
    )?;
    let stamped = report::stamped_by(&report, &tables);
    super::print_result(args.report.json, &stamped, |out| {
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
        summary::write_summary(out, &report.summary, &rules)?;
        for e in &report.events {
            writeln!(
                out,
                "{}: {} of the games, 95% interval [{}, {}]",
                e.name,
                probability(e.probability),
                probability(e.interval.low),
                probability(e.interval.high)
            )?;
        }
        if let Some(t) = report.tie_convention {
            writeln!(out, "ties: {t}")?;
        }
        Ok(())
    })?;
    Ok(())
}

/// Checks, before any table is read, that a file of games (`--games-csv`, `--per-box`) may
/// be written at `path`: never over a table the games may read or build.
fn check_games_file(flag: &str, path: &Path, args: &SimulateArgs) -> Result<()> {
    let rules = args.rules.rules();
    let tables = [
        super::table_paths(&args.tables).path(&rules, TableKind::ExpectedScore),
        default_table_path_of(&rules, TARGET),
        default_table_path_of(&rules, DISTRIBUTION),
    ];
    let given = [
        &args.tables.score.target_table,
        &args.tables.distribution_table,
    ];
    let mut read: Vec<&Path> = tables.iter().map(PathBuf::as_path).collect();
    read.extend(given.iter().filter_map(|p| p.as_deref()));
    super::check_output(flag, path, &read)
}

/// How `--per-box` writes its games: by the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PerBoxFormat {
    Csv,
    Parquet,
}

impl PerBoxFormat {
    /// The format of `path` (`.csv` or `.parquet`, in any case), a one-line error for any
    /// other file name or for Parquet in a build without it.
    fn of(path: &Path) -> Result<PerBoxFormat> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("csv") => Ok(PerBoxFormat::Csv),
            Some("parquet") if cfg!(feature = "parquet") => Ok(PerBoxFormat::Parquet),
            Some("parquet") => Err(super::not_built("parquet", "--per-box FILE.parquet")),
            _ => bail!(
                "--per-box {}: the games are written as CSV or Parquet, by the file's extension: end it in .csv or .parquet",
                yahtzee_core::text::excerpt(&path.display().to_string())
            ),
        }
    }
}

/// Writes `--per-box`'s games to `path` (checked by [`PerBoxFormat::of`]), through a
/// temporary renamed into place: CSV, or Parquet with the metadata of the games
/// ([`report::per_box_meta`]).
fn write_per_box(
    path: &Path,
    per_box: &PerBox,
    policy: Policy,
    seed: u64,
    provenance: report::Provenance,
) -> Result<()> {
    let failed = |e: &dyn std::fmt::Display| anyhow!("--per-box {}: {e}", path.display());
    match PerBoxFormat::of(path)? {
        PerBoxFormat::Csv => per_box.write_csv(path).map_err(|e| failed(&e)),
        #[cfg(feature = "parquet")]
        PerBoxFormat::Parquet => {
            let meta = report::per_box_meta(per_box, policy, seed, provenance);
            yahtzee_core::files::write_file(path, |file| -> Result<()> {
                let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
                yahtzee_parquet::write(&mut out, |out| {
                    report::write_per_box_columns(per_box, &meta, out)
                })?;
                out.flush()?;
                Ok(())
            })
            .map_err(|e| failed(&e))
        }
        #[cfg(not(feature = "parquet"))]
        PerBoxFormat::Parquet => {
            let _ = (policy, seed, provenance);
            Err(super::not_built("parquet", "--per-box FILE.parquet"))
        }
    }
}

/// `--match`: the tables the lineup needs (built if missing), the games, the report.
fn run_match(args: &SimulateArgs, lineup: &Lineup, set: &TableSet) -> Result<()> {
    let rules = args.rules.rules();
    let policies = &lineup.0;
    if let Some(path) = &args.games_csv {
        check_games_file("--games-csv", path, args)?;
    }
    let needs = Needs::of(policies);
    if needs.two_player
        && (yahtzee_core::solve::two_player::check_rules(&rules).is_err() || policies.len() != 2)
    {
        // Before any table is loaded or built.
        return Err(anyhow!(
            "--match: {}",
            PlayerError::TwoPlayer {
                rules: rules.label(),
                players: policies.len(),
            }
        ));
    }
    needs.load(set)?;
    let seats = players(policies, set)?;
    let distribution = if needs.distribution {
        Some(&**set.distribution()?)
    } else {
        None
    };
    let game = Match::new(rules, seats, distribution)?;
    let labels: Vec<String> = policies.iter().map(|p| p.label()).collect();
    let bar = super::progress_bar(
        &format!("{} games of {}", labels.join(" vs "), rules.label()),
        "games",
    );
    bar.set_length(args.games);
    let record = args.games_csv.is_some();
    let played = report::play_match(&game, args.games, args.seed, record, &|done| {
        bar.set_position(done)
    });
    bar.finish_and_clear();
    let (report, tally) = played.map_err(|e| anyhow!("--games {}: {e}", args.games))?;
    if let (Some(path), Some(records)) = (&args.games_csv, &tally.records) {
        yahtzee_core::stats::matches::write_records_csv(path, policies.len(), records)
            .with_context(|| format!("cannot write --games-csv {}", path.display()))?;
    }
    let stamped = report::stamped_by(&report, set);
    super::print_result(args.report.json, &stamped, |out| {
        out.write_all(render_match(&report).as_bytes())
    })
}

/// The human report of a match: one line per seat, then how the games were played.
fn render_match(report: &MatchReport) -> String {
    let labels: Vec<String> = report.seats.iter().map(|s| s.policy.label()).collect();
    let mut s = format!(
        "{}: {} games, {}, seed {} ({:.1} s, {:.0} games/s on {} threads)\n",
        report.rules.label(),
        report.games,
        labels.join(" vs "),
        report.seed,
        report.seconds,
        report.games_per_second,
        report.threads
    );
    let width = labels.iter().map(String::len).max().unwrap_or(0).max(6);
    s.push_str(&format!(
        "{:>4}  {:<width$}  {:>8}  {:<18}  {:>7}  {:>9}  {:<20}  {:>8}\n",
        "seat", "policy", "win rate", "95% interval", "ties", "mean", "95% interval", "ms/turn"
    ));
    for (seat, label) in report.seats.iter().zip(&labels) {
        let interval = format!("[{:.4}, {:.4}]", seat.win_rate.low, seat.win_rate.high);
        let mean = format!(
            "[{:.2}, {:.2}]",
            seat.mean_interval.low, seat.mean_interval.high
        );
        s.push_str(&format!(
            "{:>4}  {:<width$}  {:>8.4}  {:<18}  {:>7}  {:>9.2}  {:<20}  {:>8.3}\n",
            seat.seat,
            label,
            seat.win_rate.share,
            interval,
            seat.ties,
            seat.mean,
            mean,
            seat.ms_per_turn
        ));
    }
    s.push_str(&format!(
        "tied games: {}\norder: {}\n",
        report.tied_games, report.order
    ));
    if let Some(model) = report.model {
        s.push_str(&format!("model of the win bots: {model}\n"));
    }
    s
}

/// `--policy A,B,...`: the games of each policy on the same dice (the same seed), one line
/// of figures each (JSON: each one's report), overlaid in one --plot.
fn run_several(args: &SimulateArgs, tables: &TableSet) -> Result<()> {
    let rules = args.rules.rules();
    if args.report.pmf.is_some() {
        bail!("--pmf writes one distribution: give --policy one policy");
    }
    let mut reports = Vec::with_capacity(args.policy.len());
    let mut curves = Vec::with_capacity(args.policy.len());
    for &policy in &args.policy {
        let player = Player::new(policy, tables)?;
        let (report, tally) =
            games(args, &player, tables).map_err(|e| anyhow!("--games {}: {e}", args.games))?;
        curves.push(Curve::new(&policy.label(), &tally, &report.summary));
        reports.push(report);
    }
    summary::plot_curves(
        &args.report,
        &curves,
        &format!(
            "{}: final score of {} games of each policy (seed {}, the same dice)",
            rules.label(),
            args.games,
            args.seed
        ),
        &report::Provenance::by(tables),
    )?;
    let stamped: Vec<_> = (reports.iter())
        .map(|r| report::stamped_by(r, tables))
        .collect();
    super::print_result(args.report.json, &stamped, |out| {
        writeln!(
            out,
            "{}: {} games of each policy, seed {} (the same dice for each)",
            rules.label(),
            args.games,
            args.seed
        )?;
        let rows: Vec<_> = (reports.iter())
            .map(|r| {
                let i = &r.mean_interval;
                let interval = format!("[{:.2}, {:.2}]", i.low, i.high);
                (r.policy.label(), &r.summary, Some(interval))
            })
            .collect();
        summary::write_comparison(out, "policy", &rows)
    })
}

/// The games of `args` played by `player`, with a progress bar.
/// The games of a game with saved rolls under the optimal policy, from the whole table of
/// saved rolls (built first when missing).
fn saved_games(args: &SimulateArgs, tables: &TableSet) -> Result<(SimulateReport, Tally)> {
    let rules = args.rules.rules();
    let table = tables.saved()?;
    let bar = super::progress_bar(
        &format!("optimal games of {} with saved rolls", rules.label()),
        "games",
    );
    bar.set_length(args.games);
    let start = std::time::Instant::now();
    let tally =
        yahtzee_core::stats::simulate::simulate_saved(&table, args.games, args.seed, &|done| {
            bar.set_position(done)
        });
    bar.finish_and_clear();
    let report = SimulateReport::of(
        &rules,
        Policy::Optimal,
        args.seed,
        &tally,
        start,
        &args.report.at_least,
    );
    Ok((report, tally))
}

fn games(
    args: &SimulateArgs,
    player: &Player<'_>,
    tables: &TableSet,
) -> Result<(SimulateReport, Tally)> {
    let games_error = |e| anyhow!("--games {}: {e}", args.games);
    let rules = args.rules.rules();
    let bar = super::progress_bar(
        &format!("{} games of {}", player.policy().label(), rules.label()),
        "games",
    );
    bar.set_length(args.games);
    let simulated = match &args.per_box {
        None => report::simulate(
            &rules,
            player,
            args.games,
            args.seed,
            &args.report.at_least,
            &|done| bar.set_position(done),
        )
        .map_err(games_error),
        Some(path) => {
            report::check_games(args.games).map_err(games_error)?;
            let start = std::time::Instant::now();
            let (tally, per_box) = yahtzee_core::stats::simulate::simulate_per_box(
                &rules,
                player,
                args.games,
                args.seed,
                &|done| bar.set_position(done),
            );
            let report = SimulateReport::of(
                &rules,
                player.policy(),
                args.seed,
                &tally,
                start,
                &args.report.at_least,
            );
            bar.finish_and_clear();
            write_per_box(
                path,
                &per_box,
                player.policy(),
                args.seed,
                report::Provenance::by(tables),
            )?;
            Ok((report, tally))
        }
    };
    bar.finish_and_clear();
    simulated
}
