//! Bots that play to win (`play --players alice,bot:win`), the coach for winning (`play
//! --coach win`) and the review priced in chance of winning (`review --win`), on Yacht (its
//! tables build in under a second).

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;

use serde_json::Value;
use yahtzee_core::game::choice::Choice;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::play::host::{DiceSource, PlayOptions, parse_seats};
use yahtzee_core::play::record::RecordWriter;
use yahtzee_core::play::review::GameRecord;
use yahtzee_core::play::session::play;
use yahtzee_core::policy::player::Player;
use yahtzee_core::policy::win::{Opponent, advise_win};
use yahtzee_core::stats::matches::Match;
use yahtzee_core::tables::set::TableSet;

use crate::util::*;

/// The three tables of Yacht in the shared folder, so that the binary finds them.
fn tables() {
    table(RuleSet::YACHT, Order::Any);
    target_table(RuleSet::YACHT, Order::Any);
    distribution_table(RuleSet::YACHT, Order::Any);
}

/// `yahtzee play --rules yacht ARGS` with `input` typed.
fn play_yacht(args: &[&str], input: &str) -> Output {
    tables();
    let mut all = vec!["play", "--rules", "yacht"];
    all.extend_from_slice(args);
    run_with_input(table_dir(), &all, input)
}

/// A seeded game of Yacht between `players`, recorded in `dir`; the record and the output.
fn bot_game(dir: &Path, players: &str, seed: &str) -> (PathBuf, String) {
    let record = dir.join(format!(
        "{}-{seed}.jsonl",
        players.replace([':', '=', ','], "-")
    ));
    let o = play_yacht(
        &[
            "--players",
            players,
            "--seed",
            seed,
            "--record",
            &path_str(&record),
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    (record, stdout(&o))
}

/// `yahtzee review RECORD --json ARGS`.
fn review(record: &Path, args: &[&str]) -> Value {
    tables();
    review_json(RuleSet::YACHT, Order::Any, record, args)
}

fn loss(p: &Value) -> f64 {
    p["total_loss"].as_f64().unwrap()
}

/// A `win-exact` bot plays the best response to the others' cards at each of its turns,
/// which is what the review prices with: it reviews at zero loss in chance of winning, at a
/// table of two and of three (with a fast win bot beside it). The fast win bot is an
/// approximation: its loss there is small, not always 0.
#[test]
fn win_bots_review_at_zero_loss_in_win_probability() {
    let dir = temp_dir();
    for (players, seed) in [("bot:win-exact,bot2", "1"), ("bot2,bot:win-exact", "6")] {
        let (record, out) = bot_game(dir.path(), players, seed);
        assert!(
            out.contains("bot (playing to win, exact best response)"),
            "{out}"
        );
        let head = &record_events(&record)[0];
        assert_eq!(head["format"], yahtzee_core::play::record::RECORD_FORMAT);
        assert_eq!(head["coach_win"], false);
        let exact = players.split(',').position(|p| p.contains(':')).unwrap();
        assert_eq!(head["seats"][exact]["policy"], "win-exact");
        assert!(head["seats"][1 - exact].get("policy").is_none());
        let r = review(&record, &["--win"]);
        assert_eq!(r["objective"], "win");
        assert!(r["target"].is_null());
        assert!(r["model"].as_str().unwrap().contains("does not react"));
        let p = &r["players"][exact];
        assert_eq!(p["policy"], "win-exact");
        assert_eq!(loss(p), 0.0, "seed {seed}: {p}");
        assert_eq!(p["by_size"]["optimal"], p["decisions"]);
        assert!(p["decisions"].as_u64().unwrap() >= 12, "{p}");
        // The optimal bot plays for the average, which is not always the best to win.
        assert!(loss(&r["players"][1 - exact]) > 0.0, "{r}");
        for d in r["decisions"].as_array().unwrap() {
            let (c, b) = (
                d["chosen_value"].as_f64().unwrap(),
                d["best_value"].as_f64().unwrap(),
            );
            assert!((0.0..=1.0).contains(&c) && c <= b + 1e-9, "{d}");
        }
    }
    // Three players, two playing to win.
    let (record, out) = bot_game(dir.path(), "bot:win,bot2:win-exact,bot3", "4");
    assert!(
        out.contains(
            "players bot (playing to win), bot2 (playing to win, exact best response), bot3"
        ),
        "{out}"
    );
    let r = review(&record, &["--win"]);
    assert_eq!(loss(&r["players"][1]), 0.0, "{}", r["players"][1]);
    let fast = &r["players"][0];
    assert_eq!(fast["policy"], "win");
    // Measured on seeds 1 to 16 of bot:win,bot2: at most 0.0155 in a game (36 decisions).
    assert!(fast["mean_loss"].as_f64().unwrap() < 0.002, "{fast}");
}

/// A bot of `yahtzee play` and a seat of `simulate --match` choose alike in the same
/// position: every decision of the win bots of a game is the choice of the match's turn for
/// that seat, against the other players' cards at the moment (finished players at their
/// totals, which the last players of the last round meet).
#[test]
fn a_win_bot_chooses_as_a_match_seat_does() {
    tables();
    let rules = Rules::new(RuleSet::YACHT);
    let ev = table(RuleSet::YACHT, Order::Any);
    let targets = target_table(RuleSet::YACHT, Order::Any);
    let distribution = distribution_table(RuleSet::YACHT, Order::Any);
    let options = PlayOptions {
        rules,
        seats: parse_seats("bot:win,bot2:win-exact,bot3").unwrap(),
        dice: DiceSource::Seeded(12),
        coach_threshold: None,
        coach_target: None,
        coach_win: false,
    };
    let mut record = RecordWriter::new("game.jsonl", Vec::new());
    // The shared set's tables, in a set of the game's own.
    let set = table_set(RuleSet::YACHT, Order::Any);
    let tables = TableSet::of_expected_score(Arc::clone(set.ev().unwrap()))
        .with_target(Arc::clone(set.target().unwrap()))
        .with_distribution(Arc::clone(set.distribution().unwrap()));
    let summary = play(
        Arc::new(tables),
        &options,
        &b""[..],
        Vec::new(),
        &mut record,
    )
    .unwrap();
    assert!(summary.complete);
    let record = GameRecord::parse(record.into_inner()).unwrap();
    let m = Match::new(
        rules,
        vec![
            Player::Win { ev, targets },
            Player::WinExact { ev },
            Player::Optimal(ev),
        ],
        Some(distribution),
    )
    .unwrap();
    let mut checked = [0, 0];
    let mut against_finished = 0;
    for (_, d) in &record.decisions {
        if d.seat == 2 {
            continue;
        }
        against_finished += usize::from(
            d.cards
                .iter()
                .enumerate()
                .any(|(i, c)| i != d.seat && c.is_full()),
        );
        let opponents = m.opponents(d.seat, &d.cards);
        let mut exact = None;
        let turn = m.turn(d.seat, &d.cards[d.seat], &opponents, None, &mut exact);
        let dice = &d.position.dice;
        match d.choice {
            Choice::Keep(k) => assert_eq!(turn.keep(d.position.rolls_left, dice), k),
            Choice::Score(i) => {
                let state = d.position.card.state();
                assert_eq!(turn.choose_box(&rules, &state, dice).0, i);
            }
        }
        checked[d.seat] += 1;
    }
    assert!(checked.iter().all(|&n| n >= 24), "{checked:?}");
    assert!(against_finished > 0);
}

/// Behind late, the win bot gambles where the optimal bot plays for the average: on the same
/// seed the two games part, and the win bot gives away expected points that the review in
/// points counts.
#[test]
fn a_win_bot_plays_otherwise_than_the_optimal_bot() {
    let dir = temp_dir();
    let (optimal, _) = bot_game(dir.path(), "bot,bot2", "2");
    let (win, _) = bot_game(dir.path(), "bot:win,bot2", "2");
    assert_ne!(record_events(&optimal)[2..], record_events(&win)[2..]);
    let r = review(&win, &["--target", "off"]);
    assert_eq!(r["objective"], "expected-score");
    assert!(loss(&r["players"][0]) > 0.0, "{}", r["players"][0]);
    assert_eq!(loss(&r["players"][1]), 0.0);
}

/// `--coach win`: the coach prices a person's decisions in chance of winning against the
/// other players at the table and says what a decision cost; the hints rank by that chance
/// with the model stated; the review prices the record in chance of winning by default,
/// with the losses the coach printed, and those are `advise --opponent`'s.
#[test]
fn the_coach_for_winning_prices_as_the_review_and_advise_do() {
    let dir = temp_dir();
    let record = dir.path().join("coached.jsonl");
    let rec = path_str(&record);
    // Any open box takes any dice in Yacht: re-roll all twice, then the next box.
    let boxes = Rules::new(RuleSet::YACHT)
        .boxes()
        .iter()
        .map(|b| b.name().to_string())
        .collect::<Vec<_>>();
    let mut input = String::from("hint\n");
    for b in &boxes {
        input.push_str(&format!("r\nr\ns {b}\n"));
    }
    let o = play_yacht(
        &[
            "--players",
            "ann,bot",
            "--seed",
            "3",
            "--coach",
            "win",
            "--coach-threshold",
            "0",
            "--record",
            &rec,
        ],
        &input,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("price every decision in chance of winning against the other players at the table (model: each opponent plays for the highest average"),
        "{out}"
    );
    assert!(out.contains("P(win)"), "{out}");
    assert!(out.contains("  model: each opponent plays"), "{out}");
    let head = &record_events(&record)[0];
    assert_eq!(head["coach_win"], true);
    assert_eq!(head["coach_threshold"], 0.0);
    let r = review(&record, &[]);
    assert_eq!(r["objective"], "win");
    let ann: Vec<&Value> = r["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["player"] == "ann")
        .collect();
    assert_eq!(ann.len(), 36);
    let costly: Vec<&&Value> = ann
        .iter()
        .filter(|d| d["loss"].as_f64().unwrap() > 0.0)
        .collect();
    assert!(costly.len() > 5, "{r}");
    for d in &costly {
        let loss = d["loss"].as_f64().unwrap();
        assert!(
            out.contains(&format!("lowers the chance of winning by {loss:.4}")),
            "{loss} not in {out}"
        );
    }
    assert_eq!(
        out.matches("lowers the chance of winning by").count(),
        costly.len()
    );
    // Each of ann's decisions, priced by `advise --opponent` against the bot's card then.
    let parsed = GameRecord::parse(std::fs::read(&record).unwrap()).unwrap();
    let ev = table(RuleSet::YACHT, Order::Any);
    let distribution = distribution_table(RuleSet::YACHT, Order::Any);
    let mine = parsed.decisions.iter().filter(|(_, d)| d.seat == 0);
    for ((line, d), reviewed) in mine.zip(&ann) {
        assert_eq!(reviewed["line"], *line);
        let bot = &d.cards[1];
        let opponent = if bot.is_full() {
            Opponent::Finished(bot.banked())
        } else {
            Opponent::Playing(bot.clone())
        };
        let advice =
            advise_win(ev, Some(distribution), &d.position, &[opponent], &|_, _| {}).unwrap();
        let chosen = advice
            .options
            .iter()
            .find(|o| o.action.to_string() == reviewed["choice"].as_str().unwrap())
            .or_else(|| {
                // A stop is priced with the best box.
                (reviewed["choice"] == "stop rolling").then(|| {
                    advice
                        .options
                        .iter()
                        .find(|o| o.action.to_string().starts_with("stop"))
                        .unwrap()
                })
            })
            .unwrap();
        let want = if chosen.loss <= 1e-9 {
            0.0
        } else {
            chosen.loss
        };
        // To the last bit but for the JSON reader's rounding of a float (an ulp).
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-15;
        assert!(
            close(reviewed["loss"].as_f64().unwrap(), want),
            "line {line}"
        );
        assert!(close(
            reviewed["best_value"].as_f64().unwrap(),
            advice.p_win
        ));
    }
    // `--target off` prices the same record in points, `--target T` for T.
    assert_eq!(
        review(&record, &["--target", "off"])["objective"],
        "expected-score"
    );
    assert_eq!(review(&record, &["--target", "150"])["objective"], "target");
}

#[test]
fn bad_win_seats_flags_and_records_exit_2_with_one_line() {
    for (args, needle) in [
        (
            vec!["--players", "bot:win"],
            "seat `bot:win` plays to win against the other players, but it is alone at the table",
        ),
        (
            vec!["--players", "ann:win,bot"],
            "seat `ann:win`: only a bot (bot, bot2, ...) has a policy",
        ),
        (
            vec!["--players", "ann,bot:winning"],
            "seat `bot:winning`: only a bot",
        ),
        (
            vec!["--players", "ann,bot:win-exact=3"],
            "bot:win, bot:win-exact or bot:two-player",
        ),
        (
            vec!["--coach", "win"],
            "--coach win prices in chance of winning against the other players, but --players has only one seat",
        ),
        (
            vec!["--players", "ann,bot", "--coach", "win", "--target", "150"],
            "--coach",
        ),
        (vec!["--players", "ann,bot", "--coach", "lots"], "--coach"),
        (
            vec![
                "--players",
                "ann,bot",
                "--coach",
                "win",
                "--coach-threshold",
                "2",
            ],
            "--coach-threshold with --coach win is `off` or a chance from 0 to 1",
        ),
    ] {
        let o = play_yacht(&args, "");
        assert_bad_input(&o, needle);
    }
    let dir = temp_dir();
    let head = r#"{"type":"game","format":3,"rules":"yacht","upper_first":false,"seats":[{"name":"ann","kind":"human"},{"name":"bot","kind":"bot","policy":"win"}],"dice":"manual","seed":null,"coach_threshold":0.2,"coach_target":null,"coach_win":false,"started":"2026-01-01T00:00:00Z"}"#;
    let alone = r#"{"type":"game","format":3,"rules":"yacht","upper_first":false,"seats":[{"name":"ann","kind":"human"}],"dice":"manual","seed":null,"coach_threshold":0.2,"coach_target":null,"coach_win":false,"started":"2026-01-01T00:00:00Z"}"#;
    for (i, (text, args, needle)) in [
        (
            head.replace("\"format\":3", "\"format\":2"),
            vec![],
            "line 1: record format 2 has no win bots and no coach for winning",
        ),
        (
            head.replace(",\"policy\":\"win\"", "")
                .replace("\"coach_win\":false", "\"coach_win\":true")
                .replace("\"format\":3", "\"format\":1"),
            vec![],
            "line 1: record format 1 has no win bots",
        ),
        (
            head.replace("\"kind\":\"bot\"", "\"kind\":\"human\""),
            vec![],
            "line 1: seat `bot:win`: only a bot",
        ),
        (
            head.replace("{\"name\":\"ann\",\"kind\":\"human\"},", ""),
            vec![],
            "line 1: seat `bot:win` plays to win against the other players, but it is alone",
        ),
        (
            head.replace("\"coach_target\":null", "\"coach_target\":150")
                .replace("\"coach_win\":false", "\"coach_win\":true"),
            vec![],
            "line 1: the coach coached to win or for a target, not both",
        ),
        (
            head.replace("\"coach_win\":false", "\"coach_win\":true")
                .replace("\"coach_threshold\":0.2", "\"coach_threshold\":3"),
            vec![],
            "line 1: coach_threshold must be 0 or more (a chance from 0 to 1",
        ),
        (
            head.replace("\"policy\":\"win\"", "\"policy\":\"lucky\""),
            vec![],
            "line 1: not a game header (unknown variant `lucky`, expected one of `win`, `win-exact`, `two-player`)",
        ),
        (
            alone.to_string(),
            vec!["--win"],
            "--win prices in chance of winning against the other players, but the record has one player",
        ),
        (head.to_string(), vec!["--win", "--target", "100"], "--win"),
    ]
    .into_iter()
    .enumerate()
    {
        let path = dir.path().join(format!("w{i}.jsonl"));
        std::fs::write(&path, text + "\n").unwrap();
        let rec = path_str(&path);
        let mut all = vec!["review", rec.as_str()];
        all.extend(args);
        let o = run(RuleSet::YACHT, Order::Any, &all);
        assert_bad_input(&o, needle);
    }
}

/// Records of formats 1 and 2 (written before win bots) are still read: the same game as a
/// record of format 1, 2, 3, 4, 5 and 6 reviews alike, in points and in chance of winning.
#[test]
fn records_of_formats_1_and_2_are_still_read() {
    let dir = temp_dir();
    let (record, _) = bot_game(dir.path(), "bot,bot2", "7");
    let text = std::fs::read_to_string(&record).unwrap();
    let (head, rest) = text.split_once('\n').unwrap();
    assert!(head.contains("\"format\":6,") && head.contains(",\"coach_win\":false"));
    // Format 4: no provenance, the header's last field.
    let (before, provenance) = head.split_once(",\"provenance\":").unwrap();
    assert!(provenance.contains("\"dice_generator\":"), "{head}");
    let format4 = format!("{before}}}").replace("\"format\":6,", "\"format\":4,");
    let format3 = format4.replace("\"format\":4,", "\"format\":3,");
    let format2 = format3
        .replace("\"format\":3,", "\"format\":2,")
        .replace(",\"coach_win\":false", "");
    let format1 = format2
        .replace("\"format\":2,", "\"format\":1,")
        .replace(",\"coach_target\":null", "");
    let format5 = head.replace("\"format\":6,", "\"format\":5,");
    let reviews: Vec<(Value, Value)> = [
        head.to_string(),
        format5,
        format4,
        format3,
        format2,
        format1,
    ]
    .into_iter()
    .enumerate()
    .map(|(i, h)| {
        let path = dir.path().join(format!("format-{i}.jsonl"));
        std::fs::write(&path, format!("{h}\n{rest}")).unwrap();
        (review(&path, &[]), review(&path, &["--win"]))
    })
    .collect();
    for (points, win) in &reviews {
        assert_eq!(points["objective"], "expected-score");
        assert_eq!(loss(&points["players"][0]), 0.0);
        assert_eq!(win["objective"], "win");
        assert_eq!(points["decisions"], reviews[0].0["decisions"]);
        assert_eq!(win["decisions"], reviews[0].1["decisions"]);
    }
}

/// The web page seats `bot:win` (not `bot:win-exact`, too slow for a request): its win bot
/// plays the game the terminal's plays on the same seed, to the last line of the record.
#[test]
fn the_page_seats_a_win_bot_that_plays_as_the_terminal_s() {
    use crate::serve::{Served, assert_error};
    tables();
    let server = Served::start(&[]);
    let view = server.post_ok(
        "/api/game?rules=yacht",
        &serde_json::json!({"players": "bot:win,bot2", "seed": 5}),
    );
    assert_eq!(view["state"], "over", "{view}");
    let (status, page) = server.get(&format!(
        "/api/game/{}/record",
        view["id"].as_str().unwrap()
    ));
    assert_eq!(status, 200, "{page}");
    let dir = temp_dir();
    let (record, _) = bot_game(dir.path(), "bot:win,bot2", "5");
    let terminal = std::fs::read_to_string(&record).unwrap();
    let events = events_but_start(&page);
    assert_eq!(events, events_but_start(&terminal));
    assert_eq!(events[0]["seats"][0]["policy"], "win");
    assert_error(
        &server.post(
            "/api/game?rules=yacht",
            r#"{"players": "ann,bot:win-exact"}"#,
        ),
        400,
        "bot:target=T and bot:win-exact are for `yahtzee play`",
    );
}
