//! `yahtzee review GAME`: price every decision of a saved game, in expected points or in
//! chance of reaching a target (`--target T`, by default the record's coach target). The
//! work is
//! [`yahtzee::review`]; this reads the file, loads the table of its rules and prints.

use std::io::Write;

use anyhow::{Context, Result};

use crate::cli::{ReviewArgs, ReviewTarget};
use yahtzee::review::{GameRecord, Pricing, render_review, review_for};

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
    // The coach's target of the record unless --target says otherwise.
    let target = match args.target {
        Some(ReviewTarget::Score(t)) => Some(t),
        Some(ReviewTarget::Off) => None,
        None => record.header.coach_target,
    };
    let targets = match target {
        Some(_) => Some(super::load_target_for(
            &rules,
            args.target_table.as_deref(),
            super::RulesFrom::Input,
        )?),
        None => None,
    };
    let pricing = match (target, &targets) {
        (Some(target), Some(targets)) => Pricing::Target { targets, target },
        _ => Pricing::ExpectedScore,
    };
    let report = review_for(&table, &record, pricing)?;
    super::print_result(args.json, &report, |out| {
        out.write_all(render_review(&report).as_bytes())?;
        Ok(())
    })?;
    Ok(())
}
