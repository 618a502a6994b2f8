//! The board of `arena play`: the board every command draws
//! ([`pahtum_report::board`]: coordinates on the sides, the last move in
//! parentheses, blocks as `#`, the stones of scoring runs in capitals) and
//! both scores with the players' names; at the end, the scoring runs listed.
//! Colour comes from `anstream`, which drops it on dumb terminals, in pipes
//! and under `NO_COLOR`.

use pahtum::{Cell, Game};
use pahtum_report::board::{BLACK_STONE, WHITE_STONE, board as grid, runs};

/// The board of `game` with `last` marked, then one line of scores naming
/// the two sides.
pub fn board(game: &Game, last: Option<Cell>, white: &str, black: &str) -> String {
    let score = game.score();
    let (white_stone, black_stone) = (WHITE_STONE.bold(), BLACK_STONE.bold());
    format!(
        "{}  {white_stone}W{white_stone:#} White {white}: {}   {black_stone}B{black_stone:#} Black {black}: {}\n",
        grid(game.position(), last),
        score.white,
        score.black
    )
}

/// The final board of `game`, then each side's points and scoring runs.
pub fn final_board(game: &Game, white: &str, black: &str) -> String {
    let labels = [format!("White {white}"), format!("Black {black}")];
    format!(
        "{}  The stones in capitals make the scoring runs.\n{}",
        grid(game.position(), None),
        runs(game.position(), [&labels[0], &labels[1]])
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pahtum::{Action, Layout};

    #[test]
    fn the_last_move_is_in_parentheses_and_the_scores_follow() {
        let blocks = vec!["a1".parse().unwrap()];
        let mut game = Game::new(&Layout::Fixed { blocks }, false).unwrap();
        let g7: Cell = "g7".parse().unwrap();
        game.play(Action::Stone(g7)).unwrap();
        let drawn = anstream::adapter::strip_str(&board(&game, Some(g7), "you", "engine")).to_string();
        assert!(drawn.contains("  7 | . . . . . .(w)| 7\n"), "{drawn}");
        assert!(drawn.contains("  1 | # . . . . . . | 1\n"), "{drawn}");
        assert!(drawn.ends_with("W White you: 0   B Black engine: 0\n"), "{drawn}");
    }

    #[test]
    fn the_final_board_lists_each_sides_runs_under_its_name() {
        let blocks = vec!["a1".parse().unwrap()];
        let mut game = Game::new(&Layout::Fixed { blocks }, false).unwrap();
        for cell in ["a7", "a6", "b7", "b6", "c7", "c6", "d7", "b5", "g1"] {
            game.play(Action::Stone(cell.parse().unwrap())).unwrap();
        }
        let drawn = anstream::adapter::strip_str(&final_board(&game, "you", "engine")).to_string();
        assert!(drawn.contains("  7 | W W W W . . . | 7\n"), "{drawn}");
        assert!(
            drawn.ends_with("  White you 10 = a7-d7 (10)\n  Black engine 3 = a6-c6 (3)\n"),
            "{drawn}"
        );
    }
}
