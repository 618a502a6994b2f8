//! The board of `arena play`, drawn as in the README: coordinates on the
//! sides, the last move in parentheses, blocks as `#`, and both scores; at
//! the end, the scoring runs marked and listed.
//! Colour comes from `anstream`, which drops it on dumb terminals, in pipes
//! and under `NO_COLOR`.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Style};
use pahtum::{Bitboard, Cell, Color, Game, Run, Square, score};

const WHITE_STONE: Style = AnsiColor::BrightYellow.on_default().bold();
const BLACK_STONE: Style = AnsiColor::BrightCyan.on_default().bold();
const BLOCK: Style = Style::new().dimmed();

/// The board of `game` with `last` marked, then one line of scores naming
/// the two sides.
pub fn board(game: &Game, last: Option<Cell>, white: &str, black: &str) -> String {
    let mut out = grid(game, last, None);
    let score = game.score();
    let _ = writeln!(
        out,
        "  {WHITE_STONE}W{WHITE_STONE:#} White {white}: {}   {BLACK_STONE}B{BLACK_STONE:#} Black {black}: {}",
        score.white, score.black
    );
    out
}

/// The final board of `game`: the stones of the scoring runs in capitals
/// (and underlined where there is colour), the others in lower case, then
/// each side's runs and points.
pub fn final_board(game: &Game, white: &str, black: &str) -> String {
    let position = game.position();
    let runs = [Color::White, Color::Black].map(|color| score::scoring_runs(position.stones(color)));
    let scoring: Bitboard = runs.iter().flatten().flat_map(|run| run.cells()).collect();
    let mut out = grid(game, None, Some(scoring));
    out.push_str("  The stones in capitals make the scoring runs.\n");
    let score = game.score();
    let sides = [
        (Color::White, "W White", white, WHITE_STONE),
        (Color::Black, "B Black", black, BLACK_STONE),
    ];
    for ((color, label, name, style), runs) in sides.into_iter().zip(&runs) {
        let (symbol, label) = label.split_at(1);
        let points = score.of_color(color);
        let _ = write!(out, "  {style}{symbol}{style:#}{label} {name}: {points} points");
        let listed: Vec<String> = runs.iter().map(|&run| describe(run)).collect();
        if !listed.is_empty() {
            let _ = write!(out, ": {}", listed.join(", "));
        }
        out.push('\n');
    }
    out
}

/// A run as its end cells and points: `c4-g4 (56)`.
fn describe(run: Run) -> String {
    let first = run.start;
    let last = run.cells().last().unwrap_or(first);
    format!("{first}-{last} ({})", run.points())
}

/// The grid of `game`'s board with `last` marked; with `scoring`, the stones
/// outside it in lower case and those in it underlined.
fn grid(game: &Game, last: Option<Cell>, scoring: Option<Bitboard>) -> String {
    let position = game.position();
    let mut out = String::from("    +---------------+\n");
    for row in (0..7).rev() {
        let _ = write!(out, "  {} |", row + 1);
        for column in 0..7 {
            let cell = Cell::at(column, row).expect("on the board");
            let marked = last == Some(cell);
            let stone = |capital: char, style: Style| match scoring {
                Some(scoring) if !scoring.contains(cell) => (capital.to_ascii_lowercase(), style.dimmed()),
                Some(_) => (capital, style.underline()),
                None => (capital, style),
            };
            let (symbol, style) = match position.at(cell) {
                Square::Free => ('.', Style::new()),
                Square::Block => ('#', BLOCK),
                Square::Stone(Color::White) => stone('W', WHITE_STONE),
                Square::Stone(Color::Black) => stone('B', BLACK_STONE),
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

    #[test]
    fn the_final_board_marks_and_lists_the_scoring_runs() {
        let blocks = vec!["a1".parse().unwrap()];
        let mut game = Game::new(&Layout::Fixed { blocks }, false).unwrap();
        // White a7-d7 (10 points) and a lone g1; Black a6-c6 (3) and b5.
        for cell in ["a7", "a6", "b7", "b6", "c7", "c6", "d7", "b5", "g1"] {
            game.play(Action::Stone(cell.parse().unwrap())).unwrap();
        }
        let drawn = anstream::adapter::strip_str(&final_board(&game, "you", "engine")).to_string();
        assert!(drawn.contains("  7 | W W W W . . . | 7\n"), "{drawn}");
        assert!(drawn.contains("  6 | B B B . . . . | 6\n"), "{drawn}");
        assert!(drawn.contains("  5 | . b . . . . . | 5\n"), "{drawn}");
        assert!(drawn.contains("  1 | # . . . . . w | 1\n"), "{drawn}");
        assert!(drawn.contains("W White you: 10 points: a7-d7 (10)\n"), "{drawn}");
        assert!(drawn.ends_with("B Black engine: 3 points: a6-c6 (3)\n"), "{drawn}");
    }
}
