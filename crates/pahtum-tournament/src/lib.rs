//! Tournaments of pahtum-arena.
//!
//! A tournament file ([`config`]) gives a deterministic list of games
//! ([`schedule`]); the [`runner`] plays the missing ones with bot processes
//! from a [`pool`] and appends each record to an append-only [`journal`], the
//! only source of truth: [`resume`], [`standings`] and every table
//! ([`render`], [`report`]) are derived from it, and every record read from it
//! is checked first ([`audit`]). The runner reports what
//! happens as [`events`]; [`progress`] shows them on a terminal or as plain
//! lines.

pub mod audit;
pub mod config;
pub mod events;
pub mod journal;
pub mod launch;
pub mod pool;
pub mod progress;
pub mod render;
pub mod report;
pub mod resume;
pub mod runner;
pub mod schedule;
pub mod sprt_gate;
pub mod standings;
pub mod strength;
pub mod strength_render;

#[doc(hidden)]
pub mod testing;
