//! One module per subcommand, plus what they share: the table of the rules (loaded or built,
//! with the progress bar and the warnings), the fix hints of table errors as commands that
//! work, the worker threads, the output file checks and printing a result.

pub mod advise;
pub mod completions;
pub mod export;
pub mod man;
pub mod play;
pub mod report;
pub mod review;
pub mod rules;
pub mod serve;
pub mod simulate;
pub mod solve;
pub mod stats;
pub mod verify;

use std::io::{IsTerminal, Write};
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use yahtzee_core::game::rules::Rules;
use yahtzee_core::solve::vector::{DISTRIBUTION, TARGET};
use yahtzee_core::tables::TableError;
use yahtzee_core::tables::cache::{self, Progress};
use yahtzee_core::tables::container;
use yahtzee_core::tables::expected::{
    EXPECTED_SCORE, StrategyTable, TABLE_DIR_ENV, default_table_path_of,
};
use yahtzee_core::tables::vector::VectorTable;

/// A progress bar on stderr counting `unit`s, hidden when stderr is not a terminal.
pub fn progress_bar(message: &str, unit: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(0),
        if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{msg}} [{{bar:40}}] {{pos}}/{{len}} {unit} ({{elapsed}}, {{eta}} left)"
        ))
        .expect("a valid progress template")
        .progress_chars("=> "),
    );
    bar.set_message(message.to_string());
    bar
}

/// Prints a command's result on stdout: one JSON line with `json`, else the human text that
/// `human` writes. Every command's output goes through here.
pub fn print_result<R: serde::Serialize>(
    json: bool,
    result: &R,
    human: impl FnOnce(&mut std::io::StdoutLock<'static>) -> std::io::Result<()>,
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string(result)?)?;
    } else {
        human(&mut out)?;
    }
    Ok(())
}

/// The most worker threads `--threads` takes: far above the cores of any machine this runs
/// on (more threads than cores only slow the work down, and each keeps its own scratch
/// arrays), and low enough that a typo such as `--threads 10000` is refused at once instead
/// of starting thousands of threads.
pub const MAX_THREADS: u16 = 256;

/// The worker threads of `--threads N` (absent: one per core, or `$RAYON_NUM_THREADS`).
pub fn thread_pool(threads: Option<u16>) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.map_or(0, usize::from))
        .build()
        .context("cannot start the worker threads")
}

/// Where a command takes its rules from, which decides the fix of a table of other rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RulesFrom {
    /// The `--rules` and `--upper-first` flags.
    Flags,
    /// The input itself (a game record): only the table can change.
    Input,
}

/// The table of `rules` for a command with `--rules` and `--table` (see [`load_table`]).
pub fn load_or_build(rules: &Rules, table: Option<&Path>) -> Result<StrategyTable> {
    load_table(rules, table, RulesFrom::Flags)
}

/// The table of `rules` at `--table PATH` (absent: the cache folder), built and saved first
/// when the file does not exist, with a progress bar. A table that cannot be saved still
/// serves, with a one-line warning; a table that cannot be loaded is an error whose fix is a
/// command that works.
pub fn load_table(rules: &Rules, table: Option<&Path>, from: RulesFrom) -> Result<StrategyTable> {
    let bar = progress_bar(&format!("solving {}", rules.label()), "cards");
    let loaded = cache::load_or_build(rules, table, &|p| match p {
        Progress::Building { path } => eprintln!(
            "no table for {} at {}: building it once (a second or so)",
            rules.label(),
            path.display()
        ),
        Progress::Solving { done, total } => {
            bar.set_length(total);
            bar.set_position(done);
        }
        _ => {}
    });
    bar.finish_and_clear();
    let loaded = loaded.map_err(|e| table_error(e, rules, table, from))?;
    if let Some(e) = loaded.saved() {
        let fix = match table {
            Some(_) => "give --table a path in a writable folder".to_string(),
            None => format!("set ${TABLE_DIR_ENV} to a writable folder, or pass --table PATH"),
        };
        eprintln!(
            "warning: the table was built but not saved, so it is built again next time ({e}); {fix}"
        );
    }
    Ok(loaded.table)
}

/// The target table of `rules` at `--target-table PATH` (absent: the cache folder), built
/// and saved first when the file does not exist (about a minute), with a progress bar, as
/// [`load_table`] does for the expected-score table.
pub fn load_target(rules: &Rules, table: Option<&Path>) -> Result<VectorTable<f32>> {
    load_target_for(rules, table, RulesFrom::Flags)
}

/// [`load_target`] for a command whose rules come from `from` (a game record: only the
/// table can change).
pub fn load_target_for(
    rules: &Rules,
    table: Option<&Path>,
    from: RulesFrom,
) -> Result<VectorTable<f32>> {
    load_vector(rules, TARGET, table, from, &|progress| {
        cache::load_or_build_target(rules, table, progress)
    })
}

/// The distribution table of the rules of `ev` (the chance of scoring at least `t` more
/// under expected-score play, for the opponents of win advice) at `--distribution-table
/// PATH` (absent: the cache folder), built first when missing, like [`load_target`].
pub fn load_distribution(ev: &StrategyTable, table: Option<&Path>) -> Result<VectorTable<f32>> {
    load_distribution_for(ev, table, RulesFrom::Flags)
}

/// [`load_distribution`] for a command whose rules come from `from` (a game record: only
/// the table can change).
pub fn load_distribution_for(
    ev: &StrategyTable,
    table: Option<&Path>,
    from: RulesFrom,
) -> Result<VectorTable<f32>> {
    load_vector(ev.rules(), DISTRIBUTION, table, from, &|progress| {
        cache::load_or_build_distribution(ev, table, progress)
    })
}

/// The table of the first turns of two-player play (`solve --two-player`) at
/// `--two-player-table PATH` (absent: the cache folder), solved and saved first when the
/// file does not exist (the whole game, a few minutes).
pub fn load_two_player(
    rules: &Rules,
    path: Option<&Path>,
) -> Result<yahtzee_core::tables::two_player::EarlyTable> {
    use yahtzee_core::solve::two_player::{Game, Ties};
    use yahtzee_core::tables::two_player::solve_report;
    use yahtzee_core::tables::two_player::{EarlyTable, TWO_PLAYER};
    let path = path.map(Path::to_path_buf).unwrap_or_else(|| {
        yahtzee_core::tables::expected::default_table_path_of(rules, TWO_PLAYER)
    });
    let fix = |e: TableError| {
        anyhow::anyhow!(
            "--two-player-table: {e}; rebuild it with `yahtzee solve {} --two-player --out {}`",
            rules.flags(),
            quote(&path)
        )
    };
    match EarlyTable::load(&path, rules) {
        Ok(t) => return Ok(t),
        Err(TableError::Read { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(fix(e)),
    }
    eprintln!(
        "no two-player table for {} at {}: building it once (the whole game, a few minutes)",
        rules.label(),
        path.display()
    );
    let game = Game::optimal(*rules)?;
    let bar = progress_bar(&format!("solving two-player {}", rules.label()), "pairs");
    let solved = solve_report(
        &game,
        Ties::Values,
        Some(&path),
        yahtzee_core::solve::expected::SolveOptions::default().simd,
        &|d, t| {
            bar.set_length(t);
            bar.set_position(d);
        },
    );
    bar.finish_and_clear();
    solved.map_err(|e| anyhow::anyhow!("{e}"))?;
    EarlyTable::load(&path, rules).map_err(fix)
}

/// How [`load_vector`] loads or builds a table, reporting progress.
type LoadVector<'a> = &'a dyn Fn(
    &(dyn Fn(Progress<'_>) + Sync),
) -> Result<cache::Loaded<VectorTable<f32>>, TableError>;

/// A table of a vector objective (`objective`), loaded or built with a
/// progress bar; a table built but not saved serves with a warning. `from` says where the
/// rules came from (flags or a game record), for the error's hint.
fn load_vector(
    rules: &Rules,
    objective: &str,
    table: Option<&Path>,
    from: RulesFrom,
    load: LoadVector<'_>,
) -> Result<VectorTable<f32>> {
    let flag = table_flag(objective);
    let bar = progress_bar(
        &format!("solving the {objective} table of {}", rules.label()),
        "cards",
    );
    let loaded = load(&|p| match p {
        Progress::Building { path } => eprintln!(
            "no {objective} table for {} at {}: building it once (about a minute)",
            rules.label(),
            path.display()
        ),
        Progress::Solving { done, total } => {
            bar.set_length(total);
            bar.set_position(done);
        }
        _ => {}
    });
    bar.finish_and_clear();
    let loaded = loaded.map_err(|e| table_error_of(e, rules, table, from, objective))?;
    if let Some(e) = loaded.saved() {
        let fix = match table {
            Some(_) => format!("give {flag} a path in a writable folder"),
            None => format!("set ${TABLE_DIR_ENV} to a writable folder, or pass {flag} PATH"),
        };
        eprintln!(
            "warning: the {objective} table was built but not saved, so it is built again next time ({e}); {fix}"
        );
    }
    Ok(loaded.table)
}

/// A table error of a command that uses the table of `rules` at `table` (absent: the
/// default path), with the fix as a command that works.
pub fn table_error(
    e: TableError,
    rules: &Rules,
    table: Option<&Path>,
    from: RulesFrom,
) -> anyhow::Error {
    table_error_of(e, rules, table, from, EXPECTED_SCORE)
}

/// The flag that names the table file of `objective`.
fn table_flag(objective: &str) -> &'static str {
    match objective {
        TARGET => "--target-table",
        DISTRIBUTION => "--distribution-table",
        _ => "--table",
    }
}

/// [`table_error`] for the table of `objective` (`expected-score`, `target`, `distribution`).
pub fn table_error_of(
    e: TableError,
    rules: &Rules,
    table: Option<&Path>,
    from: RulesFrom,
    objective: &str,
) -> anyhow::Error {
    let path = table.map_or_else(
        || default_table_path_of(rules, objective),
        Path::to_path_buf,
    );
    let flag = table_flag(objective);
    let kind = if objective == EXPECTED_SCORE {
        String::new()
    } else {
        format!(" --objective {objective}")
    };
    let solve = |rules: &Rules| match table {
        Some(p) => format!("yahtzee solve {}{kind} --out {}", rules.flags(), quote(p)),
        None => format!("yahtzee solve {}{kind}", rules.flags()),
    };
    let fix = match &e {
        // A file of our own name in our own folder may be replaced; a file the user named
        // that is not a table at all may be anything, and is not.
        TableError::Magic { .. } if table.is_none() => {
            format!("rebuild it with `{}`", solve(rules))
        }
        _ if e.needs_rebuild() => format!("rebuild it with `{}`", solve(rules)),
        TableError::WrongRules {
            found: Some(found), ..
        } if from == RulesFrom::Flags => format!(
            "pass `{}` to use this one, or drop {flag} to use the default table of {}",
            found.flags(),
            rules.label()
        ),
        TableError::WrongRules { .. } => format!(
            "drop {flag} to use the default table of {} (built if missing), or give {flag} a path where no file exists yet, to build it there",
            rules.label(),
        ),
        TableError::Write { .. } => {
            format!("choose a writable place with --out PATH or ${TABLE_DIR_ENV}")
        }
        TableError::WrongObjective { .. } => match table {
            Some(_) => format!(
                "give the {objective} table, or a path where no file exists yet, to build it there"
            ),
            None => format!("rebuild it with `{}`", solve(rules)),
        },
        TableError::Magic { .. } | TableError::Read { .. } => match table {
            Some(_) => format!(
                "give {flag} a strategy table file, or a path where no file exists yet, to build one there"
            ),
            None => format!(
                "move {} away and the next command builds the table again",
                quote(&path)
            ),
        },
        _ => return e.into(),
    };
    anyhow!("{e}; {fix}")
}

/// `path` as a shell word: as is when it has only safe characters, else in single quotes.
pub fn quote(path: &Path) -> String {
    let text = path.display().to_string();
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+=:,@%~".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Checks an output path given with `flag` before any long computation (see
/// [`container::check_output`]); `tables` are the tables the command reads or builds.
pub fn check_output(flag: &str, path: &Path, tables: &[&Path]) -> Result<()> {
    container::check_output(path, tables).map_err(|e| anyhow!("{flag}: {e}"))
}
