//! The board of `arena play`, drawn as in the README: coordinates on the
//! sides, the last move in parentheses, blocks as `#`, and both scores.
//! Colour comes from `anstream`, which drops it on dumb terminals, in pipes
//! and under `NO_COLOR`.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Style};
use pahtum::{Cell, Color, Game, Square};

const WHITE_STONE: Style = AnsiColor::BrightYellow.on_default().bold();
const BLACK_STONE: Style = AnsiColor::BrightCyan.on_default().bold();
const BLOCK: Style = Style::new().dimmed();

/// The board of `game` with `last` marked, then one line of scores naming
/// the two sides.
pub fn board(game: &Game, last: Option<Cell>, white: &str, black: &str) -> String {
    let position = game.position();
    let mut out = String::from("    +---------------+\n");
    for row in (0..7).rev() {
        let _ = write!(out, "  {} |", row + 1);
        for column in 0..7 {
            let cell = Cell::at(column, row).expect("on the board");
            let marked = last == Some(cell);
            let (symbol, style) = match position.at(cell) {
                Square::Free => ('.', Style::new()),
                Square::Block => ('#', BLOCK),
                Square::Stone(Color::White) => ('W', WHITE_STONE),
                Square::Stone(Color::Black) => ('B', BLACK_STONE),
            };
            let before = if marked {
                '('
            } else if column > 0 && last == Cell::at(column - 1, row) {
                ')'
            } else {
                ' '
            };
            let _ = write!(out, "{before}{style}{symbol}{style:#}");
        }
        let after = if last.is_some_and(|cell| cell == Cell::at(6, row).expect("on the board")) {
            ')'
        } else {
            ' '
        };
        let _ = writeln!(out, "{after}| {}", row + 1);
    }
    out.push_str("    +---------------+\n      a b c d e f g\n");
    let score = game.score();
    let _ = writeln!(
        out,
        "  {WHITE_STONE}W{WHITE_STONE:#} White {white}: {}   {BLACK_STONE}B{BLACK_STONE:#} Black {black}: {}",
        score.white, score.black
    );
    out
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
        assert!(drawn.contains("  7 | . . . . . .(W)| 7\n"), "{drawn}");
        assert!(drawn.contains("  1 | # . . . . . . | 1\n"), "{drawn}");
        assert!(drawn.ends_with("W White you: 0   B Black engine: 0\n"), "{drawn}");
    }
}
