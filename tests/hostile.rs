//! Hostile input at the edges of the command line: what an input or output path really is
//! (a pipe, a device, a link), how much a command reads before it checks, write errors on
//! stdout and stderr, and the shape of error lines. One test per defect of the hostile-input
//! review (issue 23), named after it.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use yahtzee_core::game::rules::{Order, RuleSet};

use crate::util::{assert_bad_input, path_str, stderr, table, table_dir, temp_dir, yahtzee_in};

/// Waits for `child` at most `limit`; kills it and fails the test if it is still running:
/// what hung for ever must now end at once.
fn finish_within(mut child: Child, limit: Duration, what: &str) -> Output {
    let start = Instant::now();
    loop {
        if child
            .try_wait()
            .expect("the child can be waited for")
            .is_some()
        {
            return child.wait_with_output().expect("the child's output");
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`{what}` was still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs the binary with `args` in `cwd` (stdin empty), shared tables, at most 30 s.
fn run_bounded(cwd: &Path, args: &[&str]) -> Output {
    let child = yahtzee_in(table_dir())
        .current_dir(cwd)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    finish_within(child, Duration::from_secs(30), &args.join(" "))
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs")
        .success();
    assert!(ok, "mkfifo {}", path.display());
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).expect("a symbolic link");
}

#[test]
fn an_output_that_is_not_a_regular_file_is_refused_never_replaced() {
    table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    let to_fifo = dir.path().join("to-pipe");
    symlink(&fifo, &to_fifo);
    let dangling = dir.path().join("dangling");
    symlink(&dir.path().join("nothing-here"), &dangling);
    for out in [&fifo, &to_fifo, &dangling] {
        let out_s = path_str(out);
        for args in [
            vec!["export", "--rules", "yacht", "--out", &out_s],
            vec!["solve", "--rules", "yacht", "--out", &out_s],
            vec!["stats", "--rules", "yacht", "--plot", &out_s],
        ] {
            let o = run_bounded(dir.path(), &args);
            assert_bad_input(&o, "not a regular file");
        }
    }
    // Nothing was replaced: the pipe is a pipe, the links are links.
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    for link in [&to_fifo, &dangling] {
        assert!(std::fs::symlink_metadata(link).unwrap().is_symlink());
    }
}

#[test]
fn an_output_link_to_a_regular_file_is_written_through() {
    table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    let real = dir.path().join("real.csv");
    std::fs::write(&real, "old").unwrap();
    let link = dir.path().join("link.csv");
    symlink(&real, &link);
    let o = run_bounded(
        dir.path(),
        &["export", "--rules", "yacht", "--out", &path_str(&link)],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    let written = std::fs::read_to_string(&real).unwrap();
    assert!(written.starts_with("filled,upper,"), "{written:.80}");
}

#[test]
fn an_input_pipe_or_device_is_refused_without_being_read() {
    table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    let fifo_s = path_str(&fifo);
    for args in [
        vec!["verify", &fifo_s],
        vec!["verify", "/dev/zero"],
        vec!["verify", "/dev/urandom"],
        vec!["review", "/dev/zero"],
        vec!["review", &fifo_s],
        vec![
            "advise",
            "--rules",
            "yacht",
            "--table",
            &fifo_s,
            "--dice",
            "1,2,3,4,5",
        ],
    ] {
        let o = run_bounded(dir.path(), &args);
        assert_bad_input(&o, "not a regular file");
    }
}

#[test]
fn a_write_error_on_stdout_is_one_line_and_on_stderr_is_ignored() {
    table(RuleSet::YACHT, Order::Any);
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full");
    // stdout full: one error line, status 2, no panic.
    for args in [
        vec!["completions", "bash"],
        vec!["man"],
        vec!["advise", "--rules", "yacht", "--dice", "1,2,3,4,5"],
    ] {
        let o = yahtzee_in(table_dir())
            .args(&args)
            .stdin(Stdio::null())
            .stdout(full().expect("/dev/full"))
            .stderr(Stdio::piped())
            .output()
            .expect("the binary runs");
        assert_bad_input(&o, "No space left on device");
    }
    // stderr full or closed: the command's own outcome, no panic (status 101).
    for (args, code) in [
        (vec!["advise", "--rules", "yacht", "--dice", "1,2,3,4,5"], 0),
        (vec!["advise", "--rules", "yacht", "--dice", "1,2,3,4,x"], 2),
        (vec!["advise", "--rules", "nope"], 2),
    ] {
        for closed in [false, true] {
            let stderr = if closed {
                Stdio::null()
            } else {
                Stdio::from(full().expect("/dev/full"))
            };
            let o = yahtzee_in(table_dir())
                .args(&args)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(stderr)
                .output()
                .expect("the binary runs");
            assert_eq!(o.status.code(), Some(code), "{args:?}");
        }
    }
}

#[test]
fn an_empty_value_is_named_once_in_its_message() {
    table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    for args in [
        vec!["advise", "--rolls-left", "", "--dice", "1,2,3,4,5"],
        vec!["advise", "--rules", ""],
        vec!["advise", "--target", "", "--dice", "1,2,3,4,5"],
        vec!["verify", ""],
        vec!["stats", "--threads", ""],
    ] {
        let o = run_bounded(dir.path(), &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.matches("(empty)").count() <= 2, "{args:?}: {err}");
        assert!(!err.contains("(empty)e(empty)"), "{err}");
    }
}

#[test]
fn a_quote_in_a_value_is_escaped_only_in_the_value() {
    let dir = temp_dir();
    let o = run_bounded(dir.path(), &["advise", "--rules", "'"]);
    assert_bad_input(&o, "invalid value '\\'' for '--rules <RULES>'");
    assert_eq!(stderr(&o).matches("\\'").count(), 1, "{}", stderr(&o));
}
