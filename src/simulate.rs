//! Games played with random dice through the rules engine, under the optimal policy or a
//! simple baseline, tallied like the exact distribution ([`crate::distribution::Tally`]).
//!
//! Reproducibility: games are dealt in chunks of [`CHUNK`]; chunk `c` draws its dice from
//! ChaCha8 seeded with the user's seed on stream `c` (a portable generator, the same on every
//! platform). Chunks run in parallel but each is played by the same sequential code and the
//! tallies are integer counts merged in chunk order, so a seed gives the same games and the
//! same report at any thread count.
//!
//! The optimal policy is the library's ([`TurnValues::best_keep`], [`best_box_for`]) with its
//! tie convention (fewest dice kept, then the first box on the card).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;
use serde::Serialize;

use crate::advice::{TurnValues, best_box_for};
use crate::dice::{DICE, Dice, DiceRng, FACES, Keep};
use crate::distribution::Tally;
use crate::rules::Rules;
use crate::state::{Bonuses, Layout, State};
use crate::table::StrategyTable;

/// Games per chunk: one random stream each. Small enough to spread over the threads and to
/// move the progress bar, large enough that a chunk's bookkeeping is negligible.
pub const CHUNK: u64 = 1024;

/// How the simulated player plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
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
}

impl Policy {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Optimal => "optimal",
            Policy::Greedy => "greedy",
            Policy::MostCommon => "most-common",
        }
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
}

impl Player<'_> {
    /// The policy played.
    pub fn policy(&self) -> Policy {
        match self {
            Player::Optimal(_) => Policy::Optimal,
            Player::Greedy => Policy::Greedy,
            Player::MostCommon => Policy::MostCommon,
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

/// The turns of the states met so far, shared by the threads: a state's turn is computed
/// once and reused while the cache has room. It changes nothing in the games (a turn is a
/// pure function of the state); it saves recomputing the frequent states (the first turns,
/// whose states are few, and the last, whose states are few again).
pub struct TurnCache {
    layout: Layout,
    slots: Vec<OnceLock<Arc<TurnValues>>>,
    room: AtomicUsize,
}

/// States a [`TurnCache`] keeps at most: each turn is ~9.4 KB (1,176 values), so this bounds
/// the cache near 300 MB, enough for every frequent state.
pub const CACHED_TURNS: usize = 32_768;

impl TurnCache {
    /// An empty cache for the states of `table`.
    pub fn new(table: &StrategyTable) -> TurnCache {
        let layout = *table.layout();
        TurnCache {
            layout,
            slots: (0..layout.len()).map(|_| OnceLock::new()).collect(),
            room: AtomicUsize::new(CACHED_TURNS),
        }
    }

    /// The turn of `state`, from the cache or computed (and kept while there is room).
    pub fn turn(&self, table: &StrategyTable, state: &State) -> Arc<TurnValues> {
        let slot = &self.slots[self.layout.index(state)];
        if let Some(t) = slot.get() {
            return Arc::clone(t);
        }
        let turn = Arc::new(TurnValues::new(table, state));
        let has_room = self
            .room
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| r.checked_sub(1))
            .is_ok();
        if has_room {
            // Another thread may have set it first: the values are the same either way.
            let _ = slot.set(Arc::clone(&turn));
        }
        turn
    }
}

/// Plays one game, adds it to `tally` (one count per game) and returns its final score.
pub fn play(
    rules: &Rules,
    player: &Player<'_>,
    cache: Option<&TurnCache>,
    rng: &mut DiceRng,
    tally: &mut Tally,
) -> u32 {
    let mut state = State::START;
    let mut score = 0u32;
    let mut yahtzee_bonuses = 0usize;
    let mut upper_bonus = false;
    for _ in 0..rules.box_count() {
        let turn = match (player, cache) {
            (Player::Optimal(table), Some(cache)) => Some(cache.turn(table, &state)),
            (Player::Optimal(table), None) => Some(Arc::new(TurnValues::new(table, &state))),
            _ => None,
        };
        let mut dice = rng.throw(&Keep::from_faces(&[]).expect("the empty keep"));
        for rolls_left in [2u8, 1] {
            let keep = match (player, &turn) {
                (Player::Optimal(_), Some(turn)) => turn.best_keep(rolls_left, &dice).0,
                (Player::MostCommon, _) => most_common_keep(&dice),
                _ => break,
            };
            if keep.len() == DICE {
                break;
            }
            dice = rng.throw(&keep);
        }
        let (index, points, bonuses) = match player {
            Player::Optimal(table) => {
                let c = best_box_for(table, &state, &dice).expect("a legal box");
                (c.index, c.points, c.bonuses)
            }
            _ => greedy_box(rules, &state, &dice),
        };
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
pub fn simulate(
    rules: &Rules,
    player: &Player<'_>,
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
    let cache = match player {
        Player::Optimal(table) => Some(TurnCache::new(table)),
        _ => None,
    };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleSet;

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
