//! What the workspace's tests share, so that each is written once.
//!
//! It holds:
//!
//! * the fixture bots, as this crate's binaries (`fixture-bot`, a bot that
//!   conforms or misbehaves in one chosen way, and `fixture-game`, a referee
//!   in a process of its own), and [`fixture_bot`] and [`fixture_game`],
//!   their paths for a test of any crate, built on first use;
//! * [`wait_until`] and [`wait_for`]: a condition polled until it holds, up to
//!   a deadline, with a panic that says what was awaited;
//! * [`require`]: a tool is present, or the test is skipped here and fails
//!   under `CI=true`;
//! * [`circles`]: the circles of imports between the source files of a crate
//!   (`crates/arena/tests/architecture.rs` holds the workspace to none);
//! * `browser` (with the `browser` feature): headless Chromium over
//!   WebDriver, for the tests that look at pages.

#[cfg(feature = "browser")]
pub mod browser;
pub mod circles;
mod fixtures;
mod require;
mod wait;

pub use fixtures::{fixture_bot, fixture_game};
pub use require::require;
pub use wait::{wait_for, wait_until};
