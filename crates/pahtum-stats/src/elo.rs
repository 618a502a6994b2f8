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
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// `ln(sigmoid(x))`, accurate for large `|x|` (never `-inf` for finite `x`).
pub(crate) fn ln_sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
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
    fn sigmoid_is_stable_far_out() {
        assert_eq!(sigmoid(-1000.0), 0.0);
        assert_eq!(sigmoid(1000.0), 1.0);
        assert!((ln_sigmoid(-1000.0) + 1000.0).abs() < 1e-9);
        assert!(ln_sigmoid(1000.0).abs() < 1e-300);
        assert!((ln_sigmoid(0.0) + std::f64::consts::LN_2).abs() < 1e-15);
    }
}
