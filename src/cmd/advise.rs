//! `yahtzee advise`: rank the options of a position, or of many positions with `--batch`.

use std::io::Write;

use anyhow::Result;

use crate::cli::AdviseArgs;
use yahtzee_core::batch;
use yahtzee_core::cancel::Cancel;
use yahtzee_core::game::dice::join_faces;
use yahtzee_core::game::rules::Rules;
use yahtzee_core::game::state::ScoreCard;
use yahtzee_core::policy::expected::{Advice, Position};
use yahtzee_core::policy::target::TargetAdvice;
use yahtzee_core::policy::theta::ThetaAdvice;
use yahtzee_core::policy::win::{Opponent, WinAdvice, parse_opponent};
use yahtzee_core::policy::{self, Answer, Objective};
use yahtzee_core::tables::set::TableSet;
use yahtzee_core::text::{chance, probability};

pub fn run(args: &AdviseArgs) -> Result<()> {
    let rules = args.rules.rules();
    if args.tables.two_player_table.is_some() && !args.two_player && !args.batch {
        anyhow::bail!(
            "--two-player-table is read by --two-player (or by --batch queries with \"two_player\": true): add --two-player, or drop --two-player-table"
        );
    }
    let tables = super::tables(
        rules,
        super::table_paths(&args.tables),
        super::RulesFrom::Flags,
    );
    if rules.saved_rolls() {
        return run_saved(args, rules, &tables);
    }
    if args.saved.is_some() {
        return Err(super::no_saved_rolls(&rules));
    }
    if args.batch {
        return run_batch(args, &tables);
    }
    // Check the whole position before any table is loaded or built.
    let card = ScoreCard::parse(rules, &args.card, args.yahtzee_bonus)?;
    let dice = rules
        .dice()
        .parse(args.dice.as_deref().unwrap_or_default())?;
    let rolls_left = args.rolls_left.unwrap_or(rules.most_rolls_left());
    policy::expected::check_rolls_left(&rules, u32::from(rolls_left))?;
    let position = Position {
        card,
        dice,
        rolls_left,
    };
    let objective = objective(args, rules)?;
    policy::check_objective(&tables, &objective)?;
    // The expected score of one position reads the rows of its card and the next: of a game
    // whose table takes gigabytes, those alone are read (`TableSet::ev_for`).
    let part;
    let tables = if objective == Objective::ExpectedScore {
        part = TableSet::of_expected_score(tables.ev_for(&[position.card.filled()])?);
        &part
    } else if let Objective::Theta(_) = objective {
        // The θ table alone, built with its bar when missing.
        &tables
    } else {
        // The table of the rules first, whatever the objective: a missing one is built with
        // its own bar before any other.
        tables.ev()?;
        &tables
    };
    let bar = matches!(objective, Objective::TwoPlayer { .. })
        .then(|| super::progress_bar("solving the rest of the game", "pairs"));
    // Nothing stops the command's solve but the process's end (Ctrl-C).
    let progress = |done, total| {
        if let Some(bar) = &bar {
            bar.set_length(total);
            bar.set_position(done);
        }
    };
    let answer = policy::advise(tables, &position, &objective, &progress, &Cancel::new());
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let answer = answer?;
    let text = match &answer {
        Answer::Advice(advice) => render(advice),
        Answer::Target(advice) => render_target(advice),
        Answer::Theta(advice) => render_theta(advice),
        Answer::Win(advice) => render_win(advice),
        Answer::TwoPlayer(advice) => render_two_player(advice),
    };
    let stamped = yahtzee_core::report::stamped_by(&answer, tables);
    super::print_result(args.json, &stamped, |out| out.write_all(text.as_bytes()))
}

/// `advise` in a game of saved rolls: the position's rolls saved (`--saved`, at the start of
/// this turn) and its re-rolls left (up to the turn's two and the rolls saved), the table of
/// saved rolls read for the position's cards alone (built first when missing).
fn run_saved(args: &AdviseArgs, rules: Rules, tables: &TableSet) -> Result<()> {
    use yahtzee_core::policy::saved;
    if objective(args, rules)? != Objective::ExpectedScore {
        anyhow::bail!(yahtzee_core::tables::set::saved_rolls_only(
            &rules,
            "--target, --theta, --opponent and --two-player"
        ));
    }
    if args.batch {
        return run_batch(args, tables);
    }
    let card = ScoreCard::parse(rules, &args.card, args.yahtzee_bonus)?;
    let dice = rules
        .dice()
        .parse(args.dice.as_deref().unwrap_or_default())?;
    let rolls_left = saved::rerolls_left(&rules, &card, args.saved.unwrap_or(0), args.rolls_left)
        .map_err(|e| anyhow::anyhow!("--saved, --rolls-left: {e}"))?;
    let position = Position {
        card,
        dice,
        rolls_left,
    };
    // The one dispatch of advice, which reads the table of saved rolls for this card.
    let answer = policy::advise(
        tables,
        &position,
        &Objective::ExpectedScore,
        &|_, _| {},
        &Cancel::new(),
    )?;
    let Answer::Advice(advice) = &answer else {
        unreachable!("the expected score's advice")
    };
    let stamped = yahtzee_core::report::stamped_by(&answer, tables);
    super::print_result(args.json, &stamped, |out| {
        out.write_all(render(advice).as_bytes())
    })
}

/// The objective of the flags: `--two-player` against the one opponent, else to win against
/// the `--opponent`s, else `--target`, else the expected score. The opponents' cards are
/// checked here, before any table is loaded or built.
fn objective(args: &AdviseArgs, rules: Rules) -> Result<Objective> {
    let mut opponents = Vec::new();
    for (i, text) in args.opponent.iter().enumerate() {
        // A full card is a finished opponent, as --opponent-final N says.
        let opponent = parse_opponent(rules, text)
            .map_err(|e| anyhow::anyhow!("--opponent {}: {e}", i + 1))?;
        opponents.push(opponent);
    }
    opponents.extend(args.opponent_final.iter().map(|&n| Opponent::Finished(n)));
    if args.two_player {
        yahtzee_core::solve::two_player::check_rules(&rules)
            .map_err(|e| anyhow::anyhow!("--two-player: {e}"))?;
        let [opponent] = &opponents[..] else {
            anyhow::bail!(
                "--two-player takes exactly one --opponent (or --opponent-final), not {}",
                opponents.len()
            );
        };
        return Ok(Objective::TwoPlayer {
            opponent: opponent.clone(),
            lead: args.lead,
        });
    }
    if !opponents.is_empty() {
        return Ok(Objective::Win(opponents));
    }
    if let Some(theta) = args.theta {
        return Ok(Objective::Theta(theta));
    }
    Ok(args
        .target
        .map_or(Objective::ExpectedScore, Objective::Target))
}

/// `--batch`: the library's batch protocol over stdin and stdout.
fn run_batch(args: &AdviseArgs, tables: &TableSet) -> Result<()> {
    if args.target.is_some() {
        anyhow::bail!(
            "--target is refused with --batch: give each query its own target, e.g. {{\"dice\": [1, 3, 3, 5, 6], \"target\": 300}}"
        );
    }
    // The expected-score table before the first line: every query reads it (under saved
    // rolls, each query reads its card's rows of the table of saved rolls, built here first).
    if tables.rules().saved_rolls() {
        tables.saved_for(&[0])?;
    } else {
        tables.ev()?;
    }
    batch::run(tables, std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(())
}

/// The human table of target advice: one line per option, best first.
fn render_target(advice: &TargetAdvice) -> String {
    let mut s = format!(
        "{} | target {} | dice {} | {} roll{} left | banked {}, {} to go | best chance {}\n",
        advice.rules.label(),
        advice.target,
        join_faces(&advice.dice),
        advice.rolls_left,
        if advice.rolls_left == 1 { "" } else { "s" },
        advice.banked,
        advice.needed.max(0),
        chance(advice.p_reach, advice.reachable, advice.tail)
    );
    let labels: Vec<String> = advice
        .options
        .iter()
        .map(|o| o.action.to_string())
        .collect();
    let width = labels.iter().map(String::len).max().unwrap_or(0).max(6);
    let reach = format!("P(final >= {})", advice.target);
    s.push_str(&format!(
        "{:>4}  {:<width$}  {:>16} {:>10}  {:>14} {:>9}\n",
        "rank", "option", reach, "loss", "expected final", "loss"
    ));
    for (i, (o, label)) in advice.options.iter().zip(&labels).enumerate() {
        s.push_str(&format!(
            "{:>4}  {:<width$}  {:>16} {:>10}  {:>14.4} {:>9.4}\n",
            i + 1,
            label,
            chance(o.p_reach, o.reachable, advice.tail),
            probability(o.loss),
            o.expected_final,
            o.expected_loss
        ));
    }
    s
}

/// The human table of win advice: one line per option, best first, then the opponents
/// and what the figures assume.
fn render_win(advice: &WinAdvice) -> String {
    let mut s = format!(
        "{} | {} | dice {} | {} roll{} left | banked {} | best chance of winning {}\n",
        advice.rules.label(),
        yahtzee_core::text::plural(advice.opponents.len() as u64, "opponent", "opponents"),
        join_faces(&advice.dice),
        advice.rolls_left,
        if advice.rolls_left == 1 { "" } else { "s" },
        advice.banked,
        probability(advice.p_win)
    );
    s.push_str(&chance_rows(advice.options.iter().map(|o| {
        (
            o.action.to_string(),
            [o.p_win, o.loss],
            [o.expected_final, o.expected_loss],
        )
    })));
    for (i, o) in advice.opponents.iter().enumerate() {
        let [p10, p25, p50, p75, p90] = o.percentiles;
        match o.finished {
            Some(score) => s.push_str(&format!("opponent {}: finished with {score}\n", i + 1)),
            None => s.push_str(&format!(
                "opponent {}: final score mean {:.1}, percentiles 10/25/50/75/90: {p10}/{p25}/{p50}/{p75}/{p90}, range {}..{}\n",
                i + 1,
                o.mean,
                o.min,
                o.max
            )),
        }
    }
    s.push_str(&format!("model: {}\n", advice.model));
    s
}

/// The human table: one line per option, best first.
fn render(advice: &Advice) -> String {
    let mut s = format!(
        "{} | dice {} | {} roll{} left | banked {}\n",
        advice.rules.label(),
        join_faces(&advice.dice),
        advice.rolls_left,
        if advice.rolls_left == 1 { "" } else { "s" },
        advice.banked
    );
    let rows = advice
        .options
        .iter()
        .map(|o| (o.to_string(), o.expected_final(), o.loss()));
    push_ranked(&mut s, "expected final", rows);
    s
}

/// The ranked options under `value` (its column's title): rank, option, value and loss, one
/// line each, the options' column as wide as the longest.
fn push_ranked(s: &mut String, value: &str, rows: impl Iterator<Item = (String, f64, f64)>) {
    let rows: Vec<(String, f64, f64)> = rows.collect();
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(6);
    s.push_str(&format!(
        "{:>4}  {:<width$}  {:>14} {:>9}\n",
        "rank", "option", value, "loss"
    ));
    for (i, (label, v, loss)) in rows.iter().enumerate() {
        s.push_str(&format!(
            "{:>4}  {:<width$}  {:>14.4} {:>9.4}\n",
            i + 1,
            label,
            v,
            loss
        ));
    }
}

/// The human table of advice under a θ: one line per option, best first, by certainty
/// equivalent.
fn render_theta(advice: &ThetaAdvice) -> String {
    let mut s = format!(
        "{} | θ {} | dice {} | {} roll{} left | banked {}\n",
        advice.rules.label(),
        advice.theta,
        join_faces(&advice.dice),
        advice.rolls_left,
        if advice.rolls_left == 1 { "" } else { "s" },
        advice.banked
    );
    let rows = advice
        .options
        .iter()
        .map(|o| (o.action.to_string(), o.certainty_equivalent, o.loss));
    push_ranked(&mut s, "certainty eq.", rows);
    s
}

/// The human table of two-player advice: one line per option, best first.
fn render_two_player(advice: &yahtzee_core::policy::two_player::TwoPlayerAdvice) -> String {
    let mut s = format!(
        "{} for two | you are the {} player, lead {} | dice {} | {} roll{} left | best chance of winning (ties half) {}\n",
        advice.rules.label(),
        advice.you_are,
        advice.lead,
        join_faces(&advice.dice),
        advice.rolls_left,
        if advice.rolls_left == 1 { "" } else { "s" },
        probability(advice.value)
    );
    s.push_str(&chance_rows(advice.options.iter().map(|o| {
        (
            o.action.to_string(),
            [o.value, o.loss],
            [o.expected_final, o.expected_loss],
        )
    })));
    s
}

/// The option lines of a table ranked by a chance of winning: each option's label, its chance
/// and loss in chance, its expected final score and loss in points, best first.
fn chance_rows(options: impl Iterator<Item = (String, [f64; 2], [f64; 2])>) -> String {
    let options: Vec<_> = options.collect();
    let width = options
        .iter()
        .map(|(label, ..)| label.len())
        .max()
        .unwrap_or(0)
        .max(6);
    let mut s = format!(
        "{:>4}  {:<width$}  {:>10} {:>10}  {:>14} {:>9}\n",
        "rank", "option", "P(win)", "loss", "expected final", "loss"
    );
    for (i, (label, [p, loss], [expected, expected_loss])) in options.iter().enumerate() {
        s.push_str(&format!(
            "{:>4}  {:<width$}  {:>10} {:>10}  {:>14.4} {:>9.4}\n",
            i + 1,
            label,
            probability(*p),
            probability(*loss),
            expected,
            expected_loss
        ));
    }
    s
}
