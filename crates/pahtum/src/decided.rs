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
//! [`decided`] asks the question a referee asks after every ply (is the result fixed?) and answers most
//! positions without the search: a greedy split reaches a margin, and when both colours reach one of at
//! least zero the result is still open.

use crate::score::points;
use crate::{Bitboard, Color, Outcome, Position};

/// White's final margin (White's score minus Black's) as far as a position decides it: its lowest and its
/// highest over every way the game can go from there.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Margins {
    /// The lowest: Black's best margin, negated.
    pub low: i32,
    /// The highest: White's best margin.
    pub high: i32,
}

impl Margins {
    /// The result every game within these margins ends with, when they fix one: White's when even the
    /// lowest is above zero, Black's when even the highest is below, a draw when both are zero.
    pub fn outcome(self) -> Option<Outcome> {
        match (self.low, self.high) {
            (low, _) if low > 0 => Some(Outcome::White),
            (_, high) if high < 0 => Some(Outcome::Black),
            (0, 0) => Some(Outcome::Draw),
            _ => None,
        }
    }

    /// Whether these margins hold every margin of `within` (they are no tighter than the truth).
    pub fn contain(self, within: Margins) -> bool {
        self.low <= within.low && within.high <= self.high
    }
}

/// The best final margin `color` can reach from `position` (its final score minus the opponent's) when
/// every remaining stone is placed in its favour; `None` when that takes more than `budget` search nodes.
pub fn best_margin(position: &Position, color: Color, budget: u64) -> Option<i32> {
    best_margin_from(position, color, greedy_margin(position, color), budget)
}

/// White's final margin as far as `position` decides it ([`Margins`]); `None` when either bound takes more
/// than `budget` search nodes.
pub fn margin_bounds(position: &Position, budget: u64) -> Option<Margins> {
    let white = best_margin(position, Color::White, budget)?;
    let black = best_margin(position, Color::Black, budget)?;
    Some(Margins {
        low: -black,
        high: white,
    })
}

/// White's final margin when `position` already fixes the game's result ([`Margins::outcome`]), whatever
/// both sides play; `None` when it does not, or when proving it takes more than `budget` search nodes
/// (unproven: play on).
///
/// A cheap test comes first, so that most positions of a game cost no search: one split of the free cells
/// chosen greedily for each colour (each stone where it adds the most) is a margin that colour can reach,
/// so when both colours reach a margin of at least zero, and one of them more, nothing is decided.
pub fn decided(position: &Position, budget: u64) -> Option<Margins> {
    let white = greedy_margin(position, Color::White);
    let black = greedy_margin(position, Color::Black);
    if white >= 0 && black >= 0 && (white > 0 || black > 0) {
        return None;
    }
    let margins = Margins {
        low: -best_margin_from(position, Color::Black, black, budget)?,
        high: best_margin_from(position, Color::White, white, budget)?,
    };
    margins.outcome().map(|_| margins)
}

/// The number of free cells of `position` that `color` fills: the side to move fills one more when their
/// number is odd.
fn share_of(position: &Position, color: Color) -> u32 {
    let n = position.free().len();
    if position.to_move() == color {
        n.div_ceil(2)
    } else {
        n / 2
    }
}

/// A margin `color` can reach from `position`: each of its stones, one by one, where it does the most for
/// the margin with every cell not yet taken left to the opponent (the first such cell), the opponent's on the
/// cells left at the end. A lower bound of [`best_margin`], cheap.
fn greedy_margin(position: &Position, color: Color) -> i32 {
    let mut mine = position.stones(color);
    let theirs = position.stones(color.opponent());
    let mut free = position.free();
    for _ in 0..share_of(position, color) {
        let margin =
            |cell| points(mine.with(cell)) as i32 - points(theirs | (free & !Bitboard::EMPTY.with(cell))) as i32;
        let cell = free
            .cells()
            .max_by_key(|&cell| (margin(cell), std::cmp::Reverse(cell.index())))
            .expect("a free cell for each stone of the share");
        mine = mine.with(cell);
        free &= !Bitboard::EMPTY.with(cell);
    }
    points(mine) as i32 - points(theirs | free) as i32
}

/// [`best_margin`] from a margin `floor` that `color` is known to reach: only better splits are searched.
fn best_margin_from(position: &Position, color: Color, floor: i32, budget: u64) -> Option<i32> {
    let free = position.free();
    let share = share_of(position, color);
    let mut search = Search {
        cells: free.cells().map(|cell| Bitboard::EMPTY.with(cell)).collect(),
        left: budget,
        best: floor,
    };
    search.split(
        0,
        position.stones(color),
        position.stones(color.opponent()),
        share,
        free.len() - share,
    )?;
    Some(search.best)
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

    /// The final margin of `position` filled at random from `seed`, the side to move first, in turn.
    fn random_fill(position: &Position, seed: u64) -> i32 {
        let mut cells: Vec<Cell> = position.free().cells().collect();
        let mut state = seed | 1;
        for i in (1..cells.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            cells.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let mut stones = [
            position.stones(position.to_move()),
            position.stones(position.to_move().opponent()),
        ];
        for (turn, &cell) in cells.iter().enumerate() {
            stones[turn % 2] = stones[turn % 2].with(cell);
        }
        let (white, black) = match position.to_move() {
            Color::White => (stones[0], stones[1]),
            Color::Black => (stones[1], stones[0]),
        };
        points(white) as i32 - points(black) as i32
    }

    proptest! {
        /// The branch and bound finds the best split that trying every split finds, and the greedy split is
        /// no better.
        #[test]
        fn the_best_margin_is_the_best_split(seed in any::<u64>(), blocks in 0..4_u32, free in 0..13_u32) {
            let blocks = 2 * blocks + 1;
            let position = position(seed, blocks, free);
            for color in [Color::White, Color::Black] {
                let best = every_split(&position, color);
                prop_assert_eq!(best_margin(&position, color, u64::MAX), Some(best));
                prop_assert!(greedy_margin(&position, color) <= best);
            }
        }

        /// Whenever a position is decided, every completion of it ends with the result it names and a margin
        /// within its bounds; and it is decided exactly when the exact bounds fix the result.
        #[test]
        fn a_decided_result_is_every_completions(seed in any::<u64>(), blocks in 0..4_u32, free in 0..25_u32) {
            let position = position(seed, 2 * blocks + 1, free);
            let decision = decided(&position, u64::MAX);
            let bounds = margin_bounds(&position, u64::MAX).unwrap();
            prop_assert_eq!(decision, bounds.outcome().map(|_| bounds));
            if let Some(margins) = decision {
                let outcome = margins.outcome().unwrap();
                for fill in 0..64 {
                    let margin = random_fill(&position, seed ^ fill);
                    prop_assert!(margins.low <= margin && margin <= margins.high);
                    let result = match margin.signum() {
                        1 => Outcome::White,
                        -1 => Outcome::Black,
                        _ => Outcome::Draw,
                    };
                    prop_assert_eq!(result, outcome);
                }
            }
        }
    }

    #[test]
    fn a_full_board_is_its_score_and_a_spent_budget_proves_nothing() {
        let full = position(7, 5, 0);
        let score = full.score();
        let white = score.white as i32 - score.black as i32;
        let margins = Margins {
            low: white,
            high: white,
        };
        assert_eq!(margin_bounds(&full, 1), Some(margins));
        assert_eq!(decided(&full, 1), Some(margins));
        let open = position(7, 5, 20);
        assert_eq!(best_margin(&open, Color::White, 3), None);
        let bounds = margin_bounds(&open, u64::MAX).unwrap();
        assert!(bounds.low <= bounds.high);
        assert!(
            bounds.contain(bounds)
                && !Margins {
                    low: bounds.low + 1,
                    ..bounds
                }
                .contain(bounds)
        );
    }

    #[test]
    fn margins_fix_a_result_only_on_one_side_of_zero() {
        let outcome = |low, high| Margins { low, high }.outcome();
        assert_eq!(outcome(1, 9), Some(Outcome::White));
        assert_eq!(outcome(-9, -1), Some(Outcome::Black));
        assert_eq!(outcome(0, 0), Some(Outcome::Draw));
        assert_eq!(outcome(0, 3), None);
        assert_eq!(outcome(-3, 0), None);
    }
}
