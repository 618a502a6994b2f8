//! The analysis of a game: for every ply, the value of the position for the
//! player to act before it and after it, the best moves, what the move played
//! cost, a grade, and each side's losing move.
//!
//! It is data, not a process: a record goes in ([`analyze::Analyzer`]), an
//! [`format::GameAnalysis`] comes out, one line of `analysis.jsonl`
//! (RECORD.md documents the file). The values come from the reference
//! engine's library: its exact endgame solver where the position has few
//! enough free cells (exact final margins), its tree search with a fixed
//! number of playouts and a fixed seed before that (an expected result, so an
//! analysis is reproducible). `arena analyze` wires it to journals; [`file`]
//! finds and reads `analysis.jsonl` for whoever shows it.

pub mod analyze;
pub mod file;
pub mod format;
pub mod grade;
mod values;
