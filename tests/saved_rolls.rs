//! The rule of saved rolls (`shared/RULES.md` section 8; `saved_rolls = true` in a rules file):
//! the solve against the naive solver of `brute.rs` on reduced games (five and six dice, the
//! five-of-a-kind bonus and Joker, the upper bonus), every value to 1e-9; a value never falls
//! with a roll more saved; the examples of Yatzy and Maxi Yatzy with saved rolls; `export` of
//! a card's turn, of every state, of the full policy and of the opening, against `advise` and
//! the table; `play` and `review` of Yatzy with saved rolls (the optimal bot, a person saving
//! and spending rolls, records that break the rule, the objectives refused); the exact
//! distribution against the naive solver's.

use std::path::Path;
use std::process::Output;
use std::sync::OnceLock;

use serde_json::Value;
use yahtzee_core::game::rules::Rules;
use yahtzee_core::game::rules::file::load;
use yahtzee_core::game::state::{ScoreCard, State, card_states};
use yahtzee_core::policy::expected::{Action, Position};
use yahtzee_core::policy::saved::advise;
use yahtzee_core::solve::expected::SolveOptions;
use yahtzee_core::solve::saved::{SavedSolution, solve_saved};
use yahtzee_core::tables::saved::SavedTable;

use crate::brute::BruteForce;
use crate::util::*;

fn solve(rules: &Rules) -> SavedSolution {
    solve_saved(rules, SolveOptions::default(), true, &|_, _| {})
}

/// A game of `dice` dice and `rolls` rolls a turn with saved rolls and these boxes (TOML),
/// plus `extra` lines at the top (bonuses, Joker).
fn game(dice: usize, rolls: u8, extra: &str, boxes: &str) -> Rules {
    let text = format!(
        "name = \"saved-test\"\ndice = {dice}\nrolls = {rolls}\nsaved_rolls = true\n{extra}\n{boxes}"
    );
    let rules = load(&text, None).expect("a valid file");
    assert!(rules.saved_rolls());
    rules
}

/// Every reachable state of `rules` that `keep(state, saved)` chooses, with each number of
/// rolls saved it may have, against the naive solver, and the start of a game of up to four
/// boxes. Returns how many were
/// checked.
fn check_against_brute_force(rules: Rules, keep: impl Fn(&State, usize) -> bool) -> usize {
    let solved = solve(&rules);
    let mut brute = BruteForce::new(rules);
    let mut checked = 0;
    for filled in 0..rules.full_mask() {
        if !rules.order_allows(filled) {
            continue;
        }
        let played = filled.count_ones() as usize;
        for s in card_states(&rules, filled) {
            if s.yahtzee_50
                && rules
                    .five_of_a_kind_box()
                    .is_some_and(|b| filled & 1 << b == 0)
            {
                continue; // the five-of-a-kind box holds its points only once filled
            }
            for saved in 0..=rules.most_saved_rolls(played) {
                if !keep(&s, saved) {
                    continue;
                }
                let got = solved.value(&s, saved).expect("a solved state");
                let expected = brute.saved_value(s, saved);
                assert!(
                    (got - expected).abs() < 1e-9,
                    "{s:?} with {saved} saved: solver {got}, brute force {expected}"
                );
                checked += 1;
            }
        }
    }
    // The start too, where the naive solver is quick (it would solve the whole game).
    if rules.box_count() <= 4 {
        let start = brute.saved_value(State::START, 0);
        assert!((solved.expected_score - start).abs() < 1e-9, "the start");
    }
    checked
}

const LOWER_FIVE: &str = r#"
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
name = "yahtzee"
kind = "five-of-a-kind"
points = 50

[[box]]
name = "chance"
kind = "chance"
"#;

/// Five dice, four boxes, the five-of-a-kind bonus and the forced Joker (the kernel's Joker
/// rows), two, three and four rolls a turn: every state, every number of rolls saved.
#[test]
fn five_dice_agree_with_brute_force() {
    for rolls in [2, 3, 4] {
        let rules = game(
            5,
            rolls,
            "joker = \"forced\"\nfive_of_a_kind_bonus = 100",
            LOWER_FIVE,
        );
        let checked = check_against_brute_force(rules, |_, _| true);
        assert!(checked >= 60, "{rolls} rolls: {checked} checked");
    }
}

/// The upper bonus: the six face boxes and a chance, a bonus of 20 for 8; the states with one
/// box open, every upper total and number of rolls saved, and with two open, none, one and
/// the most (the naive solver is slow).
#[test]
fn the_upper_bonus_agrees_with_brute_force() {
    let faces: String = (1..=6)
        .map(|f| format!("\n[[box]]\nname = \"f{f}\"\nkind = \"face\"\nface = {f}\n"))
        .collect();
    let rules = game(
        5,
        3,
        "upper_bonus = { threshold = 8, points = 20 }",
        &format!("{faces}\n[[box]]\nname = \"chance\"\nkind = \"chance\"\n"),
    );
    let full = rules.full_mask();
    let checked = check_against_brute_force(rules, |s, saved| {
        let open = (full & !s.filled).count_ones();
        let most = rules.most_saved_rolls(s.filled.count_ones() as usize);
        open == 1 || (open == 2 && (saved <= 1 || saved == most))
    });
    assert!(checked >= 300, "{checked} checked");
}

/// Six dice: pairs, Maxi Yatzy's six of a kind and a chance.
const SIX_DICE_BOXES: &str = r#"
[[box]]
name = "pair"
kind = "one-pair"

[[box]]
name = "maxi"
kind = "all-of-a-kind"
points = 100

[[box]]
name = "chance"
kind = "chance"
"#;

/// Six dice: pairs, Maxi Yatzy's six of a kind and a chance, every state.
#[test]
fn six_dice_agree_with_brute_force() {
    let rules = game(6, 3, "", SIX_DICE_BOXES);
    let checked = check_against_brute_force(rules, |_, _| true);
    assert!(checked >= 20, "{checked} checked");
}

/// A state's value never falls when a roll is added to its saved rolls (a saved roll need
/// not be spent), and rises somewhere; every state of Yatzy with saved rolls (its example
/// file), whose value from the start is above Yatzy's and is the one docs/rules-files.md
/// gives.
#[test]
fn a_roll_more_saved_is_never_worth_less() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/rules/examples/yatzy-saved-rolls.toml");
    let rules = load(&std::fs::read_to_string(file).unwrap(), None).unwrap();
    let solved = solve(&rules);
    let (mut pairs, mut rises) = (0u64, 0u64);
    for filled in 0..rules.full_mask() {
        let played = filled.count_ones() as usize;
        for s in card_states(&rules, filled) {
            let values: Vec<f64> = (0..=rules.most_saved_rolls(played))
                .map(|saved| solved.value(&s, saved).unwrap())
                .collect();
            for w in values.windows(2) {
                assert!(w[1] >= w[0], "{s:?}: {values:?}");
                pairs += 1;
                rises += u64::from(w[1] > w[0]);
            }
        }
    }
    assert!(
        pairs > 1_000_000 && rises > pairs / 2,
        "{pairs} pairs, {rises} rises"
    );
    // Saved rolls are worth something from the start: above Yatzy's 248.4399893779, and
    // the value the guide gives.
    assert!(
        solved.expected_score > 248.44 + 1.0,
        "{}",
        solved.expected_score
    );
    let guide = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules-files.md"),
    )
    .unwrap();
    let shown = format!("{:.10}", solved.expected_score);
    assert!(
        guide.contains(&shown),
        "docs/rules-files.md does not give {shown}"
    );
}

/// The table of saved rolls written as the solve goes and read back, whole and in part: every
/// value the solve gives, bit for bit; a value the table cannot hold is `None`.
#[test]
fn the_table_of_saved_rolls_holds_the_solve() {
    let rules = game(
        5,
        3,
        "joker = \"forced\"\nfive_of_a_kind_bonus = 100",
        LOWER_FIVE,
    );
    let dir = temp_dir();
    let path = join(dir.path(), "saved.table");
    let built = SavedTable::build(&path, &rules, SolveOptions::default(), &|_, _| {}).unwrap();
    let solved = solve(&rules);
    assert_eq!(built.solution.expected_score, solved.expected_score);
    // A value per state solved, and the full cards' (0, for each number of rolls saved).
    let full = card_states(&rules, rules.full_mask()).len() * (rules.most_saved_rolls(4) + 1);
    assert_eq!(built.values, built.solution.states + full as u64);
    let whole = SavedTable::load(&path, &rules).unwrap();
    assert!(whole.is_whole());
    assert_eq!(whole.expected_score(), Some(solved.expected_score));
    let mut checked = 0;
    for filled in 0..=rules.full_mask() {
        let part = SavedTable::load_cards(&path, &rules, &[filled]).unwrap();
        let played = filled.count_ones() as usize;
        for s in card_states(&rules, filled) {
            for saved in 0..=rules.most_saved_rolls(played) {
                let want = solved.value(&s, saved).unwrap();
                assert_eq!(whole.value(&s, saved).unwrap().to_bits(), want.to_bits());
                assert_eq!(part.value(&s, saved).unwrap().to_bits(), want.to_bits());
                checked += 1;
            }
            assert_eq!(whole.value(&s, rules.most_saved_rolls(played) + 1), None);
        }
    }
    assert!(checked > 100, "{checked}");
    // A damaged byte is found, whole or in part.
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() - 4 * 8;
    bytes[at] ^= 1;
    let bad = join(dir.path(), "bad.table");
    std::fs::write(&bad, &bytes).unwrap();
    assert!(SavedTable::load(&bad, &rules).is_err());
}

/// Advice under saved rolls against the naive solver: on cards of a reduced game (five dice,
/// the five-of-a-kind bonus and Joker), with each number of rolls saved and re-rolls left
/// up to the most, every option's value (each box filled now with the re-rolls left saved,
/// each keep), and the best option's value is the hand's.
#[test]
fn advice_under_saved_rolls_agrees_with_brute_force() {
    let rules = game(
        5,
        3,
        "joker = \"forced\"\nfive_of_a_kind_bonus = 100",
        LOWER_FIVE,
    );
    let dir = temp_dir();
    let path = join(dir.path(), "saved.table");
    SavedTable::build(&path, &rules, SolveOptions::default(), &|_, _| {}).unwrap();
    let mut brute = BruteForce::new(rules);
    let cards: [&[(usize, u32)]; 5] = [
        &[],
        &[(1, 25)],
        &[(2, 50)],
        &[(2, 0), (3, 17)],
        &[(0, 12), (1, 0), (3, 30)],
    ];
    let hands: [[u8; 5]; 4] = [
        [1, 1, 2, 2, 3],
        [6, 6, 6, 6, 6],
        [2, 3, 4, 5, 6],
        [1, 1, 1, 5, 6],
    ];
    let mut checked = 0;
    for boxes in cards {
        let card = ScoreCard::from_boxes(rules, boxes, 0).unwrap();
        let state = card.state();
        let table = SavedTable::load_cards(&path, &rules, &[state.filled]).unwrap();
        let most = 2 + rules.most_saved_rolls(boxes.len());
        let layers = brute.saved_layers(state, most);
        let banked = f64::from(card.banked());
        for faces in hands {
            let dice = rules.dice().dice_of(&faces).unwrap();
            let h = brute.hand(&faces);
            for rolls_left in 0..=most {
                let position = Position {
                    card: card.clone(),
                    dice,
                    rolls_left: rolls_left as u8,
                };
                let advice = advise(&table, &position).unwrap();
                let best = advice.options[0].expected_final - banked;
                assert!(
                    (best - layers[rolls_left][h]).abs() < 1e-9,
                    "{boxes:?} {faces:?} {rolls_left}: {best} vs {}",
                    layers[rolls_left][h]
                );
                for option in &advice.options {
                    let want = match &option.action {
                        Action::Score {
                            category,
                            points,
                            bonus,
                            saves,
                        } => {
                            assert_eq!(*saves, Some(rolls_left as u8));
                            let index = rules.box_by_name(category).unwrap();
                            let next = state.after(&rules, index, *points);
                            f64::from(points + bonus) + brute.saved_value(next, rolls_left)
                        }
                        Action::Keep {
                            keep,
                            stop_and_score,
                        } => {
                            assert!(rolls_left > 0 && stop_and_score.is_none() && keep.len() < 5);
                            brute.keep_value(&keep.faces(), &layers[rolls_left - 1])
                        }
                    };
                    let got = option.expected_final - banked;
                    assert!(
                        (got - want).abs() < 1e-9,
                        "{boxes:?} {faces:?} {rolls_left} {}: {got} vs {want}",
                        option.action
                    );
                    checked += 1;
                }
            }
        }
        // Past the most re-rolls the card can have: refused.
        let position = Position {
            card: card.clone(),
            dice: rules.dice().dice_of(&hands[0]).unwrap(),
            rolls_left: (most + 1) as u8,
        };
        assert!(advise(&table, &position).is_err());
    }
    assert!(checked > 1000, "{checked}");
}

/// The command line on a small game with saved rolls: `solve` prints the solve's expected
/// score (and its JSON) and writes its table, `advise` reads it with the rolls saved and the
/// re-rolls left, every objective but the expected score is refused (`play --target` too), and
/// the commands that do not know saved rolls yet refuse the game in one line, exit 2, before
/// building anything.
#[test]
fn the_command_line_solves_a_game_of_saved_rolls_and_refuses_the_rest() {
    let dir = temp_dir();
    let text = format!(
        "name = \"saved-cli\"\ndice = 5\nrolls = 3\nsaved_rolls = true\njoker = \"forced\"\nfive_of_a_kind_bonus = 100\n{LOWER_FIVE}"
    );
    let file = join(dir.path(), "saved.toml");
    std::fs::write(&file, &text).unwrap();
    let file = path_str(&file);
    let want = solve(&load(&text, None).unwrap()).expected_score;
    let json = json_in(dir.path(), &["solve", "--rules", &file, "--json"]);
    assert_eq!(json["expected_score"].as_f64(), Some(want), "{json}");
    assert_eq!(json["saved_rolls"], true);
    assert!(json["states"].as_u64().unwrap() > 100, "{json}");
    let o = run_bytes(dir.path(), &["solve", "--rules", &file], b"");
    assert!(
        stdout(&o).contains(&format!("expected score {want:.10}")),
        "{}",
        stdout(&o)
    );
    for flags in [
        &["solve", "--objective", "target"][..],
        &["solve", "--two-player"],
    ] {
        let mut args = flags.to_vec();
        args.extend(["--rules", &file]);
        assert_bad_input(&run_bytes(dir.path(), &args, b""), "saved_rolls = true");
    }
    // The table `solve` wrote answers `advise`, as the library does.
    let rules = load(&text, None).unwrap();
    let table = SavedTable::load(
        &join(
            dir.path(),
            &std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .find(|n| n.ends_with(".table"))
                .unwrap(),
        ),
        &rules,
    )
    .unwrap();
    let card = ScoreCard::parse(rules, "house=25", 0).unwrap();
    let position = Position {
        card,
        dice: rules.dice().parse("1 1 2 2 3").unwrap(),
        rolls_left: 3,
    };
    let advised = advise(&table, &position).unwrap();
    let json = json_in(
        dir.path(),
        &[
            "advise", "--rules", &file, "--card", "house=25", "--dice", "11223", "--saved", "1",
            "--json",
        ],
    );
    assert_eq!(json["rolls_left"], 3, "{json}");
    let options = json["options"].as_array().unwrap();
    assert_eq!(options.len(), advised.options.len());
    for (got, want) in options.iter().zip(&advised.options) {
        assert_eq!(
            got["expected_final"].as_f64(),
            Some(want.expected_final),
            "{got}"
        );
    }
    assert!(
        options
            .iter()
            .any(|o| o["kind"] == "score" && o["saves"] == 3),
        "{json}"
    );
    assert!(json["table_checksum"].is_string(), "{json}");
    // --batch: the same answer from a query with "saved", an error line for each mistake.
    let input = concat!(
        r#"{"card": {"house": 25}, "dice": [1, 1, 2, 2, 3], "saved": 1}"#,
        "\n",
        r#"{"card": {"house": 25}, "dice": [1, 1, 2, 2, 3], "saved": 1, "rolls_left": 4}"#,
        "\n",
        r#"{"card": {"house": 25}, "dice": [1, 1, 2, 2, 3], "saved": 3}"#,
        "\n",
        r#"{"dice": [1, 1, 2, 2, 3], "target": 100}"#,
        "\n",
    );
    let o = run_bytes(
        dir.path(),
        &["advise", "--rules", &file, "--batch"],
        input.as_bytes(),
    );
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "{}", stdout(&o));
    assert_eq!(lines[0]["options"], json["options"], "{}", lines[0]);
    assert!(
        lines[1]["error"]
            .as_str()
            .unwrap()
            .contains("rolls left must be 0 to 3"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2]["error"]
            .as_str()
            .unwrap()
            .contains("at most 2 rolls can be saved"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3]["error"]
            .as_str()
            .unwrap()
            .contains("saved_rolls = true"),
        "{}",
        lines[3]
    );
    let other = temp_dir();
    let o = run_bytes(
        other.path(),
        &["advise", "--rules", "yacht", "--batch"],
        concat!(r#"{"dice": [1, 1, 2, 2, 3], "saved": 1}"#, "\n").as_bytes(),
    );
    assert!(
        stdout(&o).contains("this game does not keep unused rolls"),
        "{}",
        stdout(&o)
    );
    let o = run_bytes(
        dir.path(),
        &[
            "advise", "--rules", &file, "--card", "house=25", "--dice", "11223", "--saved", "1",
        ],
        b"",
    );
    assert!(stdout(&o).contains(", keep 3 rolls"), "{}", stdout(&o));
    for (flags, needle) in [
        (&["--saved", "3"][..], "at most 2 rolls can be saved"),
        (
            &["--saved", "1", "--rolls-left", "4"],
            "rolls left must be 0 to 3",
        ),
        (&["--target", "100"], "saved_rolls = true"),
    ] {
        let mut args = vec![
            "advise", "--rules", &file, "--card", "house=25", "--dice", "11223",
        ];
        args.extend(flags);
        assert_bad_input(&run_bytes(dir.path(), &args, b""), needle);
    }
    let yacht = run_bytes(
        dir.path(),
        &[
            "advise", "--rules", "yacht", "--dice", "11223", "--saved", "1",
        ],
        b"",
    );
    assert_bad_input(&yacht, "--saved");
    // Simulated games under saved rolls: the mean within its interval of the exact value, the
    // same report at any thread count; the other policies and matches refused.
    let json = json_in(
        dir.path(),
        &["simulate", "--rules", &file, "--games", "3000", "--json"],
    );
    let (low, high) = (
        json["mean_interval"]["low"].as_f64().unwrap(),
        json["mean_interval"]["high"].as_f64().unwrap(),
    );
    let se = json["mean_interval"]["standard_error"].as_f64().unwrap();
    assert!(
        (low + high) / 2.0 - want < 4.0 * se && want - (low + high) / 2.0 < 4.0 * se,
        "{want} {json}"
    );
    let one = json_in(
        dir.path(),
        &[
            "simulate",
            "--rules",
            &file,
            "--games",
            "3000",
            "--threads",
            "1",
            "--json",
        ],
    );
    assert_eq!(one["mean_interval"], json["mean_interval"]);
    assert_eq!(one["boxes"], json["boxes"]);
    for flags in [&["--policy", "greedy"][..], &["--match", "optimal,greedy"]] {
        let mut args = vec!["simulate", "--rules", &file, "--games", "10"];
        args.extend(flags);
        assert_bad_input(&run_bytes(dir.path(), &args, b""), "saved_rolls = true");
    }
    // `play` plays such a game (its tests are below), the other objectives refused.
    assert_bad_input(
        &run_bytes(
            dir.path(),
            &["play", "--target", "100", "--rules", &file],
            b"",
        ),
        "saved_rolls = true",
    );
    // The exact distribution from a new game (checked against the brute force below): its
    // mean the solve's; from a card, or for a target, refused in one line.
    let json = json_in(dir.path(), &["stats", "--rules", &file, "--json"]);
    assert!(
        (json["mean"].as_f64().unwrap() - want).abs() < 1e-9,
        "{want} {json}"
    );
    assert_eq!(json["solver_mean"].as_f64(), Some(want), "{json}");
    // The same distribution at any thread count, to the bit.
    let one = json_in(
        dir.path(),
        &["stats", "--rules", &file, "--threads", "1", "--json"],
    );
    for key in [
        "percentiles",
        "at_least",
        "boxes",
        "std_dev",
        "mean",
        "shape",
        "split",
    ] {
        assert_eq!(one[key], json[key], "{key}");
    }
    for (flags, needle) in [
        (
            &["--card", "house=25"][..],
            "computed from a new game alone",
        ),
        (&["--target", "100"], "saved_rolls = true"),
    ] {
        let mut args = vec!["stats", "--rules", &file];
        args.extend(flags);
        assert_bad_input(&run_bytes(dir.path(), &args, b""), needle);
    }
    // `verify` reads the table of saved rolls piece by piece and names its expected score.
    let table_file = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "table"))
        .unwrap();
    let json = json_in(
        dir.path(),
        &["verify", &path_str(&table_file), "--rules", &file, "--json"],
    );
    assert_eq!(json["expected_score"].as_f64(), Some(want), "{json}");
    // A value changed in place (its piece's checksum no longer holds) is found.
    let mut bytes = std::fs::read(&table_file).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x10;
    let bad = join(dir.path(), "bad.table");
    std::fs::write(&bad, &bytes).unwrap();
    let o = run_bytes(
        dir.path(),
        &["verify", &path_str(&bad), "--rules", &file],
        b"",
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    std::fs::remove_file(&bad).unwrap();
    // Nothing else was written: the rules and the one table.
    let mut left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left.len(), 2, "{left:?}");
    assert!(left.iter().any(|n| n == "saved.toml"), "{left:?}");
    assert!(left.iter().any(|n| n.ends_with(".table")), "{left:?}");
}

/// The server's advice under saved rolls is `advise --batch`'s, by the same path: a query with
/// the rolls saved, posted to `/api/advise` of `serve --rules FILE`, gets the command's line.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn the_server_advises_under_saved_rolls_as_advise_batch_does() {
    let dir = temp_dir();
    let text = format!(
        "name = \"saved-serve\"\ndice = 5\nrolls = 3\nsaved_rolls = true\njoker = \"forced\"\nfive_of_a_kind_bonus = 100\n{LOWER_FIVE}"
    );
    let file = join(dir.path(), "saved.toml");
    std::fs::write(&file, &text).unwrap();
    let file = path_str(&file);
    let lines = [
        r#"{"card": {"house": 25}, "dice": [1, 1, 2, 2, 3], "saved": 1}"#,
        r#"{"dice": [6, 6, 6, 6, 2], "rolls_left": 1}"#,
        r#"{"card": {"house": 25}, "dice": [1, 1, 2, 2, 3], "saved": 1, "rolls_left": 4}"#,
    ];
    // Maxi Yatzy's table of saved rolls (minutes, gigabytes) is not built by a request: the
    // server says how to build it, and builds nothing.
    {
        let empty = temp_dir();
        let server = crate::serve::Served::start_in(empty.path(), &["--rules", "yacht"]);
        let (status, body) = server.post(
            "/api/advise?rules=maxi-yatzy",
            r#"{"dice": [1, 2, 3, 4, 5, 6], "saved": 0}"#,
        );
        assert_eq!(status, 503, "{body}");
        assert!(body.contains("yahtzee solve --rules maxi-yatzy"), "{body}");
        let built: Vec<_> = std::fs::read_dir(empty.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().contains("maxi"))
            .collect();
        assert!(built.is_empty(), "{built:?}");
    }
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let o = run_bytes(
        dir.path(),
        &["advise", "--rules", &file, "--batch"],
        input.as_bytes(),
    );
    let want: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert_eq!(want.len(), lines.len(), "{}", stderr(&o));
    let server = crate::serve::Served::start_in(dir.path(), &["--rules", &file]);
    for (line, want) in lines.iter().zip(&want) {
        let (status, body) = server.post("/api/advise", line);
        assert_eq!(&body, want, "{line}");
        let error = want.starts_with(r#"{"error":"#);
        assert_eq!(status, if error { 400 } else { 200 }, "{line}: {body}");
    }
    assert!(want[0].contains(r#""saves":3"#), "{}", want[0]);
    // The card's view gives the page the most rolls its turns played may have saved.
    let (status, body) = server.post("/api/card", r#"{"card": "house=25"}"#);
    assert_eq!(status, 200, "{body}");
    let view: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(view["most_saved"], 2, "{body}");
    let (status, body) = server.post("/api/card?rules=yacht", r#"{"card": "choice=20"}"#);
    assert_eq!(status, 200, "{body}");
    assert!(!body.contains("most_saved"), "{body}");
}

/// The exact distribution of the final score under saved rolls (`stats::saved`) against the
/// naive solver's distribution of the same policy (every choice the best by its own values,
/// ties by the documented rule): five dice with the five-of-a-kind bonus and Joker at two and
/// three rolls a turn, and six dice; every final score's chance to 1e-9, the mean the
/// expected score, every box filled once in every game.
#[test]
fn the_exact_distribution_under_saved_rolls_agrees_with_brute_force() {
    let forced = "joker = \"forced\"\nfive_of_a_kind_bonus = 100";
    for rules in [
        game(5, 3, forced, LOWER_FIVE),
        game(5, 2, forced, LOWER_FIVE),
        game(6, 3, "", SIX_DICE_BOXES),
    ] {
        let dir = temp_dir();
        let path = join(dir.path(), "saved.table");
        SavedTable::build(&path, &rules, SolveOptions::default(), &|_, _| {}).unwrap();
        let table = SavedTable::load(&path, &rules).unwrap();
        let tally = yahtzee_core::stats::saved::saved_distribution(&table, &|_, _| {});
        let want = BruteForce::new(rules).saved_policy_distribution(State::START, 0);
        let got = &tally.score;
        for score in 0..got.len().max(want.len()) {
            let (g, w) = (
                got.get(score).copied().unwrap_or(0.0),
                want.get(score).copied().unwrap_or(0.0),
            );
            assert!(
                (g - w).abs() < 1e-9,
                "{}: P({score}) {g} vs {w}",
                rules.label()
            );
        }
        assert!((tally.total() - 1.0).abs() < 1e-12);
        let mean: f64 = tally.pmf().iter().map(|&(s, p)| f64::from(s) * p).sum();
        let expected = table.expected_score().unwrap();
        assert!((mean - expected).abs() < 1e-9, "{mean} vs {expected}");
        for b in &tally.boxes {
            assert!((b.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        assert!(want.iter().filter(|&&p| p > 0.0).count() > 10);
    }
}

/// An option of advice (its JSON, `advise --json`'s) as exports write it: a keep as its faces
/// (`-` for none), a box by its name, with the re-rolls it saves when there are any.
fn option_text(option: &serde_json::Value) -> String {
    match option["kind"].as_str() {
        Some("keep") => {
            let faces: String = (option["keep"].as_array().unwrap().iter())
                .map(|f| f.to_string())
                .collect();
            if faces.is_empty() {
                "-".to_string()
            } else {
                faces
            }
        }
        Some("score") => {
            let category = option["category"].as_str().unwrap();
            match option["saves"]
                .as_u64()
                .expect("a box under saved rolls saves")
            {
                0 => category.to_string(),
                n => format!("{category} (saves {n})"),
            }
        }
        _ => panic!("an option: {option}"),
    }
}

/// Asserts that the exported decision `row` (its JSON) is the advice `advice` (the JSON of
/// `advise --json`, or the library's advice as JSON) on the same position, `banked` points on
/// the card: the best option and the runner-up are advice's first two, the value its best's
/// to 1e-9 (rounded as exports round), the gap its loss to the runner-up.
fn assert_row_is_advice(row: &serde_json::Value, advice: &serde_json::Value, what: &str) {
    let options = advice["options"].as_array().unwrap();
    assert_eq!(
        row["best"],
        option_text(&options[0]).as_str(),
        "{what}: {row}"
    );
    let best = options[0]["expected_final"].as_f64().unwrap();
    let expected = row["expected"].as_f64().unwrap();
    assert!(
        (expected - yahtzee_core::export::round(best)).abs() < 1e-9,
        "{what}: {expected} vs {best}"
    );
    match options.get(1) {
        None => assert!(row["runner_up"].is_null() && row["gap"].is_null(), "{what}"),
        Some(second) => {
            assert_eq!(row["runner_up"], option_text(second).as_str(), "{what}");
            let loss = second["loss"].as_f64().unwrap();
            let gap = row["gap"].as_f64().unwrap();
            // Advice's loss is taken on final scores (the banked points added), the export's
            // gap on the points to come: the same to a few ulps, a rounding unit at most.
            assert!(
                (gap - loss).abs() < 1e-6,
                "{what}: gap {gap} vs loss {loss}"
            );
        }
    }
}

/// The rows of an export in JSON lines, and its metadata.
fn jsonl(o: &std::process::Output) -> (serde_json::Value, Vec<serde_json::Value>) {
    assert!(o.status.success(), "{}", stderr(o));
    let mut lines = stdout(o)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .collect::<Vec<_>>()
        .into_iter();
    let meta = lines.next().expect("the metadata line")["metadata"].clone();
    (meta, lines.collect())
}

/// `export` of a card's turn in Yatzy with saved rolls (`--card`, `--saved N`): every roll at
/// every re-roll left from the turn's most (2 + N) down to 0, each decision the one `advise`
/// ranks first, its value and the runner-up advise's: every row against the library's advice
/// on the table, and rows of several rolls and re-rolls left against `advise --saved N
/// --rolls-left R --json`; `--rolls-left` keeps the rows of one number of re-rolls left, the
/// same rows.
#[test]
fn the_turn_export_under_saved_rolls_is_advise() {
    let (_, rules, table) = saved_yatzy();
    let cards = [
        ("", 0u8),
        ("ones=3,twos=4", 2),
        (
            "ones=3,twos=4,threes=6,fours=8,fives=10,sixes=12,one-pair=8",
            14,
        ),
        ("chance=20,yatzy=50", 4),
    ];
    let mut checked = 0;
    for (card_text, saved) in cards {
        let card = ScoreCard::parse(rules, card_text, 0).unwrap();
        let saved_flag = saved.to_string();
        let flags = [
            "export",
            "--card",
            card_text,
            "--saved",
            &saved_flag,
            "--format",
            "jsonl",
        ];
        let (meta, rows) = jsonl(&run_saved_yatzy(&flags));
        assert_eq!(
            meta["table_checksum"],
            format!("{:08x}", table.checksum()).as_str(),
            "{meta}"
        );
        assert!(
            meta["title"]
                .as_str()
                .unwrap()
                .contains(&format!("with {saved} rolls saved")),
            "{meta}"
        );
        let most = 2 + u64::from(saved);
        assert_eq!(rows.len() as u64, 252 * (most + 1), "{card_text}");
        for (i, row) in rows.iter().enumerate() {
            let rolls_left = most - i as u64 / 252;
            assert_eq!(row["rolls_left"], rolls_left, "{card_text} {row}");
            let dice = rules.dice().parse(row["dice"].as_str().unwrap()).unwrap();
            let position = Position {
                card: card.clone(),
                dice,
                rolls_left: rolls_left as u8,
            };
            let advice = serde_json::to_value(advise(table, &position).unwrap()).unwrap();
            assert_row_is_advice(row, &advice, &format!("{card_text} {rolls_left}"));
            assert!(row["visit_probability"].is_null(), "{row}");
            checked += 1;
        }
        // The command's own advice on a few positions.
        for (dice, rolls_left) in [
            ("11223", most),
            ("66666", most / 2),
            ("12345", 1),
            ("13456", 0),
            ("22335", most),
        ] {
            let r = rolls_left.to_string();
            let o = run_saved_yatzy(&[
                "advise",
                "--card",
                card_text,
                "--dice",
                dice,
                "--saved",
                &saved_flag,
                "--rolls-left",
                &r,
                "--json",
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
            let advice: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
            let row = rows
                .iter()
                .find(|row| row["dice"] == dice && row["rolls_left"] == rolls_left)
                .unwrap();
            assert_row_is_advice(row, &advice, &format!("{card_text} {dice} {rolls_left}"));
        }
        // One number of re-rolls left: its rows, as the whole turn has them.
        let r = (most - 1).to_string();
        let mut filtered = flags.to_vec();
        filtered.extend(["--rolls-left", &r]);
        let (_, part) = jsonl(&run_saved_yatzy(&filtered));
        let want: Vec<&serde_json::Value> = rows
            .iter()
            .filter(|row| row["rolls_left"] == most - 1)
            .collect();
        assert_eq!(part.len(), 252);
        assert_eq!(part.iter().collect::<Vec<_>>(), want, "{card_text}");
    }
    assert_eq!(checked, 252 * (3 + 5 + 17 + 7));
    // A box filled with re-rolls left says what it saves: five sixes at once.
    let o = run_saved_yatzy(&["export", "--rolls-left", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(",66666,2,yatzy (saves 2),"),
        "{}",
        stdout(&o)
    );
}

/// `export --opening` of Yatzy with saved rolls: the first turn, no roll saved, the sheet of
/// every other game (252 rolls, two decisions each), each decision `advise`'s.
#[test]
fn the_opening_under_saved_rolls_is_advise() {
    let (_, rules, table) = saved_yatzy();
    let (meta, rows) = jsonl(&run_saved_yatzy(&[
        "export",
        "--opening",
        "--format",
        "jsonl",
    ]));
    assert!(
        meta["notes"][0]
            .as_str()
            .unwrap()
            .contains(&format!("{:.4}", table.expected_score().unwrap())),
        "{meta}"
    );
    assert_eq!(rows.len(), 252);
    let card = ScoreCard::new(rules);
    for row in &rows {
        let dice = rules.dice().parse(row["dice"].as_str().unwrap()).unwrap();
        for rolls_left in [2, 1] {
            let position = Position {
                card: card.clone(),
                dice,
                rolls_left,
            };
            let advice = serde_json::to_value(advise(table, &position).unwrap()).unwrap();
            let decision = serde_json::json!({
                "best": row[format!("best_{rolls_left}")],
                "expected": if rolls_left == 2 {
                    row["expected"].clone()
                } else {
                    // The sheet gives the value of the roll with two rolls left alone.
                    serde_json::json!(yahtzee_core::export::round(
                        advice["options"][0]["expected_final"].as_f64().unwrap()
                    ))
                },
                "runner_up": row[format!("runner_up_{rolls_left}")],
                "gap": row[format!("gap_{rolls_left}")],
            });
            assert_row_is_advice(&decision, &advice, &format!("{row}"));
        }
    }
    // No roll is saved before the first turn.
    assert_bad_input(
        &run_saved_yatzy(&["export", "--opening", "--saved", "1"]),
        "leave out --saved",
    );
}

/// A game of saved rolls with the upper bonus and a chance: seven boxes, every state and
/// number of rolls saved in a few thousand values.
fn upper_game() -> String {
    let faces: String = (1..=6)
        .map(|f| format!("\n[[box]]\nname = \"f{f}\"\nkind = \"face\"\nface = {f}\n"))
        .collect();
    format!(
        "name = \"saved-upper\"\ndice = 5\nrolls = 3\nsaved_rolls = true\nupper_bonus = {{ threshold = 8, points = 20 }}\n{faces}\n[[box]]\nname = \"chance\"\nkind = \"chance\"\n"
    )
}

/// `export --all-states` of games of saved rolls: every reachable state once for each number
/// of rolls saved it can have (as many rows as the table has values,
/// `saved_value_count`), in layout order and the rolls saved ascending, each value the
/// solve's; the empty card with none saved is the game's expected score.
#[test]
fn every_state_under_saved_rolls_is_exported_with_its_rolls_saved() {
    use yahtzee_core::game::state::reachable_states;
    use yahtzee_core::tables::saved::saved_value_count;
    let dir = temp_dir();
    for (name, text) in [
        ("upper.toml", upper_game()),
        (
            "lower.toml",
            format!(
                "name = \"saved-lower\"\ndice = 5\nrolls = 3\nsaved_rolls = true\njoker = \"forced\"\nfive_of_a_kind_bonus = 100\n{LOWER_FIVE}"
            ),
        ),
    ] {
        let file = join(dir.path(), name);
        std::fs::write(&file, &text).unwrap();
        let rules = load(&text, None).unwrap();
        let solved = solve(&rules);
        let o = run_bytes(
            dir.path(),
            &["export", "--rules", &path_str(&file), "--all-states"],
            b"",
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let text = stdout(&o);
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("filled,upper,yahtzee_50,turns_played,saved,expected_remaining")
        );
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len() as u64, saved_value_count(&rules), "{name}");
        let mut want = reachable_states(&rules).flat_map(|s| {
            let t = s.turns_played() as usize;
            (0..=rules.most_saved_rolls(t)).map(move |saved| (s, saved))
        });
        for row in &rows {
            let (s, saved) = want.next().unwrap();
            let state = format!(
                "{},{},{},{},{saved}",
                s.filled,
                s.upper,
                s.yahtzee_50,
                s.turns_played()
            );
            assert_eq!(row[..5].join(","), state, "{name}");
            let value: f64 = row[5].parse().unwrap();
            let exact = solved.value(&s, saved).unwrap();
            assert!(
                (value - yahtzee_core::export::round(exact)).abs() < 1e-9,
                "{name} {state}: {value} vs {exact}"
            );
        }
        assert!(want.next().is_none());
        assert_eq!(rows[0][..5].join(","), "0,0,false,0,0");
        let start: f64 = rows[0][5].parse().unwrap();
        assert!((start - yahtzee_core::export::round(solved.expected_score)).abs() < 1e-9);
        // --rolls-left and --min-gap select decisions: not with the values alone.
        assert_bad_input(
            &run_bytes(
                dir.path(),
                &[
                    "export",
                    "--rules",
                    &path_str(&file),
                    "--all-states",
                    "--rolls-left",
                    "3",
                ],
                b"",
            ),
            "add --policy",
        );
    }
}

/// `export --all-states --policy` of a game of saved rolls: every decision of every state with
/// an open box at each number of re-rolls left its turns can have (0 to 2 and the most rolls
/// it can have saved), each `advise`'s on cards of those states; `--rolls-left` keeps one
/// number of them, up to the last turn's most.
#[test]
fn the_policy_under_saved_rolls_is_every_state_at_every_reroll_left() {
    use yahtzee_core::game::state::reachable_states;
    use yahtzee_core::policy::saved::most_rerolls;
    let dir = temp_dir();
    let text = format!(
        "name = \"saved-policy\"\ndice = 5\nrolls = 3\nsaved_rolls = true\njoker = \"forced\"\nfive_of_a_kind_bonus = 100\n{LOWER_FIVE}"
    );
    let file = join(dir.path(), "saved.toml");
    std::fs::write(&file, &text).unwrap();
    let file = path_str(&file);
    let rules = load(&text, None).unwrap();
    let (_, rows) = jsonl(&run_bytes(
        dir.path(),
        &[
            "export",
            "--rules",
            &file,
            "--all-states",
            "--policy",
            "--format",
            "jsonl",
        ],
        b"",
    ));
    let want: usize = reachable_states(&rules)
        .filter(|s| s.filled != rules.full_mask())
        .map(|s| 252 * (most_rerolls(&rules, s.turns_played() as usize) + 1))
        .sum();
    assert_eq!(rows.len(), want);
    let table_file = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "table"))
        .unwrap();
    let table = SavedTable::load(&table_file, &rules).unwrap();
    let cards: [&[(usize, u32)]; 4] = [&[], &[(1, 25)], &[(2, 50)], &[(0, 12), (1, 0), (3, 30)]];
    let mut checked = 0;
    for boxes in cards {
        let card = ScoreCard::from_boxes(rules, boxes, 0).unwrap();
        let state = card.state();
        let banked = f64::from(card.banked());
        let of_state: Vec<&serde_json::Value> = rows
            .iter()
            .filter(|r| {
                r["filled"] == state.filled
                    && r["upper"] == state.upper
                    && r["yahtzee_50"] == state.yahtzee_50
            })
            .collect();
        let most = most_rerolls(&rules, boxes.len());
        assert_eq!(of_state.len(), 252 * (most + 1), "{boxes:?}");
        for row in of_state {
            let rolls_left = row["rolls_left"].as_u64().unwrap() as u8;
            let dice = rules.dice().parse(row["dice"].as_str().unwrap()).unwrap();
            let position = Position {
                card: card.clone(),
                dice,
                rolls_left,
            };
            let mut advice = serde_json::to_value(advise(&table, &position).unwrap()).unwrap();
            // The policy's values count no banked points.
            for option in advice["options"].as_array_mut().unwrap() {
                let v = option["expected_final"].as_f64().unwrap();
                option["expected_final"] = serde_json::json!(v - banked);
            }
            assert_row_is_advice(row, &advice, &format!("{boxes:?} {rolls_left}"));
            checked += 1;
        }
    }
    assert!(checked > 2000, "{checked}");
    // One number of re-rolls left: the rows that have it, the last turn's most at most.
    let most = most_rerolls(&rules, rules.box_count() - 1);
    let r = most.to_string();
    let (_, part) = jsonl(&run_bytes(
        dir.path(),
        &[
            "export",
            "--rules",
            &file,
            "--all-states",
            "--policy",
            "--rolls-left",
            &r,
            "--format",
            "jsonl",
        ],
        b"",
    ));
    let want: Vec<&serde_json::Value> = rows.iter().filter(|r| r["rolls_left"] == most).collect();
    assert!(!want.is_empty());
    assert_eq!(part.iter().collect::<Vec<_>>(), want);
    let over = (most + 1).to_string();
    assert_bad_input(
        &run_bytes(
            dir.path(),
            &[
                "export",
                "--rules",
                &file,
                "--all-states",
                "--policy",
                "--rolls-left",
                &over,
            ],
            b"",
        ),
        &format!("rolls left must be 0 to {most}"),
    );
}

/// The mistakes of `export` under saved rolls, and `--saved` in a game without them: one line,
/// exit 2, before any table is read or built.
#[test]
fn export_refuses_what_saved_rolls_do_not_allow_in_one_line() {
    for (flags, needle) in [
        (
            &["export", "--card", "ones=3", "--saved", "3"][..],
            "at most 2 rolls can be saved",
        ),
        (
            &[
                "export",
                "--card",
                "ones=3",
                "--saved",
                "2",
                "--rolls-left",
                "5",
            ],
            "rolls left must be 0 to 4",
        ),
        (
            &["export", "--rolls-left", "3"],
            "rolls left must be 0 to 2",
        ),
        (
            &["export", "--all-states", "--saved", "1"],
            "leave out --saved",
        ),
        (&["export", "--target", "200"], "saved_rolls = true"),
    ] {
        assert_bad_input(&run_saved_yatzy(flags), needle);
    }
    // A game without saved rolls: --saved is refused, nothing built.
    let dir = temp_dir();
    let o = run_bytes(
        dir.path(),
        &[
            "export", "--rules", "yacht", "--saved", "1", "--out", "x.csv",
        ],
        b"",
    );
    assert_bad_input(&o, "does not (saved_rolls = true in a rules file)");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// `export --all-states --format parquet` of a game of saved rolls: the rows of its CSV, the
/// rolls saved an unsigned byte like the rolls left.
#[test]
#[cfg_attr(
    not(feature = "parquet"),
    ignore = "the Parquet export is a feature: cargo test --release --all-features"
)]
fn every_state_under_saved_rolls_in_parquet_is_its_csv() {
    use crate::parquet::{assert_files_agree, boolean, double, unsigned};
    let dir = temp_dir();
    let file = join(dir.path(), "upper.toml");
    std::fs::write(&file, upper_game()).unwrap();
    let file = path_str(&file);
    let csv = join(dir.path(), "x.csv");
    let pq = join(dir.path(), "x.parquet");
    for (format, path) in [("csv", &csv), ("parquet", &pq)] {
        let out = path_str(path);
        let o = run_bytes(
            dir.path(),
            &[
                "export",
                "--rules",
                &file,
                "--all-states",
                "--format",
                format,
                "--out",
                &out,
            ],
            b"",
        );
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let read = assert_files_agree(&csv, &pq, &["--all-states"]);
    assert_eq!(
        read.types(),
        [
            ("filled", unsigned(32)),
            ("upper", unsigned(8)),
            ("yahtzee_50", boolean()),
            ("turns_played", unsigned(32)),
            ("saved", unsigned(8)),
            ("expected_remaining", double()),
        ]
    );
    let rules = load(&upper_game(), None).unwrap();
    assert_eq!(
        read.group_rows.iter().sum::<i64>() as u64,
        yahtzee_core::tables::saved::saved_value_count(&rules)
    );
}

/// The example rules of Yatzy with saved rolls.
const YATZY_SAVED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/rules/examples/yatzy-saved-rolls.toml"
);

/// A folder holding the table of saved rolls of [`YATZY_SAVED`] (195 MB), built once per test
/// process by `yahtzee solve` (5 to 15 s on two cores), for the games of `play` and their
/// reviews (pass it as `YAHTZEE_TABLE_DIR`, as [`run_bytes`] does).
fn yatzy_saved_tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = temp_dir();
        let o = run_bytes(dir.path(), &["solve", "--rules", YATZY_SAVED], b"");
        assert!(o.status.success(), "{}", stderr(&o));
        dir
    })
    .path()
}

/// `yahtzee play --rules YATZY_SAVED --players PLAYERS --record RECORD FLAGS` with `input`
/// typed, with the table of [`yatzy_saved_tables`]: its output, the game ended without error.
fn play_saved(players: &str, record: &Path, flags: &[&str], input: &str) -> Output {
    let record = path_str(record);
    let mut args = vec![
        "play",
        "--rules",
        YATZY_SAVED,
        "--players",
        players,
        "--record",
        &record,
    ];
    args.extend_from_slice(flags);
    let o = run_bytes(yatzy_saved_tables(), &args, input.as_bytes());
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o
}

/// `yahtzee review RECORD --rules YATZY_SAVED FLAGS` with the table of
/// [`yatzy_saved_tables`].
fn review_saved(record: &Path, flags: &[&str]) -> Output {
    let record = path_str(record);
    let mut args = vec!["review", &record, "--rules", YATZY_SAVED];
    args.extend_from_slice(flags);
    run_bytes(yatzy_saved_tables(), &args, b"")
}

/// The JSON of [`review_saved`] with `--json` (the review must succeed).
fn review_saved_json(record: &Path, flags: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(flags);
    let o = review_saved(record, &all);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("review prints JSON")
}

/// The optimal expected score of Yatzy with saved rolls (docs/rules-files.md).
const YATZY_SAVED_SCORE: f64 = 280.4109275551;

/// A game of two optimal bots of Yatzy with saved rolls: the same seed plays the same game,
/// each turn of 2 re-rolls and the bot's rolls saved (the record states them: a turn's first
/// roll its `saved`, a score its `rolls_left`), the bots save rolls and spend them, and the
/// review prices every decision at zero loss (each the first option of the advice under saved
/// rolls); the rating of the record rates both bots masters, against the exact expected score
/// under saved rolls.
#[test]
fn an_optimal_bot_game_with_saved_rolls_replays_and_reviews_at_zero_loss() {
    let dir = temp_dir();
    let game = |name: &str| {
        let record = dir.path().join(name);
        let o = play_saved("bot,bot2", &record, &["--seed", "11"], "");
        (record, stdout(&o))
    };
    let (a, out) = game("a.jsonl");
    let (b, _) = game("b.jsonl");
    let text = std::fs::read_to_string(&a).unwrap();
    assert_eq!(
        events_but_start(&text),
        events_but_start(&std::fs::read_to_string(&b).unwrap())
    );
    assert!(
        out.contains("(0 rolls saved: 2 re-rolls this turn)"),
        "{out}"
    );
    assert!(out.contains("rolls saved     "), "{out}");
    let events = record_events(&a);
    assert_eq!(events.last().unwrap()["complete"], true);
    // Every turn's first roll has the game's 2 re-rolls and the rolls the player saved, the
    // re-rolls left unused by the box before.
    let mut saved = std::collections::BTreeMap::<String, u64>::new();
    let mut first = true;
    let (mut saving, mut spending) = (0, 0);
    for e in &events[1..] {
        let player = e["player"].as_str().unwrap_or_default().to_string();
        match e["type"].as_str().unwrap() {
            "roll" if first => {
                let had = *saved.get(&player).unwrap_or(&0);
                assert_eq!(e["saved"], had, "{e}");
                assert_eq!(e["rolls_left"], 2 + had, "{e}");
                first = false;
            }
            "roll" => assert!(e.get("saved").is_none(), "{e}"),
            "keep" => {
                spending += usize::from(e["rolls_left"].as_u64().unwrap() > 2);
                assert!(e["keep"].as_array().unwrap().len() < 5, "{e}");
            }
            "score" => {
                let left = e["rolls_left"].as_u64().unwrap();
                saving += usize::from(left > 0);
                saved.insert(player, left);
                first = true;
            }
            _ => {}
        }
    }
    assert!(saving > 5 && spending > 5, "{saving} {spending}");
    let r = review_saved_json(&a, &[]);
    assert_eq!(r["saved_rolls"], true);
    assert_eq!(r["objective"], "expected-score");
    assert_eq!(r["complete"], true);
    for p in r["players"].as_array().unwrap() {
        assert_eq!(p["total_loss"], 0.0, "{p}");
        assert_eq!(p["by_size"]["optimal"], p["decisions"], "{p}");
    }
    let decisions = r["decisions"].as_array().unwrap();
    assert_eq!(
        decisions.iter().filter(|d| d["kind"] == "score").count(),
        2 * 15
    );
    assert!(decisions.iter().all(|d| d["saved"].is_u64()));
    assert!(
        decisions
            .iter()
            .any(|d| d["kind"] == "score" && d["rolls_left"].as_u64() > Some(2))
    );
    let text = stdout(&review_saved(&a, &[]));
    assert!(text.contains("under saved rolls"), "{text}");
    assert!(text.contains(", keep "), "{text}");
    // The rating: masters at zero loss, against the exact expected score under saved rolls.
    let o = review_saved(&a, &["--rating", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rating: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!((rating["optimal_score"].as_f64().unwrap() - YATZY_SAVED_SCORE).abs() < 1e-9);
    for p in rating["players"].as_array().unwrap() {
        assert_eq!(p["rating"], "master", "{p}");
        assert_eq!(p["loss_per_game"]["mean"], 0.0, "{p}");
        let kinds: Vec<&str> = (p["by_kind"].as_array().unwrap().iter())
            .map(|k| k["kind"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            [
                "keep, over 2 rolls left (saved)",
                "keep, 2 rolls left",
                "keep, 1 roll left",
                "box, rolls left (saving them)",
                "box, no roll left"
            ]
        );
    }
    assert!(rating["table_checksum"].is_string(), "{rating}");
}

/// A person's game of Yatzy with saved rolls, typed dice: twos filled on the first roll
/// saves its 2 re-rolls; the next turn has 4 and spends them all (a stop refused, as a keep
/// once none is left); a large straight filled with 2 left saves them; ones filled at once
/// saves 4; the fifth turn, of 6 re-rolls, is left before its roll. The record states the rolls saved and
/// the re-rolls each box saves, the coach speaks on the decisions that lose 0.2 points or
/// more, and the review prices every decision as `advise --saved N --rolls-left R` prices
/// that option, saving against spending.
const SAVING_AND_SPENDING: &str = "\
11223
hint
s twos
12356
stop
k 6
6666
k 66
666
k 666
66
k 6666
6
k 6
s y
23456
s ls
11456
hint all
s 1s
quit
";

/// The game of [`SAVING_AND_SPENDING`], played, recorded, reviewed and rated.
#[test]
fn a_person_saves_rolls_spends_them_and_the_review_prices_each_as_advise_does() {
    let dir = temp_dir();
    let record = dir.path().join("ann.jsonl");
    let o = play_saved("ann", &record, &["--manual-dice"], SAVING_AND_SPENDING);
    let out = stdout(&o);
    assert!(
        out.contains("Saved rolls: the re-rolls a turn leaves unused"),
        "{out}"
    );
    assert!(out.contains("score ones for 2, keep 2 rolls"), "{out}");
    assert!(
        out.contains("ann scores twos for 4 (total 4, rolls saved: 2)"),
        "{out}"
    );
    assert!(
        out.contains("== ann, turn 2 of 15 ==   (2 rolls saved: 4 re-rolls this turn)"),
        "{out}"
    );
    assert!(
        out.contains("ann rolled 1 2 3 5 6   (4 rolls left)"),
        "{out}"
    );
    assert!(
        out.contains("! under saved rolls a turn stops by filling a box"),
        "{out}"
    );
    assert!(out.contains("! no rolls left: score a box"), "{out}");
    assert!(
        out.contains("ann scores large-straight for 20 (total 74, rolls saved: 2)"),
        "{out}"
    );
    assert!(
        out.contains("(4 rolls saved: 6 re-rolls this turn)"),
        "{out}"
    );
    let events = record_events(&record);
    let lines: Vec<&Value> = events.iter().collect();
    let of = |kind: &str| -> Vec<&Value> {
        lines
            .iter()
            .copied()
            .filter(|e| e["type"] == kind)
            .collect()
    };
    let scores: Vec<(u64, u64)> = of("score")
        .iter()
        .map(|e| {
            (
                e["turn"].as_u64().unwrap(),
                e["rolls_left"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(scores, [(1, 2), (2, 0), (3, 2), (4, 4)]);
    let firsts: Vec<(u64, u64)> = of("roll")
        .iter()
        .filter(|e| e.get("saved").is_some())
        .map(|e| {
            (
                e["saved"].as_u64().unwrap(),
                e["rolls_left"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(firsts, [(0, 2), (2, 4), (0, 2), (2, 4)]);
    let keeps: Vec<u64> = of("keep")
        .iter()
        .map(|e| e["rolls_left"].as_u64().unwrap())
        .collect();
    assert_eq!(keeps, [4, 3, 2, 1]);
    assert_eq!(events.last().unwrap()["complete"], false);

    let r = review_saved_json(&record, &[]);
    let decisions = r["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 8);
    let mut total = 0.0;
    let mut coached = 0;
    for d in decisions {
        let card = d["card"].as_str().unwrap();
        let dice: String = (d["dice"].as_array().unwrap().iter())
            .map(|f| f.to_string())
            .collect();
        let (saved, left) = (d["saved"].to_string(), d["rolls_left"].to_string());
        let mut args = vec![
            "advise",
            "--rules",
            YATZY_SAVED,
            "--dice",
            &dice,
            "--saved",
            &saved,
            "--rolls-left",
            &left,
            "--json",
        ];
        if !card.is_empty() {
            args.extend(["--card", card]);
        }
        let advice = json_in(yatzy_saved_tables(), &args);
        let options = advice["options"].as_array().unwrap();
        // The option of the record's line: a keep of those faces, or that box.
        let event = &events[d["line"].as_u64().unwrap() as usize - 1];
        let option = options
            .iter()
            .find(|o| match d["kind"].as_str().unwrap() {
                "keep" => o["kind"] == "keep" && o["keep"] == event["keep"],
                _ => o["kind"] == "score" && o["category"] == event["box"],
            })
            .unwrap_or_else(|| panic!("no option of advise is {d}"));
        let close = |a: f64, b: f64| (a - b).abs() < 1e-10;
        let want = option["loss"].as_f64().unwrap();
        let want = if want <= 1e-9 { 0.0 } else { want };
        let loss = d["loss"].as_f64().unwrap();
        assert!(close(loss, want), "{loss} vs {want}: {d}");
        assert!(close(
            d["best_value"].as_f64().unwrap(),
            options[0]["expected_final"].as_f64().unwrap()
        ));
        assert!(close(
            d["chosen_value"].as_f64().unwrap(),
            option["expected_final"].as_f64().unwrap()
        ));
        if loss >= 0.2 {
            coached += 1;
            assert!(
                out.contains(&format!("costs {loss:.4} points")),
                "{loss} {out}"
            );
        }
        total += loss;
    }
    assert_eq!(out.matches("coach:").count(), coached);
    // Twos instead of ones on the first roll; keeping 6 6 of 6 6 6 6 6 with 3 re-rolls left
    // instead of filling the Yatzy box and saving them.
    assert!(
        decisions[0]["loss"].as_f64().unwrap() > 0.0,
        "{}",
        decisions[0]
    );
    assert_eq!(decisions[0]["best"], "score ones for 2, keep 2 rolls");
    let spent = &decisions[2];
    assert_eq!(
        (spent["rolls_left"].as_u64(), spent["saved"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(spent["best"], "score yatzy for 50, keep 3 rolls");
    assert!(spent["loss"].as_f64().unwrap() > 5.0, "{spent}");
    let p = &r["players"][0];
    assert!((p["total_loss"].as_f64().unwrap() - total).abs() < 1e-9);
    assert_eq!(p["decisions"], 8);
    // The rating counts the keeps spending rolls saved and the boxes saving rolls apart.
    let o = review_saved(&record, &["--rating", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rating: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let counts: Vec<u64> = (rating["players"][0]["by_kind"].as_array().unwrap().iter())
        .map(|k| k["decisions"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [2, 1, 1, 3, 1]);
    let habits = rating["players"][0]["habits"].as_array().unwrap();
    assert!(
        habits.iter().any(|h| h["habit"]
            == "kept 2 dice and rolled again where scoring now (saving the rolls left) is best"),
        "{habits:?}"
    );
}

/// A record of Yatzy with saved rolls that breaks the rule is refused with the line and the
/// reason: a turn's first roll with more re-rolls than the player has, or other rolls saved; a
/// keep with more re-rolls left than the roll before, or once none is left; a box saving more
/// re-rolls than were left; a stop by a keep of all the dice; and a target or a coach for
/// winning in the header of such a game.
#[test]
fn a_record_breaking_the_rule_of_saved_rolls_is_refused_with_the_line_and_reason() {
    let dir = temp_dir();
    let record = dir.path().join("good.jsonl");
    play_saved("ann", &record, &["--manual-dice"], SAVING_AND_SPENDING);
    let text = std::fs::read_to_string(&record).unwrap();
    let good: Vec<String> = text.lines().map(str::to_string).collect();
    let at = |needle: &str| {
        good.iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} not in {text}"))
    };
    let second = at(r#""turn":2,"dice":[1,2,3,5,6],"rolls_left":4,"saved":2"#);
    let first_keep = at(r#""turn":2,"keep":[6],"rolls_left":4"#);
    let last_roll = at(r#""turn":2,"dice":[6,6,6,6,6],"rolls_left":0"#);
    let first_score = at(r#""box":"twos""#);
    let edited = |line: usize, from: &str, to: &str| {
        let mut v = good.clone();
        assert!(v[line].contains(from), "{}", v[line]);
        v[line] = v[line].replace(from, to);
        v
    };
    let inserted = |line: usize, new: &str| {
        let mut v = good.clone();
        v.insert(line, new.to_string());
        v
    };
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            edited(second, r#""rolls_left":4,"saved":2"#, r#""rolls_left":5"#),
            format!(
                "line {}: this roll leaves 4 re-rolls: the turn's 2 and the 2 rolls saved before it, not 5",
                second + 1
            ),
        ),
        (
            edited(second, r#""saved":2"#, r#""saved":3"#),
            format!(
                "line {}: ann had 2 rolls saved before this turn, not 3",
                second + 1
            ),
        ),
        (
            edited(first_keep, r#""rolls_left":4"#, r#""rolls_left":5"#),
            format!(
                "line {}: the keep is made with 4 rolls left, not 5",
                first_keep + 1
            ),
        ),
        (
            inserted(
                last_roll + 1,
                r#"{"type":"keep","player":"ann","turn":2,"keep":[6],"rolls_left":0}"#,
            ),
            format!("line {}: no keep is due now", last_roll + 2),
        ),
        (
            edited(first_score, r#""rolls_left":2"#, r#""rolls_left":3"#),
            format!(
                "line {}: the box is filled with 2 re-rolls left, which it saves, not 3",
                first_score + 1
            ),
        ),
        (
            edited(first_keep, r#""keep":[6]"#, r#""keep":[1,2,3,5,6]"#),
            format!(
                "line {}: under saved rolls a turn stops by filling a box",
                first_keep + 1
            ),
        ),
        (
            edited(
                0,
                r#""coach_win":false"#,
                r#""coach_win":false,"coach_target":200"#,
            )
            .into_iter()
            .map(|l| l.replace(r#""coach_target":null,"#, ""))
            .collect(),
            "line 1: yatzy-saved-rolls-".to_string(),
        ),
    ];
    for (i, (lines, needle)) in cases.into_iter().enumerate() {
        let path = dir.path().join(format!("bad{i}.jsonl"));
        std::fs::write(&path, lines.join("\n")).unwrap();
        let o = review_saved(&path, &[]);
        assert_bad_input(&o, &needle);
    }
    // The record as written is reviewed.
    let o = review_saved(&record, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A game of saved rolls is solved for the expected score alone: `play` refuses a coach for a
/// target or for winning and the bots that play for a target or to win, and `review` the
/// other pricings, in one line, exit 2, before any game or review; the server's page does not
/// host such a game.
#[test]
fn objectives_other_than_the_expected_score_are_refused_in_one_line() {
    let dir = temp_dir();
    let record = path_str(&dir.path().join("never.jsonl"));
    for flags in [
        &["--target", "250"][..],
        &["--players", "ann,bot", "--coach", "win"],
        &["--players", "ann,bot:target=250"],
        &["--players", "ann,bot:win"],
        &["--players", "ann,bot:win-exact"],
    ] {
        let mut args = vec!["play", "--rules", YATZY_SAVED, "--record", &record];
        args.extend_from_slice(flags);
        let o = run_bytes(yatzy_saved_tables(), &args, b"");
        assert_bad_input(&o, "saved_rolls = true");
    }
    let o = run_bytes(
        yatzy_saved_tables(),
        &[
            "play",
            "--rules",
            YATZY_SAVED,
            "--players",
            "ann,bot:two-player",
            "--record",
            &record,
        ],
        b"",
    );
    assert_bad_input(&o, "two-player");
    assert!(!dir.path().join("never.jsonl").exists());
    let played = dir.path().join("bot.jsonl");
    play_saved("bot", &played, &["--seed", "3"], "");
    for flags in [&["--target", "250"][..], &["--win"], &["--two-player"]] {
        assert_bad_input(&review_saved(&played, flags), "saved_rolls = true");
    }
    // `--target off` is the expected score, which is priced.
    let r = review_saved_json(&played, &["--target", "off"]);
    assert_eq!(r["players"][0]["total_loss"], 0.0);
}

/// The page's games keep no rolls saved: a new game of saved rolls posted to `/api/game` is a
/// bad request that says so (and names `yahtzee play`), not the server's error.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn the_page_does_not_host_a_game_of_saved_rolls() {
    let server = crate::serve::Served::start_in(yatzy_saved_tables(), &["--rules", YATZY_SAVED]);
    let (status, body) = server.post("/api/game", r#"{"players": "you,bot", "seed": 1}"#);
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("keeps unused rolls for later turns") && body.contains("`yahtzee play`"),
        "{body}"
    );
}
