//! What a tournament's run and a match share between their plans and their games
//! ([`tournament`](crate::tournament), [`head_to_head`](crate::head_to_head)): the output folder refused
//! when it is a league's, the journal opened or resumed, the games played with the run's pages served
//! and its games in progress followed through the folder's socket until a stop; and why a run could
//! not be played ([`SessionError`]).
//!
//! Both commands hand their plan and one observer over once, and show what comes back. So that nothing
//! in between climbs back up into the command line, every word for the organiser goes to that observer
//! as an [`Event::Notice`], in the order it happens among the games' events, and the error says what
//! failed. Two things stay the command's, as inputs: the stop (the process's signals) and the server of
//! the run's pages (`--serve`, pahtum-serve, which links this crate: it is handed in as a function that
//! starts it, called once the run's folder exists).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pahtum_journal::JournalError;
use pahtum_referee::{SandboxError, StartError};
use pahtum_run::events::{Event, Observer, RunEnding, Tee};
use pahtum_run::notice::Notice;
use pahtum_run::resume::{Existing, JOURNAL, Opened, ResumeError, open};
use pahtum_tournament::config::{ConfigError, Tournament};
use pahtum_tournament::durability::Durability;
use pahtum_tournament::shard::Shard;

use crate::evidence::start_error;
use crate::games::{Bots, PlayError, play_games};
use crate::live::Live;
use crate::live_socket::LiveSocket;

/// What a run leaves for its command to show.
#[derive(Debug)]
pub struct Played {
    /// How the run ended.
    pub ending: RunEnding,
    /// Its journal, still open (and locked) while the command reads it, and its plan.
    pub opened: Opened,
    /// The output folder (a shard's own, for a shard).
    pub out: PathBuf,
}

/// The error of a server of the run's pages (the command's, see the module's doc).
pub type ServeError = Box<dyn std::error::Error + Send + Sync>;

/// Why a tournament's run or a match could not be played (or not to its end).
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The file's bots cannot be launched as given (a program not found, a folder missing).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `--replay` names a bot that the tournament does not have.
    #[error("--replay {bot:?}: the tournament {} has no such bot; its bots are: {}", file.display(), bots.join(", "))]
    NoSuchBot {
        /// The name given.
        bot: String,
        /// The tournament's file.
        file: PathBuf,
        /// The names of its bots.
        bots: Vec<String>,
    },
    /// A bot is to run in the sandbox, which cannot run here: no bot was started.
    #[error(
        "a bot is to run in the sandbox (--sandbox or `sandbox = true`), which cannot run here; no bot was started"
    )]
    NoSandbox(#[source] SandboxError),
    /// The output folder holds a league's journal: a tournament is not played into it (not even afresh,
    /// which would move the league's journal aside).
    #[error(
        "{} is a league's folder: play its games with `arena league run {}`, or give another output folder",
        out.display(),
        out.display()
    )]
    LeagueFolder {
        /// The output folder.
        out: PathBuf,
    },
    /// The journal could not be read or rewritten (to drop a bot's games).
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The journal could not be opened or resumed.
    #[error(transparent)]
    Resume(#[from] ResumeError),
    /// A match's journal holds a match with other bots or flags.
    #[error(
        "the journal {} is of a match with other bots or flags:\n{}\nrun the same command as before to resume \
         it, or pass --fresh to start afresh (the old journal is kept)",
        path.display(),
        changes.iter().map(|change| format!("  {change}")).collect::<Vec<_>>().join("\n")
    )]
    OtherMatch {
        /// The journal.
        path: PathBuf,
        /// What differs, one line each, in words.
        changes: Vec<String>,
    },
    /// The run's pages could not be served.
    #[error(transparent)]
    Serve(ServeError),
    /// Some bots could not start before the first game, so no game was played; each with the evidence (the
    /// message is the list, as there is no one cause).
    #[error("some bots cannot start, so no game was played:{}", located(failed))]
    CannotStart {
        /// Where each bot is given (the file and its key, `bots[N]`, or nothing) and why it did not start.
        failed: Vec<(String, StartError)>,
    },
    /// The games could not be played (core pinning, the log folder, the journal).
    #[error(transparent)]
    Play(PlayError),
}

/// The bots that could not start, a line each: where each is given and its evidence.
fn located(failed: &[(String, StartError)]) -> String {
    failed
        .iter()
        .map(|(place, error)| format!("\n  {place}{}", start_error(error, "    ")))
        .collect()
}

/// Refuses to go on, before any bot starts, when a sandbox is `wanted` and cannot run here: never a
/// sandboxed bot run without its sandbox.
pub fn require_sandbox(wanted: bool) -> Result<(), SessionError> {
    if wanted {
        pahtum_referee::sandbox::check().map_err(SessionError::NoSandbox)?;
    }
    Ok(())
}

/// Refuses an output folder `out` that holds a league's journal.
pub fn refuse_league(out: &Path) -> Result<(), SessionError> {
    if pahtum_league::is_league_journal(&out.join(JOURNAL)) {
        return Err(SessionError::LeagueFolder { out: out.to_owned() });
    }
    Ok(())
}

/// Opens the journal of `tournament` (its `shard`, or every game) in `out`, resuming it unless `fresh`
/// (then an old one is moved aside), syncing as `durability` says, showing its records to `observer`,
/// and telling it what was done to an old journal.
pub(crate) fn open_journal(
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
        observer.on(Event::Notice(Notice::MovedAside { aside }));
    }
    if opened.repaired_torn_line {
        observer.on(Event::Notice(Notice::RepairedTornLine));
    }
    if let Some(joined) = &opened.joined {
        let kept = opened.plan.done.len();
        observer.on(Event::Notice(Notice::Joined { joined, kept }));
    }
    Ok(opened)
}

/// Tells `observer` that the journal of `opened` is open, with what is left to play.
pub(crate) fn show_opened(opened: &Opened, observer: &mut dyn Observer) {
    observer.on(Event::Opened {
        tournament: opened.plan.tournament(),
        scheduled: opened.plan.schedule.len(),
        done: opened.plan.done.len(),
    });
}

/// Tells `observer` what the sandbox of each of `bots` hides of what its command names, and what it shows
/// only because its `ro_paths` names it.
pub(crate) fn show_sandbox_notes(bots: &[pahtum_referee::BotSpec], observer: &mut dyn Observer) {
    for spec in bots {
        if let Some(sandbox) = &spec.sandbox {
            for note in pahtum_referee::sandbox::start_notes(sandbox, &spec.command()) {
                observer.on(Event::Notice(Notice::Sandbox {
                    bot: &spec.name,
                    note: &note,
                }));
            }
        }
    }
}

/// When a run's games stop, and how its pages are served while they play.
pub(crate) struct Playing<Stop, Serve> {
    /// Completes when the run must stop (a signal).
    pub stop: Stop,
    /// Starts serving the run's pages, with its games in progress.
    pub serve: Serve,
}

/// Plays the pending games of `opened` in `out` with `bots` (pahtum-runner's [`play_games`]), showing them
/// to `observer` ([`Event::Playing`] before, [`Event::Played`] after, however they end), until they are
/// done or `playing.stop` completes. `playing.serve` starts serving the run's pages first, with the games
/// in progress; they are also followed through the run folder's socket, if it can be made. A bot that
/// cannot start is an error led by `locate` of its name.
pub(crate) async fn play<Stop, Serve, Served, E>(
    opened: &mut Opened,
    out: &Path,
    bots: Bots,
    observer: &mut dyn Observer,
    Playing { stop, serve }: Playing<Stop, Serve>,
    locate: impl Fn(&str) -> String,
) -> Result<RunEnding, SessionError>
where
    Stop: Future<Output = ()>,
    Serve: AsyncFnOnce(&Path, &Arc<Live>) -> Result<Served, E>,
    E: Into<ServeError>,
{
    observer.on(Event::Playing);
    let played: Result<RunEnding, SessionError> = async {
        let live = Arc::new(Live::default());
        let _served = serve(out, &live)
            .await
            .map_err(|error| SessionError::Serve(error.into()))?;
        let socket = LiveSocket::open(out, Arc::clone(&live))
            .inspect_err(|error| observer.on(Event::Notice(Notice::NoLiveSocket { error })))
            .ok();
        let mut shown = &*live;
        let played = play_games(opened, out, bots, &live, &mut Tee(&mut *observer, &mut shown), stop).await;
        if let Some(socket) = socket {
            socket.close().await;
        }
        played.map_err(SessionError::Play)
    }
    .await;
    observer.on(Event::Played);
    match played {
        Err(SessionError::Play(PlayError::CannotStart(errors))) => Err(SessionError::CannotStart {
            failed: errors.into_iter().map(|error| (locate(error.bot()), error)).collect(),
        }),
        played => played,
    }
}
