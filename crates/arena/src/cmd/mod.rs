//! One module per subcommand, each with `Args` and `run`.

pub mod bot;
pub mod check;
pub mod game;
pub mod match_cmd;
pub mod run;
pub mod standings;

use anyhow::Context;

/// The runtime of the subcommands that run bots: multi-threaded, as in a
/// tournament.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// A bot that could not start, with the tail of its stderr.
pub fn explain(error: pahtum_referee::StartError) -> anyhow::Error {
    match &error {
        pahtum_referee::StartError::Handshake { stderr_tail, .. } => {
            let tail: String = stderr_tail.iter().map(|line| format!("\n  stderr: {line}")).collect();
            anyhow::anyhow!("{error}{tail}")
        }
        _ => anyhow::Error::new(error),
    }
}
