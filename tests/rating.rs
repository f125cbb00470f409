//! A player's rating across games (`yahtzee review` of several records, `play::rating`): on
//! the records of bots whose loss is known, the rating reports that loss within its interval.
//!
//! The records are played by the game host of `yahtzee play` (`play::host::Host`, seeded
//! dice): the optimal bot in a bot's seat, the greedy and most-common baselines in a person's
//! seat, their moves chosen by the policies' own turns (`policy::player::Player`). Their known
//! loss per game is the optimal expected score less their mean score, measured by the
//! project's simulation of the same policies.

use std::process::Stdio;
use std::sync::Arc;

use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::play::Game;
use yahtzee_core::play::host::{
    DiceSource, Due, Front, Host, HostError, Message, PlayOptions, parse_seats,
};
use yahtzee_core::play::rating::{PlayerRating, class, rate};
use yahtzee_core::play::review::GameRecord;
use yahtzee_core::policy::Policy;
use yahtzee_core::policy::player::Player;
use yahtzee_core::stats::distribution::Summary;
use yahtzee_core::stats::simulate::simulate;
use yahtzee_core::tables::set::TableSet;

use crate::util::*;

/// A front end that shows nothing: the host keeps the record.
struct Quiet;

impl Front for Quiet {
    type Error = HostError;
    fn record(&mut self, _: &str) -> Result<(), HostError> {
        Ok(())
    }
    fn show(&mut self, _: &Game, _: &Message) -> Result<(), HostError> {
        Ok(())
    }
}

/// The record of a game of Yacht with `seed`: the optimal bot's (`policy` None), or a
/// person's playing `policy`.
fn record(tables: &Arc<TableSet>, policy: Option<Policy>, seed: u64) -> String {
    let rules = *tables.rules();
    let options = PlayOptions {
        rules,
        seats: parse_seats(if policy.is_some() { "ann" } else { "bot" }).unwrap(),
        dice: DiceSource::Seeded(seed),
        coach_threshold: None,
        coach_target: None,
        coach_win: false,
    };
    let mut host = Host::new(Arc::clone(tables), &options).unwrap();
    host.start(&mut Quiet).unwrap();
    while let Due::Decision {
        seat,
        dice,
        rolls_left,
    } = host.due()
    {
        let player = Player::new(policy.expect("a person's seat"), tables).unwrap();
        let card = &host.game().cards()[seat];
        let state = card.state();
        let turn = player.turn(&state, card.banked(), None);
        if rolls_left > 0 {
            let keep = turn.keep(rolls_left, &dice).faces();
            host.keep(keep, &mut Quiet).unwrap();
        } else {
            let (index, _, _) = turn.choose_box(&rules, &state, &dice);
            let name = rules.boxes()[index].name().to_string();
            host.score(&name, &mut Quiet).unwrap();
        }
    }
    assert!(host.game().is_over());
    host.record().join("\n") + "\n"
}

fn yacht_tables() -> Arc<TableSet> {
    let table = table(RuleSet::YACHT, Order::Any);
    Arc::new(TableSet::of_expected_score(Arc::new(table.clone())))
}

/// The records of `games` games of `policy` (seeds 1, 2, ...).
fn records(tables: &Arc<TableSet>, policy: Option<Policy>, games: u64) -> Vec<GameRecord> {
    (1..=games)
        .map(|seed| GameRecord::parse(record(tables, policy, seed)).unwrap())
        .collect()
}

/// The mean score of `policy` over many simulated games of Yacht.
fn simulated_mean(tables: &TableSet, policy: Policy) -> (f64, f64) {
    let player = Player::new(policy, tables).unwrap();
    let rules = Rules::new(RuleSet::YACHT);
    let tally = simulate(&rules, &player, 200_000, 99, &|_| {});
    let s = Summary::of(&rules, &tally, &[]);
    (s.mean, s.std_dev / 200_000f64.sqrt())
}

/// The one player of a rating.
fn only(players: &[PlayerRating]) -> &PlayerRating {
    assert_eq!(players.len(), 1);
    &players[0]
}

/// Checks the figures of a rating that hold whatever the play: the kinds and the stages add
/// up to the whole, and the habits to at most the sub-optimal decisions.
fn check_sums(p: &PlayerRating) {
    for part in [&p.by_kind, &p.by_stage] {
        assert_eq!(part.iter().map(|k| k.decisions).sum::<usize>(), p.decisions);
        assert_eq!(
            part.iter().map(|k| k.suboptimal).sum::<usize>(),
            p.suboptimal
        );
        let total = part.iter().map(|k| k.total_loss).sum::<f64>();
        let mean = p.loss_per_decision.mean * p.decisions as f64;
        assert!(
            (total - mean).abs() < 1e-6 * mean.max(1.0),
            "{total} vs {mean}"
        );
    }
    assert!(p.habits.iter().map(|h| h.count).sum::<usize>() <= p.suboptimal);
    assert!(
        p.habits
            .windows(2)
            .all(|w| w[0].total_loss >= w[1].total_loss)
    );
}

#[test]
fn the_rating_finds_the_known_loss_of_each_bot() {
    let tables = yacht_tables();
    let ev = tables.ev().unwrap();
    let optimal = ev.expected_score();

    // The optimal bot loses nothing.
    let rating = rate(ev, &records(&tables, None, 20), &|_| {}).unwrap();
    let bot = only(&rating.players);
    assert_eq!((bot.games, bot.complete_games), (20, 20));
    assert_eq!(bot.suboptimal, 0);
    let game = bot.loss_per_game.as_ref().unwrap();
    assert_eq!(
        (game.mean, game.low, game.high),
        (0.0, Some(0.0), Some(0.0))
    );
    assert_eq!(bot.rating, Some("master"));
    assert!(bot.habits.is_empty());
    check_sums(bot);

    for (policy, games) in [(Policy::Greedy, 250), (Policy::MostCommon, 250)] {
        let (mean, error) = simulated_mean(&tables, policy);
        let known = optimal - mean;
        let rating = rate(ev, &records(&tables, Some(policy), games), &|_| {}).unwrap();
        let p = only(&rating.players);
        check_sums(p);
        let game = p.loss_per_game.as_ref().unwrap();
        let (low, high) = (game.low.unwrap(), game.high.unwrap());
        assert!(
            low <= known && known <= high,
            "{}: known loss {known:.3} (simulation's standard error {error:.3}) not in [{low:.3}, {high:.3}]",
            policy.label()
        );
        // An interval that says something: within a tenth of the loss.
        assert!(high - low < 0.2 * known, "{low} {high}");
        // The expected score is the optimal one less the loss, interval and all.
        let score = p.expected_score.as_ref().unwrap();
        assert!((score.mean + game.mean - optimal).abs() < 1e-9);
        assert!(score.low.unwrap() <= mean && mean <= score.high.unwrap());
        assert_eq!(p.rating, Some(class(game.mean)));
        if policy == Policy::Greedy {
            // Greedy decides twice a turn: a stop with two rolls left, then a box.
            assert_eq!(p.decisions, games as usize * 2 * 12);
            assert_eq!(p.by_kind[1].decisions, 0, "{:?}", p.by_kind);
            let per_decision = known / 24.0;
            let d = &p.loss_per_decision;
            assert!(
                d.low.unwrap() <= per_decision && per_decision <= d.high.unwrap(),
                "{per_decision} not in {d:?}"
            );
            // Its costliest habit: stopping where rolling again is better.
            assert!(
                p.habits[0].habit.starts_with("stopped rolling"),
                "{:?}",
                p.habits
            );
        }
    }
}

#[test]
fn review_of_a_folder_rates_its_players() {
    let tables = yacht_tables();
    let dir = temp_dir();
    let folder = dir.path().join("games");
    std::fs::create_dir(&folder).unwrap();
    for seed in 1..=3 {
        let text = record(&tables, None, seed);
        std::fs::write(folder.join(format!("bot-{seed}.jsonl")), &text).unwrap();
    }
    std::fs::write(
        folder.join("ann.jsonl"),
        record(&tables, Some(Policy::MostCommon), 4),
    )
    .unwrap();
    std::fs::write(folder.join("notes.txt"), "not a record").unwrap();
    let review = |args: &[&str]| {
        table(RuleSet::YACHT, Order::Any);
        yahtzee_in(table_dir())
            .arg("review")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let o = review(&[&path_str(&folder), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["records"], 4);
    assert_eq!(v["rules"], "yacht");
    let players = v["players"].as_array().unwrap();
    let names: Vec<&str> = players
        .iter()
        .map(|p| p["player"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ann", "bot"]);
    assert_eq!(players[1]["games"], 3);
    assert_eq!(players[1]["loss_per_game"]["mean"], 0.0);
    assert_eq!(players[1]["rating"], "master");
    // One game: a mean without an interval.
    assert_eq!(players[0]["games"], 1);
    assert!(players[0]["loss_per_game"]["low"].is_null());
    assert!(players[0]["loss_per_game"]["mean"].as_f64().unwrap() > 0.0);
    // Two files given, and the text report.
    let a = path_str(&folder.join("bot-1.jsonl"));
    let b = path_str(&folder.join("bot-2.jsonl"));
    let o = review(&[&a, &b]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("bot: 2 games (2 complete)"), "{out}");
    assert!(out.contains("rating            master"), "{out}");
    // One file with --rating: the rating, not the decisions.
    let o = review(&[&a, "--rating", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["records"], 1);
    // A rating is in points.
    let o = review(&[&a, &b, "--target", "150"]);
    assert_bad_input(&o, "a rating across games is in expected points");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = review(&[&path_str(&empty)]);
    assert_bad_input(&o, "holds no game record");
    // Records of two rule sets: refused before any table is read.
    let head = std::fs::read_to_string(&a).unwrap();
    let head = head
        .lines()
        .next()
        .unwrap()
        .replace(r#""rules":"yacht""#, r#""rules":"yahtzee""#);
    let other = dir.path().join("yahtzee.jsonl");
    std::fs::write(&other, head + "\n").unwrap();
    let o = review(&[&a, &path_str(&other)]);
    assert_bad_input(&o, "rate the records of each rule set apart");
}
