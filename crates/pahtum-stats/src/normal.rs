//! The standard normal distribution function, which `std` lacks.
//!
//! Only the likelihood of superiority needs it. Marsaglia's Taylor series
//! ("Evaluating the Normal Distribution", J. Stat. Software 11(4), 2004)
//! has only positive terms, so it is accurate to about 1e-15 absolute
//! (plenty for a probability shown to a few digits),
//! exactly symmetric, and a few lines long; that saves a dependency.

/// Beyond this many standard deviations `Φ` is 0 or 1 to double precision
/// (`Φ(-8.5) ≈ 1e-17`), and the series would overflow further out.
const TAIL: f64 = 8.5;
/// `ln(sqrt(2π))`.
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// `Φ(x) = P(Z <= x)` for a standard normal `Z`.
pub(crate) fn cdf(x: f64) -> f64 {
    if x.is_nan() || x.abs() > TAIL {
        return if x > 0.0 { 1.0 } else { 0.0 };
    }
    // Φ(x) = 1/2 + φ(x) · (x + x³/3 + x⁵/(3·5) + …)
    let q = x * x;
    let (mut sum, mut term, mut k) = (x, x, 1.0);
    loop {
        k += 2.0;
        term *= q / k;
        let next = sum + term;
        if next == sum {
            break;
        }
        sum = next;
    }
    0.5 + sum * (-0.5 * q - LN_SQRT_2PI).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(cdf(0.0), 0.5);
        assert!((cdf(1.0) - 0.841_344_746_068_542_9).abs() < 1e-14);
        assert!((cdf(crate::elo::Z95) - 0.975).abs() < 1e-14);
        // Absolute accuracy: enough for a probability shown to a few digits.
        assert!((cdf(-3.0) - 0.001_349_898_031_630_095_6).abs() < 1e-14);
        assert!(cdf(-8.0) < 1e-14);
    }

    #[test]
    fn symmetric_and_bounded() {
        for x in [-40.0, -5.0, -0.3, 0.7, 8.0, 8.6, 40.0] {
            let sum = cdf(x) + cdf(-x);
            assert!((sum - 1.0).abs() < 1e-14, "x={x}");
            assert!((0.0..=1.0).contains(&cdf(x)));
        }
    }
}
