//! `yahtzee solve`: solve a rule set and save its table.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::Arc;

use anyhow::Result;

use super::RulesFrom;
use crate::cli::{ObjectiveArg, PlayerArg, SolveArgs};
use yahtzee_core::report::{self, TargetReport};
use yahtzee_core::solve::two_player::Ties;
use yahtzee_core::solve::vector::{DISTRIBUTION, TARGET, VectorObjective};
use yahtzee_core::tables::expected::{EXPECTED_SCORE, StrategyTable};
use yahtzee_core::tables::set::{Need, TableKind, check_fits_need};
use yahtzee_core::tables::vector::VectorTable;
use yahtzee_core::tables::{default_table_path, default_table_path_of};
use yahtzee_core::text::chance;
use yahtzee_core::{Rules, State};

pub fn run(args: &SolveArgs) -> Result<()> {
    let rules = args.rules.rules();
    let pool = super::thread_pool(args.threads)?;
    if rules.saved_rolls() {
        return run_saved(args, rules, &pool);
    }
    // A table that would not fit in memory is refused before anything is solved.
    let kind = match (args.two_player, args.objective) {
        (true, _) => TableKind::TwoPlayer,
        (false, ObjectiveArg::Target) => TableKind::Target,
        (false, ObjectiveArg::Distribution) => TableKind::Distribution,
        (false, _) => TableKind::ExpectedScore,
    };
    let need = match kind {
        TableKind::TwoPlayer if args.ties => Need::two_player(&rules, Ties::Carried),
        _ => kind.need(&rules),
    };
    check_fits_need(&rules, kind, &need).map_err(anyhow::Error::msg)?;
    check_out(args.out.as_deref(), &rules, kind.name())?;
    // What the solve will take, beside its bar: for a person at a terminal, and for every
    // solve of more than a few seconds or a GiB.
    if std::io::stderr().is_terminal() || need.cpu_seconds > 10.0 || need.build_memory > 1 << 30 {
        note!(
            "solving the {} table of {}: {}",
            kind.name(),
            rules.label(),
            need.words()
        );
    }
    if args.two_player {
        return run_two_player(args, rules, &pool);
    }
    if args.curve.is_some() && args.objective == ObjectiveArg::ExpectedScore {
        anyhow::bail!(
            "--curve is the target or distribution table's: add --objective target or --objective distribution"
        );
    }
    if args.objective != ObjectiveArg::ExpectedScore {
        return run_vector(args, rules, &pool);
    }
    check_out(args.out.as_deref(), &rules, EXPECTED_SCORE)?;
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| default_table_path(&rules));
    let solved = super::with_progress(&format!("solving {}", rules.label()), "cards", |p| {
        pool.install(|| report::solve(&rules, &path, p))
    });
    let (report, table) =
        solved.map_err(|e| super::table_error(e, &rules, args.out.as_deref(), RulesFrom::Flags))?;
    let stamped = report::stamped(&report, Some(&table));
    super::print_result(args.json, &stamped, |out| {
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

/// `solve` of a game with saved rolls: the exact expected score from the start, every
/// reachable state solved, two depths held at a time, each written to the table of saved
/// rolls as it is solved (`--out`, else its default path).
fn run_saved(args: &SolveArgs, rules: Rules, pool: &rayon::ThreadPool) -> Result<()> {
    use yahtzee_core::solve::expected::SolveOptions;
    use yahtzee_core::solve::saved::peak_bytes;
    use yahtzee_core::tables::saved::{SAVED_EXPECTED_SCORE, SavedTable, saved_value_count};
    if args.two_player || args.objective != ObjectiveArg::ExpectedScore {
        anyhow::bail!(
            "{} keeps unused rolls for later turns (saved_rolls = true): it is solved for the expected score alone; leave out --objective and --two-player",
            rules.label()
        );
    }
    check_out(args.out.as_deref(), &rules, SAVED_EXPECTED_SCORE)?;
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| default_table_path(&rules));
    let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
    // Two depths of values, a row per number of rolls saved, and the program beside them.
    let peak = peak_bytes(&rules) + yahtzee_core::tables::set::BASE_MEMORY;
    yahtzee_core::memory::check(
        peak,
        &format!(
            "solving {} with saved rolls (two depths of its cards, a row per number of rolls saved)",
            rules.label()
        ),
    )
    .map_err(anyhow::Error::msg)?;
    let file = 8 * saved_value_count(&rules);
    note!(
        "solving {} with saved rolls: up to {:.1} GiB of memory, a table of {:.1} GiB",
        rules.label(),
        gib(peak),
        gib(file)
    );
    let built = super::with_progress(&format!("solving {}", rules.label()), "cards", |p| {
        pool.install(|| SavedTable::build(&path, &rules, SolveOptions::default(), p))
    });
    let built =
        built.map_err(|e| super::table_error(e, &rules, args.out.as_deref(), RulesFrom::Flags))?;
    let solved = &built.solution;
    #[derive(serde::Serialize)]
    struct SavedReport {
        rules: String,
        saved_rolls: bool,
        expected_score: f64,
        states: u64,
        peak_value_bytes: u64,
        table_bytes: u64,
        seconds: f64,
        threads: usize,
        path: String,
    }
    let report = SavedReport {
        rules: rules.label(),
        saved_rolls: true,
        expected_score: solved.expected_score,
        states: solved.states,
        peak_value_bytes: solved.peak_bytes,
        table_bytes: built.bytes,
        seconds: solved.seconds,
        threads: pool.current_num_threads(),
        path: path.display().to_string(),
    };
    super::print_result(args.json, &report, |out| {
        writeln!(
            out,
            "{} (saved rolls): expected score {:.10}, {} states, solved in {:.3} s on {} threads, {:.2} GiB of values at most, table {} ({:.2} GiB)",
            report.rules,
            report.expected_score,
            report.states,
            report.seconds,
            report.threads,
            gib(report.peak_value_bytes),
            report.path,
            gib(report.table_bytes),
        )
    })?;
    Ok(())
}

/// `solve --objective target|distribution`: solves the table and saves it; with `--curve`, a
/// sound table already at its path is read instead (the curve is the table's), and only an
/// absent, stale or damaged one is solved.
fn run_vector(args: &SolveArgs, rules: Rules, pool: &rayon::ThreadPool) -> Result<()> {
    let name = match args.objective {
        ObjectiveArg::Distribution => DISTRIBUTION,
        _ => TARGET,
    };
    check_out(args.out.as_deref(), &rules, name)?;
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| default_table_path_of(&rules, name));
    if let Some(curve) = &args.curve {
        super::check_output("--curve", curve, &[&path])?;
    }
    // The distribution follows the expected-score table's policy (built if missing): its
    // result names that table's checksum, read or solved.
    let ev = match name {
        DISTRIBUTION => Some(super::tables_at(rules, None).ev()?.clone()),
        _ => None,
    };
    let read = match args.curve {
        Some(_) => read_existing(&rules, name, &path),
        None => None,
    };
    let (report, table) = match read {
        Some(read) => read,
        None => solve_vector(args, rules, ev.clone(), &path, pool)?,
    };
    if let Some(curve) = &args.curve {
        let mut text = String::from(if name == TARGET {
            "target,p_reach\n"
        } else {
            "target,p_at_least\n"
        });
        for (t, p) in table.curve(&State::START)?.iter().enumerate() {
            text.push_str(&format!("{t},{p}\n"));
        }
        yahtzee_core::files::write_atomically(curve, text.as_bytes())
            .map_err(|e| anyhow::anyhow!("cannot write --curve {}: {e}", curve.display()))?;
    }
    super::print_result(args.json, &report::stamped(&report, ev.as_deref()), |out| {
        write_target(out, &report)
    })
}

/// The table of `name` already at `path`, read rather than solved again, or `None` when
/// there is none, or when it cannot be read (stale or damaged: said on stderr, and solved
/// again).
fn read_existing(
    rules: &Rules,
    name: &'static str,
    path: &Path,
) -> Option<(TargetReport, VectorTable<f32>)> {
    // `symlink_metadata` rather than `exists`: a dangling link is a file that is there.
    path.symlink_metadata().ok()?;
    match report::read_vector(rules, name, path) {
        Ok(read) => {
            note!(
                "read the {name} table already at {} (delete it to solve it again)",
                path.display()
            );
            Some(read)
        }
        Err(e) => {
            note!("warning: {e}: solving the {name} table again");
            None
        }
    }
}

/// Solves the distribution table of the expected-score table `ev`, or without it the target
/// table, and saves it at `path`, with a progress bar.
fn solve_vector(
    args: &SolveArgs,
    rules: Rules,
    ev: Option<Arc<StrategyTable>>,
    path: &Path,
    pool: &rayon::ThreadPool,
) -> Result<(TargetReport, VectorTable<f32>)> {
    let objective = match ev {
        Some(ev) => VectorObjective::distribution(ev),
        None => VectorObjective::target(rules),
    };
    let name = objective.name;
    let solved = super::with_progress(
        &format!("solving the {name} table of {}", rules.label()),
        "cards",
        |p| pool.install(|| report::solve_vector(&objective, path, p)),
    );
    solved
        .map_err(|e| super::table_error_of(e, &rules, args.out.as_deref(), RulesFrom::Flags, name))
}

/// The human summary of a target table.
pub fn write_target(out: &mut dyn Write, report: &TargetReport) -> std::io::Result<()> {
    let reach: Vec<String> = report
        .reach
        .iter()
        .map(|r| {
            format!(
                ">={}: {}",
                r.target,
                chance(r.p_reach, r.reachable, report.tail)
            )
        })
        .collect();
    let time = match (report.seconds, report.threads) {
        (Some(s), Some(t)) => format!(", solved in {s:.1} s on {t} threads"),
        _ => String::new(),
    };
    writeln!(
        out,
        "{}: {} table, {} states, {} values{time}, table {}",
        report.rules.label(),
        report.objective,
        report.states,
        report.values,
        report.path
    )?;
    let what = if report.objective == TARGET {
        "best chance from an empty card"
    } else {
        "chance under expected-score play from an empty card"
    };
    writeln!(out, "{what}  {}", reach.join("  "))
}

/// Refuses an `--out` in a missing folder or that is not a regular file (as every output),
/// or that holds a table of other rules or another objective than the one about to be
/// solved, before any work: a solve replaces a table of its own kind (a stale or damaged
/// one), never another (`--out yahtzee.v4.table` by mistake in a yacht solve).
fn check_out(out: Option<&Path>, rules: &Rules, objective: &str) -> Result<()> {
    let Some(path) = out else {
        return Ok(());
    };
    yahtzee_core::files::check_folder_of(path)
        .and_then(|()| yahtzee_core::files::output_path(path).map(drop))
        .map_err(|e| anyhow::anyhow!("cannot write --out {}: {e}", path.display()))?;
    let Some(header) = yahtzee_core::tables::container::header_of_file(path) else {
        return Ok(());
    };
    if header.is_of(rules) && header.objective == objective {
        return Ok(());
    }
    let held = header.rules_label();
    anyhow::bail!(
        "--out {} holds the {} table of {held}, which a solve of the {objective} table of {} never replaces: give another --out, or delete that file first",
        path.display(),
        header.objective,
        rules.label()
    )
}

/// `solve --two-player`: the exact game of two, reported from a new game.
fn run_two_player(
    args: &SolveArgs,
    rules: yahtzee_core::Rules,
    pool: &rayon::ThreadPool,
) -> Result<()> {
    use yahtzee_core::solve::two_player::{Game, Player, check_rules};
    use yahtzee_core::tables::two_player::solve_report;
    check_rules(&rules)?;
    let player = |arg: PlayerArg| -> Result<Player> {
        Ok(match arg {
            PlayerArg::Optimal => Player::Optimal,
            PlayerArg::Ev => Player::Expected(super::tables_at(rules, None).ev()?.clone()),
        })
    };
    let game = Game::new(rules, player(args.first)?, player(args.second)?)?;
    // The table of the first turns is of optimal play only.
    let both_optimal = args.first == PlayerArg::Optimal && args.second == PlayerArg::Optimal;
    if args.out.is_some() && !both_optimal {
        anyhow::bail!(
            "--out saves the table of optimal play: drop --out, or play both --first and --second optimal"
        );
    }
    check_out(
        args.out.as_deref(),
        &rules,
        yahtzee_core::tables::two_player::TWO_PLAYER,
    )?;
    let path = both_optimal.then(|| {
        args.out.clone().unwrap_or_else(|| {
            default_table_path_of(&rules, yahtzee_core::tables::two_player::TWO_PLAYER)
        })
    });
    let bar = super::progress_bar(&format!("solving two-player {}", rules.label()), "pairs");
    let report = pool.install(|| {
        solve_report(
            &game,
            if args.ties {
                Ties::Carried
            } else {
                Ties::Values
            },
            path.as_deref(),
            yahtzee_core::solve::expected::SolveOptions::default().simd,
            &|done, total| {
                bar.set_length(total);
                bar.set_position(done);
            },
        )
    });
    bar.finish_and_clear();
    let report = report.map_err(|e| anyhow::anyhow!("{e}"))?;
    super::print_result(args.json, &report::stamped(&report, None), |out| {
        writeln!(
            out,
            "{} for two, first player {} against second player {}: first player wins (plus half the ties) {:.7}, second {:.7}",
            report.rules.label(),
            report.first,
            report.second,
            report.first_value,
            report.second_value
        )?;
        if let (Some(first), Some(second), Some(tie)) =
            (report.first_wins, report.second_wins, report.tie)
        {
            writeln!(
                out,
                "first player wins {first:.7}, second player wins {second:.7}, tie {tie:.7}"
            )?;
        }
        writeln!(
            out,
            "{} pairs of cards, {} values, peak {:.2} GiB, solved in {:.1} s on {} threads",
            report.pairs,
            report.values,
            report.peak_bytes as f64 / f64::from(1u32 << 30),
            report.seconds,
            report.threads
        )?;
        if let (Some(table), Some(bytes)) = (&report.table, report.table_bytes) {
            writeln!(
                out,
                "the first {} turns saved to {table} ({:.0} MiB)",
                yahtzee_core::tables::two_player::EARLY_PLIES,
                bytes as f64 / f64::from(1u32 << 20)
            )?;
        }
        Ok(())
    })
}
