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
    oriented(x, sigmoids((-x.abs()).exp()))
}

/// `sigmoid(±x)` and their logarithms (finite for every finite `x`): what
/// one pair's terms of the likelihood and of its gradient need at the same
/// point, from the one exponential they share and one logarithm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Logistic {
    pub(crate) win: f64,
    pub(crate) loss: f64,
    pub(crate) ln_win: f64,
    pub(crate) ln_loss: f64,
}

/// [`Logistic`] of `x`; its sigmoids are [`sigmoid_pair`]'s bit for bit.
pub(crate) fn logistic(x: f64) -> Logistic {
    let e = (-x.abs()).exp();
    let (win, loss) = oriented(x, sigmoids(e));
    let (ln_win, ln_loss) = oriented(x, ln_sigmoids(x.abs(), e));
    Logistic {
        win,
        loss,
        ln_win,
        ln_loss,
    }
}

/// `(near, far)` as `(f(|x|), f(-|x|))`, turned to `(f(x), f(-x))`.
fn oriented(x: f64, (near, far): (f64, f64)) -> (f64, f64) {
    if x >= 0.0 { (near, far) } else { (far, near) }
}

/// `(sigmoid(|x|), sigmoid(-|x|))` from `e = e^-|x|`.
fn sigmoids(e: f64) -> (f64, f64) {
    let near = 1.0 / (1.0 + e);
    (near, e * near)
}

/// `(ln sigmoid(|x|), ln sigmoid(-|x|))` from `|x|` and `e = e^-|x|`.
fn ln_sigmoids(x_abs: f64, e: f64) -> (f64, f64) {
    let soft = ln_one_plus(e);
    (-soft, -x_abs - soft)
}

/// `ln(1 + e)` for `0 ≤ e ≤ 1`, the hot spot of every likelihood pass.
///
/// The logarithm of the rounded sum is within about `10⁻¹⁶` of the exact
/// value: as close as a sum of thousands of such terms can hold anyway,
/// and glibc's `ln` takes about two thirds of the time of its `ln_1p`.
/// Only for a tiny `e`, whose term a bot far beyond its opponent makes,
/// is `ln_1p` used, to keep that term's relative accuracy too.
fn ln_one_plus(e: f64) -> f64 {
    if e < 1e-6 { e.ln_1p() } else { (1.0 + e).ln() }
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
        let ln_pair = |x: f64| {
            let both = logistic(x);
            assert_eq!((both.win, both.loss), sigmoid_pair(x));
            (both.ln_win, both.ln_loss)
        };
        let (near, far) = ln_pair(1000.0);
        assert!(near.abs() < 1e-300 && (far + 1000.0).abs() < 1e-9);
        assert_eq!(ln_pair(-3.0), (ln_pair(3.0).1, ln_pair(3.0).0));
        let (a, b) = ln_pair(0.0);
        assert!(a == b && (a + std::f64::consts::LN_2).abs() < 1e-15);
        for x in [-5.0, -0.1, 0.3, 7.0] {
            let (p, q) = sigmoid_pair(x);
            let (lp, lq) = ln_pair(x);
            assert!((p + q - 1.0).abs() < 1e-15);
            assert!((lp - p.ln()).abs() < 1e-14 && (lq - q.ln()).abs() < 1e-14);
        }
        // ln(1 + e^-x), to within rounding of a sum's term, on both sides of ln_one_plus's switch.
        for x in [1e-7_f64, 1e-3, 0.5, 13.0, 14.0, 40.0] {
            let exact = (-x).exp().ln_1p();
            assert!((ln_pair(x).0 + exact).abs() <= 1e-16 + 4.0 * f64::EPSILON * exact);
        }
    }
}
