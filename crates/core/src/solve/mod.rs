//! The solvers: the turn kernel that every objective runs ([`kernel`]), the backward solve of
//! the expected score ([`expected`]), of the vector objectives (a vector per state: target
//! score, distributions; [`vector`]) and of the exact game of two ([`two_player`], with the
//! lanes of its pairs in [`lane`]), of the expected score under the rule of saved rolls
//! ([`saved`]), of the certainty equivalent of an exponential utility (the expected score's
//! solve, its rows mapped to utilities: [`theta`]); the instruction sets they are compiled
//! for ([`simd`]); and the forward pass of a turn under a policy, the kernel's counterpart
//! for statistics ([`forward`]).
//!
//! The solves use the game alone: they read no file and know no table or policy. A solve
//! that follows the expected-score policy (the distribution objective, a player of the game
//! of two who plays for the average) reads the solved values through
//! [`expected::ExpectedValues`]; the tables (`tables/`) wrap what a solve gives, with its
//! file; the advice and the bots (`policy/`) read them.

pub mod expected;
pub(crate) mod forward;
pub mod kernel;
pub mod lane;
pub mod saved;
/// The instruction sets the kernel is compiled for, and the one a processor may use.
pub use yahtzee_kernel::simd;
pub mod theta;
pub mod two_player;
pub mod vector;
