//! The values of the command line's flags: each text parsed and checked into what a command
//! takes (a rule set or a rules file, rolls left, threads, a target, a plot's size, policies),
//! its mistake one line that says what is allowed. The argument structs (`cli.rs`) name these
//! parsers and the commands (`cmd/`) read what they give; this file imports neither, so the
//! binary's files form no circle.

use std::path::Path;

use anyhow::{Context, Result, anyhow};

use yahtzee_core::game::rules::Rules;
use yahtzee_core::policy::Policy;
use yahtzee_core::text::excerpt;

/// The most worker threads `--threads` takes: far above the cores of any machine this runs
/// on (more threads than cores only slow the work down, and each keeps its own scratch
/// arrays), and low enough that a typo such as `--threads 10000` is refused at once instead
/// of starting thousands of threads.
pub const MAX_THREADS: u16 = 256;

/// True when a `--rules` value is the path of a rules file (it has a `/` or ends in
/// `.toml`), not a built-in rule set's name: the one rule of every command.
pub fn is_rules_path(arg: &str) -> bool {
    arg.contains('/') || arg.ends_with(".toml")
}

/// The rules named on the command line: a built-in rule set's name, or the path of a rules
/// file ([`is_rules_path`]), read and checked. The messages do not
/// repeat the argument: clap's error, which carries them, quotes it first.
pub fn load_rules(arg: &str) -> Result<Rules> {
    use yahtzee_core::game::rules::RuleSet;
    use yahtzee_core::game::rules::file::{MAX_FILE_BYTES, load};
    if !is_rules_path(arg) {
        return RuleSet::from_name(arg)
            .filter(|set| set.file.is_none())
            .map(Rules::new)
            .ok_or_else(|| {
                anyhow!(
                    "not a rule set: the rule sets are {}, or give the path of a rules file (with a `/` or ending in .toml)",
                    RuleSet::names().join(", ")
                )
            });
    }
    let path = Path::new(arg);
    let bytes = yahtzee_core::files::read_regular(path, MAX_FILE_BYTES).with_context(|| {
        if arg.contains(',') {
            // `stats` compares rule sets named with commas: a path is one, commas and all.
            "cannot read the rules file (the whole value, commas included, is its path; to compare several rule sets, give --rules once for each)"
        } else {
            "cannot read the rules file"
        }
    })?;
    let text = String::from_utf8(bytes).map_err(|_| anyhow!("the rules file is not UTF-8 text"))?;
    load(&text, Some(path)).map_err(|e| anyhow!("rules file, {e}"))
}

/// Parses `--rules`: a built-in rule set's name or a rules file's path, loaded and checked
/// (a mistake is one line: the file, the line, the field and what is allowed).
pub fn parse_rules(arg: &str) -> Result<Rules, String> {
    load_rules(arg).map_err(|e| format!("{e:#}"))
}

/// The rule sets of one `stats --rules` value.
#[derive(Clone, Debug)]
pub struct RuleSetList(pub Vec<Rules>);

/// Parses a value of `stats --rules`: what every command's `--rules` takes (a path is one
/// rules file, commas and all), or built-in names separated by commas.
pub fn parse_rule_sets(arg: &str) -> Result<RuleSetList, String> {
    if is_rules_path(arg) || !arg.contains(',') {
        return parse_rules(arg).map(|rules| RuleSetList(vec![rules]));
    }
    arg.split(',')
        .map(|name| parse_rules(name.trim()))
        .collect::<Result<_, _>>()
        .map(RuleSetList)
}

/// Rolls left: 0, 1 or 2 (to 3 in a game of four rolls a turn; the command checks the
/// number against its game's).
pub fn parse_rolls_left(text: &str) -> Result<u8, String> {
    let most = yahtzee_core::game::rules::MAX_ROLLS_A_TURN - 1;
    // Under saved rolls a turn may have the rolls saved before it too: two a turn played.
    let saved = most + 2 * yahtzee_core::game::rules::MAX_BOXES as u8;
    match text.trim().parse::<u8>() {
        Ok(n) if n <= saved => Ok(n),
        _ => Err(format!(
            "rolls left must be 0, 1 or 2 (up to {most} in a game of {} rolls a turn, more with saved rolls), not `{}`",
            most + 1,
            excerpt(text.trim())
        )),
    }
}

/// A θ of the exponential utility: a number from -5 to 5, not 0 (the core's check,
/// [`Theta`](yahtzee_core::solve::theta::Theta)).
pub fn parse_theta(text: &str) -> Result<yahtzee_core::solve::theta::Theta, String> {
    text.parse()
        .map_err(|e: yahtzee_core::solve::theta::ThetaError| e.to_string())
}

/// A θ of a frontier's grid: 0 (the expected score's policy, `None`) or a θ.
pub fn parse_theta_or_zero(
    text: &str,
) -> Result<Option<yahtzee_core::solve::theta::Theta>, String> {
    if text.trim().parse::<f64>() == Ok(0.0) {
        return Ok(None);
    }
    parse_theta(text).map(Some)
}

/// Worker threads: 1 to [`MAX_THREADS`].
pub fn parse_threads(text: &str) -> Result<u16, String> {
    let max = MAX_THREADS;
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=u64::from(max)).contains(&n) => Ok(n as u16),
        _ => Err(format!(
            "the number of worker threads must be from 1 to {max}, not `{}` (leave --threads out for one per core)",
            excerpt(text)
        )),
    }
}

/// `review --target`: a target score, or `off` for expected points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReviewTarget {
    /// Priced in chance of reaching this final score.
    Score(u32),
    /// Priced in expected points.
    Off,
}

/// Parses `review --target`: `off`, or a whole number from 0 to 100000.
pub fn parse_review_target(text: &str) -> Result<ReviewTarget, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("off") {
        return Ok(ReviewTarget::Off);
    }
    match text.parse::<u32>() {
        Ok(t) if t <= yahtzee_core::policy::MAX_TARGET => Ok(ReviewTarget::Score(t)),
        _ => Err(format!(
            "the target must be `off` or a whole number from 0 to {}, not `{}`",
            yahtzee_core::policy::MAX_TARGET,
            excerpt(text)
        )),
    }
}

/// Parses `--plot-size WIDTHxHEIGHT`, each from 200 to 8000 pixels.
pub fn parse_plot_size(text: &str) -> Result<(u32, u32), String> {
    let size = text
        .trim()
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?)));
    match size {
        Some((w, h)) if (200..=8000).contains(&w) && (200..=8000).contains(&h) => Ok((w, h)),
        _ => Err(format!(
            "the plot's size is WIDTHxHEIGHT in pixels, each from 200 to 8000 (e.g. 1000x600), not `{}`",
            excerpt(text)
        )),
    }
}

/// `--policy`: a policy of [`yahtzee_core::policy::Policy`] by its name, `target:T` for a target;
/// the policies that play to win need opponents, so a match.
pub fn parse_policy(text: &str) -> Result<Policy, String> {
    match text.parse::<Policy>().map_err(|e| e.to_string())? {
        p @ (Policy::Win | Policy::WinExact | Policy::TwoPlayer) => Err(format!(
            "{} needs opponents: use --match ev,{}",
            p.name(),
            p.name()
        )),
        p => Ok(p),
    }
}

/// The policies of `--match`, one per seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lineup(pub Vec<Policy>);

/// `--match`: a lineup of [`yahtzee_core::stats::matches::parse_lineup`].
pub fn parse_lineup(text: &str) -> Result<Lineup, String> {
    yahtzee_core::stats::matches::parse_lineup(text)
        .map(Lineup)
        .map_err(|e| e.to_string())
}
