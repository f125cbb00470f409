//! Hostile input at the edges of the command line: what an input or output path really is
//! (a pipe, a device, a link), how much a command reads before it checks, write errors on
//! stdout and stderr, and the shape of error lines. One test per defect of the hostile-input
//! review (issue 23), named after it.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use yahtzee_core::game::rules::{Order, RuleSet};

use crate::util::{
    assert_bad_input, path_str, run_bytes, stderr, table, table_dir, temp_dir, yahtzee_in,
};

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
    assert_bad_input(
        &o,
        "invalid value '\\'' for '--rules <NAME|PATH>': not a rule set",
    );
    assert_eq!(stderr(&o).matches("\\'").count(), 1, "{}", stderr(&o));
}

#[test]
fn a_batch_line_over_the_cap_gets_one_error_line_and_the_batch_goes_on() {
    use yahtzee_core::batch::MAX_LINE_BYTES;
    table(RuleSet::YACHT, Order::Any);
    let mut input = b"\xEF\xBB\xBF{\"dice\": [1, 2, 3, 4, 5]}\n".to_vec();
    input.extend(std::iter::repeat_n(b' ', 5 * MAX_LINE_BYTES));
    input.extend_from_slice(b"\n{\"dice\": [6, 6, 6, 6, 6]}\n");
    let o = crate::util::run_bytes(
        table_dir(),
        &["advise", "--rules", "yacht", "--batch"],
        &input,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = crate::util::stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out:.400}");
    // A byte-order mark before the first query is skipped.
    assert!(lines[0].starts_with("{\"rules\":\"yacht\""), "{}", lines[0]);
    assert!(
        lines[1].starts_with("{\"error\":\"the line is longer than 65536 bytes"),
        "{}",
        lines[1]
    );
    assert!(lines[1].len() < 1000);
    assert!(lines[2].contains("\"dice\":[6,6,6,6,6]"), "{}", lines[2]);
}

/// `var` set to each of `bad` is refused before any work (`needle` in the one-line error, no
/// table written); set to `good`, the command runs.
fn env_var_is_checked(var: &str, bad: &[&str], needle: &str, good: &str) {
    let dir = temp_dir();
    for value in bad {
        let o = yahtzee_in(dir.path())
            .env(var, value)
            .args(["solve", "--rules", "yacht"])
            .stdin(Stdio::null())
            .output()
            .expect("the binary runs");
        assert_bad_input(&o, needle);
    }
    assert!(!dir.path().join("yacht.v4.table").exists());
    let o = yahtzee_in(dir.path())
        .env(var, good)
        .args(["solve", "--rules", "yacht"])
        .output()
        .expect("the binary runs");
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn rayon_num_threads_gets_the_check_of_threads() {
    env_var_is_checked(
        "RAYON_NUM_THREADS",
        &["100000", "0", "", "many"],
        "$RAYON_NUM_THREADS: the number of worker threads must be from 1 to 256",
        "2",
    );
}

/// `$YAHTZEE_MEMORY_GIB` (the memory this program may use) is checked before any work: a bad
/// value is refused in one line, never silently replaced by the default.
#[test]
fn yahtzee_memory_gib_is_checked() {
    env_var_is_checked(
        "YAHTZEE_MEMORY_GIB",
        &["", "many", "0", "-2", "inf", "NaN"],
        "$YAHTZEE_MEMORY_GIB: the memory this program may use must be a number of GiB",
        "2.5",
    );
}

/// The legal game too large for the machine of issue 45: Maxi Yatzy's 20 boxes and six dice,
/// with four rolls a turn, an upper bonus of 100 at 126, a five-of-a-kind bonus and a forced
/// Joker. Its dense table holds 2^20 cards x 127 upper totals x 2 flags = 266 million values,
/// 1.98 GiB as `f64`, and its widest depth's rows 0.35 GiB more while solving.
fn huge_rules(dir: &Path) -> String {
    let maxi = include_str!("../data/rules/maxi-yatzy.toml");
    let text = [
        ("rolls = 3", "rolls = 4"),
        (
            "joker = \"none\"",
            "joker = \"forced\"\nfive_of_a_kind_bonus = 100",
        ),
        (
            "upper_bonus = { threshold = 84, points = 100 }",
            "upper_bonus = { threshold = 126, points = 100 }",
        ),
        ("name = \"maxi-yatzy\"", "name = \"huge\""),
    ]
    .iter()
    .fold(maxi.to_string(), |text, (from, to)| {
        assert!(text.contains(from), "{from}");
        text.replacen(from, to, 1)
    });
    let path = dir.join("huge.toml");
    std::fs::write(&path, text).unwrap();
    path_str(&path)
}

/// Runs the binary in `dir` (its table folder too) with the environment `env` and `args`,
/// under `sh -c` with `limit` first (a `ulimit`), for at most 60 s: a game refused before
/// any work ends at once, where its solve would take minutes.
fn run_limited(dir: &Path, limit: &str, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = format!("{limit} exec \"$0\"");
    for i in 1..=args.len() {
        command.push_str(&format!(" \"${{{i}}}\""));
    }
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(command)
        .arg(env!("CARGO_BIN_EXE_yahtzee"))
        .args(args)
        .env("YAHTZEE_TABLE_DIR", dir)
        .env_remove("YAHTZEE_MEMORY_GIB")
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        c.env(k, v);
    }
    let child = c.spawn().expect("sh runs");
    finish_within(child, Duration::from_secs(60), &args.join(" "))
}

/// Issue 45, item 1: a game whose tables do not fit in the memory available is refused before
/// any work, in one line naming what it needs and what there is, by every command that would
/// solve or load its table; nothing is written.
#[test]
fn a_game_too_large_for_the_memory_is_refused_before_any_work() {
    let dir = temp_dir();
    let rules = huge_rules(dir.path());
    let memory = [("YAHTZEE_MEMORY_GIB", "2")];
    for args in [
        vec!["solve", "--rules", &rules],
        vec!["advise", "--rules", &rules, "--dice", "1,3,3,5,6,6"],
        vec!["stats", "--rules", &rules],
        vec!["simulate", "--rules", &rules, "--games", "10"],
        vec!["export", "--rules", &rules, "--out", "x.csv"],
    ] {
        // Within `run_limited`'s minute: the solve alone would take minutes.
        let o = run_limited(dir.path(), "", &memory, &args);
        assert_bad_input(&o, "the expected-score table of huge-");
        let err = stderr(&o);
        assert!(
            err.contains("(a value for each of its 266.3 million entries of cards, upper totals and flags, 2.0 GiB, and the rows of its widest depth, 358 MiB)"),
            "{err}"
        );
        assert!(
            err.contains("of memory, more than the 2.0 GiB that $YAHTZEE_MEMORY_GIB allows"),
            "{err}"
        );
    }
    // The solve's figure: its values, the rows of its widest depth and the program, 2.4 GiB
    // (2.36 GiB at peak, results/memory-2026-12-06.md).
    let o = run_limited(dir.path(), "", &memory, &["solve", "--rules", &rules]);
    assert_bad_input(&o, "solving the expected-score table of huge-");
    assert!(
        stderr(&o).contains("needs 2.4 GiB of memory"),
        "{}",
        stderr(&o)
    );
    // Nothing was written but the rules file.
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["huge.toml"]);
}

/// Issue 45, item 1 (`stats likewise`): `stats` of the game too large, with room for its
/// table but not for the passes of its exact distribution (a frequency of the transform of
/// each state of a depth at least), is refused before any table is built, naming what it
/// needs; it once built the table, then aborted on an allocation.
#[test]
fn an_exact_distribution_too_large_for_the_memory_is_refused_before_any_work() {
    let dir = temp_dir();
    let rules = huge_rules(dir.path());
    let memory = [("YAHTZEE_MEMORY_GIB", "3.5")];
    let o = run_limited(dir.path(), "", &memory, &["stats", "--rules", &rules]);
    assert_bad_input(&o, "the exact distribution of huge-");
    let err = stderr(&o);
    assert!(err.contains("(its expected-score table, 2.0 GiB, and at least a frequency of the transform of each of the "), "{err}");
    assert!(
        err.contains("of memory, more than the 3.5 GiB that $YAHTZEE_MEMORY_GIB allows"),
        "{err}"
    );
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["huge.toml"]);
}

/// Issue 45, item 1: under a cap on the process's memory (`ulimit -v`) the game too large is
/// refused with the room left under the cap; and when `$YAHTZEE_MEMORY_GIB` promises more
/// than the cap allows, the allocation that fails is one line and exit status 2, not Rust's
/// "memory allocation of 2130706432 bytes failed", a backtrace and SIGABRT.
#[test]
fn an_allocation_that_fails_is_one_line_never_an_abort() {
    let dir = temp_dir();
    let rules = huge_rules(dir.path());
    let cap = "ulimit -v 1500000 &&";
    let o = run_limited(dir.path(), cap, &[], &["solve", "--rules", &rules]);
    assert_bad_input(
        &o,
        "left under this process's address-space limit (ulimit -v)",
    );
    let o = run_limited(
        dir.path(),
        cap,
        &[("YAHTZEE_MEMORY_GIB", "64")],
        &["solve", "--rules", &rules],
    );
    // The notice of what the solve takes (a solve of more than a GiB), then one line.
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].starts_with("solving the expected-score table of huge-")
            && lines[0].ends_with(", 2.4 GiB of memory and 738 MB on disk"),
        "{err}"
    );
    assert!(
        lines[1]
            .starts_with("error: out of memory: 2130706432 bytes (1.98 GiB) more could not be had"),
        "{err}"
    );
    assert!(!err.contains("memory allocation of"), "{err}");
    assert!(!err.contains("backtrace"), "{err}");
    assert!(!dir.path().join("huge.v4.table").exists());
}

/// `$YAHTZEE_SIMD` (the kernel's instruction set, for benchmarks) names one this processor has:
/// anything else is refused in one line, naming what it has; the baseline, which every
/// processor has, runs, and gives the same table as the widest.
#[test]
fn yahtzee_simd_is_checked() {
    env_var_is_checked(
        "YAHTZEE_SIMD",
        &["", "sse9", "AVX2", "avx2 "],
        "is not an instruction set of the kernel: avx512, avx2 or baseline",
        "baseline",
    );
    let dir = temp_dir();
    let table = |simd: Option<&str>| {
        let mut c = yahtzee_in(dir.path());
        if let Some(simd) = simd {
            c.env("YAHTZEE_SIMD", simd);
        }
        let out = dir.path().join("t.table");
        let o = c
            .args([
                "solve",
                "--rules",
                "yahtzee",
                "--out",
                &out.display().to_string(),
            ])
            .output()
            .expect("the binary runs");
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read(&out).unwrap()
    };
    assert!(table(Some("baseline")) == table(None));
}

#[test]
fn a_temporary_whose_writer_holds_its_lock_is_never_deleted() {
    use yahtzee_core::files::remove_stale_temporaries;
    let dir = temp_dir();
    // A process id that means nothing here (above any pid_max): a writer in another PID
    // namespace, alive.
    let pid = 4_000_000_000u32;
    let path = dir.path().join(format!("export.csv.yahtzee-tmp-{pid}-0"));
    let file = std::fs::File::create(&path).unwrap();
    file.lock().unwrap();
    assert_eq!(remove_stale_temporaries(dir.path()).unwrap(), 0);
    assert!(path.exists());
    // Through the binary: a write into the folder leaves it too.
    table(RuleSet::YACHT, Order::Any);
    let out = dir.path().join("export.csv");
    let o = run_bounded(
        dir.path(),
        &["export", "--rules", "yacht", "--out", &path_str(&out)],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(path.exists());
    // Its writer gone (the lock released), it is stale. A process that another test thread
    // is starting shares the descriptor (and so the lock) from its fork to its exec: a few
    // tries, a moment apart, see the lock released.
    drop(file);
    let mut removed = 0;
    for _ in 0..50 {
        removed = remove_stale_temporaries(dir.path()).unwrap();
        if removed > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(removed, 1);
    assert!(!path.exists());
}

#[test]
fn solve_never_replaces_a_table_of_other_rules_or_another_objective() {
    let dir = temp_dir();
    let solve = |args: &[&str]| run_bytes(dir.path(), args, b"");
    let yacht = dir.path().join("yacht.v4.table");
    let o = solve(&["solve", "--rules", "yacht"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read(&yacht).unwrap();
    let yacht_s = path_str(&yacht);
    for args in [
        vec![
            "solve",
            "--rules",
            "yahtzee-plain",
            "--upper-first",
            "--out",
            &yacht_s,
        ],
        vec![
            "solve",
            "--rules",
            "yacht",
            "--upper-first",
            "--out",
            &yacht_s,
        ],
        vec![
            "solve",
            "--rules",
            "yacht",
            "--objective",
            "target",
            "--out",
            &yacht_s,
        ],
    ] {
        let o = solve(&args);
        assert_bad_input(
            &o,
            "never replaces: give another --out, or delete that file first",
        );
    }
    assert_eq!(std::fs::read(&yacht).unwrap(), before);
    // A table of its own kind is replaced (a stale or damaged one is fixed so).
    let o = solve(&["solve", "--rules", "yacht", "--out", &yacht_s]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_table_path_in_a_missing_folder_is_refused_as_every_output_is() {
    table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    let missing = dir.path().join("no-such-folder").join("x.table");
    let missing_s = path_str(&missing);
    for args in [
        vec![
            "advise",
            "--rules",
            "yacht",
            "--table",
            &missing_s,
            "--dice",
            "1,2,3,4,5",
        ],
        vec!["solve", "--rules", "yacht", "--out", &missing_s],
        vec!["export", "--rules", "yacht", "--out", &missing_s],
    ] {
        let o = run_bounded(dir.path(), &args);
        assert_bad_input(&o, "does not exist; create it or give another path");
    }
    assert!(!dir.path().join("no-such-folder").exists());
}

#[test]
fn the_remedy_of_a_table_error_is_one_that_works() {
    let dir = temp_dir();
    let run = |args: &[&str]| run_bytes(dir.path(), args, b"");
    // A missing target table: the command suggested builds a target table there.
    let target = dir.path().join("yacht.target.v4.table");
    let o = run(&["verify", &path_str(&target)]);
    assert_bad_input(
        &o,
        "build it with `yahtzee solve --rules yacht --objective target",
    );
    crate::util::run_suggested(dir.path(), &stderr(&o));
    assert!(run(&["verify", &path_str(&target)]).status.success());
    // The default table of yahtzee-plain holding yacht's: no --table was given to drop.
    let o = run(&["solve", "--rules", "yacht"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let yacht = dir.path().join("yacht.v4.table");
    std::fs::copy(&yacht, dir.path().join("yahtzee-plain.v4.table")).unwrap();
    let o = run(&["advise", "--rules", "yahtzee-plain", "--dice", "1,2,3,4,5"]);
    assert_bad_input(&o, "rebuild it with `yahtzee solve --rules yahtzee-plain`");
    assert!(!stderr(&o).contains("--table"), "{}", stderr(&o));
    crate::util::run_suggested(dir.path(), &stderr(&o));
    let o = run(&["advise", "--rules", "yahtzee-plain", "--dice", "1,2,3,4,5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // --upper-first against a table of any order: the fix is to drop --upper-first.
    let yacht_s = path_str(&yacht);
    let o = run(&[
        "advise",
        "--rules",
        "yacht",
        "--upper-first",
        "--table",
        &yacht_s,
        "--dice",
        "1,2,3,4,5",
    ]);
    assert_bad_input(
        &o,
        "use `--rules yacht` instead of `--rules yacht --upper-first` to use this one",
    );
    let o = run(&[
        "advise",
        "--rules",
        "yacht",
        "--table",
        &yacht_s,
        "--dice",
        "1,2,3,4,5",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[cfg(unix)]
#[test]
fn an_empty_record_after_a_full_disk_is_not_offered_for_review() {
    table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    let record = dir.path().join("game.jsonl");
    // No byte may be written (`ulimit -f 0`, its signal ignored: writes fail with EFBIG),
    // as on a full disk.
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f 0; exec '{}' play --rules yacht --players bot --record '{}'",
            env!("CARGO_BIN_EXE_yahtzee"),
            record.display()
        ))
        .env("YAHTZEE_TABLE_DIR", table_dir())
        .stdin(Stdio::null())
        .output()
        .expect("bash runs");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("is empty: free some space"), "{err}");
    assert!(!err.contains("yahtzee review"), "{err}");
    assert_eq!(std::fs::metadata(&record).unwrap().len(), 0);
}

/// The numbers written `-0` (or `-0.0`, `-0.0000`) in `text`: a zero with a sign.
fn negative_zeros(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("-0") {
        let after_sign = &text[at + 1..];
        let number: String = after_sign
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let before = text[..at].chars().last();
        let in_a_word = before.is_some_and(|c| c.is_ascii_alphanumeric());
        if !in_a_word && number.parse::<f64>() == Ok(0.0) && !after_sign.starts_with("0e") {
            found.push(format!("-{number}"));
        }
    }
    found
}

#[test]
fn a_share_or_chance_of_zero_is_never_written_minus_zero() {
    table(RuleSet::YACHT, Order::Any);
    crate::util::target_table(RuleSet::YACHT, Order::Any);
    crate::util::distribution_table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    for args in [
        vec!["stats", "--rules", "yacht", "--target", "100000"],
        vec!["stats", "--rules", "yacht", "--target", "100000", "--json"],
        vec![
            "simulate",
            "--rules",
            "yacht",
            "--policy",
            "target:400",
            "--games",
            "50",
        ],
        vec![
            "simulate",
            "--rules",
            "yacht",
            "--policy",
            "target:400",
            "--games",
            "50",
            "--json",
        ],
    ] {
        let o = run_bounded(dir.path(), &args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let out = crate::util::stdout(&o);
        assert_eq!(
            negative_zeros(&out),
            Vec::<String>::new(),
            "{args:?}: {out}"
        );
    }
}

#[test]
fn error_lines_are_bounded_and_lists_of_what_is_allowed_are_whole() {
    let dir = temp_dir();
    let header = |rules: &str, seats: usize| {
        let seats: Vec<String> = (0..seats)
            .map(|i| format!("{{\"name\":\"player{i}\",\"kind\":\"human\"}}"))
            .collect();
        format!(
            "{{\"type\":\"game\",\"format\":4,\"rules\":\"{rules}\",\"upper_first\":false,\"seats\":[{}],\"dice\":\"seeded\",\"seed\":1,\"coach_threshold\":0.2,\"coach_target\":null,\"coach_win\":false,\"started\":\"2026-12-03T04:10:43Z\"}}\n",
            seats.join(",")
        )
    };
    let many = dir.path().join("many.jsonl");
    std::fs::write(&many, header("yacht", 10_000)).unwrap();
    let o = run_bounded(dir.path(), &["review", &path_str(&many)]);
    assert_bad_input(&o, "a game takes at most 8 players, not 10000");
    let unknown = dir.path().join("unknown.jsonl");
    std::fs::write(&unknown, header("nope", 2)).unwrap();
    let o = run_bounded(dir.path(), &["review", &path_str(&unknown)]);
    assert_bad_input(
        &o,
        "unknown rule set `nope`: the rule sets are yahtzee, yahtzee-free-joker, yahtzee-plain, yacht, yatzy, yacht-dice, maxi-yatzy (or a rules file",
    );
    // A path of thousands of characters in a message: the line is cut, its length said.
    let deep = format!("{}/x.table", "d".repeat(200));
    let long: String = std::iter::repeat_n(deep.as_str(), 20)
        .collect::<Vec<_>>()
        .join("/");
    let o = run_bounded(dir.path(), &["verify", &long]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.chars().count() < 1100,
        "{} characters",
        err.chars().count()
    );
    assert!(err.contains("characters, cut)"), "{err}");
}

#[test]
fn cards_and_dice_share_one_grammar() {
    table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    let advise = |card: &str, dice: &str| {
        run_bounded(
            dir.path(),
            &["advise", "--rules", "yacht", "--card", card, "--dice", dice],
        )
    };
    // A sign or an empty part is refused in a card, as in the dice.
    assert_bad_input(&advise("ones=+3", "1,2,3,4,5"), "`ones` cannot hold +3");
    assert_bad_input(
        &advise("ones=3,,twos=4", "1,2,3,4,5"),
        "`(empty)` is not `box=points`",
    );
    assert_bad_input(
        &advise("ones=3,", "1,2,3,4,5"),
        "`(empty)` is not `box=points`",
    );
    assert_bad_input(&advise("ones=3", "+1,1,1,1,1"), "`+1` is not a face");
    // A negative face is the dice parser's message, not clap's "unexpected argument".
    assert_bad_input(&advise("ones=3", "-1,1,1,1,1"), "`-1` is not a face");
    // An empty card is a new game; so is a blank one.
    for card in ["", " "] {
        let o = advise(card, "1,2,3,4,5");
        assert!(o.status.success(), "{card:?}: {}", stderr(&o));
    }
    // Dice as strings in a batch line: what is wrong is named.
    let o = crate::util::run_bytes(
        table_dir(),
        &["advise", "--rules", "yacht", "--batch"],
        b"{\"dice\": [\"1\", \"2\", \"3\", \"4\", \"5\"]}\n",
    );
    assert!(
        crate::util::stdout(&o).contains("among them the string \\\"1\\\""),
        "{}",
        crate::util::stdout(&o)
    );
}

/// Ctrl-C during a build on a terminal (a pseudo-terminal from `script`): the shell's next
/// output starts on a line of its own, not after the bar.
#[cfg(unix)]
#[test]
fn ctrl_c_during_a_build_ends_the_progress_bar_s_line() {
    if Command::new("script").arg("--version").output().is_err() {
        panic!("`script` (util-linux) is needed to give the binary a terminal");
    }
    let dir = temp_dir();
    let typescript = dir.path().join("typescript");
    let out = dir.path().join("interrupted.table");
    let bin = env!("CARGO_BIN_EXE_yahtzee");
    // The target table of Yatzy: a minute to build, interrupted after its bar shows.
    let inner = format!(
        "YAHTZEE_TABLE_DIR='{}' '{bin}' solve --rules yatzy --objective target --out '{}'; printf AFTER",
        dir.path().display(),
        out.display()
    );
    let child = Command::new("script")
        .args(["-qfc", &inner])
        .arg(&typescript)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("script runs");
    // The bar of the target table's cards, some of them solved: the build is under way (the
    // expected-score table it reads first is solved in a fraction of a second, and an
    // interrupt between the two would find no bar to end).
    let under_way = |t: &str| {
        t.rsplit_once("/32768 cards (").is_some_and(|(before, _)| {
            let done: String = before
                .chars()
                .rev()
                .take_while(char::is_ascii_digit)
                .collect();
            !done.is_empty() && done.chars().any(|c| c != '0')
        })
    };
    let start = Instant::now();
    while !std::fs::read_to_string(&typescript).is_ok_and(|t| under_way(&t)) {
        assert!(start.elapsed() < Duration::from_secs(20), "no bar shown");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("pkill")
        .args(["-INT", "-f", &format!("target --out {}", out.display())])
        .status()
        .expect("pkill runs");
    assert!(killed.success());
    finish_within(child, Duration::from_secs(20), "script");
    let text = std::fs::read_to_string(&typescript).unwrap();
    let at = text.rfind("AFTER").expect("the shell went on");
    let before = text[..at].trim_end_matches('\r');
    assert!(before.ends_with('\n'), "{:?}", &before[before.len() - 80..]);
    assert!(!out.exists());
}

#[test]
fn a_table_longer_than_its_header_says_is_refused_before_its_body_is_read() {
    table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    let path = dir.path().join("yacht.v4.table");
    std::fs::copy(table_dir().join("yacht.v4.table"), &path).unwrap();
    // 8 GB of trailing bytes, sparse (no disk used): what `verify` once read whole.
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(8 << 30).unwrap();
    drop(file);
    let path_s = path_str(&path);
    for args in [
        vec!["verify", path_s.as_str()],
        vec![
            "advise",
            "--rules",
            "yacht",
            "--table",
            &path_s,
            "--dice",
            "1,2,3,4,5",
        ],
    ] {
        let o = run_bounded(dir.path(), &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("bytes after the end of the table"),
            "{}",
            stderr(&o)
        );
    }
}
