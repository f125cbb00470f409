//! The baseline policies, for comparison: `greedy` (never re-rolls, scores the box worth the
//! most points now) and `most-common` (keeps the most common face), as the simulations and the
//! matches play them (`policy::player::Player`).

use crate::game::dice::{Dice, FACES, Keep};
use crate::game::rules::Rules;
use crate::game::state::{Bonuses, State};

/// The box worth the most points now (points and bonus), ties to the first on the card.
pub fn greedy_box(rules: &Rules, state: &State, dice: &Dice) -> (usize, u32, Bonuses) {
    let legal = rules.legal_boxes(state.filled, dice);
    let five = dice.five_of_a_kind().is_some();
    let mut best: Option<(usize, u32, Bonuses)> = None;
    for index in (0..rules.box_count()).filter(|i| legal & (1 << i) != 0) {
        let points = rules.score(index, dice, state.filled);
        let bonuses = state.bonuses_for(rules, index, points, five);
        let gain = |p: u32, b: Bonuses| p + b.points(rules);
        if best.is_none_or(|(_, p, b)| gain(points, bonuses) > gain(p, b)) {
            best = Some((index, points, bonuses));
        }
    }
    best.expect("an unfinished card always has a legal box")
}

/// The dice of the most common face (ties: the higher face).
pub fn most_common_keep(dice: &Dice) -> Keep {
    let counts = dice.counts();
    let face = (0..FACES)
        .rev()
        .max_by_key(|&f| (counts[f], f))
        .expect("six faces");
    Keep::from_faces(&vec![face as u8 + 1; usize::from(counts[face])]).expect("at most five dice")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::RuleSet;

    #[test]
    fn most_common_keeps_the_higher_face_on_ties() {
        let d: Dice = "22556".parse().unwrap();
        assert_eq!(most_common_keep(&d).faces(), vec![5, 5]);
        let d: Dice = "12346".parse().unwrap();
        assert_eq!(most_common_keep(&d).faces(), vec![6]);
    }

    #[test]
    fn greedy_prefers_the_most_points_now() {
        let rules = Rules::new(RuleSet::YAHTZEE);
        let d: Dice = "66666".parse().unwrap();
        // Yahtzee (50) beats Sixes (30) and the sums (30).
        assert_eq!(greedy_box(&rules, &State::START, &d).0, 11);
        let d: Dice = "12345".parse().unwrap();
        assert_eq!(
            greedy_box(&rules, &State::START, &d),
            (10, 40, Bonuses::default())
        );
    }
}
