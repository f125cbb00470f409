//! The core library of the solver and analysis tool for Yahtzee, Yacht, Scandinavian Yatzy and
//! the rest of the family: the rules, the exact solvers, the table files, the policies of
//! every objective, statistics, simulation, the game host and the exports. Every front end
//! (the `yahtzee` binary, the web server, the Parquet writer, the Python module, the fuzz
//! targets) is a thin layer over it; it depends on none of them. `ARCHITECTURE.md` at the
//! root of the repository is the map.
//!
//! The folders are layers: each uses only those above it in this list.
//!
//! - [`text`], [`files`], [`cancel`]: input quoted in errors and numbers in words; every file
//!   written through a temporary renamed into place; the token that stops long work.
//! - [`memory`]: the memory this program may use (its refusals worded by [`text`]).
//! - [`game`]: the game itself: rule sets as data, dice and keeps, states and score cards,
//!   choices, and the tie conventions.
//! - [`solve`]: the turn kernel and the backward solves of every objective (expected score,
//!   vector objectives, the exact game of two), in parallel and SIMD.
//! - [`tables`]: the solved tables and their versioned, checksummed files; the cache that
//!   loads or builds them.
//! - [`policy`]: what "best" means: the expected score, a target, winning, the game of two,
//!   the baselines; advice (the ranked options of a position) and the bots.
//! - [`stats`], [`export`], [`batch`]: exact distributions, simulation and matches; strategy
//!   tables for people and programs; the batch protocol (one JSON query per line).
//! - [`play`]: a game in progress: the referee, the record, the commands, the session and
//!   the review of a game.
//! - [`report`]: the result of each command.

pub mod batch;
pub mod cancel;
pub mod export;
pub mod files;
pub mod game;
pub mod memory;
pub mod play;
pub mod policy;
pub mod report;
pub mod solve;
pub mod stats;
pub mod tables;
pub mod text;

pub use game::choice::Choice;
pub use game::dice::{Dice, Keep};
pub use game::rules::{Category, Order, RuleSet, Rules};
pub use game::state::{ScoreCard, State};
pub use policy::expected::{Advice, AdviceOption, Position, advise};
pub use tables::expected::StrategyTable;
