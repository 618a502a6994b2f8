//! Speed of the search's parts: playouts, the tree search and the exact
//! endgame.
//!
//! `cargo bench -p pahtum-search --bench search`. The playout and tree groups
//! print playouts per second (elements/s); the endgame group the time of one
//! exact solve (the margin, or only the outcome: win, draw or loss) from
//! positions of 14 and 16 free cells reached by the playout policy.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pahtum_search::board::{Board, WHITE};
use pahtum_search::endgame::Solver;
use pahtum_search::mcts::{Limits, Settings, Tree};
use pahtum_search::playout::playout;
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

/// The empty board of the seeded random layout `seed` with `blocks` blocks.
fn opening(blocks: usize, seed: u64) -> Board {
    Board {
        blocks: pahtum::setup::random_blocks(blocks, seed).unwrap().0,
        stones: [0, 0],
        mover: WHITE,
        blocks_left: 0,
    }
}

/// A position with `free` free cells, reached by the engine's playout policy
/// move by move (the first cell of the stake order at each ply).
fn endgame(seed: u64, free: u32) -> Board {
    let mut board = opening(9, seed);
    while board.free().count_ones() > free {
        let cell = pahtum_search::knowledge::best_stake(&board).unwrap();
        board.play(cell);
    }
    board
}

fn playouts(c: &mut Criterion) {
    let board = opening(9, 1);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let mut group = c.benchmark_group("playout from 9 blocks");
    group.throughput(Throughput::Elements(1));
    group.bench_function("greedy by stake, epsilon 0.03", |b| {
        b.iter(|| playout(black_box(&board), 0.03, &mut rng))
    });
    group.finish();
}

fn tree(c: &mut Criterion) {
    let board = opening(9, 1);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    let mut tree = Tree::default();
    let limits = Limits {
        playouts: Some(10_000),
        deadline: None,
        stop_when_decided: true,
    };
    let mut group = c.benchmark_group("tree search from 9 blocks");
    group.throughput(Throughput::Elements(10_000));
    group.sample_size(20);
    group.measurement_time(std::time::Duration::from_secs(10));
    group.bench_function("10000 playouts", |b| {
        b.iter(|| tree.search(black_box(&board), false, &Settings::default(), &limits, &mut rng))
    });
    group.finish();
}

fn exact(c: &mut Criterion) {
    let mut group = c.benchmark_group("exact endgame, cold table");
    group.sample_size(10);
    for free in [14, 16] {
        let positions: Vec<Board> = (0..8).map(|seed| endgame(seed, free)).collect();
        let mut solver = Solver::new(20);
        group.bench_function(format!("{free} free cells, 8 positions"), |b| {
            b.iter(|| {
                for position in &positions {
                    // A new block layout each time empties the table.
                    black_box(solver.solve(position, None));
                }
            })
        });
        group.bench_function(format!("{free} free cells, 8 positions, outcome only"), |b| {
            b.iter(|| {
                for position in &positions {
                    black_box(solver.outcome(position, None));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, playouts, tree, exact);
criterion_main!(benches);
