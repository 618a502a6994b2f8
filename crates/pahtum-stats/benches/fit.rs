//! The sizes the arena must handle comfortably: 100 bots and 100,000 games
//! (a large tournament), and 200 bots and 200,000 games (a large league,
//! every two bots having met), fitted jointly with profile-likelihood
//! intervals and the LOS matrix. Target: well under one second in release
//! mode.

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pahtum_stats::{FitOptions, Game, PairMatrix, fit};
use rand::RngExt;

/// Games between random pairs of bots with ratings spread over 1000 Elo,
/// a fifth of the decisive chances turned into draws.
fn synthetic_games(bots: usize, games: usize) -> Vec<Game> {
    let mut rng = common::rng(42);
    let ratings: Vec<f64> = (0..bots).map(|_| rng.random_range(-500.0..500.0)).collect();
    (0..games)
        .map(|_| {
            let a = rng.random_range(0..bots);
            let b = (a + rng.random_range(1..bots)) % bots;
            let p = common::expected_score(ratings[a] - ratings[b]);
            let score_a = common::game_score(&mut rng, p, 0.2);
            Game { a, b, score_a }
        })
        .collect()
}

fn bench_fit(c: &mut Criterion) {
    let options = FitOptions::default();
    let mut group = c.benchmark_group("fit");
    group.sample_size(10);
    for (bots, games) in [(100, 100_000), (200, 200_000)] {
        let played = synthetic_games(bots, games);
        let name = format!("{bots} bots, {}k games, intervals and LOS", games / 1000);
        group.bench_function(name, |b| {
            b.iter(|| {
                let matrix = PairMatrix::from_games(bots, black_box(&played)).expect("valid games");
                fit(&matrix, &options).expect("connected pool")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_fit);
criterion_main!(benches);
