//! The core library's folders are layers (see `src/lib.rs`): each uses only those before it,
//! and no two modules use each other. This test reads the library's source files and checks
//! both, so that the layering is a fact the test suite keeps, not a wish.
//!
//! What counts as a use of a module: every path `crate::a::b::...` in a module's text (in
//! `use` declarations, grouped ones such as `use crate::{a::b, c::{d, e}}` included, in
//! inline paths, and in doc links), resolved to the longest module it names. Test code
//! (`#[cfg(test)]` items) does not count: a test may use anything. A module using its own
//! descendants is not a circle (`mod.rs` names its children), and a module using its
//! ancestor (`super::`, or the folder's `mod.rs`) is inside one folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The folders (and top-level files) of the library by layer: a module may use its own
/// folder and the layers before its own. From `src/lib.rs`.
const LAYERS: &[&[&str]] = &[
    &["text", "files", "cancel"],
    &["memory"],
    &["game"],
    &["solve"],
    &["tables"],
    &["policy"],
    &["stats", "export", "batch"],
    &["play"],
    &["report"],
];

/// Uses that the layers would allow but the library forbids: a solve reads and writes no
/// file (the tables do).
const NEVER: &[(&str, &str)] = &[("solve", "files")];

/// Pairs of modules known to use each other, being reworked (the simulation and the matches
/// moving into the policy's home). Remove a pair once it is untangled; the test says when.
const KNOWN_CIRCLES: &[(&str, &str)] = &[
    ("stats::distribution", "stats::simulate"),
    ("stats::matches", "stats::simulate"),
];

/// Each module of the library (`a::b`; the crate root is ``) and its text without its test
/// code.
fn modules() -> BTreeMap<String, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    let mut folders = vec![src.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("the source folder is readable") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(&src).expect("under src");
            let mut parts: Vec<String> = relative
                .with_extension("")
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
                parts.pop();
            }
            let text = std::fs::read_to_string(&path).expect("a source file is readable");
            out.insert(parts.join("::"), without_tests(&text));
        }
    }
    out
}

/// `text` without its `#[cfg(test)]` items. The code is formatted by rustfmt, so an item
/// ends at the first line of its own indentation that closes it (`}`, `};`) or, for an item
/// of one line, at its `;`.
fn without_tests(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut kept = String::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim() != "#[cfg(test)]" {
            kept.push_str(line);
            kept.push('\n');
            i += 1;
            continue;
        }
        let indent = &line[..line.len() - line.trim_start().len()];
        let at_indent = |l: &str| l.starts_with(indent) && !l[indent.len()..].starts_with(' ');
        i += 1;
        // Further attributes of the same item.
        while i < lines.len() && at_indent(lines[i]) && lines[i].trim_start().starts_with("#[") {
            i += 1;
        }
        let start = i;
        while i < lines.len() {
            let l = lines[i];
            let one_line = i == start && l.trim_end().ends_with(';');
            let closes = i > start && at_indent(l) && l.trim_start().starts_with('}');
            i += 1;
            if one_line || closes {
                break;
            }
        }
    }
    kept
}

/// Every path after `crate::` in `text`, groups expanded: `crate::{a::b, c::{d, e}}` gives
/// `a::b`, `c::d` and `c::e`.
fn crate_paths(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("crate::") {
        let start = from + at;
        from = start + "crate::".len();
        // `crate` as a word of its own: not `yahtzee_core::...`, not `my_crate::`.
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
            continue;
        }
        let (paths, end) = path_tree(text, from);
        out.extend(paths);
        from = end;
    }
    out
}

/// The paths of the tree starting at `at` (`a::b`, `a::{b, c::d}`, `{a, b}`), and where it
/// ends.
fn path_tree(text: &str, at: usize) -> (Vec<String>, usize) {
    let bytes = text.as_bytes();
    let mut i = at;
    let mut prefix = String::new();
    loop {
        if bytes.get(i) == Some(&b'{') {
            let mut paths = Vec::new();
            i += 1;
            loop {
                while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b',') {
                    i += 1;
                }
                if i >= bytes.len() || bytes[i] == b'}' {
                    break;
                }
                let (inner, end) = path_tree(text, i);
                paths.extend(inner.into_iter().map(|p| join(&prefix, &p)));
                // Skip what follows a path in a group: `as name`, up to the next `,` or `}`.
                i = end;
                while i < bytes.len() && bytes[i] != b',' && bytes[i] != b'}' {
                    i += 1;
                }
            }
            return (paths, i + 1);
        }
        let word_end = text[i..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(text.len(), |n| i + n);
        if word_end == i {
            return (vec![prefix], i);
        }
        prefix = join(&prefix, &text[i..word_end]);
        i = word_end;
        if text[i..].starts_with("::") {
            i += 2;
        } else {
            return (vec![prefix], i);
        }
    }
}

fn join(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}::{path}"),
    }
}

/// The module `path` names: its longest prefix that is a module (`None` for the crate root's
/// re-exports, such as `crate::Dice`).
fn module_of<'a>(path: &str, modules: &'a BTreeMap<String, String>) -> Option<&'a str> {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len())
        .rev()
        .map(|k| parts[..k].join("::"))
        .find_map(|m| modules.get_key_value(&m).map(|(k, _)| k.as_str()))
}

/// Each module and the modules it uses (not itself, its ancestors or the crate root).
fn uses() -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules();
    let mut uses = BTreeMap::new();
    for (module, text) in &modules {
        if module.is_empty() {
            continue;
        }
        let used: BTreeSet<String> = crate_paths(text)
            .iter()
            .filter_map(|p| module_of(p, &modules))
            .filter(|&m| m != module && !m.is_empty() && !module.starts_with(&format!("{m}::")))
            .map(str::to_string)
            .collect();
        uses.insert(module.clone(), used);
    }
    uses
}

fn folder(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

fn layer(folder: &str) -> usize {
    LAYERS
        .iter()
        .position(|l| l.contains(&folder))
        .unwrap_or_else(|| panic!("the folder `{folder}` is in no layer: add it to LAYERS"))
}

#[test]
fn the_parser_reads_grouped_and_inline_paths_and_skips_tests() {
    let text = "use crate::{a::b, c::{d, e as f}};\nuse crate::g::h;\nfn x() { crate::i::j(); }\n\
                // see [`crate::k`]\nmy_crate::l::m\n#[cfg(test)]\nmod tests {\n    \
                use crate::n;\n}\n";
    let paths = crate_paths(&without_tests(text));
    assert_eq!(paths, ["a::b", "c::d", "c::e", "g::h", "i::j", "k"]);
    let one = "#[cfg(test)]\nuse crate::o;\n#[cfg(test)]\n#[allow(unused)]\nfn p(\n    q: u8,\n) {\n    crate::r::s();\n}\nuse crate::t;\n";
    assert_eq!(crate_paths(&without_tests(one)), ["t"]);
}

#[test]
fn no_two_modules_use_each_other() {
    let uses = uses();
    assert!(uses.len() > 40, "{} modules read", uses.len());
    let mut circles = BTreeSet::new();
    for (a, used) in &uses {
        for b in used {
            if uses.get(b).is_some_and(|u| u.contains(a)) {
                circles.insert((a.min(b).clone(), a.max(b).clone()));
            }
        }
    }
    let known: BTreeSet<(String, String)> = KNOWN_CIRCLES
        .iter()
        .map(|&(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let new: Vec<_> = circles.difference(&known).collect();
    assert!(
        new.is_empty(),
        "modules that use each other: {new:?}; move what both need to the lower one"
    );
    let gone: Vec<_> = known.difference(&circles).collect();
    assert!(
        gone.is_empty(),
        "{gone:?} no longer use each other: remove them from KNOWN_CIRCLES"
    );
}

#[test]
fn every_folder_uses_only_the_layers_before_it() {
    let mut wrong = Vec::new();
    for (module, used) in uses() {
        let from = folder(&module);
        for other in used {
            let to = folder(&other);
            if to == from {
                continue;
            }
            if layer(to) >= layer(from) || NEVER.contains(&(from, to)) {
                wrong.push(format!("{module} uses {other}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "uses against the layers of src/lib.rs (text, files, cancel < memory < game < solve < tables < policy < \
         stats, export, batch < play < report; a solve uses no file): {wrong:#?}"
    );
}

#[test]
fn the_game_uses_only_text_and_the_solves_neither_tables_nor_policies() {
    for (module, used) in uses() {
        let to: BTreeSet<&str> = used.iter().map(|m| folder(m)).collect();
        match folder(&module) {
            "game" => assert!(
                to.iter().all(|&f| f == "game" || f == "text"),
                "{module} uses {to:?}: the game uses only `text`"
            ),
            "solve" => assert!(
                to.iter()
                    .all(|&f| f == "solve" || f == "game" || f == "text"),
                "{module} uses {to:?}: a solve uses only the game and `text` (no table, policy or file)"
            ),
            _ => {}
        }
    }
}
