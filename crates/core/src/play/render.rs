//! The score cards as text: one column per player, the boxes in card order, the upper
//! subtotal with the progress towards the bonus, the bonuses and the totals.

use crate::game::rules::UPPER_MASK;
use crate::game::state::ScoreCard;

use super::Seat;

/// What the upper bonus looks like on `card`: earned, still possible (with the points
/// missing), or lost.
fn bonus_cell(card: &ScoreCard) -> String {
    let rules = card.rules();
    let upper = card.upper_total();
    if card.has_upper_bonus() {
        rules.upper_bonus_points().to_string()
    } else if card.filled() & UPPER_MASK == UPPER_MASK {
        "0".to_string()
    } else {
        format!("need {}", rules.upper_threshold() - upper)
    }
}

/// The cards of `seats` side by side.
pub fn render_cards(seats: &[Seat], cards: &[ScoreCard]) -> String {
    render_cards_saved(seats, cards, None)
}

/// The cards of the players of `game` side by side, with each player's rolls saved under
/// saved rolls (a last row, `rolls saved`).
pub fn render_game(game: &super::Game) -> String {
    let saved = game.rules().saved_rolls().then(|| game.saved());
    render_cards_saved(game.seats(), game.cards(), saved)
}

/// The cards of `seats` side by side, and when given each player's rolls `saved`.
fn render_cards_saved(seats: &[Seat], cards: &[ScoreCard], saved: Option<&[u8]>) -> String {
    let Some(first) = cards.first() else {
        return String::new();
    };
    let rules = first.rules();
    let width = seats
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(7);
    let mut out = String::new();
    let mut row = |label: &str, cells: Vec<String>| {
        out.push_str(&format!("  {label:<16}"));
        for c in cells {
            out.push_str(&format!(" {c:>width$}"));
        }
        out.push('\n');
    };
    row("", seats.iter().map(|s| s.name.clone()).collect());
    let cell =
        |card: &ScoreCard, i: usize| card.points(i).map_or(".".to_string(), |p| p.to_string());
    for (i, c) in rules.boxes().iter().enumerate() {
        row(c.name(), cards.iter().map(|card| cell(card, i)).collect());
        if i == 5 {
            if rules.has_upper_bonus() {
                row(
                    "upper subtotal",
                    cards
                        .iter()
                        .map(|c| format!("{}/{}", c.upper_total(), rules.upper_threshold()))
                        .collect(),
                );
                row("upper bonus", cards.iter().map(bonus_cell).collect());
            } else {
                row(
                    "upper subtotal",
                    cards.iter().map(|c| c.upper_total().to_string()).collect(),
                );
            }
        }
    }
    // The bonus of a further five of a kind, named after its box (`yahtzee bonus`).
    if let Some(five) = rules
        .five_of_a_kind_box()
        .filter(|_| rules.has_yahtzee_bonus())
    {
        row(
            &format!("{} bonus", rules.boxes()[five].name()),
            cards
                .iter()
                .map(|c| (rules.yahtzee_bonus_points() * c.yahtzee_bonuses()).to_string())
                .collect(),
        );
    }
    row(
        "total",
        cards.iter().map(|c| c.banked().to_string()).collect(),
    );
    if let Some(saved) = saved {
        row("rolls saved", saved.iter().map(u8::to_string).collect());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rules::{RuleSet, Rules};

    #[test]
    fn shows_subtotal_bonus_progress_and_total() {
        let rules = Rules::new(RuleSet::YAHTZEE);
        let a = ScoreCard::parse(rules, "fours=16,fives=20,sixes=30,yahtzee=50", 1).unwrap();
        let b = ScoreCard::parse(rules, "ones=2", 0).unwrap();
        let seats = ["ann", "bot"].map(Seat::human);
        let text = render_cards(&seats, &[a, b]);
        let line = |label: &str| {
            text.lines()
                .find(|l| l.trim_start().starts_with(label))
                .unwrap()
                .split_whitespace()
                .rev()
                .take(2)
                .collect::<Vec<_>>()
        };
        assert_eq!(line("upper subtotal"), vec!["2/63", "66/63"]);
        let bonus = text.lines().find(|l| l.contains("upper bonus")).unwrap();
        assert!(
            bonus.contains(" 35 ") && bonus.ends_with("need 61"),
            "{bonus}"
        );
        assert_eq!(line("yahtzee bonus"), vec!["0", "100"]);
        assert_eq!(line("total"), vec!["2", "251"]);
    }

    /// Issue 45: the card row of the bonus of a further five of a kind said "yahtzee bonus"
    /// in a game whose box is named `maxi`: it is named after the box.
    #[test]
    fn the_five_of_a_kind_bonus_row_is_named_after_its_box() {
        let (_, yahtzee) = crate::game::rules::file::SHIPPED
            .iter()
            .find(|(name, _)| *name == "yahtzee")
            .unwrap();
        let text = yahtzee
            .replace(
                "name = \"yahtzee\"\ntitle = \"Yahtzee\"",
                "name = \"maxi\"\ntitle = \"Maxi\"",
            )
            .replace("name = \"yahtzee\"", "name = \"house\"");
        let rules = crate::game::rules::file::load(&text, None).unwrap();
        let card = ScoreCard::parse(rules, "maxi=50", 0).unwrap();
        let cards = render_cards(&[Seat::human("ann")], &[card]);
        assert!(cards.contains("maxi bonus"), "{cards}");
        assert!(!cards.contains("yahtzee"), "{cards}");
    }
}
