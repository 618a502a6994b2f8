//! Colours and seats.
//!
//! The pie rule separates the two: a *seat* is a player (the first one starts
//! as White), a *colour* is what the player currently plays. A swap moves the
//! colours between the seats; the seats stay.

use std::fmt;

/// A stone colour. White places the first stone.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Color {
    /// Places the first stone; the first seat holds White until a pie swap.
    White,
    /// Places the second stone and decides the pie; the second seat holds Black
    /// until a pie swap.
    Black,
}

impl Color {
    /// The other colour.
    #[inline]
    #[must_use]
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// `"white"` or `"black"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A player's place at the table. The first seat starts as White.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Seat {
    /// The player that starts as White and places the first stone; after a pie
    /// swap it holds Black and moves next.
    First,
    /// The player that starts as Black: it places the first and last blocks
    /// (players' placement) and makes the pie decision.
    Second,
}

impl Seat {
    /// The other seat.
    #[must_use]
    pub const fn other(self) -> Seat {
        match self {
            Seat::First => Seat::Second,
            Seat::Second => Seat::First,
        }
    }

    /// The colour the seat holds before any pie swap: White for the first seat.
    pub const fn starting_color(self) -> Color {
        match self {
            Seat::First => Color::White,
            Seat::Second => Color::Black,
        }
    }

    /// 0 for the first seat, 1 for the second: handy for `[T; 2]` per-seat data.
    pub const fn index(self) -> usize {
        match self {
            Seat::First => 0,
            Seat::Second => 1,
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Seat::First => "first",
            Seat::Second => "second",
        })
    }
}
