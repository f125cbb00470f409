//! No code: see Cargo.toml. This crate only makes every build of the workspace enable the
//! same features of a few shared dependencies, so that the Python package reuses the core.
