//! The flow that `arena run` and `arena match` share.
//!
//! Both play a tournament into a journal in an output folder: open (or resume)
//! the journal, play the missing games with a pool of bot processes, write the
//! tables beside the journal, print them, and exit with the code of how the run
//! ended. Only what comes before (a file, or the flags) and the status display
//! differ; the rest is here once.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use pahtum_referee::{BotSpec, Limits};
use pahtum_report::render::{Format, render};
use pahtum_runner::pool::Pool;
use pahtum_runner::runner::Ending;
use pahtum_tournament::config::{OVERLOAD_REPLAYS, OnOverload, Restart, Tournament};
use pahtum_tournament::durability::Durability;
use pahtum_tournament::events::Observer;
use pahtum_tournament::resume::{Existing, Opened, ResumeError, open};
use pahtum_tournament::shard::Shard;
use pahtum_tournament::standings::Standings;

use crate::output::out;

/// Whether the status is one line redrawn in place: on a terminal that can do it (not `TERM=dumb`, where
/// indicatif would draw nothing), else plain lines every few seconds.
pub fn live_status() -> bool {
    std::io::stderr().is_terminal() && std::env::var("TERM").is_ok_and(|term| term != "dumb")
}

/// Opens the journal of `tournament` (its `shard`, or every game) in `out`, resuming it unless `fresh`
/// (then an old one is moved aside), syncing as `durability` says, showing its records to `observer`,
/// and says on stderr what was done to an old journal.
pub fn open_journal(
    out: &Path,
    tournament: &Tournament,
    shard: Option<Shard>,
    fresh: bool,
    durability: Durability,
    observer: &mut dyn Observer,
) -> Result<Opened, ResumeError> {
    let existing = if fresh { Existing::StartAfresh } else { Existing::Resume };
    let mut opened = open(out, tournament, shard, existing, observer)?;
    opened.journal.set_durability(durability);
    if let Some(aside) = &opened.moved_aside {
        eprintln!("arena: the previous journal is kept as {}", aside.display());
    }
    if opened.repaired_torn_line {
        eprintln!(
            "arena: dropped the torn last line of the journal (a game cut off by a crash; it will be played again)"
        );
    }
    Ok(opened)
}

/// The bots of a run, and how they play.
#[derive(Debug)]
pub struct Bots {
    pub specs: Vec<BotSpec>,
    pub limits: Limits,
    pub restart: Restart,
    /// Games at once.
    pub concurrency: usize,
    /// What a timeout under overload does.
    pub on_overload: OnOverload,
    /// Core pinning: each concurrent game's bots on a core of their own; `None`: exactly when the games
    /// at once are as many as the usable cores.
    pub affinity: Option<bool>,
}

/// Plays the pending games of `opened` with a pool of `bots` whose stderr goes to `out/logs`, showing
/// them to `observer` ([`super::play_games`]: a bot that cannot start is an error led by `locate` of its
/// name). With nothing pending, no bot starts.
pub async fn play(
    opened: &mut Opened,
    out: &Path,
    bots: Bots,
    observer: &mut dyn Observer,
    locate: impl Fn(&str) -> String,
) -> anyhow::Result<Ending> {
    if opened.plan.pending().next().is_none() {
        return Ok(Ending::Finished);
    }
    let cores = match bots.affinity {
        Some(true) => Some(cores_for(bots.concurrency)?),
        Some(false) => None,
        None => all_cores_for(bots.concurrency),
    };
    let logs = out.join("logs");
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create the log folder {}", logs.display()))?;
    let replays = match bots.on_overload {
        OnOverload::Count => 0,
        OnOverload::Replay => OVERLOAD_REPLAYS,
    };
    let mut pool = Pool::new(bots.specs, bots.limits, bots.restart, Some(logs)).replaying_overloads(replays);
    if let Some(cores) = cores {
        pool = pool.pinned(cores);
    }
    let pool = Arc::new(pool);
    super::play_games(
        &opened.plan,
        bots.concurrency,
        &mut opened.journal,
        pool,
        observer,
        locate,
    )
    .await
}

/// Every core this process may use when there are exactly `concurrency` of them: the default placement.
/// Measured with two instant bots on 2 cores (issue 15), a game's request and answer that never cross
/// cores cost about half as much (19 µs a move of throughput against 32-61 µs unpinned); with fewer
/// games than cores pinning would only take cores from bots that think on several threads, and with
/// more it is impossible.
fn all_cores_for(concurrency: usize) -> Option<Vec<usize>> {
    let usable = pahtum_referee::affinity::usable_cores().ok()?;
    (usable.len() == concurrency).then_some(usable)
}

/// The first `concurrency` cores this process may use, one per concurrent game (core pinning), or why
/// there are not enough.
fn cores_for(concurrency: usize) -> anyhow::Result<Vec<usize>> {
    let usable = pahtum_referee::affinity::usable_cores().context("cannot read which cores the arena may use")?;
    if concurrency > usable.len() {
        bail!(
            "core pinning (--affinity, `affinity = true`) gives each of the {concurrency} games at once a core of its \
             own, but the arena may use only {} core{} ({}); lower --concurrency to {} or leave pinning off",
            usable.len(),
            if usable.len() == 1 { "" } else { "s" },
            usable.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
            usable.len()
        );
    }
    Ok(usable[..concurrency].to_vec())
}

/// Prints `lead` and the standings on stdout and where the journal and the `written` files are on
/// stderr; the exit code of `ending`, saying `resume` (how to resume) when interrupted.
pub fn report(
    lead: &str,
    standings: &Standings,
    journal: &Path,
    written: &[PathBuf],
    ending: Ending,
    resume: &str,
) -> ExitCode {
    out!("{lead}{}", render(standings, Format::Table));
    let written: Vec<String> = written.iter().map(|path| path.display().to_string()).collect();
    eprintln!("arena: journal {}; tables {}", journal.display(), written.join(", "));
    match ending {
        Ending::Finished | Ending::Declined => ExitCode::SUCCESS,
        Ending::Interrupted => {
            eprintln!("arena: interrupted; {resume}");
            super::interrupted()
        }
    }
}
