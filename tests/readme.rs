//! The README's examples, run as written: every ```console block is a transcript of `$ `
//! commands and their exact standard output. In the expected output `[..]` matches any text
//! (timings, paths). Commands may start with `echo '...' |` to feed standard input.

use std::path::Path;

use crate::util::*;

struct Example {
    command: String,
    expected: Vec<String>,
}

fn examples() -> Vec<Example> {
    let readme = include_str!("../README.md");
    let mut out = Vec::new();
    let mut in_block = false;
    for line in readme.lines() {
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

fn run_example(dir: &Path, e: &Example) {
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
        "README commands start with yahtzee: {}",
        e.command
    );
    let args: Vec<&str> = w[1..].iter().map(String::as_str).collect();
    let o = run_with_input(dir, &args, &input);
    assert!(o.status.success(), "`{}` failed: {}", e.command, stderr(&o));
    let got = stdout(&o);
    let got: Vec<&str> = got.lines().collect();
    assert_eq!(
        got.len(),
        e.expected.len(),
        "`{}`: {} lines, README shows {}:\n{}",
        e.command,
        got.len(),
        e.expected.len(),
        got.join("\n")
    );
    for (g, x) in got.iter().zip(&e.expected) {
        assert!(
            matches(x, g),
            "`{}`:\n  README: {x}\n  got:    {g}",
            e.command
        );
    }
}

#[test]
fn readme_examples_reproduce() {
    let examples = examples();
    assert!(
        examples.len() >= 5,
        "only {} examples found",
        examples.len()
    );
    let dir = temp_dir();
    for e in &examples {
        run_example(dir.path(), e);
    }
}

#[test]
fn wildcard_matching() {
    assert!(matches("a [..] c", "a bbb c"));
    assert!(matches("x[..]", "xyz"));
    assert!(!matches("a [..] c", "a b d"));
    assert!(matches("plain", "plain"));
}
