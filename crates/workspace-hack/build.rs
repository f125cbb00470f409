//! No work: a build script so that the build-dependency on `syn` (see Cargo.toml) counts.
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
}
