//! The rule sets, as data: which boxes a card has, what each box scores, the bonuses, the
//! Joker rule and the fill order.
//!
//! Each rule set of `shared/RULES.md` is one constant [`RuleSet`] description: its boxes in
//! card order (name, aliases, section, how the box scores), the upper bonus (threshold and
//! points, or none), the bonus for a further five of a kind and the Joker convention (or
//! none). The fill-order modifier ([`Order`]) applies to any of them, and a rule set with its
//! modifier is a [`Rules`]. Everything else (the state, the solver, advice, statistics, the
//! game) asks these descriptions; no code matches on a rule set's name. Adding a rule set
//! means adding one rules file to `data/rules/` ([`file::SHIPPED`]) and its golden value to
//! the tests; a rules file the user gives is loaded the same way ([`file`]).
//!
//! Two facts about every description are relied on by the state encoding and checked by a
//! test that walks every description: the upper boxes, when there are any, are the first six,
//! Ones to Sixes in face order (bit `f - 1` of a card's mask is the box of face `f`), and a
//! rule set with a five-of-a-kind bonus or a Joker has exactly one five-of-a-kind box.

use std::fmt;
use std::sync::LazyLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::game::dice::{DICE, Dice, DiceSpace, FACES};

pub mod file;

/// A set of boxes of one card, bit `i` for the box at position `i` of [`Rules::boxes`].
pub type BoxMask = yahtzee_kernel::BoxMask;

/// The most boxes a card may have: 20, Maxi Yatzy's card. The tables are dense over the
/// cards, 2^n of them: at 20 boxes the expected-score values of Maxi Yatzy (85 upper totals,
/// 8 bytes each) take 2^20 × 85 × 8 bytes = 713 MB while solving; each box more doubles that
/// (1.4 GB at 21, 5.7 GB at 23), past what a solve may use (4 GiB). A [`BoxMask`] has 32
/// bits, and the solver keeps one spare successor slot (see `solver`).
pub const MAX_BOXES: usize = yahtzee_kernel::MAX_BOXES;

/// Mask of the six upper boxes: in every rule set with an upper section they are the first
/// six, Ones to Sixes.
pub const UPPER_MASK: BoxMask = 0b11_1111;

/// The largest upper-bonus threshold the state encoding supports: the most the upper section
/// of six dice adds up to (6 × 21), so every threshold a card can reach (Maxi Yatzy's 84
/// included). The reachable upper totals of a card are a 128-bit set of totals 0 to the
/// threshold (the state's `UpperTotals`).
pub const MAX_UPPER_THRESHOLD: u32 = 126;

/// The section of the card a box belongs to.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Section {
    /// Ones to Sixes, which count towards the upper bonus.
    Upper,
    /// Every other box.
    Lower,
}

/// What an of-a-kind box adds up.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Sum {
    /// All five dice (Yahtzee, Yacht).
    AllDice,
    /// Only the matching dice (Scandinavian Yatzy).
    Matching,
    /// A fixed number of points, not a sum (a house rule's four of a kind of 40).
    Points(u32),
}

/// How a box scores a roll.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Scoring {
    /// The sum of the dice showing this face.
    Face(u8),
    /// At least `count` dice show the same face: the sum of all five dice or of the `count`
    /// matching dice. Five of a kind counts.
    OfAKind {
        /// Dice needed of one face.
        count: u8,
        /// What is added up.
        sum: Sum,
    },
    /// At least two dice show the same face: the two dice of the highest such face.
    OnePair,
    /// Two different faces each show at least twice: those four dice (the two highest such
    /// faces, with six dice).
    TwoPairs,
    /// Three different faces each show at least twice (six dice): those six dice.
    ThreePairs,
    /// Three of one face and two of a different face (five of a kind is one only when
    /// `five_of_a_kind` says so, as in Yacht Dice): a fixed number of points, or the sum of
    /// those five dice when `fixed` is `None` (with six dice, the best three and two).
    FullHouse {
        /// The points of a full house, or `None` for the sum of the dice.
        fixed: Option<u32>,
        /// True when five of a kind counts as a full house by itself (Yacht Dice).
        five_of_a_kind: bool,
    },
    /// A run of `length` consecutive faces among the dice, starting at one of `starts`.
    Straight {
        /// Faces in the run.
        length: u8,
        /// The lowest faces a run may start at, bit `f - 1` for face `f` (a mask, so that a
        /// description is plain data, read from a rules file as easily as written here).
        starts: u8,
        /// Points of the straight, or `None` for the sum of the dice.
        points: Option<u32>,
    },
    /// Three of one face and three of another (six dice, Maxi Yatzy's villa): a fixed
    /// number of points, or the sum of the six dice when `fixed` is `None`.
    Villa {
        /// The points of a villa, or `None` for the sum of the dice.
        fixed: Option<u32>,
    },
    /// Four of one face and two of another (six dice, Maxi Yatzy's tower): a fixed number
    /// of points, or the sum of the six dice when `fixed` is `None`.
    Tower {
        /// The points of a tower, or `None` for the sum of the dice.
        fixed: Option<u32>,
    },
    /// All the dice show the same face: five of a kind, or six with six dice (the Maxi
    /// Yatzy).
    FiveOfAKind {
        /// Points of the box.
        points: u32,
    },
    /// Anything: the sum of the dice.
    Chance,
}

impl Scoring {
    /// Points for `dice` by the box's own condition (no Joker).
    pub fn score(&self, dice: &Dice) -> u32 {
        let c = dice.counts();
        let sum = dice.sum();
        // The highest face shown at least `n` times, if any.
        let highest_with = |n: u8| (0..FACES).rev().find(|&f| c[f] >= n).map(|f| f as u32 + 1);
        match *self {
            Scoring::Face(face) => u32::from(face) * u32::from(c[usize::from(face) - 1]),
            Scoring::OfAKind { count, sum: how } => match (highest_with(count), how) {
                (None, _) => 0,
                (Some(_), Sum::AllDice) => sum,
                (Some(face), Sum::Matching) => face * u32::from(count),
                (Some(_), Sum::Points(points)) => points,
            },
            Scoring::OnePair => highest_with(2).map_or(0, |face| 2 * face),
            Scoring::TwoPairs | Scoring::ThreePairs => {
                let wanted = if *self == Scoring::TwoPairs { 2 } else { 3 };
                // The highest faces shown at least twice: the best pairs.
                let pairs: Vec<u32> = (0..FACES)
                    .rev()
                    .filter(|&f| c[f] >= 2)
                    .map(|f| f as u32 + 1)
                    .take(wanted)
                    .collect();
                if pairs.len() == wanted {
                    2 * pairs.iter().sum::<u32>()
                } else {
                    0
                }
            }
            Scoring::FullHouse {
                fixed,
                five_of_a_kind,
            } => match two_groups(&c, 3, 2) {
                Some(matching) => fixed.unwrap_or(matching),
                None if five_of_a_kind && dice.five_of_a_kind().is_some() => fixed.unwrap_or(sum),
                None => 0,
            },
            Scoring::Villa { fixed } => two_groups(&c, 3, 3).map_or(0, |_| fixed.unwrap_or(sum)),
            Scoring::Tower { fixed } => two_groups(&c, 4, 2).map_or(0, |_| fixed.unwrap_or(sum)),
            Scoring::Straight {
                length,
                starts,
                points,
            } => {
                let run = |from: u8| (from..from + length).all(|f| c[usize::from(f) - 1] > 0);
                if (1..=FACES as u8).any(|s| starts & (1 << (s - 1)) != 0 && run(s)) {
                    points.unwrap_or(sum)
                } else {
                    0
                }
            }
            Scoring::FiveOfAKind { points } => {
                if dice.five_of_a_kind().is_some() {
                    points
                } else {
                    0
                }
            }
            Scoring::Chance => sum,
        }
    }

    /// The fewest dice that can score this box: six for three pairs, a villa and a tower,
    /// the count of an of-a-kind box, the length of a straight (a rules file's check).
    pub fn least_dice(&self) -> usize {
        match *self {
            Scoring::ThreePairs | Scoring::Villa { .. } | Scoring::Tower { .. } => 6,
            Scoring::OfAKind { count, .. } => usize::from(count),
            Scoring::Straight { length, .. } => usize::from(length),
            _ => 0,
        }
    }

    /// Points for five of a kind scored as a Joker, "as if it met the condition": the fixed
    /// points of a full house or a straight, and otherwise what the box scores anyway.
    fn joker_points(&self, dice: &Dice) -> u32 {
        match *self {
            Scoring::FullHouse { fixed, .. } => fixed.unwrap_or(dice.sum()),
            Scoring::Straight { points, .. } => points.unwrap_or(dice.sum()),
            _ => self.score(dice),
        }
    }

    /// True for the boxes whose Joker value differs from their own score: a full house and
    /// the straights, which five of a kind does not meet by itself.
    fn joker_changes(&self) -> bool {
        matches!(self, Scoring::FullHouse { .. } | Scoring::Straight { .. })
    }

    /// What the box scores, in words, in a game of `dice` dice.
    pub fn describe(&self, dice: usize) -> String {
        let points = |p: u32| format!("{p}");
        let runs = |length: u8, starts: u8| {
            (1..=FACES as u8)
                .filter(|s| starts & (1 << (s - 1)) != 0)
                .map(|s| {
                    (s..s + length)
                        .map(|f| f.to_string())
                        .collect::<Vec<_>>()
                        .join("-")
                })
                .collect::<Vec<_>>()
                .join(" or ")
        };
        match *self {
            Scoring::Face(f) => format!("the sum of the dice showing {f}"),
            Scoring::OfAKind { count, sum } => format!(
                "at least {count} dice of one face: {}",
                match sum {
                    Sum::AllDice => format!("the sum of all {} dice", words(dice)),
                    Sum::Matching => format!("the sum of those {count} dice"),
                    Sum::Points(p) => points(p),
                }
            ),
            Scoring::OnePair => {
                "at least two dice of one face: the two dice of the highest such face".into()
            }
            Scoring::TwoPairs => {
                "two different faces at least twice each: the sum of those four dice".into()
            }
            Scoring::ThreePairs => {
                "three different faces at least twice each: the sum of those six dice".into()
            }
            Scoring::Villa { fixed } => format!(
                "three of one face and three of another: {}",
                fixed.map_or("the sum of the dice".to_string(), points)
            ),
            Scoring::Tower { fixed } => format!(
                "four of one face and two of another: {}",
                fixed.map_or("the sum of the dice".to_string(), points)
            ),
            Scoring::FullHouse {
                fixed,
                five_of_a_kind,
            } => format!(
                "three of one face and two of another{}: {}",
                if five_of_a_kind {
                    ", or five of a kind"
                } else {
                    ""
                },
                fixed.map_or(
                    if dice == DICE {
                        "the sum of the dice".to_string()
                    } else {
                        "the sum of the best such five dice".to_string()
                    },
                    points
                )
            ),
            Scoring::Straight {
                length,
                starts,
                points: p,
            } => {
                let p = p.map_or("the sum of the dice".to_string(), points);
                if usize::from(length) == dice {
                    format!("exactly {}: {p}", runs(length, starts))
                } else {
                    format!("{} among the dice: {p}", runs(length, starts))
                }
            }
            Scoring::FiveOfAKind { points: p } => {
                format!("all {} dice the same: {p}", words(dice))
            }
            Scoring::Chance => format!("any dice: the sum of all {} dice", words(dice)),
        }
    }
}

/// A number of dice in words: `five`, `six`.
fn words(dice: usize) -> String {
    crate::text::number_word(dice)
}

/// The best of two groups of different faces, `big` dice of one and `small` of another
/// (counts at least those): the sum of those dice, the highest such, or `None` when there
/// is none. A full house (3 + 2), a villa (3 + 3), a tower (4 + 2).
fn two_groups(c: &[u8; FACES], big: u8, small: u8) -> Option<u32> {
    let mut best = None;
    for a in 0..FACES {
        for b in 0..FACES {
            if a != b && c[a] >= big && c[b] >= small {
                let s = u32::from(big) * (a as u32 + 1) + u32::from(small) * (b as u32 + 1);
                best = best.max(Some(s));
            }
        }
    }
    best
}

/// One box of a score card.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Category {
    /// The name used on the command line and in files (`shared/RULES.md`).
    pub name: &'static str,
    /// The box as printed on a score card.
    pub title: &'static str,
    /// Other names accepted for it, lowercase.
    pub aliases: &'static [&'static str],
    /// The section it belongs to.
    pub section: Section,
    /// How it scores.
    pub scoring: Scoring,
}

impl Category {
    /// The name used on the command line and in files.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The face counted by an upper box (1 for Ones ... 6 for Sixes).
    pub fn upper_face(&self) -> Option<u8> {
        match (self.section, self.scoring) {
            (Section::Upper, Scoring::Face(f)) => Some(f),
            _ => None,
        }
    }

    /// True for the boxes of the upper section.
    pub fn is_upper(&self) -> bool {
        self.section == Section::Upper
    }

    /// True when the name or an alias is `key` (already normalised by [`normalise`]).
    fn is_called(&self, key: &str) -> bool {
        self.name == key || self.aliases.contains(&key)
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// A box name as typed, the way names are compared: lowercase, with spaces and underscores
/// read as hyphens (`Full House`, `full_house` and `full-house` are one name).
fn normalise(name: &str) -> String {
    name.trim()
        .chars()
        .map(|c| match c {
            ' ' | '_' => '-',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// The upper bonus: `points` once the upper boxes add up to `threshold` or more.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize)]
pub struct UpperBonus {
    /// The upper total that earns the bonus.
    pub threshold: u32,
    /// The bonus.
    pub points: u32,
}

/// How five of a kind rolled while the five-of-a-kind box is already filled may be scored.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Joker {
    /// No Joker: every box scores by its own condition.
    None,
    /// The official rule: the upper box of the face if open, else any open lower box (scoring
    /// as if its condition were met), else 0 in an open upper box.
    Forced,
    /// Any open box; a full house or a straight scores its fixed value only when the upper
    /// box of the face is filled too.
    Free,
}

impl Joker {
    /// The convention in words.
    pub fn describe(self) -> &'static str {
        match self {
            Joker::None => "no Joker: five of a kind scores every box by its own condition",
            Joker::Forced => {
                "forced Joker: with the five-of-a-kind box filled, five of a kind must go to the upper box of its face if open, else to any open lower box, scoring there as if it met the condition (full house and straights their fixed points), else 0 in an open upper box"
            }
            Joker::Free => {
                "free Joker: with the five-of-a-kind box filled, five of a kind may go to any open box; full house and straights score their fixed points only when the upper box of its face is filled too"
            }
        }
    }
}

/// A rule set of `shared/RULES.md`, described as data.
#[derive(Debug)]
pub struct RuleSet {
    /// The name used on the command line and in files.
    pub name: &'static str,
    /// What it is, in one line.
    pub summary: &'static str,
    /// The boxes in card order.
    pub boxes: &'static [Category],
    /// The upper bonus, if any.
    pub upper_bonus: Option<UpperBonus>,
    /// Points for each further five of a kind rolled while the five-of-a-kind box holds its
    /// points (Yahtzee's 100), if any.
    pub five_of_a_kind_bonus: Option<u32>,
    /// The Joker convention.
    pub joker: Joker,
    /// The rules file it was loaded from, when it is no built-in rule set (for the command
    /// lines suggested in messages).
    pub file: Option<&'static str>,
    /// The dice: five, or six (Maxi Yatzy).
    pub dice: DiceSpace,
    /// Rolls a turn: 1 to [`MAX_ROLLS_A_TURN`] (3 in every game but a house rule's).
    pub rolls: u8,
    /// Saved rolls (Maxi Yatzy's printed rule, `shared/RULES.md` section 8): the re-rolls a
    /// turn leaves unused when it scores are kept for later turns.
    pub saved_rolls: bool,
}

/// The most rolls a turn a rule set may have (a house rule's four).
pub const MAX_ROLLS_A_TURN: u8 = 4;

impl PartialEq for RuleSet {
    fn eq(&self, other: &RuleSet) -> bool {
        self.name == other.name
    }
}

impl Eq for RuleSet {}

impl std::hash::Hash for RuleSet {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl Serialize for RuleSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name)
    }
}

impl<'de> Deserialize<'de> for &'static RuleSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<&'static RuleSet, D::Error> {
        let name = String::deserialize(d)?;
        RuleSet::from_name(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown rule set `{}`: the rule sets are {} (or a rules file's, once loaded with --rules PATH)",
                crate::text::excerpt(&name),
                RuleSet::names().join(", ")
            ))
        })
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

const fn upper(
    name: &'static str,
    title: &'static str,
    face: u8,
    aliases: &'static [&'static str],
) -> Category {
    Category {
        name,
        title,
        aliases,
        section: Section::Upper,
        scoring: Scoring::Face(face),
    }
}

const fn lower(
    name: &'static str,
    title: &'static str,
    aliases: &'static [&'static str],
    scoring: Scoring,
) -> Category {
    Category {
        name,
        title,
        aliases,
        section: Section::Lower,
        scoring,
    }
}

const ONES: Category = upper("ones", "Ones", 1, &["1", "1s", "aces"]);
const TWOS: Category = upper("twos", "Twos", 2, &["2", "2s"]);
const THREES: Category = upper("threes", "Threes", 3, &["3", "3s"]);
const FOURS: Category = upper("fours", "Fours", 4, &["4", "4s"]);
const FIVES: Category = upper("fives", "Fives", 5, &["5", "5s"]);
const SIXES: Category = upper("sixes", "Sixes", 6, &["6", "6s"]);

/// Three or four of a kind (`count`), scoring `sum`.
const fn of_a_kind(count: u8, sum: Sum) -> Category {
    let (name, title, aliases): (&str, &str, &[&str]) = if count == 3 {
        ("three-of-a-kind", "Three of a kind", &["3k", "3ok", "toak"])
    } else {
        ("four-of-a-kind", "Four of a kind", &["4k", "4ok", "foak"])
    };
    lower(name, title, aliases, Scoring::OfAKind { count, sum })
}

/// Full House: `fixed` points, or the sum of the dice when `None`.
const fn full_house(fixed: Option<u32>) -> Category {
    let scoring = Scoring::FullHouse {
        fixed,
        five_of_a_kind: false,
    };
    lower("full-house", "Full House", &["fh", "full"], scoring)
}

/// A straight of `length` faces starting at one of `starts`, for `points`.
const fn straight(length: u8, starts: u8, points: u32) -> Scoring {
    Scoring::Straight {
        length,
        starts,
        points: Some(points),
    }
}

/// Small Straight: a run of `length` faces starting at one of `starts`, for `points`.
const fn small_straight(length: u8, starts: u8, points: u32) -> Category {
    let scoring = straight(length, starts, points);
    lower(
        "small-straight",
        "Small Straight",
        &["ss", "sm", "small"],
        scoring,
    )
}

/// Large Straight: five faces in a row starting at one of `starts`, for `points`.
const fn large_straight(starts: u8, points: u32) -> Category {
    let scoring = straight(5, starts, points);
    lower(
        "large-straight",
        "Large Straight",
        &["ls", "lg", "large"],
        scoring,
    )
}

/// The box of five of a kind, for 50.
const fn five_of_a_kind(
    name: &'static str,
    title: &'static str,
    aliases: &'static [&'static str],
) -> Category {
    lower(name, title, aliases, Scoring::FiveOfAKind { points: 50 })
}

/// A card of `N` boxes: the six upper boxes, then `lower`.
const fn card<const L: usize, const N: usize>(lower: [Category; L]) -> [Category; N] {
    assert!(N == 6 + L, "N is the six upper boxes and the lower ones");
    let upper = [ONES, TWOS, THREES, FOURS, FIVES, SIXES];
    let mut boxes = [ONES; N];
    let mut i = 0;
    while i < N {
        boxes[i] = if i < 6 { upper[i] } else { lower[i - 6] };
        i += 1;
    }
    boxes
}

const CHANCE: Category = lower("chance", "Chance", &["c", "ch"], Scoring::Chance);

const YAHTZEE_BOXES: [Category; 13] = card([
    of_a_kind(3, Sum::AllDice),
    of_a_kind(4, Sum::AllDice),
    full_house(Some(25)),
    small_straight(4, 0b111, 30),
    large_straight(0b11, 40),
    five_of_a_kind("yahtzee", "Yahtzee", &["y", "yz"]),
    CHANCE,
]);

const YACHT_BOXES: [Category; 12] = card([
    full_house(None),
    of_a_kind(4, Sum::AllDice),
    lower(
        "little-straight",
        "Little Straight",
        &["ls", "little"],
        straight(5, 0b1, 30),
    ),
    lower(
        "big-straight",
        "Big Straight",
        &["bs", "big"],
        straight(5, 0b10, 30),
    ),
    lower("choice", "Choice", &["c", "ch", "chance"], Scoring::Chance),
    five_of_a_kind("yacht", "Yacht", &["y"]),
]);

const YATZY_BOXES: [Category; 15] = card([
    lower(
        "one-pair",
        "One Pair",
        &["pair", "1p", "op"],
        Scoring::OnePair,
    ),
    lower("two-pairs", "Two Pairs", &["2p", "tp"], Scoring::TwoPairs),
    of_a_kind(3, Sum::Matching),
    of_a_kind(4, Sum::Matching),
    small_straight(5, 0b1, 15),
    large_straight(0b10, 20),
    full_house(None),
    CHANCE,
    five_of_a_kind("yatzy", "Yatzy", &["y", "yz"]),
]);

/// The upper bonus of Yahtzee: 35 for 63 or more.
const YAHTZEE_UPPER_BONUS: UpperBonus = UpperBonus {
    threshold: 63,
    points: 35,
};

// The compiled rule sets are statics, each at one address (`RuleSet::YAHTZEE` ... refer to
// them): a reference made by a `const` item would be a copy per use, whose addresses differ
// between codegen units.
static YAHTZEE_SET: RuleSet = YAHTZEE_RULES;

static YAHTZEE_FREE_JOKER_SET: RuleSet = RuleSet {
    name: "yahtzee-free-joker",
    summary: "Yahtzee with the free Joker of Verhoeff's optimal solitaire player",
    joker: Joker::Free,
    ..YAHTZEE_RULES
};

static YAHTZEE_PLAIN_SET: RuleSet = RuleSet {
    name: "yahtzee-plain",
    summary: "Yahtzee without the Yahtzee bonus and without the Joker",
    five_of_a_kind_bonus: None,
    joker: Joker::None,
    ..YAHTZEE_RULES
};

static YACHT_SET: RuleSet = RuleSet {
    name: "yacht",
    summary: "Yacht, the older public-domain game: 12 boxes, no bonuses, no Joker",
    boxes: &YACHT_BOXES,
    ..FIVE_DICE
};

static YATZY_SET: RuleSet = RuleSet {
    name: "yatzy",
    summary: "Scandinavian Yatzy: 15 boxes, upper bonus 50, no Yatzy bonus, no Joker",
    boxes: &YATZY_BOXES,
    upper_bonus: Some(UpperBonus {
        threshold: 63,
        points: 50,
    }),
    ..FIVE_DICE
};

/// What the compiled rule sets share: five dice, three rolls a turn, no rolls saved, no rules
/// file; and, unless a set says otherwise, no bonus and no Joker. Each set gives its own
/// name, summary and boxes.
const FIVE_DICE: RuleSet = RuleSet {
    name: "",
    summary: "",
    boxes: &[],
    upper_bonus: None,
    five_of_a_kind_bonus: None,
    joker: Joker::None,
    file: None,
    dice: DiceSpace::FIVE,
    rolls: 3,
    saved_rolls: false,
};

/// Official Yahtzee, which its variants change.
const YAHTZEE_RULES: RuleSet = RuleSet {
    name: "yahtzee",
    summary: "Yahtzee, official rules: upper bonus, Yahtzee bonus, forced Joker",
    boxes: &YAHTZEE_BOXES,
    upper_bonus: Some(YAHTZEE_UPPER_BONUS),
    five_of_a_kind_bonus: Some(100),
    joker: Joker::Forced,
    ..FIVE_DICE
};

impl RuleSet {
    /// Official Yahtzee rules: upper bonus, Yahtzee bonus, forced Joker.
    pub const YAHTZEE: &'static RuleSet = &YAHTZEE_SET;

    /// Yahtzee with the free Joker of Verhoeff's optimal player.
    pub const YAHTZEE_FREE_JOKER: &'static RuleSet = &YAHTZEE_FREE_JOKER_SET;

    /// Yahtzee without the Yahtzee bonus and without the Joker.
    pub const YAHTZEE_PLAIN: &'static RuleSet = &YAHTZEE_PLAIN_SET;

    /// The older public-domain game: 12 boxes, no bonuses, no Joker.
    pub const YACHT: &'static RuleSet = &YACHT_SET;

    /// Scandinavian Yatzy: 15 boxes, an upper bonus of 50, no Yatzy bonus, no Joker.
    pub const YATZY: &'static RuleSet = &YATZY_SET;

    /// The compiled descriptions, the reference each shipped rules file of the same name is
    /// checked against (the shipped file is loaded as this very description).
    pub(crate) const COMPILED: [&'static RuleSet; 5] = [
        RuleSet::YAHTZEE,
        RuleSet::YAHTZEE_FREE_JOKER,
        RuleSet::YAHTZEE_PLAIN,
        RuleSet::YACHT,
        RuleSet::YATZY,
    ];

    /// Every built-in rule set, each loaded from its shipped rules file (`data/rules/`), in
    /// the order of `shared/RULES.md`.
    pub fn all() -> &'static [&'static RuleSet] {
        &file::BUILT_IN
    }

    /// The name used on the command line and in files.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The rule set called `name`: a built-in one, or one loaded from a rules file in this
    /// run (named `NAME-DIGEST`, see [`file::Description::intern`]).
    pub fn from_name(name: &str) -> Option<&'static RuleSet> {
        RuleSet::all()
            .iter()
            .copied()
            .find(|r| r.name == name)
            .or_else(|| file::loaded(name))
    }

    /// The identity of the game, whatever its name: the SHA-256 of its description
    /// ([`file::Description::digest`]), which a table's header holds and every load
    /// compares. Worked out from the description each time (microseconds): asked once per
    /// table read or written.
    pub fn digest(&self) -> file::GameDigest {
        file::Description::of(self, Order::Any).digest()
    }

    /// The names of every built-in rule set.
    pub fn names() -> Vec<&'static str> {
        RuleSet::all().iter().map(|r| r.name).collect()
    }

    /// Position in [`RuleSet::all`], for a built-in rule set.
    fn position(&self) -> Option<usize> {
        RuleSet::all().iter().position(|r| r.name == self.name)
    }

    /// Position of the five-of-a-kind box, if the card has one.
    pub fn five_of_a_kind_box(&self) -> Option<usize> {
        self.boxes
            .iter()
            .position(|c| matches!(c.scoring, Scoring::FiveOfAKind { .. }))
    }

    /// True when the whole game solves in seconds: a card of at most 15 boxes (Yatzy's 2^15
    /// cards take 3 s on two cores). Maxi Yatzy's 2^20 cards take about a minute and more than a
    /// gigabyte: the tests and fuzz targets that solve every built-in rule set solve those
    /// for which this holds.
    pub fn solves_in_seconds(&self) -> bool {
        self.boxes.len() <= 15
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

/// A complete description of the game being played: a rule set and the order modifier.
///
/// Serialized as the two fields every result and record carries, `"rules": "yahtzee"` and
/// `"upper_first": false`, so a result struct holds a `Rules` with `#[serde(flatten)]`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "RulesFields", into = "RulesFields")]
pub struct Rules {
    /// The rule set.
    pub set: &'static RuleSet,
    /// Whether the upper section must be filled first.
    pub order: Order,
    /// Position of the set's five-of-a-kind box ([`RuleSet::five_of_a_kind_box`]), found
    /// once: every box scored asks for it (a search of the card took a simulation about 2%).
    five_of_a_kind: Option<u8>,
}

impl fmt::Debug for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// How [`Rules`] is written in JSON.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFields {
    /// The rule set's name.
    rules: &'static RuleSet,
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
        Rules::with_order(f.rules, Order::upper_first(f.upper_first))
    }
}

impl Order {
    /// [`Order::UpperFirst`] when `upper_first`, else [`Order::Any`].
    pub fn upper_first(upper_first: bool) -> Order {
        if upper_first {
            Order::UpperFirst
        } else {
            Order::Any
        }
    }
}

impl Rules {
    /// The rule set with boxes filled in any order.
    pub fn new(set: &'static RuleSet) -> Rules {
        Rules::with_order(set, Order::Any)
    }

    /// The rule set with the given order modifier.
    pub fn with_order(set: &'static RuleSet, order: Order) -> Rules {
        Rules {
            set,
            order,
            five_of_a_kind: set.five_of_a_kind_box().map(|i| i as u8),
        }
    }

    /// Every built-in rule set with every order modifier.
    pub fn all() -> impl Iterator<Item = Rules> {
        RuleSet::all().iter().copied().flat_map(|set| {
            [Order::Any, Order::UpperFirst]
                .into_iter()
                .map(move |order| Rules::with_order(set, order))
        })
    }

    /// The command-line flags that select these rules, e.g. `--rules yacht --upper-first`,
    /// or `--rules PATH` for rules loaded from a file.
    pub fn flags(&self) -> String {
        let rules = match self.set.file {
            Some(path) => {
                let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+=:,@%~".contains(c);
                if path.chars().all(safe) {
                    path.to_string()
                } else {
                    format!("'{}'", path.replace('\'', r"'\''"))
                }
            }
            None => self.set.name.to_string(),
        };
        match self.order {
            Order::Any => format!("--rules {rules}"),
            Order::UpperFirst => format!("--rules {rules} --upper-first"),
        }
    }

    /// A short label, e.g. `yahtzee` or `yacht (upper first)`.
    pub fn label(&self) -> String {
        match self.order {
            Order::Any => self.set.name.to_string(),
            Order::UpperFirst => format!("{} (upper first)", self.set.name),
        }
    }

    /// The dice of the game: five, or six.
    pub fn dice(&self) -> DiceSpace {
        self.set.dice
    }

    /// Rolls a turn: 3, or a house rule's 1, 2 or 4.
    pub fn rolls(&self) -> u8 {
        self.set.rolls
    }

    /// True when the re-rolls a turn leaves unused are saved for later turns (the rule of
    /// saved rolls, `shared/RULES.md` section 8).
    pub fn saved_rolls(&self) -> bool {
        self.set.saved_rolls
    }

    /// The most rolls saved at the start of a turn with `turns_played` turns played: the
    /// re-rolls of a turn (its rolls less one) for each, none without the rule.
    pub fn most_saved_rolls(&self, turns_played: usize) -> usize {
        if self.saved_rolls() {
            usize::from(self.rolls() - 1) * turns_played
        } else {
            0
        }
    }

    /// The rolls left a decision of a turn may have: 0 (the dice are final) to one less
    /// than the rolls a turn.
    pub fn most_rolls_left(&self) -> u8 {
        self.set.rolls - 1
    }

    /// The rolls left of a turn's decisions in the order they come: 2, 1, 0 in a game of
    /// three rolls a turn.
    pub fn rolls_left_in_turn(&self) -> std::iter::Rev<std::ops::RangeInclusive<u8>> {
        (0..=self.most_rolls_left()).rev()
    }

    /// The rolls left a decision may have, in words: `0, 1 or 2` in a game of three rolls
    /// a turn.
    pub fn rolls_left_allowed(&self) -> String {
        let most = self.most_rolls_left();
        if most == 0 {
            return "0 (one roll a turn)".to_string();
        }
        let fewer: Vec<String> = (0..most).map(|n| n.to_string()).collect();
        format!("{} or {most}", fewer.join(", "))
    }

    /// The boxes of the card in card order.
    pub fn boxes(&self) -> &'static [Category] {
        self.set.boxes
    }

    /// The names of the boxes in `mask`, in card order, joined by commas.
    pub fn names_of(&self, mask: BoxMask) -> String {
        self.boxes()
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, c)| c.name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Number of boxes (and of turns).
    pub fn box_count(&self) -> usize {
        self.set.boxes.len()
    }

    /// Mask with every box filled.
    pub fn full_mask(&self) -> BoxMask {
        ((1u32 << self.box_count()) - 1) as BoxMask
    }

    /// Mask of the upper boxes of this card (the first six, or none).
    pub fn upper_mask(&self) -> BoxMask {
        if self.boxes().first().is_some_and(Category::is_upper) {
            UPPER_MASK
        } else {
            0
        }
    }

    /// Looks a box up by its name or an alias, in any case, spaces and underscores read as
    /// hyphens: the one way a box is named everywhere (`--card`, `play`, batch queries, game
    /// records, exports).
    pub fn box_by_name(&self, name: &str) -> Option<usize> {
        let key = normalise(name);
        self.boxes().iter().position(|c| c.is_called(&key))
    }

    /// The upper bonus, if these rules have one.
    pub fn upper_bonus(&self) -> Option<UpperBonus> {
        self.set.upper_bonus
    }

    /// True when the rules award a bonus for an upper section reaching its threshold.
    pub fn has_upper_bonus(&self) -> bool {
        self.set.upper_bonus.is_some()
    }

    /// The upper-bonus threshold (63), or 0 without an upper bonus.
    pub fn upper_threshold(&self) -> u32 {
        self.set.upper_bonus.map_or(0, |b| b.threshold)
    }

    /// The upper bonus's points (35 or 50), or 0 without an upper bonus.
    pub fn upper_bonus_points(&self) -> u32 {
        self.set.upper_bonus.map_or(0, |b| b.points)
    }

    /// True when the rules award a bonus for each further five of a kind.
    pub fn has_yahtzee_bonus(&self) -> bool {
        self.set.five_of_a_kind_bonus.is_some()
    }

    /// The bonus for each further five of a kind (100), or 0.
    pub fn yahtzee_bonus_points(&self) -> u32 {
        self.set.five_of_a_kind_bonus.unwrap_or(0)
    }

    /// The Joker convention.
    pub fn joker(&self) -> Joker {
        self.set.joker
    }

    /// Position of the box that scores five of a kind, if the card has one.
    pub fn five_of_a_kind_box(&self) -> Option<usize> {
        self.five_of_a_kind.map(usize::from)
    }

    /// The points of the five-of-a-kind box (50), or 0 without one.
    pub fn five_of_a_kind_points(&self) -> u32 {
        match self.five_of_a_kind_box().map(|i| self.boxes()[i].scoring) {
            Some(Scoring::FiveOfAKind { points }) => points,
            _ => 0,
        }
    }

    /// True when filling box `index` with `points` sets the state's flag that further five
    /// of a kind earn the bonus: the five-of-a-kind box filled with its full points, in
    /// rules with that bonus.
    pub fn sets_bonus_flag(&self, index: usize, points: u32) -> bool {
        self.has_yahtzee_bonus()
            && Some(index) == self.five_of_a_kind_box()
            && points == self.five_of_a_kind_points()
    }

    /// Score of box `index` by its own condition, without any Joker.
    pub fn base_score(&self, index: usize, dice: &Dice) -> u32 {
        self.boxes()[index].scoring.score(dice)
    }

    /// True when `dice` fall under the Joker rule on a card with `filled` boxes: five of a
    /// kind rolled while the five-of-a-kind box is filled, in a rule set with a Joker.
    pub fn is_joker(&self, filled: BoxMask, dice: &Dice) -> bool {
        self.joker() != Joker::None
            && dice.five_of_a_kind().is_some()
            && self
                .five_of_a_kind_box()
                .is_some_and(|b| filled & (1 << b) != 0)
    }

    /// Points the box at position `index` scores for `dice` on a card with `filled` boxes,
    /// Joker included. The box must be one of [`Rules::legal_boxes`].
    pub fn score(&self, index: usize, dice: &Dice, filled: BoxMask) -> u32 {
        let scoring = self.boxes()[index].scoring;
        let base = scoring.score(dice);
        if !scoring.joker_changes() || !self.is_joker(filled, dice) {
            return base;
        }
        match self.joker() {
            Joker::Forced => scoring.joker_points(dice),
            Joker::Free => {
                let face = dice.five_of_a_kind().unwrap_or(1);
                if filled & (1 << (face - 1)) & self.upper_mask() != 0 {
                    scoring.joker_points(dice)
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
        if self.joker() != Joker::Forced || !self.is_joker(filled, dice) {
            return allowed;
        }
        let upper = self.upper_mask();
        let face = dice.five_of_a_kind().unwrap_or(1);
        let own_upper: BoxMask = (1 << (face - 1)) & upper;
        let forced = if open & own_upper != 0 {
            own_upper
        } else if open & !upper != 0 {
            open & !upper
        } else {
            open & upper
        };
        forced & allowed
    }

    /// The open boxes the order modifier allows, whatever the dice.
    pub fn open_by_order(&self, filled: BoxMask) -> BoxMask {
        let open = self.full_mask() & !filled;
        let upper = self.upper_mask();
        match self.order {
            Order::UpperFirst if open & upper != 0 => open & upper,
            _ => open,
        }
    }

    /// True when a card with these boxes filled can arise under the order modifier.
    pub fn order_allows(&self, filled: BoxMask) -> bool {
        let upper = self.upper_mask();
        match self.order {
            Order::Any => true,
            Order::UpperFirst => filled & !upper == 0 || filled & upper == upper,
        }
    }

    /// Every score the box at `index` can ever hold under these rules, ascending.
    pub fn possible_scores(&self, index: usize) -> &'static [u32] {
        // Worked out once per rule set: checking a card asks for them on every filled box.
        static SCORES: LazyLock<Vec<Vec<Vec<u32>>>> = LazyLock::new(|| {
            RuleSet::all()
                .iter()
                .map(|&set| {
                    let rules = Rules::new(set);
                    (0..rules.box_count())
                        .map(|i| rules.enumerate_scores(i))
                        .collect()
                })
                .collect()
        });
        match self.set.position() {
            Some(p) => &SCORES[p][index],
            None => &file::loaded_scores(self.set)[index],
        }
    }

    /// The most points box `index` can score, Joker included.
    pub fn max_score(&self, index: usize) -> u32 {
        self.possible_scores(index).last().copied().unwrap_or(0)
    }

    fn enumerate_scores(&self, index: usize) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        let everything_but = self.full_mask() & !(1 << index);
        // The Joker changes a score only for a card with the five-of-a-kind box filled; try
        // every card that differs in what the Joker depends on: the upper boxes filled.
        let five = self.five_of_a_kind_box().map_or(0, |b| 1 << b);
        let cards: Vec<BoxMask> = (0..=UPPER_MASK)
            .map(|upper| (upper | five) & everything_but)
            .chain([0])
            .collect();
        for dice in self.dice().all_rolls() {
            for &filled in &cards {
                out.push(self.score(index, &dice, filled));
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// One box as `yahtzee rules` prints it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoxCard {
    /// Position on the card, from 1.
    pub position: usize,
    /// The name used on the command line and in files.
    pub name: &'static str,
    /// The box as printed on a score card.
    pub title: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
    /// `upper` or `lower`.
    pub section: Section,
    /// What it scores, in words.
    pub scores: String,
    /// Every score it can hold, as ranges.
    pub possible: String,
}

/// The card of a rule set: what `yahtzee rules` prints.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RulesCard {
    /// The rules.
    #[serde(flatten)]
    pub rules: Rules,
    /// What the rule set is.
    pub summary: &'static str,
    /// The number of dice: five, or six.
    pub dice: usize,
    /// Rolls a turn: 3, or a house rule's 1, 2 or 4.
    pub rolls: u8,
    /// The rule of saved rolls: the re-rolls a turn leaves unused are kept for later turns.
    pub saved_rolls: bool,
    /// The boxes in card order.
    pub boxes: Vec<BoxCard>,
    /// The upper bonus, if any.
    pub upper_bonus: Option<UpperBonus>,
    /// Points for each further five of a kind, if any.
    pub five_of_a_kind_bonus: Option<u32>,
    /// The Joker convention.
    pub joker: Joker,
    /// The Joker convention in words.
    pub joker_rule: &'static str,
    /// The fill-order rule in words.
    pub order_rule: &'static str,
    /// The highest possible final score.
    pub highest_score: u32,
}

impl RulesCard {
    /// The card of `rules`.
    pub fn of(rules: Rules) -> RulesCard {
        let boxes = rules
            .boxes()
            .iter()
            .enumerate()
            .map(|(i, c)| BoxCard {
                position: i + 1,
                name: c.name,
                title: c.title,
                aliases: c.aliases,
                section: c.section,
                scores: c.scoring.describe(rules.dice().dice()),
                possible: describe_scores(rules.possible_scores(i)),
            })
            .collect();
        RulesCard {
            rules,
            summary: rules.set.summary,
            dice: rules.dice().dice(),
            rolls: rules.rolls(),
            saved_rolls: rules.saved_rolls(),
            boxes,
            upper_bonus: rules.upper_bonus(),
            five_of_a_kind_bonus: rules.set.five_of_a_kind_bonus,
            joker: rules.joker(),
            joker_rule: rules.joker().describe(),
            order_rule: match rules.order {
                Order::Any => "the boxes may be filled in any order",
                Order::UpperFirst => "no lower box may be filled while an upper box is open",
            },
            highest_score: highest_score(&rules),
        }
    }
}

/// The highest final score of a game under `rules`: the best box of each kind, the upper
/// bonus, and a further five of a kind on every turn after the five-of-a-kind box where that
/// earns a bonus.
pub fn highest_score(rules: &Rules) -> u32 {
    let boxes: u32 = (0..rules.box_count()).map(|i| rules.max_score(i)).sum();
    let bonus_turns = rules.box_count().saturating_sub(1) as u32;
    boxes + rules.upper_bonus_points() + rules.yahtzee_bonus_points() * bonus_turns
}

/// Describes a sorted set of scores compactly: `0, 25` or `0, 5 to 30`.
pub fn describe_scores(scores: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < scores.len() {
        let mut j = i;
        while j + 1 < scores.len() && scores[j + 1] == scores[j] + 1 {
            j += 1;
        }
        if j >= i + 2 {
            parts.push(format!("{} to {}", scores[i], scores[j]));
        } else {
            parts.extend(scores[i..=j].iter().map(u32::to_string));
        }
        i = j + 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Dice {
        s.parse().unwrap()
    }

    fn idx(rules: &Rules, name: &str) -> usize {
        rules.box_by_name(name).unwrap()
    }

    fn bit(rules: &Rules, name: &str) -> BoxMask {
        1 << idx(rules, name)
    }

    fn score(rules: &Rules, name: &str, dice: &str, filled: BoxMask) -> u32 {
        rules.score(idx(rules, name), &d(dice), filled)
    }

    /// Asserts each case of `cases` under `rules` with the boxes `filled` filled: a case is a
    /// box and what it scores with some dice, as `box dice=points dice=points ..`. A failure
    /// names the case.
    fn assert_scores(rules: &Rules, filled: BoxMask, cases: &[&str]) {
        for case in cases {
            let mut words = case.split_whitespace();
            let name = words.next().unwrap();
            for pair in words {
                let (dice, want) = pair.split_once('=').unwrap();
                assert_eq!(
                    score(rules, name, dice, filled),
                    want.parse::<u32>().unwrap(),
                    "{rules}: {name} of {dice}, boxes filled: [{}]",
                    rules.names_of(filled)
                );
            }
        }
    }

    const YAHTZEES: [&RuleSet; 3] = [
        RuleSet::YAHTZEE,
        RuleSet::YAHTZEE_FREE_JOKER,
        RuleSet::YAHTZEE_PLAIN,
    ];

    /// The test the module documentation promises: every description's boxes obey what the
    /// state encoding and the solver rely on.
    #[test]
    fn every_description_is_well_formed() {
        for &set in RuleSet::all() {
            let rules = Rules::new(set);
            assert!(set.boxes.len() <= MAX_BOXES, "{}", set.name);
            let uppers: Vec<usize> = (0..set.boxes.len())
                .filter(|&i| set.boxes[i].is_upper())
                .collect();
            if !uppers.is_empty() {
                assert_eq!(uppers, (0..6).collect::<Vec<_>>(), "{}", set.name);
                for (i, c) in set.boxes[..6].iter().enumerate() {
                    assert_eq!(c.upper_face(), Some(i as u8 + 1), "{}", set.name);
                }
            }
            if let Some(b) = set.upper_bonus {
                assert!(
                    !uppers.is_empty(),
                    "{}: an upper bonus needs upper boxes",
                    set.name
                );
                assert!(b.threshold <= MAX_UPPER_THRESHOLD, "{}", set.name);
            }
            let fives = set
                .boxes
                .iter()
                .filter(|c| matches!(c.scoring, Scoring::FiveOfAKind { .. }))
                .count();
            if set.five_of_a_kind_bonus.is_some() || set.joker != Joker::None {
                assert_eq!(fives, 1, "{}", set.name);
            }
            // Names and aliases are lowercase, normalised and unique within the card.
            let mut seen = std::collections::HashSet::new();
            for c in set.boxes {
                for key in std::iter::once(&c.name).chain(c.aliases) {
                    assert_eq!(normalise(key), *key, "{}: {key}", set.name);
                    assert!(seen.insert(*key), "{}: `{key}` names two boxes", set.name);
                }
                assert_eq!(rules.box_by_name(c.name), rules.box_by_name(c.title));
            }
            // Every box can score 0 and something more.
            for i in 0..set.boxes.len() {
                let p = rules.possible_scores(i);
                assert!(p.len() >= 2, "{} box {i}", set.name);
            }
        }
    }

    #[test]
    fn box_names_and_aliases_are_case_insensitive() {
        let r = Rules::new(RuleSet::YAHTZEE);
        assert_eq!(r.box_by_name("Full-House"), Some(8));
        assert_eq!(r.box_by_name("FH"), Some(8));
        assert_eq!(r.box_by_name("full house"), Some(8));
        assert_eq!(r.box_by_name("full_house"), Some(8));
        assert_eq!(r.box_by_name("Aces"), Some(0));
        assert_eq!(r.box_by_name("sevens"), None);
        let y = Rules::new(RuleSet::YACHT);
        assert_eq!(y.box_by_name("ls"), Some(8), "little straight in yacht");
        assert_eq!(y.box_by_name("chance"), Some(10), "choice in yacht");
    }

    #[test]
    fn upper_boxes_score_the_matching_dice() {
        for &set in RuleSet::all() {
            let cases = [
                "ones 11235=2",
                "twos 12225=6",
                "threes 33336=12",
                "fours 12356=0",
                "fives 55555=25",
                "sixes 16666=24",
            ];
            assert_scores(&Rules::new(set), 0, &cases);
        }
    }

    /// The lower boxes of each rule set score by their conditions, no box filled: a case is
    /// `box dice=points ..`.
    #[test]
    fn lower_boxes_score_by_their_conditions() {
        let yahtzee = [
            "three-of-a-kind 33345=18 33445=0 33333=15",
            "four-of-a-kind 44441=17 44411=0 33333=15",
            // Five of a kind with the Yahtzee box open is not a Full House, and counts for
            // three and four of a kind.
            "full-house 22333=25 22334=0 33333=0",
            "small-straight 12346=30 23345=30 34566=30 12356=0",
            "large-straight 12345=40 23456=40 12346=0",
            "yahtzee 66666=50 66665=0",
            "chance 12356=17",
        ];
        let yacht = [
            "full-house 22333=13 66655=28 33333=0 22334=0",
            "four-of-a-kind 44441=17 44444=20 44411=0",
            "little-straight 12345=30 23456=0",
            "big-straight 23456=30 12345=0 12346=0",
            "choice 12356=17",
            "yacht 22222=50 22221=0",
        ];
        let yatzy = [
            // The highest pair counts; five of a kind is a pair.
            "one-pair 11356=2 33556=10 12345=0 66666=12",
            // A full house holds two pairs; four of a kind is one face.
            "two-pairs 33556=16 22333=10 44441=0 55555=0",
            // The three matching dice count.
            "three-of-a-kind 33345=9 66666=18 33445=0",
            "four-of-a-kind 44441=16 22222=8 44411=0",
            // Exactly 1-2-3-4-5.
            "small-straight 12345=15 12346=0 23456=0",
            "large-straight 23456=20 12345=0",
            "full-house 22333=13 33333=0",
            "chance 12356=17",
            "yatzy 44444=50 44441=0",
        ];
        let sets: [(&[&RuleSet], &[&str]); 3] = [
            (&YAHTZEES, &yahtzee),
            (&[RuleSet::YACHT], &yacht),
            (&[RuleSet::YATZY], &yatzy),
        ];
        for (sets, cases) in sets {
            for &set in sets {
                assert_scores(&Rules::new(set), 0, cases);
            }
        }
    }

    /// Neither Yacht nor Yatzy has a Joker: five of a kind with its box filled is no Full
    /// House (nor, in Yacht, a Little Straight), and any open box takes it.
    #[test]
    fn yacht_and_yatzy_have_no_joker() {
        let yacht = ["full-house 22222=0", "little-straight 22222=0"];
        for (set, five, cases) in [
            (RuleSet::YACHT, "yacht", &yacht[..]),
            (RuleSet::YATZY, "yatzy", &["full-house 22222=0"]),
        ] {
            let r = Rules::new(set);
            let filled = bit(&r, five);
            assert!(!r.is_joker(filled, &d("22222")), "{set}");
            assert_scores(&r, filled, cases);
            let open = r.full_mask() & !filled;
            assert_eq!(r.legal_boxes(filled, &d("22222")), open, "{set}");
        }
    }

    #[test]
    fn yacht_and_yatzy_cards_and_bonuses() {
        let r = Rules::new(RuleSet::YACHT);
        assert_eq!(r.box_count(), 12);
        assert!(!r.has_upper_bonus() && !r.has_yahtzee_bonus());
        let r = Rules::new(RuleSet::YATZY);
        assert_eq!(r.box_count(), 15);
        assert_eq!(r.upper_bonus_points(), 50);
        assert!(!r.has_yahtzee_bonus());
        assert_eq!(highest_score(&r), 374, "shared/RULES.md");
    }

    #[test]
    fn forced_joker_upper_box_of_the_face_open() {
        let r = Rules::new(RuleSet::YAHTZEE);
        let filled = bit(&r, "yahtzee");
        assert_eq!(
            r.legal_boxes(filled, &d("44444")),
            bit(&r, "fours"),
            "must score in Fours"
        );
        assert_eq!(score(&r, "fours", "44444", filled), 20);
    }

    #[test]
    fn forced_joker_upper_filled_lower_open() {
        let r = Rules::new(RuleSet::YAHTZEE);
        let filled = bit(&r, "yahtzee") | bit(&r, "fours") | bit(&r, "ones");
        let legal = r.legal_boxes(filled, &d("44444"));
        let lower_open = r.full_mask() & !UPPER_MASK & !filled;
        assert_eq!(legal, lower_open, "any open lower box, no upper box");
        let cases = [
            "full-house 44444=25",
            "small-straight 44444=30",
            "large-straight 44444=40",
            "three-of-a-kind 44444=20",
            "four-of-a-kind 44444=20",
            "chance 44444=20",
        ];
        assert_scores(&r, filled, &cases);
    }

    #[test]
    fn forced_joker_everything_but_upper_filled() {
        let r = Rules::new(RuleSet::YAHTZEE);
        let filled = (r.full_mask() & !UPPER_MASK) | bit(&r, "fours");
        let legal = r.legal_boxes(filled, &d("44444"));
        assert_eq!(legal, UPPER_MASK & !bit(&r, "fours"));
        assert_eq!(score(&r, "sixes", "44444", filled), 0);
        assert_eq!(score(&r, "ones", "44444", filled), 0);
    }

    #[test]
    fn joker_applies_with_zero_or_fifty_in_the_yahtzee_box() {
        // The table's flag (50 or 0) changes only the 100 bonus, not where the Joker goes:
        // the rule reads only whether the Yahtzee box is filled.
        let r = Rules::new(RuleSet::YAHTZEE);
        let filled = bit(&r, "yahtzee") | bit(&r, "twos");
        assert!(r.is_joker(filled, &d("22222")));
        assert_eq!(score(&r, "full-house", "22222", filled), 25);
        // Yahtzee box open: no Joker, five of a kind is no Full House.
        assert!(!r.is_joker(bit(&r, "twos"), &d("22222")));
        assert_eq!(score(&r, "full-house", "22222", bit(&r, "twos")), 0);
        assert_eq!(
            r.legal_boxes(bit(&r, "twos"), &d("22222")),
            r.full_mask() & !bit(&r, "twos")
        );
    }

    #[test]
    fn free_joker_any_box_with_fixed_values_only_if_upper_face_filled() {
        let r = Rules::new(RuleSet::YAHTZEE_FREE_JOKER);
        let y = bit(&r, "yahtzee");
        // Upper box of the face open: any open box, straights and full house score 0.
        assert_eq!(r.legal_boxes(y, &d("44444")), r.full_mask() & !y);
        let cases = [
            "full-house 44444=0",
            "large-straight 44444=0",
            "chance 44444=20",
            "fours 44444=20",
        ];
        assert_scores(&r, y, &cases);
        // Upper box of the face filled: fixed values.
        let f = y | bit(&r, "fours");
        let cases = [
            "full-house 44444=25",
            "small-straight 44444=30",
            "large-straight 44444=40",
            "ones 44444=0",
        ];
        assert_scores(&r, f, &cases);
        assert_eq!(r.legal_boxes(f, &d("44444")), r.full_mask() & !f);
        // Everything but the upper section filled: any open upper box, scoring normally.
        let g = (r.full_mask() & !UPPER_MASK) | bit(&r, "fours");
        assert_eq!(
            r.legal_boxes(g, &d("44444")),
            UPPER_MASK & !bit(&r, "fours")
        );
    }

    #[test]
    fn plain_rules_have_no_joker_and_no_yahtzee_bonus() {
        let r = Rules::new(RuleSet::YAHTZEE_PLAIN);
        let y = bit(&r, "yahtzee") | bit(&r, "fours");
        assert!(!r.is_joker(y, &d("44444")));
        assert_eq!(score(&r, "full-house", "44444", y), 0);
        assert_eq!(score(&r, "large-straight", "44444", y), 0);
        assert_eq!(r.legal_boxes(y, &d("44444")), r.full_mask() & !y);
        assert!(r.has_upper_bonus() && !r.has_yahtzee_bonus());
    }

    #[test]
    fn upper_first_restricts_lower_boxes() {
        for &set in RuleSet::all() {
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
        let r = Rules::with_order(RuleSet::YAHTZEE, Order::UpperFirst);
        let filled = UPPER_MASK | bit(&r, "yahtzee");
        assert_eq!(r.legal_boxes(filled, &d("33333")), r.full_mask() & !filled);
    }

    #[test]
    fn rules_serialize_as_name_and_upper_first() {
        let r = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, r#"{"rules":"yacht","upper_first":true}"#);
        assert_eq!(serde_json::from_str::<Rules>(&json).unwrap(), r);
        let bad = serde_json::from_str::<Rules>(r#"{"rules":"poker","upper_first":true}"#);
        assert!(
            bad.unwrap_err()
                .to_string()
                .contains("unknown rule set `poker`")
        );
    }

    /// The kinds of six dice score by `shared/RULES.md`, section 8 (Maxi Yatzy).
    #[test]
    fn six_dice_kinds_score_by_the_maxi_yatzy_rules() {
        let score = |scoring: Scoring, faces: [u8; 6]| {
            scoring.score(&DiceSpace::SIX.dice_of(&faces).unwrap())
        };
        let house = Scoring::FullHouse {
            fixed: None,
            five_of_a_kind: false,
        };
        assert_eq!(score(Scoring::ThreePairs, [1, 1, 3, 3, 6, 6]), 20);
        assert_eq!(score(Scoring::ThreePairs, [1, 1, 1, 1, 6, 6]), 0);
        assert_eq!(score(Scoring::TwoPairs, [1, 1, 3, 3, 6, 6]), 18);
        assert_eq!(score(house, [2, 2, 2, 5, 5, 6]), 16);
        // The best three and two: 6 6 6 and 5 5.
        assert_eq!(score(house, [5, 5, 5, 6, 6, 6]), 28);
        assert_eq!(score(house, [4, 4, 4, 4, 1, 1]), 14);
        assert_eq!(score(house, [4, 4, 4, 1, 2, 3]), 0);
        assert_eq!(
            score(Scoring::Villa { fixed: None }, [5, 5, 5, 2, 2, 2]),
            21
        );
        assert_eq!(score(Scoring::Villa { fixed: None }, [5, 5, 5, 5, 2, 2]), 0);
        assert_eq!(
            score(Scoring::Tower { fixed: None }, [5, 5, 5, 5, 2, 2]),
            24
        );
        assert_eq!(
            score(Scoring::Tower { fixed: Some(40) }, [5, 5, 5, 2, 2, 2]),
            0
        );
        let full = Scoring::Straight {
            length: 6,
            starts: 1,
            points: Some(21),
        };
        assert_eq!(score(full, [1, 2, 3, 4, 5, 6]), 21);
        let small = Scoring::Straight {
            length: 5,
            starts: 1,
            points: Some(15),
        };
        assert_eq!(score(small, [1, 2, 3, 4, 5, 5]), 15);
        let five = Scoring::OfAKind {
            count: 5,
            sum: Sum::Matching,
        };
        assert_eq!(score(five, [3, 3, 3, 3, 3, 6]), 15);
        let maxi = Scoring::FiveOfAKind { points: 100 };
        assert_eq!(score(maxi, [2; 6]), 100);
        assert_eq!(score(maxi, [2, 2, 2, 2, 2, 1]), 0);
    }

    #[test]
    fn possible_scores_cover_joker_values() {
        let r = Rules::new(RuleSet::YAHTZEE);
        assert_eq!(r.possible_scores(idx(&r, "full-house")), vec![0, 25]);
        assert_eq!(r.possible_scores(idx(&r, "ones")), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(
            r.possible_scores(idx(&r, "chance")),
            (5..=30).collect::<Vec<_>>()
        );
        let y = Rules::new(RuleSet::YACHT);
        let yfh = idx(&y, "full-house");
        assert!(!y.possible_scores(yfh).contains(&5));
        assert!(y.possible_scores(yfh).contains(&7));
        assert_eq!(highest_score(&r), 1575);
        assert_eq!(highest_score(&Rules::new(RuleSet::YAHTZEE_PLAIN)), 375);
    }

    #[test]
    fn describes_score_sets() {
        assert_eq!(describe_scores(&[0, 25]), "0, 25");
        assert_eq!(describe_scores(&[0, 5, 6, 7, 8]), "0, 5 to 8");
    }

    #[test]
    fn the_card_of_every_rule_set_describes_every_box() {
        for rules in Rules::all() {
            let card = RulesCard::of(rules);
            assert_eq!(card.boxes.len(), rules.box_count());
            assert!(card.boxes.iter().all(|b| !b.scores.is_empty()));
        }
        let card = RulesCard::of(Rules::new(RuleSet::YAHTZEE));
        assert_eq!(
            card.boxes[9].scores,
            "1-2-3-4 or 2-3-4-5 or 3-4-5-6 among the dice: 30"
        );
        assert_eq!(card.boxes[10].scores, "exactly 1-2-3-4-5 or 2-3-4-5-6: 40");
    }
}
