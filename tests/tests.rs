//! The integration tests of the `yahtzee` binary and library, one module per concern.

mod util;

mod advise;
mod simulate;
mod stats;
