//! What `stats` and `simulate` share: the readable summary of a distribution, and writing
//! the optional CSV and SVG files.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::cli::ReportArgs;
use crate::plot::{Curve, Encoding, plot};
use yahtzee_core::Rules;
use yahtzee_core::report::Provenance;
use yahtzee_core::stats::distribution::{Interval, Split, Summary, Tally};
use yahtzee_core::text::probability;

/// Checks the report options before any long computation; `table` is the table the command
/// reads or builds, which no output overwrites.
pub fn check(args: &ReportArgs, table: &Path) -> Result<()> {
    if args.at_least.is_empty() {
        bail!("--at-least needs at least one score, e.g. --at-least 200,250,300");
    }
    for (flag, path) in [("--pmf", &args.pmf), ("--plot", &args.plot)] {
        if let Some(p) = path {
            super::check_output(flag, p, &[table])?;
        }
    }
    super::distinct_outputs(&[
        ("--pmf", args.pmf.as_deref()),
        ("--plot", args.plot.as_deref()),
    ])?;
    if let Some(p) = &args.plot {
        Encoding::of(p).map_err(|e| anyhow::anyhow!("--plot {e}"))?;
    }
    Ok(())
}

/// Writes the CSV file and the plot asked for, of `tally` whose figures are `summary`.
/// `source` is where the figures come from (`Provenance::line`), printed under the plot.
pub fn write_files(
    args: &ReportArgs,
    tally: &Tally,
    summary: &Summary,
    title: &str,
    source: &Provenance,
) -> Result<()> {
    if let Some(path) = &args.pmf {
        tally
            .write_pmf_csv(path)
            .with_context(|| format!("cannot write --pmf {}", path.display()))?;
    }
    if let Some(path) = &args.plot {
        plot(
            path,
            title,
            &source.line(),
            &[Curve::new("", tally, summary)],
            &args.plot_style(),
        )?;
    }
    Ok(())
}

/// A probability, with its 95% interval when it is a share of simulated games.
fn share(p: f64, interval: Option<Interval>) -> String {
    match interval {
        Some(i) => format!(
            "{} [{}, {}]",
            probability(p),
            probability(i.low),
            probability(i.high)
        ),
        None => probability(p),
    }
}

/// The readable summary of a distribution of `rules` (of a simulation: each share with its
/// 95% interval).
pub fn write_summary(out: &mut impl Write, s: &Summary, rules: &Rules) -> std::io::Result<()> {
    writeln!(
        out,
        "mean {:.4}, standard deviation {:.4}, median {}, lowest {}, highest {}",
        s.mean, s.std_dev, s.median, s.min, s.max
    )?;
    let percentiles: Vec<String> = s
        .percentiles
        .iter()
        .map(|p| format!("{}%: {}", p.percent, p.score))
        .collect();
    writeln!(out, "percentiles  {}", percentiles.join("  "))?;
    let h = &s.shape;
    writeln!(
        out,
        "shape        skewness {:.4}, excess kurtosis {:.4}, mean of the worst 5% {:.4} (CVaR 5%), of the best 5% {:.4}",
        h.skewness, h.excess_kurtosis, h.cvar_5, h.top_5_mean
    )?;
    let at_least: Vec<String> = s
        .at_least
        .iter()
        .map(|a| format!(">={}: {}", a.score, share(a.probability, a.interval)))
        .collect();
    writeln!(out, "P(score)     {}", at_least.join("  "))?;
    writeln!(out)?;
    let zero_width = if s.fifty_interval.is_some() { 26 } else { 8 };
    writeln!(
        out,
        "{:<18} {:>8} {:>zero_width$}",
        "box", "mean", "P(zero)"
    )?;
    for b in &s.boxes {
        writeln!(
            out,
            "{:<18} {:>8.2} {:>zero_width$}",
            b.name,
            b.mean,
            share(b.zero_probability, b.zero_interval)
        )?;
    }
    if let Some(u) = &s.upper_bonus {
        // P(no bonus): the interval of the complement is the complement of the interval.
        let none = u.interval.map(|i| Interval {
            low: 1.0 - i.high,
            high: 1.0 - i.low,
        });
        writeln!(
            out,
            "{:<18} {:>8.2} {:>zero_width$}",
            "upper bonus",
            u.mean,
            share(1.0 - u.probability, none)
        )?;
    }
    writeln!(out)?;
    // The five-of-a-kind box by its own name and points (50 in yacht, 100 in maxi).
    if let Some(b) = rules.five_of_a_kind_box() {
        writeln!(
            out,
            "P({} in {}) {}",
            rules.five_of_a_kind_points(),
            rules.boxes()[b].name(),
            share(s.fifty_probability, s.fifty_interval)
        )?;
    }
    if let Some(u) = &s.upper_bonus {
        writeln!(out, "P(upper bonus) {}", share(u.probability, u.interval))?;
    }
    if let Some(y) = &s.yahtzee_bonuses {
        let counts: Vec<String> = y
            .count_probability
            .iter()
            .enumerate()
            .filter(|&(_, &p)| p > 0.0)
            .map(|(k, &p)| {
                let interval = y.count_intervals.as_ref().map(|i| i[k]);
                format!("{k}: {}", share(p, interval))
            })
            .collect();
        writeln!(
            out,
            "Yahtzee bonuses: mean count {:.4} ({:.2} points); P(count) {}",
            y.mean_count,
            y.mean,
            counts.join("  ")
        )?;
    }
    if let Some(split) = &s.split {
        write_split(out, split)?;
    }
    Ok(())
}

/// The distribution split by the upper bonus and the five-of-a-kind box: one line per part.
fn write_split(out: &mut impl Write, split: &Split) -> std::io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "{:<40} {:>26} {:>10} {:>10}",
        "part of the games", "probability", "mean", "sd"
    )?;
    for part in split
        .upper_bonus
        .iter()
        .chain(&split.five_of_a_kind)
        .chain(&split.joint)
    {
        let mut name = Vec::new();
        match part.upper_bonus {
            Some(true) => name.push("upper bonus".to_string()),
            Some(false) => name.push("no upper bonus".to_string()),
            None => {}
        }
        if let (Some(points), Some(name_of_box)) = (part.five_of_a_kind, split.five_of_a_kind_box) {
            name.push(format!("{points} in {name_of_box}"));
        }
        let name = if name.is_empty() {
            "every game".to_string()
        } else {
            name.join(", ")
        };
        // A part without games has no mean (its figures are 0 in the JSON): a dash.
        let figure = |x: f64| {
            if part.probability > 0.0 {
                format!("{x:.4}")
            } else {
                "–".to_string()
            }
        };
        writeln!(
            out,
            "{:<40} {:>26} {:>10} {:>10}",
            name,
            share(part.probability, part.interval),
            figure(part.mean),
            figure(part.std_dev)
        )?;
    }
    Ok(())
}

/// Draws `curves` overlaid into --plot, when asked for, with `source` under it.
pub fn plot_curves(
    args: &ReportArgs,
    curves: &[Curve],
    title: &str,
    source: &Provenance,
) -> Result<()> {
    if let Some(path) = &args.plot {
        plot(path, title, &source.line(), curves, &args.plot_style())?;
    }
    Ok(())
}

/// Several distributions side by side: one line of figures each, named in a column headed
/// `head`, with the 95% interval of the mean of a simulation.
pub fn write_comparison(
    out: &mut impl Write,
    head: &str,
    rows: &[(String, &Summary, Option<String>)],
) -> std::io::Result<()> {
    let width = rows
        .iter()
        .map(|r| r.0.len())
        .max()
        .unwrap_or(0)
        .max(head.len());
    let intervals = rows.iter().any(|r| r.2.is_some());
    let interval_head = if intervals { "  mean 95% interval" } else { "" };
    writeln!(
        out,
        "{head:<width$} {:>9}{interval_head} {:>8} {:>5} {:>6} {:>5} {:>6} {:>7}",
        "mean", "s.d.", "5%", "median", "95%", "lowest", "highest"
    )?;
    for (name, s, interval) in rows {
        let at = |percent: f64| {
            (s.percentiles.iter())
                .find(|p| p.percent == percent)
                .map_or(String::new(), |p| p.score.to_string())
        };
        let interval = match interval {
            Some(i) => format!("  {i:>18}"),
            None => String::new(),
        };
        writeln!(
            out,
            "{name:<width$} {:>9.4}{interval} {:>8.4} {:>5} {:>6} {:>5} {:>6} {:>7}",
            s.mean,
            s.std_dev,
            at(5.0),
            s.median,
            at(95.0),
            s.min,
            s.max
        )?;
    }
    Ok(())
}
