//! The table file: written atomically, checked on load (from a file or from bytes), refused
//! with a fix that works when wrong; the cache folder; temporaries never left behind.

use std::fs;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use yahtzee_core::files;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::tables::container::FORMAT_VERSION;
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::{Origin, TableError};

use crate::util::*;

/// A small valid table file (yacht) in a fresh folder.
fn yacht_table() -> (tempfile::TempDir, PathBuf) {
    let dir = temp_dir();
    let path = dir.path().join("yacht.table");
    let o = yahtzee_in(dir.path())
        .args(["solve", "--rules", "yacht", "--out"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    (dir, path)
}

fn verify(path: &Path) -> std::process::Output {
    yahtzee_in(path.parent().unwrap())
        .arg("verify")
        .arg(path)
        .output()
        .unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn truncate(path: &Path) {
    let bytes = fs::read(path).unwrap();
    fs::write(path, &bytes[..bytes.len() - 1]).unwrap();
}

#[test]
fn solve_writes_a_table_that_verifies_and_reloads_identically() {
    let (_dir, path) = yacht_table();
    let o = verify(&path);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("holds the yacht table"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("169.7738890526"));
    let rules = Rules::new(RuleSet::YACHT);
    let loaded = StrategyTable::load(&path, &rules).unwrap();
    let (fresh, _) = StrategyTable::solve(&rules, Default::default(), &|_, _| {});
    assert_eq!(loaded.values(), fresh.values());
    // No temporary file is left beside it.
    assert_eq!(names(path.parent().unwrap()), ["yacht.table"]);
}

#[test]
fn a_table_loads_from_bytes_with_the_same_checks() {
    let (_dir, path) = yacht_table();
    let rules = Rules::new(RuleSet::YACHT);
    let bytes = fs::read(&path).unwrap();
    let from_file = StrategyTable::load(&path, &rules).unwrap();
    let from_bytes = StrategyTable::from_bytes(&bytes, &rules).unwrap();
    assert_eq!(from_bytes.values(), from_file.values());
    assert_eq!(from_bytes.to_bytes(), bytes);
    let (header, opened) = StrategyTable::open_bytes(&bytes).unwrap();
    assert_eq!(header.rules, "yacht");
    assert_eq!(opened.rules(), &rules);
    // The same refusals, naming the data instead of a file.
    let err = StrategyTable::from_bytes(&bytes[..bytes.len() - 1], &rules).unwrap_err();
    assert!(
        matches!(&err, TableError::Truncated { origin: Origin::Bytes, got, .. } if *got == bytes.len() as u64 - 1),
        "{err:?}"
    );
    assert!(
        err.to_string().starts_with("the table data is truncated"),
        "{err}"
    );
    let mut flipped = bytes.clone();
    *flipped.last_mut().unwrap() ^= 1;
    assert!(matches!(
        StrategyTable::from_bytes(&flipped, &rules),
        Err(TableError::Checksum { .. })
    ));
    assert!(matches!(
        StrategyTable::from_bytes(b"hello", &rules),
        Err(TableError::Magic { .. })
    ));
    let yahtzee = Rules::new(RuleSet::YAHTZEE);
    assert!(matches!(
        StrategyTable::from_bytes(&bytes, &yahtzee),
        Err(TableError::WrongRules { found: Some(r), .. }) if r == rules
    ));
}

#[test]
fn wrong_magic() {
    let dir = temp_dir();
    let path = dir.path().join("notes.txt");
    fs::write(&path, "these are not the tables you are looking for").unwrap();
    let o = verify(&path);
    assert_bad_input(&o, "is not a yahtzee table (wrong magic bytes)");
    // A file that is not a table may be anything: no hint to overwrite it.
    assert!(!stderr(&o).contains("--out"), "{}", stderr(&o));
}

#[test]
fn wrong_version() {
    let (dir, path) = yacht_table();
    let mut bytes = fs::read(&path).unwrap();
    bytes[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    fs::write(&path, bytes).unwrap();
    let o = verify(&path);
    assert_bad_input(&o, "has table format version");
    let err = StrategyTable::load(&path, &Rules::new(RuleSet::YACHT)).unwrap_err();
    assert!(matches!(err, TableError::Version { got, .. } if got == FORMAT_VERSION + 1));
    // The header of another version cannot be read: the hint builds the official rules there,
    // which works.
    run_suggested(dir.path(), &stderr(&o));
    assert!(verify(&path).status.success());
}

#[test]
fn truncated() {
    let (_dir, path) = yacht_table();
    let bytes = fs::read(&path).unwrap();
    for keep in [4, 14, 40, bytes.len() - 1] {
        fs::write(&path, &bytes[..keep]).unwrap();
        assert_bad_input(&verify(&path), "is truncated");
    }
}

#[test]
fn corrupted() {
    let (_dir, path) = yacht_table();
    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 3;
    bytes[last] ^= 0x40;
    fs::write(&path, &bytes).unwrap();
    assert_bad_input(&verify(&path), "is corrupted (checksum");
    let err = StrategyTable::load(&path, &Rules::new(RuleSet::YACHT)).unwrap_err();
    assert!(matches!(err, TableError::Checksum { .. }));
}

#[test]
fn verify_hint_rebuilds_a_damaged_table_of_the_rules_it_held() {
    let (dir, path) = yacht_table();
    truncate(&path);
    let o = verify(&path);
    assert_bad_input(&o, "is truncated");
    let words = suggested_command(&stderr(&o));
    assert_eq!(
        words,
        [
            "yahtzee",
            "solve",
            "--rules",
            "yacht",
            "--out",
            &path_str(&path)
        ]
    );
    run_suggested(dir.path(), &stderr(&o));
    let again = verify(&path);
    assert!(
        stdout(&again).contains("holds the yacht table"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn verify_of_a_missing_table_suggests_a_solve_that_works() {
    let dir = temp_dir();
    let path = dir.path().join("missing.table");
    let o = verify(&path);
    assert_bad_input(&o, "cannot read table");
    run_suggested(dir.path(), &stderr(&o));
    assert!(verify(&path).status.success());
}

#[test]
fn damaged_table_path_gets_a_rebuild_command_that_writes_there() {
    for upper_first in [false, true] {
        let (dir, path) = yacht_table();
        let mut flags = vec!["--rules", "yacht"];
        if upper_first {
            flags.push("--upper-first");
            // A solve never replaces a table of other rules: the yacht table goes first.
            std::fs::remove_file(&path).unwrap();
            let o = yahtzee_in(dir.path())
                .args(["solve", "--rules", "yacht", "--upper-first", "--out"])
                .arg(&path)
                .output()
                .unwrap();
            assert!(o.status.success());
        }
        truncate(&path);
        let advise = || {
            yahtzee_in(dir.path())
                .args(["advise", "--dice", "12345"])
                .args(&flags)
                .arg("--table")
                .arg(&path)
                .output()
                .unwrap()
        };
        let o = advise();
        assert_bad_input(&o, "is truncated");
        let mut expected = vec!["yahtzee", "solve"];
        expected.extend(&flags);
        let out = path_str(&path);
        expected.extend(["--out", &out]);
        assert_eq!(suggested_command(&stderr(&o)), expected);
        run_suggested(dir.path(), &stderr(&o));
        let fixed = advise();
        assert!(fixed.status.success(), "{}", stderr(&fixed));
    }
}

#[test]
fn damaged_default_table_gets_a_rebuild_command() {
    let dir = temp_dir();
    let query = ["advise", "--rules", "yacht", "--dice", "12345"];
    assert!(
        yahtzee_in(dir.path())
            .args(query)
            .output()
            .unwrap()
            .status
            .success()
    );
    let path = dir.path().join("yacht.v3.table");
    truncate(&path);
    let o = yahtzee_in(dir.path()).args(query).output().unwrap();
    assert_bad_input(&o, "is truncated");
    assert_eq!(
        suggested_command(&stderr(&o)),
        ["yahtzee", "solve", "--rules", "yacht"]
    );
    run_suggested(dir.path(), &stderr(&o));
    assert!(
        yahtzee_in(dir.path())
            .args(query)
            .output()
            .unwrap()
            .status
            .success()
    );
}

#[test]
fn a_table_of_other_rules_is_refused_with_the_fix() {
    let (dir, path) = yacht_table();
    let o = yahtzee_in(dir.path())
        .args(["advise", "--dice", "12345", "--table"])
        .arg(&path)
        .output()
        .unwrap();
    assert_bad_input(&o, "holds the table of yacht, not of yahtzee");
    assert!(
        stderr(&o).contains("use `--rules yacht` instead of `--rules yahtzee` to use this one"),
        "{}",
        stderr(&o)
    );
    // The fix works: the same query with those rules.
    let fixed = yahtzee_in(dir.path())
        .args(["advise", "--dice", "12345", "--rules", "yacht", "--table"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(fixed.status.success(), "{}", stderr(&fixed));
    let upper_first = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
    let err = StrategyTable::load(&path, &upper_first).unwrap_err();
    assert!(
        err.to_string()
            .contains("holds the table of yacht, not of yacht (upper first)"),
        "{err}"
    );
}

/// Every error the library gives about a table, from every way of getting one.
#[test]
fn table_errors_name_no_flag_and_no_command() {
    let (dir, path) = yacht_table();
    let rules = Rules::new(RuleSet::YACHT);
    let bytes = fs::read(&path).unwrap();
    let mut errors = vec![
        StrategyTable::load(&dir.path().join("missing"), &rules).unwrap_err(),
        StrategyTable::load(&path, &Rules::new(RuleSet::YAHTZEE)).unwrap_err(),
        StrategyTable::from_bytes(&bytes[..30], &rules).unwrap_err(),
        StrategyTable::from_bytes(b"not a table", &rules).unwrap_err(),
    ];
    let mut version = bytes.clone();
    version[8] ^= 1;
    errors.push(StrategyTable::from_bytes(&version, &rules).unwrap_err());
    let mut body = bytes.clone();
    *body.last_mut().unwrap() ^= 1;
    errors.push(StrategyTable::from_bytes(&body, &rules).unwrap_err());
    let table = StrategyTable::load(&path, &rules).unwrap();
    errors.push(table.save(&path.join("below-a-file")).unwrap_err());
    for e in errors {
        let text = e.to_string();
        assert!(
            !text.contains("--") && !text.contains("yahtzee solve"),
            "{text}"
        );
    }
}

#[test]
fn advise_builds_a_missing_table_first_then_reuses_it() {
    let dir = temp_dir();
    let query = [
        "advise",
        "--rules",
        "yacht",
        "--dice",
        "22226",
        "--rolls-left",
        "0",
        "--json",
    ];
    let o = yahtzee_in(dir.path()).args(query).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("building it once"));
    let path = dir.path().join("yacht.v3.table");
    assert!(path.exists());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["rules"], "yacht");
    let again = yahtzee_in(dir.path()).args(query).output().unwrap();
    assert!(again.status.success());
    assert!(!stderr(&again).contains("building"), "{}", stderr(&again));
    assert_eq!(again.stdout, o.stdout);
}

/// The answer of a command that had to build a table it could not save, and its warning.
fn built_but_not_saved(cache: &Path, args: &[&str]) -> (String, String) {
    let o = yahtzee_in(cache).args(args).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(warnings[0].contains("built but not saved"), "{err}");
    (stdout(&o), warnings[0].to_string())
}

/// `/proc` takes no new file, even from root: a folder where nothing can be written.
#[cfg(target_os = "linux")]
#[test]
fn advise_answers_with_a_warning_when_the_cache_folder_is_read_only() {
    let dir = temp_dir();
    let (answer, warning) = built_but_not_saved(
        Path::new("/proc"),
        &["advise", "--rules", "yacht", "--dice", "12345", "--json"],
    );
    let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(v["rules"], "yacht");
    // The fix names what advise has: the variable or --table, never --out.
    assert!(!warning.contains("--out"), "{warning}");
    assert!(
        warning.contains("YAHTZEE_TABLE_DIR") && warning.contains("--table"),
        "{warning}"
    );
    // ... and it works.
    let fixed = yahtzee_in(Path::new("/proc"))
        .args(["advise", "--rules", "yacht", "--dice", "12345", "--table"])
        .arg(dir.path().join("t.table"))
        .output()
        .unwrap();
    assert!(fixed.status.success());
    assert!(!stderr(&fixed).contains("warning"), "{}", stderr(&fixed));
    assert!(dir.path().join("t.table").exists());
    // Every command that builds a table takes the same way.
    let (stats, _) = built_but_not_saved(
        Path::new("/proc"),
        &["stats", "--rules", "yacht", "--upper-first", "--json"],
    );
    assert!(stats.contains("\"method\":\"exact\""));
}

#[test]
fn a_cache_path_that_is_a_file_gets_a_clear_message() {
    let dir = temp_dir();
    let file = dir.path().join("not-a-folder");
    fs::write(&file, "x").unwrap();
    let (answer, warning) =
        built_but_not_saved(&file, &["advise", "--rules", "yacht", "--dice", "12345"]);
    assert!(answer.contains("rank"), "{answer}");
    assert!(warning.contains("is a file, not a folder"), "{warning}");
    assert!(
        !warning.contains("File exists") && !warning.contains("os error"),
        "{warning}"
    );
    // A solve has no answer without its file: an error, as clear.
    let o = yahtzee_in(dir.path())
        .args(["solve", "--rules", "yacht", "--out"])
        .arg(file.join("t.table"))
        .output()
        .unwrap();
    assert_bad_input(&o, "is a file, not a folder");
    assert_eq!(fs::read_to_string(&file).unwrap(), "x");
}

/// A writer that fails after `left` bytes, as a full disk does.
struct FailAfter<W> {
    inner: W,
    left: usize,
}

impl<W: Write> Write for FailAfter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::new(io::ErrorKind::StorageFull, "no space left"));
        }
        let n = buf.len().min(self.left);
        self.left -= n;
        self.inner.write(&buf[..n])
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Seek> Seek for FailAfter<W> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

#[test]
fn a_save_failing_part_way_leaves_the_old_table_and_no_temporary() {
    let (dir, path) = yacht_table();
    let before = fs::read(&path).unwrap();
    let rules = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
    let (other, _) = StrategyTable::solve(&rules, Default::default(), &|_, _| {});
    for left in [0, 10, 100, 1000] {
        let r = files::write_file(&path, |f| other.write_to(&mut FailAfter { inner: f, left }));
        assert_eq!(r.unwrap_err().kind(), io::ErrorKind::StorageFull);
        assert_eq!(fs::read(&path).unwrap(), before);
        assert_eq!(names(dir.path()), ["yacht.table"]);
    }
    // Without the failure the same write replaces it.
    files::write_file(&path, |f| other.write_to(f)).unwrap();
    StrategyTable::load(&path, &rules).unwrap();
    assert_eq!(names(dir.path()), ["yacht.table"]);
}

/// The id of a process that has ended.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[test]
fn a_stale_temporary_of_a_dead_process_is_removed_by_the_next_write() {
    let (dir, path) = yacht_table();
    let dead = format!("yacht.table.yahtzee-tmp-{}-0", dead_pid());
    // The temporaries of a live process stay; so does a user's file of a like name.
    let mut live = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let alive = format!("export.csv.yahtzee-tmp-{}-3", live.id());
    for name in [&dead, &alive, &"notes.tmp123".to_string()] {
        fs::write(dir.path().join(name), "partial").unwrap();
    }
    let removed = files::remove_stale_temporaries(dir.path());
    assert_eq!(removed.unwrap(), 1);
    assert!(!dir.path().join(&dead).exists());
    // Through the binary: a solve into the folder removes the stale one of a killed solve.
    fs::write(dir.path().join(&dead), "partial").unwrap();
    let o = yahtzee_in(dir.path())
        .args(["solve", "--rules", "yacht", "--out"])
        .arg(&path)
        .output()
        .unwrap();
    live.kill().unwrap();
    live.wait().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        names(dir.path()),
        [alive.as_str(), "notes.tmp123", "yacht.table"]
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_during_a_write_removes_the_temporary() {
    crate::util::table(RuleSet::YACHT, Order::Any);
    let dir = temp_dir();
    let out = dir.path().join("policy.csv");
    // The full policy of yacht takes seconds to write: long enough to see its temporary.
    let mut child = yahtzee_in(table_dir())
        .args([
            "export",
            "--rules",
            "yacht",
            "--all-states",
            "--policy",
            "--out",
        ])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while names(dir.path()).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "no temporary appeared"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the export ended before its write was seen"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
}

#[test]
fn unreadable_table_path() {
    let dir = temp_dir();
    let o = yahtzee_in(dir.path())
        .args(["verify"])
        .arg(dir.path().join("missing.table"))
        .output()
        .unwrap();
    assert_bad_input(&o, "cannot read table");
}

#[test]
fn a_table_path_that_is_not_a_table_is_never_suggested_for_overwrite() {
    let dir = temp_dir();
    let notes = dir.path().join("notes.txt");
    fs::write(&notes, "my notes").unwrap();
    let advise = |table: &Path| {
        yahtzee_in(dir.path())
            .args(["advise", "--rules", "yacht", "--dice", "12345", "--table"])
            .arg(table)
            .output()
            .unwrap()
    };
    let o = advise(&notes);
    assert_bad_input(&o, "is not a yahtzee table");
    assert!(
        !stderr(&o).contains('`'),
        "a command is suggested: {}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("or a path where no file exists yet, to build one there"));
    // Following the fix: a new path builds the table there.
    let new = dir.path().join("yacht.table");
    assert!(advise(&new).status.success());
    assert!(advise(&new).status.success());
    assert_eq!(fs::read_to_string(&notes).unwrap(), "my notes");
}

#[test]
fn a_cache_file_that_is_not_a_table_gets_a_rebuild_command() {
    let dir = temp_dir();
    fs::write(dir.path().join("yacht.v3.table"), "").unwrap();
    let query = ["advise", "--rules", "yacht", "--dice", "12345"];
    let o = yahtzee_in(dir.path()).args(query).output().unwrap();
    assert_bad_input(&o, "is not a yahtzee table");
    assert_eq!(
        suggested_command(&stderr(&o)),
        ["yahtzee", "solve", "--rules", "yacht"]
    );
    run_suggested(dir.path(), &stderr(&o));
    assert!(
        yahtzee_in(dir.path())
            .args(query)
            .output()
            .unwrap()
            .status
            .success()
    );
}

#[test]
fn export_out_never_overwrites_a_table_or_the_table_it_reads() {
    let (dir, path) = yacht_table();
    let before = fs::read(&path).unwrap();
    let other = dir.path().join("other.table");
    fs::copy(&path, &other).unwrap();
    for (out, needle) in [
        (&other, "holds a strategy table, which is never overwritten"),
        (&path, "is the strategy table this command reads"),
    ] {
        let o = yahtzee_in(dir.path())
            .args([
                "export",
                "--rules",
                "yacht",
                "--table",
                &path_str(&path),
                "--out",
            ])
            .arg(out)
            .output()
            .unwrap();
        assert_bad_input(&o, needle);
        assert!(stderr(&o).contains("--out"), "{}", stderr(&o));
    }
    assert_eq!(fs::read(&path).unwrap(), before);
    assert_eq!(fs::read(&other).unwrap(), before);
    let help = stdout(
        &yahtzee_in(dir.path())
            .args(["export", "--help"])
            .output()
            .unwrap(),
    );
    assert!(
        help.contains("a strategy table or the table being read is never overwritten"),
        "{help}"
    );
}
