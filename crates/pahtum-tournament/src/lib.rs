//! A tournament's file and its deterministic schedule: synchronous, no processes.
//!
//! A tournament file ([`config`]) gives a deterministic list of games ([`schedule`], cut into
//! [`shard`]s for a cluster; [`game_set`] names a set of them), which grows, every game kept, when
//! bots join a tournament already started; [`durability`] says when its journal reaches the disk.
//! The journal of its games is `pahtum-journal`'s, the standings `pahtum-standings`', a run over the
//! journal `pahtum-run`'s and a league `pahtum-league`'s; all of them build on this crate.

#![warn(missing_docs)]

pub mod book;
pub mod config;
pub mod durability;
pub mod game_set;
pub mod schedule;
pub mod shard;

#[cfg(any(test, feature = "testing"))]
pub mod testing;
