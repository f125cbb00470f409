//! The exact distribution of the final score under the target policy (`stats --target T`):
//! a distribution, whose chance of reaching `T` is the target table's best chance, whose mean
//! is that of a simulation of the same policy, the same at any thread count, equal to an
//! independent forward pass (a map of every state, points banked and bonuses earned) on a
//! reduced Yahtzee game with its bonuses, and the command's outputs.

use std::collections::HashMap;

use yahtzee_core::game::dice::{DICE, Dice, Keep};
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::State;
use yahtzee_core::policy::player::Player;
use yahtzee_core::policy::target::TargetPlayer;
use yahtzee_core::solve::simd::Simd;
use yahtzee_core::solve::vector::{VectorObjective, solve_reduced};
use yahtzee_core::stats::distribution::{Summary, Tally};
use yahtzee_core::stats::simulate::{MeanInterval, simulate};
use yahtzee_core::stats::{exact_distribution, target_distribution, target_distribution_from};
use yahtzee_core::tables::vector::VectorTable;

use crate::util::*;

fn distribution(set: &'static RuleSet, order: Order, target: u32, threads: usize) -> Tally {
    let player = TargetPlayer::new(table(set, order), target_table(set, order), target).unwrap();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| target_distribution(&player, &|_, _| {}))
}

/// The policy is optimal for its target, so the chance of reaching it read from the exact
/// distribution is the target table's `P*(empty card, T)`: to 1e-6, the precision of the
/// table's `f32` values.
#[test]
fn target_distribution_reaches_the_target_with_the_table_chance() {
    for order in [Order::Any, Order::UpperFirst] {
        let targets = target_table(RuleSet::YACHT, order);
        for t in [150u32, 230] {
            let tally = distribution(RuleSet::YACHT, order, t, 2);
            assert!((tally.total() - 1.0).abs() < 1e-12, "{}", tally.total());
            assert!(tally.score.iter().all(|&p| p >= 0.0));
            let reached: f64 = tally.score.iter().skip(t as usize).sum();
            let best = f64::from(targets.value(&State::START, i64::from(t)).unwrap());
            assert!(
                (reached - best).abs() < 1e-6,
                "{order:?} T={t}: distribution {reached}, table {best}"
            );
            // Every box is filled in every game.
            for b in &tally.boxes {
                assert!((b.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            }
        }
    }
}

/// The exact mean of the target policy is the mean of a simulation of the same policy within
/// 4 standard errors, and so is its chance of reaching the target.
#[test]
fn target_distribution_mean_agrees_with_a_simulation_of_the_policy() {
    let (ev, targets) = (
        table(RuleSet::YACHT, Order::Any),
        target_table(RuleSet::YACHT, Order::Any),
    );
    let rules = *ev.rules();
    let t = 210;
    let player = TargetPlayer::new(ev, targets, t).unwrap();
    let exact = Summary::of(&rules, &target_distribution(&player, &|_, _| {}), &[t]);
    let games = 10_000u64;
    let sim_tally = simulate(&rules, &Player::Target(player), games, 99, &|_| {});
    let sim = Summary::of(&rules, &sim_tally, &[t]);
    let se = MeanInterval::of(&sim_tally).standard_error;
    assert!(
        (sim.mean - exact.mean).abs() < 4.0 * se,
        "simulation {} vs exact {}",
        sim.mean,
        exact.mean
    );
    let p = exact.at_least[0].probability;
    let share_se = (p * (1.0 - p) / games as f64).sqrt();
    assert!((sim.at_least[0].probability - p).abs() < 4.0 * share_se);
    // Playing for 210 costs mean score against the expected-score policy.
    let optimal = Summary::of(&rules, &exact_distribution(ev, &|_, _| {}), &[t]);
    assert!(
        exact.mean < optimal.mean - 1.0,
        "{} {}",
        exact.mean,
        optimal.mean
    );
    assert!(p > optimal.at_least[0].probability + 0.01);
}

#[test]
fn target_distribution_is_the_same_at_any_thread_count() {
    let one = distribution(RuleSet::YACHT, Order::Any, 190, 1);
    let three = distribution(RuleSet::YACHT, Order::Any, 190, 3);
    let bits = |t: &Tally| t.score.iter().map(|p| p.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&one), bits(&three));
    assert_eq!(one, three);
}

/// A target of 0 is reached from the start and one above any score is never in reach: the
/// target policy is then the expected-score policy, and so is its distribution.
#[test]
fn target_distribution_of_a_sure_or_impossible_target_is_the_expected_score_one() {
    let ev = table(RuleSet::YACHT, Order::UpperFirst);
    let optimal = exact_distribution(ev, &|_, _| {});
    for t in [0, 100_000] {
        let tally = distribution(RuleSet::YACHT, Order::UpperFirst, t, 2);
        assert_eq!(tally.score.len(), optimal.score.len());
        for (a, b) in tally.score.iter().zip(&optimal.score) {
            assert!((a - b).abs() < 1e-14, "T={t}: {a} vs {b}");
        }
        for (x, y) in tally.boxes.iter().zip(&optimal.boxes) {
            for (a, b) in x.iter().zip(y) {
                assert!((a - b).abs() < 1e-12);
            }
        }
    }
}

/// The throws that complete `keep` to five dice, as (dice, probability), by enumerating every
/// ordered throw of the dice not kept.
fn completions(keep: &Keep, cache: &mut HashMap<Vec<u8>, Vec<(Dice, f64)>>) -> Vec<(Dice, f64)> {
    let faces = keep.faces();
    if let Some(c) = cache.get(&faces) {
        return c.clone();
    }
    let n = DICE - faces.len();
    let total = 6usize.pow(n as u32);
    let mut by: HashMap<Dice, f64> = HashMap::new();
    for code in 0..total {
        let mut all = faces.clone();
        let mut c = code;
        for _ in 0..n {
            all.push((c % 6) as u8 + 1);
            c /= 6;
        }
        *by.entry(Dice::from_faces(&all).unwrap()).or_default() += 1.0 / total as f64;
    }
    let out: Vec<(Dice, f64)> = by.into_iter().collect();
    cache.insert(faces, out.clone());
    out
}

/// An independent forward pass: a map from (state, points banked, Yahtzee bonuses) to its
/// probability, each entry's turn played roll by roll by the simulation's own player
/// ([`Player::turn`]). Returns the map of (final score, bonuses).
fn forward_by_map(
    player: &TargetPlayer<'_>,
    start: State,
    banked: u32,
) -> HashMap<(u32, usize), f64> {
    let rules = *player.ev().rules();
    let bot = Player::Target(*player);
    let mut cache = HashMap::new();
    let mut frontier: HashMap<(State, u32, usize), f64> =
        HashMap::from([((start, banked, 0), 1.0)]);
    let open = rules.box_count() - start.filled.count_ones() as usize;
    for _ in 0..open {
        let mut next: HashMap<(State, u32, usize), f64> = HashMap::new();
        for (&(state, banked, k), &p) in &frontier {
            let turn = bot.turn(&state, banked, None);
            let mut rolls: HashMap<Dice, f64> =
                completions(&Keep::from_faces(&[]).unwrap(), &mut cache)
                    .into_iter()
                    .collect();
            let mut stopped: HashMap<Dice, f64> = HashMap::new();
            for rolls_left in [2u8, 1] {
                let mut after: HashMap<Dice, f64> = HashMap::new();
                for (dice, q) in rolls {
                    let keep = turn.keep(rolls_left, &dice);
                    if keep.len() == DICE {
                        *stopped.entry(dice).or_default() += q;
                        continue;
                    }
                    for (d, r) in completions(&keep, &mut cache) {
                        *after.entry(d).or_default() += q * r;
                    }
                }
                rolls = after;
            }
            for (d, q) in stopped {
                *rolls.entry(d).or_default() += q;
            }
            for (dice, q) in rolls {
                let (index, points, bonuses) = turn.choose_box(&rules, &state, &dice);
                let key = (
                    state.after(&rules, index, points),
                    banked + points + bonuses.points(&rules),
                    k + usize::from(bonuses.yahtzee),
                );
                *next.entry(key).or_default() += p * q;
            }
        }
        frontier = next;
    }
    let mut finals = HashMap::new();
    for ((_, banked, k), p) in frontier {
        *finals.entry((banked, k)).or_default() += p;
    }
    finals
}

/// On a reduced Yahtzee game with its bonuses and the Joker (three boxes open, the Yahtzee
/// box holding 50, the upper bonus within reach), the distribution of the final score and of
/// the number of Yahtzee bonuses equal those of an independent forward pass by maps, and the
/// chance of the target equals the table's.
#[test]
fn target_distribution_with_yahtzee_bonuses_equals_a_forward_pass_by_maps() {
    let rules = Rules::new(RuleSet::YAHTZEE);
    let ev = table(RuleSet::YAHTZEE, Order::Any);
    let targets = VectorTable::from(solve_reduced(
        &VectorObjective::<f32>::target(rules),
        3,
        Simd::detect(),
        &|_, _| {},
    ));
    let open = ["fours", "full-house", "chance"];
    let filled = rules.full_mask()
        & !open
            .iter()
            .map(|b| 1 << rules.box_by_name(b).unwrap())
            .fold(0, |a, b| a | b);
    let start = State {
        filled,
        upper: 55,
        yahtzee_50: true,
    };
    let banked = 231;
    for t in [banked + 40, banked + 75, banked + 140] {
        let player = TargetPlayer::from_state(ev, &targets, t, &start).unwrap();
        let tally = target_distribution_from(&player, &start, banked, &|_, _| {});
        let reference = forward_by_map(&player, start, banked);
        let mut scores: HashMap<u32, f64> = HashMap::new();
        let mut bonuses: HashMap<usize, f64> = HashMap::new();
        for (&(s, k), &p) in &reference {
            *scores.entry(s).or_default() += p;
            *bonuses.entry(k).or_default() += p;
        }
        for (s, &p) in tally.score.iter().enumerate() {
            let q = scores.get(&(s as u32)).copied().unwrap_or(0.0);
            assert!((p - q).abs() < 1e-12, "T={t} score {s}: {p} vs {q}");
        }
        assert!(scores.keys().all(|&s| (s as usize) < tally.score.len()));
        assert!(bonuses.len() >= 3, "{bonuses:?}");
        for (k, &p) in tally.yahtzee_bonuses.iter().enumerate() {
            let q = bonuses.get(&k).copied().unwrap_or(0.0);
            assert!((p - q).abs() < 1e-12, "T={t} {k} bonuses: {p} vs {q}");
        }
        let reached: f64 = tally.score.iter().skip(t as usize).sum();
        let best = f64::from(targets.value(&start, i64::from(t - banked)).unwrap());
        assert!((reached - best).abs() < 1e-6, "T={t}: {reached} vs {best}");
    }
}

#[test]
fn stats_target_command_reports_both_policies() {
    let targets = target_table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    let csv = dir.path().join("target.csv");
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "stats",
            "--rules",
            "yacht",
            "--target",
            "200",
            "--at-least",
            "150",
            "--json",
            "--pmf",
            &path_str(&csv),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["policy"], "target");
    assert_eq!(v["target"], 200);
    let p = v["p_reach"].as_f64().unwrap();
    let best = f64::from(targets.value(&State::START, 200).unwrap());
    assert!((p - best).abs() < 1e-6 && (v["table_p_reach"].as_f64().unwrap() - best).abs() < 1e-12);
    // The target is among the thresholds, after those asked for.
    let at: Vec<u64> = v["at_least"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["score"].as_u64().unwrap())
        .collect();
    assert_eq!(at, [150, 200]);
    let e = &v["expected_score"];
    assert_eq!(e["policy"], "optimal");
    let mean_e = e["mean"].as_f64().unwrap();
    assert!((mean_e - table(RuleSet::YACHT, Order::Any).expected_score()).abs() < 1e-9);
    let gain = v["p_reach_gain"].as_f64().unwrap();
    assert!((gain - (p - e["p_reach"].as_f64().unwrap())).abs() < 1e-15 && gain > 0.0);
    let cost = v["mean_cost"].as_f64().unwrap();
    assert!((cost - (mean_e - v["mean"].as_f64().unwrap())).abs() < 1e-12 && cost > 0.0);
    // The CSV is the target policy's distribution.
    let text = std::fs::read_to_string(&csv).unwrap();
    let reached: f64 = text
        .lines()
        .skip(1)
        .map(|l| l.split_once(',').unwrap())
        .filter(|(s, _)| s.parse::<u32>().unwrap() >= 200)
        .map(|(_, q)| q.parse::<f64>().unwrap())
        .sum();
    assert!((reached - p).abs() < 1e-12);
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["stats", "--rules", "yacht", "--target", "200"],
    );
    let out = stdout(&o);
    assert!(out.contains("playing for 200 or more"), "{out}");
    assert!(
        out.contains("expected score") && out.contains("P(final >= 200)"),
        "{out}"
    );
    assert!(out.contains("reaches 200 or more: "), "{out}");
}

/// `stats --target` from a card and from a position in a turn: the target policy's chance of
/// reaching the target is the table's best chance from there (`advise --target`'s for the
/// position) to 1e-6, at least the expected-score policy's, whose mean is `stats`' from the
/// same start (to 1e-9); the start is reported.
#[test]
fn stats_target_from_a_card_and_a_position() {
    target_table(RuleSet::YACHT, Order::Any);
    let json = |args: &[&str]| -> serde_json::Value {
        let o = run(RuleSet::YACHT, Order::Any, args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let card = "ones=3,sixes=24,yacht=50";
    let in_turn = ["--card", card, "--dice", "6,6,6,2,1", "--rolls-left", "1"];
    for (start, target) in [(vec!["--card", card], 220), (in_turn.to_vec(), 230)] {
        let t = target.to_string();
        let with = |head: &[&str]| -> serde_json::Value {
            let mut args = head.to_vec();
            args.extend_from_slice(&["--rules", "yacht", "--json"]);
            args.extend_from_slice(&start);
            json(&args)
        };
        let r = with(&["stats", "--target", &t]);
        assert_eq!(r["from"]["card"], card, "{start:?}");
        assert_eq!(r["from"]["banked"], 77);
        let p = r["p_reach"].as_f64().unwrap();
        let best = r["table_p_reach"].as_f64().unwrap();
        assert!(p > 0.01 && p < 0.99, "{start:?}: {p}");
        assert!((p - best).abs() < 1e-6, "{start:?}: {p} against {best}");
        let e = &r["expected_score"];
        assert!(p >= e["p_reach"].as_f64().unwrap() - 1e-9, "{start:?}");
        let plain = with(&["stats"]);
        let mean = plain["mean"].as_f64().unwrap();
        assert!(
            (e["mean"].as_f64().unwrap() - mean).abs() < 1e-9,
            "{start:?}: {} against {mean}",
            e["mean"]
        );
        if start.contains(&"--dice") {
            let advised = with(&["advise", "--target", &t]);
            let chance = advised["p_reach"].as_f64().unwrap();
            assert!((best - chance).abs() < 1e-12, "{best} against {chance}");
            assert_eq!(r["from"]["rolls_left"], 1);
        } else {
            let state = yahtzee_core::game::state::ScoreCard::parse(
                *table(RuleSet::YACHT, Order::Any).rules(),
                card,
                0,
            )
            .unwrap()
            .state();
            let read = target_table(RuleSet::YACHT, Order::Any)
                .value(&state, i64::from(target - 77))
                .unwrap();
            assert!((best - f64::from(read)).abs() < 1e-12);
        }
    }
}

#[test]
fn stats_target_refuses_bad_targets() {
    for (args, needle) in [
        (&["--target", "100001"][..], "100001"),
        (&["--target", "-3"][..], "-3"),
        (&["--target-table", "x.table"][..], "--target"),
    ] {
        let o = run(
            RuleSet::YACHT,
            Order::Any,
            &[&["stats", "--rules", "yacht"][..], args].concat(),
        );
        assert_bad_input(&o, needle);
    }
}
