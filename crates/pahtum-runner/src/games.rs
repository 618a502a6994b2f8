//! A run's games played with real bots, from the opened journal to how the
//! run ended: what a tournament's run and a match ([`session`](crate::session))
//! and a league's round hand over once.
//!
//! [`play_games`] places the games on cores (or not), makes the pool of bot
//! processes whose stderr goes to the run's `logs` folder, starts one process
//! of every bot that still has games, so that a bot that cannot start is an
//! error now ([`PlayError::CannotStart`]), not a forfeit in every game, plays
//! the missing games with the [`runner`](crate::runner) until they are done or
//! `stop` completes, and shuts the pool down.

use std::collections::BTreeSet;
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::pin;
use std::sync::Arc;

use pahtum_referee::{BotSpec, Limits, StartError};
use pahtum_run::events::{Observer, RunEnding};
use pahtum_tournament::config::{OVERLOAD_REPLAYS, OnOverload, Restart, TournamentFile};

use pahtum_journal::Journal;
use pahtum_run::resume::Opened;

use crate::launch::Launcher;
use crate::limits::referee_limits;
use crate::live::Live;
use crate::pool::Pool;
use crate::runner;
use crate::runner::{RunError, Work};

/// The bots of a run, and how they play.
#[derive(Debug)]
pub struct Bots {
    /// How to launch each bot.
    pub specs: Vec<BotSpec>,
    /// The limits off the game clock.
    pub limits: Limits,
    /// When bot processes are restarted.
    pub restart: Restart,
    /// Games at once.
    pub concurrency: usize,
    /// What a timeout under overload does.
    pub on_overload: OnOverload,
    /// Core pinning: each concurrent game's bots on a core of their own; `None`: exactly when the games
    /// at once are as many as the usable cores.
    pub affinity: Option<bool>,
}

impl Bots {
    /// The bots of a tournament `file`, launched by `launcher`, playing as its settings say.
    pub fn of_file(file: &TournamentFile, launcher: &Launcher) -> Bots {
        Bots {
            specs: file.tournament.bots.iter().map(|bot| launcher.spec(bot)).collect(),
            limits: referee_limits(&file.settings.limits),
            restart: file.settings.restart,
            concurrency: file.settings.concurrency,
            on_overload: file.settings.on_overload,
            affinity: file.settings.affinity,
        }
    }
}

/// Why a run's games could not be played.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// Pinning was asked for more games at once than there are usable cores.
    #[error(
        "core pinning (--affinity, `affinity = true`) gives each of the {concurrency} games at once a core of its \
         own, but the arena may use only {} core{} ({}); lower --concurrency to {} or leave pinning off",
        usable.len(),
        if usable.len() == 1 { "" } else { "s" },
        usable.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
        usable.len()
    )]
    TooFewCores {
        /// The games at once.
        concurrency: usize,
        /// The cores the arena may use.
        usable: Vec<usize>,
    },
    /// The cores the arena may use could not be read.
    #[error("cannot read which cores the arena may use")]
    Cores(#[source] io::Error),
    /// The folder of the bots' logs could not be created.
    #[error("cannot create the log folder {}", path.display())]
    Logs {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Some bots could not start before the first game, so no game was played.
    #[error("some bots cannot start, so no game was played")]
    CannotStart(Vec<StartError>),
    /// The journal could not be written, or the arena failed to start a bot.
    #[error(transparent)]
    Run(#[from] RunError),
}

/// Plays the pending games of `opened` with a pool of `bots` whose stderr goes to `out/logs`, showing
/// them to `observer` and their moves as they are played to `live`, until they are done or `stop` completes (it is first polled once every bot has
/// started, and kept until the pool is shut down). With nothing pending, no bot starts.
pub async fn play_games(
    opened: &mut Opened,
    out: &Path,
    bots: Bots,
    live: &Arc<Live>,
    observer: &mut dyn Observer,
    stop: impl Future<Output = ()>,
) -> Result<RunEnding, PlayError> {
    if opened.plan.pending().next().is_none() {
        return Ok(RunEnding::Finished);
    }
    // Inserted one by one: collecting into a set would first gather every pending game's names in a list.
    let mut names = BTreeSet::new();
    for index in opened.plan.pending() {
        names.extend(<[&str; 2]>::from(opened.plan.schedule.players(index)));
    }
    let names: Vec<String> = names.into_iter().map(str::to_owned).collect();
    play(
        &opened.plan,
        &mut opened.journal,
        &names,
        out,
        (bots, live),
        observer,
        stop,
    )
    .await
}

/// Plays the pending games of `work` into `journal` as [`play_games`] does, `names` being the bots that play them.
pub async fn play(
    work: &impl Work,
    journal: &mut Journal,
    names: &[String],
    out: &Path,
    (bots, live): (Bots, &Arc<Live>),
    observer: &mut dyn Observer,
    stop: impl Future<Output = ()>,
) -> Result<RunEnding, PlayError> {
    let cores = match bots.affinity {
        Some(true) => Some(cores_for(bots.concurrency)?),
        Some(false) => None,
        None => all_cores_for(bots.concurrency),
    };
    let logs = out.join("logs");
    std::fs::create_dir_all(&logs).map_err(|source| PlayError::Logs {
        path: logs.clone(),
        source,
    })?;
    let replays = match bots.on_overload {
        OnOverload::Count => 0,
        OnOverload::Replay => OVERLOAD_REPLAYS,
    };
    let mut pool = Pool::new(bots.specs, bots.limits, bots.restart, Some(logs))
        .replaying_overloads(replays)
        .showing(Arc::clone(live));
    if let Some(cores) = cores {
        pool = pool.pinned(cores);
    }
    let pool = Arc::new(pool);
    if let Err(errors) = pool.warm_up(names).await {
        pool.shutdown().await;
        return Err(PlayError::CannotStart(errors));
    }
    // Pinned here, `stop` lives to the end of this function: past the pool's shutdown.
    let mut stop = pin!(stop);
    let ending = runner::run(work, bots.concurrency, journal, &pool, observer, stop.as_mut()).await;
    pool.shutdown().await;
    Ok(ending?)
}

/// Every core this process may use when there are exactly `concurrency` of them: the default placement.
/// A game's request and answer that never cross cores cost much less than those that do
/// (`scripts/bench-match.sh ... 2` against `--no-affinity`; the figures are in docs/performance.md,
/// "Per move, on a quiet machine"); with fewer games than cores pinning would only take cores from
/// bots that think on several threads, and with more it is impossible.
fn all_cores_for(concurrency: usize) -> Option<Vec<usize>> {
    let usable = pahtum_referee::affinity::usable_cores().ok()?;
    (usable.len() == concurrency).then_some(usable)
}

/// The first `concurrency` cores this process may use, one per concurrent game (core pinning), or why
/// there are not enough.
fn cores_for(concurrency: usize) -> Result<Vec<usize>, PlayError> {
    let usable = pahtum_referee::affinity::usable_cores().map_err(PlayError::Cores)?;
    if concurrency > usable.len() {
        return Err(PlayError::TooFewCores { concurrency, usable });
    }
    Ok(usable[..concurrency].to_vec())
}
