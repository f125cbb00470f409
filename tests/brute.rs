//! An independent, deliberately naive solver for games with few open boxes, for the checks of
//! every objective: keeps are enumerated as the 32 subsets of dice positions (64 with six
//! dice), and re-roll outcomes by enumerating every ordered sequence of faces, with no
//! lattice, no lanes and no shared code beyond the rules' scoring. The subsets that keep the
//! same dice (of one hand or of several) keep one list of outcomes, whose value is summed once
//! a roll: the same sums, in the same order, as summed subset by subset, at a fraction of the
//! time (a tenth of the test command's was these sums, `results/test-time-2026-12-06.md`).

use std::collections::HashMap;

use yahtzee_core::game::rules::Rules;
use yahtzee_core::game::state::State;

pub struct BruteForce {
    pub rules: Rules,
    /// The number of dice: five or six.
    dice: usize,
    /// The 252 sorted hands of five dice (462 of six), and the number of ordered throws
    /// giving each.
    hands: Vec<(Vec<u8>, u32)>,
    /// The outcomes of each distinct keep (the sorted dice kept): (probability, resulting
    /// hand) for keeping those dice and throwing the others, from every ordered throw.
    keeps: Vec<Vec<(f64, usize)>>,
    /// `keep_of[hand][subset]`: the keep (an index of `keeps`) of the dice at the positions of
    /// `subset` of the hand.
    keep_of: Vec<Vec<usize>>,
    /// The distinct keeps of each hand in the order of preference
    /// ([`BruteForce::keeps_in_order`]).
    in_order: Vec<Vec<KeepInOrder>>,
    /// Expected remaining score of the states computed so far.
    values: HashMap<State, f64>,
    /// Best chance of scoring at least `t` more of the (state, t) computed so far.
    targets: HashMap<(State, i64), f64>,
    /// The distribution of the remaining score under expected-score play, of the states
    /// computed so far: `[p]` is the chance of exactly `p` more points.
    distributions: HashMap<State, Vec<f64>>,
    /// Expected remaining score under saved rolls of the (state, rolls saved) computed so far.
    saved: HashMap<(State, usize), f64>,
    /// [`BruteForce::saved_policy_distribution`] of the (state, rolls saved) computed so far.
    saved_distributions: HashMap<(State, usize), Vec<f64>>,
    /// [`BruteForce::certainty`] of the (state, θ's bits) computed so far.
    certainties: HashMap<(State, u64), f64>,
    /// [`BruteForce::policy_rest`] of the states computed so far.
    rests: HashMap<State, Rest>,
    /// [`BruteForce::policy_joint`] of the (state, boxes) computed so far.
    joints: HashMap<(State, [usize; 2]), Joint>,
}

/// The tie rule of `shared/RULES.md`, written again here: scanning options in the order of
/// preference, a later one replaces the best so far only when better by more than 1e-9.
fn preferred(values: impl IntoIterator<Item = f64>) -> usize {
    let mut best = (0, f64::NEG_INFINITY);
    for (i, v) in values.into_iter().enumerate() {
        if v > best.1 + 1e-9 {
            best = (i, v);
        }
    }
    best.0
}

/// `a += w * b`, growing `a` as needed.
fn add_scaled(a: &mut Vec<f64>, w: f64, b: &[f64]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0.0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x += w * y;
    }
}

/// Every ordered throw of `n` dice, grouped by sorted outcome, with its count.
pub fn throws(n: u32) -> Vec<(Vec<u8>, u32)> {
    let mut counts: HashMap<Vec<u8>, u32> = HashMap::new();
    for code in 0..6u32.pow(n) {
        let mut c = code;
        let mut faces: Vec<u8> = (0..n)
            .map(|_| {
                let f = (c % 6) as u8 + 1;
                c /= 6;
                f
            })
            .collect();
        faces.sort_unstable();
        *counts.entry(faces).or_default() += 1;
    }
    let mut v: Vec<_> = counts.into_iter().collect();
    v.sort();
    v
}

/// A chance node's outcomes, handed one by one as (probability, value) to the visitor.
type Pairs<'a> = dyn Fn(&mut dyn FnMut(f64, f64)) + 'a;

/// One way a turn can end: box, points, bonus, and the state after it.
type Ending = (usize, u32, u32, State);

impl BruteForce {
    pub fn new(rules: Rules) -> BruteForce {
        let n = rules.dice().dice();
        let hands = throws(n as u32);
        let index: HashMap<Vec<u8>, usize> = hands
            .iter()
            .enumerate()
            .map(|(i, (h, _))| (h.clone(), i))
            .collect();
        let by_n: Vec<_> = (0..=n as u32).map(throws).collect();
        let mut keeps: Vec<Vec<(f64, usize)>> = Vec::new();
        let mut keep_index: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut keep_of: Vec<Vec<usize>> = Vec::new();
        for (hand, _) in &hands {
            let mut subsets = Vec::new();
            for subset in 0..1u32 << n {
                // The hand is sorted: so are the dice kept, in the order of their positions.
                let kept: Vec<u8> = (0..n)
                    .filter(|i| subset & (1 << i) != 0)
                    .map(|i| hand[i])
                    .collect();
                let k = *keep_index.entry(kept.clone()).or_insert_with(|| {
                    let thrown = n - kept.len();
                    let total = 6f64.powi(thrown as i32);
                    keeps.push(
                        by_n[thrown]
                            .iter()
                            .map(|(out, count)| {
                                let mut h: Vec<u8> = kept.iter().chain(out).copied().collect();
                                h.sort_unstable();
                                (f64::from(*count) / total, index[&h])
                            })
                            .collect(),
                    );
                    keeps.len() - 1
                });
                subsets.push(k);
            }
            keep_of.push(subsets);
        }
        let in_order = hands
            .iter()
            .map(|(hand, _)| Self::keeps_in_order(hand))
            .collect();
        BruteForce {
            rules,
            dice: n,
            hands,
            keeps,
            keep_of,
            in_order,
            values: HashMap::new(),
            targets: HashMap::new(),
            distributions: HashMap::new(),
            saved: HashMap::new(),
            saved_distributions: HashMap::new(),
            certainties: HashMap::new(),
            rests: HashMap::new(),
            joints: HashMap::new(),
        }
    }

    /// The certainty equivalent of the points still to come from `state` under the policy
    /// that maximises the exponential utility of `theta` (`(1/θ) ln E[e^(θX)]`), by the
    /// Bellman equation written in the certainty equivalents themselves: a box is worth its
    /// points, its bonus and the next state's value, a decision the greatest value, and a
    /// chance node the log-sum-exp `(1/θ) ln Σ p e^(θ v)` of its outcomes (taken about its
    /// largest term). Nothing of the solver's utilities or shifts.
    pub fn certainty(&mut self, state: State, theta: f64) -> f64 {
        if state.filled == self.rules.full_mask() {
            return 0.0;
        }
        if let Some(&v) = self.certainties.get(&(state, theta.to_bits())) {
            return v;
        }
        // (1/θ) ln Σ p e^(θ v) of the pairs (p, v), about the largest θ v.
        let lse = |pairs: &Pairs<'_>| {
            let mut top = f64::NEG_INFINITY;
            pairs(&mut |_, v| top = top.max(theta * v));
            let mut sum = 0.0;
            pairs(&mut |p, v| sum += p * (theta * v - top).exp());
            (top + sum.ln()) / theta
        };
        let endings = self.endings(&state);
        let mut by_hand: Vec<f64> = endings
            .iter()
            .map(|ends| {
                ends.iter()
                    .map(|&(_, p, b, next)| f64::from(p + b) + self.certainty(next, theta))
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .collect();
        for _ in 1..self.rules.rolls() {
            let keep_values: Vec<f64> = (self.keeps.iter())
                .map(|outcomes| {
                    lse(&|f| {
                        for &(p, h) in outcomes {
                            f(p, by_hand[h]);
                        }
                    })
                })
                .collect();
            by_hand = self.best_keeps(&keep_values);
        }
        let throws = 6f64.powi(self.dice as i32);
        let v = lse(&|f| {
            for ((_, count), &v) in self.hands.iter().zip(&by_hand) {
                f(f64::from(*count) / throws, v);
            }
        });
        self.certainties.insert((state, theta.to_bits()), v);
        v
    }

    /// The legal ways of ending the turn with each hand.
    fn endings(&self, state: &State) -> Vec<Vec<Ending>> {
        self.hands
            .iter()
            .map(|(faces, _)| {
                let dice = self.rules.dice().dice_of(faces).unwrap();
                let legal = self.rules.legal_boxes(state.filled, &dice);
                (0..self.rules.box_count())
                    .filter(|i| legal & (1 << i) != 0)
                    .map(|i| {
                        let points = self.rules.score(i, &dice, state.filled);
                        let bonus = state.bonus_for(
                            &self.rules,
                            i,
                            points,
                            dice.five_of_a_kind().is_some(),
                        );
                        (i, points, bonus, state.after(&self.rules, i, points))
                    })
                    .collect()
            })
            .collect()
    }

    /// The value of a turn whose hands with no roll left are worth `last`: the best of the
    /// 32 (or 64) ways to keep dice with one, then two rolls left (up to the rules' rolls a
    /// turn less one), then the mean over the opening hands.
    fn turn(&self, mut by_hand: Vec<f64>) -> f64 {
        for _ in 1..self.rules.rolls() {
            by_hand = self.best_keeps(&self.keep_values(&by_hand));
        }
        self.hands
            .iter()
            .zip(&by_hand)
            .map(|((_, count), v)| f64::from(*count) / 6f64.powi(self.dice as i32) * v)
            .sum()
    }

    /// The value of each keep (as `keeps` lists them) when the hands then seen are worth
    /// `by_hand`.
    fn keep_values(&self, by_hand: &[f64]) -> Vec<f64> {
        (self.keeps.iter())
            .map(|outcomes| outcomes.iter().map(|&(p, h)| p * by_hand[h]).sum::<f64>())
            .collect()
    }

    /// The value of each hand's best keep, over the keeps of all its subsets, when the keeps
    /// are worth `keep_values`.
    fn best_keeps(&self, keep_values: &[f64]) -> Vec<f64> {
        (self.keep_of.iter())
            .map(|subsets| {
                (subsets.iter())
                    .map(|&k| keep_values[k])
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .collect()
    }

    /// The outcomes of keeping the dice at the positions of `subset` of the hand `hand`.
    fn outcomes(&self, hand: usize, subset: u32) -> &[(f64, usize)] {
        &self.keeps[self.keep_of[hand][subset as usize]]
    }

    /// The expected-score policy's keep of each hand with a roll left, the hands with one
    /// roll fewer being worth `values`: the keep's value and the subset of dice it keeps,
    /// ties broken by the documented rule over the distinct keeps in order of preference.
    fn chosen_keeps(&self, values: &[f64]) -> Vec<(f64, u32)> {
        let keep_values = self.keep_values(values);
        (self.in_order.iter().enumerate())
            .map(|(hand, keeps)| {
                let evs: Vec<f64> = keeps
                    .iter()
                    .map(|k| keep_values[self.keep_of[hand][k.2 as usize]])
                    .collect();
                let chosen = preferred(evs.iter().copied());
                (evs[chosen], keeps[chosen].2)
            })
            .collect()
    }

    /// The expected remaining score of `state` under optimal play.
    pub fn value(&mut self, state: State) -> f64 {
        if state.filled == self.rules.full_mask() {
            return 0.0;
        }
        if let Some(&v) = self.values.get(&state) {
            return v;
        }
        let endings = self.endings(&state);
        let by_hand: Vec<f64> = endings
            .iter()
            .map(|ends| {
                ends.iter()
                    .map(|&(_, p, b, next)| f64::from(p + b) + self.value(next))
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .collect();
        let v = self.turn(by_hand);
        self.values.insert(state, v);
        v
    }

    /// The expected remaining score of `state` with `saved` rolls saved under the rule of
    /// saved rolls, written from `shared/RULES.md` section 8 alone: the turn has the rules'
    /// re-rolls plus `saved`; a box filled with `r` re-rolls left leads to the next turn
    /// with `r` saved; with re-rolls left a hand may be scored now or any dice kept.
    pub fn saved_value(&mut self, state: State, saved: usize) -> f64 {
        if state.filled == self.rules.full_mask() {
            return 0.0;
        }
        if let Some(&v) = self.saved.get(&(state, saved)) {
            return v;
        }
        let rerolls = usize::from(self.rules.rolls()) - 1 + saved;
        let by_hand = self.saved_layers(state, rerolls).pop().expect("a layer");
        let throws = 6f64.powi(self.dice as i32);
        let v = self
            .hands
            .iter()
            .zip(&by_hand)
            .map(|((_, count), v)| f64::from(*count) / throws * v)
            .sum();
        self.saved.insert((state, saved), v);
        v
    }

    /// Under saved rolls, the value of each hand (as [`BruteForce::hand`] indexes them) of a
    /// turn of `state` with `r` re-rolls left, for `r` from 0 to `rerolls`: the best of
    /// filling a box now (the next turn with `r` saved) and of keeping dice and rolling again.
    pub fn saved_layers(&mut self, state: State, rerolls: usize) -> Vec<Vec<f64>> {
        let endings = self.endings(&state);
        let mut layers: Vec<Vec<f64>> = Vec::new();
        let mut by_hand: Vec<f64> = Vec::new();
        for r in 0..=rerolls {
            // Filling a box now, with `r` re-rolls left: the next turn has `r` saved.
            let mut now = Vec::with_capacity(endings.len());
            for ends in &endings {
                let mut best = f64::NEG_INFINITY;
                for &(_, p, b, next) in ends {
                    best = best.max(f64::from(p + b) + self.saved_value(next, r));
                }
                now.push(best);
            }
            if r > 0 {
                // Or keeping dice and rolling again, the hands with one re-roll fewer.
                let keep_values = self.keep_values(&by_hand);
                for (h, subsets) in self.keep_of.iter().enumerate() {
                    for &k in subsets {
                        now[h] = now[h].max(keep_values[k]);
                    }
                }
            }
            by_hand = now.clone();
            layers.push(now);
        }
        layers
    }

    /// The index of the sorted hand `faces`.
    pub fn hand(&self, faces: &[u8]) -> usize {
        self.hands
            .iter()
            .position(|(h, _)| h == faces)
            .expect("a hand of the game's dice")
    }

    /// The value of keeping the dice `kept` (sorted faces, a sub-multiset of the hand) and
    /// throwing the others, by the values `after` of the hands then seen.
    pub fn keep_value(&self, kept: &[u8], after: &[f64]) -> f64 {
        let thrown = self.dice - kept.len();
        let total = 6f64.powi(thrown as i32);
        throws(thrown as u32)
            .iter()
            .map(|(out, count)| {
                let mut h: Vec<u8> = kept.iter().chain(out).copied().collect();
                h.sort_unstable();
                f64::from(*count) / total * after[self.hand(&h)]
            })
            .sum()
    }

    /// The best chance, over every strategy, of scoring at least `t` more points from
    /// `state`.
    pub fn target(&mut self, state: State, t: i64) -> f64 {
        if t <= 0 {
            return 1.0;
        }
        if state.filled == self.rules.full_mask() {
            return 0.0;
        }
        if let Some(&v) = self.targets.get(&(state, t)) {
            return v;
        }
        let endings = self.endings(&state);
        let by_hand: Vec<f64> = endings
            .iter()
            .map(|ends| {
                ends.iter()
                    .map(|&(_, p, b, next)| self.target(next, t - i64::from(p + b)))
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .collect();
        let v = self.turn(by_hand);
        self.targets.insert((state, t), v);
        v
    }

    /// The distribution of the points scored from `state` on when every choice is the
    /// expected-score policy's, ties broken by the documented rule (keeps: fewest dice, then
    /// lowest faces; boxes: card order): `[p]` is the chance of exactly `p` more points.
    pub fn policy_distribution(&mut self, state: State) -> Vec<f64> {
        if state.filled == self.rules.full_mask() {
            return vec![1.0];
        }
        if let Some(d) = self.distributions.get(&state) {
            return d.clone();
        }
        // With no roll left: the box of highest expected final score, first on the card.
        let mut values = Vec::new();
        let mut dists = Vec::new();
        for ends in self.endings(&state) {
            let evs: Vec<f64> = ends
                .iter()
                .map(|&(_, p, b, next)| f64::from(p + b) + self.value(next))
                .collect();
            let (_, p, b, next) = ends[preferred(evs.iter().copied())];
            let mut d = vec![0.0; (p + b) as usize];
            d.extend(self.policy_distribution(next));
            values.push(evs.iter().copied().fold(f64::NEG_INFINITY, f64::max));
            dists.push(d);
        }
        // With one, then two rolls left (up to the rules' rolls a turn less one): the keep of
        // highest expected value, in the order of preference of the distinct keeps.
        for _ in 1..self.rules.rolls() {
            let mut next_values = Vec::new();
            let mut next_dists = Vec::new();
            for (hand, (value, keep)) in self.chosen_keeps(&values).into_iter().enumerate() {
                let mut d = Vec::new();
                for &(p, h) in self.outcomes(hand, keep) {
                    add_scaled(&mut d, p, &dists[h]);
                }
                next_values.push(value);
                next_dists.push(d);
            }
            values = next_values;
            dists = next_dists;
        }
        let mut d = Vec::new();
        for ((_, count), h) in self.hands.iter().zip(&dists) {
            add_scaled(&mut d, f64::from(*count) / 6f64.powi(self.dice as i32), h);
        }
        self.distributions.insert(state, d.clone());
        d
    }

    /// Under saved rolls, the distribution of the points scored from `state` with `saved`
    /// rolls saved on when every choice is the expected-score policy's ([`Self::saved_layers`]'s
    /// values), ties broken by the documented rule over the options in the order of advice:
    /// the keeps of fewer than all the dice (fewest dice, then lowest faces), then the boxes in
    /// card order, each filled now with the re-rolls left saved.
    pub fn saved_policy_distribution(&mut self, state: State, saved: usize) -> Vec<f64> {
        if state.filled == self.rules.full_mask() {
            return vec![1.0];
        }
        if let Some(d) = self.saved_distributions.get(&(state, saved)) {
            return d.clone();
        }
        let endings = self.endings(&state);
        let rerolls = usize::from(self.rules.rolls()) - 1 + saved;
        let mut values: Vec<f64> = Vec::new();
        let mut dists: Vec<Vec<f64>> = Vec::new();
        for r in 0..=rerolls {
            let mut next_values = Vec::new();
            let mut next_dists = Vec::new();
            let keep_values = if r > 0 {
                self.keep_values(&values)
            } else {
                Vec::new()
            };
            for (h, ends) in endings.iter().enumerate() {
                // The options' values in the order of advice; the distribution of the chosen
                // one alone is made.
                let keeps: Vec<u32> = if r > 0 {
                    (self.in_order[h].iter())
                        .filter(|k| k.0 < self.dice)
                        .map(|k| k.2)
                        .collect()
                } else {
                    Vec::new()
                };
                let mut options: Vec<f64> = (keeps.iter())
                    .map(|&subset| keep_values[self.keep_of[h][subset as usize]])
                    .collect();
                for &(_, p, b, next) in ends {
                    options.push(f64::from(p + b) + self.saved_value(next, r));
                }
                let chosen = preferred(options.iter().copied());
                let d = if let Some(&subset) = keeps.get(chosen) {
                    let mut d = Vec::new();
                    for &(p, o) in self.outcomes(h, subset) {
                        add_scaled(&mut d, p, &dists[o]);
                    }
                    d
                } else {
                    let (_, p, b, next) = ends[chosen - keeps.len()];
                    let mut d = vec![0.0; (p + b) as usize];
                    d.extend(self.saved_policy_distribution(next, r));
                    d
                };
                next_values.push(options[chosen]);
                next_dists.push(d);
            }
            values = next_values;
            dists = next_dists;
        }
        let mut d = Vec::new();
        for ((_, count), h) in self.hands.iter().zip(&dists) {
            add_scaled(&mut d, f64::from(*count) / 6f64.powi(self.dice as i32), h);
        }
        self.saved_distributions.insert((state, saved), d.clone());
        d
    }

    /// The best chance of winning from `state` with `banked` points banked, when a final
    /// score `x` wins with chance `u(x)`: the win objective's recursion, computed directly.
    /// `memo` holds the values computed so far for this `u` (give each `u` its own).
    pub fn win(
        &mut self,
        memo: &mut HashMap<(State, i64), f64>,
        state: State,
        banked: i64,
        u: &dyn Fn(i64) -> f64,
    ) -> f64 {
        if state.filled == self.rules.full_mask() {
            return u(banked);
        }
        if let Some(&v) = memo.get(&(state, banked)) {
            return v;
        }
        let endings = self.endings(&state);
        let by_hand: Vec<f64> = endings
            .iter()
            .map(|ends| {
                ends.iter()
                    .map(|&(_, p, b, next)| self.win(memo, next, banked + i64::from(p + b), u))
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .collect();
        let v = self.turn(by_hand);
        memo.insert((state, banked), v);
        v
    }
}

/// How a player of the brute force's game of two plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TwoPlayerPolicy {
    /// Every choice the best for the win (win plus half a tie).
    Optimal,
    /// The expected-score policy, ties as documented (the fewest dice kept, then the lowest
    /// faces; the box first on the card).
    Expected,
}

/// Options whose values are this close are tied for the brute force of two players: equal in
/// exact arithmetic, they may differ in the last bits of any floating-point computation, so
/// which of them a solver takes is decided by rounding. Their tie chances may differ: the
/// brute force spans them.
const EXACT_TIE: f64 = 1e-12;

/// The outcome of a position for the brute force of two players: the value, and the range of
/// the chance of a tie over the choices among options tied in value (a single chance when no
/// such choice changes it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// The chance of winning plus half a tie, to the player to move.
    pub value: f64,
    /// The least chance of a tie over the tied choices.
    pub tie_low: f64,
    /// The largest.
    pub tie_high: f64,
}

impl Outcome {
    fn scaled_add(&mut self, p: f64, o: &Outcome) {
        self.value += p * o.value;
        self.tie_low += p * o.tie_low;
        self.tie_high += p * o.tie_high;
    }
}

const NOTHING: Outcome = Outcome {
    value: 0.0,
    tie_low: 0.0,
    tie_high: 0.0,
};

/// The outcome of choosing the best of `options` by value: the tie range spans every option
/// within [`EXACT_TIE`] of the best.
fn best_outcome(options: &[Outcome]) -> Outcome {
    let best = options
        .iter()
        .map(|o| o.value)
        .fold(f64::NEG_INFINITY, f64::max);
    let tied = options.iter().filter(|o| o.value >= best - EXACT_TIE);
    Outcome {
        value: best,
        tie_low: tied
            .clone()
            .map(|o| o.tie_low)
            .fold(f64::INFINITY, f64::min),
        tie_high: tied.map(|o| o.tie_high).fold(f64::NEG_INFINITY, f64::max),
    }
}

/// A keep of a hand: its number of dice, its faces, and one subset of positions keeping it.
type KeepInOrder = (usize, Vec<u8>, u32);

impl BruteForce {
    /// The distinct keeps of a hand in the order of preference (the fewest dice, then the
    /// lowest faces), each with one subset of positions that keeps it.
    fn keeps_in_order(hand: &[u8]) -> Vec<KeepInOrder> {
        let mut keeps: Vec<KeepInOrder> = (0..1u32 << hand.len())
            .map(|subset| {
                let kept: Vec<u8> = (0..hand.len())
                    .filter(|i| subset & (1 << i) != 0)
                    .map(|i| hand[i])
                    .collect();
                (kept.len(), kept, subset)
            })
            .collect();
        keeps.sort();
        keeps.dedup_by(|a, b| a.1 == b.1);
        keeps
    }

    /// The game of two, directly, with the chance of a tie: the [`Outcome`] to the player to
    /// move (holding `mover`, lead `lead` over the other, who holds `other`), whose value is
    /// their chance of winning plus half a tie; the tie chance follows the choices both
    /// players make. `policies` says how the first and the second player play (the mover is
    /// the first when both cards have as many boxes filled); the expected-score policy breaks
    /// its ties as documented, so only the players playing to win span a range.
    pub fn two_player_outcome(
        &mut self,
        memo: &mut HashMap<(State, State, i64), Outcome>,
        policies: [TwoPlayerPolicy; 2],
        mover: State,
        other: State,
        lead: i64,
    ) -> Outcome {
        let full = self.rules.full_mask();
        if mover.filled == full && other.filled == full {
            let (value, tie) = match lead.cmp(&0) {
                std::cmp::Ordering::Greater => (1.0, 0.0),
                std::cmp::Ordering::Equal => (0.5, 1.0),
                std::cmp::Ordering::Less => (0.0, 0.0),
            };
            return Outcome {
                value,
                tie_low: tie,
                tie_high: tie,
            };
        }
        if let Some(&v) = memo.get(&(mover, other, lead)) {
            return v;
        }
        let first = mover.filled.count_ones() == other.filled.count_ones();
        let policy = policies[usize::from(!first)];
        let choose = |options: &[(Outcome, f64)]| match policy {
            TwoPlayerPolicy::Optimal => {
                best_outcome(&options.iter().map(|o| o.0).collect::<Vec<_>>())
            }
            TwoPlayerPolicy::Expected => options[preferred(options.iter().map(|o| o.1))].0,
        };
        // With no roll left: each hand's box, its outcome and the best expected final score.
        let mut outcome: Vec<Outcome> = Vec::new();
        let mut ev: Vec<f64> = Vec::new();
        for ends in self.endings(&mover) {
            let options: Vec<(Outcome, f64)> = ends
                .iter()
                .map(|&(_, p, b, next)| {
                    let o = self.two_player_outcome(
                        memo,
                        policies,
                        other,
                        next,
                        -(lead + i64::from(p + b)),
                    );
                    let mine = Outcome {
                        value: 1.0 - o.value,
                        ..o
                    };
                    (mine, f64::from(p + b) + self.value(next))
                })
                .collect();
            outcome.push(choose(&options));
            ev.push(
                options
                    .iter()
                    .map(|o| o.1)
                    .fold(f64::NEG_INFINITY, f64::max),
            );
        }
        // With one, then two rolls left (up to the rules' rolls a turn less one): each hand's
        // keep.
        for _ in 1..self.rules.rolls() {
            let mut next_outcome = Vec::new();
            let mut next_ev = Vec::new();
            let kept: Vec<(Outcome, f64)> = (self.keeps.iter())
                .map(|outcomes| {
                    let (mut o, mut e) = (NOTHING, 0.0);
                    for &(p, h) in outcomes {
                        o.scaled_add(p, &outcome[h]);
                        e += p * ev[h];
                    }
                    (o, e)
                })
                .collect();
            for (hand_index, keeps) in self.in_order.iter().enumerate() {
                let options: Vec<(Outcome, f64)> = keeps
                    .iter()
                    .map(|k| kept[self.keep_of[hand_index][k.2 as usize]])
                    .collect();
                next_outcome.push(choose(&options));
                next_ev.push(
                    options
                        .iter()
                        .map(|o| o.1)
                        .fold(f64::NEG_INFINITY, f64::max),
                );
            }
            outcome = next_outcome;
            ev = next_ev;
        }
        let mut total = NOTHING;
        for ((_, count), o) in self.hands.iter().zip(&outcome) {
            total.scaled_add(f64::from(*count) / 6f64.powi(self.dice as i32), o);
        }
        memo.insert((mover, other, lead), total);
        total
    }
}

/// What the brute force knows of the rest of a game under expected-score play, for the exact
/// events and covariances of `stats --events`, written again from their definitions
/// (`docs/stats.md`): for each event, the chance that it does not happen in the rest of the
/// game; for each row (the boxes in card order, then the upper bonus and the five-of-a-kind
/// bonuses where the rules have them), the expected points the rest adds; for each pair of
/// rows, `E[X_a X_b]` of those points. Conditional expectations, mixed backward over hands
/// and states, where the library carries unconditional sums forward.
#[derive(Clone, Debug)]
pub struct Rest {
    pub unseen: Vec<f64>,
    pub mean: Vec<f64>,
    pub cross: Vec<Vec<f64>>,
}

/// The events of a game, as `docs/stats.md` defines them: a roll showing the pattern of a
/// straight or all-of-a-kind box; the five-of-a-kind box filled with its points or a bonus
/// earned; the upper bonus earned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GameEvent {
    Rolled(usize),
    Scored,
    UpperBonus,
}

impl BruteForce {
    /// The events of the rules, in the order `stats --events` reports them.
    pub fn game_events(&self) -> Vec<GameEvent> {
        use yahtzee_core::game::rules::Scoring;
        let mut events: Vec<GameEvent> = (self.rules.boxes().iter().enumerate())
            .filter(|(_, c)| {
                matches!(
                    c.scoring,
                    Scoring::Straight { .. } | Scoring::FiveOfAKind { .. }
                )
            })
            .map(|(i, _)| GameEvent::Rolled(i))
            .collect();
        if self.rules.five_of_a_kind_box().is_some() {
            events.push(GameEvent::Scored);
        }
        if self.rules.has_upper_bonus() {
            events.push(GameEvent::UpperBonus);
        }
        events
    }

    fn rows(&self) -> usize {
        self.rules.box_count()
            + usize::from(self.rules.has_upper_bonus())
            + usize::from(self.rules.has_yahtzee_bonus())
    }

    fn empty_rest(&self) -> Rest {
        let (e, r) = (self.game_events().len(), self.rows());
        Rest {
            unseen: vec![0.0; e],
            mean: vec![0.0; r],
            cross: vec![vec![0.0; r]; r],
        }
    }

    /// The rest of a game from a full card: nothing happens, nothing is added.
    fn finished_rest(&self) -> Rest {
        let mut rest = self.empty_rest();
        rest.unseen.iter_mut().for_each(|u| *u = 1.0);
        rest
    }

    /// The events of a roll that `hand` shows, as flags by event.
    fn shows(&self, hand: usize) -> Vec<bool> {
        let dice = self.rules.dice().dice_of(&self.hands[hand].0).unwrap();
        self.game_events()
            .iter()
            .map(|e| match e {
                GameEvent::Rolled(b) => self.rules.base_score(*b, &dice) > 0,
                _ => false,
            })
            .collect()
    }

    /// `rest` seen from before a turn that ends adding `adds` to the rows and with the
    /// events `happened`: the events done, the moments shifted.
    fn after_turn(&self, rest: &Rest, adds: &[f64], happened: &[bool]) -> Rest {
        let r = adds.len();
        let mut out = rest.clone();
        for (u, &h) in out.unseen.iter_mut().zip(happened) {
            if h {
                *u = 0.0;
            }
        }
        for a in 0..r {
            out.mean[a] = rest.mean[a] + adds[a];
            for b in 0..r {
                out.cross[a][b] = rest.cross[a][b]
                    + adds[a] * rest.mean[b]
                    + adds[b] * rest.mean[a]
                    + adds[a] * adds[b];
            }
        }
        out
    }

    /// `acc += w * rest`.
    fn mix_rest(acc: &mut Rest, w: f64, rest: &Rest) {
        for (a, b) in acc.unseen.iter_mut().zip(&rest.unseen) {
            *a += w * b;
        }
        for (a, b) in acc.mean.iter_mut().zip(&rest.mean) {
            *a += w * b;
        }
        for (ra, rb) in acc.cross.iter_mut().zip(&rest.cross) {
            for (a, b) in ra.iter_mut().zip(rb) {
                *a += w * b;
            }
        }
    }

    /// The rest of the game from each hand of a turn of `state`, with 0, 1, ... rolls left
    /// (`[rolls_left][hand]`), every choice the expected-score policy's with the documented
    /// ties, as [`BruteForce::policy_distribution`] plays.
    pub fn policy_rest_layers(&mut self, state: State) -> Vec<Vec<Rest>> {
        let events = self.game_events();
        let rules = self.rules;
        let mut values = Vec::new();
        let mut rests = Vec::new();
        for (hand, ends) in self.endings(&state).into_iter().enumerate() {
            let evs: Vec<f64> = ends
                .iter()
                .map(|&(_, p, b, next)| f64::from(p + b) + self.value(next))
                .collect();
            let (i, p, b, next) = ends[preferred(evs.iter().copied())];
            let upper = rules.boxes()[i].is_upper()
                && rules.has_upper_bonus()
                && u32::from(state.upper) < rules.upper_threshold()
                && u32::from(state.upper) + p >= rules.upper_threshold();
            let upper_points = if upper { rules.upper_bonus_points() } else { 0 };
            let yahtzee_points = b - upper_points;
            let mut adds = vec![0.0; self.rows()];
            adds[i] = f64::from(p);
            let mut at = rules.box_count();
            if rules.has_upper_bonus() {
                adds[at] = f64::from(upper_points);
                at += 1;
            }
            if rules.has_yahtzee_bonus() {
                adds[at] = f64::from(yahtzee_points);
            }
            let shown = self.shows(hand);
            let happened: Vec<bool> = events
                .iter()
                .zip(&shown)
                .map(|(e, &s)| match e {
                    GameEvent::Rolled(_) => s,
                    GameEvent::Scored => {
                        (Some(i) == rules.five_of_a_kind_box()
                            && p == rules.five_of_a_kind_points())
                            || yahtzee_points > 0
                    }
                    GameEvent::UpperBonus => upper,
                })
                .collect();
            let rest = self.policy_rest(next);
            values.push(evs.iter().copied().fold(f64::NEG_INFINITY, f64::max));
            rests.push(self.after_turn(&rest, &adds, &happened));
        }
        let mut layers = vec![rests.clone()];
        for _ in 1..self.rules.rolls() {
            let mut next_values = Vec::new();
            let mut next_rests = Vec::new();
            for (h, (value, keep)) in self.chosen_keeps(&values).into_iter().enumerate() {
                let mut rest = self.empty_rest();
                for &(p, o) in self.outcomes(h, keep) {
                    Self::mix_rest(&mut rest, p, &rests[o]);
                }
                // This hand was seen too.
                for (u, s) in rest.unseen.iter_mut().zip(self.shows(h)) {
                    if s {
                        *u = 0.0;
                    }
                }
                next_values.push(value);
                next_rests.push(rest);
            }
            values = next_values;
            rests = next_rests;
            layers.push(rests.clone());
        }
        layers
    }

    /// The rest of the game from the start of a turn of `state` ([`Rest`]).
    pub fn policy_rest(&mut self, state: State) -> Rest {
        if state.filled == self.rules.full_mask() {
            return self.finished_rest();
        }
        if let Some(r) = self.rests.get(&state) {
            return r.clone();
        }
        let top = self.policy_rest_layers(state).pop().expect("a layer");
        let mut rest = self.empty_rest();
        let throws = 6f64.powi(self.dice as i32);
        for ((_, count), r) in self.hands.iter().zip(&top) {
            Self::mix_rest(&mut rest, f64::from(*count) / throws, r);
        }
        self.rests.insert(state, rest.clone());
        rest
    }
}

/// The joint distribution of what the rest of a game adds, for `stats --joint`: `(points
/// the first box gets, points the second gets, points scored in all, bonuses included)` and
/// their chance.
pub type Joint = std::collections::BTreeMap<(u32, u32, u32), f64>;

impl BruteForce {
    /// `acc += w * joint`, `joint` shifted by `(a, b, t)`.
    fn mix_joint(acc: &mut Joint, w: f64, joint: &Joint, (a, b, t): (u32, u32, u32)) {
        for (&(x, y, z), &p) in joint {
            *acc.entry((x + a, y + b, z + t)).or_default() += w * p;
        }
    }

    /// The rest of the game from each hand of a turn of `state`, with 0, 1, ... rolls left
    /// (`[rolls_left][hand]`), as a [`Joint`] of `boxes`, every choice the expected-score
    /// policy's with the documented ties (as [`BruteForce::policy_distribution`] plays).
    pub fn policy_joint_layers(&mut self, state: State, boxes: [usize; 2]) -> Vec<Vec<Joint>> {
        let mut values = Vec::new();
        let mut joints = Vec::new();
        for ends in self.endings(&state) {
            let evs: Vec<f64> = ends
                .iter()
                .map(|&(_, p, b, next)| f64::from(p + b) + self.value(next))
                .collect();
            let (i, p, b, next) = ends[preferred(evs.iter().copied())];
            let to = |k: usize| if i == boxes[k] { p } else { 0 };
            let mut joint = Joint::new();
            let rest = self.policy_joint(next, boxes);
            Self::mix_joint(&mut joint, 1.0, &rest, (to(0), to(1), p + b));
            values.push(evs.iter().copied().fold(f64::NEG_INFINITY, f64::max));
            joints.push(joint);
        }
        let mut layers = vec![joints.clone()];
        for _ in 1..self.rules.rolls() {
            let mut next_values = Vec::new();
            let mut next_joints = Vec::new();
            for (hand, (value, keep)) in self.chosen_keeps(&values).into_iter().enumerate() {
                let mut joint = Joint::new();
                for &(p, h) in self.outcomes(hand, keep) {
                    Self::mix_joint(&mut joint, p, &joints[h], (0, 0, 0));
                }
                next_values.push(value);
                next_joints.push(joint);
            }
            values = next_values;
            joints = next_joints;
            layers.push(joints.clone());
        }
        layers
    }

    /// The rest of the game from the start of a turn of `state`, as a [`Joint`] of `boxes`.
    pub fn policy_joint(&mut self, state: State, boxes: [usize; 2]) -> Joint {
        if state.filled == self.rules.full_mask() {
            return Joint::from([((0, 0, 0), 1.0)]);
        }
        if let Some(j) = self.joints.get(&(state, boxes)) {
            return j.clone();
        }
        let top = self
            .policy_joint_layers(state, boxes)
            .pop()
            .expect("a layer");
        let mut joint = Joint::new();
        let throws = 6f64.powi(self.dice as i32);
        for ((_, count), j) in self.hands.iter().zip(&top) {
            Self::mix_joint(&mut joint, f64::from(*count) / throws, j, (0, 0, 0));
        }
        self.joints.insert((state, boxes), joint.clone());
        joint
    }
}
