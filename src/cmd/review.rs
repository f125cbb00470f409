//! `yahtzee review GAME`: price every decision of a saved game, in expected points, in
//! chance of reaching a target (`--target T`, by default the record's coach target) or in
//! chance of winning (`--win`, by default when the record's coach coached to win), or by
//! the exact game of two (`--two-player`, by default for a record with a two-player bot).
//! The work is
//! [`yahtzee_core::play::review`]; this reads the file, loads the table of its rules and prints.

use std::io::Write;

use anyhow::{Context, Result, anyhow};

use crate::cli::{ReviewArgs, ReviewTarget};
use yahtzee_core::play::review::{GameRecord, render_review, review_for};
use yahtzee_core::policy::pricing::Pricing;

/// The largest game record reviewed: a game of eight players is tens of kilobytes.
const MAX_RECORD_BYTES: u64 = 64 << 20;

pub fn run(args: &ReviewArgs) -> Result<()> {
    let path = &args.game;
    let bytes = yahtzee_core::files::read_regular(path, MAX_RECORD_BYTES)
        .with_context(|| format!("cannot read the game record {}", path.display()))?;
    let record = GameRecord::parse(&bytes).with_context(|| format!("{}", path.display()))?;
    if let Some(line) = record.cut_off {
        note!(
            "warning: {} ends early: line {line} is cut off (the game's writing stopped there); reviewing the {} lines before it",
            path.display(),
            line - 1
        );
    }
    let rules = record.game.rules();
    if let Some(given) = args.rules
        && given.set != rules.set
    {
        return Err(anyhow!(
            "{}: the game was played under {}, not {}: give --rules the rules of the record, or drop it",
            path.display(),
            rules.set,
            given.set
        ));
    }
    // The rules come from the record: a table of other rules is fixed by the table alone.
    let tables = super::tables(rules, table_paths!(args), super::RulesFrom::Input);
    let table = tables.ev()?;
    // The coach's objective of the record (its target, or winning) unless --target or
    // --win says otherwise.
    // A record with a two-player bot is priced by the game of two unless --target or --win
    // says otherwise.
    let seats_two_player = record
        .header
        .seats
        .iter()
        .any(|s| s.policy == Some(yahtzee_core::play::WinPolicy::TwoPlayer));
    let two_player = args.two_player || (args.target.is_none() && !args.win && seats_two_player);
    let target = match args.target {
        Some(ReviewTarget::Score(t)) => Some(t),
        Some(ReviewTarget::Off) => None,
        None if args.win || two_player => None,
        None => record.header.coach_target,
    };
    let win = args.win || (args.target.is_none() && !two_player && record.header.coach_win);
    if win && record.game.seats().len() < 2 {
        return Err(anyhow!(
            "{}: --win prices in chance of winning against the other players, but the record has one player: review it without --win",
            path.display()
        ));
    }
    let targets = match target {
        Some(_) => Some(tables.target()?),
        None => None,
    };
    let distribution = if win {
        Some(tables.distribution()?)
    } else {
        None
    };
    let early = if two_player {
        let players = record.game.seats().len();
        if players != 2 || yahtzee_core::solve::two_player::check_rules(&rules).is_err() {
            return Err(anyhow!(
                "{}: --two-player prices by the exact game of two, for records of two players of Yacht (either fill order); this one is {} with {}: review it without --two-player",
                path.display(),
                rules.label(),
                yahtzee_core::text::plural(players as u64, "player", "players")
            ));
        }
        Some(tables.two_player()?)
    } else {
        None
    };
    let pricing = match (target, &targets, &distribution, &early) {
        (Some(target), Some(targets), _, _) => Pricing::Target { targets, target },
        (None, _, Some(distribution), _) => Pricing::Win { distribution },
        (None, _, _, Some(early)) => Pricing::TwoPlayer { early },
        _ => Pricing::ExpectedScore,
    };
    let report = review_for(table, &record, pricing)?;
    let stamped = yahtzee_core::report::stamped(&report, Some(table));
    super::print_result(args.json, &stamped, |out| {
        out.write_all(render_review(&report).as_bytes())?;
        Ok(())
    })?;
    Ok(())
}
