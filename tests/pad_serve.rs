//! The score pad of `yahtzee serve` (`/api/pad`): a game of a whole table created, played
//! (the advised player's dice, the others' boxes and points), undone, kept in its folder and
//! resumed after a restart, listed, downloaded and reviewed as `yahtzee review` reviews its
//! record; its win advice is `yahtzee advise --opponent` of the same position; bad input is
//! one line and 400. A game of four boxes keeps it fast.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::serve::{Served, assert_error};
use crate::util::{path_str, stderr, stdout, temp_dir, yahtzee_in};

/// A game of four boxes and no bonus: twelve turns for three players, its table solved in
/// milliseconds.
pub const PAD_RULES: &str = r#"name = "pad-test"
summary = "four boxes, for the score pad's tests"
dice = 5
rolls = 3

[[box]]
name = "chance"
kind = "chance"

[[box]]
name = "four-of-a-kind"
kind = "of-a-kind"
count = 4
score = "sum"

[[box]]
name = "full-house"
kind = "full-house"
points = 25

[[box]]
name = "yacht"
kind = "five-of-a-kind"
points = 50
"#;

/// The rules file of [`PAD_RULES`] in `dir`.
pub fn pad_rules(dir: &Path) -> PathBuf {
    let path = dir.join("pad-test.toml");
    std::fs::write(&path, PAD_RULES).unwrap();
    path
}

/// The server with the tables of `dir`, the rules of `rules` and the games folder `games`.
pub fn pad_server(dir: &Path, rules: &Path, games: &Path) -> Served {
    Served::start_in(
        dir,
        &["--rules", &path_str(rules), "--games", &path_str(games)],
    )
}

/// Plays the rest of the game the simple way: the advised player's five dice and the first
/// open box (one tap: stop and fill it), each other player the first open box at the
/// highest points it can score. The view at the end.
pub fn play_out(server: &Served, id: &str, mut view: Value) -> Value {
    let path = format!("/api/pad/{id}");
    while !view["finished"].as_bool().unwrap() {
        let body = match view["expect"]["kind"].as_str().unwrap() {
            "dice" => json!({"dice": [2, 3, 3, 3, 3]}),
            "decision" => json!({"score": view["open"][0]["name"]}),
            "points" => {
                let open = &view["open"][0];
                let options = open["options"].as_array().unwrap();
                json!({"box": open["name"], "points": options.last().unwrap()["points"]})
            }
            other => panic!("{other}: {view}"),
        };
        view = server.post_ok(&path, &body);
    }
    view
}

fn card_of(view: &Value, player: usize) -> String {
    view["players"][player]["card"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn a_pad_game_is_kept_in_its_folder_resumed_after_a_restart_and_reviewed() {
    let dir = temp_dir();
    let rules = pad_rules(dir.path());
    let games = dir.path().join("games");
    let server = pad_server(dir.path(), &rules, &games);
    // Bad new games: one line each, 400.
    for (body, needle) in [
        (json!({"players": []}), "players must be an array of 1 to"),
        (json!({"players": "ann,bob"}), "players must be an array"),
        (
            json!({"players": ["ann", "bob"], "advised": "zed"}),
            "advised must be one of the players (ann, bob), not `zed`",
        ),
        (json!({"players": ["ann", "ANN"]}), "named twice"),
        (
            json!({"players": ["ann"], "dice": "seeded"}),
            "unknown field",
        ),
    ] {
        assert_error(&server.post("/api/pad", &body.to_string()), 400, needle);
    }
    let view = server.post_ok("/api/pad", &json!({"players": ["ann", "bob", "cat"]}));
    let id = view["id"].as_str().unwrap().to_string();
    let path = format!("/api/pad/{id}");
    assert_eq!(view["to_move"], "ann");
    assert_eq!(
        view["expect"],
        json!({"kind": "dice", "count": 5, "what": "the first roll"})
    );
    assert_eq!(view["players"][0]["advised"], true);
    // ann plays with the dice.
    for (body, needle) in [
        (
            json!({"box": "chance", "points": 20}),
            "ann plays with the dice entered",
        ),
        (
            json!({"dice": [1, 2]}),
            "give 5 dice from 1 to 6 for the first roll",
        ),
        (
            json!({"dice": [1, 2], "undo": true}),
            "an action has one of",
        ),
        (json!({"undo": true}), "nothing to undo"),
        (json!({"objective": "target"}), "needs its target"),
        (json!({"objective": "best"}), "objective must be"),
    ] {
        assert_error(&server.post(&path, &body.to_string()), 400, needle);
    }
    let view = server.post_ok(&path, &json!({"dice": [6, 6, 6, 2, 1]}));
    let scores: Vec<(String, Value)> = (view["open"].as_array().unwrap().iter())
        .map(|b| {
            (
                b["name"].as_str().unwrap().to_string(),
                b["scores"]["points"].clone(),
            )
        })
        .collect();
    assert_eq!(
        scores,
        [
            ("chance".to_string(), json!(21)),
            ("four-of-a-kind".to_string(), json!(0)),
            ("full-house".to_string(), json!(0)),
            ("yacht".to_string(), json!(0)),
        ]
    );
    assert_eq!(
        view["advice"],
        json!({"card": {}, "yahtzee_bonus": 0, "dice": [1, 2, 6, 6, 6], "rolls_left": 2})
    );
    server.post_ok(&path, &json!({"keep": [6, 6, 6]}));
    // The re-roll as every die on the table, the kept ones among them.
    let view = server.post_ok(&path, &json!({"dice": [6, 6, 6, 6, 6]}));
    assert_eq!(view["dice"], json!([6, 6, 6, 6, 6]));
    let view = server.post_ok(&path, &json!({"score": "yacht"}));
    assert_eq!(
        (view["to_move"].clone(), view["expect"]["kind"].clone()),
        (json!("bob"), json!("points"))
    );
    let full_house = &view["open"][2];
    assert_eq!(
        full_house["options"],
        json!([{"points": 0, "bonus": 0, "yahtzee_bonus": false}, {"points": 25, "bonus": 0, "yahtzee_bonus": false}])
    );
    for (body, needle) in [
        (
            json!({"box": "full-house", "points": 20}),
            "Full house scores 0 or 25, not 20",
        ),
        (
            json!({"box": "chance", "points": 31}),
            "Chance scores 5 to 30, not 31",
        ),
        (json!({"dice": [1, 2, 3, 4, 5]}), "no dice are due now"),
        (
            json!({"box": "sevens", "points": 7}),
            "unknown box `sevens`",
        ),
        (json!({"points": 7}), "an action has one of"),
    ] {
        assert_error(&server.post(&path, &body.to_string()), 400, needle);
    }
    server.post_ok(&path, &json!({"box": "full-house", "points": 25}));
    let view = server.post_ok(&path, &json!({"box": "chance", "points": 22}));
    // Undo takes back cat's box, then ann's can be taken back too, whole.
    let undone = server.post_ok(&path, &json!({"undo": true}));
    assert_eq!(
        (undone["to_move"].clone(), card_of(&undone, 2)),
        (json!("cat"), String::new())
    );
    let view_again = server.post_ok(&path, &json!({"box": "chance", "points": 22}));
    assert_eq!(view_again["players"], view["players"]);
    // Win advice against the pad's other cards: `advise --opponent` of the same position.
    server.post_ok(&path, &json!({"objective": "win"}));
    let view = server.post_ok(&path, &json!({"dice": [5, 5, 2, 2, 2]}));
    let query = &view["advice"];
    assert_eq!(
        query["opponents"],
        json!([{"card": {"full-house": 25}, "yahtzee_bonus": 0}, {"card": {"chance": 22}, "yahtzee_bonus": 0}])
    );
    // Provisional (the expected score's) until the distribution table is built, then exact.
    let mut waited = 0;
    let served = loop {
        let (status, served) = server.post("/api/advise", &query.to_string());
        assert_eq!(status, 200, "{served}");
        if !served.contains("\"provisional\"") {
            break served;
        }
        waited += 1;
        assert!(waited < 600, "still provisional after a minute: {served}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let o = yahtzee_in(dir.path())
        .args([
            "advise",
            "--rules",
            &path_str(&rules),
            "--card",
            "yacht=50",
            "--dice",
            "22255",
        ])
        .args([
            "--rolls-left",
            "2",
            "--opponent",
            "full-house=25",
            "--opponent",
            "chance=22",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let cli: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&served).unwrap(), cli);
    assert!(
        cli["p_win"].as_f64().is_some_and(|p| p > 0.0 && p < 1.0),
        "{cli}"
    );
    server.post_ok(&path, &json!({"objective": "target", "target": 60}));
    // The record is in the folder, line by line as played; a restart resumes the game.
    let file = games.join(format!("{id}.jsonl"));
    let (status, record) = server.get(&format!("{path}/record"));
    assert_eq!(status, 200);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), record);
    assert!(
        record.lines().next().unwrap().contains(r#""format":6"#),
        "{record}"
    );
    let before = server.get(&path);
    drop(server);
    let server = pad_server(dir.path(), &rules, &games);
    let after = server.get(&path);
    assert_eq!(after, before);
    let view: Value = serde_json::from_str(&after.1).unwrap();
    assert_eq!(
        view["objective"],
        json!({"objective": "target", "target": 60})
    );
    assert_eq!(view["advice"]["target"], 60);
    let view = play_out(&server, &id, view);
    assert_eq!(view["to_move"], Value::Null);
    let (_, list) = server.get("/api/pad");
    let list: Value = serde_json::from_str(&list).unwrap();
    let totals: Vec<u64> = (view["players"].as_array().unwrap().iter())
        .map(|p| p["banked"].as_u64().unwrap())
        .collect();
    assert_eq!(
        list["games"][0],
        json!({"id": id, "rules": view["rules"], "upper_first": false, "started": view["started"],
            "players": ["ann", "bob", "cat"], "advised": "ann", "totals": totals, "finished": true})
    );
    // Reviewed as `yahtzee review` reviews the record: ann's decisions alone.
    let (status, review) = server.post(&format!("{path}/review"), "");
    assert_eq!(status, 200, "{review}");
    let review: Value = serde_json::from_str(&review).unwrap();
    let o = yahtzee_in(dir.path())
        .args([
            "review",
            &path_str(&file),
            "--rules",
            &path_str(&rules),
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let cli: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(review["decisions"], cli["decisions"]);
    assert_eq!(review["players"], cli["players"]);
    assert_eq!(cli["players"].as_array().unwrap().len(), 1);
    assert_eq!(cli["players"][0]["player"], "ann");
    assert!(cli["complete"].as_bool().unwrap());
    let (status, _) = server.get("/api/pad/nope");
    assert_eq!(status, 404);
}
