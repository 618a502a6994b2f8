//! How fast is the exact solver? Positions reached by real play at each
//! given number of free cells, each solved cold (a fresh table), with the
//! mean, median and worst time and node count per size.
//!
//! ```text
//! taskset -c 0 cargo run --release -p pahtum-search --example solver_bench -- 16 18 20 22 24
//! ```
//!
//! A position: a seeded random layout of 5 to 13 blocks (the sizes in turn),
//! then stones played by the knowledge (the free cell of highest stake) with
//! one random move in four, until the size is reached. The same seeds give
//! the same positions, so two builds can be compared position by position:
//! the `values` column (the sum of the exact margins) must not change.
//! Times are the CPU time of the solving thread: unlike wall time, they do
//! not grow while other work on a busy machine keeps the thread waiting.
//! Options: `--positions N` (20), `--bits N` (the table, 22), `--outcome`
//! (time the win/draw/loss search instead of the margin), `--repeat N` (1:
//! solve each position N times, each cold, and keep its fastest time, which
//! filters out the time other work on the machine took).

use std::time::Duration;

use cpu_time::ThreadTime;

use pahtum_search::board::{Board, WHITE};
use pahtum_search::endgame::Solver;
use pahtum_search::knowledge::best_stake;

/// A position with `free` free cells reached by play from the layout of
/// seed `seed` with `blocks` blocks.
fn position(seed: u64, blocks: usize, free: u32) -> Board {
    let mut board = Board {
        blocks: pahtum::setup::random_blocks(blocks, seed)
            .expect("a valid block count")
            .0,
        stones: [0, 0],
        mover: WHITE,
        blocks_left: 0,
    };
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    while board.free().count_ones() > free {
        let cell = if next() % 4 == 0 {
            let cells: Vec<usize> = pahtum_search::board::cells_of(board.free()).collect();
            cells[(next() % cells.len() as u64) as usize]
        } else {
            best_stake(&board).expect("a free cell")
        };
        board.play(cell);
    }
    board
}

fn main() {
    let mut sizes = Vec::new();
    let mut count = 20;
    let mut bits = 22;
    let mut outcome = false;
    let mut repeat = 1;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> u64 {
            args.next()
                .and_then(|value| value.parse().ok())
                .unwrap_or_else(|| panic!("{name} takes a number"))
        };
        match arg.as_str() {
            "--positions" => count = number("--positions"),
            "--bits" => bits = number("--bits") as u32,
            "--outcome" => outcome = true,
            "--repeat" => repeat = number("--repeat").max(1),
            size => sizes.push(size.parse::<u32>().expect("a number of free cells")),
        }
    }
    if sizes.is_empty() {
        sizes = vec![16, 18, 20];
    }
    println!(
        "{} solve, {count} positions a size, table 2^{bits}, fastest of {repeat}",
        if outcome { "outcome" } else { "exact margin" }
    );
    println!("free | mean ms | median ms | worst ms (CPU) | mean nodes | median nodes | worst nodes | values");
    for free in sizes {
        let mut times = Vec::new();
        let mut nodes = Vec::new();
        let mut values = 0i64;
        for index in 0..count {
            let seed = u64::from(free) * 1000 + index;
            let board = position(seed, 5 + 2 * (index % 5) as usize, free);
            let mut fastest = Duration::MAX;
            let mut value = 0;
            let mut visited = 0;
            for _ in 0..repeat {
                let mut solver = Solver::new(bits);
                let start = ThreadTime::now();
                (value, visited) = if outcome {
                    let found = solver.outcome(&board, None).expect("no deadline");
                    (found.result as i64, found.nodes)
                } else {
                    let found = solver.solve(&board, None).expect("no deadline");
                    (i64::from(found.value), found.nodes)
                };
                fastest = fastest.min(start.elapsed());
            }
            times.push(fastest);
            nodes.push(visited);
            values += value;
        }
        let n = times.len() as u32;
        let mean = times.iter().sum::<Duration>() / n;
        let mut sorted = times.clone();
        sorted.sort();
        let median = sorted[sorted.len() / 2];
        let worst = sorted[sorted.len() - 1];
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let mean_nodes = nodes.iter().sum::<u64>() / u64::from(n);
        nodes.sort();
        println!(
            "{free} | {:.1} | {:.1} | {:.1} | {mean_nodes} | {} | {} | {values}",
            ms(mean),
            ms(median),
            ms(worst),
            nodes[nodes.len() / 2],
            nodes[nodes.len() - 1],
        );
    }
}
