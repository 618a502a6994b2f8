//! The standard normal distribution function, which `std` lacks.
//!
//! Only the likelihood of superiority needs it, and it is shown to a few
//! digits, so a compact approximation with a relative error below 1.2e-7
//! everywhere (including the far tails, where LOS is close to 0 or 1) is
//! plenty and saves a dependency.

/// `Φ(x) = P(Z <= x)` for a standard normal `Z`.
pub(crate) fn cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The complementary error function, by the Chebyshev-fitted formula of
/// Numerical Recipes (2nd ed., §6.2, `erfcc`): fractional error < 1.2e-7.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = [
        -1.265_512_23,
        1.000_023_68,
        0.374_091_96,
        0.096_784_18,
        -0.186_288_06,
        0.278_868_07,
        -1.135_203_98,
        1.488_515_87,
        -0.822_152_23,
        0.170_872_77,
    ]
    .iter()
    .rev()
    .fold(0.0, |acc, c| c + t * acc);
    let tail = t * (-z * z + poly).exp();
    if x >= 0.0 { tail } else { 2.0 - tail }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert!((cdf(0.0) - 0.5).abs() < 1e-8);
        assert!((cdf(1.0) - 0.841_344_746_068_542_9).abs() < 1e-7);
        assert!((cdf(crate::elo::Z95) - 0.975).abs() < 1e-7);
        assert!((cdf(-3.0) - 0.001_349_898_031_630_094_6).abs() < 1e-9);
    }

    #[test]
    fn symmetric_and_bounded() {
        for x in [-40.0, -5.0, -0.3, 0.7, 8.0, 40.0] {
            let sum = cdf(x) + cdf(-x);
            assert!((sum - 1.0).abs() < 1e-7, "x={x}");
            assert!((0.0..=1.0).contains(&cdf(x)));
        }
    }
}
