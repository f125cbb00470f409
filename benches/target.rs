//! Criterion benchmarks of the target objective: the table and the advice.
//!
//! - `target/solve/yacht`: the whole target table of Yacht (f32, every state, every target).
//! - `target/solve_reduced/yahtzee/5`: the target table of Yahtzee's cards with at most five
//!   boxes open (the last five turns): a part of the full solve small enough to repeat. The
//!   full table takes most of a minute; `scripts/bench-target.sh` times it as a process.
//! - `target/advise/yahtzee/rolls_left_2`, `.../rolls_left_0`: one `advise_target` query for a
//!   position with five boxes open, the tables in memory (its successors' cards read), and
//!   `target/advise_ev/...` the expected-score advice of the same position in the same run.
//!
//! Run with `cargo bench -p yahtzee-benches --bench target`; the figures of a run are kept under `results/`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

use yahtzee_core::game::dice::Dice;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::ScoreCard;
use yahtzee_core::policy::expected::{Position, advise};
use yahtzee_core::policy::target::advise_target;
use yahtzee_core::solve::expected::SolveOptions;
use yahtzee_core::solve::simd::Simd;
use yahtzee_core::solve::vector::{VectorObjective, solve, solve_reduced};
use yahtzee_core::tables::expected::StrategyTable;
use yahtzee_core::tables::vector::VectorTable;

/// Boxes open in the reduced game and in the advised position.
const OPEN: usize = 5;

fn bench_solve(c: &mut Criterion) {
    let mut group = c.benchmark_group("target");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    let yacht = Rules::new(RuleSet::YACHT);
    group.bench_function("solve/yacht", |b| {
        b.iter(|| {
            solve(
                &VectorObjective::<f32>::target(black_box(yacht)),
                Simd::detect(),
                &|_, _| {},
            )
        })
    });
    let yahtzee = Rules::with_order(RuleSet::YAHTZEE, Order::Any);
    group.bench_function(format!("solve_reduced/yahtzee/{OPEN}"), |b| {
        b.iter(|| {
            solve_reduced(
                &VectorObjective::<f32>::target(black_box(yahtzee)),
                OPEN,
                Simd::detect(),
                &|_, _| {},
            )
        })
    });
    group.finish();
}

fn bench_advise(c: &mut Criterion) {
    let rules = Rules::new(RuleSet::YAHTZEE);
    let (ev, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
    // The position's successors have OPEN - 1 boxes open: the reduced game holds them.
    let targets = VectorTable::from(solve_reduced(
        &VectorObjective::<f32>::target(rules),
        OPEN,
        Simd::detect(),
        &|_, _| {},
    ));
    // Eight boxes filled, 120 banked, upper total 48 of 63: five open.
    let card = ScoreCard::parse(
        rules,
        "ones=3,twos=6,threes=9,fours=12,sixes=18,full-house=25,small-straight=30,chance=22",
        0,
    )
    .expect("a valid card");
    let dice: Dice = "24456".parse().expect("valid dice");
    let mut group = c.benchmark_group("target");
    for rolls_left in [2u8, 0] {
        let position = Position {
            card: card.clone(),
            dice,
            rolls_left,
        };
        group.bench_function(format!("advise/yahtzee/rolls_left_{rolls_left}"), |b| {
            b.iter(|| {
                advise_target(&ev, &targets, black_box(&position), 250).expect("a valid position")
            })
        });
        // The peer in the same run: the expected-score advice of the same position (which
        // the target advice also computes, for the expected final score of each option).
        group.bench_function(format!("advise_ev/yahtzee/rolls_left_{rolls_left}"), |b| {
            b.iter(|| advise(&ev, black_box(&position)).expect("a valid position"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_solve, bench_advise);
criterion_main!(benches);
