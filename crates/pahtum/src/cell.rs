//! Cells and their notation.
//!
//! A cell is stored as its index `row * 7 + column`, with row 0 the bottom rank
//! (`1`) and column 0 the left file (`a`), so that `a1` is bit 0 and `g7` is bit 48
//! of a [`Bitboard`](crate::Bitboard). The text form is exactly one lowercase
//! letter `a`-`g` followed by one digit `1`-`7`; anything else is rejected, with no
//! trimming or case folding, so that a bot's sloppy output is reported, not guessed.

use std::fmt;
use std::str::FromStr;

use crate::{CELLS, SIZE};

/// One of the 49 cells of the board.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell(u8);

impl Cell {
    /// All cells, `a1`, `b1`, ..., `g7`.
    pub fn all() -> impl DoubleEndedIterator<Item = Cell> + ExactSizeIterator + Clone {
        (0..CELLS as u8).map(Cell)
    }

    /// The cell at `index` (`row * 7 + column`), if it is on the board.
    pub const fn from_index(index: usize) -> Option<Cell> {
        if index < CELLS { Some(Cell(index as u8)) } else { None }
    }

    /// The cell at `column` (0 = `a`) and `row` (0 = `1`), if both are on the board.
    pub const fn at(column: usize, row: usize) -> Option<Cell> {
        if column < SIZE && row < SIZE {
            Some(Cell((row * SIZE + column) as u8))
        } else {
            None
        }
    }

    /// Index `row * 7 + column`, from 0 to 48.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Column, 0 (`a`) to 6 (`g`).
    pub const fn column(self) -> usize {
        self.0 as usize % SIZE
    }

    /// Row, 0 (`1`) to 6 (`7`).
    pub const fn row(self) -> usize {
        self.0 as usize / SIZE
    }

    /// The single-bit mask of this cell.
    pub const fn bit(self) -> u64 {
        1 << self.0
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = (b'a' + self.column() as u8) as char;
        let rank = (b'1' + self.row() as u8) as char;
        write!(f, "{file}{rank}")
    }
}

impl fmt::Debug for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cell({self})")
    }
}

/// Why a string is not a cell.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseCellError {
    /// The string was empty.
    #[error("empty cell: expected a column a-g and a row 1-7, like \"d4\"")]
    Empty,
    /// The string is not two characters long (counted in `char`s); holds the
    /// string.
    #[error("{0:?} is not a cell: expected exactly two characters, a column a-g and a row 1-7, like \"d4\"")]
    Length(String),
    /// The first character is not a column `a`-`g` (uppercase is refused);
    /// holds the string.
    #[error("{0:?} is not a cell: the column must be a lowercase letter a-g")]
    Column(String),
    /// The second character is not a row `1`-`7`; holds the string.
    #[error("{0:?} is not a cell: the row must be a digit 1-7")]
    Row(String),
}

impl FromStr for Cell {
    type Err = ParseCellError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bytes = s.as_bytes();
        if bytes.is_empty() {
            return Err(ParseCellError::Empty);
        }
        if bytes.len() != 2 {
            return Err(ParseCellError::Length(s.to_owned()));
        }
        let column = match bytes[0] {
            b @ b'a'..=b'g' => (b - b'a') as usize,
            _ => return Err(ParseCellError::Column(s.to_owned())),
        };
        let row = match bytes[1] {
            b @ b'1'..=b'7' => (b - b'1') as usize,
            _ => return Err(ParseCellError::Row(s.to_owned())),
        };
        Ok(Cell((row * SIZE + column) as u8))
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Cell {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::text_serde::serialize(self, serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Cell {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::text_serde::deserialize(deserializer, "a cell such as \"d4\"")
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for Cell {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Cell".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[a-g][1-7]$",
            "description": "A cell: its column a-g, then its row 1-7 (a1 is bottom-left)."
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_and_centre() {
        assert_eq!("a1".parse::<Cell>().unwrap().index(), 0);
        assert_eq!("g1".parse::<Cell>().unwrap().index(), 6);
        assert_eq!("a7".parse::<Cell>().unwrap().index(), 42);
        assert_eq!("g7".parse::<Cell>().unwrap().index(), 48);
        let d4: Cell = "d4".parse().unwrap();
        assert_eq!((d4.column(), d4.row()), (3, 3));
    }

    #[test]
    fn rejects_everything_else() {
        for bad in ["", "h1", "a0", "a8", "A1", "a1 ", " a1", "a", "a11", "1a", "ä1", "d4\n"] {
            assert!(bad.parse::<Cell>().is_err(), "{bad:?} parsed");
        }
        assert_eq!("".parse::<Cell>(), Err(ParseCellError::Empty));
        assert_eq!("h1".parse::<Cell>(), Err(ParseCellError::Column("h1".into())));
        assert_eq!("a0".parse::<Cell>(), Err(ParseCellError::Row("a0".into())));
        assert_eq!("A1 ".parse::<Cell>(), Err(ParseCellError::Length("A1 ".into())));
    }

    #[test]
    fn every_cell_round_trips() {
        for cell in Cell::all() {
            assert_eq!(cell.to_string().parse::<Cell>(), Ok(cell));
            assert_eq!(Cell::at(cell.column(), cell.row()), Some(cell));
        }
        assert_eq!(Cell::all().count(), 49);
        assert_eq!(Cell::from_index(49), None);
        assert_eq!(Cell::at(7, 0), None);
    }
}
