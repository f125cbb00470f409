//! What `stats` and `simulate` share: the readable summary of a distribution, and writing
//! the optional CSV and SVG files.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::cli::ReportArgs;
use crate::plot::plot_histogram;
use yahtzee_core::files::same_file;
use yahtzee_core::stats::distribution::{Summary, Tally};
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
    if let (Some(pmf), Some(plot)) = (&args.pmf, &args.plot)
        && same_file(pmf, plot)
    {
        bail!(
            "--pmf and --plot both name {}: give each its own file",
            pmf.display()
        );
    }
    Ok(())
}

/// Writes the CSV and SVG files asked for.
pub fn write_files(args: &ReportArgs, tally: &Tally, title: &str) -> Result<()> {
    if let Some(path) = &args.pmf {
        tally
            .write_pmf_csv(path)
            .with_context(|| format!("cannot write --pmf {}", path.display()))?;
    }
    if let Some(path) = &args.plot {
        plot_histogram(path, title, &tally.pmf())?;
    }
    Ok(())
}

/// The readable summary of a distribution.
pub fn write_summary(out: &mut impl Write, s: &Summary) -> std::io::Result<()> {
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
    let at_least: Vec<String> = s
        .at_least
        .iter()
        .map(|a| format!(">={}: {}", a.score, probability(a.probability)))
        .collect();
    writeln!(out, "P(score)     {}", at_least.join("  "))?;
    writeln!(out)?;
    writeln!(out, "{:<18} {:>8} {:>8}", "box", "mean", "P(zero)")?;
    for b in &s.boxes {
        writeln!(
            out,
            "{:<18} {:>8.2} {:>8}",
            b.name,
            b.mean,
            probability(b.zero_probability)
        )?;
    }
    if let Some(u) = &s.upper_bonus {
        writeln!(
            out,
            "{:<18} {:>8.2} {:>8}",
            "upper bonus",
            u.mean,
            probability(1.0 - u.probability)
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "P(50 in the five-of-a-kind box) {}",
        probability(s.fifty_probability)
    )?;
    if let Some(u) = &s.upper_bonus {
        writeln!(out, "P(upper bonus) {}", probability(u.probability))?;
    }
    if let Some(y) = &s.yahtzee_bonuses {
        let counts: Vec<String> = y
            .count_probability
            .iter()
            .enumerate()
            .filter(|&(_, &p)| p > 0.0)
            .map(|(k, &p)| format!("{k}: {}", probability(p)))
            .collect();
        writeln!(
            out,
            "Yahtzee bonuses: mean count {:.4} ({:.2} points); P(count) {}",
            y.mean_count,
            y.mean,
            counts.join("  ")
        )?;
    }
    Ok(())
}
