//! The search's own compact state: four words, copied freely by the searches.
//!
//! [`pahtum::Game`] keeps a history and phases for the referee; a search copies
//! its state at every node and every playout, so it works on [`Board`]: blocks,
//! the stones of each colour, the colour that acts and how many blocks are still
//! to be placed (players' placement). Colours are indices, `WHITE` and `BLACK`,
//! so that "mine" and "theirs" are `stones[mover]` and `stones[mover ^ 1]`.
//!
//! Scores depend on a colour's own stones only, so a stone changes its owner's
//! points in its row and its column and nothing else: [`gain`] is the whole
//! incremental evaluation.

use pahtum::score::{LINE_POINTS, column_line, row_line};
use pahtum::{Bitboard, Color, Game, Phase, SIZE};

/// White's colour index: `stones[WHITE]`, and `mover == WHITE` when White acts.
pub const WHITE: usize = 0;
/// Black's colour index; `mover ^ 1` turns one colour index into the other.
pub const BLACK: usize = 1;

/// Every cell of the board.
pub const FULL: u64 = Bitboard::FULL.0;

/// A position for the searches.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Board {
    /// The blocked cells, one bit per cell index as in [`Bitboard`] (`a1` is
    /// bit 0, `g7` bit 48).
    pub blocks: u64,
    /// Stones by colour index ([`WHITE`], [`BLACK`]).
    pub stones: [u64; 2],
    /// The colour index that acts now.
    pub mover: usize,
    /// Blocks the players still have to place before the first stone.
    pub blocks_left: u32,
}

impl Board {
    /// The state of `game`, with the colour that acts now as the mover.
    pub fn from_game(game: &Game) -> Board {
        let position = game.position();
        let blocks_left = match game.phase() {
            Phase::PlaceBlocks => (game.blocks_total() - position.blocks().len() as usize) as u32,
            _ => 0,
        };
        Board {
            blocks: position.blocks().0,
            stones: [position.white().0, position.black().0],
            mover: color_index(game.color_to_act().unwrap_or(position.to_move())),
            blocks_left,
        }
    }

    /// Cells with neither a block nor a stone.
    #[inline]
    pub fn free(&self) -> u64 {
        !(self.blocks | self.stones[WHITE] | self.stones[BLACK]) & FULL
    }

    /// Puts a block (while blocks are left) or a stone of the mover on the free
    /// `cell`, and passes the turn. Players place blocks Black, White, ...,
    /// Black, and White places the first stone, so the turn always alternates.
    #[inline]
    pub fn play(&mut self, cell: usize) {
        debug_assert!(self.free() & (1 << cell) != 0);
        if self.blocks_left > 0 {
            self.blocks |= 1 << cell;
            self.blocks_left -= 1;
        } else {
            self.stones[self.mover] |= 1 << cell;
        }
        self.mover ^= 1;
    }

    /// White's points minus Black's, now.
    pub fn margin(&self) -> i32 {
        pahtum::score::points(Bitboard(self.stones[WHITE])) as i32
            - pahtum::score::points(Bitboard(self.stones[BLACK])) as i32
    }
}

/// The index of `color` in [`Board::stones`].
pub const fn color_index(color: Color) -> usize {
    match color {
        Color::White => WHITE,
        Color::Black => BLACK,
    }
}

/// The row and column of a cell index.
#[inline]
pub const fn row_column(cell: usize) -> (usize, usize) {
    (cell / SIZE, cell % SIZE)
}

/// Points that `stones` gain when a stone is added on the free `cell`.
#[inline]
pub fn gain(stones: u64, cell: usize) -> u32 {
    let (row, column) = row_column(cell);
    let with = stones | 1 << cell;
    LINE_POINTS[row_line(with, row)] - LINE_POINTS[row_line(stones, row)] + LINE_POINTS[column_line(with, column)]
        - LINE_POINTS[column_line(stones, column)]
}

/// The cells of the rows and the columns of two 7-bit masks, as a board mask.
#[inline]
pub fn lines_mask(rows: u32, columns: u32) -> u64 {
    ROW_SPREAD[rows as usize] | COLUMN_SPREAD[columns as usize]
}

/// `ROW_SPREAD[rows]`: the cells of the rows of a 7-bit mask.
static ROW_SPREAD: [u64; 128] = spread(0x7f, SIZE);
/// `COLUMN_SPREAD[columns]`: the cells of the columns of a 7-bit mask.
static COLUMN_SPREAD: [u64; 128] = spread(0x0000_0408_1020_4081, 1);

const fn spread(first_line: u64, step: usize) -> [u64; 128] {
    let mut table = [0; 128];
    let mut lines = 0;
    while lines < 128 {
        let mut line = 0;
        while line < SIZE {
            if lines & (1 << line) != 0 {
                table[lines] |= first_line << (line * step);
            }
            line += 1;
        }
        lines += 1;
    }
    table
}

/// The rows and the columns (as 7-bit masks) that contain a cell of `cells`.
#[inline]
pub fn lines_touched(cells: u64) -> (u32, u32) {
    let mut rows = 0;
    let mut columns = 0u64;
    for row in 0..SIZE {
        let line = (cells >> (row * SIZE)) & 0x7f;
        rows |= u32::from(line != 0) << row;
        columns |= line;
    }
    (rows, columns as u32)
}

/// The cell indices of a mask, lowest first.
#[inline]
pub fn cells_of(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let cell = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            cell
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pahtum::{Action, Cell, Layout};

    #[test]
    fn gain_is_the_change_of_points() {
        let stones = 0b0110_1100u64 | 1 << 14 | 1 << 21;
        for cell in cells_of(!stones & FULL) {
            let before = pahtum::score::points(Bitboard(stones));
            let after = pahtum::score::points(Bitboard(stones | 1 << cell));
            assert_eq!(gain(stones, cell), after - before, "cell {cell}");
        }
    }

    #[test]
    fn block_placement_alternates_into_white_first_stone() {
        let mut game = Game::new(&Layout::Placed { count: 3 }, true).unwrap();
        let mut board = Board::from_game(&game);
        assert_eq!((board.mover, board.blocks_left), (BLACK, 3));
        for text in ["#a1", "#b1", "#c1"] {
            let cell = match text.parse::<Action>().unwrap() {
                Action::Block(cell) => cell,
                _ => unreachable!(),
            };
            board.play(cell.index());
            game.play_text(text).unwrap();
            assert_eq!(board, Board::from_game(&game));
        }
        assert_eq!((board.mover, board.blocks_left), (WHITE, 0));
        let d4: Cell = "d4".parse().unwrap();
        board.play(d4.index());
        game.play_text("d4").unwrap();
        assert_eq!(board, Board::from_game(&game));
        game.play_text("swap").unwrap();
        assert_eq!(board, Board::from_game(&game), "a swap changes seats, not the board");
    }

    #[test]
    fn lines_touched_and_their_mask() {
        let cells = 1 << 8 | 1 << 48;
        assert_eq!(lines_touched(cells), (0b100_0010, 0b100_0010));
        let mask = lines_mask(0b10, 0b1);
        assert_eq!(mask.count_ones(), 13);
    }
}
