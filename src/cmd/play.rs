//! `yahtzee play`: a game in the terminal for people and the optimal bot, with a coach. The
//! game itself is [`yahtzee::game::session::play`]; this turns the flags into its options and
//! opens the record file.

use std::fs::OpenOptions;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use crate::cli::PlayArgs;
use yahtzee::game::record::now_utc;
use yahtzee::game::session::{DiceSource, PlayOptions, parse_seats, play};

pub fn run(args: &PlayArgs) -> Result<()> {
    let rules = args.rules.rules();
    let seats = parse_seats(&args.players).map_err(anyhow::Error::msg)?;
    if !(args.coach_threshold.is_finite() && args.coach_threshold >= 0.0) {
        bail!(
            "--coach-threshold must be a number of points, 0 or more, not {}",
            args.coach_threshold
        );
    }
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
    let path = args
        .record
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("yahtzee-game-{}.jsonl", now_utc().1)));
    let table = super::load_or_build(&rules, args.table.as_deref())?;
    // Appended line by line and never overwritten: an interrupted game keeps its record.
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .with_context(|| {
            format!(
                "cannot create the game record {} (an existing record is never overwritten: choose another with --record)",
                path.display()
            )
        })?;
    let options = PlayOptions {
        rules,
        seats,
        dice,
        coach_threshold: args.coach_threshold,
    };
    let stdin = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    play(&table, &options, stdin, &mut out, BufWriter::new(file))?;
    writeln!(
        out,
        "Game record saved to {}; review it with `yahtzee review {}`",
        path.display(),
        path.display()
    )?;
    Ok(())
}
