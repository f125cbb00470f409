//! `yahtzee export`: every scope and format, the filters, and agreement with `advise`.

use std::io::{BufRead, BufReader};

use yahtzee_core::export::{self, DecisionRow, Filter, Row};
use yahtzee_core::game::dice::{Dice, FIRST_ROLL};
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::{ScoreCard, reachable_state_count};
use yahtzee_core::policy::expected::{Action, AdviceOption, Position, advise};

use crate::util::*;

/// The row lines of a JSON lines export, after its metadata line, which is checked: the
/// columns, the rules, the program's version and the table's checksum.
fn jsonl_rows(text: &str) -> Vec<&str> {
    let mut lines = text.lines();
    let first: serde_json::Value = serde_json::from_str(lines.next().expect("a metadata line"))
        .expect("the metadata line is JSON");
    let meta = &first["metadata"];
    assert!(meta["columns"].is_array(), "{first}");
    assert!(meta["rules"].is_string(), "{first}");
    assert_eq!(meta["version"], env!("CARGO_PKG_VERSION"), "{first}");
    assert_eq!(meta["commit"], env!("YAHTZEE_COMMIT"), "{first}");
    assert!(meta["filled_bits"].is_array(), "{first}");
    assert!(meta["rounding"].is_string(), "{first}");
    assert_eq!(
        meta["table_checksum"].as_str().map(str::len),
        Some(8),
        "{first}"
    );
    lines.collect()
}

/// A small deterministic generator (64-bit LCG), enough to pick sample cards.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// A card reached by `turns` random turns: random dice (often five of a kind, so that Yahtzee
/// bonuses and Jokers occur) scored in a random legal box.
fn random_card(rules: Rules, rng: &mut Lcg, turns: u64) -> ScoreCard {
    let mut card = ScoreCard::new(rules);
    for _ in 0..turns {
        let faces: Vec<u8> = if rng.next(3) == 0 {
            vec![rng.next(6) as u8 + 1; 5]
        } else {
            (0..5).map(|_| rng.next(6) as u8 + 1).collect()
        };
        let dice = Dice::from_faces(&faces).unwrap();
        let state = card.state();
        let legal = rules.legal_boxes(state.filled, &dice);
        let choices: Vec<usize> = (0..rules.box_count())
            .filter(|i| legal & (1 << i) != 0)
            .collect();
        let index = choices[rng.next(choices.len() as u64) as usize];
        let points = rules.score(index, &dice, state.filled);
        card.fill(
            index,
            points,
            state.yahtzee_50 && dice.five_of_a_kind().is_some(),
        );
    }
    card
}

/// How an advice option is written in an export.
fn option_text(o: &AdviceOption) -> String {
    match &o.action {
        Action::Keep {
            stop_and_score: Some(b),
            ..
        } => b.to_string(),
        Action::Keep { keep, .. } if keep.is_empty() => "-".to_string(),
        Action::Keep { keep, .. } => keep.faces().iter().map(u8::to_string).collect(),
        Action::Score { category, .. } => category.to_string(),
    }
}

/// Asserts that every row of `rows` (decisions of `card`) is what `advise` says: the same
/// best action and expected final score, the same runner-up and gap.
fn assert_rows_match_advise(
    set: &'static RuleSet,
    order: Order,
    card: &ScoreCard,
    rows: &[DecisionRow],
) {
    let table = table(set, order);
    let state = card.state();
    for row in rows {
        assert_eq!(
            (row.filled, row.upper, row.yahtzee_50),
            (state.filled, state.upper, state.yahtzee_50)
        );
        let position = Position {
            card: card.clone(),
            dice: row.dice.parse().unwrap(),
            rolls_left: row.rolls_left,
        };
        let advice = advise(table, &position).unwrap();
        let what = format!("{set:?} {order:?} card `{card}` row {row:?}");
        assert_eq!(row.best, option_text(&advice.options[0]), "{what}");
        assert!(
            (row.expected - advice.options[0].expected_final()).abs() < 1e-6,
            "{what}"
        );
        match advice.options.get(1) {
            None => assert_eq!((row.runner_up, row.gap), (None, None), "{what}"),
            Some(second) => {
                assert_eq!(row.runner_up, Some(option_text(second).as_str()), "{what}");
                assert!((row.gap.unwrap() - second.loss()).abs() < 2e-6, "{what}");
            }
        }
    }
}

#[test]
fn every_row_of_sampled_cards_matches_advise() {
    let mut rng = Lcg(5);
    for (set, order) in [
        (RuleSet::YAHTZEE, Order::Any),
        (RuleSet::YAHTZEE_FREE_JOKER, Order::Any),
        (RuleSet::YACHT, Order::Any),
        (RuleSet::YAHTZEE, Order::UpperFirst),
    ] {
        let rules = Rules::with_order(set, order);
        let table = table(set, order);
        for _ in 0..4 {
            let turns = rng.next(rules.box_count() as u64);
            let card = random_card(rules, &mut rng, turns);
            let rows = export::card_rows(table, &card, &Filter::default());
            assert_eq!(rows.len(), 252 * 3);
            assert_rows_match_advise(set, order, &card, &rows);
        }
    }
}

#[test]
fn card_export_through_the_binary_matches_advise() {
    // A late card with a Yahtzee bonus and the Yahtzee box at 50: Joker rolls and bonuses.
    let text = "ones=3,twos=6,threes=9,yahtzee=50,chance=22,full-house=25";
    let o = run(
        RuleSet::YAHTZEE,
        Order::Any,
        &[
            "export",
            "--card",
            text,
            "--yahtzee-bonus",
            "1",
            "--format",
            "jsonl",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rules = Rules::new(RuleSet::YAHTZEE);
    let card = ScoreCard::parse(rules, text, 1).unwrap();
    let rows: Vec<DecisionRow> = jsonl_rows(&stdout(&o))
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let s = |k: &str| -> &'static str {
                v[k].as_str()
                    .map(|s| &*Box::leak(s.to_string().into_boxed_str()))
                    .unwrap_or("")
            };
            DecisionRow {
                filled: v["filled"].as_u64().unwrap() as u32,
                upper: v["upper"].as_u64().unwrap() as u8,
                yahtzee_50: v["yahtzee_50"].as_bool().unwrap(),
                dice: s("dice"),
                rolls_left: v["rolls_left"].as_u64().unwrap() as u8,
                best: s("best"),
                expected: v["expected"].as_f64().unwrap(),
                runner_up: v["runner_up"].as_str().map(|_| s("runner_up")),
                gap: v["gap"].as_f64(),
                visit_probability: v["visit_probability"].as_f64(),
                faced_probability: v["faced_probability"].as_f64(),
            }
        })
        .collect();
    assert_eq!(rows.len(), 756);
    // Five of a kind with the Yahtzee box at 50 earns the 100 bonus on top of the box.
    let sixes = rows
        .iter()
        .find(|r| r.dice == "66666" && r.rolls_left == 0)
        .unwrap();
    assert_eq!(sixes.best, "sixes");
    assert_rows_match_advise(RuleSet::YAHTZEE, Order::Any, &card, &rows);
}

fn csv_lines(o: &std::process::Output) -> Vec<Vec<String>> {
    assert!(o.status.success(), "{}", stderr(o));
    stdout(o)
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn card_csv_has_the_documented_columns_and_one_row_per_decision() {
    let o = run(RuleSet::YAHTZEE, Order::Any, &["export"]);
    let lines = csv_lines(&o);
    assert_eq!(lines[0].join(","), DecisionRow::COLUMNS.join(","));
    assert_eq!(lines.len(), 1 + 252 * 3);
    // Rolls left 2, 1, 0, the rolls ascending within each.
    assert_eq!(lines[1][3], "11111");
    assert_eq!(lines[1][4], "2");
    assert_eq!(lines[253][4], "1");
    assert_eq!(lines[756][3], "66666");
    assert_eq!(lines[756][4], "0");
    // Every CSV row agrees with the JSON lines export of the same card.
    let j = run(
        RuleSet::YAHTZEE,
        Order::Any,
        &["export", "--format", "jsonl"],
    );
    assert!(j.status.success());
    for (line, json) in lines[1..].iter().zip(jsonl_rows(&stdout(&j))) {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(line[3], v["dice"].as_str().unwrap());
        assert_eq!(line[5], v["best"].as_str().unwrap());
        assert_eq!(
            line[6].parse::<f64>().unwrap(),
            v["expected"].as_f64().unwrap()
        );
        assert_eq!(line[7], v["runner_up"].as_str().unwrap_or(""));
    }
}

#[test]
fn min_gap_and_rolls_left_select_decisions() {
    let all = csv_lines(&run(RuleSet::YAHTZEE, Order::Any, &["export"]));
    let gap = |l: &Vec<String>| l[8].parse::<f64>().ok();
    let expected: Vec<&Vec<String>> = all[1..]
        .iter()
        .filter(|l| l[4] == "1" && gap(l).is_some_and(|g| g >= 2.0))
        .collect();
    let some = csv_lines(&run(
        RuleSet::YAHTZEE,
        Order::Any,
        &["export", "--rolls-left", "1", "--min-gap", "2"],
    ));
    assert!(!expected.is_empty() && expected.len() < 252);
    assert_eq!(some.len() - 1, expected.len());
    for (a, b) in some[1..].iter().zip(expected) {
        assert_eq!(a, b);
    }
    let one = csv_lines(&run(
        RuleSet::YAHTZEE,
        Order::Any,
        &["export", "--rolls-left", "0"],
    ));
    assert_eq!(one.len(), 1 + 252);
    assert!(one[1..].iter().all(|l| l[4] == "0"));
}

#[test]
fn yacht_full_policy_has_a_row_per_state_roll_and_rolls_left() {
    let dir = temp_dir();
    let path = dir.path().join("policy.csv");
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "export",
            "--rules",
            "yacht",
            "--all-states",
            "--policy",
            "--out",
            &path_str(&path),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    // Every reachable state but the full card has 252 rolls at 3 rolls-left.
    let rules = Rules::new(RuleSet::YACHT);
    let decisions = (reachable_state_count(&rules) - 1) * 252 * 3;
    let file = std::fs::File::open(&path).unwrap();
    let mut lines = BufReader::new(file).lines();
    assert_eq!(
        lines.next().unwrap().unwrap(),
        DecisionRow::COLUMNS.join(",")
    );
    // The first state is the empty card: its rows are the card export of a new game.
    let card = csv_lines(&run(
        RuleSet::YACHT,
        Order::Any,
        &["export", "--rules", "yacht"],
    ));
    let mut count = 0u64;
    // The chances of facing the decisions of one state with one number of rolls left, summed,
    // by (filled, upper, yahtzee_50, rolls_left), with the state's visit probability.
    let mut faced: std::collections::HashMap<[String; 4], (f64, f64)> =
        std::collections::HashMap::new();
    for line in lines {
        let line = line.unwrap();
        let fields: Vec<&str> = line.split(',').collect();
        let (visit, chance) = (&fields[9], &fields[10]);
        if (count as usize) < card.len() - 1 {
            // The same decision, and the empty card's visit probability: every game starts
            // there (the card's export has none, nor the chance of facing a decision).
            let want = &card[count as usize + 1];
            assert_eq!(fields[..9], want[..9]);
            assert_eq!(want[9..], ["", ""]);
            assert_eq!(*visit, "1.0");
        }
        let key = [0, 1, 2, 4].map(|i| fields[i].to_string());
        let entry = faced.entry(key).or_insert((visit.parse().unwrap(), 0.0));
        entry.1 += chance.parse::<f64>().unwrap();
        count += 1;
    }
    assert_eq!(count, decisions);
    // The decisions of a state with one number of rolls left add up to its visit probability.
    assert_eq!(faced.len() as u64, decisions / 252);
    for (key, (visit, sum)) in &faced {
        assert!(
            (sum - visit).abs() <= 1e-12 * visit,
            "{key:?}: {sum} against {visit}"
        );
    }
    assert_eq!(count, 4095 * 756);
    // Written through a temporary name: nothing else is left in the folder.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn all_states_lists_every_reachable_state_with_its_value() {
    for set in [RuleSet::YAHTZEE, RuleSet::YACHT] {
        let rules = Rules::new(set);
        let o = run(
            set,
            Order::Any,
            &["export", "--rules", set.name(), "--all-states"],
        );
        let lines = csv_lines(&o);
        assert_eq!(
            lines[0].join(","),
            "filled,upper,yahtzee_50,turns_played,expected_remaining,visit_probability"
        );
        assert_eq!(lines.len() as u64 - 1, reachable_state_count(&rules));
        // The visit probabilities of the states of each number of turns played add up to 1.
        let mut by_turns = vec![0.0; rules.box_count() + 1];
        for l in &lines[1..] {
            by_turns[l[3].parse::<usize>().unwrap()] += l[5].parse::<f64>().unwrap();
        }
        for (turns, total) in by_turns.iter().enumerate() {
            assert!(
                (total - 1.0).abs() < 1e-9,
                "{} turns {turns}: {total}",
                set.name()
            );
        }
        let start: f64 = lines[1][4].parse().unwrap();
        assert_eq!(lines[1][..4], ["0", "0", "false", "0"]);
        assert!((start - table(set, Order::Any).expected_score()).abs() < 1e-6);
        let last = lines.last().unwrap();
        assert_eq!(last[4].parse::<f64>().unwrap(), 0.0);
    }
    let rules = Rules::new(RuleSet::YAHTZEE);
    assert_eq!(reachable_state_count(&rules), 536_448);
}

#[test]
fn opening_sheet_groups_all_252_rolls_by_pattern() {
    for (set, order) in [(RuleSet::YAHTZEE, Order::Any), (RuleSet::YACHT, Order::Any)] {
        let md = run(set, order, &["export", "--opening", "--rules", set.name()]);
        assert!(md.status.success(), "{}", stderr(&md));
        let text = stdout(&md);
        assert!(text.starts_with("# Opening cheat sheet"));
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| {
                l.starts_with("| ") && !l.starts_with("| pattern") && !l.starts_with("| ---")
            })
            .collect();
        assert_eq!(rows.len(), 252);
        let sections: usize = text
            .lines()
            .filter_map(|l| l.strip_prefix("## "))
            .map(|l| {
                let n = l.rsplit('(').next().unwrap();
                n.trim_end_matches(" rolls)").parse::<usize>().unwrap()
            })
            .sum();
        assert_eq!(sections, 252);

        // The CSV sheet agrees with the decisions of a new game's card.
        let sheet = csv_lines(&run(
            set,
            order,
            &[
                "export",
                "--opening",
                "--rules",
                set.name(),
                "--format",
                "csv",
            ],
        ));
        let card = csv_lines(&run(set, order, &["export", "--rules", set.name()]));
        assert_eq!(sheet.len(), 1 + 252);
        for row in &sheet[1..] {
            let dice: Dice = row[1].parse().unwrap();
            let r = dice.index() - FIRST_ROLL;
            let two = &card[1 + r];
            let one = &card[1 + 252 + r];
            assert_eq!((two[3].as_str(), two[4].as_str()), (row[1].as_str(), "2"));
            assert_eq!(row[3], two[5]);
            assert_eq!(row[4], two[7]);
            assert_eq!(row[6], one[5]);
        }
    }
}

#[test]
fn opening_min_gap_keeps_rolls_worth_learning() {
    let sheet = csv_lines(&run(
        RuleSet::YAHTZEE,
        Order::Any,
        &["export", "--opening", "--format", "csv", "--min-gap", "3"],
    ));
    assert!(sheet.len() > 1 && sheet.len() < 253);
    for row in &sheet[1..] {
        let g2: f64 = row[5].parse().unwrap();
        let g1: f64 = row[8].parse().unwrap();
        assert!(g2.max(g1) >= 3.0, "{row:?}");
    }
}

#[test]
fn export_rejects_bad_input() {
    let y = |args: &[&str]| run(RuleSet::YAHTZEE, Order::Any, args);
    assert_bad_input(&y(&["export", "--rolls-left", "3"]), "0, 1 or 2");
    assert_bad_input(&y(&["export", "--min-gap", "-1"]), "--min-gap");
    assert_bad_input(&y(&["export", "--min-gap", "nan"]), "--min-gap");
    assert_bad_input(&y(&["export", "--policy"]), "--all-states");
    assert_bad_input(
        &y(&["export", "--opening", "--rolls-left", "1"]),
        "--opening",
    );
    assert_bad_input(
        &y(&["export", "--all-states", "--min-gap", "1"]),
        "--policy",
    );
    assert_bad_input(&y(&["export", "--opening", "--card", "ones=3"]), "--card");
    assert_bad_input(&y(&["export", "--card", "bogus=3"]), "bogus");
    assert_bad_input(&y(&["export", "--format", "xml"]), "xml");
    assert_bad_input(
        &y(&["export", "--out", "/nonexistent-folder-5/x.csv"]),
        "does not exist",
    );
}

#[test]
#[cfg_attr(
    missing_python,
    ignore = "python3 is not on this machine (see build.rs)"
)]
fn python_example_loads_exports() {
    let dir = temp_dir();
    for (format, name) in [("csv", "card.csv"), ("jsonl", "card.jsonl")] {
        let path = dir.path().join(name);
        let o = run(
            RuleSet::YAHTZEE,
            Order::Any,
            &["export", "--format", format, "--out", &path_str(&path)],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/load_export.py");
        let p = std::process::Command::new("python3")
            .arg(script)
            .arg(&path)
            .output()
            .unwrap();
        let out = stdout(&p);
        assert!(p.status.success(), "{}", stderr(&p));
        assert!(out.contains("756 rows"), "{out}");
        // The biggest gap of a new game's turn: scoring 11111 as a Yahtzee rather than
        // keeping four ones, at 1 roll left.
        assert!(out.contains("11111"), "{out}");
    }
}

/// Every row of a card's turn for a target is what `advise --target` says of that position:
/// the same best action and chance, the same runner-up and gap in chance; and the best
/// action is the target policy's own (the keep of `TargetTurn::best_keep`, the box of
/// `TargetTurn::best_box`).
#[test]
fn target_card_rows_match_target_advice_and_the_target_policy() {
    use yahtzee_core::policy::target::{TargetTurn, advise_target};
    let mut rng = Lcg(17);
    for order in [Order::Any, Order::UpperFirst] {
        let rules = Rules::with_order(RuleSet::YACHT, order);
        let (ev, targets) = (
            table(RuleSet::YACHT, order),
            target_table(RuleSet::YACHT, order),
        );
        for (turns, target) in [(0u64, 200u32), (4, 160), (8, 150), (10, 190)] {
            let card = random_card(rules, &mut rng, turns);
            let rows =
                export::target_card_rows(ev, targets, &card, target, &Filter::default()).unwrap();
            assert_eq!(rows.len(), 252 * 3);
            let needed = i64::from(target) - i64::from(card.banked());
            let turn = TargetTurn::new(ev, targets, &card.state(), needed).unwrap();
            for row in rows.iter().step_by(5) {
                let dice: Dice = row.dice.parse().unwrap();
                let position = Position {
                    card: card.clone(),
                    dice,
                    rolls_left: row.rolls_left,
                };
                let what = format!("{order:?} card `{card}` T={target} row {row:?}");
                assert_eq!(row.needed, needed, "{what}");
                let advice = advise_target(ev, targets, &position, target).unwrap();
                let text = |a: &Action| {
                    option_text(&AdviceOption {
                        action: a.clone(),
                        expected_final: 0.0,
                        loss: 0.0,
                    })
                };
                assert_eq!(row.best, text(&advice.options[0].action), "{what}");
                assert!((row.p_reach - advice.p_reach).abs() < 1e-9, "{what}");
                match advice.options.get(1) {
                    None => assert_eq!((row.runner_up, row.gap), (None, None), "{what}"),
                    Some(second) => {
                        assert_eq!(row.runner_up, Some(text(&second.action).as_str()), "{what}");
                        assert!((row.gap.unwrap() - second.loss).abs() < 1e-9, "{what}");
                    }
                }
                // The target policy's own choice.
                let policy = if row.rolls_left == 0 {
                    rules.boxes()[turn.best_box(&dice).unwrap().0.index]
                        .name()
                        .to_string()
                } else {
                    let keep = turn.best_keep(row.rolls_left, &dice);
                    if keep.len() == 5 {
                        rules.boxes()[turn.best_box(&dice).unwrap().0.index]
                            .name()
                            .to_string()
                    } else if keep.is_empty() {
                        "-".to_string()
                    } else {
                        keep.faces().iter().map(u8::to_string).collect()
                    }
                };
                assert_eq!(row.best, policy, "{what}");
            }
        }
    }
}

/// A target already reached (0) makes every decision the expected-score decision: the same
/// best action and runner-up in every row as the plain export of the card.
#[test]
fn target_export_of_a_reached_target_is_the_expected_score_export() {
    target_table(RuleSet::YACHT, Order::Any);
    let card = "ones=3,sixes=24,choice=22";
    let plain = csv_lines(&run(
        RuleSet::YACHT,
        Order::Any,
        &["export", "--rules", "yacht", "--card", card],
    ));
    let reached = csv_lines(&run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "export", "--rules", "yacht", "--card", card, "--target", "0",
        ],
    ));
    assert_eq!(plain.len(), 757);
    assert_eq!(reached.len(), 757);
    let col = |rows: &[Vec<String>], name: &str| {
        let i = rows[0].iter().position(|c| c == name).unwrap();
        rows[1..].iter().map(|r| r[i].clone()).collect::<Vec<_>>()
    };
    for name in ["dice", "rolls_left", "best", "runner_up", "expected"] {
        assert_eq!(col(&plain, name), col(&reached, name), "{name}");
    }
    assert!(
        col(&reached, "p_reach")
            .iter()
            .all(|p| p.parse::<f64>().unwrap() == 1.0)
    );
    assert!(col(&reached, "needed").iter().all(|n| n == "-49"));
}

#[test]
fn target_export_writes_every_format_with_the_documented_columns() {
    target_table(RuleSet::YACHT, Order::Any);
    let args = [
        "export", "--rules", "yacht", "--card", "ones=2", "--target", "180",
    ];
    let csv = csv_lines(&run(RuleSet::YACHT, Order::Any, &args));
    assert_eq!(
        csv[0].join(","),
        export::TargetDecisionRow::COLUMNS.join(",")
    );
    assert_eq!(
        csv[0].join(","),
        "filled,upper,yahtzee_50,needed,dice,rolls_left,best,p_reach,expected,runner_up,gap"
    );
    assert_eq!(csv.len(), 757);
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[&args[..], &["--format", "jsonl", "--rolls-left", "1"]].concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<serde_json::Value> = jsonl_rows(&stdout(&o))
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 252);
    for r in &rows {
        assert_eq!(r["rolls_left"], 1);
        assert_eq!(r["needed"], 178);
        let p = r["p_reach"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&p));
        assert!(r["gap"].is_null() || r["gap"].as_f64().unwrap() >= 0.0);
    }
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[&args[..], &["--format", "markdown", "--min-gap", "0.05"]].concat(),
    );
    let md = stdout(&o);
    assert!(
        md.starts_with("# Strategy for one turn playing for 180: yacht"),
        "{md}"
    );
    assert!(
        md.contains("178 needed for 180") && md.contains("| P(reach) |"),
        "{md}"
    );
    assert!(md.contains("gap of at least 0.05 in chance"), "{md}");
}

#[test]
fn target_export_refuses_other_scopes_and_gaps_out_of_range() {
    for (extra, needle) in [
        (
            &["--opening"][..],
            "'--target <T>' cannot be used with '--opening'",
        ),
        (
            &["--all-states"][..],
            "'--target <T>' cannot be used with '--all-states'",
        ),
        (
            &["--min-gap", "3"][..],
            "--min-gap with --target is a gap in chance, from 0 to 1, not 3",
        ),
    ] {
        let o = run(
            RuleSet::YACHT,
            Order::Any,
            &[
                &["export", "--rules", "yacht", "--target", "150"][..],
                extra,
            ]
            .concat(),
        );
        assert_bad_input(&o, needle);
    }
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["export", "--rules", "yacht", "--target", "100001"],
    );
    assert_bad_input(&o, "100001");
}

/// The chance of facing each decision of the full policy, against a naive count: every
/// ordered throw of the dice enumerated (no lattice: the throws of `brute.rs`), the policy's action read from the row
/// (a keep re-rolls the other dice, a box holds the five dice through the rolls left), on
/// states of Yacht. With a visit probability of 1 the column is the chance within the turn.
#[test]
fn faced_probability_is_the_chance_of_the_turn_reaching_the_decision() {
    use std::collections::HashMap;
    use yahtzee_core::game::state::{State, reachable_states};
    let table = table(RuleSet::YACHT, Order::Any);
    let rules = *table.rules();
    // Every ordered throw of `n` dice as sorted faces, with its count: the naive solver's.
    let throws = |n: u32| -> Vec<(Vec<u8>, f64)> {
        let all = f64::from(6u32.pow(n));
        (crate::brute::throws(n).into_iter())
            .map(|(faces, count)| (faces, f64::from(count) / all))
            .collect()
    };
    let text = |faces: &[u8]| -> String { faces.iter().map(|f| char::from(b'0' + f)).collect() };
    let states: Vec<State> = reachable_states(&rules)
        .filter(|s| s.filled != rules.full_mask())
        .step_by(800)
        .collect();
    assert!(states.len() >= 5);
    for state in states {
        let mut rows = Vec::new();
        export::state_rows(table, &state, 0.0, Some(1.0), &Filter::default(), &mut rows);
        let row = |dice: &str, rolls_left: u8| {
            rows.iter()
                .find(|r| r.dice == dice && r.rolls_left == rolls_left)
                .unwrap()
        };
        // The chance of each sorted hand with 2 rolls left: the opening throw.
        let mut at: HashMap<String, f64> = HashMap::new();
        for (hand, p) in throws(5) {
            *at.entry(text(&hand)).or_default() += p;
        }
        for rolls_left in (0..=2u8).rev() {
            for (dice, p) in &at {
                let got = row(dice, rolls_left).faced_probability.unwrap();
                assert!(
                    (got - p).abs() < 1e-14,
                    "{state:?} {dice} {rolls_left}: {got} against {p}"
                );
            }
            // Every roll the turn never shows there faces with chance 0.
            let reached: f64 = rows
                .iter()
                .filter(|r| r.rolls_left == rolls_left && !at.contains_key(r.dice))
                .map(|r| r.faced_probability.unwrap())
                .sum();
            assert_eq!(reached, 0.0);
            if rolls_left == 0 {
                break;
            }
            let mut next: HashMap<String, f64> = HashMap::new();
            for (dice, p) in &at {
                let best = row(dice, rolls_left).best;
                let kept: Vec<u8> = if best == "-" {
                    Vec::new()
                } else if best.bytes().all(|b| b.is_ascii_digit()) {
                    best.bytes().map(|b| b - b'0').collect()
                } else {
                    // A box: stop, the five dice held.
                    dice.bytes().map(|b| b - b'0').collect()
                };
                for (thrown, q) in throws(5 - kept.len() as u32) {
                    let mut hand = [kept.clone(), thrown].concat();
                    hand.sort_unstable();
                    *next.entry(text(&hand)).or_default() += p * q;
                }
            }
            at = next;
        }
    }
}
