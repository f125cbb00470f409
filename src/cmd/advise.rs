//! `yahtzee advise`: rank the options of a position, or of many positions with `--batch`.

use std::io::Write;

use anyhow::Result;

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::cli::AdviseArgs;
use yahtzee_core::batch::{self, BatchError};
use yahtzee_core::game::dice::{Dice, join_faces};
use yahtzee_core::game::rules::Rules;
use yahtzee_core::game::state::ScoreCard;
use yahtzee_core::policy::expected::{Advice, Position, advise};
use yahtzee_core::policy::target::{TargetAdvice, advise_target};
use yahtzee_core::policy::win::{
    Opponent, WinAdvice, advise_win, needs_distribution, parse_opponent_card,
};
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::vector::VectorTable;
use yahtzee_core::text::{chance, probability};

pub fn run(args: &AdviseArgs) -> Result<()> {
    let rules = args.rules.rules();
    if args.two_player_table.is_some() && !args.two_player && !args.batch {
        anyhow::bail!(
            "--two-player-table is read by --two-player (or by --batch queries with \"two_player\": true): add --two-player, or drop --two-player-table"
        );
    }
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
        yahtzee_core::solve::two_player::check_rules(&rules)
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
    two_player_path: Option<PathBuf>,
    two_player: OnceLock<Result<yahtzee_core::tables::two_player::EarlyTable, String>>,
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

    fn two_player(&self) -> Result<&yahtzee_core::tables::two_player::EarlyTable, BatchError> {
        self.two_player
            .get_or_init(|| {
                super::load_two_player(&self.rules, self.two_player_path.as_deref())
                    .map_err(|e| format!("{e:#}"))
            })
            .as_ref()
            .map_err(|e| BatchError::NoTwoPlayerTable(e.clone()))
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
        two_player_path: args.two_player_table.clone(),
        two_player: OnceLock::new(),
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
        yahtzee_core::text::plural(advice.opponents.len() as u64, "opponent", "opponents"),
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
    use yahtzee_core::policy::two_player::{
        TwoPlayerPosition, advise_at, check_position, reads_early_table,
    };
    let rules = *table.rules();
    let [opponent] = opponents else {
        anyhow::bail!(
            "--two-player takes exactly one --opponent (or --opponent-final), not {}",
            opponents.len()
        );
    };
    let at = TwoPlayerPosition::against(position, opponent, args.lead);
    // The position is checked before anything is read or solved.
    check_position(table, &at)?;
    let simd = yahtzee_core::solve::expected::SolveOptions::default().simd;
    let early = if reads_early_table(&at) {
        Some(super::load_two_player(
            &rules,
            args.two_player_table.as_deref(),
        )?)
    } else {
        None
    };
    let bar = super::progress_bar("solving the rest of the game", "pairs");
    let advice = advise_at(table, &at, early.as_ref(), simd, &|d, t| {
        bar.set_length(t);
        bar.set_position(d);
    });
    bar.finish_and_clear();
    let advice = advice?;
    super::print_result(args.json, &advice, |out| {
        out.write_all(render_two_player(&advice).as_bytes())?;
        Ok(())
    })
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
