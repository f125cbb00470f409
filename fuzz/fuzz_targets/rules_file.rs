//! `--rules PATH`: the text of a rules file, parsed and checked with
//! `yahtzee_core::game::rules::file::parse` (what `src/cmd/mod.rs`'s `load_rules` calls before
//! it interns the rules). A mistake is one clean line; a file that loads describes a card the
//! state layout holds (at most 20 boxes, unique names and aliases, the face boxes first and in
//! face order), and written back as a file it reads to the same description.
//!
//! Input: the file's text (UTF-8, as read from disk).

#![no_main]

use libfuzzer_sys::fuzz_target;
use yahtzee_core::game::rules::file::parse;
use yahtzee_core::game::rules::{MAX_BOXES, Scoring, Section};
use yahtzee_fuzz::check_message;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let description = match parse(text) {
        Ok(d) => d,
        Err(e) => {
            assert!(
                e.line >= 1 && e.line <= text.lines().count().max(1) + 1,
                "line {} of {e}",
                e.line
            );
            return check_message(&format!("rules file x.toml, {e}"));
        }
    };
    let boxes = &description.boxes;
    assert!(
        !boxes.is_empty() && boxes.len() <= MAX_BOXES,
        "{} boxes",
        boxes.len()
    );
    let mut names: Vec<&str> = boxes
        .iter()
        .flat_map(|b| std::iter::once(b.name.as_str()).chain(b.aliases.iter().map(String::as_str)))
        .collect();
    let all = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all, "a name or alias twice");
    if boxes.iter().any(|b| b.section == Section::Upper) {
        for (i, b) in boxes.iter().take(6).enumerate() {
            assert_eq!(b.scoring, Scoring::Face(i as u8 + 1), "box {i}");
        }
    }
    let again = parse(&description.to_toml()).expect("a description written as a file reads back");
    assert_eq!(again, description);
});
