//! The histogram of a final-score distribution as an SVG file, drawn with plotters' SVG
//! backend (text is written as SVG text and sized by plotters' built-in estimate, so no system
//! font is needed).

use std::path::Path;

use plotters::prelude::*;

use yahtzee_core::files::write_atomically;

/// Errors while drawing or writing a plot.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlotError {
    /// The drawing library failed (it should not on any distribution): report it.
    #[error("cannot draw the histogram: {0}")]
    Draw(String),
    /// The file could not be written: choose a folder that exists and is writable.
    #[error(
        "cannot write the plot to {path}: {source}; check that the folder exists and is writable"
    )]
    Write {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A distribution without any score: there is nothing to draw.
    #[error("the distribution is empty: nothing to plot")]
    Empty,
}

/// Share of the upper tail left out of the drawing: past the 99.99th percentile the bars are
/// far thinner than a pixel, and drawing them would squeeze the body of the distribution.
const TAIL: f64 = 1e-4;

/// Draws `pmf` (score, probability; ascending) as a histogram with one bar per score, titled
/// `title`, into the SVG file `path` (written to a temporary name, then renamed).
pub fn plot_histogram(path: &Path, title: &str, pmf: &[(u32, f64)]) -> Result<(), PlotError> {
    let (Some(&(lo, _)), Some(&(max, _))) = (pmf.first(), pmf.last()) else {
        return Err(PlotError::Empty);
    };
    let mut cumulative = 0.0;
    let hi = pmf
        .iter()
        .find(|&&(_, p)| {
            cumulative += p;
            cumulative >= 1.0 - TAIL
        })
        .map_or(max, |&(s, _)| s);
    let top = pmf
        .iter()
        .filter(|&&(s, _)| s <= hi)
        .map(|&(_, p)| p)
        .fold(0.0, f64::max);
    let mut svg = String::new();
    {
        let draw = |e: &dyn std::fmt::Debug| PlotError::Draw(format!("{e:?}"));
        let root = SVGBackend::with_string(&mut svg, (960, 540)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| draw(&e))?;
        let caption = if hi < max {
            format!("{title} (scores above {hi}, probability < {TAIL}, not drawn)")
        } else {
            title.to_string()
        };
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(lo as f64..(hi + 1) as f64, 0.0..top * 1.05)
            .map_err(|e| draw(&e))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("final score")
            .y_desc("probability")
            .y_label_formatter(&|y| format!("{y:.4}"))
            .draw()
            .map_err(|e| draw(&e))?;
        chart
            .draw_series(pmf.iter().filter(|&&(s, _)| s <= hi).map(|&(s, p)| {
                Rectangle::new(
                    [(s as f64, 0.0), ((s + 1) as f64, p)],
                    BLUE.mix(0.7).filled(),
                )
            }))
            .map_err(|e| draw(&e))?;
        root.present().map_err(|e| draw(&e))?;
    }
    write_atomically(path, svg.as_bytes()).map_err(|source| PlotError::Write {
        path: path.display().to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_an_svg_with_one_bar_per_score() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.svg");
        let pmf = [(10, 0.25), (11, 0.5), (13, 0.25)];
        plot_histogram(&path, "test", &pmf).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("final score"));
        // The background, the plot area and three bars at least.
        assert!(svg.matches("<rect").count() >= 4, "{svg}");
        assert!(matches!(
            plot_histogram(&path, "x", &[]),
            Err(PlotError::Empty)
        ));
    }
}
