//! Speed of the rules: scoring, random playouts and move generation.
//!
//! `cargo bench -p pahtum --bench rules`. Criterion prints the time per
//! iteration; the playout groups also print playouts per second (elements/s).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pahtum::playout::random_playout;
use pahtum::setup::random_blocks;
use pahtum::{Action, Game, Position};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Full boards from random playouts, to score.
fn full_boards(n: usize) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(1);
    (0..n as u64)
        .map(|seed| pahtum::playout::random_fill(&Position::new(random_blocks(5, seed).unwrap()), &mut rng))
        .collect()
}

fn scoring(c: &mut Criterion) {
    let boards = full_boards(1024);
    let mut i = 0;
    c.bench_function("score a full board", |b| {
        b.iter(|| {
            i = (i + 1) & 1023;
            black_box(&boards[i]).score()
        })
    });
}

fn playouts(c: &mut Criterion) {
    let starts: Vec<Position> = (0..1024)
        .map(|seed| Position::new(random_blocks(5, seed).unwrap()))
        .collect();
    let mut rng = SmallRng::seed_from_u64(2);
    let mut group = c.benchmark_group("random playout from 5 blocks");
    group.throughput(Throughput::Elements(1));
    let mut i = 0;
    group.bench_function("shuffle and score", |b| {
        b.iter(|| {
            i = (i + 1) & 1023;
            random_playout(black_box(&starts[i]), &mut rng)
        })
    });
    group.bench_function("new seeded layout, shuffle and score", |b| {
        let mut seed = 0u64;
        b.iter(|| {
            seed += 1;
            random_playout(&Position::new(random_blocks(5, black_box(seed)).unwrap()), &mut rng)
        })
    });
    group.bench_function("move by move through Game::play", |b| {
        b.iter(|| {
            i = (i + 1) & 1023;
            let mut game = Game::with_blocks(starts[i].blocks(), true).unwrap();
            while let Some(cell) = nth_free(&game, &mut rng) {
                game.play(Action::Stone(cell)).unwrap();
                if game.phase() == pahtum::Phase::PieDecision {
                    game.play(Action::Pie(rng.next_u32() & 1 == 0)).unwrap();
                }
            }
            game.score()
        })
    });
    group.finish();
}

fn nth_free(game: &Game, rng: &mut SmallRng) -> Option<pahtum::Cell> {
    let free = game.position().free();
    let n = free.len() as u64;
    (n > 0).then(|| {
        free.cells()
            .nth(((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as usize)
            .unwrap()
    })
}

fn move_generation(c: &mut Criterion) {
    let game = Game::with_blocks(random_blocks(5, 9).unwrap(), false).unwrap();
    c.bench_function("legal moves of a fresh 5-block board (44 moves)", |b| {
        b.iter(|| black_box(&game).legal_moves())
    });
}

criterion_group!(benches, scoring, playouts, move_generation);
criterion_main!(benches);
