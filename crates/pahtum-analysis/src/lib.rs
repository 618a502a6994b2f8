//! The analysis of a game: for every ply, the value of the position for the
//! player to act before it and after it, the best moves, what the move played
//! cost, a grade, and each side's losing move.
//!
//! It is data, not a process: a record goes in ([`analyze::Analyzer`]), a
//! [`GameAnalysis`](pahtum_record::annotations::GameAnalysis) comes out, one
//! line of `analysis.jsonl` (RECORD.md documents the file). The values come
//! from the reference engine's search, the [`pahtum_search`] crate: its exact
//! endgame solver where the position has few enough free cells (exact final
//! margins), its tree search with a fixed number of playouts and a fixed seed
//! before that (an expected result, so an analysis is reproducible).
//! [`driver`] analyses many games into `analysis.jsonl` on a pool of threads,
//! resuming the file; `arena analyze` chooses the games and calls it.
//! [`book`] draws the openings of a book and keeps those the same estimates
//! find near an even game (`arena book`).
//!
//! The file's types, and where it lies and how its lines are read back, are
//! [`pahtum_record::annotations`], not here: the report and the server show
//! analyses without linking the search this crate computes them with.

pub mod analyze;
pub mod book;
pub mod driver;
pub mod grade;
pub mod perfect_play;
mod values;
