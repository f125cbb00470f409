//! The solver: golden values from the literature, bit-identical results at any thread count
//! and instruction set, and agreement with an independent brute-force solver on reduced games.

use std::collections::HashMap;

use yahtzee::advice::{Position, advise, box_choices};
use yahtzee::dice::Dice;
use yahtzee::rules::{Order, RuleSet, Rules};
use yahtzee::solver::{Simd, SolveOptions, solve};
use yahtzee::state::{ScoreCard, State, is_reachable};
use yahtzee::table::StrategyTable;

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
        let rules = Rules::with_order(set, order);
        let (t, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
        assert_close(t.expected_score(), value, &rules.label());
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

/// An independent, deliberately naive solver for games with few open boxes: keeps are
/// enumerated as the 32 subsets of dice positions, and re-roll outcomes by enumerating every
/// ordered sequence of faces, with no lattice, no lanes and no shared code beyond the rules'
/// scoring.
struct BruteForce {
    rules: Rules,
    memo: HashMap<State, f64>,
    /// The 252 sorted hands of five dice, and the number of ordered throws giving each.
    hands: Vec<(Vec<u8>, u32)>,
    /// `moves[hand][subset]`: (probability, resulting hand) for keeping the dice at the
    /// positions of `subset` and throwing the others.
    moves: Vec<Vec<Vec<(f64, usize)>>>,
}

/// Every ordered throw of `n` dice, grouped by sorted outcome, with its count.
fn throws(n: u32) -> Vec<(Vec<u8>, u32)> {
    let mut counts: HashMap<Vec<u8>, u32> = HashMap::new();
    for code in 0..6u32.pow(n) {
        let mut c = code;
        let mut faces: Vec<u8> = (0..n)
            .map(|_| {
                let f = (c % 6) as u8 + 1;
                c /= 6;
                f
            })
            .collect();
        faces.sort_unstable();
        *counts.entry(faces).or_default() += 1;
    }
    let mut v: Vec<_> = counts.into_iter().collect();
    v.sort();
    v
}

impl BruteForce {
    fn new(rules: Rules) -> BruteForce {
        let hands = throws(5);
        let index: HashMap<Vec<u8>, usize> = hands
            .iter()
            .enumerate()
            .map(|(i, (h, _))| (h.clone(), i))
            .collect();
        let by_n: Vec<_> = (0..=5).map(throws).collect();
        let moves = hands
            .iter()
            .map(|(hand, _)| {
                (0..32u32)
                    .map(|subset| {
                        let kept: Vec<u8> = (0..5)
                            .filter(|i| subset & (1 << i) != 0)
                            .map(|i| hand[i])
                            .collect();
                        let thrown = 5 - kept.len();
                        let total = 6f64.powi(thrown as i32);
                        by_n[thrown]
                            .iter()
                            .map(|(out, count)| {
                                let mut h: Vec<u8> = kept.iter().chain(out).copied().collect();
                                h.sort_unstable();
                                (f64::from(*count) / total, index[&h])
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        BruteForce {
            rules,
            memo: HashMap::new(),
            hands,
            moves,
        }
    }

    fn value(&mut self, state: State) -> f64 {
        if state.filled == self.rules.full_mask() {
            return 0.0;
        }
        if let Some(&v) = self.memo.get(&state) {
            return v;
        }
        // Value of each hand with no roll left: the best legal box.
        let mut by_hand: Vec<f64> = Vec::with_capacity(self.hands.len());
        for h in 0..self.hands.len() {
            let dice = Dice::from_faces(&self.hands[h].0).unwrap();
            let legal = self.rules.legal_boxes(state.filled, &dice);
            let mut best = f64::NEG_INFINITY;
            for i in 0..self.rules.box_count() {
                if legal & (1 << i) == 0 {
                    continue;
                }
                let points = self.rules.score(i, &dice, state.filled);
                let bonus =
                    state.bonus_for(&self.rules, i, points, dice.five_of_a_kind().is_some());
                let next = state.after(&self.rules, i, points);
                best = best.max(f64::from(points + bonus) + self.value(next));
            }
            by_hand.push(best);
        }
        // Then with one and two rolls left: the best of the 32 ways to keep dice.
        for _ in 0..2 {
            by_hand = self
                .moves
                .iter()
                .map(|subsets| {
                    subsets
                        .iter()
                        .map(|outcomes| outcomes.iter().map(|&(p, h)| p * by_hand[h]).sum::<f64>())
                        .fold(f64::NEG_INFINITY, f64::max)
                })
                .collect();
        }
        let v: f64 = self
            .hands
            .iter()
            .zip(&by_hand)
            .map(|((_, count), v)| f64::from(*count) / 7776.0 * v)
            .sum();
        self.memo.insert(state, v);
        v
    }
}

/// Cards with at most `open` boxes open, with sampled upper totals and both flags.
fn reduced_states(rules: &Rules, open: u32, step: usize) -> Vec<State> {
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
        let states = reduced_states(&rules, open, step);
        assert!(
            states.len() >= 10,
            "{}: only {} states",
            rules.label(),
            states.len()
        );
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
        let lattice = yahtzee::dice::Lattice::get();
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
