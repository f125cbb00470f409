//! Games played with random dice through the rules engine, under the optimal policy or a
//! simple baseline, tallied like the exact distribution ([`crate::stats::distribution::Tally`]).
//!
//! Reproducibility: games are dealt in chunks of [`CHUNK`]; chunk `c` draws its dice from
//! ChaCha8 seeded with the user's seed on stream `c` (a portable generator, the same on every
//! platform). Chunks run in parallel but each is played by the same sequential code and the
//! tallies are integer counts merged in chunk order, so a seed gives the same games and the
//! same report at any thread count.
//!
//! The games are played by a [`Player`] ([`crate::policy::player`]: the one home of how each
//! policy plays), turn by turn ([`play_turn`]). The policies that play to beat other players
//! (`win`, `win-exact`, `two-player`) need the other players' cards: they play in matches
//! ([`crate::stats::matches`]), through the same [`PolicyTurn`].

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use serde::Serialize;

use crate::game::dice::{DICE, DiceRng, Keep};
use crate::game::rules::Rules;
use crate::game::state::{Bonuses, State};
use crate::policy::cache::TurnCache;
use crate::policy::player::{Player, PolicyTurn};
use crate::stats::distribution::Tally;

/// Games per chunk: one random stream each. Small enough to spread over the threads and to
/// move the progress bar, large enough that a chunk's bookkeeping is negligible.
pub const CHUNK: u64 = 1024;

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
        let reached = tally.mass_at_least(target);
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
}
