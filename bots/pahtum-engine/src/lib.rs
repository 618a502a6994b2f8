//! The reference Pah Tum engine.
//!
//! A strong, honest yardstick for pahtum-arena tournaments: it speaks the
//! protocol like any other bot (the `pahtum-engine` binary) and runs inside the
//! arena as a built-in bot (`arena bot engine [OPTIONS]`, through
//! [`Engine::from_args`] or by flattening [`Options`]). The search itself (the
//! board, the knowledge, the playouts, the tree search and the exact endgame)
//! is the [`pahtum_search`] crate; this one is the bot around it, which turns
//! the protocol's requests and clocks into positions, deadlines and playout
//! counts.
//!
//! * [`budget`]: how long to think for a clock;
//! * [`engine`]: the protocol player, one decision per phase;
//! * [`options`]: the command line.

#![warn(missing_docs)]

pub mod budget;
pub mod engine;
pub mod options;

pub use engine::Engine;
pub use options::{Cli, Options};
