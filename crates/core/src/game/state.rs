//! Turn-start states, the score card a player types, and how states are laid out in a table.
//!
//! A [`State`] is what the future of a game depends on at the start of a turn: which boxes are
//! filled, the upper-section total capped at the bonus threshold (63; 84 in Maxi Yatzy: only the
//! threshold matters), and whether the Yahtzee box holds 50 (only then do further Yahtzees earn
//! 100). A [`ScoreCard`] is the fuller picture a player has, with the points of each box, from
//! which the state and the points already banked are derived.

use std::fmt;
use std::sync::OnceLock;

use crate::game::dice::Dice;
use crate::game::rules::{BoxMask, MAX_UPPER_THRESHOLD, Rules, UPPER_MASK, describe_scores};
use crate::text::{excerpt, plural};

/// The most upper totals a state tracks: 0 to the threshold less one exactly, and the
/// threshold standing for "the threshold or more" (63 in the five-dice rule sets, 84 in Maxi
/// Yatzy, at most [`MAX_UPPER_THRESHOLD`]; a rule set tracks its threshold plus one).
pub const UPPER_TOTALS: usize = MAX_UPPER_THRESHOLD as usize + 1;

/// A set of upper totals, bit `u` for total `u`: 128 bits, room for every total to
/// [`MAX_UPPER_THRESHOLD`].
pub type UpperTotals = u128;

/// A turn-start state.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct State {
    /// The filled boxes, bit `i` for box `i` of [`Rules::boxes`].
    pub filled: BoxMask,
    /// Upper-section total, capped at the upper-bonus threshold (63); always 0 in rule sets
    /// without an upper bonus.
    pub upper: u8,
    /// True when the five-of-a-kind box holds its points (Yahtzee's 50), so that a further
    /// five of a kind earns the bonus; always false in rule sets without that bonus.
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
        let upper = if rules.has_upper_bonus() && rules.boxes()[index].is_upper() {
            (u32::from(self.upper) + points).min(rules.upper_threshold()) as u8
        } else {
            self.upper
        };
        let yahtzee_50 = self.yahtzee_50 || rules.sets_bonus_flag(index, points);
        State {
            filled: self.filled | (1 << index),
            upper,
            yahtzee_50,
        }
    }

    /// The bonuses earned on top of the box itself by filling box `index` with `points` from
    /// this state with `dice_five_of_a_kind`: the upper bonus when the total reaches its
    /// threshold, and the bonus for a further five of a kind.
    pub fn bonuses_for(
        &self,
        rules: &Rules,
        index: usize,
        points: u32,
        dice_five_of_a_kind: bool,
    ) -> Bonuses {
        let threshold = rules.upper_threshold();
        Bonuses {
            upper: rules.has_upper_bonus()
                && rules.boxes()[index].is_upper()
                && u32::from(self.upper) < threshold
                && u32::from(self.upper) + points >= threshold,
            yahtzee: self.yahtzee_50 && dice_five_of_a_kind,
        }
    }

    /// Points earned on top of the box itself (see [`State::bonuses_for`]).
    pub fn bonus_for(
        &self,
        rules: &Rules,
        index: usize,
        points: u32,
        dice_five_of_a_kind: bool,
    ) -> u32 {
        self.bonuses_for(rules, index, points, dice_five_of_a_kind)
            .points(rules)
    }

    /// Number of filled boxes.
    pub fn turns_played(&self) -> u32 {
        self.filled.count_ones()
    }
}

/// The bonuses earned by filling one box.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Bonuses {
    /// The upper bonus: this box brings the upper total to its threshold.
    pub upper: bool,
    /// The bonus for a further five of a kind (Yahtzee's 100).
    pub yahtzee: bool,
}

impl Bonuses {
    /// Their points under `rules`.
    pub fn points(&self, rules: &Rules) -> u32 {
        u32::from(self.upper) * rules.upper_bonus_points()
            + u32::from(self.yahtzee) * rules.yahtzee_bonus_points()
    }
}

/// Where each state's value sits in a table's dense array of values.
///
/// The index is `((filled * flags) + yahtzee_50) * lanes + upper`: the upper totals of one
/// card are adjacent, so the solver computes and stores them as one row of lanes (64 with a
/// threshold of 63).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Layout {
    /// Upper totals per card: the threshold plus one (64) with an upper bonus, else 1.
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
            lanes: rules.upper_threshold() as usize + 1,
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
        (filled as usize * self.flags + usize::from(yahtzee_50 && self.flags == 2)) * self.lanes
    }

    /// Index of a state.
    pub fn index(&self, state: &State) -> usize {
        self.row(state.filled, state.yahtzee_50) + usize::from(state.upper).min(self.lanes - 1)
    }
}

/// Every state of the card `filled` that a game can reach: each reachable upper total
/// ([`reachable_upper_totals`]), without and (in rule sets with a five-of-a-kind bonus) with
/// 50 in the five-of-a-kind box.
pub fn card_states(rules: &Rules, filled: BoxMask) -> Vec<State> {
    let flags: &[bool] = if rules.has_yahtzee_bonus() {
        &[false, true]
    } else {
        &[false]
    };
    flags
        .iter()
        .flat_map(|&yahtzee_50| {
            set_bits(reachable_upper_totals(rules, filled)).map(move |u| State {
                filled,
                upper: u as u8,
                yahtzee_50,
            })
        })
        .collect()
}

/// The upper totals (capped at the threshold) reachable with these upper boxes filled, as a
/// bit set; `1` (total 0 only) in rules without an upper bonus.
pub fn reachable_upper_totals(rules: &Rules, filled: BoxMask) -> UpperTotals {
    let upper = (filled & UPPER_MASK) as usize;
    let dice = rules.dice().dice() as u32;
    match (rules.upper_threshold(), dice) {
        (0, _) => 1,
        (63, 5) => REACHABLE_UPPER_TOTALS[upper],
        (t, dice) => {
            // Worked out once per threshold and number of dice (the solver and the writer of a
            // table ask once per card: a million times for Maxi Yatzy's 2^20 cards).
            static TABLES: [[OnceLock<[UpperTotals; 64]>; 2]; MAX_UPPER_THRESHOLD as usize + 1] =
                [const { [const { OnceLock::new() }; 2] }; MAX_UPPER_THRESHOLD as usize + 1];
            TABLES[t as usize][dice as usize - 5].get_or_init(|| upper_totals_table(t, dice))[upper]
        }
    }
}

/// [`reachable_upper_totals`] of each set of filled upper boxes with threshold 63, worked
/// out at compile time (the solver asks for it once per card).
const REACHABLE_UPPER_TOTALS: [UpperTotals; 64] = upper_totals_table(63, 5);

/// The reachable upper totals of each set of filled upper boxes, capped at `threshold`, with
/// `dice` dice (each upper box scores its face 0 to `dice` times).
const fn upper_totals_table(threshold: u32, dice: u32) -> [UpperTotals; 64] {
    let mut table = [0; 64];
    let mut upper = 0;
    while upper < 64 {
        let mut set: UpperTotals = 1;
        let mut face = 1;
        while face <= 6 {
            if upper & (1 << (face - 1)) != 0 {
                let mut next: UpperTotals = 0;
                let mut total = 0;
                while total < UPPER_TOTALS as u32 {
                    if set & (1 << total) != 0 {
                        let mut n = 0;
                        while n <= dice {
                            let reached = total + face * n;
                            let capped = if reached < threshold {
                                reached
                            } else {
                                threshold
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
}

/// True when a player can reach this state under `rules`.
pub fn is_reachable(rules: &Rules, state: &State) -> bool {
    rules.order_allows(state.filled)
        && state.filled & !rules.full_mask() == 0
        && usize::from(state.upper) < UPPER_TOTALS
        && reachable_upper_totals(rules, state.filled) & (1 << state.upper) != 0
        && (!state.yahtzee_50 || bonus_flag_possible(rules, state.filled))
}

/// True when a card with these boxes filled can hold the bonus flag: rules with a bonus for
/// a further five of a kind and the five-of-a-kind box filled.
fn bonus_flag_possible(rules: &Rules, filled: BoxMask) -> bool {
    rules.has_yahtzee_bonus()
        && rules
            .five_of_a_kind_box()
            .is_some_and(|b| filled & (1 << b) != 0)
}

/// The rows of `Layout::of(rules)` that hold reachable turn-start states, full cards
/// included, ascending: each row's first index, and the set of its upper totals that are
/// reachable (bit `u` for total `u`; bit 0 alone without an upper bonus).
pub fn reachable_rows(rules: &Rules) -> impl Iterator<Item = (usize, UpperTotals)> + '_ {
    let layout = Layout::of(rules);
    (0..=rules.full_mask())
        .filter(|&m| rules.order_allows(m))
        .flat_map(move |m| {
            let uppers = reachable_upper_totals(rules, m);
            let flags = if bonus_flag_possible(rules, m) { 2 } else { 1 };
            (0..flags).map(move |flag| (layout.row(m, flag == 1), uppers))
        })
}

/// Every reachable turn-start state of `rules`, full cards included, in the order of the
/// table layout: by filled mask, then bonus flag, then upper total.
pub fn reachable_states(rules: &Rules) -> impl Iterator<Item = State> + '_ {
    let layout = Layout::of(rules);
    reachable_rows(rules).flat_map(move |(row, uppers)| {
        let card = row / layout.lanes;
        set_bits(uppers).map(move |u| State {
            filled: (card / layout.flags) as BoxMask,
            upper: u as u8,
            yahtzee_50: card % layout.flags == 1,
        })
    })
}

/// The cards (masks of filled boxes) the fill order allows, by number of filled boxes:
/// `cards_by_depth(rules)[d]` lists those with `d` boxes filled, ascending.
pub fn cards_by_depth(rules: &Rules) -> Vec<Vec<BoxMask>> {
    let mut by_depth: Vec<Vec<BoxMask>> = vec![Vec::new(); rules.box_count() + 1];
    for filled in 0..=rules.full_mask() {
        if rules.order_allows(filled) {
            by_depth[filled.count_ones() as usize].push(filled);
        }
    }
    by_depth
}

/// The set bits of `set` (a mask of boxes, or of upper totals), lowest first.
pub fn set_bits(set: impl Into<u128>) -> impl Iterator<Item = usize> {
    // Two 64-bit halves rather than one `u128`: the totals of a threshold of 63 all sit in the
    // low half, which then costs what a `u64` did (the `u128` loop took half as many
    // instructions again to write a table: results/maxi-yatzy-2026-12-03.md).
    let set: u128 = set.into();
    let (mut low, mut high) = (set as u64, (set >> 64) as u64);
    std::iter::from_fn(move || {
        if low != 0 {
            let bit = low.trailing_zeros() as usize;
            low &= low - 1;
            Some(bit)
        } else if high != 0 {
            let bit = high.trailing_zeros() as usize;
            high &= high - 1;
            Some(64 + bit)
        } else {
            None
        }
    })
}

/// Number of reachable turn-start states, full cards included.
pub fn reachable_state_count(rules: &Rules) -> u64 {
    reachable_rows(rules)
        .map(|(_, uppers)| u64::from(uppers.count_ones()))
        .sum()
}

/// Errors in a score card given by a user. Each message names what was wrong, quoting the
/// input only through [`excerpt`], and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CardError {
    /// A box name that is neither a box nor an alias of these rules: use one of the names
    /// listed (`yahtzee rules` prints them with their aliases).
    #[error("unknown box `{name}` for {rules}: the boxes are {allowed}")]
    UnknownBox {
        /// The name given, as an excerpt.
        name: String,
        /// The rules' label.
        rules: String,
        /// The box names of the rules.
        allowed: String,
    },
    /// A box given twice (possibly once by its name and once by an alias): give it once.
    #[error("box `{0}` is given twice: give each filled box once")]
    Duplicate(String),
    /// A count of Yahtzee bonuses that is not a number: write it like `yahtzee-bonus=1`.
    #[error("`{entry}` is not a count of Yahtzee bonuses: write it like `yahtzee-bonus=1`")]
    BonusCount {
        /// The entry, as an excerpt.
        entry: String,
    },
    /// An entry without `=`: write `box=points`.
    #[error("`{entry}` is not `box=points`: write the card like `ones=3,full-house=25`")]
    Syntax {
        /// The entry, as an excerpt.
        entry: String,
    },
    /// Points a box can never hold under these rules: give one of the scores listed.
    #[error("`{name}` cannot hold {points} under {rules}: it can hold {allowed}")]
    Impossible {
        /// The box's name.
        name: String,
        /// The points given, as an excerpt.
        points: String,
        /// The rules' label.
        rules: String,
        /// Every score the box can hold.
        allowed: String,
    },
    /// Every box is filled: the game is over, there is no decision left. Fix: a card with a
    /// box still open; where a finished player's card is meant (an opponent's), the caller
    /// reads it as their final score, `total`.
    #[error(
        "the card is full: every box is filled, so the game is over at {total} points and no decision is left; give a card with a box still open"
    )]
    Full {
        /// The card's final score, bonuses included.
        total: u32,
    },
    /// A lower box filled while an upper box is open under the upper-first order: fill the
    /// upper section first, or use the rules without that order.
    #[error(
        "under the upper-first order no lower box can be filled while an upper box is open, but {lower} {lower_verb} filled and {upper} {upper_verb} open"
    )]
    Order {
        /// The filled lower boxes.
        lower: String,
        /// "is" or "are".
        lower_verb: &'static str,
        /// The open upper boxes.
        upper: String,
        /// "is" or "are".
        upper_verb: &'static str,
    },
    /// Bonuses for further five of a kind without the five-of-a-kind box holding its points:
    /// fill that box with its points, or give no bonus.
    #[error(
        "{bonuses} but the {box_name} box does not hold {points}: a bonus needs {points} there"
    )]
    BonusWithoutFifty {
        /// The bonuses given, e.g. `1 Yahtzee bonus`.
        bonuses: String,
        /// The five-of-a-kind box.
        box_name: &'static str,
        /// Its points (50).
        points: u32,
    },
    /// Bonuses for further five of a kind in rules that have none: give 0.
    #[error("{0} has no bonus for a further five of a kind: the bonus count must be 0")]
    NoBonusRule(String),
    /// More bonuses than turns played after the five-of-a-kind box: at most one per turn.
    #[error(
        "{bonuses} {} impossible with {filled} filled: at most one per turn after the {box_name} box, so at most {max}",
        if .bonuses.starts_with("1 ") { "is" } else { "are" }
    )]
    TooManyBonuses {
        /// The bonuses given, e.g. `3 Yahtzee bonuses`.
        bonuses: String,
        /// The boxes filled, e.g. `1 box`.
        filled: String,
        /// The five-of-a-kind box.
        box_name: &'static str,
        /// The most bonuses possible.
        max: u32,
    },
}

/// `n Yahtzee bonus(es)` in the right number, the bonus named after the five-of-a-kind box
/// (`title`: its title on the card, `Yahtzee`).
fn bonus_count(n: u32, title: &str) -> String {
    plural(
        u64::from(n),
        &format!("{title} bonus"),
        &format!("{title} bonuses"),
    )
}

/// `is` for one box, `are` for several.
fn verb(mask: BoxMask) -> &'static str {
    if mask.count_ones() == 1 { "is" } else { "are" }
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
        // Empty (or blank): a new game. Otherwise every part between commas is an entry, as
        // every part of the dice is a face: `ones=3,,twos=4` has an empty one.
        let parts = (!text.trim().is_empty()).then(|| text.split(','));
        for entry in parts.into_iter().flatten().map(str::trim) {
            let (name, points) = entry.split_once('=').ok_or_else(|| CardError::Syntax {
                entry: excerpt(entry),
            })?;
            entries.push((name.trim().to_string(), points.trim().to_string()));
        }
        ScoreCard::from_entries(rules, &entries, yahtzee_bonuses)
    }

    /// Builds a card from `(box name, points as text)` pairs, checking every value against
    /// what the box can score, duplicates, the order modifier and the Yahtzee bonuses.
    pub fn from_entries(
        rules: Rules,
        entries: &[(String, String)],
        yahtzee_bonuses: u32,
    ) -> Result<ScoreCard, CardError> {
        let mut checked = Vec::with_capacity(entries.len());
        for (name, points_text) in entries {
            let index = box_named(&rules, name)?;
            // Digits only, as the faces of the dice: no sign, no space.
            let digits = !points_text.is_empty() && points_text.bytes().all(|b| b.is_ascii_digit());
            let points = points_text
                .parse::<u32>()
                .ok()
                .filter(|_| digits)
                .ok_or_else(|| impossible(&rules, index, points_text))?;
            checked.push((index, points));
        }
        ScoreCard::from_boxes(rules, &checked, yahtzee_bonuses)
    }

    /// Builds a card from `(box name, points)` pairs, with the checks of
    /// [`ScoreCard::from_entries`].
    pub fn from_points(
        rules: Rules,
        entries: &[(&str, u32)],
        yahtzee_bonuses: u32,
    ) -> Result<ScoreCard, CardError> {
        let checked = entries
            .iter()
            .map(|&(name, points)| Ok((box_named(&rules, name)?, points)))
            .collect::<Result<Vec<_>, CardError>>()?;
        ScoreCard::from_boxes(rules, &checked, yahtzee_bonuses)
    }

    /// Builds a card from `(box position, points)` pairs, with the checks of
    /// [`ScoreCard::from_entries`].
    pub fn from_boxes(
        rules: Rules,
        boxes: &[(usize, u32)],
        yahtzee_bonuses: u32,
    ) -> Result<ScoreCard, CardError> {
        let mut card = ScoreCard::new(rules);
        for &(index, points) in boxes {
            let name = rules.boxes()[index].name;
            if card.points[index].is_some() {
                return Err(CardError::Duplicate(name.to_string()));
            }
            if rules.possible_scores(index).binary_search(&points).is_err() {
                return Err(impossible(&rules, index, &points.to_string()));
            }
            card.points[index] = Some(points);
        }
        let filled = card.filled();
        if !rules.order_allows(filled) {
            let upper = rules.upper_mask();
            return Err(CardError::Order {
                lower: rules.names_of(filled & !upper),
                lower_verb: verb(filled & !upper),
                upper: rules.names_of(!filled & upper),
                upper_verb: verb(!filled & upper),
            });
        }
        if yahtzee_bonuses > 0 {
            let Some(five) = rules
                .five_of_a_kind_box()
                .filter(|_| rules.has_yahtzee_bonus())
            else {
                return Err(CardError::NoBonusRule(rules.set.name().to_string()));
            };
            let box_name = rules.boxes()[five].name;
            let title = rules.boxes()[five].title;
            let points = rules.five_of_a_kind_points();
            if card.points[five] != Some(points) {
                return Err(CardError::BonusWithoutFifty {
                    bonuses: bonus_count(yahtzee_bonuses, title),
                    box_name,
                    points,
                });
            }
            let max = filled.count_ones() - 1;
            if yahtzee_bonuses > max {
                return Err(CardError::TooManyBonuses {
                    bonuses: bonus_count(yahtzee_bonuses, title),
                    filled: plural(u64::from(filled.count_ones()), "box", "boxes"),
                    box_name,
                    max,
                });
            }
        }
        card.yahtzee_bonuses = yahtzee_bonuses;
        // Checked last, so that a full card is a whole card: its total is its final score.
        if card.is_full() {
            return Err(CardError::Full {
                total: card.banked(),
            });
        }
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

    /// True when every box is filled.
    pub fn is_full(&self) -> bool {
        self.filled() == self.rules.full_mask()
    }

    /// Sum of the upper boxes, uncapped.
    pub fn upper_total(&self) -> u32 {
        self.points
            .iter()
            .zip(self.rules.boxes())
            .filter(|(_, c)| c.is_upper())
            .filter_map(|(p, _)| *p)
            .sum()
    }

    /// True when the upper bonus is earned.
    pub fn has_upper_bonus(&self) -> bool {
        self.rules.has_upper_bonus() && self.upper_total() >= self.rules.upper_threshold()
    }

    /// Points already banked: the boxes, the upper bonus if earned and the Yahtzee bonuses.
    pub fn banked(&self) -> u32 {
        let boxes: u32 = self.points.iter().flatten().sum();
        let upper_bonus = u32::from(self.has_upper_bonus()) * self.rules.upper_bonus_points();
        boxes + upper_bonus + self.rules.yahtzee_bonus_points() * self.yahtzee_bonuses
    }

    /// The turn-start state of this card.
    pub fn state(&self) -> State {
        State {
            filled: self.filled(),
            upper: self.upper_total().min(self.rules.upper_threshold()) as u8,
            yahtzee_50: self
                .rules
                .five_of_a_kind_box()
                .is_some_and(|b| self.rules.sets_bonus_flag(b, self.points[b].unwrap_or(0))),
        }
    }

    /// What box `index` scores with `dice` on this card, as a game scores it (the Joker
    /// included), and the bonuses it earns on top ([`State::bonuses_for`], as the advice counts
    /// them); `None` when the box may not take these dice (filled, the upper-first order, the
    /// Joker rule).
    pub fn scoring(&self, index: usize, dice: &Dice) -> Option<(u32, Bonuses)> {
        let state = self.state();
        if self.points[index].is_some()
            || self.rules.legal_boxes(state.filled, dice) & (1 << index) == 0
        {
            return None;
        }
        let points = self.rules.score(index, dice, state.filled);
        let five = dice.five_of_a_kind().is_some();
        Some((points, state.bonuses_for(&self.rules, index, points, five)))
    }

    /// Fills box `index` with `points`, adding the Yahtzee bonus when `bonus` says so.
    pub fn fill(&mut self, index: usize, points: u32, yahtzee_bonus: bool) {
        self.points[index] = Some(points);
        if yahtzee_bonus {
            self.yahtzee_bonuses += 1;
        }
    }
}

/// The position of the box `name` (or an alias) in `rules`; unknown, the error lists the
/// boxes.
pub fn box_named(rules: &Rules, name: &str) -> Result<usize, CardError> {
    rules
        .box_by_name(name)
        .ok_or_else(|| CardError::UnknownBox {
            name: excerpt(name),
            rules: rules.label(),
            allowed: rules.names_of(rules.full_mask()),
        })
}

/// The error for `points` (as given) that box `index` cannot hold.
fn impossible(rules: &Rules, index: usize, points: &str) -> CardError {
    CardError::Impossible {
        name: rules.boxes()[index].name.to_string(),
        points: excerpt(points),
        rules: rules.label(),
        allowed: describe_scores(rules.possible_scores(index)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::{Order, RuleSet};

    #[test]
    fn reachable_rows_hold_the_reachable_states_in_order() {
        for set in [
            RuleSet::YAHTZEE,
            RuleSet::YAHTZEE_PLAIN,
            RuleSet::YACHT,
            RuleSet::YATZY,
        ] {
            for order in [Order::Any, Order::UpperFirst] {
                let rules = Rules::with_order(set, order);
                let layout = Layout::of(&rules);
                let listed: Vec<usize> = reachable_rows(&rules)
                    .flat_map(|(row, uppers)| set_bits(uppers).map(move |u| row + u))
                    .collect();
                let states: Vec<usize> =
                    reachable_states(&rules).map(|s| layout.index(&s)).collect();
                assert_eq!(states, listed);
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
            reachable_state_count(&Rules::new(RuleSet::YAHTZEE)),
            536_448
        );
        assert_eq!(reachable_state_count(&Rules::new(RuleSet::YACHT)), 4096);
    }

    #[test]
    fn parses_and_banks_a_card() {
        let rules = Rules::new(RuleSet::YAHTZEE);
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
        let rules = Rules::new(RuleSet::YAHTZEE);
        let card = ScoreCard::parse(rules, "fours=16,fives=20,sixes=30", 0).unwrap();
        assert_eq!(card.banked(), 66 + 35);
        assert_eq!(card.state().upper, 63);
    }

    #[test]
    fn rejects_bad_cards() {
        let rules = Rules::new(RuleSet::YAHTZEE);
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
            CardError::BonusWithoutFifty { .. }
        ));
        assert!(matches!(
            bad("yahtzee=50", 1),
            CardError::TooManyBonuses { .. }
        ));
        let full = "ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6,three-of-a-kind=20,four-of-a-kind=0,full-house=25,small-straight=30,large-straight=0,yahtzee=0,chance=22";
        assert_eq!(bad(full, 0), CardError::Full { total: 118 });
        // 1 bonus, said in the singular.
        let e = bad("yahtzee=50", 1).to_string();
        assert!(
            e.starts_with("1 Yahtzee bonus is impossible with 1 box filled"),
            "{e}"
        );
        let upper_first = Rules::with_order(RuleSet::YAHTZEE, Order::UpperFirst);
        assert!(matches!(
            ScoreCard::parse(upper_first, "ones=2,chance=20", 0),
            Err(CardError::Order { .. })
        ));
        let plain = Rules::new(RuleSet::YAHTZEE_PLAIN);
        assert!(matches!(
            ScoreCard::parse(plain, "yahtzee=50,ones=1", 1),
            Err(CardError::NoBonusRule(_))
        ));
        let yacht = Rules::new(RuleSet::YACHT);
        assert!(matches!(
            ScoreCard::parse(yacht, "yahtzee=50", 0),
            Err(CardError::UnknownBox { .. })
        ));
    }

    #[test]
    fn layout_indexes_are_dense_and_distinct() {
        let rules = Rules::new(RuleSet::YAHTZEE);
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
