//! Two-player Yacht solved exactly: checked against the brute-force recursion on reduced
//! games (in `f64`, to 1e-9), for its invariants (decided positions, one box left each,
//! both players on the expected-score policy), and the command line.

use std::collections::HashMap;
use std::sync::Arc;

use yahtzee::rules::{BoxMask, Order, RuleSet, Rules};
use yahtzee::solver::Simd;
use yahtzee::state::State;
use yahtzee::twoplayer::{Game, Player, Solution, Start, solve};

use crate::brute::BruteForce;

/// The mask of the boxes named `names`.
fn mask(rules: &Rules, names: &[&str]) -> BoxMask {
    names
        .iter()
        .map(|n| {
            let i = rules
                .boxes()
                .iter()
                .position(|c| c.name == *n)
                .unwrap_or_else(|| panic!("no box {n}"));
            1 << i
        })
        .fold(0, |a, b| a | b)
}

/// The card with every box but `open` filled.
fn all_but(rules: &Rules, open: &[&str]) -> BoxMask {
    rules.full_mask() & !mask(rules, open)
}

fn state(filled: BoxMask) -> State {
    State {
        filled,
        upper: 0,
        yahtzee_50: false,
    }
}

/// The exact (no tail) `f64` solution of the subgame from `start`, every ply kept.
fn exact(game: &Game, start: Start) -> Solution<f64> {
    let mut game = game.clone();
    game.tail = 0.0;
    solve(&game, start, &|_| true, Simd::detect(), &|_, _| {}).expect("the subgame solves")
}

/// The brute force's value for the first player of the position `start` with the first
/// player's lead `lead`.
fn brute_value(
    brute: &BruteForce,
    memo: &mut HashMap<(State, State, i64), f64>,
    start: Start,
    lead: i64,
) -> f64 {
    if start.first.count_ones() == start.second.count_ones() {
        brute.two_player(memo, state(start.first), state(start.second), lead)
    } else {
        1.0 - brute.two_player(memo, state(start.second), state(start.first), -lead)
    }
}

#[test]
fn two_player_agrees_with_brute_force_on_reduced_games() {
    let yacht = Rules::with_order(&RuleSet::YACHT, Order::Any);
    let upper_first = Rules::with_order(&RuleSet::YACHT, Order::UpperFirst);
    // (rules, the first player's open boxes, the second's): the first to move with as many
    // open as the second, or the second to move with one box more open.
    let cases: [(Rules, &[&str], &[&str]); 6] = [
        (yacht, &["ones", "yacht"], &["sixes", "choice"]),
        (
            yacht,
            &["full-house", "little-straight"],
            &["four-of-a-kind", "big-straight"],
        ),
        (yacht, &["twos", "choice"], &["threes", "yacht", "choice"]),
        (yacht, &["yacht"], &["ones", "yacht"]),
        (upper_first, &["fives", "sixes"], &["fours", "sixes"]),
        (
            yacht,
            &["ones", "twos", "yacht"],
            &["ones", "threes", "choice"],
        ),
    ];
    for (rules, first_open, second_open) in cases {
        let start = Start {
            first: all_but(&rules, first_open),
            second: all_but(&rules, second_open),
        };
        let solution = exact(&Game::optimal(rules).unwrap(), start);
        let brute = BruteForce::new(rules);
        let mut memo = HashMap::new();
        for lead in [-80, -31, -10, -1, 0, 1, 4, 12, 30, 55, 81] {
            let expected = brute_value(&brute, &mut memo, start, lead);
            let got = solution
                .value(start.first, start.second, lead)
                .expect("the start's ply is kept");
            assert!(
                (got - expected).abs() < 1e-9,
                "{} {first_open:?} against {second_open:?} at lead {lead}: solved {got}, brute force {expected}",
                rules.label()
            );
        }
    }
}

#[test]
fn two_player_decided_positions_are_won_or_lost() {
    let rules = Rules::with_order(&RuleSet::YACHT, Order::Any);
    // The first player to move with ones and twos open (at most 15 more), the second with
    // fours and yacht (at most 70): a lead above 70 wins for sure, one below -15 loses.
    let start = Start {
        first: all_but(&rules, &["ones", "twos"]),
        second: all_but(&rules, &["fours", "yacht"]),
    };
    let game = Game::optimal(rules).unwrap();
    let solution = solve::<f32>(&game, start, &|_| false, Simd::detect(), &|_, _| {}).unwrap();
    for lead in [71, 72, 100, 1000] {
        assert_eq!(solution.value(start.first, start.second, lead), Some(1.0));
    }
    for lead in [-16, -17, -50, -1000] {
        assert_eq!(solution.value(start.first, start.second, lead), Some(0.0));
    }
    // In between, neither: at lead 70 the second can still tie with 20 + 50.
    let v = solution.value(start.first, start.second, 70).unwrap();
    assert!(v > 0.99 && v < 1.0, "{v}");
    let v = solution.value(start.first, start.second, -15).unwrap();
    assert!(v > 0.0 && v < 0.01, "{v}");
}

/// The chance of a Yacht (five of a kind) in one turn of three rolls, keeping the most
/// common face: a direct chain over how many dice show it, each throw enumerated.
fn yacht_chance() -> f64 {
    // p[m][n]: from m matching dice, the chance of n after one throw of the 5 - m others
    // (keeping the most common face; from 0 the first throw sets it).
    let mut chance = [[0.0f64; 6]; 6];
    for (m, row) in chance.iter_mut().enumerate() {
        let thrown = 5 - m as u32;
        let total = 6f64.powi(thrown as i32);
        for code in 0..6u32.pow(thrown) {
            let mut c = code;
            let mut counts = [0usize; 6];
            for _ in 0..thrown {
                counts[(c % 6) as usize] += 1;
                c /= 6;
            }
            let n = if m == 0 {
                *counts.iter().max().unwrap()
            } else {
                // The kept face is face 0 here; the others may overtake it.
                (m + counts[0]).max(*counts[1..].iter().max().unwrap())
            };
            row[n] += 1.0 / total;
        }
    }
    let mut dist = [0.0f64; 6];
    dist[0] = 1.0;
    for _ in 0..3 {
        let mut next = [0.0f64; 6];
        for m in 0..6 {
            if m == 5 {
                next[5] += dist[5];
                continue;
            }
            for n in 0..6 {
                next[n] += dist[m] * chance[m][n];
            }
        }
        dist = next;
    }
    dist[5]
}

#[test]
fn two_player_one_box_left_each_is_a_direct_enumeration() {
    let rules = Rules::with_order(&RuleSet::YACHT, Order::Any);
    // Only the Yacht box left for each: each scores 50 with chance q, else 0, and the best
    // play of both is to go for five of a kind, whatever the lead.
    let q = yacht_chance();
    assert!((q - 0.046_028_642_5).abs() < 1e-9, "{q}");
    let start = Start {
        first: all_but(&rules, &["yacht"]),
        second: all_but(&rules, &["yacht"]),
    };
    let solution = exact(&Game::optimal(rules).unwrap(), start);
    let direct = |lead: i64| -> f64 {
        // The first player's final lead: lead + 50 (x - y) for x, y the two Yachts.
        let mut v = 0.0;
        for (x, px) in [(0, 1.0 - q), (1, q)] {
            for (y, py) in [(0, 1.0 - q), (1, q)] {
                let d = lead + 50 * (x - y);
                let u = match d.cmp(&0) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                };
                v += px * py * u;
            }
        }
        v
    };
    for lead in [-60, -50, -49, -10, -1, 0, 1, 10, 49, 50, 51] {
        let got = solution.value(start.first, start.second, lead).unwrap();
        assert!(
            (got - direct(lead)).abs() < 1e-12,
            "lead {lead}: solved {got}, direct {}",
            direct(lead)
        );
    }
}

#[test]
fn two_player_both_on_the_expected_score_policy_split_evenly() {
    let rules = Rules::with_order(&RuleSet::YACHT, Order::Any);
    let ev = Arc::new(crate::util::table(&RuleSet::YACHT, Order::Any).clone());
    let game = Game::new(
        rules,
        Player::Expected(ev.clone()),
        Player::Expected(ev.clone()),
    )
    .unwrap();
    // Both with the same four boxes open and no lead: their final scores are independent
    // and identically distributed, so each wins as often as the other.
    let open = all_but(&rules, &["ones", "fours", "full-house", "yacht"]);
    let start = Start {
        first: open,
        second: open,
    };
    let solution = exact(&game, start);
    let v = solution.value(open, open, 0).unwrap();
    assert!((v - 0.5).abs() < 1e-12, "{v}");
    // Against the optimal second player the first player does worse than half.
    let game = Game::new(rules, Player::Expected(ev), Player::Optimal).unwrap();
    let v = exact(&game, start).value(open, open, 0).unwrap();
    assert!(v < 0.5 - 1e-4, "{v}");
}
