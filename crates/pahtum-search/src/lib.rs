//! The reference engine's search for Pah Tum, pure and synchronous.
//!
//! It takes plain data (a position, a deadline, a number of playouts, a seed)
//! and knows nothing of the protocol, clocks or command lines: the engine
//! (`pahtum-engine`) turns requests into those, and the analysis of games
//! (`pahtum-analysis`) uses the same search to value positions.
//!
//! * [`board`]: the compact position the searches copy, and a stone's gain;
//! * [`knowledge`]: the worth of a line, the stake of a cell, a board's outlook;
//! * [`playout`]: playouts biased by the stake;
//! * [`mcts`]: the tree search, with priors and the pie rule at the root;
//! * [`endgame`]: the exact alpha-beta endgame and the win/draw/loss search.

#![warn(missing_docs)]

pub mod board;
pub mod endgame;
pub mod knowledge;
pub mod mcts;
pub mod playout;
