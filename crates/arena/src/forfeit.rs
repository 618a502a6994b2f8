//! How a bot's failure is shown as text, for the commands that start bots:
//! the renderer is pahtum-runner's [`evidence`](pahtum_runner::evidence)
//! (which the conformance suite uses too), re-exported here, and
//! [`explain`] makes a start-up failure the command's error.

use pahtum_referee::StartError;
pub use pahtum_runner::evidence::{Evidence, chain, start_error};

/// A bot that could not start, with the evidence (escaped).
pub fn explain(error: StartError) -> anyhow::Error {
    anyhow::anyhow!(start_error(&error, "  "))
}
