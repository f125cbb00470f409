//! The target policy (`TargetTurn`) where the commands play it: regressions of the target
//! table's turns under the upper-first rule, and the policy against the advice.

use yahtzee_core::game::rules::{Order, RuleSet};

use crate::util::*;

/// Regression: the turn of a target table read the cards of every open box, also those the
/// upper-first rule does not allow (a lower box filled while an upper box is open), which
/// are not in the table: `advise --target` under `--upper-first` panicked.
#[test]
fn target_advice_under_upper_first_reads_only_the_cards_the_order_allows() {
    let o = run(
        RuleSet::YACHT,
        Order::UpperFirst,
        &[
            "advise",
            "--rules",
            "yacht",
            "--upper-first",
            "--dice",
            "12345",
            "--target",
            "100",
            "--json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let p = v["p_reach"].as_f64().unwrap();
    assert!(p > 0.5 && p < 1.0, "{p}");
    // Every option is an upper box's keep or stop: no lower box can be filled yet.
    assert!(
        v["options"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|o| o["stop_and_score"].as_str())
            .all(|b| ["ones", "twos", "threes", "fours", "fives", "sixes"].contains(&b))
    );
}
