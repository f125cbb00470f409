//! `yahtzee play` and `yahtzee review`: bot games, a scripted game with chosen mistakes, bad
//! records and bad flags.

use std::path::Path;
use std::process::Output;

use serde_json::Value;
use yahtzee::advice::{Position, advise};
use yahtzee::dice::Dice;
use yahtzee::rules::{Order, RuleSet, Rules};
use yahtzee::state::ScoreCard;

use crate::util::*;

fn play(set: RuleSet, order: Order, args: &[&str], input: &str) -> Output {
    table(set, order);
    let mut all = vec!["play"];
    all.extend_from_slice(args);
    run_with_input(table_dir(), &all, input)
}

fn review_json(set: RuleSet, order: Order, record: &Path) -> Value {
    let o = run(set, order, &["review", &path_str(record), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("review prints JSON")
}

fn lines(record: &Path) -> Vec<Value> {
    std::fs::read_to_string(record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn bot_games_review_at_zero_loss() {
    let dir = temp_dir();
    for (set, order, players, seed) in [
        (RuleSet::Yahtzee, Order::Any, "bot,bot2", "11"),
        (RuleSet::Yacht, Order::UpperFirst, "bot", "5"),
        (RuleSet::YahtzeeFreeJoker, Order::Any, "bot", "8"),
    ] {
        let record = dir.path().join(format!("{}-{seed}.jsonl", set.name()));
        let mut args = vec!["--players", players, "--seed", seed, "--record"];
        let rec = path_str(&record);
        args.push(&rec);
        args.extend(["--rules", set.name()]);
        if order == Order::UpperFirst {
            args.push("--upper-first");
        }
        let o = play(set, order, &args, "");
        assert!(o.status.success(), "{}", stderr(&o));
        let events = lines(&record);
        let end = events.last().unwrap();
        assert_eq!(end["type"], "end");
        assert_eq!(end["complete"], true);
        let r = review_json(set, order, &record);
        assert_eq!(r["complete"], true);
        let boxes = Rules::with_order(set, order).box_count();
        for (p, score) in r["players"]
            .as_array()
            .unwrap()
            .iter()
            .zip(end["scores"].as_array().unwrap())
        {
            assert_eq!(p["total_loss"], 0.0, "{p}");
            assert_eq!(p["by_size"]["optimal"], p["decisions"]);
            assert_eq!(p["score"], score["total"]);
            assert!(stdout(&o).contains(&format!("{} scores", p["player"].as_str().unwrap())));
        }
        let scored = r["decisions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"] == "score")
            .count();
        assert_eq!(scored, boxes * players.split(',').count());
    }
}

#[test]
fn a_seed_replays_the_same_game() {
    let dir = temp_dir();
    let game = |name: &str| {
        let record = dir.path().join(name);
        let o = play(
            RuleSet::Yahtzee,
            Order::Any,
            &[
                "--players",
                "ann,bot",
                "--seed",
                "2024",
                "--record",
                &path_str(&record),
            ],
            "roll\nroll\n",
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let mut events = lines(&record);
        events.remove(0); // the header holds the start time
        events
    };
    let a = game("a.jsonl");
    assert_eq!(a, game("b.jsonl"));
    // The input ended during ann's first turn: the record says so.
    let end = a.last().unwrap();
    assert_eq!(end["complete"], false);
    let r = review_json(RuleSet::Yahtzee, Order::Any, &dir.path().join("a.jsonl"));
    assert_eq!(r["complete"], false);
}

#[test]
fn refusals_name_the_rule_and_quit_saves_the_game() {
    let dir = temp_dir();
    let record = dir.path().join("uf.jsonl");
    let o = play(
        RuleSet::Yacht,
        Order::UpperFirst,
        &[
            "--rules",
            "yacht",
            "--upper-first",
            "--players",
            "ann",
            "--seed",
            "1",
            "--record",
            &path_str(&record),
        ],
        "s choice\ns sevens\nhint\nquit\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("under the upper-first rule the upper boxes come first: choice waits"),
        "{out}"
    );
    assert!(out.contains("unknown box `sevens`"), "{out}");
    assert!(out.contains("expected final"), "{out}");
    let events = lines(&record);
    assert_eq!(events.last().unwrap()["complete"], false);
    assert_eq!(events[0]["upper_first"], true);
}

/// A scripted game of one person with typed dice: errors to refuse, and chosen mistakes.
const SCRIPT: &str = "\
13356
keep 7
keep 6 6
keep 6
12347
1234
keep 1 2 3 4
5
s ls
66666
s y
22222
s 3k
s yahtzee
s 2s
11234
r
34566
stop
s ss
11122
s fh
33345
s threes
44441
s 4k
55512
s fives
66613
s sixes
44423
s fours
11145
s ones
23456
s chance
33356
s 3k
";

#[test]
fn scripted_game_reports_the_losses_of_advise() {
    let dir = temp_dir();
    let record = dir.path().join("scripted.jsonl");
    let o = play(
        RuleSet::Yahtzee,
        Order::Any,
        &[
            "--players",
            "ann",
            "--manual-dice",
            "--record",
            &path_str(&record),
        ],
        SCRIPT,
    );
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    // Every bad entry was refused with its reason, and the game went on.
    assert!(out.contains("invalid dice `7`: `7` is not a face"), "{out}");
    assert!(
        out.contains("cannot keep 6 6: the dice are 1 3 3 5 6"),
        "{out}"
    );
    assert!(
        out.contains("invalid dice `12347`: `7` is not a face"),
        "{out}"
    );
    assert!(
        out.contains("the Joker rule forbids three-of-a-kind"),
        "{out}"
    );
    assert!(out.contains("yahtzee is already filled (with 50)"), "{out}");
    // Boxes 40+50+10+30+25+9+17+15+18+12+3+20+20, upper 67 so +35, one Yahtzee bonus +100.
    assert!(out.contains("Game over: 404 points."), "{out}");

    let r = review_json(RuleSet::Yahtzee, Order::Any, &record);
    assert_eq!(r["complete"], true);
    let decisions = r["decisions"].as_array().unwrap();
    let first = &decisions[0];
    assert_eq!(first["dice"], serde_json::json!([1, 3, 3, 5, 6]));
    assert_eq!(first["rolls_left"], 2);
    assert_eq!(first["choice"], "keep 6");
    assert_eq!(first["best"], "keep 3 3");

    // The loss of `keep 6` is exactly what `yahtzee advise` says for that option.
    let a = run(
        RuleSet::Yahtzee,
        Order::Any,
        &["advise", "--dice", "13356", "--json"],
    );
    let advice: Value = serde_json::from_str(&stdout(&a)).unwrap();
    let keep6 = advice["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["keep"] == serde_json::json!([6]))
        .unwrap();
    assert_eq!(first["loss"], keep6["loss"]);
    assert!(first["loss"].as_f64().unwrap() > 0.2);

    // Every decision: the same position given to the library's advise gives the same loss.
    let rules = Rules::new(RuleSet::Yahtzee);
    let t = table(RuleSet::Yahtzee, Order::Any);
    let mut coached = 0;
    let mut total = 0.0;
    for d in decisions {
        let card = ScoreCard::parse(
            rules,
            d["card"].as_str().unwrap(),
            d["yahtzee_bonus"].as_u64().unwrap() as u32,
        )
        .unwrap();
        let faces: Vec<u8> = d["dice"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_u64().unwrap() as u8)
            .collect();
        let position = Position {
            card,
            dice: Dice::from_faces(&faces).unwrap(),
            rolls_left: d["rolls_left"].as_u64().unwrap() as u8,
        };
        let advice = advise(t, &position).unwrap();
        let loss = d["loss"].as_f64().unwrap();
        // JSON text keeps 17 significant digits; its parse can be one unit in the last place off.
        let close = |a: f64, b: f64| (a - b).abs() < 1e-10;
        assert!(close(
            d["best_value"].as_f64().unwrap(),
            advice.options[0].expected_final()
        ));
        let chosen = advice
            .options
            .iter()
            .find(|o| close(o.expected_final(), d["chosen_value"].as_f64().unwrap()))
            .unwrap_or_else(|| panic!("no option of advise has the value of {d}"));
        let want = if chosen.loss() <= 1e-9 {
            0.0
        } else {
            chosen.loss()
        };
        assert!(close(loss, want), "{loss} vs {want}: {d}");
        if loss >= 0.2 {
            coached += 1;
            assert!(
                out.contains(&format!("costs {loss:.4} points")),
                "{loss} {out}"
            );
        }
        total += loss;
    }
    // The coach spoke once per decision over the threshold, and only then.
    assert_eq!(out.matches("coach:").count(), coached);
    assert!(coached >= 2, "the script makes at least two real mistakes");
    let p = &r["players"][0];
    assert_eq!(p["decisions"].as_u64().unwrap() as usize, decisions.len());
    assert!((p["total_loss"].as_f64().unwrap() - total).abs() < 1e-9);
    assert_eq!(p["score"], 404);
    let costliest = p["costliest"].as_array().unwrap();
    assert_eq!(costliest.len(), 3);
    let mut losses: Vec<f64> = decisions
        .iter()
        .map(|d| d["loss"].as_f64().unwrap())
        .collect();
    losses.sort_by(|a, b| b.total_cmp(a));
    assert_eq!(costliest[0]["loss"].as_f64().unwrap(), losses[0]);
    assert_eq!(costliest[2]["loss"].as_f64().unwrap(), losses[2]);

    let human = run(
        RuleSet::Yahtzee,
        Order::Any,
        &["review", &path_str(&record)],
    );
    assert!(stdout(&human).contains("Costliest decisions of ann:"));
    assert!(stdout(&human).contains("keep 6"));
}

#[test]
fn bad_records_are_refused_with_the_line_and_reason() {
    let dir = temp_dir();
    let record = dir.path().join("good.jsonl");
    let o = play(
        RuleSet::Yacht,
        Order::Any,
        &[
            "--players",
            "bot",
            "--seed",
            "1",
            "--rules",
            "yacht",
            "--record",
            &path_str(&record),
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&record).unwrap();
    let good: Vec<&str> = text.lines().collect();
    let score_line = good.iter().position(|l| l.contains("\"score\"")).unwrap();
    let roll_line = good.iter().position(|l| l.contains("\"roll\"")).unwrap();
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            {
                let mut v: Vec<String> = good.iter().map(|s| s.to_string()).collect();
                v[score_line] = v[score_line].replace("\"points\":", "\"points\":1");
                v
            },
            format!("line {}: ", score_line + 1),
        ),
        (
            {
                let mut v: Vec<String> = good.iter().map(|s| s.to_string()).collect();
                v[roll_line] = "{\"type\":\"roll\",\"player\":\"bot\",\"turn\":1,\"dice\":[1,2,3,4,7],\"rolls_left\":2}".into();
                v
            },
            format!("line {}: invalid dice", roll_line + 1),
        ),
        (
            {
                let mut v: Vec<String> = good.iter().map(|s| s.to_string()).collect();
                v.insert(roll_line, v[score_line].clone());
                v
            },
            format!("line {}: no box can be filled now", roll_line + 1),
        ),
        (
            {
                // Valid dice, but not those the seed rolls: a seeded record replays exactly.
                let mut v: Vec<String> = good.iter().map(|s| s.to_string()).collect();
                let other = if v[roll_line].contains("[1,1,1,1,1]") {
                    2
                } else {
                    1
                };
                v[roll_line] = format!(
                    "{{\"type\":\"roll\",\"player\":\"bot\",\"turn\":1,\"dice\":[{other},{other},{other},{other},{other}],\"rolls_left\":2}}"
                );
                v
            },
            format!("line {}: the dice ", roll_line + 1),
        ),
        (
            vec![good[0].to_string(), "not json".to_string()],
            "line 2: not a valid event".to_string(),
        ),
        (
            vec![good[0].replace("yacht", "poker")],
            "line 1: not a game header".to_string(),
        ),
    ];
    for (i, (lines, needle)) in cases.into_iter().enumerate() {
        let path = dir.path().join(format!("bad{i}.jsonl"));
        std::fs::write(&path, lines.join("\n")).unwrap();
        let o = run(RuleSet::Yacht, Order::Any, &["review", &path_str(&path)]);
        assert_bad_input(&o, &needle);
    }
}

#[test]
fn bad_flags_fail_before_the_game() {
    let dir = temp_dir();
    let existing = dir.path().join("taken.jsonl");
    std::fs::write(&existing, "keep me\n").unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["--players", "ann,ann"], "named twice"),
        (&["--players", "ann,,bob"], "empty player name"),
        (&["--coach-threshold", "-1"], "--coach-threshold"),
        (&["--record", &path_str(&existing)], "never overwritten"),
    ];
    for (args, needle) in cases {
        let o = play(RuleSet::Yahtzee, Order::Any, args, "");
        assert_bad_input(&o, needle);
    }
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me\n");
}
