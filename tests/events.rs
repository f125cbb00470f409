//! The exact events and joint figures of `stats --events` (issue 48): from positions of a
//! game with a few boxes open, equal to the brute force's (`brute::Rest`, written again from
//! the definitions, conditional expectations mixed backward); for Yahtzee from a new game,
//! the covariances adding up to the variance of the final score, the events agreeing with a
//! simulation's count within 4 standard errors.

use std::collections::BTreeMap;

use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::ScoreCard;
use yahtzee_core::policy::expected::Position;
use yahtzee_core::policy::player::Player;
use yahtzee_core::stats::distribution::{Summary, THRESHOLDS};
use yahtzee_core::stats::events::JointFigures;
use yahtzee_core::stats::{Start, exact_joint_from};

use crate::brute::{BruteForce, GameEvent, Rest};
use crate::util::{run, stderr, table};

/// Asserts that `figures`, from `card` on, are the brute force's `rest` of the game with
/// the card's points and bonuses as constants: every event, mean and covariance to 1e-9.
fn assert_agree(brute: &BruteForce, figures: &JointFigures, card: &ScoreCard, rest: &Rest) {
    let rules = card.rules();
    let what = format!("{} from {card}", rules.label());
    let events = brute.game_events();
    assert_eq!(figures.events.len(), events.len(), "{what}");
    for ((e, kind), unseen) in figures.events.iter().zip(&events).zip(&rest.unseen) {
        let already = match kind {
            GameEvent::Rolled(_) => false,
            GameEvent::Scored => {
                card.yahtzee_bonuses() > 0
                    || rules
                        .five_of_a_kind_box()
                        .is_some_and(|b| card.points(b) == Some(rules.five_of_a_kind_points()))
            }
            GameEvent::UpperBonus => card.has_upper_bonus(),
        };
        let want = if already { 1.0 } else { 1.0 - unseen };
        assert!(
            (e.probability - want).abs() < 1e-9,
            "{what}: {} {} against the brute force's {want}",
            e.name,
            e.probability
        );
    }
    let c = &figures.covariance;
    let n = rest.mean.len();
    assert_eq!(c.rows.len(), n, "{what}");
    for a in 0..n {
        let constant = if a < rules.box_count() {
            f64::from(card.points(a).unwrap_or(0))
        } else if c.rows[a] == "upper-bonus" {
            f64::from(u32::from(card.has_upper_bonus()) * rules.upper_bonus_points())
        } else {
            f64::from(card.yahtzee_bonuses() * rules.yahtzee_bonus_points())
        };
        assert!(
            (c.means[a] - constant - rest.mean[a]).abs() < 1e-9,
            "{what}: mean of {} {} against {}",
            c.rows[a],
            c.means[a],
            constant + rest.mean[a]
        );
        for b in 0..n {
            let want = rest.cross[a][b] - rest.mean[a] * rest.mean[b];
            assert!(
                (c.matrix[a][b] - want).abs() < 1e-9,
                "{what}: cov({}, {}) {} against {want}",
                c.rows[a],
                c.rows[b],
                c.matrix[a][b]
            );
        }
    }
}

/// Acceptance (issue 48): from cards and positions with two or three boxes open (Yahtzee with
/// the upper bonus at stake, with 50 in the Yahtzee box and its bonuses and Jokers, and
/// Yatzy), the events and covariances of the library equal the brute force's; the command
/// line's `stats --events --json` reports the library's figures.
#[test]
fn events_and_covariances_from_positions_equal_a_brute_force() {
    let cases: [(&'static RuleSet, &str, u32); 3] = [
        (
            RuleSet::YAHTZEE,
            "ones=3,twos=6,threes=9,fives=15,sixes=18,three-of-a-kind=20,four-of-a-kind=0,full-house=25,large-straight=40,chance=22",
            0,
        ),
        (
            RuleSet::YAHTZEE,
            "ones=2,threes=9,fours=16,fives=20,sixes=24,three-of-a-kind=25,four-of-a-kind=26,small-straight=30,large-straight=40,yahtzee=50",
            1,
        ),
        (
            RuleSet::YATZY,
            "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,one-pair=12,two-pairs=14,three-of-a-kind=15,four-of-a-kind=16,full-house=18,chance=20,yatzy=0",
            0,
        ),
    ];
    for (set, text, bonuses) in cases {
        let ev = table(set, Order::Any);
        let rules = *ev.rules();
        let card = ScoreCard::parse(rules, text, bonuses).unwrap();
        let mut brute = BruteForce::new(rules);
        let state = card.state();
        let rest = brute.policy_rest(state);
        let start = Start::Card(card.clone());
        let (_, figures) = exact_joint_from(ev, Some(&start), &|_, _| {}).unwrap();
        assert_agree(&brute, &figures, &card, &rest);
        let layers = brute.policy_rest_layers(state);
        for (dice, rolls_left) in [("3,4,4,5,6", 2), ("6,6,6,6,2", 1), ("1,2,3,4,5", 0)] {
            let dice = rules.dice().parse(dice).unwrap();
            let position = Start::Position(Position {
                card: card.clone(),
                dice,
                rolls_left,
            });
            let (_, figures) = exact_joint_from(ev, Some(&position), &|_, _| {}).unwrap();
            let hand = brute.hand(&dice.faces());
            assert_agree(
                &brute,
                &figures,
                &card,
                &layers[usize::from(rolls_left)][hand],
            );
        }
    }
    // The command line reports the same figures.
    let (text, dice) = (cases[1].1, "6,6,6,6,2");
    let o = run(
        RuleSet::YAHTZEE,
        Order::Any,
        &[
            "stats",
            "--events",
            "--json",
            "--card",
            text,
            "--yahtzee-bonus",
            "1",
            "--dice",
            dice,
            "--rolls-left",
            "1",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rules = Rules::new(RuleSet::YAHTZEE);
    let position = Start::Position(Position {
        card: ScoreCard::parse(rules, text, 1).unwrap(),
        dice: rules.dice().parse(dice).unwrap(),
        rolls_left: 1,
    });
    let ev = table(RuleSet::YAHTZEE, Order::Any);
    let (_, figures) = exact_joint_from(ev, Some(&position), &|_, _| {}).unwrap();
    // JSON numbers read back to within a unit of the last place (serde_json's parser).
    let close = |a: &serde_json::Value, b: f64| (a.as_f64().unwrap() - b).abs() < 1e-12;
    for (j, e) in json["events"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&figures.events)
    {
        assert_eq!(j["name"], e.name.as_str());
        assert!(close(&j["probability"], e.probability), "{j} against {e:?}");
    }
    let c = &figures.covariance;
    assert_eq!(json["covariance"]["rows"], serde_json::json!(c.rows));
    for (a, row) in c.matrix.iter().enumerate() {
        for (b, &x) in row.iter().enumerate() {
            assert!(close(&json["covariance"]["matrix"][a][b], x), "{a} {b}");
        }
    }
    assert!(json["bonus_by_five_of_a_kind"]["both"].is_number());
}

/// Acceptance (issue 48): Yahtzee from a new game: the covariances of the 13 boxes and the two
/// bonuses add up to the variance of the final score and the means to its mean (1e-9); the
/// events scored are the distribution's own figures; the joint table is its split; and the
/// chance of rolling each pattern agrees with the share of 20,000 simulated games within 4
/// standard errors (the million-game check: results/stats-events-2026-12-06.md).
#[test]
fn yahtzee_events_agree_with_a_simulation_and_covariances_with_the_variance() {
    let f = crate::stats::forward(RuleSet::YAHTZEE);
    let ev = table(RuleSet::YAHTZEE, Order::Any);
    let rules = *ev.rules();
    let figures = f.joint.as_ref().expect("the joint sums").figures(&f.tally);
    let summary = Summary::of(&rules, &f.tally, &THRESHOLDS);
    let c = &figures.covariance;
    assert_eq!(c.rows.len(), 15);
    let total: f64 = c.matrix.iter().flatten().sum();
    let variance = summary.std_dev * summary.std_dev;
    assert!(
        (total - variance).abs() < 1e-9,
        "{total} against {variance}"
    );
    let mean: f64 = c.means.iter().sum();
    assert!((mean - summary.mean).abs() < 1e-9, "{mean}");
    let event = |name: &str| figures.event(name).expect(name);
    let bonus = summary.upper_bonus.as_ref().unwrap().probability;
    assert!((event("upper-bonus") - bonus).abs() < 1e-12);
    assert!((event("yahtzee-scored") - summary.fifty_probability).abs() < 1e-12);
    let joint = figures.bonus_by_five_of_a_kind.as_ref().unwrap();
    let split = &summary.split.as_ref().unwrap().joint;
    for (got, part) in [
        joint.both,
        joint.bonus_only,
        joint.five_of_a_kind_only,
        joint.neither,
    ]
    .iter()
    .zip(split)
    {
        assert!((got - part.probability).abs() < 1e-12);
    }
    let games = 20_000.0;
    let tally = yahtzee_core::stats::simulate::simulate(
        &rules,
        &Player::Optimal(ev),
        games as u64,
        48,
        &|_| {},
    );
    let names = [
        "small-straight-rolled",
        "large-straight-rolled",
        "yahtzee-rolled",
    ];
    for (e, name) in names.iter().enumerate() {
        let p = event(name);
        let share = tally.rolled[e] / games;
        let error = (p * (1.0 - p) / games).sqrt();
        assert!(
            (share - p).abs() < 4.0 * error,
            "{name}: exact {p}, simulated {share} (standard error {error})"
        );
    }
    // Five of a kind rolled is more likely than scored, less than a large straight rolled.
    assert!(event("yahtzee-rolled") > event("yahtzee-scored"));
    assert!(event("yahtzee-rolled") < event("large-straight-rolled"));
}

/// `simulate --per-box`: each game's boxes, bonuses and total, the same file at any thread
/// count; its totals are the report's games (their mean), its boxes the report's per-box means.
#[test]
fn simulate_per_box_writes_each_games_boxes_the_same_at_any_thread_count() {
    let dir = crate::util::temp_dir();
    let file = |threads: &str| {
        let path = dir.path().join(format!("games-{threads}.csv"));
        let o = run(
            RuleSet::YAHTZEE,
            Order::Any,
            &[
                "simulate",
                "--games",
                "3000",
                "--seed",
                "7",
                "--threads",
                threads,
                "--json",
                "--per-box",
                path.to_str().unwrap(),
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        (std::fs::read_to_string(&path).unwrap(), json)
    };
    let (one, json) = file("1");
    let (two, _) = file("2");
    assert_eq!(one, two);
    let mut lines = one.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(head.len(), 1 + 13 + 3);
    assert_eq!(head[17 - 1], "total");
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 3000);
    for (g, row) in rows.iter().enumerate() {
        assert_eq!(row[0], g as f64);
        assert_eq!(row[1..16].iter().sum::<f64>(), row[16], "game {g}");
    }
    let mean = |c: usize| rows.iter().map(|r| r[c]).sum::<f64>() / 3000.0;
    assert!((mean(16) - json["mean"].as_f64().unwrap()).abs() < 1e-9);
    for b in 0..13 {
        let want = json["boxes"][b]["mean"].as_f64().unwrap();
        assert!((mean(1 + b) - want).abs() < 1e-9, "{}", head[1 + b]);
    }
    // Refused with several policies, in one line.
    let o = run(
        RuleSet::YAHTZEE,
        Order::Any,
        &[
            "simulate",
            "--games",
            "10",
            "--policy",
            "optimal,greedy",
            "--per-box",
            dir.path().join("x.csv").to_str().unwrap(),
        ],
    );
    crate::util::assert_bad_input(&o, "--per-box");
}

/// The brute force's [`crate::brute::Joint`] of `boxes` from `card`, as the final points of
/// each box (the card's own, or those the rest adds) and the final score: the chance of each
/// (first box, second box) and of each (box, final score).
type Tables = (BTreeMap<(u32, u32), f64>, [BTreeMap<(u32, u32), f64>; 2]);

fn brute_tables(card: &ScoreCard, boxes: [usize; 2], joint: &crate::brute::Joint) -> Tables {
    let mut pair = BTreeMap::new();
    let mut scores: [BTreeMap<(u32, u32), f64>; 2] = Default::default();
    for (&(x, y, z), &p) in joint {
        let a = card.points(boxes[0]).unwrap_or(0) + x;
        let b = card.points(boxes[1]).unwrap_or(0) + y;
        let total = card.banked() + z;
        *pair.entry((a, b)).or_default() += p;
        *scores[0].entry((a, total)).or_default() += p;
        *scores[1].entry((b, total)).or_default() += p;
    }
    (pair, scores)
}

/// Asserts that the library's table `got` (`[x, y, probability]`, each of nonzero chance)
/// is the brute force's `want` to 1e-12, entry by entry.
fn assert_table(what: &str, got: &[(u32, u32, f64)], want: &BTreeMap<(u32, u32), f64>) {
    let got: BTreeMap<(u32, u32), f64> = got.iter().map(|&(x, y, p)| ((x, y), p)).collect();
    for key in got.keys().chain(want.keys()) {
        let (g, w) = (
            got.get(key).copied().unwrap_or(0.0),
            want.get(key).copied().unwrap_or(0.0),
        );
        assert!(
            (g - w).abs() < 1e-12,
            "{what} at {key:?}: {g} against the brute force's {w}"
        );
    }
    let sum: f64 = got.values().sum();
    assert!(
        (sum - 1.0).abs() < 1e-12,
        "{what}: the chances add up to {sum}"
    );
}

/// Acceptance (issue 48, `stats --joint`): the joint distribution of two boxes and of each
/// with the final score, from cards and positions of Yahtzee with three boxes open (the
/// upper bonus at stake; 50 in the Yahtzee box with its bonus and Jokers), equal a brute force
/// that carries the triple (first box, second box, points) backward under the same policy:
/// both boxes open, one or both filled on the card, from a position mid-turn. The command
/// line's `--json` and `--joint-csv` report the library's tables; bad boxes are refused.
#[test]
fn joint_distributions_of_boxes_equal_a_brute_force() {
    use yahtzee_core::stats::joint;
    let rules = Rules::new(RuleSet::YAHTZEE);
    let ev = table(RuleSet::YAHTZEE, Order::Any);
    let mut brute = BruteForce::new(rules);
    let cards = [
        (
            "ones=3,twos=6,threes=9,fives=15,sixes=18,three-of-a-kind=20,four-of-a-kind=0,full-house=25,large-straight=40,chance=22",
            0,
        ),
        (
            "ones=2,threes=9,fours=16,fives=20,sixes=24,three-of-a-kind=25,four-of-a-kind=26,small-straight=30,large-straight=40,yahtzee=50",
            1,
        ),
    ];
    let index = |name: &str| rules.box_by_name(name).unwrap();
    // (card, boxes, position: dice and rolls left)
    type Case<'a> = (usize, [&'a str; 2], Option<(&'a str, u8)>);
    let cases: [Case<'_>; 5] = [
        (0, ["yahtzee", "small-straight"], None),
        (0, ["fours", "yahtzee"], Some(("6,6,6,6,2", 1))),
        (1, ["chance", "twos"], None),
        (1, ["full-house", "yahtzee"], Some(("5,5,5,5,5", 2))),
        (1, ["ones", "yahtzee"], None),
    ];
    for (c, names, position) in cases {
        let card = ScoreCard::parse(rules, cards[c].0, cards[c].1).unwrap();
        let boxes = [index(names[0]), index(names[1])];
        let (start, want) = match position {
            None => (
                Start::Card(card.clone()),
                brute.policy_joint(card.state(), boxes),
            ),
            Some((dice, rolls_left)) => {
                let dice = rules.dice().parse(dice).unwrap();
                let layers = brute.policy_joint_layers(card.state(), boxes);
                let hand = brute.hand(&dice.faces());
                let start = Start::Position(Position {
                    card: card.clone(),
                    dice,
                    rolls_left,
                });
                (start, layers[usize::from(rolls_left)][hand].clone())
            }
        };
        let got = joint::boxes_joint(ev, Some(&start), &boxes, &|_, _| {}).unwrap();
        let report = joint::report(&got);
        let (pair, scores) = brute_tables(&card, boxes, &want);
        let what = format!("{names:?} from {card} ({position:?})");
        assert_table(&what, &report.pair.as_ref().unwrap().table, &pair);
        for (b, want) in report.boxes.iter().zip(&scores) {
            assert_table(&what, &b.score_table, want);
        }
    }
    // The command line reports the library's tables, the CSV too; bad boxes are refused.
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("joint.csv");
    let (text, bonuses) = cards[1];
    let o = run(
        RuleSet::YAHTZEE,
        Order::Any,
        &[
            "stats",
            "--json",
            "--card",
            text,
            "--yahtzee-bonus",
            &bonuses.to_string(),
            "--joint",
            "chance,twos",
            "--joint-csv",
            csv.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let card = ScoreCard::parse(rules, text, bonuses).unwrap();
    let got = joint::boxes_joint(
        ev,
        Some(&Start::Card(card)),
        &[index("chance"), index("twos")],
        &|_, _| {},
    )
    .unwrap();
    let report = joint::report(&got);
    assert_eq!(json["joint"]["boxes"][0]["box"], "chance");
    let table = json["joint"]["pair"]["table"].as_array().unwrap();
    let pair = &report.pair.as_ref().unwrap().table;
    assert_eq!(table.len(), pair.len());
    for (j, &(x, y, p)) in table.iter().zip(pair) {
        assert_eq!(
            (j[0].as_u64(), j[1].as_u64()),
            (Some(x.into()), Some(y.into()))
        );
        assert!((j[2].as_f64().unwrap() - p).abs() < 1e-15);
    }
    let rows = std::fs::read_to_string(&csv).unwrap();
    let mut lines = rows.lines();
    assert_eq!(
        lines.next(),
        Some("first,first_points,second,second_points,probability")
    );
    let pair_rows: Vec<(u32, u32, f64)> = lines
        .filter(|l| l.starts_with("chance,") && l.contains(",twos,"))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[1].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        &pair_rows, pair,
        "the CSV's probabilities read back bit for bit"
    );
    for (bad, says) in [
        ("sevens", "unknown box"),
        ("chance,chance", "twice"),
        ("ones,twos,threes", "one box or two"),
    ] {
        let o = run(RuleSet::YAHTZEE, Order::Any, &["stats", "--joint", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains(says), "{bad}: {}", stderr(&o));
    }
}
