//! One module per subcommand, each with `Args` and `run`.

pub mod bot;
pub mod check;
pub mod completions;
mod flow;
pub mod forfeit;
pub mod game;
pub mod man;
pub mod match_cmd;
pub mod merge;
pub mod play;
pub mod report;
pub mod run;
pub mod show;
pub mod standings;
pub mod verify;

use std::collections::BTreeSet;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use anyhow::{Context, bail};
use pahtum_referee::StartError;
use pahtum_runner::pool::Pool;
use pahtum_runner::runner::{self, Ending};
use pahtum_tournament::events::Observer;
use pahtum_tournament::journal::Journal;
use pahtum_tournament::resume::Plan;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::Notify;

/// The exit code of a run stopped by a signal: 128 plus the signal's number,
/// as shells report a process killed by it (SIGINT 130, SIGHUP 129, SIGTERM
/// 143); set by the first stop signal.
static STOPPED_BY: AtomicU8 = AtomicU8::new(crate::exit::INTERRUPTED);

/// The exit code of a run that a signal stopped (see [`STOPPED_BY`]).
pub fn interrupted() -> ExitCode {
    ExitCode::from(STOPPED_BY.load(Ordering::Relaxed))
}

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

/// `--affinity` and `--no-affinity` of `arena match` and `run`.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct AffinityFlags {
    /// Pin each concurrent game's bots, and the thread that referees it, to a core of their own (refused
    /// when --concurrency exceeds the usable cores) [default: a tournament file's `affinity`, else pinned
    /// exactly when --concurrency equals the usable cores].
    #[arg(long, conflicts_with = "no_affinity")]
    pub affinity: bool,
    /// Never pin games to cores (for bots that think on several threads).
    #[arg(long)]
    pub no_affinity: bool,
}

impl AffinityFlags {
    /// Pinning as the flags ask; `None` when neither is given.
    pub fn choice(self) -> Option<bool> {
        match (self.affinity, self.no_affinity) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

/// `--sandbox` of `arena game`, `match`, `run` and `check`.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct SandboxFlag {
    /// Run the bots in the sandbox (bubblewrap): no network, only the system and their own folder to read, a
    /// private /tmp, 1 GiB of memory and 256 processes each; see SECURITY.md.
    #[arg(long)]
    pub sandbox: bool,
}

impl SandboxFlag {
    /// `spec`, in the default sandbox if the flag is given.
    pub fn apply(self, spec: pahtum_referee::BotSpec) -> pahtum_referee::BotSpec {
        pahtum_referee::BotSpec {
            sandbox: self.sandbox.then(pahtum_referee::Sandbox::default).or(spec.sandbox),
            ..spec
        }
    }
}

/// Refuses to go on, before any bot starts, when a sandbox is `wanted` and
/// cannot run here: never a sandboxed bot run without its sandbox.
pub fn require_sandbox(wanted: bool) -> anyhow::Result<()> {
    if wanted {
        pahtum_referee::sandbox::check().context(
            "a bot is to run in the sandbox (--sandbox or `sandbox = true`), which cannot run here; no bot was started",
        )?;
    }
    Ok(())
}

/// `--concurrency`: games at once, 1 or more.
pub fn parse_concurrency(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("use 1 or more games at once".to_owned()),
    }
}

/// A block count: odd, from 1 to 47.
pub fn parse_block_count(text: &str) -> Result<usize, String> {
    let count: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of blocks: use an odd count from 1 to 47"))?;
    pahtum::setup::check_count(count)
        .map_err(|_| format!("{count} blocks: use odd counts from 1 to 47, so that both colours get as many stones"))?;
    Ok(count)
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
/// with Ctrl-C, SIGTERM and SIGHUP handled ([`handle_stop_signals`]), and
/// shuts the pool down.
pub async fn play_games(
    plan: &Plan,
    concurrency: usize,
    journal: &mut Journal,
    pool: Arc<Pool>,
    observer: &mut dyn Observer,
    locate: impl Fn(&str) -> String,
) -> anyhow::Result<Ending> {
    // Inserted one by one: collecting into a set would first gather every pending game's names in a list.
    let mut names = BTreeSet::new();
    for index in plan.pending() {
        names.extend(<[&str; 2]>::from(plan.schedule.players(index)));
    }
    let names: Vec<String> = names.into_iter().map(str::to_owned).collect();
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
    let signals = tokio::spawn(handle_stop_signals(Arc::clone(&stop), Arc::clone(&pool)));
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

/// First Ctrl-C, SIGTERM or SIGHUP: stop (the runner ends the games, the
/// pool ends the bots, the journal keeps every finished game), and exit with
/// [`interrupted`]'s code. A second one of any of them: kill every process of
/// every bot and exit now.
///
/// One stream per signal, installed at once, so that a second signal that
/// comes quickly is not lost. Messages are written without panicking: after
/// a SIGHUP the terminal may be gone.
async fn handle_stop_signals(stop: Arc<Notify>, pool: Arc<Pool>) {
    let (Ok(mut interrupts), Ok(mut terminations), Ok(mut hangups)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        return;
    };
    let mut next = async || {
        tokio::select! {
            _ = interrupts.recv() => ("Ctrl-C", crate::exit::INTERRUPTED),
            _ = terminations.recv() => ("SIGTERM", crate::exit::TERMINATED),
            _ = hangups.recv() => ("SIGHUP", crate::exit::HANGUP),
        }
    };
    let (name, code) = next().await;
    STOPPED_BY.store(code, Ordering::Relaxed);
    let _ = writeln!(
        std::io::stderr(),
        "\narena: stopping ({name}): no new games; the running ones are ended and will be replayed on resume \
         (Ctrl-C again to quit at once)"
    );
    stop.notify_one();
    next().await;
    pool.kill_all();
    let _ = writeln!(
        std::io::stderr(),
        "arena: quit at once; the journal keeps every finished game"
    );
    std::process::exit(i32::from(code));
}
