//! Finding the most likely ratings.
//!
//! Newton's method with a backtracking line search: the penalized
//! log-likelihood is concave, so every Newton step points uphill and the
//! line search only has to stop it from overshooting far from the optimum
//! (where the curvature of the logistic function changes fast). From all
//! ratings at zero it needs a handful of iterations; each costs one pass
//! over the pairs that met and one Cholesky factorisation, so the work is
//! independent of the number of games.

use super::likelihood::Likelihood;
use crate::StatsError;
use crate::linalg::{Matrix, dot};

/// Give up after this many Newton iterations. Real fits take fewer than
/// 15; a fit that needs more is chasing an infinite rating (no prior).
const MAX_ITERATIONS: usize = 100;
/// Converged once no rating moves by more than this (nats; 2e-7 Elo).
const STEP_TOLERANCE: f64 = 1e-9;
/// Converged once a step promises to gain less than this fraction of the
/// likelihood's magnitude: below what rounding lets a line search see.
const ROUNDOFF_GAIN: f64 = 1e-12;
/// A line search that fails with steps this small (nats) has hit the
/// rounding noise of the likelihood: the point is as good as it gets.
const ROUNDOFF_STEP: f64 = 1e-6;
/// Sufficient-increase constant of the Armijo condition.
const ARMIJO: f64 = 1e-4;
/// Halvings tried before a line search gives up.
const MAX_HALVINGS: usize = 60;

/// The maximum of the penalized likelihood.
#[derive(Debug, Clone)]
pub(super) struct Optimum {
    /// The ratings, in nats.
    pub(super) theta: Vec<f64>,
    /// The penalized log-likelihood there.
    pub(super) value: f64,
    /// The inverse of minus the Hessian there: the large-sample covariance
    /// of the ratings (exact for contrasts when there is no prior).
    pub(super) covariance: Matrix,
}

/// Maximizes the likelihood from all ratings at zero.
pub(super) fn maximize(likelihood: &Likelihood) -> Result<Optimum, StatsError> {
    let mut theta = vec![0.0; likelihood.players()];
    let (mut value, mut gradient) = likelihood.value_and_gradient(&theta);
    for iteration in 0..MAX_ITERATIONS {
        let failed = StatsError::NoConvergence { iterations: iteration };
        let cholesky = likelihood.neg_hessian(&theta).cholesky().ok_or(failed.clone())?;
        let step = cholesky.solve(&gradient);
        match advance(likelihood, &theta, value, &gradient, &step) {
            Progress::Moved(next, next_value, next_gradient) => {
                (theta, value, gradient) = (next, next_value, next_gradient)
            }
            // The last step is below 1e-6 nats, so the Hessian it started
            // from is the Hessian at the maximum to that precision.
            Progress::Converged(last, last_value) => {
                return Ok(Optimum {
                    theta: last,
                    value: last_value,
                    covariance: cholesky.inverse(),
                });
            }
            Progress::Stuck => return Err(failed),
        }
    }
    Err(StatsError::NoConvergence {
        iterations: MAX_ITERATIONS,
    })
}

/// What one ascent step achieved.
#[derive(Debug)]
pub(super) enum Progress {
    /// The maximum (with its likelihood): the step was too small to
    /// matter.
    Converged(Vec<f64>, f64),
    /// Moved to a better point, with its likelihood and gradient.
    Moved(Vec<f64>, f64, Vec<f64>),
    /// No step along the direction increases the likelihood.
    Stuck,
}

/// Tries to move from `theta` (likelihood `value`, gradient `gradient`)
/// along the ascent direction `step`, backtracking (Armijo) until the
/// likelihood increases enough.
///
/// Near the maximum the gain of a step drops below the rounding noise of
/// the likelihood (a sum of thousands of terms), and a line search can no
/// longer tell better from worse. Once the step is also small, the
/// quadratic model is accurate, so the full step is taken without checking
/// and the search stops. Without a prior, a long step with a negligible
/// gain is a rating running off to infinity, which must not count as
/// converged. With a prior no rating can, and it is a direction in which
/// a weak prior is nearly flat: the value, all that a profile needs, is
/// already as exact as rounding allows (with weak priors, interval
/// searches stalled on steps of 10⁻⁵ nats whose gain no line search could
/// see).
pub(super) fn advance(likelihood: &Likelihood, theta: &[f64], value: f64, gradient: &[f64], step: &[f64]) -> Progress {
    let shifted = |scale: f64| -> Vec<f64> { theta.iter().zip(step).map(|(t, d)| t + scale * d).collect() };
    let largest = step.iter().fold(0.0_f64, |m, s| m.max(s.abs()));
    let slope = dot(gradient, step);
    let negligible_gain = slope < ROUNDOFF_GAIN * (1.0 + value.abs());
    let short = largest < ROUNDOFF_STEP || likelihood.has_prior();
    if largest < STEP_TOLERANCE || (short && negligible_gain) {
        // The step's gain by the quadratic model: what it gains is below what rounding lets the
        // likelihood show, or the step is too short to leave the model, so a pass over the pairs to
        // evaluate it would add nothing but that noise (and take half of a profile search's time).
        return Progress::Converged(shifted(1.0), value + slope / 2.0);
    }
    let mut scale = 1.0;
    for _ in 0..MAX_HALVINGS {
        let candidate = shifted(scale);
        // With its gradient, which the next step needs wherever it is taken: the one pass over the
        // pairs serves both.
        let (candidate_value, candidate_gradient) = likelihood.value_and_gradient(&candidate);
        if candidate_value > value && candidate_value >= value + ARMIJO * scale * slope {
            return Progress::Moved(candidate, candidate_value, candidate_gradient);
        }
        scale /= 2.0;
    }
    // Rounding noise larger than estimated; a step this small is harmless.
    if largest < ROUNDOFF_STEP {
        Progress::Converged(theta.to_vec(), value)
    } else {
        Progress::Stuck
    }
}
