//! `yahtzee advise`: rank the options of a position, or of many positions with `--batch`.

use std::io::Write;

use anyhow::Result;

use crate::cli::AdviseArgs;
use yahtzee::advice::{Advice, Position, advise};
use yahtzee::batch;
use yahtzee::dice::{Dice, join_faces};
use yahtzee::state::ScoreCard;
use yahtzee::table::StrategyTable;

pub fn run(args: &AdviseArgs) -> Result<()> {
    let rules = args.rules.rules();
    if args.batch {
        return run_batch(args, rules);
    }
    // Check the whole position before any table is loaded or built.
    let card = ScoreCard::parse(rules, &args.card, args.yahtzee_bonus)?;
    let dice: Dice = args.dice.as_deref().unwrap_or_default().parse()?;
    let position = Position {
        card,
        dice,
        rolls_left: args.rolls_left,
    };
    let table = super::load_or_build(&rules, args.table.as_deref())?;
    let advice = advise(&table, &position)?;
    super::print_result(args.json, &advice, |out| {
        out.write_all(render(&advice, &table).as_bytes())?;
        Ok(())
    })?;
    Ok(())
}

/// `--batch`: the library's batch protocol over stdin and stdout.
fn run_batch(args: &AdviseArgs, rules: yahtzee::Rules) -> Result<()> {
    let table = super::load_or_build(&rules, args.table.as_deref())?;
    batch::run(&table, std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(())
}

/// The human table: one line per option, best first.
fn render(advice: &Advice, table: &StrategyTable) -> String {
    let mut s = format!(
        "{} | dice {} | {} roll{} left | banked {}\n",
        table.rules().label(),
        join_faces(&advice.dice),
        advice.rolls_left,
        if advice.rolls_left == 1 { "" } else { "s" },
        advice.banked
    );
    let labels: Vec<String> = advice.options.iter().map(ToString::to_string).collect();
    let width = labels.iter().map(String::len).max().unwrap_or(0).max(6);
    s.push_str(&format!(
        "{:>4}  {:<width$}  {:>14} {:>9}\n",
        "rank", "option", "expected final", "loss"
    ));
    for (i, (o, label)) in advice.options.iter().zip(&labels).enumerate() {
        s.push_str(&format!(
            "{:>4}  {:<width$}  {:>14.4} {:>9.4}\n",
            i + 1,
            label,
            o.expected_final(),
            o.loss()
        ));
    }
    s
}
