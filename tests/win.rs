//! The win objective: the best chance of beating opponents whose final scores have given
//! distributions. Checked against the brute-force solver on reduced games (in `f64`, to
//! 1e-9), against the target table for a finished opponent, and at the extremes.

use yahtzee_core::game::dice::Dice;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::{ScoreCard, State};
use yahtzee_core::policy::expected::Position;
use yahtzee_core::policy::win::{FinalScores, Opponent, advise_win, utility};
use yahtzee_core::solve::simd::Simd;
use yahtzee_core::solve::vector::{VectorObjective, max_banked, solve_reduced};
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::vector::VectorTable;

use crate::brute::BruteForce;
use crate::solver::sampled_states;
use crate::util::{distribution_table, table, target_table};

/// `u` of [`utility`] as a function, 0 below its values and 1 above.
pub fn utility_fn(opponents: &[FinalScores]) -> impl Fn(i64) -> f64 + use<> {
    let (lo, values) = utility(opponents);
    move |x| {
        let i = x - i64::from(lo);
        if i < 0 {
            0.0
        } else {
            values.get(i as usize).copied().unwrap_or(1.0)
        }
    }
}

#[test]
fn utility_shares_ties_and_is_a_chance() {
    // Two opponents: one on 10 or 12, one on 12 for sure.
    let a = FinalScores {
        lo: 10,
        pmf: vec![0.5, 0.0, 0.5],
    };
    let b = FinalScores::point(12);
    let u = utility_fn(&[a, b]);
    assert_eq!(u(9), 0.0);
    assert_eq!(u(11), 0.0, "b beats 11");
    // 12: b ties; a ties with chance 1/2 (three-way, 1/3) or is below (two-way, 1/2).
    assert!((u(12) - (0.5 / 3.0 + 0.5 / 2.0)).abs() < 1e-15, "{}", u(12));
    assert_eq!(u(13), 1.0);
}

/// Two opponents of the brute-force checks: one spread over a few scores, one on either of
/// two.
pub fn two_opponents() -> [FinalScores; 2] {
    [
        FinalScores {
            lo: 20,
            pmf: vec![0.2, 0.1, 0.0, 0.3, 0.25, 0.15],
        },
        FinalScores {
            lo: 23,
            pmf: vec![0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5],
        },
    ]
}

#[test]
fn win_agrees_with_brute_force_on_reduced_games() {
    let opponents = two_opponents();
    check_win_against_brute_force(&opponents, |most| {
        vec![0, 3, 10, 17, 22, 25, 30, most - 1, most]
    });
}

/// The win table is solved only where a card can have banked its points (`max_banked`).
/// A vector serves every upper total that shares it (once the upper section is full), and
/// the bound must be the largest of theirs: with the representative's, the points banked
/// with the upper bonus were cut off and read as a sure win (Yatzy's advice said 0.675
/// where 0.498 is right). Opponents who score about what the cards can have banked make
/// those coordinates count.
#[test]
fn win_is_exact_up_to_the_most_points_a_shared_vector_can_have_banked() {
    let opponents = [FinalScores {
        lo: 150,
        pmf: vec![1.0 / 251.0; 251],
    }];
    check_win_against_brute_force(&opponents, |most| {
        (0..=most).rev().step_by(9).take(20).collect()
    });
}

/// Checks the win table against `opponents` on reduced games of several rules against the
/// brute-force solver, at the points banked that `banked(max_banked)` lists (those outside
/// `0..=max_banked` are skipped: no card has banked them).
fn check_win_against_brute_force(opponents: &[FinalScores], banked: impl Fn(i64) -> Vec<i64>) {
    let cases = [
        (RuleSet::YAHTZEE, Order::Any, 2, 37),
        (RuleSet::YAHTZEE_FREE_JOKER, Order::Any, 2, 41),
        (RuleSet::YACHT, Order::Any, 2, 7),
        (RuleSet::YATZY, Order::UpperFirst, 2, 13),
        (RuleSet::YATZY, Order::Any, 2, 29),
    ];
    let cases = cases.map(|(set, order, open, step)| (Rules::with_order(set, order), open, step));
    check_win_of(&cases, opponents, banked);
}

/// [`check_win_against_brute_force`] on the reduced games `cases`: (rules, the most boxes
/// open, the step between the states checked).
pub fn check_win_of(
    cases: &[(Rules, u32, usize)],
    opponents: &[FinalScores],
    banked: impl Fn(i64) -> Vec<i64>,
) {
    let u = utility_fn(opponents);
    for &(rules, open, step) in cases {
        let mut objective = VectorObjective::<f64>::win(rules, opponents);
        objective.tail = 0.0;
        let table = solve_reduced(&objective, open as usize, Simd::detect(), &|_, _| {});
        let mut brute = BruteForce::new(rules);
        let mut memo = std::collections::HashMap::new();
        let states = sampled_states(&rules, open, step, 5);
        let mut checked = 0;
        for s in states {
            // The points a reachable card can have banked: the table solves only those.
            let most = i64::from(max_banked(&rules, &s));
            for b in banked(most) {
                if !(0..=most).contains(&b) {
                    continue;
                }
                let expected = brute.win(&mut memo, s, b, &u);
                let got = table.value(&s, b).expect("a state of the reduced game");
                assert!(
                    (got - expected).abs() < 1e-9,
                    "{} {s:?} banked {b}: vector {got}, brute force {expected}",
                    rules.label()
                );
                checked += 1;
            }
        }
        println!("{}: {checked} (state, banked) pairs checked", rules.label());
    }
}

/// The expected-score, distribution and target tables of Yacht, shared by the tests.
fn yacht_tables() -> (
    &'static StrategyTable,
    &'static VectorTable<f32>,
    &'static VectorTable<f32>,
) {
    (
        table(RuleSet::YACHT, Order::Any),
        distribution_table(RuleSet::YACHT, Order::Any),
        target_table(RuleSet::YACHT, Order::Any),
    )
}

/// Against one finished opponent with `y` points, the best chance of winning lies between
/// the best chance of reaching `y + 1` and that of reaching `y`; far below the player's
/// reach it is 1, far above it 0.
#[test]
fn win_against_a_finished_opponent_lies_between_target_chances() {
    let (ev, dist, target) = yacht_tables();
    let rules = Rules::new(RuleSet::YACHT);
    for (card, dice, rolls_left) in [
        ("", "11256", 2),
        ("ones=3,twos=6,yacht=50", "33345", 1),
        (
            "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,choice=22,yacht=0",
            "23456",
            0,
        ),
    ] {
        let card = ScoreCard::parse(rules, card, 0).unwrap();
        let position = Position {
            card: card.clone(),
            dice: dice.parse::<Dice>().unwrap(),
            rolls_left,
        };
        let banked = i64::from(card.banked());
        // The advice against one opponent who finished with `y`.
        let against = |y: u32| {
            advise_win(
                ev,
                Some(dist),
                &position,
                &[Opponent::Finished(y)],
                &|_, _| {},
            )
            .unwrap()
        };
        for y in [100u32, 150, 180, 200, 250] {
            let a = against(y);
            let reach = |t: u32| {
                yahtzee_core::policy::target::advise_target(ev, target, &position, t)
                    .unwrap()
                    .p_reach
            };
            let (low, high) = (reach(y + 1), reach(y));
            assert!(
                a.p_win >= low - 2e-6 && a.p_win <= high + 2e-6,
                "{card} {dice} vs {y}: win {} outside [{low}, {high}]",
                a.p_win
            );
            assert_eq!(a.options[0].loss, 0.0);
            assert!(
                a.options
                    .windows(2)
                    .all(|w| w[0].p_win >= w[1].p_win - 1e-9)
            );
            let _ = banked;
        }
        let sure = against(0);
        assert!(
            (sure.p_win - 1.0).abs() < 1e-6 || card.banked() == 0,
            "{}",
            sure.p_win
        );
        let lost = against(10_000);
        assert_eq!(lost.p_win, 0.0);
        let far_below = against(card.banked().saturating_sub(1));
        if card.banked() > 0 {
            assert!((far_below.p_win - 1.0).abs() < 1e-6, "{}", far_below.p_win);
        }
    }
}

/// The distribution of an opponent's final score read from the distribution table sums to
/// 1 and has the expected-score table's mean.
#[test]
fn an_opponents_final_score_distribution_has_the_expected_score_mean() {
    let (ev, dist, _) = yacht_tables();
    let rules = Rules::new(RuleSet::YACHT);
    for card in [
        "",
        "ones=2,fours=12,yacht=0",
        "sixes=24,choice=25,big-straight=30",
    ] {
        let card = ScoreCard::parse(rules, card, 0).unwrap();
        let scores = FinalScores::of_card(dist, &card).unwrap();
        let total: f64 = scores.pmf.iter().sum();
        assert!((total - 1.0).abs() < 1e-6, "{card}: {total}");
        let mean = f64::from(card.banked()) + ev.value(&card.state());
        assert!(
            (scores.mean() - mean).abs() < 1e-3,
            "{card}: {} vs {mean}",
            scores.mean()
        );
        assert!(scores.lo >= card.banked());
    }
    let _ = State::START;
}

/// `advise --opponent ... --json` and a batch query with the same opponents give the same
/// answer; the human output names the model.
#[test]
fn advise_against_opponents_json_equals_batch() {
    use crate::util::{run, run_with_input, stdout, table_dir};
    let card = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,choice=22";
    let opponent = "ones=2,twos=8,threes=9,fours=12,fives=20,sixes=18,choice=25,yacht=50";
    let args = [
        "advise",
        "--rules",
        "yacht",
        "--card",
        card,
        "--dice",
        "33345",
        "--rolls-left",
        "1",
        "--opponent",
        opponent,
        "--opponent-final",
        "150",
    ];
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[&args[..], &["--json"]].concat(),
    );
    assert!(o.status.success(), "{}", crate::util::stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let query = r#"{"card": {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18, "choice": 22}, "dice": [3,3,3,4,5], "rolls_left": 1, "opponents": [{"card": {"ones": 2, "twos": 8, "threes": 9, "fours": 12, "fives": 20, "sixes": 18, "choice": 25, "yacht": 50}}, {"final": 150}]}"#;
    let b = run_with_input(
        table_dir(),
        &["advise", "--rules", "yacht", "--batch"],
        &format!("{query}\n"),
    );
    assert!(b.status.success(), "{}", crate::util::stderr(&b));
    let line: serde_json::Value = serde_json::from_str(stdout(&b).trim()).unwrap();
    assert_eq!(json, line);
    assert_eq!(json["opponents"][1]["finished"], 150);
    let p = json["p_win"].as_f64().unwrap();
    assert!(p > 0.0 && p < 1.0, "{p}");
    assert_eq!(json["options"][0]["p_win"].as_f64().unwrap(), p);
    let human = run(RuleSet::YACHT, Order::Any, &args);
    let text = stdout(&human);
    assert!(text.contains("best chance of winning"), "{text}");
    assert!(
        text.contains("model: each opponent plays for the highest average"),
        "{text}"
    );
}

#[test]
fn bad_opponents_are_refused_in_one_line() {
    use crate::util::{assert_bad_input, run_advise, run_with_input, stdout, table_dir};
    let o = run_advise(RuleSet::YACHT, &["--dice", "11111", "--opponent", "ones=7"]);
    assert_bad_input(&o, "--opponent 1: `ones` cannot hold 7");
    let o = run_advise(
        RuleSet::YACHT,
        &["--dice", "11111", "--opponent", "yahtzee-bonus=x"],
    );
    assert_bad_input(&o, "not a count of Yahtzee bonuses");
    let o = run_advise(
        RuleSet::YACHT,
        &[
            "--dice",
            "11111",
            "--opponent-final",
            "9",
            "--target",
            "200",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    for (query, needle) in [
        (
            r#"{"dice": [1,1,1,1,1], "opponents": []}"#,
            "opponents must be an array of opponents",
        ),
        (
            r#"{"dice": [1,1,1,1,1], "opponents": [{"final": -1}]}"#,
            "opponents[0].final must be",
        ),
        (
            r#"{"dice": [1,1,1,1,1], "opponents": [{"final": 3, "card": {}}]}"#,
            "opponents[0] must be an object",
        ),
        (
            // batch_opponent_card_error_did_not_say_whose_card: the opponent's, by index.
            r#"{"dice": [1,1,1,1,1], "opponents": [{"final": 100}, {"card": {"ones": 9}}]}"#,
            "opponents[1].card: `ones` cannot hold 9",
        ),
        (
            r#"{"dice": [1,1,1,1,1], "opponents": [{"final": 3}], "target": 100}"#,
            "give `target` or `opponents`, not both",
        ),
    ] {
        let b = run_with_input(
            table_dir(),
            &["advise", "--rules", "yacht", "--batch"],
            &format!("{query}\n"),
        );
        assert!(b.status.success());
        let line: serde_json::Value = serde_json::from_str(stdout(&b).trim()).unwrap();
        let error = line["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{query}: {line}"));
        assert!(error.contains(needle), "{query}: {error}");
    }
}

/// The distribution of the final score from a position under expected-score play: its mean
/// is the best expected final score of the advice, and averaged over the opening rolls it
/// is the distribution of the card.
#[test]
fn final_score_distribution_from_a_position_is_the_cards_over_its_rolls() {
    use yahtzee_core::game::dice::Lattice;
    let (ev, dist, _) = yacht_tables();
    let rules = Rules::new(RuleSet::YACHT);
    let card = ScoreCard::parse(rules, "ones=2,fours=12,sixes=24,choice=20,yacht=0", 0).unwrap();
    let whole = FinalScores::of_card(dist, &card).unwrap();
    // The distribution of `position`, whose mean is its advice's best expected final score.
    let of_position = |position: &Position| {
        let f = FinalScores::of_position(ev, dist, position).unwrap();
        let best = yahtzee_core::policy::expected::advise(ev, position)
            .unwrap()
            .options[0]
            .expected_final();
        let (dice, rolls_left) = (position.dice, position.rolls_left);
        assert!(
            (f.mean() - best).abs() < 1e-3,
            "{dice:?}, {rolls_left} rolls left: {} vs {best}",
            f.mean()
        );
        f
    };
    let mut mixed = vec![0.0; whole.pmf.len() + 40];
    for (r, dice) in Dice::all().enumerate() {
        let position = Position {
            card: card.clone(),
            dice,
            rolls_left: 2,
        };
        let f = of_position(&position);
        for (i, p) in f.pmf.iter().enumerate() {
            mixed[(f.lo - whole.lo) as usize + i] += Lattice::get().roll_probability[r] * p;
        }
    }
    for (i, p) in whole.pmf.iter().enumerate() {
        assert!(
            (mixed[i] - p).abs() < 1e-6,
            "score {}: {} vs {p}",
            whole.lo as usize + i,
            mixed[i]
        );
    }
    for rolls_left in [0, 1] {
        let position = Position {
            card: card.clone(),
            dice: "23556".parse().unwrap(),
            rolls_left,
        };
        let f = of_position(&position);
        let total: f64 = f.pmf.iter().sum();
        assert!((total - 1.0).abs() < 1e-6);
    }
}
