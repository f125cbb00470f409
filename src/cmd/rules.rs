//! `yahtzee rules [NAME|PATH]`: the card of a rule set, built-in or from a rules file, as the
//! library describes it; `--toml` prints it as a rules file.

use std::io::Write;

use anyhow::Result;

use crate::cli::RulesCardArgs;
use yahtzee_core::game::rules::file::Description;
use yahtzee_core::game::rules::{Order, Rules, RulesCard};

pub fn run(args: &RulesCardArgs) -> Result<()> {
    let rules = match args.which {
        Some(r) if args.rules.upper_first => Rules::with_order(r.set, Order::UpperFirst),
        Some(r) => r,
        None => args.rules.rules(),
    };
    if args.toml {
        let mut description = Description::of(rules.set, rules.order);
        // A rules file's rule set is named NAME-DIGEST; its file says NAME.
        if rules.set.file.is_some()
            && let Some((name, _)) = description.name.rsplit_once('-')
        {
            description.name = name.to_string();
        }
        std::io::stdout()
            .lock()
            .write_all(description.to_toml().as_bytes())?;
        return Ok(());
    }
    let card = RulesCard::of(rules);
    super::print_result(args.json, &card, |out| {
        writeln!(out, "{}: {}", card.rules.label(), card.summary)?;
        let width = card.boxes.iter().map(|b| b.name.len()).max().unwrap_or(0);
        let aliases_width = card
            .boxes
            .iter()
            .map(|b| b.aliases.join(" ").len())
            .max()
            .unwrap_or(0)
            .max("aliases".len());
        writeln!(
            out,
            "{:>3}  {:<width$}  {:<aliases_width$}  scores",
            "#", "box", "aliases"
        )?;
        for b in &card.boxes {
            writeln!(
                out,
                "{:>3}  {:<width$}  {:<aliases_width$}  {} (can hold {})",
                b.position,
                b.name,
                b.aliases.join(" "),
                b.scores,
                b.possible
            )?;
        }
        match card.upper_bonus {
            Some(b) => writeln!(
                out,
                "upper bonus: {} when the upper boxes add up to {} or more",
                b.points, b.threshold
            )?,
            None => writeln!(out, "upper bonus: none")?,
        }
        match card.five_of_a_kind_bonus {
            Some(p) => writeln!(
                out,
                "five-of-a-kind bonus: {p} for each further five of a kind while the five-of-a-kind box holds its points"
            )?,
            None => writeln!(out, "five-of-a-kind bonus: none")?,
        }
        if card.saved_rolls {
            writeln!(
                out,
                "saved rolls: the re-rolls a turn leaves unused when it scores are kept for later turns"
            )?;
        }
        writeln!(out, "joker: {}", card.joker_rule)?;
        writeln!(out, "order: {}", card.order_rule)?;
        writeln!(out, "highest possible score: {}", card.highest_score)?;
        writeln!(
            out,
            "boxes are named as above or by an alias, in any case, everywhere: --card, play, batch queries, records"
        )?;
        Ok(())
    })?;
    Ok(())
}
