//! What `stats` and `simulate` share: the readable summary of a distribution, and writing
//! the optional CSV and SVG files.

use std::io::Write;

use anyhow::{Context, Result, bail};

use crate::cli::ReportArgs;
use yahtzee::distribution::{Summary, Tally};
use yahtzee::plot::plot_histogram;

/// The tie convention of the optimal policy, as printed in every report that applies it.
pub const TIE_CONVENTION: &str = "options within 1e-9 of the best are ties: among keeps, the fewest dice (then the lowest faces); among boxes, the first on the card";

/// Checks the report options before any long computation.
pub fn check(args: &ReportArgs) -> Result<()> {
    if args.at_least.is_empty() {
        bail!("--at-least needs at least one score, e.g. --at-least 200,250,300");
    }
    for (flag, path) in [("--pmf", &args.pmf), ("--plot", &args.plot)] {
        if let Some(p) = path {
            if p.is_dir() {
                bail!(
                    "{flag} {} is a folder: give a file name, e.g. {}",
                    p.display(),
                    p.join(if flag == "--pmf" {
                        "pmf.csv"
                    } else {
                        "histogram.svg"
                    })
                    .display()
                );
            }
            let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
            if parent.is_some_and(|d| !d.is_dir()) {
                bail!(
                    "{flag} {}: the folder does not exist; create it or give another path",
                    p.display()
                );
            }
        }
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
        .map(|a| format!(">={}: {:.4}", a.score, a.probability))
        .collect();
    writeln!(out, "P(score)     {}", at_least.join("  "))?;
    writeln!(out)?;
    writeln!(out, "{:<18} {:>8} {:>8}", "box", "mean", "P(zero)")?;
    for b in &s.boxes {
        writeln!(
            out,
            "{:<18} {:>8.2} {:>8.4}",
            b.name, b.mean, b.zero_probability
        )?;
    }
    if let Some(u) = &s.upper_bonus {
        writeln!(
            out,
            "{:<18} {:>8.2} {:>8.4}",
            "upper bonus",
            u.mean,
            1.0 - u.probability
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "P(50 in the five-of-a-kind box) {:.4}",
        s.fifty_probability
    )?;
    if let Some(u) = &s.upper_bonus {
        writeln!(out, "P(upper bonus) {:.4}", u.probability)?;
    }
    if let Some(y) = &s.yahtzee_bonuses {
        let counts: Vec<String> = y
            .count_probability
            .iter()
            .enumerate()
            .filter(|&(_, &p)| p > 0.0)
            .map(|(k, p)| format!("{k}: {p:.3e}"))
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
