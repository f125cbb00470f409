//! The score pad on the page, in headless Chromium at a phone's size (390x844, touch): a
//! whole game of three players of a four-box game, the advised player's turns in at most six
//! taps with a re-roll (the dice entered on the pad's keypad are not counted), the others' in
//! two taps each, nothing scrolled; the win advice shown is `advise --opponent`'s against the
//! pad's cards; a reload and a restart of the server in the middle resume the game; the
//! finished game reviewed from the list; axe-core on each of the pad's views. Then a round of
//! a new game each in dark mode, held sideways (844x390) and at 200% text (the card of the
//! player to move and the advice on the first screen, nothing wider than the screen, axe-core
//! clean), and the cards side by side at a desktop's width.

use serde_json::{Value, json};

use crate::browser::{Axe, Browser};
use crate::pad_serve::{pad_rules, pad_server};
use crate::serve::Served;
use crate::util::{path_str, stderr, stdout, temp_dir, yahtzee_in};

/// The game's view from the server, for the test's checks.
fn view(server: &Served, id: &str) -> Value {
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
fn wait_lines(b: &Browser, server: &Served, id: &str, lines: u64) -> Value {
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

/// The dice of the test's table: a fixed sequence (the same game every run).
struct Dice(u64);

impl Dice {
    fn roll(&mut self, n: usize) -> Vec<u8> {
        (0..n)
            .map(|_| {
                self.0 = self
                    .0
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((self.0 >> 33) % 6 + 1) as u8
            })
            .collect()
    }
}

/// The player to move's card and the advice on the first screen, nothing wider than it.
fn first_screen(b: &Browser, what: &str) {
    for css in ["#pad-card", "#pad-options button.option.best"] {
        if !b.on_screen(css) {
            let shot = b.screenshot("pad-not-on-screen.png");
            panic!("{what}: {css} not on the first screen ({})", shot.display());
        }
    }
    fits_screen(b, what);
}

/// Nothing wider than the screen: the layout as wide as the phone (a phone widens it to the
/// widest element, which `fits_width` alone then misses) and no element past its right edge.
fn fits_screen(b: &Browser, what: &str) {
    let wider = b.js(
        "const w = window.visualViewport.width;          return window.innerWidth > w ? [...document.querySelectorAll('body *')]          .filter((e) => e.getBoundingClientRect().right > w + 0.5).slice(-3)          .map((e) => `${e.tagName}#${e.id}.${e.className}`) : []",
    );
    assert_eq!(wider, json!([]), "{what}: wider than the screen");
    assert!(b.fits_width(), "{what}: wider than the screen");
}

/// The advised player's turn: five dice entered, a keep of fewer than five dice among the
/// options shown tapped (the re-roll), the dice re-rolled entered, a box tapped on the card.
/// `at_advice` sees the view and the best option (kind, value) of the first roll. At most six
/// taps besides the dice entered, nothing scrolled.
fn advised_turn(
    b: &Browser,
    server: &Served,
    id: &str,
    dice: &mut Dice,
    at_advice: &mut dyn FnMut(&Value, &str, &str),
) {
    let mut taps = 0u32;
    let lines = view(server, id)["record_lines"].as_u64().unwrap();
    enter_dice(b, &dice.roll(5));
    let v = wait_lines(b, server, id, lines + 1);
    let (kind, value) = wait_advice(b);
    // Each open box shows what these dice score there.
    for open in v["open"].as_array().unwrap() {
        let shown = b.text(&format!(
            "#pad-card button[data-box=\"{}\"]",
            open["name"].as_str().unwrap()
        ));
        assert_eq!(shown, open["scores"]["points"].to_string());
    }
    at_advice(&v, &kind, &value);
    let rank = b.js(
        "const o = [...document.querySelectorAll('#pad-options button.option[data-keep]')] \
         .find((o) => o.dataset.keep.length < 5 && o.offsetParent !== null); \
         return o ? o.dataset.rank : null",
    );
    let rank = rank
        .as_str()
        .unwrap_or_else(|| panic!("no keep of fewer than five dice shown for {:?}", v["dice"]));
    tap(
        b,
        &format!("#pad-options button.option[data-rank=\"{rank}\"]"),
        &mut taps,
    );
    let v = wait_lines(b, server, id, lines + 2);
    let count = v["expect"]["count"].as_u64().unwrap() as usize;
    assert!(count > 0, "{v}");
    enter_dice(b, &dice.roll(count));
    let v = wait_lines(b, server, id, lines + 3);
    assert_eq!(v["rolls_left"], 1, "{v}");
    wait_advice(b);
    tap(b, "#pad-card button.pad-box", &mut taps);
    // A box with a roll left: its stop and the box.
    b.wait("the box", || {
        (view(server, id)["to_move"] != v["to_move"]).then_some(())
    });
    assert!(taps <= 6, "the advised turn took {taps} taps");
    assert_eq!(b.scroll_y(), 0.0);
}

/// Another player's turn: a box, then its points (the highest), two taps, nothing scrolled.
fn other_turn(b: &Browser, server: &Served, id: &str, axe: Option<(&Axe, &str)>) {
    let mut taps = 0u32;
    let v = view(server, id);
    let lines = v["record_lines"].as_u64().unwrap();
    tap(b, "#pad-card button.pad-box", &mut taps);
    if let Some((axe, what)) = axe {
        axe.check(b, &format!("the points of a box{what}"));
    }
    tap(b, "#pad-points-grid button.pad-value:last-child", &mut taps);
    let after = wait_lines(b, server, id, lines + 1);
    assert_ne!(after["to_move"], v["to_move"]);
    assert_eq!(taps, 2);
    assert_eq!(b.scroll_y(), 0.0);
    fits_screen(b, "another player's turn");
}

/// A new game of ann, bob and cat from the board's New game: its id.
fn new_game(b: &Browser, axe: &Axe, what: &str) -> String {
    let before = b.js("return localStorage.getItem('yahtzee.pad.v1')");
    if b.js("return document.querySelector('#pad-board').hidden") == false {
        b.click("#pad-new");
    }
    b.clear("#pad-players");
    b.keys("#pad-players", "ann,bob,cat");
    axe.check(b, &format!("the pad's new game{what}"));
    b.click("#pad-form button[type=submit]");
    b.wait("the pad's game", || {
        let id = b.js("return document.querySelector('#pad-board').hidden ? null : localStorage.getItem('yahtzee.pad.v1')");
        (id != Value::Null && id != before).then(|| id.as_str().unwrap().to_string())
    })
}

/// A round of a new game (ann's turn with its re-roll, bob's and cat's two taps), the views
/// checked on the first screen and by axe-core, the advice shot as `shot`.
fn round(b: &Browser, axe: &Axe, server: &Served, what: &str, shot: &str) {
    let id = new_game(b, axe, what);
    axe.check(b, &format!("the pad{what}"));
    fits_screen(b, what);
    let mut dice = Dice(11);
    advised_turn(b, server, &id, &mut dice, &mut |_, _, _| {
        first_screen(b, what);
        axe.check(b, &format!("the pad's advice{what}"));
        b.screenshot(shot);
    });
    other_turn(b, server, &id, Some((axe, what)));
    other_turn(b, server, &id, None);
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
    let id = new_game(&b, &axe, "");
    axe.check(&b, "the pad");
    let mut dice = Dice(7);
    let mut turn = 0;
    let mut resumed = false;
    loop {
        let v = view(&server, &id);
        if v["finished"] == true {
            break;
        }
        if v["to_move"] == "ann" {
            turn += 1;
            if turn == 2 {
                // Win advice against the pad's other cards, as `advise --opponent` gives it.
                b.js("const s = document.querySelector('#pad-objective'); s.value = 'win'; s.dispatchEvent(new Event('change'));");
                b.wait("the objective", || {
                    (view(&server, &id)["objective"]["objective"] == "win").then_some(())
                });
            }
            advised_turn(&b, &server, &id, &mut dice, &mut |v, kind, value| {
                first_screen(&b, "a phone");
                if turn != 2 {
                    return;
                }
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
                b.screenshot("serve-pad-phone.png");
            });
        } else {
            other_turn(&b, &server, &id, (turn == 1).then_some((&axe, "")));
        }
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
    assert_eq!(turn, 4);
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

    // A round of a new game in dark mode, held sideways, and at 200% text.
    b.click("#tab-pad");
    b.click("#theme");
    b.wait("the dark theme", || {
        (b.js("return document.documentElement.dataset.theme || null") == "dark").then_some(())
    });
    round(&b, &axe, &server, ", dark", "serve-pad-phone-dark.png");
    b.click("#theme");
    b.viewport(844, 390, true);
    round(
        &b,
        &axe,
        &server,
        ", held sideways",
        "serve-pad-landscape.png",
    );
    b.viewport(390, 844, true);
    b.js("document.documentElement.style.fontSize = '200%'; return true");
    b.wait("the large text", || {
        (b.js("return document.documentElement.classList.contains('large-text')") == true)
            .then_some(())
    });
    round(
        &b,
        &axe,
        &server,
        ", at 200% text",
        "serve-pad-text-200.png",
    );
    b.js("document.documentElement.style.fontSize = ''; return true");
    // Full Yahtzee's thirteen boxes on a phone: the whole card of the player to move (its
    // total last) on the first screen with the dice and the advice.
    b.js("const s = document.querySelector('#rules'); s.value = 'yahtzee'; s.dispatchEvent(new Event('change')); return true");
    let id = new_game(&b, &axe, ", Yahtzee");
    assert_eq!(view(&server, &id)["rules"], "yahtzee");
    let lines = view(&server, &id)["record_lines"].as_u64().unwrap();
    enter_dice(&b, &Dice(5).roll(5));
    wait_lines(&b, &server, &id, lines + 1);
    wait_advice(&b);
    first_screen(&b, "Yahtzee on a phone");
    let boxes = b.find_all("#pad-card tbody tr").len();
    assert_eq!(boxes, 14, "thirteen boxes and the total");
    assert!(
        b.on_screen("#pad-card tbody tr.total"),
        "Yahtzee's card is taller than the phone's first screen ({})",
        b.screenshot("pad-yahtzee-not-on-screen.png").display()
    );
    axe.check(&b, "the pad's Yahtzee card");
    b.screenshot("serve-pad-phone-yahtzee.png");
    // At a desktop's width: a column per player, side by side.
    b.viewport(1280, 900, false);
    let columns = b.js(
        "return [...document.querySelectorAll('#pad-card thead th')] \
         .map((t) => t.offsetParent === null ? null : [t.textContent, Math.round(t.getBoundingClientRect().left)])",
    );
    let columns = columns.as_array().unwrap();
    assert_eq!(
        columns.iter().map(|c| c[0].clone()).collect::<Vec<_>>(),
        [json!("ann"), json!("bob"), json!("cat")],
        "{columns:?}"
    );
    assert!(
        columns
            .windows(2)
            .all(|w| w[0][1].as_f64() < w[1][1].as_f64()),
        "{columns:?}"
    );
    b.screenshot("serve-pad-desktop.png");
}
