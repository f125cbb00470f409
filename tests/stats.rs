//! `yahtzee stats`: the exact distribution against the published statistics of optimal play,
//! its invariants, its determinism, and the command's outputs.

use std::sync::{Mutex, OnceLock};

use rayon::prelude::*;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::{State, card_states, cards_by_depth};
use yahtzee_core::policy::target::TargetPlayer;
use yahtzee_core::stats::distribution::{Summary, THRESHOLDS, Tally};
use yahtzee_core::stats::{
    Forward, Visits, card_outcomes, exact_distribution, exact_forward, exact_joint_forward,
    target_visit_probabilities, visit_probabilities,
};
use yahtzee_core::tables::default_table_name;
use yahtzee_core::tables::expected::StrategyTable;

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
    let v = stats_json(
        RuleSet::YACHT,
        &[
            "--at-least",
            "150,200",
            "--pmf",
            &path_str(&csv),
            "--plot",
            &path_str(&svg),
        ],
    );
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
    // The other files a command writes: one file each, refused before any game or pass.
    for args in [
        &[
            "stats",
            "--rules",
            "yacht",
            "--joint",
            "yacht",
            "--joint-csv",
            "b.csv",
            "--pmf",
            "./b.csv",
        ][..],
        &[
            "simulate",
            "--rules",
            "yacht",
            "--games",
            "10",
            "--per-box",
            "c.csv",
            "--pmf",
            "c.csv",
        ],
    ] {
        let o = yahtzee_in(dir.path()).args(args).output().unwrap();
        assert_bad_input(&o, "both name");
        assert!(!dir.path().join("b.csv").exists() && !dir.path().join("c.csv").exists());
    }
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

/// The forward pass of the optimal policy of each built-in rule set, computed once per test
/// process and shared by the tests of the visits, of the split and of the events: Yahtzee's
/// carries the joint figures too (`stats --events`, [`exact_joint_forward`]), the others not.
pub fn forward(set: &'static RuleSet) -> &'static Forward {
    type Passes = Mutex<Vec<(&'static str, &'static Forward)>>;
    static PASSES: OnceLock<Passes> = OnceLock::new();
    let mut passes = PASSES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((_, f)) = passes.iter().find(|(name, _)| *name == set.name()) {
        return f;
    }
    let table = table(set, Order::Any);
    let pass = if set.name() == RuleSet::YAHTZEE.name() {
        exact_joint_forward(table, &|_, _| {}).expect("Yahtzee's joint figures")
    } else {
        exact_forward(table, &|_, _| {})
    };
    let f: &'static Forward = Box::leak(Box::new(pass));
    passes.push((set.name(), f));
    f
}

/// The mean score, P(upper bonus) and P(points in the five-of-a-kind box) of a game, from
/// each state's turn weighted by the chance of reaching the state: the states of a card
/// taken together, the cards in parallel, summed in the order of the cards.
fn weighted_turns(table: &StrategyTable, visits: &Visits) -> [f64; 3] {
    let rules = *table.rules();
    let five = rules.five_of_a_kind_box();
    let fifty = rules.five_of_a_kind_points();
    let cards: Vec<_> = cards_by_depth(&rules)
        .into_iter()
        .take(rules.box_count())
        .flatten()
        .collect();
    let per_card: Vec<[f64; 3]> = cards
        .par_iter()
        .map(|&m| {
            let states: Vec<State> = card_states(&rules, m)
                .into_iter()
                .filter(|s| visits.of(s) > 0.0)
                .collect();
            let mut sums = [0.0; 3];
            for (s, events) in states.iter().zip(card_outcomes(table, &states)) {
                let v = visits.of(s);
                for e in events {
                    let p = v * e.probability;
                    sums[0] += p * f64::from(e.banked());
                    sums[1] += p * f64::from(u8::from(e.upper_bonus()));
                    let filled_fifty =
                        five == Some(usize::from(e.box_index)) && u32::from(e.points) == fifty;
                    sums[2] += p * f64::from(u8::from(filled_fifty));
                }
            }
            sums
        })
        .collect();
    per_card
        .iter()
        .fold([0.0; 3], |a, c| [a[0] + c[0], a[1] + c[1], a[2] + c[2]])
}

/// Acceptance (issue 27): for every built-in rule set that solves in seconds (all but Maxi
/// Yatzy), the chances of reaching the states of each depth add up to 1, and each state's
/// turn weighted by its chance gives the mean, P(upper bonus) and P(50 in the five-of-a-kind
/// box) of the exact distribution, to 1e-9.
#[test]
fn visit_probabilities_sum_to_one_and_weight_the_turns_into_the_exact_figures() {
    for &set in RuleSet::all().iter().filter(|s| s.solves_in_seconds()) {
        let table = table(set, Order::Any);
        let rules = *table.rules();
        let f = forward(set);
        for (depth, total) in f.visits.by_depth().iter().enumerate() {
            assert!(
                (total - 1.0).abs() < 1e-9,
                "{} depth {depth}: {total}",
                set.name()
            );
        }
        assert_eq!(f.visits.of(&State::START), 1.0);
        let s = Summary::of(&rules, &f.tally, &THRESHOLDS);
        let [mean, bonus, fifty] = weighted_turns(table, &f.visits);
        let name = set.name();
        assert!((mean - s.mean).abs() < 1e-9, "{name}: {mean} vs {}", s.mean);
        assert!((mean - table.expected_score()).abs() < 1e-9, "{name}");
        let p_bonus = s.upper_bonus.map_or(0.0, |u| u.probability);
        assert!(
            (bonus - p_bonus).abs() < 1e-9,
            "{name}: {bonus} vs {p_bonus}"
        );
        assert!(
            (fifty - s.fifty_probability).abs() < 1e-9,
            "{name}: {fifty} vs {}",
            s.fifty_probability
        );
        // The array in the order of the states of `export --all-states`.
        let array = f.visits.in_state_order();
        assert_eq!(array.len() as u64, table.states());
        assert!((array.iter().sum::<f64>() - (rules.box_count() + 1) as f64).abs() < 1e-9);
    }
}

/// Acceptance (issue 27): the parts of each split of the distribution (by the upper bonus,
/// by the five-of-a-kind box, by both) hold every game once: their probabilities add up to
/// 1 and their means, weighted by them, to the mean, to 1e-9, for every built-in rule set that
/// solves in seconds (all but Maxi Yatzy).
#[test]
fn split_parts_add_up_to_the_whole_distribution() {
    for &set in RuleSet::all().iter().filter(|s| s.solves_in_seconds()) {
        let rules = *table(set, Order::Any).rules();
        let s = Summary::of(&rules, &forward(set).tally, &THRESHOLDS);
        let split = s
            .split
            .as_ref()
            .expect("the exact distribution tells the parts apart");
        let name = set.name();
        let mut splits = 0;
        for parts in [&split.upper_bonus, &split.five_of_a_kind, &split.joint] {
            if parts.is_empty() {
                continue;
            }
            splits += 1;
            let p: f64 = parts.iter().map(|x| x.probability).sum();
            let mean: f64 = parts.iter().map(|x| x.probability * x.mean).sum();
            assert!((p - 1.0).abs() < 1e-9, "{name}: {p}");
            assert!((mean - s.mean).abs() < 1e-9, "{name}: {mean} vs {}", s.mean);
            // And the spread: within-part variance plus between-part variance.
            let variance: f64 = parts
                .iter()
                .map(|x| x.probability * (x.std_dev.powi(2) + (x.mean - s.mean).powi(2)))
                .sum();
            assert!((variance.sqrt() - s.std_dev).abs() < 1e-9, "{name}");
        }
        assert_eq!(
            splits,
            if rules.has_upper_bonus() { 3 } else { 1 },
            "{name}"
        );
        // The parts are the bonus and the box as the per-box figures count them.
        if let (Some(u), Some(got)) = (&s.upper_bonus, split.upper_bonus.first()) {
            assert_eq!(got.upper_bonus, Some(true));
            assert!((got.probability - u.probability).abs() < 1e-12, "{name}");
        }
        let fifty = &split.five_of_a_kind[0];
        assert_eq!(fifty.five_of_a_kind, Some(rules.five_of_a_kind_points()));
        assert!(
            (fifty.probability - s.fifty_probability).abs() < 1e-12,
            "{name}"
        );
        // Games with 50 in the box score more on average.
        assert!(fifty.mean > split.five_of_a_kind[1].mean, "{name}");
        // The shape: a long right tail, the worst 5% below the 5th percentile's neighbours.
        assert!(
            s.shape.cvar_5 <= f64::from(s.percentiles[1].score),
            "{name}"
        );
        assert!(
            s.shape.top_5_mean >= f64::from(s.percentiles[6].score),
            "{name}"
        );
    }
}

/// The moments and tails of the shape, recomputed from the whole distribution by hand.
#[test]
fn shape_figures_are_the_moments_and_tails_of_the_distribution() {
    let f = forward(RuleSet::YAHTZEE);
    let rules = *table(RuleSet::YAHTZEE, Order::Any).rules();
    let s = Summary::of(&rules, &f.tally, &THRESHOLDS);
    let pmf = f.tally.pmf();
    let central = |k: i32| -> f64 {
        pmf.iter()
            .map(|&(x, p)| p * (f64::from(x) - s.mean).powi(k))
            .sum()
    };
    let sd = central(2).sqrt();
    assert!((s.shape.skewness - central(3) / sd.powi(3)).abs() < 1e-9);
    assert!((s.shape.excess_kurtosis - (central(4) / sd.powi(4) - 3.0)).abs() < 1e-9);
    // Yahtzee bonuses make a long right tail.
    assert!(
        s.shape.skewness > 1.0 && s.shape.excess_kurtosis > 1.0,
        "{:?}",
        s.shape
    );
    // The worst 5%: every score below the 5th percentile, and part of the games at it.
    let q = s.percentiles[1].score;
    let below: f64 = pmf.iter().filter(|&&(x, _)| x < q).map(|&(_, p)| p).sum();
    let sum_below: f64 = pmf
        .iter()
        .filter(|&&(x, _)| x < q)
        .map(|&(x, p)| f64::from(x) * p)
        .sum();
    let cvar = (sum_below + (0.05 - below) * f64::from(q)) / 0.05;
    assert!(
        (s.shape.cvar_5 - cvar).abs() < 1e-9,
        "{} vs {cvar}",
        s.shape.cvar_5
    );
}

/// The target policy's visits, by the forward pass of `stats --target`: a game starts one
/// turn at each depth, and it reaches other states than the expected-score policy.
#[test]
fn target_visit_probabilities_sum_to_one_at_every_depth() {
    let ev = table(RuleSet::YACHT, Order::Any);
    let targets = target_table(RuleSet::YACHT, Order::Any);
    let player = TargetPlayer::new(ev, targets, 230).unwrap();
    let visits = target_visit_probabilities(&player, &|_, _| {});
    for (depth, total) in visits.by_depth().iter().enumerate() {
        assert!((total - 1.0).abs() < 1e-9, "depth {depth}: {total}");
    }
    let optimal = visit_probabilities(ev, &|_, _| {});
    let moved: f64 = visits
        .in_state_order()
        .iter()
        .zip(optimal.in_state_order())
        .map(|(a, b)| (a - b).abs())
        .sum();
    assert!(moved > 0.01, "{moved}");
}

/// `stats --json` carries the shape and the split; a simulation gives each share its 95%
/// Wilson interval, holding the share.
#[test]
fn stats_json_has_the_split_and_simulate_gives_every_share_an_interval() {
    let v: serde_json::Value = serde_json::from_str(&stdout(&run(
        RuleSet::YAHTZEE,
        Order::Any,
        &["stats", "--json"],
    )))
    .unwrap();
    assert_eq!(v["split"]["joint"].as_array().unwrap().len(), 4);
    assert!(v["shape"]["cvar_5"].as_f64().unwrap() < v["mean"].as_f64().unwrap());
    assert!(v["at_least"][0].get("interval").is_none());
    let o = run(
        RuleSet::YAHTZEE,
        Order::Any,
        &["simulate", "--games", "3000", "--seed", "4", "--json"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["interval_method"].as_str().unwrap().contains("Wilson"));
    let mut shares = 0;
    let mut check = |p: &serde_json::Value, i: &serde_json::Value| {
        let (p, low, high) = (
            p.as_f64().unwrap(),
            i["low"].as_f64().unwrap(),
            i["high"].as_f64().unwrap(),
        );
        assert!(
            0.0 <= low && low <= p && p <= high && high <= 1.0,
            "{p} [{low}, {high}]"
        );
        assert!(low < high && high - low < 0.05, "{p} [{low}, {high}]");
        shares += 1;
    };
    for a in v["at_least"].as_array().unwrap() {
        check(&a["probability"], &a["interval"]);
    }
    for b in v["boxes"].as_array().unwrap() {
        check(&b["zero_probability"], &b["zero_interval"]);
    }
    check(
        &v["upper_bonus"]["probability"],
        &v["upper_bonus"]["interval"],
    );
    check(&v["fifty_probability"], &v["fifty_interval"]);
    let counts = &v["yahtzee_bonuses"];
    for (p, i) in counts["count_probability"]
        .as_array()
        .unwrap()
        .iter()
        .zip(counts["count_intervals"].as_array().unwrap())
    {
        check(p, i);
    }
    for part in ["upper_bonus", "five_of_a_kind", "joint"] {
        for x in v["split"][part].as_array().unwrap() {
            check(&x["probability"], &x["interval"]);
        }
    }
    assert!(shares >= 6 + 13 + 2 + 2 + 8, "{shares}");
    // The text shows them too.
    let o = run(
        RuleSet::YAHTZEE,
        Order::Any,
        &["simulate", "--games", "3000", "--seed", "4"],
    );
    let out = stdout(&o);
    let line = out
        .lines()
        .find(|l| l.starts_with("P(upper bonus)"))
        .unwrap();
    assert!(line.contains(" [") && line.ends_with(']'), "{line}");
    // A part without games (the greedy player never earns the upper bonus in 3,000 games)
    // has no mean: a dash, not `-0.0000`.
    let o = run(
        RuleSet::YAHTZEE,
        Order::Any,
        &[
            "simulate", "--games", "3000", "--seed", "4", "--policy", "greedy",
        ],
    );
    let out = stdout(&o);
    let line = out
        .lines()
        .find(|l| l.starts_with("upper bonus, 50 in yahtzee "))
        .unwrap();
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(fields[fields.len() - 2..], ["–", "–"], "{line}");
    assert!(line.contains(" 0 [0, "), "{line}");
}

/// Every JSON result states its provenance: the rules, the program's version, the commit it
/// was built from, the dice generator's version and, where a strategy table was read, its
/// checksum, the one `verify` prints (issues 27 and 48).
#[test]
fn every_json_result_states_its_rules_version_and_table_checksum() {
    let (set, order) = (RuleSet::YACHT, Order::Any);
    table(set, order);
    let path = table_dir().join(default_table_name(&Rules::new(set)));
    let verified: serde_json::Value = serde_json::from_str(&stdout(&run(
        set,
        order,
        &["verify", &path_str(&path), "--json"],
    )))
    .unwrap();
    let checksum = verified["checksum"].as_str().unwrap().to_string();
    let check = |what: &str, v: &serde_json::Value, with_table: bool| {
        assert_eq!(v["version"], env!("CARGO_PKG_VERSION"), "{what}: {v}");
        assert_eq!(v["commit"], env!("YAHTZEE_COMMIT"), "{what}: {v}");
        assert_eq!(
            v["dice_generator"],
            yahtzee_core::game::dice::DICE_GENERATOR,
            "{what}: {v}"
        );
        assert_eq!(v["rules"], "yacht", "{what}: {v}");
        assert_eq!(v["upper_first"], false, "{what}: {v}");
        if with_table {
            assert_eq!(v["table_checksum"], checksum.as_str(), "{what}: {v}");
        } else {
            assert!(v.get("table_checksum").is_none(), "{what}: {v}");
        }
    };
    let json = |args: &[&str]| -> serde_json::Value {
        let o = run(set, order, args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let yacht = ["--rules", "yacht"];
    check(
        "stats",
        &json(&[&["stats", "--json"][..], &yacht].concat()),
        true,
    );
    let sim = ["simulate", "--games", "50", "--json"];
    check("simulate", &json(&[&sim[..], &yacht].concat()), true);
    // The greedy bot reads no table.
    let greedy = ["simulate", "--games", "50", "--policy", "greedy", "--json"];
    check(
        "simulate greedy",
        &json(&[&greedy[..], &yacht].concat()),
        false,
    );
    // Several policies on the same dice: one report each, each stamped (the greedy bot
    // reads no table, but the optimal one's was read for the run).
    let several = [
        "simulate",
        "--games",
        "50",
        "--policy",
        "optimal,greedy",
        "--json",
    ];
    let reports = json(&[&several[..], &yacht].concat());
    for v in reports.as_array().expect("an array of reports") {
        check("simulate several", v, true);
    }
    let overlay = json(&["stats", "--rules", "yacht,yacht", "--json"]);
    for v in overlay.as_array().expect("an array of reports") {
        check("stats several", v, true);
    }
    let advise = ["advise", "--dice", "1,3,3,5,6", "--json"];
    check("advise", &json(&[&advise[..], &yacht].concat()), true);
    let batch = run_with_input(
        table_dir(),
        &["advise", "--batch", "--rules", "yacht"],
        "{\"dice\": [1, 3, 3, 5, 6]}\n{\"dice\": [2, 2, 2, 5, 6], \"rolls_left\": 0}\n",
    );
    assert!(batch.status.success(), "{}", stderr(&batch));
    for line in stdout(&batch).lines() {
        check("batch", &serde_json::from_str(line).unwrap(), true);
    }
    let dir = temp_dir();
    let solved = dir.path().join("yacht.table");
    let v = json(
        &[
            &["solve", "--json", "--out", &path_str(&solved)][..],
            &yacht,
        ]
        .concat(),
    );
    check("solve", &v, true);
    let record = dir.path().join("game.jsonl");
    let play = ["play", "--players", "bot", "--seed", "3", "--record"];
    let rec = path_str(&record);
    let o = run_with_input(
        table_dir(),
        &[&play[..], &[rec.as_str()], &yacht].concat(),
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    check(
        "review",
        &json(&["review", &path_str(&record), "--json"]),
        true,
    );
}

/// `stats --card` and `--dice`: the distribution of the games from a position, its mean the
/// value `advise` gives the position (its best option) to 1e-9, the final card's per-box
/// means and bonuses adding up to the mean, the card's own boxes and Yahtzee bonus counted
/// for sure; bad positions (a full card among them) refused in one line.
#[test]
fn stats_from_a_card_and_a_position() {
    let card = "ones=3,twos=6,threes=9,fours=12,yahtzee=50,chance=22";
    let json = |args: &[&str]| -> serde_json::Value {
        let o = run(RuleSet::YAHTZEE, Order::Any, args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let advised = |args: &[&str]| -> f64 {
        let mut all = vec!["advise", "--json"];
        all.extend_from_slice(args);
        json(&all)["options"][0]["expected_final"].as_f64().unwrap()
    };
    let in_turn = [
        "--card",
        card,
        "--yahtzee-bonus",
        "1",
        "--dice",
        "5,5,5,2,1",
        "--rolls-left",
        "1",
    ];
    for (position, value) in [
        (vec!["--card", card, "--yahtzee-bonus", "1"], None),
        (in_turn.to_vec(), Some(advised(&in_turn))),
        (
            vec!["--dice", "6,6,6,6,6", "--rolls-left", "0"],
            Some(advised(&["--dice", "66666", "--rolls-left", "0"])),
        ),
    ] {
        let mut args = vec!["stats", "--json"];
        args.extend_from_slice(&position);
        let r = json(&args);
        let mean = r["mean"].as_f64().unwrap();
        let solver = r["solver_mean"].as_f64().unwrap();
        assert!(
            (mean - solver).abs() < 1e-9,
            "{position:?}: {mean} against {solver}"
        );
        if let Some(value) = value {
            assert!(
                (solver - value).abs() < 1e-9,
                "{position:?}: {solver} against advise {value}"
            );
        }
        let boxes: f64 = r["boxes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["mean"].as_f64().unwrap())
            .sum();
        let bonuses = r["upper_bonus"]["mean"].as_f64().unwrap()
            + r["yahtzee_bonuses"]["mean"].as_f64().unwrap();
        assert!(
            (boxes + bonuses - mean).abs() < 1e-9,
            "{position:?}: {boxes} + {bonuses} against {mean}"
        );
        if position.contains(&card) {
            assert_eq!(r["from"]["card"], card);
            assert!((r["boxes"][0]["mean"].as_f64().unwrap() - 3.0).abs() < 1e-9);
            assert!((r["fifty_probability"].as_f64().unwrap() - 1.0).abs() < 1e-9);
            // The card's bonus is counted in every game: none ends with fewer.
            assert_eq!(
                r["yahtzee_bonuses"]["count_probability"][0]
                    .as_f64()
                    .unwrap(),
                0.0
            );
        }
    }
    let full = "ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6,three-of-a-kind=20,four-of-a-kind=0,full-house=25,small-straight=30,large-straight=0,yahtzee=0,chance=17";
    for (args, needle) in [
        (vec!["stats", "--card", "ones=3", "--dice", "1,2,3"], "five"),
        (
            vec!["stats", "--dice", "1,2,3,4,5", "--rolls-left", "3"],
            "rolls left",
        ),
        (vec!["stats", "--card", "ones=7"], "ones"),
        (vec!["stats", "--card", full], "full"),
        (
            vec!["stats", "--rules", "yahtzee,yacht", "--card", "ones=3"],
            "one rule set",
        ),
    ] {
        assert_bad_input(&run(RuleSet::YAHTZEE, Order::Any, &args), needle);
    }
}
