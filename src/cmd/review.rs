//! `yahtzee review GAME`: price every decision of a saved game. The work is
//! [`yahtzee::review`]; this reads the file, loads the table of its rules and prints.

use std::io::Write;

use anyhow::{Context, Result};

use crate::cli::ReviewArgs;
use yahtzee::review::{GameRecord, render_review, review};

pub fn run(args: &ReviewArgs) -> Result<()> {
    let path = &args.game;
    let bytes = std::fs::read(path)
        .with_context(|| format!("cannot read the game record {}", path.display()))?;
    let record = GameRecord::parse(&bytes).with_context(|| format!("{}", path.display()))?;
    if let Some(line) = record.cut_off {
        eprintln!(
            "warning: {} ends early: line {line} is cut off (the game's writing stopped there); reviewing the {} lines before it",
            path.display(),
            line - 1
        );
    }
    let rules = record.game.rules();
    // The rules come from the record: a table of other rules is fixed by the table alone.
    let table = super::load_table(&rules, args.table.as_deref(), super::RulesFrom::Input)?;
    let report = review(&table, &record)?;
    super::print_result(args.json, &report, |out| {
        out.write_all(render_review(&report).as_bytes())?;
        Ok(())
    })?;
    Ok(())
}
