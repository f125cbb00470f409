//! `yahtzee stats`: the exact distribution of the final score under optimal play.

use std::io::Write;

use anyhow::Result;

use super::report as summary;
use crate::cli::StatsArgs;
use yahtzee::report;
use yahtzee::table::default_table_path;

pub fn run(args: &StatsArgs) -> Result<()> {
    let rules = args.rules.rules();
    let table_path = args
        .table
        .clone()
        .unwrap_or_else(|| default_table_path(&rules));
    summary::check(&args.report, &table_path)?;
    let pool = super::thread_pool(args.threads)?;
    let table = pool.install(|| super::load_or_build(&rules, args.table.as_deref()))?;
    let bar = super::progress_bar(&format!("distribution of {}", rules.label()), "turns");
    let (report, tally) = pool.install(|| {
        report::stats(&table, &args.report.at_least, &|done, total| {
            bar.set_length(total);
            bar.set_position(done);
        })
    });
    bar.finish_and_clear();
    summary::write_files(
        &args.report,
        &tally,
        &format!("{}: final score under optimal play (exact)", rules.label()),
    )?;
    super::print_result(args.report.json, &report, |out| {
        writeln!(
            out,
            "{}: exact distribution of the final score under optimal play (solver mean {:.10}; {:.1} s on {} threads)",
            rules.label(),
            report.solver_mean,
            report.seconds,
            report.threads
        )?;
        summary::write_summary(out, &report.summary)?;
        writeln!(out, "ties: {}", report.tie_convention)?;
        Ok(())
    })?;
    Ok(())
}
