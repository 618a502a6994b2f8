//! Sets of cells as 49-bit masks.
//!
//! Bit `i` is the cell with index `i` (see [`Cell`]). Set operations are single
//! machine instructions, which is what makes playouts and scoring fast.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

use crate::Cell;

/// A set of cells.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No cell.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// Every cell of the board.
    pub const FULL: Bitboard = Bitboard((1 << crate::CELLS) - 1);

    /// Whether `cell` is in the set.
    #[inline]
    pub const fn contains(self, cell: Cell) -> bool {
        self.0 & cell.bit() != 0
    }

    /// The set with `cell` added.
    #[inline]
    #[must_use]
    pub const fn with(self, cell: Cell) -> Bitboard {
        Bitboard(self.0 | cell.bit())
    }

    /// Number of cells in the set.
    #[inline]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The cells of the set, in index order (`a1`, `b1`, ..., `g7`).
    #[inline]
    pub fn cells(self) -> Cells {
        Cells(self.0)
    }
}

impl FromIterator<Cell> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Cell>>(iter: I) -> Self {
        Bitboard(iter.into_iter().fold(0, |bits, cell| bits | cell.bit()))
    }
}

impl BitOr for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 | rhs.0)
    }
}

impl BitOrAssign for Bitboard {
    #[inline]
    fn bitor_assign(&mut self, rhs: Bitboard) {
        self.0 |= rhs.0;
    }
}

impl BitAnd for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitand(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & rhs.0)
    }
}

impl BitAndAssign for Bitboard {
    #[inline]
    fn bitand_assign(&mut self, rhs: Bitboard) {
        self.0 &= rhs.0;
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    /// The complement within the board (never sets bits above 48).
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Bitboard::FULL.0)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.cells().map(|c| c.to_string())).finish()
    }
}

/// Iterator over the cells of a [`Bitboard`].
#[derive(Debug, Clone)]
pub struct Cells(u64);

impl Iterator for Cells {
    type Item = Cell;

    #[inline]
    fn next(&mut self) -> Option<Cell> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Cell::from_index(index)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Cells {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations() {
        let a1: Cell = "a1".parse().unwrap();
        let g7: Cell = "g7".parse().unwrap();
        let set = Bitboard::EMPTY.with(a1).with(g7);
        assert_eq!(set.len(), 2);
        assert!(set.contains(g7));
        assert_eq!(set.cells().collect::<Vec<_>>(), vec![a1, g7]);
        assert_eq!((!set).len(), 47);
        assert_eq!(!Bitboard::FULL, Bitboard::EMPTY);
    }
}
