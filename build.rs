//! The `yahtzee` package's build script: the commit the binary is built from
//! (`build/commit.rs`: `YAHTZEE_COMMIT`, which every result states), and which programs that
//! some tests drive are missing on this machine.
//!
//! A test of the page drives Chromium through chromedriver and checks each view with
//! axe-core from npm; a test of the Python package needs `python3` with its `venv` module. On
//! a machine without them those tests are marked ignored (`cfg(missing_browser)`,
//! `cfg(missing_python)`), which `cargo test` shows as such: never as passed. Under `CI=true`
//! nothing is taken as missing: a test whose program is absent fails, saying what to install
//! (`.ci/run` installs them). The programs are looked for when the package is built: after
//! installing one, `touch build.rs` (or set `CI=true`) to have the tests run.

use std::path::Path;
use std::process::{Command, Stdio};

#[path = "build/commit.rs"]
mod commit;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=build/commit.rs");
    commit::emit();
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rustc-check-cfg=cfg(missing_python)");
    println!("cargo::rustc-check-cfg=cfg(missing_browser)");
    if std::env::var("CI").as_deref() == Ok("true") {
        return;
    }
    if !runs("python3", &["-c", "import venv, ensurepip"]) {
        println!("cargo::rustc-cfg=missing_python");
    }
    let browser = Path::new("/usr/bin/chromium").exists()
        && Path::new("/usr/bin/chromedriver").exists()
        && runs("npm", &["--version"]);
    if !browser {
        println!("cargo::rustc-cfg=missing_browser");
    }
}

/// True when `program args` runs and succeeds.
fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
