//! Time controls: what a game's clocks measure and allow, the referee's
//! default tolerance, and the two common shapes (a limit per move, a Fischer
//! clock). Plain data, shared by the messages, the records, the tournament
//! files and the referee, so that none of them needs another's types.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The referee's tolerance beyond a move's limit before it calls a timeout.
pub const DEFAULT_MARGIN_MS: u64 = 20;

/// The limit of one answer when a game has neither a per-move limit nor a
/// Fischer clock: a day, so that a dead or silent bot still ends the game.
pub const UNLIMITED_MOVE_MS: u64 = 24 * 60 * 60 * 1000;

/// The time control of a game, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct TimeControl {
    /// Time per answer, fresh for each move; `null` for none.
    #[serde(default)]
    pub move_ms: Option<u64>,
    /// Fischer clock: the starting time of each player's clock; `null` for none.
    #[serde(default)]
    pub base_ms: Option<u64>,
    /// Fischer clock: added to a player's clock after each of its answers.
    #[serde(default)]
    pub increment_ms: u64,
    /// The referee's tolerance beyond the limit before it calls a timeout.
    #[serde(default)]
    pub margin_ms: u64,
    /// What the limits measure: wall time (the default, left out of the
    /// JSON, so that records and tournament hashes without it are unchanged)
    /// or the CPU time of the bot's processes.
    #[serde(default, skip_serializing_if = "ClockKind::is_wall")]
    pub clock: ClockKind,
}

/// What a time control measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ClockKind {
    /// Wall time on a monotonic clock, from the request's write to the answer's read.
    #[default]
    Wall,
    /// The CPU time (user and system) of all the bot's processes and threads
    /// over the same span, with a wall-time cap.
    Cpu,
}

impl ClockKind {
    /// True for the default, wall time (for `skip_serializing_if`).
    pub fn is_wall(&self) -> bool {
        *self == ClockKind::Wall
    }

    /// `"wall"` or `"cpu"`, as in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            ClockKind::Wall => "wall",
            ClockKind::Cpu => "cpu",
        }
    }
}

/// A per-move limit with the default margin.
pub fn move_time(limit: Duration) -> TimeControl {
    TimeControl {
        move_ms: Some(limit.as_millis() as u64),
        base_ms: None,
        increment_ms: 0,
        margin_ms: DEFAULT_MARGIN_MS,
        clock: ClockKind::Wall,
    }
}

/// A Fischer clock (base plus increment per answer) with the default margin.
pub fn fischer(base: Duration, increment: Duration) -> TimeControl {
    TimeControl {
        move_ms: None,
        base_ms: Some(base.as_millis() as u64),
        increment_ms: increment.as_millis() as u64,
        margin_ms: DEFAULT_MARGIN_MS,
        clock: ClockKind::Wall,
    }
}
