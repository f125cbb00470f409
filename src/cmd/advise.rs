//! `yahtzee advise`: rank the options of a position, or of many positions with `--batch`.

use std::io::{BufRead, Write};

use anyhow::{Result, bail};
use serde::Deserialize;

use crate::cli::AdviseArgs;
use yahtzee::advice::{Advice, Position, advise};
use yahtzee::dice::{Dice, join_faces};
use yahtzee::rules::Rules;
use yahtzee::state::ScoreCard;
use yahtzee::table::StrategyTable;

/// One line of `--batch` input.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchQuery {
    /// `{"ones": 3, "full-house": 25}` or `"ones=3,full-house=25"`; absent: a new game.
    #[serde(default)]
    card: Option<serde_json::Value>,
    #[serde(default)]
    yahtzee_bonus: u32,
    /// `[1, 3, 3, 5, 6]` or `"13356"`.
    dice: serde_json::Value,
    #[serde(default = "two")]
    rolls_left: u32,
}

fn two() -> u32 {
    2
}

fn rolls_left(n: u32) -> Result<u8> {
    if n > 2 {
        bail!("rolls left must be 0, 1 or 2, not {n}");
    }
    Ok(n as u8)
}

/// Turns one batch line into a position.
fn parse_query(rules: Rules, line: &str) -> Result<Position> {
    let q: BatchQuery = serde_json::from_str(line).map_err(|e| {
        anyhow::anyhow!(
            "bad query ({e}); expected {{\"card\": {{\"ones\": 3}}, \"yahtzee_bonus\": 0, \"dice\": [1, 3, 3, 5, 6], \"rolls_left\": 2}}"
        )
    })?;
    let card = match &q.card {
        None | Some(serde_json::Value::Null) => ScoreCard::parse(rules, "", q.yahtzee_bonus)?,
        Some(serde_json::Value::String(s)) => ScoreCard::parse(rules, s, q.yahtzee_bonus)?,
        Some(serde_json::Value::Object(map)) => {
            let entries: Vec<(String, String)> = map
                .iter()
                .map(|(k, v)| {
                    let text = match v {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), text)
                })
                .collect();
            ScoreCard::from_entries(rules, &entries, q.yahtzee_bonus)?
        }
        Some(other) => bail!("card must be an object like {{\"ones\": 3}}, not {other}"),
    };
    let dice: Dice = match &q.dice {
        serde_json::Value::String(s) => s.parse()?,
        serde_json::Value::Array(items) => {
            let faces: Option<Vec<u8>> = items
                .iter()
                .map(|v| v.as_u64().and_then(|f| u8::try_from(f).ok()))
                .collect();
            match faces {
                Some(f) => Dice::from_faces(&f)?,
                None => bail!(
                    "invalid dice `{}`: give exactly five faces from 1 to 6, e.g. [1, 3, 3, 5, 6]",
                    q.dice
                ),
            }
        }
        other => bail!(
            "invalid dice `{other}`: give exactly five faces from 1 to 6, e.g. [1, 3, 3, 5, 6]"
        ),
    };
    Ok(Position {
        card,
        dice,
        rolls_left: rolls_left(q.rolls_left)?,
    })
}

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

fn run_batch(args: &AdviseArgs, rules: Rules) -> Result<()> {
    let table = super::load_or_build(&rules, args.table.as_deref())?;
    let stdin = std::io::stdin().lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = parse_query(rules, &line)
            .and_then(|p| Ok(advise(&table, &p)?))
            .map(|a| serde_json::to_string(&a))
            .unwrap_or_else(|e| Ok(serde_json::json!({ "error": format!("{e:#}") }).to_string()))?;
        writeln!(out, "{answer}")?;
    }
    out.flush()?;
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
