//! `yahtzee stats`: the exact distribution against the published statistics of optimal play,
//! its invariants, its determinism, and the command's outputs.

use yahtzee_core::game::rules::{Order, RuleSet};
use yahtzee_core::stats::distribution::{Summary, THRESHOLDS, Tally};
use yahtzee_core::stats::exact_distribution;

use crate::util::*;

fn exact(set: &'static RuleSet, threads: usize) -> Tally {
    let table = table(set, Order::Any);
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| exact_distribution(table, &|_, _| {}))
}

/// Verhoeff's published statistics of optimal solitaire Yahtzee (free Joker), to their
/// published precision.
#[test]
fn free_joker_matches_verhoeff_published_statistics() {
    let rules = *table(RuleSet::YAHTZEE_FREE_JOKER, Order::Any).rules();
    let tally = exact(RuleSet::YAHTZEE_FREE_JOKER, 2);
    let s = Summary::of(&rules, &tally, &THRESHOLDS);
    let solver = table(RuleSet::YAHTZEE_FREE_JOKER, Order::Any).expected_score();
    assert!((s.mean - solver).abs() < 1e-9, "{} vs {solver}", s.mean);
    assert!((s.mean - 254.5896094820).abs() < 1e-9);
    assert!((s.std_dev - 59.6117).abs() < 5e-5, "sd {}", s.std_dev);
    assert_eq!(s.median, 248);
    let means = [
        1.88, 5.28, 8.57, 12.16, 15.69, 19.19, 21.66, 13.10, 22.59, 29.46, 32.71, 16.87, 22.01,
    ];
    let zeros = [
        0.1084, 0.0180, 0.0095, 0.0060, 0.0050, 0.0053, 0.0326, 0.3634, 0.0963, 0.0180, 0.1822,
        0.6626,
    ];
    for (i, b) in s.boxes.iter().enumerate() {
        assert!(
            (b.mean - means[i]).abs() <= 0.005,
            "{} mean {}",
            b.name,
            b.mean
        );
        if let Some(&z) = zeros.get(i) {
            assert!(
                (b.zero_probability - z).abs() <= 5e-5,
                "{} P(zero) {}",
                b.name,
                b.zero_probability
            );
        }
    }
    let upper = s.upper_bonus.unwrap();
    assert!((upper.mean - 23.84).abs() <= 0.005, "{}", upper.mean);
    assert!((1.0 - upper.probability - 0.3188).abs() <= 5e-5);
    let bonuses = s.yahtzee_bonuses.unwrap();
    assert!((bonuses.mean - 9.58).abs() <= 0.005, "{}", bonuses.mean);
    // The Yahtzee box holds 50 exactly when it is not 0.
    assert!((s.fifty_probability + s.boxes[11].zero_probability - 1.0).abs() < 1e-12);
    // The parts add up to the whole: boxes + upper bonus + Yahtzee bonuses = mean.
    let parts: f64 = s.boxes.iter().map(|b| b.mean).sum::<f64>() + upper.mean + bonuses.mean;
    assert!((parts - s.mean).abs() < 1e-9, "{parts} vs {}", s.mean);
    assert!((bonuses.count_probability.iter().sum::<f64>() - 1.0).abs() < 1e-12);
}

#[test]
fn exact_distribution_is_the_same_at_any_thread_count() {
    let one = exact(RuleSet::YACHT, 1);
    let three = exact(RuleSet::YACHT, 3);
    let bits = |t: &Tally| t.score.iter().map(|p| p.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&one), bits(&three));
    assert_eq!(one, three);
}

#[test]
fn yacht_distribution_is_a_distribution_with_the_solver_mean() {
    let table = table(RuleSet::YACHT, Order::Any);
    let tally = exact(RuleSet::YACHT, 2);
    assert!((tally.total() - 1.0).abs() < 1e-12);
    assert!(tally.score.iter().all(|&p| p >= 0.0));
    let s = Summary::of(table.rules(), &tally, &THRESHOLDS);
    assert!((s.mean - table.expected_score()).abs() < 1e-9);
    // Yacht has 12 boxes of at most 50 points: the highest score is below 12 x 50.
    assert!(s.max < 600 && s.min <= s.median && s.median <= s.max);
    for w in s.percentiles.windows(2) {
        assert!(w[0].score <= w[1].score);
    }
    for w in s.at_least.windows(2) {
        assert!(w[0].probability >= w[1].probability);
    }
    assert!(s.upper_bonus.is_none() && s.yahtzee_bonuses.is_none());
}

#[test]
fn stats_command_writes_json_csv_and_svg() {
    let dir = temp_dir();
    let csv = dir.path().join("pmf.csv");
    let svg = dir.path().join("hist.svg");
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "stats",
            "--rules",
            "yacht",
            "--json",
            "--at-least",
            "150,200",
            "--pmf",
            &path_str(&csv),
            "--plot",
            &path_str(&svg),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["rules"], "yacht");
    assert_eq!(v["method"], "exact");
    let mean = v["mean"].as_f64().unwrap();
    assert!((mean - v["solver_mean"].as_f64().unwrap()).abs() < 1e-9);
    assert_eq!(v["at_least"].as_array().unwrap().len(), 2);
    assert_eq!(v["at_least"][1]["score"], 200);
    assert_eq!(v["boxes"].as_array().unwrap().len(), 12);
    assert!(
        v["tie_convention"]
            .as_str()
            .unwrap()
            .contains("fewest dice")
    );
    // The CSV holds the whole distribution: its probabilities sum to 1 and give the mean.
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("score,probability"));
    let rows: Vec<(f64, f64)> = lines
        .map(|l| {
            let (s, p) = l.split_once(',').unwrap();
            (s.parse().unwrap(), p.parse().unwrap())
        })
        .collect();
    assert_eq!(rows.first().unwrap().0, v["min"].as_f64().unwrap());
    assert_eq!(rows.last().unwrap().0, v["max"].as_f64().unwrap());
    assert!((rows.iter().map(|r| r.1).sum::<f64>() - 1.0).abs() < 1e-12);
    assert!((rows.iter().map(|r| r.0 * r.1).sum::<f64>() - mean).abs() < 1e-9);
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg") && picture.contains("final score"));
}

#[test]
fn stats_summary_is_readable() {
    let o = run(RuleSet::YACHT, Order::Any, &["stats", "--rules", "yacht"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("standard deviation") && out.contains("median"),
        "{out}"
    );
    assert!(
        out.contains("little-straight") && out.contains("ties:"),
        "{out}"
    );
    assert!(!out.contains("-0.0000"), "{out}");
}

#[test]
fn stats_rejects_bad_options() {
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "stats",
            "--rules",
            "yacht",
            "--pmf",
            "/no/such/folder/x.csv",
        ],
    );
    assert_bad_input(&o, "the folder /no/such/folder does not exist");
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["stats", "--rules", "yacht", "--at-least", "200,abc"],
    );
    assert_bad_input(&o, "abc");
}

#[test]
fn stats_pmf_and_plot_never_overwrite_a_strategy_table() {
    let dir = temp_dir();
    let other = dir.path().join("other.table");
    std::fs::write(&other, yahtzee_core::tables::container::MAGIC).unwrap();
    for flag in ["--pmf", "--plot"] {
        let o = run(
            RuleSet::YACHT,
            Order::Any,
            &["stats", "--rules", "yacht", flag, &path_str(&other)],
        );
        assert_bad_input(&o, "holds a strategy table, which is never overwritten");
    }
    assert_eq!(
        std::fs::read(&other).unwrap(),
        yahtzee_core::tables::container::MAGIC
    );
}

#[test]
fn stats_pmf_refuses_the_table_it_is_about_to_build() {
    let dir = temp_dir();
    let table = dir.path().join("new.table");
    let o = yahtzee_in(dir.path())
        .args([
            "stats",
            "--rules",
            "yacht",
            "--table",
            &path_str(&table),
            "--pmf",
        ])
        .arg(dir.path().join(".").join("new.table"))
        .output()
        .unwrap();
    assert_bad_input(&o, "is the strategy table this command reads");
    assert!(!table.exists());
    let o = yahtzee_in(dir.path())
        .args([
            "stats", "--rules", "yacht", "--pmf", "a.csv", "--plot", "./a.csv",
        ])
        .output()
        .unwrap();
    assert_bad_input(&o, "--pmf and --plot both name");
}

#[test]
fn stats_help_says_what_the_files_overwrite() {
    let o = yahtzee_in(table_dir())
        .args(["stats", "--help"])
        .output()
        .unwrap();
    let help = stdout(&o);
    assert!(help.contains("overwriting it if it exists; a strategy table or the table being read is never overwritten"), "{help}");
}

#[test]
fn stats_never_prints_a_nonzero_probability_as_zero() {
    // The highest score has a tiny probability: four decimals would show 0.0000.
    let v: serde_json::Value = serde_json::from_str(&stdout(&run(
        RuleSet::YACHT,
        Order::Any,
        &["stats", "--rules", "yacht", "--json"],
    )))
    .unwrap();
    let max = v["max"].as_u64().unwrap();
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "stats",
            "--rules",
            "yacht",
            "--at-least",
            &format!("{max},1000"),
        ],
    );
    let out = stdout(&o);
    let line = out.lines().find(|l| l.starts_with("P(score)")).unwrap();
    let tiny = line
        .split("  ")
        .find(|p| p.contains(&format!(">={max}:")))
        .unwrap();
    assert!(tiny.contains("e-"), "{line}");
    assert!(line.ends_with(">=1000: 0"), "{line}");
    assert!(!out.contains("0.0000"), "{out}");
}
