//! The page of `yahtzee serve` in headless Chromium, driven as a player would through
//! chromedriver's WebDriver protocol: a position entered by clicking and by the keyboard, the
//! ranking shown against `advise --json` for it, options applied through a whole turn and
//! undone, the distribution of the final score charted, the objectives switched (a target,
//! opponents to beat), a whole game against the bot, its record downloaded,
//! uploaded and reviewed, several records rated, and the page at desktop and phone width.
//!
//! Needs Debian's `chromium` and `chromium-driver`, and npm for axe-core (`.ci/run` installs
//! them). On a machine without them the tests are ignored (build.rs); under `CI=true`, or
//! when one of them fails to run, a test fails and says why. With
//! `YAHTZEE_SCREENSHOTS=DIR` the screenshots are written to DIR (those of the README and
//! docs/serve.md come from `results/`).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::tables::set::TableKind;

use crate::serve::Served;
use crate::util::{
    assert_pmf_is_csv, events_but_start, review_json, run, stats_json, stderr, stdout, table,
    temp_dir,
};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The WebDriver keys of Enter, Escape and Tab.
const ENTER: &str = "\u{E007}";
const ESCAPE: &str = "\u{E00C}";
const TAB: &str = "\u{E004}";
/// The WebDriver keys of the arrows up and down.
const ARROW_UP: &str = "\u{E013}";
const ARROW_DOWN: &str = "\u{E015}";

/// The browser and its driver, or why the test cannot run.
fn browser() -> Result<(PathBuf, PathBuf), String> {
    let chromium =
        std::env::var_os("YAHTZEE_CHROMIUM").map_or(PathBuf::from(CHROMIUM), PathBuf::from);
    let driver =
        std::env::var_os("YAHTZEE_CHROMEDRIVER").map_or(PathBuf::from(CHROMEDRIVER), PathBuf::from);
    for p in [&chromium, &driver] {
        if !p.exists() {
            return Err(format!(
                "{} is missing: install Debian's chromium and chromium-driver (`apt-get install -y chromium chromium-driver`, as .ci/run does)",
                p.display()
            ));
        }
    }
    Ok((chromium, driver))
}

/// A free port of this machine.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// chromedriver on a free port, stopped when dropped.
struct Driver {
    child: Child,
    base: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    fn start(path: &Path) -> Driver {
        let port = free_port();
        let child = Command::new(path)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let d = Driver {
            child,
            base: format!("http://127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while d.raw("GET", "/status", None).is_err() {
            assert!(Instant::now() < deadline, "chromedriver does not answer");
            std::thread::sleep(Duration::from_millis(100));
        }
        d
    }

    fn raw(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(120)))
            .build()
            .into();
        let url = format!("{}{path}", self.base);
        let r = match method {
            "GET" => agent.get(&url).call(),
            "DELETE" => agent.delete(&url).call(),
            _ => agent
                .post(&url)
                .content_type("application/json")
                .send(body.unwrap_or(&json!({})).to_string()),
        };
        let mut r = r.map_err(|e| e.to_string())?;
        let text = r
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_string()
            .map_err(|e| e.to_string())?;
        serde_json::from_str(&text).map_err(|e| format!("{e}: {text}"))
    }
}

/// One browser session.
pub(crate) struct Browser {
    driver: Driver,
    session: String,
    shots: PathBuf,
    /// Chromium's profile, a folder of its own (removed after the browser is stopped).
    _profile: tempfile::TempDir,
}

/// The key of an element reference in WebDriver answers.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

impl Browser {
    /// A new headless Chromium (a profile of its own) on the page of the server at `base`,
    /// once the page is ready: at a phone's size (390x844) when `phone`, else in its window
    /// of 1280x1000. Its screenshots go to `$YAHTZEE_SCREENSHOTS`, or to `work`. Chromium or
    /// its driver missing fails the test (on a machine without them the tests are ignored,
    /// see build.rs).
    pub(crate) fn open(base: &str, work: &Path, phone: bool) -> Browser {
        let (chromium, driver) =
            browser().unwrap_or_else(|why| panic!("the browser test cannot run: {why}"));
        let shots =
            std::env::var_os("YAHTZEE_SCREENSHOTS").map_or(work.to_path_buf(), PathBuf::from);
        std::fs::create_dir_all(&shots).unwrap();
        let b = Browser::start(&chromium, &driver, temp_dir(), shots);
        b.go(&format!("{base}/"));
        if phone {
            b.viewport(390, 844, true);
        }
        b.wait_ready("the page");
        b
    }

    fn start(
        chromium: &Path,
        driver: &Path,
        profile: tempfile::TempDir,
        shots: PathBuf,
    ) -> Browser {
        let driver = Driver::start(driver);
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium.display().to_string(),
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--hide-scrollbars",
                    format!("--user-data-dir={}", profile.path().display()),
                    "--window-size=1280,1000",
                ],
            },
        }}});
        let v = driver
            .raw("POST", "/session", Some(&caps))
            .expect("a session");
        let session = v["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {v}"))
            .to_string();
        Browser {
            driver,
            session,
            shots,
            _profile: profile,
        }
    }

    /// `value` typed into the box `name` of the card (a tap on the box, the value and Enter),
    /// once the card shows it.
    fn enter_box(&self, name: &str, value: &str) {
        let css = format!("#card button.box[data-box=\"{name}\"]");
        self.click(&css);
        self.keys("#card .box-edit input", &format!("{value}{ENTER}"));
        self.wait(&format!("{name} = {value}"), || {
            (self.text(&css) == value).then_some(())
        });
    }

    /// A command of this session; a WebDriver error panics with a screenshot saved.
    fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let v = self
            .driver
            .raw(
                method,
                &format!("/session/{}{path}", self.session),
                body.as_ref(),
            )
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        if v["value"].get("error").is_some() {
            self.fail(&format!("{method} {path}: {}", v["value"]));
        }
        v["value"].clone()
    }

    /// A command on the element of `css`, found again if the page replaced it between the
    /// find and the command (a "stale element reference": the page re-renders as answers
    /// arrive, which on a busy machine can fall between the two).
    /// browser_test_failed_on_a_stale_element_under_load.
    fn on_element(&self, css: &str, method: &str, action: &str, body: Option<Value>) -> Value {
        for _ in 0..50 {
            let e = self.find(css);
            let path = format!("/session/{}/element/{e}/{action}", self.session);
            let v = self
                .driver
                .raw(method, &path, body.as_ref())
                .unwrap_or_else(|err| panic!("{method} {path}: {err}"));
            match v["value"].get("error").and_then(Value::as_str) {
                None => return v["value"].clone(),
                Some("stale element reference") => {
                    std::thread::sleep(std::time::Duration::from_millis(50))
                }
                Some(_) => self.fail(&format!("{method} {path}: {}", v["value"])),
            }
        }
        self.fail(&format!("{css}: the element went stale 50 times"))
    }

    fn fail(&self, why: &str) -> ! {
        let shot = self.shots.join("browser-failure.png");
        if let Some(png) = self.try_screenshot() {
            let _ = std::fs::write(&shot, png);
        }
        panic!("{why} (screenshot: {})", shot.display());
    }

    fn try_screenshot(&self) -> Option<Vec<u8>> {
        let v = self
            .driver
            .raw(
                "GET",
                &format!("/session/{}/screenshot", self.session),
                None,
            )
            .ok()?;
        base64(v["value"].as_str()?)
    }

    pub(crate) fn screenshot(&self, name: &str) -> PathBuf {
        let png = self.try_screenshot().expect("a screenshot");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
        let path = self.shots.join(name);
        std::fs::write(&path, png).unwrap();
        path
    }

    pub(crate) fn go(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({"url": url})));
    }

    pub(crate) fn find_all(&self, css: &str) -> Vec<String> {
        let v = self.cmd(
            "POST",
            "/elements",
            Some(json!({"using": "css selector", "value": css})),
        );
        v.as_array()
            .unwrap()
            .iter()
            .map(|e| e[ELEMENT].as_str().unwrap().to_string())
            .collect()
    }

    /// The one element of `css`, waiting for it.
    pub(crate) fn find(&self, css: &str) -> String {
        self.wait(&format!("an element {css}"), || {
            self.find_all(css).into_iter().next()
        })
    }

    pub(crate) fn click(&self, css: &str) {
        self.on_element(css, "POST", "click", Some(json!({})));
    }

    pub(crate) fn keys(&self, css: &str, text: &str) {
        self.on_element(css, "POST", "value", Some(json!({"text": text})));
    }

    pub(crate) fn clear(&self, css: &str) {
        self.on_element(css, "POST", "clear", Some(json!({})));
    }

    pub(crate) fn text(&self, css: &str) -> String {
        self.on_element(css, "GET", "text", None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    fn attr_of(&self, element: &str, name: &str) -> Option<String> {
        self.cmd("GET", &format!("/element/{element}/attribute/{name}"), None)
            .as_str()
            .map(str::to_string)
    }

    pub(crate) fn js(&self, script: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    fn resize(&self, width: u32, height: u32) {
        self.cmd(
            "POST",
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        );
    }

    /// Polls `probe` until it gives a value (30 s at most).
    pub(crate) fn wait<T>(&self, what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(v) = probe() {
                return v;
            }
            if Instant::now() > deadline {
                let message = self.js("return document.querySelector('#message').textContent");
                self.fail(&format!(
                    "timed out waiting for {what} (page message: {message})"
                ));
            }
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    /// Waits until the chart of the final score answers `query` (its `data-query`), and reads
    /// what it shows: the caption, the line of figures, the policy, the chance, the mean and
    /// the number of bars. `progress` is set when the page showed the progress of the
    /// computation meanwhile.
    fn outlook_for(&self, query: &Value, progress: &mut bool) -> Value {
        let want = query.to_string();
        self.wait(&format!("the chart of {want}"), || {
            let v = self.js(
                "const o = document.querySelector('#outlook'); const p = document.querySelector('#outlook-progress'); \
                 return [o.dataset.query || null, !p.hidden && / of \\d+ cards/.test(p.textContent)]",
            );
            *progress |= v[1] == true;
            let got: Value = serde_json::from_str(v[0].as_str()?).ok()?;
            (got == *query).then_some(())
        });
        self.js("const o = document.querySelector('#outlook'); return {\
             caption: document.querySelector('#outlook-caption').textContent, \
             text: document.querySelector('#outlook-text').textContent, \
             policy: o.dataset.policy, p: o.dataset.p === undefined ? null : Number(o.dataset.p), \
             mean: Number(o.dataset.mean), bars: o.querySelectorAll('rect.bar').length, \
             label: o.querySelector('svg').getAttribute('aria-label'), \
             estimated: Number(o.dataset.estimated || 0)}")
    }

    /// Waits until the options answer `query` (the list's `data-query`), and reads them.
    fn options_for(&self, query: &Value) -> Vec<Value> {
        let want = query.to_string();
        self.wait(&format!("the options of {want}"), || {
            (self.options_query()? == *query).then_some(())
        });
        self.find_all("#options button.option")
            .iter()
            .map(|e| {
                json!({
                    "kind": self.attr_of(e, "data-kind"),
                    "keep": self.attr_of(e, "data-keep"),
                    "category": self.attr_of(e, "data-category"),
                    "label": self.attr_of(e, "data-label"),
                    "value": self.attr_of(e, "data-value").unwrap().parse::<f64>().unwrap(),
                    "expected": self.attr_of(e, "data-expected").unwrap().parse::<f64>().unwrap(),
                })
            })
            .collect()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self
            .driver
            .raw("DELETE", &format!("/session/{}", self.session), None);
    }
}

/// Standard base64 to bytes (the screenshots of WebDriver).
fn base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' | b'\n' | b'\r' => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// The width of a PNG, from its header.
fn png_width(png: &[u8]) -> u32 {
    u32::from_be_bytes([png[16], png[17], png[18], png[19]])
}

/// `advise ARGS --json` of the test tables.
fn cli_advice(set: &'static RuleSet, args: &[&str]) -> Value {
    let mut all = vec!["advise", "--rules", set.name(), "--json"];
    all.extend(args);
    let o = run(set, Order::Any, &all);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

/// The CLI's options in the page's terms.
fn expected_options(advice: &Value, value: &str) -> Vec<Value> {
    advice["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let keep = o["keep"].as_array().map(|k| {
                k.iter()
                    .map(|f| f.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            });
            json!({
                "kind": o["kind"],
                "keep": keep,
                "category": o["category"],
                "value": o[value],
                "expected": o["expected_final"],
            })
        })
        .collect()
}

/// A chance as the page shows it (issue 47: `86.5%`, not 0.8647), as its `percent` writes it.
fn percent(p: f64) -> String {
    match p {
        0.0 => "0%".to_string(),
        1.0 => "100%".to_string(),
        p if p < 0.00001 => "< 0.001%".to_string(),
        p if p > 0.999 => "> 99.9%".to_string(),
        p if p < 0.001 => format!("{}%", significant(100.0 * p, 2)),
        p => format!("{:.1}%", 100.0 * p),
    }
}

/// `x` to `digits` significant digits, as JavaScript's `toPrecision` writes a number under 1.
fn significant(x: f64, digits: i32) -> String {
    let places = (digits - 1 - x.log10().floor() as i32).max(0) as usize;
    format!("{x:.places$}")
}

/// A loss of chance as the review shows it: in percent, two decimals.
fn chance_loss(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

/// Compares the chart shown with the server's answer for its position: the caption, the
/// chance beside the mean (`chance`: its words), the mean, one bar per score of a chance
/// above 1e-7.
fn assert_chart_is(shown: &Value, answer: &Value, chance: &str) {
    assert_eq!(shown["caption"], answer["caption"], "{shown}");
    assert_eq!(shown["policy"], answer["policy"], "{shown}");
    let key = match answer["policy"].as_str() {
        Some("target") => "p_at_least_target",
        _ => "p_win",
    };
    // Within 1e-15: the page writes the server's shortest round-trip digits, which
    // serde_json's default float reader may read one unit in the last place away.
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-15 * a.abs().max(1e-300);
    let p = answer[key].as_f64().unwrap();
    assert!(close(shown["p"].as_f64().unwrap(), p), "{shown}: {p}");
    let mean = answer["mean"].as_f64().unwrap();
    assert!(
        close(shown["mean"].as_f64().unwrap(), mean),
        "{shown}: {mean}"
    );
    let text = shown["text"].as_str().unwrap();
    let want = format!(
        "{chance}: {}; mean {mean:.2}; from {} to {}; ",
        percent(p),
        answer["min"],
        answer["max"]
    );
    assert!(text.starts_with(&want), "{text} does not start with {want}");
    let p = answer["percentiles"].as_array().unwrap();
    assert!(
        text.ends_with(&format!("90%: {}.", p[4])),
        "{text}: percentiles {p:?}"
    );
    let bars = answer["pmf"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e[1].as_f64().unwrap() > 1e-7)
        .count();
    assert_eq!(shown["bars"].as_u64(), Some(bars as u64));
    assert!(
        shown["label"]
            .as_str()
            .unwrap()
            .starts_with(answer["caption"].as_str().unwrap())
    );
}

/// The page of a server of the shared tables (those of Yahtzee and Yacht solved first) in a
/// browser, at a phone's size when `phone`, with a work folder for its screenshots and files.
fn open_page(phone: bool) -> (Served, tempfile::TempDir, Browser) {
    table(RuleSet::YAHTZEE, Order::Any);
    table(RuleSet::YACHT, Order::Any);
    let server = Served::start(&[]);
    let work = temp_dir();
    let b = Browser::open(&server.base, work.path(), phone);
    (server, work, b)
}

/// Compares the options shown with the CLI's: same order, same options, same numbers.
fn assert_same_options(shown: &[Value], cli: &[Value]) {
    assert_eq!(shown.len(), cli.len(), "{shown:?}\n{cli:?}");
    for (s, c) in shown.iter().zip(cli) {
        for key in ["kind", "keep", "category"] {
            assert_eq!(s[key], c[key], "{key}: shown {s} but the CLI says {c}");
        }
        // The page shows the server's shortest round-trip digits; serde_json's default float
        // reader may land one unit in the last place away from them, so within 1e-15.
        for key in ["value", "expected"] {
            let (a, b) = (s[key].as_f64().unwrap(), c[key].as_f64().unwrap());
            assert!(
                (a - b).abs() <= 1e-15 * a.abs().max(1e-300),
                "{key}: shown {s} but the CLI says {c}"
            );
        }
    }
}

#[test]
#[cfg_attr(
    any(not(feature = "serve"), missing_browser),
    ignore = "needs the feature serve (cargo test --release --all-features), Chromium, chromedriver and npm (see build.rs)"
)]
fn the_page_plays_as_a_player_would_against_the_command_line() {
    let (server, work, b) = open_page(false);
    // Issue 47: a new game asks for the dice (no demo roll).
    assert_eq!(b.find_all("#dice button.unknown").len(), 5);
    assert_eq!(b.find_all("#options button.option").len(), 0);
    b.keys("#dice-text", &format!("13356{ENTER}"));
    let first = json!({"card": {}, "yahtzee_bonus": 0, "dice": [1, 3, 3, 5, 6], "rolls_left": 2});
    let shown = b.options_for(&first);
    // The dice the best option keeps, marked on the dice: the two 3s.
    assert_eq!(
        b.js("return [...document.querySelectorAll('#dice button.die')].map((d) => d.dataset.keep === 'true')"),
        json!([false, true, true, false, false])
    );
    assert_same_options(
        &shown,
        &expected_options(
            &cli_advice(RuleSet::YAHTZEE, &["--dice", "13356"]),
            "expected_final",
        ),
    );
    assert_eq!(shown[0]["label"], "keep 3 3");

    // A position entered by clicking: two boxes, then a refused entry with the CLI's message.
    b.enter_box("ones", "3");
    b.enter_box("chance", "22");
    b.click("#card button.box[data-box=\"twos\"]");
    b.keys("#card .box-edit input", &format!("3{ENTER}"));
    // The refusal beside the box, in view, not in a banner.
    let message = b.wait("the refusal", || {
        b.find_all("#box-input-error")
            .first()
            .map(|_| b.text("#box-input-error"))
            .filter(|m| !m.is_empty())
    });
    assert!(b.on_screen("#box-input-error"));
    assert_eq!(b.text("#message"), "");
    let o = run(
        RuleSet::YAHTZEE,
        Order::Any,
        &[
            "advise",
            "--card",
            "ones=3,chance=22,twos=3",
            "--dice",
            "13356",
        ],
    );
    assert_eq!(format!("error: {message}"), stderr(&o).trim());
    b.keys("#card .box-edit input", ESCAPE);
    b.wait("twos open", || {
        (b.text("#card button.box[data-box=\"twos\"]") == "–").then_some(())
    });
    assert_eq!(b.text("#total"), "25");

    // Dice by a tap and a face picked (1 -> 2, 3 -> 4) and by the keyboard (5 -> 4), one
    // roll left.
    b.click("#dice button[data-i=\"0\"]");
    b.click("#face-picker button[data-face=\"2\"]");
    b.click("#dice button[data-i=\"2\"]");
    b.click("#face-picker button[data-face=\"4\"]");
    b.keys("#dice button[data-i=\"3\"]", "4");
    b.click("input[name=\"rolls-left\"][value=\"1\"]");
    // The options shown for `query` (the card entered above) are those of `advise --json`
    // for that card, the dice `dice` and `rolls` rolls left: the command line's advice.
    let options_as_cli = |query: &Value, dice: &str, rolls: &str| {
        let card = "ones=3,chance=22";
        let args = ["--card", card, "--dice", dice, "--rolls-left", rolls];
        let cli = cli_advice(RuleSet::YAHTZEE, &args);
        assert_same_options(
            &b.options_for(query),
            &expected_options(&cli, "expected_final"),
        );
        cli
    };
    let q = json!({"card": {"ones": 3, "chance": 22}, "yahtzee_bonus": 0, "dice": [2, 3, 4, 4, 6], "rolls_left": 1});
    let cli = options_as_cli(&q, "23446", "1");

    // Apply the best keep, enter the re-rolled dice, score the best box (by the keyboard).
    let kept: Vec<u8> = cli["options"][0]["keep"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_u64().unwrap() as u8)
        .collect();
    b.click("#options button.option[data-rank=\"1\"]");
    b.wait("the open dice", || {
        (b.find_all("#dice button.unknown").len() == 5 - kept.len()).then_some(())
    });
    let mut dice = kept.clone();
    dice.resize(5, 6);
    let typed: String = dice.iter().map(u8::to_string).collect();
    b.keys("#dice-text", &format!("{typed}{ENTER}"));
    dice.sort_unstable();
    let q = json!({"card": {"ones": 3, "chance": 22}, "yahtzee_bonus": 0, "dice": kept.iter().copied().chain(std::iter::repeat_n(6, 5 - kept.len())).collect::<Vec<u8>>(), "rolls_left": 0});
    let cli = options_as_cli(&q, &typed, "0");
    let best = &cli["options"][0];
    let category = best["category"].as_str().unwrap();
    let best_option = b.find("#options button.option[data-rank=\"1\"]");
    b.cmd(
        "POST",
        &format!("/element/{best_option}/value"),
        Some(json!({"text": ENTER})),
    );
    let points = best["points"].to_string();
    let cell = format!("#card button.box[data-box=\"{category}\"]");
    b.wait("the box scored", || (b.text(&cell) == points).then_some(()));
    let after = cli_advice(
        RuleSet::YAHTZEE,
        &[
            "--card",
            &format!("ones=3,chance=22,{category}={points}"),
            "--dice",
            "12345",
        ],
    );
    assert_eq!(b.text("#total"), after["banked"].to_string());
    assert_eq!(
        b.find_all("#dice button.unknown").len(),
        5,
        "a new turn starts"
    );
    // Undo: the box is open again, the dice are back.
    b.click("#undo");
    b.wait("undone", || (b.text(&cell) == "–").then_some(()));
    b.options_for(&q);

    // The objectives, under Yacht (its target table builds in a second): the change of
    // rules wipes the card, so it asks first.
    b.pick_rules("yacht");
    let asked = b.answer_alert(true);
    assert!(
        asked.starts_with("Change the rules to Yacht? The score card (25 points) is cleared"),
        "{asked}"
    );
    b.wait_for_box("choice");
    // The start of a game, before its first roll, playing for 120: the chart, with the
    // progress of its computation shown meanwhile, is the server's answer, which is the
    // distribution of `stats --target 120`.
    b.click("#clear-dice");
    b.wait("no dice", || {
        (b.find_all("#dice button.unknown").len() == 5).then_some(())
    });
    b.clear("#target");
    b.keys("#target", &format!("120{TAB}"));
    b.click("input[name=\"objective\"][value=\"target\"]");
    let opening = json!({"card": {}, "yahtzee_bonus": 0, "target": 120});
    let mut progress = false;
    let shown = b.outlook_for(&opening, &mut progress);
    assert!(progress, "the page showed the progress of the computation");
    // Meanwhile, estimates from simulated games of the target policy (issue 25).
    assert!(
        shown["estimated"].as_u64() > Some(0),
        "no estimate shown before the exact chart: {shown}"
    );
    let answer = server.post_ok("/api/outlook?rules=yacht", &opening);
    assert_chart_is(&shown, &answer, "P(final ≥ 120)");
    let csv = work.path().join("opening.csv");
    let stats = stats_json(
        RuleSet::YACHT,
        &["--target", "120", "--pmf", &csv.display().to_string()],
    );
    assert_pmf_is_csv(&answer["pmf"], &csv);
    let p = shown["p"].as_f64().unwrap();
    let cli_p = stats["p_reach"].as_f64().unwrap();
    assert!((p - cli_p).abs() < 1e-9, "{p} vs the CLI's {cli_p}");
    b.screenshot("serve-target.png");
    b.click("input[name=\"objective\"][value=\"ev\"]");
    b.enter_box("ones", "2");
    b.enter_box("twos", "8");
    b.clear("#dice-text");
    b.keys("#dice-text", &format!("22626{ENTER}"));
    b.click("input[name=\"rolls-left\"][value=\"2\"]");
    let yacht = json!({"card": {"ones": 2, "twos": 8}, "yahtzee_bonus": 0, "dice": [2, 2, 6, 2, 6], "rolls_left": 2});
    let shown = b.options_for(&yacht);
    let card = ["--card", "ones=2,twos=8", "--dice", "22626"];
    let ev = cli_advice(RuleSet::YACHT, &card);
    assert_same_options(&shown, &expected_options(&ev, "expected_final"));
    // The distribution of the final score, asked for (its table is built once).
    b.click("#outlook-show");
    let mean = b.wait("the chart", || {
        let v = b.js("const o = document.querySelector('#outlook'); return o.querySelectorAll('rect.bar').length > 10 ? o.dataset.mean : null");
        v.as_str().map(|m| m.parse::<f64>().unwrap())
    });
    let best = ev["options"][0]["expected_final"].as_f64().unwrap();
    assert!((mean - best).abs() < 1e-3, "{mean} vs {best}");
    assert!(b.text("#outlook-text").starts_with("Mean "));
    b.resize(1280, 1500);
    b.js("window.scrollTo(0, 0)");
    b.screenshot("serve-desktop.png");
    b.resize(1280, 1000);
    b.clear("#target");
    b.keys("#target", &format!("150{TAB}"));
    b.click("input[name=\"objective\"][value=\"target\"]");
    // The options shown for an objective (`query`), as the command line's with `flags` (its
    // figure `value`), the summary starting with `summary`; then the chart that follows, and
    // the server's answer for it (the distribution of the final score from this position
    // under the objective's policy).
    let mut shown_for = |query: &Value, flags: &[&str], value: &str, summary: &str| {
        let shown = b.options_for(query);
        let cli = cli_advice(RuleSet::YACHT, &[&card[..], flags].concat());
        assert_same_options(&shown, &expected_options(&cli, value));
        let text = b.text("#summary");
        assert!(text.starts_with(summary), "{text}");
        let chart = b.outlook_for(query, &mut progress);
        (chart, server.post_ok("/api/outlook?rules=yacht", query))
    };
    let mut target = yacht.clone();
    target["target"] = json!(150);
    let summary = "Best chance of a final score of at least 150: ";
    let (chart, answer) = shown_for(&target, &["--target", "150"], "p_reach", summary);
    assert_eq!(answer["policy"], "target");
    assert_chart_is(&chart, &answer, "P(final ≥ 150)");
    // To win: against the other players of the Pad's game. None yet: the objective says to
    // add them on the Pad, with a button that goes there.
    b.click("input[name=\"objective\"][value=\"win\"]");
    let none = "Playing to win takes the other players' cards from the Pad: add the players there.";
    b.wait("the line of the Pad", || {
        (b.text("#opponents-text") == none && b.text("#summary") == none).then_some(())
    });
    assert!(b.find_all("#opponent-list").is_empty(), "no opponent form");
    // A game of Yacht on the Pad (me advised, opp entered as points), its cards ones=2,twos=8
    // and ones=3,twos=4, opened on the Pad from its list; back on the advice, the win advice
    // is `advise --opponent ones=3,twos=4`'s.
    let pad = server.post_ok("/api/pad?rules=yacht", &json!({"players": ["me", "opp"]}));
    let pad_path = format!("/api/pad/{}", pad["id"].as_str().unwrap());
    for body in [
        json!({"dice": [1, 1, 3, 4, 5]}),
        json!({"score": "ones"}),
        json!({"box": "ones", "points": 3}),
        json!({"dice": [2, 2, 2, 2, 5]}),
        json!({"score": "twos"}),
        json!({"box": "twos", "points": 4}),
    ] {
        server.post_ok(&pad_path, &body);
    }
    b.click("#opponents-pad");
    let resume = format!(
        "#pad-games li[data-id=\"{}\"] button[data-action=\"resume\"]",
        pad["id"].as_str().unwrap()
    );
    b.find(&resume);
    b.click(&resume);
    b.wait("the Pad's game", || {
        (b.js("return localStorage.getItem('yahtzee.pad.v1')") == pad["id"]).then_some(())
    });
    b.click("#tab-advise");
    let mut win = yacht.clone();
    win["opponents"] = json!([{"card": {"ones": 3, "twos": 4}, "yahtzee_bonus": 0}]);
    let opponent = ["--opponent", "ones=3,twos=4"];
    let (chart, answer) = shown_for(&win, &opponent, "p_win", "Best chance of winning: ");
    assert_eq!(answer["policy"], "win");
    assert_chart_is(&chart, &answer, "P(win)");
    assert_eq!(
        b.text("#opponents-text"),
        "Against the other players of the Pad's game: opp 7 (their cards as the Pad has them)."
    );
    b.click("input[name=\"objective\"][value=\"ev\"]");
    b.options_for(&yacht);

    // At phone width: one column, the turn first, the card behind its button, nothing wider
    // than the screen.
    b.resize(390, 900);
    b.wait("one column", || {
        let v = b.js("const t = document.querySelector('#view-advise .turn').getBoundingClientRect(); return [t.left < 20, document.querySelector('#card-panel').offsetParent === null, document.documentElement.scrollWidth <= window.innerWidth]");
        (v == json!([true, true, true])).then_some(())
    });
    let phone = b.screenshot("serve-phone.png");
    let png = std::fs::read(&phone).unwrap();
    assert!(png_width(&png) < 600, "{}", png_width(&png));
    b.resize(1280, 1000);

    // A whole game against the bot, with the coach and the hints.
    b.new_game("you,bot", "11");
    b.click("#show-hints");
    for step in 0.. {
        assert!(step < 400, "the game does not end");
        let state = b.board_state().expect("the board's state");
        if state != "playing" {
            assert_eq!(state, "over");
            break;
        }
        let before = b.board_lines();
        if step % 5 == 1 && !b.find_all("#game-roll").is_empty() {
            // Keep the first two dice by selecting them, then roll.
            b.click("#game-dice button[data-i=\"0\"]");
            b.click("#game-dice button[data-i=\"1\"]");
            b.wait("two dice kept", || {
                (b.find_all("#game-dice button.kept").len() == 2).then_some(())
            });
            b.click("#game-roll");
        } else if step % 5 == 3 && !b.find_all("#game-cards button.playable").is_empty() {
            b.click("#game-cards button.playable");
        } else {
            // The best option of the hints for this very position.
            let css = format!("#game-options[data-for=\"{before}\"] button.option");
            b.wait("the hints", || b.find_all(&css).first().cloned());
            b.click(&css);
        }
        b.wait("the next position", || {
            (b.board_lines() != before).then_some(())
        });
    }
    let result = b.text("#game-state");
    assert!(result.contains(" with "), "{result}");
    let log = b.text("#game-log");
    assert!(
        log.contains("bot keeps") || log.contains("bot stops"),
        "{log}"
    );
    assert!(
        log.contains("coach: "),
        "the coach spoke of the plain keeps: {log}"
    );

    // Download the record (the link's address), review it with the CLI and upload it.
    let record = b.download_record(&server);
    let path = work.path().join("game.jsonl");
    std::fs::write(&path, &record).unwrap();
    let review = review_json(RuleSet::YACHT, Order::Any, &path, &[]);
    let end: Value = serde_json::from_str(record.lines().last().unwrap()).unwrap();
    for score in end["scores"].as_array().unwrap() {
        let cell = format!(
            "#game-cards td[data-player=\"{}\"]",
            score["player"].as_str().unwrap()
        );
        assert_eq!(b.text(&cell), score["total"].to_string());
    }
    b.click("#tab-review");
    b.keys("#record-file", &path.display().to_string());
    b.click("#review-form button[type=\"submit\"]");
    b.wait("the review", || {
        b.find_all("#review-players tr[data-player=\"you\"] td.mean-loss")
            .first()
            .cloned()
    });
    let you = &review["players"][0];
    assert_eq!(you["player"], "you");
    assert_eq!(
        b.text("#review-players tr[data-player=\"you\"] td.mean-loss"),
        format!("{:.4}", you["mean_loss"].as_f64().unwrap())
    );
    assert_eq!(
        b.text("#review-players tr[data-player=\"bot\"] td.mean-loss"),
        "0.0000"
    );
    let decisions = review["decisions"].as_array().unwrap().len();
    assert_eq!(b.find_all("#review-chart rect.bar").len(), decisions);
    assert_eq!(b.find_all("#review-decisions tbody tr").len(), decisions);
    b.screenshot("serve-review.png");
    // The same record priced in chance of a final score of 150: as `review --target 150`.
    b.clear("#review-target");
    b.keys("#review-target", "150");
    b.click("input[name=\"review-objective\"][value=\"target\"]");
    b.wait("the review for 150", || {
        b.find_all("#review-result[data-objective=\"target\"]")
            .first()
            .cloned()
    });
    let priced = review_json(RuleSet::YACHT, Order::Any, &path, &["--target", "150"]);
    for p in priced["players"].as_array().unwrap() {
        let row = format!(
            "#review-players tr[data-player=\"{}\"]",
            p["player"].as_str().unwrap()
        );
        assert_eq!(
            b.text(&format!("{row} td.mean-loss")),
            chance_loss(p["mean_loss"].as_f64().unwrap())
        );
        assert_eq!(
            b.text(&format!("{row} td[data-size=\"under_0_001\"]")),
            p["by_size"]["under_0_001"].to_string()
        );
    }
    assert!(
        b.text("#review-unit")
            .starts_with("Decisions priced in chance of a final score of 150 or more"),
        "{}",
        b.text("#review-unit")
    );
    assert!(
        b.text("#review-players thead")
            .contains("mean loss per decision (chance of 150)")
    );
    let losses: Vec<String> = priced["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| chance_loss(d["loss"].as_f64().unwrap()))
        .collect();
    let shown: Vec<String> = b
        .find_all("#review-decisions td.loss")
        .iter()
        .map(|e| {
            b.cmd("GET", &format!("/element/{e}/text"), None)
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(shown, losses);
    b.screenshot("serve-review-target.png");
    // The same record priced in chance of winning (a solve per decision, seconds), cancelled
    // while it runs: the page says it is busy, Cancel stops it, the result shown is the last
    // one asked for to the end or the decisions priced before Cancel, said to be cancelled,
    // and the server has nothing left running.
    b.click("input[name=\"review-objective\"][value=\"win\"]");
    b.wait("the busy state with Cancel", || {
        (b.js("return !document.querySelector('#status').hidden && !document.querySelector('#cancel').hidden")
            == true)
            .then_some(())
    });
    let busy = b.text("#status-text");
    assert!(
        busy.starts_with("Reviewing the game") || busy.starts_with("Priced "),
        "{busy}"
    );
    b.click("#cancel");
    b.wait("the busy state gone", || {
        (b.js("return document.querySelector('#status').hidden") == true).then_some(())
    });
    wait_for_status(&server, 5, "the review", |v| {
        v["long_work"]["admitted"] == 0
    });
    let shown = b.attr_of(&b.find("#review-result"), "data-objective");
    let title = b.text("#review-title");
    assert!(
        shown.as_deref() == Some("target")
            || (shown.is_none() && title.starts_with("Review cancelled: ")),
        "the cancelled review is not shown as a review: {shown:?}, {title}"
    );
    // A file that is no record: the reason, with the file's name.
    let bad = work.path().join("notes.txt");
    std::fs::write(&bad, "hello\n").unwrap();
    b.keys("#record-file", &bad.display().to_string());
    b.click("#review-form button[type=\"submit\"]");
    let m = b.wait("the refusal", || {
        Some(b.text("#record-file-error")).filter(|m| m.starts_with("notes.txt: "))
    });
    assert!(m.contains("line 1: not a game header"), "{m}");
}

/// A person against a bot that plays to win, seated on the page as `bot:win`: the game the
/// page records is the terminal's game with the same seed and the same choices (the person
/// filling the first open box each turn), so the page's win bot plays as `yahtzee play`'s.
#[test]
#[cfg_attr(
    any(not(feature = "serve"), missing_browser),
    ignore = "needs the feature serve (cargo test --release --all-features), Chromium, chromedriver and npm (see build.rs)"
)]
fn the_page_seats_a_win_bot_that_plays_as_the_terminal_s() {
    crate::util::target_table(RuleSet::YACHT, Order::Any);
    crate::util::distribution_table(RuleSet::YACHT, Order::Any);
    let (server, work, b) = open_page(false);
    b.pick_rules("yacht");
    b.wait_for_box("choice");
    b.new_game("you,bot:win", "8");
    for step in 0.. {
        assert!(step < 40, "the game does not end");
        if b.board_state().as_deref() != Some("playing") {
            break;
        }
        let before = b.board_lines();
        // The first open box, whatever the dice: a stop and that box.
        b.wait("a box to fill", || {
            b.find_all("#game-cards button.playable").first().cloned()
        });
        b.click("#game-cards button.playable");
        b.wait("the next position", || {
            (b.board_lines() != before).then_some(())
        });
    }
    assert!(b.text("#game-state").contains(" with "));
    assert!(b.text("#game-cards").contains("bot (bot)"));
    let page = b.download_record(&server);
    // The same game in the terminal: the same seed, `you` filling the boxes in card order.
    let record = work.path().join("terminal.jsonl");
    let boxes = yahtzee_core::game::rules::Rules::new(RuleSet::YACHT)
        .boxes()
        .iter()
        .map(|x| format!("s {}\n", x.name()))
        .collect::<String>();
    let o = crate::util::run_with_input(
        crate::util::table_dir(),
        &[
            "play",
            "--rules",
            "yacht",
            "--players",
            "you,bot:win",
            "--seed",
            "8",
            "--coach-threshold",
            "0.2",
            "--record",
            &record.display().to_string(),
        ],
        &boxes,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let terminal = std::fs::read_to_string(&record).unwrap();
    let events = events_but_start(&page);
    assert_eq!(events, events_but_start(&terminal));
    assert_eq!(events[0]["seats"][1]["policy"], "win");
}

/// The value of the field `css` (an input) as the page shows it.
fn field_value(b: &Browser, css: &str) -> String {
    b.js(&format!("return document.querySelector('{css}').value"))
        .as_str()
        .unwrap()
        .to_string()
}

/// `advise ARGS --json` of Yatzy with saved rolls (its table built first).
fn saved_cli_advice(args: &[&str]) -> Value {
    let mut all = vec!["advise"];
    all.extend(args);
    all.push("--json");
    let o = crate::util::run_saved_yatzy(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
#[cfg_attr(
    any(not(feature = "serve"), missing_browser),
    ignore = "needs the feature serve (cargo test --release --all-features), Chromium, chromedriver and npm (see build.rs)"
)]
fn the_page_advises_with_saved_rolls_as_advise_saved_does() {
    let axe = Axe::new();
    let (file, rules, _) = crate::util::saved_yatzy();
    table(RuleSet::YATZY, Order::Any);
    let server = Served::start(&["--rules", file]);
    let work = temp_dir();
    let b = Browser::open(&server.base, work.path(), false);
    let shown_saved = |b: &Browser| b.find_all("#saved-rolls:not([hidden])").len() == 1;
    b.wait("the controls of saved rolls", || {
        shown_saved(&b).then_some(())
    });
    assert_eq!(
        b.find_all("#rolls-left[hidden]").len(),
        1,
        "no radios of rolls left"
    );
    assert_eq!(
        b.find_all("#objective[hidden]").len(),
        1,
        "the highest average alone"
    );
    assert_eq!(
        b.find_all("#outlook-section[hidden]").len(),
        1,
        "no distribution"
    );

    // Two turns played: at most 4 rolls saved. By taps: + up to the most (a tap more does
    // nothing), the re-rolls left moving with them; by the keyboard: 3 typed.
    b.enter_box("ones", "3");
    b.enter_box("twos", "6");
    assert_eq!(b.js("return document.querySelector('#saved').max"), "4");
    let more = "#saved-rolls button.step[data-for=\"saved\"][data-step=\"1\"]";
    for _ in 0..5 {
        b.click(more);
    }
    assert_eq!(field_value(&b, "#saved"), "4");
    assert_eq!(field_value(&b, "#rerolls"), "6");
    assert_eq!(
        b.attr_of(&b.find(more), "aria-disabled").as_deref(),
        Some("true")
    );
    b.clear("#saved");
    b.keys("#saved", &format!("9{TAB}"));
    b.wait("the refusal of 9 rolls saved", || {
        b.text("#saved-error")
            .starts_with("the rolls saved are a whole number from 0 to 4")
            .then_some(())
    });
    b.clear("#saved");
    b.keys("#saved", &format!("3{TAB}"));
    b.wait("3 rolls saved", || {
        (field_value(&b, "#rerolls") == "5").then_some(())
    });
    assert_eq!(b.text("#saved-error"), "");
    // A tap on - of the re-rolls left, and the arrow keys: down twice, up once.
    b.click("#saved-rolls button.step[data-for=\"rerolls\"][data-step=\"-1\"]");
    assert_eq!(field_value(&b, "#rerolls"), "4");
    // No dice yet (a new game asks for them): the page's rolls left are in its words.
    b.keys("#rerolls", &format!("{ARROW_DOWN}{ARROW_DOWN}{ARROW_UP}"));
    b.wait("3 re-rolls left", || {
        b.text("#summary")
            .ends_with("(rolls left: 3).")
            .then_some(())
    });
    b.click("#saved-rolls button.step[data-for=\"rerolls\"][data-step=\"1\"]");
    assert_eq!(field_value(&b, "#rerolls"), "4");

    // The dice: the options are advise --saved 3 --rolls-left 4's, the best first.
    b.keys("#dice-text", &format!("13356{ENTER}"));
    let query = json!({"card": {"ones": 3, "twos": 6}, "yahtzee_bonus": 0,
        "dice": [1, 3, 3, 5, 6], "rolls_left": 4, "saved": 3});
    let shown = b.options_for(&query);
    let cli = saved_cli_advice(&[
        "--card",
        "ones=3,twos=6",
        "--saved",
        "3",
        "--rolls-left",
        "4",
        "--dice",
        "13356",
    ]);
    assert_same_options(&shown, &expected_options(&cli, "expected_final"));
    let best = &cli["options"][0];
    let faces = |k: &Value| {
        k.as_array()
            .unwrap()
            .iter()
            .map(|f| f.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(best["kind"], "keep", "{best}");
    let label = format!("keep {}", faces(&best["keep"]));
    assert_eq!(shown[0]["label"], label.as_str());
    assert_eq!(
        b.text("#summary"),
        format!(
            "Best: {label}, expected final score {:.2} (banked 9).",
            best["expected_final"].as_f64().unwrap()
        )
    );
    // A box scored now keeps the turn's re-rolls left: said as the command line says it.
    let score = cli["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "score")
        .unwrap();
    assert_eq!(score["saves"], 4, "{score}");
    let category = score["category"].as_str().unwrap();
    let title = rules.boxes()[rules.box_by_name(category).unwrap()].title;
    let at = shown.iter().find(|o| o["category"] == category).unwrap();
    assert_eq!(
        at["label"],
        format!("score {title} for {}, keep 4 rolls", score["points"]).as_str()
    );
    axe.check(&b, "the advice of a game of saved rolls");
    b.screenshot("serve-saved-rolls.png");

    // One tap to save: the box scored, the next turn has the 4 re-rolls left saved, and
    // spends them with its own 2.
    b.click(&format!(
        "#options button.option[data-category=\"{category}\"]"
    ));
    b.wait("the next turn", || {
        (field_value(&b, "#saved") == "4" && field_value(&b, "#rerolls") == "6").then_some(())
    });
    b.keys("#dice-text", &format!("22456{ENTER}"));
    let card = format!("ones=3,twos=6,{category}={}", score["points"]);
    let mut next_card = json!({"ones": 3, "twos": 6});
    next_card[category] = score["points"].clone();
    let query = json!({"card": next_card, "yahtzee_bonus": 0,
        "dice": [2, 2, 4, 5, 6], "rolls_left": 6, "saved": 4});
    let shown = b.options_for(&query);
    let cli = saved_cli_advice(&["--card", &card, "--saved", "4", "--dice", "22456"]);
    assert_eq!(cli["rolls_left"], 6);
    assert_same_options(&shown, &expected_options(&cli, "expected_final"));
    // A re-roll spends one.
    b.click("#options button.option[data-kind=\"keep\"]");
    b.wait("a re-roll spent", || {
        (field_value(&b, "#rerolls") == "5").then_some(())
    });
    assert_eq!(field_value(&b, "#saved"), "4");

    // Yatzy without saved rolls: no control of saved rolls, the radios of rolls left, and a
    // query without rolls saved.
    b.pick_rules("yatzy");
    b.answer_alert(true);
    b.wait("the rules of Yatzy", || {
        (b.js("return document.querySelector('#rules').value") == "yatzy"
            && b.find_all("#rolls-left:not([hidden])").len() == 1)
            .then_some(())
    });
    assert!(!shown_saved(&b), "no control of saved rolls");
    assert_eq!(b.find_all("#objective:not([hidden])").len(), 1);
    b.keys("#dice-text", &format!("13356{ENTER}"));
    let query = json!({"card": {}, "yahtzee_bonus": 0, "dice": [1, 3, 3, 5, 6], "rolls_left": 2});
    let shown = b.options_for(&query);
    assert_same_options(
        &shown,
        &expected_options(
            &cli_advice(RuleSet::YATZY, &["--dice", "13356"]),
            "expected_final",
        ),
    );
    assert!(
        shown
            .iter()
            .all(|o| !o["label"].as_str().unwrap().contains(", keep ")),
        "{shown:?}"
    );
    axe.check(&b, "the advice of Yatzy after a game of saved rolls");
}

/// The page's `estimate` of a rating's figure: the mean and its 95% interval to `places`
/// places (a dash when there is none).
fn estimate_text(e: &Value, places: usize) -> String {
    if e.is_null() {
        return "–".to_string();
    }
    let f = |k: &str| format!("{:.places$}", e[k].as_f64().unwrap());
    if e["low"].is_null() {
        f("mean")
    } else {
        format!("{} ({} to {})", f("mean"), f("low"), f("high"))
    }
}

/// axe-core's script (from npm), installed once under `target/axe`, or why it cannot be.
/// Once per process: two tests running `npm install` into the same folder at once would see
/// each other's half-written `node_modules`.
fn axe_script() -> Result<String, String> {
    static AXE: std::sync::OnceLock<Result<String, String>> = std::sync::OnceLock::new();
    AXE.get_or_init(install_axe).clone()
}

fn install_axe() -> Result<String, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/axe");
    let script = dir.join("node_modules/axe-core/axe.min.js");
    if !script.exists() {
        let o = Command::new("npm")
            .args([
                "install",
                "--no-save",
                "--no-audit",
                "--no-fund",
                "--prefix",
            ])
            .arg(&dir)
            .arg("axe-core@4")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| {
                format!("npm cannot run ({e}): install Node.js and npm, as .ci/run does")
            })?;
        if !o.status.success() {
            return Err(format!(
                "npm install axe-core failed: {}",
                String::from_utf8_lossy(&o.stderr)
            ));
        }
    }
    std::fs::read_to_string(&script).map_err(|e| format!("{}: {e}", script.display()))
}

/// axe-core's checks of the page, for a test of the page on a phone.
pub(crate) struct Axe {
    script: String,
}

impl Axe {
    /// axe-core's script, once Chromium and its driver are found: either missing fails the
    /// test (on a machine without them the tests are ignored, see build.rs).
    pub(crate) fn new() -> Axe {
        browser().unwrap_or_else(|why| panic!("the browser test cannot run: {why}"));
        let script =
            axe_script().unwrap_or_else(|why| panic!("axe-core cannot be installed: {why}"));
        Axe { script }
    }

    /// No violation of axe-core's checks on the page of `b` as it is now (`view`: its name
    /// in the message).
    pub(crate) fn check(&self, b: &Browser, view: &str) {
        b.axe(&self.script, view);
    }
}

impl Browser {
    /// Chromium's viewport set to `width` x `height` (a phone: touch, mobile layout).
    pub(crate) fn viewport(&self, width: u32, height: u32, mobile: bool) {
        self.cmd(
            "POST",
            "/goog/cdp/execute",
            Some(
                json!({"cmd": "Emulation.setDeviceMetricsOverride", "params": {
                "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}}),
            ),
        );
        self.cmd(
            "POST",
            "/goog/cdp/execute",
            Some(
                json!({"cmd": "Emulation.setTouchEmulationEnabled", "params": {"enabled": mobile}}),
            ),
        );
        let v = self.js("return [window.innerWidth, window.innerHeight]");
        assert_eq!(v, json!([width, height]), "the viewport");
    }

    /// axe-core's violations on the page as it is now (`view`: its name in the message).
    fn axe(&self, script: &str, view: &str) {
        self.js(&format!("{script}\n;return typeof window.axe;"));
        let v = self.cmd(
            "POST",
            "/execute/async",
            Some(json!({"script": "const done = arguments[arguments.length - 1]; \
                window.axe.run(document, {resultTypes: ['violations'], rules: {'label-content-name-mismatch': {enabled: true}}}).then((r) => done(r.violations.map((v) => \
                ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' '))})))) \
                .catch((e) => done('axe failed: ' + e));", "args": []})),
        );
        assert_eq!(v, json!([]), "axe-core's violations on {view}");
    }

    /// axe-core finds a violation planted on the page (a button without a name): its
    /// checks can fail.
    fn axe_finds_a_planted_violation(&self, script: &str) {
        self.js(&format!("{script}\n;return typeof window.axe;"));
        let v = self.cmd(
            "POST",
            "/execute/async",
            Some(json!({"script": "const done = arguments[arguments.length - 1]; \
                const b = document.createElement('button'); b.id = 'planted'; document.querySelector('main').append(b); \
                window.axe.run(document, {resultTypes: ['violations']}).then((r) => { b.remove(); done(r.violations.map((v) => v.id)); }) \
                .catch((e) => done('axe failed: ' + e));", "args": []})),
        );
        assert!(
            v.as_array()
                .is_some_and(|a| a.contains(&json!("button-name"))),
            "axe-core did not see the planted violation: {v}"
        );
    }

    /// Where the page is scrolled to.
    pub(crate) fn scroll_y(&self) -> f64 {
        self.js("return window.scrollY").as_f64().unwrap()
    }

    /// True when the whole element of `css` is on the screen without scrolling.
    pub(crate) fn on_screen(&self, css: &str) -> bool {
        self.find(css);
        self.js(&format!(
            "const r = document.querySelector('{}').getBoundingClientRect(); \
             return r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth",
            css.replace('\'', "\\'")
        )) == true
    }

    /// True when nothing of the page is wider than the window (no scrolling sideways).
    pub(crate) fn fits_width(&self) -> bool {
        self.js("return document.documentElement.scrollWidth <= window.innerWidth") == true
    }

    /// Waits until the page is ready (`what`: the wait's words), after a load or a reload.
    pub(crate) fn wait_ready(&self, what: &str) {
        self.wait(what, || {
            (self
                .js("return document.body.dataset.ready || null")
                .as_str()
                == Some("true"))
            .then_some(())
        });
    }

    /// The query the options answer (the list's `data-query`), once there is one.
    fn options_query(&self) -> Option<Value> {
        let v = self.js("return document.querySelector('#options').dataset.query || null");
        serde_json::from_str(v.as_str()?).ok()
    }

    /// Picks the rules `name` in the menu of rules (a change that would clear the card asks
    /// first: see [`Browser::answer_alert`]).
    fn pick_rules(&self, name: &str) {
        let option = self.find(&format!("#rules option[value=\"{name}\"]"));
        self.cmd("POST", &format!("/element/{option}/click"), None);
    }

    /// The text of the alert on the page, once answered: OK when `accept`, else Cancel.
    fn answer_alert(&self, accept: bool) -> String {
        let text = self.cmd("GET", "/alert/text", None);
        let answer = if accept { "accept" } else { "dismiss" };
        self.cmd("POST", &format!("/alert/{answer}"), Some(json!({})));
        text.as_str().expect("the alert's text").to_string()
    }

    /// Waits until the card shows the box `name` (the card of the rules just picked).
    fn wait_for_box(&self, name: &str) {
        let css = format!("#card button.box[data-box=\"{name}\"]");
        self.wait(&format!("the box {name} on the card"), || {
            self.find_all(&css).first().cloned()
        });
    }

    /// A new game on the play view for `players`, with dice from `seed`, once it is playing.
    fn new_game(&self, players: &str, seed: &str) {
        self.click("#tab-play");
        self.clear("#players");
        self.keys("#players", players);
        self.keys("#seed", seed);
        self.start_game();
    }

    /// Starts the game set on the play view, and waits until its board is playing.
    fn start_game(&self) {
        self.click("#new-game button[type=\"submit\"]");
        self.wait("the board", || {
            (self.board_state().as_deref() == Some("playing")).then_some(())
        });
    }

    /// The state of the game's board (`playing`, `over`), once there is one.
    fn board_state(&self) -> Option<String> {
        let v = self.js("return document.querySelector('#board').dataset.state || null");
        v.as_str().map(str::to_string)
    }

    /// The lines of the game's record so far, as the board counts them.
    fn board_lines(&self) -> u64 {
        self.js("return Number(document.querySelector('#board').dataset.lines)")
            .as_u64()
            .unwrap()
    }

    /// The record of the game on the board, fetched from `server` at its download link.
    fn download_record(&self, server: &Served) -> String {
        let href = self
            .attr_of(&self.find("#download-record"), "href")
            .unwrap();
        let (status, record) = server.get(href.strip_prefix(&server.base).unwrap_or(&href));
        assert_eq!(status, 200, "{record}");
        record
    }
}

/// Issue 47: the advice on a phone in dark mode (the switch, kept across a reload), held
/// sideways (844x390: the advice on the first screen) and with its text at 200% (the advice on
/// the first screen, the rules menu whole in the header's menu); nothing wider than the
/// screen, axe-core clean.
fn phone_views(b: &Browser, axe: &Axe) {
    let best = "#options button.option[data-rank=\"1\"]";
    b.click("#theme");
    b.wait("the dark theme", || {
        (b.js("return document.documentElement.dataset.theme || null") == "dark").then_some(())
    });
    b.go(b.js("return window.location.href").as_str().unwrap());
    b.wait_ready("the page, dark");
    assert_eq!(
        b.js("return [document.documentElement.dataset.theme, getComputedStyle(document.documentElement).backgroundColor]"),
        json!(["dark", "rgb(17, 20, 24)"]),
        "the switch is kept"
    );
    b.find(best);
    axe.check(b, "the advice on a phone, dark");
    b.screenshot("serve-phone-dark.png");
    b.click("#card-toggle");
    // Each open box shows what it would score with the dice entered (1 3 3 5 6).
    b.wait("the points of the dice on the card", || {
        (b.find_all("#card .would").len() == 13).then_some(())
    });
    for (name, points) in [
        ("ones", "+1"),
        ("threes", "+6"),
        ("twos", "+0"),
        ("chance", "+18"),
        ("full-house", "+0"),
    ] {
        assert_eq!(
            b.text(&format!(
                "#card .would[data-would=\"{name}\"] [aria-hidden]"
            )),
            points,
            "{name}"
        );
    }
    axe.check(b, "the card on a phone, dark");
    b.screenshot("serve-phone-dark-card.png");
    b.click("#card-close");
    b.click("#theme");
    b.viewport(844, 390, true);
    b.wait("the advice sideways", || b.on_screen(best).then_some(()));
    assert!(b.fits_width(), "sideways, nothing wider than the screen");
    assert!(
        b.on_screen("#dice"),
        "sideways, the dice on the first screen"
    );
    axe.check(b, "the advice on a phone held sideways");
    b.screenshot("serve-phone-landscape.png");
    b.viewport(390, 844, true);
    b.js("document.documentElement.style.fontSize = '200%'; return true");
    // The compact layout of large text: the header a line, the advice on the first screen.
    b.wait("the best option on the first screen at 200% text", || {
        b.on_screen(best).then_some(())
    });
    assert!(
        b.fits_width(),
        "at 200% text, nothing wider than the screen"
    );
    axe.check(b, "the advice at 200% text");
    b.screenshot("serve-phone-text-200.png");
    // The views, the rules and the theme in the header's menu: the rules menu whole.
    b.click("#top-menu");
    assert!(b.on_screen("#rules"), "at 200% text, the rules menu whole");
    assert!(
        b.on_screen("#tab-review"),
        "at 200% text, the views in the menu"
    );
    assert!(b.fits_width(), "at 200% text, the menu within the width");
    axe.check(b, "the menu at 200% text");
    b.click("#top-menu");
    b.js("document.documentElement.style.fontSize = ''; return true");
    b.wait("the header without its menu at the usual text size", || {
        (b.on_screen("#rules")
            && b.js("return document.querySelector('#top-menu').offsetParent") == Value::Null)
            .then_some(())
    });
}

/// Polls the server's `/api/status` until `done` holds for it, for `seconds` at most (`what`:
/// what goes on meanwhile, in the failure).
fn wait_for_status(server: &Served, seconds: u64, what: &str, done: impl Fn(&Value) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    loop {
        let (_, body) = server.get("/api/status");
        let v: Value = serde_json::from_str(&body).unwrap();
        if done(&v) {
            return;
        }
        assert!(Instant::now() < deadline, "{what} went on: {v}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What a game on the advisor took, as a player at the table plays it.
#[derive(Debug, Default)]
struct GameCount {
    /// The taps of each turn (a tap on a field to type in, on an option, Enter after the
    /// dice), with the turn's rolls.
    turns: Vec<(u32, u32)>,
    /// The times the page had to be scrolled to reach what a turn needs (or scrolled by
    /// itself).
    scrolls: u32,
    /// The dice typed.
    digits: u32,
}

/// Dice of a seeded game: a small linear congruential generator (the test's own dice).
struct TestDice(u64);

impl TestDice {
    fn roll(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| {
                self.0 = self
                    .0
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                char::from(b'1' + ((self.0 >> 33) % 6) as u8)
            })
            .collect()
    }
}

/// Plays a whole game on the advisor as at the table: each roll of the real dice typed (all
/// five, then only those re-rolled), the best option tapped, counting the taps and the
/// scrolls. Halfway, in the middle of a turn, the page is reloaded: the game must come back
/// as it was.
fn play_at_the_table(b: &Browser, server: &Served, dice: &mut TestDice, turns: usize) -> GameCount {
    let mut count = GameCount::default();
    let base = format!("{}/", server.base);
    for turn in 0..turns {
        let (mut taps, mut rolls) = (0u32, 0u32);
        let mut open = 5;
        let mut rolls_left = 2;
        let mut kept: Vec<u64> = Vec::new();
        loop {
            // The roll: the dice typed in the field (a tap on it unless it has the focus
            // already), then Enter.
            let typed = dice.roll(open);
            let want: Vec<u64> = kept
                .iter()
                .copied()
                .chain(typed.bytes().map(|c| u64::from(c - b'0')))
                .collect();
            if b.js("return document.activeElement && document.activeElement.id") != "dice-text" {
                if !b.on_screen("#dice-text") {
                    count.scrolls += 1;
                }
                taps += 1;
            }
            b.keys("#dice-text", &format!("{typed}{ENTER}"));
            taps += 1;
            rolls += 1;
            count.digits += open as u32;
            let q = b.wait("the advice of the roll", || {
                let q = b.options_query()?;
                (q["rolls_left"] == rolls_left && q["dice"].as_array()?.iter().all(Value::is_u64))
                    .then_some(q)
            });
            assert_eq!(q["dice"], json!(want), "the dice typed, after those kept");
            // The dice, the rolls left, the best option and the runner-up: on the first
            // screen, without scrolling.
            for css in [
                "#dice",
                "#rolls-left",
                "#options button.option[data-rank=\"1\"]",
            ] {
                if !b.on_screen(css) {
                    count.scrolls += 1;
                }
            }
            if !b
                .find_all("#options button.option[data-rank=\"2\"]")
                .is_empty()
                && !b.on_screen("#options button.option[data-rank=\"2\"]")
            {
                count.scrolls += 1;
            }
            if b.scroll_y() != 0.0 {
                count.scrolls += 1;
            }
            // Halfway through the game, after the first roll of a turn: a reload.
            if turn == turns / 2 && rolls == 1 {
                let before = b.js(
                    "return [document.querySelector('#card-total').textContent, \
                     document.querySelector('#options').dataset.query, document.querySelector('#undo').disabled]",
                );
                b.go(&base);
                b.wait_ready("the page again");
                b.wait("the same position", || {
                    (b.options_query()? == q).then_some(())
                });
                let after = b.js(
                    "return [document.querySelector('#card-total').textContent, \
                     document.querySelector('#options').dataset.query, document.querySelector('#undo').disabled]",
                );
                assert_eq!(before, after, "the reload restores the game and Undo");
            }
            // The best option, tapped.
            let best = "#options button.option[data-rank=\"1\"]";
            let kind = b.attr_of(&b.find(best), "data-kind").unwrap();
            let keep = b.attr_of(&b.find(best), "data-keep");
            if !b.on_screen(best) {
                count.scrolls += 1;
            }
            b.click(best);
            taps += 1;
            if b.scroll_y() != 0.0 {
                count.scrolls += 1;
            }
            if kind == "score" {
                break;
            }
            kept = keep.map_or(Vec::new(), |k| {
                k.split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse().unwrap())
                    .collect()
            });
            if kept.len() == 5 {
                // Stop rolling: the boxes are the options now.
                b.wait("the boxes", || {
                    (b.options_query()?["rolls_left"] == 0).then_some(())
                });
                let best = "#options button.option[data-rank=\"1\"]";
                if !b.on_screen(best) {
                    count.scrolls += 1;
                }
                b.click(best);
                taps += 1;
                break;
            }
            open = 5 - kept.len();
            rolls_left -= 1;
        }
        count.turns.push((taps, rolls));
        // The next turn starts: all five dice open.
        b.wait("the next turn", || {
            (b.find_all("#dice button.unknown").len() == 5
                || b.text("#summary").starts_with("The card is full"))
            .then_some(())
        });
    }
    count
}

/// The acceptance of the page on a phone at the table (390x844) and on a laptop (1280x900):
/// a whole game played as at the table, every turn without a scroll and in at most six taps
/// besides the dice typed (one more roll: two more taps), a reload in the middle restoring
/// it, a change of rules asking first, errors beside their fields and in view, and
/// axe-core's checks on each view with no violation.
#[test]
#[cfg_attr(
    any(not(feature = "serve"), missing_browser),
    ignore = "needs the feature serve (cargo test --release --all-features), Chromium, chromedriver and npm (see build.rs)"
)]
fn a_phone_at_the_table_plays_a_whole_game_without_scrolling() {
    let axe = Axe::new();
    let started = Instant::now();
    let (server, _work, b) = open_page(true);
    // Issue 47: the dice entered on the keypad, no text field focused (no phone keyboard).
    for face in [1, 3, 3, 5, 6] {
        b.click(&format!("#keypad button[data-face=\"{face}\"]"));
        assert_eq!(
            b.js("const a = document.activeElement; return a.tagName === 'INPUT' && a.inputMode !== 'none'"),
            false,
            "a field that opens the phone's keyboard has the focus"
        );
    }
    b.options_for(
        &json!({"card": {}, "yahtzee_bonus": 0, "dice": [1, 3, 3, 5, 6], "rolls_left": 2}),
    );
    assert_eq!(
        b.attr_of(&b.find("#dice-text"), "inputmode").as_deref(),
        Some("none")
    );
    // Erase opens the last die entered; a face fills it again.
    b.click("#keypad button.erase");
    b.wait("the last die open", || {
        (b.find_all("#dice button.unknown").len() == 1).then_some(())
    });
    b.click("#keypad button[data-face=\"6\"]");
    b.options_for(
        &json!({"card": {}, "yahtzee_bonus": 0, "dice": [1, 3, 3, 5, 6], "rolls_left": 2}),
    );
    phone_views(&b, &axe);
    // Every control of the first screen is a target of at least 44 px.
    let small = b.js(
        "return Array.from(document.querySelectorAll('#view-advise button, #view-advise select, #view-advise input[type=text], header button, header select, header label.check')) \
         .filter((e) => e.offsetParent !== null && !e.closest('#card-panel')) \
         .map((e) => [e.id || e.textContent.trim(), e.getBoundingClientRect()]) \
         .filter(([, r]) => r.width < 44 || r.height < 44).map(([n, r]) => `${n}: ${r.width}x${r.height}`)",
    );
    assert_eq!(small, json!([]), "touch targets under 44 px");
    b.axe_finds_a_planted_violation(&axe.script);
    axe.check(&b, "the advice on a phone");
    b.screenshot("serve-phone-advice.png");

    // A die set by a tap and a face picked from six.
    b.click("#dice button[data-i=\"0\"]");
    assert_eq!(b.find_all("#face-picker button").len(), 6);
    axe.check(&b, "the faces of a die");
    b.screenshot("serve-phone-picker.png");
    b.click("#face-picker button[data-face=\"4\"]");
    b.options_for(
        &json!({"card": {}, "yahtzee_bonus": 0, "dice": [4, 3, 3, 5, 6], "rolls_left": 2}),
    );
    assert!(
        b.find_all("#face-picker:not([hidden])").is_empty(),
        "the picker closes"
    );

    // The card, one tap away.
    assert!(
        b.find_all("#card-panel button.box").is_empty()
            || b.js("return document.querySelector('#card-panel').offsetParent") == Value::Null
    );
    b.click("#card-toggle");
    assert!(b.on_screen("#card button.box[data-box=\"ones\"]"));
    axe.check(&b, "the card on a phone");
    b.screenshot("serve-phone-card.png");
    b.click("#card-close");

    // An error beside its field, in view: dice that are not dice.
    b.keys("#dice-text", &format!("7{ENTER}"));
    let e = b.wait("the refusal of the dice", || {
        Some(b.text("#dice-text-error")).filter(|m| !m.is_empty())
    });
    assert!(e.starts_with("invalid dice `7`"), "{e}");
    assert!(b.on_screen("#dice-text-error"));
    assert_eq!(b.text("#message"), "", "not in the banner");
    b.clear("#dice-text");

    // A whole game at the table.
    let mut dice = TestDice(25);
    let phone = play_at_the_table(&b, &server, &mut dice, 13);
    assert!(
        b.text("#summary")
            .starts_with("The card is full: final score ")
    );
    eprintln!("phone 390x844: {phone:?}");
    assert_eq!(phone.scrolls, 0, "scrolls on the phone: {phone:?}");
    for &(taps, rolls) in &phone.turns {
        assert!(taps <= 6 + 2 * rolls.saturating_sub(2), "{phone:?}");
    }
    assert!(
        phone.turns.iter().any(|&(_, rolls)| rolls == 2),
        "a turn of one re-roll: {phone:?}"
    );
    b.screenshot("serve-phone-full.png");

    // A change of rules that would wipe the card asks first: No keeps everything.
    let total = b.text("#card-total");
    b.pick_rules("yacht");
    let asked = b.answer_alert(false);
    assert!(
        asked.starts_with("Change the rules to Yacht? The score card"),
        "{asked}"
    );
    assert_eq!(
        b.js("return document.querySelector('#rules').value"),
        "yahtzee"
    );
    assert_eq!(b.text("#card-total"), total);

    // An error beside the target, in view: an empty target and a word are refused.
    b.click("#undo");
    b.wait("a turn again", || {
        (!b.text("#summary").starts_with("The card is full")).then_some(())
    });
    // (Refused before any table is asked for: the target table of Yahtzee takes minutes.)
    b.clear("#target");
    b.keys("#target", TAB);
    b.click("input[name=\"objective\"][value=\"target\"]");
    for bad in ["", "abc"] {
        b.clear("#target");
        b.keys("#target", &format!("{bad}{TAB}"));
        let e = b.wait("the refusal of the target", || {
            Some(b.text("#target-error")).filter(|m| !m.is_empty())
        });
        assert!(e.contains("whole number"), "{e}");
        assert!(b.on_screen("#target-error"), "the error is in view");
        assert_eq!(
            b.attr_of(&b.find("#target"), "aria-invalid").as_deref(),
            Some("true")
        );
        assert_eq!(
            b.find_all("#options button.option").len(),
            0,
            "no advice for 0"
        );
    }
    b.screenshot("serve-phone-error.png");
    axe.check(&b, "an error beside the target");
    b.click("input[name=\"objective\"][value=\"ev\"]");
    b.wait("the error gone", || {
        b.text("#target-error").is_empty().then_some(())
    });
    b.clear("#target");
    b.keys("#target", &format!("250{TAB}"));
    // The other views.
    b.click("#tab-play");
    axe.check(&b, "the game view on a phone");
    b.start_game();
    b.click("#show-hints");
    b.wait("the hints", || {
        b.find_all("#game-options button.option").first().cloned()
    });
    assert!(b.fits_width(), "the game fits the phone's width");
    axe.check(&b, "a game on a phone");
    b.screenshot("serve-phone-play.png");
    b.click("#tab-review");
    axe.check(&b, "the review view on a phone");
    b.click("#tab-advise");

    // On a laptop: the same, a fresh game.
    b.js("localStorage.clear(); return true");
    b.go(&format!("{}/", server.base));
    b.viewport(1280, 900, false);
    b.wait_ready("the page");
    axe.check(&b, "the advice on a laptop");
    let laptop = play_at_the_table(&b, &server, &mut dice, 13);
    eprintln!("laptop 1280x900: {laptop:?}");
    assert_eq!(laptop.scrolls, 0, "scrolls on a laptop: {laptop:?}");
    for &(taps, rolls) in &laptop.turns {
        assert!(taps <= 6 + 2 * rolls.saturating_sub(2), "{laptop:?}");
    }
    eprintln!(
        "the phone and laptop games took {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // `serve --lan`, the phone's way in (127.0.0.2 stands for the network address): the
    // address printed opens the page, which works (its files and its calls carry the token),
    // the token leaves the address bar, and a reload still works; without the token, 403.
    let (lan, url, _, _) = Served::start_lan(&["--host", "127.0.0.2"]);
    b.viewport(390, 844, true);
    b.go(&format!("{}/", lan.base));
    let refused = b.js("return document.body.textContent");
    assert!(
        refused
            .as_str()
            .unwrap()
            .contains("answers only with its token"),
        "{refused}"
    );
    // Issue 45: a page that says what to do, not the API's raw JSON.
    assert_eq!(
        b.js("const h = document.querySelector('h1'); return h ? h.textContent : null"),
        "Scan the QR code again"
    );
    assert!(
        !refused.as_str().unwrap().trim_start().starts_with('{'),
        "{refused}"
    );
    for _ in 0..2 {
        b.go(&url);
        b.wait_ready("the page over the network");
        b.keys("#dice-text", &format!("13356{ENTER}"));
        b.options_for(
            &json!({"card": {}, "yahtzee_bonus": 0, "dice": [1, 3, 3, 5, 6], "rolls_left": 2}),
        );
        assert_eq!(b.js("return window.location.search"), "");
        assert_eq!(b.text("#message"), "");
        b.js("localStorage.clear(); return true");
    }
    b.go(&format!("{}/", lan.base));
    b.wait_ready("the page again, from the session");
}

/// Issue 25: on a phone, the review of a game priced to win comes decision by decision as
/// the server prices it (one line of the answer each), then whole, as `yahtzee review
/// --win` has it; and Cancel stops a table being built on the server too, which saves
/// nothing. Issue 27: "Rate several games" on the same tab rates records chosen as files and
/// pasted, showing `yahtzee review --rating --json`'s figures.
#[test]
#[cfg_attr(
    any(not(feature = "serve"), missing_browser),
    ignore = "needs the feature serve (cargo test --release --all-features), Chromium, chromedriver and npm (see build.rs)"
)]
fn a_phone_reviews_to_win_rates_several_games_and_cancels_a_table_build() {
    let axe = Axe::new();
    table(RuleSet::YACHT, Order::Any);
    table(RuleSet::YAHTZEE, Order::Any);
    crate::util::distribution_table(RuleSet::YACHT, Order::Any);
    // A folder of its own, without the target table of Yahtzee (minutes to build).
    let dir = crate::util::dir_with_tables(&[
        "yacht.v4.table",
        "yacht.distribution.v4.table",
        "yahtzee.v4.table",
    ]);
    let server = Served::start_in(dir.path(), &["--rules", "yacht"]);
    let work = temp_dir();
    let path = work.path().join("two.jsonl");
    std::fs::write(&path, crate::serve::two_player_record(&server, 11)).unwrap();
    let o = crate::util::yahtzee_in(dir.path())
        .args(["review", &path.display().to_string(), "--json", "--win"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let cli: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let decisions = cli["decisions"].as_array().unwrap().len();
    let b = Browser::open(&server.base, work.path(), true);

    // The review priced to win, decision by decision.
    b.click("#tab-review");
    b.click("input[name=\"review-objective\"][value=\"win\"]");
    b.keys("#record-file", &path.display().to_string());
    b.click("#review-form button[type=\"submit\"]");
    b.wait("the whole review", || {
        b.find_all("#review-result[data-streamed]").first().cloned()
    });
    assert_eq!(
        b.js("return document.querySelector('#review-result').dataset.streamed"),
        decisions.to_string(),
        "one line of the answer per decision, each shown as it came"
    );
    assert_eq!(b.find_all("#review-decisions tbody tr").len(), decisions);
    assert_eq!(b.find_all("#review-chart rect.bar").len(), decisions);
    for p in cli["players"].as_array().unwrap() {
        let cell = format!(
            "#review-players tr[data-player=\"{}\"] td.mean-loss",
            p["player"].as_str().unwrap()
        );
        assert_eq!(b.text(&cell), chance_loss(p["mean_loss"].as_f64().unwrap()));
    }
    assert!(
        b.find_all("#status[hidden]").len() == 1,
        "the busy state goes"
    );
    assert!(b.fits_width(), "the review fits the phone's width");
    // Issue 47: nothing of it scrolls sideways, and its chart's labels are 11 px or more.
    assert_eq!(
        b.js("return [...document.querySelectorAll('#review-result .scroll')].every((e) => e.scrollWidth <= e.clientWidth + 1)"),
        true,
        "a table of the review scrolls sideways"
    );
    let smallest = b.js(
        "const s = document.querySelector('#review-chart svg'); const k = s.getBoundingClientRect().width / s.viewBox.baseVal.width;          return Math.min(...[...s.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * k))",
    );
    assert!(
        smallest.as_f64().unwrap() >= 11.0,
        "chart labels of {smallest} px"
    );
    axe.check(&b, "a review priced to win, on a phone");
    b.screenshot("serve-phone-review-win.png");

    // Rate several games: two records chosen as files, one pasted, as the command line rates
    // the three files.
    let records: Vec<PathBuf> = (12..=14)
        .map(|seed| {
            let path = work.path().join(format!("game-{seed}.jsonl"));
            std::fs::write(&path, crate::serve::two_player_record(&server, seed)).unwrap();
            path
        })
        .collect();
    let o = crate::util::yahtzee_in(dir.path())
        .args(["review", "--rating", "--json"])
        .args(&records)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let cli: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let chosen: Vec<String> = records[..2]
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    b.keys("#rating-files", &chosen.join("\n"));
    let pasted = std::fs::read_to_string(&records[2]).unwrap();
    b.js(&format!(
        "document.querySelector('#rating-text').value = {}",
        Value::from(pasted)
    ));
    b.click("#rating-form button[type=\"submit\"]");
    b.wait("the rating", || {
        b.find_all("#rating-result:not([hidden]) section.rating-player")
            .first()
            .cloned()
    });
    assert_eq!(b.text("#rating-title"), "Rating: 3 records of yacht");
    let players = cli["players"].as_array().unwrap();
    assert_eq!(
        b.find_all("#rating-players section.rating-player").len(),
        players.len()
    );
    for p in players {
        let name = p["player"].as_str().unwrap();
        let at = format!("#rating-players section[data-player=\"{name}\"]");
        let rating = p["rating"].as_str().unwrap();
        let bot = if p["kind"] == "bot" { " (bot)" } else { "" };
        assert_eq!(
            b.text(&format!("{at} h3")),
            format!("{name}{bot}: {rating}")
        );
        let shown = b.js(&format!(
            "return Object.fromEntries([...document.querySelector('{at} table').rows].map((r) => [r.cells[0].textContent, r.cells[1].textContent]))"
        ));
        let count = |n: &str, of: &str| format!("{} ({})", p[n], p[of]);
        assert_eq!(
            shown,
            json!({
                "class": rating,
                "games (complete)": count("games", "complete_games"),
                "decisions (sub-optimal)": count("decisions", "suboptimal"),
                "loss per game": estimate_text(&p["loss_per_game"], 2),
                "loss per decision": estimate_text(&p["loss_per_decision"], 3),
                "expected score": estimate_text(&p["expected_score"], 2),
                "mean score": format!("{:.1}", p["mean_score"].as_f64().unwrap()),
            }),
            "{name}"
        );
        let habits = p["habits"].as_array().unwrap().len();
        assert_eq!(
            b.find_all(&format!("{at} div.scroll:nth-of-type(3) tbody tr"))
                .len(),
            habits,
            "{name}'s habits"
        );
    }
    // The bot plays optimally; ann, filling the first open box, is rated by her losses.
    assert_eq!(players[1]["loss_per_game"]["mean"], 0.0);
    assert!(players[0]["loss_per_game"]["mean"].as_f64().unwrap() > 1.0);
    assert!(b.fits_width(), "the rating fits the phone's width");
    axe.check(&b, "the rating of several games, on a phone");

    // Yahtzee, playing for a target: its table is built (minutes), with Cancel in view.
    b.click("#tab-advise");
    b.pick_rules("yahtzee");
    b.wait("the rules of Yahtzee", || {
        (b.js("return document.querySelector('#rules').value") == "yahtzee").then_some(())
    });
    b.click("input[name=\"objective\"][value=\"target\"]");
    b.wait("the build's progress", || {
        let text = b.text("#status-text");
        (text.starts_with("Building the target table of yahtzee")
            && text.contains(" of ")
            && text.contains(&TableKind::Target.build_cost(&Rules::new(RuleSet::YAHTZEE))))
        .then_some(())
    });
    assert!(b.on_screen("#cancel"), "Cancel is on the first screen");
    axe.check(&b, "a table being built, on a phone");
    b.screenshot("serve-phone-building.png");
    b.click("#cancel");
    // The server stops the build: its status says so, and nothing is saved.
    wait_for_status(&server, 60, "the build", |v| {
        v["tables"].as_array().unwrap().iter().any(|t| {
            t["rules"] == "yahtzee" && t["objective"] == "target" && t["state"] == "cancelled"
        })
    });
    crate::util::assert_no_file_starting(dir.path(), "yahtzee.target");
    b.wait("the busy state gone", || {
        (b.find_all("#status[hidden]").len() == 1).then_some(())
    });
    axe.check(&b, "the advice after a cancelled build, on a phone");
}
