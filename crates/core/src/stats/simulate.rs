//! Games played with random dice through the rules engine, under the optimal policy or a
//! simple baseline, tallied like the exact distribution ([`crate::stats::distribution::Tally`]).
//!
//! Reproducibility: games are dealt in chunks of [`CHUNK`]; chunk `c` draws its dice from
//! ChaCha8 seeded with the user's seed on stream `c` (a portable generator, the same on every
//! platform). Chunks run in parallel but each is played by the same sequential code and the
//! tallies are integer counts merged in chunk order, so a seed gives the same games and the
//! same report at any thread count.
//!
//! The optimal policy is the library's ([`TurnValues::best_keep`], [`best_box_for`]) with its
//! tie convention (fewest dice kept, then the first box on the card). The target policy plays
//! for a final score of at least `T`: each turn is [`TargetTurn`] with the points still
//! needed, except where it cannot differ from the optimal policy (the target reached, or out
//! of reach of what the state can still score), where the optimal policy's turn is played, as
//! [`TargetTurn`] would (its ties go to the higher expected score, so with every chance 1 or
//! every chance 0 it is the optimal policy).
//!
//! The policies that play to beat other players ([`Policy::Win`], [`Policy::WinExact`]) need
//! the other players' cards: they play in matches ([`crate::stats::matches`]), through the same
//! [`PolicyTurn`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;
use serde::Serialize;

use crate::game::dice::{DICE, Dice, DiceRng, FACES, Keep};
use crate::game::rules::Rules;
use crate::game::state::{Bonuses, Layout, State, cards_by_depth};
use crate::policy::expected::best_box_for;
use crate::policy::target::{TargetError, TargetTurn};
use crate::policy::win::WinTurn;
use crate::solve::expected::TurnValues;
use crate::solve::vector::max_remaining;
use crate::stats::distribution::Tally;
use crate::tables::expected::StrategyTable;
use crate::tables::vector::VectorTable;
use crate::text::excerpt;

/// Games per chunk: one random stream each. Small enough to spread over the threads and to
/// move the progress bar, large enough that a chunk's bookkeeping is negligible.
pub const CHUNK: u64 = 1024;

/// The largest target score a target policy takes: far above any score a game can reach
/// (1,575 for `yahtzee`), low enough to be typed by mistake only.
pub const MAX_TARGET: u32 = 100_000;

/// How the simulated player plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// The optimal policy of the strategy table (ties: fewest dice kept, first box on the
    /// card).
    Optimal,
    /// Never re-rolls: scores the opening roll in the box worth the most points now (bonus
    /// included; ties: first box on the card).
    Greedy,
    /// Keeps every die showing the most common face (ties: the higher face) and re-rolls the
    /// others twice, then scores like `greedy`.
    MostCommon,
    /// The best chance of a final score of at least this target ([`TargetTurn`]; ties in
    /// chance: the higher expected score, then as `optimal`).
    Target(u32),
    /// Plays to beat the other players of a match (matches only, [`crate::stats::matches`]): the fast
    /// win policy ([`WinTurn`]) against the others' current cards.
    Win,
    /// Plays to beat the other players of a match by the exact best response
    /// ([`crate::policy::win::best_response`]), solved again at each of its turns: slow.
    WinExact,
    /// The exact optimum of the game of two, knowing both cards (matches of two players of
    /// Yacht only, [`crate::policy::two_player::TwoPlayerBot`]).
    TwoPlayer,
}

/// A policy's name that is not one: what was given and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// No policy of that name. Fix: one of the names listed.
    #[error(
        "unknown policy `{0}`: the policies are optimal (or ev), greedy, most-common, target:T (T from 0 to {MAX_TARGET}, e.g. target:300), and in a match win, win-exact and two-player"
    )]
    Unknown(String),
    /// `target` without its score. Fix: `target:T`.
    #[error(
        "the target policy needs its target score: target:T with T from 0 to {MAX_TARGET}, e.g. target:300"
    )]
    NoTarget,
    /// A target that is not a whole number from 0 to [`MAX_TARGET`]. Fix: such a number.
    #[error(
        "the target of `target:{0}` must be a whole number from 0 to {MAX_TARGET}, e.g. target:300"
    )]
    BadTarget(String),
}

impl Policy {
    /// The name used on the command line and in reports (`target` for every target; see
    /// [`Policy::label`]).
    pub fn name(self) -> &'static str {
        match self {
            Policy::Optimal => "optimal",
            Policy::Greedy => "greedy",
            Policy::MostCommon => "most-common",
            Policy::Target(_) => "target",
            Policy::Win => "win",
            Policy::WinExact => "win-exact",
            Policy::TwoPlayer => "two-player",
        }
    }

    /// The policy as it is given on the command line: its name, with the target for
    /// `target:T`.
    pub fn label(self) -> String {
        match self {
            Policy::Target(t) => format!("target:{t}"),
            other => other.name().to_string(),
        }
    }

    /// The target score of a target policy.
    pub fn target(self) -> Option<u32> {
        match self {
            Policy::Target(t) => Some(t),
            _ => None,
        }
    }
}

impl std::str::FromStr for Policy {
    type Err = PolicyError;

    /// Parses `optimal` (or `ev`), `greedy`, `most-common`, `target:T`, `win` or `win-exact`
    /// (any case, spaces around ignored).
    fn from_str(text: &str) -> Result<Policy, PolicyError> {
        let text = text.trim();
        let lower = text.to_ascii_lowercase();
        match lower.as_str() {
            "optimal" | "ev" => return Ok(Policy::Optimal),
            "win" => return Ok(Policy::Win),
            "win-exact" => return Ok(Policy::WinExact),
            "two-player" => return Ok(Policy::TwoPlayer),
            "greedy" => return Ok(Policy::Greedy),
            "most-common" => return Ok(Policy::MostCommon),
            "target" | "target:" => return Err(PolicyError::NoTarget),
            _ => {}
        }
        let Some(target) = lower.strip_prefix("target:") else {
            return Err(PolicyError::Unknown(excerpt(text)));
        };
        match target.trim().parse::<u32>() {
            Ok(t) if t <= MAX_TARGET => Ok(Policy::Target(t)),
            _ => Err(PolicyError::BadTarget(excerpt(target.trim()))),
        }
    }
}

impl Serialize for Policy {
    /// The policy's [`Policy::name`]; a report gives a target policy's score beside it.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// What the target policy plays with: the two tables of the rules, every card of the target
/// table read and checked (so that no turn of a game can fail), and the target.
pub struct TargetPlayer<'a> {
    ev: &'a StrategyTable,
    targets: &'a VectorTable<f32>,
    target: u32,
}

impl<'a> TargetPlayer<'a> {
    /// A player for `target` with the expected-score table `ev` and the target table
    /// `targets` of the same rules. Reads every card of `targets` first (a table loaded from
    /// a file reads them on first use), so that a damaged file is an error here.
    pub fn new(
        ev: &'a StrategyTable,
        targets: &'a VectorTable<f32>,
        target: u32,
    ) -> Result<TargetPlayer<'a>, TargetError> {
        TargetPlayer::from_state(ev, targets, target, &State::START)
    }

    /// [`TargetPlayer::new`] for games from `start` on: reads only the cards that follow
    /// it, so a reduced target table ([`crate::solve::vector::solve_reduced`]) serves.
    pub fn from_state(
        ev: &'a StrategyTable,
        targets: &'a VectorTable<f32>,
        target: u32,
        start: &State,
    ) -> Result<TargetPlayer<'a>, TargetError> {
        let rules = *ev.rules();
        if *targets.rules() != rules {
            return Err(TargetError::RulesMismatch {
                card: rules.label(),
                table: targets.rules().label(),
            });
        }
        for m in cards_by_depth(&rules).into_iter().flatten() {
            if m & start.filled == start.filled {
                targets.card(m)?;
            }
        }
        Ok(TargetPlayer {
            ev,
            targets,
            target,
        })
    }

    /// The target score.
    pub fn target(&self) -> u32 {
        self.target
    }

    /// The points still needed in `state` with `banked` points on the card, where the target
    /// policy can differ from the optimal policy: `None` when the target is reached
    /// (`needed <= 0`) or out of reach (`needed` above [`max_remaining`]), where both
    /// policies are the same.
    pub fn needed(&self, state: &State, banked: u32) -> Option<i64> {
        let needed = i64::from(self.target) - i64::from(banked);
        (needed > 0 && needed <= i64::from(max_remaining(self.ev.rules(), state))).then_some(needed)
    }

    /// The target policy's turn of `state` with `needed` points still needed.
    pub fn turn_for(&self, state: &State, needed: i64) -> TargetTurn<'a> {
        TargetTurn::new(self.ev, self.targets, state, needed)
            .expect("every card of the target table was read when the player was made")
    }

    /// The expected-score table.
    pub fn ev(&self) -> &'a StrategyTable {
        self.ev
    }

    /// The target table.
    pub fn targets(&self) -> &'a VectorTable<f32> {
        self.targets
    }
}

/// A player: a policy and what it needs.
#[derive(Clone, Copy)]
pub enum Player<'a> {
    /// The optimal policy of this table.
    Optimal(&'a StrategyTable),
    /// See [`Policy::Greedy`].
    Greedy,
    /// See [`Policy::MostCommon`].
    MostCommon,
    /// See [`Policy::Target`].
    Target(&'a TargetPlayer<'a>),
}

impl<'a> Player<'a> {
    /// The policy played.
    pub fn policy(&self) -> Policy {
        match self {
            Player::Optimal(_) => Policy::Optimal,
            Player::Greedy => Policy::Greedy,
            Player::MostCommon => Policy::MostCommon,
            Player::Target(p) => Policy::Target(p.target),
        }
    }

    /// The expected-score table the policy plays with (the optimal and the target policy).
    fn table(&self) -> Option<&'a StrategyTable> {
        match self {
            Player::Optimal(t) => Some(t),
            Player::Target(p) => Some(p.ev),
            _ => None,
        }
    }

    /// How the player plays the turn of `state` with `banked` points on the card (bonuses
    /// included), from `cache` when one is given (a turn is a pure function of the state and,
    /// for the target policy, of the points still needed, so the cache changes nothing in the
    /// game).
    pub fn turn(
        &self,
        state: &State,
        banked: u32,
        cache: Option<&TurnCache<'a>>,
    ) -> PolicyTurn<'a> {
        let optimal = |table: &'a StrategyTable| {
            let values = match cache {
                Some(cache) => cache.turn(table, state),
                None => Arc::new(TurnValues::new(table, state)),
            };
            PolicyTurn::Optimal(table, values)
        };
        match self {
            Player::Optimal(table) => optimal(table),
            Player::Target(p) => match p.needed(state, banked) {
                Some(needed) => PolicyTurn::Target(match cache {
                    Some(cache) => cache.target_turn(p, state, needed),
                    None => Arc::new(p.turn_for(state, needed)),
                }),
                None => optimal(p.ev),
            },
            Player::Greedy => PolicyTurn::Greedy,
            Player::MostCommon => PolicyTurn::MostCommon,
        }
    }
}

/// One turn of one state under a policy: the dice kept after each roll and the box filled.
/// What the simulation plays, and what the bots of `yahtzee play` play.
pub enum PolicyTurn<'a> {
    /// The optimal policy's turn ([`TurnValues::best_keep`], [`best_box_for`]).
    Optimal(&'a StrategyTable, Arc<TurnValues>),
    /// The target policy's turn, where it can differ from the optimal policy's.
    Target(Arc<TargetTurn<'a>>),
    /// See [`Policy::Greedy`].
    Greedy,
    /// See [`Policy::MostCommon`].
    MostCommon,
    /// The fast win policy's turn ([`Policy::Win`]).
    Win(WinTurn<'a>),
    /// The two-player optimum's turn ([`Policy::TwoPlayer`]).
    TwoPlayer(crate::policy::two_player::TwoPlayerTurn<'a>),
}

impl PolicyTurn<'_> {
    /// The dice kept from `dice` with `rolls_left` (1 or 2) rolls left; all five dice: stop
    /// rolling (the greedy policy always stops).
    pub fn keep(&self, rolls_left: u8, dice: &Dice) -> Keep {
        match self {
            PolicyTurn::Optimal(_, values) => values.best_keep(rolls_left, dice).0,
            PolicyTurn::Target(t) => t.best_keep(rolls_left, dice),
            PolicyTurn::Win(t) => t.best_keep(rolls_left, dice),
            PolicyTurn::TwoPlayer(t) => t.best_keep(rolls_left, dice),
            PolicyTurn::MostCommon => most_common_keep(dice),
            PolicyTurn::Greedy => Keep::from_faces(&dice.faces()).expect("five faces"),
        }
    }

    /// The box filled with `dice` in `state` (its index, points and the bonuses earned).
    pub fn choose_box(&self, rules: &Rules, state: &State, dice: &Dice) -> (usize, u32, Bonuses) {
        match self {
            PolicyTurn::Optimal(table, _) => {
                let c = best_box_for(table, state, dice).expect("a legal box");
                (c.index, c.points, c.bonuses)
            }
            PolicyTurn::Target(t) => {
                let (c, _) = t
                    .best_box(dice)
                    .expect("every card of the target table was read when the player was made");
                (c.index, c.points, c.bonuses)
            }
            PolicyTurn::Win(t) => {
                let c = t
                    .best_box(dice)
                    .expect("every card of the target table was read when the match was made");
                (c.index, c.points, c.bonuses)
            }
            PolicyTurn::TwoPlayer(t) => t.best_box(dice),
            PolicyTurn::Greedy | PolicyTurn::MostCommon => greedy_box(rules, state, dice),
        }
    }
}

/// The box worth the most points now (points and bonus), ties to the first on the card.
fn greedy_box(rules: &Rules, state: &State, dice: &Dice) -> (usize, u32, Bonuses) {
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
fn most_common_keep(dice: &Dice) -> Keep {
    let counts = dice.counts();
    let face = (0..FACES)
        .rev()
        .max_by_key(|&f| (counts[f], f))
        .expect("six faces");
    Keep::from_faces(&vec![face as u8 + 1; usize::from(counts[face])]).expect("at most five dice")
}

/// The turns of the states met so far, shared by the threads: a state's turn (and, for the
/// target policy, a state's turn with some points still needed) is computed once and reused
/// while the cache has room. It changes nothing in the games (a turn is a pure function of
/// the state and the points needed); it saves recomputing the frequent ones (the first turns,
/// whose states are few, and the last, whose states are few again).
pub struct TurnCache<'a> {
    layout: Layout,
    slots: Vec<OnceLock<Arc<TurnValues>>>,
    room: AtomicUsize,
    /// Target turns by (state's layout index, points needed), in shards by state.
    targets: Vec<Mutex<TargetShard<'a>>>,
    target_room: AtomicUsize,
}

/// One shard of the target turns of a [`TurnCache`].
type TargetShard<'a> = HashMap<(usize, i64), Arc<TargetTurn<'a>>>;

/// States a [`TurnCache`] keeps at most: each turn is ~9.4 KB (1,176 values), so this bounds
/// the cache near 300 MB, enough for every frequent state.
pub const CACHED_TURNS: usize = 32_768;

/// Target turns a [`TurnCache`] keeps at most: each is ~17 KB (its chances and the
/// expected-score turn), so this bounds them near 140 MB.
pub const CACHED_TARGET_TURNS: usize = 8_192;

/// Shards of the target turns of a [`TurnCache`]: enough that two threads rarely wait for
/// each other.
const TARGET_SHARDS: usize = 64;

impl<'a> TurnCache<'a> {
    /// An empty cache for the states of `table`.
    pub fn new(table: &StrategyTable) -> TurnCache<'a> {
        let layout = *table.layout();
        TurnCache {
            layout,
            slots: (0..layout.len()).map(|_| OnceLock::new()).collect(),
            room: AtomicUsize::new(CACHED_TURNS),
            targets: (0..TARGET_SHARDS).map(|_| Mutex::default()).collect(),
            target_room: AtomicUsize::new(CACHED_TARGET_TURNS),
        }
    }

    /// The turn of `state`, from the cache or computed (and kept while there is room).
    pub fn turn(&self, table: &StrategyTable, state: &State) -> Arc<TurnValues> {
        let slot = &self.slots[self.layout.index(state)];
        if let Some(t) = slot.get() {
            return Arc::clone(t);
        }
        let turn = Arc::new(TurnValues::new(table, state));
        if take_room(&self.room) {
            // Another thread may have set it first: the values are the same either way.
            let _ = slot.set(Arc::clone(&turn));
        }
        turn
    }

    /// The target turn of `state` with `needed` points still needed for `player`, from the
    /// cache or computed (and kept while there is room).
    pub fn target_turn(
        &self,
        player: &TargetPlayer<'a>,
        state: &State,
        needed: i64,
    ) -> Arc<TargetTurn<'a>> {
        let index = self.layout.index(state);
        let shard = &self.targets[index % TARGET_SHARDS];
        let key = (index, needed);
        if let Some(t) = lock(shard).get(&key) {
            return Arc::clone(t);
        }
        // Computed outside the lock: another thread may compute the same turn meanwhile,
        // which only costs the time.
        let turn = Arc::new(player.turn_for(state, needed));
        if take_room(&self.target_room) {
            lock(shard).insert(key, Arc::clone(&turn));
        }
        turn
    }
}

/// Takes one unit of `room`; false when none is left.
fn take_room(room: &AtomicUsize) -> bool {
    room.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| r.checked_sub(1))
        .is_ok()
}

/// The map of a shard. A thread that panicked while holding it left a map that is still
/// whole (an insert of a computed turn), so the poison is ignored.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

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
/// two keeps and re-rolls, then the box. The one turn of every simulated game.
pub fn play_turn(rules: &Rules, turn: &PolicyTurn<'_>, state: &State, rng: &mut DiceRng) -> Played {
    let mut dice = rng.throw(&Keep::from_faces(&[]).expect("the empty keep"));
    let mut decisions = 1;
    for rolls_left in [2u8, 1] {
        let keep = turn.keep(rolls_left, &dice);
        decisions += 1;
        if keep.len() == DICE {
            break;
        }
        dice = rng.throw(&keep);
    }
    let (index, points, bonuses) = turn.choose_box(rules, state, &dice);
    Played {
        index,
        points,
        bonuses,
        decisions,
    }
}

/// Plays one game, adds it to `tally` (one count per game) and returns its final score.
pub fn play<'a>(
    rules: &Rules,
    player: &Player<'a>,
    cache: Option<&TurnCache<'a>>,
    rng: &mut DiceRng,
    tally: &mut Tally,
) -> u32 {
    let mut state = State::START;
    let mut score = 0u32;
    let mut yahtzee_bonuses = 0usize;
    let mut upper_bonus = false;
    for _ in 0..rules.box_count() {
        let turn = player.turn(&state, score, cache);
        let Played {
            index,
            points,
            bonuses,
            ..
        } = play_turn(rules, &turn, &state, rng);
        tally.add_box(index, points, 1.0);
        yahtzee_bonuses += usize::from(bonuses.yahtzee);
        upper_bonus |= bonuses.upper;
        score += points + bonuses.points(rules);
        state = state.after(rules, index, points);
    }
    tally.add_score(score, 1.0);
    if upper_bonus {
        tally.upper_bonus += 1.0;
    }
    tally.add_yahtzee_bonuses(yahtzee_bonuses, 1.0);
    score
}

/// Plays `games` games with `seed` and tallies them (counts of games). `progress(done)` is
/// called with the number of games finished after each chunk. Runs on the current rayon
/// thread pool; the tally is the same at any thread count.
pub fn simulate<'a>(
    rules: &Rules,
    player: &Player<'a>,
    games: u64,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Tally {
    simulate_games(rules, player, games, seed, false, progress).0
}

/// Plays like [`simulate`] and also returns the final score of every game, in the order the
/// games are dealt (chunk by chunk): 4 bytes a game.
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
    let chunks = games.div_ceil(CHUNK);
    let done = AtomicU64::new(0);
    let cache = player.table().map(TurnCache::new);
    let tallies: Vec<(Tally, Vec<u32>)> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut rng = DiceRng::with_stream(seed, c);
            let n = CHUNK.min(games - c * CHUNK);
            let mut tally = Tally::new(rules);
            let mut scores = Vec::new();
            for _ in 0..n {
                let score = play(rules, player, cache.as_ref(), &mut rng, &mut tally);
                if keep_scores {
                    scores.push(score);
                }
            }
            progress(done.fetch_add(n, Ordering::Relaxed) + n);
            (tally, scores)
        })
        .collect();
    let mut total = Tally::new(rules);
    let mut scores = Vec::new();
    for (t, s) in &tallies {
        total.merge(t);
        scores.extend_from_slice(s);
    }
    (total, scores)
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
        let reached: f64 = tally.score.iter().skip(target as usize).sum();
        ShareInterval::wilson(reached, tally.total())
    }

    /// The share `successes / n` with its Wilson score interval at 95% (see
    /// [`ShareInterval::of`]). A success may count a fraction (a shared win): the interval
    /// then errs on the wide side, a fraction varying less than a whole success or failure.
    pub fn wilson(successes: f64, n: f64) -> ShareInterval {
        if n == 0.0 {
            return ShareInterval {
                share: 0.0,
                low: 0.0,
                high: 1.0,
            };
        }
        let share = successes / n;
        let z2 = 1.96f64 * 1.96;
        let centre = (share + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = 1.96 * (share * (1.0 - share) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
        ShareInterval {
            share,
            low: (centre - half).max(0.0),
            high: (centre + half).min(1.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::RuleSet;

    #[test]
    fn seed_42_plays_these_games() {
        // Pinned with today's dice (see `dice::tests::seed_42_rolls_these_dice`): the first
        // game comes from stream 0 of the seed, game 1,025 (the first of chunk 1) from stream
        // 1. A change of generator, of the streams or of the order dice are drawn in a game
        // changes these scores.
        let rules = Rules::new(RuleSet::YAHTZEE);
        let scores = |player: Player<'_>, games: u64| {
            let tally = simulate(&rules, &player, games, 42, &|_| {});
            (tally.score.clone(), tally.total())
        };
        for (player, first, of_chunk_1) in
            [(Player::Greedy, 89, 93), (Player::MostCommon, 122, 187)]
        {
            let (one, _) = scores(player, 1);
            assert_eq!(one[first], 1.0, "{:?}", player.policy());
            assert_eq!(one.iter().sum::<f64>(), 1.0);
            let (a, _) = scores(player, 1024);
            let (b, n) = scores(player, 1025);
            assert_eq!(n, 1025.0);
            let new: Vec<usize> = (0..b.len())
                .filter(|&s| b[s] != a.get(s).copied().unwrap_or(0.0))
                .collect();
            assert_eq!(new, [of_chunk_1], "{:?}", player.policy());
        }
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

    /// The scores of `simulate_scores` are the games of `simulate`, in the order dealt: the
    /// first game and the first of chunk 1 are the pinned games of seed 42 above, the counts
    /// are the tally's, and a thread count changes nothing.
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
        assert_eq!((scores[0], scores[1024]), (89, 93));
        for (s, &count) in tally.score.iter().enumerate() {
            let n = scores.iter().filter(|&&x| x as usize == s).count();
            assert_eq!(n as f64, count, "score {s}");
        }
        assert_eq!(tally, simulate(&rules, &Player::Greedy, 3_000, 42, &|_| {}));
        assert_eq!(run(3).1, scores);
    }

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
