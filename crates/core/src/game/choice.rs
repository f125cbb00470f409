//! A choice of a turn: keep some dice and re-roll the others, or fill a box. One type for
//! every part of the library that names a decision without pricing it: the game (what a
//! player or the bot chose, what a record replays), the review (which kind of decision it
//! prices) and the export (the best option of a decision and its runner-up). Advice, which
//! also prices and words each option, has its own [`AdviceOption`](crate::AdviceOption).
//!
//! The one convention: with rolls left, keeping all five dice means "stop rolling and
//! score", and the box is then a second choice. So a turn that stops early is two choices,
//! `Keep` of the five dice and then `Score` of a box (the game records it so, the review
//! prices each). Where one choice stands for both, `Score(i)` with rolls left means "stop
//! rolling and fill box `i`": a player's `score fh` with rolls left is that shorthand, and
//! the export writes a stop as the box the policy then fills.

use crate::game::dice::Keep;

/// What a player or the policy does with the dice showing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Keep these dice and re-roll the others. All five dice (with rolls left) means stop
    /// rolling: the box follows as a [`Choice::Score`].
    Keep(Keep),
    /// Fill the box at this position of the card ([`Rules::boxes`](crate::game::rules::Rules::boxes) order). With rolls left:
    /// stop rolling and fill it, the two choices of a stop in one.
    Score(usize),
}
