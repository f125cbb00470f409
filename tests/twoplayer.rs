//! Two-player Yacht solved exactly: checked against the brute-force recursion on reduced
//! games (in `f64`, to 1e-9), for its invariants (decided positions, one box left each,
//! both players on the expected-score policy), and the command line.

use std::collections::HashMap;
use std::sync::Arc;

use yahtzee_core::game::rules::{BoxMask, Order, RuleSet, Rules};
use yahtzee_core::game::state::State;
use yahtzee_core::solve::lane::Duo;
use yahtzee_core::solve::simd::Simd;
use yahtzee_core::solve::two_player::{Game, Player, Solution, Start, solve};

use crate::brute::{BruteForce, Outcome, TwoPlayerPolicy};

/// The mask of the boxes named `names`.
fn mask(rules: &Rules, names: &[&str]) -> BoxMask {
    names
        .iter()
        .map(|n| {
            let i = rules
                .boxes()
                .iter()
                .position(|c| c.name == *n)
                .unwrap_or_else(|| panic!("no box {n}"));
            1 << i
        })
        .fold(0, |a, b| a | b)
}

/// The card with every box but `open` filled.
pub fn all_but(rules: &Rules, open: &[&str]) -> BoxMask {
    rules.full_mask() & !mask(rules, open)
}

fn state(filled: BoxMask) -> State {
    State {
        filled,
        upper: 0,
        yahtzee_50: false,
    }
}

/// The exact (no tail) `f64` solution of the subgame from `start`, every ply kept.
pub fn exact(game: &Game, start: Start) -> Solution<f64> {
    let mut game = game.clone();
    game.tail = 0.0;
    solve(&game, start, &|_| true, Simd::detect(), &|_, _| {}).expect("the subgame solves")
}

/// The reduced games of the brute-force checks: (rules, the first player's open boxes, the
/// second's), the first to move with as many open as the second, or the second to move with
/// one box more open.
fn reduced_games() -> [(Rules, &'static [&'static str], &'static [&'static str]); 6] {
    let yacht = Rules::with_order(RuleSet::YACHT, Order::Any);
    let upper_first = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
    [
        (yacht, &["ones", "yacht"], &["sixes", "choice"]),
        (
            yacht,
            &["full-house", "little-straight"],
            &["four-of-a-kind", "big-straight"],
        ),
        (yacht, &["twos", "choice"], &["threes", "yacht", "choice"]),
        (yacht, &["yacht"], &["ones", "yacht"]),
        (upper_first, &["choice", "yacht"], &["full-house", "choice"]),
        (
            yacht,
            &["ones", "twos", "yacht"],
            &["ones", "threes", "choice"],
        ),
    ]
}

/// Leads of the brute-force checks, from nearly lost to nearly won, with the one-point
/// margins around a tie (each lead is a brute force of its own: seven keep the test short).
const LEADS: [i64; 7] = [-31, -10, -1, 0, 1, 12, 55];

/// The exact (no tail) `f64` solution of the subgame from `start` with the chances of a tie
/// carried beside the values.
fn exact_with_ties(game: &Game, start: Start) -> Solution<Duo<f64>> {
    let mut game = game.clone();
    game.tail = 0.0;
    solve(&game, start, &|_| false, Simd::detect(), &|_, _| {}).expect("the subgame solves")
}

/// The brute force's outcome for the first player of the position `start` with the first
/// player's lead `lead`, the players playing `policies`.
pub fn brute_outcome(
    brute: &mut BruteForce,
    memo: &mut HashMap<(State, State, i64), Outcome>,
    policies: [TwoPlayerPolicy; 2],
    start: Start,
    lead: i64,
) -> Outcome {
    if start.first.count_ones() == start.second.count_ones() {
        brute.two_player_outcome(
            memo,
            policies,
            state(start.first),
            state(start.second),
            lead,
        )
    } else {
        let o = brute.two_player_outcome(
            memo,
            policies,
            state(start.second),
            state(start.first),
            -lead,
        );
        Outcome {
            value: 1.0 - o.value,
            ..o
        }
    }
}

/// The game of `policies` on `rules` (the expected-score player on the shared table).
fn game_of(rules: Rules, policies: [TwoPlayerPolicy; 2]) -> Game {
    let player = |p: TwoPlayerPolicy| match p {
        TwoPlayerPolicy::Optimal => Player::Optimal,
        TwoPlayerPolicy::Expected => {
            Player::Expected(Arc::new(crate::util::table(rules.set, rules.order).clone()))
        }
    };
    Game::new(rules, player(policies[0]), player(policies[1])).unwrap()
}

#[test]
fn two_player_agrees_with_brute_force_on_reduced_games() {
    use TwoPlayerPolicy::{Expected, Optimal};
    // Options of equal value (in exact arithmetic) may carry different tie chances, and a
    // solver's choice between them falls to the last bits of its arithmetic: the brute force
    // spans the tie chances of such choices, and the solve's must lie in that span.
    let (mut largest_tie, mut widest, mut spanned, mut compared) = (0.0f64, 0.0f64, 0, 0);
    for (i, (rules, first_open, second_open)) in reduced_games().into_iter().enumerate() {
        let start = Start {
            first: all_but(&rules, first_open),
            second: all_but(&rules, second_open),
        };
        // Both optimal in every game; the pairings with the expected-score policy in the two
        // smallest (the brute force of the larger ones takes most of a minute).
        let mut pairings = vec![[Optimal, Optimal]];
        if i == 3 || i == 4 {
            pairings.extend([
                [Expected, Optimal],
                [Optimal, Expected],
                [Expected, Expected],
            ]);
        }
        let mut brute = BruteForce::new(rules);
        // The plain solve of both optimal players (values only, no tie lanes): checked
        // against the same brute force.
        let plain = exact(&Game::optimal(rules).unwrap(), start);
        for policies in pairings {
            let solution = exact_with_ties(&game_of(rules, policies), start);
            let mut memo = HashMap::new();
            for lead in LEADS {
                let o = brute_outcome(&mut brute, &mut memo, policies, start, lead);
                let value = solution.value(start.first, start.second, lead).unwrap();
                let tie = solution.tie(start.first, start.second, lead).unwrap();
                let what = format!(
                    "{} {first_open:?} against {second_open:?}, {policies:?}, lead {lead}",
                    rules.label()
                );
                assert!(
                    (value - o.value).abs() < 1e-9,
                    "{what}: value {value}, brute force {}",
                    o.value
                );
                if policies == [Optimal, Optimal] {
                    let got = plain
                        .value(start.first, start.second, lead)
                        .expect("the start's ply is kept");
                    assert!(
                        (got - o.value).abs() < 1e-9,
                        "{what}: plain solve {got}, brute force {}",
                        o.value
                    );
                }
                assert!(
                    tie >= o.tie_low - 1e-9 && tie <= o.tie_high + 1e-9,
                    "{what}: tie {tie}, brute force {}..{}",
                    o.tie_low,
                    o.tie_high
                );
                // The three outcomes: each a chance, together certain.
                let (wins, losses) = (value - tie / 2.0, 1.0 - value - tie / 2.0);
                for p in [wins, losses, tie] {
                    assert!((-1e-12..=1.0 + 1e-12).contains(&p), "{what}: {p}");
                }
                assert!((wins + losses + tie - 1.0).abs() < 1e-12, "{what}");
                if policies == [Expected, Expected] {
                    assert_eq!(
                        o.tie_low, o.tie_high,
                        "{what}: the policy has no choice left"
                    );
                }
                largest_tie = largest_tie.max(o.tie_high);
                widest = widest.max(o.tie_high - o.tie_low);
                spanned += usize::from(o.tie_high - o.tie_low > 1e-12);
                compared += 1;
            }
        }
    }
    eprintln!(
        "tie chances: {compared} compared, {spanned} spanning a range, the widest {widest:e}, the largest chance {largest_tie}"
    );
    // Ties are not rare in these endings: the check compares real chances, not zeros. Equal
    // values with different tie chances are common (a sure tie is worth an even chance of
    // a win or a loss), so the tie chance is the solve's own policy's; measured: about half
    // the positions span a range, the widest 7.4e-4.
    assert!(largest_tie > 0.05, "{largest_tie}");
    assert!(
        spanned > 0 && widest < 1e-3,
        "{spanned} spans, the widest {widest}"
    );
}

#[test]
fn two_player_tie_lanes_leave_the_values_unchanged() {
    let rules = Rules::with_order(RuleSet::YACHT, Order::Any);
    let game = Game::optimal(rules).unwrap();
    let start = Start {
        first: all_but(&rules, &["ones", "sixes", "choice", "yacht"]),
        second: all_but(&rules, &["twos", "threes", "fives", "choice", "yacht"]),
    };
    let plain = solve::<f32>(&game, start, &|_| false, Simd::detect(), &|_, _| {}).unwrap();
    let duo = solve::<Duo<f32>>(&game, start, &|_| false, Simd::detect(), &|_, _| {}).unwrap();
    let mut tied = 0.0;
    for lead in -150..150 {
        let a = plain.value(start.first, start.second, lead).unwrap();
        let b = duo.value(start.first, start.second, lead).unwrap();
        assert_eq!(a.to_bits(), b.to_bits(), "lead {lead}");
        tied += duo.tie(start.first, start.second, lead).unwrap();
    }
    assert!(tied > 0.1, "{tied}");
    assert_eq!(plain.lanes_computed, duo.lanes_computed);
}

#[test]
fn two_player_decided_positions_are_won_or_lost() {
    let rules = Rules::with_order(RuleSet::YACHT, Order::Any);
    // The first player to move with ones and twos open (at most 15 more), the second with
    // fours and yacht (at most 70): a lead above 70 wins for sure, one below -15 loses.
    let start = Start {
        first: all_but(&rules, &["ones", "twos"]),
        second: all_but(&rules, &["fours", "yacht"]),
    };
    let game = Game::optimal(rules).unwrap();
    let solution = solve::<f32>(&game, start, &|_| false, Simd::detect(), &|_, _| {}).unwrap();
    for lead in [71, 72, 100, 1000] {
        assert_eq!(solution.value(start.first, start.second, lead), Some(1.0));
    }
    for lead in [-16, -17, -50, -1000] {
        assert_eq!(solution.value(start.first, start.second, lead), Some(0.0));
    }
    // In between, neither: at lead 70 the second can still tie with 20 + 50.
    let v = solution.value(start.first, start.second, 70).unwrap();
    assert!(v > 0.99 && v < 1.0, "{v}");
    let v = solution.value(start.first, start.second, -15).unwrap();
    assert!(v > 0.0 && v < 0.01, "{v}");
}

/// The chance of a Yacht (five of a kind) in one turn of three rolls, keeping the most
/// common face: a direct chain over how many dice show it, each throw enumerated.
fn yacht_chance() -> f64 {
    // p[m][n]: from m matching dice, the chance of n after one throw of the 5 - m others
    // (keeping the most common face; from 0 the first throw sets it).
    let mut chance = [[0.0f64; 6]; 6];
    for (m, row) in chance.iter_mut().enumerate() {
        let thrown = 5 - m as u32;
        let total = 6f64.powi(thrown as i32);
        for code in 0..6u32.pow(thrown) {
            let mut c = code;
            let mut counts = [0usize; 6];
            for _ in 0..thrown {
                counts[(c % 6) as usize] += 1;
                c /= 6;
            }
            let n = if m == 0 {
                *counts.iter().max().unwrap()
            } else {
                // The kept face is face 0 here; the others may overtake it.
                (m + counts[0]).max(*counts[1..].iter().max().unwrap())
            };
            row[n] += 1.0 / total;
        }
    }
    let mut dist = [0.0f64; 6];
    dist[0] = 1.0;
    for _ in 0..3 {
        let mut next = [0.0f64; 6];
        for m in 0..6 {
            if m == 5 {
                next[5] += dist[5];
                continue;
            }
            for n in 0..6 {
                next[n] += dist[m] * chance[m][n];
            }
        }
        dist = next;
    }
    dist[5]
}

#[test]
fn two_player_one_box_left_each_is_a_direct_enumeration() {
    let rules = Rules::with_order(RuleSet::YACHT, Order::Any);
    // Only the Yacht box left for each: each scores 50 with chance q, else 0, and the best
    // play of both is to go for five of a kind, whatever the lead.
    let q = yacht_chance();
    assert!((q - 0.046_028_642_5).abs() < 1e-9, "{q}");
    let start = Start {
        first: all_but(&rules, &["yacht"]),
        second: all_but(&rules, &["yacht"]),
    };
    let solution = exact(&Game::optimal(rules).unwrap(), start);
    let direct = |lead: i64| -> f64 {
        // The first player's final lead: lead + 50 (x - y) for x, y the two Yachts.
        let mut v = 0.0;
        for (x, px) in [(0, 1.0 - q), (1, q)] {
            for (y, py) in [(0, 1.0 - q), (1, q)] {
                let d = lead + 50 * (x - y);
                let u = match d.cmp(&0) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                };
                v += px * py * u;
            }
        }
        v
    };
    for lead in [-60, -50, -49, -10, -1, 0, 1, 10, 49, 50, 51] {
        let got = solution.value(start.first, start.second, lead).unwrap();
        assert!(
            (got - direct(lead)).abs() < 1e-12,
            "lead {lead}: solved {got}, direct {}",
            direct(lead)
        );
    }
}

#[test]
fn two_player_both_on_the_expected_score_policy_split_evenly() {
    let rules = Rules::with_order(RuleSet::YACHT, Order::Any);
    let ev = Arc::new(crate::util::table(RuleSet::YACHT, Order::Any).clone());
    let game = Game::new(
        rules,
        Player::Expected(ev.clone()),
        Player::Expected(ev.clone()),
    )
    .unwrap();
    // Both with the same four boxes open and no lead: their final scores are independent
    // and identically distributed, so each wins as often as the other.
    let open = all_but(&rules, &["ones", "fours", "full-house", "yacht"]);
    let start = Start {
        first: open,
        second: open,
    };
    let solution = exact(&game, start);
    let v = solution.value(open, open, 0).unwrap();
    assert!((v - 0.5).abs() < 1e-12, "{v}");
    // Against the optimal second player the first player does worse than half.
    let game = Game::new(rules, Player::Expected(ev), Player::Optimal).unwrap();
    let v = exact(&game, start).value(open, open, 0).unwrap();
    assert!(v < 0.5 - 1e-4, "{v}");
}

/// A card of `rules` with the boxes `filled` holding `points` each (a legal score of every
/// Yacht box but the straights and the Yacht, which hold 0).
fn card_text(rules: &Rules, filled: BoxMask, points: &[(&str, u32)]) -> String {
    rules
        .boxes()
        .iter()
        .enumerate()
        .filter(|(i, _)| filled & (1 << i) != 0)
        .map(|(_, c)| {
            // Every box can hold 0 but Choice, at least 5.
            let least = if c.name == "choice" { 5 } else { 0 };
            let p = points
                .iter()
                .find(|(n, _)| *n == c.name)
                .map_or(least, |&(_, p)| p);
            format!("{}={p}", c.name)
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn two_player_advice_averages_to_the_solved_value() {
    use yahtzee_core::game::dice::Dice;
    use yahtzee_core::game::state::ScoreCard;
    use yahtzee_core::policy::expected::Position;
    use yahtzee_core::policy::two_player::{TwoPlayerPosition, advise_two_player, next_ply};
    let rules = Rules::with_order(RuleSet::YACHT, Order::Any);
    let ev = crate::util::table(RuleSet::YACHT, Order::Any);
    // You, the second player, with three boxes open; the opponent with two; you trail by 9.
    let own = all_but(&rules, &["twos", "full-house", "choice"]);
    let other = all_but(&rules, &["sixes", "yacht"]);
    let card = ScoreCard::parse(rules, &card_text(&rules, own, &[]), 0).unwrap();
    let lead = -9;
    let at = |dice: Dice| TwoPlayerPosition {
        position: Position {
            card: card.clone(),
            dice,
            rolls_left: 2,
        },
        opponent: other,
        lead,
    };
    let next = next_ply(
        rules,
        &at(Dice::from_faces(&[1, 2, 3, 4, 5]).unwrap()),
        None,
        Simd::detect(),
        &|_, _| {},
    )
    .unwrap();
    // The mean over the opening rolls of the best option's value is the value of the
    // position before the roll, which the solve gives (for the first player, here the
    // opponent).
    let lattice = yahtzee_core::game::dice::Lattice::get();
    let mut mean = 0.0;
    for dice in Dice::all() {
        let advice = advise_two_player(ev, &next, &at(dice)).unwrap();
        assert_eq!(advice.you_are, "second");
        // Ranked best first, the losses from the best.
        assert!(
            advice
                .options
                .windows(2)
                .all(|w| w[0].value >= w[1].value - 1e-9)
        );
        assert_eq!(advice.options[0].loss, 0.0);
        mean += lattice.roll_probability[dice.index() - yahtzee_core::game::dice::FIRST_ROLL]
            * advice.value;
    }
    let game = Game::optimal(rules).unwrap();
    let start = Start {
        first: other,
        second: own,
    };
    let solved = solve::<f32>(&game, start, &|_| false, Simd::detect(), &|_, _| {}).unwrap();
    let first = solved.value(other, own, -lead).unwrap();
    assert!(
        ((1.0 - first) - mean).abs() < 1e-6,
        "advice {mean}, solve {}",
        1.0 - first
    );
}

#[test]
fn two_player_advice_with_the_last_box_knows_the_outcome() {
    use crate::util::{run_advise, stdout};
    let rules = Rules::with_order(RuleSet::YACHT, Order::Any);
    // You are second with only Choice open, the opponent has finished with 50: 20 behind.
    let own = card_text(&rules, all_but(&rules, &["choice"]), &[("sixes", 30)]);
    // The two-player advice of `dice` with no roll left, and `extra` flags.
    let last_roll = |dice: &str, extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "--two-player",
            "--card",
            &own,
            "--opponent-final",
            "50",
            "--dice",
            dice,
            "--rolls-left",
            "0",
            "--json",
        ];
        args.extend_from_slice(extra);
        let o = run_advise(RuleSet::YACHT, &args);
        assert!(o.status.success(), "{}", crate::util::stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    for (dice, value) in [("55555", 1.0), ("44444", 0.5), ("12345", 0.0)] {
        let v = last_roll(dice, &[]);
        assert_eq!(v["you_are"], "second");
        assert_eq!(v["lead"], -20);
        assert_eq!(v["value"], value, "{dice}: {v}");
        assert_eq!(v["options"][0]["category"], "choice");
    }
    // With --lead the cards' points are not the score: 30 behind, 25 points lose.
    let v = last_roll("55555", &["--lead", "-30"]);
    assert_eq!(v["value"], 0.0, "{v}");
}

#[test]
fn two_player_bad_input_is_refused() {
    use crate::util::{assert_bad_input, run};
    let rules = Rules::with_order(RuleSet::YACHT, Order::Any);
    let two = card_text(&rules, mask(&rules, &["ones", "twos"]), &[]);
    let one = card_text(&rules, mask(&rules, &["ones"]), &[]);
    let advise = |extra: &[&str]| {
        let mut args = vec!["advise", "--rules", "yacht", "--dice", "12345"];
        args.extend_from_slice(extra);
        run(RuleSet::YACHT, Order::Any, &args)
    };
    // Cards that cannot meet between turns: two boxes against none.
    assert_bad_input(
        &advise(&["--two-player", "--card", &two, "--opponent", ""]),
        "you have filled 2 boxes and the opponent 0",
    );
    assert_bad_input(
        &advise(&[
            "--two-player",
            "--card",
            &one,
            "--opponent",
            &one,
            "--opponent",
            &one,
        ]),
        "exactly one --opponent",
    );
    assert_bad_input(&advise(&["--two-player"]), "exactly one --opponent");
    assert_bad_input(&advise(&["--lead", "3"]), "--two-player");
    // Rule sets with bonuses are not solved for two.
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &["solve", "--rules", "yatzy", "--two-player"],
    );
    assert_bad_input(&o, "only for rule sets without bonuses (yacht)");
    let o = run(
        RuleSet::YACHT,
        Order::Any,
        &[
            "advise",
            "--rules",
            "yahtzee",
            "--two-player",
            "--opponent",
            "",
            "--dice",
            "12345",
        ],
    );
    assert_bad_input(&o, "only for rule sets without bonuses (yacht)");
    let o = run(RuleSet::YACHT, Order::Any, &["solve", "--first", "ev"]);
    assert_bad_input(&o, "--two-player");
    // A card of 13 boxes without bonuses: its table would not fit, refused before any solve.
    let dir = crate::util::temp_dir();
    let yacht = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/rules/yacht.toml"
    ))
    .unwrap();
    let thirteen = yacht.replacen("name = \"yacht\"\n", "name = \"yacht-13\"\n", 1)
        + "\n[[box]]\nname = \"second-choice\"\ntitle = \"Second choice\"\nkind = \"chance\"\n";
    let path = crate::util::join(dir.path(), "yacht-13.toml");
    std::fs::write(&path, thirteen).unwrap();
    let path = crate::util::path_str(&path);
    let o = crate::util::yahtzee_in(dir.path())
        .args(["solve", "--rules", &path, "--two-player"])
        .output()
        .unwrap();
    assert_bad_input(&o, "grows about fourfold with each box past 12");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no table written"
    );
}

#[test]
fn two_player_table_of_early_plies_reads_back_and_refuses_damage() {
    use yahtzee_core::solve::two_player::solve_plies;
    use yahtzee_core::tables::TableError;
    use yahtzee_core::tables::two_player::EarlyTable;
    let rules = Rules::with_order(RuleSet::YACHT, Order::Any);
    let game = Game::optimal(rules).unwrap();
    // The last plies of the whole game (the first turns' table holds plies 1 to 8 the same
    // way; these solve in a second).
    let solution = solve_plies::<f32>(
        &game,
        Start::NEW,
        19,
        &|p| (19..=21).contains(&p),
        Simd::detect(),
        &|_, _| {},
    )
    .unwrap();
    let dir = crate::util::temp_dir();
    let path = dir.path().join("two.table");
    solution.save_plies(19, 21, game.tail, &path).unwrap();
    let early = EarlyTable::load(&path, &rules).unwrap();
    assert_eq!(early.plies(), 19..=21);
    let mut compared = 0;
    for p in 19..=21 {
        let ply = solution.ply(p).unwrap();
        let (movers, others) = ply.cards();
        for &m in movers.iter().step_by(5) {
            let read = early.mover_ply(p, m).unwrap().unwrap();
            for &o in others {
                for y in (-70..70).step_by(3) {
                    assert_eq!(read.after(m, o, y), ply.after(m, o, y));
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 10_000, "{compared}");
    assert!(early.mover_ply(18, 0).unwrap().is_none());
    // The table of other rules.
    let other = Rules::with_order(RuleSet::YACHT, Order::UpperFirst);
    assert!(matches!(
        EarlyTable::load(&path, &other),
        Err(TableError::WrongRules { .. })
    ));
    // A damaged value: the index loads, the mover card holding it is refused.
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let early = EarlyTable::load(&path, &rules).unwrap();
    let (movers, _) = solution.ply(21).unwrap().cards();
    let last_mover = *movers.last().unwrap();
    assert!(matches!(
        early.mover_ply(21, last_mover),
        Err(TableError::Checksum { .. })
    ));
    // Cut short: refused at load.
    std::fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
    assert!(matches!(
        EarlyTable::load(&path, &rules),
        Err(TableError::Truncated { .. })
    ));
}

#[test]
fn two_player_advice_refuses_a_file_that_is_not_a_table() {
    use crate::util::{assert_bad_input, run_advise};
    let dir = crate::util::temp_dir();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "not a table").unwrap();
    // A new game reads the first turns' table.
    let o = run_advise(
        RuleSet::YACHT,
        &[
            "--two-player",
            "--opponent",
            "",
            "--dice",
            "12345",
            "--two-player-table",
            path.to_str().unwrap(),
        ],
    );
    assert_bad_input(&o, "not a yahtzee table");
    assert_eq!(std::fs::read(&path).unwrap(), b"not a table");
}

#[test]
fn two_player_is_the_same_at_any_thread_count() {
    let rules = Rules::with_order(RuleSet::YACHT, Order::Any);
    let game = Game::optimal(rules).unwrap();
    let start = Start {
        first: all_but(&rules, &["ones", "sixes", "choice", "yacht"]),
        second: all_but(&rules, &["twos", "threes", "fives", "choice", "yacht"]),
    };
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| solve::<f32>(&game, start, &|_| false, Simd::detect(), &|_, _| {}).unwrap())
    };
    let (one, two) = (on(1), on(2));
    assert!(one.lanes_computed > 10_000);
    for lead in -150..150 {
        let a = one.value(start.first, start.second, lead).unwrap();
        let b = two.value(start.first, start.second, lead).unwrap();
        assert_eq!(a.to_bits(), b.to_bits(), "lead {lead}");
    }
}
