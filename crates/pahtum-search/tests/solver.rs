//! The exact solver against a plain minimax over every move order, and the
//! properties of exact values, on positions of real random layouts.
//!
//! The minimax here shares nothing with the solver: it plays every free cell
//! at every ply to the full board and scores the final position with the
//! rules crate's `points`, remembering the positions it has seen (which
//! changes no value, only the time). Positions: a layout of
//! `pahtum::setup::random_blocks` with 5 to 13 blocks, stones of both colours
//! on random cells, either colour to move.
//!
//! A debug build checks 400 positions of up to 10 free cells (a few
//! seconds); `cargo test --release -p pahtum-search --test solver` checks
//! 4,000 positions of up to 12 free cells.

use std::collections::HashMap;

use pahtum::Bitboard;
use pahtum::score::points;
use pahtum_search::board::{BLACK, Board, WHITE, cells_of, gain};
use pahtum_search::endgame::Solver;

/// How many positions, and their most free cells, for this build.
const fn sizing() -> (u64, u32) {
    if cfg!(debug_assertions) { (400, 10) } else { (4000, 12) }
}

/// A small random generator (xorshift), so that the positions are fixed.
struct Random(u64);

impl Random {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Position `index`: a random layout of 5, 7, 9, 11 or 13 blocks, then stones on
/// random cells until `free` cells are left, the colours taking turns from
/// White, and the mover chosen at random (so either colour may have one
/// stone more).
fn position(index: u64, free: u32) -> Board {
    let mut random = Random(index.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let blocks = 5 + 2 * random.below(5) as usize;
    let mut board = Board {
        blocks: pahtum::setup::random_blocks(blocks, index).unwrap().0,
        stones: [0, 0],
        mover: WHITE,
        blocks_left: 0,
    };
    while board.free().count_ones() > free {
        let cells: Vec<usize> = cells_of(board.free()).collect();
        board.play(cells[random.below(cells.len() as u64) as usize]);
    }
    board.mover = random.below(2) as usize;
    board
}

/// Plain minimax: the final margin (the mover's points minus the other's)
/// with best play from both sides, over every order of the free cells.
fn minimax(board: &Board, seen: &mut HashMap<(u64, u64, usize), i32>) -> i32 {
    let free = board.free();
    if free == 0 {
        let mine = points(Bitboard(board.stones[board.mover])) as i32;
        let theirs = points(Bitboard(board.stones[board.mover ^ 1])) as i32;
        return mine - theirs;
    }
    let key = (board.stones[WHITE], board.stones[BLACK], board.mover);
    if let Some(&value) = seen.get(&key) {
        return value;
    }
    let value = cells_of(free)
        .map(|cell| {
            let mut next = *board;
            next.play(cell);
            -minimax(&next, seen)
        })
        .max()
        .unwrap();
    seen.insert(key, value);
    value
}

/// The mover's points minus the other's, now.
fn current(board: &Board) -> i32 {
    if board.mover == WHITE {
        board.margin()
    } else {
        -board.margin()
    }
}

/// The solver's margins are the minimax's, for the position and after each
/// move, and its best move is one of the optimal ones, with a fresh table and
/// with a small one shared by all positions (kept across layouts, full of
/// replaced entries).
#[test]
fn the_solver_agrees_with_minimax_over_every_order() {
    let (count, most) = sizing();
    let mut shared = Solver::new(8);
    for index in 0..count {
        let free = 1 + (index % u64::from(most)) as u32;
        let board = position(index, free);
        let mut seen = HashMap::new();
        let exact = minimax(&board, &mut seen);
        for solver in [&mut Solver::new(16), &mut shared] {
            let solution = solver.solve(&board, None).unwrap();
            assert_eq!(solution.value + current(&board), exact, "position {index}: {board:?}");
            let mut after = board;
            after.play(solution.best);
            assert_eq!(
                -minimax(&after, &mut seen),
                exact,
                "position {index}: {} is not optimal",
                solution.best
            );
            for (cell, value) in solver.move_values(&board, None).unwrap() {
                let mut after = board;
                after.play(cell);
                assert_eq!(
                    value + current(&board),
                    -minimax(&after, &mut seen),
                    "position {index}, cell {cell}"
                );
            }
            let outcome = solver.outcome(&board, None).unwrap();
            assert_eq!(outcome.result, exact.cmp(&0), "position {index}");
            if outcome.result != std::cmp::Ordering::Less {
                let mut after = board;
                after.play(outcome.best);
                assert_eq!(
                    (-minimax(&after, &mut seen)).cmp(&0),
                    outcome.result,
                    "position {index}"
                );
            }
        }
    }
}

/// The future margin after `cell`, for the mover of `board`.
fn after_move(solver: &mut Solver, board: &Board, cell: usize) -> i32 {
    let mut after = *board;
    after.play(cell);
    let reply = if after.free() == 0 {
        0
    } else {
        solver.solve(&after, None).unwrap().value
    };
    gain(board.stones[board.mover], cell) as i32 - reply
}

/// Exact values are consistent: the optimal move keeps the value, and no
/// move gains value (each move's value is at most the position's).
#[test]
fn an_optimal_move_keeps_the_value_and_no_move_gains() {
    let (count, most) = sizing();
    let mut solver = Solver::new(12);
    for index in 0..count / 4 {
        let free = 2 + (index % u64::from(most + 2)) as u32;
        let board = position(1_000_000 + index, free);
        let solution = solver.solve(&board, None).unwrap();
        assert_eq!(
            after_move(&mut solver, &board, solution.best),
            solution.value,
            "position {index}"
        );
        for cell in cells_of(board.free()) {
            assert!(
                after_move(&mut solver, &board, cell) <= solution.value,
                "position {index}, cell {cell}"
            );
        }
    }
}
