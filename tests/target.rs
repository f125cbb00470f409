//! The target objective: the best chance of scoring at least `t` more points, from every
//! state. Checked against the brute-force solver on reduced games of every rule set (in
//! `f64`, to 1e-9), for its invariants, and the `f32` table against an exact `f64` one.

use yahtzee::rules::{Order, RuleSet, Rules};
use yahtzee::solver::Simd;
use yahtzee::state::reachable_states;
use yahtzee::vector::{VectorObjective, max_remaining, solve, solve_reduced};

use crate::brute::BruteForce;
use crate::solver::reduced_states;
use crate::util::table;

/// The exact (no tail left out) `f64` target table of the reduced game of `open` boxes.
fn exact_reduced(rules: Rules, open: usize) -> yahtzee::vector::VectorTable<f64> {
    let mut objective = VectorObjective::<f64>::target(rules);
    objective.tail = 0.0;
    solve_reduced(&objective, open, Simd::detect(), &|_, _| {})
}

#[test]
fn target_agrees_with_brute_force_on_reduced_games() {
    let cases = [
        (RuleSet::YAHTZEE, Order::Any, 2, 29),
        (RuleSet::YAHTZEE_FREE_JOKER, Order::Any, 2, 37),
        (RuleSet::YAHTZEE_PLAIN, Order::Any, 2, 31),
        (RuleSet::YACHT, Order::Any, 2, 7),
        (RuleSet::YATZY, Order::Any, 2, 53),
        (RuleSet::YAHTZEE, Order::UpperFirst, 2, 7),
        (RuleSet::YACHT, Order::UpperFirst, 3, 1),
        (RuleSet::YATZY, Order::UpperFirst, 2, 11),
    ];
    for (set, order, open, step) in cases {
        let rules = Rules::with_order(set, order);
        let exact = exact_reduced(rules, open as usize);
        let mut brute = BruteForce::new(rules);
        let states = reduced_states(&rules, open, step);
        assert!(
            states.len() >= 5,
            "{}: {} states",
            rules.label(),
            states.len()
        );
        let mut checked = 0;
        for s in states {
            let most = i64::from(max_remaining(&rules, &s));
            // A spread of targets from the sure to the impossible.
            for t in [
                0,
                1,
                most / 4,
                most / 2,
                3 * most / 4,
                most - 1,
                most,
                most + 1,
            ] {
                let expected = brute.target(s, t);
                let got = exact.value(&s, t).expect("a state of the reduced game");
                assert!(
                    (got - expected).abs() < 1e-9,
                    "{} {s:?} t={t}: vector {got}, brute force {expected}",
                    rules.label()
                );
                checked += 1;
            }
        }
        println!("{}: {checked} (state, target) pairs checked", rules.label());
    }
}

/// `P*(s, 0) = 1`; non-increasing in `t`; 0 beyond the state's maximum; summed over `t >= 1`
/// at least the expected remaining score (the expected-score strategy's chances sum to it,
/// and the best chances are at least those).
#[test]
fn target_table_invariants() {
    for (set, order) in [
        (RuleSet::YACHT, Order::Any),
        (RuleSet::YAHTZEE, Order::UpperFirst),
        (RuleSet::YATZY, Order::UpperFirst),
    ] {
        let rules = Rules::with_order(set, order);
        let target = solve(
            &VectorObjective::<f32>::target(rules),
            Simd::detect(),
            &|_, _| {},
        );
        let ev = table(set, order);
        for s in reachable_states(&rules) {
            let value = |t: i64| f64::from(target.value(&s, t).unwrap());
            assert_eq!(value(0), 1.0, "{s:?}");
            assert_eq!(value(-5), 1.0, "{s:?}");
            let most = i64::from(max_remaining(&rules, &s));
            let range = target.range(&s);
            assert!(range.end() <= most + 1, "{s:?}: {range:?} past {most}");
            assert_eq!(value(most + 1), 0.0, "{s:?}");
            let mut sum = 0.0;
            let mut previous = 1.0;
            for t in 1..=most {
                let v = value(t);
                assert!(v <= previous, "{s:?} t={t}: {v} after {previous}");
                assert!((0.0..=1.0).contains(&v));
                previous = v;
                sum += v;
            }
            // f32 values, a tail of 1e-9 left out: a little slack.
            let expected = ev.value(&s);
            assert!(
                sum >= expected - 1e-4 * (1.0 + most as f64 / 100.0),
                "{} {s:?}: sum {sum} below the expected remaining {expected}",
                rules.label()
            );
        }
    }
}

/// The stored `f32` table is within 1e-6 of an exact `f64` computation at every state and
/// every target.
#[test]
fn f32_target_table_is_within_1e6_of_exact() {
    for rules in [
        Rules::new(RuleSet::YACHT),
        Rules::with_order(RuleSet::YATZY, Order::UpperFirst),
        Rules::with_order(RuleSet::YAHTZEE, Order::UpperFirst),
    ] {
        let stored = solve(
            &VectorObjective::<f32>::target(rules),
            Simd::detect(),
            &|_, _| {},
        );
        let exact = exact_reduced(rules, rules.box_count());
        let mut worst = 0.0f64;
        for s in reachable_states(&rules) {
            let r = exact.range(&s);
            for t in i64::from(r.lo) - 1..=r.end() {
                let d =
                    (f64::from(stored.value(&s, t).unwrap()) - exact.value(&s, t).unwrap()).abs();
                worst = worst.max(d);
            }
        }
        println!("{}: largest difference {worst:e}", rules.label());
        assert!(worst < 1e-6, "{}: {worst:e}", rules.label());
    }
}
