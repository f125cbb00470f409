//! A game of one or more players: the rules of play, the record of a game, the player's
//! commands, the interactive session and the coach.
//!
//! [`Game`] is the referee. It takes the events of a game one at a time ([`Game::apply`]),
//! refuses any event the rules do not allow, and hands back every decision a player made
//! ([`Decision`]: the position and the choice). Both `yahtzee play` (which makes the events)
//! and `yahtzee review` (which reads them from a record) go through it, so a record the game
//! writes is exactly what the review accepts. [`evaluate`] prices a decision with
//! [`advise`] on the same position, so the coach, the review and
//! `yahtzee advise` agree to the last bit.
//!
//! - [`record`]: the JSON Lines record format.
//! - [`command`]: what a player types.
//! - [`session`]: the interactive game loop, the bot and the coach.
//! - [`render`]: the score card as text.

pub mod command;
pub mod record;
pub mod render;
pub mod session;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use crate::advice::{AdviceError, AdviceOption, Position, TIE, advise};
use crate::dice::{DICE, Dice, Keep};
use crate::rules::{Order, Rules};
use crate::state::ScoreCard;
use crate::table::StrategyTable;

pub use record::{DiceMode, Event, FinalScore, Header, RECORD_FORMAT, Seat, SeatKind};

/// An event the rules do not allow, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Illegal(pub String);

fn illegal<T>(reason: impl Into<String>) -> Result<T, Illegal> {
    Err(Illegal(reason.into()))
}

/// What a player chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Keep these dice and re-roll the rest; all five dice means stop and score.
    Keep(Keep),
    /// Fill the box at this position of the card.
    Score(usize),
}

/// One decision of a player: the position before it and the choice made.
#[derive(Clone, Debug)]
pub struct Decision {
    /// The seat that decided.
    pub seat: usize,
    /// That player's turn number, from 1.
    pub turn: u32,
    /// Card, dice and rolls left before the choice (0 rolls left when scoring).
    pub position: Position,
    /// The choice.
    pub choice: Choice,
}

/// Where the current turn stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The play order is not decided yet: opening rolls are expected.
    Opening,
    /// The order is decided but not yet recorded: an `order` event is expected.
    OrderDue,
    /// The player to move has not rolled yet.
    TurnStart,
    /// The dice are showing with this many rolls left.
    Rolled { dice: Dice, rolls_left: u8 },
    /// These dice were kept and the rest must be re-rolled, with this many rolls left.
    Kept { keep: Keep, rolls_left: u8 },
    /// The player stopped rolling (or has no roll left): a box must be filled.
    MustScore { dice: Dice },
    /// Every card is full.
    Over,
}

/// The referee of one game: the cards, whose turn it is and what may happen next.
#[derive(Clone, Debug)]
pub struct Game {
    rules: Rules,
    seats: Vec<Seat>,
    cards: Vec<ScoreCard>,
    /// Seats in play order, once decided.
    order: Vec<usize>,
    /// Seats rolling in the current round of opening rolls, and the totals rolled so far.
    contenders: Vec<usize>,
    opening_totals: Vec<u32>,
    /// Number of boxes filled so far by all players: the next to move is `order[scored % n]`.
    scored: usize,
    phase: Phase,
}

impl Game {
    /// A new game. The seats must be non-empty with distinct names.
    pub fn new(rules: Rules, seats: Vec<Seat>) -> Result<Game, Illegal> {
        if seats.is_empty() {
            return illegal("a game needs at least one player");
        }
        for (i, s) in seats.iter().enumerate() {
            if seats[..i].iter().any(|o| o.name == s.name) {
                return illegal(format!(
                    "player `{}` is named twice: give every seat its own name",
                    s.name
                ));
            }
        }
        let n = seats.len();
        let (order, phase) = if n == 1 {
            // Nobody to roll against: the only player starts.
            (vec![0], Phase::OrderDue)
        } else {
            (Vec::new(), Phase::Opening)
        };
        Ok(Game {
            rules,
            cards: vec![ScoreCard::new(rules); n],
            seats,
            order,
            contenders: (0..n).collect(),
            opening_totals: Vec::new(),
            scored: 0,
            phase,
        })
    }

    /// The game of a record header.
    pub fn from_header(header: &Header) -> Result<Game, Illegal> {
        let order = if header.upper_first {
            Order::UpperFirst
        } else {
            Order::Any
        };
        Game::new(Rules::with_order(header.rules, order), header.seats.clone())
    }

    /// The rules.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The seats in table order.
    pub fn seats(&self) -> &[Seat] {
        &self.seats
    }

    /// Each seat's card, in seat order.
    pub fn cards(&self) -> &[ScoreCard] {
        &self.cards
    }

    /// The play order (seat indices), empty until decided.
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// Where the game stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// True when every card is full.
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }

    /// The seat expected to act next: the next opening roller, or the player to move.
    pub fn to_move(&self) -> Option<usize> {
        match self.phase {
            Phase::Opening => self.contenders.get(self.opening_totals.len()).copied(),
            Phase::OrderDue | Phase::Over => None,
            _ => Some(self.order[self.scored % self.order.len()]),
        }
    }

    /// The turn number of the player to move, from 1.
    pub fn turn(&self) -> u32 {
        self.to_move()
            .map_or(0, |s| self.cards[s].filled().count_ones() + 1)
    }

    /// Each seat's total so far, bonuses included, in seat order.
    pub fn totals(&self) -> Vec<FinalScore> {
        self.seats
            .iter()
            .zip(&self.cards)
            .map(|(s, c)| FinalScore {
                player: s.name.clone(),
                total: c.banked(),
            })
            .collect()
    }

    /// Opening rolls made in the current round (0 right after a tie starts a new round).
    pub fn opening_rolled(&self) -> usize {
        self.opening_totals.len()
    }

    /// The play order the opening rolls decided, before the `order` event is applied.
    pub fn decided_order(&self) -> Option<Vec<usize>> {
        (self.phase == Phase::OrderDue).then(|| self.order.clone())
    }

    fn seat_named(&self, name: &str) -> Result<usize, Illegal> {
        match self.seats.iter().position(|s| s.name == name) {
            Some(i) => Ok(i),
            None => illegal(format!(
                "`{name}` is not a player of this game: the players are {}",
                self.seats
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// Checks that `player` at `turn` is the one to move.
    fn check_mover(&self, player: &str, turn: u32) -> Result<usize, Illegal> {
        let seat = self.seat_named(player)?;
        let expected = self.to_move().expect("a turn phase has a player to move");
        if seat != expected {
            return illegal(format!(
                "it is {}'s turn, not {player}'s",
                self.seats[expected].name
            ));
        }
        if turn != self.turn() {
            return illegal(format!(
                "{player} is playing turn {}, not turn {turn}",
                self.turn()
            ));
        }
        Ok(seat)
    }

    /// Applies one event, refusing it with the reason if the rules do not allow it. A keep or
    /// a score is a decision, returned for coaching and review.
    pub fn apply(&mut self, event: &Event) -> Result<Option<Decision>, Illegal> {
        match (event, self.phase) {
            (Event::End { .. }, _) => illegal("the end of the game is not an event of play"),
            (_, Phase::Over) => illegal("the game is over: every card is full"),
            (Event::Opening { player, dice }, Phase::Opening) => {
                let seat = self.seat_named(player)?;
                let expected = self.contenders[self.opening_totals.len()];
                if seat != expected {
                    return illegal(format!(
                        "the next opening roll is {}'s, not {player}'s",
                        self.seats[expected].name
                    ));
                }
                let dice = parse_dice(dice)?;
                self.opening_totals.push(dice.sum());
                if self.opening_totals.len() == self.contenders.len() {
                    let high = self.opening_totals.iter().copied().max().unwrap_or(0);
                    let tied: Vec<usize> = self
                        .contenders
                        .iter()
                        .zip(&self.opening_totals)
                        .filter(|(_, t)| **t == high)
                        .map(|(s, _)| *s)
                        .collect();
                    self.opening_totals.clear();
                    if tied.len() == 1 {
                        // The highest total starts; play passes to the left (the next seat).
                        let n = self.seats.len();
                        self.order = (0..n).map(|k| (tied[0] + k) % n).collect();
                        self.phase = Phase::OrderDue;
                    } else {
                        // A tie for the highest total: the tied players roll again.
                        self.contenders = tied;
                    }
                }
                Ok(None)
            }
            (Event::Opening { .. }, _) => illegal("no opening roll is due now"),
            (_, Phase::Opening) => {
                illegal("the opening rolls that choose the first player come first")
            }
            (Event::Order { players }, Phase::OrderDue) => {
                let expected: Vec<&str> = self
                    .order
                    .iter()
                    .map(|&s| self.seats[s].name.as_str())
                    .collect();
                if *players != expected {
                    return illegal(format!(
                        "the opening rolls give the order {}, not {}",
                        expected.join(", "),
                        players.join(", ")
                    ));
                }
                self.phase = Phase::TurnStart;
                Ok(None)
            }
            (Event::Order { .. }, _) => illegal("the play order is already decided"),
            (_, Phase::OrderDue) => illegal("the play order (an `order` line) comes first"),
            (
                Event::Roll {
                    player,
                    turn,
                    dice,
                    rolls_left,
                },
                phase,
            ) => {
                self.check_mover(player, *turn)?;
                let dice = parse_dice(dice)?;
                let expected_left = match phase {
                    Phase::TurnStart => 2,
                    Phase::Kept { keep, rolls_left } => {
                        if !keep.is_within(&dice) {
                            return illegal(format!(
                                "the roll {dice} does not hold the kept dice {keep}"
                            ));
                        }
                        rolls_left - 1
                    }
                    Phase::Rolled { .. } => {
                        return illegal("a re-roll must follow a keep");
                    }
                    _ => return illegal("no roll is due now: a box must be filled"),
                };
                if *rolls_left != expected_left {
                    return illegal(format!(
                        "this roll leaves {expected_left} roll(s), not {rolls_left}"
                    ));
                }
                self.phase = if expected_left == 0 {
                    Phase::MustScore { dice }
                } else {
                    Phase::Rolled {
                        dice,
                        rolls_left: expected_left,
                    }
                };
                Ok(None)
            }
            (
                Event::Keep {
                    player,
                    turn,
                    keep,
                    rolls_left,
                },
                phase,
            ) => {
                let seat = self.check_mover(player, *turn)?;
                let Phase::Rolled {
                    dice,
                    rolls_left: left,
                } = phase
                else {
                    return illegal("no keep is due now: keeps follow a roll with rolls left");
                };
                if *rolls_left != left {
                    return illegal(format!(
                        "the keep is made with {left} roll(s) left, not {rolls_left}"
                    ));
                }
                let keep = parse_keep(keep, &dice)?;
                self.phase = if keep.len() == DICE {
                    Phase::MustScore { dice }
                } else {
                    Phase::Kept {
                        keep,
                        rolls_left: left,
                    }
                };
                Ok(Some(Decision {
                    seat,
                    turn: *turn,
                    position: Position {
                        card: self.cards[seat].clone(),
                        dice,
                        rolls_left: left,
                    },
                    choice: Choice::Keep(keep),
                }))
            }
            (
                Event::Score {
                    player,
                    turn,
                    category,
                    points,
                    bonus,
                },
                phase,
            ) => {
                let seat = self.check_mover(player, *turn)?;
                let dice = match phase {
                    Phase::MustScore { dice } => dice,
                    Phase::Rolled { .. } => {
                        return illegal(
                            "rolls are left: keep all five dice (a `keep` line) to stop first",
                        );
                    }
                    _ => return illegal("no box can be filled now: roll first"),
                };
                let card = &self.cards[seat];
                let index = match self.rules.box_by_name(category) {
                    Some(i) => i,
                    None => {
                        return illegal(format!(
                            "unknown box `{category}`: the boxes are {}",
                            box_names(&self.rules)
                        ));
                    }
                };
                check_legal(&self.rules, card, &dice, index)?;
                let state = card.state();
                let want = self.rules.score(index, &dice, state.filled);
                let five = dice.five_of_a_kind().is_some();
                let bonuses = state.bonuses_for(&self.rules, index, want, five);
                let want_bonus = bonuses.points(&self.rules);
                if *points != want || *bonus != want_bonus {
                    return illegal(format!(
                        "{category} with {dice} scores {want} with bonus {want_bonus}, not {points} with bonus {bonus}"
                    ));
                }
                let decision = Decision {
                    seat,
                    turn: *turn,
                    position: Position {
                        card: card.clone(),
                        dice,
                        rolls_left: 0,
                    },
                    choice: Choice::Score(index),
                };
                let yahtzee_bonus = state.yahtzee_50 && five;
                debug_assert_eq!(yahtzee_bonus, bonuses.yahtzee);
                self.cards[seat].fill(index, want, yahtzee_bonus);
                self.scored += 1;
                self.phase = if self.scored == self.seats.len() * self.rules.box_count() {
                    Phase::Over
                } else {
                    Phase::TurnStart
                };
                Ok(Some(decision))
            }
        }
    }
}

/// The box names of `rules`, comma-separated.
pub fn box_names(rules: &Rules) -> String {
    rules.names_of(rules.full_mask())
}

/// Refuses a box that cannot be filled with `dice` on `card`, saying why.
pub fn check_legal(
    rules: &Rules,
    card: &ScoreCard,
    dice: &Dice,
    index: usize,
) -> Result<(), Illegal> {
    let name = rules.boxes()[index].name();
    if let Some(p) = card.points(index) {
        return illegal(format!("{name} is already filled (with {p})"));
    }
    let filled = card.filled();
    let legal = rules.legal_boxes(filled, dice);
    if legal & (1 << index) != 0 {
        return Ok(());
    }
    let allowed = |mask| rules.names_of(mask);
    if rules.open_by_order(filled) & (1 << index) == 0 {
        return illegal(format!(
            "under --upper-first the upper boxes come first: {name} waits until {} are filled",
            allowed(rules.open_by_order(filled))
        ));
    }
    illegal(format!(
        "the Joker rule forbids {name}: a Yahtzee with the Yahtzee box filled must go in {}",
        allowed(legal)
    ))
}

fn parse_dice(faces: &[u8]) -> Result<Dice, Illegal> {
    Dice::from_faces(faces).map_err(|e| Illegal(e.to_string()))
}

fn parse_keep(faces: &[u8], dice: &Dice) -> Result<Keep, Illegal> {
    let keep = match Keep::from_faces(faces) {
        Some(k) => k,
        None => {
            return illegal(format!(
                "cannot keep {faces:?}: a keep is at most five faces from 1 to 6"
            ));
        }
    };
    if !keep.is_within(dice) {
        return illegal(format!("cannot keep {keep}: the dice are {dice}"));
    }
    Ok(keep)
}

/// The price of one decision against optimal play.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// The choice made, in words (`keep 3 3`, `stop and score full-house`, `score full-house for 25`).
    pub chosen: String,
    /// The best choice, in the same words.
    pub best: String,
    /// Expected final score after the choice made, under optimal play from then on.
    pub chosen_value: f64,
    /// Expected final score after the best choice.
    pub best_value: f64,
    /// `best_value - chosen_value`; 0 for a choice tied with the best (within [`TIE`]).
    pub loss: f64,
}

/// Describes an option of [`advise`] in words: its [`Display`](std::fmt::Display) form.
pub fn describe_option(option: &AdviceOption) -> String {
    option.to_string()
}

/// Prices `decision` with [`advise`] on the same position: the loss of the option chosen.
pub fn evaluate(table: &StrategyTable, decision: &Decision) -> Result<Evaluation, AdviceError> {
    let advice = advise(table, &decision.position)?;
    let rules = table.rules();
    let chosen = advice
        .options
        .iter()
        .find(|o| match (o, decision.choice) {
            (AdviceOption::Keep { keep, .. }, Choice::Keep(k)) => *keep == k.faces(),
            (AdviceOption::Score { category, .. }, Choice::Score(i)) => {
                category == rules.boxes()[i].name()
            }
            _ => false,
        })
        .expect("a legal decision is one of the options of its position");
    let best = &advice.options[0];
    let loss = chosen.loss();
    // The chosen stop is priced with the best box; which box was filled is the next decision.
    let chosen_words = match chosen {
        AdviceOption::Keep {
            stop_and_score: Some(_),
            ..
        } => "stop rolling".to_string(),
        other => describe_option(other),
    };
    Ok(Evaluation {
        chosen: chosen_words,
        best: describe_option(best),
        chosen_value: chosen.expected_final(),
        best_value: best.expected_final(),
        // Options within TIE of the best are ties: choosing one costs nothing.
        loss: if loss <= TIE { 0.0 } else { loss },
    })
}

/// Portable dice: ChaCha8 from a 64-bit seed, so a seed replays the same dice on every
/// platform and build.
pub struct DiceRng(ChaCha8Rng);

impl DiceRng {
    /// The dice stream of `seed`.
    pub fn new(seed: u64) -> DiceRng {
        DiceRng(ChaCha8Rng::seed_from_u64(seed))
    }

    /// One die, uniform on 1..=6: rejection sampling on 32-bit words, so the result does not
    /// depend on any library's range algorithm. 4_294_967_292 = 6 * 715_827_882 is the largest
    /// multiple of 6 not above 2^32.
    pub fn die(&mut self) -> u8 {
        loop {
            let x = self.0.next_u32();
            if x < 4_294_967_292 {
                return (x % 6) as u8 + 1;
            }
        }
    }

    /// `n` dice.
    pub fn dice(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.die()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleSet;

    fn seats(names: &[&str]) -> Vec<Seat> {
        names
            .iter()
            .map(|n| Seat {
                name: n.to_string(),
                kind: SeatKind::Human,
            })
            .collect()
    }

    fn opening(p: &str, d: [u8; 5]) -> Event {
        Event::Opening {
            player: p.into(),
            dice: d.to_vec(),
        }
    }

    #[test]
    fn seeded_dice_are_a_fixed_portable_stream() {
        let mut a = DiceRng::new(42);
        let mut b = DiceRng::new(42);
        let xs = a.dice(1000);
        assert_eq!(xs, b.dice(1000));
        assert!(xs.iter().all(|d| (1..=6).contains(d)));
        for f in 1..=6 {
            let n = xs.iter().filter(|&&d| d == f).count();
            assert!((120..220).contains(&n), "face {f} came {n} times in 1000");
        }
        assert_ne!(xs, DiceRng::new(43).dice(1000));
    }

    #[test]
    fn highest_opening_total_starts_and_ties_roll_again() {
        let mut g = Game::new(Rules::new(RuleSet::YAHTZEE), seats(&["a", "b", "c"])).unwrap();
        g.apply(&opening("a", [6, 6, 6, 1, 1])).unwrap(); // 20
        assert!(g.apply(&opening("c", [1, 1, 1, 1, 1])).is_err());
        g.apply(&opening("b", [1, 1, 1, 1, 1])).unwrap(); // 5
        g.apply(&opening("c", [5, 5, 5, 4, 1])).unwrap(); // 20: tie with a
        assert_eq!(g.phase(), Phase::Opening);
        assert_eq!(g.to_move(), Some(0));
        g.apply(&opening("a", [1, 2, 3, 4, 5])).unwrap();
        g.apply(&opening("c", [2, 2, 3, 4, 5])).unwrap();
        // c starts, then play passes to the left: a, then b.
        assert_eq!(g.decided_order(), Some(vec![2, 0, 1]));
        let bad = Event::Order {
            players: vec!["a".into(), "b".into(), "c".into()],
        };
        assert!(g.apply(&bad).unwrap_err().0.contains("c, a, b"));
    }

    #[test]
    fn refuses_illegal_turns() {
        let rules = Rules::new(RuleSet::YAHTZEE);
        let mut g = Game::new(rules, seats(&["a"])).unwrap();
        g.apply(&Event::Order {
            players: vec!["a".into()],
        })
        .unwrap();
        let roll = |d: [u8; 5], left| Event::Roll {
            player: "a".into(),
            turn: 1,
            dice: d.to_vec(),
            rolls_left: left,
        };
        let keep = |k: &[u8], left| Event::Keep {
            player: "a".into(),
            turn: 1,
            keep: k.to_vec(),
            rolls_left: left,
        };
        assert!(g.apply(&roll([1, 2, 3, 4, 7], 2)).is_err());
        assert!(g.apply(&roll([1, 2, 3, 4, 5], 1)).is_err());
        g.apply(&roll([1, 3, 3, 5, 6], 2)).unwrap();
        assert!(
            g.apply(&keep(&[6, 6], 2))
                .unwrap_err()
                .0
                .contains("cannot keep")
        );
        let d = g.apply(&keep(&[3, 3], 2)).unwrap().unwrap();
        assert_eq!(d.position.rolls_left, 2);
        assert!(
            g.apply(&roll([1, 2, 4, 5, 6], 1))
                .unwrap_err()
                .0
                .contains("kept")
        );
        g.apply(&roll([3, 3, 3, 5, 6], 1)).unwrap();
        let score = |b: &str, p, bonus| Event::Score {
            player: "a".into(),
            turn: 1,
            category: b.into(),
            points: p,
            bonus,
        };
        assert!(
            g.apply(&score("threes", 9, 0))
                .unwrap_err()
                .0
                .contains("stop")
        );
        g.apply(&keep(&[3, 3, 3, 5, 6], 1)).unwrap();
        assert!(
            g.apply(&score("threes", 6, 0))
                .unwrap_err()
                .0
                .contains("scores 9")
        );
        assert!(g.apply(&score("sevens", 6, 0)).is_err());
        g.apply(&score("threes", 9, 0)).unwrap();
        assert_eq!(g.turn(), 2);
        assert_eq!(g.totals()[0].total, 9);
    }

    #[test]
    fn explains_joker_and_order_refusals() {
        let rules = Rules::new(RuleSet::YAHTZEE);
        let card = ScoreCard::parse(rules, "yahtzee=50", 0).unwrap();
        let fours = Dice::from_faces(&[4; 5]).unwrap();
        let e = check_legal(&rules, &card, &fours, 12).unwrap_err();
        assert!(e.0.contains("Joker") && e.0.contains("fours"), "{e}");
        let e = check_legal(&rules, &card, &fours, 11).unwrap_err();
        assert!(e.0.contains("already filled"), "{e}");
        let uf = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
        let e = check_legal(&uf, &ScoreCard::new(uf), &fours, 7).unwrap_err();
        assert!(e.0.contains("upper-first"), "{e}");
    }
}
