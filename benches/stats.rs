//! Benchmarks of the statistics: the exact distribution of `yacht` (the whole `stats`
//! computation after the table is solved) and the throughput of optimal simulated games of
//! `yahtzee`. Run with `cargo bench -p yahtzee-benches --bench stats`; what a run measured is kept under
//! `results/`.

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

use yahtzee_core::game::rules::{RuleSet, Rules};
use yahtzee_core::policy::player::Player;
use yahtzee_core::solve::expected::SolveOptions;
use yahtzee_core::stats::exact_distribution;
use yahtzee_core::stats::simulate::simulate;
use yahtzee_core::tables::expected::StrategyTable;

fn solved(set: &'static RuleSet) -> StrategyTable {
    StrategyTable::solve(&Rules::new(set), SolveOptions::default(), &|_, _| {}).0
}

fn exact_yacht(c: &mut Criterion) {
    let table = solved(RuleSet::YACHT);
    let mut group = c.benchmark_group("stats");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("exact distribution, yacht", |b| {
        b.iter(|| exact_distribution(&table, &|_, _| {}))
    });
    group.finish();
}

fn simulate_optimal(c: &mut Criterion) {
    let table = solved(RuleSet::YAHTZEE);
    let rules = *table.rules();
    // Enough games that the shared turn cache fills as in a long run's steady state.
    let games = 20_000u64;
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(15));
    group.throughput(Throughput::Elements(games));
    group.bench_function("optimal games, yahtzee", |b| {
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            simulate(&rules, &Player::Optimal(&table), games, seed, &|_| {})
        })
    });
    group.finish();
}

criterion_group!(benches, exact_yacht, simulate_optimal);
criterion_main!(benches);
