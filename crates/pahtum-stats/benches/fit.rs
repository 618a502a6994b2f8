//! The size the arena must handle comfortably: 100 bots, 100,000 games,
//! fitted jointly with profile-likelihood intervals and the LOS matrix.
//! Target: well under one second in release mode.

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pahtum_stats::{FitOptions, Game, PairMatrix, fit};
use rand::RngExt;

const BOTS: usize = 100;
const GAMES: usize = 100_000;

/// Games between random pairs of bots with ratings spread over 1000 Elo,
/// a fifth of the decisive chances turned into draws.
fn synthetic_games() -> Vec<Game> {
    let mut rng = common::rng(42);
    let ratings: Vec<f64> = (0..BOTS).map(|_| rng.random_range(-500.0..500.0)).collect();
    (0..GAMES)
        .map(|_| {
            let a = rng.random_range(0..BOTS);
            let b = (a + rng.random_range(1..BOTS)) % BOTS;
            let p = common::expected_score(ratings[a] - ratings[b]);
            let score_a = common::game_score(&mut rng, p, 0.2);
            Game { a, b, score_a }
        })
        .collect()
}

fn bench_fit(c: &mut Criterion) {
    let games = synthetic_games();
    let options = FitOptions::default();
    let mut group = c.benchmark_group("fit");
    group.sample_size(10);
    group.bench_function("100 bots, 100k games, intervals and LOS", |b| {
        b.iter(|| {
            let matrix = PairMatrix::from_games(BOTS, black_box(&games)).expect("valid games");
            fit(&matrix, &options).expect("connected pool")
        })
    });
    group.finish();
}

criterion_group!(benches, bench_fit);
criterion_main!(benches);
