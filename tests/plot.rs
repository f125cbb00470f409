//! `stats --plot` and `simulate --plot`: the figures' kinds, scales, sizes, encodings and
//! overlays, and their options' errors.

use std::process::Stdio;

use yahtzee_core::game::rules::{Order, RuleSet};

use crate::util::*;

/// The texts of an SVG's `<text>` elements.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = t.split_once('>')?.1;
            Some(body.split_once("</text>")?.0.trim().to_string())
        })
        .collect()
}

/// Asserts that the figure `svg` has a legend line for each of `reports`, named by its
/// field `name`, with its mean.
fn assert_legend(svg: &std::path::Path, reports: &[serde_json::Value], name: &str) {
    let labels = texts(&std::fs::read_to_string(svg).unwrap());
    for r in reports {
        let start = format!(
            "{}: mean {:.2}",
            r[name].as_str().unwrap(),
            r["mean"].as_f64().unwrap()
        );
        assert!(
            labels.iter().any(|l| l.starts_with(&start)),
            "{start} not in {labels:?}"
        );
    }
}

/// Width and height of a PNG, from its header.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn a_figure_has_whole_score_ticks_marks_and_a_legend() {
    let dir = temp_dir();
    let svg = dir.path().join("pmf.svg");
    let v = stats_json(RuleSet::YACHT, &["--plot", &path_str(&svg)]);
    let text = std::fs::read_to_string(&svg).unwrap();
    let labels = texts(&text);
    // The score axis: whole numbers only (plotters' default wrote "100.0").
    assert!(labels.iter().any(|l| l == "100"), "{labels:?}");
    assert!(!labels.iter().any(|l| l.ends_with(".0")), "{labels:?}");
    for title in ["probability of the score", "final score (dashed: mean"] {
        assert!(labels.iter().any(|l| l.starts_with(title)), "{labels:?}");
    }
    // The legend states the mean and the percentiles of the report.
    let percentile = |p: f64| {
        (v["percentiles"].as_array().unwrap().iter())
            .find(|x| x["percent"].as_f64() == Some(p))
            .unwrap()["score"]
            .clone()
    };
    let legend = format!(
        "mean {:.2}; 5%, 50%, 95%: {}, {}, {}",
        v["mean"].as_f64().unwrap(),
        percentile(5.0),
        v["median"],
        percentile(95.0)
    );
    assert!(labels.contains(&legend), "{legend} not in {labels:?}");
}

/// The labels of the SVG figure `stats --rules yacht --plot` draws with `flags`.
fn stats_figure(flags: &[&str]) -> Vec<String> {
    let dir = temp_dir();
    let svg = path_str(&dir.path().join("figure.svg"));
    let mut args = vec!["stats", "--rules", "yacht", "--plot", &svg];
    args.extend(flags);
    let o = run(RuleSet::YACHT, Order::Any, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    texts(&std::fs::read_to_string(&svg).unwrap())
}

#[test]
#[cfg_attr(
    not(feature = "png"),
    ignore = "PNG figures are a feature: cargo test --release --all-features"
)]
fn cdf_log_scale_and_png_of_a_chosen_size() {
    let labels = stats_figure(&["--plot-kind", "cdf"]);
    assert!(
        labels
            .iter()
            .any(|l| l == "probability of the score or less"),
        "{labels:?}"
    );
    // A CDF's axis ends at 1.
    assert!(labels.iter().any(|l| l == "1"), "{labels:?}");
    let labels = stats_figure(&["--plot-scale", "log"]);
    // Powers of ten, down into the tail (scores of Yacht beyond 250 are rarer than 1e-4).
    for power in ["1e-2", "1e-4", "1e-6"] {
        assert!(
            labels.iter().any(|l| l == power),
            "{power} not in {labels:?}"
        );
    }
    let dir = temp_dir();
    let png = dir.path().join("pmf.PNG");
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "simulate",
            "--rules",
            "yacht",
            "--games",
            "500",
            "--plot",
            &path_str(&png),
            "--plot-size",
            "640x400",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(png_size(&std::fs::read(&png).unwrap()), (640, 400));
}

#[test]
fn several_policies_are_played_on_the_same_dice_and_overlaid() {
    let dir = temp_dir();
    let svg = dir.path().join("policies.svg");
    let args = |policies: &str| {
        let o = run(
            RuleSet::YACHT,
            Order::Any,
            &[
                "simulate",
                "--rules",
                "yacht",
                "--games",
                "2000",
                "--seed",
                "7",
                "--policy",
                policies,
                "--json",
                "--plot",
                &path_str(&svg),
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap()
    };
    let alone = args("greedy");
    let both = args("optimal,greedy");
    let reports = both.as_array().expect("one report per policy");
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[0]["policy"], "optimal");
    // Each policy's games are the games it plays alone with the seed.
    for figure in ["mean", "std_dev", "percentiles", "boxes"] {
        assert_eq!(reports[1][figure], alone[figure], "{figure}");
    }
    assert_legend(&svg, reports, "policy");
    // The text report: one line per policy.
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "simulate",
            "--rules",
            "yacht",
            "--games",
            "300",
            "--policy",
            "greedy,most-common",
        ],
    );
    let out = stdout(&o);
    assert!(out.lines().any(|l| l.starts_with("greedy ")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("most-common ")), "{out}");
}

#[test]
fn several_rule_sets_are_overlaid_in_one_figure() {
    let dir = temp_dir();
    let svg = dir.path().join("rules.svg");
    let o = yahtzee_in(dir.path())
        .args([
            "stats",
            "--rules",
            "yacht,yacht-dice",
            "--json",
            "--plot",
            &path_str(&svg),
            "--plot-kind",
            "cdf",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let reports = v.as_array().expect("one report per rule set");
    let names: Vec<&str> = reports
        .iter()
        .map(|r| r["rules"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["yacht", "yacht-dice"]);
    assert_legend(&svg, reports, "rules");
    // A flag of one rule set is refused with several.
    let o = yahtzee_in(dir.path())
        .args([
            "stats",
            "--rules",
            "yacht",
            "--rules",
            "yacht-dice",
            "--pmf",
            "x.csv",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_bad_input(&o, "--pmf writes one distribution");
}

#[test]
fn bad_plot_options_are_one_line_errors() {
    let dir = temp_dir();
    let pdf = dir.path().join("a.pdf");
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["stats", "--rules", "yacht", "--plot", &path_str(&pdf)],
    );
    assert_bad_input(&o, "end it in .svg or .png");
    assert!(!pdf.exists());
    let svg = path_str(&dir.path().join("a.svg"));
    for (args, needle) in [
        (
            vec!["--plot", &svg, "--plot-size", "100x100"],
            "each from 200 to 8000",
        ),
        (vec!["--plot", &svg, "--plot-size", "wide"], "WIDTHxHEIGHT"),
        (vec!["--plot", &svg, "--plot-kind", "pie"], "pie"),
        (vec!["--plot-scale", "log"], "--plot"),
    ] {
        let mut all = vec!["stats", "--rules", "yacht"];
        all.extend(args);
        let o = run(RuleSet::YACHT, Order::Any, &all);
        assert_bad_input(&o, needle);
    }
}
