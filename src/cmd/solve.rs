//! `yahtzee solve`: solve a rule set and save its table.

use std::io::Write;

use anyhow::Result;

use super::RulesFrom;
use crate::cli::SolveArgs;
use yahtzee::report;
use yahtzee::table::default_table_path;

pub fn run(args: &SolveArgs) -> Result<()> {
    let rules = args.rules.rules();
    let pool = super::thread_pool(args.threads)?;
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| default_table_path(&rules));
    let bar = super::progress_bar(&format!("solving {}", rules.label()), "cards");
    let solved = pool.install(|| {
        report::solve(&rules, &path, &|done, total| {
            bar.set_length(total);
            bar.set_position(done);
        })
    });
    bar.finish_and_clear();
    let (report, _) =
        solved.map_err(|e| super::table_error(e, &rules, args.out.as_deref(), RulesFrom::Flags))?;
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
