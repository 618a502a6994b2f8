//! The reports of pahtum-arena: everything a person reads about games and tournaments.
//!
//! [`fold`] derives a run's standings from its journal alone (a tournament's
//! or a league's), and the runner plays the games; this crate presents them,
//! and depends on the data crates (never the reverse; the runner reports
//! through its events, which [`progress`], [`run_report`] and
//! [`match_report`] observe). The text
//! formats of the standings are in [`render`] (with the ratings' parts in
//! [`strength_render`], both built on the private `table` module, and the
//! terminal's standings table fitted to its width by [`fit`]); [`files`]
//! writes them beside a run's journal; [`html`] is the self-contained HTML
//! report with its replay viewer; [`run_report`] folds a run (live, or from
//! its journal) into its standings files and report page, and writes one
//! game's page; [`match_report`] shows a match's progress and writes
//! `match.json`; [`show`] prints a game, or a list of games, on a terminal,
//! drawing its boards with [`board`], as `arena play` does ([`play`]: what a
//! person sees of their game against a bot, [`prompt`]: what they type) and
//! `arena game` at a game's end ([`game_summary`]).
//! [`sources`] says what a games source is (a game's record, a journal, a
//! run's folder, a folder of shards merged on the fly, a league's journal)
//! for every command that reads games. A
//! tournament, a match and a single game all go through the same code.

#![warn(missing_docs)]

pub mod board;
pub mod files;
pub mod fit;
pub mod fold;
pub mod game_summary;
pub mod html;
pub mod league;
pub mod match_report;
pub mod play;
pub mod progress;
pub mod prompt;
pub mod render;
pub mod run_report;
pub mod show;
pub mod sources;
pub mod strength_render;
mod table;

#[cfg(test)]
mod fixtures;
