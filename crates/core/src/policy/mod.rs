//! What "best" means, and playing it: the expected score ([`expected`]: the ranked options of
//! a position), a target score ([`target`]), winning against opponents ([`win`]) and the exact
//! game of two ([`two_player`]).

pub mod expected;
pub mod target;
pub mod two_player;
pub mod win;
