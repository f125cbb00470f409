//! Rules files (`--rules PATH`, `data/rules/`): the shipped files give the built-in rule sets'
//! golden values and the same table bytes, Yacht Dice its published value, the house-rule
//! examples their values in docs/rules-files.md, every command works on a rules file, and a
//! malformed file is one line naming the line and the field, exit 2.

use std::path::{Path, PathBuf};

use serde_json::Value;
use yahtzee_core::game::rules::file::load;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::solve::expected::SolveOptions;
use yahtzee_core::tables::container::MAGIC;
use yahtzee_core::tables::expected::StrategyTable;

use crate::util::*;

/// The shipped rules files.
fn rules_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/rules")
}

/// The text of the shipped file `name` (`examples/NAME` for an example).
fn shipped(name: &str) -> String {
    std::fs::read_to_string(rules_dir().join(format!("{name}.toml"))).expect("a shipped file")
}

/// The game of the shipped file `name` under the name `file-NAME`: a rule set of its own,
/// made from the file's text alone (not the built-in description of the same game).
fn copy_of(name: &str, order: Order) -> Rules {
    let text = shipped(name)
        .replacen(
            &format!("name = \"{name}\""),
            &format!("name = \"file-{name}\""),
            1,
        )
        .replace(
            "upper_first = false",
            &format!("upper_first = {}", order == Order::UpperFirst),
        );
    load(&text, None).expect("a valid file")
}

fn solve(rules: &Rules) -> StrategyTable {
    StrategyTable::solve(rules, SolveOptions::default(), &|_, _| {}).0
}

/// A table file's bytes after its header (the header names the rules).
fn body(bytes: &[u8]) -> &[u8] {
    let prefix = MAGIC.len() + 8;
    let size = u32::from_le_bytes(bytes[prefix - 4..prefix].try_into().unwrap()) as usize;
    &bytes[prefix + size..]
}

/// Each built-in rule set, solved from its shipped file's text: its published or recorded
/// value, and the very values and table body of the built-in description.
#[test]
fn shipped_files_give_the_golden_values_and_the_same_table_bytes() {
    let cases = [
        (RuleSet::YAHTZEE, Order::Any, 254.5877287345),
        (RuleSet::YAHTZEE_FREE_JOKER, Order::Any, 254.5896094820),
        (RuleSet::YAHTZEE_PLAIN, Order::Any, 245.8707745141),
        (RuleSet::YACHT, Order::Any, 169.7738890526),
        (RuleSet::YATZY, Order::Any, 248.4399893779),
        (RuleSet::YAHTZEE, Order::UpperFirst, 213.6881086786),
        (
            RuleSet::YAHTZEE_FREE_JOKER,
            Order::UpperFirst,
            213.6881086786,
        ),
        (RuleSet::YAHTZEE_PLAIN, Order::UpperFirst, 211.9228221761),
        (RuleSet::YACHT, Order::UpperFirst, 137.7122414788),
        (RuleSet::YATZY, Order::UpperFirst, 204.8723428219),
    ];
    for (set, order, value) in cases {
        let rules = copy_of(set.name, order);
        assert_ne!(rules.set, set, "a rule set of its own");
        assert_eq!(rules.order, order);
        let from_file = solve(&rules);
        let label = rules.label();
        assert!(
            (from_file.expected_score() - value).abs() < 1e-9,
            "{label}: {:.10}, expected {value}",
            from_file.expected_score()
        );
        let built_in = table(set, order);
        assert!(
            from_file
                .values()
                .iter()
                .zip(built_in.values())
                .all(|(a, b)| a.to_bits() == b.to_bits())
                && from_file.values().len() == built_in.values().len(),
            "{label}: values differ from the built-in description's"
        );
        assert_eq!(
            body(&from_file.to_bytes()),
            body(&built_in.to_bytes()),
            "{label}"
        );
    }
}

/// `--rules data/rules/yacht.toml` is the built-in `yacht`: the same table file, byte for
/// byte, under the same name.
#[test]
fn a_shipped_file_by_path_is_the_built_in_rule_set() {
    let dir = temp_dir();
    let file = path_str(&rules_dir().join("yacht.toml"));
    let by_path = join(dir.path(), "by-path.table");
    let by_name = join(dir.path(), "by-name.table");
    for (rules, out) in [(file.as_str(), &by_path), ("yacht", &by_name)] {
        let o = yahtzee_in(dir.path())
            .args(["solve", "--rules", rules, "--out", &path_str(out)])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).starts_with("yacht: expected score 169.7738890526"));
    }
    assert_eq!(
        std::fs::read(&by_path).unwrap(),
        std::fs::read(&by_name).unwrap()
    );
}

/// Yacht Dice reproduces ho94949's published optimum, 191.774369, to its six decimals; with
/// five of a kind no Full House (the strict example) it is about 191.7609
/// (`shared/RULES.md`, section 7).
#[test]
fn yacht_dice_reproduces_the_published_value() {
    let set = RuleSet::from_name("yacht-dice").expect("a built-in rule set");
    let got = table(set, Order::Any).expected_score();
    assert_eq!(format!("{got:.6}"), "191.774369");
    assert!((got - 191.7743691883).abs() < 1e-9, "{got:.10}");
    let got = table(set, Order::UpperFirst).expected_score();
    assert!(
        (got - 160.6112589899).abs() < 1e-9,
        "upper first: {got:.10}"
    );
    let strict = load(&shipped("examples/yacht-dice-strict-full-house"), None).unwrap();
    let got = solve(&strict).expected_score();
    assert!((got - 191.7608797522).abs() < 1e-9, "{got:.10}");
}

/// Maxi Yatzy is shipped as printed (`shared/RULES.md`, section 8: saved rolls): `yahtzee
/// rules maxi-yatzy` prints its card of 20 boxes, in words for six dice, with the upper bonus of 100 at 84 and no Joker,
/// and its boxes score by the printed rules.
#[test]
fn maxi_yatzy_is_shipped_and_scores_by_its_rules() {
    let dir = temp_dir();
    let o = yahtzee_in(dir.path())
        .args(["rules", "maxi-yatzy", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let card = json(&o);
    assert_eq!(card["rules"], "maxi-yatzy");
    assert_eq!(card["saved_rolls"], true, "the printed rule of saved rolls");
    assert_eq!(card["boxes"].as_array().map(Vec::len), Some(20));
    assert_eq!(card["upper_bonus"]["threshold"], 84);
    assert_eq!(card["upper_bonus"]["points"], 100);
    assert_eq!(card["joker"], "none");
    assert!(card["five_of_a_kind_bonus"].is_null());
    let scores = |name: &str| {
        card["boxes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == name)
            .map(|b| b["scores"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(scores("small-straight"), "1-2-3-4-5 among the dice: 15");
    assert_eq!(scores("full-straight"), "exactly 1-2-3-4-5-6: 21");
    assert_eq!(scores("chance"), "any dice: the sum of all six dice");
    assert_eq!(scores("maxi-yatzy"), "all six dice the same: 100");
    let rules = Rules::new(RuleSet::from_name("maxi-yatzy").expect("a built-in rule set"));
    let score = |name: &str, faces: [u8; 6]| {
        let dice = rules.dice().dice_of(&faces).unwrap();
        rules.score(rules.box_by_name(name).unwrap(), &dice, 0)
    };
    assert_eq!(score("three-pairs", [1, 1, 3, 3, 6, 6]), 20);
    assert_eq!(score("five-of-a-kind", [4, 4, 4, 4, 4, 2]), 20);
    assert_eq!(score("small-straight", [1, 2, 3, 4, 5, 5]), 15);
    assert_eq!(score("large-straight", [2, 3, 4, 5, 6, 6]), 20);
    assert_eq!(score("full-straight", [1, 2, 3, 4, 5, 6]), 21);
    assert_eq!(score("full-house", [5, 5, 5, 6, 6, 6]), 28);
    assert_eq!(score("villa", [5, 5, 5, 2, 2, 2]), 21);
    assert_eq!(score("tower", [5, 5, 5, 5, 2, 2]), 24);
    assert_eq!(score("chance", [1, 2, 3, 4, 5, 6]), 21);
    assert_eq!(score("maxi-yatzy", [3; 6]), 100);
    assert_eq!(score("maxi-yatzy", [3, 3, 3, 3, 3, 1]), 0);
}

/// The house-rule examples of `data/rules/examples/`, with the values docs/rules-files.md gives.
#[test]
fn house_rule_examples_solve_to_their_values() {
    for (name, value) in [
        ("yahtzee-full-house-sum", 250.0437069357),
        ("yahtzee-free-joker-full-house-sum", 250.0454610683),
        ("yahtzee-no-upper-bonus", 237.8245201983),
        ("yahtzee-four-of-a-kind-40", 272.2737632027),
        ("yahtzee-four-rolls", 328.9552923619),
    ] {
        let rules = load(&shipped(&format!("examples/{name}")), None).unwrap();
        assert_eq!(
            rules.set.name,
            format!("{name}-{}", &rules.set.name[name.len() + 1..])
        );
        let got = solve(&rules).expected_score();
        assert!((got - value).abs() < 1e-9, "{name}: {got:.10}");
    }
}

/// A small house-rules file (Yacht with a Four of a kind of 40) in `dir`.
fn house_file(dir: &Path) -> String {
    let text = shipped("yacht")
        .replacen("name = \"yacht\"", "name = \"yacht-4k40\"", 1)
        .replacen("count = 4\nscore = \"sum\"", "count = 4\npoints = 40", 1);
    let path = join(dir, "house rules.toml");
    std::fs::write(&path, text).unwrap();
    path_str(&path)
}

fn json(o: &std::process::Output) -> Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_str(&stdout(o)).expect("one JSON object")
}

/// advise (and --batch, and --target), stats, simulate, export, rules, play and review, each
/// with `--rules PATH`.
#[test]
fn every_command_works_with_a_rules_file() {
    let dir = temp_dir();
    let file = house_file(dir.path());
    let run = |args: &[&str]| {
        yahtzee_in(dir.path())
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let card = json(&run(&["rules", &file, "--json"]));
    let name = card["rules"].as_str().unwrap().to_string();
    assert!(name.starts_with("yacht-4k40-") && name.len() == "yacht-4k40-".len() + 16);
    assert_eq!(
        card["boxes"][7]["scores"],
        "at least 4 dice of one face: 40"
    );
    // The file's table, solved on first use, named after the rules.
    let advice = json(&run(&[
        "advise",
        "--rules",
        &file,
        "--dice",
        "44441",
        "--rolls-left",
        "0",
        "--json",
    ]));
    assert_eq!(advice["rules"], name.as_str());
    assert_eq!(advice["options"][0]["category"], "four-of-a-kind");
    assert_eq!(advice["options"][0]["points"], 40);
    let table_file = path_str(&join(dir.path(), &format!("{name}.v4.table")));
    let o = run(&["verify", "--rules", &file, &table_file]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(&format!("holds the {name} table")));
    // Its header names rules known only once the file is loaded: the fix says so.
    let o = run(&["verify", &table_file]);
    assert_bad_input(
        &o,
        "a game whose rules this command was not given (a rules file's); give that rules file with --rules PATH",
    );
    let value = load(&std::fs::read_to_string(&file).unwrap(), None)
        .map(|r| solve(&r).expected_score())
        .unwrap();
    // The batch answers the same.
    let o = yahtzee_in(dir.path())
        .args(["advise", "--batch", "--rules", &file])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin
                .take()
                .unwrap()
                .write_all(b"{\"dice\": [1,4,4,4,4], \"rolls_left\": 0}\n")?;
            c.wait_with_output()
        })
        .unwrap();
    let line: Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!(line["options"], advice["options"]);
    // The target objective (its table solved for the file's rules).
    let target = json(&run(&[
        "advise",
        "--rules",
        &file,
        "--dice",
        "44441",
        "--rolls-left",
        "1",
        "--target",
        "200",
        "--json",
    ]));
    let chance = target["options"][0]["p_reach"].as_f64().unwrap();
    assert!(chance > 0.3 && chance < 0.8, "{target}");
    // The exact distribution's mean is the solver's.
    let stats = json(&run(&["stats", "--rules", &file, "--json"]));
    assert_eq!(stats["rules"], name.as_str());
    assert!(
        (stats["mean"].as_f64().unwrap() - value).abs() < 1e-6,
        "{stats}"
    );
    assert!((stats["solver_mean"].as_f64().unwrap() - value).abs() < 1e-9);
    let sim = json(&run(&[
        "simulate", "--rules", &file, "--games", "2000", "--seed", "1", "--json",
    ]));
    let interval = &sim["mean_interval"];
    let se = interval["standard_error"].as_f64().unwrap();
    let mean = (interval["low"].as_f64().unwrap() + interval["high"].as_f64().unwrap()) / 2.0;
    assert!((mean - value).abs() < 4.0 * se, "{sim}");
    let export = run(&["export", "--rules", &file, "--opening", "--format", "csv"]);
    assert!(export.status.success(), "{}", stderr(&export));
    assert_eq!(
        stdout(&export).lines().count(),
        253,
        "a header and 252 rolls"
    );
    // A game of two bots, recorded, then reviewed under the file's rules.
    let record = join(dir.path(), "game.jsonl");
    let play = run(&[
        "play",
        "--rules",
        &file,
        "--players",
        "bot,bot2",
        "--seed",
        "3",
        "--record",
        &path_str(&record),
    ]);
    assert!(play.status.success(), "{}", stderr(&play));
    let review = json(&run(&[
        "review",
        "--rules",
        &file,
        &path_str(&record),
        "--json",
    ]));
    assert_eq!(review["rules"], name.as_str());
    // Without the file, the record's rules are unknown: the fix is --rules PATH.
    let o = run(&["review", &path_str(&record)]);
    assert_bad_input(&o, "once loaded with --rules PATH");
    // The file printed as a file loads to the same rules.
    let toml = run(&["rules", &file, "--toml"]);
    let again = join(dir.path(), "again.toml");
    std::fs::write(&again, toml.stdout).unwrap();
    let card = json(&run(&["rules", &path_str(&again), "--json"]));
    assert_eq!(card["rules"], name.as_str());
}

/// Each mistake of the issue in a file given to a command: one line naming the file, the
/// line and the field, and exit status 2.
#[test]
fn a_malformed_rules_file_is_one_line_naming_line_and_field() {
    let dir = temp_dir();
    let good = shipped("yacht-dice");
    let many_boxes: String = (13..=40)
        .map(|i| format!("\n[[box]]\nname = \"extra-{i}\"\nkind = \"chance\"\n"))
        .collect();
    let maxi = shipped("maxi-yatzy");
    let cases = [
        (
            good.replacen("rolls = 3\n", "", 1),
            "line 1: missing field `rolls`",
        ),
        (
            good.replacen("kind = \"chance\"", "kind = \"choice\"", 1),
            "line 62: unknown variant `choice`, expected one of `face`",
        ),
        (
            good.replacen("threshold = 63", "threshold = 106", 1),
            "line 14: `upper_bonus.threshold` 106 is impossible: the upper section adds up to at most 105",
        ),
        (
            good.replacen("dice = 5", "dice = 7", 1),
            "line 10: `dice` (the number of dice) must be 5 or 6, not 7",
        ),
        (
            format!("{good}{many_boxes}"),
            "the card has 40 boxes ([[box]] tables); allowed: 1 to 20",
        ),
        // One box more than Maxi Yatzy's 20, the most the state layout holds.
        (
            format!("{maxi}\n[[box]]\nname = \"extra\"\nkind = \"chance\"\n"),
            "the card has 21 boxes ([[box]] tables); allowed: 1 to 20 (the tables are dense over the 2^n cards",
        ),
        // Six dice: thresholds to 126 (Maxi Yatzy's 84 and more), no further.
        (
            maxi.replacen("threshold = 84", "threshold = 127", 1),
            "line 17: `upper_bonus.threshold` 127 is impossible: the upper section adds up to at most 126; allowed: 1 to 126",
        ),
        (
            good.replacen("name = \"choice\"", "name = \"sixes\"", 1),
            "line 59: box 7 (`sixes`): `sixes` already names box 6 (`sixes`)",
        ),
    ];
    let path = join(dir.path(), "bad.toml");
    for (text, needle) in cases {
        std::fs::write(&path, text).unwrap();
        let o = yahtzee_in(dir.path())
            .args(["advise", "--rules", &path_str(&path), "--dice", "12345"])
            .output()
            .unwrap();
        assert_bad_input(&o, needle);
        assert!(
            stderr(&o).contains(&format!(
                "invalid value '{}' for '--rules <NAME|PATH>': rules file, line",
                path_str(&path)
            )),
            "{}",
            stderr(&o)
        );
    }
    // Not a file, not UTF-8, not a known name.
    let o = yahtzee_in(dir.path())
        .args(["rules", &path_str(&join(dir.path(), "missing.toml"))])
        .output()
        .unwrap();
    assert_bad_input(&o, "cannot read the rules file");
    std::fs::write(&path, b"name = \"\xff\"").unwrap();
    let o = yahtzee_in(dir.path())
        .args(["rules", &path_str(&path)])
        .output()
        .unwrap();
    assert_bad_input(&o, "the rules file is not UTF-8 text");
    let o = yahtzee_in(dir.path())
        .args(["rules", "maxi-yahtzee"])
        .output()
        .unwrap();
    assert_bad_input(
        &o,
        "invalid value 'maxi-yahtzee' for '[NAME|PATH]': not a rule set: the rule sets are yahtzee, yahtzee-free-joker, yahtzee-plain, yacht, yatzy, yacht-dice, maxi-yatzy, or give the path of a rules file",
    );
}

/// A six-dice game of few boxes, written as a rules file: every kind only six dice have
/// (three pairs, villa, tower), a full house of the best three and two, the full straight,
/// the Maxi Yatzy of 100, and (with `upper`) the six face boxes and Maxi Yatzy's upper bonus,
/// 100 at 84 (upper totals past 63).
fn six_dice_text(upper: bool) -> String {
    let mut text =
        String::from("name = \"six-dice-test\"\ndice = 6\nrolls = 3\njoker = \"none\"\n");
    let mut boxes: Vec<String> = Vec::new();
    if upper {
        text.push_str("upper_bonus = { threshold = 84, points = 100 }\n");
        for face in 1..=6 {
            boxes.push(format!(
                "name = \"f{face}\"\nkind = \"face\"\nface = {face}"
            ));
        }
        boxes.extend([
            "name = \"five\"\nkind = \"of-a-kind\"\ncount = 5\nscore = \"matching\"".to_string(),
            "name = \"chance\"\nkind = \"chance\"".to_string(),
        ]);
    } else {
        boxes.extend(
            [
                "name = \"pairs\"\nkind = \"three-pairs\"",
                "name = \"villa\"\nkind = \"villa\"\nscore = \"sum\"",
                "name = \"tower\"\nkind = \"tower\"\npoints = 33",
                "name = \"house\"\nkind = \"full-house\"\nscore = \"sum\"",
                "name = \"full\"\nkind = \"straight\"\nfaces = [1, 2, 3, 4, 5, 6]\npoints = 21",
                "name = \"two\"\nkind = \"two-pairs\"",
                "name = \"maxi\"\nkind = \"all-of-a-kind\"\npoints = 100",
            ]
            .map(String::from),
        );
    }
    for b in boxes {
        text.push_str(&format!("\n[[box]]\n{b}\n"));
    }
    text
}

/// [`six_dice_text`], loaded.
fn six_dice_game(upper: bool) -> Rules {
    load(&six_dice_text(upper), None).expect("a valid six-dice file")
}

/// The advice of `line` (a batch query) to the six-dice game of `file` through `advise
/// --batch` in `dir`: one JSON answer per line.
fn six_dice_batch(dir: &Path, file: &str, lines: &[String]) -> Vec<Value> {
    let o = run_bytes(
        dir,
        &["advise", "--rules", file, "--batch"],
        (lines.join("\n") + "\n").as_bytes(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON answer"))
        .collect()
}

/// The option text of the exports for the best option of an advice: a keep's faces as
/// digits (`-` for none), a stop or a box as the box's name.
fn export_text(option: &Value) -> String {
    if let Some(b) = option["stop_and_score"]
        .as_str()
        .or(option["category"].as_str())
    {
        return b.to_string();
    }
    let keep: String = option["keep"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.to_string())
        .collect();
    if keep.is_empty() { "-".into() } else { keep }
}

/// A six-dice rules file: every command works on it. `solve` gives the library's value;
/// `stats` its exact distribution, whose mean is that value; `simulate` a mean within 4
/// standard errors of it; `advise` ranks the keeps of six dice (text, `--json`, and `--batch`
/// alike), and refuses five faces naming the game's six dice (and six faces on a game of
/// five); `export` writes every scope in every format, its rows the advice of their
/// positions; `play` plays a game of typed dice whose record `review` prices as `advise`
/// does; the server's `/api/advise` answers as `advise`. The target objective (advice, its
/// table, its policy's exact distribution and a simulation reaching the target as often as
/// the table says)
/// and the win objective (against a finished opponent and one still playing) advise the
/// keeps of six dice.
#[test]
fn every_command_works_on_a_six_dice_file() {
    let dir = temp_dir();
    let file = join(dir.path(), "six.toml");
    std::fs::write(&file, six_dice_text(false)).unwrap();
    let file = path_str(&file);
    let cli = |args: &[&str]| run_bytes(dir.path(), args, b"");
    let json = |args: &[&str]| -> Value {
        let o = cli(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        serde_json::from_str(&stdout(&o)).expect("one JSON object")
    };
    let o = cli(&["solve", "--rules", &file]);
    let want = solve(&six_dice_game(false)).expected_score();
    assert!(
        stdout(&o).starts_with("six-dice-test-")
            && stdout(&o).contains(&format!("expected score {want:.10}")),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
    // The exact distribution's mean is the solve's value; a simulation's within 4 standard
    // errors of it.
    assert_means_of_file(dir.path(), &file, want);
    // The keeps of six dice: 2 x 3 x 3 x 2 of 1 2 2 3 3 6, keeping all six stops and scores.
    let advice = json(&["advise", "--rules", &file, "--dice", "122336", "--json"]);
    let options = advice["options"].as_array().unwrap();
    assert_eq!(options.len(), 36);
    assert!(
        options
            .iter()
            .any(|o| o["keep"].as_array().unwrap().len() == 6 && o["stop_and_score"].is_string())
    );
    let text = stdout(&cli(&["advise", "--rules", &file, "--dice", "1,2,2,3,3,6"]));
    let best = &options[0];
    assert!(
        text.contains(&format!("{:.4}", best["expected_final"].as_f64().unwrap())),
        "{text}"
    );
    let batch = six_dice_batch(
        dir.path(),
        &file,
        &[r#"{"dice": [6, 3, 3, 2, 2, 1]}"#.into()],
    );
    assert_eq!(batch[0]["options"], advice["options"]);
    // Five faces on a game of six dice, six on a game of five: one line naming the dice.
    assert_bad_input(
        &cli(&["advise", "--rules", &file, "--dice", "1,2,2,3,3"]),
        "5 faces given; give exactly six faces from 1 to 6, as the game has six dice",
    );
    assert_bad_input(
        &cli(&["advise", "--dice", "1,2,2,3,3,6"]),
        "6 faces given; give exactly five faces from 1 to 6, as the game has five dice",
    );
    let five = six_dice_batch(dir.path(), &file, &[r#"{"dice": [1, 2, 2, 3, 3]}"#.into()]);
    assert!(
        five[0]["error"]
            .as_str()
            .unwrap()
            .contains("as the game has six dice")
    );
    // The target objective: the advice's best chance is the target table's value from the
    // empty card, and a simulation of the target policy reaches the target about as often.
    let target = json(&[
        "advise", "--rules", &file, "--dice", "122336", "--target", "100", "--json",
    ]);
    let p_reach = target["p_reach"].as_f64().unwrap();
    assert_eq!(target["options"][0]["p_reach"].as_f64().unwrap(), p_reach);
    assert!(p_reach > 0.3 && p_reach < 0.7, "{target}");
    let table = json(&["solve", "--rules", &file, "--objective", "target", "--json"]);
    assert!(table["values"].as_u64().unwrap() > 1000, "{table}");
    let sim = json(&[
        "simulate",
        "--rules",
        &file,
        "--policy",
        "target:100",
        "--games",
        "4000",
        "--json",
    ]);
    let reached = &sim["reached"];
    let share = reached["share"].as_f64().unwrap();
    // The exact distribution of the target policy reaches 100 as often as the table says,
    // and the simulation within its 95% interval (widened by 0.01).
    let exact = json(&["stats", "--rules", &file, "--target", "100", "--json"]);
    let expected = exact["table_p_reach"].as_f64().unwrap();
    assert!(
        (exact["p_reach"].as_f64().unwrap() - expected).abs() < 1e-6,
        "{exact}"
    );
    assert!(
        reached["low"].as_f64().unwrap() - 0.01 < expected
            && expected < reached["high"].as_f64().unwrap() + 0.01,
        "simulated {share} ({reached}), table {expected}"
    );
    // The win objective, against a finished opponent and one still playing (the
    // distribution table of the six-dice game): a chance of winning per option, ranked.
    for opponent in [
        &["--opponent-final", "100"][..],
        &["--opponent", "maxi=100"],
    ] {
        let mut args = vec!["advise", "--rules", &file, "--dice", "122336", "--json"];
        args.extend_from_slice(opponent);
        let win = json(&args);
        let options = win["options"].as_array().unwrap();
        assert_eq!(options.len(), 36, "{opponent:?}");
        let p_win = win["p_win"].as_f64().unwrap();
        assert!(p_win > 0.0 && p_win < 1.0, "{opponent:?}: {win}");
        assert_eq!(options[0]["p_win"].as_f64().unwrap(), p_win);
    }
    // The export of a new game's turn: every row the advice of its position.
    let csv = stdout(&cli(&["export", "--rules", &file]));
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 3 * 462);
    let lines: Vec<String> = rows
        .iter()
        .map(|r| {
            let faces: Vec<String> = r[3].chars().map(String::from).collect();
            format!(
                r#"{{"dice": [{}], "rolls_left": {}}}"#,
                faces.join(","),
                r[4]
            )
        })
        .collect();
    for (row, answer) in rows.iter().zip(six_dice_batch(dir.path(), &file, &lines)) {
        let best = &answer["options"][0];
        assert_eq!(row[5], export_text(best), "{row:?}");
        let expected: f64 = row[6].parse().unwrap();
        assert!((expected - best["expected_final"].as_f64().unwrap()).abs() < 1e-6);
    }
    for scope in [
        &[][..],
        &["--all-states"],
        &["--all-states", "--policy"],
        &["--opening"],
    ] {
        // Parquet where the binary has it (the test command builds every feature).
        let formats = ["csv", "jsonl", "markdown", "parquet"];
        let formats = &formats[..formats.len() - usize::from(!cfg!(feature = "parquet"))];
        for &format in formats {
            let out = path_str(&join(dir.path(), &format!("export.{format}")));
            let mut args = vec![
                "export", "--rules", &file, "--format", format, "--out", &out,
            ];
            args.extend_from_slice(scope);
            let o = cli(&args);
            assert!(o.status.success(), "{args:?}: {}", stderr(&o));
            assert!(std::fs::metadata(&out).unwrap().len() > 100, "{args:?}");
        }
    }
    // A game of typed dice, every turn scored at once, and its review.
    let record = path_str(&join(dir.path(), "game.jsonl"));
    let mut input = String::new();
    for name in ["pairs", "villa", "tower", "house", "full", "two", "maxi"] {
        input.push_str(&format!("1 2 2 3 3 4\nscore {name}\n"));
    }
    let played = play_typed(dir.path(), &file, &record, &input);
    assert!(played.contains("Game over: 10 points."), "{played}");
    let review = json(&["review", &record, "--rules", &file, "--json"]);
    assert_eq!(review["players"][0]["score"], 10);
    let decisions = review["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 14);
    let first = json(&["advise", "--rules", &file, "--dice", "122334", "--json"]);
    let best = first["options"][0]["expected_final"].as_f64().unwrap();
    assert_eq!(decisions[0]["dice"], serde_json::json!([1, 2, 2, 3, 3, 4]));
    assert!((decisions[0]["best_value"].as_f64().unwrap() - best).abs() < 1e-9);
    // The page's server answers as the command line.
    let served = crate::serve::Served::start_in(dir.path(), &["--rules", &file]);
    let (status, body) = served.post("/api/advise", r#"{"dice": [1, 2, 2, 3, 3, 6]}"#);
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["options"], advice["options"]);
    let (status, body) = served.post("/api/advise", r#"{"dice": [1, 2, 2, 3, 3]}"#);
    assert_eq!(status, 400);
    assert!(body.contains("as the game has six dice"), "{body}");
}

/// The six-dice kernel (924 keeps, 462 rolls) against the naive solver of `brute.rs`
/// (every subset of six dice positions, every ordered throw), to 1e-9: every state of a
/// seven-box game of the six-dice kinds, and a sample of the states with one or two boxes
/// open of a game with the upper section and its bonus at 84 (upper scores up to 36, upper
/// totals past 63).
#[test]
fn six_dice_agree_with_brute_force_on_reduced_games() {
    use yahtzee_core::game::state::{State, card_states};
    for upper in [false, true] {
        let rules = six_dice_game(upper);
        assert_eq!(rules.dice().rolls(), 462);
        let t = solve(&rules);
        let mut brute = crate::brute::BruteForce::new(rules);
        let full = rules.full_mask();
        let mut states: Vec<State> = Vec::new();
        for filled in 0..=full {
            let open = (full & !filled).count_ones();
            if upper && open > 2 {
                continue;
            }
            states.extend(card_states(&rules, filled));
        }
        if upper {
            // Every twelfth of the 2,600 states: each costs the brute force a few
            // milliseconds. Among them, totals the threshold of 63 could not hold.
            states = states.into_iter().step_by(12).collect();
            assert!(states.iter().filter(|s| s.upper > 63).count() >= 20);
            assert!(states.iter().any(|s| s.upper == 84));
        }
        assert!(states.len() >= 100, "{} states", states.len());
        for s in &states {
            let (got, expected) = (t.value(s), brute.value(*s));
            assert!(
                (got - expected).abs() < 1e-9,
                "upper {upper} {s:?}: solver {got}, brute force {expected}"
            );
        }
        if !upper {
            let start = brute.value(State::START);
            assert!((t.expected_score() - start).abs() < 1e-9);
        }
    }
}

/// The six-dice target objective (the vector solve over 462 rolls, `f64`, no tail left out)
/// against the naive solver of `brute.rs`, to 1e-9: every state of the seven-box game with
/// one or two boxes open, and a sample of those with one box open of the game with the upper
/// section and its bonus of 100 at 84, each at a spread of targets from the sure to the
/// impossible.
#[test]
fn six_dice_target_agrees_with_brute_force_on_reduced_games() {
    use yahtzee_core::game::state::{State, card_states};
    use yahtzee_core::solve::simd::Simd;
    use yahtzee_core::solve::vector::{VectorObjective, max_remaining, solve_reduced};
    for (upper, open, step) in [(false, 2, 1), (true, 1, 6)] {
        let rules = six_dice_game(upper);
        let mut objective = VectorObjective::<f64>::target(rules);
        objective.tail = 0.0;
        let exact = solve_reduced(&objective, open as usize, Simd::detect(), &|_, _| {});
        let mut brute = crate::brute::BruteForce::new(rules);
        let full = rules.full_mask();
        let states: Vec<State> = (0..full)
            .filter(|&filled| (full & !filled).count_ones() <= open)
            .flat_map(|filled| card_states(&rules, filled))
            .step_by(step)
            .collect();
        assert!(states.len() >= 20, "upper {upper}: {} states", states.len());
        if upper {
            assert!(states.iter().any(|s| s.upper > 63 && s.upper < 84));
        }
        for s in &states {
            let most = i64::from(max_remaining(&rules, s));
            for t in [1, most / 4, most / 2, 3 * most / 4, most, most + 1] {
                let (got, expected) = (exact.value(s, t).unwrap(), brute.target(*s, t));
                assert!(
                    (got - expected).abs() < 1e-9,
                    "upper {upper} {s:?} t={t}: vector {got}, brute force {expected}"
                );
            }
        }
    }
}

/// Maxi Yatzy's target and win objectives are refused in one line: as printed, with saved
/// rolls, solved for the expected score alone; without saved rolls, saying the memory
/// their tables would need (46 GiB of chances, more than the 4 GiB a table may take), before
/// any table is built (the folder of tables stays empty): advice for a target or against an
/// opponent, a simulation of the target policy, and the solve of either vector table.
#[test]
fn maxi_yatzy_target_and_win_are_refused_before_any_build() {
    let dir = temp_dir();
    for args in [
        &["advise", "--dice", "122336", "--target", "300"][..],
        &["advise", "--dice", "122336", "--opponent-final", "300"],
        &["simulate", "--policy", "target:300", "--games", "10"],
        &["solve", "--objective", "target"],
        &["solve", "--objective", "distribution"],
    ] {
        // Maxi Yatzy as printed saves rolls, and is solved for the expected score alone.
        let mut printed = args.to_vec();
        printed.extend_from_slice(&["--rules", "maxi-yatzy"]);
        assert_bad_input(&run_bytes(dir.path(), &printed, b""), "saved_rolls = true");
        let without = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/rules/examples/maxi-yatzy-no-saved-rolls.toml"
        );
        let mut args = args.to_vec();
        args.extend_from_slice(&["--rules", without]);
        let o = run_bytes(dir.path(), &args, b"");
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains("the target and win objectives of maxi-yatzy-no-saved-rolls")
                && err.contains("are not solved")
                && err.contains("12.3 billion chances (46 GiB of memory")
                && err.contains("57.5 million states")
                && err.contains("more than the 4 GiB a table may take"),
            "{args:?}: {err}"
        );
    }
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(files.is_empty(), "{files:?}");
}

/// A five-dice card of 17 boxes without an upper bonus, written as a rules file: the six
/// face boxes, then Yatzy's lower boxes and two more (a second chance, a four of a kind of
/// 40), in card order or (with `reversed`) the lower ones in the reverse order.
fn seventeen_boxes_text(reversed: bool) -> String {
    let mut lower = [
        "name = \"pair\"\nkind = \"one-pair\"",
        "name = \"pairs\"\nkind = \"two-pairs\"",
        "name = \"three\"\nkind = \"of-a-kind\"\ncount = 3\nscore = \"matching\"",
        "name = \"four\"\nkind = \"of-a-kind\"\ncount = 4\nscore = \"matching\"",
        "name = \"small\"\nkind = \"straight\"\nfaces = [1, 2, 3, 4, 5]\npoints = 15",
        "name = \"large\"\nkind = \"straight\"\nfaces = [2, 3, 4, 5, 6]\npoints = 20",
        "name = \"house\"\nkind = \"full-house\"\nscore = \"sum\"",
        "name = \"chance\"\nkind = \"chance\"",
        "name = \"yatzy\"\nkind = \"five-of-a-kind\"\npoints = 50",
        "name = \"chance-2\"\nkind = \"chance\"",
        "name = \"four-40\"\nkind = \"of-a-kind\"\ncount = 4\npoints = 40",
    ];
    if reversed {
        lower.reverse();
    }
    let mut text = String::from("name = \"seventeen\"\ndice = 5\nrolls = 3\n");
    for face in 1..=6 {
        text.push_str(&format!(
            "\n[[box]]\nname = \"f{face}\"\nkind = \"face\"\nface = {face}\n"
        ));
    }
    for b in lower {
        text.push_str(&format!("\n[[box]]\n{b}\n"));
    }
    text
}

/// Cards past 16 bits: a game of 17 boxes (box 16 the last) against the naive solver of
/// `brute.rs`, every state with one or two boxes open, to 1e-9 (those with boxes 15 and 16
/// open among them); and the same game with its lower boxes in the reverse order, so that
/// each lands at another bit, has the same value.
#[test]
fn seventeen_boxes_agree_with_brute_force_and_with_another_card_order() {
    use yahtzee_core::game::state::State;
    let rules = load(&seventeen_boxes_text(false), None).expect("a valid file");
    assert_eq!(rules.box_count(), 17);
    let t = solve(&rules);
    let mut brute = crate::brute::BruteForce::new(rules);
    let full = rules.full_mask();
    let mut checked = 0;
    for a in 0..17 {
        for b in a..17 {
            let state = State {
                filled: full & !(1 << a) & !(1 << b),
                upper: 0,
                yahtzee_50: false,
            };
            let (got, expected) = (t.value(&state), brute.value(state));
            assert!(
                (got - expected).abs() < 1e-9,
                "open {a} and {b}: solver {got}, brute force {expected}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 17 + 17 * 16 / 2);
    let reversed = solve(&load(&seventeen_boxes_text(true), None).expect("a valid file"));
    assert!(
        (t.expected_score() - reversed.expected_score()).abs() < 1e-9,
        "{} in card order, {} reversed",
        t.expected_score(),
        reversed.expected_score()
    );
}

/// The exact distribution of a card of more than 15 boxes, which the forward pass computes by
/// Fourier transforms (crates/core/src/stats/spectral.rs): the 17-box game played upper first
/// (1,100 cards, seconds): `stats` gives the solve's mean to 1e-9, probabilities that add up
/// to 1, and a `--pmf` whose mean is the same.
#[test]
fn a_card_of_seventeen_boxes_has_its_exact_distribution() {
    let dir = temp_dir();
    let text =
        seventeen_boxes_text(false).replacen("rolls = 3\n", "rolls = 3\nupper_first = true\n", 1);
    let path = join(dir.path(), "seventeen.toml");
    std::fs::write(&path, &text).unwrap();
    let file = path_str(&path);
    let want = solve(&load(&text, None).expect("a valid file")).expected_score();
    let pmf = join(dir.path(), "pmf.csv");
    let o = yahtzee_in(dir.path())
        .args([
            "stats",
            "--rules",
            &file,
            "--json",
            "--pmf",
            &path_str(&pmf),
        ])
        .output()
        .unwrap();
    let stats = json(&o);
    assert!((stats["solver_mean"].as_f64().unwrap() - want).abs() < 1e-9);
    let mean = stats["mean"].as_f64().unwrap();
    assert!(
        (mean - want).abs() < 1e-9,
        "distribution {mean}, solve {want}"
    );
    let rows = crate::util::read_pmf_csv(&pmf);
    let total: f64 = rows.iter().map(|r| r.1).sum();
    assert!((total - 1.0).abs() < 1e-12, "{total}");
    assert!(rows.iter().all(|r| r.1 >= 0.0));
    let from_csv: f64 = rows.iter().map(|r| r.0 as f64 * r.1).sum();
    assert!((from_csv - want).abs() < 1e-9, "{from_csv}");
}
