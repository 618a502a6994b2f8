//! Standings and strength: the table of a run's results and the ratings with their intervals, both
//! folded from the same tally of game records, with no processes and no journal of their own.
//!
//! It holds [`standings`] (points, wins, forfeits by kind, the pair table) and [`strength`] (the joint
//! rating fit with intervals, LOS and the pentanomial pair statistics, anchored as a run asks), over a
//! private tally of the records and the roster of bot names they name.

#![warn(missing_docs)]

mod roster;
pub mod standings;
pub mod strength;
mod tally;
