//! The patterns that group the opening cheat sheet: what a player sees at a glance in five
//! dice. Patterns describe the dice, not boxes, so they read the same under every rule set.

use crate::dice::Dice;

/// The pattern of a roll. Every roll has exactly one: a run of four or five faces wins over
/// the pair it may contain, then the largest group of equal faces decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pattern {
    /// All five dice show the same face.
    FiveOfAKind,
    /// Five consecutive faces: 12345 or 23456.
    StraightOfFive,
    /// Four consecutive faces among the dice (and not five).
    StraightOfFour,
    /// Four dice of one face.
    FourOfAKind,
    /// Three of one face and two of another.
    FullHouse,
    /// Three of one face, the other two different.
    ThreeOfAKind,
    /// Two pairs.
    TwoPairs,
    /// One pair, no run of four.
    OnePair,
    /// Five different faces without a run of four: 12356 and 12456.
    AllDifferent,
}

impl Pattern {
    /// Every pattern, in the order of the cheat sheet.
    pub const ALL: [Pattern; 9] = [
        Pattern::FiveOfAKind,
        Pattern::StraightOfFive,
        Pattern::StraightOfFour,
        Pattern::FourOfAKind,
        Pattern::FullHouse,
        Pattern::ThreeOfAKind,
        Pattern::TwoPairs,
        Pattern::OnePair,
        Pattern::AllDifferent,
    ];

    /// The name written in exports.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::FiveOfAKind => "five of a kind",
            Pattern::StraightOfFive => "straight of five",
            Pattern::StraightOfFour => "straight of four",
            Pattern::FourOfAKind => "four of a kind",
            Pattern::FullHouse => "full house",
            Pattern::ThreeOfAKind => "three of a kind",
            Pattern::TwoPairs => "two pairs",
            Pattern::OnePair => "one pair",
            Pattern::AllDifferent => "all different",
        }
    }
}

/// The pattern of `dice`.
pub fn pattern_of(dice: &Dice) -> Pattern {
    let counts = dice.counts();
    let present: Vec<bool> = counts.iter().map(|&c| c > 0).collect();
    let run = |len: usize| present.windows(len).any(|w| w.iter().all(|&p| p));
    let mut groups: Vec<u8> = counts.iter().copied().filter(|&c| c > 0).collect();
    groups.sort_unstable_by(|a, b| b.cmp(a));
    match groups.as_slice() {
        [5] => Pattern::FiveOfAKind,
        _ if run(5) => Pattern::StraightOfFive,
        _ if run(4) => Pattern::StraightOfFour,
        [4, 1] => Pattern::FourOfAKind,
        [3, 2] => Pattern::FullHouse,
        [3, 1, 1] => Pattern::ThreeOfAKind,
        [2, 2, 1] => Pattern::TwoPairs,
        [2, 1, 1, 1] => Pattern::OnePair,
        _ => Pattern::AllDifferent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Pattern {
        pattern_of(&s.parse().unwrap())
    }

    #[test]
    fn classifies_rolls() {
        assert_eq!(p("44444"), Pattern::FiveOfAKind);
        assert_eq!(p("23456"), Pattern::StraightOfFive);
        assert_eq!(p("12334"), Pattern::StraightOfFour);
        assert_eq!(p("13456"), Pattern::StraightOfFour);
        assert_eq!(p("22226"), Pattern::FourOfAKind);
        assert_eq!(p("33555"), Pattern::FullHouse);
        assert_eq!(p("33356"), Pattern::ThreeOfAKind);
        assert_eq!(p("11335"), Pattern::TwoPairs);
        assert_eq!(p("11356"), Pattern::OnePair);
        assert_eq!(p("12356"), Pattern::AllDifferent);
    }

    #[test]
    fn every_roll_has_one_pattern_and_the_counts_add_up() {
        let mut n = [0usize; 9];
        for d in Dice::all() {
            n[pattern_of(&d) as usize] += 1;
        }
        assert_eq!(n.iter().sum::<usize>(), 252);
        // 6 five of a kind, 2 straights of five, 30 four of a kind, 30 full houses.
        assert_eq!((n[0], n[1], n[3], n[4]), (6, 2, 30, 30));
        // Only 12356 and 12456 are all different without a run of four.
        assert_eq!(n[8], 2);
    }
}
