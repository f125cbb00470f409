//! The game itself, before any strategy: the rule sets as data ([`rules`]), dice, keeps and
//! the lattice of dice multisets ([`dice`]), turn-start states and score cards ([`state`]),
//! the choice of a player ([`choice`]), and the tie conventions every choice follows
//! ([`ties`]).

pub mod choice;
pub mod dice;
pub mod rules;
pub mod state;
pub mod ties;
