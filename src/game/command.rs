//! What a player types during `yahtzee play`, parsed and checked against the dice.
//!
//! ```text
//! keep 3 3 5   k 335      keep these faces, re-roll the rest ("keep" alone: re-roll all)
//! pos 1 2      p 12       keep the dice at these positions (1 to 5, as the dice are shown)
//! roll         r          re-roll all five dice
//! stop                    keep all five dice and score now
//! score fh     s fh       fill a box, by name or alias (`fh`, `3k`, `ss`, `ch`, ...)
//! hint         ?          the ranking of `yahtzee advise` for this position
//! card                    the score cards
//! help                    this list
//! quit                    end the game now; the record keeps what was played
//! ```

use crate::dice::{DICE, Dice, Keep};

/// One command of a player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerCommand {
    /// Keep these faces (possibly none, possibly all five).
    KeepFaces(Vec<u8>),
    /// Keep the dice at these positions, 1-based in the order shown.
    KeepPositions(Vec<usize>),
    /// Fill the box named so (not yet resolved).
    Score(String),
    /// Show the advice for this position.
    Hint,
    /// Show the cards.
    Card,
    /// Show the commands.
    Help,
    /// End the game.
    Quit,
}

/// The list of commands, for `help`.
pub const HELP: &str = "\
commands:
  keep 3 3 5  (or k 335)   keep these faces and re-roll the others; `keep` alone re-rolls all
  pos 1 2     (or p 12)    keep the dice at these positions (1 to 5, as shown)
  roll        (or r)       re-roll all five dice
  stop                     keep all five dice and score now
  score fh    (or s fh)    fill a box, by name or short alias
  hint        (or ?)       the optimal ranking of every option here
  card                     show the score cards
  quit                     end the game (the record keeps what was played)";

/// Numbers given as `3 3 5`, `3,3,5` or `335`.
fn numbers(text: &str) -> Result<Vec<u32>, String> {
    let parts: Vec<&str> = text
        .split([' ', ',', '\t'])
        .filter(|p| !p.is_empty())
        .collect();
    let digits: Vec<String> = if parts.len() == 1 && parts[0].chars().all(|c| c.is_ascii_digit()) {
        parts[0].chars().map(String::from).collect()
    } else {
        parts.iter().map(|p| p.to_string()).collect()
    };
    digits
        .iter()
        .map(|p| {
            p.parse::<u32>()
                .map_err(|_| format!("`{p}` is not a number"))
        })
        .collect()
}

/// Parses one line typed by a player.
pub fn parse_command(line: &str) -> Result<PlayerCommand, String> {
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    match word.to_ascii_lowercase().as_str() {
        "keep" | "k" if rest.eq_ignore_ascii_case("all") => {
            Ok(PlayerCommand::KeepPositions((1..=DICE).collect()))
        }
        "keep" | "k" => {
            let faces = numbers(rest)?;
            if let Some(f) = faces.iter().find(|f| !(1..=6).contains(*f)) {
                return Err(format!("{f} is not a face: dice show 1 to 6"));
            }
            if faces.len() > DICE {
                return Err(format!("{} dice given: there are only five", faces.len()));
            }
            Ok(PlayerCommand::KeepFaces(
                faces.into_iter().map(|f| f as u8).collect(),
            ))
        }
        "pos" | "p" => {
            let pos = numbers(rest)?;
            if let Some(p) = pos.iter().find(|p| !(1..=5).contains(*p)) {
                return Err(format!("{p} is not a position: positions are 1 to 5"));
            }
            let mut sorted = pos.clone();
            sorted.sort_unstable();
            sorted.dedup();
            if sorted.len() != pos.len() {
                return Err("a position is given twice: give each die once".to_string());
            }
            Ok(PlayerCommand::KeepPositions(
                pos.into_iter().map(|p| p as usize).collect(),
            ))
        }
        "roll" | "r" | "reroll" if rest.is_empty() => Ok(PlayerCommand::KeepFaces(Vec::new())),
        "stop" if rest.is_empty() => Ok(PlayerCommand::KeepPositions((1..=DICE).collect())),
        "score" | "s" if !rest.is_empty() => Ok(PlayerCommand::Score(rest.to_string())),
        "score" | "s" => Err("say which box, e.g. `score full-house` or `s fh`".to_string()),
        "hint" | "?" | "h" => Ok(PlayerCommand::Hint),
        "card" | "cards" => Ok(PlayerCommand::Card),
        "help" => Ok(PlayerCommand::Help),
        "quit" | "exit" | "q" => Ok(PlayerCommand::Quit),
        "" => Err("type a command (`help` lists them)".to_string()),
        _ => Err(format!(
            "unknown command `{line}`: try `keep 3 3`, `pos 1 2`, `roll`, `stop`, `score fh`, `hint` or `help`"
        )),
    }
}

/// The keep a keep command means for `dice`, refused when the dice do not hold it.
pub fn resolve_keep(command: &PlayerCommand, dice: &Dice) -> Result<Keep, String> {
    let faces: Vec<u8> = match command {
        PlayerCommand::KeepFaces(f) => f.clone(),
        PlayerCommand::KeepPositions(p) => {
            let shown = dice.faces();
            p.iter().map(|&i| shown[i - 1]).collect()
        }
        _ => return Err("not a keep".to_string()),
    };
    let keep = Keep::from_faces(&faces).ok_or_else(|| "a keep is at most five dice".to_string())?;
    if !keep.is_within(dice) {
        return Err(format!("cannot keep {keep}: the dice are {dice}"));
    }
    Ok(keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands() {
        use PlayerCommand::*;
        assert_eq!(parse_command("keep 3 3 5"), Ok(KeepFaces(vec![3, 3, 5])));
        assert_eq!(parse_command("k 335"), Ok(KeepFaces(vec![3, 3, 5])));
        assert_eq!(parse_command(" K 3,3 "), Ok(KeepFaces(vec![3, 3])));
        assert_eq!(parse_command("keep"), Ok(KeepFaces(vec![])));
        assert_eq!(parse_command("r"), Ok(KeepFaces(vec![])));
        assert_eq!(parse_command("p 15"), Ok(KeepPositions(vec![1, 5])));
        assert_eq!(
            parse_command("stop"),
            Ok(KeepPositions(vec![1, 2, 3, 4, 5]))
        );
        assert_eq!(
            parse_command("keep all"),
            Ok(KeepPositions(vec![1, 2, 3, 4, 5]))
        );
        assert_eq!(parse_command("s fh"), Ok(Score("fh".into())));
        assert_eq!(parse_command("?"), Ok(Hint));
        assert!(
            parse_command("keep 7")
                .unwrap_err()
                .contains("7 is not a face")
        );
        assert!(parse_command("keep 1 1 1 1 1 1").is_err());
        assert!(parse_command("p 6").unwrap_err().contains("position"));
        assert!(parse_command("p 1 1").is_err());
        assert!(
            parse_command("dance")
                .unwrap_err()
                .contains("unknown command")
        );
        assert!(parse_command("score").is_err());
    }

    #[test]
    fn resolves_keeps_against_the_dice() {
        let dice: Dice = "13356".parse().unwrap();
        let k = |c| resolve_keep(&c, &dice);
        assert_eq!(
            k(PlayerCommand::KeepPositions(vec![2, 3])).unwrap().faces(),
            vec![3, 3]
        );
        assert!(
            k(PlayerCommand::KeepFaces(vec![3, 3, 3]))
                .unwrap_err()
                .contains("cannot keep")
        );
        assert_eq!(
            k(PlayerCommand::KeepFaces(vec![6, 1])).unwrap().faces(),
            vec![1, 6]
        );
    }
}
