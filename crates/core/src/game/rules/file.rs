//! Rules files: a game of the family described in TOML, checked on load and turned into the
//! same [`RuleSet`] description every built-in rule set is, so that the solver, the tables,
//! the policies and the front ends work for it unchanged.
//!
//! The built-in rule sets are such files too (`data/rules/*.toml`, embedded in the program):
//! a name on the command line loads its shipped file by the same path as a file the user
//! gives. A file is checked field by field; each mistake is one [`RulesFileError`] naming its
//! line, the field and what is allowed.
//!
//! A loaded description is interned: loaded again (from the same or another file) it is the
//! same `&'static RuleSet`, so a long-running front end never holds two copies. A file whose
//! description is a built-in one under the built-in's name *is* that built-in (its tables, its
//! records); any other file's rule set is named `NAME-DIGEST`, the first 16 hexadecimal digits
//! of the SHA-256 of what it describes ([`GameDigest`]), so that its table files never
//! collide with another's. A table's header holds the whole digest, compared on every load
//! (`tables::container`): a table of other rules is never used for it, even for rules forged
//! to collide (a CRC-32, linear, was forged in 80 tries; issue 45).

use std::path::Path;
use std::sync::{LazyLock, Mutex};

use serde::Deserialize;
use toml::Spanned;

use super::{
    Category, Joker, MAX_BOXES, MAX_ROLLS_A_TURN, MAX_UPPER_THRESHOLD, Order, RuleSet, Rules,
    Scoring, Section, Sum, UpperBonus, normalise,
};
use crate::game::dice::{DiceSpace, FACES};
use crate::text::excerpt;

/// The rules files shipped with the program (`data/rules/`), embedded so that the program
/// works from any folder: each built-in rule set's name and its file's text, in the order of
/// `shared/RULES.md`.
pub const SHIPPED: [(&str, &str); 7] = [
    (
        "yahtzee",
        include_str!("../../../../../data/rules/yahtzee.toml"),
    ),
    (
        "yahtzee-free-joker",
        include_str!("../../../../../data/rules/yahtzee-free-joker.toml"),
    ),
    (
        "yahtzee-plain",
        include_str!("../../../../../data/rules/yahtzee-plain.toml"),
    ),
    (
        "yacht",
        include_str!("../../../../../data/rules/yacht.toml"),
    ),
    (
        "yatzy",
        include_str!("../../../../../data/rules/yatzy.toml"),
    ),
    (
        "yacht-dice",
        include_str!("../../../../../data/rules/yacht-dice.toml"),
    ),
    (
        "maxi-yatzy",
        include_str!("../../../../../data/rules/maxi-yatzy.toml"),
    ),
];

/// The largest rules file read, in bytes: a card of 20 boxes with long aliases and comments
/// is a few kilobytes.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;

/// The most points a box or a bonus may be worth: the solver keeps a box's points for each
/// roll in a byte (`yahtzee_kernel::ScoreTable`), and the target and win tables hold a vector
/// per state as long as the highest score still reachable, so points are kept in the range
/// of the family's games (Maxi Yatzy's 100 is the largest).
pub const MAX_POINTS: u32 = yahtzee_kernel::MAX_POINTS;

/// The longest name, title or alias.
const MAX_NAME: usize = 40;

/// A mistake in a rules file: where, and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct RulesFileError {
    /// The line of the mistake, from 1.
    pub line: usize,
    /// The field and what is allowed, in one line.
    pub message: String,
}

/// A game as a rules file describes it, checked: owned data, made into a [`RuleSet`] by
/// [`Description::intern`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description {
    /// The name in the file.
    pub name: String,
    /// What it is, in one line.
    pub summary: String,
    /// The boxes in card order.
    pub boxes: Vec<BoxDescription>,
    /// The upper bonus, if any.
    pub upper_bonus: Option<UpperBonus>,
    /// The bonus for each further five of a kind, if any.
    pub five_of_a_kind_bonus: Option<u32>,
    /// The Joker convention.
    pub joker: Joker,
    /// The fill order.
    pub order: Order,
    /// The dice: five or six.
    pub dice: DiceSpace,
    /// Rolls a turn: 1 to [`MAX_ROLLS_A_TURN`].
    pub rolls: u8,
    /// The rule of saved rolls.
    pub saved_rolls: bool,
}

/// One box of a [`Description`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoxDescription {
    /// The name used on the command line and in files.
    pub name: String,
    /// The box as printed on a score card.
    pub title: String,
    /// Other names accepted for it.
    pub aliases: Vec<String>,
    /// Its section.
    pub section: Section,
    /// How it scores.
    pub scoring: Scoring,
}

impl Description {
    /// The description of a rule set under `order`.
    pub fn of(set: &RuleSet, order: Order) -> Description {
        Description {
            name: set.name.to_string(),
            summary: set.summary.to_string(),
            boxes: set
                .boxes
                .iter()
                .map(|c| BoxDescription {
                    name: c.name.to_string(),
                    title: c.title.to_string(),
                    aliases: c.aliases.iter().map(|a| a.to_string()).collect(),
                    section: c.section,
                    scoring: c.scoring,
                })
                .collect(),
            upper_bonus: set.upper_bonus,
            five_of_a_kind_bonus: set.five_of_a_kind_bonus,
            joker: set.joker,
            order,
            dice: set.dice,
            rolls: set.rolls,
            saved_rolls: set.saved_rolls,
        }
    }

    /// True when both describe the same game: the same boxes (names, titles, aliases,
    /// scoring), bonuses and Joker, whatever their name, summary and order.
    pub fn same_game(&self, other: &Description) -> bool {
        self.game_text() == other.game_text()
    }

    /// What the game is, as text: everything but the name, the summary and the order. Its
    /// SHA-256 is the game's identity ([`Description::digest`]).
    pub fn game_text(&self) -> String {
        // The dice are named only when they are not five, so that every game of five dice
        // keeps the text it had before six dice.
        let dice = match self.dice.dice() {
            5 => String::new(),
            n => format!("|dice={n}"),
        };
        // Likewise the rolls a turn, named only when they are not three.
        let rolls = match self.rolls {
            3 => String::new(),
            n => format!("|rolls={n}"),
        };
        // And the rule of saved rolls, only when it applies.
        let saved = if self.saved_rolls { "|saved_rolls" } else { "" };
        format!(
            "{:?}|{:?}|{:?}|{:?}{dice}{rolls}{saved}",
            self.boxes, self.upper_bonus, self.five_of_a_kind_bonus, self.joker
        )
    }

    /// The identity of the game described (see [`Description::same_game`]): the SHA-256 of
    /// its description as text, what a table's header holds and every load compares.
    pub fn digest(&self) -> GameDigest {
        use sha2::Digest as _;
        GameDigest(sha2::Sha256::digest(self.game_text().as_bytes()).into())
    }

    /// The rule set of this description, made once per game and kept for the life of the
    /// program: a built-in one when this is a built-in game under its name, else the one
    /// made by the first load of the same game (the same name and [`Description::digest`]).
    /// `file` is the path it was read from, for the command lines suggested in messages.
    ///
    /// A game's name is `NAME-` and the first 16 hexadecimal digits of its digest; should
    /// another game loaded in this run already hold that name (a collision of 64 bits, which
    /// only a forgery makes), this one is named with its whole digest: two games never share
    /// a name within a run.
    pub fn intern(&self, file: Option<&Path>) -> Rules {
        let set = if let Some(&set) = RuleSet::all()
            .iter()
            .find(|s| s.name == self.name && Description::of(s, self.order).same_game(self))
        {
            set
        } else {
            let digest = self.digest();
            let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
            let short = format!("{}-{}", self.name, digest.short());
            let id = match loaded.iter().find(|l| l.set.name == short) {
                Some(l) if l.digest != digest => format!("{}-{digest}", self.name),
                _ => short,
            };
            match loaded.iter().find(|l| l.set.name == id) {
                Some(l) => l.set,
                None => {
                    let set = self.leak(id, file.map(|p| p.display().to_string()));
                    loaded.push(Loaded {
                        set,
                        scores: scores_of(set),
                        digest,
                    });
                    set
                }
            }
        };
        Rules::with_order(set, self.order)
    }

    /// A rule set made of this description, named `name`, kept for the life of the program.
    fn leak(&self, name: String, file: Option<String>) -> &'static RuleSet {
        fn text(s: &str) -> &'static str {
            Box::leak(s.to_string().into_boxed_str())
        }
        let boxes: Vec<Category> = self
            .boxes
            .iter()
            .map(|b| Category {
                name: text(&b.name),
                title: text(&b.title),
                aliases: Box::leak(
                    b.aliases
                        .iter()
                        .map(|a| text(a))
                        .collect::<Vec<_>>()
                        .into_boxed_slice(),
                ),
                section: b.section,
                scoring: b.scoring,
            })
            .collect();
        Box::leak(Box::new(RuleSet {
            name: text(&name),
            summary: text(&self.summary),
            boxes: Box::leak(boxes.into_boxed_slice()),
            upper_bonus: self.upper_bonus,
            five_of_a_kind_bonus: self.five_of_a_kind_bonus,
            joker: self.joker,
            file: file.as_deref().map(text),
            dice: self.dice,
            rolls: self.rolls,
            saved_rolls: self.saved_rolls,
        }))
    }

    /// The description as a rules file, which [`parse`] reads back to the same description.
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        let quoted = |s: &str| serde_json::to_string(s).expect("a string always serializes");
        let line = |out: &mut String, key: &str, value: String| {
            out.push_str(&format!("{key} = {value}\n"));
        };
        line(&mut out, "name", quoted(&self.name));
        line(&mut out, "summary", quoted(&self.summary));
        line(&mut out, "dice", self.dice.dice().to_string());
        line(&mut out, "rolls", self.rolls.to_string());
        if self.saved_rolls {
            line(&mut out, "saved_rolls", "true".to_string());
        }
        line(
            &mut out,
            "upper_first",
            (self.order == Order::UpperFirst).to_string(),
        );
        line(&mut out, "joker", quoted(joker_word(self.joker)));
        if let Some(p) = self.five_of_a_kind_bonus {
            line(&mut out, "five_of_a_kind_bonus", p.to_string());
        }
        if let Some(b) = self.upper_bonus {
            out.push_str(&format!(
                "upper_bonus = {{ threshold = {}, points = {} }}\n",
                b.threshold, b.points
            ));
        }
        for b in &self.boxes {
            out.push_str("\n[[box]]\n");
            line(&mut out, "name", quoted(&b.name));
            line(&mut out, "title", quoted(&b.title));
            let aliases: Vec<String> = b.aliases.iter().map(|a| quoted(a)).collect();
            line(&mut out, "aliases", format!("[{}]", aliases.join(", ")));
            let points = |out: &mut String, p: Option<u32>| match p {
                Some(p) => line(out, "points", p.to_string()),
                None => line(out, "score", quoted("sum")),
            };
            match b.scoring {
                Scoring::Face(f) => {
                    line(&mut out, "kind", quoted("face"));
                    line(&mut out, "face", f.to_string());
                }
                Scoring::OfAKind { count, sum } => {
                    line(&mut out, "kind", quoted("of-a-kind"));
                    line(&mut out, "count", count.to_string());
                    match sum {
                        Sum::AllDice => line(&mut out, "score", quoted("sum")),
                        Sum::Matching => line(&mut out, "score", quoted("matching")),
                        Sum::Points(p) => line(&mut out, "points", p.to_string()),
                    }
                }
                Scoring::OnePair => line(&mut out, "kind", quoted("one-pair")),
                Scoring::TwoPairs => line(&mut out, "kind", quoted("two-pairs")),
                Scoring::ThreePairs => line(&mut out, "kind", quoted("three-pairs")),
                Scoring::Villa { fixed } => {
                    line(&mut out, "kind", quoted("villa"));
                    points(&mut out, fixed);
                }
                Scoring::Tower { fixed } => {
                    line(&mut out, "kind", quoted("tower"));
                    points(&mut out, fixed);
                }
                Scoring::FullHouse {
                    fixed,
                    five_of_a_kind,
                } => {
                    line(&mut out, "kind", quoted("full-house"));
                    points(&mut out, fixed);
                    if five_of_a_kind {
                        line(&mut out, "counts_five_of_a_kind", "true".to_string());
                    }
                }
                Scoring::Straight {
                    length,
                    starts,
                    points: p,
                } => {
                    line(&mut out, "kind", quoted("straight"));
                    line(&mut out, "length", length.to_string());
                    let starts: Vec<String> = (1..=FACES as u8)
                        .filter(|s| starts & (1 << (s - 1)) != 0)
                        .map(|s| s.to_string())
                        .collect();
                    line(&mut out, "starts", format!("[{}]", starts.join(", ")));
                    points(&mut out, p);
                }
                Scoring::FiveOfAKind { points: p } => {
                    line(&mut out, "kind", quoted("five-of-a-kind"));
                    line(&mut out, "points", p.to_string());
                }
                Scoring::Chance => line(&mut out, "kind", quoted("chance")),
            }
        }
        out
    }
}

/// The word of a Joker convention in a rules file.
fn joker_word(joker: Joker) -> &'static str {
    match joker {
        Joker::None => "none",
        Joker::Forced => "forced",
        Joker::Free => "free",
    }
}

/// The identity of a game: the SHA-256 of its description (see [`Description::digest`]),
/// written in hexadecimal.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameDigest(pub [u8; 32]);

impl GameDigest {
    /// The hexadecimal digits of the first 8 bytes: what the name of a rules file's game
    /// carries (`NAME-DIGEST`).
    pub fn short(&self) -> String {
        self.to_string()[..16].to_string()
    }
}

impl std::fmt::Display for GameDigest {
    /// The 64 hexadecimal digits.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl std::fmt::Debug for GameDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GameDigest({self})")
    }
}

/// The rule sets loaded from files that are not built-in, each with its possible scores per
/// box (see [`Rules::possible_scores`]).
static LOADED: Mutex<Vec<Loaded>> = Mutex::new(Vec::new());

/// A rule set loaded from a file (or made by a program), the possible scores of each of its
/// boxes and its digest.
struct Loaded {
    set: &'static RuleSet,
    scores: &'static [Vec<u32>],
    digest: GameDigest,
}

/// The possible scores of each box of `set`, kept for the life of the program.
fn scores_of(set: &'static RuleSet) -> &'static [Vec<u32>] {
    let rules = Rules::new(set);
    let scores: Vec<Vec<u32>> = (0..rules.box_count())
        .map(|i| rules.enumerate_scores(i))
        .collect();
    Box::leak(scores.into_boxed_slice())
}

/// The possible scores of each box of a rule set that is not built-in: loaded from a file, or
/// made by a program (then kept among the loaded ones from its first use).
pub(super) fn loaded_scores(set: &'static RuleSet) -> &'static [Vec<u32>] {
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(l) = loaded.iter().find(|l| l.set.name == set.name) {
        return l.scores;
    }
    let scores = scores_of(set);
    let digest = Description::of(set, Order::Any).digest();
    loaded.push(Loaded {
        set,
        scores,
        digest,
    });
    scores
}

/// The rule set loaded from a file under the name `name` (`NAME-DIGEST`), if any.
pub(super) fn loaded(name: &str) -> Option<&'static RuleSet> {
    let loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    loaded.iter().find(|l| l.set.name == name).map(|l| l.set)
}

/// The built-in rule sets, each loaded from its shipped file: the compiled description of the
/// same name ([`RuleSet::YAHTZEE`] ...) when the file describes exactly it, else made from
/// the file.
pub(super) static BUILT_IN: LazyLock<Vec<&'static RuleSet>> = LazyLock::new(|| {
    SHIPPED
        .iter()
        .map(|(name, text)| {
            let d = parse(text)
                .unwrap_or_else(|e| panic!("the shipped rules file {name}.toml is invalid: {e}"));
            RuleSet::COMPILED
                .into_iter()
                .find(|s| s.name == d.name && Description::of(s, d.order).same_game(&d))
                .unwrap_or_else(|| d.leak(d.name.clone(), None))
        })
        .collect()
});

/// Loads the rules of a file's text (read from `path`, named in messages): its rules
/// (interned, see [`Description::intern`]), or its first mistake.
pub fn load(text: &str, path: Option<&Path>) -> Result<Rules, RulesFileError> {
    Ok(parse(text)?.intern(path))
}

/// The line (from 1) of byte `offset` of `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The line (from 1) of `text` whose key (before its `=`, or a table's header) has the most
/// dotted parts.
fn line_of_longest_key(text: &str) -> usize {
    let parts = |line: &str| {
        let key = line.split('=').next().unwrap_or("");
        key.matches('.').count()
    };
    (text.lines().enumerate())
        .max_by_key(|&(i, line)| (parts(line), std::cmp::Reverse(i)))
        .map_or(1, |(i, _)| i + 1)
}

/// A field of a box, as read.
type Field<T> = Option<Spanned<T>>;

/// The file as read, before any check but TOML's and the fields' types.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    name: Spanned<String>,
    summary: Field<String>,
    dice: Spanned<i64>,
    rolls: Spanned<i64>,
    saved_rolls: Field<bool>,
    upper_first: Field<bool>,
    joker: Field<RawJoker>,
    five_of_a_kind_bonus: Field<i64>,
    upper_bonus: Field<RawBonus>,
    #[serde(rename = "box")]
    boxes: Spanned<Vec<Spanned<RawBox>>>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "kebab-case")]
enum RawJoker {
    None,
    Forced,
    Free,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBonus {
    threshold: Spanned<i64>,
    points: Spanned<i64>,
}

/// The kinds of box, the closed vocabulary of a rules file.
#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
enum BoxKind {
    Face,
    OfAKind,
    OnePair,
    TwoPairs,
    ThreePairs,
    FullHouse,
    Villa,
    Tower,
    Straight,
    Chance,
    /// All the dice one face; `all-of-a-kind` reads better for six dice (the Maxi Yatzy).
    #[serde(alias = "all-of-a-kind")]
    FiveOfAKind,
}

impl BoxKind {
    fn word(self) -> &'static str {
        match self {
            BoxKind::Face => "face",
            BoxKind::OfAKind => "of-a-kind",
            BoxKind::OnePair => "one-pair",
            BoxKind::TwoPairs => "two-pairs",
            BoxKind::ThreePairs => "three-pairs",
            BoxKind::FullHouse => "full-house",
            BoxKind::Villa => "villa",
            BoxKind::Tower => "tower",
            BoxKind::Straight => "straight",
            BoxKind::Chance => "chance",
            BoxKind::FiveOfAKind => "five-of-a-kind",
        }
    }

    /// The fields a box of this kind may have besides name, title, aliases and kind.
    fn fields(self) -> &'static [&'static str] {
        match self {
            BoxKind::Face => &["face"],
            BoxKind::OfAKind => &["count", "score", "points"],
            BoxKind::FullHouse => &["score", "points", "counts_five_of_a_kind"],
            BoxKind::Villa | BoxKind::Tower => &["score", "points"],
            BoxKind::Straight => &["length", "starts", "faces", "score", "points"],
            BoxKind::FiveOfAKind => &["points"],
            BoxKind::OnePair | BoxKind::TwoPairs | BoxKind::ThreePairs | BoxKind::Chance => &[],
        }
    }
}

/// What a box adds up.
#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum ScoreWord {
    Sum,
    Matching,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBox {
    name: Spanned<String>,
    title: Field<String>,
    aliases: Field<Vec<Spanned<String>>>,
    kind: Spanned<BoxKind>,
    face: Field<i64>,
    count: Field<i64>,
    score: Field<ScoreWord>,
    points: Field<i64>,
    length: Field<i64>,
    starts: Field<Vec<i64>>,
    faces: Field<Vec<i64>>,
    counts_five_of_a_kind: Field<bool>,
}

/// Reads and checks a rules file: its description, or its first mistake.
pub fn parse(text: &str) -> Result<Description, RulesFileError> {
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let message = e.message().trim().replace('\n', " ");
        match e.span() {
            Some(s) => RulesFileError {
                line: line_of(text, s.start),
                message,
            },
            // TOML's limit on a dotted key's parts comes without a place: the key of the
            // most parts is it.
            None if message == "recursion limit" => RulesFileError {
                line: line_of_longest_key(text),
                message: "a dotted key of 80 parts or more, more than TOML reads: the keys of a rules file are names like `dice` or `upper_bonus.points`".to_string(),
            },
            None => RulesFileError { line: 1, message },
        }
    })?;
    Checker { text }.check(raw)
}

/// Checks a file read by TOML, with its text for the lines of mistakes.
struct Checker<'a> {
    text: &'a str,
}

impl Checker<'_> {
    fn error<T>(&self, at: &std::ops::Range<usize>, message: String) -> Result<T, RulesFileError> {
        Err(RulesFileError {
            line: line_of(self.text, at.start),
            message,
        })
    }

    /// A whole number within `range`, or the error `what must be {allowed}`.
    fn number<T: TryFrom<i64>>(
        &self,
        field: &Spanned<i64>,
        what: &str,
        range: std::ops::RangeInclusive<i64>,
        allowed: &str,
    ) -> Result<T, RulesFileError> {
        let v = *field.get_ref();
        match T::try_from(v) {
            Ok(n) if range.contains(&v) => Ok(n),
            _ => self.error(&field.span(), format!("{what} must be {allowed}, not {v}")),
        }
    }

    /// A name or alias: lowercase letters, digits and hyphens once normalised.
    fn name(&self, field: &Spanned<String>, what: &str) -> Result<String, RulesFileError> {
        let name = normalise(field.get_ref());
        let ok = !name.is_empty()
            && name.len() <= MAX_NAME
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if ok {
            Ok(name)
        } else {
            self.error(
                &field.span(),
                format!(
                    "{what} must be 1 to {MAX_NAME} letters, digits and hyphens, not `{}`",
                    excerpt(field.get_ref())
                ),
            )
        }
    }

    /// A line of text shown to people: a title or a summary.
    fn words(
        &self,
        field: &Spanned<String>,
        what: &str,
        max: usize,
    ) -> Result<String, RulesFileError> {
        let text = field.get_ref().trim();
        if text.is_empty() || text.chars().count() > max || !crate::text::printable(text) {
            return self.error(
                &field.span(),
                format!(
                    "{what} must be one line of 1 to {max} printable characters (no control, format or line-separator character, such as U+202E)"
                ),
            );
        }
        Ok(text.to_string())
    }

    fn check(&self, raw: RawFile) -> Result<Description, RulesFileError> {
        let name = self.name(&raw.name, "`name` (the rule set's name)")?;
        let summary = match &raw.summary {
            Some(s) => self.words(s, "`summary`", 200)?,
            None => format!("{name}, from a rules file"),
        };
        let dice = DiceSpace::of(self.number::<usize>(
            &raw.dice,
            "`dice` (the number of dice)",
            5..=6,
            "5 or 6",
        )?)
        .expect("5 or 6 dice");
        let rolls = self.number::<u8>(
            &raw.rolls,
            "`rolls` (rolls a turn)",
            1..=i64::from(MAX_ROLLS_A_TURN),
            &format!("1 to {MAX_ROLLS_A_TURN}"),
        )?;
        let saved_rolls = raw.saved_rolls.as_ref().is_some_and(|s| *s.get_ref());
        if saved_rolls && rolls == 1 {
            let span = raw.saved_rolls.as_ref().expect("set").span();
            return self.error(
                &span,
                "`saved_rolls` needs re-rolls to save: `rolls` 2 to 4, not 1".to_string(),
            );
        }
        let boxes = self.boxes(&raw.boxes, dice)?;
        let upper = boxes.iter().any(|b| b.section == Section::Upper);
        let upper_bonus = match &raw.upper_bonus {
            None => None,
            Some(b) => {
                if !upper {
                    return self.error(
                        &b.span(),
                        "`upper_bonus` needs the six face boxes (kind = \"face\") at the top of the card".to_string(),
                    );
                }
                let b = b.get_ref();
                // All the dice showing each face once per box: 5 (or 6) × (1 + ... + 6), within
                // what the state layout tracks (126, the most of six dice).
                let most = dice.dice() as i64 * 21;
                let allowed = most.min(i64::from(MAX_UPPER_THRESHOLD));
                let t = *b.threshold.get_ref();
                if t > most {
                    return self.error(
                        &b.threshold.span(),
                        format!(
                            "`upper_bonus.threshold` {t} is impossible: the upper section adds up to at most {most}; allowed: 1 to {allowed}"
                        ),
                    );
                }
                let threshold = self.number(
                    &b.threshold,
                    "`upper_bonus.threshold`",
                    1..=allowed,
                    &format!(
                        "1 to {allowed} (the most the upper section adds up to; the state layout tracks upper totals up to {MAX_UPPER_THRESHOLD})"
                    ),
                )?;
                let points = self.points(&b.points, "`upper_bonus.points`")?;
                Some(UpperBonus { threshold, points })
            }
        };
        let fives = boxes
            .iter()
            .filter(|b| matches!(b.scoring, Scoring::FiveOfAKind { .. }))
            .count();
        let joker = match raw.joker.as_ref().map(|j| (*j.get_ref(), j.span())) {
            None | Some((RawJoker::None, _)) => Joker::None,
            Some((j, span)) => {
                if fives != 1 {
                    return self.error(
                        &span,
                        format!(
                            "`joker` needs exactly one box of kind \"five-of-a-kind\", and the card has {fives}; allowed without one: \"none\""
                        ),
                    );
                }
                match j {
                    RawJoker::Forced => Joker::Forced,
                    _ => Joker::Free,
                }
            }
        };
        let five_of_a_kind_bonus = match &raw.five_of_a_kind_bonus {
            None => None,
            Some(p) => {
                if fives != 1 {
                    return self.error(
                        &p.span(),
                        format!(
                            "`five_of_a_kind_bonus` needs exactly one box of kind \"five-of-a-kind\", and the card has {fives}"
                        ),
                    );
                }
                Some(self.points(p, "`five_of_a_kind_bonus`")?)
            }
        };
        Ok(Description {
            name,
            summary,
            boxes,
            upper_bonus,
            five_of_a_kind_bonus,
            joker,
            order: Order::upper_first(raw.upper_first.is_some_and(|u| *u.get_ref())),
            dice,
            rolls,
            saved_rolls,
        })
    }

    fn points(&self, field: &Spanned<i64>, what: &str) -> Result<u32, RulesFileError> {
        self.number(
            field,
            what,
            1..=i64::from(MAX_POINTS),
            &format!("1 to {MAX_POINTS}"),
        )
    }

    fn boxes(
        &self,
        raw: &Spanned<Vec<Spanned<RawBox>>>,
        dice: DiceSpace,
    ) -> Result<Vec<BoxDescription>, RulesFileError> {
        let n = raw.get_ref().len();
        if n == 0 || n > MAX_BOXES {
            return self.error(
                &raw.span(),
                format!(
                    "the card has {n} boxes ([[box]] tables); allowed: 1 to {MAX_BOXES} (the tables are dense over the 2^n cards: 2^20 cards of Maxi Yatzy take 713 MB of values, and each box more doubles that)"
                ),
            );
        }
        let mut out: Vec<BoxDescription> = Vec::with_capacity(n);
        // Every name and alias so far, and the box it names.
        let mut names: Vec<(String, usize)> = Vec::new();
        for (i, b) in raw.get_ref().iter().enumerate() {
            let position = i + 1;
            let at = b.span();
            let b = b.get_ref();
            let name = self.name(&b.name, &format!("box {position}: `name`"))?;
            let what = format!("box {position} (`{name}`)");
            let mut keys = vec![(name.clone(), b.name.span())];
            for a in b.aliases.iter().flat_map(|a| a.get_ref()) {
                keys.push((self.name(a, &format!("{what}: an alias"))?, a.span()));
            }
            for (key, span) in keys.iter() {
                if let Some((_, other)) = names.iter().find(|(n, _)| n == key) {
                    let other = if *other == position {
                        "this box".to_string()
                    } else {
                        format!("box {other} (`{}`)", out[*other - 1].name)
                    };
                    return self.error(
                        span,
                        format!(
                            "{what}: `{key}` already names {other}; every name and alias must be unique on the card"
                        ),
                    );
                }
                names.push((key.clone(), position));
            }
            let title = match &b.title {
                Some(t) => self.words(t, &format!("{what}: `title`"), MAX_NAME)?,
                None => title_of(&name),
            };
            let kind = *b.kind.get_ref();
            let given: [(&str, Option<std::ops::Range<usize>>); 8] = [
                ("face", b.face.as_ref().map(Spanned::span)),
                ("count", b.count.as_ref().map(Spanned::span)),
                ("score", b.score.as_ref().map(Spanned::span)),
                ("points", b.points.as_ref().map(Spanned::span)),
                ("length", b.length.as_ref().map(Spanned::span)),
                ("starts", b.starts.as_ref().map(Spanned::span)),
                ("faces", b.faces.as_ref().map(Spanned::span)),
                (
                    "counts_five_of_a_kind",
                    b.counts_five_of_a_kind.as_ref().map(Spanned::span),
                ),
            ];
            for (field, span) in given {
                if let Some(span) = span
                    && !kind.fields().contains(&field)
                {
                    let allowed = match kind.fields() {
                        [] => "no other field".to_string(),
                        f => f
                            .iter()
                            .map(|f| format!("`{f}`"))
                            .collect::<Vec<_>>()
                            .join(", "),
                    };
                    return self.error(
                        &span,
                        format!(
                            "{what}: `{field}` does not apply to kind \"{}\", which takes {allowed}",
                            kind.word()
                        ),
                    );
                }
            }
            let scoring = self.scoring(b, kind, &what, &at, dice.dice())?;
            out.push(BoxDescription {
                name,
                title,
                aliases: keys.into_iter().skip(1).map(|(k, _)| k).collect(),
                section: if kind == BoxKind::Face {
                    Section::Upper
                } else {
                    Section::Lower
                },
                scoring,
            });
        }
        // The state layout reads the upper total from the first six boxes, Ones to Sixes.
        if out.iter().any(|b| b.section == Section::Upper) {
            for (i, b) in out.iter().enumerate().take(FACES) {
                if b.scoring != Scoring::Face(i as u8 + 1) {
                    return self.error(
                        &raw.get_ref()[i].span(),
                        format!(
                            "box {} (`{}`): a card with face boxes must begin with all six, in face order: box {} must be kind = \"face\" with face = {}",
                            i + 1,
                            b.name,
                            i + 1,
                            i + 1
                        ),
                    );
                }
            }
            if out.len() < FACES {
                return self.error(
                    &raw.span(),
                    "a card with face boxes must begin with all six, Ones to Sixes".to_string(),
                );
            }
        }
        Ok(out)
    }

    /// How a box of kind `kind` scores.
    fn scoring(
        &self,
        b: &RawBox,
        kind: BoxKind,
        what: &str,
        at: &std::ops::Range<usize>,
        dice: usize,
    ) -> Result<Scoring, RulesFileError> {
        let needs = |field: &str, allowed: &str| {
            self.error::<Scoring>(
                at,
                format!(
                    "{what}: kind \"{}\" needs `{field}` ({allowed})",
                    kind.word()
                ),
            )
        };
        // A fixed score (`points`) or a sum (`score = "sum"`), exactly one.
        let fixed_or_sum = |matching: bool| -> Result<Sum, RulesFileError> {
            let words = if matching {
                "`score = \"sum\"` (all the dice), `score = \"matching\"` (the matching dice) or `points = N` (a fixed score)"
            } else {
                "`score = \"sum\"` (the sum of the dice) or `points = N` (a fixed score)"
            };
            match (&b.score, &b.points) {
                (Some(s), Some(_)) => {
                    self.error(&s.span(), format!("{what}: give one of {words}, not both"))
                }
                (None, None) => self.error(
                    at,
                    format!("{what}: kind \"{}\" needs {words}", kind.word()),
                ),
                (None, Some(p)) => Ok(Sum::Points(self.points(p, &format!("{what}: `points`"))?)),
                (Some(s), None) => match s.get_ref() {
                    ScoreWord::Sum => Ok(Sum::AllDice),
                    ScoreWord::Matching if matching => Ok(Sum::Matching),
                    ScoreWord::Matching => self.error(
                        &s.span(),
                        format!("{what}: kind \"{}\" takes {words}", kind.word()),
                    ),
                },
            }
        };
        let fixed = |sum: Sum| match sum {
            Sum::Points(p) => Some(p),
            _ => None,
        };
        Ok(match kind {
            BoxKind::Face => match &b.face {
                None => return needs("face", "1 to 6"),
                Some(f) => {
                    Scoring::Face(self.number(f, &format!("{what}: `face`"), 1..=6, "1 to 6")?)
                }
            },
            BoxKind::OfAKind => {
                let count = match &b.count {
                    None => return needs("count", &format!("2 to {dice}")),
                    Some(c) => self.number(
                        c,
                        &format!("{what}: `count`"),
                        2..=dice as i64,
                        &format!("2 to {dice}"),
                    )?,
                };
                Scoring::OfAKind {
                    count,
                    sum: fixed_or_sum(true)?,
                }
            }
            BoxKind::OnePair => Scoring::OnePair,
            BoxKind::TwoPairs => Scoring::TwoPairs,
            BoxKind::ThreePairs | BoxKind::Villa | BoxKind::Tower if dice < 6 => {
                return self.error(
                    &b.kind.span(),
                    format!(
                        "{what}: kind \"{}\" needs six dice, and this game has {dice}; allowed with five: the other kinds",
                        kind.word()
                    ),
                );
            }
            BoxKind::ThreePairs => Scoring::ThreePairs,
            BoxKind::Villa => Scoring::Villa {
                fixed: fixed(fixed_or_sum(false)?),
            },
            BoxKind::Tower => Scoring::Tower {
                fixed: fixed(fixed_or_sum(false)?),
            },
            BoxKind::FullHouse => Scoring::FullHouse {
                fixed: fixed(fixed_or_sum(false)?),
                five_of_a_kind: b
                    .counts_five_of_a_kind
                    .as_ref()
                    .is_some_and(|c| *c.get_ref()),
            },
            BoxKind::Straight => {
                let points = fixed(fixed_or_sum(false)?);
                let (length, starts) = match (&b.faces, &b.length) {
                    (Some(f), Some(_)) => {
                        return self.error(
                            &f.span(),
                            format!("{what}: give `faces` (one exact run) or `length` (with `starts`), not both"),
                        );
                    }
                    (None, None) => {
                        return needs(
                            "length",
                            "2 to 5 consecutive faces, with `starts`, or `faces` = the exact run",
                        );
                    }
                    (Some(f), None) => {
                        if b.starts.is_some() {
                            return self.error(
                                &f.span(),
                                format!("{what}: `starts` goes with `length`, not with `faces`"),
                            );
                        }
                        let faces = f.get_ref();
                        let first = faces.first().copied().unwrap_or(0);
                        let run = faces.len() >= 2
                            && faces.len() <= dice
                            && (1..=6).contains(&first)
                            && faces
                                .iter()
                                .enumerate()
                                .all(|(k, &x)| x == first + k as i64)
                            && first + faces.len() as i64 - 1 <= 6;
                        if !run {
                            return self.error(
                                &f.span(),
                                format!(
                                    "{what}: `faces` must be 2 to {dice} consecutive faces in increasing order, such as [1, 2, 3, 4, 5]"
                                ),
                            );
                        }
                        (faces.len() as u8, 1u8 << (first - 1))
                    }
                    (None, Some(l)) => {
                        let length: u8 = self.number(
                            l,
                            &format!("{what}: `length`"),
                            2..=dice as i64,
                            &format!("2 to {dice}"),
                        )?;
                        let last = 7 - i64::from(length);
                        let starts = match &b.starts {
                            None => (1u8 << last) - 1,
                            Some(s) => {
                                let mut mask = 0u8;
                                for &x in s.get_ref() {
                                    if !(1..=last).contains(&x) || mask & (1 << (x - 1)) != 0 {
                                        return self.error(
                                            &s.span(),
                                            format!(
                                                "{what}: `starts` must be distinct faces from 1 to {last} (a run of {length} from there stays on the die), not {x}"
                                            ),
                                        );
                                    }
                                    mask |= 1 << (x - 1);
                                }
                                if mask == 0 {
                                    return self.error(
                                        &s.span(),
                                        format!("{what}: `starts` must name at least one face"),
                                    );
                                }
                                mask
                            }
                        };
                        (length, starts)
                    }
                };
                Scoring::Straight {
                    length,
                    starts,
                    points,
                }
            }
            BoxKind::Chance => Scoring::Chance,
            BoxKind::FiveOfAKind => match &b.points {
                None => return needs("points", &format!("1 to {MAX_POINTS}")),
                Some(p) => Scoring::FiveOfAKind {
                    points: self.points(p, &format!("{what}: `points`"))?,
                },
            },
        })
    }
}

/// A title made of a name: `four-of-a-kind` is "Four of a kind".
fn title_of(name: &str) -> String {
    let words = name.replace('-', " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(c) => c.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text of a shipped file.
    fn shipped(name: &str) -> &'static str {
        SHIPPED.iter().find(|(n, _)| *n == name).unwrap().1
    }

    /// The first mistake of `text`, as line and message.
    fn mistake(text: &str) -> (usize, String) {
        let e = parse(text).expect_err("a mistake");
        (e.line, e.message)
    }

    /// `yacht-dice.toml` with `from` replaced by `to`.
    fn yacht_dice_with(from: &str, to: &str) -> String {
        let text = shipped("yacht-dice");
        assert!(text.contains(from), "{from}");
        text.replacen(from, to, 1)
    }

    /// The line of the first occurrence of `needle` in `text`.
    fn line_with(text: &str, needle: &str) -> usize {
        line_of(text, text.find(needle).unwrap())
    }

    #[test]
    fn every_shipped_file_loads_as_its_built_in_rule_set() {
        assert_eq!(RuleSet::all().len(), SHIPPED.len());
        for (set, (name, text)) in RuleSet::all().iter().zip(SHIPPED) {
            assert_eq!(set.name, name);
            let d = parse(text).unwrap();
            assert_eq!(d.name, name);
            assert!(Description::of(set, Order::Any).same_game(&d), "{name}");
            assert!(set.file.is_none(), "{name}");
        }
        // The original five are their compiled descriptions, loaded from the files.
        for set in RuleSet::COMPILED {
            let loaded = RuleSet::from_name(set.name).unwrap();
            assert!(std::ptr::eq(loaded, set), "{}", set.name);
            assert_eq!(
                Description::of(loaded, Order::Any),
                parse(shipped(set.name)).unwrap()
            );
        }
    }

    #[test]
    fn a_description_written_as_a_file_reads_back_the_same() {
        for &set in RuleSet::all() {
            for order in [Order::Any, Order::UpperFirst] {
                let d = Description::of(set, order);
                assert_eq!(parse(&d.to_toml()).unwrap(), d, "{}", set.name);
            }
        }
    }

    #[test]
    fn a_built_in_game_under_its_name_is_the_built_in_rule_set() {
        let d =
            parse(&shipped("yatzy").replace("upper_first = false", "upper_first = true")).unwrap();
        let rules = d.intern(Some(Path::new("my/yatzy.toml")));
        assert!(std::ptr::eq(rules.set, RuleSet::YATZY));
        assert_eq!(rules.order, Order::UpperFirst);
        assert_eq!(rules.flags(), "--rules yatzy --upper-first");
    }

    /// The digest is the SHA-256 of the game's text: 64 hexadecimal digits, of which a name
    /// carries 16; the same game has the same digest whatever its name, summary and order,
    /// and another game another.
    #[test]
    fn a_game_is_identified_by_the_sha256_of_its_description() {
        let yacht = parse(shipped("yacht")).unwrap();
        let digest = yacht.digest();
        let hex = digest.to_string();
        assert_eq!(hex.len(), 64);
        assert!(
            hex.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        assert_eq!(digest.short(), hex[..16]);
        assert_eq!(RuleSet::YACHT.digest(), digest);
        let mut renamed = yacht.clone();
        renamed.name = "other".to_string();
        renamed.summary = "another summary".to_string();
        renamed.order = Order::UpperFirst;
        assert_eq!(renamed.digest(), digest);
        let mut alias = yacht.clone();
        alias.boxes[0].aliases.push("uno".to_string());
        assert_ne!(alias.digest(), digest);
        // SHA-256 of the text, as any other implementation computes it.
        use sha2::Digest as _;
        let expected: [u8; 32] = sha2::Sha256::digest(yacht.game_text().as_bytes()).into();
        assert_eq!(digest.0, expected);
    }

    /// Should another game loaded in this run already hold a game's name (its 16 digits
    /// collide: only a forgery does), the game is named with its whole digest: two games
    /// never share a name, and so never a table, within a run.
    #[test]
    fn a_game_whose_name_is_taken_by_another_is_named_with_its_whole_digest() {
        let text = shipped("yacht")
            .replacen("name = \"yacht\"", "name = \"taken\"", 1)
            .replace("points = 50", "points = 45");
        let d = parse(&text).unwrap();
        let short = format!("taken-{}", d.digest().short());
        // Another game under that name, as a forger would make one.
        let other = parse(shipped("yacht")).unwrap().leak(short.clone(), None);
        LOADED.lock().unwrap().push(Loaded {
            set: other,
            scores: scores_of(other),
            digest: Description::of(other, Order::Any).digest(),
        });
        let rules = d.intern(None);
        assert_eq!(rules.set.name, format!("taken-{}", d.digest()));
        assert!(!std::ptr::eq(rules.set, other));
        assert_eq!(RuleSet::from_name(&short), Some(other));
        assert!(std::ptr::eq(d.intern(None).set, rules.set), "interned once");
    }

    #[test]
    fn another_game_gets_a_name_of_its_own_and_is_made_once() {
        let text = shipped("yacht").replace("points = 30", "points = 35");
        let d = parse(&text).unwrap();
        let a = d.intern(Some(Path::new("house rules/yacht.toml")));
        let b = parse(&text).unwrap().intern(None);
        assert!(std::ptr::eq(a.set, b.set), "interned once");
        assert_eq!(a.set.name, format!("yacht-{}", d.digest().short()));
        assert_eq!(a.set.name.len(), "yacht-".len() + 16);
        assert_ne!(a.set, RuleSet::YACHT);
        assert_eq!(RuleSet::from_name(a.set.name), Some(a.set));
        assert_eq!(a.flags(), "--rules 'house rules/yacht.toml'");
        let little = a.box_by_name("little-straight").unwrap();
        assert_eq!(a.possible_scores(little), &[0, 35]);
        // A comment, a summary or the order changes nothing of the game: the same name.
        let other = parse(
            &format!("# a comment\n{text}").replace("upper_first = false", "upper_first = true"),
        )
        .unwrap()
        .intern(None);
        assert!(std::ptr::eq(other.set, a.set));
    }

    #[test]
    fn yacht_dice_scores_by_its_rules() {
        let r = Rules::new(RuleSet::from_name("yacht-dice").unwrap());
        let score = |name: &str, dice: &str| {
            r.score(r.box_by_name(name).unwrap(), &dice.parse().unwrap(), 0)
        };
        assert_eq!(r.box_count(), 12);
        assert_eq!(score("full-house", "22333"), 13);
        assert_eq!(
            score("full-house", "44444"),
            20,
            "five of a kind is a full house"
        );
        assert_eq!(score("full-house", "22334"), 0);
        assert_eq!(score("four-of-a-kind", "44441"), 17);
        assert_eq!(score("four-of-a-kind", "44411"), 0);
        assert_eq!(score("small-straight", "12346"), 15);
        assert_eq!(score("small-straight", "34566"), 15);
        assert_eq!(score("small-straight", "12356"), 0);
        assert_eq!(score("large-straight", "23456"), 30);
        assert_eq!(score("large-straight", "12346"), 0);
        assert_eq!(score("choice", "12356"), 17);
        assert_eq!(score("yacht", "33333"), 50);
        assert_eq!(r.upper_bonus_points(), 35);
        assert!(!r.has_yahtzee_bonus() && r.joker() == Joker::None);
    }

    #[test]
    fn house_rule_kinds_score_as_described() {
        let four_40 = yacht_dice_with("count = 4\nscore = \"sum\"", "count = 4\npoints = 40");
        let r = parse(&four_40).unwrap().intern(None);
        let four = r.box_by_name("4k").unwrap();
        assert_eq!(r.score(four, &"44441".parse().unwrap(), 0), 40);
        assert_eq!(r.possible_scores(four), &[0, 40]);
        let summed = yacht_dice_with("length = 5\npoints = 30", "length = 5\nscore = \"sum\"");
        let r = parse(&summed).unwrap().intern(None);
        let large = r.box_by_name("large-straight").unwrap();
        assert_eq!(r.score(large, &"23456".parse().unwrap(), 0), 20);
    }

    /// Each mistake of the issue, and a few more: one line naming the line, the field and
    /// what is allowed.
    #[test]
    fn each_mistake_names_its_line_field_and_what_is_allowed() {
        let cases: Vec<(String, &str, &[&str])> = vec![
            (
                yacht_dice_with("dice = 5\n", ""),
                "# Yacht Dice",
                &["missing field `dice`"],
            ),
            (
                yacht_dice_with("kind = \"chance\"", "kind = \"sevens\""),
                "kind = \"sevens\"",
                &[
                    "unknown variant `sevens`",
                    "`of-a-kind`",
                    "`five-of-a-kind`",
                ],
            ),
            (
                yacht_dice_with("threshold = 63", "threshold = 200"),
                "threshold = 200",
                &[
                    "`upper_bonus.threshold` 200 is impossible",
                    "at most 105",
                    "allowed: 1 to 105",
                ],
            ),
            (
                yacht_dice_with("threshold = 63", "threshold = 0"),
                "threshold = 0",
                &["`upper_bonus.threshold` must be 1 to 105", "not 0"],
            ),
            (
                yacht_dice_with("dice = 5", "dice = 7"),
                "dice = 7",
                &["`dice` (the number of dice) must be 5 or 6", "not 7"],
            ),
            (
                yacht_dice_with("kind = \"chance\"", "kind = \"villa\""),
                "kind = \"villa\"",
                &["kind \"villa\" needs six dice, and this game has 5"],
            ),
            (
                yacht_dice_with("kind = \"chance\"", "kind = \"tower\"\npoints = 30"),
                "kind = \"tower\"",
                &["kind \"tower\" needs six dice"],
            ),
            (
                yacht_dice_with("count = 4\nscore = \"sum\"", "count = 6\nscore = \"sum\""),
                "count = 6",
                &["`count` must be 2 to 5", "not 6"],
            ),
            (
                yacht_dice_with("rolls = 3", "rolls = 7"),
                "rolls = 7",
                &["`rolls` (rolls a turn) must be 1 to 4", "not 7"],
            ),
            (
                yacht_dice_with("rolls = 3", "rolls = 0"),
                "rolls = 0",
                &["`rolls` (rolls a turn) must be 1 to 4", "not 0"],
            ),
            (
                format!(
                    "{}{}",
                    shipped("yacht-dice"),
                    (13..=40)
                        .map(|i| format!("\n[[box]]\nname = \"extra-{i}\"\nkind = \"chance\"\n"))
                        .collect::<String>()
                ),
                "[[box]]",
                &["the card has 40 boxes", "allowed: 1 to 20"],
            ),
            (
                yacht_dice_with("name = \"choice\"", "name = \"fh\""),
                "aliases = [\"fh\", \"full\"]",
                &["box 9 (`full-house`): `fh` already names box 7 (`fh`)"],
            ),
            (
                yacht_dice_with(
                    "aliases = [\"ss\", \"sm\", \"small\"]",
                    "aliases = [\"ss\", \"fh\"]",
                ),
                "aliases = [\"ss\", \"fh\"]",
                &[
                    "box 10 (`small-straight`): `fh` already names box 9 (`full-house`)",
                    "must be unique",
                ],
            ),
            (
                yacht_dice_with(
                    "aliases = [\"4k\", \"4ok\", \"foak\"]",
                    "aliases = [\"4k\", \"4K\"]",
                ),
                "aliases = [\"4k\", \"4K\"]",
                &["`4k` already names this box"],
            ),
            (
                yacht_dice_with("joker = \"none\"", "joker = \"sometimes\""),
                "joker = ",
                &["unknown variant `sometimes`", "`forced`"],
            ),
            (
                yacht_dice_with("joker = \"none\"", "jokers = \"none\""),
                "jokers",
                &["unknown field `jokers`"],
            ),
            (
                yacht_dice_with("count = 4", "count = 9"),
                "count = 9",
                &["box 8 (`four-of-a-kind`): `count` must be 2 to 5, not 9"],
            ),
            (
                yacht_dice_with("kind = \"chance\"", "kind = \"chance\"\npoints = 3"),
                "points = 3\n",
                &[
                    "`points` does not apply to kind \"chance\"",
                    "no other field",
                ],
            ),
            (
                yacht_dice_with("score = \"sum\"\ncounts", "counts"),
                "[[box]]\nname = \"full-house\"",
                &[
                    "kind \"full-house\" needs `score = \"sum\"`",
                    "`points = N`",
                ],
            ),
            (
                yacht_dice_with("face = 3", "face = 4"),
                "[[box]]\nname = \"threes\"",
                &[
                    "box 3 (`threes`): a card with face boxes must begin with all six",
                    "face = 3",
                ],
            ),
            (
                yacht_dice_with("points = 50", "points = 500"),
                "points = 500",
                &["box 12 (`yacht`): `points` must be 1 to 100, not 500"],
            ),
            (
                yacht_dice_with("joker = \"none\"", "joker = \"free\"").replace(
                    "kind = \"five-of-a-kind\"\npoints = 50",
                    "kind = \"chance\"",
                ),
                "joker = ",
                &[
                    "`joker` needs exactly one box of kind \"five-of-a-kind\"",
                    "has 0",
                ],
            ),
            (
                yacht_dice_with("kind = \"chance\"", "kind = \"three-pairs\""),
                "kind = \"three-pairs\"",
                &["kind \"three-pairs\" needs six dice"],
            ),
            (
                yacht_dice_with("length = 4", "faces = [1, 2, 4]"),
                "faces",
                &["`faces` must be 2 to 5 consecutive faces"],
            ),
            (
                yacht_dice_with("name = \"choice\"", "name = \"choice, too\""),
                "name = \"choice, too\"",
                &["box 7: `name` must be 1 to 40 letters, digits and hyphens"],
            ),
            (
                yacht_dice_with("dice = 5", "dice = \"five\""),
                "dice = ",
                &["invalid type: string \"five\", expected i64"],
            ),
            ("name = [".to_string(), "name", &[]),
        ];
        for (text, at, needles) in cases {
            let (line, message) = mistake(&text);
            assert_eq!(line, line_with(&text, at), "{message}");
            assert!(!message.contains('\n'), "{message}");
            for needle in needles {
                assert!(message.contains(needle), "`{needle}` in: {message}");
            }
        }
    }

    /// The fuzz target's checks (`fuzz/fuzz_targets/rules_file.rs`) on the shipped files
    /// mutated at random, a few thousand times: an error of one line, or a description that
    /// reads back the same when written as a file.
    #[test]
    fn mutated_shipped_files_are_errors_or_descriptions_never_panics() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let pieces = [
            "0",
            "7",
            "-1",
            "99999999999999999999",
            "\"",
            "[",
            "]",
            "=",
            "\n",
            "[[box]]\n",
            "kind = \"straight\"",
            "faces = [6, 5]",
            "starts = [0]",
            "points = 101",
            "\u{e9}",
            "five_of_a_kind_bonus = 100\n",
            "joker = \"free\"\n",
            "name = \"ones\"\n",
        ];
        let (mut errors, mut loaded) = (0, 0);
        for (_, text) in SHIPPED {
            for _ in 0..300 {
                let mut t = text.to_string();
                for _ in 0..1 + next(3) {
                    let mut at = next(t.len() + 1);
                    while !t.is_char_boundary(at) {
                        at -= 1;
                    }
                    match next(3) {
                        0 => t.insert_str(at, pieces[next(pieces.len())]),
                        1 => {
                            let mut end = (at + 1 + next(12)).min(t.len());
                            while !t.is_char_boundary(end) {
                                end -= 1;
                            }
                            t.replace_range(at..end, "");
                        }
                        _ => t.truncate(at),
                    }
                }
                match parse(&t) {
                    Err(e) => {
                        errors += 1;
                        assert!(!e.message.is_empty() && !e.message.contains('\n'), "{e}");
                        assert!(e.line >= 1 && e.line <= t.lines().count() + 1, "{e}");
                    }
                    Ok(d) => {
                        loaded += 1;
                        assert!(!d.boxes.is_empty() && d.boxes.len() <= MAX_BOXES);
                        assert_eq!(parse(&d.to_toml()).as_ref(), Ok(&d));
                    }
                }
            }
        }
        assert!(
            errors > 100 && loaded > 100,
            "{errors} errors, {loaded} loaded"
        );
    }

    /// Issue 45: a dotted key past TOML's limit of parts was said to be on line 1, wherever
    /// it was.
    #[test]
    fn a_dotted_key_of_too_many_parts_is_named_at_its_line() {
        let key = ["a"; 100].join(".");
        let text = format!("name = \"x\"\ndice = 5\n\n{key} = 1\nrolls = 3\n");
        let e = parse(&text).unwrap_err();
        assert_eq!(e.line, 4, "{e}");
        assert!(e.message.contains("dotted key"), "{e}");
        let text = format!("name = \"x\"\n[{key}]\n");
        assert_eq!(parse(&text).unwrap_err().line, 2);
    }

    /// Inputs that once panicked or could: never a panic, always an error or a description.
    #[test]
    fn odd_inputs_are_errors_never_panics() {
        for text in [
            "",
            "\u{feff}",
            "name = \"x\"\ndice = 5\nrolls = 3\nbox = []",
            "name = \"x\"\ndice = 5\nrolls = 3\nbox = 3",
            "name = \"x\"\ndice = -9223372036854775808\nrolls = 3\n[[box]]\nname = \"c\"\nkind = \"chance\"",
            "name = \"x\"\ndice = 5\nrolls = 3\n[[box]]\nname = \"s\"\nkind = \"straight\"\nlength = 5\nstarts = []\npoints = 1",
            "name = \"x\"\ndice = 5\nrolls = 3\n[[box]]\nname = \"s\"\nkind = \"straight\"\nfaces = []\npoints = 1",
            "name = \"x\"\ndice = 5\nrolls = 3\n[[box]]\nname = \"s\"\nkind = \"straight\"\nfaces = [6, 7]\npoints = 1",
            "name = \"x\"\ndice = 5\nrolls = 3\n[[box]]\nname = \"s\"\nkind = \"straight\"\nlength = 2\nstarts = [9223372036854775807]\npoints = 1",
            "name = \"x\"\ndice = 5\nrolls = 3\n[[box]]\nname = \"o\"\nkind = \"face\"\nface = 1",
            "name = \"\u{e9}\"\ndice = 5\nrolls = 3\n[[box]]\nname = \"c\"\nkind = \"chance\"",
        ] {
            let _ = parse(text);
        }
        // A card without face boxes and without bonuses is a game.
        let d =
            parse("name = \"x\"\ndice = 5\nrolls = 3\n[[box]]\nname = \"c\"\nkind = \"chance\"")
                .unwrap();
        assert_eq!(d.boxes.len(), 1);
        assert_eq!(d.boxes[0].title, "C");
    }
}
