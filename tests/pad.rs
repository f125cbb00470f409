//! The score pad on the page, in headless Chromium at a phone's size (390x844, touch): a
//! whole game of three players of a four-box game, the advised player's turns in at most six
//! taps with a re-roll (the dice entered on the pad's keypad are not counted), the others' in
//! two taps each, nothing scrolled; the win advice shown is `advise --opponent`'s against the
//! pad's cards; a reload and a restart of the server in the middle resume the game; the
//! finished game reviewed from the list; axe-core on each of the pad's views.

use serde_json::{Value, json};

use crate::browser::{Axe, Browser};
use crate::pad_serve::{pad_rules, pad_server};
use crate::util::{path_str, stderr, stdout, temp_dir, yahtzee_in};

/// The game's view from the server, for the test's checks.
fn view(server: &crate::serve::Served, id: &str) -> Value {
    let (status, body) = server.get(&format!("/api/pad/{id}"));
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// Taps `css` (counted in `taps`), which must be on the screen without a scroll.
fn tap(b: &Browser, css: &str, taps: &mut u32) {
    if !b.on_screen(css) {
        let shot = b.screenshot("pad-not-on-screen.png");
        panic!(
            "{css} is not on the screen without a scroll (screenshot: {})",
            shot.display()
        );
    }
    b.click(css);
    *taps += 1;
}

/// Enters `faces` on the pad's keypad (not counted: the dice, as typed).
fn enter_dice(b: &Browser, faces: &[u8]) {
    for f in faces {
        assert!(b.on_screen(&format!("#pad-keypad button[data-face=\"{f}\"]")));
        b.click(&format!("#pad-keypad button[data-face=\"{f}\"]"));
    }
}

/// Waits until the record has `lines` lines (or more: the game's end line) and the page
/// shows it.
fn wait_lines(b: &Browser, server: &crate::serve::Served, id: &str, lines: u64) -> Value {
    let v = b.wait("the pad's move", || {
        let v = view(server, id);
        (v["record_lines"].as_u64() >= Some(lines)).then_some(v)
    });
    b.wait("the page's view", || {
        (b.js("return document.querySelector('#pad-state').dataset.lines")
            == json!(v["record_lines"].to_string()))
        .then_some(())
    });
    v
}

/// Waits for the exact advice of the pad (not the provisional one of a table being built)
/// and answers its best option's `data-kind` and `data-value`.
fn wait_advice(b: &Browser) -> (String, String) {
    b.wait("the advice", || {
        let v = b.js(
            "const o = document.querySelector('#pad-options:not([data-provisional]) button.option.best'); \
                      return o ? [o.dataset.kind, o.dataset.value] : null",
        );
        v.as_array().map(|a| {
            (
                a[0].as_str().unwrap().to_string(),
                a[1].as_str().unwrap().to_string(),
            )
        })
    })
}

#[test]
#[cfg_attr(
    any(not(feature = "serve"), missing_browser),
    ignore = "needs the feature serve (cargo test --release --all-features), Chromium, chromedriver and npm (see build.rs)"
)]
fn a_phone_keeps_a_whole_table_s_score_on_the_pad() {
    let axe = Axe::new();
    let dir = temp_dir();
    let rules = pad_rules(dir.path());
    let games = dir.path().join("games");
    let mut server = pad_server(dir.path(), &rules, &games);
    let b = Browser::open(&server.base, dir.path(), true);
    b.click("#tab-pad");
    b.clear("#pad-players");
    b.keys("#pad-players", "ann,bob,cat");
    axe.check(&b, "the pad's new game");
    b.click("#pad-form button[type=submit]");
    let id = b.wait("the pad's game", || {
        b.js("return document.querySelector('#pad-board').hidden ? null : localStorage.getItem('yahtzee.pad.v1')")
            .as_str()
            .map(str::to_string)
    });
    axe.check(&b, "the pad");
    let mut dice = 7u64;
    let mut roll = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                dice = dice
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((dice >> 33) % 6 + 1) as u8
            })
            .collect()
    };
    let mut lines = 2u64;
    let mut turn = 0;
    let mut win_checked = false;
    let mut resumed = false;
    loop {
        let v = view(&server, &id);
        if v["finished"] == true {
            break;
        }
        let mut taps = 0u32;
        if v["to_move"] == "ann" {
            turn += 1;
            if turn == 2 && !win_checked {
                // Win advice against the pad's other cards, as `advise --opponent` gives it.
                b.js("const s = document.querySelector('#pad-objective'); s.value = 'win'; s.dispatchEvent(new Event('change'));");
                b.wait("the objective", || {
                    (view(&server, &id)["objective"]["objective"] == "win").then_some(())
                });
            }
            let first = roll(5);
            enter_dice(&b, &first);
            lines += 1;
            let v = wait_lines(&b, &server, &id, lines);
            let (kind, value) = wait_advice(&b);
            // Each open box shows what these dice score there.
            for open in v["open"].as_array().unwrap() {
                let shown = b.text(&format!(
                    "#pad-card button[data-box=\"{}\"]",
                    open["name"].as_str().unwrap()
                ));
                assert_eq!(shown, open["scores"]["points"].to_string());
            }
            if turn == 2 && !win_checked {
                win_checked = true;
                let card = |p: usize| v["players"][p]["card"].as_str().unwrap().to_string();
                let faces: String = v["dice"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.to_string())
                    .collect();
                let o = yahtzee_in(dir.path())
                    .args([
                        "advise",
                        "--rules",
                        &path_str(&rules),
                        "--card",
                        &card(0),
                        "--dice",
                        &faces,
                    ])
                    .args([
                        "--rolls-left",
                        "2",
                        "--opponent",
                        &card(1),
                        "--opponent",
                        &card(2),
                        "--json",
                    ])
                    .output()
                    .unwrap();
                assert!(o.status.success(), "{}", stderr(&o));
                let cli: Value = serde_json::from_str(&stdout(&o)).unwrap();
                let best = &cli["options"][0];
                assert_eq!(kind, best["kind"].as_str().unwrap());
                // The chance of winning shown is the command line's.
                let p = best["p_win"].as_f64().unwrap();
                let shown: f64 = value.parse().unwrap();
                assert!((shown - p).abs() < 1e-12, "{shown} vs {p}");
                assert!(p > 0.0 && p < 1.0, "{cli}");
                axe.check(&b, "the pad's win advice");
            }
            if kind == "keep" {
                // The best keep, then the re-rolled dice, then a box from the card.
                tap(&b, "#pad-options button.option.best", &mut taps);
                lines += 1;
                let v = wait_lines(&b, &server, &id, lines);
                let count = v["expect"]["count"].as_u64().unwrap() as usize;
                enter_dice(&b, &roll(count));
                lines += 1;
                wait_lines(&b, &server, &id, lines);
                wait_advice(&b);
            }
            let before = view(&server, &id)["record_lines"].as_u64().unwrap();
            tap(&b, "#pad-card button.pad-box", &mut taps);
            // A box with rolls left: its stop and the box.
            let v = b.wait("the box", || {
                let v = view(&server, &id);
                (v["to_move"] != "ann").then_some(v)
            });
            lines = v["record_lines"].as_u64().unwrap();
            assert!(lines > before);
            assert!(taps <= 6, "ann's turn {turn} took {taps} taps");
        } else {
            let player = v["to_move"].as_str().unwrap().to_string();
            tap(&b, "#pad-card button.pad-box", &mut taps);
            if turn == 1 {
                axe.check(&b, "the points of a box");
            }
            tap(
                &b,
                "#pad-points-grid button.pad-value:last-child",
                &mut taps,
            );
            lines += 1;
            let after = wait_lines(&b, &server, &id, lines);
            lines = after["record_lines"].as_u64().unwrap();
            assert_ne!(after["to_move"], json!(player));
            assert_eq!(taps, 2);
        }
        assert_eq!(b.scroll_y(), 0.0);
        // In the middle: a reload of the page, then a restart of the server, resume it.
        if turn == 2 && !resumed && view(&server, &id)["to_move"] == "cat" {
            resumed = true;
            let state = b.text("#pad-state");
            b.go(&format!("{}/", server.base));
            b.wait_ready("the page again");
            b.click("#tab-pad");
            b.wait("the game again", || {
                (b.text("#pad-state") == state).then_some(())
            });
            drop(server);
            server = pad_server(dir.path(), &rules, &games);
            b.go(&format!("{}/", server.base));
            b.wait_ready("the page of the server started again");
            b.click("#tab-pad");
            let resume = format!("#pad-games li[data-id=\"{id}\"] button[data-action=\"resume\"]");
            b.wait("the list", || {
                (!b.find_all(&resume).is_empty()).then_some(())
            });
            axe.check(&b, "the pad's list of games");
            b.click(&resume);
            b.wait("the game resumed", || {
                (b.text("#pad-state") == state).then_some(())
            });
        }
    }
    // The finished game in the list, reviewed in one tap: ann's decisions alone.
    b.click("#tab-pad");
    let review = format!("#pad-games li[data-id=\"{id}\"] button[data-action=\"review\"]");
    b.wait("the list", || {
        (!b.find_all(&review).is_empty()).then_some(())
    });
    let mut taps = 0;
    tap(&b, &review, &mut taps);
    b.wait("the review", || {
        (b.js("return document.querySelector('#review-result').hidden") == false
            && b.text("#review-players").contains("ann"))
        .then_some(())
    });
    let players = b.text("#review-players");
    assert!(
        !players.contains("bob") && !players.contains("cat"),
        "{players}"
    );
    axe.check(&b, "the review of a pad game");
    b.screenshot("serve-phone-pad-review.png");
}
