//! The engine answers within its clock, measured on the engine's side of the
//! pipe: every answer of whole games at 10 ms per move and on a short Fischer
//! clock. The engine plans to use well under the limit (a share, minus a few
//! milliseconds for the process and the pipes), so the bound here is the
//! limit itself: generous, but it fails if a search overruns its deadline.
//!
//! This file is its own test binary, and its tests take turns, so that no
//! other test competes for the processor while one measures.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use pahtum::{Game, Seat};
use pahtum_engine::Engine;
use pahtum_protocol::Clock;
use pahtum_protocol::bot::Player;

/// Held by the test that is measuring.
static MEASURING: Mutex<()> = Mutex::new(());

fn engine(seed: u64) -> Engine {
    Engine::from_args(&["--seed".to_owned(), seed.to_string()]).unwrap()
}

fn per_move(ms: u64) -> Clock {
    Clock {
        remaining_ms: None,
        opponent_ms: None,
        increment_ms: 0,
        move_ms: Some(ms),
        timeout_ms: ms,
    }
}

#[test]
fn every_answer_fits_in_ten_milliseconds() {
    let _turn = MEASURING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let limit = Duration::from_millis(10);
    for (seed, blocks) in [(1, 5), (2, 13)] {
        let mut game = Game::with_blocks(pahtum::setup::random_blocks(blocks, seed).unwrap(), true).unwrap();
        let mut players = [engine(seed), engine(seed + 100)];
        while let Some(seat) = game.seat_to_act() {
            let start = Instant::now();
            let (action, _) = players[seat.index()].choose(&game, &per_move(10));
            let took = start.elapsed();
            assert!(
                took <= limit,
                "{action} took {took:?} with {} free cells",
                game.position().free().len()
            );
            game.play(action).unwrap();
        }
    }
}

#[test]
fn a_fischer_clock_is_never_overdrawn() {
    let _turn = MEASURING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let (base, increment) = (400u64, 5u64);
    let mut game = Game::with_blocks(pahtum::setup::random_blocks(7, 3).unwrap(), true).unwrap();
    let mut players = [engine(1), engine(2)];
    let mut remaining = [base as f64; 2];
    while let Some(seat) = game.seat_to_act() {
        let me = seat.index();
        let clock = Clock {
            remaining_ms: Some(remaining[me] as u64),
            opponent_ms: Some(remaining[1 - me] as u64),
            increment_ms: increment,
            move_ms: None,
            timeout_ms: remaining[me] as u64,
        };
        let start = Instant::now();
        let (action, _) = players[me].choose(&game, &clock);
        remaining[me] -= start.elapsed().as_secs_f64() * 1000.0;
        assert!(remaining[me] > 0.0, "{seat:?} ran out of time at {action}");
        remaining[me] += increment as f64;
        game.play(action).unwrap();
    }
    // Both seats thought: neither answered instantly all game long.
    let total = (base as f64 + 25.0 * increment as f64) * 2.0;
    assert!(remaining.iter().sum::<f64>() < total, "{remaining:?}");
    assert_eq!(game.seat_to_act(), None::<Seat>);
}
