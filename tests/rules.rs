//! `yahtzee rules`: the card of every rule set, named as in `shared/RULES.md`, and box names
//! and aliases accepted the same way wherever a box is named.

use serde_json::Value;
use yahtzee_core::game::rules::{Order, RuleSet};

use crate::util::{run, stdout};

/// The box names of `shared/RULES.md`, in card order.
const YAHTZEE_NAMES: &str = "ones twos threes fours fives sixes three-of-a-kind four-of-a-kind full-house small-straight large-straight yahtzee chance";
const YACHT_NAMES: &str = "ones twos threes fours fives sixes full-house four-of-a-kind little-straight big-straight choice yacht";
const YATZY_NAMES: &str = "ones twos threes fours fives sixes one-pair two-pairs three-of-a-kind four-of-a-kind small-straight large-straight full-house chance yatzy";

fn card_json(rules: &str, extra: &[&str]) -> Value {
    let mut args = vec!["rules", "--rules", rules, "--json"];
    args.extend_from_slice(extra);
    let o = run(RuleSet::YACHT, Order::Any, &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&stdout(&o)).expect("one JSON object")
}

#[test]
fn every_rule_set_has_the_boxes_of_the_rules_sheet_in_card_order() {
    for (rules, names, upper_bonus, highest) in [
        ("yahtzee", YAHTZEE_NAMES, Some(35), 1575),
        ("yahtzee-free-joker", YAHTZEE_NAMES, Some(35), 1575),
        ("yahtzee-plain", YAHTZEE_NAMES, Some(35), 375),
        ("yacht", YACHT_NAMES, None, 303),
        ("yatzy", YATZY_NAMES, Some(50), 374),
    ] {
        let card = card_json(rules, &[]);
        let got: Vec<&str> = card["boxes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["name"].as_str().unwrap())
            .collect();
        assert_eq!(got.join(" "), names, "{rules}");
        assert_eq!(card["rules"], rules);
        assert_eq!(card["upper_first"], false);
        assert_eq!(
            card["upper_bonus"]["points"].as_u64(),
            upper_bonus,
            "{rules}"
        );
        assert_eq!(card["highest_score"], highest, "{rules}");
    }
    let uf = card_json("yatzy", &["--upper-first"]);
    assert_eq!(uf["upper_first"], true);
    assert!(uf["order_rule"].as_str().unwrap().contains("no lower box"));
}

#[test]
fn the_human_card_shows_aliases_scores_bonuses_and_joker() {
    let o = run(RuleSet::YACHT, Order::Any, &["rules", "--rules", "yahtzee"]);
    let text = stdout(&o);
    assert!(o.status.success());
    assert!(text.contains("full-house       fh full"), "{text}");
    assert!(
        text.contains("three of one face and two of another: 25"),
        "{text}"
    );
    assert!(text.contains("upper bonus: 35 when the upper boxes add up to 63 or more"));
    assert!(text.contains("five-of-a-kind bonus: 100"));
    assert!(text.contains("forced Joker"));
}

#[test]
fn advise_help_points_to_the_rules_command() {
    let o = run(RuleSet::YACHT, Order::Any, &["advise", "--help"]);
    assert!(stdout(&o).contains("yahtzee rules"), "{}", stdout(&o));
}

/// A box named by an alias, in any case, gives the same advice as by its name.
#[test]
fn aliases_in_any_case_name_the_same_boxes() {
    let advise = |card: &str| {
        let o = run(
            RuleSet::YATZY,
            Order::Any,
            &[
                "advise", "--rules", "yatzy", "--dice", "22334", "--card", card, "--json",
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        stdout(&o)
    };
    assert_eq!(
        advise("ones=3,two-pairs=14,full-house=13"),
        advise("Aces=3,2P=14,Full House=13")
    );
}

/// Scandinavian Yatzy through every command but `stats` (whose exact distribution takes
/// about a minute for its 1.4 million states; it runs the same code as for the other rule
/// sets, tested on Yacht): verify, export, simulate, and a bot's game reviewed at zero loss.
#[test]
fn yatzy_works_in_every_command() {
    use crate::util::{path_str, table, table_dir, temp_dir};
    use yahtzee_core::tables::default_table_name;
    let rules = yahtzee_core::game::rules::Rules::new(RuleSet::YATZY);
    let t = table(RuleSet::YATZY, Order::Any);
    assert_eq!(t.states(), 1_430_528);
    let yatzy = |args: &[&str]| {
        let o = run(RuleSet::YATZY, Order::Any, args);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        stdout(&o)
    };
    let path = table_dir().join(default_table_name(&rules));
    let verified = yatzy(&["verify", &path_str(&path)]);
    assert!(verified.contains("holds the yatzy table"), "{verified}");
    assert!(verified.contains("248.4399893779"), "{verified}");
    let export = yatzy(&[
        "export",
        "--rules",
        "yatzy",
        "--card",
        "one-pair=12",
        "--rolls-left",
        "0",
    ]);
    // A header and the 252 rolls.
    assert_eq!(export.lines().count(), 253, "{export}");
    assert!(
        export
            .lines()
            .any(|l| l.contains(",23456,0,large-straight,"))
    );
    let sim: Value = serde_json::from_str(&yatzy(&[
        "simulate", "--rules", "yatzy", "--games", "3000", "--seed", "7", "--json",
    ]))
    .unwrap();
    let low = sim["mean_interval"]["low"].as_f64().unwrap();
    let high = sim["mean_interval"]["high"].as_f64().unwrap();
    // Within a wide margin of the exact mean (the interval is 95%; this is about 4 sigma).
    let margin = (high - low) * 2.0;
    assert!(
        (low - margin..high + margin).contains(&t.expected_score()),
        "{low} {high}"
    );
    let dir = temp_dir();
    let record = dir.path().join("yatzy.jsonl");
    let played = yatzy(&[
        "play",
        "--rules",
        "yatzy",
        "--players",
        "bot",
        "--seed",
        "13",
        "--record",
        &path_str(&record),
    ]);
    assert!(played.contains("bot"), "{played}");
    let review: Value =
        serde_json::from_str(&yatzy(&["review", &path_str(&record), "--json"])).unwrap();
    assert_eq!(review["complete"], true);
    assert_eq!(review["players"][0]["total_loss"], 0.0);
    assert!(review["players"][0]["decisions"].as_u64().unwrap() >= 15);
}
