//! `yahtzee serve`, its JSON API: every endpoint against the command line's answer for the
//! same question, every class of error (400 with the command line's message, 404, 405, 413),
//! garbage that must not kill the server, and the address it listens on.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::tables::set::TableKind;

use crate::util::{self, run, run_advise, run_bytes, stderr, stdout, table, table_dir, temp_dir};

/// A `yahtzee serve` process on a free port, stopped when dropped.
pub struct Served {
    child: Child,
    /// `http://127.0.0.1:PORT`, without the final slash.
    pub base: String,
    /// Its stderr, read until the address was printed, then drained in the background.
    pub err: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Served {
    /// Starts the server with `args` and the shared tables of [`table_dir`] (its default
    /// rules' table solved first, so the start loads it).
    pub fn start(args: &[&str]) -> Served {
        Served::start_in(table_dir(), args)
    }

    /// Starts the server with `args` and the tables of `dir`, without its background builds
    /// (`--no-prebuild`: a test's server builds no table it is not asked for; see
    /// [`Served::start_prebuilding`]).
    pub fn start_in(dir: &Path, args: &[&str]) -> Served {
        let mut all = vec!["--no-prebuild"];
        all.extend(args);
        Served::start_prebuilding(dir, &all)
    }

    /// Starts the server with `args` and the tables of `dir`, building in the background the
    /// tables of its rules' objectives, as `serve` does unless told `--no-prebuild`.
    pub fn start_prebuilding(dir: &Path, args: &[&str]) -> Served {
        let mut child = util::yahtzee_in(dir)
            .arg("serve")
            .args(["--port", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout is piped"))
            .read_line(&mut line)
            .expect("the server prints its address");
        let err = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let mut pipe = child.stderr.take().expect("stderr is piped");
        let sink = std::sync::Arc::clone(&err);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let url = line
            .trim()
            .strip_prefix("yahtzee serve: listening on ")
            .unwrap_or_else(|| panic!("not the address line: {line:?}"))
            .trim_end_matches('/')
            .to_string();
        Served {
            child,
            base: url,
            err,
        }
    }

    /// Starts `serve --lan` with `args`: the server, the address it printed first (with its
    /// token), the other addresses, and the lines of its QR code.
    pub fn start_lan(args: &[&str]) -> (Served, String, Vec<String>, Vec<String>) {
        Served::start_lan_in(table_dir(), args)
    }

    /// [`Served::start_lan`] with the tables (and the token kept) of `dir`.
    pub fn start_lan_in(dir: &Path, args: &[&str]) -> (Served, String, Vec<String>, Vec<String>) {
        let mut child = util::yahtzee_in(dir)
            .args(["serve", "--lan", "--no-prebuild", "--port", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary runs");
        let mut out = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let mut line = String::new();
        out.read_line(&mut line).expect("the address");
        let url = line
            .trim()
            .strip_prefix("yahtzee serve: listening on ")
            .unwrap_or_else(|| panic!("not the address line: {line:?}"))
            .to_string();
        let (mut others, mut qr) = (Vec::new(), Vec::<String>::new());
        // The QR code is square: as many lines as half its width, rounded up.
        while qr.is_empty() || qr.len() < qr[0].chars().count().div_ceil(2) {
            line.clear();
            assert!(out.read_line(&mut line).expect("the QR code") > 0, "{qr:?}");
            let l = line.trim_end_matches('\n');
            match l.strip_prefix("yahtzee serve: and on ") {
                Some(other) => others.push(other.to_string()),
                None => qr.push(l.to_string()),
            }
        }
        let base = url.split("/?").next().unwrap().to_string();
        let served = Served {
            child,
            base,
            err: std::sync::Arc::default(),
        };
        (served, url, others, qr)
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.base.rsplit(':').next().unwrap().parse().unwrap()
    }

    /// `METHOD path` with `body`: the status and the body.
    pub fn call(&self, method: &str, path: &str, body: Option<&[u8]>) -> (u16, String) {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(300)))
            .build()
            .into();
        let url = format!("{}{path}", self.base);
        let response = match (method, body) {
            ("GET", _) => agent.get(&url).call(),
            ("POST", Some(b)) => agent
                .post(&url)
                .header("Content-Type", "application/json")
                .send(b),
            ("POST", None) => agent.post(&url).send_empty(),
            ("PUT", _) => agent.put(&url).send_empty(),
            ("DELETE", _) => agent.delete(&url).call(),
            _ => panic!("method {method}"),
        };
        let mut response = response.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_string()
            .expect("a text body");
        (status, text)
    }

    pub fn get(&self, path: &str) -> (u16, String) {
        self.call("GET", path, None)
    }

    pub fn post(&self, path: &str, body: &str) -> (u16, String) {
        self.call("POST", path, Some(body.as_bytes()))
    }

    /// `POST path` with a JSON body that must succeed: the answer.
    pub fn post_ok(&self, path: &str, body: &Value) -> Value {
        let (status, text) = self.post(path, &body.to_string());
        assert_eq!(status, 200, "{path} {body}: {text}");
        serde_json::from_str(&text).expect("a JSON answer")
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// True while the process runs.
    pub fn alive(&mut self) -> bool {
        self.child
            .try_wait()
            .expect("the child can be asked")
            .is_none()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Asserts the answer of a bad request: `status`, `{"error": ...}` alone, on one line,
/// containing `needle`; returns the message.
pub fn assert_error(answer: &(u16, String), status: u16, needle: &str) -> String {
    let (got, body) = answer;
    assert_eq!(*got, status, "{body}");
    assert!(!body.contains('\n'), "not one line: {body}");
    let v: Value = serde_json::from_str(body).expect("a JSON error");
    let obj = v.as_object().expect("an object");
    assert_eq!(obj.len(), 1, "{body}");
    let message = obj["error"].as_str().expect("a message").to_string();
    assert!(message.contains(needle), "`{needle}` not in: {message}");
    assert!(!message.contains("panicked"), "{message}");
    message
}

/// The CLI's answer line of `advise --batch` for `lines` under `args`.
fn cli_batch(set: &'static RuleSet, order: Order, args: &[&str], lines: &[&str]) -> Vec<String> {
    table(set, order);
    let mut all = vec!["advise", "--batch"];
    all.extend(args);
    let input = lines.join("\n") + "\n";
    let o = run_bytes(table_dir(), &all, input.as_bytes());
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o).lines().map(str::to_string).collect()
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn advise_answers_every_batch_line_as_advise_batch_does() {
    table(RuleSet::YAHTZEE, Order::Any);
    table(RuleSet::YACHT, Order::UpperFirst);
    table(RuleSet::YATZY, Order::Any);
    let server = Served::start(&[]);
    let cases: [(&'static RuleSet, Order, &str, &[&str]); 3] = [
        (
            RuleSet::YAHTZEE,
            Order::Any,
            "",
            &[
                r#"{"dice": [1, 3, 3, 5, 6]}"#,
                r#"{"card": {"ones": 3, "chance": 22, "sixes": 24}, "yahtzee_bonus": 0, "dice": [5, 5, 2, 5, 1], "rolls_left": 1}"#,
                r#"{"card": {"ones": 3, "full-house": 25, "yahtzee": 50}, "yahtzee_bonus": 1, "dice": [4, 4, 4, 4, 4], "rolls_left": 0}"#,
                // Errors of every kind: the same message, as a 400.
                r#"{"dice": [1, 3, 3, 5, 7]}"#,
                r#"{"card": {"twos": 3}, "dice": [1, 3, 3, 5, 6]}"#,
                r#"{"dice": [1, 2, 3, 4, 5], "rolls": 1}"#,
                r#"{"dice": [1, 2, 3, 4, 5], "dice": [1, 2, 3, 4, 5]}"#,
                r#"{"card": {"ones": "3"}, "dice": [1, 2, 3, 4, 5]}"#,
                r#"{"dice": [1, 2, 3, 4, 5], "rolls_left": 3}"#,
                "not json",
                "[1, 2, 3]",
                "{}",
            ],
        ),
        (
            RuleSet::YACHT,
            Order::UpperFirst,
            "?rules=yacht&upper_first=true",
            &[
                r#"{"card": {"ones": 2, "twos": 6}, "dice": [6, 6, 6, 2, 1], "rolls_left": 2}"#,
                r#"{"card": {"ones": 2, "twos": 6}, "dice": [6, 6, 6, 2, 1], "rolls_left": 0}"#,
                r#"{"card": {"choice": 20}, "dice": [6, 6, 6, 2, 1]}"#,
                r#"{"card": {"ones": 2}, "dice": [6, 6, 6, 2, 1], "target": 150}"#,
                r#"{"card": {"ones": 2}, "dice": [6, 6, 6, 2, 1], "opponents": [{"card": {"ones": 3, "twos": 4}}, {"final": 150}]}"#,
                r#"{"card": {"ones": 2}, "dice": [6, 6, 6, 2, 1], "opponents": [{"card": {"fours": 3}}]}"#,
                r#"{"dice": [6, 6, 6, 2, 1], "opponents": [], "target": 100}"#,
            ],
        ),
        (
            RuleSet::YATZY,
            Order::Any,
            "?rules=yatzy",
            &[r#"{"card": {"ones": 3}, "dice": [2, 2, 3, 3, 6], "rolls_left": 1}"#],
        ),
    ];
    for (set, order, query, lines) in cases {
        let mut args = vec!["--rules", set.name()];
        if order == Order::UpperFirst {
            args.push("--upper-first");
        }
        let expected = cli_batch(set, order, &args, lines);
        assert_eq!(expected.len(), lines.len());
        for (line, want) in lines.iter().zip(&expected) {
            let (status, body) = server.post(&format!("/api/advise{query}"), line);
            assert_eq!(&body, want, "{line}");
            let is_error = want.starts_with(r#"{"error":"#);
            assert_eq!(status, if is_error { 400 } else { 200 }, "{line}: {body}");
        }
    }
    // A line end at the end of the body is the end of the batch line, as on stdin.
    let (status, body) = server.post("/api/advise", "{\"dice\": [1, 3, 3, 5, 6]}\r\n");
    assert_eq!(status, 200, "{body}");
}

/// The server's advice against opponents is `advise --opponent ... --json`'s, by the same
/// path: the answer of `/api/advise` equals the command's, and the server's API asks the
/// core's one path of advice (`batch::answer`, which calls `policy::advise` as the command
/// does) and solves no best response of its own.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn win_advice_of_the_server_is_advise_opponent_json_by_the_same_path() {
    let api = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/serve/src/api.rs"),
    )
    .unwrap();
    assert!(
        api.contains("batch::answer("),
        "the API advises through batch::answer"
    );
    for own in [
        "advise_win",
        "advise_against",
        "solve_against",
        "best_response",
        "policy::expected::advise",
    ] {
        assert!(!api.contains(own), "crates/serve/src/api.rs calls {own}");
    }
    let advise =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cmd/advise.rs"))
            .unwrap();
    assert!(
        advise.contains("policy::advise("),
        "advise calls policy::advise"
    );
    table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&[]);
    let o = run_advise(
        RuleSet::YACHT,
        &[
            "--card",
            "ones=2,twos=6,choice=20",
            "--dice",
            "6,6,6,2,1",
            "--rolls-left",
            "1",
            "--opponent",
            "ones=3,twos=4,yacht=50",
            "--opponent-final",
            "120",
            "--json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let cli: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let line = r#"{"card": {"ones": 2, "twos": 6, "choice": 20}, "dice": [6, 6, 6, 2, 1], "rolls_left": 1, "opponents": [{"card": {"ones": 3, "twos": 4, "yacht": 50}}, {"final": 120}]}"#;
    let (status, body) = server.post("/api/advise?rules=yacht", line);
    assert_eq!(status, 200, "{body}");
    let served: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(served, cli);
    assert!(
        served["p_win"].as_f64().is_some_and(|p| p > 0.0 && p < 1.0),
        "{body}"
    );
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn rules_are_the_rules_json_of_every_rule_set() {
    let server = Served::start(&["--rules", "yacht"]);
    table(RuleSet::YACHT, Order::Any);
    for rules in Rules::all() {
        let mut args = vec!["rules", "--rules", rules.set.name(), "--json"];
        if rules.order == Order::UpperFirst {
            args.push("--upper-first");
        }
        let cli = run(RuleSet::YACHT, Order::Any, &args);
        assert!(cli.status.success());
        let (status, body) = server.get(&format!(
            "/api/rules?rules={}&upper_first={}",
            rules.set.name(),
            rules.order == Order::UpperFirst
        ));
        assert_eq!(status, 200);
        assert_eq!(body, stdout(&cli).trim_end(), "{}", rules.label());
    }
    // Without a query: the server's rules.
    let (_, body) = server.get("/api/rules");
    assert!(
        body.starts_with(r#"{"rules":"yacht","upper_first":false"#),
        "{body}"
    );
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn card_is_checked_as_the_command_line_checks_it_and_scores_as_a_game() {
    table(RuleSet::YAHTZEE, Order::Any);
    let server = Served::start(&[]);
    // The same message as `advise --card`.
    let cli = run(
        RuleSet::YAHTZEE,
        Order::Any,
        &["advise", "--card", "twos=3", "--dice", "13356"],
    );
    let cli_message = stderr(&cli)
        .trim()
        .strip_prefix("error: ")
        .unwrap()
        .to_string();
    let message = assert_error(
        &server.post("/api/card", r#"{"card": "twos=3"}"#),
        400,
        "cannot hold 3",
    );
    assert_eq!(message, cli_message);
    for (body, needle) in [
        (r#"{"card": "ones=3,ones=4"}"#, "given twice"),
        (r#"{"card": "sevens=3"}"#, "unknown box `sevens`"),
        (r#"{"card": "ones"}"#, "is not `box=points`"),
        (r#"{"card": 3}"#, "card must be a string"),
        (
            r#"{"card": "", "yahtzee_bonus": 1}"#,
            "a bonus needs 50 there",
        ),
        (
            r#"{"yahtzee_bonus": "1"}"#,
            "yahtzee_bonus must be an integer",
        ),
        (r#"{"cards": ""}"#, "unknown field"),
        (r#"{"score": {"box": "chance"}}"#, "missing field `dice`"),
        (r#"{"score": {"box": "chance", "dice": [1, 2, 3]}}"#, "five"),
        (
            r#"{"score": {"box": "pairs", "dice": [1, 2, 3, 4, 5]}}"#,
            "unknown box `pairs`",
        ),
        (
            r#"{"card": "chance=20", "score": {"box": "chance", "dice": [1, 2, 3, 4, 5]}}"#,
            "chance is already filled (with 20)",
        ),
        (
            r#"{"card": "yahtzee=50", "score": {"box": "chance", "dice": [4, 4, 4, 4, 4]}}"#,
            "the Joker rule forbids chance",
        ),
    ] {
        assert_error(&server.post("/api/card", body), 400, needle);
    }
    // Scoring a further Yahtzee: 20 in fours and a bonus, the sums as `advise` banks them.
    let view = server.post_ok(
        "/api/card",
        &serde_json::json!({"card": "ones=3,yahtzee=50", "score": {"box": "fours", "dice": [4, 4, 4, 4, 4]}}),
    );
    assert_eq!(view["card"], "ones=3,fours=20,yahtzee=50");
    assert_eq!(view["yahtzee_bonus"], 1);
    assert_eq!(view["upper_total"], 23);
    assert_eq!(view["yahtzee_bonus_points"], 100);
    let cli = run(
        RuleSet::YAHTZEE,
        Order::Any,
        &[
            "advise",
            "--card",
            "ones=3,fours=20,yahtzee=50",
            "--yahtzee-bonus",
            "1",
            "--dice",
            "12345",
            "--json",
        ],
    );
    let advice: Value = serde_json::from_str(&stdout(&cli)).unwrap();
    assert_eq!(view["banked"], advice["banked"]);
    assert_eq!(view["banked"], 173);
    // The upper bonus is earned by the box that reaches the threshold.
    let view = server.post_ok(
        "/api/card",
        &serde_json::json!({"card": "ones=3,twos=6,threes=9,fours=12,fives=15", "score": {"box": "sixes", "dice": [6, 6, 6, 1, 2]}}),
    );
    assert_eq!(
        (view["upper_total"].as_u64(), view["upper_bonus"].as_u64()),
        (Some(63), Some(35))
    );
    assert_eq!(view["banked"], 98);
    // An empty body is a new card.
    let (status, body) = server.post("/api/card", "");
    assert_eq!(status, 200);
    assert!(body.contains(r#""card":"","yahtzee_bonus":0"#), "{body}");
}

/// Issue 47: `/api/card` with `dice` answers what each open box would score with them, the
/// points and bonuses of the advice's score options with no rolls left (`advise --batch`):
/// the Joker, the upper bonus reached, a further Yahtzee, the upper-first order.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn card_with_dice_scores_each_open_box_as_the_advice_counts_it() {
    type Case<'a> = (&'a str, u32, [u8; 5]);
    let scored = |view: &Value| -> Vec<(String, u64, u64)> {
        view["boxes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| !b["with_dice"].is_null())
            .map(|b| {
                assert!(b["points"].is_null(), "a filled box scores nothing: {b}");
                let w = &b["with_dice"];
                let n = |k: &str| w[k].as_u64().unwrap();
                (
                    b["name"].as_str().unwrap().to_string(),
                    n("points"),
                    n("bonus"),
                )
            })
            .collect()
    };
    let advised = |line: &str| -> Vec<(String, u64, u64)> {
        let answer: Value = serde_json::from_str(line).unwrap();
        let mut options: Vec<_> = answer["options"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"))
            .iter()
            .map(|o| {
                assert_eq!(o["kind"], "score", "{o}");
                let n = |k: &str| o[k].as_u64().unwrap();
                (
                    o["category"].as_str().unwrap().to_string(),
                    n("points"),
                    n("bonus"),
                )
            })
            .collect();
        options.sort();
        options
    };
    let server = Served::start(&[]);
    let check = |set: &'static RuleSet, order: Order, query: &str, cases: &[Case]| {
        let lines: Vec<String> = cases
            .iter()
            .map(|(card, bonus, dice)| {
                let boxes: serde_json::Map<String, Value> = card
                    .split(',')
                    .filter(|e| !e.is_empty())
                    .map(|e| {
                        let (name, points) = e.split_once('=').unwrap();
                        (name.to_string(), Value::from(points.parse::<u32>().unwrap()))
                    })
                    .collect();
                serde_json::json!({"card": boxes, "yahtzee_bonus": bonus, "dice": dice, "rolls_left": 0}).to_string()
            })
            .collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let args: &[&str] = if order == Order::UpperFirst {
            &["--upper-first"]
        } else {
            &[]
        };
        let cli = cli_batch(set, order, args, &refs);
        let mut views = Vec::new();
        for ((card, bonus, dice), line) in cases.iter().zip(&cli) {
            let view = server.post_ok(
                &format!("/api/card{query}"),
                &serde_json::json!({"card": card, "yahtzee_bonus": bonus, "dice": dice}),
            );
            let mut shown = scored(&view);
            shown.sort();
            assert_eq!(shown, advised(line), "{card} with {dice:?}");
            views.push((shown, view));
        }
        views
    };
    let upper = "ones=3,twos=6,threes=9,fours=12,fives=15,yahtzee=50";
    let views = check(
        RuleSet::YAHTZEE,
        Order::Any,
        "",
        &[
            // A further Yahtzee of sixes, sixes open: sixes alone (forced Joker), 30 points,
            // the upper bonus reached and the Yahtzee bonus.
            (upper, 0, [6, 6, 6, 6, 6]),
            (upper, 0, [6, 6, 6, 1, 2]),
            ("", 0, [2, 3, 4, 5, 6]),
            // Fives filled: the Joker scores a lower box in full.
            ("fives=15,yahtzee=50", 1, [5, 5, 5, 5, 5]),
        ],
    );
    let has = |i: usize, name: &str, points: u64, bonus: u64| {
        let shown = &views[i].0;
        assert!(
            shown.contains(&(name.to_string(), points, bonus)),
            "{name} {points} +{bonus} not in {shown:?}"
        );
    };
    assert_eq!(views[0].0, [("sixes".to_string(), 30, 135)]);
    has(1, "sixes", 18, 35);
    has(2, "large-straight", 40, 0);
    has(3, "large-straight", 40, 100);
    let views = check(
        RuleSet::YACHT,
        Order::UpperFirst,
        "?rules=yacht&upper_first=true",
        &[("ones=2", 0, [3, 3, 3, 5, 5])],
    );
    let (shown, view) = &views[0];
    assert!(shown.contains(&("threes".to_string(), 9, 0)), "{shown:?}");
    assert_eq!(shown.len(), 5, "the five open upper boxes: {shown:?}");
    assert!(
        view["boxes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["with_dice"].is_null() || b["section"] == "upper"),
        "a lower box while an upper box is open: {view}"
    );
    // Bad dice: a 400 saying what is wrong.
    assert_error(
        &server.post("/api/card", r#"{"dice": "13356"}"#),
        400,
        "dice must be",
    );
    assert_error(
        &server.post("/api/card", r#"{"dice": [1, 2, 3]}"#),
        400,
        "3 faces given",
    );
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn stats_are_the_stats_json() {
    table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let mut want = util::stats_json(RuleSet::YACHT, &["--at-least", "150,200"]);
    let mut got = server.post_ok(
        "/api/stats?rules=yacht",
        &serde_json::json!({"at_least": [150, 200]}),
    );
    // The time taken and the threads are the run's own.
    for v in [&mut want, &mut got] {
        let o = v.as_object_mut().unwrap();
        assert!(o.remove("seconds").is_some() && o.remove("threads").is_some());
    }
    assert_eq!(got, want);
    // The default thresholds, for an empty body.
    let (status, body) = server.post("/api/stats?rules=yacht", "");
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["at_least"].as_array().unwrap().len(), 6);
    for (body, needle) in [
        (r#"{"at_least": "200"}"#, "at_least must be an array"),
        (
            r#"{"at_least": [200, -1]}"#,
            "each of at_least must be an integer final score",
        ),
        (r#"{"thresholds": [200]}"#, "unknown field"),
    ] {
        assert_error(&server.post("/api/stats?rules=yacht", body), 400, needle);
    }
}

/// Plays the game `game` (a view) to its end on `server`, the person always taking the
/// first keep the dice allow and the first open box, so the game has mistakes to price.
fn play_to_the_end(server: &Served, mut game: Value) -> Value {
    let id = game["id"].as_str().unwrap().to_string();
    for _ in 0..200 {
        let expect = &game["expect"];
        let action = match expect["kind"].as_str().unwrap() {
            "nothing" => return game,
            "decision" => {
                let q = &expect["query"];
                if q["rolls_left"].as_u64().unwrap() > 0 {
                    // Keep the highest die, a plain but not optimal play.
                    let dice = q["dice"].as_array().unwrap();
                    serde_json::json!({"keep": [dice[4]]})
                } else {
                    let seat = game["cards"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|c| c["player"] == expect["player"])
                        .unwrap();
                    let open = seat["boxes"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|b| b["points"].is_null())
                        .unwrap();
                    serde_json::json!({"score": open["name"]})
                }
            }
            other => panic!("unexpected {other}: {game}"),
        };
        game = server.post_ok(&format!("/api/game/{id}"), &action);
    }
    panic!("the game did not end: {game}");
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn a_game_of_the_page_is_a_game_of_yahtzee_play_and_reviews_as_the_cli_reviews_it() {
    table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let dir = temp_dir();
    // The bot alone with a seed: the same record as `yahtzee play`, line for line.
    let view = server.post_ok(
        "/api/game?rules=yacht",
        &serde_json::json!({"players": "bot", "seed": 42}),
    );
    assert_eq!(view["state"], "over", "{view}");
    let (status, web) = server.get(&format!(
        "/api/game/{}/record",
        view["id"].as_str().unwrap()
    ));
    assert_eq!(status, 200);
    let cli_record = dir.path().join("cli.jsonl");
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "play",
            "--rules",
            "yacht",
            "--players",
            "bot",
            "--seed",
            "42",
            "--record",
            &cli_record.display().to_string(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let cli = std::fs::read_to_string(&cli_record).unwrap();
    let without_start = |text: &str| -> Vec<String> {
        text.lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                v.as_object_mut().unwrap().remove("started");
                v.to_string()
            })
            .collect()
    };
    assert_eq!(without_start(&web), without_start(&cli));
    assert_eq!(
        web.lines().count(),
        view["record_lines"].as_u64().unwrap() as usize
    );

    // A person against the bot, playing badly: the review of the server equals the CLI's.
    let view = server.post_ok(
        "/api/game?rules=yacht",
        &serde_json::json!({"players": "ann,bot", "seed": 7, "coach_threshold": 0.5}),
    );
    assert_eq!(view["state"], "playing");
    let over = play_to_the_end(&server, view);
    assert_eq!(over["state"], "over");
    assert!(
        over["result"].as_str().unwrap().contains(" with "),
        "{over}"
    );
    let log: Vec<&str> = over["log"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert!(log.iter().any(|l| l.starts_with("coach: keep ")), "{log:?}");
    let (_, record) = server.get(&format!(
        "/api/game/{}/record",
        over["id"].as_str().unwrap()
    ));
    let path = dir.path().join("ann.jsonl");
    std::fs::write(&path, &record).unwrap();
    let cli = run(
        RuleSet::YACHT,
        Order::Any,
        &["review", &path.display().to_string(), "--json"],
    );
    assert!(cli.status.success(), "{}", stderr(&cli));
    let (status, body) = server.post("/api/review", &record);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, stdout(&cli).trim_end());
    let review: Value = serde_json::from_str(&body).unwrap();
    assert!(
        review["players"][0]["mean_loss"].as_f64().unwrap() > 0.2,
        "{body}"
    );
    assert_eq!(review["players"][1]["total_loss"].as_f64(), Some(0.0));
    assert_eq!(review["complete"], true);
    // The totals of the last view are those of the record's end line.
    let end: Value = serde_json::from_str(record.lines().last().unwrap()).unwrap();
    for (card, score) in over["cards"]
        .as_array()
        .unwrap()
        .iter()
        .zip(end["scores"].as_array().unwrap())
    {
        assert_eq!(card["banked"], score["total"]);
    }
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn a_game_of_typed_dice_takes_only_the_dice_due_and_the_referee_refuses_illegal_moves() {
    table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let view = server.post_ok(
        "/api/game?rules=yacht",
        &serde_json::json!({"players": "ann,bot", "dice": "manual", "coach_threshold": null}),
    );
    let id = view["id"].as_str().unwrap().to_string();
    let path = format!("/api/game/{id}");
    assert_eq!(view["expect"]["kind"], "dice");
    assert_eq!(view["expect"]["what"], "the opening roll");
    // Opening rolls: ann 30, bot 5: ann starts.
    assert_error(
        &server.post(&path, r#"{"dice": [6, 6, 6]}"#),
        400,
        "give 5 dice from 1 to 6",
    );
    server.post_ok(&path, &serde_json::json!({"dice": [6, 6, 6, 6, 6]}));
    let v = server.post_ok(&path, &serde_json::json!({"dice": [1, 1, 1, 1, 1]}));
    assert_eq!(v["order"], serde_json::json!(["ann", "bot"]));
    assert_eq!(v["expect"]["what"], "the first roll");
    let v = server.post_ok(&path, &serde_json::json!({"dice": [1, 3, 3, 5, 6]}));
    assert_eq!(v["expect"]["kind"], "decision");
    assert_eq!(
        v["expect"]["query"],
        serde_json::json!({"card": {}, "yahtzee_bonus": 0, "dice": [1, 3, 3, 5, 6], "rolls_left": 2})
    );
    // The referee's own messages.
    assert_error(
        &server.post(&path, r#"{"keep": [6, 6]}"#),
        400,
        "cannot keep 6 6: the dice are 1 3 3 5 6",
    );
    assert_error(
        &server.post(&path, r#"{"score": "sevens"}"#),
        400,
        "unknown box `sevens`: the boxes are ones",
    );
    assert_error(
        &server.post(&path, r#"{"dice": [1, 2, 3, 4, 5]}"#),
        400,
        "no dice are due now",
    );
    assert_error(
        &server.post(&path, r#"{"keep": [3], "score": "ones"}"#),
        400,
        "exactly one of keep, score, dice and quit",
    );
    assert_error(
        &server.post(&path, r#"{"keep": "33"}"#),
        400,
        "keep must be an array",
    );
    let v = server.post_ok(&path, &serde_json::json!({"keep": [3, 3]}));
    assert_eq!(v["expect"]["count"], 3, "only the re-rolled dice: {v}");
    assert_eq!(v["kept"], serde_json::json!([3, 3]));
    let v = server.post_ok(&path, &serde_json::json!({"dice": [3, 2, 2]}));
    assert_eq!(v["dice"], serde_json::json!([2, 2, 3, 3, 3]));
    // A box with rolls left: stop, then fill it.
    let v = server.post_ok(&path, &serde_json::json!({"score": "full-house"}));
    assert_eq!(v["cards"][0]["boxes"][6]["points"], 13);
    assert_eq!(v["to_move"], "bot");
    assert_eq!(v["expect"]["kind"], "dice", "the bot's dice are typed too");
    // Seeded dice are not typed; a game is left with quit, and its record says so.
    let (_, record) = server.get(&format!("{path}/record"));
    assert!(
        record
            .contains(r#""type":"keep","player":"ann","turn":1,"keep":[2,2,3,3,3],"rolls_left":1"#),
        "{record}"
    );
    let v = server.post_ok(&path, &serde_json::json!({"quit": true}));
    assert_eq!(v["state"], "left");
    assert_error(
        &server.post(&path, r#"{"dice": [1, 2, 3, 4, 5]}"#),
        400,
        "the game was left",
    );
    let (_, record) = server.get(&format!("{path}/record"));
    assert!(record.ends_with("{\"type\":\"end\",\"complete\":false,\"scores\":[{\"player\":\"ann\",\"total\":13},{\"player\":\"bot\",\"total\":0}]}\n"), "{record}");
    let seeded = server.post_ok(
        "/api/game?rules=yacht",
        &serde_json::json!({"players": "ann", "seed": 1}),
    );
    let p = format!("/api/game/{}", seeded["id"].as_str().unwrap());
    assert_error(
        &server.post(&p, r#"{"dice": [1, 2, 3, 4, 5]}"#),
        400,
        "rolled by the server",
    );
    for (body, needle) in [
        (r#"{"players": "ann,ANN"}"#, "named twice"),
        (r#"{"players": ""}"#, "empty player name"),
        (r#"{"players": ["ann"]}"#, "players must be a string"),
        // page_seated_a_target_bot_that_played_for_the_average: the page's bots are optimal.
        (
            r#"{"players": "ann,bot:target=150"}"#,
            "the page's bots play for the highest average",
        ),
        (r#"{"dice": "loaded"}"#, "dice must be \"seeded\""),
        (
            r#"{"dice": "manual", "seed": 3}"#,
            "manual dice have no seed",
        ),
        (r#"{"seed": -3}"#, "seed must be an integer"),
        (
            r#"{"coach_threshold": -1}"#,
            "coach_threshold must be a number",
        ),
        (r#"{"players": "ann", "colour": "red"}"#, "unknown field"),
    ] {
        assert_error(&server.post("/api/game?rules=yacht", body), 400, needle);
    }
    assert_error(&server.get("/api/game/g0"), 404, "no game `g0`");
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn review_refuses_a_bad_record_with_the_line_and_the_reason() {
    table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let view = server.post_ok(
        "/api/game?rules=yacht",
        &serde_json::json!({"players": "bot", "seed": 3}),
    );
    let (_, record) = server.get(&format!(
        "/api/game/{}/record",
        view["id"].as_str().unwrap()
    ));
    // The same reason as `yahtzee review`, without the file name the upload has not.
    let broken = record.replacen("\"rolls_left\":2", "\"rolls_left\":7", 1);
    let dir = temp_dir();
    let path = dir.path().join("broken.jsonl");
    std::fs::write(&path, &broken).unwrap();
    let cli = run(
        RuleSet::YACHT,
        Order::Any,
        &["review", &path.display().to_string()],
    );
    let cli_message = stderr(&cli);
    let reason = cli_message
        .trim()
        .split_once(": ")
        .unwrap()
        .1
        .split_once(": ")
        .unwrap()
        .1;
    let message = assert_error(&server.post("/api/review", &broken), 400, "line 3: ");
    assert_eq!(message, format!("the record: {reason}"));
    assert_error(&server.post("/api/review", ""), 400, "the record is empty");
    assert_error(
        &server.post("/api/review", "{\"type\":\"game\"}\n"),
        400,
        "line 1: not a game header",
    );
    assert_error(
        &server.post("/api/review?rules=yacht", &record),
        400,
        "the parameters of /api/review are objective, target and stream",
    );
    // A record cut off mid-line is reviewed up to that line.
    let cut = &record[..record.len() - 10];
    let (status, body) = server.post("/api/review", cut);
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["cut_off"].as_u64(), Some(record.lines().count() as u64));
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn every_error_class_is_json_and_no_request_kills_the_server() {
    table(RuleSet::YAHTZEE, Order::Any);
    let mut server = Served::start(&[]);
    assert_error(
        &server.get("/nowhere"),
        404,
        "no such page or endpoint `/nowhere`",
    );
    assert_error(
        &server.call("PUT", "/api/advise", None),
        405,
        "PUT is not allowed on /api/advise",
    );
    assert_error(
        &server.call("DELETE", "/api/rules", None),
        405,
        "DELETE is not allowed",
    );
    assert_error(&server.get("/api/advise"), 405, "GET is not allowed");
    assert_error(
        &server.get("/api/rules?rules=chess"),
        400,
        "unknown rule set `chess`: the rule sets are yahtzee, yahtzee-free-joker, yahtzee-plain, yacht, yatzy, yacht-dice, maxi-yatzy",
    );
    assert_error(
        &server.get("/api/rules?upper_first=yes"),
        400,
        "upper_first must be true or false, not `yes`",
    );
    assert_error(
        &server.get("/api/rules?rules=yacht&rules=yatzy"),
        400,
        "`rules` is given twice",
    );
    assert_error(
        &server.get("/api/rules?colour=red"),
        400,
        "unknown query parameter `colour`: the parameters of /api/rules are rules and upper_first",
    );
    assert_error(
        &server.post("/api/load?objective=fun", ""),
        400,
        "objective must be expected-score, target or distribution",
    );
    assert_error(
        &server.get("/api/status?x=1"),
        400,
        "/api/status takes no query parameters",
    );
    // A body over the limit: 413, announced or not. An announced one is answered at once,
    // before its body (which an HTTP client still sending would not read back: its write
    // fails when the connection closes), so only the head is sent.
    let announced = |path: &str, len: usize, needle: &str| {
        let answer = raw_request(
            server.port(),
            &format!(
                "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
            ),
        );
        assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
        let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
        let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {answer}"));
        assert!(v["error"].as_str().unwrap().contains(needle), "{body}");
    };
    announced(
        "/api/advise",
        yahtzee_serve::BODY_LIMIT + 1,
        "over the limit of 65536 bytes of /api/advise",
    );
    announced("/api/card", yahtzee_serve::BODY_LIMIT + 1, "of /api/card");
    announced(
        "/api/review",
        yahtzee_serve::RECORD_LIMIT + 1,
        "1048576 bytes of /api/review",
    );
    let chunked = raw_request(
        server.port(),
        &format!(
            "POST /api/advise HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n{:x}\r\n{}\r\n0\r\n\r\n",
            70_000,
            " ".repeat(70_000)
        ),
    );
    assert!(chunked.starts_with("HTTP/1.1 413"), "{chunked}");
    // Not UTF-8, garbage, a lie about the length, half a request: answered, and the server
    // lives on.
    assert_error(
        &server.call("POST", "/api/advise", Some(b"{\"dice\": [1,2,3,4,5]}\xff")),
        400,
        "not UTF-8",
    );
    assert_error(
        &server.call("POST", "/api/card", Some(b"\xff")),
        400,
        "not UTF-8",
    );
    let long_key = format!(r#"{{"{}": 1}}"#, "k".repeat(100_000 / 2));
    let m = assert_error(&server.post("/api/game", &long_key), 400, "unknown field");
    assert!(m.len() < 400, "{m}");
    for garbage in [
        "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n".to_string(),
        "POST /api/advise HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{\"di".to_string(),
        "BREW /pot HTTP/1.1\r\n\r\n".to_string(),
        "\u{0}\u{1}\u{2}garbage\r\n\r\n".to_string(),
        format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(20_000)),
    ] {
        let _ = raw_request(server.port(), &garbage);
    }
    for body in [
        "null",
        "true",
        "1e999",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        "{\"dice\":[1,2,3,4,5],\"yahtzee_bonus\":99999999999999999999999}",
        "{\"card\":{\"yahtzee\":50},\"yahtzee_bonus\":4294967295,\"dice\":[1,2,3,4,5]}",
    ] {
        for endpoint in [
            "/api/advise",
            "/api/card",
            "/api/stats",
            "/api/game",
            "/api/review",
            "/api/game/g1",
        ] {
            let (status, text) = server.post(endpoint, body);
            assert!(
                [400, 404].contains(&status),
                "{endpoint} {body}: {status} {text}"
            );
            let v: Value = serde_json::from_str(&text).unwrap();
            assert!(v["error"].is_string(), "{text}");
        }
    }
    assert!(server.alive());
    let (status, _) = server.post("/api/advise", r#"{"dice": [1, 3, 3, 5, 6]}"#);
    assert_eq!(status, 200);
    let err = server.err.lock().unwrap().clone();
    assert!(!err.contains("panicked"), "{err}");
}

/// Sends `request` as it is and reads the answer until the server closes or 5 s pass.
fn raw_request(port: u16, request: &str) -> String {
    raw_request_to(&format!("127.0.0.1:{port}"), request)
}

/// `request` sent as it is to `addr` (`HOST:PORT`): the answer.
fn raw_request_to(addr: &str, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).expect("the server listens");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let _ = stream.write_all(request.as_bytes());
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn tables_load_once_with_their_status_and_the_target_table_of_yacht_builds_on_demand() {
    let dir = temp_dir();
    // No table at all: the server builds the default rules' table at start, the page sees it.
    let server = Served::start_in(dir.path(), &["--rules", "yacht"]);
    let deadline = Instant::now() + Duration::from_secs(120);
    let ready = |objective: &str| loop {
        let (_, body) = server.get("/api/status");
        let v: Value = serde_json::from_str(&body).unwrap();
        let t = v["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["rules"] == "yacht" && t["objective"] == objective)
            .cloned();
        if let Some(t) = t
            && t["state"] == "ready"
        {
            return t;
        }
        assert!(Instant::now() < deadline, "{body}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let t = ready("expected-score");
    assert_eq!(t["total"], t["done"]);
    // What a build costs, for the page to say while it builds.
    assert_eq!(
        t["build_cost"],
        TableKind::ExpectedScore.build_cost(&Rules::new(RuleSet::YACHT))
    );
    assert!(t["total"].as_u64().unwrap() > 0, "it was built: {t}");
    let (status, body) = server.post("/api/load?rules=yacht&objective=target", "");
    assert_eq!(status, 200);
    assert!(body.contains(r#""objective":"target""#), "{body}");
    let t = ready("target");
    assert_eq!(
        t["build_cost"],
        TableKind::Target.build_cost(&Rules::new(RuleSet::YACHT))
    );
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["yacht.target.v4.table", "yacht.v4.table"]);
    // The advice with a target is the CLI's, from the same table.
    let line =
        r#"{"card": {"ones": 2, "twos": 8, "threes": 9}, "dice": [2, 2, 6, 2, 6], "target": 150}"#;
    let o = run_bytes(
        dir.path(),
        &["advise", "--batch", "--rules", "yacht"],
        line.as_bytes(),
    );
    let (status, body) = server.post("/api/advise?rules=yacht", line);
    assert_eq!(status, 200);
    assert_eq!(body, stdout(&o).trim_end());
    assert!(server.err.lock().unwrap().contains("building it once"));
}

/// A server (rules yacht) whose table folder holds a damaged Yacht table, and the folder.
fn served_with_a_damaged_yacht_table() -> (tempfile::TempDir, Served) {
    let dir = temp_dir();
    let rules = Rules::new(RuleSet::YACHT);
    std::fs::write(
        dir.path()
            .join(yahtzee_core::tables::default_table_name(&rules)),
        b"not a table",
    )
    .unwrap();
    let server = Served::start_in(dir.path(), &["--rules", "yacht"]);
    (dir, server)
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn a_damaged_table_is_a_500_with_the_solve_that_rebuilds_it() {
    let (_dir, server) = served_with_a_damaged_yacht_table();
    let m = assert_error(
        &server.post("/api/advise?rules=yacht", r#"{"dice": [1, 2, 3, 4, 5]}"#),
        500,
        "rebuild it with `yahtzee solve --rules yacht`",
    );
    let (_, body) = server.get("/api/status");
    assert!(body.contains(r#""state":"failed""#), "{body}");
    assert!(
        body.contains(&serde_json::to_string(&m).unwrap()[1..20]),
        "{body}"
    );
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn the_page_and_its_assets_are_embedded_and_fetch_nothing_from_elsewhere() {
    table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let (status, page) = server.get("/");
    assert_eq!(status, 200);
    assert!(page.contains(r#"<script src="/app.js" defer></script>"#));
    for asset in ["/", "/app.js", "/style.css"] {
        let (status, text) = server.get(asset);
        assert_eq!(status, 200, "{asset}");
        assert!(
            !text.contains("http://") || asset == "/app.js",
            "{asset} names another host"
        );
        assert!(!text.contains("https://"), "{asset} names another host");
    }
    let head = raw_request(
        server.port(),
        "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    )
    .to_ascii_lowercase();
    assert!(
        head.contains("content-security-policy: default-src 'self';"),
        "{head}"
    );
    // dns_rebinding_reached_the_local_api: a page of another name resolved to 127.0.0.1
    // sends its own Host, and is refused; this machine's loopback names pass.
    for (host, status) in [
        ("evil.example", "403"),
        ("evil.example:8080", "403"),
        ("localhost.evil.example", "403"),
        ("127.0.0.1", "200"),
        ("[::1]:9", "200"),
        ("app.localhost", "200"),
    ] {
        for path in ["/", "/api/status"] {
            let answer = raw_request(
                server.port(),
                &format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
            );
            assert!(
                answer.starts_with(&format!("HTTP/1.1 {status}")),
                "{host} {path}: {answer}"
            );
            if status == "403" {
                assert!(answer.contains("is not this machine"), "{answer}");
            }
        }
    }
    let (status, yaml) = server.get("/openapi.yaml");
    assert_eq!(status, 200);
    assert_eq!(
        yaml,
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/crates/serve/openapi.yaml"
        ))
        .unwrap()
    );
    // Every path of the description is served.
    let paths: Vec<&str> = yaml
        .lines()
        .filter(|l| l.starts_with("  /api/") && l.ends_with(':'))
        .map(|l| l.trim().trim_end_matches(':'))
        .collect();
    assert!(paths.len() >= 10, "{paths:?}");
    let game = server.post_ok("/api/game", &serde_json::json!({"players": "bot"}));
    let pad = server.post_ok("/api/pad", &serde_json::json!({"players": ["ann"]}));
    for p in paths {
        let id = match p.starts_with("/api/pad/") {
            true => &pad["id"],
            false => &game["id"],
        };
        let p = p.replace("{id}", id.as_str().unwrap());
        let (status, _) = server.get(&p);
        assert_ne!(status, 404, "{p} is described but not served");
    }
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn serve_listens_on_this_machine_only_unless_told_and_says_so() {
    table(RuleSet::YAHTZEE, Order::Any);
    let server = Served::start(&[]);
    assert!(
        server.base.starts_with("http://127.0.0.1:"),
        "{}",
        server.base
    );
    std::thread::sleep(Duration::from_millis(200));
    assert!(!server.err.lock().unwrap().contains("warning"));
    let open = Served::start(&["--host", "0.0.0.0"]);
    std::thread::sleep(Duration::from_millis(200));
    let err = open.err.lock().unwrap().clone();
    assert!(
        err.contains("warning: listening on 0.0.0.0, so other machines can reach this server"),
        "{err}"
    );
    // A port in use: one line, exit 2, with the flag that fixes it.
    let port = server.port().to_string();
    let o = util::yahtzee_in(table_dir())
        .args(["serve", "--port", &port])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    util::assert_bad_input(&o, "cannot listen on 127.0.0.1:");
    assert!(
        stderr(&o).contains("choose another port with --port N"),
        "{}",
        stderr(&o)
    );
    let o = util::yahtzee_in(table_dir())
        .args(["serve", "--host", "localhost:80"])
        .output()
        .unwrap();
    util::assert_bad_input(&o, "--host");
}

/// Reads a QR code drawn with text for a dark terminal (a light module is ink: `█` both
/// halves, `▀` the upper, `▄` the lower; a dark one a space) with a QR reader.
fn decode_qr(lines: &[String]) -> String {
    const SCALE: usize = 4;
    let rows: Vec<Vec<char>> = lines.iter().map(|l| l.chars().collect()).collect();
    let width = rows[0].len();
    let light = |x: usize, y: usize| -> bool {
        let c = rows[y / 2].get(x).copied().unwrap_or(' ');
        match (c, y % 2) {
            ('█', _) | ('▀', 0) | ('▄', 1) => true,
            (' ' | '▀' | '▄', _) => false,
            (other, _) => panic!("not a character of the QR code: {other:?}"),
        }
    };
    let mut image = rqrr::PreparedImage::prepare_from_greyscale(
        width * SCALE,
        rows.len() * 2 * SCALE,
        |x, y| if light(x / SCALE, y / SCALE) { 255 } else { 0 },
    );
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1, "one QR code");
    grids[0].decode().expect("the QR code decodes").1
}

/// `method url` with `headers`: the status, the `Set-Cookie` header and the body.
fn call_with(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let r = if method == "GET" {
        let mut r = agent.get(url);
        for (k, v) in headers {
            r = r.header(*k, *v);
        }
        r.call()
    } else {
        let mut r = agent.post(url).header("Content-Type", "application/json");
        for (k, v) in headers {
            r = r.header(*k, *v);
        }
        r.send(body)
    };
    let mut r = r.unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let cookie = r
        .headers()
        .get("set-cookie")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let bytes = r.body_mut().read_to_vec().unwrap();
    (
        r.status().as_u16(),
        cookie,
        String::from_utf8_lossy(&bytes).into_owned(),
    )
}

/// `serve --lan` on a second loopback address (127.0.0.2 stands for the network's: the test
/// never uses this machine's own network address): every request without the token is
/// refused on both addresses, one with it (in the query, the header or the cookie the page
/// sets) is answered, and the QR code printed reads as the address printed.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn lan_answers_only_with_its_token_on_every_address_and_its_qr_code_is_its_address() {
    table(RuleSet::YAHTZEE, Order::Any);
    let (server, url, others, qr) = Served::start_lan(&["--host", "127.0.0.2"]);
    let port = server.port();
    let token = url.split("?token=").nth(1).expect("a token").to_string();
    assert_eq!(token.len(), 48, "{url}");
    assert_eq!(url, format!("http://127.0.0.2:{port}/?token={token}"));
    assert_eq!(others, [format!("http://127.0.0.1:{port}/?token={token}")]);
    assert_eq!(decode_qr(&qr), url);
    let advice = r#"{"dice": [1, 3, 3, 5, 6]}"#;
    let cli = cli_batch(RuleSet::YAHTZEE, Order::Any, &[], &[advice]);
    for base in [
        format!("http://127.0.0.2:{port}"),
        format!("http://127.0.0.1:{port}"),
    ] {
        for path in [
            "/",
            "/app.js",
            "/favicon.ico",
            "/manifest.webmanifest",
            "/api/status",
        ] {
            for headers in [
                vec![],
                vec![("X-Yahtzee-Token", "0123")],
                vec![("Cookie", "yahtzee_token=nope")],
            ] {
                let (status, _, body) = call_with("GET", &format!("{base}{path}"), &headers, "");
                assert_eq!(status, 403, "{base}{path} {headers:?}: {body}");
                assert!(body.contains("answers only with its token"), "{body}");
            }
            let (status, _, body) =
                call_with("GET", &format!("{base}{path}?token=wrong{token}"), &[], "");
            assert_eq!(status, 403, "{body}");
            let (status, _, body) = call_with(
                "GET",
                &format!("{base}{path}"),
                &[("X-Yahtzee-Token", &token)],
                "",
            );
            assert_eq!(status, 200, "{base}{path}: {body}");
        }
        let (status, _, body) = call_with("POST", &format!("{base}/api/advise"), &[], advice);
        assert_eq!(status, 403, "{body}");
        let (status, _, body) = call_with(
            "POST",
            &format!("{base}/api/advise"),
            &[("X-Yahtzee-Token", &token)],
            advice,
        );
        assert_eq!(status, 200, "{body}");
        assert_eq!(body, cli[0]);
        // The address printed: the page, and a cookie that carries the token for its files.
        let (status, cookie, page) = call_with("GET", &format!("{base}/?token={token}"), &[], "");
        assert_eq!(status, 200);
        assert!(page.contains("<script src=\"/app.js\" defer></script>"));
        assert_eq!(
            cookie,
            format!(
                "yahtzee_token={token}; Path=/; Max-Age={}; HttpOnly; SameSite=Strict",
                400 * 24 * 3600
            )
        );
        let jar = format!("yahtzee_token={token}");
        let (status, _, _) = call_with("GET", &format!("{base}/app.js"), &[("Cookie", &jar)], "");
        assert_eq!(status, 200);
        // The token in the query is the server's, not the endpoint's parameter.
        let (status, _, body) = call_with(
            "GET",
            &format!("{base}/api/rules?rules=yacht&token={token}"),
            &[],
            "",
        );
        assert_eq!(status, 200, "{body}");
        // A Host that is not loopback is answered with the token (the phone names the
        // network address), refused without it.
        let answer = raw_request_to(
            &base[7..],
            &format!(
                "GET /api/status HTTP/1.1\r\nHost: evil.example\r\nX-Yahtzee-Token: {token}\r\nConnection: close\r\n\r\n"
            ),
        );
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
}

/// empty_or_word_targets_were_read_as_0: the page read an empty or "abc" target as 0 (the
/// best chance of at least 0: 1). The server refuses every target that is not a whole
/// number, in advice and in reviews, with status 400 and the reason.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn a_target_that_is_empty_or_not_a_whole_number_is_a_400() {
    table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    for t in [r#""""#, r#""abc""#, "null", "-1", "1.5", r#""250""#, "[]"] {
        let answer = server.post(
            "/api/advise?rules=yacht",
            &format!(r#"{{"dice": [1, 3, 3, 5, 6], "target": {t}}}"#),
        );
        assert_error(
            &answer,
            400,
            "target must be an integer final score from 0 to",
        );
    }
    let record = two_player_record(&server, 3);
    for t in ["", "abc", "-1", "1.5"] {
        let answer = server.call(
            "POST",
            &format!("/api/review?target={t}"),
            Some(record.as_bytes()),
        );
        assert_error(&answer, 400, "target must be `off` or a whole number");
    }
}

/// The chances of an outlook's `pmf`: their sum, and the sum from `t` on.
fn pmf_sums(o: &Value, t: u64) -> (f64, f64) {
    let pmf = o["pmf"].as_array().unwrap();
    let total = pmf.iter().map(|e| e[1].as_f64().unwrap()).sum();
    let above = pmf
        .iter()
        .filter(|e| e[0].as_u64().unwrap() >= t)
        .map(|e| e[1].as_f64().unwrap())
        .sum();
    (total, above)
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn outlook_is_the_distribution_of_the_final_score_under_the_line_s_objective() {
    table(RuleSet::YACHT, Order::Any);
    util::target_table(RuleSet::YACHT, Order::Any);
    util::distribution_table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let position = serde_json::json!({"card": {"ones": 2, "fours": 12}, "dice": [2, 3, 5, 5, 6], "rolls_left": 1});
    // Expected-score play: its mean is the best expected final score of the advice (the
    // distribution table is f32).
    let o = server.post_ok("/api/outlook?rules=yacht", &position);
    assert_eq!(o["policy"], "expected-score");
    let (total, _) = pmf_sums(&o, 0);
    assert!((total - 1.0).abs() < 1e-6, "{total}");
    let pmf = o["pmf"].as_array().unwrap();
    let mean: f64 = pmf
        .iter()
        .map(|e| e[0].as_f64().unwrap() * e[1].as_f64().unwrap())
        .sum();
    assert!((mean - o["mean"].as_f64().unwrap()).abs() < 1e-9);
    let advice = server.post_ok("/api/advise?rules=yacht", &position);
    let best = advice["options"][0]["expected_final"].as_f64().unwrap();
    assert!((mean - best).abs() < 1e-3, "{mean} vs {best}");
    assert_eq!(o["min"], pmf[0][0]);
    assert!(
        o["min"].as_u64().unwrap() >= 14,
        "two boxes and five dice at least: {o}"
    );
    let p = o["percentiles"].as_array().unwrap();
    assert!(
        p.windows(2).all(|w| w[0].as_u64() <= w[1].as_u64()),
        "{p:?}"
    );
    assert_eq!(o["target"], Value::Null);
    assert!(
        o["caption"]
            .as_str()
            .unwrap()
            .contains("the best for the average")
    );
    // Playing for 160: the chance of reaching it is the advice's best chance, and higher
    // than under expected-score play, for a lower mean.
    let (_, ev_above) = pmf_sums(&o, 160);
    let mut line = position.clone();
    line["target"] = serde_json::json!(160);
    let t = server.post_ok("/api/outlook?rules=yacht", &line);
    assert_eq!(t["policy"], "target");
    assert_eq!(t["target"], 160);
    assert!(
        t["caption"]
            .as_str()
            .unwrap()
            .contains("playing for 160 or more")
    );
    let (total, above) = pmf_sums(&t, 160);
    assert!((total - 1.0).abs() < 1e-9, "{total}");
    let p_reach = t["p_at_least_target"].as_f64().unwrap();
    assert!((above - p_reach).abs() < 1e-9, "{above} vs {p_reach}");
    let advice = server.post_ok("/api/advise?rules=yacht", &line);
    let best = advice["p_reach"].as_f64().unwrap();
    assert!(
        (p_reach - best).abs() < 1e-6,
        "{p_reach} vs the advice's {best}"
    );
    assert!(p_reach > ev_above + 1e-3, "{p_reach} vs {ev_above}");
    assert!(t["mean"].as_f64().unwrap() < o["mean"].as_f64().unwrap());
    // Playing to win against an opponent's card and a final score: the chance of winning is
    // the advice's.
    let mut line = position.clone();
    line["opponents"] =
        serde_json::json!([{"card": {"ones": 3, "twos": 6, "sixes": 24}}, {"final": 150}]);
    let w = server.post_ok("/api/outlook?rules=yacht", &line);
    assert_eq!(w["policy"], "win");
    assert!(
        w["caption"]
            .as_str()
            .unwrap()
            .contains("not re-solved as they play")
    );
    let advice = server.post_ok("/api/advise?rules=yacht", &line);
    let (p_win, best) = (
        w["p_win"].as_f64().unwrap(),
        advice["p_win"].as_f64().unwrap(),
    );
    assert!(
        (p_win - best).abs() < 1e-6,
        "{p_win} vs the advice's {best}"
    );
    assert_eq!(w["model"], advice["model"]);
    // Asked again: the answer kept.
    assert_eq!(server.post_ok("/api/outlook?rules=yacht", &line), w);
    // Bad lines: the batch protocol's messages; a line without dice (the start of a turn)
    // has those of the same line with dice.
    let bad = [
        (r#"{"dice": [1, 2, 3]}"#, r#"{"dice": [1, 2, 3]}"#),
        (
            r#"{"dice": [1, 2, 3, 4, 5], "target": -1}"#,
            r#"{"dice": [1, 2, 3, 4, 5], "target": -1}"#,
        ),
        (
            r#"{"target": 100001}"#,
            r#"{"target": 100001, "dice": [1, 2, 3, 4, 5]}"#,
        ),
        (
            r#"{"opponents": []}"#,
            r#"{"opponents": [], "dice": [1, 2, 3, 4, 5]}"#,
        ),
        (
            r#"{"opponents": [{"card": {"ones": 9}}]}"#,
            r#"{"opponents": [{"card": {"ones": 9}}], "dice": [1, 2, 3, 4, 5]}"#,
        ),
        (
            r#"{"card": {"ones": 9}}"#,
            r#"{"card": {"ones": 9}, "dice": [1, 2, 3, 4, 5]}"#,
        ),
        (
            r#"{"target": 100, "opponents": [{"final": 100}]}"#,
            r#"{"target": 100, "opponents": [{"final": 100}], "dice": [1, 2, 3, 4, 5]}"#,
        ),
        (r#"{"colour": 1}"#, r#"{"colour": 1}"#),
    ];
    let cli_lines: Vec<&str> = bad.iter().map(|(_, c)| *c).collect();
    let cli = cli_batch(
        RuleSet::YACHT,
        Order::Any,
        &["--rules", "yacht"],
        &cli_lines,
    );
    for ((line, _), want) in bad.iter().zip(&cli) {
        let want: Value = serde_json::from_str(want).unwrap();
        let want = want["error"].as_str().expect("an error line");
        let m = assert_error(&server.post("/api/outlook?rules=yacht", line), 400, "");
        assert_eq!(m, want, "{line}");
    }
    assert_error(
        &server.post("/api/outlook?rules=yacht", r#"{"rolls_left": 1}"#),
        400,
        "rolls_left is for the dice showing",
    );
    let full = "ones=1,twos=2,threes=3,fours=4,fives=5,sixes=6,full-house=0,four-of-a-kind=0,little-straight=0,big-straight=0,choice=5,yacht=0";
    let card: serde_json::Map<String, Value> = full
        .split(',')
        .map(|e| {
            let (k, v) = e.split_once('=').unwrap();
            (k.to_string(), Value::from(v.parse::<u32>().unwrap()))
        })
        .collect();
    assert_error(
        &server.post(
            "/api/outlook?rules=yacht",
            &serde_json::json!({ "card": card, "target": 30 }).to_string(),
        ),
        400,
        "the card is full: every box is filled",
    );
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn outlook_from_the_start_of_a_turn_is_the_distribution_of_stats() {
    table(RuleSet::YACHT, Order::Any);
    util::target_table(RuleSet::YACHT, Order::Any);
    util::distribution_table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let dir = temp_dir();
    // Playing for 80 from an empty card: the distribution of `stats --target 80` (a low
    // target, quick: most states are past it and share the expected-score turn).
    let csv = dir.path().join("pmf.csv");
    let stats = util::stats_json(
        RuleSet::YACHT,
        &["--target", "80", "--pmf", &csv.display().to_string()],
    );
    let outlook = server.post_ok(
        "/api/outlook?rules=yacht",
        &serde_json::json!({"target": 80}),
    );
    assert_eq!(outlook["dice"], Value::Null);
    assert_eq!(outlook["rolls_left"], Value::Null);
    assert!(
        outlook["caption"]
            .as_str()
            .unwrap()
            .starts_with("From the start of the turn, before its roll: ")
    );
    util::assert_pmf_is_csv(&outlook["pmf"], &csv);
    for (key, theirs) in [("mean", "mean"), ("p_at_least_target", "p_reach")] {
        let (a, b) = (
            outlook[key].as_f64().unwrap(),
            stats[theirs].as_f64().unwrap(),
        );
        assert!((a - b).abs() < 1e-9, "{key}: {a} vs {b}");
    }
    assert_eq!(outlook["min"], stats["min"]);
    assert_eq!(outlook["max"], stats["max"]);
    assert_eq!(outlook["percentiles"][2], stats["median"]);
    // Under expected-score play from an empty card: the distribution of `stats` (the
    // distribution table is f32).
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["stats", "--rules", "yacht", "--json"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let stats: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let outlook = server.post_ok("/api/outlook?rules=yacht", &serde_json::json!({}));
    assert_eq!(outlook["policy"], "expected-score");
    let (a, b) = (
        outlook["mean"].as_f64().unwrap(),
        stats["mean"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 1e-3, "{a} vs {b}");
    assert_eq!(outlook["percentiles"][2], stats["median"]);
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn an_outlook_shows_its_progress_and_stops_when_no_request_waits_for_it() {
    table(RuleSet::YACHT, Order::Any);
    util::target_table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let outlooks = || -> Vec<Value> {
        let (_, body) = server.get("/api/status");
        let v: Value = serde_json::from_str(&body).unwrap();
        v["outlooks"].as_array().unwrap().clone()
    };
    // A pass through the whole game (seconds), on a connection closed once it computes.
    let body = r#"{"target": 170}"#;
    let mut stream = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    write!(
        stream,
        "POST /api/outlook?rules=yacht HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let job = loop {
        assert!(Instant::now() < deadline, "no progress shown");
        if let Some(j) = outlooks()
            .into_iter()
            .find(|j| j["state"] == "computing" && j["total"].as_u64() > Some(0))
        {
            break j;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(job["policy"], "target");
    assert_eq!(job["rules"], "yacht");
    assert!(job["done"].as_u64() <= job["total"].as_u64(), "{job}");
    drop(stream);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !outlooks().is_empty() {
        assert!(Instant::now() < deadline, "the computation is not stopped");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Asked again and waited for, it is computed from the start and answered.
    let o = server.post_ok(
        "/api/outlook?rules=yacht",
        &serde_json::from_str(body).unwrap(),
    );
    assert_eq!(o["policy"], "target");
    let (total, _) = pmf_sums(&o, 0);
    assert!((total - 1.0).abs() < 1e-9, "{total}");
    assert!(
        outlooks().is_empty(),
        "an answered outlook is not under way"
    );
}

/// A game of ann (filling the first open box each turn) against the bot, with its record.
pub fn two_player_record(server: &Served, seed: u64) -> String {
    let view = server.post_ok(
        "/api/game?rules=yacht",
        &serde_json::json!({"players": "ann,bot", "seed": seed, "coach_threshold": null}),
    );
    let over = play_to_the_end(server, view);
    let (status, record) = server.get(&format!(
        "/api/game/{}/record",
        over["id"].as_str().unwrap()
    ));
    assert_eq!(status, 200);
    record
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn review_prices_in_the_objective_asked_as_review_does_with_its_flags() {
    table(RuleSet::YACHT, Order::Any);
    util::target_table(RuleSet::YACHT, Order::Any);
    util::distribution_table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let dir = temp_dir();
    let record = two_player_record(&server, 5);
    let path = dir.path().join("ann.jsonl");
    std::fs::write(&path, &record).unwrap();
    let file = path.display().to_string();
    for (query, flags) in [
        ("?target=150", &["--target", "150"][..]),
        ("?objective=target&target=150", &["--target", "150"][..]),
        ("?objective=win", &["--win"][..]),
        ("?objective=expected-score", &["--target", "off"][..]),
        ("?target=off", &["--target", "off"][..]),
        ("", &[][..]),
    ] {
        let mut args = vec!["review", &file, "--json"];
        args.extend(flags);
        let cli = run(RuleSet::YACHT, Order::Any, &args);
        assert!(cli.status.success(), "{}", stderr(&cli));
        let (status, body) = server.post(&format!("/api/review{query}"), &record);
        assert_eq!(status, 200, "{query}: {body}");
        assert_eq!(body, stdout(&cli).trim_end(), "{query}");
    }
    // In chance: the losses are chances, and the bot, which plays for the average, loses
    // some to a target.
    let (_, body) = server.post("/api/review?target=150", &record);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["objective"], "target");
    assert_eq!(v["target"], 150);
    for d in v["decisions"].as_array().unwrap() {
        let loss = d["loss"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&loss), "{d}");
        assert!(d["best_value"].as_f64().unwrap() <= 1.0 + 1e-9, "{d}");
    }
    assert!(
        v["players"][0]["by_size"].get("under_0_001").is_some(),
        "{body}"
    );
    let (_, body) = server.post("/api/review?objective=win", &record);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["objective"], "win");
    assert!(
        v["model"]
            .as_str()
            .unwrap()
            .starts_with("each opponent plays")
    );
    // The errors: the CLI's reason for a bad target, the library's for the rest.
    for bad in ["abc", "100001", "-3"] {
        let cli = run(
            RuleSet::YACHT,
            Order::Any,
            &["review", &file, &format!("--target={bad}")],
        );
        util::assert_bad_input(&cli, "the target must be");
        let reason = stderr(&cli)
            .trim()
            .split_once("': ")
            .unwrap()
            .1
            .trim_end_matches("; see `yahtzee --help`")
            .to_string();
        let m = assert_error(
            &server.post(&format!("/api/review?target={bad}"), &record),
            400,
            "",
        );
        assert_eq!(m, reason);
    }
    for (query, needle) in [
        (
            "?objective=chess",
            "objective must be expected-score, target or win, not `chess`",
        ),
        ("?objective=win&target=150", "objective win takes no target"),
        (
            "?objective=expected-score&target=150",
            "objective expected-score takes no target",
        ),
        ("?objective=target", "objective target needs its target"),
        (
            "?objective=target&target=off",
            "objective target needs a target score",
        ),
        (
            "?rules=yacht",
            "unknown query parameter `rules`: the parameters of /api/review are objective, target and stream",
        ),
        ("?target=1&target=2", "given twice"),
    ] {
        assert_error(
            &server.post(&format!("/api/review{query}"), &record),
            400,
            needle,
        );
    }
    // One player: no chance of winning to price.
    let view = server.post_ok(
        "/api/game?rules=yacht",
        &serde_json::json!({"players": "bot", "seed": 2}),
    );
    let (_, alone) = server.get(&format!(
        "/api/game/{}/record",
        view["id"].as_str().unwrap()
    ));
    assert_error(
        &server.post("/api/review?objective=win", &alone),
        400,
        "a review in chance of winning needs two players or more: this record has one player",
    );
}

/// The CPU time of process `pid` so far, in clock ticks (utime + stime of /proc/PID/stat).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the process runs");
    // The fields after the command name, which is in parentheses: state is field 3, utime 14.
    let after = &stat[stat.rfind(')').expect("a stat line") + 2..];
    let fields: Vec<&str> = after.split(' ').collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// Waits until process `pid` is idle: a second with less than a tenth of a second of CPU.
/// The seconds that took, or `None` when it was still busy after `limit` seconds.
fn idle_within(pid: u32, limit: f64) -> Option<f64> {
    let start = Instant::now();
    loop {
        let before = cpu_ticks(pid);
        std::thread::sleep(Duration::from_millis(1000));
        if cpu_ticks(pid) - before < 10 {
            return Some(start.elapsed().as_secs_f64() - 1.0);
        }
        if start.elapsed().as_secs_f64() > limit {
            return None;
        }
    }
}

/// A connection that has sent `POST path` with the JSON `body` and waits for the answer.
fn post_open(port: u16, path: &str, body: &str) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("the server listens");
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    stream
}

/// `long_work` of `/api/status`: (running, admitted).
fn long_work(server: &Served) -> (u64, u64) {
    let (_, body) = server.get("/api/status");
    let v: Value = serde_json::from_str(&body).unwrap();
    let w = &v["long_work"];
    (
        w["running"].as_u64().unwrap(),
        w["admitted"].as_u64().unwrap(),
    )
}

/// Issue 23, 17: advice against opponents (seconds to half a minute of a core) went on after
/// its client had gone, and any number of them ran at once.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn abandoned_advice_went_on_computing_and_any_number_ran_at_once() {
    table(RuleSet::YAHTZEE, Order::Any);
    let server = Served::start(&[]);
    let pid = server.pid();
    // About 7 s of a core from this card, with a check as each card of its solve starts.
    let line = r#"{"card": {"ones": 3, "twos": 6}, "dice": [1, 3, 3, 5, 6], "opponents": [{"final": 250}]}"#;
    assert!(
        idle_within(pid, 30.0).is_some(),
        "the server is busy at start"
    );
    let before = cpu_ticks(pid);
    let stream = post_open(server.port(), "/api/advise", line);
    let deadline = Instant::now() + Duration::from_secs(30);
    while cpu_ticks(pid) < before + 50 {
        assert!(Instant::now() < deadline, "the advice does not compute");
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(stream);
    let idle = idle_within(pid, 2.0);
    assert!(idle.is_some(), "the abandoned advice went on computing");
    assert_eq!(long_work(&server), (0, 0));
    // The bound: 2 at once and 8 waiting; one more is told to come back later, at once.
    let held: Vec<TcpStream> = (0..10)
        .map(|_| post_open(server.port(), "/api/advise", line))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(10);
    while long_work(&server) != (2, 10) {
        assert!(Instant::now() < deadline, "{:?}", long_work(&server));
        std::thread::sleep(Duration::from_millis(20));
    }
    let asked = Instant::now();
    let answer = raw_request(
        server.port(),
        &format!(
            "POST /api/advise HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{line}",
            line.len()
        ),
    );
    assert!(asked.elapsed() < Duration::from_secs(2), "{answer}");
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer
            .to_ascii_lowercase()
            .contains("\r\nretry-after: 10\r\n"),
        "{answer}"
    );
    let body = answer.split("\r\n\r\n").nth(1).unwrap();
    let v: Value = serde_json::from_str(body).unwrap();
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("the server is busy: 10 long computations are running or waiting"),
        "{body}"
    );
    // Everyone leaves: the queue empties, the two computations stop.
    drop(held);
    assert!(
        idle_within(pid, 2.0).is_some(),
        "the abandoned computations went on"
    );
    assert_eq!(long_work(&server), (0, 0));
    // And the server answers as before, the same advice as the command line's.
    let fast = r#"{"card": {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "chance": 22}, "dice": [1, 3, 3, 5, 6], "opponents": [{"final": 250}, {"final": 180}]}"#;
    let (status, body) = server.post("/api/advise", fast);
    assert_eq!(status, 200, "{body}");
    let cli = cli_batch(RuleSet::YAHTZEE, Order::Any, &[], &[fast]);
    assert_eq!(body, cli[0]);
}

/// review_went_on_after_the_page_was_closed: the review of a game in chance of winning (a
/// solve per decision) ran to its end after its client had gone. It stops between two
/// decisions now: after the connection closes, the server burns a small part of what the
/// whole review costs.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn an_abandoned_review_stops_between_two_decisions() {
    table(RuleSet::YACHT, Order::Any);
    crate::util::distribution_table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let pid = server.pid();
    let view = server.post_ok(
        "/api/game?rules=yacht",
        &serde_json::json!({"players": "bot,bot2,bot3,bot4", "seed": 7, "coach_threshold": null}),
    );
    let over = play_to_the_end(&server, view);
    let (status, record) = server.get(&format!(
        "/api/game/{}/record",
        over["id"].as_str().unwrap()
    ));
    assert_eq!(status, 200);
    // The whole review, once: what it costs.
    assert!(idle_within(pid, 30.0).is_some(), "the server is busy");
    let before = cpu_ticks(pid);
    let (status, body) = server.call("POST", "/api/review?objective=win", Some(record.as_bytes()));
    assert_eq!(status, 200, "{body}");
    let whole = cpu_ticks(pid) - before;
    assert!(
        whole >= 100,
        "the review took only {whole} ticks: too short to tell"
    );
    // The same review, abandoned after a tenth of that.
    assert!(idle_within(pid, 30.0).is_some(), "the server is busy");
    let start = cpu_ticks(pid);
    let mut stream = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    write!(
        stream,
        "POST /api/review?objective=win HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{record}",
        record.len()
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while cpu_ticks(pid) < start + whole / 10 {
        assert!(Instant::now() < deadline, "the review does not compute");
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(stream);
    let dropped = cpu_ticks(pid);
    assert!(idle_within(pid, 10.0).is_some(), "the review went on");
    let after = cpu_ticks(pid) - dropped;
    assert!(
        after < whole / 3,
        "the abandoned review went on: {after} ticks after the client left, of {whole} for the whole"
    );
    assert_eq!(long_work(&server), (0, 0));
}

/// Issue 23, 18: any page the user visits could post `text/plain` to the local server.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn any_page_could_post_text_plain_to_the_local_server() {
    table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let port = server.port();
    let line = r#"{"dice": [1, 3, 3, 5, 6]}"#;
    let ask = |method: &str, path: &str, headers: &str, body: &str| {
        raw_request(
            port,
            &format!(
                "{method} {path} HTTP/1.1\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        )
    };
    let json = "Content-Type: application/json\r\n";
    let own = format!("Host: 127.0.0.1:{port}\r\n");
    for origin in [
        "http://evil.example".to_string(),
        "null".to_string(),
        format!("http://127.0.0.1:{}", port + 1),
        format!("https://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
    ] {
        for (method, path, body) in [
            ("POST", "/api/advise?rules=yacht", line),
            ("GET", "/api/status", ""),
        ] {
            let answer = ask(
                method,
                path,
                &format!("{own}Origin: {origin}\r\n{json}"),
                body,
            );
            assert!(answer.starts_with("HTTP/1.1 403"), "{origin}: {answer}");
            assert!(
                answer.contains(&format!(
                    r#"{{"error":"a request from the page of {origin} is refused: the server answers only its own page, http://127.0.0.1:{port}"}}"#
                )),
                "{answer}"
            );
        }
    }
    // The page's own origin, by the address or by the name it was opened with.
    for (host, origin) in [
        (
            format!("127.0.0.1:{port}"),
            format!("http://127.0.0.1:{port}"),
        ),
        (
            format!("localhost:{port}"),
            format!("http://localhost:{port}"),
        ),
        (
            format!("LOCALHOST:{port}"),
            format!("http://localhost:{port}"),
        ),
    ] {
        let answer = ask(
            "POST",
            "/api/advise?rules=yacht",
            &format!("Host: {host}\r\nOrigin: {origin}\r\n{json}"),
            line,
        );
        assert!(answer.starts_with("HTTP/1.1 200"), "{origin}: {answer}");
    }
    // A body not declared JSON: 415, whatever the endpoint.
    for (content_type, path) in [
        ("Content-Type: text/plain\r\n", "/api/advise?rules=yacht"),
        ("Content-Type: text/plain;charset=UTF-8\r\n", "/api/stats"),
        (
            "Content-Type: application/x-www-form-urlencoded\r\n",
            "/api/card",
        ),
        (
            "Content-Type: multipart/form-data; boundary=x\r\n",
            "/api/game",
        ),
        ("", "/api/advise?rules=yacht"),
    ] {
        let answer = ask("POST", path, &format!("{own}{content_type}"), line);
        assert!(
            answer.starts_with("HTTP/1.1 415"),
            "{content_type}: {answer}"
        );
        assert!(
            answer.contains(r#"{"error":"the body of a POST is JSON: send it with Content-Type: application/json (got "#),
            "{answer}"
        );
    }
    let answer = ask(
        "POST",
        "/api/load?rules=yacht",
        &format!("{own}Content-Type: text/plain\r\n"),
        "",
    );
    assert!(answer.starts_with("HTTP/1.1 415"), "{answer}");
    // JSON with its charset, and a POST without a body (nor a type) pass.
    let answer = ask(
        "POST",
        "/api/advise?rules=yacht",
        &format!("{own}Content-Type: Application/JSON; charset=utf-8\r\n"),
        line,
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let answer = ask("POST", "/api/load?rules=yacht", &own, "");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // A record to review, as openapi.yaml declares it (the record is not one: 400).
    let answer = ask(
        "POST",
        "/api/review",
        &format!("{own}Content-Type: application/x-ndjson\r\n"),
        line,
    );
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    let answer = ask(
        "POST",
        "/api/advise?rules=yacht",
        &format!("{own}Content-Type: application/x-ndjson\r\n"),
        line,
    );
    assert!(answer.starts_with("HTTP/1.1 415"), "{answer}");
    // The page's script says JSON on every POST.
    let (_, script) = server.get("/app.js");
    assert!(
        script.contains("if (method !== 'GET') init.headers['Content-Type'] = 'application/json';"),
        "app.js"
    );
}

/// Issue 23, 19: twelve `/api/load` requests built nine tables at once.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn twelve_loads_built_nine_tables_at_once() {
    let dir = temp_dir();
    let server = Served::start_in(dir.path(), &["--rules", "yacht"]);
    let tables = || -> Vec<Value> {
        let (_, body) = server.get("/api/status");
        let v: Value = serde_json::from_str(&body).unwrap();
        v["tables"].as_array().unwrap().clone()
    };
    std::thread::scope(|s| {
        for _ in 0..2 {
            for order in ["false", "true"] {
                for objective in ["expected-score", "target", "distribution"] {
                    let server = &server;
                    s.spawn(move || {
                        let (status, body) = server.post(
                            &format!(
                                "/api/load?rules=yacht&upper_first={order}&objective={objective}"
                            ),
                            "",
                        );
                        assert_eq!(status, 200, "{body}");
                    });
                }
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let t = tables();
        if t.len() == 6 && t.iter().all(|t| t["state"] == "ready") {
            break;
        }
        assert!(Instant::now() < deadline, "{t:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Each built once, one after the other: a build's start, then its end, six times.
    let err = server.err.lock().unwrap().clone();
    let events: Vec<&str> = err
        .lines()
        .filter(|l| l.ends_with(": building it once") || l.starts_with("built the "))
        .collect();
    assert_eq!(events.len(), 12, "{err}");
    for pair in events.chunks(2) {
        let (start, end) = (pair[0], pair[1]);
        let what = start
            .strip_prefix("no ")
            .and_then(|l| l.split_once(" at "))
            .map(|(w, _)| w.replacen(" table for ", " table of ", 1))
            .unwrap_or_else(|| panic!("not a build's start: {start}\n{err}"));
        assert!(
            end.starts_with(&format!("built the {what} in ")),
            "{start} / {end}\n{err}"
        );
    }
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 6, "{names:?}");
}

/// Issue 23, 20: an idle connection, a head sent a byte at a time, half a body, or a body
/// announced too large were kept open.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn slow_and_lying_clients_were_kept_open() {
    table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let port = server.port();
    let head_limit = yahtzee_serve::limits::HEADER_TIMEOUT.as_secs_f64();
    let body_limit = yahtzee_serve::limits::BODY_TIMEOUT.as_secs_f64();
    // What the server says, and when it closes, after `send` (written at once, or a byte
    // every 2 s).
    let closes = |send: &'static str, trickle: bool| {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let start = Instant::now();
        if trickle {
            let mut writer = stream.try_clone().unwrap();
            std::thread::spawn(move || {
                for b in send.bytes() {
                    if writer.write_all(&[b]).is_err() {
                        break;
                    }
                    std::thread::sleep(Duration::from_secs(2));
                }
            });
        } else {
            stream.write_all(send.as_bytes()).unwrap();
        }
        let mut out = Vec::new();
        let _ = stream.read_to_end(&mut out);
        (
            start.elapsed().as_secs_f64(),
            String::from_utf8_lossy(&out).into_owned(),
        )
    };
    std::thread::scope(|s| {
        let idle = s.spawn(|| closes("", false));
        let trickle =
            s.spawn(|| closes("GET /api/status HTTP/1.1\r\nHost: localhost\r\n\r\n", true));
        let half = s.spawn(|| {
            closes(
                "POST /api/advise?rules=yacht HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"di",
                false,
            )
        });
        let huge = s.spawn(|| {
            closes(
                "POST /api/advise?rules=yacht HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 99999999999999\r\n\r\n",
                false,
            )
        });
        for (what, handle) in [("idle", idle), ("a byte every 2 s", trickle)] {
            let (seconds, answer) = handle.join().unwrap();
            assert!(
                seconds >= head_limit - 0.5 && seconds < head_limit + 3.0,
                "{what}: closed after {seconds} s: {answer}"
            );
            assert!(!answer.contains("HTTP/1.1 200"), "{what}: {answer}");
        }
        let (seconds, answer) = half.join().unwrap();
        assert!(
            seconds >= body_limit - 0.5 && seconds < body_limit + 3.0,
            "half a body: closed after {seconds} s: {answer}"
        );
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(
            answer.contains(r#"{"error":"the request body did not arrive within 5 seconds: send the whole body at once"}"#),
            "{answer}"
        );
        let (seconds, answer) = huge.join().unwrap();
        assert!(
            seconds < 2.0,
            "a huge body announced: {seconds} s: {answer}"
        );
        assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
        assert!(
            answer.contains("over the limit of 65536 bytes of /api/advise"),
            "{answer}"
        );
    });
    // A connection kept alive between requests is closed once idle for as long.
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream
        .write_all(b"GET /api/status HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    let start = Instant::now();
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    let seconds = start.elapsed().as_secs_f64();
    assert!(String::from_utf8_lossy(&out).starts_with("HTTP/1.1 200"));
    assert!(seconds < head_limit + 3.0, "kept open {seconds} s");
    let (status, _) = server.get("/api/status");
    assert_eq!(status, 200);
}

/// Issue 23, 21: a damaged table rebuilt as its 500 says was still refused until the server
/// restarted.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn a_rebuilt_table_was_refused_until_restart() {
    let (dir, server) = served_with_a_damaged_yacht_table();
    let line = r#"{"dice": [1, 2, 3, 4, 5]}"#;
    let m = assert_error(
        &server.post("/api/advise?rules=yacht", line),
        500,
        "rebuild it with `yahtzee solve --rules yacht`",
    );
    // Asked again, the load is tried again (and fails again).
    assert_error(&server.post("/api/advise?rules=yacht", line), 500, &m);
    util::run_suggested(dir.path(), &m);
    let (status, body) = server.post("/api/advise?rules=yacht", line);
    assert_eq!(status, 200, "{body}");
    let o = run_bytes(
        dir.path(),
        &["advise", "--batch", "--rules", "yacht"],
        line.as_bytes(),
    );
    assert_eq!(body, stdout(&o).trim_end());
    let (_, status) = server.get("/api/status");
    assert!(!status.contains(r#""state":"failed""#), "{status}");
}

/// Issue 23, 22: `/api/outlook` took `two_player` and `lead`, which its schema does not
/// have.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn outlook_accepted_two_player_and_lead() {
    table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    for (line, key) in [
        (
            r#"{"dice": [1, 3, 3, 5, 6], "opponents": [{"final": 100}], "two_player": true}"#,
            "two_player",
        ),
        (
            r#"{"dice": [1, 3, 3, 5, 6], "two_player": false}"#,
            "two_player",
        ),
        (r#"{"lead": 4}"#, "lead"),
    ] {
        assert_error(
            &server.post("/api/outlook?rules=yacht", line),
            400,
            &format!(
                "unknown key `{key}` for /api/outlook: the keys are card, yahtzee_bonus, dice, rolls_left, target and opponents"
            ),
        );
    }
    let yaml = yahtzee_serve::OPENAPI_YAML;
    let schema = &yaml[yaml.find("    OutlookQuery:").unwrap()..];
    let schema = &schema[..schema.find("    Outlook:").unwrap()];
    assert!(schema.contains("additionalProperties: false"), "{schema}");
    assert!(
        !schema.contains("two_player") && !schema.contains("lead"),
        "{schema}"
    );
}

/// Issue 25: the review of a game priced to win took minutes with nothing to see. Streamed
/// (`stream=true`), every decision comes as its own line as soon as it is priced (the last
/// turns first), each as the whole review has it, and the last line is the review
/// `/api/review` answers.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn a_streamed_review_comes_decision_by_decision_and_ends_with_the_whole_review() {
    table(RuleSet::YACHT, Order::Any);
    util::distribution_table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let record = two_player_record(&server, 11);
    for query in ["?objective=win", "?target=150", ""] {
        let (status, whole) = server.post(&format!("/api/review{query}"), &record);
        assert_eq!(status, 200, "{whole}");
        let whole: Value = serde_json::from_str(&whole).unwrap();
        let sep = if query.is_empty() { "?" } else { "&" };
        let (status, body) = server.post(&format!("/api/review{query}{sep}stream=true"), &record);
        assert_eq!(status, 200, "{body}");
        let lines: Vec<Value> = body
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect();
        let decisions = whole["decisions"].as_array().unwrap();
        let n = decisions.len();
        assert_eq!(lines[0]["type"], "waiting", "{query}");
        assert_eq!(lines[1]["type"], "started");
        assert_eq!(lines[1]["total"], n);
        assert_eq!(lines[1]["objective"], whole["objective"]);
        assert_eq!(lines[1]["model"], whole["model"]);
        let priced: Vec<&Value> = lines.iter().filter(|l| l["type"] == "decision").collect();
        assert_eq!(priced.len(), n, "{query}: one line per decision");
        let mut seen = vec![false; n];
        let mut last_turn = u64::MAX;
        for (k, l) in priced.iter().enumerate() {
            assert_eq!(l["done"], k + 1);
            let i = l["index"].as_u64().unwrap() as usize;
            assert!(!std::mem::replace(&mut seen[i], true), "decision {i} twice");
            // Each decision as the review has it, the last turns first.
            assert_eq!(l["decision"], decisions[i], "{query}: decision {i}");
            let turn = decisions[i]["turn"].as_u64().unwrap();
            assert!(turn <= last_turn, "{query}: turn {turn} after {last_turn}");
            last_turn = turn;
        }
        let end = lines.last().unwrap();
        assert_eq!(end["type"], "review");
        assert_eq!(end["review"], whole, "{query}");
    }
    assert_error(
        &server.post("/api/review?stream=yes", &record),
        400,
        "stream must be true",
    );
    // A record refused is a 400 before any line.
    assert_error(
        &server.post("/api/review?stream=true", "{}"),
        400,
        "the record: ",
    );
}

/// Issue 25: Cancel stopped the page's questions but not a table being built. `/api/cancel`
/// stops the build as its next card starts: nothing is saved, the status says `cancelled`,
/// and asked for again the table builds anew.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn cancel_stops_a_table_build_and_leaves_no_file() {
    table(RuleSet::YACHT, Order::Any);
    let dir = util::dir_with_tables(&["yacht.v4.table"]);
    let server = Served::start_in(dir.path(), &["--rules", "yacht"]);
    let target = |server: &Served| -> Value {
        let (_, body) = server.get("/api/status");
        let v: Value = serde_json::from_str(&body).unwrap();
        v["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["rules"] == "yahtzee" && t["objective"] == "target")
            .cloned()
            .unwrap_or(Value::Null)
    };
    let wait = |what: &str, done: &dyn Fn(&Value) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let t = target(&server);
            if done(&t) {
                return t;
            }
            assert!(Instant::now() < deadline, "{what}: {t}");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    for round in 0..2 {
        // The target table of Yahtzee: minutes of building.
        let (status, body) = server.post("/api/load?rules=yahtzee&objective=target", "");
        assert_eq!(status, 200, "{body}");
        assert_ne!(target(&server)["state"], "cancelled", "round {round}");
        wait("the build under way", &|t| {
            t["state"] == "building" && t["done"].as_u64().unwrap_or(0) > 0
        });
        let (status, body) = server.post("/api/cancel?rules=yahtzee&objective=target", "");
        assert_eq!(status, 200, "{body}");
        let t = wait("the build stopped", &|t| t["state"] == "cancelled");
        assert!(
            t["error"].as_str().unwrap().contains("was cancelled"),
            "{t}"
        );
        assert!(t["done"].as_u64().unwrap() < t["total"].as_u64().unwrap());
        // Nothing of it is left in the folder: no table, no temporary.
        util::assert_no_file_starting(dir.path(), "yahtzee.target");
    }
    // The server stops computing (the build's threads are back).
    assert!(
        idle_within(server.pid(), 20.0).is_some(),
        "the build went on"
    );
    let err = server.err.lock().unwrap().clone();
    assert_eq!(
        err.matches("stopped building the target table of yahtzee")
            .count(),
        2,
        "{err}"
    );
    assert!(!err.contains("built the target table of yahtzee"), "{err}");
    assert_error(
        &server.post("/api/cancel?rules=yahtzee&objective=chess", ""),
        400,
        "objective must be",
    );
    // A table that is not being built is left as it is.
    let (status, body) = server.post("/api/cancel?rules=yacht", "");
    assert_eq!(status, 200);
    assert!(body.contains(r#""state":"ready""#), "{body}");
}

/// Issue 25: the page a phone put on its home screen got 403 after `serve --lan` restarted,
/// the token being new at each start. It is kept (in the cache folder) until `--new-token`,
/// which shuts out the pages of the old one.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn lan_keeps_its_token_across_restarts_until_a_new_one_is_asked_for() {
    table(RuleSet::YACHT, Order::Any);
    let dir = util::dir_with_tables(&["yacht.v4.table"]);
    let args = ["--host", "127.0.0.2", "--rules", "yacht"];
    let token_of = |url: &str| url.split("?token=").nth(1).expect("a token").to_string();
    let status_with = |server: &Served, token: &str| {
        let jar = format!("yahtzee_token={token}");
        call_with(
            "GET",
            &format!("{}/api/status", server.base),
            &[("Cookie", &jar)],
            "",
        )
        .0
    };
    let (first, url, _, _) = Served::start_lan_in(dir.path(), &args);
    let token = token_of(&url);
    assert_eq!(status_with(&first, &token), 200);
    drop(first);
    // Restarted: the same token, so the page's cookie still opens it.
    let (again, url, _, qr) = Served::start_lan_in(dir.path(), &args);
    assert_eq!(token_of(&url), token);
    assert_eq!(decode_qr(&qr), url);
    assert_eq!(status_with(&again, &token), 200);
    drop(again);
    // A new token: the old one is refused.
    let (rotated, url, _, _) =
        Served::start_lan_in(dir.path(), &[&args[..], &["--new-token"]].concat());
    let new = token_of(&url);
    assert_ne!(new, token);
    assert_eq!(status_with(&rotated, &token), 403);
    assert_eq!(status_with(&rotated, &new), 200);
    let kept = std::fs::read_to_string(dir.path().join("serve-lan.token")).unwrap();
    assert_eq!(kept.trim(), new);
    drop(rotated);
    // --new-token is for --lan only.
    let o = util::yahtzee_in(dir.path())
        .args(["serve", "--new-token", "--port", "0"])
        .output()
        .unwrap();
    util::assert_bad_input(&o, "--lan");
}

/// Issue 25: the exact distribution of the target policy from an early position takes a
/// while (seconds under Yacht, minutes under Yahtzee). Streamed (`stream=true`), estimates
/// from simulated games of the same policy from the same position come first, each with its
/// games and 95% intervals, then the exact outlook, the one `/api/outlook` answers; a late
/// position's answer comes at once, alone.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn a_streamed_outlook_estimates_from_simulated_games_until_the_exact_one_comes() {
    table(RuleSet::YACHT, Order::Any);
    util::target_table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let started = Instant::now();
    let line = serde_json::json!({"card": {}, "yahtzee_bonus": 0, "target": 120});
    let (status, body) = server.post("/api/outlook?rules=yacht&stream=true", &line.to_string());
    let took = started.elapsed();
    assert_eq!(status, 200, "{body}");
    let lines: Vec<Value> = body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let (last, estimates) = lines.split_last().unwrap();
    assert_eq!(last["type"], "outlook", "{last}");
    let exact = &last["outlook"];
    assert_eq!(*exact, server.post_ok("/api/outlook?rules=yacht", &line));
    assert!(
        !estimates.is_empty(),
        "no estimate in {took:?}: the exact pass is too fast to show one"
    );
    let p = exact["p_at_least_target"].as_f64().unwrap();
    let mut games = 0;
    for e in estimates {
        assert_eq!(e["type"], "estimate", "{e}");
        let n = e["games"].as_u64().unwrap();
        assert!(n > games, "more games each time: {n} after {games}");
        games = n;
        let o = &e["outlook"];
        assert_eq!(o["policy"], "target");
        assert_eq!(o["target"], 120);
        let (total, above) = pmf_sums(o, 120);
        assert!((total - 1.0).abs() < 1e-9, "{total}");
        let reach = &e["reach"];
        assert!((reach["share"].as_f64().unwrap() - above).abs() < 1e-9);
        // The exact chance within the estimate's interval, widened to 4 standard errors
        // (the games are seeded: the same games every time).
        let (low, high) = (
            reach["low"].as_f64().unwrap(),
            reach["high"].as_f64().unwrap(),
        );
        let slack = (high - low) / 2.0;
        assert!(
            low - slack <= p && p <= high + slack,
            "{p} outside {low}..{high} from {n} games"
        );
        let mean = exact["mean"].as_f64().unwrap();
        let (low, high) = (
            e["mean"]["low"].as_f64().unwrap(),
            e["mean"]["high"].as_f64().unwrap(),
        );
        let slack = (high - low) / 2.0;
        assert!(
            low - slack <= mean && mean <= high + slack,
            "{mean} outside {low}..{high}"
        );
    }
    // Late in a game the exact answer comes at once, alone.
    let late = serde_json::json!({"card": {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18}, "dice": [1, 2, 3, 4, 6], "rolls_left": 1, "target": 120});
    let (status, body) = server.post("/api/outlook?rules=yacht&stream=true", &late.to_string());
    assert_eq!(status, 200, "{body}");
    let lines: Vec<Value> = body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{body}");
    assert_eq!(
        lines[0]["outlook"],
        server.post_ok("/api/outlook?rules=yacht", &late)
    );
    let e = assert_error(
        &server.post("/api/outlook?rules=yacht&stream=yes", "{}"),
        400,
        "",
    );
    assert!(e.starts_with("stream must be true"), "{e}");
    eprintln!(
        "streamed outlook: {} estimates, {games} games, in {took:?}",
        estimates.len()
    );
}

#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn rating_of_several_records_is_review_rating_json() {
    table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    let dir = temp_dir();
    let records: Vec<String> = (1..=3).map(|s| two_player_record(&server, s)).collect();
    let files: Vec<String> = records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let path = dir.path().join(format!("game-{i}.jsonl"));
            std::fs::write(&path, r).unwrap();
            path.display().to_string()
        })
        .collect();
    let mut args = vec!["review", "--rating", "--json"];
    args.extend(files.iter().map(String::as_str));
    let cli = run(RuleSet::YACHT, Order::Any, &args);
    assert!(cli.status.success(), "{}", stderr(&cli));
    // The records joined in one body, as the page sends them.
    let (status, body) = server.post("/api/rating", &records.concat());
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, stdout(&cli).trim_end());
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["records"], 3);
    // The player who keeps the highest die loses points; the bot none.
    let players = v["players"].as_array().unwrap();
    assert!(
        players[0]["loss_per_game"]["mean"].as_f64().unwrap() > 1.0,
        "{body}"
    );
    assert_eq!(players[1]["loss_per_game"]["mean"], 0.0);

    // Bad input: one line, 400.
    assert_error(
        &server.post("/api/rating", ""),
        400,
        "no game record to rate",
    );
    let broken = format!("{}{}", records[0], "{\"type\":\"game\"}\n");
    assert_error(
        &server.post("/api/rating", &broken),
        400,
        "record 2 (from line",
    );
    let yahtzee = records[1].replacen(r#""rules":"yacht""#, r#""rules":"yahtzee""#, 1);
    let head = yahtzee.lines().next().unwrap().to_string() + "\n";
    assert_error(
        &server.post("/api/rating", &(records[0].clone() + &head)),
        400,
        "rate the records of each rule set apart",
    );
}

/// Issue 45: two `Host` headers (only the first was checked), HTTP/1.1 without `Host`, and an
/// absolute-form `GET http://evil.example/api/status` with `Host: 127.0.0.1` were answered
/// 200. Each is a 400 as RFC 9112 asks; HTTP/1.0 without `Host` and a target in absolute form
/// naming the server itself are answered.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn a_request_that_does_not_name_its_one_host_is_a_400() {
    table(RuleSet::YAHTZEE, Order::Any);
    let server = Served::start(&[]);
    let port = server.port();
    let status = |answer: &str| -> u16 {
        answer
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status: {answer:?}"))
    };
    for (request, want, needle) in [
        (
            "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n".to_string(),
            400,
            "2 Host headers",
        ),
        (
            "GET /api/status HTTP/1.1\r\nHost: evil.example\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".to_string(),
            400,
            "2 Host headers",
        ),
        (
            "GET /api/status HTTP/1.1\r\nConnection: close\r\n\r\n".to_string(),
            400,
            "needs a Host header",
        ),
        (
            "GET http://evil.example/api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".to_string(),
            400,
            "names the host evil.example",
        ),
        (
            "GET /api/status HTTP/1.1\r\nHost: user@127.0.0.1\r\nConnection: close\r\n\r\n"
                .to_string(),
            400,
            "is not a host and port",
        ),
        // The target's host, when it agrees with Host, is the one checked.
        (
            "GET http://evil.example/api/status HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n".to_string(),
            403,
            "is not this machine",
        ),
        (
            format!("GET http://127.0.0.1:{port}/api/status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"),
            200,
            "\"tables\"",
        ),
        (
            "GET /api/status HTTP/1.0\r\n\r\n".to_string(),
            200,
            "\"tables\"",
        ),
    ] {
        let answer = raw_request(port, &request);
        assert_eq!(status(&answer), want, "{request:?}: {answer}");
        assert!(answer.contains(needle), "{request:?}: {answer}");
    }
    assert!(!server.err.lock().unwrap().contains("panicked"));
}

/// Issue 45: the accept loop held every connection it was given (tested to 50): it holds at
/// most `limits::MAX_CONNECTIONS`; one more waits, unaccepted, and is answered as soon as a
/// held one closes.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn the_server_holds_at_most_its_cap_of_connections() {
    table(RuleSet::YAHTZEE, Order::Any);
    let server = Served::start(&[]);
    let port = server.port();
    let cap = yahtzee_serve::limits::MAX_CONNECTIONS;
    let fds = |pid: u32| std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count());
    let before = fds(server.pid()).unwrap_or(0);
    // The cap, idle (each closed by the server after the head timeout, 5 s: the test is done
    // with them well before).
    let held: Vec<TcpStream> = (0..cap)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    let mut one_more = TcpStream::connect(("127.0.0.1", port)).unwrap();
    one_more
        .write_all(b"GET /api/status HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .unwrap();
    one_more
        .set_read_timeout(Some(Duration::from_millis(1500)))
        .unwrap();
    let mut first = [0u8; 1];
    let waited = one_more.read(&mut first);
    assert!(
        matches!(&waited, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut),
        "the connection past the cap was answered: {waited:?}"
    );
    if let Ok(now) = fds(server.pid()) {
        assert!(
            now <= before + cap + 2,
            "{now} files open with {cap} connections held ({before} before)"
        );
    }
    // One held connection closes: the one waiting is accepted and answered.
    let started = Instant::now();
    drop(held);
    one_more
        .set_read_timeout(Some(Duration::from_secs(3)))
        .unwrap();
    let mut rest = Vec::new();
    let _ = one_more.read_to_end(&mut rest);
    let answer = String::from_utf8_lossy(&[&first[..0], &rest[..]].concat()).into_owned();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(server.get("/api/status").0, 200);
}

/// Issue 45: `serve --lan` reused a token file of mode 644 without a word, served a planted
/// `000...0` file of mode 666 as its token, and read a link (which `--new-token` then wrote
/// through, its target replaced). Each is refused, exit 2, with the fix; `--new-token`
/// replaces it (the link, never its target) with a token its owner alone can read.
#[cfg(unix)]
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn lan_refuses_a_token_file_others_could_read_or_write_or_a_link() {
    use std::os::unix::fs::PermissionsExt as _;
    table(RuleSet::YACHT, Order::Any);
    let dir = util::dir_with_tables(&["yacht.v4.table"]);
    let path = dir.path().join("serve-lan.token");
    let planted = "0".repeat(48);
    let args = ["--host", "127.0.0.2", "--rules", "yacht"];
    let refused = |needle: &str| {
        // A server that starts (serving the file) would run for ever: at most 20 s.
        let child = util::yahtzee_in(dir.path())
            .args(["serve", "--lan", "--port", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let o = util::finish_within(child, Duration::from_secs(20), "serve --lan");
        util::assert_bad_input(&o, needle);
        assert!(stderr(&o).contains("--new-token"), "{}", stderr(&o));
    };
    for (mode, said) in [
        (0o644, "can be read by others (mode 644)"),
        (0o666, "can be read and written by others (mode 666)"),
    ] {
        std::fs::write(&path, format!("{planted}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        refused(said);
    }
    // --new-token replaces it: a new token, the user's alone.
    let (server, url, _, _) =
        Served::start_lan_in(dir.path(), &[&args[..], &["--new-token"]].concat());
    let token = url.split("?token=").nth(1).unwrap().to_string();
    assert_ne!(token, planted);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    drop(server);
    // A link to a file of the token's shape: refused, never read; --new-token replaces the
    // link and leaves its target alone.
    let target = dir.path().join("elsewhere");
    std::fs::write(&target, format!("{planted}\n")).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&target, &path).unwrap();
    refused("is a link (to ");
    let (server, url, _, _) =
        Served::start_lan_in(dir.path(), &[&args[..], &["--new-token"]].concat());
    assert_ne!(url.split("?token=").nth(1).unwrap(), planted);
    drop(server);
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        format!("{planted}\n")
    );
    let mode = std::fs::metadata(&target).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    assert!(std::fs::symlink_metadata(&path).unwrap().is_file());
}

/// Issue 45: a phone that opened the page without the token got the API's raw JSON. A
/// browser asking for a page gets a short page saying to scan the QR code again (403); the
/// API's callers still get `{"error": ...}`.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn a_page_opened_without_the_token_says_to_scan_the_qr_code_again() {
    table(RuleSet::YAHTZEE, Order::Any);
    let (server, _, _, _) = Served::start_lan(&["--host", "127.0.0.2"]);
    let accept = [(
        "Accept",
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    )];
    for path in ["/", "/?token=wrong", "/api/status"] {
        let (status, _, body) = call_with("GET", &format!("{}{path}", server.base), &accept, "");
        assert_eq!(status, 403, "{path}: {body}");
        assert!(body.starts_with("<!doctype html>"), "{path}: {body}");
        assert!(body.contains("Scan the QR code again"), "{body}");
        assert!(body.contains("answers only with its token"), "{body}");
    }
    let (status, _, body) = call_with("GET", &format!("{}/api/status", server.base), &[], "");
    assert_eq!(status, 403);
    assert!(body.starts_with("{\"error\":"), "{body}");
}

/// Issue 45: a player named U+202E + "tob" was accepted by `/api/game` (and showed as "bot").
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn a_player_name_with_a_control_or_format_character_is_a_400() {
    table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&["--rules", "yacht"]);
    for name in [
        "\u{202e}tob",
        "a\u{2028}b",
        "a\u{85}b",
        "a\u{7f}b",
        "a\u{200b}b",
    ] {
        let answer = server.post(
            "/api/game?rules=yacht",
            &serde_json::json!({"players": format!("{name},bot"), "seed": 1}).to_string(),
        );
        assert_error(&answer, 400, "is not allowed");
    }
}

/// Issue 47: the first target or win question waited for its table's build (two minutes
/// for Yahtzee). With an empty table folder, `serve` builds the expected-score table first
/// and the target and distribution tables after it, in the background: expected-score
/// advice is answered while they build, a target or win question gets the expected-score
/// advice for its position at once, marked provisional (`advise --json` without the
/// objective), and the exact answer once its table is built (`advise --target T --json`).
/// Yacht Dice's target table builds for seconds, Yacht's in under one.
#[test]
#[cfg_attr(
    not(feature = "serve"),
    ignore = "the web advisor is a feature: cargo test --release --all-features"
)]
fn advice_does_not_wait_for_a_table_being_built() {
    let dir = temp_dir();
    let server = Served::start_prebuilding(dir.path(), &["--rules", "yacht-dice"]);
    let table_of = |rules: &str, objective: &str| -> Value {
        let (_, body) = server.get("/api/status");
        let v: Value = serde_json::from_str(&body).unwrap();
        v["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["rules"] == rules && t["objective"] == objective)
            .cloned()
            .unwrap_or(Value::Null)
    };
    let wait = |rules: &str, objective: &str, done: &dyn Fn(&Value) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let t = table_of(rules, objective);
            if done(&t) {
                return t;
            }
            assert!(Instant::now() < deadline, "{rules} {objective}: {t}");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let cli = |args: &[&str]| -> Value {
        let o = util::yahtzee_in(dir.path())
            .args(["advise", "--json"])
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    // The first expected-score advice, while the target table builds after it.
    let line = r#"{"card": {"ones": 2}, "dice": [1, 3, 3, 5, 6], "rolls_left": 2}"#;
    let (status, body) = server.post("/api/advise", line);
    assert_eq!(status, 200, "{body}");
    let building = wait("yacht-dice", "target", &|t| !t.is_null());
    assert!(
        building["state"] == "building" || building["state"] == "loading",
        "{building}"
    );
    let position = [
        "--rules",
        "yacht-dice",
        "--card",
        "ones=2",
        "--dice",
        "13356",
    ];
    let expected = cli(&position);
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap(), expected);
    // A target question meanwhile: the same advice, marked.
    let ask = |rules: &str, extra: &str| -> Value {
        let line = format!(
            r#"{{"card": {{"ones": 2}}, "dice": [1, 3, 3, 5, 6], "rolls_left": 2, {extra}}}"#
        );
        let (status, body) = server.post(&format!("/api/advise?rules={rules}"), &line);
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    };
    let mut answer = ask("yacht-dice", r#""target": 150"#);
    let mark = answer.as_object_mut().unwrap().remove("provisional");
    let mark = mark.unwrap_or_else(|| panic!("not provisional: {answer}"));
    assert_eq!(answer, expected);
    assert_eq!(mark["objective"], "target");
    assert_eq!(mark["table"], "target");
    assert!(
        mark["eta_seconds"].as_f64().is_some_and(|s| s > 0.0),
        "{mark}"
    );
    assert!(
        mark["reason"]
            .as_str()
            .unwrap()
            .starts_with("the target table of yacht-dice is not ready: it is being built"),
        "{mark}"
    );
    let t = wait("yacht-dice", "target", &|t| t["done"].as_u64() > Some(0));
    assert!(t["eta_seconds"].as_f64().is_some_and(|s| s > 0.0), "{t}");
    // Against an opponent's card, the distribution table: started by the question.
    let mut answer = ask("yacht-dice", r#""opponents": [{"card": {"ones": 3}}]"#);
    let mark = answer
        .as_object_mut()
        .unwrap()
        .remove("provisional")
        .unwrap();
    assert_eq!(
        (&mark["objective"], &mark["table"]),
        (&"win".into(), &"distribution".into())
    );
    assert_eq!(answer, expected);
    // Cancelled, both builds stop; a cancelled one is not built again by itself.
    for objective in ["target", "distribution"] {
        wait("yacht-dice", objective, &|t| t["state"] == "building");
        let (status, body) = server.post(
            &format!("/api/cancel?rules=yacht-dice&objective={objective}"),
            "",
        );
        assert_eq!(status, 200, "{body}");
        wait("yacht-dice", objective, &|t| t["state"] != "building");
    }
    util::assert_no_file_starting(dir.path(), "yacht-dice.target");
    // Yacht's target table: provisional while it builds (or queued), exact once built.
    let mut answer = ask("yacht", r#""target": 150"#);
    assert!(
        answer
            .as_object_mut()
            .unwrap()
            .remove("provisional")
            .is_some()
    );
    assert_eq!(
        answer,
        cli(&["--rules", "yacht", "--card", "ones=2", "--dice", "13356"])
    );
    wait("yacht", "target", &|t| t["state"] == "ready");
    let exact = ask("yacht", r#""target": 150"#);
    assert!(exact.get("provisional").is_none(), "{exact}");
    let target = [
        "--rules", "yacht", "--card", "ones=2", "--dice", "13356", "--target", "150",
    ];
    assert_eq!(exact, cli(&target));
    assert_eq!(table_of("yacht-dice", "target")["state"], "cancelled");
}
