//! Dice as text: `--dice` (`"...".parse::<Dice>()`), the dice typed at a real table in a game
//! (`parse_faces` with exactly the re-rolled count) and the game's commands
//! (`parse_command`, which reads keeps and positions with the same parser), with
//! `resolve_keep` against a roll. When the text parses: five faces from 1 to 6 (or the count
//! asked), the display re-parses to the same dice, and the parsers agree with each other.
//!
//! Input: byte 0 picks the count of typed dice (1 to 5) and the roll a keep is resolved
//! against; the rest is the text (UTF-8, as typed or given on the command line).

#![no_main]

use libfuzzer_sys::fuzz_target;
use yahtzee_core::game::dice::{DICE, Dice, FaceCount, Keep, parse_faces};
use yahtzee_core::play::command::{PlayerCommand, parse_command, resolve_keep};
use yahtzee_fuzz::check_message;

fuzz_target!(|data: &[u8]| {
    let [choice, text @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };

    // `--dice`.
    let dice = text.parse::<Dice>();
    let five = parse_faces(text, FaceCount::Exactly(DICE));
    match (&dice, &five) {
        (Ok(dice), Ok(faces)) => {
            let shown = dice.faces();
            assert_eq!(shown.len(), DICE);
            assert!(shown.iter().all(|f| (1..=6).contains(f)), "{shown:?}");
            let mut sorted = faces.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, shown, "{text:?}");
            assert_eq!(dice.to_string().parse::<Dice>().as_ref(), Ok(dice));
            assert_eq!(Dice::from_faces(faces).as_ref(), Ok(dice));
            assert_eq!(Dice::from_index(dice.index()), *dice);
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "{text:?}: the two parsers of five dice disagree");
            check_message(&a.to_string());
        }
        _ => panic!("{text:?}: Dice::from_str gives {dice:?} but parse_faces {five:?}"),
    }

    // Dice typed at a real table: exactly the re-rolled count.
    let count = usize::from(choice % 5) + 1;
    match parse_faces(text, FaceCount::Exactly(count)) {
        Ok(faces) => {
            assert_eq!(faces.len(), count, "{text:?}");
            assert!(faces.iter().all(|f| (1..=6).contains(f)), "{faces:?}");
        }
        Err(e) => check_message(&e.to_string()),
    }

    // A keep as the game reads it, and `keep TEXT` / `pos TEXT`.
    match parse_faces(text, FaceCount::AtMost(DICE)) {
        Ok(faces) => {
            assert!(faces.len() <= DICE, "{text:?}: {faces:?}");
            let keep = Keep::from_faces(&faces).expect("parsed faces make a keep");
            assert_eq!(keep.len(), faces.len());
        }
        Err(e) => check_message(&e.to_string()),
    }
    let roll = Dice::all()
        .nth(usize::from(*choice) % 252)
        .expect("252 rolls");
    for command in [
        text.to_string(),
        format!("keep {text}"),
        format!("pos {text}"),
    ] {
        match parse_command(&command, DICE) {
            Ok(parsed) => {
                if let PlayerCommand::KeepFaces(f) = &parsed {
                    assert!(f.len() <= DICE && f.iter().all(|f| (1..=6).contains(f)));
                }
                match resolve_keep(&parsed, &roll) {
                    Some(Ok(keep)) => assert!(keep.is_within(&roll), "{command:?}: {keep}"),
                    Some(Err(e)) => check_message(&e.to_string()),
                    None => {}
                }
            }
            Err(e) => check_message(&e.to_string()),
        }
    }
});
