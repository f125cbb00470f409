//! `yahtzee verify PATH`: check a table file and say what it holds.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;

use crate::cli::VerifyArgs;
use yahtzee::table::{FORMAT_VERSION, StrategyTable};

/// What a verified table holds.
#[derive(Serialize)]
struct VerifyReport {
    /// The file checked.
    path: String,
    /// Rule set name.
    rules: String,
    /// True under `--upper-first`.
    upper_first: bool,
    /// File format version.
    format_version: u32,
    /// Value type.
    value_type: String,
    /// Number of values stored.
    entries: u64,
    /// CRC-32 of the values, as checked.
    checksum: String,
    /// Reachable turn-start states of these rules.
    states: u64,
    /// Expected final score of an empty card.
    expected_score: f64,
}

pub fn run(args: &VerifyArgs) -> Result<()> {
    let (header, table) = StrategyTable::open(&args.path)?;
    let report = VerifyReport {
        path: args.path.display().to_string(),
        rules: header.rules.clone(),
        upper_first: header.upper_first,
        format_version: FORMAT_VERSION,
        value_type: header.value_type.clone(),
        entries: header.entries,
        checksum: format!("{:08x}", header.checksum),
        states: table.states(),
        expected_score: table.expected_score(),
    };
    super::print_result(args.json, &report, |out| {
        writeln!(
            out,
            "ok: {} holds the {} table (format v{}, {} {} values, crc32 {}), expected score {:.10}",
            report.path,
            table.rules().label(),
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
