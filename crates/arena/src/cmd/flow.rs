//! The flow that `arena run` and `arena match` share.
//!
//! Both play a tournament into a journal in an output folder: open (or resume)
//! the journal, hand the missing games to the runner once (pahtum-runner's
//! `play_games`, with the stop signals), write the tables beside the journal
//! (pahtum-report), print them, and exit with the code of how the run ended.
//! Only what comes before (a file, or the flags) and the status display
//! differ; the rest is here once.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;
use pahtum_report::render::{Format, render};
use pahtum_runner::games::{Bots, PlayError, play_games};
use pahtum_tournament::config::Tournament;
use pahtum_tournament::durability::Durability;
use pahtum_tournament::events::{Observer, RunEnding};
use pahtum_tournament::resume::{Existing, Opened, ResumeError, open};
use pahtum_tournament::shard::Shard;
use pahtum_tournament::standings::Standings;

use crate::forfeit::start_error;
use crate::output::{errln, out};
use crate::signals::StopSignals;

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
        errln!("arena: the previous journal is kept as {}", aside.display());
    }
    if opened.repaired_torn_line {
        errln!(
            "arena: dropped the torn last line of the journal (a game cut off by a crash; it will be played again)"
        );
    }
    Ok(opened)
}

/// Plays the pending games of `opened` with `bots` (pahtum-runner's [`play_games`]), showing them to `observer`,
/// until they are done or a stop signal comes ([`StopSignals`]); a bot that cannot start is an error led
/// by `locate` of its name.
pub async fn play(
    opened: &mut Opened,
    out: &Path,
    bots: Bots,
    observer: &mut dyn Observer,
    locate: impl Fn(&str) -> String,
) -> anyhow::Result<RunEnding> {
    match play_games(opened, out, bots, observer, StopSignals::default()).await {
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

/// Prints `lead` and the standings on stdout and where the journal and the `written` files are on
/// stderr; the exit code of `ending`, saying `resume` (how to resume) when interrupted.
pub fn report(
    lead: &str,
    standings: &Standings,
    journal: &Path,
    written: &[PathBuf],
    ending: RunEnding,
    resume: &str,
) -> ExitCode {
    out!("{lead}{}", render(standings, Format::Table));
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
