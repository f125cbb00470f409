//! Games of other than three rolls a turn (`rolls` in a rules file, the house rule of four
//! rolls): the turn of one, two and four rolls against the naive solver of `brute.rs`, for
//! the expected score, the target, the distribution and the win objectives and the game of
//! two; the shipped example `yahtzee-four-rolls`; every command on a small four-roll file
//! (the exact distribution's mean and a simulation's against the solve, advice with three
//! rolls left for the expected score, a target, opponents and the game of two, export, play
//! and review); rolls left beyond the game's refused in one line.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use yahtzee_core::game::rules::Rules;
use yahtzee_core::game::rules::file::load;
use yahtzee_core::game::state::{State, card_states};
use yahtzee_core::policy::win::FinalScores;
use yahtzee_core::solve::expected::SolveOptions;
use yahtzee_core::tables::expected::StrategyTable;

use crate::brute::{BruteForce, TwoPlayerPolicy};
use crate::twoplayer::{all_but, brute_outcome, exact};
use crate::util::*;

/// A small game of `rolls` rolls a turn: six boxes, no upper bonus, the Yahtzee bonus and
/// the forced Joker (so that the Joker's rows of the kernel are met too).
fn small_text(rolls: u8) -> String {
    format!(
        r#"name = "rolls-test"
dice = 5
rolls = {rolls}
joker = "forced"
five_of_a_kind_bonus = 100

[[box]]
name = "four"
kind = "of-a-kind"
count = 4
score = "sum"

[[box]]
name = "three"
kind = "of-a-kind"
count = 3
score = "sum"

[[box]]
name = "house"
kind = "full-house"
points = 25

[[box]]
name = "large"
kind = "straight"
length = 5
starts = [1, 2]
points = 40

[[box]]
name = "yahtzee"
kind = "five-of-a-kind"
points = 50

[[box]]
name = "chance"
kind = "chance"
"#
    )
}

fn small_game(rolls: u8) -> Rules {
    load(&small_text(rolls), None).expect("a valid file")
}

fn solve(rules: &Rules) -> StrategyTable {
    StrategyTable::solve(rules, SolveOptions::default(), &|_, _| {}).0
}

/// Yacht with `rolls` rolls a turn: the shipped file with its `rolls` changed (no bonuses:
/// the game of two is solved for it).
fn yacht_text(rolls: u8) -> String {
    let shipped = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/rules/yacht.toml"),
    )
    .unwrap();
    let text = shipped
        .replacen("name = \"yacht\"", "name = \"yacht-rolls\"", 1)
        .replace("rolls = 3", &format!("rolls = {rolls}"));
    assert_ne!(text, shipped);
    text
}

/// The shipped example of four rolls a turn.
fn four_rolls_file() -> String {
    path_str(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/rules/examples/yahtzee-four-rolls.toml"),
    )
}

/// The kernel of one, two and four rolls a turn (no, one and three layers of keeps) against
/// the naive solver, to 1e-9: every state of the small game; and, with the upper bonus of
/// Yahtzee, a sample of the four-roll example's states with one box open.
#[test]
fn other_numbers_of_rolls_agree_with_brute_force_on_reduced_games() {
    for rolls in [1, 2, 4] {
        let rules = small_game(rolls);
        assert_eq!(rules.rolls(), rolls);
        let t = solve(&rules);
        let mut brute = crate::brute::BruteForce::new(rules);
        let mut checked = 0;
        for filled in 0..rules.full_mask() {
            for s in card_states(&rules, filled) {
                if s.yahtzee_50 && filled & 1 << 4 == 0 {
                    continue; // the Yahtzee box holds 50 only once filled
                }
                let (got, expected) = (t.value(&s), brute.value(s));
                assert!(
                    (got - expected).abs() < 1e-9,
                    "{rolls} rolls {s:?}: solver {got}, brute force {expected}"
                );
                checked += 1;
            }
        }
        assert!(checked >= 64, "{checked} states");
    }
    // The values grow with the rolls a turn.
    let starts: Vec<f64> = (1..=4)
        .map(|r| solve(&small_game(r)).expected_score())
        .collect();
    assert!(starts.windows(2).all(|w| w[0] < w[1]), "{starts:?}");
    // Yahtzee of four rolls: the upper bonus, the states with one box open (every 16th).
    let rules = load(&std::fs::read_to_string(four_rolls_file()).unwrap(), None).unwrap();
    let t = solve(&rules);
    let mut brute = crate::brute::BruteForce::new(rules);
    let full = rules.full_mask();
    let states: Vec<State> = (0..13)
        .flat_map(|b| card_states(&rules, full & !(1 << b)))
        // The Yahtzee box (the 12th) holds 50 only once filled.
        .filter(|s| !(s.yahtzee_50 && s.filled & 1 << 11 == 0))
        .step_by(16)
        .collect();
    assert!(states.len() >= 50, "{} states", states.len());
    for s in &states {
        let (got, expected) = (t.value(s), brute.value(*s));
        assert!(
            (got - expected).abs() < 1e-9,
            "{s:?}: solver {got}, brute force {expected}"
        );
    }
}

/// The shipped example solves to the value docs/rules-files.md gives, above Yahtzee's.
#[test]
fn the_four_rolls_example_solves_to_its_value() {
    let rules = load(&std::fs::read_to_string(four_rolls_file()).unwrap(), None).unwrap();
    assert_eq!(rules.rolls(), 4);
    let got = solve(&rules).expected_score();
    assert!((got - 328.9552923619).abs() < 1e-9, "{got:.10}");
    assert!(got > 254.5877287345);
}

/// A small four-roll file through the commands: `stats` (the exact distribution) has the
/// solve's mean, `simulate` a mean within 4 standard errors of it; `advise` has three rolls
/// left by default and takes `--rolls-left 3` (text, `--json`, `--batch` alike), while a game of
/// three rolls refuses it in one line; `export` writes the rows of three rolls left (and
/// `--opening`, a three-roll sheet, refuses in one line); `play`
/// deals three re-rolls and `review` prices the record as `advise` does, its rating with a
/// line for the keeps with three rolls left; advice for a target and against an opponent
/// (every opening roll's best chance, averaged, is the brute force's value of the turn), and
/// `stats --target` reaching the target with the table's chance.
#[test]
fn every_command_works_on_a_four_roll_file() {
    let dir = temp_dir();
    let file = join(dir.path(), "four.toml");
    std::fs::write(&file, small_text(4)).unwrap();
    let file = path_str(&file);
    let cli = |args: &[&str]| run_bytes(dir.path(), args, b"");
    let json = |args: &[&str]| json_in(dir.path(), args);
    assert_means_of_file(dir.path(), &file, solve(&small_game(4)).expected_score());
    // Advice: three rolls left at the start of a turn, the same as `--rolls-left 3`, and
    // worth more than two rolls left.
    let advise = |rolls_left: &[&str]| {
        let mut args = vec!["advise", "--rules", &file, "--dice", "13356", "--json"];
        args.extend_from_slice(rolls_left);
        json(&args)
    };
    let advice = advise(&[]);
    assert_eq!(advice["rolls_left"], 3);
    let three = advise(&["--rolls-left", "3"]);
    assert_eq!(three["options"], advice["options"]);
    let two = advise(&["--rolls-left", "2"]);
    let best = |a: &Value| a["options"][0]["expected_final"].as_f64().unwrap();
    assert!(best(&three) > best(&two), "a roll more is worth more");
    let o = run_bytes(
        dir.path(),
        &["advise", "--rules", &file, "--batch"],
        b"{\"dice\": [1, 3, 3, 5, 6], \"rolls_left\": 3}\n{\"dice\": [1, 3, 3, 5, 6]}\n",
    );
    let answers: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 2, "{}", stderr(&o));
    for a in &answers {
        assert_eq!(a["options"], advice["options"]);
    }
    // A game of three rolls: three rolls left is one line, exit 2, naming what it allows.
    assert_bad_input(
        &cli(&["advise", "--dice", "13356", "--rolls-left", "3"]),
        "rolls left must be 0, 1 or 2, not 3",
    );
    // A target and opponents, from a card with two boxes open (large and chance): the
    // chances of the best options over the 252 opening rolls, each with three rolls left,
    // average to the brute force's value of the turn.
    let card = r#"{"four": 0, "three": 0, "house": 25, "yahtzee": 0}"#;
    let rules = small_game(4);
    let mut brute = BruteForce::new(rules);
    let state = State {
        filled: 0b010111,
        upper: 0,
        yahtzee_50: false,
    };
    let target = opening_mean(dir.path(), &file, "p_reach", |dice| {
        format!(r#"{{"card": {card}, "dice": {dice:?}, "target": 75}}"#)
    });
    let expected = brute.target(state, 75 - 25);
    assert!(
        (target - expected).abs() < 1e-6,
        "target: {target}, brute force {expected}"
    );
    // The opponent still plays (yahtzee and chance open, 20 banked) the expected-score policy.
    let opponent = r#"{"four": 0, "three": 20, "house": 0, "large": 0}"#;
    let them = brute.policy_distribution(State {
        filled: 0b001111,
        ..state
    });
    let u = crate::win::utility_fn(&[FinalScores { lo: 20, pmf: them }]);
    let win = opening_mean(dir.path(), &file, "p_win", |dice| {
        format!(r#"{{"card": {card}, "dice": {dice:?}, "opponents": [{{"card": {opponent}}}]}}"#)
    });
    let expected = brute.win(&mut HashMap::new(), state, 25, &u);
    assert!(
        (win - expected).abs() < 1e-6,
        "win: {win}, brute force {expected}"
    );
    // The target policy's exact distribution (`stats --target`, its turns of four rolls by
    // the kernel's lanes) reaches the target with the table's best chance.
    let stats = json(&["stats", "--rules", &file, "--target", "140", "--json"]);
    let (p, table_p) = (
        stats["p_reach"].as_f64().unwrap(),
        stats["table_p_reach"].as_f64().unwrap(),
    );
    let optimal = stats["expected_score"]["p_reach"].as_f64().unwrap();
    assert!((p - table_p).abs() < 1e-6 && p > optimal + 0.01, "{stats}");
    // The page's outlook of a position with three rolls left, playing for a target: the
    // chance of reaching it is the advice's best chance.
    let server = crate::serve::Served::start_in(dir.path(), &["--rules", &file]);
    let name = rules.label();
    let line = serde_json::json!({"card": {"four": 0, "three": 0, "house": 25, "yahtzee": 0},
        "dice": [1, 3, 3, 5, 6], "rolls_left": 3, "target": 75});
    let outlook = server.post_ok(&format!("/api/outlook?rules={name}"), &line);
    let advice = server.post_ok(&format!("/api/advise?rules={name}"), &line);
    let (p, advised) = (
        outlook["p_at_least_target"].as_f64().unwrap(),
        advice["p_reach"].as_f64().unwrap(),
    );
    assert!(
        (p - advised).abs() < 1e-6 && p > 0.0,
        "outlook {p}, advice {advised}"
    );
    drop(server);
    // The same advice on the command line: three rolls left by default.
    for objective in [
        &["--target", "75"][..],
        &["--opponent", "four=0,three=20,house=0,large=0"],
    ] {
        let mut args = vec!["advise", "--rules", &file, "--dice", "13356", "--json"];
        args.extend_from_slice(&["--card", "four=0,three=0,house=25,yahtzee=0"]);
        args.extend_from_slice(objective);
        let a = json(&args);
        assert_eq!(a["rolls_left"], 3, "{a}");
        assert!(a["options"].as_array().unwrap().len() > 1, "{a}");
    }
    // The export of a new game's turn: its rows by rolls left, from three.
    let csv = stdout(&cli(&["export", "--rules", &file, "--card", ""]));
    let left: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(4).unwrap())
        .collect();
    assert_eq!(left.len(), 4 * 252);
    for n in ["3", "2", "1", "0"] {
        assert_eq!(left.iter().filter(|&&l| l == n).count(), 252, "{n}");
    }
    // The opening sheet's columns are a three-roll turn's two decisions: one line, exit 2.
    assert_bad_input(
        &cli(&["export", "--rules", &file, "--opening"]),
        "--opening is the sheet of a turn of three rolls",
    );
    // A game of typed dice: the first roll leaves three rolls, and three re-rolls are dealt.
    let record = path_str(&join(dir.path(), "game.jsonl"));
    let mut input = String::from("1 2 3 5 6\nkeep 6\n6 1 2 3\nkeep 6 6\n1 2 3\nkeep 6 6\n1 1 2\n");
    input.push_str("score chance\n");
    for name in ["four", "three", "house", "large", "yahtzee"] {
        input.push_str(&format!("1 2 2 3 3\nscore {name}\n"));
    }
    let played = play_typed(dir.path(), &file, &record, &input);
    assert!(played.contains("(3 rolls left)"), "{played}");
    // Chance of 1 1 2 6 6, then 0 in every other box (1 2 2 3 3 scores none of them).
    assert!(played.contains("Game over: 16 points."), "{played}");
    // The rating's decisions by kind: a keep with three rolls left has its own line.
    let rating = stdout(&cli(&["review", &record, "--rules", &file, "--rating"]));
    for kind in [
        "keep, 3 rolls left",
        "keep, 2 rolls left",
        "keep, 1 roll left",
        "box",
    ] {
        assert!(rating.contains(&format!("  {kind} ")), "{kind}: {rating}");
    }
    let review = json(&["review", &record, "--rules", &file, "--json"]);
    let decisions = review["decisions"].as_array().unwrap();
    assert_eq!(decisions[0]["rolls_left"], 3);
    let first = json(&["advise", "--rules", &file, "--dice", "12356", "--json"]);
    assert!(
        (decisions[0]["best_value"].as_f64().unwrap() - best(&first)).abs() < 1e-9,
        "{}",
        decisions[0]
    );
}

/// The vector objectives of one, two and four rolls a turn against the naive solver, to
/// 1e-9, on the small game's states with one or two boxes open: the target (the best chance
/// of each number of points more), the distribution under expected-score play and the win
/// objective against two opponents; and the game of two of Yacht with four rolls a turn (and
/// two) from cards with two boxes open each, both players playing to win.
#[test]
fn vector_objectives_and_the_game_of_two_agree_with_brute_force_for_other_rolls() {
    let opponents = crate::win::two_opponents();
    for rolls in [1, 2, 4] {
        let rules = small_game(rolls);
        crate::target::check_target_against_brute_force(rules, 2, 1);
        crate::distribution::check_distribution_against_brute_force(Arc::new(solve(&rules)), 2, 1);
        crate::win::check_win_of(&[(rules, 2, 1)], &opponents, |most| {
            vec![0, 5, 15, 22, 30, 41, most - 1, most]
        });
    }
    for rolls in [2, 4] {
        let rules = load(&yacht_text(rolls), None).unwrap();
        let start = yahtzee_core::solve::two_player::Start {
            first: all_but(&rules, &["ones", "yacht"]),
            second: all_but(&rules, &["sixes", "choice"]),
        };
        let game = yahtzee_core::solve::two_player::Game::optimal(rules).unwrap();
        let solution = exact(&game, start);
        let mut brute = BruteForce::new(rules);
        let mut memo = HashMap::new();
        let policies = [TwoPlayerPolicy::Optimal; 2];
        for lead in [-31, -10, -1, 0, 1, 12, 55] {
            let o = brute_outcome(&mut brute, &mut memo, policies, start, lead);
            let got = solution.value(start.first, start.second, lead).unwrap();
            assert!(
                (got - o.value).abs() < 1e-9,
                "{rolls} rolls, lead {lead}: solve {got}, brute force {}",
                o.value
            );
        }
        if rolls == 4 {
            // `advise --two-player` (a batch of every opening roll, three rolls left): the
            // best options' values average to the value of the turn.
            let dir = temp_dir();
            let file = join(dir.path(), "yacht4.toml");
            std::fs::write(&file, yacht_text(4)).unwrap();
            let mine = r#"{"twos": 0, "threes": 0, "fours": 0, "fives": 0, "sixes": 0, "full-house": 0, "four-of-a-kind": 0, "little-straight": 0, "big-straight": 0, "choice": 20}"#;
            let theirs = r#"{"ones": 0, "twos": 0, "threes": 0, "fours": 0, "fives": 0, "yacht": 0, "full-house": 0, "four-of-a-kind": 0, "little-straight": 0, "big-straight": 0}"#;
            let got = opening_mean(dir.path(), &path_str(&file), "value", |dice| {
                format!(
                    r#"{{"card": {mine}, "dice": {dice:?}, "two_player": true, "opponents": [{{"card": {theirs}}}], "lead": 1}}"#
                )
            });
            let o = brute_outcome(&mut brute, &mut memo, policies, start, 1);
            assert!(
                (got - o.value).abs() < 1e-6,
                "advise --two-player: {got}, brute force {}",
                o.value
            );
        }
    }
}

/// The mean, over the 252 opening rolls of five dice by their chances, of `field` of the
/// answer of `advise --rules FILE --batch` to the query `query(dice)` of each roll: a turn's
/// value from the advice of every opening roll.
fn opening_mean(
    dir: &std::path::Path,
    file: &str,
    field: &str,
    query: impl Fn(&[u8]) -> String,
) -> f64 {
    let mut rolls = Vec::new();
    for code in 0..6u32.pow(5) {
        let mut faces: Vec<u8> = (0..5).map(|i| (code / 6u32.pow(i) % 6) as u8 + 1).collect();
        faces.sort_unstable();
        rolls.push(faces);
    }
    let mut ways: HashMap<Vec<u8>, u32> = HashMap::new();
    for r in rolls {
        *ways.entry(r).or_default() += 1;
    }
    assert_eq!(ways.len(), 252);
    let ways: Vec<(Vec<u8>, u32)> = ways.into_iter().collect();
    let input: String = ways.iter().map(|(dice, _)| query(dice) + "\n").collect();
    let o = run_bytes(
        dir,
        &["advise", "--rules", file, "--batch"],
        input.as_bytes(),
    );
    let answers: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 252, "{}", stderr(&o));
    answers
        .iter()
        .zip(&ways)
        .map(|(a, (_, w))| {
            let v = a[field]
                .as_f64()
                .unwrap_or_else(|| panic!("no {field}: {a}"));
            f64::from(*w) / 7776.0 * v
        })
        .sum()
}
