//! Pure statistics for Pah Tum strength tables.
//!
//! Tournaments in the arena play every block layout twice with the seats
//! swapped ("a layout pair"). This crate turns such results into numbers a
//! person can trust, with no I/O, no async and no global state: plain
//! functions over data, so that every user of them (today
//! pahtum-tournament's standings and the SPRT gate of `arena match`)
//! computes exactly the same thing from the same games.
//!
//! * [`ratings`] fits every bot jointly (like BayesElo or Ordo, unlike
//!   cutechess-cli and fastchess, which score each bot against one
//!   "average opponent") and says how sure each number is: asymmetric 95%
//!   intervals from the profile likelihood and a likelihood-of-superiority
//!   matrix.
//! * [`pentanomial`] summarises one head-to-head match by the scores of its
//!   layout pairs: Elo and normalized Elo with their 95% errors.
//! * [`sprt`] decides, pair by pair, whether a bot is better than another
//!   by a given margin (fishtest-style sequential test).
//!
//! Results are plain structs that implement `serde::Serialize`. Every
//! number they hold is finite: degenerate inputs (a bot that won every
//! game, a pool of draws, a single game) are regularised in documented
//! ways instead of producing `inf` or `NaN`.

mod elo;
mod error;
mod game;
mod linalg;
mod normal;
pub mod pentanomial;
pub mod ratings;
pub mod sprt;

pub use error::StatsError;
pub use game::{Game, LayoutPair};
pub use pentanomial::{Pentanomial, PentanomialStats};
pub use ratings::{Anchor, FitOptions, PairMatrix, PlayerRating, RankEntry, Ratings, fit};
pub use sprt::{Sprt, SprtOutcome, SprtStatus};
