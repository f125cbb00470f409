//! The commit a build comes from, for the build scripts of the front ends (the `yahtzee`
//! binary's `build.rs` and the Python package's `python/build.rs` include this file): it sets
//! `YAHTZEE_COMMIT` for the crate's code (`env!("YAHTZEE_COMMIT")`), which hands it to the
//! core (`yahtzee_core::report::set_commit`), so that every result states it.
//!
//! It is `git rev-parse HEAD`, or `unknown` outside a git checkout (a tarball) or without
//! git. Uncommitted changes are not marked: only a change of commit reruns this, so that a
//! build with nothing changed stays a no-op. The script reruns when HEAD moves: when the
//! file `HEAD` of the checkout changes (another branch checked out) or the ref it points to
//! does (a commit), loose or packed (in a worktree, HEAD is the worktree's and the refs the
//! repository's: `git rev-parse --git-path` finds both).

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Sets `YAHTZEE_COMMIT` and asks to be rerun when HEAD moves.
pub fn emit() {
    println!("cargo::rerun-if-env-changed=YAHTZEE_COMMIT");
    let commit = std::env::var("YAHTZEE_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| git(&["rev-parse", "HEAD"]))
        .filter(|c| c.bytes().all(|b| b.is_ascii_hexdigit()) && c.len() >= 7)
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo::rustc-env=YAHTZEE_COMMIT={commit}");
    let mut watched = vec![git(&["rev-parse", "--git-path", "HEAD"])];
    if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(git(&["rev-parse", "--git-path", &head_ref]));
        watched.push(git(&["rev-parse", "--git-path", "packed-refs"]));
    }
    // Only files that exist: cargo reruns a script whose watched file is missing every time.
    for path in watched.into_iter().flatten().map(PathBuf::from) {
        if let Ok(path) = path.canonicalize() {
            println!("cargo::rerun-if-changed={}", path.display());
        }
    }
}

/// The trimmed output of `git ARGS` run in the crate's folder, if it succeeds.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}
