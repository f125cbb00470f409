//! The Python package (`python/`) and its pytest suite, run from the one test command: a
//! virtual environment under `target/tmp/python-venv` (made once and reused while its
//! interpreter runs), maturin and the test packages from PyPI (each list installed once per
//! venv; the test packages download while the package compiles), `./python` built into a
//! wheel by maturin in the workspace's own target folder and release profile, so that it links
//! the kernel and the core this test command compiled (the test checks that cargo compiled
//! neither again), and installed when it changed; then `pytest python/tests` against the
//! binary of this build and the tables of [`table_dir`], solved beforehand by the shared
//! fixtures. On a machine without `python3` and its `venv` module the test is ignored (see
//! build.rs); with them, anything that stops it (PyPI out of reach, say) fails it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use yahtzee_core::game::rules::{Order, RuleSet};

use crate::util::{stderr, stdout, table, table_dir};

/// What builds the package: maturin, the build backend of `python/pyproject.toml`.
const BUILD_REQUIREMENTS: &[&str] = &["maturin>=1.7,<2"];

/// What the suite imports, from PyPI: pytest, the package's own numpy, the examples'
/// matplotlib, pandas, polars, DuckDB and pyarrow, mypy (a typed script checked with
/// `--strict`) and cffconvert (CITATION.cff validated).
const TEST_REQUIREMENTS: &[&str] = &[
    "pytest",
    "numpy",
    "matplotlib",
    "pandas",
    "polars",
    "duckdb",
    "pyarrow",
    "mypy",
    "cffconvert",
];

/// The tables the suite loads from `$YAHTZEE_TABLE_DIR` (`yahtzee.solve` of these rules),
/// solved by the shared fixtures so that the suite reads them rather than solving them again.
const SUITE_TABLES: &[(&RuleSet, Order)] = &[
    (RuleSet::YAHTZEE, Order::Any),
    (RuleSet::YACHT, Order::Any),
    (RuleSet::YAHTZEE, Order::UpperFirst),
    (RuleSet::YACHT, Order::UpperFirst),
];

/// Stops the test: whatever the Python suite needs and cannot have fails it, never passes it.
fn cannot_run(why: &str) -> ! {
    panic!("the Python tests cannot run: {why}")
}

fn run(command: &mut Command) -> Result<Output, String> {
    let shown = format!("{command:?}");
    let out = command
        .output()
        .map_err(|e| format!("{shown} did not start: {e}"))?;
    if out.status.success() {
        Ok(out)
    } else {
        let err = stderr(&out);
        let tail: Vec<&str> = err.lines().rev().take(25).collect();
        Err(format!(
            "{shown} failed ({}):\n{}\n{}",
            out.status,
            stdout(&out)
                .lines()
                .rev()
                .take(10)
                .collect::<Vec<_>>()
                .join("\n"),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ))
    }
}

/// The venv's interpreter: the venv in `dir` when its interpreter runs, else a new one there
/// (a venv left by another Python, or half made, is made again).
fn venv(dir: &Path) -> Result<PathBuf, String> {
    let python = dir.join("bin").join("python");
    let runs = Command::new(&python)
        .args(["-c", "import sys"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !runs {
        let _ = std::fs::remove_dir_all(dir);
        run(Command::new("python3").arg("-m").arg("venv").arg(dir)).map_err(|e| {
            format!("{e}\n(on Debian, `apt-get install python3-venv` provides the venv module)")
        })?;
    }
    Ok(python)
}

/// The file `name` in the venv of `python`.
fn in_venv(python: &Path, name: &str) -> PathBuf {
    (python.parent().and_then(Path::parent))
        .expect("the venv's folder")
        .join(name)
}

/// Installs `packages` into the venv of `python` once: the marker `name` in the venv lists
/// what was installed, and the same list is not installed again.
fn install_once(python: &Path, name: &str, packages: &[&str]) -> Result<(), String> {
    let marker = in_venv(python, name);
    let wanted = packages.join("\n");
    if std::fs::read_to_string(&marker).ok().as_deref() == Some(wanted.as_str()) {
        return Ok(());
    }
    run(Command::new(python)
        .args(["-m", "pip", "install", "--quiet"])
        .args(packages)
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1"))?;
    std::fs::write(&marker, &wanted).map_err(|e| e.to_string())
}

/// Builds the wheel of `./python` into `wheels` (emptied first) with maturin, as `pip
/// install ./python` does: in the workspace's target folder and release profile, where cargo
/// finds the kernel and the core this test command compiled. Returns the wheel's path and the
/// crates of the workspace cargo compiled for it (`Compiling ...` lines of its verbose output).
fn build_wheel(
    python: &Path,
    root: &Path,
    wheels: &Path,
) -> Result<(PathBuf, Vec<String>), String> {
    let _ = std::fs::remove_dir_all(wheels);
    let out = run(Command::new(python)
        .args(["-m", "maturin", "build", "--release", "--verbose"])
        .arg("--interpreter")
        .arg(python)
        .arg("--manifest-path")
        .arg(root.join("python").join("Cargo.toml"))
        .arg("--out")
        .arg(wheels)
        .env_remove("CARGO_TARGET_DIR"))?;
    let compiled: Vec<String> = stderr(&out)
        .lines()
        .chain(stdout(&out).lines())
        .filter_map(|l| l.trim().strip_prefix("Compiling "))
        .filter(|l| l.contains(&*root.to_string_lossy()))
        .map(str::to_string)
        .collect();
    let built: Vec<PathBuf> = std::fs::read_dir(wheels)
        .map_err(|e| format!("{}: {e}", wheels.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "whl"))
        .collect();
    match &built[..] {
        [wheel] => Ok((wheel.clone(), compiled)),
        _ => Err(format!("maturin built {built:?} in {}", wheels.display())),
    }
}

/// Installs `wheel` into the venv of `python` unless the same bytes were installed last (the
/// marker `yahtzee-wheel.bin` in the venv holds them).
fn install_wheel(python: &Path, wheel: &Path) -> Result<(), String> {
    let marker = in_venv(python, "yahtzee-wheel.bin");
    let bytes = std::fs::read(wheel).map_err(|e| format!("{}: {e}", wheel.display()))?;
    if std::fs::read(&marker).ok().as_deref() == Some(&bytes[..]) {
        return Ok(());
    }
    run(Command::new(python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--force-reinstall",
        ])
        .arg(wheel)
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1"))?;
    std::fs::write(&marker, &bytes).map_err(|e| e.to_string())
}

#[test]
#[cfg_attr(
    missing_python,
    ignore = "python3 with its venv module is not on this machine (see build.rs)"
)]
fn the_python_package_passes_its_pytest_suite() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let start = std::time::Instant::now();
    let python = match venv(&tmp.join("python-venv")).and_then(|p| {
        install_once(&p, "yahtzee-build-requirements.txt", BUILD_REQUIREMENTS).map(|()| p)
    }) {
        Ok(p) => p,
        Err(e) => cannot_run(&e),
    };
    // The test packages download while the package compiles and the tables solve: the one
    // waits on the network, the others on the cores.
    let (tests_installed, wheel) = std::thread::scope(|s| {
        let tests =
            s.spawn(|| install_once(&python, "yahtzee-test-requirements.txt", TEST_REQUIREMENTS));
        let tables = s.spawn(|| {
            for &(set, order) in SUITE_TABLES {
                table(set, order);
            }
        });
        let wheel = build_wheel(&python, root, &tmp.join("python-wheels"));
        tables.join().expect("the tables solve");
        (tests.join().expect("the install ends"), wheel)
    });
    if let Err(e) = tests_installed {
        cannot_run(&e);
    }
    let (wheel, compiled) =
        wheel.unwrap_or_else(|e| panic!("the wheel of ./python does not build: {e}"));
    // What `pip install ./python` reuses: the kernel and the core this command compiled (the
    // `syn` build-dependency in Cargo.toml keeps their features alike). Compiled again, they
    // would cost every Python user and this test a minute.
    for reused in ["yahtzee-kernel", "yahtzee-core"] {
        assert!(
            !compiled.iter().any(|c| c.starts_with(reused)),
            "maturin compiled {reused} again: {compiled:?}"
        );
    }
    install_wheel(&python, &wheel).unwrap_or_else(|e| panic!("the wheel does not install: {e}"));
    eprintln!(
        "venv, test packages, tables and ./python ready in {:.0} s",
        start.elapsed().as_secs_f64()
    );
    let tests = run(Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root.join("python").join("tests"))
        .current_dir(root)
        .env("YAHTZEE_BIN", env!("CARGO_BIN_EXE_yahtzee"))
        .env("YAHTZEE_TABLE_DIR", table_dir())
        .env("MPLBACKEND", "Agg"));
    match tests {
        Ok(out) => {
            let text = stdout(&out);
            let summary = text.lines().last().unwrap_or_default().to_string();
            assert!(summary.contains(" passed"), "{text}");
            assert!(
                !summary.contains("skipped"),
                "a Python test was skipped: {text}"
            );
            eprintln!("pytest: {summary}");
        }
        Err(e) => panic!("the Python tests failed: {e}"),
    }
}
