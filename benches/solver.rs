//! Criterion benchmarks of the solver, the table file and the advice.
//!
//! - `solve/yahtzee`, `solve/yacht`: a full solve from the full cards down to the empty card,
//!   on the default rayon pool (one thread per core, or `RAYON_NUM_THREADS`).
//! - `solve_depth/yahtzee/6`: one depth layer alone. The depths above it are solved once in
//!   setup; each iteration solves depth 6 into a fresh copy of those values, so it measures
//!   one layer of the kernel without the cost of the layers before it.
//! - `table/load/yahtzee`: `StrategyTable::load` of a saved table (read, checksum, layout).
//! - `advise/yahtzee/rolls_left_2`, `advise/yahtzee/rolls_left_0`: one advice query for a
//!   mid-game position, against a table already in memory.
//!
//! Run with `cargo bench -p yahtzee-benches --bench solver` (all of it takes about two and a half minutes on two cores), or
//! filter, e.g. `cargo bench -p yahtzee-benches --bench solver -- advise`. Figures from a run are kept under
//! `results/` with the machine, the commit and the date.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

use yahtzee_core::game::dice::Dice;
use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::game::state::ScoreCard;
use yahtzee_core::policy::expected::{Position, advise};
use yahtzee_core::solve::expected::{SolveOptions, Solver};
use yahtzee_core::tables::expected::StrategyTable;

/// The depth benchmarked alone: 6 filled boxes is one of the two widest layers of Yahtzee
/// (C(13, 6) = 1716 of the 8192 box masks), so it weighs most in a full solve.
const LAYER: usize = 6;

fn rules(set: &'static RuleSet) -> Rules {
    Rules::with_order(set, Order::Any)
}

fn bench_full_solve(c: &mut Criterion) {
    let mut group = c.benchmark_group("solve");
    // A full solve takes most of a second: ten samples within a bounded time are enough to see
    // a 5% change, and keep the whole group near half a minute on a busy two-core machine.
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(12));
    for set in [RuleSet::YAHTZEE, RuleSet::YACHT] {
        let rules = rules(set);
        group.bench_function(set.name(), |b| {
            b.iter(|| {
                yahtzee_core::solve::expected::solve(
                    black_box(&rules),
                    SolveOptions::default(),
                    &|_, _| {},
                )
            })
        });
    }
    group.finish();
}

fn bench_one_depth(c: &mut Criterion) {
    let rules = rules(RuleSet::YAHTZEE);
    let solver = Solver::new(&rules, SolveOptions::default());
    let mut values = solver.initial_values();
    for depth in (LAYER + 1..solver.depths()).rev() {
        solver.solve_depth(depth, &mut values);
    }
    let mut group = c.benchmark_group("solve_depth");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(8));
    group.bench_function(format!("yahtzee/{LAYER}"), |b| {
        // The copy of the values (8 MB) is made outside the timed part.
        b.iter_batched_ref(
            || values.clone(),
            |v| solver.solve_depth(black_box(LAYER), v),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn bench_table_load(c: &mut Criterion) {
    let rules = rules(RuleSet::YAHTZEE);
    let (table, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("yahtzee.table");
    table.save(&path).expect("the table saves");
    let mut group = c.benchmark_group("table");
    group.sample_size(20);
    group.bench_function("load/yahtzee", |b| {
        b.iter(|| StrategyTable::load(black_box(&path), &rules).expect("the table loads"))
    });
    group.finish();
}

fn bench_advise(c: &mut Criterion) {
    let rules = rules(RuleSet::YAHTZEE);
    let (table, _) = StrategyTable::solve(&rules, SolveOptions::default(), &|_, _| {});
    // A mid-game card: six boxes filled, upper total 18 of 63, Yahtzee box open.
    let card = ScoreCard::parse(
        rules,
        "ones=3,twos=6,threes=9,full-house=25,small-straight=30,chance=22",
        0,
    )
    .expect("a valid card");
    let dice: Dice = "24456".parse().expect("valid dice");
    let mut group = c.benchmark_group("advise");
    for rolls_left in [2u8, 0] {
        let position = Position {
            card: card.clone(),
            dice,
            rolls_left,
        };
        group.bench_function(format!("yahtzee/rolls_left_{rolls_left}"), |b| {
            b.iter(|| advise(&table, black_box(&position)).expect("a valid position"))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    bench_full_solve,
    bench_one_depth,
    bench_table_load,
    bench_advise
);
criterion_main!(benches);
