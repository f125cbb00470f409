//! `yahtzee play` and `yahtzee review`: bot games, a scripted game with chosen mistakes, bad
//! records and bad flags.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use yahtzee_core::game::dice::Dice;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::ScoreCard;
use yahtzee_core::policy::expected::{Position, advise};

use crate::util::*;

fn play(set: &'static RuleSet, order: Order, args: &[&str], input: &str) -> Output {
    table(set, order);
    let mut all = vec!["play"];
    all.extend_from_slice(args);
    run_with_input(table_dir(), &all, input)
}

/// A recorded game of `yahtzee play`, the set-up most of these tests share: the rules go in
/// as `--rules` (and `--upper-first`), the seats as `--players`, the record as `--record`.
struct Game {
    set: &'static RuleSet,
    order: Order,
    args: Vec<String>,
}

impl Game {
    /// A game under `set` and `order` for `players` (as `--players` takes them), recorded at
    /// `record`.
    fn new(set: &'static RuleSet, order: Order, players: &str, record: &Path) -> Self {
        let mut args = vec!["--rules", set.name()];
        if order == Order::UpperFirst {
            args.push("--upper-first");
        }
        let record = path_str(record);
        args.extend(["--players", players, "--record", &record]);
        Game {
            set,
            order,
            args: args.into_iter().map(String::from).collect(),
        }
    }

    /// Dice rolled from `seed`.
    fn seed(self, seed: &str) -> Self {
        self.flags(&["--seed", seed])
    }

    /// More flags, as typed.
    fn flags(mut self, flags: &[&str]) -> Self {
        self.args.extend(flags.iter().map(|f| f.to_string()));
        self
    }

    /// Plays the game with `input` (any bytes) typed by the people at the table: its output,
    /// the game ended without error (an error fails the test with its stderr).
    fn play(self, input: impl AsRef<[u8]>) -> Output {
        table(self.set, self.order);
        let mut args = vec!["play"];
        args.extend(self.args.iter().map(String::as_str));
        let o = run_bytes(table_dir(), &args, input.as_ref());
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        o
    }
}

#[test]
fn bot_games_review_at_zero_loss() {
    let dir = temp_dir();
    for (set, order, players, seed) in [
        (RuleSet::YAHTZEE, Order::Any, "bot,bot2", "11"),
        (RuleSet::YACHT, Order::UpperFirst, "bot", "5"),
        (RuleSet::YAHTZEE_FREE_JOKER, Order::Any, "bot", "8"),
    ] {
        let record = dir.path().join(format!("{}-{seed}.jsonl", set.name()));
        let o = Game::new(set, order, players, &record).seed(seed).play("");
        let events = record_events(&record);
        let end = events.last().unwrap();
        assert_eq!(end["type"], "end");
        assert_eq!(end["complete"], true);
        let r = review_json(set, order, &record, &[]);
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
        Game::new(RuleSet::YAHTZEE, Order::Any, "ann,bot", &record)
            .seed("2024")
            .play("roll\nroll\n");
        let mut events = record_events(&record);
        events.remove(0); // the header holds the start time
        events
    };
    let a = game("a.jsonl");
    assert_eq!(a, game("b.jsonl"));
    // The input ended during ann's first turn: the record says so.
    let end = a.last().unwrap();
    assert_eq!(end["complete"], false);
    let r = review_json(
        RuleSet::YAHTZEE,
        Order::Any,
        &dir.path().join("a.jsonl"),
        &[],
    );
    assert_eq!(r["complete"], false);
}

#[test]
fn refusals_name_the_rule_and_quit_saves_the_game() {
    let dir = temp_dir();
    let record = dir.path().join("uf.jsonl");
    let o = Game::new(RuleSet::YACHT, Order::UpperFirst, "ann", &record)
        .seed("1")
        .play("s choice\ns sevens\nhint\nquit\n");
    let out = stdout(&o);
    assert!(
        out.contains("under the upper-first rule the upper boxes come first: choice waits"),
        "{out}"
    );
    assert!(out.contains("unknown box `sevens`"), "{out}");
    assert!(out.contains("expected final"), "{out}");
    let events = record_events(&record);
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
    let o = Game::new(RuleSet::YAHTZEE, Order::Any, "ann", &record)
        .flags(&["--manual-dice"])
        .play(SCRIPT);
    let out = stdout(&o);
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

    let r = review_json(RuleSet::YAHTZEE, Order::Any, &record, &[]);
    assert_eq!(r["complete"], true);
    let decisions = r["decisions"].as_array().unwrap();
    let first = &decisions[0];
    assert_eq!(first["dice"], serde_json::json!([1, 3, 3, 5, 6]));
    assert_eq!(first["rolls_left"], 2);
    assert_eq!(first["choice"], "keep 6");
    assert_eq!(first["best"], "keep 3 3");

    // The loss of `keep 6` is exactly what `yahtzee advise` says for that option.
    let a = run(
        RuleSet::YAHTZEE,
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
    let rules = Rules::new(RuleSet::YAHTZEE);
    let t = table(RuleSet::YAHTZEE, Order::Any);
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
        RuleSet::YAHTZEE,
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
    Game::new(RuleSet::YACHT, Order::Any, "bot", &record)
        .seed("1")
        .play("");
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
        let o = run(RuleSet::YACHT, Order::Any, &["review", &path_str(&path)]);
        assert_bad_input(&o, &needle);
    }
}

#[test]
fn bad_flags_fail_before_the_game() {
    let dir = temp_dir();
    let existing = dir.path().join("taken.jsonl");
    std::fs::write(&existing, "keep me\n").unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["--players", "ann,ann"], "named twice"),
        (&["--players", "ann,,bob"], "empty player name"),
        (&["--coach-threshold", "-1"], "--coach-threshold"),
        (
            &["--players", "ann,ANN"],
            "--players: player `ANN` is named twice",
        ),
        (&["--record", &path_str(&existing)], "never overwritten"),
    ];
    for (args, needle) in cases {
        let o = play(RuleSet::YAHTZEE, Order::Any, args, "");
        assert_bad_input(&o, needle);
    }
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me\n");
}

/// A bot game of `rules` with `seed`, recorded at `record`; its stdout.
fn bot_game(set: &'static RuleSet, seed: &str, record: &Path) -> String {
    let o = Game::new(set, Order::Any, "bot", record)
        .seed(seed)
        .play("");
    stdout(&o)
}

#[test]
fn bot_turn_shows_the_dice_it_scores() {
    // A bot's last roll of a turn was not shown: it scored dice nobody saw.
    let dir = temp_dir();
    let record = dir.path().join("bot.jsonl");
    let out = bot_game(RuleSet::YAHTZEE, "3", &record);
    let shown: Vec<String> = out
        .lines()
        .filter_map(|l| l.strip_prefix("bot rolled "))
        .map(|l| l.split("   (").next().unwrap().to_string())
        .collect();
    let faces = |v: &Value| {
        v.as_array()
            .unwrap()
            .iter()
            .map(|f| f.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let events = record_events(&record);
    let rolled: Vec<String> = events
        .iter()
        .filter(|e| e["type"] == "roll")
        .map(|e| faces(&e["dice"]))
        .collect();
    assert_eq!(shown, rolled);
    // Every score follows the dice it scores on screen.
    let mut last_roll = String::new();
    let mut scores = events.iter().filter(|e| e["type"] == "score");
    for line in out.lines() {
        if let Some(d) = line.strip_prefix("bot rolled ") {
            last_roll = d.split("   (").next().unwrap().to_string();
        }
        if line.starts_with("bot scores ") {
            let score = scores.next().unwrap();
            let roll = events
                .iter()
                .take_while(|e| *e != score)
                .filter(|e| e["type"] == "roll")
                .last()
                .unwrap();
            assert_eq!(last_roll, faces(&roll["dice"]), "{line}");
        }
    }
    assert!(out.contains("(no rolls left)"), "{out}");
}

#[test]
fn hint_all_shows_every_option_and_hint_says_how() {
    // `hint` showed 10 options and no way to see the others.
    let dir = temp_dir();
    let record = dir.path().join("hint.jsonl");
    let o = Game::new(RuleSet::YAHTZEE, Order::Any, "ann", &record)
        .seed("42")
        .play("hint\nhint all\nquit\n");
    let out = stdout(&o);
    // Seed 42 rolls 4 4 5 1 3 first (see dice::tests::seed_42_rolls_these_dice).
    assert!(
        out.contains("ann rolled 1 3 4 4 5   (2 rolls left)"),
        "{out}"
    );
    let t = table(RuleSet::YAHTZEE, Order::Any);
    let options = advise(
        t,
        &Position {
            card: ScoreCard::new(Rules::new(RuleSet::YAHTZEE)),
            dice: "13445".parse().unwrap(),
            rolls_left: 2,
        },
    )
    .unwrap()
    .options;
    assert!(options.len() > 10);
    let blocks: Vec<Vec<&str>> = out
        .split("rank  option")
        .skip(1)
        .map(|b| {
            b.lines()
                .skip(1)
                .take_while(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
                .collect()
        })
        .collect();
    assert_eq!(blocks.len(), 2, "{out}");
    assert_eq!(blocks[0].len(), 10);
    assert!(
        out.contains(&format!(
            "... {} more (`hint all` shows every option)",
            options.len() - 10
        )),
        "{out}"
    );
    assert_eq!(blocks[1].len(), options.len());
    for (row, option) in blocks[1].iter().zip(&options) {
        assert!(row.contains(&option.to_string()), "{row} vs {option}");
    }
}

#[test]
fn second_game_in_the_same_second_gets_its_own_default_record() {
    // The default record name held only the second the game started: a second game in the
    // same second found the name taken and failed.
    let dir = temp_dir();
    let mut checked = false;
    for _attempt in 0..5 {
        let stamp = yahtzee_core::play::record::now_utc().1;
        let first = dir.path().join(format!("yahtzee-game-{stamp}.jsonl"));
        if first.exists() {
            continue;
        }
        std::fs::write(&first, "the first game of this second\n").unwrap();
        let o = run_in(
            dir.path(),
            &[
                "play",
                "--players",
                "bot",
                "--seed",
                "1",
                "--rules",
                "yacht",
            ],
            b"",
        );
        table(RuleSet::YACHT, Order::Any);
        assert!(o.status.success(), "{}", stderr(&o));
        let second = dir.path().join(format!("yahtzee-game-{stamp}-2.jsonl"));
        if !second.exists() {
            // The clock passed to the next second before the game started: try again.
            continue;
        }
        assert_eq!(
            std::fs::read_to_string(&first).unwrap(),
            "the first game of this second\n"
        );
        let saved = record_events(&second);
        assert_eq!(saved.last().unwrap()["complete"], true);
        assert!(stdout(&o).contains(&format!("yahtzee-game-{stamp}-2.jsonl")));
        checked = true;
        break;
    }
    assert!(checked, "no attempt stayed within one second");
}

/// Runs a command printed by `yahtzee` (starting with `yahtzee `) through the shell, as a
/// person pasting it would, with the test binary and tables.
fn run_printed(command: &str, cwd: &Path) -> Output {
    let rest = command
        .strip_prefix("yahtzee ")
        .unwrap_or_else(|| panic!("not a yahtzee command: {command}"));
    Command::new("sh")
        .arg("-c")
        .arg(format!("\"$YAHTZEE_BIN\" {rest}"))
        .env("YAHTZEE_BIN", env!("CARGO_BIN_EXE_yahtzee"))
        .env("YAHTZEE_TABLE_DIR", table_dir())
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .expect("sh runs")
}

/// The text between backticks after `after` in `text`.
fn quoted_after<'a>(text: &'a str, after: &str) -> &'a str {
    let start = text
        .find(after)
        .unwrap_or_else(|| panic!("`{after}` not in: {text}"))
        + after.len();
    let rest = &text[start..];
    let open = rest.find('`').expect("an opening backtick") + 1;
    let close = rest[open..].find('`').expect("a closing backtick");
    &rest[open..open + close]
}

#[test]
fn review_command_printed_by_play_runs_as_printed() {
    let dir = temp_dir();
    let record = dir.path().join("ann's game 1.jsonl");
    table(RuleSet::YACHT, Order::Any);
    let out = bot_game(RuleSet::YACHT, "4", &record);
    let command = quoted_after(&out, "review it with");
    let o = run_printed(command, dir.path());
    assert!(o.status.success(), "{command}: {}", stderr(&o));
    assert!(stdout(&o).contains("complete game"), "{}", stdout(&o));
}

#[test]
fn record_hints_name_flags_that_work() {
    let dir = temp_dir();
    let taken = dir.path().join("taken.jsonl");
    std::fs::write(&taken, "keep me\n").unwrap();
    let args = |record: &Path| {
        vec![
            "play".to_string(),
            "--players".into(),
            "bot".into(),
            "--rules".into(),
            "yacht".into(),
            "--seed".into(),
            "2".into(),
            "--record".into(),
            path_str(record),
        ]
    };
    table(RuleSet::YACHT, Order::Any);
    let run_args = |a: &[String]| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        run_in(dir.path(), &a, b"")
    };
    let o = run_args(&args(&taken));
    assert_bad_input(&o, "choose another file with --record FILE");
    assert_eq!(std::fs::read_to_string(&taken).unwrap(), "keep me\n");
    // The fix it names: another file for --record.
    let o = run_args(&args(&dir.path().join("other.jsonl")));
    assert!(o.status.success(), "{}", stderr(&o));
    // A folder that does not exist: a writable place, with --record.
    let o = run_args(&args(&dir.path().join("no/such/folder.jsonl")));
    assert_bad_input(&o, "choose a writable place with --record FILE");
}

#[test]
fn review_of_a_record_of_other_rules_than_the_table_gives_a_fix_that_works() {
    // The message suggested `--rules`, which `review` does not have: the rules come from
    // the record.
    let dir = temp_dir();
    let record = dir.path().join("yacht.jsonl");
    bot_game(RuleSet::YACHT, "6", &record);
    table(RuleSet::YAHTZEE, Order::Any);
    let wrong = table_dir().join(yahtzee_core::tables::default_table_name(&Rules::new(
        RuleSet::YAHTZEE,
    )));
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["review", &path_str(&record), "--table", &path_str(&wrong)],
    );
    assert_bad_input(&o, "holds the table of yahtzee, not of yacht");
    let err = stderr(&o);
    assert!(
        !err.contains("--rules RULES") && !err.contains("matching --rules"),
        "{err}"
    );
    // Its first fix: give --table a path where no file exists yet, to build it there.
    assert!(
        err.contains("give --table a path where no file exists yet"),
        "{err}"
    );
    let built = dir.path().join("yacht.table");
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["review", &path_str(&record), "--table", &path_str(&built)],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(built.exists());
    // Its second: leave --table out.
    let o = run(RuleSet::YACHT, Order::Any, &["review", &path_str(&record)]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn review_of_a_record_cut_mid_line_warns_and_reviews_the_lines_before() {
    // A game whose record write was cut (a full disk, a killed process) could not be
    // reviewed at all: the cut line refused the whole record.
    let dir = temp_dir();
    let whole = dir.path().join("whole.jsonl");
    bot_game(RuleSet::YACHT, "7", &whole);
    let text = std::fs::read_to_string(&whole).unwrap();
    let kept: Vec<&str> = text.lines().take(30).collect();
    let cut_line = text.lines().nth(30).unwrap();
    let cut = format!("{}\n{}", kept.join("\n"), &cut_line[..cut_line.len() / 2]);
    let record = dir.path().join("cut.jsonl");
    std::fs::write(&record, cut).unwrap();
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["review", &path_str(&record), "--json"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("ends early: line 31 is cut off") && err.contains("the 30 lines before it"),
        "{err}"
    );
    let r: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(r["cut_off"], 31);
    assert_eq!(r["complete"], false);
    let decisions = r["decisions"].as_array().unwrap();
    assert!(!decisions.is_empty());
    assert!(decisions.iter().all(|d| d["line"].as_u64().unwrap() <= 30));
    // The same record with a line broken in the middle is refused, with line and reason.
    let mut broken: Vec<&str> = text.lines().collect();
    let half = &cut_line[..cut_line.len() / 2];
    broken[20] = half;
    let record = dir.path().join("broken.jsonl");
    std::fs::write(&record, broken.join("\n")).unwrap();
    let o = run(RuleSet::YACHT, Order::Any, &["review", &path_str(&record)]);
    assert_bad_input(&o, "line 21: not a valid event (EOF while parsing");
}

#[cfg(target_os = "linux")]
#[test]
fn record_write_failure_names_the_file() {
    // A failed write of the record said only "No space left on device", not which file.
    use std::sync::Arc;
    use yahtzee_core::play::host::{DiceSource, PlayOptions, parse_seats};
    use yahtzee_core::play::record::RecordWriter;
    use yahtzee_core::tables::set::TableSet;
    let rules = Rules::new(RuleSet::YACHT);
    let t = table_set(RuleSet::YACHT, Order::Any).ev().unwrap();
    let options = PlayOptions {
        rules,
        seats: parse_seats("bot").unwrap(),
        dice: DiceSource::Seeded(1),
        coach_threshold: Some(0.2),
        coach_target: None,
        coach_win: false,
    };
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let mut record = RecordWriter::new("/dev/full", full);
    let mut out = Vec::new();
    let e = yahtzee_core::play::session::play(
        Arc::new(TableSet::of_expected_score(Arc::clone(t))),
        &options,
        &b""[..],
        &mut out,
        &mut record,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("cannot write the game record /dev/full: No space left on device"),
        "{e}"
    );
}

#[test]
fn coach_threshold_off_silences_the_coach() {
    let dir = temp_dir();
    let game = |threshold: &str| {
        let record = dir.path().join(format!("coach-{threshold}.jsonl"));
        let o = Game::new(RuleSet::YAHTZEE, Order::Any, "ann", &record)
            .flags(&["--manual-dice", "--coach-threshold", threshold])
            .play(SCRIPT);
        (stdout(&o), record_events(&record))
    };
    let (coached, _) = game("0.2");
    assert!(coached.contains("coach:"), "{coached}");
    let (silent, events) = game("off");
    assert!(!silent.contains("coach:"), "{silent}");
    assert_eq!(events[0]["coach_threshold"], Value::Null);
    let (_, events) = game("OFF");
    assert_eq!(events[0]["coach_threshold"], Value::Null);
    let help = run(RuleSet::YAHTZEE, Order::Any, &["play", "--help"]);
    assert!(
        stdout(&help).contains("`off` silences the coach"),
        "{}",
        stdout(&help)
    );
    for bad in ["-1", "of", "nan", "inf"] {
        let o = play(
            RuleSet::YAHTZEE,
            Order::Any,
            &["--coach-threshold", bad],
            "",
        );
        assert_bad_input(&o, "--coach-threshold must be `off` or a number of points");
    }
}

#[test]
fn player_called_you_is_told_you_score_not_you_scores() {
    let dir = temp_dir();
    let record = dir.path().join("you.jsonl");
    let o = Game::new(RuleSet::YAHTZEE, Order::Any, "you,bot", &record)
        .seed("5")
        .play("stop\ns chance\nquit\n");
    let out = stdout(&o);
    assert!(out.contains("you score chance for"), "{out}");
    assert!(out.contains("bot scores "), "{out}");
    assert!(
        out.contains("you roll ") && out.contains("bot rolls "),
        "{out}"
    );
    for wrong in ["you scores", "you rolls", "you wins", "you keeps", "you's"] {
        assert!(!out.contains(wrong), "{wrong}: {out}");
    }
    // The default player is `you`.
    let record = dir.path().join("default.jsonl");
    let o = play(
        RuleSet::YAHTZEE,
        Order::Any,
        &["--seed", "5", "--record", &path_str(&record)],
        "stop\ns chance\nquit\n",
    );
    assert!(
        stdout(&o).contains("you score chance for"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn input_that_is_not_utf8_is_refused_and_the_game_goes_on() {
    // A line of Latin-1 (or any non-UTF-8 bytes) ended the game with an I/O error.
    let dir = temp_dir();
    let record = dir.path().join("g.jsonl");
    let o = Game::new(RuleSet::YACHT, Order::Any, "ann", &record)
        .seed("1")
        .play(b"s caf\xe9\nstop\ns choice\nquit\n");
    let out = stdout(&o);
    assert!(out.contains("is not UTF-8 text: type it again"), "{out}");
    assert!(out.contains("ann scores choice for"), "{out}");
}

#[test]
fn no_rolls_left_hint_names_a_box_that_can_be_scored() {
    // The hint was always `score chance`, even with chance filled.
    let dir = temp_dir();
    let game = |name: &str, input: &str| {
        let record = dir.path().join(name);
        let o = Game::new(RuleSet::YAHTZEE, Order::Any, "ann", &record)
            .seed("9")
            .play(input);
        stdout(&o)
    };
    // Turn 1 fills chance; turn 2 asks for a keep with no roll left.
    let out = game("a.jsonl", "stop\ns chance\nstop\nkeep\nquit\n");
    let hint = out
        .lines()
        .find(|l| l.contains("no rolls left: score a box"))
        .unwrap_or_else(|| panic!("{out}"));
    let command = quoted_after(hint, "e.g.");
    assert_ne!(command, "score chance");
    let out = game(
        "b.jsonl",
        &format!("stop\ns chance\nstop\n{command}\nquit\n"),
    );
    let scored = command.trim_start_matches("score ");
    assert!(out.contains(&format!("ann scores {scored} for")), "{out}");
}

#[test]
fn every_command_the_game_suggests_is_a_command() {
    // The unknown-command and empty-line messages name `keep 3 3`, `pos 1 2`, `roll`, `stop`,
    // `score fh`, `hint` and `help`: each is taken as a command.
    let dir = temp_dir();
    let record = dir.path().join("commands.jsonl");
    let typed =
        "dance\n\nhelp\nhint\npos 1 2\nroll\nscore fh\nkeep 3 3\nstop\nscore chance\nquit\n";
    let o = Game::new(RuleSet::YAHTZEE, Order::Any, "ann", &record)
        .seed("42")
        .play(typed);
    let out = stdout(&o);
    assert_eq!(out.matches("unknown command").count(), 1, "{out}");
    assert!(
        out.contains("try `keep 3 3`, `pos 1 2`, `roll`, `stop`, `score fh`, `hint` or `help`")
    );
    assert!(out.contains("type a command (`help` lists them)"), "{out}");
    // `help` printed the list a second time.
    assert_eq!(out.matches("commands:\n").count(), 2, "{out}");
    assert!(out.contains("rank  option"), "{out}");
    let events = record_events(&record);
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    // pos 1 2, roll, score fh; then keep 3 3 (or its refusal), stop, score chance.
    assert_eq!(events[3]["keep"], serde_json::json!([1, 3]), "{kinds:?}");
    assert_eq!(events[5]["keep"], serde_json::json!([]), "{kinds:?}");
    assert_eq!(events[7]["box"], "full-house", "{kinds:?}");
    assert!(
        events.iter().any(|e| e["box"] == "chance"),
        "{kinds:?}: {out}"
    );
}

#[test]
fn a_score_with_rolls_left_is_fixed_as_the_message_says() {
    // The refusal says to keep all five dice (a `keep` line) first: doing so is accepted.
    let dir = temp_dir();
    let record = dir.path().join("good.jsonl");
    bot_game(RuleSet::YACHT, "1", &record);
    let text = std::fs::read_to_string(&record).unwrap();
    let good: Vec<&str> = text.lines().collect();
    // The record up to the bot's first roll, then a score of those dice with two rolls
    // left (the seed's later dice follow the whole first turn, so the record ends there).
    let first_roll = good.iter().position(|l| l.contains("\"roll\"")).unwrap();
    let score = good.iter().position(|l| l.contains("\"score\"")).unwrap();
    let roll: Value = serde_json::from_str(good[first_roll]).unwrap();
    let scored: Value = serde_json::from_str(good[score]).unwrap();
    let dice = roll["dice"].clone();
    let rules = Rules::new(RuleSet::YACHT);
    let index = rules.box_by_name(scored["box"].as_str().unwrap()).unwrap();
    let faces: Vec<u8> = dice
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_u64().unwrap() as u8)
        .collect();
    let want = rules.score(index, &Dice::from_faces(&faces).unwrap(), 0);
    let score_line = format!(
        r#"{{"type":"score","player":"bot","turn":1,"box":"{}","points":{want},"bonus":0}}"#,
        scored["box"].as_str().unwrap()
    );
    let head: Vec<String> = good[..=first_roll].iter().map(|l| l.to_string()).collect();
    let bad = [head.clone(), vec![score_line.clone()]].concat();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, bad.join("\n")).unwrap();
    let o = run(RuleSet::YACHT, Order::Any, &["review", &path_str(&path)]);
    assert_bad_input(
        &o,
        &format!(
            "line {}: rolls are left: keep all the dice (a `keep` line) to stop first",
            first_roll + 2
        ),
    );
    let keep = format!(r#"{{"type":"keep","player":"bot","turn":1,"keep":{dice},"rolls_left":2}}"#);
    let fixed = [head, vec![keep, score_line]].concat();
    std::fs::write(&path, fixed.join("\n")).unwrap();
    let r = review_json(RuleSet::YACHT, Order::Any, &path, &[]);
    assert_eq!(r["decisions"].as_array().unwrap().len(), 2);
}

#[test]
fn score_with_rolls_left_is_recorded_and_reviewed_as_a_stop_then_the_box() {
    // The one keep-or-score convention: `score chance` with rolls left is the shorthand for
    // `stop` then `score chance`. Both make the same record: the keep of all five dice with
    // the rolls left, then the box; the review prices the stop and the box apart.
    let dir = temp_dir();
    let record_of = |name: &str, input: &str| -> Vec<Value> {
        let record = dir.path().join(name);
        let o = Game::new(RuleSet::YAHTZEE, Order::Any, "you", &record)
            .seed("11")
            .play(input);
        assert!(
            stdout(&o).contains("you score chance for"),
            "{}",
            stdout(&o)
        );
        let mut events = record_events(&record);
        // The header's start time is the only difference two games of one seed may have.
        events[0]["started"] = Value::Null;
        events
    };
    let shorthand = record_of("shorthand.jsonl", "s chance\nquit\n");
    let stop = record_of("stop.jsonl", "stop\ns chance\nquit\n");
    assert_eq!(shorthand, stop);
    let roll = shorthand.iter().position(|e| e["type"] == "roll").unwrap();
    assert_eq!(shorthand[roll]["rolls_left"], 2);
    let keep = &shorthand[roll + 1];
    assert_eq!(keep["type"], "keep");
    assert_eq!(keep["keep"], shorthand[roll]["dice"]);
    assert_eq!(keep["rolls_left"], 2);
    assert_eq!(shorthand[roll + 2]["type"], "score");
    assert_eq!(shorthand[roll + 2]["box"], "chance");

    let r = review_json(
        RuleSet::YAHTZEE,
        Order::Any,
        &dir.path().join("shorthand.jsonl"),
        &[],
    );
    let decisions = r["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 2);
    assert_eq!(
        (&decisions[0]["kind"], &decisions[0]["rolls_left"]),
        (&Value::from("keep"), &Value::from(2))
    );
    assert_eq!(decisions[0]["choice"], "stop rolling");
    assert_eq!(
        (&decisions[1]["kind"], &decisions[1]["rolls_left"]),
        (&Value::from("score"), &Value::from(0))
    );
    let choice = decisions[1]["choice"].as_str().unwrap();
    assert!(choice.starts_with("score chance for "), "{choice}");
}

/// Bots seated with a target play the target policy for it: their games review at zero loss
/// when priced for their own target (the optimal bot's do in points), several target bots
/// sit at one table, and the record says who played for what (format 2).
#[test]
fn target_bot_games_review_at_zero_loss_for_their_target() {
    target_table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    for seed in ["3", "21"] {
        let record = dir.path().join(format!("targets-{seed}.jsonl"));
        let players = "bot:target=190,bot2:target=150,bot3";
        let o = Game::new(RuleSet::YACHT, Order::Any, players, &record)
            .seed(seed)
            .play("");
        let out = stdout(&o);
        assert!(
            out.contains("players bot (playing for 190), bot2 (playing for 150), bot3"),
            "{out}"
        );
        let head = &record_events(&record)[0];
        assert_eq!(head["format"], yahtzee_core::play::record::RECORD_FORMAT);
        assert_eq!(head["seats"][0]["target"], 190);
        assert_eq!(head["seats"][1]["target"], 150);
        assert!(head["seats"][2].get("target").is_none());
        assert!(head["coach_target"].is_null());
        let review =
            |target| review_json(RuleSet::YACHT, Order::Any, &record, &["--target", target]);
        for (seat, target) in [(0, "190"), (1, "150")] {
            let r = review(target);
            assert_eq!(r["objective"], "target");
            assert_eq!(r["target"].to_string(), target);
            let p = &r["players"][seat];
            assert_eq!(p["target"].to_string(), target);
            assert_eq!(p["total_loss"], 0.0, "seed {seed}: {p}");
            assert_eq!(p["by_size"]["optimal"], p["decisions"]);
        }
        let points = review("off");
        assert_eq!(points["objective"], "expected-score");
        assert_eq!(points["players"][2]["total_loss"], 0.0);
    }
}

/// A target bot plays other moves than the optimal bot on the same dice: the two records of
/// one seed part somewhere, and the target bot's review in points is not at zero loss.
#[test]
fn a_target_bot_plays_otherwise_than_the_optimal_bot() {
    target_table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    let game = |players: &str| {
        let record = dir
            .path()
            .join(format!("{}.jsonl", players.replace([':', '='], "-")));
        Game::new(RuleSet::YACHT, Order::Any, players, &record)
            .seed("9")
            .play("");
        record
    };
    let optimal = game("bot");
    let target = game("bot:target=230");
    assert_ne!(record_events(&optimal)[2..], record_events(&target)[2..]);
    let r = review_json(RuleSet::YACHT, Order::Any, &target, &[]);
    assert!(r["players"][0]["total_loss"].as_f64().unwrap() > 0.0);
}

/// With `--target T` the coach prices a person's decisions in chance of reaching T, the
/// hints rank by that chance, and the review prices the record for the coach's target by
/// default, with the losses the coach printed.
#[test]
fn coach_with_a_target_prices_in_chance_and_the_review_agrees() {
    target_table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    let record = dir.path().join("coached.jsonl");
    let rec = path_str(&record);
    let typed = "13356\nhint\nkeep 6\n1234\nstop\ns choice\n22256\nkeep 2 2 2\n11\nkeep 2 2 2 1\n3\ns twos\n";
    let o = Game::new(RuleSet::YACHT, Order::Any, "ann", &record)
        .flags(&["--manual-dice", "--target", "150", "--coach-threshold", "0"])
        .play(typed);
    let out = stdout(&o);
    assert!(
        out.contains("in chance of a final score of 150 or more"),
        "{out}"
    );
    assert!(out.contains("P(final>=150)"), "{out}");
    let head = &record_events(&record)[0];
    assert_eq!(head["coach_target"], 150);
    assert_eq!(head["coach_threshold"], 0.0);
    let r = review_json(RuleSet::YACHT, Order::Any, &record, &[]);
    assert_eq!(r["objective"], "target");
    assert_eq!(r["target"], 150);
    let decisions = r["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 6);
    let costly: Vec<&Value> = decisions
        .iter()
        .filter(|d| d["loss"].as_f64().unwrap() > 0.0)
        .collect();
    assert!(!costly.is_empty(), "{r}");
    for d in &costly {
        let loss = d["loss"].as_f64().unwrap();
        assert!(loss < 1.0);
        assert!(
            out.contains(&format!("lowers the chance of reaching 150 by {loss:.4}")),
            "{loss} not in {out}"
        );
        let (c, b) = (
            d["chosen_value"].as_f64().unwrap(),
            d["best_value"].as_f64().unwrap(),
        );
        assert!((b - c - loss).abs() < 1e-12 && (0.0..=1.0).contains(&c));
    }
    // The first decision, priced by the library as `advise --target` prices it.
    let first = &decisions[0];
    assert_eq!(first["choice"], "keep 6");
    let position = Position {
        card: ScoreCard::new(Rules::new(RuleSet::YACHT)),
        dice: "13356".parse::<Dice>().unwrap(),
        rolls_left: 2,
    };
    let advice = yahtzee_core::policy::target::advise_target(
        table(RuleSet::YACHT, Order::Any),
        target_table(RuleSet::YACHT, Order::Any),
        &position,
        150,
    )
    .unwrap();
    let keep6 = advice
        .options
        .iter()
        .find(|o| o.action.to_string() == "keep 6")
        .unwrap();
    assert!((first["loss"].as_f64().unwrap() - keep6.loss).abs() < 1e-12);
    // `--target off` prices the same record in points.
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["review", &rec, "--target", "off"],
    );
    assert!(stdout(&o).contains("decisions priced in expected points"));
}

#[test]
fn target_seats_records_and_thresholds_are_checked() {
    for (players, needle) in [
        ("ann:target=200", "seat `ann:target=200`: only a bot"),
        ("bot:target=abc", "seat `bot:target=abc`"),
        ("bot:target=100001", "from 0 to 100000"),
        ("bot:speed=3", "written bot:target=T"),
    ] {
        let o = play(
            RuleSet::YACHT,
            Order::Any,
            &["--rules", "yacht", "--players", players],
            "",
        );
        assert_bad_input(&o, needle);
    }
    let o = play(
        RuleSet::YACHT,
        Order::Any,
        &[
            "--rules",
            "yacht",
            "--target",
            "150",
            "--coach-threshold",
            "2",
        ],
        "",
    );
    assert_bad_input(
        &o,
        "--coach-threshold with --target is `off` or a chance from 0 to 1",
    );
    let dir = temp_dir();
    let head = r#"{"type":"game","format":1,"rules":"yacht","upper_first":false,"seats":[{"name":"bot","kind":"bot","target":200}],"dice":"manual","seed":null,"coach_threshold":0.2,"started":"2026-01-01T00:00:00Z"}"#;
    for (i, (text, needle)) in [
        (head.to_string(), "line 1: record format 1 has no targets"),
        (
            head.replace("\"format\":1", "\"format\":2")
                .replace("\"kind\":\"bot\"", "\"kind\":\"human\""),
            "line 1: seat `bot:target=200`: only a bot",
        ),
        (
            head.replace("\"format\":1", "\"format\":2")
                .replace(",\"target\":200", "")
                .replace(
                    "\"coach_threshold\":0.2",
                    "\"coach_threshold\":0.2,\"coach_target\":100001",
                ),
            "line 1: coach_target must be a whole number from 0 to 100000",
        ),
        (
            head.replace("\"format\":1", "\"format\":7"),
            "record format 7 is not supported: this program reads formats 1 to 6",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let path = dir.path().join(format!("t{i}.jsonl"));
        std::fs::write(&path, text + "\n").unwrap();
        let o = run(RuleSet::YACHT, Order::Any, &["review", &path_str(&path)]);
        assert_bad_input(&o, needle);
    }
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["review", "x.jsonl", "--target", "lots"],
    );
    assert_bad_input(
        &o,
        "the target must be `off` or a whole number from 0 to 100000",
    );
}
