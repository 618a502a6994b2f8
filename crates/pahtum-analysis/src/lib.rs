//! The analysis of a game: for every ply, the value of the position for the
//! player to act before it and after it, the best moves, what the move played
//! cost, a grade, and each side's losing move.
//!
//! It is data, not a process: a record goes in ([`analyze::Analyzer`]), a
//! [`GameAnalysis`](pahtum_record::annotations::GameAnalysis) comes out, one
//! line of `analysis.jsonl` (RECORD.md documents the file). The values come
//! from the reference engine's library: its exact endgame solver where the
//! position has few enough free cells (exact final margins), its tree search
//! with a fixed number of playouts and a fixed seed before that (an expected
//! result, so an analysis is reproducible). `arena analyze` wires it to
//! journals.
//!
//! The file's types, and where it lies and how its lines are read back, are
//! [`pahtum_record::annotations`], not here: the report and the server show
//! analyses without linking the engine this crate computes them with.

pub mod analyze;
pub mod grade;
mod values;
