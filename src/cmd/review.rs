//! `yahtzee review GAME`: price every decision of a saved game. The work is
//! [`yahtzee::review`]; this reads the file, loads the table of its rules and prints.

use std::io::Write;

use anyhow::{Context, Result, anyhow};

use crate::cli::ReviewArgs;
use yahtzee::review::{GameRecord, render_review, review};
use yahtzee::table::TableError;

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
    let table = super::load_or_build(&rules, args.table.as_deref()).map_err(|e| {
        // The rules come from the record, not from a flag: the fix is the table of them.
        match e.downcast_ref::<TableError>() {
            Some(TableError::WrongRules { path, got, .. }) => anyhow!(
                "{} holds the table of {got}, but the game was played under {}: pass the table of {} with --table (build one with `yahtzee solve {} --out FILE`), or leave --table out to use the default one",
                path.display(),
                rules.label(),
                rules.label(),
                rules.flags()
            ),
            _ => e,
        }
    })?;
    let report = review(&table, &record)?;
    super::print_result(args.json, &report, |out| {
        out.write_all(render_review(&report).as_bytes())?;
        Ok(())
    })?;
    Ok(())
}
