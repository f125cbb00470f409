//! `yahtzee verify PATH`: check a table file and say what it holds.

use std::io::Write;

use anyhow::{Result, anyhow};

use crate::cli::VerifyArgs;
use yahtzee::report::{self, Verified};
use yahtzee::table::{TableError, read_header};
use yahtzee::vector::TARGET;

pub fn run(args: &VerifyArgs) -> Result<()> {
    let report = match report::verify_any(&args.path).map_err(|e| verify_error(e, args))? {
        Verified::ExpectedScore(r) => r,
        Verified::Target(r) => {
            return super::print_result(args.json, &r, |out| {
                write!(out, "ok: ")?;
                super::solve::write_target(out, &r)
            });
        }
    };
    super::print_result(args.json, &report, |out| {
        writeln!(
            out,
            "ok: {} holds the {} table (format v{}, {} {} values, crc32 {}), expected score {:.10}",
            report.path,
            report.rules.label(),
            report.format_version,
            report.entries,
            report.value_type,
            report.checksum,
            report.expected_score
        )?;
        Ok(())
    })?;
    Ok(())
}

/// The error with its fix: the command that builds the table again at the same path, for the
/// rules its header names when it can still be read.
fn verify_error(e: TableError, args: &VerifyArgs) -> anyhow::Error {
    if !e.needs_rebuild() {
        // Not a table at all, or a folder: the message says so, and there is nothing to build.
        return e.into();
    }
    let header = std::fs::read(&args.path)
        .ok()
        .and_then(|bytes| read_header(&bytes).ok());
    let known = header.as_ref().and_then(|h| h.rules());
    let objective = match header {
        Some(h) if h.objective == TARGET => " --objective target",
        _ => "",
    };
    let out = super::quote(&args.path);
    match known {
        Some(rules) => anyhow!(
            "{e}; rebuild it with `yahtzee solve {}{objective} --out {out}`",
            rules.flags()
        ),
        None => anyhow!(
            "{e}; build it with `yahtzee solve --out {out}` (the official rules; add --rules R for others)"
        ),
    }
}
