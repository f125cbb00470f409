//! `yahtzee verify PATH`: check a table file and say what it holds.

use std::io::Write;

use anyhow::{Result, anyhow};

use crate::cli::VerifyArgs;
use yahtzee::report;
use yahtzee::table::{TableError, read_header};

pub fn run(args: &VerifyArgs) -> Result<()> {
    let report = report::verify(&args.path).map_err(|e| verify_error(e, args))?;
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
    let known = std::fs::read(&args.path)
        .ok()
        .and_then(|bytes| read_header(&bytes).ok())
        .and_then(|h| h.rules());
    let out = super::quote(&args.path);
    match known {
        Some(rules) => anyhow!(
            "{e}; rebuild it with `yahtzee solve {} --out {out}`",
            rules.flags()
        ),
        None => anyhow!(
            "{e}; build it with `yahtzee solve --out {out}` (the official rules; add --rules R for others)"
        ),
    }
}
