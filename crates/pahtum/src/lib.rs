//! The rules of Pah Tum, pure and synchronous.
//!
//! Everything else in pahtum-arena (the protocol, the referee, the engines and the
//! tournament runner) stands on this crate, so it does no I/O, spawns nothing and
//! keeps its state in three `u64` bitboards: a 7x7 board has 49 cells and fits.
//!
//! * [`Cell`] and its notation (`a1` bottom-left, `g7` top-right, as in chess);
//! * [`Bitboard`], a set of cells;
//! * [`Position`]: blocks, white and black stones and the side to move, with a
//!   one-line text form and a terminal diagram;
//! * [`score`]: the points of a set of stones, from tables over 7-bit lines;
//! * [`setup`]: random (seeded, reproducible forever), fixed and player-placed
//!   block layouts;
//! * [`Game`]: the state machine with block placement, the first stone, the pie
//!   decision and the seats that own each colour;
//! * [`playout`]: fast uniformly random playouts, for engines and benchmarks.
//!
//! Inputs are parsed first ([`Action::from_str`](std::str::FromStr), [`Cell::from_str`](std::str::FromStr))
//! and validated second ([`Game::play`]); the two fail with different errors, and a
//! failed play leaves the game unchanged.

#![warn(missing_docs)]

mod bitboard;
mod cell;
mod color;
pub mod decided;
mod game;
pub mod playout;
mod position;
pub mod score;
pub mod setup;
#[cfg(feature = "serde")]
mod text_serde;

pub use bitboard::Bitboard;
pub use cell::{Cell, ParseCellError};
pub use color::{Color, Seat};
pub use game::{Action, Game, IllegalAction, ParseActionError, Phase, PlayError};
pub use position::{ParsePositionError, Position, Square};
pub use score::{Outcome, Run, Score};
pub use setup::{Layout, SetupError};

/// Board side length.
pub const SIZE: usize = 7;
/// Number of cells on the board.
pub const CELLS: usize = SIZE * SIZE;
