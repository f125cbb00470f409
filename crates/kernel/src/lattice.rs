//! The lattice of every multiset of at most six dice, which the kernel walks: by adding a die
//! (the mean over a re-rolled die) and by removing one (the best keep among the
//! sub-multisets of a roll), both precomputed once here ([`Lattice`]), and the ranges of a
//! game of five or six dice in it ([`Space`]).
//!
//! Every multiset gets a dense index ([`Multiset`]), ordered by size: the 462 multisets of at
//! most five dice come first, in the same order whatever the game, so a game of five dice
//! uses the first 462 (its 252 rolls at 210..462) and a game of six all 924 (its 462 rolls at
//! 462..924). The game's dice themselves (parsing, keeps, rolling) are the core library's
//! `game::dice`, which re-exports this lattice.

use std::sync::LazyLock;

/// The most dice a game may have.
pub const MAX_DICE: usize = 6;
/// Number of faces on a die.
pub const FACES: usize = 6;
/// Number of multisets of 0 to 5 dice: C(11, 5).
pub const MULTISETS: usize = 462;
/// Number of distinct rolls of five dice: C(10, 5).
pub const ROLLS: usize = 252;
/// Index of the first roll of five dice: the multisets are ordered by size, and the 210
/// smaller ones come first.
pub const FIRST_ROLL: usize = MULTISETS - ROLLS;
/// Number of multisets of 0 to 6 dice, C(12, 6): the whole lattice.
pub const ALL_MULTISETS: usize = 924;
/// The most rolls a game has: the 462 of six dice.
pub const MAX_ROLLS: usize = ALL_MULTISETS - MULTISETS;

/// Number of multisets of at most `n` dice, C(n + 6, 6), for `n` = 0 to 6: where the
/// multisets of `n + 1` dice start.
const MULTISETS_UP_TO: [usize; MAX_DICE + 1] = [1, 7, 28, 84, 210, 462, 924];

/// Count of each face, `counts[f - 1]` dice showing face `f`.
pub type Counts = [u8; FACES];

/// The dense index of a multiset of at most six dice (0..924). Indices are ordered by size,
/// then lexicographically by the sorted faces, so every multiset comes after all its
/// sub-multisets: index 0 is the empty keep, 210..462 are the rolls of five dice and
/// 462..924 those of six.
pub type Multiset = usize;

/// The dice of a game as the kernel sees them, five or six: which multisets are its keeps
/// and which its rolls, and how many ordered throws all the dice have. The kernel's loops
/// take their lengths from it at run time, so one compiled turn serves both. (The core's
/// `DiceSpace` is the same number with the game's dice parsing; it converts into this.)
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Space {
    dice: u8,
}

impl Space {
    /// Five dice: Yahtzee, Yacht, Yatzy.
    pub const FIVE: Space = Space { dice: 5 };
    /// Six dice: Maxi Yatzy.
    pub const SIX: Space = Space { dice: 6 };

    /// The space of `dice` dice, when it is five or six.
    pub const fn of(dice: usize) -> Option<Space> {
        match dice {
            5 => Some(Space::FIVE),
            6 => Some(Space::SIX),
            _ => None,
        }
    }

    /// Number of dice.
    #[inline(always)]
    pub const fn dice(self) -> usize {
        self.dice as usize
    }

    /// Number of multisets of at most this many dice (462 or 924): the keeps and rolls.
    #[inline(always)]
    pub const fn multisets(self) -> usize {
        MULTISETS_UP_TO[self.dice as usize]
    }

    /// Index of the first roll (210 or 462): the keeps of fewer dice come before.
    #[inline(always)]
    pub const fn first_roll(self) -> usize {
        MULTISETS_UP_TO[self.dice as usize - 1]
    }

    /// Number of distinct rolls (252 or 462).
    #[inline(always)]
    pub const fn rolls(self) -> usize {
        self.multisets() - self.first_roll()
    }

    /// Number of ordered throws of all the dice, 6^dice (7,776 or 46,656).
    pub const fn throws(self) -> u32 {
        6u32.pow(self.dice as u32)
    }
}

/// The precomputed multiset lattice shared by the solver and the advice: every multiset of at
/// most six dice (a game of five dice uses the first [`MULTISETS`], see [`Space`]).
pub struct Lattice {
    /// Face counts of each multiset.
    pub counts: Vec<Counts>,
    /// Number of dice in each multiset.
    pub size: Vec<u8>,
    /// `add[i][f]`: the multiset `i` plus one die showing `f + 1`; only for multisets of
    /// fewer than six dice.
    pub add: Vec<[u16; FACES]>,
    /// Sub-multisets one die smaller, in compressed rows: those of multiset `i` are
    /// `remove[remove_start[i]..remove_start[i + 1]]` (one per distinct face present).
    pub remove: Vec<u16>,
    /// Row starts of `remove`.
    pub remove_start: Vec<u32>,
    /// Probability of each roll when all five dice are thrown: 5! / (c1! ... c6!) / 6^5.
    /// Indexed by roll offset (`index - FIRST_ROLL`).
    pub roll_probability: Vec<f64>,
    /// The number of ordered throws of each multiset's dice that show it, n! / (c1! ... c6!)
    /// (at most 720), by index: a roll's chance is this over [`Space::throws`].
    pub ways: Vec<u32>,
    /// Dense index by base-7 code of the counts (`counts` read as digits, each 0..=6:
    /// [`Lattice::code`]).
    pub index_by_code: Vec<u16>,
}

impl Lattice {
    /// The lattice, built once on first use.
    pub fn get() -> &'static Lattice {
        static LATTICE: LazyLock<Lattice> = LazyLock::new(Lattice::build);
        &LATTICE
    }

    /// The base-7 code of a multiset's counts, read as digits: the index into
    /// [`Lattice::index_by_code`].
    pub fn code(counts: &Counts) -> usize {
        counts
            .iter()
            .fold(0usize, |acc, &c| acc * 7 + usize::from(c))
    }

    /// Dense index of a multiset of at most six dice.
    pub fn index_of(&self, counts: &Counts) -> Multiset {
        usize::from(self.index_by_code[Self::code(counts)])
    }

    /// Probability of each roll of `space`'s dice, by roll offset (`index - first_roll`).
    pub fn roll_probabilities(&self, space: impl Into<Space>) -> Vec<f64> {
        let space = space.into();
        let throws = f64::from(space.throws());
        self.ways[space.first_roll()..space.multisets()]
            .iter()
            .map(|&w| f64::from(w) / throws)
            .collect()
    }

    fn build() -> Lattice {
        // Enumerate by size, then lexicographically by sorted faces: every sub-multiset then
        // precedes its super-multisets, which lets the solver sweep in index order.
        let mut counts: Vec<Counts> = Vec::with_capacity(ALL_MULTISETS);
        for size in 0..=MAX_DICE {
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
        assert_eq!(counts.len(), ALL_MULTISETS);
        let mut index_by_code = vec![u16::MAX; 7usize.pow(FACES as u32)];
        for (i, c) in counts.iter().enumerate() {
            index_by_code[Self::code(c)] = i as u16;
        }
        let size: Vec<u8> = counts.iter().map(|c| c.iter().sum()).collect();
        let mut add = vec![[u16::MAX; FACES]; ALL_MULTISETS];
        let mut remove = Vec::new();
        let mut remove_start = vec![0u32];
        for (i, c) in counts.iter().enumerate() {
            for f in 0..FACES {
                if usize::from(size[i]) < MAX_DICE {
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
        // The kernel reads its keep arrays by these indices without a bounds check: each must
        // be a multiset's (every multiset of fewer than six dice has six children).
        let below_six = (0..ALL_MULTISETS).filter(|&i| usize::from(size[i]) < MAX_DICE);
        assert!(
            below_six
                .flat_map(|i| add[i])
                .chain(remove.iter().copied())
                .all(|j| usize::from(j) < ALL_MULTISETS),
            "the lattice's children and sub-multisets are multisets"
        );
        let fact = |n: u8| (1..=u32::from(n)).product::<u32>();
        let ways: Vec<u32> = counts
            .iter()
            .map(|c| fact(c.iter().sum()) / c.iter().map(|&k| fact(k)).product::<u32>())
            .collect();
        let roll_probability = ways[FIRST_ROLL..MULTISETS]
            .iter()
            .map(|&w| f64::from(w) / 7776.0)
            .collect();
        Lattice {
            counts,
            size,
            add,
            remove,
            remove_start,
            roll_probability,
            ways,
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

/// The multisets of one size with the same number of distinct faces, each with its
/// sub-multisets one die smaller (one per distinct face). Grouping them gives the maximum loop
/// of the best keeps a fixed trip count, with no branch that depends on the multiset.
pub(crate) struct SubsetGroup {
    pub(crate) distinct: usize,
    pub(crate) members: Vec<u16>,
    /// `distinct` entries per member.
    pub(crate) parents: Vec<u16>,
}

/// The groups of every size up to six dice, by size: those of a game of `n` dice are the
/// first `SUBSET_GROUPS.1[n]`.
pub(crate) static SUBSET_GROUPS: LazyLock<(Vec<SubsetGroup>, [usize; MAX_DICE + 1])> =
    LazyLock::new(|| {
        let lattice = Lattice::get();
        let mut groups = Vec::new();
        let mut up_to = [0; MAX_DICE + 1];
        for (size, end) in up_to.iter_mut().enumerate().skip(1) {
            for distinct in 1..=size.min(FACES) {
                let mut g = SubsetGroup {
                    distinct,
                    members: Vec::new(),
                    parents: Vec::new(),
                };
                for i in 0..ALL_MULTISETS {
                    let from = lattice.remove_start[i] as usize;
                    let to = lattice.remove_start[i + 1] as usize;
                    if usize::from(lattice.size[i]) == size && to - from == distinct {
                        g.members.push(i as u16);
                        g.parents.extend_from_slice(&lattice.remove[from..to]);
                    }
                }
                if !g.members.is_empty() {
                    groups.push(g);
                }
            }
            *end = groups.len();
        }
        (groups, up_to)
    });
