//! The data of pahtum-arena's tournaments: synchronous, no processes.
//!
//! A tournament file ([`config`]) gives a deterministic list of games
//! ([`schedule`], cut into [`shard`]s for a cluster; [`game_set`] names a set
//! of them), which grows, every game kept, when bots join a tournament already
//! started. Each finished game is appended to an append-only [`journal`], the
//! only source of truth: [`resume`] (what is left to play), [`merge`] (shards
//! into one run), [`standings`] and [`strength`] (ratings with intervals, from
//! the same tally of the records) and [`report`] (the
//! fold of a run into its tables) are derived from it, and every record read
//! from it is checked first ([`audit`]). What happens during a run is told as
//! [`events`]; [`sprt_gate`] decides when a match may stop, and [`hellos`]
//! whether a bot's program changed since its games in the journal.
//!
//! Playing the games (bot processes, the async runtime) is the
//! `pahtum-runner` crate's work, and presenting them (tables, files, the HTML
//! report, progress) is `pahtum-report`'s; both depend on this crate and never
//! the reverse, so the code behind `arena standings`, `verify`, `merge` and
//! `report` holds no process machinery.

#![warn(missing_docs)]

pub mod audit;
pub mod config;
pub mod durability;
pub mod events;
pub mod game_set;
pub mod hellos;
pub mod journal;
pub mod league;
pub mod merge;
pub mod report;
pub mod resume;
mod roster;
pub mod schedule;
pub mod shard;
pub mod sprt_gate;
pub mod standings;
pub mod strength;
mod tally;

#[doc(hidden)]
pub mod testing;
