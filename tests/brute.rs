//! An independent, deliberately naive solver for games with few open boxes, for the checks of
//! every objective: keeps are enumerated as the 32 subsets of dice positions, and re-roll
//! outcomes by enumerating every ordered sequence of faces, with no lattice, no lanes and no
//! shared code beyond the rules' scoring.

use std::collections::HashMap;

use yahtzee::dice::Dice;
use yahtzee::rules::Rules;
use yahtzee::state::State;

pub struct BruteForce {
    pub rules: Rules,
    /// The 252 sorted hands of five dice, and the number of ordered throws giving each.
    hands: Vec<(Vec<u8>, u32)>,
    /// `moves[hand][subset]`: (probability, resulting hand) for keeping the dice at the
    /// positions of `subset` and throwing the others.
    moves: Vec<Vec<Vec<(f64, usize)>>>,
    /// Expected remaining score of the states computed so far.
    values: HashMap<State, f64>,
    /// Best chance of scoring at least `t` more of the (state, t) computed so far.
    targets: HashMap<(State, i64), f64>,
    /// The distribution of the remaining score under expected-score play, of the states
    /// computed so far: `[p]` is the chance of exactly `p` more points.
    distributions: HashMap<State, Vec<f64>>,
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
fn throws(n: u32) -> Vec<(Vec<u8>, u32)> {
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

/// One way a turn can end: box, points, bonus, and the state after it.
type Ending = (usize, u32, u32, State);

impl BruteForce {
    pub fn new(rules: Rules) -> BruteForce {
        let hands = throws(5);
        let index: HashMap<Vec<u8>, usize> = hands
            .iter()
            .enumerate()
            .map(|(i, (h, _))| (h.clone(), i))
            .collect();
        let by_n: Vec<_> = (0..=5).map(throws).collect();
        let moves = hands
            .iter()
            .map(|(hand, _)| {
                (0..32u32)
                    .map(|subset| {
                        let kept: Vec<u8> = (0..5)
                            .filter(|i| subset & (1 << i) != 0)
                            .map(|i| hand[i])
                            .collect();
                        let thrown = 5 - kept.len();
                        let total = 6f64.powi(thrown as i32);
                        by_n[thrown]
                            .iter()
                            .map(|(out, count)| {
                                let mut h: Vec<u8> = kept.iter().chain(out).copied().collect();
                                h.sort_unstable();
                                (f64::from(*count) / total, index[&h])
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        BruteForce {
            rules,
            hands,
            moves,
            values: HashMap::new(),
            targets: HashMap::new(),
            distributions: HashMap::new(),
        }
    }

    /// The legal ways of ending the turn with each hand.
    fn endings(&self, state: &State) -> Vec<Vec<Ending>> {
        self.hands
            .iter()
            .map(|(faces, _)| {
                let dice = Dice::from_faces(faces).unwrap();
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
    /// 32 ways to keep dice with one and then two rolls left, then the mean over the opening
    /// hands.
    fn turn(&self, mut by_hand: Vec<f64>) -> f64 {
        for _ in 0..2 {
            by_hand = self
                .moves
                .iter()
                .map(|subsets| {
                    subsets
                        .iter()
                        .map(|outcomes| outcomes.iter().map(|&(p, h)| p * by_hand[h]).sum::<f64>())
                        .fold(f64::NEG_INFINITY, f64::max)
                })
                .collect();
        }
        self.hands
            .iter()
            .zip(&by_hand)
            .map(|((_, count), v)| f64::from(*count) / 7776.0 * v)
            .sum()
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
        // With one and then two rolls left: the keep of highest expected value, in the order
        // of preference of the distinct keeps.
        for _ in 0..2 {
            let mut next_values = Vec::new();
            let mut next_dists = Vec::new();
            for (hand, subsets) in self.hands.iter().zip(&self.moves) {
                let mut keeps: Vec<(usize, Vec<u8>, u32)> = (0..32u32)
                    .map(|subset| {
                        let kept: Vec<u8> = (0..5)
                            .filter(|i| subset & (1 << i) != 0)
                            .map(|i| hand.0[i])
                            .collect();
                        (kept.len(), kept, subset)
                    })
                    .collect();
                keeps.sort();
                keeps.dedup_by(|a, b| a.1 == b.1);
                let evs: Vec<f64> = keeps
                    .iter()
                    .map(|k| {
                        subsets[k.2 as usize]
                            .iter()
                            .map(|&(p, h)| p * values[h])
                            .sum()
                    })
                    .collect();
                let chosen = preferred(evs.iter().copied());
                let mut d = Vec::new();
                for &(p, h) in &subsets[keeps[chosen].2 as usize] {
                    add_scaled(&mut d, p, &dists[h]);
                }
                next_values.push(evs[chosen]);
                next_dists.push(d);
            }
            values = next_values;
            dists = next_dists;
        }
        let mut d = Vec::new();
        for ((_, count), h) in self.hands.iter().zip(&dists) {
            add_scaled(&mut d, f64::from(*count) / 7776.0, h);
        }
        self.distributions.insert(state, d.clone());
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

    /// The first player's chance of winning plus half the chance of a tie in a game of two
    /// when both play to win, the player to move holding `mover` with lead `lead` over the
    /// other, who holds `other`: the two-player recursion, computed directly (the value after
    /// a box is one less the other player's value at the opposite lead).
    pub fn two_player(
        &self,
        memo: &mut HashMap<(State, State, i64), f64>,
        mover: State,
        other: State,
        lead: i64,
    ) -> f64 {
        let full = self.rules.full_mask();
        if mover.filled == full && other.filled == full {
            return match lead.cmp(&0) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Less => 0.0,
            };
        }
        if let Some(&v) = memo.get(&(mover, other, lead)) {
            return v;
        }
        let endings = self.endings(&mover);
        let by_hand: Vec<f64> = endings
            .iter()
            .map(|ends| {
                ends.iter()
                    .map(|&(_, p, b, next)| {
                        1.0 - self.two_player(memo, other, next, -(lead + i64::from(p + b)))
                    })
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .collect();
        let v = self.turn(by_hand);
        memo.insert((mover, other, lead), v);
        v
    }
}
