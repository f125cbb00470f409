//! Playing the exact game of two: the two-player bot (its choices are the advice's best
//! options), matches and games with it, the review by the game of two, batch lines, and
//! `verify` of the two-player table. Under the upper-first rule the whole game of two of
//! Yacht solves in about a second (`crate::util::two_player_table`), so these tests play
//! whole games against a real table of the first turns.

use yahtzee_core::game::dice::{DICE, Dice, DiceRng};
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::ScoreCard;
use yahtzee_core::policy::expected::{Action, Position};
use yahtzee_core::policy::two_player::TwoPlayerPosition;
use yahtzee_core::policy::two_player::advise_at;
use yahtzee_core::policy::two_player::reads_early_table;
use yahtzee_core::policy::two_player::{NextPlies, TwoPlayerTurn};
use yahtzee_core::solve::simd::Simd;
use yahtzee_core::solve::two_player::{Game, Player, Start, solve};
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::two_player::EarlyTable;

use crate::util::{assert_bad_input, run, stderr, stdout, temp_dir, two_player_table};

fn upper_first() -> Rules {
    Rules::with_order(RuleSet::YACHT, Order::UpperFirst)
}

/// Plays the rest of a game of two from the cards `cards` (the first player's, then the
/// second's) with both players the two-player bot, dice from `seed`, and checks every
/// choice against the best option of the advice on the same position (the ply after the
/// turn read or solved afresh, not from the bot's plies). Returns the decisions compared and
/// the subgames the bot's plies solved.
fn play_against_the_advice(
    ev: &StrategyTable,
    early: Option<&EarlyTable>,
    mut cards: [ScoreCard; 2],
    seed: u64,
) -> (usize, u32) {
    let rules = *ev.rules();
    let full = rules.full_mask();
    let mut plies = NextPlies::new(rules, early, Simd::detect()).unwrap();
    let mut rng = DiceRng::new(seed);
    let mut compared = 0;
    while cards[1].filled() != full {
        let mover = usize::from(cards[0].filled().count_ones() > cards[1].filled().count_ones());
        let (own, other) = (&cards[mover], &cards[1 - mover]);
        let lead = i64::from(own.banked()) - i64::from(other.banked());
        let turn = TwoPlayerTurn::new(ev, &mut plies, own, other.state().filled, lead).unwrap();
        let advice = |dice: Dice, rolls_left: u8| {
            let at = TwoPlayerPosition {
                position: Position {
                    card: own.clone(),
                    dice,
                    rolls_left,
                },
                opponent: other.state().filled,
                lead,
            };
            let table = early.filter(|_| reads_early_table(&at));
            let a = advise_at(ev, &at, table, Simd::detect(), &|_, _| {}).unwrap();
            a.options[0].action.clone()
        };
        let mut faces = rng.dice(DICE);
        for rolls_left in [2u8, 1] {
            let dice = Dice::from_faces(&faces).unwrap();
            let keep = turn.best_keep(rolls_left, &dice);
            match advice(dice, rolls_left) {
                Action::Keep { keep: best, .. } => assert_eq!(keep, best),
                other => panic!("a keep is advised with rolls left, not {other:?}"),
            }
            compared += 1;
            if keep.len() == DICE {
                break;
            }
            faces = keep.faces();
            faces.extend(rng.dice(DICE - keep.len()));
        }
        let dice = Dice::from_faces(&faces).unwrap();
        let (index, points, _) = turn.best_box(&dice);
        match advice(dice, 0) {
            Action::Score { category, .. } => assert_eq!(rules.boxes()[index].name(), category),
            other => panic!("a box is advised with no roll left, not {other:?}"),
        }
        compared += 1;
        cards[mover].fill(index, points, false);
    }
    (compared, plies.subgames_solved())
}

#[test]
fn two_player_bot_plays_the_best_option_of_the_advice() {
    // Whole games under the upper-first rule: the first turns from the table, the rest of
    // the game solved once, at the first turn past it.
    let rules = upper_first();
    let ev = crate::util::table(RuleSet::YACHT, Order::UpperFirst);
    let early = two_player_table();
    let mut compared = 0;
    for seed in [1, 2] {
        let (n, solved) = play_against_the_advice(
            ev,
            Some(early),
            [ScoreCard::new(rules), ScoreCard::new(rules)],
            seed,
        );
        assert_eq!(solved, 1, "one subgame a game");
        compared += n;
    }
    // The last turns of Yacht with no table: the rest of the game solved at the first turn
    // and reused by every later turn, to the same choices as a fresh solve's.
    let yacht = Rules::with_order(RuleSet::YACHT, Order::Any);
    let ev = crate::util::table(RuleSet::YACHT, Order::Any);
    let first = ScoreCard::parse(
        yacht,
        "ones=2,twos=4,threes=9,fours=12,fives=15,sixes=18,choice=22,yacht=0",
        0,
    )
    .unwrap();
    let second = ScoreCard::parse(
        yacht,
        "ones=3,twos=6,threes=6,fours=16,full-house=19,big-straight=30,choice=19,yacht=50",
        0,
    )
    .unwrap();
    let (n, solved) = play_against_the_advice(ev, None, [first, second], 7);
    assert_eq!(solved, 1);
    compared += n;
    assert!(compared > 60, "{compared}");
}

/// The exact share of the games the two-player optimum wins (ties half) against the
/// expected-score policy in a match of two under `rules`, starting every other game.
fn exact_share_against_ev(rules: Rules) -> f64 {
    let ev = std::sync::Arc::new(crate::util::table(rules.set, rules.order).clone());
    let value = |first: Player, second: Player| {
        let game = Game::new(rules, first, second).unwrap();
        solve::<f32>(&game, Start::NEW, &|_| false, Simd::detect(), &|_, _| {})
            .unwrap()
            .value(0, 0, 0)
            .unwrap()
    };
    let moving_first = value(Player::Optimal, Player::Expected(ev.clone()));
    let moving_second = 1.0 - value(Player::Expected(ev), Player::Optimal);
    (moving_first + moving_second) / 2.0
}

/// A match of the binary under the upper-first rule, its report as JSON without the times.
fn upper_first_match(lineup: &str, games: &str, threads: &str) -> serde_json::Value {
    two_player_table();
    let o = run(
        RuleSet::YACHT,
        Order::UpperFirst,
        &[
            "simulate",
            "--rules",
            "yacht",
            "--upper-first",
            "--match",
            lineup,
            "--games",
            games,
            "--seed",
            "5",
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
}

#[test]
fn two_player_match_is_reproducible_and_agrees_with_the_exact_value() {
    // Each game solves the rest of its game once past the table, about 1.2 s of CPU under
    // the upper-first rule: few games.
    let one = upper_first_match("two-player,ev", "6", "1");
    assert_eq!(one, upper_first_match("two-player,ev", "6", "2"));
    assert_eq!(one["seats"][0]["policy"], "two-player");
    assert_eq!(one["seats"][0]["turns"], 6 * 12);
    // The win share of the two-player seat against the exact value of the pairing (each
    // seat starts half the games): within four standard errors of 120 games.
    let many = upper_first_match("two-player,ev", "120", "2");
    let share = many["seats"][0]["win_rate"]["share"].as_f64().unwrap();
    let exact = exact_share_against_ev(upper_first());
    assert!(exact > 0.5, "{exact}");
    assert!(
        (share - exact).abs() < 4.0 * (0.25f64 / 120.0).sqrt(),
        "match {share}, exact {exact}"
    );
    // Against the win bot, which plays with the target and distribution tables.
    crate::util::target_table(RuleSet::YACHT, Order::UpperFirst);
    crate::util::distribution_table(RuleSet::YACHT, Order::UpperFirst);
    let win = upper_first_match("two-player,win", "8", "2");
    assert_eq!(win["games"], 8);
    assert_eq!(win["seats"][1]["policy"], "win");
}

#[test]
fn two_player_bot_plays_and_reviews_at_zero_loss() {
    let dir = temp_dir();
    let record = dir.path().join("two.jsonl");
    two_player_table();
    let o = run(
        RuleSet::YACHT,
        Order::UpperFirst,
        &[
            "play",
            "--rules",
            "yacht",
            "--upper-first",
            "--players",
            "bot:two-player,bot2",
            "--seed",
            "11",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("bot (playing the exact game of two)"),
        "{}",
        stdout(&o)
    );
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.starts_with(r#"{"type":"game","format":6,"#), "{text}");
    assert!(text.contains(r#""policy":"two-player""#), "{text}");
    let review = |extra: &[&str]| {
        let mut args = vec!["review", record.to_str().unwrap(), "--json"];
        args.extend_from_slice(extra);
        let o = run(RuleSet::YACHT, Order::UpperFirst, &args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap()
    };
    // A record with a two-player bot is priced by the game of two: the bot at zero loss.
    let v = review(&[]);
    assert_eq!(v["objective"], "two-player");
    assert_eq!(v["players"][0]["policy"], "two-player");
    assert_eq!(v["players"][0]["total_loss"], 0.0);
    assert!(v["players"][0]["decisions"].as_u64().unwrap() >= 24);
    assert!(v["players"][1]["decisions"].as_u64().unwrap() >= 12);
    // Every decision is priced in chance: values from 0 to 1.
    for d in v["decisions"].as_array().unwrap() {
        let best = d["best_value"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&best), "{d}");
    }
    // In points the expected-score bot is the one at zero loss.
    let points = review(&["--target", "off"]);
    assert_eq!(points["objective"], "expected-score");
    assert_eq!(points["players"][1]["total_loss"], 0.0);
    // The text says what the prices are.
    let o = run(
        RuleSet::YACHT,
        Order::UpperFirst,
        &["review", record.to_str().unwrap()],
    );
    assert!(
        stdout(&o).contains("exact chance of winning the game of two"),
        "{}",
        stdout(&o)
    );
    // The two-player bot came with format 4: a format-3 record of it is refused.
    let old = dir.path().join("old.jsonl");
    std::fs::write(&old, text.replacen(r#""format":6"#, r#""format":3"#, 1)).unwrap();
    let o = run(
        RuleSet::YACHT,
        Order::UpperFirst,
        &["review", old.to_str().unwrap()],
    );
    assert_bad_input(&o, "record format 3 has no two-player bot");
}

#[test]
fn two_player_seats_are_refused_outside_a_game_of_two_of_yacht() {
    for (set, order, args) in [
        (
            RuleSet::YACHT,
            Order::Any,
            &[
                "play",
                "--rules",
                "yacht",
                "--players",
                "you,bot2,bot:two-player",
            ][..],
        ),
        (
            RuleSet::YAHTZEE,
            Order::Any,
            &[
                "play",
                "--rules",
                "yahtzee",
                "--players",
                "you,bot:two-player",
            ][..],
        ),
    ] {
        let o = run(set, order, args);
        assert_bad_input(
            &o,
            "plays the exact game of two of Yacht (either fill order) with exactly two players",
        );
    }
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "play",
            "--rules",
            "yacht",
            "--players",
            "you:two-player,bot",
        ],
    );
    assert_bad_input(&o, "only a bot (bot, bot2, ...) has a policy");
    for (set, rules, lineup) in [
        (RuleSet::YAHTZEE, "yahtzee", "two-player,ev"),
        (RuleSet::YACHT, "yacht", "two-player,ev,ev"),
    ] {
        let o = run(
            set,
            Order::Any,
            &[
                "simulate", "--rules", rules, "--match", lineup, "--games", "4",
            ],
        );
        assert_bad_input(
            &o,
            "the two-player policy plays the exact game of two of Yacht",
        );
    }
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["simulate", "--rules", "yacht", "--policy", "two-player"],
    );
    assert_bad_input(&o, "two-player needs opponents: use --match ev,two-player");
    // A review by the game of two needs a record of two.
    let dir = temp_dir();
    let record = dir.path().join("one.jsonl");
    let o = run(
        RuleSet::YACHT,
        Order::UpperFirst,
        &[
            "play",
            "--rules",
            "yacht",
            "--upper-first",
            "--players",
            "bot",
            "--seed",
            "2",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(
        RuleSet::YACHT,
        Order::UpperFirst,
        &["review", record.to_str().unwrap(), "--two-player"],
    );
    assert_bad_input(&o, "for records of two players of Yacht");
}

/// `advise --two-player --json` under the upper-first rule.
fn advise_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec![
        "advise",
        "--rules",
        "yacht",
        "--upper-first",
        "--two-player",
        "--json",
    ];
    all.extend_from_slice(args);
    let o = run(RuleSet::YACHT, Order::UpperFirst, &all);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
fn two_player_batch_lines_answer_as_the_command_line() {
    two_player_table();
    let own = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,full-house=19,four-of-a-kind=0,little-straight=30";
    let other =
        "ones=2,twos=4,threes=12,fours=8,fives=20,sixes=24,big-straight=30,choice=22,yacht=0";
    let card_json = |text: &str| {
        let entries: Vec<String> = text
            .split(',')
            .map(|e| {
                let (k, v) = e.split_once('=').unwrap();
                format!("\"{k}\": {v}")
            })
            .collect();
        format!("{{{}}}", entries.join(", "))
    };
    let lines = [
        // A new game: the table of the first turns.
        r#"{"dice": [1, 1, 2, 5, 6], "two_player": true, "opponents": [{"card": {}}]}"#
            .to_string(),
        // The last turns, solved, with a lead.
        format!(
            r#"{{"card": {}, "dice": [2, 3, 3, 4, 6], "rolls_left": 1, "two_player": true, "lead": -7, "opponents": [{{"card": {}}}]}}"#,
            card_json(own),
            card_json(other)
        ),
        r#"{"dice": [1, 2, 3, 4, 5], "lead": 3}"#.to_string(),
        r#"{"dice": [1, 2, 3, 4, 5], "two_player": true, "opponents": [{"card": {}}, {"final": 30}]}"#.to_string(),
        r#"{"dice": [1, 2, 3, 4, 5], "two_player": 1}"#.to_string(),
        r#"{"dice": [1, 2, 3, 4, 5], "two_player": true}"#.to_string(),
        r#"{"dice": [1, 2, 3, 4, 5], "two_player": true, "target": 200, "opponents": [{"card": {}}]}"#.to_string(),
    ];
    let input = lines.join("\n") + "\n";
    crate::util::table(RuleSet::YACHT, Order::UpperFirst);
    let o = crate::util::run_with_input(
        crate::util::table_dir(),
        &["advise", "--rules", "yacht", "--upper-first", "--batch"],
        &input,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let answers: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), lines.len());
    assert_eq!(
        answers[0],
        advise_json(&["--opponent", "", "--dice", "11256"])
    );
    assert_eq!(
        answers[1],
        advise_json(&[
            "--card",
            own,
            "--opponent",
            other,
            "--dice",
            "23346",
            "--rolls-left",
            "1",
            "--lead",
            "-7"
        ])
    );
    assert_eq!(answers[1]["lead"], -7);
    assert_eq!(answers[1]["you_are"], "first");
    let error = |i: usize| answers[i]["error"].as_str().unwrap().to_string();
    assert!(
        error(2).contains("lead is the two-player query's"),
        "{}",
        error(2)
    );
    assert!(
        error(3).contains("exactly one opponent, not 2"),
        "{}",
        error(3)
    );
    assert!(
        error(4).starts_with("two_player must be true or false"),
        "{}",
        error(4)
    );
    assert!(
        error(5).contains("exactly one opponent, not 0"),
        "{}",
        error(5)
    );
    assert!(error(6).starts_with("target: "), "{}", error(6));
    // The rule sets with bonuses are not solved for two: the field is named.
    crate::util::table(RuleSet::YAHTZEE, Order::Any);
    let o = crate::util::run_with_input(
        crate::util::table_dir(),
        &["advise", "--rules", "yahtzee", "--batch"],
        "{\"dice\": [1, 2, 3, 4, 5], \"two_player\": true, \"opponents\": [{\"final\": 100}]}\n",
    );
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let e = v["error"].as_str().unwrap();
    assert!(
        e.starts_with(
            "two_player: two-player play is solved only for rule sets without bonuses (yacht)"
        ),
        "{e}"
    );
}

#[test]
fn two_player_table_verifies_and_refuses_damage() {
    two_player_table();
    let rules = upper_first();
    let path = crate::util::table_dir().join(yahtzee_core::tables::default_table_name_of(
        &rules,
        yahtzee_core::tables::two_player::TWO_PLAYER,
    ));
    let path_text = path.to_str().unwrap().to_string();
    let o = run(RuleSet::YACHT, Order::UpperFirst, &["verify", &path_text]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with(&format!(
            "ok: {path_text} holds the two-player table of yacht (upper first) (format v4, plies 1 to 9"
        )),
        "{}",
        stdout(&o)
    );
    let o = run(
        RuleSet::YACHT,
        Order::UpperFirst,
        &["verify", &path_text, "--json"],
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["objective"], "two-player");
    assert_eq!(v["upper_first"], true);
    assert_eq!(
        (v["first_ply"].as_u64(), v["last_ply"].as_u64()),
        (Some(1), Some(9))
    );
    assert!(v["entries"].as_u64().unwrap() > 1000, "{v}");
    // A damaged copy: one value, then one byte of the index, then cut short.
    let dir = temp_dir();
    let bytes = std::fs::read(&path).unwrap();
    let copy = dir.path().join("two.table");
    let copy_text = copy.to_str().unwrap().to_string();
    let verify = || run(RuleSet::YACHT, Order::UpperFirst, &["verify", &copy_text]);
    let mut damaged = bytes.clone();
    let last = damaged.len() - 3;
    damaged[last] ^= 0x10;
    std::fs::write(&copy, &damaged).unwrap();
    let o = verify();
    assert_bad_input(&o, "is corrupted");
    assert!(
        stderr(&o).contains(&format!(
            "rebuild it with `yahtzee solve --rules yacht --upper-first --two-player --out {copy_text}`"
        )),
        "{}",
        stderr(&o)
    );
    // The first range of the index: after the magic, the version, the header's length and
    // the header, and the two words of the plies stored.
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut damaged = bytes.clone();
    damaged[16 + header_len + 8 + 5] ^= 0x01;
    std::fs::write(&copy, &damaged).unwrap();
    assert_bad_input(&verify(), "is corrupted");
    std::fs::write(&copy, &bytes[..bytes.len() - 100]).unwrap();
    assert_bad_input(&verify(), "is truncated");
    // The table read back whole.
    let table = EarlyTable::load(&path, &rules).unwrap();
    let checked = table.verify().unwrap();
    assert_eq!(checked.entries, v["entries"].as_u64().unwrap());
}

#[test]
fn two_player_upper_first_reports_the_three_chances() {
    let dir = temp_dir();
    let solve = |extra: &[&str]| {
        let mut args = vec![
            "solve",
            "--rules",
            "yacht",
            "--upper-first",
            "--two-player",
            "--json",
        ];
        args.extend_from_slice(extra);
        let o = run(RuleSet::YACHT, Order::UpperFirst, &args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap()
    };
    let (a, b) = (dir.path().join("a.table"), dir.path().join("b.table"));
    let plain = solve(&["--out", a.to_str().unwrap()]);
    let ties = solve(&["--ties", "--out", b.to_str().unwrap()]);
    assert_eq!(plain["first_value"], ties["first_value"]);
    assert!(plain["tie"].is_null() && plain["first_wins"].is_null());
    // The same table, bit for bit.
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let chance = |v: &serde_json::Value, key: &str| v[key].as_f64().unwrap();
    for v in [
        ties,
        solve(&["--ties", "--first", "ev"]),
        solve(&["--ties", "--first", "ev", "--second", "ev"]),
    ] {
        let (first, second, tie) = (
            chance(&v, "first_wins"),
            chance(&v, "second_wins"),
            chance(&v, "tie"),
        );
        assert!(tie > 0.001 && tie < 0.1, "{v}");
        assert!(first > 0.3 && second > 0.3, "{v}");
        assert!((first + second + tie - 1.0).abs() < 1e-12, "{v}");
        assert!(
            (first + tie / 2.0 - chance(&v, "first_value")).abs() < 1e-12,
            "{v}"
        );
        if v["first"] == "ev" && v["second"] == "ev" {
            // Two expected-score players split evenly, ties included.
            assert!((first - second).abs() < 1e-6, "{v}");
        }
    }
    let o = run(
        RuleSet::YACHT,
        Order::UpperFirst,
        &[
            "solve",
            "--rules",
            "yacht",
            "--upper-first",
            "--two-player",
            "--ties",
            "--first",
            "ev",
        ],
    );
    assert!(
        stdout(&o).contains("first player wins 0."),
        "{}",
        stdout(&o)
    );
}
