//! The tie conventions of `shared/RULES.md`, rules of the game as much as the scoring: two
//! options whose values are within [`TIE`] of each other are equal, and among equal options
//! the one first in the order of preference is chosen (keeps: the fewest dice, then the
//! lowest faces; boxes: the first on the card).
//!
//! Every choice of every policy goes through the one scan here ([`Preferred`],
//! [`best_by_preference`]): the advice, the exports' runner-up ([`best_two`]), the bots, the
//! statistics, and the solves that follow the expected-score policy.

/// Two values closer than this are a tie, broken by the convention of `shared/RULES.md`.
pub const TIE: f64 = 1e-9;

/// The value of an option for the tie rule: a number (an expected score, a probability), or
/// a pair compared on its first number and, within [`TIE`], on its second (the target
/// objective: the chance of reaching the target, then the expected score).
pub trait TieValue: Copy {
    /// True when `self` is better than `best` by more than [`TIE`].
    fn beats(&self, best: &Self) -> bool;

    /// The value as one number, when it is one (not a pair, not NaN): what
    /// [`rank_by_preference`] sorts when no two options are near ties.
    fn number(&self) -> Option<f64> {
        None
    }
}

impl TieValue for f64 {
    #[inline]
    fn beats(&self, best: &f64) -> bool {
        *self > best + TIE
    }

    #[inline]
    fn number(&self) -> Option<f64> {
        (!self.is_nan()).then_some(*self)
    }
}

impl TieValue for (f64, f64) {
    #[inline]
    fn beats(&self, best: &(f64, f64)) -> bool {
        self.0 > best.0 + TIE || (self.0 >= best.0 - TIE && self.1 > best.1 + TIE)
    }
}

/// The tie rule of the whole project, for options listed in the order of preference of
/// `shared/RULES.md` (keeps: fewest dice first, then the lowest faces; boxes: card order):
/// scanning in that order, a later option replaces the best so far only when it is better by
/// more than [`TIE`]. Returns the position of the best option of `values`, leaving out the
/// positions for which `skip` is true; `None` when none is left.
pub fn best_by_preference<V: TieValue>(
    values: impl IntoIterator<Item = V>,
    skip: impl Fn(usize) -> bool,
) -> Option<usize> {
    let mut best = Preferred::new();
    for (i, v) in values.into_iter().enumerate() {
        if !skip(i) {
            best.offer(i, v);
        }
    }
    best.best().map(|(i, _)| i)
}

/// The scan of the tie rule ([`best_by_preference`]): options are offered in the order of
/// preference, and a later one replaces the best so far only when better by more than
/// [`TIE`]. Every choice of the optimal policy goes through it.
#[derive(Clone, Copy, Debug)]
pub struct Preferred<T, V = f64> {
    best: Option<(T, V)>,
}

impl<T, V: TieValue> Preferred<T, V> {
    /// No option yet.
    pub fn new() -> Preferred<T, V> {
        Preferred { best: None }
    }

    /// Offers the next option in the order of preference.
    #[inline]
    pub fn offer(&mut self, option: T, value: V) {
        if self.best.as_ref().is_none_or(|(_, b)| value.beats(b)) {
            self.best = Some((option, value));
        }
    }

    /// The best option offered and its value.
    pub fn best(self) -> Option<(T, V)> {
        self.best
    }
}

impl<T, V: TieValue> Default for Preferred<T, V> {
    fn default() -> Preferred<T, V> {
        Preferred::new()
    }
}

/// The scan of [`Preferred`] in `N` lanes at once (one option list, a value per lane): each
/// lane chooses exactly as a [`Preferred`] offered its own values would, by the same
/// comparisons, written without branches so that the compiler makes vector code of them.
#[derive(Clone, Copy, Debug)]
pub struct PreferredLanes<const N: usize> {
    /// Each lane's best value plus [`TIE`]: what a later option must exceed.
    bar: [f64; N],
    /// Each lane's best option so far (`u64` lanes, as wide as the values' comparison masks).
    best: [u64; N],
}

impl<const N: usize> PreferredLanes<N> {
    /// No option yet.
    #[inline(always)]
    pub fn new() -> PreferredLanes<N> {
        PreferredLanes {
            bar: [f64::NEG_INFINITY; N],
            best: [u64::MAX; N],
        }
    }

    /// Offers the next option in the order of preference, with its value in each lane.
    #[inline(always)]
    pub fn offer(&mut self, option: u16, values: &[f64; N]) {
        for ((bar, best), &v) in self.bar.iter_mut().zip(&mut self.best).zip(values) {
            let beats = v > *bar;
            *bar = if beats { v + TIE } else { *bar };
            *best = if beats { u64::from(option) } else { *best };
        }
    }

    /// The best option of each lane (`u16::MAX` for a lane offered nothing but NaN).
    #[inline(always)]
    pub fn best(&self) -> [u16; N] {
        self.best.map(|b| b.min(u64::from(u16::MAX)) as u16)
    }
}

impl<const N: usize> Default for PreferredLanes<N> {
    fn default() -> PreferredLanes<N> {
        PreferredLanes::new()
    }
}

/// The best option and the runner-up (the best of the others) of `values`, listed in the
/// order of preference, under [`best_by_preference`].
pub fn best_two<V: TieValue>(values: &[V]) -> (Option<usize>, Option<usize>) {
    let best = best_by_preference(values.iter().copied(), |_| false);
    let second = best.and_then(|b| best_by_preference(values.iter().copied(), |i| i == b));
    (best, second)
}

/// Every option ranked, best first: the best by [`best_by_preference`], then the best of the
/// rest, and so on. The first two are those of [`best_two`], so the advice, the exports'
/// runner-up, the bots and the statistics follow one tie rule.
pub fn rank_by_preference<V: TieValue>(values: &[V]) -> Vec<usize> {
    if let Some(order) = rank_apart(values) {
        return order;
    }
    // The options not yet ranked, still in the order of preference: each round scans them
    // alone (the scan of `best_by_preference` skipping the ranked ones, without visiting them).
    let mut left: Vec<(usize, V)> = values.iter().copied().enumerate().collect();
    let mut order = Vec::with_capacity(values.len());
    while !left.is_empty() {
        let mut best = Preferred::new();
        for (at, &(_, v)) in left.iter().enumerate() {
            best.offer(at, v);
        }
        let Some((at, _)) = best.best() else { break };
        order.push(left.remove(at).0);
    }
    order
}

/// [`rank_by_preference`] of numbers no two of which are near ties: a stable sort, best
/// first; `None` when two neighbours of the sorted order differ but by no more than [`TIE`]
/// (or a value is no number). When each value beats the next or equals it, the best of any
/// rest is its first in the sorted order: it beats every later one (beating is transitive for
/// numbers: `a > fl(b + TIE)` and `b > c` give `a > fl(c + TIE)`), none beats it (a lower
/// `c` is below `fl(a + TIE)`), and an equal one listed earlier would be sorted before it;
/// so the scan of the rest chooses it, round after round.
fn rank_apart<V: TieValue>(values: &[V]) -> Option<Vec<usize>> {
    let numbers = values
        .iter()
        .map(TieValue::number)
        .collect::<Option<Vec<f64>>>()?;
    let mut order: Vec<usize> = (0..numbers.len()).collect();
    order.sort_by(|&a, &b| {
        numbers[b]
            .partial_cmp(&numbers[a])
            .expect("no NaN among numbers")
    });
    order
        .windows(2)
        .all(|w| {
            let (a, b) = (numbers[w[0]], numbers[w[1]]);
            a == b || a.beats(&b)
        })
        .then_some(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranking_follows_the_one_tie_rule() {
        // In order of preference: a near tie (within 1e-9) keeps the preferred option first;
        // a real difference does not.
        let values = [1.0, 2.0 - 1e-12, 2.0, 0.5, 2.0 + 1e-6];
        assert_eq!(rank_by_preference(&values), vec![4, 1, 2, 0, 3]);
        assert_eq!(best_two(&values), (Some(4), Some(1)));
        assert_eq!(best_two(&[3.0]), (Some(0), None));
        assert_eq!(best_two::<f64>(&[]), (None, None));
        assert_eq!(best_by_preference([1.0, 1.0], |_| false), Some(0));
        assert_eq!(best_by_preference([1.0, 1.0], |i| i == 0), Some(1));
    }

    /// The ranking is the scan of [`best_by_preference`] repeated over the options not yet
    /// ranked, chains of near ties included.
    #[test]
    fn the_ranking_is_the_repeated_scan() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for round in 0..2_000 {
            let values: Vec<f64> = (0..round % 40)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    // Near ties, chains of them, and (one round in four) values apart or equal.
                    let step = [0.4e-9, 0.4e-9, 0.4e-9, 0.25][round % 4];
                    100.0 + (seed % [3, 7, 1000][round % 3]) as f64 * step
                })
                .collect();
            let mut taken = vec![false; values.len()];
            let mut repeated = Vec::new();
            while let Some(i) = best_by_preference(values.iter().copied(), |i| taken[i]) {
                taken[i] = true;
                repeated.push(i);
            }
            assert_eq!(rank_by_preference(&values), repeated, "round {round}");
        }
    }

    /// Each lane of the lane scan chooses what the scan of its own values chooses, chains of
    /// near ties included.
    #[test]
    fn the_lane_scan_is_the_scan_of_each_lane() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for round in 0..2_000 {
            let options = 1 + round % 33;
            let lanes: Vec<[f64; 4]> = (0..options)
                .map(|_| {
                    std::array::from_fn(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        100.0 + (seed % [3, 7, 1000][round % 3]) as f64 * 0.4e-9
                    })
                })
                .collect();
            let mut scan = PreferredLanes::<4>::new();
            for (i, v) in lanes.iter().enumerate() {
                scan.offer(i as u16, v);
            }
            for l in 0..4 {
                let alone = best_by_preference(lanes.iter().map(|v| v[l]), |_| false);
                assert_eq!(Some(usize::from(scan.best()[l])), alone, "round {round}");
            }
        }
    }
}
