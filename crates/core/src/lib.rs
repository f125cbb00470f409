//! Optimal strategy for Yahtzee and Yacht: the rules, an exact dynamic-programming solver, a
//! saved strategy table, and the advice, statistics and exports built on it.
//!
//! The binary `yahtzee` is a thin layer over this library: everything a command does, a test
//! or a benchmark can do through these modules.
//!
//! - [`rules`]: rule sets, boxes, scoring, bonuses and the Joker rule.
//! - [`dice`]: dice, keeps and the multiset lattice of five dice.
//! - [`choice`]: a keep of dice or a box, the choice of a player or of the policy.
//! - [`state`]: turn-start states, score cards and the table layout.
//! - [`kernel`]: the turn machinery every objective runs: final roll, keeps, keep lattice.
//! - [`solver`]: backward induction over all states, in parallel and SIMD.
//! - [`table`]: the strategy table and its versioned, checksummed file (or bytes).
//! - [`files`]: every file written through a temporary renamed into place.
//! - [`cache`]: the table of some rules, loaded from its file or built and saved.
//! - [`vector`]: objectives with a vector per state (target score, ...), by the same kernel.
//! - [`target`]: advice for a target score.
//! - [`advice`]: the ranked options for a position.
//! - [`batch`]: the batch protocol, one JSON query per line and one JSON answer.
//! - [`game`]: a game of one or more players: referee, record, commands, session, coach.
//! - [`review`]: prices every decision of a saved game.
//! - [`export`]: strategy tables (one card, every state, the full policy, the opening sheet).
//! - [`distribution`]: the figures of a final-score distribution.
//! - [`stats`]: the exact distribution under optimal play.
//! - [`simulate`]: games with random dice under a policy.
//! - [`matches`]: matches between policies, the win bots among them.
//! - [`report`]: the result of each command (solve, verify, stats, simulate).
//! - [`twoplayer`]: two players, solved exactly (Yacht): the chance of winning from every position.
//! - [`text`]: input quoted in errors, number agreement, probabilities as people read them.

pub mod advice;
pub mod batch;
pub mod cache;
pub mod choice;
pub mod dice;
pub mod files;
pub mod game;
pub mod kernel;
pub mod review;
pub mod rules;
pub mod solver;
pub mod state;
pub mod table;
pub mod target;
pub mod text;
pub mod twoplayer;
pub mod vector;
pub mod win;

pub use advice::{Advice, AdviceOption, Position, advise};
pub use choice::Choice;
pub use dice::{Dice, Keep};
pub use rules::{Category, Order, RuleSet, Rules};
pub use state::{ScoreCard, State};
pub use table::StrategyTable;
pub mod distribution;
pub mod export;
pub mod matches;
pub mod report;
pub mod simulate;
pub mod stats;
