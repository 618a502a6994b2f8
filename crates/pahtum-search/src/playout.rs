//! Playouts guided by the knowledge.
//!
//! A uniformly random playout fills a line with a random mix of colours, so it
//! sees no difference between a run that the opponent will surely cut and one
//! that nobody can stop; the York study found such playouts misleading. Here
//! each ply plays the free cell with the highest [`stake`](crate::knowledge::stake) (extend your runs,
//! cut the opponent's), except with a small probability a random cell, which
//! keeps the playouts from all telling the same story. The stake of a cell is
//! the same for both colours (attack for one is defence for the other), and a
//! stone changes the stakes of its own row and column only, so the stakes are
//! computed once per playout and then updated incrementally: a ply costs a
//! dozen stake updates and a scan of the free cells. A stake is four parts
//! (each colour's worth of the cell in its row and in its column, see
//! [`stake`](crate::knowledge::stake)), and a stone changes only the row parts of the cells of its row
//! and the column parts of those of its column: the parts are kept, each
//! line's masks read once, and a stake is summed again from them, in the
//! order [`stake`](crate::knowledge::stake) sums them, so that it is the same number.
//!
//! This greedy policy beat the cheaper "best of k random cells" tournaments at
//! equal time (`bots/pahtum-engine/EXPERIMENTS.md` has the measurements).

use rand::Rng;

use pahtum::score::{column_line, row_line};

use crate::board::{BLACK, Board, WHITE, cells_of, lines_mask, row_column};
use crate::knowledge::{line_stake, table};

/// Plays `board` to the end, each ply on the free cell of highest stake (the
/// lowest index among equals), or with probability `epsilon` on a random one,
/// and returns the full board. Remaining blocks are placed first, at random.
pub fn playout<R: Rng + ?Sized>(board: &Board, epsilon: f32, rng: &mut R) -> Board {
    let mut board = *board;
    let mut free = [0u8; pahtum::CELLS];
    let mut count = 0;
    for cell in cells_of(board.free()) {
        free[count] = cell as u8;
        count += 1;
    }
    while board.blocks_left > 0 {
        let pick = below(rng, count);
        board.play(usize::from(free[pick]));
        count -= 1;
        free[pick] = free[count];
    }
    let table = table();
    let mut parts = Parts::default();
    for line in 0..pahtum::SIZE {
        parts.refresh(&board, table, line, Axis::Row);
        parts.refresh(&board, table, line, Axis::Column);
    }
    let mut stakes = [0f32; pahtum::CELLS];
    for &cell in &free[..count] {
        stakes[usize::from(cell)] = parts.stake(board.mover, usize::from(cell));
    }
    let threshold = (f64::from(epsilon) * u64::MAX as f64) as u64;
    while count > 0 {
        let pick = if rng.next_u64() < threshold {
            below(rng, count)
        } else {
            let mut pick = 0;
            let mut best = f32::NEG_INFINITY;
            for (index, &cell) in free[..count].iter().enumerate() {
                if stakes[usize::from(cell)] > best {
                    best = stakes[usize::from(cell)];
                    pick = index;
                }
            }
            pick
        };
        let cell = usize::from(free[pick]);
        board.play(cell);
        count -= 1;
        free[pick] = free[count];
        let (row, column) = row_column(cell);
        parts.refresh(&board, table, row, Axis::Row);
        parts.refresh(&board, table, column, Axis::Column);
        let lines = lines_mask(1 << row, 1 << column);
        for other in cells_of(lines & board.free()) {
            stakes[other] = parts.stake(board.mover, other);
        }
    }
    board
}

/// A row or a column.
#[derive(Clone, Copy)]
enum Axis {
    Row = 0,
    Column = 1,
}

/// The parts of the free cells' stakes: `0[color][axis][cell]`, what the
/// cell is worth to the colour in its row or its column.
struct Parts([[[f32; pahtum::CELLS]; 2]; 2]);

impl Default for Parts {
    fn default() -> Self {
        Parts([[[0.0; pahtum::CELLS]; 2]; 2])
    }
}

impl Parts {
    /// Computes the parts along `line` (a row or a column by `axis`) of its
    /// free cells, for both colours.
    #[inline]
    fn refresh(&mut self, board: &Board, table: &[f32], line: usize, axis: Axis) {
        let read = |stones: u64| match axis {
            Axis::Row => row_line(stones, line),
            Axis::Column => column_line(stones, line),
        };
        let cell = |at: usize| match axis {
            Axis::Row => line * pahtum::SIZE + at,
            Axis::Column => at * pahtum::SIZE + line,
        };
        let free = read(board.free());
        for color in [WHITE, BLACK] {
            let own = read(board.stones[color]);
            let dead = read(board.stones[color ^ 1] | board.blocks);
            for at in cells_of(free as u64) {
                self.0[color][axis as usize][cell(at)] = line_stake(table, own, dead, 1 << at);
            }
        }
    }

    /// The stake of `cell` for `mover`, as [`stake`](crate::knowledge::stake) sums it: the mover's
    /// row and column, then the other's.
    #[inline]
    fn stake(&self, mover: usize, cell: usize) -> f32 {
        let [mine, theirs] = [&self.0[mover], &self.0[mover ^ 1]];
        mine[0][cell] + mine[1][cell] + theirs[0][cell] + theirs[1][cell]
    }
}

/// 1, 0.5 or 0 for White on a full board.
pub fn result_for_white(board: &Board) -> f32 {
    match board.margin().signum() {
        1 => 1.0,
        0 => 0.5,
        _ => 0.0,
    }
}

/// The result for the colour index `color` from the result for White.
#[inline]
pub fn result_for(color: usize, white_result: f32) -> f32 {
    if color == WHITE {
        white_result
    } else {
        1.0 - white_result
    }
}

/// A number below `n` (`n > 0`) from one 64-bit output, by multiplication.
#[inline]
pub fn below<R: Rng + ?Sized>(rng: &mut R, n: usize) -> usize {
    ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    use super::*;
    use crate::board::BLACK;

    #[test]
    fn with_one_cell_left_the_playout_plays_it() {
        // Everything is decided but g1, where White completes a row of seven.
        let mut board = Board {
            blocks: 0,
            stones: [0x3f, 0],
            mover: WHITE,
            blocks_left: 0,
        };
        for cell in 7..pahtum::CELLS {
            board.stones[cell % 2] |= 1 << cell;
        }
        let mut end = board;
        end.play(6);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        assert_eq!(playout(&board, 0.5, &mut rng), end);
        assert_eq!(end.margin() - board.margin(), 119 - 56);
    }

    #[test]
    fn playouts_place_the_blocks_left_then_fill_the_board() {
        let board = Board {
            blocks: 0,
            stones: [0, 0],
            mover: BLACK,
            blocks_left: 5,
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let mut seen = [false; 3];
        for _ in 0..200 {
            let result = result_for_white(&playout(&board, 0.5, &mut rng));
            seen[(result * 2.0) as usize] = true;
        }
        assert_eq!(seen, [true, true, true], "wins, draws and losses all happen");
        assert_eq!(result_for(BLACK, 1.0), 0.0);
    }
}
