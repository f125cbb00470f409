//! The command line: clap structures only. Each subcommand's module in `cmd/` turns these raw
//! flags into a validated request for the library.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::plot::{Kind, Scale, Style};
use crate::values::{Lineup, ReviewTarget, RuleSetList};
use crate::values::{
    parse_lineup, parse_plot_size, parse_policy, parse_review_target, parse_rolls_left,
    parse_rule_sets, parse_rules, parse_threads,
};
use yahtzee_core::export::Format;
use yahtzee_core::game::rules::{Order, Rules};
use yahtzee_core::policy::Policy;
use yahtzee_core::stats::distribution::THRESHOLDS;

/// Optimal strategy for the Yahtzee family (Yahtzee with the official or free Joker or none,
/// Yacht, Scandinavian Yatzy, Yacht Dice, and rules files): exact solver, advice, statistics.
#[derive(Parser, Debug)]
#[command(
    name = "yahtzee",
    version = concat!(
        env!("CARGO_PKG_VERSION"),
        " (commit ",
        env!("YAHTZEE_COMMIT"),
        ")"
    ),
    about,
    long_about = None
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Solve a rule set exactly and save its strategy table.
    Solve(SolveArgs),
    /// Rank every option for a roll: which dice to keep, or which box to score.
    Advise(AdviseArgs),
    /// Check a table file and say what it holds.
    Verify(VerifyArgs),
    /// Play a game in the terminal: people and the optimal bot, with a coach.
    Play(PlayArgs),
    /// Price every decision of a saved game against optimal play.
    Review(ReviewArgs),
    /// Export strategy tables: one card's turn, every state, the full policy, the opening sheet.
    Export(ExportArgs),
    /// The exact distribution of the final score under optimal play, and per-box figures.
    Stats(StatsArgs),
    /// Play games with random dice under a policy and report the same figures.
    Simulate(SimulateArgs),
    /// Print the card of a rule set: each box, its aliases and what it scores, the bonuses and
    /// the Joker rule.
    Rules(RulesCardArgs),
    /// Serve the advisor as a web page and a JSON API, offline, on this machine
    /// (http://127.0.0.1:8080/ by default).
    Serve(ServeArgs),
    /// Print the shell completion script of yahtzee, e.g. `yahtzee completions bash`.
    Completions(CompletionsArgs),
    /// Print the manual page of yahtzee (roff), e.g. `yahtzee man | man -l -`.
    Man(ManArgs),
}

/// The files of the expected-score and target tables (`--table`, `--target-table`): the
/// tables of `stats` and `export`, and the first of [`TableArgs`].
#[derive(Args, Debug)]
pub struct ScoreTableArgs {
    /// Strategy table (the expected score of every state) to use [default: the cache folder,
    /// or $YAHTZEE_TABLE_DIR]; built if missing.
    #[arg(long, value_name = "PATH")]
    pub table: Option<PathBuf>,
    /// Target table (the best chance of each final score from every state), read for a
    /// target score, and by a bot that plays to win [default: the cache folder, or
    /// $YAHTZEE_TABLE_DIR]; built if missing (about 20 s for yahtzee on two cores).
    #[arg(long, value_name = "PATH")]
    pub target_table: Option<PathBuf>,
}

/// The files of every table a command that plays or prices against others may read: the
/// expected-score and target tables ([`ScoreTableArgs`]), the distribution table and the
/// table of the first turns of the game of two.
#[derive(Args, Debug)]
pub struct TableArgs {
    #[command(flatten)]
    pub score: ScoreTableArgs,
    /// Distribution table (the final scores of expected-score play from every state), read
    /// to play or price to win against players still playing [default: the cache folder, or
    /// $YAHTZEE_TABLE_DIR]; built if missing (about 20 s for yahtzee on two cores).
    #[arg(long, value_name = "PATH")]
    pub distribution_table: Option<PathBuf>,
    /// The table of the first turns of two-player play, read by the exact game of two in
    /// those turns [default: the cache folder, or $YAHTZEE_TABLE_DIR]; built if missing (the
    /// whole game solved, a few minutes).
    #[arg(long, value_name = "PATH")]
    pub two_player_table: Option<PathBuf>,
}

/// The rule set and its modifier, shared by every command.
#[derive(Args, Debug, Clone)]
pub struct RulesArgs {
    /// Rule set: a built-in name (yahtzee: official, forced Joker; yahtzee-free-joker:
    /// Verhoeff's free Joker; yahtzee-plain: no bonus and no Joker; yacht; yatzy: Scandinavian;
    /// yacht-dice: 51 Worldwide Games; maxi-yatzy: six dice, 20 boxes), or the path of a rules
    /// file (one with a `/` or ending in `.toml`: docs/rules-files.md); `yahtzee rules
    /// NAME|PATH` prints the card of each.
    #[arg(long, default_value = "yahtzee", value_name = "NAME|PATH", value_parser = parse_rules)]
    pub rules: Rules,
    /// No lower box may be filled while an upper box is open.
    #[arg(long)]
    pub upper_first: bool,
}

impl RulesArgs {
    /// The rules of the flags: `--upper-first` adds the order to a rule set's (a rules file
    /// may ask for it too).
    pub fn rules(&self) -> Rules {
        if self.upper_first {
            Rules::with_order(self.rules.set, Order::UpperFirst)
        } else {
            self.rules
        }
    }
}

/// The rule sets of `stats`: one, or several to compare.
#[derive(Args, Debug, Clone)]
pub struct RuleSetsArgs {
    /// Rule set, a built-in name or the path of a rules file, as for every command (`yahtzee
    /// rules` lists them; a path is taken whole, commas included); several (--rules repeated,
    /// or built-in names separated by commas) are compared: one line of figures each, their
    /// distributions overlaid in one --plot.
    #[arg(long, default_value = "yahtzee", value_name = "NAME|PATH", value_parser = parse_rule_sets, action = clap::ArgAction::Append)]
    pub rules: Vec<RuleSetList>,
    /// No lower box may be filled while an upper box is open.
    #[arg(long)]
    pub upper_first: bool,
}

impl RuleSetsArgs {
    /// Every rule set asked for, in order, each with `--upper-first` when given.
    pub fn all(&self) -> Vec<Rules> {
        (self.rules.iter().flat_map(|list| &list.0))
            .map(|&rules| {
                RulesArgs {
                    rules,
                    upper_first: self.upper_first,
                }
                .rules()
            })
            .collect()
    }

    /// The first rule set asked for (the only one, unless several are compared).
    pub fn rules(&self) -> Rules {
        self.all()[0]
    }
}

#[derive(Args, Debug)]
pub struct RulesCardArgs {
    /// The rule set to print, by name or rules-file path, as --rules takes it [default: the
    /// rules of --rules].
    #[arg(value_name = "NAME|PATH", value_parser = parse_rules, conflicts_with = "rules")]
    pub which: Option<Rules>,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Print the rules as a rules file (TOML), to start a file of house rules from.
    #[arg(long, conflicts_with = "json")]
    pub toml: bool,
}

/// The objectives `solve` builds tables of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ObjectiveArg {
    /// The expected final score under optimal play.
    ExpectedScore,
    /// The best chance of reaching each final score.
    Target,
    /// The chance of each final score under expected-score play (the opponents of win
    /// advice).
    Distribution,
}

#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    /// What to solve: the expected score of every state, or the target table (the best
    /// chance of reaching every final score from every state, about 20 s for yahtzee on two cores).
    #[arg(long, value_enum, default_value_t = ObjectiveArg::ExpectedScore)]
    pub objective: ObjectiveArg,
    /// Where to write the table [default: the cache folder, or $YAHTZEE_TABLE_DIR].
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// With --objective target: also write the best chance of reaching every final score
    /// from an empty card to this CSV file (`target,p_reach`; with --objective distribution,
    /// `target,p_at_least`; overwrites the file, never a strategy table). A sound table
    /// already at its path is read, not solved again.
    #[arg(long, value_name = "FILE.csv")]
    pub curve: Option<PathBuf>,
    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Worker threads, 1 to 256 [default: one per core, or $RAYON_NUM_THREADS].
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<u16>,
    /// Solve the game of two players exactly (Yacht; a few minutes): the first player's
    /// chance of winning, plus half the chance of a tie, from a new game. With both players
    /// optimal, the first turns' values are saved (--out) for `advise --two-player`.
    #[arg(long, conflicts_with_all = ["objective", "curve"])]
    pub two_player: bool,
    /// With --two-player: how the first player plays.
    #[arg(long, value_enum, default_value_t = PlayerArg::Optimal, requires = "two_player")]
    pub first: PlayerArg,
    /// With --two-player: how the second player plays.
    #[arg(long, value_enum, default_value_t = PlayerArg::Optimal, requires = "two_player")]
    pub second: PlayerArg,
    /// With --two-player: also carry the chance of a tie through the solve, to report the
    /// chances of a win for each player and of a tie apart (about 2.2 times the CPU time,
    /// twice the memory; the same values and table).
    #[arg(long, requires = "two_player")]
    pub ties: bool,
}

/// How a player of `solve --two-player` plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PlayerArg {
    /// To win, knowing both cards and the score.
    Optimal,
    /// The expected-score policy, whatever the other does.
    Ev,
}

#[derive(Args, Debug)]
pub struct AdviseArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Filled boxes with their points, e.g. `ones=3,full-house=25,yahtzee=50` [default: a new
    /// game]. Boxes are named as `yahtzee rules` lists them, or by an alias, in any case.
    #[arg(long, default_value = "", value_name = "BOXES")]
    pub card: String,
    /// Number of 100-point Yahtzee bonuses already earned.
    #[arg(
        long,
        default_value_t = 0,
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub yahtzee_bonus: u32,
    /// The five dice, e.g. `1,3,3,5,6` or `13356`.
    #[arg(
        long,
        value_name = "DICE",
        required_unless_present = "batch",
        allow_hyphen_values = true
    )]
    pub dice: Option<String>,
    /// Rolls left this turn: 2 just after the first roll, 0 after the last (3 just after
    /// the first roll in a game of four rolls a turn) [default: the game's rolls a turn less
    /// one].
    #[arg(long, value_name = "0|1|2", allow_negative_numbers = true, value_parser = parse_rolls_left)]
    pub rolls_left: Option<u8>,
    /// In a game with saved rolls: the rolls saved before this turn, whose re-rolls may then
    /// exceed two (--rolls-left up to 2 plus these) [default: 0].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=60))]
    pub saved: Option<u8>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Answer one JSON query per line of stdin with one JSON line each, loading the table once
    /// (the position comes from each line, so --dice, --card, --yahtzee-bonus and
    /// --rolls-left are refused).
    #[arg(long, conflicts_with_all = ["dice", "card", "yahtzee_bonus", "rolls_left", "saved"])]
    pub batch: bool,
    /// Rank the options by their chance of a final score of at least T (points banked
    /// included) instead of by expected score; the expected final score is shown beside.
    /// The target table is built on first use (about 20 s for yahtzee on two cores) and kept beside the table.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub target: Option<u32>,
    /// Rank the options by their certainty equivalent under the exponential utility of θ
    /// (X from -5 to 5, not 0): above 0 the policy seeks risk, below it avoids it (see
    /// docs/advice.md). Each θ's table is built on first use (a few seconds) and kept.
    #[arg(long, value_name = "X", allow_negative_numbers = true, value_parser = crate::values::parse_theta, conflicts_with_all = ["target", "opponent", "opponent_final", "two_player", "batch"])]
    pub theta: Option<yahtzee_core::solve::theta::Theta>,
    /// Rank the options by their chance of winning against an opponent still playing with
    /// this card (the --card syntax, plus `yahtzee-bonus=N` for their Yahtzee bonuses), who
    /// plays for the highest average. Repeat for several opponents.
    #[arg(long, value_name = "BOXES", conflicts_with_all = ["target", "batch"])]
    pub opponent: Vec<String>,
    /// Rank the options by their chance of winning against an opponent who has finished
    /// with N points. Repeat for several; combines with --opponent.
    #[arg(long, value_name = "N", conflicts_with_all = ["target", "batch"], value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub opponent_final: Vec<u32>,
    /// Rank the options by the exact chance of winning a game of two against the one
    /// --opponent (or --opponent-final, who has finished) (Yacht), both playing to win; you
    /// are the first player if you have filled as many boxes as the opponent, the second if
    /// one fewer.
    #[arg(long, conflicts_with_all = ["target", "batch"])]
    pub two_player: bool,
    /// With --two-player: your points less the opponent's [default: the difference of the
    /// two cards' points].
    #[arg(long, value_name = "D", requires = "two_player", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(-10_000..=10_000))]
    pub lead: Option<i64>,
    #[command(flatten)]
    pub tables: TableArgs,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The table file to check.
    pub path: PathBuf,
    /// The rules file of a table of a rules file's rules (its header names them as
    /// NAME-DIGEST, known once the file is loaded); a built-in rule set's table needs none.
    /// Given, the table is checked as a table of these rules: a table of others is refused.
    #[arg(long, value_name = "PATH", value_parser = parse_rules)]
    pub rules: Option<Rules>,
    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    /// The seats in table order, comma-separated; `bot` (or `bot2`, ...) is the optimal bot,
    /// `bot:target=300` a bot playing for a final score of at least 300 (the best chance of
    /// reaching it), `bot:win` a bot playing to win against the others (the `win` policy of
    /// `simulate --match`; `bot:win-exact`: the exact best response, slow), `bot:two-player`
    /// the exact optimum of a game of two (Yacht, exactly two players), e.g.
    /// `alice,bot,bot2:target=300,bot3:win`.
    #[arg(long, default_value = "you", value_name = "NAMES")]
    pub players: String,
    /// Seed of the dice, to replay a game [default: drawn from the clock, and recorded].
    #[arg(long, value_name = "N", conflicts_with = "manual_dice")]
    pub seed: Option<u64>,
    /// Type the dice of a real table instead: all five for a first roll, only the re-rolled
    /// ones for a re-roll.
    #[arg(long)]
    pub manual_dice: bool,
    /// The coach speaks after a decision of a person that loses at least this many points
    /// [default: 0.2]; with --target or --coach win, this much chance of reaching the target
    /// or of winning, from 0 to 1 [default: 0.01]; `off` silences the coach.
    #[arg(long, value_name = "POINTS|CHANCE|off", allow_negative_numbers = true)]
    pub coach_threshold: Option<String>,
    /// The coach and the hints price every decision of a person in chance of a final score
    /// of at least T (against the option best for T) instead of in expected points. The
    /// target table is built on first use (about 20 s for yahtzee on two cores).
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub target: Option<u32>,
    /// What the coach and the hints price a person's decisions in: `points` (expected
    /// points) or `win` (the chance of winning against the other players at the table, as
    /// `advise --opponent` prices it; opponents modelled as playing for the highest average).
    #[arg(
        long,
        value_name = "points|win",
        value_enum,
        default_value = "points",
        conflicts_with = "target"
    )]
    pub coach: CoachObjective,
    /// Where to save the game record (JSON Lines) [default: yahtzee-game-YYYYMMDD-HHMMSS.jsonl
    /// in the current folder, UTC, with -2, -3, ... when a game of the same second has that
    /// name]; an existing file is never overwritten.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub tables: TableArgs,
}

#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// The game record written by `yahtzee play`; several records, or a folder (its `.jsonl`
    /// files), rate the players across their games (see --rating): a path that is not a
    /// record is named on stderr and skipped, the others rated, and the exit status is 2.
    #[arg(required = true, value_name = "GAME|FOLDER")]
    pub games: Vec<PathBuf>,
    /// Rate each player across the games instead of listing every decision: the mean loss
    /// per decision and per game with 95% intervals, the loss by kind of decision, the
    /// costliest habits and a rating (docs/play-and-review.md, "A player's rating"), in
    /// expected points; implied by several records or a folder.
    #[arg(long, conflicts_with_all = ["target", "win", "two_player"])]
    pub rating: bool,
    /// The rules file of a game played under one (`play --rules PATH`): the record names
    /// the rules, and a rules file's rules are known once loaded [default: the record's
    /// rules, a built-in rule set].
    #[arg(long, value_name = "PATH", value_parser = parse_rules)]
    pub rules: Option<Rules>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Price every decision in chance of a final score of at least T (against the option
    /// best for T) instead of in expected points; `off`: in expected points [default: the
    /// coach's target of the record, if it has one, else expected points].
    #[arg(long, value_name = "T|off", value_parser = parse_review_target)]
    pub target: Option<ReviewTarget>,
    /// Price every decision in chance of winning against the other players at the table (as
    /// `advise --opponent`, each other player from their card at that moment) [default: when
    /// the record's coach coached to win; `--target off` prices such a record in points].
    #[arg(long, conflicts_with = "target")]
    pub win: bool,
    /// Price every decision by the exact chance of winning a game of two (plus half a tie),
    /// both players playing to win from there, as `advise --two-player` (Yacht, records of
    /// two players) [default: when the record seats a `bot:two-player`; `--target off`
    /// prices such a record in points].
    #[arg(long, conflicts_with_all = ["target", "win"])]
    pub two_player: bool,
    #[command(flatten)]
    pub tables: TableArgs,
}

/// `play --coach`: what the coach and the hints price in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CoachObjective {
    /// Expected points (or, with --target, the chance of reaching the target).
    Points,
    /// The chance of winning against the other players at the table.
    Win,
}

#[derive(Args, Debug)]
// `--target-table` is read only with `--target`.
#[command(mut_arg("target_table", |a| a.requires("target")))]
pub struct ExportArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Scope: one turn of this card, every roll at 2, 1 and 0 rolls left, e.g.
    /// `ones=3,full-house=25` [default: a new game].
    #[arg(long, value_name = "BOXES", conflicts_with_all = ["all_states", "opening"])]
    pub card: Option<String>,
    /// Number of 100-point Yahtzee bonuses already earned on the card.
    #[arg(
        long,
        default_value_t = 0,
        value_name = "N",
        allow_negative_numbers = true,
        conflicts_with_all = ["all_states", "opening"]
    )]
    pub yahtzee_bonus: u32,
    /// Scope: the expected remaining score of every reachable turn-start state (in a game
    /// with saved rolls, with each number of rolls saved it can have).
    #[arg(long, conflicts_with = "opening")]
    pub all_states: bool,
    /// With --all-states: the full policy instead, every decision of every reachable state
    /// (in a game with saved rolls, at each number of re-rolls left its turns can have).
    #[arg(long, requires = "all_states")]
    pub policy: bool,
    /// Scope: the opening cheat sheet, the first turn's 252 rolls grouped by pattern.
    #[arg(long)]
    pub opening: bool,
    /// Only decisions with this many rolls left.
    #[arg(long, value_name = "0|1|2", allow_negative_numbers = true, value_parser = parse_rolls_left)]
    pub rolls_left: Option<u8>,
    /// In a game with saved rolls, with a card's turn: the rolls saved before this turn,
    /// whose re-rolls may then exceed two (its rows, and --rolls-left, up to 2 plus these)
    /// [default: 0].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=60))]
    pub saved: Option<u8>,
    /// Only decisions where the best option beats the runner-up by at least this many points
    /// (with --target: this much chance, from 0 to 1).
    #[arg(long, value_name = "POINTS", allow_negative_numbers = true)]
    pub min_gap: Option<f64>,
    /// With a card's turn: the decisions when playing for a final score of at least T (the
    /// best chance of reaching it; ties: the higher expected final score), each with its
    /// chance, the runner-up and the gap in chance. The target table is built on first use
    /// (about 20 s for yahtzee on two cores).
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(0..=100_000), conflicts_with_all = ["all_states", "opening"])]
    pub target: Option<u32>,
    /// Output format [default: markdown for --opening, csv otherwise].
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Write to this file instead of stdout, overwriting it if it exists (through a temporary
    /// name, renamed when complete); a strategy table or the table being read is never
    /// overwritten.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub tables: ScoreTableArgs,
}

/// How `stats` and `simulate` report a distribution.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Also write the whole distribution to this CSV file (`score,probability`), overwriting
    /// it if it exists; a strategy table or the table being read is never overwritten.
    #[arg(long, value_name = "FILE.csv")]
    pub pmf: Option<PathBuf>,
    /// Also draw the distribution to this file, SVG or PNG by its extension (several rule
    /// sets or policies: overlaid), overwriting it if it exists; a strategy table or the
    /// table being read is never overwritten.
    #[arg(long, value_name = "FILE.svg|FILE.png")]
    pub plot: Option<PathBuf>,
    /// With --plot: the probability of each final score (`pmf`) or of each score or less
    /// (`cdf`).
    #[arg(long, value_enum, default_value_t = Kind::Pmf, requires = "plot")]
    pub plot_kind: Kind,
    /// With --plot: the probability axis, `linear` or `log` (to read the tails).
    #[arg(long, value_enum, default_value_t = Scale::Linear, requires = "plot")]
    pub plot_scale: Scale,
    /// With --plot: the figure's width and height in pixels, 200 to 8000 each; the fonts
    /// follow the height.
    #[arg(long, value_name = "WIDTHxHEIGHT", default_value = "1000x600", value_parser = parse_plot_size, requires = "plot")]
    pub plot_size: (u32, u32),
    /// Thresholds t of P(score >= t), comma-separated.
    #[arg(long, value_name = "T,T,..", value_delimiter = ',', default_values_t = THRESHOLDS)]
    pub at_least: Vec<u32>,
}

impl ReportArgs {
    /// How --plot draws.
    pub fn plot_style(&self) -> Style {
        Style {
            kind: self.plot_kind,
            scale: self.plot_scale,
            size: self.plot_size,
        }
    }
}

#[derive(Args, Debug)]
// `--target-table` is read only with `--target`.
#[command(mut_arg("target_table", |a| a.requires("target")))]
pub struct StatsArgs {
    #[command(flatten)]
    pub rules: RuleSetsArgs,
    #[command(flatten)]
    pub report: ReportArgs,
    /// The distribution when playing for a final score of at least T (the best chance of
    /// reaching it; ties: the higher expected final score), beside the expected-score
    /// policy's: how much more often T is reached and what it costs in mean score. Takes
    /// minutes for the Yahtzee rule sets; the target table is built on first use.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub target: Option<u32>,
    /// The distribution under the policy of an exponential utility of parameter θ (X from -5
    /// to 5, not 0; above 0 it seeks risk, below it avoids it), and the certainty equivalent
    /// of the final score by its table and by the distribution. The θ table is built on
    /// first use (a few seconds) and kept.
    #[arg(long, value_name = "X", allow_negative_numbers = true, value_parser = crate::values::parse_theta, conflicts_with_all = ["target", "frontier"])]
    pub theta: Option<yahtzee_core::solve::theta::Theta>,
    /// The frontier: the exact mean, standard deviation and percentiles (5 to 99) under the
    /// policy of each θ of --thetas and each target of --targets, and the θ that maximises
    /// each percentile. One table and one distribution per θ (about 12 s each for yatzy on
    /// two cores), solved in memory.
    #[arg(long, conflicts_with_all = ["target", "card", "dice", "pmf", "plot"])]
    pub frontier: bool,
    /// With --frontier: the grid of θ, comma-separated, 0 for the expected score's policy
    /// [default: dlangk/yatzy's 37 values from -3 to 3].
    #[arg(long, value_name = "X,X,..", value_delimiter = ',', allow_hyphen_values = true, requires = "frontier", value_parser = crate::values::parse_theta_or_zero)]
    pub thetas: Vec<Option<yahtzee_core::solve::theta::Theta>>,
    /// With --frontier: target policies to add, comma-separated final scores (the target
    /// table is built on first use, about a minute).
    #[arg(long, value_name = "T,T,..", value_delimiter = ',', requires = "frontier", value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub targets: Vec<u32>,
    /// With --frontier: also write the figures to this CSV file, one row per policy.
    #[arg(long, value_name = "FILE.csv", requires = "frontier")]
    pub csv: Option<PathBuf>,
    /// The games from this card on instead of from a new game: its filled boxes with their
    /// points, as `advise --card` takes them (e.g. `ones=3,full-house=25,yahtzee=50`); the
    /// per-box figures count the boxes filled from there.
    #[arg(long, value_name = "BOXES")]
    pub card: Option<String>,
    /// With --card: the 100-point Yahtzee bonuses already earned on it.
    #[arg(
        long,
        default_value_t = 0,
        value_name = "N",
        allow_negative_numbers = true,
        requires = "card"
    )]
    pub yahtzee_bonus: u32,
    /// The games from these dice in a turn of --card (a new game's first turn without it), the
    /// rest of the turn played as `advise` ranks first, e.g. `1,3,3,5,6` or `13356`.
    #[arg(long, value_name = "DICE", allow_hyphen_values = true)]
    pub dice: Option<String>,
    /// With --dice: rolls left this turn, 2 just after the first roll, 0 after the last
    /// [default: the game's rolls a turn less one].
    #[arg(long, value_name = "0|1|2", allow_negative_numbers = true, value_parser = parse_rolls_left, requires = "dice")]
    pub rolls_left: Option<u8>,
    /// Also the exact events of a game (each five of a kind or straight box's pattern rolled
    /// at least once, the five-of-a-kind box scored, the upper bonus), the covariance and
    /// correlation matrix of the boxes' and bonuses' final points, and the joint table of the
    /// upper bonus and the five-of-a-kind box, from the same pass (about 1.6 times its time).
    /// Expected-score play, cards of at most 15 boxes.
    #[arg(long)]
    pub events: bool,
    /// Also the joint distribution of this box's points (e.g. `yahtzee`, `chance`) and the
    /// final score: the chance of each points it can end with, the mean, spread and
    /// percentiles of the final score of the games that end with them, the covariance and
    /// correlation; two boxes (`yahtzee,chance`): each with the final score, and the two
    /// together. The joint tables in --json and --joint-csv. One pass per points a box can
    /// end with (2 for a five-of-a-kind box, 26 for Chance: about a minute for Yahtzee on
    /// two cores). Expected-score play, cards of at most 15 boxes.
    #[arg(long, value_name = "BOX[,BOX]", value_delimiter = ',', num_args = 1, conflicts_with_all = ["target", "theta", "frontier"])]
    pub joint: Vec<String>,
    /// With --joint: also write the joint tables to this CSV file, one row per pair of
    /// nonzero chance (`first,first_points,second,second_points,probability`: a box, then
    /// `score` or the other box), overwriting it if it exists; a strategy table is never
    /// overwritten.
    #[arg(long, value_name = "FILE.csv", requires = "joint")]
    pub joint_csv: Option<PathBuf>,
    /// Worker threads, 1 to 256 [default: one per core, or $RAYON_NUM_THREADS].
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<u16>,
    #[command(flatten)]
    pub tables: ScoreTableArgs,
}

#[derive(Args, Debug)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Number of games to play.
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    pub games: u64,
    /// Seed of the dice: the same seed plays the same games at any thread count.
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub seed: u64,
    /// How the games are played: `optimal` (the strategy table's policy; ties: fewest dice
    /// kept, first box on the card), `greedy` (never re-rolls, scores the box worth the most
    /// points now), `most-common` (keeps the most common face, re-rolls the others twice,
    /// then scores like greedy), or `target:T` (the best chance of a final score of at least
    /// T, T from 0 to 100000; ties in chance: the higher expected score); the report of
    /// target:T adds the share of games reaching T with its 95% interval. The bots that
    /// play to win need opponents: see --match. Several (comma-separated, or --policy
    /// repeated) are compared on the same dice (the same seed): one line of figures each,
    /// their distributions overlaid in one --plot.
    #[arg(long, default_value = "optimal", value_name = "POLICY,...", value_parser = parse_policy, value_delimiter = ',', action = clap::ArgAction::Append)]
    pub policy: Vec<Policy>,
    /// Play matches instead: two to eight policies, comma-separated, one per seat (e.g.
    /// `ev,win`). Besides the policies of --policy (`ev` is `optimal`): `win`, the fast win
    /// bot (each choice for the best chance of beating the others, whose final scores it
    /// takes as under expected-score play from their current cards), and `win-exact`, the
    /// exact best response to the same, solved at each of its turns (slow: for small
    /// samples), and `two-player`, the exact optimum of the game of two (Yacht, two seats:
    /// both cards known, the rest of the game solved once a game past the first turns'
    /// table). Every player takes turn 1, then turn 2, ...; game g starts with seat g mod
    /// n; ties for first share the win. Reports each seat's win rate with its 95% interval,
    /// ties, mean score and time per decision.
    #[arg(
        long = "match",
        value_name = "POLICIES",
        value_parser = parse_lineup,
        conflicts_with_all = ["policy", "pmf", "plot", "at_least"]
    )]
    pub lineup: Option<Lineup>,
    /// With --match: also write every game to this CSV file (`game,first_seat,seat_1,...`:
    /// who started and each seat's final score), overwriting it if it exists; for comparing
    /// two matches of the same seed game by game.
    #[arg(long, value_name = "FILE.csv", requires = "lineup")]
    pub games_csv: Option<PathBuf>,
    /// Also write each game's box scores to this file, CSV or Parquet by its extension
    /// (`.csv`, `.parquet`): `game`, each box in card order, `upper_bonus`,
    /// `yahtzee_bonuses` (their points), `total`; a row per game, numbered from 0;
    /// overwriting it if it exists: the same file for a seed at any thread count. Parquet's
    /// columns are typed and its metadata says what the games are (rules, policy, seed,
    /// games, version, commit, dice generator) and what each column means. One policy,
    /// without saved rolls.
    #[arg(long, value_name = "FILE.csv|FILE.parquet", conflicts_with = "lineup")]
    pub per_box: Option<PathBuf>,
    /// Worker threads, 1 to 256 [default: one per core, or $RAYON_NUM_THREADS].
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<u16>,
    #[command(flatten)]
    pub tables: TableArgs,
}

/// `--format`: the formats of [`yahtzee_core::export::Format`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Comma-separated values with one header line.
    Csv,
    /// One JSON object per line.
    Jsonl,
    /// Markdown tables, for reading and printing.
    Markdown,
    /// Parquet: typed columns, zstd-compressed (a binary file: give --out, or redirect stdout).
    Parquet,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Csv => Format::Csv,
            FormatArg::Jsonl => Format::Jsonl,
            FormatArg::Markdown => Format::Markdown,
            FormatArg::Parquet => Format::Columns,
        }
    }
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The rules the page opens with (the page can switch to any); their table is loaded, or
    /// built, at start.
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Port to listen on; 0 for any free port (the address is printed on stdout).
    #[arg(long, default_value_t = 8080, value_name = "PORT")]
    pub port: u16,
    /// Address to listen on [default: 127.0.0.1, this machine only]. Any other address lets
    /// other machines use the server, with a warning. With --lan: the network address to
    /// listen on besides loopback (default: this machine's own).
    #[arg(long, value_name = "ADDRESS")]
    pub host: Option<std::net::IpAddr>,
    /// Serve a phone on this network too: listen on the machine's network address as well as
    /// on loopback, and answer only requests that carry a secret token. The address to open,
    /// with its token, is printed, and drawn as a QR code for the phone's camera.
    #[arg(long)]
    pub lan: bool,
    /// With --lan: make a new token instead of the one kept from the last start (in the cache
    /// folder, or $YAHTZEE_TABLE_DIR, as `serve-lan.token`), so that every page opened with
    /// the old one is refused.
    #[arg(long, requires = "lan")]
    pub new_token: bool,
    /// Open the page in the default web browser once the server listens.
    #[arg(long)]
    pub open: bool,
    /// Do not build the tables of the page's objectives in the background from the start.
    /// By default the server loads, or builds once, one after the other: the expected-score
    /// table of the rules (about a second), then the target table and the distribution table
    /// (minutes and about 250 MB of disk each for the Yahtzee rule sets, held in memory
    /// after); a target or win question meanwhile gets the expected-score advice at once,
    /// marked provisional. With this flag a table is built when first asked for.
    #[arg(long)]
    pub no_prebuild: bool,
    /// The score pad's games folder: one record per game, kept between starts [default: the
    /// `games` folder of the table folder].
    #[arg(long, value_name = "DIR")]
    pub games: Option<std::path::PathBuf>,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// The page of this subcommand instead of the main page, e.g. `advise`.
    pub command: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_names_are_the_library_names() {
        for p in [
            Policy::Optimal,
            Policy::Greedy,
            Policy::MostCommon,
            Policy::Target(300),
        ] {
            assert_eq!(parse_policy(&p.label()), Ok(p));
        }
        assert_eq!(parse_policy("Target: 0 "), Ok(Policy::Target(0)));
        assert!(parse_policy("target").unwrap_err().contains("target:T"));
        assert!(
            parse_policy("target:100001")
                .unwrap_err()
                .contains("0 to 100000")
        );
        assert!(
            parse_policy("lucky")
                .unwrap_err()
                .contains("unknown policy `lucky`")
        );
        assert_eq!(parse_policy(" EV"), Ok(Policy::Optimal));
        assert_eq!(
            parse_policy("win").unwrap_err(),
            "win needs opponents: use --match ev,win"
        );
        assert_eq!(
            parse_policy("win-exact").unwrap_err(),
            "win-exact needs opponents: use --match ev,win-exact"
        );
        assert_eq!(
            parse_lineup("ev, win,target:200"),
            Ok(Lineup(vec![
                Policy::Optimal,
                Policy::Win,
                Policy::Target(200)
            ]))
        );
    }

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
