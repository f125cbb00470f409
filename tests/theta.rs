//! The risk-sensitive objective (an exponential utility of parameter θ): the θ tables against
//! a brute force of the certainty equivalent's Bellman equation on reduced games, the exact
//! distribution under a θ policy against the table's certainty equivalent, a tiny θ against
//! the expected score, and the command line's `--theta`, `theta:X` and `"theta"`.

use std::sync::{Mutex, OnceLock};

use yahtzee_core::game::dice::Dice;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::ScoreCard;
use yahtzee_core::policy::expected::{Position, advise};
use yahtzee_core::report::stats_theta;
use yahtzee_core::solve::expected::SolveOptions;
use yahtzee_core::solve::theta::Theta;
use yahtzee_core::stats::Start;
use yahtzee_core::tables::expected::StrategyTable;

use crate::brute::BruteForce;
use crate::solver::sampled_states;
use crate::util::{
    assert_bad_input, run, run_advise, run_with_input, stderr, stdout, table, table_dir, temp_dir,
    yahtzee_in,
};

/// The θ table of `set` (in its default order), solved once per test process.
fn theta_table(set: &'static RuleSet, theta: f64) -> &'static StrategyTable {
    type Solved = Vec<(&'static str, u64, &'static StrategyTable)>;
    static TABLES: OnceLock<Mutex<Solved>> = OnceLock::new();
    let mut guard = TABLES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, t)) = guard
        .iter()
        .find(|(name, bits, _)| *name == set.name() && *bits == theta.to_bits())
    {
        return t;
    }
    let rules = Rules::new(set);
    let theta = Theta::new(theta).unwrap();
    let (t, _) = StrategyTable::solve_theta(&rules, theta, SolveOptions::default(), &|_, _| {})
        .expect("the θ table solves");
    let t: &'static StrategyTable = Box::leak(Box::new(t));
    guard.push((set.name(), theta.value().to_bits(), t));
    t
}

/// Issue 48: every sampled state of the reduced games (the last two or three boxes open) has
/// the certainty equivalent of the brute force, to 1e-9, for θ above and below 0: Yacht, and
/// Yahtzee with its Joker, its bonuses and its upper bonus.
#[test]
fn certainty_equivalents_agree_with_brute_force_on_reduced_games() {
    for (set, open, step, thetas) in [
        (&RuleSet::YACHT, 3, 17, &[0.07, -0.05, 0.6][..]),
        (&RuleSet::YAHTZEE, 2, 37, &[0.07, -0.05][..]),
    ] {
        let rules = Rules::new(set);
        let mut brute = BruteForce::new(rules);
        let states = sampled_states(&rules, open, step, 10);
        for &theta in thetas {
            let t = theta_table(set, theta);
            for s in &states {
                let want = brute.certainty(*s, theta);
                let got = t.value(s);
                assert!(
                    (got - want).abs() < 1e-9,
                    "{} θ {theta} {s:?}: table {got}, brute force {want}",
                    rules.label()
                );
            }
        }
    }
}

/// The exact distribution under a θ policy (the forward pass following the θ table's
/// choices) has the table's certainty equivalent: `E[e^(θX)] = e^(θ·CE(start))`, from a new
/// game of Yacht and from a late card of Yahtzee.
#[test]
fn the_distribution_under_theta_has_the_table_s_certainty_equivalent() {
    let yahtzee = Rules::new(RuleSet::YAHTZEE);
    let late = ScoreCard::parse(
        yahtzee,
        "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,three-of-a-kind=20,four-of-a-kind=0,full-house=25,yahtzee=50",
        0,
    )
    .unwrap();
    for theta in [0.05, -0.05] {
        for (set, start) in [
            (&RuleSet::YACHT, None),
            (&RuleSet::YAHTZEE, Some(Start::Card(late.clone()))),
        ] {
            let t = theta_table(set, theta);
            let (report, tally) = stats_theta(t, start.as_ref(), &[], &|_, _| {}).unwrap();
            let pmf = tally.pmf();
            let moment: f64 = pmf
                .iter()
                .map(|&(x, p)| p * (theta * (f64::from(x) - report.certainty_equivalent)).exp())
                .sum();
            assert!(
                (moment - 1.0).abs() < 1e-12,
                "{} θ {theta}: E[e^(θ(X - CE))] = {moment}",
                set.name()
            );
            assert!(
                (report.certainty_equivalent - report.distribution_certainty_equivalent).abs()
                    < 1e-9,
                "{report:?}"
            );
        }
    }
}

/// A θ of 1e-6 is the expected score to within its variance term (θ·Var/2, well under 0.05
/// points), and plays the expected score's choices: the best option of every roll of a few
/// Yacht cards, with each number of rolls left, is the expected score's whenever that one is
/// best by more than 1e-4.
#[test]
fn a_tiny_theta_plays_as_the_expected_score() {
    let rules = Rules::new(RuleSet::YACHT);
    let ev = table(RuleSet::YACHT, Order::Any);
    let t = theta_table(RuleSet::YACHT, 1e-6);
    for s in sampled_states(&rules, 12, 97, 20) {
        let (a, b) = (t.value(&s), ev.value(&s));
        assert!((a - b).abs() < 0.05 && a >= b - 1e-9, "{s:?}: {a} vs {b}");
    }
    let mut compared = 0;
    for card in [
        "",
        "ones=3,yacht=50",
        "fives=20,sixes=24,choice=22,big-straight=30",
    ] {
        let card = ScoreCard::parse(rules, card, 0).unwrap();
        for dice in Dice::all() {
            for rolls_left in 0..=2 {
                let position = Position {
                    card: card.clone(),
                    dice,
                    rolls_left,
                };
                let expected = advise(ev, &position).unwrap();
                let under_theta = advise(t, &position).unwrap();
                let clear = expected.options.get(1).is_none_or(|o| o.loss > 1e-4);
                if clear {
                    assert_eq!(
                        under_theta.options[0].action, expected.options[0].action,
                        "{position:?}"
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 1500, "{compared}");
}

/// The command line: `advise --theta` refuses 0 (pointing at the ordinary advice), a θ too
/// large and a game of saved rolls in one line, exit 2; ranks by certainty equivalent, the
/// batch key `"theta"` answering the same; `stats --theta` states the certainty equivalent
/// by the table and the distribution; `simulate --policy theta:X` plays it; `stats
/// --frontier` reports each θ of its grid.
#[test]
fn the_command_line_advises_simulates_and_reports_under_a_theta() {
    let set = &RuleSet::YACHT;
    let dice = ["--dice", "1,3,3,5,6"];
    fn with<'a>(dice: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [dice, extra].concat()
    }
    assert_bad_input(
        &run_advise(set, &with(&dice, &["--theta", "0"])),
        "ordinary advice",
    );
    assert_bad_input(
        &run_advise(set, &with(&dice, &["--theta", "7"])),
        "too large",
    );
    let saved = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/rules/examples/yatzy-saved-rolls.toml"
    );
    let dir = temp_dir();
    let o = yahtzee_in(dir.path())
        .args([
            "advise",
            "--rules",
            saved,
            "--dice",
            "1,3,3,5,6",
            "--theta",
            "0.1",
        ])
        .output()
        .unwrap();
    assert_bad_input(&o, "saved rolls");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);

    let o = run_advise(set, &with(&dice, &["--theta", "0.1", "--json"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["theta"], 0.1);
    let options = json["options"].as_array().unwrap();
    let t = theta_table(set, 0.1);
    let card = ScoreCard::parse(Rules::new(set), "", 0).unwrap();
    let position = Position {
        card,
        dice: Dice::from_faces(&[1, 3, 3, 5, 6]).unwrap(),
        rolls_left: 2,
    };
    let want = advise(t, &position).unwrap();
    assert_eq!(options.len(), want.options.len());
    // (serde_json's reader may be a unit in the last place away.)
    let top = options[0]["certainty_equivalent"].as_f64().unwrap();
    assert!((top - want.options[0].expected_final).abs() < 1e-12);
    let batch = run_with_input(
        table_dir(),
        &["advise", "--rules", "yacht", "--batch"],
        "{\"dice\": [1, 3, 3, 5, 6], \"theta\": 0.1}\n{\"dice\": [1, 3, 3, 5, 6], \"theta\": 0}\n",
    );
    let lines: Vec<serde_json::Value> = stdout(&batch)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["options"], json["options"]);
    let refused = lines[1]["error"].as_str().unwrap();
    assert!(refused.contains("ordinary advice"), "{refused}");

    let stats = run(
        set,
        Order::Any,
        &["stats", "--rules", "yacht", "--theta", "-0.1", "--json"],
    );
    assert!(stats.status.success(), "{}", stderr(&stats));
    let stats: serde_json::Value = serde_json::from_str(&stdout(&stats)).unwrap();
    let (ce, by_pmf) = (
        stats["certainty_equivalent"].as_f64().unwrap(),
        stats["distribution_certainty_equivalent"].as_f64().unwrap(),
    );
    assert!((ce - by_pmf).abs() < 1e-9 && ce < stats["mean"].as_f64().unwrap());

    let games = run(
        set,
        Order::Any,
        &[
            "simulate",
            "--rules",
            "yacht",
            "--policy",
            "theta:-0.1",
            "--games",
            "3000",
            "--json",
        ],
    );
    assert!(games.status.success(), "{}", stderr(&games));
    let games: serde_json::Value = serde_json::from_str(&stdout(&games)).unwrap();
    let (mean, se) = (
        games["mean"].as_f64().unwrap(),
        games["mean_interval"]["standard_error"].as_f64().unwrap(),
    );
    let exact = stats["mean"].as_f64().unwrap();
    assert!((mean - exact).abs() < 4.0 * se, "{mean} ± {se} vs {exact}");

    let frontier = run(
        set,
        Order::Any,
        &[
            "stats",
            "--rules",
            "yacht",
            "--frontier",
            "--thetas=-0.1,0",
            "--json",
        ],
    );
    assert!(frontier.status.success(), "{}", stderr(&frontier));
    let frontier: serde_json::Value = serde_json::from_str(&stdout(&frontier)).unwrap();
    let policies = frontier["policies"].as_array().unwrap();
    assert_eq!(policies[0]["mean"], stats["mean"]);
    let ev = table(set, Order::Any).expected_score();
    assert!((policies[1]["mean"].as_f64().unwrap() - ev).abs() < 1e-9);
    assert_eq!(frontier["best_theta"].as_array().unwrap().len(), 8);
}
