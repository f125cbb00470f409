//! `advise --batch`: the bytes are the standard input of the batch, answered by
//! `yahtzee_core::batch::run` (what `src/cmd/advise.rs` calls) with the table of Yacht, upper
//! section first (solved once, in milliseconds), and by the official Yahtzee table, so that
//! both kinds of card, the bonuses and the Joker are reached. Every input line gets exactly
//! one output line, in order, each one JSON object: an answer or `{"error": "..."}` with a
//! one-line message; `answer_line` gives the same line, and `answer` agrees with it.

#![no_main]

use libfuzzer_sys::fuzz_target;
use yahtzee_core::batch;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_fuzz::{check_message, tables};

fuzz_target!(|data: &[u8]| {
    for rules in [
        Rules::with_order(RuleSet::YACHT, Order::UpperFirst),
        Rules::new(RuleSet::YAHTZEE),
    ] {
        let table = tables(rules);
        let mut out = Vec::new();
        let count = batch::run(table, data, &mut out).expect("writing to memory cannot fail");
        let out = String::from_utf8(out).expect("the answers are UTF-8");
        let answers: Vec<&str> = out.lines().collect();
        // Lines end at `\n`; the last may have none.
        let lines: Vec<&[u8]> = data
            .strip_suffix(b"\n")
            .unwrap_or(data)
            .split(|&b| b == b'\n')
            .collect();
        let lines = if data.is_empty() { Vec::new() } else { lines };
        assert_eq!(count as usize, lines.len(), "lines counted");
        assert_eq!(answers.len(), lines.len(), "one answer per line: {out:?}");
        assert!(out.is_empty() || out.ends_with('\n'));
        for (line, answer) in lines.iter().zip(&answers) {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            assert_eq!(*answer, batch::answer_line(table, line), "{line:?}");
            let json: serde_json::Value = serde_json::from_str(answer)
                .unwrap_or_else(|e| panic!("answer {answer:?} is not JSON: {e}"));
            let object = json.as_object().expect("every answer is an object");
            match batch::answer(table, line, &yahtzee_core::cancel::Cancel::new()) {
                Ok(_) => {
                    assert!(!object.contains_key("error"), "{answer}");
                    let options = object["options"].as_array().map_or(0, Vec::len);
                    assert!(options > 0, "{answer}");
                }
                Err(e) => {
                    assert_eq!(object.len(), 1, "{answer}");
                    let message = object["error"].as_str().expect("the error is a string");
                    assert_eq!(message, e.to_string());
                    check_message(message);
                }
            }
        }
    }
});
