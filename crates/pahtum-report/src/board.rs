//! A board as text, for a person at a terminal: `arena show` prints it
//! after a ply or at the end, `arena play` after every move and at the end.
//!
//! One drawing for both, so that a position looks the same wherever it is
//! shown: `#` a block, `W` and `B` the stones in a scoring run, `w` and `b`
//! the others, the last ply's cell in parentheses, coordinates on the sides;
//! and under it, each colour's points and the runs that make them. Colours
//! (the stones as `arena play` has always drawn them, bold in a run, blocks
//! dimmed) are styled with `anstyle`; `arena` writes through `anstream`,
//! which drops them where stdout is no terminal.

use std::fmt::Write;

use anstyle::{AnsiColor, Style};
use pahtum::score::scoring_runs;
use pahtum::{Bitboard, Cell, Color, Position, Run, SIZE, Square};

/// The board of `position`, row 7 on top, with coordinates: `#` a block, `W` and `B` the stones in a scoring
/// run, `w` and `b` the others, and `last` in parentheses. In colour too: the stones as `arena play` draws
/// them, bold in a scoring run, and the blocks dimmed (`arena` drops the colours where stdout is no
/// terminal).
pub fn board(position: &Position, last: Option<Cell>) -> String {
    let in_runs: Bitboard = [Color::White, Color::Black]
        .into_iter()
        .flat_map(|color| scoring_runs(position.stones(color)))
        .flat_map(|run| run.cells())
        .collect();
    let mut out = String::from("    +---------------+\n");
    for row in (0..SIZE).rev() {
        write!(out, "  {} |", row + 1).unwrap();
        for column in 0..SIZE {
            let cell = Cell::at(column, row).expect("on the board");
            let (symbol, style) = match position.at(cell) {
                Square::Free => ('.', Style::new()),
                Square::Block => ('#', BLOCK),
                Square::Stone(Color::White) => ('w', WHITE_STONE),
                Square::Stone(Color::Black) => ('b', BLACK_STONE),
            };
            let (symbol, style) = if in_runs.contains(cell) {
                (symbol.to_ascii_uppercase(), style.bold())
            } else {
                (symbol, style)
            };
            let before = if last == Some(cell) {
                '('
            } else if column > 0 && last == Cell::at(column - 1, row) {
                ')'
            } else {
                ' '
            };
            write!(out, "{before}{style}{symbol}{style:#}").unwrap();
        }
        let after = if last == Cell::at(SIZE - 1, row) { ')' } else { ' ' };
        writeln!(out, "{after}| {}", row + 1).unwrap();
    }
    out.push_str("    +---------------+\n      a b c d e f g\n");
    out
}

/// A run as its end cells and points: `c4-g4 (56)`.
fn describe(run: Run) -> String {
    let end = run.cells().last().unwrap_or(run.start);
    format!("{}-{end} ({})", run.start, run.points())
}

/// White's stones, as `arena play` draws them.
pub const WHITE_STONE: Style = AnsiColor::BrightYellow.on_default();
/// Black's stones, as `arena play` draws them.
pub const BLACK_STONE: Style = AnsiColor::BrightCyan.on_default();
/// The blocks, dimmed.
pub const BLOCK: Style = Style::new().dimmed();

/// Each colour's points and the runs that make them, one line each, the colours labelled by `labels`
/// (White's, Black's): `  White 13 = a2-c2 (3) + a4-d4 (10)`.
pub fn runs(position: &Position, labels: [&str; 2]) -> String {
    let mut out = String::new();
    for color in [Color::White, Color::Black] {
        let runs: Vec<String> = scoring_runs(position.stones(color)).into_iter().map(describe).collect();
        let name = labels[usize::from(color == Color::Black)];
        let points = position.score().of_color(color);
        if runs.is_empty() {
            writeln!(out, "  {name} {points}: no run").unwrap();
        } else {
            writeln!(out, "  {name} {points} = {}", runs.join(" + ")).unwrap();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use pahtum::{Action, Game, Layout};

    use super::*;

    /// A game on a board with a block on a1 after `cells`, stones in turn.
    fn after(cells: &[&str]) -> Game {
        let mut game = Game::new(
            &Layout::Fixed {
                blocks: vec!["a1".parse().unwrap()],
            },
            false,
        )
        .unwrap();
        for cell in cells {
            game.play(Action::Stone(cell.parse().unwrap())).unwrap();
        }
        game
    }

    #[test]
    fn the_scoring_runs_are_in_capitals_and_listed_and_the_last_ply_in_parentheses() {
        // White a7-d7 (10 points) and a lone g1; Black a6-c6 (3) and b5.
        let game = after(&["a7", "a6", "b7", "b6", "c7", "c6", "d7", "b5", "g1"]);
        let last = "g1".parse().ok();
        let drawn = anstream::adapter::strip_str(&board(game.position(), last)).to_string();
        assert!(drawn.contains("  7 | W W W W . . . | 7\n"), "{drawn}");
        assert!(drawn.contains("  6 | B B B . . . . | 6\n"), "{drawn}");
        assert!(drawn.contains("  5 | . b . . . . . | 5\n"), "{drawn}");
        assert!(drawn.contains("  1 | # . . . . .(w)| 1\n"), "{drawn}");
        let listed = runs(game.position(), ["White you", "Black engine"]);
        assert_eq!(listed, "  White you 10 = a7-d7 (10)\n  Black engine 3 = a6-c6 (3)\n");
        assert_eq!(
            runs(after(&["g7"]).position(), ["White", "Black"]),
            "  White 0: no run\n  Black 0: no run\n"
        );
    }
}
