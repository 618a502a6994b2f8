//! 95% intervals from the profile likelihood.
//!
//! Why the profile likelihood rather than a bootstrap or `±1.96·σ`:
//!
//! * It is asymmetric exactly where it should be. A bot that won almost
//!   everything is known to be *at least* so strong, while how much
//!   stronger is open; the likelihood is flat upwards and steep downwards,
//!   and the interval follows it. `±1.96·σ` from the Hessian cannot.
//! * It needs no random numbers, so the same results always print the
//!   same table, and it has no "every resample is all wins, so the
//!   interval is a point" failure that percentile bootstraps have for
//!   extreme bots.
//! * It is fast: see below.
//!
//! For a rating contrast `c = eᵀθ` (a player minus the pool mean, or minus
//! the anchor), the interval is the set of values `ĉ + t` whose profile
//! log-likelihood — the maximum over all ratings with `eᵀθ = ĉ + t`, every
//! other rating re-optimised — is within `χ²₁(0.95)/2 = 1.92` of the
//! maximum. Equivalently, `sqrt(2·drop(t)) = z = 1.96`; that function is
//! nearly linear in `t`, so a root finder on it needs few evaluations.
//!
//! Each evaluation is a constrained maximisation. Starting from the
//! maximum moved along `d = Σe / (eᵀΣe)` (the straight line the profile
//! follows when the likelihood is quadratic; `Σ` is the inverse Hessian at
//! the maximum), it takes Newton steps inside the constraint with a fixed
//! metric, the Hessian at the maximum ([`Metric`]): the projection of `Σ`
//! where `Σ` is small, else that Hessian reduced to the ratings that keep
//! `eᵀθ` fixed and factorised once per contrast. Each step costs `O(n²)`
//! instead of the `O(n³)` of a fresh factorisation; in the rare case where
//! the metric is far off (a bot pushed to an extreme rating) it is
//! refreshed from the local Hessian after a few steps. Where the games are
//! many, the start is already the constrained maximum to within rounding,
//! so an evaluation is one pass over the pairs, and an interval end two or
//! three evaluations ([`Profiler::end`]). What the whole fit costs, interval
//! ends included, for 100 bots and 100,000 games and for 200 bots and
//! 200,000 games, is measured by `cargo bench -p pahtum-stats --bench fit`
//! and kept in docs/performance.md.

use std::borrow::Cow;

use super::likelihood::Likelihood;
use super::newton::{Optimum, Progress, advance};
use crate::elo::Z95;
use crate::linalg::{Cholesky, Matrix, dot};

/// Ascent steps of one constrained maximisation before giving up.
const MAX_ASCENT_STEPS: usize = 200;
/// Refresh the metric from the local Hessian every this many steps.
const REFRESH_EVERY: usize = 8;
/// Root-finder iterations per interval end.
const MAX_ROOT_STEPS: usize = 100;
/// Accept an interval end once `sqrt(2·drop)` is this close to `z`.
const ROOT_TOLERANCE: f64 = 1e-7;
/// The longest move of one rating in one ascent step, in nats (about
/// 4,300 Elo), or the size of the largest rating if that is more. Where a
/// bot sits on the flat tail of the logistic curve the likelihood is
/// nearly linear in it, and a Newton step can be `10^20` nats long: more
/// than the line search's halvings can shorten. Letting the limit grow
/// with the ratings still reaches a far end (a weak prior can put one
/// hundreds of nats out) in a few doublings.
const MAX_STEP: f64 = 10.0;
/// Added to the diagonal of a reduced Hessian, relative to its largest
/// entry. Far out the curvature of a bot underflows to exactly 0 and the
/// matrix would not factorise; with this floor its Newton step is merely
/// very long, and the step limit and line search shorten it. Elsewhere it
/// changes the steps by about one part in `10^12`.
const RIDGE: f64 = 1e-12;
/// A step that gains more than this fraction of what its slope promises
/// met no curvature (a quadratic gives a Newton step half): the
/// likelihood is nearly linear along it, so the next step is made twice
/// as long. Far out, where a weak prior is all that bends the likelihood,
/// a Newton step from a metric of the centre is fractions of a nat.
const LINEAR_GAIN: f64 = 0.9;
/// The largest variance of a rating at the maximum (nats², a standard error
/// of 174 Elo) for which a contrast's first metric is the projection of `Σ`
/// ([`Metric::Projected`]): its entries are then at most this, so the
/// projection subtracts nothing large. A field with more variance (a few
/// games, or a weak prior and an unbeaten bot) factorises its reduced
/// Hessian ([`Reduced`]) as before.
const PROJECTED_UP_TO: f64 = 1.0;
/// Without a prior, no interval end is looked for further than this from
/// the estimate (nats, about 170,000 Elo): reaching it means the
/// likelihood never drops enough. With a prior the bound follows from the
/// prior ([`Likelihood::contrast_reach`]), and every end lies within it.
const MAX_OFFSET_WITHOUT_PRIOR: f64 = 1e3;

/// A rating contrast with its estimate and 95% profile interval, in nats.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Interval {
    pub(super) estimate: f64,
    /// `sqrt(eᵀΣe)`: the large-sample standard error.
    pub(super) std_error: f64,
    /// How far below the estimate the interval starts.
    pub(super) below: f64,
    /// How far above the estimate the interval ends.
    pub(super) above: f64,
}

/// Computes profile intervals around one fitted optimum.
#[derive(Debug)]
pub(super) struct Profiler<'a> {
    likelihood: &'a Likelihood,
    optimum: &'a Optimum,
    /// Minus the Hessian at the maximum: every contrast's first metric.
    neg_hessian: Matrix,
    /// Whether every variance at the maximum is at most [`PROJECTED_UP_TO`]:
    /// the first metric is then [`Metric::Projected`].
    small_covariance: bool,
}

/// Newton steps that keep the contrast `eᵀθ` where it is, with a fixed
/// metric: the Hessian at the maximum, or a local one once refreshed.
#[derive(Debug, Clone)]
enum Metric<'a> {
    /// The Newton step of the unconstrained problem projected onto the
    /// constraint: `Σg − d (eᵀΣg)`, with `Σ` the inverse of minus the
    /// Hessian at the maximum. It is the same step as [`Reduced`]'s with
    /// that Hessian, from one product with `Σ` and no factorisation (the
    /// `O(n³)` of a contrast's first metric, most of a large field's
    /// intervals once the likelihood passes are few). Only where `Σ` is
    /// small ([`PROJECTED_UP_TO`]): see [`Reduced`] for what goes wrong
    /// where it is not.
    Projected {
        covariance: &'a Matrix,
        /// `Σe`.
        sigma_e: &'a [f64],
        /// `d = Σe / (eᵀΣe)`.
        direction: &'a [f64],
    },
    Reduced(Reduced),
}

impl Metric<'_> {
    /// The Newton step for `gradient` that keeps `eᵀθ` fixed.
    fn step(&self, gradient: &[f64]) -> Vec<f64> {
        match self {
            Metric::Projected {
                covariance,
                sigma_e,
                direction,
            } => {
                let mut step = covariance.mul_vec(gradient);
                let along = dot(sigma_e, gradient);
                step.iter_mut().zip(*direction).for_each(|(s, d)| *s -= along * d);
                step
            }
            Metric::Reduced(reduced) => reduced.step(gradient),
        }
    }
}

/// The constrained Newton step through a factorisation of the reduced
/// Hessian.
///
/// A step moves every rating but the pivot `k` (the largest weight of `e`)
/// freely, by `z`, and the pivot by `−Σ rⱼ zⱼ` with `rⱼ = eⱼ / eₖ`, which
/// leaves `eᵀθ` unchanged. The step is the Newton step in those `n − 1`
/// coordinates, whose Hessian `PᵀHP` is factorised once per metric.
///
/// Why not the shorter projection `Σg − d (eᵀΣg)` of the unconstrained
/// step: far from the estimate, a bot that won all its few games sits
/// where the logistic curve is flat (curvature about `e^-45` with a weak
/// prior), so `Σ = H⁻¹` holds entries near `10^19`, and the step, a
/// difference of such numbers, keeps neither the constraint nor the
/// ascent; the search then stalls. Inside the constraint that bot cannot
/// move alone (the others follow it), so the reduced Hessian has no such
/// flat direction, and nothing large is ever subtracted.
#[derive(Debug, Clone)]
struct Reduced {
    pivot: usize,
    /// `eⱼ / eₖ`, with 0 at the pivot.
    ratios: Vec<f64>,
    /// Of the reduced Hessian, over the players other than the pivot.
    reduced: Cholesky,
}

impl Reduced {
    /// The metric of `neg_hessian` (minus a Hessian) for the contrast `e`
    /// (not all zero), or `None` when even with [`RIDGE`] the reduced
    /// matrix does not factorise (every entry 0).
    fn new(neg_hessian: &Matrix, e: &[f64]) -> Option<Self> {
        let pivot = (0..e.len()).max_by(|&i, &j| e[i].abs().total_cmp(&e[j].abs()))?;
        let ratios: Vec<f64> = e
            .iter()
            .enumerate()
            .map(|(j, &weight)| if j == pivot { 0.0 } else { weight / e[pivot] })
            .collect();
        let free: Vec<usize> = (0..e.len()).filter(|&j| j != pivot).collect();
        let h = |i: usize, j: usize| neg_hessian.get(i, j);
        let mut reduced = Matrix::zeros(free.len());
        for (a, &i) in free.iter().enumerate() {
            for (b, &j) in free.iter().enumerate() {
                let (ri, rj) = (ratios[i], ratios[j]);
                reduced.add(
                    a,
                    b,
                    h(i, j) - ri * h(pivot, j) - rj * h(i, pivot) + ri * rj * h(pivot, pivot),
                );
            }
        }
        let ridge = RIDGE * (0..free.len()).map(|a| reduced.get(a, a)).fold(0.0, f64::max);
        (0..free.len()).for_each(|a| reduced.add(a, a, ridge));
        Some(Self {
            pivot,
            ratios,
            reduced: reduced.cholesky()?,
        })
    }

    /// The Newton step for `gradient` that keeps `eᵀθ` fixed.
    fn step(&self, gradient: &[f64]) -> Vec<f64> {
        let pivot_gradient = gradient[self.pivot];
        let reduced_gradient: Vec<f64> = gradient
            .iter()
            .zip(&self.ratios)
            .enumerate()
            .filter(|&(j, _)| j != self.pivot)
            .map(|(_, (g, r))| g - r * pivot_gradient)
            .collect();
        let mut free_steps = self.reduced.solve(&reduced_gradient).into_iter();
        let mut step: Vec<f64> = (0..gradient.len())
            .map(|j| {
                if j == self.pivot {
                    0.0
                } else {
                    free_steps.next().unwrap_or(0.0)
                }
            })
            .collect();
        step[self.pivot] = -dot(&self.ratios, &step);
        step
    }
}

/// `step` times `stretch`, shortened to the limit of [`MAX_STEP`] at
/// `theta`.
fn within_limit(mut step: Vec<f64>, stretch: f64, theta: &[f64]) -> Vec<f64> {
    let largest = |v: &[f64]| v.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    let limit = MAX_STEP.max(largest(theta));
    let scale = stretch.min(limit / largest(&step));
    step.iter_mut().for_each(|s| *s *= scale);
    step
}

/// One contrast being profiled.
#[derive(Debug)]
struct Contrast<'e> {
    weights: &'e [f64],
    /// `Σe / (eᵀΣe)`: moves the contrast by exactly one unit.
    direction: &'e [f64],
    /// The metric at the maximum.
    metric: Metric<'e>,
    /// No end of the interval lies further than this from the estimate.
    reach: f64,
}

/// How much `t` must grow for `f(t) = sqrt(2·drop(t)) − z` (`f` and its
/// slope given at `t`) to reach 0 if the drop grows as a power of `t`, as
/// it does locally: `drop = (f + z)²/2`, whose exponent is
/// `t·drop′/drop = 2t·f′/(f + z)`. The power is 2 where the profile is
/// quadratic (many games) and 1 on the flat side of an extreme bot; `None`
/// where the slope says nothing (0, negative or not a number).
fn power_law_growth(t: f64, f: f64, slope: f64) -> Option<f64> {
    let power = 2.0 * t * slope / (f + Z95);
    let growth = (Z95 / (f + Z95)).powf(2.0 / power);
    (power > 0.0 && growth.is_finite()).then_some(growth)
}

/// A maximum of the likelihood under a contrast's constraint.
#[derive(Debug)]
struct ConstrainedMax {
    theta: Vec<f64>,
    value: f64,
    /// The gradient at the last point evaluated, a negligible step from
    /// `theta`.
    gradient: Vec<f64>,
}

/// The last constrained maximum found, to start the next one from.
#[derive(Debug)]
struct WarmStart {
    offset: f64,
    theta: Vec<f64>,
}

impl<'a> Profiler<'a> {
    pub(super) fn new(likelihood: &'a Likelihood, optimum: &'a Optimum) -> Self {
        Self {
            likelihood,
            optimum,
            neg_hessian: likelihood.neg_hessian(&optimum.theta),
            small_covariance: (0..likelihood.players()).all(|i| optimum.covariance.get(i, i) <= PROJECTED_UP_TO),
        }
    }

    /// The interval of `eᵀθ`, or `None` if an end could not be located.
    /// Every weight of `e` is at most 1 in size, as in a rating minus the
    /// pool mean or minus the anchor's rating.
    pub(super) fn interval(&self, e: &[f64]) -> Option<Interval> {
        let estimate = dot(e, &self.optimum.theta);
        let sigma_e = self.optimum.covariance.mul_vec(e);
        let variance = dot(e, &sigma_e);
        if variance <= 0.0 {
            // The contrast is fixed by definition (the anchor itself).
            return Some(Interval {
                estimate,
                std_error: 0.0,
                below: 0.0,
                above: 0.0,
            });
        }
        let direction: Vec<f64> = sigma_e.iter().map(|x| x / variance).collect();
        let metric = if self.small_covariance {
            Metric::Projected {
                covariance: &self.optimum.covariance,
                sigma_e: &sigma_e,
                direction: &direction,
            }
        } else {
            Metric::Reduced(Reduced::new(&self.neg_hessian, e)?)
        };
        let contrast = Contrast {
            weights: e,
            direction: &direction,
            metric,
            reach: self
                .likelihood
                .contrast_reach(self.optimum.value - Z95 * Z95 / 2.0)
                .map_or(MAX_OFFSET_WITHOUT_PRIOR, |reach| reach + estimate.abs()),
        };
        let std_error = variance.sqrt();
        Some(Interval {
            estimate,
            std_error,
            below: self.end(&contrast, std_error, -1.0)?,
            above: self.end(&contrast, std_error, 1.0)?,
        })
    }

    /// The distance from the estimate to the interval end on the side of
    /// `sign`: the root of `f(t) = sqrt(2·drop) − z`, nearly linear in `t`.
    /// Newton's method on `f` (its slope comes with each evaluation, see
    /// [`Profiler::drop`]) inside a bracket; a bracketing secant (Illinois)
    /// step wherever Newton's would leave the bracket. The quadratic guess
    /// `z·σ` misses a well-measured bot's end by about `10⁻⁴`; one step by
    /// the drop's local power law ([`power_law_growth`]) from there usually
    /// lands within [`ROOT_TOLERANCE`].
    fn end(&self, contrast: &Contrast, std_error: f64, sign: f64) -> Option<f64> {
        let mut warm = WarmStart {
            offset: 0.0,
            theta: self.optimum.theta.clone(),
        };
        let mut root = |t: f64| -> Option<(f64, f64)> {
            let (drop, rate) = self.drop(contrast, sign * t, &mut warm)?;
            let scaled = (2.0 * drop).sqrt();
            Some((scaled - Z95, sign * rate / scaled))
        };

        // Bracket: the quadratic guess first, then grow: once as far as the
        // drop's local power law says (the root itself, or within `10⁻⁸`
        // of it, when the profile is as smooth as with many games), and
        // from there at least by a fifth at a time.
        let (mut low, mut f_low) = (0.0, -Z95);
        let mut high = Z95 * std_error;
        let (mut f_high, mut slope) = root(high)?;
        let mut predicted = false;
        loop {
            if f_high.abs() < ROOT_TOLERANCE {
                return Some(high);
            }
            if f_high > 0.0 {
                break;
            }
            if high >= contrast.reach {
                return None;
            }
            // Exact when the drop grows linearly (the flat side of an
            // extreme bot); overshoots, and so brackets, when it is
            // quadratic.
            let linear = (Z95 / (f_high + Z95)).powi(2).clamp(1.2, 16.0);
            let growth = match power_law_growth(high, f_high, slope) {
                Some(growth) if !predicted => growth.clamp(1.0 + 1e-12, 16.0),
                _ => linear,
            };
            predicted = true;
            (low, f_low) = (high, f_high);
            high = (high * growth).min(contrast.reach);
            (f_high, slope) = root(high)?;
        }

        // The newest point, which Newton's step starts from.
        let (mut newest, mut f_newest) = (high, f_high);
        let mut last_side = 0;
        for _ in 0..MAX_ROOT_STEPS {
            let newton = newest - f_newest / slope;
            // False for a slope of 0 or NaN, where the drop is flat.
            let by_newton = slope > 0.0 && newton > low && newton < high;
            let t = if by_newton {
                newton
            } else {
                (low * f_high - high * f_low) / (f_high - f_low)
            };
            let f_t;
            (f_t, slope) = root(t)?;
            if f_t.abs() < ROOT_TOLERANCE || high - low <= 1e-12 * high {
                return Some(t);
            }
            // Illinois: an end of the bracket that stays twice in a row
            // has its value halved, so that the secant moves it.
            let side = if f_t < 0.0 { -1 } else { 1 };
            if side == -1 {
                (low, f_low) = (t, f_t);
                if last_side == -1 && !by_newton {
                    f_high /= 2.0;
                }
            } else {
                (high, f_high) = (t, f_t);
                if last_side == 1 && !by_newton {
                    f_low /= 2.0;
                }
            }
            last_side = side;
            (newest, f_newest) = (t, f_t);
        }
        None
    }

    /// How much the profile log-likelihood at `ĉ + offset` lies below the
    /// maximum, and how fast that grows with `offset`. At a maximum under
    /// the constraint `eᵀθ = c` the gradient is `λe`, and `λ` is the slope
    /// of the profile in `c`, so the growth comes with the maximum.
    fn drop(&self, contrast: &Contrast, offset: f64, warm: &mut WarmStart) -> Option<(f64, f64)> {
        let shift = offset - warm.offset;
        let start: Vec<f64> = warm
            .theta
            .iter()
            .zip(contrast.direction)
            .map(|(t, d)| t + shift * d)
            .collect();
        let found = self.constrained_max(contrast, start)?;
        let weights = contrast.weights;
        let rise = dot(&found.gradient, weights) / dot(weights, weights);
        *warm = WarmStart {
            offset,
            theta: found.theta,
        };
        Some(((self.optimum.value - found.value).max(0.0), -rise))
    }

    /// Maximizes the likelihood over the ratings that keep `eᵀθ` where
    /// `start` has it: the maximum, its likelihood, and the gradient at the
    /// last point evaluated (within a negligible step of the maximum).
    fn constrained_max(&self, contrast: &Contrast, start: Vec<f64>) -> Option<ConstrainedMax> {
        let mut metric = Cow::Borrowed(&contrast.metric);
        let mut theta = start;
        let (mut value, mut gradient) = self.likelihood.value_and_gradient(&theta);
        // How many Newton steps long the next step is (see LINEAR_GAIN).
        let mut stretch = 1.0;
        for step_count in 1..=MAX_ASCENT_STEPS {
            let step = within_limit(metric.step(&gradient), stretch, &theta);
            match advance(self.likelihood, &theta, value, &gradient, &step) {
                Progress::Converged(theta, value) => return Some(ConstrainedMax { theta, value, gradient }),
                Progress::Moved(next, next_value, next_gradient) => {
                    let linear = next_value - value > LINEAR_GAIN * dot(&gradient, &step);
                    stretch = if linear { 2.0 * stretch } else { 1.0 };
                    (theta, value, gradient) = (next, next_value, next_gradient);
                }
                Progress::Stuck => return None,
            }
            if step_count % REFRESH_EVERY == 0 {
                // A local Hessian too flat to factorise leaves the metric
                // as it is: any positive definite metric points uphill.
                if let Some(local) = Reduced::new(&self.likelihood.neg_hessian(&theta), contrast.weights) {
                    metric = Cow::Owned(Metric::Reduced(local));
                }
            }
        }
        None
    }
}
