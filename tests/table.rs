//! The table file: written atomically, checked on load, refused with the fix when wrong.

use std::fs;

use yahtzee::rules::{Order, RuleSet, Rules};
use yahtzee::table::{FORMAT_VERSION, StrategyTable, TableError};

use crate::util::*;

/// A small valid table file (yacht) in a fresh folder.
fn yacht_table() -> (tempfile::TempDir, std::path::PathBuf) {
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

fn verify(path: &std::path::Path) -> std::process::Output {
    yahtzee_in(path.parent().unwrap())
        .arg("verify")
        .arg(path)
        .output()
        .unwrap()
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
    let names: Vec<_> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn wrong_magic() {
    let dir = temp_dir();
    let path = dir.path().join("notes.txt");
    fs::write(&path, "these are not the tables you are looking for").unwrap();
    assert_bad_input(&verify(&path), "is not a yahtzee table (wrong magic bytes)");
}

#[test]
fn wrong_version() {
    let (_dir, path) = yacht_table();
    let mut bytes = fs::read(&path).unwrap();
    bytes[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    fs::write(&path, bytes).unwrap();
    assert_bad_input(
        &verify(&path),
        "rebuild it with `yahtzee solve --rules RULES`",
    );
    let err = StrategyTable::load(&path, &Rules::new(RuleSet::YACHT)).unwrap_err();
    assert!(matches!(err, TableError::Version { got, .. } if got == FORMAT_VERSION + 1));
    assert!(
        err.to_string()
            .contains("rebuild it with `yahtzee solve --rules yacht`")
    );
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
fn a_table_of_other_rules_is_refused_with_the_fix() {
    let (dir, path) = yacht_table();
    let o = yahtzee_in(dir.path())
        .args(["advise", "--dice", "12345", "--table"])
        .arg(&path)
        .output()
        .unwrap();
    assert_bad_input(&o, "holds the table of yacht, not of yahtzee");
    assert!(stderr(&o).contains("`yahtzee solve --rules yahtzee`"));
    let upper_first = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
    let err = StrategyTable::load(&path, &upper_first).unwrap_err();
    assert!(
        err.to_string()
            .contains("`yahtzee solve --rules yacht --upper-first`"),
        "{err}"
    );
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
    let path = dir.path().join("yacht.v2.table");
    assert!(path.exists());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["rules"], "yacht");
    let again = yahtzee_in(dir.path()).args(query).output().unwrap();
    assert!(again.status.success());
    assert!(!stderr(&again).contains("building"), "{}", stderr(&again));
    assert_eq!(again.stdout, o.stdout);
}

#[test]
fn a_failed_write_leaves_the_old_table_untouched() {
    let (_dir, path) = yacht_table();
    let before = fs::read(&path).unwrap();
    // A folder where the temporary file would go: the write must fail, not damage `path`.
    let blocker = yahtzee::table::temporary_name(&path);
    fs::create_dir(&blocker).unwrap();
    let rules = Rules::new(RuleSet::YACHT);
    let table = StrategyTable::load(&path, &rules).unwrap();
    // Same process id, so the same temporary name: creating the file fails.
    assert!(table.save(&path).is_err());
    assert_eq!(fs::read(&path).unwrap(), before);
}

#[test]
fn an_interrupted_solve_leaves_no_table() {
    let dir = temp_dir();
    let path = dir.path().join("yahtzee.table");
    let mut child = yahtzee_in(dir.path())
        .args(["solve", "--threads", "1", "--out"])
        .arg(&path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    child.kill().unwrap();
    let status = child.wait().unwrap();
    if status.success() {
        // Finished before the kill: then the file must be whole.
        StrategyTable::load(&path, &Rules::new(RuleSet::YAHTZEE)).unwrap();
    } else {
        assert!(
            !path.exists(),
            "a table was left behind by an interrupted solve"
        );
    }
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
