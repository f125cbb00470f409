//! The rule of saved rolls (`shared/RULES.md` section 8; `saved_rolls = true` in a rules file):
//! the solve against the naive solver of `brute.rs` on reduced games (five and six dice, the
//! five-of-a-kind bonus and Joker, the upper bonus), every value to 1e-9; a value never falls
//! with a roll more saved; the examples of Yatzy and Maxi Yatzy with saved rolls.

use yahtzee_core::game::rules::Rules;
use yahtzee_core::game::rules::file::load;
use yahtzee_core::game::state::{State, card_states};
use yahtzee_core::solve::expected::SolveOptions;
use yahtzee_core::solve::saved::{SavedSolution, solve_saved};

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

/// Six dice: pairs, Maxi Yatzy's six of a kind and a chance, every state.
#[test]
fn six_dice_agree_with_brute_force() {
    let rules = game(
        6,
        3,
        "",
        r#"
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
"#,
    );
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

/// The command line on a small game with saved rolls: `solve` prints the solve's expected
/// score (and its JSON), refuses a table's flags, and every other command refuses the game
/// in one line, exit 2, before building anything.
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
        &["solve", "--out", "t.table"],
        &["solve", "--two-player"],
    ] {
        let mut args = flags.to_vec();
        args.extend(["--rules", &file]);
        assert_bad_input(&run_bytes(dir.path(), &args, b""), "saved_rolls = true");
    }
    for command in [
        &["advise", "--dice", "1,2,3,4,5"][..],
        &["advise", "--dice", "1,2,3,4,5", "--target", "100"],
        &["stats"],
        &["simulate", "--games", "10"],
        &["export", "--out", "x.csv"],
        &["play"],
    ] {
        let mut args = command.to_vec();
        args.extend(["--rules", &file]);
        assert_bad_input(&run_bytes(dir.path(), &args, b""), "saved_rolls = true");
    }
    // Nothing was written: no table, no export.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["saved.toml"], "{left:?}");
}
