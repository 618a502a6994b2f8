//! Tournaments of pahtum-arena.
//!
//! A tournament file ([`config`]) gives a deterministic list of games
//! ([`schedule`]); the [`runner`] plays the missing ones with bot processes
//! from a [`pool`] and appends each record to an append-only [`journal`], the
//! only source of truth: [`resume`], [`standings`], [`strength`] and
//! [`report`] are derived from it, and every record read from it is checked
//! first ([`audit`]). The runner reports what happens as [`events`].
//! Presenting all this (tables, files, the HTML report, the progress display)
//! is the `pahtum-report` crate's work, which depends on this one and never
//! the reverse.

#![warn(missing_docs)]

pub mod audit;
pub mod config;
pub mod durability;
pub mod events;
pub mod game_set;
pub mod journal;
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
