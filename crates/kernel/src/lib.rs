//! The turn kernel of the Yahtzee-family solver: the hot loops that every solve, every query
//! and every statistic of the `yahtzee-core` library runs, compiled once, here.
//!
//! A turn of the game, for a block of lanes (the states of a card, or the coordinates of a
//! state's vector): the last roll's best box for each roll, the value of every keep as a
//! mean over one more die, the best keep of each roll, layer by layer for each re-roll, and
//! the opening mean over the first roll (`turn.rs`). It reads what the core prepares: the
//! points of every box for every roll ([`ScoreTable`]), the successor values of each way of
//! filling a box ([`Plan`]), and the lattice of every multiset of up to six dice
//! ([`lattice::Lattice`]).
//!
//! Why a crate of its own: the loops are generic over the lane type and the block width,
//! and compiled for three instruction sets. A generic function is compiled in every crate
//! that instantiates it, so in the core library they were compiled again by every caller's
//! crate and test harness. Here they are instantiated only by the entry points
//! ([`Kernel::solve`] and [`turn`]), which take the width and the instruction set as values:
//! `entry.rs` holds the table of the copies made, and nothing else makes one.
//!
//! Every copy gives the same bits: no operation is fused (the one `mul_add` is exactly
//! specified), and the lanes of a block never interact.

mod duo;
mod entry;
pub mod lattice;
mod plan;
mod real;
pub mod simd;
mod turn;

pub use duo::{Duo, DuoPack, PACK};
pub use entry::{Kernel, saved_turn, turn};
pub use plan::{
    BOX_SLOTS, BoxMask, KEEP_ENTRIES, KeepArray, MAX_BOXES, MAX_ROLLS_A_TURN, Plan, ScoreTable,
    aligned_start, per_line,
};
pub use real::{MAX_POINTS, POINT_VALUES, Real};
pub use turn::Layer;
