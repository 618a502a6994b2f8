//! A run of a tournament over its journal, as data: what is left to play, what happens, when a match
//! may stop, and whether a bot changed; no processes.
//!
//! It holds [`resume`] (opening a run's journal and what is left of its schedule), [`events`] (what
//! happens during a run, told to an observer), [`notice`] (what a run tells its organiser besides its
//! games, told to the same observer), [`sprt_gate`] (when a match may stop) and [`hellos`] (whether a
//! bot's program changed since its games in the journal). Playing the games is
//! `pahtum-runner`'s work, and presenting them `pahtum-report`'s.

#![warn(missing_docs)]

pub mod events;
pub mod hellos;
pub mod notice;
pub mod resume;
pub mod sprt_gate;
