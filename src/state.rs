//! Turn-start states, the score card a player types, and how states are laid out in a table.
//!
//! A [`State`] is what the future of a game depends on at the start of a turn: which boxes are
//! filled, the upper-section total capped at 63 (only the bonus threshold matters), and whether
//! the Yahtzee box holds 50 (only then do further Yahtzees earn 100). A [`ScoreCard`] is the
//! fuller picture a player has, with the points of each box, from which the state and the points
//! already banked are derived.

use std::collections::HashSet;
use std::fmt;

use crate::rules::{BoxMask, Rules, UPPER_BONUS, UPPER_BONUS_THRESHOLD, UPPER_MASK, YAHTZEE_BONUS};

/// Number of tracked upper totals: 0 to 62 exactly, and 63 standing for "63 or more".
pub const UPPER_TOTALS: usize = 64;

/// A turn-start state.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct State {
    /// The filled boxes, bit `i` for box `i` of [`Rules::boxes`].
    pub filled: BoxMask,
    /// Upper-section total, capped at 63; always 0 in rule sets without an upper bonus.
    pub upper: u8,
    /// True when the Yahtzee box holds 50; always false without a Yahtzee bonus.
    pub yahtzee_50: bool,
}

impl State {
    /// The state of an empty card.
    pub const START: State = State {
        filled: 0,
        upper: 0,
        yahtzee_50: false,
    };

    /// The state after filling box `index` with `points`.
    pub fn after(&self, rules: &Rules, index: usize, points: u32) -> State {
        let category = rules.boxes()[index];
        let upper = if rules.has_upper_bonus() && category.is_upper() {
            (u32::from(self.upper) + points).min(UPPER_BONUS_THRESHOLD) as u8
        } else {
            self.upper
        };
        let yahtzee_50 = self.yahtzee_50
            || (rules.has_yahtzee_bonus() && index == rules.five_of_a_kind_box() && points == 50);
        State {
            filled: self.filled | (1 << index),
            upper,
            yahtzee_50,
        }
    }

    /// Points earned on top of the box itself by filling box `index` with `points` from this
    /// state with `dice_five_of_a_kind`: the upper bonus when the total crosses 63 and the
    /// Yahtzee bonus for a further Yahtzee.
    pub fn bonus_for(
        &self,
        rules: &Rules,
        index: usize,
        points: u32,
        dice_five_of_a_kind: bool,
    ) -> u32 {
        let mut bonus = 0;
        if rules.has_upper_bonus()
            && rules.boxes()[index].is_upper()
            && u32::from(self.upper) < UPPER_BONUS_THRESHOLD
            && u32::from(self.upper) + points >= UPPER_BONUS_THRESHOLD
        {
            bonus += UPPER_BONUS;
        }
        if self.yahtzee_50 && dice_five_of_a_kind {
            bonus += YAHTZEE_BONUS;
        }
        bonus
    }

    /// Number of filled boxes.
    pub fn turns_played(&self) -> u32 {
        self.filled.count_ones()
    }
}

/// Where each state's value sits in a table's dense array of values.
///
/// The index is `((filled * flags) + yahtzee_50) * lanes + upper`: the upper totals of one
/// card are adjacent, so the solver computes and stores them as one row of 64 lanes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Layout {
    /// Upper totals per card: 64 with an upper bonus, else 1.
    pub lanes: usize,
    /// Yahtzee-box flags per card: 2 with a Yahtzee bonus, else 1.
    pub flags: usize,
    /// Number of cards (masks of filled boxes).
    pub masks: usize,
}

impl Layout {
    /// The layout for a rule set.
    pub fn of(rules: &Rules) -> Layout {
        Layout {
            lanes: if rules.has_upper_bonus() {
                UPPER_TOTALS
            } else {
                1
            },
            flags: if rules.has_yahtzee_bonus() { 2 } else { 1 },
            masks: 1 << rules.box_count(),
        }
    }

    /// Number of entries in the dense array.
    pub fn len(&self) -> usize {
        self.masks * self.flags * self.lanes
    }

    /// Always false: every layout has at least one entry.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Index of the first lane of the row of `(filled, yahtzee_50)`.
    pub fn row(&self, filled: BoxMask, yahtzee_50: bool) -> usize {
        (usize::from(filled) * self.flags + usize::from(yahtzee_50 && self.flags == 2)) * self.lanes
    }

    /// Index of a state.
    pub fn index(&self, state: &State) -> usize {
        self.row(state.filled, state.yahtzee_50) + usize::from(state.upper).min(self.lanes - 1)
    }
}

/// The upper totals (capped at 63) reachable with these upper boxes filled, as a bit set.
pub fn reachable_upper_totals(filled: BoxMask) -> u64 {
    REACHABLE_UPPER_TOTALS[usize::from(filled & UPPER_MASK)]
}

/// [`reachable_upper_totals`] of each set of filled upper boxes, worked out at compile time
/// (the solver asks for it once per card).
const REACHABLE_UPPER_TOTALS: [u64; 64] = {
    let mut table = [0u64; 64];
    let mut upper = 0;
    while upper < 64 {
        let mut set: u64 = 1;
        let mut face = 1;
        while face <= 6 {
            if upper & (1 << (face - 1)) != 0 {
                let mut next = 0u64;
                let mut total = 0;
                while total < 64 {
                    if set & (1 << total) != 0 {
                        let mut n = 0;
                        while n <= 5 {
                            let reached = total + face * n;
                            let capped = if reached < UPPER_BONUS_THRESHOLD {
                                reached
                            } else {
                                UPPER_BONUS_THRESHOLD
                            };
                            next |= 1 << capped;
                            n += 1;
                        }
                    }
                    total += 1;
                }
                set = next;
            }
            face += 1;
        }
        table[upper] = set;
        upper += 1;
    }
    table
};

/// True when a player can reach this state under `rules`.
pub fn is_reachable(rules: &Rules, state: &State) -> bool {
    let uppers = if rules.has_upper_bonus() {
        reachable_upper_totals(state.filled & UPPER_MASK)
    } else {
        1
    };
    rules.order_allows(state.filled)
        && state.filled & !rules.full_mask() == 0
        && uppers & (1 << state.upper) != 0
        && (!state.yahtzee_50
            || (rules.has_yahtzee_bonus() && state.filled & (1 << rules.five_of_a_kind_box()) != 0))
}

/// The rows of `Layout::of(rules)` that hold reachable turn-start states, full cards
/// included, ascending: each row's first index, and the set of its upper totals that are
/// reachable (bit `u` for total `u`; bit 0 alone without an upper bonus).
pub fn reachable_rows(rules: &Rules) -> impl Iterator<Item = (usize, u64)> + '_ {
    let layout = Layout::of(rules);
    (0..=rules.full_mask())
        .filter(|&m| rules.order_allows(m))
        .flat_map(move |m| {
            let uppers = if rules.has_upper_bonus() {
                reachable_upper_totals(m)
            } else {
                1
            };
            let flags = if rules.has_yahtzee_bonus() && m & (1 << rules.five_of_a_kind_box()) != 0 {
                2
            } else {
                1
            };
            (0..flags).map(move |flag| (layout.row(m, flag == 1), uppers))
        })
}

/// The set bits of `set`, lowest first.
pub fn set_bits(set: u64) -> impl Iterator<Item = usize> {
    let mut rest = set;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let bit = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            bit
        })
    })
}

/// Number of reachable turn-start states, full cards included.
pub fn reachable_state_count(rules: &Rules) -> u64 {
    reachable_rows(rules)
        .map(|(_, uppers)| u64::from(uppers.count_ones()))
        .sum()
}

/// Errors in a score card given by a user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardError {
    #[error("unknown box `{name}` for {rules}: the boxes are {allowed}")]
    UnknownBox {
        name: String,
        rules: String,
        allowed: String,
    },
    #[error("box `{0}` is given twice: give each filled box once")]
    Duplicate(String),
    #[error("`{entry}` is not `box=points`: write the card like `ones=3,full-house=25`")]
    Syntax { entry: String },
    #[error("`{name}` cannot hold {points} under {rules}: it can hold {allowed}")]
    Impossible {
        name: String,
        points: String,
        rules: String,
        allowed: String,
    },
    #[error("the card is full: every box is filled, there is no move left to advise")]
    Full,
    #[error(
        "under --upper-first no lower box can be filled while an upper box is open, but {lower} is filled and {upper} is open"
    )]
    Order { lower: String, upper: String },
    #[error("{0} Yahtzee bonus(es) but the Yahtzee box does not hold 50: bonuses need 50 there")]
    BonusWithoutFifty(u32),
    #[error("{0} has no Yahtzee bonus: --yahtzee-bonus must be 0")]
    NoBonusRule(String),
    #[error(
        "{bonus} Yahtzee bonuses are impossible with {filled} boxes filled: at most one per turn after the Yahtzee box, so at most {max}"
    )]
    TooManyBonuses { bonus: u32, filled: u32, max: u32 },
}

/// A score card as a player fills it: the points in each filled box and the Yahtzee bonuses.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ScoreCard {
    rules: Rules,
    points: Vec<Option<u32>>,
    yahtzee_bonuses: u32,
}

impl ScoreCard {
    /// An empty card.
    pub fn new(rules: Rules) -> ScoreCard {
        ScoreCard {
            rules,
            points: vec![None; rules.box_count()],
            yahtzee_bonuses: 0,
        }
    }

    /// Parses `ones=3,full-house=25,yahtzee=50` (empty: a new game) and checks it against the
    /// rules with [`ScoreCard::from_entries`].
    pub fn parse(rules: Rules, text: &str, yahtzee_bonuses: u32) -> Result<ScoreCard, CardError> {
        let mut entries = Vec::new();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (name, points) = entry.split_once('=').ok_or_else(|| CardError::Syntax {
                entry: entry.to_string(),
            })?;
            entries.push((name.trim().to_string(), points.trim().to_string()));
        }
        ScoreCard::from_entries(rules, &entries, yahtzee_bonuses)
    }

    /// Builds a card from `(box name, points)` pairs, checking every value against what the
    /// box can score, duplicates, the order modifier and the Yahtzee bonuses.
    pub fn from_entries(
        rules: Rules,
        entries: &[(String, String)],
        yahtzee_bonuses: u32,
    ) -> Result<ScoreCard, CardError> {
        let mut card = ScoreCard::new(rules);
        let mut seen = HashSet::new();
        for (name, points_text) in entries {
            let index = rules
                .box_by_name(name)
                .ok_or_else(|| CardError::UnknownBox {
                    name: name.clone(),
                    rules: rules.set.name().to_string(),
                    allowed: rules
                        .boxes()
                        .iter()
                        .map(|c| c.name())
                        .collect::<Vec<_>>()
                        .join(", "),
                })?;
            if !seen.insert(index) {
                return Err(CardError::Duplicate(name.clone()));
            }
            let possible = rules.possible_scores(index);
            let impossible = || CardError::Impossible {
                name: name.clone(),
                points: points_text.clone(),
                rules: rules.set.name().to_string(),
                allowed: describe_scores(possible),
            };
            let points: u32 = points_text.parse().map_err(|_| impossible())?;
            if possible.binary_search(&points).is_err() {
                return Err(impossible());
            }
            card.points[index] = Some(points);
        }
        let filled = card.filled();
        if filled == rules.full_mask() {
            return Err(CardError::Full);
        }
        if !rules.order_allows(filled) {
            return Err(CardError::Order {
                lower: rules.names_of(filled & !UPPER_MASK),
                upper: rules.names_of(!filled & UPPER_MASK),
            });
        }
        if yahtzee_bonuses > 0 {
            if !rules.has_yahtzee_bonus() {
                return Err(CardError::NoBonusRule(rules.set.name().to_string()));
            }
            if card.points[rules.five_of_a_kind_box()] != Some(50) {
                return Err(CardError::BonusWithoutFifty(yahtzee_bonuses));
            }
            let max = filled.count_ones() - 1;
            if yahtzee_bonuses > max {
                return Err(CardError::TooManyBonuses {
                    bonus: yahtzee_bonuses,
                    filled: filled.count_ones(),
                    max,
                });
            }
        }
        card.yahtzee_bonuses = yahtzee_bonuses;
        Ok(card)
    }

    /// The rules of this card.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Points in box `index`, if filled.
    pub fn points(&self, index: usize) -> Option<u32> {
        self.points[index]
    }

    /// Number of Yahtzee bonuses earned.
    pub fn yahtzee_bonuses(&self) -> u32 {
        self.yahtzee_bonuses
    }

    /// The filled boxes.
    pub fn filled(&self) -> BoxMask {
        self.points
            .iter()
            .enumerate()
            .filter(|(_, p)| p.is_some())
            .fold(0, |m, (i, _)| m | (1 << i))
    }

    /// Sum of the upper boxes, uncapped.
    pub fn upper_total(&self) -> u32 {
        self.points[..6].iter().flatten().sum()
    }

    /// Points already banked: the boxes, the upper bonus if earned and the Yahtzee bonuses.
    pub fn banked(&self) -> u32 {
        let boxes: u32 = self.points.iter().flatten().sum();
        let upper_bonus =
            if self.rules.has_upper_bonus() && self.upper_total() >= UPPER_BONUS_THRESHOLD {
                UPPER_BONUS
            } else {
                0
            };
        boxes + upper_bonus + YAHTZEE_BONUS * self.yahtzee_bonuses
    }

    /// The turn-start state of this card.
    pub fn state(&self) -> State {
        State {
            filled: self.filled(),
            upper: if self.rules.has_upper_bonus() {
                self.upper_total().min(UPPER_BONUS_THRESHOLD) as u8
            } else {
                0
            },
            yahtzee_50: self.rules.has_yahtzee_bonus()
                && self.points[self.rules.five_of_a_kind_box()] == Some(50),
        }
    }

    /// Fills box `index` with `points`, adding the Yahtzee bonus when `bonus` says so.
    pub fn fill(&mut self, index: usize, points: u32, yahtzee_bonus: bool) {
        self.points[index] = Some(points);
        if yahtzee_bonus {
            self.yahtzee_bonuses += 1;
        }
    }
}

impl fmt::Display for ScoreCard {
    /// Writes the card as `--card` takes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .rules
            .boxes()
            .iter()
            .zip(&self.points)
            .filter_map(|(c, p)| p.map(|p| format!("{}={p}", c.name())))
            .collect();
        f.write_str(&parts.join(","))
    }
}

/// Describes a sorted set of scores compactly: `0, 25` or `0 or 5 to 30`.
fn describe_scores(scores: &[u32]) -> String {
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
    use crate::rules::{Order, RuleSet};

    #[test]
    fn reachable_rows_hold_the_reachable_states_in_order() {
        for set in [RuleSet::Yahtzee, RuleSet::YahtzeePlain, RuleSet::Yacht] {
            for order in [Order::Any, Order::UpperFirst] {
                let rules = Rules::with_order(set, order);
                let layout = Layout::of(&rules);
                let listed: Vec<usize> = reachable_rows(&rules)
                    .flat_map(|(row, uppers)| set_bits(uppers).map(move |u| row + u))
                    .collect();
                assert!(listed.windows(2).all(|w| w[0] < w[1]));
                assert_eq!(listed.len() as u64, reachable_state_count(&rules));
                let mut next = listed.iter().peekable();
                for i in 0..layout.len() {
                    let row = i / layout.lanes;
                    let state = State {
                        filled: (row / layout.flags) as BoxMask,
                        yahtzee_50: row % layout.flags == 1,
                        upper: (i % layout.lanes) as u8,
                    };
                    let here = next.next_if(|&&j| j == i).is_some();
                    assert_eq!(here, is_reachable(&rules, &state), "{rules:?} {state:?}");
                }
            }
        }
    }

    #[test]
    fn counts_536448_reachable_yahtzee_states() {
        assert_eq!(
            reachable_state_count(&Rules::new(RuleSet::Yahtzee)),
            536_448
        );
        assert_eq!(reachable_state_count(&Rules::new(RuleSet::Yacht)), 4096);
    }

    #[test]
    fn parses_and_banks_a_card() {
        let rules = Rules::new(RuleSet::Yahtzee);
        let card = ScoreCard::parse(rules, "ones=3,full-house=25,yahtzee=50", 1).unwrap();
        assert_eq!(card.banked(), 3 + 25 + 50 + 100);
        let s = card.state();
        assert_eq!(s.upper, 3);
        assert!(s.yahtzee_50);
        assert_eq!(s.filled.count_ones(), 3);
        assert_eq!(card.to_string(), "ones=3,full-house=25,yahtzee=50");
    }

    #[test]
    fn upper_bonus_is_banked_once_earned() {
        let rules = Rules::new(RuleSet::Yahtzee);
        let card = ScoreCard::parse(rules, "fours=16,fives=20,sixes=30", 0).unwrap();
        assert_eq!(card.banked(), 66 + 35);
        assert_eq!(card.state().upper, 63);
    }

    #[test]
    fn rejects_bad_cards() {
        let rules = Rules::new(RuleSet::Yahtzee);
        let bad = |t: &str, b: u32| ScoreCard::parse(rules, t, b).unwrap_err();
        assert!(matches!(bad("twos=3", 0), CardError::Impossible { .. }));
        assert!(matches!(
            bad("full-house=20", 0),
            CardError::Impossible { .. }
        ));
        assert!(matches!(bad("yahtzee=40", 0), CardError::Impossible { .. }));
        assert!(matches!(bad("ones=x", 0), CardError::Impossible { .. }));
        assert!(matches!(bad("sevens=7", 0), CardError::UnknownBox { .. }));
        assert!(matches!(bad("ones=1,ones=2", 0), CardError::Duplicate(_)));
        assert!(matches!(bad("ones", 0), CardError::Syntax { .. }));
        assert!(matches!(
            bad("yahtzee=0", 1),
            CardError::BonusWithoutFifty(1)
        ));
        assert!(matches!(
            bad("yahtzee=50", 1),
            CardError::TooManyBonuses { .. }
        ));
        let full = "ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6,three-of-a-kind=20,four-of-a-kind=0,full-house=25,small-straight=30,large-straight=0,yahtzee=0,chance=22";
        assert_eq!(bad(full, 0), CardError::Full);
        let upper_first = Rules::with_order(RuleSet::Yahtzee, Order::UpperFirst);
        assert!(matches!(
            ScoreCard::parse(upper_first, "ones=2,chance=20", 0),
            Err(CardError::Order { .. })
        ));
        let plain = Rules::new(RuleSet::YahtzeePlain);
        assert!(matches!(
            ScoreCard::parse(plain, "yahtzee=50,ones=1", 1),
            Err(CardError::NoBonusRule(_))
        ));
        let yacht = Rules::new(RuleSet::Yacht);
        assert!(matches!(
            ScoreCard::parse(yacht, "chance=20", 0),
            Err(CardError::UnknownBox { .. })
        ));
    }

    #[test]
    fn describes_score_sets() {
        assert_eq!(describe_scores(&[0, 25]), "0, 25");
        assert_eq!(describe_scores(&[0, 5, 6, 7, 8]), "0, 5 to 8");
    }

    #[test]
    fn layout_indexes_are_dense_and_distinct() {
        let rules = Rules::new(RuleSet::Yahtzee);
        let l = Layout::of(&rules);
        assert_eq!(l.len(), 8192 * 2 * 64);
        let a = l.index(&State {
            filled: 5,
            upper: 7,
            yahtzee_50: false,
        });
        let b = l.index(&State {
            filled: 5,
            upper: 7,
            yahtzee_50: true,
        });
        assert_eq!(b - a, 64);
    }
}
