//! Helpers shared by the integration tests: running the binary, and tables solved once per
//! test process.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use yahtzee_core::game::rules::file::load;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::solve::expected::SolveOptions;
use yahtzee_core::solve::vector::{TARGET, VectorObjective};
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::saved::SavedTable;
use yahtzee_core::tables::set::{Silent, TableKind, TablePaths, TableSet};
use yahtzee_core::tables::vector::VectorTable;
use yahtzee_core::tables::{default_table_name, default_table_name_of};

/// A folder holding the default tables of every rule set, solved once per test process and
/// shared by the tests (pass it as `YAHTZEE_TABLE_DIR`).
pub fn table_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("a temporary folder"))
        .path()
}

/// The solved table of `rules`, computed once per test process and saved in [`table_dir`].
pub fn table(set: &'static RuleSet, order: Order) -> &'static StrategyTable {
    static TABLES: OnceLock<std::sync::Mutex<Vec<(Rules, &'static StrategyTable)>>> =
        OnceLock::new();
    let rules = Rules::with_order(set, order);
    let tables = TABLES.get_or_init(Default::default);
    let mut guard = tables.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, t)) = guard.iter().find(|(r, _)| *r == rules) {
        return t;
    }
    let (t, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
    t.save(&table_dir().join(default_table_name(&rules)))
        .expect("the table saves");
    let t: &'static StrategyTable = Box::leak(Box::new(t));
    guard.push((rules, t));
    t
}

/// The target table of `rules`, solved once per test process and saved in [`table_dir`] (so
/// the binary run by [`run`] finds it there). Use it with the small games: `yacht`, whose
/// target table solves in well under a second, or a rule set under the upper-first rule.
pub fn target_table(set: &'static RuleSet, order: Order) -> &'static VectorTable<f32> {
    type Solved = std::sync::Mutex<Vec<(Rules, &'static VectorTable<f32>)>>;
    static TABLES: OnceLock<Solved> = OnceLock::new();
    let rules = Rules::with_order(set, order);
    let tables = TABLES.get_or_init(Default::default);
    let mut guard = tables.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, t)) = guard.iter().find(|(r, _)| *r == rules) {
        return t;
    }
    let t = VectorTable::solve(
        &VectorObjective::<f32>::target(rules),
        SolveOptions::default().simd,
        &|_, _| {},
    );
    t.save(&table_dir().join(default_table_name_of(&rules, TARGET)))
        .expect("the target table saves");
    let t: &'static VectorTable<f32> = Box::leak(Box::new(t));
    guard.push((rules, t));
    t
}

/// Yatzy with saved rolls (the example rules file `data/rules/examples/yatzy-saved-rolls.toml`)
/// and its table of saved rolls, built once per test process (about 5 s) and saved in
/// [`table_dir`] under its default name, so that the binary run by [`run_saved_yatzy`] reads
/// it there: the rules file's path, the rules and the whole table.
pub fn saved_yatzy() -> (&'static str, Rules, &'static SavedTable) {
    static TABLE: OnceLock<(String, Rules, SavedTable)> = OnceLock::new();
    let (file, rules, table) = TABLE.get_or_init(|| {
        let file = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/rules/examples/yatzy-saved-rolls.toml"
        );
        let rules = load(&std::fs::read_to_string(file).unwrap(), None).expect("the example");
        let path = table_dir().join(default_table_name(&rules));
        SavedTable::build(&path, &rules, SolveOptions::default(), &|_, _| {})
            .expect("the table of saved rolls saves");
        let table = SavedTable::load(&path, &rules).expect("the table of saved rolls loads");
        (file.to_string(), rules, table)
    });
    (file, *rules, table)
}

/// Runs the binary with `args` after `--rules FILE` of Yatzy with saved rolls, its table of
/// saved rolls built first in [`table_dir`] ([`saved_yatzy`]): `yahtzee COMMAND --rules FILE
/// ARGS` for `args` = `[COMMAND, ARGS...]`.
pub fn run_saved_yatzy(args: &[&str]) -> Output {
    let (file, _, _) = saved_yatzy();
    let mut all = vec![args[0], "--rules", file];
    all.extend_from_slice(&args[1..]);
    yahtzee_in(table_dir())
        .args(&all)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

/// The `yahtzee` binary with `YAHTZEE_TABLE_DIR` set to `dir`.
pub fn yahtzee_in(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_yahtzee"));
    c.env("YAHTZEE_TABLE_DIR", dir);
    c
}

/// Runs the binary with `args` and the shared tables of [`table_dir`] (the table of `set`
/// solved first).
pub fn run(set: &'static RuleSet, order: Order, args: &[&str]) -> Output {
    table(set, order);
    yahtzee_in(table_dir())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

/// `yahtzee advise --rules NAME ARGS` of `set` in its default order, with the shared tables
/// (its table solved first): the position checks and exactness checks of every objective.
pub fn run_advise(set: &'static RuleSet, args: &[&str]) -> Output {
    let mut all = vec!["advise", "--rules", set.name()];
    all.extend_from_slice(args);
    run(set, Order::Any, &all)
}

/// Runs the binary with `args` and `input` on stdin.
pub fn run_with_input(dir: &Path, args: &[&str], input: &str) -> Output {
    run_bytes(dir, args, input.as_bytes())
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts a failure the way every bad input must fail: exit status 2, one line on stderr
/// containing `needle`, nothing on stdout.
pub fn assert_bad_input(o: &Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(err.contains(needle), "`{needle}` not in: {err}");
    assert!(o.stdout.is_empty(), "stdout: {}", stdout(o));
    assert!(!err.contains("panicked"), "{err}");
}

/// Waits for `child` at most `limit`; kills it and fails the test if it is still running:
/// what hung for ever must now end at once.
pub fn finish_within(mut child: Child, limit: Duration, what: &str) -> Output {
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

/// A fresh temporary folder.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

pub fn path_str(p: &Path) -> String {
    p.display().to_string()
}

pub fn join(dir: &Path, name: &str) -> PathBuf {
    dir.join(name)
}

/// The last command quoted in backticks in `text` that starts with `yahtzee `, as words
/// (the hints quote paths with single quotes only when they need them; test paths do not).
pub fn suggested_command(text: &str) -> Vec<String> {
    let quoted: Vec<&str> = text.split('`').skip(1).step_by(2).collect();
    let command = quoted
        .iter()
        .rev()
        .find(|q| q.starts_with("yahtzee "))
        .unwrap_or_else(|| panic!("no `yahtzee ...` command in: {text}"));
    command.split(' ').map(str::to_string).collect()
}

/// Runs a command suggested by a hint (see [`suggested_command`]) with the tables of `dir`,
/// and asserts that it works.
pub fn run_suggested(dir: &Path, text: &str) -> Output {
    let words = suggested_command(text);
    let o = yahtzee_in(dir)
        .args(&words[1..])
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    assert!(
        o.status.success(),
        "the suggested `{}` failed: {}",
        words.join(" "),
        stderr(&o)
    );
    o
}

/// Runs the binary with `args` and the bytes `input` on stdin (which may be any bytes).
pub fn run_bytes(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    fed(yahtzee_in(dir).args(args), input)
}

/// Runs `command` with the bytes `input` on stdin: its output.
fn fed(command: &mut Command, input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = input.to_vec();
    // Written from a thread: a large input must not block on a full stdout pipe.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("the binary ends");
    writer
        .join()
        .expect("the writer ends")
        .expect("stdin takes the input");
    out
}

/// The events of a game record's `text`, one JSON value a line, without the header's start
/// time: the one difference two games of one seed and the same choices may have.
pub fn events_but_start(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("started");
            v
        })
        .collect()
}

/// The JSON of `yahtzee stats --rules NAME --json ARGS` for `set` in its default order, with
/// the shared tables (its table solved first); the command must succeed.
pub fn stats_json(set: &'static RuleSet, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["stats", "--rules", set.name(), "--json"];
    all.extend_from_slice(args);
    let o = run(set, Order::Any, &all);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("stats prints JSON")
}

/// Asserts that the distribution `pmf` (a JSON list of `[score, chance]`, as the server
/// answers) is the one of the CSV file `csv` (as `--pmf` writes it): the same scores, the
/// chances within 1e-15, as serde_json's default float reader may read the server's
/// shortest round-trip digits one unit in the last place away (the CSV is read exactly).
pub fn assert_pmf_is_csv(pmf: &serde_json::Value, csv: &Path) {
    let cli = read_pmf_csv(csv);
    let served = pmf.as_array().expect("a list of [score, chance]");
    assert_eq!(served.len(), cli.len(), "{pmf} vs {}", csv.display());
    for (e, &(t, q)) in served.iter().zip(&cli) {
        let (s, p) = (e[0].as_u64().unwrap(), e[1].as_f64().unwrap());
        assert_eq!(s, t);
        assert!((p - q).abs() <= 1e-15 * q, "score {s}: {p} vs {q}");
    }
}

/// The review of the game record `record` as JSON (`yahtzee review RECORD --json ARGS`), with
/// the table of `set` and `order`; the review must succeed.
pub fn review_json(
    set: &'static RuleSet,
    order: Order,
    record: &Path,
    args: &[&str],
) -> serde_json::Value {
    let record = path_str(record);
    let mut all = vec!["review", &record, "--json"];
    all.extend_from_slice(args);
    let o = run(set, order, &all);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("review prints JSON")
}

/// The events of the game record `record`: one JSON value a line.
pub fn record_events(record: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The one JSON object the binary prints for `args` in `dir` (the command must succeed).
pub fn json_in(dir: &Path, args: &[&str]) -> serde_json::Value {
    let o = run_bytes(dir, args, b"");
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("one JSON object")
}

/// A game of the rules file `file` played in `dir` with the dice and commands typed in
/// `input` (no coach), recorded at `record`: its output, the game played to its end.
pub fn play_typed(dir: &Path, file: &str, record: &str, input: &str) -> String {
    let o = run_bytes(
        dir,
        &[
            "play",
            "--rules",
            file,
            "--manual-dice",
            "--record",
            record,
            "--coach-threshold",
            "off",
        ],
        input.as_bytes(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
}

/// The means of the rules file `file` (run in `dir`) against its solve's value `want`: the
/// exact distribution's (`stats`) is it to 1e-9, a simulation's (20,000 games) within 4
/// standard errors of it.
pub fn assert_means_of_file(dir: &Path, file: &str, want: f64) {
    let stats = json_in(dir, &["stats", "--rules", file, "--json"]);
    let mean = stats["mean"].as_f64().unwrap();
    assert!(
        (mean - want).abs() < 1e-9,
        "stats mean {mean}, solve {want}"
    );
    let sim = json_in(
        dir,
        &["simulate", "--rules", file, "--games", "20000", "--json"],
    );
    let (mean, se) = (
        sim["mean"].as_f64().unwrap(),
        sim["mean_interval"]["standard_error"].as_f64().unwrap(),
    );
    assert!(
        (mean - want).abs() < 4.0 * se && se > 0.0,
        "{mean} ± {se} against {want}"
    );
}

/// Runs the binary with `args` in the working folder `cwd`, with the shared tables of
/// [`table_dir`] and `input` (any bytes) on stdin.
pub fn run_in(cwd: &Path, args: &[&str], input: &[u8]) -> Output {
    fed(yahtzee_in(table_dir()).current_dir(cwd).args(args), input)
}

/// The distribution table of `rules` (the opponents of the win bots), solved once per test
/// process from [`table`] and saved in [`table_dir`], like [`target_table`]. Use it with the
/// small games, as [`target_table`].
pub fn distribution_table(set: &'static RuleSet, order: Order) -> &'static VectorTable<f32> {
    type Solved = std::sync::Mutex<Vec<(Rules, &'static VectorTable<f32>)>>;
    static TABLES: OnceLock<Solved> = OnceLock::new();
    let rules = Rules::with_order(set, order);
    let ev = table(set, order);
    let tables = TABLES.get_or_init(Default::default);
    let mut guard = tables.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, t)) = guard.iter().find(|(r, _)| *r == rules) {
        return t;
    }
    let t = VectorTable::solve(
        &VectorObjective::<f32>::distribution(std::sync::Arc::new(ev.clone())),
        SolveOptions::default().simd,
        &|_, _| {},
    );
    t.save(&table_dir().join(default_table_name_of(
        &rules,
        yahtzee_core::solve::vector::DISTRIBUTION,
    )))
    .expect("the distribution table saves");
    let t: &'static VectorTable<f32> = Box::leak(Box::new(t));
    guard.push((rules, t));
    t
}

/// The table of the early plies of the game of two of Yacht under the upper-first rule, whose
/// whole two-player solve takes about a second (the rule leaves few cards), solved once per
/// test process and saved in [`table_dir`] under its default name (so the binary run by
/// [`run`] finds it).
pub fn two_player_table() -> &'static yahtzee_core::tables::two_player::EarlyTable {
    use yahtzee_core::solve::two_player::{Game, Ties};
    use yahtzee_core::tables::two_player::solve_report;
    use yahtzee_core::tables::two_player::{EarlyTable, TWO_PLAYER};
    static TABLE: OnceLock<EarlyTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let rules = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
        let path = table_dir().join(default_table_name_of(&rules, TWO_PLAYER));
        let game = Game::optimal(rules).expect("yacht is solved for two");
        solve_report(
            &game,
            Ties::Values,
            Some(&path),
            SolveOptions::default().simd,
            &|_, _| {},
        )
        .expect("the two-player table saves");
        EarlyTable::load(&path, &rules).expect("the two-player table loads")
    })
}

/// The tables of `rules` in [`table_dir`] as one set, each loaded from its file the first time
/// it is asked for (the fixtures above solve and save them first: the expected-score table,
/// and for Yacht the target and distribution tables), made once per test process.
pub fn table_set(set: &'static RuleSet, order: Order) -> &'static TableSet {
    static SETS: OnceLock<std::sync::Mutex<Vec<(Rules, &'static TableSet)>>> = OnceLock::new();
    let rules = Rules::with_order(set, order);
    table(set, order);
    if set == RuleSet::YACHT {
        target_table(set, order);
        distribution_table(set, order);
    }
    let sets = SETS.get_or_init(Default::default);
    let mut guard = sets.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, s)) = guard.iter().find(|(r, _)| *r == rules) {
        return s;
    }
    let at = |kind: TableKind| Some(table_dir().join(default_table_name_of(&rules, kind.name())));
    let paths = TablePaths {
        expected_score: at(TableKind::ExpectedScore),
        target: at(TableKind::Target),
        distribution: at(TableKind::Distribution),
        two_player: at(TableKind::TwoPlayer),
    };
    let s: &'static TableSet = Box::leak(Box::new(TableSet::new(
        rules,
        paths,
        std::sync::Arc::new(Silent),
    )));
    guard.push((rules, s));
    s
}

/// A fresh temporary folder holding copies of the tables `names` of [`table_dir`] (solved
/// there first): the tables of a server whose other tables are missing.
pub fn dir_with_tables(names: &[&str]) -> tempfile::TempDir {
    let dir = temp_dir();
    for name in names {
        std::fs::copy(table_dir().join(name), dir.path().join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    dir
}

/// Asserts that no file of `dir` has a name starting with `prefix` (a table, or its
/// temporary).
pub fn assert_no_file_starting(dir: &Path, prefix: &str) {
    let names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with(prefix)), "{names:?}");
}

/// The rows of a `--pmf` CSV file (`score,probability`).
pub fn read_pmf_csv(path: &Path) -> Vec<(u64, f64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let (s, p) = l.split_once(',').unwrap();
            (s.parse().unwrap(), p.parse().unwrap())
        })
        .collect()
}
