//! One module per subcommand, plus what they share: finding, loading or building a table, and
//! the progress bar.

pub mod advise;
pub mod export;
pub mod play;
pub mod report;
pub mod review;
pub mod rules;
pub mod simulate;
pub mod solve;
pub mod stats;
pub mod verify;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use yahtzee::rules::Rules;
use yahtzee::solver::SolveOptions;
use yahtzee::table::{StrategyTable, default_table_path};

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

/// Solves `rules` with a progress bar.
pub fn solve_with_progress(rules: &Rules) -> (StrategyTable, f64) {
    let bar = progress_bar(&format!("solving {}", rules.label()), "cards");
    let (table, seconds) = StrategyTable::solve(rules, SolveOptions::default(), &|done, total| {
        bar.set_length(total);
        bar.set_position(done);
    });
    bar.finish_and_clear();
    (table, seconds)
}

/// The table of `rules` at `path` (default: the cache folder), built and saved first when the
/// file does not exist.
pub fn load_or_build(rules: &Rules, path: Option<&Path>) -> Result<StrategyTable> {
    let path: PathBuf = path.map_or_else(|| default_table_path(rules), Path::to_path_buf);
    if path.exists() {
        return Ok(StrategyTable::load(&path, rules)?);
    }
    eprintln!(
        "no table for {} at {}: building it once (a second or so)",
        rules.label(),
        path.display()
    );
    let (table, _) = solve_with_progress(rules);
    table.save(&path)?;
    Ok(table)
}
