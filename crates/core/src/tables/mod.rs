//! The solved tables and their files: the expected-score table ([`expected`]), the table of
//! the early plies of the game of two ([`two_player`]), and the cache that loads a table from
//! its file or builds and saves it ([`cache`]).

pub mod cache;
pub mod expected;
pub mod two_player;
