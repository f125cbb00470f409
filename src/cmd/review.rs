//! `yahtzee review GAME`: price every decision of a saved game, in expected points, in
//! chance of reaching a target (`--target T`, by default the record's coach target) or in
//! chance of winning (`--win`, by default when the record's coach coached to win), or by
//! the exact game of two (`--two-player`, by default for a record with a two-player bot).
//! A game of saved rolls is priced in expected points alone, with its table of saved rolls.
//! The work is
//! [`yahtzee_core::play::review`]; this reads the file, loads the table of its rules and prints.
//! Several records, or a folder of them, rate each player across the games
//! ([`yahtzee_core::play::rating`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};

use crate::cli::ReviewArgs;
use crate::values::ReviewTarget;
use yahtzee_core::play::rating::{rate, rate_saved, render_rating};
use yahtzee_core::play::review::{GameRecord, render_review, review_for, review_saved};
use yahtzee_core::policy::pricing::Pricing;
use yahtzee_core::tables::set::TableSet;
use yahtzee_core::text::plural;

/// The largest game record reviewed: a game of eight players is tens of kilobytes.
const MAX_RECORD_BYTES: u64 = 64 << 20;

pub fn run(args: &ReviewArgs) -> Result<()> {
    let path = &args.games[0];
    if args.rating || args.games.len() > 1 || path.is_dir() {
        return run_rating(args);
    }
    let record = read_record(path)?;
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
    let tables = super::tables(
        rules,
        super::table_paths(&args.tables),
        super::RulesFrom::Input,
    );
    if rules.saved_rolls() {
        return review_saved_rolls(args, &record, &tables);
    }
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

/// The review of a record of a game of saved rolls: in expected points alone, with the table
/// of saved rolls (built when missing, read a card at a time), each decision against the
/// options of its position, saving against spending.
fn review_saved_rolls(args: &ReviewArgs, record: &GameRecord, tables: &TableSet) -> Result<()> {
    if matches!(args.target, Some(ReviewTarget::Score(_))) || args.win || args.two_player {
        bail!(yahtzee_core::tables::set::saved_rolls_only(
            &record.game.rules(),
            "--target, --win and --two-player"
        ));
    }
    let report = review_saved(tables, record)?;
    let stamped = yahtzee_core::report::stamped_by(&report, tables);
    super::print_result(args.json, &stamped, |out| {
        out.write_all(render_review(&report).as_bytes())?;
        Ok(())
    })
}

/// Reads and checks the record at `path`, warning of a record cut off.
fn read_record(path: &Path) -> Result<GameRecord> {
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
    Ok(record)
}

/// The paths of records among `paths`: each path that is not a folder, and the `.jsonl`
/// entries of each folder (by name), whatever they are (a pipe or a link among them is
/// refused when read, and said). A folder that cannot be listed or holds no `.jsonl` entry
/// is skipped, with why.
fn record_paths(paths: &[PathBuf], skipped: &mut Vec<String>) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for path in paths {
        if !path.is_dir() {
            all.push(path.clone());
            continue;
        }
        let entries = match std::fs::read_dir(path) {
            Ok(entries) => entries,
            Err(e) => {
                skipped.push(format!("cannot read the folder {}: {e}", path.display()));
                continue;
            }
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        if found.is_empty() {
            skipped.push(format!(
                "{}: the folder holds no game record (a .jsonl file written by `yahtzee play`)",
                path.display()
            ));
        }
        found.sort();
        all.extend(found);
    }
    all
}

/// Several records, a folder or --rating: each player's rating across the games, in
/// expected points. One rule for every path, given or found in a folder: a path that is not a
/// record (not a regular file, unreadable, malformed) is skipped and named on stderr with
/// why, the others are rated, and the command then fails (exit 2) with the count of those
/// skipped. Records of several rule sets, or of other rules than --rules, are refused as a
/// whole (before any table is read): which games to rate together is the user's choice.
fn run_rating(args: &ReviewArgs) -> Result<()> {
    if args.target.is_some() || args.win || args.two_player {
        bail!(
            "a rating across games is in expected points: --target, --win and --two-player price one game; drop them, or review one record"
        );
    }
    let mut skipped = Vec::new();
    let paths = record_paths(&args.games, &mut skipped);
    let mut read: Vec<(PathBuf, GameRecord)> = Vec::new();
    for path in paths {
        match read_record(&path) {
            Ok(record) => read.push((path, record)),
            Err(e) => skipped.push(format!("{e:#}")),
        }
    }
    let Some((first, record)) = read.first() else {
        // Nothing to rate: the one reason is the error; several are named, then counted.
        if let [why] = &skipped[..] {
            bail!("{why}");
        }
        for why in &skipped {
            note!("warning: {why}; skipped");
        }
        bail!(
            "no game record to rate: {} skipped (named above); give records written by `yahtzee play`",
            plural(skipped.len() as u64, "path was", "paths were")
        );
    };
    let rules = record.game.rules();
    if let Some(given) = args.rules
        && given.set != rules.set
    {
        bail!(
            "{}: the game was played under {}, not {}: give --rules the rules of the records, or drop it",
            first.display(),
            rules.set,
            given.set
        );
    }
    if let Some((path, r)) = read.iter().find(|(_, r)| r.game.rules() != rules) {
        bail!(
            "{}: a game of {}, not {} like {}: rate the records of each rule set apart",
            path.display(),
            r.game.rules().label(),
            rules.label(),
            first.display()
        );
    }
    for why in &skipped {
        note!("warning: {why}; skipped");
    }
    let records: Vec<GameRecord> = read.into_iter().map(|(_, r)| r).collect();
    let tables = super::tables(
        rules,
        super::table_paths(&args.tables),
        super::RulesFrom::Input,
    );
    if rules.saved_rolls() {
        // Under saved rolls, with the table of saved rolls, read a card at a time.
        let bar = super::progress_bar(&format!("rating {} records", records.len()), "records");
        bar.set_length(records.len() as u64);
        let rating = rate_saved(&tables, &records, &|done| bar.set_position(done as u64));
        bar.finish_and_clear();
        let rating = rating?;
        let stamped = yahtzee_core::report::stamped_by(&rating, &tables);
        super::print_result(args.json, &stamped, |out| {
            out.write_all(render_rating(&rating).as_bytes())
        })?;
        return skipped_fails(&skipped, records.len());
    }
    let table = tables.ev()?;
    let bar = super::progress_bar(&format!("rating {} records", records.len()), "records");
    bar.set_length(records.len() as u64);
    let rating = rate(table, &records, &|done| bar.set_position(done as u64));
    bar.finish_and_clear();
    let rating = rating?;
    let stamped = yahtzee_core::report::stamped(&rating, Some(table));
    super::print_result(args.json, &stamped, |out| {
        out.write_all(render_rating(&rating).as_bytes())
    })?;
    skipped_fails(&skipped, records.len())
}

/// The failure of a rating of `rated` records when some paths were `skipped` (named above).
fn skipped_fails(skipped: &[String], rated: usize) -> Result<()> {
    if !skipped.is_empty() {
        bail!(
            "{} skipped (named above): the rating above is of the other {}",
            plural(skipped.len() as u64, "path was", "paths were"),
            plural(rated as u64, "record", "records")
        );
    }
    Ok(())
}
