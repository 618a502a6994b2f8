//! The input records: single games and layout pairs.
//!
//! Scores are given as `f64` because that is how people and JSON write
//! them (`0.5`), but they are validated and stored as whole half-points so
//! that adding up 100,000 games is exact.

use serde::{Deserialize, Serialize};

use crate::StatsError;

/// One game between players `a` and `b` (indices into the pool).
///
/// `score_a` is the score of `a`: 1 for a win, 0.5 for a draw, 0 for a
/// loss. Which seat `a` sat in does not matter to the statistics.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Game {
    /// The first player.
    pub a: usize,
    /// The second player.
    pub b: usize,
    /// The score of `a`: 0, 0.5 or 1.
    pub score_a: f64,
}

/// The two games of one block layout played with the seats swapped.
///
/// `score_a` is the total score of `a` over both games: 0, 0.5, 1, 1.5
/// or 2.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LayoutPair {
    /// The first player.
    pub a: usize,
    /// The second player.
    pub b: usize,
    /// The score of `a` over the two games: 0, 0.5, 1, 1.5 or 2.
    pub score_a: f64,
}

impl Game {
    /// The score of `a` in half-points (0, 1 or 2), validated.
    pub(crate) fn half_points(&self) -> Result<u8, StatsError> {
        half_points(self.score_a, 1)
    }
}

impl LayoutPair {
    /// The score of `a` in half-points (0 to 4), validated.
    pub(crate) fn half_points(&self) -> Result<u8, StatsError> {
        half_points(self.score_a, 2)
    }
}

/// Converts a score that must be a multiple of 1/2 in `0..=max_points`
/// into whole half-points.
pub(crate) fn half_points(score: f64, max_points: u8) -> Result<u8, StatsError> {
    let halves = score * 2.0;
    let valid = halves.fract() == 0.0 && (0.0..=f64::from(2 * max_points)).contains(&halves);
    if valid {
        // Exact: `halves` is a whole number from 0 to 2 * max_points.
        Ok(halves as u8)
    } else {
        Err(StatsError::InvalidScore {
            score,
            max: f64::from(max_points),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_become_half_points() {
        assert_eq!(half_points(0.0, 1), Ok(0));
        assert_eq!(half_points(0.5, 1), Ok(1));
        assert_eq!(half_points(1.0, 1), Ok(2));
        assert_eq!(half_points(1.5, 2), Ok(3));
        assert_eq!(half_points(2.0, 2), Ok(4));
    }

    #[test]
    fn bad_scores_are_rejected() {
        for bad in [-0.5, 0.25, 1.5, f64::NAN, f64::INFINITY, -0.0 - 1.0] {
            assert!(half_points(bad, 1).is_err(), "{bad} accepted as a game score");
        }
        assert!(half_points(2.5, 2).is_err());
    }
}
