//! The examples of the README and of the guide (`docs/*.md`), run as written: every ```console
//! block is a transcript of `$ ` commands and their exact standard output. In the expected
//! output `[..]` matches any text (timings, paths). Commands may start with `echo '...' |` to
//! feed standard input. The blocks of one file run in order in a temporary folder of their
//! own, so a block may use what an earlier block of the same file made (a table, a file).

use std::path::Path;

use crate::util::*;

struct Example {
    command: String,
    expected: Vec<String>,
}

/// The pages that hold examples at least (each with `console` blocks): a guard against a
/// folder read that silently finds nothing.
const PAGES_WITH_EXAMPLES: [&str; 6] = [
    "README.md",
    "docs/advice.md",
    "docs/export.md",
    "docs/rules-files.md",
    "docs/solver.md",
    "docs/stats.md",
];

/// The Markdown files whose examples are run, as (path from the repository root, text):
/// `README.md`, then every `docs/*.md` in name order, read when the test runs, so that a new
/// page of the guide is covered without a change here.
fn pages() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |name: &str| {
        std::fs::read_to_string(root.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("the docs folder")
        .map(|entry| entry.expect("a docs entry").file_name())
        .filter_map(|name| name.to_str().map(str::to_string))
        .filter(|name| name.ends_with(".md"))
        .collect();
    docs.sort();
    let mut out = vec![("README.md".to_string(), read("README.md"))];
    for name in docs {
        let path = format!("docs/{name}");
        let text = read(&path);
        out.push((path, text));
    }
    out
}

/// The examples of the ```console blocks of `text`, in order.
fn examples(text: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block && line.trim() == "```console";
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            out.push(Example {
                command: cmd.to_string(),
                expected: Vec::new(),
            });
        } else if let Some(e) = out.last_mut() {
            e.expected.push(line.to_string());
        }
    }
    out
}

/// Splits a command line on spaces, honouring single quotes.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in s.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// True when `line` matches `pattern`, where `[..]` stands for any text.
fn matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let Some(mut rest) = line.strip_prefix(parts[0]) else {
        return false;
    };
    for (i, part) in parts[1..].iter().enumerate() {
        let last = i == parts.len() - 2;
        if last {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

fn run_example(file: &str, dir: &Path, e: &Example) {
    let (input, command) = match e.command.split_once(" | ") {
        Some((echo, cmd)) if echo.starts_with("echo ") => {
            let w = words(echo);
            (format!("{}\n", w[1..].join(" ")), cmd.to_string())
        }
        _ => (String::new(), e.command.clone()),
    };
    let w = words(&command.replace("~/.cache/yahtzee", &dir.display().to_string()));
    assert_eq!(
        w[0], "yahtzee",
        "{file}: commands start with yahtzee: {}",
        e.command
    );
    let args: Vec<&str> = w[1..].iter().map(String::as_str).collect();
    let o = run_with_input(dir, &args, &input);
    assert!(
        o.status.success(),
        "{file}: `{}` failed: {}",
        e.command,
        stderr(&o)
    );
    let got = stdout(&o);
    let got: Vec<&str> = got.lines().collect();
    assert_eq!(
        got.len(),
        e.expected.len(),
        "{file}: `{}`: {} lines, the file shows {}:\n{}",
        e.command,
        got.len(),
        e.expected.len(),
        got.join("\n")
    );
    for (g, x) in got.iter().zip(&e.expected) {
        assert!(
            matches(x, g),
            "{file}: `{}`:\n  shown: {x}\n  got:   {g}",
            e.command
        );
    }
}

#[test]
fn readme_examples_reproduce() {
    let pages: Vec<(String, Vec<Example>)> = pages()
        .into_iter()
        .map(|(file, text)| {
            let examples = examples(&text);
            let has_block = text.lines().any(|l| l.trim() == "```console");
            assert!(
                !has_block || !examples.is_empty(),
                "{file}: a console block without a `$ ` command"
            );
            (file, examples)
        })
        .collect();
    for known in PAGES_WITH_EXAMPLES {
        assert!(
            pages.iter().any(|(f, e)| f == known && !e.is_empty()),
            "{known}: no examples found"
        );
    }
    let readme = pages[0].1.len();
    assert!(readme >= 5, "README.md: only {readme} examples found");
    // The README held 15 examples before the guide was split off it; none is lost.
    let total: usize = pages.iter().map(|(_, e)| e.len()).sum();
    assert!(total >= 15, "only {total} examples found in all");
    for (file, examples) in &pages {
        let dir = temp_dir();
        for e in examples {
            run_example(file, dir.path(), e);
        }
    }
}

#[test]
fn wildcard_matching() {
    assert!(matches("a [..] c", "a bbb c"));
    assert!(matches("x[..]", "xyz"));
    assert!(!matches("a [..] c", "a b d"));
    assert!(matches("plain", "plain"));
}
