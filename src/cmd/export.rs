//! `yahtzee export`: strategy tables of one card's turn, of every state, of the full policy
//! or of the opening, as CSV, JSON lines, Markdown or Parquet, to stdout or to a file; a
//! card's turn for a target score with `--target T`.

use std::io::{BufWriter, IsTerminal, Write};

use anyhow::{Context, Result, bail};

use crate::cli::ExportArgs;
use yahtzee_core::export::{self, Filter, Format};
use yahtzee_core::files;
use yahtzee_core::game::state::ScoreCard;
use yahtzee_core::stats::{Visits, visit_probabilities};
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::set::TableKind;

/// The validated request.
enum Scope {
    Card(ScoreCard),
    StateValues,
    Policy,
    Opening,
}

fn filter(args: &ExportArgs) -> Result<Filter> {
    let rolls_left = args.rolls_left;
    if let Some(n) = rolls_left {
        yahtzee_core::policy::expected::check_rolls_left(&args.rules.rules(), u32::from(n))?;
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
    let filter = filter(args)?;
    let scope = if args.opening {
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
        if filter != Filter::default() {
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
    let bar = super::progress_bar("chance of reaching each state", "turns");
    let visits = visit_probabilities(table, &|done, total| {
        bar.set_length(total);
        bar.set_position(done);
    });
    bar.finish_and_clear();
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
