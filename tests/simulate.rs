//! `yahtzee simulate`: agreement with the exact distribution, reproducibility, baselines and
//! the command's outputs.

use yahtzee_core::game::rules::{Order, RuleSet};
use yahtzee_core::game::state::State;
use yahtzee_core::policy::player::Player;
use yahtzee_core::policy::target::TargetPlayer;
use yahtzee_core::stats::distribution::{Summary, THRESHOLDS};
use yahtzee_core::stats::exact_distribution;
use yahtzee_core::stats::simulate::{MeanInterval, ShareInterval, simulate};

use crate::util::*;

/// A large optimal simulation agrees with the exact statistics within its sampling error
/// (4 standard errors for each figure: a false alarm about once in 16,000 per figure).
#[test]
fn optimal_simulation_agrees_with_the_exact_distribution() {
    let table = table(RuleSet::YACHT, Order::Any);
    let rules = *table.rules();
    let games = 200_000u64;
    let n = games as f64;
    let exact_tally = exact_distribution(table, &|_, _| {});
    let exact = Summary::of(&rules, &exact_tally, &THRESHOLDS);
    let sim_tally = simulate(&rules, &Player::Optimal(table), games, 2024, &|_| {});
    assert_eq!(sim_tally.total(), n);
    let sim = Summary::of(&rules, &sim_tally, &THRESHOLDS);
    let se = exact.std_dev / n.sqrt();
    assert!(
        (sim.mean - exact.mean).abs() < 4.0 * se,
        "{} vs {}",
        sim.mean,
        exact.mean
    );
    let interval = MeanInterval::of(&sim_tally);
    assert!((interval.standard_error - se).abs() < 0.05 * se);
    // The standard error of a standard deviation is about sd / sqrt(2n) for a bell shape;
    // allow for the heavier tails with 6 of those.
    assert!((sim.std_dev - exact.std_dev).abs() < 6.0 * exact.std_dev / (2.0 * n).sqrt());
    for (i, (e, s)) in exact.boxes.iter().zip(&sim.boxes).enumerate() {
        let p = e.zero_probability;
        let tol = 4.0 * (p * (1.0 - p) / n).sqrt() + 1e-9;
        assert!((s.zero_probability - p).abs() <= tol, "{} P(zero)", e.name);
        // The spread of the box's points, from the exact distribution.
        let mass = &exact_tally.boxes[i];
        let var: f64 = mass
            .iter()
            .enumerate()
            .map(|(pts, &m)| (pts as f64 - e.mean).powi(2) * m)
            .sum();
        assert!(
            (s.mean - e.mean).abs() <= 4.0 * (var / n).sqrt() + 1e-9,
            "{} mean {} vs {}",
            e.name,
            s.mean,
            e.mean
        );
    }
    for (e, s) in exact.at_least.iter().zip(&sim.at_least) {
        let p = e.probability;
        assert!((s.probability - p).abs() <= 4.0 * (p * (1.0 - p) / n).sqrt() + 1e-9);
    }
}

#[test]
fn baselines_play_worse_than_optimal() {
    let table = table(RuleSet::YAHTZEE, Order::Any);
    let rules = *table.rules();
    let mean = |player: Player<'_>| {
        let t = simulate(&rules, &player, 4_000, 5, &|_| {});
        Summary::of(&rules, &t, &[]).mean
    };
    let greedy = mean(Player::Greedy);
    let common = mean(Player::MostCommon);
    let optimal = mean(Player::Optimal(table));
    // Sampling errors are near 1 point; the gaps are tens of points.
    assert!(greedy + 20.0 < common, "{greedy} {common}");
    assert!(common + 20.0 < optimal, "{common} {optimal}");
}

fn simulate_json(args: &[&str]) -> serde_json::Value {
    let o = run(RuleSet::YACHT, Order::Any, args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
fn same_seed_same_report_at_any_thread_count() {
    let base = [
        "simulate", "--rules", "yacht", "--games", "3000", "--seed", "9", "--json",
    ];
    let mut a = simulate_json(&[&base[..], &["--threads", "1"]].concat());
    let mut b = simulate_json(&[&base[..], &["--threads", "2"]].concat());
    for v in [&mut a, &mut b] {
        let o = v.as_object_mut().unwrap();
        for volatile in ["seconds", "games_per_second", "threads"] {
            o.remove(volatile);
        }
    }
    assert_eq!(a, b);
    assert_eq!(a["games"], 3000);
    assert_eq!(a["policy"], "optimal");
    let c = simulate_json(&[&base[..5], &["--seed", "10", "--json"]].concat());
    assert_ne!(a["mean"], c["mean"]);
}

#[test]
fn simulate_reports_the_interval_and_writes_files() {
    let dir = temp_dir();
    let csv = dir.path().join("sim.csv");
    let svg = dir.path().join("sim.svg");
    let v = simulate_json(&[
        "simulate",
        "--rules",
        "yacht",
        "--games",
        "2000",
        "--policy",
        "most-common",
        "--json",
        "--pmf",
        &path_str(&csv),
        "--plot",
        &path_str(&svg),
    ]);
    assert_eq!(v["policy"], "most-common");
    assert!(v.get("tie_convention").is_none());
    let mean = v["mean"].as_f64().unwrap();
    let (low, high) = (
        v["mean_interval"]["low"].as_f64().unwrap(),
        v["mean_interval"]["high"].as_f64().unwrap(),
    );
    assert!(low < mean && mean < high);
    let rows = std::fs::read_to_string(&csv).unwrap();
    let total: f64 = rows
        .lines()
        .skip(1)
        .map(|l| l.split_once(',').unwrap().1.parse::<f64>().unwrap())
        .sum();
    assert!((total - 1.0).abs() < 1e-12);
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
}

#[test]
fn simulate_rejects_bad_options() {
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["simulate", "--rules", "yacht", "--games", "0"],
    );
    assert_bad_input(&o, "--games 0: the number of games must be from 1 to");
    let dir = temp_dir();
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "simulate",
            "--rules",
            "yacht",
            "--plot",
            &path_str(dir.path()),
        ],
    );
    assert_bad_input(&o, "is a folder");
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["simulate", "--rules", "yacht", "--policy", "lucky"],
    );
    assert_bad_input(&o, "lucky");
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["simulate", "--rules", "yacht", "--seed", "-1"],
    );
    assert_bad_input(&o, "-1");
}

#[test]
fn simulate_never_overwrites_a_table_with_its_files() {
    let table = table_dir().join("yacht.v4.table");
    crate::util::table(RuleSet::YACHT, Order::Any);
    let before = std::fs::read(&table).unwrap();
    for flag in ["--pmf", "--plot"] {
        let o = run(
            RuleSet::YACHT,
            Order::Any,
            &[
                "simulate",
                "--rules",
                "yacht",
                "--games",
                "10",
                flag,
                &path_str(&table),
            ],
        );
        assert_bad_input(&o, "is the strategy table this command reads");
        assert!(stderr(&o).contains(flag));
    }
    assert_eq!(std::fs::read(&table).unwrap(), before);
}

#[test]
fn simulate_never_prints_a_nonzero_probability_as_zero() {
    // The highest score of 30,000 games (seed 1) is reached once: a share of 3.3e-5, which
    // four decimals would show as 0.0000.
    let args = [
        "simulate", "--rules", "yacht", "--games", "30000", "--policy", "greedy",
    ];
    let max = simulate_json(&[&args[..], &["--json"]].concat())["max"]
        .as_u64()
        .unwrap()
        .to_string();
    let with_max = [&args[..], &["--at-least", &max]].concat();
    let p = simulate_json(&[&with_max[..], &["--json"]].concat())["at_least"][0]["probability"]
        .as_f64()
        .unwrap();
    assert!(p > 0.0 && p < 5e-5, "{p}");
    let out = stdout(&run(RuleSet::YACHT, Order::Any, &with_max));
    let line = out.lines().find(|l| l.starts_with("P(score)")).unwrap();
    // The share, then its 95% interval, whose low end is no zero either.
    assert!(
        line.contains(&format!(
            ">={max}: {} [",
            yahtzee_core::text::probability(p)
        )),
        "{line}"
    );
    assert!(!out.contains("0.0000"), "{out}");
}

/// The target policy reaches its target as often as the target table says the best strategy
/// can: the share of games reaching T holds P*(empty card, T) within 4 standard errors, and
/// it is clearly above the share of the optimal (expected-score) policy on the same dice.
#[test]
fn target_simulation_reaches_the_target_as_often_as_the_table_says() {
    let table = table(RuleSet::YACHT, Order::Any);
    let targets = target_table(RuleSet::YACHT, Order::Any);
    let rules = *table.rules();
    let (t, games) = (200u32, 10_000u64);
    let best = f64::from(targets.value(&State::START, i64::from(t)).unwrap());
    let player = TargetPlayer::new(table, targets, t).unwrap();
    let tally = simulate(&rules, &Player::Target(player), games, 7, &|_| {});
    let reached = ShareInterval::of(&tally, t);
    let se = (best * (1.0 - best) / games as f64).sqrt();
    assert!(
        (reached.share - best).abs() < 4.0 * se,
        "share {} vs P* {best}",
        reached.share
    );
    assert!(reached.low < best && best < reached.high + 2.0 * se);
    let optimal = simulate(&rules, &Player::Optimal(table), games, 7, &|_| {});
    let optimal = ShareInterval::of(&optimal, t).share;
    // 0.243 against 0.20: the gap is ten standard errors.
    assert!(
        optimal + 0.02 < reached.share,
        "{optimal} {}",
        reached.share
    );
}

#[test]
fn target_simulation_is_the_same_at_any_thread_count() {
    let table = table(RuleSet::YACHT, Order::Any);
    let targets = target_table(RuleSet::YACHT, Order::Any);
    let player = TargetPlayer::new(table, targets, 180).unwrap();
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| simulate(table.rules(), &Player::Target(player), 2_500, 3, &|_| {}))
    };
    let one = run(1);
    assert_eq!(one, run(3));
    assert_eq!(one.total(), 2_500.0);
}

/// A target of 0 is reached before the first roll and one above any score is out of reach
/// from the start: either way the target policy is the optimal policy, game for game.
#[test]
fn target_zero_and_out_of_reach_targets_play_the_optimal_games() {
    target_table(RuleSet::YACHT, Order::Any);
    let base = [
        "simulate", "--rules", "yacht", "--games", "1500", "--seed", "11", "--json",
    ];
    let strip = |mut v: serde_json::Value| {
        let o = v.as_object_mut().unwrap();
        for key in [
            "policy",
            "target",
            "reached",
            "tie_convention",
            "seconds",
            "games_per_second",
            "threads",
        ] {
            o.remove(key);
        }
        v
    };
    let optimal = strip(simulate_json(&base));
    for t in ["0", "100000"] {
        let policy = format!("target:{t}");
        let v = simulate_json(&[&base[..], &["--policy", &policy]].concat());
        assert_eq!(v["policy"], "target");
        assert_eq!(v["target"].to_string(), t);
        let share = v["reached"]["share"].as_f64().unwrap();
        assert_eq!(share, if t == "0" { 1.0 } else { 0.0 });
        assert_eq!(strip(v), optimal, "target:{t}");
    }
}

#[test]
fn simulate_target_reports_the_share_reaching_it() {
    target_table(RuleSet::YACHT, Order::Any);
    let args = [
        "simulate",
        "--rules",
        "yacht",
        "--games",
        "2000",
        "--policy",
        "target:190",
        "--at-least",
        "150,190",
    ];
    let v = simulate_json(&[&args[..], &["--json"]].concat());
    assert_eq!(v["target"], 190);
    let share = v["reached"]["share"].as_f64().unwrap();
    assert!((share - v["at_least"][1]["probability"].as_f64().unwrap()).abs() < 1e-12);
    let (low, high) = (
        v["reached"]["low"].as_f64().unwrap(),
        v["reached"]["high"].as_f64().unwrap(),
    );
    assert!(
        0.0 < low && low < share && share < high && high < 1.0,
        "{v}"
    );
    assert!(
        v["tie_convention"]
            .as_str()
            .unwrap()
            .contains("the higher expected final score")
    );
    let o = run(RuleSet::YACHT, Order::Any, &args);
    let out = stdout(&o);
    assert!(out.contains("policy target:190"), "{out}");
    let line = out.lines().find(|l| l.starts_with("reached 190")).unwrap();
    assert!(line.contains("95% interval ["), "{line}");
}

#[test]
fn simulate_refuses_a_target_policy_without_a_good_target() {
    for (policy, needle) in [
        (
            "target",
            "the target policy needs its target score: target:T",
        ),
        ("target:", "the target policy needs its target score"),
        ("target:100001", "must be a whole number from 0 to 100000"),
        ("target:-5", "must be a whole number from 0 to 100000"),
        ("target:2.5", "`target:2.5`"),
        ("targit:300", "unknown policy `targit:300`"),
    ] {
        let o = run(
            RuleSet::YACHT,
            Order::Any,
            &["simulate", "--rules", "yacht", "--policy", policy],
        );
        assert_bad_input(&o, needle);
    }
}
