//! The integration tests of the `yahtzee` binary and library, one module per concern.

mod brute;
mod util;

mod advise;
mod architecture;
mod browser;
mod cli;
mod distribution;
mod errors;
mod events;
mod export;
mod fuzz_regressions;
mod hostile;
mod matches;
mod parquet;
mod play;
mod plot;
mod python;
mod rating;
mod readme;
mod rolls;
mod rules;
mod rules_file;
mod saved_rolls;
mod serve;
mod simulate;
mod solver;
mod stats;
mod table;
mod target;
mod target_policy;
mod target_stats;
mod twoplayer;
mod twoplayer_bot;
mod win;
mod winbot;
