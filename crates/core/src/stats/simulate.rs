//! Games played with random dice through the rules engine, under the optimal policy or a
//! simple baseline, tallied like the exact distribution ([`crate::stats::distribution::Tally`]).
//!
//! The games are played in lockstep: every game of a batch ([`BATCH`]) plays its first turn,
//! then every game its second, and so on. Before each turn the games are sorted by their
//! state (and, for the target policy, their points), so that a policy's turn of a state (the
//! expected-score turn's keep values, the target turn's chances) is computed once for all the
//! games in it, then each game plays it with its own dice: the decisions of a turn are lookups.
//! The optimal policy computes the keep values of up to [`CARD_LANES`] states of one card by
//! one run of the kernel, and takes each decision either for every roll at once or the first
//! time a game meets its roll, whichever the number of games makes cheaper ([`play_optimal`]).
//!
//! Reproducibility: game `g` of seed `S` rolls [`GameDice::of_game`]`(S, g)`, its own dice,
//! whatever the batch, the order the games are played in or the thread count; the tallies are
//! integer counts, so their sums do not depend on the order either. A seed gives the same
//! games and the same report at any thread count.
//!
//! The games are played by a [`Player`] ([`crate::policy::player`]: the one home of how each
//! policy plays), turn by turn ([`play_turn`]). The policies that play to beat other players
//! (`win`, `win-exact`, `two-player`) need the other players' cards: they play in matches
//! ([`crate::stats::matches`]), through the same [`PolicyTurn`].

use rayon::prelude::*;
use serde::Serialize;

use crate::game::dice::{Dice, GameDice, Multiset, Roll};
use crate::game::rules::BoxMask;
use crate::game::rules::Rules;
use crate::game::state::{Bonuses, Layout, ScoreCard, State};
use crate::policy::expected::Action;
use crate::policy::expected::{BoxChoice, CardBoxes, StateBoxes, best_box_for, card_best_boxes};
use crate::policy::player::{Player, PolicyTurn};
use crate::policy::saved::SavedTurn;
use crate::solve::expected::{CARD_LANES, CardKeepValues};
use crate::stats::distribution::{Interval, Part, Tally};
use crate::tables::expected::StrategyTable;
use crate::tables::saved::SavedTable;

/// Games played together, in lockstep (about 40 bytes each: 40 MB a batch). The more games in
/// a batch, the more of them share a state at each turn.
pub const BATCH: u64 = 1 << 20;

/// Games one task plays in one turn: small enough to spread over the threads, large enough
/// that a task's tally and a state's turn computed again at a task's edge cost nothing.
const SLICE: usize = 2048;

/// What a turn did: the box filled, its points, the bonuses earned, and how many choices
/// the policy made (the keeps and the box).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The box filled (card order).
    pub index: usize,
    /// Its points.
    pub points: u32,
    /// The bonuses earned.
    pub bonuses: Bonuses,
    /// The choices made: one keep per roll that was followed by a decision to keep or stop
    /// (one or two), and the box.
    pub decisions: u32,
}

/// Plays one turn of `state` as `turn` says, with the dice of `rng`: the opening roll, up to
/// two keeps and re-rolls (one fewer than the rolls a turn), then the box. The one turn of every simulated game.
pub fn play_turn(
    rules: &Rules,
    turn: &PolicyTurn<'_>,
    state: &State,
    rng: &mut impl Roll,
) -> Played {
    let (roll, decisions) = roll_and_keep(rules, rng, |rolls_left, roll| {
        turn.keep(rolls_left, &Dice::from_index(roll)).index()
    });
    let (index, points, bonuses) = turn.choose_box(rules, state, &Dice::from_index(roll));
    Played {
        index,
        points,
        bonuses,
        decisions,
    }
}

/// The rolls of a turn of `rules` (five or six dice, three rolls or a house rule's number):
/// the opening roll, then with each number of rolls left down to 1 (2 and 1 in a game of
/// three rolls) the keep `keep(rolls_left, roll)` (multiset indices; the roll's own index
/// stops) and a re-roll of the others. The final roll's index and the decisions made (the keeps, and the box to come).
/// The one home of a turn's dice: every simulated game, and a game of a policy of one's own
/// (`play::own`), so that the same decisions meet the same dice.
pub fn roll_and_keep(
    rules: &Rules,
    rng: &mut impl Roll,
    mut keep: impl FnMut(u8, Multiset) -> Multiset,
) -> (Multiset, u32) {
    let space = rules.dice();
    let mut roll = rng.throw_index(space, 0);
    let mut decisions = 1;
    for rolls_left in (1..rules.rolls()).rev() {
        let kept = keep(rolls_left, roll);
        decisions += 1;
        if kept >= space.first_roll() {
            break;
        }
        roll = rng.throw_index(space, kept);
    }
    (roll, decisions)
}

/// One game in play: 32 bytes, moved by every turn's sort (its state's fields laid out
/// flat, its marks in one byte; 40 bytes cost the simulation a few percent more).
#[derive(Clone, Copy)]
struct Game {
    /// What its next turn depends on ([`Keying::key`]): the games of one key play the same
    /// turn.
    key: u64,
    dice: GameDice,
    /// Its number in the batch.
    number: u32,
    /// Points on the card, bonuses included.
    score: u32,
    /// The state's fields ([`Game::state`]).
    filled: BoxMask,
    upper: u8,
    yahtzee_50: bool,
    /// The five-of-a-kind bonuses earned (the low six bits), [`Game::UPPER_BONUS`] and
    /// [`Game::FIFTY`].
    marks: u8,
    /// The events of a roll some roll of the game showed so far, bit `e` for the `e`-th of
    /// [`crate::stats::events::Spec::rolled_names`] (the first eight).
    rolled: u8,
}

const _: () = assert!(std::mem::size_of::<Game>() == 32);

impl Game {
    /// The upper bonus is earned.
    const UPPER_BONUS: u8 = 1 << 6;
    /// The five-of-a-kind box holds its points (50).
    const FIFTY: u8 = 1 << 7;

    /// Game `number` at the start, rolling `dice`.
    fn start(number: u32, dice: GameDice) -> Game {
        let State {
            filled,
            upper,
            yahtzee_50,
        } = State::START;
        Game {
            key: 0,
            dice,
            number,
            score: 0,
            filled,
            upper,
            yahtzee_50,
            marks: 0,
            rolled: 0,
        }
    }

    /// Its state.
    #[inline(always)]
    fn state(&self) -> State {
        State {
            filled: self.filled,
            upper: self.upper,
            yahtzee_50: self.yahtzee_50,
        }
    }

    /// The five-of-a-kind bonuses earned.
    fn yahtzee_bonuses(&self) -> u8 {
        self.marks & !(Game::UPPER_BONUS | Game::FIFTY)
    }

    /// The upper bonus is earned.
    fn upper_bonus(&self) -> bool {
        self.marks & Game::UPPER_BONUS != 0
    }

    /// The five-of-a-kind box holds its points.
    fn fifty(&self) -> bool {
        self.marks & Game::FIFTY != 0
    }

    /// Scores the turn `played` (the box filled, its points, the bonuses earned) whose rolls
    /// showed the events of a roll `rolled` on the game's card, and the box in `tally`; keys
    /// the next turn (while the game is in the cache, rather than in a pass of its own over
    /// every game).
    #[inline(always)]
    fn score_turn(
        &mut self,
        rules: &Rules,
        keying: &Keying,
        (index, points, bonuses): (usize, u32, Bonuses),
        rolled: u8,
        tally: &mut Tally,
    ) {
        self.rolled |= rolled;
        tally.add_box(index, points, 1.0);
        // At most one bonus a turn, 19 in a game of 20 boxes: the six low bits hold them.
        debug_assert!(self.yahtzee_bonuses() < Game::UPPER_BONUS - 1);
        self.marks += u8::from(bonuses.yahtzee);
        if bonuses.upper {
            self.marks |= Game::UPPER_BONUS;
        }
        if super::fills_fifty(rules, index, points) {
            self.marks |= Game::FIFTY;
        }
        self.score += points + bonuses.points(rules);
        let state = self.state().after(rules, index, points);
        (self.filled, self.upper, self.yahtzee_50) = (state.filled, state.upper, state.yahtzee_50);
        self.key = keying.key(&state, self.score);
    }
}

/// What a player's turn of a game depends on, as one number ([`Keying::key`]).
#[derive(Clone, Copy)]
struct Keying {
    /// The layout of the states: a state's key is its index in it.
    layout: Layout,
    /// The points on the card count too (the target policy).
    points: bool,
}

impl Keying {
    fn of(player: &Player<'_>, layout: Layout) -> Keying {
        Keying {
            layout,
            points: matches!(player, Player::Target(_)),
        }
    }

    /// The key of the turn of `state` with `score` points on the card: the state (its
    /// index in the layout) and, for the target policy, the points.
    #[inline(always)]
    fn key(&self, state: &State, score: u32) -> u64 {
        let points = if self.points { score } else { 0 };
        ((self.layout.index(state) as u64) << 32) | u64::from(points)
    }
}

/// Plays `games` games with `seed` and tallies them (counts of games). `progress(done)` is
/// called with the games played so far (a game counts in proportion to its turns played).
/// Runs on the current rayon thread pool; the tally is the same at any thread count.
pub fn simulate<'a>(
    rules: &Rules,
    player: &Player<'a>,
    games: u64,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Tally {
    simulate_games(rules, player, games, seed, false, progress).0
}

/// Plays like [`simulate`] and also returns the final score of every game, in the order of
/// their numbers: 4 bytes a game.
pub fn simulate_scores(
    rules: &Rules,
    player: &Player<'_>,
    games: u64,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> (Tally, Vec<u32>) {
    simulate_games(rules, player, games, seed, true, progress)
}

fn simulate_games(
    rules: &Rules,
    player: &Player<'_>,
    games: u64,
    seed: u64,
    keep_scores: bool,
    progress: &(dyn Fn(u64) + Sync),
) -> (Tally, Vec<u32>) {
    let deal = Deal {
        rules,
        layout: Layout::of(rules),
        player,
        seed,
        batch: BATCH,
    };
    let (tally, scores, _) = deal.play(games, keep_scores, false, progress);
    (tally, scores)
}

/// Each simulated game's box scores: [`PerBox::columns`] numbers a game, in the order of the
/// games' numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct PerBox {
    /// The rules the games were played under.
    pub rules: Rules,
    /// The boxes' names in card order, then `upper_bonus` and `yahtzee_bonuses` (the points of
    /// each bonus in the game), then `total`.
    pub columns: Vec<String>,
    /// The points, a row of `columns.len()` per game.
    pub points: Vec<u32>,
}

impl PerBox {
    /// The games played.
    pub fn games(&self) -> u64 {
        (self.points.len() / self.columns.len()) as u64
    }

    /// Writes the games as CSV (`game,` then the columns; a row per game, numbered from 0),
    /// through a temporary file renamed into place.
    pub fn write_csv(&self, path: &std::path::Path) -> std::io::Result<()> {
        let mut text = String::from("game,");
        text.push_str(&self.columns.join(","));
        text.push('\n');
        for (g, row) in self.points.chunks(self.columns.len()).enumerate() {
            text.push_str(&g.to_string());
            for p in row {
                text.push(',');
                text.push_str(&p.to_string());
            }
            text.push('\n');
        }
        crate::files::write_atomically(path, text.as_bytes())
    }
}

/// Plays like [`simulate`] and also returns every game's box scores ([`PerBox`]): the same
/// games, and the same at any thread count. The box each turn fills is read from the game's
/// card before and after the turn, so the games played for totals alone carry nothing more.
pub fn simulate_per_box(
    rules: &Rules,
    player: &Player<'_>,
    games: u64,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> (Tally, PerBox) {
    let deal = Deal {
        rules,
        layout: Layout::of(rules),
        player,
        seed,
        batch: BATCH,
    };
    let (tally, _, points) = deal.play(games, false, true, progress);
    let mut columns: Vec<String> = rules.boxes().iter().map(|c| c.name().to_string()).collect();
    columns.extend(["upper_bonus", "yahtzee_bonuses", "total"].map(String::from));
    (
        tally,
        PerBox {
            rules: *rules,
            columns,
            points,
        },
    )
}

/// The games of one simulation: the rules, the player, the seed, and how many games are
/// played together (which changes no game).
#[derive(Clone, Copy)]
struct Deal<'r, 'p, 'a> {
    rules: &'r Rules,
    layout: Layout,
    player: &'p Player<'a>,
    seed: u64,
    batch: u64,
}

impl Deal<'_, '_, '_> {
    /// Plays games `0..games`, batch after batch: their tally and, with `keep_scores`, their
    /// final scores in the order of their numbers.
    fn play(
        &self,
        games: u64,
        keep_scores: bool,
        per_box: bool,
        progress: &(dyn Fn(u64) + Sync),
    ) -> (Tally, Vec<u32>, Vec<u32>) {
        let turns = self.rules.box_count() as u64;
        let mut tally = Tally::new(self.rules);
        // The events of a roll are counted: each starts at no game.
        let events = crate::stats::events::Spec::of(self.rules)
            .rolled_names()
            .len();
        tally.rolled = vec![0.0; events.min(8)];
        let mut scores = Vec::new();
        let mut points = Vec::new();
        let width = self.rules.box_count() + 3;
        let mut first = 0;
        while first < games {
            let n = self.batch.min(games - first);
            let mut rows = per_box.then(|| vec![0u32; n as usize * width]);
            let played = self.play_batch(first, n, &mut tally, rows.as_mut(), &|done| {
                progress(first + n * done / turns)
            });
            if let Some(mut rows) = rows {
                for row in rows.chunks_mut(width) {
                    row[width - 1] = row[..width - 1].iter().sum();
                }
                points.append(&mut rows);
            }
            for g in &played {
                tally.add_score(g.score, 1.0);
                if g.upper_bonus() {
                    tally.upper_bonus += 1.0;
                }
                tally.add_yahtzee_bonuses(usize::from(g.yahtzee_bonuses()), 1.0);
                let part = Part {
                    upper_bonus: g.upper_bonus(),
                    fifty: g.fifty(),
                };
                tally.add_part(part, g.score, 1.0);
                tally.add_rolled(g.rolled);
            }
            if keep_scores {
                let mut by_number = vec![0; played.len()];
                for g in &played {
                    by_number[g.number as usize] = g.score;
                }
                scores.extend_from_slice(&by_number);
            }
            first += n;
        }
        (tally, scores, points)
    }

    /// Plays games `first..first + n` of `seed` to the end, in lockstep, adding the boxes they
    /// fill to `tally`; `progress(turns)` after each turn. The finished games, in no particular
    /// order.
    fn play_batch(
        &self,
        first: u64,
        n: u64,
        tally: &mut Tally,
        mut per_box: Option<&mut Vec<u32>>,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Vec<Game> {
        let Deal {
            rules,
            layout,
            player,
            seed,
            ..
        } = *self;
        let keying = Keying::of(player, layout);
        let mut games: Vec<Game> = (0..n)
            .map(|i| Game {
                key: keying.key(&State::START, 0),
                ..Game::start(i as u32, GameDice::of_game(seed, first + i))
            })
            .collect();
        let width = rules.box_count() + 3;
        for turn in 0..rules.box_count() {
            games.par_sort_unstable_by_key(|g| g.key);
            // With the box scores asked for: each game's card before the turn, by number.
            let before: Option<Vec<(BoxMask, u32, u8)>> = per_box.is_some().then(|| {
                let mut before = vec![(0, 0, 0); games.len()];
                for g in &games {
                    before[g.number as usize] = (g.filled, g.score, g.marks);
                }
                before
            });
            let shared = SharedTurns::of(rules, player, &games);
            let boxes = games
                .par_chunks_mut(SLICE)
                .map(|slice| {
                    let mut boxes = Tally::new(rules);
                    let mut decisions = Decisions::new(rules);
                    let mut scratch = OptimalScratch::new(rules);
                    let mut groups: Vec<&mut [Game]> =
                        slice.chunk_by_mut(|a, b| a.key == b.key).collect();
                    // A group that goes on in the slice before or after (only the first and
                    // the last can) plays the turn computed once for all its slices.
                    let last = groups.len() - 1;
                    let mut at = 0;
                    groups.retain_mut(|group| {
                        let edge = at == 0 || at == last;
                        at += 1;
                        match edge.then(|| shared.get(group[0].key)).flatten() {
                            Some(turn) => {
                                turn.play(rules, &keying, group, &mut decisions, &mut boxes);
                                false
                            }
                            None => true,
                        }
                    });
                    // The groups of one card, whose optimal turns one run of the kernel
                    // computes together.
                    for card in groups.chunk_by_mut(|a, b| a[0].filled == b[0].filled) {
                        match player {
                            Player::Optimal(table) => {
                                for lanes in card.chunks_mut(CARD_LANES) {
                                    play_optimal(
                                        rules,
                                        &keying,
                                        table,
                                        lanes,
                                        &mut scratch,
                                        &mut decisions,
                                        &mut boxes,
                                    );
                                }
                            }
                            _ => {
                                for group in card.iter_mut() {
                                    let state = group[0].state();
                                    let turn = player.turn(&state, group[0].score, None);
                                    play_group(
                                        rules,
                                        &keying,
                                        &turn,
                                        group,
                                        &mut decisions,
                                        &mut boxes,
                                    );
                                }
                            }
                        }
                    }
                    boxes
                })
                .reduce(
                    || Tally::new(rules),
                    |mut a, b| {
                        a.merge(&b);
                        a
                    },
                );
            tally.merge(&boxes);
            if let (Some(rows), Some(before)) = (per_box.as_deref_mut(), &before) {
                let boxes = rules.box_count();
                for g in &games {
                    let (filled, score, marks) = before[g.number as usize];
                    let row = &mut rows[g.number as usize * width..][..width];
                    let index = (g.filled & !filled).trailing_zeros() as usize;
                    let upper = u32::from(g.upper_bonus() && marks & Game::UPPER_BONUS == 0)
                        * rules.upper_bonus_points();
                    let bonuses = u32::from(g.yahtzee_bonuses())
                        - u32::from(marks & !(Game::UPPER_BONUS | Game::FIFTY));
                    let yahtzee = bonuses * rules.yahtzee_bonus_points();
                    row[index] = g.score - score - upper - yahtzee;
                    row[boxes] += upper;
                    row[boxes + 1] += yahtzee;
                }
            }
            progress(turn as u64 + 1);
        }
        games
    }
}

/// Plays the turn `turn` of the games of `group` (one state, and one score for the target
/// policy), each decision taken the first time a game meets its roll.
fn play_group(
    rules: &Rules,
    keying: &Keying,
    turn: &PolicyTurn<'_>,
    group: &mut [Game],
    decisions: &mut Decisions,
    tally: &mut Tally,
) {
    let state = group[0].state();
    decisions.forget();
    for g in group.iter_mut() {
        let played = decisions.play(
            &mut g.dice,
            |rolls_left, roll| turn.keep(rolls_left, &Dice::from_index(roll)).index(),
            |roll| turn.choose_box(rules, &state, &Dice::from_index(roll)),
        );
        g.score_turn(rules, keying, played, decisions.rolled, tally);
    }
}

/// The turns of the large groups of games that span the edge of a slice ([`SLICE`]: a group of
/// more games than a slice holds, such as the million games at the start, or a large group
/// cut by an edge), each computed once, in parallel, rather than once by every slice that
/// holds part of it.
struct SharedTurns<'a> {
    /// The groups' keys, ascending.
    keys: Vec<u64>,
    turns: Vec<SharedTurn<'a>>,
}

/// Games from which a group that spans slices has its turn computed once ([`SharedTurns`]):
/// enough that its decisions are all taken at once ([`DECIDED_BOXES`]).
const SHARED_GROUP: usize = DECIDED_BOXES;

/// The turn of a group that spans slices.
enum SharedTurn<'a> {
    /// The optimal policy's: every keep and every box chosen at once.
    Optimal {
        table: &'a StrategyTable,
        keeps: Vec<Vec<[u16; CARD_LANES]>>,
        boxes: CardBoxes,
    },
    /// Another policy's, its decisions taken as the games meet them.
    Other(PolicyTurn<'a>),
}

impl<'a> SharedTurns<'a> {
    /// The turns of the groups of `games` (sorted by key) that span the edge of a slice.
    fn of(rules: &Rules, player: &Player<'a>, games: &[Game]) -> SharedTurns<'a> {
        // A group of a few games cut by an edge is cheaper played by each slice as met.
        let large = |i: usize| {
            let key = games[i].key;
            let before = games[..i].iter().rev().take(SHARED_GROUP);
            let after = games[i..].iter().take(SHARED_GROUP);
            before.take_while(|g| g.key == key).count() + after.take_while(|g| g.key == key).count()
                >= SHARED_GROUP
        };
        let mut spanning: Vec<&Game> = (SLICE..games.len())
            .step_by(SLICE)
            .filter(|&i| games[i - 1].key == games[i].key && large(i))
            .map(|i| &games[i])
            .collect();
        spanning.dedup_by_key(|g| g.key);
        let turns = spanning
            .par_iter()
            .map(|g| {
                let state = g.state();
                match player {
                    Player::Optimal(table) => {
                        let mut values = CardKeepValues::new(rules.dice());
                        table.card_keep_values(&[state], &mut values);
                        let mut keeps = Vec::new();
                        values.lane_keeps(&mut keeps);
                        SharedTurn::Optimal {
                            table,
                            keeps,
                            boxes: card_best_boxes(table, &[state]),
                        }
                    }
                    _ => SharedTurn::Other(player.turn(&state, g.score, None)),
                }
            })
            .collect();
        SharedTurns {
            keys: spanning.iter().map(|g| g.key).collect(),
            turns,
        }
    }

    /// The turn of the group of `key`, if it spans slices.
    fn get(&self, key: u64) -> Option<&SharedTurn<'a>> {
        let i = self.keys.binary_search(&key).ok()?;
        Some(&self.turns[i])
    }
}

impl SharedTurn<'_> {
    /// Plays this turn in the games of `group` (part of the group it was computed for).
    fn play(
        &self,
        rules: &Rules,
        keying: &Keying,
        group: &mut [Game],
        decisions: &mut Decisions,
        tally: &mut Tally,
    ) {
        match self {
            SharedTurn::Optimal {
                table,
                keeps,
                boxes,
            } => {
                let state = group[0].state();
                decisions.forget();
                decisions.take_keeps(keeps, 0);
                decisions.take_boxes(boxes, 0);
                for g in group.iter_mut() {
                    let played = decisions.play(
                        &mut g.dice,
                        |_, _| unreachable!("every keep of the turn is taken"),
                        |roll| {
                            let c = best_box_for(table, &state, &Dice::from_index(roll));
                            scored(&c.expect("a legal box"))
                        },
                    );
                    g.score_turn(rules, keying, played, decisions.rolled, tally);
                }
            }
            SharedTurn::Other(turn) => play_group(rules, keying, turn, group, decisions, tally),
        }
    }
}

/// What filling the box `c` does to a game: the box, its points, the bonuses earned.
fn scored(c: &BoxChoice) -> (usize, u32, Bonuses) {
    (c.index, c.points, c.bonuses)
}

/// The decisions of one policy turn, each taken the first time a game of the group meets its
/// roll, or all at once ([`Decisions::take_keeps`], [`Decisions::take_boxes`]): the games of
/// one state (and points) that roll the same dice decide alike, so a turn played by many games
/// is mostly lookups. A game played here is the game
/// [`play_turn`] plays: the same dice, drawn in the same order, and the same decisions.
struct Decisions {
    /// `keeps[n - 1]` with `n` rolls left (one row per re-roll of the game), by roll offset:
    /// the multiset index of the keep (the roll's own index to stop), or
    /// [`Decisions::UNKNOWN`].
    keeps: Vec<Vec<u16>>,
    /// The box filled with each final roll (index, points, bonuses), by roll offset.
    boxes: Vec<Option<(usize, u32, Bonuses)>>,
    /// The rules of the game: its dice and rolls.
    rules: Rules,
    /// The entries taken one at a time since the last [`Decisions::forget`] (`keeps` row by
    /// row: offsets `row * rolls..`; then `boxes`: `keeps.len() * rolls..`), which forgets
    /// only those; `None` once decisions were taken all at once (it then forgets every entry).
    taken: Option<Vec<usize>>,
    /// The events of a roll each roll shows, by roll offset (bit `e`: the `e`-th of
    /// [`crate::stats::events::Spec::rolled_names`]).
    shows: Vec<u8>,
    /// The events of a roll the rolls of the last turn played showed.
    rolled: u8,
}

impl Decisions {
    const UNKNOWN: u16 = u16::MAX;

    fn new(rules: &Rules) -> Decisions {
        let rolls = rules.dice().rolls();
        Decisions {
            keeps: vec![vec![Decisions::UNKNOWN; rolls]; usize::from(rules.most_rolls_left())],
            boxes: vec![None; rolls],
            rules: *rules,
            taken: Some(Vec::new()),
            shows: crate::stats::events::Spec::of(rules).roll_bits(),
            rolled: 0,
        }
    }

    /// Forgets every decision (for the next group's turn).
    fn forget(&mut self) {
        let rolls = self.rules.dice().rolls();
        match self.taken.as_mut() {
            Some(taken) => {
                for &at in taken.iter() {
                    match self.keeps.get_mut(at / rolls) {
                        Some(row) => row[at % rolls] = Decisions::UNKNOWN,
                        None => self.boxes[at % rolls] = None,
                    }
                }
                taken.clear();
            }
            None => {
                for row in self.keeps.iter_mut() {
                    row.fill(Decisions::UNKNOWN);
                }
                self.boxes.fill(None);
                self.taken = Some(Vec::new());
            }
        }
    }

    /// Takes every keep at once: those of lane `lane` of `keeps` (by rolls left less one, then
    /// roll offset, as [`CardKeepValues::lane_keeps`] gives them).
    fn take_keeps(&mut self, keeps: &[Vec<[u16; CARD_LANES]>], lane: usize) {
        for (row, from) in self.keeps.iter_mut().zip(keeps) {
            for (keep, of_roll) in row.iter_mut().zip(from) {
                *keep = of_roll[lane];
            }
        }
        self.taken = None;
    }

    /// Takes every box at once: the choices of lane `lane` of `boxes`.
    fn take_boxes(&mut self, boxes: &CardBoxes, lane: usize) {
        for (r, known) in self.boxes.iter_mut().enumerate() {
            *known = boxes.of_roll(r, lane).map(scored);
        }
        self.taken = None;
    }

    /// Plays one turn with `dice`, each decision not taken yet taken by `keep(rolls_left,
    /// roll)` (as [`roll_and_keep`]) or `choose(roll)` (the box filled with the final roll,
    /// its points and the bonuses earned): the box, points and bonuses.
    fn play(
        &mut self,
        dice: &mut impl Roll,
        mut keep: impl FnMut(u8, Multiset) -> Multiset,
        choose: impl FnOnce(Multiset) -> (usize, u32, Bonuses),
    ) -> (usize, u32, Bonuses) {
        let first_roll = self.rules.dice().first_roll();
        let rolls = self.rules.dice().rolls();
        let rows = self.keeps.len();
        let shows = &self.shows;
        let mut rolled = 0;
        let (roll, _) = roll_and_keep(&self.rules, dice, |rolls_left, roll| {
            rolled |= shows[roll - first_roll];
            let row = usize::from(rolls_left) - 1;
            let known = &mut self.keeps[row][roll - first_roll];
            if *known == Decisions::UNKNOWN {
                *known = keep(rolls_left, roll) as u16;
                if let Some(taken) = self.taken.as_mut() {
                    taken.push(row * rolls + roll - first_roll);
                }
            }
            usize::from(*known)
        });
        let at = roll - first_roll;
        self.rolled = rolled | shows[at];
        if let Some(known) = self.boxes[at] {
            return known;
        }
        let known = choose(roll);
        self.boxes[at] = Some(known);
        if let Some(taken) = self.taken.as_mut() {
            taken.push(rows * rolls + at);
        }
        known
    }
}

/// Games of a block of states (up to [`CARD_LANES`]) from which the optimal policy's keeps
/// are all chosen at once, for every roll and lane (one scan of the tie rule over the lanes),
/// rather than each the first time a game meets its roll. Measured (Yatzy, 1,000,000 games,
/// CPU time of one thread, two rounds, on a loaded machine): 4.4-4.8 s from 64 games,
/// 4.4-4.9 s from 24, 4.6 s from 128, 4.8-4.9 s from 512, 4.9-5.3 s from 4096.
const DECIDED_KEEPS: usize = 64;

/// Games of one state from which the optimal policy's boxes are all chosen at once
/// ([`card_best_boxes`]) rather than as met (from [`StateBoxes`]). Measured (Yatzy,
/// 1,000,000 games, three interleaved rounds, wall time): 0.97-0.98 s from 128 games,
/// 0.95-0.97 s from 256, 0.95-0.97 s from 512, 0.95-0.96 s from 2,048, 0.95-0.98 s never.
/// (Before [`StateBoxes`], against [`best_box_for`] for each roll met, 128 was best.)
const DECIDED_BOXES: usize = 512;

/// Games of one state from which the optimal policy's boxes are chosen as met from the
/// state's boxes valued once ([`StateBoxes`]) rather than each valued for each roll met
/// ([`best_box_for`]).
/// Measured (Yatzy, 1,000,000 games, three interleaved rounds): 1.29-1.30 s choosing every box
/// as met, 1.16-1.18 s from 1 game, 1.12-1.20 s from 2, 1.13-1.17 s from 3, 1.14-1.32 s from 6.
const VALUED_BOXES: usize = 4;

/// The memory of [`play_optimal`], reused from block to block.
struct OptimalScratch {
    keep_values: CardKeepValues,
    /// The keeps of every roll of every lane, when chosen at once.
    lane_keeps: Vec<Vec<[u16; CARD_LANES]>>,
    state_boxes: StateBoxes,
}

impl OptimalScratch {
    fn new(rules: &Rules) -> OptimalScratch {
        OptimalScratch {
            keep_values: CardKeepValues::new(rules.dice()),
            lane_keeps: Vec::new(),
            state_boxes: StateBoxes::new(),
        }
    }
}

/// Plays the optimal policy's turn of the games of `lanes`, groups of games of up to
/// [`CARD_LANES`] states of one card (one group per state): one run of the kernel gives the
/// keep values of every state ([`StrategyTable::card_keep_values`]); the keeps are chosen
/// for every roll at once when the states have [`DECIDED_KEEPS`] games or more, else each the
/// first time a game meets its roll; the boxes of the states of [`DECIDED_BOXES`] games or
/// more all at once ([`card_best_boxes`]), the others' as met: from the state's boxes valued
/// once ([`StateBoxes`]) from [`VALUED_BOXES`] games, else each valued ([`best_box_for`]).
fn play_optimal(
    rules: &Rules,
    keying: &Keying,
    table: &StrategyTable,
    lanes: &mut [&mut [Game]],
    scratch: &mut OptimalScratch,
    decisions: &mut Decisions,
    tally: &mut Tally,
) {
    let states: Vec<State> = lanes.iter().map(|g| g[0].state()).collect();
    let OptimalScratch {
        keep_values,
        lane_keeps,
        state_boxes,
    } = scratch;
    table.card_keep_values(&states, keep_values);
    let games: usize = lanes.iter().map(|g| g.len()).sum();
    let keeps = (games >= DECIDED_KEEPS).then(|| {
        keep_values.lane_keeps(lane_keeps);
        &*lane_keeps
    });
    let boxed: Vec<usize> = (0..lanes.len())
        .filter(|&l| lanes[l].len() >= DECIDED_BOXES)
        .collect();
    let boxes = (!boxed.is_empty()).then(|| {
        let of: Vec<State> = boxed.iter().map(|&l| states[l]).collect();
        card_best_boxes(table, &of)
    });
    let first_roll = rules.dice().first_roll();
    let keep_values = &*keep_values;
    for (lane, group) in lanes.iter_mut().enumerate() {
        let state = states[lane];
        decisions.forget();
        if let Some(keeps) = keeps {
            decisions.take_keeps(keeps, lane);
        }
        if let (Some(boxes), Some(at)) = (&boxes, boxed.iter().position(|&l| l == lane)) {
            decisions.take_boxes(boxes, at);
        }
        let valued = (group.len() >= VALUED_BOXES).then(|| {
            state_boxes.value(table, &state);
            &*state_boxes
        });
        for g in group.iter_mut() {
            let played = decisions.play(
                &mut g.dice,
                |rolls_left, roll| {
                    keep_values.best_keep_of_roll(lane, rolls_left, roll - first_roll)
                },
                |roll| {
                    let dice = Dice::from_index(roll);
                    let c = match &valued {
                        Some(boxes) => boxes.best_of_roll(table, roll - first_roll, &dice),
                        None => best_box_for(table, &state, &dice),
                    }
                    .expect("a legal box");
                    scored(&c)
                },
            );
            g.score_turn(rules, keying, played, decisions.rolled, tally);
        }
    }
}

/// The sampling error of the mean of a simulation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeanInterval {
    /// Lower end of the 95% confidence interval of the mean.
    pub low: f64,
    /// Upper end of the 95% confidence interval of the mean.
    pub high: f64,
    /// Standard error of the mean: sample standard deviation / sqrt(games).
    pub standard_error: f64,
}

impl MeanInterval {
    /// The normal-approximation 95% interval (mean +- 1.96 standard errors; the games are many)
    /// of the mean of the games of `tally`.
    pub fn of(tally: &Tally) -> MeanInterval {
        let n = tally.total();
        let mean = tally
            .score
            .iter()
            .enumerate()
            .map(|(s, &c)| s as f64 * c)
            .sum::<f64>()
            / n;
        // The unbiased sample variance (n - 1).
        let squares = tally
            .score
            .iter()
            .enumerate()
            .map(|(s, &c)| (s as f64 - mean).powi(2) * c)
            .sum::<f64>();
        let variance = if n > 1.0 { squares / (n - 1.0) } else { 0.0 };
        let standard_error = (variance / n).sqrt();
        MeanInterval {
            low: mean - 1.96 * standard_error,
            high: mean + 1.96 * standard_error,
            standard_error,
        }
    }
}

/// The share of the games of a simulation that reach a score, with its 95% interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShareInterval {
    /// The share: of the games with a final score of at least the target, or of the games
    /// won ([`ShareInterval::wilson`]).
    pub share: f64,
    /// Lower end of the 95% confidence interval of the share.
    pub low: f64,
    /// Upper end of the 95% confidence interval of the share.
    pub high: f64,
}

impl ShareInterval {
    /// The share of the games of `tally` with a final score of at least `target`, with its
    /// Wilson score interval at 95% (z = 1.96): unlike share +- 1.96 standard errors it stays
    /// within 0 and 1 and does not shrink to a point when no game, or every game, reaches
    /// the target.
    pub fn of(tally: &Tally, target: u32) -> ShareInterval {
        let reached = tally.mass_at_least(target);
        ShareInterval::wilson(reached, tally.total())
    }

    /// The share `successes / n` with its Wilson score interval at 95% (see
    /// [`ShareInterval::of`]). A success may count a fraction (a shared win): the interval
    /// then errs on the wide side, a fraction varying less than a whole success or failure.
    pub fn wilson(successes: f64, n: f64) -> ShareInterval {
        let Interval { low, high } = Interval::wilson(successes, n);
        ShareInterval {
            share: if n == 0.0 { 0.0 } else { successes / n },
            low,
            high,
        }
    }
}

/// Plays `games` games of a game of saved rolls (`shared/RULES.md`, section 8) under the
/// optimal policy, the one advice ranks first at every decision ([`SavedTurn::best`]), and
/// tallies them like [`simulate`]. Game `g` rolls [`GameDice::of_game`]`(seed, g)`; a turn
/// starts with the rules' re-rolls and the rolls saved before it, and saves the re-rolls left
/// when it scores. One run of the kernel a turn (no lockstep: the rolls saved set every
/// game apart). `table` must be whole. Runs on the current rayon pool; the same tally at any
/// thread count.
pub fn simulate_saved(
    table: &SavedTable,
    games: u64,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Tally {
    simulate_saved_scores(table, games, seed, progress).0
}

/// Plays like [`simulate_saved`] and also returns the final score of every game, in the
/// order of their numbers (what Python's `simulate` hands back): the cards are held until the
/// tally anyway, so the scores cost nothing more.
pub fn simulate_saved_scores(
    table: &SavedTable,
    games: u64,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> (Tally, Vec<u32>) {
    use std::sync::atomic::{AtomicU64, Ordering};
    let rules = *table.rules();
    let done = AtomicU64::new(0);
    let cards: Vec<ScoreCard> = (0..games)
        .into_par_iter()
        .map(|g| {
            let card = play_saved_game(table, GameDice::of_game(seed, g));
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_multiple_of(64) || n == games {
                progress(n);
            }
            card
        })
        .collect();
    let mut tally = Tally::new(&rules);
    let mut scores = Vec::with_capacity(cards.len());
    for card in cards {
        let score = card.banked();
        scores.push(score);
        tally.add_score(score, 1.0);
        for index in 0..rules.box_count() {
            tally.add_box(index, card.points(index).expect("a full card"), 1.0);
        }
        if card.has_upper_bonus() {
            tally.upper_bonus += 1.0;
        }
        tally.add_yahtzee_bonuses(card.yahtzee_bonuses() as usize, 1.0);
        let part = Part {
            upper_bonus: card.has_upper_bonus(),
            fifty: card.state().yahtzee_50,
        };
        tally.add_part(part, score, 1.0);
    }
    (tally, scores)
}

/// One game of saved rolls played to its end with the dice of `rng`: its card.
fn play_saved_game(table: &SavedTable, mut rng: GameDice) -> ScoreCard {
    let rules = *table.rules();
    let space = rules.dice();
    let mut card = ScoreCard::new(rules);
    let mut saved = 0;
    while !card.is_full() {
        let state = card.state();
        let mut left = usize::from(rules.rolls() - 1) + saved;
        let turn = SavedTurn::new(table, state, left);
        let mut roll = rng.throw_index(space, 0);
        loop {
            let dice = Dice::from_index(roll);
            match turn.best(&dice, left).0 {
                Action::Keep { keep, .. } => {
                    roll = rng.throw_index(space, keep.index());
                    left -= 1;
                }
                Action::Score {
                    category, points, ..
                } => {
                    let index = rules.box_by_name(category).expect("a box of the rules");
                    let five = dice.five_of_a_kind().is_some();
                    let bonuses = state.bonuses_for(&rules, index, points, five);
                    card.fill(index, points, bonuses.yahtzee);
                    saved = left;
                    break;
                }
            }
        }
    }
    card
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::RuleSet;

    #[test]
    fn seed_42_plays_these_games() {
        // Pinned with the dice of 2026-12-03 (the fresh dice of a throw drawn at once): game
        // `g` of seed 42 rolls `GameDice::of_game(42, g)`. A change of generator, of its start,
        // of how a throw is drawn or of the order of the throws changes these scores.
        let rules = Rules::new(RuleSet::YAHTZEE);
        for (player, pinned) in [
            (Player::Greedy, [100, 114, 72]),
            (Player::MostCommon, [66, 143, 303]),
        ] {
            let (tally, scores) = simulate_scores(&rules, &player, 3, 42, &|_| {});
            assert_eq!(scores, pinned, "{:?}", player.policy());
            assert_eq!(tally.total(), 3.0);
        }
    }

    /// The games played in lockstep, decisions shared by the games of a state, are the games
    /// `play_turn` plays one at a time, turn after turn, with each game's dice: the same final
    /// score for every game, under the optimal policy (Yacht and Yahtzee, Joker and bonuses)
    /// and the baselines.
    #[test]
    fn lockstep_games_are_the_games_played_one_by_one() {
        use crate::solve::expected::SolveOptions;
        use crate::tables::expected::StrategyTable;
        for set in [RuleSet::YACHT, RuleSet::YAHTZEE] {
            let rules = Rules::new(set);
            let (table, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
            for player in [Player::Optimal(&table), Player::MostCommon, Player::Greedy] {
                let games = 3_000;
                let (tally, scores) = simulate_scores(&rules, &player, games, 8, &|_| {});
                let mut alone = Tally::new(&rules);
                for g in 0..games {
                    let mut dice = GameDice::of_game(8, g);
                    let (mut state, mut score) = (State::START, 0);
                    for _ in 0..rules.box_count() {
                        let turn = player.turn(&state, score, None);
                        let played = play_turn(&rules, &turn, &state, &mut dice);
                        alone.add_box(played.index, played.points, 1.0);
                        score += played.points + played.bonuses.points(&rules);
                        state = state.after(&rules, played.index, played.points);
                    }
                    assert_eq!(
                        scores[g as usize],
                        score,
                        "{set:?} {:?} game {g}",
                        player.policy()
                    );
                }
                assert_eq!(tally.boxes, alone.boxes, "{set:?} {:?}", player.policy());
            }
        }
    }

    /// A game's dice are its own: how many games are played together, and how many in all,
    /// changes no game.
    #[test]
    fn the_batch_changes_no_game() {
        let rules = Rules::new(RuleSet::YAHTZEE);
        let player = Player::MostCommon;
        let deal = |batch| Deal {
            rules: &rules,
            layout: Layout::of(&rules),
            player: &player,
            seed: 5,
            batch,
        };
        let (tally, scores, points) = deal(BATCH).play(2_000, true, true, &|_| {});
        // Each game's boxes and bonuses (`simulate --per-box`) add up to its score, and the
        // tally's boxes are the rows' boxes.
        let width = rules.box_count() + 3;
        assert_eq!(points.len(), 2_000 * width);
        for (row, &score) in points.chunks(width).zip(&scores) {
            assert_eq!(row[width - 1], score);
        }
        for (b, mass) in tally.boxes.iter().enumerate() {
            for (p, &m) in mass.iter().enumerate() {
                let rows = points.chunks(width).filter(|r| r[b] as usize == p).count();
                assert_eq!(m, rows as f64, "box {b} with {p}");
            }
        }
        for batch in [1, 7, 1_000] {
            assert_eq!(
                deal(batch).play(2_000, true, true, &|_| {}),
                (tally.clone(), scores.clone(), points.clone())
            );
        }
        let (_, fewer, none) = deal(BATCH).play(700, true, false, &|_| {});
        assert_eq!(fewer, scores[..700]);
        assert!(none.is_empty());
    }

    #[test]
    fn same_seed_same_games_at_any_thread_count() {
        let rules = Rules::new(RuleSet::YAHTZEE);
        let run = |threads: usize, seed: u64| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| simulate(&rules, &Player::MostCommon, 5_000, seed, &|_| {}))
        };
        let one = run(1, 42);
        assert_eq!(one, run(3, 42));
        assert_ne!(one, run(1, 43));
        assert_eq!(one.total(), 5_000.0);
    }

    /// The scores of `simulate_scores` are the games of `simulate`: the counts are the
    /// tally's, and a thread count changes nothing.
    #[test]
    fn simulate_scores_lists_every_game_in_order() {
        let rules = Rules::new(RuleSet::YAHTZEE);
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| simulate_scores(&rules, &Player::Greedy, 3_000, 42, &|_| {}))
        };
        let (tally, scores) = run(1);
        assert_eq!(scores.len(), 3_000);
        assert_eq!(
            scores[..3],
            simulate_scores(&rules, &Player::Greedy, 3, 42, &|_| {}).1
        );
        for (s, &count) in tally.score.iter().enumerate() {
            let n = scores.iter().filter(|&&x| x as usize == s).count();
            assert_eq!(n as f64, count, "score {s}");
        }
        assert_eq!(tally, simulate(&rules, &Player::Greedy, 3_000, 42, &|_| {}));
        assert_eq!(run(3), (tally, scores));
    }
}
