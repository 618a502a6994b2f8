//! The penalized log-likelihood of the Bradley–Terry model and its
//! derivatives.
//!
//! Ratings `θ` are in natural log-odds here (Elo / [`ELO_PER_NAT`]), so a
//! player scores `sigmoid(θa - θb)` per game against another. A draw counts
//! as half a win, which makes the likelihood of a pair
//! `s ln p + (g - s) ln(1 - p)` with `g` games and `s` points: exactly what
//! Ordo maximises. It treats draws as if they were coin flips between a win
//! and a loss, so with many draws the intervals are slightly wider than
//! they need to be — the safe side.
//!
//! The prior gives every player `m` virtual draws against a virtual
//! opponent rated 0: the term `(m/2) ln sigmoid(θ) + (m/2) ln sigmoid(-θ)`.
//! It is concave with its maximum at 0, so with `m > 0` the whole function
//! is strictly concave and bounded above even when a player won every game.
//! With `m = 0` the function is unchanged by adding the same constant to
//! every rating; [`Likelihood::neg_hessian`] then adds a rank-one term along
//! that direction so the Newton system stays solvable (the step it yields
//! is the same, because the gradient is orthogonal to that direction).
//!
//! [`ELO_PER_NAT`]: crate::elo::ELO_PER_NAT

use super::matrix::PairMatrix;
use crate::elo::{logistic, sigmoid_pair};
use crate::linalg::Matrix;

/// One pair of players that met.
#[derive(Debug, Clone, Copy)]
struct Edge {
    a: usize,
    b: usize,
    games: f64,
    points_a: f64,
}

/// The objective of the fit, built once from the pair table.
#[derive(Debug, Clone)]
pub(super) struct Likelihood {
    players: usize,
    edges: Vec<Edge>,
    /// Half the prior strength: virtual points (and virtual points
    /// conceded) per player.
    half_prior: f64,
}

impl Likelihood {
    pub(super) fn new(matrix: &PairMatrix, prior_draws: f64) -> Self {
        let edges = matrix
            .pairs()
            .map(|(a, b, games, points_a)| Edge {
                a,
                b,
                games: games as f64,
                points_a,
            })
            .collect();
        Self {
            players: matrix.players(),
            edges,
            half_prior: prior_draws / 2.0,
        }
    }

    pub(super) fn players(&self) -> usize {
        self.players
    }

    /// The penalized log-likelihood and its gradient at `theta`, in one pass
    /// over the pairs that met: each pair's exponential serves both, and
    /// every point an ascent evaluates needs both (the value to accept it,
    /// the gradient for the next step).
    /// The gradient is actual minus expected points per player, written as
    /// differences of sigmoids rather than `1 − sigmoid`, which would round
    /// to 0 for far-apart ratings and fake an optimum.
    pub(super) fn value_and_gradient(&self, theta: &[f64]) -> (f64, Vec<f64>) {
        let mut data = 0.0;
        let mut gradient = vec![0.0; theta.len()];
        for e in &self.edges {
            let pair = logistic(theta[e.a] - theta[e.b]);
            data += e.points_a * pair.ln_win + (e.games - e.points_a) * pair.ln_loss;
            let surplus = e.points_a * pair.loss - (e.games - e.points_a) * pair.win;
            gradient[e.a] += surplus;
            gradient[e.b] -= surplus;
        }
        let mut prior = 0.0;
        for (slope, &t) in gradient.iter_mut().zip(theta) {
            let own = logistic(t);
            prior += own.ln_win + own.ln_loss;
            *slope += self.half_prior * (own.loss - own.win);
        }
        (data + self.half_prior * prior, gradient)
    }

    /// Whether there is a prior: the likelihood is then strictly concave,
    /// and it falls at least linearly in every direction, so no rating
    /// can run off to infinity.
    pub(super) fn has_prior(&self) -> bool {
        self.half_prior > 0.0
    }

    /// How far from 0 any contrast `eᵀθ` with weights `|eᵢ| ≤ 1` can lie
    /// where the likelihood is at least `value`; `None` without a prior,
    /// where it is unbounded.
    ///
    /// Each player's prior term is at most `−(m/2)|θᵢ|` and every data
    /// term at most 0, so the likelihood is at most `−(m/2) Σ|θᵢ|`, which
    /// is at most `−(m/2)|eᵀθ|`.
    pub(super) fn contrast_reach(&self, value: f64) -> Option<f64> {
        self.has_prior().then(|| -value / self.half_prior)
    }

    /// Minus the Hessian at `theta` (positive definite), with the rank-one
    /// completion described in the module docs when there is no prior.
    pub(super) fn neg_hessian(&self, theta: &[f64]) -> Matrix {
        let n = self.players;
        let mut h = Matrix::zeros(n);
        for (i, &t) in theta.iter().enumerate() {
            h.add(i, i, 2.0 * self.half_prior * logistic_variance(t));
        }
        for e in &self.edges {
            let w = e.games * logistic_variance(theta[e.a] - theta[e.b]);
            h.add(e.a, e.a, w);
            h.add(e.b, e.b, w);
            h.add(e.a, e.b, -w);
            h.add(e.b, e.a, -w);
        }
        if self.half_prior == 0.0 {
            // Gives the all-ones direction the mean diagonal as curvature
            // (plus one, in case there are no games at all).
            let n = n as f64;
            h.add_to_all((h.trace() / n + 1.0) / n);
        }
        h
    }
}

/// `p (1 - p)` for `p = sigmoid(x)`: the variance of one game's score.
fn logistic_variance(x: f64) -> f64 {
    let (win, loss) = sigmoid_pair(x);
    win * loss
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;

    fn example() -> Likelihood {
        let games = [
            Game {
                a: 0,
                b: 1,
                score_a: 1.0,
            },
            Game {
                a: 0,
                b: 1,
                score_a: 0.5,
            },
            Game {
                a: 1,
                b: 2,
                score_a: 1.0,
            },
            Game {
                a: 2,
                b: 0,
                score_a: 0.0,
            },
        ];
        Likelihood::new(&PairMatrix::from_games(3, &games).unwrap(), 2.0)
    }

    #[test]
    fn gradient_and_hessian_match_finite_differences() {
        let lik = example();
        let theta = [0.3, -0.2, 0.5];
        let value = |theta: &[f64]| lik.value_and_gradient(theta).0;
        let gradient = lik.value_and_gradient(&theta).1;
        let hessian = lik.neg_hessian(&theta);
        let h = 1e-5;
        for i in 0..3 {
            let mut up = theta;
            let mut down = theta;
            up[i] += h;
            down[i] -= h;
            let numeric = (value(&up) - value(&down)) / (2.0 * h);
            assert!((numeric - gradient[i]).abs() < 1e-8);
            let (gu, gd) = (lik.value_and_gradient(&up).1, lik.value_and_gradient(&down).1);
            for j in 0..3 {
                let numeric = -(gu[j] - gd[j]) / (2.0 * h);
                assert!((numeric - hessian.get(i, j)).abs() < 1e-8);
            }
        }
    }
}
