//! A tournament played from its file in one call: what `arena run` hands over once ([`play`]), and its
//! `--dry-run` ([`preview`]).
//!
//! The command reads the file and its flags into a [`TournamentPlan`] and builds one observer; this
//! module does the rest, in this order: the command line's settings over the file's, the bots' programs
//! and the sandbox checked, an output folder that is a league's refused, the games of `--replay`'s bots
//! dropped from the journal, each bot asked its `hello` (when a journal is resumed), the journal opened
//! or resumed, the bots whose program changed since their games there told of, and the games played
//! ([`session`]). What the organiser is to be told goes to the observer as it happens
//! ([`Notice`]); what the command shows at the end (the tables, where the files are, the exit code)
//! comes back as a [`Played`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pahtum_journal::{JournalReader, drop_games};
use pahtum_record::AdjudicationRule;
use pahtum_run::events::{Event, Observer, Tee};
use pahtum_run::hellos::HelloCheck;
use pahtum_run::notice::Notice;
use pahtum_run::resume::{self, JOURNAL, ResumeError, check_unchanged};
use pahtum_tournament::config::{Restart, Tournament, TournamentFile};
use pahtum_tournament::durability::Durability;
use pahtum_tournament::schedule::{self, ScheduledGame};
use pahtum_tournament::shard::Shard;

use crate::evidence::start_error;
use crate::games::Bots;
use crate::launch::{Launcher, check_programs};
use crate::live::Live;
use crate::session::{self, Played, Playing, ServeError, SessionError};

/// A tournament to play: its file and what the command line says of the run.
#[derive(Debug)]
pub struct TournamentPlan {
    /// The tournament file, as read.
    pub file: TournamentFile,
    /// The command line's changes to the file's settings.
    pub settings: Settings,
    /// The shard this run plays (into its own folder in the output folder), or every game.
    pub shard: Option<Shard>,
    /// Start afresh: a journal already in the output folder is moved aside.
    pub fresh: bool,
    /// The bots whose games are played again: dropped from the journal first.
    pub replay: Vec<String>,
    /// The arena executable, which runs the built-in bots.
    pub arena: PathBuf,
    /// The names of the built-in bots.
    pub builtins: &'static [&'static str],
}

/// The command line's changes to a tournament file's settings: `None` (or `false`) keeps the file's.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The output folder.
    pub out: Option<PathBuf>,
    /// Games at once.
    pub concurrency: Option<usize>,
    /// New bot processes for every game.
    pub restart_every_game: bool,
    /// When the journal is synced.
    pub durability: Option<Durability>,
    /// Every bot in the sandbox (with the limits the file gives it, or the defaults).
    pub sandbox: bool,
    /// Core pinning.
    pub affinity: Option<bool>,
}

/// What a `--dry-run` shows: the games a run would play, and whether the journal can be resumed.
#[derive(Debug)]
pub struct Preview {
    /// The schedule's games (of the journal's schedule grown by the bots that would join, if it can be
    /// resumed), those of the shard if the run plays one.
    pub games: Vec<ScheduledGame>,
    /// Games at once.
    pub concurrency: usize,
    /// The output folder.
    pub out: PathBuf,
    /// The rule by which games end before their board is full (`[rules] adjudicate`); `None`: played out.
    pub adjudicate: Option<AdjudicationRule>,
    /// The journal's plan, if there is a journal, or why it cannot be resumed with this file.
    pub resume: Result<Option<resume::Plan>, ResumeError>,
}

/// Plays the tournament of `plan` (or resumes it), showing what happens to `observer`, until its games
/// are done or `stop` completes. `serve` starts serving the run's pages, once its journal is open; what it
/// gives back is dropped after the games.
pub async fn play<Served, E: Into<ServeError>>(
    plan: TournamentPlan,
    observer: &mut dyn Observer,
    stop: impl Future<Output = ()>,
    serve: impl AsyncFnOnce(&Path, &Arc<Live>) -> Result<Served, E>,
) -> Result<Played, SessionError> {
    let (fresh, shard, replay) = (plan.fresh, plan.shard, plan.replay.clone());
    let (file, launcher) = checked(plan, observer)?;
    if file.tournament.pause_idle && pahtum_referee::contain::pausing() == pahtum_referee::Pausing::Signals {
        observer.on(Event::Notice(Notice::PausedBySignals));
    }
    let out = file.settings.out.clone();
    drop_games_of(&out, &file.tournament, &replay, observer)?;
    let bots = Bots::of_file(&file, &launcher);
    // A journal to resume: is each bot's program still the one of its games there?
    let mut greetings = if !fresh && out.join(JOURNAL).exists() {
        let names: Vec<String> = (file.tournament.bots.iter())
            .map(|bot| bot.name.clone())
            .filter(|name| !replay.contains(name))
            .collect();
        greetings(&bots, &names, observer).await
    } else {
        HelloCheck::default()
    };
    let durability = file.settings.durability;
    let mut watched = Tee(observer, &mut greetings);
    let mut opened = session::open_journal(&out, &file.tournament, shard, fresh, durability, &mut watched)?;
    for change in greetings.changes() {
        observer.on(Event::Notice(Notice::HelloChanged {
            bot: &change.bot,
            was: &change.was,
            now: &change.now,
            games: change.games,
            other: change.other,
        }));
    }
    if let Some(shard) = shard {
        opened.plan.only(shard);
    }
    session::show_opened(&opened, observer);
    let locate = |bot: &str| {
        let index = (file.tournament.bots.iter())
            .position(|b| b.name == bot)
            .unwrap_or_default();
        format!("{}: key `{}`: ", file.path.display(), TournamentFile::bot_key(index))
    };
    let ending = session::play(&mut opened, &out, bots, observer, Playing { stop, serve }, locate).await?;
    Ok(Played { ending, opened, out })
}

/// What a run of `plan` would play (`--dry-run`), after the same checks as [`play`]'s, their notices shown
/// to `observer`; nothing is started or written.
pub fn preview(plan: TournamentPlan, observer: &mut dyn Observer) -> Result<Preview, SessionError> {
    let shard = plan.shard;
    let (file, _) = checked(plan, observer)?;
    let resume = resume::preview(&file.settings.out, &file.tournament, shard);
    // The schedule of the journal, grown by the bots that would join, if there is one.
    let mut games = match &resume {
        Ok(Some(plan)) => plan.schedule.iter().collect(),
        _ => schedule::schedule(&file.tournament),
    };
    if let Some(shard) = shard {
        games.retain(|game| shard.contains(game.index));
    }
    Ok(Preview {
        games,
        adjudicate: file.tournament.rules.adjudicate,
        concurrency: file.settings.concurrency,
        out: file.settings.out,
        resume,
    })
}

/// The file of `plan` with the command line's settings over its own, and its launcher, once its bots'
/// programs, `--replay`'s names and the sandbox are checked (what each sandbox hides told to `observer`)
/// and the output folder is not a league's.
fn checked(plan: TournamentPlan, observer: &mut dyn Observer) -> Result<(TournamentFile, Launcher), SessionError> {
    let TournamentPlan { mut file, settings, .. } = plan;
    if let Some(out) = settings.out {
        file.settings.out = out;
    }
    if let Some(shard) = plan.shard {
        file.settings.out = file.settings.out.join(shard.folder_name());
    }
    if let Some(concurrency) = settings.concurrency {
        file.settings.concurrency = concurrency;
    }
    if settings.restart_every_game {
        file.settings.restart = Restart::EveryGame;
    }
    if let Some(durability) = settings.durability {
        file.settings.durability = durability;
    }
    if settings.sandbox {
        for bot in &mut file.tournament.bots {
            bot.sandbox.get_or_insert_with(Default::default);
        }
    }
    if let Some(affinity) = settings.affinity {
        file.settings.affinity = Some(affinity);
    }
    let launcher = Launcher::new(&file, &plan.arena);
    check_programs(&file, &launcher, plan.builtins)?;
    let names: Vec<&str> = file.tournament.bots.iter().map(|bot| bot.name.as_str()).collect();
    if let Some(unknown) = plan.replay.iter().find(|name| !names.contains(&name.as_str())) {
        return Err(SessionError::NoSuchBot {
            bot: unknown.clone(),
            file: file.path.clone(),
            bots: names.iter().map(|&name| name.to_owned()).collect(),
        });
    }
    session::require_sandbox(file.tournament.bots.iter().any(|bot| bot.sandbox.is_some()))?;
    let specs: Vec<_> = file.tournament.bots.iter().map(|bot| launcher.spec(bot)).collect();
    session::show_sandbox_notes(&specs, observer);
    session::refuse_league(&file.settings.out)?;
    Ok((file, launcher))
}

/// Drops the games of the bots `names` from the journal of `tournament` in `out`, if there is one, so
/// that the run plays them again, and tells `observer` what was dropped. A journal of another tournament
/// is refused as a resume would refuse it, unchanged.
fn drop_games_of(
    out: &Path,
    tournament: &Tournament,
    names: &[String],
    observer: &mut dyn Observer,
) -> Result<(), SessionError> {
    let journal = out.join(JOURNAL);
    if names.is_empty() || !journal.exists() {
        return Ok(());
    }
    check_unchanged(JournalReader::open(&journal)?.header(), tournament, &journal)?;
    let plays = |record: &pahtum_record::GameRecord| {
        (names.iter()).any(|name| record.players.first == *name || record.players.second == *name)
    };
    let dropped = drop_games(&journal, plays)?;
    observer.on(Event::Notice(Notice::Dropped {
        bots: names,
        games: dropped.games,
        aside: dropped.aside.as_deref(),
    }));
    Ok(())
}

/// What each of the bots `names` says in its `hello` now, for a check of the journal's records
/// ([`HelloCheck`], shown the journal as it is opened); a bot that cannot start is told to `observer` and
/// left out of the check.
async fn greetings(bots: &Bots, names: &[String], observer: &mut dyn Observer) -> HelloCheck {
    let mut now = Vec::new();
    for (name, greeted) in crate::greet::hellos(bots, names).await {
        match greeted {
            Ok(identity) => now.push((name, identity)),
            Err(error) => observer.on(Event::Notice(Notice::NotGreeted {
                why: &start_error(&error, "    "),
            })),
        }
    }
    HelloCheck::new(now)
}
