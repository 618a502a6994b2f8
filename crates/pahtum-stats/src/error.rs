//! The one error type of the crate.
//!
//! Callers turn these into messages for people (the tournament report, the
//! CLI), so each variant carries the data needed to say what is wrong —
//! notably [`StatsError::Disconnected`] names the groups of players that
//! never met, because a joint fit across such groups would be meaningless.

use std::fmt::Write as _;

/// Everything that can go wrong when turning results into statistics.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum StatsError {
    /// A rating fit was asked for a pool of zero players.
    #[error("no players to rate")]
    NoPlayers,
    /// A result names a player index that is not in the pool.
    #[error("player index {index} is out of range for a pool of {players} players")]
    PlayerOutOfRange {
        /// The offending index.
        index: usize,
        /// The size of the pool.
        players: usize,
    },
    /// A result has the same player on both sides.
    #[error("player {index} cannot play against itself")]
    SelfPlay {
        /// The player named twice.
        index: usize,
    },
    /// A score that is not a multiple of 1/2 between 0 and `max`.
    #[error("invalid score {score}: expected a multiple of 0.5 from 0 to {max}")]
    InvalidScore {
        /// The score as given.
        score: f64,
        /// The largest valid score (1 for a game, 2 for a layout pair).
        max: f64,
    },
    /// The prior strength is neither 0 nor a finite number of at least
    /// [`MIN_PRIOR_DRAWS`](crate::ratings::MIN_PRIOR_DRAWS).
    #[error(
        "invalid prior strength {0}: expected 0 (no prior) or a finite number of virtual draws >= {min}",
        min = crate::ratings::MIN_PRIOR_DRAWS
    )]
    InvalidPrior(f64),
    /// The rating given to the anchor player is not finite.
    #[error("invalid anchor rating {0}: expected a finite number")]
    InvalidAnchorRating(f64),
    /// Not every player is connected to every other one through games, so
    /// their ratings are not comparable. Each component lists its player
    /// indices in increasing order; components are ordered by their first
    /// player. A player with no games is a component of its own.
    #[error(
        "the players are not all connected by games; separate groups: {}",
        format_components(components)
    )]
    Disconnected {
        /// The groups of players that are connected among themselves.
        components: Vec<Vec<usize>>,
    },
    /// Newton's method did not reach the maximum of the likelihood.
    #[error(
        "the rating fit did not converge after {iterations} newton iterations \
         (with no prior, a player who won or lost every game has no finite rating)"
    )]
    NoConvergence {
        /// Iterations spent before giving up.
        iterations: usize,
    },
    /// The profile likelihood of a player never dropped enough to bound its
    /// 95% interval (only possible without a prior).
    #[error("the 95% interval of player {player} could not be located")]
    IntervalFailed {
        /// The player whose interval failed.
        player: usize,
    },
    /// Statistics over layout pairs were asked for an empty sample.
    #[error("no layout pairs to summarise")]
    NoPairs,
    /// SPRT parameters that do not describe a test.
    #[error("invalid sprt parameters: {0}")]
    InvalidSprt(String),
    /// A CLI SPRT specification that could not be read.
    #[error("cannot read sprt specification {input:?}: {reason} (expected \"elo0,elo1[,alpha,beta]\")")]
    SprtSyntax {
        /// The text as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
}

fn format_components(components: &[Vec<usize>]) -> String {
    let mut out = String::new();
    for (n, component) in components.iter().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        // Writing to a String cannot fail.
        let _ = write!(out, "{component:?}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disconnected_message_names_the_groups() {
        let err = StatsError::Disconnected {
            components: vec![vec![0, 1], vec![2], vec![3, 4]],
        };
        assert_eq!(
            err.to_string(),
            "the players are not all connected by games; separate groups: [0, 1], [2], [3, 4]"
        );
    }
}
