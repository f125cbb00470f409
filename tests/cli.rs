//! The command line itself: the help, the shell completions and the manual page.

use crate::util::*;

/// The subcommands, as `yahtzee --help` lists them.
const COMMANDS: [&str; 10] = [
    "solve",
    "advise",
    "verify",
    "play",
    "review",
    "export",
    "stats",
    "simulate",
    "completions",
    "man",
];

#[test]
fn bare_yahtzee_prints_the_whole_help() {
    let o = yahtzee_in(table_dir()).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let help = stderr(&o);
    assert!(help.lines().count() > 10, "{help}");
    assert!(
        help.lines().any(|l| l.trim_start().starts_with("advise")),
        "{help}"
    );
    assert!(help.contains("Usage: yahtzee <COMMAND>"), "{help}");
}

#[test]
fn bash_completion_names_every_subcommand() {
    for shell in ["bash", "zsh", "fish"] {
        let o = yahtzee_in(table_dir())
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let script = stdout(&o);
        for command in COMMANDS {
            assert!(script.contains(command), "{shell}: no {command}");
        }
        assert!(script.contains("upper-first"), "{shell}");
    }
    let bash = stdout(
        &yahtzee_in(table_dir())
            .args(["completions", "bash"])
            .output()
            .unwrap(),
    );
    assert!(bash.contains("complete -F _yahtzee"), "{bash}");
    assert_bad_input(
        &yahtzee_in(table_dir())
            .args(["completions", "tcsh"])
            .output()
            .unwrap(),
        "possible values: bash",
    );
}

#[test]
fn man_page_is_roff_with_every_subcommand() {
    let o = yahtzee_in(table_dir()).arg("man").output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(
        page.starts_with(".ie") || page.contains("\n.TH") || page.contains(".TH yahtzee"),
        "{page}"
    );
    assert!(page.lines().any(|l| l.starts_with(".TH yahtzee")), "{page}");
    for command in COMMANDS {
        assert!(page.contains(command), "no {command}");
    }
    let advise = stdout(
        &yahtzee_in(table_dir())
            .args(["man", "advise"])
            .output()
            .unwrap(),
    );
    assert!(
        advise.lines().any(|l| l.starts_with(".TH yahtzee-advise")),
        "{advise}"
    );
    assert!(advise.contains("rolls\\-left"), "{advise}");
    assert_bad_input(
        &yahtzee_in(table_dir())
            .args(["man", "bogus"])
            .output()
            .unwrap(),
        "no command `bogus`: the commands are solve, advise",
    );
}

/// The binary's files form no import circle (issue 49: `cli.rs` and `cmd/mod.rs` imported each
/// other): the modules of `src/` (`cmd/` as one) and the modules each names as `crate::X` or
/// in a `use crate::{...}`, checked for a cycle. `main.rs` declares them all and is left out.
#[test]
fn the_binary_s_files_form_no_import_circle() {
    use std::collections::{BTreeMap, BTreeSet};
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    let mut folders = vec![src.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    // The module of a file: its first component under src/, without `.rs`.
    let module = |path: &std::path::Path| {
        let rest = path.strip_prefix(&src).unwrap();
        let first = rest
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        first.trim_end_matches(".rs").to_string()
    };
    let modules: BTreeSet<String> = files.iter().map(|p| module(p)).collect();
    let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in &files {
        let from = module(path);
        if from == "main" || from == "build" {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for (at, _) in text.match_indices("crate::") {
            let name: String = text[at + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if modules.contains(&name) && name != from && name != "main" {
                imports.entry(from.clone()).or_default().insert(name);
            }
        }
    }
    assert!(
        imports.get("cli").is_some_and(|i| i.contains("values")),
        "the scan reads the imports: {imports:?}"
    );
    // A depth-first search for a cycle.
    fn visit(
        m: &str,
        imports: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) {
        if let Some(at) = path.iter().position(|p| p == m) {
            panic!("an import circle: {:?} -> {m}", &path[at..]);
        }
        if done.contains(m) {
            return;
        }
        path.push(m.to_string());
        for next in imports.get(m).into_iter().flatten() {
            visit(next, imports, path, done);
        }
        path.pop();
        done.insert(m.to_string());
    }
    let mut done = BTreeSet::new();
    for m in imports.keys() {
        visit(m, &imports, &mut Vec::new(), &mut done);
    }
}

/// The commit the binary states (`--version`, and every JSON result) is the checkout's HEAD
/// it was built from (`build.rs`), or `unknown` outside a git checkout.
#[test]
fn the_binary_states_the_commit_it_was_built_from() {
    let head = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8(o.stdout).unwrap().trim().to_string());
    let built = env!("YAHTZEE_COMMIT");
    match head {
        Some(head) => assert_eq!(built, head),
        None => assert_eq!(built, "unknown"),
    }
    let dir = temp_dir();
    let o = yahtzee_in(dir.path()).arg("--version").output().unwrap();
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        format!("yahtzee {} (commit {built})\n", env!("CARGO_PKG_VERSION"))
    );
}
