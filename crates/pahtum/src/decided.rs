//! Whether a game's result can still change: the best final margin each colour can reach when every
//! remaining stone is placed in its favour, both players helping it.
//!
//! This is a bound, not a guess about good play. A colour's score depends on its own stones only
//! ([`crate::score`]), and adding a stone never lowers it; so from a position with `n` free cells, of which
//! the side to move fills `ceil(n / 2)` and the other `floor(n / 2)`, the best final margin of a colour is
//! the best split of the free cells into the two colours' shares. When even the trailing colour's best
//! margin is below zero, every way the game can go ends in the same result: the game is decided. Both
//! colours' best margins together bound the final margin from both sides (White's final margin lies in
//! `-best(Black) ..= best(White)`).
//!
//! The best split is found exactly by a branch and bound over the free cells: each cell goes to the colour
//! or to its opponent, and a branch is cut where even the colour taking every cell left, and the opponent
//! none, cannot beat the best split found. It is cheaper than the game's minimax value (one player, no
//! alternation), but still exponential at worst; a `budget` of search nodes keeps it bounded, and a search
//! that spends it proves nothing (`None`), so that a decision is never claimed that was not proven.

use crate::score::points;
use crate::{Bitboard, Color, Position};

/// The best final margin `color` can reach from `position` (its final score minus the opponent's) when
/// every remaining stone is placed in its favour; `None` when that takes more than `budget` search nodes.
pub fn best_margin(position: &Position, color: Color, budget: u64) -> Option<i32> {
    let free = position.free();
    let n = free.len();
    let (mover, other) = (n.div_ceil(2), n / 2);
    let share = if position.to_move() == color { mover } else { other };
    let mut search = Search {
        cells: free.cells().map(|cell| Bitboard::EMPTY.with(cell)).collect(),
        left: budget,
        best: i32::MIN,
    };
    search.split(
        0,
        position.stones(color),
        position.stones(color.opponent()),
        share,
        n - share,
    )?;
    Some(search.best)
}

/// White's final margin (White's score minus Black's) as far as `position` decides it: its lowest and its
/// highest over every way the game can go; `None` when either bound takes more than `budget` search nodes.
pub fn margin_bounds(position: &Position, budget: u64) -> Option<(i32, i32)> {
    let white = best_margin(position, Color::White, budget)?;
    let black = best_margin(position, Color::Black, budget)?;
    Some((-black, white))
}

/// The search of the best split: the free cells one by one, each to the colour or to its opponent.
struct Search {
    cells: Vec<Bitboard>,
    left: u64,
    best: i32,
}

impl Search {
    /// Splits the cells from `next` on, `own` more to the colour (its stones `mine`) and `theirs` more to the
    /// opponent (its stones `opposing`), raising `best`; `None` once the budget is spent.
    fn split(&mut self, next: usize, mine: Bitboard, opposing: Bitboard, own: u32, theirs: u32) -> Option<()> {
        self.left = self.left.checked_sub(1)?;
        let rest = self.cells[next..].iter().fold(Bitboard::EMPTY, |all, &cell| all | cell);
        // Every cell left to the colour, none to the opponent: no split of them does better.
        let bound = points(mine | rest) as i32 - points(opposing) as i32;
        if bound <= self.best {
            return Some(());
        }
        if own == 0 || theirs == 0 {
            let (mine, opposing) = if own == 0 {
                (mine, opposing | rest)
            } else {
                (mine | rest, opposing)
            };
            self.best = self.best.max(points(mine) as i32 - points(opposing) as i32);
            return Some(());
        }
        let cell = self.cells[next];
        self.split(next + 1, mine | cell, opposing, own - 1, theirs)?;
        self.split(next + 1, mine, opposing | cell, own, theirs - 1)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::Cell;

    /// The best margin by trying every split: the oracle.
    fn every_split(position: &Position, color: Color) -> i32 {
        let free: Vec<Cell> = position.free().cells().collect();
        let n = free.len() as u32;
        let share = if position.to_move() == color {
            n.div_ceil(2)
        } else {
            n / 2
        };
        (0u64..1 << free.len())
            .filter(|subset| subset.count_ones() == share)
            .map(|subset| {
                let taken: Bitboard = free
                    .iter()
                    .enumerate()
                    .filter(|(bit, _)| subset >> bit & 1 == 1)
                    .map(|(_, &cell)| cell)
                    .collect();
                let mine = position.stones(color) | taken;
                let opposing = position.stones(color.opponent()) | (position.free() & !taken);
                points(mine) as i32 - points(opposing) as i32
            })
            .max()
            .expect("a split")
    }

    /// A position with `free` cells left, from a random fill of the board drawn from `seed`.
    fn position(seed: u64, blocks: u32, free: u32) -> Position {
        let mut state = seed | 1;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut cells: Vec<Cell> = (0..49).filter_map(Cell::from_index).collect();
        for i in (1..cells.len()).rev() {
            cells.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        let block: Bitboard = cells[..blocks as usize].iter().copied().collect();
        let stones = &cells[blocks as usize..cells.len() - free as usize];
        let white: Bitboard = stones.iter().step_by(2).copied().collect();
        let black: Bitboard = stones.iter().skip(1).step_by(2).copied().collect();
        let to_move = if stones.len() % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        Position::from_parts(block, white, black, to_move).expect("a position")
    }

    proptest! {
        /// The branch and bound finds the best split that trying every split finds.
        #[test]
        fn the_best_margin_is_the_best_split(seed in any::<u64>(), blocks in 0..4_u32, free in 0..13_u32) {
            let blocks = 2 * blocks + 1;
            let position = position(seed, blocks, free);
            for color in [Color::White, Color::Black] {
                prop_assert_eq!(best_margin(&position, color, u64::MAX), Some(every_split(&position, color)));
            }
        }
    }

    #[test]
    fn a_full_board_is_its_score_and_a_spent_budget_proves_nothing() {
        let full = position(7, 5, 0);
        let score = full.score();
        let white = score.white as i32 - score.black as i32;
        assert_eq!(margin_bounds(&full, 1), Some((white, white)));
        let open = position(7, 5, 20);
        assert_eq!(best_margin(&open, Color::White, 3), None);
        let (low, high) = margin_bounds(&open, u64::MAX).unwrap();
        assert!(low <= high);
    }
}
