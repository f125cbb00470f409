//! A game played by a policy of one's own: a callback that sees the position (the card, the
//! dice, the rolls left) and chooses a [`Choice`], with the dice of game `g` of a seeded
//! simulation ([`GameDice::of_game`], drawn through [`roll_and_keep`], as every simulated
//! game's). Common random numbers: the same seed and game, and the same decisions, give the
//! same dice, so a policy that decides as the optimal one plays the optimal simulation's game
//! exactly, and two policies compared on the same seed differ by their decisions only.
//!
//! The choices follow [`Choice`]'s convention: with rolls left, `Keep` of some dice re-rolls
//! the others, `Keep` of all five stops (the callback is then asked again with no rolls left,
//! for the box), and `Score(i)` stops and fills box `i`; with no rolls left, `Score(i)`. Every
//! choice is checked as the referee checks a player's ([`check_legal`], [`score_box`]).

use crate::game::choice::Choice;
use crate::game::dice::{Dice, GameDice, Keep};
use crate::game::rules::Rules;
use crate::game::state::ScoreCard;
#[cfg(doc)]
use crate::play::check_legal;
use crate::play::{Illegal, score_box};
use crate::stats::simulate::roll_and_keep;

/// A choice of one's own policy that the rules do not allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OwnChoiceError {
    /// A keep of dice not showing, or a box that cannot be filled (see [`Illegal`]).
    #[error("turn {turn}: {source}")]
    Illegal {
        /// The turn, from 1.
        turn: u32,
        /// What the rules refuse.
        source: Illegal,
    },
    /// A keep with no rolls left. Fix: choose a box.
    #[error("turn {turn}: with no rolls left a box is filled, not a keep ({keep})")]
    KeepWithoutRolls {
        /// The turn, from 1.
        turn: u32,
        /// The keep chosen.
        keep: Keep,
    },
}

/// Plays game `game` of `seed` under `rules`, each choice from `decide(card, dice,
/// rolls_left)`, and returns the full card. The first error of `decide`, or the first choice
/// the rules refuse, ends the game.
pub fn play_own_game<E: From<OwnChoiceError>>(
    rules: &Rules,
    seed: u64,
    game: u64,
    decide: &mut impl FnMut(&ScoreCard, &Dice, u8) -> Result<Choice, E>,
) -> Result<ScoreCard, E> {
    let mut dice_of_game = GameDice::of_game(seed, game);
    let mut card = ScoreCard::new(*rules);
    for turn in 1..=rules.box_count() as u32 {
        let illegal = |source| OwnChoiceError::Illegal { turn, source };
        let mut stopped_at: Option<usize> = None;
        let mut failed: Option<E> = None;
        let (roll, _) = roll_and_keep(rules, &mut dice_of_game, |rolls_left, roll| {
            let dice = Dice::from_index(roll);
            let kept = match decide(&card, &dice, rolls_left) {
                Ok(Choice::Keep(keep)) if keep.is_within(&dice) => return keep.index(),
                Ok(Choice::Keep(keep)) => {
                    Err(illegal(Illegal::KeepNotInDice { keep, dice }).into())
                }
                Ok(Choice::Score(index)) => {
                    stopped_at = Some(index);
                    Ok(())
                }
                Err(e) => Err(e),
            };
            if let Err(e) = kept {
                failed = Some(e);
            }
            // A box, or an error: stop rolling.
            roll
        });
        if let Some(e) = failed {
            return Err(e);
        }
        let dice = Dice::from_index(roll);
        let index = match stopped_at {
            Some(index) => index,
            None => match decide(&card, &dice, 0)? {
                Choice::Score(index) => index,
                Choice::Keep(keep) => {
                    return Err(OwnChoiceError::KeepWithoutRolls { turn, keep }.into());
                }
            },
        };
        let (points, bonuses) = score_box(rules, &card, &dice, index).map_err(illegal)?;
        card.fill(index, points, bonuses.yahtzee);
    }
    Ok(card)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::RuleSet;
    use crate::policy::player::Player;
    use crate::stats::simulate::simulate_scores;

    #[test]
    fn a_greedy_policy_of_ones_own_plays_the_greedy_simulations_games() {
        let rules = Rules::new(RuleSet::YACHT);
        let (_, scores) = simulate_scores(&rules, &Player::Greedy, 20, 5, &|_| {});
        for (game, &score) in scores.iter().enumerate() {
            // Greedy: never re-roll, the box worth the most points now (first on the card).
            let mut greedy = |card: &ScoreCard, dice: &Dice, rolls_left: u8| {
                if rolls_left > 0 {
                    return Ok::<_, OwnChoiceError>(Choice::Keep(
                        Keep::from_faces(&dice.faces()).unwrap(),
                    ));
                }
                let best = (0..rules.box_count())
                    .filter_map(|i| score_box(&rules, card, dice, i).ok().map(|s| (i, s)))
                    .max_by_key(|&(i, (p, b))| (p + b.points(&rules), std::cmp::Reverse(i)))
                    .unwrap();
                Ok(Choice::Score(best.0))
            };
            let card = play_own_game(&rules, 5, game as u64, &mut greedy).unwrap();
            assert!(card.is_full());
            assert_eq!(card.banked(), score, "game {game}");
        }
    }

    #[test]
    fn illegal_choices_end_the_game_with_the_turn_and_the_reason() {
        let rules = Rules::new(RuleSet::YACHT);
        let mut keep_sixes = |_: &ScoreCard, _: &Dice, _: u8| {
            Ok::<_, OwnChoiceError>(Choice::Keep(Keep::from_faces(&[6, 6, 6, 6, 6]).unwrap()))
        };
        let e = play_own_game(&rules, 1, 0, &mut keep_sixes).unwrap_err();
        assert!(
            matches!(
                e,
                OwnChoiceError::Illegal {
                    turn: 1,
                    source: Illegal::KeepNotInDice { .. }
                }
            ),
            "{e}"
        );
        let mut ones_forever =
            |_: &ScoreCard, _: &Dice, _: u8| Ok::<_, OwnChoiceError>(Choice::Score(0));
        let e = play_own_game(&rules, 1, 0, &mut ones_forever).unwrap_err();
        assert!(e.to_string().starts_with("turn 2: "), "{e}");
        let mut keep_all = |_: &ScoreCard, dice: &Dice, _: u8| {
            Ok::<_, OwnChoiceError>(Choice::Keep(Keep::from_faces(&dice.faces()).unwrap()))
        };
        let e = play_own_game(&rules, 1, 0, &mut keep_all).unwrap_err();
        assert!(
            matches!(e, OwnChoiceError::KeepWithoutRolls { turn: 1, .. }),
            "{e}"
        );
    }
}
