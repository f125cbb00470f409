//! The distribution objective: for every state, the chance of scoring at least `t` more
//! points under the expected-score policy (a fixed policy, no maximum). Checked against the
//! brute-force solver on reduced games (in `f64`, to 1e-9), its mean against the
//! expected-score table at every state, and its empty card against the forward propagation
//! of `stats`.

use std::sync::Arc;

use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::{State, reachable_states};
use yahtzee_core::solve::simd::Simd;
use yahtzee_core::solve::vector::{VectorObjective, max_remaining, solve_reduced};
use yahtzee_core::tables::expected::StrategyTable;

use crate::brute::BruteForce;
use crate::solver::sampled_states;
use crate::util::{distribution_table, table};

#[test]
fn distribution_agrees_with_brute_force_on_reduced_games() {
    let cases = [
        (RuleSet::YAHTZEE, Order::Any, 2, 29),
        (RuleSet::YAHTZEE_FREE_JOKER, Order::Any, 2, 37),
        (RuleSet::YAHTZEE_PLAIN, Order::Any, 2, 31),
        (RuleSet::YACHT, Order::Any, 3, 41),
        (RuleSet::YATZY, Order::Any, 2, 53),
        (RuleSet::YAHTZEE, Order::UpperFirst, 2, 7),
        (RuleSet::YATZY, Order::UpperFirst, 2, 11),
    ];
    for (set, order, open, step) in cases {
        let ev = Arc::new(table(set, order).clone());
        check_distribution_against_brute_force(ev, open, step);
    }
}

/// Checks the exact distribution table of the reduced game of `ev`'s rules with at most
/// `open` boxes open (the policy of the expected-score table `ev`) against the brute-force
/// solver, on every `step`-th state and every `t` up to the state's maximum and past it.
pub fn check_distribution_against_brute_force(ev: Arc<StrategyTable>, open: u32, step: usize) {
    let rules = *ev.rules();
    let mut objective = VectorObjective::<f64>::distribution(ev);
    objective.tail = 0.0;
    let table = solve_reduced(&objective, open as usize, Simd::detect(), &|_, _| {});
    let mut brute = BruteForce::new(rules);
    let states = sampled_states(&rules, open, step, 5);
    let mut checked = 0;
    for s in states {
        let pmf = brute.policy_distribution(s);
        let total: f64 = pmf.iter().sum();
        assert!((total - 1.0).abs() < 1e-12, "{s:?}: mass {total}");
        let most = max_remaining(&rules, &s) as usize;
        assert!(pmf.len() <= most + 1, "{s:?}: scores past {most}");
        for t in 0..=most + 1 {
            let expected: f64 = pmf.iter().skip(t).sum();
            let got = table
                .value(&s, t as i64)
                .expect("a state of the reduced game");
            assert!(
                (got - expected).abs() < 1e-9,
                "{} {s:?} t={t}: vector {got}, brute force {expected}",
                rules.label()
            );
            checked += 1;
        }
    }
    println!("{}: {checked} (state, t) pairs checked", rules.label());
}

/// The mean of each state's distribution (the sum over `t >= 1` of the chance of at least
/// `t` more) is the expected-score table's value of the state; and the distribution from
/// the empty card is the one `stats` propagates forward.
#[test]
fn distribution_means_are_the_expected_scores_and_its_start_is_stats() {
    for (set, order) in [
        (RuleSet::YACHT, Order::Any),
        (RuleSet::YATZY, Order::UpperFirst),
    ] {
        let rules = Rules::with_order(set, order);
        let ev = table(set, order);
        let table = distribution_table(set, order);
        let mut worst = 0.0f64;
        for s in reachable_states(&rules) {
            let most = i64::from(max_remaining(&rules, &s));
            let mut previous = 1.0;
            let mut mean = 0.0;
            for t in 1..=most + 1 {
                let v = f64::from(table.value(&s, t).unwrap());
                assert!(v <= previous + 1e-6, "{s:?} t={t}: {v} after {previous}");
                previous = v;
                mean += v;
            }
            worst = worst.max((mean - ev.value(&s)).abs() / (1.0 + ev.value(&s)));
        }
        println!(
            "{}: largest relative difference of the means {worst:e}",
            rules.label()
        );
        assert!(worst < 2e-6, "{}: {worst:e}", rules.label());
        let tally = yahtzee_core::stats::exact_distribution(ev, &|_, _| {});
        let mut above = 1.0;
        for (score, mass) in tally.score.iter().enumerate() {
            let got = f64::from(table.value(&State::START, score as i64).unwrap());
            assert!(
                (got - above).abs() < 1e-6,
                "{} P(final >= {score}): distribution table {got}, stats {above}",
                rules.label()
            );
            above -= mass;
        }
    }
}
