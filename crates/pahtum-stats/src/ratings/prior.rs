//! The weakest prior a fit accepts ([`FitOptions::prior_draws`](super::FitOptions::prior_draws)).
//!
//! A module of its own, with nothing else in it, because the crate's error
//! ([`StatsError::InvalidPrior`](crate::StatsError::InvalidPrior)) names the
//! bound too: were it beside the fit in `ratings/mod.rs`, which returns
//! that error, the error and the fit would use each other. It is public as
//! `ratings::MIN_PRIOR_DRAWS`.

/// The weakest prior accepted, in virtual draws, other than none at all.
///
/// A weaker prior bounds an unbeaten or winless bot's interval only
/// hundreds of thousands of Elo out, which says nothing, and there the
/// likelihood is nearly linear between kinks (each bot's prior bends it
/// within about a nat of 0). Newton's steps are a poor guide on such a
/// surface: property tests found pools where the profile search did not
/// settle with priors of 0.07 draws and less, while from 0.1 up it
/// located every interval end in about 100,000 random pools.
pub const MIN_PRIOR_DRAWS: f64 = 0.1;
