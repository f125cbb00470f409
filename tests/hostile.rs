//! Hostile input at the edges of the command line: what an input or output path really is
//! (a pipe, a device, a link), how much a command reads before it checks, write errors on
//! stdout and stderr, and the shape of error lines. One test per defect of the hostile-input
//! review (issue 23), named after it.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use yahtzee_core::game::rules::{Order, RuleSet};

use crate::util::{
    assert_bad_input, finish_within, path_str, run_bytes, stderr, table, table_dir, temp_dir,
    yahtzee_in,
};

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
/// with four rolls a turn (no saved rolls), an upper bonus of 100 at 126, a five-of-a-kind bonus and a forced
/// Joker. Its dense table holds 2^20 cards x 127 upper totals x 2 flags = 266 million values,
/// 1.98 GiB as `f64`, and its widest depth's rows 0.35 GiB more while solving.
fn huge_rules(dir: &Path) -> String {
    let maxi = include_str!("../data/rules/maxi-yatzy.toml");
    let text = [
        ("rolls = 3\nsaved_rolls = true", "rolls = 4"),
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
    // The expected-score table the target table reads, there already: the only bar is the
    // target table's (on a loaded machine the expected-score table's bar, of as many cards,
    // was taken for it, and the interrupt came between the two, with no bar to end).
    table(RuleSet::YATZY, Order::Any);
    let dir = crate::util::dir_with_tables(&["yatzy.v4.table"]);
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
    // The bar of the target table's cards, some of them solved: the build is under way.
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

// -- Issue 45, items 4 to 12: the hostile user's second round -------------------------------

/// A small game of six dice: two boxes, solved at once.
const SIX_DICE_RULES: &str = "name = \"six-small\"\ndice = 6\nrolls = 3\n[[box]]\nname = \"chance\"\nkind = \"chance\"\n[[box]]\nname = \"quint\"\nkind = \"of-a-kind\"\ncount = 5\nscore = \"matching\"\n";

/// The record of a seeded game of Yacht played by the bot, at `path`.
fn bot_record(path: &Path, seed: &str) {
    let o = crate::util::run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "play",
            "--rules",
            "yacht",
            "--players",
            "bot",
            "--seed",
            seed,
            "--record",
            &path_str(path),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Issue 45: a player named U+202E + "tob" was accepted by `play --players` (it shows as
/// "bot"), and a rules file's box titles took U+202E, U+2028, U+0085 and U+007F. Names and
/// titles refuse the Unicode categories Cc, Cf, Zl and Zp.
#[test]
fn names_and_titles_with_control_format_or_separator_characters_are_refused() {
    table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    for name in [
        "\u{202e}tob",
        "a\u{2028}b",
        "a\u{85}b",
        "a\u{7f}b",
        "a\u{2066}b",
    ] {
        let players = format!("{name},bot");
        let record = path_str(&dir.path().join("game.jsonl"));
        let o = crate::util::run(
            RuleSet::YACHT,
            Order::Any,
            &[
                "play",
                "--rules",
                "yacht",
                "--players",
                &players,
                "--seed",
                "1",
                "--record",
                &record,
            ],
        );
        assert_bad_input(&o, "is not allowed");
        assert!(!stderr(&o).contains(name), "printed raw: {}", stderr(&o));
    }
    let base = "name = \"titled\"\ndice = 5\nrolls = 3\n[[box]]\nname = \"c\"\nkind = \"chance\"\n";
    for escape in [
        "\\u202E", "\\u2028", "\\u0085", "\\u007F", "\\u200B", "\\uFEFF",
    ] {
        for field in ["title", "summary"] {
            let text = match field {
                "title" => format!("{base}title = \"a{escape}b\"\n"),
                _ => base.replace(
                    "rolls = 3\n",
                    &format!("rolls = 3\nsummary = \"a{escape}b\"\n"),
                ),
            };
            let file = dir.path().join("titled.toml");
            std::fs::write(&file, text).unwrap();
            let o = run_bytes(dir.path(), &["rules", &path_str(&file)], b"");
            assert_bad_input(&o, "printable characters");
        }
    }
}

/// Issue 45: `review DIR` of one good record, a pipe, a link to /dev/zero and a link loop
/// said "1 record" with exit 0 and no word of the others; a malformed file in a folder
/// stopped the whole rating. One rule for all: each path skipped is named on stderr with its
/// reason, the rest are rated, and the exit status is 2.
#[cfg(unix)]
#[test]
fn review_of_a_folder_names_every_path_it_skips_and_fails() {
    let dir = temp_dir();
    let games = dir.path().join("games");
    std::fs::create_dir(&games).unwrap();
    bot_record(&games.join("a-good.jsonl"), "3");
    bot_record(&games.join("b-good.jsonl"), "4");
    mkfifo(&games.join("c-pipe.jsonl"));
    symlink(Path::new("/dev/zero"), &games.join("d-zero.jsonl"));
    symlink(&games.join("e-loop.jsonl"), &games.join("e-loop.jsonl"));
    std::fs::write(games.join("f-bad.jsonl"), "{\"type\":\"game\"\n").unwrap();
    std::fs::write(games.join("notes.txt"), "not a record").unwrap();
    let all = run_bounded(dir.path(), &["review", &path_str(&games)]);
    let err = stderr(&all);
    assert_eq!(all.status.code(), Some(2), "{err}");
    assert!(
        crate::util::stdout(&all).starts_with("yacht, 2 records:"),
        "{}",
        crate::util::stdout(&all)
    );
    for (name, reason) in [
        ("c-pipe.jsonl", "is a named pipe"),
        ("d-zero.jsonl", "is a device"),
        ("e-loop.jsonl", "symbolic links"),
        ("f-bad.jsonl", "line 1"),
    ] {
        let line = err
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name} not named: {err}"));
        assert!(line.starts_with("warning: "), "{line}");
        assert!(line.contains(reason), "{name}: {line}");
        assert!(line.ends_with("; skipped"), "{line}");
    }
    assert!(!err.contains("notes.txt"), "{err}");
    assert!(
        err.trim_end().ends_with(
            "error: 4 paths were skipped (named above): the rating above is of the other 2 records"
        ),
        "{err}"
    );
    // The same paths one by one: the same rule.
    let paths: Vec<String> = ["a-good", "b-good", "c-pipe", "d-zero", "e-loop", "f-bad"]
        .iter()
        .map(|n| path_str(&games.join(format!("{n}.jsonl"))))
        .collect();
    let mut args = vec!["review"];
    args.extend(paths.iter().map(String::as_str));
    let each = run_bounded(dir.path(), &args);
    assert_eq!(each.status.code(), Some(2), "{}", stderr(&each));
    assert_eq!(crate::util::stdout(&each), crate::util::stdout(&all));
    assert_eq!(stderr(&each).lines().count(), err.lines().count());
    // Nothing to rate: one line, exit 2.
    let o = run_bounded(dir.path(), &["review", &paths[2], &paths[4], "--rating"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).trim_end().ends_with("error: no game record to rate: 2 paths were skipped (named above); give records written by `yahtzee play`"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
}

/// Issue 45: `review bom.jsonl`, a record behind a UTF-8 byte-order mark, was refused ("line
/// 1: not a game header"), while `advise --batch` skips the mark.
#[test]
fn a_record_behind_a_byte_order_mark_is_reviewed() {
    let dir = temp_dir();
    let plain = dir.path().join("plain.jsonl");
    bot_record(&plain, "5");
    let bom = dir.path().join("bom.jsonl");
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(std::fs::read(&plain).unwrap());
    std::fs::write(&bom, bytes).unwrap();
    let with = run_bounded(dir.path(), &["review", &path_str(&bom)]);
    assert!(with.status.success(), "{}", stderr(&with));
    let without = run_bounded(dir.path(), &["review", &path_str(&plain)]);
    assert_eq!(with.stdout, without.stdout);
}

/// Issue 45: `stats --rules 'rules/a,b.toml'` said "cannot read rules/a": the path was split
/// at its comma. A path is one rules file, as every command takes it; names still list.
#[test]
fn stats_takes_a_rules_file_whose_path_has_a_comma() {
    table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    std::fs::create_dir(dir.path().join("rules")).unwrap();
    std::fs::write(
        dir.path().join("rules/a,b.toml"),
        include_str!("../data/rules/yacht.toml"),
    )
    .unwrap();
    let stats = |rules: &str| run_bounded(dir.path(), &["stats", "--rules", rules, "--json"]);
    let o = stats("rules/a,b.toml");
    assert!(o.status.success(), "{}", stderr(&o));
    let by_name = stats("yacht");
    let mean = |o: &Output| {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["mean"].as_f64().unwrap()
    };
    assert_eq!(mean(&o), mean(&by_name));
    // The same value as advise takes.
    let o = run_bounded(
        dir.path(),
        &["advise", "--rules", "rules/a,b.toml", "--dice", "1,2,3,4,5"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // A missing path with a comma says it is one path.
    let o = stats("rules/x,y.toml");
    assert_bad_input(&o, "the whole value, commas included, is its path");
    // Names separated by commas are still several rule sets.
    let o = run_bounded(dir.path(), &["stats", "--rules", "yacht,yacht", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v.as_array().map(Vec::len), Some(2), "{v}");
}

/// Issue 45: `advise --opponent <a full card>` said "the card is full... no move left to
/// advise": a full card is an opponent who has finished, with the card's total, as
/// `--opponent-final` says; `stats --card <full>` says the game is over and at what score.
#[test]
fn a_full_opponent_card_is_an_opponent_who_has_finished() {
    table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    let full = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,full-house=0,four-of-a-kind=20,little-straight=30,big-straight=0,choice=22,yacht=50";
    let total = "185";
    let position = [
        "advise",
        "--rules",
        "yacht",
        "--card",
        "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,full-house=0,four-of-a-kind=20,little-straight=30,big-straight=0",
        "--dice",
        "6,6,6,6,5",
        "--rolls-left",
        "1",
    ];
    let against = |flag: &str, value: &str| {
        let mut args = position.to_vec();
        args.extend([flag, value]);
        run_bounded(dir.path(), &args)
    };
    let by_card = against("--opponent", full);
    assert!(by_card.status.success(), "{}", stderr(&by_card));
    let by_final = against("--opponent-final", total);
    assert!(by_final.status.success(), "{}", stderr(&by_final));
    assert_eq!(by_card.stdout, by_final.stdout);
    assert!(
        crate::util::stdout(&by_card).contains(&format!("opponent 1: finished with {total}")),
        "{}",
        crate::util::stdout(&by_card)
    );
    // The batch reads a full opponent's card the same way.
    let line = format!(
        r#"{{"card": {{"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18, "full-house": 0, "four-of-a-kind": 20, "little-straight": 30, "big-straight": 0}}, "dice": [6, 6, 6, 6, 5], "rolls_left": 1, "opponents": [{{"card": {{{}}}}}]}}"#,
        full.split(',')
            .map(|e| {
                let (b, p) = e.split_once('=').unwrap();
                format!("\"{b}\": {p}")
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    let final_line = line.replace(
        &line[line.find("[{\"card\"").unwrap()..line.len() - 1],
        &format!("[{{\"final\": {total}}}]"),
    );
    let o = run_bytes(
        table_dir(),
        &["advise", "--batch", "--rules", "yacht"],
        format!("{line}\n{final_line}\n").as_bytes(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let answers: Vec<&str> = std::str::from_utf8(&o.stdout).unwrap().lines().collect();
    assert_eq!(answers.len(), 2);
    assert!(!answers[0].contains("error"), "{}", answers[0]);
    assert_eq!(answers[0], answers[1]);
    // stats from a full card: the game is over, at its total.
    let o = run_bounded(dir.path(), &["stats", "--rules", "yacht", "--card", full]);
    assert_bad_input(&o, &format!("the game is over at {total} points"));
    assert!(!stderr(&o).contains("advise"), "{}", stderr(&o));
}

/// Issue 45: `advise --batch` fed all its lines at once wrote nothing while a later line
/// waited on a table being built (minutes), and, killed then, lost the answers it had
/// finished. Each answer is written and flushed as it is ready.
#[test]
fn a_batch_writes_each_answer_before_the_next_line_is_answered() {
    use std::io::{BufRead, BufReader, Write};
    table(RuleSet::YACHT, Order::Any);
    let dir = crate::util::dir_with_tables(&["yacht.v4.table"]);
    let mut child = yahtzee_in(dir.path())
        .args(["advise", "--batch", "--rules", "yacht"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let quick = r#"{"dice": [1, 2, 3, 4, 5]}"#;
    // The exact game of two from a new card: its table of the first turns is solved first
    // (minutes).
    let slow = r#"{"dice": [1, 2, 3, 4, 5], "two_player": true, "opponents": [{"card": {}}]}"#;
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(format!("{quick}\n{quick}\n{quick}\n{quick}\n{slow}\n").as_bytes())
        .unwrap();
    stdin.flush().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut answers = Vec::new();
    while answers.len() < 4 {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => answers.push(line),
            Err(_) => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    drop(stdin);
    assert_eq!(
        answers.len(),
        4,
        "answers written while the fifth line waited: {answers:?}"
    );
    for a in &answers {
        assert!(a.contains("\"options\""), "{a}");
    }
}

/// Issue 45: words of the batch that misled: `"rolls_left": 1.0` was refused as "not 1", a
/// number of 2^64 printed as 18446744073709552000, and the example of a game of six dice
/// showed five.
#[test]
fn batch_errors_show_numbers_as_written_and_examples_of_the_game_s_dice() {
    table(RuleSet::YACHT, Order::Any);
    let o = run_bytes(
        table_dir(),
        &["advise", "--batch", "--rules", "yacht"],
        b"{\"dice\": [1, 2, 3, 4, 5], \"rolls_left\": 1.0}\n{\"dice\": [1, 2, 3, 4, 5], \"target\": 18446744073709551616}\n",
    );
    let out = crate::util::stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("not 1.0\""), "{}", lines[0]);
    assert!(
        lines[1].contains("not 1.8446744073709552e19"),
        "{}",
        lines[1]
    );
    assert!(!out.contains("18446744073709552000"), "{out}");
    // A game of six dice: its examples have six.
    let dir = temp_dir();
    let file = dir.path().join("six.toml");
    std::fs::write(&file, SIX_DICE_RULES).unwrap();
    let o = run_bytes(
        dir.path(),
        &["advise", "--batch", "--rules", &path_str(&file)],
        b"\n{}\n{\"x\": 1}\nnot json\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = crate::util::stdout(&o);
    assert_eq!(out.lines().count(), 4, "{out}");
    for line in out.lines() {
        assert!(line.contains("[1, 2, 3, 3, 5, 6]"), "{line}");
        assert!(!line.contains("[1, 3, 3, 5, 6]"), "{line}");
    }
}

/// Issue 45: "1 Yahtzee bonus are impossible", and the help of `play` in a game of six dice
/// said "positions (1 to 5)" and "re-roll all five dice".
#[test]
fn words_agree_with_the_count_and_the_game_s_dice() {
    let o = crate::util::run(
        RuleSet::YAHTZEE,
        Order::Any,
        &[
            "advise",
            "--card",
            "yahtzee=50",
            "--yahtzee-bonus",
            "1",
            "--dice",
            "12345",
        ],
    );
    assert_bad_input(&o, "1 Yahtzee bonus is impossible with 1 box filled");
    let dir = temp_dir();
    let file = dir.path().join("six.toml");
    std::fs::write(&file, SIX_DICE_RULES).unwrap();
    let o = run_bytes(
        dir.path(),
        &[
            "play",
            "--rules",
            &path_str(&file),
            "--players",
            "ann",
            "--seed",
            "1",
            "--coach-threshold",
            "off",
            "--record",
            &path_str(&dir.path().join("game.jsonl")),
        ],
        b"p 7\nhelp\nquit\n",
    );
    let out = crate::util::stdout(&o);
    assert!(out.contains("(1 to 6, as shown)"), "{out}");
    assert!(out.contains("re-roll all six dice"), "{out}");
    assert!(out.contains("positions are 1 to 6"), "{out}");
    assert!(
        out.contains("everyone rolls all six dice") || !out.contains("Opening roll"),
        "{out}"
    );
    assert!(!out.contains("five"), "{out}");
}

/// Issue 45: a table error gave two fixes ("solve its rules again to rebuild it; rebuild it
/// with ...") and a header cut short said "unreadable header: io error: " with no cause.
#[test]
fn table_errors_give_one_fix_and_say_what_is_wrong() {
    table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    let path = dir.path().join("yacht.v4.table");
    let whole = std::fs::read(table_dir().join("yacht.v4.table")).unwrap();
    // Cut short: the fix is the command that rebuilds it, once.
    std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
    let o = run_bytes(
        dir.path(),
        &["advise", "--rules", "yacht", "--dice", "1,2,3,4,5"],
        b"",
    );
    assert_bad_input(&o, "rebuild it with `yahtzee solve --rules yacht`");
    assert!(
        !stderr(&o).contains("solve its rules again"),
        "{}",
        stderr(&o)
    );
    // Not a table, or another's, at the default path: one fix too, the command's.
    table(RuleSet::YAHTZEE, Order::Any);
    let yahtzee = std::fs::read(table_dir().join("yahtzee.v4.table")).unwrap();
    let others: [(&[u8], &str, &str); 2] = [
        (
            b"not a table",
            "is not a yahtzee table (wrong magic bytes); rebuild it with `yahtzee solve --rules yacht`",
            "give a strategy table file",
        ),
        (
            &yahtzee,
            "holds the table of yahtzee, not of yacht; rebuild it with `yahtzee solve --rules yacht`",
            "use a table of",
        ),
    ];
    for (bytes, said, not_said) in others {
        std::fs::write(&path, bytes).unwrap();
        let o = run_bytes(
            dir.path(),
            &["advise", "--rules", "yacht", "--dice", "1,2,3,4,5"],
            b"",
        );
        assert_bad_input(&o, said);
        assert!(!stderr(&o).contains(not_said), "{}", stderr(&o));
    }
    // A header shorter than its fields: what is wrong, in words.
    let mut short = whole.clone();
    short[12..16].copy_from_slice(&3u32.to_le_bytes());
    std::fs::write(&path, &short).unwrap();
    let o = run_bytes(dir.path(), &["verify", &path_str(&path)], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("unreadable header: it ends before its last field"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("io error"), "{}", stderr(&o));
}
