//! Matches between policies: two to [`MAX_SEATS`] players on the same rules, each playing a
//! policy, with random dice; who wins, and by how much.
//!
//! A game follows the rules of several players (`RULES.md`, "Several players"): every player
//! takes turn 1, then every player takes turn 2, and so on, and the highest final total wins,
//! a tie of `k` players for first counting `1/k` of a win for each. Instead of an opening roll
//! for the order, the seats take turns in the order of the list and the first seat rotates:
//! game `g` (from 0) starts with seat `g mod n`, so every seat starts as many games as the
//! others (to within one) and no policy gains from the order by luck.
//!
//! A policy of one player ([`Player`]: `optimal`, `greedy`, `most-common`, `target:T`) plays
//! as in [`crate::stats::simulate`], whatever the others score. The policies that play to win look at
//! the others' cards at each of their turns: each opponent's final score is taken as under
//! expected-score play from their current card (its distribution read from the distribution
//! table; a point for a player who has finished), as [`crate::policy::win`] models them. `win` plays
//! the fast win policy ([`WinTurn`]); `win-exact` solves the exact best response to those
//! distributions at each of its turns ([`best_response`]) and plays it ([`TargetTurn`] on
//! the win table, at the points banked): slow (up to a second per turn for Yacht, most of a
//! minute from an empty Yahtzee card), for small samples. `two-player` plays the exact
//! optimum of the game of two ([`TwoPlayerBot`]: Yacht, either fill order, two seats only),
//! knowing both cards and the lead; it reads the table of the first turns, and each game
//! solves the rest of its game once, at its first turn past the table ([`NextPlies`]: about
//! a second of CPU for Yacht), for both two-player seats of the game.
//!
//! Speed: the games of a batch are played in lockstep, turn after turn and seat after seat in
//! each game's order ([`play`]). The win bot's turns of the games whose card is in one state
//! share one computation of the target table's lanes for all their targets ([`TargetLanes`]);
//! each game then sums the few chances its decisions look at, with its own weights. A turn
//! so played is, bit for bit, the turn the game computes alone (tested).
//!
//! Reproducibility: each seat of each game rolls its own dice, ChaCha8 seeded with the
//! user's seed on stream `g * n + seat` (game `g`, `n` seats). A game's turns depend only on
//! its own cards and dice, and the counts are integers added in game order, so a seed gives
//! the same games and the same tally at any thread count. A seat's dice depend
//! only on its own choices: two matches on the same seed that differ in one seat's policy
//! give every other seat that plays alone (such as `optimal`) the very same games, which
//! makes comparisons of the two matches sharper (common random numbers).

use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::game::dice::DiceRng;
use crate::game::rules::Rules;
use crate::game::state::{Layout, ScoreCard};
use crate::policy::cache::TurnCache;
use crate::policy::player::{AtTable, Player, PlayerError, PolicyTurn, check_players};
use crate::policy::target::TargetLanes;
use crate::policy::two_player::NextPlies;
use crate::policy::win::{FinalScores, WinTurn, opponent_scores, opponents_at_table};
use crate::policy::{Policy, PolicyError};
use crate::solve::simd::Simd;
use crate::stats::distribution::Tally;
use crate::stats::simulate::{Played, play_turn};
use crate::tables::vector::VectorTable;
use crate::text::excerpt;

/// The most players a match takes: more than any table game seats, and few enough that a
/// list repeated by mistake is refused at once.
pub const MAX_SEATS: usize = 8;

/// Seats in play at once: a batch of a match holds this many seats' cards and dice (about
/// 400 bytes a seat), `SEATS_IN_PLAY / n` games of `n` seats.
const SEATS_IN_PLAY: u64 = 1 << 16;

/// Games per parallel task when their turns are their own: few, so that a small sample of
/// slow games (`win-exact`) still spreads over the threads.
const OWN_TURNS: usize = 16;

/// Games per parallel task when their turns share lanes (the win bot's, in one state): many
/// share a computation, but not so many that one task holds up the others.
const SHARED_TURNS: usize = 256;

/// How a match is played, as its reports state it.
pub const MATCH_ORDER: &str = "every player takes turn 1, then every player takes turn 2, and so on, in the order of the seats; game g (from 0) starts with seat g mod n, so every seat starts as many games (to within one); a tie of k players for the highest total counts 1/k of a win for each";

/// A list of policies that is not a lineup of a match.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineupError {
    /// Fewer than two policies. Fix: list two or more, separated by commas.
    #[error("a match needs two policies or more, separated by commas, e.g. ev,win; got only `{0}`")]
    TooFew(String),
    /// More than [`MAX_SEATS`] policies. Fix: list at most that many.
    #[error("a match takes at most {MAX_SEATS} policies, not {0}")]
    TooMany(usize),
    /// An entry of the list is not a policy. Fix: see the policy's error.
    #[error("policy {which} of the match: {error}")]
    Policy {
        /// Which entry, from 1.
        which: usize,
        /// What is wrong with it.
        error: PolicyError,
    },
}

/// Parses a lineup: two to [`MAX_SEATS`] policies separated by commas (`ev,win`,
/// `target:250,optimal,greedy`), as [`Policy`] parses each.
pub fn parse_lineup(text: &str) -> Result<Vec<Policy>, LineupError> {
    let entries: Vec<&str> = text.split(',').collect();
    if entries.len() > MAX_SEATS {
        return Err(LineupError::TooMany(entries.len()));
    }
    let policies = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            e.parse::<Policy>().map_err(|error| LineupError::Policy {
                which: i + 1,
                error,
            })
        })
        .collect::<Result<Vec<Policy>, LineupError>>()?;
    if policies.len() < 2 {
        return Err(LineupError::TooFew(excerpt(text.trim())));
    }
    Ok(policies)
}

/// Why a match cannot be played.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MatchError {
    /// The lineup is not one (see [`LineupError`]).
    #[error(transparent)]
    Lineup(#[from] LineupError),
    /// A player cannot play (see [`PlayerError`]): a table it needs, or a game it does not
    /// play.
    #[error(transparent)]
    Player(#[from] PlayerError),
}

/// A match: the seats, in the order they play, and the distribution table the seats that
/// play to win see their opponents with.
pub struct Match<'a> {
    rules: Rules,
    seats: Vec<Player<'a>>,
    distribution: Option<&'a VectorTable<f32>>,
    simd: Simd,
}

impl<'a> Match<'a> {
    /// A match of `seats` on `rules`; `distribution` is needed when a seat plays to win.
    /// Checks that every table is of `rules` and reads every card the games can ask for, so
    /// that no turn of a game can fail.
    pub fn new(
        rules: Rules,
        seats: Vec<Player<'a>>,
        distribution: Option<&'a VectorTable<f32>>,
    ) -> Result<Match<'a>, MatchError> {
        if seats.len() < 2 {
            let only = seats.first().map_or(String::new(), |s| s.policy().label());
            return Err(LineupError::TooFew(only).into());
        }
        if seats.len() > MAX_SEATS {
            return Err(LineupError::TooMany(seats.len()).into());
        }
        if seats.len() != 2 && seats.iter().any(|s| matches!(s, Player::TwoPlayer(_))) {
            return Err(PlayerError::TwoPlayer {
                rules: rules.label(),
                players: seats.len(),
            }
            .into());
        }
        check_players(&rules, &seats, distribution)?;
        Ok(Match {
            rules,
            seats,
            distribution,
            simd: Simd::detect(),
        })
    }

    /// The rules played.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The seats, in the order they play.
    pub fn seats(&self) -> &[Player<'a>] {
        &self.seats
    }

    /// The final-score distributions of the opponents of `seat`, from their `cards` (every
    /// seat's, in seat order): a point for a player who has finished, else the distribution
    /// under expected-score play from their card.
    pub fn opponents(&self, seat: usize, cards: &[ScoreCard]) -> Vec<FinalScores> {
        let table = self
            .distribution
            .expect("a match with a seat that plays to win has the distribution table");
        opponent_scores(&self.rules, Some(table), &opponents_at_table(seat, cards))
            .expect("every card of the distribution table was read when the match was made")
    }

    /// How `seat` plays its turn from `card` against `opponents` (see [`Match::opponents`];
    /// unused by the policies of one player), with the turns of `cache`. `exact` holds the
    /// best response a `win-exact` seat solves for the turn, which the turn reads. (A
    /// two-player seat needs the other card: [`Player::turn_in_game`].)
    pub fn turn<'t>(
        &'t self,
        seat: usize,
        card: &ScoreCard,
        opponents: &[FinalScores],
        cache: Option<&'t TurnCache<'a>>,
        exact: &'t mut Option<VectorTable<f32>>,
    ) -> PolicyTurn<'t> {
        let at = AtTable {
            seat: 0,
            cards: std::slice::from_ref(card),
            opponents,
            cache,
            plies: None,
            simd: self.simd,
        };
        self.seats[seat].turn_in_game(at, exact)
    }

    /// Game `game` of `seed` before its first turn: each seat rolls its own dice, ChaCha8 on
    /// stream `game * n + seat`, and the plies of the game of two for its two-player seats.
    fn deal(&self, game: u64, seed: u64) -> InPlay<'a> {
        let n = self.seats.len();
        InPlay {
            game,
            start: (game % n as u64) as usize,
            cards: vec![ScoreCard::new(self.rules); n],
            dice: (0..n)
                .map(|s| DiceRng::with_stream(seed, game * n as u64 + s as u64))
                .collect(),
            plies: self.seats.iter().find_map(|s| match s {
                Player::TwoPlayer(bot) => Some(bot.plies(self.simd).expect(
                    "the tables of a two-player seat were checked when the match was made",
                )),
                _ => None,
            }),
            decisions: vec![0; n],
            key: 0,
        }
    }

    /// What the `k`-th turn of a round of `g` shares with other games: the seat and the
    /// state of its card when the seat plays the fast win policy (whose turns in one state
    /// share their lanes), else nothing (`0`).
    fn shared_key(&self, layout: &Layout, g: &InPlay<'_>, k: usize) -> u64 {
        let seat = (g.start + k) % self.seats.len();
        match self.seats[seat] {
            Player::Win { .. } => {
                ((seat as u64 + 1) << 48) | layout.index(&g.cards[seat].state()) as u64
            }
            _ => 0,
        }
    }

    /// Plays the `k`-th turn of the round of each game of `piece` (games of one
    /// [`Match::shared_key`]), adding the time each seat spent to `clock`. The win bot's
    /// turns of one state are played from lanes computed once for all their targets
    /// ([`TargetLanes`], [`WinTurn::from_lanes`]): the same turns, bit for bit, as each game
    /// would compute alone.
    fn play_piece(
        &self,
        k: usize,
        piece: &mut [InPlay<'a>],
        cache: Option<&TurnCache<'a>>,
        clock: &mut [Duration],
    ) {
        let n = self.seats.len();
        let seat = (piece[0].start + k) % n;
        if let (Player::Win { ev, targets }, true) = (self.seats[seat], piece[0].key != 0) {
            let began = Instant::now();
            let state = piece[0].cards[seat].state();
            let weights: Vec<Vec<(i64, f64)>> = piece
                .iter()
                .map(|g| {
                    let opponents = self.opponents(seat, &g.cards);
                    WinTurn::weights(targets, &state, g.cards[seat].banked(), &opponents)
                })
                .collect();
            let needed = weights.iter().flatten().map(|&(x, _)| x).collect();
            let lanes =
                Arc::new(TargetLanes::new(ev, targets, &state, needed).expect(
                    "every card of the target table was read when the players were checked",
                ));
            for (g, w) in piece.iter_mut().zip(&weights) {
                let turn = PolicyTurn::Win(
                    WinTurn::from_lanes(&lanes, w)
                        .expect("the lanes hold every target of the piece"),
                );
                g.play_turn(&self.rules, seat, &turn);
            }
            clock[seat] += began.elapsed();
            return;
        }
        for g in piece {
            let seat = (g.start + k) % n;
            let began = Instant::now();
            let opponents = if self.seats[seat].plays_to_win() {
                self.opponents(seat, &g.cards)
            } else {
                Vec::new()
            };
            let mut exact = None;
            let at = AtTable {
                seat,
                cards: &g.cards,
                opponents: &opponents,
                cache,
                plies: g.plies.as_mut(),
                simd: self.simd,
            };
            let turn = self.seats[seat].turn_in_game(at, &mut exact);
            let played = play_turn(
                &self.rules,
                &turn,
                &g.cards[seat].state(),
                &mut g.dice[seat],
            );
            drop(turn);
            g.record(seat, played);
            clock[seat] += began.elapsed();
        }
    }
}

/// One game of a match in play: its cards, its seats' dice, the plies of its game of two.
struct InPlay<'a> {
    game: u64,
    /// The seat that takes the first turn of each round.
    start: usize,
    cards: Vec<ScoreCard>,
    dice: Vec<DiceRng>,
    plies: Option<NextPlies<'a>>,
    /// Each seat's choices so far.
    decisions: Vec<u64>,
    /// The game's [`Match::shared_key`] for the turn being played.
    key: u64,
}

impl InPlay<'_> {
    /// Plays `seat`'s turn as `turn` says.
    fn play_turn(&mut self, rules: &Rules, seat: usize, turn: &PolicyTurn<'_>) {
        let played = play_turn(rules, turn, &self.cards[seat].state(), &mut self.dice[seat]);
        self.record(seat, played);
    }

    /// Fills `seat`'s card as `played` says.
    fn record(&mut self, seat: usize, played: Played) {
        self.cards[seat].fill(played.index, played.points, played.bonuses.yahtzee);
        self.decisions[seat] += u64::from(played.decisions);
    }
}

/// `games` split where `same` changes and every `most` games within a run of equal ones.
fn pieces<T>(
    games: &mut [T],
    same: impl Fn(&T, &T) -> bool,
    most: impl Fn(&T) -> usize,
) -> Vec<&mut [T]> {
    let mut out = Vec::new();
    let mut rest = games;
    while !rest.is_empty() {
        let cap = most(&rest[0]);
        let mut len = 1;
        while len < rest.len() && len < cap && same(&rest[0], &rest[len]) {
            len += 1;
        }
        let (piece, tail) = std::mem::take(&mut rest).split_at_mut(len);
        out.push(piece);
        rest = tail;
    }
    out
}

/// One game of a match: which seat started and the final scores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The game, from 0 (its dice: see the module's documentation).
    pub game: u64,
    /// The seat that took the first turn, from 0.
    pub first: usize,
    /// The final scores, in seat order.
    pub scores: Vec<u32>,
}

/// Writes `records` as CSV (`game,first_seat,seat_1,seat_2,...`, seats from 1), through a
/// temporary file renamed into place: for comparing two matches game by game.
pub fn write_records_csv(
    path: &std::path::Path,
    seats: usize,
    records: &[GameRecord],
) -> std::io::Result<()> {
    let mut text = String::from("game,first_seat");
    for s in 1..=seats {
        text.push_str(&format!(",seat_{s}"));
    }
    text.push('\n');
    for r in records {
        text.push_str(&format!("{},{}", r.game, r.first + 1));
        for score in &r.scores {
            text.push_str(&format!(",{score}"));
        }
        text.push('\n');
    }
    crate::files::write_atomically(path, text.as_bytes())
}

/// What one seat did over the games of a match.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatTally {
    /// The final scores (counts of games).
    pub scores: Tally,
    /// `wins[k - 1]`: games this seat won sharing the highest total with `k - 1` others
    /// (`wins[0]`: won alone).
    pub wins: Vec<u64>,
    /// Turns played.
    pub turns: u64,
    /// Choices made: keeps and boxes.
    pub decisions: u64,
}

impl SeatTally {
    /// Games won, a tie of `k` players for first counting `1/k`.
    pub fn win_share(&self) -> f64 {
        self.wins
            .iter()
            .enumerate()
            .map(|(k, &w)| w as f64 / (k + 1) as f64)
            .sum()
    }

    /// Games this seat tied for first with others.
    pub fn ties(&self) -> u64 {
        self.wins.iter().skip(1).sum()
    }
}

/// What a match did: each seat's tally, in seat order.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchTally {
    /// Games played.
    pub games: u64,
    /// Games whose highest total was shared.
    pub tied_games: u64,
    /// Each seat's.
    pub seats: Vec<SeatTally>,
    /// Every game, in order, when the games are recorded ([`MatchTally::recording`]).
    pub records: Option<Vec<GameRecord>>,
}

impl MatchTally {
    /// An empty tally for `seats` seats of `rules`.
    pub fn new(rules: &Rules, seats: usize) -> MatchTally {
        MatchTally {
            games: 0,
            tied_games: 0,
            seats: (0..seats)
                .map(|_| SeatTally {
                    scores: Tally::new(rules),
                    wins: vec![0; seats],
                    turns: 0,
                    decisions: 0,
                })
                .collect(),
            records: None,
        }
    }

    /// An empty tally that also records every game ([`MatchTally::records`]).
    pub fn recording(rules: &Rules, seats: usize) -> MatchTally {
        MatchTally {
            records: Some(Vec::new()),
            ..MatchTally::new(rules, seats)
        }
    }

    /// Adds a game with these final `scores`, in seat order.
    pub fn add_game(&mut self, scores: &[u32]) {
        let best = scores.iter().copied().max().unwrap_or(0);
        let first = scores.iter().filter(|&&s| s == best).count();
        self.games += 1;
        self.tied_games += u64::from(first > 1);
        for (seat, &score) in self.seats.iter_mut().zip(scores) {
            seat.scores.add_score(score, 1.0);
            if score == best {
                seat.wins[first - 1] += 1;
            }
        }
    }

    /// Adds every game of `other`.
    pub fn merge(&mut self, other: &MatchTally) {
        self.games += other.games;
        self.tied_games += other.tied_games;
        for (mine, theirs) in self.seats.iter_mut().zip(&other.seats) {
            mine.scores.merge(&theirs.scores);
            for (a, b) in mine.wins.iter_mut().zip(&theirs.wins) {
                *a += b;
            }
            mine.turns += theirs.turns;
            mine.decisions += theirs.decisions;
        }
        if let (Some(mine), Some(theirs)) = (&mut self.records, &other.records) {
            mine.extend_from_slice(theirs);
        }
    }
}

/// Plays `games` games of the match with `seed`: the tally, the same at any thread count
/// (with every game recorded when `record` is set), and the time each seat spent on its
/// turns (summed over the threads). `progress(done)` is called with the games played so far
/// (a game counts in proportion to its turns played). Runs on the current rayon thread pool.
///
/// The games of a batch are played in lockstep, turn by turn and seat by seat in each
/// game's order, so that the win bot's turns of the games whose seat is in one state share
/// their lanes ([`Match::play_piece`]); every game is the game it would be alone.
pub fn play(
    m: &Match<'_>,
    games: u64,
    seed: u64,
    record: bool,
    progress: &(dyn Fn(u64) + Sync),
) -> (MatchTally, Vec<Duration>) {
    let n = m.seats.len();
    let mut total = if record {
        MatchTally::recording(&m.rules, n)
    } else {
        MatchTally::new(&m.rules, n)
    };
    let cache = m.seats.iter().find_map(Player::table).map(TurnCache::new);
    let layout = Layout::of(&m.rules);
    let steps = m.rules.box_count() * n;
    let batch = (SEATS_IN_PLAY / n as u64).max(1);
    let mut clock = vec![Duration::ZERO; n];
    let mut first = 0;
    while first < games {
        let count = batch.min(games - first);
        let mut in_play: Vec<InPlay<'_>> = (first..first + count)
            .into_par_iter()
            .map(|g| m.deal(g, seed))
            .collect();
        for step in 0..steps {
            let k = step % n;
            in_play
                .par_iter_mut()
                .for_each(|g| g.key = m.shared_key(&layout, g, k));
            in_play.par_sort_unstable_by_key(|g| (g.key, g.game));
            let clocks: Vec<Vec<Duration>> = pieces(
                &mut in_play,
                |a, b| a.key == b.key,
                |g| if g.key == 0 { OWN_TURNS } else { SHARED_TURNS },
            )
            .into_par_iter()
            .map(|piece| {
                let mut c = vec![Duration::ZERO; n];
                m.play_piece(k, piece, cache.as_ref(), &mut c);
                c
            })
            .collect();
            for c in clocks {
                for (a, b) in clock.iter_mut().zip(c) {
                    *a += b;
                }
            }
            progress(first + count * (step as u64 + 1) / steps as u64);
        }
        in_play.par_sort_unstable_by_key(|g| g.game);
        for g in &in_play {
            let scores: Vec<u32> = g.cards.iter().map(ScoreCard::banked).collect();
            total.add_game(&scores);
            for (s, d) in total.seats.iter_mut().zip(&g.decisions) {
                s.turns += m.rules.box_count() as u64;
                s.decisions += d;
            }
            if let Some(records) = &mut total.records {
                records.push(GameRecord {
                    game: g.game,
                    first: g.start,
                    scores,
                });
            }
        }
        first += count;
    }
    (total, clock)
}
