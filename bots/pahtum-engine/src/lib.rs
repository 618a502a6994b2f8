//! The reference Pah Tum engine.
//!
//! A strong, honest yardstick for pahtum-arena tournaments: it speaks the
//! protocol like any other bot (the `pahtum-engine` binary) and runs inside the
//! arena as a built-in bot (`arena bot engine [OPTIONS]`, through
//! [`Engine::from_args`] or by flattening [`Options`]).
//!
//! * [`knowledge`]: the worth of a line, from which come the stake of a cell
//!   (move ordering, priors, playouts, the level 0 player) and the outlook of
//!   a board;
//! * [`playout`]: playouts biased by the stake;
//! * [`mcts`]: the tree search, with priors and the pie rule at the root;
//! * [`endgame`]: the exact alpha-beta endgame;
//! * [`budget`]: how long to think for a clock;
//! * [`engine`]: the protocol player, one decision per phase;
//! * [`options`]: the command line.

#![warn(missing_docs)]

pub mod board;
pub mod budget;
pub mod endgame;
pub mod engine;
pub mod knowledge;
pub mod mcts;
pub mod options;
pub mod playout;

pub use engine::Engine;
pub use options::{Cli, Options};
