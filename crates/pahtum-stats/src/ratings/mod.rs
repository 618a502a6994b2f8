//! Joint Elo ratings for a pool of bots, with honest uncertainty.
//!
//! cutechess-cli and fastchess rate a bot from its total score as if it
//! had played one opponent of average strength; with more than two bots
//! that is wrong whenever the schedule is unbalanced or the opponents
//! differ. Here, as in BayesElo and Ordo, one model is fitted to every
//! game at once: a logistic Bradley–Terry model on the Elo scale,
//! `P(a beats b) = 1 / (1 + 10^((Rb − Ra)/400))`, with a draw counting half
//! a win. The maximum of its (penalized) likelihood is found by Newton's
//! method on the pair table ([`PairMatrix`]), so the cost depends on the
//! number of bots, not of games.
//!
//! **Prior.** By default each bot gets two virtual draws against a virtual
//! opponent rated at the pool average ([`FitOptions::prior_draws`]). That
//! is weak — two games' worth of evidence — but it keeps a bot that won or
//! lost everything at a finite rating with a finite interval, so the table
//! never shows `inf` or `NaN`. It pulls ratings slightly towards the
//! average, less the more games a bot has. With `prior_draws = 0` the plain
//! maximum-likelihood fit is returned when it exists; otherwise
//! [`StatsError::NoConvergence`]. A prior weaker than
//! [`MIN_PRIOR_DRAWS`] is refused (see there why).
//!
//! **Scale.** Ratings are reported relative to the pool average (the mean
//! rating is 0) or to an anchor bot with a fixed rating ([`Anchor`]).
//!
//! **Uncertainty.** Every rating comes with a 95% profile-likelihood
//! interval (see the `profile` module for why that method), its
//! large-sample standard error, and the matrix of likelihoods of
//! superiority between every two bots ([`Ratings::los`]).
//!
//! **Connectivity.** If some bots are not linked to the others by a chain
//! of games, their ratings are not comparable; [`fit`] returns
//! [`StatsError::Disconnected`] with the groups instead of a fit.

mod graph;
mod likelihood;
mod los;
mod matrix;
mod newton;
mod prior;
mod profile;

use serde::{Deserialize, Serialize};

pub use matrix::PairMatrix;
pub use prior::MIN_PRIOR_DRAWS;

use crate::StatsError;
use crate::elo::ELO_PER_NAT;
use likelihood::Likelihood;
use profile::{Interval, Profiler};

/// What the ratings are measured from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Anchor {
    /// The mean rating of the pool is 0.
    #[default]
    PoolAverage,
    /// Player `index` is rated exactly `rating`; its interval is that point
    /// and every other interval is relative to it.
    Player {
        /// The anchored player.
        index: usize,
        /// Its rating.
        rating: f64,
    },
}

/// Settings of a rating fit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FitOptions {
    /// Virtual draws each player gets against a virtual opponent rated at
    /// the pool average (before anchoring). Default 2; 0 disables the
    /// prior; otherwise at least [`MIN_PRIOR_DRAWS`].
    pub prior_draws: f64,
    /// The reference point of the reported ratings.
    pub anchor: Anchor,
}

impl Default for FitOptions {
    fn default() -> Self {
        Self {
            prior_draws: 2.0,
            anchor: Anchor::PoolAverage,
        }
    }
}

impl FitOptions {
    fn validate(&self, players: usize) -> Result<(), StatsError> {
        let prior = self.prior_draws;
        if !(prior == 0.0 || (prior.is_finite() && prior >= MIN_PRIOR_DRAWS)) {
            return Err(StatsError::InvalidPrior(self.prior_draws));
        }
        if let Anchor::Player { index, rating } = self.anchor {
            if index >= players {
                return Err(StatsError::PlayerOutOfRange { index, players });
            }
            if !rating.is_finite() {
                return Err(StatsError::InvalidAnchorRating(rating));
            }
        }
        Ok(())
    }
}

/// One player's line in the rating table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PlayerRating {
    /// The player's index in the pool.
    pub index: usize,
    /// The fitted rating (Elo).
    pub rating: f64,
    /// Lower end of the 95% profile-likelihood interval.
    pub lower: f64,
    /// Upper end of the 95% profile-likelihood interval.
    pub upper: f64,
    /// Large-sample standard error from the inverse Hessian (symmetric;
    /// shown for comparison with other tools, `lower`/`upper` are better).
    pub std_error: f64,
    /// Games played.
    pub games: u64,
    /// Points scored.
    pub points: f64,
}

/// One place in the ranking.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RankEntry {
    /// The player at this place.
    pub player: usize,
    /// Likelihood that this player is stronger than the one ranked just
    /// below; `None` for the last place.
    pub los_next: Option<f64>,
}

/// The result of a fit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ratings {
    /// One entry per player, in index order.
    pub players: Vec<PlayerRating>,
    /// The players from strongest to weakest (ties by index).
    pub ranking: Vec<RankEntry>,
    /// `los[i][j]`: likelihood of superiority of player `i` over `j`,
    /// `P(Ri > Rj)`; 0.5 on the diagonal, `los[i][j] + los[j][i] = 1`.
    pub los: Vec<Vec<f64>>,
}

/// Fits ratings to the results in `matrix`.
///
/// Errors: [`StatsError::NoPlayers`], [`StatsError::InvalidPrior`] (a
/// prior below [`MIN_PRIOR_DRAWS`] but not 0), an anchor out of range or
/// not finite, [`StatsError::Disconnected`] when not all players are
/// linked by games, and [`StatsError::NoConvergence`] or
/// [`StatsError::IntervalFailed`] (only possible with no prior).
pub fn fit(matrix: &PairMatrix, options: &FitOptions) -> Result<Ratings, StatsError> {
    let n = matrix.players();
    if n == 0 {
        return Err(StatsError::NoPlayers);
    }
    options.validate(n)?;
    let components = graph::components(matrix);
    if components.len() > 1 {
        return Err(StatsError::Disconnected { components });
    }

    let likelihood = Likelihood::new(matrix, options.prior_draws);
    let optimum = newton::maximize(&likelihood)?;
    let profiler = Profiler::new(&likelihood, &optimum);
    let (reference, offset) = match options.anchor {
        Anchor::PoolAverage => (None, 0.0),
        Anchor::Player { index, rating } => (Some(index), rating),
    };

    let rate = |index: usize| {
        let interval = profiler
            .interval(&contrast(n, index, reference))
            .ok_or(StatsError::IntervalFailed { player: index })?;
        Ok(player_rating(matrix, index, &interval, offset))
    };
    let players = on_every_core(n, rate)
        .into_iter()
        .collect::<Result<Vec<_>, StatsError>>()?;
    let los = los::matrix(&optimum);
    let ranking = ranking(&players, &los);
    Ok(Ratings { players, ranking, los })
}

/// `work(0), work(1), ..., work(count - 1)`, in that order, computed on every core: each player's interval
/// is a maximisation of its own (each a few hundred `O(n²)` steps after an `O(n³)` factorisation), so with
/// a few hundred players they are most of a fit's time, and they share nothing but what they read.
fn on_every_core<T: Send>(count: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let cores = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(count.max(1));
    if cores == 1 {
        return (0..count).map(work).collect();
    }
    let work = &work;
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..cores)
            .map(|core| scope.spawn(move || (core..count).step_by(cores).map(work).collect::<Vec<T>>()))
            .collect();
        let mut parts: Vec<std::vec::IntoIter<T>> = threads
            .into_iter()
            .map(|thread| thread.join().expect("a rating interval does not panic").into_iter())
            .collect();
        (0..count)
            .map(|index| parts[index % cores].next().expect("each core made its share"))
            .collect()
    })
}

/// The weights `e` with `eᵀθ` = the rating of `index` as reported: minus
/// the pool mean, or minus the anchor's rating.
fn contrast(n: usize, index: usize, reference: Option<usize>) -> Vec<f64> {
    let mut e = match reference {
        None => vec![-1.0 / n as f64; n],
        Some(anchor) => {
            let mut e = vec![0.0; n];
            e[anchor] = -1.0;
            e
        }
    };
    e[index] += 1.0;
    e
}

fn player_rating(matrix: &PairMatrix, index: usize, interval: &Interval, offset: f64) -> PlayerRating {
    let elo = |nats: f64| offset + ELO_PER_NAT * nats;
    PlayerRating {
        index,
        rating: elo(interval.estimate),
        lower: elo(interval.estimate - interval.below),
        upper: elo(interval.estimate + interval.above),
        std_error: ELO_PER_NAT * interval.std_error,
        games: matrix.player_games(index),
        points: matrix.player_points(index),
    }
}

fn ranking(players: &[PlayerRating], los: &[Vec<f64>]) -> Vec<RankEntry> {
    let mut order: Vec<usize> = (0..players.len()).collect();
    order.sort_by(|&a, &b| players[b].rating.total_cmp(&players[a].rating).then(a.cmp(&b)));
    order
        .iter()
        .enumerate()
        .map(|(place, &player)| RankEntry {
            player,
            los_next: order.get(place + 1).map(|&next| los[player][next]),
        })
        .collect()
}
