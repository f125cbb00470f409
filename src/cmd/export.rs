//! `yahtzee export`: strategy tables of one card's turn, of every state, of the full policy
//! or of the opening, as CSV, JSON lines, Markdown or Parquet, to stdout or to a file; a
//! card's turn for a target score with `--target T`. A game of saved rolls exports a card's
//! turn with the rolls saved before it (`--saved N`), every state with each number of rolls
//! saved, the full policy at each number of re-rolls left and the opening, from its table of
//! saved rolls.

use std::io::{BufWriter, IsTerminal, Write};

use anyhow::{Context, Result, bail};

use crate::cli::ExportArgs;
use yahtzee_core::export::{self, Filter, Format};
use yahtzee_core::files;
use yahtzee_core::game::rules::Rules;
use yahtzee_core::game::state::ScoreCard;
use yahtzee_core::policy::saved;
use yahtzee_core::stats::{Visits, visit_probabilities};
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::saved::SavedTable;
use yahtzee_core::tables::set::{TableKind, saved_rolls_only};

/// The validated request.
enum Scope {
    Card(ScoreCard),
    StateValues,
    Policy,
    Opening,
}

/// The rolls-left and gap filters of the flags. Under saved rolls the rolls left are checked
/// with the card's rolls saved ([`saved_scope`]).
fn filter(args: &ExportArgs) -> Result<Filter> {
    let rolls_left = args.rolls_left;
    let rules = args.rules.rules();
    if let Some(n) = rolls_left.filter(|_| !rules.saved_rolls()) {
        yahtzee_core::policy::expected::check_rolls_left(&rules, u32::from(n))?;
    }
    if let Some(g) = args.min_gap {
        if args.target.is_some() && !(0.0..=1.0).contains(&g) {
            bail!("--min-gap with --target is a gap in chance, from 0 to 1, not {g}");
        }
        if !(g.is_finite() && g >= 0.0) {
            bail!("--min-gap must be a number of points, 0 or more, not {g}");
        }
    }
    Ok(Filter {
        rolls_left,
        min_gap: args.min_gap,
    })
}

pub fn run(args: &ExportArgs) -> Result<()> {
    let rules = args.rules.rules();
    if args.saved.is_some() && !rules.saved_rolls() {
        return Err(super::no_saved_rolls(&rules));
    }
    let filter = filter(args)?;
    let scope = scope(args, rules, &filter)?;
    // Under saved rolls: the rolls saved before the card's turn, checked with its re-rolls
    // left before any table is read.
    let saved = if rules.saved_rolls() {
        Some(saved_scope(args, rules, &scope)?)
    } else {
        None
    };
    let format = args.format.map_or(
        match scope {
            Scope::Opening => Format::Markdown,
            _ => Format::Csv,
        },
        Format::from,
    );
    if format == Format::Columns && !cfg!(feature = "parquet") {
        return Err(super::not_built("parquet", "the Parquet export"));
    }
    if format == Format::Columns && args.out.is_none() && std::io::stdout().is_terminal() {
        bail!(
            "Parquet is a binary file, not for a terminal: give --out FILE.parquet, or redirect stdout to a file"
        );
    }
    if let Some(path) = &args.out {
        let paths = super::score_table_paths(&args.tables);
        let table = paths.path(&rules, TableKind::ExpectedScore);
        let target_table = paths.path(&rules, TableKind::Target);
        super::check_output("--out", path, &[&table, &target_table])?;
    }
    let tables = super::tables(
        rules,
        super::score_table_paths(&args.tables),
        super::RulesFrom::Flags,
    );
    if let Some(saved) = saved {
        // The table of saved rolls (built first when missing): whole for every state, else
        // read for the cards the turn reads.
        let table = match &scope {
            Scope::StateValues | Scope::Policy => tables.saved()?,
            Scope::Card(card) => tables.saved_for(&[card.filled()])?,
            _ => tables.saved_for(&[0])?,
        };
        return write_out(args, format, |out| {
            write_saved_scope(&table, &scope, saved, &filter, format, out)
        });
    }
    let table = tables.ev()?;
    if let (Some(target), Scope::Card(card)) = (args.target, &scope) {
        let targets = tables.target()?;
        let scope = |out: &mut dyn Write| -> Result<u64> {
            Ok(export::write_target_card(
                table, targets, card, target, &filter, format, out,
            )?)
        };
        return write_out(args, format, scope);
    }
    write_out(args, format, |out| {
        write_scope(table, &scope, &filter, format, out)
    })
}

/// The scope of the flags, checked.
fn scope(args: &ExportArgs, rules: Rules, filter: &Filter) -> Result<Scope> {
    Ok(if args.opening {
        if filter.rolls_left.is_some() {
            bail!(
                "--opening always shows both 2 and 1 rolls left: drop --rolls-left, or use `--rolls-left N` without --opening for one turn of a new game"
            );
        }
        if rules.rolls() != 3 {
            bail!(
                "--opening is the sheet of a turn of three rolls (its columns: 2 and 1 rolls left), and {} has {} rolls a turn: use `--card \"\"` for the first turn's decisions by rolls left",
                rules.label(),
                rules.rolls()
            );
        }
        Scope::Opening
    } else if args.all_states && args.policy {
        Scope::Policy
    } else if args.all_states {
        if *filter != Filter::default() {
            bail!(
                "--rolls-left and --min-gap select decisions, and --all-states alone writes state values: add --policy, or drop them"
            );
        }
        Scope::StateValues
    } else {
        Scope::Card(ScoreCard::parse(
            rules,
            args.card.as_deref().unwrap_or_default(),
            args.yahtzee_bonus,
        )?)
    })
}

/// The rolls saved before the turn of a game of saved rolls, checked against the scope: with
/// a card, `--saved` (default 0) and `--rolls-left` by the core's one check of them
/// ([`saved::rerolls_left`]); the other scopes take no `--saved`; the objectives other than
/// the expected score are refused.
fn saved_scope(args: &ExportArgs, rules: Rules, scope: &Scope) -> Result<u8> {
    if args.target.is_some() {
        bail!(saved_rolls_only(&rules, "--target and its target table"));
    }
    match scope {
        Scope::Card(card) => {
            let saved = args.saved.unwrap_or(0);
            saved::rerolls_left(&rules, card, saved, args.rolls_left)
                .map_err(|e| anyhow::anyhow!("--saved, --rolls-left: {e}"))?;
            Ok(saved)
        }
        _ if args.saved.is_some() => bail!(
            "--saved is the rolls saved before the turn of --card; --all-states writes every number of rolls saved (its column `saved`) and --opening the first turn, with none saved: leave out --saved"
        ),
        Scope::Policy => {
            // Every state at each number of re-rolls left it can have: up to those of the
            // last turn.
            if let Some(n) = args.rolls_left {
                saved::check_rerolls_left(&rules, rules.box_count() - 1, u32::from(n))
                    .map_err(|e| anyhow::anyhow!("--rolls-left: {e}"))?;
            }
            Ok(0)
        }
        _ => Ok(0),
    }
}

/// Writes what `scope` exports in a game of saved rolls from its table of saved rolls: a
/// card's turn with `saved` rolls saved before it, every state's values with each number of
/// rolls saved, the full policy (every state at each number of re-rolls left), or the
/// opening.
fn write_saved_scope(
    table: &SavedTable,
    scope: &Scope,
    saved: u8,
    filter: &Filter,
    format: Format,
    out: &mut dyn Write,
) -> Result<u64> {
    Ok(match scope {
        Scope::Card(card) => export::write_saved_card(table, card, saved, filter, format, out)?,
        Scope::StateValues => export::write_saved_state_values(table, format, out)?,
        Scope::Opening => export::write_saved_opening(table, filter.min_gap, format, out)?,
        Scope::Policy => {
            let bar = super::progress_bar("exporting policy", "states");
            let rows = export::write_saved_policy(table, filter, format, out, &|done, total| {
                bar.set_length(total);
                bar.set_position(done);
            })?;
            bar.finish_and_clear();
            rows
        }
    })
}

/// Writes what `scope` exports in `format` to stdout or to `--out`: Parquet through the
/// Parquet writer, which encodes the rows it is given on a second thread.
fn write_out(
    args: &ExportArgs,
    format: Format,
    scope: impl FnOnce(&mut dyn Write) -> Result<u64>,
) -> Result<()> {
    let write = |out: &mut (dyn Write + Send)| -> Result<u64> {
        if format == Format::Columns {
            #[cfg(feature = "parquet")]
            return Ok(yahtzee_parquet::write(out, scope)?.0);
            #[cfg(not(feature = "parquet"))]
            return Err(super::not_built("parquet", "the Parquet export"));
        }
        scope(out)
    };
    match &args.out {
        None => {
            // Not the locked handle: the Parquet encoder writes from its own thread.
            let mut out = BufWriter::new(std::io::stdout());
            write(&mut out)?;
            out.flush()?;
        }
        Some(path) => {
            let rows = files::write_file(path, |file| -> Result<u64> {
                let mut out = BufWriter::with_capacity(1 << 20, file);
                let rows = write(&mut out)?;
                out.flush()?;
                Ok(rows)
            })
            .with_context(|| format!("cannot write --out {}", path.display()))?;
            note!("wrote {rows} rows to {}", path.display());
        }
    }
    Ok(())
}

/// The chance that optimal play reaches each state (the exports' visit probability), with
/// a progress bar: the forward pass of `stats`.
fn visits(table: &StrategyTable) -> Result<Visits> {
    let visits = super::with_progress("chance of reaching each state", "turns", |progress| {
        visit_probabilities(table, progress)
    });
    Ok(visits)
}

fn write_scope(
    table: &StrategyTable,
    scope: &Scope,
    filter: &Filter,
    format: Format,
    out: &mut dyn Write,
) -> Result<u64> {
    Ok(match scope {
        Scope::Card(card) => export::write_card(table, card, filter, format, out)?,
        Scope::StateValues => {
            let visits = visits(table)?;
            export::write_state_values(table, &|s| visits.of(s), format, out)?
        }
        Scope::Opening => export::write_opening(table, filter.min_gap, format, out)?,
        Scope::Policy => {
            let visits = visits(table)?;
            let bar = super::progress_bar("exporting policy", "states");
            let rows = export::write_policy(
                table,
                &|s| visits.of(s),
                filter,
                format,
                out,
                &|done, total| {
                    bar.set_length(total);
                    bar.set_position(done);
                },
            )?;
            bar.finish_and_clear();
            rows
        }
    })
}
