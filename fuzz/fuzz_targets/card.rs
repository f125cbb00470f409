//! `advise --card TEXT --yahtzee-bonus N --dice D --rolls-left R` for every rule set in both
//! orders: the card is parsed with `ScoreCard::parse` (what `src/cmd/advise.rs` calls), and
//! when it parses it re-parses from its `Display` to the same card, its state is reachable,
//! its banked points are at most the rules' highest score, and the advice on it works.
//!
//! Input: byte 0 picks the rules, byte 1 is the Yahtzee-bonus count, byte 2 the dice and the
//! rolls left of the advice; the rest is the card text (UTF-8, as a command-line argument).

#![no_main]

use libfuzzer_sys::fuzz_target;
use yahtzee_core::game::dice::Dice;
use yahtzee_core::game::rules::highest_score;
use yahtzee_core::game::state::{ScoreCard, is_reachable};
use yahtzee_core::policy::expected::{Position, advise};
use yahtzee_fuzz::{check_message, rules_from_byte, table};

fuzz_target!(|data: &[u8]| {
    let [rules, bonuses, roll, text @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let rules = rules_from_byte(*rules);
    let bonuses = u32::from(*bonuses);
    let card = match ScoreCard::parse(rules, text, bonuses) {
        Ok(card) => card,
        Err(e) => return check_message(&e.to_string()),
    };
    assert_eq!(card.rules(), rules);
    assert_eq!(card.yahtzee_bonuses(), bonuses);
    assert!(!card.is_full(), "a full card parsed: {card}");
    let shown = card.to_string();
    assert_eq!(
        ScoreCard::parse(rules, &shown, bonuses).as_ref(),
        Ok(&card),
        "{text:?} parsed to {shown:?}, which parses to another card"
    );
    assert!(
        is_reachable(&rules, &card.state()),
        "{text:?}: unreachable state {:?} under {rules:?}",
        card.state()
    );
    assert!(
        card.banked() <= highest_score(&rules),
        "{text:?}: {} banked, above the highest score {} of {rules:?}",
        card.banked(),
        highest_score(&rules)
    );
    // The advice `advise --card` then gives: every roll, 0 to 2 rolls left.
    let dice = Dice::all()
        .nth(usize::from(*roll) % 252)
        .expect("252 rolls");
    let position = Position {
        card: card.clone(),
        dice,
        rolls_left: *roll % 3,
    };
    let table = table(rules);
    let advice = advise(table, &position).expect("a parsed card is advised on");
    assert!(!advice.options.is_empty(), "{shown}: no option");
    let best = advice.options[0].expected_final();
    assert!(
        best.is_finite() && best >= f64::from(card.banked()) - 1e-9,
        "{shown}: best {best} below the banked {}",
        card.banked()
    );
    assert!(
        best <= f64::from(highest_score(&rules)) + 1e-9,
        "{shown}: best {best} above the highest score"
    );
    serde_json::to_string(&advice).expect("the advice serializes");
});
