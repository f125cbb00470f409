//! The target objective: the best chance of scoring at least `t` more points, from every
//! state. Checked against the brute-force solver on reduced games of every rule set (in
//! `f64`, to 1e-9), for its invariants, and the `f32` table against an exact `f64` one.

use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::reachable_states;
use yahtzee_core::solve::simd::Simd;
use yahtzee_core::solve::vector::{VectorObjective, max_remaining, solve, solve_reduced};

use crate::brute::BruteForce;
use crate::solver::sampled_states;
use crate::util::{table, target_table};

/// The exact (no tail left out) `f64` target table of the reduced game of `open` boxes.
fn exact_reduced(rules: Rules, open: usize) -> yahtzee_core::solve::vector::Solution<f64> {
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
        check_target_against_brute_force(Rules::with_order(set, order), open, step);
    }
}

/// Checks the exact target table of the reduced game of `rules` with at most `open` boxes
/// open against the brute-force solver, on every `step`-th state and a spread of targets
/// from the sure to the impossible.
pub fn check_target_against_brute_force(rules: Rules, open: u32, step: usize) {
    let start = std::time::Instant::now();
    let exact = exact_reduced(rules, open as usize);
    let mut brute = BruteForce::new(rules);
    let states = sampled_states(&rules, open, step, 5);
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
    println!(
        "{}: {checked} (state, target) pairs checked in {:?}",
        rules.label(),
        start.elapsed()
    );
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
        let target = target_table(set, order);
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
    for (set, order) in [
        (RuleSet::YACHT, Order::Any),
        (RuleSet::YATZY, Order::UpperFirst),
        (RuleSet::YAHTZEE, Order::UpperFirst),
    ] {
        let rules = Rules::with_order(set, order);
        let stored = target_table(set, order);
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

fn advise_json(args: &[&str]) -> serde_json::Value {
    let o = crate::util::run(RuleSet::YACHT, Order::Any, args);
    assert!(o.status.success(), "{}", crate::util::stderr(&o));
    serde_json::from_str(&crate::util::stdout(&o)).expect("one JSON object")
}

/// The target advice of the 252 opening rolls, each option's chance averaged over the rolls
/// by their probabilities, gives back the table's chance of the empty card: the advice and
/// the table are the same solution. And the advice of a box with no roll left is the
/// table's chance after it.
#[test]
fn target_advice_averaged_over_rolls_equals_the_table() {
    use yahtzee_core::game::dice::{Dice, Lattice};
    use yahtzee_core::game::state::ScoreCard;
    use yahtzee_core::policy::expected::Position;
    use yahtzee_core::policy::target::advise_target;
    let rules = Rules::new(RuleSet::YACHT);
    let ev = table(RuleSet::YACHT, Order::Any);
    let targets = target_table(RuleSet::YACHT, Order::Any);
    for (card, target) in [("", 180), ("ones=2,yacht=50,choice=22", 190)] {
        let card = ScoreCard::parse(rules, card, 0).unwrap();
        let needed = i64::from(target) - i64::from(card.banked());
        let mut mean = 0.0;
        for (r, dice) in Dice::all().enumerate() {
            let position = Position {
                card: card.clone(),
                dice,
                rolls_left: 2,
            };
            let a = advise_target(ev, targets, &position, target).unwrap();
            assert_eq!(a.options[0].loss, 0.0);
            assert!(
                a.options
                    .windows(2)
                    .all(|w| w[0].p_reach >= w[1].p_reach - 1e-9)
            );
            mean += Lattice::get().roll_probability[r] * a.p_reach;
        }
        let table_value = f64::from(targets.value(&card.state(), needed).unwrap());
        assert!(
            (mean - table_value).abs() < 1e-6,
            "{card}: advice {mean}, table {table_value}"
        );
        // No roll left: each box is the table's chance after it.
        let dice: Dice = "22333".parse().unwrap();
        let position = Position {
            card: card.clone(),
            dice,
            rolls_left: 0,
        };
        let a = advise_target(ev, targets, &position, target).unwrap();
        for o in &a.options {
            let yahtzee_core::policy::expected::Action::Score {
                category, points, ..
            } = &o.action
            else {
                panic!("a box with no roll left");
            };
            let index = rules.box_by_name(category).unwrap();
            let after = targets
                .after_box(&card.state(), index, *points, false, needed)
                .unwrap();
            assert_eq!(o.p_reach, after, "{category}");
        }
    }
}

#[test]
fn advise_target_json_and_batch_agree() {
    let direct = advise_json(&[
        "advise", "--rules", "yacht", "--dice", "13356", "--card", "sixes=24", "--target", "200",
        "--json",
    ]);
    assert_eq!(direct["target"], 200);
    assert_eq!(direct["banked"], 24);
    assert_eq!(direct["needed"], 176);
    let options = direct["options"].as_array().unwrap();
    assert!(options.len() > 10);
    for key in [
        "p_reach",
        "loss",
        "expected_final",
        "expected_loss",
        "reachable",
    ] {
        assert!(options[0].get(key).is_some(), "{key}");
    }
    let line = r#"{"card": {"sixes": 24}, "dice": [1, 3, 3, 5, 6], "target": 200}"#;
    let o = crate::util::run_with_input(
        crate::util::table_dir(),
        &["advise", "--rules", "yacht", "--batch"],
        &format!("{line}\n{{\"dice\": [1, 3, 3, 5, 6]}}\n"),
    );
    assert!(o.status.success(), "{}", crate::util::stderr(&o));
    let out = crate::util::stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2);
    let batch: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(batch, direct);
    // The second line has no target: the expected-score advice.
    let plain: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    assert!(plain.get("target").is_none());
    assert!(plain["options"][0].get("p_reach").is_none());
}

/// Once the target is reached every chance is 1, and the options come in the order of the
/// expected-score advice.
#[test]
fn a_reached_target_ranks_by_expected_score() {
    let reached = advise_json(&[
        "advise",
        "--rules",
        "yacht",
        "--dice",
        "13356",
        "--card",
        "sixes=24,yacht=50",
        "--target",
        "60",
        "--json",
    ]);
    let plain = advise_json(&[
        "advise",
        "--rules",
        "yacht",
        "--dice",
        "13356",
        "--card",
        "sixes=24,yacht=50",
        "--json",
    ]);
    let kinds = |v: &serde_json::Value| -> Vec<String> {
        v["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| format!("{} {}", o["keep"], o["stop_and_score"]))
            .collect()
    };
    assert_eq!(kinds(&reached), kinds(&plain));
    assert!(
        reached["options"]
            .as_array()
            .unwrap()
            .iter()
            .all(|o| o["p_reach"] == 1.0)
    );
}

#[test]
fn target_tables_are_verified_and_damage_gets_a_rebuild_command() {
    let dir = crate::util::temp_dir();
    let path = dir.path().join("yacht.target");
    let p = crate::util::path_str(&path);
    let o = crate::util::run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "solve",
            "--rules",
            "yacht",
            "--objective",
            "target",
            "--out",
            &p,
            "--json",
        ],
    );
    assert!(o.status.success(), "{}", crate::util::stderr(&o));
    let solved: serde_json::Value = serde_json::from_str(&crate::util::stdout(&o)).unwrap();
    assert_eq!(solved["objective"], "target");
    let verified = advise_json(&["verify", &p, "--json"]);
    assert_eq!(verified["reach"], solved["reach"]);
    assert_eq!(verified["values"], solved["values"]);
    // Damage one value: verify names the checksum and the command that rebuilds it.
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() - 1000;
    bytes[at] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let o = crate::util::run(RuleSet::YACHT, Order::Any, &["verify", &p]);
    crate::util::assert_bad_input(&o, "is corrupted");
    let err = crate::util::stderr(&o);
    assert!(err.contains("--objective target --out"), "{err}");
    crate::util::run_suggested(crate::util::table_dir(), &err);
    let again = advise_json(&["verify", &p, "--json"]);
    assert_eq!(again["reach"], solved["reach"]);
    // An expected-score table given as the target table is refused with the fix.
    let ev = crate::util::table_dir().join(yahtzee_core::tables::default_table_name(&Rules::new(
        RuleSet::YACHT,
    )));
    let o = crate::util::run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "advise",
            "--rules",
            "yacht",
            "--dice",
            "12345",
            "--target",
            "150",
            "--target-table",
            &crate::util::path_str(&ev),
        ],
    );
    crate::util::assert_bad_input(&o, "not `target`");
}

/// Scandinavian Yatzy against the published figures of the target objective: the best chance
/// of more than 200 is 94.3% against 90.9% under expected-score play, of more than 300 13.1%
/// against 9.4%. (The publications count final scores above T, that is at least T + 1: our
/// `P*(empty card, 201)` is 94.33% and `P*(empty card, 200)` 94.57%.) The expected-score
/// figures come from the exact distribution of the expected-score strategy.
#[test]
fn yatzy_reproduces_the_published_target_figures() {
    let rules = Rules::new(RuleSet::YATZY);
    // The longest solve of the suite (minutes): in a pool of its own, so that the other
    // tests' solves, which use the global pool, do not queue behind its cards.
    let pool = rayon::ThreadPoolBuilder::new()
        .build()
        .expect("a thread pool");
    let best = pool.install(|| {
        solve(
            &VectorObjective::<f32>::target(rules),
            Simd::detect(),
            &|_, _| {},
        )
    });
    let start = yahtzee_core::game::state::State::START;
    let best_above = |t: i64| f64::from(best.value(&start, t + 1).unwrap());
    // The exact distribution of the expected-score strategy: the forward pass of Yatzy that
    // the stats tests share (`exact_distribution` is its tally), made once per process.
    let tally = &crate::stats::forward(RuleSet::YATZY).tally;
    let ev_above = |t: u32| -> f64 {
        tally
            .pmf()
            .iter()
            .filter(|&&(s, _)| s > t)
            .map(|&(_, p)| p)
            .sum()
    };
    let round = |p: f64| (p * 1000.0).round() / 10.0;
    assert_eq!(round(best_above(200)), 94.3, "{}", best_above(200));
    assert_eq!(round(best_above(300)), 13.1, "{}", best_above(300));
    assert_eq!(round(ev_above(200)), 90.9, "{}", ev_above(200));
    assert_eq!(round(ev_above(300)), 9.4, "{}", ev_above(300));
    // The best chance is at least the expected-score strategy's at every score.
    for t in (0..=374).step_by(7) {
        assert!(best_above(t) >= ev_above(t as u32) - 1e-6, "t = {t}");
    }
}

/// `solve --curve` reads a target or distribution table already at its path rather than
/// solving it again (the Yahtzee target table took 123 s): the second call writes the same
/// curve, the table's, reports no solve (`seconds` null) and the file's checksum, and leaves
/// the file as it was (same inode, same modification time: not rewritten).
#[test]
#[cfg(unix)]
fn solve_curve_reads_an_existing_table() {
    use std::os::unix::fs::MetadataExt;
    use yahtzee_core::State;
    use yahtzee_core::solve::vector::DISTRIBUTION;
    use yahtzee_core::tables::default_table_name_of;
    let stamp = |path: &std::path::Path| {
        let m = std::fs::metadata(path).unwrap();
        (m.ino(), m.modified().unwrap(), m.len())
    };
    // The rows of a curve file, checked against the curve of a table.
    let rows = |csv: &std::path::Path, table: &yahtzee_core::tables::vector::VectorTable<f32>| {
        let text = std::fs::read_to_string(csv).unwrap();
        let expected: Vec<String> = table
            .curve(&State::START)
            .unwrap()
            .iter()
            .enumerate()
            .map(|(t, p)| format!("{t},{p}"))
            .collect();
        assert_eq!(text.lines().skip(1).collect::<Vec<_>>(), expected);
        text
    };
    let dir = crate::util::temp_dir();
    let table = crate::util::path_str(&dir.path().join("yacht.target"));
    let solve = |objective: &str, out: Option<&str>, csv: &str| {
        let csv = crate::util::path_str(&dir.path().join(csv));
        let mut args = vec!["solve", "--rules", "yacht", "--objective", objective];
        args.extend(["--curve", &csv, "--json"]);
        if let Some(out) = out {
            args.extend(["--out", out]);
        }
        (advise_json(&args), dir.path().join(&csv))
    };
    let (first, first_csv) = solve("target", Some(&table), "first.csv");
    assert!(first["seconds"].as_f64().is_some(), "{first}");
    let before = stamp(std::path::Path::new(&table));
    let (second, second_csv) = solve("target", Some(&table), "second.csv");
    assert!(second["seconds"].is_null(), "read, not solved: {second}");
    assert_eq!(
        stamp(std::path::Path::new(&table)),
        before,
        "the table was rewritten"
    );
    for field in ["reach", "values", "states", "tail"] {
        assert_eq!(second[field], first[field], "{field}");
    }
    let verified = advise_json(&["verify", &table, "--json"]);
    assert_eq!(second["checksum"], verified["checksum"]);
    assert_eq!(
        first["checksum"], verified["checksum"],
        "solved: its file's"
    );
    assert!(first["table_checksum"].is_null(), "no expected-score table");
    let fixture = target_table(RuleSet::YACHT, Order::Any);
    assert_eq!(
        rows(&second_csv, fixture),
        rows(&first_csv, fixture),
        "the same curve"
    );
    // The distribution table in the default place (the shared one, solved by the fixture) is
    // read, not rewritten, and its curve is the table's.
    let distribution = crate::util::distribution_table(RuleSet::YACHT, Order::Any);
    let path = crate::util::table_dir().join(default_table_name_of(
        &Rules::new(RuleSet::YACHT),
        DISTRIBUTION,
    ));
    let before = stamp(&path);
    let (read, csv) = solve(DISTRIBUTION, None, "distribution.csv");
    assert!(read["seconds"].is_null(), "read, not solved: {read}");
    assert_eq!(stamp(&path), before, "the shared table was rewritten");
    assert!(rows(&csv, distribution).starts_with("target,p_at_least\n"));
    // The distribution names the expected-score table whose policy it follows.
    let ev = format!(
        "{:08x}",
        crate::util::table(RuleSet::YACHT, Order::Any).checksum()
    );
    assert_eq!(read["table_checksum"], ev.as_str(), "{read}");
}
