//! An in-process match between two players, for developing the engine without
//! the arena: seeded random layouts (5 to 13 blocks), each played twice with the
//! seats swapped, the pie rule on, and the score with a rough error bar.
//!
//! ```text
//! cargo run --release -p pahtum-engine --example duel -- \
//!     --games 200 --move-ms 100 --first "engine" --second "greedy"
//! ```
//!
//! A player is `greedy` (the strategy of the `js-greedy` starter bot),
//! `heuristic` (the `rust-heuristic` starter bot, in process) or
//! `engine ARGS...` (the engine with its command-line options, e.g.
//! `engine --playouts 2000 --seed 1`).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Parser;
use pahtum::{Action, Game, Outcome, Phase, Seat};
use pahtum_engine::Engine;
use pahtum_protocol::Clock;
use pahtum_protocol::bot::Player;
use pahtum_search::board::{Board, WHITE, cells_of, gain};
use pahtum_search::playout::below;
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

#[derive(Debug, Parser)]
struct Args {
    /// Games to play (rounded up to an even number: layouts are played twice).
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// The first player.
    #[arg(long)]
    first: String,
    /// The second player.
    #[arg(long)]
    second: String,
    /// Per-move time limit given to both players.
    #[arg(long, default_value_t = 100)]
    move_ms: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Seed of the first layout.
    #[arg(long, default_value_t = 0)]
    layout_seed: u64,
}

/// The strategy of the `js-greedy` starter bot: the most immediate points,
/// own gain plus the opponent's gain denied, ties at random; it swaps when
/// White's first stone has its four neighbours free.
struct Greedy(Xoshiro256PlusPlus);

impl Greedy {
    fn choose(&mut self, game: &Game) -> Action {
        let board = Board::from_game(game);
        let free: Vec<usize> = cells_of(board.free()).collect();
        let random = |rng: &mut Xoshiro256PlusPlus, cells: &[usize]| {
            pahtum::Cell::from_index(cells[below(rng, cells.len())]).unwrap()
        };
        match game.phase() {
            Phase::PieDecision => {
                let stone = board.stones[WHITE].trailing_zeros() as usize;
                let (row, column) = (stone / 7, stone % 7);
                let neighbours = [
                    (row + 1, column),
                    (row.wrapping_sub(1), column),
                    (row, column + 1),
                    (row, column.wrapping_sub(1)),
                ];
                Action::Pie(
                    neighbours
                        .iter()
                        .all(|&(r, c)| r < 7 && c < 7 && board.free() & 1 << (r * 7 + c) != 0),
                )
            }
            Phase::PlaceBlocks => Action::Block(random(&mut self.0, &free)),
            _ => {
                let (mine, theirs) = (board.stones[board.mover], board.stones[board.mover ^ 1]);
                let value = |c: usize| gain(mine, c) + gain(theirs, c);
                let best = free.iter().map(|&c| value(c)).max().unwrap();
                let ties: Vec<usize> = free.iter().copied().filter(|&c| value(c) == best).collect();
                Action::Stone(random(&mut self.0, &ties))
            }
        }
    }
}

enum Contender {
    Greedy(Greedy),
    Heuristic(pahtum_heuristic::Heuristic),
    Engine(Box<Engine>),
}

impl Contender {
    fn new(spec: &str, seed: u64) -> anyhow::Result<Contender> {
        let words: Vec<String> = spec.split_whitespace().map(str::to_owned).collect();
        match words.first().map(String::as_str) {
            Some("greedy") => Ok(Contender::Greedy(Greedy(Xoshiro256PlusPlus::seed_from_u64(seed)))),
            Some("heuristic") => Ok(Contender::Heuristic(pahtum_heuristic::Heuristic::new())),
            Some("engine") => {
                let mut args = words[1..].to_vec();
                if !args.iter().any(|a| a == "--seed") {
                    args.extend(["--seed".to_owned(), seed.to_string()]);
                }
                Ok(Contender::Engine(Box::new(
                    Engine::from_args(&args).context("engine options")?,
                )))
            }
            _ => bail!("unknown player {spec:?}: expected \"greedy\", \"heuristic\" or \"engine ARGS...\""),
        }
    }

    fn choose(&mut self, game: &Game, clock: &Clock) -> Action {
        match self {
            Contender::Greedy(greedy) => greedy.choose(game),
            Contender::Heuristic(heuristic) => heuristic.choose(game, clock).0,
            Contender::Engine(engine) => engine.choose(game, clock).0,
        }
    }
}

/// Plays one game; returns the points of the first player and its slowest answer.
fn play(first: &mut Contender, second: &mut Contender, first_seat: Seat, layout: u64, move_ms: u64) -> (f64, Duration) {
    let count = [5, 7, 9, 11, 13][layout as usize % 5];
    let blocks = pahtum::setup::random_blocks(count, layout).unwrap();
    let mut game = Game::with_blocks(blocks, true).unwrap();
    let clock = Clock {
        remaining_ms: None,
        opponent_ms: None,
        increment_ms: 0,
        move_ms: Some(move_ms),
        timeout_ms: move_ms,
        kind: pahtum_protocol::ClockKind::Wall,
    };
    let mut slowest = Duration::ZERO;
    while let Some(seat) = game.seat_to_act() {
        let waited_before = runqueue_wait();
        let start = Instant::now();
        let action = if seat == first_seat {
            first.choose(&game, &clock)
        } else {
            second.choose(&game, &clock)
        };
        if seat == first_seat {
            slowest = slowest.max(start.elapsed());
        }
        if start.elapsed() > Duration::from_millis(move_ms) {
            eprintln!(
                "slow answer: {} ms, of which {} ms waiting for a processor ({} phase, {} free cells)",
                start.elapsed().as_millis(),
                (runqueue_wait() - waited_before).as_millis(),
                game.phase(),
                game.position().free().len()
            );
        }
        game.play(action).expect("players play legal moves");
    }
    let points = match (game.score().outcome(), game.color_of(first_seat)) {
        (Outcome::Draw, _) => 0.5,
        (Outcome::White, pahtum::Color::White) | (Outcome::Black, pahtum::Color::Black) => 1.0,
        _ => 0.0,
    };
    (points, slowest)
}

/// How long this thread has waited for a processor while runnable, from
/// Linux's schedstat (zero elsewhere): it tells a slow answer caused by a
/// busy machine from one caused by the engine.
fn runqueue_wait() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|text| text.split_whitespace().nth(1)?.parse().ok())
        .map_or(Duration::ZERO, Duration::from_nanos)
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    Contender::new(&args.first, 0)?;
    Contender::new(&args.second, 0)?;
    let layouts = args.games.div_ceil(2);
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for job in 0..args.jobs {
            let (next, results, args) = (&next, &results, &args);
            scope.spawn(move || {
                let mut first = Contender::new(&args.first, 1000 + job as u64).unwrap();
                let mut second = Contender::new(&args.second, 2000 + job as u64).unwrap();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= layouts {
                        break;
                    }
                    let layout = args.layout_seed + index as u64;
                    let a = play(&mut first, &mut second, Seat::First, layout, args.move_ms);
                    let b = play(&mut first, &mut second, Seat::Second, layout, args.move_ms);
                    results.lock().unwrap().push((a, b));
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let pairs: Vec<f64> = results.iter().map(|((a, _), (b, _))| a + b).collect();
    let n = pairs.len() as f64;
    let mean = pairs.iter().sum::<f64>() / n / 2.0;
    let variance = pairs.iter().map(|p| (p / 2.0 - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let error = 1.96 * (variance / n).sqrt();
    let elo = |p: f64| -400.0 * (1.0 / p.clamp(1e-3, 1.0 - 1e-3) - 1.0).log10();
    let slowest = results
        .iter()
        .map(|((_, a), (_, b))| *a.max(b))
        .max()
        .unwrap_or_default();
    println!(
        "{} vs {}: {:.1}% ± {:.1}% of {} games (Elo {:+.0}, interval {:+.0} to {:+.0}); first player's slowest answer {:.1} ms; {:.0} s",
        args.first,
        args.second,
        100.0 * mean,
        100.0 * error,
        2 * results.len(),
        elo(mean),
        elo(mean - error),
        elo(mean + error),
        slowest.as_secs_f64() * 1000.0,
        started.elapsed().as_secs_f64(),
    );
    Ok(())
}
