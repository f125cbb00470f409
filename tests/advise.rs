//! `yahtzee advise`: the options, their order, JSON and batch.

use yahtzee::rules::{Order, RuleSet};

use crate::util::*;

#[test]
fn opening_13356_keeps_the_threes() {
    let o = run(
        RuleSet::YAHTZEE,
        Order::Any,
        &["advise", "--dice", "1,3,3,5,6", "--json"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["rules"], "yahtzee");
    assert_eq!(v["upper_first"], false);
    assert_eq!(v["banked"], 0);
    let opts = v["options"].as_array().unwrap();
    // 2 * 3 * 2 * 2 distinct keeps of 1 3 3 5 6.
    assert_eq!(opts.len(), 24);
    assert_eq!(opts[0]["kind"], "keep");
    assert_eq!(opts[0]["keep"], serde_json::json!([3, 3]));
    assert_eq!(opts[0]["loss"], 0.0);
}
