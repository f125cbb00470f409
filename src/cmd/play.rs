//! `yahtzee play`: a game in the terminal for people and bots (the optimal bot, bots
//! playing for a target score, bots playing to win), with a coach; under saved rolls, the
//! optimal bot and the coach in expected points, with the table of saved rolls. The
//! game itself is [`yahtzee_core::play::session::play`]; this turns the flags into its options,
//! loads the tables it needs and creates the record file.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Result, anyhow};

use crate::cli::{CoachObjective, PlayArgs};
use yahtzee_core::play::host::{DiceSource, PlayOptions, parse_seats};
use yahtzee_core::play::record::{RecordFileError, RecordWriter, now_utc};
use yahtzee_core::play::session::{PlayError, play};
use yahtzee_core::policy::Policy;
use yahtzee_core::text::excerpt;

/// `--coach-threshold`: `off`, or a number of points, 0 or more (default 0.2), or with a
/// coach target or the coach for winning a chance from 0 to 1 (default 0.01: one percentage
/// point).
fn coach_threshold(text: Option<&str>, target: Option<u32>, win: bool) -> Result<Option<f64>> {
    let chance = target.is_some() || win;
    let Some(text) = text.map(str::trim) else {
        return Ok(Some(if chance { 0.01 } else { 0.2 }));
    };
    if text.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    let flag = if win { "--coach win" } else { "--target" };
    match (text.parse::<f64>(), chance) {
        (Ok(t), false) if t.is_finite() && t >= 0.0 => Ok(Some(t)),
        (Ok(t), true) if (0.0..=1.0).contains(&t) => Ok(Some(t)),
        (_, false) => Err(anyhow!(
            "--coach-threshold must be `off` or a number of points, 0 or more, not `{}`",
            excerpt(text)
        )),
        (_, true) => Err(anyhow!(
            "--coach-threshold with {flag} is `off` or a chance from 0 to 1, not `{}`",
            excerpt(text)
        )),
    }
}

/// `path` as a shell reads it: as it is when it holds only safe characters, else in single
/// quotes, so the `yahtzee review` command printed can be pasted as it is.
fn shell_word(path: &Path) -> String {
    let text = path.display().to_string();
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./+:@%,=".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

pub fn run(args: &PlayArgs) -> Result<()> {
    let rules = args.rules.rules();
    let seats = parse_seats(&args.players).map_err(|e| anyhow!("--players: {e}"))?;
    // The seats against the rules (a two-player bot plays only a game of two of Yacht),
    // before any table is loaded or built.
    yahtzee_core::play::Game::new(rules, seats.clone()).map_err(|e| anyhow!("--players: {e}"))?;
    let coach_win = args.coach == CoachObjective::Win;
    if rules.saved_rolls() {
        // Solved for the expected score alone: its coach prices in points, its bot is the
        // optimal bot (`PlayOptions::check_saved_rolls` says the same in the core's words).
        let saved_only = |what| anyhow!(yahtzee_core::tables::set::saved_rolls_only(&rules, what));
        if args.target.is_some() || coach_win {
            return Err(saved_only("--target and --coach win"));
        }
        if seats
            .iter()
            .any(|s| s.bot_policy().is_some_and(|p| p != Policy::Optimal))
        {
            return Err(saved_only(
                "--players with bots playing for a target or to win (bot:target=T, bot:win, bot:win-exact)",
            ));
        }
    }
    if coach_win && seats.len() < 2 {
        return Err(anyhow!(
            "--coach win prices in chance of winning against the other players, but --players has only one seat: seat two or more, e.g. --players you,bot"
        ));
    }
    let coach_threshold = coach_threshold(args.coach_threshold.as_deref(), args.target, coach_win)?;
    let dice = if args.manual_dice {
        DiceSource::Manual
    } else {
        // Without --seed, a seed from the clock; it is recorded, so the game still replays.
        DiceSource::Seeded(args.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
        }))
    };
    let options = PlayOptions {
        rules,
        seats,
        dice,
        coach_threshold,
        coach_target: args.target,
        coach_win,
    };
    let tables = super::tables(
        rules,
        super::table_paths(&args.tables),
        super::RulesFrom::Flags,
    );
    // Every table the game needs, loaded (or built) before the record file is created (under
    // saved rolls, the table of saved rolls built when missing, then read a card at a time).
    options.load(&tables)?;
    // Created new, never over an existing file, and appended line by line: an interrupted
    // game keeps its record.
    let created = match &args.record {
        Some(path) => RecordWriter::create(path),
        None => RecordWriter::create_default(Path::new("."), &now_utc().1),
    };
    let mut record = created.map_err(|e| match e {
        RecordFileError::Exists { .. } | RecordFileError::NamesTaken { .. } => {
            anyhow!("{e}: choose another file with --record FILE")
        }
        other => anyhow!("{other}: choose a writable place with --record FILE"),
    })?;
    let path = record.path().to_path_buf();
    let stdin = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    match play(Arc::new(tables), &options, stdin, &mut out, &mut record) {
        Ok(_) => {}
        Err(e @ PlayError::Record(_)) => {
            // Nothing written (a full disk from the start): nothing to review.
            let empty = std::fs::metadata(&path).is_ok_and(|m| m.len() == 0);
            return Err(if empty {
                anyhow!(
                    "{e}; the record {} is empty: free some space, or choose another place with --record FILE",
                    path.display()
                )
            } else {
                anyhow!(
                    "{e}; review what was saved with `yahtzee review {}`",
                    shell_word(&path)
                )
            });
        }
        Err(e) => return Err(e.into()),
    }
    writeln!(
        out,
        "Game record saved to {}; review it with `yahtzee review {}`",
        path.display(),
        shell_word(&path)
    )?;
    Ok(())
}
