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
