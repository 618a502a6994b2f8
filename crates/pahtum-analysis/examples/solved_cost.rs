//! What `adjudicate = "solved"` costs a game: one exact solve ([`pahtum_analysis::perfect_play::Solved`])
//! when its free cells are first reached, timed by the number of free cells, on positions of random play.
//!
//! `cargo run --release -p pahtum-analysis --example solved_cost [POSITIONS]` (default 50 for each count of
//! 12, 14, 16, 18 and 20 free cells): the mean and the slowest solve. Random play leaves positions less
//! settled than two good bots' do, a harsher load.

use std::time::Instant;

use pahtum::setup::random_blocks;
use pahtum::{Action, Game, Phase};
use pahtum_analysis::perfect_play::Solved;
use pahtum_record::PerfectPlay;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

fn main() {
    let positions: u64 = std::env::args().nth(1).map_or(50, |arg| arg.parse().expect("a number"));
    let mut rng = SmallRng::seed_from_u64(11);
    println!("free  positions  mean ms  slowest ms");
    for free in [12u32, 14, 16, 18, 20] {
        let (mut total, mut slowest) = (0f64, 0f64);
        for seed in 0..positions {
            let blocks = [5, 7, 9, 11, 13][(seed % 5) as usize];
            let mut game = Game::with_blocks(random_blocks(blocks, seed).unwrap(), true).unwrap();
            while game.phase() != Phase::Stones || game.position().free().len() > free {
                let action = match game.phase() {
                    Phase::PieDecision => Action::Pie(rng.random()),
                    _ => {
                        let cells: Vec<_> = game.position().free().cells().collect();
                        Action::Stone(cells[rng.random_range(0..cells.len())])
                    }
                };
                game.play(action).unwrap();
            }
            let start = Instant::now();
            std::hint::black_box(Solved.white_margin(&game));
            let seconds = start.elapsed().as_secs_f64();
            total += seconds;
            slowest = slowest.max(seconds);
        }
        println!(
            "{free:>4}  {positions:>9}  {:>7.2}  {:>10.2}",
            1e3 * total / positions as f64,
            1e3 * slowest
        );
    }
}
