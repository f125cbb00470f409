//! `yahtzee stats`: the exact distribution of the final score under optimal play, or under
//! the target policy beside it (`--target T`).

use std::io::Write;

use anyhow::{Result, bail};

use super::report as summary;
use crate::cli::StatsArgs;
use crate::plot::Curve;
use yahtzee_core::game::rules::Rules;
use yahtzee_core::game::state::ScoreCard;
use yahtzee_core::policy::expected::{Position, check_rolls_left};
use yahtzee_core::policy::target::TargetPlayer;
use yahtzee_core::report::{self, FromReport, StatsReport, TargetStatsReport};
use yahtzee_core::stats::Start;
use yahtzee_core::stats::distribution::Summary;
use yahtzee_core::stats::distribution::Tally;
use yahtzee_core::stats::events::JointFigures;
use yahtzee_core::stats::joint::{self, JointReport};
use yahtzee_core::tables::default_table_path;
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::set::TableKind;
use yahtzee_core::text::probability;

pub fn run(args: &StatsArgs) -> Result<()> {
    if args.rules.all().len() > 1 {
        return run_several(args);
    }
    let rules = args.rules.rules();
    if rules.saved_rolls() {
        if args.theta.is_some() || args.frontier {
            bail!(yahtzee_core::tables::set::saved_rolls_only(
                &rules,
                "--theta and --frontier"
            ));
        }
        return run_saved(args, rules);
    }
    if args.frontier {
        return run_frontier(args, rules);
    }
    let paths = super::score_table_paths(&args.tables);
    summary::check(&args.report, &paths.path(&rules, TableKind::ExpectedScore))?;
    if args.target.is_some() {
        summary::check(&args.report, &paths.path(&rules, TableKind::Target))?;
    }
    // The start is checked before any table is loaded or built.
    let start = start(args, rules)?;
    let joint_boxes = check_joint(args, &rules, &paths.path(&rules, TableKind::ExpectedScore))?;
    if args.events {
        if args.target.is_some() {
            bail!(
                "--events is computed for expected-score play: leave out --target (the target policy's events are not computed)"
            );
        }
        if !rules.set.solves_in_seconds() {
            bail!(
                "--events is computed for cards of at most 15 boxes; {} has {}",
                rules.label(),
                rules.box_count()
            );
        }
    }
    if let Some(t) = args.target {
        return run_target(args, t, start.as_ref());
    }
    if let Some(theta) = args.theta {
        return run_theta(args, theta, start.as_ref());
    }
    let pool = super::thread_pool(args.threads)?;
    let tables = super::tables_at(rules, args.tables.table.as_deref());
    tables.check(TableKind::ExpectedScore)?;
    check_exact(&rules)?;
    let table = pool.install(|| tables.ev())?;
    let (mut report, tally) = distribution(
        &pool,
        table,
        start.as_ref(),
        &args.report.at_least,
        args.events,
    )?;
    if !joint_boxes.is_empty() {
        let joint = boxes_joint(&pool, table, start.as_ref(), &joint_boxes)?;
        if let Some(path) = &args.joint_csv {
            joint
                .write_csv(path)
                .map_err(|e| anyhow::anyhow!("--joint-csv {}: {e}", path.display()))?;
        }
        report.box_joint = Some(joint);
    }
    let title = match &report.from {
        None => format!("{}: final score under optimal play (exact)", rules.label()),
        Some(_) => format!(
            "{}: final score under optimal play from the position (exact)",
            rules.label()
        ),
    };
    summary::write_files(
        &args.report,
        &tally,
        &report.summary,
        &title,
        &report::Provenance::of(Some(table)),
    )?;
    super::print_result(
        args.report.json,
        &report::stamped(&report, Some(table)),
        |out| write_exact(out, &report),
    )?;
    Ok(())
}

/// The human text of an exact distribution of the expected-score policy.
fn write_exact(out: &mut impl Write, report: &StatsReport) -> std::io::Result<()> {
    let rules = report.rules;
    let from = from_phrase(report.from.as_ref());
    writeln!(
        out,
        "{}: exact distribution of the final score under optimal play{from} (solver mean {:.10}; {:.1} s on {} threads)",
        rules.label(),
        report.solver_mean,
        report.seconds,
        report.threads
    )?;
    summary::write_summary(out, &report.summary, &rules)?;
    if let Some(joint) = &report.joint {
        write_joint(out, joint)?;
    }
    if let Some(joint) = &report.box_joint {
        write_box_joint(out, joint)?;
    }
    writeln!(out, "ties: {}", report.tie_convention)?;
    Ok(())
}

/// The boxes of `--joint` (none without it), its CSV file checked: before any table is read.
fn check_joint(args: &StatsArgs, rules: &Rules, table: &std::path::Path) -> Result<Vec<usize>> {
    if args.joint.is_empty() {
        return Ok(Vec::new());
    }
    if args.joint.len() > 2 {
        bail!(
            "--joint takes one box or two, comma-separated (e.g. `yahtzee,chance`), not {}",
            args.joint.len()
        );
    }
    let boxes = (args.joint.iter())
        .map(|name| yahtzee_core::game::state::box_named(rules, name))
        .collect::<Result<Vec<usize>, _>>()?;
    if boxes.len() == 2 && boxes[0] == boxes[1] {
        bail!(
            "--joint names {} twice: give two different boxes, or one",
            args.joint[0]
        );
    }
    if !rules.set.solves_in_seconds() {
        bail!(
            "--joint is computed for cards of at most 15 boxes; {} has {}",
            rules.label(),
            rules.box_count()
        );
    }
    if let Some(path) = &args.joint_csv {
        super::check_output("--joint-csv", path, &[table])?;
        super::distinct_outputs(&[
            ("--pmf", args.report.pmf.as_deref()),
            ("--plot", args.report.plot.as_deref()),
            ("--joint-csv", Some(path)),
        ])?;
    }
    Ok(boxes)
}

/// The joint distribution of `boxes` of `table` from `start`, with a progress bar.
fn boxes_joint(
    pool: &rayon::ThreadPool,
    table: &StrategyTable,
    start: Option<&Start>,
    boxes: &[usize],
) -> Result<JointReport> {
    let rules = table.rules();
    let names: Vec<&str> = boxes.iter().map(|&i| rules.boxes()[i].name()).collect();
    let joint = super::with_progress(
        &format!(
            "joint distribution of {}'s {}",
            rules.label(),
            names.join(" and ")
        ),
        "turns",
        |progress| pool.install(|| joint::boxes_joint(table, start, boxes, progress)),
    );
    Ok(joint::report(&joint?))
}

/// The human text of the joint distribution of a box (or two) with the final score.
fn write_box_joint(out: &mut impl Write, joint: &JointReport) -> std::io::Result<()> {
    for b in &joint.boxes {
        let name = b.box_name;
        writeln!(out)?;
        writeln!(
            out,
            "{name} and the final score (exact; the joint table in --json and --joint-csv):"
        )?;
        writeln!(
            out,
            "  {:>6} {:>14} {:>10} {:>8} {:>5} {:>6} {:>5}",
            "points", "probability", "mean", "SD", "5%", "median", "95%"
        )?;
        for v in &b.values {
            let at = |percent: f64| {
                (v.percentiles.iter())
                    .find(|p| p.percent == percent)
                    .map_or(0, |p| p.score)
            };
            writeln!(
                out,
                "  {:>6} {:>14} {:>10.4} {:>8.4} {:>5} {:>6} {:>5}",
                v.points,
                probability(v.probability),
                v.mean,
                v.std_dev,
                at(5.0),
                v.median,
                at(95.0)
            )?;
        }
        writeln!(
            out,
            "  covariance with the final score {:.6}, correlation {:.6}",
            b.covariance_with_score, b.correlation_with_score
        )?;
    }
    if let Some(pair) = &joint.pair {
        let [first, second] = pair.boxes;
        writeln!(out)?;
        writeln!(
            out,
            "{first} and {second} (exact; points of each, probability):"
        )?;
        if pair.table.len() <= 40 {
            for (p, q, m) in &pair.table {
                writeln!(out, "  {p:>6} {q:>6} {:>14}", probability(*m))?;
            }
        } else {
            writeln!(
                out,
                "  {} pairs: in --json and --joint-csv",
                pair.table.len()
            )?;
        }
        writeln!(
            out,
            "  covariance {:.6}, correlation {:.6}",
            pair.covariance, pair.correlation
        )?;
    }
    Ok(())
}

/// The human text of the exact events and joint figures.
fn write_joint(out: &mut impl Write, joint: &JointFigures) -> std::io::Result<()> {
    writeln!(out)?;
    writeln!(out, "events (exact probability that a game has it):")?;
    for e in &joint.events {
        writeln!(
            out,
            "  {:<24} {:>10}  {}",
            e.name,
            probability(e.probability),
            e.meaning
        )?;
    }
    if let Some(b) = &joint.bonus_by_five_of_a_kind {
        writeln!(out)?;
        let name = b.five_of_a_kind_box;
        writeln!(
            out,
            "upper bonus by {name}: {:>14} {:>14}",
            format!("{name} scored"),
            format!("{name} 0")
        )?;
        writeln!(
            out,
            "  {:<26} {:>14} {:>14}",
            "bonus",
            probability(b.both),
            probability(b.bonus_only)
        )?;
        writeln!(
            out,
            "  {:<26} {:>14} {:>14}",
            "no bonus",
            probability(b.five_of_a_kind_only),
            probability(b.neither)
        )?;
    }
    let c = &joint.covariance;
    writeln!(out)?;
    writeln!(
        out,
        "correlations of the final points (rows and columns in this order; the covariances in --json, summing to the variance of the final score):"
    )?;
    let width = c.rows.iter().map(String::len).max().unwrap_or(0);
    for (name, row) in c.rows.iter().zip(&c.correlation) {
        let cells: Vec<String> = row.iter().map(|x| format!("{x:>6.3}")).collect();
        writeln!(out, "  {name:<width$} {}", cells.join(" "))?;
    }
    let total: f64 = c.matrix.iter().flatten().sum();
    writeln!(
        out,
        "  sum of the covariances {total:.6} (standard deviation {:.6})",
        total.max(0.0).sqrt()
    )?;
    Ok(())
}

/// `stats` of a game of saved rolls: the exact distribution from a new game, for cards of at
/// most 15 boxes (Yatzy with saved rolls); the others are refused before any table is read.
fn run_saved(args: &StatsArgs, rules: Rules) -> Result<()> {
    let label = rules.label();
    if args.events || !args.joint.is_empty() {
        bail!(
            "--events and --joint are computed for games without saved rolls; {label} saves rolls: leave them out"
        );
    }
    yahtzee_core::stats::saved::check_saved_stats(
        &rules,
        args.card.is_some() || args.dice.is_some(),
        args.target.is_some(),
    )
    .map_err(anyhow::Error::msg)?;
    let paths = super::score_table_paths(&args.tables);
    summary::check(&args.report, &paths.path(&rules, TableKind::ExpectedScore))?;
    let pool = super::thread_pool(args.threads)?;
    let tables = super::tables_at(rules, args.tables.table.as_deref());
    let table = pool.install(|| tables.saved())?;
    let (report, tally) =
        super::with_progress(&format!("distribution of {label}"), "turns", |progress| {
            pool.install(|| report::stats_saved(&table, &args.report.at_least, progress))
        });
    summary::write_files(
        &args.report,
        &tally,
        &report.summary,
        &format!("{label}: final score under optimal play (exact)"),
        &report::Provenance::by(&tables),
    )?;
    super::print_result(
        args.report.json,
        &report::stamped_by(&report, &tables),
        |out| write_exact(out, &report),
    )
}

/// " from the card ... with ... showing and N rolls left", or nothing for a new game.
fn from_phrase(from: Option<&FromReport>) -> String {
    let Some(from) = from else {
        return String::new();
    };
    format!(
        " from {}{}",
        if from.card.is_empty() {
            "a new card".to_string()
        } else {
            format!("the card {} ({} points)", from.card, from.banked)
        },
        match (&from.dice, from.rolls_left) {
            (Some(dice), Some(left)) => format!(
                " with {} showing and {left} roll{} left",
                dice.iter().map(u8::to_string).collect::<Vec<_>>().join(" "),
                if left == 1 { "" } else { "s" }
            ),
            _ => String::new(),
        }
    )
}

/// `stats --theta X`, from `start` (`None`: a new game).
fn run_theta(
    args: &StatsArgs,
    theta: yahtzee_core::solve::theta::Theta,
    start: Option<&Start>,
) -> Result<()> {
    let rules = args.rules.rules();
    let pool = super::thread_pool(args.threads)?;
    let tables = super::tables(
        rules,
        super::score_table_paths(&args.tables),
        super::RulesFrom::Flags,
    );
    tables.check(TableKind::Theta(theta))?;
    check_exact(&rules)?;
    let table = pool.install(|| tables.theta(theta))?;
    let (report, tally) = super::with_progress(
        &format!("distribution of {} under θ = {theta}", rules.label()),
        "turns",
        |progress| {
            pool.install(|| report::stats_theta(table, start, &args.report.at_least, progress))
        },
    )?;
    summary::write_files(
        &args.report,
        &tally,
        &report.summary,
        &format!(
            "{}: final score under θ = {theta}{} (exact)",
            rules.label(),
            if start.is_some() {
                " from the position"
            } else {
                ""
            }
        ),
        &report::Provenance::of(Some(table)),
    )?;
    let stamped = report::stamped(&report, Some(table));
    super::print_result(args.report.json, &stamped, |out| {
        writeln!(
            out,
            "{}: exact distribution of the final score under the exponential utility of θ = {theta}{} ({:.1} s on {} threads)",
            rules.label(),
            from_phrase(report.from.as_ref()),
            report.seconds,
            report.threads
        )?;
        writeln!(
            out,
            "certainty equivalent {:.6} by the θ table, {:.6} by the distribution ((1/θ) ln E[e^(θ·score)])",
            report.certainty_equivalent, report.distribution_certainty_equivalent
        )?;
        summary::write_summary(out, &report.summary, &rules)?;
        writeln!(out, "ties: {}", report.tie_convention)
    })?;
    Ok(())
}

/// dlangk/yatzy's grid of θ (`configs/theta_grid.toml`, `all`): 37 values from -3 to 3, dense
/// near 0; 0 is the expected score's policy.
pub const DEFAULT_THETAS: [f64; 37] = [
    -3.0, -2.0, -1.5, -1.0, -0.75, -0.5, -0.3, -0.2, -0.15, -0.1, -0.07, -0.05, -0.04, -0.03,
    -0.02, -0.015, -0.01, -0.005, 0.0, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.07, 0.1, 0.15,
    0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0,
];

/// `stats --frontier`: every θ of the grid and every target, one table and one exact pass
/// each, the figures of each and the θ that maximises each percentile.
fn run_frontier(args: &StatsArgs, rules: Rules) -> Result<()> {
    use yahtzee_core::report::FRONTIER_PERCENTILES;
    use yahtzee_core::solve::theta::Theta;
    let thetas: Vec<Option<Theta>> = if args.thetas.is_empty() {
        DEFAULT_THETAS
            .iter()
            .map(|&x| (x != 0.0).then(|| Theta::new(x).expect("the grid's θ are θ")))
            .collect()
    } else {
        args.thetas.clone()
    };
    let paths = super::score_table_paths(&args.tables);
    if let Some(csv) = &args.csv {
        let table = paths.path(&rules, TableKind::ExpectedScore);
        super::check_output("--csv", csv, &[table.as_path()])?;
    }
    summary::check(&args.report, &paths.path(&rules, TableKind::ExpectedScore))?;
    let pool = super::thread_pool(args.threads)?;
    let tables = super::tables(rules, paths, super::RulesFrom::Flags);
    tables.check(TableKind::ExpectedScore)?;
    if !args.targets.is_empty() {
        tables.check(TableKind::Target)?;
    }
    check_exact(&rules)?;
    let ev = pool.install(|| tables.ev())?;
    if !args.targets.is_empty() {
        pool.install(|| tables.target())?;
    }
    let bar = super::progress_bar(&format!("frontier of {}", rules.label()), "policies");
    let target_player = |t: u32| TargetPlayer::new(ev, tables.target().expect("loaded above"), t);
    let report = pool.install(|| {
        report::frontier(
            ev,
            &thetas,
            &args.targets,
            &target_player,
            &|done, total, policy| {
                bar.set_length(total);
                bar.set_position(done);
                bar.set_message(format!("frontier of {}: {policy}", rules.label()));
            },
        )
    });
    bar.finish_and_clear();
    let report = report.map_err(anyhow::Error::msg)?;
    if let Some(path) = &args.csv {
        let mut text = String::from("policy,theta,target,mean,std_dev");
        for p in FRONTIER_PERCENTILES {
            text.push_str(&format!(",p{p}"));
        }
        text.push_str(",certainty_equivalent\n");
        for point in &report.policies {
            let or_blank = |x: Option<String>| x.unwrap_or_default();
            text.push_str(&format!(
                "{},{},{},{},{}",
                point.policy,
                or_blank(point.theta.map(|t| t.to_string())),
                or_blank(point.target.map(|t| t.to_string())),
                point.mean,
                point.std_dev
            ));
            for p in &point.percentiles {
                text.push_str(&format!(",{p}"));
            }
            text.push_str(&format!(
                ",{}\n",
                or_blank(point.certainty_equivalent.map(|c| c.to_string()))
            ));
        }
        yahtzee_core::files::write_atomically(path, text.as_bytes())
            .map_err(|e| anyhow::anyhow!("--csv {}: {e}", path.display()))?;
    }
    let stamped = report::stamped(&report, Some(ev));
    super::print_result(args.report.json, &stamped, |out| {
        writeln!(
            out,
            "{}: exact frontier of the final score over θ and targets ({:.1} s)",
            rules.label(),
            report.seconds
        )?;
        write!(out, "{:<14} {:>9} {:>7}", "policy", "mean", "sd")?;
        for p in FRONTIER_PERCENTILES {
            write!(out, " {:>5}", format!("p{p}"))?;
        }
        writeln!(out, " {:>10}", "CE")?;
        for point in &report.policies {
            write!(
                out,
                "{:<14} {:>9.4} {:>7.4}",
                point.policy, point.mean, point.std_dev
            )?;
            for p in &point.percentiles {
                write!(out, " {p:>5}")?;
            }
            match point.certainty_equivalent {
                Some(ce) => writeln!(out, " {ce:>10.4}")?,
                None => writeln!(out)?,
            }
        }
        if !report.best_theta.is_empty() {
            writeln!(
                out,
                "\nbest θ of the grid for each percentile (the highest mean among those reaching it):"
            )?;
            for best in &report.best_theta {
                let all: Vec<String> = best.thetas.iter().map(f64::to_string).collect();
                writeln!(
                    out,
                    "p{:<3} {:>5} at θ = {} (reached by θ in {})",
                    best.percentile,
                    best.score,
                    best.theta,
                    all.join(", ")
                )?;
            }
        }
        Ok(())
    })
}

/// `stats --target T`, from `start` (`None`: a new game).
fn run_target(args: &StatsArgs, target: u32, start: Option<&Start>) -> Result<()> {
    let rules = args.rules.rules();
    let pool = super::thread_pool(args.threads)?;
    let tables = super::tables(
        rules,
        super::score_table_paths(&args.tables),
        super::RulesFrom::Flags,
    );
    let table = pool.install(|| tables.ev())?;
    let targets = pool.install(|| tables.target())?;
    let player = TargetPlayer::new(table, targets, target)?;
    let (report, tally) = super::with_progress(
        &format!("distribution of {} playing for {target}", rules.label()),
        "cards",
        |progress| {
            pool.install(|| report::stats_target(&player, start, &args.report.at_least, progress))
        },
    )?;
    summary::write_files(
        &args.report,
        &tally,
        &report.summary,
        &format!(
            "{}: final score playing for {target}{} (exact)",
            rules.label(),
            if start.is_some() {
                " from the position"
            } else {
                ""
            }
        ),
        &report::Provenance::of(Some(table)),
    )?;
    let stamped = report::stamped(&report, Some(table));
    super::print_result(args.report.json, &stamped, |out| write_target(out, &report))?;
    Ok(())
}

/// The readable report of `stats --target T`.
fn write_target(out: &mut impl Write, r: &TargetStatsReport) -> std::io::Result<()> {
    let t = r.target;
    let e = &r.expected_score;
    writeln!(
        out,
        "{}: exact distribution of the final score playing for {t} or more{} (best chance {} by the target table; {:.1} s on {} threads)",
        r.rules.label(),
        from_phrase(r.from.as_ref()),
        probability(r.table_p_reach),
        r.seconds,
        r.threads
    )?;
    writeln!(
        out,
        "reaches {t} or more: {} of the games against {} under expected-score play ({:+.4}), for a mean score {:.4} lower ({:.4} against {:.4})",
        probability(r.p_reach),
        probability(e.p_reach),
        r.p_reach_gain,
        r.mean_cost,
        r.summary.mean,
        e.summary.mean
    )?;
    writeln!(out)?;
    summary::write_summary(out, &r.summary, &r.rules)?;
    writeln!(out)?;
    let head = format!("playing for {t}");
    writeln!(out, "{:<22} {:>16} {:>16}", "", head, "expected score")?;
    let row = |out: &mut dyn Write, name: &str, a: String, b: String| {
        writeln!(out, "{name:<22} {a:>16} {b:>16}")
    };
    let both = |f: &dyn Fn(&Summary) -> String| (f(&r.summary), f(&e.summary));
    let (a, b) = both(&|s| format!("{:.4}", s.mean));
    row(out, "mean", a, b)?;
    let (a, b) = both(&|s| format!("{:.4}", s.std_dev));
    row(out, "standard deviation", a, b)?;
    let (a, b) = both(&|s| s.median.to_string());
    row(out, "median", a, b)?;
    row(
        out,
        &format!("P(final >= {t})"),
        probability(r.p_reach),
        probability(e.p_reach),
    )?;
    for (x, y) in r.summary.at_least.iter().zip(&e.summary.at_least) {
        if x.score != t {
            row(
                out,
                &format!("P(final >= {})", x.score),
                probability(x.probability),
                probability(y.probability),
            )?;
        }
    }
    writeln!(out, "ties: {}", r.tie_convention)?;
    Ok(())
}

/// Refuses the exact distribution of `rules` when it cannot fit in the memory available
/// (`yahtzee_core::stats::check_exact`), before any table is loaded or built; else says what
/// it takes when it is computed by passes of transforms (a card of more than 15 boxes: an
/// hour or more).
fn check_exact(rules: &Rules) -> Result<()> {
    yahtzee_core::stats::check_exact(rules).map_err(anyhow::Error::msg)?;
    if let Some(plan) = yahtzee_core::stats::exact_plan(rules) {
        note!(
            "the exact distribution of {}: {}",
            rules.label(),
            plan.words()
        );
    }
    Ok(())
}

/// `stats --rules A,B,...`: the exact distribution of each rule set, one line of figures
/// each (JSON: each one's report), overlaid in one --plot.
fn run_several(args: &StatsArgs) -> Result<()> {
    let all = args.rules.all();
    if args.target.is_some() || args.theta.is_some() || args.frontier {
        bail!("--target, --theta and --frontier are of one rule set: give --rules one rule set");
    }
    if args.tables.table.is_some() {
        bail!("--table is the table of one rule set: leave it out to compare several");
    }
    if args.report.pmf.is_some() {
        bail!("--pmf writes one distribution: give --rules one rule set");
    }
    if args.card.is_some() || args.dice.is_some() {
        bail!("--card and --dice are a position of one rule set: give --rules one rule set");
    }
    if args.events || !args.joint.is_empty() {
        bail!("--events and --joint report one rule set: give --rules one rule set");
    }
    for rules in &all {
        summary::check(&args.report, &default_table_path(rules))?;
        super::tables_at(*rules, None).check(TableKind::ExpectedScore)?;
        check_exact(rules)?;
    }
    let pool = super::thread_pool(args.threads)?;
    let mut reports = Vec::with_capacity(all.len());
    let mut sources = Vec::with_capacity(all.len());
    let mut curves = Vec::with_capacity(all.len());
    for rules in all {
        let tables = super::tables_at(rules, None);
        let table = pool.install(|| tables.ev())?;
        let (report, tally) = distribution(&pool, table, None, &args.report.at_least, false)?;
        curves.push(Curve::new(&rules.label(), &tally, &report.summary));
        reports.push(report);
        sources.push(report::Provenance::of(Some(table)));
    }
    // Each report with its own table's provenance, as the report of one rule set has.
    let stamped: Vec<_> = (reports.iter().zip(sources))
        .map(|(result, provenance)| report::Stamped { result, provenance })
        .collect();
    summary::plot_curves(
        &args.report,
        &curves,
        "final score under optimal play (exact)",
        // Several tables: the program alone (each JSON result names its own table).
        &report::Provenance::of(None),
    )?;
    super::print_result(args.report.json, &stamped, |out| {
        writeln!(
            out,
            "exact distributions of the final score under optimal play"
        )?;
        let rows: Vec<_> = (reports.iter())
            .map(|r| (r.rules.label(), &r.summary, None))
            .collect();
        summary::write_comparison(out, "rules", &rows)
    })
}

/// The exact distribution of `table`'s optimal play from `start` (a new game: `None`), with a
/// progress bar.
fn distribution(
    pool: &rayon::ThreadPool,
    table: &StrategyTable,
    start: Option<&Start>,
    at_least: &[u32],
    events: bool,
) -> Result<(StatsReport, Tally)> {
    let label = table.rules().label();
    super::with_progress(&format!("distribution of {label}"), "turns", |progress| {
        pool.install(|| {
            if events {
                report::stats_joint_from(table, start, at_least, progress)
                    .map_err(anyhow::Error::from)
            } else {
                report::stats_from(table, start, at_least, progress).map_err(anyhow::Error::from)
            }
        })
    })
}

/// The start of `--card`, `--dice` and `--rolls-left`: `None` for a new game.
fn start(args: &StatsArgs, rules: Rules) -> Result<Option<Start>> {
    if args.card.is_none() && args.dice.is_none() {
        return Ok(None);
    }
    let card = ScoreCard::parse(
        rules,
        args.card.as_deref().unwrap_or(""),
        args.yahtzee_bonus,
    )?;
    let Some(dice) = &args.dice else {
        return Ok(Some(Start::Card(card)));
    };
    let dice = rules.dice().parse(dice)?;
    let rolls_left = args.rolls_left.unwrap_or(rules.most_rolls_left());
    check_rolls_left(&rules, u32::from(rolls_left))?;
    Ok(Some(Start::Position(Position {
        card,
        dice,
        rolls_left,
    })))
}
