//! A game of one or more players: the rules of play, the record of a game, the game in
//! progress (its host), the player's commands and the terminal session.
//!
//! [`Game`] is the referee. It takes the events of a game one at a time ([`Game::apply`]),
//! refuses any event the rules do not allow, and hands back every decision a player made
//! ([`Decision`]: the position and the choice). Both `yahtzee play` (which makes the events)
//! and `yahtzee review` (which reads them from a record) go through it, so a record the game
//! writes is exactly what the review accepts. The coach and the review price decisions
//! alike, through [`crate::policy::pricing`]. A game in progress is a [`host::Host`], which
//! both the terminal ([`session`]) and the web page drive.
//!
//! - [`host`]: the game in progress, the state machine both front ends drive (the terminal's
//!   session and the page's games): the referee, the record, the dice, the bots, the coach.
//! - [`own`]: a game played by a policy of one's own (a callback), with the dice of a seeded
//!   simulation's game.
//! - [`record`]: the JSON Lines record format.
//! - [`review`]: the price of every decision of a record; [`rating`]: a player's rating
//!   across many records.
//! - [`command`]: what a player types.
//! - [`session`]: the terminal game: the prompts, the commands and the hints, around the host.
//! - [`render`]: the score card as text.

pub mod command;
pub mod host;
pub mod own;
pub mod rating;
pub mod record;
pub mod render;
pub mod review;
pub mod session;

use crate::game::choice::Choice;
use crate::game::dice::{Dice, DiceError, Keep};
use crate::game::rules::{Order, Rules, describe_scores};
use crate::game::state::{Bonuses, ScoreCard};
use crate::policy::MAX_TARGET;
use crate::policy::expected::Position;
use crate::policy::pricing::Decision;
use crate::text::{excerpt, plural};

pub use record::{
    DiceMode, Entry, Event, FinalScore, Header, RECORD_FORMAT, Seat, SeatKind, WinPolicy,
};

/// Characters a player's name may have at most: it fits a column of the score card.
pub const MAX_NAME_CHARS: usize = 20;

/// An event the rules do not allow, or a table of players that cannot play. Each message says
/// what was wrong and what the rules expect instead; text from a record (names, boxes) is
/// quoted through [`excerpt`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Illegal {
    /// The table has no seat. Fix: give at least one player.
    #[error("a game needs at least one player")]
    NoPlayers,
    /// More seats than a game takes. Fix: at most [`MAX_PLAYERS`] players.
    #[error("a game takes at most {MAX_PLAYERS} players, not {0}")]
    TooManyPlayers(usize),
    /// A player's name is empty. Fix: give every player a name.
    #[error("empty player name: every player needs a name, e.g. alice, bob or bot")]
    EmptyName,
    /// A player's name is too long or holds quotes or characters that are not printable
    /// (controls, bidirectional overrides, separators: [`crate::text::is_printable`]). Fix: a
    /// name of at most [`MAX_NAME_CHARS`] printable characters, without `"`.
    #[error(
        "player name `{name}` is not allowed: use at most 20 printable characters (no `\"`, control or format character such as U+202E)"
    )]
    BadName {
        /// The name, quoted through [`excerpt`].
        name: String,
    },
    /// Two seats have the same name (in any case). Fix: give every seat its own name; bots
    /// are `bot`, `bot2`, ...
    #[error("player `{name}` is named twice: give every seat its own name (bots: bot, bot2, ...)")]
    NamedTwice {
        /// The name, quoted through [`excerpt`].
        name: String,
    },
    /// A seat with a policy that is not one: a person given one, or a bot given anything but
    /// a target score or a win policy, or both. Fix: `bot:target=T` (or `bot2:target=T`, ...)
    /// with `T` from 0 to [`MAX_TARGET`], `bot:win`, `bot:win-exact` or `bot:two-player`;
    /// people play for themselves.
    #[error(
        "seat `{seat}`: only a bot (bot, bot2, ...) has a policy, written bot:target=T with T a whole number from 0 to {MAX_TARGET} (e.g. bot:target=300), bot:win, bot:win-exact or bot:two-player"
    )]
    BadPolicy {
        /// The seat as given, quoted through [`excerpt`].
        seat: String,
    },
    /// A bot that plays to win at a table of one. Fix: seat other players, or seat the bot
    /// without `:win`.
    #[error(
        "seat `{seat}` plays to win against the other players, but it is alone at the table: seat others, or the bot alone as `bot`"
    )]
    WinAlone {
        /// The seat as given, quoted through [`excerpt`].
        seat: String,
    },
    /// A two-player bot in a game of rules other than Yacht's, or of other than two players.
    /// Fix: seat it in a game of two of Yacht (either fill order), or seat another bot.
    #[error(
        "seat `{seat}` plays the exact game of two of Yacht (either fill order) with exactly two players, not {rules} with {players} players: seat it against one player in Yacht, or seat a bot of another policy (e.g. bot:win)"
    )]
    TwoPlayerSeat {
        /// The seat as given, quoted through [`excerpt`].
        seat: String,
        /// The rules of the game.
        rules: String,
        /// The number of players.
        players: usize,
    },
    /// An event names someone who has no seat. Fix: name one of the players.
    #[error("`{name}` is not a player of this game: the players are {players}")]
    NotAPlayer {
        /// The name given, quoted through [`excerpt`].
        name: String,
        /// The players, comma-separated.
        players: String,
    },
    /// Another player is to move. Fix: the events of the player to move come first.
    #[error("it is {} turn, not {}", possessive(.expected), possessive(.got))]
    NotTheirTurn {
        /// The player to move.
        expected: String,
        /// The player of the event.
        got: String,
    },
    /// The event has the wrong turn number. Fix: the player's turn number, from 1.
    #[error("{player} {} playing turn {expected}, not turn {got}", agree(.player, "is", "are"))]
    WrongTurn {
        /// The player.
        player: String,
        /// The turn being played.
        expected: u32,
        /// The turn of the event.
        got: u32,
    },
    /// An `end` line given to the referee. Fix: the end is read by the record, not played.
    #[error("the end of the game is not an event of play")]
    EndIsNotPlay,
    /// An event after every card is full. Fix: nothing follows the last box but the end.
    #[error("the game is over: every card is full")]
    GameOver,
    /// An opening roll out of seat order. Fix: the players roll in seat order.
    #[error("the next opening roll is {}, not {}", possessive(.expected), possessive(.got))]
    NotTheirOpening {
        /// The player due to roll.
        expected: String,
        /// The player of the event.
        got: String,
    },
    /// An opening roll once the order is decided. Fix: remove it.
    #[error("no opening roll is due now")]
    NoOpeningDue,
    /// A turn before the opening rolls. Fix: the opening rolls choose the first player first.
    #[error("the opening rolls that choose the first player come first")]
    OpeningFirst,
    /// An order other than the opening rolls give. Fix: the order they give.
    #[error("the opening rolls give the order {expected}, not {got}")]
    WrongOrder {
        /// The order the opening rolls give.
        expected: String,
        /// The order of the event, quoted through [`excerpt`].
        got: String,
    },
    /// A second order. Fix: remove it.
    #[error("the play order is already decided")]
    OrderDecided,
    /// A turn before the order. Fix: the `order` line comes first.
    #[error("the play order (an `order` line) comes first")]
    OrderFirst,
    /// Dice or a keep that are not dice. Fix: faces from 1 to 6, five for a roll.
    #[error(transparent)]
    Dice(#[from] DiceError),
    /// A re-roll without the dice kept before it. Fix: the kept dice stay.
    #[error("the roll {dice} does not hold the kept dice {keep}")]
    RollLostKeep {
        /// The dice of the roll.
        dice: Dice,
        /// The dice kept.
        keep: Keep,
    },
    /// Two rolls without a keep between them. Fix: a keep before each re-roll.
    #[error("a re-roll must follow a keep")]
    RerollWithoutKeep,
    /// A roll with no roll left. Fix: fill a box.
    #[error("no roll is due now: a box must be filled")]
    NoRollDue,
    /// A roll with the wrong count of rolls left. Fix: 2 after the first roll, then 1, then 0
    /// (from 3 in a game of four rolls a turn).
    #[error("this roll leaves {}, not {got}", plural(u64::from(*.expected), "roll", "rolls"))]
    RollsLeft {
        /// Rolls left after this roll.
        expected: u8,
        /// Rolls left the event says.
        got: u8,
    },
    /// A keep when no dice are showing with rolls left. Fix: keeps follow a roll with rolls
    /// left.
    #[error("no keep is due now: keeps follow a roll with rolls left")]
    NoKeepDue,
    /// Under saved rolls, the first roll of a turn with other re-rolls left than the game's
    /// and the player's rolls saved. Fix: those re-rolls.
    #[error(
        "this roll leaves {}: the turn's {rerolls} and the {} saved before it, not {got}",
        plural(u64::from(*.expected), "re-roll", "re-rolls"),
        plural(u64::from(*.saved), "roll", "rolls")
    )]
    SavedRollsLeft {
        /// Re-rolls left after this roll.
        expected: u8,
        /// The re-rolls of a turn of the game.
        rerolls: u8,
        /// The rolls the player saved before the turn.
        saved: u8,
        /// Rolls left the event says.
        got: u8,
    },
    /// Under saved rolls, a first roll that states other rolls saved than the player's. Fix:
    /// the rolls the player saved (the re-rolls left by the boxes filled before).
    #[error("{player} had {} saved before this turn, not {got}", plural(u64::from(*.expected), "roll", "rolls"))]
    WrongSaved {
        /// The player.
        player: String,
        /// The rolls the player saved.
        expected: u8,
        /// The rolls saved the event says.
        got: u8,
    },
    /// The rolls saved stated on a re-roll. Fix: only a turn's first roll states them.
    #[error("only the first roll of a turn states the rolls saved before it (`saved`)")]
    SavedOnReroll,
    /// A field of saved rolls (a roll's `saved`, a score's `rolls_left`) in a game without
    /// them. Fix: remove it.
    #[error(
        "this game does not keep unused rolls for later turns: a roll has no `saved` and a score no `rolls_left`"
    )]
    NoSavedRolls,
    /// Under saved rolls, a keep of all the dice: a turn stops by filling a box, which saves
    /// the re-rolls left. Fix: fill a box.
    #[error(
        "under saved rolls a turn stops by filling a box, its re-rolls left saved for later turns: score a box now instead of keeping all the dice"
    )]
    StopUnderSavedRolls,
    /// Under saved rolls, a box filled with other re-rolls left than the turn has. Fix: the
    /// re-rolls left when the box is filled.
    #[error(
        "the box is filled with {} left, which it saves, not {got}",
        plural(u64::from(*.expected), "re-roll", "re-rolls")
    )]
    ScoreRollsLeft {
        /// The re-rolls left.
        expected: u8,
        /// The re-rolls left the event says.
        got: u8,
    },
    /// A keep with the wrong count of rolls left. Fix: the rolls left of the roll before.
    #[error("the keep is made with {} left, not {got}", plural(u64::from(*.expected), "roll", "rolls"))]
    KeepRollsLeft {
        /// Rolls left at the keep.
        expected: u8,
        /// Rolls left the event says.
        got: u8,
    },
    /// A keep of dice that are not showing. Fix: keep some of the dice shown.
    #[error("cannot keep {keep}: the dice are {dice}")]
    KeepNotInDice {
        /// The keep.
        keep: Keep,
        /// The dice showing.
        dice: Dice,
    },
    /// A box filled with rolls left. Fix: stop first (keep all the dice).
    #[error("rolls are left: keep all the dice (a `keep` line) to stop first")]
    ScoreWithRollsLeft,
    /// A box filled before rolling. Fix: roll first.
    #[error("no box can be filled now: roll first")]
    NoScoreDue,
    /// A box these rules do not have. Fix: one of the boxes listed.
    #[error("unknown box `{name}`: the boxes are {boxes}")]
    UnknownBox {
        /// The name given, quoted through [`excerpt`].
        name: String,
        /// The boxes of the rules.
        boxes: String,
    },
    /// A box already filled. Fix: an open box.
    #[error("{name} is already filled (with {points})")]
    Filled {
        /// The box.
        name: String,
        /// Its points.
        points: u32,
    },
    /// A lower box while an upper box is open, under the upper-first rule. Fix: an upper box.
    #[error(
        "under the upper-first rule the upper boxes come first: {name} waits until {open} are filled"
    )]
    UpperFirst {
        /// The box.
        name: String,
        /// The upper boxes still open.
        open: String,
    },
    /// A box the Joker rule forbids for a further Yahtzee. Fix: one of the boxes listed.
    #[error(
        "the Joker rule forbids {name}: a Yahtzee with the Yahtzee box filled must go in {allowed}"
    )]
    Joker {
        /// The box.
        name: String,
        /// The boxes allowed.
        allowed: String,
    },
    /// A seat entered as a box and its points that is a bot's, or in a game of saved rolls.
    /// Fix: enter a person's turns so, in a game without saved rolls.
    #[error(
        "seat `{seat}` is entered as a box and its points: only a person's seat is, in a game without saved rolls"
    )]
    PointsSeat {
        /// The seat's name, quoted through [`excerpt`].
        seat: String,
    },
    /// A roll or a keep of a player whose turns are entered as a box and its points. Fix: a
    /// `score` line alone for each of that player's turns.
    #[error(
        "{} turns are entered as a box and its points, without dice: a `score` line alone",
        possessive(.player)
    )]
    NoDiceForPoints {
        /// The player.
        player: String,
    },
    /// Points entered without dice that the box cannot score. Fix: one of the values listed.
    #[error("{title} scores {allowed}, not {got}")]
    Unattainable {
        /// The box as printed on a card (`Full House`).
        title: String,
        /// The points it can score, in words (`0 or 25`).
        allowed: String,
        /// The points entered.
        got: u32,
    },
    /// Points entered without dice with another bonus than they can earn. Fix: one of the
    /// bonuses listed.
    #[error("{title} for {points} earns a bonus of {allowed}, not {got}")]
    UnattainableBonus {
        /// The box as printed on a card.
        title: String,
        /// The points entered.
        points: u32,
        /// The bonuses they can earn, in words (`0 or 100`).
        allowed: String,
        /// The bonus entered.
        got: u32,
    },
    /// Points or bonus other than the rules give. Fix: the points and bonus of the message.
    #[error(
        "{name} with {dice} scores {points} with bonus {bonus}, not {got_points} with bonus {got_bonus}"
    )]
    WrongPoints {
        /// The box.
        name: String,
        /// The dice.
        dice: Dice,
        /// The points the rules give.
        points: u32,
        /// The bonus the rules give.
        bonus: u32,
        /// The points of the event.
        got_points: u32,
        /// The bonus of the event.
        got_bonus: u32,
    },
}

/// `one` or `many`, agreeing with a player's name: a player called `you` (any case) takes the
/// plural verb, as in `you score`; everyone else the singular, as in `ann scores`.
pub fn agree<'a>(name: &str, one: &'a str, many: &'a str) -> &'a str {
    if name.eq_ignore_ascii_case("you") {
        many
    } else {
        one
    }
}

/// A player's name as a possessive: `ann's`, and `your` for a player called `you`.
pub fn possessive(name: &str) -> String {
    if name.eq_ignore_ascii_case("you") {
        "your".to_string()
    } else {
        format!("{name}'s")
    }
}

/// The most players at a table: as many as a match of `simulate --match` seats.
pub const MAX_PLAYERS: usize = crate::stats::matches::MAX_SEATS;

/// Checks the names of a table: one to [`MAX_PLAYERS`] seats, each name non-empty, at most [`MAX_NAME_CHARS`] printable
/// characters ([`crate::text::is_printable`]) without `"`, and no two alike in any case; a target only for a bot, from 0 to
/// [`MAX_TARGET`]; a win policy only for a bot without a target, at a table of two or more.
pub fn check_names(seats: &[Seat]) -> Result<(), Illegal> {
    if seats.is_empty() {
        return Err(Illegal::NoPlayers);
    }
    if seats.len() > MAX_PLAYERS {
        return Err(Illegal::TooManyPlayers(seats.len()));
    }
    for (i, s) in seats.iter().enumerate() {
        let name = s.name.as_str();
        if name.is_empty() {
            return Err(Illegal::EmptyName);
        }
        if name.chars().count() > MAX_NAME_CHARS
            || !crate::text::printable(name)
            || name.contains('"')
            || name.trim() != name
        {
            return Err(Illegal::BadName {
                name: excerpt(name),
            });
        }
        if let Some(t) = s.target
            && (s.kind != SeatKind::Bot || t > MAX_TARGET || s.policy.is_some())
        {
            return Err(Illegal::BadPolicy {
                seat: excerpt(&format!("{name}:target={t}")),
            });
        }
        if s.enters_points() && s.kind != SeatKind::Human {
            return Err(Illegal::PointsSeat {
                seat: excerpt(name),
            });
        }
        if let Some(p) = s.policy {
            let seat = excerpt(&format!("{name}:{}", p.name()));
            if s.kind != SeatKind::Bot {
                return Err(Illegal::BadPolicy { seat });
            }
            if seats.len() < 2 {
                return Err(Illegal::WinAlone { seat });
            }
        }
        if seats[..i].iter().any(|o| o.name.eq_ignore_ascii_case(name)) {
            return Err(Illegal::NamedTwice {
                name: excerpt(name),
            });
        }
    }
    Ok(())
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
    /// Under saved rolls, the rolls each seat has saved: the re-rolls its turns left unused
    /// when they filled a box (for the player to move, those saved before the turn under
    /// way). All 0 in other games.
    saved: Vec<u8>,
}

impl Game {
    /// A new game. The seats must be non-empty with distinct names.
    pub fn new(rules: Rules, seats: Vec<Seat>) -> Result<Game, Illegal> {
        check_names(&seats)?;
        if let Some(s) = seats
            .iter()
            .find(|s| s.policy == Some(WinPolicy::TwoPlayer))
            && (crate::solve::two_player::check_rules(&rules).is_err() || seats.len() != 2)
        {
            return Err(Illegal::TwoPlayerSeat {
                seat: excerpt(&format!("{}:two-player", s.name)),
                rules: rules.label(),
                players: seats.len(),
            });
        }
        if let Some(s) = seats.iter().find(|s| s.enters_points())
            && rules.saved_rolls()
        {
            return Err(Illegal::PointsSeat {
                seat: excerpt(&s.name),
            });
        }
        let n = seats.len();
        let (order, phase) = if n == 1 || seats.iter().any(Seat::enters_points) {
            // Nobody to roll against: the only player starts. At a score pad's table (a
            // seat entered as points) nobody rolls for it either: play follows the table's
            // order, the first seat first.
            ((0..n).collect(), Phase::OrderDue)
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
            saved: vec![0; n],
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

    /// The rolls each seat has saved, in seat order: under saved rolls, the re-rolls its
    /// turns left unused when they filled a box (for the player to move, those saved before
    /// the turn under way); 0 in other games.
    pub fn saved(&self) -> &[u8] {
        &self.saved
    }

    /// The re-rolls a turn of `seat` starts with: the game's (two in a game of three rolls a
    /// turn) and, under saved rolls, the rolls the seat saved before it.
    pub fn turn_rerolls(&self, seat: usize) -> u8 {
        self.rules.most_rolls_left() + self.saved[seat]
    }

    /// Under saved rolls, the rolls `seat` saved before its turn under way (or next);
    /// `None` in other games: what a decision states.
    fn saved_of(&self, seat: usize) -> Option<u8> {
        self.rules.saved_rolls().then_some(self.saved[seat])
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
            None => Err(Illegal::NotAPlayer {
                name: excerpt(name),
                players: self
                    .seats
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }

    /// Checks that `player` at `turn` is the one to move.
    fn check_mover(&self, player: &str, turn: u32) -> Result<usize, Illegal> {
        let seat = self.seat_named(player)?;
        let expected = self.to_move().expect("a turn phase has a player to move");
        if seat != expected {
            return Err(Illegal::NotTheirTurn {
                expected: self.seats[expected].name.clone(),
                got: self.seats[seat].name.clone(),
            });
        }
        if turn != self.turn() {
            return Err(Illegal::WrongTurn {
                player: self.seats[seat].name.clone(),
                expected: self.turn(),
                got: turn,
            });
        }
        Ok(seat)
    }

    /// Refuses dice for `seat` when its turns are entered as a box and its points.
    fn check_dice_seat(&self, seat: usize) -> Result<(), Illegal> {
        match self.seats[seat].enters_points() {
            true => Err(Illegal::NoDiceForPoints {
                player: self.seats[seat].name.clone(),
            }),
            false => Ok(()),
        }
    }

    /// The box named `category` (or an alias) of the rules.
    fn box_index(&self, category: &str) -> Result<usize, Illegal> {
        self.rules
            .box_by_name(category)
            .ok_or_else(|| Illegal::UnknownBox {
                name: excerpt(category),
                boxes: box_names(&self.rules),
            })
    }

    /// `seat`, whose turns are entered as a box and its points, fills the box `category` with
    /// `points` and `bonus`: refused unless some roll scores them there ([`attainable`]).
    /// Nothing is decided that a review could price: there are no dice.
    fn score_points(
        &mut self,
        seat: usize,
        category: &str,
        points: u32,
        bonus: u32,
    ) -> Result<(), Illegal> {
        if self.phase != Phase::TurnStart {
            return Err(Illegal::NoScoreDue);
        }
        let index = self.box_index(category)?;
        let card = &self.cards[seat];
        let options = attainable(&self.rules, card, index)?;
        let title = self.rules.boxes()[index].title.to_string();
        let same: Vec<&Attainable> = options.iter().filter(|a| a.points == points).collect();
        if same.is_empty() {
            let mut all: Vec<u32> = options.iter().map(|a| a.points).collect();
            all.dedup();
            return Err(Illegal::Unattainable {
                title,
                allowed: scores_in_words(&all),
                got: points,
            });
        }
        let Some(chosen) = same.iter().find(|a| a.bonus == bonus) else {
            let mut bonuses: Vec<u32> = same.iter().map(|a| a.bonus).collect();
            bonuses.sort_unstable();
            bonuses.dedup();
            return Err(Illegal::UnattainableBonus {
                title,
                points,
                allowed: scores_in_words(&bonuses),
                got: bonus,
            });
        };
        let yahtzee_bonus = chosen.yahtzee_bonus;
        self.cards[seat].fill(index, points, yahtzee_bonus);
        self.scored += 1;
        self.phase = if self.scored == self.seats.len() * self.rules.box_count() {
            Phase::Over
        } else {
            Phase::TurnStart
        };
        Ok(())
    }

    /// Applies one event, refusing it with the reason if the rules do not allow it. A keep or
    /// a score is a decision, returned for coaching and review.
    pub fn apply(&mut self, event: &Event) -> Result<Option<Decision>, Illegal> {
        match (event, self.phase) {
            (Event::End { .. }, _) => Err(Illegal::EndIsNotPlay),
            (_, Phase::Over) => Err(Illegal::GameOver),
            (Event::Opening { player, dice }, Phase::Opening) => {
                let seat = self.seat_named(player)?;
                let expected = self.contenders[self.opening_totals.len()];
                if seat != expected {
                    return Err(Illegal::NotTheirOpening {
                        expected: self.seats[expected].name.clone(),
                        got: self.seats[seat].name.clone(),
                    });
                }
                let dice = parse_dice(&self.rules, dice)?;
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
            (Event::Opening { .. }, _) => Err(Illegal::NoOpeningDue),
            (_, Phase::Opening) => Err(Illegal::OpeningFirst),
            (Event::Order { players }, Phase::OrderDue) => {
                let expected: Vec<&str> = self
                    .order
                    .iter()
                    .map(|&s| self.seats[s].name.as_str())
                    .collect();
                if *players != expected {
                    return Err(Illegal::WrongOrder {
                        expected: expected.join(", "),
                        got: excerpt(&players.join(", ")),
                    });
                }
                self.phase = Phase::TurnStart;
                Ok(None)
            }
            (Event::Order { .. }, _) => Err(Illegal::OrderDecided),
            (_, Phase::OrderDue) => Err(Illegal::OrderFirst),
            (
                Event::Roll {
                    player,
                    turn,
                    dice,
                    rolls_left,
                    saved,
                },
                phase,
            ) => {
                let seat = self.check_mover(player, *turn)?;
                self.check_dice_seat(seat)?;
                let dice = parse_dice(&self.rules, dice)?;
                if saved.is_some() && !self.rules.saved_rolls() {
                    return Err(Illegal::NoSavedRolls);
                }
                let expected_left = match phase {
                    Phase::TurnStart => {
                        let had = self.saved[seat];
                        if let Some(got) = *saved
                            && got != had
                        {
                            return Err(Illegal::WrongSaved {
                                player: self.seats[seat].name.clone(),
                                expected: had,
                                got,
                            });
                        }
                        let expected = self.turn_rerolls(seat);
                        if self.rules.saved_rolls() && *rolls_left != expected {
                            return Err(Illegal::SavedRollsLeft {
                                expected,
                                rerolls: self.rules.most_rolls_left(),
                                saved: had,
                                got: *rolls_left,
                            });
                        }
                        expected
                    }
                    Phase::Kept { keep, rolls_left } => {
                        if !keep.is_within(&dice) {
                            return Err(Illegal::RollLostKeep { dice, keep });
                        }
                        if saved.is_some() {
                            return Err(Illegal::SavedOnReroll);
                        }
                        rolls_left - 1
                    }
                    Phase::Rolled { .. } => return Err(Illegal::RerollWithoutKeep),
                    _ => return Err(Illegal::NoRollDue),
                };
                if *rolls_left != expected_left {
                    return Err(Illegal::RollsLeft {
                        expected: expected_left,
                        got: *rolls_left,
                    });
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
                self.check_dice_seat(seat)?;
                let Phase::Rolled {
                    dice,
                    rolls_left: left,
                } = phase
                else {
                    return Err(Illegal::NoKeepDue);
                };
                if *rolls_left != left {
                    return Err(Illegal::KeepRollsLeft {
                        expected: left,
                        got: *rolls_left,
                    });
                }
                let keep = parse_keep(keep, &dice)?;
                if keep.len() == dice.len() && self.rules.saved_rolls() {
                    return Err(Illegal::StopUnderSavedRolls);
                }
                self.phase = if keep.len() == dice.len() {
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
                    saved: self.saved_of(seat),
                    cards: self.cards.clone(),
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
                    rolls_left,
                },
                phase,
            ) => {
                let seat = self.check_mover(player, *turn)?;
                if self.seats[seat].enters_points() {
                    if rolls_left.is_some() {
                        return Err(Illegal::NoSavedRolls);
                    }
                    self.score_points(seat, category, *points, *bonus)?;
                    return Ok(None);
                }
                let saved_rolls = self.rules.saved_rolls();
                // Under saved rolls a box may be filled with re-rolls left, which it saves.
                let (dice, left) = match phase {
                    Phase::MustScore { dice } => (dice, 0),
                    Phase::Rolled { dice, rolls_left } if saved_rolls => (dice, rolls_left),
                    Phase::Rolled { .. } => return Err(Illegal::ScoreWithRollsLeft),
                    _ => return Err(Illegal::NoScoreDue),
                };
                match *rolls_left {
                    Some(_) if !saved_rolls => return Err(Illegal::NoSavedRolls),
                    Some(got) if got != left => {
                        return Err(Illegal::ScoreRollsLeft {
                            expected: left,
                            got,
                        });
                    }
                    _ => {}
                }
                let card = &self.cards[seat];
                let index = match self.rules.box_by_name(category) {
                    Some(i) => i,
                    None => {
                        return Err(Illegal::UnknownBox {
                            name: excerpt(category),
                            boxes: box_names(&self.rules),
                        });
                    }
                };
                let (want, bonuses) = score_box(&self.rules, card, &dice, index)?;
                let state = card.state();
                let five = dice.five_of_a_kind().is_some();
                let want_bonus = bonuses.points(&self.rules);
                if *points != want || *bonus != want_bonus {
                    return Err(Illegal::WrongPoints {
                        name: self.rules.boxes()[index].name().to_string(),
                        dice,
                        points: want,
                        bonus: want_bonus,
                        got_points: *points,
                        got_bonus: *bonus,
                    });
                }
                let decision = Decision {
                    seat,
                    turn: *turn,
                    position: Position {
                        card: card.clone(),
                        dice,
                        rolls_left: left,
                    },
                    saved: self.saved_of(seat),
                    cards: self.cards.clone(),
                    choice: Choice::Score(index),
                };
                let yahtzee_bonus = state.yahtzee_50 && five;
                debug_assert_eq!(yahtzee_bonus, bonuses.yahtzee);
                self.cards[seat].fill(index, want, yahtzee_bonus);
                if saved_rolls {
                    // The re-rolls left unused are the rolls saved for the next turn.
                    self.saved[seat] = left;
                }
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
    let name = rules.boxes()[index].name().to_string();
    if let Some(points) = card.points(index) {
        return Err(Illegal::Filled { name, points });
    }
    let filled = card.filled();
    let legal = rules.legal_boxes(filled, dice);
    if legal & (1 << index) != 0 {
        return Ok(());
    }
    let allowed = |mask| rules.names_of(mask);
    if rules.open_by_order(filled) & (1 << index) == 0 {
        return Err(Illegal::UpperFirst {
            name,
            open: allowed(rules.open_by_order(filled)),
        });
    }
    Err(Illegal::Joker {
        name,
        allowed: allowed(legal),
    })
}

/// The points of box `index` filled with `dice` on `card` (the Joker included) and the
/// bonuses earned with it, or why the box cannot be filled ([`check_legal`]): the rules
/// engine's one scoring of a box, what the referee checks a record's points against.
pub fn score_box(
    rules: &Rules,
    card: &ScoreCard,
    dice: &Dice,
    index: usize,
) -> Result<(u32, Bonuses), Illegal> {
    check_legal(rules, card, dice, index)?;
    let state = card.state();
    let points = rules.score(index, dice, state.filled);
    let bonuses = state.bonuses_for(rules, index, points, dice.five_of_a_kind().is_some());
    Ok((points, bonuses))
}

/// Points a box can score and the bonus they earn, as a score pad enters another player's
/// box without the dice ([`attainable`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Attainable {
    /// The points in the box.
    pub points: u32,
    /// The bonus earned with them (the upper bonus when they bring the upper section to its
    /// threshold, the five-of-a-kind bonus for a further five of a kind).
    pub bonus: u32,
    /// True when the bonus holds the one of a further five of a kind: the dice were five
    /// of a kind.
    pub yahtzee_bonus: bool,
}

/// Every points and bonus box `index` can be filled with on `card`, from some roll of the
/// game's dice (the Joker and the fill order included), in ascending order: what a score pad
/// offers for another player's box, and what the referee accepts for a seat entered as
/// points. [`score_box`] scores each roll, so the rules are asked nothing else; a box no roll
/// can fill (filled, or waiting under the upper-first rule) is refused with its reason.
pub fn attainable(
    rules: &Rules,
    card: &ScoreCard,
    index: usize,
) -> Result<Vec<Attainable>, Illegal> {
    let mut out = Vec::new();
    let mut refusal = None;
    for dice in rules.dice().all_rolls() {
        match score_box(rules, card, &dice, index) {
            Ok((points, bonuses)) => out.push(Attainable {
                points,
                bonus: bonuses.points(rules),
                yahtzee_bonus: bonuses.yahtzee,
            }),
            Err(e) => refusal = refusal.or(Some(e)),
        }
    }
    out.sort_unstable();
    out.dedup();
    match (out.is_empty(), refusal) {
        (true, Some(e)) => Err(e),
        _ => Ok(out),
    }
}

/// Scores in words: `0 or 25`, `5 to 30`, `0, 3, 6, 9, 12 or 15`.
pub fn scores_in_words(scores: &[u32]) -> String {
    let text = describe_scores(scores);
    match text.rsplit_once(", ") {
        Some((head, last)) => format!("{head} or {last}"),
        None => text,
    }
}

/// The roll of `faces`, as many as the game of `rules` has dice.
fn parse_dice(rules: &Rules, faces: &[u8]) -> Result<Dice, Illegal> {
    Ok(rules.dice().dice_of(faces)?)
}

/// The keep of `faces` from `dice`, refused when the dice do not hold it.
pub fn parse_keep(faces: &[u8], dice: &Dice) -> Result<Keep, Illegal> {
    let keep = Keep::from_faces(faces)?;
    if !keep.is_within(dice) {
        return Err(Illegal::KeepNotInDice { keep, dice: *dice });
    }
    Ok(keep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::RuleSet;

    fn seats(names: &[&str]) -> Vec<Seat> {
        names.iter().map(|n| Seat::human(n)).collect()
    }

    fn opening(p: &str, d: [u8; 5]) -> Event {
        Event::Opening {
            player: p.into(),
            dice: d.to_vec(),
        }
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
        assert!(g.apply(&bad).unwrap_err().to_string().contains("c, a, b"));
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
            saved: None,
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
                .to_string()
                .contains("cannot keep")
        );
        let d = g.apply(&keep(&[3, 3], 2)).unwrap().unwrap();
        assert_eq!(d.position.rolls_left, 2);
        assert!(
            g.apply(&roll([1, 2, 4, 5, 6], 1))
                .unwrap_err()
                .to_string()
                .contains("kept")
        );
        g.apply(&roll([3, 3, 3, 5, 6], 1)).unwrap();
        let score = |b: &str, p, bonus| Event::Score {
            player: "a".into(),
            turn: 1,
            category: b.into(),
            points: p,
            bonus,
            rolls_left: None,
        };
        assert!(
            g.apply(&score("threes", 9, 0))
                .unwrap_err()
                .to_string()
                .contains("stop")
        );
        g.apply(&keep(&[3, 3, 3, 5, 6], 1)).unwrap();
        assert!(
            g.apply(&score("threes", 6, 0))
                .unwrap_err()
                .to_string()
                .contains("scores 9")
        );
        assert!(g.apply(&score("sevens", 6, 0)).is_err());
        g.apply(&score("threes", 9, 0)).unwrap();
        assert_eq!(g.turn(), 2);
        assert_eq!(g.totals()[0].total, 9);
    }

    /// Under saved rolls a box is filled with re-rolls left, which it saves: the player's next
    /// turn has them beside the game's two; a keep of all the dice, more re-rolls than the
    /// player has, and the fields of saved rolls in another game are refused.
    #[test]
    fn saved_rolls_are_kept_for_the_player_s_later_turns() {
        let rules = crate::game::rules::file::load(
            include_str!("../../../../data/rules/examples/yatzy-saved-rolls.toml"),
            None,
        )
        .unwrap();
        let mut g = Game::new(rules, seats(&["a"])).unwrap();
        g.apply(&Event::Order {
            players: vec!["a".into()],
        })
        .unwrap();
        let roll = |turn, d: [u8; 5], left, saved| Event::Roll {
            player: "a".into(),
            turn,
            dice: d.to_vec(),
            rolls_left: left,
            saved,
        };
        let keep = |turn, k: &[u8], left| Event::Keep {
            player: "a".into(),
            turn,
            keep: k.to_vec(),
            rolls_left: left,
        };
        let score = |turn, b: &str, p, left| Event::Score {
            player: "a".into(),
            turn,
            category: b.into(),
            points: p,
            bonus: 0,
            rolls_left: left,
        };
        let err = |g: &mut Game, e: &Event| g.clone().apply(e).unwrap_err().to_string();
        assert_eq!(
            err(&mut g, &roll(1, [1, 1, 2, 2, 3], 2, Some(1))),
            "a had 0 rolls saved before this turn, not 1"
        );
        g.apply(&roll(1, [1, 1, 2, 2, 3], 2, Some(0))).unwrap();
        assert!(err(&mut g, &keep(1, &[1, 1, 2, 2, 3], 2)).contains("under saved rolls"));
        assert_eq!(
            err(&mut g, &score(1, "ones", 2, Some(1))),
            "the box is filled with 2 re-rolls left, which it saves, not 1"
        );
        // Ones filled at once: the turn's two re-rolls are saved.
        let d = g.apply(&score(1, "ones", 2, None)).unwrap().unwrap();
        assert_eq!((d.position.rolls_left, d.saved), (2, Some(0)));
        assert_eq!(g.saved(), [2]);
        assert_eq!(g.turn_rerolls(0), 4);
        assert_eq!(
            err(&mut g, &roll(2, [1, 1, 2, 2, 3], 5, None)),
            "this roll leaves 4 re-rolls: the turn's 2 and the 2 rolls saved before it, not 5"
        );
        g.apply(&roll(2, [1, 2, 3, 5, 6], 4, None)).unwrap();
        // Three re-rolls spent, one left, which the box saves.
        for (left, dice) in [
            (4, [1, 2, 3, 5, 6]),
            (3, [1, 2, 5, 6, 6]),
            (2, [1, 5, 6, 6, 6]),
        ] {
            let d = g.apply(&keep(2, &[6], left)).unwrap().unwrap();
            assert_eq!((d.position.rolls_left, d.saved), (left, Some(2)));
            assert_eq!(d.position.dice.faces(), dice.to_vec());
            let next = match left {
                4 => [1, 2, 5, 6, 6],
                3 => [1, 5, 6, 6, 6],
                _ => [3, 3, 6, 6, 6],
            };
            assert!(err(&mut g, &roll(2, next, left - 1, Some(2))).contains("first roll"));
            g.apply(&roll(2, next, left - 1, None)).unwrap();
        }
        g.apply(&score(2, "full-house", 24, Some(1))).unwrap();
        assert_eq!(g.saved(), [1]);
        // A game without saved rolls refuses their fields.
        let mut plain = Game::new(Rules::new(RuleSet::YATZY), seats(&["a"])).unwrap();
        plain
            .apply(&Event::Order {
                players: vec!["a".into()],
            })
            .unwrap();
        assert!(err(&mut plain, &roll(1, [1, 1, 2, 2, 3], 2, Some(0))).contains("does not keep"));
        plain.apply(&roll(1, [1, 1, 2, 2, 3], 2, None)).unwrap();
        assert!(err(&mut plain, &score(1, "ones", 2, None)).contains("rolls are left"));
        plain.apply(&keep(1, &[1, 1, 2, 2, 3], 2)).unwrap();
        assert!(err(&mut plain, &score(1, "ones", 2, Some(0))).contains("does not keep"));
        assert_eq!(plain.saved(), [0]);
    }

    /// A score pad's table: the advised player plays with the dice, the others enter a box
    /// and its points, checked against what some roll scores there (the Joker, the upper
    /// bonus and the five-of-a-kind bonus included); nobody rolls for the play order.
    #[test]
    fn a_score_pad_s_players_enter_a_box_and_its_points() {
        let rules = Rules::new(RuleSet::YAHTZEE);
        let seats = vec![Seat::human("ann"), Seat::points("bob"), Seat::points("cat")];
        let mut g = Game::new(rules, seats).unwrap();
        assert_eq!(g.decided_order(), Some(vec![0, 1, 2]));
        g.apply(&Event::Order {
            players: vec!["ann".into(), "bob".into(), "cat".into()],
        })
        .unwrap();
        let scored = |turn, p: &str, b: &str, points, bonus| Event::Score {
            player: p.into(),
            turn,
            category: b.into(),
            points,
            bonus,
            rolls_left: None,
        };
        let score = |p: &str, b: &str, points, bonus| scored(1, p, b, points, bonus);
        let err = |g: &Game, e: &Event| g.clone().apply(e).unwrap_err().to_string();
        // ann plays with the dice: no box before a roll.
        assert_eq!(
            err(&g, &score("ann", "chance", 20, 0)),
            "no box can be filled now: roll first"
        );
        g.apply(&Event::Roll {
            player: "ann".into(),
            turn: 1,
            dice: vec![2, 2, 3, 3, 3],
            rolls_left: 2,
            saved: None,
        })
        .unwrap();
        g.apply(&Event::Keep {
            player: "ann".into(),
            turn: 1,
            keep: vec![2, 2, 3, 3, 3],
            rolls_left: 2,
        })
        .unwrap();
        g.apply(&score("ann", "full-house", 25, 0))
            .unwrap()
            .unwrap();
        // bob enters points: no dice, and only points some roll scores.
        let roll = Event::Roll {
            player: "bob".into(),
            turn: 1,
            dice: vec![1, 2, 3, 4, 5],
            rolls_left: 2,
            saved: None,
        };
        assert_eq!(
            err(&g, &roll),
            "bob's turns are entered as a box and its points, without dice: a `score` line alone"
        );
        assert_eq!(
            err(&g, &score("bob", "fh", 20, 0)),
            "Full House scores 0 or 25, not 20"
        );
        assert_eq!(
            err(&g, &score("bob", "chance", 4, 0)),
            "Chance scores 5 to 30, not 4"
        );
        assert_eq!(
            err(&g, &score("bob", "threes", 7, 0)),
            "Threes scores 0, 3, 6, 9, 12 or 15, not 7"
        );
        assert_eq!(
            err(&g, &score("cat", "chance", 20, 0)),
            "it is bob's turn, not cat's"
        );
        assert!(err(&g, &score("bob", "sevens", 7, 0)).starts_with("unknown box `sevens`"));
        // A decision of none: nothing a review could price.
        assert!(g.apply(&score("bob", "fh", 25, 0)).unwrap().is_none());
        assert_eq!(
            err(&g, &score("cat", "chance", 20, 100)),
            "Chance for 20 earns a bonus of 0, not 100"
        );
        g.apply(&score("cat", "chance", 20, 0)).unwrap();
        assert_eq!(
            g.totals().iter().map(|t| t.total).collect::<Vec<_>>(),
            [25, 25, 20]
        );
        assert_eq!((g.to_move(), g.turn()), (Some(0), 2));
        // bob's second turn: full house is filled.
        g.apply(&Event::Roll {
            player: "ann".into(),
            turn: 2,
            dice: vec![1, 1, 1, 1, 1],
            rolls_left: 2,
            saved: None,
        })
        .unwrap();
        g.apply(&Event::Keep {
            player: "ann".into(),
            turn: 2,
            keep: vec![1, 1, 1, 1, 1],
            rolls_left: 2,
        })
        .unwrap();
        g.apply(&scored(2, "ann", "yahtzee", 50, 0)).unwrap();
        let filled = scored(2, "bob", "full-house", 25, 0);
        assert_eq!(err(&g, &filled), "full-house is already filled (with 25)");
        // Points of a box filled on another card: the Joker and the bonuses follow the card.
        let card = ScoreCard::parse(
            rules,
            "yahtzee=50,ones=3,twos=6,threes=9,fours=12,fives=15",
            0,
        )
        .unwrap();
        let of = |name: &str| attainable(&rules, &card, rules.box_by_name(name).unwrap()).unwrap();
        let a = |points, bonus, yahtzee_bonus| Attainable {
            points,
            bonus,
            yahtzee_bonus,
        };
        let sixes = of("sixes");
        // 18 in sixes brings the upper total to 63: the bonus of 35; 30 is five sixes, a
        // further Yahtzee: 35 and 100.
        assert!(sixes.contains(&a(18, 35, false)) && sixes.contains(&a(12, 0, false)));
        assert_eq!(sixes.last(), Some(&a(30, 135, true)));
        assert!(!sixes.contains(&a(18, 0, false)));
        let chance = of("chance");
        // 15 by any roll, or by five threes: a further Yahtzee.
        assert!(chance.contains(&a(15, 0, false)) && chance.contains(&a(15, 100, true)));
        assert!(!chance.contains(&a(16, 100, true)));
        // Each is what some roll scores there: the referee's scoring, roll by roll.
        for (i, category) in rules.boxes().iter().enumerate().skip(5) {
            if card.points(i).is_some() {
                continue;
            }
            for option in of(category.name()) {
                assert!(rules.dice().all_rolls().any(|d| {
                    score_box(&rules, &card, &d, i).is_ok_and(|(p, b)| {
                        (p, b.points(&rules), b.yahtzee)
                            == (option.points, option.bonus, option.yahtzee_bonus)
                    })
                }));
            }
        }
        assert!(
            attainable(&rules, &card, 0)
                .unwrap_err()
                .to_string()
                .contains("already filled")
        );
        // A person's seat alone is entered as points, and not under saved rolls.
        let bot = Seat {
            kind: SeatKind::Bot,
            ..Seat::points("bot")
        };
        let e = Game::new(rules, vec![Seat::human("ann"), bot]).unwrap_err();
        assert!(e.to_string().contains("only a person's seat"), "{e}");
        let saved = crate::game::rules::file::load(
            include_str!("../../../../data/rules/examples/yatzy-saved-rolls.toml"),
            None,
        )
        .unwrap();
        assert!(Game::new(saved, vec![Seat::human("ann"), Seat::points("bob")]).is_err());
    }

    #[test]
    fn explains_joker_and_order_refusals() {
        let rules = Rules::new(RuleSet::YAHTZEE);
        let card = ScoreCard::parse(rules, "yahtzee=50", 0).unwrap();
        let fours = Dice::from_faces(&[4; 5]).unwrap();
        let e = check_legal(&rules, &card, &fours, 12).unwrap_err();
        assert!(
            e.to_string().contains("Joker") && e.to_string().contains("fours"),
            "{e}"
        );
        let e = check_legal(&rules, &card, &fours, 11).unwrap_err();
        assert!(e.to_string().contains("already filled"), "{e}");
        let uf = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
        let e = check_legal(&uf, &ScoreCard::new(uf), &fours, 7).unwrap_err();
        assert!(e.to_string().contains("upper-first rule"), "{e}");
        assert!(!e.to_string().contains("--"), "{e}");
    }
}
