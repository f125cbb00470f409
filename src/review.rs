//! Game review: read a saved record, check it against the rules, and price every decision of
//! every player against optimal play.
//!
//! [`GameRecord::parse`] replays a record through the referee ([`Game::apply`]) and refuses
//! the first line that is malformed or breaks the rules, naming the line and the reason. Then
//! [`review`] prices each decision with [`evaluate`], that is with `advise` on the same
//! position, so a review, the coach of `yahtzee play` and `yahtzee advise` give the same
//! losses. A choice within 1e-9 of the best is a tie and costs 0, so the bot's own games
//! review at exactly zero loss.
//!
//! The mean loss per decision is the usual measure of a player's proficiency: 0.2 points or
//! less is strong play.

use serde::Serialize;

use crate::advice::AdviceError;
use crate::dice::{DICE, join_faces};
use crate::game::record::HeaderLine;
use crate::game::{
    Choice, Decision, DiceMode, DiceRng, Event, Game, Header, RECORD_FORMAT, SeatKind, evaluate,
};
use crate::table::StrategyTable;

/// A record refused, with the line (from 1) and the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("line {line}: {reason}")]
    Line { line: usize, reason: String },
    #[error("the record is empty: a record starts with a `game` header line")]
    Empty,
}

/// A record checked against the rules.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The header.
    pub header: Header,
    /// Every decision with the line of the record that made it.
    pub decisions: Vec<(usize, Decision)>,
    /// The game as the record leaves it.
    pub game: Game,
    /// True when the record has its `end` line.
    pub ended: bool,
}

impl GameRecord {
    /// Reads and checks a whole record.
    pub fn parse(text: &str) -> Result<GameRecord, RecordError> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty());
        let (first, head_text) = lines.next().ok_or(RecordError::Empty)?;
        let bad = |line: usize, reason: String| RecordError::Line { line, reason };
        let HeaderLine::Game(header) = serde_json::from_str::<HeaderLine>(head_text)
            .map_err(|e| bad(first, format!("not a game header ({e}); the first line of a record is {{\"type\":\"game\", ...}}, see data/README-games.md")))?;
        if header.format != RECORD_FORMAT {
            return Err(bad(
                first,
                format!(
                    "record format {} is not supported: this program reads format {RECORD_FORMAT}",
                    header.format
                ),
            ));
        }
        match (header.dice, header.seed) {
            (DiceMode::Seeded, None) => {
                return Err(bad(first, "seeded dice need a seed".to_string()));
            }
            (DiceMode::Manual, Some(_)) => {
                return Err(bad(
                    first,
                    "manual dice have no seed: write null".to_string(),
                ));
            }
            _ => {}
        }
        if !(header.coach_threshold.is_finite() && header.coach_threshold >= 0.0) {
            return Err(bad(first, "coach_threshold must be 0 or more".to_string()));
        }
        let mut game = Game::from_header(&header).map_err(|e| bad(first, e.0))?;
        let mut seeded = header
            .seed
            .filter(|_| header.dice == DiceMode::Seeded)
            .map(|seed| SeededDice {
                rng: DiceRng::new(seed),
                seed,
                kept: Vec::new(),
            });
        let mut decisions = Vec::new();
        let mut ended = false;
        for (n, text) in lines {
            if ended {
                return Err(bad(n, "nothing may follow the `end` line".to_string()));
            }
            let event: Event = serde_json::from_str(text).map_err(|e| {
                bad(
                    n,
                    format!("not a valid event ({e}); see data/README-games.md"),
                )
            })?;
            if let Event::End { complete, scores } = &event {
                if *complete != game.is_over() {
                    return Err(bad(
                        n,
                        format!(
                            "the end line says complete = {complete} but the cards {} full",
                            if game.is_over() { "are" } else { "are not" }
                        ),
                    ));
                }
                let totals = game.totals();
                if *scores != totals {
                    let show = |s: &[crate::game::FinalScore]| {
                        s.iter()
                            .map(|f| format!("{} {}", f.player, f.total))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    return Err(bad(
                        n,
                        format!(
                            "the final scores are {}, not {}",
                            show(&totals),
                            show(scores)
                        ),
                    ));
                }
                ended = true;
                continue;
            }
            let decision = game.apply(&event).map_err(|e| bad(n, e.0))?;
            if let Some(seeded) = &mut seeded {
                seeded.check(&event).map_err(|e| bad(n, e))?;
            }
            if let Some(d) = decision {
                decisions.push((n, d));
            }
        }
        Ok(GameRecord {
            header,
            decisions,
            game,
            ended,
        })
    }
}

/// One decision priced.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecisionReview {
    /// Line of the record.
    pub line: usize,
    /// The player.
    pub player: String,
    /// The player's turn, from 1.
    pub turn: u32,
    /// The card before the decision, as `yahtzee advise --card` takes it.
    pub card: String,
    /// Yahtzee bonuses on the card (`--yahtzee-bonus`).
    pub yahtzee_bonus: u32,
    /// Points on the card, bonuses included.
    pub banked: u32,
    /// The dice, ascending.
    pub dice: Vec<u8>,
    /// Rolls left (0 for a scoring decision).
    pub rolls_left: u8,
    /// `keep` or `score`.
    pub kind: &'static str,
    /// The choice made, in words.
    pub choice: String,
    /// The best choice, in words.
    pub best: String,
    /// Expected final score after the choice made.
    pub chosen_value: f64,
    /// Expected final score after the best choice.
    pub best_value: f64,
    /// Expected points lost: `best_value - chosen_value`, 0 for a tie.
    pub loss: f64,
}

/// Decisions counted by the size of the mistake.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LossSizes {
    /// Optimal (or tied with the optimum): loss 0.
    pub optimal: usize,
    /// Loss above 0 and below 0.2.
    pub under_0_2: usize,
    /// Loss from 0.2 to below 1.
    pub from_0_2_to_1: usize,
    /// Loss from 1 to below 5.
    pub from_1_to_5: usize,
    /// Loss of 5 or more.
    pub from_5: usize,
}

impl LossSizes {
    fn count(&mut self, loss: f64) {
        // Bounds: 0.2 is the usual mark of strong play; 1 and 5 separate mistakes from blunders.
        match loss {
            l if l <= 0.0 => self.optimal += 1,
            l if l < 0.2 => self.under_0_2 += 1,
            l if l < 1.0 => self.from_0_2_to_1 += 1,
            l if l < 5.0 => self.from_1_to_5 += 1,
            _ => self.from_5 += 1,
        }
    }
}

/// The totals of one player.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerReview {
    /// The player.
    pub player: String,
    /// Person or bot.
    pub kind: SeatKind,
    /// Points on the card at the end of the record.
    pub score: u32,
    /// Number of decisions (keeps and scorings).
    pub decisions: usize,
    /// Sum of the losses: the expected points given away.
    pub total_loss: f64,
    /// Mean loss per decision; 0.2 or less is strong play.
    pub mean_loss: f64,
    /// Decisions by size of the mistake.
    pub by_size: LossSizes,
    /// The three costliest decisions (loss above 0), costliest first.
    pub costliest: Vec<DecisionReview>,
}

/// The review of one record.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Review {
    /// Rule set name.
    pub rules: String,
    /// True under `--upper-first`.
    pub upper_first: bool,
    /// The seed of seeded dice.
    pub seed: Option<u64>,
    /// True when the game was played to the end.
    pub complete: bool,
    /// Per player, in seat order.
    pub players: Vec<PlayerReview>,
    /// Every decision, in the order played.
    pub decisions: Vec<DecisionReview>,
}

/// The dice stream of a seeded record, replayed as `yahtzee play` draws it: five dice for an
/// opening roll and for the first roll of a turn, and one per re-rolled die after a keep.
struct SeededDice {
    rng: DiceRng,
    seed: u64,
    /// The faces of the last keep.
    kept: Vec<u8>,
}

impl SeededDice {
    /// Checks that the dice of `event` are the next ones of the stream.
    fn check(&mut self, event: &Event) -> Result<(), String> {
        let (dice, mut expected) = match event {
            Event::Keep { keep, .. } => {
                self.kept = keep.clone();
                return Ok(());
            }
            Event::Opening { dice, .. }
            | Event::Roll {
                dice,
                rolls_left: 2,
                ..
            } => (dice, self.rng.dice(DICE)),
            Event::Roll { dice, .. } => {
                let mut all = self.kept.clone();
                all.extend(self.rng.dice(DICE - self.kept.len()));
                (dice, all)
            }
            _ => return Ok(()),
        };
        expected.sort_unstable();
        if *dice == expected {
            return Ok(());
        }
        Err(format!(
            "the dice {} are not those of seed {} (it rolls {} here): a record of seeded dice \
             replays exactly; edit its dice only in a game of manual dice",
            join_faces(dice),
            self.seed,
            join_faces(&expected)
        ))
    }
}

/// Prices every decision of `record` with `table` (the table of the record's rules).
pub fn review(table: &StrategyTable, record: &GameRecord) -> Result<Review, AdviceError> {
    let seats = record.game.seats();
    let mut decisions = Vec::with_capacity(record.decisions.len());
    for (line, d) in &record.decisions {
        let e = evaluate(table, d)?;
        let card = &d.position.card;
        decisions.push(DecisionReview {
            line: *line,
            player: seats[d.seat].name.clone(),
            turn: d.turn,
            card: card.to_string(),
            yahtzee_bonus: card.yahtzee_bonuses(),
            banked: card.banked(),
            dice: d.position.dice.faces(),
            rolls_left: d.position.rolls_left,
            kind: match d.choice {
                Choice::Keep(_) => "keep",
                Choice::Score(_) => "score",
            },
            choice: e.chosen,
            best: e.best,
            chosen_value: e.chosen_value,
            best_value: e.best_value,
            loss: e.loss,
        });
    }
    let totals = record.game.totals();
    let players = seats
        .iter()
        .zip(totals)
        .map(|(seat, total)| {
            let mine: Vec<&DecisionReview> =
                decisions.iter().filter(|d| d.player == seat.name).collect();
            let mut by_size = LossSizes::default();
            let mut total_loss = 0.0;
            for d in &mine {
                by_size.count(d.loss);
                total_loss += d.loss;
            }
            let mut costly: Vec<&DecisionReview> =
                mine.iter().copied().filter(|d| d.loss > 0.0).collect();
            // Stable: equal losses keep the order of play.
            costly.sort_by(|a, b| b.loss.total_cmp(&a.loss));
            PlayerReview {
                player: seat.name.clone(),
                kind: seat.kind,
                score: total.total,
                decisions: mine.len(),
                total_loss,
                mean_loss: if mine.is_empty() {
                    0.0
                } else {
                    total_loss / mine.len() as f64
                },
                by_size,
                costliest: costly.into_iter().take(3).cloned().collect(),
            }
        })
        .collect();
    Ok(Review {
        rules: record.header.rules.name().to_string(),
        upper_first: record.header.upper_first,
        seed: record.header.seed,
        complete: record.game.is_over(),
        players,
        decisions,
    })
}

/// The review as text: every decision, then the totals and the costliest decisions per player.
pub fn render_review(r: &Review) -> String {
    let faces = |f: &[u8]| f.iter().map(u8::to_string).collect::<String>();
    let mut s = format!(
        "{}{}{}, {}\n\n",
        r.rules,
        if r.upper_first { " (upper first)" } else { "" },
        r.seed.map_or(String::new(), |x| format!(", seed {x}")),
        if r.complete {
            "complete game"
        } else {
            "unfinished game"
        }
    );
    s.push_str(&format!(
        "{:>5}  {:<10} {:>4} {:>6}  {:<5} {:>4}  {:<32} {:<32} {:>8}\n",
        "line", "player", "turn", "banked", "dice", "left", "choice", "best", "loss"
    ));
    for d in &r.decisions {
        s.push_str(&format!(
            "{:>5}  {:<10} {:>4} {:>6}  {:<5} {:>4}  {:<32} {:<32} {:>8.4}\n",
            d.line,
            d.player,
            d.turn,
            d.banked,
            faces(&d.dice),
            d.rolls_left,
            d.choice,
            d.best,
            d.loss
        ));
    }
    s.push_str(&format!(
        "\n{:<10} {:>5} {:>9} {:>10} {:>9}  {:>7} {:>5} {:>7} {:>5} {:>5}\n",
        "player",
        "score",
        "decisions",
        "total loss",
        "mean loss",
        "optimal",
        "<0.2",
        "0.2-1",
        "1-5",
        ">=5"
    ));
    for p in &r.players {
        let b = &p.by_size;
        s.push_str(&format!(
            "{:<10} {:>5} {:>9} {:>10.4} {:>9.4}  {:>7} {:>5} {:>7} {:>5} {:>5}\n",
            p.player,
            p.score,
            p.decisions,
            p.total_loss,
            p.mean_loss,
            b.optimal,
            b.under_0_2,
            b.from_0_2_to_1,
            b.from_1_to_5,
            b.from_5
        ));
    }
    for p in &r.players {
        if p.costliest.is_empty() {
            continue;
        }
        s.push_str(&format!("\nCostliest decisions of {}:\n", p.player));
        for (i, d) in p.costliest.iter().enumerate() {
            s.push_str(&format!(
                "  {}. line {}, turn {}, dice {}, {} roll(s) left: {} instead of {}, loss {:.4}\n",
                i + 1,
                d.line,
                d.turn,
                faces(&d.dice),
                d.rolls_left,
                d.choice,
                d.best,
                d.loss
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = r#"{"type":"game","format":1,"rules":"yacht","upper_first":false,"seats":[{"name":"ann","kind":"human"}],"dice":"manual","seed":null,"coach_threshold":0.2,"started":"2026-01-01T00:00:00Z"}"#;

    fn parse(lines: &[&str]) -> Result<GameRecord, RecordError> {
        GameRecord::parse(&lines.join("\n"))
    }

    #[test]
    fn reads_a_short_record() {
        let r = parse(&[
            HEAD,
            r#"{"type":"order","players":["ann"]}"#,
            r#"{"type":"roll","player":"ann","turn":1,"dice":[6,6,6,6,6],"rolls_left":2}"#,
            r#"{"type":"keep","player":"ann","turn":1,"keep":[6,6,6,6,6],"rolls_left":2}"#,
            r#"{"type":"score","player":"ann","turn":1,"box":"yacht","points":50,"bonus":0}"#,
            r#"{"type":"end","complete":false,"scores":[{"player":"ann","total":50}]}"#,
        ])
        .unwrap();
        assert_eq!(r.decisions.len(), 2);
        assert_eq!(r.decisions[1].0, 5);
        assert!(r.ended);
    }

    #[test]
    fn refuses_bad_lines_with_their_number() {
        let line = |lines: &[&str]| match parse(lines).unwrap_err() {
            RecordError::Line { line, reason } => (line, reason),
            e => panic!("{e}"),
        };
        let order = r#"{"type":"order","players":["ann"]}"#;
        assert_eq!(parse(&[]).unwrap_err(), RecordError::Empty);
        assert_eq!(line(&["{"]).0, 1);
        assert!(
            line(&[&HEAD.replace("\"format\":1", "\"format\":9")])
                .1
                .contains("format 9")
        );
        let (n, why) = line(&[
            HEAD,
            order,
            r#"{"type":"roll","player":"ann","turn":1,"dice":[1,2,3,4,7],"rolls_left":2}"#,
        ]);
        assert_eq!(n, 3);
        assert!(why.contains("invalid dice"), "{why}");
        let (n, why) = line(&[HEAD, "", order, r#"{"type":"dance"}"#]);
        assert_eq!(n, 4);
        assert!(why.contains("not a valid event"), "{why}");
        let (n, why) = line(&[
            HEAD,
            order,
            r#"{"type":"end","complete":true,"scores":[{"player":"ann","total":0}]}"#,
        ]);
        assert_eq!(n, 3);
        assert!(why.contains("complete"), "{why}");
        let (n, why) = line(&[
            HEAD,
            order,
            r#"{"type":"end","complete":false,"scores":[{"player":"ann","total":7}]}"#,
        ]);
        assert_eq!(n, 3);
        assert!(why.contains("ann 0"), "{why}");
    }

    #[test]
    fn sizes_losses() {
        let mut s = LossSizes::default();
        for l in [0.0, 0.1, 0.2, 0.99, 1.0, 5.0, 12.0] {
            s.count(l);
        }
        assert_eq!(
            s,
            LossSizes {
                optimal: 1,
                under_0_2: 1,
                from_0_2_to_1: 2,
                from_1_to_5: 1,
                from_5: 2
            }
        );
    }
}
