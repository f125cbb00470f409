//! `yahtzee verify PATH`: check a table file and say what it holds.

use std::io::Write;

use anyhow::{Result, anyhow};

use crate::cli::VerifyArgs;
use yahtzee_core::report::{self, Verified};
use yahtzee_core::solve::vector::{DISTRIBUTION, TARGET};
use yahtzee_core::tables::TableError;
use yahtzee_core::tables::container::header_of_file;
use yahtzee_core::tables::set::{TableKind, check_load};
use yahtzee_core::tables::two_player::{EarlyTable, TWO_PLAYER};

pub fn run(args: &VerifyArgs) -> Result<()> {
    // A table whose values would not fit in the memory available is refused before it is
    // read (a two-player table is read a mover card at a time).
    if let Some(header) = header_of_file(&args.path)
        && let Some(rules) = args.rules.or_else(|| header.rules())
        && header.is_of(&rules)
        && let Some(kind) = TableKind::ALL
            .into_iter()
            .find(|k| k.name() == header.objective)
        && kind != TableKind::TwoPlayer
    {
        check_load(&rules, kind).map_err(anyhow::Error::msg)?;
    }
    if let Some(rules) = two_player_rules(args) {
        return verify_two_player(args, &rules);
    }
    let report = match report::verify_any(&args.path, args.rules.as_ref())
        .map_err(|e| verify_error(e, args))?
    {
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

/// The rules to check the file at `args.path` against when its header (read alone: the
/// two-player table is large) says it is a two-player table: `--rules` when given (the load
/// refuses a table of others), else the rules the header names, when known.
fn two_player_rules(args: &VerifyArgs) -> Option<yahtzee_core::Rules> {
    let header = header_of_file(&args.path)?;
    (header.objective == TWO_PLAYER).then(|| args.rules.or_else(|| header.rules()))?
}

/// `verify` of the two-player table: its header and index at load, then every value read
/// and checked (each mover card's CRC-32 and the body's).
fn verify_two_player(args: &VerifyArgs, rules: &yahtzee_core::Rules) -> Result<()> {
    let checked = EarlyTable::load(&args.path, rules)
        .and_then(|t| t.verify())
        .map_err(|e| verify_error(e, args))?;
    super::print_result(args.json, &checked, |out| {
        writeln!(
            out,
            "ok: {} holds the two-player table of {} (format v{}, plies {} to {}, {} pairs, {} {} values, crc32 {})",
            checked.path,
            checked.rules.label(),
            checked.format_version,
            checked.first_ply,
            checked.last_ply,
            checked.pairs,
            checked.entries,
            checked.value_type,
            checked.checksum
        )
    })
}

/// The error with its fix: the command that builds the table again at the same path, for the
/// rules its header names when it can still be read.
fn verify_error(e: TableError, args: &VerifyArgs) -> anyhow::Error {
    if let TableError::WrongRules { found, .. } = &e {
        // The table of other rules than `--rules` names: check it as a table of its own.
        let fix = match found {
            Some(found) => format!("give `{}` to check it", found.flags()),
            None => "give --rules the rules file of that game to check it".to_string(),
        };
        return anyhow!("{e}; {fix}");
    }
    if !e.needs_rebuild() {
        // Not a table at all, a folder, or the table of a rules file not given: the message
        // says so, and there is nothing to build.
        return e.into();
    }
    // What the file holds, from its header, or else from its name when it is the name of a
    // default table (`yacht.target.v4.table`).
    let named = (args.path.file_name().and_then(|n| n.to_str()))
        .and_then(yahtzee_core::tables::default_table_of_name);
    let header = header_of_file(&args.path);
    let (known, objective) = match &header {
        Some(h) => (args.rules.or_else(|| h.rules()), h.objective.clone()),
        None => (
            named.map(|(rules, _)| rules),
            named.map_or(String::new(), |(_, kind)| kind.to_string()),
        ),
    };
    let objective = match objective.as_str() {
        TARGET => " --objective target",
        DISTRIBUTION => " --objective distribution",
        TWO_PLAYER => " --two-player",
        _ => "",
    };
    let out = super::quote(&args.path);
    match known {
        Some(rules) => anyhow!(
            "{e}; {} it with `yahtzee solve {}{objective} --out {out}`",
            if args.path.exists() {
                "rebuild"
            } else {
                "build"
            },
            rules.flags()
        ),
        // A header naming a game this run does not know: a rules file's, whose file solves
        // it again (only a table of the same game is replaced by a solve).
        None => match &header {
            Some(h) => anyhow!(
                "{e}; it holds a table of {}, a rules file's game: rebuild it with `yahtzee solve --rules FILE{objective} --out {out}`, FILE that game's rules file",
                h.rules_label()
            ),
            None => anyhow!(
                "{e}; build it with `yahtzee solve --out {out}` (the official rules; add --rules R for others)"
            ),
        },
    }
}
