//! Figures of final-score distributions, fit for a paper: the PMF or the CDF of one
//! distribution or of several overlaid (rule sets, policies), on a linear or a log scale,
//! with integer score ticks, the mean and the 5th, 50th and 95th percentiles marked, axis
//! titles and a legend.
//!
//! Drawn once, as SVG, by plotters' SVG backend (text written as SVG text and sized by
//! plotters' built-in estimate, so no font is needed for an SVG); a `.png` file is that same
//! SVG rendered by resvg, whose text needs a system font (the first of the usual sans-serif
//! families that is installed).

use std::path::Path;

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use yahtzee_core::files::write_atomically;
use yahtzee_core::stats::distribution::{Summary, Tally};

/// Errors while drawing or writing a plot.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlotError {
    /// The drawing library failed (it should not on any distribution): report it.
    #[error("cannot draw the plot: {0}")]
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
    /// A file name that ends neither in `.svg` nor in `.png`. Fix: one of them.
    #[error(
        "{path}: the plot is written as SVG or PNG, by the file's extension: end it in .svg or .png"
    )]
    Extension {
        /// The file, as given.
        path: String,
    },
    /// No font to draw a PNG's text with. Fix: install one (e.g. DejaVu), or write an SVG.
    #[cfg(feature = "png")]
    #[error(
        "no system font to draw the PNG's text with: install one (e.g. the fonts-dejavu package) or write the plot as .svg"
    )]
    NoFont,
    /// A `.png` figure asked of a binary built without the PNG renderer. Fix: an SVG, or a
    /// build with the feature.
    #[error(
        "{path}: PNG figures are not in this build of yahtzee: write the plot as .svg, or build with `cargo install --path . --features png` (or `--features full`)"
    )]
    PngNotBuilt {
        /// The file, as given.
        path: String,
    },
}

/// How a figure is encoded, by its file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// `.svg`: the drawing itself.
    Svg,
    /// `.png`: the drawing rendered to pixels.
    Png,
}

impl Encoding {
    /// The encoding of `path` (`.svg` or `.png`, in any case).
    pub fn of(path: &Path) -> Result<Encoding, PlotError> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("svg") => Ok(Encoding::Svg),
            Some("png") if cfg!(feature = "png") => Ok(Encoding::Png),
            Some("png") => Err(PlotError::PngNotBuilt {
                path: yahtzee_core::text::excerpt(&path.display().to_string()),
            }),
            _ => Err(PlotError::Extension {
                path: yahtzee_core::text::excerpt(&path.display().to_string()),
            }),
        }
    }
}

/// What the vertical axis shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// The probability of each final score.
    Pmf,
    /// The probability of each final score or less.
    Cdf,
}

/// The vertical axis' scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Scale {
    /// Linear, from 0.
    Linear,
    /// Logarithmic: the tails can be read.
    Log,
}

/// How a figure is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// PMF or CDF.
    pub kind: Kind,
    /// Linear or log probability axis.
    pub scale: Scale,
    /// Width and height in pixels (in SVG: user units).
    pub size: (u32, u32),
}

impl Default for Style {
    fn default() -> Style {
        Style {
            kind: Kind::Pmf,
            scale: Scale::Linear,
            size: (1000, 600),
        }
    }
}

/// One distribution of a figure: its name in the legend, its probabilities and its marks.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// The name in the legend (a rule set, a policy); empty for a figure of one curve.
    pub label: String,
    /// (score, probability) of nonzero probability, ascending.
    pub pmf: Vec<(u32, f64)>,
    /// The mean final score.
    pub mean: f64,
    /// The 5th, 50th and 95th percentiles.
    pub percentiles: [u32; 3],
}

/// The percentiles marked on a figure.
const MARKED: [f64; 3] = [5.0, 50.0, 95.0];

impl Curve {
    /// The curve of `tally`, whose figures are `summary`.
    pub fn new(label: &str, tally: &Tally, summary: &Summary) -> Curve {
        let at = |percent: f64| {
            summary
                .percentiles
                .iter()
                .find(|p| p.percent == percent)
                .map_or(summary.median, |p| p.score)
        };
        Curve {
            label: label.to_string(),
            pmf: tally.pmf(),
            mean: summary.mean,
            percentiles: MARKED.map(at),
        }
    }
}

/// Share of the upper tail left out of a linear drawing: past the 99.99th percentile the
/// bars are far thinner than a pixel, and drawing them would squeeze the body of the
/// distribution. On a log scale the tail is the point: only the last 1e-9 is left out.
fn tail(scale: Scale) -> f64 {
    match scale {
        Scale::Linear => 1e-4,
        Scale::Log => 1e-9,
    }
}

/// The lowest probability a log axis shows.
const LOG_FLOOR: f64 = 1e-10;

/// Colours that stay apart for colour-blind readers and in greyscale print (Okabe and Ito).
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

/// Draws `curves` into `path` (SVG or PNG by its extension; written to a temporary name,
/// then renamed), titled `title`, with `source` (where the figures come from: the program's
/// version and commit, the dice generator, the table; `Provenance::line`) in small print
/// under the figure.
pub fn plot(
    path: &Path,
    title: &str,
    source: &str,
    curves: &[Curve],
    style: &Style,
) -> Result<(), PlotError> {
    let encoding = Encoding::of(path)?;
    let svg = draw(title, source, curves, style)?;
    let bytes = match encoding {
        Encoding::Svg => svg.into_bytes(),
        #[cfg(feature = "png")]
        Encoding::Png => render_png(&svg)?,
        #[cfg(not(feature = "png"))]
        Encoding::Png => {
            return Err(PlotError::PngNotBuilt {
                path: path.display().to_string(),
            });
        }
    };
    write_atomically(path, &bytes).map_err(|source| PlotError::Write {
        path: path.display().to_string(),
        source,
    })
}

/// The cumulative probabilities of `pmf`, score by score from its lowest to `hi`.
fn cumulative(pmf: &[(u32, f64)], hi: u32) -> Vec<(u32, f64)> {
    let mut total = 0.0;
    let mut i = 0;
    let lo = pmf.first().map_or(0, |&(s, _)| s);
    (lo..=hi)
        .map(|s| {
            while i < pmf.len() && pmf[i].0 <= s {
                total += pmf[i].1;
                i += 1;
            }
            (s, total.min(1.0))
        })
        .collect()
}

/// A score as a tick label: whole numbers only (a tick between two scores is left blank).
fn score_label(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{x:.0}")
    } else {
        String::new()
    }
}

/// A probability as a tick label: `0.0125`, `0.5`, `0`; on a log scale `1e-5`, `2e-3`.
fn probability_label(y: f64, scale: Scale) -> String {
    match scale {
        Scale::Log => format!("{y:.0e}"),
        Scale::Linear => {
            let text = format!("{y:.6}");
            let text = text.trim_end_matches('0').trim_end_matches('.');
            text.to_string()
        }
    }
}

/// The SVG of the figure.
fn draw(title: &str, source: &str, curves: &[Curve], style: &Style) -> Result<String, PlotError> {
    if curves.is_empty() || curves.iter().any(|c| c.pmf.is_empty()) {
        return Err(PlotError::Empty);
    }
    let cut = tail(style.scale);
    let min = curves.iter().map(|c| c.pmf[0].0).min().unwrap_or(0);
    let max = curves
        .iter()
        .map(|c| c.pmf[c.pmf.len() - 1].0)
        .max()
        .unwrap_or(0);
    // The lowest and the highest score drawn: the tail and the (1 - tail) quantiles of the
    // widest curve.
    let lo = curves
        .iter()
        .map(|c| {
            let last = c.pmf[c.pmf.len() - 1].0;
            cumulative(&c.pmf, last)
                .iter()
                .find(|&&(_, f)| f > cut)
                .map_or(c.pmf[0].0, |&(s, _)| s)
        })
        .min()
        .unwrap_or(min);
    let hi = curves
        .iter()
        .map(|c| {
            let last = c.pmf[c.pmf.len() - 1].0;
            cumulative(&c.pmf, last)
                .iter()
                .find(|&&(_, f)| f >= 1.0 - cut)
                .map_or(last, |&(s, _)| s)
        })
        .max()
        .unwrap_or(max)
        .max(lo + 1);
    // What each curve draws: its (score, y) points within the range.
    let points: Vec<Vec<(u32, f64)>> = curves
        .iter()
        .map(|c| match style.kind {
            Kind::Pmf => (c.pmf.iter().copied())
                .filter(|&(s, _)| (lo..=hi).contains(&s))
                .collect(),
            Kind::Cdf => (cumulative(&c.pmf, hi).into_iter())
                .filter(|&(s, _)| s >= lo)
                .collect(),
        })
        .collect();
    let top = points.iter().flatten().map(|&(_, y)| y).fold(0.0, f64::max);
    let (y_lo, y_hi) = match (style.kind, style.scale) {
        (Kind::Cdf, Scale::Linear) => (0.0, 1.0),
        // Room above the highest point for the legend, a line per curve.
        (Kind::Pmf, Scale::Linear) => (0.0, top * (1.1 + 0.06 * curves.len() as f64)),
        (_, Scale::Log) => {
            let least = points
                .iter()
                .flatten()
                .map(|&(_, y)| y)
                .filter(|&y| y >= LOG_FLOOR)
                .fold(1.0, f64::min);
            let up = match style.kind {
                Kind::Cdf => 1.0,
                Kind::Pmf => 10f64.powf(top.log10().ceil()),
            };
            (10f64.powf(least.log10().floor()), up)
        }
    };
    // A point of the y axis at `fraction` of its height, on either scale.
    let y_at = |fraction: f64| match style.scale {
        Scale::Linear => y_lo + (y_hi - y_lo) * fraction,
        Scale::Log => y_lo * (y_hi / y_lo).powf(fraction),
    };
    let (width, height) = style.size;
    // Fonts in proportion to the figure: 20 pixels in a figure 600 high.
    let font = (f64::from(height.min(width * 3 / 4)) / 30.0).max(9.0);
    // About a tick per 90 pixels, and never more than one per score: whole-number steps.
    let x_ticks = ((width / 90).max(3) as usize).min((hi - lo + 1) as usize);
    let y_ticks = (height / 60).max(3) as usize;
    let y_desc = match style.kind {
        Kind::Pmf => "probability of the score",
        Kind::Cdf => "probability of the score or less",
    };
    let note = match (lo > min, hi < max) {
        (true, true) => {
            format!("not drawn: scores below {lo} or above {hi} (probability < {cut:e} each)")
        }
        (true, false) => format!("not drawn: scores below {lo} (probability < {cut:e})"),
        (false, true) => format!("not drawn: scores above {hi} (probability < {cut:e})"),
        (false, false) => String::new(),
    };

    let mut svg = String::new();
    {
        let fail = |e: &dyn std::fmt::Debug| PlotError::Draw(format!("{e:?}"));
        let whole = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        whole.fill(&WHITE).map_err(|e| fail(&e))?;
        // A strip under the figure for its source, in small print.
        let footer = (font * 1.1) as u32;
        let (root, strip) = whole.split_vertically(height.saturating_sub(footer));
        let height = height.saturating_sub(footer);
        let small = TextStyle::from(("sans-serif", font * 0.6))
            .color(&RGBColor(120, 120, 120))
            .pos(Pos::new(HPos::Left, VPos::Center));
        strip
            .draw(&Text::new(
                source.to_string(),
                (4, (footer / 2) as i32),
                small,
            ))
            .map_err(|e| fail(&e))?;
        let x_range = f64::from(lo) - 0.5..f64::from(hi) + 0.5;
        let margin = (font * 0.8) as u32;
        let mut builder = ChartBuilder::on(&root);
        builder
            .caption(title, ("sans-serif", font * 1.15))
            .margin(margin)
            .margin_right(margin * 2)
            .x_label_area_size((font * 3.0) as u32)
            .y_label_area_size((font * 4.5) as u32);
        macro_rules! chart {
            ($y_range:expr) => {{
                let mut chart = builder
                    .build_cartesian_2d(x_range, $y_range)
                    .map_err(|e| fail(&e))?;
                chart
                    .configure_mesh()
                    .disable_x_mesh()
                    .light_line_style(WHITE)
                    .bold_line_style(RGBColor(225, 225, 225))
                    .x_desc(
                        "final score (dashed: mean; ticks below: 5th, 50th and 95th percentiles)",
                    )
                    .y_desc(y_desc)
                    .axis_desc_style(("sans-serif", font))
                    .label_style(("sans-serif", font * 0.85))
                    .x_labels(x_ticks)
                    .y_labels(y_ticks)
                    .x_label_formatter(&|x| score_label(*x))
                    .y_label_formatter(&|y| probability_label(*y, style.scale))
                    .draw()
                    .map_err(|e| fail(&e))?;
                for (i, (curve, points)) in curves.iter().zip(&points).enumerate() {
                    let color = PALETTE[i % PALETTE.len()];
                    let line = color.stroke_width((font / 8.0).max(1.5) as u32);
                    let legend = if curve.label.is_empty() {
                        format!(
                            "mean {:.2}; 5%, 50%, 95%: {}, {}, {}",
                            curve.mean,
                            curve.percentiles[0],
                            curve.percentiles[1],
                            curve.percentiles[2]
                        )
                    } else {
                        format!(
                            "{}: mean {:.2}; 5%, 50%, 95%: {}, {}, {}",
                            curve.label,
                            curve.mean,
                            curve.percentiles[0],
                            curve.percentiles[1],
                            curve.percentiles[2]
                        )
                    };
                    let floor = y_lo.max(LOG_FLOOR);
                    let shown = points
                        .iter()
                        .filter(|&&(_, y)| y >= floor || style.scale == Scale::Linear);
                    let series = match (style.kind, curves.len()) {
                        // One PMF: a bar per score.
                        (Kind::Pmf, 1) => chart.draw_series(shown.map(|&(s, p)| {
                            let x = f64::from(s);
                            Rectangle::new(
                                [(x - 0.5, y_lo), (x + 0.5, p)],
                                color.mix(0.75).filled(),
                            )
                        })),
                        // Several PMFs: a line each.
                        (Kind::Pmf, _) => chart.draw_series(LineSeries::new(
                            shown.map(|&(s, p)| (f64::from(s), p)),
                            line,
                        )),
                        // A CDF: a step at each score.
                        (Kind::Cdf, _) => {
                            let mut steps = Vec::with_capacity(2 * points.len());
                            let mut previous = None;
                            for &(s, f) in shown {
                                let x = f64::from(s) - 0.5;
                                if let Some(p) = previous {
                                    steps.push((x, p));
                                }
                                steps.push((x, f));
                                previous = Some(f);
                            }
                            if let Some(p) = previous {
                                steps.push((f64::from(hi) + 0.5, p));
                            }
                            chart.draw_series(LineSeries::new(steps, line))
                        }
                    }
                    .map_err(|e| fail(&e))?;
                    series.label(legend).legend(move |(x, y)| {
                        Rectangle::new([(x, y - 4), (x + 18, y + 4)], color.filled())
                    });
                    // The mean: a dashed line the height of the plot.
                    let mean = curve.mean;
                    chart
                        .draw_series(std::iter::once(DashedPathElement::new(
                            vec![(mean, y_at(0.0)), (mean, y_at(1.0))],
                            (font * 0.5) as u32,
                            (font * 0.3) as u32,
                            color.stroke_width(2),
                        )))
                        .map_err(|e| fail(&e))?;
                    // The percentiles: ticks from the axis, staggered by curve.
                    let (from, to) = (i as f64 * 0.015, i as f64 * 0.015 + 0.05);
                    chart
                        .draw_series(curve.percentiles.iter().map(|&s| {
                            let x = f64::from(s);
                            PathElement::new(
                                vec![(x, y_at(from)), (x, y_at(to))],
                                color.stroke_width(3),
                            )
                        }))
                        .map_err(|e| fail(&e))?;
                }
                chart
                    .configure_series_labels()
                    .position(match style.kind {
                        Kind::Pmf => SeriesLabelPosition::UpperRight,
                        // A CDF is high on the right, low on the left: the middle right is
                        // free.
                        Kind::Cdf => SeriesLabelPosition::MiddleRight,
                    })
                    .margin((font * 0.6) as u32)
                    .label_font(("sans-serif", font * 0.85))
                    .background_style(WHITE.mix(0.85))
                    .border_style(RGBColor(160, 160, 160))
                    .draw()
                    .map_err(|e| fail(&e))?;
            }};
        }
        match style.scale {
            Scale::Linear => chart!(y_lo..y_hi),
            Scale::Log => chart!((y_lo..y_hi).log_scale()),
        }
        if !note.is_empty() {
            let style = TextStyle::from(("sans-serif", font * 0.7))
                .color(&RGBColor(90, 90, 90))
                .pos(Pos::new(HPos::Right, VPos::Bottom));
            root.draw(&Text::new(
                note,
                (width as i32 - 4, height as i32 - 4),
                style,
            ))
            .map_err(|e| fail(&e))?;
        }
        whole.present().map_err(|e| fail(&e))?;
    }
    Ok(svg)
}

/// The families tried, in order, for the PNG's sans-serif text.
#[cfg(feature = "png")]
const SANS_SERIF: [&str; 6] = [
    "DejaVu Sans",
    "Liberation Sans",
    "Noto Sans",
    "Arial",
    "Helvetica",
    "FreeSans",
];

/// `svg` rendered to a PNG image by resvg, its text with a sans-serif system font.
#[cfg(feature = "png")]
fn render_png(svg: &str) -> Result<Vec<u8>, PlotError> {
    use resvg::{tiny_skia, usvg};
    let mut options = usvg::Options::default();
    let fonts = options.fontdb_mut();
    fonts.load_system_fonts();
    let families: Vec<String> = fonts
        .faces()
        .flat_map(|f| f.families.iter().map(|(name, _)| name.clone()))
        .collect();
    let family = SANS_SERIF
        .iter()
        .find(|want| families.iter().any(|f| f == *want))
        .map(|f| f.to_string())
        .or_else(|| families.first().cloned())
        .ok_or(PlotError::NoFont)?;
    fonts.set_sans_serif_family(family);
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| PlotError::Draw(e.to_string()))?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| PlotError::Draw(format!("no image of {size:?} pixels")))?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap
        .encode_png()
        .map_err(|e| PlotError::Draw(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(label: &str, pmf: &[(u32, f64)]) -> Curve {
        Curve {
            label: label.into(),
            pmf: pmf.to_vec(),
            mean: 11.0,
            percentiles: [10, 11, 13],
        }
    }

    #[test]
    fn draws_an_svg_with_one_bar_per_score() {
        let svg = draw(
            "test",
            "yahtzee 0.2.0, commit unknown, dice generator 3",
            &[curve("", &[(10, 0.25), (11, 0.5), (13, 0.25)])],
            &Style::default(),
        )
        .unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("final score"));
        // Where it comes from, in small print.
        assert!(svg.contains("yahtzee 0.2.0, commit unknown, dice generator 3"));
        // The background, the plot area, three bars and the legend's box at least.
        assert!(svg.matches("<rect").count() >= 5, "{svg}");
        assert!(matches!(
            draw("x", "", &[curve("", &[])], &Style::default()),
            Err(PlotError::Empty)
        ));
    }

    #[test]
    fn tick_labels_are_whole_scores_and_short_probabilities() {
        assert_eq!(score_label(250.0), "250");
        assert_eq!(score_label(12.5), "");
        assert_eq!(probability_label(0.0125, Scale::Linear), "0.0125");
        assert_eq!(probability_label(0.5, Scale::Linear), "0.5");
        assert_eq!(probability_label(0.0, Scale::Linear), "0");
        assert_eq!(probability_label(1e-5, Scale::Log), "1e-5");
        assert_eq!(probability_label(9.999999999e-5, Scale::Log), "1e-4");
    }

    #[test]
    fn the_extension_chooses_the_encoding() {
        assert_eq!(Encoding::of(Path::new("a.SVG")).unwrap(), Encoding::Svg);
        let png = Encoding::of(Path::new("a.png"));
        if cfg!(feature = "png") {
            assert_eq!(png.unwrap(), Encoding::Png);
        } else {
            let e = png.unwrap_err().to_string();
            assert!(e.contains("--features png"), "{e}");
        }
        let e = Encoding::of(Path::new("a.pdf")).unwrap_err().to_string();
        assert!(e.contains("end it in .svg or .png"), "{e}");
    }
}
