//! The protocol between the pahtum-arena referee and its bots.
//!
//! `protocol.md` at the root of the repository is the contract for bot authors;
//! this crate is the same contract in types, shared by the referee and by bots
//! written in Rust, and a test parses every JSON example of `protocol.md` with
//! it, so that the two cannot drift apart.
//!
//! * [`messages`]: the messages, one enum per direction, tagged by `"type"`;
//! * [`codec`]: one line of JSON to and from a message, with errors that say
//!   what was wrong with which line;
//! * [`state`]: the game a request describes, rebuilt with the rules crate,
//!   and the request for whoever acts next in a game;
//! * [`time`]: time controls, their default margin and constructors;
//! * [`durations`]: durations and Fischer clocks as a person types them
//!   (`100ms`, `10s+100ms`), and `wall` or `cpu`;
//! * [`bot`]: a synchronous stdin/stdout loop for writing a bot in a few lines;
//! * [`untrusted`]: what a bot wrote, escaped for the terminal.

#![warn(missing_docs)]

pub mod bot;
pub mod codec;
pub mod durations;
pub mod messages;
pub mod state;
pub mod time;
pub mod untrusted;

pub use codec::{DecodeError, MAX_LINE_BYTES, decode_from_bot, decode_to_bot, encode};
pub use messages::*;
pub use time::{ClockKind, DEFAULT_MARGIN_MS, TimeControl, UNLIMITED_MOVE_MS, fischer, move_time};

/// The major version of the protocol. A bot that answers the greeting with
/// another major version is refused.
pub const PROTOCOL_VERSION: u32 = 1;
