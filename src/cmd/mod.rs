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
#[cfg(feature = "serve")]
pub mod serve;
pub mod simulate;
pub mod solve;
pub mod stats;
pub mod verify;

use std::io::{IsTerminal, Write};
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use std::sync::{Arc, Mutex};
use yahtzee_core::game::rules::Rules;
use yahtzee_core::solve::vector::{DISTRIBUTION, TARGET};
use yahtzee_core::tables::container;
use yahtzee_core::tables::two_player::TWO_PLAYER;

use yahtzee_core::tables::expected::EXPECTED_SCORE;
use yahtzee_core::tables::{TABLE_DIR_ENV, default_table_path_of};

use crate::cli::{ScoreTableArgs, TableArgs};

use yahtzee_core::tables::TableError;
use yahtzee_core::tables::set::{Event, Observer, TableKind, TablePaths, TableSet};

/// Where the tables of a command's table flags are ([`TableArgs`]: `--table`,
/// `--target-table`, `--distribution-table`, `--two-player-table`).
pub fn table_paths(args: &TableArgs) -> TablePaths {
    TablePaths {
        distribution: args.distribution_table.clone(),
        two_player: args.two_player_table.clone(),
        ..score_table_paths(&args.score)
    }
}

/// Where the tables of `--table` and `--target-table` are ([`ScoreTableArgs`]).
pub fn score_table_paths(args: &ScoreTableArgs) -> TablePaths {
    TablePaths {
        expected_score: args.table.clone(),
        target: args.target_table.clone(),
        ..TablePaths::default()
    }
}

/// The error of a part this binary was built without: `what` needs the cargo feature
/// `feature` (see `[features]` in Cargo.toml).
pub fn not_built(feature: &str, what: &str) -> anyhow::Error {
    anyhow!(
        "{what} is not in this build of yahtzee: build it with `cargo install --path . --features {feature}` (or `--features full` for every part)"
    )
}

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
    shown_bars().push(bar.downgrade());
    bar
}

/// Runs `work` under a [`progress_bar`] of `message` counting `unit`s, handing it the
/// `(done, total)` callback the library's long computations take; the bar is cleared at the
/// end.
pub fn with_progress<T>(
    message: &str,
    unit: &str,
    work: impl FnOnce(&(dyn Fn(u64, u64) + Sync)) -> T,
) -> T {
    let bar = progress_bar(message, unit);
    let done = work(&|done, total| {
        bar.set_length(total);
        bar.set_position(done);
    });
    bar.finish_and_clear();
    done
}

/// The bars made by [`progress_bar`], for [`leave_bars`].
fn shown_bars() -> std::sync::MutexGuard<'static, Vec<indicatif::WeakProgressBar>> {
    static BARS: Mutex<Vec<indicatif::WeakProgressBar>> = Mutex::new(Vec::new());
    BARS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Leaves every bar still drawn as it stands, its line ended: what an interrupted command
/// does before it exits, so that the shell's prompt starts on a line of its own.
pub fn leave_bars() {
    let mut drawn = false;
    for bar in shown_bars().drain(..).filter_map(|b| b.upgrade()) {
        if !bar.is_finished() && !bar.is_hidden() {
            bar.abandon();
            // indicatif redraws a finished bar on every update, so a worker still counting
            // would draw it again after the line's end: it draws nowhere from here on.
            bar.set_draw_target(ProgressDrawTarget::hidden());
            drawn = true;
        }
    }
    if drawn {
        // The bar's line is left open by indicatif: end it.
        let _ = writeln!(std::io::stderr());
    }
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

/// Checks `$RAYON_NUM_THREADS`, which sizes the worker threads of a command without
/// `--threads`, as `--threads` is checked: 1 to [`crate::values::MAX_THREADS`] (or unset).
pub fn check_thread_env() -> Result<()> {
    let Some(value) = std::env::var_os("RAYON_NUM_THREADS") else {
        return Ok(());
    };
    crate::values::parse_threads(&value.to_string_lossy())
        .map(drop)
        .map_err(|e| {
            anyhow!(
                "$RAYON_NUM_THREADS: {}",
                e.replace("leave --threads out", "unset it")
            )
        })
}

/// Checks `$YAHTZEE_MEMORY_GIB`, the memory this program may use
/// ([`yahtzee_core::memory::memory_gib`]): a number of GiB above 0 (or unset).
pub fn check_memory_env() -> Result<()> {
    use yahtzee_core::memory::{MEMORY_ENV, memory_gib};
    let Some(value) = std::env::var_os(MEMORY_ENV) else {
        return Ok(());
    };
    memory_gib(&value.to_string_lossy())
        .map(drop)
        .map_err(|e| anyhow!("${MEMORY_ENV}: {e}: fix it or unset it"))
}

/// Checks `$YAHTZEE_SIMD`, the kernel's instruction set for benchmarks (see
/// [`yahtzee_core::solve::simd::Simd::detect`]): one this processor has (or unset).
pub fn check_simd_env() -> Result<()> {
    use yahtzee_core::solve::simd::{SIMD_ENV, Simd};
    Simd::from_env()
        .map(drop)
        .map_err(|e| anyhow!("${SIMD_ENV}: {e}: fix it or unset it"))
}

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

/// The tables of a command on `rules` at the `--table` paths of its flags, each loaded or
/// built the first time the command asks for it: a table being built shows a progress bar
/// (when stderr is a terminal), a table built but not saved serves with a one-line warning,
/// and a table that cannot be loaded is an error whose fix is a command that works (`from`:
/// where the rules came from, which decides that fix).
pub fn tables(rules: Rules, paths: TablePaths, from: RulesFrom) -> TableSet {
    TableSet::new(
        rules,
        paths,
        Arc::new(Terminal {
            from,
            bar: Mutex::new(None),
        }),
    )
}

/// [`tables`] for a command whose only table flag is `--table`, with the rules of its flags.
pub fn tables_at(rules: Rules, table: Option<&Path>) -> TableSet {
    let paths = TablePaths {
        expected_score: table.map(Path::to_path_buf),
        ..TablePaths::default()
    };
    tables(rules, paths, RulesFrom::Flags)
}

/// How a command's tables are reported on the terminal.
struct Terminal {
    from: RulesFrom,
    /// The bar of the table being built.
    bar: Mutex<Option<ProgressBar>>,
}

impl Terminal {
    fn bar(&self) -> std::sync::MutexGuard<'_, Option<ProgressBar>> {
        self.bar.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The words of a table in messages: `table` for the expected-score one, else `target
/// table`, ...
fn table_words(kind: TableKind) -> String {
    match kind {
        TableKind::ExpectedScore => "table".to_string(),
        TableKind::Theta(theta) => format!("θ = {theta} table"),
        other => format!("{} table", other.name()),
    }
}

impl Observer for Terminal {
    fn report(&self, rules: &Rules, kind: TableKind, event: Event<'_>) {
        match event {
            Event::Building { path } => {
                note!(
                    "no {} for {} at {}: building it once ({})",
                    table_words(kind),
                    rules.label(),
                    path.display(),
                    kind.build_cost(rules)
                );
                let (message, unit) = match kind {
                    TableKind::ExpectedScore => (format!("solving {}", rules.label()), "cards"),
                    TableKind::TwoPlayer => {
                        (format!("solving two-player {}", rules.label()), "pairs")
                    }
                    other => (
                        format!("solving the {} table of {}", other.name(), rules.label()),
                        "cards",
                    ),
                };
                *self.bar() = Some(progress_bar(&message, unit));
            }
            Event::Solving { done, total } => {
                if let Some(bar) = &*self.bar() {
                    bar.set_length(total);
                    bar.set_position(done);
                }
            }
            Event::Built => {
                if let Some(bar) = self.bar().take() {
                    bar.finish_and_clear();
                }
            }
            Event::NotSaved { error, given } => {
                let flag = table_flag(kind.name());
                let fix = if given {
                    format!("give {flag} a path in a writable folder")
                } else {
                    format!("set ${TABLE_DIR_ENV} to a writable folder, or pass {flag} PATH")
                };
                note!(
                    "warning: the {} was built but not saved, so it is built again next time ({error}); {fix}",
                    table_words(kind)
                );
            }
            _ => {}
        }
    }

    fn explain(
        &self,
        error: TableError,
        rules: &Rules,
        kind: TableKind,
        path: Option<&Path>,
    ) -> String {
        if kind == TableKind::TwoPlayer {
            let path = path.map_or_else(
                || default_table_path_of(rules, kind.name()),
                Path::to_path_buf,
            );
            return format!(
                "--two-player-table: {}; rebuild it with `yahtzee solve {} --two-player --out {}`",
                error.problem(),
                rules.flags(),
                quote(&path)
            );
        }
        table_error_of(error, rules, path, self.from, kind.name()).to_string()
    }
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
        TWO_PLAYER => "--two-player-table",
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
        // The default file of these rules holds another's (copied there by hand): the
        // command's own file, rebuilt in place.
        TableError::WrongRules { .. } if table.is_none() => {
            format!("rebuild it with `{}`", solve(rules))
        }
        TableError::WrongRules {
            found: Some(found), ..
        } if from == RulesFrom::Flags => format!(
            "use `{}` instead of `{}` to use this one, or drop {flag} to use the default table of {}",
            found.flags(),
            rules.flags(),
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
    // The problem in the core's words, then this fix alone (not the core's in words too).
    anyhow!("{}; {fix}", e.problem())
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

/// Refuses two output flags naming one file (the second would replace the first): `files` are
/// the flags and the paths given.
pub fn distinct_outputs(files: &[(&str, Option<&Path>)]) -> Result<()> {
    let given: Vec<(&str, &Path)> = files.iter().filter_map(|&(f, p)| Some((f, p?))).collect();
    for (i, &(a, p)) in given.iter().enumerate() {
        for &(b, q) in &given[i + 1..] {
            if yahtzee_core::files::same_file(p, q) {
                bail!(
                    "{a} and {b} both name {}: give each its own file",
                    p.display()
                );
            }
        }
    }
    Ok(())
}

/// The refusal of `--saved` (`advise`, `export`) in a game that does not keep unused rolls.
pub fn no_saved_rolls(rules: &Rules) -> anyhow::Error {
    anyhow!(
        "--saved is the rolls saved in a game that keeps unused rolls for later turns, and {} does not (saved_rolls = true in a rules file): leave out --saved",
        rules.label()
    )
}
