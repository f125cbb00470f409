//! The game itself, before any strategy: the rule sets as data ([`rules`]), dice, keeps and
//! the lattice of dice multisets ([`dice`]), turn-start states and score cards ([`state`]),
//! and the choice of a player ([`choice`]).

pub mod choice;
pub mod dice;
pub mod rules;
pub mod state;
