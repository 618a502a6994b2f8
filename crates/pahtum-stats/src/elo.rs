//! The logistic Elo scale, in one place.
//!
//! All modules use the same convention: a player rated `d` Elo above its
//! opponent is expected to score `1 / (1 + 10^(-d/400))` per game. Inside
//! the fit it is easier to work in natural log-odds ("nats"), where the
//! expected score is the logistic sigmoid; [`ELO_PER_NAT`] converts.

/// Elo points per unit of natural log-odds: `400 / ln 10`.
pub(crate) const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// The two-sided 95% normal quantile, `Φ⁻¹(0.975)`.
pub(crate) const Z95: f64 = 1.959_963_984_540_054;

/// Expected score per game of a player `elo` points above its opponent.
pub(crate) fn elo_to_score(elo: f64) -> f64 {
    sigmoid(elo / ELO_PER_NAT)
}

/// The Elo difference that gives an expected score `score`:
/// `-400 log10(1/score - 1)`. Only meaningful for `0 < score < 1`; callers
/// keep the score inside that interval.
pub(crate) fn score_to_elo(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The logistic function `1 / (1 + e^-x)`, without overflow.
pub(crate) fn sigmoid(x: f64) -> f64 {
    sigmoid_pair(x).0
}

/// `(sigmoid(x), sigmoid(-x))` from one exponential; each is accurate even
/// when tiny (no `1 − p` cancellation).
pub(crate) fn sigmoid_pair(x: f64) -> (f64, f64) {
    let e = (-x.abs()).exp();
    let near = 1.0 / (1.0 + e);
    let far = e * near;
    if x >= 0.0 { (near, far) } else { (far, near) }
}

/// `(ln sigmoid(x), ln sigmoid(-x))` from one exponential and one
/// logarithm; finite for every finite `x`.
pub(crate) fn ln_sigmoid_pair(x: f64) -> (f64, f64) {
    let soft = (-x.abs()).exp().ln_1p();
    let near = -soft;
    let far = -x.abs() - soft;
    if x >= 0.0 { (near, far) } else { (far, near) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_round_trips() {
        for elo in [-800.0, -191.0, 0.0, 1.0, 400.0] {
            assert!((score_to_elo(elo_to_score(elo)) - elo).abs() < 1e-9);
        }
        assert!((elo_to_score(400.0) - 10.0 / 11.0).abs() < 1e-15);
    }

    #[test]
    fn sigmoids_are_stable_far_out() {
        assert_eq!(sigmoid_pair(1000.0), (1.0, 0.0));
        assert_eq!(sigmoid_pair(-1000.0), (0.0, 1.0));
        let (p, q) = sigmoid_pair(40.0);
        assert_eq!(p, 1.0);
        assert!((q / (-40.0_f64).exp() - 1.0).abs() < 1e-12);
        let (near, far) = ln_sigmoid_pair(1000.0);
        assert!(near.abs() < 1e-300 && (far + 1000.0).abs() < 1e-9);
        assert_eq!(ln_sigmoid_pair(-3.0), (ln_sigmoid_pair(3.0).1, ln_sigmoid_pair(3.0).0));
        let (a, b) = ln_sigmoid_pair(0.0);
        assert!(a == b && (a + std::f64::consts::LN_2).abs() < 1e-15);
        for x in [-5.0, -0.1, 0.3, 7.0] {
            let (p, q) = sigmoid_pair(x);
            let (lp, lq) = ln_sigmoid_pair(x);
            assert!((p + q - 1.0).abs() < 1e-15);
            assert!((lp - p.ln()).abs() < 1e-14 && (lq - q.ln()).abs() < 1e-14);
        }
    }
}
