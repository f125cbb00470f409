//! Every bad input: one line on stderr naming what was wrong and what is allowed, exit
//! status 2, nothing on stdout, no panic.

use yahtzee::rules::{Order, RuleSet};

use crate::util::*;

fn advise(args: &[&str]) -> std::process::Output {
    let mut all = vec!["advise"];
    all.extend_from_slice(args);
    run(RuleSet::YAHTZEE, Order::Any, &all)
}

#[test]
fn box_values_the_box_cannot_score() {
    assert_bad_input(
        &advise(&["--dice", "12345", "--card", "twos=3"]),
        "`twos` cannot hold 3",
    );
    assert_bad_input(
        &advise(&["--dice", "12345", "--card", "full-house=20"]),
        "it can hold 0, 25",
    );
    assert_bad_input(
        &advise(&["--dice", "12345", "--card", "yahtzee=40"]),
        "it can hold 0, 50",
    );
    assert_bad_input(
        &advise(&["--dice", "12345", "--card", "chance=-3"]),
        "`chance` cannot hold -3",
    );
}

#[test]
fn unknown_box_and_box_given_twice() {
    assert_bad_input(
        &advise(&["--dice", "12345", "--card", "sevens=7"]),
        "unknown box `sevens`",
    );
    assert_bad_input(
        &advise(&["--dice", "12345", "--card", "ones=1,ones=2"]),
        "given twice",
    );
    assert_bad_input(
        &advise(&["--dice", "12345", "--card", "ones"]),
        "is not `box=points`",
    );
    let yacht = run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "advise",
            "--rules",
            "yacht",
            "--dice",
            "12345",
            "--card",
            "three-of-a-kind=20",
        ],
    );
    assert_bad_input(&yacht, "the boxes are ones, twos");
}

#[test]
fn full_card() {
    let full = "ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6,three-of-a-kind=20,four-of-a-kind=0,full-house=25,small-straight=30,large-straight=0,yahtzee=0,chance=22";
    assert_bad_input(
        &advise(&["--dice", "12345", "--card", full]),
        "the card is full",
    );
}

#[test]
fn lower_box_before_upper_under_upper_first() {
    let o = run(
        RuleSet::YAHTZEE,
        Order::UpperFirst,
        &[
            "advise",
            "--upper-first",
            "--dice",
            "12345",
            "--card",
            "ones=2,chance=20",
        ],
    );
    assert_bad_input(&o, "under the upper-first order no lower box");
}

#[test]
fn yahtzee_bonus_without_fifty() {
    assert_bad_input(
        &advise(&[
            "--dice",
            "12345",
            "--card",
            "yahtzee=0,ones=2",
            "--yahtzee-bonus",
            "1",
        ]),
        "does not hold 50",
    );
    assert_bad_input(
        &advise(&["--dice", "12345", "--yahtzee-bonus", "1"]),
        "does not hold 50",
    );
    assert_bad_input(
        &advise(&[
            "--dice",
            "12345",
            "--card",
            "yahtzee=50",
            "--yahtzee-bonus",
            "2",
        ]),
        "impossible",
    );
    let plain = run(
        RuleSet::YAHTZEE_PLAIN,
        Order::Any,
        &[
            "advise",
            "--rules",
            "yahtzee-plain",
            "--dice",
            "12345",
            "--card",
            "yahtzee=50,ones=1",
            "--yahtzee-bonus",
            "1",
        ],
    );
    assert_bad_input(&plain, "has no bonus for a further five of a kind");
}

#[test]
fn bad_dice() {
    for dice in [
        "1234",
        "123456",
        "1,2,3,4,7",
        "0,1,2,3,4",
        "a2345",
        "1,2,,3,4",
    ] {
        assert_bad_input(
            &advise(&["--dice", dice]),
            "give exactly five faces from 1 to 6",
        );
    }
    assert_bad_input(&advise(&[]), "--dice");
}

#[test]
fn bad_rolls_left_and_rules() {
    assert_bad_input(
        &advise(&["--dice", "12345", "--rolls-left", "3"]),
        "rolls left must be 0, 1 or 2",
    );
    assert_bad_input(
        &advise(&["--dice", "12345", "--rolls-left", "-1"]),
        "--rolls-left",
    );
    assert_bad_input(
        &advise(&["--dice", "12345", "--rules", "kniffel"]),
        "possible values: yahtzee, yahtzee-free-joker, yahtzee-plain, yacht",
    );
    assert_bad_input(&advise(&["--dice", "12345", "--bogus"]), "--bogus");
}

#[test]
fn bad_batch_lines_get_an_error_line_and_the_rest_go_on() {
    crate::util::table(RuleSet::YAHTZEE, Order::Any);
    let input = concat!(
        "{\"dice\": [1, 3, 3, 5, 6]}\n",
        "not json\n",
        "{\"dice\": [1, 3, 3, 5, 7]}\n",
        "{\"card\": {\"twos\": 3}, \"dice\": \"12345\"}\n",
        "{\"dice\": [1, 2, 3, 4, 5], \"rolls_left\": 5}\n",
        "{\"card\": {\"ones\": 3}, \"yahtzee_bonus\": 0, \"dice\": [1, 3, 3, 5, 6], \"rolls_left\": 0}\n",
    );
    let o = run_with_input(table_dir(), &["advise", "--batch"], input);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0]["options"][0]["keep"], serde_json::json!([3, 3]));
    assert!(lines[1]["error"].as_str().unwrap().contains("bad query"));
    assert!(
        lines[2]["error"]
            .as_str()
            .unwrap()
            .contains("five faces from 1 to 6")
    );
    assert!(
        lines[3]["error"]
            .as_str()
            .unwrap()
            .contains("`twos` cannot hold 3")
    );
    assert!(
        lines[4]["error"]
            .as_str()
            .unwrap()
            .contains("rolls left must be 0, 1 or 2")
    );
    assert_eq!(lines[5]["banked"], 3);
    assert_eq!(lines[5]["options"][0]["kind"], "score");
}
