//! `review GAME`: the bytes of a game record, read by `GameRecord::parse` (what
//! `src/cmd/review.rs` calls on the file's bytes), then reviewed with the table of the
//! record's rules as the command does. No panic; an error names a line (`line N: ...`,
//! a line the record has) in one line of text, except for a record with no line at all;
//! a record that parses is reviewed, rendered and serialized.

#![no_main]

use libfuzzer_sys::fuzz_target;
use yahtzee_core::play::review::{GameRecord, RecordError, render_review, review};
use yahtzee_fuzz::table;

fuzz_target!(|data: &[u8]| {
    let lines = data.split(|&b| b == b'\n').count();
    let record = match GameRecord::parse(data) {
        Ok(record) => record,
        Err(e) => {
            let message = e.to_string();
            assert!(
                !message.chars().any(char::is_control),
                "a message of more than one line: {message:?}"
            );
            match e.line() {
                Some(line) => {
                    assert!(
                        message.starts_with(&format!("line {line}: ")),
                        "{message:?}"
                    );
                    assert!((1..=lines).contains(&line), "line {line} of {lines}");
                }
                None => {
                    assert_eq!(e, RecordError::Empty);
                    let blank = data
                        .split(|&b| b == b'\n')
                        .all(|l| std::str::from_utf8(l).is_ok_and(|t| t.trim().is_empty()));
                    assert!(blank, "`empty` for a record with a line: {message:?}");
                }
            }
            return;
        }
    };
    if let Some(line) = record.cut_off {
        assert!(
            (2..=lines).contains(&line),
            "cut off at line {line} of {lines}"
        );
        assert!(
            !data.ends_with(b"\n"),
            "cut off, yet the last line is whole"
        );
    }
    let rules = record.game.rules();
    if rules.saved_rolls() {
        // Priced with the table of saved rolls, read from its file (`review_saved`).
        return;
    }
    let report = review(table(rules), &record).expect("a parsed record is reviewed");
    render_review(&report);
    serde_json::to_string(&report).expect("the review serializes");
});
