//! Criterion benchmarks of the two-player solve on a subgame of Yacht: both players with the
//! four boxes Ones to Fours filled (eight open each, the pairs of every later ply), solved to
//! the end.
//!
//! - `twoplayer/values`: the values alone (`f32` lanes), what `solve --two-player` does.
//! - `twoplayer/ties`: the values with the chance of a tie carried beside them ([`Duo`]
//!   lanes), what `solve --two-player --ties` does; its ratio to `values` is the price of the
//!   tie chance in the kernel.
//!
//! Run with `cargo bench -p yahtzee-benches --bench twoplayer` (about a minute on two cores).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

use yahtzee_core::game::rules::{Order, RuleSet, Rules};
use yahtzee_core::solve::lane::Duo;
use yahtzee_core::solve::simd::Simd;
use yahtzee_core::solve::two_player::{Game, Start, solve};

fn subgame() -> (Game, Start) {
    let rules = Rules::with_order(RuleSet::YACHT, Order::Any);
    let filled = 0b1111;
    let start = Start {
        first: filled,
        second: filled,
    };
    (
        Game::optimal(rules).expect("Yacht has a two-player solve"),
        start,
    )
}

fn bench_subgame(c: &mut Criterion) {
    let (game, start) = subgame();
    let simd = Simd::detect();
    let mut group = c.benchmark_group("twoplayer");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(15));
    group.bench_function("values", |b| {
        b.iter(|| {
            solve::<f32>(black_box(&game), start, &|_| false, simd, &|_, _| {})
                .expect("the subgame solves")
        })
    });
    group.bench_function("ties", |b| {
        b.iter(|| {
            solve::<Duo<f32>>(black_box(&game), start, &|_| false, simd, &|_, _| {})
                .expect("the subgame solves")
        })
    });
    group.finish();
}

criterion_group!(benches, bench_subgame);
criterion_main!(benches);
