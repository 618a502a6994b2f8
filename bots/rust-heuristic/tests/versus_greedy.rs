//! The heuristic must beat greedy play clearly: a seeded match on random
//! layouts, each layout played twice with the seats swapped, the pie rule on.
//!
//! Greedy here is the js-greedy starter bot's rule, written again in Rust: the
//! stone that gains the most points now (its own gain plus the opponent's gain
//! on that cell), ties at random; swap when White's first stone has four free
//! neighbours.

use pahtum::score::points;
use pahtum::setup::random_blocks;
use pahtum::{Action, Cell, Color, Game, Outcome, Phase, Position, Seat};
use pahtum_heuristic::Heuristic;
use pahtum_protocol::Clock;
use pahtum_protocol::bot::Player;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};

const LAYOUTS: u64 = 50;

fn greedy(game: &Game, rng: &mut SmallRng) -> Action {
    let position = game.position();
    if game.phase() == Phase::PieDecision {
        let first = position.white().cells().next().expect("White's first stone");
        return Action::Pie(four_free_neighbours(position, first));
    }
    let me = game.color_to_act().expect("the game is on");
    let gain = |color: Color, cell: Cell| {
        let stones = position.stones(color);
        points(stones.with(cell)) - points(stones)
    };
    let free: Vec<Cell> = position.free().cells().collect();
    let value = |&cell: &Cell| gain(me, cell) + gain(me.opponent(), cell);
    let best = free.iter().map(value).max().expect("a free cell");
    let best_cells: Vec<Cell> = free.into_iter().filter(|cell| value(cell) == best).collect();
    Action::Stone(*best_cells.choose(rng).expect("at least one best cell"))
}

fn four_free_neighbours(position: &Position, cell: Cell) -> bool {
    let (column, row) = (cell.column() as isize, cell.row() as isize);
    [(-1, 0), (1, 0), (0, -1), (0, 1)].iter().all(|(dc, dr)| {
        let neighbour = usize::try_from(column + dc)
            .ok()
            .zip(usize::try_from(row + dr).ok())
            .and_then(|(c, r)| Cell::at(c, r));
        neighbour.is_some_and(|n| position.free().contains(n))
    })
}

/// Plays one game; returns the heuristic's points (1, 1/2 or 0).
fn play(blocks: pahtum::Bitboard, heuristic_seat: Seat, heuristic: &mut Heuristic, rng: &mut SmallRng) -> f64 {
    let clock = Clock::per_move(1000);
    let mut game = Game::with_blocks(blocks, true).expect("a valid layout");
    while let Some(seat) = game.seat_to_act() {
        let action = if seat == heuristic_seat {
            heuristic.choose(&game, &clock).0
        } else {
            greedy(&game, rng)
        };
        game.play(action).expect("both players play legal moves");
    }
    match game.score().outcome() {
        Outcome::Draw => 0.5,
        outcome => {
            let winner = game.seat_of(outcome.winner().expect("not a draw"));
            if winner == heuristic_seat { 1.0 } else { 0.0 }
        }
    }
}

#[test]
fn heuristic_beats_greedy() {
    let mut rng = SmallRng::seed_from_u64(2024);
    let mut heuristic = Heuristic::new();
    let mut points = 0.0;
    for seed in 0..LAYOUTS {
        let count = [5, 7, 9, 11, 13][rng.random_range(0..5)];
        let blocks = random_blocks(count, seed).expect("a valid count");
        for seat in [Seat::First, Seat::Second] {
            points += play(blocks, seat, &mut heuristic, &mut rng);
        }
    }
    let games = 2 * LAYOUTS;
    let share = points / games as f64;
    println!(
        "heuristic vs greedy: {points} of {games} points ({:.1}%)",
        100.0 * share
    );
    assert!(
        share > 0.7,
        "the heuristic scored only {points} of {games} against greedy"
    );
}
