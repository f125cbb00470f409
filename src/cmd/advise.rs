//! `yahtzee advise`: rank the options of a position, or of many positions with `--batch`.

use std::io::Write;

use anyhow::Result;

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::cli::AdviseArgs;
use yahtzee::advice::{Advice, Position, advise};
use yahtzee::batch::{self, BatchError};
use yahtzee::dice::{Dice, join_faces};
use yahtzee::rules::Rules;
use yahtzee::state::ScoreCard;
use yahtzee::table::StrategyTable;
use yahtzee::target::{TargetAdvice, advise_target};
use yahtzee::text::{chance, probability};
use yahtzee::vector::VectorTable;
use yahtzee::win::{Opponent, WinAdvice, advise_win, needs_distribution, parse_opponent_card};

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
    // The opponents, checked before any table is loaded or built.
    let mut opponents = Vec::new();
    for (i, text) in args.opponent.iter().enumerate() {
        let card = parse_opponent_card(rules, text)
            .map_err(|e| anyhow::anyhow!("--opponent {}: {e}", i + 1))?;
        opponents.push(Opponent::Playing(card));
    }
    opponents.extend(args.opponent_final.iter().map(|&n| Opponent::Finished(n)));
    if args.two_player {
        yahtzee::twoplayer::check_rules(&rules)
            .map_err(|e| anyhow::anyhow!("--two-player: {e}"))?;
    }
    let table = super::load_or_build(&rules, args.table.as_deref())?;
    if args.two_player {
        return run_two_player(args, &table, position, &opponents);
    }
    if !opponents.is_empty() {
        // The position is checked before the distribution table is loaded or built.
        advise(&table, &position)?;
        let distribution = if needs_distribution(&opponents) {
            Some(super::load_distribution(
                &table,
                args.distribution_table.as_deref(),
            )?)
        } else {
            None
        };
        let advice = advise_win(&table, distribution.as_ref(), &position, &opponents)?;
        super::print_result(args.json, &advice, |out| {
            out.write_all(render_win(&advice).as_bytes())?;
            Ok(())
        })?;
        return Ok(());
    }
    if let Some(target) = args.target {
        let targets = super::load_target(&rules, args.target_table.as_deref())?;
        let advice = advise_target(&table, &targets, &position, target)?;
        super::print_result(args.json, &advice, |out| {
            out.write_all(render_target(&advice).as_bytes())?;
            Ok(())
        })?;
        return Ok(());
    }
    let advice = advise(&table, &position)?;
    super::print_result(args.json, &advice, |out| {
        out.write_all(render(&advice, &table).as_bytes())?;
        Ok(())
    })?;
    Ok(())
}

/// The tables of `advise --batch`: the expected-score table, and the target table loaded
/// (or built) when a query first names a target.
struct BatchTables {
    ev: StrategyTable,
    rules: Rules,
    target_path: Option<PathBuf>,
    target: OnceLock<Result<VectorTable<f32>, String>>,
    distribution_path: Option<PathBuf>,
    distribution: OnceLock<Result<VectorTable<f32>, String>>,
}

impl batch::Tables for BatchTables {
    fn ev(&self) -> &StrategyTable {
        &self.ev
    }

    fn target(&self) -> Result<&VectorTable<f32>, BatchError> {
        self.target
            .get_or_init(|| {
                super::load_target(&self.rules, self.target_path.as_deref())
                    .map_err(|e| format!("{e:#}"))
            })
            .as_ref()
            .map_err(|e| BatchError::NoTargetTable(e.clone()))
    }

    fn distribution(&self) -> Result<&VectorTable<f32>, BatchError> {
        self.distribution
            .get_or_init(|| {
                super::load_distribution(&self.ev, self.distribution_path.as_deref())
                    .map_err(|e| format!("{e:#}"))
            })
            .as_ref()
            .map_err(|e| BatchError::NoDistributionTable(e.clone()))
    }
}

/// `--batch`: the library's batch protocol over stdin and stdout.
fn run_batch(args: &AdviseArgs, rules: Rules) -> Result<()> {
    if args.target.is_some() {
        anyhow::bail!(
            "--target is refused with --batch: give each query its own target, e.g. {{\"dice\": [1, 3, 3, 5, 6], \"target\": 300}}"
        );
    }
    let tables = BatchTables {
        ev: super::load_or_build(&rules, args.table.as_deref())?,
        rules,
        target_path: args.target_table.clone(),
        target: OnceLock::new(),
        distribution_path: args.distribution_table.clone(),
        distribution: OnceLock::new(),
    };
    batch::run(&tables, std::io::stdin().lock(), std::io::stdout().lock())?;
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
        yahtzee::text::plural(advice.opponents.len() as u64, "opponent", "opponents"),
        join_faces(&advice.dice),
        advice.rolls_left,
        if advice.rolls_left == 1 { "" } else { "s" },
        advice.banked,
        probability(advice.p_win)
    );
    let labels: Vec<String> = advice
        .options
        .iter()
        .map(|o| o.action.to_string())
        .collect();
    let width = labels.iter().map(String::len).max().unwrap_or(0).max(6);
    s.push_str(&format!(
        "{:>4}  {:<width$}  {:>10} {:>10}  {:>14} {:>9}\n",
        "rank", "option", "P(win)", "loss", "expected final", "loss"
    ));
    for (i, (o, label)) in advice.options.iter().zip(&labels).enumerate() {
        s.push_str(&format!(
            "{:>4}  {:<width$}  {:>10} {:>10}  {:>14.4} {:>9.4}\n",
            i + 1,
            label,
            probability(o.p_win),
            probability(o.loss),
            o.expected_final,
            o.expected_loss
        ));
    }
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

/// `advise --two-player`: the options ranked by the exact chance of winning a game of two.
fn run_two_player(
    args: &AdviseArgs,
    table: &StrategyTable,
    position: Position,
    opponents: &[Opponent],
) -> Result<()> {
    use yahtzee::twoplayer::{TwoPlayerPosition, advise_two_player, next_ply, reads_early_table};
    let rules = *table.rules();
    let (opponent, opponent_points) = match opponents {
        [Opponent::Playing(card)] => (card.state().filled, card.banked()),
        [Opponent::Finished(points)] => (rules.full_mask(), *points),
        _ => anyhow::bail!(
            "--two-player takes exactly one --opponent (or --opponent-final), not {}",
            opponents.len()
        ),
    };
    let lead = args
        .lead
        .unwrap_or_else(|| i64::from(position.card.banked()) - i64::from(opponent_points));
    let at = TwoPlayerPosition {
        position,
        opponent,
        lead,
    };
    // The position is checked before anything is solved.
    advise(table, &at.position)?;
    at.start()?;
    let simd = yahtzee::solver::SolveOptions::default().simd;
    let early = if reads_early_table(&at) {
        Some(load_early(args, rules)?)
    } else {
        None
    };
    let bar = super::progress_bar("solving the rest of the game", "pairs");
    let next = next_ply(rules, &at, early.as_ref(), simd, &|d, t| {
        bar.set_length(t);
        bar.set_position(d);
    });
    bar.finish_and_clear();
    let advice = advise_two_player(table, &next?, &at)?;
    super::print_result(args.json, &advice, |out| {
        out.write_all(render_two_player(&advice).as_bytes())?;
        Ok(())
    })
}

/// The human table of two-player advice: one line per option, best first.
fn render_two_player(advice: &yahtzee::twoplayer::TwoPlayerAdvice) -> String {
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
    let labels: Vec<String> = advice
        .options
        .iter()
        .map(|o| o.action.to_string())
        .collect();
    let width = labels.iter().map(String::len).max().unwrap_or(0).max(6);
    s.push_str(&format!(
        "{:>4}  {:<width$}  {:>10} {:>10}  {:>14} {:>9}\n",
        "rank", "option", "P(win)", "loss", "expected final", "loss"
    ));
    for (i, (o, label)) in advice.options.iter().zip(&labels).enumerate() {
        s.push_str(&format!(
            "{:>4}  {:<width$}  {:>10} {:>10}  {:>14.4} {:>9.4}\n",
            i + 1,
            label,
            probability(o.value),
            probability(o.loss),
            o.expected_final,
            o.expected_loss
        ));
    }
    s
}

/// The table of the first turns of two-player play at `--two-player-table` (absent: the
/// cache folder), solved and saved first when the file does not exist.
fn load_early(args: &AdviseArgs, rules: Rules) -> Result<yahtzee::twoplayer::EarlyTable> {
    use yahtzee::table::TableError;
    use yahtzee::twoplayer::{EarlyTable, Game, TWO_PLAYER, Ties, solve_report};
    let path = args
        .two_player_table
        .clone()
        .unwrap_or_else(|| yahtzee::table::default_table_path_of(&rules, TWO_PLAYER));
    let fix = |e: TableError| {
        anyhow::anyhow!(
            "--two-player-table: {e}; rebuild it with `yahtzee solve --rules {}{} --two-player --out {}`",
            rules.set.name(),
            if rules.order == yahtzee::rules::Order::UpperFirst {
                " --upper-first"
            } else {
                ""
            },
            path.display()
        )
    };
    match EarlyTable::load(&path, &rules) {
        Ok(t) => return Ok(t),
        Err(TableError::Read { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(fix(e)),
    }
    eprintln!(
        "no two-player table for {} at {}: building it once (the whole game, a few minutes)",
        rules.label(),
        path.display()
    );
    let game = Game::optimal(rules)?;
    let bar = super::progress_bar(&format!("solving two-player {}", rules.label()), "pairs");
    let solved = solve_report(
        &game,
        Ties::Values,
        Some(&path),
        yahtzee::solver::SolveOptions::default().simd,
        &|d, t| {
            bar.set_length(t);
            bar.set_position(d);
        },
    );
    bar.finish_and_clear();
    solved.map_err(|e| anyhow::anyhow!("{e}"))?;
    EarlyTable::load(&path, &rules).map_err(fix)
}
