//! One module per subcommand, each with `Args` and `run`.

pub mod bot;
pub mod check;
pub mod forfeit;
pub mod game;
pub mod match_cmd;
pub mod run;
pub mod standings;
pub mod verify;

use std::sync::Arc;

use anyhow::{Context, bail};
use pahtum_referee::StartError;
use pahtum_tournament::events::Observer;
use pahtum_tournament::journal::Journal;
use pahtum_tournament::pool::Pool;
use pahtum_tournament::resume::Plan;
use pahtum_tournament::runner::{self, Ending};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::Notify;

/// The exit code of an interrupted run (as for SIGINT).
pub const INTERRUPTED: u8 = 130;

/// The pie rule of `arena game` and `arena match`: on by default, as in tournaments.
#[derive(Debug, clap::Args)]
pub struct PieFlag {
    /// Play without the pie rule (by default, after White's first stone, Black may swap colours).
    #[arg(long)]
    no_pie: bool,
}

impl PieFlag {
    pub fn pie(&self) -> bool {
        !self.no_pie
    }
}

/// The runtime of the subcommands that run bots: multi-threaded, as in a
/// tournament.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// A bot that could not start, with the evidence (escaped: see [`forfeit`]).
pub fn explain(error: StartError) -> anyhow::Error {
    anyhow::anyhow!(forfeit::start_error(&error, "  "))
}

/// Plays the missing games of `plan` with bots from `pool` (for `arena run`
/// and `arena match`): first starts one process of every bot that still has
/// games, so that a bot that cannot start is an error now (each error led by
/// `locate` of the bot's name), not a forfeit in every game; then runs them
/// with Ctrl-C handled ([`handle_ctrl_c`]), and shuts the pool down.
pub async fn play_games(
    plan: &Plan,
    concurrency: usize,
    journal: &mut Journal,
    pool: Arc<Pool>,
    observer: &mut dyn Observer,
    locate: impl Fn(&str) -> String,
) -> anyhow::Result<Ending> {
    let mut names: Vec<String> = plan
        .pending
        .iter()
        .flat_map(|game| [game.first.clone(), game.second.clone()])
        .collect();
    names.sort();
    names.dedup();
    if let Err(errors) = pool.warm_up(&names).await {
        pool.shutdown().await;
        let mut message = String::from("some bots cannot start, so no game was played:");
        for error in errors {
            let bot = match &error {
                StartError::Log { bot, .. } | StartError::Spawn { bot, .. } | StartError::Handshake { bot, .. } => bot,
            };
            message.push_str(&format!("\n  {}{}", locate(bot), forfeit::start_error(&error, "    ")));
        }
        bail!(message)
    }
    let stop = Arc::new(Notify::new());
    let signals = tokio::spawn(handle_ctrl_c(Arc::clone(&stop), Arc::clone(&pool)));
    let ending = runner::run(plan, concurrency, journal, &pool, observer, async move {
        stop.notified().await
    })
    .await;
    pool.shutdown().await;
    signals.abort();
    Ok(ending?)
}

/// An error and its causes, on one line.
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// First Ctrl-C: stop (the runner ends the games). Second: kill every bot and exit now.
///
/// One signal stream for both, so that a second Ctrl-C that comes quickly is not lost.
async fn handle_ctrl_c(stop: Arc<Notify>, pool: Arc<Pool>) {
    let Ok(mut interrupts) = signal(SignalKind::interrupt()) else {
        return;
    };
    interrupts.recv().await;
    eprintln!(
        "\narena: stopping: no new games; the running ones are ended and will be replayed on resume \
         (Ctrl-C again to quit at once)"
    );
    stop.notify_one();
    interrupts.recv().await;
    pool.kill_all();
    eprintln!("arena: quit at once; the journal keeps every finished game");
    std::process::exit(i32::from(INTERRUPTED));
}
