//! What the search knows about Pah Tum without searching: the worth of a line.
//!
//! The York study found that knowledge is what makes a Pah Tum program strong:
//! random playouts alone mislead. The search's knowledge is one table. For a
//! line of seven cells, seen by one colour, each cell is the colour's stone,
//! *dead* (a block or an opponent stone: it can never become the colour's) or
//! free. [`expected`] gives the points the colour would score in that line if
//! each free cell became its stone with probability one half, independently.
//! It values a run of three that can still grow to seven far above one that is
//! boxed in, an open line above a crowded one, and a cut in an opponent line by
//! how much that line stood to score.
//!
//! Two numbers come from the table:
//!
//! * the *stake* of a free cell ([`stake`]): what owning it rather than losing
//!   it is worth, to the mover (attack) plus to the opponent (defence), in its
//!   row and its column. It ranks moves for the tree's priors, the playouts and
//!   the one-ply player of level 0, and is the York "open lines, immediate
//!   gain, opponent's gain blocked" heuristic in one lookup per line;
//! * the *outlook* of a board ([`outlook`]): the expected margin over all
//!   fourteen lines, for the mover.

use std::sync::LazyLock;

use pahtum::SIZE;
use pahtum::score::{LINE_POINTS, column_line, row_line};

use crate::board::{Board, row_column};

/// The probability that a free cell ends up as the colour's stone in the
/// model: the fair split, as each player gets half of the cells (other values
/// have not been tried).
const SHARE: f64 = 0.5;

/// `EXPECTED[own << 7 | dead]`: expected points of a line with `own` stones and
/// `dead` cells (7-bit masks).
static EXPECTED: LazyLock<Box<[f32]>> = LazyLock::new(|| {
    let mut table = vec![0.0f32; 1 << 14];
    for own in 0..128usize {
        for dead in 0..128usize {
            if own & dead != 0 {
                continue;
            }
            let free = !(own | dead) & 0x7f;
            let free_count = free.count_ones() as i32;
            let mut total = 0.0;
            // Every subset of the free cells, with its probability.
            let mut subset = free;
            loop {
                let taken = subset.count_ones() as i32;
                let probability = SHARE.powi(taken) * (1.0 - SHARE).powi(free_count - taken);
                total += probability * f64::from(LINE_POINTS[own | subset]);
                if subset == 0 {
                    break;
                }
                subset = (subset - 1) & free;
            }
            table[own << 7 | dead] = total as f32;
        }
    }
    table.into_boxed_slice()
});

/// Expected points of one line (7-bit masks of own stones and dead cells).
#[inline]
pub fn expected(own: usize, dead: usize) -> f32 {
    EXPECTED[own << 7 | dead]
}

/// The table behind [`expected`], for callers that look it up many times.
pub(crate) fn table() -> &'static [f32] {
    &EXPECTED
}

/// What owning rather than losing `bit` is worth in one line, to the colour
/// with `own` stones and `dead` cells there (`table` is [`table`]): one of
/// the four parts of a [`stake`].
#[inline]
pub(crate) fn line_stake(table: &[f32], own: usize, dead: usize, bit: usize) -> f32 {
    table[(own | bit) << 7 | dead] - table[own << 7 | dead | bit]
}

/// The stake of the free `cell` for the mover of `board`: attack plus defence,
/// in its row and its column.
#[inline]
pub fn stake(board: &Board, cell: usize) -> f32 {
    let table: &[f32] = &EXPECTED;
    let mine = board.stones[board.mover];
    let theirs = board.stones[board.mover ^ 1];
    let (row, column) = row_column(cell);
    let row_bit = 1 << column;
    let column_bit = 1 << row;
    let my_dead = theirs | board.blocks;
    let their_dead = mine | board.blocks;
    line_stake(table, row_line(mine, row), row_line(my_dead, row), row_bit)
        + line_stake(
            table,
            column_line(mine, column),
            column_line(my_dead, column),
            column_bit,
        )
        + line_stake(table, row_line(theirs, row), row_line(their_dead, row), row_bit)
        + line_stake(
            table,
            column_line(theirs, column),
            column_line(their_dead, column),
            column_bit,
        )
}

/// The expected final margin for the mover of `board`, line by line.
pub fn outlook(board: &Board) -> f32 {
    let table: &[f32] = &EXPECTED;
    let mine = board.stones[board.mover];
    let theirs = board.stones[board.mover ^ 1];
    let my_dead = theirs | board.blocks;
    let their_dead = mine | board.blocks;
    let mut total = 0.0;
    for line in 0..SIZE {
        total += table[row_line(mine, line) << 7 | row_line(my_dead, line)]
            + table[column_line(mine, line) << 7 | column_line(my_dead, line)]
            - table[row_line(theirs, line) << 7 | row_line(their_dead, line)]
            - table[column_line(theirs, line) << 7 | column_line(their_dead, line)];
    }
    total
}

/// The free cell with the highest stake (lowest index among equals), if any.
pub fn best_stake(board: &Board) -> Option<usize> {
    let mut best = None;
    let mut best_stake = f32::NEG_INFINITY;
    for cell in crate::board::cells_of(board.free()) {
        let value = stake(board, cell);
        if value > best_stake {
            best_stake = value;
            best = Some(cell);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{BLACK, WHITE};

    #[test]
    fn decided_lines_are_worth_their_points() {
        assert_eq!(expected(0x7f, 0), 119.0);
        assert_eq!(expected(0b0111_0111, 0b1000), 6.0);
        assert_eq!(expected(0, 0x7f), 0.0);
    }

    #[test]
    fn an_open_line_is_worth_more_than_a_cut_one() {
        // Three in a row with four free cells beside them, or with none.
        let open = expected(0b000_0111, 0);
        let cut = expected(0b000_0111, 0b111_1000);
        assert!(open > cut && cut == 3.0, "{open} {cut}");
    }

    #[test]
    fn outlook_is_the_margin_on_a_full_board() {
        let board = Board {
            blocks: 1 << 24,
            stones: [0x7f | 1 << 7, 0x7f << 14],
            mover: WHITE,
            blocks_left: 0,
        };
        // Unfilled cells count at their expectation, so fill the board first.
        let mut full = board;
        for cell in crate::board::cells_of(board.free()) {
            full.stones[cell % 2] |= 1 << cell;
        }
        assert!((outlook(&full) - full.margin() as f32).abs() < 1e-3);
        full.mover = BLACK;
        assert!((outlook(&full) + full.margin() as f32).abs() < 1e-3);
    }

    #[test]
    fn the_stake_prefers_extending_and_cutting_runs() {
        // White has a1 b1 c1; Black has a3 b3 c3. White to move.
        let board = Board {
            blocks: 0,
            stones: [0b111, 0b111 << 14],
            mover: WHITE,
            blocks_left: 0,
        };
        let d1 = 3;
        let d3 = 17;
        let g7 = 48;
        assert!(stake(&board, d1) > stake(&board, g7));
        assert!(stake(&board, d3) > stake(&board, g7));
        assert_eq!(best_stake(&board).map(|c| c == d1 || c == d3), Some(true));
    }
}
