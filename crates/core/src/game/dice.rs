//! Dice, keeps and the combinatorics of five or six six-sided dice.
//!
//! A hand of dice is a multiset: the order of the dice never matters, so a hand is stored as
//! the count of each face. Every multiset of at most six dice gets a dense index
//! ([`Multiset`]), ordered by size: the 462 multisets of at most five dice come first, in the
//! same order whatever the game, so a game of five dice uses the first 462 (its 252 rolls at
//! 210..462) and a game of six all 924 (its 462 rolls at 462..924). What depends on the number
//! of dice, the ranges of keeps and rolls and the number of throws, is a [`DiceSpace`]. The
//! solver walks this lattice by adding one die (the expectation over a re-rolled die) and by
//! removing one die (the best keep among the sub-multisets of a roll), so both moves are
//! precomputed once in the kernel's [`Lattice`] (`yahtzee-kernel`, re-exported here).
//!
//! Dice enter the program in two ways, and each has one door here: written as text
//! ([`parse_faces`], the one parser behind `--dice`, the game's commands and typed dice) or
//! drawn from a seed ([`DiceRng`], the one die roller of `play`, `review` and `simulate`).
//! A roll read without its game holds five or six dice; where it meets the game,
//! [`DiceSpace::parse`] and [`DiceSpace::check`] hold it to the game's number, saying it.
//! Every refusal is a [`DiceError`].

use std::fmt;
use std::sync::LazyLock;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::text::{excerpt, plural};

/// Number of dice in the games of five dice (every game but the six-dice ones, whose
/// [`DiceSpace`] says six): the front ends' dice, parsed and shown.
pub const DICE: usize = 5;
use yahtzee_kernel::lattice::Space;
pub use yahtzee_kernel::lattice::{
    ALL_MULTISETS, Counts, FACES, FIRST_ROLL, Lattice, MAX_DICE, MAX_ROLLS, MULTISETS, Multiset,
    ROLLS,
};

/// The dice of a game, five or six, and what follows from their number: which multisets are
/// its keeps and which its rolls, and how many ordered throws all the dice have. The solver's
/// loops take their lengths from it, so one kernel serves both.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct DiceSpace {
    dice: u8,
}

impl DiceSpace {
    /// Five dice: Yahtzee, Yacht, Yatzy.
    pub const FIVE: DiceSpace = DiceSpace { dice: 5 };
    /// Six dice: Maxi Yatzy.
    pub const SIX: DiceSpace = DiceSpace { dice: 6 };

    /// The space of `dice` dice, when it is five or six.
    pub const fn of(dice: usize) -> Option<DiceSpace> {
        match dice {
            5 => Some(DiceSpace::FIVE),
            6 => Some(DiceSpace::SIX),
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
        self.space().multisets()
    }

    /// Index of the first roll (210 or 462): the keeps of fewer dice come before.
    #[inline(always)]
    pub const fn first_roll(self) -> usize {
        self.space().first_roll()
    }

    /// The same dice as the kernel sees them.
    #[inline(always)]
    pub const fn space(self) -> Space {
        match Space::of(self.dice as usize) {
            Some(space) => space,
            None => panic!("a game has five or six dice"),
        }
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

    /// Every distinct roll, in index order.
    pub fn all_rolls(self) -> impl Iterator<Item = Dice> {
        (self.first_roll()..self.multisets()).map(Dice::from_index)
    }

    /// The roll of all the dice showing these faces.
    pub fn dice_of(self, faces: &[u8]) -> Result<Dice, DiceError> {
        let counts = check_faces(faces, FaceCount::OfGame(self.dice()), &faces_text(faces))?;
        Ok(Dice { counts })
    }

    /// The roll written in `text` (`1,3,3,5,6`, `13356`: see [`parse_faces`]), as many faces
    /// as the game has dice; a wrong count's error names the game's number of dice.
    pub fn parse(self, text: &str) -> Result<Dice, DiceError> {
        self.dice_of(&parse_faces(text, FaceCount::OfGame(self.dice()))?)
    }

    /// `dice` when they are a roll of this game (as many dice as it has), else the error
    /// that names the game's number of dice: where dice read without the game (a JSON
    /// array, a record) meet it.
    pub fn check(self, dice: Dice) -> Result<Dice, DiceError> {
        self.dice_of(&dice.faces())
    }

    /// The keep of these faces: at most as many as the game has dice.
    pub fn keep_of(self, faces: &[u8]) -> Result<Keep, DiceError> {
        let counts = check_faces(faces, FaceCount::AtMost(self.dice()), &faces_text(faces))?;
        Ok(Keep { counts })
    }
}

/// How many faces a text or a list of dice must give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaceCount {
    /// Exactly this many: five for a roll, fewer for the re-rolled dice typed at a real table.
    Exactly(usize),
    /// Exactly the dice of a game (five or six): a roll, whose error names the game's dice.
    OfGame(usize),
    /// Zero to this many: a keep (of up to five dice, or six).
    AtMost(usize),
}

impl FaceCount {
    fn allows(self, n: usize) -> bool {
        match self {
            FaceCount::Exactly(k) | FaceCount::OfGame(k) => n == k,
            FaceCount::AtMost(k) => n <= k,
        }
    }
}

impl fmt::Display for FaceCount {
    /// What to give, with an example in both written forms: `exactly five faces from 1 to 6,
    /// e.g. `1,3,3,5,6` or `13356``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const EXAMPLE: [u8; MAX_DICE] = [1, 3, 3, 5, 6, 6];
        let example = |n: usize| {
            let faces = &EXAMPLE[..n.min(MAX_DICE)];
            let commas = faces.iter().map(u8::to_string).collect::<Vec<_>>();
            format!("e.g. `{}` or `{}`", commas.join(","), commas.concat())
        };
        let words = crate::text::number_word;
        match *self {
            FaceCount::Exactly(1) => write!(f, "exactly one face from 1 to 6, e.g. `4`"),
            FaceCount::Exactly(n) => {
                write!(f, "exactly {} faces from 1 to 6, {}", words(n), example(n))
            }
            FaceCount::OfGame(n) => write!(
                f,
                "exactly {} faces from 1 to 6, as the game has {} dice, {}",
                words(n),
                words(n),
                example(n)
            ),
            FaceCount::AtMost(n) => write!(
                f,
                "at most {} faces from 1 to 6, e.g. `3,3,5` or `335` (none to re-roll all)",
                words(n)
            ),
        }
    }
}

/// Dice refused: written wrong, or the wrong number of them. The one error of every place
/// dice are read (`Dice::from_str`, [`parse_faces`], [`Dice::from_faces`],
/// [`Keep::from_faces`], the game's commands and typed dice, the game record). The input is
/// quoted only through [`excerpt`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DiceError {
    /// A part is not a face: a 0, a 7, a two-digit number, a letter, or nothing between two
    /// commas. Fix: write each die as one digit from 1 to 6.
    #[error("invalid dice `{input}`: {part} is not a face; give {want}")]
    NotAFace {
        /// The whole input, as [`excerpt`] quotes it.
        input: String,
        /// The offending part, quoted (`` `7` ``), or `an empty part`.
        part: String,
        /// What is allowed.
        want: FaceCount,
    },
    /// Too many or too few dice. Fix: give as many faces as `want` says.
    #[error("invalid dice `{input}`: {got} given; give {want}")]
    Count {
        /// The whole input, as [`excerpt`] quotes it.
        input: String,
        /// How many faces were given, in words (`4 faces`).
        got: String,
        /// What is allowed.
        want: FaceCount,
    },
}

/// Checks `faces` against `want`: each face 1 to 6 and the count allowed; `input` is the text
/// the faces came from, quoted in the error.
fn check_faces(faces: &[u8], want: FaceCount, input: &str) -> Result<Counts, DiceError> {
    if let Some(f) = faces.iter().find(|f| !(1..=6).contains(*f)) {
        return Err(DiceError::NotAFace {
            input: excerpt(input),
            part: format!("`{f}`"),
            want,
        });
    }
    if !want.allows(faces.len()) {
        return Err(DiceError::Count {
            input: excerpt(input),
            got: plural(faces.len() as u64, "face", "faces"),
            want,
        });
    }
    let mut counts = [0u8; FACES];
    for &f in faces {
        counts[usize::from(f - 1)] += 1;
    }
    Ok(counts)
}

/// Numbers written `1,3,3,5,6`, `1, 3, 3, 5, 6`, `1 3 3 5 6` or `13356`: the parts between
/// commas and spaces (tabs too), or, with no separator at all, each character. `Err` holds
/// the first empty part between commas (`1,,2`), as `""`. The syntax of dice, keeps and dice
/// positions alike.
pub fn split_numbers(text: &str) -> Result<Vec<&str>, &str> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(Vec::new());
    }
    if !t.contains([',', ' ', '\t']) {
        // `13356`: one part per character (char boundaries, so any text splits safely).
        return Ok(t
            .char_indices()
            .map(|(i, c)| &t[i..i + c.len_utf8()])
            .collect());
    }
    let mut parts = Vec::new();
    for between_commas in t.split(',') {
        let words: Vec<&str> = between_commas.split_whitespace().collect();
        if words.is_empty() {
            return Err("");
        }
        parts.extend(words);
    }
    Ok(parts)
}

/// The faces written in `text` (see [`split_numbers`] for the forms), in the order given,
/// checked against `want`: the one parser of dice written as text.
pub fn parse_faces(text: &str, want: FaceCount) -> Result<Vec<u8>, DiceError> {
    let not_a_face = |part: &str| DiceError::NotAFace {
        input: excerpt(text),
        part: if part.is_empty() {
            "an empty part".to_string()
        } else {
            format!("`{}`", excerpt(part))
        },
        want,
    };
    let parts = split_numbers(text).map_err(not_a_face)?;
    let faces = parts
        .iter()
        .map(|p| match p.parse::<u8>() {
            Ok(f) if (1..=6).contains(&f) && p.len() == 1 => Ok(f),
            _ => Err(not_a_face(p)),
        })
        .collect::<Result<Vec<u8>, DiceError>>()?;
    check_faces(&faces, want, text)?;
    Ok(faces)
}

/// The faces as an error quotes a list of them: `1,3,3,5,7`.
fn faces_text(faces: &[u8]) -> String {
    faces
        .iter()
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Five dice showing faces 1 to 6, in no particular order. Serialized as its five faces in
/// ascending order (`[1,3,3,5,6]`); deserializing checks them like [`Dice::from_faces`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(try_from = "Vec<u8>", into = "Vec<u8>")]
pub struct Dice {
    counts: Counts,
}

impl Dice {
    /// Builds dice from five faces, or six (a six-dice game's roll), each 1 to 6. Where the
    /// dice meet a game, [`DiceSpace::check`] checks their number against it.
    pub fn from_faces(faces: &[u8]) -> Result<Dice, DiceError> {
        let want = FaceCount::Exactly(if faces.len() == MAX_DICE {
            MAX_DICE
        } else {
            DICE
        });
        let counts = check_faces(faces, want, &faces_text(faces))?;
        Ok(Dice { counts })
    }

    /// The roll with this dense index (`FIRST_ROLL..MULTISETS` for five dice, see
    /// [`DiceSpace`]).
    pub fn from_index(index: Multiset) -> Dice {
        let lattice = Lattice::get();
        debug_assert!((FIRST_ROLL..ALL_MULTISETS).contains(&index));
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

    /// Sum of the dice.
    pub fn sum(&self) -> u32 {
        sum_of(&self.counts)
    }

    /// Number of dice (five, or six in a six-dice game).
    pub fn len(&self) -> usize {
        self.counts.iter().map(|&c| usize::from(c)).sum()
    }

    /// Always false: a roll has dice.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The face shown by all the dice, if every die shows the same: five of a kind (six of
    /// a kind with six dice, the Maxi Yatzy).
    pub fn five_of_a_kind(&self) -> Option<u8> {
        let n = self.len();
        self.counts
            .iter()
            .position(|&c| usize::from(c) == n)
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
            (FIRST_ROLL..ALL_MULTISETS)
                .map(Dice::from_index)
                .map(|d| {
                    let mut keeps = d.keeps();
                    keeps.sort_by_cached_key(|k| (k.len(), k.faces()));
                    keeps
                })
                .collect()
        });
        &KEEPS[self.index() - FIRST_ROLL]
    }

    /// [`Dice::keeps_by_preference`] of the roll at offset `roll` (`index - FIRST_ROLL`), as
    /// multiset indices: what a scan over one turn's keep values reads, without building a
    /// [`Keep`] or looking up its index per keep. (Five dice; six: [`Dice::keep_indices_of`].)
    pub fn keep_indices_by_preference(roll: usize) -> &'static [u16] {
        Dice::keep_indices_of(FIRST_ROLL + roll)
    }

    /// [`Dice::keep_indices_by_preference`] of the roll of index `index`, of five or six
    /// dice.
    pub fn keep_indices_of(index: Multiset) -> &'static [u16] {
        static INDICES: LazyLock<Vec<Vec<u16>>> = LazyLock::new(|| {
            (FIRST_ROLL..ALL_MULTISETS)
                .map(Dice::from_index)
                .map(|d| {
                    d.keeps_by_preference()
                        .iter()
                        .map(|k| k.index() as u16)
                        .collect()
                })
                .collect()
        });
        &INDICES[index - FIRST_ROLL]
    }

    /// Every distinct roll of five dice, in index order.
    pub fn all() -> impl Iterator<Item = Dice> {
        (FIRST_ROLL..MULTISETS).map(Dice::from_index)
    }
}

impl std::str::FromStr for Dice {
    type Err = DiceError;

    /// Parses `1,3,3,5,6`, `1 3 3 5 6` or `13356` ([`parse_faces`]).
    fn from_str(s: &str) -> Result<Dice, DiceError> {
        let faces = parse_faces(s, FaceCount::Exactly(DICE))?;
        Dice::from_faces(&faces)
    }
}

impl TryFrom<Vec<u8>> for Dice {
    type Error = DiceError;

    fn try_from(faces: Vec<u8>) -> Result<Dice, DiceError> {
        Dice::from_faces(&faces)
    }
}

impl From<Dice> for Vec<u8> {
    fn from(dice: Dice) -> Vec<u8> {
        dice.faces()
    }
}

impl fmt::Display for Dice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&join_faces(&self.faces()))
    }
}

/// Dice set aside before a re-roll: a multiset of zero to six dice. Serialized as its faces
/// in ascending order (`[3,3]`); deserializing checks them like [`Keep::from_faces`], so no
/// keep of more than six dice or of a face outside 1 to 6 can be made.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(try_from = "Vec<u8>", into = "Vec<u8>")]
pub struct Keep {
    counts: Counts,
}

impl Keep {
    /// Builds a keep from its faces (0 to 6 faces, each 1 to 6; [`DiceSpace::keep_of`] checks
    /// them against a game's dice).
    pub fn from_faces(faces: &[u8]) -> Result<Keep, DiceError> {
        let counts = check_faces(faces, FaceCount::AtMost(MAX_DICE), &faces_text(faces))?;
        Ok(Keep { counts })
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

impl TryFrom<Vec<u8>> for Keep {
    type Error = DiceError;

    fn try_from(faces: Vec<u8>) -> Result<Keep, DiceError> {
        Keep::from_faces(&faces)
    }
}

impl From<Keep> for Vec<u8> {
    fn from(keep: Keep) -> Vec<u8> {
        keep.faces()
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

/// A source of dice: one die at a time, uniform on 1..=6, and throws built from it. The two
/// sources of the crate are [`DiceRng`] (a game at the table, a match) and [`GameDice`] (one
/// simulated game of many); a simulated turn is played from either.
pub trait Roll {
    /// One die, uniform on 1..=6.
    fn die(&mut self) -> u8;

    /// `n` dice, in the order rolled.
    fn dice(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.die()).collect()
    }

    /// `keep` plus fresh dice up to the game's `space` (five or six), drawn in order (the
    /// multiset grown one die at a time on the lattice: no allocation).
    fn throw(&mut self, space: DiceSpace, keep: &Keep) -> Dice {
        Dice::from_index(self.throw_index(space, keep.index()))
    }

    /// [`Roll::throw`] by multiset index: the keep of index `keep` plus fresh dice up to the
    /// dice of `space`, the roll's index.
    fn throw_index(&mut self, space: DiceSpace, keep: Multiset) -> Multiset {
        let lattice = Lattice::get();
        let mut at = keep;
        for _ in usize::from(lattice.size[keep])..space.dice() {
            at = usize::from(lattice.add[at][usize::from(self.die() - 1)]);
        }
        at
    }
}

/// The version of the dice generators ([`DiceRng`], [`GameDice`] and their throws): a seed
/// gives the same dice from every build with the same version, and every result that rolls
/// dice from a seed states it beside the program's version and commit
/// (`tables/provenance.rs`). Bump it with any change that moves a seed's dice.
/// 1: the dice before 2026-12-03; 2: each simulated game its own SplitMix64 stream
/// ([`GameDice`], commit 5bae67d); 3: a throw's fresh dice drawn at once from one output
/// (commit 8697332), the dice since.
pub const DICE_GENERATOR: u32 = 3;

/// One die from a 32-bit word by rejection sampling, so the result does not depend on any
/// library's range algorithm; `None` for a word to reject. 4_294_967_292 = 6 * 715_827_882 is
/// the largest multiple of 6 not above 2^32.
fn die_of_word(x: u32) -> Option<u8> {
    const LIMIT: u32 = 4_294_967_292;
    (x < LIMIT).then_some((x % 6) as u8 + 1)
}

/// Portable random dice: ChaCha8 from a 64-bit seed, so a seed gives the same dice on every
/// platform and build. `yahtzee play` rolls from stream 0 of its seed ([`DiceRng::new`]), a
/// match gives each game and seat its own stream ([`DiceRng::with_stream`]).
#[derive(Clone, Debug)]
pub struct DiceRng(ChaCha8Rng);

impl DiceRng {
    /// The dice of `seed` (stream 0).
    pub fn new(seed: u64) -> DiceRng {
        DiceRng::with_stream(seed, 0)
    }

    /// The dice of `seed` on its stream `stream`: independent streams of one seed.
    pub fn with_stream(seed: u64, stream: u64) -> DiceRng {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream);
        DiceRng(rng)
    }

    /// One die, uniform on 1..=6 (see [`Roll::die`]).
    pub fn die(&mut self) -> u8 {
        loop {
            if let Some(d) = die_of_word(self.0.next_u32()) {
                return d;
            }
        }
    }

    /// `n` dice, in the order rolled.
    pub fn dice(&mut self, n: usize) -> Vec<u8> {
        Roll::dice(self, n)
    }
}

impl Roll for DiceRng {
    fn die(&mut self) -> u8 {
        DiceRng::die(self)
    }
}

/// The dice of one simulated game among millions: 8 bytes of state (SplitMix64), started
/// from a hash of the seed and the game's number, so game `g` of a seed has the same dice
/// whatever the other games, the batch it is played in or the thread count. Each 64-bit
/// output gives one die from its high 32 bits (by rejection, as [`DiceRng::die`]).
#[derive(Clone, Copy, Debug)]
pub struct GameDice(u64);

/// SplitMix64's increment (the golden ratio in 64 bits).
const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's output function: a bijective mix of 64 bits.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl GameDice {
    /// The dice of game `game` of `seed`.
    pub fn of_game(seed: u64, game: u64) -> GameDice {
        GameDice(mix64(
            mix64(seed).wrapping_add(game.wrapping_mul(GOLDEN_GAMMA)) ^ game,
        ))
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN_GAMMA);
        mix64(self.0)
    }
}

impl Roll for GameDice {
    fn die(&mut self) -> u8 {
        loop {
            if let Some(d) = die_of_word((self.next_u64() >> 32) as u32) {
                return d;
            }
        }
    }

    /// The fresh dice of a throw in one draw rather than one per die: a sequence of faces
    /// uniform among the `6^k` of `k` dice (one 64-bit output's high 32 bits, by rejection
    /// below the largest multiple of `6^k`: the result depends on no library's range
    /// algorithm), whose multiset is added to the keep's. The roll is read from
    /// [`ThrowRolls`]: one lookup and no division.
    fn throw_index(&mut self, space: DiceSpace, keep: Multiset) -> Multiset {
        let rolls = ThrowRolls::of(space.dice());
        let Some(&(start, k)) = rolls.start.get(keep) else {
            return keep;
        };
        let k = usize::from(k);
        loop {
            let x = (self.next_u64() >> 32) as u32;
            if x < rolls.limit[k] {
                let s = fast_mod(x, rolls.sequences[k], rolls.inverse[k]);
                return usize::from(rolls.roll[start as usize + s as usize]);
            }
        }
    }
}

/// `x % d` without a division, `inverse` being `u64::MAX / d + 1` (Lemire, Kaser and Kurz,
/// "Faster remainder by direct computation", 2019: exact for every 32-bit `x` and `d > 1`).
#[inline(always)]
fn fast_mod(x: u32, d: u32, inverse: u64) -> u32 {
    ((u128::from(inverse.wrapping_mul(u64::from(x))) * u128::from(d)) >> 64) as u32
}

/// The throws of a game of `n` dice drawn at once ([`GameDice`]), as one table: for the keep
/// of index `i` (fewer than `n` dice, `k` missing) and each sequence `s` of the `6^k` faces
/// of its missing dice, the roll's index `roll[start[i].0 + s]`; for each `k`, `6^k`, the
/// rejection limit (the largest multiple of `6^k` not above 2^32 - 1) and the inverse of
/// [`fast_mod`]. Built from [`Throws`], so a throw is the one the multisets' codes give.
struct ThrowRolls {
    /// By keep index: where its rolls start in `roll`, and `k`.
    start: Vec<(u32, u8)>,
    roll: Vec<u16>,
    sequences: [u32; MAX_DICE + 1],
    limit: [u32; MAX_DICE + 1],
    inverse: [u64; MAX_DICE + 1],
}

impl ThrowRolls {
    /// The table of the games of `n` dice (five or six), built once on first use.
    fn of(n: usize) -> &'static ThrowRolls {
        static FIVE: LazyLock<ThrowRolls> = LazyLock::new(|| ThrowRolls::build(5));
        static SIX: LazyLock<ThrowRolls> = LazyLock::new(|| ThrowRolls::build(6));
        if n == 6 { &SIX } else { &FIVE }
    }

    fn build(n: usize) -> ThrowRolls {
        let throws = Throws::get();
        let lattice = Lattice::get();
        let mut start = Vec::new();
        let mut roll = Vec::new();
        for keep in 0..Space::of(n).expect("five or six dice").first_roll() {
            let k = n - usize::from(lattice.size[keep]);
            start.push((roll.len() as u32, k as u8));
            roll.extend(
                throws.code[k]
                    .iter()
                    .map(|&thrown| lattice.index_by_code[(throws.code_of[keep] + thrown) as usize]),
            );
        }
        let sequences = throws.sequences;
        ThrowRolls {
            start,
            roll,
            sequences,
            limit: sequences.map(|d| u32::MAX - u32::MAX % d),
            inverse: sequences.map(|d| (u64::MAX / u64::from(d)).wrapping_add(1)),
        }
    }
}

/// What a throw of `k` dice drawn at once needs ([`GameDice`]): for each `k`, the base-7 code
/// (as [`Lattice`] indexes multisets by) of the multiset of each of the `6^k` sequences of
/// faces; the code of each multiset. A keep's code plus the thrown dice's code is the roll's
/// code: no face is counted more than six times, so no digit carries.
struct Throws {
    /// `6^k`.
    sequences: [u32; MAX_DICE + 1],
    /// `code[k][s]`: the code of the multiset of sequence `s` of `k` faces.
    code: [Vec<u32>; MAX_DICE + 1],
    /// The code of each multiset, by index.
    code_of: Vec<u32>,
}

impl Throws {
    fn get() -> &'static Throws {
        static THROWS: LazyLock<Throws> = LazyLock::new(|| {
            let lattice = Lattice::get();
            let sequences = std::array::from_fn(|k| 6u32.pow(k as u32));
            let code = std::array::from_fn(|k| {
                (0..6usize.pow(k as u32))
                    .map(|mut s| {
                        let mut counts: Counts = [0; FACES];
                        for _ in 0..k {
                            counts[s % 6] += 1;
                            s /= 6;
                        }
                        Lattice::code(&counts) as u32
                    })
                    .collect()
            });
            let code_of = lattice
                .counts
                .iter()
                .map(|c| Lattice::code(c) as u32)
                .collect();
            Throws {
                sequences,
                code,
                code_of,
            }
        });
        &THROWS
    }
}

impl From<DiceSpace> for Space {
    fn from(space: DiceSpace) -> Space {
        space.space()
    }
}

impl From<Space> for DiceSpace {
    fn from(space: Space) -> DiceSpace {
        DiceSpace {
            dice: space.dice() as u8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A throw drawn at once has the chances of dice thrown one by one: every roll of five
    /// fresh dice, and the rolls from a keep of three, within five standard errors of their
    /// exact chances over 700,000 throws (the codes add up to the right roll).
    #[test]
    fn game_dice_throw_with_the_chances_of_dice() {
        let lattice = Lattice::get();
        let n = 700_000u32;
        let mut dice = GameDice::of_game(1, 2);
        let mut five = vec![0u32; MULTISETS];
        let keep = Keep::from_faces(&[2, 2, 6]).unwrap().index();
        let mut two = vec![0u32; MULTISETS];
        for _ in 0..n {
            five[dice.throw_index(DiceSpace::FIVE, 0)] += 1;
            two[dice.throw_index(DiceSpace::FIVE, keep)] += 1;
        }
        let check = |counts: &[u32], chance: &dyn Fn(usize) -> f64| {
            for (i, &c) in counts.iter().enumerate() {
                let p = chance(i);
                let se = (p * (1.0 - p) / f64::from(n)).sqrt();
                let seen = f64::from(c) / f64::from(n);
                assert!(
                    (seen - p).abs() <= 5.0 * se + 1e-12,
                    "{i}: {seen} against {p}"
                );
            }
        };
        check(&five, &|i| {
            if i >= FIRST_ROLL {
                lattice.roll_probability[i - FIRST_ROLL]
            } else {
                0.0
            }
        });
        // From 2 2 6: two fresh dice, 36 equally likely sequences.
        let mut from_keep = vec![0.0; MULTISETS];
        for a in 0..FACES {
            for b in 0..FACES {
                let at = lattice.add[lattice.add[keep][a] as usize][b] as usize;
                from_keep[at] += 1.0 / 36.0;
            }
        }
        check(&two, &|i| from_keep[i]);
        // A keep of five dice draws nothing.
        let roll = FIRST_ROLL + 17;
        let before = dice;
        assert_eq!(dice.throw_index(DiceSpace::FIVE, roll), roll);
        assert_eq!(dice.next_u64(), before.clone().next_u64());
    }

    #[test]
    fn lattice_has_462_multisets_and_252_rolls() {
        let l = Lattice::get();
        assert_eq!(l.counts.len(), ALL_MULTISETS);
        assert_eq!(
            l.size[..MULTISETS].iter().filter(|&&s| s == 5).count(),
            ROLLS
        );
        assert!(l.size[..FIRST_ROLL].iter().all(|&s| s < 5));
    }

    #[test]
    fn six_dice_extend_the_lattice_of_five() {
        let l = Lattice::get();
        let six = DiceSpace::SIX;
        assert_eq!(
            (six.multisets(), six.first_roll(), six.rolls()),
            (924, 462, 462)
        );
        assert_eq!(
            l.size[six.first_roll()..]
                .iter()
                .filter(|&&s| s == 6)
                .count(),
            462
        );
        // The five-dice lattice is the prefix: its indices do not move.
        for d in Dice::all() {
            assert!((FIRST_ROLL..MULTISETS).contains(&d.index()));
        }
        let total: f64 = l.roll_probabilities(six).iter().sum();
        assert!((total - 1.0).abs() < 1e-12);
        assert_eq!(l.roll_probabilities(DiceSpace::FIVE), l.roll_probability);
        // Every keep of fewer than six dice plus one die is a multiset one die larger.
        for i in 0..six.first_roll() {
            for &j in &l.add[i] {
                assert_eq!(l.size[usize::from(j)], l.size[i] + 1);
            }
        }
        let maxi = six.dice_of(&[4; 6]).unwrap();
        assert_eq!(maxi.five_of_a_kind(), Some(4));
        assert_eq!(maxi.keeps().len(), 7);
        assert_eq!(Dice::keep_indices_of(maxi.index()).len(), 7);
        assert!(six.dice_of(&[1, 2, 3, 4, 5]).is_err());
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
    fn dice_errors_say_what_is_wrong_and_what_is_allowed() {
        let err = |text: &str, want| parse_faces(text, want).unwrap_err().to_string();
        let five = FaceCount::Exactly(DICE);
        assert_eq!(
            err("1,3,3,5", five),
            "invalid dice `1,3,3,5`: 4 faces given; give exactly five faces from 1 to 6, e.g. `1,3,3,5,6` or `13356`"
        );
        assert!(err("1,2,3,4,7", five).contains("`7` is not a face"));
        assert!(err("12a45", five).contains("`a` is not a face"));
        assert!(err("1,2,,3,4", five).contains("an empty part is not a face"));
        assert!(err("10 2 3 4 5", five).contains("`10` is not a face"));
        assert!(err("1 2", FaceCount::Exactly(3)).contains("give exactly three faces"));
        assert!(err("7", FaceCount::Exactly(1)).contains("exactly one face from 1 to 6"));
        assert!(
            err("333333", FaceCount::AtMost(DICE)).contains("6 faces given; give at most five")
        );
        assert!(
            Dice::from_faces(&[1, 2, 3, 4, 0])
                .unwrap_err()
                .to_string()
                .contains("`0` is not a face")
        );
        assert!(
            Keep::from_faces(&[1; 7])
                .unwrap_err()
                .to_string()
                .contains("`1,1,1,1,1,1,1`: 7 faces")
        );
        assert!(
            DiceSpace::FIVE
                .keep_of(&[1; 6])
                .unwrap_err()
                .to_string()
                .contains("`1,1,1,1,1,1`: 6 faces given; give at most five")
        );
    }

    #[test]
    fn dice_errors_quote_an_excerpt_of_the_input_on_one_line() {
        let long = format!("1\n{}", "9".repeat(1_000_000));
        for text in [long.as_str(), "1\n2\n3\n4\n5\n6", "\u{1b}[31m12345"] {
            let e = text.parse::<Dice>().unwrap_err().to_string();
            assert!(e.len() < 300, "{} bytes", e.len());
            assert!(!e.contains(['\n', '\u{1b}']), "{e}");
        }
    }

    #[test]
    fn every_written_form_of_dice_gives_the_same_faces() {
        for text in [
            "1,3,3,5,6",
            "13356",
            " 1 3 3 5 6 ",
            "1, 3, 3, 5, 6",
            "1\t3\t3\t5\t6",
        ] {
            assert_eq!(
                parse_faces(text, FaceCount::Exactly(DICE)),
                Ok(vec![1, 3, 3, 5, 6]),
                "{text:?}"
            );
        }
        assert_eq!(parse_faces("", FaceCount::AtMost(DICE)), Ok(vec![]));
        assert_eq!(parse_faces("6 1", FaceCount::AtMost(DICE)), Ok(vec![6, 1]));
    }

    #[test]
    fn keep_of_seven_dice_of_one_face_does_not_deserialize() {
        // The derived Deserialize took the private counts as written: {"counts":[6,0,0,0,0,0]}
        // made a keep of six dice whose index() then panicked (when the lattice held five).
        assert!(serde_json::from_str::<Keep>(r#"{"counts":[6,0,0,0,0,0]}"#).is_err());
        for bad in ["[1,1,1,1,1,1,1]", "[7]", "[0]", "[3,3,256]"] {
            assert!(serde_json::from_str::<Keep>(bad).is_err(), "{bad}");
        }
        let keep: Keep = serde_json::from_str("[3,1,3]").unwrap();
        assert_eq!(keep.faces(), vec![1, 3, 3]);
        assert_eq!(keep.index(), Keep::from_index(keep.index()).index());
        assert_eq!(serde_json::to_string(&keep).unwrap(), "[1,3,3]");
        let dice: Dice = serde_json::from_str("[6,5,3,3,1]").unwrap();
        assert_eq!(serde_json::to_string(&dice).unwrap(), "[1,3,3,5,6]");
        assert!(serde_json::from_str::<Dice>("[1,3,3,5]").is_err());
        // Six dice are a roll, which a game of five refuses naming its dice.
        let six: Dice = serde_json::from_str("[1,1,1,1,1,1]").unwrap();
        assert_eq!(DiceSpace::SIX.check(six), Ok(six));
        let err = DiceSpace::FIVE.check(six).unwrap_err().to_string();
        assert!(
            err.contains(
                "6 faces given; give exactly five faces from 1 to 6, as the game has five dice"
            ),
            "{err}"
        );
        let err = DiceSpace::SIX.parse("1,2,3,4,5").unwrap_err().to_string();
        assert!(err.contains("5 faces given; give exactly six faces from 1 to 6, as the game has six dice, e.g. `1,3,3,5,6,6`"), "{err}");
        assert!(
            DiceSpace::FIVE.keep_of(&[1; 6]).is_err() && DiceSpace::SIX.keep_of(&[1; 6]).is_ok()
        );
    }

    #[test]
    fn seed_42_rolls_these_dice() {
        // Pinned: `yahtzee play --seed 42` rolls these first, and a recorded seeded game
        // replays only while they stay the same. A change of generator, of seeding or of
        // the die draw changes them.
        assert_eq!(
            DiceRng::new(42).dice(20),
            [4, 4, 5, 1, 3, 3, 5, 4, 1, 3, 3, 4, 3, 4, 5, 6, 1, 5, 5, 4]
        );
        assert_eq!(
            DiceRng::with_stream(42, 1).dice(20),
            [5, 6, 4, 1, 4, 3, 5, 2, 1, 2, 3, 5, 3, 5, 2, 2, 6, 4, 5, 2]
        );
        let mut rng = DiceRng::new(42);
        let keep = Keep::from_faces(&[6, 6]).unwrap();
        assert_eq!(
            rng.throw(DiceSpace::FIVE, &keep).faces(),
            vec![4, 4, 5, 6, 6]
        );
    }

    #[test]
    fn seeded_dice_are_uniform_enough() {
        let mut rng = DiceRng::new(7);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[usize::from(rng.die() - 1)] += 1;
        }
        // Each face 10,000 +- 5 standard deviations (~91).
        assert!(
            counts.iter().all(|&c| (9_550..10_450).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn a_game_s_dice_are_uniform_and_its_own() {
        // Faces and pairs of consecutive dice over many games, each from its own start: every
        // face 1/6 and every ordered pair 1/36 within 5 standard deviations.
        let (games, per_game) = (20_000u64, 6usize);
        let mut faces = [0u32; 6];
        let mut pairs = [[0u32; 6]; 6];
        for g in 0..games {
            let mut dice = GameDice::of_game(3, g);
            let rolled = Roll::dice(&mut dice, per_game);
            for w in rolled.windows(2) {
                pairs[usize::from(w[0] - 1)][usize::from(w[1] - 1)] += 1;
            }
            for &f in &rolled {
                faces[usize::from(f - 1)] += 1;
            }
        }
        let n = (games * per_game as u64) as f64;
        let sd = (n * (1.0 / 6.0) * (5.0 / 6.0)).sqrt();
        assert!(
            faces
                .iter()
                .all(|&c| (f64::from(c) - n / 6.0).abs() < 5.0 * sd),
            "{faces:?}"
        );
        let np = (games * (per_game as u64 - 1)) as f64;
        let sdp = (np / 36.0 * (35.0 / 36.0)).sqrt();
        for row in &pairs {
            assert!(
                row.iter()
                    .all(|&c| (f64::from(c) - np / 36.0).abs() < 5.0 * sdp),
                "{pairs:?}"
            );
        }
        // A game's dice depend on the seed and its number only.
        let first = |seed, g| Roll::dice(&mut GameDice::of_game(seed, g), 10);
        assert_eq!(first(3, 17), first(3, 17));
        assert_ne!(first(3, 17), first(3, 18));
        assert_ne!(first(3, 17), first(4, 17));
    }

    /// The remainder without a division is the remainder, for every divisor a throw uses and
    /// words at both ends of the range and in between.
    #[test]
    fn fast_mod_is_the_remainder() {
        let rolls = ThrowRolls::of(6);
        for k in 1..=MAX_DICE {
            let d = rolls.sequences[k];
            let words = (0..=u32::MAX)
                .step_by(65_537)
                .chain([u32::MAX, u32::MAX - 1, d, d - 1]);
            for x in words {
                assert_eq!(fast_mod(x, d, rolls.inverse[k]), x % d, "{x} % {d}");
            }
        }
    }

    #[test]
    fn a_throw_is_the_keep_and_the_next_dice() {
        // The throw of a `Roll` that draws die by die (a simulation's `GameDice` draws a
        // throw's dice at once: `game_dice_throw_with_the_chances_of_dice`).
        let keep = Keep::from_faces(&[6, 2]).unwrap();
        for g in 0..200 {
            let (mut a, mut b) = (DiceRng::with_stream(9, g), DiceRng::with_stream(9, g));
            let mut faces = keep.faces();
            faces.extend(Roll::dice(&mut a, 3));
            assert_eq!(
                b.throw(DiceSpace::FIVE, &keep),
                Dice::from_faces(&faces).unwrap()
            );
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
