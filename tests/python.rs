//! The Python package (`python/`) and its pytest suite, run from the one test command: a
//! virtual environment under `target/tmp/python-venv` (made once and reused: later runs only
//! rebuild the package, incrementally), the test packages from PyPI, `./python` built and
//! installed into it (maturin, its Rust build under `target/tmp/python-build`), then
//! `pytest python/tests` against the binary of this build. Without Python (or without
//! `venv`, or without PyPI) the test says so and passes, unless `CI=true`: then it fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::util::{stderr, stdout, table_dir};

/// What the suite imports, from PyPI: the build backend, pytest, the package's own numpy, and
/// the examples' matplotlib, pandas, polars, DuckDB and pyarrow.
const REQUIREMENTS: &[&str] = &[
    "maturin>=1.7,<2",
    "pytest",
    "numpy",
    "matplotlib",
    "pandas",
    "polars",
    "duckdb",
    "pyarrow",
];

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Stops the test: a failure under `CI=true`, else a note on stderr and a pass.
fn cannot_run(why: &str) {
    if ci() {
        panic!("the Python tests cannot run: {why}");
    }
    eprintln!("the Python tests were not run: {why}");
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

/// The venv's interpreter, the venv made first if it is not there, with [`REQUIREMENTS`].
fn venv(dir: &Path) -> Result<PathBuf, String> {
    let python = dir.join("bin").join("python");
    if !python.is_file() {
        run(Command::new("python3").arg("-m").arg("venv").arg(dir)).map_err(|e| {
            format!("{e}\n(on Debian, `apt-get install python3-venv` provides the venv module)")
        })?;
    }
    // The requirements are installed once per venv: a marker lists what was installed.
    let marker = dir.join("yahtzee-requirements.txt");
    let wanted = REQUIREMENTS.join("\n");
    if std::fs::read_to_string(&marker).ok().as_deref() != Some(wanted.as_str()) {
        run(Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--upgrade", "pip"])
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1"))?;
        run(Command::new(&python)
            .args(["-m", "pip", "install", "--quiet"])
            .args(REQUIREMENTS))?;
        std::fs::write(&marker, &wanted).map_err(|e| e.to_string())?;
    }
    Ok(python)
}

#[test]
fn the_python_package_passes_its_pytest_suite() {
    if !Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return cannot_run("python3 is not on the path");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let python = match venv(&tmp.join("python-venv")) {
        Ok(p) => p,
        Err(e) => return cannot_run(&e),
    };
    // Built from the working tree each time (cargo rebuilds only what changed). No build
    // isolation: maturin is in the venv already (on the venv's PATH), so no download is needed.
    let bin = python
        .parent()
        .expect("the venv's bin folder")
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("a PATH");
    let start = std::time::Instant::now();
    let installed = run(Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-build-isolation",
            "--force-reinstall",
            "--no-deps",
        ])
        .arg(root.join("python"))
        .env("PATH", &path)
        .env("CARGO_TARGET_DIR", tmp.join("python-build")));
    if let Err(e) = installed {
        panic!("`pip install ./python` failed: {e}");
    }
    eprintln!(
        "built and installed ./python in {:.0} s",
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
