//! `yahtzee simulate --match`: matches between policies. Even policies split the wins, the
//! same games at any thread count, the win bot beats the expected-score policy at Yacht by
//! more than its interval, plays like it once the game is decided, the exact bot plays the
//! best response of the win advice, and bad lineups are refused in one line.

use yahtzee_core::game::dice::{Dice, DiceRng};
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::ScoreCard;
use yahtzee_core::policy::Policy;
use yahtzee_core::policy::cache::TurnCache;
use yahtzee_core::policy::expected::{Action, Position};
use yahtzee_core::policy::player::{Player, players};
use yahtzee_core::policy::win::{FinalScores, Opponent, advise_against, best_response};
use yahtzee_core::report::{MatchReport, play_match};
use yahtzee_core::stats::matches::{self, Match, MatchTally};
use yahtzee_core::stats::simulate::play_turn;

use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::vector::VectorTable;

use crate::util::*;

/// The Yacht tables a match of every policy plays with.
struct YachtTables {
    ev: &'static StrategyTable,
    targets: &'static VectorTable<f32>,
    distribution: &'static VectorTable<f32>,
}

fn yacht_tables() -> YachtTables {
    YachtTables {
        ev: table(RuleSet::YACHT, Order::Any),
        targets: target_table(RuleSet::YACHT, Order::Any),
        distribution: distribution_table(RuleSet::YACHT, Order::Any),
    }
}

/// Plays `games` games of `lineup` at Yacht with `seed` on `threads` threads.
fn yacht_match(lineup: &str, games: u64, seed: u64, threads: usize) -> (MatchReport, MatchTally) {
    yacht_match_with(lineup, games, seed, threads, false)
}

/// [`yacht_match`] on every core, recording the games.
fn yacht_match_recorded(lineup: &str, games: u64, seed: u64) -> (MatchReport, MatchTally) {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    yacht_match_with(lineup, games, seed, threads, true)
}

fn yacht_match_with(
    lineup: &str,
    games: u64,
    seed: u64,
    threads: usize,
    record: bool,
) -> (MatchReport, MatchTally) {
    let policies = matches::parse_lineup(lineup).unwrap();
    let set = table_set(RuleSet::YACHT, Order::Any);
    let seats = players(&policies, set).unwrap();
    let m = Match::new(
        Rules::new(RuleSet::YACHT),
        seats,
        Some(yacht_tables().distribution),
    )
    .unwrap();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| play_match(&m, games, seed, record, &|_| {}))
        .unwrap()
}

/// Two seats playing the same policy win half the games each, within the interval; the
/// shares of the seats make the games; each seat's mean holds the expected score of the
/// table (each plays the optimal policy on its own dice); ties are rare (a tie on every game
/// would mean the seats share their dice).
#[test]
fn ev_against_ev_wins_half_the_games_within_its_interval() {
    let games = 20_000;
    let (report, tally) = yacht_match("ev,ev", games, 5, 2);
    let expected = table(RuleSet::YACHT, Order::Any).expected_score();
    for seat in &report.seats {
        let w = &seat.win_rate;
        assert!(w.low < 0.5 && 0.5 < w.high, "seat {}: {w:?}", seat.seat);
        // The interval is that of 20,000 games: about 0.7 points either side.
        assert!(w.high - w.low < 0.015, "{w:?}");
        let m = &seat.mean_interval;
        assert!(m.low < expected && expected < m.high, "{m:?} vs {expected}");
        assert_eq!(seat.policy, Policy::Optimal);
        assert_eq!(seat.turns, games * 12);
    }
    let shares: f64 = tally.seats.iter().map(|s| s.win_share()).sum();
    assert!((shares - games as f64).abs() < 1e-9, "{shares}");
    assert_eq!(tally.games, games);
    assert!(
        report.tied_games > 0 && report.tied_games < games / 50,
        "{} tied games",
        report.tied_games
    );
    assert_eq!(tally.seats[0].ties(), report.tied_games);
    assert!(report.model.is_none());
}

/// A seed plays the same games at any thread count, also with the win bot and three seats.
#[test]
fn a_match_plays_the_same_games_at_any_thread_count() {
    let (_, one) = yacht_match("win,ev,target:180", 150, 3, 1);
    let (_, two) = yacht_match("win,ev,target:180", 150, 3, 2);
    assert_eq!(one, two);
    let (_, other) = yacht_match("win,ev,target:180", 150, 4, 2);
    assert_ne!(one, other);
    // Through the binary too: the reports agree but for the time and the threads.
    let json = |threads: &str| {
        let o = run(
            RuleSet::YACHT,
            Order::Any,
            &[
                "simulate",
                "--rules",
                "yacht",
                "--match",
                "win,most-common,ev",
                "--games",
                "60",
                "--seed",
                "8",
                "--threads",
                threads,
                "--json",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let mut v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        let top = v.as_object_mut().unwrap();
        for volatile in ["seconds", "games_per_second", "threads"] {
            top.remove(volatile);
        }
        for seat in top["seats"].as_array_mut().unwrap() {
            let seat = seat.as_object_mut().unwrap();
            seat.remove("ms_per_turn");
            seat.remove("ms_per_decision");
        }
        v
    };
    distribution_table(RuleSet::YACHT, Order::Any);
    target_table(RuleSet::YACHT, Order::Any);
    let a = json("1");
    assert_eq!(a, json("2"));
    assert_eq!(a["games"], 60);
    assert_eq!(a["seats"].as_array().unwrap().len(), 3);
}

/// The win bot beats the expected-score policy at two-player Yacht. Measured game by game:
/// the bot's share of each game's win less the share of `ev` in the same seat of an `ev,ev`
/// match on the same seed, where the other seat plays the very same games (each seat rolls
/// its own dice). Over 12,000 games the lower end of that gain's 95% interval is above 0,
/// which a bot no better than `ev` would reach once in 40 seeds. (The gain is about 1.8
/// points of win rate, `results/match-*.md`: 12,000 games put the lower end near 1.1.)
#[test]
fn win_beats_ev_at_yacht_beyond_its_interval() {
    let games = 12_000;
    let (report, bot) = yacht_match_recorded("win,ev", games, 2026);
    let (_, control) = yacht_match_recorded("ev,ev", games, 2026);
    let share = |scores: &[u32]| {
        let best = scores.iter().max().unwrap();
        let first = scores.iter().filter(|&s| s == best).count();
        if scores[0] == *best {
            1.0 / first as f64
        } else {
            0.0
        }
    };
    let (bot, control) = (bot.records.unwrap(), control.records.unwrap());
    let gains: Vec<f64> = bot
        .iter()
        .zip(&control)
        .map(|(b, c)| {
            // The ev seat's games are the same in both matches.
            assert_eq!(b.scores[1], c.scores[1], "game {}", b.game);
            share(&b.scores) - share(&c.scores)
        })
        .collect();
    let n = gains.len() as f64;
    let mean = gains.iter().sum::<f64>() / n;
    let sd = (gains.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let low = mean - 1.96 * sd / n.sqrt();
    println!(
        "gain of win over ev: {mean:.4}, 95% interval [{low:.4}, {:.4}]",
        mean + 1.96 * sd / n.sqrt()
    );
    assert!(low > 0.0, "gain {mean}, lower end {low}");
    let win = &report.seats[0];
    assert_eq!(win.policy, Policy::Win);
    assert!(win.win_rate.share > 0.5, "{:?}", win.win_rate);
    // It gives up average for it.
    assert!(win.mean < report.seats[1].mean);
    assert!(report.model.is_some());
}

/// Cards met in games of the expected-score policy at Yacht: every turn-start card of a few
/// games.
fn cards_of_ev_games(games: u64) -> Vec<ScoreCard> {
    let ev = table(RuleSet::YACHT, Order::Any);
    let rules = *ev.rules();
    let player = Player::Optimal(ev);
    let mut cards = Vec::new();
    for g in 0..games {
        let mut rng = DiceRng::with_stream(77, g);
        let mut card = ScoreCard::new(rules);
        while !card.is_full() {
            cards.push(card.clone());
            let state = card.state();
            let turn = player.turn(&state, card.banked(), None);
            let played = play_turn(&rules, &turn, &state, &mut rng);
            card.fill(played.index, played.points, played.bonuses.yahtzee);
        }
    }
    cards
}

/// Once the game is decided the bots that play to win play the expected-score policy,
/// choice for choice: against an opponent who has finished below the points the player has
/// banked, against one still playing who cannot reach them, and against one the player can
/// no longer reach.
#[test]
fn win_bots_play_like_ev_once_the_game_is_decided() {
    let tables = yacht_tables();
    let ev = tables.ev;
    let rules = *ev.rules();
    let seats = vec![
        Player::Win {
            ev,
            targets: tables.targets,
        },
        Player::WinExact { ev },
        Player::Optimal(ev),
    ];
    let m = Match::new(rules, seats, Some(tables.distribution)).unwrap();
    // An opponent with one box open (ones) and 5 points: at most 10 in the end.
    let names: Vec<&str> = rules.boxes().iter().map(|b| b.name).collect();
    let low: Vec<(&str, u32)> = names[1..]
        .iter()
        .map(|&n| (n, rules.possible_scores(rules.box_by_name(n).unwrap())[0]))
        .collect();
    let stuck = ScoreCard::from_points(rules, &low, 0).unwrap();
    assert_eq!(stuck.banked(), 5);
    let cache = TurnCache::new(ev);
    let mut checked = 0;
    for (i, card) in cards_of_ev_games(6).into_iter().enumerate() {
        let banked = card.banked();
        let mut decided = vec![vec![FinalScores::point(1_000)]];
        if banked > 10 {
            decided.push(vec![FinalScores::point(banked - 1)]);
            let still_playing = m.opponents(0, &[card.clone(), stuck.clone()]);
            // 5 banked, then 0 to 5 ones: no one in fifteen dice has chance (5/6)^15.
            assert_eq!((still_playing[0].lo, still_playing[0].hi()), (5, 10));
            assert!((still_playing[0].pmf[0] - (5.0f64 / 6.0).powi(15)).abs() < 1e-6);
            decided.push(still_playing);
        }
        for opponents in decided {
            // The exact bot solves its best response: on a few cards only.
            let bots: &[usize] = if i % 7 == 3 { &[0, 1] } else { &[0] };
            for &bot in bots {
                let mut exact = None;
                let turn = m.turn(bot, &card, &opponents, None, &mut exact);
                let mut none = None;
                let optimal = m.turn(2, &card, &[], Some(&cache), &mut none);
                let state = card.state();
                for dice in
                    Dice::all().filter(|d| d.index() >= yahtzee_core::game::dice::FIRST_ROLL)
                {
                    for rolls_left in [2, 1] {
                        assert_eq!(
                            turn.keep(rolls_left, &dice),
                            optimal.keep(rolls_left, &dice),
                            "bot {bot}, {card} banked {banked}, {dice:?}, {rolls_left} left"
                        );
                    }
                    assert_eq!(
                        turn.choose_box(&rules, &state, &dice),
                        optimal.choose_box(&rules, &state, &dice),
                        "bot {bot}, {card}, {dice:?}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 40_000, "{checked}");
}

/// `win-exact` plays the best response: its choices are the first options of the win
/// advice against the same opponents, on every roll of a few positions; and the fast bot
/// agrees with it on most of them.
#[test]
fn win_exact_plays_the_first_option_of_the_win_advice() {
    let tables = yacht_tables();
    let ev = tables.ev;
    let rules = *ev.rules();
    let seats = vec![
        Player::WinExact { ev },
        Player::Win {
            ev,
            targets: tables.targets,
        },
    ];
    let m = Match::new(rules, seats, Some(tables.distribution)).unwrap();
    let cards = [
        (
            "ones=3,twos=6,fours=12,choice=22",
            "sixes=24,yacht=50,fives=15",
        ),
        (
            "ones=2,twos=4,threes=9,fours=12,fives=15,full-house=0,big-straight=30",
            "ones=3,twos=6,threes=9,fours=16,fives=20,sixes=24,little-straight=30",
        ),
    ];
    let (mut same, mut total) = (0, 0);
    for (mine, theirs) in cards {
        let card = ScoreCard::parse(rules, mine, 0).unwrap();
        let other = ScoreCard::parse(rules, theirs, 0).unwrap();
        let opponents = m.opponents(0, &[card.clone(), other.clone()]);
        let response = best_response(&card, &opponents, yahtzee_core::solve::simd::Simd::detect());
        let mut exact = None;
        let turn = m.turn(0, &card, &opponents, None, &mut exact);
        let mut unused = None;
        let fast = m.turn(1, &card, &opponents, None, &mut unused);
        let state = card.state();
        for dice in Dice::all().filter(|d| d.index() >= yahtzee_core::game::dice::FIRST_ROLL) {
            for rolls_left in [2u8, 1, 0] {
                let position = Position {
                    card: card.clone(),
                    dice,
                    rolls_left,
                };
                let advice = advise_against(
                    ev,
                    &response,
                    &position,
                    &[Opponent::Playing(other.clone())],
                    &opponents,
                )
                .unwrap();
                let (played, by_fast) = if rolls_left == 0 {
                    let name = |b: (usize, u32, _)| rules.boxes()[b.0].name.to_string();
                    (
                        name(turn.choose_box(&rules, &state, &dice)),
                        name(fast.choose_box(&rules, &state, &dice)),
                    )
                } else {
                    let faces = |k: yahtzee_core::game::dice::Keep| format!("{:?}", k.faces());
                    (
                        faces(turn.keep(rolls_left, &dice)),
                        faces(fast.keep(rolls_left, &dice)),
                    )
                };
                let best = match &advice.options[0].action {
                    Action::Score { category, .. } => category.to_string(),
                    Action::Keep { keep, .. } => format!("{:?}", keep.faces()),
                };
                assert_eq!(played, best, "{mine} {dice:?} {rolls_left} left");
                same += usize::from(by_fast == best);
                total += 1;
            }
        }
    }
    println!("the fast bot agrees with the best response on {same} of {total} choices");
    assert!(same * 10 > total * 8, "{same} of {total}");
}

#[test]
fn a_match_reports_each_seat() {
    distribution_table(RuleSet::YACHT, Order::Any);
    target_table(RuleSet::YACHT, Order::Any);
    let args = [
        "simulate",
        "--rules",
        "yacht",
        "--match",
        "ev,greedy,win",
        "--games",
        "300",
    ];
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[&args[..], &["--json"]].concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["rules"], "yacht");
    assert_eq!(v["games"], 300);
    let seats = v["seats"].as_array().unwrap();
    let names: Vec<&str> = seats
        .iter()
        .map(|s| s["policy"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["optimal", "greedy", "win"]);
    let mut total = 0.0;
    for (i, s) in seats.iter().enumerate() {
        assert_eq!(s["seat"], i + 1);
        let w = &s["win_rate"];
        let share = w["share"].as_f64().unwrap();
        assert!(w["low"].as_f64().unwrap() <= share && share <= w["high"].as_f64().unwrap());
        total += share;
        assert_eq!(s["turns"], 300 * 12);
        let decisions = s["decisions"].as_u64().unwrap();
        assert!(
            (300 * 12 * 2..=300 * 12 * 3).contains(&decisions),
            "{decisions}"
        );
        assert!(s["ms_per_turn"].as_f64().unwrap() > 0.0);
    }
    assert!((total - 1.0).abs() < 1e-12, "{total}");
    // Greedy never re-rolls: one keep and one box a turn; it wins next to nothing.
    assert_eq!(seats[1]["decisions"], 300 * 12 * 2);
    assert!(seats[1]["win_rate"]["share"].as_f64().unwrap() < 0.05);
    assert!(seats[1].get("tie_convention").is_none());
    assert!(
        seats[2]["tie_convention"]
            .as_str()
            .unwrap()
            .contains("chances of winning")
    );
    assert!(v["order"].as_str().unwrap().contains("g mod n"));
    assert!(v["model"].as_str().unwrap().contains("highest average"));
    let human = stdout(&run(RuleSet::YACHT, Order::Any, &args));
    assert!(
        human.starts_with("yacht: 300 games, optimal vs greedy vs win, seed 1"),
        "{human}"
    );
    assert!(human.contains("win rate"), "{human}");
    assert!(
        human.lines().any(|l| l.trim_start().starts_with("3  win ")),
        "{human}"
    );
    assert!(
        human.contains("order: every player takes turn 1"),
        "{human}"
    );
}

/// `--games-csv` writes every game: who started (the seats in turn) and the final scores,
/// whose means are the report's; the same seed gives the `ev` seat the same games whatever
/// the other seat plays.
#[test]
fn a_match_writes_its_games() {
    let dir = temp_dir();
    let csv = |lineup: &str| {
        let path = dir.path().join(format!("{lineup}.csv"));
        let o = run(
            RuleSet::YACHT,
            Order::Any,
            &[
                "simulate",
                "--rules",
                "yacht",
                "--match",
                lineup,
                "--games",
                "50",
                "--json",
                "--games-csv",
                &path_str(&path),
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let rows: Vec<Vec<u32>> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
            .collect();
        assert_eq!(text.lines().next(), Some("game,first_seat,seat_1,seat_2"));
        assert_eq!(rows.len(), 50);
        for (g, row) in rows.iter().enumerate() {
            assert_eq!(row[..2], [g as u32, g as u32 % 2 + 1]);
        }
        for seat in 0..2 {
            let mean = rows.iter().map(|r| f64::from(r[2 + seat])).sum::<f64>() / 50.0;
            let reported = v["seats"][seat]["mean"].as_f64().unwrap();
            assert!((mean - reported).abs() < 1e-9, "{mean} {reported}");
        }
        rows
    };
    distribution_table(RuleSet::YACHT, Order::Any);
    target_table(RuleSet::YACHT, Order::Any);
    let control = csv("ev,ev");
    let bot = csv("most-common,ev");
    let ev_seat = |rows: &[Vec<u32>]| rows.iter().map(|r| r[3]).collect::<Vec<_>>();
    assert_eq!(ev_seat(&control), ev_seat(&bot));
    assert_ne!(control, bot);
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["simulate", "--rules", "yacht", "--games-csv", "x.csv"],
    );
    assert_bad_input(&o, "--match");
}

#[test]
fn bad_lineups_are_refused_in_one_line() {
    for (args, needle) in [
        (
            &["--match", "ev"][..],
            "a match needs two policies or more, separated by commas, e.g. ev,win; got only `ev`",
        ),
        (
            &["--match", "ev,lucky"],
            "policy 2 of the match: unknown policy `lucky`",
        ),
        (
            &["--match", "target,ev"],
            "policy 1 of the match: the target policy needs its target score: target:T",
        ),
        (
            &["--match", "ev,target:x"],
            "`target:x` must be a whole number",
        ),
        (
            &["--match", "ev,,win"],
            "policy 2 of the match: unknown policy",
        ),
        (
            &["--match", "ev,ev,ev,ev,ev,ev,ev,ev,ev"],
            "a match takes at most 8 policies, not 9",
        ),
        (
            &["--policy", "win"],
            "win needs opponents: use --match ev,win",
        ),
        (
            &["--policy", "win-exact"],
            "win-exact needs opponents: use --match ev,win-exact",
        ),
        (&["--match", "ev,win", "--policy", "greedy"], "--policy"),
        (&["--match", "ev,win", "--pmf", "x.csv"], "--pmf"),
        (&["--match", "ev,win", "--games", "0"], "--games 0"),
    ] {
        let o = run(
            RuleSet::YACHT,
            Order::Any,
            &[&["simulate", "--rules", "yacht"][..], args].concat(),
        );
        assert_bad_input(&o, needle);
    }
}

/// The games of a match, played in lockstep with the win bot's turns of one state sharing
/// their lanes, are the games each plays alone: every game replayed here seat by seat, each
/// turn computed for that game only (`Match::opponents`, `Match::turn`, `play_turn` on the
/// seat's own dice), ends with the same scores, whoever starts, with three seats.
#[test]
fn lockstep_matches_play_the_games_each_plays_alone() {
    let tables = yacht_tables();
    let (games, seed) = (400, 31);
    let (_, tally) = yacht_match_recorded("win,ev,target:160", games, seed);
    let policies = matches::parse_lineup("win,ev,target:160").unwrap();
    let seats = players(&policies, table_set(RuleSet::YACHT, Order::Any)).unwrap();
    let m = Match::new(Rules::new(RuleSet::YACHT), seats, Some(tables.distribution)).unwrap();
    let rules = *m.rules();
    let n = m.seats().len();
    let records = tally.records.unwrap();
    assert_eq!(records.len(), games as usize);
    for r in &records {
        let g = r.game;
        let start = (g % n as u64) as usize;
        assert_eq!(r.first, start);
        let mut dice: Vec<DiceRng> = (0..n)
            .map(|s| DiceRng::with_stream(seed, g * n as u64 + s as u64))
            .collect();
        let mut cards = vec![ScoreCard::new(rules); n];
        for _ in 0..rules.box_count() {
            for k in 0..n {
                let seat = (start + k) % n;
                let opponents = if m.seats()[seat].plays_to_win() {
                    m.opponents(seat, &cards)
                } else {
                    Vec::new()
                };
                let mut exact = None;
                let turn = m.turn(seat, &cards[seat], &opponents, None, &mut exact);
                let played = play_turn(&rules, &turn, &cards[seat].state(), &mut dice[seat]);
                drop(turn);
                cards[seat].fill(played.index, played.points, played.bonuses.yahtzee);
            }
        }
        let alone: Vec<u32> = cards.iter().map(ScoreCard::banked).collect();
        assert_eq!(r.scores, alone, "game {g}");
    }
}
