//! Uniformly random playouts.
//!
//! A uniformly random continuation of a position is a uniformly random order of
//! its free cells, filled alternately starting with the side to move. Shuffling
//! the free cells once (Fisher-Yates) and then scoring two bitboards is much
//! cheaper than playing move by move through [`Game`](crate::Game), and gives
//! exactly the same distribution of final boards. Engines use it for Monte Carlo
//! evaluation; the benchmark uses it to measure the rules' raw speed.

use rand::Rng;

use crate::{Bitboard, CELLS, Color, Position, Score};

/// Fills the free cells of `position` in a uniformly random order, alternating
/// colours from the side to move, and returns the final score.
#[inline]
pub fn random_playout<R: Rng + ?Sized>(position: &Position, rng: &mut R) -> Score {
    random_fill(position, rng).score()
}

/// Fills the free cells of `position` in a uniformly random order, alternating
/// colours from the side to move, and returns the full board.
#[inline]
pub fn random_fill<R: Rng + ?Sized>(position: &Position, rng: &mut R) -> Position {
    let mut cells = [0u8; CELLS];
    let mut len = 0;
    let mut free = position.free().0;
    while free != 0 {
        cells[len] = free.trailing_zeros() as u8;
        len += 1;
        free &= free - 1;
    }
    let mut mover = 0u64;
    let mut other = 0u64;
    // Draw the cell for each ply from the cells still unused: cells[i..len].
    for i in 0..len {
        let j = i + below(rng, (len - i) as u64);
        cells.swap(i, j);
        let bit = 1u64 << cells[i];
        if i % 2 == 0 {
            mover |= bit;
        } else {
            other |= bit;
        }
    }
    let (white, black) = match position.to_move() {
        Color::White => (position.white().0 | mover, position.black().0 | other),
        Color::Black => (position.white().0 | other, position.black().0 | mover),
    };
    let to_move = if len % 2 == 0 {
        position.to_move()
    } else {
        position.to_move().opponent()
    };
    Position::from_parts(position.blocks(), Bitboard(white), Bitboard(black), to_move)
        .expect("a playout fills free cells only")
}

/// A number below `n` from one 64-bit output by multiplication (Lemire without
/// the rejection step): the bias is below `n / 2^64`, about 3e-18 for `n <= 49`.
#[inline]
fn below<R: Rng + ?Sized>(rng: &mut R, n: u64) -> usize {
    ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as usize
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    use super::*;
    use crate::setup::random_blocks;

    #[test]
    fn playouts_fill_the_board_evenly() {
        let mut rng = SmallRng::seed_from_u64(7);
        let start = Position::new(random_blocks(5, 3).unwrap());
        for _ in 0..100 {
            let end = random_fill(&start, &mut rng);
            assert!(end.is_full());
            assert_eq!(end.blocks(), start.blocks());
            assert_eq!(end.white().len(), 22);
            assert_eq!(end.black().len(), 22);
            assert_eq!(end.to_move(), Color::White);
            assert_eq!(random_playout(&end, &mut rng), end.score());
        }
    }

    /// Every free cell is equally likely to get the first stone of a playout.
    #[test]
    fn first_stone_is_uniform() {
        let mut rng = SmallRng::seed_from_u64(11);
        let start = Position::new(random_blocks(45, 5).unwrap());
        let free: Vec<_> = start.free().cells().collect();
        let mut counts = [0u32; 4];
        let trials = 40_000;
        for _ in 0..trials {
            let end = random_fill(&start, &mut rng);
            // White moves first and gets two of the four free cells; count each.
            for (k, cell) in free.iter().enumerate() {
                counts[k] += u32::from(end.white().contains(*cell));
            }
        }
        for count in counts {
            let share = f64::from(count) / f64::from(trials);
            assert!((share - 0.5).abs() < 0.02, "{counts:?}");
        }
    }
}
