//! Dice, keeps and the combinatorics of five six-sided dice.
//!
//! A hand of dice is a multiset: the order of the dice never matters, so a hand is stored as
//! the count of each face. Every multiset of at most five dice gets a dense index
//! ([`Multiset`]): 462 of them in all, of which the 252 of size five are the distinct rolls.
//! The solver walks this lattice by adding one die (the expectation over a re-rolled die) and
//! by removing one die (the best keep among the sub-multisets of a roll), so both moves are
//! precomputed here once, in [`Lattice`].

use std::fmt;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

/// Number of dice in the game.
pub const DICE: usize = 5;
/// Number of faces on a die.
pub const FACES: usize = 6;
/// Number of multisets of 0 to 5 dice: C(11, 5).
pub const MULTISETS: usize = 462;
/// Number of distinct rolls of five dice: C(10, 5).
pub const ROLLS: usize = 252;
/// Index of the first roll of five dice: the multisets are ordered by size, and the 210
/// smaller ones come first.
pub const FIRST_ROLL: usize = MULTISETS - ROLLS;

/// Count of each face, `counts[f - 1]` dice showing face `f`.
pub type Counts = [u8; FACES];

/// The dense index of a multiset of at most five dice (0..462). Indices are ordered by size,
/// then lexicographically by the sorted faces, so every multiset comes after all its
/// sub-multisets: index 0 is the empty keep and 210..462 are the rolls.
pub type Multiset = usize;

/// Errors in dice given by a user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiceError {
    #[error("invalid dice `{0}`: give exactly five faces from 1 to 6, e.g. `1,3,3,5,6` or `13356`")]
    Invalid(String),
}

/// Five dice showing faces 1 to 6, in no particular order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Dice {
    counts: Counts,
}

impl Dice {
    /// Builds dice from five faces, each 1 to 6.
    pub fn from_faces(faces: &[u8]) -> Result<Dice, DiceError> {
        let invalid = || DiceError::Invalid(join_faces(faces));
        if faces.len() != DICE {
            return Err(invalid());
        }
        let mut counts = [0u8; FACES];
        for &f in faces {
            if !(1..=6).contains(&f) {
                return Err(invalid());
            }
            counts[usize::from(f - 1)] += 1;
        }
        Ok(Dice { counts })
    }

    /// The roll with this dense index (`FIRST_ROLL..MULTISETS`).
    pub fn from_index(index: Multiset) -> Dice {
        let lattice = Lattice::get();
        debug_assert!((FIRST_ROLL..MULTISETS).contains(&index));
        Dice {
            counts: lattice.counts[index],
        }
    }

    /// Dense index of this roll in the multiset lattice.
    pub fn index(&self) -> Multiset {
        Lattice::get().index_of(&self.counts)
    }

    /// Count of each face.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// The faces in ascending order.
    pub fn faces(&self) -> Vec<u8> {
        faces_of(&self.counts)
    }

    /// Sum of the five dice.
    pub fn sum(&self) -> u32 {
        sum_of(&self.counts)
    }

    /// The face shown by all five dice, if this is five of a kind.
    pub fn five_of_a_kind(&self) -> Option<u8> {
        self.counts
            .iter()
            .position(|&c| usize::from(c) == DICE)
            .map(|i| i as u8 + 1)
    }

    /// All distinct sub-multisets of these dice (what can be kept), including the empty keep
    /// and all five dice.
    pub fn keeps(&self) -> Vec<Keep> {
        let mut out = Vec::new();
        let mut cur = [0u8; FACES];
        fn rec(i: usize, max: &Counts, cur: &mut Counts, out: &mut Vec<Keep>) {
            if i == FACES {
                out.push(Keep { counts: *cur });
                return;
            }
            for c in 0..=max[i] {
                cur[i] = c;
                rec(i + 1, max, cur, out);
            }
            cur[i] = 0;
        }
        rec(0, &self.counts, &mut cur, &mut out);
        out
    }

    /// The distinct keeps of these dice in the order of the tie convention of
    /// `shared/RULES.md`: fewest dice first (re-roll the most), then the lowest faces. Listed
    /// once per roll and shared.
    pub fn keeps_by_preference(&self) -> &'static [Keep] {
        static KEEPS: LazyLock<Vec<Vec<Keep>>> = LazyLock::new(|| {
            Dice::all()
                .map(|d| {
                    let mut keeps = d.keeps();
                    keeps.sort_by_cached_key(|k| (k.len(), k.faces()));
                    keeps
                })
                .collect()
        });
        &KEEPS[self.index() - FIRST_ROLL]
    }

    /// Every distinct roll of five dice, in index order.
    pub fn all() -> impl Iterator<Item = Dice> {
        (FIRST_ROLL..MULTISETS).map(Dice::from_index)
    }
}

impl std::str::FromStr for Dice {
    type Err = DiceError;

    /// Parses `1,3,3,5,6`, `1 3 3 5 6` or `13356`.
    fn from_str(s: &str) -> Result<Dice, DiceError> {
        let invalid = || DiceError::Invalid(s.to_string());
        let t = s.trim();
        let faces: Vec<u8> = if t.contains(',') || t.contains(' ') {
            t.split([',', ' '])
                .filter(|p| !p.is_empty())
                .map(|p| p.trim().parse::<u8>().map_err(|_| invalid()))
                .collect::<Result<_, _>>()?
        } else {
            t.chars()
                .map(|c| c.to_digit(10).map(|d| d as u8).ok_or_else(invalid))
                .collect::<Result<_, _>>()?
        };
        Dice::from_faces(&faces).map_err(|_| invalid())
    }
}

impl fmt::Display for Dice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&join_faces(&self.faces()))
    }
}

/// Dice set aside before a re-roll: a multiset of zero to five dice.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Keep {
    counts: Counts,
}

impl Keep {
    /// Builds a keep from its faces (0 to 5 faces, each 1 to 6).
    pub fn from_faces(faces: &[u8]) -> Option<Keep> {
        if faces.len() > DICE {
            return None;
        }
        let mut counts = [0u8; FACES];
        for &f in faces {
            if !(1..=6).contains(&f) {
                return None;
            }
            counts[usize::from(f - 1)] += 1;
        }
        Some(Keep { counts })
    }

    /// Number of dice kept.
    pub fn len(&self) -> usize {
        self.counts.iter().map(|&c| usize::from(c)).sum()
    }

    /// True for the empty keep (re-roll all five dice).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The kept faces in ascending order.
    pub fn faces(&self) -> Vec<u8> {
        faces_of(&self.counts)
    }

    /// Count of each face.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Dense index in the multiset lattice.
    pub fn index(&self) -> Multiset {
        Lattice::get().index_of(&self.counts)
    }

    /// The keep with this dense index (`0..FIRST_ROLL` for fewer than five dice).
    pub fn from_index(index: Multiset) -> Keep {
        Keep {
            counts: Lattice::get().counts[index],
        }
    }

    /// True when these dice can be kept from `dice`.
    pub fn is_within(&self, dice: &Dice) -> bool {
        self.counts
            .iter()
            .zip(dice.counts.iter())
            .all(|(k, d)| k <= d)
    }
}

impl fmt::Display for Keep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            f.write_str("nothing")
        } else {
            f.write_str(&join_faces(&self.faces()))
        }
    }
}

fn faces_of(counts: &Counts) -> Vec<u8> {
    let mut v = Vec::with_capacity(DICE);
    for (i, &c) in counts.iter().enumerate() {
        for _ in 0..c {
            v.push(i as u8 + 1);
        }
    }
    v
}

fn sum_of(counts: &Counts) -> u32 {
    counts
        .iter()
        .enumerate()
        .map(|(i, &c)| (i as u32 + 1) * u32::from(c))
        .sum()
}

/// Faces as a person reads them: `1 3 3 5 6`.
pub fn join_faces(faces: &[u8]) -> String {
    faces
        .iter()
        .map(|f| f.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The precomputed multiset lattice shared by the solver and the advice.
pub struct Lattice {
    /// Face counts of each multiset.
    pub counts: Vec<Counts>,
    /// Number of dice in each multiset.
    pub size: Vec<u8>,
    /// `add[i][f]`: the multiset `i` plus one die showing `f + 1`; only for `i < FIRST_ROLL`.
    pub add: Vec<[u16; FACES]>,
    /// Sub-multisets one die smaller, in compressed rows: those of multiset `i` are
    /// `remove[remove_start[i]..remove_start[i + 1]]` (one per distinct face present).
    pub remove: Vec<u16>,
    /// Row starts of `remove`.
    pub remove_start: Vec<u32>,
    /// Probability of each roll when all five dice are thrown: 5! / (c1! ... c6!) / 6^5.
    /// Indexed by roll offset (`index - FIRST_ROLL`).
    pub roll_probability: Vec<f64>,
    /// Dense index by base-6 code of the counts (`counts` read as digits, each 0..=5).
    index_by_code: Vec<u16>,
}

impl Lattice {
    /// The lattice, built once on first use.
    pub fn get() -> &'static Lattice {
        static LATTICE: LazyLock<Lattice> = LazyLock::new(Lattice::build);
        &LATTICE
    }

    fn code(counts: &Counts) -> usize {
        counts
            .iter()
            .fold(0usize, |acc, &c| acc * 6 + usize::from(c))
    }

    /// Dense index of a multiset of at most five dice.
    pub fn index_of(&self, counts: &Counts) -> Multiset {
        usize::from(self.index_by_code[Self::code(counts)])
    }

    fn build() -> Lattice {
        // Enumerate by size, then lexicographically by sorted faces: every sub-multiset then
        // precedes its super-multisets, which lets the solver sweep in index order.
        let mut counts: Vec<Counts> = Vec::with_capacity(MULTISETS);
        for size in 0..=DICE {
            let mut faces = Vec::new();
            fn rec(start: u8, left: usize, faces: &mut Vec<u8>, out: &mut Vec<Counts>) {
                if left == 0 {
                    let mut c = [0u8; FACES];
                    for &f in faces.iter() {
                        c[usize::from(f - 1)] += 1;
                    }
                    out.push(c);
                    return;
                }
                for f in start..=6 {
                    faces.push(f);
                    rec(f, left - 1, faces, out);
                    faces.pop();
                }
            }
            rec(1, size, &mut faces, &mut counts);
        }
        assert_eq!(counts.len(), MULTISETS);
        let mut index_by_code = vec![u16::MAX; 6usize.pow(FACES as u32)];
        for (i, c) in counts.iter().enumerate() {
            index_by_code[Self::code(c)] = i as u16;
        }
        let size: Vec<u8> = counts.iter().map(|c| c.iter().sum()).collect();
        let mut add = vec![[u16::MAX; FACES]; MULTISETS];
        let mut remove = Vec::new();
        let mut remove_start = vec![0u32];
        for (i, c) in counts.iter().enumerate() {
            for f in 0..FACES {
                if usize::from(size[i]) < DICE {
                    let mut d = *c;
                    d[f] += 1;
                    add[i][f] = index_by_code[Self::code(&d)];
                }
                if c[f] > 0 {
                    let mut d = *c;
                    d[f] -= 1;
                    remove.push(index_by_code[Self::code(&d)]);
                }
            }
            remove_start.push(remove.len() as u32);
        }
        let fact = |n: u8| (1..=u32::from(n)).product::<u32>() as f64;
        let roll_probability = counts[FIRST_ROLL..]
            .iter()
            .map(|c| fact(5) / c.iter().map(|&k| fact(k)).product::<f64>() / 7776.0)
            .collect();
        Lattice {
            counts,
            size,
            add,
            remove,
            remove_start,
            roll_probability,
            index_by_code,
        }
    }

    /// Probability of rolling exactly `roll` when the dice of `keep` are kept and the others
    /// thrown. Zero when `keep` is not within `roll`.
    pub fn outcome_probability(&self, keep: Multiset, roll: Multiset) -> f64 {
        let k = &self.counts[keep];
        let r = &self.counts[roll];
        let mut thrown = 0u8;
        let mut denominator = 1.0;
        for f in 0..FACES {
            if k[f] > r[f] {
                return 0.0;
            }
            let n = r[f] - k[f];
            thrown += n;
            denominator *= (1..=u32::from(n)).product::<u32>() as f64;
        }
        let numerator = (1..=u32::from(thrown)).product::<u32>() as f64;
        numerator / denominator / 6f64.powi(i32::from(thrown))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lattice_has_462_multisets_and_252_rolls() {
        let l = Lattice::get();
        assert_eq!(l.counts.len(), MULTISETS);
        assert_eq!(l.size.iter().filter(|&&s| s == 5).count(), ROLLS);
        assert!(l.size[..FIRST_ROLL].iter().all(|&s| s < 5));
    }

    #[test]
    fn roll_probabilities_sum_to_one() {
        let total: f64 = Lattice::get().roll_probability.iter().sum();
        assert!((total - 1.0).abs() < 1e-12);
    }

    #[test]
    fn outcome_probabilities_of_each_keep_sum_to_one() {
        let l = Lattice::get();
        for keep in 0..MULTISETS {
            let total: f64 = (FIRST_ROLL..MULTISETS)
                .map(|r| l.outcome_probability(keep, r))
                .sum();
            assert!((total - 1.0).abs() < 1e-12, "keep {keep}: {total}");
        }
    }

    #[test]
    fn sub_multisets_precede_their_super_multisets() {
        let l = Lattice::get();
        for i in 0..MULTISETS {
            for &j in &l.remove[l.remove_start[i] as usize..l.remove_start[i + 1] as usize] {
                assert!(usize::from(j) < i);
                assert_eq!(l.size[usize::from(j)] + 1, l.size[i]);
            }
        }
    }

    #[test]
    fn parses_dice_in_both_forms() {
        let a: Dice = "1,3,3,5,6".parse().unwrap();
        let b: Dice = "13356".parse().unwrap();
        let c: Dice = "6 5 3 3 1".parse().unwrap();
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_eq!(a.faces(), vec![1, 3, 3, 5, 6]);
        assert_eq!(a.sum(), 18);
        assert_eq!(Dice::from_index(a.index()), a);
    }

    #[test]
    fn rejects_bad_dice() {
        for bad in [
            "1,2,3,4",
            "1,2,3,4,5,6",
            "0,1,2,3,4",
            "1,2,3,4,7",
            "12a45",
            "",
            "1,,2",
        ] {
            assert!(bad.parse::<Dice>().is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn keeps_are_the_distinct_sub_multisets() {
        let d: Dice = "33356".parse().unwrap();
        // 4 choices for the threes, 2 for the five, 2 for the six.
        assert_eq!(d.keeps().len(), 16);
        let yahtzee: Dice = "44444".parse().unwrap();
        assert_eq!(yahtzee.keeps().len(), 6);
        let straight: Dice = "12345".parse().unwrap();
        assert_eq!(straight.keeps().len(), 32);
    }
}
