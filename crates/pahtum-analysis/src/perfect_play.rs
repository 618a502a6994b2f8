//! The exact solver lent to `adjudicate = "solved"` ([`pahtum_record::PerfectPlay`]): White's final margin
//! with best play by both sides, for the referee that ends a game by it and for `arena verify` that proves
//! it again. It lives here, beside the analysis's own use of the solver, because the record crate (which
//! the report and the server link) must not link the search.

use pahtum::Game;
use pahtum_record::PerfectPlay;
use pahtum_search::board::{Board, WHITE};
use pahtum_search::endgame::Solver;

/// The table of one solve: 2^16 entries (2 MiB), enough for the at most 20 free cells `solved` allows,
/// made for each solve (once a game) so that games solve side by side without sharing it.
const TABLE_BITS: u32 = 16;

/// The exact solver, a fresh table for each solve.
#[derive(Debug, Default)]
pub struct Solved;

impl PerfectPlay for Solved {
    fn white_margin(&self, game: &Game) -> i32 {
        let board = Board::from_game(game);
        if board.free() == 0 {
            return board.margin();
        }
        let future = Solver::new(TABLE_BITS)
            .value(&board, None)
            .expect("a solve without a deadline completes");
        let future = if board.mover == WHITE { future } else { -future };
        board.margin() + future
    }
}

#[cfg(test)]
mod tests {
    use pahtum::setup::{Layout, random_blocks};
    use pahtum::{Action, Color, Game, Phase};

    use super::*;

    /// White's final margin by a full minimax over every free cell: the truth the solver must give, on
    /// positions small enough to enumerate.
    fn minimax(game: &Game) -> i32 {
        if game.phase() == Phase::Finished {
            let score = game.position().score();
            return score.white as i32 - score.black as i32;
        }
        let values = game.legal_moves().into_iter().map(|action| {
            let mut next = game.clone();
            next.play(action).unwrap();
            minimax(&next)
        });
        let best = if game.position().to_move() == Color::White {
            values.max()
        } else {
            values.min()
        };
        best.unwrap()
    }

    #[test]
    fn the_solved_margin_is_the_minimax_of_small_endgames() {
        for seed in 0..24u64 {
            let blocks = random_blocks(7, seed).unwrap().cells().collect();
            let mut game = Game::new(&Layout::Fixed { blocks }, false).unwrap();
            // A pseudo-random fill down to 7 free cells, the same for each seed.
            let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            while game.position().free().len() > 7 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let moves: Vec<Action> = game.legal_moves();
                game.play(moves[(state % moves.len() as u64) as usize]).unwrap();
            }
            assert_eq!(game.phase(), Phase::Stones);
            assert_eq!(Solved.white_margin(&game), minimax(&game), "seed {seed}");
        }
    }
}
