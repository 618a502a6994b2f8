//! Head-to-head statistics over layout pairs (the pentanomial model).
//!
//! The two games of a layout pair share a layout and swap the seats, so
//! their results are correlated: a layout that favours the first seat
//! makes a 1–1 split likely. Treating the games as independent
//! (the trinomial model) overstates the variance of a paired match.
//! The pentanomial model takes the layout pair as the unit: each pair
//! scores 0, ½, 1, 1½ or 2, and the variance of the match score is
//! estimated from the spread of those five counts.
//!
//! With `N` pairs, `x = pair score / 2` (so `x` is in `[0, 1]` like a game
//! score), `μ` the mean of `x` and `σ²` its variance per pair:
//!
//! * score `= μ`, `Elo = −400 log10(1/μ − 1)`;
//! * `Elo error (95%) = 1.96 · sqrt(σ²/N) · dElo/dμ`, with
//!   `dElo/dμ = 400 / (ln 10 · μ (1 − μ))` (the delta method);
//! * normalized Elo, as defined by fishtest
//!   (M. Van den Bergh, "Normalized Elo", `normalized_elo_practical.pdf`;
//!   fishtest `LLRcalc.py`: `nelo_divided_by_nt = 800 / ln(10)`,
//!   `sigma_pg = sqrt(2 · var_pair)`, `nt = (μ − 0.5) / sigma_pg`):
//!   `nElo = (μ − 0.5) / sqrt(2σ²) · 800 / ln 10`. The `sqrt(2)` turns the
//!   per-pair deviation into a per-game one, so nElo does not change
//!   when the same results are counted per pair instead of per game;
//! * `nElo error (95%) = 1.96 / sqrt(2N) · 800 / ln 10` (first order,
//!   treating `σ` as known).
//!
//! **Degenerate samples.** When every pair has the same score, `σ² = 0`
//! and, at 100% or 0%, `μ` is 1 or 0: the formulas give `0/0` or `±inf`.
//! Then, exactly like fishtest's `LLRcalc.regularize`, every empty cell
//! gets a pseudo-count of 0.001 before `μ` and `σ²` are taken. The results
//! are finite but are placeholders, not measurements (for a 100% score
//! they grow with the number of pairs); [`PentanomialStats::regularized`]
//! says when this happened, and [`PentanomialStats::score`] is always the
//! observed score.

use serde::{Deserialize, Serialize};

use crate::elo::{ELO_PER_NAT, Z95, score_to_elo};
use crate::game::half_points;
use crate::linalg::dot;
use crate::{LayoutPair, StatsError};

/// Pseudo-count given to empty cells of a degenerate sample (fishtest's
/// `epsilon`).
const PSEUDO_COUNT: f64 = 1e-3;

/// Counts of layout-pair scores between two bots, from the first bot's
/// side: `counts[k]` pairs scored `k/2` points (0, ½, 1, 1½, 2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pentanomial {
    /// Pairs per pair score 0, ½, 1, 1½, 2.
    pub counts: [u64; 5],
}

/// Summary statistics of a [`Pentanomial`]; all fields are finite.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PentanomialStats {
    /// Layout pairs counted.
    pub pairs: u64,
    /// Observed mean score per game of the first bot, in `[0, 1]`.
    pub score: f64,
    /// Elo difference of the first bot over the second.
    pub elo: f64,
    /// Half-width of the 95% confidence interval of `elo`.
    pub elo_error95: f64,
    /// Normalized Elo (fishtest's definition, see the module docs).
    pub nelo: f64,
    /// Half-width of the 95% confidence interval of `nelo`.
    pub nelo_error95: f64,
    /// True when every pair had the same score, so the figures above come
    /// from the regularized sample and only mean "very lopsided" (or
    /// "nothing but one result").
    pub regularized: bool,
}

/// Mean and variance per pair of the pair score over 2 (`x` in `[0, 1]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Moments {
    /// Pairs actually played.
    pub(crate) pairs: f64,
    pub(crate) mean: f64,
    /// Always positive: a sample with one result only is regularized.
    pub(crate) variance: f64,
    pub(crate) regularized: bool,
}

impl Pentanomial {
    /// Counts from a list of pair scores of the first bot (0, 0.5, …, 2).
    pub fn from_pair_scores(scores: &[f64]) -> Result<Self, StatsError> {
        let mut counts = Self::default();
        for &score in scores {
            counts.add(score)?;
        }
        Ok(counts)
    }

    /// Counts of the layout pairs between `a` and `b`, from `a`'s side;
    /// pairs between other players are ignored.
    pub fn from_layout_pairs(pairs: &[LayoutPair], a: usize, b: usize) -> Result<Self, StatsError> {
        let mut counts = Self::default();
        for pair in pairs {
            let cell = usize::from(pair.half_points()?);
            if (pair.a, pair.b) == (a, b) {
                counts.counts[cell] += 1;
            } else if (pair.a, pair.b) == (b, a) {
                counts.counts[4 - cell] += 1;
            }
        }
        Ok(counts)
    }

    /// Counts one more pair in which the first bot scored `score`.
    pub fn add(&mut self, score: f64) -> Result<(), StatsError> {
        self.counts[usize::from(half_points(score, 2)?)] += 1;
        Ok(())
    }

    /// Total number of pairs.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Score, Elo and normalized Elo with their 95% errors;
    /// [`StatsError::NoPairs`] for an empty sample.
    pub fn stats(&self) -> Result<PentanomialStats, StatsError> {
        let m = self.moments().ok_or(StatsError::NoPairs)?;
        let observed_points: u64 = (0..).zip(self.counts).map(|(k, n)| k * n).sum();
        let std_error = (m.variance / m.pairs).sqrt();
        let elo_slope = ELO_PER_NAT / (m.mean * (1.0 - m.mean));
        let nelo_per_nt = 2.0 * ELO_PER_NAT;
        Ok(PentanomialStats {
            pairs: self.pairs(),
            score: observed_points as f64 / (4.0 * m.pairs),
            elo: score_to_elo(m.mean),
            elo_error95: Z95 * std_error * elo_slope,
            nelo: (m.mean - 0.5) / (2.0 * m.variance).sqrt() * nelo_per_nt,
            nelo_error95: Z95 / (2.0 * m.pairs).sqrt() * nelo_per_nt,
            regularized: m.regularized,
        })
    }

    /// The moments of the pair score, regularized when every pair scored
    /// the same; `None` for an empty sample.
    pub(crate) fn moments(&self) -> Option<Moments> {
        let regularized = self.counts.iter().filter(|&&n| n > 0).count() == 1;
        self.weighted_moments(|n| match n {
            0 if regularized => PSEUDO_COUNT,
            n => n as f64,
        })
        .map(|m| Moments { regularized, ..m })
    }

    /// The moments of the pair score after adding `prior` pseudo-pairs to
    /// every cell (a symmetric Dirichlet prior; `None` for an empty
    /// sample). Never regularized: with `prior > 0` no cell is empty.
    pub(crate) fn moments_with_prior(&self, prior: f64) -> Option<Moments> {
        self.weighted_moments(|n| n as f64 + prior)
    }

    fn weighted_moments(&self, weight: impl Fn(u64) -> f64) -> Option<Moments> {
        let pairs = self.pairs();
        if pairs == 0 {
            return None;
        }
        let weights = self.counts.map(weight);
        let total: f64 = weights.iter().sum();
        let scores = [0.0, 0.25, 0.5, 0.75, 1.0];
        let mean = dot(&weights, &scores) / total;
        let variance = dot(&weights, &scores.map(|x| (x - mean).powi(2))) / total;
        Some(Moments {
            pairs: pairs as f64,
            mean,
            variance,
            regularized: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_scores_land_in_their_cells() {
        let p = Pentanomial::from_pair_scores(&[0.0, 0.5, 1.0, 1.0, 1.5, 2.0]).unwrap();
        assert_eq!(p.counts, [1, 1, 2, 1, 1]);
        assert!(Pentanomial::from_pair_scores(&[2.5]).is_err());
        assert!(Pentanomial::from_pair_scores(&[0.25]).is_err());
    }

    #[test]
    fn layout_pairs_are_seen_from_the_first_bot() {
        let pairs = [
            LayoutPair {
                a: 0,
                b: 1,
                score_a: 1.5,
            },
            LayoutPair {
                a: 1,
                b: 0,
                score_a: 1.5,
            },
            LayoutPair {
                a: 0,
                b: 2,
                score_a: 2.0,
            },
        ];
        let p = Pentanomial::from_layout_pairs(&pairs, 0, 1).unwrap();
        assert_eq!(p.counts, [0, 1, 0, 1, 0]);
    }
}
