//! What a player types during `yahtzee play`, parsed and checked against the dice.
//!
//! ```text
//! keep 3 3 5   k 335      keep these faces, re-roll the rest ("keep" alone: re-roll all)
//! pos 1 2      p 12       keep the dice at these positions (1 to 5, or 6 in a game of six dice)
//! roll         r          re-roll all the dice
//! stop                    keep all the dice and score now
//! score fh     s fh       fill a box, by name or alias (`fh`, `3k`, `ss`, `ch`, ...)
//! hint         ?          the ten best options of `yahtzee advise` for this position
//! hint all     ? all      every option
//! card                    the score cards
//! help                    this list
//! quit                    end the game now; the record keeps what was played
//! ```

use crate::game::dice::{Dice, DiceError, FaceCount, Keep, parse_faces, split_numbers};
use crate::text::excerpt;

use super::{Illegal, parse_keep};

/// One command of a player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerCommand {
    /// Keep these faces (possibly none, possibly all five).
    KeepFaces(Vec<u8>),
    /// Keep the dice at these positions, 1-based in the order shown.
    KeepPositions(Vec<usize>),
    /// Fill the box named so (not yet resolved).
    Score(String),
    /// Show the advice for this position: the best options or all of them.
    Hint(HintRows),
    /// Show the cards.
    Card,
    /// Show the commands.
    Help,
    /// End the game.
    Quit,
}

/// How many options `hint` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HintRows {
    /// The best [`HINT_ROWS`] (`hint`).
    Top,
    /// Every option (`hint all`).
    All,
}

/// How many options `hint` shows without `all`.
pub const HINT_ROWS: usize = 10;

/// A line a player typed that is not a command. Each message says what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CommandError {
    /// An empty line. Fix: type a command; `help` lists them.
    #[error("type a command (`help` lists them)")]
    Empty,
    /// A word that is no command. Fix: one of the commands listed.
    #[error(
        "unknown command `{line}`: try `keep 3 3`, `pos 1 2`, `roll`, `stop`, `score fh`, `hint` or `help`"
    )]
    Unknown {
        /// The line, quoted through [`excerpt`].
        line: String,
    },
    /// `score` without a box. Fix: name the box.
    #[error("say which box, e.g. `score full-house` or `s fh`")]
    NoBox,
    /// A keep of faces that are not dice (a 7, six dice). Fix: at most five faces 1 to 6.
    #[error(transparent)]
    Dice(#[from] DiceError),
    /// A position that is not one of the dice's. Fix: the positions of the dice as shown, 1
    /// to the number of dice.
    #[error(
        "{part} is not a position: positions are 1 to {dice}, as the dice are shown, e.g. `pos 1 2` or `p 12`"
    )]
    NotAPosition {
        /// The part, quoted (`` `6` ``) through [`excerpt`], or `an empty part`.
        part: String,
        /// The number of dice of the game.
        dice: usize,
    },
    /// A position given twice. Fix: give each die once.
    #[error("position {position} is given twice: give each die once")]
    PositionTwice {
        /// The position.
        position: usize,
    },
}

/// The list of commands, for `help`, in a game of `dice` dice (five or six).
pub fn help(dice: usize) -> String {
    let all = crate::text::number_word(dice);
    format!(
        "\
commands:
  keep 3 3 5  (or k 335)   keep these faces and re-roll the others; `keep` alone re-rolls all
  pos 1 2     (or p 12)    keep the dice at these positions (1 to {dice}, as shown)
  roll        (or r)       re-roll all {all} dice
  stop                     keep all {all} dice and score now
  score fh    (or s fh)    fill a box, by name or short alias
  hint        (or ?)       the ten best options here, by expected final score (by
                           chance, when the coach plays for a target or to win)
  hint all    (or ? all)   every option here
  card                     show the score cards
  quit                     end the game (the record keeps what was played)"
    )
}

/// Positions among `dice` dice given as `1 2`, `1,2` or `12` (the syntax of dice:
/// [`split_numbers`]).
fn positions(text: &str, dice: usize) -> Result<Vec<usize>, CommandError> {
    let not_a_position = |part: &str| CommandError::NotAPosition {
        dice,
        part: if part.is_empty() {
            "an empty part".to_string()
        } else {
            format!("`{}`", excerpt(part))
        },
    };
    let mut out: Vec<usize> = Vec::new();
    for part in split_numbers(text).map_err(not_a_position)? {
        let position = match part.parse::<usize>() {
            Ok(p) if (1..=dice).contains(&p) && part.len() == 1 => p,
            _ => return Err(not_a_position(part)),
        };
        if out.contains(&position) {
            return Err(CommandError::PositionTwice { position });
        }
        out.push(position);
    }
    Ok(out)
}

/// Parses one line typed by a player of a game of `dice` dice (five or six).
pub fn parse_command(line: &str, dice: usize) -> Result<PlayerCommand, CommandError> {
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    match word.to_ascii_lowercase().as_str() {
        "keep" | "k" if rest.eq_ignore_ascii_case("all") => {
            Ok(PlayerCommand::KeepPositions((1..=dice).collect()))
        }
        "keep" | "k" => Ok(PlayerCommand::KeepFaces(parse_faces(
            rest,
            FaceCount::AtMost(dice),
        )?)),
        "pos" | "p" => Ok(PlayerCommand::KeepPositions(positions(rest, dice)?)),
        "roll" | "r" | "reroll" if rest.is_empty() => Ok(PlayerCommand::KeepFaces(Vec::new())),
        "stop" if rest.is_empty() => Ok(PlayerCommand::KeepPositions((1..=dice).collect())),
        "score" | "s" if !rest.is_empty() => Ok(PlayerCommand::Score(rest.to_string())),
        "score" | "s" => Err(CommandError::NoBox),
        "hint" | "?" | "h" if rest.is_empty() => Ok(PlayerCommand::Hint(HintRows::Top)),
        "hint" | "?" | "h" if rest.eq_ignore_ascii_case("all") => {
            Ok(PlayerCommand::Hint(HintRows::All))
        }
        "card" | "cards" => Ok(PlayerCommand::Card),
        "help" => Ok(PlayerCommand::Help),
        "quit" | "exit" | "q" => Ok(PlayerCommand::Quit),
        "" => Err(CommandError::Empty),
        _ => Err(CommandError::Unknown {
            line: excerpt(line),
        }),
    }
}

/// The keep a keep command means for `dice`, refused when the dice do not hold it; `None`
/// for a command that is not a keep.
pub fn resolve_keep(command: &PlayerCommand, dice: &Dice) -> Option<Result<Keep, Illegal>> {
    let faces: Vec<u8> = match command {
        PlayerCommand::KeepFaces(f) => f.clone(),
        PlayerCommand::KeepPositions(p) => {
            let shown = dice.faces();
            p.iter().map(|&i| shown[i - 1]).collect()
        }
        _ => return None,
    };
    Some(parse_keep(&faces, dice))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::dice::DICE;

    #[test]
    fn parses_commands() {
        use PlayerCommand::*;
        assert_eq!(
            parse_command("keep 3 3 5", DICE),
            Ok(KeepFaces(vec![3, 3, 5]))
        );
        assert_eq!(parse_command("k 335", DICE), Ok(KeepFaces(vec![3, 3, 5])));
        assert_eq!(parse_command(" K 3,3 ", DICE), Ok(KeepFaces(vec![3, 3])));
        assert_eq!(parse_command("keep", DICE), Ok(KeepFaces(vec![])));
        assert_eq!(parse_command("r", DICE), Ok(KeepFaces(vec![])));
        assert_eq!(parse_command("p 15", DICE), Ok(KeepPositions(vec![1, 5])));
        assert_eq!(
            parse_command("stop", DICE),
            Ok(KeepPositions(vec![1, 2, 3, 4, 5]))
        );
        assert_eq!(
            parse_command("keep all", DICE),
            Ok(KeepPositions(vec![1, 2, 3, 4, 5]))
        );
        assert_eq!(parse_command("s fh", DICE), Ok(Score("fh".into())));
        assert_eq!(parse_command("?", DICE), Ok(Hint(HintRows::Top)));
        assert_eq!(parse_command("hint ALL", DICE), Ok(Hint(HintRows::All)));
        assert_eq!(parse_command("? all", DICE), Ok(Hint(HintRows::All)));
        let err = |line: &str| parse_command(line, DICE).unwrap_err().to_string();
        assert!(err("keep 7").contains("`7` is not a face"));
        assert!(err("keep 1 1 1 1 1 1").contains("6 faces given"));
        assert!(err("p 6").contains("`6` is not a position: positions are 1 to 5"));
        assert_eq!(
            err("p 1 1"),
            "position 1 is given twice: give each die once"
        );
        assert!(err("dance").contains("unknown command `dance`"));
        assert!(err("hint me").contains("unknown command"));
        assert_eq!(parse_command("score", DICE), Err(CommandError::NoBox));
        assert_eq!(parse_command("  ", DICE), Err(CommandError::Empty));
        let long = format!("dance\n{}", "x".repeat(100_000));
        assert!(!err(&long).contains('\n') && err(&long).len() < 200);
    }

    /// Issue 45: the help of a game of six dice said "positions (1 to 5)" and "re-roll all
    /// five dice", and its error "positions are 1 to 5".
    #[test]
    fn help_and_positions_count_the_game_s_dice() {
        let six = help(6);
        assert!(six.contains("positions (1 to 6, as shown)"), "{six}");
        assert!(six.contains("re-roll all six dice"), "{six}");
        assert!(six.contains("keep all six dice and score now"), "{six}");
        assert!(!six.contains("five"), "{six}");
        assert!(help(5).contains("re-roll all five dice"));
        assert_eq!(
            parse_command("p 6", 6),
            Ok(PlayerCommand::KeepPositions(vec![6]))
        );
        let e = parse_command("p 7", 6).unwrap_err().to_string();
        assert!(e.contains("positions are 1 to 6"), "{e}");
    }

    #[test]
    fn resolves_keeps_against_the_dice() {
        let dice: Dice = "13356".parse().unwrap();
        let k = |c| resolve_keep(&c, &dice).expect("a keep command");
        assert_eq!(
            k(PlayerCommand::KeepPositions(vec![2, 3])).unwrap().faces(),
            vec![3, 3]
        );
        assert!(
            k(PlayerCommand::KeepFaces(vec![3, 3, 3]))
                .unwrap_err()
                .to_string()
                .contains("cannot keep 3 3 3: the dice are 1 3 3 5 6")
        );
        assert_eq!(
            k(PlayerCommand::KeepFaces(vec![6, 1])).unwrap().faces(),
            vec![1, 6]
        );
        assert!(resolve_keep(&PlayerCommand::Card, &dice).is_none());
    }
}
