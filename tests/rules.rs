//! `yahtzee rules`: the card of every rule set, named as in `shared/RULES.md`, and box names
//! and aliases accepted the same way wherever a box is named.

use serde_json::Value;
use yahtzee::rules::{Order, RuleSet};

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
