//! The Python package's build script: the commit it is built from (`build/commit.rs` of the
//! workspace, shared with the `yahtzee` binary's `build.rs`), which the module hands to the
//! core at import so that every result states it.

#[path = "../build/commit.rs"]
mod commit;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=../build/commit.rs");
    commit::emit();
}
