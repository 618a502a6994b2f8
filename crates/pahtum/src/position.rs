//! A board position: blocks, stones and the side to move.
//!
//! The one-line text form lists the rows from 7 down to 1, separated by `/`,
//! each as seven characters (`.` free, `#` block, `W` white stone, `B` black
//! stone), then a space and the side to move (`w` or `b`):
//!
//! ```text
//! ..#..../......./...W.../...B.../......./.#...../......# w
//! ```
//!
//! It is meant for logs, tests and bug reports; [`Position::diagram`] draws the
//! same position with coordinates for a terminal.

use std::fmt::{self, Write as _};
use std::str::FromStr;

use crate::{Bitboard, Cell, Color, SIZE, Score};

/// Blocks, white and black stones (disjoint sets) and the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    blocks: Bitboard,
    white: Bitboard,
    black: Bitboard,
    to_move: Color,
}

impl Position {
    /// An empty board with `blocks`, White to move.
    pub const fn new(blocks: Bitboard) -> Position {
        Position {
            blocks,
            white: Bitboard::EMPTY,
            black: Bitboard::EMPTY,
            to_move: Color::White,
        }
    }

    /// A position from its parts; `None` if two of the sets overlap.
    pub fn from_parts(blocks: Bitboard, white: Bitboard, black: Bitboard, to_move: Color) -> Option<Position> {
        let disjoint = (blocks & white).is_empty() && (blocks & black).is_empty() && (white & black).is_empty();
        disjoint.then_some(Position {
            blocks,
            white,
            black,
            to_move,
        })
    }

    /// The blocked cells.
    pub const fn blocks(&self) -> Bitboard {
        self.blocks
    }

    /// White's stones.
    pub const fn white(&self) -> Bitboard {
        self.white
    }

    /// Black's stones.
    pub const fn black(&self) -> Bitboard {
        self.black
    }

    /// The stones of `color`.
    pub const fn stones(&self, color: Color) -> Bitboard {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// The colour whose stone comes next. After the pie decision it is Black, as
    /// the pie never changes who moves, only which seat holds which colour.
    pub const fn to_move(&self) -> Color {
        self.to_move
    }

    /// Cells with neither a block nor a stone.
    #[inline]
    pub fn free(&self) -> Bitboard {
        !(self.blocks | self.white | self.black)
    }

    /// Whether no free cell is left (the game is over).
    pub fn is_full(&self) -> bool {
        self.free().is_empty()
    }

    /// Both colours' points now.
    #[inline]
    pub fn score(&self) -> Score {
        Score::of(self.white, self.black)
    }

    /// What occupies `cell`.
    pub fn at(&self, cell: Cell) -> Square {
        if self.blocks.contains(cell) {
            Square::Block
        } else if self.white.contains(cell) {
            Square::Stone(Color::White)
        } else if self.black.contains(cell) {
            Square::Stone(Color::Black)
        } else {
            Square::Free
        }
    }

    /// Puts a stone of the side to move on `cell` and passes the turn.
    /// The caller guarantees that `cell` is free.
    #[inline]
    pub(crate) fn put_stone(&mut self, cell: Cell) {
        debug_assert!(self.free().contains(cell));
        match self.to_move {
            Color::White => self.white = self.white.with(cell),
            Color::Black => self.black = self.black.with(cell),
        }
        self.to_move = self.to_move.opponent();
    }

    /// Adds a block on `cell`; the caller guarantees that it is free.
    pub(crate) fn put_block(&mut self, cell: Cell) {
        debug_assert!(self.free().contains(cell));
        self.blocks = self.blocks.with(cell);
    }

    pub(crate) fn set_to_move(&mut self, color: Color) {
        self.to_move = color;
    }

    /// A multi-line drawing with coordinates, row 7 on top, for terminals.
    pub fn diagram(&self) -> String {
        let mut out = String::new();
        out.push_str("  +---------------+\n");
        for row in (0..SIZE).rev() {
            let _ = write!(out, "{} |", row + 1);
            for column in 0..SIZE {
                let cell = Cell::at(column, row).expect("on the board");
                let _ = write!(out, " {}", self.at(cell).symbol());
            }
            out.push_str(" |\n");
        }
        out.push_str("  +---------------+\n    a b c d e f g\n");
        out
    }
}

/// The content of one cell.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Square {
    /// Neither a block nor a stone.
    Free,
    /// A block: no stone can go there.
    Block,
    /// A stone of this colour.
    Stone(Color),
}

impl Square {
    const fn symbol(self) -> char {
        match self {
            Square::Free => '.',
            Square::Block => '#',
            Square::Stone(Color::White) => 'W',
            Square::Stone(Color::Black) => 'B',
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..SIZE).rev() {
            for column in 0..SIZE {
                f.write_char(self.at(Cell::at(column, row).expect("on the board")).symbol())?;
            }
            if row > 0 {
                f.write_char('/')?;
            }
        }
        f.write_str(match self.to_move {
            Color::White => " w",
            Color::Black => " b",
        })
    }
}

/// Why a string is not a position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParsePositionError {
    /// Not seven rows separated by `/`, a space and the side to move.
    #[error("expected 7 rows separated by '/', then a space and the side to move ('w' or 'b')")]
    Shape,
    /// A row does not have seven cells.
    #[error("row {row} has {len} cells, expected 7")]
    RowLength {
        /// The row's number, 1 (bottom) to 7 (top).
        row: usize,
        /// How many characters the row has.
        len: usize,
    },
    /// A row has a character that is no square.
    #[error("unexpected character {found:?} in row {row}: expected '.', '#', 'W' or 'B'")]
    Character {
        /// The row's number, 1 (bottom) to 7 (top).
        row: usize,
        /// The character.
        found: char,
    },
    /// The side to move is neither `w` nor `b`; holds what was there.
    #[error("side to move {0:?}: expected 'w' or 'b'")]
    Side(String),
}

impl FromStr for Position {
    type Err = ParsePositionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (board, side) = s.split_once(' ').ok_or(ParsePositionError::Shape)?;
        let to_move = match side {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(ParsePositionError::Side(other.to_owned())),
        };
        let rows: Vec<&str> = board.split('/').collect();
        if rows.len() != SIZE {
            return Err(ParsePositionError::Shape);
        }
        let mut position = Position::new(Bitboard::EMPTY);
        position.to_move = to_move;
        for (i, text) in rows.iter().enumerate() {
            let row = SIZE - 1 - i;
            let len = text.chars().count();
            if len != SIZE {
                return Err(ParsePositionError::RowLength { row: row + 1, len });
            }
            for (column, found) in text.chars().enumerate() {
                let cell = Cell::at(column, row).expect("on the board");
                match found {
                    '.' => {}
                    '#' => position.blocks = position.blocks.with(cell),
                    'W' => position.white = position.white.with(cell),
                    'B' => position.black = position.black.with(cell),
                    _ => {
                        return Err(ParsePositionError::Character { row: row + 1, found });
                    }
                }
            }
        }
        Ok(position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "..#..../......./...W.../...B.../......./.#...../......# w";

    #[test]
    fn text_form_round_trips() {
        let position: Position = SAMPLE.parse().unwrap();
        assert_eq!(position.to_string(), SAMPLE);
        assert_eq!(position.blocks().len(), 3);
        assert!(position.blocks().contains("c7".parse().unwrap()));
        assert!(position.white().contains("d5".parse().unwrap()));
        assert!(position.black().contains("d4".parse().unwrap()));
        assert!(position.blocks().contains("g1".parse().unwrap()));
    }

    #[test]
    fn rejects_malformed_text() {
        assert_eq!("".parse::<Position>(), Err(ParsePositionError::Shape));
        assert_eq!(
            "......./......./......./......./......./....... x".parse::<Position>(),
            Err(ParsePositionError::Side("x".into()))
        );
        assert_eq!(
            "......./......./......./......./......./......./...... w".parse::<Position>(),
            Err(ParsePositionError::RowLength { row: 1, len: 6 })
        );
        assert_eq!(
            "......./......./......./...x.../......./......./....... w".parse::<Position>(),
            Err(ParsePositionError::Character { row: 4, found: 'x' })
        );
    }

    #[test]
    fn diagram_has_coordinates() {
        let position: Position = SAMPLE.parse().unwrap();
        let diagram = position.diagram();
        assert!(diagram.contains("7 | . . # . . . . |"), "{diagram}");
        assert!(diagram.contains("1 | . . . . . . # |"), "{diagram}");
        assert!(diagram.ends_with("    a b c d e f g\n"));
    }
}
