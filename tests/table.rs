//! The table file: written atomically, checked on load (from a file or from bytes), refused
//! with a fix that works when wrong; the cache folder; temporaries never left behind.

use std::fs;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use yahtzee_core::ScoreCard;
use yahtzee_core::files;
use yahtzee_core::game::rules::file::{load, parse};
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::policy::expected::Position;
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
    let path = dir.path().join("yacht.v4.table");
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
    let path = dir.path().join("yacht.v4.table");
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
    fs::write(dir.path().join("yacht.v4.table"), "").unwrap();
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

/// Yacht's rules file under the name `name`, with `from` replaced by `to` in each pair.
fn yacht_file(name: &str, changes: &[(&str, &str)]) -> String {
    let yacht = include_str!("../data/rules/yacht.toml");
    // The file's own name comes first; the yacht box's name after it is left alone.
    let text = yacht.replacen("name = \"yacht\"", &format!("name = \"{name}\""), 1);
    changes.iter().fold(text, |text, (from, to)| {
        assert!(text.contains(from), "{from}");
        text.replacen(from, to, 1)
    })
}

/// The CRC-32 of the game a rules file describes: what named a rules file's game, and its
/// tables, before table format 4.
fn game_crc(text: &str) -> u32 {
    crc32fast::hash(parse(text).unwrap().game_text().as_bytes())
}

/// `template` with its `ALIAS1` and `ALIAS2` made into two aliases of 40 letters such that the
/// game it describes has the CRC-32 `target`: a CRC-32 of texts of one length is affine in
/// their bits, so 80 letters each one of two one bit apart (`p` or `q`, `r` or `s`) set it by
/// 32 equations over GF(2), solved by elimination: 81 checksums, no search.
fn forge_aliases(template: &str, target: u32) -> String {
    let text_of = |bits: u128| {
        let alias = |from: usize, letters: [char; 2]| -> String {
            (0..40)
                .map(|i| letters[((bits >> (from + i)) & 1) as usize])
                .collect()
        };
        template
            .replace("ALIAS1", &alias(0, ['p', 'q']))
            .replace("ALIAS2", &alias(40, ['r', 's']))
    };
    let base = game_crc(&text_of(0));
    // A basis of the letters' effects, each with a distinct highest bit (highest first), and
    // the letters that make it.
    let mut basis: Vec<(u32, u128)> = Vec::new();
    let reduce = |basis: &[(u32, u128)], mut effect: u32, mut letters: u128| {
        for &(b, l) in basis {
            if effect ^ b < effect {
                effect ^= b;
                letters ^= l;
            }
        }
        (effect, letters)
    };
    for i in 0..80 {
        let (effect, letters) = reduce(&basis, game_crc(&text_of(1 << i)) ^ base, 1 << i);
        if effect != 0 {
            basis.push((effect, letters));
            basis.sort_by_key(|b| std::cmp::Reverse(b.0));
        }
    }
    let (left, letters) = reduce(&basis, target ^ base, 0);
    assert_eq!(left, 0, "the letters reach every checksum");
    let forged = text_of(letters);
    assert_eq!(game_crc(&forged), target);
    forged
}

/// The best option's expected final score in the JSON advice of `o`.
fn best_value(o: &std::process::Output) -> f64 {
    assert!(o.status.success(), "{}", stderr(o));
    let v: serde_json::Value = serde_json::from_str(&stdout(o)).unwrap();
    v["options"][0]["expected_final"].as_f64().unwrap()
}

/// Issue 45, item 2: two rules files whose games differ but whose CRC-32 was forged to
/// collide (Yacht named `collide`, and a Yacht whose Yacht box is worth 10 with two aliases
/// forged) each get a table of their own, and a table's header naming one game with the
/// digest of another is refused: a game is identified by the SHA-256 of its description.
#[test]
fn rules_forged_to_collide_under_a_crc32_get_tables_of_their_own() {
    let dir = temp_dir();
    let a = yacht_file("collide", &[]);
    let b = forge_aliases(
        &yacht_file(
            "collide",
            &[
                (
                    "aliases = [\"y\"]",
                    "aliases = [\"y\", \"ALIAS1\", \"ALIAS2\"]",
                ),
                ("points = 50", "points = 10"),
            ],
        ),
        game_crc(&a),
    );
    assert!(!parse(&a).unwrap().same_game(&parse(&b).unwrap()));
    let (a_path, b_path) = (dir.path().join("A.toml"), dir.path().join("B.toml"));
    fs::write(&a_path, &a).unwrap();
    fs::write(&b_path, &b).unwrap();
    let advise = |rules: &Path| {
        yahtzee_in(dir.path())
            .args(["advise", "--dice", "1,3,3,5,6", "--json", "--rules"])
            .arg(rules)
            .output()
            .unwrap()
    };
    let own_value = |text: &str| {
        let rules = load(text, None).unwrap();
        let (table, _) = StrategyTable::solve(&rules, Default::default(), &|_, _| {});
        let position = Position {
            card: ScoreCard::new(rules),
            dice: "1,3,3,5,6".parse().unwrap(),
            rolls_left: 2,
        };
        yahtzee_core::advise(&table, &position).unwrap().options[0].expected_final
    };
    // A first, then B: each answers from its own table.
    let a_value = best_value(&advise(&a_path));
    let b_value = best_value(&advise(&b_path));
    assert!((a_value - own_value(&a)).abs() < 1e-9, "{a_value}");
    assert!((b_value - own_value(&b)).abs() < 1e-9, "{b_value}");
    assert!((a_value - b_value).abs() > 1.0, "{a_value} {b_value}");
    let tables: Vec<String> = names(dir.path())
        .into_iter()
        .filter(|n| n.ends_with(".table"))
        .collect();
    assert_eq!(tables.len(), 2, "{tables:?}");
    let (a_name, b_name) = (load(&a, None).unwrap(), load(&b, None).unwrap());
    let (a_name, b_name) = (a_name.set.name(), b_name.set.name());
    assert_ne!(a_name, b_name);
    let a_table = dir.path().join(format!("{a_name}.v{FORMAT_VERSION}.table"));
    let b_table = dir.path().join(format!("{b_name}.v{FORMAT_VERSION}.table"));
    // `verify` with B's rules refuses A's table, naming both games.
    let o = yahtzee_in(dir.path())
        .arg("verify")
        .arg(&a_table)
        .arg("--rules")
        .arg(&b_path)
        .output()
        .unwrap();
    assert_bad_input(&o, &format!("holds the table of {a_name}, not of {b_name}"));
    // A's table with B's name written into its header (names of one length): the name is
    // B's, the digest A's, and the table is refused, never used for B.
    let forged: Vec<u8> = {
        let bytes = fs::read(&a_table).unwrap();
        let at = bytes
            .windows(a_name.len())
            .position(|w| w == a_name.as_bytes())
            .unwrap();
        let mut bytes = bytes;
        bytes[at..at + b_name.len()].copy_from_slice(b_name.as_bytes());
        bytes
    };
    fs::write(&b_table, forged).unwrap();
    let o = advise(&b_path);
    assert_bad_input(
        &o,
        &format!("holds the table of another game named {b_name}, not of {b_name}"),
    );
    let b_rules = load(&b, None).unwrap();
    let e = StrategyTable::load(&b_table, &b_rules).unwrap_err();
    assert!(
        matches!(e, TableError::WrongRules { found: None, .. }),
        "{e:?}"
    );
}

/// Two small games of rules files: the six upper boxes (`s6`), and those and a Choice
/// (`mid6`).
fn small_games(dir: &Path) -> (PathBuf, PathBuf) {
    let upper: String = include_str!("../data/rules/yacht.toml")
        .split("\n[[box]]")
        .take(7)
        .collect::<Vec<_>>()
        .join("\n[[box]]");
    let s6 = upper.replacen("name = \"yacht\"", "name = \"s6\"", 1);
    let mid6 = format!(
        "{}\n[[box]]\nname = \"choice\"\ntitle = \"Choice\"\nkind = \"chance\"\n",
        upper.replacen("name = \"yacht\"", "name = \"mid6\"", 1)
    );
    let (s6_path, mid6_path) = (dir.join("s6.toml"), dir.join("mid6.toml"));
    fs::write(&s6_path, s6).unwrap();
    fs::write(&mid6_path, mid6).unwrap();
    (s6_path, mid6_path)
}

/// Issue 45, item 3: `verify` of a sound table of a rules file's game says which game it
/// holds and to give its rules file (not "corrupted"); with another game's rules file it
/// says which game the table holds and which was asked for; a damaged one is rebuilt by a
/// command that works.
#[test]
fn verify_of_a_rules_file_table_names_its_game_and_a_fix_that_works() {
    let dir = temp_dir();
    let (s6, mid6) = small_games(dir.path());
    let (s6_file, mid6_file) = (path_str(&s6), path_str(&mid6));
    let table = path_str(&dir.path().join("mid6.table"));
    let run = |args: &[&str]| yahtzee_in(dir.path()).args(args).output().unwrap();
    let o = run(&["solve", "--rules", &mid6_file, "--out", &table]);
    assert!(o.status.success(), "{}", stderr(&o));
    let name_of = |path: &Path| {
        load(&fs::read_to_string(path).unwrap(), None)
            .unwrap()
            .set
            .name()
    };
    let (mid6_name, s6_name) = (name_of(&mid6), name_of(&s6));
    // Sound, without its rules: which game, and the fix.
    let o = run(&["verify", &table]);
    assert_bad_input(
        &o,
        &format!(
            "holds the expected-score table of {mid6_name}, a game whose rules this command was not given (a rules file's); give that rules file with --rules PATH"
        ),
    );
    assert!(!stderr(&o).contains("corrupted"), "{}", stderr(&o));
    // The fix works.
    let o = run(&["verify", &table, "--rules", &mid6_file]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!("holds the {mid6_name} table")),
        "{}",
        stdout(&o)
    );
    // With another game's rules file.
    let o = run(&["verify", "--rules", &s6_file, &table]);
    assert_bad_input(
        &o,
        &format!("holds the table of {mid6_name}, not of {s6_name}"),
    );
    assert!(!stderr(&o).contains("corrupted"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("give --rules the rules file of that game"),
        "{}",
        stderr(&o)
    );
    // Damaged: the rebuild names the rules file to give, and works with it.
    truncate(&dir.path().join("mid6.table"));
    let o = run(&["verify", &table]);
    assert_bad_input(&o, "is truncated");
    let words: Vec<String> = suggested_command(&stderr(&o))
        .into_iter()
        .map(|w| if w == "FILE" { mid6_file.clone() } else { w })
        .collect();
    assert!(words.contains(&mid6_file), "{words:?}");
    let o = yahtzee_in(dir.path()).args(&words[1..]).output().unwrap();
    assert!(o.status.success(), "`{}`: {}", words.join(" "), stderr(&o));
    let o = run(&["verify", &table, "--rules", &mid6_file]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Issue 45, item 1: a table read in part (the rows of a position's card and the cards after
/// it) advises exactly as the whole table, holding a small part of its values; it is never
/// written.
#[test]
fn a_table_read_in_part_advises_as_the_whole_table() {
    let rules = Rules::new(RuleSet::YAHTZEE);
    let whole = table(RuleSet::YAHTZEE, Order::Any);
    let path = table_dir().join(yahtzee_core::tables::default_table_name(&rules));
    let full = rules.full_mask();
    for filled in (0..full).step_by(331).chain([0, full & !1]) {
        let part = StrategyTable::load_cards(&path, &rules, &[filled]).unwrap();
        assert!(!part.is_whole());
        assert!(part.values().len() * 100 < whole.values().len());
        assert_eq!(part.checksum(), whole.checksum());
        let boxes: Vec<(usize, u32)> = (0..rules.box_count())
            .filter(|b| filled & (1 << b) != 0)
            .map(|b| (b, rules.possible_scores(b)[0]))
            .collect();
        let card = ScoreCard::from_boxes(rules, &boxes, 0).unwrap();
        for (dice, rolls_left) in [("1,3,3,5,6", 2), ("6,6,6,6,6", 0), ("2,3,4,5,5", 1)] {
            let position = Position {
                card: card.clone(),
                dice: dice.parse().unwrap(),
                rolls_left,
            };
            assert_eq!(
                yahtzee_core::advise(&part, &position),
                yahtzee_core::advise(whole, &position),
                "{filled:#x} {dice} {rolls_left}"
            );
        }
    }
    let part = StrategyTable::load_cards(&path, &rules, &[0]).unwrap();
    let dir = temp_dir();
    assert!(part.save(&dir.path().join("t.table")).is_err());
    assert!(names(dir.path()).is_empty());
}
