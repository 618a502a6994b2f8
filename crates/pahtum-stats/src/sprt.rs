//! Sequential probability ratio test on layout pairs.
//!
//! "Is bot A at least `elo1` stronger than B, or at most `elo0`?" —
//! answered with as few games as the data allow, by Wald's SPRT: after
//! every pair, compare the log-likelihood ratio (LLR) of the two
//! hypotheses with `lower = ln(β/(1−α))` and `upper = ln((1−β)/α)`; below
//! accepts H0, above accepts H1, in between keeps playing. `α` is the risk
//! of accepting H1 when H0 holds, `β` the reverse (default 0.05 each).
//!
//! The hypotheses are in logistic Elo, and the LLR is fishtest's
//! generalized SPRT on the pentanomial model in its normal approximation
//! (fishtest's `LLR_alt2`; the exact version maximises a constrained
//! multinomial likelihood instead, and the two agree closely for the small
//! margins SPRT is used with): with `N` pairs, `μ` and `σ²` the mean and
//! variance per pair of the pair score over 2, and `s0`, `s1` the expected
//! scores under `elo0`, `elo1`,
//!
//! `LLR = N · (s1 − s0) · (2μ − s0 − s1) / (2σ²)`.
//!
//! That is the log of the ratio of two normal likelihoods for the observed
//! mean, with its variance estimated from the pairs. Until
//! [`MIN_PAIRS`] pairs are in, that estimate means nothing (two pairs of
//! 2–0 look like a sure thing with zero variance), so the LLR is 0 and the
//! test continues.
//!
//! **The prior.** `μ` and `σ²` are taken after adding [`PRIOR_PAIRS`]
//! pseudo-pairs to each of the five pair scores (a symmetric Jeffreys
//! prior on the pentanomial). Without it, a sample with one or two
//! distinct pair scores has a variance near zero and the LLR explodes:
//! between two engines that draw 95% of their games, 22 pairs that were
//! all 1–1 gave an LLR of 66 against bounds of ±2.94, a "proof" from no
//! evidence. With the prior those 22 pairs give an LLR near 0.2 and the
//! test plays on. The prior weighs 2½ pairs in all, so it fades as pairs
//! come in, keeps the LLR finite for every sample, and still lets a bot
//! that wins every pair pass quickly.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::elo::elo_to_score;
use crate::{Pentanomial, StatsError};

/// Pairs needed before the LLR moves away from 0.
pub const MIN_PAIRS: u64 = 10;

/// Pseudo-pairs added to each of the five pair scores before the LLR is
/// taken (the Jeffreys prior of the module docs).
pub const PRIOR_PAIRS: f64 = 0.5;

/// The hypotheses and error rates of a test, valid by construction
/// ([`Sprt::new`] or parsing).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Sprt {
    /// H0: the first is at most this many Elo stronger.
    elo0: f64,
    /// H1: the first is at least this many Elo stronger.
    elo1: f64,
    /// The risk of accepting H1 when H0 holds.
    alpha: f64,
    /// The risk of accepting H0 when H1 holds.
    beta: f64,
}

/// Where a test stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SprtStatus {
    /// Not enough evidence yet: play more pairs.
    Continue,
    /// The LLR reached the lower bound: the difference is at most `elo0`.
    AcceptH0,
    /// The LLR reached the upper bound: the difference is at least `elo1`.
    AcceptH1,
}

/// The state of a test after some pairs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SprtOutcome {
    /// The log-likelihood ratio of H1 over H0 (finite).
    pub llr: f64,
    /// `ln(β/(1−α))`.
    pub lower: f64,
    /// `ln((1−β)/α)`.
    pub upper: f64,
    /// The decision.
    pub status: SprtStatus,
}

impl Sprt {
    /// Default risk of accepting H1 when H0 holds.
    pub const DEFAULT_ALPHA: f64 = 0.05;
    /// Default risk of accepting H0 when H1 holds.
    pub const DEFAULT_BETA: f64 = 0.05;

    /// A test of `elo0` against `elo1` (finite, `elo0 < elo1`) with error
    /// rates `alpha` and `beta` (in `(0, 1)`, `alpha + beta < 1`).
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Self, StatsError> {
        let invalid = |reason: String| Err(StatsError::InvalidSprt(reason));
        if !(elo0.is_finite() && elo1.is_finite()) {
            return invalid(format!("elo bounds must be finite, got {elo0} and {elo1}"));
        }
        if elo0 >= elo1 {
            return invalid(format!("elo0 must be below elo1, got {elo0} and {elo1}"));
        }
        for (name, value) in [("alpha", alpha), ("beta", beta)] {
            if !(value > 0.0 && value < 1.0) {
                return invalid(format!("{name} must be between 0 and 1, got {value}"));
            }
        }
        if alpha + beta >= 1.0 {
            return invalid(format!("alpha + beta must be below 1, got {}", alpha + beta));
        }
        Ok(Self {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The Elo difference under H0.
    pub fn elo0(&self) -> f64 {
        self.elo0
    }

    /// The Elo difference under H1.
    pub fn elo1(&self) -> f64 {
        self.elo1
    }

    /// The risk of accepting H1 when H0 holds.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The risk of accepting H0 when H1 holds.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// `ln(β/(1−α))`: accept H0 at or below it.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// `ln((1−β)/α)`: accept H1 at or above it.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The log-likelihood ratio of H1 over H0 for `results` (see the
    /// module docs); 0 before [`MIN_PAIRS`] pairs.
    pub fn llr(&self, results: &Pentanomial) -> f64 {
        if results.pairs() < MIN_PAIRS {
            return 0.0;
        }
        let Some(m) = results.moments_with_prior(PRIOR_PAIRS) else {
            return 0.0;
        };
        let (s0, s1) = (elo_to_score(self.elo0), elo_to_score(self.elo1));
        m.pairs * (s1 - s0) * (2.0 * m.mean - s0 - s1) / (2.0 * m.variance)
    }

    /// The LLR, the bounds and the decision for `results`.
    pub fn test(&self, results: &Pentanomial) -> SprtOutcome {
        let (llr, lower, upper) = (self.llr(results), self.lower_bound(), self.upper_bound());
        let status = if llr >= upper {
            SprtStatus::AcceptH1
        } else if llr <= lower {
            SprtStatus::AcceptH0
        } else {
            SprtStatus::Continue
        };
        SprtOutcome {
            llr,
            lower,
            upper,
            status,
        }
    }
}

/// Reads the CLI form `elo0,elo1[,alpha,beta]`, e.g. `0,5` or
/// `-1.5,3,0.05,0.1`.
impl FromStr for Sprt {
    type Err = StatsError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let syntax = |reason: String| StatsError::SprtSyntax {
            input: input.to_owned(),
            reason,
        };
        let numbers = input
            .split(',')
            .map(|field| {
                let field = field.trim();
                field
                    .parse::<f64>()
                    .map_err(|_| syntax(format!("{field:?} is not a number")))
            })
            .collect::<Result<Vec<f64>, StatsError>>()?;
        let checked = match numbers[..] {
            [elo0, elo1] => Self::new(elo0, elo1, Self::DEFAULT_ALPHA, Self::DEFAULT_BETA),
            [elo0, elo1, alpha, beta] => Self::new(elo0, elo1, alpha, beta),
            _ => {
                return Err(syntax(format!("expected 2 or 4 numbers, got {}", numbers.len())));
            }
        };
        checked.map_err(|err| match err {
            StatsError::InvalidSprt(reason) => syntax(reason),
            other => other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_form_uses_default_risks() {
        let sprt: Sprt = "0,5".parse().unwrap();
        assert_eq!(sprt, Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap());
        let sprt: Sprt = " -1.5 , 3 ,0.1, 0.2".parse().unwrap();
        assert_eq!(sprt, Sprt::new(-1.5, 3.0, 0.1, 0.2).unwrap());
    }

    #[test]
    fn bad_specifications_say_what_is_wrong() {
        let message = |s: &str| s.parse::<Sprt>().unwrap_err().to_string();
        assert!(message("0,x").contains("\"x\" is not a number"));
        assert!(message("").contains("\"\" is not a number"));
        assert!(message("0,5,0.05").contains("expected 2 or 4 numbers, got 3"));
        assert!(message("0,5,,").contains("is not a number"));
        assert!(message("5,0").contains("elo0 must be below elo1"));
        assert!(message("nan,5").contains("must be finite"));
        assert!(message("0,5,1.2,0.05").contains("alpha must be between 0 and 1"));
        assert!(message("0,5,0.6,0.5").contains("alpha + beta must be below 1"));
        assert!(message("0,x").starts_with("cannot read sprt specification \"0,x\""));
    }
}
