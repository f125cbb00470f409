//! ARCHITECTURE.md is kept true with the code: each of its references `PATH:START-END` (in
//! backticks) names a file of the repository that has those lines, and a reference right
//! after a name in backticks (`` `TableSet::cancel` (`crates/core/src/tables/set.rs:10-20`) ``)
//! finds that name (its last `::` part) within the lines, so that a moved item fails here
//! until the map follows it.

use std::path::Path;

/// A reference of the map: the name before it (if any), the file, the first and last line.
#[derive(Debug, PartialEq)]
struct Reference {
    name: Option<String>,
    path: String,
    start: usize,
    end: usize,
}

/// Every `` `PATH:START-END` `` of `text`, with the name in backticks just before it (at most
/// a few characters of punctuation and white space apart, as in `` `name` (`` or
/// `` `name`, ``).
fn references(text: &str) -> Vec<Reference> {
    let mut out = Vec::new();
    let spans: Vec<(usize, &str)> = text
        .match_indices('`')
        .map(|(i, _)| i)
        .collect::<Vec<_>>()
        .chunks_exact(2)
        .map(|pair| (pair[0], &text[pair[0] + 1..pair[1]]))
        .collect();
    for (k, &(at, inner)) in spans.iter().enumerate() {
        let Some((path, lines)) = inner.rsplit_once(':') else {
            continue;
        };
        let Some((start, end)) = lines.split_once('-') else {
            continue;
        };
        let (Ok(start), Ok(end)) = (start.parse(), end.parse()) else {
            continue;
        };
        if !path.contains('/') && !path.contains('.') {
            continue;
        }
        let name = k.checked_sub(1).and_then(|j| {
            let (before_at, before) = spans[j];
            let gap = &text[before_at + before.len() + 2..at];
            (gap.len() <= 12 && gap.chars().all(|c| c.is_whitespace() || "(,".contains(c)))
                .then(|| before.to_string())
        });
        out.push(Reference {
            name,
            path: path.to_string(),
            start,
            end,
        });
    }
    out
}

#[test]
fn the_references_are_read_with_their_names() {
    let text = "`TableSet::cancel` (`a/b.rs:3-9`), and (`main`, `src/main.rs:1-2`; `x/y.rs:4-4`)";
    let refs = references(text);
    assert_eq!(refs.len(), 3, "{refs:?}");
    assert_eq!(refs[0].name.as_deref(), Some("TableSet::cancel"));
    assert_eq!(
        (refs[0].path.as_str(), refs[0].start, refs[0].end),
        ("a/b.rs", 3, 9)
    );
    assert_eq!(refs[1].name.as_deref(), Some("main"));
    assert_eq!(refs[2].name, None);
}

#[test]
fn every_reference_of_the_architecture_names_lines_that_hold_its_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let refs = references(&text);
    // The claims of the issue that asked for them, and enough others to keep the map checked.
    assert!(refs.len() >= 25, "only {} references", refs.len());
    for named in [
        "default_table_path_of",
        "Cancel",
        "TableSet::cancel",
        "policy::advise",
        "batch::answer",
        "advise_line",
        "DiceSpace::parse",
        "TableArgs",
        "ScoreTableArgs",
    ] {
        assert!(
            refs.iter().any(|r| r.name.as_deref() == Some(named)),
            "ARCHITECTURE.md names no lines of `{named}`"
        );
    }
    let mut wrong = Vec::new();
    for r in &refs {
        let Ok(file) = std::fs::read_to_string(root.join(&r.path)) else {
            wrong.push(format!("{}: no such file", r.path));
            continue;
        };
        let lines: Vec<&str> = file.lines().collect();
        if r.start == 0 || r.start > r.end || r.end > lines.len() {
            wrong.push(format!(
                "{}:{}-{}: the file has {} lines",
                r.path,
                r.start,
                r.end,
                lines.len()
            ));
            continue;
        }
        if let Some(name) = &r.name {
            let last = name.rsplit("::").next().unwrap_or(name);
            let word = |l: &str| {
                l.match_indices(last).any(|(i, _)| {
                    let ident = |c: char| c.is_alphanumeric() || c == '_';
                    !l[..i].ends_with(ident) && !l[i + last.len()..].starts_with(ident)
                })
            };
            if !lines[r.start - 1..r.end].iter().any(|l| word(l)) {
                wrong.push(format!(
                    "{}:{}-{}: no `{last}` there",
                    r.path, r.start, r.end
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "ARCHITECTURE.md is out of date:\n{}",
        wrong.join("\n")
    );
}
