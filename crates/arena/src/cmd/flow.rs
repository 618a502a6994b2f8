//! The flow that `arena run` and `arena match` share.
//!
//! Both play a tournament into a journal in an output folder: open (or resume)
//! the journal, hand the missing games to the runner once (pahtum-runner's
//! `play_games`, with the stop signals), write the tables beside the journal
//! (pahtum-report), print them, and exit with the code of how the run ended.
//! Only what comes before (a file, or the flags) and the status display
//! differ; the rest is here once.
//!
//! A bot's program may change between two runs of one journal while its name
//! stays: [`greetings`] asks each bot its `hello` before an existing journal
//! is opened, [`warn_of_changes`] says which bots greet otherwise than in
//! their last game there, and [`drop_games_of`] drops a bot's games from the
//! journal so that the run plays them again (`arena run --replay BOT`).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::bail;
use pahtum_journal::{JournalReader, drop_games};
use pahtum_protocol::bot::Identity;
use pahtum_protocol::untrusted::escape;
use pahtum_report::fit::Fit;
use pahtum_report::render::{Format, render};
use pahtum_run::events::{Observer, RunEnding, Tee};
use pahtum_run::hellos::HelloCheck;
use pahtum_run::resume::{Existing, JOURNAL, Opened, ResumeError, check_unchanged, open};
use pahtum_runner::games::{Bots, PlayError, play_games};
use pahtum_runner::live::Live;
use pahtum_runner::live_socket::LiveSocket;
use pahtum_standings::standings::Standings;
use pahtum_tournament::config::Tournament;
use pahtum_tournament::durability::Durability;
use pahtum_tournament::shard::Shard;

use crate::forfeit::start_error;
use crate::output::{errln, out};
use crate::signals::StopSignals;

/// Whether the status is one line redrawn in place: on a terminal that can do it (not `TERM=dumb`, where
/// indicatif would draw nothing), else plain lines every few seconds.
pub fn live_status() -> bool {
    std::io::stderr().is_terminal() && std::env::var("TERM").is_ok_and(|term| term != "dumb")
}

/// Refuses an output folder `out` that holds a league's journal: a tournament is not played into a league's
/// folder (not even `--fresh`, which would move the league's journal aside).
pub fn refuse_league(out: &Path) -> anyhow::Result<()> {
    if pahtum_league::is_league_journal(&out.join(JOURNAL)) {
        bail!(
            "{} is a league's folder: play its games with `arena league run {}`, or give another output folder",
            out.display(),
            out.display()
        );
    }
    Ok(())
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
        errln!("arena: the previous journal is kept as {}", aside.display());
    }
    if opened.repaired_torn_line {
        errln!("arena: dropped the torn last line of the journal (a game cut off by a crash; it will be played again)");
    }
    if let Some(joined) = &opened.joined {
        let names: Vec<String> = joined.joined.iter().map(|bot| escape(&bot.name).into_owned()).collect();
        errln!(
            "arena: {} joined the tournament: its schedule has {} games now, and the {} games already played are \
             kept (only the new pairs are played)",
            names.join(", "),
            joined.games,
            opened.plan.done.len()
        );
    }
    Ok(opened)
}

/// Drops the games of the bots `names` from the journal of `tournament` in `out`, if there is one, so that
/// the run plays them again; says on stderr what was dropped and where the old journal is kept. A journal
/// of another tournament is refused as a resume would refuse it, unchanged.
pub fn drop_games_of(out: &Path, tournament: &Tournament, names: &[String]) -> anyhow::Result<()> {
    let journal = out.join(JOURNAL);
    if names.is_empty() || !journal.exists() {
        return Ok(());
    }
    check_unchanged(JournalReader::open(&journal)?.header(), tournament, &journal)?;
    let plays = |record: &pahtum_record::GameRecord| {
        names
            .iter()
            .any(|name| record.players.first == *name || record.players.second == *name)
    };
    let dropped = drop_games(&journal, plays)?;
    let whose = names.join(", ");
    match dropped.aside {
        Some(aside) => errln!(
            "arena: dropped the {} games of {whose} from the journal, to play them again; the previous journal \
             is kept as {}",
            dropped.games,
            aside.display()
        ),
        None => errln!("arena: the journal holds no game of {whose}"),
    }
    Ok(())
}

/// What each of the bots `names` says in its `hello` now, for a check of the journal's records
/// ([`HelloCheck`], shown the journal as it is opened); a bot that cannot start is said on stderr and
/// left out of the check.
pub async fn greetings(bots: &Bots, names: &[String]) -> HelloCheck {
    let mut now = Vec::new();
    for (name, greeted) in pahtum_runner::greet::hellos(bots, names).await {
        match greeted {
            Ok(identity) => now.push((name, identity)),
            Err(error) => errln!(
                "arena: warning: {}; its games in the journal cannot be compared with its program now",
                start_error(&error, "    ")
            ),
        }
    }
    HelloCheck::new(now)
}

/// Says on stderr which bots greet otherwise now than in their last game in the journal, and how to
/// play their games again: `replay` of a bot's name is the command.
pub fn warn_of_changes(check: &HelloCheck, replay: impl Fn(&str) -> String) {
    for change in check.changes() {
        errln!(
            "arena: warning: bot {} now says hello as {}, but as {} in its last game in the journal: {} of its {} \
             games there were played by a program that said otherwise, and the standings mix the two; to play \
             its games again, run: {}",
            escape(&change.bot),
            greeting(&change.now),
            greeting(&change.was),
            change.other,
            change.games,
            escape(&replay(&change.bot))
        );
    }
}

/// A bot's greeting in words, escaped: `"name version"` (`by author` after it, if named).
fn greeting(identity: &Identity) -> String {
    let mut text = identity.name.clone();
    if let Some(version) = &identity.version {
        text.push(' ');
        text.push_str(version);
    }
    let by = identity
        .author
        .as_ref()
        .map(|author| format!(" by \"{}\"", escape(author)))
        .unwrap_or_default();
    format!("\"{}\"{by}", escape(&text))
}

/// Plays the pending games of `opened` with `bots` (pahtum-runner's [`play_games`]), showing them to `observer`,
/// until they are done or a stop signal comes ([`StopSignals`]); a bot that cannot start is an error led
/// by `locate` of its name. With `serve`, the run's pages are served meanwhile; the games in progress are
/// shown to that server and, through the run folder's socket, to any other (pahtum-runner's `live_socket`).
pub async fn play(
    opened: &mut Opened,
    out: &Path,
    (bots, serve): (Bots, crate::flags::ServeFlag),
    observer: &mut dyn Observer,
    locate: impl Fn(&str) -> String,
) -> anyhow::Result<RunEnding> {
    let live = Arc::new(Live::default());
    let _serving = serve.start(out, &live).await?;
    let socket = open_live_socket(out, &live);
    let mut shown = &*live;
    let mut observer = Tee(observer, &mut shown);
    let played = play_games(opened, out, bots, &live, &mut observer, StopSignals::default()).await;
    if let Some(socket) = socket {
        socket.close().await;
    }
    match played {
        Err(PlayError::CannotStart(errors)) => {
            let mut message = String::from("some bots cannot start, so no game was played:");
            for error in errors {
                message.push_str(&format!("\n  {}{}", locate(error.bot()), start_error(&error, "    ")));
            }
            bail!(message)
        }
        played => Ok(played?),
    }
}

/// The socket in `out` through which a server in another process follows the games in progress that `live`
/// shows (pahtum-runner's `live_socket`); `None`, with a warning, if it cannot be made: not having it is no
/// reason not to play.
pub fn open_live_socket(out: &Path, live: &Arc<Live>) -> Option<LiveSocket> {
    LiveSocket::open(out, Arc::clone(live))
        .inspect_err(|error| {
            errln!("arena: the games in progress cannot be followed from another process ({error}); playing on")
        })
        .ok()
}

/// Prints `lead` and the standings (their table fitted as `fit` says) on stdout and where the journal and
/// the `written` files are on stderr; the exit code of `ending`, saying `resume` (how to resume) when
/// interrupted.
pub fn report(
    lead: &str,
    standings: &Standings,
    fit: Fit,
    journal: &Path,
    written: &[PathBuf],
    ending: RunEnding,
    resume: &str,
) -> ExitCode {
    out!("{lead}{}", render(standings, Format::Table, fit));
    let written: Vec<String> = written.iter().map(|path| path.display().to_string()).collect();
    errln!("arena: journal {}; tables {}", journal.display(), written.join(", "));
    match ending {
        RunEnding::Finished | RunEnding::Declined => ExitCode::SUCCESS,
        RunEnding::Interrupted => {
            errln!("arena: interrupted; {resume}");
            crate::signals::interrupted()
        }
    }
}
