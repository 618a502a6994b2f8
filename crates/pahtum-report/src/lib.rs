//! The reports of pahtum-arena: everything a person reads about games and tournaments.
//!
//! The tournament crate plays games and computes standings from the journal;
//! this crate presents them, and depends on it (never the reverse: the runner
//! reports through its events, which [`progress`] shows). The text formats of
//! the standings are in [`render`] (with the ratings' parts in
//! [`strength_render`], both built on the private `table` module); [`files`] writes them, and the
//! HTML page, beside a run's journal; [`html`] is the self-contained HTML report
//! with its replay viewer; [`show`] prints a game move by move on a terminal.
//! A tournament, a match and a single game all go through the same code.

#![warn(missing_docs)]

pub mod files;
pub mod html;
pub mod match_report;
pub mod progress;
pub mod render;
pub mod run_report;
pub mod show;
pub mod strength_render;
mod table;

#[cfg(test)]
mod fixtures;
