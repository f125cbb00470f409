//! The solver: golden values from the literature, bit-identical results at any thread count
//! and instruction set, and agreement with an independent brute-force solver on reduced games.

use yahtzee_core::game::dice::Dice;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::{ScoreCard, State, is_reachable};
use yahtzee_core::policy::expected::{Position, advise, box_choices};
use yahtzee_core::solve::expected::{SolveOptions, solve};
use yahtzee_core::solve::simd::Simd;

use crate::brute::BruteForce;
use crate::util::table;

fn assert_close(got: f64, expected: f64, what: &str) {
    assert!(
        (got - expected).abs() < 1e-9,
        "{what}: got {got:.12}, expected {expected:.12}"
    );
}

#[test]
fn golden_yahtzee() {
    assert_close(
        table(RuleSet::YAHTZEE, Order::Any).expected_score(),
        254.5877287345,
        "yahtzee",
    );
}

#[test]
fn golden_yahtzee_free_joker() {
    assert_close(
        table(RuleSet::YAHTZEE_FREE_JOKER, Order::Any).expected_score(),
        254.5896094820,
        "yahtzee-free-joker",
    );
}

#[test]
fn golden_yahtzee_plain() {
    assert_close(
        table(RuleSet::YAHTZEE_PLAIN, Order::Any).expected_score(),
        245.8707745141,
        "yahtzee-plain",
    );
}

/// Scandinavian Yatzy: 248.4399894, published by two independent solvers (to 1e-7, the
/// precision they publish).
#[test]
fn golden_yatzy() {
    let got = table(RuleSet::YATZY, Order::Any).expected_score();
    assert!(
        (got - 248.4399894).abs() < 1e-7,
        "yatzy: got {got:.10}, expected 248.4399894"
    );
}

/// The values this project computed and publishes in the README (no published reference);
/// checked against the brute-force solver below on reduced games. Pinned so that a change to
/// the solver that moves them is seen.
#[test]
fn published_values_of_yacht_and_upper_first() {
    let cases = [
        (RuleSet::YACHT, Order::Any, 169.7738890526),
        (RuleSet::YAHTZEE, Order::UpperFirst, 213.6881086786),
        (
            RuleSet::YAHTZEE_FREE_JOKER,
            Order::UpperFirst,
            213.6881086786,
        ),
        (RuleSet::YAHTZEE_PLAIN, Order::UpperFirst, 211.9228221761),
        (RuleSet::YACHT, Order::UpperFirst, 137.7122414788),
        (RuleSet::YATZY, Order::Any, 248.4399893779),
        (RuleSet::YATZY, Order::UpperFirst, 204.8723428219),
    ];
    for (set, order, value) in cases {
        let t = table(set, order);
        assert_close(t.expected_score(), value, &t.rules().label());
    }
}

fn solve_on_threads(rules: &Rules, threads: usize, simd: Simd) -> Vec<f64> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| solve(rules, SolveOptions { simd }, &|_, _| {}).values)
}

fn assert_same_bits(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len());
    let differing = a
        .iter()
        .zip(b)
        .filter(|(x, y)| x.to_bits() != y.to_bits())
        .count();
    assert_eq!(differing, 0, "{what}: {differing} values differ");
}

#[test]
fn parallel_equals_serial_bit_for_bit() {
    for set in [RuleSet::YACHT, RuleSet::YAHTZEE] {
        let rules = Rules::new(set);
        let simd = Simd::detect();
        let one = solve_on_threads(&rules, 1, simd);
        let three = solve_on_threads(&rules, 3, simd);
        assert_same_bits(&one, &three, set.name());
        assert!(one.iter().any(|&v| v > 0.0));
    }
}

#[test]
fn every_instruction_set_gives_the_same_bits() {
    for set in [RuleSet::YAHTZEE, RuleSet::YATZY] {
        let rules = Rules::new(set);
        let baseline = solve_on_threads(&rules, 2, Simd::BASELINE);
        for simd in Simd::available() {
            let other = solve_on_threads(&rules, 2, simd);
            assert_same_bits(&other, &baseline, &format!("{} {simd:?}", set.name()));
        }
    }
}

/// Cards with at most `open` boxes open, with sampled upper totals and both flags.
pub fn reduced_states(rules: &Rules, open: u32, step: usize) -> Vec<State> {
    let mut out = Vec::new();
    let mut n = 0usize;
    for filled in 0..=rules.full_mask() {
        let open_count = rules.box_count() as u32 - filled.count_ones();
        if open_count == 0 || open_count > open {
            continue;
        }
        for upper in [0u8, 6, 24, 40, 55, 62, 63] {
            for yahtzee_50 in [false, true] {
                let s = State {
                    filled,
                    upper: if rules.has_upper_bonus() { upper } else { 0 },
                    yahtzee_50,
                };
                if is_reachable(rules, &s) {
                    n += 1;
                    if n.is_multiple_of(step) {
                        out.push(s);
                    }
                }
            }
        }
    }
    out.sort_by_key(|s| (s.filled, s.upper, s.yahtzee_50));
    out.dedup();
    out
}

/// [`reduced_states`], checked to be at least `least` states (a sample that tests something).
pub fn sampled_states(rules: &Rules, open: u32, step: usize, least: usize) -> Vec<State> {
    let states = reduced_states(rules, open, step);
    assert!(
        states.len() >= least,
        "{}: only {} states",
        rules.label(),
        states.len()
    );
    states
}

#[test]
fn agrees_with_brute_force_on_reduced_games() {
    let cases = [
        (RuleSet::YAHTZEE, Order::Any, 2, 7),
        (RuleSet::YAHTZEE_FREE_JOKER, Order::Any, 2, 11),
        (RuleSet::YAHTZEE_PLAIN, Order::Any, 2, 13),
        (RuleSet::YACHT, Order::Any, 3, 9),
        (RuleSet::YAHTZEE, Order::UpperFirst, 3, 5),
        (RuleSet::YACHT, Order::UpperFirst, 3, 1),
        (RuleSet::YATZY, Order::Any, 2, 17),
        (RuleSet::YATZY, Order::UpperFirst, 3, 5),
    ];
    for (set, order, open, step) in cases {
        let rules = Rules::with_order(set, order);
        let t = table(set, order);
        let mut brute = BruteForce::new(rules);
        let states = sampled_states(&rules, open, step, 10);
        println!("{}: {} sampled states checked", rules.label(), states.len());
        for s in states {
            let expected = brute.value(s);
            let got = t.value(&s);
            assert!(
                (got - expected).abs() < 1e-9,
                "{} {s:?}: solver {got}, brute force {expected}",
                rules.label()
            );
        }
    }
}

/// The opening-roll options of `advise`, averaged over the 252 rolls, give back the table's
/// value of the state: the advice and the table are the same solution.
#[test]
fn advice_averaged_over_rolls_equals_the_state_value() {
    for (set, card) in [
        (RuleSet::YAHTZEE, ""),
        (RuleSet::YAHTZEE, "yahtzee=50,sixes=24,chance=22"),
        (RuleSet::YAHTZEE_FREE_JOKER, "yahtzee=0,fours=16"),
        (RuleSet::YACHT, "yacht=50,ones=3"),
        (RuleSet::YATZY, "one-pair=12,fives=20"),
    ] {
        let t = table(set, Order::Any);
        let rules = *t.rules();
        let card = ScoreCard::parse(rules, card, 0).unwrap();
        let lattice = yahtzee_core::game::dice::Lattice::get();
        let mut mean = 0.0;
        for (r, dice) in Dice::all().enumerate() {
            let a = advise(
                t,
                &Position {
                    card: card.clone(),
                    dice,
                    rolls_left: 2,
                },
            )
            .unwrap();
            mean += lattice.roll_probability[r] * a.options[0].expected_final();
        }
        let expected = f64::from(card.banked()) + t.value(&card.state());
        assert!(
            (mean - expected).abs() < 1e-9,
            "{}: {mean} vs {expected}",
            rules.label()
        );
    }
}

#[test]
fn scoring_options_value_is_points_plus_successor() {
    let t = table(RuleSet::YAHTZEE, Order::Any);
    let rules = *t.rules();
    let card = ScoreCard::parse(rules, "yahtzee=50,fours=16", 1).unwrap();
    let dice: Dice = "44444".parse().unwrap();
    let a = advise(
        t,
        &Position {
            card: card.clone(),
            dice,
            rolls_left: 0,
        },
    )
    .unwrap();
    let choices = box_choices(t, &card.state(), &dice);
    // Forced Joker with Fours filled: the open lower boxes only.
    assert_eq!(a.options.len(), 6);
    assert_eq!(choices.len(), 6);
    for c in &choices {
        assert_eq!(c.bonus, 100);
    }
    let best = a.options[0].expected_final();
    assert!(a.options.iter().all(|o| o.expected_final() <= best));
}
