//! `yahtzee advise`: the options, their order, JSON and batch.

use yahtzee_core::game::rules::{Order, RuleSet};

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

/// A caller that sends one query and waits for its answer before sending the next (a
/// coprocess, a server) must get each answer while stdin is still open.
#[test]
fn batch_answers_each_line_before_the_input_ends() {
    use std::io::{BufRead, BufReader, Write};
    table(RuleSet::YAHTZEE, Order::Any);
    let mut child = yahtzee_in(table_dir())
        .args(["advise", "--batch"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let _ = tx.send(line.unwrap());
        }
    });
    for dice in ["[1, 3, 3, 5, 6]", "[2, 2, 2, 2, 2]"] {
        writeln!(stdin, "{{\"dice\": {dice}}}").unwrap();
        stdin.flush().unwrap();
        // A watchdog, not a measure: without the flush the answer never comes.
        let answer = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("an answer while stdin is open");
        let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(v["dice"].to_string().replace(',', ", "), dice);
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
