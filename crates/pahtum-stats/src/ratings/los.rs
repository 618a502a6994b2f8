//! Likelihood of superiority.
//!
//! `LOS(i, j)` is the probability that `i` is really stronger than `j`,
//! from the normal approximation of the fitted ratings: the estimated
//! difference divided by its standard error, where the variance of the
//! difference is `var(Ri) + var(Rj) − 2 cov(Ri, Rj)` from the inverse
//! Hessian. The covariance term matters: two bots that both mostly played
//! a common third bot have strongly correlated ratings, and ignoring that
//! (as per-bot error bars invite one to) misjudges how sure their order is.

use super::newton::Optimum;
use crate::normal;

/// `los[i][j] = P(Ri > Rj)`; 0.5 on the diagonal.
pub(super) fn matrix(optimum: &Optimum) -> Vec<Vec<f64>> {
    let theta = &optimum.theta;
    let sigma = &optimum.covariance;
    (0..theta.len())
        .map(|i| {
            (0..theta.len())
                .map(|j| {
                    let variance = sigma.get(i, i) + sigma.get(j, j) - 2.0 * sigma.get(i, j);
                    superiority(theta[i] - theta[j], variance)
                })
                .collect()
        })
        .collect()
}

/// `P(X > 0)` for `X ~ N(difference, variance)`; a point mass when the
/// variance vanishes (only on the diagonal, where the difference is 0).
fn superiority(difference: f64, variance: f64) -> f64 {
    if variance > 0.0 {
        normal::cdf(difference / variance.sqrt())
    } else if difference > 0.0 {
        1.0
    } else if difference < 0.0 {
        0.0
    } else {
        0.5
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn superiority_is_a_probability() {
        assert_eq!(superiority(0.0, 0.0), 0.5);
        assert_eq!(superiority(1.0, 0.0), 1.0);
        assert_eq!(superiority(-1.0, 0.0), 0.0);
        assert!((superiority(1.0, 1.0) - 0.841_344_746).abs() < 1e-7);
    }
}
