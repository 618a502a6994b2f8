//! What the referee's check after each ply costs with `adjudicate = "decided"`: [`pahtum::decided::decided`]
//! at the referee's budget, after every stone of random games, timed by the number of free cells.
//!
//! `cargo run --release -p pahtum --example decided_cost [GAMES] [BUDGET]` (defaults 400 and 100,000). Random
//! play decides games early and often, so the positions that reach the branch and bound are many: a
//! harsher load than two good bots' games. Per free-cell count: the checks, how many were decided, the mean
//! and the slowest check.

use std::time::Instant;

use pahtum::decided::decided;
use pahtum::setup::random_blocks;
use pahtum::{Action, Game, Phase};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|arg| arg.parse::<u64>().expect("a number"));
    let games = args.next().unwrap_or(400);
    let budget = args.next().unwrap_or(100_000);
    let mut rng = SmallRng::seed_from_u64(7);
    // By free cells: checks, decided, total and slowest seconds.
    let mut rows = [(0u64, 0u64, 0f64, 0f64); pahtum::CELLS + 1];
    let (mut total, mut checks) = (0f64, 0u64);
    for game_seed in 0..games {
        let blocks = [5, 7, 9, 11, 13][(game_seed % 5) as usize];
        let mut game = Game::with_blocks(random_blocks(blocks, game_seed).unwrap(), true).unwrap();
        while !game.is_finished() {
            let action = match game.phase() {
                Phase::PieDecision => Action::Pie(rng.random()),
                _ => {
                    let free: Vec<_> = game.position().free().cells().collect();
                    Action::Stone(free[rng.random_range(0..free.len())])
                }
            };
            game.play(action).unwrap();
            if game.phase() != Phase::Stones {
                continue;
            }
            let start = Instant::now();
            let decision = decided(game.position(), budget);
            let seconds = start.elapsed().as_secs_f64();
            let row = &mut rows[game.position().free().len() as usize];
            row.0 += 1;
            row.1 += u64::from(decision.is_some());
            row.2 += seconds;
            row.3 = row.3.max(seconds);
            total += seconds;
            checks += 1;
            if decision.is_some() {
                break;
            }
        }
    }
    println!(
        "{games} random games, budget {budget} nodes a bound: {checks} checks, {:.2} µs mean",
        total / checks as f64 * 1e6
    );
    println!("free  checks  decided  mean µs  slowest µs");
    for (free, &(count, decided, seconds, slowest)) in rows.iter().enumerate().rev() {
        if count > 0 {
            println!(
                "{free:>4}  {count:>6}  {decided:>7}  {:>7.1}  {:>10.1}",
                seconds / count as f64 * 1e6,
                slowest * 1e6
            );
        }
    }
}
