//! The solved tables and their files: the expected-score table ([`expected`]), the table of
//! the early plies of the game of two ([`two_player`]), the cache that loads a table from its
//! file or builds and saves it ([`cache`]), and the set of the tables of a rule set, each
//! loaded on first use, that every front end uses ([`set`]).

pub mod cache;
pub mod expected;
pub mod set;
pub mod two_player;
