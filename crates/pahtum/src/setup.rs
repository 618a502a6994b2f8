//! Block layouts: random from a seed, fixed, or placed by the players.
//!
//! Tournaments are reproduced from their seeds, so the random layout is pinned
//! down completely, independent of the machine and of this crate's version:
//!
//! 1. A ChaCha8 stream cipher generator ([`rand_chacha::ChaCha8Rng`]) is keyed
//!    with the 64-bit seed in little-endian order in the first 8 bytes of its
//!    32-byte key (the other 24 bytes zero), stream 0, from position 0.
//! 2. The 49 cells start in index order (`a1`, `b1`, ..., `g7`). For `i` from 0
//!    to `count - 1`, an index `j` in `i..49` is drawn and cells `i` and `j` are
//!    swapped (a partial Fisher-Yates shuffle); the first `count` cells are the
//!    blocks.
//! 3. A number below `n` is drawn from 64-bit outputs `x` of the generator by
//!    Lemire's multiply-and-reject: `m = x * n` as a 128-bit product; if the low
//!    64 bits of `m` are below `(2^64 - n) mod n` the output is rejected and
//!    another is drawn; otherwise the high 64 bits of `m` are the number.
//!
//! The test `random_layouts_are_pinned` holds seed-to-layout pairs as fixed data.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{Bitboard, CELLS, Cell};

/// Why a block layout cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The number of blocks is even, zero, or more than 47.
    #[error("{0} blocks: the number of blocks must be odd (so both colours get as many stones), from 1 to 47")]
    Count(usize),
    /// A fixed layout names this cell more than once.
    #[error("cell {0} is listed twice in the block layout")]
    Repeated(Cell),
}

/// How the blocks of a game are chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "lowercase"))]
pub enum Layout {
    /// These cells are blocked before the first stone.
    Fixed {
        /// The blocked cells: an odd number, each once.
        blocks: Vec<Cell>,
    },
    /// The players place `count` blocks, Black first and last.
    Placed {
        /// How many blocks: odd, from 1 to 47.
        count: usize,
    },
}

/// Checks that `count` is a legal number of blocks: odd, from 1 to 47.
pub fn check_count(count: usize) -> Result<(), SetupError> {
    if count % 2 == 1 && count < CELLS - 1 {
        Ok(())
    } else {
        Err(SetupError::Count(count))
    }
}

/// `count` distinct cells chosen uniformly at random from `seed`, by the
/// algorithm of the module documentation.
pub fn random_blocks(count: usize, seed: u64) -> Result<Bitboard, SetupError> {
    check_count(count)?;
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    let mut rng = ChaCha8Rng::from_seed(key);
    let mut cells: Vec<Cell> = Cell::all().collect();
    for i in 0..count {
        let j = i + below(&mut rng, (CELLS - i) as u64) as usize;
        cells.swap(i, j);
    }
    Ok(cells[..count].iter().copied().collect())
}

/// The cells of a fixed layout, checked: an odd count from 1 to 47, no repeats.
pub fn fixed_blocks(cells: &[Cell]) -> Result<Bitboard, SetupError> {
    let mut blocks = Bitboard::EMPTY;
    for &cell in cells {
        if blocks.contains(cell) {
            return Err(SetupError::Repeated(cell));
        }
        blocks = blocks.with(cell);
    }
    check_count(cells.len())?;
    Ok(blocks)
}

/// A uniform number below `n` (`n > 0`) by Lemire's multiply-and-reject.
fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    let threshold = n.wrapping_neg() % n;
    loop {
        let product = u128::from(rng.next_u64()) * u128::from(n);
        if (product as u64) >= threshold {
            return (product >> 64) as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_checked() {
        assert_eq!(random_blocks(4, 1), Err(SetupError::Count(4)));
        assert_eq!(random_blocks(0, 1), Err(SetupError::Count(0)));
        assert_eq!(random_blocks(49, 1), Err(SetupError::Count(49)));
        assert_eq!(random_blocks(47, 1).unwrap().len(), 47);
        assert_eq!(random_blocks(1, 1).unwrap().len(), 1);
    }

    #[test]
    fn fixed_layouts_are_checked() {
        let cell = |s: &str| s.parse::<Cell>().unwrap();
        assert_eq!(
            fixed_blocks(&[cell("a1"), cell("a1"), cell("b2")]),
            Err(SetupError::Repeated(cell("a1")))
        );
        assert_eq!(fixed_blocks(&[cell("a1"), cell("b2")]), Err(SetupError::Count(2)));
        assert_eq!(fixed_blocks(&[cell("d4")]).unwrap(), Bitboard(cell("d4").bit()));
    }

    #[test]
    fn same_seed_same_layout() {
        for seed in 0..100 {
            assert_eq!(random_blocks(9, seed), random_blocks(9, seed));
        }
        assert_ne!(random_blocks(9, 1), random_blocks(9, 2));
    }
}
