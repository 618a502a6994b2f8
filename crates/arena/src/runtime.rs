//! The async runtime of the commands that run bots.

use anyhow::Context;

/// The runtime of the subcommands that run bots: multi-threaded, as in a
/// tournament.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // The start's code (the command line, the configuration) is not the games': they map only what they run.
    crate::resident::release_idle_pages();
    Ok(runtime)
}
