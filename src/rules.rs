//! The rule sets: which boxes a card has, what each box scores, the bonuses and the Joker rule.
//!
//! Everything that differs between `yahtzee`, `yahtzee-free-joker`, `yahtzee-plain` and
//! `yacht` (and the `--upper-first` modifier) is answered here, by one [`Rules`] value, so the
//! solver, the advice and the statistics are written once for all of them. The rules are those
//! of `shared/RULES.md`; the choices made where a rule sheet is ambiguous are documented in the
//! README.

use std::fmt;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use crate::dice::Dice;

/// The upper-section total at which the upper bonus is earned.
pub const UPPER_BONUS_THRESHOLD: u32 = 63;
/// The upper bonus.
pub const UPPER_BONUS: u32 = 35;
/// Each extra Yahtzee rolled while the Yahtzee box holds 50.
pub const YAHTZEE_BONUS: u32 = 100;

/// A named rule set of `shared/RULES.md`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum RuleSet {
    /// Official Yahtzee rules: upper bonus, Yahtzee bonus, forced Joker.
    Yahtzee,
    /// Yahtzee with the free Joker of Verhoeff's optimal player.
    YahtzeeFreeJoker,
    /// Yahtzee without Yahtzee bonus and without Joker.
    YahtzeePlain,
    /// The older public-domain game: 12 boxes, no bonuses, no Joker.
    Yacht,
}

impl RuleSet {
    /// Every rule set, in the order of `shared/RULES.md`.
    pub const ALL: [RuleSet; 4] = [
        RuleSet::Yahtzee,
        RuleSet::YahtzeeFreeJoker,
        RuleSet::YahtzeePlain,
        RuleSet::Yacht,
    ];

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            RuleSet::Yahtzee => "yahtzee",
            RuleSet::YahtzeeFreeJoker => "yahtzee-free-joker",
            RuleSet::YahtzeePlain => "yahtzee-plain",
            RuleSet::Yacht => "yacht",
        }
    }

    /// Parses a name as written by [`RuleSet::name`].
    pub fn from_name(name: &str) -> Option<RuleSet> {
        RuleSet::ALL.into_iter().find(|r| r.name() == name)
    }
}

/// Whether the boxes may be filled in any order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// Any open box may be filled.
    Any,
    /// No lower box may be filled while an upper box is open.
    UpperFirst,
}

/// How a Yahtzee rolled while the Yahtzee box is already filled may be scored.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Joker {
    /// No Joker: every box scores by its own condition.
    None,
    /// The official rule: the upper box of the face if open, else any open lower box (scoring
    /// as if its condition were met), else 0 in an open upper box.
    Forced,
    /// Any open box; Full House, Small and Large Straight score their fixed values only when
    /// the upper box of the face is filled too.
    Free,
}

/// One box of a score card.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Category {
    Ones,
    Twos,
    Threes,
    Fours,
    Fives,
    Sixes,
    ThreeOfAKind,
    FourOfAKind,
    FullHouse,
    SmallStraight,
    LargeStraight,
    Yahtzee,
    Chance,
    LittleStraight,
    BigStraight,
    Choice,
    Yacht,
}

impl Category {
    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Category::Ones => "ones",
            Category::Twos => "twos",
            Category::Threes => "threes",
            Category::Fours => "fours",
            Category::Fives => "fives",
            Category::Sixes => "sixes",
            Category::ThreeOfAKind => "three-of-a-kind",
            Category::FourOfAKind => "four-of-a-kind",
            Category::FullHouse => "full-house",
            Category::SmallStraight => "small-straight",
            Category::LargeStraight => "large-straight",
            Category::Yahtzee => "yahtzee",
            Category::Chance => "chance",
            Category::LittleStraight => "little-straight",
            Category::BigStraight => "big-straight",
            Category::Choice => "choice",
            Category::Yacht => "yacht",
        }
    }

    /// The face counted by an upper box (1 for Ones ... 6 for Sixes).
    pub fn upper_face(self) -> Option<u8> {
        match self {
            Category::Ones => Some(1),
            Category::Twos => Some(2),
            Category::Threes => Some(3),
            Category::Fours => Some(4),
            Category::Fives => Some(5),
            Category::Sixes => Some(6),
            _ => None,
        }
    }

    /// True for the six boxes of the upper section.
    pub fn is_upper(self) -> bool {
        self.upper_face().is_some()
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

const YAHTZEE_BOXES: [Category; 13] = [
    Category::Ones,
    Category::Twos,
    Category::Threes,
    Category::Fours,
    Category::Fives,
    Category::Sixes,
    Category::ThreeOfAKind,
    Category::FourOfAKind,
    Category::FullHouse,
    Category::SmallStraight,
    Category::LargeStraight,
    Category::Yahtzee,
    Category::Chance,
];

const YACHT_BOXES: [Category; 12] = [
    Category::Ones,
    Category::Twos,
    Category::Threes,
    Category::Fours,
    Category::Fives,
    Category::Sixes,
    Category::FullHouse,
    Category::FourOfAKind,
    Category::LittleStraight,
    Category::BigStraight,
    Category::Choice,
    Category::Yacht,
];

/// A set of boxes of one card, bit `i` for the box at position `i` of [`Rules::boxes`].
pub type BoxMask = u16;

/// Mask of the six upper boxes: in every rule set they are the first six.
pub const UPPER_MASK: BoxMask = 0b11_1111;

/// A complete description of the game being played: a rule set and the order modifier.
///
/// Serialized as the two fields every result and record carries, `"rules": "yahtzee"` and
/// `"upper_first": false`, so a result struct holds a `Rules` with `#[serde(flatten)]`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(from = "RulesFields", into = "RulesFields")]
pub struct Rules {
    /// The named rule set.
    pub set: RuleSet,
    /// Whether the upper section must be filled first.
    pub order: Order,
}

impl Rules {
    /// The rule set with boxes filled in any order.
    pub fn new(set: RuleSet) -> Rules {
        Rules {
            set,
            order: Order::Any,
        }
    }

    /// The rule set with the given order modifier.
    pub fn with_order(set: RuleSet, order: Order) -> Rules {
        Rules { set, order }
    }

    /// Name and modifier, e.g. `yahtzee` or `yacht --upper-first`: the command-line flags that
    /// select these rules.
    pub fn flags(&self) -> String {
        match self.order {
            Order::Any => format!("--rules {}", self.set.name()),
            Order::UpperFirst => format!("--rules {} --upper-first", self.set.name()),
        }
    }

    /// A short label, e.g. `yahtzee` or `yacht (upper first)`.
    pub fn label(&self) -> String {
        match self.order {
            Order::Any => self.set.name().to_string(),
            Order::UpperFirst => format!("{} (upper first)", self.set.name()),
        }
    }

    /// The boxes of the card in card order.
    pub fn boxes(&self) -> &'static [Category] {
        match self.set {
            RuleSet::Yacht => &YACHT_BOXES,
            _ => &YAHTZEE_BOXES,
        }
    }

    /// The names of the boxes in `mask`, in card order, joined by commas.
    pub fn names_of(&self, mask: BoxMask) -> String {
        self.boxes()
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, c)| c.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Number of boxes (and of turns).
    pub fn box_count(&self) -> usize {
        self.boxes().len()
    }

    /// Mask with every box filled.
    pub fn full_mask(&self) -> BoxMask {
        ((1u32 << self.box_count()) - 1) as BoxMask
    }

    /// Position of a box on this card.
    pub fn box_index(&self, category: Category) -> Option<usize> {
        self.boxes().iter().position(|&c| c == category)
    }

    /// Looks a box up by its command-line name.
    pub fn box_by_name(&self, name: &str) -> Option<usize> {
        self.boxes().iter().position(|c| c.name() == name)
    }

    /// True when the rules award 35 for an upper section of 63 or more.
    pub fn has_upper_bonus(&self) -> bool {
        self.set != RuleSet::Yacht
    }

    /// True when the rules award 100 for each extra Yahtzee.
    pub fn has_yahtzee_bonus(&self) -> bool {
        matches!(self.set, RuleSet::Yahtzee | RuleSet::YahtzeeFreeJoker)
    }

    /// The Joker convention.
    pub fn joker(&self) -> Joker {
        match self.set {
            RuleSet::Yahtzee => Joker::Forced,
            RuleSet::YahtzeeFreeJoker => Joker::Free,
            RuleSet::YahtzeePlain | RuleSet::Yacht => Joker::None,
        }
    }

    /// Position of the box that scores five of a kind: Yahtzee and Yacht both sit at 11.
    pub fn five_of_a_kind_box(&self) -> usize {
        11
    }

    /// Score of a box by its own condition, without any Joker.
    pub fn base_score(category: Category, dice: &Dice) -> u32 {
        let c = dice.counts();
        let max_count = c.iter().copied().max().unwrap_or(0);
        let sum = dice.sum();
        let run = |from: usize, len: usize| (from..from + len).all(|f| c[f] > 0);
        match category {
            Category::Ones
            | Category::Twos
            | Category::Threes
            | Category::Fours
            | Category::Fives
            | Category::Sixes => {
                let face = category.upper_face().unwrap_or(0);
                u32::from(face) * u32::from(c[usize::from(face) - 1])
            }
            Category::ThreeOfAKind => {
                if max_count >= 3 {
                    sum
                } else {
                    0
                }
            }
            Category::FourOfAKind => {
                if max_count >= 4 {
                    sum
                } else {
                    0
                }
            }
            Category::FullHouse => {
                if c.contains(&3) && c.contains(&2) {
                    // Yacht scores the dice; Yahtzee a fixed 25 (handled by the caller).
                    sum
                } else {
                    0
                }
            }
            Category::SmallStraight => {
                if run(0, 4) || run(1, 4) || run(2, 4) {
                    30
                } else {
                    0
                }
            }
            Category::LargeStraight => {
                if run(0, 5) || run(1, 5) {
                    40
                } else {
                    0
                }
            }
            Category::Yahtzee | Category::Yacht => {
                if max_count == 5 {
                    50
                } else {
                    0
                }
            }
            Category::Chance | Category::Choice => sum,
            Category::LittleStraight => {
                if run(0, 5) {
                    30
                } else {
                    0
                }
            }
            Category::BigStraight => {
                if run(1, 5) {
                    30
                } else {
                    0
                }
            }
        }
    }

    /// True when `dice` fall under the Joker rule on a card with `filled` boxes: a Yahtzee
    /// rolled while the Yahtzee box is filled, in a rule set with a Joker.
    pub fn is_joker(&self, filled: BoxMask, dice: &Dice) -> bool {
        self.joker() != Joker::None
            && dice.five_of_a_kind().is_some()
            && filled & (1 << self.five_of_a_kind_box()) != 0
    }

    /// Points the box at position `index` scores for `dice` on a card with `filled` boxes,
    /// Joker included. The box must be one of [`Rules::legal_boxes`].
    pub fn score(&self, index: usize, dice: &Dice, filled: BoxMask) -> u32 {
        let category = self.boxes()[index];
        let base = match (self.set, category) {
            (RuleSet::Yacht, _) => Self::base_score(category, dice),
            (_, Category::FullHouse) => {
                if Self::base_score(category, dice) > 0 {
                    25
                } else {
                    0
                }
            }
            _ => Self::base_score(category, dice),
        };
        if !self.is_joker(filled, dice) {
            return base;
        }
        let joker_value = match category {
            Category::FullHouse => 25,
            Category::SmallStraight => 30,
            Category::LargeStraight => 40,
            _ => return base,
        };
        match self.joker() {
            Joker::Forced => joker_value,
            Joker::Free => {
                let face = dice.five_of_a_kind().unwrap_or(1);
                if filled & (1 << (face - 1)) != 0 {
                    joker_value
                } else {
                    base
                }
            }
            Joker::None => base,
        }
    }

    /// The boxes that may be filled with `dice` on a card with `filled` boxes: the open boxes,
    /// restricted by the order modifier and by the forced Joker.
    pub fn legal_boxes(&self, filled: BoxMask, dice: &Dice) -> BoxMask {
        let open = self.full_mask() & !filled;
        let allowed = self.open_by_order(filled);
        if !self.is_joker(filled, dice) || self.joker() != Joker::Forced {
            return allowed;
        }
        let face = dice.five_of_a_kind().unwrap_or(1);
        let own_upper: BoxMask = 1 << (face - 1);
        let forced = if open & own_upper != 0 {
            own_upper
        } else if open & !UPPER_MASK != 0 {
            open & !UPPER_MASK
        } else {
            open & UPPER_MASK
        };
        forced & allowed
    }

    /// The open boxes the order modifier allows, whatever the dice.
    pub fn open_by_order(&self, filled: BoxMask) -> BoxMask {
        let open = self.full_mask() & !filled;
        match self.order {
            Order::UpperFirst if open & UPPER_MASK != 0 => open & UPPER_MASK,
            _ => open,
        }
    }

    /// True when a card with these boxes filled can arise under the order modifier.
    pub fn order_allows(&self, filled: BoxMask) -> bool {
        match self.order {
            Order::Any => true,
            Order::UpperFirst => filled & !UPPER_MASK == 0 || filled & UPPER_MASK == UPPER_MASK,
        }
    }

    /// Every score the box at `index` can ever hold under these rules, ascending.
    pub fn possible_scores(&self, index: usize) -> &'static [u32] {
        // Worked out once per rule set: checking a card asks for them on every filled box.
        static SCORES: LazyLock<Vec<Vec<Vec<u32>>>> = LazyLock::new(|| {
            RuleSet::ALL
                .iter()
                .map(|&set| {
                    let rules = Rules::new(set);
                    (0..rules.box_count())
                        .map(|i| rules.enumerate_scores(i))
                        .collect()
                })
                .collect()
        });
        let set = RuleSet::ALL
            .iter()
            .position(|&s| s == self.set)
            .expect("every rule set is in RuleSet::ALL");
        &SCORES[set][index]
    }

    fn enumerate_scores(&self, index: usize) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        let everything_but = |i: usize| self.full_mask() & !(1 << i);
        // The Joker changes a score only for a card with the five-of-a-kind box filled; try
        // every card that differs in what the Joker depends on: the upper boxes filled.
        let cards: Vec<BoxMask> = (0..=UPPER_MASK)
            .map(|upper| (upper | (1 << self.five_of_a_kind_box())) & everything_but(index))
            .chain([0])
            .collect();
        for dice in Dice::all() {
            for &filled in &cards {
                out.push(self.score(index, &dice, filled));
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// How [`Rules`] is written in JSON.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFields {
    /// The rule set's name.
    rules: RuleSet,
    /// True under the upper-first order.
    upper_first: bool,
}

impl From<Rules> for RulesFields {
    fn from(r: Rules) -> RulesFields {
        RulesFields {
            rules: r.set,
            upper_first: r.order == Order::UpperFirst,
        }
    }
}

impl From<RulesFields> for Rules {
    fn from(f: RulesFields) -> Rules {
        Rules::with_order(
            f.rules,
            if f.upper_first {
                Order::UpperFirst
            } else {
                Order::Any
            },
        )
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Dice {
        s.parse().unwrap()
    }

    fn bit(rules: &Rules, c: Category) -> BoxMask {
        1 << rules.box_index(c).unwrap()
    }

    fn score(rules: &Rules, c: Category, dice: &str, filled: BoxMask) -> u32 {
        rules.score(rules.box_index(c).unwrap(), &d(dice), filled)
    }

    const YAHTZEES: [RuleSet; 3] = [
        RuleSet::Yahtzee,
        RuleSet::YahtzeeFreeJoker,
        RuleSet::YahtzeePlain,
    ];

    #[test]
    fn upper_boxes_score_the_matching_dice() {
        for set in RuleSet::ALL {
            let r = Rules::new(set);
            assert_eq!(score(&r, Category::Ones, "11235", 0), 2);
            assert_eq!(score(&r, Category::Twos, "12225", 0), 6);
            assert_eq!(score(&r, Category::Threes, "33336", 0), 12);
            assert_eq!(score(&r, Category::Fours, "12356", 0), 0);
            assert_eq!(score(&r, Category::Fives, "55555", 0), 25);
            assert_eq!(score(&r, Category::Sixes, "16666", 0), 24);
        }
    }

    #[test]
    fn yahtzee_lower_boxes_score_by_their_conditions() {
        for set in YAHTZEES {
            let r = Rules::new(set);
            assert_eq!(score(&r, Category::ThreeOfAKind, "33345", 0), 18);
            assert_eq!(score(&r, Category::ThreeOfAKind, "33445", 0), 0);
            assert_eq!(score(&r, Category::FourOfAKind, "44441", 0), 17);
            assert_eq!(score(&r, Category::FourOfAKind, "44411", 0), 0);
            assert_eq!(score(&r, Category::FullHouse, "22333", 0), 25);
            assert_eq!(score(&r, Category::FullHouse, "22334", 0), 0);
            assert_eq!(score(&r, Category::SmallStraight, "12346", 0), 30);
            assert_eq!(score(&r, Category::SmallStraight, "23345", 0), 30);
            assert_eq!(score(&r, Category::SmallStraight, "34566", 0), 30);
            assert_eq!(score(&r, Category::SmallStraight, "12356", 0), 0);
            assert_eq!(score(&r, Category::LargeStraight, "12345", 0), 40);
            assert_eq!(score(&r, Category::LargeStraight, "23456", 0), 40);
            assert_eq!(score(&r, Category::LargeStraight, "12346", 0), 0);
            assert_eq!(score(&r, Category::Yahtzee, "66666", 0), 50);
            assert_eq!(score(&r, Category::Yahtzee, "66665", 0), 0);
            assert_eq!(score(&r, Category::Chance, "12356", 0), 17);
            // Five of a kind with the Yahtzee box open is not a Full House, and counts for
            // three and four of a kind.
            assert_eq!(score(&r, Category::FullHouse, "33333", 0), 0);
            assert_eq!(score(&r, Category::ThreeOfAKind, "33333", 0), 15);
            assert_eq!(score(&r, Category::FourOfAKind, "33333", 0), 15);
        }
    }

    #[test]
    fn yacht_boxes_score_by_their_conditions() {
        let r = Rules::new(RuleSet::Yacht);
        assert_eq!(r.box_count(), 12);
        assert_eq!(score(&r, Category::FullHouse, "22333", 0), 13);
        assert_eq!(score(&r, Category::FullHouse, "66655", 0), 28);
        assert_eq!(score(&r, Category::FullHouse, "33333", 0), 0);
        assert_eq!(score(&r, Category::FullHouse, "22334", 0), 0);
        assert_eq!(score(&r, Category::FourOfAKind, "44441", 0), 17);
        assert_eq!(score(&r, Category::FourOfAKind, "44444", 0), 20);
        assert_eq!(score(&r, Category::FourOfAKind, "44411", 0), 0);
        assert_eq!(score(&r, Category::LittleStraight, "12345", 0), 30);
        assert_eq!(score(&r, Category::LittleStraight, "23456", 0), 0);
        assert_eq!(score(&r, Category::BigStraight, "23456", 0), 30);
        assert_eq!(score(&r, Category::BigStraight, "12345", 0), 0);
        assert_eq!(score(&r, Category::BigStraight, "12346", 0), 0);
        assert_eq!(score(&r, Category::Choice, "12356", 0), 17);
        assert_eq!(score(&r, Category::Yacht, "22222", 0), 50);
        assert_eq!(score(&r, Category::Yacht, "22221", 0), 0);
        // No Joker in Yacht, even with the Yacht box filled.
        let filled = bit(&r, Category::Yacht);
        assert_eq!(score(&r, Category::FullHouse, "22222", filled), 0);
        assert_eq!(score(&r, Category::LittleStraight, "22222", filled), 0);
        assert_eq!(r.legal_boxes(filled, &d("22222")), r.full_mask() & !filled);
        assert!(!r.has_upper_bonus() && !r.has_yahtzee_bonus());
    }

    #[test]
    fn forced_joker_upper_box_of_the_face_open() {
        let r = Rules::new(RuleSet::Yahtzee);
        let filled = bit(&r, Category::Yahtzee);
        assert_eq!(
            r.legal_boxes(filled, &d("44444")),
            bit(&r, Category::Fours),
            "must score in Fours"
        );
        assert_eq!(score(&r, Category::Fours, "44444", filled), 20);
    }

    #[test]
    fn forced_joker_upper_filled_lower_open() {
        let r = Rules::new(RuleSet::Yahtzee);
        let filled =
            bit(&r, Category::Yahtzee) | bit(&r, Category::Fours) | bit(&r, Category::Ones);
        let legal = r.legal_boxes(filled, &d("44444"));
        let lower_open = r.full_mask() & !UPPER_MASK & !filled;
        assert_eq!(legal, lower_open, "any open lower box, no upper box");
        assert_eq!(score(&r, Category::FullHouse, "44444", filled), 25);
        assert_eq!(score(&r, Category::SmallStraight, "44444", filled), 30);
        assert_eq!(score(&r, Category::LargeStraight, "44444", filled), 40);
        assert_eq!(score(&r, Category::ThreeOfAKind, "44444", filled), 20);
        assert_eq!(score(&r, Category::FourOfAKind, "44444", filled), 20);
        assert_eq!(score(&r, Category::Chance, "44444", filled), 20);
    }

    #[test]
    fn forced_joker_everything_but_upper_filled() {
        let r = Rules::new(RuleSet::Yahtzee);
        let filled = (r.full_mask() & !UPPER_MASK) | bit(&r, Category::Fours);
        let legal = r.legal_boxes(filled, &d("44444"));
        assert_eq!(legal, UPPER_MASK & !bit(&r, Category::Fours));
        assert_eq!(score(&r, Category::Sixes, "44444", filled), 0);
        assert_eq!(score(&r, Category::Ones, "44444", filled), 0);
    }

    #[test]
    fn joker_applies_with_zero_or_fifty_in_the_yahtzee_box() {
        // The table's flag (50 or 0) changes only the 100 bonus, not where the Joker goes:
        // the rule reads only whether the Yahtzee box is filled.
        let r = Rules::new(RuleSet::Yahtzee);
        let filled = bit(&r, Category::Yahtzee) | bit(&r, Category::Twos);
        assert!(r.is_joker(filled, &d("22222")));
        assert_eq!(score(&r, Category::FullHouse, "22222", filled), 25);
        // Yahtzee box open: no Joker, five of a kind is no Full House.
        assert!(!r.is_joker(bit(&r, Category::Twos), &d("22222")));
        assert_eq!(
            score(&r, Category::FullHouse, "22222", bit(&r, Category::Twos)),
            0
        );
        assert_eq!(
            r.legal_boxes(bit(&r, Category::Twos), &d("22222")),
            r.full_mask() & !bit(&r, Category::Twos)
        );
    }

    #[test]
    fn free_joker_any_box_with_fixed_values_only_if_upper_face_filled() {
        let r = Rules::new(RuleSet::YahtzeeFreeJoker);
        let y = bit(&r, Category::Yahtzee);
        // Upper box of the face open: any open box, straights and full house score 0.
        assert_eq!(r.legal_boxes(y, &d("44444")), r.full_mask() & !y);
        assert_eq!(score(&r, Category::FullHouse, "44444", y), 0);
        assert_eq!(score(&r, Category::LargeStraight, "44444", y), 0);
        assert_eq!(score(&r, Category::Chance, "44444", y), 20);
        assert_eq!(score(&r, Category::Fours, "44444", y), 20);
        // Upper box of the face filled: fixed values.
        let f = y | bit(&r, Category::Fours);
        assert_eq!(score(&r, Category::FullHouse, "44444", f), 25);
        assert_eq!(score(&r, Category::SmallStraight, "44444", f), 30);
        assert_eq!(score(&r, Category::LargeStraight, "44444", f), 40);
        assert_eq!(score(&r, Category::Ones, "44444", f), 0);
        assert_eq!(r.legal_boxes(f, &d("44444")), r.full_mask() & !f);
        // Everything but the upper section filled: any open upper box, scoring normally.
        let g = (r.full_mask() & !UPPER_MASK) | bit(&r, Category::Fours);
        assert_eq!(
            r.legal_boxes(g, &d("44444")),
            UPPER_MASK & !bit(&r, Category::Fours)
        );
    }

    #[test]
    fn plain_rules_have_no_joker_and_no_yahtzee_bonus() {
        let r = Rules::new(RuleSet::YahtzeePlain);
        let y = bit(&r, Category::Yahtzee) | bit(&r, Category::Fours);
        assert!(!r.is_joker(y, &d("44444")));
        assert_eq!(score(&r, Category::FullHouse, "44444", y), 0);
        assert_eq!(score(&r, Category::LargeStraight, "44444", y), 0);
        assert_eq!(r.legal_boxes(y, &d("44444")), r.full_mask() & !y);
        assert!(r.has_upper_bonus() && !r.has_yahtzee_bonus());
    }

    #[test]
    fn upper_first_restricts_lower_boxes() {
        for set in RuleSet::ALL {
            let r = Rules::with_order(set, Order::UpperFirst);
            assert_eq!(r.legal_boxes(0, &d("12345")), UPPER_MASK);
            assert_eq!(r.legal_boxes(0b11_1110, &d("12345")), 1);
            assert_eq!(
                r.legal_boxes(UPPER_MASK, &d("12345")),
                r.full_mask() & !UPPER_MASK
            );
            assert!(r.order_allows(UPPER_MASK | 1 << 7));
            assert!(!r.order_allows(1 << 7));
        }
        // Under the forced Joker the Yahtzee box is filled only after the upper section, so a
        // Joker goes to an open lower box.
        let r = Rules::with_order(RuleSet::Yahtzee, Order::UpperFirst);
        let filled = UPPER_MASK | bit(&r, Category::Yahtzee);
        assert_eq!(r.legal_boxes(filled, &d("33333")), r.full_mask() & !filled);
    }

    #[test]
    fn rules_serialize_as_name_and_upper_first() {
        let r = Rules::with_order(RuleSet::Yacht, Order::UpperFirst);
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, r#"{"rules":"yacht","upper_first":true}"#);
        assert_eq!(serde_json::from_str::<Rules>(&json).unwrap(), r);
    }

    #[test]
    fn possible_scores_cover_joker_values() {
        let r = Rules::new(RuleSet::Yahtzee);
        let fh = r.box_index(Category::FullHouse).unwrap();
        assert_eq!(r.possible_scores(fh), vec![0, 25]);
        let ones = r.box_index(Category::Ones).unwrap();
        assert_eq!(r.possible_scores(ones), vec![0, 1, 2, 3, 4, 5]);
        let chance = r.box_index(Category::Chance).unwrap();
        assert_eq!(r.possible_scores(chance), (5..=30).collect::<Vec<_>>());
        let y = Rules::new(RuleSet::Yacht);
        let yfh = y.box_index(Category::FullHouse).unwrap();
        assert!(!y.possible_scores(yfh).contains(&5));
        assert!(y.possible_scores(yfh).contains(&7));
    }
}
